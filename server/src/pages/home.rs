//! The home page (`GET /`): the search box, counts per kind, the most
//! played first moves per kind and the latest games, cached for a few
//! seconds ([`HomeCache`]).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::web::Data;
use askama::Template;
use keil_archive::{Archive, GameFilter, Order, Page, PositionQuery};
use keil_rules::{AnyPosition, BoardSpec};

use super::explorer::continuation_href;
use super::{PageError, PageResult, Row, blocking, kind_name, letter, link, render, size_name};
use crate::ServerState;
use crate::assets::{Assets, assets};

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
    title: &'a str,
    games: u64,
    players: u64,
    refused_records: u64,
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
        refused_records: data.refused_records,
        example: &data.example,
        kinds: &data.kinds,
        openings: &data.openings,
        rows: &data.rows,
    })
}
