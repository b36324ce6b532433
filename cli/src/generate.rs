//! `keil generate`: realistic Keil or Go games from a seed (crate keil-gen),
//! or real Go games under the 8 symmetries of the board (`--transform-of`,
//! keil-record's [`Record::to_sgf_transformed`](keil_record::Record::to_sgf_transformed)).

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use keil_container::{Expander, Limits, Member};
use keil_gen::{GameStatus, Generator, GeneratorConfig};
use keil_record::NameHint;
use keil_rules::{
    GameKind, GoRuleset, HalfPoints, KaomiVariant, RuMapped, Ruleset, SquareSymmetry,
};
use rayon::prelude::*;

/// Options of `keil generate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game: keil, go or kaomi.
    #[arg(long, default_value = "keil")]
    game: GameKind,
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Board size: Keil side 2..=13 (default 7, the 127-point board); Go
    /// 2..=19 (default 19).
    #[arg(long)]
    size: Option<u8>,
    /// Seed: the same seed and options give byte-identical output.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Play every game under this ruleset; by default events vary it.
    /// Keil: an RU value such as "Keil; linking=unopposed". Go: a ruleset
    /// as RU names it (japanese, korean, chinese, aga, nz, tromp-taylor,
    /// kee).
    #[arg(long)]
    ruleset: Option<String>,
    /// Komi for every game, in points (e.g. 6 or 6.5); by default events
    /// vary it (Keil: whole with the button and .5 without; Go: 6.5 or 7.5
    /// by ruleset, some 0, handicap games 0.5).
    #[arg(long)]
    komi: Option<HalfPoints>,
    /// Go: no handicap games (by default some events give the weaker
    /// player handicap stones).
    #[arg(long)]
    no_handicap: bool,
    /// Kaomi: play every game under this variant (standard or squared);
    /// by default events vary it.
    #[arg(long)]
    variant: Option<KaomiVariant>,
    /// Share of games that end by resignation, 0..=1.
    #[arg(long, default_value_t = 0.1)]
    resign_share: f64,
    /// Output: a directory (existing, or a path ending in '/') gets one
    /// file per game (.keil, .kaomi, or .sgf for Go); any other path gets one
    /// collection file.
    /// Standard output when absent.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Instead of generating games: read every record under this folder,
    /// file or archive (as `keil import` reads them) and write each Go game
    /// 8 times, under each symmetry of the square board (identity, 3
    /// rotations, 4 mirrors), `GN` ending in ` (t0)` … ` (t7)` (added when
    /// absent) so that `keil import --duplicates exact` stores 8 games.
    /// `--out` is then one collection file (standard output when absent).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["game", "games", "size", "seed", "ruleset", "komi", "no_handicap", "variant"])]
    transform_of: Option<PathBuf>,
}

