//! `keil import` as a user runs it on a cut zip download and random bytes
//! beside real records: the zip is reported as an archive that cannot be
//! read, the random bytes as not SGF, nothing of them is stored, and the
//! other files import.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn keil() -> Command {
    Command::cargo_bin("keil").unwrap()
}

#[test]
fn binary_files_are_refused_and_the_others_import() {
    let dir = std::env::temp_dir().join(format!("keil-import-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = keil()
        .args(["generate", "--games", "3", "--seed", "5"])
        .assert()
        .code(0);
    let good = dir.join("good.keil");
    std::fs::write(&good, &out.get_output().stdout).unwrap();
    // A cut zip download (a local file header, then a game, no central
    // directory) and random bytes.
    let zip = dir.join("games.zip");
    let mut z = b"PK\x03\x04\x14\x00\x00\x00\x00\x00".to_vec();
    z.extend_from_slice(b"(;GM[1]SZ[19]PB[Ann];B[pd])");
    std::fs::write(&zip, z).unwrap();
    let mut seed = 7u64;
    let noise: Vec<u8> = (0..200_000)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect();
    let random = dir.join("noise.sgf");
    std::fs::write(&random, noise).unwrap();
    let db = dir.join("db");
    keil()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .args([&zip, &random, &good])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("3 imported"))
        .stdout(predicate::str::contains("invalid, not_sgf: 1"))
        .stdout(predicate::str::contains("invalid, bad_container: 1"))
        .stdout(predicate::str::contains(format!(
            "{} game 1: cannot read this zip container",
            zip.display()
        )))
        .stdout(predicate::str::contains(format!(
            "{} game 1: not an SGF collection: binary data",
            random.display()
        )));
    let stats = keil()
        .args(["stats", "--json", "--db"])
        .arg(&db)
        .assert()
        .code(0);
    let stats: Value = serde_json::from_slice(&stats.get_output().stdout).unwrap();
    assert_eq!(stats["games"], 3, "{stats}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `keil export --db` streams an archive's games (filtered) as a collection
/// or a zip; importing the zip into a new archive stores the same games.
#[test]
fn export_of_an_archive_imports_back_the_same_games() {
    let dir = std::env::temp_dir().join(format!("keil-export-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let games = dir.join("games.sgf");
    keil()
        .args([
            "generate", "--game", "go", "--size", "9", "--games", "60", "--seed", "3", "--out",
        ])
        .arg(&games)
        .assert()
        .code(0);
    let db = dir.join("db");
    keil()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .arg(&games)
        .assert()
        .code(0);
    let count = |db: &std::path::Path| -> u64 {
        let stats = keil()
            .args(["stats", "--json", "--db"])
            .arg(db)
            .assert()
            .code(0);
        let v: Value = serde_json::from_slice(&stats.get_output().stdout).unwrap();
        v["games"].as_u64().unwrap()
    };
    let stored = count(&db);
    assert!(stored > 50, "{stored}");
    let zip = dir.join("all.zip");
    keil()
        .args(["export", "--db"])
        .arg(&db)
        .arg("-o")
        .arg(&zip)
        .assert()
        .code(0)
        .stderr(predicate::str::contains(format!("{stored} games exported")));
    let again = dir.join("again");
    keil()
        .arg("import")
        .arg("--db")
        .arg(&again)
        .arg(&zip)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!("{stored} imported")))
        .stdout(predicate::str::contains(format!(
            "{stored} archive members"
        )));
    assert_eq!(count(&again), stored);
    // A filter, to standard output as one collection.
    let out = keil()
        .args(["export", "--db"])
        .arg(&db)
        .args(["--winner", "black"])
        .assert()
        .code(0);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let n = text.matches("(;GM[1]").count() as u64;
    assert!(n > 0 && n < stored, "{n} of {stored}");
    assert_eq!(text.matches("RE[B+").count() as u64, n);
    let _ = std::fs::remove_dir_all(&dir);
}
