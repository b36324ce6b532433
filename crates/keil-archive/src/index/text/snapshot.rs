//! A node's text index, published to and restored from the store
//! (`keil_store::snapshots`; PostgreSQL archives, whose text index is
//! node-local): a node that starts with an empty cache directory copies
//! the latest snapshot's files and then catches up on the games stored
//! and removed since, instead of building its index from every record.
//!
//! A snapshot is derived data: one that cannot be read is ignored and the
//! index is built from the games. **Invariant:** a restored index is the
//! snapshot's files exactly, checked to open and to hold the snapshot's
//! documents before it replaces the node's index; a restore starts only
//! when this process holds the node's index's writer lock (the files are
//! written and checked under it; the two renames follow).

use std::path::{Path, PathBuf};

use tantivy::directory::Directory;
use tantivy::{Index, TantivyError};

use super::{TextIndex, TextWriter};
use crate::error::{Error, Result};
use keil_store::{self, Read, Sequences, snapshots};

/// How many times a publish reads the index's files again when a
/// background merge changed them meanwhile.
const PUBLISH_TRIES: usize = 5;

/// The index's `meta.json`, which names its segments.
const META: &str = "meta.json";

/// Whether a snapshot at `have` is stale against an index at `now`: it
/// lacks more than 1/16 of its games (or there is none). Publishing at
/// that rule costs, over an archive's life, a constant times the final
/// index's bytes.
fn lacks_a_sixteenth(have: Option<Sequences>, now: Sequences) -> bool {
    match have {
        None => now.games > 0,
        Some(have) => now.games - have.games > now.games / 16,
    }
}

impl TextWriter<'_> {
    /// Stores a snapshot of the committed index in the store when `always`
    /// (a reindex: the index was rebuilt) or when the latest one lacks
    /// more than 1/16 of the games this index holds: its files
    /// (`meta.json` and every file of its segments) in one write
    /// transaction of `writer`, which replaces the older snapshots.
    /// Returns whether it stored one.
    ///
    /// # Errors
    /// Storage, tantivy and file errors.
    pub(crate) fn publish(
        &mut self,
        writer: &mut keil_store::Writer,
        always: bool,
    ) -> Result<bool> {
        let at = self.text.indexed()?;
        let have = snapshots::latest(writer.read())?.map(|s| s.at);
        if !always && !lacks_a_sixteenth(have, at) {
            return Ok(false);
        }
        let files = self.committed_files()?;
        let documents = self.text.num_docs()?;
        writer.transaction(|tx| snapshots::insert(tx, at, documents, &files))?;
        Ok(true)
    }

    /// The committed index's files, `meta.json` first. This writer holds
    /// the lock, so no commit changes them; a merge that finishes meanwhile
    /// (tantivy's merges run in the background and write `meta.json`) is
    /// seen as a changed `meta.json` and the files are read again.
    fn committed_files(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let index = &self.text.index;
        let directory = index.directory();
        for _ in 0..PUBLISH_TRIES {
            let meta = directory
                .atomic_read(Path::new(META))
                .map_err(TantivyError::from)?;
            let mut files = vec![(META.to_string(), meta.clone())];
            let mut paths: Vec<PathBuf> = index
                .load_metas()?
                .list_segment_files()
                .into_iter()
                .collect();
            paths.sort();
            let mut vanished = false;
            for path in paths {
                if !directory.exists(&path).map_err(TantivyError::from)? {
                    continue;
                }
                match directory.atomic_read(&path) {
                    Ok(bytes) => files.push((path.to_string_lossy().into_owned(), bytes)),
                    Err(_) => {
                        vanished = true;
                        break;
                    }
                }
            }
            let unchanged = directory
                .atomic_read(Path::new(META))
                .is_ok_and(|now| now == meta);
            if !vanished && unchanged {
                return Ok(files);
            }
        }
        Err(Error::Busy)
    }
}

/// `dir` with `suffix` added to its name: a sibling directory.
fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    dir.with_file_name(name)
}

