//! Pattern search: the games in which a partial board (a region with a
//! value per point, wildcards allowed) occurs, wherever the search mode
//! lets it be placed, under the board's symmetries and, on request, with
//! colours exchanged; with Kombilo's continuation statistics.
//!
//! Semantics follow Kombilo (the peer harness's "Hit semantics"): the time
//! line is the SGF node (root 0, setup and move-less nodes count); a hit
//! is a (game, distinct placement) pair that matches at the end of some
//! node, and its continuation is the first later move inside the
//! placement's region, mapped back into the pattern's points and colours,
//! "after tenuki" when it came 3 or more nodes after the match; points that
//! a symmetry of the pattern itself maps onto each other are folded onto
//! one. Whole-board patterns without wildcards are answered by the
//! position index; every other pattern by the in-memory index of
//! [`index`] (first-life columns, exact, with event replay for the rare
//! games it cannot decide alone).

mod index;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use keil_rules::{AnyBoard, BoardSpec, Color, GameKind, Point};
use rayon::prelude::*;
use serde::Serialize;

use crate::games::StoredMoves;
use crate::model::GameFilter;
use crate::{Error, GameId, Result};

pub(crate) use index::Group;
use index::{Line, NEVER};

/// The value a pattern asks of one point (Kombilo's `X O . * x o`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cell {
    /// `X`: a black stone.
    Black,
    /// `O`: a white stone.
    White,
    /// `.`: empty.
    Empty,
    /// `*`: anything.
    Any,
    /// `x`: a black stone or empty (not white).
    BlackOrEmpty,
    /// `o`: a white stone or empty (not black).
    WhiteOrEmpty,
}

impl Cell {
    /// Reads a cell's character (`X O . * x o`).
    pub fn from_char(c: char) -> Option<Cell> {
        Some(match c {
            'X' => Cell::Black,
            'O' => Cell::White,
            '.' => Cell::Empty,
            '*' => Cell::Any,
            'x' => Cell::BlackOrEmpty,
            'o' => Cell::WhiteOrEmpty,
            _ => return None,
        })
    }

    /// The cell's character.
    pub fn to_char(self) -> char {
        match self {
            Cell::Black => 'X',
            Cell::White => 'O',
            Cell::Empty => '.',
            Cell::Any => '*',
            Cell::BlackOrEmpty => 'x',
            Cell::WhiteOrEmpty => 'o',
        }
    }

    /// The cell with black and white exchanged.
    pub fn swap_colors(self) -> Cell {
        match self {
            Cell::Black => Cell::White,
            Cell::White => Cell::Black,
            Cell::BlackOrEmpty => Cell::WhiteOrEmpty,
            Cell::WhiteOrEmpty => Cell::BlackOrEmpty,
            c => c,
        }
    }

    /// Whether a point's state (0 empty, 1 black, 2 white) passes.
    fn allows(self, state: u8) -> bool {
        match self {
            Cell::Black => state == 1,
            Cell::White => state == 2,
            Cell::Empty => state == 0,
            Cell::Any => true,
            Cell::BlackOrEmpty => state != 2,
            Cell::WhiteOrEmpty => state != 1,
        }
    }

    fn is_stone(self) -> bool {
        matches!(self, Cell::Black | Cell::White)
    }
}

/// Where a pattern may be placed (Kombilo's pattern types, and their
/// analogues on the hexagon). A placement is a translation of the pattern
/// as drawn, then (with symmetry) one of the board's symmetries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PatternMode {
    /// Exactly where drawn.
    Fixed,
    /// In the corner where drawn: the pattern must touch two edges that
    /// meet in a corner, and stays there (Kombilo's corner pattern).
    Corner,
    /// Sliding along the one edge it is drawn on, never touching another
    /// edge (so never a corner column; Kombilo's side pattern).
    Side,
    /// Anywhere it touches no edge (Kombilo's centre pattern).
    Centre,
    /// Anywhere it fits on the board.
    Anywhere,
}

impl std::str::FromStr for PatternMode {
    type Err = PatternError;

    /// Reads `fixed`, `corner`, `side`, `centre` (or `center`), `anywhere`.
    fn from_str(s: &str) -> std::result::Result<PatternMode, PatternError> {
        Ok(match s {
            "fixed" => PatternMode::Fixed,
            "corner" => PatternMode::Corner,
            "side" => PatternMode::Side,
            "centre" | "center" => PatternMode::Centre,
            "anywhere" => PatternMode::Anywhere,
            _ => return Err(PatternError::Mode(s.to_string())),
        })
    }
}

impl PatternMode {
    /// The mode's name as [`PatternMode::from_str`] reads it.
    pub fn code(self) -> &'static str {
        match self {
            PatternMode::Fixed => "fixed",
            PatternMode::Corner => "corner",
            PatternMode::Side => "side",
            PatternMode::Centre => "centre",
            PatternMode::Anywhere => "anywhere",
        }
    }

    /// Where the rows notation puts its top-left cell when it names no
    /// point: the top-left corner, or (side and centre) one point in from
    /// the left and (centre) from the top.
    fn default_origin(self) -> (i32, i32) {
        match self {
            PatternMode::Side => (1, 0),
            PatternMode::Centre => (1, 1),
            _ => (0, 0),
        }
    }
}

