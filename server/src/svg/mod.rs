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
//!
//! One module per concern: `canvas` (the frame, stones and marks both
//! geometries draw alike), `square`, `hex` and `kaomi` (Kaomi's marks over
//! the square drawing); the public API is re-exported here.

mod canvas;
mod hex;
mod kaomi;
mod square;

use keil_rules::{AnyBoard, AnyPosition, Color, Point};

pub use kaomi::{KaomiMarks, kaomi_marks, render_kaomi};
pub use square::{SquareDiagram, render_square, star_points};

use hex::render_hex;
use square::render_square_position;

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
#[derive(Clone, Debug)]
pub struct PointMark {
    /// The point.
    pub point: Point,
    /// Its look: `dot-b`/`dot-w` (a small square: territory or area),
    /// `next-b`/`next-w` (a continuation: a stone of the colour that
    /// plays it, with `label`, its letter), `hot` (an invisible
    /// target covering the point, for links), `region` (a point of a
    /// pattern: a tinted disc with `label`), `region-stone` (a stone of a
    /// pattern: a ring around it), `cell` (a point of the
    /// pattern editor, drawn by the stylesheet from `data-cell`); Kaomi's `removed` (a stone of
    /// a removed pair, greyed), `deciding` (a ring around a stone of the
    /// deciding group) and `ghost` (a dashed circle where a pushed stone
    /// stood); a record's markup `mk-tr`, `mk-sq`, `mk-cr`, `mk-ma`,
    /// `mk-lb` (with `label`) and move numbers `mk-num` (with `label`),
    /// drawn in `fill`; `refused` (a red ring and cross: the refused move
    /// of a refused record).
    pub class: &'static str,
    /// A short text drawn on the point (a continuation's letter).
    pub label: String,
    /// Makes the mark a link to this URL.
    pub href: Option<String>,
    /// A tooltip and accessible name.
    pub title: String,
    /// The ink of a markup or move number.
    pub fill: Option<String>,
    /// Attributes `data-NAME="VALUE"` of the mark's link (with `href`
    /// only): the pattern editor's `at` (the point's name), `col`, `row`
    /// and `cell`.
    pub data: Vec<(&'static str, String)>,
}

/// The SVG of a board drawn inline in a search page (the explorer's, the
/// pattern search's): `position` with `marks` over its points, captioned
/// `caption`, no last move; `notation` (if any) for the page's scripts.
pub fn render_marked(
    position: &AnyPosition,
    caption: &str,
    notation: Option<&str>,
    marks: &[PointMark],
) -> String {
    render_with(
        &Drawing {
            position,
            last: None,
            captured: &[],
            caption,
        },
        &Extras {
            inline: true,
            ply: None,
            notation,
            marks,
        },
    )
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

/// The width a drawing needs for its caption: a generous estimate of
/// 12-unit sans-serif text (about 0.6 em per character), plus margins.
fn caption_width(caption: &str) -> f64 {
    caption.chars().count() as f64 * 7.0 + 2.0 * MARGIN
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

/// Helpers of the drawings' tests: the document parsed, its stones and
/// labels.
#[cfg(test)]
mod testing {
    /// Parses the document as XML (well-formedness) and returns it.
    pub(super) fn parse(svg: &str) -> roxmltree::Document<'_> {
        roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{e}\n{svg}"))
    }

    /// `(data-point, data-color)` of every element of class `class`'s group.
    pub(super) fn marked(doc: &roxmltree::Document<'_>, group: &str) -> Vec<(String, String)> {
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

    pub(super) fn texts(doc: &roxmltree::Document<'_>, group: &str) -> Vec<String> {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some(group))
            .flat_map(|g| g.children().filter_map(|t| t.text()))
            .map(str::to_string)
            .collect()
    }
}
