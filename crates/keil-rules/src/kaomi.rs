//! Kaomi (kaomi-rules.md): a placement pushes the placed stone's
//! orthogonal neighbours one square away along its row and column (the
//! line rule), the pie rule's swap, the end when the board is full, pair
//! removal and the two results (standard: biggest group left; Squared: sum
//! of squared group sizes plus komi).
//!
//! The board, the symmetries, the Zobrist keys and the row notation are the
//! square board's ([`SquareBoard`], shared with Go); only the keys' salt
//! ([`KeySalt::KAOMI`]) is Kaomi's. Stones are two 512-bit sets; a
//! placement walks at most the `2 (n − 1)` squares of its two lines.

use std::fmt;
use std::str::FromStr;

use crate::board::{Point, Symmetry};
use crate::color::Color;
use crate::game::{IllegalMove, IllegalReason, Move, TurnOutcome};
use crate::half_points::HalfPoints;
use crate::position::{Bits, PointSet, PositionKey, Score, Tally, Wide};
use crate::square::{KeySalt, SquareBoard, SquareKeys, SquareSymmetry};
use crate::square_position::{GoNotationError, SquarePosition};

/// Smallest Kaomi board (kaomi-rules.md, "Board and points").
pub const MIN_KAOMI_SIZE: u8 = 2;
/// Largest Kaomi board.
pub const MAX_KAOMI_SIZE: u8 = 19;
/// The side a record without `SZ` has (kaomi-rules.md, "Records").
pub const DEFAULT_KAOMI_SIZE: u8 = 7;

// ---- rulesets -------------------------------------------------------------------

/// How a finished game is scored (kaomi-rules.md, "End and result",
/// "Variant Squared").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum KaomiVariant {
    /// Pair removal, then the biggest group left wins (no draw).
    Standard,
    /// Sum of the squares of the group sizes, komi to White; equal scores
    /// draw.
    Squared,
}

impl KaomiVariant {
    /// `standard` or `squared` (the `RU` value and the archive's code).
    pub fn code(self) -> &'static str {
        match self {
            KaomiVariant::Standard => "standard",
            KaomiVariant::Squared => "squared",
        }
    }
}

impl fmt::Display for KaomiVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for KaomiVariant {
    type Err = KaomiRulesetError;

    /// Reads `standard` or `squared` (ASCII case ignored).
    fn from_str(s: &str) -> Result<KaomiVariant, KaomiRulesetError> {
        [KaomiVariant::Standard, KaomiVariant::Squared]
            .into_iter()
            .find(|v| v.code().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| KaomiRulesetError::Option(format!("variant={s}")))
    }
}

/// A Kaomi ruleset: the variant and whether the pie rule is in use
/// (kaomi-rules.md, "Rulesets").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KaomiRuleset {
    /// The variant.
    pub variant: KaomiVariant,
    /// Whether White may swap on ply 2 (`pie=on`).
    pub pie: bool,
}

impl Default for KaomiRuleset {
    /// `RU[Kaomi]`: standard, pie rule on.
    fn default() -> KaomiRuleset {
        KaomiRuleset {
            variant: KaomiVariant::Standard,
            pie: true,
        }
    }
}

/// Why an `RU` value is not a Kaomi ruleset (a record error).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KaomiRulesetError {
    /// Occurs when the name is not `Kaomi` (`RU[Keil]`, `RU[]`).
    #[error("ruleset {0:?} is not Kaomi: expected Kaomi, optionally with variant=… and pie=…")]
    Name(String),
    /// Occurs on an option that is not `key=value`, an unknown key, or an
    /// unknown value.
    #[error("unknown ruleset option {0:?}: expected variant=standard|squared or pie=on|off")]
    Option(String),
    /// Occurs when a key is given twice.
    #[error("ruleset option {0:?} is given twice")]
    Repeated(String),
}

