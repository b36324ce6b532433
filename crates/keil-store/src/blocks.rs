//! Blocks of derived indexes (`derived_blocks`, SQLite schema 11): each a
//! bounded, immutable blob holding the derived data of a run of games
//! (ids `first_game..=last_game`), written in the transaction that stores
//! the games, read by a node start: whole, or only its head when the block
//! says how many of its first bytes can be read alone (`head_bytes`,
//! schema 13).

use crate::sql::{Read, Write};
use crate::sql::{Row, params};

use crate::error::Result;

/// A stored block without its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRange {
    /// The row (for [`data`]).
    pub id: i64,
    /// The first game id it covers.
    pub first: i64,
    /// The last game id it covers.
    pub last: i64,
    /// Games in it.
    pub games: i64,
    /// Its format's version.
    pub version: i64,
    /// How many of its first bytes can be read alone ([`head`]), when it
    /// says.
    pub head: Option<i64>,
}

/// A [`BlockRange`] from the columns [`RANGE`].
fn range_of(r: &Row<'_>) -> Result<BlockRange> {
    Ok(BlockRange {
        id: r.get(0)?,
        first: r.get(1)?,
        last: r.get(2)?,
        games: r.get(3)?,
        version: r.get(4)?,
        head: r.get(5)?,
    })
}

/// The columns [`range_of`] reads.
const RANGE: &str = "id, first_game, last_game, games, version, head_bytes";

/// Stores a block of derived index `kind` in format `version`, whose
/// first `head` bytes (when given) can be read alone.
pub fn insert(
    conn: Write<'_>,
    kind: &str,
    range: (i64, i64),
    games: usize,
    version: i64,
    (data, head): (&[u8], Option<usize>),
) -> Result<()> {
    conn.execute(
        "INSERT INTO derived_blocks (kind, first_game, last_game, games, version, data, \
         head_bytes) VALUES (?,?,?,?,?,?,?)",
        params![kind, range.0, range.1, games, version, data, head],
    )?;
    Ok(())
}

/// The blocks of `kind` in a version within `versions` that lie within
/// game ids `(after, upto]`, by first game.
pub fn within(
    conn: Read<'_>,
    kind: &str,
    versions: std::ops::RangeInclusive<i64>,
    after: i64,
    upto: i64,
) -> Result<Vec<BlockRange>> {
    conn.query(
        &format!(
            "SELECT {RANGE} FROM derived_blocks \
             WHERE kind = ?1 AND version BETWEEN ?2 AND ?3 AND first_game > ?4 \
             AND last_game <= ?5 ORDER BY first_game"
        ),
        params![kind, *versions.start(), *versions.end(), after, upto],
        range_of,
    )
}

/// A block's bytes.
pub fn data(conn: Read<'_>, id: i64) -> Result<Vec<u8>> {
    conn.value("SELECT data FROM derived_blocks WHERE id = ?", params![id])
}

/// The first `len` bytes of block `id` (its [`BlockRange::head`]), the
/// rest not read (see [`crate::sql::Conn::blob_at`]).
///
/// # Errors
/// Storage errors, among them a block shorter than `len`.
pub fn head(conn: Read<'_>, id: i64, len: usize) -> Result<Vec<u8>> {
    conn.blob_at("derived_blocks", "data", id, 0, len)
}

/// The last blocks of `kind` (by first game, latest first) while each
/// holds fewer than `below` games: the run a merge may join.
pub fn trailing_small(conn: Read<'_>, kind: &str, below: i64) -> Result<Vec<BlockRange>> {
    let rows = conn.query(
        &format!(
            "SELECT {RANGE} FROM derived_blocks \
             WHERE kind = ?1 ORDER BY first_game DESC LIMIT 64"
        ),
        params![kind],
        range_of,
    )?;
    Ok(rows.into_iter().take_while(|b| b.games < below).collect())
}

/// Deletes blocks by row.
pub fn delete(conn: Write<'_>, ids: &[i64]) -> Result<()> {
    for id in ids {
        conn.execute("DELETE FROM derived_blocks WHERE id = ?", params![id])?;
    }
    Ok(())
}

/// Deletes every block of `kind`.
pub fn delete_all(conn: Write<'_>, kind: &str) -> Result<()> {
    conn.execute("DELETE FROM derived_blocks WHERE kind = ?", params![kind])?;
    Ok(())
}
