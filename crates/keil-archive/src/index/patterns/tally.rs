//! A pattern search's tally: its hits counted per game (hits, first
//! match) and per pattern point and colour (Kombilo's continuation
//! table), with the query's filter, move limit, next move and history.
//!
//! **Cost.** A search may count hundreds of thousands of hits in a group of
//! a million games, placement by placement, each placement's hits in game
//! order; its memory traffic, not its arithmetic, takes the time. So the
//! hits are counted a window of games at a time (every placement's hits in
//! the window, then the next window's; a window is a sixteenth of the
//! group, at most [`MAX_WINDOW`] games): each game's counts sit in one
//! 16-byte [`Slot`] of an array as long as the window (at most 1 MiB,
//! which stays in the core's own cache), and the games with hits
//! come out in game order, window after window. Everything else a hit
//! reads (its game's winner, the filter's bit for it, its move count and
//! year: [`GroupFacts`], [`Group::plies`], [`Group::years`]) is read in
//! game order too, forwards through compact arrays as the hardware
//! prefetches. The games are
//! put in answer order afterwards, and only as far as a page needs
//! ([`super::answer::GameOrder`]).
//!
//! (An earlier tally kept a slot per game of the group, indexed by answer
//! order: each hit's read and write was a miss to memory. A sort of the
//! hits by answer order instead was slower still: two passes over the
//! hits.)
//!
//! The window's array is pooled ([`SlotPool`]) and stamped with a
//! generation per window rather than cleared.

use std::sync::{Arc, Mutex};

use keil_rules::Color;

use super::answer::GameMatch;
use super::index::Group;
use super::placement::Placements;
use super::query::{MoveStats, PatternQuery};
use super::regions;
use crate::index::facts::{Selection, Table, Years, in_colors};
use keil_store::model::YearCount;

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

/// The most games counted at a time. A window is a multiple of 64 games
/// (the bits of a word of [`Tally::with_hits`], and the index's block of
/// games, so that a scan's hits come window after window).
const MAX_WINDOW: u32 = 1 << 16;

/// Slot arrays with their generations.
#[derive(Debug, Default)]
struct Slots {
    generation: u32,
    slots: Vec<Slot>,
}

impl Slots {
    /// A generation none of the slots carries.
    fn next_generation(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Every stamp could be stale: start again.
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
    }
}

/// Slot arrays kept between searches (a few: one per search running at
/// once, up to [`SlotPool::IDLE`] kept idle; each a window's).
#[derive(Debug, Default)]
pub(crate) struct SlotPool(Mutex<Vec<Slots>>);

impl SlotPool {
    /// Idle arrays kept (each 16 bytes a game of a window).
    const IDLE: usize = 2;

    /// An array of at least `games` slots, with a generation none of them
    /// carries.
    fn take(&self, games: usize) -> Slots {
        let mut s = self.0.lock().expect("poisoned").pop().unwrap_or_default();
        if s.slots.len() < games {
            s.slots.resize(games, Slot::default());
        }
        s.next_generation();
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

/// Facts over a group's games, worked out from the facts' table and kept
/// between searches (keyed by what they were worked out on: the facts'
/// and the group's state):
///
/// - filters' answers, a bit per game index set for each game the filter
///   keeps. An explorer's user keeps a filter while browsing positions and
///   patterns: the first search with it reads every game's facts once (a
///   pass through them in order), the next ones a bit per game with hits,
///   rather than its facts (32 bytes a game, spread through memory). Up to
///   [`GroupFacts::MASKS`] are kept (in a `quick_cache`, as the answers
///   are: the least used dropped first);
/// - the weaker player's rank ([`crate::index::facts::Fact::weaker_rank`]), a
///   byte per game index, for the top games (one per group state, up to
///   [`GroupFacts::RANKS`]).
pub(crate) struct GroupFacts {
    masks: quick_cache::sync::Cache<String, Arc<Vec<u64>>>,
    ranks: quick_cache::sync::Cache<String, Arc<Vec<u8>>>,
}

impl Default for GroupFacts {
    fn default() -> GroupFacts {
        GroupFacts {
            masks: quick_cache::sync::Cache::new(Self::MASKS),
            ranks: quick_cache::sync::Cache::new(Self::RANKS),
        }
    }
}

impl std::fmt::Debug for GroupFacts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupFacts")
            .field("masks", &self.masks.len())
            .field("ranks", &self.ranks.len())
            .finish()
    }
}

