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
//! - [`ServerOptions`] → [`bind`] (an actix [`Server`](actix_web::dev::Server) and the addresses it
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
//!
//! # Layers
//!
//! Modules import downwards only. From the ground up: the shapes and
//! plumbing (`dto/`, `error.rs`, `http.rs`, `tokens.rs`, `svg/`, ...); the
//! parts of the state (`pools.rs`, `limits.rs`, `metrics.rs`,
//! `shutdown.rs`); the state itself (`state.rs`); what reads the state
//! (`work.rs`, `middleware.rs`, `params/`, `export.rs`, `upload.rs`); the
//! API's routes (`routes/`) and the pages (`pages/`); the application
//! that wires both (`app.rs`, `openapi.rs`); serving (`server.rs`,
//! `warm.rs`). This file only declares the modules and re-exports.

mod app;
pub mod assets;
pub mod documents;
pub mod dto;
mod error;
pub mod export;
mod http;
pub mod limits;
pub mod metrics;
mod middleware;
pub mod openapi;
pub mod pages;
pub mod params;
mod play;
mod pools;
mod refusal;
mod replay;
pub mod request_id;
pub mod routes;
mod server;
mod shutdown;
mod state;
pub mod svg;
pub mod tokens;
mod upload;
mod warm;
mod work;

pub use app::{app_config, routes};
pub use error::{ApiError, Form, PROBLEM_JSON, Problem, answer};
pub use server::{bind, run, run_blocking};
pub use state::{
    DEFAULT_BLOCKING_THREADS, DEFAULT_BODY_TIMEOUT, DEFAULT_GRACE, DEFAULT_MAX_UPLOAD,
    DEFAULT_MAX_UPLOAD_GAMES, DEFAULT_QUERY_BUDGET, DEFAULT_SEARCH_THREADS, DEFAULT_UPLOAD_BATCH,
    ServerOptions, ServerState, TOKEN_ENV, default_workers, env_token,
};
pub use warm::{WarmUp, warm_up};
