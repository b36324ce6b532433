//! `keil search players`: players by name, and the profile of the best
//! match.

use keil_archive::{PlayerHit, PlayerProfile};

use super::common::{Common, open};

/// The arguments of `keil search players`.
#[derive(clap::Args, Debug)]
pub struct PlayersArgs {
    /// A name or part of one.
    query: String,
    /// Show the profile of the best match (wins and losses by colour,
    /// dates, frequent opponents).
    #[arg(long)]
    profile: bool,
    #[command(flatten)]
    common: Common,
}

/// Searches the players, then prints the hits and the profile.
pub(super) fn run(args: PlayersArgs) -> anyhow::Result<()> {
    let PlayersArgs {
        query,
        profile,
        common,
    } = args;
    let archive = open(&common)?;
    let hits = archive.players().search(&query, common.limit)?;
    let profile = match (profile, hits.first()) {
        (true, Some(h)) => archive.players().profile(h.id)?,
        _ => None,
    };
    if common.json {
        let v = serde_json::json!({ "players": hits, "profile": profile });
        outln!("{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    print_hits(&hits)?;
    if let Some(p) = profile {
        print_profile(&p)?;
    }
    Ok(())
}

/// A line per player found: id, name, games, years and ranks (what tells
/// apart the people one name answers to) and how the name matched.
fn print_hits(hits: &[PlayerHit]) -> std::io::Result<()> {
    for h in hits {
        outln!(
            "{:>6}  {:<30} {:>6} games  {:<9} {:<7} ({:?})",
            h.id,
            h.name,
            h.games,
            h.span.years(),
            h.span.ranks.join("\u{2013}"),
            h.matched
        )?;
    }
    Ok(())
}

/// A player's profile: games and dates, results by colour, spellings,
/// games against themself and the most frequent opponents.
fn print_profile(p: &PlayerProfile) -> std::io::Result<()> {
    outln!(
        "\n{} ({} games, {} to {})",
        p.name,
        p.games,
        p.first_date.as_deref().unwrap_or("?"),
        p.last_date.as_deref().unwrap_or("?")
    )?;
    for (c, r) in [("Black", &p.as_black), ("White", &p.as_white)] {
        outln!(
            "  as {c}: {} games, {} wins, {} losses",
            r.games,
            r.wins,
            r.losses
        )?;
    }
    if p.spellings.len() > 1 {
        let written: Vec<String> = p
            .spellings
            .iter()
            .map(|s| format!("{} ({})", s.name, s.games))
            .collect();
        outln!("  written as: {}", written.join(", "))?;
    }
    if p.self_play > 0 {
        outln!(
            "  against themself: {} games (neither won nor lost)",
            p.self_play
        )?;
    }
    outln!("  most frequent opponents:")?;
    for o in &p.opponents {
        outln!(
            "    {:<30} {:>4} games  +{} -{}",
            o.name,
            o.games,
            o.wins,
            o.losses
        )?;
    }
    Ok(())
}
