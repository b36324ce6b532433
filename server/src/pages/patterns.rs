//! `GET /patterns`: the pattern search page. A board (square or hexagon)
//! on which every point is a link that cycles its cell (outside the
//! region → black → white → empty → any → outside), the form of the API's
//! parameters, and the answer: continuations labelled on their points and
//! in a table, and the games, each a link to the game at its match. Works
//! without JavaScript: the pattern travels in the URL.

use actix_web::http::StatusCode;
use actix_web::web::Data;
use askama::Template;
use keil_archive::{Cell, GameId, MoveStats, Pattern, PatternMode};
use keil_rules::{AnyPosition, BoardSpec, Color, GameKind, Point};
use serde::Deserialize;

use super::explore::{Fields, Listed, viewer_href};
use super::explorer::share_fill;
use super::{PageError, PageResult, drop_empty_filter, kinds, link, searching};
use crate::ServerState;
use crate::assets::{Assets, assets};
use crate::dto::PatternsQuery;
use crate::error::ApiError;
use crate::http::html_response;
use crate::params::nonempty;
use crate::svg::{self, Drawing, Extras, PointMark};

/// `GET /patterns` parameters: the API's, plus the editor's.
#[derive(Debug, Default, Deserialize)]
pub struct PatternParams {
    /// The API's parameters (pattern, kind, size, mode, symmetry, colours,
    /// filters, page).
    #[serde(flatten)]
    pub api: PatternsQuery,
    /// `1`: edit the pattern (clicking a point cycles it; no search).
    pub edit: Option<String>,
}

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

struct ContinuationRow {
    label: String,
    point: String,
    black: MoveStats,
    white: MoveStats,
}

struct GameRow {
    id: GameId,
    ply: u32,
    /// The variation of the first match (the viewer's `var`), if in one.
    variation: Option<u32>,
    href: String,
    hits: u32,
    swapped: bool,
    black: String,
    white: String,
    result: String,
    date: String,
    next: String,
}

#[derive(Template)]
#[template(path = "patterns.html")]
struct PatternsPage<'a> {
    a: &'a Assets,
    title: &'a str,
    svg: String,
    edit: bool,
    edit_href: String,
    search_href: String,
    /// The games found as SGF and as a zip (up to `found_max`).
    downloads: (String, String),
    found_max: u64,
    clear_href: String,
    kinds: Vec<(String, String)>,
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

