//! The region index against the scan: the same hits, first nodes and
//! continuations on generated games, and its loads, merges and lookups.

use keil_gen::{Generator, GeneratorConfig};
use keil_rules::GameKind;

use super::super::pattern::Cell;
use super::super::placement::placements;
use super::super::runs::Run;
use super::super::{Pattern, PatternMode, PatternQuery};
use super::lookup::Stream;
use super::*;
use crate::archive::Archive;
use crate::import::{ImportOptions, ImportSource};

/// Imports `games` generated games of `kind` and `size` from `seed`.
fn import(archive: &Archive, kind: GameKind, size: u8, games: u64, seed: u64) {
    let config = GeneratorConfig {
        game: kind,
        games,
        size,
        seed,
        ..GeneratorConfig::default()
    };
    let source = ImportSource::Bytes {
        name: format!("{kind:?}{size}-{seed}.sgf"),
        bytes: Generator::new(config)
            .unwrap()
            .flat_map(|g| g.record.into_bytes())
            .collect(),
    };
    let report = archive
        .import(&[source], &ImportOptions::default(), &mut |_| {})
        .unwrap();
    assert!(report.invalid.is_empty(), "{:?}", report.invalid);
}

/// Region patterns (exact, and with three wildcards) cut from
/// generated games, imported in parts: 7×7 corners of Go games (9×9,
/// whose corner regions overlap, 13×13 and 19×19) and Kaomi games (9×9,
/// where stones are pushed), and 7-point local shapes of Keil games
/// (sides 5 and 7, where captures are frequent). The region index
/// answers every exact one and many of the others, and its answer
/// (games, first nodes and placements, hits, continuations with their
/// tenuki and win counts) is the scan's.
#[test]
fn region_index_answers_as_the_scan_does() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(dir.path()).unwrap();
    // Imported in parts, a load after each: the index's later parts are
    // new segments (on 9×9, 40 games and then five parts of 2: small
    // segments after a large one, merged with each other). Loads seal
    // every 512 entries in unit tests, so the larger parts merge
    // segments within one load too.
    let parts = [
        (GameKind::Go, 9u8, 40u64, 1),
        (GameKind::Go, 9, 2, 5),
        (GameKind::Go, 13, 20, 2),
        (GameKind::Go, 19, 25, 1),
        (GameKind::Kaomi, 9, 30, 1),
        (GameKind::Keil, 5, 30, 1),
        (GameKind::Keil, 7, 30, 1),
        (GameKind::Keil, 7, 3, 3),
    ];
    let patterns = archive.patterns();
    for (kind, size, games, count) in parts {
        for part in 0..count {
            import(
                &archive,
                kind,
                size,
                games,
                u64::from(size) * 1000 + games * 10 + part,
            );
            patterns.load().unwrap();
        }
    }
    // Each group lists its games once each, in answer order, though
    // they came in parts.
    let mut dense = 0;
    {
        let loaded = archive.node.patterns.loaded.read().unwrap();
        for (_, g) in &loaded.groups {
            let order: Vec<_> = g
                .listed
                .iter()
                .map(|&i| g.lines[i as usize].order())
                .collect();
            assert!(order.is_sorted());
            let mut once = g.listed.clone();
            once.sort_unstable();
            once.dedup();
            assert_eq!(once.len(), g.lines.len());
            let regions = g.regions.as_ref().unwrap();
            assert!(regions.segments.len() <= 6, "{}", regions.segments.len());
            for s in &regions.segments {
                dense += (0..s.keys.len())
                    .filter(|&i| matches!(Run::new(s.run_bytes(i)), Run::Dense(_)))
                    .count();
            }
        }
        // Common contents' runs are dense (see `runs`): the answers
        // below read both kinds.
        assert!(dense > 0);
    }
    let mut seed = 7u64;
    let mut below = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let boards = [
        (GameKind::Go, 9u8),
        (GameKind::Go, 13),
        (GameKind::Go, 19),
        (GameKind::Kaomi, 9),
        (GameKind::Keil, 5),
        (GameKind::Keil, 7),
    ];
    let mut answered = [0usize; 2];
    // Stone sets of corner boxes cut (6 on each square board).
    let mut boxed = 0;
    let mut found = 0;
    let mut continued = 0;
    for (kind, size) in boards {
        // Each pattern: one region of a game at one of its nodes.
        let mut cut = Vec::new();
        {
            let loaded = archive.node.patterns.loaded.read().unwrap();
            let (_, group) = loaded
                .groups
                .iter()
                .find(|(k, g)| *k == kind && g.board.size() == size)
                .unwrap();
            let board = group.board;
            let regions = group.regions.as_ref().unwrap();
            // Each point's state (0 empty, 1 black, 2 white) at the end
            // of a node of a game, both picked at random.
            let random_state = |below: &mut dyn FnMut(usize) -> usize| {
                let line = &group.lines[below(group.lines.len())];
                let events = group.events(line);
                let t = events[below(events.len())].node();
                let mut state = vec![0u8; board.len()];
                for e in events.iter().take_while(|e| e.node() <= t) {
                    state[e.point()] = e.state();
                }
                state
            };
            while cut.len() < 24 {
                let state = random_state(&mut below);
                let r = below(regions.boxes);
                let region = &regions.points[r];
                let cells: Vec<(Point, Cell)> = region
                    .iter()
                    .map(|&p| {
                        let cell = [Cell::Empty, Cell::Black, Cell::White]
                            [usize::from(state[usize::from(p)])];
                        (Point(p), cell)
                    })
                    .collect();
                let stones = cells.iter().filter(|c| c.1 != Cell::Empty).count() as u32;
                if !(1..=regions.limits[r]).contains(&stones) {
                    continue;
                }
                let window = kind != GameKind::Keil && region.len() == (WINDOW * WINDOW) as usize;
                // And with three points turned into wildcards.
                let mut wild = cells.clone();
                for _ in 0..3 {
                    let i = below(wild.len());
                    let cell = &mut wild[i].1;
                    *cell = match (*cell, below(3)) {
                        (Cell::Black, _) => Cell::BlackOrEmpty,
                        (Cell::White, _) => Cell::WhiteOrEmpty,
                        (_, 0) => Cell::BlackOrEmpty,
                        (_, 1) => Cell::WhiteOrEmpty,
                        _ => Cell::Any,
                    };
                }
                cut.push((Pattern::new(kind, size, cells).unwrap(), true, window));
                cut.push((Pattern::new(kind, size, wild).unwrap(), false, window));
            }
            // Square boards: 1 or 2 stones of a corner box at a node,
            // `*` elsewhere in the box (its stone sets answer those).
            let mut sets = 0;
            while regions.boxes < regions.points.len() && sets < 6 {
                let state = random_state(&mut below);
                let r = regions.boxes + below(regions.points.len() - regions.boxes);
                let region = &regions.points[r];
                // Ranks of the box's stones, and of those with a stone
                // beside them.
                let stones: Vec<u32> = (0..region.len() as u32)
                    .filter(|&k| state[usize::from(region[k as usize])] != 0)
                    .collect();
                let paired: Vec<u32> = stones
                    .iter()
                    .copied()
                    .filter(|&k| stones.iter().any(|&q| box_near(k) >> q & 1 != 0))
                    .collect();
                if paired.is_empty() {
                    continue;
                }
                let first = paired[below(paired.len())];
                let near: Vec<u32> = stones
                    .iter()
                    .copied()
                    .filter(|&q| box_near(first) >> q & 1 != 0)
                    .collect();
                let mut chosen = vec![region[first as usize]];
                if sets % 2 == 1 {
                    chosen.push(region[near[below(near.len())] as usize]);
                }
                let cells: Vec<(Point, Cell)> = region
                    .iter()
                    .map(|&p| {
                        let cell = if chosen.contains(&p) {
                            [Cell::Empty, Cell::Black, Cell::White]
                                [usize::from(state[usize::from(p)])]
                        } else {
                            Cell::Any
                        };
                        (Point(p), cell)
                    })
                    .collect();
                cut.push((Pattern::new(kind, size, cells).unwrap(), true, false));
                boxed += 1;
                sets += 1;
            }
        }
        let spread = if kind == GameKind::Keil {
            PatternMode::Anywhere
        } else {
            PatternMode::Corner
        };
        for (pattern, exact, window) in cut {
            let spread = if window { PatternMode::Side } else { spread };
            // Some with a filter (games White won), some with the
            // options (Black's continuations, the first 30 moves, the
            // history), one with both.
            for (mode, symmetry, swap_colors, winner, options) in [
                (spread, true, true, None, false),
                (spread, true, false, None, false),
                (PatternMode::Fixed, false, false, None, false),
                (spread, true, true, Some(Color::White), false),
                (spread, true, true, None, true),
                (spread, true, true, Some(Color::White), true),
            ] {
                let q = PatternQuery {
                    symmetry,
                    swap_colors,
                    filter: keil_store::model::GameFilter {
                        winner,
                        ..Default::default()
                    },
                    explore: crate::index::explore::ExploreOptions {
                        next: options.then_some(Color::Black),
                        move_limit: options.then_some(30),
                        history: options,
                        ..Default::default()
                    },
                    ..PatternQuery::new(pattern.clone(), mode)
                };
                let pls = placements(&q.pattern, mode, symmetry, swap_colors).unwrap();
                let loaded = archive.node.patterns.loaded.read().unwrap();
                let group = &loaded
                    .groups
                    .iter()
                    .find(|(k, g)| *k == kind && g.board.size() == size)
                    .unwrap()
                    .1;
                let indexed = group.regions.as_ref().unwrap().lookup(&pls).is_some();
                assert!(indexed || !exact, "{pattern}");
                drop(loaded);
                let (fast, scan) = region_and_scan(&archive, &q);
                assert_eq!(
                    fast, scan,
                    "{pattern} {mode:?} {symmetry} {swap_colors} {winner:?} {options}"
                );
                answered[usize::from(exact)] += usize::from(indexed);
                found += fast.games.len();
                continued += fast.continuations.len();
            }
        }
    }
    // Every exact pattern, and some of those with three wildcards (few
    // on Keil boards and in side windows, whose contents hold 3 stones
    // at most).
    assert_eq!(boxed, 4 * 6);
    assert_eq!(answered[1], (boards.len() * 12 + boxed) * 6);
    assert!(answered[0] > boards.len() * 12 * 6 / 6, "{answered:?}");
    // Cut from the games themselves: each one is found at least once,
    // and most have continuations.
    assert!(found >= 2 * boards.len() * 12 * 3, "{found}");
    assert!(continued >= boards.len() * 12 * 3, "{continued}");
}

