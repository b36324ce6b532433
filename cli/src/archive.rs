//! `keil reindex` and `keil stats`: maintenance of an archive.

use std::path::PathBuf;

use anyhow::Context;
use keil_archive::Archive;

/// Options of `keil reindex` and `keil stats`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The archive directory.
    #[arg(long)]
    pub db: PathBuf,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

fn open(db: &PathBuf) -> anyhow::Result<Archive> {
    Archive::open(db).with_context(|| format!("opening archive {}", db.display()))
}

/// Rebuilds the derived indexes from SQLite.
pub fn reindex(args: Args) -> anyhow::Result<()> {
    let archive = open(&args.db)?;
    let start = std::time::Instant::now();
    let report = archive.reindex()?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "reindexed {} games in {:.2} s",
            report.games,
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// Prints counts and sizes.
pub fn stats(args: Args) -> anyhow::Result<()> {
    let archive = open(&args.db)?;
    let s = archive.stats()?;
    if args.json {
        let mut v = serde_json::to_value(&s)?;
        v["bytes_per_game"] = s.bytes_per_game().into();
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!("games       {}", s.games);
    for (status, n) in &s.by_status {
        println!("  {status:<11} {n}");
    }
    for (kind, n) in &s.by_kind {
        println!("  {kind:<11} {n}");
    }
    for (kind, size, n) in &s.by_board {
        println!("  {:<11} {n}", format!("{kind} {size}"));
    }
    println!("players     {}", s.players);
    println!("imports     {} ({} games refused)", s.imports, s.refused);
    println!("text index  {} games", s.text_documents);
    println!(
        "on disk     {} bytes SQLite + {} bytes tantivy = {} bytes per game",
        s.sqlite_bytes,
        s.tantivy_bytes,
        s.bytes_per_game()
    );
    Ok(())
}
