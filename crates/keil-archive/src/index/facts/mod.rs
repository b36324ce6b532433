//! The facts of every stored game that searches filter, count and rank
//! on, in memory (date, winner, players, ranks, handicap, komi, event,
//! result and collection: 32 bytes a game, the events, results and
//! collections interned), what their
//! pages show of it ([`shown`]: 16 bytes a game and the players' names),
//! and a [`GameFilter`](keil_store::model::GameFilter) as searches apply it ([`Selection`]).
//!
//! Position and pattern searches read long lists of matching games (the
//! empty board: every game; the 3-3 invasion: a third of a Go archive);
//! reading each game's row from the store to filter or count it would
//! cost a round trip or a page read per game. The table is a derived
//! index, caught up by the one catch-up loop ([`crate::index`]).
//!
//! Invariants: the table only grows for ids above the highest one read,
//! and a removed game's entry is cleared (searches skip postings of games
//! without facts); a [`Selection`] keeps exactly the games
//! [`GameFilter::matches`](keil_store::model::GameFilter::matches) keeps (the tests hold them equal), the filters
//! the table has no column for (ruleset, variant, status) read from the
//! store.

mod selection;
mod shown;

use std::collections::{BTreeMap, HashMap};
use std::sync::{RwLock, RwLockReadGuard};

pub(crate) use selection::Selection;

use crate::error::Result;
use crate::index::{Changes, Derived};
use keil_store::games::FactColumns;
use keil_store::ids::GameId;
use keil_store::model::{CollectionSummary, HitDetails, YearCount};
use keil_store::{Read, Sequences};

/// What searches need of a game, from its `games` row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fact {
    /// The first day of the date as `YYYYMMDD`, 0 when unknown.
    pub date: u32,
    /// Black's player id (`players.id`: the spelling), 0 for none.
    pub black: u32,
    /// White's player id, 0 for none.
    pub white: u32,
    /// The event, interned ([`Table::event_id`]); 0 for none.
    pub event: u32,
    /// The result as normalised, interned; 0 for none.
    pub result: u16,
    /// Komi in half-points.
    pub komi: i16,
    /// 0 Black, 1 White, -1 nobody.
    pub winner: i8,
    /// Black's rank as [`keil_record::Rank::ordinal`], 0 for none.
    pub black_rank: u8,
    /// White's rank, as `black_rank`.
    pub white_rank: u8,
    /// Go's `HA` (0 when absent), at most 255.
    pub handicap: u8,
    /// The collection, interned ([`Table::collection_name`]); 0 for none.
    pub collection: u16,
}

impl Fact {
    /// The year of the date, 0 when the game is undated.
    pub(crate) fn year(&self) -> u16 {
        year_of(self.date)
    }

    /// The rank of the weaker player as an ordinal; 0 when either rank is
    /// unknown (such games have no place among the top games).
    pub(crate) fn weaker_rank(&self) -> u8 {
        if self.black_rank == 0 || self.white_rank == 0 {
            0
        } else {
            self.black_rank.min(self.white_rank)
        }
    }
}

// The table's cost per game, as the module docs say.
const _: () = assert!(std::mem::size_of::<Option<Fact>>() <= 32);

/// A game's winner (0 Black, 1 White, else nobody) in the colours of a
/// match, `swapped` (colour-swapped) or not. Without a branch: a search
/// asks it for every hit, and winners come in no order a branch
/// predictor can learn (a winner, 0 or 1, flips on a swapped match).
#[inline]
pub(crate) fn in_colors(winner: i8, swapped: bool) -> i8 {
    winner ^ (i8::from(swapped) & i8::from((winner as u8) < 2))
}

