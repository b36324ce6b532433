//! A pattern search's tally: its hits counted per game (hits, first
//! match) and per pattern point and colour (Kombilo's continuation
//! table), with the query's filter, move limit, next move and history.
//!
//! **Cost.** A search may count hundreds of thousands of hits in a group of
//! a million games, placement by placement, each placement's hits in game
//! order; its memory reads, not its arithmetic, take the time. Each game's
//! counts sit in one 16-byte [`Slot`] of an array as long as the group,
//! indexed by the game's place in the answer order ([`Group::rank`], read
//! in game order like the hits): the games with hits are then read back in
//! answer order, forwards through the array, rather than once more at
//! random. (Games added since the group's order was last worked out have
//! no place yet: the slots are then indexed by game and the games sorted.)
//! Hits are counted a batch at a time, the batch's slots read first so that
//! their cache misses overlap. The arrays are pooled ([`SlotPool`]) and
//! stamped with a generation per search rather than cleared, so a search
//! neither allocates nor touches the slots of games without hits.

use std::borrow::Cow;
use std::sync::Mutex;

use keil_rules::Color;

use super::index::Group;
use super::placement::Placements;
use super::{GameMatch, MoveStats, PatternQuery, regions};
use crate::facts::{Selection, Table, Years, in_colors};
use crate::model::YearCount;

/// One game's counts in a search (valid when `seen` is the search's
/// generation).
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// The first match as `node << 48 | placement << 16 | continuation
    /// point` (`u16::MAX` for none): the least is the earliest node, then
    /// the first placement. `u64::MAX` before a hit.
    first: u64,
    /// The hits counted, or [`DROPPED`] for a game the filter leaves out.
    hits: u32,
    /// The generation of the search that last wrote the slot.
    seen: u32,
}

/// [`Slot::hits`] of a game the filter leaves out.
const DROPPED: u32 = u32::MAX;

/// Hits counted at a time ([`Tally::push`]).
const BATCH: usize = 64;

/// Reads the slots and winners of a batch's hits (slot, game index) ahead
/// of their use, so that their cache misses overlap rather than come one
/// after another.
#[inline]
fn touch(slots: &[Slot], winners: &[i8], at: impl Iterator<Item = (usize, u32)>) {
    let mut any = 0u32;
    for (i, g) in at {
        any ^= slots[i].seen ^ winners[g as usize] as u32;
    }
    std::hint::black_box(any);
}

/// Slot arrays with their generations.
#[derive(Debug, Default)]
struct Slots {
    generation: u32,
    slots: Vec<Slot>,
}

/// Slot arrays kept between searches (a few: one per search running at
/// once, up to [`SlotPool::IDLE`] kept idle).
#[derive(Debug, Default)]
pub(crate) struct SlotPool(Mutex<Vec<Slots>>);

impl SlotPool {
    /// Idle arrays kept (each 16 bytes a game of its group).
    const IDLE: usize = 2;

    /// An array of at least `games` slots, with a generation none of them
    /// carries.
    fn take(&self, games: usize) -> Slots {
        let mut s = self.0.lock().expect("poisoned").pop().unwrap_or_default();
        if s.slots.len() < games {
            s.slots.resize(games, Slot::default());
        }
        s.generation = s.generation.wrapping_add(1);
        if s.generation == 0 {
            // Every stamp could be stale: start again.
            s.slots.fill(Slot::default());
            s.generation = 1;
        }
        s
    }

    fn give_back(&self, s: Slots) {
        let mut idle = self.0.lock().expect("poisoned");
        if idle.len() < Self::IDLE {
            idle.push(s);
        }
    }

    /// Bytes held by the idle arrays.
    pub(crate) fn bytes(&self) -> usize {
        let idle = self.0.lock().expect("poisoned");
        idle.iter()
            .map(|s| s.slots.capacity() * std::mem::size_of::<Slot>())
            .sum()
    }
}

/// Which games a search counts.
pub(super) enum Keep<'a> {
    /// Every game (none removed, no filter).
    All,
    /// Per game index, whether it counts: the group's mask of removed
    /// games, or a filter's answer worked out beforehand (one that reads
    /// the store).
    Mask(Cow<'a, [bool]>),
    /// The filter, asked of each game's facts at its first hit (removed
    /// games have none, so it drops them).
    Facts {
        table: &'a Table,
        selection: &'a Selection,
    },
}

