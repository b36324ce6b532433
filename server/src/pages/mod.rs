//! The web pages: server-rendered HTML (askama templates, checked at
//! compile time) over the same archive views as the API, for every game
//! kind through the rules' dispatch types ([`AnyPosition`], [`AnyBoard`],
//! [`AnyGame`]) and the one SVG renderer ([`crate::svg`]).
//!
//! Every page works without JavaScript: each ply, continuation, filter and
//! page is a plain link or form. Small embedded modules
//! ([`assets`](mod@assets)) add keyboard replay, typeahead, the theme
//! toggle and the upload form (which needs them: the token goes only in
//! the `Authorization` header).
//!
//! Every HTML answer carries a strict Content-Security-Policy
//! ([`CSP`]): scripts and styles from this origin only, no inline script,
//! style or handler; templates escape every text.

pub mod assets;
mod chart;
mod explorer;
mod game;
mod patterns;
mod tree;

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::http::{StatusCode, header};
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse, ResponseError};
use askama::Template;
use keil_archive::{
    Archive, GameFilter, GameId, GameSummary, Order, Page, PlayerHit, PositionQuery,
};
use keil_rules::{AnyBoard, AnyGame, AnyPosition, BoardSpec, Color, Move, ToMove};
use serde::Deserialize;

use crate::ServerState;
use crate::dto::{GameFilterQuery, GamesQuery};
use crate::error::ApiError;
use crate::routes::{RouteEntry, entry};

use assets::{Assets, assets};
use explorer::continuation_href;

/// The Content-Security-Policy of every page: everything from this origin
/// only; no inline script, style or event handler; no plugins, frames,
/// `<base>`, or form posts elsewhere.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The pages, in matching order (fixed paths first), registered by
/// [`crate::app_config`] after the API's [`crate::routes::route_table`].
pub fn page_table() -> Vec<RouteEntry> {
    vec![
        entry("GET", "/", home),
        entry("GET", "/games", games_page),
        entry("GET", "/games.sgf", games_sgf),
        entry("GET", "/games.zip", games_zip),
        entry("GET", "/positions", explorer::positions_page),
        entry("GET", "/patterns", patterns::patterns_page),
        entry("GET", "/search", search_page),
        entry("GET", "/upload", upload_page),
        entry("GET", "/static/{name}", assets::serve),
        entry("GET", "/games/{id}", game::game_page),
        entry("GET", "/games/{id}/board", game::board_fragment),
        entry("GET", "/players/{name}", player_page),
    ]
}

// ---- responses ---------------------------------------------------------------

/// An error shown as an HTML page (with the API error's status and
/// message).
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

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    a: &'a Assets,
    title: String,
    status: String,
    message: String,
}

impl ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        self.0.status_code()
    }

    /// The HTML page; an API client gets the problem document instead (see
    /// [`crate::documents`]).
    fn error_response(&self) -> HttpResponse {
        self.0.log();
        crate::error::answer(&self.0, crate::error::Form::Html)
    }
}

/// An error's HTML page (status and message in the site's layout, with
/// the page headers): the HTML form of [`crate::error::answer`].
pub(crate) fn error_page(status: StatusCode, message: String) -> HttpResponse {
    let reason = status.canonical_reason().unwrap_or("Error");
    let page = ErrorPage {
        a: assets(),
        title: reason.to_string(),
        status: format!("{} {reason}", status.as_u16()),
        message,
    };
    html_response(status, page.render().unwrap_or_default())
}

type PageResult = Result<HttpResponse, PageError>;

/// The query parameters of a page as `T`, bounded as the API's
/// ([`crate::params::parse`]); refusals are error pages.
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

impl<T: serde::de::DeserializeOwned> actix_web::FromRequest for PageQuery<T> {
    type Error = PageError;
    type Future = std::future::Ready<Result<PageQuery<T>, PageError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        std::future::ready(
            crate::params::parse(req.query_string())
                .map(PageQuery)
                .map_err(PageError),
        )
    }
}

/// An HTML answer with the page headers (CSP, no sniffing, same-origin
/// referrers).
fn html_response(status: StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_SECURITY_POLICY, CSP))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "same-origin"))
        .body(body)
}

