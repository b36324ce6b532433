//! Go games: event rules (ruleset, `RU` spelling, komi), handicap stones, and
//! a cheap, plausible, legal playout policy over [`GoGame`].
//!
//! Each turn the mover, in this order:
//! 1. with probability `tactics` (the player's strength), looks near the
//!    last two placements for captures (the largest first) and for a move
//!    that gives an own group in atari a second liberty;
//! 2. in the opening of boards from 9×9 up, mostly takes a point on the
//!    third or fourth line;
//! 3. often answers near the opponent's last placement;
//! 4. otherwise places at random on a *sensible* empty point;
//! 5. with no sensible legal placement, passes. The game ends when the
//!    ruleset says the line is complete (two passes; four under Kee).
//!
//! A point is sensible when the empty region around it (empty points
//! connected orthogonally) is not a small region bordered (nearly) only by
//! the mover's stones (own eyes and territory are never filled), nor such a
//! region of the opponent's too small to invade; and when the placement neither
//! commits suicide nor puts its own group in atari without capturing.
//! Legality, captures, suicide and the groups' liberties are asked of the
//! [`GoGame`] (keil-rules); the regions are the policy's own heuristic.

use keil_rules::{
    Color, GoGame, GoPosition, GoRuleset, HalfPoints, Move, Point, PointSet, SquareBoard,
};

use crate::play::{EmptyPoints, Style};
use crate::rng::Rng;

/// How an event's `RU` is spelled: the ruleset's usual spellings in real
/// records (go-rules.md "RU values" maps each back to its ruleset).
pub(crate) fn ru_spellings(r: GoRuleset) -> &'static [&'static str] {
    match r {
        GoRuleset::Japanese => &["Japanese", "Japanese", "Japanese", "jp"],
        GoRuleset::Korean => &["Korean", "Korean", "KR"],
        GoRuleset::Chinese => &["Chinese", "Chinese", "CN"],
        GoRuleset::Aga => &["AGA", "AGA", "American"],
        GoRuleset::Nz => &["NZ", "New Zealand"],
        GoRuleset::TrompTaylor => &["Tromp-Taylor", "Tromp-Taylor", "TT"],
        GoRuleset::Kee => &["Kee", "Kee"],
    }
}

/// The ruleset of an event when none is forced: mostly Japanese and
/// Chinese, as real collections have them, with every other ruleset
/// represented (Tromp-Taylor and Kee often enough to test checked results).
pub(crate) fn pick_ruleset(rng: &mut Rng) -> GoRuleset {
    match rng.below(100) {
        0..28 => GoRuleset::Japanese,
        28..35 => GoRuleset::Korean,
        35..52 => GoRuleset::Chinese,
        52..62 => GoRuleset::Aga,
        62..70 => GoRuleset::Nz,
        70..85 => GoRuleset::TrompTaylor,
        _ => GoRuleset::Kee,
    }
}

/// The usual komi of a ruleset for even games: 6.5 under Japanese and
/// Korean rules, 7.5 under the area-scoring ones.
pub(crate) fn usual_komi(r: GoRuleset) -> HalfPoints {
    match r {
        GoRuleset::Japanese | GoRuleset::Korean => HalfPoints(13),
        _ => HalfPoints(15),
    }
}

/// The most handicap stones a board takes: 9 on odd boards from 13×13,
/// 5 on 9×9 and 11×11, 4 on other boards from 8×8; 0 below.
pub(crate) fn max_handicap(n: u8) -> u32 {
    match n {
        0..=7 => 0,
        _ if n % 2 == 1 && n >= 13 => 9,
        9 | 11 => 5,
        _ => 4,
    }
}

/// The fixed handicap points of `h` stones (2..=[`max_handicap`]) as
/// `(column, row)` from the top-left, in the usual order: upper right and
/// lower left, then lower right, upper left, the centre for odd `h`, the
/// left and right sides for 6 and more, the top and bottom for 8 and 9.
pub(crate) fn handicap_points(n: u8, h: u32) -> Vec<(u8, u8)> {
    let edge = if n >= 13 { 3 } else { 2 };
    let (lo, hi, mid) = (edge, n - 1 - edge, n / 2);
    let mut out = vec![(hi, lo), (lo, hi)];
    if h >= 3 {
        out.push((hi, hi));
    }
    if h >= 4 {
        out.push((lo, lo));
    }
    if h >= 6 {
        out.extend([(lo, mid), (hi, mid)]);
    }
    if h >= 8 {
        out.extend([(mid, lo), (mid, hi)]);
    }
    if h % 2 == 1 && h >= 5 {
        out.push((mid, mid));
    }
    out
}

