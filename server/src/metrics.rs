//! `GET /metrics`: what the server does, in the Prometheus text format
//! (crate `prometheus`, a [`Registry`] of the server's own, not the
//! process-global one). Counts and timings only: no address, token, query
//! or player name is ever a label.
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `keil_http_requests_total` | counter | `route`, `method`, `status` |
//! | `keil_http_request_duration_seconds` | histogram | `route` |
//! | `keil_http_errors_total` | counter | `route`, `problem` (the problem type: `not-found`, `over-budget`, ...) |
//! | `keil_searches_over_budget_total` | counter | `route` |
//! | `keil_uploads_total` | counter | |
//! | `keil_upload_games_total` | counter | `outcome` (`stored`, `duplicate`, `invalid`) |
//! | `keil_archive_games` | gauge | `kind` |
//! | `keil_archive_players`, `keil_archive_imports`, `keil_archive_refused` | gauge | |
//! | `keil_archive_store_bytes`, `keil_archive_text_index_bytes` | gauge | |
//! | `keil_archive_text_index_documents` | gauge | |
//! | `keil_index_bytes` | gauge | `index` (`positions`, `patterns`), `held` (`heap`, `mapped`: from `--cache-dir`'s files) |
//!
//! `route` is the matched route's pattern (`/api/v1/games/{id}`), never
//! the raw path; requests that match no route share `unmatched`. The
//! archive gauges are read from [`keil_archive::Archive::stats`] and
//! [`keil_archive::Archive::index_memory`] when scraped, at most every
//! [`ARCHIVE_REFRESH`].
//!
//! With [`crate::ServerOptions::metrics_addr`], `/metrics` is served only
//! on that listener (which serves nothing else) and the public one answers
//! it 404 (`on_its_listener`). The state's middleware
//! (`middleware.rs`) counts the answers (`Metrics::observe_answer`); the
//! application serves [`Metrics::answer`].

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::HttpResponse;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::web;
use keil_archive::Archive;
use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder,
};

use crate::error::{Answered, ApiError};

/// How long the archive gauges are reused between scrapes.
pub const ARCHIVE_REFRESH: Duration = Duration::from_secs(5);

/// The path of the metrics.
pub const PATH: &str = "/metrics";

/// The label of requests that match no route.
const UNMATCHED: &str = "unmatched";

/// Latency buckets, in seconds: 0.5 ms to 10 s.
const BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// A route's pattern, in its resource's data: the `route` label.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RoutePattern(pub &'static str);

/// The server's metrics and their registry.
pub struct Metrics {
    registry: Registry,
    requests: IntCounterVec,
    latency: HistogramVec,
    errors: IntCounterVec,
    over_budget: IntCounterVec,
    uploads: IntCounter,
    upload_games: IntCounterVec,
    games: IntGaugeVec,
    players: IntGauge,
    imports: IntGauge,
    refused: IntGauge,
    store_bytes: IntGauge,
    text_bytes: IntGauge,
    text_documents: IntGauge,
    index_bytes: IntGaugeVec,
    /// When the archive gauges were last read.
    archive_read: Mutex<Option<Instant>>,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

fn register<C: prometheus::core::Collector + Clone + 'static>(r: &Registry, c: C) -> C {
    r.register(Box::new(c.clone()))
        .expect("metric names are distinct");
    c
}

/// A counter with `labels`, registered in `r`.
fn counter(r: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    register(
        r,
        IntCounterVec::new(Opts::new(name, help), labels).expect("valid metric"),
    )
}

/// A gauge, registered in `r`.
fn gauge(r: &Registry, name: &str, help: &str) -> IntGauge {
    register(r, IntGauge::new(name, help).expect("valid metric"))
}

/// A gauge with `labels`, registered in `r`.
fn gauges(r: &Registry, name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    register(
        r,
        IntGaugeVec::new(Opts::new(name, help), labels).expect("valid metric"),
    )
}

/// A histogram of [`BUCKETS`] with `labels`, registered in `r`.
fn histograms(r: &Registry, name: &str, help: &str, labels: &[&str]) -> HistogramVec {
    register(
        r,
        HistogramVec::new(
            HistogramOpts::new(name, help).buckets(BUCKETS.to_vec()),
            labels,
        )
        .expect("valid metric"),
    )
}

impl Metrics {
    /// A new registry with every metric at zero.
    pub fn new() -> Metrics {
        let r = Registry::new();
        Metrics {
            requests: counter(
                &r,
                "keil_http_requests_total",
                "HTTP requests answered, by route pattern, method and status",
                &["route", "method", "status"],
            ),
            latency: histograms(
                &r,
                "keil_http_request_duration_seconds",
                "Time to the answer's head, by route pattern",
                &["route"],
            ),
            errors: counter(
                &r,
                "keil_http_errors_total",
                "Error answers (4xx, 5xx) by route pattern and problem type",
                &["route", "problem"],
            ),
            over_budget: counter(
                &r,
                "keil_searches_over_budget_total",
                "Searches stopped at the query budget (503 over-budget), by route pattern",
                &["route"],
            ),
            uploads: register(
                &r,
                IntCounter::new("keil_uploads_total", "Uploads that reached the archive")
                    .expect("valid metric"),
            ),
            upload_games: counter(
                &r,
                "keil_upload_games_total",
                "Game trees of uploads, by outcome",
                &["outcome"],
            ),
            games: gauges(
                &r,
                "keil_archive_games",
                "Stored games, by game kind",
                &["kind"],
            ),
            players: gauge(&r, "keil_archive_players", "Distinct player names"),
            imports: gauge(&r, "keil_archive_imports", "Import runs logged"),
            refused: gauge(
                &r,
                "keil_archive_refused",
                "Refused games logged over all imports",
            ),
            store_bytes: gauge(
                &r,
                "keil_archive_store_bytes",
                "Bytes on disk of the store (the SQLite database and its WAL, or the PostgreSQL archive's tables)",
            ),
            text_bytes: gauge(
                &r,
                "keil_archive_text_index_bytes",
                "Bytes on disk of the text index",
            ),
            text_documents: gauge(
                &r,
                "keil_archive_text_index_documents",
                "Games in the text index",
            ),
            index_bytes: gauges(
                &r,
                "keil_index_bytes",
                "Bytes the in-memory indexes hold, by index and where: the heap, or mapped from the node cache's files",
                &["index", "held"],
            ),
            archive_read: Mutex::new(None),
            registry: r,
        }
    }