fn render<T: Template>(t: &T) -> PageResult {
    let body = t
        .render()
        .map_err(|e| ApiError::Internal(format!("template: {e}")))?;
    Ok(html_response(StatusCode::OK, body))
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

/// The name of a game kind for people: `Keil`, `Go`, `Kaomi`.
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

// ---- home ----------------------------------------------------------------------

/// Games of one kind on the home page.
struct KindCount {
    code: String,
    name: String,
    games: u64,
}

/// A continuation in a short table.
struct MoveRow {
    mv: String,
    href: Option<String>,
    games: u64,
    black_wins: u64,
    white_wins: u64,
}

/// The most played first moves of one kind (its most played size).
struct Opening {
    kind: String,
    name: String,
    size_name: String,
    total: u64,
    explore: String,
    moves: Vec<MoveRow>,
}

/// What the home page shows, computed at most every `HOME_TTL` (10 s).
pub struct HomeData {
    games: u64,
    players: u64,
    /// The name of the player with the most games: the search box's
    /// example.
    example: String,
    kinds: Vec<KindCount>,
    openings: Vec<Opening>,
    rows: Vec<Row>,
}

/// How long the home page's counts are served before they are computed
/// again (in the background: until then the older ones are served).
const HOME_TTL: Duration = Duration::from_secs(10);

/// The home page's data and when it was computed (uploads clear it), and
/// whether a refresh is running.
#[derive(Default)]
pub struct HomeCache(Mutex<HomeSlot>);

#[derive(Default)]
struct HomeSlot {
    data: Option<(Instant, Arc<HomeData>)>,
    refreshing: bool,
}

impl HomeCache {
    /// Forgets the cached data (after an upload stored games).
    pub fn clear(&self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).data = None;
    }

    /// The cached data, if any, and whether the caller should refresh it
    /// (it is stale and nobody else is refreshing it).
    fn get(&self) -> (Option<Arc<HomeData>>, bool) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let stale = slot
            .data
            .as_ref()
            .is_none_or(|(at, _)| at.elapsed() >= HOME_TTL);
        let refresh = stale && !slot.refreshing;
        if refresh {
            slot.refreshing = true;
        }
        (slot.data.as_ref().map(|(_, d)| Arc::clone(d)), refresh)
    }

    fn put(&self, d: Option<Arc<HomeData>>) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = d {
            slot.data = Some((Instant::now(), d));
        }
        slot.refreshing = false;
    }
}

fn home_data(a: &Archive) -> Result<HomeData, PageError> {
    let stats = a.stats()?;
    let example = a
        .players()
        .most_played(1)?
        .into_iter()
        .next()
        .map_or_else(String::new, |p| p.name);
    let kinds: Vec<KindCount> = stats
        .by_kind
        .iter()
        .map(|(k, n)| KindCount {
            code: k.code().to_string(),
            name: kind_name(k.code()),
            games: *n,
        })
        .collect();
    let mut openings = Vec::new();
    for (kind, _) in &stats.by_kind {
        // The kind's most played size.
        let mut best: Option<(u64, u8)> = None;
        for &(_, size, n) in stats.by_board.iter().filter(|b| b.0 == *kind) {
            if n > 0 && best.is_none_or(|(m, _)| n > m) {
                best = Some((n, size));
            }
        }
        let Some((_, size)) = best else { continue };
        let Ok(rk) = kind.code().parse::<keil_rules::GameKind>() else {
            continue;
        };
        let Ok(spec) = BoardSpec::new(rk, size) else {
            continue;
        };
        let Ok(empty) = AnyPosition::empty(spec) else {
            continue;
        };
        let query = PositionQuery {
            limit: 1,
            ..PositionQuery::new(empty)
        };
        let answer = a.positions().search(&query)?;
        let code = kind.code();
        let moves = answer
            .continuations
            .iter()
            .take(8)
            .map(|c| MoveRow {
                href: continuation_href(&empty, code, c.to_move, c.next, false),
                mv: format!("{} {}", letter(c.to_move), c.mv),
                games: c.games,
                black_wins: c.black_wins,
                white_wins: c.white_wins,
            })
            .collect();
        openings.push(Opening {
            kind: code.to_string(),
            name: kind_name(code),
            size_name: size_name(code, size),
            total: answer.total_games,
            explore: link(
                "/positions",
                &[("kind", code), ("position", &empty.to_notation(None))],
            ),
            moves,
        });
    }
    let list = a.games().list(
        &GameFilter::default(),
        &Page {
            order: Order::Descending,
            limit: 10,
            after: None,
            before: None,
        },
    )?;
    Ok(HomeData {
        games: stats.games,
        players: stats.players,
        example,
        kinds,
        openings,
        rows: list.games.iter().map(Row::from).collect(),
    })
}

