//! Refused records are kept: the game tree's text as it came,
//! with its verdict, once per record; listed, read, counted, exported,
//! removed; never in the indexes; and made games by a reindex when they
//! are valid under today's rules.

mod common;

use keil_archive::{Archive, GameKind, ImportOptions, RefusedFilter, RefusedId, RefusedOrder};

/// White retakes a simple ko at once (Japanese rules): refused at ply 10.
const KO: &str = "(;GM[1]FF[4]SZ[19]RU[Japanese]PB[Ko Black]PW[Ko White];B[ba];W[ca];B[ab];W[bb];B[bc];W[db];B[pp];W[cc];B[cb];W[bb])";
/// White plays into Black's eye in the corner: self-capture at ply 4.
const SUICIDE: &str = "(;GM[1]FF[4]SZ[19]RU[Japanese]PB[Eye Black];B[ba];W[pp];B[ab];W[aa])";
/// A 21×21 board.
const BIG: &str = "(;GM[1]FF[4]SZ[21]PB[Big Board];B[aa])";
/// Black moves twice.
const TWICE: &str = "(;GM[1]FF[4]SZ[19]PB[Twice Black];B[pd];B[dp])";
/// A legal game.
const LEGAL: &str = "(;GM[1]FF[4]SZ[19]PB[Legal Black]PW[Legal White];B[pd];W[dp])";

fn import(archive: &Archive, name: &str, text: &str) -> keil_archive::ImportReport {
    archive
        .import(
            &[common::bytes(name, text)],
            &ImportOptions::default(),
            &mut |_| {},
        )
        .unwrap()
}

fn all(archive: &Archive) -> Vec<keil_archive::RefusedSummary> {
    archive
        .refused_list(
            &RefusedFilter {
                order: RefusedOrder::Id,
                ..RefusedFilter::default()
            },
            1000,
        )
        .unwrap()
        .items
}

#[test]
fn refused_records_are_kept_as_they_came_with_their_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let text = format!("{KO}\n{SUICIDE}\n{BIG}\n{TWICE}\n{LEGAL}\n");
    let report = import(&archive, "mixed.sgf", &text);
    assert_eq!(report.counts.imported, 1);
    assert_eq!(report.counts.invalid, 4);

    let kept = all(&archive);
    let reasons: Vec<(&str, usize, Option<u32>)> = kept
        .iter()
        .map(|r| (r.reason.as_str(), r.index, r.ply))
        .collect();
    assert_eq!(reasons.len(), 4, "{reasons:?}");
    assert_eq!(reasons[0].1, 0);
    assert_eq!(reasons[0].2, Some(10), "{reasons:?}");
    assert_eq!(reasons[1], ("self_capture", 1, Some(4)));
    assert_eq!(reasons[2].1, 2);
    assert_eq!(reasons[3], ("wrong_player", 3, Some(2)));
    assert_eq!(kept[0].mv.as_deref(), Some("W[bb]"));
    assert_eq!(kept[0].kind.as_deref(), Some("go"));
    assert_eq!(kept[2].size, Some(21));
    assert_eq!(kept[0].source, "mixed.sgf");
    assert!(kept[0].line.is_some() && kept[0].column.is_some());

    // Each record as it came, byte for byte.
    for (summary, want) in kept.iter().zip([KO, SUICIDE, BIG, TWICE]) {
        let r = archive.refused_record(summary.id).unwrap().unwrap();
        assert_eq!(r.record, want);
        assert_eq!(r.summary, *summary);
    }

    // Counted apart from the problem lines; never in the text index.
    let stats = archive.stats().unwrap();
    assert_eq!(stats.refused_records, 4);
    assert_eq!(stats.refused, 4);
    assert_eq!(stats.games, 1);
    assert_eq!(stats.text_documents, 1);
    let hits = archive.search_text("Twice", 10).unwrap();
    assert!(hits.is_empty(), "a refused record is not in the text index");
}

#[test]
fn the_same_refused_record_is_kept_once() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(&archive, "a.sgf", TWICE);
    // Twice in one import and once more in another.
    let again = import(&archive, "b.sgf", &format!("{TWICE}{TWICE}"));
    assert_eq!(again.counts.invalid, 2);
    let stats = archive.stats().unwrap();
    assert_eq!(stats.refused_records, 1, "one copy of the record");
    assert_eq!(stats.refused, 3, "every refusal logged");
    assert_eq!(all(&archive)[0].source, "a.sgf");
}

