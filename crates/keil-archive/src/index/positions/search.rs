//! Position search: a query's colour sides and keys, the matches of a key
//! range (confirmed exactly, filtered, counted per continuation), the page
//! of games and its cursor, and the whole-board occurrences the pattern
//! search uses.
//!
//! Invariants: a Zobrist match is confirmed by replaying the game, so a
//! hash collision never produces a false match; each game counts once (its
//! first occurrence); pages are keyset-ordered newest first on
//! (date, game id), so a cursor stays valid across imports. The SQL it
//! needs is [`super::store`]'s.

use std::collections::HashMap;
use std::sync::Arc;

use keil_rules::{AnyPosition, Color, Move};

use super::index::{CACHE_MIN_POSTINGS, Hit, MatchKey, Matches, PositionIndex, Snapshot};
use super::key::{BUTTON_BIT, any_index_key, button_of, is_exact, show_move, transform_move};
use super::posting::{
    NEXT_POINT, VARIANTS, Variant, decode_move, variant_button, variant_of, variant_to_move,
};
use super::query::{Continuation, PositionAnswer, PositionHit, PositionQuery};
use super::segment::corrupt;
use super::store::position_at;
use crate::error::{Error, Result};
use crate::index::facts::{Facts, Selection, Years, in_colors, top_ranked};
use keil_store::Read;
use keil_store::Sequences;
use keil_store::budget::Budget;
use keil_store::ids::GameId;
use keil_store::positions::SegmentRows;

/// Games whose main lines one statement reads when matches are confirmed
/// by replay.
const CONFIRM_CHUNK: usize = 500;

/// A matched position written in full: the board's notation `board`, the
/// player to move and the button flag (` +` taken, ` -` not), as an answer
/// writes it; read back by [`PositionQuery::parse`], it matches only itself.
/// Go has no button: its positions are written with the player to move
/// only (`keil` false).
fn full_notation(board: &str, v: Variant, keil: bool) -> String {
    let to_move = variant_to_move(v).letter().to_ascii_lowercase();
    if !keil {
        return format!("{board} {to_move}");
    }
    let button = if variant_button(v) { '+' } else { '-' };
    format!("{board} {to_move} {button}")
}

/// One side of a search (the query, or its colour swap): the match key,
/// the board without button (as given, and canonical), the symmetry back to
/// the query.
struct Side {
    key: MatchKey,
    board: AnyPosition,
    canon: AnyPosition,
    to_query: u8,
    swapped: bool,
}

impl Side {
    /// The query's colour sides: as given, then, with `swap_colors`, with
    /// colours (and the player to move) exchanged.
    fn all(q: &PositionQuery, generation: u64) -> Vec<Side> {
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
                move_limit: q.move_limit,
                history: q.history,
            },
            board: p,
            canon,
            to_query: board.inverse(s_q),
            swapped: false,
        }
    }

    /// The matches, from the cache when there.
    fn matches(&self, cx: &Context<'_>, snapshot: &Snapshot) -> Result<Arc<Matches>> {
        let index = cx.index;
        if let Some(m) = index.answers.get(&self.key) {
            return Ok(m);
        }
        let (m, postings) = collect(cx, snapshot, &self.key, &self.canon)?;
        let m = Arc::new(m);
        if postings >= CACHE_MIN_POSTINGS {
            index.answers.insert(self.key.clone(), m.clone());
        }
        Ok(m)
    }

    /// A variant in the query's colours.
    fn seen(&self, v: Variant) -> Variant {
        if self.swapped { v ^ 1 } else { v }
    }
}

/// What a search reads: the index, the game facts, the connection, the
/// query's filter and its budget.
struct Context<'a> {
    index: &'a PositionIndex,
    facts: &'a Facts,
    conn: Read<'a>,
    filter: &'a keil_store::model::GameFilter,
    /// The filter as the search applies it, read on the first match list
    /// not in the cache (a popular position's search reads none).
    selection: std::cell::OnceCell<Selection>,
    budget: &'a Budget,
}

