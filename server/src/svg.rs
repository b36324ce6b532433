//! Board positions drawn as SVG, by hand, for both board geometries.
//!
//! - **Hexagonal** (Keil): the hexagon of points on a 60° lattice with its
//!   lines, column letters and row numbers around the edge.
//! - **Square** (Go; Kaomi reuses it): the `n × n` grid of lines, the star
//!   points, coordinates as Go players read them (columns `A`–`T` without
//!   `I` left to right, rows `n`..`1` from the top) on all four sides.
//!
//! Both share one frame: a `<title>` and `aria-label` describing the
//! position, stones carrying `data-point` (the point's name in records:
//! `g7` on a hex board, the SGF letters `dd` on a square one) and
//! `data-color` (`b`, `w`), the last move marked by a ring, the points
//! captured by the last move marked by crosses, and a caption line.
//! Colours are presentation attributes (light: a wooden board on a pale
//! page) that a `prefers-color-scheme: dark` style block overrides for the
//! page around the board. No fonts are loaded (generic `sans-serif`) and
//! nothing is scripted.

use std::fmt::Write;

use keil_rules::{AnyBoard, AnyPosition, Board, Color, KaomiResult, Point, Position, SquareBoard};

/// Distance between neighbouring points, in SVG units.
const STEP: f64 = 32.0;
/// Horizontal distance between hex columns: `STEP · √3/2`.
const COLUMN: f64 = STEP * 0.866_025_403_784_438_6;
/// Space around the labels.
const MARGIN: f64 = 12.0;
/// Height of the caption line below the board.
const CAPTION: f64 = 26.0;

/// Colours of the light scheme, as presentation attributes.
const PAGE: &str = "#f4f1ea";
const WOOD: &str = "#dcb35c";
const WOOD_EDGE: &str = "#8a6d2f";
const INK: &str = "#3b2e14";
const LABEL: &str = "#3a3a3a";
const TEXT: &str = "#222";
const CROSS: &str = "#c0392b";

/// The dark scheme: only the page around the board and its text change; the
/// board keeps its wood, lines and stones (they read on either page).
const STYLE: &str = "<style>@media (prefers-color-scheme: dark){\
.page{fill:#1d1f21}.caption{fill:#e8e6e3}.hex-label{fill:#c9c5bd}.board{fill:#c9a352}}</style>";

/// A position of any game to draw; [`render`] picks the drawing from the
/// board's geometry.
pub struct Drawing<'a> {
    /// The position.
    pub position: &'a AnyPosition,
    /// The point of the last move, if it was a placement.
    pub last: Option<Point>,
    /// Stones removed by the last move, with their colour.
    pub captured: &'a [(Point, Color)],
    /// A line of text under the board (ply, player to move, button).
    pub caption: &'a str,
}

/// The SVG document of a drawing: a hexagonal board for Keil, a square one
/// for Go.
pub fn render(d: &Drawing<'_>) -> String {
    render_with(d, &Extras::default())
}

/// What a board drawn inside an HTML page adds to a [`Drawing`]
/// ([`render_with`]); the default adds nothing and draws the standalone
/// document of [`render`].
#[derive(Default)]
pub struct Extras<'a> {
    /// Drawn for an HTML page: no `<style>` element (the page's stylesheet
    /// restyles the board, and a strict Content-Security-Policy refuses
    /// inline styles), no fixed width and height (the page sizes it), and
    /// the points captured by the last move marked with `data-captured`
    /// rather than `data-point` (so that every element with `data-point`
    /// is a stone on the board).
    pub inline: bool,
    /// The ply shown, written as the root's `data-ply`.
    pub ply: Option<u32>,
    /// The position notation, written as the root's `data-position`.
    pub notation: Option<&'a str>,
    /// Marks drawn over the stones: continuations, territory, links.
    pub marks: &'a [PointMark],
}

/// A mark drawn on one point over the board (see [`Extras::marks`]).
pub struct PointMark {
    /// The point.
    pub point: Point,
    /// Its look: `dot-b`/`dot-w` (a small square: territory or area),
    /// `next` (a continuation: a disc with `label`), `hot` (an invisible
    /// target covering the point, for links), `region` (a point of a
    /// pattern: a tinted disc with `label`); Kaomi's `removed` (a stone of
    /// a removed pair, greyed), `deciding` (a ring around a stone of the
    /// deciding group) and `ghost` (a dashed circle where a pushed stone
    /// stood); a record's markup `mk-tr`, `mk-sq`, `mk-cr`, `mk-ma`,
    /// `mk-lb` (with `label`) and move numbers `mk-num` (with `label`),
    /// drawn in `fill`.
    pub class: &'static str,
    /// A short text drawn on the point (a continuation's games count).
    pub label: String,
    /// Makes the mark a link to this URL.
    pub href: Option<String>,
    /// A tooltip and accessible name.
    pub title: String,
    /// The fill of a `next` mark (by win share); the ink of a markup or
    /// move number.
    pub fill: Option<String>,
}

/// The SVG of a drawing with [`Extras`]: for pages, a board with marks and
/// links over the points.
pub fn render_with(d: &Drawing<'_>, ex: &Extras<'_>) -> String {
    match (d.position, d.position.board()) {
        (AnyPosition::Keil(p), _) => render_hex(p, d.last, d.captured, d.caption, ex),
        (p, AnyBoard::Square(board)) => render_square_position(p, board, p.kind().name(), d, ex),
        (_, AnyBoard::Hex(_)) => unreachable!("only Keil positions are hexagonal"),
    }
}

