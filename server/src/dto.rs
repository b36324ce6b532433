//! Request and response types of the API: the JSON shapes, separate from
//! keil-archive's domain types (colours as `B`/`W`, half-points as numbers,
//! cursors as strings), with their OpenAPI schemas.

use std::collections::BTreeMap;

use keil_archive::{GameId, GameSummary, MatchKind, PlayerHit, PlayerId, PlayerProfile};
use keil_rules::{Color, HalfPoints};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// `B` or `W`.
pub(crate) fn color_code(c: Color) -> String {
    c.letter().to_string()
}

/// Half-points as a JSON number of points: `6` or `6.5`.
pub(crate) fn points(h: HalfPoints) -> f64 {
    h.as_f64()
}

// ---- queries -------------------------------------------------------------

/// The game filters of `GET /api/v1/games`, shared by the searches that
/// filter games (`GET /api/v1/patterns`).
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct GameFilterQuery {
    /// A player of the game (case and accents ignored).
    #[param(max_length = 200)]
    pub player: Option<String>,
    /// The colour `player` had: `B` or `W`.
    #[param(value_type = Option<String>, pattern = r"^\s*([Bb]|[Ww]|[Bb][Ll][Aa][Cc][Kk]|[Ww][Hh][Ii][Tt][Ee])?\s*$", max_length = 200)]
    pub color: Option<String>,
    /// The opponent of `player` (without `player`: either player).
    #[param(max_length = 200)]
    pub opponent: Option<String>,
    /// A part of the event's name (case and accents ignored: `uec` finds
    /// `第10期UEC杯…`).
    #[param(max_length = 200)]
    pub event: Option<String>,
    /// Games on or after this day (`YYYY-MM-DD`).
    #[param(value_type = Option<String>, pattern = r"^\s*([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))?\s*$", max_length = 200)]
    pub from: Option<String>,
    /// Games on or before this day (`YYYY-MM-DD`).
    #[param(value_type = Option<String>, pattern = r"^\s*([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))?\s*$", max_length = 200)]
    pub to: Option<String>,
    /// The result as normalised (`B+R`, `W+3.5`, `0`).
    #[param(max_length = 200)]
    pub result: Option<String>,
    /// The winner: `B` or `W`.
    #[param(value_type = Option<String>, pattern = r"^\s*([Bb]|[Ww]|[Bb][Ll][Aa][Cc][Kk]|[Ww][Hh][Ii][Tt][Ee])?\s*$", max_length = 200)]
    pub winner: Option<String>,
    /// Kaomi: the variant, `standard` or `squared` (only Kaomi games
    /// pass).
    #[param(value_type = Option<String>, pattern = r"^\s*([Ss][Tt][Aa][Nn][Dd][Aa][Rr][Dd]|[Ss][Qq][Uu][Aa][Rr][Ee][Dd])?\s*$", max_length = 200)]
    pub variant: Option<String>,
    /// The ruleset (`Keil`, `Keil; button=off`, ...).
    #[param(value_type = Option<String>, pattern = r"^(\s*|[\s;,]*[Kk][Ee][Ii][Ll]([\s;,]+([Ll][Ii][Nn][Kk][Ii][Nn][Gg]=([Ss][Aa][Mm][Ee]-[Tt][Yy][Pp][Ee]|[Uu][Nn][Oo][Pp][Pp][Oo][Ss][Ee][Dd])|[Bb][Uu][Tt][Tt][Oo][Nn]=([Oo][Nn]|[Oo][Ff][Ff])|[Kk][Oo]=([Kk][Ee][Ii][Ll]|[Kk][Ee][Ee])))*[\s;,]*)$", max_length = 200)]
    pub ruleset: Option<String>,
    /// The status: `complete`, `resigned`, `time`, `forfeit`, `unfinished`.
    #[param(value_type = Option<String>, pattern = r"^\s*([Cc][Oo][Mm][Pp][Ll][Ee][Tt][Ee]|[Rr][Ee][Ss][Ii][Gg][Nn][Ee][Dd]|[Tt][Ii][Mm][Ee]|[Ff][Oo][Rr][Ff][Ee][Ii][Tt]|[Ss][Cc][Oo][Rr][Ee][Dd]|[Uu][Nn][Ff][Ii][Nn][Ii][Ss][Hh][Ee][Dd])?\s*$", max_length = 200)]
    pub status: Option<String>,
    /// Both players at least this rank: `30k`…`1k`, `1d`…`9d`, `1p`…`9p`
    /// (ordered kyu < dan < pro; a player without a rank fails).
    #[param(value_type = Option<String>, pattern = r"^\s*((30|[12][0-9]|[1-9])[Kk]|[1-9][DdPp])?\s*$", max_length = 200)]
    pub min_rank: Option<String>,
    /// Both players at most this rank (as `min_rank`).
    #[param(value_type = Option<String>, pattern = r"^\s*((30|[12][0-9]|[1-9])[Kk]|[1-9][DdPp])?\s*$", max_length = 200)]
    pub max_rank: Option<String>,
}

