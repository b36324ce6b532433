//! The storage logic of the position index: writing segments (an import
//! batch, a tier merge, a rebuild from the games table), the open-time
//! upgrades (key version, nonces), and the reads the in-memory index and
//! the search need (segments' ids, nonces and blobs, a game's position
//! at a ply).
//!
//! Invariants: runs no SQL itself; every statement is a function of
//! [`keil_store::positions`], which this file calls (and re-exports
//! where the index and the search read a row as stored). Segment rows are
//! written whole and never updated (but for the nonce column, filled once
//! from the blob's header); a batch's segment is written in the import's
//! own transaction and a rebuild or a merge inside one, so a killed import
//! or rebuild leaves the index as it was.

use keil_record::Replay;
use keil_rules::{AnyPosition, PositionKey};

use super::key::KEY_VERSION;
use super::posting::{Posting, Step, any_postings, postings, replay_postings};
use super::segment::{HEADER, decode_segment, encode_segment, read_header};
use crate::error::{Error, Result};
use keil_store::games::game_moves;
use keil_store::ids::GameId;
use keil_store::kind::GameKind;
use keil_store::{Read, Write, Writer, positions as sql};

pub(super) use keil_store::positions::{
    copy_segment, read_segment_at, segment_bytes, segment_len, segment_nonces,
};

/// Adds the positions of a batch of newly stored games as one new segment,
/// inside the import transaction (so a killed import leaves neither games
/// nor postings). Merges segments when a tier fills up.
pub(crate) fn index_games(tx: Write<'_>, games: &[(i64, &Replay)]) -> Result<()> {
    if games.is_empty() {
        return Ok(());
    }
    let mut postings: Vec<Posting> = games
        .iter()
        .flat_map(|&(id, replay)| replay_postings(id as u32, replay))
        .collect();
    postings.sort_unstable();
    insert_segment(tx, &postings, games.len())?;
    compact(tx)
}

/// Encodes `postings` (sorted) as a new segment of `games` games, with a
/// fresh nonce and keys of [`KEY_VERSION`], and stores it.
pub(super) fn insert_segment(conn: Write<'_>, postings: &[Posting], games: usize) -> Result<()> {
    let nonce = next_nonce();
    let blob = encode_segment(postings, nonce);
    Ok(sql::insert_segment(
        conn,
        games,
        postings.len(),
        &blob,
        nonce,
        KEY_VERSION,
    )?)
}

/// Rebuilds the position index, in one transaction, when a segment was
/// written with keys older than [`KEY_VERSION`] (an archive of schema 2 or
/// older, or one whose upgrade was interrupted: the rebuild commits whole
/// or not at all). Returns whether it rebuilt. Reads only the `keys`
/// index, never the segments' blobs.
///
/// # Errors
/// [`Error::Corrupt`] for a stored game whose moves do not replay; storage
/// errors.
pub(crate) fn upgrade_keys(writer: &mut Writer) -> Result<bool> {
    if !has_old_keys(writer.read())? {
        return Ok(false);
    }
    writer.transaction(rebuild)?;
    Ok(true)
}

/// Whether a segment was written with keys older than [`KEY_VERSION`].
fn has_old_keys(conn: Read<'_>) -> Result<bool> {
    Ok(sql::has_keys_older_than(conn, KEY_VERSION)?)
}

/// What [`upgrade_keys`] or [`fill_nonces`] would write, for a read-only
/// open that cannot: `Some(reason)` when the position index needs it.
///
/// # Errors
/// SQLite errors.
pub(crate) fn pending_upgrade(conn: Read<'_>) -> Result<Option<String>> {
    if has_old_keys(conn)? {
        return Ok(Some(format!(
            "its position index has keys older than version {KEY_VERSION}"
        )));
    }
    Ok(sql::has_missing_nonce(conn)?
        .then(|| "its position segments lack their nonce column".to_string()))
}

/// Copies each segment's nonce from its header into the `nonce` column
/// where it is NULL (segments written before schema 2), so searches read
/// it from the table.
///
/// # Errors
/// [`Error::PositionIndex`] for a segment whose header is damaged; SQLite
/// errors.
pub(crate) fn fill_nonces(conn: Write<'_>) -> Result<()> {
    for id in sql::segments_without_nonce(conn.read())? {
        let head = sql::read_segment_at(conn.read(), id, 0, HEADER)?;
        let (nonce, _, _) = read_header(&head)?;
        sql::set_nonce(conn, id, nonce)?;
    }
    Ok(())
}

