//! The forms' empty fields: an empty field means "any", while the API's
//! parser reads an empty value as a bad one, so the pages drop them before
//! reading.

use crate::dto::{GameFilterQuery, GamesQuery};

/// Empty form fields mean "any": the API's parser reads an empty value as
/// a bad one, so they are dropped first.
pub(super) fn drop_empty(mut q: GamesQuery) -> GamesQuery {
    drop_empty_filter(&mut q.selection.filter);
    for v in [
        &mut q.selection.kind,
        &mut q.selection.size,
        &mut q.order,
        &mut q.limit,
        &mut q.cursor,
        &mut q.before,
    ] {
        drop_blank(v);
    }
    q
}

/// A blank value (empty or only spaces) dropped: `None`.
pub(super) fn drop_blank(v: &mut Option<String>) {
    if v.as_deref().is_some_and(|s| s.trim().is_empty()) {
        *v = None;
    }
}

/// [`drop_empty`] of the game filters alone.
pub(super) fn drop_empty_filter(f: &mut GameFilterQuery) {
    for v in [
        &mut f.player,
        &mut f.color,
        &mut f.opponent,
        &mut f.event,
        &mut f.from,
        &mut f.to,
        &mut f.result,
        &mut f.winner,
        &mut f.variant,
        &mut f.ruleset,
        &mut f.status,
        &mut f.min_rank,
        &mut f.max_rank,
        &mut f.handicap,
        &mut f.komi,
    ] {
        drop_blank(v);
    }
}
