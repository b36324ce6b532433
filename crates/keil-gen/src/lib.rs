//! Realistic Keil and Go game records, made deterministically from a seed.
//!
//! Tests, the demo archive and the benchmarks need many complete games
//! played by recurring players over years of events. This crate makes them:
//!
//! - [`GeneratorConfig`]: which game ([`GameKind::Keil`] or
//!   [`GameKind::Go`]), how many games, the board size, the seed, and
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
//! Go games (`GM[1]`, SGF point letters) are played the same way over
//! [`keil_rules::GoGame`]: captures and saves first, no filling of own eyes
//! or small own regions, no suicide or self-atari, the opening on the third
//! and fourth lines, often a reply near the opponent's last stone; events
//! use the real-world rulesets (Japanese, Chinese, Korean, AGA, NZ,
//! Tromp-Taylor, Kee) with their usual komi (6.5, 7.5, some 0), and some
//! give handicaps (`HA`, `AB` stones, White first, komi 0.5). The result
//! is the area score of the final position (checked by the validator under
//! Tromp-Taylor and Kee).
//!
//! Kaomi games (`GM[Kaomi]`) are played over [`keil_rules::KaomiGame`] by a
//! policy that prefers, among a few random empty squares, the one growing
//! its own biggest group against the opponent's (Squared: the sums of
//! squared group sizes); White sometimes swaps a central first stone under
//! the pie rule. Games end with the full board and the computed result, or
//! by resignation.
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

mod go;
mod kaomi;
mod meta;
mod play;
mod rng;
mod sgf;

use std::fmt;
use std::io::{self, Write};

use keil_rules::{
    AnyBoard, Board, Color, GameKind, GoGame, GoPosition, GoRuleset, HalfPoints, KaomiRuleset,
    KaomiVariant, Linking, Move, Ruleset, SquareBoard, ToMove,
};

use crate::meta::{FIRST_DAY, SPAN_DAYS};
use crate::play::Style;
use crate::rng::Rng;

pub use crate::sgf::escape_text;

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratorConfig {
    /// The game: Keil (the default), Go or Kaomi.
    pub game: GameKind,
    /// The number of games.
    pub games: u64,
    /// The board size: Keil side 2..=13 (7 is the usual board, 127
    /// points); Go and Kaomi 2..=19 (n×n).
    pub size: u8,
    /// The seed: the output is a fixed function of the whole configuration.
    pub seed: u64,
    /// Keil: a ruleset for every game; `None` varies it by event as real
    /// events would (mostly `Keil`, some `linking=unopposed`, some
    /// `button=off`). The komi of a forced ruleset is ignored; see `komi`.
    pub ruleset: Option<Ruleset>,
    /// Go: a ruleset for every game; `None` varies it by event (mostly
    /// Japanese and Chinese, every other ruleset too).
    pub go_ruleset: Option<GoRuleset>,
    /// A komi (half-points) for every game, handicap games included; `None`
    /// varies it by event. Keil: whole with the button and `.5` without it.
    /// Go: the ruleset's usual 6.5 or 7.5, some events 0; handicap games
    /// 0.5.
    pub komi: Option<HalfPoints>,
    /// Kaomi: a variant for every game; `None` varies it by event (mostly
    /// standard, a quarter Squared).
    pub kaomi_variant: Option<KaomiVariant>,
    /// Go: whether some events give handicaps (fixed `AB` stones, `HA`,
    /// White first) to the weaker player, from 9×9 up.
    pub handicaps: bool,
    /// The share of games that end by resignation, 0.0..=1.0 (default 0.1).
    pub resign_share: f64,
}

impl Default for GeneratorConfig {
    fn default() -> Self {
        GeneratorConfig {
            game: GameKind::Keil,
            games: 100,
            size: 7,
            seed: 0,
            ruleset: None,
            go_ruleset: None,
            komi: None,
            kaomi_variant: None,
            handicaps: true,
            resign_share: 0.1,
        }
    }
}

/// The seed of the demo corpus.
pub const DEMO_SEED: u64 = 20_240_309;

