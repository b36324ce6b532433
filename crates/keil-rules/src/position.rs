//! Positions as bitsets per colour, and what the rules read off them: links,
//! groups, liberties, territories and ownership (keil-rules.md, "Links" and
//! "Groups, liberties, territories"), the position notation
//! (record-format.md, "Position notation"), position keys and canonical forms.
//!
//! The analysis is written once, generic over the bitset width ([`Bits`]):
//! side 7 and smaller (at most 127 points) use one `u128` per colour, larger
//! sides (up to 469 points) eight `u64` words. [`crate::Game`] picks the width
//! by side; [`Position`] (the public, owned value) always stores the wide set.

use std::fmt;
use std::hash::Hash;
use std::str::FromStr;

use crate::board::{BUTTON_KEY, Board, NONE, Point, Symmetry};
use crate::color::Color;
use crate::half_points::HalfPoints;

/// A set of point indices of fixed capacity. Sealed: implemented for `u128`
/// (boards of at most 128 points) and [`Wide`] (at most 512).
pub trait Bits:
    Copy + Eq + Hash + Default + fmt::Debug + Send + Sync + 'static + private::Sealed
{
    /// How many points fit.
    const CAPACITY: usize;
    /// Whether point `i` is in the set.
    fn has(&self, i: usize) -> bool;
    /// Adds point `i`.
    fn insert(&mut self, i: usize);
    /// Removes point `i`.
    fn remove(&mut self, i: usize);
    /// Number of points in the set.
    fn count(&self) -> u32;
    /// Whether the set is empty.
    fn none(&self) -> bool;
    /// Union.
    fn union(self, other: Self) -> Self;
    /// Difference `self \ other`.
    fn minus(self, other: Self) -> Self;
    /// Calls `f` for each point, in increasing order.
    fn each(&self, f: impl FnMut(usize));
    /// Removes and returns the smallest point, if any (a work-list pop).
    fn pop_first(&mut self) -> Option<usize>;
    /// The same set as a [`Wide`] set.
    fn to_wide(self) -> Wide;
}

mod private {
    pub trait Sealed {}
    impl Sealed for u128 {}
    impl Sealed for super::Wide {}
}

impl Bits for u128 {
    const CAPACITY: usize = 128;
    #[inline]
    fn has(&self, i: usize) -> bool {
        (self >> i) & 1 != 0
    }
    #[inline]
    fn insert(&mut self, i: usize) {
        *self |= 1 << i;
    }
    #[inline]
    fn remove(&mut self, i: usize) {
        *self &= !(1 << i);
    }
    #[inline]
    fn count(&self) -> u32 {
        self.count_ones()
    }
    #[inline]
    fn none(&self) -> bool {
        *self == 0
    }
    #[inline]
    fn union(self, other: Self) -> Self {
        self | other
    }
    #[inline]
    fn minus(self, other: Self) -> Self {
        self & !other
    }
    #[inline]
    fn each(&self, mut f: impl FnMut(usize)) {
        let mut x = *self;
        while x != 0 {
            f(x.trailing_zeros() as usize);
            x &= x - 1;
        }
    }
    #[inline]
    fn to_wide(self) -> Wide {
        let mut w = Wide::default();
        w.0[0] = self as u64;
        w.0[1] = (self >> 64) as u64;
        w
    }
    #[inline]
    fn pop_first(&mut self) -> Option<usize> {
        (*self != 0).then(|| {
            let i = self.trailing_zeros() as usize;
            *self &= *self - 1;
            i
        })
    }
}

/// The colour of the stone on `p` in stones `[black, white]` (every
/// game's positions store their stones so).
#[inline]
pub(crate) fn stone_at(stones: &[Wide; 2], p: Point) -> Option<Color> {
    if stones[0].has(p.index()) {
        Some(Color::Black)
    } else if stones[1].has(p.index()) {
        Some(Color::White)
    } else {
        None
    }
}

/// Puts a stone (or nothing) on `p` in stones `[black, white]`.
#[inline]
pub(crate) fn put_stone(stones: &mut [Wide; 2], p: Point, stone: Option<Color>) {
    stones[0].remove(p.index());
    stones[1].remove(p.index());
    if let Some(c) = stone {
        stones[c.index()].insert(p.index());
    }
}

/// A 512-point set: eight `u64` words, for boards of side 8 to 13.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Wide(pub [u64; 8]);

