//! The OpenAPI 3 document, generated from the handlers' annotations and the
//! response types (utoipa), served at `GET /openapi.json`.

use std::sync::OnceLock;

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::ParameterIn;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{Content, Object, Ref, RefOr, Response, ResponseBuilder, Schema, Type};
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
        routes::meta::collections,
        routes::refused::list_refused,
        routes::refused::get_refused,
    ),
    components(schemas(
        Problem, GameDto, GameListDto, GameDetailDto, GameRecordDto, SimilarGameDto, PositionDto, MoveDto, CapturesDto, KaomiEndDto, KaomiGroupDto, KaomiPairDto, PushDto,
        PlayerHitDto, PlayersDto, RecordDto, OpponentDto, SpellingDto, PlayerDto, ContinuationDto, YearCountDto,
        PersonChoiceDto, NamedPeopleDto,
        CollectionCountDto, CollectionDto, CollectionsDto,
        GameHitRow, PositionGameDto, PositionSearchDto, TextHitDto, TextMatchDto, SegmentDto, SearchDto, StatsDto, HealthDto,
        UploadVerdictDto, UploadDto, RemovalDto, MoveStatsDto, PatternContinuationDto, PatternGameDto,
        PatternSearchDto, RefusedDto, RefusedListDto, RefusedRecordDto,
    )),
    modifiers(&BearerAuth, &ServerBounds),
    tags(
        (name = "games", description = "Games, their records and positions; uploads"),
        (name = "players", description = "Player search and profiles"),
        (name = "positions", description = "Position and pattern search with continuation statistics"),
        (name = "meta", description = "Health, statistics, collections, this document"),
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

/// Adds to every operation the bounds and statuses that the layers around
/// the handlers enforce (one source for both: the same functions decide
/// them):
///
/// - each query parameter's `maxLength`: [`crate::params::limit_of`], which
///   [`crate::params::parse`] enforces (400 past it) before any handler;
/// - 414 and 431: [`crate::documents`] refuses an over-long request target
///   or over-large headers before any handler runs, on every route;
/// - 429 with `Retry-After`: [`throttle`](crate::middleware::throttle), on every route
///   that draws on a quota ([`crate::limits::Class::of`]; all but
///   `/healthz`);
/// - `Retry-After` on every 503 the handlers document (the query budget,
///   the download slots, the writer busy).
struct ServerBounds;

impl Modify for ServerBounds {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use actix_web::http::Method;
        for (path, item) in doc.paths.paths.iter_mut() {
            for (method, op) in [
                (Method::GET, &mut item.get),
                (Method::POST, &mut item.post),
                (Method::DELETE, &mut item.delete),
                (Method::PUT, &mut item.put),
            ] {
                let Some(op) = op else { continue };
                for param in op.parameters.iter_mut().flatten() {
                    if param.parameter_in == ParameterIn::Query
                        && let Some(RefOr::T(Schema::Object(o))) = &mut param.schema
                    {
                        o.max_length = Some(crate::params::limit_of(&param.name));
                    }
                }
                let responses = &mut op.responses.responses;
                let mut add = |status: &str, response: Response| {
                    responses
                        .entry(status.to_string())
                        .or_insert_with(|| response.into());
                };
                add(
                    "414",
                    problem(&format!(
                        "The request target is longer than {} bytes",
                        crate::documents::MAX_TARGET
                    )),
                );
                add(
                    "431",
                    problem(&format!(
                        "The headers are larger than {} bytes, or more than {}",
                        crate::documents::MAX_HEADER_BYTES,
                        crate::documents::MAX_HEADERS
                    )),
                );
                if let Some(class) = crate::limits::Class::of(&method, path) {
                    let what = match class {
                        crate::limits::Class::Searches => {
                            "Too many searches or downloads from this client, or too much search time"
                        }
                        crate::limits::Class::Reads => {
                            "Too many reads from this client, or too much search time (a list whose filters no index serves runs as a search)"
                        }
                        crate::limits::Class::Uploads => {
                            "Too many uploads or wrong tokens from this client"
                        }
                    };
                    responses.insert(
                        "429".into(),
                        retry_after(problem(&format!(
                            "{what}; `Retry-After` says when to ask again"
                        )))
                        .into(),
                    );
                }
                if let Some(RefOr::T(r)) = responses.get_mut("503") {
                    *r = retry_after(r.clone());
                }
            }
        }
    }
}

/// A response with an RFC 7807 problem document.
fn problem(description: &str) -> Response {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/problem+json",
            Content::new(Some(Ref::from_schema_name("Problem"))),
        )
        .build()
}

/// `response` with its `Retry-After` header (whole seconds).
fn retry_after(mut response: Response) -> Response {
    response.headers.insert(
        "Retry-After".into(),
        HeaderBuilder::new()
            .schema(Object::with_type(Type::Integer))
            .description(Some("Seconds to wait before asking again (at least 1)"))
            .build(),
    );
    response
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
