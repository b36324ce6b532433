//! The rules of Go as go-rules.md states them: rulesets from `RU`, placing a
//! stone (captures, suicide), the repetition rules (simple ko, positional and
//! situational superko, Kee), turn order, end of the game and the area score,
//! and the Go position notation.
//!
//! SGF syntax (property values, `tt`, setup lists) is the record reader's;
//! this module takes points and colours.

use std::fmt;
use std::str::FromStr;

use crate::board::{NONE, Point, Symmetry};
use crate::color::Color;
use crate::game::{IllegalMove, IllegalReason, Move, TurnOutcome};
use crate::half_points::HalfPoints;
use crate::kee::{KeeRecords, KeeVerdict, KeyFilter};
use crate::position::{Bits, Group, PointSet, PositionKey, Score, Tally, Wide, stone_at};
use crate::square::{KeySalt, SquareBoard, SquareKeys, SquareSymmetry};
use crate::square_position::{GoNotationError, SquarePosition};

/// A Go ruleset (go-rules.md, "Rulesets").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum GoRuleset {
    /// Japanese: no suicide, simple ko, two passes stop the game.
    #[default]
    Japanese,
    /// Korean: as Japanese.
    Korean,
    /// Chinese: no suicide, positional superko.
    Chinese,
    /// AGA: no suicide, situational superko.
    Aga,
    /// New Zealand: suicide legal, situational superko.
    Nz,
    /// Tromp-Taylor: suicide legal, positional superko, two passes end the
    /// game, result checked by area.
    TrompTaylor,
    /// Kee (kee-rules.md): suicide legal, the Kee repetition rule, four
    /// passes end the game, result checked by area.
    Kee,
}

/// The repetition rule of a ruleset (go-rules.md, "Rulesets"; the `ko`
/// field of a verdict's ruleset).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RepetitionRule {
    /// The board may not repeat the one before the opponent's last move
    /// (`simple`).
    Simple,
    /// The board may not repeat any earlier board of the record
    /// (`positional`).
    Positional,
    /// The board with the player to move may not repeat an earlier
    /// situation (`situational`).
    Situational,
    /// kee-rules.md (`kee`).
    Kee,
}

impl RepetitionRule {
    /// The verdict code: `simple`, `positional`, `situational`, `kee`.
    pub fn code(self) -> &'static str {
        match self {
            RepetitionRule::Simple => "simple",
            RepetitionRule::Positional => "positional",
            RepetitionRule::Situational => "situational",
            RepetitionRule::Kee => "kee",
        }
    }
}

/// How a ruleset was found from `RU` (go-rules.md, "RU values"; the
/// `ru_mapped` field of a verdict).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RuMapped {
    /// `RU` named a known ruleset (`ru`).
    Ru,
    /// No `RU`, or an empty one: Japanese (`missing`).
    Missing,
    /// An `RU` naming no modelled ruleset: Japanese (`unknown`).
    Unknown,
}

impl RuMapped {
    /// The verdict code: `ru`, `missing`, `unknown`.
    pub fn code(self) -> &'static str {
        match self {
            RuMapped::Ru => "ru",
            RuMapped::Missing => "missing",
            RuMapped::Unknown => "unknown",
        }
    }
}

/// How a ruleset ends a game (go-rules.md, "End of the game and the result").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GoEnd {
    /// Two consecutive passes stop the game, play may resume; nothing is
    /// `after_end` (japanese, korean, chinese, aga, nz).
    Agreement,
    /// Two consecutive passes end the game (tromp-taylor).
    TwoPasses,
    /// Four consecutive passes, pass-equivalent plays included, end the
    /// game (kee).
    FourPasses,
}

impl GoRuleset {
    /// All rulesets, in the order of go-rules.md's table.
    pub const ALL: [GoRuleset; 7] = [
        GoRuleset::Japanese,
        GoRuleset::Korean,
        GoRuleset::Chinese,
        GoRuleset::Aga,
        GoRuleset::Nz,
        GoRuleset::TrompTaylor,
        GoRuleset::Kee,
    ];

    /// The ruleset of an `RU` value (go-rules.md, "RU values"): lower-cased,
    /// reduced to letters and digits, first matching line wins; no `RU` or
    /// an empty one is Japanese (`missing`), anything unknown Japanese
    /// (`unknown`).
    pub fn from_ru(ru: Option<&str>) -> (GoRuleset, RuMapped) {
        let norm: String = ru
            .unwrap_or("")
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        let n = norm.as_str();
        let found = if n.is_empty() {
            return (GoRuleset::Japanese, RuMapped::Missing);
        } else if n.starts_with("kee") {
            GoRuleset::Kee
        } else if n.starts_with("tromp") || n == "tt" {
            GoRuleset::TrompTaylor
        } else if n.starts_with("japan") || n == "jp" || n == "jpn" {
            GoRuleset::Japanese
        } else if n.starts_with("korea") || n == "kr" || n == "kor" {
            GoRuleset::Korean
        } else if n.starts_with("chin") || n == "cn" || n == "chn" {
            GoRuleset::Chinese
        } else if n.starts_with("aga") || n.starts_with("american") {
            GoRuleset::Aga
        } else if n.starts_with("newzealand") || n == "nz" {
            GoRuleset::Nz
        } else {
            return (GoRuleset::Japanese, RuMapped::Unknown);
        };
        (found, RuMapped::Ru)
    }

