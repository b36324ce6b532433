//! The PostgreSQL schema (`schema/postgres/`) on a real, throwaway cluster
//! (`keil-testpg`): its migrations apply in order, it has every table and
//! column of the SQLite archive's schema (and only the PostgreSQL-only
//! tables besides: its schema version and the text index's snapshots), and its triggers keep the counts as SQLite's do.
//! Skips, with a note, where PostgreSQL's server is not installed.

use std::collections::BTreeSet;
use std::path::PathBuf;

use keil_archive::Archive;

/// The PostgreSQL migrations, in order.
fn migrations() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../keil-store/schema/postgres");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// `table.column` of every column of a fresh SQLite archive.
fn sqlite_columns() -> BTreeSet<String> {
    let dir = tempfile::tempdir().unwrap();
    drop(Archive::open(dir.path()).unwrap());
    let conn = rusqlite::Connection::open(dir.path().join(keil_archive::SQLITE_FILE)).unwrap();
    let mut tables = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .unwrap();
    let tables: Vec<String> = tables
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = BTreeSet::new();
    for t in tables {
        let mut cols = conn
            .prepare(&format!("SELECT name FROM pragma_table_info('{t}')"))
            .unwrap();
        for c in cols.query_map([], |r| r.get::<_, String>(0)).unwrap() {
            out.insert(format!("{t}.{}", c.unwrap()));
        }
    }
    out
}

#[test]
fn the_postgres_schema_has_the_sqlite_tables_and_keeps_the_counts() {
    let Some(pg) = keil_testpg::Cluster::start() else {
        return;
    };
    pg.create_database("keil");
    let migrations = migrations();
    assert!(!migrations.is_empty());
    for (i, (name, sql)) in migrations.iter().enumerate() {
        assert!(
            name.starts_with(&format!("{:04}_", i + 1)),
            "{name}: migrations are numbered from 0001 without gaps"
        );
        pg.psql("keil", sql);
    }
    assert_eq!(
        pg.psql("keil", "SELECT max(version) FROM schema_version"),
        migrations.len().to_string()
    );

    let pg_columns: BTreeSet<String> = pg
        .psql(
            "keil",
            "SELECT table_name || '.' || column_name FROM information_schema.columns \
             WHERE table_schema = 'public' ORDER BY 1",
        )
        .lines()
        .map(str::to_string)
        .collect();
    let only_postgres: BTreeSet<String> = pg_columns
        .iter()
        // PostgreSQL-only: its schema version, and the snapshots of the
        // node-local text index (an embedded archive's text index is
        // beside its store).
        .filter(|c| !c.starts_with("schema_version.") && !c.starts_with("text_snapshot"))
        .cloned()
        .collect();
    let sqlite = sqlite_columns();
    assert_eq!(
        only_postgres.difference(&sqlite).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "columns PostgreSQL has and SQLite has not"
    );
    assert_eq!(
        sqlite.difference(&only_postgres).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "columns SQLite has and PostgreSQL has not"
    );

    // The counts follow inserts, updates and deletes as SQLite's triggers.
    pg.psql(
        "keil",
        "INSERT INTO players (name, folded) VALUES ('Ana', 'ana');
         INSERT INTO games (id, hash, status, size, ruleset, komi, plies, moves, record, kind)
             VALUES (1, '\\x01', 'complete', 19, 'japanese', 13, 0, '', '', 'go'),
                    (2, '\\x02', 'resigned', 19, 'japanese', 13, 0, '', '', 'go'),
                    (3, '\\x03', 'complete', 7, 'keil', 0, 0, '', '', 'keil');
         UPDATE games SET status = 'time' WHERE id = 2;
         DELETE FROM games WHERE id = 3;",
    );
    let counts = pg.psql(
        "keil",
        "SELECT string_agg(name || '=' || n, ',' ORDER BY name) FROM counts WHERE n <> 0",
    );
    assert_eq!(
        counts,
        "board go 19=2,games=2,players=1,status complete=1,status time=1"
    );
}