impl Keep<'_> {
    #[inline]
    fn keeps(&self, group: &Group, g: usize) -> bool {
        match self {
            Keep::All => true,
            Keep::Mask(mask) => mask[g],
            Keep::Facts { table, selection } => {
                table.get(group.ids[g]).is_some_and(|f| selection.keeps(f))
            }
        }
    }

    /// Reads what [`Keep::keeps`] will read for the games `gs` (a batch's)
    /// ahead of it, their facts' cache misses overlapping (as [`touch`]).
    fn touch(&self, group: &Group, gs: impl Iterator<Item = u32>) {
        if let Keep::Facts { table, .. } = self {
            let mut any = 0u32;
            for g in gs {
                // Both ends of the fact: one may straddle two cache lines.
                any ^= table
                    .get(group.ids[g as usize])
                    .map_or(0, |f| f.date ^ u32::from(f.handicap));
            }
            std::hint::black_box(any);
        }
    }
}

/// A search's hits as they are counted: per game its hits and first
/// match, and the continuation statistics per pattern point and colour.
pub(super) struct Tally<'a> {
    group: &'a Group,
    pool: &'a SlotPool,
    fold: &'a [u16],
    swapped: Vec<bool>,
    keep: Keep<'a>,
    /// Per place in the answer order (or per game index, without
    /// `ranked`), its counts (taken from `pool`, given back on drop).
    slots: Slots,
    /// Whether the slots are indexed by place in the answer order: every
    /// game of the group has one.
    ranked: bool,
    /// A bit per slot, set for each game with hits, and their number.
    with_hits: Vec<u64>,
    games: usize,
    /// Hits waiting to be counted ([`Tally::push`]).
    pending: Vec<(u32, u32, u16, regions::Next)>,
    pub(super) stats: Vec<[MoveStats; 2]>,
    /// With the query's `history`: per pattern point, its continuations'
    /// hits by year.
    pub(super) years: Option<Vec<Years>>,
    /// The query's move limit (plies) and next move's colour, and whether
    /// it has either.
    move_limit: Option<u32>,
    next: Option<Color>,
    options: bool,
    pub(super) total_hits: u64,
}

impl Drop for Tally<'_> {
    fn drop(&mut self) {
        self.pool.give_back(std::mem::take(&mut self.slots));
    }
}

