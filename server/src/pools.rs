//! The threads that run archive work, apart from actix's blocking pool:
//! the search threads and the writer thread with its pool ([`Work`]), and
//! their CPU priority. On Linux the search threads, the writer and its
//! pool, and rayon's global pool (a search's parallel parts) run at nice
//! [`BACKGROUND_NICE`], so that a read that becomes runnable preempts them
//! rather than waiting for a busy thread's turn. Which request runs where
//! is `work.rs`'s to say.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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

/// A piece of archive work sent to a thread.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

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

    /// Queues `job` for the search threads.
    ///
    /// # Errors
    /// When the search threads have stopped (the job is handed back).
    pub(crate) fn send_search(&self, job: Job) -> Result<(), mpsc::SendError<Job>> {
        self.searches.send(job)
    }

    /// Queues `job` for the writer thread, after the writes queued before.
    ///
    /// # Errors
    /// When the writer thread has stopped (the job is handed back).
    pub(crate) fn send_write(&self, job: Job) -> Result<(), mpsc::SendError<Job>> {
        self.writer.send(job)
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
