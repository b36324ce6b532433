//! Rulesets, moves and the turn procedure (keil-rules.md, "A turn", "End and
//! score", "Variants").

use std::fmt;
use std::str::FromStr;

use crate::board::{Board, Point, Symmetry};
use crate::color::Color;
use crate::half_points::HalfPoints;
use crate::kee::{KeeCheck, KeeRecords, KeeVerdict};
use crate::position::{
    Bits, Group, Linking, PointSet, Position, PositionKey, Score, Stones, SymmetricKeys, Territory,
    Wide,
};

/// The repetition rule (keil-rules.md, "Variants": `ko`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Ko {
    /// A placement may not recreate the position at the end of any of the
    /// mover's own earlier turns (keil-rules.md, "A turn", step 4).
    #[default]
    Keil,
    /// The Kee rule (kee-rules.md, `ko=kee`): history, superko starts and
    /// repeated situations replace the mover's own-turn rule; four passes
    /// end the game.
    Kee,
}

impl Ko {
    /// The option value: `keil` or `kee`.
    pub fn code(self) -> &'static str {
        match self {
            Ko::Keil => "keil",
            Ko::Kee => "kee",
        }
    }
}

/// A ruleset: the options of keil-rules.md "Variants" and the komi.
///
/// Parsed from an `RU` value such as `Keil; linking=unopposed; button=off`
/// (record-format.md, "Properties with Keil meaning"); komi comes from `KM`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ruleset {
    /// How points link.
    pub linking: Linking,
    /// Whether the button is in use (`button=on`, the default).
    pub button: bool,
    /// The repetition rule.
    pub ko: Ko,
    /// Komi added to White's score, in half-points.
    pub komi: HalfPoints,
}

impl Ruleset {
    /// The default ruleset (same-type linking, button on, keil ko) with a komi.
    pub fn with_komi(komi: HalfPoints) -> Ruleset {
        Ruleset {
            komi,
            ..Ruleset::keil()
        }
    }

    /// The default ruleset with komi 0.
    pub fn keil() -> Ruleset {
        Ruleset {
            linking: Linking::SameType,
            button: true,
            ko: Ko::Keil,
            komi: HalfPoints(0),
        }
    }

    /// Whether the komi is unusual for the button setting: fractional with
    /// the button in use, or whole without it (keil-rules.md, "Variants":
    /// a warning, not a rejection).
    pub fn komi_warning(&self) -> bool {
        let fractional = self.komi.0 % 2 != 0;
        fractional == self.button
    }
}

/// Why an `RU` value could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesetError {
    /// Occurs when the value does not start with `Keil`.
    #[error("ruleset {0:?} is not Keil: expected `Keil` optionally followed by key=value options")]
    NotKeil(String),
    /// Occurs on an option that is not `key=value`, or an unknown key.
    #[error("unknown ruleset option {0:?}: the keys are linking, button and ko")]
    UnknownOption(String),
    /// Occurs on a known key with a value it does not take.
    #[error("ruleset option {key}={value} is not valid: {key} takes {allowed}")]
    BadValue {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// The values it takes.
        allowed: &'static str,
    },
    /// Never returned any more (`ko=kee` is supported); kept so that
    /// matches on this enum in other crates keep compiling.
    #[error("ruleset option not supported")]
    Unsupported,
}

impl FromStr for Ruleset {
    type Err = RulesetError;

    /// Reads an `RU` value: `Keil` then options `key=value` separated by `;`
    /// or white space. Komi is left at 0.
    fn from_str(s: &str) -> Result<Ruleset, RulesetError> {
        let mut words = s
            .split(|c: char| c == ';' || c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty());
        match words.next() {
            Some(w) if w.eq_ignore_ascii_case("keil") => {}
            _ => return Err(RulesetError::NotKeil(s.to_string())),
        }
        let mut rules = Ruleset::keil();
        for word in words {
            let (key, value) = word
                .split_once('=')
                .ok_or_else(|| RulesetError::UnknownOption(word.to_string()))?;
            let key_l = key.to_ascii_lowercase();
            let value_l = value.to_ascii_lowercase();
            let bad = |allowed| RulesetError::BadValue {
                key: key.to_string(),
                value: value.to_string(),
                allowed,
            };
            match (key_l.as_str(), value_l.as_str()) {
                ("linking", "same-type") => rules.linking = Linking::SameType,
                ("linking", "unopposed") => rules.linking = Linking::Unopposed,
                ("linking", _) => return Err(bad("same-type or unopposed")),
                ("button", "on") => rules.button = true,
                ("button", "off") => rules.button = false,
                ("button", _) => return Err(bad("on or off")),
                ("ko", "keil") => rules.ko = Ko::Keil,
                ("ko", "kee") => rules.ko = Ko::Kee,
                ("ko", _) => return Err(bad("keil or kee")),
                _ => return Err(RulesetError::UnknownOption(word.to_string())),
            }
        }
        Ok(rules)
    }
}

