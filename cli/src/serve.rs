//! `keil serve`: the REST API (crate keil-server) over an archive; on an
//! empty archive it first imports the demo corpus, so the first run shows a
//! populated database.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use keil_archive::{Archive, ImportOptions, ImportSource};
use keil_gen::GeneratorConfig;
use keil_server::ServerOptions;

/// Options of `keil serve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The archive: a directory (created if needed), or a PostgreSQL URL
    /// (`postgres://user@host:port/dbname`; this node's text index and
    /// node cache then go to --cache-dir, or $KEIL_NODE_DIR, or the user's
    /// cache directory).
    #[arg(long, default_value = "keil-data")]
    db: crate::archive::Db,
    /// A hot standby of a PostgreSQL --db (a streaming replica's URL;
    /// repeatable): searches and pages read from the replicas in turn,
    /// writes go to the primary, and a read goes to the primary when the
    /// replica has not replayed what this node has seen (its own uploads
    /// included) or does not answer (it then rests 5 s).
    #[arg(long = "replica", value_name = "URL")]
    replicas: Vec<String>,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// The bearer tokens that uploads (POST /api/v1/games) must carry: one
    /// `name token` per line (`name token operator` for the operator, whose
    /// uploads are not rate limited; `#` comments; a single bare token is
    /// named `default`), each at least 16 characters. Re-read on SIGHUP and
    /// when it changes (revoke a token by deleting its line). Without it
    /// the KEIL_TOKEN environment variable is read; with neither, uploads
    /// are disabled.
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// The largest upload body, in bytes.
    #[arg(long, default_value_t = keil_server::DEFAULT_MAX_UPLOAD)]
    max_upload: usize,
    /// The most game trees one upload may hold (413 past it, nothing
    /// stored).
    #[arg(long, default_value_t = keil_server::DEFAULT_MAX_UPLOAD_GAMES)]
    max_upload_games: usize,
    /// Seconds allowed to receive an upload's body (408 past it).
    #[arg(long, default_value_t = keil_server::DEFAULT_BODY_TIMEOUT.as_secs())]
    body_timeout: u64,
    /// Searches (text, position, pattern; API and pages) per minute per
    /// client; also the burst. 0: no limit.
    #[arg(long, default_value_t = keil_server::limits::DEFAULT_SEARCHES_PER_MINUTE)]
    rate_searches: u32,
    /// Seconds of search-thread time per minute per client: what its
    /// searches, downloads of found games and lists whose filters no
    /// index serves ran for; past a minute's worth, 429 until it drains.
    /// 0: no limit.
    #[arg(long, default_value_t = keil_server::limits::DEFAULT_SEARCH_SECONDS_PER_MINUTE)]
    search_seconds: u32,
    /// Other reads (pages, games, static files) per minute per client;
    /// also the burst. 0: no limit.
    #[arg(long, default_value_t = keil_server::limits::DEFAULT_READS_PER_MINUTE)]
    rate_reads: u32,
    /// Uploads per minute per client; also the burst. 0: no limit.
    #[arg(long, default_value_t = keil_server::limits::DEFAULT_UPLOADS_PER_MINUTE)]
    rate_uploads: u32,
    /// Behind one reverse proxy: identify clients for the rate limits by
    /// the right-most X-Forwarded-For address (the one the proxy appended),
    /// not the peer address. Only with a proxy that appends it, or any
    /// client can pick its own address.
    #[arg(long)]
    trust_proxy: bool,
    /// HTTP worker threads (default: half the cores, at least one; archive
    /// queries run on each worker's --blocking-threads).
    #[arg(long)]
    workers: Option<usize>,
    /// Threads per worker that run archive queries: at most this many
    /// queries run at once per worker.
    #[arg(long, default_value_t = keil_server::DEFAULT_BLOCKING_THREADS)]
    blocking_threads: usize,
    /// How long a search (text, position, pattern) may run, counted from
    /// the request's arrival: a number with its unit, `ms` or `s` (`500ms`,
    /// `2s`, `1.5s`). Past it the search stops and answers 503 with
    /// Retry-After.
    #[arg(long, default_value = "2s", value_parser = parse_budget)]
    query_budget: std::time::Duration,
    /// Threads that run searches, apart from the threads of plain reads
    /// and of uploads: at most this many searches run at once (a pattern
    /// scan's parallel parts run on one thread per core).
    #[arg(long, default_value_t = keil_server::DEFAULT_SEARCH_THREADS)]
    search_threads: usize,
    /// Do not import the demo corpus into an empty archive.
    #[arg(long)]
    no_demo: bool,
    /// Do not load the pattern index before serving: the first pattern
    /// search loads it (from the node cache's snapshot, else built: seconds
    /// on a large archive, ~8 s on one core for 100,000 side-7 or 19×19
    /// games), and until then its memory is saved (~270 MB and ~385 MB
    /// resident for those, built).
    #[arg(long)]
    lazy_patterns: bool,
    /// Keep this node's cache in this directory (node-local, one per
    /// archive, created if needed) instead of the default place. The node
    /// cache holds derived copies that a restart reads instead of deriving
    /// them again: the position index's segments as files, mapped (their
    /// pages the system's page cache rather than the server's heap), and a
    /// snapshot of the pattern index, read in one pass and caught up from
    /// the pattern blocks (unless --lazy-patterns). Costs about their size
    /// in memory again on disk (~3.4 + 3.4 KB per 19×19 game). The files
    /// are checked against the archive: one that does not match is derived
    /// again. Default: an embedded archive's DIR/cache/ (deleted with the
    /// archive, never copied by keil backup; when that folder cannot be
    /// written, or is not there and the archive is served read-only, a
    /// folder of the user's cache directory, ~/.cache/keil/, named after
    /// the archive's path); a PostgreSQL node's directory (see --db).
    #[arg(
        long,
        alias = "segment-cache",
        value_name = "DIR",
        conflicts_with = "no_cache_dir"
    )]
    cache_dir: Option<PathBuf>,
    /// Keep no node cache: the position and pattern indexes are derived
    /// from the store into the heap at every start (seconds to a minute
    /// at a million games), and nothing is written beside the archive.
    #[arg(long)]
    no_cache_dir: bool,
    /// The heap the position and pattern indexes may hold, e.g. 4GiB,
    /// 512MB or 0 (needs the node cache, whose files are mapped otherwise):
    /// once loaded, the hottest mapped parts are copied into the heap
    /// until it is spent (the pattern index's region segments, then the
    /// position segments, then the pattern columns and events); the rest
    /// stays on disk and is read on demand through the system's page
    /// cache. The per-game parts (~200 bytes a game) are always in the
    /// heap and count first. Without it everything in the cache stays
    /// mapped; without a node cache (--no-cache-dir) every index is in the
    /// heap.
    #[arg(long, conflicts_with = "no_cache_dir", value_parser = parse_bytes)]
    index_memory: Option<u64>,
    /// Open the archive read-only: nothing is written (no demo corpus), and
    /// uploads answer 503. Without it, an archive that cannot be written
    /// (a read-only or full volume, no write permission) is served
    /// read-only too, with a warning.
    #[arg(long)]
    read_only: bool,
    /// Serve GET /metrics (Prometheus text format) on this address instead
    /// of the public one, which then answers /metrics 404.
    #[arg(long)]
    metrics_addr: Option<SocketAddr>,
    /// Seconds that requests in flight get to finish after SIGTERM (no new
    /// connection is accepted meanwhile).
    #[arg(long, default_value_t = keil_server::DEFAULT_GRACE.as_secs())]
    grace: u64,
}

