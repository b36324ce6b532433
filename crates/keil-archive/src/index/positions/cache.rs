//! The segment cache: a node's position segments as files of its own,
//! mapped rather than read (see [`SegmentCache`]). It holds bytes; the
//! index ([`super::index`]) parses them and says which it keeps.

use std::path::{Path, PathBuf};

use tantivy::HasLen;
use tantivy::directory::{Directory, MmapDirectory, OwnedBytes};

use super::store;
use crate::error::Result;
use keil_store::Read;

/// A directory of position segments as files, one per segment
/// (`{id}-{nonce}.seg`, the bytes of its store row), mapped into memory
/// rather than read: a node that restarts maps its segments in
/// milliseconds instead of reading them from the store (8 s a million
/// 19×19 games), and their pages are the operating system's page cache,
/// read on demand and given back under memory pressure, instead of the
/// process's heap. A derived copy: the store stays the truth, a file is
/// used only while its header's nonce is the row's, and files of segments
/// no longer stored are deleted.
///
/// A segment read from the store is written as `{name}.{pid}.part` (the
/// writing process's id: two nodes that share the directory, such as two
/// servers on one embedded archive's default cache, never write, and so
/// never cut short, a file the other has mapped), without
/// waiting for the disk, and mapped from there at once; a thread of the
/// cache's own ([`sync_files`]) then syncs each such file and renames
/// it to its name. Only a file under its name is ever mapped by a later
/// node, so a machine that stops before the disk has it leaves a `.part`
/// file (deleted when a cache is next opened there), never a damaged
/// segment. A new node's start no longer waits for its segments' 3.4 GB
/// a million games to reach the disk (it did: 19–38 s on the development
/// machine). Dropping the cache waits for the thread.
pub(super) struct SegmentCache {
    path: PathBuf,
    dir: MmapDirectory,
    /// Files to sync and rename (`.part` file, name), in the order
    /// written (`None` once dropped).
    to_sync: Option<std::sync::mpsc::Sender<(PathBuf, PathBuf)>>,
    syncer: Option<std::thread::JoinHandle<()>>,
}

impl Drop for SegmentCache {
    fn drop(&mut self) {
        // The thread ends once the files queued are done.
        self.to_sync = None;
        if let Some(h) = self.syncer.take() {
            let _ = h.join();
        }
    }
}

/// Syncs each `(part, name)` file received to the disk, asks for its
/// pages ahead of use ([`crate::memory::read_ahead`]), renames it to its
/// name and syncs the directory `dir`; a file that cannot be synced
/// is deleted (the node that wrote it keeps its mapping; the next one
/// reads the segment from the store again).
fn sync_files(dir: &Path, files: std::sync::mpsc::Receiver<(PathBuf, PathBuf)>) {
    for (part, name) in files {
        let synced = std::fs::File::open(&part)
            .and_then(|f| {
                f.sync_all()?;
                // Written without the page cache: read back ahead of the
                // searches, off the start's path.
                crate::memory::read_ahead(&f);
                Ok(())
            })
            .and_then(|()| std::fs::rename(&part, &name))
            .and_then(|()| std::fs::File::open(dir)?.sync_all());
        if synced.is_err() {
            let _ = std::fs::remove_file(&part);
        }
    }
}

impl std::fmt::Debug for SegmentCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegmentCache")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// The file name of segment `id` with `nonce`.
fn file_name(id: i64, nonce: u64) -> String {
    format!("{id}-{nonce:016x}.seg")
}

impl SegmentCache {
    /// Opens the cache in directory `path` (created if needed), deletes
    /// the `.part` files a node stopped before the disk had them left
    /// there (a live node's too: it keeps its mapping, and the segment's
    /// file is written again by the next node that reads it), and starts
    /// the thread that syncs the files written.
    ///
    /// # Errors
    /// [`crate::Error::Io`] when the directory cannot be created, opened
    /// or listed, or the thread not started.
    pub(super) fn open(path: &Path) -> Result<SegmentCache> {
        let io = |e: std::io::Error| crate::error::Error::io(path, e);
        std::fs::create_dir_all(path).map_err(io)?;
        let dir =
            MmapDirectory::open(path).map_err(|e| io(std::io::Error::other(e.to_string())))?;
        for e in std::fs::read_dir(path).map_err(io)? {
            let e = e.map_err(io)?;
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".part") && name.contains(".seg") {
                let _ = std::fs::remove_file(e.path());
            }
        }
        let (to_sync, files) = std::sync::mpsc::channel();
        let at = path.to_path_buf();
        let syncer = std::thread::Builder::new()
            .name("segment-sync".into())
            .spawn(move || sync_files(&at, files))
            .map_err(io)?;
        Ok(SegmentCache {
            path: path.to_path_buf(),
            dir,
            to_sync: Some(to_sync),
            syncer: Some(syncer),
        })
    }

    /// The bytes of segment `id` with `nonce`, mapped from its file, when
    /// the file is there with the row's length (`len`, asked only then): a
    /// file cut short is not used. The caller checks the header.
    ///
    /// # Errors
    /// The errors of `len`.
    pub(super) fn mapped(
        &self,
        id: i64,
        nonce: u64,
        len: impl FnOnce() -> Result<u64>,
    ) -> Result<Option<OwnedBytes>> {
        let name = PathBuf::from(file_name(id, nonce));
        if let Ok(file) = self.dir.open_read(&name)
            && file.len() as u64 == len()?
            && let Ok(bytes) = file.read_bytes()
        {
            return Ok(Some(bytes));
        }
        Ok(None)
    }

    /// Copies segment `id` from the store into a `{name}.part` file (not
    /// through the heap, nor the page cache where the disk allows:
    /// [`crate::memory::DirectFile`]), maps it and hands the bytes to
    /// `accept`; when it takes them, queues the file for its sync and
    /// rename and returns what it made of them. `None`, the file deleted,
    /// when the file cannot be written (a full disk) or `accept` refuses
    /// the bytes.
    pub(super) fn write<T>(
        &self,
        conn: Read<'_>,
        id: i64,
        nonce: u64,
        accept: impl FnOnce(OwnedBytes) -> Option<T>,
    ) -> Option<T> {
        let name = file_name(id, nonce);
        let part = PathBuf::from(format!("{name}.{}.part", std::process::id()));
        let at = self.path.join(&part);
        let taken = crate::memory::DirectFile::create(&at)
            .ok()
            .and_then(|mut f| {
                store::copy_segment(conn, id, &mut f).ok()?;
                f.finish().ok()
            })
            .and_then(|()| self.dir.open_read(&part).ok())
            .and_then(|f| f.read_bytes().ok())
            .and_then(accept);
        match &taken {
            Some(_) => {
                if let Some(tx) = &self.to_sync {
                    let _ = tx.send((at, self.path.join(name)));
                }
            }
            None => {
                let _ = std::fs::remove_file(&at);
            }
        }
        taken
    }

    /// Deletes the files of segments not in `rows` (`(id, nonce)` of every
    /// stored segment: those merged away or rebuilt). A file still mapped
    /// by a search stays readable until it is unmapped.
    pub(super) fn sweep(&self, rows: &[(i64, Option<i64>)]) {
        let keep: std::collections::HashSet<String> = rows
            .iter()
            .filter_map(|&(id, nonce)| Some(file_name(id, nonce? as u64)))
            .collect();
        let Ok(entries) = std::fs::read_dir(&self.path) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".seg") && !keep.contains(&name) {
                let _ = self.dir.delete(Path::new(&name));
            }
        }
    }
}
