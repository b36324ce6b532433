//! Keeping the pattern index caught up with the store: the games added
//! since it was last read (from the pattern blocks the import wrote, the
//! rest replayed), the removals since (masked), and the blocks themselves
//! (written with each import batch, merged when small, rebuilt by
//! `reindex`; the codec is [`super::block`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};

use keil_rules::GameKind;
use rayon::prelude::*;

use super::answer::Matched;
use super::events;
use super::index::{Group, Line, Loaded, Replayed};
use super::regions::Regions;
use super::runs::Segment;
use super::{block, snapshot};
use crate::error::{Error, Result};
use crate::index::{Changes, Derived};
use crate::memory::{Held, Pins};
use keil_store::ids::GameId;
use keil_store::model::StoredMoves;
use keil_store::{Read, Sequences, Write, blocks, games, removals};

/// The in-memory pattern index of an archive (see [`super::index`]), extended
/// with the games added since it was last read.
pub(crate) struct PatternIndex {
    pub(crate) loaded: RwLock<Loaded>,
    /// Held by the one search that adds new games (see
    /// [`PatternIndex::refresh`]).
    refreshing: std::sync::Mutex<()>,
    pub(crate) answers: quick_cache::sync::Cache<String, Arc<Matched>, MatchedWeight>,
    /// The searches' per-game tallies, kept between searches.
    pub(super) slots: super::tally::SlotPool,
    /// Facts over the groups' games (filters' answers, ranks), kept
    /// between searches.
    pub(super) facts: super::tally::GroupFacts,
    /// The node's snapshot file, when it keeps one ([`PatternIndex::cache_in`]).
    snapshot: OnceLock<PathBuf>,
}

/// Bytes the answer cache holds at most: a wildcard pattern's answer at a
/// million games lists most of them (20 bytes each), so a count of
/// answers alone would not bound it.
const ANSWER_BYTES: u64 = 128 << 20;

/// Weighs cached answers by their memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MatchedWeight;

impl quick_cache::Weighter<String, Arc<Matched>> for MatchedWeight {
    fn weight(&self, key: &String, m: &Arc<Matched>) -> u64 {
        (256 + key.len() + m.bytes()) as u64
    }
}

impl Default for PatternIndex {
    fn default() -> PatternIndex {
        PatternIndex {
            loaded: RwLock::default(),
            refreshing: std::sync::Mutex::default(),
            answers: quick_cache::sync::Cache::with_weighter(64, ANSWER_BYTES, MatchedWeight),
            slots: super::tally::SlotPool::default(),
            facts: super::tally::GroupFacts::default(),
            snapshot: OnceLock::new(),
        }
    }
}

impl std::fmt::Debug for PatternIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let loaded = self.loaded.read().expect("poisoned");
        f.debug_struct("PatternIndex")
            .field("at", &loaded.at)
            .field("groups", &loaded.groups.len())
            .finish()
    }
}

/// Replays one stored game for the index: its moves (the columns
/// `STORED_MOVES` of `store/sqlite/games.rs`), id, date as stored and winner (0 Black, 1
/// White). The import calls it on each game it prepares (in parallel,
/// with id 0: the writer gives the id), so that its batch's pattern block
/// costs no replay on the writer.
///
/// # Errors
/// [`Error::Corrupt`] for moves that do not decode or replay.
pub(crate) fn replayed(
    stored: StoredMoves,
    id: i64,
    date: &str,
    winner: Option<i64>,
) -> Result<Replayed> {
    let game = GameId::from_sql(id.max(1));
    let m = stored.decode(game)?;
    let built = events::build(&m).map_err(|e| Error::Corrupt {
        game,
        reason: format!("stored moves do not replay: {e}"),
    })?;
    let line = Line::new(id as u32, date, &m.nodes);
    Ok((m.rules.kind(), m.board, line, winner_lane(winner), built))
}

/// A winner as the index keeps it (0 Black, 1 White, -1 none).
fn winner_lane(winner: Option<i64>) -> i8 {
    winner.map_or(-1, |w| w as i8)
}

/// A game the validator has just replayed, ready for the index as
/// [`replayed`] makes it (id 0: the writer gives the id), from its plies
/// and their nodes (`nodes[i]`: ply `i`'s node, as stored: below 2^16)
/// rather than a second replay; `None` for a game the plies do not cover
/// ([`events::build_from_plies`]).
pub(crate) fn replayed_from_plies(
    kind: GameKind,
    replay: &keil_record::Replay,
    nodes: &[u32],
    date: &str,
    winner: Option<i64>,
) -> Option<Replayed> {
    let board = replay.start.board();
    let built = events::build_from_plies(board, &replay.start, &replay.plies, nodes)?;
    let line = Line::new(0, date, nodes);
    Some((kind, board, line, winner_lane(winner), built))
}

