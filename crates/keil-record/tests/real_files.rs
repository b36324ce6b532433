//! Every real SGF file of `../shared/data/sgf-real/` (Go, problems, broken
//! files from other projects' test suites) gets a clear verdict or a record
//! error — "not a Keil record" for most — and never a panic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use keil_record::{read_records, validate};

fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("KEIL_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    dir.join("data/sgf-real").is_dir().then_some(dir)
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| x.eq_ignore_ascii_case("sgf"))
        {
            out.push(p);
        }
    }
}

#[test]
fn real_files_get_a_verdict_or_an_error_never_a_panic() {
    let Some(shared) = shared() else {
        eprintln!("note: ../shared is absent; skipping the real-file corpus");
        return;
    };
    let mut paths = Vec::new();
    files(&shared.join("data/sgf-real"), &mut paths);
    paths.sort();
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let mut games = 0;
    for p in &paths {
        let bytes = std::fs::read(p).unwrap();
        for r in read_records(&bytes) {
            games += 1;
            let key = match r {
                Ok(record) => {
                    let v = validate(&record).verdict;
                    format!("verdict:{}", v.status)
                }
                Err(e) => {
                    // An error names what and where.
                    assert!(e.line >= 1 && e.column >= 1, "{}: {e}", p.display());
                    assert!(!e.kind.to_string().is_empty());
                    format!("error:{}", e.code())
                }
            };
            *outcomes.entry(key).or_default() += 1;
        }
    }
    eprintln!(
        "sgf-real: {} files, {games} game trees: {outcomes:?}",
        paths.len()
    );
    assert!(paths.len() > 1000, "only {} files", paths.len());
    assert!(outcomes["error:not_keil"] > 1000, "{outcomes:?}");
}
