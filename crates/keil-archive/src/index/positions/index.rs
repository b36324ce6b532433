//! The in-memory side of the position index: the segments (each read once
//! and kept), their catch-up with the database, and the cache of popular
//! positions' match lists. Filters and statistics read the archive's
//! game facts ([`crate::index::facts`]).
//!
//! Invariants: a cached segment is used only while its row's nonce is the
//! one in its header (a row id reused by a merge is never mistaken for the
//! old segment); the generation of a [`Snapshot`] changes whenever the set
//! of segments does, and every cached match list is keyed by it, so an
//! import or a reindex never serves stale matches.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use tantivy::directory::OwnedBytes;

use super::cache::SegmentCache;
use super::posting::{Posting, Variant};
use super::query::PositionAnswer;
use super::segment::{SegmentIndex, corrupt};
use super::store;
use crate::error::Result;
use crate::index::facts::Years;
use crate::memory::{Held, Pins};
use keil_store::budget::Budget;
use keil_store::positions::SegmentRows;
use keil_store::{Read, Sequences};

/// The in-memory side of the position index: the segments.
pub(crate) struct PositionIndex {
    segments: Mutex<HashMap<i64, Arc<Segment>>>,
    /// The segment cache, when one was set ([`PositionIndex::cache_in`]).
    cache: OnceLock<SegmentCache>,
    /// Held while a segment is read from the database.
    loading: Mutex<()>,
    /// Match lists of popular positions, by index generation and query.
    pub(super) answers: Answers,
    /// Whole answers of heavy positions (the empty board), by index
    /// generation and query: see [`Heavy`].
    pub(super) heavy: Heavy,
    /// Main lines read to confirm Zobrist keys by replay, by game id.
    lines: Lines,
    /// The last [`PositionIndex::segments`]: its rows `(id, nonce)` by id,
    /// the removal sequence and the snapshot, for
    /// [`PositionIndex::settled`].
    last: Mutex<Option<(SegmentRows, i64, Snapshot)>>,
    /// Set when [`PositionIndex::prefetch`] read a segment, so that the
    /// next [`PositionIndex::segments`] sweeps the segment cache as it
    /// does after reading one itself.
    prefetched: std::sync::atomic::AtomicBool,
}

impl Default for PositionIndex {
    fn default() -> PositionIndex {
        PositionIndex {
            segments: Mutex::default(),
            cache: OnceLock::new(),
            loading: Mutex::default(),
            answers: new_answers(),
            heavy: Heavy::new(HEAVY_ANSWERS),
            lines: Lines::with_weighter(4096, LINES_BYTES, LinesWeight),
            last: Mutex::default(),
            prefetched: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

impl std::fmt::Debug for PositionIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PositionIndex")
            .field("segments", &self.segments.lock().map(|s| s.len()).ok())
            .field("answers", &self.answers.len())
            .finish_non_exhaustive()
    }
}

impl PositionIndex {
    /// The segments of the caller's read snapshot, with a signature that
    /// changes whenever the set of segments does (an import, a merge, a
    /// reindex) or a game is removed (`removals`, the removal sequence the
    /// game facts were caught up to).
    ///
    /// Segments are immutable: each is read whole once (SQLite's incremental
    /// blob reads walk the overflow-page chain from the start, which made
    /// every lookup linear in the segment's size) and kept in memory, about
    /// 1.3 KB per side-7 Keil game, 3.4 KB per 19×19 Go game. Per query,
    /// only the segments' ids and nonces are read, to see that the cached
    /// copies are still the stored ones.
    pub(crate) fn segments(&self, conn: Read<'_>, removals: i64) -> Result<Snapshot> {
        let rows = store::segment_nonces(conn)?;
        let mut loaded = false;
        let mut list = Vec::with_capacity(rows.len());
        let mut signature = blake3::Hasher::new();
        signature.update(&removals.to_le_bytes());
        for &(id, nonce) in &rows {
            // Filled in at open for segments older than the column.
            let nonce = nonce.ok_or_else(|| corrupt("segment without a nonce"))? as u64;
            signature.update(&id.to_le_bytes());
            signature.update(&nonce.to_le_bytes());
            let cached = || self.cached(id, nonce);
            let segment = match cached() {
                Some(s) => s,
                None => {
                    // One reader loads a segment; the others wait for it
                    // rather than each holding a copy of it.
                    let _loading = self.loading.lock().expect("poisoned");
                    if let Some(s) = cached() {
                        list.push(s);
                        continue;
                    }
                    let s = Arc::new(self.read_segment(conn, id, nonce)?);
                    loaded = true;
                    self.segments
                        .lock()
                        .expect("poisoned")
                        .insert(id, s.clone());
                    s
                }
            };
            list.push(segment);
        }
        // Forget segments merged away since.
        let forgotten = {
            let mut segments = self.segments.lock().expect("poisoned");
            let before = segments.len();
            segments.retain(|id, _| rows.iter().any(|&(r, _)| r == *id));
            segments.len() < before
        };
        let prefetched = self
            .prefetched
            .swap(false, std::sync::atomic::Ordering::Relaxed);
        if (loaded || forgotten || prefetched)
            && let Some(c) = self.cache.get()
        {
            c.sweep(&rows);
        }
        let hash = signature.finalize();
        let generation = u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"));
        let held = list.iter().all(|s| s.is_held());
        let snapshot = Snapshot {
            list,
            generation,
            held,
        };
        let mut by_id = rows;
        by_id.sort_unstable();
        *self.last.lock().expect("poisoned") = Some((by_id, removals, snapshot.clone()));
        Ok(snapshot)
    }