impl KaomiRuleset {
    /// The standard game with the pie rule (`RU[Kaomi]`).
    pub const STANDARD: KaomiRuleset = KaomiRuleset {
        variant: KaomiVariant::Standard,
        pie: true,
    };
    /// Squared without the pie rule (`RU[Kaomi; variant=squared]`).
    pub const SQUARED: KaomiRuleset = KaomiRuleset {
        variant: KaomiVariant::Squared,
        pie: false,
    };

    /// Reads an `RU` value; `None` (absent) is `Kaomi`. Options are
    /// `key=value` separated by `;` and/or spaces, each key at most once;
    /// `pie` defaults to `on` for standard and `off` for Squared.
    ///
    /// # Errors
    /// [`KaomiRulesetError`] naming the offending word.
    pub fn from_ru(ru: Option<&str>) -> Result<KaomiRuleset, KaomiRulesetError> {
        let Some(ru) = ru else {
            return Ok(KaomiRuleset::default());
        };
        let mut words = ru
            .split(|c: char| c == ';' || c.is_whitespace())
            .filter(|w| !w.is_empty());
        match words.next() {
            Some("Kaomi") => {}
            _ => return Err(KaomiRulesetError::Name(ru.to_string())),
        }
        let (mut variant, mut pie) = (None, None);
        for word in words {
            let bad = || KaomiRulesetError::Option(word.to_string());
            let (key, value) = word.split_once('=').ok_or_else(bad)?;
            let slot_taken = match key {
                "variant" => {
                    let v = match value {
                        "standard" => KaomiVariant::Standard,
                        "squared" => KaomiVariant::Squared,
                        _ => return Err(bad()),
                    };
                    variant.replace(v).is_some()
                }
                "pie" => {
                    let v = match value {
                        "on" => true,
                        "off" => false,
                        _ => return Err(bad()),
                    };
                    pie.replace(v).is_some()
                }
                _ => return Err(bad()),
            };
            if slot_taken {
                return Err(KaomiRulesetError::Repeated(key.to_string()));
            }
        }
        let variant = variant.unwrap_or(KaomiVariant::Standard);
        Ok(KaomiRuleset {
            variant,
            pie: pie.unwrap_or(variant == KaomiVariant::Standard),
        })
    }
}

impl fmt::Display for KaomiRuleset {
    /// The full `RU` form: `Kaomi; variant=squared; pie=off`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pie = if self.pie { "on" } else { "off" };
        write!(f, "Kaomi; variant={}; pie={pie}", self.variant.code())
    }
}

impl FromStr for KaomiRuleset {
    type Err = KaomiRulesetError;
    fn from_str(s: &str) -> Result<KaomiRuleset, KaomiRulesetError> {
        KaomiRuleset::from_ru(Some(s))
    }
}

// ---- the line rule ----------------------------------------------------------------

/// The most stones one placement can move: `n − 1` per line, two lines.
const MAX_PUSHES: usize = 2 * (MAX_KAOMI_SIZE as usize - 1);

/// The stones one placement moved, as `(from, to)` point indexes, row
/// first then column, each chain from its far end (the order they were
/// shifted in). At most `2 (n − 1)`.
#[derive(Clone, Copy)]
pub struct Pushes {
    moves: [(u16, u16); MAX_PUSHES],
    len: u8,
}

impl Pushes {
    fn new() -> Pushes {
        Pushes {
            moves: [(0, 0); MAX_PUSHES],
            len: 0,
        }
    }

    #[inline]
    fn push(&mut self, from: usize, to: usize) {
        self.moves[self.len as usize] = (from as u16, to as u16);
        self.len += 1;
    }

    /// The moves `(from, to)`.
    pub fn iter(&self) -> impl Iterator<Item = (Point, Point)> + '_ {
        self.moves[..self.len as usize]
            .iter()
            .map(|&(a, b)| (Point(a), Point(b)))
    }

    /// The number of stones moved.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether no stone moved.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl fmt::Debug for Pushes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// One chain of the line rule (step 1): its number of stones from the
/// square next to `P`, its target's index on the line, and whether it
/// wraps (passes the end of the line).
#[derive(Clone, Copy)]
struct Chain {
    len: usize,
    target: usize,
    wraps: bool,
}

