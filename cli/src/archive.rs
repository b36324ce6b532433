//! `keil reindex`, `keil stats` and `keil remove`: maintenance of an
//! archive.

use std::path::{Path, PathBuf};

use anyhow::Context;
use keil_archive::{Archive, Location};

/// An archive as `--db` names it: a directory (the embedded archive), or a
/// PostgreSQL URL (`postgres://user@host:port/dbname`). Shown without a
/// password.
#[derive(Clone, Debug)]
pub struct Db(String);

impl std::str::FromStr for Db {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Db, Self::Err> {
        Ok(Db(s.to_string()))
    }
}

impl std::fmt::Display for Db {
    /// As [`Location`] shows itself (the password hidden); the node
    /// directory plays no part, so none is worked out.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Location::parse(&self.0, PathBuf::new).fmt(f)
    }
}

impl Db {
    /// The archive's location. A PostgreSQL archive keeps this process's
    /// derived copies (its text index, the index caches) in `node_dir`,
    /// else in `$KEIL_NODE_DIR`, else under the user's cache directory
    /// (`$XDG_CACHE_HOME/keil/` or `~/.cache/keil/`, one folder per
    /// server and database).
    pub fn location(&self, node_dir: Option<&Path>) -> Location {
        Location::parse(&self.0, || match node_dir {
            Some(dir) => dir.to_path_buf(),
            None => default_node_dir(&self.0),
        })
    }
}

/// The user's cache directory for keil: `$XDG_CACHE_HOME/keil/`, else
/// `~/.cache/keil/`, else the system's temporary directory's `keil/`.
fn user_cache_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("keil")
}

/// The folder inside an embedded archive's directory where a node keeps
/// its index caches by default (`keil serve --db DIR` without
/// `--cache-dir`): `DIR/cache/`.
pub const CACHE_FOLDER: &str = "cache";

/// Where an embedded archive's node keeps its index caches when its
/// directory `dir` cannot hold them (a read-only archive or volume): a
/// folder of the user's cache directory named after the archive's
/// absolute path (`~/.cache/keil/dir_srv_games/` for `/srv/games`).
pub fn user_cache_for(dir: &Path) -> PathBuf {
    let absolute = std::fs::canonicalize(dir)
        .or_else(|_| std::path::absolute(dir))
        .unwrap_or_else(|_| dir.to_path_buf());
    user_cache_dir().join(format!("dir{}", folder_name(&absolute.to_string_lossy())))
}

/// `text` as one folder's name: every character but ASCII letters and
/// digits as `_`.
fn folder_name(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Where a PostgreSQL archive's derived copies go without `--cache-dir`.
fn default_node_dir(url: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os("KEIL_NODE_DIR") {
        return PathBuf::from(dir);
    }
    let base = user_cache_dir();
    // host, port and database, without the user and password, nor the
    // parameters (a changed `sslmode` is the same database).
    let tail = url.split_once("://").map_or(url, |(_, rest)| rest);
    let tail = tail.rsplit_once('@').map_or(tail, |(_, host)| host);
    let tail = tail.split_once('?').map_or(tail, |(base, _)| base);
    base.join(folder_name(tail))
}

/// Options of `keil reindex` and `keil stats`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The archive: a directory, or a PostgreSQL URL.
    #[arg(long)]
    pub db: Db,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

fn open(db: &Db) -> anyhow::Result<Archive> {
    let archive =
        Archive::open(db.location(None)).with_context(|| format!("opening archive {db}"))?;
    tell_upgrade(&archive);
    Ok(archive)
}

/// Tells the operator, on standard error, what opening the archive
/// upgraded (schema 14's merge repair), if anything.
pub fn tell_upgrade(archive: &Archive) {
    if let Some(r) = archive.upgraded() {
        eprintln!(
            "keil: upgraded the archive: {} signatures computed again; {} merged records \
             checked by their moves: {} are their game's records, {} restored as games of \
             their own, {} moved to the game they are, {} unreadable (left as they were)",
            r.signatures, r.checked, r.proven, r.restored, r.moved, r.unreadable
        );
    }
}

/// Rebuilds the derived indexes from SQLite.
pub fn reindex(args: Args) -> anyhow::Result<()> {
    let archive = open(&args.db)?;
    let start = std::time::Instant::now();
    let report = archive.reindex()?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        outln!(
            "reindexed {} games in {:.2} s",
            report.games,
            start.elapsed().as_secs_f64()
        )?;
        outln!(
            "checked {} refused records again: {} became games",
            report.refused_checked,
            report.refused_stored
        )?;
    }
    Ok(())
}

