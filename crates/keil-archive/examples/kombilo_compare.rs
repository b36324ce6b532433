//! Whole-board position search on real Go games, side by side with Kombilo.
//!
//! ```text
//! cargo run --release -p keil-archive --example kombilo_compare -- \
//!     KOMBILO_JSON DATA_DIR ARCHIVE_DIR
//! ```
//!
//! `KOMBILO_JSON` is the file that `../shared/peers/kombilo/run.sh DATA_DIR
//! --out FILE` writes: the queries it ran (the whole-board positions after
//! plies 10, 30 and 60 of sampled games), the games each one found, and its
//! timings. This example:
//!
//! 1. imports `DATA_DIR` into a new archive at `ARCHIVE_DIR` (removed first)
//!    and reports games/s and bytes on disk per game next to Kombilo's
//!    database build;
//! 2. runs every whole-board query of the Kombilo file with the 8 symmetries
//!    and colour swap (Kombilo's defaults), one warm-up run then 10 timed
//!    runs each, all hits listed (not one page), and reports p50/p99 per ply
//!    band next to Kombilo's figures from the same file;
//! 3. compares the games found with Kombilo's hit lists. Kombilo keeps
//!    duplicate games and stores games that our validator refuses (a real
//!    record with a missing move, say): both are mapped through the import's
//!    per-game outcomes, and a Kombilo hit in a refused game is counted apart,
//!    never as an agreement.
//!
//! One thread (the search is single-threaded); the machine's load matters:
//! run it right after Kombilo (`scripts/bench-go.sh` does both).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use keil_archive::{
    Archive, Fate, GameId, ImportOptions, ImportSource, Pattern, PatternMode, PatternQuery,
    PositionQuery,
};
use keil_rules::GameKind;
use serde_json::Value;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kombilo, data, archive_dir] = args.as_slice() else {
        eprintln!("usage: kombilo_compare KOMBILO_JSON DATA_DIR ARCHIVE_DIR");
        std::process::exit(2);
    };
    let kombilo: Value = serde_json::from_str(&std::fs::read_to_string(kombilo)?)?;
    let data = PathBuf::from(data);
    let label = data
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();

    // 1. Import.
    let archive_dir = Path::new(archive_dir);
    if archive_dir.exists() {
        std::fs::remove_dir_all(archive_dir)?;
    }
    let archive = Archive::open(archive_dir)?;
    let options = ImportOptions {
        outcomes: true,
        // Kombilo stores every record: no game is merged by signature.
        duplicates: keil_archive::Duplicates::Exact,
        ..ImportOptions::default()
    };
    let start = Instant::now();
    let report = archive.import(&[ImportSource::Path(data.clone())], &options, &mut |_| {})?;
    let import_s = start.elapsed().as_secs_f64();
    archive.compact()?;
    let stats = archive.stats()?;
    // Kombilo's game key `<label>/<relative path>#<index>` → our game (the
    // stored one for a duplicate), or `None` when we refused it.
    let mut ours: HashMap<String, Option<GameId>> = HashMap::new();
    let mut refused_reasons: HashMap<String, String> = HashMap::new();
    for o in &report.outcomes {
        let rel = Path::new(o.source())
            .strip_prefix(&data)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| o.source().to_string());
        let key = format!("{label}/{rel}#{}", o.index());
        let id = match &o.fate {
            Fate::Stored { id, .. } | Fate::Duplicate { id, .. } | Fate::Merged { id, .. } => {
                Some(*id)
            }
            Fate::Invalid(p) => {
                refused_reasons.insert(key.clone(), p.reason.clone());
                None
            }
        };
        ours.insert(key, id);
    }
    let build = &kombilo["build"];
    println!(
        "== import of {} ({} game trees)",
        data.display(),
        report.outcomes.len()
    );
    println!(
        "keil:    {:.2} s, {:.0} games/s, stored {} (+{} duplicates, {} refused), {} bytes on disk = {} B/game",
        import_s,
        report.outcomes.len() as f64 / import_s,
        report.counts.imported,
        report.counts.duplicates,
        report.invalid.len(),
        stats.bytes_on_disk(),
        stats.bytes_per_game(),
    );
    let kb_s =
        build["process_s"].as_f64().unwrap_or(0.0) + build["finalize_s"].as_f64().unwrap_or(0.0);
    let kb_bytes = build["db_bytes"].as_u64().unwrap_or(0);
    let kb_games = build["games_in_db"].as_u64().unwrap_or(1);
    println!(
        "kombilo: {:.2} s, {:.0} games/s, {} games, {} bytes on disk = {} B/game",
        kb_s,
        kb_games as f64 / kb_s,
        kb_games,
        kb_bytes,
        kb_bytes / kb_games.max(1),
    );
    println!(
        "ratio:   {:.2}x the speed, {:.2}x the size",
        (kb_s / import_s),
        stats.bytes_on_disk() as f64 / kb_bytes.max(1) as f64
    );

    // 2 and 3. Whole-board queries.
    archive.positions().load()?;
    let games: Vec<String> = kombilo["games"]
        .as_array()
        .ok_or("no games in the Kombilo file")?
        .iter()
        .map(|g| g.as_str().unwrap_or_default().to_string())
        .collect();
    let mut bands: Vec<(String, Vec<f64>, Vec<f64>)> = Vec::new();
    let (mut agree, mut differ, mut refused_hits) = (0, 0, 0);
    for q in kombilo["queries"].as_array().ok_or("no queries")? {
        let kind = q["kind"].as_str().unwrap_or_default();
        if !kind.starts_with("fullboard") {
            continue;
        }
        let rows: Vec<&str> = q["rows"]
            .as_array()
            .ok_or("no rows")?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let mut query = PositionQuery::parse_kind(GameKind::Go, &notation(&rows))?;
        query.symmetry = true;
        query.swap_colors = true;
        query.limit = 100_000;
        let run = || archive.positions().search(&query);
        run()?;
        let mut times = Vec::new();
        let mut answer = None;
        for _ in 0..10 {
            let t = Instant::now();
            let a = run()?;
            times.push(t.elapsed().as_secs_f64() * 1e3);
            answer = Some(a);
        }
        let answer = answer.expect("ten runs");
        let found: BTreeSet<GameId> = answer.games.iter().map(|h| h.game_id).collect();
        let mut expected = BTreeSet::new();
        let mut refused_here = 0;
        for hit in q["hit_games"].as_array().into_iter().flatten() {
            let key = &games[hit[0].as_u64().unwrap_or(0) as usize];
            match ours.get(key) {
                Some(Some(id)) => {
                    expected.insert(*id);
                }
                Some(None) => refused_here += 1,
                None => eprintln!("{}: Kombilo game {key} was not read by the import", q["id"]),
            }
        }
        refused_hits += refused_here;
        if found == expected {
            agree += 1;
        } else {
            differ += 1;
            eprintln!(
                "{}: keil found {} games, Kombilo {} (+{refused_here} in games we refused); only keil: {:?}; only Kombilo: {:?}",
                q["id"],
                found.len(),
                expected.len(),
                found.difference(&expected).collect::<Vec<_>>(),
                expected.difference(&found).collect::<Vec<_>>(),
            );
        }
        let kb: Vec<f64> = q["search_ms"]["median"].as_f64().into_iter().collect();
        match bands.iter_mut().find(|b| b.0 == kind) {
            Some(b) => {
                b.1.extend(times);
                b.2.extend(kb);
            }
            None => bands.push((kind.to_string(), times, kb)),
        }
    }
    println!("== whole-board search, 8 symmetries + colour swap, all hits listed");
    println!("band              keil p50    keil p99    kombilo p50  kombilo p99  ratio p50");
    for (kind, ours_ms, _) in bands {
        print_band(&kombilo, &kind, ours_ms, 0);
    }
    println!(
        "hit lists: {agree} queries agree, {differ} differ; {refused_hits} Kombilo hits are in games keil refused"
    );
    if !refused_reasons.is_empty() {
        let mut by_reason: HashMap<&str, usize> = HashMap::new();
        for r in refused_reasons.values() {
            *by_reason.entry(r).or_default() += 1;
        }
        println!("refused by the validator: {by_reason:?}");
    }
    let pattern_differ = patterns(&archive, &kombilo, &games, &ours)?;
    if differ > 0 || pattern_differ > 0 {
        std::process::exit(1);
    }
    Ok(())
}