impl fmt::Display for Ruleset {
    /// The canonical `RU` value, every option spelled out (komi is `KM`'s).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let linking = match self.linking {
            Linking::SameType => "same-type",
            Linking::Unopposed => "unopposed",
        };
        let button = if self.button { "on" } else { "off" };
        let ko = self.ko.code();
        write!(f, "Keil; linking={linking}; button={button}; ko={ko}")
    }
}

/// One turn (keil-rules.md, "A turn").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Move {
    /// A stone on an empty point.
    Place(Point),
    /// A pass.
    Pass,
    /// Taking the button.
    TakeButton,
    /// Kaomi's pie rule: White's swap on ply 2 (`W[swap]`; kaomi-rules.md,
    /// "Pie rule"). Illegal in Keil and Go (`button_not_in_use` is never
    /// reached: records of those games cannot write it).
    Swap,
}

impl Move {
    /// The move written as in a record: `g7`, `pass` or `button`.
    pub fn display(self, board: &Board) -> String {
        match self {
            Move::Place(p) => board.name(p).to_string(),
            Move::Pass => "pass".to_string(),
            Move::TakeButton => "button".to_string(),
            Move::Swap => "swap".to_string(),
        }
    }

    /// The image of the move under a symmetry.
    pub fn transform(self, board: &Board, s: Symmetry) -> Move {
        match self {
            Move::Place(p) => Move::Place(board.transform(p, s)),
            m => m,
        }
    }
}

/// Why a turn is illegal. The JSON codes of record-format.md are given by
/// [`IllegalReason::code`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum IllegalReason {
    /// Occurs on any turn after the game ended by passes (`after_end`):
    /// two consecutive passes (Keil, Go tromp-taylor), four under Kee.
    #[error("the game already ended by passes")]
    GameOver,
    /// Occurs on any Kaomi turn once the board is full (`after_end`).
    #[error("the board is already full")]
    BoardFull,
    /// Occurs when the colour is not the one to move (`wrong_player`).
    #[error("it is {expected}'s turn")]
    WrongPlayer {
        /// The colour that should have moved.
        expected: Color,
    },
    /// Occurs on a placement on a point that is not on the board
    /// (`off_board`). Point names are the record reader's: the rules only
    /// see a [`Point`] index beyond the board.
    #[error("the point is off the board")]
    OffBoard,
    /// Occurs on a placement on a stone (`occupied`).
    #[error("the point is occupied")]
    Occupied,
    /// Occurs when the placed stone's group has no liberty after removals
    /// (`self_capture`).
    #[error("self-capture: the placed stone's group has no liberty after removals")]
    SelfCapture,
    /// Occurs when the placement breaks the repetition rule
    /// (`repetition`): Keil's own-turn rule, Go's simple ko, positional or
    /// situational superko, or Kee.
    #[error("repetition: the position repeats ply {}", fmt_plies(.plies))]
    Repetition {
        /// The verdict's `repeats_plies`, increasing (0 = the initial
        /// position, or the setup position the records restarted from,
        /// numbered by the ply before it): Keil: every earlier ply of the
        /// mover ending in the new position; Go simple ko: `[ply − 2]`;
        /// superko: every earlier matching ply; Kee: every history entry of
        /// the position.
        plies: Vec<u32>,
        /// Under Kee (Go `RU[Kee]`, Keil `ko=kee`): which check refused it
        /// (`kee_check`); `None` under every other rule.
        kee: Option<KeeCheck>,
    },
    /// Occurs on a pass while the button is in use and not yet taken
    /// (`pass_before_button`).
    #[error("no pass before the button is taken")]
    PassBeforeButton,
    /// Occurs on taking the button after it was taken (`button_taken`).
    #[error("the button was already taken")]
    ButtonTaken,
    /// Occurs on taking the button when the ruleset has `button=off`
    /// (`button_not_in_use`).
    #[error("the button is not in use (button=off)")]
    ButtonNotInUse,
    /// Occurs on a Kaomi pass (`pass_not_allowed`): Kaomi has none.
    #[error("Kaomi has no pass: a placement always exists until the board is full")]
    PassNotAllowed,
    /// Occurs on a swap when the pie rule is not in use
    /// (`swap_not_allowed`), and on a swap in Keil or Go.
    #[error("no swap: the pie rule is not in use (pie=off)")]
    SwapNotAllowed,
    /// Occurs on a swap with the pie rule in use, but not on White's first
    /// turn, ply 2 (`swap_wrong_turn`).
    #[error("the swap is only allowed on White's first turn (ply 2)")]
    SwapWrongTurn,
}

