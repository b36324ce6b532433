//! Properties of the square geometry and of the Go rules:
//!
//! - the square board: neighbour counts, point names round trip, the 8
//!   symmetries form a group (`then` / `inverse` agree with point
//!   transforms for every pair, on several sizes);
//! - the 8 symmetries and the colour swap give the same legality, reasons
//!   and captures on random move sequences;
//! - every repetition rule (simple ko, positional and situational superko,
//!   Kee) agrees with a deliberately simple reimplementation that keeps
//!   whole boards in vectors and compares them one by one.

use keil_rules::{
    AnyBoard, Color, GoGame, GoRuleset, HalfPoints, IllegalReason, KeeCheck, Move, Point,
    SquareBoard, SquareSymmetry, ToMove,
};
use proptest::prelude::*;

const SIZES: [u8; 7] = [1, 2, 3, 4, 5, 9, 19];

#[test]
fn neighbour_counts() {
    for n in SIZES {
        let b = SquareBoard::new(n).unwrap();
        assert_eq!(b.len(), n as usize * n as usize);
        for p in b.points() {
            let (c, r) = b.coords(p);
            let edges = [c == 0, r == 0, c + 1 == n, r + 1 == n]
                .iter()
                .filter(|&&e| e)
                .count();
            let expected = if n == 1 { 0 } else { 4 - edges };
            assert_eq!(b.neighbours(p).count(), expected, "{n}x{n} {p:?}");
            for q in b.neighbours(p) {
                assert!(b.neighbours(q).any(|x| x == p), "symmetric adjacency");
                let (qc, qr) = b.coords(q);
                assert_eq!(c.abs_diff(qc) + r.abs_diff(qr), 1);
            }
        }
    }
    assert!(SquareBoard::new(0).is_err() && SquareBoard::new(20).is_err());
}

#[test]
fn names_round_trip() {
    for n in SIZES {
        let b = SquareBoard::new(n).unwrap();
        for p in b.points() {
            let (c, r) = b.coords(p);
            assert_eq!(b.point_at(c as i32, r as i32), Some(p));
            assert_eq!(b.parse_sgf_point(&b.sgf_name(p)), Ok(p));
            assert_eq!(b.parse_display_name(&b.display_name(p)), Ok(p));
            let lower = b.display_name(p).to_lowercase();
            assert_eq!(b.parse_display_name(&lower), Ok(p));
        }
        // The first letter after the board's last is off the board.
        let past = if n < 26 {
            (b'a' + n) as char
        } else {
            (b'A' + n - 26) as char
        };
        assert!(b.parse_sgf_point(&format!("{past}a")).is_err());
    }
    let b = SquareBoard::new(19).unwrap();
    assert_eq!(b.display_name(b.parse_sgf_point("aa").unwrap()), "A19");
    assert_eq!(b.display_name(b.parse_sgf_point("ss").unwrap()), "T1");
    assert_eq!(b.display_name(b.parse_sgf_point("dp").unwrap()), "D4");
}

#[test]
fn symmetries_form_a_group() {
    for n in SIZES {
        let b = SquareBoard::new(n).unwrap();
        let any = AnyBoard::Square(b);
        assert_eq!(any.symmetry_count(), 8);
        for s in SquareSymmetry::all() {
            // A bijection of the board.
            let mut images: Vec<Point> = b.points().map(|p| b.transform(p, s)).collect();
            images.sort();
            assert_eq!(images, b.points().collect::<Vec<_>>());
            for p in b.points() {
                assert_eq!(b.transform(b.transform(p, s), s.inverse()), p);
                // Adjacency is preserved.
                for q in b.neighbours(p) {
                    let (tp, tq) = (b.transform(p, s), b.transform(q, s));
                    assert!(b.neighbours(tp).any(|x| x == tq));
                }
            }
            assert_eq!(any.inverse(s.index()), s.inverse().index());
            for t in SquareSymmetry::all() {
                let st = s.then(t);
                assert_eq!(any.compose(s.index(), t.index()), st.index());
                for p in b.points() {
                    assert_eq!(b.transform(b.transform(p, s), t), b.transform(p, st));
                }
            }
        }
        if n >= 2 {
            // The 8 symmetries are 8 different permutations of the points.
            let mut maps: Vec<Vec<Point>> = SquareSymmetry::all()
                .map(|s| b.points().map(|p| b.transform(p, s)).collect())
                .collect();
            maps.sort();
            maps.dedup();
            assert_eq!(maps.len(), 8, "{n}");
        }
    }
    // The hex board's group through the same interface.
    let hex = AnyBoard::Hex(keil_rules::Board::new(3).unwrap());
    for a in 0..12 {
        assert_eq!(hex.compose(a, hex.inverse(a)), 0);
        for bb in 0..12 {
            let c = hex.compose(a, bb);
            for p in hex.points() {
                assert_eq!(hex.transform(hex.transform(p, a), bb), hex.transform(p, c));
            }
        }
    }
}

// ---- symmetry and colour swap -------------------------------------------------

