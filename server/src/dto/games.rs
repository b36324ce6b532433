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
