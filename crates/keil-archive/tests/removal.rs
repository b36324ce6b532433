//! Removal of games: a removed game leaves every view and every derived
//! index (player lists, text, position and pattern search, counts), also
//! in a second handle whose indexes were loaded before the removal (another
//! process on the same archive); the removal is logged; its record is
//! refused by later imports; its id is never given again.

mod common;

use keil_archive::{
    Archive, GameFilter, GameId, ImportOptions, ImportSource, Page, Pattern, PatternMode,
    PatternQuery, PositionQuery, REMOVED,
};
use keil_gen::{Generator, GeneratorConfig};
use keil_rules::{Color, GameKind, Move};

fn records() -> Vec<String> {
    Generator::new(GeneratorConfig {
        game: GameKind::Go,
        games: 40,
        size: 9,
        seed: 5,
        ..GeneratorConfig::default()
    })
    .unwrap()
    .map(|g| g.record)
    .collect()
}

fn import(archive: &Archive, name: &str, text: &str) -> keil_archive::ImportReport {
    let source = ImportSource::Bytes {
        name: name.into(),
        bytes: text.as_bytes().to_vec(),
    };
    let options = ImportOptions {
        batch_size: 7,
        ..ImportOptions::default()
    };
    archive.import(&[source], &options, &mut |_| {}).unwrap()
}

/// What every view says of one game: found by its player, by text, by a
/// position it reached and by a pattern of its first moves.
struct Views {
    by_player: bool,
    by_text: bool,
    by_position: (bool, u64),
    by_pattern: (bool, u64),
}

fn views(archive: &Archive, id: GameId, player: &str, probe: &Probe) -> Views {
    let filter = GameFilter {
        player: Some(player.into()),
        ..GameFilter::default()
    };
    let page = Page {
        limit: 200,
        ..Page::default()
    };
    let by_player = archive
        .games()
        .list(&filter, &page)
        .unwrap()
        .games
        .iter()
        .any(|g| g.id == id);
    let by_text = archive
        .search_text(&format!("player:\"{player}\""), 200)
        .unwrap()
        .iter()
        .any(|h| h.game.id == id);
    let q = PositionQuery {
        limit: 200,
        ..PositionQuery::new(probe.position)
    };
    let a = archive.positions().search(&q).unwrap();
    let by_position = (a.games.iter().any(|h| h.game_id == id), a.total_games);
    let mut q = PatternQuery::new(probe.pattern.clone(), PatternMode::Anywhere);
    q.limit = 200;
    let a = archive.patterns().search(&q).unwrap();
    let by_pattern = (a.games.iter().any(|h| h.game_id == id), a.total_games);
    Views {
        by_player,
        by_text,
        by_position,
        by_pattern,
    }
}

struct Probe {
    position: keil_rules::AnyPosition,
    pattern: Pattern,
}

/// The position after the victim's sixth ply, and its first three moves
/// as a pattern placed anywhere.
fn probe(archive: &Archive, id: GameId) -> Probe {
    let moves = archive.games().moves(id).unwrap().unwrap();
    let mut game = moves.start();
    let mut cells = Vec::new();
    for i in 0..6 {
        let color = moves.color(i, &game);
        if let (Move::Place(p), true) = (moves.moves[i], cells.len() < 3) {
            let cell = if color == Color::Black {
                keil_archive::Cell::Black
            } else {
                keil_archive::Cell::White
            };
            cells.push((p, cell));
        }
        moves.play(i, &mut game).unwrap();
    }
    Probe {
        position: game.position(),
        pattern: Pattern::new(GameKind::Go, 9, cells).unwrap(),
    }
}

