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
use super::pattern::Cell;
use super::placement::{Placement, Placements};
pub(crate) use super::runs::Read;
use super::runs::{Entry, Run, Segment, sort_entries};
use keil_store::budget::Budget;

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

/// What a placement matches in a region: its fixed stones (black and
/// white ranks), and each open point's rank and choice of states (bit 0
/// empty, 1 black, 2 white).
struct Choices {
    fixed: (u64, u64),
    open: Vec<(u8, u8)>,
}

impl Choices {
    /// The contents (black and white ranks) the choices stand for, each
    /// open point in each of its states; `None` for more than
    /// [`MAX_CONTENTS`] (counted first: a pattern with many `*` stands for
    /// far too many).
    fn contents(&self) -> Option<Vec<(u64, u64)>> {
        self.open.iter().try_fold(1usize, |n, &(_, states)| {
            Some(n * states.count_ones() as usize).filter(|&n| n <= MAX_CONTENTS)
        })?;
        let mut content = vec![self.fixed];
        for &(rank, states) in &self.open {
            let bit = 1u64 << rank;
            content = content
                .into_iter()
                .flat_map(|(b, w)| {
                    [(b, w), (b | bit, w), (b, w | bit)]
                        .into_iter()
                        .enumerate()
                        .filter(move |(i, _)| states >> i & 1 != 0)
                        .map(|(_, c)| c)
                })
                .collect();
        }
        Some(content)
    }
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

    /// The region a placement covers exactly, and the keys of the contents
    /// it matches, when the index can answer it: each point black, white
    /// or empty once its `x`, `o` and `*` points (those outside its cells)
    /// are expanded, at most [`MAX_CONTENTS`] contents, each with 1 to the
    /// shape's most stones.
    fn keys_of(&self, pl: &Placement) -> Option<(usize, Vec<u64>)> {
        let region = self.masks.iter().position(|r| *r == pl.region)?;
        if region >= self.boxes {
            return Some((region, vec![self.box_key(region, pl)?]));
        }
        let keys = self
            .choices(region, pl)?
            .contents()?
            .into_iter()
            .map(|(b, w)| {
                (1..=self.limits[region])
                    .contains(&(b | w).count_ones())
                    .then(|| key(self.shape, region, b, w))
            })
            .collect::<Option<_>>()?;
        Some((region, keys))
    }

    /// The rank of board point `p` in region `region`, if it is one of
    /// its points.
    fn rank_in(&self, region: usize, p: u16) -> Option<u8> {
        self.members[usize::from(p)]
            .iter()
            .find(|m| usize::from(m.0) == region)
            .map(|m| m.1)
    }

    /// The key of corner box `region` that answers `pl`, when its stone
    /// sets can: one stone, or two neighbours, with `*` elsewhere (a
    /// placement's cells hold no `*`).
    fn box_key(&self, region: usize, pl: &Placement) -> Option<u64> {
        if pl.cells.len() != pl.stones || !(1..=BOX_STONES).contains(&(pl.stones as u32)) {
            return None;
        }
        let (mut b, mut w) = (0u64, 0u64);
        for &(p, cell) in &pl.cells {
            let bit = 1u64 << self.rank_in(region, p)?;
            if cell == Cell::White {
                w |= bit;
            } else {
                b |= bit;
            }
        }
        // Two stones: neighbours only.
        let stones = b | w;
        if stones.count_ones() == 2 && box_near(stones.trailing_zeros()) & stones == 0 {
            return None;
        }
        Some(key(self.shape, region, b, w))
    }

    /// `pl`'s [`Choices`] in region `region`, a point of the region
    /// outside its cells being `*`; `None` when a cell is outside the
    /// region.
    fn choices(&self, region: usize, pl: &Placement) -> Option<Choices> {
        let (mut b, mut w) = (0u64, 0u64);
        let mut open: Vec<(u8, u8)> = Vec::new();
        let mut seen = 0u64;
        for &(p, cell) in &pl.cells {
            let rank = self.rank_in(region, p)?;
            seen |= 1 << rank;
            match cell {
                Cell::Black => b |= 1 << rank,
                Cell::White => w |= 1 << rank,
                Cell::Empty => {}
                Cell::BlackOrEmpty => open.push((rank, 0b011)),
                Cell::WhiteOrEmpty => open.push((rank, 0b101)),
                Cell::Any => open.push((rank, 0b111)),
            }
        }
        let all = u64::MAX >> (64 - self.points[region].len());
        let mut rest = all & !seen;
        while rest != 0 {
            open.push((rest.trailing_zeros() as u8, 0b111));
            rest &= rest - 1;
        }
        Some(Choices {
            fixed: (b, w),
            open,
        })
    }

