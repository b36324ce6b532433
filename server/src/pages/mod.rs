//! The web pages: server-rendered HTML (askama templates, checked at
//! compile time) over the same archive views as the API, for every game
//! kind through the rules' dispatch types ([`AnyPosition`], [`AnyBoard`],
//! [`AnyGame`]) and the one SVG renderer ([`crate::svg`]).
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
//! `patterns`, `upload` and `refused` (the refused records kept); this module holds what they share (the page
//! table, errors, query parsing, rendering, links and names).

mod board;
mod chart;
mod explore;
mod explorer;
mod game;
mod games;
mod home;
mod patterns;
mod players;
mod refused;
mod search;
mod tree;
mod upload;

use std::fmt::Write as _;
use std::sync::Arc;

use actix_web::HttpResponse;
use actix_web::http::{StatusCode, header};
use actix_web::web::{self, Data};
use askama::Template;
use keil_archive::{Archive, GameId, GameSummary};
use keil_rules::{AnyBoard, AnyGame, AnyPosition, BoardSpec, Color, Move, ToMove};

use crate::dto::{GameFilterQuery, GamesQuery};
use crate::error::ApiError;
use crate::http::{RouteEntry, entry, html_response};
use crate::state::ServerState;

pub use crate::http::CSP;
pub use crate::params::{PageQuery, SearchParams};
pub use games::{games_page, games_sgf, games_zip};
pub use home::home;
pub use players::player_page;
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

// ---- responses ---------------------------------------------------------------

pub use crate::error::PageError;

type PageResult = Result<HttpResponse, PageError>;

fn render<T: Template>(t: &T) -> PageResult {
    Ok(html_response(StatusCode::OK, render_html(t)?))
}

/// A page's HTML.
fn render_html<T: Template>(t: &T) -> Result<String, PageError> {
    Ok(t.render()
        .map_err(|e| ApiError::Internal(format!("template: {e}")))?)
}

/// Runs an archive call on the blocking pool.
async fn blocking<T, F>(state: &Data<ServerState>, f: F) -> Result<T, PageError>
where
    T: Send + 'static,
    F: FnOnce(&Archive) -> Result<T, PageError> + Send + 'static,
{
    let archive = Arc::clone(&state.archive);
    web::block(move || f(&archive))
        .await
        .map_err(|e| PageError(e.into()))?
}

/// Runs a search on the search threads under the server's budget
/// ([`crate::work::search`]), as the API's searches do.
async fn searching<T, F>(state: &Data<ServerState>, f: F) -> Result<T, PageError>
where
    T: Send + 'static,
    F: FnOnce(&Archive, &keil_archive::Budget) -> Result<T, PageError> + Send + 'static,
{
    crate::work::search(state, move |a, b| f(a, b).map_err(|e| e.0))
        .await
        .map_err(PageError)
}

/// The download of the games a search found (the explorer's and the
/// pattern page's): `search` runs as a search does ([`searching`]) and
/// names the games; they stream as `format` ([`crate::export`]).
async fn download_found<F>(
    state: Data<ServerState>,
    format: keil_container::BundleFormat,
    search: F,
) -> PageResult
where
    F: FnOnce(&Archive, &keil_archive::Budget) -> Result<Vec<keil_archive::GameId>, PageError>
        + Send
        + 'static,
{
    let ids = searching(&state, search).await?;
    Ok(crate::export::download(
        state,
        crate::export::Selection::Found(ids),
        format,
    )?)
}

/// `GET /static/{name}`: an embedded file under its hashed name, cached
/// for a year as immutable.
///
/// # Errors
/// [`ApiError::NotFound`] for any other name (a document like every error).
pub async fn serve_asset(name: web::Path<String>) -> Result<HttpResponse, ApiError> {
    match crate::assets::find(&name) {
        Some((content_type, bytes)) => Ok(HttpResponse::Ok()
            .content_type(content_type)
            .insert_header((header::CACHE_CONTROL, "public, max-age=31536000, immutable"))
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .body(bytes)),
        None => Err(ApiError::NotFound(format!(
            "no static file {:?}: names carry the hash of their content; reload the page",
            name.as_str()
        ))),
    }
}