/// Replays the games with ids in `(from, max]` in id order, handing them to
/// `add` chunk by chunk ([`LOAD_CHUNK`] games, replayed in parallel).
fn replay(
    conn: Read<'_>,
    from: i64,
    max: i64,
    mut add: impl FnMut(Vec<Replayed>) -> Result<()>,
) -> Result<()> {
    let mut chunk = Vec::with_capacity(LOAD_CHUNK);
    let mut flush = |chunk: &mut Vec<games::StoredGame>| -> Result<()> {
        let built: Vec<Replayed> = std::mem::take(chunk)
            .into_par_iter()
            .map(|(stored, id, date, winner)| replayed(stored, id, &date, winner))
            .collect::<Result<_>>()?;
        add(built)
    };
    games::stored_between(conn, from, max, |game| -> Result<()> {
        chunk.push(game);
        if chunk.len() == LOAD_CHUNK {
            flush(&mut chunk)?;
        }
        Ok(())
    })?;
    if !chunk.is_empty() {
        flush(&mut chunk)?;
    }
    Ok(())
}

impl Loaded {
    /// Adds a block's games (or replayed ones: ids ascending, after those
    /// held) to their groups, with the block's region entries where it
    /// has them (the groups find the others' from their events).
    fn add(&mut self, block: block::Decoded) {
        let block::Decoded { games, mut regions } = block;
        // Each group the games go to, and its games before them.
        let mut touched: Vec<(usize, usize)> = Vec::new();
        for (kind, board, line, winner, built) in games {
            let at = match self
                .groups
                .iter()
                .position(|(k, g)| *k == kind && g.board == board)
            {
                Some(i) => i,
                None => {
                    self.groups.push((kind, Group::new(board)));
                    self.groups.len() - 1
                }
            };
            if !touched.iter().any(|t| t.0 == at) {
                touched.push((at, self.groups[at].1.lines.len()));
            }
            self.groups[at].1.push(line, winner, built);
        }
        if self.regions_deferred {
            return;
        }
        for (at, base) in touched {
            let (kind, group) = &mut self.groups[at];
            let found = regions
                .iter()
                .position(|r| (r.0, r.1) == (*kind, group.board));
            match found {
                Some(i) => group.add_block_regions(regions.swap_remove(i).2, base),
                None => group.index_regions(),
            }
        }
    }

    /// Gathers the region entries of the games each group was given since
    /// the last call (unless the region index is deferred) and seals the
    /// groups ([`Group::seal`]), merging their region segments unless
    /// [`Loaded::unmerged`].
    fn seal(&mut self) {
        let merge = !self.unmerged;
        for (_, group) in &mut self.groups {
            if !self.regions_deferred {
                group.index_regions();
            }
            group.seal(merge);
        }
    }

    /// Adds the games with ids in `(at.games, max]` ([`read_games`]).
    fn read(&mut self, conn: Read<'_>, max: i64) -> Result<()> {
        let want = self.want();
        read_games(conn, self.at.games, max, want, |g| self.add(g))
    }

    /// What the blocks' decodes keep: their games alone while the region
    /// index is deferred.
    fn want(&self) -> block::Want {
        if self.regions_deferred {
            block::Want::Games
        } else {
            block::Want::All
        }
    }
}

/// Hands `add` the games with ids in `(from, max]`, in id order: those of
/// the pattern blocks lying there from the blocks ([`DECODE_AHEAD`]
/// decoded at a time, in parallel; with their region entries from a
/// block of version 2), the others replayed (games stored before blocks
/// existed, and those of a block that does not decode: blocks are derived
/// data, never trusted over the games).
fn read_games(
    conn: Read<'_>,
    from: i64,
    max: i64,
    want: block::Want,
    mut add: impl FnMut(block::Decoded),
) -> Result<()> {
    let mut at = from;
    let replayed = |from: i64, upto: i64, add: &mut dyn FnMut(block::Decoded)| {
        replay(conn, from, upto, |games| {
            add(block::Decoded {
                games,
                regions: Vec::new(),
            });
            Ok(())
        })
    };
    let stored = blocks::within(conn, block::KIND, block::OLDEST..=block::VERSION, at, max)?;
    let read_run = |run: &[blocks::BlockRange]| read_run(conn, run, want);
    let decode_run = |bytes: Vec<(Vec<u8>, i64)>| decode_run(&bytes, want);
    // Three runs of blocks at a time: while one decodes on rayon's pool,
    // this thread reads the next (the connection stays here) and adds the
    // one decoded before, so that neither the pool nor this thread waits
    // for the other's part.
    let mut runs = stored.chunks(DECODE_AHEAD);
    let mut decoded = match runs.next() {
        Some(run) => Some((run, decode_run(read_run(run)?))),
        None => None,
    };
    let mut read = match runs.next() {
        Some(run) => Some((run, read_run(run)?)),
        None => None,
    };
    while let Some((run, blocks)) = decoded.take() {
        let mut following = None;
        let decoding = &mut following;
        rayon::in_place_scope(|s| {
            if let Some((next, bytes)) = read.take() {
                s.spawn(move |_| *decoding = Some((next, decode_run(bytes))));
            }
            if let Some(after) = runs.next() {
                read = Some((after, read_run(after)?));
            }
            for (b, block) in run.iter().zip(blocks) {
                if b.first > at + 1 {
                    replayed(at, b.first - 1, &mut add)?;
                }
                match block {
                    Ok(block) => add(block),
                    Err(_) => replayed(b.first - 1, b.last, &mut add)?,
                }
                at = b.last;
            }
            Ok::<_, Error>(())
        })?;
        decoded = following;
    }
    if max > at {
        replayed(at, max, &mut add)?;
    }
    Ok(())
}

