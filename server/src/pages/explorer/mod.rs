//! The position explorer: a whole board, the games that reached it and
//! what they played next (win rates per move), reached by playing moves
//! from the empty board (`play=`, any legal move, captures and the turn
//! by keil-rules) or by a notation (`position=`), with the board editor
//! (`edit=1`) beside it.
//!
//! A request reads as: its parameters read
//! ([`ExplorerParams::board`], with the archive's main board when they
//! name none), the search, the page's view ([`positions_view`]), the page
//! rendered. The links of the moves from the position are `moves.rs`'s.

mod moves;

pub(super) use moves::continuation_href;
use moves::{
    ContinuationRow, Continuations, LineLink, MoveLinks, board_marks, continuation_rows,
    explorer_svg, is_symmetric, line_links,
};

use actix_web::web::Data;
use askama::Template;
use keil_archive::{GameId, PositionAnswer, PositionHit, PositionQuery};
use keil_rules::{AnyPosition, Color};

use super::explore::{Fields, Listed, viewer_href};
use super::names::{collection_options, kinds, link, ply_word};
use super::respond::{PageResult, blocking, download_found, render, searching};
use crate::assets::{Assets, assets};
use crate::error::{ApiError, PageError};
use crate::params::{ExplorerParams, PageQuery, editing};
use crate::state::ServerState;

struct HitRow {
    id: GameId,
    ply: u32,
    href: String,
    black: String,
    white: String,
    result: String,
    date: String,
    next: String,
}

impl From<&PositionHit> for HitRow {
    /// A game found, its link showing the match.
    fn from(g: &PositionHit) -> HitRow {
        HitRow {
            id: g.game_id,
            ply: g.ply,
            href: viewer_href(g.game_id, g.ply, None),
            black: g.game.black.clone().unwrap_or_default(),
            white: g.game.white.clone().unwrap_or_default(),
            result: g.game.result.clone().unwrap_or_default(),
            date: g.game.date.clone(),
            next: g.next.clone().unwrap_or_default(),
        }
    }
}

#[derive(Template)]
#[template(path = "positions.html")]
struct PositionsPage<'a> {
    a: &'a Assets,
    /// The archive's name ([`crate::state::Site`]).
    site: crate::assets::SiteName,
    title: &'a str,
    /// `ply` or `move`: how the game's turns are named
    /// ([`super::names::ply_word`]).
    ply_word: &'static str,
    svg: String,
    edit: bool,
    edit_href: String,
    search_href: String,
    /// The games found as SGF and as a zip (up to `found_max`).
    downloads: (String, String),
    found_max: u64,
    kinds: Vec<(String, String)>,
    /// The collections the form offers ([`super::names::collection_options`]).
    collections: Vec<(String, String)>,
    kind: String,
    size: u8,
    notation: String,
    to_move: &'static str,
    symmetry: bool,
    swap: bool,
    /// The filter and option fields.
    f: Fields,
    /// Whether the form offers `next` (the pattern page; here the player
    /// to move says it).
    with_next: bool,
    history_svg: Option<String>,
    /// The games by collection (name, games, link), with the history.
    by_collection: Vec<(String, u64, String)>,
    top: Vec<Listed>,
    recent: Vec<Listed>,
    error: Option<String>,
    total: u64,
    /// The continuations shown at once (the most played moves on points).
    continuations: Vec<ContinuationRow>,
    /// The rest (passes, ends, rare moves), folded until asked.
    folded: Vec<ContinuationRow>,
    games: Vec<HitRow>,
    next: Option<String>,
    /// Playing from the empty board: the line so far, undo and pass.
    playing: bool,
    line: Vec<LineLink>,
    start_href: String,
    undo: Option<String>,
    pass: Option<String>,
}

/// The board most of the archive's games are played on (the explorer's
/// default): the kind and size with the most games; Keil side 7 for an
/// empty archive.
fn main_board_of(stats: &keil_archive::Stats) -> (keil_rules::GameKind, u8) {
    stats
        .by_board
        .iter()
        .max_by_key(|&&(_, _, n)| n)
        .map_or((keil_rules::GameKind::Keil, 7), |&(k, size, _)| (k, size))
}

/// [`main_board_of`] the archive's statistics.
async fn main_board(state: &Data<ServerState>) -> Result<(keil_rules::GameKind, u8), PageError> {
    let stats = blocking(state, |a| Ok(a.stats()?)).await?;
    Ok(main_board_of(&stats))
}

