//! Per-client rate limits: a thin actix middleware
//! (`throttle`, in `middleware.rs`) over
//! `governor`'s keyed GCRA limiters, one per class of request, keyed by the
//! client's IP address ([`client_ip`]).
//!
//! - **searches**: `GET /api/v1/positions`, `/api/v1/patterns`,
//!   `/api/v1/search` and their pages `/positions`, `/patterns`, `/search`;
//! - **uploads**: `POST /api/v1/games`;
//! - **reads**: every other request (pages, game details, static files),
//!   except `/healthz`, which is never limited.
//!
//! Each quota is a number of requests per minute, which is also the burst:
//! a client may send that many at once, then one more each `60 / n`
//! seconds. Past it the answer is 429 ([`ApiError::TooManyRequests`]) with
//! `Retry-After` in whole seconds (governor's wait, rounded up, at least
//! 1). A quota of 0 turns its class's limit off.
//!
//! A request's number is not its cost: a search or a list that scans may
//! take a thousand times a game read's time. So each client also has an
//! allowance of **search time** ([`WorkMeter`]): the time the search
//! threads spent on its requests (searches, and lists whose filters no
//! index serves: [`keil_archive::GameFilter::scans`]) drains at
//! [`RateLimits::search_seconds`] a minute, and a search that would start
//! while its client owes more than a minute's allowance is refused with 429
//! and the `Retry-After` at which it will not.
//!
//! Wrong bearer tokens are throttled harder ([`Limits::token_failed`]): the
//! eleventh failure within a minute from one client blocks that client's
//! uploads for [`TOKEN_BLOCK`] (429, `tokens`), whatever token it sends.
//!
//! Memory stays bounded: every [`RETAIN_EVERY`] requests the limiters drop
//! the clients whose state is back to fresh (`retain_recent`), and the
//! blocked clients whose block has passed.

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::http::Method;
use governor::clock::Clock;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::ApiError;

/// Default searches per minute per client (text, position and pattern
/// searches and their pages).
pub const DEFAULT_SEARCHES_PER_MINUTE: u32 = 60;
/// Default other reads per minute per client (pages, game details, static
/// files).
pub const DEFAULT_READS_PER_MINUTE: u32 = 600;
/// Default uploads per minute per client.
pub const DEFAULT_UPLOADS_PER_MINUTE: u32 = 10;
/// Default search time per minute per client, in seconds: a third of one
/// search thread for each client, so that a few clients cannot hold every
/// search thread ([`crate::DEFAULT_SEARCH_THREADS`]) for long.
pub const DEFAULT_SEARCH_SECONDS_PER_MINUTE: u32 = 20;
/// Wrong bearer tokens a client may send per minute before its uploads
/// are blocked.
pub const TOKEN_FAILURES_PER_MINUTE: u32 = 10;
/// How long a client's uploads stay blocked after too many wrong tokens.
pub const TOKEN_BLOCK: Duration = Duration::from_secs(60);
/// The limiters drop idle clients every this many requests.
pub const RETAIN_EVERY: u64 = 4096;

/// The quotas, in requests per minute per client (0: no limit), and where
/// the client's address comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimits {
    /// Searches per minute ([`DEFAULT_SEARCHES_PER_MINUTE`]).
    pub searches: u32,
    /// Other reads per minute ([`DEFAULT_READS_PER_MINUTE`]).
    pub reads: u32,
    /// Uploads per minute ([`DEFAULT_UPLOADS_PER_MINUTE`]).
    pub uploads: u32,
    /// Seconds of search-thread time per minute
    /// ([`DEFAULT_SEARCH_SECONDS_PER_MINUTE`]; see [`WorkMeter`]).
    pub search_seconds: u32,
    /// Wrong tokens per minute before a block ([`TOKEN_FAILURES_PER_MINUTE`]).
    pub token_failures: u32,
    /// Read the client from `X-Forwarded-For` (behind one reverse proxy;
    /// see [`client_ip`]) instead of the peer address.
    pub trust_proxy: bool,
}