impl GroupFacts {
    /// Filters' answers kept (each a bit a game of its group: 125 KiB at
    /// a million).
    const MASKS: usize = 8;
    /// Rank columns kept (each a byte a game of its group).
    const RANKS: usize = 2;

    /// The answer of `selection` (as `filter` names it) over `group`'s
    /// games, from `table` (at `state`, which names the facts' and the
    /// group's state): kept, or worked out now (once, however many
    /// searches ask for it at the same time).
    pub(super) fn mask(
        &self,
        state: &str,
        filter: &str,
        group: &Group,
        table: &Table,
        selection: &Selection,
    ) -> Arc<Vec<u64>> {
        let key = format!("{state} {filter}");
        let built = self.masks.get_or_insert_with(&key, || {
            let mut bits = vec![0u64; group.ids.len().div_ceil(64)];
            for (g, &id) in group.ids.iter().enumerate() {
                let keeps = table.get(id).is_some_and(|f| selection.keeps(f));
                bits[g / 64] |= u64::from(keeps) << (g % 64);
            }
            Ok::<_, std::convert::Infallible>(Arc::new(bits))
        });
        let Ok(mask) = built;
        mask
    }

    /// The weaker player's rank of each of `group`'s games (0 when either
    /// rank is unknown), from `table` (at `state`, as for
    /// [`GroupFacts::mask`]): kept, or worked out now.
    pub(super) fn ranks(&self, state: &str, group: &Group, table: &Table) -> Arc<Vec<u8>> {
        let built = self.ranks.get_or_insert_with(state, || {
            let rank = |id| {
                table
                    .get(id)
                    .map_or(0, crate::index::facts::Fact::weaker_rank)
            };
            Ok::<_, std::convert::Infallible>(Arc::new(
                group.ids.iter().map(|&id| rank(id)).collect(),
            ))
        });
        let Ok(ranks) = built;
        ranks
    }

    /// Bytes held by the columns kept.
    pub(crate) fn bytes(&self) -> usize {
        self.masks
            .iter()
            .map(|(k, m)| k.len() + m.len() * 8)
            .chain(self.ranks.iter().map(|(k, r)| k.len() + r.len()))
            .sum()
    }
}

/// What a region lookup's continuation byte stands for in one placement
/// (from [`regions::lookup::Lookup::next`]), worked out once a search.
struct CodeTable {
    /// Per byte, its row of [`Tally::codes`]: `(folded point × 2 + colour)
    /// × 2 + after tenuki`, or the last row for no continuation.
    rows: [u16; 256],
    /// Per byte, the pattern point (not folded; `u16::MAX` for none), as
    /// [`Slot::first`] holds it.
    points: [u16; 256],
    /// Per byte, whether the query's next move admits it.
    admits: [bool; 256],
    /// Whether the placement's colours are the pattern's swapped.
    swapped: bool,
}

/// Which games a search counts.
pub(super) enum Keep<'a> {
    /// Every game (none removed, no filter).
    All,
    /// Per game index, whether it counts: the group's mask of removed
    /// games.
    Mask(&'a [bool]),
    /// A filter's answer over the group's games, a bit per game index
    /// ([`GroupFacts::mask`]; or worked out beforehand for the games with
    /// hits, for a filter that reads the store).
    Bits(Arc<Vec<u64>>),
}

