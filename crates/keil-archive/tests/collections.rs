//! Collections (docs/collections.md, "Collections"): every import labels
//! its games (`--collection`, else the folder or archive named), every
//! game answer says which, `collection` filters lists and searches, and
//! the archive counts its games per collection.

mod common;

use keil_archive::{
    Archive, CollectionCount, GameFilter, ImportOptions, ImportSource, Page, PositionQuery,
};
use keil_rules::{AnyPosition, BoardSpec, GameKind};

/// A 19×19 Go game of 30 moves from `start` (a distinct `start` per game
/// keeps games apart), with the given root properties.
fn game(headers: &str, start: usize) -> String {
    common::go_game(headers, 30, start * 11)
}

/// An archive with a `kgs/` folder's two games, `pro.sgf`'s two and one
/// game imported `--collection Tygem`.
fn archive(dir: &std::path::Path) -> Archive {
    let files = dir.join("files");
    std::fs::create_dir_all(files.join("kgs")).unwrap();
    std::fs::write(
        files.join("kgs/a.sgf"),
        game("PB[alpha]PW[beta]BR[5d]WR[6d]DT[2004-03-01]RE[B+R]", 1),
    )
    .unwrap();
    std::fs::write(
        files.join("kgs/b.sgf"),
        game("PB[beta]PW[alpha]BR[6d]WR[5d]DT[2005-01-02]RE[W+R]", 2),
    )
    .unwrap();
    std::fs::write(
        files.join("pro.sgf"),
        game(
            "PB[Honinbo Shusaku]PW[Gennan Inseki]BR[7p]WR[8p]DT[1846-09-11]RE[B+2]",
            3,
        ) + &game(
            "PB[Honinbo Shusaku]PW[Ota Yuzo]BR[7p]WR[7p]DT[1849]RE[B+R]",
            4,
        ),
    )
    .unwrap();
    let archive = Archive::open(common::at(dir.join("archive"))).unwrap();
    let sources = [
        ImportSource::Path(files.join("kgs")),
        ImportSource::Path(files.join("pro.sgf")),
    ];
    let r = archive
        .import(&sources, &ImportOptions::default(), &mut |_| {})
        .unwrap();
    assert_eq!(r.counts.imported, 4, "{r:?}");
    let r = archive
        .import(
            &[common::bytes(
                "upload.sgf",
                &game("PB[alpha]PW[gamma]BR[9d]WR[9d]DT[2019]RE[B+R]", 5),
            )],
            &ImportOptions {
                collection: Some(" Tygem ".into()),
                ..ImportOptions::default()
            },
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(r.counts.imported, 1, "{r:?}");
    archive
}

fn filter(collection: &str) -> GameFilter {
    GameFilter {
        collection: Some(collection.into()),
        ..GameFilter::default()
    }
}

fn counts(list: &[CollectionCount]) -> Vec<(&str, u64)> {
    list.iter().map(|c| (c.name.as_str(), c.games)).collect()
}

#[test]
fn an_import_labels_its_games_by_the_folder_or_file_named_or_as_told() {
    let dir = tempfile::tempdir().unwrap();
    let archive = archive(dir.path());
    let all = archive
        .games()
        .list(&GameFilter::default(), &Page::default())
        .unwrap()
        .games;
    let mut labels: Vec<(String, String)> = all
        .iter()
        .map(|g| (g.date.clone().unwrap(), g.collection.clone().unwrap()))
        .collect();
    labels.sort();
    assert_eq!(
        labels,
        [
            ("1846-09-11", "pro"),
            ("1849", "pro"),
            ("2004-03-01", "kgs"),
            ("2005-01-02", "kgs"),
            ("2019", "Tygem"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    // Most games first, then by name; years and ranks per collection.
    let c = archive.games().collections().unwrap();
    let summary: Vec<_> = c
        .iter()
        .map(|c| {
            (
                c.name.as_str(),
                c.games,
                c.first_year,
                c.last_year,
                c.lowest_rank.map(|r| r.to_string()),
                c.highest_rank.map(|r| r.to_string()),
            )
        })
        .collect();
    let r = |s: &str| Some(s.to_string());
    assert_eq!(
        summary,
        [
            ("kgs", 2, Some(2004), Some(2005), r("5d"), r("6d")),
            ("pro", 2, Some(1846), Some(1849), r("7p"), r("8p")),
            ("Tygem", 1, Some(2019), Some(2019), r("9d"), r("9d")),
        ]
    );
}

#[test]
fn the_collection_filters_lists_counts_searches_and_profiles() {
    let dir = tempfile::tempdir().unwrap();
    let archive = archive(dir.path());
    let games = archive.games();
    for (name, n) in [
        ("pro", 2),
        ("kgs", 2),
        ("Tygem", 1),
        ("tygem", 0),
        ("none", 0),
    ] {
        let f = filter(name);
        let list = games.list(&f, &Page::default()).unwrap().games;
        assert_eq!(list.len(), n, "{name}");
        assert!(list.iter().all(|g| f.matches(g)), "{name}");
        assert_eq!(games.count(&f).unwrap(), n as u64, "{name}");
    }
    // With a rank band: the 9d of Tygem is not a KGS 9d.
    let band = GameFilter {
        min_rank: Some("6d".parse().unwrap()),
        ..filter("Tygem")
    };
    assert_eq!(games.count(&band).unwrap(), 1);
    let band = GameFilter {
        min_rank: Some("6d".parse().unwrap()),
        ..filter("kgs")
    };
    assert_eq!(games.count(&band).unwrap(), 0);

    // The explorer's empty board: the games by collection, and filtered.
    let empty = AnyPosition::empty(BoardSpec::new(GameKind::Go, 19).unwrap()).unwrap();
    let mut q = PositionQuery::new(empty);
    q.explore.history = true;
    q.explore.recent_games = 5;
    let a = archive.positions().search(&q).unwrap();
    assert_eq!(a.total_games, 5);
    assert_eq!(
        counts(a.collections.as_deref().unwrap()),
        [("kgs", 2), ("pro", 2), ("Tygem", 1)]
    );
    // Hits show the date as the record gives it, and the collection.
    let shown: Vec<(String, Option<String>)> = a
        .recent_games
        .iter()
        .map(|h| (h.game.date.clone(), h.game.collection.clone()))
        .collect();
    assert!(
        shown.contains(&("1849".to_string(), Some("pro".to_string()))),
        "{shown:?}"
    );
    q.filter = filter("pro");
    let a = archive.positions().search(&q).unwrap();
    assert_eq!(a.total_games, 2);
    assert_eq!(counts(a.collections.as_deref().unwrap()), [("pro", 2)]);
    q.filter = filter("elsewhere");
    assert_eq!(archive.positions().search(&q).unwrap().total_games, 0);

    // A player's games by collection.
    let id = archive.players().id_of("alpha").unwrap().unwrap();
    let profile = archive.players().profile(id).unwrap().unwrap();
    assert_eq!(counts(&profile.collections), [("kgs", 2), ("Tygem", 1)]);
}

#[test]
fn games_stored_before_collections_are_labelled_by_their_imports_sources() {
    let dir = tempfile::tempdir().unwrap();
    let before = {
        let archive = archive(dir.path());
        archive.games().collections().unwrap()
    };
    // As an archive of schema 15 was: its first import's games in no
    // collection, the upgrade not done.
    let at = dir.path().join("archive");
    common::query(
        &at,
        "UPDATE games SET collection_id = NULL WHERE import_id = (SELECT MIN(id) FROM imports)",
    );
    common::query(
        &at,
        "UPDATE upgrades SET done_at = NULL WHERE name = 'collections 16'",
    );
    assert_eq!(
        common::scalar(
            &at,
            "SELECT COUNT(*) FROM games WHERE collection_id IS NULL"
        ),
        4
    );
    let archive = Archive::open(common::at(&at)).unwrap();
    assert_eq!(
        common::scalar(
            &at,
            "SELECT COUNT(*) FROM games WHERE collection_id IS NULL"
        ),
        0
    );
    assert_eq!(archive.games().collections().unwrap(), before);
}
