//! One batch of prepared games written in one transaction: games, people
//! and spellings, game rows per person, other sources' records (merges the
//! moves prove: `merge.rs`), links between similar games, refusals,
//! positions and the import log's counts.

use std::collections::HashMap;

use super::collection::Collections;
use super::merge::{self, Judgement, Shape};
use super::{Batch, Duplicates, Fate, GameOutcome, Item, Merge};
use crate::error::Result;
use crate::import::prepare::{Checked, Prepare, Prepared};
use crate::index::positions;
use crate::index::text::TextFields;
use crate::people::SpellingCache;
use keil_store::ids::GameId;
use keil_store::model::people::Spelling;
use keil_store::model::refused::Problem;
use keil_store::moves;
use keil_store::{Sequences, Write, Writer, import as sql, people as people_sql, removals};

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

/// The import a batch is written for: its id in the log and the
/// collections its games go to.
pub(super) struct Target<'a> {
    pub import_id: i64,
    pub collections: &'a mut Collections,
}

/// Writes `batch` in one transaction, after `before` (in the same
/// transaction: the merge repair unlinks the records it stores again); on
/// an error nothing of it is stored and the spellings and collections it
/// added are forgotten.
pub(super) fn write_batch(
    writer: &mut Writer,
    target: Target<'_>,
    batch: Batch,
    cache: &mut SpellingCache,
    duplicates: Duplicates,
    outcomes: Option<&mut Vec<GameOutcome>>,
    before: impl FnOnce(Write<'_>) -> Result<()>,
) -> Result<Written> {
    // The outcomes of this batch, appended to `outcomes` once it commits.
    let mut these: Vec<GameOutcome> = Vec::new();
    let mut added_names = Vec::new();
    let Target {
        import_id,
        collections,
    } = target;
    let written = writer.transaction(|tx| {
        before(tx)?;
        write_in(
            tx,
            Target {
                import_id,
                collections: &mut *collections,
            },
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
            // The transaction rolled back: forget the names and
            // collections it added.
            cache.forget(added_names);
            collections.forget();
            Err(e)
        }
    }
}

/// [`write_batch`] inside its transaction.
fn write_in(
    tx: Write<'_>,
    target: Target<'_>,
    batch: Batch,
    cache: &mut SpellingCache,
    added_names: &mut Vec<String>,
    duplicates: Duplicates,
    these: Option<&mut Vec<GameOutcome>>,
) -> Result<Written> {
    let signatures = signatures_of(&batch, duplicates);
    let mut w = BatchWrite::begin(tx, target, &batch, &signatures, cache, added_names, these)?;
    for (item, signature) in batch.items.into_iter().zip(signatures) {
        w.write_item(item, signature)?;
    }
    w.finish()
}

/// The signature of each of the batch's games when duplicates are found by
/// signature (`None` for the others).
fn signatures_of(batch: &Batch, duplicates: Duplicates) -> Vec<Option<[u8; 16]>> {
    batch
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
        .collect()
}

/// One batch's write inside its transaction: what it wrote so far, and
/// the lookups that make a record twice in one batch a duplicate too.
struct BatchWrite<'t, 'c> {
    tx: Write<'t>,
    import_id: i64,
    collections: &'c mut Collections,
    cache: &'c mut SpellingCache,
    added_names: &'c mut Vec<String>,
    these: Option<&'c mut Vec<GameOutcome>>,
    out: Written,
    /// The stored games: id, prepared game, spellings, signature.
    stored: Vec<StoredGame>,
    /// Games per spelling and per person in this batch.
    spelling_games: HashMap<i64, i64>,
    person_games: HashMap<i64, i64>,
    /// The next id to give: ids are given here, above every stored and
    /// removed game's (the games sequence only grows: an id is never given
    /// twice).
    next_id: i64,
    /// Records are checked against the removals only when there are some
    /// (two lookups a game otherwise spent on an empty log).
    any_removed: bool,
    /// The stored records and signatures, by hash and by signature.
    by_hash: HashMap<Vec<u8>, i64>,
    by_signature: HashMap<Vec<u8>, Vec<i64>>,
    /// The stored candidates as the merge rule reads them (the batch's own
    /// games are read from their prepared rows when a record meets them).
    shapes: HashMap<i64, Option<Shape>>,
}

impl<'t, 'c> BatchWrite<'t, 'c> {
    /// Reads what the batch meets in the store: its records and
    /// signatures already stored, in a few statements (not two a game),
    /// their candidates' shapes, and its players' spellings.
    fn begin(
        tx: Write<'t>,
        target: Target<'c>,
        batch: &Batch,
        signatures: &[Option<[u8; 16]>],
        cache: &'c mut SpellingCache,
        added_names: &'c mut Vec<String>,
        these: Option<&'c mut Vec<GameOutcome>>,
    ) -> Result<Self> {
        let at = Sequences::read(tx.read())?;
        let hashes: Vec<&[u8]> = batch
            .items
            .iter()
            .filter_map(|item| match &item.prepared {
                Prepare::Valid(p, _) => Some(&p.row.hash[..]),
                Prepare::Invalid(..) => None,
            })
            .collect();
        let sigs: Vec<&[u8]> = signatures.iter().flatten().map(|s| &s[..]).collect();
        let by_hash = sql::stored_as(tx.read(), &hashes)?;
        let by_signature = sql::with_signatures(tx.read(), &sigs)?;
        let mut ids: Vec<i64> = by_signature.values().flatten().copied().collect();
        ids.sort_unstable();
        ids.dedup();
        let shapes = sql::candidates(tx.read(), &ids)?
            .into_iter()
            .map(|row| (row.id, Shape::of_row(row)))
            .collect();
        cache.prefetch(
            tx,
            batch
                .items
                .iter()
                .flat_map(|item| match &item.prepared {
                    Prepare::Valid(p, _) => {
                        [p.row.meta.black.as_deref(), p.row.meta.white.as_deref()]
                    }
                    Prepare::Invalid(..) => [None, None],
                })
                .flatten(),
        )?;
        Ok(BatchWrite {
            tx,
            import_id: target.import_id,
            collections: target.collections,
            cache,
            added_names,
            these,
            out: Written {
                read: batch.items.len() as u64,
                new_games: Vec::new(),
                duplicates: 0,
                merged: Vec::new(),
                similar: 0,
                promoted: Vec::new(),
                problems: Vec::new(),
            },
            stored: Vec::new(),
            spelling_games: HashMap::new(),
            person_games: HashMap::new(),
            next_id: at.games + 1,
            any_removed: at.removals > 0,
            by_hash,
            by_signature,
            shapes,
        })
    }

    /// Keeps one game's outcome, when the outcomes are kept.
    fn note(&mut self, fate: Fate, checked: Checked) {
        if let Some(these) = &mut self.these {
            these.push(GameOutcome { fate, checked });
        }
    }

    /// Writes one item: a refusal, a duplicate, a record of a stored game,
    /// or a new game (with its links to similar games, and promoted over a
    /// shorter record of it).
    fn write_item(&mut self, item: Item, signature: Option<[u8; 16]>) -> Result<()> {
        let Item {
            source,
            index,
            prepared,
            kept,
        } = item;
        let (p, checked) = match prepared {
            Prepare::Invalid(p, checked) => {
                // The record as it came, kept once by its hash.
                keil_store::refused::insert(self.tx, self.import_id, &p, kept.as_deref())?;
                self.note(Fate::Invalid(p.clone()), checked);
                self.out.problems.push(p);
                return Ok(());
            }
            Prepare::Valid(p, checked) => (p, checked),
        };
        // Already stored: as a game, or as another source's record.
        if let Some(&id) = self.by_hash.get(&p.row.hash[..]) {
            self.out.duplicates += 1;
            let (source, id) = (source.to_string(), GameId::from_sql(id));
            self.note(Fate::Duplicate { source, index, id }, checked);
            return Ok(());
        }
        if let Some(refusal) = self.removed_refusal(&p, &source, index)? {
            self.note(Fate::Invalid(refusal.clone()), checked);
            self.out.problems.push(refusal);
            return Ok(());
        }
        let judged = self.judge(&p, signature.as_ref())?;
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
            if !longer {
                let link = sql::Link {
                    kind: kind.code(),
                    transform,
                    differs: &differs,
                };
                return self.link_record(&p, game, &link, kind, (&source, index), checked);
            }
            // The record is the longer of one game: it becomes the game,
            // the stored one its record (below).
            promoted = Some((game, transform));
        }
        let id = self.store_game(p, signature, &source, index, checked)?;
        for (other, transform) in judged.similar {
            flush(self.tx, self.import_id, &mut self.stored)?;
            sql::link_games(self.tx, id, other, SIMILAR, transform)?;
            self.out.similar += 1;
        }
        if let Some((shorter, transform)) = promoted {
            self.promote(shorter, id, transform)?;
        }
        Ok(())
    }

    /// The refusal of a record of a game the operator removed, logged;
    /// `None` for any other record.
    fn removed_refusal(
        &mut self,
        p: &Prepared,
        source: &str,
        index: usize,
    ) -> Result<Option<Problem>> {
        if !self.any_removed {
            return Ok(None);
        }
        let Some((at, by)) = removals::refusing(self.tx.read(), &p.row.hash)? else {
            return Ok(None);
        };
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
        sql::insert_problem(self.tx, self.import_id, &refusal)?;
        Ok(Some(refusal))
    }

    /// The games the signature proposes, judged by the moves and the game
    /// information: the first that is this game wins; those with the same
    /// moves and other game information are linked.
    fn judge(&mut self, p: &Prepared, signature: Option<&[u8; 16]>) -> Result<Judged> {
        let mut judged = Judged::default();
        let Some(ids) = signature.and_then(|s| self.by_signature.get(&s[..])) else {
            return Ok(judged);
        };
        let Some(record) = record_shape(self.tx, p)? else {
            return Ok(judged);
        };
        for &id in ids {
            if !self.shapes.contains_key(&id)
                && let Some(g) = self.stored.iter().find(|g| g.id == id)
            {
                self.shapes.insert(id, record_shape(self.tx, &g.prepared)?);
            }
            let Some(Some(game)) = self.shapes.get(&id) else {
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
        Ok(judged)
    }

    /// Keeps `p`'s record as another source's record of stored game `game`.
    fn link_record(
        &mut self,
        p: &Prepared,
        game: i64,
        link: &sql::Link<'_>,
        kind: keil_store::model::MergeKind,
        (source, index): (&str, usize),
        checked: Checked,
    ) -> Result<()> {
        if self.stored.iter().any(|g| g.id == game && !g.written) {
            // A game of this batch, not yet written: its row first.
            flush(self.tx, self.import_id, &mut self.stored)?;
        }
        sql::link_source(self.tx, game, &p.row, self.import_id, source, index, link)?;
        self.by_hash.insert(p.row.hash.to_vec(), game);
        let (source, id) = (source.to_string(), GameId::from_sql(game));
        self.out.merged.push(Merge {
            source: source.clone(),
            index,
            id,
            kind,
        });
        let fate = Fate::Merged {
            source,
            index,
            id,
            kind,
        };
        self.note(fate, checked);
        Ok(())
    }

    /// Gives a new game its id and its players' spellings; its row is
    /// written with the next flush. Returns the id.
    fn store_game(
        &mut self,
        p: Box<Prepared>,
        signature: Option<[u8; 16]>,
        source: &str,
        index: usize,
        checked: Checked,
    ) -> Result<i64> {
        let (tx, cache, added_names) = (self.tx, &mut *self.cache, &mut *self.added_names);
        let mut spelling = |name: &Option<String>| -> Result<Option<Spelling>> {
            name.as_deref()
                .map(|n| cache.get(tx, added_names, n))
                .transpose()
        };
        let black = spelling(&p.row.meta.black)?;
        let white = spelling(&p.row.meta.white)?;
        let collection = self.collections.id(tx, source)?;
        let id = self.next_id;
        self.next_id += 1;
        self.by_hash.insert(p.row.hash.to_vec(), id);
        if let Some(sig) = &signature {
            self.by_signature.entry(sig.to_vec()).or_default().push(id);
        }
        let fate = Fate::Stored {
            source: source.to_string(),
            index,
            id: GameId::from_sql(id),
        };
        self.note(fate, checked);
        let mut spellings: Vec<i64> = black.iter().chain(&white).map(|s| s.id).collect();
        spellings.dedup();
        for s in spellings {
            *self.spelling_games.entry(s).or_insert(0) += 1;
        }
        let mut people: Vec<i64> = black.iter().chain(&white).map(|s| s.person).collect();
        people.dedup();
        for s in people {
            *self.person_games.entry(s).or_insert(0) += 1;
        }
        self.stored.push(StoredGame {
            id,
            prepared: p,
            black,
            white,
            signature,
            source: source.to_string(),
            index,
            collection,
            written: false,
            removed: false,
        });
        Ok(id)
    }

    /// Makes new game `id` the game of the shorter stored record
    /// `shorter`, which becomes its record.
    fn promote(&mut self, shorter: i64, id: i64, transform: u8) -> Result<()> {
        flush(self.tx, self.import_id, &mut self.stored)?;
        promote(
            self.tx,
            self.import_id,
            &mut self.stored,
            shorter,
            id,
            transform,
        )?;
        for v in self.by_hash.values_mut() {
            if *v == shorter {
                *v = id;
            }
        }
        for ids in self.by_signature.values_mut() {
            ids.retain(|&g| g != shorter);
        }
        self.out.promoted.push(GameId::from_sql(shorter));
        Ok(())
    }

    /// Writes what is left of the batch: the new games' rows, the counts
    /// per spelling, person and event, the position and pattern indexes'
    /// rows, and the import log's counts.
    fn finish(mut self) -> Result<Written> {
        let tx = self.tx;
        self.stored.retain(|g| !g.removed);
        flush(tx, self.import_id, &mut self.stored)?;
        // The events' vocabulary (the event filter's substrings).
        let mut event_games: HashMap<&str, i64> = HashMap::new();
        for g in &self.stored {
            if let Some(e) = g.prepared.row.meta.event_name() {
                *event_games.entry(e).or_insert(0) += 1;
            }
        }
        sql::add_game_counts(tx, &self.spelling_games, &self.person_games, &event_games)?;
        let replays: Vec<(i64, &keil_record::Replay)> = self
            .stored
            .iter()
            .map(|g| (g.id, &g.prepared.replay))
            .collect();
        positions::index_games(tx, &replays)?;
        let patterns = self
            .stored
            .iter_mut()
            .map(|g| (g.id, g.prepared.pattern.take()))
            .collect();
        crate::index::patterns::index_batch(tx, patterns)?;
        let mut out = self.out;
        let counts = sql::BatchCounts {
            read: out.read,
            imported: self.stored.len() as u64,
            duplicates: out.duplicates,
            invalid: out.problems.len() as u64,
            merged: out.merged.len() as u64,
        };
        sql::count_batch(tx, self.import_id, &counts)?;
        out.new_games = self
            .stored
            .into_iter()
            .map(|g| (GameId::from_sql(g.id), g.prepared.text))
            .collect();
        Ok(out)
    }
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
    /// Its collection (`collections.id`).
    collection: i64,
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
            collection: g.collection,
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
        if let Some(e) = g.prepared.row.meta.event_name() {
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
        &keil_store::model::now(),
        &format!("import {import_id}"),
        &format!("merged into game {longer}: a longer record of the same game"),
    )?;
    Ok(())
}
