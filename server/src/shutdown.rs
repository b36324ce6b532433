//! Stopping on signals: SIGTERM gracefully, SIGINT and SIGQUIT at once.
//!
//! actix-server's own graceful stop (2.6) can drop a request in flight: a
//! worker whose connection channel closes (the accept thread stopped)
//! before it reads its stop message ends at once, with its connections
//! (actix/actix-net#945, fixed after 2.6). So the server handles the
//! signals itself ([`on_signals`]), and a graceful stop here is:
//!
//! 1. pause accepting (the listeners stay bound, new connections wait in
//!    the kernel's backlog and are reset at the end);
//! 2. wait until no request is in flight ([`InFlight`], counted by
//!    [`track`](crate::middleware::track) from the request's head to its
//!    answer's last body byte),
//!    or until the grace period has passed;
//! 3. stop the server at once: what is left is idle keep-alive connections
//!    (or, past the grace period, the requests that did not finish).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use actix_web::dev::ServerHandle;

/// How often a graceful stop looks at the requests in flight.
const POLL: Duration = Duration::from_millis(20);

/// The number of requests in flight: from their head's arrival to the end
/// of their answer's body (or the connection's end).
#[derive(Clone, Debug, Default)]
pub struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    /// Requests in flight now.
    pub fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// Counts one more request, until the guard is dropped.
    pub(crate) fn enter(&self) -> Guard {
        self.0.fetch_add(1, Ordering::SeqCst);
        Guard(Arc::clone(&self.0))
    }
}

/// One request in flight; leaves the count when dropped.
pub(crate) struct Guard(Arc<AtomicUsize>);

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Stops `server` on the process's signals, for as long as the actix
/// system runs: SIGTERM gracefully (see the module docs; at most `grace`
/// for the requests in flight), SIGINT and SIGQUIT at once (Ctrl-C
/// elsewhere). `in_flight` is the server's count of requests in flight.
/// Spawned by [`crate::bind`].
pub(crate) async fn on_signals(server: ServerHandle, in_flight: InFlight, grace: Duration) {
    let graceful = match next_signal().await {
        Some(graceful) => graceful,
        None => return,
    };
    if !graceful {
        tracing::info!("interrupted: stopping now");
        server.stop(false).await;
        return;
    }
    let start = Instant::now();
    tracing::info!(
        in_flight = in_flight.count(),
        grace_ms = grace.as_millis() as u64,
        "SIGTERM received: no new connection; requests in flight may finish"
    );
    server.pause().await;
    while in_flight.count() > 0 && start.elapsed() < grace {
        actix_web::rt::time::sleep(POLL).await;
    }
    let left = in_flight.count();
    if left > 0 {
        tracing::warn!(
            unfinished = left,
            "grace period over: closing the requests still in flight"
        );
    }
    server.stop(false).await;
}

/// Waits for the next stop signal: `Some(true)` for SIGTERM, `Some(false)`
/// for SIGINT or SIGQUIT; `None` when signals cannot be listened for
/// (logged).
#[cfg(unix)]
async fn next_signal() -> Option<bool> {
    use tokio::signal::unix::{SignalKind, signal};
    let listen = |kind| {
        signal(kind)
            .map_err(|e| tracing::warn!("cannot listen for signal {kind:?}: {e}"))
            .ok()
    };
    let (mut term, mut int, mut quit) = (
        listen(SignalKind::terminate())?,
        listen(SignalKind::interrupt())?,
        listen(SignalKind::quit())?,
    );
    tokio::select! {
        _ = term.recv() => Some(true),
        _ = int.recv() => Some(false),
        _ = quit.recv() => Some(false),
    }
}

/// Waits for Ctrl-C (a stop at once).
#[cfg(not(unix))]
async fn next_signal() -> Option<bool> {
    tokio::signal::ctrl_c()
        .await
        .map_err(|e| tracing::warn!("cannot listen for Ctrl-C: {e}"))
        .ok()
        .map(|()| false)
}