/// The `n` items ranked highest (`rank`, a [`Fact::weaker_rank`]; 0 for
/// none, left out), highest first, then by `order` (an answer's order:
/// newest first): a search's top games, picked without sorting them all.
pub(crate) fn top_ranked<T, O: Ord>(
    items: impl Iterator<Item = (u8, T)> + Clone,
    n: usize,
    order: impl Fn(&T) -> O,
) -> Vec<T> {
    if n == 0 {
        return Vec::new();
    }
    // The lowest rank among the top `n` (a first pass through the items):
    // only items ranked so or higher are ordered (their order worked out
    // once each, not per comparison: it may read memory far apart).
    let mut counts = [0usize; 256];
    for (rank, _) in items.clone() {
        counts[usize::from(rank)] += 1;
    }
    let mut floor = 1;
    let mut above = 0;
    for rank in (1..256).rev() {
        above += counts[rank];
        if above >= n {
            floor = rank;
            break;
        }
    }
    let mut top: Vec<(u8, O, T)> = items
        .filter(|(rank, _)| usize::from(*rank) >= floor)
        .map(|(rank, t)| (rank, order(&t), t))
        .collect();
    let by_rank = |a: &(u8, O, T), b: &(u8, O, T)| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1));
    if top.len() > n {
        top.select_nth_unstable_by(n - 1, by_rank);
        top.truncate(n);
    }
    top.sort_unstable_by(by_rank);
    top.into_iter().map(|(_, _, t)| t).collect()
}

/// The year of a [`date_number`], 0 for none (the year of a history's
/// counts).
pub(crate) fn year_of(date: u32) -> u16 {
    (date / 10_000) as u16
}

/// The digits of a stored date read as one number: `YYYYMMDD` for a
/// full `YYYY-MM-DD`, a year alone `YYYY0000` and a month `YYYYMM00` (so
/// that they sort as their text does, and their year reads), 0 for none.
pub(crate) fn date_number(date: &str) -> u32 {
    let (n, digits) = date
        .bytes()
        .filter(u8::is_ascii_digit)
        .take(8)
        .fold((0u32, 0u32), |(n, k), b| {
            (n * 10 + u32::from(b - b'0'), k + 1)
        });
    if digits == 0 {
        0
    } else {
        n * 10u32.pow(8 - digits)
    }
}

/// The facts of every game, by game id.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    table: RwLock<Table>,
}

/// The table behind [`Facts`]'s lock.
#[derive(Debug, Default)]
pub(crate) struct Table {
    /// Indexed by game id; `None` for ids without a (stored) game.
    games: Vec<Option<Fact>>,
    /// Every game up to `at.games` is in, and every removal up to
    /// `at.removals` applied.
    at: Sequences,
    /// The events met, by id − 1, each as written and folded
    /// ([`keil_store::fold::fold()`]).
    events: Vec<(String, String)>,
    event_ids: std::collections::HashMap<String, u32>,
    /// The results met (also those past a [`Fact`]'s 65,535, which pages
    /// show).
    results: Texts,
    /// What search pages show of each game.
    shown: shown::Shown,
    /// The collections met, by [`Fact::collection`] − 1.
    collections: Texts,
    /// [`Fact::collection`] by the store's collection id.
    collection_ids: HashMap<i64, u16>,
}

impl Table {
    /// How far the table has caught up (games added, removals applied).
    pub(crate) fn at(&self) -> Sequences {
        self.at
    }

    /// The facts of game `id` (a posting's or an index line's `u32` id);
    /// `None` when it is not stored.
    #[inline]
    pub(crate) fn get(&self, id: u32) -> Option<&Fact> {
        self.games.get(id as usize).and_then(Option::as_ref)
    }

    /// The ids of the stored games whose facts `keep`, in order.
    pub(crate) fn ids_where(&self, keep: impl Fn(&Fact) -> bool) -> Vec<u64> {
        self.games
            .iter()
            .enumerate()
            .filter_map(|(id, f)| f.as_ref().filter(|f| keep(f)).map(|_| id as u64))
            .collect()
    }

    /// The name of collection `id` ([`Fact::collection`]); `None` for 0.
    pub(crate) fn collection_name(&self, id: u16) -> Option<&str> {
        self.collections.get(u32::from(id))
    }

