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
//!   routes are listed once, in [`routes::route_table`], with thin
//!   handlers; [`routes()`] names them. The OpenAPI document ([`openapi`],
//!   served at `/openapi.json`) is generated from the handlers.
//! - [`ApiError`] is the one error type: it maps to status codes and RFC 7807
//!   `application/problem+json` bodies in one place.
//! - [`dto`] holds the request and response types, separate from the
//!   archive's domain types.
//! - Every archive call runs on actix's blocking thread pool
//!   (`web::block`), bounded to [`ServerOptions::blocking_threads`] per
//!   worker ([`default_workers`] workers); the archive keeps a pool of read
//!   connections and one writer. [`warm_up`] loads the position index
//!   before serving. Uploads need a bearer token ([`ServerOptions::token`]);
//!   with none configured, writes are disabled.
//! - Request logging (tracing-actix-web) is installed only when the
//!   subscriber records INFO spans.
//!
//! **Invariant:** only this crate knows HTTP and JSON shapes; the archive
//! knows nothing of them.

pub mod dto;
mod error;
pub mod limits;
pub mod openapi;
pub mod pages;
pub mod routes;
pub mod svg;
pub mod tokens;
mod upload;

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::middleware::Condition;
use actix_web::{App, HttpServer, web};
use keil_archive::Archive;

pub use error::{ApiError, PROBLEM_JSON, Problem};
pub use routes::{app_config, routes};

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
/// Archive calls are short and CPU-bound (a position search takes ~0.1 ms),
/// so two per worker keep the cores busy. actix's own default (512 / workers)
/// let a burst of requests run as many calls at once: read connections
/// beyond the archive's idle pool were opened and closed per request, and a
/// cold position index was loaded once per request (1.7 GB resident at
/// 100,000 games).
pub const DEFAULT_BLOCKING_THREADS: usize = 2;

/// The default number of HTTP workers: half the cores, at least one. A
/// worker only parses requests and writes answers (archive calls run on its
/// [`DEFAULT_BLOCKING_THREADS`] blocking threads), so one worker keeps two
/// cores of queries busy; on 2 cores, one worker had the same throughput as
/// two and a third of the p99 latency (`scripts/bench-server.sh`).
pub fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
}

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
    /// The most game trees an upload may hold.
    pub max_upload_games: usize,
    /// The time allowed to receive an upload's body.
    pub body_timeout: Duration,
    /// Games per transaction of an upload.
    pub upload_batch: usize,
    /// The per-client rate limiters.
    pub limits: limits::Limits,
    /// Serialises uploads: the archive has one writer, and an upload waits
    /// here for the previous one rather than failing as busy after the
    /// archive's 5 s wait.
    pub(crate) writer: Mutex<()>,
    /// The home page's counts, reused for a few seconds.
    pub(crate) home: pages::HomeCache,
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
            max_upload_games: options.max_upload_games,
            body_timeout: options.body_timeout,
            upload_batch: options.upload_batch.max(1),
            limits: limits::Limits::new(options.rate_limits),
            writer: Mutex::new(()),
            home: pages::HomeCache::default(),
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
/// it, or spawn it) with the addresses it listens on. Must be called inside
/// an actix system (`actix_web::rt::System`).
///
/// # Errors
/// When the address cannot be bound; a token file or token refused by
/// [`ServerState::new`] (kind `InvalidInput`).
pub fn bind(options: ServerOptions) -> io::Result<(Server, Vec<SocketAddr>)> {
    let state = ServerState::new(&options)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    let state = web::Data::new(state);
    reload_tokens_on_sighup(state.clone());
    // Request logging only when its spans can be recorded: a disabled
    // logger still built a root span and a request id per request (~5% of
    // a position search's CPU time).
    let log = request_logging_enabled();
    let server = HttpServer::new(move || {
        App::new()
            .wrap(actix_web::middleware::from_fn(limits::throttle))
            .wrap(Condition::new(
                log,
                tracing_actix_web::TracingLogger::default(),
            ))
            .configure(app_config(state.clone()))
    })
    .workers(options.workers.unwrap_or_else(default_workers).max(1))
    .worker_max_blocking_threads(options.blocking_threads.max(1));
    let server = server.bind(options.addr)?;
    let addrs = server.addrs();
    Ok((server.run(), addrs))
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

/// Loads what the first queries would otherwise load under load: the
/// position index's segments and game summaries
/// ([`keil_archive::Positions::load`]) and, when `patterns`, the pattern
/// index (every game replayed once, [`keil_archive::Patterns::load`]:
/// about 3.4 KB per 19×19 game, 2.4 KB per side-7 game). Call before
/// serving, so that concurrent first requests do not wait for it. Returns
/// how long it took.
///
/// # Errors
/// Archive errors.
pub fn warm_up(archive: &Archive, patterns: bool) -> keil_archive::Result<std::time::Duration> {
    let start = std::time::Instant::now();
    archive.positions().load()?;
    if patterns {
        archive.patterns().load()?;
    }
    Ok(start.elapsed())
}

/// Serves until the process is interrupted (Ctrl-C stops gracefully).
///
/// # Errors
/// When the address cannot be bound, or the server fails.
pub async fn run(options: ServerOptions) -> io::Result<()> {
    let (server, addrs) = bind(options)?;
    for a in &addrs {
        tracing::info!("listening on http://{a}");
    }
    server.await
}

/// [`run`] on a new actix system, for synchronous callers (the CLI).
///
/// # Errors
/// As [`run`].
pub fn run_blocking(options: ServerOptions) -> io::Result<()> {
    actix_web::rt::System::new().block_on(run(options))
}
