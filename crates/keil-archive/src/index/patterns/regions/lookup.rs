//! Lookups in the region index: which region and keys a placement's
//! contents are ([`Regions::lookup`]: a fixed content, a few wildcards
//! expanded, or a corner box's stone set), and the hits read back from
//! the key's runs in game order, placement by placement ([`Lookup`],
//! [`Cursors`]).

use keil_rules::{Color, Point};
use keil_store::budget::Budget;

use super::super::pattern::Cell;
use super::super::placement::{Placement, Placements};
use super::super::runs::{Read, Run};
use super::{BOX_STONES, MAX_CONTENTS, Next, Regions, box_near, key};

/// What a placement matches in a region: its fixed stones (black and
/// white ranks), and each open point's rank and choice of states (bit 0
/// empty, 1 black, 2 white).
struct Choices {
    fixed: (u64, u64),
    open: Vec<(u8, u8)>,
}

impl Choices {
    /// The contents (black and white ranks) the choices stand for, each
    /// open point in each of its states; `None` for more than
    /// [`MAX_CONTENTS`] (counted first: a pattern with many `*` stands for
    /// far too many).
    fn contents(&self) -> Option<Vec<(u64, u64)>> {
        self.open.iter().try_fold(1usize, |n, &(_, states)| {
            Some(n * states.count_ones() as usize).filter(|&n| n <= MAX_CONTENTS)
        })?;
        let mut content = vec![self.fixed];
        for &(rank, states) in &self.open {
            let bit = 1u64 << rank;
            content = content
                .into_iter()
                .flat_map(|(b, w)| {
                    [(b, w), (b | bit, w), (b, w | bit)]
                        .into_iter()
                        .enumerate()
                        .filter(move |(i, _)| states >> i & 1 != 0)
                        .map(|(_, c)| c)
                })
                .collect();
        }
        Some(content)
    }
}

impl Regions {
    /// The region a placement covers exactly, and the keys of the contents
    /// it matches, when the index can answer it: each point black, white
    /// or empty once its `x`, `o` and `*` points (those outside its cells)
    /// are expanded, at most [`MAX_CONTENTS`] contents, each with 1 to the
    /// shape's most stones.
    fn keys_of(&self, pl: &Placement) -> Option<(usize, Vec<u64>)> {
        let region = self.masks.iter().position(|r| *r == pl.region)?;
        if region >= self.boxes {
            return Some((region, vec![self.box_key(region, pl)?]));
        }
        let keys = self
            .choices(region, pl)?
            .contents()?
            .into_iter()
            .map(|(b, w)| {
                (1..=self.limits[region])
                    .contains(&(b | w).count_ones())
                    .then(|| key(self.shape, region, b, w))
            })
            .collect::<Option<_>>()?;
        Some((region, keys))
    }

    /// The rank of board point `p` in region `region`, if it is one of
    /// its points.
    fn rank_in(&self, region: usize, p: u16) -> Option<u8> {
        self.members[usize::from(p)]
            .iter()
            .find(|m| usize::from(m.0) == region)
            .map(|m| m.1)
    }

    /// The key of corner box `region` that answers `pl`, when its stone
    /// sets can: one stone, or two neighbours, with `*` elsewhere (a
    /// placement's cells hold no `*`).
    fn box_key(&self, region: usize, pl: &Placement) -> Option<u64> {
        if pl.cells.len() != pl.stones || !(1..=BOX_STONES).contains(&(pl.stones as u32)) {
            return None;
        }
        let (mut b, mut w) = (0u64, 0u64);
        for &(p, cell) in &pl.cells {
            let bit = 1u64 << self.rank_in(region, p)?;
            if cell == Cell::White {
                w |= bit;
            } else {
                b |= bit;
            }
        }
        // Two stones: neighbours only.
        let stones = b | w;
        if stones.count_ones() == 2 && box_near(stones.trailing_zeros()) & stones == 0 {
            return None;
        }
        Some(key(self.shape, region, b, w))
    }

