//! The answer keys: every record of `../shared/data/keil-vectors/` and
//! `../shared/data/kee-vectors/` gets the verdict of its `expected.jsonl` —
//! status, winner, margin, scores, first illegal ply, reason, move,
//! repeated plies, Kee checks, superko breaks, pass plays, komi warning,
//! unlinked territory, plies, the rules, and every variation's entry —
//! compared through the `--json` object, so the JSON field names are
//! checked too.

mod common;

use std::path::Path;

use common::shared;
use keil_record::{NameHint, read_records_with, validate};
use serde_json::Value;

/// JSON values equal, numbers compared as numbers (`6` == `6.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, a)| y.get(k).is_some_and(|b| same(a, b)))
        }
        _ => a == b,
    }
}

/// The fields of keil-vectors.
const FIELDS: &[&str] = &[
    "status",
    "winner",
    "margin",
    "score_black",
    "score_white",
    "ply",
    "reason",
    "move",
    "repeats_plies",
    "komi_warning",
    "unlinked_territory_points",
    "plies",
];

const VARIATION_FIELDS: &[&str] = &[
    "branch_ply",
    "status",
    "ply",
    "reason",
    "move",
    "repeats_plies",
];

/// The fields of kee-vectors (its README's list, and the rules), Go and
/// Keil alike: a field a record's game does not have is `null` on both
/// sides (`pass_plays` of Keil, `handicap` and `ru_mapped` of Keil,
/// `komi_warning` and `unlinked_territory_points` of Go are not listed for
/// that game in `expected.jsonl`; `null` is what the validator writes).
const KEE_FIELDS: &[&str] = &[
    "status",
    "reason",
    "ply",
    "move",
    "repeats_plies",
    "kee_check",
    "superko_breaks",
    "pass_plays",
    "winner",
    "margin",
    "score_black",
    "score_white",
    "re_checked",
    "ruleset",
    "ru_mapped",
    "size",
    "komi",
    "plies",
];

/// Kee-vectors' Go-only fields (Keil records do not list them).
const KEE_GO_FIELDS: &[&str] = &["handicap"];

/// Kee-vectors' Keil-only fields.
const KEE_KEIL_FIELDS: &[&str] = &["komi_warning", "unlinked_territory_points"];

const KEE_VARIATION_FIELDS: &[&str] = &[
    "branch_ply",
    "status",
    "ply",
    "reason",
    "move",
    "repeats_plies",
    "kee_check",
];

/// What to compare in an answer key.
struct Key {
    name: &'static str,
    fields: &'static [&'static str],
    variation_fields: &'static [&'static str],
    /// Extra fields by the record's game (`go`, `keil`; kee-vectors'
    /// `game`), checked against the validator's `game_kind`.
    by_game: &'static [(&'static str, &'static [&'static str])],
}

