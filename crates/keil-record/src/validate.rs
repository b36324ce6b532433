//! The replay validator (record-format.md, "Validation outcome for one
//! game"; keil-rules.md, "A turn", "End and score"; go-rules.md, "Placing
//! a stone", "Rulesets", "End of the game and the result", "Verdict of one
//! line"; kee-rules.md).
//!
//! One walker replays the main line and every variation of a tree for any
//! game ([`Replayer`]); `keil` and `go` hold each game's turn and verdict.

mod go;
mod kaomi;
mod keil;

use std::fmt;

use keil_rules::{
    AnyPosition, Color, GameKind, GoRuleset, HalfPoints, IllegalReason, KaomiResult, KaomiRuleset,
    KeeCheck, Move, Point, PositionKey, RuMapped, Ruleset, Score, TurnOutcome,
};
use keil_sgf::{NodeId, Span};

use crate::info::{GameResult, WinBy};
use crate::reason::{Reason, Status};
use crate::record::{GameSpec, NodeMove, ParsedFile, Record, Seen, View, Warning};

/// The winner of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Winner {
    /// Black won.
    Black,
    /// White won.
    White,
    /// A draw (jigo).
    Draw,
}

impl Winner {
    /// The JSON code: `B`, `W` or `draw`.
    pub fn code(self) -> &'static str {
        match self {
            Winner::Black => "B",
            Winner::White => "W",
            Winner::Draw => "draw",
        }
    }

    /// From a colour, `None` meaning a draw.
    pub fn of(color: Option<Color>) -> Winner {
        match color {
            Some(Color::Black) => Winner::Black,
            Some(Color::White) => Winner::White,
            None => Winner::Draw,
        }
    }

    /// The winning colour; `None` for a draw.
    pub fn color(self) -> Option<Color> {
        match self {
            Winner::Black => Some(Color::Black),
            Winner::White => Some(Color::White),
            Winner::Draw => None,
        }
    }
}

/// The first illegal move of a line, the first malformed value, the result
/// mismatch of a game, or why its board is not supported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Illegal {
    /// The ply of the illegal move (1-based, from the start of the game
    /// along its line; the ply the next move would have for a malformed
    /// setup). For [`Reason::ResultMismatch`]: the number of plies of the
    /// main line; 0 for a size. The JSON gives `null` unless
    /// [`Reason::has_move`].
    pub ply: u32,
    /// The colour that moved.
    pub color: Color,
    /// The move as written, `W[a2]` (`B[tt]W[tt]` for two moves in a node);
    /// for the others the property, `RE[B+3.5]`, `AB[zz]`, `SZ[25]` (the
    /// JSON gives `null`).
    pub mv: String,
    /// Why it is illegal.
    pub reason: Reason,
    /// Line of the node (the root for a result mismatch or a size), from 1.
    pub line: u32,
    /// Column of the node's `;`, from 1, in characters.
    pub column: u32,
    /// For [`Reason::Repetition`]: the earlier plies whose position (or
    /// situation) the move recreates, increasing, 0 for the initial
    /// position (Keil's own rule: the mover's turns; Go simple ko: ply − 2;
    /// superko and Kee: all of them); empty otherwise.
    pub repeats_plies: Vec<u32>,
    /// For a Kee repetition: which check refused the play (kee-rules.md).
    pub kee_check: Option<KeeCheck>,
    /// For [`Reason::AfterEnd`]: how many consecutive passes ended the game
    /// (2, or 4 under Kee; 0 for Kaomi, which ends when the board is full).
    pub end_passes: u8,
    /// The node holding the move (the root for a result mismatch).
    pub node: NodeId,
    /// The move's (or `RE`'s, or the value's) span in the decoded text.
    pub span: Span,
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.reason {
            Reason::ResultMismatch => return write!(f, "{} disagrees with the game", self.mv),
            Reason::BadSetup => {
                return write!(f, "{} is not a point of the board (bad setup)", self.mv);
            }
            Reason::BadSize => {
                return write!(
                    f,
                    "{} is not a board size: expected a positive number",
                    self.mv
                );
            }
            Reason::BoardSize => {
                return write!(
                    f,
                    "{}: only square boards up to 19x19 are supported",
                    self.mv
                );
            }
            Reason::BadMoveValue => {
                "not a move: expected two letters such as dd, or [] for a pass".to_string()
            }
            Reason::TwoMovesInNode => "a node with two moves".to_string(),
            Reason::AfterEnd if self.end_passes == 0 => "the board is already full".to_string(),
            Reason::AfterEnd => format!(
                "the game already ended with {} passes",
                if self.end_passes == 4 { "four" } else { "two" }
            ),
            Reason::WrongPlayer => format!("it is {}'s turn", self.color.opposite()),
            Reason::OffBoard => "the point is off the board".to_string(),
            Reason::Occupied => "the point is occupied".to_string(),
            Reason::SelfCapture => {
                "self-capture: the stone's group has no liberty after removals".to_string()
            }
            Reason::Repetition => {
                let plies = self
                    .repeats_plies
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ");
                match self.kee_check {
                    None => format!("repetition: the position repeats the end of ply {plies}"),
                    Some(k) => {
                        format!("repetition ({k}): the position repeats the end of ply {plies}")
                    }
                }
            }
            Reason::PassBeforeButton => "no pass before the button is taken".to_string(),
            Reason::ButtonTaken => "the button was already taken".to_string(),
            Reason::ButtonNotInUse => "the button is not in use (button=off)".to_string(),
            Reason::PassNotAllowed => "Kaomi has no pass".to_string(),
            Reason::SwapNotAllowed => "no swap: the pie rule is not in use (pie=off)".to_string(),
            Reason::SwapWrongTurn => {
                "the swap is only allowed on White's first turn (ply 2)".to_string()
            }
        };
        let verb = if self.reason.status() == Status::Malformed {
            "is malformed"
        } else {
            "is illegal"
        };
        write!(f, "ply {}: {} {verb}: {what}", self.ply, self.mv)
    }
}

