//! `keil search`: players, games, positions and text in an archive.

use anyhow::{Context, bail};
use chrono::NaiveDate;
use keil_archive::{
    Archive, GameFilter, GameKind, GameStatus, GameSummary, MoveStats, Order, Page, Pattern,
    PatternAnswer, PatternMode, PatternQuery, PositionQuery,
};
use keil_rules::{Color, KaomiVariant};

/// Search an archive.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub what: What,
}

/// Options every search takes.
#[derive(clap::Args, Debug)]
pub struct Common {
    /// The archive directory.
    #[arg(long)]
    pub db: crate::archive::Db,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// At most this many answers.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Keep the position and pattern indexes' derived copies in this
    /// directory, as `keil serve --cache-dir` does (created if needed):
    /// the next search maps them instead of deriving them from every game
    /// again (at a million 19×19 games, about a second instead of about a
    /// minute for a pattern search). A cache, never trusted over the
    /// archive: a stale one is caught up or rebuilt.
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<std::path::PathBuf>,
}

/// What to search.
#[derive(clap::Subcommand, Debug)]
pub enum What {
    /// Players by name: case and accents ignored, prefixes and near
    /// misspellings found, with game counts.
    Players {
        /// A name or part of one.
        query: String,
        /// Show the profile of the best match (wins and losses by colour,
        /// dates, frequent opponents).
        #[arg(long)]
        profile: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Games with filters, sorted by date.
    Games {
        #[command(flatten)]
        filter: FilterArgs,
        /// Oldest first (default newest first).
        #[arg(long)]
        oldest_first: bool,
        /// Continue after this cursor (printed after a full page).
        #[arg(long)]
        after: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Games that reached a position, and what was played next.
    Position {
        /// The position in position notation, e.g.
        /// `7/8/9/10/11/12/6b6/12/11/10/9/8/7 w`: suffixes ` b`/` w` restrict
        /// the player to move, ` +`/` -` the button taken or not; an absent
        /// suffix matches either value.
        position: String,
        /// Match the symmetric images too (12 on Keil's hexagon, 8 on Go's
        /// square).
        #[arg(long)]
        symmetry: bool,
        /// `swap`: also match the position with colours exchanged (and the
        /// player to move); hits matched so are marked `swapped`.
        #[arg(long, default_value = "same", value_parser = ["same", "swap"])]
        colors: String,
        /// The games searched. `--kind` is the game of the position:
        /// `keil` (columns), `go` or `kaomi` (rows, e.g.
        /// `9/9/2b6/9/4w4/9/9/9/9 b`); default: the kind whose notation
        /// reads it (Keil or Go; a Kaomi query needs `--kind kaomi`, its
        /// rows read as Go's too). `--size` is not read: the board's.
        #[command(flatten)]
        filter: FilterArgs,
        /// The explorer's options.
        #[command(flatten)]
        explore: ExploreArgs,
        /// Continue after this cursor.
        #[arg(long)]
        after: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Games in which a pattern occurs (a region of the board with a value
    /// per point, wildcards allowed), wherever its mode places it, with
    /// the continuation table (Kombilo's) and the games at their first
    /// match.
    #[command(after_help = PATTERN_HELP)]
    Pattern {
        /// The pattern: rows `ROW/ROW/...[@POINT]` (square boards) or
        /// `VALUE:POINT[,POINT...]` items (every board); see below.
        pattern: String,
        /// Where it may be placed: anywhere, corner, side, centre (or
        /// center) or fixed.
        #[arg(long, default_value = "anywhere", value_parser = parse_mode)]
        mode: PatternMode,
        /// Match the board's symmetric images too (8 on the square, 12 on
        /// the hexagon): the default.
        #[arg(long, overrides_with = "no_symmetry")]
        symmetry: bool,
        /// Match the pattern only as drawn (no rotation or reflection).
        #[arg(long, overrides_with = "symmetry")]
        no_symmetry: bool,
        /// `swap` (the default): also match with black and white
        /// exchanged; `same`: only in the colours drawn.
        #[arg(long, default_value = "swap", value_parser = ["same", "swap"])]
        colors: String,
        /// The games searched (--kind and --size choose the pattern's
        /// board: default go, and the kind's usual size, Go 19, Keil 7,
        /// Kaomi 7).
        #[command(flatten)]
        filter: FilterArgs,
        /// The explorer's options.
        #[command(flatten)]
        explore: ExploreArgs,
        /// Continue after this cursor (printed after a full page).
        #[arg(long)]
        after: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Players, events, places, game names and comments (every word must
    /// occur, each in any field; `player:`, `event:`, `place:`, `name:`,
    /// `comment:` restrict to one field).
    Text {
        /// The query.
        query: String,
        #[command(flatten)]
        common: Common,
    },
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

/// The notation of `keil search pattern`, with examples.
const PATTERN_HELP: &str = "\
Pattern notation (cells: X black, O white, . empty, * any, x black or empty,
o white or empty; the points given are the region searched):

  Rows (Go, Kaomi): ROW/ROW/...[@POINT], every row as wide; the top-left
  cell at the SGF point POINT (default aa, the top-left corner; in side mode
  ba, in centre mode bb).
  Points (every board): VALUE:POINT[,POINT...] items separated by spaces,
  points as records write them (Go SGF dd, Keil g7).

Modes: corner (in the corner it is drawn in, under symmetry any corner),
side (sliding along the one edge it touches), centre (touching no edge),
anywhere (where it fits), fixed (where it is drawn).

Examples:
  The 3-3 invasion under a 4-4 stone, in any corner of a 19x19 board:
    keil search pattern --db DB --mode corner '...../...../..O../...X./.....'
  A Go point list: black on a 4-4 point, white on the 3-3 point inside it:
    keil search pattern --db DB 'X:dd O:cc'
  A Keil shape, anywhere on the hexagon of side 7:
    keil search pattern --db DB --kind keil 'X:g7 O:h8 .:g8'
  On 9x9 Go, by one player, as drawn only:
    keil search pattern --db DB --size 9 --no-symmetry --player Kim 'X:cc O:dc,cd'
";

fn parse_mode(s: &str) -> Result<PatternMode, String> {
    s.parse()
        .map_err(|e: keil_archive::PatternError| e.to_string())
}

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
    /// The result as written, e.g. B+R or W+3.5.
    #[arg(long)]
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
}

fn parse_color(s: &str) -> Result<Color, String> {
    match s.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(format!("{s:?} is not a colour (black or white)")),
    }
}

impl FilterArgs {
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
        })
    }
}

/// The archive a search reads, with its derived indexes cached in
/// `--cache-dir` when given.
fn open(common: &Common) -> anyhow::Result<Archive> {
    let db = &common.db;
    if !Archive::exists(db.location(None)) {
        bail!("no archive at {db} (create one with keil import)");
    }
    let archive = crate::archive::open_for_reading(db)?;
    if let Some(dir) = &common.cache_dir {
        archive
            .cache_in(dir)
            .with_context(|| format!("cannot use cache directory {}", dir.display()))?;
    }
    Ok(archive)
}

/// What a matched position adds to the board: the player to move and the
/// button flag (Keil), as the notation's suffixes (`w +`, `b -`; Go `b`).
fn matched(to_move: Color, button_taken: Option<bool>) -> String {
    let to_move = to_move.letter().to_ascii_lowercase();
    match button_taken {
        Some(b) => format!("{to_move} {}", if b { '+' } else { '-' }),
        None => to_move.to_string(),
    }
}

fn game_line(g: &GameSummary) -> String {
    format!(
        "{:>7}  {:<4} {:>2}  {:<10}  {} ({}) - {} ({})  {}  {}  {}",
        g.id,
        g.kind,
        g.size,
        g.date.as_deref().unwrap_or("?"),
        g.black.as_deref().unwrap_or("?"),
        g.shown_rank(Color::Black).unwrap_or_else(|| "-".into()),
        g.white.as_deref().unwrap_or("?"),
        g.shown_rank(Color::White).unwrap_or_else(|| "-".into()),
        g.result.as_deref().unwrap_or("?"),
        g.event.as_deref().unwrap_or(""),
        g.round
            .as_deref()
            .map(|r| format!("round {r}"))
            .unwrap_or_default(),
    )
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.what {
        What::Players {
            query,
            profile,
            common,
        } => {
            let archive = open(&common)?;
            let hits = archive.players().search(&query, common.limit)?;
            let prof = match (profile, hits.first()) {
                (true, Some(h)) => archive.players().profile(h.id)?,
                _ => None,
            };
            if common.json {
                let v = serde_json::json!({ "players": hits, "profile": prof });
                outln!("{}", serde_json::to_string_pretty(&v)?)?;
                return Ok(());
            }
            for h in &hits {
                outln!(
                    "{:>6}  {:<30} {:>6} games  ({:?})",
                    h.id,
                    h.name,
                    h.games,
                    h.matched
                )?;
            }
            if let Some(p) = prof {
                outln!(
                    "\n{} ({} games, {} to {})",
                    p.name,
                    p.games,
                    p.first_date.as_deref().unwrap_or("?"),
                    p.last_date.as_deref().unwrap_or("?")
                )?;
                for (c, r) in [("Black", p.as_black), ("White", p.as_white)] {
                    outln!(
                        "  as {c}: {} games, {} wins, {} losses",
                        r.games,
                        r.wins,
                        r.losses
                    )?;
                }
                if p.spellings.len() > 1 {
                    let written: Vec<String> = p
                        .spellings
                        .iter()
                        .map(|s| format!("{} ({})", s.name, s.games))
                        .collect();
                    outln!("  written as: {}", written.join(", "))?;
                }
                if p.self_play > 0 {
                    outln!(
                        "  against themself: {} games (neither won nor lost)",
                        p.self_play
                    )?;
                }
                outln!("  most frequent opponents:")?;
                for o in &p.opponents {
                    outln!(
                        "    {:<30} {:>4} games  +{} -{}",
                        o.name,
                        o.games,
                        o.wins,
                        o.losses
                    )?;
                }
            }
        }
        What::Games {
            filter,
            oldest_first,
            after,
            common,
        } => {
            let archive = open(&common)?;
            let page = Page {
                order: if oldest_first {
                    Order::Ascending
                } else {
                    Order::Descending
                },
                limit: common.limit,
                after: after.map(|a| a.parse()).transpose()?,
                before: None,
            };
            let list = archive.games().list(&filter.filter()?, &page)?;
            if common.json {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&serde_json::json!({
                        "games": list.games,
                        "next": list.next.map(|c| c.to_string()),
                    }))?
                )?;
                return Ok(());
            }
            for g in &list.games {
                outln!("{}", game_line(g))?;
            }
            if let Some(next) = list.next {
                outln!("next page: --after {next}")?;
            }
        }
        What::Position {
            position,
            symmetry,
            colors,
            filter,
            explore,
            after,
            common,
        } => {
            anyhow::ensure!(
                !explore.variations,
                "--variations: a position search reads main lines only; search the board as a whole-board pattern (keil search pattern) with --variations"
            );
            let archive = open(&common)?;
            let filter = filter.filter()?;
            let mut q = PositionQuery::parse_inferred(filter.kind, &position)
                .with_context(|| format!("position {position:?}"))?;
            q.symmetry = symmetry;
            q.swap_colors = colors == "swap";
            let keil = q.position.kind() == keil_rules::GameKind::Keil;
            q.to_move = match (q.to_move, explore.next) {
                (Some(a), Some(b)) if a != b => anyhow::bail!(
                    "--next {} contradicts the position's player to move ({})",
                    b.letter(),
                    a.letter()
                ),
                (a, b) => a.or(b),
            };
            q.filter = filter;
            q.move_limit = explore.move_limit;
            q.history = explore.history;
            q.top_games = explore.top_games;
            q.recent_games = explore.recent_games;
            q.limit = common.limit;
            q.cursor = after;
            let answer = archive.positions().search(&q)?;
            if common.json {
                outln!("{}", serde_json::to_string_pretty(&answer)?)?;
                return Ok(());
            }
            outln!("{} games reached {}", answer.total_games, q.notation())?;
            for c in &answer.continuations {
                outln!(
                    "  {} {:<8} {:>6} games  ({:.1}%)  B {} / W {}",
                    matched(c.to_move, keil.then_some(c.button_taken)),
                    c.mv,
                    c.games,
                    c.share * 100.0,
                    c.black_wins,
                    c.white_wins
                )?;
            }
            print_history(answer.history.as_deref())?;
            let line = |h: &keil_archive::PositionHit| {
                format!(
                    "{:>7}  ply {:>3} {}{}  {:<10} {} - {}  {}  next {}",
                    h.game_id,
                    h.ply,
                    matched(h.to_move, keil.then_some(h.button_taken)),
                    if h.swapped { " swapped" } else { "" },
                    h.date,
                    h.black.as_deref().unwrap_or("?"),
                    h.white.as_deref().unwrap_or("?"),
                    h.result.as_deref().unwrap_or("?"),
                    h.next.as_deref().unwrap_or("-")
                )
            };
            for (title, list) in [
                ("top games", &answer.top_games),
                ("recent games", &answer.recent_games),
            ] {
                if !list.is_empty() {
                    outln!("{title}:")?;
                    for h in list {
                        outln!("{}", line(h))?;
                    }
                }
            }
            if !answer.top_games.is_empty() || !answer.recent_games.is_empty() {
                outln!("games:")?;
            }
            for h in &answer.games {
                outln!("{}", line(h))?;
            }
            if let Some(next) = answer.next_cursor {
                outln!("next page: --after {next}")?;
            }
        }
        What::Pattern {
            pattern,
            mode,
            symmetry: _,
            no_symmetry,
            colors,
            filter,
            explore,
            after,
            common,
        } => {
            let archive = open(&common)?;
            if common.cache_dir.is_some() {
                // From the cache's snapshot when it has one (then caught
                // up), else derived and the snapshot written for the next.
                archive
                    .patterns()
                    .load()
                    .context("cannot read the pattern index")?;
            }
            let filter = filter.filter()?;
            let kind = filter.kind.unwrap_or(GameKind::Go);
            let size = filter.size.unwrap_or(kind.default_size());
            let pattern = Pattern::parse(kind, size, &pattern, mode)
                .with_context(|| format!("pattern {pattern:?}"))?;
            let q = PatternQuery {
                symmetry: !no_symmetry,
                swap_colors: colors == "swap",
                filter,
                move_limit: explore.move_limit,
                next: explore.next,
                variations: explore.variations,
                history: explore.history,
                top_games: explore.top_games,
                recent_games: explore.recent_games,
                limit: common.limit,
                cursor: after,
                ..PatternQuery::new(pattern, mode)
            };
            let answer = archive.patterns().search(&q).map_err(|e| match e {
                // Its message says what to fix (e.g. draw a corner
                // pattern in a corner).
                keil_archive::Error::Pattern(p) => {
                    anyhow::Error::new(p).context(format!("pattern {}", q.pattern))
                }
                e => e.into(),
            })?;
            if common.json {
                outln!("{}", serde_json::to_string_pretty(&answer)?)?;
                return Ok(());
            }
            print_pattern_answer(&answer, kind, size, mode)?;
        }
        What::Text { query, common } => {
            let archive = open(&common)?;
            let hits = archive.search_text(&query, common.limit)?;
            if common.json {
                outln!("{}", serde_json::to_string_pretty(&hits)?)?;
                return Ok(());
            }
            for h in &hits {
                outln!("{:>6.2}  {}", h.score, game_line(&h.game))?;
            }
        }
    }
    Ok(())
}

