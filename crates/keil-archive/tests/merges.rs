//! A merge is a proof, not a guess (go-rules.md, "Metadata"):
//! records of one game merge whatever their orientation, length or move
//! order; a replay by other players on another day, and games that share
//! the Dyer points but not the moves, stay games of their own; archives
//! merged the old way (by signature alone) are repaired when they open.

mod common;

use keil_archive::{
    Archive, Duplicates, Fate, GameId, ImportOptions, ImportSource, MergeKind, PositionQuery,
};

/// The main line of a generated 19×19 Go game: (colour, SGF point).
fn line(seed: u64) -> Vec<(char, String)> {
    let record = &common::go_records(1, seed)[0];
    let mut out = Vec::new();
    let bytes = record.as_bytes();
    for i in 1..bytes.len().saturating_sub(1) {
        if bytes[i] == b'['
            && (bytes[i - 1] == b'B' || bytes[i - 1] == b'W')
            && (i < 2 || bytes[i - 2] == b';')
        {
            let end = i + record[i..].find(']').unwrap();
            out.push((bytes[i - 1] as char, record[i + 1..end].to_string()));
        }
    }
    assert!(out.len() >= 120, "a long game: {} moves", out.len());
    out
}

/// A record of `moves` with these game information properties.
fn record(moves: &[(char, String)], black: &str, white: &str, date: &str) -> String {
    let mut s = format!("(;GM[1]FF[4]SZ[19]RU[Japanese]KM[6.5]PB[{black}]PW[{white}]");
    if !date.is_empty() {
        s.push_str(&format!("DT[{date}]"));
    }
    for (c, p) in moves {
        s.push_str(&format!(";{c}[{p}]"));
    }
    s.push_str(")\n");
    s
}

/// `moves` turned a quarter (column, row) → (18 - row, column).
fn rotated(moves: &[(char, String)]) -> Vec<(char, String)> {
    moves
        .iter()
        .map(|(c, p)| {
            if p.is_empty() {
                return (*c, p.clone());
            }
            let b = p.as_bytes();
            let (col, row) = (b[0] - b'a', b[1] - b'a');
            let out = [b'a' + (18 - row), b'a' + col];
            (*c, String::from_utf8(out.to_vec()).unwrap())
        })
        .collect()
}

fn open(dir: &std::path::Path) -> Archive {
    Archive::open(common::at(dir)).unwrap()
}

fn import(archive: &Archive, name: &str, text: &str) -> keil_archive::ImportReport {
    let options = ImportOptions {
        outcomes: true,
        ..ImportOptions::default()
    };
    archive
        .import(
            &[ImportSource::Bytes {
                name: name.into(),
                bytes: text.as_bytes().to_vec(),
            }],
            &options,
            &mut |_| {},
        )
        .unwrap()
}

/// The fate of the report's only record.
fn fate(report: &keil_archive::ImportReport) -> &Fate {
    assert_eq!(report.outcomes.len(), 1, "{:?}", report.outcomes);
    &report.outcomes[0].fate
}

fn stored(report: &keil_archive::ImportReport) -> GameId {
    match fate(report) {
        Fate::Stored { id, .. } => *id,
        other => panic!("not stored: {other:?}"),
    }
}

fn merged(report: &keil_archive::ImportReport) -> (GameId, MergeKind) {
    match fate(report) {
        Fate::Merged { id, kind, .. } => (*id, *kind),
        other => panic!("not merged: {other:?}"),
    }
}

/// The games whose position after `ply` moves of `moves` is the board the
/// search finds, by id.
fn found_at(archive: &Archive, moves: &[(char, String)], ply: usize) -> Vec<GameId> {
    let text = record(&moves[..ply], "q", "r", "");
    let game = keil_record::read_records(text.as_bytes())
        .pop()
        .unwrap()
        .unwrap();
    let replay = keil_record::validate(&game).replay.unwrap();
    let query = PositionQuery {
        symmetry: true,
        limit: 100,
        ..PositionQuery::new(replay.final_position)
    };
    let mut ids: Vec<GameId> = archive
        .positions()
        .search(&query)
        .unwrap()
        .games
        .iter()
        .map(|g| g.game_id)
        .collect();
    ids.sort();
    ids
}

