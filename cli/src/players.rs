//! `keil players`: the operator's word on who is who.

use anyhow::Context;
use keil_archive::Archive;

/// Manage player identities.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub what: What,
}

/// The `keil players` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum What {
    /// Make ALIAS another name of the player NAME names (`"AlphaGo Master"
    /// "AlphaGo"`): their games, spellings and results become one
    /// player's, now and in later imports. Case, spaces and punctuation
    /// never separate two names (`Ke Jie` is `KeJie` without an alias).
    Alias {
        /// The archive: a directory, or a PostgreSQL URL.
        #[arg(long)]
        db: crate::archive::Db,
        /// The other name.
        alias: String,
        /// The name it stands for (shown when only ALIAS has games, as
        /// `keil players name` sets it).
        name: String,
        /// Print the outcome as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show the player PERSON names by NAME everywhere (player page,
    /// lists, suggestions), whatever the records write; `--auto` goes back
    /// to the spelling most of the player's records use (the default).
    Name {
        /// The archive: a directory, or a PostgreSQL URL.
        #[arg(long)]
        db: crate::archive::Db,
        /// The player: a name as the records write it (any spelling, an
        /// alias, the name shown), or `#ID` (the id in the player API).
        person: String,
        /// The name to show.
        #[arg(required_unless_present = "auto", conflicts_with = "auto")]
        name: Option<String>,
        /// Show the spelling most of the player's records use again.
        #[arg(long)]
        auto: bool,
    },
    /// List pairs of players that may be one person (names with the same
    /// words in another order, the same last word, or one letter apart;
    /// shared opponents, near years, never playing each other), with the
    /// evidence and the `keil players alias` command that would make each
    /// pair one. Merges nothing.
    SuggestAliases {
        /// The archive: a directory, or a PostgreSQL URL.
        #[arg(long)]
        db: crate::archive::Db,
        /// Pairs listed at most, best first.
        #[arg(long, default_value_t = 50)]
        limit: usize,
        /// Print the pairs as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Opens the archive `db`, which must exist.
fn open(db: &crate::archive::Db) -> anyhow::Result<Archive> {
    if !Archive::exists(db.location(None)) {
        anyhow::bail!("no archive in {db}");
    }
    Archive::open(db.location(None)).with_context(|| format!("opening archive {db}"))
}

/// A name as a shell word: in double quotes, with `"`, `\`, `$` and `` ` ``
/// escaped.
fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// A person as a line of a suggestion: `"Honinbo Shusaku" (#12): 400
/// games, 1846–1862, 7d`.
fn person_line(p: &keil_archive::PersonChoice) -> String {
    let plural = if p.games == 1 { "" } else { "s" };
    let mut line = format!("{} (#{}): {} game{plural}", quoted(&p.name), p.id, p.games);
    let years = p.span.years();
    if !years.is_empty() {
        line.push_str(&format!(", {years}"));
    }
    if !p.span.ranks.is_empty() {
        line.push_str(&format!(", {}", p.span.ranks.join("\u{2013}")));
    }
    line
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.what {
        What::Alias {
            db,
            alias,
            name,
            json,
        } => {
            let archive = open(&db)?;
            let report = archive.add_alias(&alias, &name)?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&report)?)?;
            } else if report.unchanged {
                outln!("{alias:?} already names the same player as {name:?}")?;
            } else if report.merged {
                outln!(
                    "{alias:?} is now {name:?}: two players merged into player {}",
                    report.person.map(|p| p.to_string()).unwrap_or_default()
                )?;
            } else {
                outln!("{alias:?} is now {name:?} (also for later imports)")?;
            }
            Ok(())
        }
        What::Name {
            db,
            person,
            name,
            auto,
        } => {
            let archive = open(&db)?;
            let name = if auto { None } else { name };
            let id = archive.set_player_name(&person, name.as_deref())?;
            let shown = archive
                .players()
                .profile(id)?
                .map(|p| p.name)
                .unwrap_or_default();
            match name {
                Some(_) => outln!("player #{id} is now shown as {shown:?}")?,
                None => outln!(
                    "player #{id} is shown as {shown:?}, the spelling most of its records use"
                )?,
            }
            Ok(())
        }
        What::SuggestAliases { db, limit, json } => {
            let archive = open(&db)?;
            let pairs = archive.players().suggest_aliases(limit)?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&pairs)?)?;
                return Ok(());
            }
            if pairs.is_empty() {
                outln!("no likely pairs: every player's name and games tell them apart")?;
            }
            for p in &pairs {
                outln!("{}", person_line(&p.alias))?;
                outln!("{}", person_line(&p.name))?;
                let evidence: Vec<String> = p.evidence.iter().map(ToString::to_string).collect();
                outln!("  why: {}", evidence.join("; "))?;
                outln!(
                    "  confirm: keil players alias --db {} {} {}",
                    quoted(&db.to_string()),
                    quoted(&p.alias.name),
                    quoted(&p.name.name)
                )?;
                outln!()?;
            }
            Ok(())
        }
    }
}
