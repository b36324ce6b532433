//! The routes, listed once ([`route_table`]), and their handlers: each
//! parses its parameters into archive types, runs the archive call on the
//! blocking pool and turns the answer into a response type of [`crate::dto`].

use std::sync::Arc;

use actix_web::http::{Method, StatusCode, header};
use actix_web::web::{self, Data, ServiceConfig};
use actix_web::{FromRequest, Handler, HttpRequest, HttpResponse, Responder, Route};
use keil_archive::{Archive, GameId, GameMoves, PatternMode, PositionQuery};
use keil_rules::{Color, Move, Point};

use crate::dto::*;
use crate::error::{ApiError, Problem};
use crate::params::{
    Query, bad, day_range, games_query, nonempty, parse_colors, parse_flag, parse_id, parse_kind,
    parse_limit, parse_ply, pattern_query, required,
};
use crate::replay::{Replayed, kaomi_end, replay};
use crate::{ServerState, svg, upload, work};

/// One route: method, path (actix and OpenAPI syntax alike) and handler.
pub struct RouteEntry {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The path, e.g. `/api/v1/games/{id}`.
    pub path: &'static str,
    route: Route,
}

pub(crate) fn entry<F, Args>(method: &'static str, path: &'static str, handler: F) -> RouteEntry
where
    F: Handler<Args>,
    Args: FromRequest + 'static,
    F::Output: Responder + 'static,
{
    let m = Method::from_bytes(method.as_bytes()).expect("a valid method");
    RouteEntry {
        method,
        path,
        route: web::method(m).to(handler),
    }
}

/// Every route of the API, in matching order: the fixed paths first (the
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
        entry("GET", "/healthz", health),
        entry("GET", "/openapi.json", openapi_json),
        entry("GET", "/api/v1/games/{id}", get_game),
        entry("GET", "/api/v1/games/{id}/record", get_record),
        entry(
            "GET",
            "/api/v1/games/{id}/positions/{ply}.svg",
            get_position_svg,
        ),
        entry("GET", "/api/v1/games/{id}/positions/{ply}", get_position),
        entry("GET", "/api/v1/players/{name}", get_player),
    ]
}

/// The `(method, path)` of every route, as [`route_table`] registers them.
pub fn routes() -> Vec<(&'static str, &'static str)> {
    route_table().iter().map(|e| (e.method, e.path)).collect()
}

/// Registers the state, every route of [`route_table`] and of the pages
/// (each path's resource answers other methods 405 with `Allow`, and
/// carries its pattern for the metrics), `GET /metrics`, problem documents
/// for malformed paths (query strings are read by [`crate::params`]), and a
/// 404 for unknown paths.
pub fn app_config(state: Data<ServerState>) -> impl FnOnce(&mut ServiceConfig) {
    move |cfg: &mut ServiceConfig| {
        cfg.app_data(state).app_data(
            web::PathConfig::default()
                .error_handler(|e, _| ApiError::BadRequest(format!("path: {e}")).into()),
        );
        let metrics = entry("GET", crate::metrics::PATH, crate::metrics::serve);
        // Several methods on one path share one resource.
        let mut resources: Vec<(&'static str, Vec<&'static str>, actix_web::Resource)> = Vec::new();
        for e in route_table()
            .into_iter()
            .chain(crate::pages::page_table())
            .chain([metrics])
        {
            match resources.iter_mut().find(|(p, ..)| *p == e.path) {
                Some((_, methods, r)) => {
                    let resource = std::mem::replace(r, web::resource(e.path));
                    *r = resource.route(e.route);
                    methods.push(e.method);
                }
                None => resources.push((
                    e.path,
                    vec![e.method],
                    web::resource(e.path)
                        .app_data(crate::metrics::RoutePattern(e.path))
                        .route(e.route),
                )),
            }
        }
        for (_, methods, r) in resources {
            let allow = methods.join(", ");
            cfg.service(r.default_service(web::to(move |req: HttpRequest| {
                let allow = allow.clone();
                async move {
                    Err::<HttpResponse, _>(ApiError::MethodNotAllowed {
                        method: req.method().to_string(),
                        allow,
                    })
                }
            })));
        }
        cfg.default_service(web::to(not_found));
    }
}