#[derive(Template)]
#[template(path = "home.html")]
struct HomePage<'a> {
    a: &'a Assets,
    title: &'a str,
    games: u64,
    players: u64,
    example: &'a str,
    kinds: &'a [KindCount],
    openings: &'a [Opening],
    rows: &'a [Row],
}

/// `GET /`: the search box, counts per kind, the most played first moves
/// per kind, the latest games. The counts are computed at most every
/// `HOME_TTL`, in the background once a first answer exists.
pub async fn home(state: Data<ServerState>) -> PageResult {
    let data = match state.home.get() {
        (Some(d), false) => d,
        (Some(d), true) => {
            let st = state.clone();
            actix_web::rt::spawn(async move {
                let fresh = blocking(&st, home_data).await.ok().map(Arc::new);
                st.home.put(fresh);
            });
            d
        }
        (None, refresh) => {
            let fresh = blocking(&state, home_data).await.map(Arc::new);
            if refresh {
                state.home.put(fresh.as_ref().ok().cloned());
            }
            fresh?
        }
    };
    render(&HomePage {
        a: assets(),
        title: "Home",
        games: data.games,
        players: data.players,
        example: &data.example,
        kinds: &data.kinds,
        openings: &data.openings,
        rows: &data.rows,
    })
}

// ---- search ----------------------------------------------------------------------

/// `GET /search?q=`.
#[derive(Debug, Deserialize)]
pub struct SearchParams {
    /// A player's name or words of events, places, game names, comments.
    pub q: Option<String>,
}

struct PlayerRow {
    name: String,
    games: u64,
    matched: &'static str,
}

impl From<PlayerHit> for PlayerRow {
    fn from(h: PlayerHit) -> PlayerRow {
        PlayerRow {
            name: h.name,
            games: h.games,
            matched: match h.matched {
                keil_archive::MatchKind::Exact => "exact",
                keil_archive::MatchKind::Prefix => "prefix",
                keil_archive::MatchKind::Fuzzy => "close spelling",
            },
        }
    }
}

#[derive(Template)]
#[template(path = "search.html")]
struct SearchPage<'a> {
    a: &'a Assets,
    title: String,
    q: String,
    players: Vec<PlayerRow>,
    rows: Vec<Row>,
    error: Option<String>,
}

/// `GET /search?q=`: players by name (case and accents ignored) and games
/// by full text.
pub async fn search_page(state: Data<ServerState>, q: PageQuery<SearchParams>) -> PageResult {
    let q = q.into_inner().q.unwrap_or_default().trim().to_string();
    let text = q.clone();
    let (players, rows, error) = searching(&state, move |a, budget| {
        if text.is_empty() {
            return Ok((Vec::new(), Vec::new(), None));
        }
        let players = a.players().search(&text, 20)?;
        let (rows, error) = match a.search_text_within(&text, 20, budget) {
            Ok(hits) => (hits.iter().map(|h| Row::from(&h.game)).collect(), None),
            Err(e @ keil_archive::Error::TextQuery(_)) => (Vec::new(), Some(e.to_string())),
            Err(e) => return Err(e.into()),
        };
        Ok((players, rows, error))
    })
    .await?;
    render(&SearchPage {
        a: assets(),
        title: if q.is_empty() {
            "Search".into()
        } else {
            format!("Search: {q}")
        },
        q,
        players: players.into_iter().map(PlayerRow::from).collect(),
        rows,
        error,
    })
}

// ---- game list ---------------------------------------------------------------------

