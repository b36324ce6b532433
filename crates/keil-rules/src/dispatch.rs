//! One entry point over the games: [`GameKind`], [`BoardSpec`], and thin
//! enums ([`AnyBoard`], [`AnyPosition`], [`AnyRuleset`], [`AnyGame`]) that
//! dispatch to Keil's or Go's own types with one `match` per call (no trait
//! objects). The archive, the server and the CLI use these and never match
//! on a game's internals; symmetries travel as their index in the board's
//! own group (hex `0..12`, square `0..8`).

use std::fmt;
use std::str::FromStr;

use crate::board::{Board, MAX_SIDE, MIN_SIDE, Point, PointError, Symmetry};
use crate::color::Color;
use crate::game::{Game, IllegalMove, IllegalReason, Move, Ruleset, TurnOutcome};
use crate::go::{GoGame, GoPosition, GoRuleset, ToMove};
use crate::half_points::HalfPoints;
use crate::kaomi::{
    DEFAULT_KAOMI_SIZE, KaomiGame, KaomiPosition, KaomiResult, KaomiRuleset, MAX_KAOMI_SIZE,
    MIN_KAOMI_SIZE,
};
use crate::position::{NotationError, PointSet, Position, PositionKey, Score};
use crate::square::{MAX_SQUARE_SIZE, MIN_SQUARE_SIZE, SgfPointError, SquareBoard, SquareSymmetry};
use crate::square_position::GoNotationError;

/// One `match` over the variants `Keil`, `Go` and `Kaomi` of an `Any*`
/// enum whose variants each hold the game's own value: `$x` is that value in
/// `$body`, and in the second form `$wrap` is the variant's constructor, to
/// wrap a value of the same game. Each arm is compiled for its own type, so
/// the dispatch is static.
macro_rules! each_game {
    ($enum:ident, $self:expr, $x:ident => $body:expr) => {
        match $self {
            $enum::Keil($x) => $body,
            $enum::Go($x) => $body,
            $enum::Kaomi($x) => $body,
        }
    };
    ($enum:ident, $self:expr, $wrap:ident($x:ident) => $body:expr) => {
        match $self {
            $enum::Keil($x) => {
                let $wrap = $enum::Keil;
                $body
            }
            $enum::Go($x) => {
                let $wrap = $enum::Go;
                $body
            }
            $enum::Kaomi($x) => {
                let $wrap = $enum::Kaomi;
                $body
            }
        }
    };
}

/// The kind of game a record, position or board belongs to. Serialised
/// (feature `serde`) as its [`GameKind::code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[non_exhaustive]
pub enum GameKind {
    /// Keil: hexagonal board of side 2..=13 (keil-rules.md).
    Keil,
    /// Go: square board 1..=19 (go-rules.md).
    Go,
    /// Kaomi: square board 2..=19 (kaomi-rules.md).
    Kaomi,
}

impl GameKind {
    /// Every kind, in code order.
    pub const ALL: [GameKind; 3] = [GameKind::Keil, GameKind::Go, GameKind::Kaomi];

    /// The code used in URLs, JSON and the archive: `keil`, `go`, `kaomi`.
    pub fn code(self) -> &'static str {
        match self {
            GameKind::Keil => "keil",
            GameKind::Go => "go",
            GameKind::Kaomi => "kaomi",
        }
    }

    /// The game's name for people: `Keil`, `Go`, `Kaomi`.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Keil => "Keil",
            GameKind::Go => "Go",
            GameKind::Kaomi => "Kaomi",
        }
    }

    /// The board sizes the kind supports: Keil sides 2..=13, Go 1..=19,
    /// Kaomi 2..=19.
    pub fn sizes(self) -> std::ops::RangeInclusive<u8> {
        match self {
            GameKind::Keil => MIN_SIDE..=MAX_SIDE,
            GameKind::Go => MIN_SQUARE_SIZE..=MAX_SQUARE_SIZE,
            GameKind::Kaomi => MIN_KAOMI_SIZE..=MAX_KAOMI_SIZE,
        }
    }

    /// The usual board size: Keil side 7, Go 19, Kaomi 7.
    pub fn default_size(self) -> u8 {
        match self {
            GameKind::Keil => 7,
            GameKind::Go => 19,
            GameKind::Kaomi => DEFAULT_KAOMI_SIZE,
        }
    }
}

impl fmt::Display for GameKind {
    /// The code, padded to the formatter's width (`{:<5}` aligns tables).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.code())
    }
}

