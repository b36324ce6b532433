//! The answer key: every record of `../shared/data/keil-vectors/` gets the
//! verdict of `expected.jsonl` — status, winner, margin, scores, first
//! illegal ply, reason, move, repeated plies, komi warning, unlinked
//! territory, plies, and every variation's entry — compared through the
//! `--json` object, so the JSON field names are checked too.

use std::path::{Path, PathBuf};

use keil_record::{read_records, validate};
use serde_json::Value;

fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("KEIL_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    dir.join("data/keil-vectors/expected.jsonl")
        .exists()
        .then_some(dir)
}

/// JSON values equal, numbers compared as numbers (`6` == `6.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        _ => a == b,
    }
}

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

/// Checks every record listed in `dir/expected.jsonl`; returns the number
/// that agree and the number checked, and fails on any disagreement.
fn check_answer_key(dir: &Path, name: &str) -> usize {
    let expected = std::fs::read_to_string(dir.join("expected.jsonl")).unwrap();
    let (mut agree, mut total, mut variations) = (0, 0, 0);
    let mut failures = Vec::new();
    for line in expected.lines() {
        let want: Value = serde_json::from_str(line).unwrap();
        let file = want["file"].as_str().unwrap();
        total += 1;
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let records = read_records(&bytes);
        let record = match records.as_slice() {
            [Ok(r)] => r,
            other => {
                failures.push(format!("{file}: read as {other:?}"));
                continue;
            }
        };
        let got = validate(record).verdict.to_json(file, 0);
        let mut diffs = Vec::new();
        for &f in FIELDS {
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
            for &f in VARIATION_FIELDS {
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

#[test]
fn every_vector_gets_the_expected_verdict() {
    let Some(shared) = shared() else {
        eprintln!("note: ../shared is absent; skipping the keil-vectors answer key");
        return;
    };
    let total = check_answer_key(&shared.join("data/keil-vectors"), "keil-vectors");
    assert!(total >= 300, "only {total} vectors read");
}

#[test]
fn every_fixture_gets_its_expected_verdict() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    if !dir.join("expected.jsonl").exists() {
        eprintln!("note: fixtures/expected.jsonl is absent; skipping");
        return;
    }
    let total = check_answer_key(&dir, "fixtures");
    assert!(total >= 19, "only {total} fixtures read");
}
