//! `GET /patterns`: the pattern search page. A board (square or hexagon)
//! on which every point is a link that cycles its cell (outside the
//! region → black → white → empty → any → outside), the form of the API's
//! parameters, and the answer: continuations labelled on their points and
//! in a table, and the games, each a link to the game at its match. Works
//! without JavaScript: the pattern travels in the URL.
//!
//! A request reads as: its parameters read (`form.rs`'s
//! [`PatternForm::read`]), the search run unless editing (`found.rs`'s
//! [`search`], whose [`Found`] is what the page shows of the answer), the
//! page's view ([`patterns_view`]) with the pattern drawn
//! ([`pattern_svg`]), the page rendered.

mod form;
mod found;

use form::{PatternForm, PatternParams};
use found::{ContinuationRow, Found, GameRow, search};

use actix_web::http::StatusCode;
use actix_web::web::Data;
use askama::Template;
use keil_archive::{Cell, Pattern, PatternMode};
use keil_rules::{AnyBoard, AnyPosition, BoardSpec, Color, Point};

use super::explore::{Fields, Listed};
use super::names::{collection_options, kinds, link, ply_word};
use super::respond::{PageResult, download_found};
use crate::assets::{Assets, assets};
use crate::error::{ApiError, PageError};
use crate::http::html_response;
use crate::params::{PageQuery, form_symmetry_colors};
use crate::state::ServerState;
use crate::svg::{self, PointMark};

/// The cell after `c` in the editor's cycle (`None`: outside the region).
fn cycle(c: Option<Cell>) -> Option<Cell> {
    match c {
        None => Some(Cell::Black),
        Some(Cell::Black) => Some(Cell::White),
        Some(Cell::White) => Some(Cell::Empty),
        Some(Cell::Empty) => Some(Cell::Any),
        Some(Cell::Any | Cell::BlackOrEmpty | Cell::WhiteOrEmpty) => None,
    }
}

fn cell_word(c: Option<Cell>) -> &'static str {
    match c {
        None => "not in the pattern",
        Some(Cell::Black) => "black",
        Some(Cell::White) => "white",
        Some(Cell::Empty) => "empty",
        Some(Cell::Any) => "anything",
        Some(Cell::BlackOrEmpty) => "black or empty",
        Some(Cell::WhiteOrEmpty) => "white or empty",
    }
}

#[derive(Template)]
#[template(path = "patterns.html")]
struct PatternsPage<'a> {
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
    /// The games found as SGF and as a zip (up to `found_max`).
    downloads: (String, String),
    found_max: u64,
    clear_href: String,
    kinds: Vec<(String, String)>,
    /// The collections the form offers ([`super::names::collection_options`]).
    collections: Vec<(String, String)>,
    kind: String,
    size: String,
    board_size: u8,
    pattern: String,
    modes: Vec<(&'static str, &'static str)>,
    mode: String,
    /// How the search placed the pattern (the mode, and whether it was
    /// chosen or followed from the pattern).
    placed: String,
    /// The mode the search used (`corner`, ...; empty before a search).
    placed_code: &'static str,
    symmetry: bool,
    swap: bool,
    /// The filter and option fields.
    f: Fields,
    /// Whether the form offers `next` (always here).
    with_next: bool,
    history_svg: Option<String>,
    /// The games by collection (name, games, link), with the history.
    by_collection: Vec<(String, u64, String)>,
    top: Vec<Listed>,
    recent: Vec<Listed>,
    error: Option<String>,
    searched: bool,
    total: u64,
    hits: u64,
    placements: u32,
    continuations: Vec<ContinuationRow>,
    games: Vec<GameRow>,
    next: Option<String>,
}

