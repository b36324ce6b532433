//! The in-memory pattern index: per board (game kind and size), each
//! stored game's time line of point changes, and the columns that let a
//! search test every game of a block at once.
//!
//! **Time line.** A game's time is its SGF node (the root is node 0;
//! Kombilo's time line). An *event* is a change of one point's state (empty,
//! black, white) at a node, plus a marker for each move's own stone.
//!
//! **First life.** A point's *first life* runs from the start of the game
//! to its first departure `D` (the first change after its first stone
//! arrived: a capture, a push, a stone of the other colour pushed in). In
//! its first life a point is empty up to its arrival node, then holds the
//! arriving colour. So, while no point of a region has left its first life,
//! a pattern matches at node `t` exactly when `L <= t < U`, with `L` the
//! latest first-life arrival its stones need and `U` the earliest
//! first-life arrival its empty (and black-or-empty, white-or-empty)
//! points forbid: the first match is node `L` when `L < U` and `L < D_min`.
//! Otherwise a match can only come after `D_min`, and only if the points
//! that never leave their first life still allow it; those few
//! (game, placement) pairs are replayed from their events.
//!
//! **Columns.** For each block of [`LANES`] games and each point, two
//! 16-bit lanes, both below `0x8000` so that the scan runs on signed
//! 16-bit minimums and maximums (x86-64's baseline SSE2 has those): the
//! *arrival* (bits 0..14 the first stone's node, [`NEVER`] when none came;
//! bit 14 set when that stone was white) and the first *departure* node
//! ([`NEVER`] when the point never leaves its first life). A search runs per
//! chunk of 32 lanes and placement over the pattern's points only, a few
//! vector minimums and maximums per point: the stones first (a chunk where
//! no game can have them is skipped), then the other points nearest the
//! stones first, stopping once no lane can match; the non-stone part is
//! shared by the placements that have the same one (a colour-swapped
//! pair).

use std::ops::Range;

use keil_rules::{AnyBoard, GameKind};
use rayon::prelude::*;

use super::arrays::Growing;
use super::events::{Built, Event, NEVER};
use super::pattern::{Cell, Pattern};
use super::placement::Placement;
use super::regions::{Next, Regions, TENUKI_NODES};
use keil_store::Sequences;

/// [`NEVER`] in the scan's signed lanes.
const NEVER_LANE: i16 = NEVER as i16;
/// "No bound": above every node.
const NO_BOUND: i16 = i16::MAX;
/// Games per block of columns.
pub(crate) const LANES: usize = 64;

/// A replayed game, ready to be added to its group.
pub(crate) type Replayed = (GameKind, AnyBoard, Line, i8, Built);

/// A stored game in the index.
#[derive(Debug)]
pub(crate) struct Line {
    /// The game id.
    pub id: u32,
    /// The date as `YYYYMMDD` (0 when unknown): the order of answers.
    pub date: u32,
    /// The number of moves of the main line.
    pub plies: u32,
    /// Each move's node when not one move per node after the root.
    pub nodes: Option<Box<[u32]>>,
    /// The game's events in the group's event list.
    pub events: Range<u32>,
}

/// The order answers list games in: latest date first, then highest id
/// (as one integer; ids are distinct, so no two games tie).
pub(crate) fn answer_order(date: u32, id: u32) -> std::cmp::Reverse<u64> {
    std::cmp::Reverse(u64::from(date) << 32 | u64::from(id))
}

impl Line {
    /// A replayed game's line: its id, its date as stored (`YYYY-MM-DD`,
    /// `''` when unknown) and each move's node (`nodes[i]`: ply `i`'s;
    /// kept only when not one move per node after the root); its events
    /// are placed when it is pushed.
    pub(crate) fn new(id: u32, date: &str, nodes: &[u32]) -> Line {
        let one_per_node = nodes.iter().enumerate().all(|(i, &n)| n as usize == i + 1);
        Line {
            id,
            date: crate::index::facts::date_number(date),
            plies: nodes.len() as u32,
            nodes: (!one_per_node).then(|| nodes.into()),
            events: 0..0,
        }
    }

    /// The game's place in [`answer_order`].
    pub(crate) fn order(&self) -> std::cmp::Reverse<u64> {
        answer_order(self.date, self.id)
    }

    /// The number of moves played by the end of node `t`.
    pub(crate) fn ply_at(&self, t: u16) -> u32 {
        match &self.nodes {
            None => self.plies.min(u32::from(t)),
            Some(nodes) => plies_by(nodes, t),
        }
    }
}

/// [`Group::plies`] of a line whose moves are not one a node.
pub(crate) const NODES: u32 = u32::MAX;

