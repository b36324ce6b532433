//! The rules of the archive's games, exactly: Keil (hexagonal board, links,
//! the button, its own-turn repetition rule), Go (square board, captures,
//! suicide, ko and superko variants, area score) and the Kee rule shared by
//! both. No I/O, no SGF.
//!
//! The contracts are the shared design texts: `keil-rules.md`, `go-rules.md`
//! and `kee-rules.md`; section names are cited on the items that implement
//! them.
//!
//! Geometry:
//! - [`Board`]: the hexagon of side `n` (2..=13), point names (`g7`),
//!   neighbours, common neighbours, the 12 [`Symmetry`]s.
//! - [`SquareBoard`]: the n×n board (1..=19), SGF (`dd`) and Go players'
//!   (`D16`) point names, orthogonal neighbours, the 8 [`SquareSymmetry`]s,
//!   Zobrist tables whose keys are salted by game ([`KeySalt`]).
//!
//! Games:
//! - Keil: [`Position`] (stones and button flag: links, groups,
//!   territories, score, notation, keys), [`Ruleset`] (linking, button, ko
//!   `keil`/`kee`, komi in [`HalfPoints`]), [`Game`] (the turn procedure).
//! - Go: [`GoRuleset`] (from `RU`: japanese, korean, chinese, aga, nz,
//!   tromp-taylor, kee), [`GoPosition`] (stones: groups, area score, row
//!   notation, keys), [`GoGame`] (placing a stone, repetition rules, turn
//!   order with `PL`/setup/handicap, end of the game).
//! - Shared results: [`Move`], [`TurnOutcome`], [`IllegalMove`] with an
//!   [`IllegalReason`] whose [`IllegalReason::code`] is the verdict code
//!   (`occupied`, `repetition` with `repeats_plies` and a [`KeeCheck`]...).
//!
//! Dispatch: [`GameKind`], [`BoardSpec`], [`AnyBoard`], [`AnyPosition`],
//! [`AnyRuleset`] and [`AnyGame`] are thin enums over the games (one
//! `match` per call, no trait objects); symmetries travel as their index in
//! the board's own group. The archive, the server and the CLI use these.
//!
//! A Go game, through the dispatch layer:
//!
//! ```
//! use keil_rules::{
//!     AnyGame, AnyRuleset, BoardSpec, Color, GameKind, GoRuleset, HalfPoints, IllegalReason,
//!     Move, ToMove,
//! };
//!
//! let spec = BoardSpec::new(GameKind::Go, 9).unwrap();
//! let (ruleset, _) = GoRuleset::from_ru(Some("Chinese"));
//! let rules = AnyRuleset::Go { ruleset, komi: "7.5".parse().unwrap() };
//! let mut game = AnyGame::new(spec, rules, None, ToMove::Color(Color::Black)).unwrap();
//! let board = game.board();
//! let p = |name| Move::Place(board.parse_point(name).unwrap());
//! // Black takes White's corner stone at aa.
//! for (color, mv) in [(Color::Black, "ba"), (Color::White, "aa"), (Color::Black, "ab")] {
//!     game.play_as(color, p(mv)).unwrap();
//! }
//! assert_eq!(game.position().to_notation(Some(Color::White)), "1b7/b8/9/9/9/9/9/9/9 w");
//! // Playing on a stone is refused with the verdict's reason code.
//! let err = game.play_as(Color::White, p("ba")).unwrap_err();
//! assert_eq!(err.reason, IllegalReason::Occupied);
//! assert_eq!(err.reason.code(), "occupied");
//! // Two passes stop the game under Chinese rules; the area score counts
//! // every stone as alive: Black 81 points (stones and the one-colour
//! // region), White 7.5 (komi).
//! game.play_as(Color::White, Move::Pass).unwrap();
//! game.play_as(Color::Black, Move::Pass).unwrap();
//! assert!(game.is_complete());
//! assert_eq!(game.score().black.to_string(), "81");
//! assert_eq!(game.score().white.to_string(), "7.5");
//! ```
//!
//! A Keil game:
//!
//! ```
//! use keil_rules::{Board, Color, Game, IllegalReason, Move, Ruleset};
//!
//! let board = Board::new(2).unwrap();
//! let p = |name| Move::Place(board.parse_point(name).unwrap());
//! let mut game = Game::new(board, "Keil; linking=same-type".parse().unwrap());
//! game.play(p("a1")).unwrap();
//! // White may not pass before somebody takes the button.
//! let err = game.play(Move::Pass).unwrap_err();
//! assert_eq!(err.reason, IllegalReason::PassBeforeButton);
//! assert_eq!(err.reason.code(), "pass_before_button");
//! // A stone on a1 owns the whole empty board: 7 points.
//! game.play(Move::TakeButton).unwrap();
//! game.play(Move::Pass).unwrap();
//! game.play(Move::Pass).unwrap();
//! assert!(game.is_over());
//! assert_eq!(game.score().black.to_string(), "7");
//! assert_eq!(game.score().white.to_string(), "0.5");
//! assert_eq!(game.score().winner(), Some(Color::Black));
//! ```

