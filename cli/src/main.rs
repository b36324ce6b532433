//! The `keil` command-line tool.

use clap::Parser;

/// Keil game records: validate, import, search, serve.
#[derive(Parser, Debug)]
#[command(name = "keil", version, about)]
struct Cli {}

fn main() -> anyhow::Result<()> {
    let _cli = Cli::parse();
    Ok(())
}
