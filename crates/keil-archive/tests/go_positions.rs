//! Go position search against brute force: exact, symmetric and
//! colour-swapped queries over generated Go games, every answer equal to
//! the one computed by replaying every stored game.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use keil_archive::{
    Archive, GameFilter, GameId, GameKind, ImportOptions, ImportSource, Page, PositionAnswer,
    PositionQuery,
};
use keil_gen::{Generator, GeneratorConfig};
use keil_rules::{AnyBoard, AnyPosition, Color, Move};

/// Every stored game replayed: its id, winner and the position after each
/// ply (0 = start) with the player to move and the move played next.
struct Replayed {
    id: GameId,
    winner: Option<Color>,
    date: String,
    steps: Vec<(AnyPosition, Color, Option<Move>)>,
}

fn archive_of(config: GeneratorConfig) -> (tempfile::TempDir, Archive, Vec<Replayed>) {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let games = config.games;
    let bytes: Vec<u8> = Generator::new(config)
        .unwrap()
        .flat_map(|g| g.record.into_bytes())
        .collect();
    // Small batches: several segments, and merges between them.
    let options = ImportOptions {
        batch_size: 37,
        ..ImportOptions::default()
    };
    let source = ImportSource::Bytes {
        name: "gen.keil".into(),
        bytes,
    };
    let report = archive.import(&[source], &options, &mut |_| {}).unwrap();
    assert_eq!(report.counts.imported, games);
    let all = replayed(&archive);
    (dir, archive, all)
}

/// Every game of the archive, replayed.
fn replayed(archive: &Archive) -> Vec<Replayed> {
    let games = archive.stats().unwrap().games;
    let mut all = Vec::new();
    for id in (1..=games).map(|n| GameId::new(n).unwrap()) {
        let moves = archive.games().moves(id).unwrap().unwrap();
        let summary = archive.games().summaries(&[id]).unwrap().remove(0);
        let mut game = moves.start();
        let mut steps = Vec::new();
        for (i, &mv) in moves.moves.iter().enumerate() {
            steps.push((game.position(), moves.color(i, &game), Some(mv)));
            moves.play(i, &mut game).unwrap();
        }
        // After the last move: the other player (who would move next).
        let last = steps.last().map_or(Color::White, |s| s.1);
        steps.push((game.position(), last.opposite(), None));
        all.push(Replayed {
            id,
            winner: summary.winner,
            date: summary.date.unwrap_or_default(),
            steps,
        });
    }
    all
}

fn show(board: AnyBoard, mv: Move) -> String {
    match mv {
        Move::Place(p) => board.display_name(p),
        Move::Pass => "pass".to_string(),
        Move::TakeButton => "button".to_string(),
        Move::Swap => "swap".to_string(),
    }
}

fn image(board: AnyBoard, mv: Move, s: u8) -> Move {
    match mv {
        Move::Place(p) => Move::Place(board.transform(p, s)),
        m => m,
    }
}

/// The class of a move under the symmetries that fix `q`, as names.
fn class(q: &AnyPosition, mv: Option<Move>) -> BTreeSet<String> {
    let board = q.board();
    match mv {
        None => BTreeSet::from(["end".to_string()]),
        Some(m) => (0..board.symmetry_count())
            .filter(|&t| q.transform(t) == *q)
            .map(|t| show(board, image(board, m, t)))
            .collect(),
    }
}

/// Every move's name on the board of `q` → its class.
fn classes(q: &AnyPosition) -> BTreeMap<String, BTreeSet<String>> {
    let board = q.board();
    let moves = board
        .points()
        .map(Move::Place)
        .chain([Move::Pass, Move::TakeButton]);
    let mut out: BTreeMap<String, BTreeSet<String>> =
        moves.map(|m| (show(board, m), class(q, Some(m)))).collect();
    out.insert("end".into(), class(q, None));
    out
}

/// (continuation classes → (games, black wins, white wins)), total games,
/// and per game its first matching ply and whether it matched swapped.
/// A continuation row: the player to move (query's colours), the move's
/// class.
type Row = (Color, BTreeSet<String>);

type Expected = (
    BTreeMap<Row, (u64, u64, u64)>,
    u64,
    BTreeMap<GameId, (u32, bool)>,
);

/// The answer computed by replaying every game: a game counts once in the
/// total (at its first matching ply, unswapped before swapped), and once per
/// way it matched (as given, colour-swapped) in the continuations, with
/// wins in the query's colours.
fn brute_force(all: &[Replayed], q: &AnyPosition, symmetry: bool, swap: bool) -> Expected {
    let board = q.board();
    let swapped_q = q.swap_colors();
    let mut stats: BTreeMap<Row, BTreeSet<(GameId, bool)>> = BTreeMap::new();
    let mut first: BTreeMap<GameId, (u32, bool)> = BTreeMap::new();
    let mut wins = BTreeMap::new();
    for g in all {
        for (ply, (p, to_move, next)) in g.steps.iter().enumerate() {
            for (sw, target) in [(false, q), (true, &swapped_q)] {
                if sw && !swap {
                    continue;
                }
                let to_query = (0..board.symmetry_count())
                    .find(|&s| (symmetry || s == 0) && p.transform(s) == *target);
                let Some(s) = to_query else { continue };
                first.entry(g.id).or_insert((ply as u32, sw));
                let shown = next.map(|m| image(board, m, s));
                // The player to move in the query's colours.
                let seen = if sw { to_move.opposite() } else { *to_move };
                stats
                    .entry((seen, class(q, shown)))
                    .or_default()
                    .insert((g.id, sw));
                let w = if sw {
                    g.winner.map(Color::opposite)
                } else {
                    g.winner
                };
                wins.insert((g.id, sw), w);
            }
        }
    }
    let stats = stats
        .into_iter()
        .map(|(c, ids)| {
            let b = ids
                .iter()
                .filter(|id| wins[id] == Some(Color::Black))
                .count() as u64;
            let w = ids
                .iter()
                .filter(|id| wins[id] == Some(Color::White))
                .count() as u64;
            (c, (ids.len() as u64, b, w))
        })
        .collect();
    (stats, first.len() as u64, first)
}

