//! A search of the pattern index: every match of a query with its
//! statistics ([`matches()`]: the whole-board patterns through the position
//! index, the others through the region index or the scan, then the
//! tally), and the page an answer shows of them ([`page`]).

use std::sync::Arc;

use keil_rules::{BoardSpec, Color};
use rayon::prelude::*;

use super::answer::{GameMatch, GameOrder, Matched};
use super::events::NEVER;
use super::index::{self, Group, Line, continuation};
use super::load::PatternIndex;
use super::pattern::Cell;
use super::placement::{Placements, placements};
use super::query::{MoveStats, PatternAnswer, PatternContinuation, PatternHit, PatternQuery};
use super::tally::{GroupFacts, Keep, Tally};
use super::{regions, variations};
use crate::error::{PatternError, Result};
use crate::index::facts::{Facts, Selection, Table};
use crate::index::positions::PositionIndex;
use keil_store::Read;
use keil_store::budget::Budget;
use keil_store::ids::GameId;
use keil_store::model::{GameFilter, HitDetails};

/// Every match of `q` with its statistics; `region_index` lets the
/// region index answer the patterns it can (the tests turn it off to
/// compare it with the scan).
pub(crate) fn matches(
    patterns: &PatternIndex,
    game_facts: &Facts,
    positions: &PositionIndex,
    conn: Read<'_>,
    q: &PatternQuery,
    region_index: bool,
    budget: &Budget,
) -> Result<Matched> {
    let placements = placements(&q.pattern, q.mode, q.symmetry, q.swap_colors)?;
    let loaded = patterns.loaded.read().expect("poisoned");
    let group = loaded.group(&q.pattern);
    let mut matched = Matched::none(&placements);
    let Some(group) = group else {
        return Ok(matched);
    };
    // (game index, placement, first node) triples, a placement once a
    // game; or the region index's lookups, whose hits carry their
    // continuations.
    let lookup = (region_index && !q.pattern.is_whole_board())
        .then(|| loaded.region_index(group)?.lookup(&placements))
        .flatten();
    let found = match lookup {
        Some(_) => Vec::new(),
        None if q.pattern.is_whole_board() => {
            whole_board(positions, game_facts, conn, q, group, &placements, budget)?
        }
        None => scan(group, &placements, budget),
    };
    budget.check()?;
    let selection = Selection::new(conn, game_facts, &filter_of(q))?;
    // Held until the tally is done (its filter and top games read it).
    let facts = game_facts.read();
    let state = facts_state(&facts, q, group);
    let kept = &patterns.facts;
    let filtered = Filtered {
        q,
        group,
        selection: &selection,
        facts: &facts,
        state: &state,
    };
    let keep = filtered.keep(kept, conn, || hit_games(lookup.as_ref(), &found, budget))?;
    let (lines, line_hits) = variation_hits(conn, group, &placements, q, budget)?;
    let mut tally = Tally::new(group, &patterns.slots, &placements, q, keep);
    let windows = Windows {
        group,
        placements: &placements,
        lookup: lookup.as_ref(),
        lines: &lines,
        line_hits: &line_hits,
        budget,
    };
    let first_in = windows.run(&mut tally, found)?;
    matched.variations = first_lines(lines, first_in);
    let ranks = || kept.ranks(&state, group, &facts);
    fill(&mut matched, tally, q, group, ranks);
    Ok(matched)
}

/// What the facts kept over `group`'s games were worked out on: the
/// facts' state, the pattern's board and the group's games.
fn facts_state(facts: &Table, q: &PatternQuery, group: &Group) -> String {
    format!(
        "{:?} {:?} {}",
        facts.at(),
        q.pattern.board(),
        group.lines.len()
    )
}

