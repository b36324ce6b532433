//! Refused records, kept (issue 47): a record the import refuses (an
//! illegal move, a record that does not read, a board the archive does
//! not hold) is kept as it came, with its verdict, in its
//! `import_problems` row (schema 14; the SQL in `store/refused.rs`).
//! Real collections keep illegal games on purpose (an unnoticed illegal
//! ko in a title match), so the archive keeps them too, apart from the
//! games: never in the position, pattern or text indexes.
//!
//! The same refused record (the same text, by its hash) is kept once: a
//! later import of it logs the refusal again, with the hash and without a
//! second copy of the text. [`Archive::reindex`] checks every kept record
//! again with today's rules; one that is valid now becomes a game
//! ([`revalidate`]).

use std::sync::Arc;

use crate::archive::Archive;
use crate::error::Result;
use crate::ids::GameId;
use crate::import::Fate;
use crate::import::{GameOutcome, Item};
use crate::model::ImportProgress;
use crate::prepare::{Prepare, prepare};
use crate::store::{Writer, import as log, refused as sql};
use keil_rules::Move;

pub use crate::ids::RefusedId;
pub use crate::model::refused::{
    MAX_REFUSED_PAGE, RefusedFilter, RefusedLine, RefusedOrder, RefusedPage, RefusedRecord,
    RefusedSummary,
};

/// Decompresses a kept record's text.
///
/// # Errors
/// A storage error for a text that does not decompress or is not UTF-8.
fn text_of(blob: &[u8]) -> Result<String> {
    let bytes = zstd::stream::decode_all(blob)
        .map_err(|e| crate::error::storage_error("refused record", e))?;
    String::from_utf8(bytes).map_err(|e| crate::error::storage_error("refused record", e))
}

impl Archive {
    /// One page of the kept refused records that pass `filter`, at most
    /// `limit` (1..=[`MAX_REFUSED_PAGE`]; other values are clamped).
    ///
    /// # Errors
    /// Storage errors.
    pub fn refused_list(&self, filter: &RefusedFilter, limit: usize) -> Result<RefusedPage> {
        let limit = limit.clamp(1, MAX_REFUSED_PAGE);
        let conn = self.reader()?;
        let mut items = sql::list(conn.read(), filter, limit + 1)?;
        let next = (items.len() > limit).then(|| {
            items.truncate(limit);
            items[limit - 1].id
        });
        Ok(RefusedPage { items, next })
    }

    /// Kept refused record `id` with its text; `None` when no record is
    /// kept under that id (a refusal without a record, one removed, or
    /// none at all).
    ///
    /// # Errors
    /// Storage errors; a storage error for a kept text that does not
    /// decompress.
    pub fn refused_record(&self, id: RefusedId) -> Result<Option<RefusedRecord>> {
        let conn = self.reader()?;
        sql::get(conn.read(), id)?
            .map(|(summary, blob)| {
                Ok(RefusedRecord {
                    record: text_of(&blob)?,
                    summary,
                })
            })
            .transpose()
    }

    /// Kept refused record `id` with its main line replayed up to the
    /// refused move ([`RefusedLine`]); the line is `None` when the record
    /// does not read as one game or has no board to replay (a board the
    /// archive does not hold). `None` when no record is kept under `id`.
    ///
    /// # Errors
    /// As [`Archive::refused_record`].
    pub fn refused_line(
        &self,
        id: RefusedId,
    ) -> Result<Option<(RefusedRecord, Option<RefusedLine>)>> {
        Ok(self.refused_record(id)?.map(|r| {
            let line = line_of(id, &r.record, &r.summary.source);
            (r, line)
        }))
    }

    /// The number of kept refused records ([`crate::Stats::refused_records`]).
    ///
    /// # Errors
    /// Storage errors.
    pub fn refused_records(&self) -> Result<u64> {
        sql::count(self.reader()?.read())
    }

    /// Hands `each` every kept refused record in id order with its text as
    /// it came; `each` returns false to stop. Returns how many were
    /// handed over.
    ///
    /// # Errors
    /// Storage errors; a text that does not decompress; the first error
    /// of `each`.
    pub fn export_refused(
        &self,
        each: &mut dyn FnMut(&RefusedSummary, &str) -> Result<bool>,
    ) -> Result<u64> {
        let conn = self.reader()?;
        let mut n = 0;
        sql::each(conn.read(), &mut |summary, blob| {
            let text = text_of(&blob)?;
            n += 1;
            each(&summary, &text)
        })?;
        Ok(n)
    }

