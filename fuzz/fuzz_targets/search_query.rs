//! Fuzz the API's readers of search query strings with any text: the
//! bounded query-string reader ([`keil_server::params::parse`]), then the
//! readers of a position search (`GET /api/v1/positions`, the explorer:
//! [`keil_server::params::position_query`]) and of a pattern search
//! (`GET /api/v1/patterns`: [`keil_server::params::pattern_query`]) with
//! their game filters and the explorer's options.
//!
//! Checks: no panic; every refusal is a 400 (the client's to fix) whose
//! detail is not empty; a query that reads keeps its bounds (page size,
//! top and recent games, move limit).

#![no_main]

use keil_server::ApiError;
use keil_server::dto::{PatternsQuery, PositionsQuery};
use keil_server::params::{self, MAX_LISTED, MAX_MOVE_LIMIT};
use libfuzzer_sys::fuzz_target;

/// A refusal must be a 400 that says something.
fn refused(e: &ApiError, text: &str) {
    match e {
        ApiError::BadRequest(detail) => assert!(!detail.is_empty(), "{text:?}"),
        other => panic!("{text:?}: not a 400: {other:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match params::parse::<PositionsQuery>(&text).and_then(params::position_query) {
        Ok(q) => {
            assert!(q.limit >= 1 && q.limit <= keil_archive::MAX_PAGE, "{text:?}");
            assert!(q.top_games <= MAX_LISTED && q.recent_games <= MAX_LISTED);
            assert!(q.move_limit.is_none_or(|m| m <= MAX_MOVE_LIMIT));
        }
        Err(e) => refused(&e, &text),
    }
    match params::parse::<PatternsQuery>(&text).and_then(params::pattern_query) {
        Ok(q) => {
            assert!(q.limit >= 1 && q.limit <= keil_archive::MAX_PAGE, "{text:?}");
            assert!(q.top_games <= MAX_LISTED && q.recent_games <= MAX_LISTED);
            assert!(q.move_limit.is_none_or(|m| m <= MAX_MOVE_LIMIT));
        }
        Err(e) => refused(&e, &text),
    }
});
