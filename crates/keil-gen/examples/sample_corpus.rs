//! Generates a small corpus and prints it, with a summary on stderr.
//!
//! `cargo run -p keil-gen --example sample_corpus -- [GAMES] [SIDE] [SEED]`

use std::time::Instant;

use keil_gen::{GameStatus, Generator, GeneratorConfig};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut arg = |default: u64| {
        args.next()
            .map_or(default, |a| a.parse().expect("a number"))
    };
    let config = GeneratorConfig {
        games: arg(5),
        size: arg(7) as u8,
        seed: arg(0),
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
