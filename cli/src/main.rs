//! The `keil` command-line tool: a thin dispatcher; the work is in the
//! libraries, each subcommand in its own module.
//!
//! Standard output may be a pipe that its reader closes early
//! (`keil stats | head -1`): commands write it with `outln!`, whose
//! error ends the command, and [`main`] treats a closed pipe as a clean
//! exit (`println!` would panic instead).

/// `println!` to standard output that returns the write's `io::Result`
/// instead of panicking: use as `outln!(...)?`.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

mod archive;
mod backup;
mod export;
mod game_line;
mod generate;
mod import;
mod options;
mod players;
mod refused;
mod search;
mod serve;
mod validate;

use std::io;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Keil game records: validate, import, search, serve.
#[derive(Parser, Debug)]
#[command(name = "keil", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
enum Command {
    /// Generate realistic Keil or Go games, deterministically from a seed.
    Generate(generate::Args),
    /// Validate records (Keil, Go): a verdict per game (complete, scored,
    /// resigned, time, forfeit, unfinished; invalid, malformed or
    /// unsupported and why). Exit 0 all valid, 1 some
    /// invalid, 2 usage or I/O error.
    Validate(validate::Args),
    /// Write records back in normalised form (canonical property order, one
    /// move per line).
    Export(export::Args),
    /// Import records into an archive: valid games are stored (duplicates
    /// skipped), invalid ones reported with their reasons.
    Import(import::Args),
    /// Search an archive: players, games, positions, text.
    Search(search::Args),
    /// Player identities: the aliases and names an operator keeps, and
    /// the pairs that may be one player.
    Players(players::Args),
    /// Check the kept refused records again (those valid now become
    /// games), then rebuild an archive's text and position indexes from
    /// its games.
    Reindex(archive::Args),
    /// Counts and sizes of an archive.
    Stats(archive::Args),
    /// The collections of an archive (`keil import --collection`), most
    /// games first: games, years, the ranks of their players.
    Collections(archive::Args),
    /// List the refused records an archive keeps (each as it came, with
    /// why it was refused): a table, or one JSON object per line.
    Refused(refused::Args),
    /// Remove games from an archive (a junk upload, a takedown request):
    /// they leave every view and index, the removal is logged with who
    /// asked and why, and their records are refused by later imports.
    Remove(archive::RemoveArgs),
    /// Serve an archive over HTTP (the REST API); an empty archive first
    /// gets the demo corpus.
    Serve(serve::Args),
    /// Copy an archive's store into a new archive directory, consistently,
    /// while servers and imports go on writing (SQLite's online copy; a
    /// PostgreSQL archive is answered with the pg_dump command that
    /// backs it up). The derived indexes are rebuilt by the copy's first
    /// read-write open (`keil serve --db DEST`).
    Backup(backup::BackupArgs),
    /// Check an archive's store: the engine's integrity check, the schema
    /// version, the kept counts against the rows, every game's record
    /// against its stored moves (replayed), the derived blocks. Exit 0
    /// sound, 1 with the problems listed.
    Verify(backup::VerifyArgs),
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Generate(args) => generate::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Export(args) => export::run(args),
        Command::Import(args) => import::run(args),
        Command::Search(args) => search::run(args),
        Command::Players(args) => players::run(args),
        Command::Reindex(args) => archive::reindex(args),
        Command::Stats(args) => archive::stats(args),
        Command::Collections(args) => archive::collections(args),
        Command::Refused(args) => refused::run(args),
        Command::Remove(args) => archive::remove(args),
        Command::Serve(args) => serve::run(args),
        Command::Backup(args) => backup::backup(args),
        Command::Verify(args) => backup::verify(args),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("keil: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Whether the error is a closed pipe (`keil generate | head`): a clean exit.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}
