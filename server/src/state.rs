//! What every handler shares: the options a server is started with
//! ([`ServerOptions`], with their defaults) and the state built from them
//! ([`ServerState`]: the archive, the tokens, the threads that run archive
//! work, the limiters, the metrics, the requests in flight), with the two
//! small parts of it that no other module owns: the home page kept for a
//! few seconds ([`HomeCache`]) and the count of bulk downloads running
//! ([`Exports`]).
//!
//! The parts' own modules (`pools.rs`, `limits.rs`, `metrics.rs`,
//! `shutdown.rs`, `tokens.rs`) stand below this one and know nothing of
//! the state; what reads the state stands above it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use keil_archive::Archive;

use crate::limits::{Limits, RateLimits};
use crate::metrics::Metrics;
use crate::pools::Work;
use crate::shutdown::InFlight;
use crate::tokens;

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
pub const DEFAULT_GRACE: Duration = Duration::from_secs(10);

/// The environment variable read for the write token when no token file is
/// given.
pub const TOKEN_ENV: &str = "KEIL_TOKEN";

/// How to serve an archive.
#[derive(Clone)]
pub struct ServerOptions {
    /// The archive.
    pub archive: Arc<Archive>,
    /// Where to listen (port 0: any free port; see [`crate::bind`]).
    pub addr: SocketAddr,
    /// A bearer token that uploads may carry, named `default` (the
    /// `KEIL_TOKEN` environment variable); at least
    /// [`tokens::MIN_TOKEN_LEN`] characters. With neither this nor
    /// [`ServerOptions::token_file`], uploads are disabled.
    pub token: Option<String>,
    /// The token file ([`crate::tokens`]: `name token [operator]` per line),
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
    /// The per-client rate limits ([`crate::limits`]).
    pub rate_limits: RateLimits,
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
    pub grace: Duration,
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
            rate_limits: RateLimits::default(),
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
    pub(crate) work: Work,
    /// The most game trees an upload may hold.
    pub max_upload_games: usize,
    /// The time allowed to receive an upload's body.
    pub body_timeout: Duration,
    /// Games per transaction of an upload.
    pub upload_batch: usize,
    /// The per-client rate limiters.
    pub limits: Limits,
    /// The home page's counts, reused for a few seconds.
    pub(crate) home: HomeCache,
    /// The metrics served at `/metrics`.
    pub metrics: Metrics,
    /// The listener that alone serves `/metrics` (its bound address), if
    /// any.
    pub metrics_addr: Option<SocketAddr>,
    /// The requests in flight, which a graceful stop waits for.
    pub(crate) in_flight: InFlight,
    /// The bulk downloads running.
    pub(crate) exports: Exports,
    /// The archive's name in the pages ([`Site`]).
    pub(crate) site: Site,
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
            work: Work::new(options.search_threads, options.query_budget),
            max_upload_games: options.max_upload_games,
            body_timeout: options.body_timeout,
            upload_batch: options.upload_batch.max(1),
            limits: Limits::new(options.rate_limits),
            home: HomeCache::default(),
            metrics: Metrics::new(),
            metrics_addr: options.metrics_addr,
            in_flight: InFlight::default(),
            exports: Exports::default(),
            // On a thread of its own: the state is made inside the
            // server's runtime, where PostgreSQL's blocking client cannot
            // run.
            site: std::thread::scope(|s| s.spawn(|| Site::of(&options.archive)).join())
                .unwrap_or_default(),
        })
    }
}

/// What the pages say of the archive as a whole: its name in the titles
/// and header ("Go archive" when every game it holds is Go, "Kaomi
/// archive" likewise, else the product's name, [`crate::assets::PRODUCT`]:
/// Keil's, a mixed or an empty archive), the kinds of game it holds (the
/// forms offer those) and its collections (the forms' collection list).
/// Read when the server starts, after each upload that stores games, and
/// whenever the home page is computed again (at most every 10 s), so that
/// another node's imports show here too.
#[derive(Debug, Default)]
pub struct Site {
    /// 0: the product's name; `i + 1`: the one kind `GameKind::ALL[i]`.
    kind: AtomicU8,
    /// The kinds with games, and the collections.
    held: Mutex<(
        Vec<keil_rules::GameKind>,
        Arc<Vec<keil_archive::CollectionSummary>>,
    )>,
}