    /// The [`Fact::collection`] of collection `name`; `None` when no game
    /// met has it.
    pub(crate) fn collection_id(&self, name: &str) -> Option<u16> {
        self.collections
            .find(name)
            .and_then(|i| u16::try_from(i).ok())
    }

    /// The games per collection among `ids` (game ids; those without
    /// facts left out): `(name, games)`, most games first, then by name;
    /// games in no collection are left out.
    pub(crate) fn collection_counts(&self, ids: impl Iterator<Item = u32>) -> Vec<(String, u64)> {
        let mut counts = vec![0u64; self.collections.texts.len() + 1];
        for id in ids {
            if let Some(f) = self.get(id) {
                counts[usize::from(f.collection)] += 1;
            }
        }
        let mut out: Vec<(String, u64)> = counts
            .into_iter()
            .enumerate()
            .skip(1)
            .filter(|&(_, n)| n > 0)
            .filter_map(|(i, n)| Some((self.collection_name(i as u16)?.to_string(), n)))
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// Every collection a stored game is in, most games first (then by
    /// name): its games, years and players' ranks.
    pub(crate) fn collection_summaries(&self) -> Vec<CollectionSummary> {
        let n = self.collections.texts.len() + 1;
        // Per collection: games, first and last year, lowest and highest
        // rank ordinal, games ranked on both sides.
        let mut acc = vec![(0u64, u16::MAX, 0u16, u8::MAX, 0u8, 0u64); n];
        for f in self.games.iter().flatten() {
            let a = &mut acc[usize::from(f.collection)];
            a.0 += 1;
            if f.date != 0 {
                a.1 = a.1.min(f.year());
                a.2 = a.2.max(f.year());
            }
            for r in [f.black_rank, f.white_rank].into_iter().filter(|&r| r != 0) {
                a.3 = a.3.min(r);
                a.4 = a.4.max(r);
            }
            a.5 += u64::from(f.weaker_rank() != 0);
        }
        let mut out: Vec<CollectionSummary> = acc
            .into_iter()
            .enumerate()
            .skip(1)
            .filter(|(_, a)| a.0 > 0)
            .filter_map(|(i, (games, first, last, low, high, ranked))| {
                Some(CollectionSummary {
                    name: self.collection_name(i as u16)?.to_string(),
                    games,
                    first_year: (first != u16::MAX).then_some(first),
                    last_year: (last != 0).then_some(last),
                    lowest_rank: keil_record::Rank::from_ordinal(low),
                    highest_rank: keil_record::Rank::from_ordinal(high),
                    ranked_games: ranked,
                })
            })
            .collect();
        out.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.name.cmp(&b.name)));
        out
    }

    /// The id of event `name` (as written), given on first sight.
    fn event_id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.event_ids.get(name) {
            return id;
        }
        self.events
            .push((name.to_string(), keil_store::fold::fold(name)));
        let id = self.events.len() as u32;
        self.event_ids.insert(name.to_string(), id);
        id
    }
}

/// Texts seen, each once, by id − 1 (0 stands for none): the results the
/// facts filter on, and what search pages show.
#[derive(Debug, Default)]
struct Texts {
    texts: Vec<Box<str>>,
    ids: HashMap<Box<str>, u32>,
}

impl Texts {
    /// The id of `text` (given on first sight), 0 for `None`.
    fn id(&mut self, text: Option<&str>) -> u32 {
        let Some(text) = text else { return 0 };
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        self.texts.push(text.into());
        let id = self.texts.len() as u32;
        self.ids.insert(text.into(), id);
        id
    }

    /// The id of `text` when it was seen.
    fn find(&self, text: &str) -> Option<u32> {
        self.ids.get(text).copied()
    }

    /// The text of `id`; `None` for 0.
    fn get(&self, id: u32) -> Option<&str> {
        let i = usize::try_from(id).ok()?.checked_sub(1)?;
        self.texts.get(i).map(|t| &**t)
    }