/// The verdict on one variation (a line that leaves another at a branch
/// point and then follows first children).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariationVerdict {
    /// At each branch point from the root (each node with several children)
    /// on the way to this variation, the index of the child taken; the last
    /// is this variation's index among its siblings (≥ 1).
    pub path: Vec<usize>,
    /// The ply of the variation's first move (1-based, from the start).
    pub branch_ply: u32,
    /// The variation's first node.
    pub node: NodeId,
    /// `Complete` (ended by passes), `Unfinished`, `Invalid` or
    /// `Malformed`. `RE` belongs to the main line and is not checked here.
    pub status: Status,
    /// The first illegal move along the variation. Its ply is below
    /// `branch_ply` when the line was already illegal where the variation
    /// leaves it.
    pub illegal: Option<Illegal>,
    /// The score, when passes end the variation (and, in Go, the ruleset
    /// counts area: tromp-taylor, kee).
    pub score: Option<Score>,
    /// Kaomi: the variation's board after its last legal move (for an
    /// illegal one, the board it was played on), in the position notation
    /// with the player to move unless the board is full; `None` for the
    /// other games.
    pub position: Option<String>,
}

/// The rules a verdict was reached under: the JSON `ruleset` object and
/// `ru_mapped` (kee-vectors README; go-rules.md "RU values").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    /// Keil: the ruleset of `RU` (and the komi of `KM`).
    Keil(Ruleset),
    /// Go: the ruleset, and how `RU` gave it.
    Go(GoRuleset, RuMapped),
    /// Kaomi: the ruleset of `RU`.
    Kaomi(KaomiRuleset),
}

/// What a Kaomi verdict adds (kaomi-vectors README: `swapped`,
/// `last_stone`, `groups_*`, `left_*`, `position`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KaomiVerdict {
    /// Whether the main line holds a legal swap.
    pub swapped: bool,
    /// Complete games: the colour of the last placement.
    pub last_stone: Option<Color>,
    /// Complete games: the final groups, pair removal, scores, winner.
    pub result: Option<KaomiResult>,
    /// The main line's board after its last legal move (for an invalid
    /// line, the board the illegal move was played on), with ` b`/` w`
    /// unless the board is full.
    pub position: String,
}