/// A line's [`Group::plies`].
pub(crate) fn plies_of(line: &Line) -> u32 {
    if line.nodes.is_some() {
        NODES
    } else {
        line.plies
    }
}

/// The number of moves played by the end of node `t` of a line whose move
/// `i` is at node `nodes[i]` (ascending).
pub(crate) fn plies_by(nodes: &[u32], t: u16) -> u32 {
    nodes.partition_point(|&n| n <= u32::from(t)) as u32
}

/// The games of one board (kind and size).
pub(crate) struct Group {
    /// The board.
    pub board: AnyBoard,
    /// The games, in id order; game `i` is lane `i % LANES` of block
    /// `i / LANES`.
    pub lines: Vec<Line>,
    /// Per game index, its id (`lines[g].id`, apart: a search's filter
    /// reads it for every game with hits, and reads fewer bytes here than
    /// in the lines).
    pub ids: Vec<u32>,
    /// Per game index, its moves (`lines[g].plies`), or [`NODES`] for a
    /// line whose moves are not one a node (its plies by node are then
    /// read from its line); and its year (0 undated). Columns apart from
    /// the lines, for the same reason as `ids`: a move limit reads the
    /// first for every hit, the history the second.
    pub plies: Vec<u32>,
    pub years: Vec<u16>,
    /// Block-major columns: `[block][point][arrival, departure][lane]`
    /// (the frozen ones, mapped from the node's snapshot, whole blocks).
    pub(super) columns: Growing<i16>,
    /// Every game's events, game after game (the frozen ones, mapped from
    /// the node's snapshot, whole games).
    pub(super) events: Growing<Event>,
    /// Per game index, the winner: 0 Black, 1 White, -1 none (a column
    /// apart from the lines: a search reads it for every hit).
    pub winners: Vec<i8>,
    /// The region index (see [`Regions::new`] for the boards it covers).
    pub regions: Option<Regions>,
    /// The games (from the first) whose region entries are gathered
    /// ([`Group::index_regions`]).
    pub(super) indexed: usize,
    /// The game indices in the order answers list them: latest date
    /// first, then highest id (as of the last [`Group::seal`]).
    pub listed: Vec<u32>,
    /// Per game index, its place in [`Group::listed`] (as of the last
    /// [`Group::seal`]).
    pub(super) rank: Vec<u32>,
    /// Per game index, false for a removed game (its columns, events and
    /// region entries stay; searches skip it); empty while no game of the
    /// group was removed.
    pub(super) kept: Vec<bool>,
}

impl std::fmt::Debug for Group {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Group")
            .field("board", &self.board)
            .field("games", &self.lines.len())
            .finish()
    }
}

/// The node at which a point is first of colour `white` in its first
/// life, from its arrival lane ([`NEVER`] when its first stone had the
/// other colour or none came).
#[inline(always)]
fn first_of(arrival: i16, white: bool) -> i16 {
    // All ones when the first stone's colour is not the one asked.
    let other = (arrival << 1) >> 15;
    let other = if white { !other } else { other };
    (arrival | other) & NEVER_LANE
}

/// [`NO_BOUND`] when the departure lane says the point leaves its first
/// life, else 0: or-ed into a bound, it drops it.
#[inline(always)]
fn unstable(departure: i16) -> i16 {
    // Negative exactly when the departure is below NEVER.
    ((departure - NEVER_LANE) >> 15) & NO_BOUND
}

impl Group {
    pub(crate) fn new(board: AnyBoard) -> Group {
        Group {
            board,
            lines: Vec::new(),
            ids: Vec::new(),
            plies: Vec::new(),
            years: Vec::new(),
            winners: Vec::new(),
            columns: Growing::default(),
            events: Growing::default(),
            regions: Regions::new(board),
            indexed: 0,
            listed: Vec::new(),
            rank: Vec::new(),
            kept: Vec::new(),
        }
    }

    /// Masks game `id` (a removed game) if the group holds it.
    pub(crate) fn remove(&mut self, id: i64) {
        let Ok(id) = u32::try_from(id) else {
            return;
        };
        if let Ok(g) = self.lines.binary_search_by_key(&id, |l| l.id) {
            if self.kept.is_empty() {
                self.kept = vec![true; self.lines.len()];
            }
            self.kept[g] = false;
        }
    }

    /// Per game index, whether it was not removed; `None` while no game of
    /// the group was (a search's tally then checks nothing per hit).
    pub(crate) fn kept_unremoved(&self) -> Option<&[bool]> {
        (!self.kept.is_empty()).then_some(&self.kept[..])
    }