/// The bytes and versions of a run of pattern blocks, as much of each as
/// [`decode_run`] needs for `want`.
fn read_run(
    conn: Read<'_>,
    run: &[blocks::BlockRange],
    want: block::Want,
) -> Result<Vec<(Vec<u8>, i64)>> {
    run.iter()
        .map(|b| Ok((read_block(conn, b, want)?, b.version)))
        .collect()
}

/// The bytes of pattern block `b` that a decode for `want` needs: its
/// head alone (the games' frame, [`block::encode`]) when only its games
/// are wanted and it says how long its head is, else the whole block.
fn read_block(conn: Read<'_>, b: &blocks::BlockRange, want: block::Want) -> Result<Vec<u8>> {
    let head = b.head.and_then(|h| usize::try_from(h).ok());
    match head {
        Some(len) if want == block::Want::Games && b.version >= 3 => {
            Ok(blocks::head(conn, b.id, len)?)
        }
        _ => Ok(blocks::data(conn, b.id)?),
    }
}

/// A run of pattern blocks ([`read_run`]) decoded in parallel on rayon's
/// pool, keeping what `want` says.
fn decode_run(
    bytes: &[(Vec<u8>, i64)],
    want: block::Want,
) -> Vec<std::result::Result<block::Decoded, block::Damaged>> {
    bytes
        .par_iter()
        .map(|(d, v)| block::decode(d, *v, want))
        .collect()
}

/// Pattern blocks decoded at once when loading (each up to an import
/// batch: 2,000 games, about 3 KB each once decoded on 19×19).
const DECODE_AHEAD: usize = 8;

/// Blocks of fewer games than this are small (an upload's); a run of
/// [`MERGE_RUN`] small blocks at the end is merged into one.
const SMALL_BLOCK: i64 = 1024;
/// See [`SMALL_BLOCK`].
const MERGE_RUN: usize = 8;

/// Writes the pattern blocks of an import batch's stored games (one per
/// [`LOAD_CHUNK`] games: one for a batch of the default size; ids
/// ascending, each replayed by [`replayed`] when it was prepared; `None`
/// for one that was not, which is then replayed here from the store),
/// inside the batch's transaction, so that a killed import leaves no block
/// without its games; then merges the trailing small blocks.
///
/// # Errors
/// [`Error::Corrupt`] for a game that does not replay; storage errors.
pub(crate) fn index_batch(conn: Write<'_>, stored: Vec<(i64, Option<Replayed>)>) -> Result<()> {
    let mut games = Vec::with_capacity(stored.len());
    for (id, game) in stored {
        match game {
            Some(mut g) => {
                g.2.id = id as u32;
                games.push(g);
            }
            None => replay(conn.read(), id - 1, id, |g| {
                games.extend(g);
                Ok(())
            })?,
        }
    }
    for block in games.chunks(LOAD_CHUNK) {
        write_block(conn, block)?;
    }
    let small = blocks::trailing_small(conn.read(), block::KIND, SMALL_BLOCK)?;
    if small.len() >= MERGE_RUN {
        merge(conn, &small)?;
    }
    Ok(())
}

/// Deletes every pattern block and writes them again from the games
/// (`reindex`), a block per [`LOAD_CHUNK`] games.
///
/// # Errors
/// As [`index_batch`].
pub(crate) fn rebuild_blocks(conn: Write<'_>) -> Result<()> {
    blocks::delete_all(conn, block::KIND)?;
    let max = Sequences::read(conn.read())?.games;
    replay(conn.read(), 0, max, |chunk| write_block(conn, &chunk))
}