/// The game indexes of the main lines' hits, a game once or more: the
/// region index's lookup's, else those `found`.
fn hit_games(
    lookup: Option<&regions::lookup::Lookup<'_>>,
    found: &[(u32, u32, u16)],
    budget: &Budget,
) -> Result<Vec<u32>> {
    match lookup {
        Some(l) => {
            let mut games = Vec::new();
            l.for_each(budget, |_, hits| games.extend(hits.iter().map(|h| h.0)))?;
            Ok(games)
        }
        None => Ok(found.iter().map(|f| f.0).collect()),
    }
}

/// Fills `matched` from the finished `tally`: the hits and games, the
/// history and top games when `q` asks for them (`ranks`: the group's
/// [`GroupFacts::ranks`]), the games' order and the continuation rows.
fn fill(
    matched: &mut Matched,
    mut tally: Tally<'_>,
    q: &PatternQuery,
    group: &Group,
    ranks: impl FnOnce() -> Arc<Vec<u8>>,
) {
    matched.total_hits = tally.total_hits;
    let (games, bits) = tally.games();
    matched.games = games;
    if q.explore.history {
        matched.history = Some(tally.history(&matched.games));
    }
    if q.explore.top_games > 0 {
        let ranks = ranks();
        matched.top = tally.top(&matched.games, &ranks, q.explore.top_games);
    }
    matched.order = GameOrder::settle(group, &mut matched.games, bits);
    let stats = std::mem::take(&mut tally.stats);
    let row_years = tally.years.take();
    drop(tally);
    matched.continuations = continuations(q, stats, row_years);
}

/// The lines games' first matches are in (`first_in`: per game, its
/// line's index in `lines`), by game; a line is one game's, so each is
/// kept once at most.
fn first_lines(
    lines: Vec<variations::Variation>,
    first_in: std::collections::BTreeMap<u32, u32>,
) -> Vec<variations::Variation> {
    if first_in.is_empty() {
        return Vec::new();
    }
    let mut lines: Vec<Option<variations::Variation>> = lines.into_iter().map(Some).collect();
    first_in
        .into_values()
        .filter_map(|v: u32| lines[v as usize].take())
        .collect()
}

/// The scan: every block of `group` matched against the placements, in
/// parallel on the rayon pool (here, with one thread); a spent budget
/// skips the remaining blocks (the caller checks it).
fn scan(group: &Group, placements: &Placements, budget: &Budget) -> Vec<(u32, u32, u16)> {
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
}

/// The query's filter over a group's games: what decides which games a
/// search counts ([`Filtered::keep`]).
struct Filtered<'a> {
    q: &'a PatternQuery,
    group: &'a Group,
    selection: &'a Selection,
    /// The game facts, held until the tally is done.
    facts: &'a Table,
    /// What the facts kept over the group's games are worked out on.
    state: &'a str,
}

impl<'a> Filtered<'a> {
    /// Which games count: every unremoved one without a filter; the
    /// filter's mask over the group's games (kept in `kept`, as the facts
    /// stand) when the facts answer it; else, for a filter that reads the
    /// store, its answer over the games with hits (`hits`: their game
    /// indexes), the facts' part first, then the store's.
    fn keep(
        &self,
        kept: &GroupFacts,
        conn: Read<'_>,
        hits: impl FnOnce() -> Result<Vec<u32>>,
    ) -> Result<Keep<'a>> {
        let (group, selection, facts) = (self.group, self.selection, self.facts);
        if selection.is_everything() {
            // Removed games' entries stay in the index: the group's mask
            // drops them.
            return Ok(group.kept_unremoved().map_or(Keep::All, Keep::Mask));
        }
        if !selection.reads_store() {
            // The mask is the filter's over the group's games, as the
            // facts stand (removed games have none: it drops them).
            let filter = format!("{:?}", filter_of(self.q));
            let mask = kept.mask(self.state, &filter, group, facts, selection);
            return Ok(Keep::Bits(mask));
        }
        let mut games = hits()?;
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
        Ok(Keep::Bits(Arc::new(keep)))
    }
}

