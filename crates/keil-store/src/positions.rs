//! The position index in the store: the rows of `position_segments` (one
//! immutable blob per segment, with its game and posting counts, its nonce
//! and the version of its keys) and the reads of `games` and `players` the
//! position index and its search need.
//!
//! Each function runs its statements and returns plain values; encoding
//! and decoding segments, the merge plan and the rebuild stay in
//! `positions/store.rs`. Segment rows are written whole and never updated,
//! but for the nonce column (filled once by [`set_nonce`]).

use crate::sequences::Sequences;
use crate::sql::params;
use crate::sql::{Read, Write};

use crate::error::Result;

// ---- segment rows --------------------------------------------------------------

/// Stores a segment as a new row, with an id one above the greatest
/// stored: its blob `data`, the games (`games`) and postings (`postings`)
/// it holds, its `nonce` (stored as the signed 64-bit integer of the same
/// bits) and the version of its keys (`keys`).
pub fn insert_segment(
    conn: Write<'_>,
    games: usize,
    postings: usize,
    data: &[u8],
    nonce: u64,
    keys: i64,
) -> Result<()> {
    conn.execute(
        "INSERT INTO position_segments (id, games, postings, data, nonce, keys)
         VALUES ((SELECT COALESCE(MAX(id), 0) + 1 FROM position_segments), ?1, ?2, ?3, ?4, ?5)",
        params![games, postings, data, nonce as i64, keys],
    )?;
    Ok(())
}

/// Every segment's id and number of postings, `(id, postings)`, in no
/// particular order: what a merge plan is made of.
pub fn segment_sizes(conn: Read<'_>) -> Result<Vec<(i64, i64)>> {
    conn.query(
        "SELECT id, postings FROM position_segments",
        params![],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Segment `id`'s blob, whole, and the number of games it holds,
/// `(data, games)`.
pub fn segment_data_and_games(conn: Read<'_>, id: i64) -> Result<(Vec<u8>, i64)> {
    conn.query_one(
        "SELECT data, games FROM position_segments WHERE id = ?1",
        params![id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Segment `id`'s blob, whole (bytes).
pub fn segment_bytes(conn: Read<'_>, id: i64) -> Result<Vec<u8>> {
    conn.value(
        "SELECT data FROM position_segments WHERE id = ?1",
        params![id],
    )
}

/// Writes segment `id`'s blob to `out`, whole, without holding a copy of
/// it (see [`crate::sql::Conn::blob_to`]); returns its length in bytes.
pub fn copy_segment(conn: Read<'_>, id: i64, out: &mut dyn std::io::Write) -> Result<u64> {
    conn.blob_to("position_segments", "data", id, out)
}

/// Deletes the segment rows `ids` (ids that are not stored are skipped).
pub fn delete_segments(conn: Write<'_>, ids: &[i64]) -> Result<()> {
    for &id in ids {
        conn.execute("DELETE FROM position_segments WHERE id = ?1", params![id])?;
    }
    Ok(())
}

/// Deletes every segment row: the position index is then empty.
pub fn delete_all_segments(conn: Write<'_>) -> Result<()> {
    conn.execute("DELETE FROM position_segments", params![])?;
    Ok(())
}

// ---- key version and nonces ----------------------------------------------------

/// Whether a segment was written with keys older than version `current`,
/// read from the `keys` index alone (never the blobs).
pub fn has_keys_older_than(conn: Read<'_>, current: i64) -> Result<bool> {
    let sql = format!(
        "SELECT id FROM position_segments{} WHERE keys < ?1 LIMIT 1",
        conn.backend().indexed_by("position_segments_keys")
    );
    Ok(conn
        .query_opt(&sql, params![current], |r| r.get::<i64>(0))?
        .is_some())
}

/// Whether a segment's nonce column is NULL (a segment written before
/// schema 2, not filled yet).
pub fn has_missing_nonce(conn: Read<'_>) -> Result<bool> {
    let missing = conn.query_opt(
        "SELECT id FROM position_segments WHERE nonce IS NULL LIMIT 1",
        params![],
        |r| r.get::<i64>(0),
    )?;
    Ok(missing.is_some())
}

/// The ids of the segments whose nonce column is NULL, in no particular
/// order.
pub fn segments_without_nonce(conn: Read<'_>) -> Result<Vec<i64>> {
    conn.query(
        "SELECT id FROM position_segments WHERE nonce IS NULL",
        params![],
        |r| r.get(0),
    )
}

/// The `len` bytes from byte `offset` of segment `id`'s blob (see
/// [`crate::sql::Conn::blob_at`]: the bytes after them are not read).
///
/// # Errors
/// Storage errors, among them a blob that ends before them.
pub fn read_segment_at(conn: Read<'_>, id: i64, offset: usize, len: usize) -> Result<Vec<u8>> {
    conn.blob_at("position_segments", "data", id, offset, len)
}

/// Sets segment `id`'s nonce column to `nonce` (stored as the signed
/// 64-bit integer of the same bits).
pub fn set_nonce(conn: Write<'_>, id: i64, nonce: u64) -> Result<()> {
    conn.execute(
        "UPDATE position_segments SET nonce = ?1 WHERE id = ?2",
        params![nonce as i64, id],
    )?;
    Ok(())
}

/// Segment `id`'s length in bytes (its row's record header: the blob
/// itself is not read).
pub fn segment_len(conn: Read<'_>, id: i64) -> Result<u64> {
    let n: i64 = conn.value(
        "SELECT length(data) FROM position_segments WHERE id = ?1",
        params![id],
    )?;
    Ok(n.max(0) as u64)
}

/// Every segment's id and nonce, `(id, nonce)` (`None` for a segment older
/// than the column, until it is filled), read from the nonce index alone.
pub fn segment_nonces(conn: Read<'_>) -> Result<SegmentRows> {
    let sql = format!(
        "SELECT id, nonce FROM position_segments{}",
        conn.backend().indexed_by("position_segments_nonce")
    );
    conn.query(&sql, params![], |r| Ok((r.get(0)?, r.get(1)?)))
}

/// Every segment's `(id, nonce)` (`None` for a segment older than the
/// column, until it is filled).
pub type SegmentRows = Vec<(i64, Option<i64>)>;

/// The store's sequences and every segment's `(id, nonce)` (as
/// [`segment_nonces`], by id), in one statement: what a search checks to
/// know that the node's index is the store's (one round trip on a
/// database server).
pub fn state(conn: Read<'_>) -> Result<(Sequences, SegmentRows)> {
    let sql = format!(
        "SELECT q.games, q.removals, p.id, p.nonce FROM ({}) q \
         LEFT JOIN position_segments p ON 1 = 1 ORDER BY p.id",
        crate::sequences::statement(conn.backend())
    );
    let mut at = Sequences::default();
    let mut segments = Vec::new();
    conn.each(&sql, params![], |r| {
        at = Sequences {
            games: r.get(0)?,
            removals: r.get(1)?,
        };
        if let Some(id) = r.get::<Option<i64>>(2)? {
            segments.push((id, r.get(3)?));
        }
        Ok(true)
    })?;
    Ok((at, segments))
}

// ---- games and players ---------------------------------------------------------

/// Every stored game's id, ascending: what a rebuild replays.
pub fn game_ids(conn: Read<'_>) -> Result<Vec<i64>> {
    conn.query("SELECT id FROM games ORDER BY id", params![], |r| r.get(0))
}
