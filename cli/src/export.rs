//! `keil export`: every record of the given files (Keil and Go) written
//! back in normalised form (crate keil-record, `Record::to_sgf`): canonical
//! property order, `GM` always written, one node per line, nothing the
//! record said lost. With `--db`: every game of an archive that passes the
//! game list's filters, oldest first, streamed as one collection or a zip
//! of one file per game (`-o games.zip`, or `--format zip` to standard
//! output), in the memory of one game whatever the count; with `--db
//! --refused`, the refused records the archive keeps, as they came.
//!
//! Exit status: 0 when every game tree was exported, 1 when some game tree
//! is not a readable record (it is skipped, with a message on standard
//! error), 2 on a usage or I/O error.

use std::fs;
use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;

use anyhow::Context;
use keil_record::{NameHint, read_records_with};

/// Options of `keil export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Record files; `-` reads standard input.
    #[arg(
        required_unless_present = "db",
        conflicts_with = "db",
        value_name = "FILE|-"
    )]
    paths: Vec<PathBuf>,
    /// Write to this file instead of standard output (`.zip`: a zip of one
    /// file per game).
    #[arg(short, long, alias = "out")]
    output: Option<PathBuf>,
    /// Export the games of this archive that pass the filters below.
    #[arg(long)]
    db: Option<crate::archive::Db>,
    /// With --db: `sgf` (one collection) or `zip`; default by the output's
    /// extension, else sgf.
    #[arg(long, value_parser = ["sgf", "zip"])]
    format: Option<String>,
    /// With --db: the kept refused records instead of the games, each as
    /// it came, as one collection (to OUT, or to `-o`, or to standard
    /// output).
    #[arg(long, requires = "db", num_args = 0..=1, value_name = "OUT")]
    refused: Option<Option<PathBuf>>,
    /// With --db: the game list's filters.
    #[command(flatten)]
    filter: crate::options::FilterArgs,
}

/// `keil export --db DB --refused [OUT]`: the kept refused records as they
/// came, one collection (each game tree on its own lines).
fn export_refused(db: &crate::archive::Db, output: Option<&PathBuf>) -> anyhow::Result<()> {
    let archive = crate::archive::open_for_reading(db)?;
    let mut out: Box<dyn Write> = match output {
        None => Box::new(BufWriter::new(io::stdout().lock())),
        Some(p) => Box::new(BufWriter::new(
            fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
    };
    let mut written: io::Result<()> = Ok(());
    let n = archive.export_refused(&mut |_, text| {
        written = out
            .write_all(text.as_bytes())
            .and_then(|()| out.write_all(b"\n"));
        Ok(written.is_ok())
    })?;
    match written.and_then(|()| out.flush()) {
        // A reader that closed the pipe (`| head`) ends the export quietly.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
        r => r?,
    }
    if let Some(p) = output {
        eprintln!("keil: {n} refused records exported to {}", p.display());
    }
    Ok(())
}

/// `keil export --db`: the archive's games that pass the filters, streamed.
fn export_archive(db: &crate::archive::Db, args: Args) -> anyhow::Result<()> {
    use keil_container::{Bundle, BundleFormat};
    let archive = crate::archive::open_for_reading(db)?;
    let format = match args.format.as_deref() {
        Some("zip") => BundleFormat::Zip,
        Some(_) => BundleFormat::Sgf,
        None => args
            .output
            .as_deref()
            .map_or(BundleFormat::Sgf, BundleFormat::of_path),
    };
    let out: Box<dyn Write> = match &args.output {
        None => Box::new(BufWriter::new(io::stdout().lock())),
        Some(p) => Box::new(BufWriter::new(
            fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
    };
    let filter = args.filter.filter()?;
    let mut bundle = Bundle::new(format, out);
    let (n, written) = archive.games().export_into(&filter, &mut bundle)?;
    match written {
        // A reader that closed the pipe (`| head`) ends the export quietly.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
        Err(e) => return Err(e.into()),
        Ok(()) => {}
    }
    match bundle.finish() {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
        r => drop(r?),
    }
    if let Some(p) = &args.output {
        eprintln!("keil: {n} games exported to {}", p.display());
    }
    Ok(())
}

/// Runs `keil export` and exits with its status (0, 1 or 2).
pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(db) = args.db.clone() {
        if let Some(out) = &args.refused {
            return export_refused(&db, out.as_ref().or(args.output.as_ref()));
        }
        return export_archive(&db, args);
    }
    let mut out: Box<dyn Write> = match &args.output {
        None => Box::new(BufWriter::new(io::stdout().lock())),
        Some(p) => Box::new(BufWriter::new(
            fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
    };
    let mut failed = false;
    for path in &args.paths {
        let name = path.display().to_string();
        let bytes = if name == "-" {
            let mut buf = Vec::new();
            io::stdin().lock().read_to_end(&mut buf)?;
            buf
        } else {
            match fs::read(path) {
                Ok(b) => b,
                Err(e) => {
                    out.flush()?;
                    eprintln!("keil: cannot read {name}: {e}");
                    std::process::exit(2);
                }
            }
        };
        let hint = if name == "-" {
            NameHint::None
        } else {
            NameHint::of(path)
        };
        for record in read_records_with(&bytes, hint) {
            match record {
                Ok(r) => out.write_all(r.to_sgf().as_bytes())?,
                Err(e) => {
                    failed = true;
                    eprintln!(
                        "keil: {name}:{}:{}: game {} not exported: {}",
                        e.line, e.column, e.game, e.kind
                    );
                }
            }
        }
    }
    out.flush()?;
    drop(out);
    if failed {
        std::process::exit(1);
    }
    Ok(())
}