/// Why a pattern is refused (each names what to fix).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// The text is empty.
    #[error("empty pattern: write rows of X O . * x o separated by '/', or VALUE:POINT items")]
    Empty,
    /// A character that is no cell value.
    #[error(
        "{found:?} at row {row}, column {column} is not a cell: use X (black), O (white), . (empty), * (any), x (black or empty), o (white or empty)"
    )]
    Cell {
        /// The character.
        found: char,
        /// Its row, from 1.
        row: usize,
        /// Its column, from 1.
        column: usize,
    },
    /// Rows of different lengths.
    #[error("row {row} has {found} cells, row 1 has {expected}: every row needs the same width")]
    Ragged {
        /// The row, from 1.
        row: usize,
        /// Row 1's width.
        expected: usize,
        /// This row's width.
        found: usize,
    },
    /// The rows notation on a hexagonal board.
    #[error(
        "a Keil pattern is written as VALUE:POINT items (X:g7 O:h8 .:g8,h7): rows are for square boards"
    )]
    RowsOnHexagon,
    /// A point that is malformed or off the board.
    #[error("point {point:?}: {reason}")]
    Point {
        /// The point as written.
        point: String,
        /// Why it is refused.
        reason: String,
    },
    /// An item of the point-list notation that is not `VALUE:POINTS`.
    #[error("{0:?} is not VALUE:POINT[,POINT...] (e.g. X:dd or .:cc,cd)")]
    Item(String),
    /// The same point given twice.
    #[error("point {0} is given twice")]
    Twice(String),
    /// The drawn pattern does not fit on the board.
    #[error("the pattern does not fit on the board ({0})")]
    OffBoard(String),
    /// An unknown mode.
    #[error("unknown mode {0:?}: use fixed, corner, side, centre or anywhere")]
    Mode(String),
    /// A corner pattern not drawn in a corner.
    #[error(
        "a corner pattern must be drawn in a corner of the board (touching two edges that meet there)"
    )]
    NotInCorner,
    /// A side pattern not drawn on exactly one edge.
    #[error("a side pattern must be drawn touching exactly one edge of the board and no corner")]
    NotOnSide,
    /// No placement of the pattern is possible in the mode.
    #[error("the pattern has no place on this board in {0} mode (too large?)")]
    NoPlacement(&'static str),
    /// A board the kind does not have.
    #[error("board: {0}")]
    Board(String),
}

/// A pattern: points of one board (kind and size), each with a [`Cell`],
/// drawn where they lie. Written in one of two notations (record-format
/// document, "Pattern notation"):
///
/// - rows (square boards): `ROW/ROW/...[@POINT]`, each row the same number
///   of cells `X O . * x o`, the top-left cell at the SGF point `POINT`
///   (default per mode: `aa`; side `ba`; centre `bb`);
/// - points (every board): `VALUE:POINT[,POINT...]` items separated by
///   spaces, points as records write them (`X:g7 O:h8 .:g8,h7` on a Keil
///   board; `X:dd O:fc` on a Go board).
///
/// ```
/// use keil_archive::{Pattern, PatternMode};
/// use keil_rules::GameKind;
///
/// // The 3-3 invasion under a 4-4 stone, in the top-left corner.
/// let p = Pattern::parse(GameKind::Go, 19, "...../...../..O../...X./.....", PatternMode::Corner).unwrap();
/// assert_eq!(p.cells().len(), 25);
/// assert_eq!(p.to_string(), "...../...../..O../...X./.....@aa");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    kind: GameKind,
    board: AnyBoard,
    /// The points with their cells, in board order.
    cells: Vec<(Point, Cell)>,
}