    /// The lookups that answer `placements`, or `None` when some placement
    /// is not one the index can answer.
    pub(crate) fn lookup<'a>(&'a self, placements: &Placements) -> Option<Lookup<'a>> {
        let mut keys = Vec::with_capacity(placements.list.len());
        let mut ranks = Vec::with_capacity(placements.list.len());
        for pl in &placements.list {
            let (region, k) = self.keys_of(pl)?;
            keys.push(k);
            // Rank → the pattern point there (every point of the region is
            // one: the region is the placement's).
            ranks.push(
                self.points[region]
                    .iter()
                    .map(|&p| {
                        placements
                            .pattern_point(pl, Point(p))
                            .expect("a placement's region holds only its points")
                    })
                    .collect(),
            );
        }
        Some(Lookup {
            regions: self,
            keys,
            ranks,
            swapped: placements.list.iter().map(|pl| pl.swapped).collect(),
        })
    }
}

/// A search the region index answers: per placement, the keys of the
/// contents it matches and the pattern point at each rank of its region.
pub(crate) struct Lookup<'a> {
    regions: &'a Regions,
    keys: Vec<Vec<u64>>,
    ranks: Vec<Vec<u16>>,
    swapped: Vec<bool>,
}

/// A hit's continuation: the pattern point, the colour in the pattern's
/// colours, and whether it came after a tenuki.
pub(crate) type Next = Option<(u16, Color, bool)>;

impl<'a> Lookup<'a> {
    /// Calls `f(placement, hits)` for each (game, placement) hit once,
    /// `(game, first node, continuation byte)` a few hundred at a time
    /// (see [`Cursors::below`]), placement by placement.
    ///
    /// # Errors
    /// [`crate::Error::OverBudget`] when `budget` is spent.
    pub(crate) fn for_each(
        &self,
        budget: &Budget,
        f: impl FnMut(u32, &[Read]),
    ) -> crate::error::Result<()> {
        self.cursors().below(u32::MAX, budget, f)
    }

    /// The continuation a hit of placement `k` carries as its byte `code`
    /// (0 for none, else `1 + (rank << 2 | white << 1 | after tenuki)`):
    /// the pattern point at that rank of the placement's region, and the
    /// colour in the pattern's colours (none for a byte past the region's
    /// ranks, which no entry carries).
    pub(crate) fn next(&self, k: u32, code: u8) -> Next {
        let code = code.checked_sub(1)?;
        let white = code & 2 != 0;
        let color = if white != self.swapped[k as usize] {
            Color::White
        } else {
            Color::Black
        };
        let point = *self.ranks[k as usize].get(usize::from(code >> 2))?;
        Some((point, color, code & 1 != 0))
    }

    /// Each placement's hits from its first, to be read a window of games
    /// at a time ([`Cursors::below`]).
    pub(crate) fn cursors(&self) -> Cursors<'_> {
        let streams = self
            .keys
            .iter()
            .map(|keys| {
                if let [key] = keys[..] {
                    let runs = self.regions.segments.iter().filter_map(|s| s.run(key));
                    return Stream {
                        runs: runs.collect(),
                        at: 0,
                        read: Vec::with_capacity(DECODED),
                        next: 0,
                    };
                }
                let mut several = Vec::new();
                for s in &self.regions.segments {
                    for &key in keys {
                        several.extend(s.run(key).into_iter().flatten());
                    }
                }
                // A game once, at the earliest of its contents' first nodes.
                several.sort_unstable();
                several.dedup_by_key(|e| e.0);
                Stream {
                    runs: Vec::new(),
                    at: 0,
                    read: several,
                    next: 0,
                }
            })
            .collect();
        Cursors { streams, seen: 0 }
    }
}

/// Where each placement's hits have been read to ([`Lookup::cursors`]).
pub(crate) struct Cursors<'a> {
    streams: Vec<Stream<'a>>,
    /// Hits read so far (for the budget's checks).
    seen: usize,
}

/// One placement's hits in game order: entries read ahead (`read`) and the
/// next of them, refilled from its key's runs (one a segment, segments in
/// game order; `at` the one being read) up to [`DECODED`] at a time, in a
/// loop of their own rather than one entry per call. A placement standing
/// for several contents has its entries merged into `read` at once, and
/// no runs.
struct Stream<'a> {
    runs: Vec<Run<'a>>,
    at: usize,
    read: Vec<Read>,
    next: usize,
}

/// Entries a stream decodes at a time.
const DECODED: usize = 256;

