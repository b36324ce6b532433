//! The typed record: a game tree read with the meaning of its game, chosen
//! by `GM` (record-format.md, the table at the top and the `GM` row): Keil
//! (record-format.md, "Properties with Keil meaning", "Moves and
//! variations", "Point values") or Go (go-rules.md).

mod go;
mod kaomi;
mod keil;

use std::borrow::Cow;
use std::fmt;
use std::path::Path;

use keil_rules::{
    Board, BoardSpec, Color, GameKind, GoPosition, GoRuleset, HalfPoints, KaomiRuleset,
    KaomiVariant, Move, Position, RuMapped, Ruleset, SquareBoard, ToMove,
};
use keil_sgf::{
    Decoded, Diagnostic, GameTree, LineIndex, Location, Node, NodeId, ParseOptions, Property,
    Severity, Span,
};

pub(crate) use go::GoNode;

use crate::error::{ErrorKind, RecordError, Result};
use crate::info::{GameDate, GameInfo, GameResult};
use crate::properties::is_known;
use crate::reason::Reason;

/// A record of any game: game information, the game's own setup
/// ([`GameSpec`]: board, ruleset, komi, setup, first player…), and the game
/// tree with every node's move already read.
///
/// A record that reads is not yet a legal game: [`validate`](crate::validate())
/// replays it. The record owns its data (`'static`), so it can cross threads
/// and be stored.
#[derive(Clone, Debug)]
pub struct Record {
    /// Players, date, event, result, …
    pub info: GameInfo,
    /// What the game is and how it is set up.
    pub spec: GameSpec,
    /// The SGF game tree as read (all properties, unknown ones included, and
    /// their spans in the decoded text of the file).
    pub tree: GameTree<'static>,
    /// What deserves a warning (missing `GM`/`SZ`, unusual komi, a setup,
    /// `PL` or setup beside a move, SGF repairs).
    pub warnings: Vec<Warning>,
    /// Index of this game tree in its file, from 0.
    pub game: usize,
    nodes: Vec<NodeData>,
    go_nodes: Vec<GoNode>,
}

/// The game of a record and what its root sets up.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum GameSpec {
    /// A Keil record (`GM[Keil]`; record-format.md).
    Keil(KeilSpec),
    /// A Go record (`GM[1]`; go-rules.md).
    Go(GoSpec),
    /// A Kaomi record (`GM[Kaomi]`; kaomi-rules.md, "Records").
    Kaomi(KaomiSpec),
}

/// What a Kaomi record's root sets up (kaomi-rules.md, "Records",
/// "Rulesets"): the game always starts from the empty board, Black first.
#[derive(Clone, Debug)]
pub struct KaomiSpec {
    /// The board (`SZ`, 7 when absent).
    pub board: &'static SquareBoard,
    /// The ruleset (`RU`; `Kaomi` when absent).
    pub ruleset: KaomiRuleset,
    /// `KM` (0 when absent), added to White's score in Squared.
    pub komi: HalfPoints,
    /// Whether the komi deserves a warning: Squared with a komi that is
    /// not an even whole number, or a non-zero komi in the standard game.
    pub komi_warning: bool,
}

/// What a Keil record's root sets up (record-format.md, "Properties with
/// Keil meaning").
#[derive(Clone, Debug)]
pub struct KeilSpec {
    /// The board (`SZ`; 7 when absent).
    pub board: &'static Board,
    /// The ruleset (`RU`), with the komi of `KM` (0 when absent).
    pub ruleset: Ruleset,
    /// The setup position (`AB`, `AW`, `AE` in the root), if any.
    pub setup: Option<Position>,
    /// Who moves first: `PL`, else with a setup the colour of the first
    /// move, else Black.
    pub to_move: Color,
}

