//! The upgrade of schema 14 ('merges 14'): archives whose imports merged
//! records by their signature alone get every merge checked by the moves.
//!
//! 1. Every game's signature is computed again ([`moves::signature`]: the
//!    same for the 8 orientations of a game, the number of moves left out
//!    from 71 moves).
//! 2. Every record merged before (`game_sources.merge_kind` NULL) is read
//!    again and judged against its game by the merge rule (`merge.rs`).
//!    One that is its game gets its merge kind; one that is not is taken
//!    out of `game_sources` and written through the import's own writer,
//!    in the same transaction, under its import: it becomes a game of its
//!    own (linked as similar where the moves are the same), or the record
//!    of another game the rule proves it is. The derived indexes catch up
//!    as they do after an import (positions and patterns in the batch, the
//!    text index when the archive opens).
//!
//! Each step commits in chunks and can stop anywhere: a record stays
//! unchecked until its chunk commits, and the upgrade is marked done last.

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;
use serde::Serialize;

use super::collection::Collections;
use super::merge::{self, Judgement, Shape};
use super::write::{self, record_shape};
use super::{Batch, Duplicates, Item};
use crate::error::Result;
use crate::import::prepare::{Prepare, prepare};
use crate::people::SpellingCache;
use keil_store::ids::GameId;
use keil_store::moves;
use keil_store::{Writer, import as sql};

/// The name of this upgrade in the `upgrades` table.
pub(crate) const UPGRADE: &str = "merges 14";

/// Games a signature chunk reads and writes in one transaction.
const SIGNATURE_CHUNK: usize = 5_000;

/// Merged records judged in one transaction.
const RECORD_CHUNK: usize = 500;

/// What the merge repair did when an archive opened ([`crate::Archive::upgraded`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MergeRepair {
    /// Games whose signature was computed again.
    pub signatures: u64,
    /// Records merged before schema 14, judged again by their moves.
    pub checked: u64,
    /// Of those, records that are their game: kept as its records, with
    /// their merge kind.
    pub proven: u64,
    /// Records that were not their game: stored as games of their own
    /// again (their record, source and import kept).
    pub restored: u64,
    /// Records that were not their game and that the merge rule proved
    /// to be another stored game's record (merged there instead).
    pub moved: u64,
    /// Records that no longer read as a valid game under today's rules:
    /// left with their game, unchecked.
    pub unreadable: u64,
}

/// Carries out the upgrade when it is pending; `None` when it was done
/// before, or found nothing to do (a new archive).
///
/// # Errors
/// Storage errors (what committed stays: the next open goes on).
pub(crate) fn repair_merges(writer: &mut Writer) -> Result<Option<MergeRepair>> {
    if !sql::upgrade_pending(writer.read(), UPGRADE)? {
        return Ok(None);
    }
    let mut report = MergeRepair {
        signatures: sign_games(writer)?,
        ..MergeRepair::default()
    };
    let mut cache = SpellingCache::default();
    let mut after = 0;
    loop {
        let rows = sql::unchecked_sources(writer.read(), after, RECORD_CHUNK)?;
        let Some(last) = rows.last() else {
            break;
        };
        after = last.id;
        let again = judge_sources(writer, rows, &mut report)?;
        for (import, group) in again {
            write_again(writer, import, group, &mut cache, &mut report)?;
        }
    }
    sql::finish_upgrade(writer.autocommit(), UPGRADE, &keil_store::model::now())?;
    // A new archive has nothing to upgrade: nothing to tell.
    Ok((report != MergeRepair::default()).then_some(report))
}

/// Gives every stored game its signature, a chunk a transaction; returns
/// how many games were read.
fn sign_games(writer: &mut Writer) -> Result<u64> {
    let mut after = 0;
    let mut signed = 0;
    loop {
        let rows = sql::games_after(writer.read(), after, SIGNATURE_CHUNK)?;
        let Some(last) = rows.last() else {
            return Ok(signed);
        };
        after = last.0;
        let signatures: Vec<(i64, Option<[u8; 16]>)> = rows
            .par_iter()
            .map(|(id, kind, size, plies, blob)| {
                let plies = usize::try_from(*plies).unwrap_or(0);
                (*id, moves::signature(kind, *size, plies, blob))
            })
            .collect();
        writer.transaction(|tx| -> Result<()> {
            for (id, sig) in &signatures {
                sql::set_signature(tx, *id, sig.as_ref().map(|s| &s[..]))?;
            }
            Ok(())
        })?;
        signed += rows.len() as u64;
    }
}

