//! Many processes on one PostgreSQL archive: two nodes, each
//! with its own node-local directory, serve one database. What one stores
//! the other finds at its next search, by player, text, position and
//! pattern; what one removes is gone from the other as fast. Importers
//! running at once on overlapping inputs store each game once; a server
//! that crashes in the middle of an import leaves whole batches only, and
//! the import run again completes the archive. Skips, with a note, where
//! PostgreSQL's server is not installed.

mod common;

use keil_archive::{
    Archive, Cell, Fate, GameFilter, GameId, ImportOptions, ImportSource, Location, Page, Pattern,
    PatternMode, PatternQuery, PositionQuery,
};
use keil_rules::{Color, GameKind};

fn source(name: &str, records: &[String]) -> ImportSource {
    ImportSource::Bytes {
        name: name.into(),
        bytes: records.concat().into_bytes(),
    }
}

fn options(batch_size: usize) -> ImportOptions {
    ImportOptions {
        batch_size,
        ..ImportOptions::default()
    }
}

/// A node: the archive on database `url` with its own directory.
fn node(url: &str, dir: &std::path::Path) -> Archive {
    Archive::open(Location::Postgres {
        url: url.to_string(),
        replicas: Vec::new(),
        dir: dir.to_path_buf(),
    })
    .unwrap()
}

/// The record with Black renamed `name`.
fn renamed(record: &str, name: &str) -> String {
    let start = record.find("PB[").unwrap() + 3;
    let end = start + record[start..].find(']').unwrap();
    format!("{}{name}{}", &record[..start], &record[end..])
}

/// The whole-board position after `plies` of game `id`, and the 7×7
/// corner pattern of it.
fn queries(archive: &Archive, id: GameId, plies: usize) -> (PositionQuery, PatternQuery) {
    let moves = archive.games().moves(id).unwrap().unwrap();
    let mut game = moves.start();
    for i in 0..plies {
        moves.play(i, &mut game).unwrap();
    }
    let position = game.position();
    let board = moves.board;
    let cells: Vec<_> = (0..7)
        .flat_map(|y| (0..7).map(move |x| (x, y)))
        .map(|(x, y)| {
            let p = board.point_at(x, y).unwrap();
            let cell = if position.stones(Color::Black).contains(p) {
                Cell::Black
            } else if position.stones(Color::White).contains(p) {
                Cell::White
            } else {
                Cell::Empty
            };
            (p, cell)
        })
        .collect();
    let mut pq = PositionQuery::new(position);
    pq.limit = 500;
    let mut cq = PatternQuery::new(
        Pattern::new(GameKind::Go, 19, cells).unwrap(),
        PatternMode::Corner,
    );
    cq.limit = 500;
    (pq, cq)
}

/// Which of the ways to find game `id` find it on `archive`: by player,
/// by text, by position, by pattern.
fn finds(
    archive: &Archive,
    id: GameId,
    name: &str,
    q: &(PositionQuery, PatternQuery),
) -> [bool; 4] {
    let filter = GameFilter {
        player: Some(name.to_string()),
        ..GameFilter::default()
    };
    let listed = archive.games().list(&filter, &Page::default()).unwrap();
    let text = archive.search_text(name, 50).unwrap();
    let position = archive.positions().search(&q.0).unwrap();
    let pattern = archive.patterns().search(&q.1).unwrap();
    [
        listed.games.iter().any(|g| g.id == id),
        text.iter().any(|h| h.game.id == id),
        position.games.iter().any(|h| h.game_id == id),
        pattern.games.iter().any(|h| h.game_id == id),
    ]
}

/// Two nodes (A, then B) on a new database `name`, after A stored `games`
/// generated games of `seed`; their directories are kept with them (bind
/// `dirs` for as long as the nodes are used).
struct Pair {
    url: String,
    a: Archive,
    b: Archive,
    dirs: [tempfile::TempDir; 2],
}

fn pair(pg: &keil_testpg::Cluster, name: &str, games: u64, seed: u64) -> Pair {
    let url = pg.ensure_database(name);
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let a = node(&url, dirs[0].path());
    a.import(
        &[source("first.sgf", &common::go_records(games, seed))],
        &options(8),
        &mut |_| {},
    )
    .unwrap();
    let b = node(&url, dirs[1].path());
    Pair { url, a, b, dirs }
}