fn fmt_plies(plies: &[u32]) -> String {
    plies
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl IllegalReason {
    /// The reason code of record-format.md ("Validation outcome").
    pub fn code(&self) -> &'static str {
        match self {
            IllegalReason::GameOver | IllegalReason::BoardFull => "after_end",
            IllegalReason::WrongPlayer { .. } => "wrong_player",
            IllegalReason::OffBoard => "off_board",
            IllegalReason::Occupied => "occupied",
            IllegalReason::SelfCapture => "self_capture",
            IllegalReason::Repetition { .. } => "repetition",
            IllegalReason::PassBeforeButton => "pass_before_button",
            IllegalReason::ButtonTaken => "button_taken",
            IllegalReason::ButtonNotInUse => "button_not_in_use",
            IllegalReason::PassNotAllowed => "pass_not_allowed",
            IllegalReason::SwapNotAllowed => "swap_not_allowed",
            IllegalReason::SwapWrongTurn => "swap_wrong_turn",
        }
    }
}

/// An illegal turn: who tried what at which ply, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ply {ply}: {color} {mv:?} is illegal: {reason}")]
pub struct IllegalMove {
    /// The ply the move would have had (1-based).
    pub ply: u32,
    /// The colour that tried it.
    pub color: Color,
    /// The move.
    pub mv: Move,
    /// Why it is illegal.
    pub reason: IllegalReason,
}

/// What the empty points around a point form, as far as [`Game::area_at`]
/// needed to look.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Area {
    /// Linked to stones of both colours: nobody's territory (the search
    /// stopped there, so the region's points are not listed).
    Contested,
    /// A territory owned by one colour, or linked to no stone.
    Territory(Territory),
}

/// What a legal turn did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnOutcome {
    /// The ply of this turn (1-based).
    pub ply: u32,
    /// Stones removed by a placement, in board order.
    pub captured: Vec<Point>,
    /// The key of the position after the turn.
    pub key: PositionKey,
    /// The canonical key of that position, and a symmetry mapping it onto
    /// its canonical image.
    pub canonical: (PositionKey, Symmetry),
    /// Whether this turn ended the game, so that any further turn is
    /// `after_end` (second pass in a row; fourth under Kee; never under a Go
    /// agreement ruleset).
    pub ended: bool,
    /// The index of a symmetry mapping the position onto its canonical
    /// image, in the board's own group (hex `0..12`, square `0..8`:
    /// [`crate::AnyBoard::transform`] takes it). For Keil it equals
    /// `canonical.1.index()`; for Go `canonical.1` carries the same index
    /// and is not a hex symmetry.
    pub canonical_sym: u8,
    /// Go: the mover's own stones removed by a legal suicide (the placed
    /// stone's group), in board order; empty otherwise. `captured` holds the
    /// opponent's stones only.
    pub suicided: Vec<Point>,
    /// Kee: the play recreated a position and broke superko (kee-rules.md
    /// step 4; the verdict's `superko_breaks`).
    pub superko_break: bool,
    /// Go Kee: the play left the board unchanged and counts as a pass
    /// (kee-rules.md step 0; the verdict's `pass_plays`).
    pub pass_play: bool,
    /// Go agreement rulesets: this placement resumed play after two or
    /// more consecutive passes (go-rules.md "Turn order" 4; warning
    /// `resumed_after_passes`). A further pass does not count.
    pub resumed: bool,
    /// Kaomi: the stones a placement pushed, `(from, to)`, row then column
    /// (kaomi-rules.md, "The line rule"); empty in Keil and Go.
    pub moved: Vec<(Point, Point)>,
}

