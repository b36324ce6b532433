//! Every query against a real archive, checked against answers computed by
//! brute force from the generated records (scanned and replayed here with
//! keil-rules, independently of keil-record and of the archive).

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::NaiveDate;
use common::{Truth, bytes, corpus, import, plain};
use keil_archive::{Archive, GameFilter, GameId, GameKind, GameStatus, MatchKind, Order, Page};
use keil_rules::Color;

const HANDMADE: &str = "\
(;GM[Keil]FF[4]SZ[2]KM[1]PB[Ana Bolaños]PW[Zoë Ørsted]DT[2021-03-04]EV[Café Cup]PC[Málaga]\
GN[Final]RE[B+6.5];B[button];W[c2];B[b2]C[Ein schöner Zug];W[pass];B[pass])
(;GM[Keil]FF[4]SZ[2]KM[1]PB[Zoë Ørsted]PW[Ana Bolaños]DT[2021-03-05]EV[Café Cup]RE[W+R];B[b2])
(;GM[Keil]FF[4]SZ[2]PB[Ana Bolaños]PW[Bo]RE[?];B[a1];W[a1])
(;GM[1]SZ[19];B[pd])
";

struct Fixture {
    _dir: tempfile::TempDir,
    archive: Archive,
    truth: Vec<Truth>,
    /// Archive id of `truth[i]`.
    ids: Vec<GameId>,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let (text7, mut truth) = corpus(240, 7, 11);
    let (text5, truth5) = corpus(60, 5, 12);
    truth.extend(truth5);
    let report = import(
        &archive,
        &[bytes("seven.keil", &text7), bytes("five.keil", &text5)],
    );
    assert_eq!(report.counts.imported, 300);
    assert_eq!(report.counts.invalid, 0);
    // The generated games are distinct, stored in file order.
    let ids = (1..=300).map(|n| GameId::new(n).unwrap()).collect();
    Fixture {
        _dir: dir,
        archive,
        truth,
        ids,
    }
}

fn all_pages(archive: &Archive, filter: &GameFilter, order: Order, limit: usize) -> Vec<GameId> {
    let mut page = Page {
        order,
        limit,
        after: None,
        before: None,
    };
    let mut pages: Vec<Vec<GameId>> = Vec::new();
    let last_prev = loop {
        let list = archive.games().list(filter, &page).unwrap();
        assert!(list.games.len() <= limit);
        assert_eq!(
            list.prev.is_some(),
            !pages.is_empty(),
            "prev on page {}",
            pages.len()
        );
        pages.push(list.games.iter().map(|g| g.id).collect());
        match list.next {
            Some(c) => page.after = Some(c.to_string().parse().unwrap()),
            None => break list.prev,
        }
    };
    // Back from the last page with `prev`: the same pages, in reverse.
    let mut back = Page {
        order,
        limit,
        after: None,
        before: last_prev,
    };
    for want in pages.iter().rev().skip(1) {
        let list = archive.games().list(filter, &back).unwrap();
        let got: Vec<GameId> = list.games.iter().map(|g| g.id).collect();
        assert_eq!(&got, want, "a page read backwards");
        back.before = list.prev;
    }
    assert_eq!(back.before, None, "the first page has no prev");
    pages.into_iter().flatten().collect()
}

/// The brute-force answer: ids of the games passing `keep`, sorted like the
/// archive (date, then id).
fn expected(f: &Fixture, order: Order, keep: impl Fn(&Truth) -> bool) -> Vec<GameId> {
    let mut v: Vec<(String, GameId)> = f
        .truth
        .iter()
        .zip(&f.ids)
        .filter(|(t, _)| keep(t))
        .map(|(t, &id)| (t.day.clone(), id))
        .collect();
    v.sort();
    if order == Order::Descending {
        v.reverse();
    }
    v.into_iter().map(|(_, id)| id).collect()
}

