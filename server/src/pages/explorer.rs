//! The position explorer: a whole board, the games that reached it and
//! what they played next (win rates per move), reached by playing moves
//! from the empty board (`play=`, any legal move, captures and the turn
//! by keil-rules) or by a notation (`position=`), with the board editor
//! (`edit=1`) beside it.

use actix_web::web::Data;
use askama::Template;
use keil_archive::{GameId, PositionAnswer, PositionHit, PositionQuery};
use keil_rules::{AnyPosition, Color, Move};

use super::explore::{Fields, Listed, viewer_href};
use super::{
    PageError, PageQuery, PageResult, color_word, kinds, letter, link, position_after, render,
    searching,
};
use crate::assets::{Assets, assets};
use crate::error::ApiError;
use crate::params::{ExplorerParams, editing};
use crate::state::ServerState;
use crate::svg::{self, PointMark};

/// A move of the line played so far, as a link back to it.
struct LineLink {
    ply: usize,
    text: String,
    href: String,
}

struct ContinuationRow {
    color: &'static str,
    mv: String,
    href: Option<String>,
    games: u64,
    black_wins: u64,
    white_wins: u64,
    percent: String,
    /// Black's and White's wins in percent of the move's games (the rest:
    /// neither won).
    black_pct: u32,
    white_pct: u32,
}

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
            black: g.black.clone().unwrap_or_default(),
            white: g.white.clone().unwrap_or_default(),
            result: g.result.clone().unwrap_or_default(),
            date: g.date.clone(),
            next: g.next.clone().unwrap_or_default(),
        }
    }
}

#[derive(Template)]
#[template(path = "positions.html")]
struct PositionsPage<'a> {
    a: &'a Assets,
    title: &'a str,
    svg: String,
    edit: bool,
    edit_href: String,
    search_href: String,
    /// The games found as SGF and as a zip (up to `found_max`).
    downloads: (String, String),
    found_max: u64,
    kinds: Vec<(String, String)>,
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
    top: Vec<Listed>,
    recent: Vec<Listed>,
    error: Option<String>,
    total: u64,
    continuations: Vec<ContinuationRow>,
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
async fn main_board(state: &Data<ServerState>) -> Result<(keil_rules::GameKind, u8), PageError> {
    let stats = super::blocking(state, |a| Ok(a.stats()?)).await?;
    Ok(stats
        .by_board
        .iter()
        .max_by_key(|&&(_, _, n)| n)
        .map_or((keil_rules::GameKind::Keil, 7), |&(k, size, _)| (k, size)))
}

/// Whether a symmetry other than the identity maps the position onto
/// itself (the empty board, ...).
fn is_symmetric(pos: &AnyPosition) -> bool {
    (1..pos.board().symmetry_count()).any(|s| pos.transform(s) == *pos)
}

/// The link to the explorer at the position after a continuation. The
/// archive counts the continuations of a symmetric position (the empty
/// board) over its symmetric images, so from one (or with `symmetry`) the
/// link searches the images too.
pub(super) fn continuation_href(
    pos: &AnyPosition,
    kind: &str,
    to_move: Color,
    mv: Option<Move>,
    symmetry: bool,
) -> Option<String> {
    let after = position_after(pos, to_move, mv?)?;
    let next = if to_move == Color::Black { "w" } else { "b" };
    let sym = if symmetry || is_symmetric(pos) {
        "true"
    } else {
        ""
    };
    Some(link(
        "/positions",
        &[
            ("kind", kind),
            ("position", &after.to_notation(None)),
            ("to_move", next),
            ("symmetry", sym),
        ],
    ))
}

/// A fill between blue (Black won them all) and red (White did).
pub(super) fn share_fill(black: u64, white: u64) -> String {
    let t = if black + white == 0 {
        0.5
    } else {
        white as f64 / (black + white) as f64
    };
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(30.0, 200.0),
        mix(100.0, 50.0),
        mix(210.0, 45.0)
    )
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
    super::download_found(state, format, move |a, b| {
        let answer = a.positions().search_within(&query, b)?;
        Ok(answer.games.iter().map(|g| g.game_id).collect())
    })
    .await
}

