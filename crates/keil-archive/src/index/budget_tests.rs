//! A spent search budget stops the position and pattern searches inside
//! their own loops, not only at their entry.

use std::time::Duration;

use keil_store::budget::Budget;

use crate::error::Error;

/// An archive of generated 9×9 Go games.
fn archive() -> (tempfile::TempDir, crate::archive::Archive) {
    let dir = tempfile::tempdir().unwrap();
    let archive = crate::archive::Archive::open(dir.path()).unwrap();
    let config = keil_gen::GeneratorConfig {
        game: keil_store::kind::GameKind::Go,
        games: 40,
        size: 9,
        seed: 1,
        ..keil_gen::GeneratorConfig::default()
    };
    crate::archive::import_generated(&archive, config);
    (dir, archive)
}

/// The searches' own loops check the budget: called past the entry
/// check, a spent budget still stops them with the error, and the same
/// search with an unlimited budget finds games.
#[test]
fn a_spent_budget_stops_position_and_pattern_searches_inside() {
    use keil_rules::{AnyPosition, BoardSpec, Point};

    use crate::index::patterns::{Cell, Pattern, PatternMode, PatternQuery};
    let (_dir, archive) = archive();
    let spent = Budget::unlimited();
    spent.cancel();
    let expired = Budget::new(Duration::from_nanos(1));
    std::thread::sleep(Duration::from_millis(1));

    let empty = AnyPosition::empty(BoardSpec {
        kind: keil_store::kind::GameKind::Go,
        size: 9,
    })
    .unwrap();
    let q = crate::index::positions::PositionQuery::new(empty);
    let conn = archive.node.reader().unwrap();
    let run = |b: &Budget| {
        conn.snapshot(|c| {
            crate::index::positions::search(&archive.node.positions, &archive.node.facts, c, &q, b)
        })
    };
    assert!(run(&Budget::unlimited()).unwrap().total_games > 0);
    // Not cached: a fresh archive's answers cache is per generation,
    // and the position index's answers cache keeps the long lists; a
    // new query (colour swap) misses it.
    let q2 = crate::index::positions::PositionQuery {
        swap_colors: true,
        ..q.clone()
    };
    for b in [&spent, &expired] {
        let got = conn.snapshot(|c| {
            crate::index::positions::search(&archive.node.positions, &archive.node.facts, c, &q2, b)
        });
        assert!(matches!(got, Err(Error::OverBudget { .. })), "{got:?}");
    }

    // Three stones anywhere: the scan, and the region index where it
    // answers.
    let pattern = Pattern::new(
        keil_store::kind::GameKind::Go,
        9,
        [
            (Point(30), Cell::Black),
            (Point(31), Cell::White),
            (Point(40), Cell::Black),
        ],
    )
    .unwrap();
    let pq = PatternQuery::new(pattern, PatternMode::Anywhere);
    // A 7×7 corner, empty but for its 3-3 point: the region index's.
    let corner = Pattern::new(
        keil_store::kind::GameKind::Go,
        9,
        (0..7u16)
            .flat_map(|r| (0..7u16).map(move |c| (r, c)))
            .map(|(r, c)| {
                let cell = if (r, c) == (2, 2) {
                    Cell::Black
                } else {
                    Cell::Empty
                };
                (Point(r * 9 + c), cell)
            }),
    )
    .unwrap();
    let cq = PatternQuery::new(corner, PatternMode::Corner);
    archive.patterns().load().unwrap();
    let patterns = archive.patterns();
    for (q, region_index) in [(&pq, true), (&pq, false), (&cq, true), (&cq, false)] {
        let full = conn.snapshot(|c| patterns.matches(c, q, region_index, &Budget::unlimited()));
        assert!(full.unwrap().placements > 0);
        for b in [&spent, &expired] {
            let got = conn.snapshot(|c| patterns.matches(c, q, region_index, b));
            assert!(
                matches!(got, Err(Error::OverBudget { .. })),
                "{region_index}"
            );
        }
    }
    let hits = conn.snapshot(|c| patterns.matches(c, &pq, false, &Budget::unlimited()));
    assert!(hits.unwrap().total_hits > 0, "the scan has work to stop");
    // And the public entry points.
    assert!(matches!(
        archive.patterns().search_within(&pq, &spent),
        Err(Error::OverBudget { budget_ms: 0 })
    ));
    assert!(matches!(
        archive.positions().search_within(&q, &expired),
        Err(Error::OverBudget { .. })
    ));
}
