//! Where archive work runs, so that no kind of request starves another:
//!
//! - plain reads (a game, a list, a player, the stats) on actix's blocking
//!   pool ([`crate::state::ServerOptions::blocking_threads`] per worker);
//! - searches (text, position, pattern) on their own threads
//!   ([`crate::state::ServerOptions::search_threads`] plain threads; a pattern
//!   scan's or an index load's parallel parts run on rayon's global pool),
//!   each under a [`Budget`] of [`crate::state::ServerOptions::query_budget`] from
//!   the request's arrival, and cancelled when the client goes away (actix
//!   drops the handler's future; [`CancelOnDrop`] then cancels the budget,
//!   and the search stops at its next check);
//! - uploads, one at a time, on the writer thread (an import's parallel
//!   validation on the writer's pool of
//!   [`WRITER_THREADS`](crate::pools::WRITER_THREADS) threads).
//!
//! A long upload or four heavy pattern searches thus never hold the
//! threads that `GET /api/v1/games/{id}` needs; SQLite's WAL lets reads
//! run beside the import. Nor do they take the cores from reads: the
//! threads ([`crate::pools`]) run at a lower priority.

use std::sync::Arc;

use keil_archive::{Archive, Budget};

use crate::error::ApiError;
use crate::state::ServerState;

/// Cancels a budget when dropped: held by a handler while its search runs,
/// so that a handler dropped by actix (the client closed the connection)
/// stops the search.
pub(crate) struct CancelOnDrop(pub(crate) Budget);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Runs a search on the search threads under the server's budget, counted from
/// now (time waiting for a search thread counts). An archive error
/// [`keil_archive::Error::OverBudget`] becomes [`ApiError::OverBudget`].
/// The time it runs on its thread is charged to the request's client
/// ([`crate::limits::WorkMeter`], when the request came through the
/// throttle), which may start none while it owes more than its allowance.
///
/// # Errors
/// The error of `f`; [`ApiError::TooManyRequests`] when the client owes
/// more search time than its allowance; [`ApiError::OverBudget`] when the
/// budget ran out before the search started; [`ApiError::Internal`] when
/// it panicked.
pub(crate) async fn search<T, F>(state: &ServerState, f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Archive, &Budget) -> Result<T, ApiError> + Send + 'static,
{
    let meter = state.limits.work().cloned();
    let charge = match (crate::limits::CLIENT.try_with(|c| *c), meter) {
        (Ok(client), Some(meter)) => {
            meter.check(client)?;
            Some((client, meter))
        }
        _ => None,
    };
    let budget = Budget::new(state.work.budget);
    let guard = CancelOnDrop(budget.clone());
    let (tx, rx) = tokio::sync::oneshot::channel();
    let archive = Arc::clone(&state.archive);
    state
        .work
        .send_search(Box::new(move || {
            let started = std::time::Instant::now();
            let out = match budget.check() {
                Ok(()) => f(&archive, &budget),
                Err(e) => Err(e.into()),
            };
            if let Some((client, meter)) = charge {
                meter.charge(client, started.elapsed());
            }
            let _ = tx.send(out);
        }))
        .map_err(|_| ApiError::Internal("the search threads have stopped".into()))?;
    let out = rx
        .await
        .map_err(|_| ApiError::Internal("the search failed (see the log)".into()));
    drop(guard);
    out?
}

/// Runs an archive read that `scans` (its work grows with the archive: a
/// list whose filter no index serves, [`keil_archive::GameFilter::scans`])
/// as a [`search`]; any other on actix's blocking pool, beside the reads
/// of one game, with an unlimited budget.
///
/// # Errors
/// As [`search`], or the error of `f`.
pub(crate) async fn read<T, F>(state: &ServerState, scans: bool, f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Archive, &Budget) -> Result<T, ApiError> + Send + 'static,
{
    if scans {
        return search(state, f).await;
    }
    let archive = Arc::clone(&state.archive);
    actix_web::web::block(move || f(&archive, &Budget::unlimited())).await?
}