    /// The snapshot of the last [`PositionIndex::segments`] when the index
    /// is the store's as `at` and `rows` (every segment's `(id, nonce)`,
    /// by id: `keil_store::positions::state`) say: the segments are the same
    /// and were read at `at`'s removals (the caller checks that the game
    /// facts have reached `at`). `None` otherwise: the caller catches up in
    /// a read snapshot.
    pub(super) fn settled(&self, at: Sequences, rows: &[(i64, Option<i64>)]) -> Option<Snapshot> {
        let last = self.last.lock().expect("poisoned");
        let (by_id, removals, snapshot) = last.as_ref()?;
        (*removals == at.removals && by_id.as_slice() == rows).then(|| snapshot.clone())
    }

    /// Reads the segments of `conn`'s snapshot that are not held yet, the
    /// `i`-th taken by the caller that draws `i` from `next` (a node
    /// start's prefetch: several threads share `next`, each with a
    /// connection of its own, so that a database server sends several
    /// segments at once), and keeps them as [`PositionIndex::segments`]
    /// would. The callers' snapshots may differ (an import between them):
    /// a segment one of them skips or reads twice costs time, not answers,
    /// since [`PositionIndex::segments`] then reads what its own snapshot
    /// holds.
    ///
    /// # Errors
    /// Storage errors, and a segment that does not parse.
    pub(crate) fn prefetch(
        &self,
        conn: Read<'_>,
        next: &std::sync::atomic::AtomicUsize,
    ) -> Result<()> {
        let rows = store::segment_nonces(conn)?;
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(&(id, nonce)) = rows.get(i) else {
                return Ok(());
            };
            // A segment without a nonce is left to `segments`, which says so.
            let Some(nonce) = nonce.map(|n| n as u64) else {
                continue;
            };
            if self.cached(id, nonce).is_some_and(|s| s.is_held()) {
                continue;
            }
            let s = Arc::new(self.read_segment(conn, id, nonce)?);
            self.segments.lock().expect("poisoned").insert(id, s);
            self.prefetched
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Reads the block directory of each segment of `conn`'s snapshot not
    /// held yet, and keeps it without the segment's bytes
    /// ([`Body::Stored`]), or maps the segment from the cache where its
    /// file is there: a node start on a store that reads a blob's slice
    /// without the bytes before it (at a million 19×19 games, 0.13 GB of
    /// directories against 3.4 GB of segments). [`PositionIndex::prefetch`]
    /// reads their bytes later.
    ///
    /// # Errors
    /// Storage errors, and a directory that does not parse.
    pub(crate) fn directories(&self, conn: Read<'_>) -> Result<()> {
        for (id, nonce) in store::segment_nonces(conn)? {
            // A segment without a nonce is left to `segments`, which says so.
            let Some(nonce) = nonce.map(|n| n as u64) else {
                continue;
            };
            if self.cached(id, nonce).is_some() {
                continue;
            }
            let s = match self.cached_file(conn, id, nonce)? {
                Some(s) => s,
                None => read_directory(conn, id, nonce)?,
            };
            self.segments
                .lock()
                .expect("poisoned")
                .insert(id, Arc::new(s));
        }
        Ok(())
    }

    /// Segment `id` when it is held with `nonce` (its bytes, or its
    /// directory alone).
    fn cached(&self, id: i64, nonce: u64) -> Option<Arc<Segment>> {
        self.segments
            .lock()
            .expect("poisoned")
            .get(&id)
            .filter(|s| s.index.nonce == nonce)
            .cloned()
    }

    /// The main lines of `games` (ids, ascending), for confirming Zobrist
    /// keys by replay: those read before from the cache, the others in one
    /// statement ([`super::store::lines_of`]), then kept. An explorer that
    /// walks a line confirms the next position's games, the last one's or
    /// fewer, without reading the store (on a database server, the round
    /// trip a position search otherwise makes). Games that are gone are
    /// left out.
    ///
    /// # Errors
    /// Storage errors.
    pub(super) fn lines(
        &self,
        conn: Read<'_>,
        games: &[u32],
    ) -> Result<HashMap<u32, Arc<keil_store::model::GameMoves>>> {
        let mut found = HashMap::with_capacity(games.len());
        let mut missing = Vec::new();
        for &g in games {
            match self.lines.get(&g) {
                Some(line) => {
                    found.insert(g, line);
                }
                None => missing.push(g),
            }
        }
        if !missing.is_empty() {
            for (g, line) in super::store::lines_of(conn, &missing)? {
                let line = Arc::new(line);
                self.lines.insert(g, line.clone());
                found.insert(g, line);
            }
        }
        Ok(found)
    }

    /// Whether the index holds exactly the store's state `at` with segment
    /// rows `rows` (as [`PositionIndex::settled`]).
    pub(crate) fn holds(&self, at: Sequences, rows: &[(i64, Option<i64>)]) -> bool {
        self.settled(at, rows).is_some()
    }

    /// Catches the segments up with `conn`'s (removals applied up to
    /// `removals`), as the next search would.
    ///
    /// # Errors
    /// As [`PositionIndex::segments`].
    pub(crate) fn catch_up(&self, conn: Read<'_>, removals: i64) -> Result<()> {
        self.segments(conn, removals).map(drop)
    }
}

/// The segments one search reads.
#[derive(Clone)]
pub(crate) struct Snapshot {
    list: Vec<Arc<Segment>>,
    /// Differs between any two sets of segments (ids and nonces hashed).
    pub(super) generation: u64,
    /// Whether every segment's bytes are held ([`Body::Held`]): else a
    /// scan reads some blocks from the store, in the caller's read
    /// snapshot (where the segments' rows stay readable).
    pub(super) held: bool,
}

impl Snapshot {
    /// Calls `f` with every posting of the keys `keys` (one range, read in
    /// one pass), segment by segment; within a segment they come sorted by
    /// (key, game, ply). The blocks of a segment whose bytes are not held
    /// are read from `conn`, one slice a segment.
    /// Checks `budget` once per block.
    ///
    /// # Errors
    /// [`crate::Error::OverBudget`]; a damaged block; storage errors
    /// reading a segment's blocks.
    pub(super) fn scan(
        &self,
        conn: Read<'_>,
        keys: std::ops::RangeInclusive<u64>,
        budget: &Budget,
        mut f: impl FnMut(Posting),
    ) -> Result<()> {
        let (lo, hi) = (*keys.start(), *keys.end());
        for segment in &self.list {
            let dir = &segment.index;
            let blocks = dir.blocks_for(lo, hi);
            if blocks.is_empty() {
                continue;
            }
            budget.check()?;
            let (bytes, start) = segment.blocks(conn, blocks.clone())?;
            for b in blocks {
                budget.check()?;
                // Offsets ascend (checked when the directory was read).
                let range = dir.offsets[b] as usize - start..dir.offsets[b + 1] as usize - start;
                let block = bytes
                    .get(range)
                    .ok_or_else(|| corrupt("block out of range"))?;
                dir.decode_block(b, block, |p| {
                    if keys.contains(&p.key) {
                        f(p)
                    }
                })?;
            }
        }
        Ok(())
    }
}

/// A segment: its block directory, and its bytes where they are held.
#[derive(Debug)]
struct Segment {
    index: SegmentIndex,
    body: Body,
}

/// Where a segment's bytes are.
#[derive(Debug)]
enum Body {
    /// Held: read from the store, or mapped from the segment cache's file
    /// (`mapped`; else in the heap).
    Held { bytes: OwnedBytes, mapped: bool },
    /// Left in the store, row `id`, by a node start that read the
    /// directories alone ([`PositionIndex::directories`]): a search reads
    /// the blocks it needs, until [`PositionIndex::prefetch`] reads the
    /// whole segment.
    Stored { id: i64 },
}

impl Segment {
    /// The bytes of `blocks` (a range of this segment's blocks, not
    /// empty), and the offset in the segment of the first of them: a
    /// borrow of the held bytes, or one slice read from `conn`.
    fn blocks(
        &self,
        conn: Read<'_>,
        blocks: std::ops::Range<usize>,
    ) -> Result<(std::borrow::Cow<'_, [u8]>, usize)> {
        match &self.body {
            Body::Held { bytes, .. } => Ok((std::borrow::Cow::Borrowed(bytes.as_slice()), 0)),
            Body::Stored { id } => {
                let from = self.index.offsets[blocks.start] as usize;
                let to = self.index.offsets[blocks.end] as usize;
                let bytes = store::read_segment_at(conn, *id, from, to - from)?;
                Ok((std::borrow::Cow::Owned(bytes), from))
            }
        }
    }