/// Checks every record listed in `dir/expected.jsonl`; returns the number
/// checked, and fails on any disagreement.
fn check_answer_key(dir: &Path, key: &Key) -> usize {
    let name = key.name;
    let expected = std::fs::read_to_string(dir.join("expected.jsonl")).unwrap();
    let (mut agree, mut total, mut variations) = (0, 0, 0);
    let mut failures = Vec::new();
    for line in expected.lines() {
        let want: Value = serde_json::from_str(line).unwrap();
        let file = want["file"].as_str().unwrap();
        total += 1;
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let records = read_records_with(&bytes, NameHint::of(file));
        let record = match records.as_slice() {
            [Ok(r)] => r,
            other => {
                failures.push(format!("{file}: read as {other:?}"));
                continue;
            }
        };
        let got = validate(record).verdict.to_json(file, 0);
        let mut diffs = Vec::new();
        let mut fields = key.fields.to_vec();
        if let Some(kind) = want["game"].as_str() {
            if got["game_kind"] != kind {
                diffs.push(format!("game: got {} want {kind}", got["game_kind"]));
            }
            for (game, extra) in key.by_game {
                if *game == kind {
                    fields.extend_from_slice(extra);
                }
            }
        }
        for f in fields {
            if !same(&got[f], &want[f]) {
                diffs.push(format!("{f}: got {} want {}", got[f], want[f]));
            }
        }
        let want_vars = want["variations"].as_array().cloned().unwrap_or_default();
        let got_vars = got["variations"].as_array().unwrap();
        if got_vars.len() != want_vars.len() {
            diffs.push(format!(
                "variations: got {} want {}",
                got_vars.len(),
                want_vars.len()
            ));
        }
        for (g, w) in got_vars.iter().zip(&want_vars) {
            variations += 1;
            for &f in key.variation_fields {
                if !same(&g[f], &w[f]) {
                    diffs.push(format!("variation {f}: got {} want {}", g[f], w[f]));
                }
            }
        }
        if diffs.is_empty() {
            agree += 1;
        } else {
            failures.push(format!("{file} ({}): {}", want["kind"], diffs.join("; ")));
        }
    }
    eprintln!("{name}: {agree} of {total} records agree ({variations} variations checked)");
    assert!(
        failures.is_empty(),
        "{name}: {} of {total} disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    total
}

const KEIL_VECTORS: Key = Key {
    name: "keil-vectors",
    fields: FIELDS,
    variation_fields: VARIATION_FIELDS,
    by_game: &[],
};

#[test]
fn every_vector_gets_the_expected_verdict() {
    let Some(shared) = shared("keil-vectors") else {
        eprintln!("note: ../shared is absent; skipping the keil-vectors answer key");
        return;
    };
    let total = check_answer_key(&shared.join("data/keil-vectors"), &KEIL_VECTORS);
    assert!(total >= 300, "only {total} vectors read");
}

/// Go records of every ruleset and Keil records with `ko=kee`
/// (go-rules.md, kee-rules.md).
#[test]
fn every_kee_vector_gets_the_expected_verdict() {
    let Some(shared) = shared("kee-vectors") else {
        eprintln!("note: ../shared is absent; skipping the kee-vectors answer key");
        return;
    };
    let key = Key {
        name: "kee-vectors",
        fields: KEE_FIELDS,
        variation_fields: KEE_VARIATION_FIELDS,
        by_game: &[("go", KEE_GO_FIELDS), ("keil", KEE_KEIL_FIELDS)],
    };
    let total = check_answer_key(&shared.join("data/kee-vectors"), &key);
    assert!(total >= 400, "only {total} vectors read");
}

#[test]
fn every_fixture_gets_its_expected_verdict() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    if !dir.join("expected.jsonl").exists() {
        eprintln!("note: fixtures/expected.jsonl is absent; skipping");
        return;
    }
    let key = Key {
        name: "fixtures",
        ..KEIL_VECTORS
    };
    let total = check_answer_key(&dir, &key);
    assert!(total >= 19, "only {total} fixtures read");
}

/// The fields of kaomi-vectors (its README's list).
const KAOMI_FIELDS: &[&str] = &[
    "status",
    "winner",
    "margin",
    "score_black",
    "score_white",
    "ply",
    "reason",
    "move",
    "ruleset",
    "size",
    "komi",
    "komi_warning",
    "plies",
    "swapped",
    "last_stone",
    "groups_black",
    "groups_white",
    "left_black",
    "left_white",
    "position",
];

const KAOMI_VARIATION_FIELDS: &[&str] =
    &["branch_ply", "status", "ply", "reason", "move", "position"];

/// Kaomi records of sizes 2 to 9, both variants, the pie rule on and off
/// (kaomi-rules.md).
#[test]
fn every_kaomi_vector_gets_the_expected_verdict() {
    let Some(shared) = shared("kaomi-vectors") else {
        eprintln!("note: ../shared is absent; skipping the kaomi-vectors answer key");
        return;
    };
    let key = Key {
        name: "kaomi-vectors",
        fields: KAOMI_FIELDS,
        variation_fields: KAOMI_VARIATION_FIELDS,
        by_game: &[],
    };
    let total = check_answer_key(&shared.join("data/kaomi-vectors"), &key);
    assert!(total >= 300, "only {total} vectors read");
}
