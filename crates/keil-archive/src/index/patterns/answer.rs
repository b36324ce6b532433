//! A search's matches before paging ([`Matched`]: kept in the answer cache
//! per index state), put in answer order as far as a page needs (the page
//! itself, with its games' details read from the store, is
//! [`super::search::page`]'s).

use super::index::{self, Group, Line};
use super::placement::Placements;
use super::query::PatternContinuation;
use super::variations;
use keil_store::model::YearCount;

/// A game's matches before paging (16 bytes: a search may list a million;
/// its date, id and plies are read from its line when it is shown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct GameMatch {
    /// The game's index in its [`Group`].
    pub(super) line: u32,
    /// The first match's node.
    pub(super) node: u16,
    /// The first match's continuation (a pattern point), `u16::MAX` for
    /// none.
    pub(super) next: u16,
    /// The first match's placement.
    pub(super) placement: u32,
    pub(super) hits: u32,
}

/// A search's matches before paging (cached per index generation).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Matched {
    pub(crate) placements: u32,
    pub(crate) total_hits: u64,
    pub(super) continuations: Vec<PatternContinuation>,
    pub(super) history: Option<Vec<YearCount>>,
    /// The games with hits, in the order `order` says.
    pub(super) games: Vec<GameMatch>,
    pub(super) order: GameOrder,
    /// The query's top games
    /// ([`PatternAnswer::top_games`](super::query::PatternAnswer::top_games)).
    pub(super) top: Vec<GameMatch>,
    pub(super) placement_sym: Vec<(u8, bool)>,
    /// The variation lines games' first matches are in, by game (a game
    /// without one has its first match on its main line).
    pub(super) variations: Vec<variations::Variation>,
}

/// The order of a [`Matched`]'s games.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum GameOrder {
    /// Answer order ([`index::answer_order`]).
    Answer,
    /// Game order, with a bit per game of the group set for each game
    /// listed: the answer order is [`Group::listed`]'s, walked as far as a
    /// page needs. (Putting a million games in answer order would cost a
    /// search more than its hits do.)
    Game(Vec<u64>),
}

impl GameOrder {
    /// Games put in answer order at once, whatever their share of the
    /// group (a sort of that many takes well under a millisecond).
    const SORTED: usize = 8_192;

    /// Puts `games` (in game order; `bits` has a bit per game of the group
    /// set for each) in answer order when there are few of them (at most
    /// [`GameOrder::SORTED`] and a sixteenth of the group's games, or less
    /// than one in 1,024 of them: a sort then costs little, and a walk
    /// through the group's order could pass many games for each one
    /// listed, all of them when a filter keeps a span of dates) or when
    /// the group has no complete order; else says they stay in game order.
    pub(super) fn settle(group: &Group, games: &mut [GameMatch], bits: Vec<u64>) -> GameOrder {
        let n = group.lines.len();
        let few = games.len() <= Self::SORTED.min(n / 16) || games.len() * 1024 < n;
        if !group.is_ordered() || few {
            games.sort_by_cached_key(|h| group.answer_key(h.line));
            return GameOrder::Answer;
        }
        GameOrder::Game(bits)
    }
}

impl Matched {
    /// No match yet of the query placed as `placements`.
    pub(super) fn none(placements: &Placements) -> Matched {
        Matched {
            placements: placements.list.len() as u32,
            total_hits: 0,
            continuations: Vec::new(),
            history: None,
            games: Vec::new(),
            order: GameOrder::Answer,
            top: Vec::new(),
            placement_sym: placements.list.iter().map(|p| (p.sym, p.swapped)).collect(),
            variations: Vec::new(),
        }
    }

    /// Up to `n` games in answer order, from the first after the cursor
    /// `after` (date, id) or from the first; and whether more follow.
    /// `group` is the matches' group as the index holds it now (`None`
    /// when it holds none: no game is then listed in game order).
    pub(super) fn in_order(
        &self,
        group: Option<&Group>,
        after: Option<(u32, u32)>,
        n: usize,
    ) -> (Vec<GameMatch>, bool) {
        match &self.order {
            GameOrder::Answer => {
                let order = |h: &GameMatch| {
                    group
                        .and_then(|g| g.lines.get(h.line as usize))
                        .map_or(std::cmp::Reverse(0), Line::order)
                };
                let first = after.map_or(0, |(d, g)| {
                    self.games
                        .partition_point(|h| order(h) <= index::answer_order(d, g))
                });
                let end = (first + n).min(self.games.len());
                (self.games[first..end].to_vec(), end < self.games.len())
            }
            GameOrder::Game(bits) => {
                let Some(group) = group else {
                    return (Vec::new(), false);
                };
                let order = |g: u32| group.answer_order(g);
                let first = after.map_or(0, |(d, g)| {
                    group
                        .listed
                        .partition_point(|&l| order(l) <= index::answer_order(d, g))
                });
                let mut out = Vec::with_capacity(n.min(self.games.len()));
                for &g in &group.listed[first..] {
                    if bits
                        .get(g as usize / 64)
                        .is_none_or(|w| w >> (g % 64) & 1 == 0)
                    {
                        continue;
                    }
                    if out.len() == n {
                        return (out, true);
                    }
                    if let Ok(i) = self.games.binary_search_by_key(&g, |h| h.line) {
                        out.push(self.games[i]);
                    }
                }
                (out, false)
            }
        }
    }

    /// Bytes held (for the answer cache's weight).
    pub(crate) fn bytes(&self) -> usize {
        (self.games.len() + self.top.len()) * std::mem::size_of::<GameMatch>()
            + match &self.order {
                GameOrder::Answer => 0,
                GameOrder::Game(bits) => bits.len() * 8,
            }
            + self
                .continuations
                .iter()
                .map(|c| 128 + c.history.as_ref().map_or(0, |h| h.len() * 32))
                .sum::<usize>()
            + self.history.as_ref().map_or(0, |h| h.len() * 32)
            + self.placement_sym.len() * 2
    }
}
