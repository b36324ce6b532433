//! Query budgets: how long a search may run, and a flag that stops it
//! early (the client went away).
//!
//! A [`Budget`] is checked in the searches' hot loops (position postings,
//! pattern blocks, region lookups, the tally, the text index): past its
//! deadline, or once cancelled, the search stops with
//! [`Error::OverBudget`]. Checking costs a clock read (~20 ns), so loops
//! check once per block or once per [`Budget::EVERY`] items.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// A search's time budget and cancellation flag. Clones share the flag:
/// [`Budget::cancel`] on one stops the search that checks another.
/// [`Budget::default`] is [`Budget::unlimited`].
#[derive(Clone, Debug, Default)]
pub struct Budget {
    /// The deadline and the allowance it was computed from; `None`: no
    /// deadline.
    limit: Option<(Instant, Duration)>,
    cancelled: Arc<AtomicBool>,
}

impl Budget {
    /// Items a loop may handle between two checks, where each is cheap (a
    /// posting, a hit).
    pub const EVERY: usize = 4096;

    /// A budget without a deadline (the CLI, tests); it still stops when
    /// cancelled.
    pub fn unlimited() -> Budget {
        Budget::default()
    }

    /// A budget that runs out `limit` from now.
    pub fn new(limit: Duration) -> Budget {
        Budget {
            limit: Some((Instant::now() + limit, limit)),
            cancelled: Arc::default(),
        }
    }

    /// Stops every search checking this budget (or a clone of it) at its
    /// next check.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether the search should stop: cancelled, or past the deadline.
    #[inline]
    pub fn spent(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
            || self
                .limit
                .is_some_and(|(deadline, _)| Instant::now() >= deadline)
    }

    /// The allowance given to [`Budget::new`]; `None` when unlimited.
    pub fn limit(&self) -> Option<Duration> {
        self.limit.map(|(_, l)| l)
    }

    /// The time left before the deadline (zero once past it); `None` when
    /// unlimited. A cancelled budget still reports its time: check
    /// [`Budget::spent`] as well.
    pub fn remaining(&self) -> Option<Duration> {
        self.limit
            .map(|(deadline, _)| deadline.saturating_duration_since(Instant::now()))
    }

    /// Checks the budget.
    ///
    /// # Errors
    /// [`Error::OverBudget`] when [`Budget::spent`].
    #[inline]
    pub fn check(&self) -> Result<()> {
        if self.spent() {
            Err(self.over())
        } else {
            Ok(())
        }
    }

    /// Checks the budget on every [`Budget::EVERY`]th call with `i` counting
    /// up (for loops over cheap items).
    ///
    /// # Errors
    /// As [`Budget::check`].
    #[inline]
    pub fn check_every(&self, i: usize) -> Result<()> {
        if i.is_multiple_of(Self::EVERY) {
            self.check()
        } else {
            Ok(())
        }
    }

    /// The error of a spent budget.
    pub(crate) fn over(&self) -> Error {
        Error::OverBudget {
            budget_ms: self.limit().map_or(0, |l| l.as_millis() as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unlimited_runs_until_cancelled_and_clones_share_the_flag() {
        let b = Budget::unlimited();
        assert!(b.check().is_ok());
        let c = b.clone();
        c.cancel();
        assert!(matches!(b.check(), Err(Error::OverBudget { budget_ms: 0 })));
    }

    #[test]
    fn a_deadline_passes() {
        let b = Budget::new(Duration::from_millis(5));
        assert!(b.check().is_ok());
        std::thread::sleep(Duration::from_millis(10));
        assert!(matches!(b.check(), Err(Error::OverBudget { budget_ms: 5 })));
        assert!(b.check_every(1).is_ok(), "checked only every EVERY items");
        assert!(b.check_every(Budget::EVERY).is_err());
    }

    /// An archive of generated 9×9 Go games.
    fn archive() -> (tempfile::TempDir, crate::archive::Archive) {
        use keil_gen::{Generator, GeneratorConfig};
        let dir = tempfile::tempdir().unwrap();
        let archive = crate::archive::Archive::open(dir.path()).unwrap();
        let config = GeneratorConfig {
            game: crate::kind::GameKind::Go,
            games: 40,
            size: 9,
            seed: 1,
            ..GeneratorConfig::default()
        };
        let source = crate::import::ImportSource::Bytes {
            name: "go9.sgf".into(),
            bytes: Generator::new(config)
                .unwrap()
                .flat_map(|g| g.record.into_bytes())
                .collect(),
        };
        archive
            .import(
                &[source],
                &crate::import::ImportOptions::default(),
                &mut |_| {},
            )
            .unwrap();
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
            kind: crate::kind::GameKind::Go,
            size: 9,
        })
        .unwrap();
        let q = crate::index::positions::PositionQuery::new(empty);
        let conn = archive.node.reader().unwrap();
        let run = |b: &Budget| {
            conn.snapshot(|c| {
                crate::index::positions::search(
                    &archive.node.positions,
                    &archive.node.facts,
                    c,
                    &q,
                    b,
                )
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
                crate::index::positions::search(
                    &archive.node.positions,
                    &archive.node.facts,
                    c,
                    &q2,
                    b,
                )
            });
            assert!(matches!(got, Err(Error::OverBudget { .. })), "{got:?}");
        }

        // Three stones anywhere: the scan, and the region index where it
        // answers.
        let pattern = Pattern::new(
            crate::kind::GameKind::Go,
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
            crate::kind::GameKind::Go,
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
            let full =
                conn.snapshot(|c| patterns.matches(c, q, region_index, &Budget::unlimited()));
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
}
