//! Read replicas: a real streaming standby of a throwaway
//! cluster (`pg_basebackup -R`). A node reading from it answers as the
//! primary does once the standby has replayed; its reads go to the
//! standby (they go on while the primary is down); a node's own writes are
//! read back from the primary while the standby lags; a standby that is
//! gone leaves the reads to the primary. Skips, with a note, where
//! PostgreSQL's server is not installed.

mod common;

use std::time::{Duration, Instant};

use keil_archive::{
    Archive, GameFilter, GameId, ImportOptions, ImportSource, Location, Page, PositionQuery,
};

fn records(games: u64, seed: u64) -> ImportSource {
    ImportSource::Bytes {
        name: format!("seed-{seed}.sgf"),
        bytes: common::go_records(games, seed).concat().into_bytes(),
    }
}

fn import(archive: &Archive, source: ImportSource) {
    let options = ImportOptions {
        batch_size: 10,
        ..ImportOptions::default()
    };
    archive.import(&[source], &options, &mut |_| {}).unwrap();
}

/// What a node answers: the stats' counts, the first page of games, and
/// the position after 10 plies of game 2 with its hits.
fn answers(archive: &Archive) -> serde_json::Value {
    let stats = archive.stats().unwrap();
    let list = archive
        .games()
        .list(&GameFilter::default(), &Page::default())
        .unwrap();
    let moves = archive
        .games()
        .moves(GameId::new(2).unwrap())
        .unwrap()
        .unwrap();
    let mut game = moves.start();
    for i in 0..10 {
        moves.play(i, &mut game).unwrap();
    }
    let mut q = PositionQuery::new(game.position());
    q.limit = 500;
    let position = archive.positions().search(&q).unwrap();
    serde_json::json!({
        "games": stats.games,
        "list": list.games.iter().map(|g| g.id).collect::<Vec<_>>(),
        "position": position,
    })
}

/// Waits until the standby's database `db` holds `games` games.
fn replayed(standby: &keil_testpg::Cluster, db: &str, games: u64) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let n: u64 = standby
            .psql(db, "SELECT n FROM counts WHERE name = 'games'")
            .parse()
            .unwrap_or(0);
        if n == games {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the standby replayed {n} of {games}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_node_reads_from_a_streaming_standby_and_falls_back_to_the_primary() {
    let Some(primary) = keil_testpg::Cluster::start() else {
        return;
    };
    let url = primary.create_database("keil");
    let dir = tempfile::tempdir().unwrap();
    let plain = Archive::open(Location::Postgres {
        url: url.clone(),
        replicas: Vec::new(),
        dir: dir.path().join("plain"),
    })
    .unwrap();
    import(&plain, records(40, 1));
    let standby = primary.standby();
    let replica = format!("postgres://postgres@127.0.0.1:{}/keil", standby.port());
    replayed(&standby, "keil", 40);

    let node = Archive::open(Location::Postgres {
        url: url.clone(),
        replicas: vec![replica.clone()],
        dir: dir.path().join("node"),
    })
    .unwrap();
    let want = answers(&plain);
    assert_eq!(answers(&node), want, "the standby answers as the primary");

    // The node's reads go to the standby: they go on with the primary down.
    primary.crash();
    assert_eq!(answers(&node), want, "read from the standby alone");
    primary.restart();

    // The node's own writes are read back while the standby lags: the
    // primary answers until the standby has replayed them.
    standby.psql("keil", "SELECT pg_wal_replay_pause()");
    import(&node, records(10, 2));
    assert_eq!(
        node.stats().unwrap().games,
        50,
        "the uploader sees its games"
    );
    standby.psql("keil", "SELECT pg_wal_replay_resume()");
    replayed(&standby, "keil", 50);
    assert_eq!(answers(&node), answers(&plain));
    // A server's catch-up round, its state read on the standby: the
    // searches that answer from it answer the same.
    node.catch_up().unwrap();
    assert_eq!(answers(&node), answers(&plain), "after a catch-up round");

    // A standby that is gone leaves the reads to the primary.
    drop(standby);
    node.catch_up().unwrap();
    assert_eq!(answers(&node), answers(&plain));
    assert_eq!(node.stats().unwrap().games, 50);
}