/// Why a text is not a game kind.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game kind {0:?}: expected keil, go or kaomi")]
pub struct GameKindError(pub String);

impl FromStr for GameKind {
    type Err = GameKindError;

    /// Reads a code (`keil`, `go`), case-insensitively.
    fn from_str(s: &str) -> Result<GameKind, GameKindError> {
        GameKind::ALL
            .into_iter()
            .find(|k| k.code().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| GameKindError(s.to_string()))
    }
}

/// A board: the game kind and its size (Keil: the side; Go: n of n×n).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BoardSpec {
    /// The game.
    pub kind: GameKind,
    /// The size: Keil side 2..=13, Go 1..=19.
    pub size: u8,
}

/// Why a board spec names no board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("no {kind} board of size {size}: sizes are {min} to {max}", min = .kind.sizes().start(), max = .kind.sizes().end())]
pub struct BoardSpecError {
    /// The game kind.
    pub kind: GameKind,
    /// The size asked for.
    pub size: u8,
}

impl BoardSpec {
    /// A spec, checked.
    ///
    /// # Errors
    /// [`BoardSpecError`] when the size is outside [`GameKind::sizes`].
    pub fn new(kind: GameKind, size: u8) -> Result<BoardSpec, BoardSpecError> {
        if kind.sizes().contains(&size) {
            Ok(BoardSpec { kind, size })
        } else {
            Err(BoardSpecError { kind, size })
        }
    }

    /// The board.
    ///
    /// # Errors
    /// [`BoardSpecError`] when the size is outside [`GameKind::sizes`].
    pub fn board(self) -> Result<AnyBoard, BoardSpecError> {
        let err = BoardSpecError {
            kind: self.kind,
            size: self.size,
        };
        match self.kind {
            GameKind::Keil => Board::new(self.size).map(AnyBoard::Hex).map_err(|_| err),
            GameKind::Go | GameKind::Kaomi => SquareBoard::new(self.size)
                .map(AnyBoard::Square)
                .map_err(|_| err),
        }
    }
}

impl fmt::Display for BoardSpec {
    /// `keil 7`, `go 19`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind, self.size)
    }
}