/// Variations (when asked): the lines and each line's hits within the
/// move limit, by game. Each line's hits come after the main lines' of its
/// game's window; the game's first match moves to a variation when one is
/// earlier.
type LineHits = (Vec<variations::Variation>, Vec<variations::Hit>);

/// The variations' lines and hits of `q` ([`LineHits`]); none unless it
/// asks for variations.
fn variation_hits(
    conn: Read<'_>,
    group: &Group,
    placements: &Placements,
    q: &PatternQuery,
    budget: &Budget,
) -> Result<LineHits> {
    let (lines, mut line_hits) = if q.explore.variations {
        variations::search(conn, group, placements, budget)?
    } else {
        (Vec::new(), Vec::new())
    };
    line_hits.retain(|&(v, _, t, _)| {
        q.explore
            .move_limit
            .is_none_or(|m| lines[v as usize].ply_at(t) <= m)
    });
    line_hits.sort_by_key(|h| lines[h.0 as usize].game);
    Ok((lines, line_hits))
}

/// What the tally is fed from, a window of games at a time (see
/// [`Tally`]): the main lines' hits (found, or the region index's
/// lookup) and the variations' hits.
struct Windows<'a> {
    group: &'a Group,
    placements: &'a Placements,
    lookup: Option<&'a regions::lookup::Lookup<'a>>,
    lines: &'a [variations::Variation],
    line_hits: &'a [variations::Hit],
    budget: &'a Budget,
}