/// The state at the end of one turn, kept for the repetition rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TurnEnd<B: Bits> {
    stones: Stones<B>,
    button: bool,
}

/// The engine at one bitset width.
#[derive(Clone, Debug)]
struct Engine<B: Bits> {
    board: &'static Board,
    rules: Ruleset,
    stones: Stones<B>,
    /// Zobrist keys under each of the 12 symmetries.
    keys: SymmetricKeys,
    button: Option<Color>,
    to_move: Color,
    ply: u32,
    passes: u8,
    /// The position at the end of every turn, by ply - 1.
    history: Vec<TurnEnd<B>>,
    /// Per colour, the key and ply of the end of each of its turns: the
    /// repetition rule scans these contiguous keys and compares positions
    /// only on a match.
    turn_keys: [Vec<(u64, u32)>; 2],
    /// Under `ko=kee`: the records of kee-rules.md (the initial position
    /// counts), replacing `history` and `turn_keys`.
    kee: Option<Box<KeeRecords<TurnEnd<B>>>>,
    /// Under `ko=kee`: the plies of superko breaks.
    superko_breaks: Vec<u32>,
}

impl<B: Bits> Engine<B> {
    fn new(board: &'static Board, rules: Ruleset, setup: &Position, to_move: Color) -> Self {
        let stones: Stones<B> = setup.stones_as();
        let keys = SymmetricKeys::new(setup);
        let kee = (rules.ko == Ko::Kee).then(|| {
            let start = TurnEnd {
                stones,
                button: false,
            };
            Box::new(KeeRecords::new(start, keys.key().0, 1))
        });
        Engine {
            board,
            rules,
            stones,
            keys,
            button: None,
            to_move,
            ply: 0,
            passes: 0,
            history: Vec::with_capacity(160),
            turn_keys: [Vec::with_capacity(80), Vec::with_capacity(80)],
            kee,
            superko_breaks: Vec::new(),
        }
    }

    /// Consecutive passes that end the game: two, four under Kee
    /// (kee-rules.md, "End of the game").
    #[inline]
    fn end_passes(&self) -> u8 {
        if self.kee.is_some() { 4 } else { 2 }
    }

    fn check_turn(&self, color: Color) -> Result<(), IllegalReason> {
        if self.passes >= self.end_passes() {
            Err(IllegalReason::GameOver)
        } else if color != self.to_move {
            Err(IllegalReason::WrongPlayer {
                expected: self.to_move,
            })
        } else {
            Ok(())
        }
    }

    fn play(&mut self, color: Color, mv: Move) -> Result<TurnOutcome, IllegalReason> {
        self.check_turn(color)?;
        let mut captured = Vec::new();
        let mut superko_break = false;
        match mv {
            Move::Swap => return Err(IllegalReason::SwapNotAllowed),
            Move::Pass => {
                if self.rules.button && self.button.is_none() {
                    return Err(IllegalReason::PassBeforeButton);
                }
                self.passes += 1;
            }
            Move::TakeButton => {
                if !self.rules.button {
                    return Err(IllegalReason::ButtonNotInUse);
                }
                if self.button.is_some() {
                    return Err(IllegalReason::ButtonTaken);
                }
                self.button = Some(color);
                self.keys.toggle_button();
                self.passes = 0;
            }
            Move::Place(p) => {
                let (stones, dead, keys) = self.try_place(p, color)?;
                dead.each(|i| captured.push(Point(i as u16)));
                self.stones = stones;
                self.keys = keys;
                self.passes = 0;
            }
        }
        self.ply += 1;
        if self.kee.is_none() {
            self.history.push(TurnEnd {
                stones: self.stones,
                button: self.button.is_some(),
            });
            self.turn_keys[color.index()].push((self.keys.key().0, self.ply));
        } else {
            superko_break = self.kee_record(color, mv);
        }
        self.to_move = color.opposite();
        let canonical = self.keys.canonical();
        Ok(TurnOutcome {
            ply: self.ply,
            captured,
            key: self.keys.key(),
            canonical,
            ended: self.passes >= self.end_passes(),
            canonical_sym: canonical.1.index(),
            suicided: Vec::new(),
            superko_break,
            pass_play: false,
            resumed: false,
            moved: Vec::new(),
        })
    }