    /// Whether its bytes are held (not left in the store).
    fn is_held(&self) -> bool {
        matches!(self.body, Body::Held { .. })
    }
}

impl PositionIndex {
    /// Keeps the segments as files in directory `path` (created if
    /// needed) and maps them from there; the first call wins.
    ///
    /// # Errors
    /// [`crate::Error::Io`] when the directory cannot be created or opened.
    pub(crate) fn cache_in(&self, path: &std::path::Path) -> Result<()> {
        if self.cache.get().is_none() {
            let _ = self.cache.set(SegmentCache::open(path)?);
        }
        Ok(())
    }

    /// Segment `id` with `nonce` mapped from the cache, when its file is
    /// there with the row's length and this nonce (a file cut short or
    /// damaged is not used).
    ///
    /// # Errors
    /// Storage errors reading the row's length.
    fn cached_file(&self, conn: Read<'_>, id: i64, nonce: u64) -> Result<Option<Segment>> {
        let Some(c) = self.cache.get() else {
            return Ok(None);
        };
        let mapped = c.mapped(id, nonce, || Ok(store::segment_len(conn, id)?))?;
        Ok(mapped.and_then(|bytes| parsed(bytes, true, nonce).ok().flatten()))
    }

    /// Segment `id` with `nonce`: mapped from the cache when its file is
    /// there ([`PositionIndex::cached_file`]); else read from the store (and, with a
    /// cache, written to it and mapped, so that the heap does not hold
    /// it).
    fn read_segment(&self, conn: Read<'_>, id: i64, nonce: u64) -> Result<Segment> {
        if let Some(s) = self.cached_file(conn, id, nonce)? {
            return Ok(s);
        }
        // A cache that cannot be written (a full disk), or a file that does
        // not parse, is not used: the segment is then read into the heap
        // (which says what is wrong with it).
        let written = self.cache.get().and_then(|c| {
            c.write(conn, id, nonce, |bytes| {
                parsed(bytes, true, nonce).ok().flatten()
            })
        });
        if let Some(s) = written {
            return Ok(s);
        }
        let bytes = store::segment_bytes(conn, id)?;
        parsed(OwnedBytes::new(bytes), false, nonce)?
            .ok_or_else(|| corrupt("nonce column disagrees with the header"))
    }

