//! Kaomi rules (kaomi-rules.md): one test per row of the line rule's
//! examples table, the two-dimensional example, the whole 4×4 game replayed
//! position by position, and proptests of every invariant of the
//! "Invariants" section on sizes 2 to 11.

use keil_rules::{
    Color, HalfPoints, KaomiGame, KaomiPosition, KaomiResult, KaomiRuleset, KaomiVariant, Move,
    Point, SquareBoard, SquareSymmetry,
};
use proptest::prelude::*;

/// Row `a` of a board of the text's width, `*` where Black places; returns
/// row `a` after the placement, written the same way.
fn place_in_row(before: &str) -> String {
    let n = before.chars().count() as u8;
    let board = SquareBoard::new(n).unwrap();
    let mut pos = KaomiPosition::empty(board);
    let mut at = None;
    for (i, ch) in before.chars().enumerate() {
        let p = Point(i as u16);
        match ch {
            'B' => pos.set(p, Some(Color::Black)),
            'W' => pos.set(p, Some(Color::White)),
            '*' => at = Some(p),
            '.' => {}
            _ => panic!("bad example {before}"),
        }
    }
    pos.place(at.expect("a *"), Color::Black);
    (0..n as u16)
        .map(|i| match pos.get(Point(i)) {
            Some(Color::Black) => 'B',
            Some(Color::White) => 'W',
            None => '.',
        })
        .collect()
}

#[test]
fn chain_pushes_the_stone_behind() {
    assert_eq!(place_in_row(".*WB."), ".B.WB");
}

#[test]
fn stone_leaving_the_edge_reenters_at_the_other_end() {
    assert_eq!(place_in_row("..*WW"), "W.B.W");
}

#[test]
fn reentering_stone_next_to_p_is_not_pushed_again() {
    assert_eq!(place_in_row(".*WBW"), "WB.WB");
}

#[test]
fn reentering_on_an_occupied_end_pushes_toward_p() {
    assert_eq!(place_in_row("W.*BWB"), "BWB.BW");
}

#[test]
fn chain_round_onto_p_returns_the_line() {
    assert_eq!(place_in_row("*WBWB"), "BWBWB");
}

#[test]
fn full_line_moves_nothing() {
    assert_eq!(place_in_row("WB*BW"), "WBBBW");
}

#[test]
fn collision_returns_the_chain_that_moved_past_p() {
    assert_eq!(place_in_row(".W*BW"), "W.BBW");
}

#[test]
fn collision_returns_the_chain_that_moved_toward_p() {
    assert_eq!(place_in_row("B.W*WB"), "BW.BWB");
}

#[test]
fn side_three_neighbour_jumps_to_the_other_side() {
    assert_eq!(place_in_row(".*W"), "WB.");
}

#[test]
fn nothing_moves_on_two_by_two() {
    assert_eq!(place_in_row("*W"), "BW");
    assert_eq!(place_in_row("W*"), "WB");
}

#[test]
fn directions_apply_at_once_in_the_text_order_example() {
    // Points settled #1: `. W * B W` is `W . B B W`, not an order's result.
    assert_eq!(place_in_row(".W*BW"), "W.BBW");
}

#[test]
fn four_neighbours_pushed_at_once() {
    let (mut pos, _) = KaomiPosition::parse_notation("5/2w2/1b1w1/2w2/5").unwrap();
    let board = pos.board();
    pos.place(board.parse_sgf_point("cc").unwrap(), Color::Black);
    assert_eq!(pos.to_notation(None), "2w2/5/b1b1w/5/2w2");
}

