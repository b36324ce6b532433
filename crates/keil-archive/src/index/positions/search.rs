//! Position search, as steps: the query's colour sides
//! (`context.rs`), each side's matches from the cache or collected
//! (`collect.rs`: confirmed exactly, filtered, counted per continuation),
//! then the answer they make (`answer.rs`: the page of games and its
//! cursor); and the whole-board occurrences the pattern search uses.
//!
//! Invariants: a Zobrist match is confirmed by replaying the game, so a
//! hash collision never produces a false match; each game counts once (its
//! first occurrence); pages are keyset-ordered newest first on
//! (date, game id), so a cursor stays valid across imports. The SQL it
//! needs is [`super::store`]'s.

use std::sync::Arc;

use keil_rules::AnyPosition;

use super::answer::answer;
use super::collect::collect;
use super::context::{Context, Side};
use super::index::{CACHE_MIN_POSTINGS, HEAVY_MIN_GAMES, Matches, PositionIndex, Snapshot};
use super::query::{PositionAnswer, PositionQuery};
use crate::error::{Error, Result};
use crate::index::facts::Facts;
use keil_store::Read;
use keil_store::Sequences;
use keil_store::budget::Budget;
use keil_store::ids::GameId;
use keil_store::positions::SegmentRows;

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
    run(&cx, q, &snapshot)?.map_err(|game_id| Error::Corrupt {
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
    Ok(run(&cx, q, &snapshot)?.ok())
}

/// The answer of `q` from `snapshot`: a heavy position's whole answer
/// from the cache when there ([`Heavy`](super::index::Heavy)), else each
/// side's matches, then the answer they make ([`answer`]); `Ok(Err(game))`
/// when a game listed has no details (removed).
fn run(
    cx: &Context<'_>,
    q: &PositionQuery,
    snapshot: &Snapshot,
) -> Result<std::result::Result<PositionAnswer, GameId>> {
    let key = (snapshot.generation, format!("{q:?}"));
    if let Some(a) = cx.index.heavy.get(&key) {
        return Ok(Ok(PositionAnswer::clone(&a)));
    }
    let sides = Side::all(q, snapshot.generation);
    let matches = sides
        .iter()
        .map(|side| matches(side, cx, snapshot))
        .collect::<Result<Vec<_>>>()?;
    let answer = answer(q, &sides, &matches, cx.facts)?;
    if let Ok(a) = &answer
        && a.total_games >= HEAVY_MIN_GAMES
    {
        cx.index.heavy.insert(key, Arc::new(a.clone()));
    }
    Ok(answer)
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
        let m = matches(side, &cx, &snapshot)?;
        out.extend(m.games.iter().map(|h| Occurrence {
            game: h.game,
            ply: h.ply,
            sym: board.compose(h.sym, side.to_query),
            swapped: side.swapped,
        }));
    }
    Ok(out)
}

/// The matches of `side`, from the cache when there.
fn matches(side: &Side, cx: &Context<'_>, snapshot: &Snapshot) -> Result<Arc<Matches>> {
    let index = cx.index;
    if let Some(m) = index.answers.get(&side.key) {
        return Ok(m);
    }
    let (m, postings) = collect(cx, snapshot, &side.key, &side.canon)?;
    let m = Arc::new(m);
    if postings >= CACHE_MIN_POSTINGS {
        index.answers.insert(side.key.clone(), m.clone());
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::positions::key::{is_exact, key_of};
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

    #[test]
    fn a_heavy_answer_is_kept_whole_until_the_index_changes() {
        let dir = tempfile::tempdir().unwrap();
        let archive = crate::archive::Archive::open(dir.path()).unwrap();
        let config = |seed| keil_gen::GeneratorConfig {
            games: 12,
            size: 4,
            seed,
            ..keil_gen::GeneratorConfig::default()
        };
        crate::archive::import_generated(&archive, config(3));
        let spec = keil_rules::BoardSpec::new(keil_rules::GameKind::Keil, 4).unwrap();
        let mut query = PositionQuery::new(AnyPosition::empty(spec).unwrap());
        query.symmetry = true;
        let first = archive.positions().search(&query).unwrap();
        assert!(
            first.total_games >= HEAVY_MIN_GAMES,
            "{}",
            first.total_games
        );
        assert_eq!(archive.node.positions.heavy.len(), 1);
        // Served whole from the cache: the same answer.
        assert_eq!(archive.positions().search(&query).unwrap(), first);
        // Another page is another answer.
        query.limit = 3;
        let page = archive.positions().search(&query).unwrap();
        assert_eq!(page.games.len(), 3);
        assert_eq!(archive.node.positions.heavy.len(), 2);
        // An import makes a new generation: the games it added are counted.
        crate::archive::import_generated(&archive, config(4));
        query.limit = 20;
        let after = archive.positions().search(&query).unwrap();
        assert_eq!(after.total_games, first.total_games + 12);
    }
}