/// `GET /positions?position=…`: the position explorer and board editor.
pub async fn positions_page(state: Data<ServerState>, q: PageQuery<ExplorerParams>) -> PageResult {
    let q = q.into_inner();
    let (query, line) = explorer_query(&state, &q).await?;
    let edit = editing(&q.edit);

    let pos = query.position;
    let kind_code = pos.kind().code().to_string();
    let to_move_code = match query.to_move {
        Some(Color::Black) => "b",
        Some(Color::White) => "w",
        None => "",
    };
    let board_notation = pos.to_notation(None);
    let symmetry = query.symmetry;
    let swap = query.swap_colors;
    let fields = Fields::new(&q.filter, &q.explore);
    let sym = if symmetry { "true" } else { "" };
    let colors = if swap { "swap" } else { "" };
    let play_text = line.as_ref().map(crate::play::Line::text);
    let base = play_text.as_deref().unwrap_or("");
    // The links after one more move search the symmetric images when
    // this position has some (the archive counts its continuations over
    // them) or the search does.
    let next_sym = if symmetry || is_symmetric(&pos) {
        "true"
    } else {
        ""
    };
    let size_text = pos.board().size().to_string();
    let links = MoveLinks {
        pos: &pos,
        line: line.as_ref(),
        base,
        kind: &kind_code,
        size: &size_text,
        next_sym,
        symmetry,
    };
    let here = |extra: &[(&str, &str)]| {
        let (position, to_move, play, size) = match &play_text {
            Some(t) => ("", "", t.as_str(), size_text.as_str()),
            None => (board_notation.as_str(), to_move_code, "", ""),
        };
        let mut pairs: Vec<(&str, &str)> = vec![
            ("kind", &kind_code),
            ("size", size),
            ("position", position),
            ("play", play),
            ("to_move", to_move),
            ("symmetry", sym),
            ("colors", colors),
        ];
        pairs.extend(fields.pairs());
        pairs.extend_from_slice(extra);
        link("/positions", &pairs)
    };

    let answer = searching(&state, move |a, b| {
        Ok(a.positions().search_within(&query, b)?)
    })
    .await;
    let (answer, error) = match answer {
        Ok(a) => (Some(a), None),
        Err(PageError(ApiError::BadRequest(m))) => (None, Some(m)),
        Err(e) => return Err(e),
    };
    let mut marks = Vec::new();
    let mut continuations = Vec::new();
    let mut games = Vec::new();
    let mut next = None;
    let mut total = 0;
    let (mut history_svg, mut top, mut recent) = (None, Vec::new(), Vec::new());
    if let Some(answer) = answer {
        total = answer.total_games;
        history_svg = answer
            .history
            .as_deref()
            .map(|h| super::explore::history_svg(h, "games"));
        top = answer.top_games.iter().map(Listed::from).collect();
        recent = answer.recent_games.iter().map(Listed::from).collect();
        (marks, continuations) = continuation_rows(&answer, &links, edit);
        games = answer.games.iter().map(HitRow::from).collect();
        next = answer
            .next_cursor
            .as_deref()
            .map(|c| here(&[("cursor", c), ("edit", if edit { "1" } else { "" })]));
    }
    let marks = board_marks(marks, &links, edit, to_move_code);
    let svg = explorer_svg(&pos, &board_notation, &marks, edit, total);
    let (line_links, start_href, undo, pass) = match &line {
        Some(l) => line_links(l, &links),
        None => (Vec::new(), String::new(), None, None),
    };
    let edit_href = link(
        "/positions",
        &[
            ("kind", &kind_code),
            ("position", &board_notation),
            ("to_move", to_move_code),
            ("edit", "1"),
        ],
    );
    let search_href = here(&[]);
    let query_part = &search_href["/positions".len()..];
    let downloads = (
        format!("/positions.sgf{query_part}"),
        format!("/positions.zip{query_part}"),
    );
    let size = pos.board().size();
    render(&PositionsPage {
        a: assets(),
        title: "Position explorer",
        svg,
        edit,
        edit_href,
        search_href,
        downloads,
        found_max: crate::export::FOUND_MAX as u64,
        kinds: kinds(),
        kind: kind_code.clone(),
        size,
        notation: board_notation.clone(),
        to_move: to_move_code,
        symmetry,
        swap,
        f: fields,
        with_next: false,
        history_svg,
        top,
        recent,
        error,
        total,
        continuations,
        games,
        next,
        playing: line.is_some(),
        line: line_links,
        start_href,
        undo,
        pass,
    })
}