#[test]
fn records_of_one_game_merge_whatever_their_orientation_length_or_order() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open(dir.path());
    let moves = line(11);
    let game = stored(&import(
        &archive,
        "plain.sgf",
        &record(&moves, "Lee Sedol", "AlphaGo", "2016-03-09"),
    ));
    // The same game with other spellings of the same date: identical.
    let other = import(
        &archive,
        "other.sgf",
        &record(&moves, "LEE Sedol", "Alpha Go", "2016-03-09,10"),
    );
    assert_eq!(merged(&other), (game, MergeKind::Identical));
    // Drawn a quarter turn round, with commentary: symmetric.
    let turned = import(
        &archive,
        "commented.sgf",
        &record(&rotated(&moves), "Lee Sedol", "AlphaGo", "2016"),
    );
    assert_eq!(merged(&turned), (game, MergeKind::Symmetric));
    // Moves 2 and 4 (White's) in the other order: transposed.
    let mut swapped = moves.clone();
    swapped.swap(1, 3);
    let t = import(
        &archive,
        "swapped.sgf",
        &record(&swapped, "Lee Sedol", "AlphaGo", ""),
    );
    assert_eq!(merged(&t), (game, MergeKind::Transposed));
    // Cut short: a prefix, the longer kept as the game.
    let short = import(
        &archive,
        "short.sgf",
        &record(&moves[..100], "Lee Sedol", "AlphaGo", "2016-03-09"),
    );
    assert_eq!(merged(&short), (game, MergeKind::Prefix));
    // Three moves near the end written as passes by the same players on
    // the same day: one game with a discrepancy.
    let mut wrong = moves.clone();
    // Three of the last placed stones (a generated game ends with passes).
    let mut changed: Vec<usize> = (0..wrong.len())
        .rev()
        .filter(|&i| !wrong[i].1.is_empty())
        .step_by(2)
        .take(3)
        .collect();
    changed.sort_unstable();
    for &i in &changed {
        wrong[i].1.clear();
    }
    let d = import(
        &archive,
        "typo.sgf",
        &record(&wrong, "Lee Sedol", "AlphaGo", "2016-03-09"),
    );
    assert_eq!(merged(&d), (game, MergeKind::Discrepancy));
    assert_eq!(archive.stats().unwrap().games, 1);
    // Every record stays visible from its game, with where it differs.
    let records = archive.games().records(game).unwrap();
    let kinds: Vec<Option<MergeKind>> = records.iter().map(|r| r.merge_kind).collect();
    assert_eq!(
        kinds,
        [
            None,
            Some(MergeKind::Identical),
            Some(MergeKind::Symmetric),
            Some(MergeKind::Transposed),
            Some(MergeKind::Prefix),
            Some(MergeKind::Discrepancy)
        ]
    );
    assert_eq!(records[0].source.as_deref(), Some("plain.sgf"));
    assert_eq!(records[1].black.as_deref(), Some("LEE Sedol"));
    assert_ne!(records[2].transform, 0);
    let plies: Vec<u32> = changed.iter().map(|&i| i as u32 + 1).collect();
    assert_eq!(records[5].differs, plies);
    let text = archive
        .games()
        .record_text(game, records[2].record)
        .unwrap()
        .unwrap();
    assert!(
        text.contains(&format!(";B[{}]", rotated(&moves)[0].1)),
        "{text}"
    );
}

#[test]
fn a_longer_record_becomes_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open(dir.path());
    let moves = line(12);
    let short = stored(&import(
        &archive,
        "short.sgf",
        &record(&moves[..90], "a", "b", "2017-05-01"),
    ));
    let long = stored(&import(
        &archive,
        "long.sgf",
        &record(&moves, "a", "b", "2017-05-01"),
    ));
    assert!(long > short);
    assert_eq!(archive.stats().unwrap().games, 1);
    assert!(archive.games().get(short).unwrap().is_none());
    let records = archive.games().records(long).unwrap();
    assert_eq!(records.len(), 2);
    assert_eq!(records[1].merge_kind, Some(MergeKind::Prefix));
    assert!(records[1].import_id.is_some());
    // Found at its end by position, once.
    assert_eq!(found_at(&archive, &moves, moves.len()), vec![long]);
    // The short record again is a duplicate of the long game.
    match fate(&import(
        &archive,
        "again.sgf",
        &record(&moves[..90], "a", "b", "2017-05-01"),
    )) {
        Fate::Duplicate { id, .. } => assert_eq!(*id, long),
        other => panic!("{other:?}"),
    }
}