/// Step 1 of the line rule for direction `s` (`+1` or `n − 1` for `−1`):
/// the chain starting next to `p`, if that square holds a stone.
#[inline]
fn chain(
    occupied: &Wide,
    line: impl Fn(usize) -> usize,
    n: usize,
    p: usize,
    s: usize,
) -> Option<Chain> {
    let first = if s == 1 {
        (p + 1 < n).then_some(p + 1)?
    } else {
        p.checked_sub(1)?
    };
    if !occupied.has(line(first)) {
        return None;
    }
    let mut i = first;
    let mut len = 0;
    while i != p && occupied.has(line(i)) {
        len += 1;
        i = (i + s) % n;
    }
    // Wraps: the target lies on the other side of P from the first stone.
    let wraps = i != p && if s == 1 { i < p } else { i > p };
    Some(Chain {
        len,
        target: i,
        wraps,
    })
}

impl KaomiPosition {
    /// The line rule on one line (kaomi-rules.md, "The line rule"): `line(i)`
    /// is the point index of the line's square `i`, `p` the placed stone's
    /// index on the line. Moves the stones and records them in `out`.
    #[inline]
    fn push_line(&mut self, line: impl Fn(usize) -> usize + Copy, p: usize, out: &mut Pushes) {
        let n = self.square.board.size() as usize;
        let occupied = self.square.stones[0].union(self.square.stones[1]);
        let forward = chain(&occupied, line, n, p, 1);
        let backward = chain(&occupied, line, n, p, n - 1);
        // Step 2: a chain that comes round to P (the line is full).
        if forward.is_some_and(|c| c.target == p) || backward.is_some_and(|c| c.target == p) {
            return;
        }
        // Step 3: two chains with one target: the wrapping one stays.
        let (mut move_forward, mut move_backward) = (forward.is_some(), backward.is_some());
        if let (Some(f), Some(b)) = (forward, backward)
            && f.target == b.target
        {
            move_forward = !f.wraps;
            move_backward = !b.wraps;
        }
        // Step 5: shift each moving chain by one, far end first.
        for (c, s, moving) in [(forward, 1, move_forward), (backward, n - 1, move_backward)] {
            let (Some(c), true) = (c, moving) else {
                continue;
            };
            let mut to = c.target;
            for _ in 0..c.len {
                let from = (to + n * 2 - s) % n;
                let (a, b) = (line(from), line(to));
                let colour = usize::from(self.square.stones[1].has(a));
                self.square.stones[colour].remove(a);
                self.square.stones[colour].insert(b);
                out.push(a, b);
                to = from;
            }
        }
    }
}

// ---- positions ----------------------------------------------------------------------

/// A Kaomi position: the stones on an n×n square board, 2 ≤ n ≤ 19.
///
/// The notation is the square boards' row notation (kaomi-rules.md,
/// "Position notation"), written and read by the same code as Go's.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct KaomiPosition {
    square: SquarePosition,
}

impl fmt::Debug for KaomiPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KaomiPosition({})", self.to_notation(None))
    }
}

/// A group of the final board and its fate in pair removal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KaomiGroup {
    /// The colour of its stones.
    pub color: Color,
    /// Its stones.
    pub stones: PointSet,
    /// Its size (number of stones).
    pub size: u16,
    /// Standard game: removed with a group of the other colour of the same
    /// size (the pair it belongs to is `paired_with`); always `false` in
    /// Squared, which removes nothing.
    pub removed: bool,
    /// The index, in [`KaomiResult::groups`], of the group it was removed
    /// with.
    pub paired_with: Option<usize>,
}

impl KaomiPosition {
    /// The empty board.
    pub fn empty(board: &'static SquareBoard) -> KaomiPosition {
        KaomiPosition {
            square: SquarePosition::empty(board),
        }
    }