/// The marks on the board: along a line (unless editing) every legal
/// move under the continuations' discs, which link the same moves; while
/// editing, every point cycling.
fn board_marks(
    mut found: Vec<PointMark>,
    links: &MoveLinks<'_>,
    edit: bool,
    to_move_code: &str,
) -> Vec<PointMark> {
    let mut marks = match links.line.filter(|_| !edit) {
        Some(l) => legal_moves(l, links),
        None => Vec::new(),
    };
    marks.append(&mut found);
    if edit {
        marks.extend(cycling_points(links.pos, links.kind, to_move_code));
    }
    marks
}

/// The explorer's board: the position with its `marks`, captioned with
/// what the page does and the games found.
fn explorer_svg(
    pos: &AnyPosition,
    notation: &str,
    marks: &[PointMark],
    edit: bool,
    total: u64,
) -> String {
    let caption = format!(
        "{} · {} game{}",
        if edit { "editing" } else { "explorer" },
        total,
        if total == 1 { "" } else { "s" }
    );
    svg::render_marked(pos, &caption, Some(notation), marks)
}

/// How the explorer links a move from its position: along the line
/// played (`play=`), else as a continuation of the board.
struct MoveLinks<'a> {
    pos: &'a AnyPosition,
    line: Option<&'a crate::play::Line>,
    /// The line's `play=` value (empty without a line).
    base: &'a str,
    kind: &'a str,
    size: &'a str,
    /// The `symmetry` of the links after one more move.
    next_sym: &'static str,
    symmetry: bool,
}

/// The continuations found: their rows, and (unless editing) their
/// discs on the board, each a link to the position after the move.
fn continuation_rows(
    answer: &PositionAnswer,
    links: &MoveLinks<'_>,
    edit: bool,
) -> (Vec<PointMark>, Vec<ContinuationRow>) {
    let MoveLinks {
        pos,
        base,
        kind: kind_code,
        size: size_text,
        next_sym,
        symmetry,
        ..
    } = *links;
    let mut marks = Vec::new();
    let mut continuations = Vec::new();
    for c in &answer.continuations {
        let href = match links.line {
            Some(l) => c
                .next
                .and_then(|m| after(l, pos, base, m))
                .map(|t| play_link(kind_code, size_text, &t, next_sym)),
            None => continuation_href(pos, kind_code, c.to_move, c.next, symmetry),
        };
        let percent = format!("{:.0}", c.share * 100.0);
        if !edit && let Some(Move::Place(p)) = c.next {
            marks.push(PointMark {
                point: p,
                class: "next",
                label: super::compact_count(c.games),
                href: href.clone(),
                title: format!(
                    "{} {}: {} games, Black won {}, White won {}",
                    color_word(c.to_move),
                    c.mv,
                    c.games,
                    c.black_wins,
                    c.white_wins
                ),
                fill: Some(share_fill(c.black_wins, c.white_wins)),
                data: Vec::new(),
            });
        }
        let pct = |n: u64| (n * 100).checked_div(c.games).unwrap_or(0) as u32;
        continuations.push(ContinuationRow {
            color: letter(c.to_move),
            mv: c.mv.clone(),
            href,
            games: c.games,
            black_wins: c.black_wins,
            white_wins: c.white_wins,
            percent,
            black_pct: pct(c.black_wins),
            white_pct: pct(c.white_wins),
        });
    }
    (marks, continuations)
}