/// The games a list (`GET /api/v1/games`) or a bulk download
/// (`GET /api/v1/games.sgf`, `.zip`) selects: the filters
/// ([`GameFilterQuery`]), the kind and the board size.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SelectionQuery {
    /// The filters.
    #[serde(flatten)]
    #[param(ignore)]
    pub filter: GameFilterQuery,
    /// The game: `keil`, `go` or `kaomi`.
    #[param(value_type = Option<String>, pattern = r"^\s*([Kk][Ee][Ii][Ll]|[Gg][Oo]|[Kk][Aa][Oo][Mm][Ii])?\s*$", max_length = 200)]
    pub kind: Option<String>,
    /// The board size: the hexagon's side (Keil), the square's side (Go);
    /// without `kind`, of any kind.
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([0-9]{1,2}|1[0-9]{2}|2[0-4][0-9]|25[0-5]))?\s*$", max_length = 200)]
    pub size: Option<String>,
}

/// Order and page of `GET /api/v1/games` (the games it selects are
/// [`SelectionQuery`]).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct GamesQuery {
    /// The games selected.
    #[serde(flatten)]
    #[param(ignore)]
    pub selection: SelectionQuery,
    /// `desc` (newest first, the default) or `asc`.
    #[param(value_type = Option<String>, pattern = r"^\s*(asc|desc)?\s*$", max_length = 200)]
    pub order: Option<String>,
    /// Games per page, 1 to 1000 (default 50).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([1-9][0-9]{0,2}|1000))?\s*$", max_length = 200)]
    pub limit: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(value_type = Option<String>, pattern = r"^\s*(([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))?~0*[0-9]{1,18})?\s*$", max_length = 200)]
    pub cursor: Option<String>,
    /// The `prev_cursor` of the next page: the games just before it, in
    /// the same order (used when `cursor` is absent).
    #[param(value_type = Option<String>, pattern = r"^\s*(([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))?~0*[0-9]{1,18})?\s*$", max_length = 200)]
    pub before: Option<String>,
}

/// `GET /api/v1/patterns` query (with the game filters of
/// [`GameFilterQuery`]).
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PatternsQuery {
    /// The pattern, in one of two notations. Rows (square boards):
    /// `ROW/ROW/...[@POINT]`, every row as wide, cells `X` black, `O`
    /// white, `.` empty, `*` any, `x` black or empty, `o` white or empty;
    /// the top-left cell at the SGF point `POINT` (default `aa`; side mode
    /// `ba`; centre mode `bb`), e.g. `...../...../..O../...X./.....` in
    /// corner mode. Points (every board): `VALUE:POINT[,POINT...]` items
    /// separated by spaces, e.g. Go `X:dd O:cc .:cd,dc`, Keil `X:g7 O:h8
    /// .:g8`. The points given are the region searched.
    #[param(required = true, min_length = 1, max_length = 2000, pattern = r"\S")]
    pub pattern: Option<String>,
    /// The game of the pattern's board: `go` (the default), `keil` or
    /// `kaomi`.
    #[param(value_type = Option<String>, pattern = r"^\s*([Kk][Ee][Ii][Ll]|[Gg][Oo]|[Kk][Aa][Oo][Mm][Ii])?\s*$", max_length = 200)]
    pub kind: Option<String>,
    /// The board size (default the kind's usual: Go 19, Keil side 7,
    /// Kaomi 7). Only games on that board are searched.
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([2-9]|1[0-9]|2[0-5]))?\s*$", max_length = 200)]
    pub size: Option<String>,
    /// Where the pattern may be placed: `anywhere` (the default), `corner`
    /// (in the corner it is drawn in), `side` (sliding along the one edge
    /// it touches), `centre` (touching no edge) or `fixed` (exactly where
    /// drawn).
    #[param(value_type = Option<String>, pattern = r"^\s*(fixed|corner|side|centre|center|anywhere)?\s*$", max_length = 200)]
    pub mode: Option<String>,
    /// Whether the board's symmetric images of the pattern match too (8
    /// on the square, 12 on the hexagon; `true`/`false`, default `true`).
    #[param(value_type = Option<String>, pattern = r"^\s*(true|false|1|0|yes|no)?\s*$", max_length = 200)]
    pub symmetry: Option<String>,
    /// `swap` (the default): also match with black and white exchanged
    /// (continuations are counted in the pattern's colours); `same`: only
    /// as drawn.
    #[param(value_type = Option<String>, pattern = r"^\s*(same|swap)?\s*$", max_length = 200)]
    pub colors: Option<String>,
    /// Games per page, 1 to 1000 (default 20; statistics cover every
    /// match).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([1-9][0-9]{0,2}|1000))?\s*$", max_length = 200)]
    pub limit: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(value_type = Option<String>, pattern = r"^\s*(0*[0-9]{1,9}-0*[0-9]{1,9})?\s*$", max_length = 200)]
    pub cursor: Option<String>,
    /// The game filters.
    #[serde(flatten)]
    #[param(ignore)]
    pub filter: GameFilterQuery,
}