    /// The board.
    pub fn board(&self) -> &'static SquareBoard {
        self.square.board
    }

    /// The colour of the stone on `p`, if any.
    #[inline]
    pub fn get(&self, p: Point) -> Option<Color> {
        self.square.get(p)
    }

    /// Puts a stone (or nothing) on `p`, without applying any rule.
    ///
    /// # Panics
    /// When `p` is not on the board.
    pub fn set(&mut self, p: Point, stone: Option<Color>) {
        self.square.set(p, stone)
    }

    /// The stones of one colour.
    pub fn stones(&self, color: Color) -> PointSet {
        self.square.stones(color)
    }

    /// The number of stones of one colour.
    pub fn count(&self, color: Color) -> u32 {
        self.square.stones[color.index()].count()
    }

    /// Whether every square holds a stone (the end, kaomi-rules.md "A
    /// turn").
    pub fn is_full(&self) -> bool {
        (self.count(Color::Black) + self.count(Color::White)) as usize == self.square.board.len()
    }

    /// Places a stone of `color` on the empty square `p` and carries out the
    /// pushes of the line rule on its row, then its column (the two are
    /// independent; kaomi-rules.md, "The placement procedure"). Returns the
    /// stones moved.
    ///
    /// # Panics
    /// When `p` is off the board or occupied (debug builds check occupancy
    /// only).
    #[inline]
    pub fn place(&mut self, p: Point, color: Color) -> Pushes {
        let n = self.square.board.size() as usize;
        let i = p.index();
        debug_assert!(self.get(p).is_none(), "{p:?} is occupied");
        assert!(i < n * n, "{p:?} is off the board");
        self.square.stones[color.index()].insert(i);
        let (x, y) = (i % n, i / n);
        let mut out = Pushes::new();
        self.push_line(|j| y * n + j, x, &mut out);
        self.push_line(|j| j * n + x, y, &mut out);
        out
    }

    /// Every group (4-connected stones of one colour), in board order of
    /// its first stone, with `removed` false.
    pub fn groups(&self) -> Vec<KaomiGroup> {
        self.square
            .groups()
            .into_iter()
            .map(|g| KaomiGroup {
                color: g.color,
                size: g.stones.len() as u16,
                stones: g.stones,
                removed: false,
                paired_with: None,
            })
            .collect()
    }

    /// The size of the biggest group of `color` (0 without stones), by
    /// flooding the colour's bitset once (each stone is visited once).
    pub fn biggest_group(&self, color: Color) -> u32 {
        let mut left = self.square.stones[color.index()];
        let mut todo = [0u16; 361];
        let mut best = 0;
        while let Some(start) = left.pop_first() {
            let (mut size, mut top) = (1, 1);
            todo[0] = start as u16;
            while top > 0 {
                top -= 1;
                for &q in self.square.board.slots(todo[top] as usize) {
                    let q = q as usize;
                    if q != crate::board::NONE as usize && left.has(q) {
                        left.remove(q);
                        todo[top] = q as u16;
                        top += 1;
                        size += 1;
                    }
                }
            }
            best = best.max(size);
        }
        best
    }

    fn keys(&self) -> SquareKeys {
        self.square.keys(KeySalt::KAOMI)
    }

    /// The 64-bit Zobrist key, salted for Kaomi ([`KeySalt::KAOMI`]): never
    /// equal to the Go key of the same stones. Stable across versions.
    pub fn key(&self) -> PositionKey {
        self.keys().key()
    }

    /// The canonical key (least of the 8 images' keys) and a symmetry whose
    /// image has it.
    pub fn canonical_key(&self) -> (PositionKey, SquareSymmetry) {
        self.keys().canonical()
    }

    /// The image under a symmetry (kaomi-rules.md, "Symmetries").
    pub fn transform(&self, s: SquareSymmetry) -> KaomiPosition {
        KaomiPosition {
            square: self.square.transform(s),
        }
    }

    /// The canonical form (least bitsets of the 8 images) and a symmetry
    /// mapping `self` onto it.
    pub fn canonical(&self) -> (KaomiPosition, SquareSymmetry) {
        let (square, s) = self.square.canonical();
        (KaomiPosition { square }, s)
    }

    /// The position with black and white exchanged (the pushes are
    /// colour-blind; the caller exchanges the player to move).
    pub fn swap_colors(&self) -> KaomiPosition {
        KaomiPosition {
            square: self.square.swap_colors(),
        }
    }

    /// The position notation (kaomi-rules.md, "Position notation"): rows
    /// from the top, `b`, `w`, maximal digit runs, ` b`/` w` when `to_move`
    /// is given.
    pub fn to_notation(&self, to_move: Option<Color>) -> String {
        self.square.notation(to_move)
    }

    /// Reads the position notation; the size is the number of rows.
    ///
    /// # Errors
    /// [`GoNotationError`] (the notation is the square boards'), also for
    /// a 1×1 board, which Kaomi does not have.
    pub fn parse_notation(text: &str) -> Result<(KaomiPosition, Option<Color>), GoNotationError> {
        let (square, to_move) = SquarePosition::parse_notation(text)?;
        if square.board.size() < MIN_KAOMI_SIZE {
            return Err(GoNotationError::Rows(square.board.size() as usize));
        }
        Ok((KaomiPosition { square }, to_move))
    }
}

