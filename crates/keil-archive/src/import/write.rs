//! One batch of prepared games written in one transaction: games, people
//! and spellings, game rows per person, other sources' records (merges the
//! moves prove: `merge.rs`), links between similar games, refusals,
//! positions and the import log's counts.

use std::collections::HashMap;

use super::merge::{self, Judgement, Shape};
use super::{Batch, Duplicates, Fate, GameOutcome, Item, Merge};
use crate::error::Result;
use crate::ids::GameId;
use crate::import::prepare::{Prepare, Prepared};
use crate::index::positions;
use crate::index::text::TextFields;
use crate::model::people::Spelling;
use crate::model::refused::Problem;
use crate::moves;
use crate::people::SpellingCache;
use crate::store::{Sequences, Write, Writer, import as sql, people as people_sql, removals};

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
    pub merged: Vec<Merge>,
    /// Games linked as similar to a stored game.
    pub similar: u64,
    /// Stored games that a longer record of them replaced ([`promote`]).
    pub promoted: Vec<GameId>,
    pub problems: Vec<Problem>,
}

/// Writes `batch` in one transaction, after `before` (in the same
/// transaction: the merge repair unlinks the records it stores again); on
/// an error nothing of it is stored and the spellings it added are
/// forgotten.
pub(super) fn write_batch(
    writer: &mut Writer,
    import_id: i64,
    batch: Batch,
    cache: &mut SpellingCache,
    duplicates: Duplicates,
    outcomes: Option<&mut Vec<GameOutcome>>,
    before: impl FnOnce(Write<'_>) -> Result<()>,
) -> Result<Written> {
    // The outcomes of this batch, appended to `outcomes` once it commits.
    let mut these: Vec<GameOutcome> = Vec::new();
    let mut added_names = Vec::new();
    let written = writer.transaction(|tx| {
        before(tx)?;
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
        similar: 0,
        promoted: Vec::new(),
        problems: Vec::new(),
    };
    // The stored games: id, prepared game, spellings, signature.
    let mut stored: Vec<StoredGame> = Vec::new();
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
    // The batch's records and signatures already stored, read in a few
    // statements (not two a game); the maps then learn what the batch
    // stores, so that a record twice in one batch is a duplicate too.
    let signatures: Vec<Option<[u8; 16]>> = batch
        .items
        .iter()
        .map(|item| match &item.prepared {
            Prepare::Valid(p, _) if duplicates == Duplicates::Signature => moves::signature(
                p.row.meta.kind.code(),
                p.row.meta.size,
                p.row.plies as usize,
                &p.row.moves,
            ),
            _ => None,
        })
        .collect();
    let (mut by_hash, mut by_signature) = {
        let hashes: Vec<&[u8]> = batch
            .items
            .iter()
            .filter_map(|item| match &item.prepared {
                Prepare::Valid(p, _) => Some(&p.row.hash[..]),
                Prepare::Invalid(..) => None,
            })
            .collect();
        let sigs: Vec<&[u8]> = signatures.iter().flatten().map(|s| &s[..]).collect();
        (
            sql::stored_as(tx.read(), &hashes)?,
            sql::with_signatures(tx.read(), &sigs)?,
        )
    };
    // The stored candidates as the merge rule reads them (the batch's own
    // games are read from their prepared rows when a record meets them).
    let mut shapes: HashMap<i64, Option<Shape>> = {
        let mut ids: Vec<i64> = by_signature.values().flatten().copied().collect();
        ids.sort_unstable();
        ids.dedup();
        sql::candidates(tx.read(), &ids)?
            .into_iter()
            .map(|row| (row.id, Shape::of_row(row)))
            .collect()
    };
    cache.prefetch(
        tx,
        batch
            .items
            .iter()
            .flat_map(|item| match &item.prepared {
                Prepare::Valid(p, _) => [p.row.meta.black.as_deref(), p.row.meta.white.as_deref()],
                Prepare::Invalid(..) => [None, None],
            })
            .flatten(),
    )?;
    for (
        Item {
            source,
            index,
            prepared,
            kept,
        },
        signature,
    ) in batch.items.into_iter().zip(signatures)
    {
        let (p, checked) = match prepared {
            Prepare::Invalid(p, checked) => {
                // The record as it came, kept once by its hash.
                crate::store::refused::insert(tx, import_id, &p, kept.as_deref())?;
                note(&mut these, Fate::Invalid(p.clone()), checked);
                out.problems.push(p);
                continue;
            }
            Prepare::Valid(p, checked) => (p, checked),
        };
        let m = &p.row.meta;
        // Already stored: as a game, or as another source's record.
        if let Some(&id) = by_hash.get(&p.row.hash[..]) {
            out.duplicates += 1;
            let (source, id) = (source.to_string(), GameId::from_sql(id));
            note(&mut these, Fate::Duplicate { source, index, id }, checked);
            continue;
        }
        let refused = if any_removed {
            removals::refusing(tx.read(), &p.row.hash)?
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
        // The games the signature proposes, judged by the moves and the
        // game information: the first that is this game wins; those with
        // the same moves and other game information are linked.
        let mut judged = Judged::default();
        if let Some(ids) = signature.as_ref().and_then(|s| by_signature.get(&s[..]))
            && let Some(record) = record_shape(tx, &p)?
        {
            for &id in ids {
                if !shapes.contains_key(&id)
                    && let Some(g) = stored.iter().find(|g| g.id == id)
                {
                    shapes.insert(id, record_shape(tx, &g.prepared)?);
                }
                let Some(Some(game)) = shapes.get(&id) else {
                    continue;
                };
                match merge::judge(&record, game) {
                    Judgement::Other => {}
                    Judgement::Similar { transform } => judged.similar.push((id, transform)),
                    same => {
                        judged.same = Some((id, same));
                        break;
                    }
                }
            }
        }
        let mut promoted = None;
        if let Some((game, same)) = judged.same {
            let Judgement::Same {
                kind,
                transform,
                differs,
                longer,
            } = same
            else {
                unreachable!("only a Same judgement is kept");
            };
            if longer {
                // The record is the longer of one game: it becomes the
                // game, the stored one its record (below).
                promoted = Some((game, transform));
            } else {
                if stored.iter().any(|g| g.id == game && !g.written) {
                    // A game of this batch, not yet written: its row first.
                    flush(tx, import_id, &mut stored)?;
                }
                let link = sql::Link {
                    kind: kind.code(),
                    transform,
                    differs: &differs,
                };
                sql::link_source(tx, game, &p.row, import_id, &source, index, &link)?;
                by_hash.insert(p.row.hash.to_vec(), game);
                let (source, id) = (source.to_string(), GameId::from_sql(game));
                out.merged.push(Merge {
                    source: source.clone(),
                    index,
                    id,
                    kind,
                });
                note(
                    &mut these,
                    Fate::Merged {
                        source,
                        index,
                        id,
                        kind,
                    },
                    checked,
                );
                continue;
            }
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
        by_hash.insert(p.row.hash.to_vec(), id);
        if let Some(sig) = &signature {
            by_signature.entry(sig.to_vec()).or_default().push(id);
        }
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
        stored.push(StoredGame {
            id,
            prepared: p,
            black,
            white,
            signature,
            source: source.to_string(),
            index,
            written: false,
            removed: false,
        });
        for (other, transform) in judged.similar {
            flush(tx, import_id, &mut stored)?;
            sql::link_games(tx, id, other, SIMILAR, transform)?;
            out.similar += 1;
        }
        if let Some((shorter, transform)) = promoted {
            flush(tx, import_id, &mut stored)?;
            promote(tx, import_id, &mut stored, shorter, id, transform)?;
            for v in by_hash.values_mut() {
                if *v == shorter {
                    *v = id;
                }
            }
            for ids in by_signature.values_mut() {
                ids.retain(|&g| g != shorter);
            }
            out.promoted.push(GameId::from_sql(shorter));
        }
    }
    stored.retain(|g| !g.removed);
    flush(tx, import_id, &mut stored)?;
    // The events' vocabulary (the event filter's substrings).
    let mut event_games: HashMap<&str, i64> = HashMap::new();
    for g in &stored {
        if let Some(e) = g
            .prepared
            .row
            .meta
            .event
            .as_deref()
            .filter(|e| !e.is_empty())
        {
            *event_games.entry(e).or_insert(0) += 1;
        }
    }
    sql::add_game_counts(tx, &spelling_games, &person_games, &event_games)?;
    let replays: Vec<(i64, &keil_record::Replay)> =
        stored.iter().map(|g| (g.id, &g.prepared.replay)).collect();
    positions::index_games(tx, &replays)?;
    let patterns = stored
        .iter_mut()
        .map(|g| (g.id, g.prepared.pattern.take()))
        .collect();
    crate::index::patterns::index_batch(tx, patterns)?;
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
        .map(|g| (GameId::from_sql(g.id), g.prepared.text))
        .collect();
    Ok(out)
}

/// A game the batch stores, until its rows are written.
struct StoredGame {
    id: i64,
    prepared: Box<Prepared>,
    black: Option<Spelling>,
    white: Option<Spelling>,
    signature: Option<[u8; 16]>,
    /// Where its record came from: the source's name and the tree's index.
    source: String,
    index: usize,
    /// Whether its rows are written ([`flush`]).
    written: bool,
    /// Whether a longer record of it, later in the batch, took its place
    /// ([`promote`]): its rows are gone, its indexes are not written.
    removed: bool,
}

/// Writes the rows of the stored games not written yet, in one bulk
/// insert per table.
fn flush(tx: Write<'_>, import_id: i64, stored: &mut [StoredGame]) -> Result<()> {
    let rows: Vec<sql::NewGame<'_>> = stored
        .iter()
        .filter(|g| !g.written)
        .map(|g| sql::NewGame {
            id: g.id,
            import_id,
            black: g.black,
            white: g.white,
            row: &g.prepared.row,
            signature: g.signature.as_ref().map(|s| &s[..]),
            source: &g.source,
            index: g.index,
        })
        .collect();
    sql::insert_games(tx, &rows)?;
    for g in stored.iter_mut() {
        g.written = true;
    }
    Ok(())
}

/// The link kind of games with the same moves and other game information
/// (`game_links.kind`).
pub(crate) const SIMILAR: &str = "similar";

/// What the merge rule said of one record against the games its signature
/// proposed.
#[derive(Default)]
struct Judged {
    /// The game it is, with the proof.
    same: Option<(i64, Judgement)>,
    /// Games with the same moves and other game information, with the
    /// symmetry that maps the record's points onto theirs.
    similar: Vec<(i64, u8)>,
}

/// A prepared game as the merge rule reads it: its players' person keys
/// read inside the batch's transaction. `None` when its moves do not read
/// back.
pub(super) fn record_shape(tx: Write<'_>, p: &Prepared) -> Result<Option<Shape>> {
    let key = |name: &Option<String>| {
        name.as_deref()
            .map(|n| people_sql::resolved_key_of(tx.read(), n))
            .transpose()
    };
    let (black, white) = (key(&p.row.meta.black)?, key(&p.row.meta.white)?);
    Ok(Shape::read(
        p.row.meta.kind,
        p.row.meta.size,
        p.row.setup.as_deref(),
        &p.row.moves,
        p.row.meta.date_raw.as_deref(),
        black,
        white,
    ))
}

/// Makes the new game `longer` the game that stored game `shorter`'s
/// moves begin (go-rules.md, "Metadata": the longer record is kept as the
/// game): `shorter`'s records become `longer`'s ([`sql::absorb`]; its own
/// points mapped onto `longer`'s by the inverse of `transform`, which maps
/// `longer`'s onto `shorter`'s), then `shorter` is removed with a removal
/// that names `longer`, so that every derived index drops it as it drops
/// a removed game. A `shorter` stored by this batch has its event counted
/// first (the removal takes it back) and none of its indexes written.
fn promote(
    tx: Write<'_>,
    import_id: i64,
    stored: &mut [StoredGame],
    shorter: i64,
    longer: i64,
    transform: u8,
) -> Result<()> {
    let board = stored.iter().find(|g| g.id == longer).and_then(|g| {
        keil_rules::BoardSpec::new(g.prepared.row.meta.kind, g.prepared.row.meta.size)
            .ok()?
            .board()
            .ok()
    });
    let Some(board) = board else {
        return Ok(());
    };
    let inverse = (0..board.symmetry_count())
        .find(|&t| board.compose(transform, t) == 0)
        .unwrap_or(0);
    if let Some(g) = stored.iter_mut().find(|g| g.id == shorter) {
        if let Some(e) = g
            .prepared
            .row
            .meta
            .event
            .as_deref()
            .filter(|e| !e.is_empty())
        {
            let events = HashMap::from([(e, 1)]);
            sql::add_game_counts(tx, &HashMap::new(), &HashMap::new(), &events)?;
        }
        g.removed = true;
    }
    sql::absorb(tx, shorter, longer, inverse, |theirs| {
        board.compose(theirs, inverse)
    })?;
    removals::remove(
        tx,
        GameId::from_sql(shorter),
        &crate::model::now(),
        &format!("import {import_id}"),
        &format!("merged into game {longer}: a longer record of the same game"),
    )?;
    Ok(())
}