/// An unknown path: 404 (a problem document, or an HTML page for a
/// browser: [`crate::documents`]).
async fn not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound(format!(
        "no route for {} {}",
        req.method(),
        req.path()
    )))
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

/// A response for immutable game data: a strong `ETag` (a hash of the body),
/// `Cache-Control: public, max-age=86400, immutable`, and 304 when the
/// client already has it.
pub(crate) fn immutable(req: &HttpRequest, content_type: &str, body: Vec<u8>) -> HttpResponse {
    let etag = format!("\"{:016x}\"", fnv1a(&body));
    let cached = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut r = if cached {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    r.insert_header((header::ETAG, etag))
        .insert_header((header::CACHE_CONTROL, "public, max-age=86400, immutable"));
    if cached {
        r.finish()
    } else {
        r.content_type(content_type.to_string()).body(body)
    }
}

fn json_body<T: serde::Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

/// 64-bit FNV-1a: stable across runs and versions, for ETags.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn no_game(id: GameId) -> ApiError {
    ApiError::NotFound(format!("no game with id {id}"))
}

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

// ---- handlers ----------------------------------------------------------------

/// Liveness: answers without touching the archive.
#[utoipa::path(get, path = "/healthz", tag = "meta",
    responses((status = 200, description = "The server is up", body = HealthDto)))]
pub async fn health() -> HttpResponse {
    HttpResponse::Ok().json(HealthDto {
        status: "ok".into(),
    })
}

/// This API's OpenAPI 3 document.
#[utoipa::path(get, path = "/openapi.json", tag = "meta",
    responses((status = 200, description = "The OpenAPI document (JSON)")))]
pub async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(crate::openapi::json())
}