    /// Counts an upload's game trees by outcome (from the upload's answer).
    pub fn uploaded(&self, stored: u64, duplicates: u64, invalid: u64) {
        self.uploads.inc();
        for (outcome, n) in [
            ("stored", stored),
            ("duplicate", duplicates),
            ("invalid", invalid),
        ] {
            self.upload_games.with_label_values(&[outcome]).inc_by(n);
        }
    }

    /// Counts one answered request.
    fn observe(
        &self,
        route: &str,
        method: &Method,
        status: u16,
        problem: Option<&str>,
        took: Duration,
    ) {
        let method = match *method {
            Method::GET => "GET",
            Method::POST => "POST",
            Method::HEAD => "HEAD",
            Method::PUT => "PUT",
            Method::DELETE => "DELETE",
            Method::PATCH => "PATCH",
            Method::OPTIONS => "OPTIONS",
            _ => "other",
        };
        let code = status.to_string();
        self.requests
            .with_label_values(&[route, method, code.as_str()])
            .inc();
        self.latency
            .with_label_values(&[route])
            .observe(took.as_secs_f64());
        if status >= 400 {
            let problem = problem.unwrap_or("other");
            self.errors.with_label_values(&[route, problem]).inc();
            if status == 503 && problem == "over-budget" {
                self.over_budget.with_label_values(&[route]).inc();
            }
        }
    }

    /// Whether the archive gauges are due a refresh; marks them refreshed.
    fn archive_due(&self) -> bool {
        let mut last = self.archive_read.lock().unwrap_or_else(|e| e.into_inner());
        if last.is_some_and(|t| t.elapsed() < ARCHIVE_REFRESH) {
            return false;
        }
        *last = Some(Instant::now());
        true
    }

    fn set_archive(&self, s: &keil_archive::Stats, memory: &keil_archive::IndexMemory) {
        let gauge = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        self.games.reset();
        for (kind, n) in &s.by_kind {
            self.games.with_label_values(&[kind.code()]).set(gauge(*n));
        }
        self.players.set(gauge(s.players));
        self.imports.set(gauge(s.imports));
        self.refused.set(gauge(s.refused));
        self.store_bytes.set(gauge(s.store_bytes));
        self.text_bytes.set(gauge(s.tantivy_bytes));
        self.text_documents.set(gauge(s.text_documents));
        for (index, held) in [
            ("positions", memory.positions),
            ("patterns", memory.patterns),
        ] {
            for (place, n) in [("heap", held.heap), ("mapped", held.mapped)] {
                self.index_bytes
                    .with_label_values(&[index, place])
                    .set(gauge(n));
            }
        }
    }

    /// The registry in the Prometheus text format.
    pub fn render(&self) -> String {
        let mut out = Vec::new();
        // Writing to a Vec fails only for a metric family without metrics.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

/// Whether the request may go on: with a metrics listener (its
/// address, `metrics_addr`), `/metrics` only there and nothing else there.
pub(crate) fn on_its_listener(req: &ServiceRequest, metrics_addr: Option<SocketAddr>) -> bool {
    match metrics_addr {
        None => true,
        Some(addr) => (req.app_config().local_addr() == addr) == (req.path() == PATH),
    }
}

impl Metrics {
    /// `GET /metrics`'s answer: refreshes the archive gauges from
    /// `archive` when due, answers the text format.
    ///
    /// # Errors
    /// Archive errors while reading its counts (500).
    pub async fn answer(&self, archive: &Arc<Archive>) -> Result<HttpResponse, ApiError> {
        if self.archive_due() {
            let archive = Arc::clone(archive);
            let (stats, memory) =
                web::block(move || archive.stats().map(|s| (s, archive.index_memory()))).await??;
            self.set_archive(&stats, &memory);
        }
        Ok(HttpResponse::Ok()
            .content_type(TextEncoder::new().format_type())
            .insert_header(("cache-control", "no-store"))
            .body(self.render()))
    }

    /// Counts an answer by route pattern, method and status, its time
    /// (`elapsed` since its request arrived), and its problem type (from
    /// `Answered`).
    pub(crate) fn observe_answer<B>(&self, res: &ServiceResponse<B>, elapsed: Duration) {
        let route = res
            .request()
            .app_data::<RoutePattern>()
            .map_or(UNMATCHED, |r| r.0);
        let problem = res
            .response()
            .extensions()
            .get::<Answered>()
            .map(|a| a.kind);
        self.observe(
            route,
            res.request().method(),
            res.status().as_u16(),
            problem,
            elapsed,
        );
    }
}
