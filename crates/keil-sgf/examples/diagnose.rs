//! Read SGF files and show what is wrong with them.
//!
//! ```text
//! cargo run -p keil-sgf --example diagnose -- FILE...
//! ```
//!
//! For each file: decode the bytes (charset from the BOM, the root's `CA`,
//! UTF-8 or a guess), parse, print every diagnostic with the source line
//! and a marker, then one summary line per game tree.

use keil_sgf::{LineIndex, ParseOptions, decode};

fn main() {
    let options = ParseOptions::default();
    for path in std::env::args().skip(1) {
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        // Decoding is separate from parsing: the spans of the tree and of
        // the diagnostics are offsets into `decoded.text`.
        let decoded = decode(&bytes);
        let collection = decoded.parse(&options);
        let index = LineIndex::new(&decoded.text);
        for d in &collection.diagnostics {
            print!("{}", d.render(&path, &index));
        }
        println!(
            "{path}: charset {} ({:?}), {} game tree(s), {} diagnostic(s)",
            decoded.charset,
            decoded.source,
            collection.trees.len(),
            collection.diagnostics.len()
        );
        // One broken game does not hide the others.
        for (i, tree) in collection.trees.iter().enumerate() {
            let state = if collection.tree_has_errors(i) {
                "has errors"
            } else {
                "ok"
            };
            println!("  game {}: {} nodes, {state}", i + 1, tree.len());
        }
    }
}
