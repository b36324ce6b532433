//! Serving: [`bind`] builds the HTTP server over the state, wrapped in
//! its middlewares, and binds it; [`run`] serves until the process is
//! stopped, while the node's indexes follow the store.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use actix_web::dev::Server;
use actix_web::middleware::{Compress, Condition, from_fn};
use actix_web::{App, HttpServer, web};
use keil_archive::Archive;

use crate::app::app_config;
use crate::state::{ServerOptions, ServerState, default_workers};
use crate::{documents, metrics, middleware, request_id, shutdown};

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
    let in_flight = state.in_flight.clone();
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
            .wrap(from_fn(middleware::throttle))
            .wrap(from_fn(documents::documents))
            .wrap(from_fn(middleware::count))
            .wrap(Compress::default())
            .wrap(Condition::new(
                log,
                tracing_actix_web::TracingLogger::<request_id::RootSpan>::new(),
            ))
            .wrap(from_fn(request_id::request_id))
            .wrap(from_fn(middleware::track))
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
        in_flight,
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
