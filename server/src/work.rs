//! Where archive work runs, so that no kind of request starves another:
//!
//! - plain reads (a game, a list, a player, the stats) on actix's blocking
//!   pool ([`crate::ServerOptions::blocking_threads`] per worker);
//! - searches (text, position, pattern) on their own threads
//!   ([`crate::ServerOptions::search_threads`] plain threads; a pattern
//!   scan's or an index load's parallel parts run on rayon's global pool),
//!   each under a [`Budget`] of [`crate::ServerOptions::query_budget`] from
//!   the request's arrival, and cancelled when the client goes away (actix
//!   drops the handler's future; [`CancelOnDrop`] then cancels the budget,
//!   and the search stops at its next check);
//! - uploads, one at a time, on the writer thread (an import's parallel
//!   validation on the writer's pool of [`WRITER_THREADS`] threads).
//!
//! A long upload or four heavy pattern searches thus never hold the
//! threads that `GET /api/v1/games/{id}` needs; SQLite's WAL lets reads
//! run beside the import. Nor do they take the cores from reads: on Linux
//! the search threads, the writer and its pool, and rayon's global pool
//! (a search's parallel parts) run at nice [`BACKGROUND_NICE`], so that a
//! read that becomes runnable preempts them rather than waiting for a
//! busy thread's turn.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use keil_archive::{Archive, Budget};

use crate::ServerState;
use crate::error::ApiError;

/// The nice value of the threads that run searches and imports (reads
/// run at the process's own, normally 0): 10 gives a runnable read about
/// nine tenths of a core against each of them (CFS weights 1024 and 110).
pub(crate) const BACKGROUND_NICE: i32 = 10;

/// The nice value of the threads that settle a new node's pattern index
/// ([`keil_archive::Patterns::settle`]: its region index filled from the
/// blocks, then merged; [`settle_pool`]): below the searches, which scan
/// until the region index is filled and share the cores with it
/// otherwise.
pub(crate) const SETTLE_NICE: i32 = 19;

/// A rayon pool of as many threads as the global one, at [`SETTLE_NICE`],
/// for [`keil_archive::Patterns::settle`] (run inside it with `install`,
/// its parallel parts run there); dropped after it.
///
/// # Errors
/// When its threads cannot be spawned (the caller then settles on the
/// global pool).
pub(crate) fn settle_pool() -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(rayon::current_num_threads())
        .thread_name(|i| format!("keil-settle-{i}"))
        .start_handler(|_| lower_priority_to(SETTLE_NICE))
        .build()
}

/// Lowers the calling thread's CPU priority to [`BACKGROUND_NICE`] (Linux,
/// where nice is per thread; elsewhere nothing). A refusal (a sandbox
/// that forbids it) only costs the priority, so it is ignored.
pub(crate) fn lower_priority() {
    lower_priority_to(BACKGROUND_NICE);
}

/// Lowers the calling thread's CPU priority to `nice`, as
/// [`lower_priority`].
pub(crate) fn lower_priority_to(nice: i32) {
    #[cfg(target_os = "linux")]
    {
        let thread = rustix::thread::gettid();
        let _ = rustix::process::setpriority_process(Some(thread), nice);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
}

/// Builds rayon's global pool (a search's parallel parts run there) with
/// its threads at [`BACKGROUND_NICE`]. Once per process: later calls, or a
/// pool already built by an earlier use, leave it as it is.
pub(crate) fn lower_global_pool_priority() {
    let _ = rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("keil-parallel-{i}"))
        .start_handler(|_| lower_priority())
        .build_global();
}

