//! Speed of the Kaomi rules (kaomi-rules.md): one placement with its
//! pushes, and whole games replayed move by move as the record layer does.
//!
//! `cargo bench -p keil-rules --bench kaomi`
//!
//! - `place/9x9`: `KaomiPosition::place` alone (the line rule on the row
//!   and the column) on positions of random 9×9 games, at every ply;
//!   throughput in placements. The budget is well under 1 µs.
//! - `replay/kaomi7`, `replay/kaomi9`: `KaomiGame::play_as` over random
//!   games (placement, keys of the 8 symmetries updated stone by stone,
//!   canonical key, outcome), throughput in plies.
//! - `result/kaomi9`: groups, pair removal and result of full boards.

mod common;

use criterion::{Criterion, Throughput, criterion_main};
use keil_rules::{
    Color, HalfPoints, KaomiGame, KaomiPosition, KaomiRuleset, Move, Point, SquareBoard,
};
use std::hint::black_box;

/// Random games to the full board: a uniformly random empty square each
/// turn (xorshift, fixed seed).
fn games(size: u8, count: usize, seed: u64) -> Vec<Vec<Move>> {
    let board = SquareBoard::new(size).unwrap();
    let mut next = common::xorshift(seed);
    (0..count)
        .map(|_| {
            let mut game = KaomiGame::new(board, KaomiRuleset::STANDARD, HalfPoints(0));
            let mut moves = Vec::new();
            while !game.is_over() {
                let empty: Vec<Point> = board
                    .points()
                    .filter(|&p| game.stone_at(p).is_none())
                    .collect();
                let mv = Move::Place(empty[(next() % empty.len() as u64) as usize]);
                game.play(mv).unwrap();
                moves.push(mv);
            }
            moves
        })
        .collect()
}

fn kaomi(c: &mut Criterion) {
    let set9 = games(9, 100, 42);
    let set7 = games(7, 200, 7);
    // Every position of the 9×9 games with the move played on it.
    let board9 = SquareBoard::new(9).unwrap();
    let mut cases: Vec<(KaomiPosition, Point, Color)> = Vec::new();
    for moves in &set9 {
        let mut game = KaomiGame::new(board9, KaomiRuleset::STANDARD, HalfPoints(0));
        for &mv in moves {
            let Move::Place(p) = mv else { unreachable!() };
            cases.push((game.position(), p, game.to_move()));
            game.play(mv).unwrap();
        }
    }
    let mut group = c.benchmark_group("place");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("9x9", |b| {
        b.iter(|| {
            let mut moved = 0;
            for (pos, p, color) in &cases {
                let mut pos = *pos;
                moved += pos.place(*p, *color).len();
                black_box(&pos);
            }
            moved
        })
    });
    group.finish();

    let mut group = c.benchmark_group("replay");
    let run = |size: u8, set: &[Vec<Move>]| {
        let board = SquareBoard::new(size).unwrap();
        let mut moved = 0;
        for moves in set {
            let mut game = KaomiGame::new(board, KaomiRuleset::STANDARD, HalfPoints(0));
            for &mv in moves {
                let out = game.play(mv).unwrap();
                moved += out.moved.len();
                black_box(out.canonical_sym);
            }
        }
        moved
    };
    for (name, size, set) in [("kaomi7", 7, &set7), ("kaomi9", 9, &set9)] {
        let plies: usize = set.iter().map(Vec::len).sum();
        group.throughput(Throughput::Elements(plies as u64));
        group.bench_function(name, |b| b.iter(|| run(size, set)));
    }
    group.finish();

    let finals: Vec<KaomiGame> = set9
        .iter()
        .take(20)
        .map(|moves| {
            let mut g = KaomiGame::new(board9, KaomiRuleset::STANDARD, HalfPoints(0));
            for &m in moves {
                g.play(m).unwrap();
            }
            g
        })
        .collect();
    c.bench_function("result/kaomi9", |b| {
        b.iter(|| {
            finals
                .iter()
                .map(|g| g.result().unwrap().margin.0)
                .sum::<i32>()
        })
    });
}

#[allow(missing_docs)]
mod groups {
    criterion::criterion_group!(benches, super::kaomi);
}
use groups::benches;
criterion_main!(benches);