/// A position on a square board, drawn with [`render_square`].
fn render_square_position(
    p: &AnyPosition,
    board: &'static SquareBoard,
    game: &str,
    d: &Drawing<'_>,
    ex: &Extras<'_>,
) -> String {
    let on_board = |q: Point| q.index() < board.len();
    let at = |q: Point, c: Color| {
        let (x, y) = board.coords(q);
        (x, y, c)
    };
    let mut stones = Vec::new();
    for c in [Color::Black, Color::White] {
        stones.extend(p.stones(c).iter().map(|q| at(q, c)));
    }
    let captured: Vec<_> = d
        .captured
        .iter()
        .filter(|&&(q, _)| on_board(q))
        .map(|&(q, c)| at(q, c))
        .collect();
    let name = |c: u8, r: u8| {
        board
            .point_at(i32::from(c), i32::from(r))
            .map_or_else(String::new, |q| board.sgf_name(q))
    };
    let marks: Vec<(u8, u8, &PointMark)> = ex
        .marks
        .iter()
        .filter(|m| on_board(m.point))
        .map(|m| {
            let (c, r) = board.coords(m.point);
            (c, r, m)
        })
        .collect();
    draw_square(
        &SquareDiagram {
            size: board.size(),
            stones: &stones,
            last: d.last.filter(|&q| on_board(q)).map(|q| board.coords(q)),
            captured: &captured,
            name: &name,
            game,
            caption: d.caption,
            // Kaomi names points by SGF letters only (kaomi-rules.md,
            // "Board and points").
            sgf_labels: matches!(p, AnyPosition::Kaomi(_)),
        },
        ex,
        &marks,
    )
}

/// A square board to draw, in plain coordinates: columns from the left and
/// rows from the top, 0-based, as `SquareBoard::coords` gives them.
pub struct SquareDiagram<'a> {
    /// The board size `n` (1..=19): `n × n` points.
    pub size: u8,
    /// The stones: `(column, row, colour)`.
    pub stones: &'a [(u8, u8, Color)],
    /// The point of the last move, if it was a placement.
    pub last: Option<(u8, u8)>,
    /// Stones removed by the last move: `(column, row, colour)`.
    pub captured: &'a [(u8, u8, Color)],
    /// The name of a point in records (`dd`), for `data-point`.
    pub name: &'a dyn Fn(u8, u8) -> String,
    /// What the board is, for the title: `Go`.
    pub game: &'a str,
    /// Coordinates in SGF letters on all four sides (`a`.. from the left
    /// and from the top: Kaomi's only point names) instead of Go players'
    /// `A`–`T` without `I` and rows `n`..`1`.
    pub sgf_labels: bool,
    /// A line of text under the board.
    pub caption: &'a str,
}

/// Column letters of square boards: `A`–`T` without `I`.
const SQUARE_COLUMNS: &[u8; 19] = b"ABCDEFGHJKLMNOPQRST";

/// The coordinate letter of square-board column `col` (0-based, `col < 19`).
fn column_letter(col: u8) -> char {
    char::from(SQUARE_COLUMNS[usize::from(col)])
}

/// Star points (hoshi) of an `n × n` board as `(column, row)`: none below
/// 7; the corner points on the 3rd line below 13 and on the 4th from 13 on;
/// the centre on odd sizes; the side midpoints on odd sizes from 15 on
/// (9×9 and 13×13: 5 points, 19×19: the usual 9).
pub fn star_points(n: u8) -> Vec<(u8, u8)> {
    if n < 7 {
        return Vec::new();
    }
    let edge = if n >= 13 { 3 } else { 2 };
    let (lo, hi, mid) = (edge, n - 1 - edge, n / 2);
    let mut lines = vec![lo, hi];
    if n % 2 == 1 && n >= 15 {
        lines.insert(1, mid);
    }
    let mut out = Vec::with_capacity(9);
    for &r in &lines {
        for &c in &lines {
            out.push((c, r));
        }
    }
    if n % 2 == 1 && n < 15 {
        out.push((mid, mid));
    }
    out
}

/// Escapes text for an SVG text node or attribute value.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// `b` or `w`, for `data-color`.
fn color_code(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
}

/// A stone placed on the canvas.
struct Mark {
    x: f64,
    y: f64,
    name: String,
    color: Color,
}

/// The parts both geometries draw the same way.
struct Canvas {
    s: String,
    w: f64,
    h: f64,
    /// Drawn for a page ([`Extras::inline`]).
    inline: bool,
}

/// The width a drawing needs for its caption: a generous estimate of
/// 12-unit sans-serif text (about 0.6 em per character), plus margins.
fn caption_width(caption: &str) -> f64 {
    caption.chars().count() as f64 * 7.0 + 2.0 * MARGIN
}

