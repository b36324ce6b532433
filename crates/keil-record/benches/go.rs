//! Go records end to end, on the 4,803 real 19×19 games of
//! `../shared/data/sgf-real/yenw__computer-go-dataset` (skipped when the
//! shared folder is absent): bytes → decoded text → SGF trees → records →
//! verdicts, one core.
//!
//! `cargo bench -p keil-record --bench go`; throughput is in plies (move
//! nodes of the main lines). The floor is 2 M plies/s on one core.
//!
//! - `go_real/verdicts`: what `keil validate` does per file (decode, parse,
//!   read each tree, replay main line and variations; no `Replay` plies).
//! - `go_real/validations`: what `keil import` does (records owning their
//!   trees, `validate` with the main line's `Replay`: keys, captures).
//! - `go_real/replay_only`: `validate` on records read beforehand.

#![allow(missing_docs)] // criterion_group! generates an undocumented function

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use keil_record::{ParsedFile, Record, read_records, validate};

/// The bytes of every file of the corpus, in path order; `None` when absent.
fn corpus() -> Option<Vec<Vec<u8>>> {
    let set = "sgf-real/yenw__computer-go-dataset";
    let dir = common::shared(set)?.join("data").join(set);
    let paths = common::files(&dir, &["sgf"]);
    Some(paths.iter().map(|p| std::fs::read(p).unwrap()).collect())
}

/// `keil validate`'s path for one file: the main-line plies of its verdicts.
fn verdict_plies(bytes: &[u8]) -> u64 {
    let decoded = keil_sgf::decode(bytes);
    let file = ParsedFile::new(&decoded);
    (0..file.len())
        .filter_map(|i| file.verdict(i).ok())
        .map(|v| u64::from(v.plies))
        .sum()
}

fn bench(c: &mut Criterion) {
    let Some(corpus) = corpus() else {
        eprintln!("note: ../shared is absent; skipping the Go benchmark");
        return;
    };
    let plies: u64 = corpus.iter().map(|b| verdict_plies(b)).sum();
    eprintln!("go_real: {} files, {plies} plies", corpus.len());
    let mut g = c.benchmark_group("go_real");
    g.sample_size(10);
    g.throughput(Throughput::Elements(plies));
    g.bench_function("verdicts", |b| {
        b.iter(|| {
            corpus
                .iter()
                .map(|f| verdict_plies(black_box(f)))
                .sum::<u64>()
        })
    });
    g.bench_function("validations", |b| {
        b.iter(|| {
            corpus
                .iter()
                .flat_map(|f| read_records(black_box(f)))
                .filter_map(Result::ok)
                .map(|r| validate(&r).replay.map_or(0, |r| r.plies.len()))
                .sum::<usize>()
        })
    });
    let records: Vec<Record> = corpus
        .iter()
        .flat_map(|f| read_records(f))
        .filter_map(Result::ok)
        .collect();
    g.bench_function("replay_only", |b| {
        b.iter(|| {
            records
                .iter()
                .map(|r| validate(black_box(r)).verdict.plies)
                .sum::<u32>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