/// The whole 4×4 game of kaomi-rules.md, position by position.
#[test]
fn whole_game_example() {
    let moves = [
        ("B", "ba", "1b2/4/4/4 w"),
        ("W", "swap", "1w2/4/4/4 b"),
        ("B", "cb", "1w2/2b1/4/4 w"),
        ("W", "dd", "1w2/2b1/4/3w b"),
        ("B", "da", "1w1b/2b1/4/3w w"),
        ("W", "cd", "1w1b/2b1/4/w1w1 b"),
        ("B", "dd", "1w1b/2b1/4/ww1b w"),
        ("W", "db", "1w2/1b1w/3b/ww1b b"),
        ("B", "cb", "1w2/b1bw/3b/ww1b w"),
        ("W", "bb", "4/bwbw/1w1b/ww1b b"),
        ("B", "ac", "b3/1wbw/b1wb/ww1b w"),
        ("W", "ba", "1w1b/2bw/bwwb/ww1b b"),
        ("B", "cd", "1wbb/2ww/bw1b/wwbb w"),
        ("W", "ab", "wwbb/w1ww/1w1b/bwbb b"),
        ("B", "ac", "wwbb/w1ww/b1wb/bwbb w"),
        ("W", "bc", "wwbb/wwww/bwwb/b1bb b"),
        ("B", "bd", "wwbb/wwww/bwwb/bbbb"),
    ];
    let board = SquareBoard::new(4).unwrap();
    let mut game = KaomiGame::new(board, KaomiRuleset::STANDARD, HalfPoints(0));
    for (i, (colour, mv, after)) in moves.iter().enumerate() {
        let color = if *colour == "B" {
            Color::Black
        } else {
            Color::White
        };
        let mv = if *mv == "swap" {
            Move::Swap
        } else {
            Move::Place(board.parse_sgf_point(mv).unwrap())
        };
        game.play_as(color, mv)
            .unwrap_or_else(|e| panic!("ply {}: {e}", i + 1));
        let to_move = (!game.is_over()).then(|| game.to_move());
        assert_eq!(
            game.position().to_notation(to_move),
            *after,
            "ply {}",
            i + 1
        );
    }
    let result = game.result().unwrap();
    assert_eq!(result.sizes(Color::Black), vec![6, 2]);
    assert_eq!(result.sizes(Color::White), vec![8]);
    assert_eq!(result.winner, Some(Color::White));
    assert_eq!(result.margin, HalfPoints::from_points(2));
    assert!(!result.emptied);
    let deciding = &result.groups[result.deciding.unwrap()];
    assert_eq!((deciding.color, deciding.size), (Color::White, 8));
}

#[test]
fn reason_codes_in_order() {
    let board = SquareBoard::new(3).unwrap();
    let mut game = KaomiGame::new(board, KaomiRuleset::STANDARD, HalfPoints(0));
    let code = |g: &KaomiGame, c, m| g.legality(c, m).unwrap_err().code();
    assert_eq!(code(&game, Color::Black, Move::Swap), "swap_wrong_turn");
    assert_eq!(code(&game, Color::White, Move::Swap), "wrong_player");
    assert_eq!(code(&game, Color::Black, Move::Pass), "pass_not_allowed");
    assert_eq!(
        code(&game, Color::Black, Move::Place(Point(9))),
        "off_board"
    );
    game.play(Move::Place(Point(4))).unwrap();
    assert_eq!(code(&game, Color::White, Move::Place(Point(4))), "occupied");
    let off = KaomiGame::new(board, KaomiRuleset::SQUARED, HalfPoints(0));
    let mut off = off;
    off.play(Move::Place(Point(0))).unwrap();
    assert_eq!(code(&off, Color::White, Move::Swap), "swap_not_allowed");
    while !game.is_over() {
        let mv = game.legal_moves(game.to_move())[0];
        game.play(mv).unwrap();
    }
    assert_eq!(code(&game, Color::White, Move::Pass), "after_end");
}

#[test]
fn squared_draw_on_two_by_two() {
    let (pos, _) = KaomiPosition::parse_notation("bw/wb").unwrap();
    let r = KaomiResult::score(&pos, KaomiVariant::Squared, HalfPoints(0), Color::White);
    assert_eq!(
        r.scores,
        [HalfPoints::from_points(2), HalfPoints::from_points(2)]
    );
    assert_eq!(r.winner, None);
    let r = KaomiResult::score(&pos, KaomiVariant::Standard, HalfPoints(0), Color::White);
    assert!(r.emptied);
    assert_eq!(r.winner, Some(Color::Black));
}

// ---- invariants ---------------------------------------------------------------------

/// A random position on a random size 2..=11 and an empty square in it.
fn position_and_empty() -> impl Strategy<Value = (KaomiPosition, Point, Color)> {
    (2u8..=11)
        .prop_flat_map(|n| {
            let len = n as usize * n as usize;
            (
                Just(n),
                proptest::collection::vec(0u8..3, len),
                0..len,
                any::<bool>(),
            )
        })
        .prop_map(|(n, cells, empty, black)| {
            let board = SquareBoard::new(n).unwrap();
            let mut pos = KaomiPosition::empty(board);
            for (i, c) in cells.iter().enumerate() {
                let stone = match c {
                    1 => Some(Color::Black),
                    2 => Some(Color::White),
                    _ => None,
                };
                if i != empty {
                    pos.set(Point(i as u16), stone);
                }
            }
            let color = if black { Color::Black } else { Color::White };
            (pos, Point(empty as u16), color)
        })
}

