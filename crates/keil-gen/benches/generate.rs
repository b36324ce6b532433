//! Generation throughput: games per second on one core, for several sides.
//!
//! `cargo bench -p keil-gen --bench generate`; the issue asks for at least
//! 1,000 side-7 games/s.

#![allow(missing_docs)] // criterion_group! defines an undocumented function

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use keil_gen::{Generator, GeneratorConfig};

fn generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate");
    group.sample_size(10);
    for (size, games) in [(5u8, 200u64), (7, 200), (9, 50)] {
        group.throughput(Throughput::Elements(games));
        group.bench_function(format!("side{size}x{games}"), |b| {
            b.iter(|| {
                let config = GeneratorConfig {
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