impl Default for RateLimits {
    fn default() -> RateLimits {
        RateLimits {
            searches: DEFAULT_SEARCHES_PER_MINUTE,
            reads: DEFAULT_READS_PER_MINUTE,
            uploads: DEFAULT_UPLOADS_PER_MINUTE,
            search_seconds: DEFAULT_SEARCH_SECONDS_PER_MINUTE,
            token_failures: TOKEN_FAILURES_PER_MINUTE,
            trust_proxy: false,
        }
    }
}

impl RateLimits {
    /// No limit at all (tests, private servers).
    pub fn off() -> RateLimits {
        RateLimits {
            searches: 0,
            reads: 0,
            uploads: 0,
            search_seconds: 0,
            token_failures: 0,
            trust_proxy: false,
        }
    }
}

/// Which quota a request draws on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Text, position and pattern searches, and bulk downloads.
    Searches,
    /// Other reads.
    Reads,
    /// Uploads.
    Uploads,
}

impl Class {
    /// The class of a request, `None` for the unlimited `/healthz`.
    pub fn of(method: &Method, path: &str) -> Option<Class> {
        const SEARCHES: [&str; 8] = [
            "/api/v1/games.sgf",
            "/api/v1/games.zip",
            "/api/v1/positions",
            "/api/v1/patterns",
            "/api/v1/search",
            "/positions",
            "/patterns",
            "/search",
        ];
        if path == "/healthz" {
            None
        } else if method == Method::POST && path == "/api/v1/games" {
            Some(Class::Uploads)
        } else if SEARCHES.contains(&path) {
            Some(Class::Searches)
        } else {
            Some(Class::Reads)
        }
    }

    fn name(self) -> &'static str {
        match self {
            Class::Searches => "searches",
            Class::Reads => "reads",
            Class::Uploads => "uploads",
        }
    }
}

/// The limiters of one server.
pub struct Limits {
    config: RateLimits,
    searches: Option<DefaultKeyedRateLimiter<IpAddr>>,
    reads: Option<DefaultKeyedRateLimiter<IpAddr>>,
    uploads: Option<DefaultKeyedRateLimiter<IpAddr>>,
    token_failures: Option<DefaultKeyedRateLimiter<IpAddr>>,
    /// The clients' search time (shared with the search jobs, which
    /// charge it); `None`: no allowance.
    work: Option<Arc<WorkMeter>>,
    /// Clients whose uploads are blocked, until when.
    blocked: Mutex<HashMap<IpAddr, Instant>>,
    requests: AtomicU64,
}

fn limiter(per_minute: u32) -> Option<DefaultKeyedRateLimiter<IpAddr>> {
    NonZeroU32::new(per_minute).map(|n| RateLimiter::keyed(Quota::per_minute(n)))
}

impl Limits {
    /// The limiters for these quotas.
    pub fn new(config: RateLimits) -> Limits {
        Limits {
            config,
            searches: limiter(config.searches),
            reads: limiter(config.reads),
            uploads: limiter(config.uploads),
            token_failures: limiter(config.token_failures),
            work: (config.search_seconds > 0).then(|| {
                Arc::new(WorkMeter::new(Duration::from_secs(u64::from(
                    config.search_seconds,
                ))))
            }),
            blocked: Mutex::new(HashMap::new()),
            requests: AtomicU64::new(0),
        }
    }

    /// Whether `X-Forwarded-For` is trusted.
    pub fn trust_proxy(&self) -> bool {
        self.config.trust_proxy
    }

    /// Draws one request of `class` from `client`'s quota.
    ///
    /// # Errors
    /// [`ApiError::TooManyRequests`] past the quota.
    pub fn check(&self, class: Class, client: IpAddr) -> Result<(), ApiError> {
        if self.requests.fetch_add(1, Ordering::Relaxed) % RETAIN_EVERY == RETAIN_EVERY - 1 {
            self.retain_recent();
        }
        let limiter = match class {
            Class::Searches => &self.searches,
            Class::Reads => &self.reads,
            Class::Uploads => &self.uploads,
        };
        let Some(limiter) = limiter else {
            return Ok(());
        };
        limiter.check_key(&client).map_err(|not_until| {
            let wait = not_until.wait_time_from(limiter.clock().now());
            ApiError::TooManyRequests {
                what: class.name(),
                retry_after: whole_seconds(wait),
            }
        })
    }