/// A board's geometry: hexagonal (Keil) or square (Go, Kaomi).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnyBoard {
    /// A Keil board.
    Hex(&'static Board),
    /// A square board.
    Square(&'static SquareBoard),
}

/// Why a point name could not be read on a board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnyPointError {
    /// Occurs on a Keil board (`g7` names).
    #[error(transparent)]
    Hex(#[from] PointError),
    /// Occurs on a square board (SGF letters `dd`).
    #[error(transparent)]
    Square(#[from] SgfPointError),
}

impl AnyBoard {
    /// The size: Keil side, or n of n×n.
    pub fn size(self) -> u8 {
        match self {
            AnyBoard::Hex(b) => b.side(),
            AnyBoard::Square(b) => b.size(),
        }
    }

    /// The number of points.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(self) -> usize {
        match self {
            AnyBoard::Hex(b) => b.len(),
            AnyBoard::Square(b) => b.len(),
        }
    }

    /// All points in board order (the order of the position notation).
    pub fn points(self) -> impl Iterator<Item = Point> + Clone {
        (0..self.len() as u16).map(Point)
    }

    /// The neighbours of a point (6/4/3 on Keil boards; 4/3/2 on square
    /// boards).
    pub fn neighbours(self, p: Point) -> Vec<Point> {
        match self {
            AnyBoard::Hex(b) => b.neighbours(p).collect(),
            AnyBoard::Square(b) => b.neighbours(p).collect(),
        }
    }

    /// A point's name as records write it: Keil `g7`, Go SGF letters `dd`.
    pub fn point_name(self, p: Point) -> String {
        match self {
            AnyBoard::Hex(b) => b.name(p).to_string(),
            AnyBoard::Square(b) => b.sgf_name(p),
        }
    }

    /// A point's name for people: Keil `g7`, Go players' `D16`.
    pub fn display_name(self, p: Point) -> String {
        match self {
            AnyBoard::Hex(b) => b.name(p).to_string(),
            AnyBoard::Square(b) => b.display_name(p),
        }
    }

    /// Reads a point name as records write it ([`AnyBoard::point_name`]).
    ///
    /// # Errors
    /// [`AnyPointError`]: malformed, or off this board.
    pub fn parse_point(self, name: &str) -> Result<Point, AnyPointError> {
        match self {
            AnyBoard::Hex(b) => Ok(b.parse_point(name)?),
            AnyBoard::Square(b) => Ok(b.parse_sgf_point(name)?),
        }
    }

    /// A move as records and people read it: the point name, `pass` or
    /// `button`.
    pub fn move_name(self, mv: Move) -> String {
        match mv {
            Move::Place(p) => self.point_name(p),
            Move::Pass => "pass".to_string(),
            Move::TakeButton => "button".to_string(),
            Move::Swap => "swap".to_string(),
        }
    }

    /// A point's lattice coordinates `(column, row)`, both from 0: the
    /// hexagon's axial coordinates ([`Board::coords`]), the square's
    /// column from the left and row from the top. A translation of the
    /// board's lattice adds a vector to them.
    pub fn coords(self, p: Point) -> (u8, u8) {
        match self {
            AnyBoard::Hex(b) => b.coords(p),
            AnyBoard::Square(b) => b.coords(p),
        }
    }

    /// The point at lattice coordinates `(column, row)`
    /// ([`AnyBoard::coords`]), if it is on the board.
    pub fn point_at(self, column: i32, row: i32) -> Option<Point> {
        match self {
            AnyBoard::Hex(b) => b.point_at(column, row),
            AnyBoard::Square(b) => b.point_at(column, row),
        }
    }

    /// The edges of the board a point lies on, one bit per edge: the
    /// square's 4 (left, top, right, bottom: bits 0..4), the hexagon's 6
    /// (bits 0..6, the lines `c = 0`, `r = 0`, `c = 2n-2`, `r = 2n-2`,
    /// `c - r = n-1`, `r - c = n-1` in axial coordinates). A corner point
    /// has two bits; an inner point none.
    pub fn edges(self, p: Point) -> u8 {
        let (c, r) = self.coords(p);
        let (c, r) = (i32::from(c), i32::from(r));
        let bits = |conds: &[bool]| {
            conds
                .iter()
                .enumerate()
                .fold(0u8, |m, (i, &on)| m | (u8::from(on) << i))
        };
        match self {
            AnyBoard::Hex(b) => {
                let n = i32::from(b.side());
                let last = 2 * n - 2;
                bits(&[
                    c == 0,
                    r == 0,
                    c == last,
                    r == last,
                    c - r == n - 1,
                    r - c == n - 1,
                ])
            }
            AnyBoard::Square(b) => {
                let last = i32::from(b.size()) - 1;
                bits(&[c == 0, r == 0, c == last, r == last])
            }
        }
    }

    /// The number of symmetries: 12 (hexagon) or 8 (square).
    pub fn symmetry_count(self) -> u8 {
        match self {
            AnyBoard::Hex(_) => 12,
            AnyBoard::Square(_) => SquareSymmetry::COUNT,
        }
    }

    /// The image of a point under the symmetry of index `sym`.
    ///
    /// # Panics
    /// When `sym >= symmetry_count()`.
    #[inline]
    pub fn transform(self, p: Point, sym: u8) -> Point {
        match self {
            AnyBoard::Hex(b) => b.transform(p, hex(sym)),
            AnyBoard::Square(b) => b.transform(p, square(sym)),
        }
    }

    /// The symmetry that applies `a`, then `b` (`b ∘ a`), as an index.
    ///
    /// # Panics
    /// When an index is out of range.
    pub fn compose(self, a: u8, b: u8) -> u8 {
        match self {
            AnyBoard::Hex(_) => hex(a).then(hex(b)).index(),
            AnyBoard::Square(_) => square(a).then(square(b)).index(),
        }
    }

    /// The symmetry that undoes `a`, as an index.
    ///
    /// # Panics
    /// When the index is out of range.
    pub fn inverse(self, a: u8) -> u8 {
        match self {
            AnyBoard::Hex(_) => hex(a).inverse().index(),
            AnyBoard::Square(_) => square(a).inverse().index(),
        }
    }
}

fn hex(sym: u8) -> Symmetry {
    Symmetry::from_index(sym).expect("hex symmetry index < 12")
}

fn square(sym: u8) -> SquareSymmetry {
    SquareSymmetry::from_index(sym).expect("square symmetry index < 8")
}

/// Why a position notation could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnyNotationError {
    /// Occurs on a Keil position (column notation).
    #[error(transparent)]
    Keil(#[from] NotationError),
    /// Occurs on a Go position (row notation).
    #[error(transparent)]
    Go(#[from] GoNotationError),
    /// Occurs on a Kaomi position (the same row notation, sizes 2..=19).
    #[error(transparent)]
    Kaomi(GoNotationError),
}

/// A position notation as read: the position and the suffixes that were
/// given (record-format.md, "Position notation": in a query an absent
/// suffix matches either value).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParsedPosition {
    /// The position (Keil: with the button flag of the suffix, not taken
    /// when absent).
    pub position: AnyPosition,
    /// ` b` / ` w`, when given.
    pub to_move: Option<Color>,
    /// Keil: ` +` (taken) / ` -` (not taken), when given; always `None`
    /// for Go.
    pub button: Option<bool>,
}

impl ParsedPosition {
    /// The colour-swapped query: black and white exchanged, and the player
    /// to move too (go-rules.md "colour swap"); the button flag is kept.
    pub fn swap_colors(&self) -> ParsedPosition {
        ParsedPosition {
            position: self.position.swap_colors(),
            to_move: self.to_move.map(Color::opposite),
            button: self.button,
        }
    }
}

/// A position of any game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnyPosition {
    /// A Keil position (stones and button flag).
    Keil(Position),
    /// A Go position (stones).
    Go(GoPosition),
    /// A Kaomi position (stones).
    Kaomi(KaomiPosition),
}

