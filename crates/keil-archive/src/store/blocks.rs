//! Blocks of derived indexes (`derived_blocks`, SQLite schema 11): each a
//! bounded, immutable blob holding the derived data of a run of games
//! (ids `first_game..=last_game`), written in the transaction that stores
//! the games, read whole by a node start.

use super::{Read, Row, Write, params};

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
    /// Its format's version.
    pub version: i64,
}

/// A [`BlockRange`] from the columns `id, first_game, last_game, games,
/// version`.
fn range_of(r: &Row<'_>) -> Result<BlockRange> {
    Ok(BlockRange {
        id: r.get(0)?,
        first: r.get(1)?,
        last: r.get(2)?,
        games: r.get(3)?,
        version: r.get(4)?,
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
    conn.execute(
        "INSERT INTO derived_blocks (kind, first_game, last_game, games, version, data) \
         VALUES (?,?,?,?,?,?)",
        params![kind, range.0, range.1, games, version, data],
    )?;
    Ok(())
}

/// The blocks of `kind` in a version within `versions` that lie within
/// game ids `(after, upto]`, by first game.
pub(crate) fn within(
    conn: Read<'_>,
    kind: &str,
    versions: std::ops::RangeInclusive<i64>,
    after: i64,
    upto: i64,
) -> Result<Vec<BlockRange>> {
    conn.query(
        "SELECT id, first_game, last_game, games, version FROM derived_blocks \
         WHERE kind = ?1 AND version BETWEEN ?2 AND ?3 AND first_game > ?4 \
         AND last_game <= ?5 ORDER BY first_game",
        params![kind, *versions.start(), *versions.end(), after, upto],
        range_of,
    )
}

/// A block's bytes.
pub(crate) fn data(conn: Read<'_>, id: i64) -> Result<Vec<u8>> {
    conn.value("SELECT data FROM derived_blocks WHERE id = ?", params![id])
}

/// The last blocks of `kind` (by first game, latest first) while each
/// holds fewer than `below` games: the run a merge may join.
pub(crate) fn trailing_small(conn: Read<'_>, kind: &str, below: i64) -> Result<Vec<BlockRange>> {
    let rows = conn.query(
        "SELECT id, first_game, last_game, games, version FROM derived_blocks \
         WHERE kind = ?1 ORDER BY first_game DESC LIMIT 64",
        params![kind],
        range_of,
    )?;
    Ok(rows.into_iter().take_while(|b| b.games < below).collect())
}

/// Deletes blocks by row.
pub(crate) fn delete(conn: Write<'_>, ids: &[i64]) -> Result<()> {
    for id in ids {
        conn.execute("DELETE FROM derived_blocks WHERE id = ?", params![id])?;
    }
    Ok(())
}

/// Deletes every block of `kind`.
pub(crate) fn delete_all(conn: Write<'_>, kind: &str) -> Result<()> {
    conn.execute("DELETE FROM derived_blocks WHERE kind = ?", params![kind])?;
    Ok(())
}