    /// The verdict code: `japanese`, `korean`, `chinese`, `aga`, `nz`,
    /// `tromp-taylor`, `kee`.
    pub fn code(self) -> &'static str {
        match self {
            GoRuleset::Japanese => "japanese",
            GoRuleset::Korean => "korean",
            GoRuleset::Chinese => "chinese",
            GoRuleset::Aga => "aga",
            GoRuleset::Nz => "nz",
            GoRuleset::TrompTaylor => "tromp-taylor",
            GoRuleset::Kee => "kee",
        }
    }

    /// Whether suicide is legal (otherwise it is `self_capture`).
    pub fn suicide(self) -> bool {
        matches!(
            self,
            GoRuleset::Nz | GoRuleset::TrompTaylor | GoRuleset::Kee
        )
    }

    /// The repetition rule.
    pub fn repetition(self) -> RepetitionRule {
        match self {
            GoRuleset::Japanese | GoRuleset::Korean => RepetitionRule::Simple,
            GoRuleset::Chinese | GoRuleset::TrompTaylor => RepetitionRule::Positional,
            GoRuleset::Aga | GoRuleset::Nz => RepetitionRule::Situational,
            GoRuleset::Kee => RepetitionRule::Kee,
        }
    }

    /// How the game ends.
    pub fn end(self) -> GoEnd {
        match self {
            GoRuleset::TrompTaylor => GoEnd::TwoPasses,
            GoRuleset::Kee => GoEnd::FourPasses,
            _ => GoEnd::Agreement,
        }
    }

    /// Whether `RE` is checked against the area score of a complete game
    /// (tromp-taylor, kee); otherwise it is reported only.
    pub fn result_checked(self) -> bool {
        self.end() != GoEnd::Agreement
    }
}

impl fmt::Display for GoRuleset {
    /// The code (`tromp-taylor`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Why a text is not a ruleset code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown Go ruleset {0:?}: expected japanese, korean, chinese, aga, nz, tromp-taylor or kee"
)]
pub struct GoRulesetError(pub String);

impl FromStr for GoRuleset {
    type Err = GoRulesetError;

    /// Reads a code as [`GoRuleset::code`] writes it (case-insensitive).
    /// For `RU` values use [`GoRuleset::from_ru`].
    fn from_str(s: &str) -> Result<GoRuleset, GoRulesetError> {
        GoRuleset::ALL
            .into_iter()
            .find(|r| r.code().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| GoRulesetError(s.to_string()))
    }
}

/// Who may make the next move (go-rules.md, "Turn order").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ToMove {
    /// This colour, and no other (`wrong_player` otherwise).
    Color(Color),
    /// Either colour: after setup without `PL`, and after two consecutive
    /// passes under an agreement ruleset.
    Either,
}

impl ToMove {
    /// The colour, when only one may move.
    pub fn color(self) -> Option<Color> {
        match self {
            ToMove::Color(c) => Some(c),
            ToMove::Either => None,
        }
    }

    /// Whether `color` may move.
    pub fn allows(self, color: Color) -> bool {
        match self {
            ToMove::Color(c) => c == color,
            ToMove::Either => true,
        }
    }
}

// ---- floods on a square board -------------------------------------------------

/// Whether the point `p` has an empty neighbour.
#[inline(always)]
fn touches_empty(board: &SquareBoard, stones: &[Wide; 2], p: usize) -> bool {
    board
        .slots(p)
        .iter()
        .any(|&q| q != NONE && !stones[0].has(q as usize) && !stones[1].has(q as usize))
}

/// The group of the stone of colour index `c` on `start` if it has no
/// liberty; `None` as soon as a liberty is found. Every stone visited is
/// added to `seen`. The early stop keeps a placement cheap: a living group
/// is usually known to live after a step or two, and most often from the
/// first stone's own neighbours, checked before any set is built.
#[inline]
fn dead_group(
    board: &SquareBoard,
    stones: &[Wide; 2],
    c: usize,
    start: usize,
    seen: &mut Wide,
) -> Option<Wide> {
    if touches_empty(board, stones, start) {
        seen.insert(start);
        return None;
    }
    let mut group = Wide::default();
    let mut todo = Wide::default();
    group.insert(start);
    todo.insert(start);
    seen.insert(start);
    while let Some(p) = todo.pop_first() {
        for &q in board.slots(p) {
            if q == NONE {
                continue;
            }
            let q = q as usize;
            if stones[c].has(q) {
                if !group.has(q) {
                    group.insert(q);
                    seen.insert(q);
                    todo.insert(q);
                }
            } else if !stones[1 - c].has(q) {
                return None;
            }
        }
    }
    Some(group)
}