impl Keep<'_> {
    #[inline]
    fn keeps(&self, g: usize) -> bool {
        match self {
            Keep::All => true,
            Keep::Mask(mask) => mask[g],
            Keep::Bits(bits) => bits.get(g / 64).is_some_and(|w| w >> (g % 64) & 1 != 0),
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
    /// Per game of the window, its counts (taken from `pool`, given back
    /// on drop).
    slots: Slots,
    /// The window's first game, and its length (see the module docs).
    start: u32,
    window: u32,
    /// A bit per slot of the window, set for each game with hits.
    with_hits: Vec<u64>,
    /// The games with hits of the windows closed, in game order, and a
    /// bit per game of those windows set for each.
    games: Vec<GameMatch>,
    bits: Vec<u64>,
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
    /// A region lookup's hits ([`Tally::push_code`]) are counted here,
    /// four counts a [`CodeTable::rows`] row (by the winner in the
    /// pattern's colours: Black, White, -, nobody), a table that stays in
    /// the core's cache, and added to `stats` and `total_hits` when a
    /// window closes ([`Tally::flush_codes`]).
    codes: Vec<u32>,
    /// Rows of `codes` a year (a row per folded point, colour and tenuki,
    /// and one for none), 0 before the first table.
    rows: usize,
    /// With the history, when the group's years span few enough: the
    /// counts are by year too, `codes` one block of `rows` rows a year
    /// from the undated (block 0) and then `first_year` on; else 0 (one
    /// block, and the history counted hit by hit in `years`).
    first_year: u16,
    /// Per placement, its [`CodeTable`] once it has had a hit.
    tables: Vec<Option<Box<CodeTable>>>,
    /// The group's winners ([`Group::winners`]).
    winners: &'a [i8],
}

impl Drop for Tally<'_> {
    fn drop(&mut self) {
        self.pool.give_back(std::mem::take(&mut self.slots));
    }
}