impl GeneratorConfig {
    /// The demo corpus that the README's first command imports on an empty
    /// archive, one part per game kind so that a newcomer's first `keil
    /// serve` shows each: 2,000 Keil games on side 7, 500 Go games on
    /// 19×19 and 500 Kaomi games on 7×7, from [`DEMO_SEED`] (plus 1 and 2),
    /// rulesets and komi varied by event. Generated at first start rather
    /// than kept in git; part `i` is the same as `keil generate --game
    /// KIND --games N --size S --seed 20240309+i`.
    pub fn demo() -> Vec<GeneratorConfig> {
        [
            (GameKind::Keil, 7, 2_000),
            (GameKind::Go, 19, 500),
            (GameKind::Kaomi, 7, 500),
        ]
        .into_iter()
        .zip(0..)
        .map(|((game, size, games), i)| GeneratorConfig {
            game,
            games,
            size,
            seed: DEMO_SEED + i,
            ..GeneratorConfig::default()
        })
        .collect()
    }
}

/// Why a configuration cannot be generated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// Occurs when the Keil side is outside 2..=13.
    #[error("board side {0} is outside 2..=13")]
    Size(u8),
    /// Occurs when the Go board size is outside 2..=19.
    #[error("Go board size {0} is outside 2..=19")]
    GoSize(u8),
    /// Occurs when the Kaomi board size is outside 2..=19.
    #[error("Kaomi board size {0} is outside 2..=19")]
    KaomiSize(u8),
    /// Occurs for a game this generator does not play yet.
    #[error("cannot generate {0} games")]
    Game(GameKind),
    /// Occurs when the resignation share is not a number in 0..=1.
    #[error("resignation share {0} is not in 0..=1")]
    ResignShare(f64),
}

/// How a generated game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameStatus {
    /// Ended by passes (two in a row; four under Go's Kee rules), or
    /// (Kaomi) with the full board; `RE` is the computed score.
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

/// The rules of an event.
#[derive(Clone, Copy)]
enum EventRules {
    Keil(Ruleset),
    Go {
        ruleset: GoRuleset,
        /// The `RU` value as the event writes it.
        ru: &'static str,
        /// Komi of even games.
        komi: HalfPoints,
        /// Komi of handicap games.
        handicap_komi: HalfPoints,
        /// Whether the weaker player gets handicap stones.
        handicaps: bool,
    },
    Kaomi {
        ruleset: KaomiRuleset,
        /// The `RU` value as the event writes it.
        ru: &'static str,
        /// Komi (Squared; 0 in the standard game).
        komi: HalfPoints,
    },
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
    rules: EventRules,
    /// Passes written the less usual way (Keil `[]`, Go `[tt]`).
    alt_pass: bool,
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
    board: AnyBoard,
    schedule: Rng,
    event: Option<Event>,
    index: u64,
    resign_per_million: u32,
}

impl Generator {
    /// A generator for `config`.
    ///
    /// # Errors
    /// [`ConfigError`] when the size or the resignation share is out of
    /// range, or the game is not one this generator plays.
    pub fn new(config: GeneratorConfig) -> Result<Generator, ConfigError> {
        let board = match config.game {
            GameKind::Keil => AnyBoard::Hex(Board::new(config.size).map_err(ConfigError::Size)?),
            GameKind::Go if config.size >= 2 => {
                AnyBoard::Square(SquareBoard::new(config.size).map_err(ConfigError::GoSize)?)
            }
            GameKind::Go => return Err(ConfigError::GoSize(config.size)),
            GameKind::Kaomi => AnyBoard::Square(
                SquareBoard::new(config.size)
                    .ok()
                    .filter(|_| GameKind::Kaomi.sizes().contains(&config.size))
                    .ok_or(ConfigError::KaomiSize(config.size))?,
            ),
            other => return Err(ConfigError::Game(other)),
        };
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
        let go = self.config.game == GameKind::Go;
        let series = rng.pick(if go { meta::GO_SERIES } else { meta::SERIES });
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
        let rules = match self.config.game {
            GameKind::Go => self.go_event_rules(),
            GameKind::Kaomi => {
                let c = &self.config;
                let (ruleset, ru, komi) =
                    kaomi::event_rules(c.kaomi_variant, c.komi, c.size, &mut self.schedule);
                EventRules::Kaomi { ruleset, ru, komi }
            }
            _ => self.keil_event_rules(),
        };
        let rng = &mut self.schedule;
        let name = match self.config.game {
            // Kaomi is played at the abstract-game events.
            GameKind::Kaomi => series
                .name
                .replace("Keil", "Kaomi")
                .replace("Hexagon", "Kaomi")
                .replace("кейлу", "каоми"),
            _ => series.name.to_string(),
        };
        Event {
            name: format!("{name} {year}"),
            place,
            start_day: day,
            days,
            rounds,
            round: 0,
            participants,
            rules,
            alt_pass: rng.below(3) == 0,
            pairings: Vec::new(),
            next: 0,
        }
    }

