//! The public Keil game database: a REST API (actix-web 4) over a
//! [`keil_archive::Archive`].
//!
//! ```no_run
//! use std::sync::Arc;
//! use keil_archive::Archive;
//! use keil_server::{ServerOptions, run};
//!
//! # fn main() -> std::io::Result<()> {
//! let archive = Arc::new(Archive::open("keil-data").expect("archive"));
//! let options = ServerOptions {
//!     addr: "127.0.0.1:8080".parse().unwrap(),
//!     token: Some("s3cret-0123456789".into()),
//!     ..ServerOptions::new(archive)
//! };
//! // Serves until interrupted: GET /api/v1/games, /api/v1/positions, ...
//! actix_web::rt::System::new().block_on(run(options))
//! # }
//! ```
//!
//! # Overview
//!
//! - [`ServerOptions`] → [`bind`] (an actix [`Server`] and the addresses it
//!   listens on, for tests on port 0) or [`run`] (serve until stopped).
//! - [`app_config`] registers every route on an actix `ServiceConfig`; the
//!   API's routes are listed once, in [`routes::route_table`], with thin
//!   handlers (and the OpenAPI document's in [`openapi`]); [`routes()`]
//!   names them. The OpenAPI document ([`openapi`],
//!   served at `/openapi.json`) is generated from the handlers.
//! - [`ApiError`] is the one error type: it maps to status codes and RFC 7807
//!   `application/problem+json` bodies in one place.
//! - [`dto`] holds the request and response types, separate from the
//!   archive's domain types.
//! - Plain reads run on actix's blocking thread pool (`web::block`),
//!   bounded to [`ServerOptions::blocking_threads`] per worker
//!   ([`default_workers`] workers); searches on their own pool under a time
//!   budget, uploads on the writer thread (`work.rs`); the archive keeps a
//!   pool of read connections and one writer. [`warm_up`] loads the position index
//!   before serving. Uploads need a bearer token ([`ServerOptions::token`]);
//!   with none configured, writes are disabled.
//! - Request logging (tracing-actix-web) is installed only when the
//!   subscriber records INFO spans; every answer carries an
//!   `X-Request-Id` ([`request_id`]), also named by every log line of its
//!   request.
//! - Every error answer, on every path, is a document ([`documents`]): a
//!   problem document, or an HTML page for a browser; request targets and
//!   header sections over [`documents::MAX_TARGET`] and
//!   [`documents::MAX_HEADER_BYTES`] are refused (414, 431).
//! - `GET /metrics` ([`metrics`]) in the Prometheus text format, on the
//!   public listener or on [`ServerOptions::metrics_addr`].
//! - Answers are compressed (gzip, brotli, zstd) when the client's
//!   `Accept-Encoding` asks. SIGTERM stops gracefully (`shutdown.rs`):
//!   no new connection, requests in flight get [`ServerOptions::grace`] to
//!   finish; SIGINT and SIGQUIT stop at once.
//! - An archive opened read-only ([`keil_archive::Archive::open_read_only`])
//!   is served read-only: uploads answer 503 ([`ApiError::ReadOnly`]).
//!
//! **Invariant:** only this crate knows HTTP and JSON shapes; the archive
//! knows nothing of them.

mod app;
pub mod assets;
pub mod documents;
pub mod dto;
mod error;
pub mod export;
mod http;
pub mod limits;
pub mod metrics;
pub mod openapi;
pub mod pages;
pub mod params;
mod play;
mod refusal;
mod replay;
pub mod request_id;
pub mod routes;
mod shutdown;
pub mod svg;
pub mod tokens;
mod upload;
mod work;

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::middleware::{Compress, Condition, from_fn};
use actix_web::{App, HttpServer, web};
use keil_archive::Archive;

pub use app::{app_config, routes};
pub use error::{ApiError, Form, PROBLEM_JSON, Problem, answer};

/// The default upload body limit: 8 MiB (about 8,000 games).
pub const DEFAULT_MAX_UPLOAD: usize = 8 * 1024 * 1024;

/// The default limit of game trees per upload.
pub const DEFAULT_MAX_UPLOAD_GAMES: usize = 10_000;

/// The default time allowed to receive an upload's body: 30 s (8 MiB at
/// 280 KB/s).
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// The default number of games per transaction of an upload: a storage
/// failure loses at most the batch in flight.
pub const DEFAULT_UPLOAD_BATCH: usize = 2_000;

