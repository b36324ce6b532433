//! The archive's domain types: game ids, statuses, summaries, filters,
//! pages and cursors.

use std::fmt;
use std::str::FromStr;

use chrono::NaiveDate;
use keil_rules::{
    AnyBoard, AnyGame, AnyPosition, AnyRuleset, BoardSpec, Color, HalfPoints, IllegalMove,
    KaomiRuleset, KaomiVariant, Move, Ruleset, ToMove, TurnOutcome,
};
use serde::Serialize;

use keil_record::Rank;

use crate::fold::{fold, person_key};
use crate::ids::GameId;
use crate::kind::GameKind;

pub mod people;
pub mod refused;

/// How a stored game ended (only valid games are stored).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GameStatus {
    /// Ended by two passes; the result is the computed score.
    Complete,
    /// A player resigned (`B+R`, `W+R`).
    Resigned,
    /// A player lost on time (`B+T`, `W+T`).
    Time,
    /// A player forfeited (`B+F`, `W+F`; Go `B+I` too).
    Forfeit,
    /// Go: not ended by passes, and `RE` gives a score, a winner (`B+`) or
    /// a draw, taken as written (go-rules.md, "Verdict of one line").
    Scored,
    /// No end and no decisive result.
    Unfinished,
}

impl GameStatus {
    /// Every status, in this order.
    pub const ALL: [GameStatus; 6] = [
        GameStatus::Complete,
        GameStatus::Resigned,
        GameStatus::Time,
        GameStatus::Forfeit,
        GameStatus::Scored,
        GameStatus::Unfinished,
    ];

    /// The code stored in `games.status` and used in JSON: `complete`,
    /// `resigned`, `time`, `forfeit`, `scored`, `unfinished`.
    pub fn code(self) -> &'static str {
        match self {
            GameStatus::Complete => "complete",
            GameStatus::Resigned => "resigned",
            GameStatus::Time => "time",
            GameStatus::Forfeit => "forfeit",
            GameStatus::Scored => "scored",
            GameStatus::Unfinished => "unfinished",
        }
    }
}

impl fmt::Display for GameStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.code())
    }
}

/// A status code that is not one of [`GameStatus::code`]'s.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown game status {0:?}: expected complete, resigned, time, forfeit, scored or unfinished"
)]
pub struct GameStatusError(pub String);

impl FromStr for GameStatus {
    type Err = GameStatusError;
    fn from_str(s: &str) -> Result<GameStatus, GameStatusError> {
        GameStatus::ALL
            .into_iter()
            .find(|st| st.code().eq_ignore_ascii_case(s))
            .ok_or_else(|| GameStatusError(s.to_string()))
    }
}

/// One stored game's metadata, as listed by queries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameSummary {
    /// The game id, stable for the archive's life.
    pub id: GameId,
    /// Black's name (`PB`), if given.
    pub black: Option<String>,
    /// White's name (`PW`), if given.
    pub white: Option<String>,
    /// Black's rank read from `BR` (go-rules.md, "Metadata": `9段` is 9d),
    /// `None` when it is no rank.
    pub black_rank: Option<Rank>,
    /// White's rank read from `WR`.
    pub white_rank: Option<Rank>,
    /// `BR` as written.
    pub black_rank_text: Option<String>,
    /// `WR` as written.
    pub white_rank_text: Option<String>,
    /// The date as written (`DT`), e.g. `2019-12-08,09`.
    pub date: Option<String>,
    /// The first day of the date, used for sorting and date filters.
    pub day: Option<NaiveDate>,
    /// The event (`EV`).
    pub event: Option<String>,
    /// The round (`RO`).
    pub round: Option<String>,
    /// The place (`PC`).
    pub place: Option<String>,
    /// The game name (`GN`).
    pub game_name: Option<String>,
    /// The result as normalised (`B+3.5`, `W+R`, `0`, ...).
    pub result: Option<String>,
    /// The winner, when there is one.
    pub winner: Option<Color>,
    /// The score difference in half-points, for counted results.
    pub margin: Option<HalfPoints>,
    /// How the game ended.
    pub status: GameStatus,
    /// The game: Keil, Go, ...
    pub kind: GameKind,
    /// The board size: the hexagon's side (Keil), the square's side (Go).
    pub size: u8,
    /// The canonical `RU` value (komi apart).
    pub ruleset: String,
    /// Komi in half-points.
    pub komi: HalfPoints,
    /// Go's handicap (`HA`), 0 for none; always 0 for Keil and Kaomi.
    pub handicap: u32,
    /// Number of plies of the main line (passes and the button count).
    pub plies: u32,
    /// The collection the game belongs to (its import's: `keil import
    /// --collection`); `None` for a game stored before collections that
    /// the open-time upgrade has not labelled yet.
    pub collection: Option<String>,
}