/// `GET /api/v1/players` query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PlayersQuery {
    /// The name or part of it (case and accents ignored; prefixes and small
    /// misspellings match).
    #[param(required = true, min_length = 1, max_length = 1000, pattern = r"\S")]
    pub q: Option<String>,
    /// At most this many players, 1 to 100 (default 20).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([1-9][0-9]?|100))?\s*$", max_length = 200)]
    pub limit: Option<String>,
}

/// `GET /api/v1/search` query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchQuery {
    /// Words to find in players (names, teams), events, places, game
    /// names and comments, all of them, each in any field, case and accents
    /// ignored; `"a phrase"`, `player:`, `event:`, `place:`, `name:`,
    /// `comment:` before a word or phrase for one field, `-word`
    /// to exclude. Anything else (brackets, `AND`, a lone quote, `a:b:c`)
    /// is searched as words: there is no syntax error. At most 1,000 bytes
    /// and 64 words; a query with no word finds nothing.
    #[param(required = true, min_length = 1, max_length = 1000, pattern = r"\S")]
    pub q: Option<String>,
    /// At most this many games, 1 to 100 (default 20).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([1-9][0-9]?|100))?\s*$", max_length = 200)]
    pub limit: Option<String>,
}

/// `GET /api/v1/positions` query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PositionsQuery {
    /// The board in position notation, e.g. `7/8/9/10/11/12/6b6/12/11/10/9/8/7`,
    /// with optional suffixes in any order: ` b`/` w` the player to move,
    /// ` +` the button taken, ` -` not taken. An absent suffix matches
    /// either value. Required unless `play` is given.
    #[param(min_length = 1, max_length = 2000, pattern = r"\S")]
    pub position: Option<String>,
    /// Instead of `position`: a line of moves from the empty board of
    /// `kind` (required) and `size` (default: the kind's), comma-separated,
    /// each a point as records write it (`pd`, `g7`) or as Go players do
    /// (`Q16`), or `pass`, `button`, `swap`; at most 1,000. The answer is
    /// that of `position=` with the board after the line (captures applied)
    /// and the player to move.
    #[param(max_length = 8000)]
    pub play: Option<String>,
    /// With `play`: the board size (Keil: the side; Go and Kaomi: the
    /// lines), default the kind's usual one.
    #[param(value_type = Option<String>, pattern = r"^\s*([0-9]{1,2})?\s*$", max_length = 200)]
    pub size: Option<String>,
    /// The game of the position: `keil` (column notation) or `go` (row
    /// notation, e.g. `9/9/2b6/9/4w4/9/9/9/9 b`). When absent, inferred
    /// from the notation: Keil's columns have different lengths and Go's
    /// rows all have the same, so no notation reads as both.
    #[param(value_type = Option<String>, pattern = r"^\s*([Kk][Ee][Ii][Ll]|[Gg][Oo]|[Kk][Aa][Oo][Mm][Ii])?\s*$", max_length = 200)]
    pub kind: Option<String>,
    /// Whether the symmetric images match too (12 on Keil's hexagon, 8 on
    /// Go's square; `true`/`false`, default `false`).
    #[param(value_type = Option<String>, pattern = r"^\s*(true|false|1|0|yes|no)?\s*$", max_length = 200)]
    pub symmetry: Option<String>,
    /// `swap`: also match the position with colours exchanged (and the
    /// player to move exchanged); `same` (the default): only as given.
    #[param(value_type = Option<String>, pattern = r"^\s*(same|swap)?\s*$", max_length = 200)]
    pub colors: Option<String>,
    /// Only games with this player (exact name).
    #[param(max_length = 200)]
    pub player: Option<String>,
    /// Only games on or after this day.
    #[param(value_type = Option<String>, pattern = r"^\s*([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))?\s*$", max_length = 200)]
    pub from: Option<String>,
    /// Only games on or before this day.
    #[param(value_type = Option<String>, pattern = r"^\s*([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))?\s*$", max_length = 200)]
    pub to: Option<String>,
    /// Games per page, 1 to 1000 (default 20).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([1-9][0-9]{0,2}|1000))?\s*$", max_length = 200)]
    pub limit: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(value_type = Option<String>, pattern = r"^\s*(0*[0-9]{1,9}-0*[0-9]{1,9})?\s*$", max_length = 200)]
    pub cursor: Option<String>,
}