/// Step 2 of go-rules.md "Placing a stone": removes from `stones` the
/// opponent groups next to `color`'s stone on `p` that have no liberty,
/// toggling their keys; returns the captured points.
#[inline(always)]
fn capture(
    board: &SquareBoard,
    stones: &mut [Wide; 2],
    keys: &mut SquareKeys,
    p: usize,
    color: Color,
) -> Wide {
    let opp = color.opposite().index();
    let mut captured = Wide::default();
    let mut seen = Wide::default();
    for &q in board.slots(p) {
        if q != NONE
            && stones[opp].has(q as usize)
            && !seen.has(q as usize)
            && let Some(g) = dead_group(board, stones, opp, q as usize, &mut seen)
        {
            captured = captured.union(g);
        }
    }
    if !captured.none() {
        stones[opp] = stones[opp].minus(captured);
        captured.each(|i| keys.toggle(Point(i as u16), color.opposite()));
    }
    captured
}

/// The empty region (4-connected empty points) of the empty point `start`,
/// and whether it touches a black and a white stone.
fn region_of(board: &SquareBoard, stones: &[Wide; 2], start: usize) -> (Wide, [bool; 2]) {
    let mut region = Wide::default();
    let mut touches = [false; 2];
    let mut todo = Wide::default();
    region.insert(start);
    todo.insert(start);
    while let Some(p) = todo.pop_first() {
        for &q in board.slots(p) {
            if q == NONE {
                continue;
            }
            let q = q as usize;
            if stones[0].has(q) {
                touches[0] = true;
            } else if stones[1].has(q) {
                touches[1] = true;
            } else if !region.has(q) {
                region.insert(q);
                todo.insert(q);
            }
        }
    }
    (region, touches)
}

/// The area tally of `stones` (go-rules.md, "End of the game and the
/// result").
fn area_tally(board: &SquareBoard, stones: &[Wide; 2]) -> Tally {
    let mut tally = Tally {
        stones: [stones[0].count() as u16, stones[1].count() as u16],
        ..Tally::default()
    };
    let mut seen = stones[0].union(stones[1]);
    for start in 0..board.len() {
        if seen.has(start) {
            continue;
        }
        let (region, touches) = region_of(board, stones, start);
        seen = seen.union(region);
        let n = region.count() as u16;
        match touches {
            [true, false] => tally.territory[0] += n,
            [false, true] => tally.territory[1] += n,
            [true, true] => tally.contested += n,
            [false, false] => tally.unlinked += n,
        }
    }
    tally
}

fn points_of(set: Wide) -> Vec<Point> {
    let mut out = Vec::with_capacity(set.count() as usize);
    set.each(|i| out.push(Point(i as u16)));
    out
}

// ---- positions ----------------------------------------------------------------

/// A Go position: the stones on a square board (positions are boards only,
/// go-rules.md "Rulesets").
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GoPosition {
    square: SquarePosition,
}

impl fmt::Debug for GoPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GoPosition({})", self.to_notation(None))
    }
}

impl GoPosition {
    /// The empty board.
    pub fn empty(board: &'static SquareBoard) -> GoPosition {
        GoPosition::from_parts(board, [Wide::default(); 2])
    }

    /// A position with the given stones.
    ///
    /// # Errors
    /// Returns a point given for both colours.
    ///
    /// # Panics
    /// When a point is not on the board.
    pub fn from_stones(
        board: &'static SquareBoard,
        black: impl IntoIterator<Item = Point>,
        white: impl IntoIterator<Item = Point>,
    ) -> Result<GoPosition, Point> {
        let mut pos = GoPosition::empty(board);
        let stones = &mut pos.square.stones;
        for p in black {
            assert!(p.index() < board.len(), "{p:?} is off the board");
            stones[0].insert(p.index());
        }
        for p in white {
            assert!(p.index() < board.len(), "{p:?} is off the board");
            if stones[0].has(p.index()) {
                return Err(p);
            }
            stones[1].insert(p.index());
        }
        Ok(pos)
    }

    pub(crate) fn from_parts(board: &'static SquareBoard, stones: [Wide; 2]) -> GoPosition {
        GoPosition {
            square: SquarePosition { board, stones },
        }
    }

