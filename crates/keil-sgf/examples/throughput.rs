//! Measure parse throughput on the files given, concatenated.
//!
//! ```text
//! cargo run --release -p keil-sgf --example throughput -- [--rounds N] [--utf8] (FILE... | --list LIST)
//! ```
//!
//! Decodes each file, joins the texts, then parses the whole text N times
//! (default 10) and prints MB/s (10^6 bytes per second). Handy under
//! `valgrind --tool=callgrind` with `--rounds 1`. With `--utf8` the files are
//! read as UTF-8 text without decoding (e.g. a corpus already concatenated).
//! With `--list LIST` the files are those named in LIST, one path a line
//! (names may hold spaces).

use std::time::Instant;

use keil_sgf::{ParseOptions, decode, parse};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut rounds = 10;
    if args.first().is_some_and(|a| a == "--rounds") {
        rounds = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(rounds);
        args.drain(..2.min(args.len()));
    }
    let utf8 = args.first().is_some_and(|a| a == "--utf8");
    if utf8 {
        args.remove(0);
    }
    if args.first().is_some_and(|a| a == "--list") && args.len() > 1 {
        let list = std::fs::read_to_string(&args[1]).unwrap_or_default();
        args = list.lines().map(str::to_owned).collect();
    }
    let mut text = String::new();
    for path in &args {
        match std::fs::read(path) {
            Ok(bytes) if utf8 => text.push_str(&String::from_utf8_lossy(&bytes)),
            Ok(bytes) => {
                text.push_str(&decode(&bytes).text);
                text.push('\n');
            }
            Err(e) => eprintln!("{path}: {e}"),
        }
    }
    let options = ParseOptions::default();
    let start = Instant::now();
    let (mut trees, mut nodes) = (0, 0);
    for _ in 0..rounds {
        let collection = std::hint::black_box(parse(&text, &options));
        trees = collection.trees.len();
        nodes = collection.trees.iter().map(|t| t.len()).sum::<usize>();
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} bytes, {trees} trees, {nodes} nodes, {rounds} rounds: {:.1} MB/s",
        text.len(),
        (text.len() * rounds) as f64 / secs / 1e6
    );
}