impl AnyPosition {
    /// The empty board of a spec (Keil: button not taken).
    ///
    /// # Errors
    /// [`BoardSpecError`] when the size is not one of the kind's.
    pub fn empty(spec: BoardSpec) -> Result<AnyPosition, BoardSpecError> {
        Ok(match (spec.board()?, spec.kind) {
            (AnyBoard::Hex(b), _) => AnyPosition::Keil(Position::empty(b)),
            (AnyBoard::Square(b), GameKind::Kaomi) => AnyPosition::Kaomi(KaomiPosition::empty(b)),
            (AnyBoard::Square(b), _) => AnyPosition::Go(GoPosition::empty(b)),
        })
    }

    /// The game kind.
    pub fn kind(&self) -> GameKind {
        match self {
            AnyPosition::Keil(_) => GameKind::Keil,
            AnyPosition::Go(_) => GameKind::Go,
            AnyPosition::Kaomi(_) => GameKind::Kaomi,
        }
    }

    /// The board.
    pub fn board(&self) -> AnyBoard {
        match self {
            AnyPosition::Keil(p) => AnyBoard::Hex(p.board()),
            AnyPosition::Go(p) => AnyBoard::Square(p.board()),
            AnyPosition::Kaomi(p) => AnyBoard::Square(p.board()),
        }
    }

    /// The board spec (kind and size).
    pub fn spec(&self) -> BoardSpec {
        BoardSpec {
            kind: self.kind(),
            size: self.board().size(),
        }
    }

    /// Reads a position in the kind's notation: Keil columns (with ` b`/` w`
    /// and ` +`/` -`), Go rows (with ` b`/` w`); suffixes in any order.
    ///
    /// # Errors
    /// [`AnyNotationError`] with the kind's own error.
    pub fn parse_notation(kind: GameKind, text: &str) -> Result<ParsedPosition, AnyNotationError> {
        match kind {
            GameKind::Keil => {
                let (position, to_move) = Position::parse_notation(text)?;
                let button = text.split_whitespace().skip(1).find_map(|w| match w {
                    "+" => Some(true),
                    "-" => Some(false),
                    _ => None,
                });
                Ok(ParsedPosition {
                    position: AnyPosition::Keil(position),
                    to_move,
                    button,
                })
            }
            GameKind::Go => {
                let (position, to_move) = GoPosition::parse_notation(text)?;
                Ok(ParsedPosition {
                    position: AnyPosition::Go(position),
                    to_move,
                    button: None,
                })
            }
            GameKind::Kaomi => {
                let (position, to_move) =
                    KaomiPosition::parse_notation(text).map_err(AnyNotationError::Kaomi)?;
                Ok(ParsedPosition {
                    position: AnyPosition::Kaomi(position),
                    to_move,
                    button: None,
                })
            }
        }
    }

    /// Writes the canonical notation: the board, then ` b`/` w` when
    /// `to_move` is given; Keil adds ` +` when the button has been taken.
    pub fn to_notation(&self, to_move: Option<Color>) -> String {
        each_game!(AnyPosition, self, p => p.to_notation(to_move))
    }

