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