    /// The board.
    pub fn board(&self) -> &'static SquareBoard {
        self.square.board
    }

    /// The colour of the stone on `p`, if any.
    pub fn get(&self, p: Point) -> Option<Color> {
        self.square.get(p)
    }

    /// Puts a stone (or nothing) on `p`, without applying any rule (setup:
    /// `AB`, `AW`, `AE`).
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

    /// Every group (4-connected stones of one colour) with its liberties,
    /// in board order of its first stone.
    pub fn groups(&self) -> Vec<Group> {
        self.square.groups()
    }

    /// The group of the stone on `p`; `None` when `p` is empty.
    pub fn group_at(&self, p: Point) -> Option<Group> {
        self.square.group_at(p)
    }

    /// The area score (go-rules.md, "End of the game and the result"):
    /// per colour its stones plus the empty regions (4-connected) that touch
    /// only that colour; White adds `komi`. In the [`Score`]'s tally,
    /// `territory` is the empty points counted, `contested` the empty points
    /// of regions touching both colours, `unlinked` those touching none.
    pub fn score(&self, komi: HalfPoints) -> Score {
        Score::from_tally(
            area_tally(self.square.board, &self.square.stones),
            komi,
            None,
        )
    }

    /// The empty points the area score counts for a colour: each empty
    /// region (4-connected) that touches stones of that colour only, with
    /// its owner (the points of [`GoPosition::score`]'s `territory`).
    pub fn area_owners(&self) -> Vec<(Point, Color)> {
        let SquarePosition { board, stones } = &self.square;
        let mut out = Vec::new();
        let mut seen = stones[0].union(stones[1]);
        for start in 0..board.len() {
            if seen.has(start) {
                continue;
            }
            let (region, touches) = region_of(board, stones, start);
            seen = seen.union(region);
            let owner = match touches {
                [true, false] => Color::Black,
                [false, true] => Color::White,
                _ => continue,
            };
            region.each(|i| out.push((Point(i as u16), owner)));
        }
        out
    }

    fn keys(&self) -> SquareKeys {
        self.square.keys(KeySalt::GO)
    }

    /// The 64-bit Zobrist key, salted for Go ([`KeySalt::GO`]): never equal
    /// to a Keil key of the same stones. Stable across versions.
    pub fn key(&self) -> PositionKey {
        self.keys().key()
    }

    /// The canonical key: the least of the keys of the 8 images, and a
    /// symmetry whose image has it.
    pub fn canonical_key(&self) -> (PositionKey, SquareSymmetry) {
        self.keys().canonical()
    }

    /// The image of the position under a symmetry.
    pub fn transform(&self, s: SquareSymmetry) -> GoPosition {
        GoPosition {
            square: self.square.transform(s),
        }
    }

    /// The canonical form: of the 8 images, the one whose (black, white)
    /// bitsets are least, and a symmetry mapping `self` onto it.
    pub fn canonical(&self) -> (GoPosition, SquareSymmetry) {
        let (square, s) = self.square.canonical();
        (GoPosition { square }, s)
    }

    /// The position with black and white exchanged (go-rules.md, "colour
    /// swap"; the player to move is exchanged by the caller).
    pub fn swap_colors(&self) -> GoPosition {
        GoPosition {
            square: self.square.swap_colors(),
        }
    }

    /// The position notation (go-rules.md, "Position notation and search"):
    /// rows from the top separated by `/`, `b`, `w`, maximal runs of empty
    /// points; ` b`/` w` appended when `to_move` is given. Canonical: one
    /// text per board.
    pub fn to_notation(&self, to_move: Option<Color>) -> String {
        self.square.notation(to_move)
    }

    /// Reads the position notation; the size is the number of rows.
    ///
    /// # Errors
    /// [`GoNotationError`] naming the row or byte offset at fault.
    pub fn parse_notation(text: &str) -> Result<(GoPosition, Option<Color>), GoNotationError> {
        let (square, to_move) = SquarePosition::parse_notation(text)?;
        Ok((GoPosition { square }, to_move))
    }
}

impl fmt::Display for GoPosition {
    /// The position notation of the board alone (no suffix).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.square, f)
    }
}

impl FromStr for GoPosition {
    type Err = GoNotationError;
    fn from_str(s: &str) -> Result<GoPosition, GoNotationError> {
        GoPosition::parse_notation(s).map(|(p, _)| p)
    }
}

// ---- the game -----------------------------------------------------------------

/// The repetition records of simple ko and superko: the board after every
/// ply since the start (or the last setup restart), with its key and the
/// colour to move after it.
#[derive(Clone, Debug)]
struct Records {
    /// The ply of entry 0 (0, or the ply before a setup restart).
    base: u32,
    keys: Vec<u64>,
    boards: Vec<[Wide; 2]>,
    /// Entry 0: the colour of the first move after it (known once played);
    /// entry k: the colour other than ply `base + k`'s mover.
    next: Vec<Option<Color>>,
    /// Keys added so far: a key not in the filter is new, without a scan.
    filter: KeyFilter,
}

