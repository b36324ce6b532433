//! `keil generate`: realistic games from a seed (crate keil-gen).

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Context;
use keil_gen::{GameStatus, Generator, GeneratorConfig};
use keil_rules::{HalfPoints, Ruleset};

/// Options of `keil generate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Board side (2..=13; 7 is the usual 127-point board).
    #[arg(long, default_value_t = 7)]
    size: u8,
    /// Seed: the same seed and options give byte-identical output.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Play every game under this ruleset (an RU value such as
    /// "Keil; linking=unopposed"); by default events vary it.
    #[arg(long)]
    ruleset: Option<Ruleset>,
    /// Komi for every game, in points (e.g. 6 or 6.5); by default events
    /// vary it, whole with the button and .5 without.
    #[arg(long)]
    komi: Option<HalfPoints>,
    /// Share of games that end by resignation, 0..=1.
    #[arg(long, default_value_t = 0.1)]
    resign_share: f64,
    /// Output: a directory (existing, or a path ending in '/') gets one
    /// .keil file per game; any other path gets one collection file.
    /// Standard output when absent.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Runs `keil generate`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let config = GeneratorConfig {
        games: args.games,
        size: args.size,
        seed: args.seed,
        ruleset: args.ruleset,
        komi: args.komi,
        resign_share: args.resign_share,
    };
    let generator = Generator::new(config).context("invalid options")?;
    let summary = match &args.out {
        None => write_all(generator, &mut io::stdout().lock())?,
        Some(dir) if dir.is_dir() || dir.as_os_str().to_string_lossy().ends_with('/') => {
            write_dir(generator, dir)?
        }
        Some(file) => {
            let f = fs::File::create(file)
                .with_context(|| format!("cannot create {}", file.display()))?;
            let mut w = BufWriter::new(f);
            let s = write_all(generator, &mut w)?;
            w.flush()
                .with_context(|| format!("cannot write {}", file.display()))?;
            s
        }
    };
    if args.out.is_some() {
        eprintln!(
            "{} games ({} resigned), {} plies",
            summary.games, summary.resigned, summary.plies
        );
    }
    Ok(())
}

/// Counts of what was written.
#[derive(Default)]
struct Summary {
    games: u64,
    resigned: u64,
    plies: u64,
}

impl Summary {
    fn add(&mut self, game: &keil_gen::GeneratedGame) {
        self.games += 1;
        self.resigned += u64::from(game.status == GameStatus::Resigned);
        self.plies += u64::from(game.plies);
    }
}

fn write_all(generator: Generator, out: &mut impl Write) -> anyhow::Result<Summary> {
    let mut summary = Summary::default();
    for game in generator {
        out.write_all(game.record.as_bytes())?;
        summary.add(&game);
    }
    out.flush()?;
    Ok(summary)
}

fn write_dir(generator: Generator, dir: &PathBuf) -> anyhow::Result<Summary> {
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let width = generator
        .config()
        .games
        .saturating_sub(1)
        .to_string()
        .len()
        .max(5);
    let mut summary = Summary::default();
    for game in generator {
        let path = dir.join(format!("{:0width$}.keil", game.index));
        fs::write(&path, &game.record)
            .with_context(|| format!("cannot write {}", path.display()))?;
        summary.add(&game);
    }
    Ok(summary)
}
