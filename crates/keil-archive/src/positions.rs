//! The position queries of an archive ([`Positions`]): the games that
//! reached a board, over the node's position index
//! ([`crate::index::positions`]).

use crate::error::Result;
use crate::index::positions::{PositionAnswer, PositionQuery, search, search_settled};
use keil_store::budget::Budget;

/// The most connections [`Positions::load`] reads segments over at once.
const PREFETCH_WAYS: usize = 4;

/// The position queries of an archive, from [`crate::Archive::positions`].
/// Each call uses one pooled read connection.
pub struct Positions<'a> {
    pub(crate) node: &'a crate::node::Node,
}

impl Positions<'_> {
    /// Finds the games that reached a board (any of its symmetric images,
    /// 12 on the hexagon, when `q.symmetry`) with the player to move and
    /// button state the query allows, with the ply, the position matched
    /// (in full) and the move played next shown in the query's
    /// orientation, and continuation statistics over all matches per
    /// matched position. Runs on plain reads when the
    /// node's index is the store's (one statement checks it), else on one
    /// read snapshot after catching the index up.
    ///
    /// # Errors
    /// [`Error::BadCursor`](crate::Error::BadCursor) for a cursor this
    /// search did not produce; [`Error::PositionIndex`](crate::Error::PositionIndex)
    /// for a damaged segment; storage errors.
    pub fn search(&self, q: &PositionQuery) -> Result<PositionAnswer> {
        self.search_within(q, &Budget::unlimited())
    }

    /// [`Positions::search`] under a time budget: the search stops early
    /// when `budget` is spent (its deadline passed, or it was cancelled).
    ///
    /// # Errors
    /// [`Error::OverBudget`](crate::Error::OverBudget) when it stopped so;
    /// as [`Positions::search`].
    pub fn search_within(&self, q: &PositionQuery, budget: &Budget) -> Result<PositionAnswer> {
        let archive = self.node;
        budget.check()?;
        let reader = archive.reader()?;
        let (index, facts) = (&archive.positions, &archive.facts);
        let settled = archive.follow.current();
        if let Some(answer) = search_settled(index, facts, reader.read(), settled, q, budget)? {
            return Ok(answer);
        }
        reader.snapshot(|conn| search(index, facts, conn, q, budget))
    }

    /// Reads the position index into memory (its segments and the game
    /// summaries: about 1.3 KB per side-7 Keil game, 3.4 KB per 19×19 Go
    /// game) ahead of the first search, which would otherwise pay for it. A
    /// server calls it before it takes requests, or, where
    /// [`Positions::load_for_start`] read the directories alone, after.
    /// It also reads the bytes of the segments [`Positions::load_directories`]
    /// left in the store. The segments are read by
    /// up to four connections at once (one a core), while the
    /// game summaries are read: a database server then sends several at
    /// once (on PostgreSQL through one connection the segments came at
    /// about 0.3 GB/s, the server's TOAST reads being the limit).
    ///
    /// # Errors
    /// [`Error::PositionIndex`](crate::Error::PositionIndex) for a damaged
    /// segment; storage errors.
    pub fn load(&self) -> Result<()> {
        let (index, facts) = (&self.node.positions, &self.node.facts);
        let ways = std::thread::available_parallelism().map_or(1, |n| n.get().min(PREFETCH_WAYS));
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            let fetchers: Vec<_> = (1..ways)
                .map(|_| {
                    scope.spawn(|| {
                        self.node
                            .reader()?
                            .snapshot(|conn| index.prefetch(conn, &next))
                    })
                })
                .collect();
            self.node.reader()?.snapshot(|conn| {
                let at = facts.refresh(conn)?;
                // Also where it is alone: the segments left in the store
                // by `load_directories` are read here, not by `segments`.
                index.prefetch(conn, &next)?;
                for f in fetchers {
                    f.join().expect("a prefetch does not panic")?;
                }
                index.segments(conn, at.removals).map(drop)
            })
        })
    }

    /// Reads the game summaries and each segment's block directory, not
    /// the segments' bytes (at a million 19×19 games, 0.13 GB of
    /// directories against 3.4 GB of segments): until [`Positions::load`]
    /// reads the bytes, a search reads the blocks it needs from the store,
    /// one slice a segment, inside a read snapshot, and answers as it
    /// would from the bytes. A segment whose file is in the node's cache
    /// is mapped instead.
    ///
    /// # Errors
    /// [`Error::PositionIndex`](crate::Error::PositionIndex) for a damaged
    /// directory; storage errors.
    pub fn load_directories(&self) -> Result<()> {
        let (index, facts) = (&self.node.positions, &self.node.facts);
        self.node.reader()?.snapshot(|conn| {
            facts.refresh(conn)?;
            index.directories(conn)
        })
    }

    /// A node start's read of the position index: where the store reads a
    /// slice of a blob without the bytes before it (PostgreSQL, whose
    /// server would otherwise send every segment before the node serves),
    /// [`Positions::load_directories`], returning `true`: call
    /// [`Positions::load`] next, off the start's path. Elsewhere (SQLite,
    /// whose blob reads walk each blob from its start) all of
    /// [`Positions::load`], returning `false`.
    ///
    /// # Errors
    /// As [`Positions::load`].
    pub fn load_for_start(&self) -> Result<bool> {
        let slices = self.node.reader()?.read().backend().slices_blobs();
        if slices {
            self.load_directories()?;
        } else {
            self.load()?;
        }
        Ok(slices)
    }
}