impl Pattern {
    /// A pattern of `cells` on the board of `kind` and `size`.
    ///
    /// # Errors
    /// [`PatternError::Board`] for a size the kind does not have;
    /// [`PatternError::Twice`]; [`PatternError::Empty`] with no cell.
    pub fn new(
        kind: GameKind,
        size: u8,
        cells: impl IntoIterator<Item = (Point, Cell)>,
    ) -> std::result::Result<Pattern, PatternError> {
        let board = board_of(kind, size)?;
        let mut cells: Vec<(Point, Cell)> = cells.into_iter().collect();
        cells.sort_by_key(|(p, _)| p.0);
        if let Some(w) = cells.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(PatternError::Twice(board.point_name(w[0].0)));
        }
        if cells.is_empty() {
            return Err(PatternError::Empty);
        }
        if let Some(&(p, _)) = cells.iter().find(|(p, _)| p.index() >= board.len()) {
            return Err(PatternError::OffBoard(format!("point index {}", p.0)));
        }
        Ok(Pattern { kind, board, cells })
    }

    /// Reads a pattern in either notation (see [`Pattern`]); `mode` gives
    /// the rows notation its default top-left point.
    ///
    /// # Errors
    /// [`PatternError`] naming the row and column, or the item, to fix.
    pub fn parse(
        kind: GameKind,
        size: u8,
        text: &str,
        mode: PatternMode,
    ) -> std::result::Result<Pattern, PatternError> {
        let board = board_of(kind, size)?;
        let text = text.trim();
        if text.is_empty() {
            return Err(PatternError::Empty);
        }
        let point = |name: &str| {
            board.parse_point(name).map_err(|e| PatternError::Point {
                point: name.to_string(),
                reason: e.to_string(),
            })
        };
        if text.contains(':') {
            let mut cells = Vec::new();
            for item in text.split_whitespace() {
                let (value, points) = item
                    .split_once(':')
                    .ok_or_else(|| PatternError::Item(item.to_string()))?;
                let mut chars = value.chars();
                let cell = match (chars.next().and_then(Cell::from_char), chars.next()) {
                    (Some(c), None) => c,
                    _ => return Err(PatternError::Item(item.to_string())),
                };
                for name in points.split(',') {
                    if name.is_empty() {
                        return Err(PatternError::Item(item.to_string()));
                    }
                    cells.push((point(name)?, cell));
                }
            }
            return Pattern::new(kind, size, cells);
        }
        if matches!(board, AnyBoard::Hex(_)) {
            return Err(PatternError::RowsOnHexagon);
        }
        let (rows, origin) = match text.split_once('@') {
            Some((rows, at)) => {
                let p = point(at.trim())?;
                let (c, r) = board.coords(p);
                (rows, (i32::from(c), i32::from(r)))
            }
            None => (text, mode.default_origin()),
        };
        let rows: Vec<&str> = rows.split(['/', '\n']).map(str::trim).collect();
        let width = rows[0].chars().count();
        let mut cells = Vec::new();
        for (j, row) in rows.iter().enumerate() {
            let n = row.chars().count();
            if n != width {
                return Err(PatternError::Ragged {
                    row: j + 1,
                    expected: width,
                    found: n,
                });
            }
            for (i, ch) in row.chars().enumerate() {
                let cell = Cell::from_char(ch).ok_or(PatternError::Cell {
                    found: ch,
                    row: j + 1,
                    column: i + 1,
                })?;
                let p = board
                    .point_at(origin.0 + i as i32, origin.1 + j as i32)
                    .ok_or_else(|| {
                        PatternError::OffBoard(format!(
                            "{} rows of {} from column {}, row {} on {}x{}",
                            rows.len(),
                            width,
                            origin.0 + 1,
                            origin.1 + 1,
                            size,
                            size
                        ))
                    })?;
                cells.push((p, cell));
            }
        }
        Pattern::new(kind, size, cells)
    }

    /// The game kind.
    pub fn kind(&self) -> GameKind {
        self.kind
    }

    /// The board.
    pub fn board(&self) -> AnyBoard {
        self.board
    }

    /// The points and their cells, in board order.
    pub fn cells(&self) -> &[(Point, Cell)] {
        &self.cells
    }

    /// Whether the pattern is a whole board of stones and empty points (no
    /// wildcard): the position index answers it.
    pub fn is_whole_board(&self) -> bool {
        self.cells.len() == self.board.len()
            && self
                .cells
                .iter()
                .all(|(_, c)| matches!(c, Cell::Black | Cell::White | Cell::Empty))
    }

    /// The pattern's bounding box in lattice coordinates: `(column, row)`
    /// of its top-left and its width and height.
    fn bounds(&self) -> ((u8, u8), (u8, u8)) {
        let coords = self.cells.iter().map(|&(p, _)| self.board.coords(p));
        let (c0, r0) = coords
            .clone()
            .fold((u8::MAX, u8::MAX), |(a, b), (c, r)| (a.min(c), b.min(r)));
        let (c1, r1) = coords.fold((0, 0), |(a, b), (c, r)| (a.max(c), b.max(r)));
        ((c0, r0), (c1 - c0 + 1, r1 - r0 + 1))
    }

    /// The pattern's offset of a point from its bounding box's top-left
    /// `(x, y)` (Kombilo's pattern coordinates on square boards).
    pub fn offset(&self, p: Point) -> (u8, u8) {
        let ((c0, r0), _) = self.bounds();
        let (c, r) = self.board.coords(p);
        (c - c0, r - r0)
    }
}

impl std::fmt::Display for Pattern {
    /// The rows notation when the pattern fills a rectangle of a square
    /// board, else the point-list notation (cells grouped by value).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ((c0, r0), (w, h)) = self.bounds();
        if matches!(self.board, AnyBoard::Square(_))
            && self.cells.len() == usize::from(w) * usize::from(h)
        {
            let at: HashMap<Point, Cell> = self.cells.iter().copied().collect();
            for j in 0..h {
                if j > 0 {
                    f.write_str("/")?;
                }
                for i in 0..w {
                    let p = self
                        .board
                        .point_at(i32::from(c0 + i), i32::from(r0 + j))
                        .expect("inside the bounding box");
                    write!(f, "{}", at[&p].to_char())?;
                }
            }
            let top_left = self
                .board
                .point_at(i32::from(c0), i32::from(r0))
                .expect("on the board");
            return write!(f, "@{}", self.board.point_name(top_left));
        }
        let mut first = true;
        for cell in [
            Cell::Black,
            Cell::White,
            Cell::Empty,
            Cell::BlackOrEmpty,
            Cell::WhiteOrEmpty,
            Cell::Any,
        ] {
            let names: Vec<String> = self
                .cells
                .iter()
                .filter(|(_, c)| *c == cell)
                .map(|&(p, _)| self.board.point_name(p))
                .collect();
            if names.is_empty() {
                continue;
            }
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            write!(f, "{}:{}", cell.to_char(), names.join(","))?;
        }
        Ok(())
    }
}

fn board_of(kind: GameKind, size: u8) -> std::result::Result<AnyBoard, PatternError> {
    BoardSpec::new(kind, size)
        .and_then(|s| s.board())
        .map_err(|e| PatternError::Board(e.to_string()))
}

/// One placement of a pattern: where each of its points lands.
#[derive(Clone, Debug)]
pub(crate) struct Placement {
    /// The board points and cells to test (no `Any`), stones first.
    pub cells: Vec<(u16, Cell)>,
    /// The region (every pattern point's image, `Any` included).
    region: [u64; 8],
    /// (board point, pattern point index), sorted by board point.
    to_pattern: Vec<(u16, u16)>,
    /// The board symmetry applied after the translation.
    pub sym: u8,
    /// Whether colours are exchanged.
    pub swapped: bool,
}

impl Placement {
    /// Whether a board point is in the region.
    pub(crate) fn contains(&self, p: usize) -> bool {
        p < 512 && self.region[p / 64] >> (p % 64) & 1 != 0
    }