/// Runs `keil generate`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(dir) = &args.transform_of {
        return transform_of(dir, args.out.as_deref());
    }
    let (mut ruleset, mut go_ruleset) = (None, None);
    if let Some(text) = &args.ruleset {
        match args.game {
            GameKind::Go => go_ruleset = Some(go_ruleset_of(text)?),
            _ => ruleset = Some(text.parse::<Ruleset>().context("--ruleset")?),
        }
    }
    let config = GeneratorConfig {
        game: args.game,
        games: args.games,
        size: args.size.unwrap_or_else(|| args.game.default_size()),
        seed: args.seed,
        ruleset,
        go_ruleset,
        komi: args.komi,
        kaomi_variant: args.variant,
        handicaps: !args.no_handicap,
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

/// A Go ruleset named as `RU` names it (`Japanese`, `tromp-taylor`, `TT`).
fn go_ruleset_of(text: &str) -> anyhow::Result<GoRuleset> {
    match GoRuleset::from_ru(Some(text)) {
        (r, RuMapped::Ru) => Ok(r),
        _ => bail!(
            "--ruleset {text:?} is not a Go ruleset: expected japanese, korean, chinese, aga, nz, tromp-taylor or kee"
        ),
    }
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
    let ext = keil_record::file_extension(generator.config().game);
    let mut summary = Summary::default();
    for game in generator {
        let path = dir.join(format!("{:0width$}.{ext}", game.index));
        fs::write(&path, &game.record)
            .with_context(|| format!("cannot write {}", path.display()))?;
        summary.add(&game);
    }
    Ok(summary)
}

/// `--transform-of`: every Go game under `dir`, 8 times.
fn transform_of(dir: &Path, out: Option<&Path>) -> anyhow::Result<()> {
    let members = read_members(dir)?;
    let mut w: Box<dyn Write> = match out {
        None => Box::new(BufWriter::new(io::stdout().lock())),
        Some(file) => Box::new(BufWriter::new(
            fs::File::create(file).with_context(|| format!("cannot create {}", file.display()))?,
        )),
    };
    let mut total = Transformed::default();
    for chunk in members.chunks(512) {
        let done: Vec<(String, Transformed)> = chunk
            .par_iter()
            .map(|(name, bytes)| transform(name, bytes))
            .collect();
        for (text, counts) in done {
            w.write_all(text.as_bytes())?;
            total.add(counts);
        }
    }
    w.flush()?;
    let Transformed {
        games,
        other,
        unreadable,
    } = total;
    eprintln!(
        "{games} Go games written under 8 symmetries ({} records); {other} game trees not Go on a board up to 19x19 and {unreadable} unreadable left out",
        games * 8
    );
    Ok(())
}

/// Every record file under `dir` as `(name, bytes)`, archives expanded as
/// `keil import` expands them; what cannot be read is said on standard
/// error and skipped.
fn read_members(dir: &Path) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let expander = Expander::new(Limits::default(), |p| NameHint::is_record_file(p));
    let mut members: Vec<(String, Vec<u8>)> = Vec::new();
    let mut take = |m: Member| {
        match m {
            Member::File(path) => match fs::read(&path) {
                // A record file may hold an archive: expanded as import does.
                Ok(bytes) => expander.expand_bytes(&path.display().to_string(), bytes, &mut |m| {
                    match m {
                        Member::Bytes { name, bytes } => members.push((name, bytes)),
                        Member::Problem(p) => eprintln!("skipped {}: {}", p.name, p.message),
                        Member::File(_) => {}
                    }
                    true
                }),
                Err(e) => {
                    eprintln!("skipped {}: {e}", path.display());
                    true
                }
            },
            Member::Bytes { name, bytes } => {
                members.push((name, bytes));
                true
            }
            Member::Problem(p) => {
                eprintln!("skipped {}: {}", p.name, p.message);
                true
            }
        }
    };
    expander
        .expand_path(dir, &mut take)
        .with_context(|| format!("cannot read {}", dir.display()))?;
    Ok(members)
}

/// Counts of `--transform-of`.
#[derive(Default)]
struct Transformed {
    /// Go games written 8 times.
    games: u64,
    /// Game trees that are not (not Go, or on a board over 19x19).
    other: u64,
    /// Game trees that are not readable records.
    unreadable: u64,
}

impl Transformed {
    fn add(&mut self, o: Transformed) {
        self.games += o.games;
        self.other += o.other;
        self.unreadable += o.unreadable;
    }
}

/// The records of one member, each Go game under the 8 symmetries of the
/// square board, and the counts.
fn transform(name: &str, bytes: &[u8]) -> (String, Transformed) {
    let mut text = String::new();
    let mut counts = Transformed::default();
    for record in keil_record::read_records_with(bytes, NameHint::of(name)) {
        let Ok(record) = record else {
            counts.unreadable += 1;
            continue;
        };
        let images: Option<Vec<String>> = SquareSymmetry::all()
            .map(|s| record.to_sgf_transformed(s, &format!(" (t{s})")))
            .collect();
        match images {
            Some(images) => {
                counts.games += 1;
                text.extend(images);
            }
            None => counts.other += 1,
        }
    }
    (text, counts)
}