#[test]
fn a_removed_game_leaves_every_view_and_index_and_stays_out() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let records = records();
    let report = import(&archive, "gen.sgf", &records.concat());
    assert_eq!(report.counts.imported, 40);

    // The victim: a game of the middle of the list (not the last id).
    let id = GameId::new(17).unwrap();
    let victim = archive.games().summaries(&[id]).unwrap().remove(0);
    let player = victim.black.clone().unwrap();
    let probe = probe(&archive, id);

    // A second handle on the archive, its indexes warm before the removal
    // (as a server beside `keil remove`).
    let other = Archive::open(common::at(dir.path())).unwrap();
    other.patterns().load().unwrap();
    other.positions().load().unwrap();

    let before = views(&archive, id, &player, &probe);
    assert!(before.by_player && before.by_text);
    assert!(before.by_position.0 && before.by_pattern.0);
    let players_before = archive.players().search(&player, 5).unwrap()[0].games;
    let games_before = archive.stats().unwrap().games;

    let removal = archive
        .remove(id, "ops", "takedown request")
        .unwrap()
        .expect("the game is stored");
    assert_eq!((removal.game_id, removal.removed_by.as_str()), (id, "ops"));
    assert!(
        removal.what.starts_with(&format!("{player} vs ")),
        "{}",
        removal.what
    );
    // Removing it again finds nothing.
    assert!(archive.remove(id, "ops", "").unwrap().is_none());

    for (which, a) in [("same handle", &archive), ("other handle", &other)] {
        let after = views(a, id, &player, &probe);
        assert!(!after.by_player, "{which}: player list");
        assert!(!after.by_text, "{which}: text");
        assert_eq!(
            after.by_position,
            (false, before.by_position.1 - 1),
            "{which}: position"
        );
        assert_eq!(
            after.by_pattern,
            (false, before.by_pattern.1 - 1),
            "{which}: pattern"
        );
        assert!(a.games().get(id).unwrap().is_none(), "{which}: game");
        assert_eq!(a.stats().unwrap().games, games_before - 1, "{which}");
        let games = a
            .players()
            .search(&player, 5)
            .unwrap()
            .first()
            .map_or(0, |h| h.games);
        assert_eq!(games, players_before - 1, "{which}: player's games");
    }

    // The log says who, when and why.
    let log = other.removals(10).unwrap();
    assert_eq!(log, vec![removal.clone()]);
    assert_eq!(log[0].reason, "takedown request");
    assert!(log[0].removed_at.ends_with('Z'));

    // Its record comes back refused; the other games are duplicates.
    let again = import(&archive, "again.sgf", &records.concat());
    assert_eq!(again.counts.imported, 0);
    assert_eq!(again.counts.duplicates, 39);
    assert_eq!(again.reasons.get(REMOVED), Some(&1), "{:?}", again.reasons);
    assert!(again.invalid[0].message.contains("removed"));

    // A new game gets an id above the removed one's, even when the
    // removed game had the greatest id.
    let last = GameId::new(40).unwrap();
    archive.remove(last, "ops", "").unwrap().unwrap();
    let fresh = Generator::new(GeneratorConfig {
        game: GameKind::Go,
        games: 1,
        size: 9,
        seed: 999,
        ..GeneratorConfig::default()
    })
    .unwrap()
    .next()
    .unwrap()
    .record;
    let report = import(&archive, "fresh.sgf", &fresh);
    assert_eq!(report.counts.imported, 1);
    let newest = archive
        .games()
        .list(&GameFilter::default(), &Page::default())
        .unwrap()
        .games
        .iter()
        .map(|g| g.id.get())
        .max()
        .unwrap();
    assert_eq!(newest, 41);
    // The second handle catches up on both removals and the new game.
    assert_eq!(other.stats().unwrap().games, 39);
    assert!(
        other
            .games()
            .get(GameId::new(41).unwrap())
            .unwrap()
            .is_some()
    );
    let reindexed = archive.reindex().unwrap();
    assert_eq!(reindexed.games, 39);
    let after = views(&archive, id, &player, &probe);
    assert_eq!(after.by_position.1, before.by_position.1 - 1);
}

/// An archive written before removals (schema 10, today's main) is
/// upgraded in place when opened: the same answers, then removals work.
#[test]
fn an_archive_of_schema_ten_is_upgraded_in_place_with_the_same_answers() {
    if !common::embedded_only("an_archive_of_schema_ten_is_upgraded_in_place_with_the_same_answers")
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(&archive, "gen.sgf", &records().concat());
    let id = GameId::new(9).unwrap();
    let player = archive.games().summaries(&[id]).unwrap()[0]
        .black
        .clone()
        .unwrap();
    let probe = probe(&archive, id);
    let answers = |a: &Archive| {
        let position = a
            .positions()
            .search(&PositionQuery {
                limit: 200,
                ..PositionQuery::new(probe.position)
            })
            .unwrap();
        let mut q = PatternQuery::new(probe.pattern.clone(), PatternMode::Anywhere);
        q.limit = 200;
        let pattern = a.patterns().search(&q).unwrap();
        let text = a.search_text(&player, 200).unwrap();
        (
            position.games.iter().map(|h| h.game_id).collect::<Vec<_>>(),
            pattern.games.iter().map(|h| h.game_id).collect::<Vec<_>>(),
            pattern.total_hits,
            text.iter().map(|h| h.game.id).collect::<Vec<_>>(),
            a.stats().unwrap().games,
        )
    };
    let before = answers(&archive);
    drop(archive);
    let conn = rusqlite::Connection::open(dir.path().join(keil_archive::SQLITE_FILE)).unwrap();
    conn.execute_batch(common::UNDO_SCHEMA_11).unwrap();
    drop(conn);
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let version: usize = rusqlite::Connection::open(dir.path().join(keil_archive::SQLITE_FILE))
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, keil_archive::schema_version());
    assert_eq!(answers(&archive), before);
    archive.remove(id, "ops", "").unwrap().unwrap();
    let after = answers(&archive);
    assert!(!after.0.contains(&id) && !after.1.contains(&id) && !after.3.contains(&id));
    assert_eq!(after.4, before.4 - 1);
}