    /// The pattern point (index into the pattern's cells) a board point of
    /// the region comes from.
    fn pattern_point(&self, p: u16) -> Option<u16> {
        self.to_pattern
            .binary_search_by_key(&p, |&(b, _)| b)
            .ok()
            .map(|i| self.to_pattern[i].1)
    }
}

/// A search's placements and the folding of the pattern's points under its
/// own symmetries.
#[derive(Debug)]
pub(crate) struct Placements {
    pub list: Vec<Placement>,
    /// Pattern point index → the index of its orbit's representative.
    fold: Vec<u16>,
    /// For the first translation, by `sym * 2 + swapped`: the placement
    /// it is (or duplicates).
    first: Vec<Option<u32>>,
}

/// Every distinct placement of `pattern` in `mode` (see [`PatternMode`]),
/// under the board's symmetries when `symmetry`, and colour-swapped too
/// when `swap`; identical placements (same points, same cells) count once,
/// the first kept.
///
/// # Errors
/// [`PatternError::NotInCorner`], [`PatternError::NotOnSide`],
/// [`PatternError::NoPlacement`].
pub(crate) fn placements(
    pattern: &Pattern,
    mode: PatternMode,
    symmetry: bool,
    swap: bool,
) -> std::result::Result<Placements, PatternError> {
    let board = pattern.board;
    let coords: Vec<(i32, i32)> = pattern
        .cells
        .iter()
        .map(|&(p, _)| {
            let (c, r) = board.coords(p);
            (i32::from(c), i32::from(r))
        })
        .collect();
    // The edges a translation touches; `None` when it leaves the board.
    let touched = |dc: i32, dr: i32| -> Option<(u8, Vec<Point>)> {
        let mut edges = 0;
        let mut pts = Vec::with_capacity(coords.len());
        for &(c, r) in &coords {
            let p = board.point_at(c + dc, r + dr)?;
            edges |= board.edges(p);
            pts.push(p);
        }
        Some((edges, pts))
    };
    let (drawn, _) = touched(0, 0).expect("a pattern's points are on its board");
    let corner = pattern
        .cells
        .iter()
        .any(|&(p, _)| board.edges(p).count_ones() >= 2);
    match mode {
        PatternMode::Corner if !corner => return Err(PatternError::NotInCorner),
        PatternMode::Side if corner || drawn.count_ones() != 1 => {
            return Err(PatternError::NotOnSide);
        }
        _ => {}
    }
    // Translations that keep the bounding box inside the lattice's
    // square of coordinates (the board's points lie in it).
    let width = board.points().map(|p| board.coords(p).0).max().unwrap_or(0);
    let ((c0, r0), (w, h)) = pattern.bounds();
    let (c0, r0, w, h, width) = (
        i32::from(c0),
        i32::from(r0),
        i32::from(w),
        i32::from(h),
        i32::from(width),
    );
    let mut translations = Vec::new();
    for dr in -r0..=width + 1 - h - r0 {
        for dc in -c0..=width + 1 - w - c0 {
            if mode == PatternMode::Fixed && (dc, dr) != (0, 0) {
                continue;
            }
            let Some((edges, pts)) = touched(dc, dr) else {
                continue;
            };
            let ok = match mode {
                PatternMode::Fixed | PatternMode::Anywhere => true,
                PatternMode::Corner | PatternMode::Side => edges == drawn,
                PatternMode::Centre => edges == 0,
            };
            if ok {
                translations.push(pts);
            }
        }
    }
    if translations.is_empty() {
        return Err(PatternError::NoPlacement(mode.code()));
    }
    let syms: Vec<u8> = if symmetry {
        (0..board.symmetry_count()).collect()
    } else {
        vec![0]
    };
    let n = pattern.cells.len();
    let mut parent: Vec<u16> = (0..n as u16).collect();
    fn find(parent: &mut [u16], x: u16) -> u16 {
        let mut x = x;
        while parent[usize::from(x)] != x {
            let up = parent[usize::from(parent[usize::from(x)])];
            parent[usize::from(x)] = up;
            x = up;
        }
        x
    }
    let mut seen: HashMap<Vec<(u16, Cell)>, usize> = HashMap::new();
    let mut list: Vec<Placement> = Vec::new();
    let mut first = vec![None; usize::from(board.symmetry_count()) * 2];
    for (t, pts) in translations.iter().enumerate() {
        for &s in &syms {
            for swapped in [false, true] {
                if swapped && !swap {
                    continue;
                }
                let mut image: Vec<(u16, Cell, u16)> = pts
                    .iter()
                    .zip(&pattern.cells)
                    .enumerate()
                    .map(|(i, (&p, &(_, c)))| {
                        let c = if swapped { c.swap_colors() } else { c };
                        (board.transform(p, s).0, c, i as u16)
                    })
                    .collect();
                image.sort_unstable();
                let key: Vec<(u16, Cell)> = image.iter().map(|&(p, c, _)| (p, c)).collect();
                if t == 0 {
                    first[usize::from(s) * 2 + usize::from(swapped)] =
                        Some(seen.get(&key).copied().unwrap_or(list.len()) as u32);
                }
                if let Some(&k) = seen.get(&key) {
                    // The same placement by another mapping: the pattern
                    // points it maps together are one (Kombilo folds them).
                    if list[k].swapped == swapped {
                        for &(p, _, i) in &image {
                            let j = list[k].pattern_point(p).expect("same points");
                            let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                            parent[usize::from(a.max(b))] = a.min(b);
                        }
                    }
                    continue;
                }
                seen.insert(key, list.len());
                let mut region = [0u64; 8];
                for &(p, _, _) in &image {
                    region[usize::from(p) / 64] |= 1 << (p % 64);
                }
                let mut cells: Vec<(u16, Cell)> = image
                    .iter()
                    .filter(|(_, c, _)| *c != Cell::Any)
                    .map(|&(p, c, _)| (p, c))
                    .collect();
                cells.sort_by_key(|&(p, c)| (!c.is_stone(), p));
                list.push(Placement {
                    cells,
                    region,
                    to_pattern: image.iter().map(|&(p, _, i)| (p, i)).collect(),
                    sym: s,
                    swapped,
                });
            }
        }
    }
    // Each orbit's representative: its least point by (column, row).
    let key = |i: u16| board.coords(pattern.cells[usize::from(i)].0);
    let mut best: HashMap<u16, u16> = HashMap::new();
    for i in 0..n as u16 {
        let root = find(&mut parent, i);
        let e = best.entry(root).or_insert(i);
        if key(i) < key(*e) {
            *e = i;
        }
    }
    let fold = (0..n as u16).map(|i| best[&find(&mut parent, i)]).collect();
    Ok(Placements { list, fold, first })
}

