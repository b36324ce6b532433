//! Players: search by name and profiles.

use actix_web::HttpResponse;
use actix_web::web::{self, Data};
use keil_archive::Archive;

use super::blocking;
use crate::dto::*;
use crate::error::{ApiError, Problem};
use crate::params::{Query, players_query};
use crate::state::ServerState;

/// A player's profile by name: as written (or `#ID`), else the one whose
/// name matches case- and accent-insensitively, else the one person the
/// name answers to (`Gennan`: `Inoue Gennan Inseki`).
pub(crate) fn find_player(
    a: &Archive,
    name: &str,
) -> keil_archive::Result<Option<keil_archive::PlayerProfile>> {
    let players = a.players();
    let id = match players.id_of(name)? {
        Some(id) => Some(id),
        None => players
            .search(name, 5)?
            .into_iter()
            .find(|h| h.matched == keil_archive::MatchKind::Exact)
            .map(|h| h.id),
    };
    let id = match id {
        Some(id) => Some(id),
        None => match players.answering_ids(name)?.as_slice() {
            [one] => Some(*one),
            _ => None,
        },
    };
    match id {
        Some(id) => players.profile(id),
        None => Ok(None),
    }
}

/// Why no player is named `name`, and what to ask instead: the people it
/// answers to (at most 5, by name and `#ID`), or a search.
pub(crate) fn no_player(a: &Archive, name: &str) -> keil_archive::Result<String> {
    let (people, total) = a.players().answering(name, 5)?;
    if people.is_empty() {
        return Ok(format!(
            "no player named {name:?}; search for part of the name (GET /api/v1/players?q=)"
        ));
    }
    let listed: Vec<String> = people
        .iter()
        .map(|p| format!("{:?} (#{}, {} games)", p.name, p.id, p.games))
        .collect();
    Ok(format!(
        "{name:?} answers to {total} players, not one: {}{}; ask for one by its name or #ID (%23ID in a path)",
        listed.join(", "),
        if total > people.len() { ", …" } else { "" }
    ))
}

/// The filter's `player` and `opponent` names that answer to several
/// people, with the people to choose from (the most games first, at most
/// 10).
pub(crate) fn named_people(
    a: &Archive,
    filter: &keil_archive::GameFilter,
) -> keil_archive::Result<Vec<NamedPeopleDto>> {
    let mut out = Vec::new();
    for (field, name) in [("player", &filter.player), ("opponent", &filter.opponent)] {
        let Some(name) = name else { continue };
        if a.players().answering_ids(name)?.len() < 2 {
            continue;
        }
        let (choices, people) = a.players().answering(name, 10)?;
        if people > 1 {
            out.push(NamedPeopleDto {
                field: field.into(),
                name: name.clone(),
                people,
                choices: choices.into_iter().map(PersonChoiceDto::from).collect(),
            });
        }
    }
    Ok(out)
}

/// Players by name: case- and accent-insensitive, prefixes and small
/// misspellings. A one-word name lists every person who answers to it
/// (`Shusaku`: `Honinbo Shusaku`, `Kuwahara Shusaku`, the account
/// `Shusaku`), with their games, years and ranks to choose from; each
/// hit's `filter` names it alone in a games filter.
#[utoipa::path(get, path = "/api/v1/players", tag = "players", params(PlayersQuery),
    responses(
        (status = 200, description = "Matching players, best first", body = PlayersDto),
        (status = 400, description = "No `q`, or a bad limit", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn search_players(
    state: Data<ServerState>,
    q: Query<PlayersQuery>,
) -> Result<HttpResponse, ApiError> {
    let (name, limit) = players_query(&q)?;
    let players = blocking(&state, move |a| {
        let mut out = Vec::new();
        for hit in a.players().search(&name, limit)? {
            let alone = a.players().answering_ids(&hit.name)? == [hit.id];
            let filter = if alone {
                hit.name.clone()
            } else {
                format!("#{}", hit.id)
            };
            out.push(PlayerHitDto {
                filter: Some(filter),
                ..PlayerHitDto::from(hit)
            });
        }
        Ok(out)
    })
    .await?;
    Ok(HttpResponse::Ok().json(PlayersDto { players }))
}

/// A player's profile: games and results per colour, dates, most frequent
/// opponents. The name is matched as written, else case- and
/// accent-insensitively.
#[utoipa::path(get, path = "/api/v1/players/{name}", tag = "players",
    params(("name" = String, Path, description = "The player's name")),
    responses(
        (status = 200, description = "The profile", body = PlayerDto),
        (status = 404, description = "No such player", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get_player(
    state: Data<ServerState>,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let name = name.into_inner();
    crate::params::segment("player name", &name)?;
    let profile = blocking(&state, move |a| match find_player(a, &name)? {
        Some(p) => Ok(p),
        None => Err(ApiError::NotFound(no_player(a, &name)?)),
    })
    .await?;
    Ok(HttpResponse::Ok().json(PlayerDto::from(profile)))
}
