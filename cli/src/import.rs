//! `keil import`: store valid games in an archive, report the others.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use keil_archive::{
    Archive, Duplicates, ImportOptions, ImportProgress, ImportReport, ImportSource,
};

/// Import records into an archive.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The archive: a directory (created if missing), or a PostgreSQL URL
    /// (its schema created if missing).
    #[arg(long)]
    pub db: crate::archive::Db,
    /// Files, directories (searched for .keil, .kaomi and .sgf files, and
    /// for archives and SGF text by content), archives (.zip, .tar, .tar.gz,
    /// .tar.bz2, .tar.xz, .7z, split .7z.001), compressed collections (.gz,
    /// .bz2, .xz, .zst), or `-` for standard input. Archives are read
    /// recursively; a member is named `archive!path` in reports.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Games per transaction.
    #[arg(long, default_value_t = 2000)]
    pub batch: usize,
    /// Print the report as JSON (refused games included) instead of a
    /// summary.
    #[arg(long)]
    pub json: bool,
    /// Archive bombs: the most uncompressed bytes read from archives and
    /// compressed files in all, in MiB.
    #[arg(long, default_value_t = keil_container::Limits::default().max_total_bytes >> 20)]
    pub max_total_mib: u64,
    /// Archive bombs: the most uncompressed bytes of one member (held in
    /// memory whole), in MiB.
    #[arg(long, default_value_t = keil_container::Limits::default().max_member_bytes >> 20)]
    pub max_member_mib: u64,
    /// Archive bombs: the most members read from archives in all.
    #[arg(long, default_value_t = keil_container::Limits::default().max_members)]
    pub max_members: u64,
    /// Archive bombs: the most containers inside containers (`x.tar.gz`
    /// counts two).
    #[arg(long, default_value_t = keil_container::Limits::default().max_depth)]
    pub max_depth: u32,
    /// What counts as a game already stored: `signature` (the same record,
    /// or the same game with other headers: Kombilo's Dyer signature; the
    /// other record is linked to the stored game) or `exact` (the same
    /// record only).
    #[arg(long, value_enum, default_value_t = DuplicatesArg::Signature)]
    pub duplicates: DuplicatesArg,
    /// A file of player aliases, one `alias = name` per line (`#` starts a
    /// comment), added before the games are read (as `keil players
    /// alias`).
    #[arg(long)]
    pub aliases: Option<PathBuf>,
    /// The collection the stored games go to (a KGS set, Tygem, a
    /// professional collection): what `--collection` filters and the
    /// pages count by. Default: the folder or archive each game was read
    /// from, as named here (`kgs/` is `kgs`, `KGS-2004.tar.bz2` is
    /// `KGS-2004`, standard input `standard input`).
    #[arg(long, value_parser = parse_collection)]
    pub collection: Option<String>,
}

/// `--collection`: trimmed, 1 to 100 characters, no control character.
fn parse_collection(s: &str) -> Result<String, String> {
    keil_archive::collection_name(s).map_err(|e| e.to_string())
}

/// `--duplicates`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DuplicatesArg {
    /// The same record or the same game signature.
    Signature,
    /// The same record only.
    Exact,
}

/// Runs `keil import`: the aliases read, the archive opened, the inputs
/// imported with a spinner on standard error, then the report printed.
pub fn run(args: Args) -> anyhow::Result<()> {
    let aliases = match &args.aliases {
        None => Vec::new(),
        Some(path) => read_aliases(path)?,
    };
    let archive = Archive::open(args.db.location(None))
        .with_context(|| format!("opening archive {}", args.db))?;
    crate::archive::tell_upgrade(&archive);
    let sources: Vec<ImportSource> = args
        .inputs
        .iter()
        .map(|p| {
            if p.as_os_str() == "-" {
                ImportSource::Stdin
            } else {
                ImportSource::Path(p.clone())
            }
        })
        .collect();
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    let report = archive.import(&sources, &args.options(aliases), &mut |p| {
        bar.set_message(progress_message(p));
    })?;
    bar.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    print_report(&report);
    Ok(())
}

/// The aliases of `--aliases`: one `alias = name` per line.
fn read_aliases(path: &Path) -> anyhow::Result<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading aliases {}", path.display()))?;
    keil_archive::read_aliases(&text).with_context(|| format!("aliases {}", path.display()))
}

impl Args {
    /// The archive's import options: the batch, the limits against
    /// archive bombs, what counts as a duplicate, the aliases.
    fn options(&self, aliases: Vec<(String, String)>) -> ImportOptions {
        ImportOptions {
            batch_size: self.batch,
            limits: keil_container::Limits {
                max_total_bytes: self.max_total_mib.saturating_mul(1 << 20),
                max_member_bytes: self.max_member_mib.saturating_mul(1 << 20),
                max_members: self.max_members,
                max_depth: self.max_depth,
            },
            duplicates: match self.duplicates {
                DuplicatesArg::Signature => Duplicates::Signature,
                DuplicatesArg::Exact => Duplicates::Exact,
            },
            aliases,
            collection: self.collection.clone(),
            ..ImportOptions::default()
        }
    }
}

/// The spinner's message: members and games read so far, the rate, and
/// what became of them.
fn progress_message(p: &ImportProgress) -> String {
    let rate = p.games_read as f64 / p.elapsed.as_secs_f64().max(1e-9);
    let members = if p.members > 0 {
        let per_second = p.members as f64 / p.elapsed.as_secs_f64().max(1e-9);
        format!("{} archive members ({per_second:.0}/s), ", p.members)
    } else {
        String::new()
    };
    format!(
        "{members}{} games read, {rate:.0} games/s: {} imported, {} duplicates, {} merged, {} invalid",
        p.games_read, p.imported, p.duplicates, p.merged, p.invalid
    )
}

/// The report for people: the counts, then the first 20 merged and the
/// first 20 refused games, with the reasons counted.
fn print_report(report: &ImportReport) {
    let c = &report.counts;
    println!(
        "{} games read in {:.2} s ({:.0} games/s): {} imported, {} duplicates, {} merged, {} invalid",
        c.games_read,
        c.elapsed.as_secs_f64(),
        report.games_per_second(),
        c.imported,
        c.duplicates,
        c.merged,
        c.invalid
    );
    if c.similar > 0 || c.promoted > 0 {
        println!(
            "  {} games linked as similar (the same moves, another game's information); \
             {} stored games replaced by a longer record of the same game",
            c.similar, c.promoted
        );
    }
    if c.members > 0 || c.skipped > 0 {
        println!(
            "  {} archive members read; {} files or members skipped (neither an archive nor SGF)",
            c.members, c.skipped
        );
    }
    for m in report.merged.iter().take(20) {
        println!(
            "  merged ({}): {} game {} is another record of game {} (kept with it)",
            m.kind.code(),
            m.source,
            m.index + 1,
            m.id
        );
    }
    if report.merged.len() > 20 {
        println!("  ... {} more merged", report.merged.len() - 20);
    }
    for (reason, n) in &report.reasons {
        println!("  invalid, {reason}: {n}");
    }
    for p in report.invalid.iter().take(20) {
        println!("  {} game {}: {}", p.source, p.index + 1, p.message);
    }
    if report.invalid.len() > 20 {
        println!(
            "  ... {} more in the import log (import {})",
            report.invalid.len() - 20,
            report.import_id
        );
    }
}