    /// The ruleset and komi of a new Keil event.
    fn keil_event_rules(&mut self) -> EventRules {
        let rng = &mut self.schedule;
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
        EventRules::Keil(rules)
    }

    /// The ruleset, `RU` spelling, komi and handicap policy of a new Go
    /// event.
    fn go_event_rules(&mut self) -> EventRules {
        let rng = &mut self.schedule;
        let ruleset = match self.config.go_ruleset {
            Some(r) => r,
            None => go::pick_ruleset(rng),
        };
        let ru = *rng.pick(go::ru_spellings(ruleset));
        let no_komi = rng.below(10) == 0;
        let (komi, handicap_komi) = match self.config.komi {
            Some(k) => (k, k),
            None if no_komi => (HalfPoints(0), HalfPoints(0)),
            None => (go::usual_komi(ruleset), HalfPoints(1)),
        };
        let handicaps =
            self.config.handicaps && go::max_handicap(self.config.size) >= 2 && rng.below(4) == 0;
        EventRules::Go {
            ruleset,
            ru,
            komi,
            handicap_komi,
            handicaps,
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
        let mut rng = Rng::new(self.config.seed, index);
        let game = Pairing {
            event: e,
            black: &meta::pool()[black],
            white: &meta::pool()[white],
            size: self.config.size,
            resign_per_million: self.resign_per_million,
        };
        let (record, status, result, plies) = match (self.board, e.rules) {
            (AnyBoard::Hex(board), EventRules::Keil(rules)) => game.keil(board, rules, &mut rng),
            (AnyBoard::Square(board), EventRules::Go { .. }) => game.go(board, &mut rng),
            (AnyBoard::Square(board), EventRules::Kaomi { ruleset, ru, komi }) => {
                game.kaomi(board, ruleset, (ru, komi), &mut rng)
            }
            _ => unreachable!("events are made for the generator's board"),
        };
        GeneratedGame {
            index,
            record,
            status,
            result,
            plies,
        }
    }
}

/// The strength of a player of `level` in the playout policies.
fn style(level: u32) -> Style {
    Style {
        tactics: 550_000 + level * 12_000,
    }
}

/// One game to play: the event, the players, what the configuration says.
struct Pairing<'a> {
    event: &'a Event,
    black: &'a meta::Player,
    white: &'a meta::Player,
    size: u8,
    resign_per_million: u32,
}

/// A generated record, how it ended, its result and its number of plies.
type Played = (String, GameStatus, GameResult, u32);