/// One attempt: a point index (taken modulo the board size) or a pass.
fn attempts() -> impl Strategy<Value = Vec<(u16, bool)>> {
    prop::collection::vec((0u16..400, prop::bool::weighted(0.08)), 0..80)
}

fn ruleset() -> impl Strategy<Value = GoRuleset> {
    prop::sample::select(GoRuleset::ALL.to_vec())
}

/// What an attempt gave: the captured and suicided points (sorted), the
/// Kee flags, or the refusal.
type Result1 = Result<(Vec<Point>, Vec<Point>, bool, bool), IllegalReason>;

fn attempt(game: &mut GoGame, color: Color, mv: Move) -> Result1 {
    game.play_as(color, mv)
        .map(|o| (o.captured, o.suicided, o.superko_break, o.pass_play))
        .map_err(|e| e.reason)
}

fn mover(game: &GoGame, last: Color) -> Color {
    game.to_move().color().unwrap_or(last.opposite())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn symmetries_and_colour_swap_keep_legality_and_captures(
        size in 2u8..=5,
        rules in ruleset(),
        moves in attempts(),
        sym in 1u8..8,
    ) {
        let b = SquareBoard::new(size).unwrap();
        let s = SquareSymmetry::from_index(sym).unwrap();
        let mut game = GoGame::new(b, rules, HalfPoints(0));
        let mut image = GoGame::new(b, rules, HalfPoints(0));
        let mut swapped = GoGame::from_setup(
            &keil_rules::GoPosition::empty(b),
            rules,
            HalfPoints(0),
            ToMove::Color(Color::White),
        );
        let mut last = Color::White;
        for (i, pass) in moves {
            let color = mover(&game, last);
            let p = Point(i % b.len() as u16);
            let (mv, tmv) = if pass {
                (Move::Pass, Move::Pass)
            } else {
                (Move::Place(p), Move::Place(b.transform(p, s)))
            };
            let a = attempt(&mut game, color, mv);
            let t = attempt(&mut image, color, tmv);
            let w = attempt(&mut swapped, color.opposite(), mv);
            let mapped = a.clone().map(|(c, d, k, q)| {
                let map = |v: Vec<Point>| {
                    let mut v: Vec<Point> = v.into_iter().map(|x| b.transform(x, s)).collect();
                    v.sort();
                    v
                };
                (map(c), map(d), k, q)
            });
            prop_assert_eq!(&t, &mapped);
            let unswap = |r: Result1| r.map_err(|e| match e {
                IllegalReason::WrongPlayer { expected } => IllegalReason::WrongPlayer {
                    expected: expected.opposite(),
                },
                e => e,
            });
            prop_assert_eq!(&unswap(w), &a);
            if a.is_ok() {
                last = color;
                prop_assert_eq!(
                    image.position(),
                    game.position().transform(s)
                );
                prop_assert_eq!(swapped.position(), game.position().swap_colors());
                prop_assert_eq!(image.canonical_key().0, game.canonical_key().0);
                prop_assert_eq!(image.key(), game.position().transform(s).key());
            }
        }
    }
}

// ---- a brute-force model of the repetition rules -----------------------------

/// Boards as plain vectors: 0 empty, 1 black, 2 white.
type Cells = Vec<u8>;

/// A second implementation of go-rules.md "Placing a stone", the
/// repetition rules and kee-rules.md, as literal as possible: every
/// earlier board is kept and compared cell by cell.
struct Model {
    board: &'static SquareBoard,
    rules: GoRuleset,
    cells: Cells,
    ply: u32,
    passes: u32,
    last_was_pass: bool,
    /// (board after ply k, colour to move after it), k = 0.. (0 = start).
    history: Vec<(Cells, Option<Color>)>,
    /// Kee: (position, move number of the next move).
    kee_history: Vec<(Cells, u32)>,
    starts: [u32; 2],
    repeated: Vec<(Cells, Color)>,
}

fn stone(c: Color) -> u8 {
    if c == Color::Black { 1 } else { 2 }
}

impl Model {
    fn new(board: &'static SquareBoard, rules: GoRuleset) -> Model {
        let cells = vec![0; board.len()];
        Model {
            board,
            rules,
            cells: cells.clone(),
            ply: 0,
            passes: 0,
            last_was_pass: false,
            history: vec![(cells.clone(), None)],
            kee_history: vec![(cells, 1)],
            starts: [1, 1],
            repeated: Vec::new(),
        }
    }

    /// The chain of `p` and whether it has a liberty (recursive flood).
    fn chain(&self, cells: &Cells, p: usize) -> (Vec<usize>, bool) {
        let mut seen = vec![p];
        let mut i = 0;
        let mut liberty = false;
        while i < seen.len() {
            let q = seen[i];
            for n in self.board.neighbours(Point(q as u16)) {
                let n = n.index();
                if cells[n] == 0 {
                    liberty = true;
                } else if cells[n] == cells[p] && !seen.contains(&n) {
                    seen.push(n);
                }
            }
            i += 1;
        }
        (seen, liberty)
    }

    fn over(&self) -> bool {
        match self.rules {
            GoRuleset::TrompTaylor => self.passes >= 2,
            GoRuleset::Kee => self.passes >= 4,
            _ => false,
        }
    }