impl<'a> Context<'a> {
    /// A search's context.
    fn new(
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
    fn selection(&self) -> Result<&Selection> {
        if let Some(s) = self.selection.get() {
            return Ok(s);
        }
        let s = Selection::new(self.conn, self.facts, self.filter)?;
        Ok(self.selection.get_or_init(|| s))
    }
}

/// Runs a position search on one read snapshot: catches the game facts
/// up with it first.
pub(crate) fn search(
    index: &PositionIndex,
    facts: &Facts,
    conn: Read<'_>,
    q: &PositionQuery,
    budget: &Budget,
) -> Result<PositionAnswer> {
    let at = facts.refresh(conn)?;
    let snapshot = index.segments(conn, at.removals)?;
    let cx = Context::new(index, facts, conn, &q.filter, budget);
    answer(&cx, q, &snapshot)?.map_err(|game_id| Error::Corrupt {
        game: game_id,
        reason: "indexed but not stored".into(),
    })
}

/// Runs a position search on plain reads (no read snapshot: on a database
/// server, two round trips fewer) when the index is the store's: the
/// store's sequences and segments (`settled`: the node's last catch-up
/// round's; else read in one statement, `keil_store::positions::state`), the
/// game facts have reached them, and
/// [`PositionIndex::settled`] says the index has them, their bytes held.
/// `Ok(None)` when it has not, or when a game of the page was removed meanwhile (another
/// search took the game facts past it, so its details are gone): the caller then runs
/// [`search`] in a read snapshot. A stored game never changes, so the
/// reads after the first see the games it saw, or fewer.
///
/// # Errors
/// As [`search`].
pub(crate) fn search_settled(
    index: &PositionIndex,
    facts: &Facts,
    conn: Read<'_>,
    settled: Option<(Sequences, Arc<SegmentRows>)>,
    q: &PositionQuery,
    budget: &Budget,
) -> Result<Option<PositionAnswer>> {
    let (at, rows) = match settled {
        Some(s) => s,
        None => {
            let (at, rows) = keil_store::positions::state(conn)?;
            (at, Arc::new(rows))
        }
    };
    if facts.at() != at {
        return Ok(None);
    }
    // Blocks left in the store are read in a read snapshot, where a
    // segment merged away meanwhile is still there.
    let Some(snapshot) = index.settled(at, &rows).filter(|s| s.held) else {
        return Ok(None);
    };
    let cx = Context::new(index, facts, conn, &q.filter, budget);
    Ok(answer(&cx, q, &snapshot)?.ok())
}

/// The answer of `q` from `snapshot`, with its games' details from the
/// game facts ([`Facts::details`]); `Ok(Err(game))` when a game listed
/// has none (removed).
fn answer(
    cx: &Context<'_>,
    q: &PositionQuery,
    snapshot: &Snapshot,
) -> Result<std::result::Result<PositionAnswer, GameId>> {
    let board = q.position.board();
    let keil = matches!(q.position, AnyPosition::Keil(_));
    let after = match &q.cursor {
        None => None,
        Some(c) => Some(parse_cursor(c)?),
    };

    let sides = Side::all(q, snapshot.generation);
    let matches = sides
        .iter()
        .map(|side| side.matches(cx, snapshot))
        .collect::<Result<Vec<_>>>()?;

    // Every matching game once: its first occurrence (unswapped first).
    let all = if matches.len() == 1 {
        Games::One(&matches[0].games)
    } else {
        let mut all: Vec<(Hit, usize)> = matches
            .iter()
            .enumerate()
            .flat_map(|(i, m)| m.games.iter().map(move |&h| (h, i)))
            .collect();
        all.sort_by_key(|(h, i)| (h.game, h.ply, *i));
        all.dedup_by_key(|(h, _)| h.game);
        all.sort_by_key(|(h, _)| h.order());
        Games::Merged(all)
    };
    let total = all.len() as u64;

    // Continuations in the query's orientation and colours.
    let mut rows: HashMap<(Option<Move>, Variant), Row> = HashMap::new();
    for (side, m) in sides.iter().zip(&matches) {
        for &(variant, code, n, b, w) in &m.per_move {
            let mv = decode_move(code).map(|m| transform_move(board, m, side.to_query));
            let (b, w) = if side.swapped { (w, b) } else { (b, w) };
            let e = rows.entry((mv, side.seen(variant))).or_default();
            e.0 += n;
            e.1 += b;
            e.2 += w;
            if let Some(years) = m.years.get(&(variant, code)) {
                e.3.merge(years, side.swapped);
            }
        }
    }
    let mut continuations: Vec<Continuation> = rows
        .into_iter()
        .map(|((next, variant), (n, b, w, years))| Continuation {
            mv: next.map_or_else(|| "end".to_string(), |m| show_move(&q.position, m)),
            next,
            to_move: variant_to_move(variant),
            button_taken: variant_button(variant),
            games: n,
            black_wins: b,
            white_wins: w,
            share: if total == 0 {
                0.0
            } else {
                n as f64 / total as f64
            },
            history: q.history.then(|| years.to_vec()),
        })
        .collect();
    continuations.sort_by(|a, b| {
        b.games
            .cmp(&a.games)
            .then_with(|| a.mv.cmp(&b.mv))
            .then_with(|| a.to_move.index().cmp(&b.to_move.index()))
            .then_with(|| a.button_taken.cmp(&b.button_taken))
    });

    let history = q.history.then(|| {
        let mut years = Years::default();
        for (h, i) in all.iter() {
            years.add(
                crate::index::facts::year_of(h.date),
                in_colors(h.winner, sides[i].swapped),
            );
        }
        years.to_vec()
    });

    // One page of games, newest first, keyset on (date, id).
    let limit = q.limit.max(1);
    let first = after.map_or(0, |(d, g)| {
        all.partition_point(|h| h.order() <= std::cmp::Reverse((d, g)))
    });
    let end = (first + limit).min(all.len());
    let page: Vec<(Hit, usize)> = (first..end).map(|i| all.get(i)).collect();
    let next_cursor = (end < all.len())
        .then(|| {
            page.last().map(|(h, _)| {
                keil_store::model::HitCursor {
                    date: h.date,
                    game: h.game,
                }
                .to_string()
            })
        })
        .flatten();
    // The games whose weaker player ranks highest, then newest.
    let top = if q.top_games == 0 {
        Vec::new()
    } else {
        top_ranked(all.iter().map(|h| (h.0.rank, h)), q.top_games, |h| {
            h.0.order()
        })
    };
    let recent: Vec<(Hit, usize)> = (0..q.recent_games.min(all.len()))
        .map(|i| all.get(i))
        .collect();

    // Each side's board notation, once (Keil: button flag clear).
    let board_texts: Vec<String> = sides.iter().map(|s| s.board.to_notation(None)).collect();
    let count = board.symmetry_count();
    let mut ids: Vec<GameId> = page
        .iter()
        .chain(&top)
        .chain(&recent)
        .map(|(h, _)| GameId::from_sql(i64::from(h.game)))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let details = cx.facts.details(&ids);
    let hits = |list: &[(Hit, usize)]| -> Result<std::result::Result<Vec<PositionHit>, GameId>> {
        let mut hits = Vec::with_capacity(list.len());
        for (h, i) in list {
            let side = &sides[*i];
            let game_id = GameId::from_sql(i64::from(h.game));
            let Some(d) = details.get(&game_id) else {
                return Ok(Err(game_id));
            };
            if h.sym >= count {
                return Err(corrupt("symmetry index"));
            }
            let (to_move, button_taken) = (variant_to_move(h.variant), variant_button(h.variant));
            hits.push(PositionHit {
                game_id,
                ply: u32::from(h.ply),
                next: decode_move(h.next)
                    .map(|m| show_move(&q.position, transform_move(board, m, side.to_query))),
                symmetry: board.compose(h.sym, side.to_query),
                swapped: side.swapped,
                position: full_notation(&board_texts[*i], h.variant, keil),
                to_move,
                button_taken,
                date: d.date.clone(),
                black: d.black.clone(),
                white: d.white.clone(),
                black_rank: d.black_rank.clone(),
                white_rank: d.white_rank.clone(),
                result: d.result.clone(),
            });
        }
        Ok(Ok(hits))
    };
    let (games, top_games, recent_games) = match (hits(&page)?, hits(&top)?, hits(&recent)?) {
        (Ok(a), Ok(b), Ok(c)) => (a, b, c),
        (Err(g), _, _) | (_, Err(g), _) | (_, _, Err(g)) => return Ok(Err(g)),
    };
    Ok(Ok(PositionAnswer {
        total_games: total,
        continuations,
        history,
        games,
        next_cursor,
        top_games,
        recent_games,
    }))
}

/// A continuation row as the sides' counts add up: games, Black's wins,
/// White's wins (in the query's colours) and the games by year.
type Row = (u64, u64, u64, Years);

/// A search's matching games, newest first, each with its side's index:
/// one side's list as the match cache holds it (not copied: the empty
/// board's is every game), or the sides' lists merged.
enum Games<'a> {
    One(&'a [Hit]),
    Merged(Vec<(Hit, usize)>),
}

impl Games<'_> {
    fn len(&self) -> usize {
        match self {
            Games::One(g) => g.len(),
            Games::Merged(g) => g.len(),
        }
    }

