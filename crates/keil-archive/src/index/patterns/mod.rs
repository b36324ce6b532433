//! Pattern search: the games in which a partial board (a region with a
//! value per point, wildcards allowed) occurs, wherever the search mode
//! lets it be placed, under the board's symmetries and, on request, with
//! colours exchanged; with Kombilo's continuation statistics.
//!
//! Semantics follow Kombilo (the peer harness's "Hit semantics"): the time
//! line is the SGF node (root 0, setup and move-less nodes count); a hit
//! is a (game, distinct placement) pair that matches at the end of some
//! node, and its continuation is the first later move inside the
//! placement's region, mapped back into the pattern's points and colours,
//! "after tenuki" when it came 3 or more nodes after the match; points that
//! a symmetry of the pattern itself maps onto each other are folded onto
//! one. Whole-board patterns without wildcards are answered by the
//! position index; 7×7 corner patterns with 1 to 8 stones, 5×5 side
//! patterns with 1 to 3, and Keil's 7-point shapes (a point and its six
//! neighbours) with 1 to 3 stones, few wildcards in any, by the region
//! index of [`regions`] (lookups by exact content, each hit with its
//! stored continuation), as are 5×5 corner patterns of one stone or two
//! neighbouring stones with `*` elsewhere (lookups by stone set); every other
//! pattern by the in-memory index of [`index`]
//! (first-life columns, exact, with event replay for the rare games it
//! cannot decide alone).
//!
//! The module's files, each depending only on those before it:
//! [`pattern`] (patterns and their notation), [`placement`], [`arrays`]
//! (owned or mapped), [`runs`] (the region index's stored runs),
//! [`events`] (a game's events and its first-life columns), [`regions`]
//! (the region index), [`index`] (the groups: time lines, columns, the
//! scan), [`query`] (the public query and answer types), [`variations`],
//! [`answer`] (matches before paging), [`tally`], [`block`] (the pattern
//! blocks' codec), [`snapshot`] (the node's snapshot file), [`load`]
//! (`PatternIndex`: caught up with the store) and [`mod@search`]; the
//! public entry points are the [`Patterns`](crate::Patterns) view's.

mod answer;
mod arrays;
mod block;
mod events;
mod index;
mod load;
mod pattern;
mod placement;
mod query;
mod regions;
mod runs;
mod search;
mod snapshot;
mod tally;
mod variations;

pub(crate) use answer::Matched;
pub(crate) use block::{KIND as BLOCK_KIND, check as check_block};
pub(crate) use index::Replayed;
pub(crate) use load::{PatternIndex, index_batch, rebuild_blocks, replayed, replayed_from_plies};
pub use pattern::{Cell, Pattern, PatternMode};
pub use query::{
    MoveStats, PatternAnswer, PatternContinuation, PatternHit, PatternIndexStats, PatternQuery,
};
pub(crate) use search::{filter_of, matches, page};
