//! The typed record: a game tree read with Keil meaning (record-format.md,
//! "Properties with Keil meaning", "Moves and variations", "Point values").

use std::borrow::Cow;
use std::fmt;

use keil_rules::{Board, Color, HalfPoints, Move, PointError, Position, Ruleset};
use keil_sgf::{
    Decoded, Diagnostic, GameTree, LineIndex, Location, NodeId, ParseOptions, Property, Severity,
    Span,
};

use crate::error::{ErrorKind, RecordError, Result};
use crate::info::{GameDate, GameInfo, GameResult};

/// A Keil record: game information, board, ruleset, setup, and the game
/// tree with every node's move already read.
///
/// A record that reads is not yet a legal game: [`validate`](crate::validate)
/// replays it. The record owns its data (`'static`), so it can cross threads
/// and be stored.
#[derive(Clone, Debug)]
pub struct Record {
    /// Players, date, event, result, …
    pub info: GameInfo,
    /// The board (`SZ`; 7 when absent).
    pub board: &'static Board,
    /// The ruleset (`RU`), with the komi of `KM` (0 when absent).
    pub ruleset: Ruleset,
    /// The setup position (`AB`, `AW`, `AE` in the root), if any.
    pub setup: Option<Position>,
    /// Who moves first: `PL`, else with a setup the colour of the first
    /// move, else Black.
    pub to_move: Color,
    /// The SGF game tree as read (all properties, unknown ones included, and
    /// their spans in the decoded text of the file).
    pub tree: GameTree<'static>,
    /// What deserves a warning (missing `GM`/`SZ`, unusual komi, a setup,
    /// SGF repairs).
    pub warnings: Vec<Warning>,
    /// Index of this game tree in its file, from 0.
    pub game: usize,
    nodes: Vec<NodeData>,
}

/// One node's move as the record wrote it, already read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeMove {
    /// `B` or `W`.
    pub color: Color,
    /// The move, or [`MoveValue::OffBoard`].
    pub value: MoveValue,
    /// Index of the `B`/`W` property among the node's properties.
    pub property: usize,
}

/// A move value: a move, or a point name that is not on the hexagon (an
/// illegal move `off_board`, record-format.md "Point values").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveValue {
    /// A placement, pass or button.
    Move(Move),
    /// A letter + number off the board (`a8` on side 7).
    OffBoard,
}

#[derive(Clone, Copy, Debug)]
struct NodeData {
    mv: Option<NodeMove>,
    line: u32,
    column: u32,
}

/// Something a record says that is allowed but deserves a flag.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// No `GM` in the root: read as Keil (record-format.md).
    MissingGm,
    /// No `SZ` in the root: read as side 7.
    MissingSz,
    /// A fractional komi with the button in use, or a whole komi without it
    /// (keil-rules.md, "Variants").
    Komi {
        /// The komi.
        komi: HalfPoints,
        /// Whether the button is in use.
        button: bool,
    },
    /// The game starts from a setup position (`AB`/`AW`).
    FromSetup,
    /// The SGF reader repaired something (lower-case identifiers, a missing
    /// `)`, …).
    Sgf {
        /// The keil-sgf diagnostic code.
        code: &'static str,
        /// Its message.
        message: String,
        /// Where, in bytes of the decoded text.
        span: Span,
        /// Line, from 1.
        line: u32,
        /// Column, from 1.
        column: u32,
    },
}

impl Warning {
    /// A short stable code: `missing_gm`, `missing_sz`, `komi_warning`,
    /// `from_setup`, or the keil-sgf diagnostic code for SGF repairs.
    pub fn code(&self) -> &'static str {
        match self {
            Warning::MissingGm => "missing_gm",
            Warning::MissingSz => "missing_sz",
            Warning::Komi { .. } => "komi_warning",
            Warning::FromSetup => "from_setup",
            Warning::Sgf { code, .. } => code,
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::MissingGm => f.write_str("no GM property: read as GM[Keil]"),
            Warning::MissingSz => f.write_str("no SZ property: read as SZ[7]"),
            Warning::Komi { komi, button: true } => {
                write!(f, "fractional komi {komi} with the button in use")
            }
            Warning::Komi {
                komi,
                button: false,
            } => {
                write!(f, "whole komi {komi} without the button (button=off)")
            }
            Warning::FromSetup => f.write_str("the game starts from a setup position"),
            Warning::Sgf {
                message,
                line,
                column,
                ..
            } => write!(f, "{line}:{column}: {message}"),
        }
    }
}

