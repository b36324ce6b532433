//! The explorer's filters and options against brute force on
//! generated Go games with ranks, dates, komi and handicaps: every filter
//! of a position search, the move limit, the history, the top and recent
//! games, each equal to what a simple replay of every stored game gives;
//! and the same options of a pattern search against its own unfiltered
//! answer (itself held to brute force by `tests/patterns.rs`) and the
//! games' summaries.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use keil_archive::{
    Archive, ExploreOptions, GameFilter, GameId, GameKind, GameSummary, HitDetails, ImportOptions,
    ImportSource, Pattern, PatternMode, PatternQuery, PositionQuery, YearCount,
};
use keil_gen::{Generator, GeneratorConfig};
use keil_rules::{AnyPosition, Color, HalfPoints};

/// A stored game: its summary and its positions after each ply (0: the
/// start).
struct Line {
    summary: GameSummary,
    positions: Vec<AnyPosition>,
}

/// `games` generated 9×9 Go games (with ranks, dates, komi and handicaps)
/// from `seed`, as one file to import.
fn generated(games: u64, seed: u64) -> ImportSource {
    let bytes: Vec<u8> = Generator::new(GeneratorConfig {
        game: GameKind::Go,
        games,
        size: 9,
        seed,
        handicaps: true,
        ..GeneratorConfig::default()
    })
    .unwrap()
    .flat_map(|g| g.record.into_bytes())
    .collect();
    ImportSource::Bytes {
        name: format!("go-{seed}.sgf"),
        bytes,
    }
}

fn archive_of(games: u64, seed: u64) -> (tempfile::TempDir, Archive, Vec<Line>) {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let report = archive
        .import(
            &[generated(games, seed)],
            &ImportOptions::default(),
            &mut |_| {},
        )
        .unwrap();
    assert!(report.invalid.is_empty(), "{:?}", report.invalid);
    let n = archive.stats().unwrap().games;
    let ids: Vec<GameId> = (1..=n).map(|i| GameId::new(i).unwrap()).collect();
    let summaries = archive.games().summaries(&ids).unwrap();
    let lines = summaries
        .into_iter()
        .map(|summary| {
            let m = archive.games().moves(summary.id).unwrap().unwrap();
            let mut game = m.start();
            let mut positions = vec![game.position()];
            for i in 0..m.moves.len() {
                m.play(i, &mut game).unwrap();
                positions.push(game.position());
            }
            Line { summary, positions }
        })
        .collect();
    (dir, archive, lines)
}

/// The first ply (at most `limit`) at which a game had `q`'s board, under
/// its symmetries, and whether that occurrence was colour-swapped (the
/// unswapped one first at the same ply).
fn first_match(line: &Line, q: &PositionQuery) -> Option<(u32, bool)> {
    let board = q.position.board();
    let images: Vec<AnyPosition> = (0..board.symmetry_count())
        .map(|s| q.position.transform(s))
        .collect();
    let limit = q.explore.move_limit.map_or(usize::MAX, |m| m as usize);
    let mut best: Option<(u32, bool)> = None;
    for swapped in [false, true] {
        if swapped && !q.swap_colors {
            continue;
        }
        let found = line.positions.iter().enumerate().find(|(ply, p)| {
            let p = if swapped { p.swap_colors() } else { **p };
            *ply <= limit && images.contains(&p)
        });
        if let Some((ply, _)) = found
            && best.is_none_or(|(b, _)| (ply as u32) < b)
        {
            best = Some((ply as u32, swapped));
        }
    }
    best
}

/// Years as a history lists them, from `(year or 0, winner in the
/// query's colours)` of each game.
fn years_of(games: impl Iterator<Item = (u16, Option<Color>)>) -> Vec<YearCount> {
    let mut by: BTreeMap<u16, [u64; 3]> = BTreeMap::new();
    for (year, winner) in games {
        let e = by.entry(year).or_default();
        e[0] += 1;
        e[1] += u64::from(winner == Some(Color::Black));
        e[2] += u64::from(winner == Some(Color::White));
    }
    let entry = |(&y, c): (&u16, &[u64; 3])| YearCount {
        year: (y != 0).then_some(y),
        games: c[0],
        black_wins: c[1],
        white_wins: c[2],
    };
    let mut out: Vec<YearCount> = by.iter().filter(|(y, _)| **y != 0).map(entry).collect();
    out.extend(by.get_key_value(&0).map(entry));
    out
}

fn year(s: &GameSummary) -> u16 {
    s.day.map_or(0, |d| chrono::Datelike::year(&d) as u16)
}