    /// The number of moves game index `g` played by the end of node `t`
    /// ([`Line::ply_at`], from [`Group::plies`] when its moves are one a
    /// node).
    #[inline]
    pub(crate) fn ply_at(&self, g: usize, t: u16) -> u32 {
        match self.plies[g] {
            NODES => self.lines[g].ply_at(t),
            plies => plies.min(u32::from(t)),
        }
    }

    /// Game index `g`'s place in [`answer_order`].
    pub(crate) fn answer_order(&self, g: u32) -> std::cmp::Reverse<u64> {
        self.lines[g as usize].order()
    }

    /// Whether every game has its place in [`Group::listed`] (none was
    /// added since the order was last worked out).
    pub(crate) fn is_ordered(&self) -> bool {
        let n = self.lines.len();
        self.listed.len() == n && self.rank.len() == n
    }

    /// A key of game index `g` that sorts as [`answer_order`] does: its
    /// place in [`Group::listed`] (4 bytes a game, a column apart) when the
    /// group [`is_ordered`](Group::is_ordered), else from its line.
    #[inline]
    pub(crate) fn answer_key(&self, g: u32) -> u64 {
        if self.rank.len() == self.lines.len() {
            u64::from(self.rank[g as usize])
        } else {
            u64::MAX - self.answer_order(g).0
        }
    }

    fn block_len(&self) -> usize {
        self.board.len() * 2 * LANES
    }

    /// Appends a game (ids ascending) and its winner (0 Black, 1 White, -1
    /// none).
    pub(crate) fn push(&mut self, mut line: Line, winner: i8, built: Built) {
        let i = self.lines.len();
        let (block, lane) = (i / LANES, i % LANES);
        if lane == 0 {
            let len = self.block_len();
            self.columns.grow(len, NEVER_LANE);
        }
        let cols = self.columns.owned_from(block * self.block_len());
        for (p, col) in built.columns.iter().enumerate() {
            for (k, &v) in col.iter().enumerate() {
                // Nodes are below NEVER, and WHITE below 0x8000.
                cols[(p * 2 + k) * LANES + lane] = v as i16;
            }
        }
        let start = self.events.len();
        self.events.extend(built.events);
        line.events = start as u32..self.events.len() as u32;
        self.ids.push(line.id);
        self.plies.push(plies_of(&line));
        self.years.push(crate::index::facts::year_of(line.date));
        self.lines.push(line);
        self.winners.push(winner);
        if !self.kept.is_empty() {
            self.kept.push(true);
        }
    }

    /// Takes out the games pushed after the first `n` and not yet sealed
    /// (a refresh that failed part way; the region index may have sorted
    /// some of them into segments already, and takes them out of those).
    pub(crate) fn truncate(&mut self, n: usize) {
        if n >= self.lines.len() {
            return;
        }
        // A refresh truncates to the games it found: the frozen ones (a
        // snapshot's, mapped) are all among them.
        self.events.truncate(self.lines[n].events.start as usize);
        self.lines.truncate(n);
        self.ids.truncate(n);
        self.plies.truncate(n);
        self.years.truncate(n);
        self.winners.truncate(n);
        self.kept.truncate(n);
        self.columns.truncate(n.div_ceil(LANES) * self.block_len());
        self.indexed = self.indexed.min(n);
        if let Some(regions) = &mut self.regions {
            regions.truncate(n as u32);
        }
    }

    /// Gathers the region entries of the games pushed since the last call,
    /// in parallel ([`Regions::push_all`]).
    pub(crate) fn index_regions(&mut self) {
        self.index_regions_upto(self.lines.len());
    }

    /// Takes the region entries of the games pushed from game `base` on
    /// from a pattern block's `segment` (numbered from 0 at `base`; see
    /// [`super::block`]), after gathering those of the games before.
    pub(super) fn add_block_regions(&mut self, segment: super::runs::Segment, base: usize) {
        self.put_block_regions(segment, base, self.lines.len());
    }

    /// A deferred region index's entries (see
    /// [`Loaded::regions_deferred`]) of a pattern block's games
    /// of this board (`ids`, ascending: the games its `segment` numbers
    /// from 0), after gathering those of the games before them from their
    /// events. Returns false, taking nothing, unless those games are the
    /// group's next ones after the games already gathered, in order (a
    /// block merged since the load, without a removed game, is not): the
    /// last fill step gathers theirs from their events.
    pub(super) fn fill_block_regions(
        &mut self,
        ids: &[u32],
        segment: super::runs::Segment,
    ) -> bool {
        let Some(&first) = ids.first() else {
            return false;
        };
        let Ok(base) = self.ids.binary_search(&first) else {
            return false;
        };
        if base < self.indexed || self.ids.get(base..base + ids.len()) != Some(ids) {
            return false;
        }
        self.put_block_regions(segment, base, base + ids.len());
        true
    }

