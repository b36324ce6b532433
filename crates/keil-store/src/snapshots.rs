//! Snapshots of a node's text index, stored in a PostgreSQL archive
//! (`text_snapshots`, `text_snapshot_parts`: schema/postgres/0002): the
//! files of one committed tantivy index, in parts of at most
//! [`PART_BYTES`], so that a new node restores its text index in one read
//! instead of building it from every record. The embedded archive keeps
//! its text index beside its store and has no such tables: only a
//! node-local text index (`Location::Postgres`) calls these.

use crate::sequences::Sequences;
use crate::sql::params;
use crate::sql::{Read, Write};

use crate::error::Result;

/// The largest part of a file stored in one row (bytes): no stored value
/// grows with the archive.
pub const PART_BYTES: usize = 8 << 20;

/// A stored snapshot, without its files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// The row (for [`files`]).
    pub id: i64,
    /// The store's sequences the index had reached: every game up to
    /// `at.games` added, every removal up to `at.removals` applied.
    pub at: Sequences,
    /// Documents (games) in the index.
    pub documents: i64,
    /// Bytes of its files.
    pub bytes: i64,
}

/// The latest snapshot, if any.
///
/// # Errors
/// Storage errors.
pub fn latest(conn: Read<'_>) -> Result<Option<Snapshot>> {
    conn.query_opt(
        "SELECT id, games, removals, documents, bytes FROM text_snapshots \
         ORDER BY id DESC LIMIT 1",
        params![],
        |r| {
            Ok(Snapshot {
                id: r.get(0)?,
                at: Sequences {
                    games: r.get(1)?,
                    removals: r.get(2)?,
                },
                documents: r.get(3)?,
                bytes: r.get(4)?,
            })
        },
    )
}

/// The files of snapshot `id`, each whole: `(path, bytes)` by path. Empty
/// when the snapshot was replaced (deleted) since [`latest`] named it.
///
/// # Errors
/// Storage errors.
pub fn files(conn: Read<'_>, id: i64) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    conn.each(
        "SELECT path, data FROM text_snapshot_parts WHERE snapshot = ? ORDER BY path, part",
        params![id],
        |r| {
            let path: String = r.get(0)?;
            let data: Vec<u8> = r.get(1)?;
            match out.last_mut() {
                Some((last, bytes)) if *last == path => bytes.extend_from_slice(&data),
                _ => out.push((path, data)),
            }
            Ok(true)
        },
    )?;
    Ok(out)
}

/// Stores a snapshot of an index at `at` with `documents` documents and
/// `files` (`(path, bytes)`), and deletes the older ones (a reader that
/// named one of them finds no files: [`files`]). Run it in one write
/// transaction.
///
/// # Errors
/// Storage errors.
pub fn insert(
    conn: Write<'_>,
    at: Sequences,
    documents: u64,
    files: &[(String, Vec<u8>)],
) -> Result<()> {
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    let id: i64 = conn.value(
        "INSERT INTO text_snapshots (games, removals, documents, bytes) VALUES (?,?,?,?) \
         RETURNING id",
        params![at.games, at.removals, documents as i64, bytes as i64],
    )?;
    for (path, data) in files {
        // An empty file is one empty part, so that it is restored.
        let parts: Vec<&[u8]> = if data.is_empty() {
            vec![&[]]
        } else {
            data.chunks(PART_BYTES).collect()
        };
        for (n, part) in parts.into_iter().enumerate() {
            conn.execute(
                "INSERT INTO text_snapshot_parts (snapshot, path, part, data) VALUES (?,?,?,?)",
                params![id, path.as_str(), n as i64, part],
            )?;
        }
    }
    conn.execute("DELETE FROM text_snapshots WHERE id <> ?", params![id])?;
    Ok(())
}
