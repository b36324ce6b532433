//! Generates a small corpus and prints it, with a summary and the
//! throughput on stderr.
//!
//! `cargo run --release -p keil-gen --example sample_corpus -- [GAMES] [SIZE] [SEED] [GAME]`
//!
//! `GAME` is `keil` (the default, side 7) or `go` (e.g. size 9 or 19):
//! `cargo run --release -p keil-gen --example sample_corpus -- 2000 19 1 go > /dev/null`.

use std::time::Instant;

use keil_gen::{GameStatus, Generator, GeneratorConfig};
use keil_rules::GameKind;

fn main() {
    let mut args = std::env::args().skip(1);
    let games = args
        .next()
        .map_or(5, |a| a.parse().expect("a number of games"));
    let size = args.next().map(|a| a.parse::<u8>().expect("a board size"));
    let seed = args.next().map_or(0, |a| a.parse().expect("a seed"));
    let game: GameKind = args
        .next()
        .map_or(GameKind::Keil, |a| a.parse().expect("keil or go"));
    let config = GeneratorConfig {
        game,
        games,
        size: size.unwrap_or_else(|| game.default_size()),
        seed,
        ..GeneratorConfig::default()
    };
    let start = Instant::now();
    let (mut plies, mut resigned, mut games) = (0u64, 0u64, 0u64);
    for game in Generator::new(config).expect("a valid configuration") {
        print!("{}", game.record);
        plies += u64::from(game.plies);
        resigned += u64::from(game.status == GameStatus::Resigned);
        games += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "{games} games, {resigned} resigned, {:.1} plies/game, {:.0} games/s",
        plies as f64 / games.max(1) as f64,
        games as f64 / secs
    );
}
