//! `keil search pattern`: the games in which a pattern occurs, the
//! continuation table and the games at their first match.

use anyhow::Context;
use keil_archive::{
    Archive, GameKind, MoveStats, Pattern, PatternAnswer, PatternMode, PatternQuery,
};

use super::common::{Common, open, print_history};
use crate::game_line;
use crate::options::{ExploreArgs, FilterArgs};

/// The arguments of `keil search pattern`.
#[derive(clap::Args, Debug)]
pub struct PatternArgs {
    /// The pattern: rows `ROW/ROW/...[@POINT]` (square boards) or
    /// `VALUE:POINT[,POINT...]` items (every board); see below.
    pattern: String,
    /// Where it may be placed: anywhere, corner, side, centre (or
    /// center) or fixed.
    #[arg(long, default_value = "anywhere", value_parser = parse_mode)]
    mode: PatternMode,
    /// Match the board's symmetric images too (8 on the square, 12 on
    /// the hexagon): the default.
    #[arg(long, overrides_with = "no_symmetry")]
    symmetry: bool,
    /// Match the pattern only as drawn (no rotation or reflection).
    #[arg(long, overrides_with = "symmetry")]
    no_symmetry: bool,
    /// `swap` (the default): also match with black and white
    /// exchanged; `same`: only in the colours drawn.
    #[arg(long, default_value = "swap", value_parser = ["same", "swap"])]
    colors: String,
    /// The games searched (--kind and --size choose the pattern's
    /// board: default go, and the kind's usual size, Go 19, Keil 7,
    /// Kaomi 7).
    #[command(flatten)]
    filter: FilterArgs,
    /// The explorer's options.
    #[command(flatten)]
    explore: ExploreArgs,
    /// Continue after this cursor (printed after a full page).
    #[arg(long)]
    after: Option<String>,
    #[command(flatten)]
    common: Common,
}

/// The notation of `keil search pattern`, with examples.
pub(super) const HELP: &str = "\
Pattern notation (cells: X black, O white, . empty, * any, x black or empty,
o white or empty; the points given are the region searched):

  Rows (Go, Kaomi): ROW/ROW/...[@POINT], every row as wide; the top-left
  cell at the SGF point POINT (default aa, the top-left corner; in side mode
  ba, in centre mode bb).
  Points (every board): VALUE:POINT[,POINT...] items separated by spaces,
  points as records write them (Go SGF dd, Keil g7).

Modes: corner (in the corner it is drawn in, under symmetry any corner),
side (sliding along the one edge it touches), centre (touching no edge),
anywhere (where it fits), fixed (where it is drawn).

Examples:
  The 3-3 invasion under a 4-4 stone, in any corner of a 19x19 board:
    keil search pattern --db DB --mode corner '...../...../..O../...X./.....'
  A Go point list: black on a 4-4 point, white on the 3-3 point inside it:
    keil search pattern --db DB 'X:dd O:cc'
  A Keil shape, anywhere on the hexagon of side 7:
    keil search pattern --db DB --kind keil 'X:g7 O:h8 .:g8'
  On 9x9 Go, by one player, as drawn only:
    keil search pattern --db DB --size 9 --no-symmetry --player Kim 'X:cc O:dc,cd'
";

fn parse_mode(s: &str) -> Result<PatternMode, String> {
    s.parse()
        .map_err(|e: keil_archive::PatternError| e.to_string())
}

/// The board a pattern is drawn on.
#[derive(Clone, Copy)]
struct Board {
    kind: GameKind,
    size: u8,
}

/// Loads the pattern index, reads the query, searches, then prints the
/// answer.
pub(super) fn run(args: PatternArgs) -> anyhow::Result<()> {
    let archive = open(&args.common)?;
    if args.common.cache_dir.is_some() {
        // From the cache's snapshot when it has one (then caught up), else
        // derived and the snapshot written for the next.
        archive
            .patterns()
            .load()
            .context("cannot read the pattern index")?;
    }
    let json = args.common.json;
    let (q, board) = query(args)?;
    let answer = search(&archive, &q)?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&answer)?)?;
        return Ok(());
    }
    print_answer(&answer, board, q.mode)?;
    Ok(())
}

