//! Metadata as its writers meant it, on the real files of the shared
//! sgf-real data (read only): Fox's scaled komi (`KM[750]` is 7.5) and
//! ranks (`9段` is 9d, `P9` 9p) are stored normalised, with the record's
//! text kept; rank filters; an archive of schema 7 upgraded in place.

mod common;

use std::path::PathBuf;

use keil_archive::{
    Archive, Checked, GameFilter, GameSummary, ImportOptions, ImportSource, Page, SQLITE_FILE,
};
use keil_record::Rank;
use keil_rules::HalfPoints;

/// The first `n` real `.sgf` files (name order) whose text contains
/// `needle`.
fn files_with(needle: &str, n: usize) -> Option<Vec<PathBuf>> {
    Some(
        common::real_sgf_files()?
            .into_iter()
            .filter(|p| {
                std::fs::read(p)
                    .is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
            })
            .take(n)
            .collect(),
    )
}

fn all_games(archive: &Archive, filter: &GameFilter) -> Vec<GameSummary> {
    archive
        .games()
        .list(
            filter,
            &Page {
                limit: 1000,
                ..Page::default()
            },
        )
        .unwrap()
        .games
}

fn import(files: &[PathBuf]) -> (tempfile::TempDir, Archive, keil_archive::ImportReport) {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let sources: Vec<ImportSource> = files.iter().cloned().map(ImportSource::Path).collect();
    let options = ImportOptions {
        outcomes: true,
        ..ImportOptions::default()
    };
    let report = archive.import(&sources, &options, &mut |_| {}).unwrap();
    (dir, archive, report)
}

#[test]
fn fox_komi_is_stored_as_meant_with_a_warning() {
    let Some(files) = files_with("KM[750]", 60) else {
        return;
    };
    assert_eq!(files.len(), 60);
    let (_dir, archive, report) = import(&files);
    assert!(report.counts.imported >= 50, "{:?}", report.counts);
    for o in &report.outcomes {
        if let Checked::Verdict(v) = &o.checked {
            assert!(
                v.warnings.iter().any(|w| w.code() == "komi_rescaled"),
                "{:?}",
                v.warnings
            );
        }
    }
    let games = all_games(&archive, &GameFilter::default());
    assert_eq!(games.len() as u64, report.counts.imported);
    for g in &games {
        assert_eq!(g.komi, HalfPoints(15), "game {}", g.id);
        // The record keeps KM as written.
        let record = archive.games().get(g.id).unwrap().unwrap().record;
        assert!(record.contains("KM[750]"), "game {}", g.id);
    }
}

#[test]
fn ranks_are_read_ordered_and_filtered() {
    let Some(mut files) = files_with("R[9段]", 30) else {
        return;
    };
    files.extend(files_with("R[P9]", 30).unwrap());
    files.extend(files_with("R[P1]", 20).unwrap());
    let (_dir, archive, report) = import(&files);
    assert!(report.counts.imported >= 60, "{:?}", report.counts);
    let games = all_games(&archive, &GameFilter::default());
    let mut seen = std::collections::BTreeSet::new();
    for g in &games {
        for (rank, text) in [
            (g.black_rank, &g.black_rank_text),
            (g.white_rank, &g.white_rank_text),
        ] {
            let expected = text.as_deref().and_then(Rank::parse);
            assert_eq!(rank, expected, "game {}: {text:?}", g.id);
            if let (Some(r), Some(t)) = (rank, text) {
                seen.insert((t.clone(), r.to_string()));
            }
        }
    }
    for pair in [("9段", "9d"), ("P9", "9p"), ("P1", "1p")] {
        assert!(
            seen.contains(&(pair.0.to_string(), pair.1.to_string())),
            "{pair:?} not among {seen:?}"
        );
    }
    // The storage's filter agrees with the definition, and filters.
    for (min, max) in [
        (Some("9p"), None),
        (Some("9d"), Some("9d")),
        (Some("1p"), Some("5p")),
        (None, Some("9d")),
    ] {
        let filter = GameFilter {
            min_rank: min.map(|r| r.parse().unwrap()),
            max_rank: max.map(|r| r.parse().unwrap()),
            ..GameFilter::default()
        };
        let got: Vec<_> = all_games(&archive, &filter).iter().map(|g| g.id).collect();
        let want: Vec<_> = games
            .iter()
            .filter(|g| filter.matches(g))
            .map(|g| g.id)
            .collect();
        assert_eq!(got, want, "{min:?}..{max:?}");
        assert!(got.len() < games.len(), "{min:?}..{max:?} filtered nothing");
        if min == Some("9p") {
            assert!(!got.is_empty());
        }
    }
}

