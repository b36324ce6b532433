//! Pattern search and the shape of its answer.

use actix_web::HttpResponse;
use actix_web::web::Data;
use keil_archive::PatternMode;

use crate::dto::*;
use crate::error::{ApiError, Problem};
use crate::params::{Query, pattern_query};
use crate::state::ServerState;
use crate::work;

/// Games in which a pattern occurs: a region of the board with a value
/// per point (stones, empty, wildcards), placed where its mode allows,
/// under the board's symmetries and with colours exchanged unless told
/// otherwise (Kombilo's defaults); with the continuation table (the first
/// later move inside the region, per point of the pattern) over every hit
/// and one page of the games, each at its first match.
#[utoipa::path(get, path = "/api/v1/patterns", tag = "positions", params(PatternsQuery, GameFilterQuery, ExploreQuery),
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
                history: history_dto(c.history),
            })
            .collect(),
        history: history_dto(answer.history),
        collections: answer
            .collections
            .map(|c| c.into_iter().map(Into::into).collect()),
        games: answer.games.into_iter().map(PatternGameDto::from).collect(),
        next_cursor: answer.next_cursor,
        top_games: answer
            .top_games
            .into_iter()
            .map(PatternGameDto::from)
            .collect(),
        recent_games: answer
            .recent_games
            .into_iter()
            .map(PatternGameDto::from)
            .collect(),
    }
}