/// What a Go record's root sets up (go-rules.md, "Board and points",
/// "Setup and the player to move", "RU values").
#[derive(Clone, Debug)]
pub struct GoSpec {
    /// The board (`SZ`, 19 when absent), or why there is none: a size
    /// that is not a positive number (`bad_size`) or one this validator
    /// does not support (`board_size`: larger than 19, or rectangular).
    pub board: std::result::Result<&'static SquareBoard, SizeError>,
    /// The ruleset `RU` maps to.
    pub ruleset: GoRuleset,
    /// How: from `RU`, or by default because `RU` is missing or unknown.
    pub ru_mapped: RuMapped,
    /// `RU` as written.
    pub ru: Option<String>,
    /// `KM` as written, added to White's area score when a result is
    /// checked (0 when absent or unreadable).
    pub komi: HalfPoints,
    /// `KM` as its writer meant it ([`read_komi`](crate::read_komi): Fox's
    /// `KM[750]` is 7.5): what the archive stores, filters and shows (0
    /// when absent or unreadable).
    pub komi_meant: HalfPoints,
    /// `HA` (0 when absent, not an integer, or negative); from 2 up, the
    /// first `handicap` moves are Black's when nothing is set up before
    /// the first move.
    pub handicap: u32,
    /// The main line's initial position: setup in the root and in the
    /// nodes up to its first move; `None` without setup.
    pub setup: Option<GoPosition>,
    /// Who may play the main line's first move: `PL` before it, else
    /// either colour after setup, else Black.
    pub first_player: ToMove,
}

/// Why a Go record has no board (go-rules.md, "Board and points").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeError {
    /// [`Reason::BadSize`] (status `malformed`) or [`Reason::BoardSize`]
    /// (status `unsupported`).
    pub reason: Reason,
    /// `SZ` as written.
    pub value: String,
    /// Where, in the decoded text.
    pub span: Span,
}

impl GameSpec {
    /// The game.
    pub fn kind(&self) -> GameKind {
        match self {
            GameSpec::Keil(_) => GameKind::Keil,
            GameSpec::Go(_) => GameKind::Go,
            GameSpec::Kaomi(_) => GameKind::Kaomi,
        }
    }

    /// The board: its game and size; `None` for a Go record whose size is
    /// malformed or unsupported.
    pub fn board_spec(&self) -> Option<BoardSpec> {
        match self {
            GameSpec::Keil(k) => Some(BoardSpec {
                kind: GameKind::Keil,
                size: k.board.side(),
            }),
            GameSpec::Go(g) => g.board.as_ref().ok().map(|b| BoardSpec {
                kind: GameKind::Go,
                size: b.size(),
            }),
            GameSpec::Kaomi(k) => Some(BoardSpec {
                kind: GameKind::Kaomi,
                size: k.board.size(),
            }),
        }
    }

    /// The komi (`KM`), in half-points.
    pub fn komi(&self) -> HalfPoints {
        match self {
            GameSpec::Keil(k) => k.ruleset.komi,
            GameSpec::Go(g) => g.komi,
            GameSpec::Kaomi(k) => k.komi,
        }
    }
}

/// One node's move as the record wrote it, already read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeMove {
    /// `B` or `W`.
    pub color: Color,
    /// The move, or why it is none.
    pub value: MoveValue,
    /// Index of the `B`/`W` property among the node's properties.
    pub property: usize,
}

/// A move value: a move, or a point name that is not on the board (an
/// illegal move `off_board`, record-format.md "Point values", go-rules.md
/// "Moves"), or (Go) a value that is no move at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveValue {
    /// A placement, pass or button.
    Move(Move),
    /// A point name off the board: `a8` on Keil side 7, `jj` on Go 9×9.
    OffBoard,
    /// Go: a value that is neither empty, `tt` nor two SGF letters (`c4`,
    /// `pass`): the line is `malformed`, `bad_move_value`. (In a Keil
    /// record such a value is a record error.)
    Malformed,
}

/// A node's move, where it is, and (Go) the index of its [`GoNode`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeData {
    pub(crate) mv: Option<NodeMove>,
    pub(crate) line: u32,
    pub(crate) column: u32,
    /// Index into the record's Go nodes, or [`NO_EXTRA`].
    pub(crate) extra: u32,
}

/// [`NodeData::extra`] of a node with nothing but a move.
pub(crate) const NO_EXTRA: u32 = u32::MAX;

/// Where a node warning was first seen, and on how many nodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// Line of the first such node's `;`, from 1.
    pub line: u32,
    /// Its column, from 1, in characters.
    pub column: u32,
    /// How many nodes.
    pub count: u32,
}

impl Seen {
    /// Counts one more node.
    pub(crate) fn add(&mut self, line: u32, column: u32) {
        if self.count == 0 {
            (self.line, self.column) = (line, column);
        }
        self.count += 1;
    }

    /// `Some` once a node was counted.
    pub(crate) fn get(self) -> Option<Seen> {
        (self.count > 0).then_some(self)
    }
}

