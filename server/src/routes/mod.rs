//! The API's routes, listed once ([`route_table`]), and the helpers their
//! handlers share. The handlers live in one module per resource:
//! [`games`] (the list, uploads, one game and its record, full-text
//! search), [`positions`] (a game's positions as JSON and SVG, position
//! search), [`patterns`] (pattern search), [`players`] (name search and
//! profiles), [`refused`] (the refused records kept) and [`meta`]
//! (health, statistics, the OpenAPI document). Each
//! parses its parameters into archive types, runs the archive call on the
//! blocking pool and turns the answer into a response type of
//! [`crate::dto`].
//!
//! The pages are registered beside these routes by [`crate::app_config`]:
//! this module knows nothing of them.

pub mod games;
pub mod meta;
pub mod patterns;
pub mod players;
pub mod positions;
pub mod refused;

use std::sync::Arc;

use actix_web::web::{self, Data};
use keil_archive::{Archive, GameId, GameMoves};

use crate::error::ApiError;
use crate::http::entry;
use crate::params::{parse_id, parse_ply};
use crate::replay::{Replayed, replay};
use crate::state::ServerState;

pub use crate::http::RouteEntry;
pub use games::{
    get_game, get_game_record, get_record, list_games, remove_game, search_text, upload_games,
};
pub use meta::{collections, health, stats};
pub use patterns::search_patterns;
pub(crate) use players::{find_player, named_people, no_player};
pub use players::{get_player, search_players};
pub use positions::{get_position, get_position_svg, search_positions};
pub use refused::{get_refused, list_refused};

/// Every route of the API but `/openapi.json` ([`crate::openapi`], which
/// documents these; [`crate::app_config`] adds it), in matching order: the fixed paths first (the
/// router compares them as strings; each path with a `{}` segment costs a
/// regex match for every request that reaches it), position search first of
/// all; the `.svg` route before the plain position route.
pub fn route_table() -> Vec<RouteEntry> {
    vec![
        entry("GET", "/api/v1/positions", search_positions),
        entry("GET", "/api/v1/patterns", search_patterns),
        entry("GET", "/api/v1/players", search_players),
        entry("GET", "/api/v1/games", list_games),
        entry("GET", "/api/v1/games.sgf", crate::export::export_sgf),
        entry("GET", "/api/v1/games.zip", crate::export::export_zip),
        entry("POST", "/api/v1/games", upload_games),
        entry("GET", "/api/v1/search", search_text),
        entry("GET", "/api/v1/stats", stats),
        entry("GET", "/api/v1/collections", collections),
        entry("GET", "/api/v1/refused", list_refused),
        entry("GET", "/healthz", health),
        entry("GET", "/api/v1/games/{id}", get_game),
        entry("DELETE", "/api/v1/games/{id}", remove_game),
        entry("GET", "/api/v1/games/{id}/record", get_record),
        entry(
            "GET",
            "/api/v1/games/{id}/records/{record}",
            get_game_record,
        ),
        entry(
            "GET",
            "/api/v1/games/{id}/positions/{ply}.svg",
            get_position_svg,
        ),
        entry("GET", "/api/v1/games/{id}/positions/{ply}", get_position),
        entry("GET", "/api/v1/players/{name}", get_player),
        entry("GET", "/api/v1/refused/{id}", get_refused),
    ]
}

// ---- helpers ---------------------------------------------------------------

/// Runs an archive call on the blocking pool.
async fn blocking<T, F>(state: &Data<ServerState>, f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Archive) -> Result<T, ApiError> + Send + 'static,
{
    let archive = Arc::clone(&state.archive);
    web::block(move || f(&archive)).await?
}

/// The JSON of an answer, as the body of an [`crate::http::game_data`] response.
fn json_body<T: serde::Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

/// The 404 for a game id the archive does not have.
fn no_game(id: GameId) -> ApiError {
    ApiError::NotFound(format!("no game with id {id}"))
}

/// The game `id` (as the path gives it), with its parsed id.
async fn load_game(
    state: &Data<ServerState>,
    id: &str,
) -> Result<(GameId, keil_archive::Game), ApiError> {
    let id = parse_id(id)?;
    let game = blocking(state, move |a| {
        a.games().get(id)?.ok_or_else(|| no_game(id))
    })
    .await?;
    Ok((id, game))
}

/// The line of game `id` and its replay up to `ply` (as the path gives
/// them).
async fn load_replay(
    state: &Data<ServerState>,
    id: &str,
    ply: &str,
) -> Result<(GameMoves, Replayed), ApiError> {
    let id = parse_id(id)?;
    let ply = parse_ply(ply)?;
    blocking(state, move |a| {
        let line = a.games().moves(id)?.ok_or_else(|| no_game(id))?;
        let r = replay(&line, ply)?;
        Ok((line, r))
    })
    .await
}