/// Uploads one generated game (of `seed`) with Black renamed `name` on
/// node `n`; its id.
fn upload(n: &Archive, name: &str, seed: u64) -> GameId {
    let record = renamed(&common::go_records(1, seed)[0], name);
    let report = n
        .import(
            &[source("upload.sgf", &[record])],
            &ImportOptions {
                outcomes: true,
                ..options(8)
            },
            &mut |_| {},
        )
        .unwrap();
    let Fate::Stored { id, .. } = report.outcomes[0].fate else {
        panic!("{:?}", report.outcomes[0])
    };
    id
}

#[test]
fn two_nodes_on_one_database_find_each_others_uploads_and_removals() {
    let Some(pg) = keil_testpg::Cluster::shared() else {
        return;
    };
    let Pair { url, a, b, dirs } = pair(pg, "two_nodes", 30, 1);
    let dir_b = &dirs[1];
    // B loads its indexes (from the blocks A wrote) and answers as A does.
    let before = b.stats().unwrap();
    assert_eq!(before.games, 30);
    assert_eq!(before.text_documents, 30);

    // An upload on A.
    let name = "Uniqueson Kiwifruit";
    let id = upload(&a, name, 99);
    let q = queries(&a, id, 40);
    assert_eq!(finds(&a, id, name, &q), [true; 4], "A finds its own upload");
    assert_eq!(finds(&b, id, name, &q), [true; 4], "B finds A's upload");
    assert_eq!(b.stats().unwrap().games, 31);

    // A removal on A is gone from B.
    assert!(a.remove(id, "operator", "test").unwrap().is_some());
    assert_eq!(finds(&b, id, name, &q), [false; 4], "B forgets A's removal");
    assert_eq!(finds(&a, id, name, &q), [false; 4]);
    assert_eq!(b.removals(10).unwrap().len(), 1);

    // A node started again (its directory kept) answers the same.
    let answer = |n: &Archive| {
        let (pq, cq) = queries(n, GameId::new(3).unwrap(), 30);
        (
            serde_json::to_value(n.positions().search(&pq).unwrap()).unwrap(),
            serde_json::to_value(n.patterns().search(&cq).unwrap()).unwrap(),
        )
    };
    let from_b = answer(&b);
    drop(b);
    let b = node(&url, dir_b.path());
    assert_eq!(answer(&b), from_b);
    assert_eq!(answer(&a), from_b);
}

/// A node's catch-up round (`Archive::catch_up`, a server's every 250
/// ms) brings its indexes to what another node stored; while it is fresh
/// the node's searches answer from it (the other node's later upload is
/// not found until the next round), and a write of the node's own
/// forgets it (its own upload is found at once).
#[test]
fn a_catch_up_round_answers_until_the_next_and_own_writes_are_found_at_once() {
    let Some(pg) = keil_testpg::Cluster::shared() else {
        return;
    };
    let Pair {
        a, b, dirs: _dirs, ..
    } = pair(pg, "catch_up_rounds", 20, 3);
    // The pattern index is followed once loaded (a server loads it at its
    // start).
    b.patterns().load().unwrap();
    b.catch_up().unwrap();
    let round = std::time::Instant::now();
    let id = upload(&a, "Roundtrip Quince", 77);
    let q = queries(&a, id, 40);
    let found = finds(&b, id, "Roundtrip Quince", &q);
    // The list reads the store; text, positions and patterns answer from
    // the round (when the upload took less than the round's second).
    if round.elapsed() < std::time::Duration::from_millis(800) {
        assert_eq!(
            found,
            [true, false, false, false],
            "B answers from its round"
        );
    }
    b.catch_up().unwrap();
    assert_eq!(
        finds(&b, id, "Roundtrip Quince", &q),
        [true; 4],
        "B's next round"
    );

    // B's own upload, right after a round: found at once.
    let own = upload(&b, "Ownwrite Medlar", 78);
    let q = queries(&b, own, 40);
    assert_eq!(
        finds(&b, own, "Ownwrite Medlar", &q),
        [true; 4],
        "B finds its own"
    );
    // A removal on B too.
    b.catch_up().unwrap();
    assert!(b.remove(own, "operator", "test").unwrap().is_some());
    assert_eq!(
        finds(&b, own, "Ownwrite Medlar", &q),
        [false; 4],
        "B forgets its own"
    );
}