/// Runs `keil collections`: the archive's collections, most games first,
/// with their games, years and players' ranks; JSON: one object per
/// collection, one a line.
pub fn collections(args: Args) -> anyhow::Result<()> {
    let archive = open_for_reading(&args.db)?;
    let list = archive.games().collections()?;
    if args.json {
        for c in &list {
            outln!("{}", serde_json::to_string(c)?)?;
        }
        return Ok(());
    }
    if list.is_empty() {
        outln!("no collection: the archive has no games")?;
    }
    let span = |a: Option<String>, b: Option<String>| match (a, b) {
        (Some(a), Some(b)) if a != b => format!("{a}–{b}"),
        (Some(a), _) => a,
        _ => "-".to_string(),
    };
    for c in list {
        let years = span(
            c.first_year.map(|y| y.to_string()),
            c.last_year.map(|y| y.to_string()),
        );
        let ranks = span(
            c.lowest_rank.map(|r| r.to_string()),
            c.highest_rank.map(|r| r.to_string()),
        );
        outln!(
            "{:>9} games  {years:<9}  ranks {ranks:<7}  {}",
            c.games,
            c.name
        )?;
    }
    Ok(())
}

/// Prints counts and sizes. Opens the archive read-only: works on a
/// read-only or full volume and beside a running import.
pub fn stats(args: Args) -> anyhow::Result<()> {
    let archive = open_for_reading(&args.db)?;
    let s = archive.stats()?;
    let removed = archive.removed_games()?;
    if args.json {
        let mut v = serde_json::to_value(&s)?;
        v["bytes_per_game"] = s.bytes_per_game().into();
        v["removed"] = removed.into();
        outln!("{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    outln!("games       {}", s.games)?;
    for (status, n) in &s.by_status {
        outln!("  {status:<11} {n}")?;
    }
    for (kind, n) in &s.by_kind {
        outln!("  {kind:<11} {n}")?;
    }
    for (kind, size, n) in &s.by_board {
        outln!("  {:<11} {n}", format!("{kind} {size}"))?;
    }
    outln!("players     {}", s.players)?;
    outln!("imports     {} ({} games refused)", s.imports, s.refused)?;
    if s.refused_records > 0 {
        outln!(
            "refused     {} records kept (`keil refused`)",
            s.refused_records
        )?;
    }
    if removed > 0 {
        outln!("removed     {removed} games (`keil remove --list`)")?;
    }
    outln!("text index  {} games", s.text_documents)?;
    outln!(
        "on disk     {} bytes store + {} bytes text index = {} bytes per game",
        s.store_bytes,
        s.tantivy_bytes,
        s.bytes_per_game()
    )?;
    Ok(())
}

/// Opens an archive for a command that only reads (`stats`, `search`):
/// read-only, so that it works on a read-only or full volume and beside a
/// running import; an archive written by an older keil (it needs a schema
/// migration) is opened once for writing instead, which upgrades it in
/// place, as every command did before reads were read-only.
///
/// # Errors
/// The read-only open's error when the archive needs an upgrade and cannot
/// be written; any other open error.
pub fn open_for_reading(db: &Db) -> anyhow::Result<Archive> {
    let context = || format!("opening archive {db}");
    match Archive::open_read_only(db.location(None)) {
        Err(e @ keil_archive::Error::NeedsUpgrade(_)) => match Archive::open(db.location(None)) {
            Ok(archive) => {
                eprintln!("keil: upgraded the archive {db} in place");
                Ok(archive)
            }
            Err(_) => Err(e).with_context(context),
        },
        other => other.with_context(context),
    }
}

/// Options of `keil remove`.
#[derive(clap::Args, Debug)]
pub struct RemoveArgs {
    /// The archive: a directory, or a PostgreSQL URL.
    #[arg(long)]
    pub db: Db,
    /// The games to remove, by id (as the API and `keil search` give them).
    #[arg(required_unless_present_any = ["list", "refused"])]
    pub ids: Vec<keil_archive::GameId>,
    /// Remove this kept refused record instead (its id as `keil refused`
    /// gives it): its text goes, the refusal stays in the import log.
    /// Repeatable.
    #[arg(long, value_name = "ID", conflicts_with_all = ["ids", "list"])]
    pub refused: Vec<keil_archive::RefusedId>,
    /// Why (kept in the removal log; at most 500 bytes).
    #[arg(long, default_value = "")]
    pub reason: String,
    /// Who asks, for the removal log (default: the local user, `$USER`).
    #[arg(long)]
    pub by: Option<String>,
    /// Print the removal log (latest first) instead of removing.
    #[arg(long, conflicts_with = "ids")]
    pub list: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Removes games (each in its own transaction, logged with who and why),
/// or prints the removal log. Fails (exit 1) when an id names no game,
/// after removing the others.
pub fn remove(args: RemoveArgs) -> anyhow::Result<()> {
    let archive = open(&args.db)?;
    if !args.refused.is_empty() {
        return remove_refused(&archive, &args);
    }
    if args.list {
        let log = archive.removals(usize::MAX)?;
        if args.json {
            outln!("{}", serde_json::to_string_pretty(&log)?)?;
        } else {
            for r in &log {
                outln!(
                    "{}  game {}  by {}  {}{}",
                    r.removed_at,
                    r.game_id,
                    r.removed_by,
                    r.what,
                    if r.reason.is_empty() {
                        String::new()
                    } else {
                        format!("  ({})", r.reason)
                    }
                )?;
            }
        }
        return Ok(());
    }
    let by = args
        .by
        .or_else(|| std::env::var("USER").ok())
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "local".into());
    let by = format!("cli:{by}");
    let mut removed = Vec::new();
    let mut missing = Vec::new();
    for &id in &args.ids {
        match archive.remove(id, &by, &args.reason)? {
            Some(r) => removed.push(r),
            None => missing.push(id),
        }
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&removed)?)?;
    } else {
        for r in &removed {
            outln!("removed game {}: {}", r.game_id, r.what)?;
        }
    }
    if !missing.is_empty() {
        let list: Vec<String> = missing.iter().map(ToString::to_string).collect();
        anyhow::bail!(
            "no game with id {} (never stored, or already removed: `keil remove --db {} --list` shows the removals)",
            list.join(", "),
            args.db
        );
    }
    Ok(())
}

/// `keil remove --refused ID…`: drops kept refused records, reporting each.
/// Fails (exit 1) when an id names no kept record, after removing the
/// others.
fn remove_refused(archive: &Archive, args: &RemoveArgs) -> anyhow::Result<()> {
    let mut removed = Vec::new();
    let mut missing = Vec::new();
    for &id in &args.refused {
        if archive.remove_refused(id)? {
            removed.push(id);
        } else {
            missing.push(id.to_string());
        }
    }
    if args.json {
        outln!("{}", serde_json::to_string(&removed)?)?;
    } else {
        for id in &removed {
            outln!("removed refused record {id}")?;
        }
    }
    if !missing.is_empty() {
        anyhow::bail!(
            "no refused record kept with id {} (`keil refused --db {}` lists them)",
            missing.join(", "),
            args.db
        );
    }
    Ok(())
}
