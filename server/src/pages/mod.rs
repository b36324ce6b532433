//! The web pages: server-rendered HTML (askama templates, checked at
//! compile time) over the same archive views as the API, for every game
//! kind through the rules' dispatch types
//! ([`AnyPosition`](keil_rules::AnyPosition),
//! [`AnyBoard`](keil_rules::AnyBoard), [`AnyGame`](keil_rules::AnyGame))
//! and the one SVG renderer ([`crate::svg`]).
//!
//! Every page works without JavaScript: each ply, continuation, filter and
//! page is a plain link or form. Small embedded modules
//! ([`crate::assets`], served by [`serve_asset`]) add keyboard replay,
//! typeahead, the theme toggle and the upload form (which needs them: the token goes only in
//! the `Authorization` header).
//!
//! Every HTML answer carries a strict Content-Security-Policy
//! ([`CSP`]): scripts and styles from this origin only, no inline script,
//! style or handler; templates escape every text.
//!
//! One module per page: `home`, `search`, `games` (the list and its
//! downloads), `game` (the viewer), `players`, `explorer` (positions),
//! `patterns`, `upload` and `refused` (the refused records kept). Beneath
//! them stands what they share: `respond` (rendering, the archive's work,
//! the downloads of what a search found, the static files), `names` (links,
//! and the names of kinds, sizes and colours), `forms` (empty fields), and
//! the parts that some pages draw alike (`board` and `tree` for the
//! viewers, `explore` for the explorer and the pattern page, `chart`).
//! This module only declares them, hands on the names the crate uses and
//! registers the pages ([`page_table`]).

mod board;
mod chart;
mod explore;
mod explorer;
mod forms;
mod game;
mod games;
mod home;
mod names;
mod patterns;
mod players;
mod refused;
mod respond;
mod search;
mod tree;
mod upload;

use crate::http::{RouteEntry, entry};

pub use crate::error::PageError;
pub use crate::http::CSP;
pub use crate::params::{PageQuery, SearchParams};
pub(crate) use explorer::root_query;
pub use games::{games_page, games_sgf, games_zip};
pub use home::home;
pub use players::player_page;
pub use respond::serve_asset;
pub use search::search_page;
pub use upload::upload_page;

/// The pages, in matching order (fixed paths first), registered by
/// [`crate::app_config`] after the API's [`crate::routes::route_table`].
pub fn page_table() -> Vec<RouteEntry> {
    vec![
        entry("GET", "/", home),
        entry("GET", "/games", games_page),
        entry("GET", "/games.sgf", games_sgf),
        entry("GET", "/games.zip", games_zip),
        entry("GET", "/positions", explorer::positions_page),
        entry("GET", "/positions.sgf", explorer::positions_sgf),
        entry("GET", "/positions.zip", explorer::positions_zip),
        entry("GET", "/patterns", patterns::patterns_page),
        entry("GET", "/patterns.sgf", patterns::patterns_sgf),
        entry("GET", "/patterns.zip", patterns::patterns_zip),
        entry("GET", "/search", search_page),
        entry("GET", "/upload", upload_page),
        entry("GET", "/refused", refused::refused_list_page),
        entry("GET", "/static/{name}", serve_asset),
        entry("GET", "/games/{id}", game::game_page),
        entry("GET", "/games/{id}/board", game::board_fragment),
        entry("GET", "/players/{name}", player_page),
        entry("GET", "/refused/{id}", refused::refused_page),
    ]
}