    fn get(&self, i: usize) -> (Hit, usize) {
        match self {
            Games::One(g) => (g[i], 0),
            Games::Merged(g) => g[i],
        }
    }

    fn iter(&self) -> impl Iterator<Item = (Hit, usize)> + Clone + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The first index whose game fails `pred` (the list is partitioned
    /// by it).
    fn partition_point(&self, pred: impl Fn(&Hit) -> bool) -> usize {
        match self {
            Games::One(g) => g.partition_point(pred),
            Games::Merged(g) => g.partition_point(|(h, _)| pred(h)),
        }
    }
}

/// A game's first occurrence of a board on one colour side: the pattern
/// search's whole-board path.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Occurrence {
    /// The game id.
    pub game: u32,
    /// The first ply after which the board stood.
    pub ply: u16,
    /// The symmetry (index) that maps the game's board onto the query's.
    pub sym: u8,
    /// Whether the game had the board with colours exchanged.
    pub swapped: bool,
}

/// The games that reached `position`'s stones (any player to move, any
/// button state), under its symmetries when `symmetry`, colour-swapped
/// too when `swap`: each game's first occurrence per colour side, from the
/// position index (confirmed exactly, as [`search`]).
pub(crate) fn occurrences(
    index: &PositionIndex,
    facts: &Facts,
    conn: Read<'_>,
    position: AnyPosition,
    symmetry: bool,
    swap: bool,
    budget: &Budget,
) -> Result<Vec<Occurrence>> {
    let at = facts.refresh(conn)?;
    let snapshot = index.segments(conn, at.removals)?;
    let everything = keil_store::model::GameFilter::default();
    let cx = Context::new(index, facts, conn, &everything, budget);
    let q = PositionQuery {
        symmetry,
        swap_colors: swap,
        button: None,
        ..PositionQuery::new(position)
    };
    let board = position.board();
    let mut out = Vec::new();
    for side in &Side::all(&q, snapshot.generation) {
        let m = side.matches(&cx, &snapshot)?;
        out.extend(m.games.iter().map(|h| Occurrence {
            game: h.game,
            ply: h.ply,
            sym: board.compose(h.sym, side.to_query),
            swapped: side.swapped,
        }));
    }
    Ok(out)
}

