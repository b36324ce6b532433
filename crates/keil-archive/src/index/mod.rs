//! The one catch-up loop of the derived indexes (the position index's
//! game summaries, the pattern and region index, the text index, the
//! players' vocabulary): what the store holds is the truth, and each index
//! says how far it has caught up with it as [`Sequences`] (every game up
//! to an id added, every removal up to a sequence number applied).
//! [`catch_up`] reads the store's sequences on the caller's snapshot,
//! reads the removals the indexes lack once, and hands each index that is
//! behind the [`Changes`] to apply.
//!
//! Invariants: game ids only grow and are never given again, and a stored
//! game never changes, so "the games with ids in `(reached, to]`" is all an
//! index needs to add; removals are numbered by their own sequence, so
//! "the removals after `reached`" is all it needs to apply. An index never
//! goes back: two callers catching up at once leave it where the furthest
//! one took it, each applying only what it lacked when it took its lock.

pub(crate) mod explore;
pub(crate) mod facts;
pub(crate) mod patterns;
pub(crate) mod positions;
pub(crate) mod text;
pub(crate) mod varint;
pub(crate) mod vocabulary;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::Result;
use keil_store::positions::SegmentRows;
use keil_store::{Read, Sequences, removals};

/// What the store holds beyond what an index has: every game up to
/// `to.games` and every removal up to `to.removals`, as the caller's
/// snapshot sees them.
pub(crate) struct Changes {
    /// The store's sequences in the caller's snapshot.
    pub to: Sequences,
    /// `(sequence, game id)` of the removals after the least index's, up
    /// to `to.removals`, in sequence order.
    removed: Vec<(i64, i64)>,
}

impl Changes {
    /// The games removed after removal sequence `seq` (up to
    /// `to.removals`), in removal order.
    pub(crate) fn removed_after(&self, seq: i64) -> impl Iterator<Item = i64> + '_ {
        let first = self.removed.partition_point(|&(s, _)| s <= seq);
        self.removed[first..].iter().map(|&(_, id)| id)
    }
}

/// An index derived from the store: never the source of truth, rebuilt or
/// caught up from it.
pub(crate) trait Derived {
    /// How far the index has caught up.
    ///
    /// # Errors
    /// Errors of the index's own storage (the text index's commit).
    fn reached(&self) -> Result<Sequences>;

    /// Brings the index to `changes.to`: adds the games with ids above
    /// those it holds, up to `changes.to.games`, read on `read`, and applies
    /// [`Changes::removed_after`] what it has applied. It starts from what
    /// it holds once it has taken its own lock (another caller may have
    /// moved it since [`Derived::reached`]).
    ///
    /// # Errors
    /// Storage errors; [`crate::Error::Corrupt`] for a stored game that
    /// does not replay.
    fn apply(&mut self, read: Read<'_>, changes: &Changes) -> Result<()>;
}

/// Catches `indexes` up with the store as `read`'s snapshot holds it, one
/// after the other, and returns the store's sequences there. Reads
/// nothing but the sequences when every index is caught up (the cost of a
/// search on an archive that has not changed: one small query).
///
/// # Errors
/// The first index's error; the others are then not caught up.
pub(crate) fn catch_up(read: Read<'_>, indexes: &mut [&mut dyn Derived]) -> Result<Sequences> {
    let to = Sequences::read(read)?;
    let mut behind = Vec::with_capacity(indexes.len());
    for (i, index) in indexes.iter().enumerate() {
        let at = index.reached()?;
        if at.games < to.games || at.removals < to.removals {
            behind.push((i, at));
        }
    }
    let Some(since) = behind.iter().map(|(_, at)| at.removals).min() else {
        return Ok(to);
    };
    let removed = if since < to.removals {
        removals::removed_between(read, since, to.removals)?
    } else {
        Vec::new()
    };
    let changes = Changes { to, removed };
    for (i, _) in behind {
        indexes[i].apply(read, &changes)?;
    }
    Ok(to)
}

/// What a node's last round of catching up found ([`crate::Archive::catch_up`],
/// run by a server every [`Follow::EVERY`]): the store's sequences and
/// position segments, with every derived index at exactly that state.
/// While it is fresh (younger than [`Follow::FRESH`]) a search answers
/// from it without reading the store's state first: on a database server
/// that is a round trip per search fewer. A search then sees what other
/// processes wrote up to [`Follow::FRESH`] late; what this process writes
/// it sees at once, since every write forgets the round ([`Follow::forget`]).
#[derive(Debug, Default)]
pub(crate) struct Follow {
    round: Mutex<Option<Round>>,
    /// Bumped by every write of this process, so that a round that read
    /// the store before a write committed is not kept after it.
    writes: AtomicU64,
}

#[derive(Debug)]
struct Round {
    when: Instant,
    at: Sequences,
    /// Shared with the searches that answer from the round (no copy each).
    segments: Arc<SegmentRows>,
}

impl Follow {
    /// How often a server catches up.
    pub(crate) const EVERY: Duration = Duration::from_millis(250);
    /// How long a round answers for searches (past it, a stalled catch-up
    /// leaves each search to read the store's state itself).
    pub(crate) const FRESH: Duration = Duration::from_secs(1);