impl GameSummary {
    /// The player of `color`.
    pub fn player(&self, color: Color) -> Option<&str> {
        match color {
            Color::Black => self.black.as_deref(),
            Color::White => self.white.as_deref(),
        }
    }

    /// The rank of `color` as lists show it: the rank read (`9d`), else
    /// `BR`/`WR` as written when it is not blank, else `None`.
    pub fn shown_rank(&self, color: Color) -> Option<String> {
        let (rank, text) = match color {
            Color::Black => (self.black_rank, &self.black_rank_text),
            Color::White => (self.white_rank, &self.white_rank_text),
        };
        shown_rank(rank, text.as_deref())
    }
}

/// A rank as lists and search pages show it: the rank read (`9d`), else
/// `BR`/`WR` as written (`text`) when it is not blank, else `None`.
pub fn shown_rank(rank: Option<Rank>, text: Option<&str>) -> Option<String> {
    match rank {
        Some(r) => Some(r.to_string()),
        None => text.filter(|t| !t.trim().is_empty()).map(str::to_string),
    }
}

/// The moves of a stored game, ready to replay on [`GameMoves::start`]
/// with [`GameMoves::play`] (any game kind).
#[derive(Clone, Debug)]
pub struct GameMoves {
    /// The game id.
    pub id: GameId,
    /// The board (Keil hexagon or Go square).
    pub board: AnyBoard,
    /// The rules, komi included.
    pub rules: AnyRuleset,
    /// The starting position when the record sets one up (`AB`/`AW`), or
    /// names the first player (`PL`); `None` for the empty board with the
    /// kind's first player (Black).
    pub setup: Option<AnyPosition>,
    /// Who moves first: Keil always a colour; Go `PL`, else either colour
    /// after a setup, else Black.
    pub to_move: ToMove,
    /// Go: `HA` (0 when absent); with no setup and no `PL`, Black's first
    /// `handicap` moves are free handicap stones (go-rules.md, "Turn
    /// order"). Always 0 for Keil.
    pub handicap: u32,
    /// The main line.
    pub moves: Vec<Move>,
    /// Go: who played each move of [`GameMoves::moves`] (a record names
    /// them); empty for Keil, whose turns alternate.
    pub colors: Vec<Color>,
    /// The SGF node of each move of the main line (the root is node 0;
    /// setup and move-less nodes count, as in Kombilo): the time line of
    /// pattern search. Games stored before schema 5 read as one move per
    /// node after the root.
    pub nodes: Vec<u32>,
}

