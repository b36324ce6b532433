//! Generation throughput: games per second on one core, for several Keil
//! sides and Go sizes.
//!
//! `cargo bench -p keil-gen --bench generate`; the issue asks for at least
//! 1,000 side-7 games/s.

#![allow(missing_docs)] // criterion_group! defines an undocumented function

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use keil_gen::{Generator, GeneratorConfig};
use keil_rules::GameKind;

fn generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate");
    group.sample_size(10);
    let cases = [
        (GameKind::Keil, 5u8, 200u64),
        (GameKind::Keil, 7, 200),
        (GameKind::Keil, 9, 50),
        (GameKind::Go, 9, 200),
        (GameKind::Go, 19, 50),
    ];
    for (game, size, games) in cases {
        group.throughput(Throughput::Elements(games));
        let name = match game {
            GameKind::Keil => format!("side{size}x{games}"),
            _ => format!("{game}{size}x{games}"),
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                let config = GeneratorConfig {
                    game,
                    games,
                    size,
                    seed: 1,
                    ..GeneratorConfig::default()
                };
                Generator::new(config)
                    .unwrap()
                    .map(|g| g.record.len())
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, generate);
criterion_main!(benches);
