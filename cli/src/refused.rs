//! `keil refused`: the refused records an archive keeps, each with where it
//! came from and why it was refused; a table, or one JSON object per line
//! (`--json`). Keyset pages: `--after` the last id of a page.

use keil_archive::{GameKind, ImportId, RefusedFilter, RefusedId, RefusedOrder};

/// Options of `keil refused`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The archive: a directory, or a PostgreSQL URL.
    #[arg(long)]
    pub db: crate::archive::Db,
    /// Only records refused for this reason code (`repetition`,
    /// `occupied`, `suicide`, `wrong_player`, `board_size`, ...).
    #[arg(long)]
    pub reason: Option<String>,
    /// Only records of this game: keil, go or kaomi.
    #[arg(long)]
    pub kind: Option<GameKind>,
    /// Only records of this board size (`SZ`).
    #[arg(long)]
    pub size: Option<u32>,
    /// Only records of this import (its id in the import log).
    #[arg(long)]
    pub import: Option<ImportId>,
    /// At most this many records (1 to 1,000).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub limit: u64,
    /// The page after this id (the last id of the previous page).
    #[arg(long)]
    pub after: Option<RefusedId>,
    /// Ascending ids instead of the latest first.
    #[arg(long)]
    pub oldest: bool,
    /// One JSON object per line.
    #[arg(long)]
    pub json: bool,
}

/// Lists the kept refused records.
pub fn run(args: Args) -> anyhow::Result<()> {
    let archive = crate::archive::open_for_reading(&args.db)?;
    let filter = RefusedFilter {
        import: args.import,
        reason: args.reason.clone(),
        kind: args.kind,
        size: args.size,
        order: if args.oldest {
            RefusedOrder::Id
        } else {
            RefusedOrder::Newest
        },
        after: args.after,
    };
    let page = archive.refused_list(&filter, args.limit as usize)?;
    if args.json {
        for r in &page.items {
            outln!("{}", serde_json::to_string(r)?)?;
        }
        return Ok(());
    }
    outln!(
        "{:>6}  {:>6}  {:<14} {:>4}  {:<8} {:<9} {}",
        "id",
        "import",
        "reason",
        "ply",
        "move",
        "board",
        "source"
    )?;
    for r in &page.items {
        let board = match (&r.kind, r.size) {
            (Some(k), Some(n)) => format!("{k} {n}"),
            (Some(k), None) => k.clone(),
            _ => "?".into(),
        };
        outln!(
            "{:>6}  {:>6}  {:<14} {:>4}  {:<8} {:<9} {} #{}  {}",
            r.id,
            r.import_id,
            r.reason,
            r.ply.map_or_else(|| "-".into(), |p| p.to_string()),
            r.mv.as_deref().unwrap_or("-"),
            board,
            r.source,
            r.index,
            r.message
        )?;
    }
    if let Some(next) = page.next {
        outln!("more: --after {next}")?;
    }
    Ok(())
}
