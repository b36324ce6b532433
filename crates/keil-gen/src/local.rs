//! A cheap local view of the board for the policy: the territory or the
//! group around one point, found by a flood that stops early.
//!
//! `keil_rules::Position` answers the same questions for the whole board at
//! once, which costs more than a whole turn of the policy may. This view
//! only *guides* the choice of a move: every move is still checked and
//! played by [`keil_rules::Game`], and a unit test cross-checks this view
//! against `Position::territories` and `Position::groups`.

use keil_rules::{Board, Color, Linking, Point};

/// No point (off the board).
const NONE: u16 = u16::MAX;
/// Point types: empty, black, white, off the board.
const EMPTY: u8 = 0;
const OFF: u8 = 3;

/// The six directions in cyclic order around a point, in axial `(c, r)`:
/// two consecutive directions point at the two common neighbours of a point
/// and its neighbour in the direction between them.
const DIRS: [(i32, i32); 6] = [(1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1)];

/// What the territory around an empty point is, for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Area {
    /// Linked to stones of both colours (the flood may have stopped early).
    Contested,
    /// Linked to no stone; its size in points.
    Unlinked(u16),
    /// Owned by one colour; its size in points.
    Owned(Color, u16),
}

/// The board's neighbour table and the stones, kept in step with the game.
#[derive(Clone, Debug)]
pub(crate) struct Local {
    /// Neighbours of each point in the cyclic order of `DIRS`.
    nb: Vec<[u16; 6]>,
    kinds: Vec<u8>,
    /// Visit marks: `mark[p] == stamp` means visited in the current flood.
    mark: Vec<u32>,
    stamp: u32,
    stack: Vec<u16>,
    linking: Linking,
}

impl Local {
    /// The empty board.
    pub(crate) fn new(board: &Board, linking: Linking) -> Local {
        let nb = board
            .points()
            .map(|p| {
                let (c, r) = board.coords(p);
                DIRS.map(|(dc, dr)| {
                    board
                        .point_at(i32::from(c) + dc, i32::from(r) + dr)
                        .map_or(NONE, |q| q.0)
                })
            })
            .collect();
        Local {
            nb,
            kinds: vec![EMPTY; board.len()],
            mark: vec![0; board.len()],
            stamp: 0,
            stack: Vec::with_capacity(board.len()),
            linking,
        }
    }

    /// Puts a stone (or nothing) on `p`.
    #[inline]
    pub(crate) fn set(&mut self, p: Point, stone: Option<Color>) {
        self.kinds[p.index()] = stone.map_or(EMPTY, |c| c.index() as u8 + 1);
    }

    /// The stone on `p`.
    #[inline]
    pub(crate) fn get(&self, p: Point) -> Option<Color> {
        match self.kinds[p.index()] {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        }
    }

