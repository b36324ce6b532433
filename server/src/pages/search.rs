//! The search page (`GET /search?q=&after=`): players by name and games
//! by full text, each game with where it matched (the field, an excerpt
//! with the words marked, a comment's move linked to the viewer), 20 a
//! page with the total and a link to the next page.

use actix_web::web::Data;
use askama::Template;
use keil_archive::{PlayerHit, TextField, TextHit, TextMatch, TextResults};

use super::explore::viewer_href;
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

/// A game found by text, with where it matched.
struct HitRow {
    /// The game as game lists show it.
    game: Row,
    /// The viewer: at the comment's move when the best match is a
    /// comment.
    href: String,
    matches: Vec<MatchRow>,
}

/// Where a game matched: one field.
struct MatchRow {
    /// The field in words (`players`, `game name`, ...).
    field: &'static str,
    /// For a comment: the viewer at its move, and the move in words.
    at: Option<(String, String)>,
    /// The excerpt in pieces: (text, marked), escaped by the template.
    segments: Vec<(String, bool)>,
}

fn field_words(f: TextField) -> &'static str {
    match f {
        TextField::Player => "players",
        TextField::Event => "event",
        TextField::Place => "place",
        TextField::Name => "game name",
        TextField::Comment => "comment",
    }
}

impl MatchRow {
    fn new(id: keil_archive::GameId, m: &TextMatch) -> MatchRow {
        let at = m.node.map(|n| {
            let words = match n.variation {
                None if n.ply == 0 => "the start".to_string(),
                None => format!("move {}", n.ply),
                Some(v) => format!("move {} of variation {v}", n.ply),
            };
            (viewer_href(id, n.ply, n.variation), words)
        });
        MatchRow {
            field: field_words(m.field),
            at,
            segments: m
                .excerpt
                .segments()
                .into_iter()
                .map(|(t, marked)| (t.to_string(), marked))
                .collect(),
        }
    }
}

impl From<&TextHit> for HitRow {
    fn from(h: &TextHit) -> HitRow {
        let game = Row::from(&h.game);
        let matches: Vec<MatchRow> = h
            .matches
            .iter()
            .map(|m| MatchRow::new(h.game.id, m))
            .collect();
        let href = matches
            .first()
            .and_then(|m| m.at.as_ref())
            .map_or_else(|| game.href.clone(), |(href, _)| href.clone());
        HitRow {
            game,
            href,
            matches,
        }
    }
}

#[derive(Template)]
#[template(path = "search.html")]
struct SearchPage<'a> {
    a: &'a Assets,
    /// The archive's name ([`crate::state::Site`]).
    site: crate::assets::SiteName,
    title: String,
    q: String,
    /// Whether this is a later page (players are listed on the first).
    later: bool,
    players: Vec<PlayerRow>,
    hits: Vec<HitRow>,
    /// Games found, on every page.
    total: u64,
    /// The years read as a date filter, in words (empty: none).
    years: String,
    /// The next page's cursor (`after`).
    next: Option<String>,
    error: Option<String>,
}

/// `GET /search?q=&after=`: players by name (case and accents ignored)
/// and games by full text.
pub async fn search_page(state: Data<ServerState>, q: PageQuery<SearchParams>) -> PageResult {
    let (q, page) = q.into_inner().read()?;
    let text = q.clone();
    let later = page.after.is_some();
    let (players, results, error) = searching(&state, move |a, budget| {
        if text.is_empty() {
            return Ok((Vec::new(), TextResults::default(), None));
        }
        let players = if later {
            Vec::new()
        } else {
            a.players().search(&text, 20)?
        };
        let (results, error) = match a.search_text_page(&text, &page, budget) {
            Ok(r) => (r, None),
            Err(e @ keil_archive::Error::TextQuery(_)) => {
                (TextResults::default(), Some(e.to_string()))
            }
            Err(e) => return Err(e.into()),
        };
        Ok((players, results, error))
    })
    .await?;
    let next = results.next.map(|c| c.to_string());
    let years = results
        .years
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(" or ");
    render(&SearchPage {
        a: assets(),
        site: state.site.name(),
        title: if q.is_empty() {
            "Search".into()
        } else {
            format!("Search: {q}")
        },
        q,
        later,
        players: players.into_iter().map(PlayerRow::from).collect(),
        hits: results.hits.iter().map(HitRow::from).collect(),
        total: results.total,
        years,
        next,
        error,
    })
}
