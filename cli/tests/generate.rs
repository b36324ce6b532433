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

/// `--transform-of`: a real record's 8 images under the symmetries of the
/// square, as `keil import` would read the folder (a game of another kind
/// beside it is left out).
#[test]
fn transform_of_writes_each_go_game_under_the_8_symmetries() {
    let dir = tempfile_dir().join("in");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    // A 9x9 handicap game: a compressed setup (`cc:dd` is 4 stones), marks
    // (`SQ[zz]` is off the board: dropped), a label, a pass.
    let original = "(;GM[1]FF[4]SZ[9]KM[0.5]HA[2]RU[Japanese]PB[Ann]PW[Bob]DT[2016-01-02]\
                    AB[cc:dd][gg]\n;W[ef]TR[ef][cc]SQ[zz]LB[gg:A]\n;B[fe]\n;W[]\n;B[gb])\n";
    std::fs::write(dir.join("sub/game.sgf"), original).unwrap();
    let keil_game = generate(&["--games", "1", "--size", "3"]);
    std::fs::write(dir.join("other.keil"), keil_game).unwrap();

    let text = generate(&["--transform-of", dir.to_str().unwrap()]);
    let records: Vec<&str> = text.split_inclusive(")\n").collect();
    assert_eq!(records.len(), 8, "{text}");
    let distinct: std::collections::HashSet<&str> = records.iter().copied().collect();
    assert_eq!(distinct.len(), 8, "8 distinct records: {text}");
    for (t, r) in records.iter().enumerate() {
        assert!(r.contains(&format!("GN[(t{t})]")), "{r}");
        assert!(r.contains("PB[Ann]") && r.contains("DT[2016-01-02]"), "{r}");
        assert!(r.contains("W[]") && !r.contains("SQ["), "{r}");
    }

    // The clockwise quarter turn (symmetry 1) maps column c, row r to
    // column n-1-r, row c; the left-right mirror (4) column c to n-1-c.
    let name =
        |c: usize, r: usize| format!("{}{}", (b'a' + c as u8) as char, (b'a' + r as u8) as char);
    let at = |p: &str| {
        (
            (p.as_bytes()[0] - b'a') as usize,
            (p.as_bytes()[1] - b'a') as usize,
        )
    };
    let turn = |p: &str| {
        let (c, r) = at(p);
        name(8 - r, c)
    };
    let mirror = |p: &str| {
        let (c, r) = at(p);
        name(8 - c, r)
    };
    assert_eq!(records[0].matches(";B[fe]").count(), 1, "{}", records[0]);
    for (mv, point) in [("W", "ef"), ("B", "fe"), ("B", "gb")] {
        assert!(
            records[1].contains(&format!("{mv}[{}]", turn(point))),
            "{mv}[{point}] turned: {}",
            records[1]
        );
        assert!(
            records[4].contains(&format!("{mv}[{}]", mirror(point))),
            "{mv}[{point}] mirrored: {}",
            records[4]
        );
    }
    let setup: String = ["cc", "dc", "cd", "dd", "gg"]
        .iter()
        .map(|p| format!("[{}]", turn(p)))
        .collect();
    assert!(
        records[1].contains(&format!("AB{setup}")),
        "AB{setup}: {}",
        records[1]
    );
    assert!(
        records[1].contains(&format!("TR[{}][{}]", turn("ef"), turn("cc"))),
        "{}",
        records[1]
    );
    assert!(
        records[1].contains(&format!("LB[{}:A]", turn("gg"))),
        "{}",
        records[1]
    );

    // Each image validates as the original does.
    let verdicts = |input: String| -> Vec<Value> {
        let out = keil()
            .args(["validate", "--json", "-"])
            .write_stdin(input)
            .assert()
            .code(0);
        String::from_utf8_lossy(&out.get_output().stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let expected = verdicts(original.to_string()).remove(0);
    let verdicts = verdicts(text.clone());
    assert_eq!(verdicts.len(), 8);
    for v in verdicts {
        assert_eq!(v["status"], expected["status"], "{v}");
        assert_eq!(v["plies"], 4, "{v}");
        assert_eq!(v["warnings"], expected["warnings"], "{v}");
    }
    assert!(
        ["complete", "unfinished", "resigned"].contains(&expected["status"].as_str().unwrap()),
        "{expected}"
    );
    std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
}