// ---- games ---------------------------------------------------------------

/// One game's metadata.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct GameDto {
    /// The game id.
    #[schema(value_type = i64)]
    pub id: GameId,
    /// Black's name.
    pub black: Option<String>,
    /// White's name.
    pub white: Option<String>,
    /// Black's rank read from `BR` (`30k`…`1k`, `1d`…`9d`, `1p`…`9p`:
    /// `9段` is `9d`, `P9` is `9p`), null when it is no rank.
    pub black_rank: Option<String>,
    /// White's rank read from `WR`, as `black_rank`.
    pub white_rank: Option<String>,
    /// `BR` as the record wrote it.
    pub black_rank_text: Option<String>,
    /// `WR` as the record wrote it.
    pub white_rank_text: Option<String>,
    /// The date as written in the record (`2019-12-08`, `2019-12`).
    pub date: Option<String>,
    /// The event.
    pub event: Option<String>,
    /// The round.
    pub round: Option<String>,
    /// The place.
    pub place: Option<String>,
    /// The game name.
    pub game_name: Option<String>,
    /// The result as normalised (`B+3.5`, `W+R`, `0`).
    pub result: Option<String>,
    /// The winner: `B` or `W`.
    pub winner: Option<String>,
    /// The score difference in points, for counted results.
    pub margin: Option<f64>,
    /// `complete`, `resigned`, `time`, `forfeit` or `unfinished`.
    pub status: String,
    /// The game: `keil` or `go`.
    pub kind: String,
    /// The board size: the hexagon's side (Keil), the square's side (Go).
    pub size: u8,
    /// The ruleset (komi apart).
    pub ruleset: String,
    /// Komi in points.
    pub komi: f64,
    /// Plies of the main line.
    pub plies: u32,
}

impl From<GameSummary> for GameDto {
    fn from(g: GameSummary) -> GameDto {
        GameDto {
            id: g.id,
            black: g.black,
            white: g.white,
            black_rank: g.black_rank.map(|r| r.to_string()),
            white_rank: g.white_rank.map(|r| r.to_string()),
            black_rank_text: g.black_rank_text,
            white_rank_text: g.white_rank_text,
            date: g.date,
            event: g.event,
            round: g.round,
            place: g.place,
            game_name: g.game_name,
            result: g.result,
            winner: g.winner.map(color_code),
            margin: g.margin.map(points),
            status: g.status.code().to_string(),
            kind: g.kind.code().to_string(),
            size: g.size,
            ruleset: g.ruleset,
            komi: points(g.komi),
            plies: g.plies,
        }
    }
}

/// One page of games.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct GameListDto {
    /// The games, in the requested order (date, then id).
    pub games: Vec<GameDto>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
    /// Pass as `before` for the previous page; `null` on the first page.
    pub prev_cursor: Option<String>,
}