/// `GET /patterns?pattern=…`: the pattern search page and editor. The
/// form read ([`PatternForm::read`]), the search run unless editing
/// ([`search`]), the page built ([`patterns_view`]) and rendered.
pub async fn patterns_page(state: Data<ServerState>, q: PageQuery<PatternParams>) -> PageResult {
    let mut form = PatternForm::read(q.into_inner());
    let board = AnyPosition::empty(form.spec)
        .map_err(|e| PageError(ApiError::BadRequest(format!("size: {e}"))))?
        .board();
    let found = search(&state, &mut form, &board).await?;
    let page = patterns_view(form, &board, found, &state.site)?;
    let status = if page.error.is_none() {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    let body = page
        .render()
        .map_err(|e| ApiError::Internal(format!("template: {e}")))?;
    Ok(html_response(status, body))
}

/// The page's links: the form's parameters with another pattern and
/// extra pairs.
struct Here {
    kind: String,
    /// The size, unsaid when the kind's usual one: changing the game in
    /// the form then gives that game's usual board.
    size: String,
    mode: String,
    symmetry: bool,
    swap: bool,
}

impl Here {
    /// `/patterns` with `pattern`, the form's parameters, the `fields`
    /// and `extra`.
    fn href(&self, fields: &Fields, pattern: &str, extra: &[(&str, &str)]) -> String {
        let mut pairs: Vec<(&str, &str)> = vec![
            ("pattern", pattern),
            ("kind", &self.kind),
            ("size", &self.size),
            ("mode", &self.mode),
            ("symmetry", if self.symmetry { "true" } else { "false" }),
            ("colors", if self.swap { "swap" } else { "same" }),
        ];
        pairs.extend(fields.pairs());
        // An extra parameter takes the place of the field of its name
        // (`link` keeps the last pair of a name).
        pairs.extend_from_slice(extra);
        link("/patterns", &pairs)
    }
}

/// How the search placed the pattern, said on the page (`auto`: followed
/// from the pattern's edges).
fn placed_words(mode: PatternMode, mode_text: &str) -> String {
    let word = match mode {
        PatternMode::Fixed => "exactly where drawn",
        PatternMode::Corner => "in a corner",
        PatternMode::Side => "along a side",
        PatternMode::Centre => "in the centre (touching no edge)",
        PatternMode::Anywhere => "anywhere",
    };
    if mode_text == "auto" {
        format!("{word} (auto: from the pattern's edges)")
    } else {
        word.to_string()
    }
}

/// The modes the form offers: each code and its words.
const MODES: &[(&str, &str)] = &[
    ("auto", "where the pattern suggests"),
    ("anywhere", "anywhere"),
    ("corner", "in a corner"),
    ("side", "along a side"),
    ("centre", "in the centre (no edge)"),
    ("fixed", "exactly where drawn"),
];

/// The page's view model: the form echoed, its links, the board drawn
/// and what the search found, under the archive's name `site`.
///
/// # Errors
/// A board the form's kind and size do not make (400).
fn patterns_view(
    form: PatternForm,
    board: &AnyBoard,
    found: Found,
    site: &crate::state::Site,
) -> Result<PatternsPage<'static>, PageError> {
    let (symmetry, swap) = match &form.query {
        Some(q) => (q.symmetry, q.swap_colors),
        None => form_symmetry_colors(&form.api),
    };
    let spec = form.spec;
    let here = Here {
        kind: spec.kind.code().to_string(),
        size: if spec.size == spec.kind.default_size() {
            String::new()
        } else {
            spec.size.to_string()
        },
        mode: form.mode_text.clone(),
        symmetry,
        swap,
    };
    let fields = Fields::new(&form.api.filter, &form.api.explore);
    let notation = form
        .pattern
        .as_ref()
        .map_or(form.text.clone(), |p| p.to_string());
    let mut found = found;
    if let Some(pattern) = &form.pattern {
        link_continuations(pattern, &mut found, &here, &fields);
    }
    let svg = pattern_svg(&form, board, &found, &here, &fields)?;
    let search_href = here.href(&fields, &notation, &[]);
    let next = found
        .next_cursor
        .as_deref()
        .map(|c| here.href(&fields, &notation, &[("cursor", c)]));
    let by_collection = (found.collections.iter())
        .map(|(name, n)| {
            let href = here.href(&fields, &notation, &[("collection", name)]);
            (name.clone(), *n, href)
        })
        .collect();
    Ok(PatternsPage {
        a: assets(),
        site: site.name(),
        title: "Pattern search",
        ply_word: ply_word(spec.kind),
        svg,
        edit: form.edit,
        edit_href: here.href(&fields, &notation, &[("edit", "1")]),
        downloads: {
            let q = &search_href["/patterns".len()..];
            (format!("/patterns.sgf{q}"), format!("/patterns.zip{q}"))
        },
        found_max: crate::export::FOUND_MAX as u64,
        clear_href: here.href(&fields, "", &[("edit", "1")]),
        kinds: kinds(site, &here.kind),
        collections: collection_options(site),
        kind: here.kind,
        size: here.size,
        board_size: spec.size,
        pattern: notation,
        placed: form
            .mode
            .map(|m| placed_words(m, &form.mode_text))
            .unwrap_or_default(),
        placed_code: form.mode.map_or("", PatternMode::code),
        modes: MODES.to_vec(),
        mode: here.mode,
        symmetry,
        swap,
        f: fields,
        with_next: true,
        history_svg: found.history_svg,
        by_collection,
        top: found.top,
        recent: found.recent,
        error: (!form.errors.is_empty()).then(|| form.errors.join("; ")),
        searched: found.searched,
        total: found.total,
        hits: found.hits,
        placements: found.placements,
        continuations: found.continuations,
        games: found.games,
        next,
    })
}

