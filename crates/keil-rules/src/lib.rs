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
mod color;
mod dispatch;
mod game;
mod go;
mod half_points;
mod kaomi;
mod kee;
mod position;
mod square;
mod square_position;

pub use board::{Board, MAX_SIDE, MIN_SIDE, Point, PointError, PointName, Symmetry};
pub use color::Color;
pub use dispatch::{
    AnyBoard, AnyGame, AnyGameError, AnyNotationError, AnyPointError, AnyPosition, AnyRuleset,
    BoardSpec, BoardSpecError, GameKind, GameKindError, ParsedPosition,
};
pub use game::{
    Area, Game, IllegalMove, IllegalReason, Ko, Move, Ruleset, RulesetError, TurnOutcome,
};
pub use go::{
    GoEnd, GoGame, GoPosition, GoRuleset, GoRulesetError, RepetitionRule, RuMapped, ToMove,
};
pub use half_points::{HalfPoints, HalfPointsError};
pub use kaomi::{
    DEFAULT_KAOMI_SIZE, KaomiGame, KaomiGroup, KaomiPosition, KaomiResult, KaomiRuleset,
    KaomiRulesetError, KaomiVariant, MAX_KAOMI_SIZE, MIN_KAOMI_SIZE, Pushes,
};
pub use kee::KeeCheck;
pub use position::{
    Bits, Group, Linking, NotationError, PointSet, Position, PositionKey, Score, SymmetricKeys,
    Tally, Territory, Wide,
};
pub use square::{
    DisplayNameError, KeySalt, MAX_SQUARE_SIZE, MIN_SQUARE_SIZE, SgfPointError, SquareBoard,
    SquareKeys, SquareSymmetry,
};
pub use square_position::GoNotationError;