    /// Writes the position in full (record-format.md: "an answer always
    /// writes the position it matched in full"): board, ` b`/` w`, and for
    /// Keil ` +` or ` -`.
    pub fn to_full_notation(&self, to_move: Color) -> String {
        match self {
            AnyPosition::Keil(p) if !p.button_taken() => {
                format!("{} -", p.to_notation(Some(to_move)))
            }
            _ => self.to_notation(Some(to_move)),
        }
    }

    /// A point's name for people: Keil `g7`, Go players' `D16`, Kaomi the
    /// SGF letters `cc` (the only names kaomi-rules.md gives points).
    pub fn display_name(&self, p: Point) -> String {
        match self {
            AnyPosition::Kaomi(pos) => pos.board().sgf_name(p),
            _ => self.board().display_name(p),
        }
    }

    /// The colour of the stone on `p`, if any.
    pub fn get(&self, p: Point) -> Option<Color> {
        each_game!(AnyPosition, self, pos => pos.get(p))
    }

    /// Puts a stone (or nothing) on `p`, without applying any rule.
    pub fn set(&mut self, p: Point, stone: Option<Color>) {
        each_game!(AnyPosition, self, pos => pos.set(p, stone))
    }

    /// The stones of one colour.
    pub fn stones(&self, color: Color) -> PointSet {
        each_game!(AnyPosition, self, pos => pos.stones(color))
    }

    /// Keil: whether the button has been taken; Go: `None`.
    pub fn button_taken(&self) -> Option<bool> {
        match self {
            AnyPosition::Keil(pos) => Some(pos.button_taken()),
            AnyPosition::Go(_) | AnyPosition::Kaomi(_) => None,
        }
    }

    /// The position key, salted by game kind (a Keil and a Go key of the
    /// same stones differ).
    pub fn key(&self) -> PositionKey {
        each_game!(AnyPosition, self, pos => pos.key())
    }

    /// The canonical key and the index of a symmetry whose image has it.
    pub fn canonical_key(&self) -> (PositionKey, u8) {
        each_game!(AnyPosition, self, pos => {
            let (k, s) = pos.canonical_key();
            (k, s.index())
        })
    }

    /// The canonical form (least bitsets of the images) and the index of a
    /// symmetry mapping `self` onto it.
    pub fn canonical(&self) -> (AnyPosition, u8) {
        each_game!(AnyPosition, self, wrap(pos) => {
            let (p, s) = pos.canonical();
            (wrap(p), s.index())
        })
    }

    /// The image under the symmetry of index `sym`.
    ///
    /// # Panics
    /// When `sym` is not below the board's [`AnyBoard::symmetry_count`].
    pub fn transform(&self, sym: u8) -> AnyPosition {
        match self {
            AnyPosition::Keil(pos) => AnyPosition::Keil(pos.transform(hex(sym))),
            AnyPosition::Go(pos) => AnyPosition::Go(pos.transform(square(sym))),
            AnyPosition::Kaomi(pos) => AnyPosition::Kaomi(pos.transform(square(sym))),
        }
    }

    /// The position with black and white exchanged (Keil keeps the button
    /// flag). The caller exchanges the player to move.
    pub fn swap_colors(&self) -> AnyPosition {
        each_game!(AnyPosition, self, wrap(pos) => wrap(pos.swap_colors()))
    }
}

impl fmt::Display for AnyPosition {
    /// The board part of the notation (no suffixes).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        each_game!(AnyPosition, self, p => fmt::Display::fmt(p, f))
    }
}

/// The rules of a game: Keil's [`Ruleset`] (komi inside), or a Go ruleset
/// and komi.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AnyRuleset {
    /// Keil.
    Keil(Ruleset),
    /// Go.
    Go {
        /// The ruleset.
        ruleset: GoRuleset,
        /// Komi, added to White's area score.
        komi: HalfPoints,
    },
    /// Kaomi.
    Kaomi {
        /// The ruleset (variant, pie rule).
        ruleset: KaomiRuleset,
        /// Komi, added to White's score in Squared (ignored otherwise).
        komi: HalfPoints,
    },
}

impl AnyRuleset {
    /// The game kind.
    pub fn kind(&self) -> GameKind {
        match self {
            AnyRuleset::Keil(_) => GameKind::Keil,
            AnyRuleset::Go { .. } => GameKind::Go,
            AnyRuleset::Kaomi { .. } => GameKind::Kaomi,
        }
    }