/// The weaker player's rank as an ordinal, 0 when either is unknown.
fn weaker(s: &GameSummary) -> u8 {
    match (s.black_rank, s.white_rank) {
        (Some(b), Some(w)) => b.ordinal().min(w.ordinal()),
        _ => 0,
    }
}

/// The order of the top games: weaker rank highest, then newest, then
/// highest id.
fn top_order(s: &GameSummary) -> impl Ord {
    std::cmp::Reverse((weaker(s), s.day, s.id))
}

/// Filters that each keep some of the games and drop others.
fn filters(lines: &[Line]) -> Vec<GameFilter> {
    let s = &lines[0].summary;
    let ranks: BTreeSet<_> = lines.iter().filter_map(|l| l.summary.black_rank).collect();
    let mid = *ranks.iter().nth(ranks.len() / 2).unwrap();
    let days: BTreeSet<_> = lines.iter().filter_map(|l| l.summary.day).collect();
    let mid_day = *days.iter().nth(days.len() / 2).unwrap();
    vec![
        GameFilter::default(),
        GameFilter {
            min_rank: Some(mid),
            ..GameFilter::default()
        },
        GameFilter {
            max_rank: Some(mid),
            ..GameFilter::default()
        },
        GameFilter {
            from: Some(mid_day),
            ..GameFilter::default()
        },
        GameFilter {
            to: Some(mid_day),
            winner: Some(Color::White),
            ..GameFilter::default()
        },
        GameFilter {
            handicap: Some(0),
            ..GameFilter::default()
        },
        GameFilter {
            komi: Some(HalfPoints(13)),
            ..GameFilter::default()
        },
        GameFilter {
            player: s.black.clone(),
            ..GameFilter::default()
        },
        GameFilter {
            event: s.event.clone(),
            min_rank: Some(ranks.iter().next().copied().unwrap()),
            ..GameFilter::default()
        },
        // A part of an event's name (every event of that name's kind).
        GameFilter {
            event: Some("cup".into()),
            ..GameFilter::default()
        },
        GameFilter {
            result: lines[1].summary.result.clone(),
            ..GameFilter::default()
        },
        // Read from the store.
        GameFilter {
            status: Some(lines[2].summary.status),
            ..GameFilter::default()
        },
    ]
}

#[test]
fn position_filters_and_options_agree_with_brute_force() {
    let (_dir, archive, lines) = archive_of(240, 27);
    // The filters keep some games and drop some.
    for f in filters(&lines).iter().skip(1) {
        let kept = lines.iter().filter(|l| f.matches(&l.summary)).count();
        assert!(kept > 0 && kept < lines.len(), "{f:?} keeps {kept}");
    }
    // Boards after a few plies (exact keys) and later (Zobrist keys).
    let mut queries: Vec<AnyPosition> = vec![lines[0].positions[0]];
    for (i, ply) in [(1, 2), (2, 3), (3, 4), (5, 9), (8, 14)] {
        queries.push(lines[i].positions[ply]);
    }
    let mut seen = 0;
    for board in &queries {
        for f in filters(&lines) {
            for (swap, limit) in [(false, None), (true, None), (true, Some(6))] {
                let q = PositionQuery {
                    symmetry: true,
                    swap_colors: swap,
                    filter: f.clone(),
                    limit: 10_000,
                    explore: ExploreOptions {
                        move_limit: limit,
                        history: true,
                        top_games: 5,
                        recent_games: 3,
                        ..ExploreOptions::default()
                    },
                    ..PositionQuery::new(*board)
                };
                let what = format!("{} {f:?} swap {swap} limit {limit:?}", q.notation());
                let want: Vec<(&Line, bool)> = lines
                    .iter()
                    .filter(|l| f.matches(&l.summary))
                    .filter_map(|l| first_match(l, &q).map(|(_, s)| (l, s)))
                    .collect();
                let answer = archive.positions().search(&q).unwrap();
                for h in &answer.games {
                    let s = &lines[h.game_id.get() as usize - 1].summary;
                    assert_shows(&what, &h.game, s);
                }
                let got: BTreeSet<GameId> = answer.games.iter().map(|h| h.game_id).collect();
                let ids: BTreeSet<GameId> = want.iter().map(|(l, _)| l.summary.id).collect();
                assert_eq!(got, ids, "{what}");
                assert_eq!(answer.total_games, ids.len() as u64, "{what}");
                seen += ids.len();
                // The history, in the query's colours.
                let history = answer.history.clone().unwrap();
                let years = years_of(want.iter().map(|(l, swapped)| {
                    let w = l.summary.winner;
                    (
                        year(&l.summary),
                        if *swapped { w.map(Color::opposite) } else { w },
                    )
                }));
                assert_eq!(history, years, "{what}");
                for c in &answer.continuations {
                    let h = c.history.as_ref().unwrap();
                    assert_eq!(h.iter().map(|y| y.games).sum::<u64>(), c.games, "{what}");
                    assert_eq!(
                        h.iter().map(|y| y.black_wins).sum::<u64>(),
                        c.black_wins,
                        "{what}"
                    );
                }
                // Top games: the weaker player ranks highest, then newest.
                let mut top: Vec<&GameSummary> = want
                    .iter()
                    .map(|(l, _)| &l.summary)
                    .filter(|s| weaker(s) > 0)
                    .collect();
                top.sort_by_key(|s| top_order(s));
                let top: Vec<GameId> = top.iter().take(5).map(|s| s.id).collect();
                let got: Vec<GameId> = answer.top_games.iter().map(|h| h.game_id).collect();
                assert_eq!(got, top, "{what}");
                let recent: Vec<GameId> = answer.games.iter().take(3).map(|h| h.game_id).collect();
                let got: Vec<GameId> = answer.recent_games.iter().map(|h| h.game_id).collect();
                assert_eq!(got, recent, "{what}");
            }
        }
    }
    assert!(seen > 400, "the queries found too few games: {seen}");
}