/// Restores the node-local text index in `dir` (opened as `current`)
/// from the store's latest snapshot when it lacks more than 1/16 of the
/// snapshot's games (a new node: it has none). The files are written to a
/// sibling directory and checked there ([`stage`]), then put in place of
/// `dir`. Returns the node's index: `current` when no restore is due,
/// another process holds its writer lock or the snapshot was replaced
/// meanwhile; else the restored one. The caller then catches the index
/// up from the store.
///
/// # Errors
/// Storage, tantivy and file errors (`current` is then closed; the index
/// in `dir` is the one before); [`stage`]'s for a snapshot that does not
/// hold what its row says.
pub(crate) fn restore(current: TextIndex, dir: &Path, read: Read<'_>) -> Result<TextIndex> {
    let Some(snapshot) = snapshots::latest(read)? else {
        return Ok(current);
    };
    if !lacks_a_sixteenth(Some(current.indexed()?), snapshot.at) {
        return Ok(current);
    }
    let lock = current.try_writer()?;
    let files = match lock {
        Some(_) => snapshots::files(read, snapshot.id)?,
        None => Vec::new(),
    };
    if !files.iter().any(|(p, _)| p == META) {
        drop(lock);
        return Ok(current);
    }
    let staging = sibling(dir, ".restoring");
    let staged = stage(&staging, &files, &snapshot);
    if staged.is_err() {
        let _ = remove_dir(&staging);
    }
    staged?;
    drop(lock);
    drop(current);
    let old = sibling(dir, ".old");
    remove_dir(&old)?;
    std::fs::rename(dir, &old).map_err(|e| Error::io(dir, e))?;
    std::fs::rename(&staging, dir).map_err(|e| Error::io(dir, e))?;
    remove_dir(&old)?;
    TextIndex::open(dir)
}

/// Writes `snapshot`'s `files` (`meta.json` among them) into the new
/// directory `staging` and checks them: the index opens, every file
/// passes tantivy's checksum, and it holds the documents and sequences
/// the snapshot's row says.
///
/// # Errors
/// File and tantivy errors; a storage error (`text snapshot`) for a
/// snapshot that names a file outside the index's directory or does not
/// hold what its row says.
fn stage(
    staging: &Path,
    files: &[(String, Vec<u8>)],
    snapshot: &snapshots::Snapshot,
) -> Result<()> {
    remove_dir(staging)?;
    std::fs::create_dir_all(staging).map_err(|e| Error::io(staging, e))?;
    let mut meta: &[u8] = &[];
    let mut managed = Vec::new();
    for (path, bytes) in files {
        if path == META {
            meta = bytes;
            continue;
        }
        let name = Path::new(path);
        if name.components().count() != 1 || name.file_name().is_none() || path.starts_with('.') {
            return Err(unreadable(format!(
                "text snapshot {} names the file {path:?} outside its index",
                snapshot.id
            )));
        }
        let file = staging.join(name);
        std::fs::write(&file, bytes).map_err(|e| Error::io(&file, e))?;
        managed.push(path.as_str());
    }
    // tantivy deletes the files its `.managed.json` lists when later
    // merges replace them (a JSON list of paths, as its
    // `ManagedDirectory` writes it); `meta.json` last, as a commit.
    let list = serde_json::to_vec(&managed).expect("a list of strings");
    for (name, bytes) in [(".managed.json", list.as_slice()), (META, meta)] {
        let file = staging.join(name);
        std::fs::write(&file, bytes).map_err(|e| Error::io(&file, e))?;
    }
    let checked = Index::open_in_dir(staging).is_ok_and(|index| {
        managed.iter().all(|p| {
            index
                .directory()
                .validate_checksum(Path::new(p))
                .unwrap_or(false)
        })
    });
    if !checked {
        return Err(unreadable(format!(
            "text snapshot {}: a file fails its checksum",
            snapshot.id
        )));
    }
    let restored = TextIndex::open(staging)?;
    if restored.num_docs()? != snapshot.documents as u64 || restored.indexed()? != snapshot.at {
        return Err(unreadable(format!(
            "text snapshot {} does not hold the documents its row says",
            snapshot.id
        )));
    }
    Ok(())
}

/// The error of a snapshot that does not read back as its row says.
fn unreadable(reason: String) -> Error {
    crate::error::storage_error(
        "text snapshot",
        std::io::Error::new(std::io::ErrorKind::InvalidData, reason),
    )
}

/// Removes `dir` and everything in it, if it exists.
fn remove_dir(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(dir, e)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_is_stale_when_it_lacks_more_than_a_sixteenth() {
        let at = |games| Sequences { games, removals: 0 };
        assert!(!lacks_a_sixteenth(None, at(0)));
        assert!(lacks_a_sixteenth(None, at(1)));
        assert!(!lacks_a_sixteenth(Some(at(1600)), at(1700)));
        assert!(lacks_a_sixteenth(Some(at(1590)), at(1700)));
        assert!(!lacks_a_sixteenth(Some(at(2000)), at(1700)));
    }
}
