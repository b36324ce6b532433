//! Realistic Keil game records, made deterministically from a seed.
//!
//! Tests, the demo archive and the benchmarks need many complete games
//! played by recurring players over years of events. This crate makes them:
//!
//! - [`GeneratorConfig`]: how many games, the board side, the seed, and
//!   optionally a forced ruleset or komi and the share of resignations.
//! - [`Generator`]: an iterator of [`GeneratedGame`]s, one game at a time,
//!   so that 100,000 games never need to be held in memory.
//! - [`write_collection`]: every game of a configuration into one writer, as
//!   one SGF collection.
//!
//! Play is a cheap playout policy over [`keil_rules::Game`], which answers
//! every rules question it asks (groups, territories, captures, legality):
//! captures and saving own groups first, never filling a territory the
//! mover owns, otherwise a random legal placement; the button is taken at
//! some point, and players pass when nothing sensible is left. Games end
//! by two passes with the computed result, or (a share of them) by
//! resignation.
//!
//! The output is a fixed function of the configuration: the same seed gives
//! the same bytes on every machine and every version of this crate that
//! does not say otherwise.
//!
//! ```
//! use keil_gen::{GameStatus, Generator, GeneratorConfig};
//!
//! let config = GeneratorConfig { games: 3, size: 4, seed: 7, ..GeneratorConfig::default() };
//! let games: Vec<_> = Generator::new(config.clone()).unwrap().collect();
//! assert_eq!(games.len(), 3);
//! for g in &games {
//!     assert!(g.record.starts_with("(;GM[Keil]FF[4]CA[UTF-8]SZ[4]"));
//!     if g.status == GameStatus::Complete {
//!         assert!(g.record.contains(&format!("RE[{}]", g.result)));
//!     }
//! }
//! // Deterministic: the same seed, the same bytes.
//! let again: Vec<_> = Generator::new(config).unwrap().collect();
//! assert_eq!(games[0].record, again[0].record);
//! ```

mod meta;
mod play;
mod rng;
mod sgf;

use std::fmt;
use std::io::{self, Write};

use keil_rules::{Board, Color, HalfPoints, Linking, Move, Ruleset};

use crate::meta::{FIRST_DAY, SPAN_DAYS};
use crate::play::Style;
use crate::rng::Rng;

pub use crate::sgf::escape_text;

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratorConfig {
    /// The number of games.
    pub games: u64,
    /// The board side (2..=13; 7 is the usual board, 127 points).
    pub size: u8,
    /// The seed: the output is a fixed function of the whole configuration.
    pub seed: u64,
    /// A ruleset for every game; `None` varies it by event as real events
    /// would (mostly `Keil`, some `linking=unopposed`, some `button=off`).
    /// The komi of a forced ruleset is ignored; see `komi`.
    pub ruleset: Option<Ruleset>,
    /// A komi (half-points) for every game; `None` varies it by event, whole
    /// with the button and `.5` without it.
    pub komi: Option<HalfPoints>,
    /// The share of games that end by resignation, 0.0..=1.0 (default 0.1).
    pub resign_share: f64,
}

impl Default for GeneratorConfig {
    fn default() -> Self {
        GeneratorConfig {
            games: 100,
            size: 7,
            seed: 0,
            ruleset: None,
            komi: None,
            resign_share: 0.1,
        }
    }
}

/// The seed of the demo corpus.
pub const DEMO_SEED: u64 = 20_240_309;

impl GeneratorConfig {
    /// The demo corpus that the README's first command imports on an empty
    /// archive: 3,000 side-7 games from [`DEMO_SEED`], rulesets and komi
    /// varied by event. Generated at first start rather than kept in git
    /// (it would be about 3 MB); the same as
    /// `keil generate --games 3000 --size 7 --seed 20240309`.
    pub fn demo() -> GeneratorConfig {
        GeneratorConfig {
            games: 3_000,
            size: 7,
            seed: DEMO_SEED,
            ..GeneratorConfig::default()
        }
    }
}

/// Why a configuration cannot be generated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// Occurs when the side is outside 2..=13.
    #[error("board side {0} is outside 2..=13")]
    Size(u8),
    /// Occurs when the resignation share is not a number in 0..=1.
    #[error("resignation share {0} is not in 0..=1")]
    ResignShare(f64),
}

