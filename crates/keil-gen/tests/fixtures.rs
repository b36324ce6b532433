//! The curated fixtures (`fixtures/rules/`) get the verdicts written beside
//! them in `fixtures/expected.jsonl`, replayed through keil-rules; and the
//! test reader that checks them agrees with the shared answer key.

mod common;

use std::path::{Path, PathBuf};

use common::{differences, read_collection, verdict};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// Checks every line of an `expected.jsonl` against the files beside it;
/// returns the number of files checked.
fn check_answer_key(dir: &Path) -> usize {
    let expected = std::fs::read_to_string(dir.join("expected.jsonl")).unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    for line in expected.lines() {
        let want: Value = serde_json::from_str(line).unwrap();
        let file = want["file"].as_str().unwrap();
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let trees = read_collection(&text);
        let got = verdict(&trees[0]);
        let diff = differences(&want, &got.json);
        if !diff.is_empty() {
            failures.push(format!("{file}: {}", diff.join("; ")));
        }
        n += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    n
}

#[test]
fn fixtures_get_their_expected_verdicts() {
    let n = check_answer_key(&fixtures());
    assert!(n >= 19, "{n} fixtures");
}

#[test]
fn every_fixture_file_has_an_expected_verdict() {
    let expected = std::fs::read_to_string(fixtures().join("expected.jsonl")).unwrap();
    for entry in std::fs::read_dir(fixtures().join("rules")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            expected.contains(&format!("\"rules/{name}\"")),
            "{name} has no line in expected.jsonl"
        );
    }
}

/// Every illegal-move reason code of record-format.md has its fixture.
#[test]
fn every_reason_code_has_a_fixture() {
    let expected = std::fs::read_to_string(fixtures().join("expected.jsonl")).unwrap();
    for code in [
        "occupied",
        "off_board",
        "wrong_player",
        "self_capture",
        "repetition",
        "pass_before_button",
        "button_taken",
        "button_not_in_use",
        "after_end",
        "result_mismatch",
    ] {
        assert!(
            expected.contains(&format!("\"reason\": \"{code}\"")),
            "{code}"
        );
    }
}

/// The reader and replay used above agree with the shared answer key on
/// every main line (skipped when `../shared` is absent).
#[test]
fn test_reader_agrees_with_the_shared_vectors() {
    let dir = std::env::var_os("KEIL_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"))
        .join("data/keil-vectors");
    if !dir.join("expected.jsonl").exists() {
        eprintln!("note: ../shared is absent; skipping the keil-vectors answer key");
        return;
    }
    assert!(check_answer_key(&dir) > 300);
}
