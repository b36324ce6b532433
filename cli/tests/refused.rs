//! `keil refused`, `keil export --refused`, `keil remove --refused`, the
//! count in `keil stats --json` and the re-validation in `keil reindex`:
//! refused records are kept and handled from the command line.

use std::path::{Path, PathBuf};
use std::process::Command;

const KEIL: &str = env!("CARGO_BIN_EXE_keil");

/// Black moves twice.
const TWICE: &str = "(;GM[1]FF[4]SZ[19]PB[Twice];B[pd];B[dp])";
/// White plays on Black's stone.
const OCCUPIED: &str = "(;GM[1]FF[4]SZ[19]PB[Occupied];B[pd];W[pd])";
/// A legal game.
const LEGAL: &str = "(;GM[1]FF[4]SZ[19]PB[Legal];B[pd];W[dp])";

fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("keil-refused-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `keil args`, asserting success; returns standard output.
fn keil(args: &[&str]) -> String {
    let out = Command::new(KEIL).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "keil {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// An archive in `dir/db` holding one game and two refused records.
fn archive(dir: &Path) -> String {
    let file = dir.join("mixed.sgf");
    std::fs::write(&file, format!("{TWICE}\n{OCCUPIED}\n{LEGAL}\n")).unwrap();
    let db = dir.join("db").display().to_string();
    keil(&["import", "--db", &db, &file.display().to_string()]);
    db
}

#[test]
fn refused_lists_kept_records_as_a_table_and_as_json_lines() {
    let dir = fresh("list");
    let db = archive(&dir);
    let lines = keil(&["refused", "--db", &db, "--json"]);
    let rows: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{lines}");
    // The latest first.
    assert_eq!(rows[0]["reason"], "occupied");
    assert_eq!(rows[0]["move"], "W[pd]");
    assert_eq!(rows[0]["ply"], 2);
    assert_eq!(rows[1]["reason"], "wrong_player");
    assert_eq!(rows[1]["kind"], "go");
    assert_eq!(rows[1]["size"], 19);

    let one = keil(&["refused", "--db", &db, "--json", "--reason", "wrong_player"]);
    assert_eq!(one.lines().count(), 1);
    let none = keil(&["refused", "--db", &db, "--json", "--kind", "keil"]);
    assert!(none.is_empty());
    let first = keil(&["refused", "--db", &db, "--json", "--limit", "1"]);
    assert_eq!(first.lines().count(), 1);
    let id = rows[0]["id"].to_string();
    let after = keil(&["refused", "--db", &db, "--json", "--after", &id]);
    assert_eq!(after.lines().count(), 1);
    assert!(after.contains("wrong_player"));

    let table = keil(&["refused", "--db", &db]);
    assert!(table.starts_with("    id"), "{table}");
    assert!(
        table.contains("occupied") && table.contains("mixed.sgf #1"),
        "{table}"
    );

    let stats: serde_json::Value =
        serde_json::from_str(&keil(&["stats", "--db", &db, "--json"])).unwrap();
    assert_eq!(stats["refused_records"], 2);
    assert_eq!(stats["refused"], 2);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn export_writes_refused_records_back_as_they_came_and_remove_drops_one() {
    let dir = fresh("export");
    let db = archive(&dir);
    let out = dir.join("refused.sgf");
    keil(&[
        "export",
        "--db",
        &db,
        "--refused",
        &out.display().to_string(),
    ]);
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text, format!("{TWICE}\n{OCCUPIED}\n"));
    let to_stdout = keil(&["export", "--db", &db, "--refused"]);
    assert_eq!(to_stdout, text);

    let rows = keil(&["refused", "--db", &db, "--json", "--reason", "occupied"]);
    let id = serde_json::from_str::<serde_json::Value>(rows.trim()).unwrap()["id"].to_string();
    let said = keil(&["remove", "--db", &db, "--refused", &id]);
    assert!(
        said.contains(&format!("removed refused record {id}")),
        "{said}"
    );
    let left = keil(&["refused", "--db", &db, "--json"]);
    assert_eq!(left.lines().count(), 1);
    let again = Command::new(KEIL)
        .args(["remove", "--db", &db, "--refused", &id])
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("no refused record"));

    let reindexed = keil(&["reindex", "--db", &db]);
    assert!(
        reindexed.contains("checked 1 refused records again: 0 became games"),
        "{reindexed}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
