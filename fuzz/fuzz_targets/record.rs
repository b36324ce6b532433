//! Fuzz record reading and validation (keil-record) with any bytes, Keil
//! and Go alike (the first byte picks the file-name hint, so that records
//! without `GM` are read as both games).
//!
//! Checks: no panic; every record validates, through `validate` and the
//! fast path (`ParsedFile::verdict`), to the same verdict, whose two JSON
//! writers agree; every error names a place; the export of a record reads
//! back as one record of the same game with the same verdict status.

#![no_main]

use keil_record::{NameHint, ParsedFile, validate};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, bytes)) = data.split_first() else {
        return;
    };
    let hint = match first % 3 {
        0 => NameHint::None,
        1 => NameHint::Keil,
        _ => NameHint::Kaomi,
    };
    let decoded = keil_sgf::decode(bytes);
    let file = ParsedFile::new(&decoded).with_hint(hint);
    for i in 0..file.len() {
        match (file.record(i), file.verdict(i)) {
            (Ok(record), Ok(fast)) => {
                let validation = validate(&record);
                assert!(validation.verdict == fast, "fast path differs");
                let mut line = Vec::new();
                fast.write_json("f", i, &mut line);
                assert_eq!(
                    String::from_utf8(line).unwrap(),
                    fast.to_json("f", i).to_string()
                );
                // The export is UTF-8 text: read as such (keil-sgf's byte
                // sniffing takes a text full of NULs for UTF-16).
                let exported = record.to_sgf();
                let back = ParsedFile::from_text(&exported).records();
                let [Ok(back)] = back.as_slice() else {
                    panic!("the export does not read back: {exported}");
                };
                assert_eq!(back.kind(), record.kind());
                assert_eq!(validate(back).verdict.status, fast.status);
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b);
                assert!(a.line >= 1 && a.column >= 1);
            }
            _ => panic!("record and verdict disagree on readability"),
        }
    }
});