/// One game in full: metadata and main line.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct GameDetailDto {
    /// The metadata.
    #[serde(flatten)]
    pub game: GameDto,
    /// The setup position (notation with the player to move), when the
    /// record starts from one.
    pub setup: Option<String>,
    /// The main line's moves as records write them: Keil `g7`, Go SGF
    /// `dd`, `pass`, `button`, Kaomi `swap`.
    pub moves: Vec<String>,
    /// Kaomi games that reached the full board: the final groups, the pair
    /// removal and the winner's group (absent for other games).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kaomi: Option<KaomiEndDto>,
    /// The name of the upload token whose upload stored the game (the
    /// token file's name, never the token); absent for games imported
    /// locally (`keil import`) or before schema 6.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uploaded_by: Option<String>,
}

/// The end of a Kaomi game (kaomi-rules.md, "End and result", "Variant
/// Squared").
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct KaomiEndDto {
    /// `standard` or `squared`.
    pub variant: String,
    /// Group sizes of the full board, largest first.
    pub groups_black: Vec<u16>,
    /// Group sizes of the full board, largest first.
    pub groups_white: Vec<u16>,
    /// Standard: group sizes left after pair removal, largest first
    /// (`null` in Squared, which removes nothing).
    pub left_black: Option<Vec<u16>>,
    /// Standard: group sizes left after pair removal.
    pub left_white: Option<Vec<u16>>,
    /// Standard: the biggest group left; Squared: the sum of squared
    /// sizes.
    pub score_black: f64,
    /// As `score_black`, komi included in Squared.
    pub score_white: f64,
    /// `B`, `W`, or `null` for a Squared draw.
    pub winner: Option<String>,
    /// Winner's score minus loser's.
    pub margin: f64,
    /// Standard: every group was paired off and the player of the last
    /// stone lost.
    pub emptied: bool,
    /// Standard: the winner's biggest group left (the deciding group).
    pub winner_group: Option<KaomiGroupDto>,
    /// Standard: the pairs removed, in board order.
    pub removed_pairs: Vec<KaomiPairDto>,
}

/// A group of a Kaomi board.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct KaomiGroupDto {
    /// `B` or `W`.
    pub color: String,
    /// Its number of stones.
    pub size: u16,
    /// Its stones (SGF point names).
    pub points: Vec<String>,
}

/// A black and a white group of the same size, removed together.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct KaomiPairDto {
    /// The size of each group.
    pub size: u16,
    /// The black group's stones.
    pub black: Vec<String>,
    /// The white group's stones.
    pub white: Vec<String>,
}

/// A stone pushed by a Kaomi placement.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PushDto {
    /// Where it stood (SGF point name).
    pub from: String,
    /// Where it went.
    pub to: String,
}

/// A board position of a game.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PositionDto {
    /// The game id.
    #[schema(value_type = i64)]
    pub game_id: GameId,
    /// The ply after which the position stands (0: the start).
    pub ply: u32,
    /// The game's number of plies.
    pub plies: u32,
    /// The board side.
    pub size: u8,
    /// The position notation with player to move and button flag.
    pub notation: String,
    /// The player to move: `B` or `W`.
    pub to_move: String,
    /// Whether the button has been taken.
    pub button_taken: bool,
    /// Black's stones (point names).
    pub black: Vec<String>,
    /// White's stones (point names).
    pub white: Vec<String>,
    /// The move that led here (`null` at ply 0).
    pub last_move: Option<MoveDto>,
    /// Stones removed by that move.
    pub captured: Vec<String>,
    /// Stones each player has captured up to this ply.
    pub captures: CapturesDto,
    /// Kaomi: the stones that move pushed, in the order they moved
    /// (absent when none did).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moved: Vec<PushDto>,
}

/// A move of a game.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct MoveDto {
    /// Its ply (1-based).
    pub ply: u32,
    /// Who played: `B` or `W`.
    pub color: String,
    /// `g7`, `pass` or `button`.
    #[serde(rename = "move")]
    pub mv: String,
}

/// Captured stones per capturing player.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
pub struct CapturesDto {
    /// White stones Black captured.
    pub black: u32,
    /// Black stones White captured.
    pub white: u32,
}

// ---- players -------------------------------------------------------------

/// A player found by name.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PlayerHitDto {
    /// The player id.
    #[schema(value_type = i64)]
    pub id: PlayerId,
    /// The name as written in the records.
    pub name: String,
    /// Stored games.
    pub games: u64,
    /// `exact`, `prefix` or `fuzzy`.
    pub matched: String,
}

