//! A board position drawn as SVG, by hand: the hexagon of points on a 60°
//! lattice with its lines, column letters and row numbers around the edge,
//! the stones, the last move marked and the stones it captured shown faded
//! and crossed.

use std::fmt::Write;

use keil_rules::{Board, Color, Point, Position};

/// Distance between neighbouring points, in SVG units.
const STEP: f64 = 32.0;
/// Horizontal distance between columns: `STEP · √3/2`.
const COLUMN: f64 = STEP * 0.866_025_403_784_438_6;
/// Space around the labels.
const MARGIN: f64 = 12.0;
/// Height of the caption line below the board.
const CAPTION: f64 = 26.0;

/// What to draw.
pub struct Drawing<'a> {
    /// The position.
    pub position: &'a Position,
    /// The point of the last move, if it was a placement.
    pub last: Option<Point>,
    /// Stones removed by the last move, with their colour.
    pub captured: &'a [(Point, Color)],
    /// A line of text under the board (ply, player to move, button).
    pub caption: &'a str,
}

/// Lattice coordinates of axial `(column, row)`, before offsetting: columns
/// run left to right, rows upward along each column, and a column stands half
/// a step higher than the one to its left so that the six neighbours are at
/// equal distance.
fn lattice(column: i32, row: i32) -> (f64, f64) {
    let x = f64::from(column) * COLUMN;
    let y = (f64::from(column) / 2.0 - f64::from(row)) * STEP;
    (x, y)
}

/// Escapes text for an SVG text node.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The SVG document of a drawing.
pub fn render(d: &Drawing<'_>) -> String {
    let board: &Board = d.position.board();
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
    let (ox, oy) = (MARGIN + STEP / 2.0 - x0, MARGIN + STEP / 2.0 - y0);
    let at = |c: i32, r: i32| {
        let (x, y) = lattice(c, r);
        (x + ox, y + oy)
    };
    let pt = |p: Point| {
        let (c, r) = board.coords(p);
        at(i32::from(c), i32::from(r))
    };
    let w = x1 - x0 + 2.0 * MARGIN + STEP;
    let h = y1 - y0 + 2.0 * MARGIN + STEP + CAPTION;

    let mut s = String::with_capacity(16 * 1024);
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.0} {h:.0}" width="{w:.0}" height="{h:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = write!(s, r##"<rect width="100%" height="100%" fill="#f4f1ea"/>"##);

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
    s.push_str(r##"<polygon fill="#e3c27a" stroke="#8a6d2f" stroke-width="1.5" points=""##);
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
    // each row.
    s.push_str(r##"<g fill="#3a3a3a" text-anchor="middle" dominant-baseline="central">"##);
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

    // Stones.
    let radius = STEP * 0.44;
    let stone = |s: &mut String, p: Point, color: Color, extra: &str| {
        let (x, y) = pt(p);
        let (fill, stroke) = match color {
            Color::Black => ("#111", "#000"),
            Color::White => ("#fafafa", "#333"),
        };
        let _ = write!(
            s,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{radius:.1}" fill="{fill}" stroke="{stroke}" stroke-width="1"{extra}/>"#
        );
    };
    for color in [Color::Black, Color::White] {
        let class = if color == Color::Black {
            "black"
        } else {
            "white"
        };
        let _ = write!(s, r#"<g class="{class}">"#);
        for p in d.position.stones(color).iter() {
            stone(&mut s, p, color, "");
        }
        s.push_str("</g>");
    }

    // Captured stones: faded, crossed out.
    if !d.captured.is_empty() {
        s.push_str(r#"<g class="captured">"#);
        for &(p, color) in d.captured {
            stone(&mut s, p, color, r#" opacity="0.35""#);
            let (x, y) = pt(p);
            let k = radius * 0.6;
            let _ = write!(
                s,
                r##"<path d="M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}" stroke="#c0392b" stroke-width="2.5"/>"##,
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
        s.push_str("</g>");
    }

    // The last move: a ring in the opposite colour.
    if let Some(p) = d.last {
        let (x, y) = pt(p);
        let ring = match d.position.get(p) {
            Some(Color::Black) => "#fafafa",
            _ => "#111",
        };
        let _ = write!(
            s,
            r#"<circle class="last" cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="none" stroke="{ring}" stroke-width="2"/>"#,
            radius * 0.5
        );
    }

    let _ = write!(
        s,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#222">{}</text>"##,
        w / 2.0,
        h - CAPTION / 2.0,
        escape(d.caption)
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

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
            position: &p,
            last: Some(g7),
            captured: &captured,
            caption: "ply 3 <B>",
        });
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        // 13 column letters and 13 row numbers.
        for c in 'a'..='m' {
            assert!(svg.contains(&format!(">{c}</text>")), "{c}");
        }
        for r in 1..=13 {
            assert!(svg.contains(&format!(">{r}</text>")), "{r}");
        }
        // Lines: each of the 127 points' links counted once.
        let lines = svg.matches("<line").count();
        let edges: usize = board.points().map(|p| board.neighbours(p).count()).sum();
        assert_eq!(lines, edges / 2);
        assert_eq!(svg.matches(r#"class="last""#).count(), 1);
        assert!(svg.contains(r#"opacity="0.35""#));
        assert!(svg.contains("ply 3 &lt;B&gt;"));
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
