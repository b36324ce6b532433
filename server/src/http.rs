//! HTTP plumbing shared by the API's routes ([`routes`](mod@crate::routes)),
//! the pages ([`crate::pages`]), the error documents ([`crate::error`]) and
//! the static files ([`crate::assets`]), and depending on none of them: a
//! route's entry ([`RouteEntry`]), cacheable answers for game
//! data ([`game_data`], with [`fnv1a`] ETags) and the headers of every HTML
//! answer ([`CSP`], [`html_response`]).

use actix_web::http::{Method, StatusCode, header};
use actix_web::web;
use actix_web::{FromRequest, Handler, HttpRequest, HttpResponse, Responder, Route};

/// One route: method, path (actix and OpenAPI syntax alike) and handler.
pub struct RouteEntry {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The path, e.g. `/api/v1/games/{id}`.
    pub path: &'static str,
    /// The handler, as [`crate::app_config`] registers it.
    pub(crate) route: Route,
}

/// A [`RouteEntry`] of `handler` for `method` on `path`.
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

/// A response for game data (a stored game does not change, but it can
/// be removed): a strong `ETag` (a hash of the body), `Cache-Control:
/// public, max-age=600` (a removed game leaves shared caches within 10
/// minutes; a revalidation after that costs a 304), and 304 when the client
/// already has it.
pub(crate) fn game_data(req: &HttpRequest, content_type: &str, body: Vec<u8>) -> HttpResponse {
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
        .insert_header((header::CACHE_CONTROL, GAME_CACHE_CONTROL));
    if cached {
        r.finish()
    } else {
        r.content_type(content_type.to_string()).body(body)
    }
}

/// The `Cache-Control` of game data ([`game_data`]).
pub const GAME_CACHE_CONTROL: &str = "public, max-age=600";

/// 64-bit FNV-1a: stable across runs and versions, for ETags.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The Content-Security-Policy of every page: everything from this origin
/// only; no inline script, style or event handler; no plugins, frames,
/// `<base>`, or form posts elsewhere.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// An HTML answer with the page headers (CSP, no sniffing, same-origin
/// referrers).
pub(crate) fn html_response(status: StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_SECURITY_POLICY, CSP))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "same-origin"))
        .body(body)
}
