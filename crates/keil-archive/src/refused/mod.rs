//! Refused records, kept: a record the import refuses (an
//! illegal move, a record that does not read, a board the archive does
//! not hold) is kept as it came, with its verdict, in its
//! `import_problems` row (schema 14; the SQL in `store/refused.rs`).
//! Real collections keep illegal games on purpose (an unnoticed illegal
//! ko in a title match), so the archive keeps them too, apart from the
//! games: never in the position, pattern or text indexes.
//!
//! The same refused record (the same text, by its hash) is kept once: a
//! later import of it logs the refusal again, with the hash and without a
//! second copy of the text. [`Archive::reindex`](crate::Archive::reindex) checks every kept record
//! again with today's rules; one that is valid now becomes a game
//! ([`revalidate`]).

use std::sync::Arc;

use crate::error::Result;
use crate::import::Fate;
use crate::import::prepare::{Prepare, prepare};
use crate::import::{GameOutcome, Item};
use crate::node::Node;
use keil_rules::Move;
use keil_store::ids::GameId;
use keil_store::progress::ImportProgress;
use keil_store::{Writer, import as log, refused as sql};

pub use keil_store::ids::RefusedId;
pub use keil_store::model::refused::{
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

/// [`Archive::refused_list`](crate::Archive::refused_list): see there.
pub(crate) fn refused_list(
    node: &Node,
    filter: &RefusedFilter,
    limit: usize,
) -> Result<RefusedPage> {
    let limit = limit.clamp(1, MAX_REFUSED_PAGE);
    let conn = node.reader()?;
    let mut items = sql::list(conn.read(), filter, limit + 1)?;
    let next = (items.len() > limit).then(|| {
        items.truncate(limit);
        items[limit - 1].id
    });
    Ok(RefusedPage { items, next })
}

/// [`Archive::refused_record`](crate::Archive::refused_record): see there.
pub(crate) fn refused_record(node: &Node, id: RefusedId) -> Result<Option<RefusedRecord>> {
    let conn = node.reader()?;
    sql::get(conn.read(), id)?
        .map(|(summary, blob)| {
            Ok(RefusedRecord {
                record: text_of(&blob)?,
                summary,
            })
        })
        .transpose()
}

/// [`Archive::refused_line`](crate::Archive::refused_line): see there.
pub(crate) fn refused_line(
    node: &Node,
    id: RefusedId,
) -> Result<Option<(RefusedRecord, Option<RefusedLine>)>> {
    Ok(refused_record(node, id)?.map(|r| {
        let line = line_of(id, &r.record, &r.summary.source);
        (r, line)
    }))
}

/// [`Archive::refused_records`](crate::Archive::refused_records): see there.
pub(crate) fn refused_records(node: &Node) -> Result<u64> {
    Ok(sql::count(node.reader()?.read())?)
}

/// [`Archive::export_refused`](crate::Archive::export_refused): see there.
pub(crate) fn export_refused(
    node: &Node,
    each: &mut dyn FnMut(&RefusedSummary, &str) -> Result<bool>,
) -> Result<u64> {
    let conn = node.reader()?;
    let mut n = 0;
    sql::each(conn.read(), &mut |summary, blob| {
        let text = text_of(&blob)?;
        n += 1;
        each(&summary, &text)
    })?;
    Ok(n)
}

/// [`Archive::remove_refused`](crate::Archive::remove_refused): see there.
pub(crate) fn remove_refused(node: &Node, id: RefusedId) -> Result<bool> {
    let mut conn = node.writer()?;
    conn.transaction(|tx| Ok(sql::forget(tx, id)?))
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
    let board = crate::import::prepare::board_of(&record, &replay)?;
    let blob = keil_store::moves::encode(
        replay.start.board(),
        replay.plies.iter().map(|p| (p.color, p.mv)),
    );
    let stored = keil_store::model::StoredMoves {
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
    sql::each(writer.read(), &mut |summary, blob| -> Result<bool> {
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
    let at = keil_store::model::now();
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
    writer.transaction(|tx| -> Result<()> {
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
        &keil_store::model::now(),
        &counts,
    )?;
    Ok(done)
}
