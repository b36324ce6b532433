//! The API's one error type, mapped to HTTP status codes and, in one place
//! ([`answer`]), to its two documents: an RFC 7807
//! `application/problem+json` body for API clients, or an HTML page in the
//! site's layout for browsers ([`Form`], chosen from `Accept` by
//! [`Form::of`]), with the same status and extra headers (`Retry-After`,
//! `Allow`, `WWW-Authenticate`).

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use askama::Template;
use serde::Serialize;
use utoipa::ToSchema;

use crate::assets::{Assets, assets};
use crate::http::html_response;

/// What a request can fail with. Each variant is one status code; the
/// message (its `Display`) says what was wrong and becomes the problem's
/// `detail`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Occurs when a query parameter or path segment does not parse (a bad
    /// position notation, date, colour, cursor, ...). 400.
    #[error("{0}")]
    BadRequest(String),
    /// Occurs when an upload carries no bearer token or a wrong one. 401.
    #[error("{0}")]
    Unauthorized(String),
    /// Occurs when an upload is attempted on a server with no token
    /// configured (writes disabled). 403.
    #[error("uploads are disabled on this server: no write token is configured")]
    WritesDisabled,
    /// Occurs when a valid token asks for what its role may not do (a
    /// removal with an uploader's token). 403.
    #[error("{0}")]
    Forbidden(String),
    /// Occurs when a game, a ply, a player or a route does not exist. 404.
    #[error("{0}")]
    NotFound(String),
    /// Occurs when an upload body exceeds the size limit. 413.
    #[error("the body is larger than the limit of {limit} bytes")]
    PayloadTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// Occurs when an upload holds more game trees than the limit
    /// (`--max-upload-games`); nothing of it is stored. 413.
    #[error(
        "the body holds {trees} game trees, more than the limit of {limit} per upload; nothing was stored: send them in parts of at most {limit}"
    )]
    TooManyGameTrees {
        /// The game trees counted in the body.
        trees: usize,
        /// The limit.
        limit: usize,
    },
    /// Occurs when an upload is an archive or compressed file that unpacks
    /// past the upload's limits (bytes, members, nesting: a possible
    /// archive bomb); nothing of it is stored. 413.
    #[error("{0}")]
    ArchiveLimit(String),
    /// Occurs when an upload is not SGF text (binary data: an image, random
    /// bytes, an archive that cannot be read); nothing of it is stored. 415.
    #[error("{0}")]
    NotSgf(String),
    /// Occurs when a path exists but not for this method. 405; the answer
    /// carries `Allow`.
    #[error("{method} is not allowed here; allowed: {allow}")]
    MethodNotAllowed {
        /// The method the client used.
        method: String,
        /// The allowed methods, comma-separated (the `Allow` header).
        allow: String,
    },
    /// Occurs when the body did not arrive within the time allowed. 408.
    #[error(
        "the request body did not arrive within {seconds} s; send it faster or in smaller parts"
    )]
    RequestTimeout {
        /// The allowed time in seconds.
        seconds: u64,
    },
    /// Occurs when the request target (path and query) is longer than the
    /// limit. 414.
    #[error("the request target is longer than {limit} bytes; shorten the query")]
    UriTooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// Occurs when a client sends more requests than its allowance. 429;
    /// the answer carries `Retry-After`.
    #[error("too many requests from this client ({what}); retry after {retry_after} s")]
    TooManyRequests {
        /// Which allowance was used up (`searches`, `pages`, `uploads`, `tokens`).
        what: &'static str,
        /// Seconds until the next request is allowed (at least 1).
        retry_after: u64,
    },
    /// Occurs when the request headers exceed the limit. 431.
    #[error("the request headers are larger than {limit} bytes")]
    HeadersTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// Occurs when another import holds the archive's writer. 503.
    #[error("another import is running on this archive; retry later")]
    Busy,
    /// Occurs when as many bulk downloads run as the server allows
    /// ([`crate::export::EXPORT_SLOTS`]). 503 with `Retry-After`.
    #[error("{0} bulk downloads are running, the most at once; retry in a minute")]
    ExportsBusy(usize),
    /// Occurs when a search does not finish within the server's query
    /// budget (`--query-budget`). 503 with `Retry-After`.
    #[error(
        "the search did not finish within the budget of {budget_ms} ms; narrow it (a smaller pattern, a filter, fewer results) or retry later"
    )]
    OverBudget {
        /// The budget in ms.
        budget_ms: u64,
    },
    /// Occurs when a write is asked of an archive opened read-only (a
    /// read-only or full volume). 503.
    #[error("the archive is read-only on this server; uploads are not accepted")]
    ReadOnly,
    /// Occurs when storage fails while writing (disk full). 507; the
    /// message says what was stored before it.
    #[error("{0}")]
    InsufficientStorage(String),
    /// Occurs when the archive fails (I/O, SQLite, a corrupt game) or a
    /// blocking task is cancelled. 500; the cause is logged, not shown.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    /// The problem `type` URI: a stable tag per kind of error.
    fn kind(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "bad-request",
            ApiError::Unauthorized(_) => "unauthorized",
            ApiError::WritesDisabled => "writes-disabled",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::NotFound(_) => "not-found",
            ApiError::PayloadTooLarge { .. } => "payload-too-large",
            ApiError::TooManyGameTrees { .. } => "too-many-game-trees",
            ApiError::ArchiveLimit(_) => "archive-limit",
            ApiError::NotSgf(_) => "not-sgf",
            ApiError::MethodNotAllowed { .. } => "method-not-allowed",
            ApiError::RequestTimeout { .. } => "request-timeout",
            ApiError::UriTooLong { .. } => "uri-too-long",
            ApiError::TooManyRequests { .. } => "too-many-requests",
            ApiError::HeadersTooLarge { .. } => "headers-too-large",
            ApiError::Busy => "busy",
            ApiError::ExportsBusy(_) => "exports-busy",
            ApiError::OverBudget { .. } => "over-budget",
            ApiError::ReadOnly => "read-only",
            ApiError::InsufficientStorage(_) => "insufficient-storage",
            ApiError::Internal(_) => "internal",
        }
    }
}

