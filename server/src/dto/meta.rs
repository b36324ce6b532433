//! The answers of full-text search, the archive's statistics and the
//! health check.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::GameDto;

/// A full-text match.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TextHitDto {
    /// Relevance (BM25; higher is better).
    pub score: f32,
    /// The game.
    pub game: GameDto,
    /// Where the game has the query's words: each field that has some,
    /// the field with most of the words first (then players, event,
    /// place, name, comment). Of the comments, the one with most of the
    /// words (the first along the main line, then in the variations),
    /// then those with words no match before them shows, up to 3.
    /// Empty only when the stored record no longer reads.
    pub matches: Vec<TextMatchDto>,
}

/// Where a game has the query's words: one field.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TextMatchDto {
    /// `player` (the players' names and teams), `event`, `place`, `name`
    /// (the game name) or `comment`.
    #[schema(pattern = "^(player|event|place|name|comment)$")]
    pub field: String,
    /// The field's text around the words (about 200 characters at most,
    /// `…` where it is cut, line breaks as spaces), in pieces in order:
    /// joined, they are the excerpt; `marked` pieces are the query's
    /// words. Plain text: escape it where it is shown.
    pub excerpt: Vec<SegmentDto>,
    /// For a comment: the ply of its node, the moves played from the
    /// start through it along its line (the game comment `GC` and the
    /// root's: 0). The viewer shows it at `/games/{id}?ply={ply}`, with
    /// `&var={variation}` when `variation` is given.
    #[schema(minimum = 0)]
    pub ply: Option<u32>,
    /// For a comment in a variation: the variation's number (1-based, as
    /// the viewer's `var` takes it), `ply` counted along it; absent on
    /// the main line.
    #[schema(minimum = 1)]
    pub variation: Option<u32>,
    /// How many of the query's words (a phrase counts as one) the field
    /// has.
    pub words: u32,
}

/// A piece of an excerpt.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SegmentDto {
    /// The text.
    pub text: String,
    /// Whether it is one of the query's words (a page marks it).
    pub marked: bool,
}

/// Full-text search results: one page.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SearchDto {
    /// Best first (by score, then by game id).
    pub hits: Vec<TextHitDto>,
    /// How many games the query finds, on every page.
    pub total: u64,
    /// The next page's `after` value; absent on the last page.
    pub next: Option<String>,
    /// The years of the query read as a date filter (the games of any of
    /// them are kept) rather than searched as words.
    pub years: Vec<u16>,
}

impl From<keil_archive::TextMatch> for TextMatchDto {
    fn from(m: keil_archive::TextMatch) -> TextMatchDto {
        TextMatchDto {
            field: m.field.name().to_string(),
            excerpt: m
                .excerpt
                .segments()
                .into_iter()
                .map(|(text, marked)| SegmentDto {
                    text: text.to_string(),
                    marked,
                })
                .collect(),
            ply: m.node.map(|n| n.ply),
            variation: m.node.and_then(|n| n.variation),
            words: u32::try_from(m.words).unwrap_or(u32::MAX),
        }
    }
}

impl From<keil_archive::TextResults> for SearchDto {
    fn from(r: keil_archive::TextResults) -> SearchDto {
        SearchDto {
            hits: r
                .hits
                .into_iter()
                .map(|h| TextHitDto {
                    score: h.score,
                    game: h.game.into(),
                    matches: h.matches.into_iter().map(TextMatchDto::from).collect(),
                })
                .collect(),
            total: r.total,
            next: r.next.map(|c| c.to_string()),
            years: r.years,
        }
    }
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
    /// Refusals logged over all imports: one a refused game tree (the same
    /// record refused twice counts twice).
    pub refused: u64,
    /// Refused records kept (`GET /api/v1/refused`): each record once.
    pub refused_records: u64,
    /// Games removed by the operator (`DELETE /api/v1/games/{id}`,
    /// `keil remove`).
    pub removed: u64,
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

/// One collection of the archive.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct CollectionDto {
    /// Its name: what `collection=` takes.
    pub name: String,
    /// Its stored games.
    pub games: u64,
    /// The year of its first dated game (null: none is dated).
    pub first_year: Option<u16>,
    /// The year of its last dated game.
    pub last_year: Option<u16>,
    /// The lowest rank a player of its games has (`15k`), null when
    /// nobody is ranked.
    pub lowest_rank: Option<String>,
    /// The highest rank a player of its games has (`9d`).
    pub highest_rank: Option<String>,
    /// Of its games, those both of whose players are ranked.
    pub ranked_games: u64,
}

impl From<keil_archive::CollectionSummary> for CollectionDto {
    fn from(c: keil_archive::CollectionSummary) -> CollectionDto {
        CollectionDto {
            name: c.name,
            games: c.games,
            first_year: c.first_year,
            last_year: c.last_year,
            lowest_rank: c.lowest_rank.map(|r| r.to_string()),
            highest_rank: c.highest_rank.map(|r| r.to_string()),
            ranked_games: c.ranked_games,
        }
    }
}

/// `GET /api/v1/collections`: the archive's collections, most games
/// first.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct CollectionsDto {
    /// The collections.
    pub collections: Vec<CollectionDto>,
}