/// Finds the matches of `k` in the snapshot, in one pass over the postings
/// of its key range: postings with an allowed orientation, player to
/// move and ply (the move limit), confirmed exactly (Zobrist keys: by
/// replay), of games that pass the filters; then the first occurrence per
/// game and the continuation statistics per matched position (and per
/// year, with `history`). `canon` is the board in the canonical
/// orientation (button clear). Also returns the number of postings read
/// (the cost of doing it again).
fn collect(
    cx: &Context<'_>,
    snapshot: &Snapshot,
    k: &MatchKey,
    canon: &AnyPosition,
) -> Result<(Matches, usize)> {
    let (conn, budget) = (cx.conn, cx.budget);
    let board = canon.board();
    let mut postings = Vec::new();
    let mut read = 0;
    snapshot.scan(conn, k.keys.clone(), budget, |x| {
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
    // Exactness: Zobrist keys are confirmed by replay, once per game ply.
    if !is_exact(*k.keys.start()) {
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
                if let std::collections::hash_map::Entry::Vacant(e) =
                    confirmed.entry((x.game, x.ply))
                {
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
    }
    // The filters the store answers, for the games the facts keep.
    let selection = cx.selection()?;
    let stored = if selection.reads_store() {
        let mut games: Vec<u32> = postings.iter().map(|x| x.game).collect();
        games.dedup();
        {
            let facts = cx.facts.read();
            games.retain(|&g| facts.get(g).is_some_and(|f| selection.keeps(f)));
        }
        selection.stored(conn, &games)?
    } else {
        None
    };
    // Next moves merge under the position's own symmetries: each code maps
    // to the least code of its orbit (a table, built once per search).
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

    let facts = cx.facts.read();
    // Counts per variant (a table per variant met) and reduced code.
    let mut per_move: [Vec<(u64, u64, u64)>; VARIANTS] = Default::default();
    let mut years: HashMap<(Variant, u16), Years> = HashMap::new();
    let mut run: Vec<(Variant, u16)> = Vec::new();
    let mut games: Vec<Hit> = Vec::new();
    let mut current: Option<(u32, crate::index::facts::Fact)> = None;
    for (i, x) in postings.iter().enumerate() {
        budget.check_every(i)?;
        let variant = variant_of(x);
        let f = match current {
            Some((g, f)) if g == x.game => f,
            _ => {
                // A game without facts was removed.
                let Some(&f) = facts.get(x.game) else {
                    continue;
                };
                let keep =
                    selection.keeps(&f) && stored.as_ref().is_none_or(|s| s.contains(&x.game));
                if !keep {
                    continue;
                }
                current = Some((x.game, f));
                run.clear();
                games.push(Hit {
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
        let bucket = (variant, reduce[x.next as usize]);
        if !run.contains(&bucket) {
            run.push(bucket);
            let table = &mut per_move[usize::from(variant)];
            if table.is_empty() {
                table.resize(codes, (0, 0, 0));
            }
            let e = &mut table[usize::from(bucket.1)];
            e.0 += 1;
            e.1 += u64::from(f.winner == 0);
            e.2 += u64::from(f.winner == 1);
            if k.history {
                years.entry(bucket).or_default().add(f.year(), f.winner);
            }
        }
    }
    drop(facts);
    games.sort_unstable_by_key(Hit::order);
    let mut per_move: Vec<(Variant, u16, u64, u64, u64)> = per_move
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
    Ok((
        Matches {
            per_move,
            years,
            games,
        },
        read,
    ))
}

/// The `(date, game)` of a search's cursor ([`crate::HitCursor`]).
pub(crate) fn parse_cursor(c: &str) -> Result<(u32, u32)> {
    let c: keil_store::model::HitCursor = c.parse()?;
    Ok((c.date, c.game))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::positions::key::key_of;
    use crate::index::positions::posting::{NEXT_END, Posting};
    use crate::index::positions::store::insert_segment;

    #[test]
    fn a_colliding_key_never_produces_a_false_match() {
        let dir = tempfile::tempdir().unwrap();
        let archive = crate::archive::Archive::open(dir.path()).unwrap();
        let config = keil_gen::GeneratorConfig {
            games: 12,
            size: 4,
            seed: 3,
            ..keil_gen::GeneratorConfig::default()
        };
        crate::archive::import_generated(&archive, config);
        // The position after ply 12 of game 1: more than five stones, so a
        // Zobrist key.
        let line = archive
            .games()
            .moves(GameId::new(1).unwrap())
            .unwrap()
            .unwrap();
        let q = line.game_at(12).unwrap().position();
        let AnyPosition::Keil(q) = q else {
            panic!("a Keil game")
        };
        let (key, _) = key_of(&q);
        assert!(!is_exact(key));
        let mut query = PositionQuery::new(q);
        query.symmetry = true;
        // Whatever the button's state: the key range holds both.
        query.button = None;
        let honest = archive.positions().search(&query).unwrap();
        assert!(
            honest
                .games
                .iter()
                .any(|h| h.game_id.get() == 1 && h.ply == 12)
        );
        // Forge a collision: game 2 at ply 3 filed under the same key.
        let forged = Posting {
            key,
            game: 2,
            ply: 3,
            next: NEXT_END,
            sym: 0,
            white_to_move: true,
        };
        {
            let conn = archive.node.writer().unwrap();
            insert_segment(conn.autocommit(), &[forged], 1).unwrap();
        }
        let answer = archive.positions().search(&query).unwrap();
        assert_eq!(answer, honest, "the forged posting must be rejected");
    }
}