    /// `pl`'s [`Choices`] in region `region`, a point of the region
    /// outside its cells being `*`; `None` when a cell is outside the
    /// region.
    fn choices(&self, region: usize, pl: &Placement) -> Option<Choices> {
        let (mut b, mut w) = (0u64, 0u64);
        let mut open: Vec<(u8, u8)> = Vec::new();
        let mut seen = 0u64;
        for &(p, cell) in &pl.cells {
            let rank = self.rank_in(region, p)?;
            seen |= 1 << rank;
            match cell {
                Cell::Black => b |= 1 << rank,
                Cell::White => w |= 1 << rank,
                Cell::Empty => {}
                Cell::BlackOrEmpty => open.push((rank, 0b011)),
                Cell::WhiteOrEmpty => open.push((rank, 0b101)),
                Cell::Any => open.push((rank, 0b111)),
            }
        }
        let all = u64::MAX >> (64 - self.points[region].len());
        let mut rest = all & !seen;
        while rest != 0 {
            open.push((rest.trailing_zeros() as u8, 0b111));
            rest &= rest - 1;
        }
        Some(Choices {
            fixed: (b, w),
            open,
        })
    }

    /// The lookups that answer `placements`, or `None` when some placement
    /// is not one the index can answer.
    pub(crate) fn lookup<'a>(&'a self, placements: &Placements) -> Option<Lookup<'a>> {
        let mut keys = Vec::with_capacity(placements.list.len());
        let mut ranks = Vec::with_capacity(placements.list.len());
        for pl in &placements.list {
            let (region, k) = self.keys_of(pl)?;
            keys.push(k);
            // Rank → the pattern point there (every point of the region is
            // one: the region is the placement's).
            ranks.push(
                self.points[region]
                    .iter()
                    .map(|&p| {
                        placements
                            .pattern_point(pl, Point(p))
                            .expect("a placement's region holds only its points")
                    })
                    .collect(),
            );
        }
        Some(Lookup {
            regions: self,
            keys,
            ranks,
            swapped: placements.list.iter().map(|pl| pl.swapped).collect(),
        })
    }
}

/// A search the region index answers: per placement, the keys of the
/// contents it matches and the pattern point at each rank of its region.
pub(crate) struct Lookup<'a> {
    regions: &'a Regions,
    pub(super) keys: Vec<Vec<u64>>,
    ranks: Vec<Vec<u16>>,
    swapped: Vec<bool>,
}

impl<'a> Lookup<'a> {
    /// Calls `f(placement, hits)` for each (game, placement) hit once,
    /// `(game, first node, continuation byte)` a few hundred at a time
    /// (see [`Cursors::below`]), placement by placement.
    ///
    /// # Errors
    /// [`crate::Error::OverBudget`] when `budget` is spent.
    pub(crate) fn for_each(
        &self,
        budget: &Budget,
        f: impl FnMut(u32, &[Read]),
    ) -> crate::error::Result<()> {
        self.cursors().below(u32::MAX, budget, f)
    }

    /// The continuation a hit of placement `k` carries as its byte `code`
    /// (0 for none, else `1 + (rank << 2 | white << 1 | after tenuki)`):
    /// the pattern point at that rank of the placement's region, and the
    /// colour in the pattern's colours (none for a byte past the region's
    /// ranks, which no entry carries).
    pub(crate) fn next(&self, k: u32, code: u8) -> Next {
        let code = code.checked_sub(1)?;
        let white = code & 2 != 0;
        let color = if white != self.swapped[k as usize] {
            Color::White
        } else {
            Color::Black
        };
        let point = *self.ranks[k as usize].get(usize::from(code >> 2))?;
        Some((point, color, code & 1 != 0))
    }