impl From<PlayerHit> for PlayerHitDto {
    fn from(h: PlayerHit) -> PlayerHitDto {
        PlayerHitDto {
            id: h.id,
            name: h.name,
            games: h.games,
            matched: match h.matched {
                MatchKind::Exact => "exact",
                MatchKind::Prefix => "prefix",
                MatchKind::Fuzzy => "fuzzy",
            }
            .to_string(),
        }
    }
}

/// Players matching a search.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PlayersDto {
    /// Best first: exact, then prefix (most games first), then fuzzy.
    pub players: Vec<PlayerHitDto>,
}

/// Games, wins and losses with one colour, or against one opponent.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RecordDto {
    /// Games.
    pub games: u64,
    /// Won.
    pub wins: u64,
    /// Lost.
    pub losses: u64,
}

/// An opponent in a profile.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct OpponentDto {
    /// The opponent's name.
    pub name: String,
    /// Games between the two.
    pub games: u64,
    /// Games the profiled player won.
    pub wins: u64,
    /// Games the profiled player lost.
    pub losses: u64,
}

/// One way a player's name is written in the records.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SpellingDto {
    /// The name as written (`PB`/`PW`).
    pub name: String,
    /// Stored games that write it so.
    pub games: u64,
}

/// A player's profile.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PlayerDto {
    /// The player id.
    #[schema(value_type = i64)]
    pub id: PlayerId,
    /// The name shown: the player's first spelling, or the name an
    /// operator's alias gave.
    pub name: String,
    /// All stored games (a game against oneself once).
    pub games: u64,
    /// Games against oneself (both colours this player: a program's
    /// self-play, or two spellings of one person): neither won nor lost.
    pub self_play: u64,
    /// The ways the name is written in the records (case, spacing,
    /// punctuation and aliases folded together), most games first.
    pub spellings: Vec<SpellingDto>,
    /// As Black.
    pub as_black: RecordDto,
    /// As White.
    pub as_white: RecordDto,
    /// Day of the earliest dated game.
    pub first_date: Option<String>,
    /// Day of the latest dated game.
    pub last_date: Option<String>,
    /// Most frequent opponents.
    pub opponents: Vec<OpponentDto>,
}

impl From<PlayerProfile> for PlayerDto {
    fn from(p: PlayerProfile) -> PlayerDto {
        let rec = |r: keil_archive::ColorRecord| RecordDto {
            games: r.games,
            wins: r.wins,
            losses: r.losses,
        };
        PlayerDto {
            id: p.id,
            name: p.name,
            games: p.games,
            self_play: p.self_play,
            spellings: p
                .spellings
                .into_iter()
                .map(|s| SpellingDto {
                    name: s.name,
                    games: s.games,
                })
                .collect(),
            as_black: rec(p.as_black),
            as_white: rec(p.as_white),
            first_date: p.first_date,
            last_date: p.last_date,
            opponents: p
                .opponents
                .into_iter()
                .map(|o| OpponentDto {
                    name: o.name,
                    games: o.games,
                    wins: o.wins,
                    losses: o.losses,
                })
                .collect(),
        }
    }
}

// ---- positions -----------------------------------------------------------

/// A move played from the searched position, over all matching games.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ContinuationDto {
    /// `g7`, `pass`, `button`, or `end` when games ended here.
    #[serde(rename = "move")]
    pub mv: String,
    /// The player to move in the matched position (who played it): `B` or
    /// `W`. Continuations are counted per matched position.
    pub to_move: String,
    /// Whether the button had been taken in the matched position.
    pub button_taken: bool,
    /// Games that played it.
    pub games: u64,
    /// Of those, won by Black.
    pub black_wins: u64,
    /// Of those, won by White.
    pub white_wins: u64,
    /// Share of all matching games, 0 to 1.
    pub share: f64,
}

/// A game that reached the searched position.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PositionGameDto {
    /// The game id.
    #[schema(value_type = i64)]
    pub id: GameId,
    /// The first ply after which the position stood (0: the start).
    pub ply: u32,
    /// The move played next, in the query's orientation.
    pub next: Option<String>,
    /// The symmetry (0..12 Keil, 0..8 Go) mapping the game's board onto
    /// the query's.
    pub symmetry: u8,
    /// Whether the game matched with colours exchanged (`colors=swap`):
    /// its Black had the query's white stones.
    pub swapped: bool,
    /// The position matched, in full, in the query's orientation and the
    /// game's colours: board, player to move (` b`/` w`) and, Keil, button
    /// flag (` +` taken, ` -` not).
    pub position: String,
    /// The player to move in the matched position: `B` or `W`.
    pub to_move: String,
    /// Whether the button had been taken in the matched position (always
    /// `false` for Go).
    pub button_taken: bool,
    /// The date, `YYYY-MM-DD` or empty.
    pub date: String,
    /// Black's name.
    pub black: Option<String>,
    /// White's name.
    pub white: Option<String>,
    /// The result.
    pub result: Option<String>,
}

