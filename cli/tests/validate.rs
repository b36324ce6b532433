//! `keil validate` and `keil export` as a user runs them: output, JSON,
//! exit codes.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn keil() -> Command {
    Command::cargo_bin("keil").unwrap()
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/rules")
}

fn fixture(name: &str) -> String {
    fixtures().join(name).display().to_string()
}

fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("KEIL_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    dir.join("data/keil-vectors/expected.jsonl")
        .exists()
        .then_some(dir)
}

/// `keil validate --json -` on `input`, which must exit with `code`.
fn json_of_stdin(input: &str, code: i32) -> Vec<Value> {
    let out = keil()
        .args(["validate", "--json", "-"])
        .write_stdin(input.to_string())
        .assert()
        .code(code)
        .get_output()
        .stdout
        .clone();
    json_lines(&out)
}

fn json_lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn a_valid_game_exits_0_with_a_summary() {
    keil()
        .args(["validate", &fixture("linking-same-type.keil")])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "1 game in 1 file: 1 complete, 0 invalid",
        ));
}

#[test]
fn an_illegal_move_is_shown_rustc_style_and_exits_1() {
    let file = fixture("illegal-occupied.keil");
    keil()
        .args(["validate", &file])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "error[occupied]: ply 2: W[b2] is illegal: the point is occupied",
        ))
        .stdout(predicate::str::contains(format!("--> {file}:2:8")))
        .stdout(predicate::str::contains("2 | ;B[b2];W[b2])"))
        .stdout(predicate::str::contains("  |        ^^^^^"))
        .stdout(predicate::str::contains("1 invalid (1 occupied)"))
        // Not a terminal: no colours.
        .stdout(predicate::str::contains("\x1b[").not());
}

#[test]
fn colours_can_be_forced() {
    keil()
        .args([
            "validate",
            "--color",
            "always",
            &fixture("illegal-occupied.keil"),
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("\x1b[1;31merror[occupied]"));
}

#[test]
fn json_gives_one_object_per_game_with_the_answer_key_fields() {
    let out = keil()
        .args([
            "validate",
            "--json",
            &fixture("illegal-repetition.keil"),
            &fixture("linking-same-type.keil"),
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("2 games in 2 files"))
        .get_output()
        .stdout
        .clone();
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 2);
    let rep = &lines[0];
    assert_eq!(rep["status"], "invalid");
    assert_eq!(rep["reason"], "repetition");
    assert_eq!(rep["ply"], 5);
    assert_eq!(rep["move"], "B[c2]");
    assert_eq!(rep["repeats_plies"], serde_json::json!([3]));
    assert_eq!(rep["game"], 0);
    assert_eq!(
        (rep["line"].as_u64(), rep["column"].as_u64()),
        (Some(2), Some(25))
    );
    let ok = &lines[1];
    assert_eq!(ok["status"], "complete");
    assert_eq!(ok["winner"], "B");
    assert_eq!(ok["margin"], 0.5);
    assert_eq!(ok["score_black"], 3);
    assert_eq!(ok["score_white"], 2.5);
    assert_eq!(ok["warnings"], serde_json::json!([]));
    assert_eq!(ok["variations"], serde_json::json!([]));
}

#[test]
fn warnings_fail_only_with_strict() {
    let file = fixture("draw-half-komi-button.keil");
    keil()
        .args(["validate", &file])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("warning[komi_warning]"));
    keil()
        .args(["validate", "--strict", &file])
        .assert()
        .code(1);
}

#[test]
fn standard_input_go_keil_and_other_games() {
    // GM[11] is Hex: refused. No GM on standard input: Go, unless RU says
    // Keil. SZ[2] B[b2] is no Go move: malformed.
    let lines = json_of_stdin(
        "(;GM[11]SZ[11];B[aa])(;SZ[2];B[b2])(;RU[Keil]SZ[2];B[b2])",
        1,
    );
    assert_eq!(lines[0]["status"], "error");
    assert_eq!(lines[0]["error"], "unknown_game");
    assert_eq!(lines[0]["file"], "<stdin>");
    assert_eq!(lines[1]["game_kind"], "go");
    assert_eq!(lines[1]["status"], "malformed");
    assert_eq!(lines[1]["reason"], "bad_move_value");
    assert_eq!(lines[1]["ply"], 1);
    assert_eq!(lines[1]["warnings"][0]["code"], "missing_gm");
    assert_eq!(lines[2]["game_kind"], "keil");
    assert_eq!(lines[2]["status"], "unfinished");
    assert_eq!(lines[2]["game"], 2);
    assert_eq!(lines[2]["warnings"][0]["code"], "missing_gm");

    keil()
        .args(["validate", "-"])
        .write_stdin("(;GM[11]SZ[11];B[aa])")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "error[unknown_game]: not a Keil, Go or Kaomi record: GM[11] is Hex",
        ))
        .stdout(predicate::str::contains("1 not read (1 unknown_game)"));
}

