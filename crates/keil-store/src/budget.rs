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
    pub fn over(&self) -> Error {
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
}