mod board;
mod dispatch;
mod game;
mod go;
mod kaomi;
mod kee;
mod position;
mod square;
mod square_position;

use std::fmt;
use std::ops::{Add, Sub};
use std::str::FromStr;

pub use board::{Board, MAX_SIDE, MIN_SIDE, Point, PointError, PointName, Symmetry};
pub use dispatch::{
    AnyBoard, AnyGame, AnyGameError, AnyNotationError, AnyPointError, AnyPosition, AnyRuleset,
    BoardSpec, BoardSpecError, GameKind, GameKindError, ParsedPosition,
};
pub use game::{
    Area, Game, IllegalMove, IllegalReason, Ko, Linking, Move, Ruleset, RulesetError, TurnOutcome,
};
pub use go::{
    GoEnd, GoGame, GoPosition, GoRuleset, GoRulesetError, RepetitionRule, RuMapped, ToMove,
};
pub use kaomi::{
    DEFAULT_KAOMI_SIZE, KaomiGame, KaomiGroup, KaomiPosition, KaomiResult, KaomiRuleset,
    KaomiRulesetError, KaomiVariant, MAX_KAOMI_SIZE, MIN_KAOMI_SIZE, Pushes,
};
pub use kee::KeeCheck;
pub use position::{
    Bits, Group, NotationError, PointSet, Position, PositionKey, Score, SymmetricKeys, Tally,
    Territory, Wide,
};
pub use square::{
    DisplayNameError, KeySalt, MAX_SQUARE_SIZE, MIN_SQUARE_SIZE, SgfPointError, SquareBoard,
    SquareKeys, SquareSymmetry,
};
pub use square_position::GoNotationError;

/// A player's colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Color {
    /// Black, who moves first.
    Black,
    /// White, who receives komi.
    White,
}

impl Color {
    /// The other colour.
    #[inline]
    pub fn opposite(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The SGF letter: `B` or `W`.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "Black",
            Color::White => "White",
        })
    }
}

/// A number of half-points: komi, scores and margins are integers in this
/// unit, never floats (6.5 points is `HalfPoints(13)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HalfPoints(pub i32);

impl HalfPoints {
    /// Whole points as half-points.
    pub fn from_points(points: i32) -> HalfPoints {
        HalfPoints(points * 2)
    }

    /// The value in points, for display and JSON (exact: a multiple of 0.5).
    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / 2.0
    }
}

impl Add for HalfPoints {
    type Output = HalfPoints;
    fn add(self, o: HalfPoints) -> HalfPoints {
        HalfPoints(self.0 + o.0)
    }
}

impl Sub for HalfPoints {
    type Output = HalfPoints;
    fn sub(self, o: HalfPoints) -> HalfPoints {
        HalfPoints(self.0 - o.0)
    }
}

impl fmt::Display for HalfPoints {
    /// `6`, `6.5`, `-0.5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let v = self.0.unsigned_abs();
        if v.is_multiple_of(2) {
            write!(f, "{sign}{}", v / 2)
        } else {
            write!(f, "{sign}{}.5", v / 2)
        }
    }
}

/// Why a number is not a multiple of half a point.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a multiple of 0.5 (expected a number like 6, 6.5 or -0.5)")]
pub struct HalfPointsError(pub String);

impl FromStr for HalfPoints {
    type Err = HalfPointsError;

    /// Reads `6`, `6.5`, `6.50`, `+6`, `-0.5`, `7.0`.
    fn from_str(s: &str) -> Result<HalfPoints, HalfPointsError> {
        let err = || HalfPointsError(s.to_string());
        let t = s.trim();
        let (neg, t) = match t.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let (int, frac) = t.split_once('.').unwrap_or((t, ""));
        if int.is_empty() && frac.is_empty() {
            return Err(err());
        }
        if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err());
        }
        let whole: i32 = if int.is_empty() {
            0
        } else {
            int.parse().map_err(|_| err())?
        };
        let frac = frac.trim_end_matches('0');
        let half = match frac {
            "" => 0,
            "5" => 1,
            _ => return Err(err()),
        };
        let v = whole
            .checked_mul(2)
            .and_then(|w| w.checked_add(half))
            .ok_or_else(err)?;
        Ok(HalfPoints(if neg { -v } else { v }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_points_parse_and_print() {
        for (s, v, out) in [
            ("6", 12, "6"),
            ("6.5", 13, "6.5"),
            ("6.50", 13, "6.5"),
            ("7.0", 14, "7"),
            ("-0.5", -1, "-0.5"),
            ("+2", 4, "2"),
            (".5", 1, "0.5"),
        ] {
            let h: HalfPoints = s.parse().unwrap();
            assert_eq!(h, HalfPoints(v), "{s}");
            assert_eq!(h.to_string(), out);
        }
        for bad in ["6.25", "abc", "", "-", "6.", "1e3", "6.7"] {
            if bad == "6." {
                assert_eq!(bad.parse::<HalfPoints>(), Ok(HalfPoints(12)));
                continue;
            }
            assert!(bad.parse::<HalfPoints>().is_err(), "{bad}");
        }
    }
}