impl fmt::Display for KaomiPosition {
    /// The notation of the board alone.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.square, f)
    }
}

impl FromStr for KaomiPosition {
    type Err = GoNotationError;
    fn from_str(s: &str) -> Result<KaomiPosition, GoNotationError> {
        KaomiPosition::parse_notation(s).map(|(p, _)| p)
    }
}

// ---- the result -----------------------------------------------------------------------

/// The result of a full board (kaomi-rules.md, "End and result", "Variant
/// Squared").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KaomiResult {
    /// The variant it was scored under.
    pub variant: KaomiVariant,
    /// Every group of the full board, in board order of its first stone;
    /// in the standard game, the removed pairs are marked (pairs are made
    /// size by size, each colour's groups taken in board order; any order
    /// leaves the same sizes).
    pub groups: Vec<KaomiGroup>,
    /// Scores `[black, white]`: standard, the size of the biggest group
    /// left (0 if none); Squared, the sum of the squared sizes, komi
    /// included for White.
    pub scores: [HalfPoints; 2],
    /// The winner; `None` is a draw (Squared only).
    pub winner: Option<Color>,
    /// Winner's score − loser's score (0 on the emptied board and for a
    /// draw).
    pub margin: HalfPoints,
    /// Standard: every group was paired off, and the player who placed the
    /// last stone lost.
    pub emptied: bool,
    /// Standard: the index in `groups` of the winner's biggest group left
    /// (the deciding group; the first in board order among equals).
    pub deciding: Option<usize>,
}

impl KaomiResult {
    /// Scores the full board `position` under `variant` (`komi` to White in
    /// Squared, ignored in the standard game; `last` the colour of the last
    /// placement, which loses on the emptied board).
    pub fn score(
        position: &KaomiPosition,
        variant: KaomiVariant,
        komi: HalfPoints,
        last: Color,
    ) -> KaomiResult {
        let groups = position.groups();
        match variant {
            KaomiVariant::Squared => KaomiResult::squared(groups, komi),
            KaomiVariant::Standard => KaomiResult::standard(groups, last),
        }
    }

    /// Squared (kaomi-rules.md, "Variant Squared"): each colour scores the
    /// sum of the squares of its group sizes, White adds `komi`; nothing is
    /// removed.
    fn squared(groups: Vec<KaomiGroup>, komi: HalfPoints) -> KaomiResult {
        let mut scores = [HalfPoints(0), komi];
        for g in &groups {
            let s = g.size as i32;
            scores[g.color.index()] = scores[g.color.index()] + HalfPoints::from_points(s * s);
        }
        let score = Score {
            black: scores[0],
            white: scores[1],
            tally: Tally::default(),
        };
        KaomiResult {
            variant: KaomiVariant::Squared,
            groups,
            scores,
            winner: score.winner(),
            margin: score.margin(),
            emptied: false,
            deciding: None,
        }
    }

