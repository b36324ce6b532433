//! Blocks of derived indexes in SQLite (`derived_blocks`, schema 11): each
//! a bounded, immutable blob holding the derived data of a run of games
//! (ids `first_game..=last_game`), written in the transaction that stores
//! the games, read whole by a node start.

use super::{Read, Write};
use rusqlite::params;

use crate::Result;

/// A stored block without its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockRange {
    /// The row (for [`data`]).
    pub id: i64,
    /// The first and last game id it covers.
    pub first: i64,
    pub last: i64,
    /// Games in it.
    pub games: i64,
}

/// A [`BlockRange`] from the columns `id, first_game, last_game, games`.
fn range_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<BlockRange> {
    Ok(BlockRange {
        id: r.get(0)?,
        first: r.get(1)?,
        last: r.get(2)?,
        games: r.get(3)?,
    })
}

/// Stores a block of derived index `kind` in format `version`.
pub(crate) fn insert(
    conn: Write<'_>,
    kind: &str,
    range: (i64, i64),
    games: usize,
    version: i64,
    data: &[u8],
) -> Result<()> {
    let conn = conn.0;
    conn.prepare_cached(
        "INSERT INTO derived_blocks (kind, first_game, last_game, games, version, data) \
         VALUES (?,?,?,?,?,?)",
    )?
    .execute(params![kind, range.0, range.1, games as i64, version, data])?;
    Ok(())
}

/// The blocks of `kind` in `version` that lie within game ids
/// `(after, upto]`, by first game.
pub(crate) fn within(
    conn: Read<'_>,
    kind: &str,
    version: i64,
    after: i64,
    upto: i64,
) -> Result<Vec<BlockRange>> {
    let conn = conn.0;
    let mut stmt = conn.prepare_cached(
        "SELECT id, first_game, last_game, games FROM derived_blocks \
         WHERE kind = ?1 AND version = ?2 AND first_game > ?3 AND last_game <= ?4 \
         ORDER BY first_game",
    )?;
    let rows = stmt
        .query_map(params![kind, version, after, upto], range_of)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// A block's bytes.
pub(crate) fn data(conn: Read<'_>, id: i64) -> Result<Vec<u8>> {
    let conn = conn.0;
    Ok(conn
        .prepare_cached("SELECT data FROM derived_blocks WHERE id = ?")?
        .query_row([id], |r| r.get(0))?)
}

/// The last blocks of `kind` (by first game, latest first) while each
/// holds fewer than `below` games: the run a merge may join.
pub(crate) fn trailing_small(conn: Read<'_>, kind: &str, below: i64) -> Result<Vec<BlockRange>> {
    let conn = conn.0;
    let mut stmt = conn.prepare_cached(
        "SELECT id, first_game, last_game, games FROM derived_blocks \
         WHERE kind = ?1 ORDER BY first_game DESC LIMIT 64",
    )?;
    let rows = stmt
        .query_map([kind], range_of)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows.into_iter().take_while(|b| b.games < below).collect())
}

/// Deletes blocks by row.
pub(crate) fn delete(conn: Write<'_>, ids: &[i64]) -> Result<()> {
    let conn = conn.0;
    let mut stmt = conn.prepare_cached("DELETE FROM derived_blocks WHERE id = ?")?;
    for id in ids {
        stmt.execute([id])?;
    }
    Ok(())
}

/// Deletes every block of `kind`.
pub(crate) fn delete_all(conn: Write<'_>, kind: &str) -> Result<()> {
    let conn = conn.0;
    conn.prepare_cached("DELETE FROM derived_blocks WHERE kind = ?")?
        .execute([kind])?;
    Ok(())
}
