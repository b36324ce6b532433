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
        /// The name it stands for (shown when only ALIAS has games).
        name: String,
        /// Print the outcome as JSON.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.what {
        What::Alias {
            db,
            alias,
            name,
            json,
        } => {
            if !Archive::exists(db.location(None)) {
                anyhow::bail!("no archive in {db}");
            }
            let archive = Archive::open(db.location(None))
                .with_context(|| format!("opening archive {db}"))?;
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
    }
}