    /// Puts a pattern block's `segment` of games `base..end` in the region
    /// index, after gathering the entries of the games before `base`.
    fn put_block_regions(&mut self, segment: super::runs::Segment, base: usize, end: usize) {
        self.index_regions_upto(base);
        if let Some(regions) = &mut self.regions {
            regions.push_block(segment, base as u32);
        }
        self.indexed = end;
    }

    /// [`Group::index_regions`] of the games before game `upto`.
    fn index_regions_upto(&mut self, upto: usize) {
        let Group {
            regions,
            lines,
            events,
            indexed,
            ..
        } = self;
        if let Some(regions) = regions
            && *indexed < upto
        {
            let games: Vec<(u32, &[Event])> = (*indexed..upto)
                .map(|i| {
                    let e = &lines[i].events;
                    (i as u32, events.get(e.start as usize..e.end as usize))
                })
                .collect();
            regions.push_all(&games);
        }
        *indexed = (*indexed).max(upto);
    }

    /// Orders the games pushed since the last call in [`Group::listed`]
    /// (called once a load or refresh has pushed them all and gathered
    /// their region entries: [`Loaded::seal`]). With `merge`,
    /// the region segments of the new games are merged
    /// ([`Regions::seal`]); without, they are searched as they are until a
    /// later merge (a node's first load, merged once it serves:
    /// [`super::load::PatternIndex::settle`]).
    pub(crate) fn seal(&mut self, merge: bool) {
        if let Some(regions) = &mut self.regions
            && merge
        {
            regions.seal();
        }
        // The new games sorted after the list, then one stable sort: it
        // finds the two sorted runs and merges them.
        let (lines, from) = (&self.lines, self.listed.len());
        if from < lines.len() {
            self.listed.extend(from as u32..lines.len() as u32);
            self.listed[from..].par_sort_unstable_by_key(|&g| lines[g as usize].order());
            self.listed.sort_by_key(|&g| lines[g as usize].order());
            self.rank_listed();
        }
    }

    /// Computes [`Group::rank`] from [`Group::listed`].
    pub(super) fn rank_listed(&mut self) {
        self.rank.clear();
        self.rank.resize(self.listed.len(), 0);
        for (i, &g) in self.listed.iter().enumerate() {
            self.rank[g as usize] = i as u32;
        }
    }

