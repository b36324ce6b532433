//! `keil search position`: the games that reached a position, and what
//! was played next.

use anyhow::Context;
use keil_archive::{PositionAnswer, PositionQuery};

use super::common::{Common, open, print_history};
use crate::game_line;
use crate::options::{ExploreArgs, FilterArgs};

/// The arguments of `keil search position`.
#[derive(clap::Args, Debug)]
pub struct PositionArgs {
    /// The position in position notation, e.g.
    /// `7/8/9/10/11/12/6b6/12/11/10/9/8/7 w`: suffixes ` b`/` w` restrict
    /// the player to move, ` +`/` -` the button taken or not; an absent
    /// suffix matches either value.
    position: String,
    /// Match the symmetric images too (12 on Keil's hexagon, 8 on Go's
    /// square).
    #[arg(long)]
    symmetry: bool,
    /// `swap`: also match the position with colours exchanged (and the
    /// player to move); hits matched so are marked `swapped`.
    #[arg(long, default_value = "same", value_parser = ["same", "swap"])]
    colors: String,
    /// The games searched. `--kind` is the game of the position:
    /// `keil` (columns), `go` or `kaomi` (rows, e.g.
    /// `9/9/2b6/9/4w4/9/9/9/9 b`); default: the kind whose notation
    /// reads it (Keil or Go; a Kaomi query needs `--kind kaomi`, its
    /// rows read as Go's too). `--size` is not read: the board's.
    #[command(flatten)]
    filter: FilterArgs,
    /// The explorer's options.
    #[command(flatten)]
    explore: ExploreArgs,
    /// Continue after this cursor.
    #[arg(long)]
    after: Option<String>,
    #[command(flatten)]
    common: Common,
}

/// Reads the query, searches the position index, then prints the answer.
pub(super) fn run(args: PositionArgs) -> anyhow::Result<()> {
    args.explore.main_lines_only()?;
    let archive = open(&args.common)?;
    let json = args.common.json;
    let q = query(args)?;
    let answer = archive.positions().search(&q)?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&answer)?)?;
        return Ok(());
    }
    print_answer(&answer, &q)?;
    Ok(())
}

/// The archive's query: the position in its notation (its kind from
/// `--kind`, else the notation's), with the explorer's options, the
/// filters and the page.
fn query(args: PositionArgs) -> anyhow::Result<PositionQuery> {
    let filter = args.filter.filter()?;
    let position = &args.position;
    let q = PositionQuery::parse_inferred(filter.kind, position)
        .with_context(|| format!("position {position:?}"))?;
    let q = PositionQuery {
        symmetry: args.symmetry,
        swap_colors: args.colors == "swap",
        ..q
    };
    Ok(PositionQuery {
        filter,
        limit: args.common.limit,
        cursor: args.after,
        ..args.explore.position(q)?
    })
}

/// The answer for people: the total, the moves played next, the history,
/// the top, recent and listed games, the next page's cursor.
fn print_answer(answer: &PositionAnswer, q: &PositionQuery) -> std::io::Result<()> {
    outln!("{} games reached {}", answer.total_games, q.notation())?;
    for c in &answer.continuations {
        outln!(
            "  {} {:<8} {:>6} games  ({:.1}%)  B {} / W {}",
            game_line::matched(c.to_move, c.button_taken),
            c.mv,
            c.games,
            c.share * 100.0,
            c.black_wins,
            c.white_wins
        )?;
    }
    print_history(answer.history.as_deref())?;
    for (title, list) in [
        ("top games", &answer.top_games),
        ("recent games", &answer.recent_games),
    ] {
        if !list.is_empty() {
            outln!("{title}:")?;
            for h in list {
                outln!("{}", game_line::position_hit(h))?;
            }
        }
    }
    if !answer.top_games.is_empty() || !answer.recent_games.is_empty() {
        outln!("games:")?;
    }
    for h in &answer.games {
        outln!("{}", game_line::position_hit(h))?;
    }
    if let Some(next) = &answer.next_cursor {
        outln!("next page: --after {next}")?;
    }
    Ok(())
}
