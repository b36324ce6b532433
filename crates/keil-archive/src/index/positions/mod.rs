//! The position index: which games reached a position, at which ply, and
//! what was played next.
//!
//! Every position of every stored game's main line (the start and the
//! position after each ply) is a *posting*: index key, game, ply, the
//! symmetry onto the canonical orientation, the next move (stored in the
//! canonical orientation) and the player to move.
//!
//! - **Keys.** A position with at most five stones (the openings that many
//!   games share) is keyed by an exact, injective code of its canonical form
//!   with the game kind and the board size; any other by its canonical
//!   Zobrist key (keil-rules; salted by game kind once Go is indexed), so
//!   the symmetric images
//!   (12 on the hexagon, 8 on the square) share a key. A Zobrist match is
//!   confirmed by replaying the game to the ply and comparing positions:
//!   hash collisions never produce false matches, and the long posting lists
//!   (openings) need no replay. The canonical orientation is chosen from
//!   the stones alone, and the button flag is the key's lowest bit: the two
//!   button states of a board are adjacent keys in one orientation, so a
//!   query without a button suffix reads one key range in one pass.
//!   Segments record the version of their keys
//!   ([`KEY_VERSION`](key::KEY_VERSION)); older ones are rebuilt from
//!   the games when the archive is opened.
//! - **Storage.** Postings live in immutable, sorted segments (blocks of 32
//!   postings, varint-delta encoded, with a block directory), one blob row of
//!   `position_segments` per import batch, written in the batch's own
//!   transaction. Segments merge by tiers of four. The index is derived: it
//!   can always be rebuilt from the games table.
//! - **Search.** Segments are immutable; each is read once and kept in
//!   memory (about 1.3 KB per side-7 Keil game, 3.4 KB per 19×19 Go game of
//!   334 plies), and a lookup binary-searches its block
//!   directory and decodes only the blocks that may hold the key. Filters,
//!   statistics and histories read the archive's game facts
//!   ([`crate::index::facts`]).
//! - **Queries.** A query's absent player-to-move or button suffix matches
//!   either value (record-format.md, "Position notation"); answers write the
//!   matched position in full, and continuations are counted per matched
//!   position (who moves, button flag).
//! - **Popular positions.** The matches of a search before paging (first
//!   occurrence per game, newest first, and the continuation counts) are
//!   kept in a bounded cache (64 MiB, weighted by size) when the key had at
//!   least 256 postings, keyed by the index generation (a hash of the
//!   segments' ids and nonces) and the query's filters: the next search of
//!   the empty board, or of its next page, costs a binary search, and any
//!   import or reindex makes a new generation.
//! - **Confirmations.** The main lines read to confirm Zobrist keys by
//!   replay are kept by game (a bounded cache, 32 MiB): an explorer that
//!   walks a line confirms each next position's games, the last one's or
//!   fewer, without reading the store again.
//!
//! The module's files, each depending only on those above it:
//! [`key`] (index keys), [`posting`] (postings and next-move codes),
//! [`segment`] (the segment codec), [`store`] (the index's storage logic,
//! whose SQL is in [`keil_store::positions`]),
//! [`index`] (segments and game summaries in memory, the match cache),
//! [`query`] (the public query and answer types) and [`mod@search`]; the
//! public entry points are the [`Positions`](crate::Positions) view's.

mod answer;
mod cache;
mod collect;
mod context;
mod index;
mod key;
mod posting;
mod query;
mod search;
mod segment;
mod store;

pub(crate) use answer::parse_cursor;
pub(crate) use index::PositionIndex;
pub use query::{Continuation, PositionAnswer, PositionHit, PositionQuery};
pub(crate) use search::{occurrences, search, search_settled};
pub(crate) use store::{
    check_segment, fill_nonces, index_games, pending_upgrade, rebuild, upgrade_keys,
};