    /// Whether the parts agree (a group read back from a snapshot): a
    /// column block per [`LANES`] games, the games' events one after the
    /// other and all of them, a winner per game, the answer order a
    /// permutation's length with indices in range, a removal mask per
    /// game or none.
    ///
    /// # Errors
    /// The first part that disagrees.
    pub(super) fn check(&self) -> Result<(), &'static str> {
        let n = self.lines.len();
        if !self.columns.frozen_len().is_multiple_of(self.block_len())
            || self.columns.len() != self.blocks() * self.block_len()
        {
            return Err("columns");
        }
        // Each game's events follow the previous game's, none straddles
        // the frozen ones' end, and together they are all the events.
        let frozen = self.events.frozen_len() as u32;
        let mut end = 0;
        for l in &self.lines {
            let Range { start, end: e } = l.events;
            if start != end || e < start || (start < frozen && e > frozen) {
                return Err("events");
            }
            end = e;
        }
        if end as usize != self.events.len() {
            return Err("events");
        }
        if self.ids.len() != n || self.lines.iter().zip(&self.ids).any(|(l, &id)| l.id != id) {
            return Err("lines");
        }
        if self.winners.len() != n
            || self.listed.len() != n
            || self.listed.iter().any(|&g| g as usize >= n)
        {
            return Err("answer order");
        }
        if !self.kept.is_empty() && self.kept.len() != n {
            return Err("removal mask");
        }
        Ok(())
    }

    /// The number of blocks.
    pub(crate) fn blocks(&self) -> usize {
        self.lines.len().div_ceil(LANES)
    }

    /// Bytes held (columns, events, lines and ids, the region index).
    pub(crate) fn bytes(&self) -> usize {
        self.columns.len() * 2
            + self.events.len() * 4
            + self.lines.len() * (std::mem::size_of::<Line>() + 1)
            + self.ids.len() * 4
            + self.plies.len() * 4
            + self.years.len() * 2
            + self.rank.len() * 4
            + self
                .lines
                .iter()
                .map(|l| l.nodes.as_ref().map_or(0, |n| n.len() * 4))
                .sum::<usize>()
            + self.regions.as_ref().map_or(0, Regions::bytes)
    }

    /// Bytes of [`Group::bytes`] mapped from the node's snapshot (the
    /// system's page cache, not the heap).
    pub(crate) fn mapped_bytes(&self) -> usize {
        self.columns.mapped_bytes()
            + self.events.mapped_bytes()
            + self.regions.as_ref().map_or(0, Regions::mapped_bytes)
    }

    /// The index in [`Group::events`] of a game's first event after node
    /// `t`. Found by a walk from event `t` (about where node `t` is: one
    /// event a move, plus setup stones and captures, minus passes), not by
    /// a binary search: the game's events are rarely in cache, and reads
    /// next to each other are prefetched where a binary search's are not
    /// (a search with many hits, such as the 4-4 3-3 invasion, ran faster
    /// with the walk).
    pub(crate) fn first_after(&self, line: &Line, t: u16) -> usize {
        let events = self.events(line);
        let mut j = usize::from(t).min(events.len());
        while j > 0 && events[j - 1].node() > t {
            j -= 1;
        }
        while j < events.len() && events[j].node() <= t {
            j += 1;
        }
        j
    }

    /// The raw event where [`Group::first_after`] starts its walk for
    /// node `t` (0 for a game without events): read ahead of a batch of
    /// such walks so that their cache misses overlap.
    #[inline]
    pub(crate) fn event_near(&self, line: &Line, t: u16) -> u32 {
        let events = self.events(line);
        events
            .get(usize::from(t).min(events.len().saturating_sub(1)))
            .map_or(0, |e| e.raw())
    }

    /// A game's events.
    pub(crate) fn events(&self, line: &Line) -> &[Event] {
        self.events
            .get(line.events.start as usize..line.events.end as usize)
    }

    /// Tests every placement on the games of block `block`; pushes
    /// `(game index, placement index, first node)` for each match (in no
    /// particular order within the block).
    /// `groups` lists the placements that share their non-stone points.
    ///
    /// Works [`CHUNK`] lanes at a time: the stones' bounds first (a chunk
    /// where no stone can ever stand is skipped), then the non-stone
    /// points, nearest the stones first, stopping as soon as every lane
    /// is decided against (both bounds only tighten as points are added).
    pub(crate) fn scan_block(
        &self,
        block: usize,
        placements: &[Placement],
        groups: &[Vec<u32>],
        scratch: &mut Scratch,
        out: &mut Vec<(u32, u32, u16)>,
    ) {
        let len = self.block_len();
        let cols = self.columns.get(block * len..(block + 1) * len);
        let games = (self.lines.len() - block * LANES).min(LANES);
        let mut pending = std::mem::take(&mut scratch.pending);
        let mut bounds = std::mem::take(&mut scratch.stones);
        pending.clear();
        for group in groups {
            let first = &placements[group[0] as usize];
            let others = &first.cells[first.stones..];
            for lo in (0..games).step_by(CHUNK) {
                bounds.clear();
                let mut standing = false;
                for &k in group {
                    let pl = &placements[k as usize];
                    let s = Stones::of(cols, lo, &pl.cells[..pl.stones]);
                    standing |= s.may_stand(games - lo);
                    bounds.push(s);
                }
                if !standing {
                    continue;
                }
                let mut e = Empties::new();
                if !e.add_while_alive(cols, lo, others, &bounds) {
                    continue;
                }
                for (&k, s) in group.iter().zip(&bounds) {
                    let fate = s.fates(&e);
                    for (c, eight) in fate.chunks_exact(8).enumerate() {
                        if u64::from_le_bytes(eight.try_into().expect("8 lanes")) == 0 {
                            continue;
                        }
                        for (j, &f) in eight.iter().enumerate() {
                            let i = c * 8 + j;
                            if f == 0 || lo + i >= games {
                                continue;
                            }
                            let g = (block * LANES + lo + i) as u32;
                            if f & 1 != 0 {
                                out.push((g, k, s.l1[i] as u16));
                            } else {
                                // No match before the first departure (the
                                // first life decided that) nor before
                                // every stone can stand.
                                let dm = s.dm[i].min(e.dm[i]);
                                pending.push((g, k, dm.max(s.lg[i]) as u16));
                            }
                        }
                    }
                }
            }
        }
        self.replay_open(block, placements, &mut pending, scratch, out);
        scratch.pending = pending;
        scratch.stones = bounds;
    }

    /// The pairs the bounds left open in block `block` (`open`: game
    /// index, placement, node to replay from): each game replayed once for
    /// all of its placements, its matches pushed to `out`.
    #[inline(always)]
    fn replay_open(
        &self,
        block: usize,
        placements: &[Placement],
        open: &mut [(u32, u32, u16)],
        scratch: &mut Scratch,
        out: &mut Vec<(u32, u32, u16)>,
    ) {
        group_by_game(block, open, &mut scratch.grouped);
        for run in open.chunk_by(|a, b| a.0 == b.0) {
            let g = run[0].0;
            let pls: Vec<(&Placement, u16)> = run
                .iter()
                .map(|&(_, k, start)| (&placements[k as usize], start))
                .collect();
            self.verify(&self.lines[g as usize], &pls, scratch);
            for (&(_, k, _), t) in run.iter().zip(&scratch.found) {
                if let Some(t) = *t {
                    out.push((g, k, t));
                }
            }
        }
    }

    /// Replays a game's events and sets `s.found[i]` to the first node at
    /// whose end placement `pls[i].0` matches (`None`: never), knowing
    /// that it cannot match before node `pls[i].1`. One replay per 64
    /// placements; each event marks the placements that test its point
    /// (64-bit masks per point), and only those are tested at the end of
    /// its node, less those whose cell there rejects the point's new
    /// state.
    pub(crate) fn verify(&self, line: &Line, pls: &[(&Placement, u16)], s: &mut Scratch) {
        s.found.clear();
        s.found.resize(pls.len(), None);
        for (c, chunk) in pls.chunks(64).enumerate() {
            self.verify64(line, chunk, c * 64, s);
        }
    }

    /// [`Group::verify`] for up to 64 placements, whose results go to
    /// `s.found[at..]`.
    fn verify64(&self, line: &Line, pls: &[(&Placement, u16)], at: usize, s: &mut Scratch) {
        let n = self.board.len();
        s.state.clear();
        s.state.resize(n, 0);
        // Set for these placements' points only, and cleared after.
        s.watch.resize(n, 0);
        s.allow.resize(n, [0; 3]);
        for (j, (pl, _)) in pls.iter().enumerate() {
            for &(p, c) in &pl.cells {
                s.watch[usize::from(p)] |= 1 << j;
                for (st, a) in s.allow[usize::from(p)].iter_mut().enumerate() {
                    *a |= u64::from(c.allows(st as u8)) << j;
                }
            }
        }
        let mut left: u64 = u64::MAX >> (64 - pls.len());
        let events = self.events(line);
        // Up to the earliest start, the points only change.
        let start = pls.iter().map(|p| p.1).min().unwrap_or(0);
        let mut i = 0;
        while i < events.len() && events[i].node() < start {
            s.state[events[i].point()] = events[i].state();
            i += 1;
        }
        // Then each node, testing the placements whose points it changed
        // (a placement starts at a node where one of its points changes),
        // but not those that a changed point's new state rules out.
        while let Some(&e) = events.get(i) {
            let node = e.node();
            let first = i;
            let mut dirty = 0;
            while i < events.len() && events[i].node() == node {
                let e = events[i];
                s.state[e.point()] = e.state();
                dirty |= s.watch[e.point()];
                i += 1;
            }
            dirty &= left;
            if dirty == 0 {
                continue;
            }
            for e in &events[first..i] {
                dirty &= s.allow[e.point()][usize::from(s.state[e.point()])] | !s.watch[e.point()];
            }
            while dirty != 0 {
                let j = dirty.trailing_zeros() as usize;
                dirty &= dirty - 1;
                let (pl, from) = pls[j];
                if node >= from
                    && pl
                        .cells
                        .iter()
                        .all(|&(p, c)| c.allows(s.state[usize::from(p)]))
                {
                    s.found[at + j] = Some(node);
                    left &= !(1 << j);
                }
            }
            if left == 0 {
                break;
            }
        }
        for (pl, _) in pls {
            for &(p, _) in &pl.cells {
                s.watch[usize::from(p)] = 0;
                s.allow[usize::from(p)] = [0; 3];
            }
        }
    }
}

