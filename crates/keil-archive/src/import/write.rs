//! One batch of prepared games written in one transaction: games, people
//! and spellings, game rows per person, other sources' records (signature
//! duplicates), refusals, positions and the import log's counts.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};

use super::{Batch, Duplicates, Fate, GameOutcome, Item};
use crate::people::{Spelling, SpellingCache};
use crate::prepare::{Prepare, Prepared, Problem, TextFields};
use crate::store::removals;
use crate::{GameId, Result, moves, positions};

/// The refusal reason of a record whose game the operator removed
/// ([`crate::Archive::remove`]).
pub const REMOVED: &str = "removed";

/// What one batch wrote.
pub(super) struct Written {
    pub read: u64,
    pub new_games: Vec<(GameId, TextFields)>,
    pub duplicates: u64,
    /// Records linked to a stored game as another source's record: the
    /// source, the tree's index, the game.
    pub merged: Vec<(String, usize, GameId)>,
    pub problems: Vec<Problem>,
}

/// Writes `batch` in one transaction; on an error nothing of it is stored
/// and the spellings it added are forgotten.
pub(super) fn write_batch(
    conn: &mut rusqlite::Connection,
    import_id: i64,
    batch: Batch,
    cache: &mut SpellingCache,
    duplicates: Duplicates,
    outcomes: Option<&mut Vec<GameOutcome>>,
) -> Result<Written> {
    let tx = conn.transaction()?;
    // The outcomes of this batch, appended to `outcomes` once it commits.
    let mut these: Vec<GameOutcome> = Vec::new();
    let want = outcomes.is_some();
    let mut added_names = Vec::new();
    let mut out = Written {
        read: batch.items.len() as u64,
        new_games: Vec::new(),
        duplicates: 0,
        merged: Vec::new(),
        problems: Vec::new(),
    };
    let mut stored: Vec<(i64, Box<Prepared>)> = Vec::new();
    // Games per spelling and per person in this batch.
    let mut spelling_games: HashMap<i64, i64> = HashMap::new();
    let mut person_games: HashMap<i64, i64> = HashMap::new();
    let result = (|| -> Result<()> {
        let mut insert = tx.prepare_cached(
            "INSERT INTO games (id, hash, import_id, black_id, white_id, black_rank, white_rank, \
             date_raw, date, event, round, place, game_name, result, winner, margin, status, \
             kind, size, ruleset, komi, plies, setup, moves, record, handicap, move_nodes, \
             black_rank_ord, white_rank_ord, signature) \
             VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(hash) DO NOTHING",
        )?;
        let mut side = tx.prepare_cached(
            "INSERT INTO game_players (player_id, date, game_id, color, opponent_id, won) \
             VALUES (?,?,?,?,?,?)",
        )?;
        let mut problem = tx.prepare_cached(
            "INSERT INTO import_problems (import_id, source, game_index, reason, message, ply, \
             line, col) VALUES (?,?,?,?,?,?,?,?)",
        )?;
        let mut stored_as = tx.prepare_cached("SELECT id FROM games WHERE hash = ?")?;
        let mut source_of = tx.prepare_cached("SELECT game_id FROM game_sources WHERE hash = ?")?;
        let mut same_game =
            tx.prepare_cached("SELECT id FROM games WHERE signature = ? LIMIT 1")?;
        // Ids are given here, above every stored and removed game's.
        let mut next_id = removals::next_game_id(&tx)?;
        // Records are checked against the removals only when there are
        // some (two lookups a game otherwise spent on an empty log).
        let any_removed = crate::store::Sequences::read(&tx)?.removals > 0;
        let mut link = tx.prepare_cached(
            "INSERT INTO game_sources (game_id, hash, import_id, source, game_index, record) \
             VALUES (?,?,?,?,?,?)",
        )?;
        for Item {
            source,
            index,
            prepared,
        } in batch.items
        {
            let mut refuse = |p: Problem, checked| -> Result<()> {
                problem.execute(params![
                    import_id,
                    p.source,
                    p.index as i64,
                    p.reason,
                    p.message,
                    p.ply,
                    p.line,
                    p.column
                ])?;
                if want {
                    these.push(GameOutcome {
                        fate: Fate::Invalid(p.clone()),
                        checked,
                    });
                }
                out.problems.push(p);
                Ok(())
            };
            let (p, checked) = match prepared {
                Prepare::Invalid(p, checked) => {
                    refuse(p, checked)?;
                    continue;
                }
                Prepare::Valid(p, checked) => (p, checked),
            };
            let m = &p.meta;
            // Already stored: as a game, or as another source's record.
            let known: Option<i64> = match stored_as
                .query_row([&p.hash[..]], |r| r.get(0))
                .optional()?
            {
                Some(id) => Some(id),
                None => source_of
                    .query_row([&p.hash[..]], |r| r.get(0))
                    .optional()?,
            };
            if let Some(id) = known {
                out.duplicates += 1;
                if want {
                    these.push(GameOutcome {
                        fate: Fate::Duplicate {
                            source: source.to_string(),
                            index,
                            id: GameId::from_sql(id),
                        },
                        checked,
                    });
                }
                continue;
            }
            let signature = moves::signature(m.kind.code(), m.size, p.plies as usize, &p.moves);
            let same = signature
                .as_ref()
                .filter(|_| duplicates == Duplicates::Signature);
            let refused = if any_removed {
                removals::refusing(&tx, &p.hash, same.map(|s| &s[..]))?
            } else {
                None
            };
            if let Some((at, by)) = refused {
                let refusal = Problem {
                    source: source.to_string(),
                    index,
                    reason: REMOVED.into(),
                    message: format!(
                        "this game was removed from the archive by {by} at {at}; \
                         ask the archive's operator if it should come back"
                    ),
                    ply: None,
                    mv: None,
                    line: None,
                    column: None,
                };
                refuse(refusal, checked)?;
                continue;
            }
            if duplicates == Duplicates::Signature
                && let Some(sig) = &signature
                && let Some(id) = same_game
                    .query_row([&sig[..]], |r| r.get::<_, i64>(0))
                    .optional()?
            {
                link.execute(params![
                    id,
                    &p.hash[..],
                    import_id,
                    &*source,
                    index as i64,
                    p.record
                ])?;
                out.merged
                    .push((source.to_string(), index, GameId::from_sql(id)));
                if want {
                    these.push(GameOutcome {
                        fate: Fate::Merged {
                            source: source.to_string(),
                            index,
                            id: GameId::from_sql(id),
                        },
                        checked,
                    });
                }
                continue;
            }
            let mut spelling = |name: &Option<String>| -> Result<Option<Spelling>> {
                name.as_deref()
                    .map(|n| cache.get(&tx, &mut added_names, n))
                    .transpose()
            };
            let black = spelling(&m.black)?;
            let white = spelling(&m.white)?;
            let id = next_id;
            next_id += 1;
            insert.execute(params![
                id,
                &p.hash[..],
                import_id,
                black.map(|s| s.id),
                white.map(|s| s.id),
                m.black_rank,
                m.white_rank,
                m.date_raw,
                m.date,
                m.event,
                m.round,
                m.place,
                m.game_name,
                m.result,
                m.winner.map(|c| c.index() as i64),
                m.margin.map(|h| i64::from(h.0)),
                p.status.code(),
                m.kind.code(),
                i64::from(m.size),
                m.ruleset,
                i64::from(m.komi.0),
                i64::from(p.plies),
                p.setup,
                p.moves,
                p.record,
                i64::from(m.handicap),
                p.move_nodes,
                m.black_rank_ord.map(|r| i64::from(r.ordinal())),
                m.white_rank_ord.map(|r| i64::from(r.ordinal())),
                signature.as_ref().map(|s| &s[..]),
            ])?;
            if want {
                these.push(GameOutcome {
                    fate: Fate::Stored {
                        source: source.to_string(),
                        index,
                        id: GameId::from_sql(id),
                    },
                    checked,
                });
            }
            // A game against oneself is neither won nor lost.
            let self_play = matches!((black, white), (Some(b), Some(w)) if b.person == w.person);
            for (color, me, other) in [(0i64, black, white), (1, white, black)] {
                if let Some(me) = me {
                    let won = m
                        .winner
                        .filter(|_| !self_play)
                        .map(|w| i64::from(w.index() as i64 == color));
                    side.execute(params![
                        me.person,
                        m.date,
                        id,
                        color,
                        other.map(|o| o.person),
                        won
                    ])?;
                }
            }
            let mut spellings: Vec<i64> = black.iter().chain(&white).map(|s| s.id).collect();
            spellings.dedup();
            for s in spellings {
                *spelling_games.entry(s).or_insert(0) += 1;
            }
            let mut people: Vec<i64> = black.iter().chain(&white).map(|s| s.person).collect();
            people.dedup();
            for s in people {
                *person_games.entry(s).or_insert(0) += 1;
            }
            stored.push((id, p));
        }
        let mut count = tx.prepare_cached("UPDATE players SET games = games + ? WHERE id = ?")?;
        for (spelling, n) in &spelling_games {
            count.execute(params![n, spelling])?;
        }
        let mut count = tx.prepare_cached("UPDATE people SET games = games + ? WHERE id = ?")?;
        for (person, n) in &person_games {
            count.execute(params![n, person])?;
        }
        // The events' vocabulary (the event filter's substrings).
        let mut event_games: HashMap<&str, i64> = HashMap::new();
        for (_, p) in &stored {
            if let Some(e) = p.meta.event.as_deref().filter(|e| !e.is_empty()) {
                *event_games.entry(e).or_insert(0) += 1;
            }
        }
        let mut event = tx.prepare_cached(
            "INSERT INTO events (name, folded, games) VALUES (?1, ?2, ?3) \
             ON CONFLICT(name) DO UPDATE SET games = games + ?3",
        )?;
        for (name, n) in &event_games {
            event.execute(params![name, crate::fold(name), n])?;
        }
        let replays: Vec<(i64, &keil_record::Replay)> =
            stored.iter().map(|(id, p)| (*id, &p.replay)).collect();
        positions::index_games(&tx, &replays)?;
        let patterns = stored
            .iter_mut()
            .map(|(id, p)| (*id, p.pattern.take()))
            .collect();
        crate::patterns::index_batch(&tx, patterns)?;
        Ok(())
    })();
    match result {
        Ok(()) => {
            tx.execute(
                "UPDATE imports SET games_read = games_read + ?, imported = imported + ?, \
                 duplicates = duplicates + ?, invalid = invalid + ?, merged = merged + ? \
                 WHERE id = ?",
                params![
                    out.read as i64,
                    stored.len() as i64,
                    out.duplicates as i64,
                    out.problems.len() as i64,
                    out.merged.len() as i64,
                    import_id
                ],
            )?;
            tx.commit()?;
            if let Some(all) = outcomes {
                all.append(&mut these);
            }
            out.new_games = stored
                .into_iter()
                .map(|(id, p)| (GameId::from_sql(id), p.text))
                .collect();
            Ok(out)
        }
        Err(e) => {
            // The transaction rolls back on drop: forget the names it added.
            cache.forget(added_names);
            Err(e)
        }
    }
}
