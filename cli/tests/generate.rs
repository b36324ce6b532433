//! `keil generate` as a user runs it: Keil and Go output, determinism,
//! errors.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn keil() -> Command {
    Command::cargo_bin("keil").unwrap()
}

fn generate(args: &[&str]) -> String {
    let out = keil().arg("generate").args(args).assert().code(0);
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn go_games_are_sgf_with_go_points_and_the_same_for_a_seed() {
    let args = ["--game", "go", "--size", "9", "--games", "4", "--seed", "3"];
    let text = generate(&args);
    assert_eq!(
        text.matches("(;GM[1]FF[4]CA[UTF-8]SZ[9]").count(),
        4,
        "{text}"
    );
    // Moves are SGF letters (`;B[ee]`), never Keil names (`;B[e5]`).
    assert!(text.contains(";B[") && !text.contains(";B[e5]"), "{text}");
    assert_eq!(text, generate(&args));
    assert_ne!(
        text,
        generate(&["--game", "go", "--size", "9", "--games", "4"])
    );
}

/// The record-level check: keil-record reads and validates every generated
/// Go game (`keil validate --json`), under every ruleset and several sizes.
#[test]
fn generated_go_games_validate_as_complete_or_resigned() {
    let rulesets = [
        None,
        Some("japanese"),
        Some("korean"),
        Some("chinese"),
        Some("aga"),
        Some("nz"),
        Some("tromp-taylor"),
        Some("kee"),
    ];
    let mut checked = 0;
    let mut statuses = std::collections::HashMap::new();
    for (size, games) in [("4", "30"), ("9", "30"), ("19", "4")] {
        for ruleset in rulesets {
            let mut args = vec!["--game", "go", "--size", size, "--games", games];
            args.extend(["--seed", "11", "--resign-share", "0.2"]);
            if let Some(r) = ruleset {
                args.extend(["--ruleset", r]);
            }
            let text = generate(&args);
            let out = keil()
                .args(["validate", "--json", "-"])
                .write_stdin(text)
                .assert()
                .code(0);
            for line in String::from_utf8_lossy(&out.get_output().stdout).lines() {
                let v: Value = serde_json::from_str(line).unwrap();
                let status = v["status"].as_str().unwrap().to_string();
                assert!(["complete", "resigned"].contains(&status.as_str()), "{v}");
                assert_eq!(v["game_kind"], "go", "{v}");
                assert_eq!(v["warnings"], serde_json::json!([]), "{v}");
                if let Some(r) = ruleset {
                    assert_eq!(v["ruleset"]["rules"], r, "{v}");
                }
                // Tromp-Taylor and Kee games that end by passes have RE
                // compared with the area score (a mismatch would be invalid).
                let counted =
                    ["tromp-taylor", "kee"].contains(&v["ruleset"]["rules"].as_str().unwrap());
                if status == "complete" && counted {
                    assert_eq!(v["re_checked"], true, "{v}");
                    checked += 1;
                }
                *statuses.entry(status).or_insert(0) += 1;
            }
        }
    }
    assert!(checked >= 60, "{checked}");
    assert!(statuses["resigned"] >= 20, "{statuses:?}");
}

#[test]
fn go_defaults_to_19x19_and_takes_a_ruleset_as_ru_names_it() {
    let text = generate(&["--game", "go", "--games", "1", "--ruleset", "TT"]);
    assert!(text.contains("SZ[19]"), "{text}");
    let ru = &text[text.find("RU[").unwrap() + 3..];
    let ru = &ru[..ru.find(']').unwrap()];
    assert!(["Tromp-Taylor", "TT"].contains(&ru), "{ru}");
}

#[test]
fn keil_stays_the_default_game() {
    let text = generate(&["--games", "2", "--size", "3"]);
    assert_eq!(text.matches("(;GM[Keil]FF[4]CA[UTF-8]SZ[3]").count(), 2);
}

#[test]
fn bad_go_options_are_refused() {
    keil()
        .args(["generate", "--game", "go", "--ruleset", "ing"])
        .assert()
        .code(predicate::ne(0))
        .stderr(predicate::str::contains("not a Go ruleset"));
    keil()
        .args(["generate", "--game", "go", "--size", "20"])
        .assert()
        .code(predicate::ne(0))
        .stderr(predicate::str::contains("2..=19"));
    keil()
        .args(["generate", "--game", "chess"])
        .assert()
        .code(predicate::ne(0));
}

#[test]
fn a_go_directory_gets_sgf_files() {
    let dir = tempfile_dir();
    let out = format!("{}/", dir.display());
    keil()
        .args(["generate", "--game", "go", "--size", "5", "--games", "3"])
        .args(["--out", &out])
        .assert()
        .code(0)
        .stderr(predicate::str::contains("3 games"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["00000.sgf", "00001.sgf", "00002.sgf"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh directory path under the system's temporary directory.
fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "keil-generate-test-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