impl GameMoves {
    /// A game at the start of this main line: the setup (or empty board),
    /// the first player, and Go's free handicap moves. Replay
    /// [`GameMoves::moves`] on it with [`GameMoves::play`].
    pub fn start(&self) -> AnyGame {
        // Keil from the empty board: the plain constructor (no setup to
        // read), as before Go.
        if let (AnyBoard::Hex(board), AnyRuleset::Keil(rules), None) =
            (self.board, self.rules, &self.setup)
        {
            return AnyGame::Keil(keil_rules::Game::new(board, rules));
        }
        let spec = BoardSpec {
            kind: self.rules.kind(),
            size: self.board.size(),
        };
        let mut game = AnyGame::new(spec, self.rules, self.setup.as_ref(), self.to_move)
            .expect("a stored game's board, rules and setup agree (checked when read)");
        if self.handicap >= 2 && self.setup.is_none() && self.to_move.color().is_none() {
            // Go only (Keil games store 0).
            let _ = game.set_handicap_moves(self.handicap);
        }
        game
    }

    /// The player of move `i` (0-based) when `game` is the game before it.
    pub fn color(&self, i: usize, game: &AnyGame) -> Color {
        self.colors
            .get(i)
            .copied()
            .or(game.to_move().color())
            .unwrap_or(Color::Black)
    }

    /// Plays move `i` (0-based) of the main line on `game`, the game after
    /// the moves before it, with its player. A Go record may name the
    /// player of the next move in the game (`PL`): the stored colours
    /// stand for it.
    ///
    /// # Errors
    /// The rules' [`IllegalMove`] when the stored line does not replay
    /// (a corrupt archive; `i` out of range gives `GameOver`).
    pub fn play(&self, i: usize, game: &mut AnyGame) -> Result<TurnOutcome, IllegalMove> {
        let Some(&mv) = self.moves.get(i) else {
            return Err(IllegalMove {
                ply: game.ply() + 1,
                color: game.to_move().color().unwrap_or(Color::Black),
                mv: Move::Pass,
                reason: keil_rules::IllegalReason::GameOver,
            });
        };
        let color = self.color(i, game);
        if !self.colors.is_empty() && game.check_turn(color).is_err() && !game.is_over() {
            let _ = game.set_to_move(ToMove::Color(color));
        }
        game.play_as(color, mv)
    }

    /// The game after the first `ply` moves (all of them when `ply` is
    /// larger).
    ///
    /// # Errors
    /// As [`GameMoves::play`].
    pub fn game_at(&self, ply: usize) -> Result<AnyGame, IllegalMove> {
        let mut game = self.start();
        for i in 0..ply.min(self.moves.len()) {
            self.play(i, &mut game)?;
        }
        Ok(game)
    }
}

/// One stored game in full.
#[derive(Clone, Debug)]
pub struct Game {
    /// Its metadata.
    pub summary: GameSummary,
    /// Its moves.
    pub moves: GameMoves,
    /// The normalised record text (SGF).
    pub record: String,
}

/// Which games a list (or a position search) keeps. Every field left `None`
/// keeps all games; the fields that are set must all hold.
///
/// Names select people: a name selects every spelling with its person key
/// ([`crate::fold::person_key`]: `bolanos` selects `Bolaños`, `kejie` selects
/// `Ke Jie`) and, in the archive's queries, the operator's aliases too;
/// when no person has that key, the archive's queries select the players a
/// word of whose folded name starts with it (`sedol` selects `Lee Sedol`,
/// `lee se` selects `Lee Sedol` and `Lee Seung-hoon`). `color` is the colour of `player`; `opponent` plays the other
/// colour.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameFilter {
    /// A player of the game.
    pub player: Option<String>,
    /// The colour `player` had (with `opponent`: the opponent had the other).
    pub color: Option<Color>,
    /// The opponent of `player` (or, without `player`, either player).
    pub opponent: Option<String>,
    /// A part of the event's name: the event's folded name ([`crate::fold::fold()`]:
    /// case and accents ignored) contains the folded text (`uec` finds
    /// `第10期UEC杯…`, `cup` every cup).
    pub event: Option<String>,
    /// First day of the date on or after this day.
    pub from: Option<NaiveDate>,
    /// First day of the date on or before this day.
    pub to: Option<NaiveDate>,
    /// The result exactly as normalised (`B+R`, `W+3.5`, `0`).
    pub result: Option<String>,
    /// The winner.
    pub winner: Option<Color>,
    /// The game kind.
    pub kind: Option<GameKind>,
    /// The board size (the side of the game's board; with `kind` unset, of
    /// any kind).
    pub size: Option<u8>,
    /// The ruleset (its komi is ignored).
    pub ruleset: Option<Ruleset>,
    /// Kaomi: the variant (`standard` or `squared`); only Kaomi games
    /// pass it.
    pub variant: Option<KaomiVariant>,
    /// The status.
    pub status: Option<GameStatus>,
    /// Both players at least this rank (a player without a rank fails).
    pub min_rank: Option<Rank>,
    /// Both players at most this rank (a player without a rank fails).
    pub max_rank: Option<Rank>,
    /// Go's handicap (`HA`; 0 for none) exactly.
    pub handicap: Option<u32>,
    /// Komi exactly, in half-points.
    pub komi: Option<HalfPoints>,
    /// The collection, by its name exactly (`keil import --collection`).
    pub collection: Option<String>,
}