#[test]
fn an_archive_of_schema_7_is_upgraded_in_place() {
    if !common::embedded_only("an_archive_of_schema_7_is_upgraded_in_place") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fox = "(;GM[1]FF[4]SZ[19]KM[750]RU[Chinese]PB[Ke Jie]BR[P9段]PW[Gu Li]WR[9段]DT[2019-12-14];B[pd];W[dp])";
    {
        let archive = Archive::open(common::at(dir.path())).unwrap();
        let source = ImportSource::Bytes {
            name: "fox.sgf".into(),
            bytes: fox.as_bytes().to_vec(),
        };
        archive
            .import(&[source], &ImportOptions::default(), &mut |_| {})
            .unwrap();
    }
    // Back to what schema 7 stored: komi as written, no rank columns.
    {
        let db = rusqlite::Connection::open(dir.path().join(SQLITE_FILE)).unwrap();
        db.execute_batch(common::UNDO_SCHEMA_9).unwrap();
        db.execute_batch(
            "UPDATE games SET komi = 1500;
             ALTER TABLE games DROP COLUMN black_rank_ord;
             ALTER TABLE games DROP COLUMN white_rank_ord;
             PRAGMA user_version = 7;",
        )
        .unwrap();
    }
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let g = &all_games(&archive, &GameFilter::default())[0];
    assert_eq!(g.komi, HalfPoints(15));
    assert_eq!(g.black_rank, Some(Rank::Pro(9)));
    assert_eq!(g.white_rank, Some(Rank::Dan(9)));
    assert_eq!(g.black_rank_text.as_deref(), Some("P9段"));
}

#[test]
fn text_search_finds_words_of_several_fields_and_reads_any_input() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let games = "(;GM[1]FF[4]SZ[19]PB[Lee Sedol]PW[AlphaGo]EV[Google DeepMind Challenge Match]RO[4]PC[Seoul]DT[2016-03-13]RE[B+R];B[pd];W[dp])\
                 (;GM[1]FF[4]SZ[19]PB[Ke Jie]PW[AlphaGo Master]EV[Future of Go Summit]PC[Wuzhen]DT[2017-05-23]RE[W+0.5];B[pd];W[dd])\
                 (;GM[1]FF[4]SZ[19]PB[Gu Li]PW[Lee Sedol]BT[China]WT[Korea]EV[Jubango]DT[2014-01-26]RE[W+R];B[pd];W[dp])";
    let source = ImportSource::Bytes {
        name: "famous.sgf".into(),
        bytes: games.as_bytes().to_vec(),
    };
    archive
        .import(&[source], &ImportOptions::default(), &mut |_| {})
        .unwrap();
    let found = |q: &str| -> Vec<String> {
        let mut events: Vec<String> = archive
            .search_text(q, 100)
            .unwrap_or_else(|e| panic!("{q:?}: {e}"))
            .into_iter()
            .map(|h| h.game.event.unwrap())
            .collect();
        events.sort();
        events
    };
    // Words of two fields (players and event), each in any field.
    assert_eq!(
        found("lee sedol alphago"),
        ["Google DeepMind Challenge Match"]
    );
    assert_eq!(
        found("Lee Sedol"),
        ["Google DeepMind Challenge Match", "Jubango"]
    );
    assert_eq!(found("alphago wuzhen"), ["Future of Go Summit"]);
    assert_eq!(found("korea jubango"), ["Jubango"]);
    assert_eq!(found("player:seoul"), Vec::<String>::new());
    assert_eq!(found("player:\"ke jie\""), ["Future of Go Summit"]);
    assert_eq!(
        found("alphago -master"),
        ["Google DeepMind Challenge Match"]
    );
    // Any input is read: quotes, brackets, operators are words or dropped.
    for q in [
        "\"lee sedol",
        "((alphago)",
        "AND OR NOT",
        "lee:sedol:alphago",
        "O'Brien",
        "*~^",
    ] {
        archive
            .search_text(q, 10)
            .unwrap_or_else(|e| panic!("{q:?}: {e}"));
    }
    assert_eq!(
        found("(lee) [sedol] alphago!"),
        ["Google DeepMind Challenge Match"]
    );
}

#[test]
fn a_text_index_of_an_older_schema_is_made_anew_when_opened() {
    let dir = tempfile::tempdir().unwrap();
    {
        let archive = Archive::open(common::at(dir.path())).unwrap();
        let source = ImportSource::Bytes {
            name: "a.sgf".into(),
            bytes: b"(;GM[1]SZ[9]PB[Lee Sedol]PW[AlphaGo]EV[Match];B[ee])".to_vec(),
        };
        archive
            .import(&[source], &ImportOptions::default(), &mut |_| {})
            .unwrap();
    }
    // An index of another schema in its place (as before the players
    // field), holding nothing.
    let text = dir.path().join(keil_archive::TANTIVY_DIR);
    std::fs::remove_dir_all(&text).unwrap();
    std::fs::create_dir_all(&text).unwrap();
    let mut b = tantivy::schema::Schema::builder();
    b.add_u64_field("game_id", tantivy::schema::INDEXED);
    tantivy::Index::create_in_dir(&text, b.build()).unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let hits = archive.search_text("lee alphago", 10).unwrap();
    assert_eq!(hits.len(), 1);
}