/// Threads of the writer's pool: an import validates games in parallel on
/// them (one upload at a time).
pub(crate) const WRITER_THREADS: usize = 2;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// The search threads and the writer thread of a server.
///
/// The search threads are plain threads, not a rayon pool: a search may
/// wait on a lock that another search holds while its parallel part runs
/// (the pattern index's refresh), and a rayon worker that waits for its
/// parallel part runs other queued jobs meanwhile. Two first pattern
/// searches on a rayon pool thus deadlocked now and then: one worker held
/// the refresh lock and, waiting for its replay, took up the other search,
/// which waited for that lock (seen in about 1 run in 12 of the page tests).
pub(crate) struct Work {
    /// Jobs for the search threads, which take them in turn. Dropped with
    /// the state: the threads then end.
    searches: mpsc::Sender<Job>,
    /// Jobs for the writer thread, which runs them one after another inside
    /// the writer's pool. Dropped with the state: the thread then ends.
    writer: mpsc::Sender<Job>,
    /// The budget of one search.
    pub(crate) budget: Duration,
}

fn log_panic(what: &'static str) -> impl Fn(Box<dyn std::any::Any + Send>) + Send + Sync {
    move |p| {
        let message = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        tracing::error!(%message, "a {what} job panicked");
    }
}

impl Work {
    /// Starts `search_threads` search threads (at least one) and the writer
    /// thread with its pool.
    ///
    /// # Panics
    /// When the threads cannot be started (the OS refuses threads).
    pub(crate) fn new(search_threads: usize, budget: Duration) -> Work {
        lower_global_pool_priority();
        let searches = job_threads(
            search_threads.max(1),
            "search",
            |i| format!("keil-search-{i}"),
            |job| job(),
        );
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(WRITER_THREADS)
            .thread_name(|i| format!("keil-import-{i}"))
            .start_handler(|_| lower_priority())
            .panic_handler(log_panic("writer"))
            .build()
            .expect("writer threads");
        // A panicking upload answers 500 (its sender is dropped) and the
        // writer goes on with the next.
        let writer = job_threads(
            1,
            "writer",
            |_| "keil-writer".into(),
            move |job| pool.install(job),
        );
        Work {
            searches,
            writer,
            budget,
        }
    }
}

/// Starts `count` threads (named by `name`, at [`BACKGROUND_NICE`]) that
/// take the jobs sent to the returned channel in turn and hand each to
/// `run`; a job that panics is logged as a `what` job and the thread goes
/// on. The threads end when the sender is dropped.
///
/// # Panics
/// When the threads cannot be started (the OS refuses threads).
fn job_threads(
    count: usize,
    what: &'static str,
    name: impl Fn(usize) -> String,
    run: impl Fn(Job) + Send + Sync + 'static,
) -> mpsc::Sender<Job> {
    let (jobs, queued) = mpsc::channel::<Job>();
    let queued = Arc::new(Mutex::new(queued));
    let run = Arc::new(run);
    for i in 0..count {
        let (queued, run) = (Arc::clone(&queued), Arc::clone(&run));
        std::thread::Builder::new()
            .name(name(i))
            .spawn(move || {
                lower_priority();
                loop {
                    // The lock is held only to take the next job.
                    let job = queued.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok(job) = job else { return };
                    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(job)));
                    if let Err(p) = ran {
                        log_panic(what)(p);
                    }
                }
            })
            .expect("job threads");
    }
    jobs
}

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
        .searches
        .send(Box::new(move || {
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
        .writer
        .send(Box::new(move || {
            let _ = tx.send(f(&st));
        }))
        .map_err(|_| ApiError::Internal("the writer thread has stopped".into()))?;
    rx.await
        .map_err(|_| ApiError::Internal("the upload failed (see the log)".into()))?
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// A search's time on its thread is charged to its client, who may
    /// start no search while it owes more than a minute's allowance; other
    /// clients are not affected.
    #[test]
    fn a_client_that_spent_its_search_time_waits() {
        let dir = tempfile::tempdir().unwrap();
        let archive = Arc::new(Archive::open(dir.path()).unwrap());
        let options = crate::ServerOptions {
            rate_limits: crate::limits::RateLimits {
                search_seconds: 1,
                ..crate::limits::RateLimits::off()
            },
            ..crate::ServerOptions::new(archive)
        };
        let state = crate::ServerState::new(&options).unwrap();
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
        let options = crate::ServerOptions {
            query_budget: Duration::from_secs(60),
            ..crate::ServerOptions::new(archive)
        };
        let state = crate::ServerState::new(&options).unwrap();
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
