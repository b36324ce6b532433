//! Every error is a document: the middleware that makes the answer of every
//! failed request, on every path, the document its client asks for
//! ([`crate::error::answer`] in the [`Form`] of [`Form::of`]), and that
//! refuses over-long request targets (414) and over-large header sections
//! (431) with documents before any handler runs.
//!
//! actix-http answers some requests itself, before any middleware, with an
//! empty body: a request head over its 128 KiB buffer or with more than 96
//! headers (431), a request target over 65,534 bytes or a malformed
//! request line or header (400), and a head not received within its
//! client request timeout (408). The limits here are far below the first
//! two, so a client sees those bare answers only past them.

use actix_web::Error;
use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;

use crate::error::{Answered, ApiError, Form, PageError, answer, answer_in};

/// The longest request target (path and query), in bytes: longer ones are
/// answered 414. (actix-http's own limit is 65,534, answered with a bare
/// 400.)
pub const MAX_TARGET: usize = 8 * 1024;
/// The most header bytes (names, values and 4 bytes of separators per
/// header): more is answered 431. (actix-http's own limit is the whole
/// head in 128 KiB, answered with a bare 431.)
pub const MAX_HEADER_BYTES: usize = 16 * 1024;
/// The most headers: more is answered 431. (actix-http's own limit is 96,
/// answered with a bare 431.)
pub const MAX_HEADERS: usize = 64;

/// The head's own error, if any: 414 or 431.
fn head_error(req: &ServiceRequest) -> Option<ApiError> {
    let target = req.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    if target > MAX_TARGET {
        return Some(ApiError::UriTooLong { limit: MAX_TARGET });
    }
    let headers = req.headers();
    let bytes: usize = headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if headers.len() > MAX_HEADERS || bytes > MAX_HEADER_BYTES {
        return Some(ApiError::HeadersTooLarge {
            limit: MAX_HEADER_BYTES,
        });
    }
    None
}

/// The middleware: a head over the limits gets its 414/431 document; an
/// error answer gets rebuilt in the form the client asks for when that is
/// not the form its handler chose (a browser on an API path, an API client
/// on a page); an error answer that our code did not build (actix's own)
/// becomes a document when its status has an [`ApiError`].
///
/// # Errors
/// None of its own: the inner service's errors pass through.
pub async fn documents(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    if let Some(e) = head_error(&req) {
        let form = Form::of(req.headers(), Form::Json);
        let response = answer(&e, form);
        return Ok(req.into_response(response));
    }
    let res = next.call(req).await?.map_into_boxed_body();
    let status = res.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return Ok(res);
    }
    let built = res.response().extensions().get::<Answered>().copied();
    let default = built.map_or(Form::Json, |a| a.form);
    let form = Form::of(res.request().headers(), default);
    // An HTML page is built again under the archive's name (an error's
    // own answer knows no archive).
    let site = res
        .request()
        .app_data::<actix_web::web::Data<crate::state::ServerState>>()
        .map(|s| s.site.name());
    if built.is_some_and(|a| a.form == form) && (form == Form::Json || site.is_none()) {
        return Ok(res);
    }
    let site = site.unwrap_or(crate::assets::SiteName::PRODUCT);
    let answer = |api: &ApiError, form| answer_in(api, form, site);
    let rebuilt = match res.response().error() {
        Some(e) => match (e.as_error::<ApiError>(), e.as_error::<PageError>()) {
            (Some(api), _) | (_, Some(PageError(api))) => answer(api, form),
            // An actix error (an extractor's, a payload's).
            _ => match ApiError::for_status(status, e.to_string()) {
                Some(api) => answer(&api, form),
                None => return Ok(res),
            },
        },
        // A bare answer without a body; a page that answers 400 with its
        // form and the error in it stays as it is.
        None if built.is_none()
            && matches!(
                res.response().body().size(),
                BodySize::None | BodySize::Sized(0)
            ) =>
        {
            let reason = status.canonical_reason().unwrap_or("error").to_string();
            match ApiError::for_status(status, reason) {
                Some(api) => answer(&api, form),
                None => return Ok(res),
            }
        }
        None => return Ok(res),
    };
    Ok(replace(res, rebuilt))
}

/// `res` with the headers, extensions and body of `new` (the status is the
/// same), keeping the error it carries (for the request log).
fn replace(
    res: ServiceResponse<BoxBody>,
    new: actix_web::HttpResponse,
) -> ServiceResponse<BoxBody> {
    let answered = new.extensions().get::<Answered>().copied();
    let (head, body) = new.into_parts();
    let headers = head.headers().clone();
    let mut res = res.map_body(move |h, _| {
        h.headers = headers;
        body
    });
    if let Some(a) = answered {
        res.response_mut().extensions_mut().insert(a);
    }
    res
}

/// The middleware that sends an address with a trailing slash (`/games/`,
/// `/games/12/?ply=3`) to the address without it, the one every link
/// uses: 308 Permanent Redirect (the method and body are kept), the query
/// kept. `/` itself is the home page.
///
/// # Errors
/// An inner middleware's error passes through.
pub async fn trailing_slash(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<actix_web::body::EitherBody<BoxBody, impl MessageBody>>, Error> {
    let path = req.path();
    if path.len() > 1 && path.ends_with('/') {
        let trimmed = path.trim_end_matches('/');
        let to = match req.query_string() {
            "" => format!("/{}", trimmed.trim_start_matches('/')),
            q => format!("/{}?{q}", trimmed.trim_start_matches('/')),
        };
        let res = actix_web::HttpResponse::PermanentRedirect()
            .insert_header((actix_web::http::header::LOCATION, to))
            .finish();
        return Ok(req.into_response(res).map_into_left_body());
    }
    Ok(next.call(req).await?.map_into_right_body())
}
