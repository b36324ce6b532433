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

use keil_rules::{Board, Color, Game, Move, Point, Ruleset};

use crate::local::{Area, Local};
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
        local: Local::new(board, rules.linking),
        invade: invade_limit(board) as u16,
        last: [None, None],
        candidates: Vec::with_capacity(board.len()),
        verdict: vec![(0, false); board.len()],
        scratch: Vec::with_capacity(board.len()),
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
            p.local.set(q, Some(mover));
            p.last[mover.index()] = Some(q);
        }
        for &c in &out.captured {
            p.local.set(c, None);
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
    local: Local,
    invade: u16,
    /// The last placement of each colour.
    last: [Option<Point>; 2],
    candidates: Vec<Point>,
    /// Per point: (ply + 1 when judged, sensible?), so that one flood
    /// judges a whole territory for the turn.
    verdict: Vec<(u32, bool)>,
    scratch: Vec<Point>,
}

impl Player {
    fn choose(&mut self, mover: Color, style: Style, rng: &mut Rng) -> Option<Point> {
        if rng.chance(style.tactics) {
            if let Some(p) = self.tactical(mover) {
                return Some(p);
            }
        }
        let board = self.game.board();
        self.candidates.clear();
        self.candidates
            .extend(board.points().filter(|&q| self.local.get(q).is_none()));
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
        let (ok, size) = match self.local.area(q, true) {
            Area::Contested => return true,
            Area::Unlinked(n) => (true, n),
            Area::Owned(c, n) => (c != mover && n >= self.invade, n),
        };
        // Judge the whole territory once for this turn (small ones only:
        // a big one is flooded again, which is rare).
        if size <= 32 {
            self.scratch.clear();
            self.local.area_points(q, &mut self.scratch);
            for &r in &self.scratch {
                self.verdict[r.index()] = (turn, ok);
            }
        }
        ok
    }

    /// Near the last two placements: the largest capture, else a move that
    /// gives an own group in atari a second liberty.
    fn tactical(&mut self, mover: Color) -> Option<Point> {
        let mut hot: [Option<Point>; 14] = [None; 14];
        let mut n = 0;
        for m in self.last.iter().flatten() {
            hot[n] = Some(*m);
            n += 1;
            for q in self.local.neighbours(*m) {
                hot[n] = Some(q);
                n += 1;
            }
        }
        let mut best: Option<(usize, Point)> = None;
        let mut seen: Vec<Point> = Vec::new();
        let mut stones = std::mem::take(&mut self.scratch);
        let mut saves: Vec<Point> = Vec::new();
        for s in hot.iter().flatten().copied() {
            let Some(colour) = self.local.get(s) else {
                continue;
            };
            if seen.contains(&s) {
                continue;
            }
            stones.clear();
            let libs = self.local.group(s, &mut stones, 3);
            seen.extend_from_slice(&stones);
            if colour != mover && libs <= 2 {
                // The capturing stone is adjacent to the captured group
                // (keil-rules.md, "Links", consequence 4).
                for &g in &stones {
                    for q in self.local.neighbours(g) {
                        if self.local.get(q).is_some() {
                            continue;
                        }
                        if let Some(dead) = self.game.captures_of(q) {
                            let k = dead.len();
                            if k > 0 && best.is_none_or(|(m, _)| k > m) {
                                best = Some((k, q));
                            }
                        }
                    }
                }
            } else if colour == mover && libs == 1 {
                saves.extend(
                    stones
                        .iter()
                        .flat_map(|&g| self.local.neighbours(g))
                        .filter(|&q| self.local.get(q).is_none()),
                );
            }
        }
        let mut chosen = best.map(|(_, q)| q);
        if chosen.is_none() {
            for &q in &saves {
                if chosen.is_none() && self.game.is_legal(Move::Place(q)) {
                    // A save only if the stone's group then has 2 liberties
                    // (captures it would make only add more).
                    self.local.set(q, Some(mover));
                    stones.clear();
                    let libs = self.local.group(q, &mut stones, 2);
                    self.local.set(q, None);
                    if libs >= 2 {
                        chosen = Some(q);
                    }
                }
            }
        }
        self.scratch = stones;
        chosen
    }
}
