//! The records of a game besides its own (`game_sources`: other sources'
//! records the merge rule proved to be the game) and the games that
//! resemble it (`game_links`): what a game's page and API answer list.

use crate::error::Result;
use crate::sql::Read;
use crate::sql::params;

/// Another source's record of a game, as stored.
pub struct SourceRow {
    /// `game_sources.id`.
    pub id: i64,
    /// The import that read it (`None` for an import since removed).
    pub import_id: Option<i64>,
    /// The file or archive member it was read from.
    pub source: String,
    /// The index of its game tree there (0-based).
    pub game_index: i64,
    /// `game_sources.merge_kind` (NULL: merged before schema 14, not
    /// checked yet).
    pub merge_kind: Option<String>,
    /// The symmetry (0–7) that maps its points onto the game's.
    pub transform: i64,
    /// The 1-based plies where its moves differ, comma-separated (`None`: none).
    pub differs: Option<String>,
    /// The record, compressed.
    pub record: Vec<u8>,
}

/// Game `game`'s other records, in the order they were stored.
pub fn of_game(r: Read<'_>, game: i64) -> Result<Vec<SourceRow>> {
    r.query(
        "SELECT id, import_id, source, game_index, merge_kind, transform, differs, record \
           FROM game_sources WHERE game_id = ? ORDER BY id",
        params![game],
        |row| {
            Ok(SourceRow {
                id: row.get(0)?,
                import_id: row.get(1)?,
                source: row.get(2)?,
                game_index: row.get(3)?,
                merge_kind: row.get(4)?,
                transform: row.get(5)?,
                differs: row.get(6)?,
                record: row.get(7)?,
            })
        },
    )
}

/// Where a game's own record came from: its import, source and tree index
/// (NULL source for games stored before schema 14).
pub type Origin = (Option<i64>, Option<String>, Option<i64>);

/// Where game `game`'s own record came from; `None` when no such game.
pub fn own(r: Read<'_>, game: i64) -> Result<Option<Origin>> {
    r.query_opt(
        "SELECT import_id, source, game_index FROM games WHERE id = ?",
        params![game],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )
}

/// The games linked to `game` (`game_links`): the other game's id, the
/// link's kind and transform, in id order.
pub fn links(r: Read<'_>, game: i64) -> Result<Vec<(i64, String, i64)>> {
    r.query(
        "SELECT CASE WHEN game_id = ?1 THEN other_id ELSE game_id END AS other, kind, transform \
           FROM game_links WHERE game_id = ?1 OR other_id = ?1 ORDER BY other",
        params![game],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )
}