/// The answer to a position search.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PositionSearchDto {
    /// The position searched, normalised: the board with the suffixes the
    /// query gave (an absent one matched either value).
    pub position: String,
    /// The game kind searched: `keil` or `go`.
    pub kind: String,
    /// Whether symmetric images were included.
    pub symmetry: bool,
    /// Whether colour-swapped positions were included.
    pub swap_colors: bool,
    /// Distinct games that reached it.
    pub total_games: u64,
    /// What was played next, most frequent first.
    pub continuations: Vec<ContinuationDto>,
    /// One page of the games, newest first.
    pub games: Vec<PositionGameDto>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

// ---- patterns ------------------------------------------------------------

/// Next moves of one colour at one point of a pattern.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct MoveStatsDto {
    /// Hits whose continuation was this colour's move here.
    pub count: u64,
    /// Of those, played 3 or more nodes after the match (after a tenuki).
    pub after_tenuki: u64,
    /// Of those, games won by the player of the pattern's black stones.
    pub black_wins: u64,
    /// Of those, games won by the player of the pattern's white stones.
    pub white_wins: u64,
}

impl From<keil_archive::MoveStats> for MoveStatsDto {
    fn from(s: keil_archive::MoveStats) -> MoveStatsDto {
        MoveStatsDto {
            count: s.count,
            after_tenuki: s.after_tenuki,
            black_wins: s.black_wins,
            white_wins: s.white_wins,
        }
    }
}

/// The continuations at one point of a pattern: the first later move
/// inside the matched region, mapped back onto the pattern as drawn.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PatternContinuationDto {
    /// The point as records write it (`dd`, `g7`), where the pattern is
    /// drawn; points the pattern's own symmetries make equivalent are
    /// counted on one of them.
    pub point: String,
    /// The point for people (Go `D16`).
    pub display: String,
    /// Its offset `[x, y]` from the pattern's top-left.
    pub offset: [u8; 2],
    /// `A` for the most played point, then `B`, ...
    pub label: String,
    /// Moves of the pattern's Black here.
    pub black: MoveStatsDto,
    /// Moves of the pattern's White here.
    pub white: MoveStatsDto,
}

/// A game in which the pattern occurs.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PatternGameDto {
    /// The game id.
    #[schema(value_type = i64)]
    pub id: GameId,
    /// The first SGF node at whose end the pattern stood (the root is 0).
    pub node: u32,
    /// The moves played by then (open the game at this ply).
    pub ply: u32,
    /// Distinct placements of the pattern that matched in this game.
    pub hits: u32,
    /// The symmetry (0..8 square, 0..12 hexagon) of the first match.
    pub symmetry: u8,
    /// Whether the first match had colours exchanged.
    pub swapped: bool,
    /// The first match's continuation as a pattern point (`null`: no move
    /// was played in the region after it).
    pub next: Option<String>,
    /// The date, `YYYY-MM-DD` or empty.
    pub date: String,
    /// Black's name.
    pub black: Option<String>,
    /// White's name.
    pub white: Option<String>,
    /// The result.
    pub result: Option<String>,
}

impl From<keil_archive::PatternHit> for PatternGameDto {
    fn from(h: keil_archive::PatternHit) -> PatternGameDto {
        PatternGameDto {
            id: h.game_id,
            node: h.node,
            ply: h.ply,
            hits: h.hits,
            symmetry: h.symmetry,
            swapped: h.swapped,
            next: h.next,
            date: h.date,
            black: h.black,
            white: h.white,
            result: h.result,
        }
    }
}

