//! Position search against brute force: every answer equals the one computed
//! in the test by replaying every stored game and comparing positions.

use std::collections::{BTreeMap, BTreeSet};

use keil_archive::{
    Archive, GameFilter, GameId, GameKind, ImportOptions, ImportSource, Page, PositionAnswer,
    PositionQuery,
};
use keil_gen::{Generator, GeneratorConfig};
use keil_rules::{AnyBoard, AnyPosition, Board, Color, Move, Position};

/// Every stored game replayed: its id, winner and the position after each
/// ply (0 = start) with the move played next.
struct Replayed {
    id: GameId,
    winner: Option<Color>,
    date: String,
    steps: Vec<(AnyPosition, Option<Move>)>,
}

fn archive_with(games: u64, size: u8, seed: u64) -> (tempfile::TempDir, Archive, Vec<Replayed>) {
    archive_of(GeneratorConfig {
        games,
        size,
        seed,
        ..GeneratorConfig::default()
    })
}

fn archive_of(config: GeneratorConfig) -> (tempfile::TempDir, Archive, Vec<Replayed>) {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(dir.path()).unwrap();
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

/// A generated collection of `games` games on side `size`.
fn generated(games: u64, size: u8, seed: u64) -> Vec<u8> {
    let config = GeneratorConfig {
        games,
        size,
        seed,
        ..GeneratorConfig::default()
    };
    Generator::new(config)
        .unwrap()
        .flat_map(|g| g.record.into_bytes())
        .collect()
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
            steps.push((game.position(), Some(mv)));
            moves.play(i, &mut game).unwrap();
        }
        steps.push((game.position(), None));
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
type Expected = (
    BTreeMap<BTreeSet<String>, (u64, u64, u64)>,
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
    let mut stats: BTreeMap<BTreeSet<String>, BTreeSet<(GameId, bool)>> = BTreeMap::new();
    let mut first: BTreeMap<GameId, (u32, bool)> = BTreeMap::new();
    let mut wins = BTreeMap::new();
    for g in all {
        for (ply, (p, next)) in g.steps.iter().enumerate() {
            for (sw, target) in [(false, q), (true, &swapped_q)] {
                if sw && !swap {
                    continue;
                }
                let to_query = (0..board.symmetry_count())
                    .find(|&s| (symmetry || s == 0) && p.transform(s) == *target);
                let Some(s) = to_query else { continue };
                first.entry(g.id).or_insert((ply as u32, sw));
                let shown = next.map(|m| image(board, m, s));
                stats.entry(class(q, shown)).or_default().insert((g.id, sw));
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

fn check(archive: &Archive, all: &[Replayed], q: &AnyPosition, symmetry: bool) -> PositionAnswer {
    check_any(archive, all, q, symmetry, false)
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
        .map(|c| (names[&c.mv].clone(), (c.games, c.black_wins, c.white_wins)))
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
        let (p, next) = &g.steps[hit.ply as usize];
        let target = if hit.swapped { q.swap_colors() } else { *q };
        assert_eq!(
            p.transform(hit.symmetry),
            target,
            "symmetry of game {}",
            g.id
        );
        let written = AnyPosition::parse_notation(q.kind(), &hit.position).unwrap();
        assert_eq!(written.position, *p, "position of game {}", g.id);
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
fn position_search_equals_brute_force() {
    let (_dir, archive, all) = archive_with(160, 4, 11);
    let board = Board::new(4).unwrap();
    // The empty board (every game), early shared positions (exact keys),
    // and deep positions (Zobrist keys, confirmed by replay), as given and
    // as a symmetric image.
    let mut queries = vec![AnyPosition::Keil(Position::empty(board))];
    for g in all.iter().step_by(9) {
        for ply in [1, 2, 3, 7, 12, g.steps.len() - 1] {
            if let Some((p, _)) = g.steps.get(ply) {
                queries.push(*p);
                queries.push(p.transform((ply % 12) as u8));
            }
        }
    }
    let mut matched = 0;
    for q in &queries {
        for symmetry in [false, true] {
            let got = check(&archive, &all, q, symmetry);
            matched += got.total_games;
        }
    }
    assert!(matched > 0);
    // A board full of black stones (no liberty) is never reached.
    let full: Position = "bbbb/bbbbb/bbbbbb/bbbbbbb/bbbbbb/bbbbb/bbbb"
        .parse()
        .unwrap();
    let mut q = PositionQuery::new(full);
    q.symmetry = true;
    assert_eq!(archive.positions().search(&q).unwrap().total_games, 0);
}

#[test]
fn position_search_pages_without_repeats_and_survives_reindex() {
    let (_dir, archive, all) = archive_with(90, 3, 5);
    // Loading the index ahead of the first search changes no answer.
    archive.positions().load().unwrap();
    let board = Board::new(3).unwrap();
    let empty = Position::empty(board);
    let mut q = PositionQuery::new(empty);
    q.limit = 7;
    let mut seen = Vec::new();
    loop {
        let page = archive.positions().search(&q).unwrap();
        assert_eq!(page.total_games, all.len() as u64);
        seen.extend(page.games.iter().map(|h| h.game_id));
        match page.next_cursor {
            Some(c) => q.cursor = Some(c),
            None => break,
        }
    }
    let distinct: BTreeSet<GameId> = seen.iter().copied().collect();
    assert_eq!(seen.len(), distinct.len(), "a game repeated across pages");
    assert_eq!(distinct.len(), all.len(), "a game skipped");

    // The index is derived: rebuilt from the games, it answers the same.
    let before = check(&archive, &all, &all[3].steps[5].0, true);
    archive.reindex().unwrap();
    let after = check(&archive, &all, &all[3].steps[5].0, true);
    assert_eq!(before, after);
}

#[test]
fn player_to_move_and_filters_narrow_the_answer() {
    let (_dir, archive, all) = archive_with(60, 3, 8);
    let empty = Position::empty(Board::new(3).unwrap());
    let mut q = PositionQuery::new(empty);
    q.to_move = Some(Color::White);
    // Nobody has White to move on the empty board at the start, but games
    // that captured everything may come back to it.
    let got = archive.positions().search(&q).unwrap();
    assert!(got.total_games < all.len() as u64);
    q.to_move = Some(Color::Black);
    assert_eq!(
        archive.positions().search(&q).unwrap().total_games,
        all.len() as u64
    );
    let name = archive
        .games()
        .summaries(&[GameId::new(1).unwrap()])
        .unwrap()[0]
        .black
        .clone()
        .unwrap();
    q.player = Some(name.clone());
    let got = archive.positions().search(&q).unwrap();
    let want = archive
        .games()
        .summaries(&all.iter().map(|g| g.id).collect::<Vec<_>>())
        .unwrap()
        .into_iter()
        .filter(|g| g.black.as_deref() == Some(&name) || g.white.as_deref() == Some(&name))
        .count() as u64;
    assert_eq!(got.total_games, want);
}

#[test]
fn popular_positions_answer_from_the_cache_until_the_index_changes() {
    // Enough games that the empty board and the first moves have long
    // match lists, which the archive keeps between searches.
    let (_dir, archive, all) = archive_with(700, 3, 21);
    let board = Board::new(3).unwrap();
    let empty = Position::empty(board);
    let first_moves: Vec<AnyPosition> = all.iter().take(40).map(|g| g.steps[1].0).collect();
    for _ in 0..2 {
        for symmetry in [false, true] {
            check(&archive, &all, &AnyPosition::Keil(empty), symmetry);
            for p in &first_moves {
                check(&archive, &all, p, symmetry);
            }
        }
    }
    // Pages of a cached list neither repeat nor skip.
    let mut q = PositionQuery::new(empty);
    q.limit = 64;
    let mut seen = BTreeSet::new();
    loop {
        let page = archive.positions().search(&q).unwrap();
        for h in &page.games {
            assert!(seen.insert(h.game_id), "game {} repeated", h.game_id);
        }
        match page.next_cursor {
            Some(c) => q.cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(seen.len(), all.len());

    // New games change the index: the next answers include them.
    let bytes = generated(300, 3, 22);
    let source = ImportSource::Bytes {
        name: "more.keil".into(),
        bytes,
    };
    let report = archive
        .import(&[source], &ImportOptions::default(), &mut |_| {})
        .unwrap();
    assert!(report.counts.imported > 0);
    let all = replayed(&archive);
    assert!(all.len() > 700);
    for symmetry in [false, true] {
        let got = check(&archive, &all, &AnyPosition::Keil(empty), symmetry);
        assert_eq!(got.total_games, all.len() as u64);
        for p in &first_moves {
            check(&archive, &all, p, symmetry);
        }
    }
}

#[test]
fn an_archive_of_schema_one_upgrades_in_place() {
    let (dir, archive, all) = archive_with(40, 3, 9);
    let empty = Position::empty(Board::new(3).unwrap());
    let deep = all[5].steps[all[5].steps.len() / 2].0;
    let before = [
        check(&archive, &all, &AnyPosition::Keil(empty), true),
        check(&archive, &all, &deep, false),
    ];
    drop(archive);
    // What schema 1 wrote: games without a kind, problems without a
    // place (schema 3 added them), games without a handicap (schema 4),
    // segments without the nonce column (schema 2).
    let conn = rusqlite::Connection::open(dir.path().join("archive.sqlite")).unwrap();
    conn.execute_batch(
        "DROP INDEX games_kind_date; DROP INDEX games_kind_size_date; \
         ALTER TABLE games DROP COLUMN kind; ALTER TABLE games DROP COLUMN handicap; \
         ALTER TABLE import_problems DROP COLUMN line; \
         ALTER TABLE import_problems DROP COLUMN col; \
         DROP INDEX position_segments_nonce; ALTER TABLE position_segments DROP COLUMN nonce; \
         PRAGMA user_version = 1;",
    )
    .unwrap();
    drop(conn);
    let archive = Archive::open(dir.path()).unwrap();
    let conn = rusqlite::Connection::open(dir.path().join("archive.sqlite")).unwrap();
    let missing: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM position_segments WHERE nonce IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(missing, 0, "opening fills the nonces in");
    // Every game stored before kinds existed is a Keil game.
    let keil = GameFilter {
        kind: Some(GameKind::Keil),
        ..GameFilter::default()
    };
    assert_eq!(archive.games().count(&keil).unwrap(), all.len() as u64);
    let go = GameFilter {
        kind: Some(GameKind::Go),
        ..GameFilter::default()
    };
    assert_eq!(archive.games().count(&go).unwrap(), 0);
    let listed = archive.games().list(&keil, &Page::default()).unwrap();
    assert!(listed.games.iter().all(|g| g.kind == GameKind::Keil));
    assert_eq!(keil_archive::schema_version(), 4);
    let after = [
        check(&archive, &all, &AnyPosition::Keil(empty), true),
        check(&archive, &all, &deep, false),
    ];
    assert_eq!(before, after);
    // Old segments (nonce from their header) and new ones together.
    let bytes = generated(30, 3, 10);
    let source = ImportSource::Bytes {
        name: "more.keil".into(),
        bytes,
    };
    archive
        .import(&[source], &ImportOptions::default(), &mut |_| {})
        .unwrap();
    let all = replayed(&archive);
    let got = check(&archive, &all, &AnyPosition::Keil(empty), true);
    assert_eq!(got.total_games, all.len() as u64);
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
            if let Some((p, _)) = g.steps.get(ply) {
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
