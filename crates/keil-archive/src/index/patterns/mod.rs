//! Pattern search: the games in which a partial board (a region with a
//! value per point, wildcards allowed) occurs, wherever the search mode
//! lets it be placed, under the board's symmetries and, on request, with
//! colours exchanged; with Kombilo's continuation statistics.
//!
//! Semantics follow Kombilo (the peer harness's "Hit semantics"): the time
//! line is the SGF node (root 0, setup and move-less nodes count); a hit
//! is a (game, distinct placement) pair that matches at the end of some
//! node, and its continuation is the first later move inside the
//! placement's region, mapped back into the pattern's points and colours,
//! "after tenuki" when it came 3 or more nodes after the match; points that
//! a symmetry of the pattern itself maps onto each other are folded onto
//! one. Whole-board patterns without wildcards are answered by the
//! position index; 7×7 corner patterns with 1 to 8 stones, 5×5 side
//! patterns with 1 to 3, and Keil's 7-point shapes (a point and its six
//! neighbours) with 1 to 3 stones, few wildcards in any, by the region
//! index of [`regions`] (lookups by exact content, each hit with its
//! stored continuation), as are 5×5 corner patterns of one stone or two
//! neighbouring stones with `*` elsewhere (lookups by stone set); every other
//! pattern by the in-memory index of [`index`]
//! (first-life columns, exact, with event replay for the rare games it
//! cannot decide alone).

mod answer;
mod block;
mod events;
mod index;
mod load;
mod pattern;
mod placement;
mod regions;
mod runs;
mod snapshot;
mod tally;
mod variations;

use std::sync::Arc;

use keil_rules::{BoardSpec, Color};
use rayon::prelude::*;
use serde::Serialize;

use crate::error::Result;
use crate::index::facts::Selection;
use keil_store::Read;
use keil_store::budget::Budget;
use keil_store::ids::GameId;
use keil_store::model::GameFilter;
use keil_store::model::YearCount;

pub use crate::error::PatternError;
pub(crate) use answer::Matched;
use answer::{GameMatch, GameOrder, page};
pub(crate) use block::{KIND as BLOCK_KIND, check as check_block};
pub(crate) use index::Group;
use index::{Line, NEVER};
pub(crate) use load::{
    PatternIndex, Replayed, index_batch, rebuild_blocks, replayed, replayed_from_plies,
};
pub use pattern::{Cell, Pattern, PatternMode};
use placement::{Placement, Placements, placements};
use tally::{Keep, Tally};

/// A pattern search.
#[derive(Clone, Debug)]
pub struct PatternQuery {
    /// The pattern (its kind and size select the games searched).
    pub pattern: Pattern,
    /// Where it may be placed.
    pub mode: PatternMode,
    /// Whether the board's symmetries (8 on the square, 12 on the hexagon)
    /// place it too.
    pub symmetry: bool,
    /// Whether the pattern with black and white exchanged matches too
    /// (hits say `swapped`; continuations are counted in the pattern's
    /// colours).
    pub swap_colors: bool,
    /// Only games that pass this filter (its kind and size are the
    /// pattern's).
    pub filter: GameFilter,
    /// Only matches at or before this ply (Kombilo's move limit: the
    /// pattern stood after at most this many moves); `None`: any.
    pub move_limit: Option<u32>,
    /// Only hits whose continuation is a move of this colour, in the
    /// pattern's colours (Kombilo's "next move"); a hit with no
    /// continuation is then out. `None`: any hit.
    pub next: Option<Color>,
    /// Whether the answer and each continuation break their counts down
    /// by year ([`PatternAnswer::history`]).
    pub history: bool,
    /// How many of the games whose weaker player ranks highest to list in
    /// [`PatternAnswer::top_games`] (0: none).
    pub top_games: usize,
    /// How many of the latest games to list in
    /// [`PatternAnswer::recent_games`] (0: none).
    pub recent_games: usize,
    /// Whether variations are searched too (Kombilo's option; see
    /// `patterns/variations.rs`): every stored record of the board is read
    /// and its variation lines replayed, so the time grows with the
    /// archive. Hits in a variation say which ([`PatternHit::variation`]).
    pub variations: bool,
    /// How many games to list (statistics always cover all matches).
    pub limit: usize,
    /// Continue after this cursor (from [`PatternAnswer::next_cursor`]).
    pub cursor: Option<String>,
}