impl fmt::Display for Seen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}:{}", self.line, self.column)?;
        if self.count > 1 {
            write!(
                f,
                " and {} more node{}",
                self.count - 1,
                plural(self.count - 1)
            )?;
        }
        Ok(())
    }
}

fn plural(n: u32) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Something a record says that is allowed but deserves a flag. Warnings
/// never change a verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// No `GM` in the root: read as this game (record-format.md, `GM` row).
    MissingGm {
        /// The game the record was read as.
        read_as: GameKind,
    },
    /// No `SZ` in a Keil root: read as side 7.
    MissingSz {
        /// The side used.
        size: u8,
    },
    /// A fractional komi with the button in use, or a whole komi without it
    /// (keil-rules.md, "Variants").
    Komi {
        /// The komi.
        komi: HalfPoints,
        /// Whether the button is in use.
        button: bool,
    },
    /// The Keil game starts from a setup position (`AB`/`AW`).
    FromSetup,
    /// Go: setup after the first move of a line, applied there; the
    /// repetition records restart (go-rules.md, "Setup and the player to
    /// move").
    SetupInGame {
        /// The first such node, and how many.
        at: Seen,
    },
    /// Go: setup in a node with a move, applied before the move.
    SetupWithMove {
        /// The first such node, and how many.
        at: Seen,
    },
    /// Go: `PL` in a node with a move, naming the player of the move after.
    PlWithMove {
        /// The first such node, and how many.
        at: Seen,
    },
    /// Go: a setup left a group without liberties; it stays on the board.
    SetupNoLiberties {
        /// The first such node, and how many.
        at: Seen,
    },
    /// Go: `KM` written in a server's convention, read as meant
    /// ([`read_komi`](crate::read_komi): `KM[750]` is 7.5).
    KomiRescaled {
        /// `KM` as written.
        written: String,
        /// The komi meant.
        komi: HalfPoints,
    },
    /// Go: `KM` that reads as no komi (`KM[abc]`, `KM[6.3]`): 0.
    KomiIgnored {
        /// `KM` as written.
        written: String,
    },
    /// Go: `HA` is not an integer; no handicap moves.
    HandicapIgnored {
        /// `HA` as written.
        value: String,
    },
    /// Kaomi: a komi that is not an even whole number in Squared, or a
    /// non-zero komi in the standard game, where it is ignored
    /// (kaomi-rules.md, "Variant Squared", "Rulesets").
    KaomiKomi {
        /// The komi.
        komi: HalfPoints,
        /// The variant.
        variant: KaomiVariant,
    },
    /// Kaomi: an `RE` in no form kaomi-rules.md knows, treated as absent.
    ResultIgnored {
        /// `RE` as written.
        value: String,
    },
    /// Go: a move after two consecutive passes under a ruleset where passes
    /// only stop the game (either colour may play it).
    ResumedAfterPasses {
        /// The first such move's node, and how many.
        at: Seen,
    },
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
    /// `from_setup`, `setup_in_game`, `setup_with_move`, `pl_with_move`,
    /// `setup_no_liberties`, `handicap_ignored`, `komi_rescaled`,
    /// `komi_ignored`, `resumed_after_passes`, or
    /// the keil-sgf diagnostic code for SGF repairs.
    pub fn code(&self) -> &'static str {
        match self {
            Warning::MissingGm { .. } => "missing_gm",
            Warning::MissingSz { .. } => "missing_sz",
            Warning::Komi { .. } | Warning::KaomiKomi { .. } => "komi_warning",
            Warning::ResultIgnored { .. } => "result_ignored",
            Warning::FromSetup => "from_setup",
            Warning::SetupInGame { .. } => "setup_in_game",
            Warning::SetupWithMove { .. } => "setup_with_move",
            Warning::PlWithMove { .. } => "pl_with_move",
            Warning::SetupNoLiberties { .. } => "setup_no_liberties",
            Warning::HandicapIgnored { .. } => "handicap_ignored",
            Warning::KomiRescaled { .. } => "komi_rescaled",
            Warning::KomiIgnored { .. } => "komi_ignored",
            Warning::ResumedAfterPasses { .. } => "resumed_after_passes",
            Warning::Sgf { code, .. } => code,
        }
    }

    /// Where a node warning (Go) was first seen, and how often.
    pub fn seen(&self) -> Option<Seen> {
        match self {
            Warning::SetupInGame { at }
            | Warning::SetupWithMove { at }
            | Warning::PlWithMove { at }
            | Warning::SetupNoLiberties { at }
            | Warning::ResumedAfterPasses { at } => Some(*at),
            _ => None,
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::MissingGm {
                read_as: GameKind::Keil,
            } => f.write_str("no GM property: read as GM[Keil]"),
            Warning::MissingGm {
                read_as: GameKind::Kaomi,
            } => f.write_str("no GM property: read as GM[Kaomi]"),
            Warning::MissingGm { .. } => f.write_str("no GM property: read as GM[1] (Go)"),
            Warning::MissingSz { size } => write!(f, "no SZ property: read as SZ[{size}]"),
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
            Warning::KaomiKomi {
                komi,
                variant: KaomiVariant::Standard,
            } => write!(f, "komi {komi} is ignored in the standard Kaomi game"),
            Warning::KaomiKomi { komi, .. } => {
                write!(f, "komi {komi} is not an even whole number (Squared)")
            }
            Warning::ResultIgnored { value } => {
                write!(f, "RE[{value}] is not a Kaomi result: read as absent")
            }
            Warning::SetupInGame { at } => write!(
                f,
                "setup after the first move ({at}): applied there, the repetition records restart"
            ),
            Warning::SetupWithMove { at } => write!(
                f,
                "setup in a node with a move ({at}): applied before the move"
            ),
            Warning::PlWithMove { at } => write!(
                f,
                "PL in a node with a move ({at}): it names the player of the next move"
            ),
            Warning::SetupNoLiberties { at } => write!(
                f,
                "a setup leaves a group without liberties ({at}): kept as it is"
            ),
            Warning::HandicapIgnored { value } => {
                write!(f, "HA[{value}] is not an integer: no handicap moves")
            }
            Warning::KomiRescaled { written, komi } => write!(
                f,
                "KM[{written}] read as komi {komi} (a server's convention; results are checked against KM as written)"
            ),
            Warning::KomiIgnored { written } => {
                write!(f, "KM[{written}] is not a komi: read as 0")
            }
            Warning::ResumedAfterPasses { at } => write!(
                f,
                "play goes on after two consecutive passes ({at}): either colour may move"
            ),
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
    go_nodes: &'a [GoNode],
    pub(crate) warnings: &'a [Warning],
    pub(crate) info: &'a GameInfo,
    pub(crate) spec: &'a GameSpec,
}

impl<'a> View<'a> {
    pub(crate) fn of(tree: &'a GameTree<'a>, parts: &'a Parts) -> View<'a> {
        View {
            tree,
            nodes: &parts.tree.nodes,
            go_nodes: &parts.tree.go_nodes,
            warnings: &parts.warnings,
            info: &parts.info,
            spec: &parts.tree.spec,
        }
    }

    #[inline]
    pub(crate) fn node(&self, id: NodeId) -> NodeData {
        self.nodes[id.index()]
    }

    #[inline]
    pub(crate) fn node_move(&self, id: NodeId) -> Option<NodeMove> {
        self.nodes[id.index()].mv
    }

    /// A Go node's setup, `PL` and problem, if it has any.
    #[inline]
    pub(crate) fn go_node(&self, data: NodeData) -> Option<&'a GoNode> {
        self.go_nodes.get(data.extra as usize)
    }

    pub(crate) fn location(&self, id: NodeId) -> (u32, u32) {
        let n = &self.nodes[id.index()];
        (n.line, n.column)
    }

    pub(crate) fn move_text(&self, id: NodeId) -> Option<String> {
        let m = self.node_move(id)?;
        Some(written(&self.tree.node(id).property(m.property)))
    }

    pub(crate) fn move_span(&self, id: NodeId) -> Span {
        let node = self.tree.node(id);
        match self.node_move(id) {
            Some(m) => node.property(m.property).span(),
            None => node.span(),
        }
    }

    /// The number of move nodes on the main line.
    pub(crate) fn main_line_plies(&self) -> usize {
        self.tree
            .main_line()
            .filter(|(id, _)| self.nodes[id.index()].mv.is_some())
            .count()
    }
}

/// A property as written, first value only: `B[dd]`, `W[]`.
pub(crate) fn written(p: &Property<'_>) -> String {
    format!("{}[{}]", p.ident(), p.raw_value().unwrap_or(""))
}

/// A property as written, every value: `W[ce][cf]`.
pub(crate) fn written_all(p: &Property<'_>) -> String {
    let mut s = p.ident().to_string();
    for v in p.values() {
        s.push('[');
        s.push_str(&v.raw);
        s.push(']');
    }
    s
}

/// The game-specific part of a record read from a tree.
pub(crate) struct Tree {
    spec: GameSpec,
    nodes: Vec<NodeData>,
    go_nodes: Vec<GoNode>,
}

/// A record without its tree (read from a borrowed tree).
pub(crate) struct Parts {
    info: GameInfo,
    tree: Tree,
    warnings: Vec<Warning>,
}

impl Record {
    pub(crate) fn view(&self) -> View<'_> {
        View {
            tree: &self.tree,
            nodes: &self.nodes,
            go_nodes: &self.go_nodes,
            warnings: &self.warnings,
            info: &self.info,
            spec: &self.spec,
        }
    }

    /// The game.
    pub fn kind(&self) -> GameKind {
        self.spec.kind()
    }

    /// The Keil part, for a Keil record.
    pub fn keil(&self) -> Option<&KeilSpec> {
        match &self.spec {
            GameSpec::Keil(k) => Some(k),
            _ => None,
        }
    }

    /// The Go part, for a Go record.
    pub fn go(&self) -> Option<&GoSpec> {
        match &self.spec {
            GameSpec::Go(g) => Some(g),
            _ => None,
        }
    }

    /// The Kaomi part, for a Kaomi record.
    pub fn kaomi(&self) -> Option<&KaomiSpec> {
        match &self.spec {
            GameSpec::Kaomi(k) => Some(k),
            _ => None,
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
        self.view().main_line_plies()
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

    /// The properties that have no meaning in the record's game (markup,
    /// timing, unknown), with their node. They are kept in
    /// [`Record::tree`] and written back by [`Record::to_sgf`].
    pub fn unknown_properties(&self) -> Vec<(NodeId, Property<'_>)> {
        let kind = self.kind();
        self.node_ids()
            .into_iter()
            .flat_map(|id| {
                let root = id == NodeId::ROOT;
                self.tree
                    .node(id)
                    .properties()
                    .filter(move |p| !is_known(kind, p.ident(), root))
                    .map(move |p| (id, p))
            })
            .collect()
    }
}

/// What a file's name says about its game, for a root without `GM`
/// (record-format.md, `GM` row: a `.keil` file is Keil, a `.kaomi` file
/// Kaomi; `.sgf` and any other name say nothing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NameHint {
    /// No name, or a name that says nothing (`.sgf`).
    #[default]
    None,
    /// The name ends in `.keil`.
    Keil,
    /// The name ends in `.kaomi`.
    Kaomi,
}

impl NameHint {
    /// The hint of a file name or path, by its extension (any case).
    ///
    /// ```
    /// use keil_record::NameHint;
    /// assert_eq!(NameHint::of("games/a.KEIL"), NameHint::Keil);
    /// assert_eq!(NameHint::of("b.kaomi"), NameHint::Kaomi);
    /// assert_eq!(NameHint::of("c.sgf"), NameHint::None);
    /// ```
    pub fn of(name: impl AsRef<Path>) -> NameHint {
        let ext = name.as_ref().extension().and_then(|e| e.to_str());
        match ext {
            Some(e) if e.eq_ignore_ascii_case("keil") => NameHint::Keil,
            Some(e) if e.eq_ignore_ascii_case("kaomi") => NameHint::Kaomi,
            _ => NameHint::None,
        }
    }

    /// Whether a file is a record by its extension: `.keil`, `.kaomi` or
    /// `.sgf` (any case); what a directory search collects.
    ///
    /// ```
    /// use keil_record::NameHint;
    /// assert!(NameHint::is_record_file("a/b.KAOMI"));
    /// assert!(!NameHint::is_record_file("notes.txt"));
    /// ```
    pub fn is_record_file(name: impl AsRef<Path>) -> bool {
        let name = name.as_ref();
        NameHint::of(name) != NameHint::None
            || name
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e.eq_ignore_ascii_case("sgf"))
    }
}

