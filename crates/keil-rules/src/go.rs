//! The rules of Go as go-rules.md states them: rulesets from `RU`, placing a
//! stone (captures, suicide), the repetition rules (simple ko, positional and
//! situational superko, Kee), turn order, end of the game and the area score,
//! and the Go position notation.
//!
//! SGF syntax (property values, `tt`, setup lists) is the record reader's;
//! this module takes points and colours.

#![allow(clippy::todo)] // API stage: bodies follow.

use std::fmt;
use std::str::FromStr;

use crate::board::Point;
use crate::game::{IllegalMove, Move, TurnOutcome};
use crate::position::{Group, PointSet, PositionKey, Score, Wide};
use crate::square::{SquareBoard, SquareSymmetry};
use crate::{Color, HalfPoints};

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

/// Why a Go position notation could not be read (go-rules.md, "Position
/// notation and search").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GoNotationError {
    /// Occurs when the text is empty.
    #[error("empty position: expected rows like 3/3/3 (3x3 empty) or b1w/3/2b")]
    Empty,
    /// Occurs when the number of `/`-separated rows is not a size 1..=19.
    #[error("{0} rows: a Go board has 1 to 19 rows")]
    Rows(usize),
    /// Occurs when a row does not describe exactly `n` points.
    #[error("row {row} must describe exactly {expected} points")]
    RowLength {
        /// The row, 1-based from the top.
        row: usize,
        /// The board size.
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
    /// Occurs on a run of empty points that is 0, has a leading zero, or
    /// follows another run (runs are maximal).
    #[error(
        "bad run of empty points at byte {offset}: runs are 1 to 19, maximal, without leading zero"
    )]
    Run {
        /// Its byte offset.
        offset: usize,
    },
    /// Occurs on a suffix other than one ` b` or ` w`.
    #[error("unexpected suffix {0:?}: expected ` b` or ` w` (player to move)")]
    Suffix(String),
}

/// A Go position: the stones on a square board (positions are boards only,
/// go-rules.md "Rulesets").
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GoPosition {
    board: &'static SquareBoard,
    stones: [Wide; 2],
}

impl fmt::Debug for GoPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GoPosition({})", self.to_notation(None))
    }
}

impl GoPosition {
    /// The empty board.
    pub fn empty(board: &'static SquareBoard) -> GoPosition {
        GoPosition {
            board,
            stones: [Wide::default(); 2],
        }
    }

    /// A position with the given stones.
    ///
    /// # Errors
    /// Returns a point given for both colours.
    pub fn from_stones(
        board: &'static SquareBoard,
        black: impl IntoIterator<Item = Point>,
        white: impl IntoIterator<Item = Point>,
    ) -> Result<GoPosition, Point> {
        let _ = (board, black.into_iter(), white.into_iter());
        todo!()
    }

    /// The board.
    pub fn board(&self) -> &'static SquareBoard {
        self.board
    }

    /// The colour of the stone on `p`, if any.
    pub fn get(&self, p: Point) -> Option<Color> {
        let _ = p;
        todo!()
    }

    /// Puts a stone (or nothing) on `p`, without applying any rule (setup:
    /// `AB`, `AW`, `AE`).
    pub fn set(&mut self, p: Point, stone: Option<Color>) {
        let _ = (p, stone);
        todo!()
    }

    /// The stones of one colour.
    pub fn stones(&self, color: Color) -> PointSet {
        let _ = color;
        todo!()
    }

    /// Every group (4-connected stones of one colour) with its liberties,
    /// in board order of its first stone.
    pub fn groups(&self) -> Vec<Group> {
        todo!()
    }

    /// The group of the stone on `p`; `None` when `p` is empty.
    pub fn group_at(&self, p: Point) -> Option<Group> {
        let _ = p;
        todo!()
    }

    /// The area score (go-rules.md, "End of the game and the result"):
    /// per colour its stones plus the empty regions (4-connected) that touch
    /// only that colour; White adds `komi`. In the [`Score`]'s tally,
    /// `territory` is the empty points counted, `contested` the empty points
    /// of regions touching both colours, `unlinked` those touching none.
    pub fn score(&self, komi: HalfPoints) -> Score {
        let _ = komi;
        todo!()
    }

    /// The 64-bit Zobrist key, salted for Go ([`crate::KeySalt::GO`]):
    /// never equal to a Keil key of the same stones. Stable across versions.
    pub fn key(&self) -> PositionKey {
        todo!()
    }

    /// The canonical key: the least of the keys of the 8 images, and a
    /// symmetry whose image has it.
    pub fn canonical_key(&self) -> (PositionKey, SquareSymmetry) {
        todo!()
    }

    /// The image of the position under a symmetry.
    pub fn transform(&self, s: SquareSymmetry) -> GoPosition {
        let _ = s;
        todo!()
    }

    /// The canonical form: of the 8 images, the one whose (black, white)
    /// bitsets are least, and a symmetry mapping `self` onto it.
    pub fn canonical(&self) -> (GoPosition, SquareSymmetry) {
        todo!()
    }

    /// The position with black and white exchanged (go-rules.md, "colour
    /// swap"; the player to move is exchanged by the caller).
    pub fn swap_colors(&self) -> GoPosition {
        todo!()
    }

    /// The position notation (go-rules.md, "Position notation and search"):
    /// rows from the top separated by `/`, `b`, `w`, maximal runs of empty
    /// points; ` b`/` w` appended when `to_move` is given. Canonical: one
    /// text per board.
    pub fn to_notation(&self, to_move: Option<Color>) -> String {
        let _ = to_move;
        todo!()
    }

    /// Reads the position notation; the size is the number of rows.
    ///
    /// # Errors
    /// [`GoNotationError`] naming the row or byte offset at fault.
    pub fn parse_notation(text: &str) -> Result<(GoPosition, Option<Color>), GoNotationError> {
        let _ = text;
        todo!()
    }
}