impl Bits for Wide {
    const CAPACITY: usize = 512;
    #[inline]
    fn has(&self, i: usize) -> bool {
        (self.0[i >> 6] >> (i & 63)) & 1 != 0
    }
    #[inline]
    fn insert(&mut self, i: usize) {
        self.0[i >> 6] |= 1 << (i & 63);
    }
    #[inline]
    fn remove(&mut self, i: usize) {
        self.0[i >> 6] &= !(1 << (i & 63));
    }
    #[inline]
    fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    #[inline]
    fn none(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    #[inline]
    fn union(mut self, other: Self) -> Self {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a |= b;
        }
        self
    }
    #[inline]
    fn minus(mut self, other: Self) -> Self {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a &= !b;
        }
        self
    }
    #[inline]
    fn each(&self, mut f: impl FnMut(usize)) {
        for (k, &w) in self.0.iter().enumerate() {
            let mut x = w;
            while x != 0 {
                f(k * 64 + x.trailing_zeros() as usize);
                x &= x - 1;
            }
        }
    }
    #[inline]
    fn to_wide(self) -> Wide {
        self
    }
    #[inline]
    fn pop_first(&mut self) -> Option<usize> {
        for (k, w) in self.0.iter_mut().enumerate() {
            if *w != 0 {
                let i = w.trailing_zeros() as usize;
                *w &= *w - 1;
                return Some(k * 64 + i);
            }
        }
        None
    }
}

/// The stones of both colours, `[black, white]`, in a bitset of width `B`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Stones<B: Bits>(pub [B; 2]);

/// Type codes of a point: empty, black, white, or off the board.
const EMPTY: u8 = 0;
const OFF: u8 = 3;

/// Which links the game uses (keil-rules.md, "Links").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Linking {
    /// Adjacent points are linked iff some common neighbour has the type of
    /// one of them (seeds 000/002; the default).
    #[default]
    SameType,
    /// Adjacent empty points are always linked; stones are linked to a
    /// neighbour iff some common neighbour is not of the opposite colour
    /// (seed 001).
    Unopposed,
}

/// Whether a point of type `tp` is linked to its neighbour in slot `k`,
/// given the types of all six neighbour slots (`OFF` where there is none):
/// the two common neighbours are the slots on either side of `k`.
///
/// keil-rules.md, "Links": same-type — some common neighbour has the type
/// of one end; unopposed — two empty points always, otherwise some common
/// neighbour is not of the colour opposite to the stone(s). Links between a
/// black and a white stone never matter and are reported as absent.
#[inline]
fn link(linking: Linking, tp: u8, kinds: [u8; 6], k: usize) -> bool {
    let tq = kinds[k];
    let (a, b) = (kinds[(k + 5) % 6], kinds[(k + 1) % 6]);
    match linking {
        Linking::SameType => a == tp || a == tq || b == tp || b == tq,
        Linking::Unopposed => {
            if tp == EMPTY && tq == EMPTY {
                return true;
            }
            let stone = if tp == EMPTY { tq } else { tp };
            let other = if tq == EMPTY { tp } else { tq };
            if stone != other {
                return false; // black next to white
            }
            let opposite = 3 - stone;
            (a != OFF && a != opposite) || (b != OFF && b != opposite)
        }
    }
}

impl<B: Bits> Stones<B> {
    #[inline]
    pub(crate) fn kind(&self, p: u16) -> u8 {
        if p == NONE {
            OFF
        } else if self.0[0].has(p as usize) {
            1
        } else if self.0[1].has(p as usize) {
            2
        } else {
            EMPTY
        }
    }

    #[inline]
    pub(crate) fn occupied(&self, p: usize) -> bool {
        self.0[0].has(p) || self.0[1].has(p)
    }

    pub(crate) fn to_wide(self) -> [Wide; 2] {
        self.0.map(Bits::to_wide)
    }

    pub(crate) fn from_wide(stones: &[Wide; 2]) -> Self {
        let mut out = Stones::<B>::default();
        for (set, wide) in out.0.iter_mut().zip(stones) {
            wide.each(|i| set.insert(i));
        }
        out
    }

    /// The neighbour slots of `p` and the type of each (`OFF` where there is
    /// no point): everything a flood step needs, read once per point.
    #[inline]
    fn around(&self, board: &Board, p: u16) -> ([u16; 6], [u8; 6]) {
        let slots = *board.neighbour_slots(Point(p));
        (slots, slots.map(|q| self.kind(q)))
    }