/// The list's filters as typed, to fill the form again.
#[derive(Default)]
struct FilterEcho {
    player: String,
    color: String,
    opponent: String,
    event: String,
    from: String,
    to: String,
    result: String,
    winner: String,
    kind: String,
    size: String,
    ruleset: String,
    status: String,
    min_rank: String,
    max_rank: String,
    order: String,
}

impl FilterEcho {
    fn from_query(q: &GamesQuery) -> FilterEcho {
        let s = |v: &Option<String>| v.clone().unwrap_or_default();
        FilterEcho {
            player: s(&q.selection.filter.player),
            color: s(&q.selection.filter.color).to_ascii_uppercase(),
            opponent: s(&q.selection.filter.opponent),
            event: s(&q.selection.filter.event),
            from: s(&q.selection.filter.from),
            to: s(&q.selection.filter.to),
            result: s(&q.selection.filter.result),
            winner: s(&q.selection.filter.winner).to_ascii_uppercase(),
            kind: s(&q.selection.kind),
            size: s(&q.selection.size),
            ruleset: s(&q.selection.filter.ruleset),
            status: s(&q.selection.filter.status),
            min_rank: s(&q.selection.filter.min_rank),
            max_rank: s(&q.selection.filter.max_rank),
            order: s(&q.order),
        }
    }

    fn pairs(&self) -> Vec<(&'static str, &str)> {
        vec![
            ("player", &self.player),
            ("color", &self.color),
            ("opponent", &self.opponent),
            ("event", &self.event),
            ("from", &self.from),
            ("to", &self.to),
            ("result", &self.result),
            ("winner", &self.winner),
            ("kind", &self.kind),
            ("size", &self.size),
            ("ruleset", &self.ruleset),
            ("status", &self.status),
            ("min_rank", &self.min_rank),
            ("max_rank", &self.max_rank),
            ("order", &self.order),
        ]
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
    ] {
        drop_blank(v);
    }
}

#[derive(Template)]
#[template(path = "games.html")]
struct GamesPage<'a> {
    a: &'a Assets,
    title: &'a str,
    f: FilterEcho,
    kinds: Vec<(String, String)>,
    statuses: Vec<String>,
    rows: Vec<Row>,
    next: Option<String>,
    /// The page before (keyset, `before=`).
    prev: Option<String>,
    /// Games passing the filters.
    total: Option<u64>,
    first: String,
    first_page: bool,
    download: String,
    download_zip: String,
    error: Option<String>,
}

/// `GET /games?…`: the game list with the API's filters, state in the
/// URL, keyset pagination.
pub async fn games_page(state: Data<ServerState>, q: PageQuery<GamesQuery>) -> PageResult {
    let q = drop_empty(q.into_inner());
    let f = FilterEcho::from_query(&q);
    let first_page = q.cursor.is_none() && q.before.is_none();
    let limit = q.limit.clone().unwrap_or_default();
    let (rows, next, prev, total, error) = match crate::params::games_query(q) {
        Ok((filter, page)) => {
            let (list, total) = blocking(&state, move |a| {
                Ok((a.games().list(&filter, &page)?, a.games().count(&filter)?))
            })
            .await?;
            let at = |name: &str, c: keil_archive::Cursor| {
                let mut pairs = f.pairs();
                let cursor = c.to_string();
                pairs.push(("limit", &limit));
                pairs.push((name, &cursor));
                link("/games", &pairs)
            };
            let next = list.next.map(|c| at("cursor", c));
            let prev = list.prev.map(|c| at("before", c));
            let rows = list.games.iter().map(Row::from).collect();
            (rows, next, prev, Some(total), None)
        }
        Err(e) => (Vec::new(), None, None, None, Some(e.to_string())),
    };
    let first = link("/games", &f.pairs());
    let download = link("/games.sgf", &f.pairs());
    let download_zip = link("/games.zip", &f.pairs());
    let status = if error.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    let page = GamesPage {
        a: assets(),
        title: "Games",
        f,
        kinds: kinds(),
        statuses: keil_archive::GameStatus::ALL
            .iter()
            .map(|s| s.code().to_string())
            .collect(),
        rows,
        next,
        prev,
        total,
        first,
        first_page,
        download,
        download_zip,
        error,
    };
    let body = page
        .render()
        .map_err(|e| ApiError::Internal(format!("template: {e}")))?;
    Ok(html_response(status, body))
}