/// The search of the explorer's first page (`GET /positions`, no
/// parameters: the empty main board), which a node answers once after it
/// starts so that the first visitor's answer is the cache's
/// (`crate::warm`).
///
/// `None` when the archive's main board does not read as a board (never
/// for a board its games were stored on).
///
/// # Errors
/// Storage errors reading the archive's statistics.
pub(crate) fn root_query(
    archive: &keil_archive::Archive,
) -> keil_archive::Result<Option<PositionQuery>> {
    let main = main_board_of(&archive.stats()?);
    let params = ExplorerParams::default();
    Ok(params
        .board()
        .and_then(|b| b.query(Some(main)))
        .ok()
        .map(|(q, _)| q))
}

/// The search the explorer's parameters ask for, and the line played
/// (`play=`): the page's and its downloads'. The board is the archive's
/// main one ([`main_board`]) when the parameters name none.
async fn explorer_query(
    state: &Data<ServerState>,
    q: &ExplorerParams,
) -> Result<(PositionQuery, Option<crate::play::Line>), PageError> {
    let board = q.board()?;
    let main = if board.wants_main_board() {
        Some(main_board(state).await?)
    } else {
        None
    };
    Ok(board.query(main)?)
}

/// `GET /positions.sgf?…`, `/positions.zip?…`: the games the explorer
/// finds (its parameters), up to [`crate::export::FOUND_MAX`], in the
/// order of its list, as one SGF collection or a zip.
pub async fn positions_download(
    state: Data<ServerState>,
    q: PageQuery<ExplorerParams>,
    format: keil_container::BundleFormat,
) -> PageResult {
    let (mut query, _) = explorer_query(&state, &q.into_inner()).await?;
    query.limit = crate::export::FOUND_MAX;
    query.cursor = None;
    download_found(state, format, move |a, b| {
        let answer = a.positions().search_within(&query, b)?;
        Ok(answer.games.iter().map(|g| g.game_id).collect())
    })
    .await
}

/// `GET /positions?position=…`: the position explorer and board editor.
pub async fn positions_page(state: Data<ServerState>, q: PageQuery<ExplorerParams>) -> PageResult {
    let q = q.into_inner();
    let (query, line) = explorer_query(&state, &q).await?;
    let here = Here::new(&query, line.as_ref(), &q);
    let answer = searching(&state, move |a, b| {
        Ok(a.positions().search_within(&query, b)?)
    })
    .await;
    let (answer, error) = match answer {
        Ok(a) => (Some(a), None),
        Err(PageError(ApiError::BadRequest(m))) => (None, Some(m)),
        Err(e) => return Err(e),
    };
    render(&positions_view(
        here,
        line.as_ref(),
        answer.as_ref(),
        error,
        &state.site,
    ))
}

/// The position and the search the explorer shows, as its links keep
/// them.
struct Here {
    pos: AnyPosition,
    kind: String,
    /// `b`, `w` or empty: the player to move.
    to_move: &'static str,
    notation: String,
    size: String,
    symmetry: bool,
    swap: bool,
    edit: bool,
    /// The line played (`play=`), if the page plays one.
    play: Option<String>,
    /// The filter and option fields.
    fields: Fields,
}

impl Here {
    fn new(query: &PositionQuery, line: Option<&crate::play::Line>, q: &ExplorerParams) -> Here {
        let pos = query.position;
        Here {
            pos,
            kind: pos.kind().code().to_string(),
            to_move: match query.to_move {
                Some(Color::Black) => "b",
                Some(Color::White) => "w",
                None => "",
            },
            notation: pos.to_notation(None),
            size: pos.board().size().to_string(),
            symmetry: query.symmetry,
            swap: query.swap_colors,
            edit: editing(&q.edit),
            play: line.map(crate::play::Line::text),
            fields: Fields::new(&q.filter, &q.explore),
        }
    }

    /// The explorer's link to this position and search, with `extra`
    /// pairs.
    fn link(&self, extra: &[(&str, &str)]) -> String {
        let (position, to_move, play, size) = match &self.play {
            Some(t) => ("", "", t.as_str(), self.size.as_str()),
            None => (self.notation.as_str(), self.to_move, "", ""),
        };
        let mut pairs: Vec<(&str, &str)> = vec![
            ("kind", &self.kind),
            ("size", size),
            ("position", position),
            ("play", play),
            ("to_move", to_move),
            ("symmetry", if self.symmetry { "true" } else { "" }),
            ("colors", if self.swap { "swap" } else { "" }),
        ];
        pairs.extend(self.fields.pairs());
        // An extra parameter takes the place of the field of its name
        // (`link` keeps the last pair of a name).
        pairs.extend_from_slice(extra);
        link("/positions", &pairs)
    }

