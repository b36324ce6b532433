//! What every search shares: the options [`Common`], the archive opened
//! for reading ([`open`]) and the history printed by year.

use anyhow::{Context, bail};
use keil_archive::Archive;

/// Options every search takes.
#[derive(clap::Args, Debug)]
pub struct Common {
    /// The archive directory.
    #[arg(long)]
    pub db: crate::archive::Db,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// At most this many answers.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Keep the position and pattern indexes' derived copies in this
    /// directory, as `keil serve --cache-dir` does (created if needed):
    /// the next search maps them instead of deriving them from every game
    /// again (at a million 19×19 games, about a second instead of about a
    /// minute for a pattern search). A cache, never trusted over the
    /// archive: a stale one is caught up or rebuilt.
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<std::path::PathBuf>,
}

/// The archive a search reads, with its derived indexes cached in
/// `--cache-dir` when given.
pub(super) fn open(common: &Common) -> anyhow::Result<Archive> {
    let db = &common.db;
    if !Archive::exists(db.location(None)) {
        bail!("no archive at {db} (create one with keil import)");
    }
    let archive = crate::archive::open_for_reading(db)?;
    if let Some(dir) = &common.cache_dir {
        archive
            .cache_in(dir)
            .with_context(|| format!("cannot use cache directory {}", dir.display()))?;
    }
    Ok(archive)
}

/// A search's history for people: a line per year (none when not asked
/// for).
pub(super) fn print_history(history: Option<&[keil_archive::YearCount]>) -> std::io::Result<()> {
    let Some(years) = history else {
        return Ok(());
    };
    outln!("by year:")?;
    for y in years {
        outln!(
            "  {:<8} {:>7} games  B {} / W {}",
            y.year.map_or("undated".to_string(), |y| y.to_string()),
            y.games,
            y.black_wins,
            y.white_wins
        )?;
    }
    Ok(())
}