/// Archive-call threads per worker (see [`ServerOptions::blocking_threads`]).
/// Archive calls are short and CPU-bound, so two per worker keep the cores
/// busy. A larger pool (actix's own default is 512 / workers) lets a burst
/// of requests run as many calls at once: read connections beyond the
/// archive's idle pool are opened and closed per request, and a cold
/// position index is loaded once per request.
pub const DEFAULT_BLOCKING_THREADS: usize = 2;

/// The default number of HTTP workers: half the cores, at least one. A
/// worker only parses requests and writes answers (archive calls run on its
/// [`DEFAULT_BLOCKING_THREADS`] blocking threads), so one worker keeps two
/// cores of queries busy, and more workers only contend with the queries
/// for the cores.
pub fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
}

/// The default time budget of a search (text, position, pattern): 2 s.
pub const DEFAULT_QUERY_BUDGET: Duration = Duration::from_secs(2);

/// The default number of search threads (see
/// [`ServerOptions::search_threads`]).
pub const DEFAULT_SEARCH_THREADS: usize = 2;
/// The default grace period of a graceful stop (SIGTERM): 10 s.
pub const DEFAULT_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// The environment variable read for the write token when no token file is
/// given.
pub const TOKEN_ENV: &str = "KEIL_TOKEN";

/// How to serve an archive.
#[derive(Clone)]
pub struct ServerOptions {
    /// The archive.
    pub archive: Arc<Archive>,
    /// Where to listen (port 0: any free port; see [`bind`]).
    pub addr: SocketAddr,
    /// A bearer token that uploads may carry, named `default` (the
    /// `KEIL_TOKEN` environment variable); at least
    /// [`tokens::MIN_TOKEN_LEN`] characters. With neither this nor
    /// [`ServerOptions::token_file`], uploads are disabled.
    pub token: Option<String>,
    /// The token file ([`tokens`]: `name token [operator]` per line),
    /// re-read on SIGHUP and when it changes; takes the place of
    /// [`ServerOptions::token`].
    pub token_file: Option<PathBuf>,
    /// The largest upload body, in bytes.
    pub max_upload: usize,
    /// The most game trees an upload may hold (413 past it, nothing
    /// stored). Default [`DEFAULT_MAX_UPLOAD_GAMES`].
    pub max_upload_games: usize,
    /// The time allowed to receive an upload's body (408 past it).
    /// Default [`DEFAULT_BODY_TIMEOUT`].
    pub body_timeout: Duration,
    /// Games per transaction of an upload. Default [`DEFAULT_UPLOAD_BATCH`].
    pub upload_batch: usize,
    /// The per-client rate limits ([`limits`]).
    pub rate_limits: limits::RateLimits,
    /// HTTP worker threads (default: [`default_workers`]).
    pub workers: Option<usize>,
    /// Threads per worker that run archive calls (actix's blocking pool):
    /// at most this many archive calls run at once per worker, so the read
    /// connections, their page caches and any index loading stay bounded.
    /// Default [`DEFAULT_BLOCKING_THREADS`].
    pub blocking_threads: usize,
    /// How long a search (text, position, pattern) may run, from its
    /// request's arrival; past it the search stops and the answer is 503
    /// with `Retry-After`. Default [`DEFAULT_QUERY_BUDGET`].
    pub query_budget: Duration,
    /// Threads that run searches (shared by all workers), apart from the
    /// threads of plain reads and uploads: at most this many searches run
    /// at once, the others wait their turn (within their budget). A pattern
    /// scan's parallel parts run on rayon's global pool (one thread per
    /// core). Default [`DEFAULT_SEARCH_THREADS`].
    pub search_threads: usize,
    /// Where to serve `GET /metrics` instead of [`ServerOptions::addr`]
    /// (that listener serves nothing else, and the public one answers
    /// `/metrics` 404); `None`: on the public listener.
    pub metrics_addr: Option<SocketAddr>,
    /// How long a graceful stop (SIGTERM) lets requests in flight finish
    /// before closing their connections (default [`DEFAULT_GRACE`]).
    pub grace: std::time::Duration,
}

impl ServerOptions {
    /// Options for `archive` on 127.0.0.1:8080, uploads disabled, the
    /// default body limit.
    pub fn new(archive: Arc<Archive>) -> ServerOptions {
        ServerOptions {
            archive,
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            token: None,
            token_file: None,
            max_upload: DEFAULT_MAX_UPLOAD,
            max_upload_games: DEFAULT_MAX_UPLOAD_GAMES,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            upload_batch: DEFAULT_UPLOAD_BATCH,
            rate_limits: limits::RateLimits::default(),
            workers: None,
            blocking_threads: DEFAULT_BLOCKING_THREADS,
            query_budget: DEFAULT_QUERY_BUDGET,
            search_threads: DEFAULT_SEARCH_THREADS,
            metrics_addr: None,
            grace: DEFAULT_GRACE,
        }
    }
}

