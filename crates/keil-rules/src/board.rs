//! Board geometry: points, point names, neighbours, common neighbours and the
//! 12 symmetries of the hexagon (keil-rules.md, "Board"; record-format.md,
//! "Points").

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use crate::color::Color;

/// Smallest supported side length.
pub const MIN_SIDE: u8 = 2;
/// Largest supported side length (469 points).
pub const MAX_SIDE: u8 = 13;

/// A point of a board: its index in the board's point order.
///
/// Points are numbered column by column, column `a` first, each column from
/// its lowest row upward: the order of the position notation
/// (record-format.md, "Position notation"). A `Point` only has meaning
/// together with the [`Board`] it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Point(pub u16);

impl Point {
    /// The index of the point in its board's point order, `0..board.len()`.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One of the 12 symmetries of the hexagon: `0..6` are the rotations by
/// `k × 60°` (0 is the identity), `6..12` the same rotations after a
/// reflection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Symmetry(u8);

impl Symmetry {
    /// The identity.
    pub const IDENTITY: Symmetry = Symmetry(0);

    /// All 12 symmetries, identity first.
    pub fn all() -> impl Iterator<Item = Symmetry> + Clone {
        (0..12).map(Symmetry)
    }

    /// The symmetry with this number (`0..12`), or `None`.
    pub fn from_index(i: u8) -> Option<Symmetry> {
        (i < 12).then_some(Symmetry(i))
    }

    /// The number of this symmetry, `0..12`.
    pub fn index(self) -> u8 {
        self.0
    }

    /// The rotation part, in steps of 60°.
    fn rotation(self) -> u8 {
        self.0 % 6
    }

    fn reflects(self) -> bool {
        self.0 >= 6
    }

    /// The symmetry that undoes this one.
    pub fn inverse(self) -> Symmetry {
        if self.reflects() {
            // A reflection followed by a rotation is its own inverse.
            self
        } else {
            Symmetry((6 - self.rotation()) % 6)
        }
    }

    /// The symmetry that applies `self`, then `next` (`next ∘ self`).
    ///
    /// Found by the image of one cube vector whose coordinates differ in
    /// absolute value, so that no two symmetries map it alike.
    pub fn then(self, next: Symmetry) -> Symmetry {
        const PROBE: [i32; 3] = [1, 2, -3];
        let image = next.apply_cube(self.apply_cube(PROBE));
        Symmetry::all()
            .find(|c| c.apply_cube(PROBE) == image)
            .expect("the 12 symmetries form a group")
    }

    /// Applies `self` to cube coordinates.
    fn apply_cube(self, mut v: [i32; 3]) -> [i32; 3] {
        if self.reflects() {
            v = [v[1], v[0], v[2]];
        }
        for _ in 0..self.rotation() {
            v = [-v[2], -v[0], -v[1]];
        }
        v
    }
}

impl fmt::Display for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Why a point name could not be read (record-format.md, "Points").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PointError {
    /// Occurs when the text is not a column letter followed by a row number
    /// (`7g`, `g`, `aa`).
    #[error("malformed point name {0:?}: expected a column letter and a row number, like g7")]
    Malformed(String),
    /// Occurs when the name has the right shape but names no point of this
    /// board (`a8` or `z1` on side 7).
    #[error(
        "point {name} is off the board of side {side} (columns a..{last_col}, rows 1..{last_row})"
    )]
    OffBoard {
        /// The name as given.
        name: String,
        /// The board side.
        side: u8,
        /// The last column letter of the board.
        last_col: char,
        /// The last row number of the board.
        last_row: u8,
    },
}

/// The geometry of a Keil board of side `n`: `3n(n-1)+1` points on the
/// hexagon of the triangular lattice.
///
/// Axial coordinates `(c, r)` with `0 <= c, r <= 2n-2` and `|c - r| <= n-1`;
/// neighbours are `(c±1, r)`, `(c, r±1)`, `(c+1, r+1)`, `(c-1, r-1)`
/// (keil-rules.md, "Board"). Boards are built once per side and shared:
/// [`Board::new`] returns a `&'static Board`.
pub struct Board {
    side: u8,
    coords: Vec<(u8, u8)>,
    /// `(2n-1)²` grid → point index, or `NONE`.
    grid: Vec<u16>,
    /// 6 neighbours per point in cyclic direction order, or `NONE`.
    neighbours: Vec<u16>,
    /// 12 images per point.
    symmetry: Vec<u16>,
    /// Zobrist keys: black then white, one per point.
    zobrist: Vec<u64>,
}

