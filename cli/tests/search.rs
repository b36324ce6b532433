//! `keil search pattern` as a user runs it: the table, JSON, the notation
//! in `--help`, errors that say what to fix.

use std::path::PathBuf;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn keil() -> Command {
    Command::cargo_bin("keil").unwrap()
}

/// An archive of 20 Go 9x9 games and 20 Keil games, in a fresh directory.
fn archive(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("keil-search-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("db");
    for (args, file) in [
        (
            &[
                "--game", "go", "--size", "9", "--games", "20", "--seed", "4",
            ][..],
            "go.sgf",
        ),
        (&["--games", "20", "--seed", "2"][..], "keil.keil"),
    ] {
        let out = keil().arg("generate").args(args).assert().code(0);
        std::fs::write(dir.join(file), &out.get_output().stdout).unwrap();
        keil()
            .arg("import")
            .arg("--db")
            .arg(&db)
            .arg(dir.join(file))
            .assert()
            .code(0);
    }
    db
}

fn json(db: &PathBuf, args: &[&str]) -> Value {
    let out = keil()
        .args(["search", "pattern", "--json", "--db"])
        .arg(db)
        .args(args)
        .assert()
        .code(0);
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

#[test]
fn pattern_search_prints_totals_continuations_and_games() {
    let db = archive("pattern");
    // A black stone on the 3-3 point and a white one beside it, anywhere
    // on 9x9 under symmetry and colour swap.
    let out = keil()
        .args(["search", "pattern", "--size", "9", "--limit", "3", "--db"])
        .arg(&db)
        .arg("X:cc O:dc")
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "hits of XO@cc (Go 9, anywhere mode",
        ))
        .stdout(predicate::str::contains("label point"))
        .stdout(predicate::str::contains("next page: --after"));
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.lines().any(|l| l.starts_with("A ")),
        "a continuation row labelled A: {text}"
    );
    let a = json(&db, &["--size", "9", "X:cc O:dc", "--limit", "100"]);
    let total = a["total_games"].as_u64().unwrap();
    assert!(total > 0, "{a}");
    assert_eq!(a["games"].as_array().unwrap().len() as u64, total);
    assert!(a["total_hits"].as_u64().unwrap() >= total);
    assert!(!a["continuations"].as_array().unwrap().is_empty());
    // As drawn and in its colours only: fewer placements, no more games.
    let narrow = json(
        &db,
        &[
            "--size",
            "9",
            "--no-symmetry",
            "--colors",
            "same",
            "X:cc O:dc",
        ],
    );
    // 8 columns by 9 rows of translations.
    assert_eq!(narrow["placements"], 72, "{narrow}");
    assert!(narrow["total_games"].as_u64().unwrap() <= total);
    // A corner pattern in rows.
    let corner = json(&db, &["--size", "9", "--mode", "corner", ".../.X./..."]);
    assert_eq!(corner["pattern"], ".../.X./...@aa");
    assert_eq!(corner["placements"], 8);
    // A Keil point list.
    let k = json(&db, &["--kind", "keil", "X:g7 .:h8"]);
    assert!(k["total_games"].as_u64().unwrap() > 0, "{k}");
    // Filters: nobody plays after 2999.
    let none = json(&db, &["--size", "9", "--from", "2999-01-01", "X:cc O:dc"]);
    assert_eq!(none["total_games"], 0);

    // Errors say what to fix.
    keil()
        .args(["search", "pattern", "--size", "9", "--db"])
        .arg(&db)
        .arg("XQ")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "'Q' at row 1, column 2 is not a cell",
        ));
    keil()
        .args([
            "search", "pattern", "--size", "9", "--mode", "corner", "--db",
        ])
        .arg(&db)
        .arg("X:ee .:ef")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "a corner pattern must be drawn in a corner",
        ));
    keil()
        .args(["search", "pattern", "--mode", "edge", "--db"])
        .arg(&db)
        .arg("X:ee")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "use fixed, corner, side, centre or anywhere",
        ));
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}

