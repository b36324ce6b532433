//! The statements of `keil verify` (`crate::verify`): the engine's own
//! checks of its files, the counts worked out from the rows, every game's
//! stored record and moves streamed in id order, and the derived blocks'
//! rows. Reads only.

use crate::error::{Error, Result};
use crate::sql::Read;
use crate::sql::{Conn, Relay};
use crate::sql::{Row, params};

/// What the engine says is wrong with its files, one line a problem
/// (none: all is well). SQLite: `PRAGMA integrity_check` (its lines other
/// than `ok`) and `PRAGMA foreign_key_check` (a line a row whose parent
/// is missing); PostgreSQL checks its pages itself as it reads them (and
/// the games' streaming read below reads every game's row): nothing here.
///
/// # Errors
/// Storage errors.
pub fn engine_problems(conn: Read<'_>) -> Result<Vec<String>> {
    let Conn::Sqlite(_) = conn.0 else {
        return Ok(Vec::new());
    };
    let mut out: Vec<String> = conn
        .query("PRAGMA integrity_check", params![], |r| r.get::<String>(0))?
        .into_iter()
        .filter(|line| line != "ok")
        .map(|line| format!("integrity_check: {line}"))
        .collect();
    out.extend(conn.query("PRAGMA foreign_key_check", params![], |r| {
        let table: String = r.get(0)?;
        let row: Option<i64> = r.get(1)?;
        let parent: String = r.get(2)?;
        Ok(format!(
            "foreign_key_check: {table} row {} refers to a missing row of {parent}",
            row.map_or_else(|| "?".to_string(), |r| r.to_string())
        ))
    })?);
    Ok(out)
}

/// The counts that `counts` keeps, worked out from the rows themselves:
/// `games`, `players`, `people`, `imports`, `import_problems`,
/// `status <code>` and `board <kind> <size>` (see `crate::counts`), as
/// (name, count) pairs. A full scan of `games` (its narrowest index).
///
/// # Errors
/// Storage errors.
pub fn counted(conn: Read<'_>) -> Result<Vec<(String, u64)>> {
    conn.query(
        "SELECT 'games', COUNT(*) FROM games \
         UNION ALL SELECT 'players', COUNT(*) FROM players \
         UNION ALL SELECT 'people', COUNT(*) FROM people \
         UNION ALL SELECT 'imports', COUNT(*) FROM imports \
         UNION ALL SELECT 'import_problems', COUNT(*) FROM import_problems \
         UNION ALL SELECT 'status ' || status, COUNT(*) FROM games GROUP BY status \
         UNION ALL SELECT 'board ' || kind || ' ' || CAST(size AS TEXT), COUNT(*) FROM games \
         GROUP BY kind, size",
        params![],
        |r| Ok((r.get::<String>(0)?, r.get::<i64>(1)?.max(0) as u64)),
    )
}

/// The rows of `counts` as stored, signed (a count driven below zero by
/// a damaged store is shown as it is).
///
/// # Errors
/// Storage errors.
pub fn kept(conn: Read<'_>) -> Result<Vec<(String, i64)>> {
    conn.query("SELECT name, n FROM counts", params![], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
}

/// One stored game as `keil verify` reads it: its id, record identity
/// (`games.hash`), number of moves, stored record (zstd bytes) and stored
/// main line.
pub struct StoredGame {
    /// `games.id`.
    pub id: i64,
    /// `games.hash`: the first 16 bytes of the BLAKE3 hash of the record.
    pub hash: Vec<u8>,
    /// `games.plies`.
    pub plies: i64,
    /// `games.record`, compressed.
    pub record: Vec<u8>,
    /// The main line's columns.
    pub moves: crate::model::StoredMoves,
}

/// Hands `each` every stored game in id order, one at a time (streamed:
/// memory does not grow with the archive); `each` returns `false` to
/// stop.
///
/// # Errors
/// Storage errors, and the first error of `each`.
pub fn each_game<E: From<Error>>(
    conn: Read<'_>,
    mut each: impl FnMut(StoredGame) -> Result<bool, E>,
) -> Result<(), E> {
    let mut relay = Relay::new();
    let out = conn.each(
        &format!(
            "SELECT id, hash, plies, record, {} FROM games ORDER BY id",
            crate::games::STORED_MOVES
        ),
        params![],
        |r: &Row<'_>| {
            let game = StoredGame {
                id: r.get(0)?,
                hash: r.get(1)?,
                plies: r.get(2)?,
                record: r.get(3)?,
                moves: crate::games::stored_moves_from(r, 4)?,
            };
            Ok(relay.go(each(game)))
        },
    );
    relay.finish(out)
}

/// A derived block's row without its bytes: (id, kind, first game, last
/// game, games, version), by kind and first game.
pub type BlockRow = (i64, String, i64, i64, i64, i64);

/// Every derived block's row ([`BlockRow`]).
///
/// # Errors
/// Storage errors.
pub fn blocks(conn: Read<'_>) -> Result<Vec<BlockRow>> {
    conn.query(
        "SELECT id, kind, first_game, last_game, games, version FROM derived_blocks \
         ORDER BY kind, first_game",
        params![],
        |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        },
    )
}

/// Every position segment's row without its bytes: (id, postings, nonce),
/// by id.
///
/// # Errors
/// Storage errors.
pub fn segments(conn: Read<'_>) -> Result<Vec<(i64, i64, Option<i64>)>> {
    conn.query(
        "SELECT id, postings, nonce FROM position_segments ORDER BY id",
        params![],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
}
