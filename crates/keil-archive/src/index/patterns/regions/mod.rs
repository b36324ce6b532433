//! The region index of a board: for each stored game and each of the
//! board's fixed regions, the first node at which the region held each of
//! its contents with 1 to a few stones, and the first move played in the
//! region after that node, found by content (Kombilo hashes its corner
//! positions the same way).
//!
//! The regions ([`Shape`]):
//! - on square boards from 8×8 (Go, Kaomi), the four 7×7 corner regions,
//!   contents of 1 to 8 stones: the joseki search;
//! - on the same boards, the 5×5 side windows: 5 points deep from an edge
//!   and 5 wide, at every offset along it that touches no other edge
//!   (Kombilo's side patterns slide so), contents of 1 to
//!   [`SIDE_STONES`] stones: the side patterns of that size (52 windows
//!   on 19×19);
//! - on the same boards, the four 5×5 corner boxes, each with its *stone
//!   sets* rather than its contents: each stone, and each pair of
//!   neighbouring stones (one of the eight points around the other), the
//!   box held at once, whatever its other points held, at the first node
//!   it held them: the common wildcard corners (a stone or two, `*`
//!   everywhere else; Kombilo's 4-4 and 3-3 with `*` elsewhere);
//! - on Keil boards, each point with all six neighbours, together with them
//!   (91 such 7-point regions on side 7), contents of 1 to 3 stones: the
//!   local shape searched anywhere on the hexagon.
//!
//! A pattern whose every placement covers exactly one region, with a
//! black, white or empty value at each of its points, is answered here by
//! one lookup per placement. A few wildcards are expanded: a placement
//! whose `x`, `o` and `*` points stand for at most [`MAX_CONTENTS`]
//! contents, each with 1 to the shape's most stones, is one lookup per
//! content. Every other pattern, and every board without regions, is left
//! to the scan of [`super::index`]. A 5×5 corner pattern of one stone, or
//! two neighbouring stones, and `*` elsewhere is one lookup per placement
//! in its corner box's stone sets. The two give the same hits, first
//! nodes and continuations; the tests compare them on generated games.
//!
//! **Keys** are exact, not hashes: each stone is the code `1 + 2 × rank +
//! white` of its point's rank in the region (points in board order) and
//! its colour, in [`Shape::code_bits`] bits, the codes in rank order; above
//! them, the region's number.
//!
//! **Entries** are `(game, first node, continuation)`. The continuation is
//! the first move played inside the region after the first node (its
//! rank, its colour, and whether it came [`TENUKI_NODES`] or more
//! nodes later): every hit an entry answers has that continuation, so a
//! search reads no game's events.
//!
//! **Layout.** Entries are kept in segments, each sorted by key and then
//! game: a key's entries are one run of bytes, each entry a varint game
//! (the difference from the run's previous game), a varint node and a
//! continuation byte (3 to 4 bytes an entry), or, for the common contents,
//! a bitmap of games with plain arrays of nodes and continuations (see
//! [`super::runs`], which owns both encodings). A batch of pushed games
//! (a decoded pattern block's) is cut into a few ranges of games, and each
//! range's entries are found, sorted and encoded into a segment of its own,
//! the ranges in parallel ([`Regions::push_all`]); those segments are
//! *loose* until the load or refresh ends ([`Regions::seal`]), which
//! merges them in one pass (a k-way merge, in parallel by key range)
//! together with the last segments before them that are no larger than
//! what they join (a binary counter).
//! Segment sizes at least halve from one to the next, so there are few of
//! them; a node's first load copies each entry a few times, never
//! merging it more than once (into its range's segment or out of its
//! pattern block, then the merge and its parts put together), and a
//! one-game upload never rewrites the whole index. A pattern block's
//! segment ([`Regions::push_block`]) numbers its games from the block's
//! first, with the group's games before it as its base (added by lookups
//! and merges). A server's first load leaves the loose segments unmerged
//! and merges them while it serves ([`Regions::put_merged`]). Games only
//! grow, so segments come in game order, and a
//! merge copies each key's runs one after the other: it re-encodes only
//! the newer run's first game, after the older run's last (which segments
//! built during a load carry per key, and others decode), unless the runs
//! are or become dense (then it writes them again).
//!
//! Since the side windows, finding the entries is most of a load's work,
//! which is why the ranges are found in parallel.