/// `GET /patterns?pattern=…`: the pattern search page and editor.
pub async fn patterns_page(
    state: Data<ServerState>,
    q: super::PageQuery<PatternParams>,
) -> PageResult {
    let PatternParams { mut api, edit } = q.into_inner();
    drop_empty_filter(&mut api.filter);
    let echo = |v: &Option<String>| nonempty(v).unwrap_or_default().to_string();
    let text = echo(&api.pattern);
    let mut edit = super::editing(&edit) || text.is_empty();
    let mut errors: Vec<String> = Vec::new();
    // The board: the kind and size asked for, else Go 19.
    let kind = match nonempty(&api.kind).map(str::parse::<GameKind>) {
        None => GameKind::Go,
        Some(Ok(k)) => k,
        Some(Err(e)) => {
            errors.push(format!("kind: {e}"));
            GameKind::Go
        }
    };
    let spec = nonempty(&api.size)
        .map(|s| {
            s.parse::<u8>()
                .map_err(|_| format!("size: {s:?} is not a board size"))
                .and_then(|n| BoardSpec::new(kind, n).map_err(|e| format!("size: {e}")))
        })
        .transpose()
        .unwrap_or_else(|e| {
            errors.push(e);
            None
        })
        .unwrap_or(BoardSpec {
            kind,
            size: kind.default_size(),
        });
    // The mode: as chosen, else the one the pattern suggests (`auto`).
    let mode_text = nonempty(&api.mode).unwrap_or("auto").to_string();
    api.mode = Some(mode_text.clone());
    let mut mode = None;
    let pattern = if text.is_empty() {
        None
    } else if edit {
        // While editing, the points as drawn (stones alone grow their
        // region only when searched).
        let drawn_mode = mode_text.parse().unwrap_or(PatternMode::Anywhere);
        match Pattern::parse_drawn(spec.kind, spec.size, &text, drawn_mode) {
            Ok(p) => Some(p),
            Err(e) => {
                errors.push(ApiError::from(e).to_string());
                None
            }
        }
    } else {
        match crate::params::read_pattern(spec.kind, spec.size, &text, &mode_text) {
            Ok((p, m)) => {
                mode = Some(m);
                Some(p)
            }
            Err(e) => {
                errors.push(e.to_string());
                None
            }
        }
    };
    // The whole query, as the API reads it (its errors name the parameter).
    let query = if pattern.is_some() && errors.is_empty() {
        match crate::params::pattern_query(api.clone()) {
            Ok(q) => Some(q),
            Err(e) => {
                errors.push(e.to_string());
                None
            }
        }
    } else {
        None
    };
    if !errors.is_empty() {
        edit = true;
    }
    let symmetry = query.as_ref().map_or_else(
        || !matches!(nonempty(&api.symmetry), Some("false" | "0" | "no")),
        |q| q.symmetry,
    );
    let swap = query
        .as_ref()
        .map_or_else(|| nonempty(&api.colors) != Some("same"), |q| q.swap_colors);
    let kind_code = spec.kind.code().to_string();
    // The kind's usual size goes unsaid: changing the game in the form
    // then gives that game's usual board.
    let size_text = if spec.size == spec.kind.default_size() {
        String::new()
    } else {
        spec.size.to_string()
    };
    let mode_code = mode_text.as_str();
    // How the search placed the pattern, said on the page.
    let placed = mode.map(|m| {
        let word = match m {
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
    });
    let fields = Fields::new(&api.filter, &api.explore);
    let notation = pattern.as_ref().map_or(text.clone(), |p| p.to_string());
    let sym = if symmetry { "true" } else { "false" };
    let colors = if swap { "swap" } else { "same" };
    let here = |pattern: &str, extra: &[(&str, &str)]| {
        let mut pairs: Vec<(&str, &str)> = vec![
            ("pattern", pattern),
            ("kind", &kind_code),
            ("size", &size_text),
            ("mode", mode_code),
            ("symmetry", sym),
            ("colors", colors),
        ];
        pairs.extend(fields.pairs());
        pairs.extend_from_slice(extra);
        link("/patterns", &pairs)
    };

    // The search (not while editing).
    let mut searched = false;
    let (mut total, mut hits, mut placements) = (0, 0, 0);
    let mut continuations = Vec::new();
    let mut games = Vec::new();
    let mut next = None;
    let mut marks = Vec::new();
    let (mut history_svg, mut top, mut recent) = (None, Vec::new(), Vec::new());
    let board = AnyPosition::empty(spec)
        .map_err(|e| PageError(ApiError::BadRequest(format!("size: {e}"))))?
        .board();
    if let (Some(query), false) = (query, edit) {
        match searching(&state, move |a, b| {
            Ok(a.patterns().search_within(&query, b)?)
        })
        .await
        {
            Ok(answer) => {
                searched = true;
                total = answer.total_games;
                hits = answer.total_hits;
                placements = answer.placements;
                history_svg = answer
                    .history
                    .as_deref()
                    .map(|h| super::explore::history_svg(h, "games"));
                top = answer.top_games.iter().map(Listed::from).collect();
                recent = answer.recent_games.iter().map(Listed::from).collect();
                for c in &answer.continuations {
                    if let Ok(p) = board.parse_point(&c.point) {
                        marks.push(PointMark {
                            point: p,
                            class: "next",
                            label: c.label.clone(),
                            href: None,
                            title: format!(
                                "{} {}: Black {} times, White {} times",
                                c.label, c.display, c.black.count, c.white.count
                            ),
                            fill: Some(share_fill(
                                c.black.black_wins + c.white.black_wins,
                                c.black.white_wins + c.white.white_wins,
                            )),
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
                        black: c.black,
                        white: c.white,
                    });
                }
                games = answer
                    .games
                    .iter()
                    .map(|g| GameRow {
                        id: g.game_id,
                        ply: g.ply,
                        variation: g.variation,
                        href: viewer_href(g.game_id, g.ply, g.variation),
                        hits: g.hits,
                        swapped: g.swapped,
                        black: g.black.clone().unwrap_or_default(),
                        white: g.white.clone().unwrap_or_default(),
                        result: g.result.clone().unwrap_or_default(),
                        date: g.date.clone(),
                        next: g
                            .next
                            .as_deref()
                            .and_then(|n| board.parse_point(n).ok())
                            .map(|p| board.display_name(p))
                            .unwrap_or_default(),
                    })
                    .collect();
                next = answer
                    .next_cursor
                    .as_deref()
                    .map(|c| here(&notation, &[("cursor", c)]));
            }
            Err(PageError(ApiError::BadRequest(m))) => {
                errors.push(m);
                edit = true;
            }
            Err(e) => return Err(e),
        }
    }

    // The pattern on the board: its stones, its region tinted. While
    // editing, every point is a link that cycles it (the path without
    // script) and carries its cell for the editor script, which draws the
    // stones itself (pattern.js).
    let cells: Vec<(Point, Cell)> = pattern
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
                href: Some(here(&text, &[("edit", "1")])),
                title: format!("{} ({})", board.display_name(p), cell_word(now)),
                fill: None,
                data,
            });
        } else if let Some(c) = now {
            region.push(PointMark {
                point: p,
                class: "region",
                label: wildcard(c),
                href: None,
                title: format!("{} ({})", board.display_name(p), cell_word(now)),
                fill: None,
                data: Vec::new(),
            });
        }
    }
    region.extend(marks);
    let caption = if edit {
        format!("pattern editor · {} {}", spec.kind.name(), spec.size)
    } else {
        format!(
            "{} game{} · {} hit{}",
            total,
            if total == 1 { "" } else { "s" },
            hits,
            if hits == 1 { "" } else { "s" }
        )
    };
    let svg = svg::render_with(
        &Drawing {
            position: &position,
            last: None,
            captured: &[],
            caption: &caption,
        },
        &Extras {
            inline: true,
            ply: None,
            notation: None,
            marks: &region,
        },
    );
    let status = if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    let search_href = here(&notation, &[]);
    let page = PatternsPage {
        a: assets(),
        title: "Pattern search",
        svg,
        edit,
        edit_href: here(&notation, &[("edit", "1")]),
        downloads: {
            let q = &search_href["/patterns".len()..];
            (format!("/patterns.sgf{q}"), format!("/patterns.zip{q}"))
        },
        search_href,
        found_max: crate::export::FOUND_MAX as u64,
        clear_href: here("", &[("edit", "1")]),
        kinds: kinds(),
        kind: kind_code.clone(),
        size: size_text.clone(),
        board_size: spec.size,
        pattern: notation.clone(),
        placed: placed.unwrap_or_default(),
        placed_code: mode.map_or("", PatternMode::code),
        modes: vec![
            ("auto", "where the pattern suggests"),
            ("anywhere", "anywhere"),
            ("corner", "in a corner"),
            ("side", "along a side"),
            ("centre", "in the centre (no edge)"),
            ("fixed", "exactly where drawn"),
        ],
        mode: mode_code.to_string(),
        symmetry,
        swap,
        f: fields,
        with_next: true,
        history_svg,
        top,
        recent,
        error: (!errors.is_empty()).then(|| errors.join("; ")),
        searched,
        total,
        hits,
        placements,
        continuations,
        games,
        next,
    };
    let body = page
        .render()
        .map_err(|e| ApiError::Internal(format!("template: {e}")))?;
    Ok(html_response(status, body))
}