/// The verdict on one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The game.
    pub kind: GameKind,
    /// The status of the main line.
    pub status: Status,
    /// The computed score of a game that ended by passes where the result
    /// is checked (`Complete`, and `Invalid` with a result mismatch).
    pub score: Option<Score>,
    /// The winner: computed with [`Verdict::score`], else as `RE` names it.
    pub winner: Option<Winner>,
    /// The margin: computed with [`Verdict::score`], else as `RE` gives
    /// it (0 for a draw; `None` for a resignation, `B+`, or a Go margin that
    /// is no whole number of half-points such as `W+0.02`, which is not
    /// rounded: see [`FineMargin`](crate::FineMargin)).
    pub margin: Option<HalfPoints>,
    /// Why the game is invalid, malformed or unsupported.
    pub illegal: Option<Illegal>,
    /// The record's warnings (missing `GM`/`SZ`, unusual komi, setup, SGF
    /// repairs) and the replay's (Go setup in the game, resumption…).
    pub warnings: Vec<Warning>,
    /// Every variation, in file order.
    pub variations: Vec<VariationVerdict>,
    /// The number of move nodes on the main line (the illegal one and any
    /// after it included).
    pub plies: u32,
    /// Whether the komi deserves a warning (Keil; see [`Warning::Komi`]).
    pub komi_warning: bool,
    /// Whether `RE` was compared with the computed result: the line ended
    /// by passes under rules that count it (Keil; Go tromp-taylor, kee).
    pub re_checked: bool,
    /// Kee rules (Go `RU[Kee]`, Keil `ko=kee`): the plies of superko breaks
    /// on the main line up to its first illegal move; `None` otherwise.
    pub superko_breaks: Option<Vec<u32>>,
    /// Go `RU[Kee]`: the plies of plays that left the board unchanged
    /// (counted as passes); `None` otherwise.
    pub pass_plays: Option<Vec<u32>>,
    /// The rules.
    pub rules: Rules,
    /// The board size (Keil side, Go n); `None` for a Go `SZ` that is not
    /// a square size.
    pub size: Option<u8>,
    /// `KM`.
    pub komi: HalfPoints,
    /// Go: `HA` (0 when absent or ignored).
    pub handicap: Option<u32>,
    /// Kaomi: the final groups and the rest of the Kaomi verdict.
    pub kaomi: Option<KaomiVerdict>,
}

impl Verdict {
    /// A verdict on a main line of `plies` move nodes, `unfinished` until
    /// told otherwise, with the record's warnings.
    pub(crate) fn start(
        record: View<'_>,
        rules: Rules,
        size: Option<u8>,
        komi: HalfPoints,
        plies: u32,
    ) -> Verdict {
        Verdict {
            kind: match rules {
                Rules::Keil(_) => GameKind::Keil,
                Rules::Go(..) => GameKind::Go,
                Rules::Kaomi(_) => GameKind::Kaomi,
            },
            status: Status::Unfinished,
            score: None,
            winner: None,
            margin: None,
            illegal: None,
            warnings: record.warnings.to_vec(),
            variations: Vec::new(),
            plies,
            komi_warning: false,
            re_checked: false,
            superko_breaks: None,
            pass_plays: None,
            rules,
            size,
            komi,
            handicap: None,
            kaomi: None,
        }
    }

    /// True when the game is neither invalid, malformed nor unsupported, and
    /// no variation is.
    pub fn is_valid(&self) -> bool {
        !self.status.is_failure() && self.variations.iter().all(|v| !v.status.is_failure())
    }
}

