//! One identity per person (spellings folded, the operator's aliases, games
//! against oneself) and one game per game across sources (signature
//! duplicates): docs/collections.md, "Players" and "Duplicates".

mod common;

use common::{UNDO_SCHEMA_9, bytes, go_game as game};
use keil_archive::{
    Archive, Duplicates, Fate, GameFilter, ImportOptions, ImportReport, ImportSource, MatchKind,
    Page, PositionQuery,
};
use keil_rules::{Color, GoPosition, SquareBoard};

fn import_with(archive: &Archive, text: &str, options: ImportOptions) -> ImportReport {
    archive
        .import(
            &[bytes("people.sgf", text)],
            &ImportOptions {
                outcomes: true,
                ..options
            },
            &mut |_| {},
        )
        .unwrap()
}

fn import(archive: &Archive, text: &str) -> ImportReport {
    import_with(archive, text, ImportOptions::default())
}

fn games_of(archive: &Archive, player: &str) -> usize {
    let filter = GameFilter {
        player: Some(player.into()),
        ..GameFilter::default()
    };
    archive
        .games()
        .list(&filter, &Page::default())
        .unwrap()
        .games
        .len()
}

fn profile(archive: &Archive, name: &str) -> keil_archive::PlayerProfile {
    let id = archive.players().id_of(name).unwrap().expect(name);
    archive.players().profile(id).unwrap().unwrap()
}

/// Games under the spellings `Ke Jie`, `KeJie` and `ke-jie`, one against
/// `Iyama Yuta`, one of them `Ke Jie` against `KeJie`, and a program
/// against itself.
fn spellings_corpus() -> String {
    [
        game("PB[Ke Jie]PW[Iyama Yuta]RE[B+R]DT[2017-01-01]", 30, 0),
        game("PB[Iyama Yuta]PW[KeJie]RE[W+2.5]DT[2018-03-01]", 30, 1),
        game("PB[ke-jie]PW[Park Junghwan]RE[B+R]DT[2018-05-01]", 30, 2),
        game("PB[Ke Jie]PW[KeJie]RE[B+R]DT[2019-01-01]", 30, 3),
        game("PB[Leela Zero]PW[Leela Zero]RE[W+R]DT[2019-02-01]", 30, 4),
    ]
    .concat()
}

#[test]
fn spellings_that_differ_in_case_spacing_and_punctuation_are_one_player() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let r = import(&archive, &spellings_corpus());
    assert_eq!(r.counts.imported, 5);
    for name in ["Ke Jie", "KeJie", "ke-jie", "KE JIE", "kejie"] {
        assert_eq!(games_of(&archive, name), 4, "{name}");
    }
    // No person is "jie" or "iya": the players whose name has a word that
    // starts so.
    assert_eq!(games_of(&archive, "jie"), 4);
    assert_eq!(games_of(&archive, "IYA"), 2);
    assert_eq!(games_of(&archive, "nobody"), 0);
    // A game against oneself is listed once, and once under each colour.
    assert_eq!(games_of(&archive, "Leela Zero"), 1);
    for color in [Color::Black, Color::White] {
        let filter = GameFilter {
            player: Some("leela zero".into()),
            color: Some(color),
            ..GameFilter::default()
        };
        let list = archive.games().list(&filter, &Page::default()).unwrap();
        assert_eq!(list.games.len(), 1, "{color:?}");
    }
    // A prefix of several people: every game of each, newest first.
    let filter = GameFilter {
        player: Some("j".into()),
        ..GameFilter::default()
    };
    let list = archive.games().list(&filter, &Page::default()).unwrap();
    assert!(list.games.len() >= 2, "{list:?}");
    assert!(list.games.windows(2).all(|w| w[0].date >= w[1].date));
    let p = profile(&archive, "KeJie");
    assert_eq!(p.name, "Ke Jie", "the first spelling met is shown");
    assert_eq!(p.games, 4);
    let mut spellings: Vec<(String, u64)> = p
        .spellings
        .iter()
        .map(|s| (s.name.clone(), s.games))
        .collect();
    spellings.sort();
    assert_eq!(
        spellings,
        vec![
            ("Ke Jie".into(), 2),
            ("KeJie".into(), 2),
            ("ke-jie".into(), 1)
        ]
    );
    // Ke Jie against KeJie is a game against oneself: not a win and a loss.
    assert_eq!(p.self_play, 1);
    assert_eq!(p.as_black.wins + p.as_white.wins, 3);
    assert_eq!(p.as_black.losses + p.as_white.losses, 0);
    assert!(
        p.opponents.iter().all(|o| o.id != p.id),
        "{:?}",
        p.opponents
    );
    let years = archive.players().results_by_year(p.id).unwrap();
    assert_eq!(years.iter().map(|y| y.games).sum::<u64>(), 4);
    // One hit per person, exact for any spelling.
    for q in ["kejie", "Ke-Jie", "ke jie"] {
        let hits = archive.players().search(q, 10).unwrap();
        let ke: Vec<_> = hits.iter().filter(|h| h.id == p.id).collect();
        assert_eq!(ke.len(), 1, "{q}: {hits:?}");
        assert_eq!(ke[0].matched, MatchKind::Exact, "{q}");
        assert_eq!(ke[0].games, 4);
    }
    // A program against itself.
    let lz = profile(&archive, "Leela Zero");
    assert_eq!((lz.games, lz.self_play), (1, 1));
    assert_eq!(lz.as_white.wins + lz.as_black.losses, 0);
    assert_eq!((lz.as_black.games, lz.as_white.games), (1, 1));
    // Other scripts are not transliterated into one person.
    assert_eq!(archive.players().id_of("柯洁").unwrap(), None);
    assert_eq!(archive.stats().unwrap().players, 4);
}

