//! What an import refuses whole or never stores, and how it reports a
//! large refusal and a storage failure: empty game trees (`empty_record`),
//! binary sources (`not_sgf`), the listed cap, a full disk (whole batches
//! only), and the uploader recorded with the import.

mod common;

use common::{corpus, storage};
use keil_archive::{Archive, EMPTY_RECORD, Error, Fate, ImportOptions, ImportSource, NOT_SGF};

fn bytes(name: &str, b: impl Into<Vec<u8>>) -> ImportSource {
    ImportSource::Bytes {
        name: name.into(),
        bytes: b.into(),
    }
}

/// `n` pseudo-random bytes (a fixed xorshift): what a stranger may post.
fn random_bytes(n: usize, mut seed: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect()
}

/// The start of a zip file: a local file header holding `a.sgf`, whose
/// stored (uncompressed) content is a game tree.
fn zip_of_a_game() -> Vec<u8> {
    let content = b"(;GM[1]SZ[19]PB[Ann];B[pd])";
    let mut z = Vec::new();
    z.extend_from_slice(b"PK\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00");
    z.extend_from_slice(&[0; 4]); // crc (not checked by the reader)
    z.extend_from_slice(&(content.len() as u32).to_le_bytes());
    z.extend_from_slice(&(content.len() as u32).to_le_bytes());
    z.extend_from_slice(&5u16.to_le_bytes());
    z.extend_from_slice(&0u16.to_le_bytes());
    z.extend_from_slice(b"a.sgf");
    z.extend_from_slice(content);
    z
}

fn options() -> ImportOptions {
    ImportOptions {
        outcomes: true,
        ..ImportOptions::default()
    }
}

#[test]
fn empty_game_trees_are_refused_and_games_with_anything_are_stored() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let empty = ["(;)", "(;GM[1]SZ[19])", "(;;;)", "(;GM[Keil]SZ[7]KM[0])"];
    let kept = [
        "(;GM[1]SZ[19]PB[Ann])",
        "(;GM[1]SZ[19]AB[dd][pp])",
        "(;GM[1]SZ[19]C[a position to study])",
        "(;GM[1]SZ[19];B[pd])",
    ];
    let text: String = empty.iter().chain(&kept).copied().collect();
    let report = archive
        .import(&[bytes("mixed.sgf", text)], &options(), &mut |_| {})
        .unwrap();
    let fates: Vec<String> = report
        .outcomes
        .iter()
        .map(|o| match &o.fate {
            Fate::Invalid(p) => p.reason.clone(),
            Fate::Stored { .. } => "stored".into(),
            Fate::Duplicate { .. } => "duplicate".into(),
            Fate::Merged { .. } => "merged".into(),
        })
        .collect();
    assert_eq!(
        fates,
        [
            EMPTY_RECORD,
            EMPTY_RECORD,
            EMPTY_RECORD,
            EMPTY_RECORD,
            "stored",
            "stored",
            "stored",
            "stored"
        ]
    );
    let p = &report.invalid[1];
    assert!(p.message.contains("no move, no setup"), "{}", p.message);
    assert_eq!(p.line, Some(1));
    assert_eq!(report.reasons[EMPTY_RECORD], 4);
    assert_eq!(archive.stats().unwrap().games, 4);
}

#[test]
fn binary_sources_are_refused_whole_and_the_other_files_import() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path().join("db"))).unwrap();
    let random = random_bytes(200_000, 7);
    // The reader alone found game trees in these bytes (`(;` by chance)
    // and stored them as empty Go games.
    let found = keil_sgf::count_trees(&keil_sgf::decode(&random).text);
    let zip = dir.path().join("games.zip");
    std::fs::write(&zip, zip_of_a_game()).unwrap();
    let noise = dir.path().join("noise.sgf");
    std::fs::write(&noise, &random).unwrap();
    let good = dir.path().join("good.sgf");
    std::fs::write(
        &good,
        "(;GM[1]SZ[19]PB[Ann];B[pd])(;GM[1]SZ[19]PB[Bo];B[dd])",
    )
    .unwrap();
    let sources = [
        ImportSource::Path(zip.clone()),
        ImportSource::Path(noise.clone()),
        ImportSource::Path(good),
    ];
    let report = archive.import(&sources, &options(), &mut |_| {}).unwrap();
    assert_eq!(report.counts.imported, 2, "{:?}", report.invalid);
    assert_eq!(report.counts.invalid, 2);
    // The zip is read as an archive: this one (a member's header and no
    // central directory, as a cut download ends) cannot be.
    assert_eq!(report.reasons[keil_container::BAD_CONTAINER], 1);
    assert_eq!(report.invalid[0].source, zip.display().to_string());
    assert!(report.invalid[0].message.contains("zip"));
    assert_eq!(report.reasons[NOT_SGF], 1);
    let p = &report.invalid[1];
    assert_eq!(p.reason, NOT_SGF);
    assert_eq!(p.source, noise.display().to_string());
    assert!(
        p.message.starts_with("not an SGF collection: binary data"),
        "{}",
        p.message
    );
    assert_eq!(archive.stats().unwrap().games, 2);
    // The random bytes held game trees by chance (so the refusal is the
    // binary check's, not a lack of trees).
    assert!(
        found > 0,
        "the random bytes hold no `(;`: pick another seed"
    );
}

