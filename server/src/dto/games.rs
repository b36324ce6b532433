//! The answers about games: metadata, lists, one game's detail (with
//! Kaomi's final groups) and the board after a ply.

use keil_archive::{GameId, GameSummary};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{color_code, points};

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
    /// The collection the game belongs to (`GET /api/v1/collections`);
    /// null for a game stored before collections and not labelled yet.
    pub collection: Option<String>,
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
            collection: g.collection,
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
    /// The `player` and `opponent` names that answer to several people
    /// (`Shusaku`: `Honinbo Shusaku`, the account `Shusaku`…): the list
    /// holds the games of all of them; give `#ID` to name one alone.
    /// Absent when each names one person or none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub named: Vec<super::players::NamedPeopleDto>,
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
    /// The game's records: its own first, then every other source's
    /// record that the merge rule proved to be this game (go-rules.md,
    /// "Metadata"), each with its game information and where its moves
    /// differ. `GET /api/v1/games/{id}/records/{record}` gives each.
    #[serde(default)]
    pub records: Vec<GameRecordDto>,
    /// Games with the same moves and game information of their own (a
    /// replay by other players, a relay): linked, never merged.
    #[serde(default)]
    pub similar: Vec<SimilarGameDto>,
}

/// One record of a game.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct GameRecordDto {
    /// The record's number in its game: 0 for the game's own record.
    pub record: i64,
    /// The import that read it.
    pub import_id: Option<u64>,
    /// The file or archive member it came from (null: the game's own
    /// record of an import before schema 14, which did not keep it).
    pub source: Option<String>,
    /// The index of its game tree in that file (0-based).
    pub index: Option<u64>,
    /// How it is the game: `identical`, `symmetric` (another
    /// orientation), `prefix` (cut short), `transposed` (the same moves of
    /// each colour in another order), `discrepancy` (the same players and
    /// date, a few moves differ); null for the game's own record and for a
    /// record merged by an older version and not checked yet.
    pub merge_kind: Option<String>,
    /// The board symmetry (0-7, keil-rules' order) that maps the record's
    /// points onto the game's.
    pub transform: u8,
    /// The 1-based plies where its moves differ from the game's.
    pub differs: Vec<u32>,
    /// Its game information, as it writes it: Black (`PB`).
    pub black: Option<String>,
    /// White (`PW`).
    pub white: Option<String>,
    /// The date (`DT` as written).
    pub date: Option<String>,
    /// The event (`EV`).
    pub event: Option<String>,
    /// The result (`RE` as written).
    pub result: Option<String>,
}

impl From<keil_archive::GameRecord> for GameRecordDto {
    fn from(r: keil_archive::GameRecord) -> GameRecordDto {
        GameRecordDto {
            record: r.record,
            import_id: r.import_id.map(|i| i.get()),
            source: r.source,
            index: r.index,
            merge_kind: r.merge_kind.map(|k| k.code().to_string()),
            transform: r.transform,
            differs: r.differs,
            black: r.black,
            white: r.white,
            date: r.date,
            event: r.event,
            result: r.result,
        }
    }
}

/// A game linked to another as similar.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SimilarGameDto {
    /// The other game's metadata.
    pub game: GameDto,
    /// The link's kind: `similar` (the same moves, other game
    /// information).
    pub kind: String,
    /// The symmetry that maps the points of the game with the higher id
    /// onto the other's.
    pub transform: u8,
}

impl From<keil_archive::SimilarGame> for SimilarGameDto {
    fn from(s: keil_archive::SimilarGame) -> SimilarGameDto {
        SimilarGameDto {
            game: s.game.into(),
            kind: s.kind,
            transform: s.transform,
        }
    }
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
    /// Keil only: whether the button has been taken (absent for Go and
    /// Kaomi, which have no button).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button_taken: Option<bool>,
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