/// The stones of the line through `p` (row if `row`), read cyclically from
/// the square after `p` round to the square before it.
fn cyclic_line(pos: &KaomiPosition, p: Point, row: bool) -> Vec<Color> {
    let board = pos.board();
    let n = board.size() as i32;
    let (x, y) = board.coords(p);
    let (x, y) = (x as i32, y as i32);
    (1..n)
        .filter_map(|k| {
            let q = if row {
                board.point_at((x + k) % n, y)
            } else {
                board.point_at(x, (y + k) % n)
            };
            pos.get(q.unwrap())
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Invariants 1 to 6 and 8 on one placement.
    #[test]
    fn placement_invariants((pos, p, color) in position_and_empty()) {
        let board = pos.board();
        let n = board.size();
        let mut after = pos;
        let pushes = after.place(p, color);
        // 2: one stone more, of the mover's colour; none leaves the board.
        prop_assert_eq!(after.count(color), pos.count(color) + 1);
        prop_assert_eq!(after.count(color.opposite()), pos.count(color.opposite()));
        // 3: the placed stone stays; nothing ends on it.
        prop_assert_eq!(after.get(p), Some(color));
        prop_assert!(pushes.iter().all(|(from, to)| from != p && to != p));
        let (px, py) = board.coords(p);
        for q in board.points() {
            let (qx, qy) = board.coords(q);
            // 4: squares outside the row and the column never change.
            if qx != px && qy != py {
                prop_assert_eq!(after.get(q), pos.get(q));
            }
        }
        // 5: each move stays in its line and goes one square cyclically.
        for (from, to) in pushes.iter() {
            let ((fx, fy), (tx, ty)) = (board.coords(from), board.coords(to));
            let step = |a: u8, b: u8| (b as i32 - a as i32).rem_euclid(n as i32);
            if fy == ty {
                prop_assert_eq!(fy, py);
                let d = step(fx, tx);
                prop_assert!(d == 1 || d == n as i32 - 1);
            } else {
                prop_assert_eq!((fx, tx), (px, px));
                let d = step(fy, ty);
                prop_assert!(d == 1 || d == n as i32 - 1);
            }
            prop_assert_eq!(after.get(to), pos.get(from));
        }
        // 6: the cyclic order of each line is kept.
        for row in [true, false] {
            prop_assert_eq!(cyclic_line(&after, p, row), cyclic_line(&pos, p, row));
        }
        // The flood agrees with the group list.
        for c in [Color::Black, Color::White] {
            let biggest = after.groups().iter().filter(|g| g.color == c).map(|g| g.size as u32).max();
            prop_assert_eq!(after.biggest_group(c), biggest.unwrap_or(0));
        }
        // 8: nothing moves on 2×2.
        if n == 2 {
            prop_assert!(pushes.is_empty());
        }
    }

    /// Invariant 7: colour-blind, and the 8 symmetries commute with a
    /// placement.
    #[test]
    fn symmetric_and_colour_blind((pos, p, color) in position_and_empty()) {
        let board = pos.board();
        let mut after = pos;
        after.place(p, color);
        for s in SquareSymmetry::all() {
            let mut image = pos.transform(s);
            image.place(board.transform(p, s), color);
            prop_assert_eq!(image, after.transform(s));
        }
        let mut swapped = pos.swap_colors();
        swapped.place(p, color.opposite());
        prop_assert_eq!(swapped, after.swap_colors());
    }

    /// Invariant 9 (and 1): a game of random placements lasts n² placements,
    /// every empty square being legal, with the stone counts of the text.
    #[test]
    fn game_length_and_counts(n in 2u8..=11, seed in any::<u64>(), swap in any::<bool>()) {
        let board = SquareBoard::new(n).unwrap();
        let mut game = KaomiGame::new(board, KaomiRuleset::STANDARD, HalfPoints(0));
        let mut x = seed | 1;
        let mut placements = 0;
        while !game.is_over() {
            let color = game.to_move();
            if swap && game.ply() == 1 {
                game.play(Move::Swap).unwrap();
                continue;
            }
            let moves = game.legal_moves(color);
            let empty = board.points().filter(|&q| game.stone_at(q).is_none()).count();
            prop_assert_eq!(moves.iter().filter(|m| matches!(m, Move::Place(_))).count(), empty);
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            let places: Vec<_> = moves.into_iter().filter(|m| matches!(m, Move::Place(_))).collect();
            game.play(places[(x % places.len() as u64) as usize]).unwrap();
            placements += 1;
        }
        let len = n as u32 * n as u32;
        prop_assert_eq!(placements, len);
        prop_assert_eq!(game.ply(), len + u32::from(swap));
        let (big, small) = (len.div_ceil(2), len / 2);
        let pos = game.position();
        let expected = if swap { (small, big) } else { (big, small) };
        prop_assert_eq!((pos.count(Color::Black), pos.count(Color::White)), expected);
        let last_black = game.last_placer() == Some(Color::Black);
        prop_assert_eq!(last_black, game.ply() % 2 == 1);
    }
}

/// An independent model of the placement on a plain array: each of the
/// four directions, taken in the order `order`, reads its chain on the
/// board as it was at the start of the turn (kaomi-rules.md, "Reading"),
/// the text's two return clauses drop chains, and the rest shift.
fn model(pos: &KaomiPosition, p: Point, color: Color, order: [usize; 4]) -> KaomiPosition {
    let board = pos.board();
    let n = board.size() as i32;
    let (px, py) = board.coords(p);
    let (px, py) = (px as i32, py as i32);
    let at = |x: i32, y: i32| board.point_at(x.rem_euclid(n), y.rem_euclid(n)).unwrap();
    let mut start = *pos;
    start.set(p, Some(color));
    // (dx, dy) per direction: east, west, south, north.
    let dirs = [(1, 0), (-1, 0), (0, 1), (0, -1)];
    // Per direction: the chain's squares and whether it wraps; `None` when
    // it lands on P (full line).
    let mut chains: [Option<(Vec<Point>, Point, bool)>; 4] = [None, None, None, None];
    let mut full = [false; 2];
    for &d in &order {
        let (dx, dy) = dirs[d];
        let (fx, fy) = (px + dx, py + dy);
        if fx < 0 || fy < 0 || fx >= n || fy >= n || start.get(at(fx, fy)).is_none() {
            continue;
        }
        let mut squares = Vec::new();
        let (mut x, mut y) = (fx, fy);
        let mut wraps = false;
        loop {
            let q = at(x, y);
            if q == p {
                full[d / 2] = true;
                break;
            }
            if start.get(q).is_none() {
                chains[d] = Some((squares, q, wraps));
                break;
            }
            squares.push(q);
            (x, y) = (x + dx, y + dy);
            if x < 0 || y < 0 || x >= n || y >= n {
                wraps = true;
            }
        }
    }
    let mut out = start;
    for line in 0..2 {
        if full[line] {
            continue;
        }
        let (a, b) = (&chains[2 * line], &chains[2 * line + 1]);
        let collide = matches!((a, b), (Some(x), Some(y)) if x.1 == y.1);
        for c in [a, b].into_iter().flatten() {
            if collide && c.2 {
                continue;
            }
            for q in &c.0 {
                out.set(*q, None);
            }
            let mut to = c.1;
            for q in c.0.iter().rev() {
                out.set(to, start.get(*q));
                to = *q;
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Invariant 7 (order independence) and the whole line rule: the
    /// placement equals the model with the four directions in any order.
    #[test]
    fn placement_matches_a_model_in_any_direction_order(
        (pos, p, color) in position_and_empty(),
        order in Just([0usize, 1, 2, 3]).prop_shuffle(),
    ) {
        let mut after = pos;
        after.place(p, color);
        let order = [order[0], order[1], order[2], order[3]];
        prop_assert_eq!(after, model(&pos, p, color, order));
    }
}

/// Invariant 7, order independence: the result equals the rows and
/// columns settled in either order (the line rule settles each line on its
/// own; this checks the implementation does not let one leak into the
/// other), checked through the transpose symmetry, which swaps them.
#[test]
fn row_and_column_order_does_not_matter() {
    let (pos, _) = KaomiPosition::parse_notation("1w1b/bw2/wb1w/b1wb").unwrap();
    let board = pos.board();
    let diag = SquareSymmetry::all()
        .find(|&s| {
            board.transform(Point(1), s) == Point(4) && board.transform(Point(0), s) == Point(0)
        })
        .unwrap();
    for p in board.points().filter(|&q| pos.get(q).is_none()) {
        let mut a = pos;
        a.place(p, Color::Black);
        let mut b = pos.transform(diag);
        b.place(board.transform(p, diag), Color::Black);
        assert_eq!(b.transform(diag.inverse()), a);
    }
}
