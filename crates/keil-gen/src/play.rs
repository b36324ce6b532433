//! The playout policy: cheap, plausible, legal.
//!
//! Each turn the mover, in this order:
//! 1. with the button in use and not yet taken, sometimes takes it (more
//!    often as the board fills);
//! 2. with probability `tactics` (the player's strength), looks for
//!    captures (largest first) and for a move that saves an own group left
//!    with one liberty;
//! 3. otherwise places at random on a *sensible* empty point: one not in a
//!    territory the mover owns, and not in a territory of the opponent too
//!    small to invade;
//! 4. with no sensible legal placement, takes the button if it is still
//!    there, else passes. Two passes in a row end the game.
//!
//! Every rules question (links, groups and their liberties, territories and
//! their owners, captures, legality) is asked of the [`Game`] being played:
//! keil-rules is the only crate that knows the rules, and this policy
//! restates none of them. Among several equal captures the first in board
//! order wins; a save is judged by the placed stone's group after the move,
//! its captures included.

use keil_rules::{Area, Board, Color, Game, Move, Point, PointSet, Ruleset};

use crate::rng::Rng;

/// How one side plays.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Style {
    /// Probability (per million) of looking for captures and saves first.
    pub tactics: u32,
}

/// A played game: the moves and the game after them.
pub(crate) struct Playout {
    pub moves: Vec<Move>,
    pub game: Game,
}

/// The empty points of a board in board order, kept up to date from the
/// moves played and their captures (cheaper than asking the game for every
/// point each turn).
pub(crate) struct EmptyPoints(Vec<Point>);

impl EmptyPoints {
    /// The given empty points, in board order.
    pub(crate) fn new(points: impl Iterator<Item = Point>) -> EmptyPoints {
        EmptyPoints(points.collect())
    }

    /// Records that `p` became empty (a capture) or not (a placement).
    pub(crate) fn set(&mut self, p: Point, empty: bool) {
        match (self.0.binary_search(&p), empty) {
            (Err(i), true) => self.0.insert(i, p),
            (Ok(i), false) => {
                self.0.remove(i);
            }
            _ => unreachable!("a placement on an empty point, a capture of a stone"),
        }
    }

    /// The empty points, in board order.
    pub(crate) fn points(&self) -> &[Point] {
        &self.0
    }
}

/// The smallest opponent territory (in points) worth invading on a board.
fn invade_limit(board: &Board) -> usize {
    3 + board.side() as usize / 2
}

/// Plays one game to its end by two passes.
pub(crate) fn play(
    board: &'static Board,
    rules: Ruleset,
    styles: [Style; 2],
    rng: &mut Rng,
) -> Playout {
    let mut p = Player {
        game: Game::new(board, rules),
        invade: invade_limit(board),
        last: [None, None],
        empty: EmptyPoints::new(board.points()),
        candidates: Vec::with_capacity(board.len()),
        verdict: vec![(0, false); board.len()],
    };
    let mut moves = Vec::with_capacity(board.len() * 2);
    // A safety net: past this many plies nothing is sensible any more.
    let max_plies = board.len() as u32 * 3 + 10;
    while !p.game.is_over() {
        let mover = p.game.to_move();
        let button_open = rules.button && p.game.button_holder().is_none();
        let mv = if button_open && p.game.ply() >= 2 && rng.chance(button_rate(&p.game)) {
            Move::TakeButton
        } else if p.game.ply() >= max_plies {
            fallback(button_open)
        } else {
            p.choose(mover, styles[mover.index()], rng)
                .map_or_else(|| fallback(button_open), Move::Place)
        };
        let out = p
            .game
            .play(mv)
            .expect("the policy only plays moves it checked to be legal");
        if let Move::Place(q) = mv {
            p.last[mover.index()] = Some(q);
            p.empty.set(q, false);
        }
        for &c in &out.captured {
            p.empty.set(c, true);
        }
        moves.push(mv);
    }
    Playout {
        moves,
        game: p.game,
    }
}

/// The button, or a pass once it is gone.
fn fallback(button_open: bool) -> Move {
    if button_open {
        Move::TakeButton
    } else {
        Move::Pass
    }
}