/// What the validator reads of a record: a [`Record`], or the parts of
/// one read from a borrowed tree of a [`ParsedFile`] (no copy of the tree).
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pub(crate) tree: &'a GameTree<'a>,
    nodes: &'a [NodeData],
    pub(crate) warnings: &'a [Warning],
    pub(crate) info: &'a GameInfo,
    pub(crate) board: &'static Board,
    pub(crate) ruleset: Ruleset,
    pub(crate) setup: Option<&'a Position>,
    pub(crate) to_move: Color,
}

impl<'a> View<'a> {
    fn of(tree: &'a GameTree<'a>, parts: &'a Parts) -> View<'a> {
        View {
            tree,
            nodes: &parts.nodes,
            warnings: &parts.warnings,
            info: &parts.info,
            board: parts.board,
            ruleset: parts.ruleset,
            setup: parts.setup.as_ref(),
            to_move: parts.to_move,
        }
    }

    pub(crate) fn node_move(&self, id: NodeId) -> Option<NodeMove> {
        self.nodes[id.index()].mv
    }

    pub(crate) fn location(&self, id: NodeId) -> (u32, u32) {
        let n = &self.nodes[id.index()];
        (n.line, n.column)
    }

    pub(crate) fn move_text(&self, id: NodeId) -> Option<String> {
        let m = self.node_move(id)?;
        let p = self.tree.node(id).property(m.property);
        Some(format!("{}[{}]", p.ident(), p.raw_value().unwrap_or("")))
    }

    pub(crate) fn move_span(&self, id: NodeId) -> Span {
        let node = self.tree.node(id);
        match self.node_move(id) {
            Some(m) => node.property(m.property).span(),
            None => node.span(),
        }
    }
}

/// A record without its tree (read from a borrowed tree).
pub(crate) struct Parts {
    info: GameInfo,
    board: &'static Board,
    ruleset: Ruleset,
    setup: Option<Position>,
    to_move: Color,
    warnings: Vec<Warning>,
    nodes: Vec<NodeData>,
}

impl Record {
    pub(crate) fn view(&self) -> View<'_> {
        View {
            tree: &self.tree,
            nodes: &self.nodes,
            warnings: &self.warnings,
            info: &self.info,
            board: self.board,
            ruleset: self.ruleset,
            setup: self.setup.as_ref(),
            to_move: self.to_move,
        }
    }

    /// The move of a node, if it has one.
    ///
    /// # Panics
    /// When `id` is not a node of [`Record::tree`].
    pub fn node_move(&self, id: NodeId) -> Option<NodeMove> {
        self.nodes[id.index()].mv
    }

    /// Line and column (1-based, characters) of a node's `;` in the decoded
    /// text of the file.
    ///
    /// # Panics
    /// When `id` is not a node of [`Record::tree`].
    pub fn location(&self, id: NodeId) -> (u32, u32) {
        self.view().location(id)
    }

    /// A node's move as written, `W[a2]`, `B[]`; `None` for a node without
    /// move.
    pub fn move_text(&self, id: NodeId) -> Option<String> {
        self.view().move_text(id)
    }

    /// The span of a node's `B`/`W` property, or of the node when it has no
    /// move.
    pub fn move_span(&self, id: NodeId) -> Span {
        self.view().move_span(id)
    }

    /// The number of move nodes on the main line.
    pub fn main_line_plies(&self) -> usize {
        self.tree
            .main_line()
            .filter(|(id, _)| self.nodes[id.index()].mv.is_some())
            .count()
    }