/// The history of a region lookup counts undated games in their own
/// entry and each dated one in its year, as the scan does.
#[test]
fn region_history_keeps_undated_games_apart() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(dir.path()).unwrap();
    let config = GeneratorConfig {
        game: GameKind::Go,
        games: 90,
        size: 9,
        seed: 3,
        ..GeneratorConfig::default()
    };
    // Every third game without its date.
    let bytes: Vec<u8> = Generator::new(config)
        .unwrap()
        .enumerate()
        .flat_map(|(i, g)| {
            let mut record = g.record;
            if i % 3 == 0
                && let Some(at) = record.find("DT[")
            {
                let end = at + record[at..].find(']').unwrap();
                record.replace_range(at..=end, "");
            }
            record.into_bytes()
        })
        .collect();
    let source = ImportSource::Bytes {
        name: "undated.sgf".into(),
        bytes,
    };
    let report = archive
        .import(&[source], &ImportOptions::default(), &mut |_| {})
        .unwrap();
    assert!(report.invalid.is_empty(), "{:?}", report.invalid);
    let patterns = archive.patterns();
    patterns.load().unwrap();
    // A black stone on a 3-3 point, `*` elsewhere in the corner box:
    // answered from the boxes' stone sets.
    let box_stone = "*****/*****/**X**/*****/*****";
    let pattern = Pattern::parse(GameKind::Go, 9, box_stone, PatternMode::Corner).unwrap();
    let q = PatternQuery {
        explore: crate::index::explore::ExploreOptions {
            history: true,
            ..Default::default()
        },
        ..PatternQuery::new(pattern, PatternMode::Corner)
    };
    {
        let pls = placements(&q.pattern, q.mode, q.symmetry, q.swap_colors).unwrap();
        let loaded = archive.node.patterns.loaded.read().unwrap();
        let group = &loaded.groups[0].1;
        assert!(group.regions.as_ref().unwrap().lookup(&pls).is_some());
    }
    let (fast, scan) = region_and_scan(&archive, &q);
    assert_eq!(fast, scan);
    assert!(fast.games.len() > 10, "{}", fast.games.len());
    let history = fast.history.as_ref().unwrap();
    assert!(history.iter().any(|y| y.year.is_none()), "{history:?}");
    assert!(history.iter().any(|y| y.year.is_some()), "{history:?}");
    let years = fast
        .continuations
        .iter()
        .flat_map(|c| c.history.iter().flatten());
    assert!(years.clone().any(|y| y.year.is_none()));
    assert!(years.clone().any(|y| y.year.is_some()));
}