#[test]
fn lists_filter_and_page_by_keyset() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let first = import(&archive, "one.sgf", &format!("{KO}{SUICIDE}"));
    import(&archive, "two.sgf", &format!("{BIG}{TWICE}"));
    let list = |f: RefusedFilter, limit| archive.refused_list(&f, limit).unwrap();

    let by_reason = list(
        RefusedFilter {
            reason: Some("wrong_player".into()),
            ..RefusedFilter::default()
        },
        10,
    );
    assert_eq!(by_reason.items.len(), 1);
    assert_eq!(by_reason.items[0].source, "two.sgf");
    let by_import = list(
        RefusedFilter {
            import: Some(first.import_id),
            ..RefusedFilter::default()
        },
        10,
    );
    assert_eq!(by_import.items.len(), 2);
    assert!(
        by_import
            .items
            .iter()
            .all(|r| r.import_id == first.import_id)
    );
    let big = list(
        RefusedFilter {
            size: Some(21),
            kind: Some(GameKind::Go),
            ..RefusedFilter::default()
        },
        10,
    );
    assert_eq!(big.items.len(), 1);
    assert_eq!(big.items[0].size, Some(21));
    let keil = list(
        RefusedFilter {
            kind: Some(GameKind::Keil),
            ..RefusedFilter::default()
        },
        10,
    );
    assert!(keil.items.is_empty());

    // Newest first, two a page: every record once.
    let mut seen: Vec<RefusedId> = Vec::new();
    let mut after = None;
    loop {
        let page = list(
            RefusedFilter {
                after,
                ..RefusedFilter::default()
            },
            2,
        );
        seen.extend(page.items.iter().map(|r| r.id));
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(seen.len(), 4);
    assert!(seen.windows(2).all(|w| w[0] > w[1]), "{seen:?}");
}

#[test]
fn a_tree_that_does_not_read_is_kept_and_a_removed_record_goes() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let broken = "(;GM[1]SZ[19]PB[Ann];B[pd];W[zz!])";
    let report = import(&archive, "broken.sgf", broken);
    assert_eq!(report.counts.invalid, 1);
    let kept = all(&archive);
    assert_eq!(kept.len(), 1);
    let r = archive.refused_record(kept[0].id).unwrap().unwrap();
    assert_eq!(r.record, broken);

    let mut out = Vec::new();
    let n = archive
        .export_refused(&mut |_, text| {
            out.push(text.to_string());
            Ok(true)
        })
        .unwrap();
    assert_eq!((n, out), (1, vec![broken.to_string()]));

    assert!(archive.remove_refused(kept[0].id).unwrap());
    assert!(!archive.remove_refused(kept[0].id).unwrap());
    assert!(archive.refused_record(kept[0].id).unwrap().is_none());
    let stats = archive.stats().unwrap();
    assert_eq!(stats.refused_records, 0);
    assert_eq!(stats.refused, 1, "the refusal stays in the log");
}

#[test]
fn uploads_that_do_not_keep_refused_records_keep_only_the_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let options = ImportOptions {
        keep_refused: false,
        ..ImportOptions::default()
    };
    archive
        .import(&[common::bytes("x.sgf", TWICE)], &options, &mut |_| {})
        .unwrap();
    let stats = archive.stats().unwrap();
    assert_eq!((stats.refused, stats.refused_records), (1, 0));
    assert!(all(&archive).is_empty());
}

#[test]
fn reindex_makes_a_game_of_a_record_valid_under_todays_rules() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    import(&archive, "old.sgf", &format!("{TWICE}{SUICIDE}"));
    let kept = all(&archive);
    assert_eq!(kept.len(), 2);
    // Rules that refused the first record then accept it today: its kept
    // text is a legal game now.
    let compressed = zstd::bulk::compress(LEGAL.as_bytes(), 3).unwrap();
    let hex: String = compressed.iter().map(|b| format!("{b:02x}")).collect();
    common::query(
        dir.path(),
        &format!(
            "UPDATE import_problems SET record = {} WHERE id = {}",
            common::bytes_literal(&hex),
            kept[0].id
        ),
    );
    let report = archive.reindex().unwrap();
    assert_eq!(report.refused_checked, 2);
    assert_eq!(report.refused_stored, 1);
    let stats = archive.stats().unwrap();
    assert_eq!(stats.games, 1);
    assert_eq!(stats.refused_records, 1);
    assert_eq!(stats.text_documents, 1);
    assert_eq!(all(&archive)[0].reason, "self_capture");
    let games = archive
        .games()
        .list(&keil_archive::GameFilter::default(), &Default::default())
        .unwrap()
        .games;
    assert_eq!(games[0].black.as_deref(), Some("Legal Black"));
    // A second reindex has nothing more to store.
    let again = archive.reindex().unwrap();
    assert_eq!((again.refused_checked, again.refused_stored), (1, 0));
}