impl GameFilter {
    /// Whether a list of the games that pass the filter may read rows that
    /// fail it, in proportion to the archive (a rare result, komi or event
    /// on a large archive: a scan of the games in date order). Only the
    /// filters that an index reads in date order, row for row, do not: no
    /// filter, a date range, a kind with its board size (the indexes on
    /// kind, size and date), and a player (with the colour, the opponent,
    /// the kind and a date range), whose games are read from their own
    /// index, and a collection (with a date range), read likewise.
    /// Servers run the others as searches: on their own threads, under the
    /// query budget (`keil_archive::Games::list_within`).
    pub fn scans(&self) -> bool {
        let indexed = GameFilter {
            player: self.player.clone(),
            color: self.color.filter(|_| self.player.is_some()),
            opponent: self.opponent.clone().filter(|_| self.player.is_some()),
            from: self.from,
            to: self.to,
            kind: self.kind,
            size: self.size.filter(|_| self.kind.is_some()),
            ..GameFilter::default()
        };
        // A collection's games are read from their own index in date
        // order (`games_collection`), with a date range.
        let collected = GameFilter {
            collection: self.collection.clone(),
            from: self.from,
            to: self.to,
            ..GameFilter::default()
        };
        *self != indexed && *self != collected
    }

    /// Whether counting the games that pass the filter reads rows in
    /// proportion to the archive: every count but those the archive keeps
    /// (no filter, a kind with a board size, a status) and a player's,
    /// which reads that person's games only.
    pub fn count_scans(&self) -> bool {
        self.player.is_none() && self.counted().is_none()
    }

    /// The name of the count the import keeps that answers this filter
    /// (`games`, `board go 19`, `status refused`…), if one does.
    pub fn counted(&self) -> Option<String> {
        let only = |f: GameFilter| *self == f;
        if only(GameFilter::default()) {
            Some("games".to_string())
        } else if let (Some(kind), Some(size)) = (self.kind, self.size)
            && only(GameFilter {
                kind: Some(kind),
                size: Some(size),
                ..GameFilter::default()
            })
        {
            Some(format!("board {} {size}", kind.code()))
        } else if let Some(status) = self.status
            && only(GameFilter {
                status: Some(status),
                ..GameFilter::default()
            })
        {
            Some(format!("status {}", status.code()))
        } else {
            None
        }
    }

    /// The colour assignments (colour of `player`) that the filter allows.
    fn colors(&self) -> Vec<Color> {
        match self.color {
            Some(c) => vec![c],
            None => vec![Color::Black, Color::White],
        }
    }

