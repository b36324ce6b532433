//! The search page (`GET /search?q=`): players by name and games by full
//! text.

use actix_web::web::Data;
use askama::Template;
use keil_archive::PlayerHit;

use super::names::Row;
use super::respond::{PageResult, render, searching};
use crate::assets::{Assets, assets};
use crate::params::{PageQuery, SearchParams};
use crate::state::ServerState;

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
                keil_archive::MatchKind::Word => "a word of the name",
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
    let q = q.into_inner().text();
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
