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
//!     token: Some("s3cret".into()),
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
//! - Plain reads run on actix's blocking thread pool (`web::block`),
//!   bounded to [`ServerOptions::blocking_threads`] per worker
//!   ([`default_workers`] workers); searches on their own pool under a time
//!   budget, uploads on the writer thread (`work.rs`); the archive keeps a
//!   pool of read connections and one writer. [`warm_up`] loads the position index
//!   before serving. Uploads need a bearer token ([`ServerOptions::token`]);
//!   with none configured, writes are disabled.
//! - Request logging (tracing-actix-web) is installed only when the
//!   subscriber records INFO spans.
//!
//! **Invariant:** only this crate knows HTTP and JSON shapes; the archive
//! knows nothing of them.

pub mod dto;
mod error;
pub mod openapi;
pub mod pages;
pub mod params;
pub mod routes;
pub mod svg;
mod upload;
mod work;

use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::middleware::Condition;
use actix_web::{App, HttpServer, web};
use keil_archive::Archive;

pub use error::{ApiError, PROBLEM_JSON, Problem};
pub use routes::{app_config, routes};

/// The default upload body limit: 8 MiB (about 8,000 games).
pub const DEFAULT_MAX_UPLOAD: usize = 8 * 1024 * 1024;

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

/// The default time budget of a search (text, position, pattern): 2 s.
pub const DEFAULT_QUERY_BUDGET: Duration = Duration::from_secs(2);

/// The default number of search threads (see
/// [`ServerOptions::search_threads`]).
pub const DEFAULT_SEARCH_THREADS: usize = 2;

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
    /// The bearer token that uploads must carry; `None` disables uploads.
    pub token: Option<String>,
    /// The largest upload body, in bytes.
    pub max_upload: usize,
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
    /// Threads that run searches (shared by all workers; a pattern scan
    /// runs its parallel parts on them too), apart from the threads of
    /// plain reads and uploads. Default [`DEFAULT_SEARCH_THREADS`].
    pub search_threads: usize,
}

impl ServerOptions {
    /// Options for `archive` on 127.0.0.1:8080, uploads disabled, the
    /// default body limit.
    pub fn new(archive: Arc<Archive>) -> ServerOptions {
        ServerOptions {
            archive,
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            token: None,
            max_upload: DEFAULT_MAX_UPLOAD,
            workers: None,
            blocking_threads: DEFAULT_BLOCKING_THREADS,
            query_budget: DEFAULT_QUERY_BUDGET,
            search_threads: DEFAULT_SEARCH_THREADS,
        }
    }
}

/// What every handler shares: the archive, the write token and the limits.
pub struct ServerState {
    /// The archive (`Send + Sync`; queries take pooled read connections).
    pub archive: Arc<Archive>,
    /// The upload token; `None`: writes disabled.
    pub token: Option<String>,
    /// The largest upload body, in bytes.
    pub max_upload: usize,
    /// The search pool and the writer thread (uploads run there one at a
    /// time, so an upload waits for the previous one rather than failing
    /// as busy after the archive's 5 s wait), and the search budget.
    pub(crate) work: work::Work,
    /// The home page's counts, reused for a few seconds.
    pub(crate) home: pages::HomeCache,
}

impl ServerState {
    /// The state for these options.
    pub fn new(options: &ServerOptions) -> ServerState {
        ServerState {
            archive: Arc::clone(&options.archive),
            token: options.token.clone(),
            max_upload: options.max_upload,
            work: work::Work::new(options.search_threads, options.query_budget),
            home: pages::HomeCache::default(),
        }
    }
}

/// Reads the write token: the first line of `file` when given, else the
/// environment variable [`TOKEN_ENV`]; `None` (writes disabled) when neither
/// is set or the token is empty.
///
/// # Errors
/// When `file` cannot be read.
pub fn load_token(file: Option<&Path>) -> io::Result<Option<String>> {
    let raw = match file {
        Some(f) => std::fs::read_to_string(f)?,
        None => std::env::var(TOKEN_ENV).unwrap_or_default(),
    };
    let token = raw.lines().next().unwrap_or("").trim().to_string();
    Ok((!token.is_empty()).then_some(token))
}

/// Builds the HTTP server and binds it; returns it (not yet polled: await
/// it, or spawn it) with the addresses it listens on. Must be called inside
/// an actix system (`actix_web::rt::System`).
///
/// # Errors
/// When the address cannot be bound.
pub fn bind(options: ServerOptions) -> io::Result<(Server, Vec<SocketAddr>)> {
    let state = web::Data::new(ServerState::new(&options));
    // Request logging only when its spans can be recorded: a disabled
    // logger still built a root span and a request id per request (~5% of
    // a position search's CPU time).
    let log = request_logging_enabled();
    let server = HttpServer::new(move || {
        App::new()
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
