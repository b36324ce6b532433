//! Position search against brute force: every answer equals the one computed
//! in the test by replaying every stored game and comparing positions.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use keil_archive::{
    Archive, GameFilter, GameId, GameKind, ImportOptions, ImportSource, Page, PositionAnswer,
    PositionQuery,
};
use keil_gen::{Generator, GeneratorConfig};
use keil_rules::{AnyPosition, Board, Color, Move, Position, Symmetry};

/// Every stored game replayed: its id, winner and the position after each
/// ply (0 = start) with the player to move and the move played next.
struct Replayed {
    id: GameId,
    winner: Option<Color>,
    date: String,
    steps: Vec<(Position, Color, Option<Move>)>,
}

fn archive_with(games: u64, size: u8, seed: u64) -> (tempfile::TempDir, Archive, Vec<Replayed>) {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let config = GeneratorConfig {
        games,
        size,
        seed,
        ..GeneratorConfig::default()
    };
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
        let to_move = |g: &keil_rules::AnyGame| g.to_move().color().unwrap();
        for (i, &mv) in moves.moves.iter().enumerate() {
            steps.push((keil(&game.position()), to_move(&game), Some(mv)));
            moves.play(i, &mut game).unwrap();
        }
        steps.push((keil(&game.position()), to_move(&game), None));
        all.push(Replayed {
            id,
            winner: summary.winner,
            date: summary.date.unwrap_or_default(),
            steps,
        });
    }
    all
}

/// The class of a move under the symmetries that fix `q`, as names.
fn class(board: &Board, q: &Position, mv: Option<Move>) -> BTreeSet<String> {
    match mv {
        None => BTreeSet::from(["end".to_string()]),
        Some(m) => Symmetry::all()
            .filter(|&t| q.transform(t) == *q)
            .map(|t| m.transform(board, t).display(board))
            .collect(),
    }
}

/// A Keil position (every game here is one).
fn keil(p: &AnyPosition) -> Position {
    match p {
        AnyPosition::Keil(p) => *p,
        _ => panic!("a Keil position"),
    }
}

/// The board of a position: its stones, the button flag cleared.
fn board_of(p: &Position) -> Position {
    let mut b = *p;
    b.set_button_taken(false);
    b
}

/// A matched position in full, as answers write it.
fn written(board: &Position, to_move: Color, button: bool) -> String {
    let mut p = *board;
    p.set_button_taken(button);
    let mut s = p.to_notation(Some(to_move));
    if !button {
        s.push_str(" -");
    }
    s
}

/// ((player to move, button, continuation class) → (games, black wins,
/// white wins)), total games, and per game its first matching ply.
type Expected = (
    BTreeMap<(Color, bool, BTreeSet<String>), (u64, u64, u64)>,
    u64,
    BTreeMap<GameId, u32>,
);