    /// Whether the points `p` and its neighbour in slot `k` are linked.
    #[inline]
    pub(crate) fn linked(&self, board: &Board, linking: Linking, p: u16, k: usize) -> bool {
        let (slots, kinds) = self.around(board, p);
        slots[k] != NONE && link(linking, self.kind(p), kinds, k)
    }

    /// The group of the stone on `start` and its liberties, in one flood.
    ///
    /// Stones step to linked stones of their colour; a liberty is an empty
    /// point linked to a stone of the group (keil-rules.md, "Groups").
    pub(crate) fn group(&self, board: &Board, linking: Linking, start: usize) -> (B, B) {
        let colour = self.kind(start as u16);
        debug_assert!(colour == 1 || colour == 2);
        let mut group = B::default();
        let mut todo = B::default();
        todo.insert(start);
        group.insert(start);
        let mut liberties = B::default();
        while let Some(p) = todo.pop_first() {
            let p = p as u16;
            let (slots, kinds) = self.around(board, p);
            for (k, &q) in slots.iter().enumerate() {
                if q == NONE {
                    continue;
                }
                let tq = kinds[k];
                if tq == colour {
                    if !group.has(q as usize) && link(linking, colour, kinds, k) {
                        group.insert(q as usize);
                        todo.insert(q as usize);
                    }
                } else if tq == EMPTY && link(linking, colour, kinds, k) {
                    liberties.insert(q as usize);
                }
            }
        }
        (group, liberties)
    }

    /// The group of the stone on `start` if it has no liberty; `None` as soon
    /// as a liberty is found. Every stone visited is added to `seen` (all of
    /// them belong to the group of `start`).
    ///
    /// The early stop is what makes a turn cheap: a living group is usually
    /// known to live after a step or two; only a dead group is flooded whole.
    #[inline]
    pub(crate) fn dead_group(
        &self,
        board: &Board,
        linking: Linking,
        start: usize,
        seen: &mut B,
    ) -> Option<B> {
        let colour = self.kind(start as u16);
        debug_assert!(colour == 1 || colour == 2);
        let mut group = B::default();
        let mut todo = B::default();
        todo.insert(start);
        group.insert(start);
        seen.insert(start);
        while let Some(p) = todo.pop_first() {
            let p = p as u16;
            let (slots, kinds) = self.around(board, p);
            for (k, &q) in slots.iter().enumerate() {
                if q == NONE {
                    continue;
                }
                let tq = kinds[k];
                if tq == EMPTY {
                    if link(linking, colour, kinds, k) {
                        return None;
                    }
                } else if tq == colour && !group.has(q as usize) && link(linking, colour, kinds, k)
                {
                    group.insert(q as usize);
                    seen.insert(q as usize);
                    todo.insert(q as usize);
                }
            }
        }
        Some(group)
    }

    /// Places `colour` on the empty point `p`, removes every opponent group
    /// left without a liberty, and checks that the placed stone's group has
    /// one (keil-rules.md, "A turn", steps 1–3). Returns the new stones and
    /// the captured set, or `None` for self-capture.
    ///
    /// Only groups with a stone adjacent to `p` can lose a liberty
    /// (keil-rules.md, "Links", consequence 4), so only those are examined.
    #[inline]
    pub(crate) fn place(
        &self,
        board: &Board,
        linking: Linking,
        p: usize,
        colour: Color,
    ) -> Option<(Stones<B>, B)> {
        let mut next = *self;
        let me = colour.index();
        let opp = 1 - me;
        next.0[me].insert(p);
        let mut dead = B::default();
        let mut seen = B::default();
        for &q in board.neighbour_slots(Point(p as u16)) {
            if q != NONE
                && next.0[opp].has(q as usize)
                && !seen.has(q as usize)
                && let Some(group) = next.dead_group(board, linking, q as usize, &mut seen)
            {
                dead = dead.union(group);
            }
        }
        next.0[opp] = next.0[opp].minus(dead);
        let mut own = B::default();
        match next.dead_group(board, linking, p, &mut own) {
            None => Some((next, dead)),
            Some(_) => None,
        }
    }

    /// The Zobrist key of these stones under each of the 12 symmetries.
    pub(crate) fn keys(&self, board: &Board) -> [u64; 12] {
        let mut keys = [0u64; 12];
        for colour in [Color::Black, Color::White] {
            self.0[colour.index()].each(|i| {
                for s in Symmetry::all() {
                    let image = board.transform(Point(i as u16), s).index();
                    keys[s.index() as usize] ^= board.zobrist(image, colour);
                }
            });
        }
        keys
    }