#[test]
fn replays_and_games_that_part_stay_games_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open(dir.path());
    let moves = line(13);
    let shusaku = stored(&import(
        &archive,
        "pro.sgf",
        &record(&moves, "Murase Shuho", "Honinbo Shusaku", "1861-05-01"),
    ));
    // Replayed move for move by two amateurs in 2001: similar, not merged.
    let replay = stored(&import(
        &archive,
        "kgs.sgf",
        &record(&moves, "yanagida", "hayami", "2001-03-02"),
    ));
    let similar = archive.games().similar(shusaku).unwrap();
    assert_eq!(similar.len(), 1);
    assert_eq!(similar[0].game.id, replay);
    assert_eq!(archive.games().similar(replay).unwrap()[0].game.id, shusaku);
    // The same players a week later, the last moves other (the Dyer
    // points the same): another game, not linked.
    let mut parted = moves.clone();
    let n = parted.len();
    for m in &mut parted[n - 12..] {
        m.1.clear();
    }
    let other = stored(&import(
        &archive,
        "week.sgf",
        &record(&parted, "Murase Shuho", "Honinbo Shusaku", "1861-05-08"),
    ));
    assert!(archive.games().similar(other).unwrap().is_empty());
    assert_eq!(archive.stats().unwrap().games, 3);
    // The exact mode keeps every record apart, as before.
    let options = ImportOptions {
        duplicates: Duplicates::Exact,
        ..ImportOptions::default()
    };
    let again = record(&moves, "Murase Shuho", "Honinbo Shusaku", "1861");
    let report = archive
        .import(
            &[ImportSource::Bytes {
                name: "x.sgf".into(),
                bytes: again.into_bytes(),
            }],
            &options,
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(report.counts.imported, 1);
}

/// An archive merged the old way (a record joined a game by its signature
/// alone: here a replay by others on another day, and a game whose Dyer
/// points are another's but whose moves part) is repaired when it opens:
/// both games of each pair are found by position again.
#[test]
fn archives_merged_by_signature_alone_are_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let moves = line(14);
    let mut parted = moves.clone();
    let n = parted.len();
    for m in &mut parted[n - 12..] {
        m.1.clear();
    }
    let (game, replay, other, kept) = {
        let archive = open(dir.path());
        let exact = ImportOptions {
            duplicates: Duplicates::Exact,
            outcomes: true,
            ..ImportOptions::default()
        };
        let text = [
            record(&moves, "Murase Shuho", "Honinbo Shusaku", "1861"),
            record(&moves, "yanagida", "hayami", "2001-03-02"),
            record(&parted, "Murase Shuho", "Honinbo Shusaku", "1862"),
            record(&moves, "Murase Shuho", "Honinbo Shusaku", "1861-05-01"),
        ]
        .concat();
        let report = archive
            .import(
                &[ImportSource::Bytes {
                    name: "old.sgf".into(),
                    bytes: text.into_bytes(),
                }],
                &exact,
                &mut |_| {},
            )
            .unwrap();
        let ids: Vec<GameId> = report
            .outcomes
            .iter()
            .map(|o| match o.fate {
                Fate::Stored { id, .. } => id,
                ref f => panic!("{f:?}"),
            })
            .collect();
        (ids[0], ids[1], ids[2], ids[3])
    };
    // What an import before schema 14 left: the three later records
    // merged into the first game by their signature (unchecked), their
    // games gone without a removal.
    for id in [replay, other, kept] {
        common::query(
            dir.path(),
            &format!(
                "INSERT INTO game_sources (game_id, hash, import_id, source, game_index, record) \
                 SELECT {game}, hash, import_id, 'old.sgf', {}, record FROM games WHERE id = {id}",
                id.get() - 1
            ),
        );
        for sql in [
            format!("DELETE FROM game_players WHERE game_id = {id}"),
            format!("DELETE FROM games WHERE id = {id}"),
        ] {
            common::query(dir.path(), &sql);
        }
    }
    common::query(dir.path(), "UPDATE upgrades SET done_at = NULL");
    common::query(dir.path(), "UPDATE games SET signature = NULL");
    let archive = open(dir.path());
    let repair = *archive.upgraded().expect("the repair ran");
    assert_eq!(repair.checked, 3);
    assert_eq!(repair.proven, 1, "{repair:?}");
    assert_eq!(repair.restored, 2, "{repair:?}");
    assert_eq!(archive.stats().unwrap().games, 3);
    let records = archive.games().records(game).unwrap();
    assert_eq!(records.len(), 2);
    assert_eq!(records[1].merge_kind, Some(MergeKind::Identical));
    // Both games of each pair found by position: the replay at the end,
    // the parted game after its last move.
    let at_end = found_at(&archive, &moves, moves.len());
    assert_eq!(at_end.len(), 2, "{at_end:?}");
    assert!(at_end.contains(&game));
    let parted_at = found_at(&archive, &parted, n - 13);
    assert_eq!(parted_at.len(), 3, "{parted_at:?}");
    // The replay is linked to the game it replays.
    let restored: Vec<GameId> = at_end.into_iter().filter(|&g| g != game).collect();
    assert_eq!(
        archive.games().similar(game).unwrap()[0].game.id,
        restored[0]
    );
    // Done once: the next open does nothing.
    drop(archive);
    assert!(open(dir.path()).upgraded().is_none());
}