#[test]
fn an_alias_merges_two_players_now_and_for_later_imports() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(
        &archive,
        &[
            game("PB[AlphaGo Master]PW[Ke Jie]RE[B+R]", 30, 0),
            game("PB[AlphaGo]PW[Lee Sedol]RE[B+R]", 30, 1),
            game("PB[Lee Sedol]PW[AlphaGo]RE[B+R]", 30, 2),
            game("PB[AlphaGo]PW[AlphaGo Master]RE[W+R]", 30, 3),
        ]
        .concat(),
    );
    // Two people; the name "AlphaGo" answers to both (a whole word of
    // "AlphaGo Master"), each game of either once, as Black or White.
    assert_eq!(games_of(&archive, "AlphaGo"), 4);
    assert_eq!(games_of(&archive, "AlphaGo Master"), 2);
    assert_eq!(profile(&archive, "AlphaGo").games, 3);
    let before = profile(&archive, "AlphaGo Master");
    let r = archive.add_alias("AlphaGo Master", "AlphaGo").unwrap();
    assert!(r.merged && !r.unchanged, "{r:?}");
    let p = profile(&archive, "AlphaGo Master");
    assert_eq!(p.name, "AlphaGo");
    assert_eq!(Some(p.id), r.person);
    assert_eq!(archive.players().profile(before.id).unwrap(), None);
    assert_eq!(p.games, 4);
    assert_eq!(p.self_play, 1);
    // Won against Ke Jie and Lee Sedol (as Black), lost to Lee Sedol; the
    // game against itself is neither.
    assert_eq!(p.as_black.wins + p.as_white.wins, 2);
    assert_eq!(p.as_black.losses + p.as_white.losses, 1);
    for name in ["AlphaGo", "alphago master", "AlphaGo Master"] {
        assert_eq!(games_of(&archive, name), 4, "{name}");
    }
    // The same alias again changes nothing; its reverse neither.
    assert!(
        archive
            .add_alias("AlphaGo Master", "AlphaGo")
            .unwrap()
            .unchanged
    );
    assert!(
        archive
            .add_alias("alphago", "ALPHAGO MASTER")
            .unwrap()
            .unchanged
    );
    assert!(archive.add_alias("AlphaGo", "alpha-go").is_err());
    // A later spelling of the alias joins the player.
    import(
        &archive,
        &game("PB[alphago-master]PW[Ke Jie]RE[B+R]", 30, 9),
    );
    assert_eq!(profile(&archive, "AlphaGo").games, 5);
    assert_eq!(profile(&archive, "AlphaGo").spellings.len(), 3);
    // The position index's player filter follows the alias too.
    let board = SquareBoard::new(19).unwrap();
    let mut q = PositionQuery::new(GoPosition::empty(board));
    q.filter.player = Some("AlphaGo Master".into());
    assert_eq!(archive.positions().search(&q).unwrap().total_games, 5);
}

#[test]
fn aliases_given_at_import_apply_to_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(&archive, &game("PB[AlphaGo]PW[Fan Hui]RE[B+R]", 30, 0));
    let aliases = keil_archive::read_aliases("Master = AlphaGo\nMagist = AlphaGo\n").unwrap();
    import_with(
        &archive,
        &[
            game("PB[Master]PW[Gu Li]RE[B+R]", 30, 1),
            game("PB[Magist]PW[Gu Li]RE[B+R]", 30, 2),
        ]
        .concat(),
        ImportOptions {
            aliases,
            ..ImportOptions::default()
        },
    );
    let p = profile(&archive, "Master");
    assert_eq!((p.name.as_str(), p.games), ("AlphaGo", 3));
    assert_eq!(profile(&archive, "Gu Li").opponents[0].name, "AlphaGo");
}

