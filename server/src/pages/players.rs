//! A player's page (`GET /players/{name}`): totals, results per year,
//! opponents, the latest games.

use actix_web::web::{self, Data};
use askama::Template;
use keil_archive::{GameFilter, Order, Page};

use super::chart;
use super::names::Row;
use super::respond::{PageResult, blocking, render};
use crate::assets::{Assets, assets};
use crate::error::{ApiError, PageError};
use crate::state::ServerState;

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
