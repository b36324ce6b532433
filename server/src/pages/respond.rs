//! How a page answers: its template rendered as HTML, the archive's work
//! run on the blocking pool or on the search threads, the games a search
//! found as a download, and the embedded static files.

use std::sync::Arc;

use actix_web::HttpResponse;
use actix_web::http::{StatusCode, header};
use actix_web::web::{self, Data};
use askama::Template;
use keil_archive::Archive;

use crate::error::{ApiError, PageError};
use crate::http::html_response;
use crate::state::ServerState;

/// A page's answer: its HTML, or an error page.
pub(super) type PageResult = Result<HttpResponse, PageError>;

/// A page's template rendered as a `200 OK` HTML answer.
pub(super) fn render<T: Template>(t: &T) -> PageResult {
    Ok(html_response(StatusCode::OK, render_html(t)?))
}

/// A page's HTML.
pub(super) fn render_html<T: Template>(t: &T) -> Result<String, PageError> {
    Ok(t.render()
        .map_err(|e| ApiError::Internal(format!("template: {e}")))?)
}

/// Runs an archive call on the blocking pool.
pub(super) async fn blocking<T, F>(state: &Data<ServerState>, f: F) -> Result<T, PageError>
where
    T: Send + 'static,
    F: FnOnce(&Archive) -> Result<T, PageError> + Send + 'static,
{
    let archive = Arc::clone(&state.archive);
    web::block(move || f(&archive))
        .await
        .map_err(|e| PageError(e.into()))?
}

/// Runs a search on the search threads under the server's budget
/// ([`crate::work::search`]), as the API's searches do.
pub(super) async fn searching<T, F>(state: &Data<ServerState>, f: F) -> Result<T, PageError>
where
    T: Send + 'static,
    F: FnOnce(&Archive, &keil_archive::Budget) -> Result<T, PageError> + Send + 'static,
{
    crate::work::search(state, move |a, b| f(a, b).map_err(|e| e.0))
        .await
        .map_err(PageError)
}

/// The download of the games a search found (the explorer's and the
/// pattern page's): `search` runs as a search does ([`searching`]) and
/// names the games; they stream as `format` ([`crate::export`]).
pub(super) async fn download_found<F>(
    state: Data<ServerState>,
    format: keil_container::BundleFormat,
    search: F,
) -> PageResult
where
    F: FnOnce(&Archive, &keil_archive::Budget) -> Result<Vec<keil_archive::GameId>, PageError>
        + Send
        + 'static,
{
    let ids = searching(&state, search).await?;
    Ok(crate::export::download(
        state,
        crate::export::Selection::Found(ids),
        format,
    )?)
}

/// `GET /static/{name}`: an embedded file under its hashed name, cached
/// for a year as immutable.
///
/// # Errors
/// [`ApiError::NotFound`] for any other name (a document like every error).
pub async fn serve_asset(name: web::Path<String>) -> Result<HttpResponse, ApiError> {
    match crate::assets::find(&name) {
        Some((content_type, bytes)) => Ok(HttpResponse::Ok()
            .content_type(content_type)
            .insert_header((header::CACHE_CONTROL, "public, max-age=31536000, immutable"))
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .body(bytes)),
        None => Err(ApiError::NotFound(format!(
            "no static file {:?}: names carry the hash of their content; reload the page",
            name.as_str()
        ))),
    }
}