    /// The territory of the empty point `start`: its points, and whether a
    /// black and a white stone are linked to it.
    ///
    /// With `stop_if_contested`, stops as soon as stones of both colours are
    /// found linked (the region is then incomplete).
    pub(crate) fn territory_of(
        &self,
        board: &Board,
        linking: Linking,
        start: usize,
        stop_if_contested: bool,
    ) -> (B, [bool; 2]) {
        let mut region = B::default();
        let mut linked = [false; 2];
        let mut todo = B::default();
        region.insert(start);
        todo.insert(start);
        while let Some(p) = todo.pop_first() {
            let p = p as u16;
            let (slots, kinds) = self.around(board, p);
            for (k, &q) in slots.iter().enumerate() {
                if q == NONE {
                    continue;
                }
                match kinds[k] {
                    EMPTY => {
                        if !region.has(q as usize) && link(linking, EMPTY, kinds, k) {
                            region.insert(q as usize);
                            todo.insert(q as usize);
                        }
                    }
                    c => {
                        let c = c as usize - 1;
                        if !linked[c] && link(linking, EMPTY, kinds, k) {
                            linked[c] = true;
                            if stop_if_contested && linked[1 - c] {
                                return (region, linked);
                            }
                        }
                    }
                }
            }
        }
        (region, linked)
    }

    /// Territories: maximal sets of empty points connected by linked empty
    /// points, with the colours of the stones linked to them.
    pub(crate) fn territories(&self, board: &Board, linking: Linking) -> Vec<(B, [bool; 2])> {
        let mut seen = self.0[0].union(self.0[1]);
        let mut out = Vec::new();
        for start in 0..board.len() {
            if !seen.has(start) {
                let (region, linked) = self.territory_of(board, linking, start, false);
                seen = seen.union(region);
                out.push((region, linked));
            }
        }
        out
    }

    /// The score breakdown of these stones (keil-rules.md, "End and score").
    pub(crate) fn tally(&self, board: &Board, linking: Linking) -> Tally {
        let mut tally = Tally {
            stones: [self.0[0].count() as u16, self.0[1].count() as u16],
            ..Tally::default()
        };
        for (region, linked) in self.territories(board, linking) {
            let n = region.count() as u16;
            match linked {
                [true, false] => tally.territory[0] += n,
                [false, true] => tally.territory[1] += n,
                [true, true] => tally.contested += n,
                [false, false] => tally.unlinked += n,
            }
        }
        tally
    }
}

/// Points counted for the score, before komi and button (keil-rules.md,
/// "End and score"). Every empty point is in exactly one of
/// `territory[0]`, `territory[1]`, `contested`, `unlinked`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Tally {
    /// Stones on the board, `[black, white]`, in points.
    pub stones: [u16; 2],
    /// Points of owned territories, `[black, white]`.
    pub territory: [u16; 2],
    /// Empty points in territories linked to stones of both colours.
    pub contested: u16,
    /// Empty points in territories linked to no stone (owned by nobody).
    pub unlinked: u16,
}

impl Tally {
    /// Stones plus owned territory of one colour, in points.
    pub fn area(&self, colour: Color) -> u16 {
        self.stones[colour.index()] + self.territory[colour.index()]
    }
}

/// A set of points of one board (up to 512 points).
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PointSet(pub(crate) Wide);

impl PointSet {
    /// Whether `p` is in the set.
    pub fn contains(&self, p: Point) -> bool {
        self.0.has(p.index())
    }
    /// Adds `p`.
    pub fn insert(&mut self, p: Point) {
        self.0.insert(p.index())
    }
    /// Removes `p`.
    pub fn remove(&mut self, p: Point) {
        self.0.remove(p.index())
    }
    /// Number of points.
    pub fn len(&self) -> usize {
        self.0.count() as usize
    }
    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.none()
    }
    /// The points in board order.
    pub fn iter(&self) -> impl Iterator<Item = Point> + '_ {
        self.0
            .0
            .iter()
            .enumerate()
            .flat_map(|(k, &w)| BitIter(w).map(move |b| Point((k * 64 + b) as u16)))
    }
    pub(crate) fn from_bits<B: Bits>(b: B) -> PointSet {
        PointSet(b.to_wide())
    }
}

