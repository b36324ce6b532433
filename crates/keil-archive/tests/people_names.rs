//! The names people are shown by (the spelling most of their records use,
//! or the operator's), the people a name answers to (`Shusaku`), and the
//! pairs an operator may want to make one: docs/collections.md, "Players".

mod common;

use common::bytes;
use keil_archive::{AliasEvidence, Archive, Error, GameFilter, ImportOptions, MatchKind, Page};

/// A 19×19 Go game of 30 moves (all different points, in a fixed order
/// from `start`: a distinct `start` per game keeps games apart), with the
/// given root properties.
fn game(headers: &str, start: usize) -> String {
    common::go_game(headers, 30, start * 11)
}

fn import(archive: &Archive, games: &[String]) {
    let r = archive
        .import(
            &[bytes("names.sgf", &games.concat())],
            &ImportOptions::default(),
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(r.counts.imported, games.len() as u64, "{r:?}");
}

fn shown(archive: &Archive, name: &str) -> String {
    let id = archive.players().id_of(name).unwrap().expect(name);
    archive.players().profile(id).unwrap().unwrap().name
}

fn listed(archive: &Archive, filter: &GameFilter) -> Vec<(String, String, String)> {
    archive
        .games()
        .list(filter, &Page::default())
        .unwrap()
        .games
        .into_iter()
        .map(|g| {
            (
                g.black.unwrap_or_default(),
                g.white.unwrap_or_default(),
                g.date.unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn a_person_is_shown_by_the_spelling_most_of_their_records_use() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    // The first spelling met is the rare one.
    import(
        &archive,
        &[game("PB[GULI]PW[Ke Jie]DT[2015-01-01]RE[B+R]", 1)],
    );
    assert_eq!(shown(&archive, "Gu Li"), "GULI");
    let mut later: Vec<String> = (0..3)
        .map(|i| {
            game(
                &format!("PB[Gu Li]PW[Ke Jie]DT[2016-0{}-01]RE[W+R]", i + 1),
                10 + i,
            )
        })
        .collect();
    later.push(game("PB[IyamaYuta]PW[Gu Li]DT[2016-05-01]RE[W+R]", 20));
    import(&archive, &later);
    assert_eq!(shown(&archive, "GULI"), "Gu Li");
    // Everywhere: the profile, the opponents, the search, the most played.
    let ke = archive.players().id_of("Ke Jie").unwrap().unwrap();
    let ke = archive.players().profile(ke).unwrap().unwrap();
    assert_eq!(ke.opponents[0].name, "Gu Li");
    let hits = archive.players().search("guli", 5).unwrap();
    assert_eq!(hits[0].name, "Gu Li");
    assert_eq!(hits[0].games, 5);
    let top = archive.players().most_played(1).unwrap();
    assert_eq!((top[0].name.as_str(), top[0].games), ("Gu Li", 5));
    // The spellings stay as written, with their games.
    let id = archive.players().id_of("Gu Li").unwrap().unwrap();
    let mut spellings: Vec<(String, u64)> = archive
        .players()
        .spellings(id)
        .unwrap()
        .into_iter()
        .map(|s| (s.name, s.games))
        .collect();
    spellings.sort();
    assert_eq!(spellings, vec![("GULI".into(), 1), ("Gu Li".into(), 4)]);
    // Removing games changes the count: GULI's one game is then the most.
    let gu_li = GameFilter {
        player: Some("Gu Li".into()),
        opponent: Some("Ke Jie".into()),
        ..GameFilter::default()
    };
    let games = archive
        .games()
        .list(&gu_li, &Page::default())
        .unwrap()
        .games;
    for g in games.iter().filter(|g| g.black.as_deref() == Some("Gu Li")) {
        archive.remove(g.id, "test", "spelling count").unwrap();
    }
    assert_eq!(shown(&archive, "Gu Li"), "GULI");
}

#[test]
fn an_operator_sets_the_name_shown_and_can_give_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(
        &archive,
        &[
            game("PB[Alphago]PW[Fan Hui]DT[2015-10-05]RE[B+R]", 1),
            game("PB[Lee Sedol]PW[Alphago]DT[2016-03-09]RE[W+R]", 2),
        ],
    );
    assert_eq!(shown(&archive, "AlphaGo"), "Alphago");
    let id = archive.set_player_name("alphago", Some("AlphaGo")).unwrap();
    assert_eq!(shown(&archive, "Alphago"), "AlphaGo");
    let p = archive.players().profile(id).unwrap().unwrap();
    assert!(p.name_set);
    // Later records do not change an operator's name.
    import(
        &archive,
        &[
            game("PB[ALPHAGO]PW[Ke Jie]DT[2017-05-23]RE[B+R]", 3),
            game("PB[ALPHAGO]PW[Ke Jie]DT[2017-05-25]RE[B+R]", 4),
            game("PB[ALPHAGO]PW[Ke Jie]DT[2017-05-27]RE[B+R]", 5),
        ],
    );
    assert_eq!(shown(&archive, "Alphago"), "AlphaGo");
    // A name no record writes still finds the person, and so does `#ID`.
    assert_eq!(
        archive
            .set_player_name("Alphago", Some("AlphaGo (DeepMind)"))
            .unwrap(),
        id
    );
    assert_eq!(
        archive.players().id_of("AlphaGo (DeepMind)").unwrap(),
        Some(id)
    );
    assert_eq!(
        archive.players().id_of(&format!("#{id}")).unwrap(),
        Some(id)
    );
    assert_eq!(shown(&archive, "Lee Sedol"), "Lee Sedol");
    // `None`: the spelling most of the records use again.
    archive.set_player_name(&format!("#{id}"), None).unwrap();
    assert_eq!(shown(&archive, "Alphago"), "ALPHAGO");
    assert!(!archive.players().profile(id).unwrap().unwrap().name_set);
    // Errors name what to fix.
    let e = archive.set_player_name("Nobody", Some("X")).unwrap_err();
    assert!(matches!(e, Error::BadPlayerName(_)), "{e}");
    assert!(e.to_string().contains("Nobody"), "{e}");
    let e = archive
        .set_player_name("Fan Hui", Some(" -- "))
        .unwrap_err();
    assert!(matches!(e, Error::BadPlayerName(_)), "{e}");
    assert_eq!(shown(&archive, "Fan Hui"), "Fan Hui");
    // An alias to a name no record writes names its person so, as an
    // operator's name.
    archive.add_alias("Fan Hui", "Fan Hui 2p").unwrap();
    let fan = archive.players().id_of("Fan Hui").unwrap().unwrap();
    let p = archive.players().profile(fan).unwrap().unwrap();
    assert_eq!((p.name.as_str(), p.name_set), ("Fan Hui 2p", true));
}

/// Shusaku under his names over his life, an account named `Shusaku`, and
/// his opponents.
fn shusaku_corpus() -> Vec<String> {
    let mut games = Vec::new();
    let mut n = 0;
    let mut add = |headers: String| {
        n += 1;
        games.push(game(&headers, n));
    };
    for (year, opp) in [
        (1840, "Ota Yuzo"),
        (1841, "Hattori Yuteki"),
        (1842, "Ota Yuzo"),
    ] {
        add(format!(
            "PB[Kuwahara Shusaku]BR[4d]PW[{opp}]DT[{year}-03-01]RE[B+R]"
        ));
    }
    for (year, opp) in [(1844, "Ota Yuzo"), (1845, "Hattori Yuteki")] {
        add(format!(
            "PB[Yasuda Shusaku]BR[5d]PW[{opp}]DT[{year}-06-01]RE[B+R]"
        ));
    }
    add("PB[Yasuda Shusaku]BR[4d]PW[Inoue Gennan Inseki]WR[8d]DT[1846-07-21]RE[B+2]".into());
    for (year, opp) in [
        (1847, "Ota Yuzo"),
        (1849, "Hattori Yuteki"),
        (1850, "Ito Shusaku"),
        (1853, "Ota Yuzo"),
        (1853, "Yasui Sanchi"),
        (1860, "Murase Shuho"),
    ] {
        add(format!(
            "PB[Honinbo Shusaku]BR[7d]PW[{opp}]DT[{year}-09-01]RE[B+R]"
        ));
    }
    for day in 1..=3 {
        add(format!(
            "PB[Shusaku]BR[3k]PW[kgsfan]WR[2k]DT[2010-01-0{day}]RE[W+R]"
        ));
    }
    games
}

#[test]
fn a_name_several_people_answer_to_lists_them_all_the_exact_account_last() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(&archive, &shusaku_corpus());
    let hits = archive.players().search("Shusaku", 10).unwrap();
    let names: Vec<(&str, MatchKind, u64)> = hits
        .iter()
        .map(|h| (h.name.as_str(), h.matched, h.games))
        .collect();
    assert_eq!(
        names,
        vec![
            ("Honinbo Shusaku", MatchKind::Word, 6),
            ("Kuwahara Shusaku", MatchKind::Word, 3),
            ("Yasuda Shusaku", MatchKind::Word, 3),
            ("Ito Shusaku", MatchKind::Word, 1),
            ("Shusaku", MatchKind::Exact, 3),
        ]
    );
    // Years and ranks tell them apart.
    let honinbo = &hits[0];
    assert_eq!(honinbo.span.years(), "1847–1860");
    assert_eq!(honinbo.span.ranks, vec!["7d".to_string()]);
    let yasuda = &hits[2];
    assert_eq!(yasuda.span.years(), "1844–1846");
    assert_eq!(yasuda.span.ranks, vec!["5d".to_string(), "4d".to_string()]);
    let account = &hits[4];
    assert_eq!(account.span.years(), "2010");
    assert_eq!(account.span.ranks, vec!["3k".to_string()]);
    // A short list keeps the exact account, in its last place.
    let two = archive.players().search("shusaku", 2).unwrap();
    assert_eq!(
        two.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(),
        vec!["Honinbo Shusaku", "Shusaku"]
    );
    // A name with one person is that person first, as before.
    let one = archive.players().search("Ota Yuzo", 5).unwrap();
    assert_eq!(
        (one[0].name.as_str(), one[0].matched),
        ("Ota Yuzo", MatchKind::Exact)
    );
    // The choices, most games first.
    let (choices, total) = archive.players().answering("Shusaku", 3).unwrap();
    assert_eq!(total, 5);
    assert_eq!(choices.len(), 3);
    assert_eq!(choices[0].name, "Honinbo Shusaku");
    // The filter takes every person the name answers to: the 1846 game
    // against Gennan is found.
    let filter = GameFilter {
        player: Some("Shusaku".into()),
        opponent: Some("Gennan".into()),
        from: chrono::NaiveDate::from_ymd_opt(1846, 1, 1),
        to: chrono::NaiveDate::from_ymd_opt(1846, 12, 31),
        ..GameFilter::default()
    };
    assert_eq!(
        listed(&archive, &filter),
        vec![(
            "Yasuda Shusaku".into(),
            "Inoue Gennan Inseki".into(),
            "1846-07-21".into()
        )]
    );
    assert_eq!(archive.games().count(&filter).unwrap(), 1);
    // `#ID` takes one person alone; the account's own name takes them all.
    let account_id = account.id;
    let alone = GameFilter {
        player: Some(format!("#{account_id}")),
        ..GameFilter::default()
    };
    let games = listed(&archive, &alone);
    assert_eq!(games.len(), 3);
    assert!(games.iter().all(|g| g.0 == "Shusaku"), "{games:?}");
    // Each game once, that between two of them (Honinbo Shusaku and Ito
    // Shusaku) too.
    let all = GameFilter {
        player: Some("shusaku".into()),
        ..GameFilter::default()
    };
    assert_eq!(archive.games().count(&all).unwrap(), 15);
    assert_eq!(listed(&archive, &all).len(), 15);
    // A full name is its person alone.
    let full = GameFilter {
        player: Some("Honinbo Shusaku".into()),
        ..GameFilter::default()
    };
    assert_eq!(archive.games().count(&full).unwrap(), 6);
    // An unknown `#ID` names nobody.
    let nobody = GameFilter {
        player: Some("#999999".into()),
        ..GameFilter::default()
    };
    assert_eq!(archive.games().count(&nobody).unwrap(), 0);
}

#[test]
fn alias_suggestions_come_with_evidence_and_never_merge() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let mut games = shusaku_corpus();
    games.push(game("PB[Iyama Yuta]PW[Cho U]DT[2013-01-01]RE[B+R]", 90));
    games.push(game("PB[Yuta Iyama]PW[Cho U]DT[2012-01-01]RE[B+R]", 91));
    import(&archive, &games);
    let pairs = archive.players().suggest_aliases(50).unwrap();
    let names: Vec<(&str, &str)> = pairs
        .iter()
        .map(|p| (p.alias.name.as_str(), p.name.name.as_str()))
        .collect();
    // The same words in another order come first.
    assert_eq!(names[0], ("Yuta Iyama", "Iyama Yuta"), "{names:?}");
    assert!(pairs[0].evidence.contains(&AliasEvidence::WordOrder));
    assert!(
        pairs[0]
            .evidence
            .contains(&AliasEvidence::SharedOpponents(1))
    );
    // Shusaku's names over his life, with shared opponents and near years.
    let find = |a: &str, b: &str| {
        pairs
            .iter()
            .find(|p| {
                let mut x = [p.alias.name.as_str(), p.name.name.as_str()];
                x.sort();
                let mut y = [a, b];
                y.sort();
                x == y
            })
            .unwrap_or_else(|| panic!("{a} / {b} not in {names:?}"))
    };
    let p = find("Kuwahara Shusaku", "Honinbo Shusaku");
    assert_eq!(
        p.name.name, "Honinbo Shusaku",
        "the alias is the name with fewer games"
    );
    assert!(
        p.evidence
            .contains(&AliasEvidence::LastWord("shusaku".into()))
    );
    assert!(p.evidence.contains(&AliasEvidence::SharedOpponents(2)));
    assert!(p.evidence.contains(&AliasEvidence::YearsApart(5)));
    assert!(p.evidence.contains(&AliasEvidence::NeverPlayedEachOther));
    let p = find("Yasuda Shusaku", "Honinbo Shusaku");
    assert!(p.evidence.contains(&AliasEvidence::YearsApart(1)));
    // Ito Shusaku played Honinbo Shusaku: two people, never suggested.
    assert!(
        !names
            .iter()
            .any(|n| n.0 == "Ito Shusaku" && n.1 == "Honinbo Shusaku"
                || n.1 == "Ito Shusaku" && n.0 == "Honinbo Shusaku"),
        "{names:?}"
    );
    // The account `Shusaku` is one word and 150 years later.
    assert!(
        !names.iter().any(|n| n.0 == "Shusaku" || n.1 == "Shusaku"),
        "{names:?}"
    );
    // Nothing was merged.
    assert_eq!(archive.players().answering("Shusaku", 10).unwrap().1, 5);
    // Confirming one with an alias merges them; the name most used stays.
    archive
        .add_alias("Kuwahara Shusaku", "Honinbo Shusaku")
        .unwrap();
    assert_eq!(shown(&archive, "Kuwahara Shusaku"), "Honinbo Shusaku");
    let id = archive.players().id_of("Honinbo Shusaku").unwrap().unwrap();
    assert_eq!(archive.players().profile(id).unwrap().unwrap().games, 9);
    let pairs = archive.players().suggest_aliases(50).unwrap();
    assert!(!pairs.iter().any(|p| p.alias.name == "Kuwahara Shusaku"));
}

/// The real KGS games (`/work/shared/data/kgs`, or `KEIL_KGS_DIR`): one
/// month of them, when present.
fn kgs_month() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("KEIL_KGS_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/kgs")
        });
    let file = dir.join("KGS-2016_01-19-756-.tar.gz");
    file.is_file().then_some(file)
}

