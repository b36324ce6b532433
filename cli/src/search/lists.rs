//! `keil search games` and `keil search text`: lists of games, a line per
//! game ([`crate::game_line::summary`]).

use keil_archive::{Order, Page};

use super::common::{Common, open};
use crate::game_line;
use crate::options::FilterArgs;

/// The arguments of `keil search games`.
#[derive(clap::Args, Debug)]
pub struct GamesArgs {
    #[command(flatten)]
    filter: FilterArgs,
    /// Oldest first (default newest first).
    #[arg(long)]
    oldest_first: bool,
    /// Continue after this cursor (printed after a full page).
    #[arg(long)]
    after: Option<String>,
    #[command(flatten)]
    common: Common,
}

/// The arguments of `keil search text`.
#[derive(clap::Args, Debug)]
pub struct TextArgs {
    /// The query.
    query: String,
    #[command(flatten)]
    common: Common,
}

/// Lists the games that pass the filters, a page at a time.
pub(super) fn games(args: GamesArgs) -> anyhow::Result<()> {
    let GamesArgs {
        filter,
        oldest_first,
        after,
        common,
    } = args;
    let archive = open(&common)?;
    let page = Page {
        order: if oldest_first {
            Order::Ascending
        } else {
            Order::Descending
        },
        limit: common.limit,
        after: after.map(|a| a.parse()).transpose()?,
        before: None,
    };
    let list = archive.games().list(&filter.filter()?, &page)?;
    if common.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "games": list.games,
                "next": list.next.map(|c| c.to_string()),
            }))?
        )?;
        return Ok(());
    }
    for g in &list.games {
        outln!("{}", game_line::summary(g))?;
    }
    if let Some(next) = list.next {
        outln!("next page: --after {next}")?;
    }
    Ok(())
}

/// Lists the games whose text matches, best first, with their scores.
pub(super) fn text(args: TextArgs) -> anyhow::Result<()> {
    let TextArgs { query, common } = args;
    let archive = open(&common)?;
    let hits = archive.search_text(&query, common.limit)?;
    if common.json {
        outln!("{}", serde_json::to_string_pretty(&hits)?)?;
        return Ok(());
    }
    for h in &hits {
        outln!("{:>6.2}  {}", h.score, game_line::summary(&h.game))?;
    }
    Ok(())
}