#[test]
fn summaries_and_games_equal_the_replayed_records() {
    let f = fixture();
    let games = f.archive.games();
    for (t, &id) in f.truth.iter().zip(&f.ids).step_by(7) {
        let g = games.get(id).unwrap().unwrap();
        let s = &g.summary;
        assert_eq!(s.black.as_deref(), t.prop("PB"));
        assert_eq!(s.white.as_deref(), t.prop("PW"));
        assert_eq!(s.event.as_deref(), t.prop("EV"));
        assert_eq!(s.result.as_deref(), t.prop("RE"));
        assert_eq!(s.winner, t.winner);
        assert_eq!(s.status.code(), t.status);
        assert_eq!(s.size, t.size);
        assert_eq!(s.kind, GameKind::Keil);
        assert_eq!(s.plies as usize, t.moves.len());
        assert_eq!(g.moves.moves, t.moves);
        assert_eq!(s.day.map(|d| d.to_string()).unwrap_or_default(), t.day);
        // The stored record reads back as the same game.
        assert_eq!(
            common::truth_of(&g.record).props.get("PB"),
            t.props.get("PB")
        );
        assert_eq!(common::truth_of(&g.record).moves, t.moves);
    }
    assert!(games.get(GameId::new(10_000).unwrap()).unwrap().is_none());
    let ids = [f.ids[5], GameId::new(99_999).unwrap(), f.ids[2]];
    let s = games.summaries(&ids).unwrap();
    assert_eq!(
        s.iter().map(|g| g.id).collect::<Vec<_>>(),
        vec![f.ids[5], f.ids[2]]
    );
}

#[test]
fn lists_with_filters_equal_brute_force_over_every_page() {
    let f = fixture();
    let some = &f.truth[17];
    let (p, o) = (
        some.player(Color::Black).to_string(),
        some.player(Color::White).to_string(),
    );
    let event = some.prop("EV").unwrap().to_string();
    let from = NaiveDate::parse_from_str(&f.truth[40].day, "%Y-%m-%d").unwrap();
    let to = NaiveDate::parse_from_str(&f.truth[200].day, "%Y-%m-%d").unwrap();
    let (from, to) = (from.min(to), from.max(to));
    let day = |t: &Truth| NaiveDate::parse_from_str(&t.day, "%Y-%m-%d").unwrap();
    type Keep = Box<dyn Fn(&Truth) -> bool>;
    let (p2, o2, p3, p4, e2) = (p.clone(), o.clone(), p.clone(), p.clone(), event.clone());
    let cases: Vec<(GameFilter, Keep)> = vec![
        (GameFilter::default(), Box::new(|_| true)),
        (
            GameFilter {
                player: Some(p.to_uppercase()),
                ..Default::default()
            },
            Box::new(move |t| t.player(Color::Black) == p2 || t.player(Color::White) == p2),
        ),
        (
            GameFilter {
                player: Some(p.clone()),
                color: Some(Color::White),
                ..Default::default()
            },
            Box::new(move |t| t.player(Color::White) == p3),
        ),
        (
            GameFilter {
                player: Some(p.clone()),
                opponent: Some(o.clone()),
                ..Default::default()
            },
            Box::new(move |t| {
                (t.player(Color::Black) == p4 && t.player(Color::White) == o2)
                    || (t.player(Color::White) == p4 && t.player(Color::Black) == o2)
            }),
        ),
        (
            GameFilter {
                event: Some(event.to_lowercase()),
                ..Default::default()
            },
            // A part of the name: here all of it, in another case (so
            // an event whose name holds this one's passes too).
            Box::new(move |t| {
                t.prop("EV")
                    .is_some_and(|x| common::plain(x).contains(&common::plain(&e2)))
            }),
        ),
        (
            GameFilter {
                from: Some(from),
                to: Some(to),
                ..Default::default()
            },
            Box::new(move |t| day(t) >= from && day(t) <= to),
        ),
        (
            GameFilter {
                winner: Some(Color::White),
                size: Some(7),
                ..Default::default()
            },
            Box::new(|t| t.winner == Some(Color::White) && t.size == 7),
        ),
        (
            GameFilter {
                status: Some(GameStatus::Resigned),
                ..Default::default()
            },
            Box::new(|t| t.status == "resigned"),
        ),
        (
            GameFilter {
                result: Some("B+R".into()),
                ..Default::default()
            },
            Box::new(|t| t.prop("RE") == Some("B+R")),
        ),
        (
            GameFilter {
                ruleset: Some("Keil".parse().unwrap()),
                size: Some(5),
                ..Default::default()
            },
            Box::new(|t| t.prop("RU") == Some("Keil") && t.size == 5),
        ),
        // Every stored game is a Keil game (until Go records come).
        (
            GameFilter {
                kind: Some(GameKind::Keil),
                ..Default::default()
            },
            Box::new(|_| true),
        ),
        (
            GameFilter {
                kind: Some(GameKind::Keil),
                size: Some(5),
                ..Default::default()
            },
            Box::new(|t| t.size == 5),
        ),
        (
            GameFilter {
                size: Some(7),
                ..Default::default()
            },
            Box::new(|t| t.size == 7),
        ),
        (
            GameFilter {
                kind: Some(GameKind::Go),
                ..Default::default()
            },
            Box::new(|_| false),
        ),
        (
            GameFilter {
                kind: Some(GameKind::Go),
                size: Some(7),
                ..Default::default()
            },
            Box::new(|_| false),
        ),
    ];
    for (i, (filter, keep)) in cases.iter().enumerate() {
        for order in [Order::Ascending, Order::Descending] {
            let want = expected(&f, order, keep);
            assert_eq!(
                all_pages(&f.archive, filter, order, 7),
                want,
                "case {i} {order:?}"
            );
        }
        assert_eq!(
            f.archive.games().count(filter).unwrap(),
            expected(&f, Order::Ascending, keep).len() as u64
        );
        // The filter's own predicate agrees with its SQL.
        let all = f.archive.games().summaries(&f.ids).unwrap();
        let by_pred: Vec<GameId> = all
            .iter()
            .filter(|g| filter.matches(g))
            .map(|g| g.id)
            .collect();
        let mut by_sql = all_pages(&f.archive, filter, Order::Ascending, 1000);
        by_sql.sort();
        assert_eq!(
            by_pred, by_sql,
            "case {i}: matches() vs the storage's query"
        );
    }
    // Non-trivial cases.
    assert!(expected(&f, Order::Ascending, &cases[1].1).len() >= 2);
    assert!(!expected(&f, Order::Ascending, &cases[7].1).is_empty());
}

