//! Pattern blocks: the pattern index a node start reads from the blocks
//! the import wrote answers every pattern search exactly as the index
//! rebuilt by replaying every game does; a block that does not decode
//! costs a replay of its games, never an answer; small blocks merge and
//! drop removed games; `reindex` writes them again.

mod common;

use keil_archive::{
    Archive, Cell, GameId, ImportOptions, ImportSource, Pattern, PatternMode, PatternQuery,
    PositionQuery,
};
use keil_rules::{AnyPosition, Color, GameKind, Point};

fn records(games: u64, seed: u64) -> String {
    common::go_records(games, seed).concat()
}

fn import(archive: &Archive, text: String) {
    let source = ImportSource::Bytes {
        name: "gen.sgf".into(),
        bytes: text.into_bytes(),
    };
    // Small batches: a block each, and merges of the small ones.
    let options = ImportOptions {
        batch_size: 9,
        ..ImportOptions::default()
    };
    archive.import(&[source], &options, &mut |_| {}).unwrap();
}

fn sql(dir: &std::path::Path, statement: &str) -> i64 {
    common::scalar(dir, statement)
}

fn cell(p: &AnyPosition, point: Point) -> Cell {
    if p.stones(Color::Black).contains(point) {
        Cell::Black
    } else if p.stones(Color::White).contains(point) {
        Cell::White
    } else {
        Cell::Empty
    }
}

/// The main line of stored game `id`.
fn main_line(archive: &Archive, id: u64) -> keil_archive::GameMoves {
    let id = GameId::new(id).unwrap();
    archive.games().moves(id).unwrap().unwrap()
}

/// Patterns read off some games: a 7×7 corner and (on boards from 13) a
/// 5×5 side region of the position after ply 30 and 60, and the first
/// three stones anywhere.
fn queries(archive: &Archive, ids: &[u64]) -> Vec<PatternQuery> {
    let mut out = Vec::new();
    for &id in ids {
        let moves = main_line(archive, id);
        let board = moves.board;
        let mut game = moves.start();
        let mut first = Vec::new();
        for i in 0..moves.moves.len().min(60) {
            if let (keil_rules::Move::Place(p), true) = (moves.moves[i], first.len() < 3) {
                let c = if moves.color(i, &game) == Color::Black {
                    Cell::Black
                } else {
                    Cell::White
                };
                first.push((p, c));
            }
            moves.play(i, &mut game).unwrap();
            if i + 1 == 30 || i + 1 == 60 {
                let pos = game.position();
                let at = |x: i32, y: i32| board.point_at(x, y).unwrap();
                let corner: Vec<_> = (0..7)
                    .flat_map(|y| (0..7).map(move |x| (x, y)))
                    .map(|(x, y)| (at(x, y), cell(&pos, at(x, y))))
                    .collect();
                let side: Vec<_> = (0..5)
                    .flat_map(|y| (7..12.min(board.size() as i32)).map(move |x| (x, y)))
                    .map(|(x, y)| (at(x, y), cell(&pos, at(x, y))))
                    .collect();
                for (cells, mode) in [(corner, PatternMode::Corner), (side, PatternMode::Side)] {
                    if mode == PatternMode::Side && board.size() < 13 {
                        continue;
                    }
                    let p = Pattern::new(GameKind::Go, board.size(), cells).unwrap();
                    out.push(PatternQuery::new(p, mode));
                }
            }
        }
        let p = Pattern::new(GameKind::Go, board.size(), first).unwrap();
        out.push(PatternQuery::new(p, PatternMode::Anywhere));
    }
    for q in &mut out {
        q.limit = 500;
    }
    out
}

fn answers(archive: &Archive, queries: &[PatternQuery]) -> Vec<serde_json::Value> {
    queries
        .iter()
        .map(|q| serde_json::to_value(archive.patterns().search_uncached(q).unwrap()).unwrap())
        .collect()
}

