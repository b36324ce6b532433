//! The query parameters of the API's requests: game filters, the game list,
//! pattern, position, player and text searches.

use serde::Deserialize;
use utoipa::IntoParams;

/// The game filters of `GET /api/v1/games`, shared by the searches that
/// filter games (`GET /api/v1/patterns`).
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct GameFilterQuery {
    /// A player of the game (case and accents ignored): every person the
    /// name answers to (a spelling or alias of theirs; one word also a
    /// whole word of their names: `Shusaku` is `Honinbo Shusaku` and the
    /// account `Shusaku`, and the list's `named` says so), or `#ID` the
    /// player with this id alone.
    pub player: Option<String>,
    /// The colour `player` had: `B` or `W`.
    #[param(value_type = Option<String>, pattern = r"^\s*([Bb]|[Ww]|[Bb][Ll][Aa][Cc][Kk]|[Ww][Hh][Ii][Tt][Ee])?\s*$")]
    pub color: Option<String>,
    /// The opponent of `player` (without `player`: either player), named
    /// as `player` is.
    pub opponent: Option<String>,
    /// A part of the event's name (case and accents ignored: `uec` finds
    /// `第10期UEC杯…`).
    pub event: Option<String>,
    /// Games on or after this day (`YYYY-MM-DD`).
    #[param(value_type = Option<String>, pattern = r"^\s*([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))?\s*$")]
    pub from: Option<String>,
    /// Games on or before this day (`YYYY-MM-DD`).
    #[param(value_type = Option<String>, pattern = r"^\s*([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))?\s*$")]
    pub to: Option<String>,
    /// The result, in any of the forms go-rules.md reads (`W+R`,
    /// `W+Resign`, `B+3.5`, `0`, `Draw`, `Jigo`, `Void`, `?`; any case),
    /// matched as the archive normalises it: `w+resign` finds `W+R`.
    pub result: Option<String>,
    /// The winner: `B` or `W`.
    #[param(value_type = Option<String>, pattern = r"^\s*([Bb]|[Ww]|[Bb][Ll][Aa][Cc][Kk]|[Ww][Hh][Ii][Tt][Ee])?\s*$")]
    pub winner: Option<String>,
    /// Kaomi: the variant, `standard` or `squared` (only Kaomi games
    /// pass).
    #[param(value_type = Option<String>, pattern = r"^\s*([Ss][Tt][Aa][Nn][Dd][Aa][Rr][Dd]|[Ss][Qq][Uu][Aa][Rr][Ee][Dd])?\s*$")]
    pub variant: Option<String>,
    /// The ruleset (`Keil`, `Keil; button=off`, ...).
    #[param(value_type = Option<String>, pattern = r"^(\s*|[\s;,]*[Kk][Ee][Ii][Ll]([\s;,]+([Ll][Ii][Nn][Kk][Ii][Nn][Gg]=([Ss][Aa][Mm][Ee]-[Tt][Yy][Pp][Ee]|[Uu][Nn][Oo][Pp][Pp][Oo][Ss][Ee][Dd])|[Bb][Uu][Tt][Tt][Oo][Nn]=([Oo][Nn]|[Oo][Ff][Ff])|[Kk][Oo]=([Kk][Ee][Ii][Ll]|[Kk][Ee][Ee])))*[\s;,]*)$")]
    pub ruleset: Option<String>,
    /// The status: `complete`, `resigned`, `time`, `forfeit`, `unfinished`.
    #[param(value_type = Option<String>, pattern = r"^\s*([Cc][Oo][Mm][Pp][Ll][Ee][Tt][Ee]|[Rr][Ee][Ss][Ii][Gg][Nn][Ee][Dd]|[Tt][Ii][Mm][Ee]|[Ff][Oo][Rr][Ff][Ee][Ii][Tt]|[Ss][Cc][Oo][Rr][Ee][Dd]|[Uu][Nn][Ff][Ii][Nn][Ii][Ss][Hh][Ee][Dd])?\s*$")]
    pub status: Option<String>,
    /// Both players at least this rank: `30k`…`1k`, `1d`…`9d`, `1p`…`9p`
    /// (ordered kyu < dan < pro; a player without a rank fails).
    #[param(value_type = Option<String>, pattern = r"^\s*((30|[12][0-9]|[1-9])[Kk]|[1-9][DdPp])?\s*$")]
    pub min_rank: Option<String>,
    /// Both players at most this rank (as `min_rank`).
    #[param(value_type = Option<String>, pattern = r"^\s*((30|[12][0-9]|[1-9])[Kk]|[1-9][DdPp])?\s*$")]
    pub max_rank: Option<String>,
    /// Go's handicap exactly (`HA`: 0 for even games, 2 to 9 stones).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([0-9]{1,2}|1[0-9]{2}|2[0-4][0-9]|25[0-5]))?\s*$")]
    pub handicap: Option<String>,
    /// Komi exactly, in points and halves (`6.5`, `7.5`, `0`, `-0.5`),
    /// at most 999.5 either way.
    #[param(value_type = Option<String>, pattern = r"^\s*([+-]?(0*[0-9]{1,3}(\.(0*|50*))?|\.(0+|50*)))?\s*$")]
    pub komi: Option<String>,
    /// The collection, by its name exactly (`GET /api/v1/collections`
    /// lists them; `keil import --collection`), at most 100 characters.
    pub collection: Option<String>,
}

