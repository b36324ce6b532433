//! The matches of one match key in a snapshot of the position index, in
//! steps: the postings of its key range that the key allows, confirmed
//! exactly (Zobrist keys: by replay), kept when their game passes the
//! query's filter, then counted: the first occurrence per game and the
//! continuation statistics per matched position (and per year, with the
//! query's `history`).

use std::collections::{HashMap, HashSet};

use keil_rules::{AnyPosition, Move};

use super::context::Context;
use super::index::{Hit, MatchKey, Matches, Snapshot};
use super::key::{button_of, is_exact};
use super::posting::{NEXT_POINT, Posting, VARIANTS, Variant, decode_move, variant_of};
use super::segment::corrupt;
use super::store::position_at;
use crate::error::Result;
use crate::index::facts::{Fact, Selection, Years};

/// Games whose main lines one statement reads when matches are confirmed
/// by replay.
const CONFIRM_CHUNK: usize = 500;

/// Finds the matches of `k` in the snapshot: the postings the key allows
/// ([`allowed`]), confirmed ([`confirm`]), of games that pass the filters
/// ([`Kept`]), counted ([`Tally`]). `canon` is the board in the canonical
/// orientation (button clear). Also returns the number of postings read
/// (the cost of doing it again).
pub(super) fn collect(
    cx: &Context<'_>,
    snapshot: &Snapshot,
    k: &MatchKey,
    canon: &AnyPosition,
) -> Result<(Matches, usize)> {
    let (mut postings, read) = allowed(cx, snapshot, k)?;
    if !is_exact(*k.keys.start()) {
        confirm(cx, canon, &mut postings)?;
    }
    let kept = Kept::new(cx, &postings)?;
    let mut tally = Tally::new(canon, k.history);
    let facts = cx.facts.read();
    for (i, x) in postings.iter().enumerate() {
        cx.budget.check_every(i)?;
        tally.add(x, |game| {
            facts.get(game).copied().filter(|f| kept.keeps(game, f))
        });
    }
    drop(facts);
    Ok((tally.matches(), read))
}

/// The postings of `k`'s key range with an allowed orientation, player to
/// move and ply (the move limit), sorted by (game, ply), and the number of
/// postings read.
fn allowed(cx: &Context<'_>, snapshot: &Snapshot, k: &MatchKey) -> Result<(Vec<Posting>, usize)> {
    let mut postings = Vec::new();
    let mut read = 0;
    snapshot.scan(cx.conn, k.keys.clone(), cx.budget, |x| {
        read += 1;
        if k.orientations & (1 << x.sym) != 0
            && k.white_to_move.is_none_or(|w| x.white_to_move == w)
            && k.move_limit.is_none_or(|m| u32::from(x.ply) <= m)
        {
            postings.push(x);
        }
    })?;
    // Each segment's postings of a key are sorted by (game, ply): a stable
    // sort merges those runs (it finds them) rather than sorting from
    // scratch. The first posting of each game is then its first occurrence,
    // whichever button state it had.
    postings.sort_by_key(|x| (x.game, x.ply));
    Ok((postings, read))
}

/// Exactness: keeps the postings whose game, replayed, has `canon` at
/// their ply (Zobrist keys are confirmed once per game ply).
fn confirm(cx: &Context<'_>, canon: &AnyPosition, postings: &mut Vec<Posting>) -> Result<()> {
    let (conn, budget) = (cx.conn, cx.budget);
    let board = canon.board();
    let mut confirmed: HashMap<(u32, u16), bool> = HashMap::new();
    // The games' main lines are read a chunk of games at a time (the
    // postings are sorted by game): a few statements, not one a game.
    let mut games: Vec<u32> = postings.iter().map(|x| x.game).collect();
    games.dedup();
    let mut from = 0;
    for chunk in games.chunks(CONFIRM_CHUNK) {
        budget.check()?;
        let lines = cx.index.lines(conn, chunk)?;
        let last = chunk[chunk.len() - 1];
        let end = from + postings[from..].partition_point(|x| x.game <= last);
        for x in &postings[from..end] {
            if let std::collections::hash_map::Entry::Vacant(e) = confirmed.entry((x.game, x.ply)) {
                // A replay per entry: checked each time.
                budget.check()?;
                let mut want = *canon;
                if let AnyPosition::Keil(p) = &mut want {
                    p.set_button_taken(button_of(x.key));
                }
                if x.sym >= board.symmetry_count() {
                    return Err(corrupt("symmetry index"));
                }
                // A game removed since the postings were read is gone.
                let ok = lines.get(&x.game).is_some_and(|line| {
                    position_at(line, x).is_some_and(|p| p.transform(x.sym) == want)
                });
                e.insert(ok);
            }
        }
        from = end;
    }
    postings.retain(|x| confirmed[&(x.game, x.ply)]);
    Ok(())
}