#[test]
fn on_real_games_the_names_shown_are_the_most_used_and_suggested_pairs_never_met() {
    let Some(month) = kgs_month() else {
        println!("note: the KGS games are not here (KEIL_KGS_DIR): skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let r = archive
        .import(
            &[keil_archive::ImportSource::Path(month)],
            &ImportOptions::default(),
            &mut |_| {},
        )
        .unwrap();
    assert!(r.counts.imported > 700, "{:?}", r.counts);
    for hit in archive.players().most_played(60).unwrap() {
        let spellings = archive.players().spellings(hit.id).unwrap();
        let most = spellings.iter().map(|s| s.games).max().unwrap();
        let shown = spellings.iter().find(|s| s.name == hit.name);
        assert_eq!(shown.map(|s| s.games), Some(most), "{hit:?}: {spellings:?}");
        // A search for the name finds the person, with their years.
        let found = archive.players().search(&hit.name, 20).unwrap();
        let me = found.iter().find(|h| h.id == hit.id).expect(&hit.name);
        assert!(me.span.first_date <= me.span.last_date, "{me:?}");
        assert!(me.span.years().starts_with("2016"), "{me:?}");
    }
    for p in archive.players().suggest_aliases(30).unwrap() {
        assert_ne!(p.alias.id, p.name.id);
        assert!(p.alias.games <= p.name.games, "{p:?}");
        assert!(p.evidence.contains(&AliasEvidence::NeverPlayedEachOther));
        let met = GameFilter {
            player: Some(format!("#{}", p.alias.id)),
            opponent: Some(format!("#{}", p.name.id)),
            ..GameFilter::default()
        };
        assert_eq!(archive.games().count(&met).unwrap(), 0, "{p:?}");
    }
}