/// Chance (per million) that a first-line point drawn in the first third
/// of a game is considered at once rather than after the others.
const FIRST_LINE_EARLY: u32 = 150_000;

/// A region belongs to a colour when that colour's contacts with it are at
/// least this many times the other's.
const MAJORITY: usize = 4;

/// A played Go game: the moves (from the first mover on, alternating) and
/// the game after them.
pub(crate) struct GoPlayout {
    pub moves: Vec<Move>,
    pub game: GoGame,
}

/// Plays `game` (fresh, or from a handicap setup) to its end by passes,
/// `first` moving first.
pub(crate) fn play(game: GoGame, first: Color, styles: [Style; 2], rng: &mut Rng) -> GoPlayout {
    let board = game.board();
    let n = board.size();
    let pos = game.position();
    let mut p = Player {
        board,
        empty: EmptyPoints::new(board.points().filter(|&q| pos.get(q).is_none())),
        game,
        own_limit: (board.len() / 6).max(1),
        invade: (4 + usize::from(n) / 4).max(board.len() / 24),
        opening: if n >= 9 { u32::from(n) / 2 } else { 0 },
        edge: if n >= 13 { 3 } else { 2 },
        last: [None, None],
        candidates: Vec::with_capacity(board.len()),
        deferred: Vec::with_capacity(board.len()),
        verdict: vec![(0, false); board.len()],
        region: Vec::with_capacity(board.len()),
        seen: vec![0; board.len()],
        stamp: 0,
    };
    let mut moves = Vec::with_capacity(board.len() * 2);
    // A safety net: past this many plies nothing is sensible any more.
    let max_plies = board.len() as u32 * 3 + 10;
    let mut mover = first;
    while !p.game.is_complete() {
        let mv = if moves.len() as u32 >= max_plies {
            Move::Pass
        } else {
            p.choose(mover, styles[mover.index()], rng)
                .map_or(Move::Pass, Move::Place)
        };
        let out = p
            .game
            .play_as(mover, mv)
            .expect("the policy only plays moves it checked to be legal");
        if let Move::Place(q) = mv {
            p.last[mover.index()] = Some(q);
            p.empty.set(q, false);
        }
        for &c in out.captured.iter().chain(&out.suicided) {
            p.empty.set(c, true);
        }
        moves.push(mv);
        mover = mover.opposite();
    }
    GoPlayout {
        moves,
        game: p.game,
    }
}

/// The policy's state during one game.
struct Player {
    board: &'static SquareBoard,
    game: GoGame,
    /// Own regions up to this size are territory: never filled.
    own_limit: usize,
    /// Opponent regions smaller than this are not invaded.
    invade: usize,
    /// Plies of the opening, when the third and fourth lines come first.
    opening: u32,
    /// The 0-based line of the corner star points (3rd or 4th line).
    edge: u8,
    /// The last placement of each colour.
    last: [Option<Point>; 2],
    empty: EmptyPoints,
    candidates: Vec<Point>,
    /// First-line candidates put back in the opening.
    deferred: Vec<Point>,
    /// Per point: (ply + 1 when judged, sensible?), so that one flood
    /// judges a whole region for the turn.
    verdict: Vec<(u32, bool)>,
    /// Scratch for floods: the region, and a visit stamp per point.
    region: Vec<Point>,
    seen: Vec<u32>,
    stamp: u32,
}

