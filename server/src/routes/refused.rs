//! Refused records the archive keeps: the list (keyset pages, filters)
//! and one record with its verdict and text.

use actix_web::HttpResponse;
use actix_web::web::{self, Data};

use super::blocking;
use crate::dto::*;
use crate::error::{ApiError, Problem};
use crate::params::{Query, numbered_id, refused_query};
use crate::state::ServerState;

/// Lists the refused records the archive keeps (each as it came, with its
/// verdict), the latest first (or by id), with keyset pages.
#[utoipa::path(get, path = "/api/v1/refused", tag = "games", params(RefusedQuery),
    responses(
        (status = 200, description = "One page of refused records", body = RefusedListDto),
        (status = 400, description = "A filter, the order, the limit or `after` does not read; the detail names it and what to write", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many requests from this client (`Retry-After`)", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn list_refused(
    state: Data<ServerState>,
    q: Query<RefusedQuery>,
) -> Result<HttpResponse, ApiError> {
    let (filter, limit) = refused_query(&q)?;
    let page = blocking(&state, move |a| Ok(a.refused_list(&filter, limit)?)).await?;
    Ok(HttpResponse::Ok().json(RefusedListDto {
        refused: page.items.into_iter().map(RefusedDto::from).collect(),
        next: page.next.map(|n| n.to_string()),
    }))
}

/// One refused record: where it came from, its verdict (in words too) and
/// its text as it came.
#[utoipa::path(get, path = "/api/v1/refused/{id}", tag = "games",
    params(("id" = i64, Path, minimum = 1, description = "The refused record's id (a positive integer)")),
    responses(
        (status = 200, description = "The record and its verdict", body = RefusedRecordDto),
        (status = 400, description = "The id is not a number in range (1 to 2^63-1)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No refused record is kept under this id", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many requests from this client (`Retry-After`)", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get_refused(
    state: Data<ServerState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id: keil_archive::RefusedId = numbered_id("id", &id)?;
    let (record, line) = blocking(&state, move |a| {
        a.refused_line(id)?
            .ok_or_else(|| ApiError::NotFound(format!("no refused record with id {id}")))
    })
    .await?;
    let verdict = crate::refusal::in_words(&record.summary, line.as_ref());
    Ok(HttpResponse::Ok().json(RefusedRecordDto {
        refused: RefusedDto::from(record.summary),
        verdict,
        record: record.record,
    }))
}