#[test]
fn blocks_answer_as_a_replay_does_and_never_in_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(&archive, records(120, 3));
    let blocks = sql(dir.path(), "SELECT COUNT(*) FROM derived_blocks");
    let covered = sql(dir.path(), "SELECT SUM(games) FROM derived_blocks");
    assert_eq!(covered, 120, "every game in one block");
    assert!(
        (2..14).contains(&blocks),
        "14 batches, the small blocks merged: {blocks}"
    );
    let queries = queries(&archive, &[3, 20, 41, 77]);
    let from_blocks = answers(&Archive::open(common::at(dir.path())).unwrap(), &queries);
    assert!(
        from_blocks
            .iter()
            .any(|a| a["total_games"].as_u64() > Some(1))
    );

    // With no block, every game replayed: the same answers.
    sql(dir.path(), "DELETE FROM derived_blocks");
    assert_eq!(
        answers(&Archive::open(common::at(dir.path())).unwrap(), &queries),
        from_blocks
    );

    // `reindex` writes them again; a damaged block is replayed.
    archive.reindex().unwrap();
    assert_eq!(
        sql(dir.path(), "SELECT SUM(games) FROM derived_blocks"),
        120
    );
    sql(
        dir.path(),
        &format!(
            "UPDATE derived_blocks SET data = {} WHERE id % 2 = 0",
            common::bytes_literal("28b52ffd00")
        ),
    );
    assert_eq!(
        answers(&Archive::open(common::at(dir.path())).unwrap(), &queries),
        from_blocks
    );

    // The blocks are read, not the games: a game whose stored moves no
    // longer replay is still in the index read from its block.
    archive.reindex().unwrap();
    sql(
        dir.path(),
        &format!(
            "UPDATE games SET moves = {}, plies = 2 WHERE id = 5",
            common::bytes_literal("00000000")
        ),
    );
    let fresh = Archive::open(common::at(dir.path())).unwrap();
    assert_eq!(answers(&fresh, &queries), from_blocks);
    sql(dir.path(), "DELETE FROM derived_blocks");
    let fresh = Archive::open(common::at(dir.path())).unwrap();
    assert!(fresh.patterns().search_uncached(&queries[0]).is_err());
}

/// Blocks holding games of two boards (19×19 and 9×9 games alternating in
/// one file, a few a batch) carry each board's region entries, numbered
/// among the block's games of that board: a node start that takes them
/// answers as one that replays every game, on both boards, and so does
/// one that takes some blocks and replays the others' games.
#[test]
fn blocks_of_two_boards_answer_as_a_replay_does() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let small: Vec<String> = keil_gen::Generator::new(keil_gen::GeneratorConfig {
        game: GameKind::Go,
        games: 60,
        size: 9,
        seed: 12,
        ..keil_gen::GeneratorConfig::default()
    })
    .unwrap()
    .map(|g| g.record)
    .collect();
    let text: String = common::go_records(60, 11)
        .into_iter()
        .zip(small)
        .flat_map(|(a, b)| [a, b])
        .collect();
    import(&archive, text);
    let games = archive.stats().unwrap().games;
    assert!(games > 100, "{games}");
    let of_size = |size: u8| -> Vec<u64> {
        (1..=games)
            .filter(|&id| main_line(&archive, id).board.size() == size)
            .step_by(9)
            .take(3)
            .collect()
    };
    let mut asked = queries(&archive, &of_size(19));
    asked.extend(queries(&archive, &of_size(9)));
    let from_blocks = answers(&Archive::open(common::at(dir.path())).unwrap(), &asked);
    for size in [9, 19] {
        assert!(
            from_blocks
                .iter()
                .zip(&asked)
                .any(|(a, q)| q.pattern.board().size() == size
                    && a["total_games"].as_u64() > Some(1)),
            "{size}"
        );
    }
    // Every other block's games replayed (its bytes damaged).
    sql(
        dir.path(),
        &format!(
            "UPDATE derived_blocks SET data = {} WHERE id % 2 = 1",
            common::bytes_literal("28b52ffd00")
        ),
    );
    assert_eq!(
        answers(&Archive::open(common::at(dir.path())).unwrap(), &asked),
        from_blocks
    );
    sql(dir.path(), "DELETE FROM derived_blocks");
    assert_eq!(
        answers(&Archive::open(common::at(dir.path())).unwrap(), &asked),
        from_blocks
    );
}