/// The archive's query: the pattern read on its board (`--kind`, default
/// Go; `--size`, default the kind's usual), with the explorer's options,
/// the filters and the page.
fn query(args: PatternArgs) -> anyhow::Result<(PatternQuery, Board)> {
    let filter = args.filter.filter()?;
    let kind = filter.kind.unwrap_or(GameKind::Go);
    let size = filter.size.unwrap_or(kind.default_size());
    let text = &args.pattern;
    let pattern =
        Pattern::parse(kind, size, text, args.mode).with_context(|| format!("pattern {text:?}"))?;
    let q = PatternQuery {
        // The last of --symmetry and --no-symmetry wins; neither: on.
        symmetry: args.symmetry || !args.no_symmetry,
        swap_colors: args.colors == "swap",
        filter,
        limit: args.common.limit,
        cursor: args.after,
        explore: args.explore.options(),
        ..PatternQuery::new(pattern, args.mode)
    };
    Ok((q, Board { kind, size }))
}

/// Runs the search; a pattern the search refuses is named in the error.
fn search(archive: &Archive, q: &PatternQuery) -> anyhow::Result<PatternAnswer> {
    archive.patterns().search(q).map_err(|e| match e {
        // Its message says what to fix (e.g. draw a corner pattern in a
        // corner).
        keil_archive::Error::Pattern(p) => {
            anyhow::Error::new(p).context(format!("pattern {}", q.pattern))
        }
        e => e.into(),
    })
}

/// A pattern search's answer for people: totals, the continuation table,
/// the history, the top, recent and listed games, the next page's cursor.
fn print_answer(a: &PatternAnswer, board: Board, mode: PatternMode) -> std::io::Result<()> {
    outln!(
        "{} games, {} hits of {} ({} {}, {} mode, {} placements)",
        a.total_games,
        a.total_hits,
        a.pattern,
        board.kind.name(),
        board.size,
        mode.code(),
        a.placements
    )?;
    print_continuations(a)?;
    print_history(a.history.as_deref())?;
    for (title, list) in [
        ("top games", &a.top_games),
        ("recent games", &a.recent_games),
        ("games", &a.games),
    ] {
        if !list.is_empty() {
            outln!()?;
            outln!("{title}:")?;
            for h in list {
                outln!("{}", game_line::pattern_hit(h))?;
            }
        }
    }
    if let Some(next) = &a.next_cursor {
        outln!("next page: --after {next}")?;
    }
    Ok(())
}

/// The continuation table (Kombilo's): a row per point played next in the
/// region, by Black and by White, with tenuki and wins (none when no hit
/// has a continuation).
fn print_continuations(a: &PatternAnswer) -> std::io::Result<()> {
    if a.continuations.is_empty() {
        return Ok(());
    }
    outln!()?;
    outln!(
        "{:<5} {:<10} {:>6} {:>7} {:>6} {:>6}   {:>6} {:>7} {:>6} {:>6}",
        "label",
        "point",
        "Black",
        "tenuki",
        "B wins",
        "W wins",
        "White",
        "tenuki",
        "B wins",
        "W wins"
    )?;
    let stats = |s: &MoveStats| {
        format!(
            "{:>6} {:>7} {:>6} {:>6}",
            s.count, s.after_tenuki, s.black_wins, s.white_wins
        )
    };
    for c in &a.continuations {
        let point = if c.display == c.point {
            c.display.clone()
        } else {
            format!("{} ({})", c.display, c.point)
        };
        outln!(
            "{:<5} {:<10} {}   {}",
            c.label,
            point,
            stats(&c.black),
            stats(&c.white)
        )?;
    }
    Ok(())
}
