//! Real Go games (the shared sgf-real data, read only): a subset of the
//! 19×19 computer-Go collection imports, and every stored game's moves
//! replay to the validator's own final position.

mod common;

use keil_archive::{Archive, GameFilter, GameKind, GameStatus, ImportOptions, ImportSource, Page};

#[test]
fn real_go_games_import_and_replay_to_the_validators_position() {
    let Some(files) = common::real_sgf_files() else {
        return;
    };
    // 50 files spread over the collection.
    let step = (files.len() / 50).max(1);
    let subset: Vec<ImportSource> = files
        .iter()
        .step_by(step)
        .take(50)
        .map(|p| ImportSource::Path(p.clone()))
        .collect();
    assert_eq!(subset.len(), 50);
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let report = archive
        .import(&subset, &ImportOptions::default(), &mut |_| {})
        .unwrap();
    let c = &report.counts;
    assert_eq!(c.games_read, 50);
    assert_eq!(c.imported + c.duplicates + c.invalid, c.games_read);
    assert!(c.imported >= 45, "{c:?}: {:?}", report.invalid);
    // Every refusal has a reason and a place.
    assert!(
        report
            .invalid
            .iter()
            .all(|p| !p.reason.is_empty() && p.line.is_some())
    );

    let list = archive
        .games()
        .list(
            &GameFilter {
                kind: Some(GameKind::Go),
                size: Some(19),
                ..GameFilter::default()
            },
            &Page {
                limit: 1000,
                ..Page::default()
            },
        )
        .unwrap();
    assert_eq!(list.games.len() as u64, c.imported);
    let mut statuses = std::collections::BTreeSet::new();
    for s in &list.games {
        statuses.insert(s.status);
        let game = archive.games().get(s.id).unwrap().unwrap();
        // The stored record, validated again: the verdict is the stored
        // status, and the stored moves replay to the same final position.
        let record = keil_record::read_records(game.record.as_bytes())
            .pop()
            .unwrap()
            .unwrap();
        let validation = keil_record::validate(&record);
        assert_eq!(validation.verdict.status.code(), s.status.code());
        let replay = validation.replay.unwrap();
        assert_eq!(game.moves.moves.len(), replay.plies.len(), "game {}", s.id);
        assert_eq!(s.plies as usize, replay.plies.len());
        let end = game.moves.game_at(game.moves.moves.len()).unwrap();
        assert_eq!(end.position(), replay.final_position, "game {}", s.id);
        assert_eq!(game.moves.start().position(), replay.start, "game {}", s.id);
    }
    assert!(statuses.contains(&GameStatus::Resigned) || statuses.contains(&GameStatus::Scored));
}

/// The real collection holds games published twice (a tournament's folder
/// and a player's folder, `舞者` in one and `Dancer` in the other): each
/// merge is a record whose main line is the stored game's, move for move
/// or under a symmetry (checked on an archive that keeps both records).
#[test]
fn real_games_published_twice_are_merged_by_signature() {
    let Some(files) = common::real_sgf_files() else {
        return;
    };
    let sources: Vec<ImportSource> = files.into_iter().map(ImportSource::Path).collect();
    let open = |duplicates| {
        let dir = tempfile::tempdir().unwrap();
        let archive = Archive::open(common::at(dir.path())).unwrap();
        let options = ImportOptions {
            outcomes: true,
            duplicates,
            ..ImportOptions::default()
        };
        let report = archive.import(&sources, &options, &mut |_| {}).unwrap();
        (dir, archive, report)
    };
    let (_d1, _merging, merged) = open(keil_archive::Duplicates::Signature);
    let (_d2, both, kept) = open(keil_archive::Duplicates::Exact);
    assert!(merged.counts.merged > 0, "{:?}", merged.counts);
    assert_eq!(
        merged.counts.imported + merged.counts.merged,
        kept.counts.imported
    );
    // Each tree's id in the archive that keeps both, by (source, index).
    let id_in_both: std::collections::HashMap<(String, usize), keil_archive::GameId> = kept
        .outcomes
        .iter()
        .filter_map(|o| match &o.fate {
            keil_archive::Fate::Stored { source, index, id } => {
                Some(((source.clone(), *index), *id))
            }
            _ => None,
        })
        .collect();
    // And which tree became each stored game of the merging archive.
    let stored_from: std::collections::HashMap<keil_archive::GameId, (String, usize)> = merged
        .outcomes
        .iter()
        .filter_map(|o| match &o.fate {
            keil_archive::Fate::Stored { source, index, id } => {
                Some((*id, (source.clone(), *index)))
            }
            _ => None,
        })
        .collect();
    // The event filter finds a part of the name: "uec" finds the UEC Cup.
    let uec = GameFilter {
        event: Some("uec".into()),
        ..GameFilter::default()
    };
    let mut want = 0;
    let mut page = Page {
        limit: 1000,
        ..Page::default()
    };
    loop {
        let list = both.games().list(&GameFilter::default(), &page).unwrap();
        want += list
            .games
            .iter()
            .filter(|g| {
                g.event
                    .as_deref()
                    .is_some_and(|e| e.to_lowercase().contains("uec"))
            })
            .count() as u64;
        match list.next {
            Some(c) => page.after = Some(c),
            None => break,
        }
    }
    assert!(want > 0, "the collection has UEC Cup games");
    assert_eq!(both.games().count(&uec).unwrap(), want);
    // Each merge is proven by the moves: the same line, or its image under
    // one of the board's symmetries (the other kinds are checked on
    // records written in tests/merges.rs).
    for m in &merged.merged {
        let other = both.games().moves(id_in_both[&(m.source.clone(), m.index)]);
        let first = both.games().moves(id_in_both[&stored_from[&m.id]]);
        let (other, first) = (other.unwrap().unwrap(), first.unwrap().unwrap());
        assert_eq!(other.board, first.board, "{m:?}");
        let image = |t: u8| -> Vec<keil_rules::Move> {
            other
                .moves
                .iter()
                .map(|&mv| match mv {
                    keil_rules::Move::Place(p) => {
                        keil_rules::Move::Place(other.board.transform(p, t))
                    }
                    mv => mv,
                })
                .collect()
        };
        match m.kind {
            keil_archive::MergeKind::Identical => assert_eq!(other.moves, first.moves, "{m:?}"),
            keil_archive::MergeKind::Symmetric => assert!(
                (1..other.board.symmetry_count()).any(|t| image(t) == first.moves),
                "{m:?}"
            ),
            _ => {}
        }
    }
}
