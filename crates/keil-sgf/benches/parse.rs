//! Parse throughput (MB/s) of keil-sgf against the `sgf-parse` crate on the
//! same text: the real corpus (`shared/data/sgf-real`, concatenated) and a
//! synthetic collection of Keil games.
//!
//! ```text
//! CARGO_TARGET_DIR=/work/target-sgf cargo bench -p keil-sgf --bench parse
//! ```
//!
//! With `KEIL_SGF_BENCH_DUMP=DIR` the inputs are also written to
//! `DIR/real-corpus.sgf` and `DIR/keil-collection.sgf`.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_main};
use keil_sgf::{ParseOptions, decode, parse};

fn shared_dir() -> PathBuf {
    std::env::var_os("KEIL_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"))
}

/// The real corpus decoded and concatenated, keeping only the files that
/// both parsers read without error (so both do the same work).
fn real_corpus() -> Option<String> {
    let root = shared_dir().join("data/sgf-real");
    let manifest = std::fs::read_to_string(root.join("MANIFEST.tsv")).ok()?;
    let mut text = String::new();
    let (mut kept, mut dropped) = (0, 0);
    for path in manifest
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
    {
        if !path.to_ascii_lowercase().ends_with(".sgf") {
            continue;
        }
        let Ok(bytes) = std::fs::read(root.join(path)) else {
            continue;
        };
        let decoded = decode(&bytes);
        let ours = parse(&decoded.text, &ParseOptions::default());
        if ours.has_errors() || sgf_parse::parse(&decoded.text).is_err() {
            dropped += 1;
            continue;
        }
        kept += 1;
        text.push_str(&decoded.text);
        text.push('\n');
    }
    eprintln!(
        "real corpus: {kept} files kept, {dropped} dropped, {} bytes",
        text.len()
    );
    Some(text)
}

/// A tiny deterministic generator (xorshift), so the bench needs no crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A point on the side-7 board: column letter a..m, row 1..13 on the hexagon.
fn point(rng: &mut Rng) -> String {
    let c = rng.below(13) as u8;
    let (lo, hi) = if c <= 6 { (1, 7 + c) } else { (c - 5, 13) };
    let r = lo + rng.below(u64::from(hi - lo + 1)) as u8;
    format!("{}{}", (b'a' + c) as char, r)
}

/// `games` Keil-like games of about 80 nodes each.
fn keil_collection(games: usize) -> String {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let players = [
        "Ann Lee",
        "Bo Chen",
        "Cora Diaz",
        "Dev Patel",
        "Eun-ji Park",
    ];
    let mut out = String::new();
    for g in 0..games {
        let pb = players[rng.below(5) as usize];
        let pw = players[rng.below(5) as usize];
        let km = rng.below(8);
        out.push_str(&format!(
            "(;GM[Keil]FF[4]SZ[7]RU[Keil; linking=unopposed]KM[{km}.5]\nPB[{pb}]PW[{pw}]DT[20{:02}-{:02}-{:02}]EV[Club league {}]\nRE[{}+{}.5]C[Game {g}: a friendly game\\] with comments.]\n",
            10 + rng.below(15),
            1 + rng.below(12),
            1 + rng.below(28),
            rng.below(40),
            if rng.below(2) == 0 { "B" } else { "W" },
            rng.below(30),
        ));
        let moves = 70 + rng.below(20) as usize;
        for m in 0..moves {
            let colour = if m % 2 == 0 { 'B' } else { 'W' };
            let value = match (m, rng.below(40)) {
                (20..=40, 0) => "button".to_owned(),
                (_, 1) if m > 60 => "pass".to_owned(),
                _ => point(&mut rng),
            };
            out.push_str(&format!(";{colour}[{value}]"));
            if m % 10 == 9 {
                out.push('\n');
            }
        }
        out.push_str(";B[pass];W[pass])\n");
    }
    out
}

fn bench(c: &mut Criterion) {
    let keil = keil_collection(10_000);
    let mut inputs = vec![("keil-collection", keil)];
    match real_corpus() {
        Some(text) => inputs.insert(0, ("real-corpus", text)),
        None => eprintln!("note: shared/data/sgf-real not found; real-corpus bench skipped"),
    }
    let ours = ParseOptions::default();
    let theirs = sgf_parse::ParseOptions {
        lenient: true,
        ..sgf_parse::ParseOptions::default()
    };
    if let Some(dir) = std::env::var_os("KEIL_SGF_BENCH_DUMP") {
        // The exact inputs, for `examples/throughput.rs --utf8` under callgrind.
        for (name, text) in &inputs {
            let path = Path::new(&dir).join(format!("{name}.sgf"));
            if let Err(e) = std::fs::write(&path, text) {
                eprintln!("{}: {e}", path.display());
            }
        }
    }
    for (name, text) in &inputs {
        // Both parsers must read the whole input.
        let our_trees = parse(text, &ours).trees.len();
        let their_trees = sgf_parse::parse_with_options(text, &theirs)
            .map(|t| t.len())
            .unwrap_or(0);
        eprintln!(
            "{name}: {} bytes, keil-sgf {our_trees} trees, sgf-parse {their_trees} trees",
            text.len()
        );
        let mut group = c.benchmark_group(*name);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(20);
        group.bench_function("keil-sgf", |b| {
            b.iter(|| parse(black_box(text), &ours));
        });
        group.bench_function("sgf-parse", |b| {
            b.iter(|| sgf_parse::parse_with_options(black_box(text), &theirs));
        });
        group.finish();
    }
}

mod harness {
    #![allow(missing_docs)]
    criterion::criterion_group!(benches, super::bench);
}
criterion_main!(harness::benches);
