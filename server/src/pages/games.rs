//! The game list (`GET /games?…`) with the API's filters, and its
//! downloads (`GET /games.sgf`, `GET /games.zip`).

use actix_web::http::StatusCode;
use actix_web::web::Data;
use askama::Template;

use super::forms::drop_empty;
use super::names::{Row, collection_options, kinds, link};
use super::respond::PageResult;
use crate::assets::{Assets, assets};
use crate::dto::GamesQuery;
use crate::error::{ApiError, PageError};
use crate::http::html_response;
use crate::params::PageQuery;
use crate::state::ServerState;

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
    handicap: String,
    komi: String,
    variant: String,
    collection: String,
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
            handicap: s(&q.selection.filter.handicap),
            komi: s(&q.selection.filter.komi),
            variant: s(&q.selection.filter.variant),
            collection: s(&q.selection.filter.collection),
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
            ("handicap", &self.handicap),
            ("komi", &self.komi),
            ("variant", &self.variant),
            ("collection", &self.collection),
            ("order", &self.order),
        ]
    }
}

/// A filter's name that answers to several people, with a link per
/// person to the same list of theirs alone.
struct NamedRow {
    /// `Player` or `Opponent`.
    field: &'static str,
    name: String,
    people: usize,
    choices: Vec<super::players::ChoiceRow>,
}

#[derive(Template)]
#[template(path = "games.html")]
struct GamesPage<'a> {
    a: &'a Assets,
    /// The archive's name ([`crate::state::Site`]).
    site: crate::assets::SiteName,
    title: &'a str,
    f: FilterEcho,
    kinds: Vec<(String, String)>,
    /// Whether the form offers Kaomi's variants (Kaomi is among `kinds`).
    variants: bool,
    /// The collections the form offers ([`super::names::collection_options`]).
    collections: Vec<(String, String)>,
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
    /// The player and opponent names that answer to several people.
    named: Vec<NamedRow>,
}

/// `GET /games?…`: the game list with the API's filters, state in the
/// URL, keyset pagination.
pub async fn games_page(state: Data<ServerState>, q: PageQuery<GamesQuery>) -> PageResult {
    let q = drop_empty(q.into_inner());
    let f = FilterEcho::from_query(&q);
    let first_page = q.cursor.is_none() && q.before.is_none();
    let limit = q.limit.clone().unwrap_or_default();
    let mut named = Vec::new();
    let (rows, next, prev, total, error) = match crate::params::games_query(q) {
        Ok((filter, page)) => {
            // A list or a count that scans runs as a search.
            let scans = filter.scans() || filter.count_scans();
            let (list, total, people) = crate::work::read(&state, scans, move |a, budget| {
                let games = a.games();
                Ok((
                    games.list_within(&filter, &page, budget)?,
                    games.count_within(&filter, budget)?,
                    crate::routes::named_people(a, &filter)?,
                ))
            })
            .await
            .map_err(PageError)?;
            named = people.into_iter().map(|n| named_row(&f, n)).collect();
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
    let kinds = kinds(&state.site, &f.kind);
    let page = GamesPage {
        a: assets(),
        site: state.site.name(),
        title: "Games",
        variants: kinds
            .iter()
            .any(|k| k.0 == keil_rules::GameKind::Kaomi.code())
            || !f.variant.is_empty(),
        collections: collection_options(&state.site),
        f,
        kinds,
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
        named,
    };
    let body = page
        .render()
        .map_err(|e| ApiError::Internal(format!("template: {e}")))?;
    Ok(html_response(status, body))
}

/// The choices of a name that answers to several people: each links to
/// this list with `#ID` in the name's place, the other filters kept.
fn named_row(f: &FilterEcho, n: crate::dto::NamedPeopleDto) -> NamedRow {
    let field = if n.field == "opponent" {
        "opponent"
    } else {
        "player"
    };
    let choices = n
        .choices
        .into_iter()
        .map(|c| {
            let id = format!("#{}", c.id);
            let pairs: Vec<(&str, &str)> = f
                .pairs()
                .into_iter()
                .map(|(k, v)| if k == field { (k, id.as_str()) } else { (k, v) })
                .collect();
            super::players::ChoiceRow {
                href: link("/games", &pairs),
                detail: super::players::choice_detail(c.games, &c.years, &c.ranks),
                name: c.name,
            }
        })
        .collect();
    NamedRow {
        field: if field == "player" {
            "Player"
        } else {
            "Opponent"
        },
        name: n.name,
        people: n.people,
        choices,
    }
}

/// `GET /games.sgf?…`: every game the list's filters select, oldest
/// first, as one SGF collection download, streamed whatever their number
/// ([`crate::export`]).
pub async fn games_sgf(state: Data<ServerState>, q: PageQuery<GamesQuery>) -> PageResult {
    let (filter, _) = crate::params::games_query(drop_empty(q.into_inner()))?;
    Ok(crate::export::download(
        state,
        crate::export::Selection::Filter(filter),
        keil_container::BundleFormat::Sgf,
    )?)
}

/// `GET /games.zip?…`: the same as a zip of one file per game.
pub async fn games_zip(state: Data<ServerState>, q: PageQuery<GamesQuery>) -> PageResult {
    let (filter, _) = crate::params::games_query(drop_empty(q.into_inner()))?;
    Ok(crate::export::download(
        state,
        crate::export::Selection::Filter(filter),
        keil_container::BundleFormat::Zip,
    )?)
}