    /// kee-rules.md "After a play" steps 1-3 for a Keil placement (Kee
    /// replaces the own-turn rule entirely; a Keil placement always changes
    /// the position, so there is no step 0). Out of line: the default
    /// `ko=keil` path does not pay for it.
    #[cold]
    #[inline(never)]
    fn kee_check(
        kee: &KeeRecords<TurnEnd<B>>,
        color: Color,
        end: TurnEnd<B>,
        key: u64,
    ) -> Result<KeeVerdict, IllegalReason> {
        kee.check(color, &end, key)
            .map_err(|(check, plies)| IllegalReason::Repetition {
                plies,
                kee: Some(check),
            })
    }

    /// Appends a legal turn (already played) to the Kee
    /// records; returns whether it was a superko break. Out of line, as
    /// [`Engine::kee_check`]: the placement's verdict is found again here
    /// rather than carried through the `ko=keil` path.
    #[cold]
    #[inline(never)]
    fn kee_record(&mut self, color: Color, mv: Move) -> bool {
        let (m, key) = (self.ply, self.keys.key().0);
        let end = TurnEnd {
            stones: self.stones,
            button: self.button.is_some(),
        };
        let kee = self.kee.as_mut().expect("Kee records under ko=kee");
        match mv {
            Move::Pass => kee.pass(color, m, end, key),
            Move::TakeButton => kee.neutral(m, end, key),
            Move::Swap => unreachable!("refused by play"),
            Move::Place(_) => {
                let verdict = kee.check(color, &end, key).expect("checked by try_place");
                kee.commit(verdict, color, m, end, key);
                if verdict == KeeVerdict::Break {
                    self.superko_breaks.push(m);
                    return true;
                }
            }
        }
        false
    }

    /// Steps 1–4 of a placement, without changing the game; under Kee, also
    /// what the play does to the Kee records.
    fn try_place(
        &self,
        p: Point,
        color: Color,
    ) -> Result<(Stones<B>, B, SymmetricKeys), IllegalReason> {
        let i = p.index();
        if self.stones.occupied(i) {
            return Err(IllegalReason::Occupied);
        }
        let (stones, dead) = self
            .stones
            .place(self.board, self.rules.linking, i, color)
            .ok_or(IllegalReason::SelfCapture)?;
        let mut keys = self.keys;
        keys.toggle(p, color);
        dead.each(|d| keys.toggle(Point(d as u16), color.opposite()));
        let key = keys.key().0;
        let button = self.button.is_some();
        if let Some(kee) = &self.kee {
            Engine::kee_check(kee, color, TurnEnd { stones, button }, key)?;
            return Ok((stones, dead, keys));
        }
        let own = &self.turn_keys[color.index()];
        if own.iter().any(|&(k, _)| k == key) {
            // A key match is confirmed by comparing positions.
            let plies: Vec<u32> = own
                .iter()
                .filter(|&&(k, ply)| {
                    let end = &self.history[ply as usize - 1];
                    k == key && end.button == button && end.stones == stones
                })
                .map(|&(_, ply)| ply)
                .collect();
            if !plies.is_empty() {
                return Err(IllegalReason::Repetition { plies, kee: None });
            }
        }
        Ok((stones, dead, keys))
    }

    fn position(&self) -> Position {
        Position::from_parts(self.board, self.stones.to_wide(), self.button.is_some())
    }

    fn score(&self) -> Score {
        let tally = self.stones.tally(self.board, self.rules.linking);
        Score::from_tally(tally, self.rules.komi, self.button)
    }
}

#[derive(Clone, Debug)]
enum Inner {
    Narrow(Engine<u128>),
    Wide(Engine<Wide>),
}

macro_rules! with_engine {
    ($self:expr, $e:ident => $body:expr) => {
        match $self {
            Inner::Narrow($e) => $body,
            Inner::Wide($e) => $body,
        }
    };
}

/// A game in progress: the position, whose turn it is, the button, the
/// history the repetition rule needs, and the turn procedure.
///
/// Boards of side 7 or less run on one `u128` per colour, larger ones on
/// 512-bit sets; the code is the same.
///
/// ```
/// use keil_rules::{Board, Color, Game, Move, Ruleset};
///
/// let board = Board::new(7).unwrap();
/// let mut game = Game::new(board, Ruleset::keil());
/// game.play(Move::Place(board.parse_point("g7").unwrap())).unwrap();
/// game.play(Move::TakeButton).unwrap();
/// game.play(Move::Pass).unwrap();
/// game.play(Move::Pass).unwrap();
/// assert!(game.is_over());
/// let score = game.score();
/// assert_eq!(score.winner(), Some(Color::Black));
/// assert_eq!(score.black.to_string(), "127"); // one stone owning the board
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    inner: Inner,
}