impl FromIterator<Point> for PointSet {
    fn from_iter<I: IntoIterator<Item = Point>>(iter: I) -> PointSet {
        let mut s = PointSet::default();
        for p in iter {
            s.insert(p);
        }
        s
    }
}

impl fmt::Debug for PointSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(|p| p.0)).finish()
    }
}

struct BitIter(u64);
impl Iterator for BitIter {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        (self.0 != 0).then(|| {
            let b = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            b
        })
    }
}

/// A group: same-colour stones connected by links, with its liberties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The colour of its stones.
    pub color: Color,
    /// Its stones.
    pub stones: PointSet,
    /// Empty points linked to at least one of its stones.
    pub liberties: PointSet,
}

/// A territory: empty points connected by links, and who owns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Territory {
    /// Its points.
    pub points: PointSet,
    /// The owner: the one colour whose stones are linked to it; `None` when
    /// stones of both colours are linked, or none is.
    pub owner: Option<Color>,
    /// Whether any black stone, and any white stone, is linked to it.
    pub linked: [bool; 2],
}

impl Territory {
    /// A territory from its points and the colours linked to it; the owner
    /// follows (keil-rules.md: owned iff linked to stones of one colour only).
    pub fn new(points: PointSet, linked: [bool; 2]) -> Territory {
        let owner = match linked {
            [true, false] => Some(Color::Black),
            [false, true] => Some(Color::White),
            _ => None,
        };
        Territory {
            points,
            owner,
            linked,
        }
    }
}

/// A position: the stones on a board and whether the button has been taken
/// (keil-rules.md, "A turn", step 4: the object the repetition rule compares).
///
/// `Position` is a plain value for queries, tests and display; the hot path of
/// [`crate::Game`] keeps its own narrower representation.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    board: &'static Board,
    stones: [Wide; 2],
    button_taken: bool,
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

impl Hash for Board {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.side().hash(state)
    }
}

impl Position {
    /// The empty board, button not taken.
    pub fn empty(board: &'static Board) -> Position {
        Position {
            board,
            stones: [Wide::default(); 2],
            button_taken: false,
        }
    }

    /// A position with the given stones.
    ///
    /// # Errors
    /// Returns a point that is given for both colours.
    pub fn from_stones(
        board: &'static Board,
        black: impl IntoIterator<Item = Point>,
        white: impl IntoIterator<Item = Point>,
        button_taken: bool,
    ) -> Result<Position, Point> {
        let mut pos = Position::empty(board);
        pos.button_taken = button_taken;
        for p in black {
            pos.stones[0].insert(p.index());
        }
        for p in white {
            if pos.stones[0].has(p.index()) {
                return Err(p);
            }
            pos.stones[1].insert(p.index());
        }
        Ok(pos)
    }

    pub(crate) fn from_parts(board: &'static Board, stones: [Wide; 2], button_taken: bool) -> Self {
        Position {
            board,
            stones,
            button_taken,
        }
    }

    pub(crate) fn stones_as<B: Bits>(&self) -> Stones<B> {
        Stones::from_wide(&self.stones)
    }