#[test]
fn player_search_and_profiles_equal_brute_force() {
    let f = fixture();
    // Brute-force counts of games per name.
    let mut count: HashMap<&str, u64> = HashMap::new();
    for t in &f.truth {
        for c in [Color::Black, Color::White] {
            *count.entry(t.player(c)).or_default() += 1;
        }
    }
    let names: BTreeSet<&str> = count.keys().copied().collect();
    for name in names.iter().step_by(3) {
        let hits = f
            .archive
            .players()
            .search(&name.to_uppercase(), 50)
            .unwrap();
        let hit = hits
            .iter()
            .find(|h| h.name == *name)
            .unwrap_or_else(|| panic!("{name}"));
        assert_eq!(hit.games, count[name], "{name}");
        assert_eq!(hits[0].matched, MatchKind::Exact, "{name}");
        // Prefix of the last word finds it too.
        let last = plain(name.split(' ').next_back().unwrap());
        if last.len() >= 3 && last.chars().all(|c| c.is_ascii_alphabetic()) {
            let hits = f.archive.players().search(&last[..3], 500).unwrap();
            assert!(
                hits.iter().any(|h| h.name == *name),
                "prefix {} of {name}",
                &last[..3]
            );
        }
    }
    for name in names.iter().step_by(9) {
        let id = f.archive.players().id_of(name).unwrap().unwrap();
        let prof = f.archive.players().profile(id).unwrap().unwrap();
        let mut rec = [[0u64; 3]; 2];
        let mut opp: BTreeMap<&str, u64> = BTreeMap::new();
        let mut days = Vec::new();
        // Per year, undated (`None`) last.
        let mut years: BTreeMap<(bool, Option<i32>), [u64; 3]> = BTreeMap::new();
        for t in &f.truth {
            for c in [Color::Black, Color::White] {
                if t.player(c) == *name {
                    let r = &mut rec[c.index()];
                    r[0] += 1;
                    let year = t.day.get(..4).and_then(|y| y.parse::<i32>().ok());
                    let y = years.entry((year.is_none(), year)).or_default();
                    y[0] += 1;
                    match t.winner {
                        Some(w) if w == c => {
                            r[1] += 1;
                            y[1] += 1;
                        }
                        Some(_) => {
                            r[2] += 1;
                            y[2] += 1;
                        }
                        None => {}
                    }
                    *opp.entry(t.player(c.opposite())).or_default() += 1;
                    days.push(t.day.clone());
                }
            }
        }
        days.sort();
        assert_eq!(prof.games, count[name]);
        let got = [prof.as_black, prof.as_white].map(|r| [r.games, r.wins, r.losses]);
        assert_eq!(got, rec, "{name}");
        assert_eq!(prof.first_date.as_deref(), days.first().map(|s| s.as_str()));
        assert_eq!(prof.last_date.as_deref(), days.last().map(|s| s.as_str()));
        let mut want: Vec<(u64, &str)> = opp.iter().map(|(n, c)| (*c, *n)).collect();
        want.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        want.truncate(keil_archive::PROFILE_OPPONENTS);
        let got: Vec<(u64, &str)> = prof
            .opponents
            .iter()
            .map(|o| (o.games, o.name.as_str()))
            .collect();
        assert_eq!(got, want, "{name}");
        let by_year: Vec<(Option<i32>, [u64; 3])> = f
            .archive
            .players()
            .results_by_year(id)
            .unwrap()
            .iter()
            .map(|r| (r.year, [r.games, r.wins, r.losses]))
            .collect();
        let want: Vec<(Option<i32>, [u64; 3])> =
            years.into_iter().map(|((_, y), c)| (y, c)).collect();
        assert_eq!(by_year, want, "{name}");
    }
}