/// The explorer's options of a position or pattern search (Kombilo's
/// search options, lichess's explorer lists): move limit, next move,
/// history, top and recent games.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExploreQuery {
    /// Only matches at or before this ply (the position or pattern stood
    /// after at most this many moves; Kombilo's move limit), 0 to 100000.
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([0-9]{1,5}|100000))?\s*$")]
    pub move_limit: Option<String>,
    /// `B` or `W`: only continuations of that colour count (Kombilo's
    /// "next move"): a position's player to move; a pattern's hits whose
    /// next move in the region is that colour's, in the pattern's colours.
    #[param(value_type = Option<String>, pattern = r"^\s*([Bb]|[Ww]|[Bb][Ll][Aa][Cc][Kk]|[Ww][Hh][Ii][Tt][Ee])?\s*$")]
    pub next: Option<String>,
    /// `true`: per-year counts (`{year, games, black_wins, white_wins}`,
    /// undated games with `year` null) for the answer and each
    /// continuation (default `false`).
    #[param(value_type = Option<String>, pattern = r"^\s*(true|false|1|0|yes|no)?\s*$")]
    pub history: Option<String>,
    /// List this many games whose weaker player ranks highest (0 to 100,
    /// default 0).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([0-9]{1,2}|100))?\s*$")]
    pub top_games: Option<String>,
    /// Pattern search: `true` searches the variations too (Kombilo's
    /// option; default `false`): every record of the board is read, so the
    /// search's time grows with the archive; a game whose first match is in
    /// a variation says its path (`variation`). A position search refuses
    /// `true` with a 400 (its index holds main lines only).
    #[param(value_type = Option<String>, pattern = r"^\s*(true|false|1|0|yes|no)?\s*$")]
    pub variations: Option<String>,
    /// List this many of the latest games (0 to 100, default 0).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([0-9]{1,2}|100))?\s*$")]
    pub recent_games: Option<String>,
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
    #[param(value_type = Option<String>, pattern = r"^\s*([Kk][Ee][Ii][Ll]|[Gg][Oo]|[Kk][Aa][Oo][Mm][Ii])?\s*$")]
    pub kind: Option<String>,
    /// The board size: the hexagon's side (Keil), the square's side (Go);
    /// without `kind`, of any kind.
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([0-9]{1,2}|1[0-9]{2}|2[0-4][0-9]|25[0-5]))?\s*$")]
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
    #[param(value_type = Option<String>, pattern = r"^\s*(asc|desc)?\s*$")]
    pub order: Option<String>,
    /// Games per page, 1 to 1000 (default 50).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([1-9][0-9]{0,2}|1000))?\s*$")]
    pub limit: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(value_type = Option<String>, pattern = r"^\s*(([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))?~0*[0-9]{1,18})?\s*$")]
    pub cursor: Option<String>,
    /// The `prev_cursor` of the next page: the games just before it, in
    /// the same order (used when `cursor` is absent).
    #[param(value_type = Option<String>, pattern = r"^\s*(([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))?~0*[0-9]{1,18})?\s*$")]
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
    /// .:g8`. The points given are the region searched; in corner and
    /// side mode, stones alone (no other cell) stand for the smallest
    /// region holding them that reaches the nearest corner (or edge), its
    /// other points empty: `X:dd O:cf` is the 4-4 stone and the knight's
    /// approach with the corner empty.
    #[param(required = true, min_length = 1, pattern = r"\S")]
    pub pattern: Option<String>,
    /// The game of the pattern's board: `go` (the default), `keil` or
    /// `kaomi`.
    #[param(value_type = Option<String>, pattern = r"^\s*([Kk][Ee][Ii][Ll]|[Gg][Oo]|[Kk][Aa][Oo][Mm][Ii])?\s*$")]
    pub kind: Option<String>,
    /// The board size (default the kind's usual: Go 19, Keil side 7,
    /// Kaomi 7). Only games on that board are searched.
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([2-9]|1[0-9]|2[0-5]))?\s*$")]
    pub size: Option<String>,
    /// Where the pattern may be placed: `anywhere` (the default), `corner`
    /// (in the corner it is drawn in), `side` (sliding along the one edge
    /// it touches), `centre` (touching no edge), `fixed` (exactly where
    /// drawn) or `auto` (the mode the pattern suggests: a drawn region's
    /// edges; stones alone near a corner are a corner pattern, near one
    /// edge a side pattern, else centre).
    #[param(value_type = Option<String>, pattern = r"^\s*(fixed|corner|side|centre|center|anywhere|auto)?\s*$")]
    pub mode: Option<String>,
    /// Whether the board's symmetric images of the pattern match too (8
    /// on the square, 12 on the hexagon; `true`/`false`, default `true`).
    #[param(value_type = Option<String>, pattern = r"^\s*(true|false|1|0|yes|no)?\s*$")]
    pub symmetry: Option<String>,
    /// `swap` (the default): also match with black and white exchanged
    /// (continuations are counted in the pattern's colours); `same`: only
    /// as drawn.
    #[param(value_type = Option<String>, pattern = r"^\s*(same|swap)?\s*$")]
    pub colors: Option<String>,
    /// Games per page, 1 to 1000 (default 20; statistics cover every
    /// match).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([1-9][0-9]{0,2}|1000))?\s*$")]
    pub limit: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(value_type = Option<String>, pattern = r"^\s*(0*[0-9]{1,9}-0*[0-9]{1,9})?\s*$")]
    pub cursor: Option<String>,
    /// The game filters.
    #[serde(flatten)]
    #[param(ignore)]
    pub filter: GameFilterQuery,
    /// The explorer's options.
    #[serde(flatten)]
    #[param(ignore)]
    pub explore: ExploreQuery,
}

