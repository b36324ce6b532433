//! Request ids: every request gets one ([`RequestId`]), answered in the
//! `X-Request-Id` header of every answer (errors included, whether request
//! logging is on or not) and recorded in the request's log span, so every
//! log line of a request names it ([`RootSpan`]).
//!
//! A client's own `X-Request-Id` is kept when it is 1 to 64 characters of
//! `A-Z a-z 0-9 . _ -` (so a proxy's id follows the request through);
//! anything else is replaced by a new UUID v4.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage};
use tracing::Span;
use tracing_actix_web::RootSpanBuilder;

/// The header that carries the id, in requests and answers.
pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The longest client-given id kept, in characters.
pub const MAX_CLIENT_ID: usize = 64;

/// A request's id, in the request's extensions.
#[derive(Clone, Debug)]
pub struct RequestId(pub String);

/// Whether a client's id is kept: 1 to [`MAX_CLIENT_ID`] characters of
/// `[A-Za-z0-9._-]`.
pub fn acceptable(id: &[u8]) -> bool {
    (1..=MAX_CLIENT_ID).contains(&id.len())
        && id
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The middleware (outermost): sets the id before everything else runs and
/// puts it on the answer.
///
/// # Errors
/// An inner middleware's error passes through (without the header; the
/// server's own middlewares answer errors as responses, never as errors).
pub async fn request_id(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let id = match req.headers().get(&REQUEST_ID) {
        Some(v) if acceptable(v.as_bytes()) => String::from_utf8_lossy(v.as_bytes()).into_owned(),
        _ => uuid::Uuid::new_v4().to_string(),
    };
    req.extensions_mut().insert(RequestId(id.clone()));
    let mut res = next.call(req).await?;
    if let Ok(v) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(REQUEST_ID, v);
    }
    Ok(res)
}

/// The request logger's root span: the request id, method, target (path
/// and query), peer address and status. Every log line inside a request
/// carries its fields.
pub struct RootSpan;

impl RootSpanBuilder for RootSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let id = request
            .extensions()
            .get::<RequestId>()
            .map_or_else(String::new, |r| r.0.clone());
        tracing::info_span!(
            "request",
            request_id = %id,
            http.method = %request.method(),
            http.target = %request.uri().path_and_query().map_or("", |p| p.as_str()),
            http.client_ip = %request.peer_addr().map(|a| a.ip().to_string()).unwrap_or_default(),
            http.status_code = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
            exception.message = tracing::field::Empty,
            exception.details = tracing::field::Empty,
        )
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        tracing_actix_web::DefaultRootSpanBuilder::on_request_end(span, outcome);
    }
}