#[test]
fn names_fold_accents_and_case_prefix_and_fuzzy() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let report = import(&archive, &[bytes("hand.keil", HANDMADE)]);
    // The Go game of HANDMADE is stored too (schema 4).
    assert_eq!(report.counts.imported, 3);
    assert_eq!(
        report.reasons.clone().into_iter().collect::<Vec<_>>(),
        vec![("occupied".to_string(), 1)]
    );
    let names = |q: &str| -> Vec<(String, MatchKind)> {
        archive
            .players()
            .search(q, 10)
            .unwrap()
            .into_iter()
            .map(|h| (h.name, h.matched))
            .collect()
    };
    let ana = "Ana Bolaños".to_string();
    // A whole word of the name (not the name itself) matches as a word.
    assert_eq!(names("bolanos"), vec![(ana.clone(), MatchKind::Word)]);
    assert_eq!(names("Bolanos"), vec![(ana.clone(), MatchKind::Word)]);
    assert_eq!(names("ANA BOLAÑOS"), vec![(ana.clone(), MatchKind::Exact)]);
    assert_eq!(names("bol"), vec![(ana.clone(), MatchKind::Prefix)]);
    assert_eq!(names("bolanso"), vec![(ana.clone(), MatchKind::Fuzzy)]);
    assert_eq!(
        names("orsted"),
        vec![("Zoë Ørsted".to_string(), MatchKind::Word)]
    );
    assert_eq!(
        names("zoe"),
        vec![("Zoë Ørsted".to_string(), MatchKind::Word)]
    );
    assert_eq!(
        names("ørst"),
        vec![("Zoë Ørsted".to_string(), MatchKind::Prefix)]
    );
    assert!(names("xyzzy").is_empty());
    assert!(names("  ").is_empty());
    // Players of a later import are found by fuzzy search too.
    assert!(names("kovra").is_empty());
    let later = "(;GM[Keil]FF[4]SZ[2]KM[1]PB[Zdeněk Kovář]PW[Mei Lin];B[b2])";
    import(&archive, &[bytes("later.keil", later)]);
    assert_eq!(
        names("kovra"),
        vec![("Zdeněk Kovář".to_string(), MatchKind::Fuzzy)]
    );
    // Games counts only count stored games.
    let hits = archive.players().search("bolanos", 10).unwrap();
    assert_eq!(hits[0].games, 2);
    // The import log holds the refused games with their reasons.
    let logged = common::query(
        archive.dir(),
        "SELECT reason, game_index, ply, line, col FROM import_problems ORDER BY game_index",
    );
    assert_eq!(logged, vec![vec!["occupied", "2", "2", "3", "53"]]);
}