/// The answer to a pattern search.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PatternSearchDto {
    /// The pattern as searched, normalised (rows with `@POINT` when it
    /// fills a rectangle of a square board, else points).
    pub pattern: String,
    /// The game kind searched: `go`, `keil` or `kaomi`.
    pub kind: String,
    /// The board size searched.
    pub size: u8,
    /// The placement mode: `fixed`, `corner`, `side`, `centre` or
    /// `anywhere`.
    pub mode: String,
    /// Whether symmetric images were included.
    pub symmetry: bool,
    /// Whether colour-swapped matches were included.
    pub swap_colors: bool,
    /// Distinct placements of the pattern searched.
    pub placements: u32,
    /// Games in which the pattern occurs (after filters).
    pub total_games: u64,
    /// (game, distinct placement) pairs that match.
    pub total_hits: u64,
    /// Continuations, most played first.
    pub continuations: Vec<PatternContinuationDto>,
    /// One page of the games, newest first.
    pub games: Vec<PatternGameDto>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

// ---- text search, stats, health -----------------------------------------

/// A full-text match.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TextHitDto {
    /// Relevance (BM25; higher is better).
    pub score: f32,
    /// The game.
    pub game: GameDto,
}

/// Full-text search results.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SearchDto {
    /// Best first.
    pub hits: Vec<TextHitDto>,
}

/// Counts and sizes of the archive.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct StatsDto {
    /// Stored games.
    pub games: u64,
    /// Distinct players.
    pub players: u64,
    /// Import runs.
    pub imports: u64,
    /// Games refused over all imports.
    pub refused: u64,
    /// Games per status.
    pub by_status: BTreeMap<String, u64>,
    /// Games per kind (`keil`, `go`).
    pub by_kind: BTreeMap<String, u64>,
    /// Games per board side, every kind together.
    pub by_size: BTreeMap<String, u64>,
    /// Games per board: keys `kind size` (`keil 7`, `go 19`, `kaomi 7`).
    pub by_board: BTreeMap<String, u64>,
    /// Bytes on disk (SQLite and text index).
    pub bytes: u64,
}

/// The health check's answer.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct HealthDto {
    /// `ok`.
    pub status: String,
}

// ---- uploads -------------------------------------------------------------

/// What happened to one uploaded game.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct UploadVerdictDto {
    /// 0-based index of the game tree in the body.
    pub index: usize,
    /// `stored`, `duplicate`, `merged` (another record of game `id`, kept
    /// with it) or `invalid`.
    pub outcome: String,
    /// The status code this game alone would get: 201, 200 or 422.
    pub http_status: u16,
    /// The stored game's id: the new game (`stored`) or the one already
    /// in the archive (`duplicate`).
    #[schema(value_type = Option<i64>)]
    pub id: Option<GameId>,
    /// The validator's status (`complete`, `resigned`, `invalid`, ... or
    /// `error` for a record that does not read).
    pub status: String,
    /// Why the game was refused: an illegal-move reason (`occupied`,
    /// `repetition`, ...) or a record error code (`not_keil`, ...).
    pub reason: Option<String>,
    /// A sentence saying what was wrong.
    pub message: Option<String>,
    /// The 1-based ply of the first illegal move.
    pub ply: Option<u32>,
    /// The illegal move as written (`B[g7]`).
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// Line of the fault in the body (1-based).
    pub line: Option<u32>,
    /// Column of the fault in the body (1-based).
    pub column: Option<u32>,
    /// The full verdict as `keil validate --json` prints it.
    #[schema(value_type = Object)]
    pub verdict: serde_json::Value,
}

/// The answer to an upload: counts per outcome and per refusal reason, and
/// the first 100 game trees of each outcome (stored, duplicate, refused)
/// in full. Its size does not grow with the body's game trees (at most
/// 10,000 per upload, `--max-upload-games`).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct UploadDto {
    /// Game trees read from the body.
    pub trees: u64,
    /// Games newly stored.
    pub stored: u64,
    /// Valid games already in the archive.
    pub duplicates: u64,
    /// Records of games already stored, with other headers (the same game
    /// signature): kept as another source's record of that game
    /// (`outcome` `merged`, `id` the game).
    pub merged: u64,
    /// Game trees refused.
    pub invalid: u64,
    /// Refused game trees per reason code (`occupied`, `empty_record`,
    /// ...), all of them counted.
    pub reasons: std::collections::BTreeMap<String, u64>,
    /// The first 100 game trees of each outcome, in body order.
    pub games: Vec<UploadVerdictDto>,
    /// True when some game trees are not listed in `games` (more than 100
    /// of one outcome); the counts cover them.
    pub truncated: bool,
}