/// Runs `keil serve`: the upload tokens checked, the archive opened (the
/// demo corpus into an empty one), its indexes loaded, then the server
/// run until it is stopped.
pub fn run(args: Args) -> anyhow::Result<()> {
    init_logging();
    // The tokens are checked before anything is loaded: an empty token
    // file or a short token stops the server with the line to fix.
    let token = upload_token(args.token_file.as_deref())?;
    let uploads = args.token_file.is_some() || token.is_some();
    let archive = Arc::new(prepare(&args)?);
    load_indexes(&archive, args.lazy_patterns, args.index_memory)?;
    eprintln!(
        "keil: serving {} on http://{} (uploads {})",
        args.db,
        args.addr,
        if archive.is_read_only() {
            "disabled: the archive is read-only; they answer 503"
        } else if uploads {
            "enabled"
        } else {
            "disabled: no token"
        }
    );
    keil_server::run_blocking(server_options(args, archive, token)).context("server")?;
    Ok(())
}

/// Checks the upload tokens: the `--token-file`'s (read again by the
/// server, so none is returned), else the environment's, returned.
fn upload_token(token_file: Option<&Path>) -> anyhow::Result<Option<String>> {
    match token_file {
        Some(file) => {
            keil_server::tokens::TokenSet::read(file)?;
            if let Some(warning) = keil_server::tokens::permission_warning(file) {
                eprintln!("keil: warning: {warning}");
            }
            Ok(None)
        }
        None => {
            let token = keil_server::env_token();
            if let Some(t) = &token {
                keil_server::tokens::TokenSet::single(t, Path::new(keil_server::TOKEN_ENV))?;
            }
            Ok(token)
        }
    }
}