    /// How the page links a move from this position: the links after
    /// one more move search the symmetric images when this position has
    /// some (the archive counts its continuations over them) or the
    /// search does.
    fn move_links<'a>(&'a self, line: Option<&'a crate::play::Line>) -> MoveLinks<'a> {
        MoveLinks {
            pos: &self.pos,
            line,
            base: self.play.as_deref().unwrap_or(""),
            kind: &self.kind,
            size: &self.size,
            next_sym: if self.symmetry || is_symmetric(&self.pos) {
                "true"
            } else {
                ""
            },
            symmetry: self.symmetry,
        }
    }
}

/// What the search found, as the page shows it.
#[derive(Default)]
struct Found {
    total: u64,
    history_svg: Option<String>,
    /// The games by collection: name, games, the link to them alone.
    by_collection: Vec<(String, u64, String)>,
    top: Vec<Listed>,
    recent: Vec<Listed>,
    /// The continuations: shown, folded, and the shown ones' stones.
    continuations: Continuations,
    games: Vec<HitRow>,
    /// The next page of games.
    next: Option<String>,
}

impl Found {
    fn new(answer: &PositionAnswer, here: &Here, links: &MoveLinks<'_>) -> Found {
        let edit = here.edit;
        let continuations = continuation_rows(answer, links, edit);
        Found {
            total: answer.total_games,
            history_svg: answer
                .history
                .as_deref()
                .map(|h| super::explore::history_svg(h, "games")),
            by_collection: answer
                .collections
                .iter()
                .flatten()
                .map(|c| {
                    let href = here.link(&[("collection", &c.name)]);
                    (c.name.clone(), c.games, href)
                })
                .collect(),
            top: answer.top_games.iter().map(Listed::from).collect(),
            recent: answer.recent_games.iter().map(Listed::from).collect(),
            continuations,
            games: answer.games.iter().map(HitRow::from).collect(),
            next: answer
                .next_cursor
                .as_deref()
                .map(|c| here.link(&[("cursor", c), ("edit", if edit { "1" } else { "" })])),
        }
    }
}

/// The explorer page: the board with its marks, the line played, the
/// search's form and what it found (or why the search was refused),
/// under the archive's name `site`.
fn positions_view(
    here: Here,
    line: Option<&crate::play::Line>,
    answer: Option<&PositionAnswer>,
    error: Option<String>,
    site: &crate::state::Site,
) -> PositionsPage<'static> {
    let links = here.move_links(line);
    let found = answer.map_or_else(Found::default, |a| Found::new(a, &here, &links));
    let edit = here.edit;
    let Continuations {
        marks,
        shown: continuations,
        folded,
    } = found.continuations;
    let marks = board_marks(marks, &links, edit, here.to_move);
    let svg = explorer_svg(&here.pos, &here.notation, &marks, edit, found.total);
    let (line_links, start_href, undo, pass) = match line {
        Some(l) => line_links(l, &links),
        None => (Vec::new(), String::new(), None, None),
    };
    let edit_href = link(
        "/positions",
        &[
            ("kind", &here.kind),
            ("position", &here.notation),
            ("to_move", here.to_move),
            ("edit", "1"),
        ],
    );
    let search_href = here.link(&[]);
    let query_part = &search_href["/positions".len()..];
    let downloads = (
        format!("/positions.sgf{query_part}"),
        format!("/positions.zip{query_part}"),
    );
    let size = here.pos.board().size();
    PositionsPage {
        a: assets(),
        site: site.name(),
        title: "Position explorer",
        ply_word: ply_word(here.pos.kind()),
        svg,
        edit,
        edit_href,
        search_href,
        downloads,
        found_max: crate::export::FOUND_MAX as u64,
        kinds: kinds(site, &here.kind),
        collections: collection_options(site),
        kind: here.kind,
        size,
        notation: here.notation,
        to_move: here.to_move,
        symmetry: here.symmetry,
        swap: here.swap,
        f: here.fields,
        with_next: false,
        history_svg: found.history_svg,
        by_collection: found.by_collection,
        top: found.top,
        recent: found.recent,
        error,
        total: found.total,
        continuations,
        folded,
        games: found.games,
        next: found.next,
        playing: line.is_some(),
        line: line_links,
        start_href,
        undo,
        pass,
    }
}

/// `GET /positions.sgf?…`: [`positions_download`] as one SGF collection.
pub async fn positions_sgf(state: Data<ServerState>, q: PageQuery<ExplorerParams>) -> PageResult {
    positions_download(state, q, keil_container::BundleFormat::Sgf).await
}

/// `GET /positions.zip?…`: [`positions_download`] as a zip.
pub async fn positions_zip(state: Data<ServerState>, q: PageQuery<ExplorerParams>) -> PageResult {
    positions_download(state, q, keil_container::BundleFormat::Zip).await
}