    fn pass(&mut self, color: Color, pass_play: bool) -> (bool, bool) {
        self.ply += 1;
        let m = self.ply;
        self.passes += 1;
        self.last_was_pass = true;
        self.kee_history.push((self.cells.clone(), m + 1));
        self.starts[color.index()] = m + 1;
        self.record_first(color);
        self.history
            .push((self.cells.clone(), Some(color.opposite())));
        (false, pass_play)
    }

    fn record_first(&mut self, color: Color) {
        if self.history.len() == 1 {
            self.history[0].1 = Some(color);
        }
    }

    /// Legal: (superko break, pass play); illegal: the reason.
    fn play(&mut self, color: Color, mv: Move) -> Result<(bool, bool), IllegalReason> {
        if self.over() {
            return Err(IllegalReason::GameOver);
        }
        let p = match mv {
            Move::Pass => return Ok(self.pass(color, false)),
            Move::Place(p) => p.index(),
            Move::TakeButton | Move::Swap => unreachable!(),
        };
        if self.cells[p] != 0 {
            return Err(IllegalReason::Occupied);
        }
        let mut cells = self.cells.clone();
        cells[p] = stone(color);
        for n in self.board.neighbours(Point(p as u16)) {
            let n = n.index();
            if cells[n] == stone(color.opposite()) {
                let (chain, liberty) = self.chain(&cells, n);
                if !liberty {
                    chain.iter().for_each(|&q| cells[q] = 0);
                }
            }
        }
        let (own, liberty) = self.chain(&cells, p);
        if !liberty {
            if !self.rules.suicide() {
                return Err(IllegalReason::SelfCapture);
            }
            own.iter().for_each(|&q| cells[q] = 0);
        }
        let next = color.opposite();
        let m = self.ply + 1;
        let rep = |plies: Vec<u32>, kee| Err(IllegalReason::Repetition { plies, kee });
        let mut brk = false;
        match self.rules {
            GoRuleset::Japanese | GoRuleset::Korean => {
                if m >= 2 && !self.last_was_pass && self.history[(m - 2) as usize].0 == cells {
                    return rep(vec![m - 2], None);
                }
            }
            GoRuleset::Chinese | GoRuleset::TrompTaylor => {
                let plies: Vec<u32> = (0..self.history.len() as u32)
                    .filter(|&k| self.history[k as usize].0 == cells)
                    .collect();
                if !plies.is_empty() {
                    return rep(plies, None);
                }
            }
            GoRuleset::Aga | GoRuleset::Nz => {
                let plies: Vec<u32> = (0..self.history.len() as u32)
                    .filter(|&k| self.history[k as usize] == (cells.clone(), Some(next)))
                    .collect();
                if !plies.is_empty() {
                    return rep(plies, None);
                }
            }
            GoRuleset::Kee => {
                if cells == self.cells {
                    return Ok(self.pass(color, true));
                }
                let entries: Vec<u32> = self
                    .kee_history
                    .iter()
                    .filter(|(c, _)| *c == cells)
                    .map(|&(_, n)| n)
                    .collect();
                if entries.is_empty() {
                    self.repeated.clear();
                } else {
                    let plies = entries.iter().map(|n| n - 1).collect();
                    if entries.iter().any(|&n| n >= self.starts[color.index()]) {
                        return rep(plies, Some(KeeCheck::SuperkoStart));
                    }
                    if self.repeated.contains(&(cells.clone(), next)) {
                        return rep(plies, Some(KeeCheck::RepeatedSituation));
                    }
                    brk = true;
                    self.starts = [1, 1];
                    self.repeated.push((cells.clone(), next));
                }
                self.kee_history.push((cells.clone(), m + 1));
            }
        }
        self.ply = m;
        self.passes = 0;
        self.last_was_pass = false;
        self.record_first(color);
        self.history.push((cells.clone(), Some(next)));
        self.cells = cells;
        Ok((brk, false))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn repetition_rules_agree_with_a_brute_force_model(
        size in 2u8..=4,
        rules in ruleset(),
        moves in prop::collection::vec((0u16..16, prop::bool::weighted(0.2)), 0..200),
    ) {
        let b = SquareBoard::new(size).unwrap();
        let mut game = GoGame::new(b, rules, HalfPoints(0));
        let mut model = Model::new(b, rules);
        let mut last = Color::White;
        for (i, pass) in moves {
            let color = mover(&game, last);
            let mv = if pass { Move::Pass } else { Move::Place(Point(i % b.len() as u16)) };
            let got = game
                .play_as(color, mv)
                .map(|o| (o.superko_break, o.pass_play))
                .map_err(|e| e.reason);
            let want = model.play(color, mv);
            prop_assert_eq!(&got, &want, "{} {:?} at ply {}", rules, mv, game.ply() + 1);
            if got.is_ok() {
                last = color;
                let cells: Vec<u8> = b
                    .points()
                    .map(|p| game.position().get(p).map_or(0, stone))
                    .collect();
                prop_assert_eq!(&cells, &model.cells);
            }
        }
    }
}