/// What every handler shares: the archive, the write token and the limits.
pub struct ServerState {
    /// The archive (`Send + Sync`; queries take pooled read connections).
    pub archive: Arc<Archive>,
    /// The upload tokens (none: writes disabled).
    pub tokens: tokens::Tokens,
    /// The largest upload body, in bytes.
    pub max_upload: usize,
    /// The search threads and the writer thread (uploads run there one at a
    /// time, so an upload waits for the previous one rather than failing
    /// as busy after the archive's 5 s wait), and the search budget.
    pub(crate) work: work::Work,
    /// The most game trees an upload may hold.
    pub max_upload_games: usize,
    /// The time allowed to receive an upload's body.
    pub body_timeout: Duration,
    /// Games per transaction of an upload.
    pub upload_batch: usize,
    /// The per-client rate limiters.
    pub limits: limits::Limits,
    /// The home page's counts, reused for a few seconds.
    pub(crate) home: pages::HomeCache,
    /// The metrics served at `/metrics`.
    pub metrics: metrics::Metrics,
    /// The listener that alone serves `/metrics` (its bound address), if
    /// any.
    pub metrics_addr: Option<SocketAddr>,
    /// The requests in flight, which a graceful stop waits for.
    pub(crate) in_flight: shutdown::InFlight,
    /// The bulk downloads running.
    pub(crate) exports: export::Exports,
}

impl ServerState {
    /// The state for these options: the token file is read, or the token
    /// checked, here.
    ///
    /// # Errors
    /// [`tokens::TokenError`] for a token file that cannot be read or does
    /// not parse, or a token under [`tokens::MIN_TOKEN_LEN`] characters.
    pub fn new(options: &ServerOptions) -> Result<ServerState, tokens::TokenError> {
        let tokens = match (&options.token_file, &options.token) {
            (Some(file), _) => tokens::Tokens::from_file(file)?,
            (None, Some(token)) => tokens::Tokens::fixed(tokens::TokenSet::single(
                token,
                std::path::Path::new(TOKEN_ENV),
            )?),
            (None, None) => tokens::Tokens::fixed(tokens::TokenSet::default()),
        };
        Ok(ServerState {
            archive: Arc::clone(&options.archive),
            tokens,
            max_upload: options.max_upload,
            work: work::Work::new(options.search_threads, options.query_budget),
            max_upload_games: options.max_upload_games,
            body_timeout: options.body_timeout,
            upload_batch: options.upload_batch.max(1),
            limits: limits::Limits::new(options.rate_limits),
            home: pages::HomeCache::default(),
            metrics: metrics::Metrics::new(),
            metrics_addr: options.metrics_addr,
            in_flight: shutdown::InFlight::default(),
            exports: export::Exports::default(),
        })
    }
}