#[test]
fn pattern_help_explains_the_notation_with_examples() {
    keil()
        .args(["search", "pattern", "--help"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("...../...../..O../...X./....."))
        .stdout(predicate::str::contains("--mode corner"))
        .stdout(predicate::str::contains("'X:dd O:cc'"))
        .stdout(predicate::str::contains("X:g7 O:h8 .:g8"))
        .stdout(predicate::str::contains("* any"))
        .stdout(predicate::str::contains("--no-symmetry"));
}

#[test]
fn explorer_options_filter_and_break_down_by_year() {
    let db = archive("explorer");
    let empty = "9/9/9/9/9/9/9/9/9";
    let run = |args: &[&str]| -> Value {
        let out = keil()
            .args([
                "search", "position", "--json", "--kind", "go", "--limit", "100", "--db",
            ])
            .arg(&db)
            .args(args)
            .arg(empty)
            .assert()
            .code(0);
        serde_json::from_slice(&out.get_output().stdout).unwrap()
    };
    let all = run(&["--history", "--top-games", "3", "--recent-games", "2"]);
    let total = all["total_games"].as_u64().unwrap();
    assert!(total > 5, "{all}");
    let years: u64 = all["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|y| y["games"].as_u64().unwrap())
        .sum();
    assert_eq!(years, total, "{all}");
    assert_eq!(all["recent_games"].as_array().unwrap().len(), 2);
    assert!(all["top_games"].as_array().unwrap().len() <= 3);
    // A filter keeps fewer games; the move limit 0 keeps the empty board.
    let strong = run(&["--min-rank", "5k"]);
    assert!(strong["total_games"].as_u64().unwrap() < total, "{strong}");
    let start = run(&["--move-limit", "0"]);
    assert_eq!(start["total_games"].as_u64(), Some(total));
    // People read it too: the years are printed.
    keil()
        .args(["search", "position", "--kind", "go", "--history", "--db"])
        .arg(&db)
        .arg(empty)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("by year:"));
    // `--next` may not contradict the position's player to move.
    keil()
        .args([
            "search", "position", "--kind", "go", "--next", "white", "--db",
        ])
        .arg(&db)
        .arg(format!("{empty} b"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("--next: W contradicts"));
}

#[test]
fn variations_are_searched_with_the_flag_and_say_their_line() {
    let dir = std::env::temp_dir().join(format!(
        "keil-search-test-variations-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("db");
    let file = dir.join("v.sgf");
    // Black c7 with White c3 only in the record's second line.
    std::fs::write(
        &file,
        "(;GM[1]FF[4]SZ[9]KM[6.5]DT[2020-01-01]PB[A]PW[B]RE[B+R];B[cc];W[gg]\
         (;B[cg];W[gc])(;B[ee];W[cg];B[gc]))\n",
    )
    .unwrap();
    keil()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .arg(&file)
        .assert()
        .code(0);
    let search = |extra: &[&str]| {
        keil()
            .args([
                "search",
                "pattern",
                "--size",
                "9",
                "--mode",
                "fixed",
                "--no-symmetry",
                "--colors",
                "same",
                "--db",
            ])
            .arg(&db)
            .args(extra)
            .arg("X:cc O:cg")
            .assert()
    };
    search(&[])
        .code(0)
        .stdout(predicate::str::contains("0 games"));
    search(&["--variations"])
        .code(0)
        .stdout(predicate::str::contains("1 games"))
        .stdout(predicate::str::contains("node 4 ply 4 (variation 1)"));
    // A position search has no variations to search.
    keil()
        .args(["search", "position", "--kind", "go", "--variations", "--db"])
        .arg(&db)
        .arg("9/9/9/9/9/9/9/9/9")
        .assert()
        .failure()
        .stderr(predicate::str::contains("--variations"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cache_directory_keeps_the_pattern_index_for_the_next_search() {
    let db = archive("cache");
    let cache = db.with_file_name("cache");
    let plain = json(&db, &["--size", "9", "X:cc O:dc"]);
    let cache_arg = cache.to_str().unwrap();
    let first = json(&db, &["--size", "9", "--cache-dir", cache_arg, "X:cc O:dc"]);
    // The first search derived the index and left its snapshot.
    let snapshot = cache.join("patterns.snapshot");
    let written = std::fs::metadata(&snapshot).unwrap().modified().unwrap();
    let second = json(&db, &["--size", "9", "--cache-dir", cache_arg, "X:cc O:dc"]);
    assert_eq!(first, plain);
    assert_eq!(second, plain);
    assert!(plain["total_games"].as_u64().unwrap() > 0, "{plain}");
    // The second read it (it was current, so not written again).
    assert_eq!(
        std::fs::metadata(&snapshot).unwrap().modified().unwrap(),
        written
    );
    // A directory that cannot be one is refused, saying which.
    let file = db.with_file_name("go.sgf");
    keil()
        .args(["search", "pattern", "--size", "9", "--db"])
        .arg(&db)
        .arg("--cache-dir")
        .arg(&file)
        .arg("X:cc O:dc")
        .assert()
        .code(predicate::ne(0))
        .stderr(predicate::str::contains("cache directory"));
}