    /// Bytes held, about (each text twice, and the map's slots).
    fn bytes(&self) -> usize {
        self.texts.iter().map(|t| 2 * t.len() + 48).sum()
    }
}

/// A game's row as the store gives it to [`Facts`]: its facts but the
/// event and result, the event as text, and what search pages show of the
/// game (the result among it; not the players' names, which the facts
/// read once per player: `keil_store::people::spelling_names`).
pub(crate) struct FactRow {
    pub fact: Fact,
    pub event: Option<String>,
    /// The store's collection id.
    pub collection: Option<i64>,
    pub shown: HitDetails,
}

impl FactRow {
    /// The facts of one game as the store holds them, with its id; its
    /// players' names are read apart.
    fn of(c: FactColumns) -> (i64, FactRow) {
        let small = |v: Option<i64>, max: i64| v.unwrap_or(0).clamp(0, max);
        let shown = |ord: Option<i64>, text: Option<String>| {
            keil_store::model::shown_rank(keil_store::games::rank(ord), text.as_deref())
        };
        let fact = Fact {
            date: date_number(&c.date),
            winner: c.winner.map_or(-1, |w| w as i8),
            black: small(c.black, i64::from(u32::MAX)) as u32,
            white: small(c.white, i64::from(u32::MAX)) as u32,
            event: 0,
            result: 0,
            komi: c.komi.clamp(i64::from(i16::MIN), i64::from(i16::MAX)) as i16,
            handicap: small(Some(c.handicap), 255) as u8,
            black_rank: small(c.black_rank_ord, 255) as u8,
            white_rank: small(c.white_rank_ord, 255) as u8,
            collection: 0,
        };
        let row = FactRow {
            fact,
            event: c.event,
            collection: c.collection,
            shown: HitDetails {
                // As precise as the record gives it (`1849`, not
                // `1849-01-01`).
                date: c.date_raw.filter(|d| !d.is_empty()).unwrap_or(c.date),
                collection: None,
                black: None,
                white: None,
                black_rank: shown(c.black_rank_ord, c.black_rank),
                white_rank: shown(c.white_rank_ord, c.white_rank),
                result: c.result,
            },
        };
        (c.id, row)
    }
}

impl Facts {
    /// Catches the table up with `conn`'s snapshot and returns the store's
    /// sequences there.
    ///
    /// # Errors
    /// Storage errors.
    pub(crate) fn refresh(&self, conn: Read<'_>) -> Result<Sequences> {
        crate::index::catch_up(conn, &mut [&mut { self }])
    }

    /// The table, for reading (searches hold it for their tally).
    pub(crate) fn read(&self) -> RwLockReadGuard<'_, Table> {
        self.table.read().expect("poisoned")
    }

    /// How far the table has caught up.
    pub(crate) fn at(&self) -> Sequences {
        self.read().at
    }

    /// Bytes held in the heap.
    pub(crate) fn heap_bytes(&self) -> u64 {
        let t = self.read();
        let strings: usize = t
            .events
            .iter()
            .map(|(a, b)| 2 * a.len() + b.len() + 80)
            .sum::<usize>()
            + t.results.bytes()
            + t.collections.bytes();
        (t.games.capacity() * std::mem::size_of::<Option<Fact>>() + strings + t.shown.bytes())
            as u64
    }

    /// What search pages show of the games `ids` (those with facts; the
    /// others, removed or not yet caught up with, are left out).
    pub(crate) fn details(&self, ids: &[GameId]) -> HashMap<GameId, HitDetails> {
        let t = self.read();
        ids.iter()
            .filter_map(|&id| {
                let i = usize::try_from(id.sql()).ok()?;
                let f = t.games.get(i)?.as_ref()?;
                let mut d = t.shown.details(i, f.black, f.white, &t.results)?;
                d.collection = t.collection_name(f.collection).map(str::to_string);
                Some((id, d))
            })
            .collect()
    }
}

