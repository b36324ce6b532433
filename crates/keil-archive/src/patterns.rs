//! The pattern queries of an archive ([`Patterns`]): Kombilo's pattern
//! search over the node's pattern index ([`crate::index::patterns`], whose
//! module docs say the semantics).

use std::sync::Arc;

use crate::error::Result;
use crate::index::patterns::{
    Matched, PatternAnswer, PatternIndexStats, PatternQuery, filter_of, matches, page,
};
use keil_store::Read;
use keil_store::budget::Budget;

/// The pattern queries of an archive, from [`crate::Archive::patterns`].
///
/// Its searches may run parallel parts on rayon's current pool and wait on
/// the index's refresh lock meanwhile: call them from plain threads, not
/// from inside a rayon pool that also runs other searches (see
/// `PatternIndex::refresh`).
pub struct Patterns<'a> {
    pub(crate) node: &'a crate::node::Node,
}

impl Patterns<'_> {
    /// Reads every stored game into the pattern index ahead of the first
    /// search, which would otherwise pay for it, and says how large it is:
    /// from the node's snapshot when it keeps one of this archive
    /// ([`Archive::cache_in`](crate::Archive::cache_in)), then from the
    /// pattern blocks, replaying only the games no block holds. Writes the
    /// snapshot when there was none or it lacked more than 1/16 of the
    /// games.
    ///
    /// # Errors
    /// [`Error::Corrupt`](crate::Error::Corrupt) for a stored game that does not replay; storage
    /// errors.
    pub fn load(&self) -> Result<PatternIndexStats> {
        self.load_deferring(false)
    }

    /// [`Patterns::load`], but a load from the pattern blocks reads their
    /// games alone, leaving the region index out (searches it would answer
    /// are answered by the scan, with the same answers, until
    /// [`Patterns::settle`] fills it), and writes no snapshot, so that a
    /// new node serves sooner: the region index is about half of the
    /// pattern index's memory, and its merge about half of a merged load
    /// (BENCHMARKS.md, "Node start").
    /// [`Patterns::settle`] then fills it from the blocks, merges it (until
    /// then, one segment a block, region lookups a few times slower) and
    /// writes the snapshot, while the node serves.
    ///
    /// # Errors
    /// As [`Patterns::load`].
    pub fn load_unmerged(&self) -> Result<PatternIndexStats> {
        self.load_deferring(true)
    }

    /// Fills the region index [`Patterns::load_unmerged`] left out (from
    /// the pattern blocks, in one read snapshot), merges what it left
    /// unmerged (outside the index's lock: searches and refreshes go on
    /// meanwhile), then writes the node's snapshot as [`Patterns::load`]
    /// would have. Returns whether there was anything to fill or merge;
    /// does nothing otherwise.
    ///
    /// # Errors
    /// Storage errors reading the blocks (the region index then stays
    /// unfilled: call again) or what the snapshot's stamp holds.
    pub fn settle(&self) -> Result<bool> {
        let index = &self.node.patterns;
        let filled = self
            .node
            .reader()?
            .snapshot(|conn| index.fill_regions(conn))?
            .is_some();
        if !index.settle() && !filled {
            return Ok(false);
        }
        self.node
            .reader()?
            .snapshot(|conn| index.write_snapshot(conn))?;
        Ok(true)
    }

    /// [`Patterns::load`], deferring the merge when `defer`.
    fn load_deferring(&self, defer: bool) -> Result<PatternIndexStats> {
        let index = &self.node.patterns;
        let from_snapshot = self
            .node
            .reader()?
            .snapshot(|conn| index.load(conn, defer))?;
        let loaded = index.loaded.read().expect("poisoned");
        Ok(PatternIndexStats {
            games: loaded
                .groups
                .iter()
                .map(|(_, g)| g.lines.len() as u64)
                .sum(),
            bytes: loaded.groups.iter().map(|(_, g)| g.bytes() as u64).sum(),
            mapped_bytes: loaded
                .groups
                .iter()
                .map(|(_, g)| g.mapped_bytes() as u64)
                .sum(),
            from_snapshot,
            regions_deferred: loaded.regions_deferred,
        })
    }

    /// Finds the games in which the pattern occurs (see [`PatternQuery`]
    /// and the module docs for the semantics), with the first matching
    /// node and placement per game, hits per game, and continuation
    /// statistics over all hits. Runs on one read snapshot.
    ///
    /// # Errors
    /// [`Error::BadCursor`](crate::Error::BadCursor) for a cursor this search did not produce;
    /// [`Error::Corrupt`](crate::Error::Corrupt) for a stored game that does not replay; storage
    /// errors.
    pub fn search(&self, q: &PatternQuery) -> Result<PatternAnswer> {
        self.search_within(q, &Budget::unlimited())
    }

    /// [`Patterns::search`] under a time budget: the search (the scan, the
    /// region index's lookups, the tally, the pattern index's catching up
    /// with new games) stops early when `budget` is spent (its deadline
    /// passed, or it was cancelled); nothing of it is cached.
    ///
    /// # Errors
    /// [`Error::OverBudget`](crate::Error::OverBudget) when it stopped so; as [`Patterns::search`].
    pub fn search_within(&self, q: &PatternQuery, budget: &Budget) -> Result<PatternAnswer> {
        let archive = self.node;
        budget.check()?;
        let after = match &q.cursor {
            None => None,
            Some(c) => Some(crate::index::positions::parse_cursor(c)?),
        };
        // The index is the store's (the node's last catch-up round while
        // it is fresh, else one statement): plain reads, no read snapshot
        // (on a database server, two round trips fewer); a game of the
        // page removed meanwhile sends the search to a snapshot.
        let reader = archive.reader()?;
        let plain = reader.read();
        let at = match archive.follow.current() {
            Some((at, _)) => at,
            None => keil_store::Sequences::read(plain)?,
        };
        if crate::index::Derived::reached(&&archive.patterns)? == at && archive.facts.at() == at {
            let (answer, complete) = self.cached(plain, q, at, after, budget)?;
            if complete {
                return Ok(answer);
            }
        }
        reader.snapshot(|conn| {
            archive.facts.refresh(conn)?;
            let at = archive.patterns.refresh(conn)?;
            self.cached(conn, q, at, after, budget)
                .map(|(answer, _)| answer)
        })
    }

    /// The answer of `q` on an index at `at`, its matches from the answer
    /// cache when there, and whether every game of its page has its details
    /// ([`page`]).
    fn cached(
        &self,
        conn: Read<'_>,
        q: &PatternQuery,
        at: keil_store::Sequences,
        after: Option<(u32, u32)>,
        budget: &Budget,
    ) -> Result<(PatternAnswer, bool)> {
        let archive = self.node;
        let key = format!(
            "{} {} {} {:?} {} {} {:?} {:?} {:?} {} {} {}",
            at.games,
            at.removals,
            q.pattern,
            q.mode,
            q.symmetry,
            q.swap_colors,
            filter_of(q),
            q.explore.move_limit,
            q.explore.next,
            q.explore.history,
            q.explore.top_games,
            q.explore.variations,
        );
        let matched = match archive.patterns.answers.get(&key) {
            Some(m) => m,
            None => {
                let m = Arc::new(self.matches(conn, q, true, budget)?);
                archive.patterns.answers.insert(key, m.clone());
                m
            }
        };
        page(&archive.facts, &archive.patterns, q, &matched, after)
    }

    /// [`Patterns::search`] without the answer cache: every call searches
    /// (benchmarks time this; a server calls `search`).
    ///
    /// # Errors
    /// As [`Patterns::search`].
    pub fn search_uncached(&self, q: &PatternQuery) -> Result<PatternAnswer> {
        let after = match &q.cursor {
            None => None,
            Some(c) => Some(crate::index::positions::parse_cursor(c)?),
        };
        let archive = self.node;
        archive.reader()?.snapshot(|conn| {
            archive.facts.refresh(conn)?;
            archive.patterns.refresh(conn)?;
            let matched = self.matches(conn, q, true, &Budget::unlimited())?;
            page(&archive.facts, &archive.patterns, q, &matched, after).map(|(answer, _)| answer)
        })
    }

    /// Every match of `q` with its statistics
    /// ([`index::patterns::matches`](crate::index::patterns::matches));
    /// `region_index` lets the region index answer the patterns it can
    /// (the tests turn it off to compare it with the scan).
    pub(crate) fn matches(
        &self,
        conn: Read<'_>,
        q: &PatternQuery,
        region_index: bool,
        budget: &Budget,
    ) -> Result<Matched> {
        let node = self.node;
        matches(
            &node.patterns,
            &node.facts,
            &node.positions,
            conn,
            q,
            region_index,
            budget,
        )
    }
}