    /// Whether a game passes the filter: the definition that the storage's
    /// queries implement (and the tests hold them to), aliases aside: this
    /// compares names by person key only, the queries also follow the
    /// operator's aliases (`keil_archive::Archive::add_alias`).
    pub fn matches(&self, g: &GameSummary) -> bool {
        if self.player.is_some() || self.opponent.is_some() || self.color.is_some() {
            let p = self.player.as_deref().map(person_key);
            let o = self.opponent.as_deref().map(person_key);
            let is = |name: Option<&str>, want: &Option<String>| match want {
                None => true,
                Some(w) => name.is_some_and(|n| person_key(n) == *w),
            };
            let ok = self
                .colors()
                .into_iter()
                .any(|c| is(g.player(c), &p) && is(g.player(c.opposite()), &o));
            if !ok {
                return false;
            }
        }
        if let Some(e) = &self.event
            && !g
                .event
                .as_deref()
                .is_some_and(|x| fold(x).contains(&fold(e)))
        {
            return false;
        }
        if self.from.is_some_and(|f| g.day.is_none_or(|d| d < f))
            || self.to.is_some_and(|t| g.day.is_none_or(|d| d > t))
        {
            return false;
        }
        if self
            .result
            .as_ref()
            .is_some_and(|r| g.result.as_ref() != Some(r))
            || self.winner.is_some_and(|w| g.winner != Some(w))
            || self.kind.is_some_and(|k| g.kind != k)
            || self.size.is_some_and(|s| g.size != s)
            || self.ruleset.is_some_and(|r| g.ruleset != r.to_string())
            || self.variant.is_some_and(|v| {
                g.kind != GameKind::Kaomi
                    || g.ruleset.parse::<KaomiRuleset>().map(|r| r.variant) != Ok(v)
            })
            || self.status.is_some_and(|s| g.status != s)
            || self.handicap.is_some_and(|h| g.handicap != h)
            || self.komi.is_some_and(|k| g.komi != k)
            || self
                .collection
                .as_ref()
                .is_some_and(|c| g.collection.as_ref() != Some(c))
        {
            return false;
        }
        let both = |ok: &dyn Fn(Rank) -> bool| {
            g.black_rank.is_some_and(ok) && g.white_rank.is_some_and(ok)
        };
        if self.min_rank.is_some_and(|m| !both(&|r| r >= m))
            || self.max_rank.is_some_and(|m| !both(&|r| r <= m))
        {
            return false;
        }
        true
    }
}

/// One year of a search's history: the games (or, in a pattern
/// search's continuation, the hits) of that year and who won them, in the
/// query's colours. A history lists the years oldest first, undated games
/// last (`year` `None`); its `games` add up to the total it breaks down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct YearCount {
    /// The year of the game's date; `None` for undated games.
    pub year: Option<u16>,
    /// Games (pattern continuations: hits) of that year.
    pub games: u64,
    /// Of those, won by the player of the query's black stones.
    pub black_wins: u64,
    /// Of those, won by the player of the query's white stones.
    pub white_wins: u64,
}

/// The games of one collection among a search's (or a player's): a
/// breakdown lists the collections most games first, then by name; games
/// in no collection are left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CollectionCount {
    /// The collection's name (`keil import --collection`).
    pub name: String,
    /// Its games.
    pub games: u64,
}

/// One collection of an archive, as `keil collections` and
/// `GET /api/v1/collections` list them: its games, the years they span and
/// the ranks of their players (the band the collection's rank filters
/// read: a KGS 9d and a Tygem 9d are told apart by their collections).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CollectionSummary {
    /// The collection's name.
    pub name: String,
    /// Its stored games.
    pub games: u64,
    /// The year of its first dated game (`None`: no game is dated).
    pub first_year: Option<u16>,
    /// The year of its last dated game.
    pub last_year: Option<u16>,
    /// The lowest rank a player of its games has (`None`: nobody is
    /// ranked), as ranks are written (`30k`, `1d`, `9p`).
    #[serde(serialize_with = "rank_text")]
    pub lowest_rank: Option<Rank>,
    /// The highest rank a player of its games has.
    #[serde(serialize_with = "rank_text")]
    pub highest_rank: Option<Rank>,
    /// Of its games, those both of whose players are ranked.
    pub ranked_games: u64,
}

