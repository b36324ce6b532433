//! The normalised export loses nothing: reading the export gives the same
//! game information and the same verdict (locations aside), and exporting
//! the export changes nothing.

mod common;

use std::path::Path;

use common::shared;
use keil_record::{NameHint, Record, read_records, read_records_with, validate};
use serde_json::Value;

/// The verdict as JSON, without the line and column (the export moves
/// nodes); warnings by code only (their messages name places), without
/// those the export removes: a missing `GM` or `SZ` (it writes them) and
/// the SGF reader's repairs (it writes clean SGF).
fn verdict(record: &Record) -> Value {
    let mut v = validate(record).verdict.to_json("f", 0);
    let strip = |v: &mut Value| {
        let m = v.as_object_mut().unwrap();
        m.remove("line");
        m.remove("column");
    };
    strip(&mut v);
    for var in v["variations"].as_array_mut().unwrap() {
        strip(var);
    }
    let codes: Vec<Value> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].clone())
        .filter(|c| {
            let ours = [
                "komi_warning",
                "from_setup",
                "setup_in_game",
                "setup_with_move",
                "pl_with_move",
                "setup_no_liberties",
                "handicap_ignored",
                "resumed_after_passes",
            ];
            ours.contains(&c.as_str().unwrap())
        })
        .collect();
    v["warnings"] = codes.into();
    v
}

/// The moves of the main line's replay.
fn moves(record: &Record) -> Vec<String> {
    let replay = validate(record).replay;
    let plies = replay.map(|r| r.plies).unwrap_or_default();
    plies
        .iter()
        .map(|p| format!("{:?} {:?}", p.color, p.mv))
        .collect()
}

/// Exports every record of the files of `dir` with one of `extensions`
/// (recursively), reads the export back, and checks game information,
/// rules, tree size, verdict and moves; exporting the export changes
/// nothing. Returns the number of records.
fn check_dir(dir: &Path, extensions: &[&str]) -> usize {
    let mut n = 0;
    for p in common::files(dir, extensions) {
        let bytes = std::fs::read(&p).unwrap();
        for r in read_records_with(&bytes, NameHint::of(&p)) {
            let Ok(record) = r else {
                continue;
            };
            let exported = record.to_sgf();
            let again = read_records(exported.as_bytes());
            let [Ok(back)] = again.as_slice() else {
                panic!("{}: the export does not read back: {again:?}", p.display());
            };
            assert_eq!(back.info, record.info, "{}", p.display());
            assert_eq!(back.kind(), record.kind(), "{}", p.display());
            assert_eq!(
                back.keil().map(|k| k.ruleset),
                record.keil().map(|k| k.ruleset),
                "{}",
                p.display()
            );
            assert_eq!(
                back.go()
                    .map(|g| (g.ruleset, g.ru_mapped, g.komi, g.handicap)),
                record
                    .go()
                    .map(|g| (g.ruleset, g.ru_mapped, g.komi, g.handicap)),
                "{}",
                p.display()
            );
            assert_eq!(back.tree.len(), record.tree.len(), "{}", p.display());
            assert_eq!(
                verdict(back),
                verdict(&record),
                "{}\n{exported}",
                p.display()
            );
            assert_eq!(moves(back), moves(&record), "{}", p.display());
            assert_eq!(
                back.to_sgf(),
                exported,
                "{}: export is not stable",
                p.display()
            );
            n += 1;
        }
    }
    n
}

#[test]
fn exports_of_the_vectors_get_the_same_verdict() {
    let Some(shared) = shared("keil-vectors") else {
        eprintln!("note: ../shared is absent; skipping");
        return;
    };
    let n = check_dir(&shared.join("data/keil-vectors"), &["keil"]);
    eprintln!("export round trip: {n} vectors");
    assert!(n >= 300);
}

/// Go records (every ruleset) and Keil records with `ko=kee`.
#[test]
fn exports_of_the_kee_vectors_get_the_same_verdict() {
    let Some(shared) = shared("kee-vectors") else {
        eprintln!("note: ../shared is absent; skipping");
        return;
    };
    let n = check_dir(&shared.join("data/kee-vectors"), &["sgf", "keil"]);
    eprintln!("export round trip: {n} kee-vectors");
    assert!(n >= 400);
}

/// Kaomi records of both variants, with swaps, passes and variations.
#[test]
fn exports_of_the_kaomi_vectors_get_the_same_verdict() {
    let Some(shared) = shared("kaomi-vectors") else {
        eprintln!("note: ../shared is absent; skipping");
        return;
    };
    let n = check_dir(&shared.join("data/kaomi-vectors"), &["kaomi"]);
    eprintln!("export round trip: {n} kaomi-vectors");
    assert!(n >= 300);
}

/// Real Go records: problems, server exports, test files with setup in
/// the game, `PL`, handicaps, charsets.
#[test]
fn exports_of_the_real_go_records_get_the_same_verdict() {
    let Some(shared) = shared("sgf-real") else {
        eprintln!("note: ../shared is absent; skipping");
        return;
    };
    let n = check_dir(&shared.join("data/sgf-real"), &["sgf"]);
    eprintln!("export round trip: {n} real records");
    assert!(n >= 6000);
}

#[test]
fn exports_of_the_fixtures_get_the_same_verdict() {
    let n = check_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/rules"),
        &["keil"],
    );
    assert!(n >= 19);
}

#[test]
fn export_orders_properties_and_keeps_unknown_ones() {
    // No GM (`gm` has no upper-case letter: dropped): Keil by the file name.
    let text = "(;XX[keep me]PW[W]C[root]SZ[2]gm[keil]PB[B]RE[B+R]\n;C[first]B[b2]MN[1];W[a1])";
    let records = read_records_with(text.as_bytes(), NameHint::Keil);
    let record = records[0].as_ref().unwrap();
    assert_eq!(
        record
            .unknown_properties()
            .iter()
            .map(|(_, p)| p.ident().to_string())
            .collect::<Vec<_>>(),
        ["XX", "MN"]
    );
    let out = record.to_sgf();
    assert_eq!(
        out,
        "(;GM[Keil]FF[4]SZ[2]PB[B]PW[W]RE[B+R]C[root]XX[keep me]\n;B[b2]C[first]MN[1]\n;W[a1])\n"
    );
}