/// How a generated game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameStatus {
    /// Two passes in a row; `RE` is the computed score.
    Complete,
    /// A player resigned; the moves stop before the end.
    Resigned,
}

/// A result, written as an `RE` value by `Display`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// A counted result: the winner (`None` for a draw, `RE[0]`) and the
    /// margin in half-points.
    Counted {
        /// The winner; `None` for a draw.
        winner: Option<Color>,
        /// The score difference, in half-points.
        margin: HalfPoints,
    },
    /// A resignation; the winner is named (`B+R`, `W+R`).
    Resignation {
        /// The player who did not resign.
        winner: Color,
    },
}

impl fmt::Display for GameResult {
    /// `B+3.5`, `W+0.5`, `0`, `B+R`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GameResult::Counted { winner: None, .. } => f.write_str("0"),
            GameResult::Counted {
                winner: Some(c),
                margin,
            } => write!(f, "{}+{}", c.letter(), margin),
            GameResult::Resignation { winner } => write!(f, "{}+R", winner.letter()),
        }
    }
}

/// One generated game.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedGame {
    /// Its 0-based index in the run.
    pub index: u64,
    /// The SGF text of one game tree, ending with a line break.
    pub record: String,
    /// How it ended.
    pub status: GameStatus,
    /// The result written in `RE`.
    pub result: GameResult,
    /// The number of move nodes (plies; passes and the button count).
    pub plies: u32,
}

/// One event in progress: who plays, under which rules, on which days.
struct Event {
    name: String,
    place: &'static str,
    start_day: i64,
    days: u32,
    rounds: u32,
    round: u32,
    participants: Vec<usize>,
    rules: Ruleset,
    /// Passes written `[]` (true) or `[pass]`.
    empty_pass: bool,
    /// Pairings of the current round: (black, white) pool indices.
    pairings: Vec<(usize, usize)>,
    next: usize,
}

/// The generator: an iterator of games, deterministic for its configuration.
///
/// Game `i`'s moves come from its own random stream, so they depend only on
/// the seed, the index, the ruleset and the two players.
pub struct Generator {
    config: GeneratorConfig,
    board: &'static Board,
    schedule: Rng,
    event: Option<Event>,
    index: u64,
    resign_per_million: u32,
}

