//! Square boards (Go; Kaomi reuses them): the `n × n` grid of lines, the
//! star points and the coordinates on all four sides.

use std::fmt::Write;

use keil_rules::{AnyPosition, Color, Point, SquareBoard};

use super::canvas::{Canvas, Mark};
use super::{
    CAPTION, Drawing, Extras, INK, LABEL, MARGIN, PointMark, STEP, WOOD, WOOD_EDGE, caption_width,
    title,
};

/// A position on a square board, drawn with [`render_square`].
pub(super) fn render_square_position(
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

/// The SVG document of a square board.
pub fn render_square(d: &SquareDiagram<'_>) -> String {
    draw_square(d, &Extras::default(), &[])
}

/// A square board with extras; `marks` at `(column, row)`.
fn draw_square(d: &SquareDiagram<'_>, ex: &Extras<'_>, over: &[(u8, u8, &PointMark)]) -> String {
    let n = d.size.clamp(1, 19);
    let grid = Grid::new(n, d.caption);
    let blacks = d.stones.iter().filter(|s| s.2 == Color::Black).count();
    let size = format!("{n}×{n}");
    let mut cv = Canvas::open(
        grid.w,
        grid.h,
        &title(d.game, &size, blacks, d.stones.len() - blacks, d.caption),
        ex,
    );
    grid.wood(&mut cv.s);
    grid.lines(&mut cv.s);
    grid.stars(&mut cv.s);
    grid.coordinates(&mut cv.s, d.sgf_labels);
    grid.pieces(&mut cv, d, over);
    cv.close(d.caption)
}

/// Where a square board's wood, lines and points stand on the page.
struct Grid {
    /// Points per side.
    n: u8,
    /// The grid's width and height (the first line to the last).
    span: f64,
    /// The wood's side and left edge.
    wood: f64,
    left: f64,
    /// The page's size.
    w: f64,
    h: f64,
    /// The centre of point (0, 0).
    ox: f64,
    oy: f64,
}

impl Grid {
    /// The grid of `n × n` points under `caption` ([`square_frame`]).
    fn new(n: u8, caption: &str) -> Grid {
        let span = f64::from(n - 1) * STEP;
        // Wood: the grid plus a band holding the coordinates on every side.
        let band = STEP * 1.15;
        let wood = span + 2.0 * band;
        let (w, left, (ox, oy)) = square_frame(n, caption);
        Grid {
            n,
            span,
            wood,
            left,
            w,
            h: wood + 2.0 * MARGIN + CAPTION,
            ox,
            oy,
        }
    }

    /// The page coordinates of `(column, row)`.
    fn at(&self, c: u8, r: u8) -> (f64, f64) {
        (self.ox + f64::from(c) * STEP, self.oy + f64::from(r) * STEP)
    }

    /// The wood.
    fn wood(&self, s: &mut String) {
        let (left, wood) = (self.left, self.wood);
        let _ = write!(
            s,
            r#"<rect class="board" x="{left:.1}" y="{MARGIN:.1}" width="{wood:.1}" height="{wood:.1}" rx="3" fill="{WOOD}" stroke="{WOOD_EDGE}" stroke-width="1.5"/>"#
        );
    }

    /// Lines: one path, the outer ones drawn again a little heavier.
    fn lines(&self, s: &mut String) {
        let span = self.span;
        let (x0, x1, y0, y1) = (self.ox, self.ox + span, self.oy, self.oy + span);
        s.push_str(r#"<path class="grid" d=""#);
        for i in 0..self.n {
            let (x, y) = self.at(i, i);
            let _ = write!(s, "M{x0:.1} {y:.1}H{x1:.1}M{x:.1} {y0:.1}V{y1:.1}");
        }
        let _ = write!(
            s,
            r#"" stroke="{INK}" stroke-width="1" stroke-linecap="square"/>"#
        );
        if self.n > 1 {
            let _ = write!(
                s,
                r#"<rect x="{x0:.1}" y="{y0:.1}" width="{span:.1}" height="{span:.1}" fill="none" stroke="{INK}" stroke-width="1.8"/>"#
            );
        }
    }

    /// Star points.
    fn stars(&self, s: &mut String) {
        let stars = star_points(self.n);
        if !stars.is_empty() {
            let _ = write!(s, r#"<g class="stars" fill="{INK}">"#);
            for (c, r) in stars {
                let (x, y) = self.at(c, r);
                let _ = write!(
                    s,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}"/>"#,
                    STEP * 0.1
                );
            }
            s.push_str("</g>");
        }
    }

    /// Coordinates: letters above and below, numbers left and right (SGF
    /// letters both ways with `sgf_labels`).
    fn coordinates(&self, s: &mut String, sgf_labels: bool) {
        let n = self.n;
        let (x0, x1, y0, y1) = (self.ox, self.ox + self.span, self.oy, self.oy + self.span);
        let _ = write!(
            s,
            r#"<g class="coords" fill="{LABEL}" text-anchor="middle" dominant-baseline="central" font-size="11">"#
        );
        let off = STEP * 0.78;
        for i in 0..n {
            let (x, y) = self.at(i, i);
            let (letter, number) = if sgf_labels {
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
    }

    /// The stones, the captures, the last move's ring and the marks
    /// (`over`, at `(column, row)`).
    fn pieces(&self, cv: &mut Canvas, d: &SquareDiagram<'_>, over: &[(u8, u8, &PointMark)]) {
        let n = self.n;
        let radius = STEP * 0.475;
        let marks = |xs: &[(u8, u8, Color)]| -> Vec<Mark> {
            xs.iter()
                .filter(|&&(c, r, _)| c < n && r < n)
                .map(|&(c, r, color)| {
                    let (x, y) = self.at(c, r);
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
            let (x, y) = self.at(c, r);
            cv.last(x, y, on, radius);
        }
        let placed: Vec<(f64, f64, &PointMark)> = over
            .iter()
            .filter(|&&(c, r, _)| c < n && r < n)
            .map(|&(c, r, m)| {
                let (x, y) = self.at(c, r);
                (x, y, m)
            })
            .collect();
        cv.marks(&placed, radius);
    }
}

/// The frame of a square board of `n × n` points drawn with `caption`:
/// the page width, the wood's left edge, and the centre of point (0, 0).
pub(super) fn square_frame(n: u8, caption: &str) -> (f64, f64, (f64, f64)) {
    let span = f64::from(n.clamp(1, 19) - 1) * STEP;
    let band = STEP * 1.15;
    let wood = span + 2.0 * band;
    // A caption wider than the board widens the page; the board is centred.
    let w = (wood + 2.0 * MARGIN).max(caption_width(caption));
    let left = (w - wood) / 2.0;
    (w, left, (left + band, MARGIN + band))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::svg::render;
    use crate::svg::testing::{marked, parse, texts};

    /// The SGF name of a point of the 19×19 board (every smaller board's
    /// points have the same names).
    fn sgf(c: u8, r: u8) -> String {
        let board = SquareBoard::new(19).unwrap();
        board.sgf_name(board.point_at(c.into(), r.into()).unwrap())
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
