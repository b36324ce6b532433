//! Kaomi's marks over the square drawing: pushed stones, removed pairs
//! and the deciding group.

use std::fmt::Write;

use keil_rules::{AnyBoard, KaomiResult, Point, SquareBoard};

use super::square::square_frame;
use super::{Drawing, STEP, color_code, render};

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