impl Generator {
    /// A generator for `config`.
    ///
    /// # Errors
    /// [`ConfigError`] when the side or the resignation share is out of range.
    pub fn new(config: GeneratorConfig) -> Result<Generator, ConfigError> {
        let board = Board::new(config.size).map_err(ConfigError::Size)?;
        if !(0.0..=1.0).contains(&config.resign_share) {
            return Err(ConfigError::ResignShare(config.resign_share));
        }
        Ok(Generator {
            schedule: Rng::new(config.seed, u64::MAX),
            resign_per_million: (config.resign_share * 1e6).round() as u32,
            config,
            board,
            event: None,
            index: 0,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &GeneratorConfig {
        &self.config
    }

    fn new_event(&mut self) -> Event {
        let rng = &mut self.schedule;
        let series = rng.pick(meta::SERIES);
        // Dates spread evenly over the span as the games are emitted.
        let games = self.config.games.max(1);
        let day = FIRST_DAY
            + (SPAN_DAYS as i128 * i128::from(self.index) / i128::from(games)) as i64
            + rng.below(10) as i64;
        let year = &meta::format_date(day)[..4];
        let place = if series.region == usize::MAX {
            "Internet"
        } else {
            *rng.pick(meta::REGIONS[series.region])
        };
        let pool = meta::pool();
        let n = 2 * rng.range(4, 14) as usize;
        let mut participants = Vec::with_capacity(n);
        while participants.len() < n {
            // Mostly local players, some travellers.
            let p = rng.below(pool.len());
            let local = series.region == usize::MAX || pool[p].region == series.region;
            if (local || rng.below(4) == 0) && !participants.contains(&p) {
                participants.push(p);
            }
        }
        let rounds = rng.range(3, 7).min(n as u32 - 1);
        let days = rng.range(1, 3).min(rounds);
        let mut rules = match self.config.ruleset {
            Some(r) => r,
            None => match rng.below(20) {
                0..=13 => Ruleset::keil(),
                14..=16 => Ruleset {
                    linking: Linking::Unopposed,
                    ..Ruleset::keil()
                },
                _ => Ruleset {
                    button: false,
                    ..Ruleset::keil()
                },
            },
        };
        rules.komi = match self.config.komi {
            Some(k) => k,
            None => {
                let base = i32::from(self.config.size) - 1;
                let whole = (base + rng.range(0, 2) as i32 - 1).max(0);
                HalfPoints(2 * whole + i32::from(!rules.button))
            }
        };
        Event {
            name: format!("{} {year}", series.name),
            place,
            start_day: day,
            days,
            rounds,
            round: 0,
            participants,
            rules,
            empty_pass: rng.below(3) == 0,
            pairings: Vec::new(),
            next: 0,
        }
    }

    /// Pairs the next round of the current event, opening a new event after
    /// the last round.
    fn next_pairing(&mut self) -> (usize, usize) {
        loop {
            let fresh = match &self.event {
                None => true,
                Some(e) => e.next == e.pairings.len() && e.round == e.rounds,
            };
            if fresh {
                self.event = Some(self.new_event());
            }
            let rng = &mut self.schedule;
            let e = self.event.as_mut().expect("an event was just opened");
            if e.next < e.pairings.len() {
                e.next += 1;
                return e.pairings[e.next - 1];
            }
            e.round += 1;
            let mut order = e.participants.clone();
            rng.shuffle(&mut order);
            e.pairings = order
                .chunks_exact(2)
                .map(|pair| {
                    if rng.below(2) == 0 {
                        (pair[0], pair[1])
                    } else {
                        (pair[1], pair[0])
                    }
                })
                .collect();
            e.next = 0;
        }
    }

    fn generate(&mut self) -> GeneratedGame {
        let (black, white) = self.next_pairing();
        let index = self.index;
        self.index += 1;
        let e = self.event.as_ref().expect("paired within an event");
        let pool = meta::pool();
        let (pb, pw) = (&pool[black], &pool[white]);
        let mut rng = Rng::new(self.config.seed, index);
        let style = |level: u32| Style {
            tactics: 550_000 + level * 12_000,
        };
        let playout = play::play(
            self.board,
            e.rules,
            [style(pb.level), style(pw.level)],
            &mut rng,
        );
        let score = playout.game.score();
        let counted = GameResult::Counted {
            winner: score.winner(),
            margin: score.margin(),
        };
        let mut moves: &[Move] = &playout.moves;
        let mut status = GameStatus::Complete;
        let mut result = counted;
        if let Some(winner) = score.winner() {
            // Resign at the loser's turn, somewhere in the second half.
            let len = moves.len();
            if len >= 8 && rng.chance(self.resign_per_million) {
                let mut cut = len / 2 + rng.below(len / 2 - 2);
                // `cut` moves are kept; move `cut + 1` would be the loser's.
                let loser_first = if winner == Color::Black { 1 } else { 0 };
                if cut % 2 != loser_first {
                    cut -= 1;
                }
                moves = &moves[..cut];
                status = GameStatus::Resigned;
                result = GameResult::Resignation { winner };
            }
        }
        let day = e.start_day + i64::from((e.round - 1) * e.days / e.rounds);
        let info = sgf::Info {
            size: self.config.size,
            rules: &e.rules,
            black: pb,
            white: pw,
            event: &e.name,
            round: e.round,
            date: meta::format_date(day),
            place: e.place,
            result: &result,
            empty_pass: e.empty_pass,
        };
        let record = sgf::write_record(self.board, &info, moves, &mut rng);
        GeneratedGame {
            index,
            record,
            status,
            result,
            plies: moves.len() as u32,
        }
    }
}

impl Iterator for Generator {
    type Item = GeneratedGame;

    fn next(&mut self) -> Option<GeneratedGame> {
        (self.index < self.config.games).then(|| self.generate())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.config.games - self.index).unwrap_or(usize::MAX);
        (left, Some(left))
    }
}

/// Writes every game of `config` to `out` as one SGF collection (game trees
/// one after another, each ending with a line break). Returns the number of
/// games written.
///
/// # Errors
/// An invalid configuration ([`ConfigError`], as `InvalidInput`) or a write
/// error.
pub fn write_collection(config: GeneratorConfig, out: &mut impl Write) -> io::Result<u64> {
    let generator =
        Generator::new(config).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let mut n = 0;
    for game in generator {
        out.write_all(game.record.as_bytes())?;
        n += 1;
    }
    Ok(n)
}
