//! A position on a square board, shared by Go and Kaomi: the stones, their
//! groups, the 8 images under the symmetries of the square, the keys under
//! a game's salt and the row notation (go-rules.md, "Board and points",
//! "Position notation and search"; kaomi-rules.md, "Position notation",
//! "Symmetries"). What the games make of it (captures, the line rule,
//! scores) is theirs.

use std::fmt;

use crate::board::{NONE, Point};
use crate::color::Color;
use crate::position::{Bits, Group, PointSet, Wide, put_stone, stone_at};
use crate::square::{KeySalt, MAX_SQUARE_SIZE, SquareBoard, SquareKeys, SquareSymmetry};

/// Why a Go position notation could not be read (go-rules.md, "Position
/// notation and search").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GoNotationError {
    /// Occurs when the text is empty.
    #[error("empty position: expected rows like 3/3/3 (3x3 empty) or b1w/3/2b")]
    Empty,
    /// Occurs when the number of `/`-separated rows is not a size of the
    /// game (Go 1..=19, Kaomi 2..=19; the Kaomi notation shares this type).
    #[error("{0} rows: a square board has 1 to 19 rows (Go), 2 to 19 (Kaomi)")]
    Rows(usize),
    /// Occurs when a row does not describe exactly `n` points.
    #[error("row {row} must describe exactly {expected} points")]
    RowLength {
        /// The row, 1-based from the top.
        row: usize,
        /// The board size.
        expected: usize,
    },
    /// Occurs on a character other than `b`, `w`, a digit or `/`.
    #[error("unexpected {ch:?} at byte {offset}: only b, w, digits and / may describe the board")]
    Char {
        /// The character.
        ch: char,
        /// Its byte offset in the board part.
        offset: usize,
    },
    /// Occurs on a run of empty points that is 0, has a leading zero, or
    /// follows another run (runs are maximal).
    #[error(
        "bad run of empty points at byte {offset}: runs are 1 to 19, maximal, without leading zero"
    )]
    Run {
        /// Its byte offset.
        offset: usize,
    },
    /// Occurs on a suffix other than one ` b` or ` w`.
    #[error("unexpected suffix {0:?}: expected ` b` or ` w` (player to move)")]
    Suffix(String),
}

/// The stones `[black, white]` on a square board.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct SquarePosition {
    pub(crate) board: &'static SquareBoard,
    pub(crate) stones: [Wide; 2],
}

impl SquarePosition {
    /// The empty board.
    pub(crate) fn empty(board: &'static SquareBoard) -> SquarePosition {
        SquarePosition {
            board,
            stones: [Wide::default(); 2],
        }
    }

    /// The colour of the stone on `p`, if any.
    #[inline]
    pub(crate) fn get(&self, p: Point) -> Option<Color> {
        stone_at(&self.stones, p)
    }

    /// Puts a stone (or nothing) on `p`, without applying any rule.
    ///
    /// # Panics
    /// When `p` is not on the board.
    pub(crate) fn set(&mut self, p: Point, stone: Option<Color>) {
        assert!(p.index() < self.board.len(), "{p:?} is off the board");
        put_stone(&mut self.stones, p, stone)
    }

    /// The stones of one colour.
    pub(crate) fn stones(&self, color: Color) -> PointSet {
        PointSet(self.stones[color.index()])
    }

    /// Every group (4-connected stones of one colour) with its liberties,
    /// in board order of its first stone.
    pub(crate) fn groups(&self) -> Vec<Group> {
        let mut seen = Wide::default();
        let mut out = Vec::new();
        for p in 0..self.board.len() {
            if seen.has(p) {
                continue;
            }
            if let Some(group) = self.group_at(Point(p as u16)) {
                seen = seen.union(group.stones.0);
                out.push(group);
            }
        }
        out
    }

    /// The group of the stone on `p`; `None` when `p` is empty.
    pub(crate) fn group_at(&self, p: Point) -> Option<Group> {
        let color = self.get(p)?;
        let (stones, liberties) = group_of(self.board, &self.stones, color.index(), p.index());
        Some(Group {
            color,
            stones: PointSet(stones),
            liberties: PointSet(liberties),
        })
    }

    /// The Zobrist keys of the position and its 8 images, salted for a game.
    pub(crate) fn keys(&self, salt: KeySalt) -> SquareKeys {
        SquareKeys::new(self.board, &self.stones, salt)
    }

    /// The image of the position under a symmetry.
    pub(crate) fn transform(&self, s: SquareSymmetry) -> SquarePosition {
        let mut out = SquarePosition::empty(self.board);
        for c in 0..2 {
            self.stones[c]
                .each(|i| out.stones[c].insert(self.board.transform(Point(i as u16), s).index()));
        }
        out
    }