#[test]
fn importers_at_once_on_overlapping_inputs_store_each_game_once() {
    let Some(pg) = keil_testpg::Cluster::shared() else {
        return;
    };
    let url = pg.ensure_database("overlapping");
    let all = common::go_records(120, 5);
    let (first, second) = (all[..80].to_vec(), all[40..].to_vec());
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    std::thread::scope(|s| {
        for (dir, part) in dirs.iter().zip([first, second]) {
            let url = url.clone();
            s.spawn(move || {
                let archive = node(&url, dir.path());
                archive
                    .import(&[source("part.sgf", &part)], &options(7), &mut |_| {})
                    .unwrap();
            });
        }
    });
    let archive = node(&url, dirs[0].path());
    let stats = archive.stats().unwrap();
    assert_eq!(stats.games, 120, "each game once");
    assert_eq!(
        common_count(&url, "SELECT COUNT(DISTINCT hash) FROM games"),
        120
    );
    // Ids are dense: batches committed one after another.
    assert_eq!(common_count(&url, "SELECT MAX(id) FROM games"), 120);
    assert_eq!(stats.text_documents, 120);
    // The derived blocks the two wrote between each other's batches hold
    // every game once: the node's searches count what an embedded archive
    // of the same games counts.
    let embedded_dir = tempfile::tempdir().unwrap();
    let embedded = Archive::open(embedded_dir.path()).unwrap();
    embedded
        .import(&[source("all.sgf", &all)], &options(7), &mut |_| {})
        .unwrap();
    for id in [1, 50, 100] {
        let (pq, cq) = queries(&archive, GameId::new(id).unwrap(), 20);
        let totals = |a: &Archive| {
            (
                a.positions().search(&pq).unwrap().total_games,
                a.patterns().search(&cq).unwrap().total_games,
            )
        };
        let got = totals(&archive);
        assert!(got.0 >= 1 && got.1 >= 1, "game {id} finds itself");
        assert_eq!(got, totals(&embedded), "game {id}'s queries");
    }
}

/// One integer from `sql` on the database at `url` (through psql).
fn common_count(url: &str, sql: &str) -> i64 {
    let db = url.rsplit('/').next().unwrap();
    keil_testpg::Cluster::shared()
        .unwrap()
        .psql(db, sql)
        .parse()
        .unwrap()
}