impl Pairing<'_> {
    /// A Keil game.
    fn keil(&self, board: &'static Board, rules: Ruleset, rng: &mut Rng) -> Played {
        let (pb, pw) = (self.black, self.white);
        let playout = play::play(board, rules, [style(pb.level), style(pw.level)], rng);
        let score = playout.game.score();
        let (moves, status, result) = self.ending(
            &playout.moves,
            score.winner(),
            score.margin(),
            Color::Black,
            rng,
        );
        let info = self.info(pb, pw, &result);
        let record = sgf::write_record(board, &rules, &info, moves, rng);
        (record, status, result, moves.len() as u32)
    }

    /// A Go game: even, or with handicap stones for the weaker player when
    /// the event gives them and the ranks differ by two or more.
    fn go(&self, board: &'static SquareBoard, rng: &mut Rng) -> Played {
        let EventRules::Go {
            ruleset,
            ru,
            komi,
            handicap_komi,
            handicaps,
        } = self.event.rules
        else {
            unreachable!("a Go event")
        };
        let (mut pb, mut pw) = (self.black, self.white);
        let mut handicap = 0;
        if handicaps && pb.level.abs_diff(pw.level) >= 2 {
            if pb.level > pw.level {
                std::mem::swap(&mut pb, &mut pw);
            }
            handicap = (pw.level - pb.level).min(go::max_handicap(self.size));
        }
        let stones: Vec<_> = if handicap >= 2 {
            go::handicap_points(self.size, handicap)
                .into_iter()
                .map(|(c, r)| {
                    board
                        .point_at(i32::from(c), i32::from(r))
                        .expect("handicap points are on the board")
                })
                .collect()
        } else {
            Vec::new()
        };
        let (game, first, komi) = if stones.is_empty() {
            (GoGame::new(board, ruleset, komi), Color::Black, komi)
        } else {
            let setup = GoPosition::from_stones(board, stones.iter().copied(), [])
                .expect("handicap points are distinct");
            (
                GoGame::from_setup(&setup, ruleset, handicap_komi, ToMove::Either),
                Color::White,
                handicap_komi,
            )
        };
        let playout = go::play(game, first, [style(pb.level), style(pw.level)], rng);
        let score = playout.game.score();
        let (moves, status, result) =
            self.ending(&playout.moves, score.winner(), score.margin(), first, rng);
        let info = self.info(pb, pw, &result);
        let go_info = sgf::GoInfo {
            ru,
            komi,
            handicap: &stones,
            first,
        };
        let record = sgf::write_go_record(board, &info, &go_info, moves, rng);
        (record, status, result, moves.len() as u32)
    }

    /// A Kaomi game, played to the full board.
    fn kaomi(
        &self,
        board: &'static SquareBoard,
        ruleset: KaomiRuleset,
        (ru, komi): (&str, HalfPoints),
        rng: &mut Rng,
    ) -> Played {
        let (pb, pw) = (self.black, self.white);
        let styles = [style(pb.level), style(pw.level)];
        let playout = kaomi::play(board, ruleset, komi, styles, rng);
        let result = playout.game.result().expect("played to the full board");
        let (moves, status, result) = self.ending(
            &playout.moves,
            result.winner,
            result.margin,
            Color::Black,
            rng,
        );
        let info = self.info(pb, pw, &result);
        let record = sgf::write_kaomi_record(board, &info, ru, komi, moves, rng);
        (record, status, result, moves.len() as u32)
    }

    /// The moves to write, how the game ended and its result: the counted
    /// result, or (a share of games with a winner) a resignation at the
    /// loser's turn somewhere in the second half.
    fn ending<'m>(
        &self,
        moves: &'m [Move],
        winner: Option<Color>,
        margin: HalfPoints,
        first: Color,
        rng: &mut Rng,
    ) -> (&'m [Move], GameStatus, GameResult) {
        let counted = GameResult::Counted { winner, margin };
        let Some(winner) = winner else {
            return (moves, GameStatus::Complete, counted);
        };
        let len = moves.len();
        if len >= 8 && rng.chance(self.resign_per_million) {
            let mut cut = len / 2 + rng.below(len / 2 - 2);
            // `cut` moves are kept; move `cut + 1` (index `cut`) would be
            // the loser's: `first` makes the even indices.
            let loser_parity = usize::from(winner == first);
            if cut % 2 != loser_parity {
                cut -= 1;
            }
            let result = GameResult::Resignation { winner };
            return (&moves[..cut], GameStatus::Resigned, result);
        }
        (moves, GameStatus::Complete, counted)
    }

    /// The game information shared by both games' records.
    fn info<'a>(
        &'a self,
        black: &'a meta::Player,
        white: &'a meta::Player,
        result: &'a GameResult,
    ) -> sgf::Info<'a> {
        let e = self.event;
        let day = e.start_day + i64::from((e.round - 1) * e.days / e.rounds);
        sgf::Info {
            size: self.size,
            black,
            white,
            event: &e.name,
            round: e.round,
            date: meta::format_date(day),
            place: e.place,
            result,
            alt_pass: e.alt_pass,
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