impl ApiError {
    /// The problem `detail`: the message, except for internal errors, whose
    /// cause stays in the log.
    fn detail(&self) -> String {
        match self {
            ApiError::Internal(_) => "internal error; the cause is in the server log".to_string(),
            other => other.to_string(),
        }
    }

    /// Logs an internal error's cause (once per answer).
    pub(crate) fn log(&self) {
        if let ApiError::Internal(cause) = self {
            tracing::error!(%cause, "internal error");
        }
    }

    /// The headers both forms carry besides the content's own.
    fn extra_headers(&self) -> Vec<(header::HeaderName, HeaderValue)> {
        match self {
            ApiError::Unauthorized(_) => vec![(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"keil\""),
            )],
            ApiError::Busy | ApiError::OverBudget { .. } => {
                vec![(header::RETRY_AFTER, HeaderValue::from_static("5"))]
            }
            ApiError::ExportsBusy(_) => {
                vec![(header::RETRY_AFTER, HeaderValue::from_static("60"))]
            }
            ApiError::TooManyRequests { retry_after, .. } => vec![(
                header::RETRY_AFTER,
                HeaderValue::from((*retry_after).max(1)),
            )],
            ApiError::MethodNotAllowed { allow, .. } => HeaderValue::from_str(allow)
                .map(|v| vec![(header::ALLOW, v)])
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// The closest error for a status that something other than our code
    /// answered with (an actix extractor, the router), with its message as
    /// the detail; `None` for a status no variant has.
    pub(crate) fn for_status(status: StatusCode, detail: String) -> Option<ApiError> {
        Some(match status.as_u16() {
            400 => ApiError::BadRequest(detail),
            404 => ApiError::NotFound(detail),
            500 => ApiError::Internal(detail),
            _ => return None,
        })
    }
}

/// The two documents an error can be: a problem document or an HTML page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `application/problem+json` (RFC 7807), for API clients.
    Json,
    /// An HTML page in the site's layout, for browsers.
    Html,
}

/// The most media ranges of an `Accept` header that [`Form::of`] reads.
const ACCEPT_RANGES: usize = 32;

