//! Pattern search at scale: how long the pattern index takes to load, how
//! much memory it holds, and how fast partial patterns are found in an
//! archive that already exists (say 100,000 generated games; see
//! `scripts/bench-patterns.sh`, which generates, imports and runs this).
//!
//! ```text
//! RAYON_NUM_THREADS=1 cargo run --release -p keil-archive --example pattern_scale -- \
//!     [--runs N] [--filters] [--cache-dir DIR] [--game KIND --size N] ARCHIVE_DIR [MODE PATTERN]...
//! ```
//!
//! 1. opens `ARCHIVE_DIR` (it must exist: nothing is imported here) and
//!    prints its games per board;
//! 2. calls [`Patterns::load`](keil_archive::Archive::patterns), which
//!    replays every stored game once into the in-memory pattern index, and
//!    prints the time it took, the index's own count of bytes, and the
//!    process's resident memory (`VmRSS` of `/proc/self/status`) before and
//!    after;
//! 3. times each pattern: one warm-up search, then `N` (default 10) timed
//!    runs of `search_uncached` (the answer cache would turn every run after
//!    the first into a lookup), and prints p50 and p99 in milliseconds with
//!    the games and hits found and the placements searched. Every search
//!    counts all hits and the continuation statistics and returns the first
//!    page of 20 games with their details, as the API does.
//!
//! Patterns come as `MODE PATTERN` pairs (mode `fixed`, `corner`, `side`,
//! `centre` or `anywhere`; the pattern in either notation of
//! [`keil_archive::Pattern`]) for the board `--game`/`--size` names (by
//! default the archive's largest board), searched with the board's
//! symmetries and colour swap. Without any, the built-in set of each board
//! the archive holds runs (see [`builtin`]): the Kombilo harness's 7×7
//! corner patterns and its 5×5 side pattern on 19×19 Go, and 7-point
//! local patterns anywhere on the side-7 Keil board.
//!
//! With `--filters`, each pattern is timed again under each of the
//! explorer's filters and options: ranks, dates, handicap and
//! komi, an event, a player; the history, a move limit, the next move, top
//! and recent games, each alone and all together.
//!
//! "first ms" is the warm-up search's time: the first search with a filter
//! also works out the filter's answer over every game, which the node
//! keeps for the searches after it (see the pattern module's tally).
//!
//! With `--cache-dir DIR` (as `keil serve --cache-dir`), the load maps the
//! pattern index's snapshot from `DIR` when one is there and writes it when
//! not: a second run skips the replay (its load time is then the map's).
//!
//! Set `RAYON_NUM_THREADS=1` for one-core figures: the index load and each
//! search split their work over rayon's threads.

use std::time::Instant;

use keil_archive::{Archive, ExploreOptions, Pattern, PatternMode, PatternQuery};
use keil_rules::GameKind;

/// A pattern to time: a name for the table, its mode and its text.
struct Named {
    name: String,
    mode: PatternMode,
    text: String,
}

/// Rows of a `w`×`h` pattern, `.` everywhere but at the `(x, y)` points
/// given (x the column, y the row, from the top-left): the way the Kombilo
/// harness writes its patterns.
fn rows(w: usize, h: usize, stones: &[(usize, usize, char)]) -> String {
    let mut grid = vec![vec!['.'; w]; h];
    for &(x, y, c) in stones {
        grid[y][x] = c;
    }
    let rows: Vec<String> = grid.into_iter().map(String::from_iter).collect();
    rows.join("/")
}

/// The built-in patterns of a board, or none for a board without a set.
fn builtin(kind: GameKind, size: u8) -> Vec<Named> {
    let named = |name: &str, mode, text: String| Named {
        name: name.to_string(),
        mode,
        text,
    };
    match (kind, size) {
        // The partial patterns of the Kombilo harness without wildcards
        // (../shared/peers/kombilo/bench.py): 7×7 corner shapes drawn in
        // the top-left corner, every other point empty, and the two-space
        // extension on the third line sliding along a side.
        (GameKind::Go, 19) => vec![
            named(
                "corner7 4-4 low knight approach",
                PatternMode::Corner,
                rows(7, 7, &[(3, 3, 'X'), (5, 2, 'O')]),
            ),
            named(
                "corner7 3-4 small knight approach",
                PatternMode::Corner,
                rows(7, 7, &[(2, 3, 'X'), (4, 2, 'O')]),
            ),
            named(
                "corner7 4-4 3-3 invasion",
                PatternMode::Corner,
                rows(7, 7, &[(3, 3, 'X'), (2, 2, 'O')]),
            ),
            named(
                "corner7 4-4 3-3 block, extend",
                PatternMode::Corner,
                rows(7, 7, &[(3, 3, 'X'), (2, 2, 'O'), (3, 2, 'X'), (2, 3, 'O')]),
            ),
            named(
                "side5 third-line two-space",
                PatternMode::Side,
                rows(5, 5, &[(0, 2, 'X'), (3, 2, 'X')]),
            ),
            // The harness's wildcard corner: 4-4 and 3-3, `*` elsewhere.
            named(
                "corner5 4-4 3-3, * elsewhere",
                PatternMode::Corner,
                "*****/*****/**O**/***X*/*****".to_string(),
            ),
        ],
        // A point and its six neighbours on the 127-point board, drawn
        // round g7 (the centre) and placed anywhere, under the hexagon's 12
        // symmetries and colour swap. The neighbours of g7 are f6, f7, g6,
        // g8, h7 and h8.
        (GameKind::Keil, 7) => vec![
            named(
                "local7 two stones (X, O beside it)",
                PatternMode::Anywhere,
                "X:g7 O:h8 .:f6,f7,g6,g8,h7".to_string(),
            ),
            named(
                "local7 three stones (X X, O)",
                PatternMode::Anywhere,
                "X:g7,g8 O:h8 .:f6,f7,g6,h7".to_string(),
            ),
        ],
        _ => Vec::new(),
    }
}

