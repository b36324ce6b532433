//! The games: the list, uploads, one game and its record, full-text
//! search.

use actix_web::http::{StatusCode, header};
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};

use super::{blocking, json_body, load_game, no_game};
use crate::dto::*;
use crate::error::{ApiError, Problem};
use crate::http::game_data;
use crate::params::{Query, games_query, parse_id, search_query};
use crate::replay::{kaomi_end, replay};
use crate::state::ServerState;
use crate::{upload, work};

/// Lists games, filtered, sorted by date then id, with keyset pagination.
/// A list whose filters no index serves ([`keil_archive::GameFilter::scans`])
/// runs as a search: on the search threads, under the query budget, its
/// time charged to the client's search time.
#[utoipa::path(get, path = "/api/v1/games", tag = "games", params(GamesQuery, SelectionQuery, GameFilterQuery),
    responses(
        (status = 200, description = "One page of games", body = GameListDto),
        (status = 400, description = "A filter or the cursor does not parse", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "A list whose filters no index serves (a result, komi, event, rank, ...) runs as a search, under the query budget (`--query-budget`): it ran out", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn list_games(
    state: Data<ServerState>,
    q: Query<GamesQuery>,
) -> Result<HttpResponse, ApiError> {
    let (filter, page) = games_query(q.into_inner())?;
    let (list, named) = work::read(&state, filter.scans(), move |a, budget| {
        Ok((
            a.games().list_within(&filter, &page, budget)?,
            super::named_people(a, &filter)?,
        ))
    })
    .await?;
    Ok(HttpResponse::Ok().json(GameListDto {
        games: list.games.into_iter().map(GameDto::from).collect(),
        next_cursor: list.next.map(|c| c.to_string()),
        prev_cursor: list.prev.map(|c| c.to_string()),
        named,
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
    let (uploader, client) = upload::authorize(&req, &state, "uploads")?;
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
        upload::store(st, &source, body.to_vec(), encoding.as_deref(), &uploader)
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
    let (summary, moves, kaomi, uploaded_by, records, similar) = blocking(&state, move |a| {
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
        let records = a.games().records(id)?;
        let similar = a.games().similar(id)?;
        Ok((summary, moves, kaomi, uploaded_by, records, similar))
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
        records: records.into_iter().map(GameRecordDto::from).collect(),
        similar: similar.into_iter().map(SimilarGameDto::from).collect(),
    };
    Ok(game_data(&req, "application/json", json_body(&dto)))
}

/// Removes a game: it leaves every list, search and index, its record is
/// refused by later uploads, and the removal is logged (who asked: the
/// token's name and the client's address; when; the `reason`). Needs the
/// operator's token (`Authorization: Bearer <token>`, the token file's
/// `operator` line).
#[utoipa::path(delete, path = "/api/v1/games/{id}", tag = "games",
    params(("id" = i64, Path, minimum = 1, description = "The game id (a positive integer)"), RemoveQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Removed: the removal log's entry", body = RemovalDto),
        (status = 400, description = "The id is not a number in range, or the reason is over 200 bytes", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or wrong bearer token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The token is not the operator's, or writes are disabled (no token configured)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game (never stored, or already removed)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong tokens from this client (`Retry-After`)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "An import is running, or the archive is read-only on this server", body = Problem, content_type = "application/problem+json"),
        (status = 507, description = "The storage is full: nothing was removed", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn remove_game(
    req: HttpRequest,
    state: Data<ServerState>,
    id: web::Path<String>,
    q: Query<RemoveQuery>,
) -> Result<HttpResponse, ApiError> {
    let (token, client) = upload::authorize(&req, &state, "removals")?;
    let id = parse_id(&id)?;
    let reason = q.into_inner().reason.unwrap_or_default();
    if !token.operator {
        return Err(ApiError::Forbidden(format!(
            "only the operator's token may remove games; the token `{}` may upload only (mark the operator's line of the token file with `operator`)",
            token.name
        )));
    }
    let by = format!("{} ({client})", token.name);
    let removal = work::write(&state, move |st| {
        st.archive
            .remove(id, &by, &reason)?
            .ok_or_else(|| no_game(id))
    })
    .await?;
    tracing::info!(
        game = %removal.game_id,
        by = %removal.removed_by,
        reason = %removal.reason,
        what = %removal.what,
        "removed a game"
    );
    Ok(HttpResponse::Ok().json(RemovalDto::from(removal)))
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
    let mut r = game_data(
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

/// One of a game's records as it was stored (the game's own is number 0;
/// the others are listed in the game's `records`), as a file download.
#[utoipa::path(get, path = "/api/v1/games/{id}/records/{record}", tag = "games",
    params(
        ("id" = i64, Path, minimum = 1, description = "The game id (a positive integer)"),
        ("record" = i64, Path, minimum = 0, description = "The record's number in the game's `records` (0: the game's own)"),
    ),
    responses(
        (status = 200, description = "The record (normalised SGF)", content_type = "application/x-go-sgf", body = String),
        (status = 400, description = "The id or the record number is not a number in range", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game, or the game has no record with this number", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get_game_record(
    req: HttpRequest,
    state: Data<ServerState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (id, record) = path.into_inner();
    let id = parse_id(&id)?;
    let record = crate::params::parse_record_number(&record)?;
    let (text, kind) = blocking(&state, move |a| {
        let summary = a
            .games()
            .summaries(&[id])?
            .pop()
            .ok_or_else(|| no_game(id))?;
        let text = a.games().record_text(id, record)?.ok_or_else(|| {
            ApiError::NotFound(format!(
                "game {id} has no record {record}: its records are listed in GET /api/v1/games/{id}"
            ))
        })?;
        Ok((text, summary.kind))
    })
    .await?;
    let mut r = game_data(
        &req,
        "application/x-go-sgf; charset=utf-8",
        text.into_bytes(),
    );
    r.headers_mut().insert(
        header::CONTENT_DISPOSITION,
        header::HeaderValue::from_str(&format!(
            "attachment; filename=\"keil-{id}-{record}.{}\"",
            keil_record::file_extension(kind)
        ))
        .expect("ASCII header"),
    );
    Ok(r)
}

/// Full-text search over players, events, places, game names and
/// comments: one page of games, each with where it matched (the field, an
/// excerpt with the words marked, a comment's ply), the number of games
/// found and the next page's `after`.
#[utoipa::path(get, path = "/api/v1/search", tag = "games", params(SearchQuery),
    responses(
        (status = 200, description = "Matching games, best first, one page", body = SearchDto),
        (status = 400, description = "No `q`, a `q` over 1,000 bytes or 64 words, a bad limit, an `after` that is no page's `next`, or a parameter over its length", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The search ran past the server's query budget (`--query-budget`); `Retry-After` says when to retry", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn search_text(
    state: Data<ServerState>,
    q: Query<SearchQuery>,
) -> Result<HttpResponse, ApiError> {
    let (text, page) = search_query(&q)?;
    let results =
        work::search(&state, move |a, b| Ok(a.search_text_page(&text, &page, b)?)).await?;
    Ok(HttpResponse::Ok().json(SearchDto::from(results)))
}