    /// The state of the last round, while it is fresh.
    pub(crate) fn current(&self) -> Option<(Sequences, Arc<SegmentRows>)> {
        let round = self.round.lock().expect("poisoned");
        let r = round.as_ref().filter(|r| r.when.elapsed() < Self::FRESH)?;
        Some((r.at, r.segments.clone()))
    }

    /// The writes counted so far (taken before a round reads the store).
    pub(crate) fn writes(&self) -> u64 {
        self.writes.load(Ordering::SeqCst)
    }

    /// Keeps a round's state, read after [`Follow::writes`] gave `writes`,
    /// unless this process wrote since.
    pub(crate) fn keep(&self, writes: u64, at: Sequences, segments: SegmentRows) {
        let mut round = self.round.lock().expect("poisoned");
        if self.writes() == writes {
            *round = Some(Round {
                when: Instant::now(),
                at,
                segments: Arc::new(segments),
            });
        }
    }

    /// Forgets the last round: this process has written (or a round
    /// failed), so the next search reads the store's state itself.
    pub(crate) fn forget(&self) {
        let mut round = self.round.lock().expect("poisoned");
        self.writes.fetch_add(1, Ordering::SeqCst);
        *round = None;
    }
}

#[cfg(test)]
mod budget_tests;

#[cfg(test)]
mod tests {
    use super::{Changes, Derived, catch_up};
    use crate::archive::Archive;
    use crate::error::Result;
    use keil_store::ids::GameId;
    use keil_store::{Read, Sequences};

    /// An index that records what the loop hands it.
    struct Probe {
        at: Sequences,
        applied: Vec<(Sequences, Vec<i64>)>,
    }

    impl Derived for Probe {
        fn reached(&self) -> Result<Sequences> {
            Ok(self.at)
        }

        fn apply(&mut self, _read: Read<'_>, changes: &Changes) -> Result<()> {
            let removed = changes.removed_after(self.at.removals).collect();
            self.applied.push((changes.to, removed));
            self.at = changes.to;
            Ok(())
        }
    }

    /// The loop hands each index that is behind the store's sequences and
    /// the removals after its own, leaves an index that is caught up
    /// alone, and reads nothing more once all are.
    #[test]
    fn each_index_gets_what_it_lacks_and_no_more() {
        let dir = tempfile::tempdir().unwrap();
        let archive = Archive::open(dir.path()).unwrap();
        crate::archive::import_generated(
            &archive,
            keil_gen::GeneratorConfig {
                games: 3,
                seed: 7,
                ..keil_gen::GeneratorConfig::default()
            },
        );
        archive
            .remove(GameId::from_sql(1), "test", "")
            .unwrap()
            .unwrap();
        let mid = archive
            .node
            .reader()
            .unwrap()
            .snapshot(Sequences::read)
            .unwrap();
        archive
            .remove(GameId::from_sql(3), "test", "")
            .unwrap()
            .unwrap();
        let conn = archive.node.reader().unwrap();
        let mut cold = Probe {
            at: Sequences::default(),
            applied: Vec::new(),
        };
        let mut half = Probe {
            at: mid,
            applied: Vec::new(),
        };
        let to = catch_up(conn.read(), &mut [&mut cold, &mut half]).unwrap();
        assert_eq!(
            to,
            Sequences {
                games: 3,
                removals: 2
            }
        );
        assert_eq!(cold.applied, vec![(to, vec![1, 3])]);
        assert_eq!(half.applied, vec![(to, vec![3])]);
        catch_up(conn.read(), &mut [&mut cold, &mut half]).unwrap();
        assert_eq!((cold.applied.len(), half.applied.len()), (1, 1));
    }
}