/// A hit's header (`game`) shows its game's date, players, ranks and
/// result as the game's summary has them.
fn assert_shows(what: &str, game: &HitDetails, s: &GameSummary) {
    let date = game.date.as_str();
    let shown = [
        &game.black,
        &game.white,
        &game.black_rank,
        &game.white_rank,
        &game.result,
    ];
    let want = [
        s.black.clone(),
        s.white.clone(),
        s.shown_rank(Color::Black),
        s.shown_rank(Color::White),
        s.result.clone(),
    ];
    assert_eq!(shown.map(Clone::clone), want, "{what}");
    match (s.day, &s.date) {
        (Some(day), _) => assert_eq!(date, day.format("%Y-%m-%d").to_string(), "{what}"),
        (None, None) => assert_eq!(date, "", "{what}"),
        (None, Some(_)) => {}
    }
}

#[test]
fn pattern_filters_and_options_follow_the_unfiltered_answer() {
    let (_dir, archive, lines) = archive_of(240, 31);
    let summary: BTreeMap<GameId, &GameSummary> =
        lines.iter().map(|l| (l.summary.id, &l.summary)).collect();
    // A 4×4 corner with two stones, and a small shape anywhere.
    let patterns = [
        (
            Pattern::parse(GameKind::Go, 9, "X:cc", PatternMode::Corner).unwrap(),
            PatternMode::Corner,
        ),
        (
            Pattern::parse(GameKind::Go, 9, "X:dd O:ed .:de", PatternMode::Anywhere).unwrap(),
            PatternMode::Anywhere,
        ),
    ];
    let mut seen = 0;
    for (p, mode) in &patterns {
        let base = PatternQuery {
            limit: 10_000,
            ..PatternQuery::new(p.clone(), *mode)
        };
        let all = archive.patterns().search(&base).unwrap();
        assert!(all.total_games > 10, "{p}: {}", all.total_games);
        for h in &all.games {
            assert_shows(&p.to_string(), &h.game, summary[&h.game_id]);
        }
        for f in filters(&lines) {
            let what = format!("{p} {f:?}");
            let q = PatternQuery {
                filter: f.clone(),
                explore: ExploreOptions {
                    history: true,
                    top_games: 4,
                    recent_games: 2,
                    ..base.explore
                },
                ..base.clone()
            };
            let got = archive.patterns().search(&q).unwrap();
            let want: Vec<_> = all
                .games
                .iter()
                .filter(|h| f.matches(summary[&h.game_id]))
                .collect();
            assert_eq!(
                got.games
                    .iter()
                    .map(|h| (h.game_id, h.hits, h.node))
                    .collect::<Vec<_>>(),
                want.iter()
                    .map(|h| (h.game_id, h.hits, h.node))
                    .collect::<Vec<_>>(),
                "{what}"
            );
            assert_eq!(
                got.total_hits,
                want.iter().map(|h| u64::from(h.hits)).sum::<u64>(),
                "{what}"
            );
            seen += want.len();
            // The history: per year of each game, its winner in the colours
            // of its first match.
            let years = years_of(want.iter().map(|h| {
                let s = summary[&h.game_id];
                let w = if h.swapped {
                    s.winner.map(Color::opposite)
                } else {
                    s.winner
                };
                (year(s), w)
            }));
            assert_eq!(got.history.clone().unwrap(), years, "{what}");
            for c in &got.continuations {
                let h = c.history.as_ref().unwrap();
                assert_eq!(
                    h.iter().map(|y| y.games).sum::<u64>(),
                    c.black.count + c.white.count,
                    "{what}"
                );
            }
            let mut top: Vec<&GameSummary> = want
                .iter()
                .map(|h| summary[&h.game_id])
                .filter(|s| weaker(s) > 0)
                .collect();
            top.sort_by_key(|s| top_order(s));
            assert_eq!(
                got.top_games.iter().map(|h| h.game_id).collect::<Vec<_>>(),
                top.iter().take(4).map(|s| s.id).collect::<Vec<_>>(),
                "{what}"
            );
            assert_eq!(
                got.recent_games
                    .iter()
                    .map(|h| h.game_id)
                    .collect::<Vec<_>>(),
                want.iter().take(2).map(|h| h.game_id).collect::<Vec<_>>(),
                "{what}"
            );
        }
        // The move limit: a game stays when its first match is at or
        // before it (the first match is the earliest).
        for limit in [0, 3, 8, 20] {
            let q = PatternQuery {
                explore: ExploreOptions {
                    move_limit: Some(limit),
                    ..base.explore
                },
                ..base.clone()
            };
            let got = archive.patterns().search(&q).unwrap();
            let want: Vec<GameId> = all
                .games
                .iter()
                .filter(|h| h.ply <= limit)
                .map(|h| h.game_id)
                .collect();
            assert_eq!(
                got.games.iter().map(|h| h.game_id).collect::<Vec<_>>(),
                want,
                "{p} limit {limit}"
            );
            for (g, h) in got
                .games
                .iter()
                .zip(all.games.iter().filter(|h| h.ply <= limit))
            {
                assert!(g.hits <= h.hits && g.node == h.node, "{p} limit {limit}");
            }
        }
        // The next move: only hits continued by that colour; the other
        // colour's column is empty and this one's unchanged.
        for next in [Color::Black, Color::White] {
            let q = PatternQuery {
                explore: ExploreOptions {
                    next: Some(next),
                    ..base.explore
                },
                ..base.clone()
            };
            let got = archive.patterns().search(&q).unwrap();
            let col = |c: &keil_archive::PatternContinuation| match next {
                Color::Black => (c.black, c.white),
                Color::White => (c.white, c.black),
            };
            let want: BTreeMap<&str, keil_archive::MoveStats> = all
                .continuations
                .iter()
                .filter(|c| col(c).0.count > 0)
                .map(|c| (c.point.as_str(), col(c).0))
                .collect();
            let ours: BTreeMap<&str, keil_archive::MoveStats> = got
                .continuations
                .iter()
                .map(|c| {
                    assert_eq!(col(c).1.count, 0, "{p} next {next:?}");
                    (c.point.as_str(), col(c).0)
                })
                .collect();
            assert_eq!(ours, want, "{p} next {next:?}");
            assert_eq!(
                got.total_hits,
                want.values().map(|s| s.count).sum::<u64>(),
                "{p} next {next:?}"
            );
            assert!(got.total_games <= all.total_games);
        }
    }
    assert!(seen > 100, "the patterns found too few games: {seen}");
}