/// A filter or option set a pattern is timed under.
struct Variant {
    name: String,
    apply: Box<dyn Fn(PatternQuery) -> PatternQuery>,
}

impl Variant {
    /// The pattern as it is.
    fn none() -> Variant {
        Variant {
            name: String::new(),
            apply: Box::new(|q| q),
        }
    }
}

/// The explorer's filters and options, one set at a time: values taken
/// from the archive's first game (its event's last word, its Black), so
/// that each keeps some games.
fn variants(archive: &Archive) -> Result<Vec<Variant>, Box<dyn std::error::Error>> {
    use keil_archive::GameFilter;
    let first = archive
        .games()
        .summaries(&[keil_archive::GameId::new(1).ok_or("no game 1")?])?
        .pop()
        .ok_or("no game 1")?;
    let rank = |s: &str| s.parse::<keil_record::Rank>().ok();
    let day = |s: &str| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok();
    let event = first
        .event
        .as_deref()
        .and_then(|e| e.split_whitespace().last())
        .unwrap_or("cup")
        .to_string();
    let player = first.black.clone().unwrap_or_default();
    let option = |name: &str, apply: fn(PatternQuery) -> PatternQuery| Variant {
        name: name.to_string(),
        apply: Box::new(apply),
    };
    let filtered = |name: &str, f: GameFilter| Variant {
        name: name.to_string(),
        apply: Box::new(move |q| PatternQuery {
            filter: f.clone(),
            ..q
        }),
    };
    Ok(vec![
        Variant::none(),
        filtered(
            "min_rank=1d",
            GameFilter {
                min_rank: rank("1d"),
                ..GameFilter::default()
            },
        ),
        filtered(
            "from=2015-01-01 to=2019-12-31",
            GameFilter {
                from: day("2015-01-01"),
                to: day("2019-12-31"),
                ..GameFilter::default()
            },
        ),
        filtered(
            "handicap=0 komi=6.5",
            GameFilter {
                handicap: Some(0),
                komi: Some(keil_rules::HalfPoints(13)),
                ..GameFilter::default()
            },
        ),
        filtered(
            &format!("event={event}"),
            GameFilter {
                event: Some(event.clone()),
                ..GameFilter::default()
            },
        ),
        filtered(
            &format!("player={player}"),
            GameFilter {
                player: Some(player.clone()),
                ..GameFilter::default()
            },
        ),
        option("history", |q| PatternQuery {
            explore: ExploreOptions {
                history: true,
                ..q.explore
            },
            ..q
        }),
        option("move_limit=60", |q| PatternQuery {
            explore: ExploreOptions {
                move_limit: Some(60),
                ..ExploreOptions::default()
            },
            ..q
        }),
        option("next=B", |q| PatternQuery {
            explore: ExploreOptions {
                next: Some(keil_rules::Color::Black),
                ..ExploreOptions::default()
            },
            ..q
        }),
        option("top/recent 10", |q| PatternQuery {
            explore: ExploreOptions {
                top_games: 10,
                recent_games: 10,
                ..ExploreOptions::default()
            },
            ..q
        }),
        Variant {
            name: "history move_limit=60 next=B top/recent 10".into(),
            apply: Box::new(|q| PatternQuery {
                explore: ExploreOptions {
                    history: true,
                    move_limit: Some(60),
                    next: Some(keil_rules::Color::Black),
                    top_games: 10,
                    recent_games: 10,
                    ..ExploreOptions::default()
                },
                ..q
            }),
        },
    ])
}

/// The process's resident memory in MiB (`VmRSS`), or NaN off Linux.
fn rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