/// A rank as it is written (`9d`), for JSON.
fn rank_text<S: serde::Serializer>(rank: &Option<Rank>, s: S) -> Result<S::Ok, S::Error> {
    match rank {
        Some(r) => s.serialize_str(&r.to_string()),
        None => s.serialize_none(),
    }
}

/// The order of a game list: by first day of the date, then by id. Games
/// without a date come first in ascending order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// Oldest first.
    Ascending,
    /// Newest first (the default).
    #[default]
    Descending,
}

/// Where a page of a game list starts: just after the game with this date
/// key and id. Written `DATE~ID` (`2019-12-08~42`, `~42` without a date).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cursor {
    /// The sort date (`YYYY-MM-DD`, or empty).
    pub date: String,
    /// The game id.
    pub id: GameId,
}

impl fmt::Display for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}~{}", self.date, self.id)
    }
}

impl FromStr for Cursor {
    type Err = crate::error::Error;
    /// Reads `DATE~ID`: a date as [`written_day`] reads it (kept as
    /// written) or nothing, then the id in ASCII digits.
    ///
    /// # Errors
    /// [`crate::Error::BadCursor`] for anything else.
    fn from_str(s: &str) -> crate::error::Result<Cursor> {
        let bad = || crate::error::Error::bad_cursor(s);
        let (date, id) = s.rsplit_once('~').ok_or_else(bad)?;
        if !date.is_empty() && written_day(date).is_none() {
            return Err(bad());
        }
        Ok(Cursor {
            date: date.to_string(),
            id: digits(id).ok_or_else(bad)?,
        })
    }
}

/// A day as the archive writes it, `YYYY-MM-DD`: four, two and two ASCII
/// digits, the month 01 to 12 and the day 01 to 31, as `(year, month,
/// day)`. The day is not checked against its month's length: dates are
/// stored and compared as text, so `2023-02-30` sorts after every day of
/// February 2023 and before March's. `None` for anything else.
pub fn written_day(s: &str) -> Option<(u16, u8, u8)> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = digits::<u16>(&s[..4])?;
    let month = digits::<u8>(&s[5..7]).filter(|m| (1..=12).contains(m))?;
    let day = digits::<u8>(&s[8..]).filter(|d| (1..=31).contains(d))?;
    Some((year, month, day))
}

/// A number in ASCII digits only (no sign, as cursors are written);
/// `None` for anything else or past `T`.
fn digits<T: FromStr>(s: &str) -> Option<T> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// Where the next page of a position or pattern search starts: just after
/// the hit with this date key and game. Written `DATE-GAME`
/// (`20191208-42`), as the searches' `next_cursor` gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HitCursor {
    /// The game's date as a number (`YYYYMMDD`; 0 without a date).
    pub date: u32,
    /// The game id (the index's 32-bit game number).
    pub game: u32,
}

impl fmt::Display for HitCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.date, self.game)
    }
}

impl FromStr for HitCursor {
    type Err = crate::error::Error;
    /// Reads `DATE-GAME`, two decimal numbers within `u32`.
    ///
    /// # Errors
    /// [`crate::Error::BadCursor`] for anything else.
    fn from_str(s: &str) -> crate::error::Result<HitCursor> {
        let bad = || crate::error::Error::bad_cursor(s);
        let (date, game) = s.split_once('-').ok_or_else(bad)?;
        Ok(HitCursor {
            date: digits(date).ok_or_else(bad)?,
            game: digits(game).ok_or_else(bad)?,
        })
    }
}

/// One page request of a game list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// The order.
    pub order: Order,
    /// At most this many games (capped at 1,000).
    pub limit: usize,
    /// Start after this game (from the previous page's `next`).
    pub after: Option<Cursor>,
    /// Or: the games just before this one, in the same order (from the
    /// next page's `prev`: the page before it). Used when `after` is none.
    pub before: Option<Cursor>,
}