    /// The board.
    pub fn board(&self) -> &'static Board {
        self.board
    }

    /// The colour of the stone on `p`, if any.
    pub fn get(&self, p: Point) -> Option<Color> {
        stone_at(&self.stones, p)
    }

    /// Puts a stone (or nothing) on `p`, without applying any rule.
    pub fn set(&mut self, p: Point, stone: Option<Color>) {
        put_stone(&mut self.stones, p, stone)
    }

    /// The stones of one colour.
    pub fn stones(&self, colour: Color) -> PointSet {
        PointSet(self.stones[colour.index()])
    }

    /// Whether the button has been taken.
    pub fn button_taken(&self) -> bool {
        self.button_taken
    }

    /// Sets whether the button has been taken.
    pub fn set_button_taken(&mut self, taken: bool) {
        self.button_taken = taken;
    }

    fn with_narrow<R>(&self, f: impl FnOnce(&dyn Analysis) -> R) -> R {
        if self.board.len() <= u128::CAPACITY {
            f(&self.stones_as::<u128>())
        } else {
            f(&self.stones_as::<Wide>())
        }
    }

    /// Whether two adjacent points are linked under `linking`
    /// (keil-rules.md, "Links"). `false` when they are not adjacent, and for
    /// a black stone next to a white one.
    pub fn linked(&self, p: Point, q: Point, linking: Linking) -> bool {
        let slots = self.board.neighbour_slots(p);
        match slots.iter().position(|&s| s == q.0) {
            None => false,
            Some(k) => self.stones_as::<Wide>().linked(self.board, linking, p.0, k),
        }
    }

    /// All groups, in board order of their first stone.
    pub fn groups(&self, linking: Linking) -> Vec<Group> {
        let st = self.stones_as::<Wide>();
        let mut seen = Wide::default();
        let mut out = Vec::new();
        for colour in [Color::Black, Color::White] {
            for p in self.stones(colour).iter() {
                if seen.has(p.index()) {
                    continue;
                }
                let (group, liberties) = st.group(self.board, linking, p.index());
                seen = seen.union(group);
                out.push(Group {
                    color: colour,
                    stones: PointSet(group),
                    liberties: PointSet(liberties),
                });
            }
        }
        out.sort_by_key(|g| g.stones.iter().next());
        out
    }

    /// All territories with their owners, in board order of their first point.
    pub fn territories(&self, linking: Linking) -> Vec<Territory> {
        self.stones_as::<Wide>()
            .territories(self.board, linking)
            .into_iter()
            .map(|(region, linked)| Territory::new(PointSet(region), linked))
            .collect()
    }

    /// Stones and owned territory per colour (keil-rules.md, "End and score").
    pub fn tally(&self, linking: Linking) -> Tally {
        self.with_narrow(|a| a.tally(self.board, linking))
    }

    /// The score of this position as a final position: stones + owned
    /// territory, + komi for White, + ½ for the button holder.
    pub fn score(&self, linking: Linking, komi: HalfPoints, button: Option<Color>) -> Score {
        Score::from_tally(self.tally(linking), komi, button)
    }

    /// The image of this position under a symmetry.
    pub fn transform(&self, s: Symmetry) -> Position {
        let mut out = Position::empty(self.board);
        out.button_taken = self.button_taken;
        for c in 0..2 {
            self.stones[c]
                .each(|i| out.stones[c].insert(self.board.transform(Point(i as u16), s).index()));
        }
        out
    }

    /// The position with black and white exchanged, the button flag kept
    /// (record-format.md "colour swap" queries; the caller exchanges the
    /// player to move).
    pub fn swap_colors(&self) -> Position {
        Position {
            stones: [self.stones[1], self.stones[0]],
            ..*self
        }
    }

    /// The canonical form: of the 12 images, the one whose (black, white)
    /// bitsets are least; and a symmetry that maps `self` onto it. Two
    /// positions are images of each other iff their canonical forms are equal.
    pub fn canonical(&self) -> (Position, Symmetry) {
        Symmetry::all()
            .map(|s| (self.transform(s), s))
            .min_by(|a, b| {
                let ka = (a.0.stones[0].0, a.0.stones[1].0);
                let kb = (b.0.stones[0].0, b.0.stones[1].0);
                ka.cmp(&kb)
            })
            .expect("12 symmetries")
    }

    /// The 64-bit Zobrist key of this position (stones and button flag).
    /// Stable across versions: archives store it.
    pub fn key(&self) -> PositionKey {
        PositionKey(self.keys()[0])
    }

    /// The canonical key: the least of the keys of the 12 images, and a
    /// symmetry whose image has it. Equal for positions that are images of
    /// each other; a match must be confirmed by comparing positions.
    pub fn canonical_key(&self) -> (PositionKey, Symmetry) {
        canonical_of(&self.keys())
    }

    fn keys(&self) -> [u64; 12] {
        let mut keys = self.stones_as::<Wide>().keys(self.board);
        if self.button_taken {
            for k in &mut keys {
                *k ^= BUTTON_KEY;
            }
        }
        keys
    }

    /// Writes the position notation, with ` b`/` w` when `to_move` is given
    /// and ` +` when the button has been taken.
    pub fn to_notation(&self, to_move: Option<Color>) -> String {
        let mut s = self.to_string();
        if let Some(c) = to_move {
            s.push(' ');
            s.push(if c == Color::Black { 'b' } else { 'w' });
        }
        if self.button_taken {
            s.push_str(" +");
        }
        s
    }

    /// Reads the position notation (record-format.md, "Position notation"):
    /// the board column by column, `b`, `w`, digit runs for empty points,
    /// `/` between columns; optional ` b`/` w` (player to move) and ` +`
    /// (button taken) or ` -` (not taken). The side follows from the number
    /// of columns.
    ///
    /// # Errors
    /// [`NotationError`] naming the column or byte offset at fault.
    pub fn parse_notation(text: &str) -> Result<(Position, Option<Color>), NotationError> {
        let text = text.trim();
        let mut parts = text.split_whitespace();
        let board_part = parts.next().ok_or(NotationError::Empty)?;
        let mut to_move = None;
        let mut button = None;
        for extra in parts {
            match extra {
                "b" | "B" if to_move.is_none() => to_move = Some(Color::Black),
                "w" | "W" if to_move.is_none() => to_move = Some(Color::White),
                "+" if button.is_none() => button = Some(true),
                "-" if button.is_none() => button = Some(false),
                other => return Err(NotationError::Suffix(other.to_string())),
            }
        }
        let button = button.unwrap_or(false);
        let columns: Vec<&str> = board_part.split('/').collect();
        let width = columns.len();
        if width.is_multiple_of(2) || !(3..=25).contains(&width) {
            return Err(NotationError::Columns(width));
        }
        let board =
            Board::new(width.div_ceil(2) as u8).map_err(|_| NotationError::Columns(width))?;
        let mut pos = Position::empty(board);
        pos.button_taken = button;
        let mut offset = 0;
        for (c, col) in columns.iter().enumerate() {
            let rows = board.column_rows(c as u8);
            let expected = rows.clone().count();
            let mut row = *rows.start() as usize;
            let bytes = col.as_bytes();
            let mut i = 0;
            let mut filled = 0;
            while i < bytes.len() {
                let at = offset + i;
                match bytes[i] {
                    b'b' | b'w' => {
                        if filled >= expected {
                            return Err(NotationError::ColumnLength {
                                column: (b'a' + c as u8) as char,
                                expected,
                            });
                        }
                        let p = board.point_at(c as i32, row as i32).expect("row in column");
                        let colour = if bytes[i] == b'b' { 0 } else { 1 };
                        pos.stones[colour].insert(p.index());
                        row += 1;
                        filled += 1;
                        i += 1;
                    }
                    b'0'..=b'9' => {
                        let start = i;
                        while i < bytes.len() && bytes[i].is_ascii_digit() {
                            i += 1;
                        }
                        let run: usize = col[start..i].parse().unwrap_or(usize::MAX);
                        if run == 0 || run > 25 {
                            return Err(NotationError::Run { offset: at });
                        }
                        row += run;
                        filled += run;
                    }
                    _ => {
                        let ch = col[i..].chars().next().unwrap_or('?');
                        return Err(NotationError::Char { ch, offset: at });
                    }
                }
            }
            if filled != expected {
                return Err(NotationError::ColumnLength {
                    column: (b'a' + c as u8) as char,
                    expected,
                });
            }
            offset += col.len() + 1;
        }
        Ok((pos, to_move))
    }
}

