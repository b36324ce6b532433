//! The answers of position and pattern searches: continuation
//! statistics and the matching games.

use keil_archive::GameId;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One year of a search's history: the games (a pattern continuation's:
/// hits) of that year and who won them, in the query's colours.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct YearCountDto {
    /// The year; `null` for undated games (listed last).
    pub year: Option<u16>,
    /// Games (pattern continuations: hits) of that year.
    pub games: u64,
    /// Of those, won by the player of the query's black stones.
    pub black_wins: u64,
    /// Of those, won by the player of the query's white stones.
    pub white_wins: u64,
}

/// The games of one collection among a search's or a player's.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct CollectionCountDto {
    /// The collection's name.
    pub name: String,
    /// Its games.
    pub games: u64,
}

impl From<keil_archive::CollectionCount> for CollectionCountDto {
    fn from(c: keil_archive::CollectionCount) -> CollectionCountDto {
        CollectionCountDto {
            name: c.name,
            games: c.games,
        }
    }
}

/// A history as the API writes it (`None` when not asked for).
pub(crate) fn history_dto(h: Option<Vec<keil_archive::YearCount>>) -> Option<Vec<YearCountDto>> {
    h.map(|years| {
        years
            .into_iter()
            .map(|y| YearCountDto {
                year: y.year,
                games: y.games,
                black_wins: y.black_wins,
                white_wins: y.white_wins,
            })
            .collect()
    })
}

/// A move played from the searched position, over all matching games.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ContinuationDto {
    /// `g7`, `pass`, `button`, or `end` when games ended here.
    #[serde(rename = "move")]
    pub mv: String,
    /// The player to move in the matched position (who played it): `B` or
    /// `W`. Continuations are counted per matched position.
    pub to_move: String,
    /// Keil only: whether the button had been taken in the matched
    /// position (absent for Go and Kaomi, which have no button).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button_taken: Option<bool>,
    /// Games that played it.
    pub games: u64,
    /// Of those, won by Black.
    pub black_wins: u64,
    /// Of those, won by White.
    pub white_wins: u64,
    /// Share of all matching games, 0 to 1.
    pub share: f64,
    /// With `history=true`: `games` by year.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<YearCountDto>>,
}

/// What every search's hit says of its game: the date, the players, their
/// ranks and the result (the last fields of a position or pattern
/// search's game).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct GameHitRow {
    /// The date as the record wrote it (`1846-09-11`, `1849`), or empty.
    pub date: String,
    /// Black's name.
    pub black: Option<String>,
    /// White's name.
    pub white: Option<String>,
    /// Black's rank (`7d`; else `BR` as written; `null` for none).
    pub black_rank: Option<String>,
    /// White's rank, as `black_rank`.
    pub white_rank: Option<String>,
    /// The result.
    pub result: Option<String>,
    /// The game's collection.
    pub collection: Option<String>,
}

impl From<keil_archive::HitDetails> for GameHitRow {
    /// The archive's game header of a hit, as the API writes it.
    fn from(h: keil_archive::HitDetails) -> GameHitRow {
        GameHitRow {
            date: h.date,
            black: h.black,
            white: h.white,
            black_rank: h.black_rank,
            white_rank: h.white_rank,
            result: h.result,
            collection: h.collection,
        }
    }
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
    /// Keil only: whether the button had been taken in the matched
    /// position (absent for Go and Kaomi, which have no button).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button_taken: Option<bool>,
    /// The game's date, players, ranks and result.
    #[serde(flatten)]
    pub game: GameHitRow,
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
    /// With `history=true`: `total_games` by year (they add up to it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<YearCountDto>>,
    /// With `history=true`: `total_games` by collection, most games first
    /// (games in no collection left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collections: Option<Vec<CollectionCountDto>>,
    /// One page of the games, newest first.
    pub games: Vec<PositionGameDto>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
    /// `top_games` games whose weaker player ranks highest, highest first
    /// (games without both ranks are not among them).
    pub top_games: Vec<PositionGameDto>,
    /// `recent_games` latest games, newest first.
    pub recent_games: Vec<PositionGameDto>,
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
    /// With `history=true`: the hits of both colours here by year.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<YearCountDto>>,
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
    /// With `variations=true`, when the first match is in a variation: its
    /// number, 1-based in the record's order (the game viewer's `var`:
    /// `/games/{id}?ply={ply}&var={variation}`); `node` and `ply` are then
    /// the variation's. Absent for the main line.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub variation: Option<u32>,
    /// The game's date, players, ranks and result.
    #[serde(flatten)]
    pub game: GameHitRow,
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
            variation: h.variation,
            game: h.game.into(),
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
    /// With `history=true`: `total_games` by year (they add up to it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<YearCountDto>>,
    /// With `history=true`: `total_games` by collection, most games first
    /// (games in no collection left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collections: Option<Vec<CollectionCountDto>>,
    /// One page of the games, newest first.
    pub games: Vec<PatternGameDto>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
    /// `top_games` games whose weaker player ranks highest, highest first
    /// (games without both ranks are not among them).
    pub top_games: Vec<PatternGameDto>,
    /// `recent_games` latest games, newest first.
    pub recent_games: Vec<PatternGameDto>,
}
