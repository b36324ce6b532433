//! Warming a node up before it serves: [`warm_up`] loads what the first
//! queries would otherwise load under load, then reads the indexes' rest
//! on a thread of its own while the node serves.

use std::sync::Arc;
use std::time::Duration;

use keil_archive::Archive;

use crate::pools;

/// How long a [`warm_up`] took: the whole, and each index's load (they run
/// at the same time).
#[derive(Clone, Debug)]
pub struct WarmUp {
    /// From start to both loads done.
    pub total: std::time::Duration,
    /// The position index's segments (or their directories alone) and
    /// game summaries.
    pub positions: std::time::Duration,
    /// Whether the segments' bytes are read after the start, while the node
    /// serves ([`keil_archive::Positions::load_for_start`]).
    pub positions_deferred: bool,
    /// The pattern index's load, and what it holds (whether it came from
    /// the node's snapshot, the bytes mapped); `None` when not loaded.
    pub patterns: Option<(std::time::Duration, keil_archive::PatternIndexStats)>,
}

/// Loads what the first queries would otherwise load under load: the
/// position index's segments and game summaries
/// ([`keil_archive::Positions::load_for_start`]: on PostgreSQL the
/// segments' block directories alone) and, when `patterns`, the pattern
/// index's games from its blocks ([`keil_archive::Patterns::load_unmerged`]:
/// about 3 KB per 19×19 game), the two on two threads at once. Call before
/// serving, so that concurrent first requests do not wait for it.
///
/// Then, on a thread of its own while the node serves (each step logged
/// when done): the position segments' bytes, where the start left them in
/// the store ([`keil_archive::Positions::load`]; position searches read
/// the blocks they need from the store meanwhile), pinned into the heap
/// after as `index_memory` allows (`keil serve --index-memory`: bytes,
/// [`Archive::pin_indexes`], which the caller runs after the start);
/// then the explorer's first page, answered once into the position
/// index's cache (`answer_explorer_root`); then the pattern
/// index's region index, read from the blocks and merged, and the node's
/// snapshot written, on a rayon pool of its own at nice 19 (below the
/// searches: [`keil_archive::Patterns::settle`]). Pattern searches answer
/// meanwhile, those the region index answers by a scan until it is
/// filled, then from its unmerged segments.
///
/// # Errors
/// Archive errors (the position index's first).
pub fn warm_up(
    archive: &Arc<Archive>,
    patterns: bool,
    index_memory: Option<u64>,
) -> keil_archive::Result<WarmUp> {
    // The loads below are the global pool's first use: build it now, with
    // its threads below the readers' priority.
    pools::lower_global_pool_priority();
    let start = std::time::Instant::now();
    fn timed<T>(
        f: impl FnOnce() -> keil_archive::Result<T>,
    ) -> keil_archive::Result<(Duration, T)> {
        let t = std::time::Instant::now();
        f().map(|v| (t.elapsed(), v))
    }
    let (positions, pattern_load) = std::thread::scope(|scope| {
        let p = patterns.then(|| scope.spawn(|| timed(|| archive.patterns().load_unmerged())));
        let positions = timed(|| archive.positions().load_for_start());
        let pattern_load = p.map(|h| h.join().expect("the pattern load does not panic"));
        (positions, pattern_load)
    });
    let (positions, positions_deferred) = positions?;
    let warm = WarmUp {
        total: start.elapsed(),
        positions,
        positions_deferred,
        patterns: pattern_load.transpose()?,
    };
    let archive = archive.clone();
    let after_start = move || {
        if positions_deferred {
            load_position_segments(&archive);
            if let Some(budget) = index_memory {
                let pinned = archive.pin_indexes(budget).pinned;
                tracing::info!(
                    "{pinned} bytes of the indexes pinned after the position segments were read"
                );
            }
        }
        answer_explorer_root(&archive);
        if patterns {
            match pools::settle_pool() {
                Ok(pool) => pool.install(|| settle(&archive)),
                Err(_) => settle(&archive),
            }
        }
    };
    let spawned = std::thread::Builder::new()
        .name("settle".into())
        .spawn(after_start);
    if let Err(e) = spawned {
        tracing::warn!(
            "no thread to read the indexes' rest ({e}): the pattern index stays unmerged \
             and position searches read blocks from the store"
        );
    }
    Ok(warm)
}

/// Answers the explorer's first page once ([`crate::pages::root_query`]:
/// the empty main board, which every game of that board reached), so that
/// its answer is in the position index's cache of heavy answers before a
/// visitor asks (a new node's first `GET /positions` at 781,779 19×19 games
/// otherwise counted them all: 0.5 s). Logs how long it took.
fn answer_explorer_root(archive: &Archive) {
    let t = std::time::Instant::now();
    let answered = crate::pages::root_query(archive)
        .and_then(|q| q.map(|q| archive.positions().search(&q)).transpose());
    match answered {
        Ok(Some(a)) => tracing::info!(
            "explorer's empty board answered ahead ({} games) in {:.1} s",
            a.total_games,
            t.elapsed().as_secs_f64()
        ),
        Ok(None) => {}
        Err(e) => tracing::warn!("explorer's empty board not answered ahead: {e}"),
    }
}

/// Reads the position segments' bytes a node start left in the store
/// ([`keil_archive::Positions::load`]), logging how long it took.
fn load_position_segments(archive: &Archive) {
    let t = std::time::Instant::now();
    match archive.positions().load() {
        Ok(()) => tracing::info!(
            "position index's segments read in {:.1} s",
            t.elapsed().as_secs_f64()
        ),
        Err(e) => tracing::warn!(
            "position index's segments not read (searches read their blocks from the store \
             until one does): {e}"
        ),
    }
}

/// Fills and merges the pattern index's region index and writes the
/// node's snapshot ([`keil_archive::Patterns::settle`]), logging the
/// outcome.
fn settle(archive: &Archive) {
    let t = std::time::Instant::now();
    match archive.patterns().settle() {
        Ok(true) => tracing::info!(
            "pattern index's region index filled and merged, its snapshot written in {:.1} s",
            t.elapsed().as_secs_f64()
        ),
        Ok(false) => {}
        Err(e) => tracing::warn!(
            "pattern index not settled (its region index unfilled or not merged, or its \
             snapshot not written): {e}"
        ),
    }
}