impl<'a> Tally<'a> {
    /// A tally of the continuations at `q`'s pattern points, with its
    /// move limit, next move and history, counting the games `keep` keeps.
    pub(super) fn new(
        group: &'a Group,
        pool: &'a SlotPool,
        placements: &'a Placements,
        q: &PatternQuery,
        keep: Keep<'a>,
    ) -> Tally<'a> {
        let points = q.pattern.cells().len();
        let ranked =
            group.rank.len() == group.lines.len() && group.listed.len() == group.lines.len();
        Tally {
            group,
            pool,
            fold: &placements.fold,
            swapped: placements.list.iter().map(|pl| pl.swapped).collect(),
            keep,
            slots: pool.take(group.lines.len()),
            ranked,
            with_hits: vec![0; group.lines.len().div_ceil(64)],
            games: 0,
            pending: Vec::with_capacity(BATCH),
            stats: vec![[MoveStats::default(); 2]; points],
            years: q.history.then(|| vec![Years::default(); points]),
            move_limit: q.move_limit,
            next: q.next,
            options: q.move_limit.is_some() || q.next.is_some(),
            total_hits: 0,
        }
    }

    /// Counts the hit of placement `k` in game `g` at node `t`, whose
    /// continuation is `next` (its point not yet folded), with the hits
    /// before it: a batch at a time, whose games' slots are all read
    /// first (the reads do not wait on one another, so their cache misses
    /// overlap), then counted. [`Tally::flush`] counts the last batch.
    #[inline]
    pub(super) fn push(&mut self, g: u32, k: u32, t: u16, next: regions::Next) {
        self.pending.push((g, k, t, next));
        if self.pending.len() == BATCH {
            self.flush();
        }
    }

    /// The slot of game index `g`.
    #[inline(always)]
    fn slot_of(&self, g: u32) -> usize {
        if self.ranked {
            self.group.rank[g as usize] as usize
        } else {
            g as usize
        }
    }

    /// Counts the hits waiting in the batch.
    pub(super) fn flush(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        touch(
            &self.slots.slots,
            &self.group.winners,
            pending.iter().map(|h| (self.slot_of(h.0), h.0)),
        );
        self.keep.touch(self.group, pending.iter().map(|h| h.0));
        if self.options || self.years.is_some() {
            // The move limit and the years read the games' lines.
            let mut any = 0u32;
            for h in &pending {
                let line = &self.group.lines[h.0 as usize];
                any ^= line.plies ^ u32::from(line.nodes.is_some());
            }
            std::hint::black_box(any);
        }
        for &(g, k, t, next) in &pending {
            self.add(g, k, t, next);
        }
        self.pending = pending;
        self.pending.clear();
    }

    /// Counts one hit (see [`Tally::push`]). Written without branches on
    /// what the data decides (a game's first hit or not, its winner):
    /// hits come in no order a branch predictor can learn.
    #[inline(always)]
    fn add(&mut self, g: u32, k: u32, t: u16, next: regions::Next) {
        let at = self.slot_of(g);
        let g = g as usize;
        let slot = self.slots.slots[at];
        let fresh = slot.seen != self.slots.generation;
        let first = if fresh { u64::MAX } else { slot.first };
        let mut hits = if fresh { 0 } else { slot.hits };
        if fresh && !matches!(self.keep, Keep::All) && !self.keep.keeps(self.group, g) {
            hits = DROPPED;
        }
        self.slots.slots[at] = Slot {
            first,
            hits,
            seen: self.slots.generation,
        };
        if hits == DROPPED || (self.options && !self.admits(g, t, next)) {
            return;
        }
        self.total_hits += 1;
        if let Some((pp, color, tenuki)) = next {
            let point = usize::from(self.fold[usize::from(pp)]);
            let s = &mut self.stats[point][color.index()];
            s.count += 1;
            s.after_tenuki += u64::from(tenuki);
            // The winner in the pattern's colours.
            let winner = in_colors(self.group.winners[g], self.swapped[k as usize]);
            s.black_wins += u64::from(winner == 0);
            s.white_wins += u64::from(winner == 1);
            if self.years.is_some() {
                self.add_year(point, g, winner);
            }
        }
        self.with_hits[at / 64] |= 1 << (at % 64);
        self.games += usize::from(hits == 0);
        let here =
            u64::from(t) << 48 | u64::from(k) << 16 | u64::from(next.map_or(u16::MAX, |n| n.0));
        let slot = &mut self.slots.slots[at];
        slot.hits = hits + 1;
        slot.first = first.min(here);
    }

    /// Counts a variation line's hit of placement `k` in game `g` at node
    /// `t` (its move limit already checked against the line's plies), after
    /// the main lines' hits; whether it is now the game's first match
    /// (strictly earlier than every hit counted before).
    pub(super) fn add_line(&mut self, g: u32, k: u32, t: u16, next: regions::Next) -> bool {
        self.flush();
        let at = self.slot_of(g);
        let slot = self.slots.slots[at];
        let before = if slot.seen == self.slots.generation {
            slot.first
        } else {
            u64::MAX
        };
        // The line's plies are not its game's: the move limit is off here.
        let move_limit = self.move_limit.take();
        let options = self.options;
        self.options = self.next.is_some();
        self.add(g, k, t, next);
        self.move_limit = move_limit;
        self.options = options;
        self.slots.slots[at].first < before
    }

    /// Whether the query's move limit and next move admit a hit of game
    /// `g` at node `t` continued by `next` (out of the hot path: most
    /// searches have neither).
    #[cold]
    #[inline(never)]
    fn admits(&self, g: usize, t: u16, next: regions::Next) -> bool {
        self.next.is_none_or(|c| next.is_some_and(|n| n.1 == c))
            && self
                .move_limit
                .is_none_or(|m| self.group.lines[g].ply_at(t) <= m)
    }

    /// Counts a continuation at pattern point `point` of game `g` (won by
    /// `winner` in the pattern's colours) in its year.
    #[cold]
    #[inline(never)]
    fn add_year(&mut self, point: usize, g: usize, winner: i8) {
        let year = (self.group.lines[g].date / 10_000) as u16;
        if let Some(years) = &mut self.years {
            years[point].add(year, winner);
        }
    }

    /// Game `g`'s matches (it has hits), from its slot `at`.
    #[inline]
    fn game_at(&self, g: u32, at: usize) -> GameMatch {
        let slot = &self.slots.slots[at];
        GameMatch {
            line: g,
            node: (slot.first >> 48) as u16,
            next: slot.first as u16,
            placement: (slot.first >> 16) as u32,
            hits: slot.hits,
            variation: u32::MAX,
        }
    }

    /// The games with hits, in answer order ([`Group::answer_order`]): by
    /// the bits of their slots, forwards through the slots; sorted when
    /// the slots are indexed by game.
    pub(super) fn games(&self) -> Vec<GameMatch> {
        debug_assert!(
            self.pending.is_empty(),
            "a tally is flushed before it is read"
        );
        let group = self.group;
        let mut games = Vec::with_capacity(self.games);
        for (w, &word) in self.with_hits.iter().enumerate() {
            let mut b = word;
            while b != 0 {
                let at = w * 64 + b.trailing_zeros() as usize;
                let g = if self.ranked {
                    group.listed[at]
                } else {
                    at as u32
                };
                games.push(self.game_at(g, at));
                b &= b - 1;
            }
        }
        if !self.ranked {
            games.sort_unstable_by_key(|h| group.answer_order(h.line));
        }
        games
    }

    /// `games` (this tally's [`Tally::games`]) by year and winner (in the
    /// colours of each game's first match), a batch at a time whose lines
    /// and winners are read first (as [`touch`]).
    pub(super) fn history(&self, games: &[GameMatch]) -> Vec<YearCount> {
        let group = self.group;
        let mut years = Years::default();
        for batch in games.chunks(BATCH) {
            let mut any = 0u32;
            for h in batch {
                let g = h.line as usize;
                any ^= group.lines[g].date ^ group.winners[g] as u32;
            }
            std::hint::black_box(any);
            for h in batch {
                let g = h.line as usize;
                let swapped = self.swapped[h.placement as usize];
                years.add(
                    (group.lines[g].date / 10_000) as u16,
                    in_colors(group.winners[g], swapped),
                );
            }
        }
        years.to_vec()
    }

    /// The `n` of `games` (this tally's [`Tally::games`], in answer order)
    /// whose weaker player ranks highest, then in answer order, from
    /// `table`; the facts read a batch at a time (as [`touch`]).
    pub(super) fn top(&self, games: &[GameMatch], table: &Table, n: usize) -> Vec<GameMatch> {
        if n == 0 {
            return Vec::new();
        }
        let group = self.group;
        let fact = |h: &GameMatch| table.get(group.ids[h.line as usize]);
        let mut ranked = Vec::new();
        for (b, batch) in games.chunks(BATCH).enumerate() {
            let mut any = 0u32;
            for h in batch {
                any ^= fact(h).map_or(0, |f| f.date);
            }
            std::hint::black_box(any);
            for (i, h) in batch.iter().enumerate() {
                let rank = fact(h).map_or(0, crate::facts::Fact::weaker_rank);
                ranked.push((rank, (b * BATCH + i) as u32));
            }
        }
        // A game's place in `games` is its place in the answer order.
        crate::facts::top_ranked(ranked.into_iter(), n, |&i| i)
            .into_iter()
            .map(|i| games[i as usize])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooled_slots_grow_and_start_again_when_the_generation_wraps() {
        let pool = SlotPool::default();
        let mut s = pool.take(3);
        assert_eq!((s.generation, s.slots.len()), (1, 3));
        s.slots[2] = Slot {
            first: 7,
            hits: 2,
            seen: 1,
        };
        pool.give_back(s);
        // The same array, grown, under a new generation: the old stamp is
        // stale.
        let mut s = pool.take(5);
        assert_eq!((s.generation, s.slots.len()), (2, 5));
        assert_ne!(s.slots[2].seen, s.generation);
        // A wrapped generation would make a stamp of long ago current:
        // every slot is cleared instead.
        s.generation = u32::MAX;
        s.slots[4].seen = 1;
        pool.give_back(s);
        let s = pool.take(5);
        assert_eq!(s.generation, 1);
        assert!(s.slots.iter().all(|x| x.seen == 0 && x.hits == 0));
        assert_eq!(pool.bytes(), 0);
        pool.give_back(s);
        assert!(pool.bytes() >= 5 * 16);
    }
}