impl Game {
    /// A new game on the empty board; Black moves first.
    pub fn new(board: &'static Board, rules: Ruleset) -> Game {
        Game::from_setup(&Position::empty(board), rules, Color::Black)
    }

    /// A game that starts from a setup position (record `AB`/`AW`) with
    /// `to_move` to play. The setup position does not count for Keil's own
    /// repetition rule; under `ko=kee` it is the first entry of the history
    /// (kee-rules.md: the initial position counts).
    pub fn from_setup(setup: &Position, rules: Ruleset, to_move: Color) -> Game {
        let board = setup.board();
        let inner = if board.len() <= u128::CAPACITY {
            Inner::Narrow(Engine::new(board, rules, setup, to_move))
        } else {
            Inner::Wide(Engine::new(board, rules, setup, to_move))
        };
        Game { inner }
    }

    /// The same game on the 512-bit engine whatever the side: only for
    /// measuring the narrow representation against the wide one (benches).
    #[doc(hidden)]
    pub fn new_wide(board: &'static Board, rules: Ruleset) -> Game {
        let setup = Position::empty(board);
        Game {
            inner: Inner::Wide(Engine::new(board, rules, &setup, Color::Black)),
        }
    }

    /// The board.
    pub fn board(&self) -> &'static Board {
        with_engine!(&self.inner, e => e.board)
    }

    /// The ruleset.
    pub fn ruleset(&self) -> &Ruleset {
        with_engine!(&self.inner, e => &e.rules)
    }

    /// Whose turn it is.
    pub fn to_move(&self) -> Color {
        with_engine!(&self.inner, e => e.to_move)
    }

    /// The number of turns played so far.
    pub fn ply(&self) -> u32 {
        with_engine!(&self.inner, e => e.ply)
    }

    /// Whether the game ended by passes: two in a row, four under
    /// `ko=kee` (kee-rules.md, "End of the game").
    pub fn is_over(&self) -> bool {
        with_engine!(&self.inner, e => e.passes >= e.end_passes())
    }

    /// The number of consecutive passes at the end of the game so far.
    pub fn consecutive_passes(&self) -> u32 {
        with_engine!(&self.inner, e => u32::from(e.passes))
    }

    /// The plies of Kee superko breaks so far (`ko=kee`; kee-rules.md step
    /// 4); empty under Keil's own rule.
    pub fn superko_breaks(&self) -> &[u32] {
        with_engine!(&self.inner, e => &e.superko_breaks)
    }

    /// Who took the button, if anyone.
    pub fn button_holder(&self) -> Option<Color> {
        with_engine!(&self.inner, e => e.button)
    }

    /// The colour of the stone on `p`, if any.
    pub fn stone_at(&self, p: Point) -> Option<Color> {
        with_engine!(&self.inner, e => match e.stones.kind(p.0) {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        })
    }

    /// Checks that `color` may move now: the game is not over and it is
    /// `color`'s turn. The validator calls this before it reads the point,
    /// so that `after_end` and `wrong_player` come before `off_board`.
    ///
    /// # Errors
    /// [`IllegalReason::GameOver`] or [`IllegalReason::WrongPlayer`].
    pub fn check_turn(&self, color: Color) -> Result<(), IllegalMove> {
        with_engine!(&self.inner, e => e.check_turn(color)).map_err(|reason| IllegalMove {
            ply: self.ply() + 1,
            color,
            mv: Move::Pass,
            reason,
        })
    }

    /// Plays a move for the player to move.
    ///
    /// # Errors
    /// [`IllegalMove`] with the reason; the game is unchanged.
    pub fn play(&mut self, mv: Move) -> Result<TurnOutcome, IllegalMove> {
        let color = self.to_move();
        self.play_as(color, mv)
    }

    /// Plays a move for `color`, which must be the player to move.
    ///
    /// Checks, in the order of record-format.md: game over, wrong player,
    /// then for a placement occupied, self-capture, repetition; for a pass,
    /// pass before the button; for the button, not in use, already taken.
    ///
    /// # Errors
    /// [`IllegalMove`] with the reason; the game is unchanged.
    pub fn play_as(&mut self, color: Color, mv: Move) -> Result<TurnOutcome, IllegalMove> {
        let ply = self.ply() + 1;
        with_engine!(&mut self.inner, e => e.play(color, mv)).map_err(|reason| IllegalMove {
            ply,
            color,
            mv,
            reason,
        })
    }

    /// Whether `mv` is legal for the player to move.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.legality(mv).is_ok()
    }

    /// Why `mv` would be illegal for the player to move, without playing it.
    ///
    /// # Errors
    /// The reason, as [`Game::play`] would give it.
    pub fn legality(&self, mv: Move) -> Result<(), IllegalReason> {
        with_engine!(&self.inner, e => {
            e.check_turn(e.to_move)?;
            match mv {
                Move::Place(p) => e.try_place(p, e.to_move).map(|_| ()),
                Move::Pass if e.rules.button && e.button.is_none() => {
                    Err(IllegalReason::PassBeforeButton)
                }
                Move::Pass => Ok(()),
                Move::TakeButton if !e.rules.button => Err(IllegalReason::ButtonNotInUse),
                Move::TakeButton if e.button.is_some() => Err(IllegalReason::ButtonTaken),
                Move::TakeButton => Ok(()),
                Move::Swap => Err(IllegalReason::SwapNotAllowed),
            }
        })
    }

    /// Every legal move for the player to move: placements in board order,
    /// then the button, then the pass. Empty once the game is over.
    pub fn legal_moves(&self) -> Vec<Move> {
        let board = self.board();
        board
            .points()
            .map(Move::Place)
            .chain([Move::TakeButton, Move::Pass])
            .filter(|&m| self.is_legal(m))
            .collect()
    }

    /// Whether a placement on `p` by the player to move would capture.
    /// `None` when the placement is illegal.
    pub fn captures_of(&self, p: Point) -> Option<PointSet> {
        with_engine!(&self.inner, e => e
            .try_place(p, e.to_move)
            .ok()
            .map(|(_, dead, _)| PointSet::from_bits(dead)))
    }

    /// The group of the stone on `p` with its liberties; `None` when `p` is
    /// empty. Cheaper than [`Position::groups`]: one flood, at the engine's
    /// width (keil-rules.md, "Groups, liberties, territories").
    pub fn group_at(&self, p: Point) -> Option<Group> {
        let color = self.stone_at(p)?;
        Some(with_engine!(&self.inner, e => {
            let (group, liberties) = e.stones.group(e.board, e.rules.linking, p.index());
            Group {
                color,
                stones: PointSet::from_bits(group),
                liberties: PointSet::from_bits(liberties),
            }
        }))
    }

    /// The territory of the empty point `p` and its owner; `None` when `p`
    /// holds a stone. One flood, at the engine's width.
    pub fn territory_at(&self, p: Point) -> Option<Territory> {
        if self.stone_at(p).is_some() {
            return None;
        }
        Some(with_engine!(&self.inner, e => {
            let (points, linked) = e.stones.territory_of(e.board, e.rules.linking, p.index(), false);
            Territory::new(PointSet::from_bits(points), linked)
        }))
    }

    /// Like [`Game::territory_at`], but stops as soon as stones of both
    /// colours are found linked to the region: `Some(Area::Contested)` then,
    /// without its points. For move pickers that only need to know whether a
    /// point lies in someone's territory.
    pub fn area_at(&self, p: Point) -> Option<Area> {
        if self.stone_at(p).is_some() {
            return None;
        }
        Some(with_engine!(&self.inner, e => {
            match e.stones.territory_of(e.board, e.rules.linking, p.index(), true) {
                (_, [true, true]) => Area::Contested,
                (points, linked) => Area::Territory(Territory::new(PointSet::from_bits(points), linked)),
            }
        }))
    }

    /// The current position.
    pub fn position(&self) -> Position {
        with_engine!(&self.inner, e => e.position())
    }

    /// The key of the current position.
    pub fn key(&self) -> PositionKey {
        with_engine!(&self.inner, e => e.keys.key())
    }

    /// The canonical key of the current position (see
    /// [`Position::canonical_key`]).
    pub fn canonical_key(&self) -> (PositionKey, Symmetry) {
        with_engine!(&self.inner, e => e.keys.canonical())
    }

    /// The score of the current position, read as a final position.
    pub fn score(&self) -> Score {
        with_engine!(&self.inner, e => e.score())
    }
}
