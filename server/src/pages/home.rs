//! The home page (`GET /`): the search box, counts per kind, the most
//! played first moves per kind and the latest games, cached for a few
//! seconds ([`HomeCache`](crate::state::HomeCache)).

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::web::Data;
use askama::Template;
use keil_archive::{Archive, GameFilter, Order, Page, PositionQuery};
use keil_rules::{AnyPosition, BoardSpec};

use super::explorer::continuation_href;
use super::names::{Row, kind_name, letter, link, size_name};
use super::respond::{PageResult, blocking, render_html};
use crate::assets::{Assets, assets};
use crate::error::PageError;
use crate::http::html_response;
use crate::state::ServerState;

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

/// What the home page shows.
struct HomeData {
    games: u64,
    players: u64,
    /// Refused records kept (the home page links their list when there
    /// are some).
    refused_records: u64,
    /// The name of the player with the most games: the search box's
    /// example.
    example: String,
    kinds: Vec<KindCount>,
    openings: Vec<Opening>,
    rows: Vec<Row>,
}

/// The most played first moves of the kind `code` on its board of side
/// `size`; `None` when the kind or the board is unknown to the rules.
fn opening(a: &Archive, code: &str, size: u8) -> Result<Option<Opening>, PageError> {
    let Ok(rk) = code.parse::<keil_rules::GameKind>() else {
        return Ok(None);
    };
    let Ok(spec) = BoardSpec::new(rk, size) else {
        return Ok(None);
    };
    let Ok(empty) = AnyPosition::empty(spec) else {
        return Ok(None);
    };
    let query = PositionQuery {
        limit: 1,
        ..PositionQuery::new(empty)
    };
    let answer = a.positions().search(&query)?;
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
    Ok(Some(Opening {
        kind: code.to_string(),
        name: kind_name(code),
        size_name: size_name(code, size),
        total: answer.total_games,
        explore: link(
            "/positions",
            &[("kind", code), ("position", &empty.to_notation(None))],
        ),
        moves,
    }))
}

/// What the home page shows, read from the archive.
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
        if let Some(opening) = opening(a, kind.code(), size)? {
            openings.push(opening);
        }
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
        refused_records: stats.refused_records,
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
    /// The archive's name ([`crate::state::Site`]).
    site: crate::assets::SiteName,
    title: &'a str,
    games: u64,
    players: u64,
    refused_records: u64,
    example: &'a str,
    kinds: &'a [KindCount],
    collections: &'a [keil_archive::CollectionSummary],
    openings: &'a [Opening],
    rows: &'a [Row],
}

/// The home page's HTML, read from the archive, under the archive's name
/// `site`, with its `collections` (the caller's: read once, by the
/// [`crate::state::Site`]'s refresh or for this page alone).
fn home_html(
    a: &Archive,
    site: crate::assets::SiteName,
    collections: &[keil_archive::CollectionSummary],
) -> Result<String, PageError> {
    let data = home_data(a)?;
    render_html(&HomePage {
        a: assets(),
        site,
        title: "Home",
        games: data.games,
        players: data.players,
        refused_records: data.refused_records,
        example: &data.example,
        kinds: &data.kinds,
        collections,
        openings: &data.openings,
        rows: &data.rows,
    })
}

/// `GET /`: the search box, counts per kind, the most played first moves
/// per kind, the latest games. The page is computed at most every
/// 10 s (the state's `HomeCache`), in the background once a first answer exists.
pub async fn home(state: Data<ServerState>) -> PageResult {
    let html = match state.home.get() {
        (Some(d), false) => d,
        (Some(d), true) => {
            let st = state.clone();
            actix_web::rt::spawn(async move {
                // The archive is named again with its page: another
                // node's imports show here within 10 s of a visit.
                let named = st.clone();
                let fresh = blocking(&st, move |a| {
                    named.site.refresh(a);
                    home_html(a, named.site.name(), &named.site.collections())
                })
                .await
                .ok()
                .map(Arc::new);
                st.home.put(fresh);
            });
            d
        }
        (None, refresh) => {
            let site = state.site.name();
            let fresh = blocking(&state, move |a| {
                home_html(a, site, &a.games().collections()?)
            })
            .await
            .map(Arc::new);
            if refresh {
                state.home.put(fresh.as_ref().ok().cloned());
            }
            fresh?
        }
    };
    Ok(html_response(StatusCode::OK, String::clone(&html)))
}
