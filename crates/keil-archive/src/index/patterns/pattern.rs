//! Patterns and their notation: a region of a board with a [`Cell`] per
//! point, and the modes that place it (record-format.md, "Pattern
//! notation").

use crate::error::PatternError;
use keil_rules::{AnyBoard, BoardSpec, GameKind, Point};
use serde::Serialize;

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

    /// Whether a point's state (0 empty, 1 black, 2 white) passes: bit
    /// `state` of the cell's set of allowed states, without a branch (a
    /// replay tests this for every placement a node touches).
    #[inline]
    pub(crate) fn allows(self, state: u8) -> bool {
        let allowed: u8 = match self {
            Cell::Black => 0b010,
            Cell::White => 0b100,
            Cell::Empty => 0b001,
            Cell::Any => 0b111,
            Cell::BlackOrEmpty => 0b011,
            Cell::WhiteOrEmpty => 0b101,
        };
        allowed >> state & 1 != 0
    }

    /// Whether the cell is a stone (`X` or `O`).
    pub fn is_stone(self) -> bool {
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
    /// The mode's name as its [`FromStr`](std::str::FromStr) reads it.
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
    pub(crate) fn default_origin(self) -> (i32, i32) {
        match self {
            PatternMode::Side => (1, 0),
            PatternMode::Centre => (1, 1),
            _ => (0, 0),
        }
    }
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
    /// the rows notation its default top-left point, and a pattern of
    /// stones alone its region ([`Pattern::reaching`]).
    ///
    /// # Errors
    /// [`PatternError`] naming the row and column, or the item, to fix.
    pub fn parse(
        kind: GameKind,
        size: u8,
        text: &str,
        mode: PatternMode,
    ) -> std::result::Result<Pattern, PatternError> {
        Ok(Pattern::parse_drawn(kind, size, text, mode)?.reaching(mode))
    }

    /// Reads a pattern as [`Pattern::parse`] does, its points exactly as
    /// written (stones alone keep no region: the pattern editor shows what
    /// was drawn).
    ///
    /// # Errors
    /// As [`Pattern::parse`].
    pub fn parse_drawn(
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
        if text.contains(':') {
            return Pattern::new(kind, size, point_cells(board, text)?);
        }
        if matches!(board, AnyBoard::Hex(_)) {
            return Err(PatternError::RowsOnHexagon);
        }
        let (rows, origin) = match text.split_once('@') {
            Some((rows, at)) => {
                let p = named_point(board, at.trim())?;
                let (c, r) = board.coords(p);
                (rows, (i32::from(c), i32::from(r)))
            }
            None => (text, mode.default_origin()),
        };
        Pattern::new(kind, size, row_cells(board, size, rows, origin)?)
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
    pub(crate) fn bounds(&self) -> ((u8, u8), (u8, u8)) {
        let coords = self.cells.iter().map(|&(p, _)| self.board.coords(p));
        let (c0, r0) = coords
            .clone()
            .fold((u8::MAX, u8::MAX), |(a, b), (c, r)| (a.min(c), b.min(r)));
        let (c1, r1) = coords.fold((0, 0), |(a, b), (c, r)| (a.max(c), b.max(r)));
        ((c0, r0), (c1 - c0 + 1, r1 - r0 + 1))
    }

    /// The pattern named by its stones alone, read for `mode`: in
    /// `corner` mode, when no stone lies on a corner point, the smallest
    /// region holding the stones that reaches a corner point (a box of the
    /// lattice, from the stones to the nearest corner); in `side` mode,
    /// when the stones touch no edge, the smallest such box reaching one
    /// edge and no corner. The region's other points are empty (`.`).
    /// Any other pattern (one with an empty or wildcard cell: its region
    /// is drawn) and any other mode give the pattern unchanged.
    ///
    /// This is how a Go player names a joseki: `X:dd O:cf` in a corner is
    /// the 4-4 stone and the knight's approach with the corner empty.
    pub fn reaching(self, mode: PatternMode) -> Pattern {
        if !self.cells.iter().all(|(_, c)| c.is_stone()) {
            return self;
        }
        let board = self.board;
        let (drawn, on_corner) = self.edges();
        let targets: Vec<Point> = match mode {
            PatternMode::Corner if !on_corner => board
                .points()
                .filter(|&q| board.edges(q).count_ones() >= 2)
                .collect(),
            PatternMode::Side if drawn == 0 => board
                .points()
                .filter(|&q| board.edges(q).count_ones() == 1)
                .collect(),
            _ => return self,
        };
        let ((c0, r0), (w, h)) = self.bounds();
        let best = targets
            .into_iter()
            .filter_map(|q| {
                let region = self.box_to(q, (c0, r0), (c0 + w - 1, r0 + h - 1));
                let (edges, corner) = edges_of(board, region.iter().copied());
                let fits = match mode {
                    PatternMode::Side => edges.count_ones() == 1 && !corner,
                    _ => true,
                };
                fits.then_some(region)
            })
            .min_by_key(Vec::len);
        let Some(region) = best else {
            return self;
        };
        let mut cells = self.cells;
        for p in region {
            if !cells.iter().any(|&(q, _)| q == p) {
                cells.push((p, Cell::Empty));
            }
        }
        cells.sort_by_key(|(p, _)| p.0);
        Pattern { cells, ..self }
    }

    /// The edges of the board the pattern's points lie on (one bit per
    /// edge, [`AnyBoard::edges`]) and whether one of them is a corner
    /// point (on two edges): what the modes judge a drawing by.
    pub(crate) fn edges(&self) -> (u8, bool) {
        edges_of(self.board, self.cells.iter().map(|&(p, _)| p))
    }

    /// The board's points in the lattice box spanning the box
    /// `(c0, r0)..=(c1, r1)` and the point `q`.
    fn box_to(&self, q: Point, (c0, r0): (u8, u8), (c1, r1): (u8, u8)) -> Vec<Point> {
        let (qc, qr) = self.board.coords(q);
        let (c0, c1) = (i32::from(c0.min(qc)), i32::from(c1.max(qc)));
        let (r0, r1) = (i32::from(r0.min(qr)), i32::from(r1.max(qr)));
        (r0..=r1)
            .flat_map(|r| (c0..=c1).map(move |c| (c, r)))
            .filter_map(|(c, r)| self.board.point_at(c, r))
            .collect()
    }

    /// The mode a pattern is meant for when none is chosen (the pattern
    /// page's `auto`): a pattern whose region is drawn (it has an empty or
    /// wildcard cell) follows its edges: `corner` when it holds a corner
    /// point, `side` when it touches one edge, `centre` when none, else
    /// `anywhere`. A pattern of stones alone is `corner` when the box from
    /// the stones to the nearest corner spans less than half the board
    /// each way (a joseki), `side` when the stones lie on the lines of the
    /// outer third of the board from one edge (the 6th line and below on
    /// 19×19), else `centre`.
    pub fn natural_mode(&self) -> PatternMode {
        let board = self.board;
        let width = board.points().map(|p| board.coords(p).0).max().unwrap_or(0) + 1;
        let (edges, on_corner) = self.edges();
        if !self.cells.iter().all(|(_, c)| c.is_stone()) || edges != 0 {
            return match edges.count_ones() {
                _ if on_corner => PatternMode::Corner,
                0 => PatternMode::Centre,
                1 => PatternMode::Side,
                _ => PatternMode::Anywhere,
            };
        }
        let spans = |region: &Pattern| region.bounds().1;
        let corner = self.clone().reaching(PatternMode::Corner);
        let (w, h) = spans(&corner);
        if corner.cells.len() > self.cells.len() && 2 * w < width && 2 * h < width {
            return PatternMode::Corner;
        }
        // The side: how many lines from the edge the stones reach.
        let side = self.clone().reaching(PatternMode::Side);
        let ((w0, h0), (w, h)) = (spans(self), spans(&side));
        let depth = (w - w0).max(h - h0) + 1;
        if side.cells.len() > self.cells.len() && 3 * depth <= width {
            return PatternMode::Side;
        }
        PatternMode::Centre
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
            // Cells by board point, then written row by row.
            let mut at = vec![Cell::Any; self.board.len()];
            for &(p, c) in &self.cells {
                at[p.index()] = c;
            }
            let mut text = String::with_capacity(usize::from(w + 1) * usize::from(h));
            for j in 0..h {
                if j > 0 {
                    text.push('/');
                }
                for i in 0..w {
                    let p = self
                        .board
                        .point_at(i32::from(c0 + i), i32::from(r0 + j))
                        .expect("inside the bounding box");
                    text.push(at[p.index()].to_char());
                }
            }
            f.write_str(&text)?;
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

/// The edges `points` lie on and whether one of them is a corner point
/// (see [`Pattern::edges`]).
fn edges_of(board: AnyBoard, points: impl Iterator<Item = Point>) -> (u8, bool) {
    points.fold((0, false), |(m, corner), p| {
        let e = board.edges(p);
        (m | e, corner || e.count_ones() >= 2)
    })
}

/// The point of `board` named `name` as records write it.
fn named_point(board: AnyBoard, name: &str) -> std::result::Result<Point, PatternError> {
    board.parse_point(name).map_err(|e| PatternError::Point {
        point: name.to_string(),
        reason: e.to_string(),
    })
}

/// The cells of `text` in the points notation (`VALUE:POINT[,POINT...]`
/// items, see [`Pattern`]) on `board`.
fn point_cells(
    board: AnyBoard,
    text: &str,
) -> std::result::Result<Vec<(Point, Cell)>, PatternError> {
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
            cells.push((named_point(board, name)?, cell));
        }
    }
    Ok(cells)
}

/// The cells of `rows` in the rows notation (`ROW/ROW/...`, see
/// [`Pattern`]) on square `board` of side `size`, the top-left cell at
/// `origin` (column, row); every row as wide as the first, every cell on
/// the board.
fn row_cells(
    board: AnyBoard,
    size: u8,
    rows: &str,
    origin: (i32, i32),
) -> std::result::Result<Vec<(Point, Cell)>, PatternError> {
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
    Ok(cells)
}

fn board_of(kind: GameKind, size: u8) -> std::result::Result<AnyBoard, PatternError> {
    BoardSpec::new(kind, size)
        .and_then(|s| s.board())
        .map_err(|e| PatternError::Board(e.to_string()))
}