#[test]
fn a_record_without_gm_is_keil_in_a_keil_file() {
    let dir = std::env::temp_dir().join(format!("keil-cli-hint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = "(;SZ[2];B[b2])";
    let keil_file = dir.join("game.keil");
    let sgf_file = dir.join("game.sgf");
    std::fs::write(&keil_file, text).unwrap();
    std::fs::write(&sgf_file, text).unwrap();
    let out = keil()
        .args(["validate", "--json"])
        .arg(&keil_file)
        .arg(&sgf_file)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let lines = json_lines(&out);
    assert_eq!(
        (&lines[0]["game_kind"], &lines[0]["status"]),
        (&Value::from("keil"), &Value::from("unfinished"))
    );
    assert_eq!(
        (&lines[1]["game_kind"], &lines[1]["status"]),
        (&Value::from("go"), &Value::from("malformed"))
    );
    // The export writes GM: it reads back as Keil anywhere.
    let out = keil().arg("export").arg(&keil_file).assert().code(0);
    let exported = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(exported.starts_with("(;GM[Keil]FF[4]SZ[2]"), "{exported}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_go_game_is_reported_like_a_keil_game() {
    // 9x9, japanese (no RU); White plays twice: ply 4.
    let game = "(;GM[1]FF[4]SZ[9]KM[6.5]RE[B+R]\n;B[ee];W[cc];B[gg]\n;W[gc];W[cg])";
    keil()
        .args(["validate", "-"])
        .write_stdin(game)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "error[wrong_player]: ply 5: W[cg] is illegal: it is Black's turn",
        ))
        .stdout(predicate::str::contains("--> <stdin>:3:8"))
        .stdout(predicate::str::contains("1 invalid (1 wrong_player)"));
    let lines = json_of_stdin(
        "(;GM[1]SZ[9]RU[Chinese]KM[7.5]RE[W+3.5];B[ee];W[cc];B[];W[])",
        0,
    );
    let v = &lines[0];
    assert_eq!(v["game_kind"], "go");
    assert_eq!(v["status"], "complete");
    // Agreement rules: RE reported, not checked; no computed score.
    assert_eq!(
        (&v["winner"], &v["margin"]),
        (&Value::from("W"), &Value::from(3.5))
    );
    assert_eq!(v["re_checked"], false);
    assert_eq!(v["score_black"], Value::Null);
    assert_eq!(v["ruleset"]["rules"], "chinese");
    assert_eq!(v["ruleset"]["ko"], "positional");
    assert_eq!(v["ru_mapped"], "ru");
    assert_eq!(
        (&v["size"], &v["plies"]),
        (&Value::from(9), &Value::from(4))
    );
}

#[test]
fn the_kee_vectors_through_the_cli_match_the_answer_key() {
    let Some(pairs) = through_the_cli("kee-vectors") else {
        return;
    };
    let fields = [
        "status",
        "reason",
        "ply",
        "move",
        "kee_check",
        "superko_breaks",
    ];
    for (g, w) in &pairs {
        assert_eq!(g["game_kind"], w["game"], "{}", w["file"]);
        for f in fields {
            assert_eq!(g[f], w[f], "{}: {f}", w["file"]);
        }
    }
}

#[test]
fn a_malformed_point_is_a_record_error_with_its_place() {
    keil()
        .args(["validate", "-"])
        .write_stdin("(;GM[Keil]SZ[2]\n;B[7g])")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "error[malformed_point]: malformed point B[7g]",
        ))
        .stdout(predicate::str::contains("--> <stdin>:2:4"));
}

#[test]
fn usage_and_io_errors_exit_2() {
    keil().args(["validate"]).assert().code(2);
    keil()
        .args(["validate", "--no-such-flag", "x"])
        .assert()
        .code(2);
    keil()
        .args(["validate", "/no/such/file.keil"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("cannot read /no/such/file.keil"));
}

#[test]
fn a_directory_is_searched_and_every_fixture_is_counted() {
    keil()
        .args(["validate", "--quiet", fixtures().to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("19 games in 19 files"))
        .stdout(predicate::str::contains("error[").not());
}

/// `keil validate --json` on an answer-key folder of `../shared/data`:
/// each expected object with the line the CLI wrote for its file; `None`
/// when the shared folder is absent.
fn through_the_cli(set: &str) -> Option<Vec<(Value, Value)>> {
    let Some(shared) = shared() else {
        eprintln!("note: ../shared is absent; skipping");
        return None;
    };
    let dir = shared.join("data").join(set);
    let out = keil()
        .args(["validate", "--json", dir.to_str().unwrap()])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let got = json_lines(&out);
    let expected = std::fs::read_to_string(dir.join("expected.jsonl")).unwrap();
    let want: Vec<Value> = expected
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(got.len(), want.len());
    let pairs = want.into_iter().map(|w| {
        let name = w["file"].as_str().unwrap();
        let g = got
            .iter()
            .find(|g| g["file"].as_str().unwrap().ends_with(name))
            .unwrap();
        (g.clone(), w)
    });
    Some(pairs.collect())
}

#[test]
fn the_vectors_through_the_cli_match_the_answer_key() {
    let Some(pairs) = through_the_cli("keil-vectors") else {
        return;
    };
    let fields = ["status", "winner", "reason", "ply", "move", "repeats_plies"];
    for (g, w) in &pairs {
        for f in fields {
            assert_eq!(g[f], w[f], "{}: {f}", w["file"]);
        }
    }
}

#[test]
fn export_normalises_and_validates_the_same() {
    let file = fixture("result-mismatch.keil");
    let out = keil()
        .args(["export", &file])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("(;GM[Keil]FF[4]CA[UTF-8]SZ[2]KM[1]RU[Keil]"),
        "{text}"
    );
    assert!(
        text.lines().skip(1).all(|l| l.matches('[').count() <= 2),
        "{text}"
    );
    let validate = |input: Vec<u8>| {
        let out = keil()
            .args(["validate", "--json", "-"])
            .write_stdin(input)
            .assert()
            .get_output()
            .stdout
            .clone();
        let mut v = json_lines(&out).remove(0);
        for k in ["file", "line", "column"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v
    };
    assert_eq!(
        validate(text.into_bytes()),
        validate(std::fs::read(&file).unwrap())
    );
    keil()
        .args(["export", "-"])
        .write_stdin("(;GM[11])")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not a Keil, Go or Kaomi record"));
}