#[test]
fn text_search_finds_comments_events_places_and_names() {
    let f = fixture();
    // Brute force: games whose comments contain the word, ignoring case.
    let with = |word: &str| -> BTreeSet<GameId> {
        f.truth
            .iter()
            .zip(&f.ids)
            .filter(|(t, _)| t.comments.iter().any(|c| plain(c).contains(word)))
            .map(|(_, &id)| id)
            .collect()
    };
    for word in ["tesuji", "button", "alive"] {
        let want = with(word);
        let got: BTreeSet<GameId> = f
            .archive
            .search_text(&format!("comment:{word}"), 1000)
            .unwrap()
            .into_iter()
            .map(|h| h.game.id)
            .collect();
        assert_eq!(got, want, "{word}");
    }
    // Accents folded: "uberraschung" finds "Überraschung".
    let want = with("uberraschung");
    assert!(!want.is_empty());
    let got: BTreeSet<GameId> = f
        .archive
        .search_text("uberraschung", 1000)
        .unwrap()
        .into_iter()
        .map(|h| h.game.id)
        .collect();
    assert_eq!(got, want);
    // Events: every game of an event, by one word of its name.
    let event = f.truth[3].prop("EV").unwrap();
    let word = event
        .split(' ')
        .find(|w| w.len() > 3 && w.chars().all(char::is_alphabetic))
        .unwrap();
    let want: BTreeSet<GameId> = f
        .truth
        .iter()
        .zip(&f.ids)
        .filter(|(t, _)| {
            t.prop("EV")
                .is_some_and(|e| e.split(' ').any(|w| w.eq_ignore_ascii_case(word)))
        })
        .map(|(_, &id)| id)
        .collect();
    let got: BTreeSet<GameId> = f
        .archive
        .search_text(&format!("event:{word}"), 1000)
        .unwrap()
        .into_iter()
        .map(|h| h.game.id)
        .collect();
    assert_eq!(got, want, "event word {word}");
    // No syntax error: a bracket after a field is punctuation.
    assert!(f.archive.search_text("event:(", 10).unwrap().is_empty());

    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(&archive, &[bytes("hand.keil", HANDMADE)]);
    for q in [
        "malaga",
        "cafe",
        "final",
        "schoner",
        "name:final",
        "place:MÁLAGA",
    ] {
        let hits = archive.search_text(q, 10).unwrap();
        assert!(!hits.is_empty(), "{q}");
        assert_eq!(hits[0].game.black.as_deref(), Some("Ana Bolaños"), "{q}");
    }
    assert_eq!(archive.search_text("cafe", 10).unwrap().len(), 2);
}

/// The text query reads whatever a person types: phrases, fields and
/// exclusions when well-formed, everything else as words; only its bounds
/// are refused.
#[test]
fn text_queries_are_lenient_and_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(&archive, &[bytes("hand.keil", HANDMADE)]);
    let count = |q: &str| {
        archive
            .search_text(q, 10)
            .unwrap_or_else(|e| panic!("{q:?}: {e}"))
            .len()
    };
    // Game 1: EV Café Cup, PC Málaga, GN Final; game 2: EV Café Cup.
    for (q, n) in [
        ("\"café cup\"", 2),
        ("\"cup café\"", 0),
        ("event:\"CAFE CUP\"", 2),
        ("cafe -final", 1),
        ("cafe +final", 1),
        ("place:cafe", 0),
        ("name:final cafe", 1),
        ("-cafe", 0),
        ("(((cafe)))", 2),
        ("((((((((((((((((((((((((cafe))))))))))))))))))))))))", 2),
        ("café:cup", 2),
        ("cafe AND", 0),
        ("\"", 0),
        ("\"cafe", 2),
        ("nosuchfield:cafe", 0),
        ("- + ( ) : ~ ^ *", 0),
    ] {
        assert_eq!(count(q), n, "{q:?}");
    }
    let long = format!("{}cafe{}", "(".repeat(3000), ")".repeat(3000));
    let e = archive.search_text(&long, 10).unwrap_err();
    assert!(
        matches!(
            e,
            keil_archive::Error::TextQuery(keil_archive::TextQueryError::TooLong { bytes: 6004 })
        ),
        "{e}"
    );
    assert!(e.to_string().contains("1000 bytes"), "{e}");
}

#[test]
fn reimport_is_a_no_op_and_reindex_rebuilds() {
    let f = fixture();
    let before = f.archive.stats().unwrap();
    let (text7, _) = corpus(240, 7, 11);
    let again = import(&f.archive, &[bytes("again.keil", &text7)]);
    assert_eq!((again.counts.imported, again.counts.duplicates), (0, 240));
    let after = f.archive.stats().unwrap();
    assert_eq!(
        (after.games, after.players, after.text_documents),
        (before.games, before.players, before.text_documents)
    );
    assert_eq!(after.imports, before.imports + 1);
    let r = f.archive.reindex().unwrap();
    assert_eq!(r.games, 300);
    assert_eq!(f.archive.stats().unwrap().text_documents, 300);
    assert_eq!(
        f.archive.search_text("comment:tesuji", 1000).unwrap().len(),
        {
            f.truth
                .iter()
                .filter(|t| t.comments.iter().any(|c| c.contains("Tesuji")))
                .count()
        }
    );
}