impl Player {
    fn choose(&mut self, mover: Color, style: Style, rng: &mut Rng) -> Option<Point> {
        if rng.chance(style.tactics)
            && let Some(p) = self.tactical(mover)
        {
            return Some(p);
        }
        let turn = self.game.ply() + 1;
        let n = i32::from(self.board.size());
        if self.game.ply() < self.opening && rng.chance(850_000) {
            // The third and fourth lines (second to fifth on small boards).
            let (a, b) = (i32::from(self.edge) - 1, i32::from(self.edge));
            let band = |v: i32| (a..=b).contains(&v.min(n - 1 - v));
            self.candidates.clear();
            for &q in self.empty.points() {
                let (c, r) = self.board.coords(q);
                if band(i32::from(c)) && band(i32::from(r)) {
                    self.candidates.push(q);
                }
            }
            if let Some(q) = self.pick(mover, turn, rng) {
                return Some(q);
            }
        }
        if let Some(last) = self.last[mover.opposite().index()]
            && rng.chance(450_000)
        {
            let (lc, lr) = self.board.coords(last);
            let (lc, lr) = (i32::from(lc), i32::from(lr));
            self.candidates.clear();
            for dr in -2..=2 {
                for dc in -2..=2 {
                    if let Some(q) = self.board.point_at(lc + dc, lr + dr)
                        && self.game.stone_at(q).is_none()
                    {
                        self.candidates.push(q);
                    }
                }
            }
            if let Some(q) = self.pick(mover, turn, rng) {
                return Some(q);
            }
        }
        self.candidates.clear();
        self.candidates.extend_from_slice(self.empty.points());
        self.pick(mover, turn, rng)
    }

    /// Draws candidates at random until one is sensible and legal. In the
    /// first third of a game on boards from 9×9 up, most first-line points
    /// are put back and tried only after every other candidate.
    fn pick(&mut self, mover: Color, turn: u32, rng: &mut Rng) -> Option<Point> {
        let early = self.opening > 0 && (self.game.ply() as usize) < self.board.len() / 3;
        let last = i32::from(self.board.size()) - 1;
        self.deferred.clear();
        while !self.candidates.is_empty() {
            let i = rng.below(self.candidates.len());
            let q = self.candidates.swap_remove(i);
            if early && !rng.chance(FIRST_LINE_EARLY) {
                let (c, r) = self.board.coords(q);
                let (c, r) = (i32::from(c), i32::from(r));
                if c == 0 || r == 0 || c == last || r == last {
                    self.deferred.push(q);
                    continue;
                }
            }
            if self.sensible(q, mover, turn) && self.acceptable(q, mover) {
                return Some(q);
            }
        }
        while !self.deferred.is_empty() {
            let i = rng.below(self.deferred.len());
            let q = self.deferred.swap_remove(i);
            if self.sensible(q, mover, turn) && self.acceptable(q, mover) {
                return Some(q);
            }
        }
        None
    }

    /// Whether the empty region of `q` is open to the mover: not a small
    /// region bordered by the mover's stones only, nor an opponent's region
    /// too small to invade. Regions bordered by both colours or by none are
    /// open to both.
    fn sensible(&mut self, q: Point, mover: Color, turn: u32) -> bool {
        let (when, ok) = self.verdict[q.index()];
        if when == turn {
            return ok;
        }
        self.stamp += 1;
        let stamp = self.stamp;
        self.region.clear();
        self.region.push(q);
        self.seen[q.index()] = stamp;
        // Contacts between the region and each colour's stones. A region
        // larger than both limits is open whoever borders it: the flood
        // stops there (its points seen so far get the verdict).
        let open_size = self.own_limit.max(self.invade - 1);
        let mut borders = [0usize; 2];
        let mut i = 0;
        while i < self.region.len() && self.region.len() <= open_size {
            let r = self.region[i];
            i += 1;
            for s in self.board.neighbours(r) {
                match self.game.stone_at(s) {
                    Some(c) => borders[c.index()] += 1,
                    None if self.seen[s.index()] != stamp => {
                        self.seen[s.index()] = stamp;
                        self.region.push(s);
                    }
                    None => {}
                }
            }
        }
        let len = self.region.len();
        let (own, theirs) = (borders[mover.index()], borders[mover.opposite().index()]);
        // A region is a colour's when its stones make nearly all of the
        // border (a few opponent stones inside or at the edge do not open
        // it); regions bordered by both alike, or by none, are open.
        let ok = if len > open_size {
            true
        } else if own > 0 && theirs * MAJORITY <= own {
            len > self.own_limit
        } else if theirs > 0 && own * MAJORITY <= theirs {
            len >= self.invade
        } else {
            true
        };
        for r in &self.region {
            self.verdict[r.index()] = (turn, ok);
        }
        ok
    }