/// What the index holds: every group, and how far it has caught up.
#[derive(Default)]
pub(crate) struct Loaded {
    /// Every game up to `at.games` is in, every removal up to
    /// `at.removals` masked.
    pub(super) at: Sequences,
    pub(crate) groups: Vec<(GameKind, Group)>,
    /// Whether the region segments of the first load are left unmerged
    /// until [`PatternIndex::settle`](super::load::PatternIndex::settle)
    /// (refreshes meanwhile add theirs unmerged too).
    pub(super) unmerged: bool,
    /// Whether the first load left the region index to
    /// [`PatternIndex::fill_regions`](super::load::PatternIndex::fill_regions):
    /// it read the blocks' games alone; until the fill, no group gathers
    /// region entries and searches scan ([`Loaded::region_index`] is
    /// `None`).
    pub(crate) regions_deferred: bool,
}

impl Loaded {
    /// `group`'s region index, when it answers searches: `None` on a board
    /// without regions, and while the region index is deferred.
    pub(super) fn region_index<'a>(&self, group: &'a Group) -> Option<&'a Regions> {
        group.regions.as_ref().filter(|_| !self.regions_deferred)
    }

    /// The group of `pattern`'s board, when it has games.
    pub(super) fn group(&self, pattern: &Pattern) -> Option<&Group> {
        self.groups
            .iter()
            .find(|(k, g)| *k == pattern.kind() && g.board == pattern.board())
            .map(|(_, g)| g)
    }
}