/// The records that wait to be written again, by their import.
type Again = BTreeMap<Option<i64>, Vec<(sql::UncheckedSource, Prepare)>>;

/// Judges one chunk of merged records against their games: the records
/// that are their game get their kind (in one transaction); the others
/// are returned, to be written again by import.
fn judge_sources(
    writer: &mut Writer,
    rows: Vec<sql::UncheckedSource>,
    report: &mut MergeRepair,
) -> Result<Again> {
    let prepared: Vec<(sql::UncheckedSource, Option<Prepare>)> = rows
        .into_par_iter()
        .map(|row| {
            let prepared = prepare_stored(&row);
            (row, prepared)
        })
        .collect();
    let mut game_ids: Vec<i64> = prepared.iter().map(|(row, _)| row.game_id).collect();
    game_ids.sort_unstable();
    game_ids.dedup();
    let games: HashMap<i64, Option<Shape>> = sql::candidates(writer.read(), &game_ids)?
        .into_iter()
        .map(|row| (row.id, Shape::of_row(row)))
        .collect();
    let mut again = Again::new();
    writer.transaction(|tx| -> Result<()> {
        for (row, prepared) in prepared {
            report.checked += 1;
            let Some(Prepare::Valid(p, checked)) = prepared else {
                report.unreadable += 1;
                continue;
            };
            let record = record_shape(tx, &p)?;
            let judged = match (record, games.get(&row.game_id)) {
                (Some(r), Some(Some(g))) => merge::judge(&r, g),
                _ => Judgement::Other,
            };
            if let Judgement::Same {
                kind,
                transform,
                differs,
                longer: false,
            } = judged
            {
                let link = sql::Link {
                    kind: kind.code(),
                    transform,
                    differs: &differs,
                };
                sql::set_merge(tx, row.id, &link)?;
                report.proven += 1;
            } else {
                again
                    .entry(row.import_id)
                    .or_default()
                    .push((row, Prepare::Valid(p, checked)));
            }
        }
        Ok(())
    })?;
    Ok(again)
}

/// Writes the records of one import again through the import's writer
/// (in a run of its own when their import is not known), unlinking them
/// from the game they were merged into in the same transaction.
fn write_again(
    writer: &mut Writer,
    import: Option<i64>,
    group: Vec<(sql::UncheckedSource, Prepare)>,
    cache: &mut SpellingCache,
    report: &mut MergeRepair,
) -> Result<()> {
    let import_id = match import {
        Some(id) => id,
        None => sql::start_import(
            writer.autocommit(),
            &keil_store::model::now(),
            "records restored by the merge repair of schema 14",
            None,
        )?,
    };
    let unlinked: Vec<(i64, Option<i64>)> = group
        .iter()
        .map(|(row, _)| (row.id, row.import_id))
        .collect();
    let items: Vec<Item> = group
        .into_iter()
        .map(|(row, prepared)| Item {
            source: std::sync::Arc::from(row.source.as_str()),
            index: usize::try_from(row.game_index).unwrap_or(0),
            prepared,
            kept: None,
        })
        .collect();
    let mut collections = Collections::of_logged(writer.read(), import_id)?;
    let written = write::write_batch(
        writer,
        write::Target {
            import_id,
            collections: &mut collections,
        },
        Batch { items },
        cache,
        Duplicates::Signature,
        None,
        |tx| {
            for (id, import) in &unlinked {
                sql::unlink_source(tx, *id, *import)?;
            }
            Ok(())
        },
    )?;
    report.restored += written.new_games.len() as u64;
    report.moved += written.merged.len() as u64;
    Ok(())
}

/// A merged record read again as an import reads it (its normalised text
/// is a game tree of its own); `None` when it does not read back as one
/// game tree.
fn prepare_stored(row: &sql::UncheckedSource) -> Option<Prepare> {
    let index = usize::try_from(row.game_index).unwrap_or(0);
    let text = keil_store::records::decompress(GameId::from_sql(row.game_id), &row.record).ok()?;
    let mut records = keil_record::read_records(text.as_bytes());
    if records.len() != 1 {
        return None;
    }
    Some(prepare(&row.source, index, records.pop()?, false))
}