/// The file extension a record of `kind` is written with (record-format.md,
/// "Files"; kaomi-rules.md, "Records"): `keil` for Keil, `kaomi` for
/// Kaomi, `sgf` for Go and any other kind.
///
/// ```
/// use keil_rules::GameKind;
/// assert_eq!(keil_record::file_extension(GameKind::Keil), "keil");
/// assert_eq!(keil_record::file_extension(GameKind::Go), "sgf");
/// assert_eq!(keil_record::file_extension(GameKind::Kaomi), "kaomi");
/// ```
pub fn file_extension(kind: GameKind) -> &'static str {
    match kind {
        GameKind::Keil => "keil",
        GameKind::Kaomi => "kaomi",
        _ => "sgf",
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
/// use keil_record::{NameHint, ParsedFile};
/// use keil_rules::GameKind;
/// let decoded = keil_sgf::decode(b"(;GM[Keil]SZ[2];B[a1])(;GM[1])(;GM[11])(;SZ[2];B[a1])");
/// let file = ParsedFile::new(&decoded);
/// assert_eq!(file.len(), 4);
/// assert_eq!(file.record(0).unwrap().kind(), GameKind::Keil);
/// assert_eq!(file.record(1).unwrap().kind(), GameKind::Go);
/// assert_eq!(file.record(2).unwrap_err().code(), "unknown_game");
/// // No GM: Go, unless the file name says Keil.
/// assert_eq!(file.record(3).unwrap().kind(), GameKind::Go);
/// let file = ParsedFile::new(&decoded).with_hint(NameHint::Keil);
/// assert_eq!(file.record(3).unwrap().kind(), GameKind::Keil);
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
    hint: NameHint,
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
    /// parsed. Each part is parsed as a text of its own ([`ParsedFile::text`]
    /// is the part, spans are offsets into it), so a file of 2 GiB or more
    /// reads whole; locations (line:column) and game indexes are those of
    /// the whole file ([`ParsedFile::first_game`]). A text within
    /// `max_part` is one part, the same as [`ParsedFile::new`].
    pub fn in_parts(
        decoded: &'t Decoded<'_>,
        max_part: usize,
    ) -> impl Iterator<Item = ParsedFile<'t>> + 't {
        let text: &'t str = &decoded.text;
        let ranges = keil_sgf::split_collection(text, max_part);
        let mut first_game = 0;
        // The whole text's line and column where the next part starts.
        let mut at = (1, 1);
        ranges.into_iter().map(move |range| {
            let part_text = &text[range.clone()];
            let lines = std::sync::Arc::new(LineIndex::starting_at(part_text, at.0, at.1));
            let end = lines.location(part_text.len());
            at = (end.line, end.column);
            let start = lines.location(0);
            let collection = decoded.parse_range(range, &ParseOptions::default());
            let part = ParsedFile::assemble(part_text, lines, first_game, start, collection);
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
            hint: NameHint::None,
        }
    }

    /// The same file, reading a root without `GM` by what the file name
    /// says (record-format.md, `GM` row); see [`NameHint::of`].
    pub fn with_hint(mut self, hint: NameHint) -> ParsedFile<'t> {
        self.hint = hint;
        self
    }

    /// The decoded text (of this part, when read with
    /// [`ParsedFile::in_parts`]): the text the trees' spans point into.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The line index of the text (of this part, giving the whole file's
    /// lines and columns).
    pub fn lines(&self) -> &LineIndex<'t> {
        &self.lines
    }

    /// The index in the file of this part's first game tree (0 unless read
    /// with `ParsedFile::parts`): tree `i` of this part is game
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
    /// A [`RecordError`] when the tree is not a readable record.
    ///
    /// # Panics
    /// When `index >= self.len()`.
    pub fn record(&self, index: usize) -> Result<Record> {
        let tree = &self.trees[index];
        let parts = self.parts(index)?;
        Ok(Record {
            info: parts.info,
            spec: parts.tree.spec,
            tree: tree.to_owned_tree(),
            warnings: parts.warnings,
            game: self.first_game + index,
            nodes: parts.tree.nodes,
            go_nodes: parts.tree.go_nodes,
        })
    }

    /// The parts read from game tree `index`.
    pub(crate) fn parts(&self, index: usize) -> Result<Parts> {
        read_tree(
            &self.trees[index],
            self.first_game + index,
            &self.diagnostics[index],
            self.starts[index],
            self.text,
            &self.lines,
            self.hint,
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
///
/// A root without `GM` is Keil when its `RU` begins with `Keil`, and Go
/// otherwise; [`read_records_with`] also reads the file name.
pub fn read_records(bytes: &[u8]) -> Vec<Result<Record>> {
    read_records_with(bytes, NameHint::None)
}

/// [`read_records`], with what the file name says about a root without
/// `GM` ([`NameHint::of`] the name; record-format.md, `GM` row).
pub fn read_records_with(bytes: &[u8], hint: NameHint) -> Vec<Result<Record>> {
    let decoded = keil_sgf::decode(bytes);
    ParsedFile::new(&decoded).with_hint(hint).records()
}

/// Turns byte offsets into line:column, moving forward through the text.
pub(crate) struct Cursor<'a> {
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

    pub(crate) fn advance(&mut self, offset: usize) -> Location {
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

pub(crate) struct Reader<'r, 't> {
    game: usize,
    diagnostics: &'r [Diagnostic],
    lines: &'r LineIndex<'t>,
}

impl Reader<'_, '_> {
    pub(crate) fn error(&self, kind: ErrorKind, span: Span) -> RecordError {
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

pub(crate) fn text_of(p: &Property<'_>) -> String {
    p.value()
        .map_or_else(String::new, |v| v.simple_text().trim().to_string())
}

fn long_text_of(p: &Property<'_>) -> String {
    p.value()
        .map_or_else(String::new, |v| v.text().into_owned())
}

/// The span of a property's first value (the property when it has none).
pub(crate) fn value_span(p: &Property<'_>) -> Span {
    p.value().map_or(p.span(), |v| v.span)
}

/// The game information of a root (record-format.md, "Properties with Keil
/// meaning"; the same properties in Go). `RE` is read by `result`: a
/// Keil record refuses a result it does not know, a Go record keeps it
/// unparsed (`None`).
fn read_info(
    root: &Node<'_>,
    mut result: impl FnMut(&Property<'_>) -> Result<Option<GameResult>>,
) -> Result<GameInfo> {
    let mut info = GameInfo::default();
    let mut re_seen = false;
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
                if !re_seen {
                    re_seen = true;
                    info.result = result(p)?;
                }
                continue;
            }
            _ => continue,
        };
        if slot.is_none() {
            *slot = Some(text_of(p));
        }
    }
    Ok(info)
}

/// The game a root says (record-format.md, the `GM` row), or why it is
/// none this crate reads.
fn game_of(
    r: &Reader<'_, '_>,
    root: &Node<'_>,
    hint: NameHint,
    warnings: &mut Vec<Warning>,
) -> Result<GameKind> {
    if let Some(p) = root.get("GM") {
        let gm = text_of(&p);
        if gm.eq_ignore_ascii_case("keil") {
            return Ok(GameKind::Keil);
        }
        if gm.parse::<u32>() == Ok(1) {
            return Ok(GameKind::Go);
        }
        if gm.eq_ignore_ascii_case("kaomi") {
            return Ok(GameKind::Kaomi);
        }
        return Err(r.error(ErrorKind::UnknownGame { gm }, value_span(&p)));
    }
    let ru = root.get("RU");
    let begins = |word: &str| {
        ru.as_ref().is_some_and(|p| {
            let t = text_of(p);
            t.as_bytes()
                .get(..word.len())
                .is_some_and(|b| b.eq_ignore_ascii_case(word.as_bytes()))
        })
    };
    let kind = if begins("keil") {
        GameKind::Keil
    } else if begins("kaomi") {
        GameKind::Kaomi
    } else {
        match hint {
            NameHint::Keil => GameKind::Keil,
            NameHint::Kaomi => GameKind::Kaomi,
            NameHint::None => GameKind::Go,
        }
    };
    warnings.push(Warning::MissingGm { read_as: kind });
    Ok(kind)
}

/// Reads one game tree: syntax, `GM`, then the game's own reader.
fn read_tree(
    tree: &GameTree<'_>,
    game: usize,
    diagnostics: &[Diagnostic],
    start: Location,
    text: &str,
    lines: &LineIndex<'_>,
    hint: NameHint,
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
    // GM first: a Go record's SZ[19] is Go's, not a bad Keil size.
    let kind = game_of(&r, &root, hint, &mut warnings)?;
    let mut cursor = Cursor::starting_at(text, lines, start);
    let (info, tree) = match kind {
        GameKind::Go => go::read(tree, &mut cursor, &mut warnings),
        GameKind::Kaomi => kaomi::read(&r, tree, &mut cursor, &mut warnings)?,
        _ => keil::read(&r, tree, &mut cursor, &mut warnings)?,
    };
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
        tree,
        warnings,
    })
}
