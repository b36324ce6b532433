//! What the tests and benches of keil-record share: where the shared test
//! data is, and the files of a folder.

#![allow(dead_code)] // each test binary uses a part

use std::path::{Path, PathBuf};

/// `<repo root>/../shared` (or `$KEIL_SHARED`) when it holds `data/<set>`;
/// `None` otherwise (the tests that need it then skip, with a note).
pub fn shared(set: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("KEIL_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    dir.join("data").join(set).exists().then_some(dir)
}

/// Every file below `dir` (recursively), in path order; with `ext`, only
/// those whose extension is one of them (any case).
pub fn files(dir: &Path, ext: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.retain(|p| {
        ext.is_empty()
            || p.extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| ext.iter().any(|e| e.eq_ignore_ascii_case(x)))
    });
    out.sort();
    out
}