/// A pattern search (issue 14).
#[derive(Clone, Debug)]
pub struct PatternQuery {
    /// The pattern (its kind and size select the games searched).
    pub pattern: Pattern,
    /// Where it may be placed.
    pub mode: PatternMode,
    /// Whether the board's symmetries (8 on the square, 12 on the hexagon)
    /// place it too.
    pub symmetry: bool,
    /// Whether the pattern with black and white exchanged matches too
    /// (hits say `swapped`; continuations are counted in the pattern's
    /// colours).
    pub swap_colors: bool,
    /// Only games that pass this filter (its kind and size are the
    /// pattern's).
    pub filter: GameFilter,
    /// How many games to list (statistics always cover all matches).
    pub limit: usize,
    /// Continue after this cursor (from [`PatternAnswer::next_cursor`]).
    pub cursor: Option<String>,
}

impl PatternQuery {
    /// A query for `pattern` in `mode`, with symmetry and colour swap on
    /// (Kombilo's default), no filter, 20 games.
    pub fn new(pattern: Pattern, mode: PatternMode) -> PatternQuery {
        PatternQuery {
            pattern,
            mode,
            symmetry: true,
            swap_colors: true,
            filter: GameFilter::default(),
            limit: 20,
            cursor: None,
        }
    }
}

/// Next moves of one colour at one point of a pattern.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MoveStats {
    /// Hits whose continuation was this colour's move here.
    pub count: u64,
    /// Of those, played 3 or more nodes after the match (after a tenuki).
    pub after_tenuki: u64,
    /// Of those, games won by the player of the pattern's black stones
    /// (the game's White in a colour-swapped hit).
    pub black_wins: u64,
    /// Of those, games won by the player of the pattern's white stones.
    pub white_wins: u64,
}

/// The continuations at one point of the pattern (Kombilo's continuation
/// table row).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PatternContinuation {
    /// The point as the pattern is drawn, as records write it (`dd`,
    /// `g7`); points the pattern's own symmetries make equivalent are
    /// counted on one of them.
    pub point: String,
    /// The point for people (Go `D16`).
    pub display: String,
    /// Its offset `[x, y]` from the pattern's top-left (lattice
    /// coordinates).
    pub offset: [u8; 2],
    /// A label, `A` for the most played point, then `B`, ...
    pub label: String,
    /// Moves of the pattern's Black here.
    pub black: MoveStats,
    /// Moves of the pattern's White here.
    pub white: MoveStats,
}

/// A game in which the pattern occurs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PatternHit {
    /// The game id.
    pub game_id: GameId,
    /// The first node at whose end the pattern stood (the root is 0).
    pub node: u32,
    /// The moves played by then.
    pub ply: u32,
    /// Distinct placements that matched in this game.
    pub hits: u32,
    /// The symmetry (its index: 0..8 square, 0..12 hexagon) of the first
    /// match's placement.
    pub symmetry: u8,
    /// Whether the first match was colour-swapped.
    pub swapped: bool,
    /// The first match's continuation as a pattern point (`None`: no move
    /// was played in the region after it).
    pub next: Option<String>,
    /// The game's date, `YYYY-MM-DD` or empty.
    pub date: String,
    /// Black's name.
    pub black: Option<String>,
    /// White's name.
    pub white: Option<String>,
    /// The result as written in RE.
    pub result: Option<String>,
}

/// The answer to a [`PatternQuery`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PatternAnswer {
    /// The pattern as searched, in its notation.
    pub pattern: String,
    /// Distinct placements searched.
    pub placements: u32,
    /// Games in which the pattern occurs (after filters).
    pub total_games: u64,
    /// (game, distinct placement) pairs that match.
    pub total_hits: u64,
    /// Continuations, most played first.
    pub continuations: Vec<PatternContinuation>,
    /// One page of games, newest first.
    pub games: Vec<PatternHit>,
    /// Pass as `cursor` for the next page; `None` on the last.
    pub next_cursor: Option<String>,
}

/// A game's matches before paging.
#[derive(Clone, Copy, Debug)]
struct GameMatch {
    date: u32,
    game: u32,
    node: u16,
    ply: u32,
    hits: u32,
    placement: u32,
    next: Option<u16>,
}

impl GameMatch {
    fn order(&self) -> std::cmp::Reverse<(u32, u32)> {
        std::cmp::Reverse((self.date, self.game))
    }
}

/// A search's matches before paging (cached per index generation).
#[derive(Debug)]
struct Matched {
    placements: u32,
    total_hits: u64,
    continuations: Vec<PatternContinuation>,
    games: Vec<GameMatch>,
    /// The pattern point names, for [`GameMatch::next`].
    names: Vec<String>,
    placement_sym: Vec<(u8, bool)>,
}