    /// The index's bytes: segments in the heap or mapped, and in the heap
    /// their block directories.
    pub(crate) fn held(&self) -> Held {
        let mut held = Held::default();
        for s in self.segments.lock().expect("poisoned").values() {
            match &s.body {
                Body::Held {
                    bytes,
                    mapped: true,
                } => held.mapped += bytes.len() as u64,
                Body::Held { bytes, .. } => held.heap += bytes.len() as u64,
                Body::Stored { .. } => {}
            }
            held.heap += (s.index.first_keys.len() * 8 + s.index.offsets.len() * 4) as u64;
        }
        held
    }

    /// Copies mapped segments into the heap, oldest first, each as `pins`
    /// grants its bytes (the second step of
    /// [`crate::Archive::pin_indexes`]). Searches that hold the mapped
    /// copy go on with it.
    pub(crate) fn pin(&self, pins: &mut Pins) {
        let mut segments = self.segments.lock().expect("poisoned");
        let mut ids: Vec<i64> = segments.keys().copied().collect();
        ids.sort_unstable();
        for id in ids {
            let s = &segments[&id];
            if let Body::Held {
                bytes,
                mapped: true,
            } = &s.body
                && pins.take(bytes.len())
            {
                let pinned = Segment {
                    index: s.index.clone(),
                    body: Body::Held {
                        bytes: OwnedBytes::new(bytes.as_slice().to_vec()),
                        mapped: false,
                    },
                };
                segments.insert(id, Arc::new(pinned));
            }
        }
    }
}

/// A segment from its bytes (`mapped` from the cache's file, or in the
/// heap), when its header's nonce is `nonce`.
///
/// # Errors
/// A directory that does not parse.
fn parsed(bytes: OwnedBytes, mapped: bool, nonce: u64) -> Result<Option<Segment>> {
    let index = SegmentIndex::parse(&bytes, bytes.len())?;
    Ok((index.nonce == nonce).then_some(Segment {
        index,
        body: Body::Held { bytes, mapped },
    }))
}

/// Segment `id`'s block directory read from the store, its bytes left
/// there ([`Body::Stored`]): three reads (the blob's length, its header,
/// then header and directory), none past the directory.
///
/// # Errors
/// A directory that does not parse, or whose nonce is not `nonce`;
/// storage errors.
fn read_directory(conn: Read<'_>, id: i64, nonce: u64) -> Result<Segment> {
    let len = usize::try_from(store::segment_len(conn, id)?).unwrap_or(usize::MAX);
    let head = store::read_segment_at(conn, id, 0, super::segment::HEADER_V2.min(len))?;
    // The header's block count is not trusted with an allocation past
    // the blob.
    let n = super::segment::directory_len(&head)?;
    if n > len {
        return Err(corrupt("truncated block index"));
    }
    let directory = store::read_segment_at(conn, id, 0, n)?;
    let index = SegmentIndex::parse(&directory, len)?;
    if index.nonce != nonce {
        return Err(corrupt("nonce column disagrees with the header"));
    }
    Ok(Segment {
        index,
        body: Body::Stored { id },
    })
}

/// Match lists at least this long are kept in [`PositionIndex::answers`]:
/// shorter ones cost less to recompute than to keep.
pub(super) const CACHE_MIN_POSTINGS: usize = 256;

/// Memory for cached match lists, in bytes.
const CACHE_BYTES: u64 = 64 << 20;

/// What identifies the matches of a search before paging: the index
/// generation, the keys (both button states of the board, or one), the
/// orientations allowed (a bit per symmetry from the game's board onto the
/// canonical one), and the filters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct MatchKey {
    pub(super) generation: u64,
    pub(super) keys: std::ops::RangeInclusive<u64>,
    pub(super) orientations: u16,
    pub(super) white_to_move: Option<bool>,
    /// The game filter, written out (`GameFilter`'s `Debug`).
    pub(super) filter: String,
    pub(super) move_limit: Option<u32>,
    pub(super) history: bool,
}

/// The matches of a search before paging; for a popular position, shared
/// by every search of it until the index changes.
#[derive(Debug)]
pub(crate) struct Matches {
    /// (matched position's variant, next-move code reduced under the
    /// position's own symmetries, games, Black wins, White wins), most
    /// frequent first; codes are canonical.
    pub(super) per_move: Vec<(Variant, u16, u64, u64, u64)>,
    /// With the query's `history`: per (variant, reduced code) of
    /// `per_move`, its games per year.
    pub(super) years: HashMap<(Variant, u16), Years>,
    /// The first occurrence in each matching game, newest game first.
    pub(super) games: Vec<Hit>,
}

/// A game's first occurrence of the position.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hit {
    pub(super) date: u32,
    pub(super) game: u32,
    pub(super) ply: u16,
    pub(super) next: u16,
    pub(super) sym: u8,
    pub(super) variant: Variant,
    /// The game's winner: 0 Black, 1 White, -1 nobody.
    pub(super) winner: i8,
    /// The weaker player's rank ([`crate::index::facts::Fact::weaker_rank`]).
    pub(super) rank: u8,
}

