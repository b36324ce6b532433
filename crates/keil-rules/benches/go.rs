//! Replay speed of the Go rules: random legal playouts replayed move by
//! move, as the record layer does (`GoGame::play_as` and its outcome: key,
//! canonical key, captures).
//!
//! `cargo bench -p keil-rules --bench go`
//!
//! - `replay/go19/<ruleset>`: the same 19×19 games under japanese (simple
//!   ko), chinese (positional superko), aga (situational superko) and kee.
//!   Throughput is in plies; the floor is 2 M plies/s on one core.
//! - `replay/go9/japanese`: small boards.
//! - `score/go19`: the area score of the final positions.

mod common;

use criterion::{Criterion, Throughput, criterion_main};
use keil_rules::{Color, GoGame, GoRuleset, HalfPoints, Move, Point, SquareBoard};
use std::hint::black_box;

/// Deterministic random playouts: a uniformly random empty point that is
/// legal and does not fill a single-point eye of the mover; a pass when
/// there is none; two passes end the game. Generated under chinese rules
/// (positional superko), so every game is legal under every ruleset as long
/// as nobody passes before the end.
fn games(size: u8, count: usize, seed: u64) -> Vec<Vec<Move>> {
    let board = SquareBoard::new(size).unwrap();
    let mut next = common::xorshift(seed);
    (0..count)
        .map(|_| {
            let mut game = GoGame::new(board, GoRuleset::Chinese, HalfPoints(13));
            let mut moves = Vec::new();
            let mut color = Color::Black;
            while game.consecutive_passes() < 2 && moves.len() < 1000 {
                let position = game.position();
                let mut candidates: Vec<Point> = board
                    .points()
                    .filter(|&p| position.get(p).is_none())
                    .collect();
                let mut mv = Move::Pass;
                while !candidates.is_empty() {
                    let i = (next() % candidates.len() as u64) as usize;
                    let p = candidates.swap_remove(i);
                    let eye = board.neighbours(p).all(|q| position.get(q) == Some(color));
                    if !eye && game.is_legal(color, Move::Place(p)) {
                        mv = Move::Place(p);
                        break;
                    }
                }
                game.play_as(color, mv).unwrap();
                moves.push(mv);
                color = color.opposite();
            }
            moves
        })
        .collect()
}

fn replay(c: &mut Criterion) {
    let mut group = c.benchmark_group("replay");
    let set19 = games(19, 40, 42);
    let set9 = games(9, 200, 7);
    let run = |size: u8, rules: GoRuleset, set: &[Vec<Move>]| {
        let board = SquareBoard::new(size).unwrap();
        let mut captured = 0;
        for moves in set {
            let mut game = GoGame::new(board, rules, HalfPoints(13));
            let mut color = Color::Black;
            for &mv in moves {
                let out = game.play_as(color, mv).unwrap();
                captured += out.captured.len();
                black_box(out.canonical_sym);
                color = color.opposite();
            }
        }
        captured
    };
    let plies19: usize = set19.iter().map(Vec::len).sum();
    group.throughput(Throughput::Elements(plies19 as u64));
    for rules in [
        GoRuleset::Japanese,
        GoRuleset::Chinese,
        GoRuleset::Aga,
        GoRuleset::Kee,
    ] {
        group.bench_function(format!("go19/{rules}"), |b| {
            b.iter(|| run(19, rules, &set19))
        });
    }
    let plies9: usize = set9.iter().map(Vec::len).sum();
    group.throughput(Throughput::Elements(plies9 as u64));
    group.bench_function("go9/japanese", |b| {
        b.iter(|| run(9, GoRuleset::Japanese, &set9))
    });
    group.finish();

    let board = SquareBoard::new(19).unwrap();
    let finals: Vec<GoGame> = set19
        .iter()
        .take(10)
        .map(|moves| {
            let mut g = GoGame::new(board, GoRuleset::Chinese, HalfPoints(13));
            let mut color = Color::Black;
            for &m in moves {
                g.play_as(color, m).unwrap();
                color = color.opposite();
            }
            g
        })
        .collect();
    c.bench_function("score/go19", |b| {
        b.iter(|| finals.iter().map(|g| g.score().black.0).sum::<i32>())
    });
}

#[allow(missing_docs)]
mod groups {
    criterion::criterion_group!(benches, super::replay);
}
use groups::benches;
criterion_main!(benches);