/// One legal turn of the main line, as the archive stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlyRecord {
    /// The ply, from 1.
    pub ply: u32,
    /// Who moved.
    pub color: Color,
    /// The move.
    pub mv: Move,
    /// Stones removed by the move, in board order.
    pub captured: Vec<Point>,
    /// Go: the mover's own stones removed by a legal suicide (the placed
    /// stone among them), in board order; empty otherwise.
    pub suicided: Vec<Point>,
    /// Kaomi: the stones the placement pushed, `(from, to)`, in the order
    /// the rules moved them (applying them one after another gives the
    /// board after the move); empty in Keil and Go.
    pub moved: Vec<(Point, Point)>,
    /// The key of the position after the move.
    pub key: PositionKey,
    /// The canonical key of that position, and the index of a symmetry
    /// onto it (of the board's 12 or 8; see `AnyBoard::transform`).
    pub canonical: (PositionKey, u8),
    /// Go: the position a setup in the game made just before this move
    /// (setup nodes since the previous move, or in this move's node);
    /// `None` almost always (boxed: a ply record stays small, and Keil's
    /// replay copies no board per ply).
    pub setup: Option<Box<AnyPosition>>,
    /// The move node's comment (`C`), escapes applied.
    pub comment: Option<String>,
    /// The move's node.
    pub node: NodeId,
}

/// What the replay of the main line produced, up to (not including) its
/// first illegal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// Every legal ply of the main line.
    pub plies: Vec<PlyRecord>,
    /// The position before the first move (the setup, or the empty board).
    pub start: AnyPosition,
    /// The position after the last legal move.
    pub final_position: AnyPosition,
}

/// A verdict and the replay that produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Validation {
    /// The verdict.
    pub verdict: Verdict,
    /// The main line's replay; `None` for a Go record whose board is
    /// malformed or unsupported (nothing was replayed).
    pub replay: Option<Replay>,
}

/// Replays the main line and every variation of a record (each variation
/// from its branch point, in one pass over the tree) and gives the verdict.
///
/// Keil (record-format.md "Validation outcome"): an illegal move makes the
/// main line `invalid` (first illegal ply, move, reason, location, repeated
/// plies); a game ended by passes is `complete` when a given `RE` (other
/// than `?`) agrees with the computed winner and margin, `invalid` with
/// `result_mismatch` otherwise; a game not ended by passes is
/// `resigned`/`time`/`forfeit` per `RE`, `unfinished` with no `RE`, `RE[?]`
/// or `RE[Void]`, and `invalid` with `result_mismatch` when `RE` claims a
/// counted result or a draw.
///
/// Go (go-rules.md "Verdict of one line"): the same, except that `RE` is
/// compared only under tromp-taylor and kee (area score), a game not ended
/// by passes whose `RE` gives a score, `B+` or a draw is `scored`, and a
/// value that means nothing makes the line `malformed` (an unsupported
/// board: `unsupported`).
///
/// Variations are replayed from a copy of the game at their branch point,
/// so the whole tree costs one replay of each node.
pub fn validate(record: &Record) -> Validation {
    run(record.view(), true)
}

/// A parsed file's verdicts, read straight from its borrowed trees.
impl ParsedFile<'_> {
    /// The verdict on game tree `index`: the same as
    /// `validate(&self.record(index)?).verdict`, without copying the tree
    /// into a record and without building the main line's [`Replay`].
    ///
    /// # Errors
    /// A [`RecordError`](crate::error::RecordError) when the tree is not a
    /// readable record.
    ///
    /// # Panics
    /// When `index >= self.len()`.
    pub fn verdict(&self, index: usize) -> crate::error::Result<Verdict> {
        let parts = self.parts(index)?;
        Ok(run(View::of(&self.trees()[index], &parts), false).verdict)
    }
}

fn run(record: View<'_>, replay: bool) -> Validation {
    match record.spec {
        GameSpec::Keil(spec) => keil::run(record, spec, replay),
        GameSpec::Go(spec) => go::run(record, spec, replay),
        GameSpec::Kaomi(spec) => kaomi::run(record, spec, replay),
    }
}

/// A legal move as the walker reports it.
pub(crate) struct Played {
    /// The node's move.
    pub(crate) mv: NodeMove,
    /// What the engine said.
    pub(crate) outcome: TurnOutcome,
    /// Go: a setup in the game just before the move.
    pub(crate) setup: Option<Box<AnyPosition>>,
}

/// Warnings found while replaying (Go), each counted once per node.
#[derive(Default)]
pub(crate) struct Notes {
    pub(crate) setup_in_game: Seen,
    pub(crate) setup_no_liberties: Seen,
    pub(crate) resumed: Seen,
}