impl Hit {
    /// The keyset order of pages: newest first, then highest id.
    pub(super) fn order(&self) -> std::cmp::Reverse<(u32, u32)> {
        std::cmp::Reverse((self.date, self.game))
    }
}

/// Weighs cached match lists by their memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MatchesWeight;

impl quick_cache::Weighter<MatchKey, Arc<Matches>> for MatchesWeight {
    fn weight(&self, _key: &MatchKey, m: &Arc<Matches>) -> u64 {
        (128 + m.games.len() * std::mem::size_of::<Hit>()
            + m.per_move.len() * 40
            + m.years.len() * 256) as u64
    }
}

/// Weighs cached main lines by their moves (bytes, about).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LinesWeight;

impl quick_cache::Weighter<u32, Arc<keil_store::model::GameMoves>> for LinesWeight {
    fn weight(&self, _game: &u32, line: &Arc<keil_store::model::GameMoves>) -> u64 {
        (256 + line.moves.len() * std::mem::size_of::<keil_rules::Move>()
            + line.colors.len()
            + line.nodes.len() * 4) as u64
    }
}

/// Main lines kept for confirmations, by game id: a stored game never
/// changes (a removed one has no facts, and searches skip it whatever its
/// line says).
pub(crate) type Lines =
    quick_cache::sync::Cache<u32, Arc<keil_store::model::GameMoves>, LinesWeight>;