impl Windows<'_> {
    /// Feeds `tally` every hit, window by window; returns, per game whose
    /// first match is in a variation, that line.
    fn run(
        &self,
        tally: &mut Tally<'_>,
        mut found: Vec<(u32, u32, u16)>,
    ) -> Result<std::collections::BTreeMap<u32, u32>> {
        let (group, placements, budget) = (self.group, self.placements, self.budget);
        let mut first_in = std::collections::BTreeMap::new();
        // The scan's hits come block after block (each block's games in
        // one window); whole-board hits are sorted.
        if !found.is_sorted_by_key(|f| f.0 / index::LANES as u32) {
            found.sort_by_key(|f| f.0);
        }
        let mut cursors = self.lookup.map(regions::lookup::Lookup::cursors);
        tally.reserve(
            cursors
                .as_ref()
                .map_or(found.len(), regions::lookup::Cursors::most_left),
        );
        let (mut main_at, mut line_at) = (0, 0);
        // Continuations found in the games' events, each placement's point
        // table built once it has a hit.
        let mut tables: Vec<Option<Box<[u16]>>> = vec![None; placements.list.len()];
        while tally.window_start() < group.lines.len() as u32 {
            let end = tally.window_end();
            match &mut cursors {
                Some(c) => {
                    let l = self.lookup.expect("cursors of a lookup");
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
            while let Some(&(v, k, t, next)) = self.line_hits.get(line_at) {
                let game = self.lines[v as usize].game;
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
        Ok(first_in)
    }
}

/// The continuation rows: per pattern point with a next move there, its
/// statistics (and games by year, with `q.explore.history`), most played first,
/// labelled `A`, `B`, ...
fn continuations(
    q: &PatternQuery,
    stats: Vec<[MoveStats; 2]>,
    mut row_years: Option<Vec<crate::index::facts::Years>>,
) -> Vec<PatternContinuation> {
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
    rows.into_iter()
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
        .collect()
}

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
pub(crate) fn filter_of(q: &PatternQuery) -> GameFilter {
    GameFilter {
        kind: None,
        size: None,
        ..q.filter.clone()
    }
}

/// Whole-board patterns: the position index finds the games (first
/// occurrence per game and colour side); the placement is the symmetry
/// that maps the game's board onto the pattern's. Sorted, a placement
/// once a game.
fn whole_board(
    positions: &PositionIndex,
    game_facts: &Facts,
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
        positions,
        game_facts,
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
    // Sorted; a placement found twice (a colour-symmetric board) counts
    // once, at its first node.
    out.sort_unstable();
    out.dedup_by_key(|f| (f.0, f.1));
    Ok(out)
}

/// Match `h` of game line `l` as an answer shows it, with the game's
/// details `d` (none for a game removed since the matches were read).
fn hit(
    q: &PatternQuery,
    m: &Matched,
    h: &GameMatch,
    l: &Line,
    d: Option<&HitDetails>,
) -> PatternHit {
    let (sym, swapped) = m.placement_sym[h.placement as usize];
    let variation = m
        .variations
        .binary_search_by_key(&h.line, |v| v.game)
        .ok()
        .map(|i| &m.variations[i]);
    PatternHit {
        game_id: GameId::from_sql(i64::from(l.id)),
        node: u32::from(h.node),
        ply: variation.map_or_else(|| l.ply_at(h.node), |v| v.ply_at(h.node)),
        variation: variation.map(|v| v.number),
        hits: h.hits,
        symmetry: sym,
        swapped,
        next: (h.next != u16::MAX).then(|| {
            q.pattern
                .board()
                .point_name(q.pattern.cells()[usize::from(h.next)].0)
        }),
        game: d.cloned().unwrap_or_default(),
    }
}

/// One page of a search's matches, newest first, with the games' details,
/// the top and recent games the query asks for, and whether every game
/// listed has its details (one removed since the matches were read has
/// not).
pub(crate) fn page(
    facts: &crate::index::facts::Facts,
    index: &PatternIndex,
    q: &PatternQuery,
    m: &Matched,
    after: Option<(u32, u32)>,
) -> Result<(PatternAnswer, bool)> {
    let loaded = index.loaded.read().expect("poisoned");
    // The matches' lines, by index; `None` for one the index no longer
    // holds (a failed refresh took it out: the page is then incomplete).
    let group = loaded.group(&q.pattern);
    let line = |h: &GameMatch| group.and_then(|g| g.lines.get(h.line as usize));
    let (page, more) = m.in_order(group, after, q.limit.max(1));
    let page = &page[..];
    let next_cursor = more
        .then(|| {
            page.last().and_then(line).map(|l| {
                keil_store::model::HitCursor {
                    date: l.date,
                    game: l.id,
                }
                .to_string()
            })
        })
        .flatten();
    let recent = &m.in_order(group, None, q.explore.recent_games).0[..];
    let top = &m.top[..q.explore.top_games.min(m.top.len())];
    let mut ids: Vec<GameId> = page
        .iter()
        .chain(top)
        .chain(recent)
        .filter_map(line)
        .map(|l| GameId::from_sql(i64::from(l.id)))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let details = facts.details(&ids);
    let mut complete = ids.iter().all(|id| details.contains_key(id));
    let mut hits = |list: &[GameMatch]| -> Vec<PatternHit> {
        list.iter()
            .filter_map(|h| {
                let Some(l) = line(h) else {
                    complete = false;
                    return None;
                };
                let d = details.get(&GameId::from_sql(i64::from(l.id)));
                Some(hit(q, m, h, l, d))
            })
            .collect()
    };
    // With the history, the games by collection (read from the facts:
    // a pass over the matches, as the history's).
    let collections = q.explore.history.then(|| {
        facts
            .read()
            .collection_counts(m.games.iter().filter_map(line).map(|l| l.id))
            .into_iter()
            .map(|(name, games)| keil_store::model::CollectionCount { name, games })
            .collect()
    });
    let answer = PatternAnswer {
        pattern: q.pattern.to_string(),
        placements: m.placements,
        total_games: m.games.len() as u64,
        total_hits: m.total_hits,
        continuations: m.continuations.clone(),
        history: m.history.clone(),
        collections,
        games: hits(page),
        next_cursor,
        top_games: hits(top),
        recent_games: hits(recent),
    };
    Ok((answer, complete))
}