impl Form {
    /// The form a request asks for: HTML when its `Accept` header ranks
    /// `text/html` (or `application/xhtml+xml`) above the JSON types
    /// (`application/json`, `application/problem+json`), JSON when it ranks
    /// a JSON type at least as high, else `default` (no `Accept`, `*/*`:
    /// the form of the route's own answers). Reads at most 32 ranges.
    pub fn of(headers: &header::HeaderMap, default: Form) -> Form {
        let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
            return default;
        };
        let (mut html, mut json) = (None::<f32>, None::<f32>);
        for range in accept.split(',').take(ACCEPT_RANGES) {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or("").trim();
            let q = parts
                .find_map(|p| p.trim().strip_prefix("q=")?.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            let slot = if media.eq_ignore_ascii_case("text/html")
                || media.eq_ignore_ascii_case("application/xhtml+xml")
            {
                &mut html
            } else if media.eq_ignore_ascii_case("application/json")
                || media.eq_ignore_ascii_case(PROBLEM_JSON)
            {
                &mut json
            } else {
                continue;
            };
            *slot = Some(slot.map_or(q, |old: f32| old.max(q)));
        }
        let (html, json) = (html.unwrap_or(0.0), json.unwrap_or(0.0));
        if html > 0.0 && html > json {
            Form::Html
        } else if json > 0.0 {
            Form::Json
        } else {
            default
        }
    }
}

/// What [`answer`] records in the answer's extensions: the problem type
/// (for the metrics) and the form it chose (for the documents middleware).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Answered {
    /// [`ApiError`]'s problem type tag (`over-budget`, `not-found`, ...).
    pub kind: &'static str,
    /// The form of the body.
    pub form: Form,
}

/// The HTML page of an error (`error.html`).
#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    a: &'a Assets,
    /// The archive's name ([`crate::state::Site`]).
    site: crate::assets::SiteName,
    title: String,
    status: String,
    message: String,
}

/// An error's HTML page (status and message in the site's layout, under
/// the archive's name `site`, with the page headers): the HTML form of [`crate::error::answer`].
pub(crate) fn error_page(
    status: StatusCode,
    message: String,
    site: crate::assets::SiteName,
) -> HttpResponse {
    let reason = status.canonical_reason().unwrap_or("Error");
    let page = ErrorPage {
        a: assets(),
        site,
        title: reason.to_string(),
        status: format!("{} {reason}", status.as_u16()),
        message,
    };
    html_response(status, page.render().unwrap_or_default())
}

/// The answer for an error: its status, its document in `form` (a problem
/// document, or an HTML page with the pages' headers), the extra headers
/// of its kind on both forms, and `Answered` in the extensions. The one
/// place that builds an error's answer. An HTML page is under the
/// product's name; `answer_in` names the archive.
pub fn answer(e: &ApiError, form: Form) -> HttpResponse {
    answer_in(e, form, crate::assets::SiteName::PRODUCT)
}

/// [`answer`], an HTML page under the archive's name `site` (the
/// [`crate::documents`] middleware knows it from the request's state).
pub fn answer_in(e: &ApiError, form: Form, site: crate::assets::SiteName) -> HttpResponse {
    let status = e.status_code();
    let detail = e.detail();
    let mut response = match form {
        Form::Json => {
            let problem = Problem {
                kind: format!("urn:keil:problem:{}", e.kind()),
                title: status.canonical_reason().unwrap_or("Error").to_string(),
                status: status.as_u16(),
                detail,
            };
            HttpResponse::build(status)
                .insert_header((header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON)))
                .body(serde_json::to_string(&problem).unwrap_or_default())
        }
        Form::Html => error_page(status, detail, site),
    };
    for (name, value) in e.extra_headers() {
        response.headers_mut().insert(name, value);
    }
    response.extensions_mut().insert(Answered {
        kind: e.kind(),
        form,
    });
    response
}

impl From<keil_archive::Error> for ApiError {
    fn from(e: keil_archive::Error) -> ApiError {
        use keil_archive::Error as E;
        match e {
            E::BadCursor(_) | E::TextQuery(_) | E::BadCollection(_) => {
                ApiError::BadRequest(e.to_string())
            }
            E::Pattern(p) => p.into(),
            E::Busy => ApiError::Busy,
            E::OverBudget { budget_ms } => ApiError::OverBudget { budget_ms },
            E::ReadOnly => ApiError::ReadOnly,
            e if e.is_out_of_space() => ApiError::InsufficientStorage(out_of_space(&e)),
            other => ApiError::Internal(other.to_string()),
        }
    }
}