/// A refresh that meets a stored game that does not decode fails, and
/// takes out the games it had added: the next one, once the game is
/// mended, adds each game once.
#[test]
fn a_failed_refresh_adds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(dir.path()).unwrap();
    let import = |seed| import(&archive, GameKind::Go, 9, 70, seed);
    let lines = || lines_held(&archive);
    let query = corner_query();
    import(1);
    archive.patterns().load().unwrap();
    assert_eq!(lines(), 70);
    let before = archive.patterns().search_uncached(&query).unwrap();
    // Game 100 gets moves that do not decode: it is in the second
    // chunk (of 16 in unit tests) that this refresh reads, so one chunk
    // was added before the read fails.
    import(2);
    let db = rusqlite::Connection::open(dir.path().join(crate::location::SQLITE_FILE)).unwrap();
    // Without their pattern blocks, the games are replayed (a block
    // would hold the game as it was stored).
    db.execute("DELETE FROM derived_blocks", []).unwrap();
    let moves = stored_moves(&db, 100);
    let set = |m: &[u8]| set_moves(&db, 100, m);
    set(&[0xFF; 7]);
    let e = archive.patterns().load().unwrap_err();
    assert!(e.to_string().contains("100"), "{e}");
    assert_eq!(lines(), 70);
    // So does a search (it refreshes first), naming the game.
    let e = archive.patterns().search_uncached(&query).unwrap_err();
    assert!(e.to_string().contains("100"), "{e}");
    assert_eq!(lines(), 70);
    set(&moves);
    archive.patterns().load().unwrap();
    assert_eq!(lines(), 140);
    let after = archive.patterns().search_uncached(&query).unwrap();
    assert!(after.total_games >= before.total_games);
    let mut ids: Vec<_> = {
        let loaded = archive.node.patterns.loaded.read().unwrap();
        loaded.groups[0].1.lines.iter().map(|l| l.id).collect()
    };
    ids.dedup();
    assert_eq!(ids.len(), 140);
    // A few new games (an upload's) are replayed before the index is
    // locked: a game that does not replay adds none of them either.
    self::import(&archive, GameKind::Go, 9, 10, 3);
    db.execute("DELETE FROM derived_blocks", []).unwrap();
    let moves = stored_moves(&db, 145);
    set_moves(&db, 145, &[0xFF; 7]);
    let e = archive.patterns().search_uncached(&query).unwrap_err();
    assert!(e.to_string().contains("145"), "{e}");
    assert_eq!(lines(), 140);
    set_moves(&db, 145, &moves);
    archive.patterns().search_uncached(&query).unwrap();
    assert_eq!(lines(), 150);
}