/// The Zobrist keys of a position under each of the 12 symmetries, updated
/// stone by stone: what an index needs to find a position's canonical key
/// and its stabiliser (the symmetries that map it onto itself) in O(1) per
/// changed stone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymmetricKeys {
    board: &'static Board,
    keys: [u64; 12],
}

impl SymmetricKeys {
    /// The keys of `position`.
    pub fn new(position: &Position) -> SymmetricKeys {
        SymmetricKeys {
            board: position.board,
            keys: position.keys(),
        }
    }

    /// Adds or removes a stone of `colour` on `p` (the same operation).
    #[inline]
    pub fn toggle(&mut self, p: Point, colour: Color) {
        for s in Symmetry::all() {
            let image = self.board.transform(p, s).index();
            self.keys[s.index() as usize] ^= self.board.zobrist(image, colour);
        }
    }

    /// Flips the button flag.
    #[inline]
    pub fn toggle_button(&mut self) {
        self.keys.iter_mut().for_each(|k| *k ^= BUTTON_KEY);
    }

    /// The key of the position itself.
    pub fn key(&self) -> PositionKey {
        PositionKey(self.keys[0])
    }

    /// The key of the position's image under `s`.
    pub fn image(&self, s: Symmetry) -> PositionKey {
        PositionKey(self.keys[s.index() as usize])
    }

    /// The canonical key and a symmetry whose image has it (see
    /// [`Position::canonical_key`]).
    pub fn canonical(&self) -> (PositionKey, Symmetry) {
        canonical_of(&self.keys)
    }
}