/// `GET /games.sgf?…`: every game the list's filters select, oldest
/// first, as one SGF collection download, streamed whatever their number
/// ([`crate::export`]).
pub async fn games_sgf(state: Data<ServerState>, q: PageQuery<GamesQuery>) -> PageResult {
    let (filter, _) = crate::params::games_query(drop_empty(q.into_inner()))?;
    Ok(crate::export::download(
        state,
        filter,
        keil_container::BundleFormat::Sgf,
    )?)
}

/// `GET /games.zip?…`: the same as a zip of one file per game.
pub async fn games_zip(state: Data<ServerState>, q: PageQuery<GamesQuery>) -> PageResult {
    let (filter, _) = crate::params::games_query(drop_empty(q.into_inner()))?;
    Ok(crate::export::download(
        state,
        filter,
        keil_container::BundleFormat::Zip,
    )?)
}

// ---- players --------------------------------------------------------------------------

struct OpponentRow {
    name: String,
    games: u64,
    wins: u64,
    losses: u64,
}

#[derive(Template)]
#[template(path = "player.html")]
struct PlayerPage<'a> {
    a: &'a Assets,
    title: String,
    name: String,
    games: u64,
    wins: u64,
    losses: u64,
    black: keil_archive::ColorRecord,
    white: keil_archive::ColorRecord,
    first_date: String,
    last_date: String,
    chart: String,
    /// Games against oneself.
    self_play: u64,
    /// The names as written, with their games.
    spellings: Vec<(String, u64)>,
    opponents: Vec<OpponentRow>,
    rows: Vec<Row>,
}

/// `GET /players/{name}`: totals, by colour, results per year, opponents
/// with head-to-head records, the latest games.
pub async fn player_page(state: Data<ServerState>, name: web::Path<String>) -> PageResult {
    let name = name.into_inner();
    crate::params::segment("player name", &name)?;
    let (profile, years, rows) = blocking(&state, move |a| {
        let profile = crate::routes::find_player(a, &name)?.ok_or_else(|| {
            PageError(ApiError::NotFound(format!(
                "no player named {name:?}; search for the name on the home page"
            )))
        })?;
        let years = chart::Years::from_records(&a.players().results_by_year(profile.id)?);
        let filter = GameFilter {
            player: Some(profile.name.clone()),
            ..GameFilter::default()
        };
        let page = Page {
            order: Order::Descending,
            limit: 20,
            after: None,
            before: None,
        };
        let rows = a
            .games()
            .list(&filter, &page)?
            .games
            .iter()
            .map(Row::from)
            .collect();
        Ok((profile, years, rows))
    })
    .await?;
    let wins = profile.as_black.wins + profile.as_white.wins;
    let losses = profile.as_black.losses + profile.as_white.losses;
    render(&PlayerPage {
        a: assets(),
        title: profile.name.clone(),
        chart: years.svg(&profile.name),
        name: profile.name,
        games: profile.games,
        wins,
        losses,
        black: profile.as_black,
        white: profile.as_white,
        first_date: profile.first_date.unwrap_or_default(),
        last_date: profile.last_date.unwrap_or_default(),
        self_play: profile.self_play,
        spellings: profile
            .spellings
            .into_iter()
            .map(|s| (s.name, s.games))
            .collect(),
        opponents: profile
            .opponents
            .into_iter()
            .map(|o| OpponentRow {
                name: o.name,
                games: o.games,
                wins: o.wins,
                losses: o.losses,
            })
            .collect(),
        rows,
    })
}

// ---- upload ---------------------------------------------------------------------------

#[derive(Template)]
#[template(path = "upload.html")]
struct UploadPage<'a> {
    a: &'a Assets,
    title: &'a str,
    enabled: bool,
    origin: String,
}

/// `GET /upload`: the upload form (its script posts to the API).
pub async fn upload_page(req: HttpRequest, state: Data<ServerState>) -> PageResult {
    let info = req.connection_info();
    render(&UploadPage {
        a: assets(),
        title: "Upload",
        enabled: state.tokens.enabled(),
        origin: format!("{}://{}", info.scheme(), info.host()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