#[test]
fn directories_and_bad_paths() {
    let f = tempfile::tempdir().unwrap();
    let src = f.path().join("in");
    std::fs::create_dir_all(src.join("sub")).unwrap();
    let (a, _) = corpus(5, 4, 1);
    let (b, _) = corpus(5, 4, 2);
    std::fs::write(src.join("a.keil"), a).unwrap();
    std::fs::write(src.join("sub/b.SGF"), b).unwrap();
    std::fs::write(src.join("notes.txt"), "not a record").unwrap();
    let archive = Archive::open(common::at(f.path().join("db"))).unwrap();
    let mut seen = Vec::new();
    let report = archive
        .import(
            &[keil_archive::ImportSource::Path(src.clone())],
            &Default::default(),
            &mut |p| seen.push(*p),
        )
        .unwrap();
    assert_eq!(report.counts.imported, 10);
    assert_eq!(seen.last().unwrap().imported, 10);
    let missing = archive.import(
        &[keil_archive::ImportSource::Path(src.join("nope"))],
        &Default::default(),
        &mut |_| {},
    );
    assert!(matches!(missing, Err(keil_archive::Error::Io { .. })));
    // Reopening keeps everything (migrations are not re-applied).
    drop(archive);
    let archive = Archive::open(common::at(f.path().join("db"))).unwrap();
    assert_eq!(archive.stats().unwrap().games, 10);
}

#[test]
fn outcomes_name_every_game_in_reading_order() {
    use keil_archive::{Checked, Fate, ImportOptions};
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let options = ImportOptions {
        batch_size: 2,
        outcomes: true,
        ..ImportOptions::default()
    };
    let first = archive
        .import(&[bytes("hand.keil", HANDMADE)], &options, &mut |_| {})
        .unwrap();
    let kinds: Vec<(&str, usize)> = first
        .outcomes
        .iter()
        .map(|o| match &o.fate {
            Fate::Stored { source, index, .. } => (source.as_str(), *index),
            Fate::Duplicate { .. } | Fate::Merged { .. } => panic!("nothing was stored before"),
            Fate::Invalid(p) => (p.reason.as_str(), p.index),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("hand.keil", 0),
            ("hand.keil", 1),
            ("occupied", 2),
            ("hand.keil", 3)
        ]
    );
    let stored: Vec<GameId> = first
        .outcomes
        .iter()
        .filter_map(|o| match o.fate {
            Fate::Stored { id, .. } => Some(id),
            _ => None,
        })
        .collect();
    // Each outcome keeps what the validator said, with where the fault is.
    let checked: Vec<(&str, Option<(u32, u32)>)> = first
        .outcomes
        .iter()
        .map(|o| match &o.checked {
            Checked::Verdict(v) => (
                v.status.code(),
                v.illegal.as_ref().map(|i| (i.line, i.column)),
            ),
            Checked::RecordError(e) => ("error", Some((e.line, e.column))),
            Checked::NotRead => panic!("every tree was read"),
        })
        .collect();
    assert_eq!(
        checked,
        vec![
            ("complete", None),
            ("resigned", None),
            ("invalid", Some((3, 53))),
            ("unfinished", None)
        ]
    );
    let Fate::Invalid(occupied) = &first.outcomes[2].fate else {
        panic!("game 2 is illegal");
    };
    assert_eq!(
        (
            occupied.ply,
            occupied.mv.as_deref(),
            occupied.line,
            occupied.column
        ),
        (Some(2), Some("W[a1]"), Some(3), Some(53))
    );
    assert!(
        occupied.message.contains("occupied"),
        "{}",
        occupied.message
    );
    // The ids are the games' real ids: their records come back.
    let g = archive.games().get(stored[1]).unwrap().unwrap();
    assert_eq!(g.summary.black.as_deref(), Some("Zoë Ørsted"));

    // Again, with the second game twice in one batch: duplicates name the
    // game already stored.
    let second_game = HANDMADE.lines().nth(1).unwrap();
    let again = format!("{second_game}\n{second_game}\n");
    let report = archive
        .import(&[bytes("again.keil", &again)], &options, &mut |_| {})
        .unwrap();
    let fates: Vec<&Fate> = report.outcomes.iter().map(|o| &o.fate).collect();
    assert_eq!(
        fates,
        vec![
            &Fate::Duplicate {
                source: "again.keil".into(),
                index: 0,
                id: stored[1]
            },
            &Fate::Duplicate {
                source: "again.keil".into(),
                index: 1,
                id: stored[1]
            },
        ]
    );
    // Off by default.
    let quiet = archive
        .import(
            &[bytes("again.keil", &again)],
            &Default::default(),
            &mut |_| {},
        )
        .unwrap();
    assert!(quiet.outcomes.is_empty());
}