/// A node keeps each filter's answer over the games between searches: games
/// imported after a filtered search are found by the same filter at once,
/// and only when they pass it; a game removed is gone at once.
#[test]
fn a_filter_kept_between_searches_follows_new_games() {
    let (_dir, archive, lines) = archive_of(120, 5);
    let p = Pattern::parse(GameKind::Go, 9, "X:cc", PatternMode::Corner).unwrap();
    let base = PatternQuery {
        limit: 10_000,
        ..PatternQuery::new(p, PatternMode::Corner)
    };
    let f = filters(&lines)[1].clone();
    let q = PatternQuery {
        filter: f.clone(),
        ..base.clone()
    };
    let before = archive.patterns().search(&q).unwrap();
    // More games, another seed: some pass the filter.
    archive
        .import(&[generated(80, 6)], &ImportOptions::default(), &mut |_| {})
        .unwrap();
    let all = archive.patterns().search(&base).unwrap();
    let ids: Vec<GameId> = all.games.iter().map(|h| h.game_id).collect();
    let summaries: BTreeMap<GameId, GameSummary> = archive
        .games()
        .summaries(&ids)
        .unwrap()
        .into_iter()
        .map(|s| (s.id, s))
        .collect();
    let want: Vec<GameId> = ids
        .iter()
        .copied()
        .filter(|id| f.matches(&summaries[id]))
        .collect();
    let got = archive.patterns().search(&q).unwrap();
    assert_eq!(
        got.games.iter().map(|h| h.game_id).collect::<Vec<_>>(),
        want
    );
    assert!(
        got.total_games > before.total_games,
        "{} then {}",
        before.total_games,
        got.total_games
    );
    // A game removed is gone from the filter's answer at once.
    archive
        .remove(want[0], "test", "a removal")
        .unwrap()
        .unwrap();
    let got = archive.patterns().search(&q).unwrap();
    assert_eq!(
        got.games.iter().map(|h| h.game_id).collect::<Vec<_>>(),
        want[1..]
    );
}