/// The write token of the environment variable [`TOKEN_ENV`], `None` when
/// it is unset or empty (checked by [`ServerState::new`]).
pub fn env_token() -> Option<String> {
    std::env::var(TOKEN_ENV)
        .ok()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// Builds the HTTP server and binds it; returns it (not yet polled: await
/// it, or spawn it) with the addresses it listens on: the public one, then
/// the metrics listener's when [`ServerOptions::metrics_addr`] is set. Must
/// be called inside an actix system (`actix_web::rt::System`).
///
/// # Errors
/// When an address cannot be bound; a token file or token refused by
/// [`ServerState::new`] (kind `InvalidInput`).
pub fn bind(mut options: ServerOptions) -> io::Result<(Server, Vec<SocketAddr>)> {
    // The metrics listener is bound first: the state needs its real
    // address (port 0 in tests) to tell its requests apart.
    let metrics_listener = match options.metrics_addr {
        Some(addr) => {
            let listener = std::net::TcpListener::bind(addr)?;
            options.metrics_addr = Some(listener.local_addr()?);
            Some(listener)
        }
        None => None,
    };
    let state = ServerState::new(&options)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    let state = web::Data::new(state);
    reload_tokens_on_sighup(state.clone());
    let signal_state = state.clone();
    // Request logging only when its spans can be recorded: a disabled
    // logger still builds a root span per request.
    let log = request_logging_enabled();
    // Outermost first: the count of requests in flight, the request id,
    // the log, compression, the metrics, the error documents, the rate
    // limits, a trailing slash redirected away (308: `/games/` is
    // `/games`), the routes.
    let server = HttpServer::new(move || {
        App::new()
            .configure(app_config(state.clone()))
            .wrap(from_fn(documents::trailing_slash))
            .wrap(from_fn(limits::throttle))
            .wrap(from_fn(documents::documents))
            .wrap(from_fn(metrics::count))
            .wrap(Compress::default())
            .wrap(Condition::new(
                log,
                tracing_actix_web::TracingLogger::<request_id::RootSpan>::new(),
            ))
            .wrap(from_fn(request_id::request_id))
            .wrap(from_fn(shutdown::track))
    })
    .workers(options.workers.unwrap_or_else(default_workers).max(1))
    .worker_max_blocking_threads(options.blocking_threads.max(1))
    .disable_signals();
    let mut server = server.bind(options.addr)?;
    if let Some(listener) = metrics_listener {
        server = server.listen(listener)?;
    }
    let addrs = server.addrs();
    let server = server.run();
    actix_web::rt::spawn(shutdown::on_signals(
        server.handle(),
        signal_state,
        options.grace,
    ));
    Ok((server, addrs))
}

/// Re-reads the token file on SIGHUP, for as long as the actix system
/// runs (Unix only; elsewhere the file is still re-read when it changes).
fn reload_tokens_on_sighup(state: web::Data<ServerState>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut hangups) = signal(SignalKind::hangup()) else {
            tracing::warn!("cannot listen for SIGHUP: the token file is re-read when it changes");
            return;
        };
        actix_web::rt::spawn(async move {
            while hangups.recv().await.is_some() {
                state.tokens.reload();
            }
        });
    }
    #[cfg(not(unix))]
    let _ = state;
}

/// Whether the request logger's spans (level INFO) can be recorded by the
/// installed subscriber; read once when the server is built.
fn request_logging_enabled() -> bool {
    tracing::level_filters::LevelFilter::current() >= tracing::Level::INFO
}

/// How long a [`warm_up`] took: the whole, and each index's load (they run
/// at the same time).
#[derive(Clone, Debug)]
pub struct WarmUp {
    /// From start to both loads done.
    pub total: std::time::Duration,
    /// The position index's segments (or their directories alone) and
    /// game summaries.
    pub positions: std::time::Duration,
    /// Whether the segments' bytes are read after the start, while the node
    /// serves ([`keil_archive::Positions::load_for_start`]).
    pub positions_deferred: bool,
    /// The pattern index's load, and what it holds (whether it came from
    /// the node's snapshot, the bytes mapped); `None` when not loaded.
    pub patterns: Option<(std::time::Duration, keil_archive::PatternIndexStats)>,
}

/// Loads what the first queries would otherwise load under load: the
/// position index's segments and game summaries
/// ([`keil_archive::Positions::load_for_start`]: on PostgreSQL the
/// segments' block directories alone) and, when `patterns`, the pattern
/// index's games from its blocks ([`keil_archive::Patterns::load_unmerged`]:
/// about 3 KB per 19×19 game), the two on two threads at once. Call before
/// serving, so that concurrent first requests do not wait for it.
///
/// Then, on a thread of its own while the node serves (each step logged
/// when done): the position segments' bytes, where the start left them in
/// the store ([`keil_archive::Positions::load`]; position searches read
/// the blocks they need from the store meanwhile), pinned into the heap
/// after as `index_memory` allows (`keil serve --index-memory`: bytes,
/// [`Archive::pin_indexes`], which the caller runs after the start);
/// then the pattern
/// index's region index, read from the blocks and merged, and the node's
/// snapshot written, on a rayon pool of its own at nice 19 (below the
/// searches: [`keil_archive::Patterns::settle`]). Pattern searches answer
/// meanwhile, those the region index answers by a scan until it is
/// filled, then from its unmerged segments.
///
/// # Errors
/// Archive errors (the position index's first).
pub fn warm_up(
    archive: &Arc<Archive>,
    patterns: bool,
    index_memory: Option<u64>,
) -> keil_archive::Result<WarmUp> {
    // The loads below are the global pool's first use: build it now, with
    // its threads below the readers' priority.
    work::lower_global_pool_priority();
    let start = std::time::Instant::now();
    fn timed<T>(
        f: impl FnOnce() -> keil_archive::Result<T>,
    ) -> keil_archive::Result<(Duration, T)> {
        let t = std::time::Instant::now();
        f().map(|v| (t.elapsed(), v))
    }
    let (positions, pattern_load) = std::thread::scope(|scope| {
        let p = patterns.then(|| scope.spawn(|| timed(|| archive.patterns().load_unmerged())));
        let positions = timed(|| archive.positions().load_for_start());
        let pattern_load = p.map(|h| h.join().expect("the pattern load does not panic"));
        (positions, pattern_load)
    });
    let (positions, positions_deferred) = positions?;
    let warm = WarmUp {
        total: start.elapsed(),
        positions,
        positions_deferred,
        patterns: pattern_load.transpose()?,
    };
    if positions_deferred || patterns {
        let archive = archive.clone();
        let after_start = move || {
            if positions_deferred {
                load_position_segments(&archive);
                if let Some(budget) = index_memory {
                    let pinned = archive.pin_indexes(budget).pinned;
                    tracing::info!(
                        "{pinned} bytes of the indexes pinned after the position segments were read"
                    );
                }
            }
            if patterns {
                match work::settle_pool() {
                    Ok(pool) => pool.install(|| settle(&archive)),
                    Err(_) => settle(&archive),
                }
            }
        };
        let spawned = std::thread::Builder::new()
            .name("settle".into())
            .spawn(after_start);
        if let Err(e) = spawned {
            tracing::warn!(
                "no thread to read the indexes' rest ({e}): the pattern index stays unmerged \
                 and position searches read blocks from the store"
            );
        }
    }
    Ok(warm)
}