/// The games the archive's pattern index holds.
fn lines_held(archive: &Archive) -> usize {
    let loaded = archive.node.patterns.loaded.read().unwrap();
    loaded.groups.iter().map(|(_, g)| g.lines.len()).sum()
}

/// `q`'s matches as the region index answers them and as the scan
/// does, read in one snapshot.
fn region_and_scan(
    archive: &Archive,
    q: &PatternQuery,
) -> (super::super::answer::Matched, super::super::answer::Matched) {
    let patterns = archive.patterns();
    let unlimited = keil_store::budget::Budget::unlimited();
    let conn = archive.node.reader().unwrap();
    conn.snapshot(|c| -> crate::error::Result<_> {
        Ok((
            patterns.matches(c, q, true, &unlimited)?,
            patterns.matches(c, q, false, &unlimited)?,
        ))
    })
    .unwrap()
}

/// A 9×9 corner pattern of two stones.
fn corner_query() -> PatternQuery {
    let pattern = Pattern::parse(
        GameKind::Go,
        9,
        "......./......./..O..../...X.../......./......./.......",
        PatternMode::Corner,
    )
    .unwrap();
    PatternQuery::new(pattern, PatternMode::Corner)
}

/// Game `id`'s stored moves column.
fn stored_moves(db: &rusqlite::Connection, id: i64) -> Vec<u8> {
    db.query_row("SELECT moves FROM games WHERE id = ?1", [id], |r| r.get(0))
        .unwrap()
}