    /// The search-time meter, `None` when the allowance is off.
    pub fn work(&self) -> Option<&Arc<WorkMeter>> {
        self.work.as_ref()
    }

    /// Refuses an upload from a client blocked for wrong tokens.
    ///
    /// # Errors
    /// [`ApiError::TooManyRequests`] (`tokens`) while the block lasts.
    pub fn check_blocked(&self, client: IpAddr) -> Result<(), ApiError> {
        let blocked = self.blocked.lock().unwrap_or_else(|e| e.into_inner());
        match blocked.get(&client) {
            Some(&until) if until > Instant::now() => Err(ApiError::TooManyRequests {
                what: "tokens",
                retry_after: whole_seconds(until - Instant::now()),
            }),
            _ => Ok(()),
        }
    }

    /// Counts a wrong token from `client`; past the allowance, blocks its
    /// uploads for [`TOKEN_BLOCK`].
    ///
    /// # Errors
    /// [`ApiError::TooManyRequests`] (`tokens`) when this failure starts a
    /// block.
    pub fn token_failed(&self, client: IpAddr) -> Result<(), ApiError> {
        let Some(limiter) = &self.token_failures else {
            return Ok(());
        };
        if limiter.check_key(&client).is_ok() {
            return Ok(());
        }
        let now = Instant::now();
        let mut blocked = self.blocked.lock().unwrap_or_else(|e| e.into_inner());
        blocked.retain(|_, until| *until > now);
        blocked.insert(client, now + TOKEN_BLOCK);
        tracing::warn!(%client, "too many wrong tokens: uploads blocked for {TOKEN_BLOCK:?}");
        Err(ApiError::TooManyRequests {
            what: "tokens",
            retry_after: TOKEN_BLOCK.as_secs(),
        })
    }

    /// Drops the clients whose state is back to fresh, and passed blocks.
    pub fn retain_recent(&self) {
        for l in [
            &self.searches,
            &self.reads,
            &self.uploads,
            &self.token_failures,
        ]
        .into_iter()
        .flatten()
        {
            l.retain_recent();
            l.shrink_to_fit();
        }
        if let Some(work) = &self.work {
            work.retain_owing();
        }
        let now = Instant::now();
        self.blocked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|_, until| *until > now);
    }

    /// The number of clients the limiters hold state for (for tests of the
    /// bound).
    pub fn clients(&self) -> usize {
        [
            &self.searches,
            &self.reads,
            &self.uploads,
            &self.token_failures,
        ]
        .into_iter()
        .flatten()
        .map(|l| l.len())
        .sum::<usize>()
            + self.work.as_ref().map_or(0, |w| w.clients())
    }
}

/// Each client's search time: a leaky bucket of thread time. A search job
/// adds the time it ran ([`WorkMeter::charge`]); what a client owes drains
/// at `per_minute` a minute; a client that owes more than `per_minute` (a
/// minute's allowance, also the burst) may start no search until it owes
/// less ([`WorkMeter::check`]). Unlike a request quota, the charge comes
/// after the work: a search may take a client past its allowance once,
/// by at most the query budget.
pub struct WorkMeter {
    per_minute: Duration,
    owed: Mutex<HashMap<IpAddr, Owed>>,
}

/// What one client owes, as of `at`.
#[derive(Clone, Copy)]
struct Owed {
    time: Duration,
    at: Instant,
}

impl Owed {
    /// What is left of it at `now`, after draining at `per_minute` a minute.
    fn at(self, now: Instant, per_minute: Duration) -> Duration {
        let drained =
            per_minute.mul_f64(now.saturating_duration_since(self.at).as_secs_f64() / 60.0);
        self.time.saturating_sub(drained)
    }
}

impl WorkMeter {
    /// A meter allowing `per_minute` of search time a minute per client.
    pub fn new(per_minute: Duration) -> WorkMeter {
        WorkMeter {
            per_minute,
            owed: Mutex::new(HashMap::new()),
        }
    }