impl Derived for &Facts {
    fn reached(&self) -> Result<Sequences> {
        Ok(self.at())
    }

    /// Reads the facts of the games added and forgets those of the games
    /// removed. The rows are read before the table is locked, so that
    /// searches go on with it meanwhile; the lock is held only to change
    /// it.
    fn apply(&mut self, read: Read<'_>, changes: &Changes) -> Result<()> {
        let (to, at) = (changes.to, self.at());
        let rows = if to.games > at.games {
            keil_store::games::game_facts(read, at.games, to.games)?
                .into_iter()
                .map(FactRow::of)
                .collect()
        } else {
            Vec::new()
        };
        // The names of the players met for the first time, in one read.
        let missing = self
            .table
            .read()
            .expect("poisoned")
            .shown
            .missing_names(rows.iter().flat_map(|(_, r)| [r.fact.black, r.fact.white]));
        let names = keil_store::people::spelling_names(read, &missing)?;
        // The collections' names, when a game is in one not met yet.
        let new_collection = {
            let t = self.table.read().expect("poisoned");
            rows.iter()
                .filter_map(|(_, r)| r.collection)
                .any(|c| !t.collection_ids.contains_key(&c))
        };
        let collections = if new_collection {
            keil_store::collections::collections(read)?
        } else {
            Vec::new()
        };
        let mut t = self.table.write().expect("poisoned");
        t.shown.add_names(names);
        for (id, name) in collections {
            let local = u16::try_from(t.collections.id(Some(&name))).unwrap_or(0);
            t.collection_ids.insert(id, local);
        }
        // Another caller may have gone as far meanwhile: adding a game's
        // facts twice writes the same value, and removing them twice too.
        if to.games > t.at.games {
            for (id, row) in rows {
                let Ok(i) = usize::try_from(id) else { continue };
                if t.games.len() <= i {
                    t.games.resize(i + 1, None);
                }
                let mut fact = row.fact;
                fact.event = row.event.as_deref().map_or(0, |e| t.event_id(e));
                fact.collection = row
                    .collection
                    .and_then(|c| t.collection_ids.get(&c).copied())
                    .unwrap_or(0);
                // A result past 65,535 distinct ones has no id of a fact's:
                // its games fail a result filter here and are read from
                // the store.
                let result = t.results.id(row.shown.result.as_deref());
                fact.result = u16::try_from(result).unwrap_or(0);
                t.shown.set(i, result, &row.shown);
                t.games[i] = Some(fact);
            }
            t.at.games = to.games;
        }
        if to.removals > t.at.removals {
            for id in changes.removed_after(t.at.removals) {
                if let Some(g) = usize::try_from(id).ok().and_then(|i| t.games.get_mut(i)) {
                    *g = None;
                }
            }
            t.at.removals = to.removals;
        }
        Ok(())
    }
}

/// Per-year counts of games (or hits) and their winners, as a search's
/// `history` gives them: `{year, games, black_wins, white_wins}` with
/// undated games in their own entry (last). Years within
/// [`Years::WINDOW`] of the first one counted sit in an array (a search
/// may count hundreds of thousands of hits: an array slot, not a tree
/// lookup, each); any other year in a map.
#[derive(Clone, Debug, Default)]
pub(crate) struct Years {
    /// The first year of `dense`.
    base: u16,
    /// Per year from `base`: games, the query's Black's wins, White's.
    dense: Vec<[u64; 3]>,
    /// Years outside `base..base + WINDOW`.
    rest: BTreeMap<u16, [u64; 3]>,
    undated: [u64; 3],
}

impl Years {
    /// How many years the array covers.
    const WINDOW: u16 = 256;

    /// The counts of `year` (0: undated).
    #[inline]
    fn slot(&mut self, year: u16) -> &mut [u64; 3] {
        if year == 0 {
            return &mut self.undated;
        }
        if self.dense.is_empty() {
            self.base = year.saturating_sub(Self::WINDOW / 2).max(1);
            self.dense = vec![[0; 3]; usize::from(Self::WINDOW)];
        }
        match year.checked_sub(self.base) {
            Some(i) if i < Self::WINDOW => &mut self.dense[usize::from(i)],
            _ => self.rest.entry(year).or_default(),
        }
    }

