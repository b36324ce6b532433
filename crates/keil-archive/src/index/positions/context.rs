//! What one position search works on: its colour [`Side`]s (the query,
//! and its colour swap) and its [`Context`] (the index, the game facts,
//! the connection, the filter and the budget).

use keil_rules::{AnyPosition, Color};

use super::index::{MatchKey, PositionIndex};
use super::key::{BUTTON_BIT, any_index_key};
use super::posting::Variant;
use super::query::PositionQuery;
use crate::error::Result;
use crate::index::facts::{Facts, Selection};
use keil_store::Read;
use keil_store::budget::Budget;

/// One side of a search (the query, or its colour swap): the match key,
/// the board without button (as given, and canonical), the symmetry back to
/// the query.
pub(super) struct Side {
    pub(super) key: MatchKey,
    pub(super) board: AnyPosition,
    pub(super) canon: AnyPosition,
    pub(super) to_query: u8,
    pub(super) swapped: bool,
}

impl Side {
    /// The query's colour sides: as given, then, with `swap_colors`, with
    /// colours (and the player to move) exchanged.
    pub(super) fn all(q: &PositionQuery, generation: u64) -> Vec<Side> {
        let mut sides = vec![Side::new(q.position, q.to_move, q, generation)];
        if q.swap_colors {
            let to_move = q.to_move.map(Color::opposite);
            let mut side = Side::new(q.position.swap_colors(), to_move, q, generation);
            side.swapped = true;
            sides.push(side);
        }
        sides
    }

    fn new(p: AnyPosition, to_move: Option<Color>, q: &PositionQuery, generation: u64) -> Side {
        // The board alone: its key has the button bit clear, and the
        // query's button restriction picks one or both of the two adjacent
        // keys (Keil; Go keys have the bit clear).
        let mut p = p;
        if let AnyPosition::Keil(k) = &mut p {
            k.set_button_taken(false);
        }
        let board = p.board();
        let (key, s_q) = any_index_key(&p, None);
        let keys = match (q.button, &p) {
            (_, AnyPosition::Go(_)) => key..=key,
            (None, _) => key..=key | BUTTON_BIT,
            (Some(b), _) => {
                let k = key | u64::from(b);
                k..=k
            }
        };
        let canon = p.transform(s_q);
        let count = board.symmetry_count();
        // Symmetries of the game orientation allowed when images don't
        // match: those under which the game's board is the query's board.
        let orientations: u16 = if q.symmetry {
            (1 << count) - 1
        } else {
            (0..count)
                .filter(|&s| canon.transform(board.inverse(s)) == p)
                .fold(0, |m, s| m | 1 << s)
        };
        Side {
            key: MatchKey {
                generation,
                keys,
                orientations,
                white_to_move: to_move.map(|c| c == Color::White),
                filter: format!(
                    "{:?}",
                    keil_store::model::GameFilter {
                        kind: None,
                        size: None,
                        ..q.filter.clone()
                    }
                ),
                move_limit: q.explore.move_limit,
                history: q.explore.history,
            },
            board: p,
            canon,
            to_query: board.inverse(s_q),
            swapped: false,
        }
    }

    /// A variant in the query's colours.
    pub(super) fn seen(&self, v: Variant) -> Variant {
        if self.swapped { v ^ 1 } else { v }
    }
}

/// What a search reads: the index, the game facts, the connection, the
/// query's filter and its budget.
pub(super) struct Context<'a> {
    pub(super) index: &'a PositionIndex,
    pub(super) facts: &'a Facts,
    pub(super) conn: Read<'a>,
    pub(super) filter: &'a keil_store::model::GameFilter,
    /// The filter as the search applies it, read on the first match list
    /// not in the cache (a popular position's search reads none).
    pub(super) selection: std::cell::OnceCell<Selection>,
    pub(super) budget: &'a Budget,
}

impl<'a> Context<'a> {
    /// A search's context.
    pub(super) fn new(
        index: &'a PositionIndex,
        facts: &'a Facts,
        conn: Read<'a>,
        filter: &'a keil_store::model::GameFilter,
        budget: &'a Budget,
    ) -> Context<'a> {
        Context {
            index,
            facts,
            conn,
            filter,
            selection: std::cell::OnceCell::new(),
            budget,
        }
    }

    /// The filter as the search applies it ([`Selection::new`]), read
    /// once.
    pub(super) fn selection(&self) -> Result<&Selection> {
        if let Some(s) = self.selection.get() {
            return Ok(s);
        }
        let s = Selection::new(self.conn, self.facts, self.filter)?;
        Ok(self.selection.get_or_init(|| s))
    }
}