fn write_block(conn: Write<'_>, games: &[Replayed]) -> Result<()> {
    let (Some(first), Some(last)) = (games.first(), games.last()) else {
        return Ok(());
    };
    let range = (i64::from(first.2.id), i64::from(last.2.id));
    let (data, head) = block::encode(games);
    let data = (data.as_slice(), Some(head));
    Ok(blocks::insert(
        conn,
        block::KIND,
        range,
        games.len(),
        block::VERSION,
        data,
    )?)
}

/// Replaces a run of blocks (latest first, as [`blocks::trailing_small`]
/// gives them) by one, without the removed games.
fn merge(conn: Write<'_>, run: &[blocks::BlockRange]) -> Result<()> {
    let removed = removals::removed_games(conn.read())?;
    let mut games: Vec<Replayed> = Vec::new();
    for b in run.iter().rev() {
        // The merged block's region entries are found again from the
        // games' events.
        let want = block::Want::Games;
        match block::decode(&read_block(conn.read(), b, want)?, b.version, want) {
            Ok(block) => games.extend(block.games),
            Err(_) => replay(conn.read(), b.first - 1, b.last, |g| {
                games.extend(g);
                Ok(())
            })?,
        }
    }
    games.retain(|g| !removed.contains(&g.2.id));
    let ids: Vec<i64> = run.iter().map(|b| b.id).collect();
    blocks::delete(conn, &ids)?;
    write_block(conn, &games)
}

/// Games read per chunk when loading (replayed in parallel), and the most
/// a pattern block holds but for merged small ones (`reindex` writes a
/// block per chunk); a few in unit tests, so that their loads run over
/// several chunks.
const LOAD_CHUNK: usize = if cfg!(test) { 16 } else { 4096 };

impl PatternIndex {
    /// Adds the games stored since the last call and masks those removed
    /// since; returns the store's sequences the caller searches (what its
    /// snapshot holds; the index holds at least as much).
    ///
    /// One search adds them; others wait for it (they may not answer
    /// without games their snapshot holds), while plain reads go on. Up to [`REPLAY_APART`] new games (an upload's) are
    /// replayed before the index is locked, and the lock is held only to
    /// add them; more (the first load) are replayed under it, chunk by
    /// chunk, so that they are not held twice in memory.
    ///
    /// The replay runs in parallel (rayon) while the refresh lock is held:
    /// a caller that is itself a rayon worker may, while it waits, run a
    /// queued job that waits for the same lock, and deadlock. Call searches
    /// from plain threads (as the server's search threads are).
    pub(crate) fn refresh(&self, conn: Read<'_>) -> Result<Sequences> {
        crate::index::catch_up(conn, &mut [&mut { self }])
    }

    /// Replays and adds the games with ids in `(from, max]`; called with
    /// the refresh lock held.
    fn add_games(&self, conn: Read<'_>, from: i64, max: i64) -> Result<()> {
        if max - from <= REPLAY_APART {
            // A game that does not replay stops the read before anything
            // is added.
            let want = self.loaded.read().expect("poisoned").want();
            let mut blocks = Vec::new();
            read_games(conn, from, max, want, |block| blocks.push(block))?;
            let mut loaded = self.loaded.write().expect("poisoned");
            for block in blocks {
                loaded.add(block);
            }
            loaded.seal();
            loaded.at.games = max;
            return Ok(());
        }
        let mut loaded = self.loaded.write().expect("poisoned");
        // A game that does not replay stops the read: the games read
        // before it are taken out again, so that a later refresh does not
        // add them twice.
        let kept: Vec<usize> = loaded.groups.iter().map(|(_, g)| g.lines.len()).collect();
        if let Err(e) = loaded.read(conn, max) {
            loaded.groups.truncate(kept.len());
            for ((_, group), &n) in loaded.groups.iter_mut().zip(&kept) {
                group.truncate(n);
            }
            return Err(e);
        }
        loaded.seal();
        loaded.at.games = max;
        Ok(())
    }
}

/// A snapshot that lacks more than 1/`STALE` of the games (by id) is
/// written again after the load that caught up from it.
const STALE: i64 = 16;

impl PatternIndex {
    /// Keeps the index's snapshot ([`snapshot`]) in directory `dir`
    /// (node-local, created by the caller); the first call wins.
    pub(crate) fn cache_in(&self, dir: &Path) {
        let _ = self.snapshot.set(dir.join(snapshot::FILE));
    }

    /// The index's bytes in the heap and mapped from the snapshot.
    pub(crate) fn held(&self) -> Held {
        let loaded = self.loaded.read().expect("poisoned");
        let (bytes, mapped) = loaded.groups.iter().fold((0, 0), |(b, m), (_, g)| {
            (b + g.bytes() as u64, m + g.mapped_bytes() as u64)
        });
        Held {
            heap: bytes - mapped + (self.slots.bytes() + self.facts.bytes()) as u64,
            mapped,
        }
    }