/// Step 4: every query of the Kombilo file (whole-board ones included) through
/// the pattern search, with Kombilo's placement rules, 8 symmetries and
/// colour swap: timings per query kind next to Kombilo's, and the games,
/// hits per game and continuation table compared (`KIND=prefix` keeps the
/// query kinds that start with it). Kombilo also holds the
/// games keil refused and the second copies of duplicates: their hits
/// (read from Kombilo's per-game hit strings, `12A, 35C-`) are taken out
/// of Kombilo's counts before comparing, and the continuation table is
/// compared per point in totals (B + W, a hit string gives no colour)
/// when such games contributed, else colour by colour with the tenuki
/// counts. Returns the number of queries that differ.
fn patterns(
    archive: &Archive,
    kombilo: &Value,
    games: &[String],
    ours: &HashMap<String, Option<GameId>>,
) -> Result<usize, Box<dyn std::error::Error>> {
    let start = Instant::now();
    let loaded = archive.patterns().load()?;
    println!(
        "== pattern search: index of {} games loaded in {:.2} s, {:.1} MB",
        loaded.games,
        start.elapsed().as_secs_f64(),
        loaded.bytes as f64 / 1e6
    );
    // The first key of each stored game (later keys are duplicates).
    let mut first_key: HashMap<GameId, &str> = HashMap::new();
    for (key, id) in ours {
        if let Some(id) = id {
            let e = first_key.entry(*id).or_insert(key);
            if key.as_str() < *e {
                *e = key;
            }
        }
    }
    let only = std::env::var("KIND").unwrap_or_default();
    let mut bands: Vec<(String, Vec<f64>)> = Vec::new();
    let mut differ = 0;
    let mut agree = 0;
    for q in kombilo["queries"].as_array().ok_or("no queries")? {
        let kind = q["kind"].as_str().unwrap_or_default().to_string();
        if !kind.starts_with(&only) {
            continue;
        }
        let rows: Vec<&str> = q["rows"]
            .as_array()
            .ok_or("no rows")?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let mode = match q["anchor"].as_str().unwrap_or_default() {
            "corner_nw" => PatternMode::Corner,
            "side_n" => PatternMode::Side,
            "center" => PatternMode::Centre,
            _ => PatternMode::Fixed,
        };
        let pattern = Pattern::parse(GameKind::Go, 19, &rows.join("/"), mode)?;
        // Timed: the search as the API runs it, uncached (every hit, the
        // hits per game and the continuations computed; the first page of
        // 20 games with their details), one warm-up run then 10.
        let mut query = PatternQuery::new(pattern, mode);
        archive.patterns().search_uncached(&query)?;
        let mut times = Vec::new();
        for _ in 0..10 {
            let t = Instant::now();
            archive.patterns().search_uncached(&query)?;
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        // Compared: every game (one page of all of them).
        query.limit = 100_000;
        let answer = archive.patterns().search(&query)?;
        match bands.iter_mut().find(|b| b.0 == kind) {
            Some(b) => b.1.extend(times),
            None => bands.push((kind.clone(), times)),
        }
        // Kombilo's hits per stored game; labels of the extra games' hits.
        let mut expected: HashMap<GameId, usize> = HashMap::new();
        let mut extra_labels: HashMap<String, u64> = HashMap::new();
        for hit in q["hit_games"].as_array().into_iter().flatten() {
            let key = games[hit[0].as_u64().unwrap_or(0) as usize].as_str();
            let entries: Vec<&str> = hit[1]
                .as_str()
                .unwrap_or_default()
                .split(',')
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .collect();
            match ours.get(key) {
                Some(Some(id)) if first_key.get(id) == Some(&key) => {
                    expected.insert(*id, entries.len());
                }
                _ => {
                    for e in entries {
                        let label: String = e
                            .trim_end_matches('-')
                            .chars()
                            .skip_while(char::is_ascii_digit)
                            .collect();
                        if !label.is_empty() {
                            *extra_labels.entry(label).or_default() += 1;
                        }
                    }
                }
            }
        }
        let found: HashMap<GameId, usize> = answer
            .games
            .iter()
            .map(|h| (h.game_id, h.hits as usize))
            .collect();
        let mut problems = Vec::new();
        if found != expected {
            let only_ours: Vec<_> = found.keys().filter(|g| !expected.contains_key(g)).collect();
            let only_theirs: Vec<_> = expected.keys().filter(|g| !found.contains_key(g)).collect();
            let hit_diff: Vec<_> = found
                .iter()
                .filter(|(g, n)| expected.get(g).is_some_and(|m| m != *n))
                .take(5)
                .collect();
            problems.push(format!(
                "games {} vs {}; only keil {:?}; only Kombilo {:?}; hits differ {:?}",
                found.len(),
                expected.len(),
                &only_ours[..only_ours.len().min(5)],
                &only_theirs[..only_theirs.len().min(5)],
                hit_diff
            ));
        }
        // Continuations, per folded point: Kombilo's points fold onto ours
        // by the label's point; compare the multiset of rows.
        let mut theirs: Vec<[u64; 4]> = Vec::new();
        let mut theirs_total: Vec<u64> = Vec::new();
        for c in q["continuations"].as_array().into_iter().flatten() {
            let f = |k: &str| c[k].as_u64().unwrap_or(0);
            let extra = extra_labels
                .get(c["label"].as_str().unwrap_or_default())
                .copied()
                .unwrap_or(0);
            theirs.push([f("B"), f("W"), f("tB"), f("tW")]);
            theirs_total.push(f("B") + f("W") - extra);
        }
        let mut mine: Vec<[u64; 4]> = answer
            .continuations
            .iter()
            .map(|c| {
                [
                    c.black.count,
                    c.white.count,
                    c.black.after_tenuki,
                    c.white.after_tenuki,
                ]
            })
            .collect();
        let mut mine_total: Vec<u64> = mine.iter().map(|r| r[0] + r[1]).collect();
        mine_total.retain(|&n| n > 0);
        theirs_total.retain(|&n| n > 0);
        mine_total.sort_unstable();
        theirs_total.sort_unstable();
        mine.sort_unstable();
        theirs.sort_unstable();
        if extra_labels.is_empty() {
            if mine != theirs {
                problems.push(format!("continuations {mine:?} vs {theirs:?}"));
            }
        } else if mine_total != theirs_total {
            problems.push(format!(
                "continuation totals {mine_total:?} vs {theirs_total:?} (Kombilo minus its extra games)"
            ));
        }
        if !kind.starts_with("fullboard") {
            println!(
                "{:<28} keil {:>5} games {:>6} hits | Kombilo {:>5} games {:>6} hits ({} games keil refused or stored once) | {:.3} ms vs {:.3} ms",
                q["id"].as_str().unwrap_or_default(),
                answer.total_games,
                answer.total_hits,
                q["games"],
                q["hits"],
                q["hit_games"].as_array().map_or(0, Vec::len) - expected.len(),
                median(
                    &bands.iter().find(|b| b.0 == kind).expect("timed").1
                        [bands.iter().find(|b| b.0 == kind).expect("timed").1.len() - 10..]
                ),
                q["search_ms"]["median"].as_f64().unwrap_or(f64::NAN),
            );
        }
        if problems.is_empty() {
            agree += 1;
        } else {
            differ += 1;
            eprintln!("{}: {}", q["id"], problems.join("; "));
        }
    }
    println!(
        "== pattern search, Kombilo's placements, 8 symmetries + colour swap, all hits listed"
    );
    println!("kind              keil p50    keil p99    kombilo p50  kombilo p99  ratio p50");
    for (kind, ms) in bands {
        print_band(kombilo, &kind, ms, 1);
    }
    println!("pattern answers: {agree} queries agree with Kombilo, {differ} differ");
    Ok(differ)
}

/// The median of some timings.
fn median(ms: &[f64]) -> f64 {
    let mut ms = ms.to_vec();
    ms.sort_by(f64::total_cmp);
    ms[ms.len() / 2]
}

/// Kombilo's rows (`X` black, `O` white, `.` empty; the top row first) in
/// the Go position notation (go-rules.md, "Position notation").
fn notation(rows: &[&str]) -> String {
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        let mut run = 0;
        for c in row.chars() {
            let stone = match c {
                'X' => 'b',
                'O' => 'w',
                _ => {
                    run += 1;
                    continue;
                }
            };
            if run > 0 {
                out.push_str(&run.to_string());
                run = 0;
            }
            out.push(stone);
        }
        if run > 0 {
            out.push_str(&run.to_string());
        }
    }
    out
}

/// One row of a comparison table: keil's p50 and p99 over `ms` (every
/// timed run of the band's queries), Kombilo's from its summary of the
/// band, and the ratio of the p50s with `decimals` decimals.
fn print_band(kombilo: &Value, kind: &str, mut ms: Vec<f64>, decimals: usize) {
    let summary = &kombilo["summary"][kind]["search_ms_all_samples"];
    let (kp50, kp99) = (
        summary["median"].as_f64().unwrap_or(f64::NAN),
        summary["p99"].as_f64().unwrap_or(f64::NAN),
    );
    ms.sort_by(f64::total_cmp);
    let p = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    println!(
        "{kind:<17} {:>8.3} ms {:>8.3} ms {:>9.3} ms {:>9.3} ms {:>8.decimals$}x",
        p(0.5),
        p(0.99),
        kp50,
        kp99,
        kp50 / p(0.5)
    );
}