    /// Removes kept refused record `id`: its text goes, its refusal stays
    /// in the import log (a later import of the same record keeps it
    /// again). Returns false when no record is kept under that id.
    ///
    /// # Errors
    /// [`crate::Error::ReadOnly`] for a read-only archive; storage errors.
    pub fn remove_refused(&self, id: RefusedId) -> Result<bool> {
        let mut conn = self.writer()?;
        conn.transaction(|tx| sql::forget(tx, id))
    }
}

/// The main line of refused record `id`'s text up to its refused move.
fn line_of(id: RefusedId, text: &str, source: &str) -> Option<RefusedLine> {
    let file =
        keil_record::ParsedFile::from_text(text).with_hint(keil_record::NameHint::of(source));
    if file.len() != 1 {
        return None;
    }
    let record = file.record(0).ok()?;
    let validation = keil_record::validate(&record);
    let replay = validation.replay?;
    let board = crate::prepare::board_of(&record, &replay)?;
    let blob = crate::moves::encode(
        replay.start.board(),
        replay.plies.iter().map(|p| (p.color, p.mv)),
    );
    let stored = crate::model::StoredMoves {
        kind: board.kind.code().to_string(),
        size: board.size,
        ruleset: board.ruleset,
        komi: board.komi.0,
        setup: board.setup,
        blob,
        handicap: board.handicap,
        nodes: None,
    };
    let moves = stored.decode(GameId::new(id.get())?).ok()?;
    let illegal = validation.verdict.illegal;
    let refused = illegal.as_ref().and_then(|ill| {
        let (_, value) = ill.mv.split_once('[')?;
        let point = moves.board.parse_point(value.strip_suffix(']')?).ok()?;
        Some((ill.color, Move::Place(point)))
    });
    Some(RefusedLine {
        moves,
        refused,
        color: illegal.as_ref().map(|ill| ill.color),
        repeats_plies: illegal.map(|ill| ill.repeats_plies).unwrap_or_default(),
    })
}

/// What [`revalidate`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Revalidated {
    /// Kept refused records checked again.
    pub checked: u64,
    /// Those that became games.
    pub stored: u64,
    /// Those that are valid now and were already stored (a duplicate or
    /// another source's record of a stored game).
    pub present: u64,
}

/// Checks every kept refused record again with today's rules; those valid
/// now go through the import's writer as one import run (logged, with
/// `reindex: refused records` as its source), and their refused rows are
/// deleted. The caller rebuilds the derived indexes afterwards (the
/// writer indexes positions and patterns, not text). A process killed
/// between the two transactions leaves a refused row of a stored game,
/// which the next reindex finds a duplicate and deletes.
///
/// # Errors
/// Storage errors.
pub(crate) fn revalidate(writer: &mut Writer) -> Result<Revalidated> {
    let mut kept = Vec::new();
    sql::each(writer.read(), &mut |summary, blob| {
        kept.push((summary.id, summary.source, summary.index, blob));
        Ok(true)
    })?;
    let mut done = Revalidated::default();
    let mut valid = Vec::new();
    for (id, source, index, blob) in kept {
        done.checked += 1;
        let Ok(text) = text_of(&blob) else {
            continue;
        };
        let file =
            keil_record::ParsedFile::from_text(&text).with_hint(keil_record::NameHint::of(&source));
        if file.len() != 1 {
            continue;
        }
        if let p @ Prepare::Valid(..) = prepare(&source, index, file.record(0), false) {
            valid.push((id, source, index, p));
        }
    }
    if valid.is_empty() {
        return Ok(done);
    }
    let at = crate::import::now();
    let import_id = log::start_import(writer.autocommit(), &at, "reindex: refused records", None)?;
    let ids: Vec<RefusedId> = valid.iter().map(|v| v.0).collect();
    let items = valid
        .into_iter()
        .map(|(_, source, index, prepared)| Item {
            source: Arc::from(source.as_str()),
            index,
            prepared,
            kept: None,
        })
        .collect();
    let outcomes = crate::import::write_items(writer, import_id, items)?;
    let mut counts = ImportProgress {
        games_read: outcomes.len() as u64,
        ..ImportProgress::default()
    };
    writer.transaction(|tx| {
        for (id, GameOutcome { fate, .. }) in ids.iter().zip(&outcomes) {
            match fate {
                Fate::Stored { .. } => counts.imported += 1,
                Fate::Duplicate { .. } => counts.duplicates += 1,
                Fate::Merged { .. } => counts.merged += 1,
                Fate::Invalid(_) => {
                    counts.invalid += 1;
                    continue;
                }
            }
            sql::delete(tx, *id)?;
        }
        Ok(())
    })?;
    done.stored = counts.imported;
    done.present = counts.duplicates + counts.merged;
    log::finish_import(
        writer.autocommit(),
        import_id,
        &crate::import::now(),
        &counts,
    )?;
    Ok(done)
}