    /// The canonical form: of the 8 images, the one whose (black, white)
    /// bitsets are least, and a symmetry mapping `self` onto it.
    pub(crate) fn canonical(&self) -> (SquarePosition, SquareSymmetry) {
        SquareSymmetry::all()
            .map(|s| (self.transform(s), s))
            .min_by(|a, b| a.0.stones.cmp(&b.0.stones))
            .expect("8 symmetries")
    }

    /// The position with black and white exchanged.
    pub(crate) fn swap_colors(&self) -> SquarePosition {
        SquarePosition {
            board: self.board,
            stones: [self.stones[1], self.stones[0]],
        }
    }

    /// The position notation: rows from the top separated by `/`, `b`,
    /// `w`, maximal runs of empty points; ` b`/` w` appended when `to_move`
    /// is given. Canonical: one text per board.
    pub(crate) fn notation(&self, to_move: Option<Color>) -> String {
        let mut s = self.to_string();
        if let Some(c) = to_move {
            s.push(' ');
            s.push(if c == Color::Black { 'b' } else { 'w' });
        }
        s
    }

    /// Reads the position notation; the size is the number of rows.
    ///
    /// # Errors
    /// [`GoNotationError`] naming the row or byte offset at fault.
    pub(crate) fn parse_notation(
        text: &str,
    ) -> Result<(SquarePosition, Option<Color>), GoNotationError> {
        let mut parts = text.split_whitespace();
        let board_part = parts.next().ok_or(GoNotationError::Empty)?;
        let mut to_move = None;
        for extra in parts {
            match extra {
                "b" | "B" if to_move.is_none() => to_move = Some(Color::Black),
                "w" | "W" if to_move.is_none() => to_move = Some(Color::White),
                other => return Err(GoNotationError::Suffix(other.to_string())),
            }
        }
        let rows: Vec<&str> = board_part.split('/').collect();
        let n = rows.len();
        let board = u8::try_from(n)
            .ok()
            .and_then(|n| SquareBoard::new(n).ok())
            .ok_or(GoNotationError::Rows(n))?;
        let mut pos = SquarePosition::empty(board);
        let mut offset = 0;
        for (r, row) in rows.iter().enumerate() {
            let bytes = row.as_bytes();
            let length = GoNotationError::RowLength {
                row: r + 1,
                expected: n,
            };
            let mut col = 0usize;
            let mut i = 0;
            while i < bytes.len() {
                let at = offset + i;
                match bytes[i] {
                    b @ (b'b' | b'w') => {
                        if col >= n {
                            return Err(length);
                        }
                        let c = usize::from(b == b'w');
                        pos.stones[c].insert(r * n + col);
                        col += 1;
                        i += 1;
                    }
                    b'1'..=b'9' => {
                        let start = i;
                        while i < bytes.len() && bytes[i].is_ascii_digit() {
                            i += 1;
                        }
                        let run: usize = row[start..i].parse().unwrap_or(usize::MAX);
                        if run > MAX_SQUARE_SIZE as usize {
                            return Err(GoNotationError::Run { offset: at });
                        }
                        col += run;
                        if col > n {
                            return Err(length);
                        }
                    }
                    b'0' => return Err(GoNotationError::Run { offset: at }),
                    _ => {
                        let ch = row[i..].chars().next().unwrap_or('?');
                        return Err(GoNotationError::Char { ch, offset: at });
                    }
                }
            }
            if col != n {
                return Err(length);
            }
            offset += row.len() + 1;
        }
        Ok((pos, to_move))
    }
}

impl fmt::Display for SquarePosition {
    /// The position notation of the board alone (no suffix).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.board.size() as usize;
        for r in 0..n {
            if r > 0 {
                f.write_str("/")?;
            }
            let mut run = 0;
            for c in 0..n {
                match self.get(Point((r * n + c) as u16)) {
                    None => run += 1,
                    Some(colour) => {
                        if run > 0 {
                            write!(f, "{run}")?;
                            run = 0;
                        }
                        f.write_str(if colour == Color::Black { "b" } else { "w" })?;
                    }
                }
            }
            if run > 0 {
                write!(f, "{run}")?;
            }
        }
        Ok(())
    }
}

/// The group of the stone of colour index `c` on `start`, and its
/// liberties.
fn group_of(board: &SquareBoard, stones: &[Wide; 2], c: usize, start: usize) -> (Wide, Wide) {
    let mut group = Wide::default();
    let mut liberties = Wide::default();
    let mut todo = Wide::default();
    group.insert(start);
    todo.insert(start);
    while let Some(p) = todo.pop_first() {
        for &q in board.slots(p) {
            if q == NONE {
                continue;
            }
            let q = q as usize;
            if stones[c].has(q) {
                if !group.has(q) {
                    group.insert(q);
                    todo.insert(q);
                }
            } else if !stones[1 - c].has(q) {
                liberties.insert(q);
            }
        }
    }
    (group, liberties)
}