impl<'a> Tally<'a> {
    /// The most years (dated games from the first year to the last) whose
    /// history a region lookup counts in its table of counts, a block of
    /// rows a year: 256 blocks of a 7×7 pattern's 197 rows are 0.8 MiB.
    /// Wider spans are counted hit by hit.
    const YEAR_BLOCKS: usize = 256;

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
        let window = (group.lines.len() as u32 / 16)
            .next_multiple_of(64)
            .clamp(64, MAX_WINDOW);
        Tally {
            group,
            pool,
            fold: &placements.fold,
            swapped: placements.list.iter().map(|pl| pl.swapped).collect(),
            keep,
            slots: pool.take(window as usize),
            start: 0,
            window,
            with_hits: vec![0; window as usize / 64],
            games: Vec::new(),
            bits: Vec::with_capacity(group.lines.len().div_ceil(64)),
            stats: vec![[MoveStats::default(); 2]; points],
            years: q.explore.history.then(|| vec![Years::default(); points]),
            move_limit: q.explore.move_limit,
            next: q.explore.next,
            options: q.explore.move_limit.is_some() || q.explore.next.is_some(),
            total_hits: 0,
            codes: Vec::new(),
            rows: 0,
            first_year: 0,
            tables: Vec::new(),
            winners: &group.winners,
        }
    }

    /// Makes room for `games` more games with hits (the most a search can
    /// find, or less: their list then grows as they come), so that the
    /// list is not copied as it grows. Room never written costs no memory.
    pub(super) fn reserve(&mut self, games: usize) {
        self.games.reserve(games.min(self.group.lines.len()));
    }

    /// The first game of the window being counted.
    pub(super) fn window_start(&self) -> u32 {
        self.start
    }

    /// The end of the window being counted (the first game after it).
    pub(super) fn window_end(&self) -> u32 {
        self.start.saturating_add(self.window)
    }

    /// Closes the window being counted: its games with hits join
    /// [`Tally::games`], in game order, and the next window starts.
    pub(super) fn close(&mut self) {
        self.flush_codes();
        for w in 0..self.with_hits.len() {
            let mut b = std::mem::take(&mut self.with_hits[w]);
            self.bits.push(b);
            while b != 0 {
                let at = w * 64 + b.trailing_zeros() as usize;
                self.games.push(self.game_at(self.start + at as u32, at));
                b &= b - 1;
            }
        }
        self.start = self.window_end();
        self.slots.next_generation();
    }

    /// Counts the hit of placement `k` in game `g` (in the window being
    /// counted) at node `t`, whose continuation is `next` (its point not
    /// yet folded). Written without branches on what the data decides (a
    /// game's winner, see [`Tally::slot`]).
    #[inline(always)]
    pub(super) fn push(&mut self, g: u32, k: u32, t: u16, next: regions::Next) {
        let (at, slot) = self.slot(g);
        if slot.hits == DROPPED || (self.options && !self.admits(g as usize, t, next)) {
            self.slots.slots[at] = slot;
            return;
        }
        self.total_hits += 1;
        if let Some((pp, color, tenuki)) = next {
            let point = usize::from(self.fold[usize::from(pp)]);
            let s = &mut self.stats[point][color.index()];
            s.count += 1;
            s.after_tenuki += u64::from(tenuki);
            // The winner in the pattern's colours.
            let winner = in_colors(self.winners[g as usize], self.swapped[k as usize]);
            s.black_wins += u64::from(winner == 0);
            s.white_wins += u64::from(winner == 1);
            if self.years.is_some() {
                self.add_year(point, g as usize, winner);
            }
        }
        let here =
            u64::from(t) << 48 | u64::from(k) << 16 | u64::from(next.map_or(u16::MAX, |n| n.0));
        self.count(at, slot, here);
    }

    /// Counts the hits of placement `k` of `lookup` (in the window being
    /// counted), each `(game, node, continuation byte)` as a region entry
    /// has it ([`regions::lookup::Lookup::next`]): as [`Tally::push`], but their
    /// continuations and the hits are counted in `codes`, not `stats` and
    /// `total_hits`; what the query's next move, history and a game's
    /// first match read of a continuation comes from the placement's
    /// [`CodeTable`].
    pub(super) fn push_codes(
        &mut self,
        lookup: &regions::lookup::Lookup,
        k: u32,
        hits: &[regions::Read],
    ) {
        if self.tables.get(k as usize).is_none_or(Option::is_none) {
            self.add_table(lookup, k);
        }
        let table = self.tables[k as usize].take().expect("a placement's table");
        for &(g, t, code) in hits {
            self.push_code(&table, g, k, t, code);
        }
        self.tables[k as usize] = Some(table);
    }

    /// [`Tally::push_codes`] of one hit, with its placement's table.
    #[inline(always)]
    fn push_code(&mut self, table: &CodeTable, g: u32, k: u32, t: u16, code: u8) {
        let c = usize::from(code);
        let (row, point, next_admits, swapped) = (
            table.rows[c],
            table.points[c],
            table.admits[c],
            table.swapped,
        );
        let (at, slot) = self.slot(g);
        // Whether the hit counts (the filter keeps its game, the options
        // admit it), without a branch: the filter and options decide it
        // in no order a branch predictor can learn.
        let limit = self.move_limit.unwrap_or(u32::MAX);
        let admitted = !self.options || next_admits & (self.group.ply_at(g as usize, t) <= limit);
        let counted = (slot.hits != DROPPED) & admitted;
        let winner = in_colors(self.winners[g as usize], swapped);
        let mut row = usize::from(row);
        if self.first_year > 0 {
            row += Self::year_block(self.first_year, self.group.years[g as usize]) * self.rows;
        } else if self.years.is_some() && counted && point != u16::MAX {
            self.add_year(row >> 2, g as usize, winner);
        }
        self.codes[row << 2 | usize::from(winner as u8 & 3)] += u32::from(counted);
        self.with_hits[at / 64] |= u64::from(counted) << (at % 64);
        let here = u64::from(t) << 48 | u64::from(k) << 16 | u64::from(point);
        self.slots.slots[at] = Slot {
            first: std::hint::select_unpredictable(counted, slot.first.min(here), slot.first),
            hits: slot.hits + u32::from(counted),
            seen: slot.seen,
        };
    }

    /// Works out placement `k`'s [`CodeTable`] (on its first hit).
    #[cold]
    #[inline(never)]
    fn add_table(&mut self, lookup: &regions::lookup::Lookup, k: u32) {
        if self.codes.is_empty() {
            self.rows = self.stats.len() * 4 + 1;
            let mut blocks = 1;
            if self.years.is_some() {
                // The dated games' first and last year, in one pass.
                let (first, last) = self.group.years.iter().fold((u16::MAX, 0), |(lo, hi), &y| {
                    let dated = y > 0;
                    (
                        if dated { lo.min(y) } else { lo },
                        if dated { hi.max(y) } else { hi },
                    )
                });
                if first <= last && usize::from(last - first) < Self::YEAR_BLOCKS {
                    self.first_year = first;
                    blocks = usize::from(last - first) + 2;
                }
            }
            self.codes = vec![0; blocks * self.rows * 4];
        }
        let none = (self.rows - 1) as u16;
        let mut table = Box::new(CodeTable {
            rows: [none; 256],
            points: [u16::MAX; 256],
            admits: [true; 256],
            swapped: self.swapped[k as usize],
        });
        for code in 0..256 {
            let next = lookup.next(k, code as u8);
            if let Some((pp, color, tenuki)) = next {
                let point = self.fold[usize::from(pp)];
                table.rows[code] = (point * 2 + color.index() as u16) * 2 + u16::from(tenuki);
                table.points[code] = pp;
            }
            table.admits[code] = self.next.is_none_or(|c| next.is_some_and(|n| n.1 == c));
        }
        if self.tables.len() <= k as usize {
            self.tables.resize_with(k as usize + 1, || None);
        }
        self.tables[k as usize] = Some(table);
    }

    /// The block of `codes` of `year` (0: undated) when it counts by year
    /// from `first` (`first_year`): 0 for the undated, then one a year.
    #[inline(always)]
    fn year_block(first: u16, year: u16) -> usize {
        if year == 0 {
            0
        } else {
            usize::from(year - first) + 1
        }
    }

    /// The year of block `block` of `codes` ([`Tally::year_block`]).
    fn block_year(first: u16, block: usize) -> u16 {
        if block == 0 {
            0
        } else {
            first + block as u16 - 1
        }
    }

    /// Adds what `codes` counted to `stats`, `total_hits` and (when it
    /// counts by year) `years`, and clears it.
    fn flush_codes(&mut self) {
        if self.rows == 0 {
            return;
        }
        for (i, n) in self.codes.chunks_exact_mut(4).enumerate() {
            let [black, white, _, _] = [n[0], n[1], n[2], n[3]].map(u64::from);
            let all: u64 = n.iter().map(|&c| u64::from(c)).sum();
            n.fill(0);
            self.total_hits += all;
            let (block, row) = (i / self.rows, i % self.rows);
            if row == self.rows - 1 || all == 0 {
                continue;
            }
            let s = &mut self.stats[row >> 2][row >> 1 & 1];
            s.count += all;
            s.after_tenuki += all * (row & 1) as u64;
            s.black_wins += black;
            s.white_wins += white;
            if let Some(years) = self.years.as_mut().filter(|_| self.first_year > 0) {
                let year = Self::block_year(self.first_year, block);
                years[row >> 2].add_counts(year, [all, black, white]);
            }
        }
    }

    /// Game `g`'s slot (in the window being counted) as a hit finds it:
    /// its place, and its counts stamped with the search's generation (no
    /// hits and no first match when the slot was stale, [`DROPPED`] hits
    /// for a game the search leaves out). Written without branches on what
    /// the data decides (a game's first hit or not, whether the filter
    /// keeps it): hits come in no order a branch predictor can learn.
    #[inline(always)]
    fn slot(&self, g: u32) -> (usize, Slot) {
        debug_assert!(
            g >= self.start && g < self.window_end(),
            "a hit in its window"
        );
        let at = (g - self.start) as usize;
        let slot = self.slots.slots[at];
        // A game's first hit in the search finds its slot stale: selects
        // rather than branches (the compiler would otherwise branch).
        let fresh = slot.seen != self.slots.generation;
        let hits = std::hint::select_unpredictable(fresh, 0, slot.hits);
        let kept = self.keep.keeps(g as usize);
        let hits = std::hint::select_unpredictable(kept, hits, DROPPED);
        let slot = Slot {
            first: std::hint::select_unpredictable(fresh, u64::MAX, slot.first),
            hits,
            seen: self.slots.generation,
        };
        (at, slot)
    }

    /// Records a counted hit at `here` (as [`Slot::first`] has it) in
    /// slot `at`, whose counts were `slot`.
    #[inline(always)]
    fn count(&mut self, at: usize, slot: Slot, here: u64) {
        self.with_hits[at / 64] |= 1 << (at % 64);
        self.slots.slots[at] = Slot {
            first: slot.first.min(here),
            hits: slot.hits + 1,
            seen: slot.seen,
        };
    }

    /// Counts a variation line's hit of placement `k` in game `g` (in the
    /// window being counted) at node `t` (its move limit already checked
    /// against the line's plies), after the main lines' hits of the
    /// window; whether it is now the game's first match (strictly earlier
    /// than every hit counted before).
    pub(super) fn add_line(&mut self, g: u32, k: u32, t: u16, next: regions::Next) -> bool {
        let at = (g - self.start) as usize;
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
        self.push(g, k, t, next);
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
            && self.move_limit.is_none_or(|m| self.group.ply_at(g, t) <= m)
    }

    /// Counts a continuation at pattern point `point` of game `g` (won by
    /// `winner` in the pattern's colours) in its year.
    #[inline]
    fn add_year(&mut self, point: usize, g: usize, winner: i8) {
        let year = self.group.years[g];
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
        }
    }

    /// The games with hits, in game order, and a bit per game of the
    /// group set for each (every window closed).
    pub(super) fn games(&mut self) -> (Vec<GameMatch>, Vec<u64>) {
        let mut bits = std::mem::take(&mut self.bits);
        bits.truncate(self.group.lines.len().div_ceil(64));
        (std::mem::take(&mut self.games), bits)
    }

    /// `games` (this tally's [`Tally::games`]) by year and winner (in the
    /// colours of each game's first match).
    pub(super) fn history(&self, games: &[GameMatch]) -> Vec<YearCount> {
        let group = self.group;
        let mut years = Years::default();
        if self.first_year == 0 {
            for h in games {
                let g = h.line as usize;
                let swapped = self.swapped[h.placement as usize];
                years.add(group.years[g], in_colors(self.winners[g], swapped));
            }
            return years.to_vec();
        }
        // The group's years span few enough (see `codes`): counted in an
        // array, a block a year from the undated, then added at once.
        let blocks = self.codes.len() / (self.rows * 4);
        let mut counts = vec![[0u64; 4]; blocks];
        for h in games {
            let g = h.line as usize;
            let block = Self::year_block(self.first_year, group.years[g]);
            let winner = in_colors(self.winners[g], self.swapped[h.placement as usize]);
            counts[block][usize::from(winner as u8 & 3)] += 1;
        }
        for (block, [black, white, _, none]) in counts.into_iter().enumerate() {
            let year = Self::block_year(self.first_year, block);
            let all = black + white + none;
            if all > 0 {
                years.add_counts(year, [all, black, white]);
            }
        }
        years.to_vec()
    }

    /// The `n` of `games` (this tally's [`Tally::games`]) whose weaker
    /// player ranks highest, then in answer order; `ranks` is the group's
    /// [`GroupFacts::ranks`].
    pub(super) fn top(&self, games: &[GameMatch], ranks: &[u8], n: usize) -> Vec<GameMatch> {
        let group = self.group;
        let ranked = games.iter().map(|h| (ranks[h.line as usize], h));
        crate::index::facts::top_ranked(ranked, n, |h| group.answer_key(h.line))
            .into_iter()
            .copied()
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