impl PatternQuery {
    /// A query for `pattern` in `mode`, with symmetry and colour swap on
    /// (Kombilo's default), no filter, 20 games.
    pub fn new(pattern: Pattern, mode: PatternMode) -> PatternQuery {
        PatternQuery {
            pattern,
            mode,
            symmetry: true,
            swap_colors: true,
            filter: GameFilter::default(),
            move_limit: None,
            next: None,
            history: false,
            top_games: 0,
            recent_games: 0,
            variations: false,
            limit: 20,
            cursor: None,
        }
    }
}

/// Next moves of one colour at one point of a pattern.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MoveStats {
    /// Hits whose continuation was this colour's move here.
    pub count: u64,
    /// Of those, played 3 or more nodes after the match (after a tenuki).
    pub after_tenuki: u64,
    /// Of those, games won by the player of the pattern's black stones
    /// (the game's White in a colour-swapped hit).
    pub black_wins: u64,
    /// Of those, games won by the player of the pattern's white stones.
    pub white_wins: u64,
}

/// The continuations at one point of the pattern (Kombilo's continuation
/// table row).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PatternContinuation {
    /// The point as the pattern is drawn, as records write it (`dd`,
    /// `g7`); points the pattern's own symmetries make equivalent are
    /// counted on one of them.
    pub point: String,
    /// The point for people (Go `D16`).
    pub display: String,
    /// Its offset `[x, y]` from the pattern's top-left (lattice
    /// coordinates).
    pub offset: [u8; 2],
    /// A label, `A` for the most played point, then `B`, ...
    pub label: String,
    /// Moves of the pattern's Black here.
    pub black: MoveStats,
    /// Moves of the pattern's White here.
    pub white: MoveStats,
    /// With the query's `history`: the hits of both colours here by year
    /// (its `games` are hits; they add up to `black.count + white.count`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<YearCount>>,
}

/// A game in which the pattern occurs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PatternHit {
    /// The game id.
    pub game_id: GameId,
    /// The first node at whose end the pattern stood (the root is 0).
    pub node: u32,
    /// The moves played by then.
    pub ply: u32,
    /// Distinct placements that matched in this game.
    pub hits: u32,
    /// The symmetry (its index: 0..8 square, 0..12 hexagon) of the first
    /// match's placement.
    pub symmetry: u8,
    /// Whether the first match was colour-swapped.
    pub swapped: bool,
    /// The first match's continuation as a pattern point (`None`: no move
    /// was played in the region after it).
    pub next: Option<String>,
    /// With [`PatternQuery::variations`], when the game's first match is in
    /// a variation: its number, 1-based in the validator's order (the
    /// file's; the game viewer's `var`); `None` for the main line. `node`
    /// and `ply` are then the variation's.
    pub variation: Option<u32>,
    /// The game's date, `YYYY-MM-DD` or empty.
    pub date: String,
    /// Black's name.
    pub black: Option<String>,
    /// White's name.
    pub white: Option<String>,
    /// Black's rank as lists show it (`7d`, else `BR` as written).
    pub black_rank: Option<String>,
    /// White's rank, as `black_rank`.
    pub white_rank: Option<String>,
    /// The result as written in RE.
    pub result: Option<String>,
}

/// The answer to a [`PatternQuery`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PatternAnswer {
    /// The pattern as searched, in its notation.
    pub pattern: String,
    /// Distinct placements searched.
    pub placements: u32,
    /// Games in which the pattern occurs (after filters).
    pub total_games: u64,
    /// (game, distinct placement) pairs that match.
    pub total_hits: u64,
    /// Continuations, most played first.
    pub continuations: Vec<PatternContinuation>,
    /// With the query's `history`: `total_games` by year (the games of
    /// the years add up to it; winners in the colours of each game's
    /// first match).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<YearCount>>,
    /// One page of games, newest first.
    pub games: Vec<PatternHit>,
    /// Pass as `cursor` for the next page; `None` on the last.
    pub next_cursor: Option<String>,
    /// The query's `top_games` games whose weaker player ranks highest,
    /// highest first (then newest first); games without both ranks are
    /// not among them.
    pub top_games: Vec<PatternHit>,
    /// The query's `recent_games` latest games, newest first.
    pub recent_games: Vec<PatternHit>,
}

