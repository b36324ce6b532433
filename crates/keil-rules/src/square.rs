//! Square-board geometry for Go and Kaomi: points, SGF and Go
//! players' point names, orthogonal neighbours, the 8 symmetries of the
//! square, and Zobrist tables (go-rules.md, "Board and points", "Position
//! notation and search").
//!
//! Boards are built once per size and shared (`&'static SquareBoard`). The
//! geometry knows no game: position keys take a [`KeySalt`] naming the game
//! they belong to, so that a Go key and a Kaomi key of the same stones differ.

use std::fmt;
use std::sync::OnceLock;

use crate::board::{NONE, Point};
use crate::color::Color;
use crate::position::{Bits, PositionKey, Wide};

/// Smallest supported square board size.
pub const MIN_SQUARE_SIZE: u8 = 1;
/// Largest supported square board size (361 points).
pub const MAX_SQUARE_SIZE: u8 = 19;

/// One of the 8 symmetries of the square.
///
/// Index `r` in `0..4` is the clockwise rotation by `r × 90°` (0 is the
/// identity); index `4 + r` is the left-right mirror followed by that
/// rotation. So 4 is the left-right mirror, 6 the top-bottom mirror, 5 and 7
/// the mirrors about the two diagonals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SquareSymmetry(u8);

impl SquareSymmetry {
    /// The identity.
    pub const IDENTITY: SquareSymmetry = SquareSymmetry(0);
    /// The number of symmetries of the square.
    pub const COUNT: u8 = 8;

    /// All 8 symmetries, identity first.
    pub fn all() -> impl Iterator<Item = SquareSymmetry> + Clone {
        (0..8).map(SquareSymmetry)
    }

    /// The symmetry with this number (`0..8`), or `None`.
    pub fn from_index(i: u8) -> Option<SquareSymmetry> {
        (i < 8).then_some(SquareSymmetry(i))
    }

    /// The number of this symmetry, `0..8`.
    pub fn index(self) -> u8 {
        self.0
    }

    /// The symmetry that undoes this one.
    pub fn inverse(self) -> SquareSymmetry {
        if self.0 >= 4 {
            // A mirror followed by a rotation is a mirror: its own inverse.
            self
        } else {
            SquareSymmetry((4 - self.0) % 4)
        }
    }

    /// The symmetry that applies `self`, then `next` (`next ∘ self`).
    pub fn then(self, next: SquareSymmetry) -> SquareSymmetry {
        // (1, 2) has 8 distinct images: it identifies the symmetry.
        const PROBE: (i32, i32) = (1, 2);
        let image = next.apply_centered(self.apply_centered(PROBE));
        SquareSymmetry::all()
            .find(|c| c.apply_centered(PROBE) == image)
            .expect("the 8 symmetries form a group")
    }

    /// Applies the symmetry to coordinates centred on the board's centre
    /// (doubled, so that they are integers), `y` growing downward.
    fn apply_centered(self, (mut x, mut y): (i32, i32)) -> (i32, i32) {
        if self.0 >= 4 {
            x = -x;
        }
        for _ in 0..self.0 % 4 {
            // Clockwise on the screen (y down): top-left goes to top-right.
            (x, y) = (-y, x);
        }
        (x, y)
    }
}

impl fmt::Display for SquareSymmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The game a square-board position key belongs to: a constant XORed into
/// every key, so that two games on the same board never share keys (the
/// empty Go board's key is not the empty Kaomi board's).
///
/// The values are fixed: archives store keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeySalt(pub u64);

impl KeySalt {
    /// Go (`GM[1]`).
    pub const GO: KeySalt = KeySalt(0x476F_2047_4D31_0001 ^ 0xA5A5_5A5A_C3C3_3C3C);
    /// Kaomi (`GM[Kaomi]`).
    pub const KAOMI: KeySalt = KeySalt(0x4B61_6F6D_6920_0003 ^ 0xA5A5_5A5A_C3C3_3C3C);
}

/// Why an SGF point value could not be read as a point of a square board
/// (go-rules.md, "Board and points", "Moves").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SgfPointError {
    /// Occurs when the value is not two SGF letters (`a`-`z`, `A`-`Z`):
    /// `c4`, `pass`, `90`, three letters.
    #[error("malformed SGF point {0:?}: expected two letters a-z or A-Z, like dd")]
    Malformed(String),
    /// Occurs when two SGF letters name no point of this board (`jj` on
    /// 9×9, `zz`, `aA`).
    #[error("point {name} is off the {size}x{size} board")]
    OffBoard {
        /// The value as given.
        name: String,
        /// The board size.
        size: u8,
    },
}

