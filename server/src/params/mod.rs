//! Query strings and path segments, bounded before they are read, and
//! every request parameter read: the one parameter parser of the API and
//! the pages.
//!
//! Every handler's query parameters come through [`Query`] (the API) or
//! [`PageQuery`] (the pages), which refuse a parameter longer than its
//! limit ([`limit_of`]) or a query string with more than [`MAX_PARAMS`]
//! parameters with a 400 naming it, before any parser sees the value
//! (`query.rs`). Path segments that are not numbers are bounded by
//! [`segment`].
//!
//! Every parser behind these bounds is total (fuzzed in `fuzz/`): the
//! bounds keep what one request can ask small, and refusals short. The
//! readers, by what they read:
//!
//! - `values.rs`: one value (ids, plies, colours, days, limits, flags,
//!   ranks, kinds, sizes), which every other reader uses;
//! - `games.rs`: the game filters, the game lists and downloads, the
//!   refused records' list;
//! - `search.rs`: the text and player searches, the search page;
//! - `explore.rs`: the explorer's options of both kinds of search;
//! - `positions.rs`: the position search, the explorer page;
//! - `patterns.rs`: the pattern search, the pattern page's form;
//! - `board.rs`: the game viewer's ply, variation, numbers and record.
//!
//! This file only declares them and names what the rest of the crate
//! reads.

mod board;
mod explore;
mod games;
mod patterns;
mod positions;
mod query;
mod search;
mod values;

pub(crate) use board::View;
pub use board::ViewParams;
pub use explore::{MAX_LISTED, MAX_MOVE_LIMIT};
pub use games::MAX_KOMI;
pub(crate) use games::{games_query, refused_query, selection};
pub use patterns::pattern_query;
pub(crate) use patterns::{form_board, form_pattern, form_symmetry_colors};
pub use positions::{ExplorerParams, position_query};
pub use query::{
    MAX_NOTATION_BYTES, MAX_PARAM_BYTES, MAX_PARAMS, PageQuery, Query, limit_of, parse, segment,
};
pub use search::SearchParams;
pub(crate) use search::{players_query, search_query};
pub(crate) use values::{
    editing, nonempty, numbered_id, parse_flag, parse_id, parse_ply, parse_record_number,
};