/// Opens the archive ([`open`]), imports the demo corpus into an empty
/// one unless told not to, and keeps the node cache where [`use_cache`]
/// says.
fn prepare(args: &Args) -> anyhow::Result<Archive> {
    let opened = std::time::Instant::now();
    let archive = open(&args.db.location(args.cache_dir.as_deref()), args.read_only)?;
    eprintln!(
        "keil: archive opened in {:.1} s (its text index caught up)",
        opened.elapsed().as_secs_f64()
    );
    let games = archive.stats().context("cannot read the archive")?.games;
    if games == 0 && !args.no_demo && !archive.is_read_only() {
        import_demo(&archive)?;
    }
    use_cache(args, &archive)?;
    Ok(archive)
}

/// Keeps this node's cache ([`Archive::cache_in`]) in `--cache-dir`, in
/// none with `--no-cache-dir`, else in the first of
/// [`default_cache_dirs`] that can be written, and says where on
/// standard error (with no place that can be written, none, with a
/// warning: the indexes are then derived into the heap).
///
/// # Errors
/// When `--cache-dir` cannot be created or opened (a default place that
/// cannot is passed over).
fn use_cache(args: &Args, archive: &Archive) -> anyhow::Result<()> {
    if args.no_cache_dir {
        eprintln!("keil: no node cache (--no-cache-dir): the indexes are derived into the heap");
        return Ok(());
    }
    if let Some(dir) = &args.cache_dir {
        archive
            .cache_in(dir)
            .with_context(|| format!("cannot use cache directory {}", dir.display()))?;
        eprintln!("keil: node cache in {} (--cache-dir)", dir.display());
        return Ok(());
    }
    for (dir, why) in default_cache_dirs(archive) {
        let used = writable(&dir).and_then(|()| Ok(archive.cache_in(&dir)?));
        match used {
            Ok(()) => {
                eprintln!("keil: node cache in {} ({why})", dir.display());
                return Ok(());
            }
            Err(e) => eprintln!(
                "keil: warning: cannot keep the node cache in {}: {e:#}",
                dir.display()
            ),
        }
    }
    eprintln!(
        "keil: warning: no node cache (no place for it can be written): the indexes are derived into the heap"
    );
    Ok(())
}

/// Where a node keeps its cache without `--cache-dir`, in the order
/// tried, each with why, for the log line:
///
/// - a PostgreSQL node: its node directory (`--db`'s: where its text
///   index is);
/// - an embedded archive `DIR`: `DIR/cache/`
///   ([`crate::archive::CACHE_FOLDER`]), so that the cache is found by
///   every start that opens `DIR`, goes when the archive is deleted,
///   and is never another archive's; not copied by `keil backup`, which
///   copies the store alone. When the archive is read-only (`--read-only`,
///   or it cannot be written), `DIR/cache/` only if it is already there
///   (nothing new is made in the archive's directory); then, or when it
///   cannot be written, a folder of the user's cache directory
///   ([`crate::archive::user_cache_for`]).
fn default_cache_dirs(archive: &Archive) -> Vec<(PathBuf, &'static str)> {
    let dir = archive.dir();
    if !matches!(archive.location(), keil_archive::Location::Directory(_)) {
        return vec![(dir.to_path_buf(), "this node's directory")];
    }
    let inside = dir.join(crate::archive::CACHE_FOLDER);
    let mut dirs = Vec::new();
    if !archive.is_read_only() || inside.is_dir() {
        dirs.push((
            inside,
            "the default: inside the archive; --no-cache-dir for none",
        ));
    }
    dirs.push((
        crate::archive::user_cache_for(dir),
        if archive.is_read_only() {
            "the archive is read-only: the user's cache directory"
        } else {
            "the user's cache directory"
        },
    ));
    dirs
}

