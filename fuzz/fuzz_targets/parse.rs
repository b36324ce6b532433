//! Fuzz the decoder, the parser and the writer of keil-sgf with any bytes.
//!
//! Checks: no panic; every span lies inside the decoded text; writing what
//! was read and reading it again gives the same trees, and writing is
//! stable from there.

#![no_main]

use keil_sgf::{ParseOptions, decode, parse, write_collection};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let options = ParseOptions {
        max_depth: 500,
        ..ParseOptions::default()
    };
    let decoded = decode(data);
    let collection = decoded.parse(&options);
    let len = decoded.text.len();
    for d in &collection.diagnostics {
        assert!(d.span.start <= d.span.end && d.span.end <= len, "{d}");
    }
    for tree in &collection.trees {
        for node in tree.nodes() {
            assert!(node.span().end <= len);
            for property in node.properties() {
                for value in property.values() {
                    assert_eq!(&decoded.text[value.span.range()], value.raw);
                }
            }
        }
    }
    let once = write_collection(&collection);
    let again = parse(&once, &options);
    assert!(
        again.trees == collection.trees,
        "trees differ after writing"
    );
    assert_eq!(write_collection(&again), once, "writer not stable");
});