/// Every legal move after the line `l` as a link on its point: the rules
/// say which (captures, ko and superko, suicide, Kaomi's pushes), not this
/// page.
fn legal_moves(l: &crate::play::Line, links: &MoveLinks<'_>) -> Vec<PointMark> {
    let pos = links.pos;
    let board = pos.board();
    let mut hot = Vec::new();
    for p in board.points().filter(|&p| pos.get(p).is_none()) {
        let name = pos.display_name(p);
        if let Some(t) = after(l, pos, links.base, Move::Place(p)) {
            hot.push(PointMark {
                point: p,
                class: "hot",
                label: String::new(),
                href: Some(play_link(links.kind, links.size, &t, links.next_sym)),
                title: format!("play {} {name}", color_word(l.to_move())),
                fill: None,
                data: Vec::new(),
            });
        }
    }
    hot
}

/// The editor's points: each a link to the board with that point cycled
/// (empty → black → white → empty).
fn cycling_points(pos: &AnyPosition, kind_code: &str, to_move_code: &str) -> Vec<PointMark> {
    let board = pos.board();
    let mut marks = Vec::new();
    for p in board.points() {
        let mut cycled = *pos;
        let (now, then) = match pos.get(p) {
            None => ("empty", Some(Color::Black)),
            Some(Color::Black) => ("black", Some(Color::White)),
            Some(Color::White) => ("white", None),
        };
        cycled.set(p, then);
        let href = link(
            "/positions",
            &[
                ("edit", "1"),
                ("kind", kind_code),
                ("position", &cycled.to_notation(None)),
                ("to_move", to_move_code),
            ],
        );
        marks.push(PointMark {
            point: p,
            class: "hot",
            label: String::new(),
            href: Some(href),
            title: format!("{} ({now}): click to cycle", board.display_name(p)),
            fill: None,
            data: Vec::new(),
        });
    }
    marks
}

/// The line played, move by move: each move's link (the line up to it),
/// the start's, the undo's (the line without its last move) and the
/// pass's (`None` when the rules refuse a pass).
fn line_links(
    l: &crate::play::Line,
    links: &MoveLinks<'_>,
) -> (Vec<LineLink>, String, Option<String>, Option<String>) {
    let (kind_code, size_text) = (links.kind, links.size);
    let mut line_links = Vec::new();
    let mut undo = None;
    let start_href = play_link(kind_code, size_text, "", "");
    // Each move's link is the line up to it: the prefixes, grown once.
    let mut prefix = String::new();
    for (i, name) in l.names().iter().enumerate() {
        if i > 0 {
            undo = Some(play_link(kind_code, size_text, &prefix, ""));
            prefix.push(',');
        } else {
            undo = Some(start_href.clone());
        }
        prefix.push_str(name);
        line_links.push(LineLink {
            ply: i + 1,
            text: format!("{}. {} {name}", i + 1, letter(l.colors[i])),
            href: play_link(kind_code, size_text, &prefix, ""),
        });
    }
    let pass = after(l, links.pos, links.base, Move::Pass)
        .map(|t| play_link(kind_code, size_text, &t, ""));
    (line_links, start_href, undo, pass)
}

/// The `play=` value after one more move (`base`: the line's value, `pos`:
/// its position), or `None` when the rules refuse the move.
fn after(line: &crate::play::Line, pos: &AnyPosition, base: &str, mv: Move) -> Option<String> {
    line.legal(mv).then(|| {
        let name = crate::play::move_name(pos, mv);
        if base.is_empty() {
            name
        } else {
            format!("{base},{name}")
        }
    })
}

/// The explorer after a line of moves.
fn play_link(kind: &str, size: &str, play: &str, symmetry: &str) -> String {
    link(
        "/positions",
        &[
            ("kind", kind),
            ("size", size),
            ("play", play),
            ("symmetry", symmetry),
        ],
    )
}

/// `GET /positions.sgf?…`: [`positions_download`] as one SGF collection.
pub async fn positions_sgf(state: Data<ServerState>, q: PageQuery<ExplorerParams>) -> PageResult {
    positions_download(state, q, keil_container::BundleFormat::Sgf).await
}

/// `GET /positions.zip?…`: [`positions_download`] as a zip.
pub async fn positions_zip(state: Data<ServerState>, q: PageQuery<ExplorerParams>) -> PageResult {
    positions_download(state, q, keil_container::BundleFormat::Zip).await
}