impl Default for Page {
    fn default() -> Page {
        Page {
            order: Order::Descending,
            limit: 50,
            after: None,
            before: None,
        }
    }
}

/// One page of a game list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameList {
    /// The games of the page.
    pub games: Vec<GameSummary>,
    /// The cursor of the next page (as [`Page::after`]), `None` on the
    /// last page.
    pub next: Option<Cursor>,
    /// The cursor of the previous page (as [`Page::before`]), `None` on
    /// the first page.
    pub prev: Option<Cursor>,
}

/// Most games one page returns.
pub const MAX_PAGE: usize = 1_000;

/// A game's stored main line as read from `games` (the columns
/// `STORED_MOVES` of `games.rs`, in that order).
pub struct StoredMoves {
    /// `games.kind`: the game's name (`keil`, `go`, `kaomi`).
    pub kind: String,
    /// `games.size`: the board's size (side in points).
    pub size: u8,
    /// `games.ruleset`: the ruleset's name as the kind writes it.
    pub ruleset: String,
    /// `games.komi`: komi in half-points.
    pub komi: i32,
    /// `games.setup`: the start in the kind's notation, when set up.
    pub setup: Option<String>,
    /// `games.moves`: the main line's move blob ([`crate::moves`]).
    pub blob: Vec<u8>,
    /// `games.handicap`: Go `HA` (0 for none).
    pub handicap: u32,
    /// `games.nodes`: the move nodes' blob ([`crate::moves::decode_nodes`]), `None` before schema 5.
    pub nodes: Option<Vec<u8>>,
}

/// What a search shows beside each hit, the one game header of the
/// position and pattern answers: the game's date (as stored, `YYYY-MM-DD`
/// or empty), Black's and White's names and ranks, and the result as
/// written in RE.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HitDetails {
    /// The game's date as stored (`YYYY-MM-DD` or empty).
    pub date: String,
    /// Black's name as written.
    pub black: Option<String>,
    /// White's name as written.
    pub white: Option<String>,
    /// Black's rank as lists show it (`keil_archive::GameSummary::shown_rank`).
    pub black_rank: Option<String>,
    /// White's rank, as `black_rank`.
    pub white_rank: Option<String>,
    /// The result as written in `RE`.
    pub result: Option<String>,
    /// The collection the game belongs to.
    pub collection: Option<String>,
}

/// Now, as the archive's logs write times (RFC 3339 UTC, milliseconds).
pub fn now() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// How a merged record is its game (`game_sources.merge_kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MergeKind {
    /// The same setup and moves, point for point.
    Identical,
    /// The same setup and moves under one of the board's other symmetries
    /// (the record drawn in another orientation).
    Symmetric,
    /// One record's moves are the start of the other's (a record cut
    /// short); the longer is the game.
    Prefix,
    /// The same moves of each colour, in another order.
    Transposed,
    /// The same players and date, the moves differing at 1 to 5 plies (a
    /// transcription error).
    Discrepancy,
}

impl MergeKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [MergeKind; 5] = [
        MergeKind::Identical,
        MergeKind::Symmetric,
        MergeKind::Prefix,
        MergeKind::Transposed,
        MergeKind::Discrepancy,
    ];

    /// The code stored in `game_sources.merge_kind` and shown in JSON.
    pub fn code(self) -> &'static str {
        match self {
            MergeKind::Identical => "identical",
            MergeKind::Symmetric => "symmetric",
            MergeKind::Prefix => "prefix",
            MergeKind::Transposed => "transposed",
            MergeKind::Discrepancy => "discrepancy",
        }
    }

    /// The kind of a stored code; `None` for another text.
    pub fn parse(code: &str) -> Option<MergeKind> {
        MergeKind::ALL.into_iter().find(|k| k.code() == code)
    }
}