/// `GET /api/v1/players` query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PlayersQuery {
    /// The name or part of it (case and accents ignored; prefixes and small
    /// misspellings match).
    #[param(required = true, min_length = 1, pattern = r"\S")]
    pub q: Option<String>,
    /// At most this many players, 1 to 100 (default 20).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([1-9][0-9]?|100))?\s*$")]
    pub limit: Option<String>,
}

/// `DELETE /api/v1/games/{id}` query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RemoveQuery {
    /// Why the game is removed (kept in the removal log), at most 200
    /// bytes.
    pub reason: Option<String>,
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
    /// and 64 words; a query with no word finds nothing. A four-digit
    /// year from 1600 to 2100 among other words (`Shusaku 1846`) is not
    /// searched: it keeps the games of that year (several years: of any
    /// of them); `event:1846` searches it as a word.
    #[param(required = true, min_length = 1, pattern = r"\S")]
    pub q: Option<String>,
    /// At most this many games, 1 to 100 (default 20).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([1-9][0-9]?|100))?\s*$")]
    pub limit: Option<String>,
    /// The next page: the `next` value of the page before (the games
    /// after it, in the same order); absent for the first page.
    #[param(value_type = Option<String>, pattern = r"^\s*([0-9a-fA-F]{8}-[0-9]{1,19})?\s*$")]
    pub after: Option<String>,
}

/// `GET /api/v1/positions` query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PositionsQuery {
    /// The board in position notation, e.g. `7/8/9/10/11/12/6b6/12/11/10/9/8/7`,
    /// with optional suffixes in any order: ` b`/` w` the player to move,
    /// ` +` the button taken, ` -` not taken. An absent suffix matches
    /// either value. Required unless `play` is given.
    #[param(min_length = 1, pattern = r"\S")]
    pub position: Option<String>,
    /// Instead of `position`: a line of moves from the empty board of
    /// `kind` (required) and `size` (default: the kind's), comma-separated,
    /// each a point as records write it (`pd`, `g7`) or as Go players do
    /// (`Q16`), or `pass`, `button`, `swap`; at most 1,000. The answer is
    /// that of `position=` with the board after the line (captures applied)
    /// and the player to move.
    pub play: Option<String>,
    /// With `play`: the board size (Keil: the side; Go and Kaomi: the
    /// lines), default the kind's usual one.
    #[param(value_type = Option<String>, pattern = r"^\s*([0-9]{1,2})?\s*$")]
    pub size: Option<String>,
    /// The game of the position: `keil` (column notation) or `go` (row
    /// notation, e.g. `9/9/2b6/9/4w4/9/9/9/9 b`). When absent, inferred
    /// from the notation: Keil's columns have different lengths and Go's
    /// rows all have the same, so no notation reads as both.
    #[param(value_type = Option<String>, pattern = r"^\s*([Kk][Ee][Ii][Ll]|[Gg][Oo]|[Kk][Aa][Oo][Mm][Ii])?\s*$")]
    pub kind: Option<String>,
    /// Whether the symmetric images match too (12 on Keil's hexagon, 8 on
    /// Go's square; `true`/`false`, default `false`).
    #[param(value_type = Option<String>, pattern = r"^\s*(true|false|1|0|yes|no)?\s*$")]
    pub symmetry: Option<String>,
    /// `swap`: also match the position with colours exchanged (and the
    /// player to move exchanged); `same` (the default): only as given.
    #[param(value_type = Option<String>, pattern = r"^\s*(same|swap)?\s*$")]
    pub colors: Option<String>,
    /// Games per page, 1 to 1000 (default 20).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([1-9][0-9]{0,2}|1000))?\s*$")]
    pub limit: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(value_type = Option<String>, pattern = r"^\s*(0*[0-9]{1,9}-0*[0-9]{1,9})?\s*$")]
    pub cursor: Option<String>,
    /// The game filters (as `GET /api/v1/games`).
    #[serde(flatten)]
    #[param(ignore)]
    pub filter: GameFilterQuery,
    /// The explorer's options.
    #[serde(flatten)]
    #[param(ignore)]
    pub explore: ExploreQuery,
}
