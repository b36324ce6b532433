//! The text searches' parameters: the API's text search and player
//! search, and the search page's query.

use serde::Deserialize;

use super::values::{nonempty, parse_limit, required};
use crate::dto::{PlayersQuery, SearchQuery};
use crate::error::{ApiError, bad};

/// A text search (`GET /api/v1/search`): the query text, checked to read
/// as one ([`keil_archive::TextPlan::parse`]), and the limit (default 20,
/// at most 100).
///
/// # Errors
/// [`ApiError::BadRequest`] for no `q`, a `q` that does not read, or a bad
/// limit.
pub(crate) fn search_query(q: &SearchQuery) -> Result<(String, usize), ApiError> {
    let text = required("q", &q.q)?.to_string();
    keil_archive::TextPlan::parse(&text).map_err(|e| bad("q", e))?;
    let limit = parse_limit(nonempty(&q.limit), 20, 100)?;
    Ok((text, limit))
}

/// A player search (`GET /api/v1/players`): the name (`q`, required) and
/// the limit (default 20, at most 100).
///
/// # Errors
/// [`ApiError::BadRequest`] for no `q`, or a bad limit.
pub(crate) fn players_query(q: &PlayersQuery) -> Result<(String, usize), ApiError> {
    let name = required("q", &q.q)?.to_string();
    let limit = parse_limit(nonempty(&q.limit), 20, 100)?;
    Ok((name, limit))
}

/// `GET /search?q=`.
#[derive(Debug, Deserialize)]
pub struct SearchParams {
    /// A player's name or words of events, places, game names, comments.
    pub q: Option<String>,
}

impl SearchParams {
    /// The search page's text, trimmed (empty: nothing to search).
    pub(crate) fn text(self) -> String {
        self.q.unwrap_or_default().trim().to_string()
    }
}