impl Canvas {
    /// Opens the document: size, title, styles and the page background.
    fn open(w: f64, h: f64, title: &str, ex: &Extras<'_>) -> Canvas {
        let mut s = String::with_capacity(24 * 1024);
        let title = escape(title);
        if ex.inline {
            let _ = write!(
                s,
                r#"<svg xmlns="http://www.w3.org/2000/svg" class="board-svg" viewBox="0 0 {w:.0} {h:.0}""#
            );
            if let Some(ply) = ex.ply {
                let _ = write!(s, r#" data-ply="{ply}""#);
            }
            if let Some(n) = ex.notation {
                let _ = write!(s, r#" data-position="{}""#, escape(n));
            }
            let _ = write!(
                s,
                r#" role="img" aria-label="{title}" font-family="sans-serif" font-size="12"><title>{title}</title><rect class="page" width="100%" height="100%" fill="{PAGE}"/>"#
            );
        } else {
            let _ = write!(
                s,
                r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.0} {h:.0}" width="{w:.0}" height="{h:.0}" role="img" aria-label="{title}" font-family="sans-serif" font-size="12"><title>{title}</title>{STYLE}<rect class="page" width="100%" height="100%" fill="{PAGE}"/>"#
            );
        }
        Canvas {
            s,
            w,
            h,
            inline: ex.inline,
        }
    }

    /// The marks of [`Extras::marks`] at their canvas coordinates.
    fn marks(&mut self, marks: &[(f64, f64, &PointMark)], radius: f64) {
        if marks.is_empty() {
            return;
        }
        self.s.push_str(r#"<g class="marks">"#);
        for &(x, y, m) in marks {
            if let Some(href) = &m.href {
                let _ = write!(self.s, r#"<a href="{}">"#, escape(href));
            }
            let title = escape(&m.title);
            match m.class {
                "dot-b" | "dot-w" => {
                    let k = radius * 0.35;
                    let fill = if m.class == "dot-b" {
                        "#151515"
                    } else {
                        "#f7f7f4"
                    };
                    let _ = write!(
                        self.s,
                        r##"<rect class="{}" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{fill}" stroke="#555" stroke-width="0.8"><title>{title}</title></rect>"##,
                        m.class,
                        x - k,
                        y - k,
                        2.0 * k,
                        2.0 * k
                    );
                }
                "next" => {
                    let fill = m.fill.as_deref().unwrap_or("#2e86de");
                    let _ = write!(
                        self.s,
                        r##"<circle class="next" cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="{}" stroke="#fff" stroke-width="1.5"><title>{title}</title></circle><text class="next-label" x="{x:.1}" y="{y:.1}" text-anchor="middle" dominant-baseline="central" fill="#fff" font-size="{}">{}</text>"##,
                        radius * 0.8,
                        escape(fill),
                        if m.label.len() > 3 { 8 } else { 10 },
                        escape(&m.label)
                    );
                }
                // A point of a pattern's region: a tinted disc, with the
                // cell's character when it is no stone (`.`, `*`, `x`, `o`).
                "region" => {
                    let _ = write!(
                        self.s,
                        r##"<circle class="region" cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="#2e86de" fill-opacity="0.22" stroke="#2e86de" stroke-opacity="0.6"><title>{title}</title></circle>"##,
                        radius * 0.95
                    );
                    if !m.label.is_empty() {
                        let _ = write!(
                            self.s,
                            r##"<text class="region-label" x="{x:.1}" y="{y:.1}" text-anchor="middle" dominant-baseline="central" fill="#1b4f80" font-size="11">{}</text>"##,
                            escape(&m.label)
                        );
                    }
                }
                // Kaomi: a removed pair's stone greyed, the deciding
                // group ringed, a pushed stone's origin as a dashed ghost.
                "removed" => {
                    let _ = write!(
                        self.s,
                        r##"<circle class="removed" cx="{x:.1}" cy="{y:.1}" r="{radius:.1}" fill="#8a8a8a" fill-opacity="0.8" stroke="#5a5a5a"><title>{title}</title></circle>"##
                    );
                }
                "deciding" => {
                    let _ = write!(
                        self.s,
                        r##"<circle class="deciding" cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="none" stroke="#e0a800" stroke-width="3"><title>{title}</title></circle>"##,
                        radius + 1.5
                    );
                }
                "ghost" => {
                    let _ = write!(
                        self.s,
                        r##"<circle class="ghost" cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="none" stroke="#c0392b" stroke-width="1.5" stroke-dasharray="3 3"><title>{title}</title></circle>"##,
                        radius * 0.9
                    );
                }
                // A record's board markup (SGF `TR`, `SQ`, `CR`, `MA`,
                // `LB`) and move numbers, drawn in `fill` (chosen to read
                // on the stone below, black by default).
                "mk-tr" | "mk-sq" | "mk-cr" | "mk-ma" => {
                    let ink = m.fill.as_deref().unwrap_or("#000");
                    let k = radius * 0.5;
                    let shape = match m.class {
                        "mk-tr" => format!(
                            r#"<polygon points="{x:.1},{:.1} {:.1},{:.1} {:.1},{:.1}""#,
                            y - k,
                            x - k * 0.87,
                            y + k * 0.5,
                            x + k * 0.87,
                            y + k * 0.5
                        ),
                        "mk-sq" => format!(
                            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}""#,
                            x - k * 0.75,
                            y - k * 0.75,
                            k * 1.5,
                            k * 1.5
                        ),
                        "mk-cr" => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}""#, k * 0.8),
                        _ => format!(
                            r#"<path d="M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}""#,
                            x - k * 0.7,
                            y - k * 0.7,
                            x + k * 0.7,
                            y + k * 0.7,
                            x - k * 0.7,
                            y + k * 0.7,
                            x + k * 0.7,
                            y - k * 0.7
                        ),
                    };
                    let _ = write!(
                        self.s,
                        r##"{shape} class="{}" fill="none" stroke="{}" stroke-width="2"><title>{title}</title></{}>"##,
                        m.class,
                        escape(ink),
                        match m.class {
                            "mk-tr" => "polygon",
                            "mk-sq" => "rect",
                            "mk-cr" => "circle",
                            _ => "path",
                        }
                    );
                }
                "mk-lb" | "mk-num" => {
                    let ink = m.fill.as_deref().unwrap_or("#000");
                    // On an empty point the text is outlined in the wood's
                    // colour, so that the lines do not cross it.
                    let halo = if ink == "#000" { WOOD } else { "none" };
                    let size = if m.label.chars().count() > 2 {
                        radius * 0.85
                    } else {
                        radius
                    };
                    let _ = write!(
                        self.s,
                        r##"<text class="{}" x="{x:.1}" y="{y:.1}" text-anchor="middle" dominant-baseline="central" fill="{}" stroke="{halo}" stroke-width="3" paint-order="stroke" font-size="{size:.0}">{}<title>{title}</title></text>"##,
                        m.class,
                        escape(ink),
                        escape(&m.label)
                    );
                }
                _ => {
                    let _ = write!(
                        self.s,
                        r##"<circle class="{}" cx="{x:.1}" cy="{y:.1}" r="{radius:.1}" fill="#000" fill-opacity="0"><title>{title}</title></circle>"##,
                        m.class
                    );
                }
            }
            if m.href.is_some() {
                self.s.push_str("</a>");
            }
        }
        self.s.push_str("</g>");
    }

    /// The stones, black then white, each with its point name and colour.
    fn stones(&mut self, marks: &[Mark], radius: f64) {
        for color in [Color::Black, Color::White] {
            let (class, fill, stroke) = match color {
                Color::Black => ("black", "#151515", "#000"),
                Color::White => ("white", "#f7f7f4", "#2b2b2b"),
            };
            let code = color_code(color);
            let _ = write!(
                self.s,
                r#"<g class="{class}" fill="{fill}" stroke="{stroke}" stroke-width="1">"#
            );
            for m in marks.iter().filter(|m| m.color == color) {
                let _ = write!(
                    self.s,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="{radius:.1}" data-point="{}" data-color="{code}"/>"#,
                    m.x,
                    m.y,
                    escape(&m.name)
                );
            }
            self.s.push_str("</g>");
        }
    }

    /// Points emptied by the last move: a faded stone (`ghost`) and a cross.
    fn captured(&mut self, marks: &[Mark], radius: f64, ghost: bool) {
        if marks.is_empty() {
            return;
        }
        self.s.push_str(r#"<g class="captured">"#);
        for m in marks {
            let code = color_code(m.color);
            let name = escape(&m.name);
            if ghost {
                let fill = if m.color == Color::Black {
                    "#151515"
                } else {
                    "#f7f7f4"
                };
                let _ = write!(
                    self.s,
                    r##"<circle cx="{:.1}" cy="{:.1}" r="{radius:.1}" fill="{fill}" stroke="#333" opacity="0.35"/>"##,
                    m.x, m.y
                );
            }
            let k = radius * if ghost { 0.6 } else { 0.45 };
            let (x, y) = (m.x, m.y);
            let attr = if self.inline {
                "data-captured"
            } else {
                "data-point"
            };
            let _ = write!(
                self.s,
                r#"<path d="M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}" stroke="{CROSS}" stroke-width="2.5" stroke-linecap="round" {attr}="{name}" data-color="{code}"/>"#,
                x - k,
                y - k,
                x + k,
                y + k,
                x - k,
                y + k,
                x + k,
                y - k
            );
        }
        self.s.push_str("</g>");
    }

    /// The last move: a ring in the colour opposite to the stone on it.
    fn last(&mut self, x: f64, y: f64, on: Option<Color>, radius: f64) {
        let ring = match on {
            Some(Color::Black) => "#f7f7f4",
            _ => "#151515",
        };
        let _ = write!(
            self.s,
            r#"<circle class="last" cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="none" stroke="{ring}" stroke-width="2"/>"#,
            radius * 0.5
        );
    }

    /// The caption, and the end of the document.
    fn close(mut self, caption: &str) -> String {
        let _ = write!(
            self.s,
            r#"<text class="caption" x="{:.1}" y="{:.1}" text-anchor="middle" dominant-baseline="central" fill="{TEXT}">{}</text>"#,
            self.w / 2.0,
            self.h - MARGIN / 2.0 - CAPTION / 2.0,
            escape(caption)
        );
        self.s.push_str("</svg>\n");
        self.s
    }
}

/// The title of a drawing: what is on the board, then the caption.
fn title(game: &str, size: &str, black: usize, white: usize, caption: &str) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    format!(
        "{game} board {size}: {black} black stone{}, {white} white stone{}. {caption}",
        plural(black),
        plural(white)
    )
}

// ---- square boards ----------------------------------------------------------

/// The SVG document of a square board.
pub fn render_square(d: &SquareDiagram<'_>) -> String {
    draw_square(d, &Extras::default(), &[])
}

/// A square board with extras; `marks` at `(column, row)`.
fn draw_square(d: &SquareDiagram<'_>, ex: &Extras<'_>, over: &[(u8, u8, &PointMark)]) -> String {
    let n = d.size.clamp(1, 19);
    let span = f64::from(n - 1) * STEP;
    // Wood: the grid plus a band holding the coordinates on every side.
    let band = STEP * 1.15;
    let wood = span + 2.0 * band;
    let (w, left, (ox, oy)) = square_frame(n, d.caption);
    let h = wood + 2.0 * MARGIN + CAPTION;
    let at = |c: u8, r: u8| (ox + f64::from(c) * STEP, oy + f64::from(r) * STEP);
    let blacks = d.stones.iter().filter(|s| s.2 == Color::Black).count();
    let size = format!("{n}×{n}");
    let mut cv = Canvas::open(
        w,
        h,
        &title(d.game, &size, blacks, d.stones.len() - blacks, d.caption),
        ex,
    );
    let s = &mut cv.s;
    let _ = write!(
        s,
        r#"<rect class="board" x="{left:.1}" y="{MARGIN:.1}" width="{wood:.1}" height="{wood:.1}" rx="3" fill="{WOOD}" stroke="{WOOD_EDGE}" stroke-width="1.5"/>"#
    );

    // Lines: one path, the outer ones drawn again a little heavier.
    let (x0, x1, y0, y1) = (ox, ox + span, oy, oy + span);
    s.push_str(r#"<path class="grid" d=""#);
    for i in 0..n {
        let (x, y) = at(i, i);
        let _ = write!(s, "M{x0:.1} {y:.1}H{x1:.1}M{x:.1} {y0:.1}V{y1:.1}");
    }
    let _ = write!(
        s,
        r#"" stroke="{INK}" stroke-width="1" stroke-linecap="square"/>"#
    );
    if n > 1 {
        let _ = write!(
            s,
            r#"<rect x="{x0:.1}" y="{y0:.1}" width="{span:.1}" height="{span:.1}" fill="none" stroke="{INK}" stroke-width="1.8"/>"#
        );
    }

    // Star points.
    let stars = star_points(n);
    if !stars.is_empty() {
        let _ = write!(s, r#"<g class="stars" fill="{INK}">"#);
        for (c, r) in stars {
            let (x, y) = at(c, r);
            let _ = write!(
                s,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}"/>"#,
                STEP * 0.1
            );
        }
        s.push_str("</g>");
    }

    // Coordinates: letters above and below, numbers left and right.
    let _ = write!(
        s,
        r#"<g class="coords" fill="{LABEL}" text-anchor="middle" dominant-baseline="central" font-size="11">"#
    );
    let off = STEP * 0.78;
    for i in 0..n {
        let (x, y) = at(i, i);
        let (letter, number) = if d.sgf_labels {
            let l = char::from(b'a' + i);
            (l, l.to_string())
        } else {
            (column_letter(i), (n - i).to_string())
        };
        let _ = write!(
            s,
            r#"<text x="{x:.1}" y="{:.1}">{letter}</text><text x="{x:.1}" y="{:.1}">{letter}</text><text x="{:.1}" y="{y:.1}">{number}</text><text x="{:.1}" y="{y:.1}">{number}</text>"#,
            y0 - off,
            y1 + off,
            x0 - off,
            x1 + off,
        );
    }
    s.push_str("</g>");

    let radius = STEP * 0.475;
    let marks = |xs: &[(u8, u8, Color)]| -> Vec<Mark> {
        xs.iter()
            .filter(|&&(c, r, _)| c < n && r < n)
            .map(|&(c, r, color)| {
                let (x, y) = at(c, r);
                Mark {
                    x,
                    y,
                    name: (d.name)(c, r),
                    color,
                }
            })
            .collect()
    };
    cv.stones(&marks(d.stones), radius);
    cv.captured(&marks(d.captured), radius, false);
    if let Some((c, r)) = d.last.filter(|&(c, r)| c < n && r < n) {
        let on = d.stones.iter().find(|s| (s.0, s.1) == (c, r)).map(|s| s.2);
        let (x, y) = at(c, r);
        cv.last(x, y, on, radius);
    }
    let placed: Vec<(f64, f64, &PointMark)> = over
        .iter()
        .filter(|&&(c, r, _)| c < n && r < n)
        .map(|&(c, r, m)| {
            let (x, y) = at(c, r);
            (x, y, m)
        })
        .collect();
    cv.marks(&placed, radius);
    cv.close(d.caption)
}

/// The frame of a square board of `n × n` points drawn with `caption`:
/// the page width, the wood's left edge, and the centre of point (0, 0).
fn square_frame(n: u8, caption: &str) -> (f64, f64, (f64, f64)) {
    let span = f64::from(n.clamp(1, 19) - 1) * STEP;
    let band = STEP * 1.15;
    let wood = span + 2.0 * band;
    // A caption wider than the board widens the page; the board is centred.
    let w = (wood + 2.0 * MARGIN).max(caption_width(caption));
    let left = (w - wood) / 2.0;
    (w, left, (left + band, MARGIN + band))
}

// ---- Kaomi marks ------------------------------------------------------------

/// What a Kaomi board adds to the square drawing (kaomi-rules.md): the
/// stones the last placement pushed, and on the full board the pair
/// removal and the deciding group.
pub struct KaomiMarks<'a> {
    /// The stones pushed by the last placement, `(from, to)`.
    pub moved: &'a [(Point, Point)],
    /// The result of the full board, when the drawing shows it.
    pub result: Option<&'a KaomiResult>,
}

/// A Kaomi board: the square drawing of [`render`] with the coordinates
/// Kaomi names points by (SGF letters: columns `a`.. from the left, rows
/// `a`.. from the top; kaomi-rules.md, "Board and points") and Kaomi's
/// marks ([`kaomi_marks`]).
pub fn render_kaomi(d: &Drawing<'_>, marks: &KaomiMarks<'_>) -> String {
    // `render` draws a Kaomi position with SGF letters already.
    let svg = render(d);
    let AnyBoard::Square(board) = d.position.board() else {
        return svg;
    };
    kaomi_marks(svg, board, d.caption, marks)
}

/// Adds Kaomi's marks to `svg`, a square board of `board` drawn by
/// [`render`] with `caption`: each pushed stone's origin as a dashed ghost
/// (`class="ghost"`, `data-point` the origin, `data-to` where it went) with
/// an arrow to its new square (`class="push"`); on the final board the
/// stones of removed pairs greyed (`class="removed"`) and the deciding
/// group outlined (`class="deciding"`). Inserted before the caption.
pub fn kaomi_marks(
    svg: String,
    board: &SquareBoard,
    caption: &str,
    marks: &KaomiMarks<'_>,
) -> String {
    let (_, _, (ox, oy)) = square_frame(board.size(), caption);
    let at = |p: Point| {
        let (c, r) = board.coords(p);
        (ox + f64::from(c) * STEP, oy + f64::from(r) * STEP)
    };
    let radius = STEP * 0.475;
    let mut s = String::new();
    if let Some(result) = marks.result {
        s.push_str(r##"<g class="removed" fill="#8a8a8a" fill-opacity="0.8" stroke="#5a5a5a">"##);
        for g in result.groups.iter().filter(|g| g.removed) {
            for p in g.stones.iter() {
                let (x, y) = at(p);
                let _ = write!(
                    s,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="{radius:.1}" data-point="{}" data-size="{}"/>"#,
                    board.sgf_name(p),
                    g.size
                );
            }
        }
        s.push_str("</g>");
        if let Some(g) = result.deciding.map(|i| &result.groups[i]) {
            let _ = write!(
                s,
                r##"<g class="deciding" fill="none" stroke="#e0a800" stroke-width="3" data-color="{}" data-size="{}">"##,
                color_code(g.color),
                g.size
            );
            for p in g.stones.iter() {
                let (x, y) = at(p);
                let _ = write!(
                    s,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" data-point="{}"/>"#,
                    radius + 1.5,
                    board.sgf_name(p)
                );
            }
            s.push_str("</g>");
        }
    }
    if !marks.moved.is_empty() {
        s.push_str(
            r##"<defs><marker id="push-head" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#c0392b"/></marker></defs><g class="pushes">"##,
        );
        for &(from, to) in marks.moved {
            let ((x0, y0), (x1, y1)) = (at(from), at(to));
            let _ = write!(
                s,
                r##"<circle class="ghost" cx="{x0:.1}" cy="{y0:.1}" r="{:.1}" fill="none" stroke="#6b6b6b" stroke-width="1.5" stroke-dasharray="3 3" data-point="{}" data-to="{}"/>"##,
                radius * 0.9,
                board.sgf_name(from),
                board.sgf_name(to)
            );
            // Stop short of the stone it points at.
            let (dx, dy) = (x1 - x0, y1 - y0);
            let len = (dx * dx + dy * dy).sqrt().max(1.0);
            let k = (len - radius * 0.7) / len;
            let _ = write!(
                s,
                r##"<line class="push" x1="{x0:.1}" y1="{y0:.1}" x2="{:.1}" y2="{:.1}" stroke="#c0392b" stroke-width="2" marker-end="url(#push-head)"/>"##,
                x0 + dx * k,
                y0 + dy * k
            );
        }
        s.push_str("</g>");
    }
    let mut svg = svg;
    let at_caption = svg.rfind(r#"<text class="caption""#).unwrap_or(svg.len());
    svg.insert_str(at_caption, &s);
    svg
}

// ---- hexagonal boards -------------------------------------------------------

/// Lattice coordinates of axial `(column, row)`, before offsetting: columns
/// run left to right, rows upward along each column, and a column stands half
/// a step higher than the one to its left so that the six neighbours are at
/// equal distance.
fn lattice(column: i32, row: i32) -> (f64, f64) {
    let x = f64::from(column) * COLUMN;
    let y = (f64::from(column) / 2.0 - f64::from(row)) * STEP;
    (x, y)
}

/// The SVG document of a Keil (hexagonal) board.
fn render_hex(
    position: &Position,
    last: Option<Point>,
    captured: &[(Point, Color)],
    caption: &str,
    ex: &Extras<'_>,
) -> String {
    let board: &Board = position.board();
    let n = i32::from(board.side());
    let width = i32::from(board.width());
    let side = n - 1;
    // Label slots are the off-board neighbours: below each column and left
    // of each row. The frame is the bounding box of points and labels.
    let column_labels: Vec<(i32, i32)> = (0..board.width())
        .map(|c| (i32::from(c), i32::from(*board.column_rows(c).start()) - 1))
        .collect();
    let row_labels: Vec<(i32, i32)> = (0..width).map(|r| ((r - side).max(0) - 1, r)).collect();
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    let lattice_points = board.points().map(|p| {
        let (c, r) = board.coords(p);
        (i32::from(c), i32::from(r))
    });
    for (c, r) in lattice_points
        .chain(column_labels.iter().copied())
        .chain(row_labels.iter().copied())
    {
        let (x, y) = lattice(c, r);
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    let natural = x1 - x0 + 2.0 * MARGIN + STEP;
    // A caption wider than the board widens the page; the board is centred.
    let w = natural.max(caption_width(caption));
    let (ox, oy) = (
        (w - natural) / 2.0 + MARGIN + STEP / 2.0 - x0,
        MARGIN + STEP / 2.0 - y0,
    );
    let at = |c: i32, r: i32| {
        let (x, y) = lattice(c, r);
        (x + ox, y + oy)
    };
    let pt = |p: Point| {
        let (c, r) = board.coords(p);
        at(i32::from(c), i32::from(r))
    };
    let h = y1 - y0 + 2.0 * MARGIN + STEP + CAPTION;

    let count = |c: Color| position.stones(c).len();
    let size = format!("side {n}");
    let mut cv = Canvas::open(
        w,
        h,
        &title(
            "Keil",
            &size,
            count(Color::Black),
            count(Color::White),
            caption,
        ),
        ex,
    );
    let s = &mut cv.s;

    // The hexagon: corners of the board, slightly outside the corner points.
    let corners = [
        (0, 0),
        (0, side),
        (side, 2 * side),
        (2 * side, 2 * side),
        (2 * side, side),
        (side, 0),
    ];
    let (cx, cy) = at(side, side);
    let _ = write!(
        s,
        r##"<polygon class="board" fill="#e3c27a" stroke="{WOOD_EDGE}" stroke-width="1.5" points=""##
    );
    for (c, r) in corners {
        let (x, y) = at(c, r);
        let _ = write!(
            s,
            "{:.1},{:.1} ",
            cx + (x - cx) * 1.08,
            cy + (y - cy) * 1.08
        );
    }
    s.push_str(r#""/>"#);

    // Lines between neighbours.
    s.push_str(r##"<g stroke="#5b4a24" stroke-width="1">"##);
    for p in board.points() {
        let (xa, ya) = pt(p);
        for q in board.neighbours(p).filter(|q| q.index() > p.index()) {
            let (xb, yb) = pt(q);
            let _ = write!(
                s,
                r#"<line x1="{xa:.1}" y1="{ya:.1}" x2="{xb:.1}" y2="{yb:.1}"/>"#
            );
        }
    }
    s.push_str("</g>");

    // Coordinates: column letters under each column, row numbers left of
    // each row (outside the hexagon, on the page).
    let _ = write!(
        s,
        r#"<g class="hex-label" fill="{LABEL}" text-anchor="middle" dominant-baseline="central">"#
    );
    for (i, &(c, r)) in column_labels.iter().enumerate() {
        let (x, y) = at(c, r);
        let letter = (b'a' + i as u8) as char;
        let _ = write!(s, r#"<text x="{x:.1}" y="{y:.1}">{letter}</text>"#);
    }
    for (i, &(c, r)) in row_labels.iter().enumerate() {
        let (x, y) = at(c, r);
        let _ = write!(s, r#"<text x="{x:.1}" y="{y:.1}">{}</text>"#, i + 1);
    }
    s.push_str("</g>");

    let radius = STEP * 0.44;
    let mark = |p: Point, color: Color| {
        let (x, y) = pt(p);
        Mark {
            x,
            y,
            name: board.name(p).to_string(),
            color,
        }
    };
    let mut stones: Vec<Mark> = Vec::new();
    for c in [Color::Black, Color::White] {
        stones.extend(position.stones(c).iter().map(|p| mark(p, c)));
    }
    cv.stones(&stones, radius);
    let captured: Vec<Mark> = captured.iter().map(|&(p, c)| mark(p, c)).collect();
    cv.captured(&captured, radius, true);
    if let Some(p) = last {
        let (x, y) = pt(p);
        cv.last(x, y, position.get(p), radius);
    }
    let placed: Vec<(f64, f64, &PointMark)> = ex
        .marks
        .iter()
        .filter(|m| m.point.index() < board.len())
        .map(|m| {
            let (x, y) = pt(m.point);
            (x, y, m)
        })
        .collect();
    cv.marks(&placed, radius);
    cv.close(caption)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses the document as XML (well-formedness) and returns it.
    fn parse(svg: &str) -> roxmltree::Document<'_> {
        roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{e}\n{svg}"))
    }

    /// `(data-point, data-color)` of every element of class `class`'s group.
    fn marked(doc: &roxmltree::Document<'_>, group: &str) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some(group))
            .flat_map(|g| g.children().filter(|n| n.is_element()))
            .filter_map(|n| {
                Some((
                    n.attribute("data-point")?.to_string(),
                    n.attribute("data-color")?.to_string(),
                ))
            })
            .collect();
        out.sort();
        out
    }

    fn texts(doc: &roxmltree::Document<'_>, group: &str) -> Vec<String> {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some(group))
            .flat_map(|g| g.children().filter_map(|t| t.text()))
            .map(str::to_string)
            .collect()
    }

    /// The SGF name of a point of the 19×19 board (every smaller board's
    /// points have the same names).
    fn sgf(c: u8, r: u8) -> String {
        let board = SquareBoard::new(19).unwrap();
        board.sgf_name(board.point_at(c.into(), r.into()).unwrap())
    }

    fn empty(side: u8) -> Position {
        Position::empty(Board::new(side).unwrap())
    }

    #[test]
    fn draws_every_point_label_and_stone() {
        let mut p = empty(7);
        let board = p.board();
        let g7 = board.parse_point("g7").unwrap();
        let a1 = board.parse_point("a1").unwrap();
        p.set(g7, Some(Color::Black));
        let captured = [(a1, Color::White)];
        let svg = render(&Drawing {
            position: &AnyPosition::Keil(p),
            last: Some(g7),
            captured: &captured,
            caption: "ply 3 <B>",
        });
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        let doc = parse(&svg);
        // 13 column letters and 13 row numbers.
        let labels = texts(&doc, "hex-label");
        for c in 'a'..='m' {
            assert!(labels.contains(&c.to_string()), "{c}");
        }
        for r in 1..=13 {
            assert!(labels.contains(&r.to_string()), "{r}");
        }
        // Lines: each of the 127 points' links counted once.
        let lines = svg.matches("<line").count();
        let edges: usize = board.points().map(|p| board.neighbours(p).count()).sum();
        assert_eq!(lines, edges / 2);
        assert_eq!(svg.matches(r#"class="last""#).count(), 1);
        assert_eq!(marked(&doc, "black"), [("g7".into(), "b".into())]);
        assert_eq!(marked(&doc, "captured"), [("a1".into(), "w".into())]);
        assert!(svg.contains(r#"opacity="0.35""#));
        assert!(svg.contains("ply 3 &lt;B&gt;"));
        let title = doc
            .descendants()
            .find(|n| n.has_tag_name("title"))
            .and_then(|t| t.text())
            .unwrap();
        assert_eq!(
            title,
            "Keil board side 7: 1 black stone, 0 white stones. ply 3 <B>"
        );
        assert_eq!(doc.root_element().attribute("aria-label"), Some(title));
    }

    #[test]
    fn inline_boards_have_no_style_and_mark_only_stones_with_data_point() {
        let mut p = empty(4);
        let board = p.board();
        let d4 = board.parse_point("d4").unwrap();
        let a1 = board.parse_point("a1").unwrap();
        p.set(d4, Some(Color::Black));
        let captured = [(a1, Color::White)];
        let marks = [
            PointMark {
                point: a1,
                class: "next",
                label: "12".into(),
                href: Some("/positions?a=1&b=<2>".into()),
                title: "a1 <x>".into(),
                fill: Some("#123456".into()),
            },
            PointMark {
                point: d4,
                class: "dot-w",
                label: String::new(),
                href: None,
                title: "d4".into(),
                fill: None,
            },
        ];
        let position = AnyPosition::Keil(p);
        let svg = render_with(
            &Drawing {
                position: &position,
                last: Some(d4),
                captured: &captured,
                caption: "c",
            },
            &Extras {
                inline: true,
                ply: Some(7),
                notation: Some("4/5 b"),
                marks: &marks,
            },
        );
        let doc = parse(&svg);
        let root = doc.root_element();
        assert_eq!(root.attribute("data-ply"), Some("7"));
        assert_eq!(root.attribute("data-position"), Some("4/5 b"));
        assert_eq!(root.attribute("width"), None);
        assert!(!svg.contains("<style"));
        // Only the stone carries data-point; the capture is data-captured.
        let pointed: Vec<_> = doc
            .descendants()
            .filter_map(|n| n.attribute("data-point"))
            .collect();
        assert_eq!(pointed, ["d4"]);
        assert_eq!(
            doc.descendants()
                .filter_map(|n| n.attribute("data-captured"))
                .collect::<Vec<_>>(),
            ["a1"]
        );
        // The marks: a link (escaped) around a labelled disc, a square.
        let a = doc.descendants().find(|n| n.has_tag_name("a")).unwrap();
        assert_eq!(a.attribute("href"), Some("/positions?a=1&b=<2>"));
        assert!(svg.contains("a1 &lt;x&gt;"));
        assert_eq!(svg.matches(r#"class="dot-w""#).count(), 1);
        assert!(svg.contains(">12</text>"));
        // The standalone document is unchanged by the defaults.
        let plain = render(&Drawing {
            position: &position,
            last: Some(d4),
            captured: &captured,
            caption: "c",
        });
        assert!(plain.contains("<style") && plain.contains(r#"data-point="a1""#));
    }

    #[test]
    fn neighbours_are_equidistant() {
        let board = Board::new(4).unwrap();
        for p in board.points() {
            let (c, r) = board.coords(p);
            let (xa, ya) = lattice(c.into(), r.into());
            for q in board.neighbours(p) {
                let (c, r) = board.coords(q);
                let (xb, yb) = lattice(c.into(), r.into());
                let d = ((xa - xb).powi(2) + (ya - yb).powi(2)).sqrt();
                assert!((d - STEP).abs() < 1e-6, "{d}");
            }
        }
    }

    fn square(size: u8, stones: &[(u8, u8, Color)], caption: &str) -> String {
        render_square(&SquareDiagram {
            size,
            stones,
            last: stones.last().map(|s| (s.0, s.1)),
            captured: &[],
            name: &sgf,
            game: "Go",
            sgf_labels: false,
            caption,
        })
    }

    #[test]
    fn square_board_has_exactly_its_stones_with_sgf_names() {
        use Color::{Black, White};
        let stones = [
            (3, 3, Black),
            (15, 3, White),
            (15, 15, Black),
            (2, 16, White),
        ];
        let captured = [(4, 4, White), (5, 4, White)];
        let svg = render_square(&SquareDiagram {
            size: 19,
            stones: &stones,
            last: Some((2, 16)),
            captured: &captured,
            name: &sgf,
            game: "Go",
            sgf_labels: false,
            caption: "game 1 · ply 4 & more",
        });
        let doc = parse(&svg);
        let b = |s: &str| (s.to_string(), "b".to_string());
        let w = |s: &str| (s.to_string(), "w".to_string());
        assert_eq!(marked(&doc, "black"), [b("dd"), b("pp")]);
        assert_eq!(marked(&doc, "white"), [w("cq"), w("pd")]);
        assert_eq!(marked(&doc, "captured"), [w("ee"), w("fe")]);
        // Exactly four stones and one last-move mark, on the white stone:
        // a dark ring.
        let circles = doc
            .descendants()
            .filter(|n| n.attribute("data-point").is_some() && n.has_tag_name("circle"))
            .count();
        assert_eq!(circles, 4);
        let last: Vec<_> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("last"))
            .collect();
        assert_eq!(last.len(), 1);
        assert_eq!(last[0].attribute("stroke"), Some("#151515"));
        assert_eq!(
            doc.root_element().attribute("aria-label"),
            Some("Go board 19×19: 2 black stones, 2 white stones. game 1 · ply 4 & more")
        );
    }

    #[test]
    fn square_coordinates_skip_i_and_count_rows_from_the_bottom() {
        let svg = square(19, &[(0, 0, Color::Black)], "");
        let doc = parse(&svg);
        let labels = texts(&doc, "coords");
        // Each label on two sides.
        assert_eq!(labels.len(), 4 * 19);
        let letters: String = labels
            .chunks(4)
            .map(|c| c[0].chars().next().unwrap())
            .collect();
        assert_eq!(letters, "ABCDEFGHJKLMNOPQRST");
        assert!(!labels.iter().any(|l| l == "I"));
        let rows: Vec<&str> = labels.chunks(4).map(|c| c[2].as_str()).collect();
        assert_eq!(rows.first(), Some(&"19"));
        assert_eq!(rows.last(), Some(&"1"));
        // The top row's label is level with the top line.
        let first_number = doc.descendants().find(|n| n.text() == Some("19")).unwrap();
        let first_letter = doc.descendants().find(|n| n.text() == Some("A")).unwrap();
        let y: f64 = first_number.attribute("y").unwrap().parse().unwrap();
        let x: f64 = first_letter.attribute("x").unwrap().parse().unwrap();
        let corner = doc
            .descendants()
            .find(|n| n.attribute("data-point") == Some("aa"))
            .unwrap();
        assert_eq!(corner.attribute("cx").unwrap().parse::<f64>().unwrap(), x);
        assert_eq!(corner.attribute("cy").unwrap().parse::<f64>().unwrap(), y);
    }

    #[test]
    fn a_go_position_is_drawn_on_a_square_board() {
        use keil_rules::{GoPosition, SquareBoard};
        let board = SquareBoard::new(9).unwrap();
        let p = |name: &str| board.parse_sgf_point(name).unwrap();
        let go = GoPosition::from_stones(board, [p("cc"), p("ge")], [p("gc")]).unwrap();
        let captured = [(p("dd"), Color::White)];
        let svg = render(&Drawing {
            position: &AnyPosition::Go(go),
            last: Some(p("ge")),
            captured: &captured,
            caption: "ply 5",
        });
        let doc = parse(&svg);
        let b = |s: &str| (s.to_string(), "b".to_string());
        assert_eq!(marked(&doc, "black"), [b("cc"), b("ge")]);
        assert_eq!(marked(&doc, "white"), [("gc".into(), "w".into())]);
        assert_eq!(marked(&doc, "captured"), [("dd".into(), "w".into())]);
        assert_eq!(texts(&doc, "coords").len(), 4 * 9);
        assert_eq!(
            doc.root_element().attribute("aria-label"),
            Some("Go board 9×9: 2 black stones, 1 white stone. ply 5")
        );
        // The last move (a black stone) gets a light ring at its point.
        let ge = doc
            .descendants()
            .find(|n| n.attribute("data-point") == Some("ge"))
            .unwrap();
        let ring = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("last"))
            .unwrap();
        assert_eq!(ring.attribute("cx"), ge.attribute("cx"));
        assert_eq!(ring.attribute("cy"), ge.attribute("cy"));
        assert_eq!(ring.attribute("stroke"), Some("#f7f7f4"));
    }

    #[test]
    fn square_labels_agree_with_the_rules_display_names() {
        for n in 1..=19u8 {
            let board = SquareBoard::new(n).unwrap();
            let svg = square(n, &[], "");
            let labels = texts(&parse(&svg), "coords");
            for (i, chunk) in labels.chunks(4).enumerate() {
                let i = i as i32;
                // The column letter with the top row's number.
                let top = board.point_at(i, 0).unwrap();
                assert_eq!(board.display_name(top), format!("{}{n}", chunk[0]));
                // The left column's letter with the row's number.
                let left = board.point_at(0, i).unwrap();
                assert_eq!(board.display_name(left), format!("A{}", chunk[2]));
            }
        }
    }

    #[test]
    fn star_points_follow_the_usual_boards() {
        assert!(star_points(6).is_empty());
        assert_eq!(star_points(9), [(2, 2), (6, 2), (2, 6), (6, 6), (4, 4)]);
        assert_eq!(star_points(13), [(3, 3), (9, 3), (3, 9), (9, 9), (6, 6)]);
        let mut s19 = star_points(19);
        s19.sort();
        let mut want = Vec::new();
        for c in [3, 9, 15] {
            for r in [3, 9, 15] {
                want.push((c, r));
            }
        }
        assert_eq!(s19, want);
        // Even boards have no centre.
        assert_eq!(star_points(8).len(), 4);
        for n in 1..=19 {
            let doc_text = square(n, &[], "");
            let doc = parse(&doc_text);
            let drawn = doc
                .descendants()
                .filter(|e| e.attribute("class") == Some("stars"))
                .map(|g| g.children().filter(|c| c.is_element()).count())
                .sum::<usize>();
            assert_eq!(drawn, star_points(n).len(), "{n}");
        }
    }

    #[test]
    fn every_square_size_is_well_formed() {
        for n in 1..=19u8 {
            let stones: Vec<(u8, u8, Color)> = (0..n)
                .map(|i| {
                    let c = if i % 2 == 0 {
                        Color::Black
                    } else {
                        Color::White
                    };
                    (i, n - 1 - i, c)
                })
                .collect();
            let svg = square(n, &stones, "x");
            let doc = parse(&svg);
            let n_stones = marked(&doc, "black").len() + marked(&doc, "white").len();
            assert_eq!(n_stones, usize::from(n));
            assert!(!svg.contains("NaN") && !svg.contains("inf"), "{n}");
            // Self-contained: no scripts, links, external fonts or images.
            for banned in ["<script", "href", "@import", "url(", "@font-face"] {
                assert!(!svg.contains(banned), "{banned} in {n}×{n}");
            }
        }
    }
}
