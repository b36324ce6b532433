//! The query string and the path's text segments, bounded before any
//! value is read: [`Query`] (the API) and [`PageQuery`] (the pages) read
//! the query string through [`parse`], which refuses a parameter longer
//! than its limit ([`limit_of`]) or more than [`MAX_PARAMS`] parameters;
//! [`segment`] bounds a text segment of the path.

use std::future::{Ready, ready};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use serde::de::DeserializeOwned;

use crate::error::{ApiError, PageError, quote};

/// The most parameters a query string may have (repeated names count
/// each time).
pub const MAX_PARAMS: usize = 64;

/// The longest value, in bytes (UTF-8, after percent-decoding), of a
/// parameter with no larger limit of its own: names, dates, numbers,
/// flags, cursors.
pub const MAX_PARAM_BYTES: usize = 200;

/// The longest position or pattern notation (`position`, `pattern`), in
/// bytes: a 19×19 board written point by point (`X:aa,ab,…`) takes about
/// 1,100.
pub const MAX_NOTATION_BYTES: usize = 2000;

/// The longest value of the parameter `name`, in bytes: `q` (a text
/// query or a player's name) [`keil_archive::MAX_TEXT_QUERY_BYTES`],
/// `position` and `pattern` [`MAX_NOTATION_BYTES`], any other
/// [`MAX_PARAM_BYTES`].
pub fn limit_of(name: &str) -> usize {
    match name {
        "q" => keil_archive::MAX_TEXT_QUERY_BYTES,
        "position" | "pattern" => MAX_NOTATION_BYTES,
        _ => MAX_PARAM_BYTES,
    }
}

/// Reads the query string `query` into `T` (a query type of
/// [`crate::dto`] or of the pages), checking the bounds first.
///
/// # Errors
/// [`ApiError::BadRequest`] naming the parameter (or name) over its limit, for more
/// than [`MAX_PARAMS`] parameters, or for a query string `T` does not
/// accept (a parameter given twice, bytes that are not UTF-8).
pub fn parse<T: DeserializeOwned>(query: &str) -> Result<T, ApiError> {
    let malformed =
        |e: actix_web::error::QueryPayloadError| ApiError::BadRequest(format!("query string: {e}"));
    let pairs = web::Query::<Vec<(String, String)>>::from_query(query).map_err(malformed)?;
    if pairs.len() > MAX_PARAMS {
        return Err(ApiError::BadRequest(format!(
            "the query string has {} parameters; the limit is {MAX_PARAMS}",
            pairs.len()
        )));
    }
    for (name, value) in pairs.iter() {
        if name.len() > MAX_PARAM_BYTES {
            return Err(ApiError::BadRequest(format!(
                "the query parameter name {} is {} bytes long; the limit is {MAX_PARAM_BYTES} bytes",
                quote(name),
                name.len()
            )));
        }
        let limit = limit_of(name);
        if value.len() > limit {
            return Err(ApiError::BadRequest(format!(
                "the query parameter {} is {} bytes long; the limit is {limit} bytes",
                quote(name),
                value.len()
            )));
        }
    }
    web::Query::<T>::from_query(query)
        .map(web::Query::into_inner)
        .map_err(malformed)
}

/// The query parameters of an API request as `T`, bounded ([`parse`]);
/// refusals are problem documents.
#[derive(Debug)]
pub struct Query<T>(pub T);

impl<T> Query<T> {
    /// The parameters.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Query<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned> FromRequest for Query<T> {
    type Error = ApiError;
    type Future = Ready<Result<Query<T>, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(parse(req.query_string()).map(Query))
    }
}

/// The query parameters of a page as `T`, bounded as the API's
/// ([`parse`]); refusals are error pages.
#[derive(Debug)]
pub struct PageQuery<T>(pub T);

impl<T> PageQuery<T> {
    /// The parameters.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for PageQuery<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned> FromRequest for PageQuery<T> {
    type Error = PageError;
    type Future = Ready<Result<PageQuery<T>, PageError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(parse(req.query_string()).map(PageQuery).map_err(PageError))
    }
}

/// A path segment that is text (a player's name): refused past
/// [`MAX_PARAM_BYTES`] with a 400 naming it (`what`).
///
/// # Errors
/// [`ApiError::BadRequest`] for a segment over the limit.
pub fn segment<'a>(what: &str, value: &'a str) -> Result<&'a str, ApiError> {
    if value.len() > MAX_PARAM_BYTES {
        return Err(ApiError::BadRequest(format!(
            "the {what} in the path is {} bytes long; the limit is {MAX_PARAM_BYTES} bytes",
            value.len()
        )));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Q {
        q: Option<String>,
        limit: Option<String>,
    }

    #[test]
    fn bounds_are_checked_before_the_values_are_read() {
        let q: Q = parse("q=a%20b&limit=3&other=x").unwrap();
        assert_eq!(
            (q.q.as_deref(), q.limit.as_deref()),
            (Some("a b"), Some("3"))
        );
        let long = format!("q={}", "a".repeat(keil_archive::MAX_TEXT_QUERY_BYTES + 1));
        let e = parse::<Q>(&long).unwrap_err().to_string();
        assert!(
            e.contains("parameter \"q\"") && e.contains("1000 bytes"),
            "{e}"
        );
        let e = parse::<Q>(&format!("limit={}", "9".repeat(201)))
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"limit\" is 201 bytes"), "{e}");
        let many = vec!["x=1"; MAX_PARAMS + 1].join("&");
        let e = parse::<Q>(&many).unwrap_err().to_string();
        assert!(e.contains("65 parameters"), "{e}");
        assert!(parse::<Q>("q=1&q=2").is_err());
        // A long name is quoted short.
        let e = parse::<Q>(&format!("{}=1", "n".repeat(10_000)))
            .unwrap_err()
            .to_string();
        assert!(e.len() < 200 && e.contains('…'), "{e}");
    }

    #[test]
    fn quote_shortens_on_a_char_boundary() {
        assert_eq!(quote("abc"), "\"abc\"");
        let q = quote(&"é".repeat(100));
        assert_eq!(q, format!("{:?}…", "é".repeat(40)));
    }
}