/// Reads the position segments' bytes a node start left in the store
/// ([`keil_archive::Positions::load`]), logging how long it took.
fn load_position_segments(archive: &Archive) {
    let t = std::time::Instant::now();
    match archive.positions().load() {
        Ok(()) => tracing::info!(
            "position index's segments read in {:.1} s",
            t.elapsed().as_secs_f64()
        ),
        Err(e) => tracing::warn!(
            "position index's segments not read (searches read their blocks from the store \
             until one does): {e}"
        ),
    }
}

/// Fills and merges the pattern index's region index and writes the
/// node's snapshot ([`keil_archive::Patterns::settle`]), logging the
/// outcome.
fn settle(archive: &Archive) {
    let t = std::time::Instant::now();
    match archive.patterns().settle() {
        Ok(true) => tracing::info!(
            "pattern index's region index filled and merged, its snapshot written in {:.1} s",
            t.elapsed().as_secs_f64()
        ),
        Ok(false) => {}
        Err(e) => tracing::warn!(
            "pattern index not settled (its region index unfilled or not merged, or its \
             snapshot not written): {e}"
        ),
    }
}

/// Serves until the process is stopped: SIGTERM stops gracefully (no new
/// connection; requests in flight get [`ServerOptions::grace`]), SIGINT
/// and SIGQUIT at once.
///
/// # Errors
/// When the address cannot be bound, or the server fails.
pub async fn run(options: ServerOptions) -> io::Result<()> {
    let read_only = options.archive.is_read_only();
    let archive = options.archive.clone();
    let metrics = options.metrics_addr.is_some();
    let (server, addrs) = bind(options)?;
    for (i, a) in addrs.iter().enumerate() {
        if metrics && i + 1 == addrs.len() {
            tracing::info!("metrics on http://{a}{}", metrics::PATH);
        } else {
            tracing::info!("listening on http://{a}");
        }
    }
    if read_only {
        tracing::warn!("the archive is open read-only: uploads answer 503");
    }
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let follower = follow(archive, stop.clone());
    let served = server.await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    follower.join().ok();
    served?;
    tracing::info!("stopped");
    Ok(())
}

/// Catches the node's indexes up with the store every
/// [`keil_archive::CATCH_UP_EVERY`] until `stop` is set, on a thread of its
/// own ([`Archive::catch_up`]): searches then answer from the round without
/// reading the store's state each, and what other nodes and importers
/// wrote is found within about that time. A failing round is logged once
/// until a round succeeds again (searches meanwhile read the store's state
/// themselves, and meet the error there).
fn follow(
    archive: Arc<Archive>,
    stop: Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut failing = false;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(keil_archive::CATCH_UP_EVERY);
            match archive.catch_up() {
                Ok(()) if failing => {
                    tracing::info!("the node's indexes follow the store again");
                    failing = false;
                }
                Ok(()) => {}
                Err(e) if !failing => {
                    tracing::warn!("the node's indexes could not catch up with the store: {e}");
                    failing = true;
                }
                Err(_) => {}
            }
        }
    })
}

/// [`run`] on a new actix system, for synchronous callers (the CLI).
///
/// # Errors
/// As [`run`].
pub fn run_blocking(options: ServerOptions) -> io::Result<()> {
    actix_web::rt::System::new().block_on(run(options))
}