/// A search's history for people: a line per year (none when not asked
/// for).
fn print_history(history: Option<&[keil_archive::YearCount]>) -> std::io::Result<()> {
    let Some(years) = history else {
        return Ok(());
    };
    outln!("by year:")?;
    for y in years {
        outln!(
            "  {:<8} {:>7} games  B {} / W {}",
            y.year.map_or("undated".to_string(), |y| y.to_string()),
            y.games,
            y.black_wins,
            y.white_wins
        )?;
    }
    Ok(())
}

/// A pattern search's answer for people: totals, the continuation table,
/// the history, the top, recent and listed games.
fn print_pattern_answer(
    a: &PatternAnswer,
    kind: GameKind,
    size: u8,
    mode: PatternMode,
) -> std::io::Result<()> {
    outln!(
        "{} games, {} hits of {} ({} {size}, {} mode, {} placements)",
        a.total_games,
        a.total_hits,
        a.pattern,
        kind.name(),
        mode.code(),
        a.placements
    )?;
    if !a.continuations.is_empty() {
        outln!()?;
        outln!(
            "{:<5} {:<10} {:>6} {:>7} {:>6} {:>6}   {:>6} {:>7} {:>6} {:>6}",
            "label",
            "point",
            "Black",
            "tenuki",
            "B wins",
            "W wins",
            "White",
            "tenuki",
            "B wins",
            "W wins"
        )?;
        let stats = |s: &MoveStats| {
            format!(
                "{:>6} {:>7} {:>6} {:>6}",
                s.count, s.after_tenuki, s.black_wins, s.white_wins
            )
        };
        for c in &a.continuations {
            let point = if c.display == c.point {
                c.display.clone()
            } else {
                format!("{} ({})", c.display, c.point)
            };
            outln!(
                "{:<5} {:<10} {}   {}",
                c.label,
                point,
                stats(&c.black),
                stats(&c.white)
            )?;
        }
    }
    print_history(a.history.as_deref())?;
    let line = |h: &keil_archive::PatternHit| {
        format!(
            "{:>7}  {:<10}  {} - {}  {}  node {} ply {}{}  {} hit{}{}  next {}",
            h.game_id,
            if h.date.is_empty() { "?" } else { &h.date },
            h.black.as_deref().unwrap_or("?"),
            h.white.as_deref().unwrap_or("?"),
            h.result.as_deref().unwrap_or("?"),
            h.node,
            h.ply,
            h.variation
                .map_or(String::new(), |v| format!(" (variation {v})")),
            h.hits,
            if h.hits == 1 { "" } else { "s" },
            if h.swapped { " swapped" } else { "" },
            h.next.as_deref().unwrap_or("-")
        )
    };
    for (title, list) in [
        ("top games", &a.top_games),
        ("recent games", &a.recent_games),
        ("games", &a.games),
    ] {
        if !list.is_empty() {
            outln!()?;
            outln!("{title}:")?;
            for h in list {
                outln!("{}", line(h))?;
            }
        }
    }
    if let Some(next) = &a.next_cursor {
        outln!("next page: --after {next}")?;
    }
    Ok(())
}
