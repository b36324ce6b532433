//! The normalised export loses nothing: reading the export gives the same
//! game information and the same verdict (locations aside), and exporting
//! the export changes nothing.

use std::path::{Path, PathBuf};

use keil_record::{NameHint, Record, read_records, read_records_with, validate};
use serde_json::Value;

fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("KEIL_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    dir.join("data/keil-vectors").is_dir().then_some(dir)
}

/// The verdict as JSON, without the line and column (the export moves nodes).
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
    // The export writes GM and SZ: their warnings go.
    v["warnings"]
        .as_array_mut()
        .unwrap()
        .retain(|w| !matches!(w["code"].as_str(), Some("missing_gm" | "missing_sz")));
    v
}

fn check_dir(dir: &Path) -> usize {
    let mut n = 0;
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.extension().and_then(|x| x.to_str()) != Some("keil") {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        for r in read_records(&bytes) {
            let record = r.unwrap();
            let exported = record.to_sgf();
            let again = read_records(exported.as_bytes());
            let [Ok(back)] = again.as_slice() else {
                panic!("{}: the export does not read back: {again:?}", p.display());
            };
            assert_eq!(back.info, record.info, "{}", p.display());
            assert_eq!(
                back.keil().map(|k| k.ruleset),
                record.keil().map(|k| k.ruleset),
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
    let Some(shared) = shared() else {
        eprintln!("note: ../shared is absent; skipping");
        return;
    };
    let n = check_dir(&shared.join("data/keil-vectors"));
    eprintln!("export round trip: {n} vectors");
    assert!(n >= 300);
}

#[test]
fn exports_of_the_fixtures_get_the_same_verdict() {
    let n = check_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/rules"));
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