    /// Counts one game of `year` (0: undated) won by `winner` (0 the
    /// query's Black, 1 its White, else nobody).
    #[inline]
    pub(crate) fn add(&mut self, year: u16, winner: i8) {
        let e = self.slot(year);
        e[0] += 1;
        e[1] += u64::from(winner == 0);
        e[2] += u64::from(winner == 1);
    }

    /// Counts `[games, black_wins, white_wins]` of `year` (0: undated) at
    /// once.
    pub(crate) fn add_counts(&mut self, year: u16, counts: [u64; 3]) {
        let e = self.slot(year);
        for (e, c) in e.iter_mut().zip(counts) {
            *e += c;
        }
    }

    /// Every year's counts, oldest first, then the undated (year 0).
    fn entries(&self) -> Vec<(u16, [u64; 3])> {
        let dense = (self.base..)
            .zip(&self.dense)
            .filter(|(_, c)| c[0] > 0)
            .map(|(y, c)| (y, *c));
        let mut out: Vec<(u16, [u64; 3])> = dense
            .chain(self.rest.iter().map(|(&y, &c)| (y, c)))
            .collect();
        out.sort_unstable_by_key(|e| e.0);
        if self.undated[0] > 0 {
            out.push((0, self.undated));
        }
        out
    }

    /// Adds another tally's counts, its winners' colours exchanged when
    /// `swapped` (a colour-swapped side of a search).
    pub(crate) fn merge(&mut self, other: &Years, swapped: bool) {
        for (year, c) in other.entries() {
            let e = self.slot(year);
            let (b, w) = if swapped { (c[2], c[1]) } else { (c[1], c[2]) };
            e[0] += c[0];
            e[1] += b;
            e[2] += w;
        }
    }

    /// The counts, oldest year first, undated last.
    pub(crate) fn to_vec(&self) -> Vec<YearCount> {
        self.entries()
            .into_iter()
            .map(|(year, c)| YearCount {
                year: (year != 0).then_some(year),
                games: c[0],
                black_wins: c[1],
                white_wins: c[2],
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_add_up_and_put_the_undated_last() {
        let mut y = Years::default();
        y.add(2001, 0);
        y.add(0, 1);
        y.add(1999, 1);
        y.add(2001, -1);
        let mut other = Years::default();
        other.add(1999, 1);
        y.merge(&other, true);
        // Years far apart: one in the array, one in the map.
        y.add(1400, 0);
        y.add(9999, 1);
        let v = y.to_vec();
        assert_eq!(
            v.iter().map(|c| c.year).collect::<Vec<_>>(),
            [Some(1400), Some(1999), Some(2001), Some(9999), None]
        );
        assert_eq!(v.iter().map(|c| c.games).sum::<u64>(), 7);
        assert_eq!((v[1].black_wins, v[1].white_wins), (1, 1));
        assert_eq!((v[2].games, v[2].black_wins, v[2].white_wins), (2, 1, 0));
    }

    /// A ranked game's facts, undated.
    pub(super) fn fact() -> Fact {
        Fact {
            date: 0,
            black: 1,
            white: 2,
            event: 0,
            result: 0,
            komi: 13,
            winner: 0,
            black_rank: 35,
            white_rank: 33,
            handicap: 0,
            collection: 0,
        }
    }

    #[test]
    fn a_date_reads_as_its_digits() {
        assert_eq!(date_number("2019-12-08"), 20191208);
        assert_eq!(date_number(""), 0);
        assert_eq!(date_number("2019"), 20190000);
        assert_eq!(date_number("2019-12"), 20191200);
        assert_eq!(
            Fact {
                date: 20191208,
                ..fact()
            }
            .year(),
            2019
        );
    }
}
