//! Kaomi games (kaomi-rules.md): event rules (variant, pie rule, komi,
//! `RU` spelling) and a cheap, plausible playout policy over
//! [`KaomiGame`].
//!
//! Each turn the mover, with probability `tactics` (the player's strength),
//! tries a few empty squares (up to [`CANDIDATES`], drawn at random) on a
//! copy of the game and keeps the one that grows its own biggest group the
//! most against the opponent's (Squared: its sum of squared sizes against
//! the opponent's); otherwise it places at random. Under the pie rule
//! White swaps on ply 2 when Black's first stone is near the centre, with
//! some chance. Every move is one [`KaomiGame`] accepts (keil-rules); the
//! game ends when the board is full.

use keil_rules::{
    Color, HalfPoints, KaomiGame, KaomiPosition, KaomiRuleset, KaomiVariant, Move, SquareBoard,
};

use crate::play::Style;
use crate::rng::Rng;

/// Squares tried per thoughtful turn.
pub(crate) const CANDIDATES: usize = 8;

/// The rules of a new Kaomi event: the forced variant or, by default,
/// mostly standard; the pie rule mostly as the variant's default; Squared
/// komi an even number near the side; and how the event writes `RU`.
pub(crate) fn event_rules(
    variant: Option<KaomiVariant>,
    komi: Option<HalfPoints>,
    size: u8,
    rng: &mut Rng,
) -> (KaomiRuleset, &'static str, HalfPoints) {
    let variant = variant.unwrap_or(if rng.below(4) == 0 {
        KaomiVariant::Squared
    } else {
        KaomiVariant::Standard
    });
    let flip = rng.below(6) == 0;
    let (ruleset, ru) = match (variant, flip) {
        (KaomiVariant::Standard, false) => (
            KaomiRuleset::STANDARD,
            *rng.pick(&["Kaomi", "Kaomi; pie=on"]),
        ),
        (KaomiVariant::Standard, true) => (
            KaomiRuleset {
                pie: false,
                ..KaomiRuleset::STANDARD
            },
            "Kaomi; pie=off",
        ),
        (KaomiVariant::Squared, false) => (
            KaomiRuleset::SQUARED,
            *rng.pick(&["Kaomi; variant=squared", "Kaomi variant=squared"]),
        ),
        (KaomiVariant::Squared, true) => (
            KaomiRuleset {
                pie: true,
                ..KaomiRuleset::SQUARED
            },
            "Kaomi; variant=squared; pie=on",
        ),
    };
    let komi = match (variant, komi) {
        (KaomiVariant::Standard, _) => HalfPoints(0),
        (KaomiVariant::Squared, Some(k)) => k,
        // An even whole number around the side (4 half-points a step).
        (KaomiVariant::Squared, None) => {
            HalfPoints(4 * (i32::from(size) / 2 + rng.range(0, 3) as i32 - 1))
        }
    };
    (ruleset, ru, komi)
}

/// A played Kaomi game: the moves from Black's first on, and the game
/// after them (the board is full).
pub(crate) struct KaomiPlayout {
    pub moves: Vec<Move>,
    pub game: KaomiGame,
}

/// Plays a game to the full board.
pub(crate) fn play(
    board: &'static SquareBoard,
    rules: KaomiRuleset,
    komi: HalfPoints,
    styles: [Style; 2],
    rng: &mut Rng,
) -> KaomiPlayout {
    let mut game = KaomiGame::new(board, rules, komi);
    let mut moves = Vec::with_capacity(board.len() + 1);
    let mut empty = Vec::with_capacity(board.len());
    while !game.is_over() {
        let mover = game.to_move();
        // The pushes move stones: the empty squares are read afresh.
        let pos = game.position();
        empty.clear();
        empty.extend(board.points().filter(|&p| pos.get(p).is_none()));
        let mv = if game.legality(mover, Move::Swap).is_ok() && swap_wanted(&game, rng) {
            Move::Swap
        } else {
            let i = if rng.chance(styles[mover.index()].tactics) {
                best_of(&game, &empty, mover, rng)
            } else {
                rng.below(empty.len())
            };
            Move::Place(empty[i])
        };
        game.play_as(mover, mv)
            .expect("the policy only plays empty squares and a legal swap");
        moves.push(mv);
    }
    KaomiPlayout { moves, game }
}

/// White swaps a first stone in the middle third of the board, half the
/// time.
fn swap_wanted(game: &KaomiGame, rng: &mut Rng) -> bool {
    let board = game.board();
    let n = i32::from(board.size());
    let pos = game.position();
    let central = board.points().any(|p| {
        let (c, r) = board.coords(p);
        let near = |v: u8| (3 * i32::from(v) >= n - 1) && (3 * i32::from(v) <= 2 * (n - 1) + 1);
        pos.get(p).is_some() && near(c) && near(r)
    });
    central && rng.below(2) == 0
}

/// The index in `empty` of the best of a few random candidates.
fn best_of(game: &KaomiGame, empty: &[keil_rules::Point], mover: Color, rng: &mut Rng) -> usize {
    let squared = game.ruleset().variant == KaomiVariant::Squared;
    let mut best = (i64::MIN, 0);
    for _ in 0..CANDIDATES.min(empty.len()) {
        let i = rng.below(empty.len());
        let mut pos = game.position();
        pos.place(empty[i], mover);
        let value = evaluate(&pos, mover, squared);
        if value > best.0 {
            best = (value, i);
        }
    }
    best.1
}

/// How good a board is for `mover`: the biggest own group against the
/// opponent's (standard), or the sums of squared group sizes (Squared).
fn evaluate(pos: &KaomiPosition, mover: Color, squared: bool) -> i64 {
    let them = mover.opposite();
    if squared {
        let sum = |c: Color| {
            pos.groups()
                .iter()
                .filter(|g| g.color == c)
                .map(|g| i64::from(g.size) * i64::from(g.size))
                .sum::<i64>()
        };
        sum(mover) - sum(them)
    } else {
        i64::from(pos.biggest_group(mover)) - i64::from(pos.biggest_group(them))
    }
}