impl Records {
    fn new(base: u32, key: u64, board: [Wide; 2]) -> Records {
        let mut r = Records {
            base,
            keys: Vec::with_capacity(256),
            boards: Vec::with_capacity(256),
            next: Vec::with_capacity(256),
            filter: KeyFilter::new(),
        };
        r.push(key, board, None);
        r
    }

    #[inline]
    fn push(&mut self, key: u64, board: [Wide; 2], next: Option<Color>) {
        self.filter.insert(key);
        self.keys.push(key);
        self.boards.push(board);
        self.next.push(next);
    }

    /// The plies after which the board was `board` (and, when `next` is
    /// given, with that colour to move).
    fn matches(&self, key: u64, board: &[Wide; 2], next: Option<Color>) -> Vec<u32> {
        if !self.filter.may_contain(key) {
            return Vec::new();
        }
        self.keys
            .iter()
            .enumerate()
            .filter(|&(i, &k)| {
                k == key && next.is_none_or(|c| self.next[i] == Some(c)) && self.boards[i] == *board
            })
            .map(|(i, _)| self.base + i as u32)
            .collect()
    }

    /// The entry of ply `ply`, if it is in the records.
    fn at(&self, ply: u32) -> Option<(u64, &[Wide; 2])> {
        let i = ply.checked_sub(self.base)? as usize;
        Some((*self.keys.get(i)?, &self.boards[i]))
    }
}

/// The repetition records of a game: plain, or Kee's three.
#[derive(Clone, Debug)]
enum Repetition {
    Plain(Records),
    Kee(Box<KeeRecords<[Wide; 2]>>),
}

/// What a legal move does, computed before the game changes.
struct Effect {
    stones: [Wide; 2],
    keys: SquareKeys,
    captured: Wide,
    suicided: Wide,
    kind: EffectKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum EffectKind {
    /// A pass, or a Kee pass-equivalent play.
    Pass { play: bool },
    /// A placement that changed the board (with Kee's verdict under Kee).
    Play(Option<KeeVerdict>),
}

/// A Go game in progress: the board, the ruleset and komi, turn order, the
/// repetition records and the turn procedure of go-rules.md "Placing a
/// stone".
///
/// Points passed to [`GoGame::play_as`] are points of the game's board; a
/// point index outside it is refused as `off_board`.
///
/// ```
/// use keil_rules::{Color, GoGame, GoRuleset, HalfPoints, IllegalReason, Move, SquareBoard};
///
/// let board = SquareBoard::new(9).unwrap();
/// let mut game = GoGame::new(board, GoRuleset::TrompTaylor, HalfPoints(13));
/// let p = |s| Move::Place(board.parse_sgf_point(s).unwrap());
/// game.play_as(Color::Black, p("ee")).unwrap();
/// let err = game.play_as(Color::Black, p("dd")).unwrap_err();
/// assert_eq!(err.reason, IllegalReason::WrongPlayer { expected: Color::White });
/// game.play_as(Color::White, Move::Pass).unwrap();
/// game.play_as(Color::Black, Move::Pass).unwrap();
/// assert!(game.is_over());
/// // One black stone owns the board: 81 points to 6.5.
/// assert_eq!(game.score().black, HalfPoints(162));
/// ```
#[derive(Clone, Debug)]
pub struct GoGame {
    board: &'static SquareBoard,
    ruleset: GoRuleset,
    komi: HalfPoints,
    stones: [Wide; 2],
    keys: SquareKeys,
    expected: ToMove,
    handicap_left: u32,
    ply: u32,
    passes: u32,
    records: Repetition,
    superko_breaks: Vec<u32>,
    pass_plays: Vec<u32>,
}

impl GoGame {
    /// A game on the empty board, Black first.
    pub fn new(board: &'static SquareBoard, ruleset: GoRuleset, komi: HalfPoints) -> GoGame {
        GoGame::from_setup(
            &GoPosition::empty(board),
            ruleset,
            komi,
            ToMove::Color(Color::Black),
        )
    }

    /// A game from a setup position (the initial position of go-rules.md
    /// "Setup": `AB`/`AW`/`AE` before the first move) with the given player
    /// to move (`PL`, else [`ToMove::Either`] after setup). The setup
    /// position is ply 0 of the repetition records.
    pub fn from_setup(
        setup: &GoPosition,
        ruleset: GoRuleset,
        komi: HalfPoints,
        to_move: ToMove,
    ) -> GoGame {
        let keys = setup.keys();
        GoGame {
            board: setup.board(),
            ruleset,
            komi,
            stones: setup.square.stones,
            keys,
            expected: to_move,
            handicap_left: 0,
            ply: 0,
            passes: 0,
            records: GoGame::records_from(ruleset, 0, keys.key().0, setup.square.stones),
            superko_breaks: Vec::new(),
            pass_plays: Vec::new(),
        }
    }

