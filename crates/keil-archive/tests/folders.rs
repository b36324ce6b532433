//! A folder of small files (the shape of real Go collections: one game per
//! file) is read in groups and stored in batches that span files; every
//! game tree's outcome still names its own file and index, in input order,
//! and the ids follow the input order.

mod common;

use keil_archive::{Archive, Fate, ImportOptions, ImportSource};
use keil_gen::{Generator, GeneratorConfig};

#[test]
fn small_files_share_batches_and_keep_their_names_and_order() {
    let config = GeneratorConfig {
        games: 9,
        size: 5,
        seed: 31,
        ..GeneratorConfig::default()
    };
    let games: Vec<String> = Generator::new(config).unwrap().map(|g| g.record).collect();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("in");
    std::fs::create_dir(&src).unwrap();
    // Name order is reading order: f0 (two games), f1, f2 (a tree that is
    // not a record), f3 (f1's game again), f4..f8.
    let files: Vec<(String, String)> = vec![
        ("f0.keil".into(), format!("{}\n{}\n", games[0], games[1])),
        ("f1.keil".into(), games[2].clone()),
        ("f2.keil".into(), "(;GM[Keil]SZ[7];B[q99])".into()),
        ("f3.keil".into(), games[2].clone()),
        ("f4.keil".into(), games[3].clone()),
        ("f5.keil".into(), games[4].clone()),
        ("f6.keil".into(), games[5].clone()),
        ("f7.keil".into(), games[6].clone()),
        ("f8.keil".into(), format!("{}{}", games[7], games[8])),
    ];
    for (name, body) in &files {
        std::fs::write(src.join(name), body).unwrap();
    }
    let archive = Archive::open(common::at(dir.path().join("db"))).unwrap();
    let mut batches = 0;
    let report = archive
        .import(
            &[ImportSource::Path(src.clone())],
            &ImportOptions {
                batch_size: 3,
                outcomes: true,
                ..ImportOptions::default()
            },
            &mut |_| batches += 1,
        )
        .unwrap();
    // 11 trees in 9 files, batches of 3: four transactions, not one per
    // file.
    assert_eq!(batches, 4);
    assert_eq!(report.counts.games_read, 11);
    assert_eq!(report.counts.imported, 9);
    assert_eq!(report.counts.duplicates, 1);
    assert_eq!(report.counts.invalid, 1);

    let seen: Vec<(String, usize, &str)> = report
        .outcomes
        .iter()
        .map(|o| {
            let file = std::path::Path::new(o.source())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let fate = match &o.fate {
                Fate::Stored { .. } => "stored",
                Fate::Duplicate { .. } => "duplicate",
                Fate::Merged { .. } => "merged",
                Fate::Invalid(_) => "invalid",
            };
            (file, o.index(), fate)
        })
        .collect();
    let want: Vec<(String, usize, &str)> = [
        ("f0.keil", 0, "stored"),
        ("f0.keil", 1, "stored"),
        ("f1.keil", 0, "stored"),
        ("f2.keil", 0, "invalid"),
        ("f3.keil", 0, "duplicate"),
        ("f4.keil", 0, "stored"),
        ("f5.keil", 0, "stored"),
        ("f6.keil", 0, "stored"),
        ("f7.keil", 0, "stored"),
        ("f8.keil", 0, "stored"),
        ("f8.keil", 1, "stored"),
    ]
    .iter()
    .map(|&(f, i, k)| (f.to_string(), i, k))
    .collect();
    assert_eq!(seen, want);

    // Ids follow the input order, and the duplicate names f1's game.
    let mut ids = Vec::new();
    let mut f1 = None;
    for o in &report.outcomes {
        match &o.fate {
            Fate::Stored { id, index, source } => {
                if source.ends_with("f1.keil") && *index == 0 {
                    f1 = Some(*id);
                }
                ids.push(*id);
            }
            Fate::Duplicate { id, .. } => assert_eq!(Some(*id), f1),
            Fate::Merged { .. } => panic!("no record was another's: {o:?}"),
            Fate::Invalid(p) => assert!(p.source.ends_with("f2.keil"), "{p:?}"),
        }
    }
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
}