/// Runs a write (an upload's import) on the writer thread, after the
/// writes queued before it.
///
/// # Errors
/// The error of `f`; [`ApiError::Internal`] when it panicked.
pub(crate) async fn write<T, F>(
    state: &actix_web::web::Data<ServerState>,
    f: F,
) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&ServerState) -> Result<T, ApiError> + Send + 'static,
{
    let (tx, rx) = tokio::sync::oneshot::channel();
    let st = state.clone();
    state
        .work
        .send_write(Box::new(move || {
            let _ = tx.send(f(&st));
        }))
        .map_err(|_| ApiError::Internal("the writer thread has stopped".into()))?;
    rx.await
        .map_err(|_| ApiError::Internal("the upload failed (see the log)".into()))?
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    /// A search's time on its thread is charged to its client, who may
    /// start no search while it owes more than a minute's allowance; other
    /// clients are not affected.
    #[test]
    fn a_client_that_spent_its_search_time_waits() {
        let dir = tempfile::tempdir().unwrap();
        let archive = Arc::new(Archive::open(dir.path()).unwrap());
        let options = crate::state::ServerOptions {
            rate_limits: crate::limits::RateLimits {
                search_seconds: 1,
                ..crate::limits::RateLimits::off()
            },
            ..crate::state::ServerOptions::new(archive)
        };
        let state = crate::state::ServerState::new(&options).unwrap();
        let (a, b) = (
            std::net::IpAddr::from([10, 0, 0, 1]),
            std::net::IpAddr::from([10, 0, 0, 2]),
        );
        let as_client = |client, sleep: Duration| {
            crate::limits::CLIENT.scope(
                client,
                search(&state, move |_, _| {
                    std::thread::sleep(sleep);
                    Ok(())
                }),
            )
        };
        actix_web::rt::System::new().block_on(async {
            // 1.2 s of work: past the allowance of 1 s a minute.
            as_client(a, Duration::from_millis(1200)).await.unwrap();
            match as_client(a, Duration::ZERO).await {
                Err(ApiError::TooManyRequests { what, retry_after }) => {
                    assert_eq!(what, "search time");
                    // 0.2 s over, drained at 1 s a minute: about 12 s.
                    assert!((5..=13).contains(&retry_after), "{retry_after}");
                }
                other => panic!("{:?}", other.map(|_| ())),
            }
            as_client(b, Duration::ZERO).await.unwrap();
            // Outside a request (no client), nothing is charged or refused.
            search(&state, |_, _| Ok(())).await.unwrap();
        });
    }

    /// A search whose request goes away (actix drops the handler's future
    /// when the client disconnects; here a timeout drops it) is cancelled:
    /// its next budget check fails, long before its budget would.
    #[test]
    fn a_search_whose_request_is_dropped_stops_at_its_next_check() {
        let dir = tempfile::tempdir().unwrap();
        let archive = Arc::new(Archive::open(dir.path()).unwrap());
        let options = crate::state::ServerOptions {
            query_budget: Duration::from_secs(60),
            ..crate::state::ServerOptions::new(archive)
        };
        let state = crate::state::ServerState::new(&options).unwrap();
        let (seen, stopped) = mpsc::channel();
        actix_web::rt::System::new().block_on(async {
            let running = search(&state, move |_, budget| {
                let start = Instant::now();
                while budget.check().is_ok() && start.elapsed() < Duration::from_secs(20) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let _ = seen.send(start.elapsed());
                Ok(())
            });
            let dropped = actix_web::rt::time::timeout(Duration::from_millis(300), running).await;
            assert!(
                dropped.is_err(),
                "the search answered before it was dropped"
            );
        });
        let ran = stopped.recv_timeout(Duration::from_secs(30)).unwrap();
        assert!(
            ran < Duration::from_secs(10),
            "the search ran on for {ran:?}"
        );
    }
}