    /// The komi.
    pub fn komi(&self) -> HalfPoints {
        match self {
            AnyRuleset::Keil(r) => r.komi,
            AnyRuleset::Go { komi, .. } | AnyRuleset::Kaomi { komi, .. } => *komi,
        }
    }
}

/// Why a game could not be built or changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnyGameError {
    /// Occurs when the board spec's size is not the kind's.
    #[error(transparent)]
    Board(#[from] BoardSpecError),
    /// Occurs when the ruleset or a position belongs to another game kind
    /// than the board, or to another board size.
    #[error("a {found} ruleset or position does not fit a {expected} game")]
    Mismatch {
        /// The game's spec.
        expected: BoardSpec,
        /// What was given.
        found: BoardSpec,
    },
    /// Occurs on an operation the game does not have (setup in the middle
    /// of a Keil record, `PL` in a Keil game after the start).
    #[error("{0} games do not allow this")]
    NotForKind(GameKind),
}

/// A game of any kind in progress.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // Both are a few hundred bytes; never boxed on the hot path.
pub enum AnyGame {
    /// A Keil game.
    Keil(Game),
    /// A Go game.
    Go(GoGame),
    /// A Kaomi game.
    Kaomi(KaomiGame),
}

impl AnyGame {
    /// A game on the board of `spec` under `rules`, from `setup` (the
    /// initial position; the empty board when `None`) with `to_move` to
    /// play. Keil has no "either colour": [`ToMove::Either`] means Black.
    ///
    /// # Errors
    /// [`AnyGameError`] when the spec is bad or the rules or setup belong
    /// to another kind or size.
    pub fn new(
        spec: BoardSpec,
        rules: AnyRuleset,
        setup: Option<&AnyPosition>,
        to_move: ToMove,
    ) -> Result<AnyGame, AnyGameError> {
        let board = spec.board()?;
        if rules.kind() != spec.kind {
            return Err(AnyGameError::Mismatch {
                expected: spec,
                found: BoardSpec {
                    kind: rules.kind(),
                    size: spec.size,
                },
            });
        }
        if let Some(s) = setup
            && s.spec() != spec
        {
            return Err(AnyGameError::Mismatch {
                expected: spec,
                found: s.spec(),
            });
        }
        Ok(match (board, rules, setup) {
            (AnyBoard::Hex(b), AnyRuleset::Keil(r), None) => {
                let color = to_move.color().unwrap_or(Color::Black);
                AnyGame::Keil(Game::from_setup(&Position::empty(b), r, color))
            }
            (AnyBoard::Hex(_), AnyRuleset::Keil(r), Some(AnyPosition::Keil(p))) => {
                let color = to_move.color().unwrap_or(Color::Black);
                AnyGame::Keil(Game::from_setup(p, r, color))
            }
            (AnyBoard::Square(b), AnyRuleset::Go { ruleset, komi }, None) => AnyGame::Go(
                GoGame::from_setup(&GoPosition::empty(b), ruleset, komi, to_move),
            ),
            (AnyBoard::Square(_), AnyRuleset::Go { ruleset, komi }, Some(AnyPosition::Go(p))) => {
                AnyGame::Go(GoGame::from_setup(p, ruleset, komi, to_move))
            }
            (AnyBoard::Square(b), AnyRuleset::Kaomi { ruleset, komi }, None) => {
                AnyGame::Kaomi(KaomiGame::new(b, ruleset, komi))
            }
            (AnyBoard::Square(_), AnyRuleset::Kaomi { .. }, Some(_)) => {
                return Err(AnyGameError::NotForKind(GameKind::Kaomi));
            }
            _ => unreachable!("kinds checked above"),
        })
    }

    /// The game kind.
    pub fn kind(&self) -> GameKind {
        match self {
            AnyGame::Keil(_) => GameKind::Keil,
            AnyGame::Go(_) => GameKind::Go,
            AnyGame::Kaomi(_) => GameKind::Kaomi,
        }
    }

    /// The board.
    pub fn board(&self) -> AnyBoard {
        match self {
            AnyGame::Keil(g) => AnyBoard::Hex(g.board()),
            AnyGame::Go(g) => AnyBoard::Square(g.board()),
            AnyGame::Kaomi(g) => AnyBoard::Square(g.board()),
        }
    }

