//! A pattern search's tally: its hits counted per game (hits, first
//! match) and per pattern point and colour (Kombilo's continuation
//! table), with the query's move limit, next move and history.

use std::borrow::Cow;

use keil_rules::Color;

use super::index::Group;
use super::placement::Placements;
use super::{GameMatch, MoveStats, PatternQuery, regions};
use crate::facts::{Years, in_colors};

/// A search's hits as they are counted: per game its hits and first
/// match, and the continuation statistics per pattern point and colour.
/// Dense per game index: hits come placement by placement, each sweeping
/// the games, and a sweep's reads stay in a few small columns.
pub(super) struct Tally<'a> {
    group: &'a Group,
    fold: &'a [u16],
    swapped: Vec<bool>,
    /// Per game index, whether the filter keeps it, or (with no filter)
    /// whether it was not removed (`None`: every game counts).
    keep: Option<Cow<'a, [bool]>>,
    /// Per game index, its hits.
    hits: Vec<u32>,
    /// Per game index, its first match as `node << 48 | placement << 16 |
    /// continuation point` (`u16::MAX` for none): the least is the
    /// earliest node, then the first placement. `u64::MAX` before a hit.
    first: Vec<u64>,
    /// The game indices with hits, in the order of their first hit.
    touched: Vec<u32>,
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

impl<'a> Tally<'a> {
    /// A tally of the continuations at `q`'s pattern points, with its
    /// move limit, next move and history.
    pub(super) fn new(
        group: &'a Group,
        placements: &'a Placements,
        q: &PatternQuery,
        keep: Option<Cow<'a, [bool]>>,
    ) -> Tally<'a> {
        let points = q.pattern.cells().len();
        Tally {
            group,
            fold: &placements.fold,
            swapped: placements.list.iter().map(|pl| pl.swapped).collect(),
            keep,
            hits: vec![0; group.lines.len()],
            first: vec![u64::MAX; group.lines.len()],
            touched: Vec::new(),
            stats: vec![[MoveStats::default(); 2]; points],
            years: q.history.then(|| vec![Years::default(); points]),
            move_limit: q.move_limit,
            next: q.next,
            options: q.move_limit.is_some() || q.next.is_some(),
            total_hits: 0,
        }
    }

    /// Counts the hit of placement `k` in game `g` at node `t`, whose
    /// continuation is `next` (its point not yet folded).
    #[inline(always)]
    pub(super) fn add(&mut self, g: u32, k: u32, t: u16, next: regions::Next) {
        let g = g as usize;
        if self.keep.as_ref().is_some_and(|keep| !keep[g])
            || (self.options && !self.admits(g, t, next))
        {
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
        let hits = &mut self.hits[g];
        if *hits == 0 {
            self.touched.push(g as u32);
        }
        *hits += 1;
        let here =
            u64::from(t) << 48 | u64::from(k) << 16 | u64::from(next.map_or(u16::MAX, |n| n.0));
        let first = &mut self.first[g];
        *first = (*first).min(here);
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

    /// The games with hits, in answer order ([`GameMatch::order`]): many
    /// (1 in 16 or more) are picked out of [`Group::listed`], which is in
    /// that order already, through a bit per place in it
    /// ([`Group::rank`]); a few are sorted.
    pub(super) fn games(&self) -> Vec<GameMatch> {
        let group = self.group;
        let game = |g: u32| {
            let line = &group.lines[g as usize];
            let first = self.first[g as usize];
            let node = (first >> 48) as u16;
            let next = first as u16;
            GameMatch {
                line: g,
                date: line.date,
                game: line.id,
                node,
                ply: line.ply_at(node),
                hits: self.hits[g as usize],
                placement: (first >> 16) as u32,
                next: (next != u16::MAX).then_some(next),
            }
        };
        if self.touched.len() * 16 >= group.listed.len() && group.rank.len() == group.lines.len() {
            // A bit per place in the answer order: set for each game with
            // hits (writes to a small array), then read in order.
            let mut bits = vec![0u64; group.listed.len().div_ceil(64)];
            for &g in &self.touched {
                let r = group.rank[g as usize] as usize;
                bits[r / 64] |= 1 << (r % 64);
            }
            let mut games = Vec::with_capacity(self.touched.len());
            for (w, &word) in bits.iter().enumerate() {
                let mut b = word;
                while b != 0 {
                    games.push(game(group.listed[w * 64 + b.trailing_zeros() as usize]));
                    b &= b - 1;
                }
            }
            games
        } else {
            let mut games: Vec<GameMatch> = self.touched.iter().map(|&g| game(g)).collect();
            games.sort_unstable_by_key(GameMatch::order);
            games
        }
    }
}