fn usage() -> ! {
    eprintln!(
        "usage: pattern_scale [--runs N] [--filters] [--cache-dir DIR] [--game KIND --size N] ARCHIVE_DIR [MODE PATTERN]..."
    );
    std::process::exit(2);
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The command line.
    let mut args = std::env::args().skip(1);
    let (mut runs, mut kind, mut size) = (10usize, None, None);
    let mut filters = false;
    let mut cache = None;
    let mut dir = None;
    let mut rest = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => {
                runs = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--filters" => filters = true,
            "--cache-dir" => cache = Some(args.next().unwrap_or_else(|| usage())),
            "--game" => kind = Some(args.next().unwrap_or_else(|| usage()).parse::<GameKind>()?),
            "--size" => {
                size = Some(
                    args.next()
                        .and_then(|n| n.parse().ok())
                        .unwrap_or_else(|| usage()),
                )
            }
            _ if dir.is_none() => dir = Some(a),
            _ => rest.push(a),
        }
    }
    let Some(dir) = dir else { usage() };
    if runs == 0 || rest.len() % 2 != 0 {
        usage();
    }

    // 1. The archive, as it is.
    if !Archive::exists(&dir) {
        return Err(format!("{dir}: no archive there (import games first)").into());
    }
    let rss_start = rss_mib();
    let archive = Archive::open(&dir)?;
    if let Some(cache) = &cache {
        std::fs::create_dir_all(cache)?;
        archive.cache_in(cache)?;
    }
    let stats = archive.stats()?;
    println!("== {dir}: {} games", stats.games);
    for (k, s, n) in &stats.by_board {
        println!("   {} size {s}: {n} games", k.name());
    }
    println!(
        "threads: {} (RAYON_NUM_THREADS={})",
        rayon::current_num_threads(),
        std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "unset".into())
    );

    // 2. The pattern index.
    let rss_before = rss_mib();
    let start = Instant::now();
    let loaded = archive.patterns().load()?;
    let load_s = start.elapsed().as_secs_f64();
    let rss_after = rss_mib();
    println!(
        "pattern index: {} games loaded in {load_s:.2} s ({:.0} games/s), {:.1} MB ({:.0} B/game)",
        loaded.games,
        loaded.games as f64 / load_s,
        loaded.bytes as f64 / 1e6,
        loaded.bytes as f64 / loaded.games.max(1) as f64,
    );
    println!(
        "RSS: {rss_start:.1} MiB at start, {rss_before:.1} MiB before the load, {rss_after:.1} MiB after (+{:.1} MiB)",
        rss_after - rss_before
    );

    // 3. The searches.
    let mut sets: Vec<(GameKind, u8, Vec<Named>)> = Vec::new();
    if rest.is_empty() {
        for &(k, s, _) in &stats.by_board {
            let set = builtin(k, s);
            if !set.is_empty() {
                sets.push((k, s, set));
            }
        }
        if sets.is_empty() {
            return Err(
                "no built-in patterns for the boards of this archive: give MODE PATTERN pairs"
                    .into(),
            );
        }
    } else {
        let largest = stats.by_board.iter().max_by_key(|b| b.2);
        let k = kind
            .or(largest.map(|b| b.0))
            .ok_or("empty archive: give --game")?;
        let s = size
            .or(largest.filter(|b| b.0 == k).map(|b| b.1))
            .unwrap_or_else(|| k.default_size());
        let set = rest
            .chunks(2)
            .enumerate()
            .map(|(i, pair)| {
                Ok(Named {
                    name: format!("pattern {}", i + 1),
                    mode: pair[0].parse()?,
                    text: pair[1].clone(),
                })
            })
            .collect::<Result<Vec<_>, keil_archive::PatternError>>()?;
        sets.push((k, s, set));
    }
    for (k, s, set) in sets {
        println!(
            "== {} size {s}: symmetries and colour swap, 1 warm-up + {runs} runs of search_uncached",
            k.name()
        );
        println!(
            "{:<36} {:>8} {:>10} {:>10} {:>10} {:>8} {:>8}  pattern",
            "name", "mode", "first ms", "p50 ms", "p99 ms", "games", "hits"
        );
        let variants = if filters {
            variants(&archive)?
        } else {
            vec![Variant::none()]
        };
        for named in set {
            let pattern = Pattern::parse(k, s, &named.text, named.mode)?;
            for v in &variants {
                let query = (v.apply)(PatternQuery::new(pattern.clone(), named.mode));
                let t = Instant::now();
                let first = archive.patterns().search_uncached(&query)?;
                let first_ms = t.elapsed().as_secs_f64() * 1e3;
                let mut times = Vec::with_capacity(runs);
                for _ in 0..runs {
                    let t = Instant::now();
                    let answer = archive.patterns().search_uncached(&query)?;
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    assert_eq!(answer.total_hits, first.total_hits, "searches disagree");
                }
                times.sort_by(f64::total_cmp);
                let p = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
                let name = if v.name.is_empty() {
                    named.name.clone()
                } else {
                    format!("  + {}", v.name)
                };
                println!(
                    "{:<36} {:>8} {:>10.3} {:>10.3} {:>10.3} {:>8} {:>8}  {} ({} placements)",
                    name,
                    named.mode.code(),
                    first_ms,
                    p(0.5),
                    p(0.99),
                    first.total_games,
                    first.total_hits,
                    first.pattern,
                    first.placements,
                );
            }
        }
    }
    println!("RSS at the end: {:.1} MiB", rss_mib());
    Ok(())
}
