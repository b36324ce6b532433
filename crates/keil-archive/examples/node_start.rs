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
//! With `CACHE_DIR` ([`keil_archive::Archive::cache_in`]), the position
//! segments are mapped from that directory and the pattern index read
//! from its snapshot there (the first run writes them).
//!
//! With `RAYON_NUM_THREADS=1` the figures are one core's (issue 23's
//! target is per million games on one core); the server's warm-up runs the
//! two loads at once.

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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .ok_or("usage: node_start ARCHIVE_DIR [CACHE_DIR]")?;
    let t = Instant::now();
    let archive = Archive::open_read_only(&dir)?;
    if let Some(cache) = args.next() {
        archive.cache_in(cache)?;
    }
    let games = archive.stats()?.games;
    println!(
        "open: {:.2} s, {games} games, {}",
        t.elapsed().as_secs_f64(),
        rss_mib()
    );
    let t = Instant::now();
    archive.positions().load()?;
    println!(
        "positions: {:.2} s, {}",
        t.elapsed().as_secs_f64(),
        rss_mib()
    );
    let t = Instant::now();
    let stats = archive.patterns().load()?;
    println!(
        "patterns: {:.2} s, {} ({} games, {} index bytes, {} mapped, {})",
        t.elapsed().as_secs_f64(),
        rss_mib(),
        stats.games,
        stats.bytes,
        stats.mapped_bytes,
        if stats.from_snapshot {
            "from the snapshot"
        } else {
            "from the blocks"
        }
    );
    Ok(())
}
