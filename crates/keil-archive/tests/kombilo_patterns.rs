//! Pattern search on the 4,803 real 19×19 computer-Go games (the shared
//! sgf-real data, read only), on the partial patterns of the Kombilo peer
//! harness (`../shared/peers/kombilo/bench.py`, re-expressed here).
//!
//! The expected figures are Kombilo 0.8.4's answers on the same folder with
//! the games keil does not store taken out: the 30 records our validator
//! refuses (`wrong_player`: a move missing) and the second copies of 5
//! duplicate records, which Kombilo keeps. They were compared query by
//! query, hit by hit and continuation by continuation, with
//! `examples/kombilo_compare.rs` (158 of 158 queries agree, whole-board
//! ones included); this test pins them.

mod common;

use std::path::{Path, PathBuf};

use keil_archive::{
    Archive, GameKind, ImportOptions, ImportSource, Pattern, PatternMode, PatternQuery,
};

const DATA: &str = "../../../shared/data/sgf-real/yenw__computer-go-dataset";

/// A Kombilo harness pattern: width, height, fill, and (x, y, cell) marks.
fn rows(w: usize, h: usize, fill: char, marks: &[(usize, usize, char)]) -> String {
    let mut grid = vec![vec![fill; w]; h];
    for &(x, y, c) in marks {
        grid[y][x] = c;
    }
    grid.iter()
        .map(|r| r.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("/")
}

#[test]
fn kombilo_harness_patterns_on_real_games() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join(DATA);
    if !data.is_dir() {
        println!("skipped: {} is absent", data.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let report = archive
        .import(
            &[ImportSource::Path(PathBuf::from(&data))],
            // As Kombilo stores them: every record its own game.
            &ImportOptions {
                duplicates: keil_archive::Duplicates::Exact,
                ..ImportOptions::default()
            },
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(report.counts.imported, 4768);
    // (id, mode, rows, games, hits; Kombilo's own games and hits, with the
    // games keil does not store).
    let cases = [
        (
            "corner7_44_knight_approach",
            PatternMode::Corner,
            rows(7, 7, '.', &[(3, 3, 'X'), (5, 2, 'O')]),
            3817,
            6289,
            (3838, 6321),
        ),
        (
            "corner7_34_knight_approach",
            PatternMode::Corner,
            rows(7, 7, '.', &[(2, 3, 'X'), (4, 2, 'O')]),
            1369,
            1689,
            (1382, 1707),
        ),
        (
            "corner7_44_33_invasion",
            PatternMode::Corner,
            rows(7, 7, '.', &[(3, 3, 'X'), (2, 2, 'O')]),
            2133,
            3011,
            (2153, 3035),
        ),
        (
            "corner7_44_33_block_extend",
            PatternMode::Corner,
            rows(
                7,
                7,
                '.',
                &[(3, 3, 'X'), (2, 2, 'O'), (3, 2, 'X'), (2, 3, 'O')],
            ),
            2043,
            2862,
            (2062, 2885),
        ),
        (
            "side5_3rd_line_two_space",
            PatternMode::Side,
            rows(5, 5, '.', &[(0, 2, 'X'), (3, 2, 'X')]),
            2134,
            4906,
            (2152, 4945),
        ),
        (
            "center3_ponnuki_wild",
            PatternMode::Centre,
            rows(
                3,
                3,
                '*',
                &[
                    (1, 0, 'X'),
                    (0, 1, 'X'),
                    (2, 1, 'X'),
                    (1, 2, 'X'),
                    (1, 1, '.'),
                ],
            ),
            3990,
            18808,
            (4022, 19009),
        ),
        (
            "corner5_44_33_wild",
            PatternMode::Corner,
            rows(5, 5, '*', &[(3, 3, 'X'), (2, 2, 'O')]),
            4133,
            7787,
            (4165, 7855),
        ),
        (
            "corner7_44_33_xo_wild",
            PatternMode::Corner,
            rows(
                7,
                7,
                '.',
                &[
                    (3, 3, 'X'),
                    (2, 2, 'O'),
                    (3, 2, 'x'),
                    (2, 3, 'x'),
                    (4, 2, 'o'),
                    (2, 4, 'o'),
                ],
            ),
            2133,
            3011,
            (2153, 3035),
        ),
    ];
    for (id, mode, text, games, hits, kombilo) in cases {
        let pattern = Pattern::parse(GameKind::Go, 19, &text, mode).unwrap();
        let answer = archive
            .patterns()
            .search(&PatternQuery::new(pattern, mode))
            .unwrap();
        assert_eq!(
            (answer.total_games, answer.total_hits),
            (games, hits),
            "{id}"
        );
        assert!(games <= kombilo.0 && hits <= kombilo.1, "{id}");
        // Every hit has at most one continuation.
        let conts: u64 = answer
            .continuations
            .iter()
            .map(|c| c.black.count + c.white.count)
            .sum();
        assert!(conts > 0 && conts <= hits, "{id}: {conts}");
        if id == "corner7_44_knight_approach" {
            // Kombilo: B 2847 (141 after tenuki), W 1150 (614), A at (2, 5).
            let top = &answer.continuations[0];
            assert_eq!(
                (top.point.as_str(), top.offset, top.label.as_str()),
                ("cf", [2, 5], "A")
            );
            assert_eq!((top.black.count, top.black.after_tenuki), (2828, 139));
            assert_eq!((top.white.count, top.white.after_tenuki), (1149, 614));
        }
    }
}
