//! The fast path of `keil validate` gives what the record path gives:
//! `ParsedFile::verdict` equals `validate(&record).verdict`,
//! `Verdict::write_json` writes the text of `Verdict::to_json`, and
//! `GameTree::to_owned_tree` equals `clone().into_owned()`, over the
//! keil-vectors, the kee-vectors (Go and Keil), the fixtures and the real
//! SGF files.

mod common;

use std::path::PathBuf;

use keil_record::{ParsedFile, validate};

#[test]
fn the_fast_path_agrees_with_the_record_path() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let shared = std::env::var_os("KEIL_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared"));
    let mut paths = common::files(&root.join("fixtures"), &[]);
    for set in ["keil-vectors", "kee-vectors", "sgf-real"] {
        paths.extend(common::files(&shared.join("data").join(set), &[]));
    }
    paths.sort();
    let mut games = 0;
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        let decoded = keil_sgf::decode(&bytes);
        let file = ParsedFile::new(&decoded);
        for (i, tree) in file.trees().iter().enumerate() {
            assert_eq!(
                format!("{:?}", tree.to_owned_tree()),
                format!("{:?}", tree.clone().into_owned())
            );
            let name = path.display().to_string();
            match (file.record(i), file.verdict(i)) {
                (Ok(record), Ok(fast)) => {
                    assert_eq!(record.tree, tree.clone().into_owned());
                    let slow = validate(&record).verdict;
                    assert_eq!(fast, slow, "{name} game {i}");
                    let mut line = Vec::new();
                    fast.write_json(&name, i, &mut line);
                    assert_eq!(
                        String::from_utf8(line).unwrap(),
                        slow.to_json(&name, i).to_string(),
                        "{name} game {i}"
                    );
                    games += 1;
                }
                (Err(a), Err(b)) => assert_eq!(a.to_json(&name), b.to_json(&name)),
                (a, b) => panic!("{name} game {i}: {:?} vs {:?}", a.is_ok(), b.is_ok()),
            }
        }
    }
    assert!(games > 0 || paths.is_empty());
}

/// A collection read in parts gives, game by game, what reading it whole
/// gives: verdicts, errors with their line:column, and game indexes.
#[test]
fn a_collection_read_in_parts_reads_as_a_whole() {
    let mut text = String::from("Some notes first.\n");
    for i in 0..30 {
        match i % 5 {
            // An illegal move (occupied) on line 2 of the game.
            3 => text.push_str("(;GM[Keil]FF[4]SZ[2]KM[0]\n;B[b2];W[b2])\n"),
            // Not a Keil record.
            4 => text.push_str("(;GM[1]SZ[19]C[a \\] ( bracket];B[pd])\n"),
            _ => text.push_str(&format!(
                "(;GM[Keil]FF[4]SZ[2]KM[1]PB[P{i}]C[( {i} ]\n;B[button];W[c2];B[b2];W[pass];B[pass])\n"
            )),
        }
    }
    let decoded = keil_sgf::decode(text.as_bytes());
    let whole = ParsedFile::new(&decoded);
    assert_eq!(whole.len(), 30);
    let summary = |file: &ParsedFile<'_>, i: usize| match file.record(i) {
        Ok(r) => {
            let v = validate(&r).verdict;
            assert_eq!(Ok(&v), file.verdict(i).as_ref().map_err(|e| e.code()));
            (r.game, v.to_json("c", r.game).to_string())
        }
        Err(e) => (e.game, e.to_json("c").to_string()),
    };
    for max_part in [1, 100, 400, usize::MAX] {
        let mut n = 0;
        let mut parts = 0;
        for part in ParsedFile::in_parts(&decoded, max_part) {
            assert_eq!(part.first_game(), n);
            for i in 0..part.len() {
                assert_eq!(
                    summary(&part, i),
                    summary(&whole, n + i),
                    "part size {max_part}"
                );
            }
            n += part.len();
            parts += 1;
        }
        assert_eq!(n, 30);
        if max_part == 1 {
            assert_eq!(parts, 30, "one game per part");
        }
    }
}