    /// Every `C[]` text in the tree, in file order, escapes applied
    /// (borrowed when there was nothing to unescape).
    pub fn comments(&self) -> impl Iterator<Item = Cow<'_, str>> {
        self.tree.nodes().flat_map(|n| {
            n.properties()
                .filter(|p| p.ident() == "C")
                .flat_map(|p| p.values())
                .map(|v| v.into_text())
        })
    }

    /// Every node id of the tree, depth first in file order (the root
    /// first, then each child before its next sibling).
    pub fn node_ids(&self) -> Vec<NodeId> {
        let mut out = Vec::with_capacity(self.tree.len());
        let mut stack = vec![NodeId::ROOT];
        while let Some(id) = stack.pop() {
            out.push(id);
            let first = stack.len();
            stack.extend(self.tree.children(id).map(|(c, _)| c));
            stack[first..].reverse();
        }
        out
    }

    /// The properties that have no Keil meaning (markup, timing, unknown),
    /// with their node. They are kept in [`Record::tree`] and written back by
    /// [`Record::to_sgf`].
    pub fn unknown_properties(&self) -> Vec<(NodeId, Property<'_>)> {
        self.node_ids()
            .into_iter()
            .flat_map(|id| {
                let root = id == NodeId::ROOT;
                self.tree
                    .node(id)
                    .properties()
                    .filter(move |p| !crate::export::is_known(p.ident(), root))
                    .map(move |p| (id, p))
            })
            .collect()
    }
}

/// The part size for [`ParsedFile::in_parts`] that `keil import` and
/// `keil validate` use, bytes: half of keil-sgf's default file-size limit,
/// so that a part holding one very long game still parses.
pub const PART_BYTES: usize = 32 << 20;

/// A decoded and parsed file: gives one [`Record`] per game tree, in any
/// order or in parallel ([`ParsedFile::record`] takes `&self`).
///
/// ```
/// use keil_record::ParsedFile;
/// let decoded = keil_sgf::decode(b"(;GM[Keil]SZ[2];B[a1])(;GM[1])");
/// let file = ParsedFile::new(&decoded);
/// assert_eq!(file.len(), 2);
/// assert!(file.record(0).is_ok());
/// assert_eq!(file.record(1).unwrap_err().code(), "not_keil");
/// ```
#[derive(Debug)]
pub struct ParsedFile<'t> {
    text: &'t str,
    lines: std::sync::Arc<LineIndex<'t>>,
    /// The index in the file of this part's first game tree.
    first_game: usize,
    trees: Vec<GameTree<'t>>,
    diagnostics: Vec<Vec<Diagnostic>>,
    starts: Vec<Location>,
    file_error: Option<Diagnostic>,
}