impl Site {
    /// The name of `archive` as it is now.
    pub(crate) fn of(archive: &Archive) -> Site {
        let site = Site::default();
        site.refresh(archive);
        site
    }

    /// Reads the archive's kinds and collections again (a storage error
    /// leaves them as they were).
    pub(crate) fn refresh(&self, archive: &Archive) {
        let Ok(stats) = archive.stats() else { return };
        let one = match stats.by_kind[..] {
            [(kind, _)] => keil_rules::GameKind::ALL
                .iter()
                .position(|&k| k == kind)
                .map_or(0, |i| i + 1),
            _ => 0,
        };
        self.kind
            .store(u8::try_from(one).unwrap_or(0), Ordering::Relaxed);
        let kinds = stats.by_kind.iter().map(|&(k, _)| k).collect();
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.0 = kinds;
        if let Ok(c) = archive.games().collections() {
            held.1 = Arc::new(c);
        }
    }

    /// The name: `Go archive`, `Kaomi archive`, or the product's.
    pub(crate) fn name(&self) -> crate::assets::SiteName {
        crate::assets::SiteName::of(
            usize::from(self.kind.load(Ordering::Relaxed))
                .checked_sub(1)
                .and_then(|i| keil_rules::GameKind::ALL.get(i))
                .copied(),
        )
    }

    /// The kinds of game the archive holds (in `GameKind::ALL`'s order);
    /// every kind while it holds none.
    pub(crate) fn kinds(&self) -> Vec<keil_rules::GameKind> {
        let held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if held.0.is_empty() {
            keil_rules::GameKind::ALL.to_vec()
        } else {
            held.0.clone()
        }
    }

    /// The archive's collections, most games first.
    pub(crate) fn collections(&self) -> Arc<Vec<keil_archive::CollectionSummary>> {
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .1
            .clone()
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

/// How long the home page is served before it is computed again (in the
/// background: until then the older one is served).
const HOME_TTL: Duration = Duration::from_secs(10);

/// The home page's HTML and when it was computed (uploads clear it), and
/// whether a refresh is running.
#[derive(Default)]
pub struct HomeCache(Mutex<HomeSlot>);

#[derive(Default)]
struct HomeSlot {
    data: Option<(Instant, Arc<String>)>,
    refreshing: bool,
}

impl HomeCache {
    /// Forgets the cached page (after an upload stored games).
    pub fn clear(&self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).data = None;
    }

    /// The cached page, if any, and whether the caller should refresh it
    /// (it is stale and nobody else is refreshing it).
    pub(crate) fn get(&self) -> (Option<Arc<String>>, bool) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let stale = slot
            .data
            .as_ref()
            .is_none_or(|(at, _)| at.elapsed() >= HOME_TTL);
        let refresh = stale && !slot.refreshing;
        if refresh {
            slot.refreshing = true;
        }
        (slot.data.as_ref().map(|(_, d)| Arc::clone(d)), refresh)
    }

    /// Keeps a freshly computed page (none: the refresh failed), and ends
    /// the refresh.
    pub(crate) fn put(&self, d: Option<Arc<String>>) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = d {
            slot.data = Some((Instant::now(), d));
        }
        slot.refreshing = false;
    }
}

/// The bulk downloads running.
#[derive(Debug, Default)]
pub(crate) struct Exports(AtomicUsize);

impl Exports {
    /// Counts one more download; returns the number that ran before it.
    pub(crate) fn enter(&self) -> usize {
        self.0.fetch_add(1, Ordering::SeqCst)
    }

    /// Counts one download less.
    pub(crate) fn leave(&self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}
