//! `Archive::open_read_only`: reads everything, writes nothing (no file
//! created, changed or locked), follows a writer in another connection,
//! refuses writes and archives that would need an upgrade.

mod common;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use keil_archive::{Archive, Error, GameFilter, Page};

/// Every file under `dir` with its size and modification time.
fn snapshot(dir: &Path) -> Vec<(PathBuf, u64, SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            if m.is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), m.len(), m.modified().unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A closed archive of 40 generated games; its game count.
fn closed_archive(dir: &Path) -> u64 {
    let archive = Archive::open(common::at(dir)).unwrap();
    let (text, _) = common::corpus(40, 7, 21);
    let report = common::import(&archive, &[common::bytes("c", &text)]);
    report.counts.imported
}

#[test]
fn read_only_open_reads_everything_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let games = closed_archive(dir.path());
    let before = snapshot(dir.path());

    let archive = Archive::open_read_only(common::at(dir.path())).unwrap();
    assert!(archive.is_read_only());
    let stats = archive.stats().unwrap();
    assert_eq!((stats.games, stats.text_documents), (games, games));
    let page = archive
        .games()
        .list(&GameFilter::default(), &Page::default())
        .unwrap();
    assert!(!page.games.is_empty());
    let game = archive.games().get(page.games[0].id).unwrap();
    assert!(game.is_some());
    let name = page.games[0].black.clone().unwrap();
    assert!(!archive.players().search(&name, 5).unwrap().is_empty());
    let event = page.games[0].event.clone().unwrap_or_else(|| "cup".into());
    archive.search_text(&event, 5).unwrap();
    archive.positions().load().unwrap();
    assert_eq!(archive.patterns().load().unwrap().games, games);

    // Writes are refused before anything is read.
    let refused = archive.import(
        &[common::bytes("x", "(;)")],
        &Default::default(),
        &mut |_| {},
    );
    assert!(matches!(refused, Err(Error::ReadOnly)), "{refused:?}");
    assert!(matches!(archive.reindex(), Err(Error::ReadOnly)));
    assert!(matches!(archive.compact(), Err(Error::ReadOnly)));
    assert!(Error::ReadOnly.is_unwritable());
    drop(archive);

    // No file was created (no -wal, -shm or lock file), changed or removed.
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn read_only_open_follows_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let games = closed_archive(dir.path());
    // Opened while nobody writes (SQLite reads the file as immutable)...
    let reader = Archive::open_read_only(common::at(dir.path())).unwrap();
    assert_eq!(reader.stats().unwrap().games, games);
    // ...then a writer appears and stores more games: the reader sees them.
    let writer = Archive::open(common::at(dir.path())).unwrap();
    let (text, _) = common::corpus(10, 7, 99);
    let more = common::import(&writer, &[common::bytes("more", &text)])
        .counts
        .imported as u64;
    assert!(more > 0);
    assert_eq!(reader.stats().unwrap().games, games + more);
    // A reader opened beside the running writer sees its commits too.
    let beside = Archive::open_read_only(common::at(dir.path())).unwrap();
    assert_eq!(beside.stats().unwrap().games, games + more);
    let (text, _) = common::corpus(5, 7, 7);
    let last = common::import(&writer, &[common::bytes("last", &text)])
        .counts
        .imported as u64;
    assert_eq!(beside.stats().unwrap().games, games + more + last);
}

#[test]
fn read_only_open_refuses_what_it_cannot_read_without_writing() {
    if !common::embedded_only("read_only_open_refuses_what_it_cannot_read_without_writing") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // No archive: an error, and nothing created.
    let missing = dir.path().join("missing");
    assert!(matches!(
        Archive::open_read_only(common::at(&missing)),
        Err(Error::Io { .. })
    ));
    assert!(!missing.exists());

    closed_archive(dir.path());
    let file = dir.path().join(keil_archive::SQLITE_FILE);
    let set_version = |v: usize| {
        let conn = rusqlite::Connection::open(&file).unwrap();
        conn.pragma_update(None, "user_version", v as i64).unwrap();
    };
    let current = keil_archive::schema_version();
    // An older schema needs its migrations: a write.
    set_version(current - 1);
    let e = Archive::open_read_only(common::at(dir.path()))
        .err()
        .unwrap();
    assert!(matches!(e, Error::NeedsUpgrade(_)), "{e}");
    assert!(e.to_string().contains("open it once for writing"), "{e}");
    // A newer one is not ours to read.
    set_version(current + 1);
    let e = Archive::open_read_only(common::at(dir.path()))
        .err()
        .unwrap();
    assert!(matches!(e, Error::TooNew { .. }), "{e}");
    set_version(current);
    Archive::open_read_only(common::at(dir.path())).unwrap();
}

#[test]
fn unwritable_errors_are_recognised() {
    let io = |kind| Error::Io {
        path: "x".into(),
        source: std::io::Error::new(kind, "x"),
    };
    assert!(io(std::io::ErrorKind::ReadOnlyFilesystem).is_unwritable());
    assert!(io(std::io::ErrorKind::StorageFull).is_unwritable());
    assert!(io(std::io::ErrorKind::PermissionDenied).is_unwritable());
    assert!(!io(std::io::ErrorKind::NotFound).is_unwritable());
    assert!(!Error::Busy.is_unwritable());
    assert!(
        !Error::TextQuery(keil_archive::TextQueryError::TooLong { bytes: 2000 }).is_unwritable()
    );
}