impl fmt::Display for GoPosition {
    /// The position notation of the board alone (no suffix).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let _ = f;
        todo!()
    }
}

impl FromStr for GoPosition {
    type Err = GoNotationError;
    fn from_str(s: &str) -> Result<GoPosition, GoNotationError> {
        GoPosition::parse_notation(s).map(|(p, _)| p)
    }
}

/// A Go game in progress: the board, the ruleset and komi, turn order, the
/// repetition records and the turn procedure of go-rules.md "Placing a
/// stone".
///
/// Points passed to [`GoGame::play_as`] are points of the game's board; a
/// point index outside it is refused as `off_board`.
#[derive(Clone, Debug)]
pub struct GoGame {
    board: &'static SquareBoard,
    ruleset: GoRuleset,
    komi: HalfPoints,
}

impl GoGame {
    /// A game on the empty board, Black first.
    pub fn new(board: &'static SquareBoard, ruleset: GoRuleset, komi: HalfPoints) -> GoGame {
        let _ = (board, ruleset, komi);
        todo!()
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
        let _ = (setup, ruleset, komi, to_move);
        todo!()
    }

    /// Free handicap written as moves (go-rules.md "Turn order" 1: `HA[h]`
    /// with h ≥ 2, no setup and no `PL` before the first move): the next `h`
    /// moves are Black's, then White moves. `h` < 2 does nothing.
    pub fn set_handicap_moves(&mut self, h: u32) {
        let _ = h;
        todo!()
    }

    /// Names the player of the next move (`PL`, in a node with or without a
    /// move); ends handicap moves.
    pub fn set_to_move(&mut self, to_move: ToMove) {
        let _ = to_move;
        todo!()
    }

    /// Setup in the game (go-rules.md "Setup", kee-rules.md "setup in the
    /// middle of a record"): the board becomes `position`, the repetition
    /// records restart from it (it stands for the ply played last, the ply
    /// count going on), the run of passes is reset, and `to_move` moves next
    /// (`PL`, else [`ToMove::Either`]).
    pub fn apply_setup(&mut self, position: &GoPosition, to_move: ToMove) {
        let _ = (position, to_move);
        todo!()
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
        todo!()
    }

    /// The number of moves played so far (passes included).
    pub fn ply(&self) -> u32 {
        todo!()
    }

    /// The number of consecutive passes (pass-equivalent plays included)
    /// at the end of the line so far.
    pub fn consecutive_passes(&self) -> u32 {
        todo!()
    }

    /// Whether the game has ended so that any further move is `after_end`:
    /// two consecutive passes under tromp-taylor, four under kee; never
    /// under an agreement ruleset.
    pub fn is_over(&self) -> bool {
        todo!()
    }

    /// Whether the line so far ended by passes per the ruleset
    /// (go-rules.md, "Verdict of one line": `complete`): its last two moves
    /// are passes (agreement rulesets, tromp-taylor), its last four are
    /// (kee).
    pub fn is_complete(&self) -> bool {
        todo!()
    }

    /// The colour of the stone on `p`, if any.
    pub fn stone_at(&self, p: Point) -> Option<Color> {
        let _ = p;
        todo!()
    }

    /// The current position.
    pub fn position(&self) -> GoPosition {
        todo!()
    }

    /// The key of the current position.
    pub fn key(&self) -> PositionKey {
        todo!()
    }

    /// The canonical key of the current position.
    pub fn canonical_key(&self) -> (PositionKey, SquareSymmetry) {
        todo!()
    }

    /// The plies of Kee superko breaks so far (`superko_breaks`).
    pub fn superko_breaks(&self) -> &[u32] {
        todo!()
    }

    /// The plies of Kee pass-equivalent plays so far (`pass_plays`).
    pub fn pass_plays(&self) -> &[u32] {
        todo!()
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
        let _ = color;
        todo!()
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
        let _ = (color, mv);
        todo!()
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
    pub fn legality(&self, color: Color, mv: Move) -> Result<(), crate::IllegalReason> {
        let _ = (color, mv);
        todo!()
    }

    /// Every legal move for `color`: placements in board order, then the
    /// pass. Empty once the game is over.
    pub fn legal_moves(&self, color: Color) -> Vec<Move> {
        let _ = color;
        todo!()
    }

    /// The area score of the current position with komi.
    pub fn score(&self) -> Score {
        todo!()
    }
}