/// Sets game `id`'s stored moves column (to damage or restore it).
fn set_moves(db: &rusqlite::Connection, id: i64, moves: &[u8]) {
    db.execute(
        "UPDATE games SET moves = ?1 WHERE id = ?2",
        rusqlite::params![moves, id],
    )
    .unwrap();
}

/// A refresh that fails part way on an index mapped from the node's
/// snapshot takes out what it added and nothing mapped; the next one
/// adds the games, and the answers are a fresh index's.
#[test]
fn a_failed_refresh_on_a_mapped_snapshot_adds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let query = corner_query();
    {
        let first = Archive::open(dir.path()).unwrap();
        import(&first, GameKind::Go, 9, 100, 1);
        first.cache_in(cache.path()).unwrap();
        assert!(!first.patterns().load().unwrap().from_snapshot);
    }
    let archive = Archive::open(dir.path()).unwrap();
    archive.cache_in(cache.path()).unwrap();
    let stats = archive.patterns().load().unwrap();
    assert!(stats.from_snapshot && stats.mapped_bytes > 0);
    let lines = || lines_held(&archive);
    import(&archive, GameKind::Go, 9, 70, 2);
    let db = rusqlite::Connection::open(dir.path().join(crate::location::SQLITE_FILE)).unwrap();
    db.execute("DELETE FROM derived_blocks", []).unwrap();
    let moves = stored_moves(&db, 140);
    let set = |m: &[u8]| set_moves(&db, 140, m);
    set(&[0xFF; 7]);
    let e = archive.patterns().search_uncached(&query).unwrap_err();
    assert!(e.to_string().contains("140"), "{e}");
    assert_eq!(lines(), 100);
    set(&moves);
    let after = archive.patterns().search_uncached(&query).unwrap();
    assert_eq!(lines(), 170);
    let fresh = Archive::open(dir.path()).unwrap();
    let expected = fresh.patterns().search_uncached(&query).unwrap();
    assert_eq!(
        serde_json::to_value(&after).unwrap(),
        serde_json::to_value(&expected).unwrap()
    );
}