/// The least of 12 keys and its symmetry.
pub(crate) fn canonical_of(keys: &[u64; 12]) -> (PositionKey, Symmetry) {
    let (s, k) = keys
        .iter()
        .enumerate()
        .min_by_key(|&(_, k)| *k)
        .expect("12 keys");
    (
        PositionKey(*k),
        Symmetry::from_index(s as u8).expect("index < 12"),
    )
}

/// Dynamic view used by [`Position`] to run the analysis at the narrow width
/// when the board fits it.
trait Analysis {
    fn tally(&self, board: &Board, linking: Linking) -> Tally;
}
impl<B: Bits> Analysis for Stones<B> {
    fn tally(&self, board: &Board, linking: Linking) -> Tally {
        Stones::tally(self, board, linking)
    }
}

/// A 64-bit Zobrist position key (stones and button flag). The values are
/// fixed by this crate's tables and stable across versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PositionKey(pub u64);

impl fmt::Display for PositionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// Why a position notation could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// Occurs when the text is empty.
    #[error("empty position: expected columns like 7/8/9/10/11/12/13/12/11/10/9/8/7")]
    Empty,
    /// Occurs when the number of `/`-separated columns is not `2n-1` for a
    /// side `n` in 2..=13.
    #[error("{0} columns: a board of side n has 2n-1 columns (3 to 25, odd)")]
    Columns(usize),
    /// Occurs when a column does not describe exactly its number of points.
    #[error("column {column} must describe exactly {expected} points")]
    ColumnLength {
        /// The column letter.
        column: char,
        /// Its number of points.
        expected: usize,
    },
    /// Occurs on a character other than `b`, `w`, a digit or `/`.
    #[error("unexpected {ch:?} at byte {offset}: only b, w, digits and / may describe the board")]
    Char {
        /// The character.
        ch: char,
        /// Its byte offset in the board part.
        offset: usize,
    },
    /// Occurs on an empty run of 0 or more than 25 points.
    #[error("bad run of empty points at byte {offset}: runs are 1 to 13 points")]
    Run {
        /// Its byte offset.
        offset: usize,
    },
    /// Occurs on a suffix other than one ` b`/` w` and one ` +`/` -`.
    #[error(
        "unexpected suffix {0:?}: expected ` b` or ` w` (player to move) and ` +` or ` -` (button taken or not)"
    )]
    Suffix(String),
}

impl fmt::Display for Position {
    /// The position notation of the board alone (no suffixes).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let board = self.board;
        for c in 0..board.width() {
            if c > 0 {
                f.write_str("/")?;
            }
            let mut run = 0;
            for r in board.column_rows(c) {
                let p = board.point_at(c as i32, r as i32).expect("row in column");
                match self.get(p) {
                    None => run += 1,
                    Some(colour) => {
                        if run > 0 {
                            write!(f, "{run}")?;
                            run = 0;
                        }
                        f.write_str(if colour == Color::Black { "b" } else { "w" })?;
                    }
                }
            }
            if run > 0 {
                write!(f, "{run}")?;
            }
        }
        Ok(())
    }
}

impl FromStr for Position {
    type Err = NotationError;
    fn from_str(s: &str) -> Result<Position, NotationError> {
        Position::parse_notation(s).map(|(p, _)| p)
    }
}

/// A final score in half-points (keil-rules.md, "End and score").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Score {
    /// Black: stones + owned territory (+ ½ with the button).
    pub black: HalfPoints,
    /// White: stones + owned territory + komi (+ ½ with the button).
    pub white: HalfPoints,
    /// The points counted, before komi and button.
    pub tally: Tally,
}

impl Score {
    /// Adds komi (to White) and the button's half point to a tally.
    pub fn from_tally(tally: Tally, komi: HalfPoints, button: Option<Color>) -> Score {
        let bonus = |c: Color| HalfPoints(i32::from(button == Some(c)));
        Score {
            black: HalfPoints::from_points(tally.area(Color::Black) as i32) + bonus(Color::Black),
            white: HalfPoints::from_points(tally.area(Color::White) as i32)
                + komi
                + bonus(Color::White),
            tally,
        }
    }

    /// The winner, `None` for a draw (jigo).
    pub fn winner(&self) -> Option<Color> {
        match self.black.0.cmp(&self.white.0) {
            std::cmp::Ordering::Greater => Some(Color::Black),
            std::cmp::Ordering::Less => Some(Color::White),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// The absolute difference of the two scores.
    pub fn margin(&self) -> HalfPoints {
        HalfPoints((self.black.0 - self.white.0).abs())
    }
}
