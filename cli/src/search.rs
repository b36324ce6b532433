//! `keil search`: players, games, positions, patterns and text in an
//! archive. One module per search, each in the same steps: its arguments
//! read into the archive's query, the query run, the answer printed (for
//! people, or as JSON).

mod common;
mod lists;
mod pattern;
mod players;
mod position;

/// Search an archive.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub what: What,
}

/// What to search.
#[derive(clap::Subcommand, Debug)]
pub enum What {
    /// Players by name: case and accents ignored, prefixes and near
    /// misspellings found, with game counts.
    Players(players::PlayersArgs),
    /// Games with filters, sorted by date.
    Games(lists::GamesArgs),
    /// Games that reached a position, and what was played next.
    Position(position::PositionArgs),
    /// Games in which a pattern occurs (a region of the board with a value
    /// per point, wildcards allowed), wherever its mode places it, with
    /// the continuation table (Kombilo's) and the games at their first
    /// match.
    #[command(after_help = pattern::HELP)]
    Pattern(pattern::PatternArgs),
    /// Players, events, places, game names and comments (every word must
    /// occur, each in any field; `player:`, `event:`, `place:`, `name:`,
    /// `comment:` restrict to one field).
    Text(lists::TextArgs),
}

/// Runs `keil search`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.what {
        What::Players(args) => players::run(args),
        What::Games(args) => lists::games(args),
        What::Position(args) => position::run(args),
        What::Pattern(args) => pattern::run(args),
        What::Text(args) => lists::text(args),
    }
}
