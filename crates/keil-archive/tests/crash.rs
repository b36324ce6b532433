//! An import killed with SIGKILL leaves a consistent archive that a second
//! import completes; readers see whole batches only while an import runs.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use keil_archive::{Archive, ImportOptions, ImportSource};

const CHILD_ENV: &str = "KEIL_ARCHIVE_CHILD_IMPORT";
const BATCH: usize = 50;

/// Invariants that hold after every committed batch.
fn check_consistent(archive: &Archive) -> u64 {
    let conn = common::storage(archive);
    let tx = conn.unchecked_transaction().unwrap();
    let q = |sql: &str| -> i64 { tx.query_row(sql, [], |r| r.get(0)).unwrap() };
    let games = q("SELECT COUNT(*) FROM games");
    // Every game has one game_players row per named player, and no more.
    assert_eq!(
        q("SELECT COUNT(*) FROM game_players"),
        q("SELECT COUNT(black_id) + COUNT(white_id) FROM games")
    );
    assert_eq!(
        q(
            "SELECT COUNT(*) FROM game_players gp LEFT JOIN games g ON g.id = gp.game_id WHERE g.id IS NULL"
        ),
        0
    );
    // Players' game counts agree with their games.
    assert_eq!(
        q("SELECT COUNT(*) FROM players p WHERE p.games <> \
           (SELECT COUNT(*) FROM game_players gp WHERE gp.player_id = p.id)"),
        0
    );
    // The import log counts agree with the games it stored.
    assert_eq!(q("SELECT COALESCE(SUM(imported), 0) FROM imports"), games);
    assert_eq!(
        q("SELECT COUNT(*) FROM pragma_foreign_key_check"),
        0,
        "foreign keys"
    );
    games as u64
}

#[test]
#[ignore = "the child process of killed_import_leaves_a_consistent_archive"]
fn child_import() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let (dir, corpus) = spec.split_once('|').unwrap();
    let archive = Archive::open(common::at(dir)).unwrap();
    let options = ImportOptions {
        batch_size: BATCH,
        ..ImportOptions::default()
    };
    archive
        .import(&[ImportSource::Path(corpus.into())], &options, &mut |_| {})
        .unwrap();
}

#[test]
fn killed_import_leaves_a_consistent_archive_that_a_second_import_completes() {
    if !common::embedded_only(
        "killed_import_leaves_a_consistent_archive_that_a_second_import_completes",
    ) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (text, truth) = common::corpus(1500, 5, 99);
    let total = truth.len() as u64;
    let corpus = tmp.path().join("corpus.keil");
    std::fs::write(&corpus, text).unwrap();
    let db = tmp.path().join("db");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_import", "--ignored", "--nocapture"])
        .env(CHILD_ENV, format!("{}|{}", db.display(), corpus.display()))
        .spawn()
        .unwrap();
    // Wait until the child has committed some batches, then SIGKILL it.
    let start = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(20));
        // A plain read-only connection: opening the archive here would
        // compete with the child for the text index's writer lock.
        let file = db.join(keil_archive::SQLITE_FILE);
        if file.exists() {
            let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
            if let Ok(conn) = rusqlite::Connection::open_with_flags(&file, flags) {
                let n: i64 = conn
                    .query_row("SELECT COUNT(*) FROM games", [], |r| r.get(0))
                    .unwrap_or(0);
                if n >= 3 * BATCH as i64 {
                    break;
                }
            }
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the child finished too early"
        );
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the child never stored a batch"
        );
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let archive = Archive::open(common::at(&db)).unwrap();
    let stored = check_consistent(&archive);
    assert!(
        stored > 0 && stored < total,
        "killed mid-way: {stored} of {total}"
    );
    assert_eq!(stored % BATCH as u64, 0, "whole batches only");
    // Opening caught the text index up with SQLite.
    let stats = archive.stats().unwrap();
    assert_eq!(stats.text_documents, stats.games);
    let conn = common::storage(&archive);
    let unfinished: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM imports WHERE finished_at IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(unfinished, 1, "the killed run is logged as unfinished");
    drop(conn);

    let report = archive
        .import(
            &[ImportSource::Path(corpus)],
            &ImportOptions {
                batch_size: BATCH,
                ..ImportOptions::default()
            },
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(report.counts.duplicates, stored);
    assert_eq!(report.counts.imported, total - stored);
    assert_eq!(check_consistent(&archive), total);
    assert_eq!(archive.stats().unwrap().text_documents, total);
}

#[test]
fn readers_see_whole_batches_while_an_import_runs() {
    if !common::embedded_only("readers_see_whole_batches_while_an_import_runs") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (text, truth) = common::corpus(800, 5, 5);
    let archive = Archive::open(common::at(tmp.path())).unwrap();
    let source = common::bytes("c.keil", &text);
    let mut seen = Vec::new();
    std::thread::scope(|s| {
        let importer = s.spawn(|| {
            archive
                .import(
                    &[source],
                    &ImportOptions {
                        batch_size: BATCH,
                        ..ImportOptions::default()
                    },
                    &mut |_| {},
                )
                .unwrap()
        });
        while !importer.is_finished() {
            let n = check_consistent(&archive);
            assert_eq!(n % BATCH as u64, 0, "a reader saw half a batch");
            // Listing agrees with the count in its own snapshot.
            seen.push(n);
        }
        let report = importer.join().unwrap();
        assert_eq!(report.counts.imported, truth.len() as u64);
    });
    assert!(
        seen.windows(2).all(|w| w[0] <= w[1]),
        "counts never go back"
    );
    assert_eq!(check_consistent(&archive), truth.len() as u64);
}