/// Makes each continuation a link to the next step: the search of
/// `pattern` with the move's stone added on its point (inside the
/// region: a continuation is the first later move there), the form's
/// other parameters kept. The table links each colour that played it;
/// the board's stone, the colour that played it more often.
fn link_continuations(pattern: &Pattern, found: &mut Found, here: &Here, fields: &Fields) {
    let extended = |p: Point, stone: Cell| {
        let cells = pattern
            .cells()
            .iter()
            .copied()
            .filter(|&(q, _)| q != p)
            .chain(std::iter::once((p, stone)));
        Pattern::new(pattern.kind(), pattern.board().size(), cells)
            .ok()
            .map(|next| here.href(fields, &next.to_string(), &[]))
    };
    for row in &mut found.continuations {
        if let Some(p) = row.at {
            row.black_href = (row.black.count > 0)
                .then(|| extended(p, Cell::Black))
                .flatten();
            row.white_href = (row.white.count > 0)
                .then(|| extended(p, Cell::White))
                .flatten();
        }
    }
    for m in &mut found.marks {
        let stone = if m.class == "next-w" {
            Cell::White
        } else {
            Cell::Black
        };
        m.href = extended(m.point, stone);
    }
}

/// The pattern on the board: its stones, its region tinted, the
/// continuations found on their points. While editing, every point is a
/// link that cycles it (the path without script: [`Here::href`] with
/// the form's `fields`) and carries its cell for the editor script,
/// which draws the stones itself (pattern.js).
///
/// # Errors
/// A board the form's kind and size do not make (400).
fn pattern_svg(
    form: &PatternForm,
    board: &AnyBoard,
    found: &Found,
    here: &Here,
    fields: &Fields,
) -> Result<String, PageError> {
    let spec = form.spec;
    let edit = form.edit;
    let cells: Vec<(Point, Cell)> = form
        .pattern
        .as_ref()
        .map_or_else(Vec::new, |p| p.cells().to_vec());
    let mut position = AnyPosition::empty(spec)
        .map_err(|e| PageError(ApiError::BadRequest(format!("size: {e}"))))?;
    if !edit {
        for &(p, c) in &cells {
            match c {
                Cell::Black => position.set(p, Some(Color::Black)),
                Cell::White => position.set(p, Some(Color::White)),
                _ => {}
            }
        }
    }
    let mut region = region_marks(spec, edit, board, &cells, here, fields);
    region.extend(found.marks.iter().cloned());
    let caption = if edit {
        format!("pattern editor · {} {}", spec.kind.name(), spec.size)
    } else {
        format!(
            "{} game{} · {} hit{}",
            found.total,
            if found.total == 1 { "" } else { "s" },
            found.hits,
            if found.hits == 1 { "" } else { "s" }
        )
    };
    Ok(svg::render_marked(&position, &caption, None, &region))
}