/// Why a Go players' coordinate (`D16`) could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{name:?} is not a point of the {size}x{size} board: expected a column letter A-T without I and a row 1..{size}, like D4"
)]
pub struct DisplayNameError {
    /// The text as given.
    pub name: String,
    /// The board size.
    pub size: u8,
}

/// The geometry of an n×n square board, 1 ≤ n ≤ 19.
///
/// Points are numbered row by row from the **top** row, each row from the
/// left: index = row × n + column (the order of the Go position notation).
/// [`SquareBoard::new`] returns a shared `&'static SquareBoard`.
pub struct SquareBoard {
    size: u8,
    /// Four orthogonal neighbour slots per point (up, right, down, left),
    /// `NONE` off the board.
    neighbours: Vec<[u16; 4]>,
    /// The image of each point under each of the 8 symmetries.
    symmetry: Vec<[u16; 8]>,
    /// Zobrist keys: `keys[2p + colour][s]` is the key of a stone of
    /// `colour` on the image of `p` under symmetry `s`.
    keys: Vec<[u64; 8]>,
    /// XORed into every key with the game's salt: the empty boards of two
    /// sizes have different keys.
    size_key: u64,
}

impl fmt::Debug for SquareBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SquareBoard({0}x{0})", self.size)
    }
}

impl PartialEq for SquareBoard {
    fn eq(&self, other: &Self) -> bool {
        self.size == other.size
    }
}

impl Eq for SquareBoard {}

impl std::hash::Hash for SquareBoard {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.size.hash(state)
    }
}

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// SGF's point letters: `a`-`z` then `A`-`Z`.
fn sgf_letter(i: u8) -> char {
    if i < 26 {
        (b'a' + i) as char
    } else {
        (b'A' + i - 26) as char
    }
}

fn sgf_index(b: u8) -> Option<u8> {
    match b {
        b'a'..=b'z' => Some(b - b'a'),
        b'A'..=b'Z' => Some(b - b'A' + 26),
        _ => None,
    }
}

/// Go players' column letters: `A`-`T` without `I`.
const COLUMN_LETTERS: &[u8; 19] = b"ABCDEFGHJKLMNOPQRST";

