//! `keil search games` and `keil search text`: lists of games, a line per
//! game ([`crate::game_line::summary`]).

use keil_archive::{Budget, Order, Page, TextCursor, TextMatch, TextPage};

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
    /// The query (a four-digit year among other words filters by date:
    /// `Shusaku 1846`).
    query: String,
    /// Continue after this cursor (printed after a full page).
    #[arg(long)]
    after: Option<String>,
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

/// Lists the games whose text matches, best first, with their scores and
/// where each matched (the field, the excerpt with the query's words in
/// `[...]`, a comment's move), then the total (with the years the query
/// filters by) and the next page's cursor.
pub(super) fn text(args: TextArgs) -> anyhow::Result<()> {
    let TextArgs {
        query,
        after,
        common,
    } = args;
    let after = after
        .map(|a| {
            TextCursor::parse(&a).ok_or_else(|| {
                anyhow::anyhow!(
                    "--after {a:?} is not a page of a text search: give the cursor printed after the page before"
                )
            })
        })
        .transpose()?;
    let archive = open(&common)?;
    let page = TextPage {
        limit: common.limit,
        after,
    };
    let found = archive.search_text_page(&query, &page, &Budget::unlimited())?;
    if common.json {
        outln!("{}", serde_json::to_string_pretty(&found)?)?;
        return Ok(());
    }
    for h in &found.hits {
        outln!("{:>6.2}  {}", h.score, game_line::summary(&h.game))?;
        for m in &h.matches {
            outln!("        {}", match_line(m))?;
        }
    }
    let years: Vec<String> = found.years.iter().map(u16::to_string).collect();
    let of = if years.is_empty() {
        String::new()
    } else {
        format!(" of {}", years.join(" or "))
    };
    outln!(
        "{} game{}{of}",
        found.total,
        if found.total == 1 { "" } else { "s" }
    )?;
    if let Some(next) = found.next {
        outln!("next page: --after {next}")?;
    }
    Ok(())
}

/// Where a game matched, in one line: `comment, move 66: the [ear-reddening] move`.
fn match_line(m: &TextMatch) -> String {
    let mut line = m.field.name().to_string();
    if let Some(n) = m.node {
        line.push_str(&format!(", move {}", n.ply));
        if let Some(v) = n.variation {
            line.push_str(&format!(" of variation {v}"));
        }
    }
    line.push_str(": ");
    for (text, marked) in m.excerpt.segments() {
        if marked {
            line.push_str(&format!("[{text}]"));
        } else {
            line.push_str(text);
        }
    }
    line
}
