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
    /// What names them alone in a games filter.
    filter: String,
    games: u64,
    wins: u64,
    losses: u64,
}

/// One of the people a name answers to, as a page offers them to choose
/// from: the name, a link, and what tells them apart (games, years,
/// ranks).
pub(super) struct ChoiceRow {
    pub(super) name: String,
    pub(super) href: String,
    pub(super) detail: String,
}

/// What tells apart people who answer to one name: `400 games,
/// 1846–1862, 4d–7d` (the years and ranks left out when unknown).
pub(super) fn choice_detail(games: u64, years: &str, ranks: &[String]) -> String {
    let mut d = format!("{games} game{}", if games == 1 { "" } else { "s" });
    for part in [years.to_string(), ranks.join("\u{2013}")] {
        if !part.is_empty() {
            d.push_str(", ");
            d.push_str(&part);
        }
    }
    d
}

/// What names person `id`, shown as `name`, alone in a games filter: the
/// name, or `#ID` when it answers to other people too.
pub(super) fn filter_value(
    a: &keil_archive::Archive,
    name: &str,
    id: keil_archive::PlayerId,
) -> keil_archive::Result<String> {
    Ok(if a.players().answering_ids(name)? == [id] {
        name.to_string()
    } else {
        format!("#{id}")
    })
}

#[derive(Template)]
#[template(path = "player.html")]
struct PlayerPage<'a> {
    a: &'a Assets,
    /// The archive's name ([`crate::state::Site`]).
    site: crate::assets::SiteName,
    title: String,
    name: String,
    /// What names the player alone in a games filter.
    filter: String,
    /// The other people the name in the address answers to.
    others: Vec<ChoiceRow>,
    /// The name in the address.
    asked: String,
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
    /// The player's games by collection: name, games.
    collections: Vec<(String, u64)>,
    rows: Vec<Row>,
}

/// `GET /players/{name}`: totals, by colour, results per year, opponents
/// with head-to-head records, the latest games.
pub async fn player_page(state: Data<ServerState>, name: web::Path<String>) -> PageResult {
    let name = name.into_inner();
    crate::params::segment("player name", &name)?;
    let asked = name.clone();
    let (profile, years, rows, filter, others, opponent_filters) = blocking(&state, move |a| {
        let Some(profile) = crate::routes::find_player(a, &name)? else {
            return Err(PageError(ApiError::NotFound(crate::routes::no_player(
                a, &name,
            )?)));
        };
        let years = chart::Years::from_records(&a.players().results_by_year(profile.id)?);
        let filter = GameFilter {
            player: Some(format!("#{}", profile.id)),
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
        let mut others = Vec::new();
        if a.players().answering_ids(&name)?.len() > 1 {
            for c in a.players().answering(&name, 10)?.0 {
                if c.id != profile.id {
                    others.push(ChoiceRow {
                        href: format!("/players/%23{}", c.id),
                        detail: choice_detail(c.games, &c.span.years(), &c.span.ranks),
                        name: c.name,
                    });
                }
            }
        }
        let filter = filter_value(a, &profile.name, profile.id)?;
        let opponent_filters = profile
            .opponents
            .iter()
            .map(|o| filter_value(a, &o.name, o.id))
            .collect::<keil_archive::Result<Vec<_>>>()?;
        Ok((profile, years, rows, filter, others, opponent_filters))
    })
    .await?;
    let wins = profile.as_black.wins + profile.as_white.wins;
    let losses = profile.as_black.losses + profile.as_white.losses;
    render(&PlayerPage {
        a: assets(),
        site: state.site.name(),
        title: profile.name.clone(),
        chart: years.svg(&profile.name),
        name: profile.name,
        filter,
        others,
        asked,
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
        collections: profile
            .collections
            .into_iter()
            .map(|c| (c.name, c.games))
            .collect(),
        opponents: profile
            .opponents
            .into_iter()
            .zip(opponent_filters)
            .map(|(o, filter)| OpponentRow {
                name: o.name,
                filter,
                games: o.games,
                wins: o.wins,
                losses: o.losses,
            })
            .collect(),
        rows,
    })
}
