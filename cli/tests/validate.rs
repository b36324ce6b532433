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
fn standard_input_and_not_keil_records() {
    let out = keil()
        .args(["validate", "--json", "-"])
        .write_stdin("(;GM[1]SZ[19];B[pd];W[dp])(;SZ[2];B[b2])")
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let lines = json_lines(&out);
    assert_eq!(lines[0]["status"], "error");
    assert_eq!(lines[0]["error"], "not_keil");
    assert_eq!(lines[0]["file"], "<stdin>");
    assert_eq!(lines[1]["status"], "unfinished");
    assert_eq!(lines[1]["game"], 1);
    assert_eq!(lines[1]["warnings"][0]["code"], "missing_gm");

    keil()
        .args(["validate", "-"])
        .write_stdin("(;GM[1]SZ[19];B[pd])")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "error[not_keil]: not a Keil record: GM[1] is Go",
        ))
        .stdout(predicate::str::contains("1 not read (1 not_keil)"));
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

#[test]
fn the_vectors_through_the_cli_match_the_answer_key() {
    let Some(shared) = shared() else {
        eprintln!("note: ../shared is absent; skipping");
        return;
    };
    let dir = shared.join("data/keil-vectors");
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
    let mut agree = 0;
    for w in &want {
        let name = w["file"].as_str().unwrap();
        let g = got
            .iter()
            .find(|g| g["file"].as_str().unwrap().ends_with(name))
            .unwrap();
        let fields = ["status", "winner", "reason", "ply", "move", "repeats_plies"];
        if fields.iter().all(|f| g[f] == w[f]) {
            agree += 1;
        }
    }
    assert_eq!(agree, want.len());
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
        .write_stdin("(;GM[1])")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not a Keil record"));
}