/// A value that differs between any two segments ever written by this
/// process or any other (time and a counter), so a cached directory is
/// never mistaken for a new segment that reuses a row id.
fn next_nonce() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    now ^ COUNTER.fetch_add(1, Ordering::Relaxed).rotate_left(48)
        ^ u64::from(std::process::id()) << 32
}

/// Whether a stored segment (its blob, and the postings and nonce its
/// row says) decodes whole and holds what its row says: `keil verify`.
///
/// # Errors
/// What is wrong, in words.
pub(crate) fn check_segment(
    blob: &[u8],
    postings: i64,
    nonce: Option<i64>,
) -> std::result::Result<(), String> {
    let (header_nonce, _, _) = read_header(blob).map_err(|e| e.to_string())?;
    if let Some(nonce) = nonce
        && nonce as u64 != header_nonce
    {
        return Err("its header's nonce is not its row's".into());
    }
    let decoded = decode_segment(blob).map_err(|e| e.to_string())?;
    if decoded.len() as i64 != postings {
        return Err(format!(
            "it holds {} postings, its row says {postings}",
            decoded.len()
        ));
    }
    Ok(())
}

/// Segments per tier before the tier is merged. Tiers are powers of four
/// in postings, so a segment is rewritten O(log n) times in all.
const TIER_FANOUT: usize = 4;

/// The most postings a merge writes into one segment: 2^22 (tens of MB of
/// blob).
/// No stored value grows with the archive: a 1,000,000-game Go import
/// once stopped on a merged segment past SQLite's 1 GB value limit.
/// Segments at the cap are never merged again; a search reads one more
/// segment per ~4 M postings (~12,500 334-ply games).
pub(crate) const MAX_SEGMENT_POSTINGS: i64 = 1 << 22;

/// Merges, within the current transaction, every tier that holds
/// [`TIER_FANOUT`] or more segments, smallest first, as long as the
/// merged segment stays within [`MAX_SEGMENT_POSTINGS`] (two at least:
/// segments too large to pair stay as they are).
pub(crate) fn compact(conn: Write<'_>) -> Result<()> {
    loop {
        let sizes = sql::segment_sizes(conn.read())?;
        let Some(ids) = merge_plan(&sizes, MAX_SEGMENT_POSTINGS) else {
            return Ok(());
        };
        merge(conn, &ids)?;
    }
}

/// The segments to merge next among `(id, postings)`: the first tier with
/// [`TIER_FANOUT`] segments or more, its smallest segments whose postings
/// sum to `cap` at most, when two or more fit; `None` when no merge is
/// due.
fn merge_plan(sizes: &[(i64, i64)], cap: i64) -> Option<Vec<i64>> {
    let tier = |n: i64| (64 - (n.max(1) as u64).leading_zeros()) / 2;
    let mut by_tier: std::collections::BTreeMap<u32, Vec<(i64, i64)>> = Default::default();
    for &(id, n) in sizes {
        by_tier.entry(tier(n)).or_default().push((n, id));
    }
    by_tier.into_values().find_map(|mut segments| {
        if segments.len() < TIER_FANOUT {
            return None;
        }
        segments.sort_unstable();
        let mut sum = 0;
        let ids: Vec<i64> = segments
            .iter()
            .take_while(|&&(n, _)| {
                sum += n;
                sum <= cap
            })
            .map(|&(_, id)| id)
            .collect();
        (ids.len() >= 2).then_some(ids)
    })
}

/// Replaces the given segments by one, without the postings of removed
/// games (masked until now by their missing summaries).
fn merge(conn: Write<'_>, ids: &[i64]) -> Result<()> {
    let removed = keil_store::removals::removed_games(conn.read())?;
    let mut postings = Vec::new();
    let mut games = 0i64;
    for &id in ids {
        let (blob, g) = sql::segment_data_and_games(conn.read(), id)?;
        postings.extend(decode_segment(&blob)?);
        games += g;
    }
    if !removed.is_empty() {
        let before: std::collections::HashSet<u32> = postings
            .iter()
            .map(|p| p.game)
            .filter(|g| removed.contains(g))
            .collect();
        games -= before.len() as i64;
        postings.retain(|p| !removed.contains(&p.game));
    }
    postings.sort_unstable();
    insert_segment(conn, &postings, games.max(0) as usize)?;
    Ok(sql::delete_segments(conn, ids)?)
}

