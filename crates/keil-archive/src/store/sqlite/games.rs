//! Reads of `games` that derived indexes catch up with: the stored main
//! lines of a run of games, streamed in id order.

use rusqlite::Connection;

use crate::Result;
use crate::games::StoredMoves;

/// A stored game as a derived index replays it: its moves (the columns
/// [`StoredMoves::COLUMNS`]), id, date as stored (`YYYY-MM-DD`, `''` when
/// unknown) and winner (0 Black, 1 White, `None` for none).
pub(crate) type StoredGame = (StoredMoves, i64, String, Option<i64>);

/// Hands `each` the games with ids in `(from, upto]`, in id order, one at
/// a time (the rows are streamed: memory does not grow with the run).
///
/// # Errors
/// Storage errors, and the first error `each` returns.
pub(crate) fn stored_between(
    conn: &Connection,
    from: i64,
    upto: i64,
    mut each: impl FnMut(StoredGame) -> Result<()>,
) -> Result<()> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {}, id, date, winner FROM games WHERE id > ?1 AND id <= ?2 ORDER BY id",
        StoredMoves::COLUMNS
    ))?;
    let mut rows = stmt.query([from, upto])?;
    while let Some(r) = rows.next()? {
        each((
            StoredMoves::read(r)?,
            r.get::<_, i64>(8)?,
            r.get::<_, String>(9)?,
            r.get::<_, Option<i64>>(10)?,
        ))?;
    }
    Ok(())
}