impl Stream<'_> {
    /// The next entries whose games are below `end` (read ahead, up to
    /// [`DECODED`] of them), or none when there are no more (one at `end`
    /// or after is left to be read later).
    #[inline]
    fn below(&mut self, end: u32) -> &[Read] {
        loop {
            let ahead = &self.read[self.next..];
            if let Some(last) = ahead.last() {
                let n = if last.0 < end {
                    ahead.len()
                } else {
                    ahead.partition_point(|e| e.0 < end)
                };
                let from = self.next;
                self.next += n;
                return &self.read[from..from + n];
            }
            self.read.clear();
            self.next = 0;
            let Some(run) = self.runs.get_mut(self.at) else {
                return &[];
            };
            run.fill(&mut self.read, DECODED);
            if self.read.is_empty() {
                self.at += 1;
            }
        }
    }
}

impl Cursors<'_> {
    /// At most how many hits are left to read: each entry takes 3 bytes
    /// or more (a tally reserves room for that many games).
    pub(crate) fn most_left(&self) -> usize {
        self.streams
            .iter()
            .map(|s| {
                let runs = s.runs[s.at..].iter().map(Run::most_left);
                s.read.len() - s.next + runs.sum::<usize>()
            })
            .sum()
    }

    /// Calls `f(placement, hits)` for the (game, placement) hits of the
    /// games below `end` not read before, `(game, first node,
    /// continuation byte)` up to [`DECODED`] at a time, each once: a
    /// placement standing for several contents at the earliest of their
    /// first nodes. Hits come placement by placement, each placement's in
    /// game order; calls with growing `end` read the hits a window of
    /// games at a time. Checks `budget` once per placement and every
    /// [`Budget::EVERY`] hits.
    ///
    /// # Errors
    /// [`crate::Error::OverBudget`] when `budget` is spent.
    pub(crate) fn below(
        &mut self,
        end: u32,
        budget: &Budget,
        mut f: impl FnMut(u32, &[Read]),
    ) -> crate::error::Result<()> {
        for (k, stream) in self.streams.iter_mut().enumerate() {
            budget.check()?;
            loop {
                let read = stream.below(end);
                if read.is_empty() {
                    break;
                }
                f(k as u32, read);
                // The budget's check every so many hits, at the first
                // batch that reaches it.
                let seen = self.seen + read.len();
                if seen / Budget::EVERY != self.seen / Budget::EVERY {
                    budget.check()?;
                }
                self.seen = seen;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use keil_gen::{Generator, GeneratorConfig};
    use keil_rules::GameKind;

    use super::super::placement::placements;
    use super::super::{Pattern, PatternMode, PatternQuery};
    use super::*;
    use crate::archive::Archive;
    use crate::import::{ImportOptions, ImportSource};

    /// Imports `games` generated games of `kind` and `size` from `seed`.
    fn import(archive: &Archive, kind: GameKind, size: u8, games: u64, seed: u64) {
        let config = GeneratorConfig {
            game: kind,
            games,
            size,
            seed,
            ..GeneratorConfig::default()
        };
        let source = ImportSource::Bytes {
            name: format!("{kind:?}{size}-{seed}.sgf"),
            bytes: Generator::new(config)
                .unwrap()
                .flat_map(|g| g.record.into_bytes())
                .collect(),
        };
        let report = archive
            .import(&[source], &ImportOptions::default(), &mut |_| {})
            .unwrap();
        assert!(report.invalid.is_empty(), "{:?}", report.invalid);
    }

    /// Region patterns (exact, and with three wildcards) cut from
    /// generated games, imported in parts: 7×7 corners of Go games (9×9,
    /// whose corner regions overlap, 13×13 and 19×19) and Kaomi games (9×9,
    /// where stones are pushed), and 7-point local shapes of Keil games
    /// (sides 5 and 7, where captures are frequent). The region index
    /// answers every exact one and many of the others, and its answer
    /// (games, first nodes and placements, hits, continuations with their
    /// tenuki and win counts) is the scan's.
    #[test]
    fn region_index_answers_as_the_scan_does() {
        let dir = tempfile::tempdir().unwrap();
        let archive = Archive::open(dir.path()).unwrap();
        // Imported in parts, a load after each: the index's later parts are
        // new segments (on 9×9, 40 games and then five parts of 2: small
        // segments after a large one, merged with each other). Loads seal
        // every 512 entries in unit tests, so the larger parts merge
        // segments within one load too.
        let parts = [
            (GameKind::Go, 9u8, 40u64, 1),
            (GameKind::Go, 9, 2, 5),
            (GameKind::Go, 13, 20, 2),
            (GameKind::Go, 19, 25, 1),
            (GameKind::Kaomi, 9, 30, 1),
            (GameKind::Keil, 5, 30, 1),
            (GameKind::Keil, 7, 30, 1),
            (GameKind::Keil, 7, 3, 3),
        ];
        let patterns = archive.patterns();
        for (kind, size, games, count) in parts {
            for part in 0..count {
                import(
                    &archive,
                    kind,
                    size,
                    games,
                    u64::from(size) * 1000 + games * 10 + part,
                );
                patterns.load().unwrap();
            }
        }
        // Each group lists its games once each, in answer order, though
        // they came in parts.
        let mut dense = 0;
        {
            let loaded = archive.node.patterns.loaded.read().unwrap();
            for (_, g) in &loaded.groups {
                let order: Vec<_> = g
                    .listed
                    .iter()
                    .map(|&i| g.lines[i as usize].order())
                    .collect();
                assert!(order.is_sorted());
                let mut once = g.listed.clone();
                once.sort_unstable();
                once.dedup();
                assert_eq!(once.len(), g.lines.len());
                let regions = g.regions.as_ref().unwrap();
                assert!(regions.segments.len() <= 6, "{}", regions.segments.len());
                for s in &regions.segments {
                    dense += (0..s.keys.len())
                        .filter(|&i| matches!(Run::new(s.run_bytes(i)), Run::Dense(_)))
                        .count();
                }
            }
            // Common contents' runs are dense (see `runs`): the answers
            // below read both kinds.
            assert!(dense > 0);
        }
        let mut seed = 7u64;
        let mut below = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        let boards = [
            (GameKind::Go, 9u8),
            (GameKind::Go, 13),
            (GameKind::Go, 19),
            (GameKind::Kaomi, 9),
            (GameKind::Keil, 5),
            (GameKind::Keil, 7),
        ];
        let mut answered = [0usize; 2];
        // Stone sets of corner boxes cut (6 on each square board).
        let mut boxed = 0;
        let mut found = 0;
        let mut continued = 0;
        for (kind, size) in boards {
            // Each pattern: one region of a game at one of its nodes.
            let mut cut = Vec::new();
            {
                let loaded = archive.node.patterns.loaded.read().unwrap();
                let (_, group) = loaded
                    .groups
                    .iter()
                    .find(|(k, g)| *k == kind && g.board.size() == size)
                    .unwrap();
                let board = group.board;
                let regions = group.regions.as_ref().unwrap();
                // Each point's state (0 empty, 1 black, 2 white) at the end
                // of a node of a game, both picked at random.
                let random_state = |below: &mut dyn FnMut(usize) -> usize| {
                    let line = &group.lines[below(group.lines.len())];
                    let events = group.events(line);
                    let t = events[below(events.len())].node();
                    let mut state = vec![0u8; board.len()];
                    for e in events.iter().take_while(|e| e.node() <= t) {
                        state[e.point()] = e.state();
                    }
                    state
                };
                while cut.len() < 24 {
                    let state = random_state(&mut below);
                    let r = below(regions.boxes);
                    let region = &regions.points[r];
                    let cells: Vec<(Point, Cell)> = region
                        .iter()
                        .map(|&p| {
                            let cell = [Cell::Empty, Cell::Black, Cell::White]
                                [usize::from(state[usize::from(p)])];
                            (Point(p), cell)
                        })
                        .collect();
                    let stones = cells.iter().filter(|c| c.1 != Cell::Empty).count() as u32;
                    if !(1..=regions.limits[r]).contains(&stones) {
                        continue;
                    }
                    let window =
                        kind != GameKind::Keil && region.len() == (WINDOW * WINDOW) as usize;
                    // And with three points turned into wildcards.
                    let mut wild = cells.clone();
                    for _ in 0..3 {
                        let i = below(wild.len());
                        let cell = &mut wild[i].1;
                        *cell = match (*cell, below(3)) {
                            (Cell::Black, _) => Cell::BlackOrEmpty,
                            (Cell::White, _) => Cell::WhiteOrEmpty,
                            (_, 0) => Cell::BlackOrEmpty,
                            (_, 1) => Cell::WhiteOrEmpty,
                            _ => Cell::Any,
                        };
                    }
                    cut.push((Pattern::new(kind, size, cells).unwrap(), true, window));
                    cut.push((Pattern::new(kind, size, wild).unwrap(), false, window));
                }
                // Square boards: 1 or 2 stones of a corner box at a node,
                // `*` elsewhere in the box (its stone sets answer those).
                let mut sets = 0;
                while regions.boxes < regions.points.len() && sets < 6 {
                    let state = random_state(&mut below);
                    let r = regions.boxes + below(regions.points.len() - regions.boxes);
                    let region = &regions.points[r];
                    // Ranks of the box's stones, and of those with a stone
                    // beside them.
                    let stones: Vec<u32> = (0..region.len() as u32)
                        .filter(|&k| state[usize::from(region[k as usize])] != 0)
                        .collect();
                    let paired: Vec<u32> = stones
                        .iter()
                        .copied()
                        .filter(|&k| stones.iter().any(|&q| box_near(k) >> q & 1 != 0))
                        .collect();
                    if paired.is_empty() {
                        continue;
                    }
                    let first = paired[below(paired.len())];
                    let near: Vec<u32> = stones
                        .iter()
                        .copied()
                        .filter(|&q| box_near(first) >> q & 1 != 0)
                        .collect();
                    let mut chosen = vec![region[first as usize]];
                    if sets % 2 == 1 {
                        chosen.push(region[near[below(near.len())] as usize]);
                    }
                    let cells: Vec<(Point, Cell)> = region
                        .iter()
                        .map(|&p| {
                            let cell = if chosen.contains(&p) {
                                [Cell::Empty, Cell::Black, Cell::White]
                                    [usize::from(state[usize::from(p)])]
                            } else {
                                Cell::Any
                            };
                            (Point(p), cell)
                        })
                        .collect();
                    cut.push((Pattern::new(kind, size, cells).unwrap(), true, false));
                    boxed += 1;
                    sets += 1;
                }
            }
            let spread = if kind == GameKind::Keil {
                PatternMode::Anywhere
            } else {
                PatternMode::Corner
            };
            for (pattern, exact, window) in cut {
                let spread = if window { PatternMode::Side } else { spread };
                // Some with a filter (games White won), some with the
                // options (Black's continuations, the first 30 moves, the
                // history), one with both.
                for (mode, symmetry, swap_colors, winner, options) in [
                    (spread, true, true, None, false),
                    (spread, true, false, None, false),
                    (PatternMode::Fixed, false, false, None, false),
                    (spread, true, true, Some(Color::White), false),
                    (spread, true, true, None, true),
                    (spread, true, true, Some(Color::White), true),
                ] {
                    let q = PatternQuery {
                        symmetry,
                        swap_colors,
                        filter: keil_store::model::GameFilter {
                            winner,
                            ..Default::default()
                        },
                        explore: crate::index::explore::ExploreOptions {
                            next: options.then_some(Color::Black),
                            move_limit: options.then_some(30),
                            history: options,
                            ..Default::default()
                        },
                        ..PatternQuery::new(pattern.clone(), mode)
                    };
                    let pls = placements(&q.pattern, mode, symmetry, swap_colors).unwrap();
                    let loaded = archive.node.patterns.loaded.read().unwrap();
                    let group = &loaded
                        .groups
                        .iter()
                        .find(|(k, g)| *k == kind && g.board.size() == size)
                        .unwrap()
                        .1;
                    let indexed = group.regions.as_ref().unwrap().lookup(&pls).is_some();
                    assert!(indexed || !exact, "{pattern}");
                    drop(loaded);
                    let (fast, scan) = region_and_scan(&archive, &q);
                    assert_eq!(
                        fast, scan,
                        "{pattern} {mode:?} {symmetry} {swap_colors} {winner:?} {options}"
                    );
                    answered[usize::from(exact)] += usize::from(indexed);
                    found += fast.games.len();
                    continued += fast.continuations.len();
                }
            }
        }
        // Every exact pattern, and some of those with three wildcards (few
        // on Keil boards and in side windows, whose contents hold 3 stones
        // at most).
        assert_eq!(boxed, 4 * 6);
        assert_eq!(answered[1], (boards.len() * 12 + boxed) * 6);
        assert!(answered[0] > boards.len() * 12 * 6 / 6, "{answered:?}");
        // Cut from the games themselves: each one is found at least once,
        // and most have continuations.
        assert!(found >= 2 * boards.len() * 12 * 3, "{found}");
        assert!(continued >= boards.len() * 12 * 3, "{continued}");
    }

    /// The history of a region lookup counts undated games in their own
    /// entry and each dated one in its year, as the scan does.
    #[test]
    fn region_history_keeps_undated_games_apart() {
        let dir = tempfile::tempdir().unwrap();
        let archive = Archive::open(dir.path()).unwrap();
        let config = GeneratorConfig {
            game: GameKind::Go,
            games: 90,
            size: 9,
            seed: 3,
            ..GeneratorConfig::default()
        };
        // Every third game without its date.
        let bytes: Vec<u8> = Generator::new(config)
            .unwrap()
            .enumerate()
            .flat_map(|(i, g)| {
                let mut record = g.record;
                if i % 3 == 0
                    && let Some(at) = record.find("DT[")
                {
                    let end = at + record[at..].find(']').unwrap();
                    record.replace_range(at..=end, "");
                }
                record.into_bytes()
            })
            .collect();
        let source = ImportSource::Bytes {
            name: "undated.sgf".into(),
            bytes,
        };
        let report = archive
            .import(&[source], &ImportOptions::default(), &mut |_| {})
            .unwrap();
        assert!(report.invalid.is_empty(), "{:?}", report.invalid);
        let patterns = archive.patterns();
        patterns.load().unwrap();
        // A black stone on a 3-3 point, `*` elsewhere in the corner box:
        // answered from the boxes' stone sets.
        let box_stone = "*****/*****/**X**/*****/*****";
        let pattern = Pattern::parse(GameKind::Go, 9, box_stone, PatternMode::Corner).unwrap();
        let q = PatternQuery {
            explore: crate::index::explore::ExploreOptions {
                history: true,
                ..Default::default()
            },
            ..PatternQuery::new(pattern, PatternMode::Corner)
        };
        {
            let pls = placements(&q.pattern, q.mode, q.symmetry, q.swap_colors).unwrap();
            let loaded = archive.node.patterns.loaded.read().unwrap();
            let group = &loaded.groups[0].1;
            assert!(group.regions.as_ref().unwrap().lookup(&pls).is_some());
        }
        let (fast, scan) = region_and_scan(&archive, &q);
        assert_eq!(fast, scan);
        assert!(fast.games.len() > 10, "{}", fast.games.len());
        let history = fast.history.as_ref().unwrap();
        assert!(history.iter().any(|y| y.year.is_none()), "{history:?}");
        assert!(history.iter().any(|y| y.year.is_some()), "{history:?}");
        let years = fast
            .continuations
            .iter()
            .flat_map(|c| c.history.iter().flatten());
        assert!(years.clone().any(|y| y.year.is_none()));
        assert!(years.clone().any(|y| y.year.is_some()));
    }

    /// A refresh that meets a stored game that does not decode fails, and
    /// takes out the games it had added: the next one, once the game is
    /// mended, adds each game once.
    #[test]
    fn a_failed_refresh_adds_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let archive = Archive::open(dir.path()).unwrap();
        let import = |seed| import(&archive, GameKind::Go, 9, 70, seed);
        let lines = || lines_held(&archive);
        let query = corner_query();
        import(1);
        archive.patterns().load().unwrap();
        assert_eq!(lines(), 70);
        let before = archive.patterns().search_uncached(&query).unwrap();
        // Game 100 gets moves that do not decode: it is in the second
        // chunk (of 16 in unit tests) that this refresh reads, so one chunk
        // was added before the read fails.
        import(2);
        let db = rusqlite::Connection::open(dir.path().join(crate::location::SQLITE_FILE)).unwrap();
        // Without their pattern blocks, the games are replayed (a block
        // would hold the game as it was stored).
        db.execute("DELETE FROM derived_blocks", []).unwrap();
        let moves = stored_moves(&db, 100);
        let set = |m: &[u8]| set_moves(&db, 100, m);
        set(&[0xFF; 7]);
        let e = archive.patterns().load().unwrap_err();
        assert!(e.to_string().contains("100"), "{e}");
        assert_eq!(lines(), 70);
        // So does a search (it refreshes first), naming the game.
        let e = archive.patterns().search_uncached(&query).unwrap_err();
        assert!(e.to_string().contains("100"), "{e}");
        assert_eq!(lines(), 70);
        set(&moves);
        archive.patterns().load().unwrap();
        assert_eq!(lines(), 140);
        let after = archive.patterns().search_uncached(&query).unwrap();
        assert!(after.total_games >= before.total_games);
        let mut ids: Vec<_> = {
            let loaded = archive.node.patterns.loaded.read().unwrap();
            loaded.groups[0].1.lines.iter().map(|l| l.id).collect()
        };
        ids.dedup();
        assert_eq!(ids.len(), 140);
        // A few new games (an upload's) are replayed before the index is
        // locked: a game that does not replay adds none of them either.
        self::import(&archive, GameKind::Go, 9, 10, 3);
        db.execute("DELETE FROM derived_blocks", []).unwrap();
        let moves = stored_moves(&db, 145);
        set_moves(&db, 145, &[0xFF; 7]);
        let e = archive.patterns().search_uncached(&query).unwrap_err();
        assert!(e.to_string().contains("145"), "{e}");
        assert_eq!(lines(), 140);
        set_moves(&db, 145, &moves);
        archive.patterns().search_uncached(&query).unwrap();
        assert_eq!(lines(), 150);
    }

    /// The games the archive's pattern index holds.
    fn lines_held(archive: &Archive) -> usize {
        let loaded = archive.node.patterns.loaded.read().unwrap();
        loaded.groups.iter().map(|(_, g)| g.lines.len()).sum()
    }

    /// `q`'s matches as the region index answers them and as the scan
    /// does, read in one snapshot.
    fn region_and_scan(
        archive: &Archive,
        q: &PatternQuery,
    ) -> (super::super::answer::Matched, super::super::answer::Matched) {
        let patterns = archive.patterns();
        let unlimited = keil_store::budget::Budget::unlimited();
        let conn = archive.node.reader().unwrap();
        conn.snapshot(|c| -> crate::error::Result<_> {
            Ok((
                patterns.matches(c, q, true, &unlimited)?,
                patterns.matches(c, q, false, &unlimited)?,
            ))
        })
        .unwrap()
    }

    /// A 9×9 corner pattern of two stones.
    fn corner_query() -> PatternQuery {
        let pattern = Pattern::parse(
            GameKind::Go,
            9,
            "......./......./..O..../...X.../......./......./.......",
            PatternMode::Corner,
        )
        .unwrap();
        PatternQuery::new(pattern, PatternMode::Corner)
    }

    /// Game `id`'s stored moves column.
    fn stored_moves(db: &rusqlite::Connection, id: i64) -> Vec<u8> {
        db.query_row("SELECT moves FROM games WHERE id = ?1", [id], |r| r.get(0))
            .unwrap()
    }

    /// Sets game `id`'s stored moves column (to damage or restore it).
    fn set_moves(db: &rusqlite::Connection, id: i64, moves: &[u8]) {
        db.execute(
            "UPDATE games SET moves = ?1 WHERE id = ?2",
            rusqlite::params![moves, id],
        )
        .unwrap();
    }

    /// A refresh that fails part way on an index mapped from the node's
    /// snapshot takes out what it added and nothing mapped; the next one
    /// adds the games, and the answers are a fresh index's.
    #[test]
    fn a_failed_refresh_on_a_mapped_snapshot_adds_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let query = corner_query();
        {
            let first = Archive::open(dir.path()).unwrap();
            import(&first, GameKind::Go, 9, 100, 1);
            first.cache_in(cache.path()).unwrap();
            assert!(!first.patterns().load().unwrap().from_snapshot);
        }
        let archive = Archive::open(dir.path()).unwrap();
        archive.cache_in(cache.path()).unwrap();
        let stats = archive.patterns().load().unwrap();
        assert!(stats.from_snapshot && stats.mapped_bytes > 0);
        let lines = || lines_held(&archive);
        import(&archive, GameKind::Go, 9, 70, 2);
        let db = rusqlite::Connection::open(dir.path().join(crate::location::SQLITE_FILE)).unwrap();
        db.execute("DELETE FROM derived_blocks", []).unwrap();
        let moves = stored_moves(&db, 140);
        let set = |m: &[u8]| set_moves(&db, 140, m);
        set(&[0xFF; 7]);
        let e = archive.patterns().search_uncached(&query).unwrap_err();
        assert!(e.to_string().contains("140"), "{e}");
        assert_eq!(lines(), 100);
        set(&moves);
        let after = archive.patterns().search_uncached(&query).unwrap();
        assert_eq!(lines(), 170);
        let fresh = Archive::open(dir.path()).unwrap();
        let expected = fresh.patterns().search_uncached(&query).unwrap();
        assert_eq!(
            serde_json::to_value(&after).unwrap(),
            serde_json::to_value(&expected).unwrap()
        );
    }

    /// Which patterns the region index answers: a corner region's 49
    /// points or a Keil point with its six neighbours, with few enough
    /// wildcards and stones; the others are left to the scan.
    #[test]
    fn which_patterns_the_index_answers() {
        let contents = |kind: GameKind, size: u8, text: &str, mode: PatternMode| {
            let board = keil_rules::BoardSpec::new(kind, size)
                .unwrap()
                .board()
                .unwrap();
            let regions = Regions::new(board).unwrap();
            let p = Pattern::parse(kind, size, text, mode).unwrap();
            let pls = placements(&p, mode, true, true).unwrap();
            let lookup = regions.lookup(&pls)?;
            Some(lookup.keys.iter().map(Vec::len).max())
        };
        let go = |rows: &str| contents(GameKind::Go, 19, rows, PatternMode::Corner);
        let corner = |top: &str| format!("{top}/..O..../...X.../......./......./.......");
        // Exact: one content a placement.
        assert_eq!(go(&corner("......./.......")), Some(Some(1)));
        // x, o and * stand for 2, 2 and 3 contents.
        assert_eq!(go(&corner("x.o..../...*...")), Some(Some(12)));
        // 3^4 = 81 contents: too many.
        assert_eq!(go(&corner("****.../.......")), None);
        // A content with no stone (x and o alone): not indexed.
        assert_eq!(
            go("......./......./..o..../...x.../......./......./......."),
            None
        );
        // More than 8 stones once x points are black.
        assert_eq!(go(&corner("XXXOOOx/.......")), None);
        // A 5×5 corner box: 1 or 2 stones, `*` elsewhere.
        let box5 = |rows: &str| contents(GameKind::Go, 19, rows, PatternMode::Corner);
        assert_eq!(box5("*****/*****/**O**/***X*/*****"), Some(Some(1)));
        assert_eq!(box5("*****/*****/*****/***X*/*****"), Some(Some(1)));
        // Three stones, or a point that must be empty: left to the scan.
        assert_eq!(box5("*****/*****/**O**/**XX*/*****"), None);
        // Two stones that are not neighbours.
        assert_eq!(box5("*****/*****/O****/***X*/*****"), None);
        assert_eq!(box5("*****/*****/**O**/***X./*****"), None);
        // Not a corner region: 6×6.
        assert_eq!(go("....../....../..O.../...X../....../......"), None);
        assert!(
            Regions::new(
                keil_rules::BoardSpec::new(GameKind::Go, 7)
                    .unwrap()
                    .board()
                    .unwrap()
            )
            .is_none()
        );
        // Keil: a point and its six neighbours (f6, f7, g6, g8, h7, h8 round
        // g7), anywhere.
        let keil = |text: &str| contents(GameKind::Keil, 7, text, PatternMode::Anywhere);
        assert_eq!(keil("X:g7 O:h8 .:f6,f7,g6,g8,h7"), Some(Some(1)));
        assert_eq!(keil("X:g7,g8 O:h8 .:f6,f7,g6,h7"), Some(Some(1)));
        assert_eq!(keil("X:g7 *:f6 x:f7 .:g6,g8,h7,h8"), Some(Some(6)));
        // A content with 4 stones among those it stands for.
        assert_eq!(keil("X:g7 O:h8 *:f6 x:f7 .:g6,g8,h7"), None);
        // More than 3 stones.
        assert_eq!(keil("X:g7,g8 O:h8,h7 .:f6,f7,g6"), None);
        // Six points: not a region.
        assert_eq!(keil("X:g7 O:h8 .:f6,f7,g6,h7"), None);
        let rosettes = Regions::new(
            keil_rules::BoardSpec::new(GameKind::Keil, 7)
                .unwrap()
                .board()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(rosettes.points.len(), 91);
        assert!(rosettes.points.iter().all(|r| r.len() == 7));
    }

    /// A run's entries read back as written, whatever their varints'
    /// lengths (one to five bytes); and a stream of two runs (two
    /// segments') read a window of games at a time, an entry at a window's
    /// end left for the next.
    #[test]
    fn runs_read_back_their_entries() {
        use crate::index::varint::put_varint;
        let deltas = [
            0u32,
            1,
            0x7f,
            0x80,
            0x3fff,
            0x4000,
            0x1f_ffff,
            0x20_0000,
            0xfff_ffff,
            0x1000_0000,
        ];
        let nodes = [0u16, 5, 0x7f, 0x80, 0x3fff, 0x4000, u16::MAX];
        let mut entries = Vec::new();
        let mut game = 0u32;
        for (i, &d) in deltas.iter().cycle().take(40).enumerate() {
            game += d;
            entries.push((game, nodes[i % nodes.len()], i as u8));
        }
        // A run's bytes: each game as a delta from the one before (the
        // first from 0).
        let encode = |entries: &[(u32, u16, u8)]| {
            let (mut data, mut last) = (Vec::new(), 0);
            for &(game, node, next) in entries {
                put_varint(&mut data, u64::from(game - last));
                put_varint(&mut data, u64::from(node));
                data.push(next);
                last = game;
            }
            data
        };
        let data = encode(&entries);
        assert_eq!(Run::new(&data).collect::<Vec<_>>(), entries);
        let (a, b) = (encode(&entries[..17]), encode(&entries[17..]));
        let mut stream = Stream {
            runs: vec![Run::new(&a), Run::new(&b)],
            at: 0,
            read: Vec::new(),
            next: 0,
        };
        let mut read = Vec::new();
        for end in entries.iter().map(|e| e.0).chain([u32::MAX]) {
            loop {
                let batch = stream.below(end);
                if batch.is_empty() {
                    break;
                }
                assert!(batch.iter().all(|e| e.0 < end));
                read.extend_from_slice(batch);
            }
        }
        assert_eq!(read, entries);
    }
}