/// The first move after node `t` inside a placement's region: (pattern
/// point index, colour in the pattern's colours, whether it came
/// [`TENUKI_NODES`] or more nodes after `t`).
/// `table` is the placement's
/// [`Placements::point_table`](super::placement::Placements::point_table); `swapped` says
/// whether it exchanges colours.
pub(super) fn continuation(
    group: &Group,
    line: &Line,
    table: &[u16],
    swapped: bool,
    t: u16,
) -> Next {
    let events = group.events(line);
    events[group.first_after(line, t)..].iter().find_map(|e| {
        let pp = table[e.point()];
        if pp == u16::MAX {
            return None;
        }
        let mover = e.mover()?;
        let color = if swapped { mover.opposite() } else { mover };
        Some((pp, color, e.node() - t >= TENUKI_NODES))
    })
}

/// Groups `(game index, placement, node)` triples of block `block` by game,
/// in ascending order, keeping their order within a game: a counting sort
/// on the lane (`grouped` is scratch space).
fn group_by_game(block: usize, found: &mut [(u32, u32, u16)], grouped: &mut Vec<(u32, u32, u16)>) {
    if found.len() < 2 {
        return;
    }
    let mut at = [0u32; LANES + 1];
    for f in found.iter() {
        at[f.0 as usize - block * LANES + 1] += 1;
    }
    for i in 0..LANES {
        at[i + 1] += at[i];
    }
    grouped.clear();
    grouped.resize(found.len(), (0, 0, 0));
    for f in found.iter() {
        let slot = &mut at[f.0 as usize - block * LANES];
        grouped[*slot as usize] = *f;
        *slot += 1;
    }
    found.copy_from_slice(grouped);
}

/// Scratch space of a scan, reused across blocks and games.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    state: Vec<u8>,
    found: Vec<Option<u16>>,
    /// Per point, the placements (bits) that have a cell there: the union
    /// of `allow`'s three, kept apart because every event reads it.
    watch: Vec<u64>,
    /// Per point and state (empty, black, white), the placements (bits)
    /// that have a cell there allowing that state.
    allow: Vec<[u64; 3]>,
    pending: Vec<(u32, u32, u16)>,
    grouped: Vec<(u32, u32, u16)>,
    stones: Vec<Stones>,
}

/// Lanes per chunk of a scan: the unit of its early exit (a cache line
/// of 16-bit lanes).
const CHUNK: usize = 32;

/// The bounds of a placement's non-stone points over one chunk's lanes
/// (see the module docs): `u1` the earliest first-life arrival they
/// forbid, `ug` the earliest arrival that forbids for ever (points that
/// never leave their first life; [`NO_BOUND`] for none), `dm` the earliest
/// departure among them.
struct Empties {
    u1: [i16; CHUNK],
    ug: [i16; CHUNK],
    dm: [i16; CHUNK],
}

/// A placement's stones' bounds over one chunk's lanes: `l1` the latest
/// first-life arrival they need, `lg` the earliest node each can stand,
/// `dm` the earliest departure of a stone point.
#[derive(Debug)]
pub(crate) struct Stones {
    l1: [i16; CHUNK],
    lg: [i16; CHUNK],
    dm: [i16; CHUNK],
}

/// A point's two lanes in a block's columns, for the chunk from lane `lo`.
#[inline(always)]
fn lanes(cols: &[i16], p: u16, lo: usize) -> (&[i16; CHUNK], &[i16; CHUNK]) {
    let base = usize::from(p) * 2 * LANES + lo;
    let a = cols[base..base + CHUNK].try_into().expect("chunk width");
    let d = cols[base + LANES..base + LANES + CHUNK]
        .try_into()
        .expect("chunk width");
    (a, d)
}

impl Empties {
    fn new() -> Empties {
        Empties {
            u1: [NEVER_LANE; CHUNK],
            ug: [NO_BOUND; CHUNK],
            dm: [NEVER_LANE; CHUNK],
        }
    }

