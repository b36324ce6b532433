//! `keil export`: every record of the given files (Keil and Go) written
//! back in normalised form (crate keil-record, `Record::to_sgf`): canonical
//! property order, `GM` always written, one node per line, nothing the
//! record said lost.
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
    #[arg(required = true, value_name = "FILE|-")]
    paths: Vec<PathBuf>,
    /// Write to this file instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Runs `keil export` and exits with its status (0, 1 or 2).
pub fn run(args: Args) -> anyhow::Result<()> {
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