    /// The standard game (kaomi-rules.md, "End and result"): pair removal,
    /// then the biggest group left wins; on the emptied board the player
    /// of the `last` placement loses.
    fn standard(mut groups: Vec<KaomiGroup>, last: Color) -> KaomiResult {
        pair_off(&mut groups);
        let biggest = |c: Color| {
            groups
                .iter()
                .enumerate()
                .filter(|(_, g)| !g.removed && g.color == c)
                .max_by_key(|&(i, g)| (g.size, std::cmp::Reverse(i)))
                .map(|(i, g)| (i, g.size as i32))
        };
        let (b, w) = (biggest(Color::Black), biggest(Color::White));
        let sb = b.map_or(0, |x| x.1);
        let sw = w.map_or(0, |x| x.1);
        let (winner, deciding, emptied) = match sb.cmp(&sw) {
            std::cmp::Ordering::Greater => (Color::Black, b.map(|x| x.0), false),
            std::cmp::Ordering::Less => (Color::White, w.map(|x| x.0), false),
            std::cmp::Ordering::Equal => (last.opposite(), None, true),
        };
        KaomiResult {
            variant: KaomiVariant::Standard,
            groups,
            scores: [HalfPoints::from_points(sb), HalfPoints::from_points(sw)],
            winner: Some(winner),
            margin: HalfPoints::from_points((sb - sw).abs()),
            emptied,
            deciding,
        }
    }

    /// The group sizes of one colour on the full board, largest first.
    pub fn sizes(&self, color: Color) -> Vec<u16> {
        self.sizes_where(color, |_| true)
    }

    /// Standard game: the group sizes of one colour left after pair
    /// removal, largest first.
    pub fn left(&self, color: Color) -> Vec<u16> {
        self.sizes_where(color, |g| !g.removed)
    }

    fn sizes_where(&self, color: Color, keep: impl Fn(&KaomiGroup) -> bool) -> Vec<u16> {
        let mut v: Vec<u16> = self
            .groups
            .iter()
            .filter(|g| g.color == color && keep(g))
            .map(|g| g.size)
            .collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v
    }

    /// The scores as a [`Score`] (no tally).
    pub fn as_score(&self) -> Score {
        Score {
            black: self.scores[0],
            white: self.scores[1],
            tally: Tally::default(),
        }
    }
}

/// Pair removal (kaomi-rules.md, "End and result"): in board order, each
/// group left is removed with the first group left of the other colour and
/// the same size.
fn pair_off(groups: &mut [KaomiGroup]) {
    for i in 0..groups.len() {
        if groups[i].removed {
            continue;
        }
        let partner = (0..groups.len()).find(|&j| {
            !groups[j].removed
                && groups[j].color != groups[i].color
                && groups[j].size == groups[i].size
        });
        if let Some(j) = partner {
            groups[i].removed = true;
            groups[j].removed = true;
            groups[i].paired_with = Some(j);
            groups[j].paired_with = Some(i);
        }
    }
}

// ---- the game --------------------------------------------------------------------------

/// A Kaomi game in progress: turns alternate strictly from Black; a turn
/// is a placement or, under the pie rule on ply 2, White's swap
/// (kaomi-rules.md, "A turn", "Pie rule", "Verdicts").
#[derive(Clone, Debug)]
pub struct KaomiGame {
    position: KaomiPosition,
    keys: SquareKeys,
    rules: KaomiRuleset,
    komi: HalfPoints,
    ply: u32,
    to_move: Color,
    swapped: bool,
    last_placer: Option<Color>,
}

impl KaomiGame {
    /// A new game on the empty board, Black to move. `komi` counts for
    /// White in Squared only.
    pub fn new(board: &'static SquareBoard, rules: KaomiRuleset, komi: HalfPoints) -> KaomiGame {
        let position = KaomiPosition::empty(board);
        KaomiGame {
            keys: position.keys(),
            position,
            rules,
            komi,
            ply: 0,
            to_move: Color::Black,
            swapped: false,
            last_placer: None,
        }
    }