    /// Adds the non-stone points `others` over the chunk from `lo`, in
    /// order (nearest the stones first), while some placement's stones
    /// (`bounds`) leave a lane alive (checked after 8, 16 and 32 points);
    /// returns whether they still do.
    #[inline(always)]
    fn add_while_alive(
        &mut self,
        cols: &[i16],
        lo: usize,
        others: &[(u16, Cell)],
        bounds: &[Stones],
    ) -> bool {
        for (j, &(p, cell)) in others.iter().enumerate() {
            self.add(cols, lo, p, cell);
            if matches!(j, 7 | 15 | 31) && !bounds.iter().any(|s| s.alive(self)) {
                return false;
            }
        }
        true
    }

    /// Adds a non-stone point (`.`, `x`, `o`).
    #[inline(always)]
    fn add(&mut self, cols: &[i16], lo: usize, p: u16, cell: Cell) {
        let (a, d) = lanes(cols, p, lo);
        match cell {
            Cell::Empty => self.bound(a, d, |a| a & NEVER_LANE),
            // `x` is bounded by a first white stone, `o` by a first black.
            Cell::BlackOrEmpty => self.bound(a, d, |a| first_of(a, true)),
            Cell::WhiteOrEmpty => self.bound(a, d, |a| first_of(a, false)),
            Cell::Black | Cell::White | Cell::Any => {}
        }
    }

    /// Lowers the bounds by a point whose lanes are `a`, `d`, with `first`
    /// the node from which its arrival forbids the cell.
    #[inline(always)]
    fn bound(&mut self, a: &[i16; CHUNK], d: &[i16; CHUNK], first: impl Fn(i16) -> i16) {
        for i in 0..CHUNK {
            let f = first(a[i]);
            self.u1[i] = self.u1[i].min(f);
            self.ug[i] = self.ug[i].min(f | unstable(d[i]));
            self.dm[i] = self.dm[i].min(d[i]);
        }
    }
}

impl Stones {
    /// The bounds of a placement's stone points over the chunk from `lo`.
    #[inline(always)]
    fn of(cols: &[i16], lo: usize, cells: &[(u16, Cell)]) -> Stones {
        let mut v = Stones {
            l1: [0; CHUNK],
            lg: [0; CHUNK],
            dm: [NEVER_LANE; CHUNK],
        };
        for &(p, cell) in cells {
            let (a, d) = lanes(cols, p, lo);
            let white = cell == Cell::White;
            for i in 0..CHUNK {
                let f = first_of(a[i], white);
                v.l1[i] = v.l1[i].max(f);
                v.lg[i] = v.lg[i].max(f.min(d[i]));
                v.dm[i] = v.dm[i].min(d[i]);
            }
        }
        v
    }

    /// Whether, in one of the chunk's first `games` lanes, every stone can
    /// stand at some node (in the others the pattern cannot match).
    #[inline(always)]
    fn may_stand(&self, games: usize) -> bool {
        self.lg[..games.min(CHUNK)]
            .iter()
            .fold(NEVER_LANE, |m, &x| m.min(x))
            < NEVER_LANE
    }

    /// Whether some lane may still match with the non-stone points added
    /// so far: a first-life match (`l1` below both upper bounds) or a
    /// replay (`ug` above `lg`); more points only lower `u1`, `ug`, `dm`.
    #[inline(always)]
    fn alive(&self, e: &Empties) -> bool {
        let mut m = 0i16;
        for i in 0..CHUNK {
            let l1 = self.l1[i];
            let exact = (l1 < e.u1[i]) & (l1 < self.dm[i].min(e.dm[i]));
            let open = (self.lg[i] < NEVER_LANE) & (self.lg[i] < e.ug[i]);
            m |= i16::from(exact | open);
        }
        m != 0
    }

    /// Each lane's fate with the non-stone points' bounds `e`, computed
    /// branch-free for all lanes: bit 0 a first-life match at `l1`, bit 1
    /// to replay.
    #[inline(always)]
    fn fates(&self, e: &Empties) -> [u8; CHUNK] {
        let mut fate = [0u8; CHUNK];
        for (i, f) in fate.iter_mut().enumerate() {
            let (l1, lg) = (self.l1[i], self.lg[i]);
            let dm = self.dm[i].min(e.dm[i]);
            let exact = (l1 < e.u1[i]) & (l1 < dm);
            let open = (dm < NEVER_LANE) & (lg < NEVER_LANE) & (dm.max(lg) < e.ug[i]);
            *f = u8::from(exact) | u8::from(open) << 1;
        }
        fate
    }
}
