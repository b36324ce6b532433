//! The statements of `keil verify` (`crate::verify`): the engine's own
//! checks of its files, the counts worked out from the rows, every game's
//! stored record and moves streamed in id order, and the derived blocks'
//! rows. Reads only.

use super::sql::Conn;
use super::{Read, Row, params};
use crate::error::Result;

/// What the engine says is wrong with its files, one line a problem
/// (none: all is well). SQLite: `PRAGMA integrity_check` (its lines other
/// than `ok`) and `PRAGMA foreign_key_check` (a line a row whose parent
/// is missing); PostgreSQL checks its pages itself as it reads them (and
/// the games' streaming read below reads every game's row): nothing here.
///
/// # Errors
/// Storage errors.
pub(crate) fn engine_problems(conn: Read<'_>) -> Result<Vec<String>> {
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
pub(crate) fn counted(conn: Read<'_>) -> Result<Vec<(String, u64)>> {
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
pub(crate) fn kept(conn: Read<'_>) -> Result<Vec<(String, i64)>> {
    conn.query("SELECT name, n FROM counts", params![], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
}

/// One stored game as `keil verify` reads it: its id, record identity
/// (`games.hash`), number of moves, stored record (zstd bytes) and stored
/// main line.
pub(crate) struct StoredGame {
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
pub(crate) fn each_game(
    conn: Read<'_>,
    mut each: impl FnMut(StoredGame) -> Result<bool>,
) -> Result<()> {
    conn.each(
        &format!(
            "SELECT id, hash, plies, record, {} FROM games ORDER BY id",
            super::games::STORED_MOVES
        ),
        params![],
        |r: &Row<'_>| {
            each(StoredGame {
                id: r.get(0)?,
                hash: r.get(1)?,
                plies: r.get(2)?,
                record: r.get(3)?,
                moves: super::games::stored_moves_from(r, 4)?,
            })
        },
    )
}

/// A derived block's row without its bytes: (id, kind, first game, last
/// game, games, version), by kind and first game.
pub(crate) type BlockRow = (i64, String, i64, i64, i64, i64);

/// Every derived block's row ([`BlockRow`]).
///
/// # Errors
/// Storage errors.
pub(crate) fn blocks(conn: Read<'_>) -> Result<Vec<BlockRow>> {
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
pub(crate) fn segments(conn: Read<'_>) -> Result<Vec<(i64, i64, Option<i64>)>> {
    conn.query(
        "SELECT id, postings, nonce FROM position_segments ORDER BY id",
        params![],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
}

#[cfg(test)]
mod tests {
    //! Damage done to a store by hand, which `crate::verify` must name.

    use crate::archive::Archive;

    /// Runs `sql` on `archive`'s writer (a test's damage).
    fn damage(archive: &Archive, sql: &str) {
        archive
            .node
            .writer()
            .unwrap()
            .autocommit()
            .execute(sql, &[])
            .unwrap();
    }

    /// An archive of 12 generated Go games.
    fn filled() -> (tempfile::TempDir, Archive) {
        let dir = tempfile::tempdir().unwrap();
        let archive = Archive::open(dir.path()).unwrap();
        crate::archive::import_generated(
            &archive,
            keil_gen::GeneratorConfig {
                game: keil_rules::GameKind::Go,
                size: 9,
                games: 12,
                seed: 4,
                ..Default::default()
            },
        );
        (dir, archive)
    }

    #[test]
    fn a_sound_store_verifies() {
        let (_dir, archive) = filled();
        let report = archive.verify(&mut |_| {}).unwrap();
        assert!(report.is_sound(), "{:?}", report.problems);
        assert_eq!(report.games, 12);
        assert!(report.moves > 0 && report.blocks > 0 && report.segments > 0);
        assert_eq!(report.schema_version, crate::store::schema_version());
    }

    #[test]
    fn a_game_whose_moves_were_changed_is_named() {
        let (_dir, archive) = filled();
        // Game 1 gets game 2's moves: a record and its main line disagree.
        damage(
            &archive,
            "UPDATE games SET moves = (SELECT moves FROM games WHERE id = 2) WHERE id = 1",
        );
        let report = archive.verify(&mut |_| {}).unwrap();
        assert!(!report.is_sound());
        let named: Vec<_> = report
            .problems
            .iter()
            .filter(|p| p.check == crate::verify::Check::Moves)
            .map(|p| p.game)
            .collect();
        assert!(
            named.contains(&Some(crate::ids::GameId::from_sql(1))),
            "{report:?}"
        );
        assert!(
            report
                .problems
                .iter()
                .all(|p| p.game == Some(crate::ids::GameId::from_sql(1))),
            "{report:?}"
        );
        assert!(
            report.problems[0]
                .to_string()
                .starts_with("moves: game 1: ")
        );
    }

    #[test]
    fn a_changed_count_and_a_damaged_record_are_named() {
        let (_dir, archive) = filled();
        damage(&archive, "UPDATE counts SET n = n + 1 WHERE name = 'games'");
        damage(
            &archive,
            "UPDATE games SET record = X'00010203' WHERE id = 3",
        );
        let report = archive.verify(&mut |_| {}).unwrap();
        let shown: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
        assert!(
            shown.contains(&"counts: `games` is kept as 13, the rows are 12".to_string()),
            "{shown:?}"
        );
        assert!(
            report
                .problems
                .iter()
                .any(|p| p.check == crate::verify::Check::Record
                    && p.game == Some(crate::ids::GameId::from_sql(3))),
            "{shown:?}"
        );
    }

    #[test]
    fn a_damaged_pattern_block_and_position_segment_are_named() {
        let (_dir, archive) = filled();
        damage(&archive, "UPDATE derived_blocks SET data = X'28B52FFD00'");
        damage(
            &archive,
            "UPDATE position_segments SET postings = postings + 1",
        );
        let report = archive.verify(&mut |_| {}).unwrap();
        let checks: Vec<crate::verify::Check> = report.problems.iter().map(|p| p.check).collect();
        assert!(checks.contains(&crate::verify::Check::Blocks), "{report:?}");
        assert!(
            checks.contains(&crate::verify::Check::Segments),
            "{report:?}"
        );
    }

    #[test]
    fn the_counts_worked_out_match_the_kept_ones_on_a_sound_store() {
        let (_dir, archive) = filled();
        let read = archive.node.reader().unwrap();
        let mut counted = super::counted(read.read()).unwrap();
        let mut kept: Vec<(String, u64)> = super::kept(read.read())
            .unwrap()
            .into_iter()
            .filter(|(_, n)| *n != 0)
            .map(|(k, n)| (k, n as u64))
            .collect();
        counted.retain(|(_, n)| *n != 0);
        counted.sort();
        kept.sort();
        assert_eq!(counted, kept);
        assert!(super::engine_problems(read.read()).unwrap().is_empty());
    }
}