impl Notes {
    fn into_warnings(self, out: &mut Vec<Warning>) {
        if let Some(at) = self.setup_in_game.get() {
            out.push(Warning::SetupInGame { at });
        }
        if let Some(at) = self.setup_no_liberties.get() {
            out.push(Warning::SetupNoLiberties { at });
        }
        if let Some(at) = self.resumed.get() {
            out.push(Warning::ResumedAfterPasses { at });
        }
    }
}

/// A game replayed along the lines of a record: Keil's [`keil_rules::Game`]
/// or a Go line.
pub(crate) trait Replayer: Clone {
    /// Plays one node of the line (its setup and `PL`, then its move) and
    /// returns the legal move it made; the first problem is kept in
    /// `line.illegal` and stops the line (later moves are only counted).
    fn step(line: &mut Line<'_, Self>, id: NodeId, notes: &mut Notes) -> Option<Played>;

    /// Kaomi: the board of the line as it stands, for the verdict's
    /// `position`; `None` for the other games.
    fn kaomi_position(&self) -> Option<String> {
        None
    }
}

/// A variation waiting to be replayed.
pub(crate) struct Pending<G> {
    /// Its first node.
    node: NodeId,
    /// The game at the branch point (its state is unused once the line is
    /// illegal).
    game: G,
    /// The line's first illegal move before the branch point.
    illegal: Option<Illegal>,
    /// Move nodes before the branch point.
    moves: u32,
    /// Its path (see [`VariationVerdict::path`]).
    path: Vec<usize>,
}

/// One line being replayed.
pub(crate) struct Line<'r, G> {
    pub(crate) game: G,
    pub(crate) record: View<'r>,
    pub(crate) illegal: Option<Illegal>,
    /// Move nodes seen along the line, legal or not.
    pub(crate) moves: u32,
}

impl<'r, G: Replayer> Line<'r, G> {
    /// Follows first children from `id` to a leaf, playing every node until
    /// the first problem; every other child met is pushed on `found` with a
    /// copy of the game there. `on_ply` sees each legal move.
    fn walk(
        &mut self,
        mut id: NodeId,
        mut path: Vec<usize>,
        found: &mut Vec<Pending<G>>,
        notes: &mut Notes,
        mut on_ply: impl FnMut(NodeId, Played),
    ) {
        let tree = self.record.tree;
        loop {
            if let Some(played) = G::step(self, id, notes) {
                on_ply(id, played);
            }
            let node = tree.node(id);
            let Some(first) = node.first_child() else {
                return;
            };
            if tree.node(first).next_sibling().is_some() {
                for (k, (child, _)) in tree.children(id).enumerate().skip(1) {
                    let mut p = path.clone();
                    p.push(k);
                    found.push(Pending {
                        node: child,
                        game: self.game.clone(),
                        illegal: self.illegal.clone(),
                        moves: self.moves,
                        path: p,
                    });
                }
                path.push(0);
            }
            id = first;
        }
    }

    /// The illegal move `id` makes, for the move reasons.
    pub(crate) fn illegal(
        &self,
        id: NodeId,
        m: NodeMove,
        ply: u32,
        reason: Reason,
        repeats_plies: Vec<u32>,
        kee_check: Option<KeeCheck>,
    ) -> Illegal {
        let mv = self.record.move_text(id).unwrap_or_default();
        let span = self.record.move_span(id);
        let mut ill = problem(self.record, id, (ply, m.color), mv, reason, span);
        ill.repeats_plies = repeats_plies;
        ill.kee_check = kee_check;
        ill
    }
}

