//! The clap arguments that become the archive's query options: the game
//! filters ([`FilterArgs`], of `keil search` and `keil export --db`) and
//! the explorer's options ([`ExploreArgs`], of the position and pattern
//! searches). The one place the command lists their fields: each is read
//! into the archive's type here, and nowhere else.

use anyhow::Context;
use chrono::NaiveDate;
use keil_archive::{ExploreOptions, GameFilter, GameKind, GameStatus, PositionQuery};
use keil_rules::{Color, KaomiVariant};

/// The game filters.
#[derive(clap::Args, Debug)]
pub struct FilterArgs {
    /// A player (case and accents ignored).
    #[arg(long)]
    pub player: Option<String>,
    /// The colour of --player: black or white.
    #[arg(long, value_parser = parse_color)]
    pub color: Option<Color>,
    /// The opponent of --player.
    #[arg(long)]
    pub opponent: Option<String>,
    /// The event (case ignored).
    #[arg(long)]
    pub event: Option<String>,
    /// On or after this date (YYYY-MM-DD).
    #[arg(long)]
    pub from: Option<NaiveDate>,
    /// On or before this date (YYYY-MM-DD).
    #[arg(long)]
    pub to: Option<NaiveDate>,
    /// The result, in any form go-rules.md reads (B+R or B+Resign, W+3.5,
    /// 0 or Draw or Jigo, Void, ?; any case), matched as the archive
    /// normalises it.
    #[arg(long, value_parser = parse_result)]
    pub result: Option<String>,
    /// The winner: black or white.
    #[arg(long, value_parser = parse_color)]
    pub winner: Option<Color>,
    /// The game: keil, go or kaomi.
    #[arg(long)]
    pub kind: Option<GameKind>,
    /// Kaomi: the variant, standard or squared.
    #[arg(long)]
    pub variant: Option<KaomiVariant>,
    /// The board size (the hexagon's side for Keil, the square's for Go).
    #[arg(long)]
    pub size: Option<u8>,
    /// The ruleset, e.g. "Keil; button=off".
    #[arg(long)]
    pub ruleset: Option<String>,
    /// complete, scored (Go: the result checked against the area score),
    /// resigned, time, forfeit or unfinished.
    #[arg(long)]
    pub status: Option<GameStatus>,
    /// Both players at least this rank: 30k..1k, 1d..9d, 1p..9p (ranks as
    /// records write them, 9段 or P9, are read so).
    #[arg(long)]
    pub min_rank: Option<keil_record::Rank>,
    /// Both players at most this rank.
    #[arg(long)]
    pub max_rank: Option<keil_record::Rank>,
    /// Go's handicap exactly (0 for even games).
    #[arg(long)]
    pub handicap: Option<u32>,
    /// Komi exactly, in points (6.5, 7.5, 0, -0.5).
    #[arg(long, allow_hyphen_values = true)]
    pub komi: Option<keil_rules::HalfPoints>,
    /// The collection, by its name exactly (`keil collections` lists
    /// them).
    #[arg(long)]
    pub collection: Option<String>,
}

impl FilterArgs {
    /// The archive's filter: `--ruleset` read here.
    pub(crate) fn filter(self) -> anyhow::Result<GameFilter> {
        Ok(GameFilter {
            player: self.player,
            color: self.color,
            opponent: self.opponent,
            event: self.event,
            from: self.from,
            to: self.to,
            result: self.result,
            winner: self.winner,
            kind: self.kind,
            size: self.size,
            ruleset: self
                .ruleset
                .map(|r| r.parse())
                .transpose()
                .context("--ruleset")?,
            status: self.status,
            variant: self.variant,
            min_rank: self.min_rank,
            max_rank: self.max_rank,
            handicap: self.handicap,
            komi: self.komi,
            collection: self.collection,
        })
    }
}

/// The explorer's options of a position or pattern search (Kombilo's
/// search options; lichess's explorer lists).
#[derive(clap::Args, Debug)]
pub struct ExploreArgs {
    /// Only matches at or before this ply (Kombilo's move limit).
    #[arg(long)]
    pub move_limit: Option<u32>,
    /// Only continuations of this colour (black or white): a position's
    /// player to move; a pattern's hits whose next move in the region is
    /// that colour's (Kombilo's "next move").
    #[arg(long, value_parser = parse_color)]
    pub next: Option<Color>,
    /// Per-year counts of the games and of each continuation.
    #[arg(long)]
    pub history: bool,
    /// List this many games whose weaker player ranks highest.
    #[arg(long, default_value_t = 0)]
    pub top_games: usize,
    /// List this many of the latest games.
    #[arg(long, default_value_t = 0)]
    pub recent_games: usize,
    /// Pattern search: search the variations too (Kombilo's option; reads
    /// every record of the board, so its time grows with the archive).
    /// A position search refuses it (its index holds main lines only).
    #[arg(long)]
    pub variations: bool,
}

impl ExploreArgs {
    /// The flags as the archive's [`ExploreOptions`].
    pub(crate) fn options(&self) -> ExploreOptions {
        ExploreOptions {
            move_limit: self.move_limit,
            next: self.next,
            history: self.history,
            top_games: self.top_games,
            recent_games: self.recent_games,
            variations: self.variations,
        }
    }

    /// Refuses `--variations` for a position search, whose index holds
    /// main lines only (checked before the archive is opened).
    pub(crate) fn main_lines_only(&self) -> anyhow::Result<()> {
        self.options().main_lines_only().map_err(|e| {
            anyhow::anyhow!(
                "--{}: {e}; search the board as a whole-board pattern (keil search pattern) with --variations",
                e.option()
            )
        })
    }

    /// `q` with these options: its player to move is the notation's or
    /// `--next` (both when they agree). `--variations` is refused before:
    /// [`ExploreArgs::main_lines_only`].
    pub(crate) fn position(&self, q: PositionQuery) -> anyhow::Result<PositionQuery> {
        q.with_options(self.options())
            .map_err(|e| anyhow::anyhow!("--{}: {e}", e.option()))
    }
}

/// A result to search by, as the archive stores it (`w+resign` is `W+R`).
fn parse_result(s: &str) -> Result<String, String> {
    keil_record::GameResult::parse_any(s)
        .map(|r| r.to_string())
        .map_err(|e| e.to_string())
}

fn parse_color(s: &str) -> Result<Color, String> {
    match s.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(format!("{s:?} is not a colour (black or white)")),
    }
}