/// The pattern's points on the board: its region's cells (a wildcard's
/// character on its point), or while editing every point, each a link
/// that cycles its cell ([`Here::href`] with the form's `fields`) and
/// carries its name, coordinates and cell for the editor script.
fn region_marks(
    spec: BoardSpec,
    edit: bool,
    board: &AnyBoard,
    cells: &[(Point, Cell)],
    here: &Here,
    fields: &Fields,
) -> Vec<PointMark> {
    // The character drawn on a point: a wildcard's, not a stone's or `.`.
    let wildcard = |c: Cell| {
        if c.is_stone() || c == Cell::Empty {
            String::new()
        } else {
            c.to_char().to_string()
        }
    };
    let mut region = Vec::new();
    for p in board.points() {
        let now = cells.iter().find(|(q, _)| *q == p).map(|&(_, c)| c);
        if edit {
            let then = cycle(now);
            let cycled = cells
                .iter()
                .copied()
                .filter(|(q, _)| *q != p)
                .chain(then.map(|c| (p, c)));
            let text = Pattern::new(spec.kind, spec.size, cycled)
                .map_or_else(|_| String::new(), |n| n.to_string());
            let (col, row) = board.coords(p);
            let mut data = vec![
                ("at", board.point_name(p)),
                ("col", col.to_string()),
                ("row", row.to_string()),
            ];
            if let Some(c) = now {
                data.push(("cell", c.to_char().to_string()));
            }
            region.push(PointMark {
                point: p,
                class: "cell",
                label: now.map(wildcard).unwrap_or_default(),
                href: Some(here.href(fields, &text, &[("edit", "1")])),
                title: format!("{} ({})", board.display_name(p), cell_word(now)),
                fill: None,
                data,
            });
        } else if let Some(c) = now {
            region.push(PointMark {
                point: p,
                class: if c.is_stone() {
                    "region-stone"
                } else {
                    "region"
                },
                label: wildcard(c),
                href: None,
                title: format!("{} ({})", board.display_name(p), cell_word(now)),
                fill: None,
                data: Vec::new(),
            });
        }
    }
    region
}

/// `GET /patterns.sgf?…`, `/patterns.zip?…`: the games the pattern page
/// finds (its parameters, [`PatternParams::download_query`]), up to
/// [`crate::export::FOUND_MAX`], in the order of its list.
async fn patterns_download(
    state: Data<ServerState>,
    q: PageQuery<PatternParams>,
    format: keil_container::BundleFormat,
) -> PageResult {
    let query = q.into_inner().download_query()?;
    download_found(state, format, move |a, b| {
        let answer = a.patterns().search_within(&query, b)?;
        Ok(answer.games.iter().map(|g| g.game_id).collect())
    })
    .await
}

/// `GET /patterns.sgf?…`: [`patterns_download`] as one SGF collection.
pub async fn patterns_sgf(state: Data<ServerState>, q: PageQuery<PatternParams>) -> PageResult {
    patterns_download(state, q, keil_container::BundleFormat::Sgf).await
}

/// `GET /patterns.zip?…`: [`patterns_download`] as a zip.
pub async fn patterns_zip(state: Data<ServerState>, q: PageQuery<PatternParams>) -> PageResult {
    patterns_download(state, q, keil_container::BundleFormat::Zip).await
}