/// One node of a game whose turns strictly alternate (Keil, Kaomi): its
/// move, if any, played by `play` (which checks the turn before reading
/// the point, so `after_end` and `wrong_player` come before `off_board`);
/// `ply` is the game's ply before it. The first illegal move is kept in
/// `line.illegal` and stops the line.
pub(crate) fn step_move<G: Replayer>(
    line: &mut Line<'_, G>,
    id: NodeId,
    ply: impl Fn(&G) -> u32,
    play: impl FnOnce(&mut G, NodeMove) -> Result<TurnOutcome, IllegalReason>,
) -> Option<Played> {
    let m = line.record.node_move(id)?;
    line.moves += 1;
    if line.illegal.is_some() {
        return None;
    }
    match play(&mut line.game, m) {
        Ok(outcome) => Some(Played {
            mv: m,
            outcome,
            setup: None,
        }),
        Err(e) => {
            let reason = Reason::of(&e);
            let (plies, kee) = match e {
                IllegalReason::Repetition { plies, kee } => (plies, kee),
                _ => (Vec::new(), None),
            };
            let ill = line.illegal(id, m, ply(&line.game) + 1, reason, plies, kee);
            line.illegal = Some(ill);
            None
        }
    }
}

/// A problem at node `id`: its ply and colour, what is written, why, and
/// where exactly.
pub(crate) fn problem(
    record: View<'_>,
    id: NodeId,
    (ply, color): (u32, Color),
    mv: String,
    reason: Reason,
    span: Span,
) -> Illegal {
    let (line, column) = record.location(id);
    Illegal {
        ply,
        color,
        mv,
        reason,
        line,
        column,
        repeats_plies: Vec::new(),
        kee_check: None,
        end_passes: 0,
        node: id,
        span,
    }
}

/// What [`run_lines`] gives: the main line as it ended, the variations'
/// verdicts, and the main line's legal plies (when asked for).
struct Lines<'r, G> {
    main: Line<'r, G>,
    variations: Vec<VariationVerdict>,
    plies: Vec<PlyRecord>,
}

/// Plays the main line from `game` (keeping a [`PlyRecord`] of each legal
/// move when `replay`), then every variation depth first in file order,
/// each judged by `judge` unless it has a problem.
fn run_lines<'r, G: Replayer>(
    record: View<'r>,
    game: G,
    notes: &mut Notes,
    replay: bool,
    mut judge: impl FnMut(&Line<'r, G>) -> (Status, Option<Score>),
) -> Lines<'r, G> {
    let mut found: Vec<Pending<G>> = Vec::new();
    let mut line = Line {
        game,
        record,
        illegal: None,
        moves: 0,
    };
    let mut plies = Vec::new();
    line.walk(NodeId::ROOT, Vec::new(), &mut found, notes, |id, played| {
        if replay {
            plies.push(ply_record(record, id, played));
        }
    });

    let mut variations = Vec::new();
    let mut pending: Vec<Pending<G>> = Vec::new();
    found.reverse();
    pending.append(&mut found);
    while let Some(v) = pending.pop() {
        let mut var = Line {
            game: v.game,
            record,
            illegal: v.illegal,
            moves: v.moves,
        };
        var.walk(v.node, v.path.clone(), &mut found, notes, |_, _| {});
        let (status, score) = match &var.illegal {
            Some(ill) => (ill.reason.status(), None),
            None => judge(&var),
        };
        variations.push(VariationVerdict {
            path: v.path,
            branch_ply: v.moves + 1,
            node: v.node,
            status,
            illegal: var.illegal,
            score,
            position: var.game.kaomi_position(),
        });
        found.reverse();
        pending.append(&mut found);
    }
    Lines {
        main: line,
        variations,
        plies,
    }
}

/// A replay's ply record for a legal move of the main line.
fn ply_record(record: View<'_>, id: NodeId, played: Played) -> PlyRecord {
    let Played { mv, outcome, setup } = played;
    let crate::record::MoveValue::Move(m) = mv.value else {
        unreachable!("only a move is ever legal")
    };
    let comment = record
        .tree
        .node(id)
        .get("C")
        .and_then(|p| p.value())
        .map(|v| v.text().into_owned());
    PlyRecord {
        ply: outcome.ply,
        color: mv.color,
        mv: m,
        captured: outcome.captured,
        suicided: outcome.suicided,
        moved: outcome.moved,
        key: outcome.key,
        canonical: (outcome.canonical.0, outcome.canonical_sym),
        setup,
        comment,
        node: id,
    }
}