    /// Pins the mapped region segments of every group (the first step of
    /// [`crate::Archive::pin_indexes`]).
    pub(crate) fn pin_regions(&self, pins: &mut Pins) {
        let mut loaded = self.loaded.write().expect("poisoned");
        for (_, g) in &mut loaded.groups {
            if let Some(r) = &mut g.regions {
                r.pin(pins);
            }
        }
    }

    /// Merges each group's region segments into one (see
    /// [`Regions::compact`](super::regions::Regions::compact)): after a
    /// load from the blocks, not from a snapshot.
    fn compact(&self) {
        let mut loaded = self.loaded.write().expect("poisoned");
        for (_, g) in &mut loaded.groups {
            if let Some(r) = &mut g.regions {
                r.compact();
            }
        }
    }

    /// Pins the mapped columns of every group, then their events (the last
    /// step of [`crate::Archive::pin_indexes`]).
    pub(crate) fn pin_scanned(&self, pins: &mut Pins) {
        let mut loaded = self.loaded.write().expect("poisoned");
        for (_, g) in &mut loaded.groups {
            g.columns.pin(pins);
        }
        for (_, g) in &mut loaded.groups {
            g.events.pin(pins);
        }
    }

    /// A node start: the index read from the snapshot when there is one of
    /// this store, then the games and removals since added by the
    /// catch-up loop (from the blocks); the snapshot is written again when
    /// there was none or it lacked more than 1/[`STALE`] of the games.
    /// Returns whether the snapshot was read. A snapshot that cannot be
    /// written (a full disk) is skipped.
    ///
    /// # Errors
    /// As [`PatternIndex::refresh`].
    ///
    /// With `defer`, a load from the blocks into an empty index leaves the
    /// region segments unmerged (searches read them as they are) and
    /// writes no snapshot: [`PatternIndex::settle`] does both later.
    pub(crate) fn load(&self, conn: Read<'_>, defer: bool) -> Result<bool> {
        let Some(path) = self.snapshot.get() else {
            let deferred = self.defer_merges(defer);
            self.refresh(conn)?;
            if !deferred {
                self.compact();
            }
            return Ok(false);
        };
        let store = Sequences::read(conn)?;
        let mut read = None;
        {
            let _refreshing = self.refreshing.lock().unwrap_or_else(|e| e.into_inner());
            if self.reached()? == Sequences::default()
                && let Some(s) = snapshot::stamp(path)
                && s.at.games <= store.games
                && s.at.removals <= store.removals
                && let Ok(loaded) = snapshot::read(path, &stamp(conn, s.at)?)
            {
                *self.loaded.write().expect("poisoned") = loaded;
                read = Some(s.at);
            }
        }
        let deferred = read.is_none() && self.defer_merges(defer);
        let to = self.refresh(conn)?;
        if deferred {
            return Ok(false);
        }
        if read.is_none() {
            self.compact();
        }
        let loaded = self.loaded.read().expect("poisoned");
        let stale = read.is_none_or(|at| (to.games - at.games) * STALE > to.games);
        if stale && to.games > 0 && loaded.at == to {
            let _ = snapshot::write(path, &loaded, &stamp(conn, to)?);
        }
        Ok(read.is_some())
    }

    /// Fills the region index a deferred first load left out
    /// ([`Loaded::regions_deferred`]): reads the pattern blocks of the
    /// games it holds again, [`DECODE_AHEAD`] at a time (decoded in
    /// parallel on the caller's rayon pool, for their region entries
    /// alone: a server settles on a pool of its own that runs below its
    /// searches), and gives each block's entries to its group
    /// ([`Group::fill_block_regions`]) under the index's lock, held for
    /// that alone; then gathers from their events the entries of the games
    /// no block gave (replayed ones, those of a block merged or deleted
    /// since, those a refresh added beyond the blocks this read snapshot
    /// sees), and lets searches use the region index. Searches scan
    /// meanwhile (same answers, slower), and refreshes add games. Returns
    /// `None` when the index was not deferred, else the number of blocks
    /// whose entries were taken.
    ///
    /// # Errors
    /// Storage errors reading the blocks: the index then stays deferred,
    /// with what was filled, and a later call goes on.
    pub(crate) fn fill_regions(&self, conn: Read<'_>) -> Result<Option<usize>> {
        let upto = {
            let loaded = self.loaded.read().expect("poisoned");
            if !loaded.regions_deferred {
                return Ok(None);
            }
            loaded.at.games
        };
        // Version 1 blocks hold no region entries.
        let stored = blocks::within(conn, block::KIND, 2..=block::VERSION, 0, upto)?;
        let mut taken = 0;
        for run in stored.chunks(DECODE_AHEAD) {
            let decoded = decode_run(
                &read_run(conn, run, block::Want::Regions)?,
                block::Want::Regions,
            );
            let mut loaded = self.loaded.write().expect("poisoned");
            // A block that does not decode gives nothing: its games'
            // entries are gathered from their events.
            for block in decoded.into_iter().flatten() {
                for (kind, board, segment) in block.regions {
                    let ids: Vec<u32> = block
                        .games
                        .iter()
                        .filter(|g| (g.0, g.1) == (kind, board))
                        .map(|g| g.2.id)
                        .collect();
                    let group = loaded
                        .groups
                        .iter_mut()
                        .find(|(k, g)| *k == kind && g.board == board);
                    if let Some((_, group)) = group {
                        taken += usize::from(group.fill_block_regions(&ids, segment));
                    }
                }
            }
        }
        let mut loaded = self.loaded.write().expect("poisoned");
        for (_, group) in &mut loaded.groups {
            group.index_regions();
        }
        loaded.regions_deferred = false;
        Ok(Some(taken))
    }