/// Lists games, filtered, sorted by date then id, with keyset pagination.
#[utoipa::path(get, path = "/api/v1/games", tag = "games", params(GamesQuery, SelectionQuery, GameFilterQuery),
    responses(
        (status = 200, description = "One page of games", body = GameListDto),
        (status = 400, description = "A filter or the cursor does not parse", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn list_games(
    state: Data<ServerState>,
    q: Query<GamesQuery>,
) -> Result<HttpResponse, ApiError> {
    let (filter, page) = games_query(q.into_inner())?;
    let list = blocking(&state, move |a| Ok(a.games().list(&filter, &page)?)).await?;
    Ok(HttpResponse::Ok().json(GameListDto {
        games: list.games.into_iter().map(GameDto::from).collect(),
        next_cursor: list.next.map(|c| c.to_string()),
        prev_cursor: list.prev.map(|c| c.to_string()),
    }))
}

/// Uploads one record or a collection (SGF text). Needs
/// `Authorization: Bearer <token>`. The answer counts the game trees per
/// outcome (stored, duplicate, refused) and per refusal reason, and lists
/// the first 100 of each outcome with its verdict (the reason, ply and
/// line:column of a refusal). The status is 201 when a game was stored,
/// 200 when all valid games were already there, 422 when no game was
/// valid.
#[utoipa::path(post, path = "/api/v1/games", tag = "games",
    request_body(content = String, content_type = "application/x-go-sgf", description = "One or more game records (SGF), at most 10,000 game trees (`--max-upload-games`); or an archive of them (zip, tar, 7z; gzip, bzip2, xz or zstd compressed, or sent with `Content-Encoding` gzip, deflate, br or zstd), told by content, unpacking to at most 8 times the body limit"),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "At least one game was stored", body = UploadDto),
        (status = 200, description = "Every valid game was already in the archive", body = UploadDto),
        (status = 422, description = "No game was valid; the counts and verdicts say why", body = UploadDto),
        (status = 401, description = "No or wrong bearer token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Uploads are disabled (no token configured)", body = Problem, content_type = "application/problem+json"),
        (status = 408, description = "The body did not arrive within the time allowed (`--body-timeout`)", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body exceeds the size limit or the game-tree limit, or its archive unpacks past its limits; nothing stored", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "The body is binary data, not SGF text (an image, random bytes, an archive that cannot be read or holds no SGF); nothing stored", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many uploads or wrong tokens from this client (`Retry-After`)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "Another import is running, or the archive is read-only on this server", body = Problem, content_type = "application/problem+json"),
        (status = 507, description = "The storage is full; the detail counts what was stored before it (whole batches)", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn upload_games(
    req: HttpRequest,
    state: Data<ServerState>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    if state.archive.is_read_only() {
        return Err(ApiError::ReadOnly);
    }
    let client = crate::limits::client_ip(&req, state.limits.trust_proxy());
    let uploader = upload::authorize(&req, &state, client)?;
    let limit = state.max_upload;
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(ApiError::PayloadTooLarge { limit });
    }
    let timeout = state.body_timeout;
    let body = actix_web::rt::time::timeout(timeout, payload.to_bytes_limited(limit))
        .await
        .map_err(|_| ApiError::RequestTimeout {
            seconds: timeout.as_secs_f64().ceil() as u64,
        })?
        .map_err(|_| ApiError::PayloadTooLarge { limit })?
        .map_err(|e| ApiError::BadRequest(format!("body: {e}")))?;
    let source = format!("POST /api/v1/games from {client} ({})", uploader.name);
    let encoding = req
        .headers()
        .get(header::CONTENT_ENCODING)
        .map(|v| v.to_str().unwrap_or("(not text)").to_string());
    let answer = work::write(&state, move |st| {
        upload::store(
            st,
            &source,
            body.to_vec(),
            encoding.as_deref(),
            &uploader.name,
        )
    })
    .await?;
    state
        .metrics
        .uploaded(answer.stored, answer.duplicates, answer.invalid);
    let status = if answer.stored > 0 {
        StatusCode::CREATED
    } else if answer.duplicates + answer.merged > 0 {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    let mut r = HttpResponse::build(status);
    if let (1, Some(id)) = (answer.trees, answer.games.first().and_then(|g| g.id)) {
        r.insert_header((header::LOCATION, format!("/api/v1/games/{id}")));
    }
    Ok(r.json(answer))
}

/// One game: metadata, setup and main line.
#[utoipa::path(get, path = "/api/v1/games/{id}", tag = "games",
    params(("id" = i64, Path, minimum = 1, description = "The game id (a positive integer)")),
    responses(
        (status = 200, description = "The game (ETag, cacheable)", body = GameDetailDto),
        (status = 304, description = "Not modified (If-None-Match)"),
        (status = 400, description = "The id (or ply) is not a number in range (ids are 1 to 2^63-1)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get_game(
    req: HttpRequest,
    state: Data<ServerState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = parse_id(&id)?;
    // Summary and moves only: the record text (zstd) is not part of the
    // answer.
    let (summary, moves, kaomi, uploaded_by) = blocking(&state, move |a| {
        let (summary, moves) = a
            .games()
            .summary_and_moves(id)?
            .ok_or_else(|| no_game(id))?;
        // Kaomi: the final groups come from replaying the line.
        let kaomi = if matches!(moves.rules, keil_rules::AnyRuleset::Kaomi { .. }) {
            replay(&moves, moves.moves.len() as u32)?.kaomi
        } else {
            None
        };
        let uploaded_by = a.games().uploader(id)?;
        Ok((summary, moves, kaomi, uploaded_by))
    })
    .await?;
    let board = moves.board;
    let dto = GameDetailDto {
        uploaded_by,
        setup: moves
            .setup
            .as_ref()
            .map(|p| p.to_notation(moves.to_move.color())),
        moves: moves.moves.iter().map(|&m| board.move_name(m)).collect(),
        game: summary.into(),
        kaomi: kaomi.as_ref().map(|r| kaomi_end(board, r)),
    };
    Ok(immutable(&req, "application/json", json_body(&dto)))
}

/// The game's normalised record, as a file download.
#[utoipa::path(get, path = "/api/v1/games/{id}/record", tag = "games",
    params(("id" = i64, Path, minimum = 1, description = "The game id (a positive integer)")),
    responses(
        (status = 200, description = "The record (SGF: `GM[Keil]` as `.keil`, Go `GM[1]` as `.sgf`, `GM[Kaomi]` as `.kaomi`)", content_type = "application/x-go-sgf", body = String),
        (status = 400, description = "The id (or ply) is not a number in range (ids are 1 to 2^63-1)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get_record(
    req: HttpRequest,
    state: Data<ServerState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (id, game) = load_game(&state, &id).await?;
    let mut r = immutable(
        &req,
        "application/x-go-sgf; charset=utf-8",
        game.record.into_bytes(),
    );
    r.headers_mut().insert(
        header::CONTENT_DISPOSITION,
        header::HeaderValue::from_str(&format!(
            "attachment; filename=\"keil-{id}.{}\"",
            keil_record::file_extension(game.summary.kind)
        ))
        .expect("ASCII header"),
    );
    Ok(r)
}

/// The board after a ply (0: the start): stones, notation, player to move,
/// the last move and what it captured.
#[utoipa::path(get, path = "/api/v1/games/{id}/positions/{ply}", tag = "games",
    params(("id" = i64, Path, minimum = 1, description = "The game id (a positive integer)"), ("ply" = u32, Path, minimum = 0, description = "0 for the start, else the ply (1-based) after which to show the board")),
    responses(
        (status = 200, description = "The position (ETag, cacheable)", body = PositionDto),
        (status = 400, description = "The ply is not a number", body = Problem, content_type = "application/problem+json"),
        (status = 400, description = "The id (or ply) is not a number in range (ids are 1 to 2^63-1)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or ply", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get_position(
    req: HttpRequest,
    state: Data<ServerState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (id, ply) = path.into_inner();
    let (line, r) = load_replay(&state, &id, &ply).await?;
    let board = line.board;
    let names = |c: Color| -> Vec<String> {
        r.position
            .stones(c)
            .iter()
            .map(|p| board.point_name(p))
            .collect()
    };
    let dto = PositionDto {
        game_id: line.id,
        ply: r.last.map_or(0, |l| l.0),
        plies: r.plies,
        size: board.size(),
        notation: r.position.to_notation(Some(r.to_move)),
        to_move: color_code(r.to_move),
        button_taken: r.position.button_taken().unwrap_or(false),
        black: names(Color::Black),
        white: names(Color::White),
        last_move: r.last.map(|(ply, color, mv)| MoveDto {
            ply,
            color: color_code(color),
            mv: board.move_name(mv),
        }),
        captured: r.captured.iter().map(|&p| board.point_name(p)).collect(),
        captures: CapturesDto {
            black: r.captures[0],
            white: r.captures[1],
        },
        moved: r
            .moved
            .iter()
            .map(|&(from, to)| PushDto {
                from: board.point_name(from),
                to: board.point_name(to),
            })
            .collect(),
    };
    Ok(immutable(&req, "application/json", json_body(&dto)))
}

/// The board after a ply drawn as SVG: the hexagon of points with
/// coordinates, the stones, the last move marked, captured stones faded and
/// crossed.
#[utoipa::path(get, path = "/api/v1/games/{id}/positions/{ply}.svg", tag = "games",
    params(("id" = i64, Path, minimum = 1, description = "The game id (a positive integer)"), ("ply" = u32, Path, minimum = 0, description = "0 for the start, else the ply after which to draw the board")),
    responses(
        (status = 200, description = "The board (ETag, cacheable)", content_type = "image/svg+xml", body = String),
        (status = 400, description = "The id (or ply) is not a number in range (ids are 1 to 2^63-1)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or ply", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get_position_svg(
    req: HttpRequest,
    state: Data<ServerState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (id, ply) = path.into_inner();
    let (line, r) = load_replay(&state, &id, &ply).await?;
    let board = line.board;
    let captured: Vec<(Point, Color)> = match r.last {
        Some((_, color, _)) => r.captured.iter().map(|&p| (p, color.opposite())).collect(),
        None => Vec::new(),
    };
    let last_point = match r.last {
        Some((_, _, Move::Place(p))) => Some(p),
        _ => None,
    };
    let to_move = if r.to_move == Color::Black {
        "Black"
    } else {
        "White"
    };
    let mut caption = format!(
        "game {} · ply {}/{}",
        line.id,
        r.last.map_or(0, |l| l.0),
        r.plies
    );
    if let Some((_, color, mv)) = r.last {
        let name = match mv {
            Move::Place(p) => r.position.display_name(p),
            m => board.move_name(m),
        };
        caption.push_str(&format!(" · {} {name}", color.letter()));
    }
    caption.push_str(&format!(" · {to_move} to move"));
    if r.position.button_taken() == Some(true) {
        caption.push_str(" · button taken");
    }
    let drawing = svg::Drawing {
        position: &r.position,
        last: last_point,
        captured: &captured,
        caption: &caption,
    };
    let body = match &r.position {
        keil_rules::AnyPosition::Kaomi(_) => svg::render_kaomi(
            &drawing,
            &svg::KaomiMarks {
                moved: &r.moved,
                result: r.kaomi.as_ref(),
            },
        ),
        _ => svg::render(&drawing),
    };
    Ok(immutable(&req, "image/svg+xml", body.into_bytes()))
}

/// A player's profile by name: as written, else the one whose name
/// matches case- and accent-insensitively.
pub(crate) fn find_player(
    a: &Archive,
    name: &str,
) -> keil_archive::Result<Option<keil_archive::PlayerProfile>> {
    let players = a.players();
    let id = match players.id_of(name)? {
        Some(id) => Some(id),
        None => players
            .search(name, 5)?
            .into_iter()
            .find(|h| h.matched == keil_archive::MatchKind::Exact)
            .map(|h| h.id),
    };
    match id {
        Some(id) => players.profile(id),
        None => Ok(None),
    }
}

/// Players by name: case- and accent-insensitive, prefixes and small
/// misspellings.
#[utoipa::path(get, path = "/api/v1/players", tag = "players", params(PlayersQuery),
    responses(
        (status = 200, description = "Matching players, best first", body = PlayersDto),
        (status = 400, description = "No `q`, or a bad limit", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn search_players(
    state: Data<ServerState>,
    q: Query<PlayersQuery>,
) -> Result<HttpResponse, ApiError> {
    let name = required("q", &q.q)?.to_string();
    let limit = parse_limit(nonempty(&q.limit), 20, 100)?;
    let hits = blocking(&state, move |a| Ok(a.players().search(&name, limit)?)).await?;
    Ok(HttpResponse::Ok().json(PlayersDto {
        players: hits.into_iter().map(PlayerHitDto::from).collect(),
    }))
}

/// A player's profile: games and results per colour, dates, most frequent
/// opponents. The name is matched as written, else case- and
/// accent-insensitively.
#[utoipa::path(get, path = "/api/v1/players/{name}", tag = "players",
    params(("name" = String, Path, description = "The player's name")),
    responses(
        (status = 200, description = "The profile", body = PlayerDto),
        (status = 404, description = "No such player", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get_player(
    state: Data<ServerState>,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let name = name.into_inner();
    crate::params::segment("player name", &name)?;
    let profile = blocking(&state, move |a| {
        find_player(a, &name)?
            .ok_or_else(|| ApiError::NotFound(format!("no player named {name:?}")))
    })
    .await?;
    Ok(HttpResponse::Ok().json(PlayerDto::from(profile)))
}

/// Games that reached a board (exactly, or any of its 12 symmetric
/// images), whoever was to move and whatever the button's state unless the
/// query's suffixes say, with what was played next and how it scored, per
/// matched position; each game writes the position it matched in full.
#[utoipa::path(get, path = "/api/v1/positions", tag = "positions", params(PositionsQuery),
    responses(
        (status = 200, description = "Matching games and continuation statistics", body = PositionSearchDto),
        (status = 400, description = "The position notation (or another parameter) does not parse", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The search ran past the server's query budget (`--query-budget`); `Retry-After` says when to retry", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn search_positions(
    state: Data<ServerState>,
    q: Query<PositionsQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = q.into_inner();
    let kind = nonempty(&q.kind).map(parse_kind).transpose()?;
    let parsed = match (nonempty(&q.position), q.play.as_deref()) {
        (Some(_), Some(_)) => {
            return Err(bad(
                "play",
                "give either position (a board) or play (a line of moves), not both",
            ));
        }
        (Some(text), None) => {
            PositionQuery::parse_inferred(kind, text).map_err(|e| bad("position", e))?
        }
        (None, Some(play)) => {
            let kind = kind.ok_or_else(|| {
                bad(
                    "kind",
                    "required with play: the game whose empty board the line starts from",
                )
            })?;
            let size = nonempty(&q.size)
                .map(crate::params::parse_size)
                .transpose()?
                .unwrap_or(kind.default_size());
            let spec = keil_rules::BoardSpec::new(kind, size).map_err(|e| bad("size", e))?;
            let line = crate::play::parse_play(spec, play)?;
            let mut pq = PositionQuery::new(line.position());
            pq.to_move = Some(line.to_move());
            pq
        }
        (None, None) => {
            return Err(ApiError::BadRequest(
                "the query parameter position is required (or play, a line of moves from the empty board of kind)".into(),
            ));
        }
    };
    let symmetry = parse_flag("symmetry", nonempty(&q.symmetry), false)?;
    let swap_colors = parse_colors(q.colors.as_deref(), false)?;
    let (from, to) = day_range(&q.from, &q.to)?;
    let query = PositionQuery {
        symmetry,
        swap_colors,
        player: nonempty(&q.player).map(str::to_string),
        from,
        to,
        limit: parse_limit(nonempty(&q.limit), 20, keil_archive::MAX_PAGE)?,
        cursor: nonempty(&q.cursor).map(str::to_string),
        ..parsed
    };
    let position = query.notation();
    let kind = query.position.kind().code();
    let answer = work::search(&state, move |a, b| {
        Ok(a.positions().search_within(&query, b)?)
    })
    .await?;
    Ok(HttpResponse::Ok().json(PositionSearchDto {
        position,
        kind: kind.to_string(),
        symmetry,
        swap_colors,
        total_games: answer.total_games,
        continuations: answer
            .continuations
            .into_iter()
            .map(|c| ContinuationDto {
                mv: c.mv,
                to_move: color_code(c.to_move),
                button_taken: c.button_taken,
                games: c.games,
                black_wins: c.black_wins,
                white_wins: c.white_wins,
                share: c.share,
            })
            .collect(),
        games: answer
            .games
            .into_iter()
            .map(|g| PositionGameDto {
                id: g.game_id,
                ply: g.ply,
                next: g.next,
                symmetry: g.symmetry,
                swapped: g.swapped,
                position: g.position,
                to_move: color_code(g.to_move),
                button_taken: g.button_taken,
                date: g.date,
                black: g.black,
                white: g.white,
                result: g.result,
            })
            .collect(),
        next_cursor: answer.next_cursor,
    }))
}

/// Games in which a pattern occurs: a region of the board with a value
/// per point (stones, empty, wildcards), placed where its mode allows,
/// under the board's symmetries and with colours exchanged unless told
/// otherwise (Kombilo's defaults); with the continuation table (the first
/// later move inside the region, per point of the pattern) over every hit
/// and one page of the games, each at its first match.
#[utoipa::path(get, path = "/api/v1/patterns", tag = "positions", params(PatternsQuery, GameFilterQuery),
    responses(
        (status = 200, description = "Matching games and continuation statistics", body = PatternSearchDto),
        (status = 400, description = "The pattern does not parse or has no place in its mode, or another parameter does not parse; the detail names it and what to fix", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The search ran past the server's query budget (`--query-budget`); `Retry-After` says when to retry", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn search_patterns(
    state: Data<ServerState>,
    q: Query<PatternsQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = pattern_query(q.into_inner())?;
    let (kind, size) = (query.pattern.kind(), query.pattern.board().size());
    let (mode, symmetry, swap_colors) = (query.mode, query.symmetry, query.swap_colors);
    let answer = work::search(&state, move |a, b| {
        Ok(a.patterns().search_within(&query, b)?)
    })
    .await?;
    Ok(HttpResponse::Ok().json(pattern_dto(answer, kind, size, mode, symmetry, swap_colors)))
}

/// The API's answer to a pattern search.
pub(crate) fn pattern_dto(
    answer: keil_archive::PatternAnswer,
    kind: keil_rules::GameKind,
    size: u8,
    mode: PatternMode,
    symmetry: bool,
    swap_colors: bool,
) -> PatternSearchDto {
    PatternSearchDto {
        pattern: answer.pattern,
        kind: kind.code().to_string(),
        size,
        mode: mode.code().to_string(),
        symmetry,
        swap_colors,
        placements: answer.placements,
        total_games: answer.total_games,
        total_hits: answer.total_hits,
        continuations: answer
            .continuations
            .into_iter()
            .map(|c| PatternContinuationDto {
                point: c.point,
                display: c.display,
                offset: c.offset,
                label: c.label,
                black: c.black.into(),
                white: c.white.into(),
            })
            .collect(),
        games: answer.games.into_iter().map(PatternGameDto::from).collect(),
        next_cursor: answer.next_cursor,
    }
}

/// Full-text search over events, places, game names and comments.
#[utoipa::path(get, path = "/api/v1/search", tag = "games", params(SearchQuery),
    responses(
        (status = 200, description = "Matching games, best first", body = SearchDto),
        (status = 400, description = "No `q`, a `q` over 1,000 bytes or 64 words, a bad limit, or a parameter over its length", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The search ran past the server's query budget (`--query-budget`); `Retry-After` says when to retry", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn search_text(
    state: Data<ServerState>,
    q: Query<SearchQuery>,
) -> Result<HttpResponse, ApiError> {
    let text = required("q", &q.q)?.to_string();
    keil_archive::TextPlan::parse(&text).map_err(|e| bad("q", e))?;
    let limit = parse_limit(nonempty(&q.limit), 20, 100)?;
    let hits = work::search(&state, move |a, b| {
        Ok(a.search_text_within(&text, limit, b)?)
    })
    .await?;
    Ok(HttpResponse::Ok().json(SearchDto {
        hits: hits
            .into_iter()
            .map(|h| TextHitDto {
                score: h.score,
                game: h.game.into(),
            })
            .collect(),
    }))
}

/// Counts and sizes of the archive.
#[utoipa::path(get, path = "/api/v1/stats", tag = "meta",
    responses((status = 200, description = "Counts and sizes", body = StatsDto)))]
pub async fn stats(state: Data<ServerState>) -> Result<HttpResponse, ApiError> {
    let s = blocking(&state, |a| Ok(a.stats()?)).await?;
    Ok(HttpResponse::Ok().json(StatsDto {
        games: s.games,
        players: s.players,
        imports: s.imports,
        refused: s.refused,
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
        bytes: s.sqlite_bytes + s.tantivy_bytes,
    }))
}