impl SquareBoard {
    /// The n×n board (1..=19), built on first use and shared.
    ///
    /// # Errors
    /// Returns the size back when it is outside `1..=19`.
    pub fn new(size: u8) -> Result<&'static SquareBoard, u8> {
        static BOARDS: OnceLock<Vec<OnceLock<SquareBoard>>> = OnceLock::new();
        if !(MIN_SQUARE_SIZE..=MAX_SQUARE_SIZE).contains(&size) {
            return Err(size);
        }
        let boards = BOARDS.get_or_init(|| {
            (MIN_SQUARE_SIZE..=MAX_SQUARE_SIZE)
                .map(|_| OnceLock::new())
                .collect()
        });
        Ok(boards[(size - MIN_SQUARE_SIZE) as usize].get_or_init(|| SquareBoard::build(size)))
    }

    fn build(size: u8) -> SquareBoard {
        let n = size as i32;
        let len = (n * n) as usize;
        let at = |c: i32, r: i32| -> u16 {
            if c < 0 || r < 0 || c >= n || r >= n {
                NONE
            } else {
                (r * n + c) as u16
            }
        };
        let mut neighbours = Vec::with_capacity(len);
        let mut symmetry = Vec::with_capacity(len);
        for i in 0..len as i32 {
            let (c, r) = (i % n, i / n);
            neighbours.push([at(c, r - 1), at(c + 1, r), at(c, r + 1), at(c - 1, r)]);
            let mut images = [0u16; 8];
            for s in SquareSymmetry::all() {
                let (x, y) = s.apply_centered((2 * c - (n - 1), 2 * r - (n - 1)));
                images[s.0 as usize] = at((x + n - 1) / 2, (y + n - 1) / 2);
            }
            symmetry.push(images);
        }
        // One key per (point, colour), a fixed function of size, colour and
        // coordinates (archives store keys: never change this).
        let base: Vec<u64> = (0..2 * len)
            .map(|k| {
                let (p, colour) = (k / 2, (k % 2) as u64);
                let (c, r) = (p as u64 % n as u64, p as u64 / n as u64);
                let seed = (size as u64) << 40 | colour << 32 | c << 16 | r;
                splitmix64(seed ^ 0x5351_5541_5245_0000)
            })
            .collect();
        let keys = (0..2 * len)
            .map(|k| {
                let (p, colour) = (k / 2, k % 2);
                let images: &[u16; 8] = &symmetry[p];
                images.map(|q| base[2 * q as usize + colour])
            })
            .collect();
        SquareBoard {
            size,
            neighbours,
            symmetry,
            keys,
            size_key: splitmix64(size as u64 ^ 0x5349_5A45_0000_0000),
        }
    }

    /// The size `n` (points per side).
    pub fn size(&self) -> u8 {
        self.size
    }

    /// The number of points, `n²`.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.neighbours.len()
    }

    /// All points in board order (row by row from the top).
    pub fn points(&self) -> impl Iterator<Item = Point> + Clone + use<> {
        (0..self.len() as u16).map(Point)
    }

    /// The coordinates `(column, row)` of a point, 0-based from the left and
    /// from the top.
    pub fn coords(&self, p: Point) -> (u8, u8) {
        let n = self.size as u16;
        ((p.0 % n) as u8, (p.0 / n) as u8)
    }

    /// The point at `(column, row)` (0-based, from the left / the top), if
    /// it is on the board.
    pub fn point_at(&self, column: i32, row: i32) -> Option<Point> {
        let n = self.size as i32;
        (column >= 0 && row >= 0 && column < n && row < n).then(|| Point((row * n + column) as u16))
    }

    /// The orthogonal neighbours of a point (up, right, down, left, those on
    /// the board): 4 inside, 3 on an edge, 2 in a corner, 0 on the 1×1 board.
    pub fn neighbours(&self, p: Point) -> impl Iterator<Item = Point> + '_ {
        self.neighbours[p.index()]
            .iter()
            .filter(|&&q| q != NONE)
            .map(|&q| Point(q))
    }

    /// The four neighbour slots of a point (`NONE` = `u16::MAX` off the
    /// board).
    #[inline]
    pub(crate) fn slots(&self, p: usize) -> &[u16; 4] {
        &self.neighbours[p]
    }

    /// The SGF name of a point: column letter then row letter, `a` = first
    /// from the left / from the top (`dd`).
    pub fn sgf_name(&self, p: Point) -> String {
        let (c, r) = self.coords(p);
        [sgf_letter(c), sgf_letter(r)].iter().collect()
    }

    /// Reads an SGF point value of two letters (`a`-`z`, `A`-`Z`).
    /// `tt` (a pass in FF\[3\]) is the record reader's business: on boards up
    /// to 19 it is off the board here.
    ///
    /// # Errors
    /// [`SgfPointError::Malformed`] when the value is not two SGF letters,
    /// [`SgfPointError::OffBoard`] when they name no point of this board.
    pub fn parse_sgf_point(&self, value: &str) -> Result<Point, SgfPointError> {
        let bytes = value.as_bytes();
        let malformed = || SgfPointError::Malformed(value.to_string());
        if bytes.len() != 2 {
            return Err(malformed());
        }
        let c = sgf_index(bytes[0]).ok_or_else(malformed)?;
        let r = sgf_index(bytes[1]).ok_or_else(malformed)?;
        self.point_at(c as i32, r as i32)
            .ok_or_else(|| SgfPointError::OffBoard {
                name: value.to_string(),
                size: self.size,
            })
    }

    /// The Go players' name of a point: column letter `A`-`T` without `I`,
    /// then the row counted from the **bottom** (`A19` is the top-left
    /// corner of 19×19, `D4` a lower-left star point).
    pub fn display_name(&self, p: Point) -> String {
        let (c, r) = self.coords(p);
        format!("{}{}", COLUMN_LETTERS[c as usize] as char, self.size - r)
    }

    /// Reads a Go players' coordinate such as `D4` or `q16` (letters in
    /// either case, `I` skipped).
    ///
    /// # Errors
    /// [`DisplayNameError`] when the text names no point of this board.
    pub fn parse_display_name(&self, name: &str) -> Result<Point, DisplayNameError> {
        let err = || DisplayNameError {
            name: name.to_string(),
            size: self.size,
        };
        let mut chars = name.chars();
        let letter = chars.next().ok_or_else(err)?.to_ascii_uppercase();
        let column = COLUMN_LETTERS
            .iter()
            .position(|&l| l as char == letter)
            .ok_or_else(err)?;
        let digits = chars.as_str();
        if digits.is_empty()
            || !digits.bytes().all(|b| b.is_ascii_digit())
            || digits.starts_with('0')
        {
            return Err(err());
        }
        let row: i32 = digits.parse().map_err(|_| err())?;
        if row > self.size as i32 {
            return Err(err());
        }
        self.point_at(column as i32, self.size as i32 - row)
            .ok_or_else(err)
    }

    /// The image of a point under a symmetry.
    #[inline]
    pub fn transform(&self, p: Point, s: SquareSymmetry) -> Point {
        Point(self.symmetry[p.index()][s.0 as usize])
    }

    /// The unsalted Zobrist keys of a stone of `colour` on `p` under each of
    /// the 8 symmetries: entry `s` is the key of the stone on
    /// `transform(p, s)`. A position's key is the XOR of its stones' entry
    /// 0, a constant of the board size and its game's [`KeySalt`].
    #[inline]
    pub fn stone_keys(&self, p: Point, colour: Color) -> &[u64; 8] {
        &self.keys[2 * p.index() + colour.index()]
    }

    /// The 8 symmetric keys of the stones `[black, white]` with a salt.
    pub(crate) fn keys_of(&self, stones: &[Wide; 2], salt: KeySalt) -> [u64; 8] {
        let mut keys = [salt.0 ^ self.size_key; 8];
        for colour in [Color::Black, Color::White] {
            stones[colour.index()].each(|i| {
                let k = self.stone_keys(Point(i as u16), colour);
                for (a, b) in keys.iter_mut().zip(k) {
                    *a ^= b;
                }
            });
        }
        keys
    }
}