use std::sync::Arc;

use keil_rules::{AnyBoard, Color, Point};
use rayon::prelude::*;

use super::events::Event;
pub(crate) use super::runs::Read;
use super::runs::{Entry, Segment, sort_entries};

/// A continuation "after tenuki" comes this many nodes or more after the
/// match (Kombilo).
pub(super) const TENUKI_NODES: u16 = 3;

/// The side of a corner region, in points.
pub(crate) const SIDE: i32 = 7;
/// The width and depth of a side window, in points.
pub(crate) const WINDOW: i32 = 5;
/// The side of a corner box (whose stone sets are indexed), in points.
pub(crate) const BOX: i32 = 5;
/// The most stones of a corner box's indexed stone sets: single stones,
/// and pairs of neighbours (what they cost a game, on generated and on
/// real games, is in BENCHMARKS.md, "Explorer benchmark"; pairs of any two
/// stones of the box cost about three times as much).
pub(crate) const BOX_STONES: u32 = 2;
/// Words of a box's bit set of the stone sets it has held in a game: one
/// bit per set of 1 or 2 stone codes (codes 1 to 50 on a 5×5 box), at
/// `low × 51 + high` (`low` 0 for one stone).
const BOX_WORDS: usize = (51 * 51usize).div_ceil(64);
/// The most stones of a side window's indexed contents: side patterns
/// are searched with few stones, and a window sees many contents (at
/// 100,000 generated 19×19 games, 3 stones cost 716 bytes a game and 4
/// stones 1,367; the whole pattern index holds 3,439 without windows).
pub(crate) const SIDE_STONES: u32 = 3;
/// Most contents a placement may stand for (its `x`, `o` and `*` points
/// expanded) to be answered here: 2 ways for each `x` or `o`, 3 for `*`.
pub(crate) const MAX_CONTENTS: usize = 64;
thread_local! {
    /// Each thread's entries of one range of [`Regions::push_all`] and the
    /// sort's working space, kept from one range to the next (a node's
    /// first load sorts a range of about 4,000 games at a time; fresh
    /// buffers each time made the kernel clear gigabytes of pages).
    static SORTING: std::cell::RefCell<(Vec<Entry>, Vec<Entry>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// The most entries [`SORTING`]'s buffers keep room for after a range
/// (16 bytes each: 64 MiB).
const KEPT_ENTRIES: usize = 1 << 22;

/// The fewest games of one range of [`Regions::push_all`] (a range's
/// entries are one loose segment).
const RANGE_GAMES: usize = if cfg!(test) { 16 } else { 1024 };

/// The regions a board's index holds, and how many stones a content may
/// have to be indexed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// The most stones an indexed content holds (a region may hold fewer:
    /// `Regions::limits`): the contents searched most (joseki openings,
    /// small local shapes) have few, and a pattern with more is left to
    /// the scan, whose first test is its stones.
    pub max_stones: u32,
    /// Bits of one stone's code in a key (ranks up to 48 in a corner
    /// region, 6 in a Keil one).
    pub code_bits: u32,
}

/// The 7×7 corner regions of a square board.
pub(crate) const CORNER: Shape = Shape {
    max_stones: 8,
    code_bits: 7,
};
/// The 7-point regions (a point and its six neighbours) of a Keil board.
/// Three stones at most: at 100,000 generated side-7 games that is 336
/// entries a game (all contents would be ~770).
pub(crate) const ROSETTE: Shape = Shape {
    max_stones: 3,
    code_bits: 4,
};

/// The region index of one board.
#[derive(Debug)]
pub(crate) struct Regions {
    pub shape: Shape,
    /// Each region's points, as a bit set of board points.
    masks: Vec<[u64; 8]>,
    /// Each region's points in rank order.
    points: Vec<Vec<u16>>,
    /// Per board point, the regions holding it and its rank in each.
    members: Vec<Vec<(u16, u8)>>,
    /// Per region, the most stones of its indexed contents (at most the
    /// shape's): the shape's for corners and Keil's rosettes,
    /// [`SIDE_STONES`] for the side windows that follow them,
    /// [`BOX_STONES`] for the corner boxes.
    limits: Vec<u32>,
    /// The first corner box: the regions from it on are boxes, whose
    /// entries are stone sets, not contents (the number of regions when
    /// the board has none).
    boxes: usize,
    /// The binary counter's segments (`..settled`), then the loose ones
    /// of the games pushed since the last [`Regions::seal`]; shared, so
    /// that a merge can read them outside the index's lock
    /// ([`Regions::shared`]).
    segments: Vec<Arc<Segment>>,
    settled: usize,
}

/// [`Regions::entries`]'s state per region: its content (black and white
/// ranks), the keys it held so far in the game, the pending entries still
/// waiting for their continuation, and whether the node changed it.
#[derive(Debug, Default)]
struct Scratch {
    content: Vec<(u64, u64)>,
    seen: Vec<Vec<u64>>,
    open: Vec<Vec<u32>>,
    touched: Vec<u16>,
    is_touched: Vec<bool>,
    /// Per region, the ranks a stone came to in this node.
    arrived: Vec<u64>,
    /// Per corner box, the stone sets it has held in the game.
    sets: Vec<[u64; BOX_WORDS]>,
}

impl Scratch {
    /// The state of `n` regions, cleared.
    fn new(n: usize) -> Scratch {
        Scratch {
            content: vec![(0, 0); n],
            seen: vec![Vec::new(); n],
            open: vec![Vec::new(); n],
            touched: Vec::new(),
            is_touched: vec![false; n],
            arrived: vec![0; n],
            sets: Vec::new(),
        }
    }

    /// Plays event `e` of node `node` in the regions holding its point
    /// (`members`: each region and the point's rank there): their
    /// contents and the stones that came; a move is the continuation of
    /// the entries waiting in those regions (in `pending`). Marks the
    /// regions touched.
    #[inline(always)]
    fn play(&mut self, e: Event, node: u16, members: &[(u16, u8)], pending: &mut [Entry]) {
        for &(region, rank) in members {
            let r = usize::from(region);
            let (b, w) = &mut self.content[r];
            let bit = 1u64 << rank;
            *b &= !bit;
            *w &= !bit;
            match e.state() {
                1 => *b |= bit,
                2 => *w |= bit,
                _ => {}
            }
            if e.state() != 0 {
                self.arrived[r] |= bit;
            }
            // The first move in the region after a content's node is the
            // continuation of the contents it held before.
            if let Some(mover) = e.mover() {
                let white = u8::from(mover == Color::White);
                for at in self.open[r].drain(..) {
                    let entry = &mut pending[at as usize];
                    let tenuki = u8::from(node - entry.node >= TENUKI_NODES);
                    entry.next = 1 + (rank << 2 | white << 1 | tenuki);
                }
            }
            if !self.is_touched[r] {
                self.is_touched[r] = true;
                self.touched.push(region);
            }
        }
    }

    /// Clears the state a game left (the corner boxes' sets stay
    /// allocated).
    #[inline(always)]
    fn clear(&mut self) {
        for r in 0..self.content.len() {
            self.content[r] = (0, 0);
            self.seen[r].clear();
            self.open[r].clear();
        }
        for sets in &mut self.sets {
            *sets = [0; BOX_WORDS];
        }
    }
}

/// The top-left points `(column, row)` of the four corner regions of an
/// `n`×`n` board.
fn origins(n: i32, side: i32) -> [(i32, i32); 4] {
    [(0, 0), (n - side, 0), (0, n - side), (n - side, n - side)]
}

/// The top-left points `(column, row)` of the side windows of an `n`×`n`
/// board: along the top, bottom, left and right edges, at the offsets
/// from 1 to `n - 1 - WINDOW` (touching no other edge).
fn windows(n: i32) -> Vec<(i32, i32)> {
    let offsets = 1..=n - 1 - WINDOW;
    let far = n - WINDOW;
    offsets
        .clone()
        .flat_map(|x| [(x, 0), (x, far)])
        .chain(offsets.flat_map(|y| [(0, y), (far, y)]))
        .collect()
}

/// The points of the `size`×`size` square of `board` whose top-left is
/// `(c0, r0)`.
fn square(board: AnyBoard, (c0, r0): (i32, i32), size: i32) -> Vec<Point> {
    (r0..r0 + size)
        .flat_map(|r| (c0..c0 + size).map(move |c| (c, r)))
        .map(|(c, r)| board.point_at(c, r).expect("a region is on its board"))
        .collect()
}

/// The key of a content (see the module docs): `black` and `white` are bit
/// sets of ranks in region `region`.
fn key(shape: Shape, region: usize, black: u64, white: u64) -> u64 {
    let bits = shape.code_bits;
    let mut codes = 0u64;
    let mut stones = black | white;
    while stones != 0 {
        let rank = u64::from(stones.trailing_zeros());
        codes = codes << bits | (1 + (rank << 1 | (white >> rank & 1)));
        stones &= stones - 1;
    }
    (region as u64) << (bits * shape.max_stones) | codes
}

/// The ranks of a corner box's points next to the point of rank `rank`
/// (the eight around it, inside the box): a box's stone sets of two
/// stones are pairs of neighbours. Ranks are row-major (points in board
/// order).
fn box_near(rank: u32) -> u64 {
    let (r, c) = ((rank / BOX as u32) as i32, (rank % BOX as u32) as i32);
    let mut near = 0u64;
    for (dr, dc) in [
        (-1, -1),
        (-1, 0),
        (-1, 1),
        (0, -1),
        (0, 1),
        (1, -1),
        (1, 0),
        (1, 1),
    ] {
        let (r, c) = (r + dr, c + dc);
        if (0..BOX).contains(&r) && (0..BOX).contains(&c) {
            near |= 1 << (r * BOX + c);
        }
    }
    near
}

/// The entries of corner box `r` at the end of a node at which stones
/// came to its ranks `arrived`, its content now `(b, w)`: each stone, and
/// each pair of neighbouring stones, that holds one of those and that it has not
/// held before in the game (`sets`), each waiting for its continuation
/// (`open`, the box's entries waiting).
fn box_sets(
    shape: Shape,
    r: usize,
    (b, w): (u64, u64),
    arrived: u64,
    (game, node): (u32, u16),
    (sets, open): (&mut [u64; BOX_WORDS], &mut Vec<u32>),
    pending: &mut Vec<Entry>,
) {
    let code = |rank: u32| 1 + 2 * rank as usize + (w >> rank & 1) as usize;
    let mut add = |one: u64, low: usize, high: usize| {
        let i = low * 51 + high;
        if sets[i / 64] >> (i % 64) & 1 != 0 {
            return;
        }
        sets[i / 64] |= 1 << (i % 64);
        open.push(pending.len() as u32);
        pending.push(Entry {
            key: key(shape, r, b & one, w & one),
            game,
            node,
            next: 0,
        });
    };
    let mut new = arrived;
    while new != 0 {
        let a = new.trailing_zeros();
        new &= new - 1;
        add(1 << a, 0, code(a));
        let mut others = (b | w) & box_near(a);
        while others != 0 {
            let q = others.trailing_zeros();
            others &= others - 1;
            let (ca, cq) = (code(a), code(q));
            add(1 << a | 1 << q, ca.min(cq), ca.max(cq));
        }
    }
}

impl Regions {
    /// The region index of `board`, empty; `None` for a board without
    /// regions to index (square under 8×8, or a Keil board too small for a
    /// point with six neighbours).
    pub(crate) fn new(board: AnyBoard) -> Option<Regions> {
        let (shape, regions, corners, boxes): (Shape, Vec<Vec<Point>>, usize, usize) = match board {
            AnyBoard::Square(_) => {
                let n = i32::from(board.size());
                if n <= SIDE {
                    return None;
                }
                let mut regions: Vec<Vec<Point>> = origins(n, SIDE)
                    .into_iter()
                    .map(|o| square(board, o, SIDE))
                    .chain(windows(n).into_iter().map(|o| square(board, o, WINDOW)))
                    .collect();
                let boxes = regions.len();
                regions.extend(origins(n, BOX).into_iter().map(|o| square(board, o, BOX)));
                (CORNER, regions, 4, boxes)
            }
            AnyBoard::Hex(_) => {
                let rosettes: Vec<Vec<Point>> = board
                    .points()
                    .filter_map(|p| {
                        let mut points = board.neighbours(p);
                        (points.len() == 6).then(|| {
                            points.push(p);
                            points
                        })
                    })
                    .collect();
                if rosettes.is_empty() {
                    return None;
                }
                let n = rosettes.len();
                (ROSETTE, rosettes, n, n)
            }
        };
        let n = regions.len();
        let mut index = Regions {
            shape,
            masks: Vec::with_capacity(n),
            points: Vec::with_capacity(n),
            members: vec![Vec::new(); board.len()],
            limits: (0..n)
                .map(|r| {
                    if r < corners {
                        shape.max_stones
                    } else if r < boxes {
                        SIDE_STONES
                    } else {
                        BOX_STONES
                    }
                })
                .collect(),
            boxes,
            segments: Vec::new(),
            settled: 0,
        };
        for (region, mut points) in regions.into_iter().enumerate() {
            points.sort_by_key(|p| p.0);
            let mut mask = [0u64; 8];
            for (rank, p) in points.iter().enumerate() {
                mask[p.index() / 64] |= 1 << (p.index() % 64);
                index.members[p.index()].push((region as u16, rank as u8));
            }
            index.masks.push(mask);
            index.points.push(points.iter().map(|p| p.0).collect());
        }
        Some(index)
    }

    /// Indexes the games `games` (game index, events): the contents each
    /// region held at the end of each node, each content once a game, at
    /// its first node, with its continuation; `games` ascend. Cut into
    /// up to two ranges of games a thread of rayon's pool (at least
    /// [`RANGE_GAMES`] each), whose entries are found, sorted and encoded
    /// in parallel (each thread with its own working state) into a loose
    /// segment each, searchable at once and merged by [`Regions::seal`].
    pub(crate) fn push_all(&mut self, games: &[(u32, &[Event])]) {
        let found = self.found(games);
        self.segments.extend(found.into_iter().map(Arc::new));
    }

    /// The entries of `games` (as for [`Regions::push_all`]) as one
    /// segment that knows its runs' last games: a pattern block's
    /// ([`super::block`], games numbered from 0 in the block). Found on
    /// the calling thread: the import's writer calls it while the next
    /// batches are prepared on rayon's pool (the import is as fast as
    /// with the ranges found in parallel there, at 100,000 games).
    pub(super) fn block_segment(&self, games: &[(u32, &[Event])]) -> Segment {
        self.range_segment(games, &mut Scratch::new(self.points.len()))
    }

    /// Adds a pattern block's segment, its games numbered from `base`
    /// (every game before it already pushed), as a loose segment.
    pub(super) fn push_block(&mut self, mut segment: Segment, base: u32) {
        segment.base = base;
        if !segment.keys.is_empty() {
            self.segments.push(Arc::new(segment));
        }
    }

    /// [`Regions::push_all`]'s segments (none empty).
    fn found(&self, games: &[(u32, &[Event])]) -> Vec<Segment> {
        let n = self.points.len();
        let ranges = rayon::current_num_threads() * 2;
        let per = games.len().div_ceil(ranges).max(RANGE_GAMES);
        let found: Vec<Segment> = games
            .par_chunks(per)
            .map_init(|| Scratch::new(n), |s, chunk| self.range_segment(chunk, s))
            .collect();
        found.into_iter().filter(|s| !s.keys.is_empty()).collect()
    }

    /// The entries of `games` sorted into one segment, with `s` as working
    /// state (and this thread's [`SORTING`] buffers).
    fn range_segment(&self, games: &[(u32, &[Event])], s: &mut Scratch) -> Segment {
        SORTING.with_borrow_mut(|(entries, spare)| {
            entries.clear();
            for &(game, events) in games {
                self.entries(game, events, s, entries);
            }
            sort_entries(entries, spare);
            let segment = Segment::encode(entries);
            if entries.capacity() > KEPT_ENTRIES {
                *entries = Vec::new();
                *spare = Vec::new();
            }
            segment
        })
    }

    /// Appends game `game`'s entries to `pending` (see [`Regions::push_all`]),
    /// with `s` as working state (left cleared).
    fn entries(&self, game: u32, events: &[Event], s: &mut Scratch, pending: &mut Vec<Entry>) {
        s.sets.resize(s.content.len() - self.boxes, [0; BOX_WORDS]);
        let mut i = 0;
        while i < events.len() {
            let node = events[i].node();
            while i < events.len() && events[i].node() == node {
                let e = events[i];
                s.play(e, node, &self.members[e.point()], pending);
                i += 1;
            }
            self.node_entries((game, node), s, pending);
        }
        s.clear();
    }

    /// Appends to `pending` the entries of the regions node `node` of game
    /// `game` changed (`s`'s touched regions, left none): a corner box's
    /// new stone sets, another region's content when it is new in the
    /// game and holds 1 to the region's most stones; each waits for its
    /// continuation.
    #[inline(always)]
    fn node_entries(&self, (game, node): (u32, u16), s: &mut Scratch, pending: &mut Vec<Entry>) {
        let Regions {
            shape,
            limits,
            boxes,
            ..
        } = self;
        let boxes = *boxes;
        for region in s.touched.drain(..) {
            let r = usize::from(region);
            s.is_touched[r] = false;
            let (b, w) = s.content[r];
            let arrived = std::mem::take(&mut s.arrived[r]) & (b | w);
            if r >= boxes {
                let sets = &mut s.sets[r - boxes];
                let waiting = (sets, &mut s.open[r]);
                box_sets(*shape, r, (b, w), arrived, (game, node), waiting, pending);
                continue;
            }
            if !(1..=limits[r]).contains(&(b | w).count_ones()) {
                continue;
            }
            let key = key(*shape, r, b, w);
            if !s.seen[r].contains(&key) {
                s.seen[r].push(key);
                s.open[r].push(pending.len() as u32);
                pending.push(Entry {
                    key,
                    game,
                    node,
                    next: 0,
                });
            }
        }
    }

    /// Takes out the entries of games `n` and later (the segments left
    /// are all loose: the next [`Regions::seal`] merges them).
    pub(crate) fn truncate(&mut self, n: u32) {
        for s in &mut self.segments {
            *s = Arc::new(s.below(n));
        }
        self.segments.retain(|s| !s.keys.is_empty());
        self.settled = 0;
    }

    /// Merges the loose segments (the games pushed since the last call)
    /// into one, with the segments before them that are no larger than
    /// what they join (the binary counter), in one k-way pass.
    pub(crate) fn seal(&mut self) {
        if self.settled == self.segments.len() {
            return;
        }
        let mut size: usize = self.segments[self.settled..]
            .iter()
            .map(|s| s.data.len())
            .sum();
        let mut from = self.settled;
        while from > 0 && size >= self.segments[from - 1].data.len() {
            from -= 1;
            size += self.segments[from].data.len();
        }
        let merging = self.segments.split_off(from);
        self.segments.extend(Regions::merge(&merging));
        self.settled = self.segments.len();
    }

    /// `segments` (in game order) as one segment: none for none, a
    /// segment whose games need no base as it is, else their
    /// [`Segment::merge_all`].
    pub(super) fn merge(segments: &[Arc<Segment>]) -> Option<Arc<Segment>> {
        match segments {
            [] => None,
            [one] if one.base == 0 => Some(one.clone()),
            _ => Some(Arc::new(Segment::merge_all(segments))),
        }
    }

    /// Merges the segments into one (after a node's first load: a lookup
    /// then reads one run a key rather than one in each of the binary
    /// counter's segments). Copies mapped segments into the heap: not for
    /// an index read from a snapshot.
    pub(crate) fn compact(&mut self) {
        self.seal();
        if self.segments.len() > 1 {
            let one = Segment::merge_all(&self.segments);
            self.segments = vec![Arc::new(one)];
            self.settled = 1;
        }
        self.forget_lasts();
    }

    /// Drops the segments' last games: the loads' merges are done.
    fn forget_lasts(&mut self) {
        for s in &mut self.segments {
            if let Some(s) = Arc::get_mut(s) {
                s.lasts = Vec::new();
            }
        }
    }

    /// The segments as they are now, sealed or not, to be merged outside
    /// the index's lock ([`Regions::merge`]) and put back with
    /// [`Regions::put_merged`].
    pub(super) fn shared(&self) -> Vec<Arc<Segment>> {
        self.segments.clone()
    }

    /// Puts `merged`, the merge of `of` (segments [`Regions::shared`]
    /// gave), in their place when they are still the first segments held
    /// (no refresh took games out since), then seals what was added after
    /// them, as [`Regions::compact`] leaves a load. Returns whether it
    /// did; when not, nothing changed.
    pub(super) fn put_merged(&mut self, of: &[Arc<Segment>], merged: Option<Arc<Segment>>) -> bool {
        let held = self.segments.get(..of.len());
        if !held.is_some_and(|h| h.iter().zip(of).all(|(a, b)| Arc::ptr_eq(a, b))) {
            return false;
        }
        let after = self.segments.split_off(of.len());
        self.segments = merged.into_iter().collect();
        self.settled = self.segments.len();
        self.segments.extend(after);
        self.seal();
        self.forget_lasts();
        true
    }

    /// The sorted segments (once [`Regions::seal`]ed: every entry is in
    /// one).
    pub(super) fn segments(&self) -> &[Arc<Segment>] {
        debug_assert_eq!(self.settled, self.segments.len(), "sealed");
        &self.segments
    }

    /// Replaces the segments (an empty index read back from a snapshot).
    pub(super) fn set_segments(&mut self, segments: Vec<Segment>) {
        self.settled = segments.len();
        self.segments = segments.into_iter().map(Arc::new).collect();
    }

    /// Bytes of [`Regions::bytes`] mapped from the node's snapshot.
    pub(crate) fn mapped_bytes(&self) -> usize {
        self.segments
            .iter()
            .map(|s| s.keys.mapped_bytes() + s.starts.mapped_bytes() + s.data.mapped_bytes())
            .sum()
    }

    /// Copies the mapped segments into the heap, each array as `pins`
    /// grants its bytes (see [`crate::Archive::pin_indexes`]).
    pub(crate) fn pin(&mut self, pins: &mut crate::memory::Pins) {
        // A segment a merge reads meanwhile stays mapped.
        for s in self.segments.iter_mut().filter_map(Arc::get_mut) {
            s.keys.pin(pins);
            s.starts.pin(pins);
            s.data.pin(pins);
        }
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.segments.iter().map(|s| s.bytes()).sum::<usize>()
    }
}

/// A hit's continuation: the pattern point, the colour in the pattern's
/// colours, and whether it came after a tenuki.
pub(crate) type Next = Option<(u16, Color, bool)>;

pub(crate) mod lookup;

#[cfg(test)]
mod tests;