/// Per-million chance of taking the button this turn: low early, rising as
/// stones cover the board.
fn button_rate(game: &Game) -> u32 {
    let len = game.board().len() as u32;
    let ply = game.ply().min(len);
    2_000 + 60_000 * ply / len
}

/// The policy's state during one game.
struct Player {
    game: Game,
    invade: usize,
    /// The last placement of each colour.
    last: [Option<Point>; 2],
    empty: EmptyPoints,
    candidates: Vec<Point>,
    /// Per point: (ply + 1 when judged, sensible?), so that one territory
    /// query judges a whole territory for the turn.
    verdict: Vec<(u32, bool)>,
}

impl Player {
    fn choose(&mut self, mover: Color, style: Style, rng: &mut Rng) -> Option<Point> {
        if rng.chance(style.tactics)
            && let Some(p) = self.tactical(mover)
        {
            return Some(p);
        }
        self.candidates.clear();
        self.candidates.extend_from_slice(self.empty.points());
        let turn = self.game.ply() + 1;
        while !self.candidates.is_empty() {
            let i = rng.below(self.candidates.len());
            let q = self.candidates.swap_remove(i);
            if self.sensible(q, mover, turn) && self.game.is_legal(Move::Place(q)) {
                return Some(q);
            }
        }
        None
    }

    /// Whether a placement on the empty point `q` is worth considering: not
    /// in a territory the mover owns, nor in an opponent territory too small
    /// to invade.
    fn sensible(&mut self, q: Point, mover: Color, turn: u32) -> bool {
        let (when, ok) = self.verdict[q.index()];
        if when == turn {
            return ok;
        }
        let territory = match self.game.area_at(q).expect("candidates are empty points") {
            // Contested territories are open to both players.
            Area::Contested => {
                self.verdict[q.index()] = (turn, true);
                return true;
            }
            Area::Territory(t) => t,
        };
        // So are unlinked ones.
        let ok = territory
            .owner
            .is_none_or(|c| c != mover && territory.points.len() >= self.invade);
        // The verdict holds for the whole territory until the next turn.
        for r in territory.points.iter() {
            self.verdict[r.index()] = (turn, ok);
        }
        ok
    }

    /// Near the last two placements: the largest capture, else a move that
    /// gives an own group in atari a second liberty.
    fn tactical(&mut self, mover: Color) -> Option<Point> {
        let board = self.game.board();
        let hot = self
            .last
            .iter()
            .flatten()
            .flat_map(|&m| std::iter::once(m).chain(board.neighbours(m)));
        let mut seen = PointSet::default();
        // Empty points whose placement was already tried for captures.
        let mut tried = PointSet::default();
        let mut best: Option<(usize, Point)> = None;
        let mut saves: Vec<Point> = Vec::new();
        for s in hot {
            if seen.contains(s) {
                continue;
            }
            let Some(group) = self.game.group_at(s) else {
                continue;
            };
            group.stones.iter().for_each(|g| seen.insert(g));
            let libs = group.liberties.len();
            let empty_neighbours = group
                .stones
                .iter()
                .flat_map(|g| board.neighbours(g))
                .filter(|&q| self.game.stone_at(q).is_none());
            if group.color != mover && libs <= 2 {
                // The capturing stone is adjacent to the captured group
                // (keil-rules.md, "Links", consequence 4). A point tried
                // again cannot beat itself, so each is tried once.
                for q in empty_neighbours {
                    if tried.contains(q) {
                        continue;
                    }
                    tried.insert(q);
                    if let Some(dead) = self.game.captures_of(q) {
                        let k = dead.len();
                        if k > 0 && best.is_none_or(|(m, _)| k > m) {
                            best = Some((k, q));
                        }
                    }
                }
            } else if group.color == mover && libs == 1 {
                saves.extend(empty_neighbours);
            }
        }
        if let Some((_, q)) = best {
            return Some(q);
        }
        // A save only if the placed stone's group has 2 liberties after the
        // move (its captures included). Playing it also checks legality.
        saves.into_iter().find(|&q| {
            let mut next = self.game.clone();
            next.play(Move::Place(q)).is_ok()
                && next
                    .group_at(q)
                    .is_some_and(|group| group.liberties.len() >= 2)
        })
    }
}