/// Creates directory `dir` if needed and checks that a file can be made
/// in it (a folder of a read-only volume, or another user's, is then
/// passed over rather than used for reading alone).
fn writable(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).context("cannot create it")?;
    let probe = dir.join(format!(".keil-probe-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .context("cannot write in it")?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Loads the position index and, unless `lazy_patterns`, the pattern
/// index; pins them into `index_memory` when given; says how long each
/// took and the memory they hold.
fn load_indexes(
    archive: &Arc<Archive>,
    lazy_patterns: bool,
    index_memory: Option<u64>,
) -> anyhow::Result<()> {
    let warm = keil_server::warm_up(archive, !lazy_patterns, index_memory)
        .context("cannot read the position and pattern indexes")?;
    match warm.patterns {
        Some((patterns, stats)) => eprintln!(
            "keil: position and pattern indexes loaded in {:.1} s (positions {:.1} s{}, patterns {:.1} s {}, at once)",
            warm.total.as_secs_f64(),
            warm.positions.as_secs_f64(),
            if warm.positions_deferred {
                " for their directories, their segments to follow"
            } else {
                ""
            },
            patterns.as_secs_f64(),
            if stats.from_snapshot {
                "from the cache's snapshot"
            } else if stats.regions_deferred {
                "from the pattern blocks, its region index to follow"
            } else {
                "from the pattern blocks"
            }
        ),
        None => eprintln!(
            "keil: position index loaded in {:.1} s (the pattern index at the first pattern search)",
            warm.total.as_secs_f64()
        ),
    }
    let t = std::time::Instant::now();
    let memory = match index_memory {
        Some(budget) => archive.pin_indexes(budget),
        None => archive.index_memory(),
    };
    let size = |b: u64| bytesize::ByteSize(b).display().iec().to_string();
    eprintln!(
        "keil: index memory: positions {} heap + {} mapped, patterns {} heap + {} mapped{}",
        size(memory.positions.heap),
        size(memory.positions.mapped),
        size(memory.patterns.heap),
        size(memory.patterns.mapped),
        match index_memory {
            Some(budget) => format!(
                " ({} pinned in {:.1} s, budget {})",
                size(memory.pinned),
                t.elapsed().as_secs_f64(),
                size(budget)
            ),
            None => String::new(),
        }
    );
    Ok(())
}

/// The server's options: the address, the upload token and limits, the
/// rate limits, the threads, the search budget, the metrics address and
/// the grace period.
fn server_options(args: Args, archive: Arc<Archive>, token: Option<String>) -> ServerOptions {
    ServerOptions {
        addr: args.addr,
        token,
        token_file: args.token_file,
        max_upload: args.max_upload,
        max_upload_games: args.max_upload_games,
        body_timeout: std::time::Duration::from_secs(args.body_timeout.max(1)),
        rate_limits: keil_server::limits::RateLimits {
            searches: args.rate_searches,
            reads: args.rate_reads,
            uploads: args.rate_uploads,
            search_seconds: args.search_seconds,
            trust_proxy: args.trust_proxy,
            ..keil_server::limits::RateLimits::default()
        },
        workers: args.workers,
        blocking_threads: args.blocking_threads,
        query_budget: args.query_budget,
        search_threads: args.search_threads,
        metrics_addr: args.metrics_addr,
        grace: std::time::Duration::from_secs(args.grace),
        ..ServerOptions::new(archive)
    }
}

/// A size in bytes with an optional unit (bytesize's: B, KB, KiB, MB,
/// MiB, GB, GiB, ...).
fn parse_bytes(s: &str) -> Result<u64, String> {
    s.trim()
        .parse::<bytesize::ByteSize>()
        .map(|b| b.as_u64())
        .map_err(|e| format!("{s:?} is not a size (e.g. 4GiB, 512MB, 0): {e}"))
}

/// Reads a duration with its unit: `250ms`, `2s`, `1.5s` (more than 0,
/// at most an hour).
fn parse_budget(s: &str) -> Result<std::time::Duration, String> {
    let s = s.trim();
    let (number, unit_ms) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1000.0)
    } else {
        return Err(format!(
            "{s:?} has no unit: write it in ms or s, e.g. 500ms or 2s"
        ));
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a number of ms or s, e.g. 500ms or 2s"))?;
    let ms = value * unit_ms;
    if !(1.0..=3_600_000.0).contains(&ms) {
        return Err(format!("{s:?} is out of range: from 1ms to 3600s"));
    }
    Ok(std::time::Duration::from_micros(
        (ms * 1000.0).round() as u64
    ))
}

/// Opens the archive read-write, or read-only when asked or when it cannot
/// be written (then with a warning naming the cause).
fn open(db: &keil_archive::Location, read_only: bool) -> anyhow::Result<Archive> {
    let context = || format!("cannot open the archive {db}");
    if read_only {
        return Archive::open_read_only(db.clone()).with_context(context);
    }
    match Archive::open(db.clone()) {
        Ok(archive) => {
            crate::archive::tell_upgrade(&archive);
            Ok(archive)
        }
        Err(e) if e.is_unwritable() => {
            let archive = Archive::open_read_only(db.clone()).with_context(context)?;
            eprintln!(
                "keil: warning: the archive {db} cannot be written ({e}); serving it read-only"
            );
            Ok(archive)
        }
        Err(e) => Err(e).with_context(context),
    }
}

/// Generates the demo corpus (keil-gen's fixed seeds, every game kind)
/// and imports it, with a progress line on standard error.
fn import_demo(archive: &Archive) -> anyhow::Result<()> {
    let parts = GeneratorConfig::demo();
    let total: u64 = parts.iter().map(|c| c.games).sum();
    eprint!("keil: empty archive: generating the demo corpus ({total} games)...");
    let mut sources = Vec::new();
    for config in parts {
        let name = format!(
            "demo corpus ({} {}, keil-gen seed {})",
            config.game.name(),
            config.size,
            config.seed
        );
        let mut bytes = Vec::new();
        keil_gen::write_collection(config, &mut bytes)
            .context("cannot generate the demo corpus")?;
        sources.push(ImportSource::Bytes { name, bytes });
    }
    let options = ImportOptions {
        batch_size: 500,
        ..ImportOptions::default()
    };
    let report = archive
        .import(&sources, &options, &mut |p| {
            eprint!(
                "\rkeil: importing the demo corpus: {}/{total} games ({:.1} s)   ",
                p.games_read,
                p.elapsed.as_secs_f64()
            );
            let _ = std::io::stderr().flush();
        })
        .context("cannot import the demo corpus")?;
    eprintln!(
        "\rkeil: imported the demo corpus: {} games stored, {} refused in {:.1} s",
        report.counts.imported,
        report.counts.invalid,
        report.counts.elapsed.as_secs_f64()
    );
    Ok(())
}

/// Request logs on standard error; `RUST_LOG` overrides the level (`info`).
fn init_logging() {
    use tracing_subscriber::EnvFilter;
    use tracing_subscriber::fmt::format::FmtSpan;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_span_events(FmtSpan::CLOSE)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::parse_budget;
    use std::time::Duration;

    #[test]
    fn budgets_need_a_unit_and_a_sane_size() {
        assert_eq!(parse_budget("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_budget("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_budget("1.5s"), Ok(Duration::from_millis(1500)));
        for bad in ["2", "", "ms", "-1s", "0ms", "2h", "NaNs", "1e9s"] {
            assert!(parse_budget(bad).is_err(), "{bad}");
        }
    }
}