    fn owed(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, Owed>> {
        self.owed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `client` may start a search now.
    ///
    /// # Errors
    /// [`ApiError::TooManyRequests`] (`search time`) while it owes more than
    /// a minute's allowance, with the seconds until it owes less.
    pub fn check(&self, client: IpAddr) -> Result<(), ApiError> {
        let now = Instant::now();
        let Some(owed) = self.owed().get(&client).map(|o| o.at(now, self.per_minute)) else {
            return Ok(());
        };
        if owed <= self.per_minute {
            return Ok(());
        }
        // Draining `per_minute` takes a minute: the excess takes its share.
        let wait = Duration::from_secs(60)
            .mul_f64((owed - self.per_minute).as_secs_f64() / self.per_minute.as_secs_f64());
        Err(ApiError::TooManyRequests {
            what: "search time",
            retry_after: whole_seconds(wait),
        })
    }

    /// Adds `spent` (a search's time on its thread) to what `client` owes.
    pub fn charge(&self, client: IpAddr, spent: Duration) {
        let now = Instant::now();
        let mut owed = self.owed();
        let time = owed
            .get(&client)
            .map_or(Duration::ZERO, |o| o.at(now, self.per_minute))
            + spent;
        owed.insert(client, Owed { time, at: now });
    }

    /// Drops the clients that owe nothing any more.
    fn retain_owing(&self) {
        let now = Instant::now();
        self.owed()
            .retain(|_, o| !o.at(now, self.per_minute).is_zero());
    }

    /// The clients the meter holds.
    fn clients(&self) -> usize {
        self.owed().len()
    }
}

tokio::task_local! {
    /// The client of the request being handled (set by
    /// [`throttle`](crate::middleware::throttle) around
    /// the handler), for the search jobs to charge ([`WorkMeter`]).
    pub(crate) static CLIENT: IpAddr;
}

/// A wait in whole seconds, rounded up, at least 1.
fn whole_seconds(d: Duration) -> u64 {
    d.as_secs_f64().ceil().max(1.0) as u64
}

/// The client's IP address. Without `trust_proxy`, the peer address. With
/// it, the right-most address of the last `X-Forwarded-For` header: the
/// one the (single, trusted) reverse proxy in front of the server appended
/// for the connection it received; the addresses left of it were written
/// by the client and are not trusted. Falls back to the peer address when
/// the header is absent or its last entry is not an IP address.
pub fn client_ip(req: &actix_web::HttpRequest, trust_proxy: bool) -> IpAddr {
    let peer = req
        .peer_addr()
        .map_or(IpAddr::from([0, 0, 0, 0]), |a| a.ip());
    if !trust_proxy {
        return peer;
    }
    req.headers()
        .get_all("x-forwarded-for")
        .last()
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .and_then(|s| s.trim().parse::<IpAddr>().ok())
        .unwrap_or(peer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_the_paths() {
        assert_eq!(Class::of(&Method::GET, "/healthz"), None);
        assert_eq!(
            Class::of(&Method::POST, "/api/v1/games"),
            Some(Class::Uploads)
        );
        assert_eq!(Class::of(&Method::GET, "/api/v1/games"), Some(Class::Reads));
        assert_eq!(
            Class::of(&Method::GET, "/api/v1/patterns"),
            Some(Class::Searches)
        );
        assert_eq!(Class::of(&Method::GET, "/positions"), Some(Class::Searches));
        assert_eq!(
            Class::of(&Method::GET, "/static/app.css"),
            Some(Class::Reads)
        );
    }

    #[test]
    fn idle_clients_are_dropped() {
        // A quota of 60 000 a minute refills in 1 ms: after a few ms every
        // client is back to fresh and retain_recent drops it.
        let limits = Limits::new(RateLimits {
            reads: 60_000,
            ..RateLimits::off()
        });
        for i in 0..1000u32 {
            limits
                .check(Class::Reads, IpAddr::from(i.to_be_bytes()))
                .unwrap();
        }
        assert_eq!(limits.clients(), 1000);
        std::thread::sleep(Duration::from_millis(20));
        limits.retain_recent();
        assert_eq!(limits.clients(), 0);
    }

    #[test]
    fn retry_after_rounds_up() {
        assert_eq!(whole_seconds(Duration::from_millis(1)), 1);
        assert_eq!(whole_seconds(Duration::from_millis(1001)), 2);
        assert_eq!(whole_seconds(Duration::ZERO), 1);
    }
}