    /// Each placement's hits from its first, to be read a window of games
    /// at a time ([`Cursors::below`]).
    pub(crate) fn cursors(&self) -> Cursors<'_> {
        let streams = self
            .keys
            .iter()
            .map(|keys| {
                if let [key] = keys[..] {
                    let runs = self.regions.segments.iter().filter_map(|s| s.run(key));
                    return Stream {
                        runs: runs.collect(),
                        at: 0,
                        read: Vec::with_capacity(DECODED),
                        next: 0,
                    };
                }
                let mut several = Vec::new();
                for s in &self.regions.segments {
                    for &key in keys {
                        several.extend(s.run(key).into_iter().flatten());
                    }
                }
                // A game once, at the earliest of its contents' first nodes.
                several.sort_unstable();
                several.dedup_by_key(|e| e.0);
                Stream {
                    runs: Vec::new(),
                    at: 0,
                    read: several,
                    next: 0,
                }
            })
            .collect();
        Cursors { streams, seen: 0 }
    }
}

/// Where each placement's hits have been read to ([`Lookup::cursors`]).
pub(crate) struct Cursors<'a> {
    streams: Vec<Stream<'a>>,
    /// Hits read so far (for the budget's checks).
    seen: usize,
}

/// One placement's hits in game order: entries read ahead (`read`) and the
/// next of them, refilled from its key's runs (one a segment, segments in
/// game order; `at` the one being read) up to [`DECODED`] at a time, in a
/// loop of their own rather than one entry per call. A placement standing
/// for several contents has its entries merged into `read` at once, and
/// no runs.
pub(super) struct Stream<'a> {
    pub(super) runs: Vec<Run<'a>>,
    pub(super) at: usize,
    pub(super) read: Vec<Read>,
    pub(super) next: usize,
}

/// Entries a stream decodes at a time.
const DECODED: usize = 256;

impl Stream<'_> {
    /// The next entries whose games are below `end` (read ahead, up to
    /// [`DECODED`] of them), or none when there are no more (one at `end`
    /// or after is left to be read later).
    #[inline]
    pub(super) fn below(&mut self, end: u32) -> &[Read] {
        loop {
            let ahead = &self.read[self.next..];
            if let Some(last) = ahead.last() {
                let n = if last.0 < end {
                    ahead.len()
                } else {
                    ahead.partition_point(|e| e.0 < end)
                };
                let from = self.next;
                self.next += n;
                return &self.read[from..from + n];
            }
            self.read.clear();
            self.next = 0;
            let Some(run) = self.runs.get_mut(self.at) else {
                return &[];
            };
            run.fill(&mut self.read, DECODED);
            if self.read.is_empty() {
                self.at += 1;
            }
        }
    }
}

impl Cursors<'_> {
    /// At most how many hits are left to read: each entry takes 3 bytes
    /// or more (a tally reserves room for that many games).
    pub(crate) fn most_left(&self) -> usize {
        self.streams
            .iter()
            .map(|s| {
                let runs = s.runs[s.at..].iter().map(Run::most_left);
                s.read.len() - s.next + runs.sum::<usize>()
            })
            .sum()
    }

    /// Calls `f(placement, hits)` for the (game, placement) hits of the
    /// games below `end` not read before, `(game, first node,
    /// continuation byte)` up to [`DECODED`] at a time, each once: a
    /// placement standing for several contents at the earliest of their
    /// first nodes. Hits come placement by placement, each placement's in
    /// game order; calls with growing `end` read the hits a window of
    /// games at a time. Checks `budget` once per placement and every
    /// [`Budget::EVERY`] hits.
    ///
    /// # Errors
    /// [`crate::Error::OverBudget`] when `budget` is spent.
    pub(crate) fn below(
        &mut self,
        end: u32,
        budget: &Budget,
        mut f: impl FnMut(u32, &[Read]),
    ) -> crate::error::Result<()> {
        for (k, stream) in self.streams.iter_mut().enumerate() {
            budget.check()?;
            loop {
                let read = stream.below(end);
                if read.is_empty() {
                    break;
                }
                f(k as u32, read);
                // The budget's check every so many hits, at the first
                // batch that reaches it.
                let seen = self.seen + read.len();
                if seen / Budget::EVERY != self.seen / Budget::EVERY {
                    budget.check()?;
                }
                self.seen = seen;
            }
        }
        Ok(())
    }
}