/// The detail of a 507: what was stored before the storage failed.
fn out_of_space(e: &keil_archive::Error) -> String {
    match e {
        keil_archive::Error::Stopped { progress: p, .. } => format!(
            "the server's storage is full: {} games were stored ({} duplicates, {} refused, {} game trees read) in whole batches before it; the rest was not stored and nothing is half-written; send the rest later",
            p.imported, p.duplicates, p.invalid, p.games_read
        ),
        _ => "the server's storage is full; nothing was stored; retry later".into(),
    }
}

impl From<keil_archive::StoreError> for ApiError {
    /// A store error (a bad cursor, a spent budget) as the archive's error
    /// of the same name.
    fn from(e: keil_archive::StoreError) -> ApiError {
        keil_archive::Error::from(e).into()
    }
}

impl From<keil_archive::PatternError> for ApiError {
    /// A pattern that does not parse or has no place in its mode: 400,
    /// naming the parameter to fix.
    fn from(e: keil_archive::PatternError) -> ApiError {
        use keil_archive::PatternError as E;
        let what = match e {
            E::Board(_) => "size",
            E::Mode(_) => "mode",
            _ => "pattern",
        };
        ApiError::BadRequest(format!("{what}: {e}"))
    }
}

impl From<keil_archive::ExploreError> for ApiError {
    /// Explorer options a position search refuses: 400 naming the
    /// parameter to drop; for `variations`, how to ask instead.
    fn from(e: keil_archive::ExploreError) -> ApiError {
        match e {
            keil_archive::ExploreError::Variations => bad(
                e.option(),
                format!(
                    "{e}: leave it out, or search the board as a whole-board pattern (GET /api/v1/patterns) with variations=true"
                ),
            ),
            keil_archive::ExploreError::NextContradicts { .. } => bad(e.option(), e),
        }
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(e: actix_web::error::BlockingError) -> ApiError {
        ApiError::Internal(e.to_string())
    }
}

/// An RFC 7807 problem document, the body of every error response.
#[derive(Debug, Serialize, serde::Deserialize, ToSchema)]
pub struct Problem {
    /// A URI naming the kind of problem (`urn:keil:problem:not-found`).
    #[serde(rename = "type")]
    pub kind: String,
    /// The status code's reason phrase (`Not Found`).
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// What was wrong, for people.
    pub detail: String,
}

/// The media type of problem documents.
pub const PROBLEM_JSON: &str = "application/problem+json";

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::WritesDisabled | ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::PayloadTooLarge { .. }
            | ApiError::TooManyGameTrees { .. }
            | ApiError::ArchiveLimit(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::NotSgf(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::RequestTimeout { .. } => StatusCode::REQUEST_TIMEOUT,
            ApiError::UriTooLong { .. } => StatusCode::URI_TOO_LONG,
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::HeadersTooLarge { .. } => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            ApiError::Busy
            | ApiError::ExportsBusy(_)
            | ApiError::OverBudget { .. }
            | ApiError::ReadOnly => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::InsufficientStorage(_) => StatusCode::INSUFFICIENT_STORAGE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The problem document; a browser gets the HTML page instead (see
    /// [`crate::documents`]).
    fn error_response(&self) -> HttpResponse {
        self.log();
        answer(self, Form::Json)
    }
}

/// An error shown as an HTML page (with the API error's status and
/// message): what the pages answer.
#[derive(Debug)]
pub struct PageError(pub ApiError);

impl std::fmt::Display for PageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl From<ApiError> for PageError {
    fn from(e: ApiError) -> PageError {
        PageError(e)
    }
}

impl From<keil_archive::Error> for PageError {
    fn from(e: keil_archive::Error) -> PageError {
        PageError(e.into())
    }
}

impl ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        self.0.status_code()
    }

    /// The HTML page; an API client gets the problem document instead (see
    /// [`crate::documents`]).
    fn error_response(&self) -> HttpResponse {
        self.0.log();
        answer(&self.0, Form::Html)
    }
}

/// `text` quoted for an error message (Rust debug quoting), at most its
/// first 40 characters then `…`: a refusal names what was wrong without
/// echoing a long input back.
pub(crate) fn quote(text: &str) -> String {
    const SHOWN: usize = 40;
    match text.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("{:?}…", &text[..end]),
        None => format!("{text:?}"),
    }
}

/// A 400 refusal of `what` (a parameter, a path segment), saying why.
pub(crate) fn bad(what: &str, e: impl std::fmt::Display) -> ApiError {
    ApiError::BadRequest(format!("{what}: {e}"))
}