    /// Marks an index that holds no game yet as [`Loaded::unmerged`] when
    /// `defer`; returns whether it is.
    fn defer_merges(&self, defer: bool) -> bool {
        let mut loaded = self.loaded.write().expect("poisoned");
        if defer && loaded.at == Sequences::default() {
            loaded.unmerged = true;
            loaded.regions_deferred = true;
        }
        loaded.unmerged
    }

    /// Merges the region segments a deferred [`PatternIndex::load`] left
    /// unmerged, each group's into one, as a load that does not defer
    /// would have. The merge reads shared segments outside the index's
    /// lock: searches answer meanwhile (from the unmerged segments) and
    /// refreshes add games (their segments put after the merged one and
    /// merged as a seal does). Returns whether anything was merged (then
    /// the caller writes the node's snapshot:
    /// [`PatternIndex::write_snapshot`]).
    pub(crate) fn settle(&self) -> bool {
        let mut merged_any = false;
        loop {
            let shared: Vec<(usize, Vec<Arc<Segment>>)> = {
                let loaded = self.loaded.read().expect("poisoned");
                if !loaded.unmerged {
                    return merged_any;
                }
                let groups = loaded.groups.iter().enumerate();
                groups
                    .filter_map(|(i, (_, g))| Some((i, g.regions.as_ref()?.shared())))
                    .collect()
            };
            let merged: Vec<_> = shared.iter().map(|(_, s)| Regions::merge(s)).collect();
            let _refreshing = self.refreshing.lock().unwrap_or_else(|e| e.into_inner());
            let mut loaded = self.loaded.write().expect("poisoned");
            // A refresh that failed took games out meanwhile (its
            // segments cut): that group is merged again.
            let mut all = true;
            for ((i, of), m) in shared.iter().zip(merged) {
                if let Some(r) = &mut loaded.groups[*i].1.regions {
                    all &= r.put_merged(of, m);
                }
            }
            merged_any = true;
            if all {
                // Groups a refresh added meanwhile.
                for (_, g) in &mut loaded.groups {
                    if let Some(r) = &mut g.regions {
                        r.seal();
                    }
                }
                loaded.unmerged = false;
            }
        }
    }

    /// Writes the node's snapshot of the index as it is (when it keeps
    /// one and holds games; a snapshot that cannot be written, a full
    /// disk, is skipped).
    ///
    /// # Errors
    /// Storage errors reading what the snapshot's stamp holds.
    pub(crate) fn write_snapshot(&self, conn: Read<'_>) -> Result<()> {
        let Some(path) = self.snapshot.get() else {
            return Ok(());
        };
        let loaded = self.loaded.read().expect("poisoned");
        if loaded.at.games > 0 && !loaded.unmerged {
            let _ = snapshot::write(path, &loaded, &stamp(conn, loaded.at)?);
        }
        Ok(())
    }
}

/// What a snapshot of the index at `at` must carry to be read on this
/// store: the pattern blocks' version, and a BLAKE3 fingerprint of `at`,
/// the record identities of the first and last game stored up to
/// `at.games`, the ranges of the pattern blocks up to it that are not
/// small (a small block may still be merged; a large one changes only by
/// `reindex`), and the removals up to `at.removals`.
fn stamp(conn: Read<'_>, at: Sequences) -> Result<snapshot::Stamp> {
    let mut h = blake3::Hasher::new();
    h.update(&at.games.to_le_bytes());
    h.update(&at.removals.to_le_bytes());
    for hash in games::edge_hashes(conn, at.games)? {
        h.update(&hash);
    }
    for b in blocks::within(
        conn,
        block::KIND,
        block::OLDEST..=block::VERSION,
        0,
        at.games,
    )? {
        if b.games >= SMALL_BLOCK {
            for v in [b.first, b.last, b.games] {
                h.update(&v.to_le_bytes());
            }
        }
    }
    for (seq, id) in removals::removed_between(conn, 0, at.removals)? {
        h.update(&seq.to_le_bytes());
        h.update(&id.to_le_bytes());
    }
    Ok(snapshot::Stamp {
        version: block::VERSION as u32,
        fingerprint: *h.finalize().as_bytes(),
        at,
    })
}