/// The in-memory pattern index of an archive (see [`index`]), extended
/// with the games added since it was last read.
pub(crate) struct PatternIndex {
    loaded: RwLock<Loaded>,
    answers: quick_cache::sync::Cache<String, Arc<Matched>>,
}

#[derive(Default)]
struct Loaded {
    max_id: i64,
    groups: Vec<(GameKind, Group)>,
}

impl Default for PatternIndex {
    fn default() -> PatternIndex {
        PatternIndex {
            loaded: RwLock::default(),
            answers: quick_cache::sync::Cache::new(64),
        }
    }
}

impl std::fmt::Debug for PatternIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let loaded = self.loaded.read().expect("poisoned");
        f.debug_struct("PatternIndex")
            .field("max_id", &loaded.max_id)
            .field("groups", &loaded.groups.len())
            .finish()
    }
}

/// Games read per chunk when loading (replayed in parallel).
const LOAD_CHUNK: usize = 4096;

impl PatternIndex {
    /// Adds the games stored since the last call.
    fn refresh(&self, conn: &rusqlite::Connection) -> Result<i64> {
        let max: i64 = conn
            .prepare_cached("SELECT COALESCE(MAX(id), 0) FROM games")?
            .query_row([], |r| r.get(0))?;
        if max <= self.loaded.read().expect("poisoned").max_id {
            return Ok(max);
        }
        let mut loaded = self.loaded.write().expect("poisoned");
        if max <= loaded.max_id {
            return Ok(max);
        }
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {}, id, date, winner FROM games WHERE id > ?1 AND id <= ?2 ORDER BY id",
            StoredMoves::COLUMNS
        ))?;
        let mut rows = stmt.query([loaded.max_id, max])?;
        let mut chunk = Vec::with_capacity(LOAD_CHUNK);
        loop {
            let row = rows.next()?;
            let done = row.is_none();
            if let Some(r) = row {
                chunk.push((
                    StoredMoves::read(r)?,
                    r.get::<_, i64>(8)?,
                    r.get::<_, String>(9)?,
                    r.get::<_, Option<i64>>(10)?,
                ));
            }
            if chunk.len() == LOAD_CHUNK || (done && !chunk.is_empty()) {
                let built: Vec<(GameKind, AnyBoard, Line, index::Built)> =
                    std::mem::take(&mut chunk)
                        .into_par_iter()
                        .map(|(stored, id, date, winner)| {
                            let game = GameId::from_sql(id);
                            let m = stored.decode(game)?;
                            let built = index::build(&m).map_err(|e| Error::Corrupt {
                                game,
                                reason: format!("stored moves do not replay: {e}"),
                            })?;
                            let nodes = (m
                                .nodes
                                .iter()
                                .enumerate()
                                .any(|(i, &n)| n as usize != i + 1))
                            .then(|| m.nodes.clone().into_boxed_slice());
                            let line = Line {
                                id: id as u32,
                                date: crate::positions::date_number(&date),
                                winner: winner.map_or(-1, |w| w as i8),
                                plies: m.moves.len() as u32,
                                nodes,
                                events: 0..0,
                            };
                            Ok((m.rules.kind(), m.board, line, built))
                        })
                        .collect::<Result<_>>()?;
                for (kind, board, line, built) in built {
                    let at = match loaded
                        .groups
                        .iter()
                        .position(|(k, g)| *k == kind && g.board == board)
                    {
                        Some(i) => i,
                        None => {
                            loaded.groups.push((kind, Group::new(board)));
                            loaded.groups.len() - 1
                        }
                    };
                    loaded.groups[at].1.push(line, built);
                }
            }
            if done {
                break;
            }
        }
        loaded.max_id = max;
        Ok(max)
    }
}

/// The pattern queries of an archive, from [`crate::Archive::patterns`].
pub struct Patterns<'a> {
    pub(crate) archive: &'a crate::Archive,
}

/// Memory held by the pattern index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PatternIndexStats {
    /// Games indexed.
    pub games: u64,
    /// Bytes held (columns, events, per-game lines).
    pub bytes: u64,
}