    /// The neighbours of `p` on the board.
    #[inline]
    pub(crate) fn neighbours(&self, p: Point) -> impl Iterator<Item = Point> + '_ {
        self.nb[p.index()]
            .iter()
            .filter(|&&q| q != NONE)
            .map(|&q| Point(q))
    }

    #[inline]
    fn kind(&self, p: u16) -> u8 {
        if p == NONE {
            OFF
        } else {
            self.kinds[p as usize]
        }
    }

    /// Whether `p` and its neighbour in direction `k` are linked
    /// (keil-rules.md, "Links").
    #[inline]
    fn linked(&self, p: u16, k: usize) -> bool {
        let slots = &self.nb[p as usize];
        let q = slots[k];
        if q == NONE {
            return false;
        }
        let a = self.kind(slots[(k + 5) % 6]);
        let b = self.kind(slots[(k + 1) % 6]);
        let (tp, tq) = (self.kind(p), self.kind(q));
        match self.linking {
            Linking::SameType => a == tp || a == tq || b == tp || b == tq,
            Linking::Unopposed => {
                if tp == EMPTY && tq == EMPTY {
                    return true;
                }
                let stone = tp.max(tq);
                if tp != EMPTY && tq != EMPTY && tp != tq {
                    return false;
                }
                let enemy = 3 - stone;
                (a != OFF && a != enemy) || (b != OFF && b != enemy)
            }
        }
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// The territory of the empty point `p`. With `early`, stops as soon as
    /// stones of both colours are seen linked (then the size is unknown).
    pub(crate) fn area(&mut self, p: Point, early: bool) -> Area {
        debug_assert_eq!(self.kinds[p.index()], EMPTY);
        let stamp = self.next_stamp();
        let mut linked = [false; 2];
        let mut size = 0u16;
        self.stack.clear();
        self.stack.push(p.0);
        self.mark[p.index()] = stamp;
        while let Some(x) = self.stack.pop() {
            size += 1;
            for k in 0..6 {
                let q = self.nb[x as usize][k];
                if q == NONE {
                    continue;
                }
                match self.kinds[q as usize] {
                    EMPTY => {
                        if self.mark[q as usize] != stamp && self.linked(x, k) {
                            self.mark[q as usize] = stamp;
                            self.stack.push(q);
                        }
                    }
                    c => {
                        let c = c as usize - 1;
                        if !linked[c] && self.linked(x, k) {
                            linked[c] = true;
                            if early && linked[1 - c] {
                                return Area::Contested;
                            }
                        }
                    }
                }
            }
        }
        match linked {
            [true, false] => Area::Owned(Color::Black, size),
            [false, true] => Area::Owned(Color::White, size),
            [true, true] => Area::Contested,
            [false, false] => Area::Unlinked(size),
        }
    }

    /// Every point of the territory of the empty point `p`, pushed to `out`.
    pub(crate) fn area_points(&mut self, p: Point, out: &mut Vec<Point>) {
        let stamp = self.next_stamp();
        self.stack.clear();
        self.stack.push(p.0);
        self.mark[p.index()] = stamp;
        while let Some(x) = self.stack.pop() {
            out.push(Point(x));
            for k in 0..6 {
                let q = self.nb[x as usize][k];
                if q != NONE
                    && self.kinds[q as usize] == EMPTY
                    && self.mark[q as usize] != stamp
                    && self.linked(x, k)
                {
                    self.mark[q as usize] = stamp;
                    self.stack.push(q);
                }
            }
        }
    }

    /// The group of the stone on `p`: its stones are pushed to `stones`, and
    /// its number of liberties is returned, counting at most `cap`.
    pub(crate) fn group(&mut self, p: Point, stones: &mut Vec<Point>, cap: usize) -> usize {
        let colour = self.kinds[p.index()];
        debug_assert!(colour == 1 || colour == 2);
        let stamp = self.next_stamp();
        let mut liberties = 0;
        self.stack.clear();
        self.stack.push(p.0);
        self.mark[p.index()] = stamp;
        while let Some(x) = self.stack.pop() {
            stones.push(Point(x));
            for k in 0..6 {
                let q = self.nb[x as usize][k];
                if q == NONE || self.mark[q as usize] == stamp {
                    continue;
                }
                let t = self.kinds[q as usize];
                if (t == colour || (t == EMPTY && liberties < cap)) && self.linked(x, k) {
                    self.mark[q as usize] = stamp;
                    if t == colour {
                        self.stack.push(q);
                    } else {
                        liberties += 1;
                    }
                }
            }
        }
        liberties
    }
}

#[cfg(test)]
mod tests {
    use keil_rules::{Board, Game, Linking, Move, Ruleset};

    use super::*;
    use crate::rng::Rng;

    /// The local view agrees with keil-rules on random positions: owner and
    /// size of every territory, stones and liberties of every group.
    #[test]
    fn local_view_agrees_with_keil_rules() {
        for linking in [Linking::SameType, Linking::Unopposed] {
            for side in [2u8, 3, 5, 7] {
                let board = Board::new(side).unwrap();
                let rules = Ruleset {
                    linking,
                    ..Ruleset::keil()
                };
                let mut rng = Rng::new(u64::from(side), 9);
                for _ in 0..6 {
                    let mut game = Game::new(board, rules);
                    let mut local = Local::new(board, linking);
                    for _ in 0..board.len() {
                        let moves: Vec<_> = game
                            .legal_moves()
                            .into_iter()
                            .filter(|m| matches!(m, Move::Place(_)))
                            .collect();
                        if moves.is_empty() {
                            break;
                        }
                        let mv = *rng.pick(&moves);
                        let mover = game.to_move();
                        let out = game.play(mv).unwrap();
                        if let Move::Place(p) = mv {
                            local.set(p, Some(mover));
                        }
                        for &c in &out.captured {
                            local.set(c, None);
                        }
                        check(&game, &mut local, linking);
                    }
                }
            }
        }
    }

    fn check(game: &Game, local: &mut Local, linking: Linking) {
        let pos = game.position();
        for t in pos.territories(linking) {
            for p in t.points.iter() {
                let want = match (t.owner, t.linked) {
                    (Some(c), _) => Area::Owned(c, t.points.len() as u16),
                    (None, [false, false]) => Area::Unlinked(t.points.len() as u16),
                    (None, _) => Area::Contested,
                };
                assert_eq!(local.area(p, false), want, "{pos}");
                let mut points = Vec::new();
                local.area_points(p, &mut points);
                assert_eq!(points.len(), t.points.len());
                assert!(points.iter().all(|&q| t.points.contains(q)));
                if want == Area::Contested {
                    assert_eq!(local.area(p, true), Area::Contested);
                }
            }
        }
        for g in pos.groups(linking) {
            for p in g.stones.iter() {
                let mut stones = Vec::new();
                let libs = local.group(p, &mut stones, usize::MAX);
                assert_eq!(libs, g.liberties.len(), "{pos} at {p:?}");
                assert_eq!(stones.len(), g.stones.len());
                assert!(stones.iter().all(|&s| g.stones.contains(s)));
                let mut few = Vec::new();
                assert_eq!(local.group(p, &mut few, 2), libs.min(2));
            }
        }
    }
}
