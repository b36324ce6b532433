//! A position search's answer, from its sides' matches: every matching
//! game once, the continuations in the query's orientation and colours,
//! the games by year, one page of games newest first with its cursor, the
//! top-ranked and the most recent games, each with its details from the
//! game facts.

use std::collections::HashMap;
use std::sync::Arc;

use keil_rules::{AnyBoard, AnyPosition, Move};

use super::context::Side;
use super::index::{Hit, Matches};
use super::key::{show_move, transform_move};
use super::posting::{Variant, decode_move, variant_button, variant_to_move};
use super::query::{Continuation, PositionAnswer, PositionHit, PositionQuery};
use super::segment::corrupt;
use crate::error::Result;
use crate::index::facts::{Facts, Years, in_colors, top_ranked};
use keil_store::ids::GameId;
use keil_store::model::{CollectionCount, HitDetails, YearCount};

/// The answer of `q` from its `sides`' `matches` (in the sides' order),
/// with its games' details from the game facts ([`Facts::details`]);
/// `Ok(Err(game))` when a game listed has none (removed).
///
/// # Errors
/// A bad cursor; a damaged index (a symmetry out of range).
pub(super) fn answer(
    q: &PositionQuery,
    sides: &[Side],
    matches: &[Arc<Matches>],
    facts: &Facts,
) -> Result<std::result::Result<PositionAnswer, GameId>> {
    let after = q.cursor.as_deref().map(parse_cursor).transpose()?;
    let all = Games::of(matches);
    let total = all.len() as u64;
    let continuations = continuations(q, sides, matches, total);
    let history = q.explore.history.then(|| history(&all, sides));
    let collections = q.explore.history.then(|| {
        facts
            .read()
            .collection_counts(all.iter().map(|(h, _)| h.game))
            .into_iter()
            .map(|(name, games)| CollectionCount { name, games })
            .collect()
    });
    let (page, next_cursor) = page(&all, after, q.limit.max(1));
    // The games whose weaker player ranks highest, then newest.
    let top = if q.explore.top_games == 0 {
        Vec::new()
    } else {
        top_ranked(
            all.iter().map(|h| (h.0.rank, h)),
            q.explore.top_games,
            |h| h.0.order(),
        )
    };
    let recent: Vec<(Hit, usize)> = (0..q.explore.recent_games.min(all.len()))
        .map(|i| all.get(i))
        .collect();
    let shown = Shown::new(q, sides, facts, [&page[..], &top, &recent]);
    let (games, top_games, recent_games) =
        match (shown.hits(&page)?, shown.hits(&top)?, shown.hits(&recent)?) {
            (Ok(a), Ok(b), Ok(c)) => (a, b, c),
            (Err(g), _, _) | (_, Err(g), _) | (_, _, Err(g)) => return Ok(Err(g)),
        };
    Ok(Ok(PositionAnswer {
        total_games: total,
        continuations,
        history,
        collections,
        games,
        next_cursor,
        top_games,
        recent_games,
    }))
}

/// The continuations, in the query's orientation and colours, most
/// played first; `total` games matched.
fn continuations(
    q: &PositionQuery,
    sides: &[Side],
    matches: &[Arc<Matches>],
    total: u64,
) -> Vec<Continuation> {
    let board = q.position.board();
    let keil = matches!(q.position, AnyPosition::Keil(_));
    let mut rows: HashMap<(Option<Move>, Variant), Row> = HashMap::new();
    for (side, m) in sides.iter().zip(matches) {
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
            button_taken: keil.then(|| variant_button(variant)),
            games: n,
            black_wins: b,
            white_wins: w,
            share: if total == 0 {
                0.0
            } else {
                n as f64 / total as f64
            },
            history: q.explore.history.then(|| years.to_vec()),
        })
        .collect();
    continuations.sort_by(|a, b| {
        b.games
            .cmp(&a.games)
            .then_with(|| a.mv.cmp(&b.mv))
            .then_with(|| a.to_move.index().cmp(&b.to_move.index()))
            .then_with(|| a.button_taken.cmp(&b.button_taken))
    });
    continuations
}

