//! One page of a text search: every match counted, and the best `limit`
//! after a keyset cursor kept, in one pass over the matching documents
//! (no list of every match is made: a word in half the archive costs a
//! count, not a sort).
//!
//! Counting every match means scoring every matching document: no top-k
//! pruning (tantivy's block-max WAND skips documents that cannot enter the
//! top, and so cannot count them). The budget is checked between
//! segments, as for every text search.
//!
//! The order is by score, best first, then by game id, lowest first: a
//! total order, so that a cursor (the last hit's score and id) says
//! exactly where the next page starts.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::Column;
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

/// A hit's place in the order: its score and game id.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Ranked {
    /// tantivy's score (BM25).
    pub score: f32,
    /// The game id.
    pub id: u64,
}

impl Eq for Ranked {}

impl Ord for Ranked {
    /// Better first: the higher score, then the lower id.
    fn cmp(&self, other: &Ranked) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(self.id.cmp(&other.id))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Ranked) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// What a page search keeps.
#[derive(Clone, Debug)]
pub(crate) struct PageSpec {
    /// The games that may be found (sorted ids); `None`: every game.
    pub keep: Option<Arc<[u64]>>,
    /// Only hits after this one (in [`Ranked`]'s order) are listed.
    pub after: Option<Ranked>,
    /// At most this many hits listed.
    pub limit: usize,
}

impl PageSpec {
    fn keeps(&self, id: u64) -> bool {
        self.keep
            .as_ref()
            .is_none_or(|k| k.binary_search(&id).is_ok())
    }
}

/// A page: every kept match counted, the best `limit` after the cursor,
/// best first.
#[derive(Debug, Default)]
pub(crate) struct PageFruit {
    /// Matches kept ([`PageSpec::keep`]), before and after the cursor.
    pub total: u64,
    /// The best after the cursor, best first, at most `limit`.
    pub hits: Vec<Ranked>,
}

/// The collector of a page ([`PageSpec`]).
pub(crate) struct PageCollector(pub(crate) PageSpec);

/// One segment's part of a page.
pub(crate) struct PageSegment {
    spec: PageSpec,
    ids: Column<u64>,
    total: u64,
    /// The best so far, the worst on top.
    best: BinaryHeap<Ranked>,
}

impl Collector for PageCollector {
    type Fruit = PageFruit;
    type Child = PageSegment;

    fn for_segment(
        &self,
        _segment_local_id: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<PageSegment> {
        Ok(PageSegment {
            spec: self.0.clone(),
            ids: segment.fast_fields().u64("game_id")?,
            total: 0,
            best: BinaryHeap::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, fruits: Vec<PageFruit>) -> tantivy::Result<PageFruit> {
        let mut out = PageFruit::default();
        for f in fruits {
            out.total += f.total;
            out.hits.extend(f.hits);
        }
        out.hits.sort_unstable();
        out.hits.truncate(self.0.limit);
        Ok(out)
    }
}

impl SegmentCollector for PageSegment {
    type Fruit = PageFruit;

    fn collect(&mut self, doc: DocId, score: Score) {
        let Some(id) = self.ids.first(doc) else {
            return;
        };
        if !self.spec.keeps(id) {
            return;
        }
        self.total += 1;
        let hit = Ranked { score, id };
        if self.spec.after.is_some_and(|a| hit <= a) || self.spec.limit == 0 {
            return;
        }
        if self.best.len() < self.spec.limit {
            self.best.push(hit);
        } else if self.best.peek().is_some_and(|worst| hit < *worst) {
            self.best.pop();
            self.best.push(hit);
        }
    }

    fn harvest(self) -> PageFruit {
        PageFruit {
            total: self.total,
            hits: self.best.into_sorted_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Ranked;

    #[test]
    fn better_is_a_higher_score_then_a_lower_id() {
        let r = |score, id| Ranked { score, id };
        let mut v = vec![r(1.0, 5), r(2.0, 9), r(1.0, 3), r(2.0, 1)];
        v.sort();
        assert_eq!(v, [r(2.0, 1), r(2.0, 9), r(1.0, 3), r(1.0, 5)]);
        assert!(r(1.0, 3) > r(2.0, 9));
    }
}