/// `GET /patterns.sgf?…`, `/patterns.zip?…`: the games the pattern page
/// finds (its parameters; the mode `auto` unless chosen), up to
/// [`crate::export::FOUND_MAX`], in the order of its list.
async fn patterns_download(
    state: Data<ServerState>,
    q: super::PageQuery<PatternParams>,
    format: keil_container::BundleFormat,
) -> PageResult {
    let PatternParams { mut api, .. } = q.into_inner();
    drop_empty_filter(&mut api.filter);
    if nonempty(&api.mode).is_none() {
        api.mode = Some("auto".into());
    }
    api.limit = Some(crate::export::FOUND_MAX.to_string());
    api.cursor = None;
    let query = crate::params::pattern_query(api)?;
    super::download_found(state, format, move |a, b| {
        let answer = a.patterns().search_within(&query, b)?;
        Ok(answer.games.iter().map(|g| g.game_id).collect())
    })
    .await
}

/// `GET /patterns.sgf?…`: [`patterns_download`] as one SGF collection.
pub async fn patterns_sgf(
    state: Data<ServerState>,
    q: super::PageQuery<PatternParams>,
) -> PageResult {
    patterns_download(state, q, keil_container::BundleFormat::Sgf).await
}

/// `GET /patterns.zip?…`: [`patterns_download`] as a zip.
pub async fn patterns_zip(
    state: Data<ServerState>,
    q: super::PageQuery<PatternParams>,
) -> PageResult {
    patterns_download(state, q, keil_container::BundleFormat::Zip).await
}