    fn records_from(ruleset: GoRuleset, ply: u32, key: u64, board: [Wide; 2]) -> Repetition {
        if ruleset.repetition() == RepetitionRule::Kee {
            Repetition::Kee(Box::new(KeeRecords::new(board, key, ply + 1)))
        } else {
            Repetition::Plain(Records::new(ply, key, board))
        }
    }

    /// Free handicap written as moves (go-rules.md "Turn order" 1: `HA[h]`
    /// with h ≥ 2, no setup and no `PL` before the first move): the next `h`
    /// moves are Black's, then White moves. `h` < 2 does nothing.
    pub fn set_handicap_moves(&mut self, h: u32) {
        if h >= 2 {
            self.handicap_left = h;
            self.expected = ToMove::Color(Color::Black);
        }
    }

    /// Names the player of the next move (`PL`, in a node with or without a
    /// move); ends handicap moves.
    pub fn set_to_move(&mut self, to_move: ToMove) {
        self.expected = to_move;
        self.handicap_left = 0;
    }

    /// Setup in the game (go-rules.md "Setup", kee-rules.md "setup in the
    /// middle of a record"): the board becomes `position`, the repetition
    /// records restart from it (it stands for the ply played last, the ply
    /// count going on; under Kee the history is `[(position, m)]` for the
    /// next move m), and `to_move` moves next (`PL`, else
    /// [`ToMove::Either`]). The run of consecutive passes is not one of the
    /// records and goes on.
    ///
    /// # Panics
    /// When `position` is on another board.
    pub fn apply_setup(&mut self, position: &GoPosition, to_move: ToMove) {
        assert_eq!(position.board(), self.board, "setup on another board");
        self.stones = position.square.stones;
        self.keys = position.keys();
        self.records = GoGame::records_from(self.ruleset, self.ply, self.keys.key().0, self.stones);
        self.set_to_move(to_move);
    }

    /// The board.
    pub fn board(&self) -> &'static SquareBoard {
        self.board
    }

    /// The ruleset.
    pub fn ruleset(&self) -> GoRuleset {
        self.ruleset
    }

    /// The komi, added to White's area score.
    pub fn komi(&self) -> HalfPoints {
        self.komi
    }

    /// Who may move next.
    pub fn to_move(&self) -> ToMove {
        self.expected
    }

    /// The number of moves played so far (passes included).
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The number of consecutive passes (pass-equivalent plays included)
    /// at the end of the line so far.
    pub fn consecutive_passes(&self) -> u32 {
        self.passes
    }

    /// Whether the game has ended so that any further move is `after_end`:
    /// two consecutive passes under tromp-taylor, four under kee; never
    /// under an agreement ruleset.
    pub fn is_over(&self) -> bool {
        match self.ruleset.end() {
            GoEnd::Agreement => false,
            GoEnd::TwoPasses => self.passes >= 2,
            GoEnd::FourPasses => self.passes >= 4,
        }
    }

    /// Whether the line so far ended by passes per the ruleset
    /// (go-rules.md, "Verdict of one line": `complete`): its last two moves
    /// are passes (agreement rulesets, tromp-taylor), its last four are
    /// (kee).
    pub fn is_complete(&self) -> bool {
        match self.ruleset.end() {
            GoEnd::Agreement | GoEnd::TwoPasses => self.passes >= 2,
            GoEnd::FourPasses => self.passes >= 4,
        }
    }

    /// The colour of the stone on `p`, if any.
    pub fn stone_at(&self, p: Point) -> Option<Color> {
        stone_at(&self.stones, p)
    }

    /// The current position.
    pub fn position(&self) -> GoPosition {
        GoPosition::from_parts(self.board, self.stones)
    }

    /// The key of the current position.
    pub fn key(&self) -> PositionKey {
        self.keys.key()
    }

    /// The canonical key of the current position.
    pub fn canonical_key(&self) -> (PositionKey, SquareSymmetry) {
        self.keys.canonical()
    }

    /// The plies of Kee superko breaks so far (`superko_breaks`).
    pub fn superko_breaks(&self) -> &[u32] {
        &self.superko_breaks
    }

    /// The plies of Kee pass-equivalent plays so far (`pass_plays`).
    pub fn pass_plays(&self) -> &[u32] {
        &self.pass_plays
    }

    fn turn(&self, color: Color) -> Result<(), IllegalReason> {
        if self.is_over() {
            Err(IllegalReason::GameOver)
        } else {
            match self.expected {
                ToMove::Color(c) if c != color => Err(IllegalReason::WrongPlayer { expected: c }),
                _ => Ok(()),
            }
        }
    }