impl Patterns<'_> {
    /// Reads every stored game into the pattern index (replaying each
    /// once; the first search would otherwise pay for it), and says how
    /// large it is.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a stored game that does not replay; storage
    /// errors.
    pub fn load(&self) -> Result<PatternIndexStats> {
        let index = &self.archive.patterns;
        self.archive
            .reader()?
            .snapshot(|conn| index.refresh(conn))?;
        let loaded = index.loaded.read().expect("poisoned");
        Ok(PatternIndexStats {
            games: loaded
                .groups
                .iter()
                .map(|(_, g)| g.lines.len() as u64)
                .sum(),
            bytes: loaded.groups.iter().map(|(_, g)| g.bytes() as u64).sum(),
        })
    }

    /// Finds the games in which the pattern occurs (see [`PatternQuery`]
    /// and the module docs for the semantics), with the first matching
    /// node and placement per game, hits per game, and continuation
    /// statistics over all hits. Runs on one read snapshot.
    ///
    /// # Errors
    /// [`Error::BadCursor`] for a cursor this search did not produce;
    /// [`Error::Corrupt`] for a stored game that does not replay; storage
    /// errors.
    pub fn search(&self, q: &PatternQuery) -> Result<PatternAnswer> {
        let archive = self.archive;
        let after = match &q.cursor {
            None => None,
            Some(c) => Some(crate::positions::parse_cursor(c)?),
        };
        archive.reader()?.snapshot(|conn| {
            let generation = archive.patterns.refresh(conn)?;
            let key = format!(
                "{generation} {} {:?} {} {} {:?}",
                q.pattern,
                q.mode,
                q.symmetry,
                q.swap_colors,
                filter_of(q)
            );
            let matched = match archive.patterns.answers.get(&key) {
                Some(m) => m,
                None => {
                    let m = Arc::new(self.matches(conn, q)?);
                    archive.patterns.answers.insert(key, m.clone());
                    m
                }
            };
            page(conn, q, &matched, after)
        })
    }

    /// [`Patterns::search`] without the answer cache: every call searches
    /// (benchmarks time this; a server calls `search`).
    ///
    /// # Errors
    /// As [`Patterns::search`].
    pub fn search_uncached(&self, q: &PatternQuery) -> Result<PatternAnswer> {
        let after = match &q.cursor {
            None => None,
            Some(c) => Some(crate::positions::parse_cursor(c)?),
        };
        self.archive.reader()?.snapshot(|conn| {
            self.archive.patterns.refresh(conn)?;
            let matched = self.matches(conn, q)?;
            page(conn, q, &matched, after)
        })
    }

    fn matches(&self, conn: &rusqlite::Connection, q: &PatternQuery) -> Result<Matched> {
        let placements = placements(&q.pattern, q.mode, q.symmetry, q.swap_colors)?;
        let loaded = self.archive.patterns.loaded.read().expect("poisoned");
        let group = loaded
            .groups
            .iter()
            .find(|(k, g)| *k == q.pattern.kind && g.board == q.pattern.board)
            .map(|(_, g)| g);
        let names: Vec<String> = q
            .pattern
            .cells
            .iter()
            .map(|&(p, _)| q.pattern.board.point_name(p))
            .collect();
        let placement_sym = placements.list.iter().map(|p| (p.sym, p.swapped)).collect();
        let mut matched = Matched {
            placements: placements.list.len() as u32,
            total_hits: 0,
            continuations: Vec::new(),
            games: Vec::new(),
            names,
            placement_sym,
        };
        let Some(group) = group else {
            return Ok(matched);
        };
        // (game index, placement, first node), by game then placement.
        let mut found: Vec<(u32, u32, u16)> = if q.pattern.is_whole_board() {
            whole_board(self.archive, conn, q, group, &placements)?
        } else {
            (0..group.blocks())
                .into_par_iter()
                .fold(
                    || (Vec::new(), Vec::new()),
                    |(mut out, mut scratch), b| {
                        group.scan_block(b, &placements.list, &mut scratch, &mut out);
                        (out, scratch)
                    },
                )
                .map(|(out, _)| out)
                .reduce(Vec::new, |mut a, mut b| {
                    a.append(&mut b);
                    a
                })
        };
        found.sort_unstable();
        // A placement found twice (whole board: a colour-symmetric board)
        // counts once, at its first node.
        found.dedup_by_key(|f| (f.0, f.1));
        let filter = filter_of(q);
        if filter != GameFilter::default() {
            let mut ids: Vec<u32> = found.iter().map(|f| group.lines[f.0 as usize].id).collect();
            ids.dedup();
            let ids: Vec<GameId> = ids
                .into_iter()
                .map(|i| GameId::from_sql(i64::from(i)))
                .collect();
            let keep: std::collections::HashSet<u32> = crate::games::summaries(conn, &ids)?
                .into_iter()
                .filter(|s| filter.matches(s))
                .map(|s| s.id.sql() as u32)
                .collect();
            found.retain(|f| keep.contains(&group.lines[f.0 as usize].id));
        }
        // Continuations per hit, folded; per game its first match.
        let n = q.pattern.cells.len();
        let mut stats = vec![[MoveStats::default(); 2]; n];
        let mut i = 0;
        while i < found.len() {
            let g = found[i].0;
            let line = &group.lines[g as usize];
            let mut first: Option<(u16, u32, Option<u16>)> = None;
            let mut hits = 0;
            while i < found.len() && found[i].0 == g {
                let (_, k, t) = found[i];
                let pl = &placements.list[k as usize];
                hits += 1;
                let next = continuation(group, line, pl, t);
                if let Some((pp, color, distance)) = next {
                    let pp = placements.fold[usize::from(pp)];
                    let s = &mut stats[usize::from(pp)][color.index()];
                    s.count += 1;
                    s.after_tenuki += u64::from(distance >= TENUKI_NODES);
                    let winner = match line.winner {
                        0 => Some(Color::Black),
                        1 => Some(Color::White),
                        _ => None,
                    };
                    let winner = if pl.swapped {
                        winner.map(Color::opposite)
                    } else {
                        winner
                    };
                    s.black_wins += u64::from(winner == Some(Color::Black));
                    s.white_wins += u64::from(winner == Some(Color::White));
                }
                if first.is_none_or(|(ft, _, _)| t < ft) {
                    first = Some((t, k, next.map(|n| n.0)));
                }
                i += 1;
            }
            let (node, placement, next) = first.expect("one match at least");
            matched.total_hits += hits;
            matched.games.push(GameMatch {
                date: line.date,
                game: line.id,
                node,
                ply: line.ply_at(node),
                hits: hits as u32,
                placement,
                next,
            });
        }
        matched.games.sort_by_key(GameMatch::order);
        let mut rows: Vec<(usize, [MoveStats; 2])> = stats
            .into_iter()
            .enumerate()
            .filter(|(_, s)| s[0].count + s[1].count > 0)
            .collect();
        rows.sort_by_key(|(i, s)| {
            (
                std::cmp::Reverse(s[0].count + s[1].count),
                q.pattern.cells[*i].0.0,
            )
        });
        let board = q.pattern.board;
        matched.continuations = rows
            .into_iter()
            .enumerate()
            .map(|(rank, (i, [black, white]))| {
                let p = q.pattern.cells[i].0;
                let (x, y) = q.pattern.offset(p);
                PatternContinuation {
                    point: board.point_name(p),
                    display: board.display_name(p),
                    offset: [x, y],
                    label: label(rank),
                    black,
                    white,
                }
            })
            .collect();
        Ok(matched)
    }
}