/// The query's filter over the matched games: the game facts' part, and
/// the games the store keeps when the filter reads the store.
struct Kept<'a> {
    selection: &'a Selection,
    stored: Option<HashSet<u32>>,
}

impl<'a> Kept<'a> {
    /// The filter of `cx` over the games of `postings`.
    fn new(cx: &'a Context<'_>, postings: &[Posting]) -> Result<Kept<'a>> {
        let selection = cx.selection()?;
        let stored = if selection.reads_store() {
            let mut games: Vec<u32> = postings.iter().map(|x| x.game).collect();
            games.dedup();
            {
                let facts = cx.facts.read();
                games.retain(|&g| facts.get(g).is_some_and(|f| selection.keeps(f)));
            }
            selection.stored(cx.conn, &games)?
        } else {
            None
        };
        Ok(Kept { selection, stored })
    }

    /// Whether `game`, whose facts are `f`, passes the filter.
    #[inline]
    fn keeps(&self, game: u32, f: &Fact) -> bool {
        self.selection.keeps(f) && self.stored.as_ref().is_none_or(|s| s.contains(&game))
    }
}

/// The counts of one match key's postings, added in (game, ply) order:
/// each game's first occurrence, and per (variant, next move reduced under
/// the position's own symmetries) the games and their results.
struct Tally {
    /// Next-move code → the least code of its orbit under the position's
    /// own symmetries (a table, built once per search).
    reduce: Vec<u16>,
    /// The number of next-move codes.
    codes: usize,
    history: bool,
    /// Counts per variant (a table per variant met) and reduced code:
    /// games, Black's wins, White's wins.
    per_move: [Vec<(u64, u64, u64)>; VARIANTS],
    years: HashMap<(Variant, u16), Years>,
    /// The current game's buckets already counted.
    run: Vec<(Variant, u16)>,
    games: Vec<Hit>,
    current: Option<(u32, Fact)>,
}

impl Tally {
    /// An empty tally for `canon`'s matches.
    fn new(canon: &AnyPosition, history: bool) -> Tally {
        let board = canon.board();
        let stabiliser: Vec<u8> = (0..board.symmetry_count())
            .filter(|&t| canon.transform(t) == *canon)
            .collect();
        let codes = NEXT_POINT as usize + board.len();
        let reduce: Vec<u16> = (0..codes as u16)
            .map(|code| match decode_move(code) {
                Some(Move::Place(pt)) => stabiliser
                    .iter()
                    .map(|&t| NEXT_POINT + board.transform(pt, t).0)
                    .min()
                    .unwrap_or(code),
                _ => code,
            })
            .collect();
        Tally {
            reduce,
            codes,
            history,
            per_move: Default::default(),
            years: HashMap::new(),
            run: Vec::new(),
            games: Vec::new(),
            current: None,
        }
    }

    /// Counts posting `x`; `kept` gives the facts of a game that passes
    /// the filter (`None`: left out, or removed).
    #[inline]
    fn add(&mut self, x: &Posting, kept: impl FnOnce(u32) -> Option<Fact>) {
        let variant = variant_of(x);
        let f = match self.current {
            Some((g, f)) if g == x.game => f,
            _ => {
                let Some(f) = kept(x.game) else {
                    return;
                };
                self.current = Some((x.game, f));
                self.run.clear();
                self.games.push(Hit {
                    date: f.date,
                    game: x.game,
                    ply: x.ply,
                    next: x.next,
                    sym: x.sym,
                    variant,
                    winner: f.winner,
                    rank: f.weaker_rank(),
                });
                f
            }
        };
        let bucket = (variant, self.reduce[x.next as usize]);
        if !self.run.contains(&bucket) {
            self.run.push(bucket);
            let table = &mut self.per_move[usize::from(variant)];
            if table.is_empty() {
                table.resize(self.codes, (0, 0, 0));
            }
            let e = &mut table[usize::from(bucket.1)];
            e.0 += 1;
            e.1 += u64::from(f.winner == 0);
            e.2 += u64::from(f.winner == 1);
            if self.history {
                self.years
                    .entry(bucket)
                    .or_default()
                    .add(f.year(), f.winner);
            }
        }
    }

    /// The matches counted: games newest first, continuations most
    /// frequent first.
    fn matches(self) -> Matches {
        let mut games = self.games;
        games.sort_unstable_by_key(Hit::order);
        let mut per_move: Vec<(Variant, u16, u64, u64, u64)> = self
            .per_move
            .iter()
            .enumerate()
            .flat_map(|(variant, table)| {
                table
                    .iter()
                    .enumerate()
                    .filter(|&(_, &(n, _, _))| n > 0)
                    .map(move |(code, &(n, b, w))| (variant as Variant, code as u16, n, b, w))
            })
            .collect();
        per_move.sort_by_key(|&(variant, code, n, _, _)| (std::cmp::Reverse(n), code, variant));
        Matches {
            per_move,
            years: self.years,
            games,
        }
    }
}
