//! Removal of games: the game's rows deleted and the removal
//! logged in one transaction (schema/0011_removals_blocks.sql), and the
//! log read back.

use crate::sql::params;
use crate::sql::{Read, Write};

use crate::error::Result;
use crate::ids::GameId;
use crate::model::Removal;

/// The removal that refuses a record: one of a game that had this
/// record identity (its own record or another source's). Returns when it
/// was removed and by whom. A record that only shares a removed game's
/// signature is not refused: a signature proves nothing (go-rules.md,
/// "Metadata").
pub fn refusing(tx: Read<'_>, hash: &[u8]) -> Result<Option<(String, String)>> {
    tx.query_opt(
        "SELECT r.removed_at, r.removed_by FROM removed_records x \
         JOIN removals r ON r.seq = x.removal WHERE x.hash = ?",
        params![hash],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Deletes game `id` and logs its removal; `None` when no such game is
/// stored. The players', people's and events' game counts follow; the
/// archive's counts follow through their triggers.
pub fn remove(
    tx: Write<'_>,
    id: GameId,
    removed_at: &str,
    removed_by: &str,
    reason: &str,
) -> Result<Option<Removal>> {
    let Some(game) = RemovedGame::read(tx, id)? else {
        return Ok(None);
    };
    let what = game.what();
    let seq: i64 = tx.value(
        "INSERT INTO removals (game_id, removed_at, removed_by, reason, what, signature) \
         VALUES (?,?,?,?,?,?) RETURNING seq",
        params![
            id.sql(),
            removed_at,
            removed_by,
            reason,
            what,
            game.signature
        ],
    )?;
    tx.execute(
        "INSERT INTO removed_records (hash, removal) VALUES (?, ?) ON CONFLICT DO NOTHING",
        params![game.hash, seq],
    )?;
    tx.execute(
        "INSERT INTO removed_records (hash, removal) \
         SELECT hash, CAST(? AS BIGINT) FROM game_sources WHERE game_id = ? \
         ON CONFLICT DO NOTHING",
        params![seq, id.sql()],
    )?;
    game.uncount(tx)?;
    tx.execute(
        "DELETE FROM game_links WHERE game_id = ?1 OR other_id = ?1",
        params![id.sql()],
    )?;
    for sql in [
        "DELETE FROM game_players WHERE game_id = ?",
        "DELETE FROM game_sources WHERE game_id = ?",
        "DELETE FROM games WHERE id = ?",
    ] {
        tx.execute(sql, params![id.sql()])?;
    }
    Ok(Some(Removal {
        seq: seq as u64,
        game_id: id,
        removed_at: removed_at.to_string(),
        removed_by: removed_by.to_string(),
        reason: reason.to_string(),
        what,
    }))
}

/// What a removal reads of its game before deleting it.
struct RemovedGame {
    hash: Vec<u8>,
    signature: Option<Vec<u8>>,
    /// The players' spellings and people.
    black: Option<i64>,
    white: Option<i64>,
    black_person: Option<i64>,
    white_person: Option<i64>,
    event: Option<String>,
    date: String,
    black_name: Option<String>,
    white_name: Option<String>,
}

impl RemovedGame {
    /// Game `id`'s row and its players' names; `None` when it is not
    /// stored.
    fn read(tx: Write<'_>, id: GameId) -> Result<Option<RemovedGame>> {
        tx.query_opt(
            "SELECT g.hash, g.signature, g.black_id, g.white_id, pb.person, pw.person, \
                    g.event, g.date, pb.name, pw.name \
               FROM games g LEFT JOIN players pb ON pb.id = g.black_id \
                            LEFT JOIN players pw ON pw.id = g.white_id \
              WHERE g.id = ?",
            params![id.sql()],
            |r| {
                Ok(RemovedGame {
                    hash: r.get(0)?,
                    signature: r.get(1)?,
                    black: r.get(2)?,
                    white: r.get(3)?,
                    black_person: r.get(4)?,
                    white_person: r.get(5)?,
                    event: r.get(6)?,
                    date: r.get(7)?,
                    black_name: r.get(8)?,
                    white_name: r.get(9)?,
                })
            },
        )
    }

    /// What the log says the game was: its players, date and event.
    fn what(&self) -> String {
        let mut what = format!(
            "{} vs {}",
            self.black_name.as_deref().unwrap_or("?"),
            self.white_name.as_deref().unwrap_or("?")
        );
        for part in [Some(self.date.as_str()), self.event.as_deref()]
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
        {
            what.push_str(", ");
            what.push_str(part);
        }
        what
    }

    /// Takes the game out of its spellings', people's and event's counts
    /// (its people then shown by the spelling most of their records use).
    fn uncount(&self, tx: Write<'_>) -> Result<()> {
        let mut spellings: Vec<i64> = self.black.into_iter().chain(self.white).collect();
        spellings.dedup();
        for s in spellings {
            tx.execute(
                "UPDATE players SET games = games - 1 WHERE id = ?",
                params![s],
            )?;
        }
        let mut people: Vec<i64> = self
            .black_person
            .into_iter()
            .chain(self.white_person)
            .collect();
        people.dedup();
        for &p in &people {
            tx.execute(
                "UPDATE people SET games = games - 1 WHERE id = ?",
                params![p],
            )?;
        }
        crate::people::names::refresh(tx, &people)?;
        if let Some(e) = self.event.as_deref().filter(|e| !e.is_empty()) {
            tx.execute(
                "UPDATE events SET games = games - 1 WHERE name = ?",
                params![e],
            )?;
            tx.execute(
                "DELETE FROM events WHERE name = ? AND games <= 0",
                params![e],
            )?;
        }
        Ok(())
    }
}

/// The removal log, latest first, at most `limit` entries.
pub fn log(conn: Read<'_>, limit: usize) -> Result<Vec<Removal>> {
    conn.query(
        "SELECT seq, game_id, removed_at, removed_by, reason, what FROM removals \
         ORDER BY seq DESC LIMIT ?",
        params![limit.min(i64::MAX as usize) as i64],
        |r| {
            Ok(Removal {
                seq: r.get::<i64>(0)? as u64,
                game_id: GameId::from_sql(r.get(1)?),
                removed_at: r.get(2)?,
                removed_by: r.get(3)?,
                reason: r.get(4)?,
                what: r.get(5)?,
            })
        },
    )
}

/// The removals with sequence numbers in `(after, upto]`, `(sequence,
/// game id)` in sequence order.
pub fn removed_between(conn: Read<'_>, after: i64, upto: i64) -> Result<Vec<(i64, i64)>> {
    conn.query(
        "SELECT seq, game_id FROM removals WHERE seq > ?1 AND seq <= ?2 ORDER BY seq",
        params![after, upto],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Every removed game's id, as the derived indexes hold ids (what a merge
/// of derived blocks leaves out).
pub fn removed_games(conn: Read<'_>) -> Result<std::collections::HashSet<u32>> {
    Ok(removed_between(conn, 0, i64::MAX)?
        .into_iter()
        .map(|(_, id)| id as u32)
        .collect())
}
