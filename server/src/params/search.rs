//! The text searches' parameters: the API's text search and player
//! search, and the search page's query.

use serde::Deserialize;

use super::values::{nonempty, parse_limit, required};
use crate::dto::{PlayersQuery, SearchQuery};
use crate::error::{ApiError, bad, quote};
use keil_archive::{TextCursor, TextPage};

/// A text search (`GET /api/v1/search`): the query text, checked to read
/// as one ([`keil_archive::TextPlan::parse`]), the limit (default 20, at
/// most [`keil_archive::MAX_TEXT_PAGE`]) and the page's cursor (`after`).
///
/// # Errors
/// [`ApiError::BadRequest`] for no `q`, a `q` that does not read, a bad
/// limit or a bad cursor.
pub(crate) fn search_query(q: &SearchQuery) -> Result<(String, TextPage), ApiError> {
    let text = required("q", &q.q)?.to_string();
    keil_archive::TextPlan::parse(&text).map_err(|e| bad("q", e))?;
    let limit = parse_limit(nonempty(&q.limit), 20, keil_archive::MAX_TEXT_PAGE)?;
    let after = parse_after(&q.after)?;
    Ok((text, TextPage { limit, after }))
}

/// The `after` parameter of a text search (the API's and the search
/// page's): absent or blank for the first page.
///
/// # Errors
/// [`ApiError::BadRequest`] naming `after` for anything that is not a
/// cursor ([`TextCursor`]).
pub(crate) fn parse_after(after: &Option<String>) -> Result<Option<TextCursor>, ApiError> {
    nonempty(after)
        .map(|s| {
            TextCursor::parse(s).ok_or_else(|| {
                bad(
                    "after",
                    format!(
                        "{} is not a page of a text search: give the `next` value of the page before (8 hex digits, `-`, a game id), or leave `after` out for the first page",
                        quote(s)
                    ),
                )
            })
        })
        .transpose()
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

/// `GET /search?q=&after=`.
#[derive(Debug, Deserialize)]
pub struct SearchParams {
    /// A player's name or words of events, places, game names, comments.
    pub q: Option<String>,
    /// The page of games: the cursor of the "next page" link.
    pub after: Option<String>,
}

impl SearchParams {
    /// The search page's text, trimmed (empty: nothing to search), and
    /// its page of games (20).
    ///
    /// # Errors
    /// [`ApiError::BadRequest`] naming `after` for a bad cursor.
    pub(crate) fn read(self) -> Result<(String, TextPage), ApiError> {
        let after = parse_after(&self.after)?;
        let text = self.q.unwrap_or_default().trim().to_string();
        Ok((text, TextPage { limit: 20, after }))
    }
}