/// Three hand-made 9×9 records, two with variations.
const RECORDS: &str = "\
(;GM[1]FF[4]SZ[9]KM[6.5]DT[2020-01-01]PB[A]PW[B]RE[B+R];B[cc];W[gg]\
(;B[cg];W[gc])(;B[ee];W[cg];B[gc]))
(;GM[1]FF[4]SZ[9]KM[6.5]DT[2021-01-01]PB[C]PW[D]RE[W+R];B[cc];W[cg];B[ee])
(;GM[1]FF[4]SZ[9]KM[6.5]DT[2019-01-01]PB[E]PW[F]RE[B+R];B[cc];W[cg]\
(;B[ee])(;B[gg]))
";

/// The hand-made records' variation hits are counted in their games'
/// window of the tally when many games come before them (a search counts
/// a window of games at a time: here games 151 to 153 of 153, in the
/// third window).
#[test]
fn variations_are_found_in_games_of_later_windows() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    archive
        .import(&[generated(150, 9)], &ImportOptions::default(), &mut |_| {})
        .unwrap();
    let report = common::import(&archive, &[common::bytes("variations.sgf", RECORDS)]);
    assert_eq!(report.counts.imported, 3, "{:?}", report.invalid);
    let game = |i| GameId::new(i).unwrap();
    let pattern = Pattern::parse(GameKind::Go, 9, "X:cc O:cg", PatternMode::Fixed).unwrap();
    let q = PatternQuery {
        symmetry: false,
        swap_colors: false,
        limit: 10_000,
        explore: ExploreOptions {
            variations: true,
            ..ExploreOptions::default()
        },
        ..PatternQuery::new(pattern, PatternMode::Fixed)
    };
    let all = archive.patterns().search(&q).unwrap();
    let ours: Vec<_> = all
        .games
        .iter()
        .filter(|h| h.game_id >= game(151))
        .map(|h| (h.game_id, h.node, h.ply, h.hits, h.variation))
        .collect();
    assert_eq!(
        ours,
        vec![
            (game(152), 2, 2, 1, None),
            (game(151), 4, 4, 1, Some(1)),
            (game(153), 2, 2, 1, None),
        ]
    );
}

