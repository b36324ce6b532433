//! Helpers shared by the test files that declare `mod common;`.

use std::path::PathBuf;

/// A fresh directory under the temp dir, named for the test and this
/// process.
pub fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("keil-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `text` with every number (a run of digits and the dots between them:
/// `0.12`, `127.0.0.1`) written `#`.
pub fn mask_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut number = false;
    for c in text.chars() {
        if c.is_ascii_digit() || (number && c == '.') {
            if !number {
                out.push('#');
            }
            number = true;
        } else {
            number = false;
            out.push(c);
        }
    }
    out
}
