//! Every file of the real-world corpus (`shared/data/sgf-real`, see its
//! SOURCES.md): game files parse without error, malformed files give
//! diagnostics without panicking, and writing is stable after one pass.

use std::path::{Path, PathBuf};

use keil_sgf::{ParseOptions, Severity, decode, parse, write_collection};

fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("KEIL_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    if dir.join("data/sgf-real/MANIFEST.tsv").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "note: {} has no data/sgf-real; corpus test skipped",
            dir.display()
        );
        None
    }
}

/// The corpus files, as (path relative to sgf-real, bytes).
fn corpus() -> Option<Vec<(String, Vec<u8>)>> {
    let root = shared_dir()?.join("data/sgf-real");
    let manifest = std::fs::read_to_string(root.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    let files: Vec<_> = manifest
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .filter(|p| p.to_ascii_lowercase().ends_with(".sgf"))
        .map(|p| (p.to_owned(), std::fs::read(root.join(p)).expect(p)))
        .collect();
    assert!(
        files.len() > 6000,
        "MANIFEST lists {} sgf files",
        files.len()
    );
    Some(files)
}

/// Files SOURCES.md lists as malformed at the syntax or charset level: they
/// must give diagnostics (and not panic), but may give errors.
const MALFORMED: &[&str] = &[
    "herzbube__littlego/sgf/sgfc/test.sgf",
    "herzbube__littlego/sgf/Illegal games/not-an-sgf-file.sgf",
    "herzbube__littlego/sgf/Illegal games/encoding-unsupported.sgf",
    "herzbube__littlego/sgf/19x19/Fuego vs. Fuego.sgf",
    "SabakiHQ__sgf/tests/sgf/japanese_bad.sgf",
];

#[test]
fn every_game_file_parses_without_error() {
    let Some(files) = corpus() else { return };
    let options = ParseOptions::default();
    let mut failures = Vec::new();
    for (path, bytes) in &files {
        let decoded = decode(bytes);
        let collection = decoded.parse(&options);
        for d in &collection.diagnostics {
            assert!(
                d.span.start <= d.span.end && d.span.end <= decoded.text.len(),
                "{path}: diagnostic span {} outside the text",
                d.span
            );
        }
        if MALFORMED.contains(&path.as_str()) {
            assert!(
                !collection.diagnostics.is_empty(),
                "{path} is malformed but gave no diagnostic"
            );
            continue;
        }
        if collection.has_errors() || collection.trees.is_empty() {
            let errors: Vec<String> = collection
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .map(|d| d.to_string())
                .collect();
            failures.push(format!("{path}: {errors:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} files failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn writing_is_stable_after_one_pass() {
    let Some(files) = corpus() else { return };
    let options = ParseOptions::default();
    for (path, bytes) in &files {
        let decoded = decode(bytes);
        let first = decoded.parse(&options);
        if first.trees.is_empty() {
            continue; // not SGF at all (not-an-sgf-file.sgf)
        }
        let once = write_collection(&first);
        let second = parse(&once, &options);
        assert_eq!(first.trees.len(), second.trees.len(), "{path}: tree count");
        for (i, (a, b)) in first.trees.iter().zip(&second.trees).enumerate() {
            assert!(a == b, "{path}: tree {i} differs after writing and reading");
        }
        assert!(
            second
                .diagnostics
                .iter()
                .all(|d| d.code == keil_sgf::code::DUPLICATE_PROPERTY),
            "{path}: written text has diagnostics {:?}",
            second.diagnostics
        );
        let twice = write_collection(&second);
        assert_eq!(once, twice, "{path}: writer not stable");
    }
}

#[test]
fn every_file_cut_into_parts_parses_as_a_whole() {
    let Some(files) = corpus() else { return };
    let options = keil_sgf::ParseOptions::default();
    let mut cut_files = 0;
    for (name, bytes) in &files {
        let decoded = keil_sgf::decode(bytes);
        let text: &str = &decoded.text;
        let whole = keil_sgf::parse(text, &options);
        // Parts of at most one byte: a cut before every top-level tree
        // that the scan finds.
        let parts = keil_sgf::split_collection(text, 1);
        cut_files += usize::from(parts.len() > 1);
        let mut trees = Vec::new();
        for part in parts {
            trees.extend(keil_sgf::parse_range(text, part, &options).trees);
        }
        assert_eq!(trees.len(), whole.trees.len(), "{name}");
        for (a, b) in trees.iter().zip(&whole.trees) {
            assert!(
                a == b && a.span() == b.span(),
                "{name}: tree at {:?}",
                b.span()
            );
        }
    }
    assert!(cut_files > 0, "no file was cut");
}