/// A continuation "after tenuki" comes this many nodes or more after the
/// match (Kombilo).
const TENUKI_NODES: u16 = 3;

/// Labels `A`..`Z`, then `AA`, `AB`, ...
fn label(rank: usize) -> String {
    let letter = |i: usize| char::from(b'A' + (i % 26) as u8);
    if rank < 26 {
        letter(rank).to_string()
    } else {
        format!("{}{}", letter(rank / 26 - 1), letter(rank))
    }
}

/// The filter a query applies: its own, with the pattern's kind and size.
fn filter_of(q: &PatternQuery) -> GameFilter {
    GameFilter {
        kind: None,
        size: None,
        ..q.filter.clone()
    }
}

/// The first move after node `t` inside the placement's region: (pattern
/// point index, colour in the pattern's colours, nodes after `t`).
fn continuation(group: &Group, line: &Line, pl: &Placement, t: u16) -> Option<(u16, Color, u16)> {
    let events = group.events(line);
    let from = events.partition_point(|e| e.node() <= t);
    events[from..].iter().find_map(|e| {
        let mover = e.mover()?;
        if !pl.contains(e.point()) {
            return None;
        }
        let pp = pl.pattern_point(e.point() as u16)?;
        let color = if pl.swapped { mover.opposite() } else { mover };
        Some((pp, color, e.node() - t))
    })
}

/// Whole-board patterns: the position index finds the games (first
/// occurrence per game and colour side); the placement is the symmetry
/// that maps the game's board onto the pattern's.
fn whole_board(
    archive: &crate::Archive,
    conn: &rusqlite::Connection,
    q: &PatternQuery,
    group: &Group,
    placements: &Placements,
) -> Result<Vec<(u32, u32, u16)>> {
    let board = q.pattern.board;
    let mut position = keil_rules::AnyPosition::empty(BoardSpec {
        kind: q.pattern.kind,
        size: board.size(),
    })
    .map_err(|e| PatternError::Board(e.to_string()))?;
    for &(p, c) in &q.pattern.cells {
        match c {
            Cell::Black => position.set(p, Some(Color::Black)),
            Cell::White => position.set(p, Some(Color::White)),
            _ => {}
        }
    }
    let occurrences = crate::positions::occurrences(
        &archive.positions,
        conn,
        position,
        q.symmetry,
        q.swap_colors,
    )?;
    let mut out = Vec::new();
    for o in occurrences {
        // Lines are in id order.
        let Ok(g) = group.lines.binary_search_by_key(&o.game, |l| l.id) else {
            continue;
        };
        let line = &group.lines[g];
        // The placement: the pattern's points carried onto the game's
        // board, i.e. by the inverse of the symmetry game → pattern.
        let to_game = board.inverse(o.sym);
        let Some(Some(k)) = placements
            .first
            .get(usize::from(to_game) * 2 + usize::from(o.swapped))
            .copied()
        else {
            continue;
        };
        let node = if o.ply == 0 {
            0
        } else {
            match &line.nodes {
                None => o.ply,
                Some(nodes) => nodes[usize::from(o.ply) - 1].min(u32::from(NEVER) - 1) as u16,
            }
        };
        out.push((g as u32, k, node));
    }
    Ok(out)
}

/// One page of a search's matches, newest first, with the games' details.
fn page(
    conn: &rusqlite::Connection,
    q: &PatternQuery,
    m: &Matched,
    after: Option<(u32, u32)>,
) -> Result<PatternAnswer> {
    let first = after.map_or(0, |(d, g)| {
        m.games
            .partition_point(|h| h.order() <= std::cmp::Reverse((d, g)))
    });
    let limit = q.limit.max(1);
    let end = (first + limit).min(m.games.len());
    let page = &m.games[first..end];
    let next_cursor = (end < m.games.len())
        .then(|| page.last().map(|h| format!("{}-{}", h.date, h.game)))
        .flatten();
    let ids: Vec<GameId> = page
        .iter()
        .map(|h| GameId::from_sql(i64::from(h.game)))
        .collect();
    let summaries: HashMap<GameId, crate::GameSummary> = crate::games::summaries(conn, &ids)?
        .into_iter()
        .map(|s| (s.id, s))
        .collect();
    let games = page
        .iter()
        .map(|h| {
            let s = summaries.get(&GameId::from_sql(i64::from(h.game)));
            let (sym, swapped) = m.placement_sym[h.placement as usize];
            PatternHit {
                game_id: GameId::from_sql(i64::from(h.game)),
                node: u32::from(h.node),
                ply: h.ply,
                hits: h.hits,
                symmetry: sym,
                swapped,
                next: h.next.map(|p| m.names[usize::from(p)].clone()),
                date: s.and_then(|s| s.date.clone()).unwrap_or_default(),
                black: s.and_then(|s| s.black.clone()),
                white: s.and_then(|s| s.white.clone()),
                result: s.and_then(|s| s.result.clone()),
            }
        })
        .collect();
    Ok(PatternAnswer {
        pattern: q.pattern.to_string(),
        placements: m.placements,
        total_games: m.games.len() as u64,
        total_hits: m.total_hits,
        continuations: m.continuations.clone(),
        games,
        next_cursor,
    })
}
