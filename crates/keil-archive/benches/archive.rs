//! Archive benchmarks over generated side-7 games: import throughput,
//! player search latency (p50/p99), exact position search latency (p50/p99,
//! with and without symmetry, and of the board alone in either button
//! state), bytes on disk per game.
//!
//! `KEIL_BENCH_GAMES=100000 cargo bench -p keil-archive --bench archive`
//! (default 20,000 games). Budgets (2 cores): import ≥ 2,000 games/s,
//! player search p99 ≤ 10 ms, position search p99 ≤ 5 ms, ≤ 3 KB per game.
//!
//! `KEIL_BENCH_ARCHIVE=DIR` keeps the archive in DIR: a run that finds it
//! already populated skips the import (and its figure) and measures the
//! queries only — for iterating on query speed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use keil_archive::{Archive, GameId, ImportOptions, ImportSource, PositionQuery};
use keil_gen::{Generator, GeneratorConfig};

fn main() {
    let games: u64 = std::env::var("KEIL_BENCH_GAMES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let config = GeneratorConfig {
        games,
        size: 7,
        seed: 2024,
        ..GeneratorConfig::default()
    };
    // One source per 1,000 games, as an import of a directory of files
    // would give it.
    let sources = || -> Vec<ImportSource> {
        let mut out = Vec::new();
        let mut bytes = Vec::new();
        for (i, g) in Generator::new(config).expect("config").enumerate() {
            bytes.extend_from_slice(g.record.as_bytes());
            if (i + 1) % 1000 == 0 {
                out.push(ImportSource::Bytes {
                    name: format!("bench-{}.keil", out.len()),
                    bytes: std::mem::take(&mut bytes),
                });
            }
        }
        if !bytes.is_empty() {
            out.push(ImportSource::Bytes {
                name: format!("bench-{}.keil", out.len()),
                bytes,
            });
        }
        out
    };
    let temporary = tempfile::tempdir().expect("tempdir");
    let kept = std::env::var_os("KEIL_BENCH_ARCHIVE").map(std::path::PathBuf::from);
    let archive = Archive::open(kept.as_deref().unwrap_or(temporary.path())).expect("open");

    if archive.stats().expect("stats").games >= games {
        println!("import: skipped, the kept archive has its games already");
    } else {
        let sources = sources();
        let start = Instant::now();
        let report = archive
            .import(&sources, &ImportOptions::default(), &mut |_| {})
            .expect("import");
        let secs = start.elapsed().as_secs_f64();
        println!(
            "import: {} games in {secs:.2} s = {:.0} games/s ({} imported, {} invalid)",
            report.counts.games_read,
            report.counts.games_read as f64 / secs,
            report.counts.imported,
            report.counts.invalid
        );
        archive.compact().expect("compact");
    }
    let stats = archive.stats().expect("stats");
    println!(
        "size: {} bytes store + {} bytes text index = {} bytes per game",
        stats.store_bytes,
        stats.tantivy_bytes,
        stats.bytes_per_game()
    );

    // Player search latency over prefixes, full names and misspellings.
    let names: Vec<String> = {
        // A plain connection: the archive keeps its own to itself.
        let file = archive.dir().join(keil_archive::SQLITE_FILE);
        let conn = rusqlite::Connection::open(file).expect("open");
        let mut stmt = conn
            .prepare("SELECT name FROM players ORDER BY id")
            .expect("prepare");
        stmt.query_map([], |r| r.get(0))
            .expect("query")
            .collect::<Result<_, _>>()
            .expect("rows")
    };
    let queries: Vec<String> = names
        .iter()
        .flat_map(|n| {
            let lower = n.to_lowercase();
            let prefix: String = lower.chars().take(3).collect();
            let mut typo: Vec<char> = lower.chars().collect();
            if typo.len() > 4 {
                typo.swap(2, 3);
            }
            [lower.clone(), prefix, typo.into_iter().collect()]
        })
        .collect();
    let mut times: Vec<Duration> = queries
        .iter()
        .map(|q| {
            let t = Instant::now();
            black_box(archive.players().search(q, 20).expect("search"));
            t.elapsed()
        })
        .collect();
    times.sort();
    let pct = |p: f64| times[((times.len() as f64 - 1.0) * p) as usize];
    println!(
        "player search: {} queries, p50 {:?}, p99 {:?}, max {:?}",
        times.len(),
        pct(0.5),
        pct(0.99),
        times[times.len() - 1]
    );

    // Exact position search: positions that occurred, sampled uniformly
    // over (game, ply) — openings shared by thousands of games and unique
    // late positions alike — each searched as given and with symmetry.
    let total = stats.games;
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let positions: Vec<keil_rules::Position> = (0..2000)
        .map(|_| {
            let id = GameId::new(1 + next() % total).expect("a game id");
            let line = archive.games().moves(id).expect("moves").expect("game");
            let ply = (next() % (line.moves.len() as u64 + 1)) as usize;
            let game = line.game_at(ply).expect("stored games replay");
            match game.position() {
                keil_rules::AnyPosition::Keil(p) => p,
                _ => unreachable!("a Keil corpus"),
            }
        })
        .collect();
    // As given (the button's state as the game had it), then as a board
    // alone: a query without a button suffix, which matches both states in
    // one pass over the key range.
    for (symmetry, either) in [(false, false), (true, false), (false, true)] {
        let mut matched = 0u64;
        let mut times: Vec<Duration> = positions
            .iter()
            .map(|p| {
                let mut q = PositionQuery::new(*p);
                q.symmetry = symmetry;
                if either {
                    q.button = None;
                }
                let t = Instant::now();
                let answer = archive.positions().search(&q).expect("search");
                let elapsed = t.elapsed();
                matched += answer.total_games;
                black_box(answer);
                elapsed
            })
            .collect();
        times.sort();
        let pct = |p: f64| times[((times.len() as f64 - 1.0) * p) as usize];
        println!(
            "position search (symmetry {symmetry}{}): {} queries, {matched} games matched, p50 {:?}, p99 {:?}, max {:?}",
            if either { ", either button state" } else { "" },
            times.len(),
            pct(0.5),
            pct(0.99),
            times[times.len() - 1]
        );
    }

    let mut c = Criterion::default().configure_from_args().sample_size(50);
    let mut i = 0;
    c.bench_function("player_search", |b| {
        b.iter(|| {
            i = (i + 1) % queries.len();
            archive.players().search(&queries[i], 20).expect("search")
        })
    });
    c.bench_function("text_search", |b| {
        b.iter(|| archive.search_text("comment:button", 20).expect("search"))
    });
    let mut j = 0;
    c.bench_function("position_search", |b| {
        b.iter(|| {
            j = (j + 1) % positions.len();
            archive
                .positions()
                .search(&PositionQuery::new(positions[j]))
                .expect("search")
        })
    });
    c.final_summary();
}
