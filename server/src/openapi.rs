//! The OpenAPI 3 document, generated from the handlers' annotations and the
//! response types (utoipa), served at `GET /openapi.json`.

use std::sync::OnceLock;

use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::dto::*;
use crate::error::Problem;
use crate::routes;

/// The API description.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Keil game database",
        description = "Search and feed an archive of Keil game records: games, positions, players, full text. Errors are RFC 7807 problem documents (application/problem+json)."
    ),
    paths(
        routes::meta::health,
        openapi_json,
        routes::games::list_games,
        routes::games::upload_games,
        routes::games::remove_game,
        crate::export::export_sgf,
        crate::export::export_zip,
        routes::games::get_game,
        routes::games::get_record,
        routes::games::get_game_record,
        routes::positions::get_position_svg,
        routes::positions::get_position,
        routes::players::search_players,
        routes::players::get_player,
        routes::positions::search_positions,
        routes::patterns::search_patterns,
        routes::games::search_text,
        routes::meta::stats,
        routes::refused::list_refused,
        routes::refused::get_refused,
    ),
    components(schemas(
        Problem, GameDto, GameListDto, GameDetailDto, GameRecordDto, SimilarGameDto, PositionDto, MoveDto, CapturesDto, KaomiEndDto, KaomiGroupDto, KaomiPairDto, PushDto,
        PlayerHitDto, PlayersDto, RecordDto, OpponentDto, SpellingDto, PlayerDto, ContinuationDto, YearCountDto,
        PositionGameDto, PositionSearchDto, TextHitDto, SearchDto, StatsDto, HealthDto,
        UploadVerdictDto, UploadDto, RemovalDto, MoveStatsDto, PatternContinuationDto, PatternGameDto,
        PatternSearchDto, RefusedDto, RefusedListDto, RefusedRecordDto,
    )),
    modifiers(&BearerAuth),
    tags(
        (name = "games", description = "Games, their records and positions; uploads"),
        (name = "players", description = "Player search and profiles"),
        (name = "positions", description = "Position and pattern search with continuation statistics"),
        (name = "meta", description = "Health, statistics, this document"),
    )
)]
pub struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    }
}

/// This API's OpenAPI 3 document.
#[utoipa::path(get, path = "/openapi.json", tag = "meta",
    responses((status = 200, description = "The OpenAPI document (JSON)")))]
pub async fn openapi_json() -> actix_web::HttpResponse {
    actix_web::HttpResponse::Ok()
        .content_type("application/json")
        .body(json())
}

/// The document as JSON (built once).
pub fn json() -> String {
    static DOC: OnceLock<String> = OnceLock::new();
    DOC.get_or_init(|| ApiDoc::openapi().to_pretty_json().unwrap_or_default())
        .clone()
}
