//! The counts that `Archive::stats` reads are kept by the import
//! (schema/0006_counts.sql): equal to COUNT(*) after every import, and
//! filled in when an archive of an older schema is opened.

mod common;

use keil_archive::{Archive, GameKind, GameStatus, ImportOptions, ImportSource, Stats};
use keil_gen::{Generator, GeneratorConfig};

fn generated(kind: GameKind, size: u8, games: u64, seed: u64) -> Vec<u8> {
    let config = GeneratorConfig {
        game: kind,
        games,
        size,
        seed,
        ..GeneratorConfig::default()
    };
    Generator::new(config)
        .unwrap()
        .flat_map(|g| g.record.into_bytes())
        .collect()
}

fn import(archive: &Archive, name: &str, bytes: Vec<u8>) {
    let source = ImportSource::Bytes {
        name: name.into(),
        bytes,
    };
    archive
        .import(&[source], &ImportOptions::default(), &mut |_| {})
        .unwrap();
}

/// The stats as COUNT(*) over the tables says they are.
fn counted(dir: &std::path::Path) -> Stats {
    let count = |sql: &str| -> u64 { common::scalar(dir, sql) as u64 };
    let by_status = GameStatus::ALL
        .into_iter()
        .map(|st| {
            let sql = format!("SELECT COUNT(*) FROM games WHERE status = '{}'", st.code());
            (st, count(&sql))
        })
        .collect();
    let mut by_board = Vec::new();
    let mut by_kind = Vec::new();
    for kind in GameKind::ALL {
        let sql = format!(
            "SELECT size, COUNT(*) FROM games WHERE kind = '{}' GROUP BY size ORDER BY size",
            kind.code()
        );
        let sizes: Vec<(GameKind, u8, u64)> = common::query(dir, &sql)
            .into_iter()
            .map(|row| (kind, row[0].parse().unwrap(), row[1].parse().unwrap()))
            .collect();
        let n: u64 = sizes.iter().map(|s| s.2).sum();
        if n > 0 {
            by_kind.push((kind, n));
        }
        by_board.extend(sizes);
    }
    Stats {
        games: count("SELECT COUNT(*) FROM games"),
        players: count("SELECT COUNT(*) FROM players"),
        imports: count("SELECT COUNT(*) FROM imports"),
        refused: count("SELECT COUNT(*) FROM import_problems"),
        refused_records: count("SELECT COUNT(*) FROM import_problems WHERE record IS NOT NULL"),
        by_status,
        by_kind,
        by_board,
        text_documents: 0,
        store_bytes: 0,
        tantivy_bytes: 0,
    }
}

fn assert_counts_right(archive: &Archive) {
    let got = Stats {
        text_documents: 0,
        store_bytes: 0,
        tantivy_bytes: 0,
        ..archive.stats().unwrap()
    };
    assert_eq!(got, counted(archive.dir()));
}

/// Three kinds of batch: new games of two kinds and sizes, the same games
/// again (duplicates), and refused records beside new ones.
fn batches(archive: &Archive) {
    import(archive, "go9.sgf", generated(GameKind::Go, 9, 30, 1));
    assert_counts_right(archive);
    import(archive, "keil3.sgf", generated(GameKind::Keil, 3, 20, 2));
    assert_counts_right(archive);
    // Duplicates only.
    import(archive, "go9-again.sgf", generated(GameKind::Go, 9, 30, 1));
    assert_counts_right(archive);
    // Refused games (an illegal move, an unreadable tree) beside new and
    // duplicate ones.
    let mut mixed = generated(GameKind::Go, 19, 10, 3);
    mixed.extend_from_slice(b"(;GM[1]FF[4]SZ[9];B[ee];W[ee])(;GM[1]FF[4]SZ[9];B[zz])");
    mixed.extend(generated(GameKind::Keil, 3, 5, 2));
    mixed.extend_from_slice(b"(;GM[1]FF[4]SZ[9];B[ee]");
    import(archive, "mixed.sgf", mixed);
    assert_counts_right(archive);
}

#[test]
fn counts_equal_count_star_across_imports() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    assert_counts_right(&archive);
    batches(&archive);
    let stats = archive.stats().unwrap();
    assert_eq!(
        stats.games, 61,
        "30 Go 9x9, 20 Keil, 10 Go 19x19, one of the hand-written"
    );
    assert!(
        stats.refused >= 2,
        "the refused games are logged: {stats:?}"
    );
    assert_eq!(stats.imports, 4);
    assert_eq!(stats.by_kind.len(), 2);
}

#[test]
fn an_archive_of_schema_five_gets_its_counts_when_opened() {
    if !common::embedded_only("an_archive_of_schema_five_gets_its_counts_when_opened") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    batches(&archive);
    drop(archive);
    // What schema 5 had: no counts, no triggers.
    let conn = rusqlite::Connection::open(dir.path().join(keil_archive::SQLITE_FILE)).unwrap();
    conn.execute_batch(common::UNDO_SCHEMA_9).unwrap();
    conn.execute_batch(
        "DROP TRIGGER counts_games_insert; DROP TRIGGER counts_games_delete; \
         DROP TRIGGER counts_games_update; DROP TRIGGER counts_players_insert; \
         DROP TRIGGER counts_players_delete; DROP TRIGGER counts_imports_insert; \
         DROP TRIGGER counts_imports_delete; DROP TRIGGER counts_import_problems_insert; \
         DROP TRIGGER counts_import_problems_delete; DROP TABLE counts; \
         ALTER TABLE imports DROP COLUMN uploader; \
         ALTER TABLE games DROP COLUMN black_rank_ord; \
         ALTER TABLE games DROP COLUMN white_rank_ord; \
         PRAGMA user_version = 5;",
    )
    .unwrap();
    drop(conn);
    let archive = Archive::open(common::at(dir.path())).unwrap();
    assert_counts_right(&archive);
    assert_eq!(archive.stats().unwrap().games, 61);
    // And kept from then on.
    import(&archive, "go13.sgf", generated(GameKind::Go, 13, 7, 4));
    assert_counts_right(&archive);
    assert_eq!(archive.stats().unwrap().games, 68);
}

#[test]
fn deleting_rows_takes_them_off_the_counts() {
    if !common::embedded_only("deleting_rows_takes_them_off_the_counts") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    batches(&archive);
    let conn = rusqlite::Connection::open(dir.path().join(keil_archive::SQLITE_FILE)).unwrap();
    conn.execute_batch(
        "PRAGMA foreign_keys = OFF; \
         DELETE FROM games WHERE kind = 'keil'; DELETE FROM import_problems; \
         UPDATE games SET status = 'unfinished' WHERE id % 2 = 0;",
    )
    .unwrap();
    drop(conn);
    assert_counts_right(&archive);
    assert_eq!(archive.stats().unwrap().by_kind, vec![(GameKind::Go, 41)]);
}
