//! The store's two sequences, which every derived index catches up on:
//! games are added with ascending ids that are never given again, and
//! removals are numbered by their own sequence.

use crate::param::Backend;

/// How far the store has gone: the greatest game id given and the last
/// removal's sequence number (0 for none). A derived index that has added
/// every game up to `games` and applied every removal up to `removals`
/// answers as the store does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sequences {
    /// The greatest game id given (0 for none): stored, or since removed.
    /// It only grows (ids are never given again).
    pub games: i64,
    /// The last removal's sequence number (0 for none).
    pub removals: i64,
}

/// The statement of [`Sequences::read`](crate::Sequences::read): one row, columns `games,
/// removals`.
pub fn statement(backend: Backend) -> String {
    format!(
        "SELECT {} AS games, (SELECT COALESCE(MAX(seq), 0) FROM removals) AS removals",
        backend.greatest(
            "(SELECT COALESCE(MAX(id), 0) FROM games)",
            "(SELECT COALESCE(MAX(game_id), 0) FROM removals)"
        )
    )
}