/// The pattern queries of an archive, from [`crate::Archive::patterns`].
///
/// Its searches may run parallel parts on rayon's current pool and wait on
/// the index's refresh lock meanwhile: call them from plain threads, not
/// from inside a rayon pool that also runs other searches (see
/// `PatternIndex::refresh`).
pub struct Patterns<'a> {
    pub(crate) node: &'a crate::node::Node,
}

/// Memory held by the pattern index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PatternIndexStats {
    /// Games indexed.
    pub games: u64,
    /// Bytes held (columns, events, per-game lines, the region index).
    pub bytes: u64,
    /// Of `bytes`, those mapped from the node's snapshot (columns, events
    /// and region segments read in place: the system's page cache, given
    /// back under memory pressure, rather than the heap).
    pub mapped_bytes: u64,
    /// Whether the load started from the node's snapshot
    /// ([`Archive::cache_in`](crate::Archive::cache_in)) rather than from
    /// the pattern blocks alone.
    pub from_snapshot: bool,
    /// Whether the region index was left for [`Patterns::settle`]
    /// ([`Patterns::load_unmerged`] from the blocks): until then, searches
    /// it would answer are answered by the scan.
    pub regions_deferred: bool,
}

impl Patterns<'_> {
    /// Reads every stored game into the pattern index ahead of the first
    /// search, which would otherwise pay for it, and says how large it is:
    /// from the node's snapshot when it keeps one of this archive
    /// ([`Archive::cache_in`](crate::Archive::cache_in)), then from the
    /// pattern blocks, replaying only the games no block holds. Writes the
    /// snapshot when there was none or it lacked more than 1/16 of the
    /// games.
    ///
    /// # Errors
    /// [`Error::Corrupt`](crate::Error::Corrupt) for a stored game that does not replay; storage
    /// errors.
    pub fn load(&self) -> Result<PatternIndexStats> {
        self.load_deferring(false)
    }

    /// [`Patterns::load`], but a load from the pattern blocks reads their
    /// games alone, leaving the region index out (searches it would answer
    /// are answered by the scan, with the same answers, until
    /// [`Patterns::settle`] fills it), and writes no snapshot, so that a
    /// new node serves sooner: at a million 19×19 games the region index
    /// is half of the pattern index's memory (3.4 of 6.5 GB, unmerged), and
    /// its merge was half of a merged load (13 s of 27 s).
    /// [`Patterns::settle`] then fills it from the blocks, merges it (until
    /// then, one segment a block, region lookups a few times slower) and
    /// writes the snapshot, while the node serves.
    ///
    /// # Errors
    /// As [`Patterns::load`].
    pub fn load_unmerged(&self) -> Result<PatternIndexStats> {
        self.load_deferring(true)
    }

    /// Fills the region index [`Patterns::load_unmerged`] left out (from
    /// the pattern blocks, in one read snapshot), merges what it left
    /// unmerged (outside the index's lock: searches and refreshes go on
    /// meanwhile), then writes the node's snapshot as [`Patterns::load`]
    /// would have. Returns whether there was anything to fill or merge;
    /// does nothing otherwise.
    ///
    /// # Errors
    /// Storage errors reading the blocks (the region index then stays
    /// unfilled: call again) or what the snapshot's stamp holds.
    pub fn settle(&self) -> Result<bool> {
        let index = &self.node.patterns;
        let filled = self
            .node
            .reader()?
            .snapshot(|conn| index.fill_regions(conn))?
            .is_some();
        if !index.settle() && !filled {
            return Ok(false);
        }
        self.node
            .reader()?
            .snapshot(|conn| index.write_snapshot(conn))?;
        Ok(true)
    }

    /// [`Patterns::load`], deferring the merge when `defer`.
    fn load_deferring(&self, defer: bool) -> Result<PatternIndexStats> {
        let index = &self.node.patterns;
        let from_snapshot = self
            .node
            .reader()?
            .snapshot(|conn| index.load(conn, defer))?;
        let loaded = index.loaded.read().expect("poisoned");
        Ok(PatternIndexStats {
            games: loaded
                .groups
                .iter()
                .map(|(_, g)| g.lines.len() as u64)
                .sum(),
            bytes: loaded.groups.iter().map(|(_, g)| g.bytes() as u64).sum(),
            mapped_bytes: loaded
                .groups
                .iter()
                .map(|(_, g)| g.mapped_bytes() as u64)
                .sum(),
            from_snapshot,
            regions_deferred: loaded.regions_deferred,
        })
    }

    /// Finds the games in which the pattern occurs (see [`PatternQuery`]
    /// and the module docs for the semantics), with the first matching
    /// node and placement per game, hits per game, and continuation
    /// statistics over all hits. Runs on one read snapshot.
    ///
    /// # Errors
    /// [`Error::BadCursor`](crate::Error::BadCursor) for a cursor this search did not produce;
    /// [`Error::Corrupt`](crate::Error::Corrupt) for a stored game that does not replay; storage
    /// errors.
    pub fn search(&self, q: &PatternQuery) -> Result<PatternAnswer> {
        self.search_within(q, &Budget::unlimited())
    }

    /// [`Patterns::search`] under a time budget: the search (the scan, the
    /// region index's lookups, the tally, the pattern index's catching up
    /// with new games) stops early when `budget` is spent (its deadline
    /// passed, or it was cancelled); nothing of it is cached.
    ///
    /// # Errors
    /// [`Error::OverBudget`](crate::Error::OverBudget) when it stopped so; as [`Patterns::search`].
    pub fn search_within(&self, q: &PatternQuery, budget: &Budget) -> Result<PatternAnswer> {
        let archive = self.node;
        budget.check()?;
        let after = match &q.cursor {
            None => None,
            Some(c) => Some(crate::index::positions::parse_cursor(c)?),
        };
        // The index is the store's (the node's last catch-up round while
        // it is fresh, else one statement): plain reads, no read snapshot
        // (on a database server, two round trips fewer); a game of the
        // page removed meanwhile sends the search to a snapshot.
        let reader = archive.reader()?;
        let plain = reader.read();
        let at = match archive.follow.current() {
            Some((at, _)) => at,
            None => keil_store::Sequences::read(plain)?,
        };
        if crate::index::Derived::reached(&&archive.patterns)? == at && archive.facts.at() == at {
            let (answer, complete) = self.cached(plain, q, at, after, budget)?;
            if complete {
                return Ok(answer);
            }
        }
        reader.snapshot(|conn| {
            archive.facts.refresh(conn)?;
            let at = archive.patterns.refresh(conn)?;
            self.cached(conn, q, at, after, budget)
                .map(|(answer, _)| answer)
        })
    }

    /// The answer of `q` on an index at `at`, its matches from the answer
    /// cache when there, and whether every game of its page has its details
    /// ([`page`]).
    fn cached(
        &self,
        conn: Read<'_>,
        q: &PatternQuery,
        at: keil_store::Sequences,
        after: Option<(u32, u32)>,
        budget: &Budget,
    ) -> Result<(PatternAnswer, bool)> {
        let archive = self.node;
        let key = format!(
            "{} {} {} {:?} {} {} {:?} {:?} {:?} {} {} {}",
            at.games,
            at.removals,
            q.pattern,
            q.mode,
            q.symmetry,
            q.swap_colors,
            filter_of(q),
            q.move_limit,
            q.next,
            q.history,
            q.top_games,
            q.variations,
        );
        let matched = match archive.patterns.answers.get(&key) {
            Some(m) => m,
            None => {
                let m = Arc::new(self.matches(conn, q, true, budget)?);
                archive.patterns.answers.insert(key, m.clone());
                m
            }
        };
        page(&archive.facts, &archive.patterns, q, &matched, after)
    }

    /// [`Patterns::search`] without the answer cache: every call searches
    /// (benchmarks time this; a server calls `search`).
    ///
    /// # Errors
    /// As [`Patterns::search`].
    pub fn search_uncached(&self, q: &PatternQuery) -> Result<PatternAnswer> {
        let after = match &q.cursor {
            None => None,
            Some(c) => Some(crate::index::positions::parse_cursor(c)?),
        };
        let archive = self.node;
        archive.reader()?.snapshot(|conn| {
            archive.facts.refresh(conn)?;
            archive.patterns.refresh(conn)?;
            let matched = self.matches(conn, q, true, &Budget::unlimited())?;
            page(&archive.facts, &archive.patterns, q, &matched, after).map(|(answer, _)| answer)
        })
    }

    /// Every match of `q` with its statistics; `region_index` lets the
    /// region index answer the patterns it can (the tests turn it off to
    /// compare it with the scan).
    pub(crate) fn matches(
        &self,
        conn: Read<'_>,
        q: &PatternQuery,
        region_index: bool,
        budget: &Budget,
    ) -> Result<Matched> {
        let placements = placements(&q.pattern, q.mode, q.symmetry, q.swap_colors)?;
        let loaded = self.node.patterns.loaded.read().expect("poisoned");
        let group = loaded.group(&q.pattern);
        let placement_sym = placements.list.iter().map(|p| (p.sym, p.swapped)).collect();
        let mut matched = Matched {
            placements: placements.list.len() as u32,
            total_hits: 0,
            continuations: Vec::new(),
            history: None,
            games: Vec::new(),
            order: GameOrder::Answer,
            top: Vec::new(),
            placement_sym,
            variations: Vec::new(),
        };
        let Some(group) = group else {
            return Ok(matched);
        };
        // (game index, placement, first node) triples, a placement once a
        // game; or the region index's lookups, whose hits carry their
        // continuations.
        let mut lookup = None;
        let found: Vec<(u32, u32, u16)> = if q.pattern.is_whole_board() {
            // Sorted; a placement found twice (a colour-symmetric board)
            // counts once, at its first node.
            let mut found = whole_board(self.node, conn, q, group, &placements, budget)?;
            found.sort_unstable();
            found.dedup_by_key(|f| (f.0, f.1));
            found
        } else if let Some(l) = region_index
            .then(|| loaded.region_index(group)?.lookup(&placements))
            .flatten()
        {
            lookup = Some(l);
            Vec::new()
        } else {
            // A spent budget skips the remaining blocks; checked below.
            let scan = |(mut out, mut scratch): (Vec<_>, index::Scratch), b| {
                if budget.spent() {
                    return (out, scratch);
                }
                group.scan_block(
                    b,
                    &placements.list,
                    &placements.groups,
                    &mut scratch,
                    &mut out,
                );
                (out, scratch)
            };
            let start = || (Vec::new(), index::Scratch::default());
            if rayon::current_num_threads() == 1 {
                // One thread: scanned here, without a hand-off to the pool.
                (0..group.blocks()).fold(start(), scan).0
            } else {
                (0..group.blocks())
                    .into_par_iter()
                    .fold(start, scan)
                    .map(|(out, _)| out)
                    .reduce(Vec::new, |mut a, mut b| {
                        a.append(&mut b);
                        a
                    })
            }
        };
        budget.check()?;
        let selection = Selection::new(conn, &self.node.facts, &filter_of(q))?;
        // Held until the tally is done (its filter and top games read it).
        let facts = self.node.facts.read();
        // What the facts kept over the group's games were worked out on.
        let state = format!(
            "{:?} {:?} {}",
            facts.at(),
            q.pattern.board(),
            group.lines.len()
        );
        let kept = &self.node.patterns.facts;
        let keep = if selection.is_everything() {
            // Removed games' entries stay in the index: the group's mask
            // drops them.
            group.kept_unremoved().map_or(Keep::All, Keep::Mask)
        } else if !selection.reads_store() {
            // The mask is the filter's over the group's games, as the
            // facts stand (removed games have none: it drops them).
            let filter = format!("{:?}", filter_of(q));
            Keep::Bits(kept.mask(&state, &filter, group, &facts, &selection))
        } else {
            // Some of the filter is read from the store, for the games
            // with hits: those are gathered first.
            let mut games: Vec<u32> = match &lookup {
                Some(l) => {
                    let mut games = Vec::new();
                    l.for_each(budget, |_, hits| games.extend(hits.iter().map(|h| h.0)))?;
                    games
                }
                None => found.iter().map(|f| f.0).collect(),
            };
            games.sort_unstable();
            games.dedup();
            games.retain(|&g| {
                facts
                    .get(group.ids[g as usize])
                    .is_some_and(|f| selection.keeps(f))
            });
            let ids: Vec<u32> = games.iter().map(|&g| group.ids[g as usize]).collect();
            let stored = selection.stored(conn, &ids)?;
            let mut keep = vec![0u64; group.lines.len().div_ceil(64)];
            for (&g, id) in games.iter().zip(&ids) {
                let kept = stored.as_ref().is_none_or(|s| s.contains(id));
                keep[g as usize / 64] |= u64::from(kept) << (g % 64);
            }
            Keep::Bits(Arc::new(keep))
        };
        // Variations (when asked): each line's hits after the main lines'
        // of its game's window, the game's first match moved to a
        // variation when one is earlier.
        let (lines, mut line_hits) = if q.variations {
            variations::search(conn, group, &placements, budget)?
        } else {
            (Vec::new(), Vec::new())
        };
        line_hits.retain(|&(v, _, t, _)| {
            q.move_limit
                .is_none_or(|m| lines[v as usize].ply_at(t) <= m)
        });
        line_hits.sort_by_key(|h| lines[h.0 as usize].game);
        // Per game whose first match is in a variation, that line.
        let mut first_in = std::collections::BTreeMap::new();
        // The scan's hits come block after block (each block's games in
        // one window); whole-board hits are sorted.
        let mut found = found;
        if !found.is_sorted_by_key(|f| f.0 / index::LANES as u32) {
            found.sort_by_key(|f| f.0);
        }
        let mut tally = Tally::new(group, &self.node.patterns.slots, &placements, q, keep);
        let mut cursors = lookup.as_ref().map(regions::Lookup::cursors);
        tally.reserve(
            cursors
                .as_ref()
                .map_or(found.len(), regions::Cursors::most_left),
        );
        let (mut main_at, mut line_at) = (0, 0);
        // Continuations found in the games' events, each placement's point
        // table built once it has a hit.
        let mut tables: Vec<Option<Box<[u16]>>> = vec![None; placements.list.len()];
        // The hits a window of games at a time (see `tally`).
        while tally.window_start() < group.lines.len() as u32 {
            let end = tally.window_end();
            match &mut cursors {
                Some(c) => {
                    let l = lookup.as_ref().expect("cursors of a lookup");
                    c.below(end, budget, |k, hits| tally.push_codes(l, k, hits))?;
                }
                None => {
                    let stop = main_at + found[main_at..].partition_point(|f| f.0 < end);
                    // A batch's games' events are read at their nodes
                    // first, so that those cache misses overlap.
                    for batch in found[main_at..stop].chunks(32) {
                        budget.check_every(main_at)?;
                        main_at += batch.len();
                        let mut any = 0;
                        for &(g, _, t) in batch {
                            any ^= group.event_near(&group.lines[g as usize], t);
                        }
                        std::hint::black_box(any);
                        for &(g, k, t) in batch {
                            let pl = &placements.list[k as usize];
                            let table = tables[k as usize]
                                .get_or_insert_with(|| placements.point_table(pl));
                            let line = &group.lines[g as usize];
                            let next = continuation(group, line, table, pl.swapped, t);
                            tally.push(g, k, t, next);
                        }
                    }
                }
            }
            while let Some(&(v, k, t, next)) = line_hits.get(line_at) {
                let game = lines[v as usize].game;
                if game >= end {
                    break;
                }
                if tally.add_line(game, k, t, next) {
                    first_in.insert(game, v);
                }
                line_at += 1;
            }
            tally.close();
        }
        matched.total_hits = tally.total_hits;
        let (games, bits) = tally.games();
        matched.games = games;
        if !first_in.is_empty() {
            // Keep the lines games' first matches are in, by game (a line
            // is one game's, so each is kept once at most).
            let mut lines: Vec<Option<variations::Variation>> =
                lines.into_iter().map(Some).collect();
            matched.variations = first_in
                .into_values()
                .filter_map(|v: u32| lines[v as usize].take())
                .collect();
        }
        if q.history {
            matched.history = Some(tally.history(&matched.games));
        }
        if q.top_games > 0 {
            let ranks = kept.ranks(&state, group, &facts);
            matched.top = tally.top(&matched.games, &ranks, q.top_games);
        }
        matched.order = GameOrder::settle(group, &mut matched.games, bits);
        let stats = std::mem::take(&mut tally.stats);
        let mut row_years = tally.years.take();
        drop(tally);
        let mut rows: Vec<(usize, [MoveStats; 2])> = stats
            .into_iter()
            .enumerate()
            .filter(|(_, s)| s[0].count + s[1].count > 0)
            .collect();
        rows.sort_by_key(|(i, s)| {
            (
                std::cmp::Reverse(s[0].count + s[1].count),
                q.pattern.cells()[*i].0.0,
            )
        });
        let board = q.pattern.board();
        matched.continuations = rows
            .into_iter()
            .enumerate()
            .map(|(rank, (i, [black, white]))| {
                let p = q.pattern.cells()[i].0;
                let (x, y) = q.pattern.offset(p);
                PatternContinuation {
                    point: board.point_name(p),
                    display: board.display_name(p),
                    offset: [x, y],
                    label: label(rank),
                    black,
                    white,
                    history: row_years
                        .as_mut()
                        .map(|y| std::mem::take(&mut y[i]).to_vec()),
                }
            })
            .collect();
        Ok(matched)
    }
}