/// New games at most this many are replayed before the pattern index is
/// locked (see [`PatternIndex::refresh`]); a few in unit tests, so that
/// both ways run.
const REPLAY_APART: i64 = if cfg!(test) { 20 } else { 65_536 };

impl Derived for &PatternIndex {
    fn reached(&self) -> Result<Sequences> {
        Ok(self.loaded.read().expect("poisoned").at)
    }

    fn apply(&mut self, read: Read<'_>, changes: &Changes) -> Result<()> {
        // A search waits for another's refresh rather than answering from
        // an index that lacks games its snapshot holds (a cold index would
        // answer no game at all); the wait is bounded by the replay of the
        // new games, never by an import.
        let _refreshing = self.refreshing.lock().unwrap_or_else(|e| e.into_inner());
        let (to, at) = (changes.to, self.reached()?);
        if to.games > at.games {
            self.add_games(read, at.games, to.games)?;
        }
        if to.removals > at.removals {
            let mut loaded = self.loaded.write().expect("poisoned");
            for id in changes.removed_after(at.removals) {
                for (_, group) in &mut loaded.groups {
                    group.remove(id);
                }
            }
            loaded.at.removals = to.removals;
        }
        Ok(())
    }
}

/// Asserts that two replayed games are the same for the index: kind,
/// board, winner, line, events and columns (`what` names them).
#[cfg(test)]
pub(crate) fn assert_same(a: &Replayed, b: &Replayed, what: &str) {
    assert_eq!((a.0, a.1, a.3), (b.0, b.1, b.3), "{what}");
    let (la, lb) = (&a.2, &b.2);
    assert_eq!(
        (la.id, la.date, la.plies, &la.nodes),
        (lb.id, lb.date, lb.plies, &lb.nodes),
        "{what}"
    );
    assert_eq!(a.4.events, b.4.events, "{what}");
    assert_eq!(a.4.columns, b.4.columns, "{what}");
}

#[cfg(test)]
mod tests {
    use keil_gen::{Generator, GeneratorConfig};

    use super::*;
    use crate::import::prepare::{Prepare, prepare};

    /// The events the import takes from the validator's plies are those a
    /// replay of the stored moves gives: Keil, and Go on 9×9 (many
    /// captures) and 19×19 with handicaps; a Kaomi game is left to the
    /// replay.
    #[test]
    fn plies_give_the_events_a_replay_gives() {
        for (game, size) in [
            (GameKind::Keil, 5),
            (GameKind::Go, 9),
            (GameKind::Go, 19),
            (GameKind::Kaomi, 9),
        ] {
            let text: String = Generator::new(GeneratorConfig {
                game,
                games: 40,
                size,
                seed: 11,
                handicaps: game == GameKind::Go,
                ..GeneratorConfig::default()
            })
            .unwrap()
            .map(|g| g.record)
            .collect();
            let file = keil_record::ParsedFile::from_text(&text);
            let mut from_plies = 0;
            for i in 0..file.len() {
                let Prepare::Valid(valid, _) = prepare("gen", i, file.record(i), false) else {
                    panic!("{game:?} game {i} is not valid");
                };
                let stored = valid.row.stored_moves();
                let winner = valid.row.meta.winner.map(|c| c.index() as i64);
                let replay = replayed(stored, 0, &valid.row.meta.date, winner).unwrap();
                let nodes: Vec<u32> = (1..=valid.replay.plies.len() as u32).collect();
                let direct = replayed_from_plies(
                    valid.row.meta.kind,
                    &valid.replay,
                    &nodes,
                    &valid.row.meta.date,
                    winner,
                );
                assert_eq!(direct.is_some(), game != GameKind::Kaomi, "{game:?}");
                from_plies += usize::from(direct.is_some());
                let got = valid.pattern.as_ref().unwrap();
                assert_same(got, &replay, &format!("{game:?} game {i}"));
            }
            assert!(game == GameKind::Kaomi || from_plies == 40, "{game:?}");
        }
    }

    /// Every region entry of the 19×19 group, `(key, game, node,
    /// continuation byte)`, sorted; `None` while its region index does not
    /// answer searches.
    fn region_entries(archive: &crate::archive::Archive) -> Option<Vec<(u64, u32, u16, u8)>> {
        let loaded = archive.node.patterns.loaded.read().unwrap();
        let (_, group) = loaded.groups.iter().find(|(_, g)| g.board.size() == 19)?;
        let regions = loaded.region_index(group)?;
        let mut all: Vec<_> = regions
            .shared()
            .iter()
            .flat_map(|s| {
                s.keys
                    .iter()
                    .flat_map(|&k| s.run(k).unwrap().map(move |(g, n, c)| (k, g, n, c)))
                    .collect::<Vec<_>>()
            })
            .collect();
        all.sort_unstable();
        Some(all)
    }