/// One removal in the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Removal {
    /// Its place in the removal sequence (1, 2, ...).
    pub seq: u64,
    /// The removed game's id (never given to another game).
    pub game_id: GameId,
    /// When, RFC 3339 UTC with milliseconds (`2026-11-26T09:30:00.000Z`).
    pub removed_at: String,
    /// Who asked: a server token's name, or the local user of `keil remove`.
    pub removed_by: String,
    /// Why, as given (empty when none was).
    pub reason: String,
    /// The game as a person names it: `Black vs White, date, event`.
    pub what: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_index_ranges_are_lists_without_a_scan() {
        let day = NaiveDate::from_ymd_opt(2016, 1, 1);
        let player = |p: &str| GameFilter {
            player: Some(p.into()),
            ..GameFilter::default()
        };
        for light in [
            GameFilter::default(),
            GameFilter {
                from: day,
                to: day,
                ..GameFilter::default()
            },
            GameFilter {
                color: Some(Color::White),
                opponent: Some("b".into()),
                from: day,
                ..player("a")
            },
        ] {
            assert!(!light.scans(), "{light:?}");
        }
        for heavy in [
            GameFilter {
                result: Some("0".into()),
                ..GameFilter::default()
            },
            GameFilter {
                komi: Some(HalfPoints(199)),
                ..player("a")
            },
            GameFilter {
                opponent: Some("b".into()),
                ..GameFilter::default()
            },
            GameFilter {
                color: Some(Color::Black),
                ..GameFilter::default()
            },
            GameFilter {
                size: Some(19),
                ..GameFilter::default()
            },
        ] {
            assert!(heavy.scans(), "{heavy:?}");
        }
        // Counts: those the import keeps and a player's read no scan.
        let kept = GameFilter {
            kind: Some(GameKind::Go),
            size: Some(19),
            ..GameFilter::default()
        };
        assert!(!kept.count_scans() && !kept.scans());
        let kaomi = GameFilter {
            kind: Some(GameKind::Kaomi),
            ..GameFilter::default()
        };
        assert!(kaomi.count_scans() && !kaomi.scans());
        assert!(!player("a").count_scans());
        let dates = GameFilter {
            from: day,
            ..GameFilter::default()
        };
        assert!(dates.count_scans() && !dates.scans());
    }

    #[test]
    fn cursor_round_trips_and_refuses_garbage() {
        for s in ["2019-12-08~42", "~7"] {
            assert_eq!(s.parse::<Cursor>().unwrap().to_string(), s);
        }
        for s in [
            "",
            "42",
            "2019-13-01~4",
            "2019-12-08~x",
            "2019-12-32~4",
            "2019-1-8~3",
            "2019-12-08~+3",
            "~0",
            "~9223372036854775808",
        ] {
            assert!(s.parse::<Cursor>().is_err(), "{s}");
        }
        // A day past its month's end is kept: it sorts as its text does.
        assert_eq!("2019-02-30~3".parse::<Cursor>().unwrap().date, "2019-02-30");
        for s in ["20191208-42", "0-1"] {
            assert_eq!(s.parse::<HitCursor>().unwrap().to_string(), s);
        }
        for s in [
            "",
            "1",
            "1-",
            "-1",
            "x-1",
            "1-2-3",
            "4294967296-1",
            "1~2",
            "+1-2",
        ] {
            assert!(s.parse::<HitCursor>().is_err(), "{s}");
        }
        // A refusal quotes at most the start of a long cursor.
        let long = format!("{}~1", "9".repeat(100_000));
        let e = long.parse::<Cursor>().unwrap_err().to_string();
        assert!(e.len() < 200, "{e}");
    }

    #[test]
    fn status_codes_round_trip() {
        for s in GameStatus::ALL {
            assert_eq!(s.code().parse::<GameStatus>().unwrap(), s);
        }
        assert!("invalid".parse::<GameStatus>().is_err());
    }
}