    /// Whether a placement on `q` is legal and neither suicide nor a
    /// self-atari that captures nothing. A point with two empty neighbours
    /// needs only the legality check; others are played on a copy.
    fn acceptable(&self, q: Point, mover: Color) -> bool {
        let free = self
            .board
            .neighbours(q)
            .filter(|&s| self.game.stone_at(s).is_none())
            .count();
        if free >= 2 {
            return self.game.legality(mover, Move::Place(q)).is_ok();
        }
        let mut next = self.game.clone();
        let Ok(out) = next.play_as(mover, Move::Place(q)) else {
            return false;
        };
        if !out.suicided.is_empty() {
            return false;
        }
        !out.captured.is_empty() || liberties(&next.position(), q) >= 2
    }

    /// Near the last two placements: the largest capture, else a move that
    /// gives an own group in atari a second liberty (extending, or
    /// capturing a neighbour of it).
    fn tactical(&mut self, mover: Color) -> Option<Point> {
        let board = self.board;
        let pos = self.game.position();
        let hot = self
            .last
            .iter()
            .flatten()
            .flat_map(|&m| std::iter::once(m).chain(board.neighbours(m)));
        let mut seen = PointSet::default();
        let mut best: Option<(usize, Point)> = None;
        let mut saves: Vec<Point> = Vec::new();
        for s in hot {
            if seen.contains(s) {
                continue;
            }
            let Some(group) = pos.group_at(s) else {
                continue;
            };
            group.stones.iter().for_each(|g| seen.insert(g));
            if group.liberties.len() != 1 {
                continue;
            }
            let lib = group.liberties.iter().next().expect("one liberty");
            if group.color != mover {
                let k = group.stones.len();
                if best.is_none_or(|(m, _)| k > m)
                    && self.game.legality(mover, Move::Place(lib)).is_ok()
                {
                    best = Some((k, lib));
                }
            } else {
                saves.push(lib);
                // Capturing an opponent neighbour in atari saves too.
                for g in group.stones.iter() {
                    for t in board.neighbours(g) {
                        if pos.get(t) == Some(mover.opposite())
                            && let Some(other) = pos.group_at(t)
                            && other.liberties.len() == 1
                        {
                            saves.extend(other.liberties.iter());
                        }
                    }
                }
            }
        }
        if let Some((_, q)) = best {
            return Some(q);
        }
        saves.into_iter().find(|&q| {
            let mut next = self.game.clone();
            next.play_as(mover, Move::Place(q)).is_ok()
                && next.stone_at(q) == Some(mover)
                && liberties(&next.position(), q) >= 2
        })
    }
}

/// The liberties of the group on `q` (0 when `q` is empty).
fn liberties(pos: &GoPosition, q: Point) -> usize {
    pos.group_at(q).map_or(0, |g| g.liberties.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handicap_points_are_the_usual_ones() {
        // 19×19: Q16 and D4 for two stones, all nine star points for nine.
        assert_eq!(handicap_points(19, 2), [(15, 3), (3, 15)]);
        let mut nine = handicap_points(19, 9);
        nine.sort();
        let mut want: Vec<(u8, u8)> = Vec::new();
        for c in [3, 9, 15] {
            for r in [3, 9, 15] {
                want.push((c, r));
            }
        }
        assert_eq!(nine, want);
        for h in 2..=9 {
            let pts = handicap_points(19, h);
            assert_eq!(pts.len(), h as usize, "{h}");
            let mut unique = pts.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), pts.len(), "{h}");
        }
        // 9×9: 3-3 points and the centre.
        assert_eq!(
            handicap_points(9, 5),
            [(6, 2), (2, 6), (6, 6), (2, 2), (4, 4)]
        );
        assert_eq!(max_handicap(7), 0);
        assert_eq!(max_handicap(9), 5);
        assert_eq!(max_handicap(10), 4);
        assert_eq!(max_handicap(13), 9);
    }

    #[test]
    fn ru_spellings_map_back_to_their_ruleset() {
        for r in GoRuleset::ALL {
            for ru in ru_spellings(r) {
                assert_eq!(GoRuleset::from_ru(Some(ru)).0, r, "{ru}");
            }
        }
    }
}