#[test]
fn a_collection_read_in_parts_imports_as_a_whole() {
    use keil_archive::ImportOptions;
    // Parts of at most 300 bytes: about one game each, so batches and
    // game indexes cross part boundaries.
    let (text, truth) = corpus(40, 5, 31);
    let mut text = text;
    text.push_str(HANDMADE);
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let options = ImportOptions {
        batch_size: 3,
        outcomes: true,
        part_bytes: 300,
        ..ImportOptions::default()
    };
    let report = archive
        .import(&[bytes("big.keil", &text)], &options, &mut |_| {})
        .unwrap();
    assert_eq!(report.counts.games_read, 44);
    assert_eq!(report.counts.imported, truth.len() as u64 + 3);
    let indexes: Vec<usize> = report.outcomes.iter().map(|o| o.index()).collect();
    assert_eq!(indexes, (0..44).collect::<Vec<_>>());
    let refused: Vec<(usize, &str)> = report
        .invalid
        .iter()
        .map(|p| (p.index, p.reason.as_str()))
        .collect();
    assert_eq!(refused, vec![(42, "occupied")]);
}

#[test]
fn fuzzy_player_search_equals_brute_force() {
    let f = fixture();
    let names: BTreeSet<&str> = f
        .truth
        .iter()
        .flat_map(|t| [t.player(Color::Black), t.player(Color::White)])
        .collect();
    let folded: Vec<(&str, String)> = names.iter().map(|n| (*n, keil_archive::fold(n))).collect();
    let edits = |len: usize| match len {
        0..=2 => 0,
        3..=5 => 1,
        _ => 2,
    };
    // Typos of name words: two letters swapped, one dropped, one changed.
    let mut queries = BTreeSet::new();
    for (_, f) in folded.iter().step_by(2) {
        for w in f.split(' ').filter(|w| w.len() >= 4) {
            let b = w.as_bytes();
            let mut swapped = b.to_vec();
            swapped.swap(1, 2);
            let mut dropped = b.to_vec();
            dropped.remove(b.len() / 2);
            let mut changed = b.to_vec();
            changed[b.len() - 1] = b'q';
            for q in [swapped, dropped, changed] {
                queries.insert(String::from_utf8(q).unwrap());
            }
        }
    }
    assert!(queries.len() > 50);
    for q in &queries {
        let hits = f.archive.players().search(q, 10_000).unwrap();
        let got: BTreeSet<&str> = hits
            .iter()
            .filter(|h| h.matched == MatchKind::Fuzzy)
            .map(|h| h.name.as_str())
            .collect();
        let k = edits(q.len());
        let want: BTreeSet<&str> = folded
            .iter()
            .filter(|(_, f)| {
                !(f.starts_with(q.as_str()) || f.split(' ').any(|w| w.starts_with(q.as_str())))
            })
            .filter(|(_, f)| {
                k > 0
                    && std::iter::once(f.as_str())
                        .chain(f.split(' '))
                        .any(|w| strsim::damerau_levenshtein(q, w) <= k)
            })
            .map(|(n, _)| *n)
            .collect();
        assert_eq!(got, want, "query {q}");
        // Fuzzy hits come closest first.
        let distances: Vec<usize> = hits
            .iter()
            .filter(|h| h.matched == MatchKind::Fuzzy)
            .map(|h| {
                let f = keil_archive::fold(&h.name);
                std::iter::once(f.as_str())
                    .chain(f.split(' '))
                    .map(|w| strsim::damerau_levenshtein(q, w))
                    .min()
                    .unwrap()
            })
            .collect();
        assert!(
            distances.windows(2).all(|w| w[0] <= w[1]),
            "query {q}: {distances:?}"
        );
    }
}