/// The Zobrist keys of a square-board position under each of the 8
/// symmetries, updated stone by stone (the square counterpart of
/// [`crate::SymmetricKeys`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SquareKeys {
    board: &'static SquareBoard,
    keys: [u64; 8],
}

impl SquareKeys {
    /// The keys of the stones `[black, white]` of `board`, salted for a game.
    pub fn new(board: &'static SquareBoard, stones: &[Wide; 2], salt: KeySalt) -> SquareKeys {
        SquareKeys {
            board,
            keys: board.keys_of(stones, salt),
        }
    }

    /// Adds or removes a stone of `colour` on `p` (the same operation).
    #[inline]
    pub fn toggle(&mut self, p: Point, colour: Color) {
        let k = self.board.stone_keys(p, colour);
        for (a, b) in self.keys.iter_mut().zip(k) {
            *a ^= b;
        }
    }

    /// The key of the position itself.
    #[inline]
    pub fn key(&self) -> PositionKey {
        PositionKey(self.keys[0])
    }

    /// The key of the position's image under `s`.
    pub fn image(&self, s: SquareSymmetry) -> PositionKey {
        PositionKey(self.keys[s.0 as usize])
    }

    /// The canonical key (the least of the 8 image keys) and a symmetry
    /// whose image has it. Equal for positions that are images of each
    /// other; a match must be confirmed by comparing positions.
    pub fn canonical(&self) -> (PositionKey, SquareSymmetry) {
        let (s, k) = self
            .keys
            .iter()
            .enumerate()
            .min_by_key(|&(_, k)| *k)
            .expect("8 keys");
        (PositionKey(*k), SquareSymmetry(s as u8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let b = SquareBoard::new(19).unwrap();
        let p = b.parse_sgf_point("dd").unwrap();
        assert_eq!(b.coords(p), (3, 3));
        assert_eq!(b.display_name(p), "D16");
        assert_eq!(b.display_name(Point(0)), "A19");
        assert_eq!(b.parse_display_name("a19").unwrap(), Point(0));
        assert_eq!(b.sgf_name(Point(18)), "sa");
        assert!(matches!(
            b.parse_sgf_point("tt"),
            Err(SgfPointError::OffBoard { .. })
        ));
        assert!(matches!(
            b.parse_sgf_point("aA"),
            Err(SgfPointError::OffBoard { .. })
        ));
        assert!(matches!(
            b.parse_sgf_point("c4"),
            Err(SgfPointError::Malformed(_))
        ));
        let nine = SquareBoard::new(9).unwrap();
        assert!(matches!(
            nine.parse_sgf_point("jj"),
            Err(SgfPointError::OffBoard { .. })
        ));
        assert_eq!(nine.parse_display_name("J9").unwrap(), Point(8));
        assert!(nine.parse_display_name("I9").is_err());
    }

    #[test]
    fn symmetries() {
        let b = SquareBoard::new(3).unwrap();
        let s = |i| SquareSymmetry::from_index(i).unwrap();
        // Rotation by 90° clockwise: top-left goes to top-right.
        assert_eq!(b.transform(Point(0), s(1)), Point(2));
        // Mirror left-right.
        assert_eq!(b.transform(Point(0), s(4)), Point(2));
        // Top-bottom mirror.
        assert_eq!(b.transform(Point(0), s(6)), Point(6));
        assert_eq!(b.transform(Point(4), s(5)), Point(4));
    }
}