pub(crate) const NONE: u16 = u16::MAX;

/// The six directions in cyclic order: consecutive directions are adjacent,
/// so the common neighbours of `p` and `p + DIRS[k]` are `p + DIRS[k-1]` and
/// `p + DIRS[k+1]`.
const DIRS: [(i32, i32); 6] = [(1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1)];

/// Key of the button: XORed into every position key once the button is taken.
pub(crate) const BUTTON_KEY: u64 = 0x9E6C_63D0_676A_9A99;

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl Board {
    /// The board of side `side` (2..=13), built on first use and shared.
    ///
    /// # Errors
    /// Returns the side back when it is outside `2..=13`.
    pub fn new(side: u8) -> Result<&'static Board, u8> {
        static BOARDS: OnceLock<Vec<Board>> = OnceLock::new();
        if !(MIN_SIDE..=MAX_SIDE).contains(&side) {
            return Err(side);
        }
        let boards = BOARDS.get_or_init(|| (MIN_SIDE..=MAX_SIDE).map(Board::build).collect());
        Ok(&boards[(side - MIN_SIDE) as usize])
    }

    fn build(side: u8) -> Board {
        let n = side as i32;
        let w = (2 * n - 1) as usize;
        let mut grid = vec![NONE; w * w];
        let mut coords = Vec::new();
        for c in 0..w as i32 {
            for r in 0..w as i32 {
                if (c - r).abs() < n {
                    grid[c as usize * w + r as usize] = coords.len() as u16;
                    coords.push((c as u8, r as u8));
                }
            }
        }
        let at = |c: i32, r: i32| -> u16 {
            if c < 0 || r < 0 || c >= w as i32 || r >= w as i32 {
                NONE
            } else {
                grid[c as usize * w + r as usize]
            }
        };
        let mut neighbours = Vec::with_capacity(coords.len() * 6);
        for &(c, r) in &coords {
            for (dc, dr) in DIRS {
                neighbours.push(at(c as i32 + dc, r as i32 + dr));
            }
        }
        let mut symmetry = Vec::with_capacity(coords.len() * 12);
        for &(c, r) in &coords {
            let (x, y) = (c as i32 - (n - 1), r as i32 - (n - 1));
            let cube = [x, -y, y - x];
            for s in Symmetry::all() {
                let [a, b, _] = s.apply_cube(cube);
                let p = at(a + n - 1, -b + n - 1);
                debug_assert_ne!(p, NONE);
                symmetry.push(p);
            }
        }
        let mut zobrist = Vec::with_capacity(coords.len() * 2);
        for colour in 0..2u64 {
            for &(c, r) in &coords {
                let seed = (side as u64) << 40 | colour << 32 | (c as u64) << 16 | r as u64;
                zobrist.push(splitmix64(seed ^ 0x4B45_494C_0000_0000));
            }
        }
        Board {
            side,
            coords,
            grid,
            neighbours,
            symmetry,
            zobrist,
        }
    }

    /// The side length `n`.
    pub fn side(&self) -> u8 {
        self.side
    }

    /// The number of points, `3n(n-1)+1` (127 on side 7).
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.coords.len()
    }

    /// The number of columns (and of rows), `2n-1`.
    pub fn width(&self) -> u8 {
        2 * self.side - 1
    }

    /// All points in board order.
    pub fn points(&self) -> impl Iterator<Item = Point> + Clone + use<> {
        (0..self.coords.len() as u16).map(Point)
    }

    /// The axial coordinates `(column, row)` of a point, both from 0.
    pub fn coords(&self, p: Point) -> (u8, u8) {
        self.coords[p.index()]
    }

    /// The point at axial coordinates `(column, row)`, if it is on the board.
    pub fn point_at(&self, column: i32, row: i32) -> Option<Point> {
        let w = self.width() as i32;
        if column < 0 || row < 0 || column >= w || row >= w {
            return None;
        }
        let p = self.grid[column as usize * w as usize + row as usize];
        (p != NONE).then_some(Point(p))
    }

    /// The rows of a column, `lowest..=highest` (both 0-based).
    pub fn column_rows(&self, column: u8) -> std::ops::RangeInclusive<u8> {
        let n = self.side as i32;
        let c = column as i32;
        let lo = (c - (n - 1)).max(0);
        let hi = (c + n - 1).min(2 * n - 2);
        lo as u8..=hi as u8
    }

    /// The name of a point: column letter and row number, `g7`.
    pub fn name(&self, p: Point) -> PointName {
        let (c, r) = self.coords(p);
        PointName { column: c, row: r }
    }

    /// Reads a point name such as `g7` (record-format.md, "Points").
    ///
    /// # Errors
    /// [`PointError::Malformed`] when the text is not letter + number,
    /// [`PointError::OffBoard`] when it names no point of this board.
    pub fn parse_point(&self, name: &str) -> Result<Point, PointError> {
        let pn: PointName = name.parse()?;
        self.point_at(pn.column as i32, pn.row as i32)
            .ok_or_else(|| PointError::OffBoard {
                name: name.to_string(),
                side: self.side,
                last_col: (b'a' + self.width() - 1) as char,
                last_row: self.width(),
            })
    }

    /// The neighbours of a point in cyclic direction order: 6 in the
    /// interior, 4 on an edge, 3 in a corner.
    pub fn neighbours(&self, p: Point) -> impl Iterator<Item = Point> + '_ {
        self.neighbour_slots(p)
            .iter()
            .filter(|&&q| q != NONE)
            .map(|&q| Point(q))
    }

    /// The six neighbour slots of a point (`NONE` where off the board).
    #[inline]
    pub(crate) fn neighbour_slots(&self, p: Point) -> &[u16; 6] {
        let i = p.index() * 6;
        self.neighbours[i..i + 6].try_into().expect("six slots")
    }

    /// Whether two points are adjacent.
    pub fn adjacent(&self, p: Point, q: Point) -> bool {
        self.neighbour_slots(p).contains(&q.0)
    }

    /// The common neighbours of two adjacent points: two in the interior,
    /// one along the edge. Empty when `p` and `q` are not adjacent.
    pub fn common_neighbours(&self, p: Point, q: Point) -> Vec<Point> {
        let slots = self.neighbour_slots(p);
        match slots.iter().position(|&s| s == q.0) {
            None => Vec::new(),
            Some(k) => [slots[(k + 5) % 6], slots[(k + 1) % 6]]
                .into_iter()
                .filter(|&s| s != NONE)
                .map(Point)
                .collect(),
        }
    }

    /// The image of a point under a symmetry.
    #[inline]
    pub fn transform(&self, p: Point, s: Symmetry) -> Point {
        Point(self.symmetry[p.index() * 12 + s.0 as usize])
    }

    #[inline]
    pub(crate) fn zobrist(&self, p: usize, c: Color) -> u64 {
        self.zobrist[c.index() * self.coords.len() + p]
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Board").field("side", &self.side).finish()
    }
}