/// Two hand-made Go records whose nodes are not their plies (a node
/// without a move, a setup node): a move limit counts plies, and the hits
/// say both the node and the ply of their first match.
#[test]
fn a_move_limit_counts_plies_not_nodes_on_hand_made_records() {
    const RECORDS: &str = "\
(;GM[1]FF[4]SZ[9]KM[6.5]DT[2020-05-01]PB[Ann]PW[Bob]RE[B+R]\
;B[cc];W[gg];C[a node without a move];B[cg];W[gc];B[ee])
(;GM[1]FF[4]SZ[9]KM[6.5]DT[2021-05-01]PB[Cid]PW[Dee]RE[W+R]\
;B[gg];W[cc];B[cg];W[ee])
(;GM[1]FF[4]SZ[9]KM[6.5]DT[2022-05-01]PB[Eve]PW[Fay]RE[B+R]\
;B[dd];W[gg];C[two nodes];C[without moves];B[cc];W[gc];B[cg])
";
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let report = common::import(&archive, &[common::bytes("hand.sgf", RECORDS)]);
    assert_eq!(report.counts.imported, 3, "{:?}", report.invalid);
    let game = |i| GameId::new(i).unwrap();

    // Black at c7 and c3 (SGF cc, cg), exactly there: game 1 has them
    // after ply 3 (node 4), game 3 after ply 4 (node 6), game 2 never
    // (its cc is White's).
    let pattern = Pattern::parse(GameKind::Go, 9, "X:cc,cg", PatternMode::Fixed).unwrap();
    let search = |limit: Option<u32>| {
        let q = PatternQuery {
            symmetry: false,
            swap_colors: false,
            explore: ExploreOptions {
                move_limit: limit,
                ..ExploreOptions::default()
            },
            ..PatternQuery::new(pattern.clone(), PatternMode::Fixed)
        };
        let a = archive.patterns().search(&q).unwrap();
        a.games
            .iter()
            .map(|h| (h.game_id, h.node, h.ply))
            .collect::<Vec<_>>()
    };
    let both = vec![(game(3), 7, 5), (game(1), 4, 3)];
    assert_eq!(search(None), both);
    assert_eq!(search(Some(5)), both);
    assert_eq!(search(Some(4)), vec![(game(1), 4, 3)], "ply 3 <= 4 < ply 5");
    assert_eq!(
        search(Some(3)),
        vec![(game(1), 4, 3)],
        "a limit of plies: node 4 is ply 3"
    );
    assert!(search(Some(2)).is_empty());

    // The same board as a position: game 1's after ply 3.
    let m = archive.games().moves(game(1)).unwrap().unwrap();
    let mut g = m.start();
    for i in 0..3 {
        m.play(i, &mut g).unwrap();
    }
    let position = |limit: Option<u32>| {
        let q = PositionQuery {
            explore: ExploreOptions {
                move_limit: limit,
                ..ExploreOptions::default()
            },
            ..PositionQuery::new(g.position())
        };
        let a = archive.positions().search(&q).unwrap();
        a.games
            .iter()
            .map(|h| (h.game_id, h.ply))
            .collect::<Vec<_>>()
    };
    assert_eq!(position(None), vec![(game(1), 3)]);
    assert_eq!(position(Some(3)), vec![(game(1), 3)]);
    assert!(position(Some(2)).is_empty());
}

/// Variations searched on hand-made records: a variation's hit is found
/// only with `variations`, says its line, counts its own plies (the move
/// limit); a match on the part a variation shares with its parent line
/// stays the parent's.
#[test]
fn variations_are_searched_when_asked_on_hand_made_records() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let report = common::import(&archive, &[common::bytes("variations.sgf", RECORDS)]);
    assert_eq!(report.counts.imported, 3, "{:?}", report.invalid);
    let game = |i| GameId::new(i).unwrap();
    // Black at c7 (SGF cc), White at c3 (cg), exactly there.
    let pattern = Pattern::parse(GameKind::Go, 9, "X:cc O:cg", PatternMode::Fixed).unwrap();
    let search = |variations: bool, move_limit: Option<u32>| {
        let q = PatternQuery {
            symmetry: false,
            swap_colors: false,
            explore: ExploreOptions {
                variations,
                move_limit,
                history: true,
                ..ExploreOptions::default()
            },
            ..PatternQuery::new(pattern.clone(), PatternMode::Fixed)
        };
        archive.patterns().search(&q).unwrap()
    };
    let listed = |a: &keil_archive::PatternAnswer| {
        a.games
            .iter()
            .map(|h| (h.game_id, h.node, h.ply, h.hits, h.variation))
            .collect::<Vec<_>>()
    };

    let main = search(false, None);
    assert_eq!(
        listed(&main),
        vec![(game(2), 2, 2, 1, None), (game(3), 2, 2, 1, None)]
    );
    assert_eq!(main.total_hits, 2);

    // Game 1's second line (its variation 1) plays W[cg] at node
    // 4; game 3's second line has the pattern only where it shares game
    // 3's main line.
    let all = search(true, None);
    assert_eq!(
        listed(&all),
        vec![
            (game(2), 2, 2, 1, None),
            (game(1), 4, 4, 1, Some(1)),
            (game(3), 2, 2, 1, None),
        ]
    );
    assert_eq!(all.total_hits, 3);
    let years: u64 = all.history.as_ref().unwrap().iter().map(|y| y.games).sum();
    assert_eq!(years, 3, "the history counts the game found in a variation");

    // The variation's match is at its ply 4.
    assert_eq!(listed(&search(true, Some(4))), listed(&all));
    assert_eq!(
        listed(&search(true, Some(3))),
        vec![(game(2), 2, 2, 1, None), (game(3), 2, 2, 1, None)]
    );
}