fn brute_force(all: &[Replayed], q: &PositionQuery) -> Expected {
    let board = keil(&q.position).board();
    let want = board_of(&keil(&q.position));
    let mut stats: BTreeMap<(Color, bool, BTreeSet<String>), BTreeSet<GameId>> = BTreeMap::new();
    let mut first = BTreeMap::new();
    let mut wins = BTreeMap::new();
    for g in all {
        for (ply, (p, to_move, next)) in g.steps.iter().enumerate() {
            let button = p.button_taken();
            if q.to_move.is_some_and(|c| c != *to_move) || q.button.is_some_and(|b| b != button) {
                continue;
            }
            let to_query = Symmetry::all().find(|&s| {
                (q.symmetry || s == Symmetry::IDENTITY) && board_of(p).transform(s) == want
            });
            let Some(s) = to_query else { continue };
            first.entry(g.id).or_insert(ply as u32);
            let shown = next.map(|m| m.transform(board, s));
            stats
                .entry((*to_move, button, class(board, &want, shown)))
                .or_default()
                .insert(g.id);
            wins.insert(g.id, g.winner);
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

/// Searches `q` as the position is (its button flag, anyone to move) and
/// checks the answer against brute force.
fn check(archive: &Archive, all: &[Replayed], q: &Position, symmetry: bool) -> PositionAnswer {
    let mut query = PositionQuery::new(*q);
    query.symmetry = symmetry;
    check_query(archive, all, &query)
}

/// Checks the answer to `query` (all its games on one page) against brute
/// force: totals, continuations per matched position, first plies, the
/// matched positions written in full, symmetries and next moves, order.
fn check_query(archive: &Archive, all: &[Replayed], query: &PositionQuery) -> PositionAnswer {
    let q = board_of(&keil(&query.position));
    let board = q.board();
    let (want_stats, want_total, want_first) = brute_force(all, query);
    let mut query = query.clone();
    query.limit = 1000;
    let what = query.notation();
    let got = archive.positions().search(&query).unwrap();
    assert_eq!(got.total_games, want_total, "total for {what} ({query:?})");
    let got_stats: BTreeMap<_, _> = got
        .continuations
        .iter()
        .map(|c| {
            let mv = match c.mv.as_str() {
                "end" => None,
                "pass" => Some(Move::Pass),
                "button" => Some(Move::TakeButton),
                p => Some(Move::Place(board.parse_point(p).unwrap())),
            };
            (
                // A Keil answer always says the button's state.
                (c.to_move, c.button_taken.unwrap(), class(board, &q, mv)),
                (c.games, c.black_wins, c.white_wins),
            )
        })
        .collect();
    assert_eq!(got_stats, want_stats, "continuations for {what}");
    let got_first: BTreeMap<GameId, u32> = got.games.iter().map(|h| (h.game_id, h.ply)).collect();
    assert_eq!(got_first, want_first, "games for {what}");
    // Each hit writes the position it matched in full, seen in the query's
    // orientation, and its next move is the game's (up to the position's
    // own symmetries).
    for hit in &got.games {
        let g = all.iter().find(|g| g.id == hit.game_id).unwrap();
        let (p, to_move, next) = &g.steps[hit.ply as usize];
        let s = Symmetry::from_index(hit.symmetry).unwrap();
        assert_eq!(board_of(p).transform(s), q, "symmetry of game {}", g.id);
        assert_eq!(
            (hit.to_move, hit.button_taken),
            (*to_move, Some(p.button_taken()))
        );
        assert_eq!(hit.position, written(&q, *to_move, p.button_taken()));
        let shown = next.map(|m| m.transform(board, s));
        let listed = hit.next.as_deref().unwrap_or("end");
        assert!(
            class(board, &q, shown).contains(listed),
            "next move of game {}",
            g.id
        );
        // Without symmetry the game's board is the query's itself: its
        // move as played, not an image under the position's own symmetries.
        if !query.symmetry {
            assert_eq!(hit.symmetry, 0, "game {}", g.id);
            let played = match next {
                None => "end".to_string(),
                Some(Move::Place(p)) => board.name(*p).to_string(),
                Some(Move::Pass) => "pass".to_string(),
                Some(Move::TakeButton) => "button".to_string(),
                Some(m) => format!("{m:?}"),
            };
            assert_eq!(listed, played, "next move of game {} as played", g.id);
        }
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
    let mut queries = vec![Position::empty(board)];
    for g in all.iter().step_by(9) {
        for ply in [1, 2, 3, 7, 12, g.steps.len() - 1] {
            if let Some((p, _, _)) = g.steps.get(ply) {
                queries.push(*p);
                queries.push(p.transform(Symmetry::from_index((ply % 12) as u8).unwrap()));
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
fn absent_suffixes_match_either_value_equal_brute_force() {
    let (_dir, archive, all) = archive_with(150, 3, 17);
    // Boards around the button (the same stones before and after it is
    // taken), early and deep boards, and the empty board.
    let mut boards = vec![Position::empty(Board::new(3).unwrap())];
    for g in all.iter().step_by(6) {
        let around_button = g
            .steps
            .iter()
            .position(|(_, _, next)| *next == Some(Move::TakeButton));
        for ply in [
            Some(2),
            Some(5),
            around_button,
            around_button.map(|b| b + 1),
        ] {
            if let Some((p, _, _)) = ply.and_then(|ply| g.steps.get(ply)) {
                boards.push(*p);
            }
        }
    }
    let mut widened = 0;
    for p in &boards {
        for symmetry in [false, true] {
            let mut totals = BTreeMap::new();
            for to_move in [None, Some(Color::Black), Some(Color::White)] {
                for button in [None, Some(false), Some(true)] {
                    let mut q = PositionQuery::new(*p);
                    (q.to_move, q.button, q.symmetry) = (to_move, button, symmetry);
                    let got = check_query(&archive, &all, &q);
                    totals.insert((to_move, button), got.total_games);
                    // The notation says the same query.
                    let parsed = PositionQuery::parse(&q.notation()).unwrap();
                    assert_eq!((parsed.to_move, parsed.button), (to_move, button));
                    assert_eq!(board_of(&keil(&parsed.position)), board_of(p));
                }
            }
            // Either value finds at least what each restriction finds.
            let any = totals[&(None, None)];
            assert!(totals.values().all(|&n| n <= any));
            if any > totals[&(None, Some(p.button_taken()))] {
                widened += 1;
            }
        }
    }
    // Boards whose stones stood both before and after the button was taken:
    // the query without a button suffix finds more than the exact one.
    assert!(widened > 0, "no board was found in both button states");
}

#[test]
fn position_queries_read_and_write_the_notation() {
    let empty = "7/8/9/10/11/12/13/12/11/10/9/8/7";
    for (text, to_move, button) in [
        (empty.to_string(), None, None),
        (format!("{empty} +"), None, Some(true)),
        (format!("{empty} -"), None, Some(false)),
        (format!("{empty} b"), Some(Color::Black), None),
        (format!("{empty} + w"), Some(Color::White), Some(true)),
        (
            format!("  {empty}  W  -  "),
            Some(Color::White),
            Some(false),
        ),
    ] {
        let q = PositionQuery::parse(&text).unwrap();
        assert_eq!((q.to_move, q.button), (to_move, button), "{text:?}");
        assert_eq!(keil(&q.position), Position::empty(Board::new(7).unwrap()));
        let again = PositionQuery::parse(&q.notation()).unwrap();
        assert_eq!((again.to_move, again.button), (to_move, button));
    }
    for bad in [
        format!("{empty} + -"),
        format!("{empty} + +"),
        format!("{empty} b w"),
        format!("{empty} x"),
        String::new(),
        "7/8".to_string(),
    ] {
        assert!(PositionQuery::parse(&bad).is_err(), "{bad:?}");
    }
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
    q.filter.player = Some(name.clone());
    let got = archive.positions().search(&q).unwrap();
    let want = archive
        .games()
        .summaries(&all.iter().map(|g| g.id).collect::<Vec<_>>())
        .unwrap()
        .into_iter()
        .filter(|g| g.black.as_deref() == Some(&name) || g.white.as_deref() == Some(&name))
        .count() as u64;
    assert_eq!(got.total_games, want);
    // A page shows each game's players as the store names them (the names
    // the node keeps, read once per player).
    assert!(!got.games.is_empty());
    let ids: Vec<GameId> = got.games.iter().map(|h| h.game_id).collect();
    let stored = archive.games().summaries(&ids).unwrap();
    for (hit, game) in got.games.iter().zip(&stored) {
        assert_eq!(hit.game_id, game.id);
        assert!(hit.game.black.is_some() && hit.game.white.is_some());
        assert_eq!(
            (&hit.game.black, &hit.game.white),
            (&game.black, &game.white)
        );
    }
}

#[test]
fn popular_positions_answer_from_the_cache_until_the_index_changes() {
    // Enough games that the empty board and the first moves have long
    // match lists, which the archive keeps between searches.
    let (_dir, archive, all) = archive_with(700, 3, 21);
    let board = Board::new(3).unwrap();
    let empty = Position::empty(board);
    let first_moves: Vec<Position> = all.iter().take(40).map(|g| g.steps[1].0).collect();
    for _ in 0..2 {
        for symmetry in [false, true] {
            check(&archive, &all, &empty, symmetry);
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
        let got = check(&archive, &all, &empty, symmetry);
        assert_eq!(got.total_games, all.len() as u64);
        for p in &first_moves {
            check(&archive, &all, p, symmetry);
        }
    }
}

#[test]
fn an_archive_of_schema_one_upgrades_in_place() {
    if !common::embedded_only("an_archive_of_schema_one_upgrades_in_place") {
        return;
    }
    let (dir, archive, all) = archive_with(40, 3, 9);
    let empty = Position::empty(Board::new(3).unwrap());
    let deep = all[5].steps[all[5].steps.len() / 2].0;
    let before = [
        check(&archive, &all, &empty, true),
        check(&archive, &all, &deep, false),
    ];
    drop(archive);
    // What schema 1 wrote: games without a kind, problems without a
    // place, segments without a key version (schema 3 added them; the
    // segments' keys were of version 1, which these blobs stand for: they
    // must not be read, only rebuilt), segments without the nonce column
    // (schema 2).
    let conn = rusqlite::Connection::open(dir.path().join("archive.sqlite")).unwrap();
    conn.execute_batch(common::UNDO_SCHEMA_9).unwrap();
    conn.execute_batch(
        "DROP TRIGGER counts_games_insert; DROP TRIGGER counts_games_delete; \
         DROP TRIGGER counts_games_update; DROP TRIGGER counts_players_insert; \
         DROP TRIGGER counts_players_delete; DROP TRIGGER counts_imports_insert; \
         DROP TRIGGER counts_imports_delete; DROP TRIGGER counts_import_problems_insert; \
         DROP TRIGGER counts_import_problems_delete; DROP TABLE counts; \
         ALTER TABLE imports DROP COLUMN uploader; \
         ALTER TABLE games DROP COLUMN black_rank_ord; \
         ALTER TABLE games DROP COLUMN white_rank_ord; \
         DROP INDEX games_kind_date; DROP INDEX games_kind_size_date; \
         ALTER TABLE games DROP COLUMN kind; ALTER TABLE games DROP COLUMN handicap; \
         ALTER TABLE games DROP COLUMN move_nodes; \
         ALTER TABLE import_problems DROP COLUMN line; \
         ALTER TABLE import_problems DROP COLUMN col; \
         DROP INDEX position_segments_keys; ALTER TABLE position_segments DROP COLUMN keys; \
         UPDATE position_segments SET data = x'4b505831'; \
         DROP INDEX position_segments_nonce; ALTER TABLE position_segments DROP COLUMN nonce; \
         PRAGMA user_version = 1;",
    )
    .unwrap();
    drop(conn);
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let conn = rusqlite::Connection::open(dir.path().join("archive.sqlite")).unwrap();
    let missing: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM position_segments WHERE nonce IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(missing, 0, "opening fills the nonces in");
    let old: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM position_segments WHERE keys < 2",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(old, 0, "opening rebuilds segments of older keys");
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
    assert_eq!(keil_archive::schema_version(), 16);
    // Games stored before node numbers (schema 5) read as one move per
    // node after the root: the first stone placed matches at its ply.
    let board = Board::new(3).unwrap();
    let (ply, stone, cell) = all[0]
        .steps
        .iter()
        .enumerate()
        .find_map(|(i, (pos, _, _))| {
            [(Color::Black, 'X'), (Color::White, 'O')]
                .into_iter()
                .find_map(|(c, cell)| pos.stones(c).iter().next().map(|p| (i, p, cell)))
        })
        .unwrap();
    let text = format!("{cell}:{}", board.name(stone));
    let mode = keil_archive::PatternMode::Fixed;
    let pattern = keil_archive::Pattern::parse(GameKind::Keil, 3, &text, mode).unwrap();
    let mut q = keil_archive::PatternQuery::new(pattern, mode);
    q.symmetry = false;
    q.swap_colors = false;
    q.limit = 1000;
    let hit = archive.patterns().search(&q).unwrap();
    let game = hit.games.iter().find(|h| h.game_id == all[0].id).unwrap();
    assert_eq!((game.node, game.ply), (ply as u32, ply as u32));
    let after = [
        check(&archive, &all, &empty, true),
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
    let got = check(&archive, &all, &empty, true);
    assert_eq!(got.total_games, all.len() as u64);
}

/// The segment cache's files by name.
fn cache_files(dir: &std::path::Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".seg"))
        .collect()
}

/// The position after ply `ply` of every `step`-th game that has one.
fn positions_of(all: &[Replayed], step: usize, ply: usize) -> Vec<Position> {
    all.iter()
        .step_by(step)
        .filter_map(|g| g.steps.get(ply).map(|s| s.0))
        .collect()
}

/// `a`'s answers to `queries`, each searched under the board's
/// symmetries.
fn symmetric_answers(a: &Archive, queries: &[Position]) -> Vec<PositionAnswer> {
    queries
        .iter()
        .map(|q| {
            let mut q = PositionQuery::new(*q);
            q.symmetry = true;
            a.positions().search(&q).unwrap()
        })
        .collect()
}

/// Segments mapped from a segment cache answer as segments read from the
/// store: on the run that writes the files, on the next one that maps
/// them, after a file was damaged or cut short (read again from the store
/// and written again), and after a reindex (whose new segments replace the old files).
#[test]
fn a_segment_cache_answers_as_the_store_and_follows_it() {
    let (dir, archive, all) = archive_with(120, 4, 23);
    let cache = tempfile::tempdir().unwrap();
    let queries = positions_of(&all, 11, 4);
    let answers = |a: &Archive| symmetric_answers(a, &queries);
    let expected = answers(&archive);
    assert!(expected.iter().any(|a| a.total_games > 0));
    let open = || {
        let a = Archive::open(common::at(dir.path())).unwrap();
        a.cache_in(cache.path()).unwrap();
        a.positions().load().unwrap();
        a
    };
    // A file a node left before the disk had it is never mapped: it is
    // deleted when a cache is opened there.
    let left = cache.path().join("1-0000000000000001.seg.part");
    std::fs::write(&left, b"cut short").unwrap();
    let left_by_pid = cache.path().join("2-0000000000000001.seg.4242.part");
    std::fs::write(&left_by_pid, b"cut short").unwrap();
    let first = open();
    assert!(!left.exists() && !left_by_pid.exists());
    assert_eq!(answers(&first), expected);
    // Its files are synced and named on a thread of their own; a node
    // that stops waits for them.
    drop(first);
    let files = cache_files(cache.path());
    assert!(!files.is_empty(), "the first load writes the segments");
    assert_eq!(answers(&open()), expected);
    assert_eq!(cache_files(cache.path()), files, "the next load maps them");

    // A damaged file (its nonce changed) is not used.
    let name = files.iter().next().unwrap();
    let path = cache.path().join(name);
    let mut bytes = std::fs::read(&path).unwrap();
    for b in &mut bytes[..8] {
        *b ^= 0xff;
    }
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(answers(&open()), expected);
    assert_ne!(std::fs::read(&path).unwrap(), bytes, "written again");

    // A file cut short behind an intact header is not used either.
    let whole = std::fs::read(&path).unwrap();
    std::fs::write(&path, &whole[..whole.len() - 1]).unwrap();
    assert_eq!(answers(&open()), expected);
    assert_eq!(std::fs::read(&path).unwrap(), whole, "written again");

    // A reindex writes new segments: their files replace the old ones.
    archive.reindex().unwrap();
    let after = open();
    assert_eq!(answers(&after), expected);
    let now = cache_files(cache.path());
    assert!(now.is_disjoint(&files), "{now:?} {files:?}");
}

/// A node start that reads the segments' block directories alone
/// (`load_directories`, what a node on PostgreSQL does) answers as a node
/// that holds the segments: searches read the blocks they need from the
/// store, segments written meanwhile (an import, its merges) are read as
/// before, and `load` then reads the bytes of those left in the store. A
/// segment whose file is in the node's cache is mapped instead.
#[test]
fn a_start_that_reads_the_directories_alone_answers_as_a_full_load() {
    let (dir, archive, all) = archive_with(150, 4, 29);
    let queries = positions_of(&all, 7, 3);
    let answers = |a: &Archive| symmetric_answers(a, &queries);
    let full = |expected: &[PositionAnswer]| {
        let a = Archive::open(common::at(dir.path())).unwrap();
        a.positions().load().unwrap();
        assert_eq!(answers(&a), expected);
        a.index_memory().positions
    };
    let expected = answers(&archive);
    assert!(expected.iter().filter(|a| a.total_games > 0).count() > 5);
    let held = full(&expected);

    let node = Archive::open(common::at(dir.path())).unwrap();
    node.positions().load_directories().unwrap();
    let directories = node.index_memory().positions;
    assert!(
        directories.heap + directories.mapped < held.heap / 2,
        "{directories:?} against {held:?}"
    );
    assert_eq!(answers(&node), expected);
    assert_eq!(
        node.index_memory().positions,
        directories,
        "nothing read whole"
    );

    // An import meanwhile: its segments (and those its merges write) are
    // read whole, the others' blocks still from the store.
    let more: Vec<u8> = Generator::new(GeneratorConfig {
        games: 80,
        size: 4,
        seed: 31,
        ..GeneratorConfig::default()
    })
    .unwrap()
    .flat_map(|g| g.record.into_bytes())
    .collect();
    let source = ImportSource::Bytes {
        name: "more.keil".into(),
        bytes: more,
    };
    let options = ImportOptions {
        batch_size: 37,
        ..ImportOptions::default()
    };
    archive.import(&[source], &options, &mut |_| {}).unwrap();
    let expected = answers(&archive);
    assert_eq!(answers(&node), expected);
    let held = full(&expected);

    // `load` reads the bytes left in the store: the node then holds what
    // a full load holds.
    node.positions().load().unwrap();
    assert_eq!(node.index_memory().positions, held);
    assert_eq!(answers(&node), expected);

    // With the segments' files in a node's cache, they are mapped.
    let cache = tempfile::tempdir().unwrap();
    let writer = Archive::open(common::at(dir.path())).unwrap();
    writer.cache_in(cache.path()).unwrap();
    writer.positions().load().unwrap();
    drop(writer);
    let restarted = Archive::open(common::at(dir.path())).unwrap();
    restarted.cache_in(cache.path()).unwrap();
    restarted.positions().load_directories().unwrap();
    let mapped = restarted.index_memory().positions;
    assert!(mapped.mapped > 0, "{mapped:?}");
    assert_eq!(mapped.mapped + mapped.heap, held.heap + held.mapped);
    assert_eq!(answers(&restarted), expected);
}