/// The most bytes of [`Lines`] (about 20,000 19×19 games' lines).
const LINES_BYTES: u64 = 32 << 20;

/// An answer is kept whole in [`Heavy`] when at least this many games
/// matched: counting its continuations, years and top games then walks
/// every one of them (at the empty board, every game of its board: 0.5 s
/// at 781,779 19×19 games), which is the heavy hitters' whole cost once
/// their match lists are cached. (8 in the crate's unit tests, so that
/// they hold the cache to its invariant.)
pub(super) const HEAVY_MIN_GAMES: u64 = if cfg!(test) { 8 } else { 10_000 };

/// How many whole answers [`Heavy`] keeps (each one page of games, its
/// continuations and years: a few tens of KB).
const HEAVY_ANSWERS: usize = 256;

/// Whole answers of heavy positions (at least [`HEAVY_MIN_GAMES`] games),
/// keyed by the index generation and the query written out
/// (`PositionQuery`'s `Debug`: position, options, filter, page): an
/// answer depends on nothing else, so an import or a removal (a new
/// generation) never serves a stale one.
pub(crate) type Heavy = quick_cache::sync::Cache<(u64, String), Arc<PositionAnswer>>;

/// The cache of popular positions' match lists.
pub(crate) type Answers = quick_cache::sync::Cache<MatchKey, Arc<Matches>, MatchesWeight>;

pub(crate) fn new_answers() -> Answers {
    Answers::with_weighter(1024, CACHE_BYTES, MatchesWeight)
}
