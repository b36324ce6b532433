//! The library path of `keil validate`: bytes → records → verdicts, on a
//! generated side-7 collection (keil-gen, fixed seed) and on the keil-vectors
//! (all sides 2..=7, many invalid games).
//!
//! `cargo bench -p keil-record --bench validate`; throughput is in games
//! (elements). Budget: 10,000 games/s on 2 cores, i.e. ≤ 200 µs per game per
//! core including parsing.

#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use keil_gen::GeneratorConfig;
use keil_record::{ParsedFile, read_records, validate};

fn generated(games: u64) -> Vec<u8> {
    let mut out = Vec::new();
    keil_gen::write_collection(
        GeneratorConfig {
            games,
            size: 7,
            seed: 1,
            ..GeneratorConfig::default()
        },
        &mut out,
    )
    .expect("writing to memory");
    out
}

fn vectors() -> Option<Vec<u8>> {
    let dir = std::env::var_os("KEIL_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"))
        .join("data/keil-vectors");
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    let mut all = Vec::new();
    for p in entries
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "keil"))
    {
        all.extend(std::fs::read(p).ok()?);
        all.push(b'\n');
    }
    Some(all)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("validate");
    let side7 = generated(1_000);
    let n = read_records(&side7).len() as u64;
    g.throughput(Throughput::Elements(n));
    g.bench_function("side7_1000_games/read_and_validate", |b| {
        b.iter(|| {
            let mut plies = 0;
            for r in read_records(black_box(&side7)) {
                plies += validate(&r.unwrap()).replay.map_or(0, |r| r.plies.len());
            }
            plies
        })
    });
    g.bench_function("side7_1000_games/parse_only", |b| {
        b.iter(|| {
            let decoded = keil_sgf::decode(black_box(&side7));
            ParsedFile::new(&decoded).len()
        })
    });
    g.bench_function("side7_1000_games/records_only", |b| {
        b.iter(|| read_records(black_box(&side7)).len())
    });
    let records: Vec<_> = read_records(&side7)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    g.bench_function("side7_1000_games/validate_only", |b| {
        b.iter(|| {
            records
                .iter()
                .map(|r| validate(r).replay.map_or(0, |r| r.plies.len()))
                .sum::<usize>()
        })
    });
    if let Some(v) = vectors() {
        let n = read_records(&v).len() as u64;
        g.throughput(Throughput::Elements(n));
        g.bench_function("keil_vectors/read_and_validate", |b| {
            b.iter(|| {
                read_records(black_box(&v))
                    .into_iter()
                    .filter_map(Result::ok)
                    .map(|r| validate(&r).verdict.plies)
                    .sum::<u32>()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