#[test]
fn the_report_lists_a_bounded_number_and_counts_all() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let (games, _) = corpus(130, 5, 3);
    let mut body = "(;)".repeat(250);
    body.push_str(&games);
    let opts = ImportOptions {
        listed: Some(100),
        batch_size: 64,
        ..options()
    };
    let report = archive
        .import(&[bytes("big", body.clone())], &opts, &mut |_| {})
        .unwrap();
    assert_eq!(report.counts.games_read, 380);
    assert_eq!(report.counts.invalid, 250);
    assert_eq!(report.reasons[EMPTY_RECORD], 250);
    assert_eq!(report.invalid.len(), 100);
    let count = |f: fn(&Fate) -> bool| report.outcomes.iter().filter(|o| f(&o.fate)).count();
    assert_eq!(count(|f| matches!(f, Fate::Invalid(_))), 100);
    assert_eq!(count(|f| matches!(f, Fate::Stored { .. })), 100);
    // The first ones, in reading order.
    assert_eq!(report.outcomes[0].index(), 0);
    assert_eq!(report.outcomes[100].index(), 250);
    // Every refusal is still in the import log.
    let logged = common::scalar(archive.dir(), "SELECT COUNT(*) FROM import_problems");
    assert_eq!(logged, 250);
    // Again: duplicates are capped the same way.
    let again = archive
        .import(&[bytes("big", body)], &opts, &mut |_| {})
        .unwrap();
    assert_eq!(again.counts.duplicates, 130);
    assert_eq!(again.outcomes.len(), 200);
}

#[test]
fn a_full_disk_stops_the_import_after_whole_batches() {
    if !common::embedded_only("a_full_disk_stops_the_import_after_whole_batches") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let (games, _) = corpus(600, 7, 11);
    // Room for a batch or two (a batch of 50 of these Keil games, side 7,
    // derived blocks take about 60 pages of 4 KiB).
    let cap = archive.cap_pages_for_tests(100).unwrap();
    assert!(cap > 100);
    let opts = ImportOptions {
        batch_size: 50,
        ..ImportOptions::default()
    };
    let err = archive
        .import(&[bytes("full", games)], &opts, &mut |_| {})
        .unwrap_err();
    assert!(err.is_out_of_space(), "{err}");
    let Error::Stopped { progress, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(progress.imported > 0, "the cap let no batch through: {err}");
    assert!(progress.imported < 600, "the cap stopped nothing: {err}");
    assert_eq!(progress.imported % 50, 0, "whole batches only: {err}");
    assert_eq!(archive.stats().unwrap().games, progress.imported);
    // Positions and players of the stored games only: nothing half-written.
    let db = storage(&archive);
    let linked: i64 = db
        .query_row(
            "SELECT COUNT(DISTINCT game_id) FROM game_players",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(linked as u64, progress.imported);
}

#[test]
fn the_uploader_is_recorded_with_the_import() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let (games, _) = corpus(2, 5, 1);
    let (local, _) = corpus(1, 5, 2);
    let opts = ImportOptions {
        uploader: Some("alice".into()),
        ..options()
    };
    let report = archive
        .import(&[bytes("up", games)], &opts, &mut |_| {})
        .unwrap();
    let Fate::Stored { id, .. } = report.outcomes[0].fate else {
        panic!()
    };
    assert_eq!(
        archive.games().uploader(id).unwrap().as_deref(),
        Some("alice")
    );
    let report = archive
        .import(&[bytes("local", local)], &options(), &mut |_| {})
        .unwrap();
    let Fate::Stored { id, .. } = report.outcomes[0].fate else {
        panic!()
    };
    assert_eq!(archive.games().uploader(id).unwrap(), None);
}