/// The matching games by year, with their results in the query's
/// colours.
fn history(all: &Games<'_>, sides: &[Side]) -> Vec<YearCount> {
    let mut years = Years::default();
    for (h, i) in all.iter() {
        years.add(
            crate::index::facts::year_of(h.date),
            in_colors(h.winner, sides[i].swapped),
        );
    }
    years.to_vec()
}

/// One page of games after the cursor `after`, newest first, keyset on
/// (date, id), and the next page's cursor when there is one.
fn page(
    all: &Games<'_>,
    after: Option<(u32, u32)>,
    limit: usize,
) -> (Vec<(Hit, usize)>, Option<String>) {
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
    (page, next_cursor)
}

/// What a hit is shown with: the query, its sides and their board
/// notations (once each: Keil's with the button flag clear), and the
/// details of the games shown.
struct Shown<'a> {
    q: &'a PositionQuery,
    sides: &'a [Side],
    board: AnyBoard,
    keil: bool,
    board_texts: Vec<String>,
    details: HashMap<GameId, HitDetails>,
}

impl<'a> Shown<'a> {
    /// The details of the games of `lists`, read once.
    fn new(
        q: &'a PositionQuery,
        sides: &'a [Side],
        facts: &Facts,
        lists: [&[(Hit, usize)]; 3],
    ) -> Shown<'a> {
        let mut ids: Vec<GameId> = lists
            .into_iter()
            .flatten()
            .map(|(h, _)| GameId::from_sql(i64::from(h.game)))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        Shown {
            q,
            sides,
            board: q.position.board(),
            keil: matches!(q.position, AnyPosition::Keil(_)),
            board_texts: sides.iter().map(|s| s.board.to_notation(None)).collect(),
            details: facts.details(&ids),
        }
    }

    /// The hits of `list` as an answer shows them; `Ok(Err(game))` when a
    /// game has no details (removed).
    fn hits(&self, list: &[(Hit, usize)]) -> Result<std::result::Result<Vec<PositionHit>, GameId>> {
        let (board, q) = (self.board, self.q);
        let count = board.symmetry_count();
        let mut hits = Vec::with_capacity(list.len());
        for (h, i) in list {
            let side = &self.sides[*i];
            let game_id = GameId::from_sql(i64::from(h.game));
            let Some(d) = self.details.get(&game_id) else {
                return Ok(Err(game_id));
            };
            if h.sym >= count {
                return Err(corrupt("symmetry index"));
            }
            let to_move = variant_to_move(h.variant);
            let button_taken = self.keil.then(|| variant_button(h.variant));
            hits.push(PositionHit {
                game_id,
                ply: u32::from(h.ply),
                next: decode_move(h.next)
                    .map(|m| show_move(&q.position, transform_move(board, m, side.to_query))),
                symmetry: board.compose(h.sym, side.to_query),
                swapped: side.swapped,
                position: full_notation(&self.board_texts[*i], h.variant, self.keil),
                to_move,
                button_taken,
                game: d.clone(),
            });
        }
        Ok(Ok(hits))
    }
}

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

impl<'a> Games<'a> {
    /// Every matching game once: its first occurrence (unswapped first).
    fn of(matches: &'a [Arc<Matches>]) -> Games<'a> {
        if matches.len() == 1 {
            return Games::One(&matches[0].games);
        }
        let mut all: Vec<(Hit, usize)> = matches
            .iter()
            .enumerate()
            .flat_map(|(i, m)| m.games.iter().map(move |&h| (h, i)))
            .collect();
        all.sort_by_key(|(h, i)| (h.game, h.ply, *i));
        all.dedup_by_key(|(h, _)| h.game);
        all.sort_by_key(|(h, _)| h.order());
        Games::Merged(all)
    }

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

/// The `(date, game)` of a search's cursor ([`crate::HitCursor`]).
pub(crate) fn parse_cursor(c: &str) -> Result<(u32, u32)> {
    let c: keil_store::model::HitCursor = c.parse()?;
    Ok((c.date, c.game))
}
