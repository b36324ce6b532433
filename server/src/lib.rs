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
//! - Every archive call runs on actix's blocking thread pool
//!   (`web::block`); the archive keeps a pool of read connections and one
//!   writer. Uploads need a bearer token ([`ServerOptions::token`]); with
//!   none configured, writes are disabled.
//!
//! **Invariant:** only this crate knows HTTP and JSON shapes; the archive
//! knows nothing of them.

pub mod dto;
mod error;
pub mod openapi;
pub mod routes;
pub mod svg;
mod upload;

use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};

use actix_web::dev::Server;
use actix_web::{App, HttpServer, web};
use keil_archive::Archive;

pub use error::{ApiError, PROBLEM_JSON, Problem};
pub use routes::{app_config, routes};

/// The default upload body limit: 8 MiB (about 8,000 games).
pub const DEFAULT_MAX_UPLOAD: usize = 8 * 1024 * 1024;

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
    /// Worker threads (default: actix's, one per core).
    pub workers: Option<usize>,
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
    /// Serialises uploads (the archive has one writer; holding this while
    /// importing lets an upload learn the ids it stored).
    pub(crate) writer: Mutex<()>,
}

impl ServerState {
    /// The state for these options.
    pub fn new(options: &ServerOptions) -> ServerState {
        ServerState {
            archive: Arc::clone(&options.archive),
            token: options.token.clone(),
            max_upload: options.max_upload,
            writer: Mutex::new(()),
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
    let mut server = HttpServer::new(move || {
        App::new()
            .wrap(tracing_actix_web::TracingLogger::default())
            .configure(app_config(state.clone()))
    });
    if let Some(w) = options.workers {
        server = server.workers(w);
    }
    let server = server.bind(options.addr)?;
    let addrs = server.addrs();
    Ok((server.run(), addrs))
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
