//! One batch of prepared games written in one transaction: games, people
//! and spellings, game rows per person, other sources' records (signature
//! duplicates), refusals, positions and the import log's counts.

use std::collections::HashMap;

use super::{Batch, Duplicates, Fate, GameOutcome, Item};
use crate::people::{Spelling, SpellingCache};
use crate::prepare::{Prepare, Prepared, Problem, TextFields};
use crate::store::{Sequences, Write, Writer, import as sql, removals};
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
    writer: &mut Writer,
    import_id: i64,
    batch: Batch,
    cache: &mut SpellingCache,
    duplicates: Duplicates,
    outcomes: Option<&mut Vec<GameOutcome>>,
) -> Result<Written> {
    // The outcomes of this batch, appended to `outcomes` once it commits.
    let mut these: Vec<GameOutcome> = Vec::new();
    let mut added_names = Vec::new();
    let written = writer.transaction(|tx| {
        write_in(
            tx,
            import_id,
            batch,
            cache,
            &mut added_names,
            duplicates,
            outcomes.is_some().then_some(&mut these),
        )
    });
    match written {
        Ok(out) => {
            if let Some(all) = outcomes {
                all.append(&mut these);
            }
            Ok(out)
        }
        Err(e) => {
            // The transaction rolled back: forget the names it added.
            cache.forget(added_names);
            Err(e)
        }
    }
}

/// [`write_batch`] inside its transaction.
fn write_in(
    tx: Write<'_>,
    import_id: i64,
    batch: Batch,
    cache: &mut SpellingCache,
    added_names: &mut Vec<String>,
    duplicates: Duplicates,
    mut these: Option<&mut Vec<GameOutcome>>,
) -> Result<Written> {
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
    let at = Sequences::read(tx.read())?;
    // Ids are given here, above every stored and removed game's (the
    // games sequence only grows: an id is never given twice).
    let mut next_id = at.games + 1;
    // Records are checked against the removals only when there are some
    // (two lookups a game otherwise spent on an empty log).
    let any_removed = at.removals > 0;
    let note = |these: &mut Option<&mut Vec<GameOutcome>>, fate, checked| {
        if let Some(these) = these {
            these.push(GameOutcome { fate, checked });
        }
    };
    for Item {
        source,
        index,
        prepared,
    } in batch.items
    {
        let (p, checked) = match prepared {
            Prepare::Invalid(p, checked) => {
                sql::insert_problem(tx, import_id, &p)?;
                note(&mut these, Fate::Invalid(p.clone()), checked);
                out.problems.push(p);
                continue;
            }
            Prepare::Valid(p, checked) => (p, checked),
        };
        let m = &p.meta;
        // Already stored: as a game, or as another source's record.
        if let Some(id) = sql::stored_as(tx.read(), &p.hash)? {
            out.duplicates += 1;
            let (source, id) = (source.to_string(), GameId::from_sql(id));
            note(&mut these, Fate::Duplicate { source, index, id }, checked);
            continue;
        }
        let signature = moves::signature(m.kind.code(), m.size, p.plies as usize, &p.moves);
        let same = signature
            .as_ref()
            .filter(|_| duplicates == Duplicates::Signature);
        let refused = if any_removed {
            removals::refusing(tx.read(), &p.hash, same.map(|s| &s[..]))?
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
            sql::insert_problem(tx, import_id, &refusal)?;
            note(&mut these, Fate::Invalid(refusal.clone()), checked);
            out.problems.push(refusal);
            continue;
        }
        if let Some(sig) = same
            && let Some(id) = sql::game_with_signature(tx.read(), sig)?
        {
            sql::link_source(tx, id, &p, import_id, &source, index)?;
            let (source, id) = (source.to_string(), GameId::from_sql(id));
            out.merged.push((source.clone(), index, id));
            note(&mut these, Fate::Merged { source, index, id }, checked);
            continue;
        }
        let mut spelling = |name: &Option<String>| -> Result<Option<Spelling>> {
            name.as_deref()
                .map(|n| cache.get(tx, added_names, n))
                .transpose()
        };
        let black = spelling(&m.black)?;
        let white = spelling(&m.white)?;
        let id = next_id;
        next_id += 1;
        sql::insert_game(
            tx,
            &sql::NewGame {
                id,
                import_id,
                black,
                white,
                prepared: &p,
                signature: signature.as_ref().map(|s| &s[..]),
            },
        )?;
        let fate = Fate::Stored {
            source: source.to_string(),
            index,
            id: GameId::from_sql(id),
        };
        note(&mut these, fate, checked);
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
    // The events' vocabulary (the event filter's substrings).
    let mut event_games: HashMap<&str, i64> = HashMap::new();
    for (_, p) in &stored {
        if let Some(e) = p.meta.event.as_deref().filter(|e| !e.is_empty()) {
            *event_games.entry(e).or_insert(0) += 1;
        }
    }
    sql::add_game_counts(tx, &spelling_games, &person_games, &event_games)?;
    let replays: Vec<(i64, &keil_record::Replay)> =
        stored.iter().map(|(id, p)| (*id, &p.replay)).collect();
    positions::index_games(tx, &replays)?;
    let patterns = stored
        .iter_mut()
        .map(|(id, p)| (*id, p.pattern.take()))
        .collect();
    crate::patterns::index_batch(tx, patterns)?;
    sql::count_batch(
        tx,
        import_id,
        [
            out.read,
            stored.len() as u64,
            out.duplicates,
            out.problems.len() as u64,
            out.merged.len() as u64,
        ],
    )?;
    out.new_games = stored
        .into_iter()
        .map(|(id, p)| (GameId::from_sql(id), p.text))
        .collect();
    Ok(out)
}