/// A node's first load that leaves the region segments unmerged
/// (`load_unmerged`, as `keil serve` does: one segment a block) answers
/// every pattern search as a merged load does: at once, with games
/// imported meanwhile (caught up beside the unmerged segments), and
/// after `settle`, which merges them and only then writes the node's
/// snapshot, which the next node reads.
#[test]
fn an_unmerged_load_answers_as_a_merged_one() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(&archive, records(120, 3));
    let queries = queries(&archive, &[3, 20, 41, 77]);
    let merged = answers(&Archive::open(common::at(dir.path())).unwrap(), &queries);
    assert!(merged.iter().any(|a| a["total_games"].as_u64() > Some(1)));

    let cache = tempfile::tempdir().unwrap();
    let snapshot = cache.path().join("patterns.snapshot");
    let node = Archive::open(common::at(dir.path())).unwrap();
    node.cache_in(cache.path()).unwrap();
    let loaded = node.patterns().load_unmerged().unwrap();
    assert!(!loaded.from_snapshot);
    assert!(
        loaded.regions_deferred,
        "searches scan until the region index is filled"
    );
    assert_eq!(loaded.games, 120);
    assert_eq!(answers(&node, &queries), merged);
    assert!(!snapshot.exists(), "written only once merged");

    // Games another importer adds are caught up unmerged too.
    import(&archive, records(40, 4));
    let all = answers(&Archive::open(common::at(dir.path())).unwrap(), &queries);
    assert_ne!(all, merged, "the new games change some answer");
    assert_eq!(answers(&node, &queries), all);

    assert!(node.patterns().settle().unwrap());
    assert!(snapshot.exists());
    assert!(!node.patterns().settle().unwrap(), "nothing left to merge");
    assert_eq!(answers(&node, &queries), all);
    drop(node);

    let next = Archive::open(common::at(dir.path())).unwrap();
    next.cache_in(cache.path()).unwrap();
    let read = next.patterns().load_unmerged().unwrap();
    assert!(read.from_snapshot && !read.regions_deferred);
    assert_eq!(read.games, 160);
    assert_eq!(answers(&next, &queries), all);
    assert!(!next.patterns().settle().unwrap(), "a snapshot is merged");
}

#[test]
fn merged_blocks_drop_removed_games_and_keep_the_answers() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(&archive, records(40, 8));
    let queries = queries(&archive, &[3, 20, 33]);
    let removed = GameId::new(20).unwrap();
    archive.remove(removed, "ops", "").unwrap().unwrap();
    // More small batches: the trailing small blocks merge, without game 20.
    import(&archive, records(60, 9));
    let games = archive.stats().unwrap().games as i64;
    assert_eq!(games, 99);
    let in_blocks = sql(dir.path(), "SELECT SUM(games) FROM derived_blocks");
    assert!(in_blocks == games || in_blocks == games + 1, "{in_blocks}");
    let from_blocks = answers(&Archive::open(common::at(dir.path())).unwrap(), &queries);
    for a in &from_blocks {
        let ids: Vec<u64> = a["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["game_id"].as_u64().unwrap())
            .collect();
        assert!(!ids.contains(&removed.get()));
    }
    sql(dir.path(), "DELETE FROM derived_blocks");
    assert_eq!(
        answers(&Archive::open(common::at(dir.path())).unwrap(), &queries),
        from_blocks
    );
}

/// A node's pattern snapshot (`Archive::cache_in`) answers as the blocks
/// do: the first load writes it, the next maps it, a later one maps it and
/// catches up on the games added and removed since; a damaged or cut
/// snapshot, or another archive's, is not read, and is written again.
#[test]
fn a_pattern_snapshot_answers_as_the_blocks_and_catches_up() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(&archive, records(80, 5));
    let cache = tempfile::tempdir().unwrap();
    let file = cache.path().join("patterns.snapshot");
    let queries = queries(&archive, &[3, 20, 41, 77]);
    // A node on the cache: whether it read the snapshot, the part of its
    // index mapped, and its answers (the node then stops: a file is only
    // damaged below while no node maps it).
    let node = |at: &std::path::Path| {
        let a = Archive::open(common::at(at)).unwrap();
        a.cache_in(cache.path()).unwrap();
        let stats = a.patterns().load().unwrap();
        assert!(stats.mapped_bytes <= stats.bytes);
        (
            stats.from_snapshot,
            stats.mapped_bytes,
            answers(&a, &queries),
        )
    };
    let expected = answers(&Archive::open(common::at(dir.path())).unwrap(), &queries);
    assert!(expected.iter().any(|a| a["total_games"].as_u64() > Some(1)));

    let (read, mapped, got) = node(dir.path());
    assert!(!read && mapped == 0, "no snapshot yet");
    assert!(file.is_file(), "the first load writes it");
    assert_eq!(got, expected);
    let (read, mapped, got) = node(dir.path());
    assert!(read && mapped > 0, "the next load maps it");
    assert_eq!(got, expected);

    // Games added and one removed since: mapped, then caught up.
    import(&archive, records(30, 6));
    archive
        .remove(GameId::new(20).unwrap(), "ops", "")
        .unwrap()
        .unwrap();
    let expected = answers(&Archive::open(common::at(dir.path())).unwrap(), &queries);
    let written = std::fs::read(&file).unwrap();
    let (read, _, got) = node(dir.path());
    assert!(read);
    assert_eq!(got, expected);
    assert_ne!(
        std::fs::read(&file).unwrap(),
        written,
        "stale: written again"
    );

    // A damaged byte in the middle: not read, the same answers.
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x5a;
    std::fs::write(&file, &bytes).unwrap();
    let (read, _, got) = node(dir.path());
    assert!(!read, "a damaged snapshot is not read");
    assert_eq!(got, expected);
    assert!(node(dir.path()).0, "and it was written again");

    // Cut short: not read either.
    let whole = std::fs::read(&file).unwrap();
    std::fs::write(&file, &whole[..whole.len() - 40]).unwrap();
    assert!(!node(dir.path()).0);

    // Another archive's snapshot is not read.
    let other = tempfile::tempdir().unwrap();
    import(
        &Archive::open(common::at(other.path())).unwrap(),
        records(110, 7),
    );
    let theirs = answers(&Archive::open(common::at(other.path())).unwrap(), &queries);
    let (read, _, got) = node(other.path());
    assert!(!read, "written for another archive");
    assert_eq!(got, theirs);
    let (read, _, got) = node(other.path());
    assert!(read);
    assert_eq!(got, theirs);
}