/// Which patterns the region index answers: a corner region's 49
/// points or a Keil point with its six neighbours, with few enough
/// wildcards and stones; the others are left to the scan.
#[test]
fn which_patterns_the_index_answers() {
    let contents = |kind: GameKind, size: u8, text: &str, mode: PatternMode| {
        let board = keil_rules::BoardSpec::new(kind, size)
            .unwrap()
            .board()
            .unwrap();
        let regions = Regions::new(board).unwrap();
        let p = Pattern::parse(kind, size, text, mode).unwrap();
        let pls = placements(&p, mode, true, true).unwrap();
        let lookup = regions.lookup(&pls)?;
        Some(lookup.keys.iter().map(Vec::len).max())
    };
    let go = |rows: &str| contents(GameKind::Go, 19, rows, PatternMode::Corner);
    let corner = |top: &str| format!("{top}/..O..../...X.../......./......./.......");
    // Exact: one content a placement.
    assert_eq!(go(&corner("......./.......")), Some(Some(1)));
    // x, o and * stand for 2, 2 and 3 contents.
    assert_eq!(go(&corner("x.o..../...*...")), Some(Some(12)));
    // 3^4 = 81 contents: too many.
    assert_eq!(go(&corner("****.../.......")), None);
    // A content with no stone (x and o alone): not indexed.
    assert_eq!(
        go("......./......./..o..../...x.../......./......./......."),
        None
    );
    // More than 8 stones once x points are black.
    assert_eq!(go(&corner("XXXOOOx/.......")), None);
    // A 5×5 corner box: 1 or 2 stones, `*` elsewhere.
    let box5 = |rows: &str| contents(GameKind::Go, 19, rows, PatternMode::Corner);
    assert_eq!(box5("*****/*****/**O**/***X*/*****"), Some(Some(1)));
    assert_eq!(box5("*****/*****/*****/***X*/*****"), Some(Some(1)));
    // Three stones, or a point that must be empty: left to the scan.
    assert_eq!(box5("*****/*****/**O**/**XX*/*****"), None);
    // Two stones that are not neighbours.
    assert_eq!(box5("*****/*****/O****/***X*/*****"), None);
    assert_eq!(box5("*****/*****/**O**/***X./*****"), None);
    // Not a corner region: 6×6.
    assert_eq!(go("....../....../..O.../...X../....../......"), None);
    assert!(
        Regions::new(
            keil_rules::BoardSpec::new(GameKind::Go, 7)
                .unwrap()
                .board()
                .unwrap()
        )
        .is_none()
    );
    // Keil: a point and its six neighbours (f6, f7, g6, g8, h7, h8 round
    // g7), anywhere.
    let keil = |text: &str| contents(GameKind::Keil, 7, text, PatternMode::Anywhere);
    assert_eq!(keil("X:g7 O:h8 .:f6,f7,g6,g8,h7"), Some(Some(1)));
    assert_eq!(keil("X:g7,g8 O:h8 .:f6,f7,g6,h7"), Some(Some(1)));
    assert_eq!(keil("X:g7 *:f6 x:f7 .:g6,g8,h7,h8"), Some(Some(6)));
    // A content with 4 stones among those it stands for.
    assert_eq!(keil("X:g7 O:h8 *:f6 x:f7 .:g6,g8,h7"), None);
    // More than 3 stones.
    assert_eq!(keil("X:g7,g8 O:h8,h7 .:f6,f7,g6"), None);
    // Six points: not a region.
    assert_eq!(keil("X:g7 O:h8 .:f6,f7,g6,h7"), None);
    let rosettes = Regions::new(
        keil_rules::BoardSpec::new(GameKind::Keil, 7)
            .unwrap()
            .board()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(rosettes.points.len(), 91);
    assert!(rosettes.points.iter().all(|r| r.len() == 7));
}

/// A run's entries read back as written, whatever their varints'
/// lengths (one to five bytes); and a stream of two runs (two
/// segments') read a window of games at a time, an entry at a window's
/// end left for the next.
#[test]
fn runs_read_back_their_entries() {
    use crate::index::varint::put_varint;
    let deltas = [
        0u32,
        1,
        0x7f,
        0x80,
        0x3fff,
        0x4000,
        0x1f_ffff,
        0x20_0000,
        0xfff_ffff,
        0x1000_0000,
    ];
    let nodes = [0u16, 5, 0x7f, 0x80, 0x3fff, 0x4000, u16::MAX];
    let mut entries = Vec::new();
    let mut game = 0u32;
    for (i, &d) in deltas.iter().cycle().take(40).enumerate() {
        game += d;
        entries.push((game, nodes[i % nodes.len()], i as u8));
    }
    // A run's bytes: each game as a delta from the one before (the
    // first from 0).
    let encode = |entries: &[(u32, u16, u8)]| {
        let (mut data, mut last) = (Vec::new(), 0);
        for &(game, node, next) in entries {
            put_varint(&mut data, u64::from(game - last));
            put_varint(&mut data, u64::from(node));
            data.push(next);
            last = game;
        }
        data
    };
    let data = encode(&entries);
    assert_eq!(Run::new(&data).collect::<Vec<_>>(), entries);
    let (a, b) = (encode(&entries[..17]), encode(&entries[17..]));
    let mut stream = Stream {
        runs: vec![Run::new(&a), Run::new(&b)],
        at: 0,
        read: Vec::new(),
        next: 0,
    };
    let mut read = Vec::new();
    for end in entries.iter().map(|e| e.0).chain([u32::MAX]) {
        loop {
            let batch = stream.below(end);
            if batch.is_empty() {
                break;
            }
            assert!(batch.iter().all(|e| e.0 < end));
            read.extend_from_slice(batch);
        }
    }
    assert_eq!(read, entries);
}