#[test]
fn a_server_crash_in_an_import_leaves_whole_batches_and_the_rerun_completes() {
    let Some(pg) = keil_testpg::Cluster::start() else {
        return;
    };
    let url = pg.create_database("crash");
    let dir = tempfile::tempdir().unwrap();
    let all = common::go_records(1000, 11);
    let batch = 10;
    let archive = node(&url, dir.path());
    let crashed = std::thread::scope(|s| {
        let importer =
            s.spawn(|| archive.import(&[source("big.sgf", &all)], &options(batch), &mut |_| {}));
        // Crash the server once some batches are in.
        let db = url.rsplit('/').next().unwrap();
        loop {
            let n: i64 = pg
                .psql(db, "SELECT COUNT(*) FROM games")
                .parse()
                .unwrap_or(0);
            if n >= 50 || importer.is_finished() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        pg.crash();
        importer.join().unwrap()
    });
    let err = crashed.expect_err("the import lost its server");
    pg.restart();
    let db = url.rsplit('/').next().unwrap();
    let count = |sql: &str| -> i64 { pg.psql(db, sql).parse().unwrap() };
    let stored = count("SELECT COUNT(*) FROM games");
    assert!(stored > 0, "{err}");
    assert_eq!(
        stored % batch as i64,
        0,
        "whole batches only: {stored} ({err})"
    );
    assert_eq!(
        count("SELECT COUNT(DISTINCT game_id) FROM game_players"),
        stored
    );
    assert_eq!(count("SELECT n FROM counts WHERE name = 'games'"), stored);
    // The same import again stores the rest.
    drop(archive);
    let archive = node(&url, dir.path());
    let report = archive
        .import(&[source("big.sgf", &all)], &options(batch), &mut |_| {})
        .unwrap();
    assert_eq!(report.counts.imported as i64 + stored, 1000);
    assert_eq!(report.counts.duplicates as i64, stored);
    let stats = archive.stats().unwrap();
    assert_eq!(stats.games, 1000);
    assert_eq!(stats.text_documents, 1000);
}

/// `games` generated records from `seed`, the `i`th with the event
/// `{prefix}{i}` (its game info: `EV`).
fn with_events(games: u64, seed: u64, prefix: &str) -> Vec<String> {
    common::go_records(games, seed)
        .iter()
        .enumerate()
        .map(|(i, r)| r.replacen("(;", &format!("(;EV[{prefix}{i}]"), 1))
        .collect()
}

/// The games a text search for `word` finds on `archive`, by id.
fn text_ids(archive: &Archive, word: &str) -> Vec<GameId> {
    let mut ids: Vec<_> = archive
        .search_text(word, 50)
        .unwrap()
        .iter()
        .map(|h| h.game.id)
        .collect();
    ids.sort();
    ids
}

#[test]
fn a_new_node_restores_its_text_index_from_the_store_then_catches_up() {
    let Some(pg) = keil_testpg::Cluster::shared() else {
        return;
    };
    let db = "text_snapshots";
    let url = pg.ensure_database(db);
    let records = with_events(34, 5, "Snapcup");
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = node(&url, dir_a.path());
    a.import(
        &[source("first.sgf", &records[..32])],
        &options(8),
        &mut |_| {},
    )
    .unwrap();
    // The import published its text index: every game it stored.
    assert_eq!(pg.psql(db, "SELECT games FROM text_snapshots"), "32");
    let first = text_ids(&a, "Snapcup0")[0];
    let second = text_ids(&a, "Snapcup1")[0];
    let third = text_ids(&a, "Snapcup2")[0];

    // After the snapshot: game 0's record replaced by game 1's in the
    // store (a node that built its index from the records would find it
    // as Snapcup1), two more games (under 1/16 more: no new snapshot) and
    // a removal.
    pg.psql(
        db,
        &format!(
            "UPDATE games SET record = (SELECT record FROM games WHERE id = {}) WHERE id = {}",
            second.get(),
            first.get()
        ),
    );
    a.import(
        &[source("second.sgf", &records[32..])],
        &options(8),
        &mut |_| {},
    )
    .unwrap();
    assert!(a.remove(third, "operator", "test").unwrap().is_some());
    assert_eq!(pg.psql(db, "SELECT games FROM text_snapshots"), "32");

    let b = node(&url, dir_b.path());
    // Restored: game 0 is found as the snapshot indexed it...
    assert_eq!(text_ids(&b, "Snapcup0"), vec![first]);
    assert_eq!(text_ids(&b, "Snapcup1"), vec![second]);
    // ... and caught up: the games stored and removed after it.
    assert_eq!(text_ids(&b, "Snapcup33").len(), 1);
    assert_eq!(text_ids(&b, "Snapcup2"), Vec::<GameId>::new());
    assert_eq!(b.stats().unwrap().text_documents, 33);

    // A node whose directory lacks more than 1/16 is restored again; one
    // that is up to date keeps its own index.
    drop(b);
    let c = node(&url, dir_b.path());
    assert_eq!(text_ids(&c, "Snapcup0"), vec![first]);
    assert_eq!(c.stats().unwrap().text_documents, 33);

    // A reindex stores the rebuilt index (from the records: game 0 is now
    // found as Snapcup1), and a new node restores that one.
    let before = pg.psql(db, "SELECT id FROM text_snapshots");
    a.reindex().unwrap();
    assert_ne!(pg.psql(db, "SELECT id FROM text_snapshots"), before);
    assert_eq!(pg.psql(db, "SELECT games FROM text_snapshots"), "34");
    let dir_d = tempfile::tempdir().unwrap();
    let d = node(&url, dir_d.path());
    assert_eq!(text_ids(&d, "Snapcup0"), Vec::<GameId>::new());
    assert_eq!(text_ids(&d, "Snapcup1"), vec![first, second]);
}

#[test]
fn a_snapshot_that_does_not_restore_is_passed_over() {
    let Some(pg) = keil_testpg::Cluster::shared() else {
        return;
    };
    let db = "broken_snapshot";
    let url = pg.ensure_database(db);
    let records = with_events(20, 6, "Brokencup");
    let dir_a = tempfile::tempdir().unwrap();
    node(&url, dir_a.path())
        .import(&[source("all.sgf", &records)], &options(8), &mut |_| {})
        .unwrap();
    // One file of the snapshot truncated.
    pg.psql(
        db,
        "UPDATE text_snapshot_parts SET data = substring(data from 1 for 10) \
         WHERE path = (SELECT max(path) FROM text_snapshot_parts WHERE path <> 'meta.json')",
    );
    let dir_b = tempfile::tempdir().unwrap();
    let b = node(&url, dir_b.path());
    assert_eq!(b.stats().unwrap().text_documents, 20);
    assert_eq!(text_ids(&b, "Brokencup7").len(), 1);
}