/// Rebuilds the position index from the games table, inside the caller's
/// transaction: every stored main line is replayed through keil-rules.
///
/// # Errors
/// [`Error::Corrupt`] for a stored game whose moves do not replay; SQLite
/// errors.
pub(crate) fn rebuild(tx: Write<'_>) -> Result<()> {
    sql::delete_all_segments(tx)?;
    let ids = sql::game_ids(tx.read())?;
    for chunk in ids.chunks(2048) {
        let mut batch = Vec::new();
        for &id in chunk {
            let game_id = GameId::from_sql(id);
            let line = game_moves(tx.read(), game_id)?.ok_or(Error::Corrupt {
                game: game_id,
                reason: "vanished during reindex".into(),
            })?;
            let mut game = line.start();
            let start = game.position();
            let keil = matches!(start, AnyPosition::Keil(_));
            let mut turns = Vec::with_capacity(line.moves.len());
            for (i, &mv) in line.moves.iter().enumerate() {
                let color = line.color(i, &game);
                let out = line.play(i, &mut game).map_err(|e| Error::Corrupt {
                    game: game_id,
                    reason: format!("stored moves do not replay: {e}"),
                })?;
                // Keil's postings keep their own keys of the stones.
                let after = if keil {
                    (PositionKey(0), 0)
                } else {
                    game.canonical_key()
                };
                turns.push((color, mv, out.captured, out.moved, after));
            }
            let steps = turns.iter().map(|(color, mv, captured, moved, _)| Step {
                color: *color,
                mv: *mv,
                captured,
                moved,
            });
            match &start {
                AnyPosition::Keil(start) => {
                    batch.extend(postings(GameKind::Keil, id as u32, start, steps));
                }
                start => {
                    let keys = turns.iter().map(|t| t.4);
                    batch.extend(any_postings(id as u32, start, steps.zip(keys)));
                }
            }
        }
        batch.sort_unstable();
        insert_segment(tx, &batch, chunk.len())?;
        compact(tx)?;
    }
    Ok(())
}

/// The main lines of the stored games among `games`, by game, read in a
/// few statements (confirming matches by replay: one statement a game
/// cost a round trip each on a database server).
pub(super) fn lines_of(
    conn: Read<'_>,
    games: &[u32],
) -> Result<std::collections::HashMap<u32, keil_store::model::GameMoves>> {
    let ids: Vec<GameId> = games
        .iter()
        .map(|&g| GameId::from_sql(i64::from(g)))
        .collect();
    Ok(keil_store::games::games_moves(conn, &ids)?
        .into_iter()
        .map(|(id, line)| (id.get() as u32, line))
        .collect())
}

/// Replays a main line to the posting's ply and returns the position;
/// `None` when it does not replay that far.
pub(super) fn position_at(line: &keil_store::model::GameMoves, x: &Posting) -> Option<AnyPosition> {
    line.game_at(x.ply as usize).ok().map(|g| g.position())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_stay_under_the_cap() {
        // Four small segments of one tier merge.
        assert_eq!(
            merge_plan(&[(1, 10), (2, 11), (3, 12), (4, 13)], 100),
            Some(vec![1, 2, 3, 4])
        );
        // Three are not a tier's worth.
        assert_eq!(merge_plan(&[(1, 10), (2, 11), (3, 12)], 100), None);
        // Past the cap, the smallest that fit.
        assert_eq!(
            merge_plan(&[(1, 40), (2, 35), (3, 45), (4, 50)], 100),
            Some(vec![2, 1])
        );
        // None fits two by two: nothing to do, whatever the count.
        assert_eq!(merge_plan(&[(1, 60), (2, 61), (3, 62), (4, 63)], 100), None);
        // A simulated import of 1,000 batches: every segment within the
        // cap, and their number bounded by the cap and the tiers.
        let cap = 1 << 12;
        let mut segments: Vec<(i64, i64)> = Vec::new();
        let mut next = 0;
        for _ in 0..1000 {
            next += 1;
            segments.push((next, 100));
            while let Some(ids) = merge_plan(&segments, cap) {
                let n: i64 = segments
                    .iter()
                    .filter(|s| ids.contains(&s.0))
                    .map(|s| s.1)
                    .sum();
                segments.retain(|s| !ids.contains(&s.0));
                next += 1;
                segments.push((next, n));
            }
        }
        assert!(segments.iter().all(|&(_, n)| n <= cap));
        assert_eq!(segments.iter().map(|s| s.1).sum::<i64>(), 100_000);
        assert!(
            segments.len() <= 100_000 / (cap as usize / 2) + 4 * 6,
            "{}",
            segments.len()
        );
    }
}