/// Whole-board position searches after plies 2, 4 and 30 of some games,
/// as JSON.
fn position_answers(archive: &Archive, ids: &[u64]) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for &id in ids {
        let moves = main_line(archive, id);
        let mut game = moves.start();
        for i in 0..30 {
            moves.play(i, &mut game).unwrap();
            if [2, 4, 30].contains(&(i + 1)) {
                let mut q = PositionQuery::new(game.position());
                q.symmetry = true;
                q.limit = 500;
                let a = archive.positions().search(&q).unwrap();
                out.push(serde_json::to_value(a).unwrap());
            }
        }
    }
    out
}

#[test]
fn pinning_copies_the_hottest_mapped_parts_into_the_heap_and_keeps_the_answers() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(&archive, records(90, 8));
    let ids = [2, 33, 71];
    let queries = queries(&archive, &ids);
    let expected = (
        answers(&archive, &queries),
        position_answers(&archive, &ids),
    );
    assert!(
        expected
            .1
            .iter()
            .any(|a| a["total_games"].as_u64() > Some(1))
    );

    // Without a cache directory nothing is mapped.
    archive.positions().load().unwrap();
    archive.patterns().load().unwrap();
    let plain = archive.index_memory();
    assert!(plain.positions.heap > 0 && plain.patterns.heap > 0);
    assert_eq!(plain.mapped(), 0);
    assert_eq!(archive.pin_indexes(u64::MAX).pinned, 0, "nothing to pin");

    // A node on a cache directory (the first one writes the files).
    let cache = tempfile::tempdir().unwrap();
    let node = || {
        let a = Archive::open(common::at(dir.path())).unwrap();
        a.cache_in(cache.path()).unwrap();
        a.positions().load().unwrap();
        a.patterns().load().unwrap();
        a
    };
    drop(node());
    let a = node();
    let mapped = a.pin_indexes(0);
    assert_eq!(mapped.pinned, 0);
    assert_eq!(
        a.pin_indexes(mapped.heap()).pinned,
        0,
        "a budget spent already"
    );
    assert!(mapped.positions.mapped > 0 && mapped.patterns.mapped > 0);
    assert_eq!(mapped, a.index_memory());
    assert_eq!(
        (answers(&a, &queries), position_answers(&a, &ids)),
        expected
    );

    // Everything pinned: nothing mapped, the heap larger by what was.
    let a = node();
    let all = a.pin_indexes(u64::MAX);
    assert_eq!(all.mapped(), 0);
    assert_eq!(all.pinned, mapped.mapped());
    assert_eq!(all.heap(), mapped.heap() + mapped.mapped());
    assert_eq!(
        (answers(&a, &queries), position_answers(&a, &ids)),
        expected
    );

    // A budget of the heap and the position segments' size: the region
    // segments come first, so some pattern bytes are pinned and some
    // segments stay mapped; never more heap than the budget.
    let a = node();
    let budget = mapped.heap() + mapped.positions.mapped;
    let part = a.pin_indexes(budget);
    assert!(part.heap() <= budget && part.pinned > 0);
    assert_eq!(part.heap(), mapped.heap() + part.pinned);
    assert!(
        part.patterns.mapped < mapped.patterns.mapped,
        "regions first"
    );
    assert!(
        part.positions.mapped > 0,
        "not every segment fits after them"
    );
    assert_eq!(part.mapped() + part.pinned, mapped.mapped());
    assert_eq!(
        (answers(&a, &queries), position_answers(&a, &ids)),
        expected
    );
    // Pinning again takes the rest, if the budget allows.
    let rest = a.pin_indexes(u64::MAX);
    assert_eq!(rest.mapped(), 0);
    assert_eq!(rest.pinned, part.mapped());
}