    /// The board.
    pub fn board(&self) -> &'static SquareBoard {
        self.position.square.board
    }

    /// The ruleset.
    pub fn ruleset(&self) -> KaomiRuleset {
        self.rules
    }

    /// The komi (used by Squared).
    pub fn komi(&self) -> HalfPoints {
        self.komi
    }

    /// The colour to move.
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// The number of turns played (the swap counts).
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Whether White swapped.
    pub fn swapped(&self) -> bool {
        self.swapped
    }

    /// The colour of the last placement, if any.
    pub fn last_placer(&self) -> Option<Color> {
        self.last_placer
    }

    /// Whether the board is full: the game is over and any further move is
    /// `after_end`.
    pub fn is_over(&self) -> bool {
        self.position.is_full()
    }

    /// The current position.
    pub fn position(&self) -> KaomiPosition {
        self.position
    }

    /// The colour of the stone on `p`, if any.
    pub fn stone_at(&self, p: Point) -> Option<Color> {
        self.position.get(p)
    }

    /// The key of the current position.
    pub fn key(&self) -> PositionKey {
        self.keys.key()
    }

    /// The canonical key of the current position and a symmetry whose
    /// image has it.
    pub fn canonical_key(&self) -> (PositionKey, SquareSymmetry) {
        self.keys.canonical()
    }

    /// `after_end`, then `wrong_player` (the first two codes of the
    /// precedence table).
    fn turn(&self, color: Color) -> Result<(), IllegalReason> {
        if self.is_over() {
            Err(IllegalReason::BoardFull)
        } else if color != self.to_move {
            Err(IllegalReason::WrongPlayer {
                expected: self.to_move,
            })
        } else {
            Ok(())
        }
    }

    /// Checks that `color` may move now (`after_end`, `wrong_player`),
    /// before the record reader resolves the point (`off_board`).
    ///
    /// # Errors
    /// [`IllegalReason::BoardFull`] or [`IllegalReason::WrongPlayer`].
    pub fn check_turn(&self, color: Color) -> Result<(), IllegalMove> {
        self.turn(color).map_err(|reason| IllegalMove {
            ply: self.ply + 1,
            color,
            mv: Move::Pass,
            reason,
        })
    }

    /// Why `mv` by `color` would be illegal, in the order of the
    /// precedence table (kaomi-rules.md, "Verdicts").
    ///
    /// # Errors
    /// The reason.
    pub fn legality(&self, color: Color, mv: Move) -> Result<(), IllegalReason> {
        self.turn(color)?;
        match mv {
            Move::Place(p) if p.index() >= self.position.square.board.len() => {
                Err(IllegalReason::OffBoard)
            }
            Move::Place(p) if self.position.get(p).is_some() => Err(IllegalReason::Occupied),
            Move::Place(_) => Ok(()),
            Move::Pass => Err(IllegalReason::PassNotAllowed),
            Move::Swap if !self.rules.pie => Err(IllegalReason::SwapNotAllowed),
            Move::Swap if self.ply != 1 => Err(IllegalReason::SwapWrongTurn),
            Move::Swap => Ok(()),
            Move::TakeButton => Err(IllegalReason::ButtonNotInUse),
        }
    }

    /// Plays `mv` for `color`.
    ///
    /// # Errors
    /// [`IllegalMove`] with the first reason of the precedence table; the
    /// game is unchanged.
    #[inline]
    pub fn play_as(&mut self, color: Color, mv: Move) -> Result<TurnOutcome, IllegalMove> {
        self.legality(color, mv).map_err(|reason| IllegalMove {
            ply: self.ply + 1,
            color,
            mv,
            reason,
        })?;
        let mut moved = Vec::new();
        match mv {
            Move::Place(p) => {
                let pushes = self.position.place(p, color);
                self.keys.toggle(p, color);
                for (from, to) in pushes.iter() {
                    let c = self.position.get(to).expect("a pushed stone");
                    self.keys.toggle(from, c);
                    self.keys.toggle(to, c);
                }
                moved.extend(pushes.iter());
                self.last_placer = Some(color);
            }
            Move::Swap => {
                // The swap: the one black stone becomes white.
                let p = Point(
                    self.position.square.stones[0]
                        .pop_first()
                        .expect("one black stone on ply 2") as u16,
                );
                self.position.set(p, Some(Color::White));
                self.keys.toggle(p, Color::Black);
                self.keys.toggle(p, Color::White);
                self.swapped = true;
            }
            Move::Pass | Move::TakeButton => unreachable!("refused by legality"),
        }
        self.ply += 1;
        self.to_move = color.opposite();
        let canonical = self.keys.canonical();
        Ok(TurnOutcome {
            ply: self.ply,
            captured: Vec::new(),
            key: self.keys.key(),
            canonical: (
                canonical.0,
                Symmetry::from_index(canonical.1.index()).expect("index < 8"),
            ),
            ended: self.is_over(),
            canonical_sym: canonical.1.index(),
            suicided: Vec::new(),
            superko_break: false,
            pass_play: false,
            resumed: false,
            moved,
        })
    }

    /// Plays `mv` for the player to move.
    ///
    /// # Errors
    /// As [`KaomiGame::play_as`].
    pub fn play(&mut self, mv: Move) -> Result<TurnOutcome, IllegalMove> {
        self.play_as(self.to_move, mv)
    }

    /// Every legal move for `color`: the empty squares in board order, then
    /// the swap when it is legal.
    pub fn legal_moves(&self, color: Color) -> Vec<Move> {
        if self.turn(color).is_err() {
            return Vec::new();
        }
        let occupied = self.position.square.stones[0].union(self.position.square.stones[1]);
        let mut out: Vec<Move> = (0..self.position.square.board.len())
            .filter(|&i| !occupied.has(i))
            .map(|i| Move::Place(Point(i as u16)))
            .collect();
        if self.legality(color, Move::Swap).is_ok() {
            out.push(Move::Swap);
        }
        out
    }

    /// The result, once the board is full.
    pub fn result(&self) -> Option<KaomiResult> {
        let last = self.last_placer?;
        self.is_over()
            .then(|| KaomiResult::score(&self.position, self.rules.variant, self.komi, last))
    }

    /// The scores as a [`Score`]: the result's on a full board; before the
    /// end, the scores the current groups would give (standard: biggest
    /// group left after pair removal; Squared: squares plus komi).
    pub fn score(&self) -> Score {
        let last = self.last_placer.unwrap_or(Color::White);
        KaomiResult::score(&self.position, self.rules.variant, self.komi, last).as_score()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ruleset_forms() {
        assert_eq!(KaomiRuleset::from_ru(None), Ok(KaomiRuleset::STANDARD));
        assert_eq!(
            KaomiRuleset::from_ru(Some("Kaomi; variant=squared")),
            Ok(KaomiRuleset::SQUARED)
        );
        assert!(
            "Kaomi variant=squared pie=on"
                .parse::<KaomiRuleset>()
                .unwrap()
                .pie
        );
        assert!(
            "Kaomi; pie=off".parse::<KaomiRuleset>().unwrap()
                == KaomiRuleset {
                    variant: KaomiVariant::Standard,
                    pie: false
                }
        );
        assert!(matches!(
            "Kaomi; pie=off; pie=on".parse::<KaomiRuleset>(),
            Err(KaomiRulesetError::Repeated(_))
        ));
        assert!(matches!(
            "Keil".parse::<KaomiRuleset>(),
            Err(KaomiRulesetError::Name(_))
        ));
        assert!(matches!(
            "Kaomi; komi=2".parse::<KaomiRuleset>(),
            Err(KaomiRulesetError::Option(_))
        ));
        let r = KaomiRuleset::SQUARED;
        assert_eq!(r.to_string().parse::<KaomiRuleset>(), Ok(r));
    }
}