    /// Checks that `color` may move now: the game is not over, and `color`
    /// is allowed by the turn order. The record reader calls this before it
    /// reads the point, so that `after_end` and `wrong_player` come before
    /// `off_board`.
    ///
    /// # Errors
    /// [`crate::IllegalReason::GameOver`] or
    /// [`crate::IllegalReason::WrongPlayer`].
    pub fn check_turn(&self, color: Color) -> Result<(), IllegalMove> {
        self.turn(color).map_err(|reason| IllegalMove {
            ply: self.ply + 1,
            color,
            mv: Move::Pass,
            reason,
        })
    }

    /// Steps 1-4 of go-rules.md "Placing a stone" (and a pass), without
    /// changing the game.
    #[inline]
    fn evaluate(&self, color: Color, mv: Move) -> Result<Effect, IllegalReason> {
        self.turn(color)?;
        let p = match mv {
            Move::Pass => {
                return Ok(Effect {
                    stones: self.stones,
                    keys: self.keys,
                    captured: Wide::default(),
                    suicided: Wide::default(),
                    kind: EffectKind::Pass { play: false },
                });
            }
            Move::TakeButton => return Err(IllegalReason::ButtonNotInUse),
            Move::Swap => return Err(IllegalReason::SwapNotAllowed),
            Move::Place(p) => p.index(),
        };
        if p >= self.board.len() {
            return Err(IllegalReason::OffBoard);
        }
        if self.stones[0].has(p) || self.stones[1].has(p) {
            return Err(IllegalReason::Occupied);
        }
        let me = color.index();
        let mut stones = self.stones;
        stones[me].insert(p);
        let mut keys = self.keys;
        keys.toggle(Point(p as u16), color);
        let captured = capture(self.board, &mut stones, &mut keys, p, color);
        // Step 3: the placed stone's group.
        let mut suicided = Wide::default();
        let mut own = Wide::default();
        if let Some(g) = dead_group(self.board, &stones, me, p, &mut own) {
            if !self.ruleset.suicide() {
                return Err(IllegalReason::SelfCapture);
            }
            stones[me] = stones[me].minus(g);
            g.each(|i| keys.toggle(Point(i as u16), color));
            suicided = g;
        }
        let kind = self.repetition(color, &stones, keys.key().0)?;
        Ok(Effect {
            stones,
            keys,
            captured,
            suicided,
            kind,
        })
    }

    /// Step 4 of go-rules.md "Placing a stone": whether the board `stones`
    /// after `color`'s placement, of key `key`, repeats one the ruleset
    /// forbids (under Kee, also whether the play is a pass).
    #[inline(always)]
    fn repetition(
        &self,
        color: Color,
        stones: &[Wide; 2],
        key: u64,
    ) -> Result<EffectKind, IllegalReason> {
        let ply = self.ply + 1;
        Ok(match &self.records {
            Repetition::Kee(kee) => {
                if *stones == self.stones {
                    // kee-rules.md step 0: the play is a pass.
                    EffectKind::Pass { play: true }
                } else {
                    let verdict = kee.check(color, stones, key).map_err(|(check, plies)| {
                        IllegalReason::Repetition {
                            plies,
                            kee: Some(check),
                        }
                    })?;
                    EffectKind::Play(Some(verdict))
                }
            }
            Repetition::Plain(records) => {
                let plies = match self.ruleset.repetition() {
                    RepetitionRule::Simple => {
                        // The board before the opponent's last move; never
                        // after a pass.
                        match records.at(ply.saturating_sub(2)) {
                            Some((k, board))
                                if ply >= 2 && self.passes == 0 && k == key && board == stones =>
                            {
                                vec![ply - 2]
                            }
                            _ => Vec::new(),
                        }
                    }
                    RepetitionRule::Positional => records.matches(key, stones, None),
                    _ => records.matches(key, stones, Some(color.opposite())),
                };
                if !plies.is_empty() {
                    return Err(IllegalReason::Repetition { plies, kee: None });
                }
                EffectKind::Play(None)
            }
        })
    }

    /// Plays a move for `color` ([`Move::TakeButton`] is refused as
    /// `button_not_in_use`: Go has no button).
    ///
    /// Checks in the order of go-rules.md: `after_end`, `wrong_player`,
    /// `off_board`, `occupied`, `self_capture`, `repetition`.
    ///
    /// # Errors
    /// [`IllegalMove`] with the reason; the game is unchanged.
    pub fn play_as(&mut self, color: Color, mv: Move) -> Result<TurnOutcome, IllegalMove> {
        let effect = self.evaluate(color, mv).map_err(|reason| IllegalMove {
            ply: self.ply + 1,
            color,
            mv,
            reason,
        })?;
        Ok(self.commit(color, effect))
    }

