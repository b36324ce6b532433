//! Position search latency on an existing archive, by the ply at which the
//! sampled position occurred: where the tail of the latency comes from.
//!
//! ```text
//! cargo run --release -p keil-archive --example position_latency -- ARCHIVE_DIR [QUERIES] [ROUNDS] [filters]
//! ```
//!
//! Samples QUERIES (default 2,000) positions uniformly over (game, ply) of
//! the archive's games, searches each ROUNDS times (default 1; later rounds
//! see warm caches) with symmetry off, and prints p50/p99/max per ply band.
//! With `filters`, then searches the sample once under each of the
//! explorer's filters and options and prints p50/p99 of each.

use std::time::{Duration, Instant};

use keil_archive::{Archive, ExploreOptions, GameFilter, GameId, PositionQuery};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .ok_or("usage: position_latency ARCHIVE_DIR [QUERIES] [ROUNDS]")?;
    let queries: usize = args.next().map_or(Ok(2000), |s| s.parse())?;
    let rounds: usize = args.next().map_or(Ok(1), |s| s.parse())?;
    let filters = args.next().as_deref() == Some("filters");
    let archive = Archive::open(&dir)?;
    let games = archive.stats()?.games;
    if games == 0 {
        return Err("the archive has no games".into());
    }
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut sample = Vec::with_capacity(queries);
    while sample.len() < queries {
        let id = GameId::new(1 + next() % games).ok_or("a game id")?;
        let Some(line) = archive.games().moves(id)? else {
            continue;
        };
        let ply = (next() % (line.moves.len() as u64 + 1)) as usize;
        let game = line.game_at(ply)?;
        sample.push((ply, game.position()));
    }
    let bands: [(usize, usize); 5] = [(0, 2), (3, 5), (6, 10), (11, 30), (31, usize::MAX)];
    for round in 1..=rounds {
        let mut by_band: Vec<Vec<(Duration, u64)>> = vec![Vec::new(); bands.len()];
        let mut all = Vec::with_capacity(sample.len());
        for (ply, position) in &sample {
            let t = Instant::now();
            let answer = archive.positions().search(&PositionQuery::new(*position))?;
            let took = t.elapsed();
            let band = bands.iter().position(|&(lo, hi)| (lo..=hi).contains(ply));
            by_band[band.expect("bands cover every ply")].push((took, answer.total_games));
            all.push(took);
        }
        all.sort();
        let pct = |v: &[Duration], p: f64| v[((v.len() as f64 - 1.0) * p) as usize];
        println!(
            "round {round}: {} queries, p50 {:?}, p99 {:?}, max {:?}",
            all.len(),
            pct(&all, 0.5),
            pct(&all, 0.99),
            all[all.len() - 1]
        );
        for (&(lo, hi), v) in bands.iter().zip(&mut by_band) {
            if v.is_empty() {
                continue;
            }
            v.sort();
            let times: Vec<Duration> = v.iter().map(|&(t, _)| t).collect();
            let matched: u64 = v.iter().map(|&(_, n)| n).sum::<u64>() / v.len() as u64;
            let hi = if hi == usize::MAX {
                "end".to_string()
            } else {
                hi.to_string()
            };
            println!(
                "  plies {lo:>2}..={hi:<3} {:>5} queries, mean {:>6} games, p50 {:>10?}, p99 {:>10?}, max {:>10?}",
                v.len(),
                matched,
                pct(&times, 0.5),
                pct(&times, 0.99),
                times[times.len() - 1]
            );
        }
    }
    if filters {
        for (name, q) in variants() {
            let mut all = Vec::with_capacity(sample.len());
            for (_, position) in &sample {
                let query = PositionQuery {
                    limit: 20,
                    ..q(PositionQuery::new(*position))
                };
                let t = Instant::now();
                archive.positions().search(&query)?;
                all.push(t.elapsed());
            }
            all.sort();
            let pct = |p: f64| all[((all.len() as f64 - 1.0) * p) as usize];
            println!("{name:<44} p50 {:>10?}, p99 {:>10?}", pct(0.5), pct(0.99));
        }
    }
    Ok(())
}

/// A query changed by one set of filters or options.
type Variant = (&'static str, Box<dyn Fn(PositionQuery) -> PositionQuery>);

/// The explorer's filters and options, one set at a time.
fn variants() -> Vec<Variant> {
    let filtered = |f: GameFilter| -> Box<dyn Fn(PositionQuery) -> PositionQuery> {
        Box::new(move |q| PositionQuery {
            filter: f.clone(),
            ..q
        })
    };
    let day = |s: &str| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok();
    vec![
        ("none", Box::new(|q| q)),
        (
            "min_rank=1d",
            filtered(GameFilter {
                min_rank: "1d".parse().ok(),
                ..GameFilter::default()
            }),
        ),
        (
            "from=2015-01-01 to=2019-12-31",
            filtered(GameFilter {
                from: day("2015-01-01"),
                to: day("2019-12-31"),
                ..GameFilter::default()
            }),
        ),
        (
            "handicap=0 komi=6.5 event=cup",
            filtered(GameFilter {
                handicap: Some(0),
                komi: Some(keil_rules::HalfPoints(13)),
                event: Some("cup".into()),
                ..GameFilter::default()
            }),
        ),
        (
            "history move_limit=60 top/recent 10",
            Box::new(|q| PositionQuery {
                explore: ExploreOptions {
                    history: true,
                    move_limit: Some(60),
                    top_games: 10,
                    recent_games: 10,
                    ..ExploreOptions::default()
                },
                ..q
            }),
        ),
    ]
}
