//! What a node start costs, index by index: opens an existing archive
//! read-only and loads the position index (game summaries and segments)
//! and then the pattern index (from its blocks, or its snapshot), one
//! after the other, printing each one's time and the process's resident
//! memory after it.
//!
//! ```text
//! RAYON_NUM_THREADS=1 cargo run --release -p keil-archive --example node_start -- \
//!     ARCHIVE_DIR [CACHE_DIR]
//! ```
//!
//! `ARCHIVE_DIR` may be a PostgreSQL URL (`postgres://…`; the node's
//! directory is then a new one under the system's temporary directory).
//!
//! With `CACHE_DIR` ([`keil_archive::Archive::cache_in`]), the position
//! segments are mapped from that directory and the pattern index read
//! from its snapshot there (the first run writes them).
//!
//! With `RAYON_NUM_THREADS=1` the figures are one core's (the node-start
//! target is per million games on one core); the server's warm-up runs the
//! two loads at once.
//!
//! With `KEIL_ONLY=patterns` only the pattern index is loaded (and the
//! user and system CPU time of the load printed beside its wall time),
//! with `KEIL_ONLY=positions` only the position index. The position index
//! is read as a server's start reads it
//! ([`keil_archive::Positions::load_for_start`]: on PostgreSQL the
//! segments' directories alone, their bytes then timed apart).
//! With `KEIL_UNMERGED=1` the pattern index is loaded as a server's
//! warm-up loads it: its games alone, the region index left for later
//! ([`keil_archive::Patterns::load_unmerged`]); then what the server does
//! while it serves ([`keil_archive::Patterns::settle`]: the region index
//! filled and merged) is timed apart.

use std::time::Instant;

use keil_archive::Archive;

/// The process's resident memory: all of it (`VmRSS`), then its heap
/// (`RssAnon`) and its mapped files' pages (`RssFile`), in MiB.
fn rss_mib() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024)
    };
    format!(
        "{} MiB (heap {} MiB, mapped files {} MiB)",
        field("VmRSS:"),
        field("RssAnon:"),
        field("RssFile:")
    )
}

/// The process's user and system CPU time so far, in seconds
/// (`/proc/self/stat`'s `utime` and `stime`, at 100 ticks a second).
fn cpu_seconds() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's closing parenthesis: utime is the
    // 12th of them, stime the 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let field = |i: usize| {
        rest.split_whitespace()
            .nth(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 100.0
    };
    (field(11), field(12))
}

/// Runs `f`, then says its wall time, the process's CPU time during it
/// and its resident memory after it.
fn timed<T>(f: impl FnOnce() -> T) -> (T, String) {
    let (t, cpu) = (Instant::now(), cpu_seconds());
    let value = f();
    let (user, system) = cpu_seconds();
    let said = format!(
        "{:.2} s (CPU {:.1} s user, {:.1} s system), {}",
        t.elapsed().as_secs_f64(),
        user - cpu.0,
        system - cpu.1,
        rss_mib()
    );
    (value, said)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .ok_or("usage: node_start ARCHIVE_DIR [CACHE_DIR]")?;
    let t = Instant::now();
    // A PostgreSQL URL (its node directory a temporary one) or a directory.
    let node = std::env::temp_dir().join(format!("keil-node-start-{}", std::process::id()));
    let archive = Archive::open_read_only(keil_archive::Location::parse(&dir, || node.clone()))?;
    if let Some(cache) = args.next() {
        archive.cache_in(cache)?;
    }
    let games = archive.stats()?.games;
    println!(
        "open: {:.2} s, {games} games, {}",
        t.elapsed().as_secs_f64(),
        rss_mib()
    );
    if std::env::var("KEIL_ONLY").as_deref() != Ok("patterns") {
        let t = Instant::now();
        let deferred = archive.positions().load_for_start()?;
        println!(
            "positions{}: {:.2} s, {}",
            if deferred { " (directories)" } else { "" },
            t.elapsed().as_secs_f64(),
            rss_mib()
        );
        if deferred {
            let t = Instant::now();
            archive.positions().load()?;
            println!(
                "positions' segments (after a server listens): {:.2} s, {}",
                t.elapsed().as_secs_f64(),
                rss_mib()
            );
        }
    }
    if std::env::var("KEIL_ONLY").as_deref() == Ok("positions") {
        return Ok(());
    }
    let (stats, said) = timed(|| {
        if std::env::var_os("KEIL_UNMERGED").is_some() {
            archive.patterns().load_unmerged()
        } else {
            archive.patterns().load()
        }
    });
    let stats = stats?;
    println!(
        "patterns: {said} ({} games, {} index bytes, {} mapped, {})",
        stats.games,
        stats.bytes,
        stats.mapped_bytes,
        if stats.from_snapshot {
            "from the snapshot"
        } else if stats.regions_deferred {
            "from the blocks, the region index deferred"
        } else {
            "from the blocks"
        }
    );
    if stats.regions_deferred {
        let (settled, said) = timed(|| archive.patterns().settle());
        settled?;
        println!("settle (region index filled, merged): {said}");
    }
    Ok(())
}