    /// The ruleset.
    pub fn rules(&self) -> AnyRuleset {
        match self {
            AnyGame::Keil(g) => AnyRuleset::Keil(*g.ruleset()),
            AnyGame::Go(g) => AnyRuleset::Go {
                ruleset: g.ruleset(),
                komi: g.komi(),
            },
            AnyGame::Kaomi(g) => AnyRuleset::Kaomi {
                ruleset: g.ruleset(),
                komi: g.komi(),
            },
        }
    }

    /// Who may move next.
    pub fn to_move(&self) -> ToMove {
        match self {
            AnyGame::Keil(g) => ToMove::Color(g.to_move()),
            AnyGame::Go(g) => g.to_move(),
            AnyGame::Kaomi(g) => ToMove::Color(g.to_move()),
        }
    }

    /// The number of moves played.
    pub fn ply(&self) -> u32 {
        each_game!(AnyGame, self, g => g.ply())
    }

    /// Whether any further move is `after_end`.
    pub fn is_over(&self) -> bool {
        each_game!(AnyGame, self, g => g.is_over())
    }

    /// Whether the line so far ended by passes per its rules (the verdict
    /// `complete`, before the result check): Keil and Go tromp-taylor/kee
    /// when over; Go agreement rulesets when the last two moves are passes;
    /// Kaomi when the board is full.
    pub fn is_complete(&self) -> bool {
        match self {
            AnyGame::Keil(g) => g.is_over(),
            AnyGame::Kaomi(g) => g.is_over(),
            AnyGame::Go(g) => g.is_complete(),
        }
    }

    /// Checks that `color` may move now (`after_end`, `wrong_player`),
    /// before the record reader resolves the point (`off_board`).
    ///
    /// # Errors
    /// [`IllegalMove`] with [`IllegalReason::GameOver`] or
    /// [`IllegalReason::WrongPlayer`].
    pub fn check_turn(&self, color: Color) -> Result<(), IllegalMove> {
        each_game!(AnyGame, self, g => g.check_turn(color))
    }

    /// Plays a move for `color`.
    ///
    /// # Errors
    /// [`IllegalMove`] with the reason; the game is unchanged.
    #[inline]
    pub fn play_as(&mut self, color: Color, mv: Move) -> Result<TurnOutcome, IllegalMove> {
        each_game!(AnyGame, self, g => g.play_as(color, mv))
    }

    /// Why `mv` by `color` would be illegal, without playing it.
    ///
    /// # Errors
    /// The reason [`AnyGame::play_as`] would give.
    pub fn legality(&self, color: Color, mv: Move) -> Result<(), IllegalReason> {
        match self {
            AnyGame::Keil(g) => {
                g.check_turn(color).map_err(|e| e.reason)?;
                g.legality(mv)
            }
            AnyGame::Go(g) => g.legality(color, mv),
            AnyGame::Kaomi(g) => g.legality(color, mv),
        }
    }

    /// Every legal move for `color` (placements in board order, then the
    /// button for Keil, then the pass).
    pub fn legal_moves(&self, color: Color) -> Vec<Move> {
        match self {
            AnyGame::Keil(g) if g.to_move() == color => g.legal_moves(),
            AnyGame::Keil(_) => Vec::new(),
            AnyGame::Go(g) => g.legal_moves(color),
            AnyGame::Kaomi(g) => g.legal_moves(color),
        }
    }

    /// Names the player of the next move (`PL`). Go only.
    ///
    /// # Errors
    /// [`AnyGameError::NotForKind`] for Keil.
    pub fn set_to_move(&mut self, to_move: ToMove) -> Result<(), AnyGameError> {
        match self {
            AnyGame::Keil(_) => Err(AnyGameError::NotForKind(GameKind::Keil)),
            AnyGame::Kaomi(_) => Err(AnyGameError::NotForKind(GameKind::Kaomi)),
            AnyGame::Go(g) => {
                g.set_to_move(to_move);
                Ok(())
            }
        }
    }

    /// Free handicap as moves (`HA[h]`, h ≥ 2, Go only; see
    /// [`GoGame::set_handicap_moves`]).
    ///
    /// # Errors
    /// [`AnyGameError::NotForKind`] for Keil.
    pub fn set_handicap_moves(&mut self, h: u32) -> Result<(), AnyGameError> {
        match self {
            AnyGame::Keil(_) => Err(AnyGameError::NotForKind(GameKind::Keil)),
            AnyGame::Kaomi(_) => Err(AnyGameError::NotForKind(GameKind::Kaomi)),
            AnyGame::Go(g) => {
                g.set_handicap_moves(h);
                Ok(())
            }
        }
    }

