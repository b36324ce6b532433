//! `keil backup`: a consistent copy of an embedded archive's store, made
//! while servers and imports go on writing it (docs/operating.md,
//! "Backups and restores").
//!
//! The copy is the store alone ([`crate::SQLITE_FILE`] in a new archive
//! directory), written by SQLite's `VACUUM INTO` in one read transaction
//! (the state of one commit: every game acknowledged before the copy
//! began, none half-written) into a temporary name that is synced and
//! renamed when whole. The derived indexes (the text index, the node
//! caches) are not copied: a node that opens the copy rebuilds them from
//! the store. A PostgreSQL archive is copied by `pg_dump` instead.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::location::SQLITE_FILE;
use crate::node::Node;

/// The name the copy is written under until it is whole.
const PART: &str = "archive.sqlite.part";

/// What [`Archive::backup`](crate::Archive::backup) wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BackupReport {
    /// The copy: `dest/archive.sqlite`.
    pub store: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// The games it holds (its kept count).
    pub games: u64,
}

/// [`Archive::backup`](crate::Archive::backup): see there.
pub(crate) fn backup(node: &Node, dest: impl AsRef<Path>) -> Result<BackupReport> {
    let dest = dest.as_ref();
    if !node.location.is_embedded() {
        return Err(Error::Unsupported(
            "a PostgreSQL archive is backed up with pg_dump -Fc (docs/operating.md, \"Backups and restores\")"
                .into(),
        ));
    }
    prepare_destination(dest)?;
    let part = dest.join(PART);
    let store = dest.join(SQLITE_FILE);
    let _ = std::fs::remove_file(&part);
    let games = match node.readers.copy_into(&part) {
        Ok(games) => games,
        Err(e) => {
            let _ = std::fs::remove_file(&part);
            return Err(e.into());
        }
    };
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |e| Error::io(path, e)
    };
    std::fs::File::open(&part)
        .and_then(|f| f.sync_all())
        .map_err(io(&part))?;
    std::fs::rename(&part, &store).map_err(io(&store))?;
    std::fs::File::open(dest)
        .and_then(|d| d.sync_all())
        .map_err(io(dest))?;
    let bytes = std::fs::metadata(&store).map_err(io(&store))?.len();
    Ok(BackupReport {
        store,
        bytes,
        games,
    })
}

/// Creates `dest` or checks that it is an empty directory (a backup never
/// writes over anything).
fn prepare_destination(dest: &Path) -> Result<()> {
    let refuse = |why: &str| {
        Error::io(
            dest,
            std::io::Error::new(std::io::ErrorKind::AlreadyExists, why.to_string()),
        )
    };
    match std::fs::metadata(dest) {
        Ok(m) if !m.is_dir() => Err(refuse(
            "exists and is not a directory: a backup goes into a new or empty directory",
        )),
        Ok(_) => {
            let mut entries = std::fs::read_dir(dest).map_err(|e| Error::io(dest, e))?;
            if entries.next().is_some() {
                Err(refuse(
                    "is not empty: a backup goes into a new or empty directory",
                ))
            } else {
                Ok(())
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dest).map_err(|e| Error::io(dest, e))
        }
        Err(e) => Err(Error::io(dest, e)),
    }
}

#[cfg(test)]
mod tests {
    use crate::archive::Archive;
    use keil_store::model::{GameFilter, Page};

    fn filled(games: u64) -> (tempfile::TempDir, Archive) {
        let dir = tempfile::tempdir().unwrap();
        let archive = Archive::open(dir.path().join("db")).unwrap();
        crate::archive::import_generated(
            &archive,
            keil_gen::GeneratorConfig {
                games,
                seed: 9,
                ..Default::default()
            },
        );
        (dir, archive)
    }

    #[test]
    fn a_backup_opens_as_an_archive_with_every_game_and_verifies() {
        let (dir, archive) = filled(20);
        let dest = dir.path().join("copy");
        let report = archive.backup(&dest).unwrap();
        assert_eq!(report.games, 20);
        assert!(report.bytes > 0);
        // The store alone: no text index, no write-ahead log.
        let names: Vec<String> = std::fs::read_dir(&dest)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec![crate::location::SQLITE_FILE.to_string()]);
        let copy = Archive::open(&dest).unwrap();
        let all = Page {
            limit: 100,
            ..Page::default()
        };
        let ids = |a: &Archive| -> Vec<_> {
            a.games()
                .list(&GameFilter::default(), &all)
                .unwrap()
                .games
                .into_iter()
                .map(|g| g.id)
                .collect()
        };
        assert_eq!(ids(&copy), ids(&archive));
        let report = copy.verify(&mut |_| {}).unwrap();
        assert!(report.is_sound(), "{:?}", report.problems);
        assert_eq!(report.games, 20);
        // The text index is rebuilt from the copy's store.
        assert_eq!(copy.stats().unwrap().text_documents, 20);
    }

    fn import(archive: &Archive, games: u64, seed: u64) {
        crate::archive::import_generated(
            archive,
            keil_gen::GeneratorConfig {
                games,
                seed,
                ..Default::default()
            },
        );
    }

    #[test]
    fn a_store_restored_under_a_later_text_index_is_indexed_again() {
        let dir = tempfile::tempdir().unwrap();
        let live = dir.path().join("live");
        let copy = dir.path().join("copy");
        let archive = Archive::open(&live).unwrap();
        import(&archive, 10, 1);
        archive.backup(&copy).unwrap();
        // Ids 11..=20 go to games the backup does not hold.
        import(&archive, 10, 2);
        assert_eq!(archive.stats().unwrap().text_documents, 20);
        drop(archive);
        // The restore in place: the copy's store under the live
        // directory, whose text index holds the later games.
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(
                live.join(format!("{}{suffix}", crate::location::SQLITE_FILE)),
            );
        }
        std::fs::copy(
            copy.join(crate::location::SQLITE_FILE),
            live.join(crate::location::SQLITE_FILE),
        )
        .unwrap();
        let restored = Archive::open(&live).unwrap();
        assert_eq!(restored.stats().unwrap().games, 10);
        assert_eq!(restored.stats().unwrap().text_documents, 10);
        // Other games take ids 11..=20 now, and text search finds them.
        import(&restored, 10, 3);
        assert_eq!(restored.stats().unwrap().text_documents, 20);
        let all = Page {
            limit: 100,
            ..Page::default()
        };
        for game in restored
            .games()
            .list(&GameFilter::default(), &all)
            .unwrap()
            .games
        {
            let Some(name) = game.black.clone() else {
                continue;
            };
            let found = restored.search_text(&format!("\"{name}\""), 1_000).unwrap();
            assert!(
                found.iter().any(|h| h.game.id == game.id),
                "game {} ({name}) not found by text",
                game.id
            );
        }
    }

    #[test]
    fn a_backup_refuses_a_destination_that_is_not_empty() {
        let (dir, archive) = filled(2);
        let dest = dir.path().join("full");
        std::fs::create_dir_all(&dest).unwrap();
        std::fs::write(dest.join("x"), b"x").unwrap();
        let e = archive.backup(&dest).unwrap_err();
        assert!(e.to_string().contains("is not empty"), "{e}");
        assert!(!dest.join(crate::location::SQLITE_FILE).exists());
        // A file is refused too.
        let e = archive.backup(dest.join("x")).unwrap_err();
        assert!(e.to_string().contains("not a directory"), "{e}");
    }
}
