//! The drawing both geometries share: the document's frame (title,
//! styles, page), stones, captures, the last-move ring, marks over the
//! points and the caption.

use std::fmt::Write;

use keil_rules::Color;

use super::{
    CAPTION, CROSS, Extras, MARGIN, PAGE, PointMark, STYLE, TEXT, WOOD, color_code, escape,
};

/// A stone placed on the canvas.
pub(super) struct Mark {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) name: String,
    pub(super) color: Color,
}

/// The parts both geometries draw the same way.
pub(super) struct Canvas {
    pub(super) s: String,
    pub(super) w: f64,
    pub(super) h: f64,
    /// Drawn for a page ([`Extras::inline`]).
    pub(super) inline: bool,
}

impl Canvas {
    /// Opens the document: size, title, styles and the page background.
    pub(super) fn open(w: f64, h: f64, title: &str, ex: &Extras<'_>) -> Canvas {
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

    /// The marks of [`Extras::marks`] at their canvas coordinates, each
    /// inside its link when it has one.
    pub(super) fn marks(&mut self, marks: &[(f64, f64, &PointMark)], radius: f64) {
        if marks.is_empty() {
            return;
        }
        self.s.push_str(r#"<g class="marks">"#);
        for &(x, y, m) in marks {
            if let Some(href) = &m.href {
                let _ = write!(self.s, r#"<a href="{}""#, escape(href));
                for (name, value) in &m.data {
                    let _ = write!(self.s, r#" data-{name}="{}""#, escape(value));
                }
                self.s.push('>');
            }
            self.mark(x, y, m, radius);
            if m.href.is_some() {
                self.s.push_str("</a>");
            }
        }
        self.s.push_str("</g>");
    }

    /// One mark, drawn as its class says.
    fn mark(&mut self, x: f64, y: f64, m: &PointMark, radius: f64) {
        let title = &escape(&m.title);
        match m.class {
            "dot-b" | "dot-w" => self.owned_dot(x, y, m, radius, title),
            "next-b" | "next-w" => self.next_stone(x, y, m, radius, title),
            "cell" => self.editor_cell(x, y, m, radius, title),
            "region" | "region-stone" => self.region_point(x, y, m, radius, title),
            "removed" => self.removed(x, y, radius, title),
            "deciding" => self.deciding(x, y, radius, title),
            "ghost" => self.ghost(x, y, radius, title),
            "refused" => self.refused(x, y, radius, title),
            "mk-tr" | "mk-sq" | "mk-cr" | "mk-ma" => self.markup_shape(x, y, m, radius, title),
            "mk-lb" | "mk-num" => self.markup_text(x, y, m, radius, title),
            _ => self.plain_point(x, y, m, radius, title),
        }
    }

    /// A point the final count gives a player: a small square.
    fn owned_dot(&mut self, x: f64, y: f64, m: &PointMark, radius: f64, title: &str) {
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

    /// A continuation: a stone of the colour that plays it (`next-b`,
    /// `next-w`) with its letter in the other colour, as Kombilo marks
    /// continuations.
    fn next_stone(&mut self, x: f64, y: f64, m: &PointMark, radius: f64, title: &str) {
        let (fill, stroke, ink) = if m.class == "next-b" {
            ("#151515", "#000", "#fff")
        } else {
            ("#f7f7f4", "#555", "#111")
        };
        let _ = write!(
            self.s,
            r##"<circle class="next {}" cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="{fill}" stroke="{stroke}" stroke-width="1"><title>{title}</title></circle><text class="next-label" x="{x:.1}" y="{y:.1}" text-anchor="middle" dominant-baseline="central" fill="{ink}" font-size="12" font-weight="700" pointer-events="none">{}</text>"##,
            m.class,
            radius * 0.9,
            escape(&m.label)
        );
    }

    /// A point of the pattern editor: a disc whose look the stylesheet
    /// gives by the link's `data-cell` (a stone, a tinted region point, or
    /// nothing), and the cell's character when it is a wildcard.
    fn editor_cell(&mut self, x: f64, y: f64, m: &PointMark, radius: f64, title: &str) {
        let _ = write!(
            self.s,
            r##"<circle class="cell" cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="#2e86de" fill-opacity="0"><title>{title}</title></circle><text class="cell-label" x="{x:.1}" y="{y:.1}" text-anchor="middle" dominant-baseline="central" fill="#1b4f80" font-size="11" pointer-events="none">{}</text>"##,
            radius * 0.95,
            escape(&m.label)
        );
    }

    /// A point of a pattern's region: a tinted disc, with the cell's
    /// character when it is no stone (`.`, `*`, `x`, `o`); a ring around
    /// a stone of the pattern (`region-stone`), which stays black or white.
    fn region_point(&mut self, x: f64, y: f64, m: &PointMark, radius: f64, title: &str) {
        // A stone of the pattern keeps its colour: a ring, not a tint.
        let fill = if m.class == "region-stone" {
            r##"fill="none" stroke-width="2""##
        } else {
            r##"fill="#2e86de" fill-opacity="0.22""##
        };
        let _ = write!(
            self.s,
            r##"<circle class="region" cx="{x:.1}" cy="{y:.1}" r="{:.1}" {fill} stroke="#2e86de" stroke-opacity="0.6"><title>{title}</title></circle>"##,
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

    /// Kaomi: a removed pair's stone, greyed.
    fn removed(&mut self, x: f64, y: f64, radius: f64, title: &str) {
        let _ = write!(
            self.s,
            r##"<circle class="removed" cx="{x:.1}" cy="{y:.1}" r="{radius:.1}" fill="#8a8a8a" fill-opacity="0.8" stroke="#5a5a5a"><title>{title}</title></circle>"##
        );
    }

    /// Kaomi: a stone of the deciding group, ringed.
    fn deciding(&mut self, x: f64, y: f64, radius: f64, title: &str) {
        let _ = write!(
            self.s,
            r##"<circle class="deciding" cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="none" stroke="#e0a800" stroke-width="3"><title>{title}</title></circle>"##,
            radius + 1.5
        );
    }

    /// Kaomi: a pushed stone's origin, as a dashed ghost.
    fn ghost(&mut self, x: f64, y: f64, radius: f64, title: &str) {
        let _ = write!(
            self.s,
            r##"<circle class="ghost" cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="none" stroke="#c0392b" stroke-width="1.5" stroke-dasharray="3 3"><title>{title}</title></circle>"##,
            radius * 0.9
        );
    }

    /// A refused move (the refused record's viewer): a red ring and cross
    /// on the point it names.
    fn refused(&mut self, x: f64, y: f64, radius: f64, title: &str) {
        let _ = write!(
            self.s,
            r##"<g class="refused" fill="none" stroke="#c0392b" stroke-width="3"><title>{title}</title><circle cx="{x:.1}" cy="{y:.1}" r="{:.1}"/><path d="{}"/></g>"##,
            radius * 0.95,
            cross(x, y, radius * 0.6)
        );
    }

    /// A record's board markup (SGF `TR`, `SQ`, `CR`, `MA`), drawn in
    /// `fill` (chosen to read on the stone below, black by default).
    fn markup_shape(&mut self, x: f64, y: f64, m: &PointMark, radius: f64, title: &str) {
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

    /// A record's label (SGF `LB`) or a move number, drawn in `fill`.
    fn markup_text(&mut self, x: f64, y: f64, m: &PointMark, radius: f64, title: &str) {
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

    /// Any other mark: a clear disc over the point (a link's target).
    fn plain_point(&mut self, x: f64, y: f64, m: &PointMark, radius: f64, title: &str) {
        let _ = write!(
            self.s,
            r##"<circle class="{}" cx="{x:.1}" cy="{y:.1}" r="{radius:.1}" fill="#000" fill-opacity="0"><title>{title}</title></circle>"##,
            m.class
        );
    }

    /// The stones, black then white, each with its point name and colour.
    pub(super) fn stones(&mut self, marks: &[Mark], radius: f64) {
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
    pub(super) fn captured(&mut self, marks: &[Mark], radius: f64, ghost: bool) {
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
                r#"<path d="{}" stroke="{CROSS}" stroke-width="2.5" stroke-linecap="round" {attr}="{name}" data-color="{code}"/>"#,
                cross(x, y, k)
            );
        }
        self.s.push_str("</g>");
    }

    /// The last move: a ring in the colour opposite to the stone on it.
    pub(super) fn last(&mut self, x: f64, y: f64, on: Option<Color>, radius: f64) {
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
    pub(super) fn close(mut self, caption: &str) -> String {
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

/// The path of a cross centred on `(x, y)`, `k` from the centre along
/// each axis: the two diagonals.
fn cross(x: f64, y: f64, k: f64) -> String {
    format!(
        "M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}",
        x - k,
        y - k,
        x + k,
        y + k,
        x - k,
        y + k,
        x + k,
        y - k
    )
}