    /// Setup in the middle of the game (Go only: [`GoGame::apply_setup`]).
    ///
    /// # Errors
    /// [`AnyGameError::NotForKind`] for Keil; [`AnyGameError::Mismatch`]
    /// for a position of another kind or size.
    pub fn apply_setup(
        &mut self,
        position: &AnyPosition,
        to_move: ToMove,
    ) -> Result<(), AnyGameError> {
        match (self, position) {
            (AnyGame::Keil(_), _) => Err(AnyGameError::NotForKind(GameKind::Keil)),
            (AnyGame::Kaomi(_), _) => Err(AnyGameError::NotForKind(GameKind::Kaomi)),
            (AnyGame::Go(g), AnyPosition::Go(p)) if p.board() == g.board() => {
                g.apply_setup(p, to_move);
                Ok(())
            }
            (g, p) => Err(AnyGameError::Mismatch {
                expected: BoardSpec {
                    kind: g.kind(),
                    size: g.board().size(),
                },
                found: p.spec(),
            }),
        }
    }

    /// The colour of the stone on `p`, if any.
    pub fn stone_at(&self, p: Point) -> Option<Color> {
        each_game!(AnyGame, self, g => g.stone_at(p))
    }

    /// The current position.
    pub fn position(&self) -> AnyPosition {
        match self {
            AnyGame::Keil(g) => AnyPosition::Keil(g.position()),
            AnyGame::Go(g) => AnyPosition::Go(g.position()),
            AnyGame::Kaomi(g) => AnyPosition::Kaomi(g.position()),
        }
    }

    /// The key of the current position.
    pub fn key(&self) -> PositionKey {
        each_game!(AnyGame, self, g => g.key())
    }

    /// The canonical key of the current position and the index of a
    /// symmetry whose image has it.
    pub fn canonical_key(&self) -> (PositionKey, u8) {
        each_game!(AnyGame, self, g => {
            let (k, s) = g.canonical_key();
            (k, s.index())
        })
    }

    /// The plies of Kee superko breaks so far (`superko_breaks`); empty
    /// under other rules.
    pub fn superko_breaks(&self) -> &[u32] {
        match self {
            AnyGame::Keil(g) => g.superko_breaks(),
            AnyGame::Go(g) => g.superko_breaks(),
            AnyGame::Kaomi(_) => &[],
        }
    }

    /// Go Kee: the plies of pass-equivalent plays (`pass_plays`); empty
    /// otherwise.
    pub fn pass_plays(&self) -> &[u32] {
        match self {
            AnyGame::Keil(_) | AnyGame::Kaomi(_) => &[],
            AnyGame::Go(g) => g.pass_plays(),
        }
    }

    /// The empty points the score of the current position counts for one
    /// colour, with that colour: Keil's owned territories (keil-rules.md,
    /// under the game's linking rule), Go's area regions touching one
    /// colour only; none for Kaomi, whose score counts groups, not points
    /// ([`AnyGame::kaomi_result`]).
    pub fn owned_points(&self) -> Vec<(Point, Color)> {
        match self {
            AnyGame::Keil(g) => {
                let mut out = Vec::new();
                for t in g.position().territories(g.ruleset().linking) {
                    if let Some(c) = t.owner {
                        out.extend(t.points.iter().map(|p| (p, c)));
                    }
                }
                out
            }
            AnyGame::Go(g) => g.position().area_owners(),
            AnyGame::Kaomi(_) => Vec::new(),
        }
    }

    /// The score of the current position read as final: Keil's
    /// (keil-rules.md), Go's area score with komi, Kaomi's scores
    /// ([`KaomiGame::score`]; the winner of a full Kaomi board is
    /// [`AnyGame::kaomi_result`]'s, which knows the emptied-board rule).
    pub fn score(&self) -> Score {
        each_game!(AnyGame, self, g => g.score())
    }

    /// Kaomi: the result of the full board (groups, pair removal, scores,
    /// winner, margin); `None` before the end and for other kinds.
    pub fn kaomi_result(&self) -> Option<KaomiResult> {
        match self {
            AnyGame::Kaomi(g) => g.result(),
            _ => None,
        }
    }
}