/// A continuation "after tenuki" comes this many nodes or more after the
/// match (Kombilo).
const TENUKI_NODES: u16 = 3;

/// Labels `A`..`Z`, then `AA`, `AB`, ...
fn label(rank: usize) -> String {
    let letter = |i: usize| char::from(b'A' + (i % 26) as u8);
    if rank < 26 {
        letter(rank).to_string()
    } else {
        format!("{}{}", letter(rank / 26 - 1), letter(rank))
    }
}

/// The filter a query applies: its own, with the pattern's kind and size.
fn filter_of(q: &PatternQuery) -> GameFilter {
    GameFilter {
        kind: None,
        size: None,
        ..q.filter.clone()
    }
}

/// The first move after node `t` inside a placement's region: (pattern
/// point index, colour in the pattern's colours, whether it came
/// [`TENUKI_NODES`] or more nodes after `t`).
/// `table` is the placement's [`Placements::point_table`]; `swapped` says
/// whether it exchanges colours.
fn continuation(group: &Group, line: &Line, table: &[u16], swapped: bool, t: u16) -> regions::Next {
    let events = group.events(line);
    events[group.first_after(line, t)..].iter().find_map(|e| {
        let pp = table[e.point()];
        if pp == u16::MAX {
            return None;
        }
        let mover = e.mover()?;
        let color = if swapped { mover.opposite() } else { mover };
        Some((pp, color, e.node() - t >= TENUKI_NODES))
    })
}