#[test]
fn an_archive_of_schema_eight_gets_its_people_when_opened() {
    if !common::embedded_only("an_archive_of_schema_eight_gets_its_people_when_opened") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(&archive, &spellings_corpus());
    let want = profile(&archive, "Ke Jie");
    let want_lz = profile(&archive, "Leela Zero");
    drop(archive);
    let conn = rusqlite::Connection::open(dir.path().join(keil_archive::SQLITE_FILE)).unwrap();
    conn.execute_batch(UNDO_SCHEMA_9).unwrap();
    // Schema 8 counted a game against oneself as a win and a loss.
    let won: i64 = conn
        .query_row("SELECT COUNT(*) FROM game_players WHERE won = 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(won, 5, "schema 8's rows: the four wins and a self-play one");
    drop(conn);
    let archive = Archive::open(common::at(dir.path())).unwrap();
    // The same profiles (a migrated person's id is its first spelling's,
    // so the ids may differ).
    let same = |mut p: keil_archive::PlayerProfile, like: &keil_archive::PlayerProfile| {
        p.id = like.id;
        for o in &mut p.opponents {
            o.id = like.id;
        }
        p
    };
    assert_eq!(
        same(profile(&archive, "KeJie"), &want),
        same(want.clone(), &want)
    );
    assert_eq!(same(profile(&archive, "Leela Zero"), &want_lz), want_lz);
    assert_eq!(archive.stats().unwrap().players, 4);
    // And the signatures of the stored games are filled in.
    let sigs = common::scalar(
        archive.dir(),
        "SELECT COUNT(*) FROM games WHERE signature IS NOT NULL",
    );
    assert_eq!(sigs, 5);
}

/// `n` moves long, with other headers: the same game from another source.
fn two_sources(moves: usize) -> (String, String) {
    (
        game(
            "PB[Lee Sedol]PW[AlphaGo]RE[W+R]DT[2016-03-09]EV[Google DeepMind Challenge Match]",
            moves,
            5,
        ),
        game(
            "PB[Lee Se-dol]PW[AlphaGo]RE[W+Resign]DT[2016-03-09,10]EV[DeepMind Challenge]C[Game 1]",
            moves,
            5,
        ),
    )
}

#[test]
fn the_same_game_with_other_headers_is_kept_once_and_linked() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let (a, b) = two_sources(186);
    let first = import(&archive, &a);
    let Fate::Stored { id, .. } = first.outcomes[0].fate else {
        panic!("{:?}", first.outcomes)
    };
    let second = import(&archive, &b);
    assert!(
        matches!(second.outcomes[0].fate, Fate::Merged { id: m, .. } if m == id),
        "{:?}",
        second.outcomes
    );
    assert_eq!(second.counts.merged, 1);
    assert_eq!(second.merged.len(), 1);
    assert_eq!(second.merged[0].id, id);
    assert_eq!(archive.stats().unwrap().games, 1);
    // The other source's record is kept, with its headers.
    let n = common::scalar(
        archive.dir(),
        &format!("SELECT COUNT(*) FROM game_sources WHERE game_id = {id}"),
    );
    let record = &common::query(
        archive.dir(),
        &format!("SELECT record FROM game_sources WHERE game_id = {id}"),
    )[0][0];
    // Bytes come back as hex (psql writes `\x` before them).
    let hex = record.trim_start_matches("\\x");
    let record: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    assert_eq!(n, 1);
    let text = String::from_utf8(zstd::decode_all(&record[..]).unwrap()).unwrap();
    assert!(
        text.contains("Lee Se-dol") && text.contains("Game 1"),
        "{text}"
    );
    // That record again is a duplicate, not a second link.
    let again = import(&archive, &b);
    assert!(matches!(again.outcomes[0].fate, Fate::Duplicate { id: d, .. } if d == id));
    // A game that differs in one of the six Dyer moves is another game.
    let mut moved = b.clone();
    let twentieth = moved.match_indices(";W[").nth(9).unwrap().0; // move 20
    moved.replace_range(twentieth + 3..twentieth + 5, "ss");
    let other = import(&archive, &moved);
    assert!(
        matches!(other.outcomes[0].fate, Fate::Stored { .. }),
        "{:?}",
        other.outcomes
    );
}

#[test]
fn exact_keeps_both_records_and_short_games_need_every_move() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let (a, b) = two_sources(120);
    let exact = ImportOptions {
        duplicates: Duplicates::Exact,
        ..ImportOptions::default()
    };
    import_with(&archive, &(a + &b), exact);
    assert_eq!(archive.stats().unwrap().games, 2);

    // 20 to 70 moves: every move is compared; under 20, none is merged.
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let (a, b) = two_sources(40);
    let r = import(&archive, &(a + &b));
    assert_eq!((r.counts.imported, r.counts.merged), (1, 1));
    let (a, b) = two_sources(19);
    let r = import(&archive, &(a + &b));
    assert_eq!((r.counts.imported, r.counts.merged), (2, 0));
}

#[test]
fn merges_across_batches_name_their_source() {
    // The stored game in one batch, its other record in the next.
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let (a, b) = two_sources(100);
    let r = archive
        .import(
            &[
                ImportSource::Bytes {
                    name: "a.sgf".into(),
                    bytes: a.into_bytes(),
                },
                ImportSource::Bytes {
                    name: "b.sgf".into(),
                    bytes: b.into_bytes(),
                },
            ],
            &ImportOptions {
                batch_size: 1,
                ..ImportOptions::default()
            },
            &mut |_| {},
        )
        .unwrap();
    assert_eq!((r.counts.imported, r.counts.merged), (1, 1));
    assert_eq!(r.merged[0].source, "b.sgf");
}
