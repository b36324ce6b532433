//! What a node start costs, index by index: opens an existing archive
//! read-only and loads the position index (game summaries and segments)
//! and then the pattern index (from its blocks), one after the other,
//! printing each one's time and the process's resident memory after it.
//!
//! ```text
//! RAYON_NUM_THREADS=1 cargo run --release -p keil-archive --example node_start -- \
//!     ARCHIVE_DIR [SEGMENT_CACHE_DIR]
//! ```
//!
//! With `SEGMENT_CACHE_DIR`, the position segments are mapped from that
//! directory ([`keil_archive::Positions::cache_segments_in`]; the first
//! run writes them there).
//!
//! With `RAYON_NUM_THREADS=1` the figures are one core's (issue 23's
//! target is per million games on one core); the server's warm-up runs the
//! two loads at once.

use std::time::Instant;

use keil_archive::Archive;

/// The process's resident memory (`VmRSS`), in MiB.
fn rss_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .ok_or("usage: node_start ARCHIVE_DIR [SEGMENT_CACHE_DIR]")?;
    let t = Instant::now();
    let archive = Archive::open_read_only(&dir)?;
    if let Some(cache) = args.next() {
        archive.positions().cache_segments_in(cache)?;
    }
    let games = archive.stats()?.games;
    println!(
        "open: {:.2} s, {games} games, {} MiB",
        t.elapsed().as_secs_f64(),
        rss_mib()
    );
    let t = Instant::now();
    archive.positions().load()?;
    println!(
        "positions: {:.2} s, {} MiB",
        t.elapsed().as_secs_f64(),
        rss_mib()
    );
    let t = Instant::now();
    let stats = archive.patterns().load()?;
    println!(
        "patterns: {:.2} s, {} MiB ({} games, {} index bytes)",
        t.elapsed().as_secs_f64(),
        rss_mib(),
        stats.games,
        stats.bytes
    );
    Ok(())
}
