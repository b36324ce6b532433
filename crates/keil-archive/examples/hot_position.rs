//! Repeats one position search (the empty side-7 board by default, which
//! every game reaches) to profile the long-posting-list path.
//!
//! ```text
//! cargo run --release -p keil-archive --example hot_position -- ARCHIVE_DIR [REPEATS] [NOTATION]
//! ```

use std::time::Instant;

use keil_archive::{Archive, PositionQuery};
use keil_rules::{Board, Position};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .ok_or("usage: hot_position ARCHIVE_DIR [REPEATS] [NOTATION]")?;
    let repeats: u32 = args.next().map_or(Ok(100), |s| s.parse())?;
    let position = match args.next() {
        Some(text) => Position::parse_notation(&text)?.0,
        None => Position::empty(Board::new(7).map_err(|_| "side 7 is a board")?),
    };
    let archive = Archive::open(&dir)?;
    let mut q = PositionQuery::new(position);
    let first = archive.positions().search(&q)?;
    println!(
        "{} games, {} continuations",
        first.total_games,
        first.continuations.len()
    );
    let t = Instant::now();
    for i in 0..repeats {
        q.symmetry = i % 2 == 1;
        std::hint::black_box(archive.positions().search(&q)?);
    }
    println!("{:?} per search", t.elapsed() / repeats);
    Ok(())
}
