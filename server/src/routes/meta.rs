//! About the server: health, the archive's statistics and collections (the OpenAPI
//! document is served by [`crate::openapi`]).

use actix_web::HttpResponse;
use actix_web::web::Data;

use super::blocking;
use crate::dto::*;
use crate::error::ApiError;
use crate::state::ServerState;

/// Liveness: answers without touching the archive.
#[utoipa::path(get, path = "/healthz", tag = "meta",
    responses((status = 200, description = "The server is up", body = HealthDto)))]
pub async fn health() -> HttpResponse {
    HttpResponse::Ok().json(HealthDto {
        status: "ok".into(),
    })
}

/// Counts and sizes of the archive.
#[utoipa::path(get, path = "/api/v1/stats", tag = "meta",
    responses((status = 200, description = "Counts and sizes", body = StatsDto)))]
pub async fn stats(state: Data<ServerState>) -> Result<HttpResponse, ApiError> {
    let (s, removed) = blocking(&state, |a| Ok((a.stats()?, a.removed_games()?))).await?;
    Ok(HttpResponse::Ok().json(StatsDto {
        games: s.games,
        players: s.players,
        imports: s.imports,
        refused: s.refused,
        refused_records: s.refused_records,
        removed,
        by_status: s
            .by_status
            .iter()
            .map(|(st, n)| (st.code().to_string(), *n))
            .collect(),
        by_kind: s
            .by_kind
            .iter()
            .map(|(k, n)| (k.code().to_string(), *n))
            .collect(),
        by_size: s.by_board.iter().fold(
            std::collections::BTreeMap::new(),
            |mut m, (_, size, n)| {
                *m.entry(size.to_string()).or_insert(0) += n;
                m
            },
        ),
        by_board: s
            .by_board
            .iter()
            .map(|(k, size, n)| (format!("{k} {size}"), *n))
            .collect(),
        bytes: s.bytes_on_disk(),
    }))
}

/// The archive's collections (`keil import --collection`), most games
/// first: their games, years and the ranks of their players (the band a
/// collection's rank filters read).
#[utoipa::path(get, path = "/api/v1/collections", tag = "meta",
    responses((status = 200, description = "The collections", body = CollectionsDto)))]
pub async fn collections(state: Data<ServerState>) -> Result<HttpResponse, ApiError> {
    let list = blocking(&state, |a| Ok(a.games().collections()?)).await?;
    Ok(HttpResponse::Ok().json(CollectionsDto {
        collections: list.into_iter().map(CollectionDto::from).collect(),
    }))
}