// ---- shared helpers ----------------------------------------------------------

/// Percent-encodes a query value (everything but unreserved characters).
fn enc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// `path?k=v&...` of the non-empty values.
fn link(path: &str, pairs: &[(&str, &str)]) -> String {
    let mut s = path.to_string();
    let mut sep = '?';
    for (k, v) in pairs.iter().filter(|(_, v)| !v.is_empty()) {
        let _ = write!(s, "{sep}{k}={}", enc(v));
        sep = '&';
    }
    s
}

/// A count short enough for a disc on the board: `999`, `1.2k`, `12k`,
/// `1.2M`.
fn compact_count(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..9_950 => format!("{:.1}k", n as f64 / 1e3),
        9_950..999_500 => format!("{:.0}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

fn kind_name(code: &str) -> String {
    code.parse::<keil_rules::GameKind>()
        .map_or_else(|_| code.to_string(), |k| k.name().to_string())
}

/// A board size for people: `side 7` (hexagon), `9×9` (square).
fn size_name(kind: &str, size: u8) -> String {
    let board = kind
        .parse::<keil_rules::GameKind>()
        .ok()
        .and_then(|k| BoardSpec::new(k, size).ok())
        .and_then(|s| s.board().ok());
    match board {
        Some(AnyBoard::Square(_)) => format!("{size}×{size}"),
        _ => format!("side {size}"),
    }
}

/// Every game kind the archive stores: `(code, name)`.
fn kinds() -> Vec<(String, String)> {
    keil_archive::GameKind::ALL
        .iter()
        .map(|k| (k.code().to_string(), kind_name(k.code())))
        .collect()
}

/// `B` or `W`.
fn letter(c: Color) -> &'static str {
    match c {
        Color::Black => "B",
        Color::White => "W",
    }
}

fn color_word(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// The position after `mv` by `to_move` (captures, or Kaomi's pushes, by
/// the kind's rules).
fn position_after(pos: &AnyPosition, to_move: Color, mv: Move) -> Option<AnyPosition> {
    // A Kaomi game never starts from a setup (kaomi-rules.md, "Records"):
    // a placement is the rules' push procedure on the position itself.
    if let (AnyPosition::Kaomi(p), Move::Place(at)) = (pos, mv) {
        let mut after = *p;
        if after.get(at).is_some() {
            return None;
        }
        after.place(at, to_move);
        return Some(AnyPosition::Kaomi(after));
    }
    let rules = crate::play::default_rules(pos.kind())?;
    let mut game = AnyGame::new(pos.spec(), rules, Some(pos), ToMove::Color(to_move)).ok()?;
    game.play_as(to_move, mv).ok()?;
    Some(game.position())
}

/// A row of a game table.
struct Row {
    id: GameId,
    href: String,
    kind_name: String,
    size_name: String,
    black: Option<String>,
    white: Option<String>,
    black_rank: String,
    white_rank: String,
    result: String,
    date: String,
    event: String,
    plies: u32,
}

impl From<&GameSummary> for Row {
    fn from(g: &GameSummary) -> Row {
        let code = g.kind.code();
        Row {
            id: g.id,
            href: format!("/games/{}", g.id),
            kind_name: kind_name(code),
            size_name: size_name(code, g.size),
            black: g.black.clone(),
            white: g.white.clone(),
            black_rank: g.shown_rank(Color::Black).unwrap_or_default(),
            white_rank: g.shown_rank(Color::White).unwrap_or_default(),
            result: g.result.clone().unwrap_or_default(),
            date: g.date.clone().unwrap_or_default(),
            event: g.event.clone().unwrap_or_default(),
            plies: g.plies,
        }
    }
}

/// Empty form fields mean "any": the API's parser reads an empty value as
/// a bad one, so they are dropped first.
fn drop_empty(mut q: GamesQuery) -> GamesQuery {
    drop_empty_filter(&mut q.selection.filter);
    for v in [
        &mut q.selection.kind,
        &mut q.selection.size,
        &mut q.order,
        &mut q.limit,
        &mut q.cursor,
        &mut q.before,
    ] {
        drop_blank(v);
    }
    q
}

fn drop_blank(v: &mut Option<String>) {
    if v.as_deref().is_some_and(|s| s.trim().is_empty()) {
        *v = None;
    }
}

/// [`drop_empty`] of the game filters alone.
fn drop_empty_filter(f: &mut GameFilterQuery) {
    for v in [
        &mut f.player,
        &mut f.color,
        &mut f.opponent,
        &mut f.event,
        &mut f.from,
        &mut f.to,
        &mut f.result,
        &mut f.winner,
        &mut f.variant,
        &mut f.ruleset,
        &mut f.status,
        &mut f.min_rank,
        &mut f.max_rank,
        &mut f.handicap,
        &mut f.komi,
    ] {
        drop_blank(v);
    }
}

#[cfg(test)]
mod tests {
    use super::explorer::continuation_href;
    use super::*;

    #[test]
    fn counts_fit_a_disc() {
        let shown: Vec<String> = [
            7, 999, 1_000, 1_234, 9_949, 9_950, 12_345, 999_499, 999_500, 2_345_678,
        ]
        .into_iter()
        .map(compact_count)
        .collect();
        assert_eq!(
            shown,
            [
                "7", "999", "1.0k", "1.2k", "9.9k", "10k", "12k", "999k", "1.0M", "2.3M"
            ]
        );
    }

    #[test]
    fn links_encode_values_and_skip_empty_ones() {
        assert_eq!(
            link(
                "/games",
                &[("player", "Luis Bolaños"), ("color", ""), ("x", "a&b")]
            ),
            "/games?player=Luis%20Bola%C3%B1os&x=a%26b"
        );
        assert_eq!(link("/games", &[]), "/games");
    }

    #[test]
    fn kinds_and_sizes_are_named_from_the_board_geometry() {
        assert_eq!(kind_name("keil"), "Keil");
        assert_eq!(kind_name("kaomi"), "Kaomi");
        assert_eq!(size_name("keil", 7), "side 7");
        assert_eq!(size_name("go", 9), "9×9");
    }

    #[test]
    fn share_fill_goes_from_blue_to_red() {
        assert_eq!(explorer::share_fill(1, 0), "#1e64d2");
        assert_eq!(explorer::share_fill(0, 1), "#c8322d");
    }

    #[test]
    fn a_continuation_link_plays_the_move_with_captures() {
        let spec = BoardSpec::new(keil_rules::GameKind::Go, 9).unwrap();
        let mut pos = AnyPosition::empty(spec).unwrap();
        let board = pos.board();
        let p = |n: &str| board.parse_point(n).unwrap();
        // A white stone in the corner with one liberty left.
        pos.set(p("aa"), Some(Color::White));
        pos.set(p("ba"), Some(Color::Black));
        let href =
            continuation_href(&pos, "go", Color::Black, Some(Move::Place(p("ab"))), false).unwrap();
        let mut want = AnyPosition::empty(spec).unwrap();
        want.set(p("ba"), Some(Color::Black));
        want.set(p("ab"), Some(Color::Black));
        assert_eq!(
            href,
            link(
                "/positions",
                &[
                    ("kind", "go"),
                    ("position", &want.to_notation(None)),
                    ("to_move", "w")
                ]
            )
        );
        assert_eq!(
            continuation_href(&pos, "go", Color::Black, None, false),
            None
        );
        // From the empty board, the link searches the symmetric images.
        let empty = AnyPosition::empty(spec).unwrap();
        let first = continuation_href(
            &empty,
            "go",
            Color::Black,
            Some(Move::Place(p("ee"))),
            false,
        )
        .unwrap();
        assert!(first.ends_with("&to_move=w&symmetry=true"), "{first}");
    }
}