fn check_any(
    archive: &Archive,
    all: &[Replayed],
    q: &AnyPosition,
    symmetry: bool,
    swap: bool,
) -> PositionAnswer {
    let board = q.board();
    let (want_stats, want_total, want_first) = brute_force(all, q, symmetry, swap);
    let mut query = PositionQuery::new(*q);
    query.symmetry = symmetry;
    query.swap_colors = swap;
    query.limit = 1000;
    let got = archive.positions().search(&query).unwrap();
    let what = format!("{q} (symmetry {symmetry}, swap {swap})");
    assert_eq!(got.total_games, want_total, "total for {what}");
    let names = classes(q);
    let got_stats: BTreeMap<_, _> = got
        .continuations
        .iter()
        .map(|c| {
            (
                (c.to_move, names[&c.mv].clone()),
                (c.games, c.black_wins, c.white_wins),
            )
        })
        .collect();
    assert_eq!(got_stats, want_stats, "continuations for {what}");
    let got_first: BTreeMap<GameId, (u32, bool)> = got
        .games
        .iter()
        .map(|h| (h.game_id, (h.ply, h.swapped)))
        .collect();
    assert_eq!(got_first, want_first, "games for {what}");
    // Each listed next move is the game's move seen in the query's
    // orientation (up to the position's own symmetries), and the position
    // is written as the game had it.
    for hit in &got.games {
        let g = all.iter().find(|g| g.id == hit.game_id).unwrap();
        let (p, to_move, next) = &g.steps[hit.ply as usize];
        let target = if hit.swapped { q.swap_colors() } else { *q };
        assert_eq!(
            p.transform(hit.symmetry),
            target,
            "symmetry of game {}",
            g.id
        );
        let written = AnyPosition::parse_notation(q.kind(), &hit.position).unwrap();
        assert_eq!(written.position, target, "position of game {}", g.id);
        assert_eq!(written.to_move, Some(*to_move), "to move in game {}", g.id);
        assert_eq!(hit.to_move, *to_move);
        let shown = next.map(|m| image(board, m, hit.symmetry));
        let listed = hit.next.as_deref().unwrap_or("end");
        assert!(
            class(q, shown).contains(listed),
            "next move of game {}",
            g.id
        );
    }
    // Newest first.
    let dates: Vec<&str> = got
        .games
        .iter()
        .map(|h| {
            all.iter()
                .find(|g| g.id == h.game_id)
                .unwrap()
                .date
                .as_str()
        })
        .collect();
    assert!(dates.windows(2).all(|w| w[0] >= w[1]), "{dates:?}");
    got
}

#[test]
fn go_position_search_equals_brute_force() {
    let (_dir, archive, all) = archive_of(GeneratorConfig {
        game: keil_rules::GameKind::Go,
        games: 60,
        size: 5,
        seed: 23,
        handicaps: true,
        ..GeneratorConfig::default()
    });
    let summaries = archive
        .games()
        .list(
            &GameFilter {
                kind: Some(GameKind::Go),
                size: Some(5),
                ..GameFilter::default()
            },
            &Page {
                limit: 100,
                ..Page::default()
            },
        )
        .unwrap();
    assert_eq!(summaries.games.len(), 60);
    let board = all[0].steps[0].0.board();
    let mut queries = vec![AnyPosition::empty(all[0].steps[0].0.spec()).unwrap()];
    for g in all.iter().step_by(7) {
        for ply in [1, 2, 4, 6, 9, g.steps.len() - 1] {
            if let Some((p, _, _)) = g.steps.get(ply) {
                queries.push(*p);
                let s = (ply % usize::from(board.symmetry_count())) as u8;
                queries.push(p.transform(s));
                queries.push(p.transform(s).swap_colors());
            }
        }
    }
    let mut swapped = 0;
    for q in &queries {
        for symmetry in [false, true] {
            for swap in [false, true] {
                let got = check_any(&archive, &all, q, symmetry, swap);
                swapped += got.games.iter().filter(|h| h.swapped).count();
            }
        }
    }
    assert!(swapped > 0, "some colour-swapped matches");
    // A Keil query never matches Go games, and the reverse.
    let keil = AnyPosition::empty(keil_rules::BoardSpec {
        kind: keil_rules::GameKind::Keil,
        size: 3,
    })
    .unwrap();
    let q = PositionQuery::new(keil);
    assert_eq!(archive.positions().search(&q).unwrap().total_games, 0);
}