    fn import(archive: &crate::archive::Archive, games: u64, seed: u64) {
        crate::archive::import_generated(
            archive,
            GeneratorConfig {
                game: GameKind::Go,
                size: 19,
                games,
                seed,
                ..GeneratorConfig::default()
            },
        );
    }

    /// Every pattern block an import writes says how long its head (the
    /// games' frame) is; a load of the games alone reads that head and no
    /// more, and it decodes into the block's games; a block that does not
    /// say (written before schema 13) is read whole.
    #[test]
    fn a_load_of_the_games_reads_the_blocks_heads_alone() {
        let dir = tempfile::tempdir().unwrap();
        let archive = crate::archive::Archive::open(dir.path()).unwrap();
        import(&archive, 40, 7);
        let reader = archive.node.reader().unwrap();
        let conn = reader.read();
        let stored =
            blocks::within(conn, block::KIND, block::OLDEST..=block::VERSION, 0, 40).unwrap();
        assert!(stored.len() >= 3);
        for b in &stored {
            let head = b.head.expect("an import says its blocks' heads") as usize;
            let whole = blocks::data(conn, b.id).unwrap();
            assert_eq!(
                Ok(head),
                zstd::zstd_safe::find_frame_compressed_size(&whole)
            );
            let games = read_block(conn, b, block::Want::Games).unwrap();
            assert_eq!(games, whole[..head]);
            let decoded = block::decode(&games, b.version, block::Want::Games).unwrap();
            assert_eq!(decoded.games.len() as i64, b.games);
            for want in [block::Want::All, block::Want::Regions] {
                assert_eq!(read_block(conn, b, want).unwrap(), whole);
            }
            let unsaid = blocks::BlockRange { head: None, ..*b };
            assert_eq!(
                read_block(conn, &unsaid, block::Want::Games).unwrap(),
                whole
            );
        }
    }

    /// A node's first load that defers the region index (`load` with
    /// `defer`) holds none until `fill_regions`, which gives the group the
    /// entries a load that does not defer finds: from the blocks (of the
    /// games the load read and of those a refresh added meanwhile), and
    /// for the games of the blocks deleted since from their events.
    #[test]
    fn a_deferred_region_index_is_filled_as_a_load_finds_it() {
        let dir = tempfile::tempdir().unwrap();
        let archive = crate::archive::Archive::open(dir.path()).unwrap();
        import(&archive, 70, 5);
        let blocks = |sql: &str| {
            let db = rusqlite::Connection::open(dir.path().join("archive.sqlite")).unwrap();
            db.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap()
        };
        assert!(blocks("SELECT COUNT(*) FROM derived_blocks") >= 4);

        let node = crate::archive::Archive::open(dir.path()).unwrap();
        let load = |a: &crate::archive::Archive, defer| {
            a.node
                .reader()
                .unwrap()
                .snapshot(|conn| a.node.patterns.load(conn, defer))
                .unwrap()
        };
        load(&node, true);
        assert!(node.node.patterns.loaded.read().unwrap().regions_deferred);
        assert_eq!(
            region_entries(&node),
            None,
            "no region index before the fill"
        );

        // Games added meanwhile, and two blocks gone: one amid the others
        // (its games' entries are found from their events before the next
        // block's are taken) and the last (found when the fill ends).
        import(&archive, 30, 6);
        for which in ["MIN(id) + 1", "MAX(id)"] {
            blocks(&format!(
                "DELETE FROM derived_blocks WHERE id = (SELECT {which} FROM derived_blocks) \
                 RETURNING 0"
            ));
        }
        node.node
            .reader()
            .unwrap()
            .snapshot(|conn| node.node.patterns.refresh(conn))
            .unwrap();
        assert_eq!(region_entries(&node), None, "nor after a refresh");

        let fill = |a: &crate::archive::Archive| {
            a.node
                .reader()
                .unwrap()
                .snapshot(|conn| a.node.patterns.fill_regions(conn))
                .unwrap()
        };
        // Every block left, those of the games the refresh added too.
        let stored = blocks("SELECT COUNT(*) FROM derived_blocks");
        assert_eq!(fill(&node), Some(stored as usize));
        assert_eq!(fill(&node), None, "filled once");
        let whole = crate::archive::Archive::open(dir.path()).unwrap();
        load(&whole, false);
        let expected = region_entries(&whole).unwrap();
        assert!(expected.len() > 1000);
        assert_eq!(region_entries(&node).unwrap(), expected);
    }
}