impl PartialEq for Board {
    fn eq(&self, other: &Board) -> bool {
        self.side == other.side
    }
}
impl Eq for Board {}

/// A point name without a board: column letter `a`.. and row number 1..
/// (record-format.md, "Points"). Check it against a board with
/// [`Board::parse_point`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PointName {
    /// Column, 0-based (`a` = 0).
    pub column: u8,
    /// Row, 0-based (`1` = 0).
    pub row: u8,
}

impl FromStr for PointName {
    type Err = PointError;

    fn from_str(s: &str) -> Result<PointName, PointError> {
        let bad = || PointError::Malformed(s.to_string());
        let mut chars = s.chars();
        let col = chars
            .next()
            .filter(char::is_ascii_lowercase)
            .ok_or_else(bad)?;
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        if digits.starts_with('0') {
            return Err(bad());
        }
        let row: u16 = digits.parse().map_err(|_| bad())?;
        if row == 0 || row > 255 {
            return Err(bad());
        }
        Ok(PointName {
            column: col as u8 - b'a',
            row: (row - 1) as u8,
        })
    }
}

impl fmt::Display for PointName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.column) as char, self.row as u16 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_counts_follow_3n_n_minus_1_plus_1() {
        for n in MIN_SIDE..=MAX_SIDE {
            let b = Board::new(n).unwrap();
            let n = n as usize;
            assert_eq!(b.len(), 3 * n * (n - 1) + 1);
        }
        assert_eq!(Board::new(7).unwrap().len(), 127);
        assert_eq!(Board::new(1), Err(1));
        assert_eq!(Board::new(14), Err(14));
    }

    #[test]
    fn names_round_trip_and_off_board_is_named() {
        let b = Board::new(7).unwrap();
        for p in b.points() {
            let name = b.name(p).to_string();
            assert_eq!(b.parse_point(&name), Ok(p), "{name}");
        }
        assert_eq!(b.name(b.parse_point("g7").unwrap()).to_string(), "g7");
        assert_eq!(b.column_rows(0), 0..=6);
        assert_eq!(b.column_rows(12), 6..=12);
        assert!(matches!(
            b.parse_point("a8"),
            Err(PointError::OffBoard { .. })
        ));
        assert!(matches!(
            b.parse_point("z1"),
            Err(PointError::OffBoard { .. })
        ));
        for bad in ["7g", "g", "aa", "", "G7", "g07", "g0", "g7x"] {
            assert!(
                matches!(b.parse_point(bad), Err(PointError::Malformed(_))),
                "{bad}"
            );
        }
        let msg = b.parse_point("a8").unwrap_err().to_string();
        assert!(msg.contains("a8") && msg.contains("side 7"), "{msg}");
    }

    #[test]
    fn neighbour_counts_interior_edge_corner() {
        let b = Board::new(7).unwrap();
        let count = |name: &str| b.neighbours(b.parse_point(name).unwrap()).count();
        assert_eq!(count("g7"), 6);
        assert_eq!(count("a1"), 3); // corner
        assert_eq!(count("a4"), 4); // edge
        assert_eq!(count("m13"), 3); // corner
        let corners = b.points().filter(|&p| b.neighbours(p).count() == 3).count();
        assert_eq!(corners, 6);
        let edges = b.points().filter(|&p| b.neighbours(p).count() == 4).count();
        assert_eq!(edges, 6 * 5);
    }

    #[test]
    fn common_neighbours_two_inside_one_on_edge() {
        let b = Board::new(7).unwrap();
        let p = |s: &str| b.parse_point(s).unwrap();
        assert_eq!(b.common_neighbours(p("g7"), p("h7")).len(), 2);
        // a1-a2 runs along the edge: one common neighbour, b2.
        assert_eq!(b.common_neighbours(p("a1"), p("a2")), vec![p("b2")]);
        assert!(b.common_neighbours(p("a1"), p("c3")).is_empty());
        for x in b.points() {
            for y in b.neighbours(x) {
                for z in b.common_neighbours(x, y) {
                    assert!(b.adjacent(x, z) && b.adjacent(y, z));
                }
            }
        }
    }

    #[test]
    fn symmetries_form_a_group_that_preserves_adjacency() {
        for side in [2, 3, 7, 13] {
            let b = Board::new(side).unwrap();
            let centre = b.point_at(side as i32 - 1, side as i32 - 1).unwrap();
            for s in Symmetry::all() {
                let mut seen = vec![false; b.len()];
                for p in b.points() {
                    let q = b.transform(p, s);
                    assert!(!seen[q.index()], "symmetry {s} is not a bijection");
                    seen[q.index()] = true;
                    assert_eq!(b.transform(q, s.inverse()), p);
                    for r in b.neighbours(p) {
                        assert!(b.adjacent(q, b.transform(r, s)));
                    }
                }
                assert_eq!(b.transform(centre, s), centre);
                // Composition agrees with applying one after the other.
                for t in Symmetry::all() {
                    let st = s.then(t);
                    for p in b.points() {
                        assert_eq!(b.transform(p, st), b.transform(b.transform(p, s), t));
                    }
                }
            }
            // The 12 images of a point off every axis are all distinct.
            if side >= 4 {
                let p = b.point_at(side as i32 + 1, side as i32 - 2).unwrap();
                let images: std::collections::HashSet<_> =
                    Symmetry::all().map(|s| b.transform(p, s)).collect();
                assert_eq!(images.len(), 12);
            }
        }
    }
}
