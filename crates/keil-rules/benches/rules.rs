//! Replay speed of the rules engine, and the bitset-width measurement.
//!
//! `cargo bench -p keil-rules --bench rules`
//!
//! - `replay/side7/u128` vs `replay/side7/wide`: the same 200 side-7 games
//!   replayed on the narrow (one `u128` per colour) and the wide (8 × `u64`)
//!   engine; the figure behind the choice of `u128` for side ≤ 7.
//! - `replay/side13`: the largest board.
//! - `score/side7`, `legal_moves/side7`: end-of-game scoring and move
//!   generation.

mod common;

use criterion::{Criterion, Throughput, criterion_main};
use keil_rules::{Board, Game, Move, Ruleset};
use std::hint::black_box;

/// Deterministic random games: placements chosen uniformly among legal ones,
/// the button taken around ply 20, then passes when the board is full.
fn games(side: u8, count: usize, seed: u64) -> Vec<Vec<Move>> {
    let board = Board::new(side).unwrap();
    let mut next = common::xorshift(seed);
    (0..count)
        .map(|_| {
            let mut game = Game::new(board, Ruleset::keil());
            let mut moves = Vec::new();
            while !game.is_over() && moves.len() < board.len() {
                let legal = game.legal_moves();
                let places: Vec<_> = legal
                    .iter()
                    .filter(|m| matches!(m, Move::Place(_)))
                    .collect();
                let mv = if moves.len() == 20 && legal.contains(&Move::TakeButton) {
                    Move::TakeButton
                } else if places.is_empty() || next().is_multiple_of(40) {
                    *legal.iter().find(|m| !matches!(m, Move::Place(_))).unwrap()
                } else {
                    *places[(next() % places.len() as u64) as usize]
                };
                game.play(mv).unwrap();
                moves.push(mv);
            }
            moves
        })
        .collect()
}

fn replay(c: &mut Criterion) {
    let mut group = c.benchmark_group("replay");
    for side in [7u8, 13] {
        let board = Board::new(side).unwrap();
        let set = games(side, if side == 7 { 200 } else { 40 }, 42);
        let plies: usize = set.iter().map(Vec::len).sum();
        group.throughput(Throughput::Elements(plies as u64));
        let run = |new: fn(&'static Board, Ruleset) -> Game| {
            let mut captured = 0;
            for moves in &set {
                let mut game = new(board, Ruleset::keil());
                for &mv in moves {
                    captured += game.play(mv).unwrap().captured.len();
                }
                black_box(game.score());
            }
            captured
        };
        if side == 7 {
            group.bench_function("side7/u128", |b| b.iter(|| run(Game::new)));
            group.bench_function("side7/wide", |b| b.iter(|| run(Game::new_wide)));
        } else {
            group.bench_function("side13", |b| b.iter(|| run(Game::new)));
        }
    }
    group.finish();

    let board = Board::new(7).unwrap();
    let set = games(7, 20, 7);
    let finals: Vec<Game> = set
        .iter()
        .map(|moves| {
            let mut g = Game::new(board, Ruleset::keil());
            moves.iter().for_each(|&m| {
                g.play(m).unwrap();
            });
            g
        })
        .collect();
    c.bench_function("score/side7", |b| {
        b.iter(|| finals.iter().map(|g| g.score().black.0).sum::<i32>())
    });
    let mid: Vec<Game> = set
        .iter()
        .map(|moves| {
            let mut g = Game::new(board, Ruleset::keil());
            moves.iter().take(40).for_each(|&m| {
                g.play(m).unwrap();
            });
            g
        })
        .collect();
    c.bench_function("legal_moves/side7", |b| {
        b.iter(|| mid.iter().map(|g| g.legal_moves().len()).sum::<usize>())
    });
}

#[allow(missing_docs)]
mod groups {
    criterion::criterion_group!(benches, super::replay);
}
use groups::benches;
criterion_main!(benches);