/// What a result says of the winner and margin, as written (go-rules.md:
/// "otherwise as RE reports them"): a draw has margin 0; a margin that is
/// no whole number of half-points (`W+0.02`) is not rounded into one, so
/// it gives the winner and no margin ([`crate::FineMargin`]).
fn reported(result: Option<GameResult>) -> (Option<Winner>, Option<HalfPoints>) {
    match result {
        Some(GameResult::Win { winner, by }) => (
            Some(Winner::of(Some(winner))),
            match by {
                WinBy::Score(m) => Some(m),
                _ => None,
            },
        ),
        Some(GameResult::Draw) => (Some(Winner::Draw), Some(HalfPoints(0))),
        _ => (None, None),
    }
}

/// Whether a checked result agrees with a computed winner (`None`: a
/// draw) and margin (record-format.md "complete"; go-rules.md "End of the
/// game and the result"; kaomi-rules.md "Verdicts"). `void`: what
/// `RE[Void]` on a counted game is (Keil, Kaomi: a mismatch; Go: not
/// compared).
fn agrees(
    result: Option<GameResult>,
    (winner, margin): (Option<Color>, HalfPoints),
    void: bool,
) -> bool {
    match result {
        None | Some(GameResult::Unknown) => true,
        Some(GameResult::Draw) => winner.is_none(),
        Some(GameResult::Win { winner: w, by }) => {
            Some(w) == winner
                && match by {
                    WinBy::Score(m) => m == margin,
                    // Computed margins are whole numbers of half-points.
                    WinBy::FineScore(_) => false,
                    WinBy::Unspecified => true,
                    WinBy::Resign | WinBy::Time | WinBy::Forfeit => false,
                }
        }
        Some(GameResult::Void) => void,
    }
}

/// The verdict of a main line without an illegal move, in a game whose
/// result is always computed at its end (Keil, Kaomi; record-format.md
/// "Validation outcome", kaomi-rules.md "Verdicts"): `end` is the computed
/// score, winner (`None`: a draw) and margin when the game is over. Over:
/// `complete`, and `RE` must agree. Not over: `resigned`/`time`/`forfeit`
/// per `RE`, `unfinished` without a decisive `RE`, and a score, `B+` or a
/// draw is `result_mismatch`. `ply` and `last` (the colour of the last
/// move) place a mismatch.
pub(crate) fn judge_checked(
    record: View<'_>,
    v: &mut Verdict,
    end: Option<(Score, Option<Color>, HalfPoints)>,
    ply: u32,
    last: Color,
) {
    let result = record.info.result;
    let ok = if let Some((score, winner, margin)) = end {
        v.score = Some(score);
        v.winner = Some(Winner::of(winner));
        v.margin = Some(margin);
        v.status = Status::Complete;
        v.re_checked = true;
        agrees(result, (winner, margin), false)
    } else {
        match result {
            None | Some(GameResult::Unknown) | Some(GameResult::Void) => true,
            Some(GameResult::Win { winner, by }) => {
                let status = match by {
                    WinBy::Resign => Status::Resigned,
                    WinBy::Time => Status::Time,
                    WinBy::Forfeit => Status::Forfeit,
                    WinBy::Score(_) | WinBy::FineScore(_) | WinBy::Unspecified => Status::Invalid,
                };
                v.status = status;
                // A score or `B+` for a game that was not scored names no
                // winner of the game (kaomi-vectors: `winner` null).
                if status != Status::Invalid {
                    v.winner = Some(Winner::of(Some(winner)));
                }
                status != Status::Invalid
            }
            Some(GameResult::Draw) => false,
        }
    };
    if !ok {
        v.status = Status::Invalid;
        v.illegal = Some(result_mismatch(record, ply, last));
    }
}

/// The `result_mismatch` of a game whose main line ended with `ply` plies.
fn result_mismatch(record: View<'_>, ply: u32, color: Color) -> Illegal {
    let root = record.tree.root();
    let re = root.get("RE").expect("a result mismatch needs an RE");
    let mv = format!("RE[{}]", re.raw_value().unwrap_or(""));
    let at = (ply, color);
    problem(
        record,
        NodeId::ROOT,
        at,
        mv,
        Reason::ResultMismatch,
        re.span(),
    )
}
