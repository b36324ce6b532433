//! The hexagonal Keil board: the hexagon of points on a 60° lattice with
//! its lines, column letters and row numbers around the edge.

use std::fmt::Write;

use keil_rules::{Board, Color, Point, Position};

use super::canvas::{Canvas, Mark};
use super::{
    CAPTION, COLUMN, Extras, LABEL, MARGIN, PointMark, STEP, WOOD_EDGE, caption_width, title,
};

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
pub(super) fn render_hex(
    position: &Position,
    last: Option<Point>,
    captured: &[(Point, Color)],
    caption: &str,
    ex: &Extras<'_>,
) -> String {
    let board: &Board = position.board();
    let frame = HexFrame::new(board, caption);
    let count = |c: Color| position.stones(c).len();
    let size = format!("side {}", board.side());
    let mut cv = Canvas::open(
        frame.w,
        frame.h,
        &title(
            "Keil",
            &size,
            count(Color::Black),
            count(Color::White),
            caption,
        ),
        ex,
    );
    frame.hexagon(&mut cv.s);
    frame.lines(&mut cv.s);
    frame.labels(&mut cv.s);
    frame.pieces(&mut cv, position, last, captured, ex);
    cv.close(caption)
}

/// Where a hexagonal board's points and labels stand on the page.
struct HexFrame<'a> {
    board: &'a Board,
    /// The board's side, less one.
    side: i32,
    /// The column letters' slots: below each column.
    column_labels: Vec<(i32, i32)>,
    /// The row numbers' slots: left of each row.
    row_labels: Vec<(i32, i32)>,
    /// The page's size.
    w: f64,
    h: f64,
    /// The lattice's offset on the page.
    ox: f64,
    oy: f64,
}

impl<'a> HexFrame<'a> {
    /// The frame of `board` under `caption`: the bounding box of points
    /// and labels, with margins; a caption wider than the board widens
    /// the page, and the board is centred.
    fn new(board: &'a Board, caption: &str) -> HexFrame<'a> {
        let width = i32::from(board.width());
        let side = i32::from(board.side()) - 1;
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
        let w = natural.max(caption_width(caption));
        HexFrame {
            board,
            side,
            column_labels,
            row_labels,
            w,
            h: y1 - y0 + 2.0 * MARGIN + STEP + CAPTION,
            ox: (w - natural) / 2.0 + MARGIN + STEP / 2.0 - x0,
            oy: MARGIN + STEP / 2.0 - y0,
        }
    }

    /// The page coordinates of axial `(column, row)`.
    fn at(&self, c: i32, r: i32) -> (f64, f64) {
        let (x, y) = lattice(c, r);
        (x + self.ox, y + self.oy)
    }

    /// The page coordinates of a point.
    fn pt(&self, p: Point) -> (f64, f64) {
        let (c, r) = self.board.coords(p);
        self.at(i32::from(c), i32::from(r))
    }

    /// The hexagon: corners of the board, slightly outside the corner
    /// points.
    fn hexagon(&self, s: &mut String) {
        let side = self.side;
        let corners = [
            (0, 0),
            (0, side),
            (side, 2 * side),
            (2 * side, 2 * side),
            (2 * side, side),
            (side, 0),
        ];
        let (cx, cy) = self.at(side, side);
        let _ = write!(
            s,
            r##"<polygon class="board" fill="#e3c27a" stroke="{WOOD_EDGE}" stroke-width="1.5" points=""##
        );
        for (c, r) in corners {
            let (x, y) = self.at(c, r);
            let _ = write!(
                s,
                "{:.1},{:.1} ",
                cx + (x - cx) * 1.08,
                cy + (y - cy) * 1.08
            );
        }
        s.push_str(r#""/>"#);
    }

    /// Lines between neighbours.
    fn lines(&self, s: &mut String) {
        let board = self.board;
        s.push_str(r##"<g stroke="#5b4a24" stroke-width="1">"##);
        for p in board.points() {
            let (xa, ya) = self.pt(p);
            for q in board.neighbours(p).filter(|q| q.index() > p.index()) {
                let (xb, yb) = self.pt(q);
                let _ = write!(
                    s,
                    r#"<line x1="{xa:.1}" y1="{ya:.1}" x2="{xb:.1}" y2="{yb:.1}"/>"#
                );
            }
        }
        s.push_str("</g>");
    }

    /// Coordinates: column letters under each column, row numbers left of
    /// each row (outside the hexagon, on the page).
    fn labels(&self, s: &mut String) {
        let _ = write!(
            s,
            r#"<g class="hex-label" fill="{LABEL}" text-anchor="middle" dominant-baseline="central">"#
        );
        for (i, &(c, r)) in self.column_labels.iter().enumerate() {
            let (x, y) = self.at(c, r);
            let letter = (b'a' + i as u8) as char;
            let _ = write!(s, r#"<text x="{x:.1}" y="{y:.1}">{letter}</text>"#);
        }
        for (i, &(c, r)) in self.row_labels.iter().enumerate() {
            let (x, y) = self.at(c, r);
            let _ = write!(s, r#"<text x="{x:.1}" y="{y:.1}">{}</text>"#, i + 1);
        }
        s.push_str("</g>");
    }

    /// The stones, the captures, the last move's ring and the marks.
    fn pieces(
        &self,
        cv: &mut Canvas,
        position: &Position,
        last: Option<Point>,
        captured: &[(Point, Color)],
        ex: &Extras<'_>,
    ) {
        let board = self.board;
        let radius = STEP * 0.44;
        let mark = |p: Point, color: Color| {
            let (x, y) = self.pt(p);
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
            let (x, y) = self.pt(p);
            cv.last(x, y, position.get(p), radius);
        }
        let placed: Vec<(f64, f64, &PointMark)> = ex
            .marks
            .iter()
            .filter(|m| m.point.index() < board.len())
            .map(|m| {
                let (x, y) = self.pt(m.point);
                (x, y, m)
            })
            .collect();
        cv.marks(&placed, radius);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::svg::testing::{marked, parse, texts};
    use crate::svg::{Drawing, render, render_with};
    use keil_rules::AnyPosition;

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
                class: "next-w",
                label: "A".into(),
                href: Some("/positions?a=1&b=<2>".into()),
                title: "a1 <x>".into(),
                fill: None,
                data: Vec::new(),
            },
            PointMark {
                point: d4,
                class: "dot-w",
                label: String::new(),
                href: None,
                title: "d4".into(),
                fill: None,
                data: Vec::new(),
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
        // The marks: a link (escaped) around a lettered white stone, a
        // square.
        let a = doc.descendants().find(|n| n.has_tag_name("a")).unwrap();
        assert_eq!(a.attribute("href"), Some("/positions?a=1&b=<2>"));
        assert!(svg.contains("a1 &lt;x&gt;"));
        assert_eq!(svg.matches(r#"class="dot-w""#).count(), 1);
        assert!(svg.contains(r##"class="next next-w""##));
        assert!(svg.contains(
            r##"fill="#111" font-size="12" font-weight="700" pointer-events="none">A</text>"##
        ));
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
}
