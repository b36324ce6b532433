//! What a pattern search found, as the page shows it ([`Found`]): the
//! continuations as table rows and lettered stones on their points, the
//! games with their next moves named on the board, the history, the
//! counts per collection; and the search the page runs for it
//! ([`search`]).

use actix_web::web::Data;
use keil_archive::{GameId, MoveStats, PatternAnswer};
use keil_rules::{AnyBoard, Point};

use super::form::PatternForm;
use crate::error::{ApiError, PageError};
use crate::pages::explore::{Listed, viewer_href};
use crate::pages::respond::searching;
use crate::state::ServerState;
use crate::svg::PointMark;

/// A continuation's row in the table.
pub(super) struct ContinuationRow {
    pub(super) label: String,
    pub(super) point: String,
    /// The point on the board (none for a name the board does not read).
    pub(super) at: Option<Point>,
    pub(super) black: MoveStats,
    pub(super) white: MoveStats,
    /// The search of the pattern with Black's stone added here (when
    /// Black played it): the next step, as Kombilo's and waltheri's
    /// continuations are.
    pub(super) black_href: Option<String>,
    /// The same with White's stone.
    pub(super) white_href: Option<String>,
}

/// A game of the page's list.
pub(super) struct GameRow {
    pub(super) id: GameId,
    pub(super) ply: u32,
    /// The variation of the first match (the viewer's `var`), if in one.
    pub(super) variation: Option<u32>,
    pub(super) href: String,
    pub(super) hits: u32,
    pub(super) swapped: bool,
    pub(super) black: String,
    pub(super) white: String,
    pub(super) result: String,
    pub(super) date: String,
    pub(super) next: String,
}

/// What a search found, as the page shows it (all empty before one).
#[derive(Default)]
pub(super) struct Found {
    pub(super) searched: bool,
    pub(super) total: u64,
    pub(super) hits: u64,
    pub(super) placements: u32,
    pub(super) continuations: Vec<ContinuationRow>,
    /// The continuations on their points.
    pub(super) marks: Vec<PointMark>,
    pub(super) games: Vec<GameRow>,
    /// Where the next page of games starts.
    pub(super) next_cursor: Option<String>,
    pub(super) history_svg: Option<String>,
    /// With the history: the games by collection (name, games).
    pub(super) collections: Vec<(String, u64)>,
    pub(super) top: Vec<Listed>,
    pub(super) recent: Vec<Listed>,
}

/// Runs the form's search, unless it edits; a refused search (400) is
/// said on the form, which then edits.
///
/// # Errors
/// Any other refusal of the search (over budget, the archive's errors).
pub(super) async fn search(
    state: &Data<ServerState>,
    form: &mut PatternForm,
    board: &AnyBoard,
) -> Result<Found, PageError> {
    let query = match (form.query.clone(), form.edit) {
        (Some(query), false) => query,
        _ => return Ok(Found::default()),
    };
    match searching(state, move |a, b| {
        Ok(a.patterns().search_within(&query, b)?)
    })
    .await
    {
        Ok(answer) => Ok(found(&answer, board)),
        Err(PageError(ApiError::BadRequest(m))) => {
            form.errors.push(m);
            form.edit = true;
            Ok(Found::default())
        }
        Err(e) => Err(e),
    }
}

/// The answer as the page shows it: the continuations in a table and on
/// their points, the games with their next moves named on `board`.
fn found(answer: &PatternAnswer, board: &AnyBoard) -> Found {
    let mut marks = Vec::new();
    let mut continuations = Vec::new();
    for c in &answer.continuations {
        let at = board.parse_point(&c.point).ok();
        if let Some(p) = at {
            // A stone of the colour that played here more often, with the
            // continuation's letter (Kombilo's marking).
            marks.push(PointMark {
                point: p,
                class: if c.black.count >= c.white.count {
                    "next-b"
                } else {
                    "next-w"
                },
                label: c.label.clone(),
                href: None,
                title: format!(
                    "{} {}: Black {} times, White {} times",
                    c.label, c.display, c.black.count, c.white.count
                ),
                fill: None,
                data: Vec::new(),
            });
        }
        continuations.push(ContinuationRow {
            label: c.label.clone(),
            point: if c.display == c.point {
                c.display.clone()
            } else {
                format!("{} ({})", c.display, c.point)
            },
            at,
            black: c.black,
            white: c.white,
            black_href: None,
            white_href: None,
        });
    }
    let games = answer
        .games
        .iter()
        .map(|g| GameRow {
            id: g.game_id,
            ply: g.ply,
            variation: g.variation,
            href: viewer_href(g.game_id, g.ply, g.variation),
            hits: g.hits,
            swapped: g.swapped,
            black: g.game.black.clone().unwrap_or_default(),
            white: g.game.white.clone().unwrap_or_default(),
            result: g.game.result.clone().unwrap_or_default(),
            date: g.game.date.clone(),
            next: g
                .next
                .as_deref()
                .and_then(|n| board.parse_point(n).ok())
                .map(|p| board.display_name(p))
                .unwrap_or_default(),
        })
        .collect();
    Found {
        searched: true,
        total: answer.total_games,
        hits: answer.total_hits,
        placements: answer.placements,
        continuations,
        marks,
        games,
        next_cursor: answer.next_cursor.clone(),
        history_svg: answer
            .history
            .as_deref()
            .map(|h| crate::pages::explore::history_svg(h, "games")),
        collections: (answer.collections.iter().flatten())
            .map(|c| (c.name.clone(), c.games))
            .collect(),
        top: answer.top_games.iter().map(Listed::from).collect(),
        recent: answer.recent_games.iter().map(Listed::from).collect(),
    }
}