impl<'t> ParsedFile<'t> {
    /// Parses decoded text (see [`keil_sgf::decode`]) with the default limits.
    pub fn new(decoded: &'t Decoded<'_>) -> ParsedFile<'t> {
        let collection = decoded.parse(&ParseOptions::default());
        ParsedFile::from_collection(&decoded.text, collection)
    }

    /// Parses text that is already UTF-8.
    pub fn from_text(text: &'t str) -> ParsedFile<'t> {
        let collection = keil_sgf::parse(text, &ParseOptions::default());
        ParsedFile::from_collection(text, collection)
    }

    /// Parses a collection part by part, each at most about `max_part`
    /// bytes and starting at a game tree (keil-sgf's `split_collection`),
    /// so that a collection larger than the parser's file-size limit is
    /// read whole, and the trees of one part are dropped before the next is
    /// parsed. Locations (line:column) and game indexes are those of the
    /// whole file ([`ParsedFile::first_game`]). A text within `max_part` is
    /// one part, the same as [`ParsedFile::new`].
    pub fn in_parts(
        decoded: &'t Decoded<'_>,
        max_part: usize,
    ) -> impl Iterator<Item = ParsedFile<'t>> + 't {
        let text: &'t str = &decoded.text;
        let lines = std::sync::Arc::new(LineIndex::new(text));
        let ranges = keil_sgf::split_collection(text, max_part);
        let mut first_game = 0;
        ranges.into_iter().map(move |range| {
            let start = lines.location(range.start);
            let collection = decoded.parse_range(range, &ParseOptions::default());
            let part = ParsedFile::assemble(text, lines.clone(), first_game, start, collection);
            first_game += part.len();
            part
        })
    }

    fn from_collection(text: &'t str, collection: keil_sgf::Collection<'t>) -> ParsedFile<'t> {
        let lines = std::sync::Arc::new(LineIndex::new(text));
        let start = lines.location(0);
        ParsedFile::assemble(text, lines, 0, start, collection)
    }

    /// A part's trees and diagnostics; `start` is where the part begins.
    fn assemble(
        text: &'t str,
        lines: std::sync::Arc<LineIndex<'t>>,
        first_game: usize,
        start: Location,
        collection: keil_sgf::Collection<'t>,
    ) -> ParsedFile<'t> {
        let n = collection.trees.len();
        let mut diagnostics = vec![Vec::new(); n];
        let mut file_error = None;
        for d in collection.diagnostics {
            match d.tree {
                Some(i) if i < n => diagnostics[i].push(d),
                _ if n == 0 => {
                    if d.is_error() && file_error.is_none() {
                        file_error = Some(d);
                    }
                }
                // About the file as a whole: reported with the first tree.
                _ => diagnostics[0].push(d),
            }
        }
        if n == 0 && file_error.is_none() {
            file_error = Some(Diagnostic::new(
                Severity::Error,
                keil_sgf::code::NO_GAME_TREE,
                "the file holds no game tree",
                Span::at(0),
            ));
        }
        // Locations of tree starts, in one pass (trees are in file order).
        let mut starts = Vec::with_capacity(n);
        let mut cursor = Cursor::starting_at(text, &lines, start);
        for t in &collection.trees {
            starts.push(cursor.advance(t.span().start));
        }
        ParsedFile {
            text,
            lines,
            first_game,
            trees: collection.trees,
            diagnostics,
            starts,
            file_error,
        }
    }

    /// The decoded text.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The line index of the text.
    pub fn lines(&self) -> &LineIndex<'t> {
        &self.lines
    }

    /// The index in the file of this part's first game tree (0 unless read
    /// with [`ParsedFile::parts`]): tree `i` of this part is game
    /// `first_game() + i` of the file.
    pub fn first_game(&self) -> usize {
        self.first_game
    }

    /// Number of game trees.
    pub fn len(&self) -> usize {
        self.trees.len()
    }

    /// True when the file holds no game tree (see [`ParsedFile::file_error`]).
    pub fn is_empty(&self) -> bool {
        self.trees.is_empty()
    }

    /// The SGF trees as parsed.
    pub fn trees(&self) -> &[GameTree<'t>] {
        &self.trees
    }

    /// When the file holds no game tree at all: why, as a record error.
    pub fn file_error(&self) -> Option<RecordError> {
        let d = self.file_error.as_ref()?;
        let loc = self.lines.location(d.span.start);
        Some(RecordError {
            kind: Box::new(ErrorKind::Syntax {
                code: d.code,
                message: d.message.clone(),
            }),
            span: d.span,
            line: loc.line as u32,
            column: loc.column as u32,
            game: self.first_game,
            diagnostics: vec![d.clone()],
        })
    }

    /// The record of game tree `index`.
    ///
    /// # Errors
    /// A [`RecordError`] when the tree is not a readable Keil record.
    ///
    /// # Panics
    /// When `index >= self.len()`.
    pub fn record(&self, index: usize) -> Result<Record> {
        let tree = &self.trees[index];
        let parts = self.parts(index)?;
        Ok(Record {
            info: parts.info,
            board: parts.board,
            ruleset: parts.ruleset,
            setup: parts.setup,
            to_move: parts.to_move,
            tree: tree.to_owned_tree(),
            warnings: parts.warnings,
            game: self.first_game + index,
            nodes: parts.nodes,
        })
    }

    /// The verdict on game tree `index`: the same as
    /// `validate(&self.record(index)?).verdict`, without copying the tree
    /// into a record and without building the main line's [`Replay`](crate::Replay).
    ///
    /// # Errors
    /// A [`RecordError`] when the tree is not a readable Keil record.
    ///
    /// # Panics
    /// When `index >= self.len()`.
    pub fn verdict(&self, index: usize) -> Result<crate::Verdict> {
        let parts = self.parts(index)?;
        Ok(crate::validate::verdict_of(View::of(
            &self.trees[index],
            &parts,
        )))
    }

    fn parts(&self, index: usize) -> Result<Parts> {
        read_tree(
            &self.trees[index],
            self.first_game + index,
            &self.diagnostics[index],
            self.starts[index],
            self.text,
            &self.lines,
        )
    }

    /// All records, in file order; one `Err` when the file holds no tree.
    pub fn records(&self) -> Vec<Result<Record>> {
        if let Some(e) = self.file_error() {
            return vec![Err(e)];
        }
        (0..self.len()).map(|i| self.record(i)).collect()
    }
}