/// Whole-board patterns: the position index finds the games (first
/// occurrence per game and colour side); the placement is the symmetry
/// that maps the game's board onto the pattern's.
fn whole_board(
    node: &crate::node::Node,
    conn: Read<'_>,
    q: &PatternQuery,
    group: &Group,
    placements: &Placements,
    budget: &Budget,
) -> Result<Vec<(u32, u32, u16)>> {
    let board = q.pattern.board();
    let mut position = keil_rules::AnyPosition::empty(BoardSpec {
        kind: q.pattern.kind(),
        size: board.size(),
    })
    .map_err(|e| PatternError::Board(e.to_string()))?;
    for &(p, c) in q.pattern.cells() {
        match c {
            Cell::Black => position.set(p, Some(Color::Black)),
            Cell::White => position.set(p, Some(Color::White)),
            _ => {}
        }
    }
    let occurrences = crate::index::positions::occurrences(
        &node.positions,
        &node.facts,
        conn,
        position,
        q.symmetry,
        q.swap_colors,
        budget,
    )?;
    let mut out = Vec::new();
    for o in occurrences {
        // Lines are in id order.
        let Ok(g) = group.lines.binary_search_by_key(&o.game, |l| l.id) else {
            continue;
        };
        let line = &group.lines[g];
        // The placement: the pattern's points carried onto the game's
        // board, i.e. by the inverse of the symmetry game → pattern.
        let to_game = board.inverse(o.sym);
        let Some(Some(k)) = placements
            .first
            .get(usize::from(to_game) * 2 + usize::from(o.swapped))
            .copied()
        else {
            continue;
        };
        let node = if o.ply == 0 {
            0
        } else {
            match &line.nodes {
                None => o.ply,
                Some(nodes) => nodes[usize::from(o.ply) - 1].min(u32::from(NEVER) - 1) as u16,
            }
        };
        out.push((g as u32, k, node));
    }
    Ok(out)
}