    #[inline]
    fn commit(&mut self, color: Color, effect: Effect) -> TurnOutcome {
        let ply = self.ply + 1;
        let resumed = matches!(effect.kind, EffectKind::Play(_))
            && self.passes >= 2
            && self.ruleset.end() == GoEnd::Agreement;
        self.stones = effect.stones;
        self.keys = effect.keys;
        self.ply = ply;
        let pass_play = match effect.kind {
            EffectKind::Pass { play } => {
                self.passes += 1;
                if play {
                    self.pass_plays.push(ply);
                }
                play
            }
            EffectKind::Play(_) => {
                self.passes = 0;
                false
            }
        };
        let superko_break = self.record(color, effect.kind);
        self.advance_turn(color);
        let canonical = self.keys.canonical();
        TurnOutcome {
            ply,
            captured: if effect.captured.none() {
                Vec::new()
            } else {
                points_of(effect.captured)
            },
            key: self.keys.key(),
            canonical: (
                canonical.0,
                Symmetry::from_index(canonical.1.index()).expect("index < 8"),
            ),
            ended: self.is_over(),
            canonical_sym: canonical.1.index(),
            suicided: if effect.suicided.none() {
                Vec::new()
            } else {
                points_of(effect.suicided)
            },
            superko_break,
            pass_play,
            resumed,
            moved: Vec::new(),
        }
    }

    /// Adds the board after `color`'s ply (of `kind`) to the repetition
    /// records; returns whether it was a Kee superko break.
    #[inline(always)]
    fn record(&mut self, color: Color, kind: EffectKind) -> bool {
        let (ply, key) = (self.ply, self.keys.key().0);
        match &mut self.records {
            Repetition::Plain(records) => {
                if records.next[0].is_none() && records.keys.len() == 1 {
                    records.next[0] = Some(color);
                }
                records.push(key, self.stones, Some(color.opposite()));
            }
            Repetition::Kee(kee) => match kind {
                EffectKind::Pass { .. } => kee.pass(color, ply, self.stones, key),
                EffectKind::Play(verdict) => {
                    let verdict = verdict.expect("Kee verdict under Kee");
                    kee.commit(verdict, color, ply, self.stones, key);
                    if verdict == KeeVerdict::Break {
                        self.superko_breaks.push(ply);
                        return true;
                    }
                }
            },
        }
        false
    }

    /// Who moves after `color` (go-rules.md "Turn order" 2 and 4): Black
    /// again during handicap moves, either colour after two passes under
    /// an agreement ruleset, else the other colour.
    #[inline(always)]
    fn advance_turn(&mut self, color: Color) {
        self.expected = if self.handicap_left > 0 && color == Color::Black {
            self.handicap_left -= 1;
            ToMove::Color(if self.handicap_left > 0 {
                Color::Black
            } else {
                Color::White
            })
        } else {
            self.handicap_left = 0;
            ToMove::Color(color.opposite())
        };
        if self.passes >= 2 && self.ruleset.end() == GoEnd::Agreement {
            self.expected = ToMove::Either;
        }
    }

    /// Plays a move for the player to move; under [`ToMove::Either`], Black.
    ///
    /// # Errors
    /// As [`GoGame::play_as`].
    pub fn play(&mut self, mv: Move) -> Result<TurnOutcome, IllegalMove> {
        let color = self.to_move().color().unwrap_or(Color::Black);
        self.play_as(color, mv)
    }

    /// Why `mv` by `color` would be illegal, without playing it.
    ///
    /// # Errors
    /// The reason [`GoGame::play_as`] would give.
    pub fn legality(&self, color: Color, mv: Move) -> Result<(), IllegalReason> {
        self.evaluate(color, mv).map(|_| ())
    }

    /// Whether `mv` by `color` is legal now.
    pub fn is_legal(&self, color: Color, mv: Move) -> bool {
        self.evaluate(color, mv).is_ok()
    }

    /// Every legal move for `color`: placements in board order, then the
    /// pass. Empty once the game is over.
    pub fn legal_moves(&self, color: Color) -> Vec<Move> {
        self.board
            .points()
            .map(Move::Place)
            .chain([Move::Pass])
            .filter(|&m| self.is_legal(color, m))
            .collect()
    }

    /// The stones a placement on `p` by `color` would capture; `None` when
    /// it is illegal.
    pub fn captures_of(&self, color: Color, p: Point) -> Option<PointSet> {
        self.evaluate(color, Move::Place(p))
            .ok()
            .map(|e| PointSet(e.captured))
    }

    /// The group of the stone on `p` with its liberties; `None` when `p` is
    /// empty.
    pub fn group_at(&self, p: Point) -> Option<Group> {
        self.position().group_at(p)
    }

    /// The area score of the current position with komi.
    pub fn score(&self) -> Score {
        Score::from_tally(area_tally(self.board, &self.stones), self.komi, None)
    }
}