/// Reads every game tree of a file (bytes in any charset keil-sgf decodes)
/// as a record, in file order: one entry per game tree, so one broken game
/// does not hide the others. A file with no game tree at all gives one
/// `Err`.
pub fn read_records(bytes: &[u8]) -> Vec<Result<Record>> {
    let decoded = keil_sgf::decode(bytes);
    ParsedFile::new(&decoded).records()
}

/// Turns byte offsets into line:column, moving forward through the text.
struct Cursor<'a> {
    text: &'a [u8],
    lines: &'a LineIndex<'a>,
    pos: usize,
    line: usize,
    column: usize,
}

impl<'a> Cursor<'a> {
    fn starting_at(text: &'a str, lines: &'a LineIndex<'a>, at: Location) -> Cursor<'a> {
        Cursor {
            text: text.as_bytes(),
            lines,
            pos: at.offset,
            line: at.line,
            column: at.column,
        }
    }

    fn advance(&mut self, offset: usize) -> Location {
        let offset = offset.min(self.text.len());
        if offset < self.pos {
            let loc = self.lines.location(offset);
            (self.pos, self.line, self.column) = (loc.offset, loc.line, loc.column);
            return loc;
        }
        let bytes = &self.text[self.pos..offset];
        for (k, &b) in bytes.iter().enumerate() {
            match b {
                b'\n' => {
                    self.line += 1;
                    self.column = 1;
                }
                b'\r' => {
                    let next = self.text.get(self.pos + k + 1);
                    if next != Some(&b'\n') {
                        self.line += 1;
                        self.column = 1;
                    }
                }
                _ if (b as i8) >= -0x40 => self.column += 1,
                _ => {}
            }
        }
        self.pos = offset;
        Location {
            offset,
            line: self.line,
            column: self.column,
        }
    }
}

struct Reader<'r, 't> {
    game: usize,
    diagnostics: &'r [Diagnostic],
    lines: &'r LineIndex<'t>,
}

impl Reader<'_, '_> {
    fn error(&self, kind: ErrorKind, span: Span) -> RecordError {
        let loc = self.lines.location(span.start);
        RecordError {
            kind: Box::new(kind),
            span,
            line: loc.line as u32,
            column: loc.column as u32,
            game: self.game,
            diagnostics: self.diagnostics.to_vec(),
        }
    }
}

fn text_of(p: &Property<'_>) -> String {
    p.value()
        .map_or_else(String::new, |v| v.simple_text().trim().to_string())
}

fn long_text_of(p: &Property<'_>) -> String {
    p.value()
        .map_or_else(String::new, |v| v.text().into_owned())
}

fn read_tree(
    tree: &GameTree<'_>,
    game: usize,
    diagnostics: &[Diagnostic],
    start: Location,
    text: &str,
    lines: &LineIndex<'_>,
) -> Result<Parts> {
    let r = Reader {
        game,
        diagnostics,
        lines,
    };
    if let Some(d) = diagnostics.iter().find(|d| d.is_error()) {
        return Err(r.error(
            ErrorKind::Syntax {
                code: d.code,
                message: d.message.clone(),
            },
            d.span,
        ));
    }
    let mut warnings = Vec::new();
    let root = tree.root();
    let value_span = |p: &Property<'_>| p.value().map_or(p.span(), |v| v.span);

    // GM first: a Go record's SZ[19] should be called Go, not a bad size.
    match root.get("GM") {
        None => warnings.push(Warning::MissingGm),
        Some(p) => {
            let gm = text_of(&p);
            if !gm.eq_ignore_ascii_case("keil") {
                return Err(r.error(ErrorKind::NotKeil { gm }, value_span(&p)));
            }
        }
    }
    let board = match root.get("SZ") {
        None => {
            warnings.push(Warning::MissingSz);
            Board::new(7).expect("side 7 exists")
        }
        Some(p) => {
            let value = p.raw_value().unwrap_or("").trim();
            value
                .parse::<u8>()
                .ok()
                .filter(|_| p.values().len() == 1)
                .and_then(|side| Board::new(side).ok())
                .ok_or_else(|| {
                    r.error(
                        ErrorKind::BadSize {
                            value: value.to_string(),
                        },
                        value_span(&p),
                    )
                })?
        }
    };
    let komi = match root.get("KM") {
        None => HalfPoints(0),
        Some(p) => {
            let value = text_of(&p);
            value
                .parse::<HalfPoints>()
                .map_err(|_| r.error(ErrorKind::BadKomi { value }, value_span(&p)))?
        }
    };
    let mut ruleset = match root.get("RU") {
        None => Ruleset::keil(),
        Some(p) => {
            let value = text_of(&p);
            value.parse::<Ruleset>().map_err(|source| {
                r.error(ErrorKind::BadRuleset { value, source }, value_span(&p))
            })?
        }
    };
    ruleset.komi = komi;
    if ruleset.komi_warning() {
        warnings.push(Warning::Komi {
            komi,
            button: ruleset.button,
        });
    }

    let mut info = GameInfo::default();
    let mut setup_props = Vec::new();
    let mut player = None;
    for p in root.properties() {
        let p = &p;
        let slot = match p.ident() {
            "PB" => &mut info.black,
            "PW" => &mut info.white,
            "BR" => &mut info.black_rank,
            "WR" => &mut info.white_rank,
            "BT" => &mut info.black_team,
            "WT" => &mut info.white_team,
            "EV" => &mut info.event,
            "RO" => &mut info.round,
            "PC" => &mut info.place,
            "GN" => &mut info.game_name,
            "SO" => &mut info.source,
            "US" => &mut info.user,
            "AN" => &mut info.annotator,
            "CP" => &mut info.copyright,
            "ON" => &mut info.opening,
            "TM" => &mut info.time_limit,
            "OT" => &mut info.overtime,
            "GC" => {
                info.comment.get_or_insert_with(|| long_text_of(p));
                continue;
            }
            "DT" => {
                info.date.get_or_insert_with(|| GameDate::new(text_of(p)));
                continue;
            }
            "RE" => {
                if info.result.is_none() {
                    let value = text_of(p);
                    let result = value.parse::<GameResult>().map_err(|source| {
                        r.error(ErrorKind::BadResult { value, source }, value_span(p))
                    })?;
                    info.result = Some(result);
                }
                continue;
            }
            "PL" => {
                player = match text_of(p).as_str() {
                    "B" | "b" | "1" => Some(Color::Black),
                    "W" | "w" | "2" => Some(Color::White),
                    _ => player,
                };
                continue;
            }
            "AB" | "AW" | "AE" => {
                setup_props.push(*p);
                continue;
            }
            _ => continue,
        };
        if slot.is_none() {
            *slot = Some(text_of(p));
        }
    }

    // Setup stones (root only).
    let setup = if setup_props.is_empty() {
        None
    } else {
        let mut black = Vec::new();
        let mut white = Vec::new();
        for p in &setup_props {
            for v in p.values() {
                let value = v.raw.trim();
                let point = board.parse_point(value).map_err(|e| {
                    let (prop, value) = (p.ident().to_string(), value.to_string());
                    let kind = match e {
                        PointError::OffBoard { .. } => ErrorKind::OffBoardSetup {
                            prop,
                            value,
                            side: board.side(),
                        },
                        PointError::Malformed(_) => ErrorKind::MalformedPoint { prop, value },
                    };
                    r.error(kind, v.span)
                })?;
                black.retain(|&q| q != point);
                white.retain(|&q| q != point);
                match p.ident() {
                    "AB" => black.push(point),
                    "AW" => white.push(point),
                    _ => {}
                }
            }
        }
        let position = Position::from_stones(board, black, white, false).map_err(|p| {
            r.error(
                ErrorKind::ConflictingSetup {
                    value: board.name(p).to_string(),
                },
                root.span(),
            )
        })?;
        warnings.push(Warning::FromSetup);
        Some(position)
    };

    // Every node's move, and where every node is.
    let mut nodes = Vec::with_capacity(tree.len());
    let mut cursor = Cursor::starting_at(text, lines, start);
    for (i, node) in tree.nodes().enumerate() {
        let loc = cursor.advance(node.span().start);
        let mut mv: Option<NodeMove> = None;
        let mut setup_prop: Option<Property<'_>> = None;
        for (k, p) in node.properties().enumerate() {
            let color = match p.ident() {
                "B" => Color::Black,
                "W" => Color::White,
                "AB" | "AW" | "AE" => {
                    if i != 0 {
                        return Err(r.error(
                            ErrorKind::SetupNotInRoot {
                                prop: p.ident().to_string(),
                            },
                            p.span(),
                        ));
                    }
                    setup_prop = Some(p);
                    continue;
                }
                _ => continue,
            };
            let written =
                |p: Property<'_>| format!("{}[{}]", p.ident(), p.raw_value().unwrap_or(""));
            if let Some(first) = mv {
                return Err(r.error(
                    ErrorKind::TwoMoves {
                        first: written(node.property(first.property)),
                        second: written(p),
                    },
                    p.span(),
                ));
            }
            let v = p
                .value()
                .expect("the parser never yields a property without value");
            let raw = v.raw.trim();
            let value = if raw.is_empty() || raw.eq_ignore_ascii_case("pass") {
                MoveValue::Move(Move::Pass)
            } else if raw.eq_ignore_ascii_case("button") {
                MoveValue::Move(Move::TakeButton)
            } else {
                match board.parse_point(raw) {
                    Ok(point) => MoveValue::Move(Move::Place(point)),
                    Err(PointError::OffBoard { .. }) => MoveValue::OffBoard,
                    Err(PointError::Malformed(_)) => {
                        return Err(r.error(
                            ErrorKind::MalformedPoint {
                                prop: p.ident().to_string(),
                                value: raw.to_string(),
                            },
                            v.span,
                        ));
                    }
                }
            };
            mv = Some(NodeMove {
                color,
                value,
                property: k,
            });
        }
        if let (Some(m), Some(s)) = (mv, setup_prop) {
            let p = node.property(m.property);
            return Err(r.error(
                ErrorKind::MoveAndSetup {
                    mv: format!("{}[{}]", p.ident(), p.raw_value().unwrap_or("")),
                    setup: s.ident().to_string(),
                },
                p.span(),
            ));
        }
        nodes.push(NodeData {
            mv,
            line: loc.line as u32,
            column: loc.column as u32,
        });
    }

    let to_move = player.unwrap_or_else(|| {
        if setup.is_some() {
            tree.main_line()
                .find_map(|(id, _)| nodes[id.index()].mv.map(|m| m.color))
                .unwrap_or(Color::Black)
        } else {
            Color::Black
        }
    });

    for d in diagnostics {
        let loc = lines.location(d.span.start);
        warnings.push(Warning::Sgf {
            code: d.code,
            message: d.message.clone(),
            span: d.span,
            line: loc.line as u32,
            column: loc.column as u32,
        });
    }

    Ok(Parts {
        info,
        board,
        ruleset,
        setup,
        to_move,
        warnings,
        nodes,
    })
}
