//! The replay validator (record-format.md, "Validation outcome for one
//! game"; keil-rules.md, "A turn", "End and score").

use std::fmt;

use keil_rules::{
    Color, Game, HalfPoints, IllegalReason, Move, Point, Position, PositionKey, Score, Symmetry,
    TurnOutcome,
};
use keil_sgf::{NodeId, Span};

use crate::info::{GameResult, WinBy};
use crate::record::{MoveValue, NodeMove, Record, View, Warning};

/// The verdict's status for a game (or a variation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Status {
    /// Ended with two passes; the computed score is the result, and a given
    /// `RE` agrees with it.
    Complete,
    /// `RE` says a player resigned; every move is legal and the game did not
    /// end by passes.
    Resigned,
    /// `RE` says a player lost on time (same conditions).
    Time,
    /// `RE` says a player forfeited (same conditions).
    Forfeit,
    /// No end, and no decisive `RE` (or `RE[?]`, or `RE[Void]`).
    Unfinished,
    /// An illegal move, or an `RE` that disagrees with the game.
    Invalid,
}

impl Status {
    /// The JSON code: `complete`, `resigned`, `time`, `forfeit`,
    /// `unfinished`, `invalid`.
    pub fn code(self) -> &'static str {
        match self {
            Status::Complete => "complete",
            Status::Resigned => "resigned",
            Status::Time => "time",
            Status::Forfeit => "forfeit",
            Status::Unfinished => "unfinished",
            Status::Invalid => "invalid",
        }
    }

    /// Every status, in the order of the summary line.
    pub const ALL: [Status; 6] = [
        Status::Complete,
        Status::Resigned,
        Status::Time,
        Status::Forfeit,
        Status::Unfinished,
        Status::Invalid,
    ];
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Why a game is invalid: the fixed list of record-format.md ("Validation
/// outcome"), in the order of precedence where several apply first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// A turn after two passes ended the game (`after_end`).
    AfterEnd,
    /// Not this colour's turn (`wrong_player`).
    WrongPlayer,
    /// A point name off the hexagon (`off_board`).
    OffBoard,
    /// A placement on a stone (`occupied`).
    Occupied,
    /// The placed stone's group has no liberty after removals
    /// (`self_capture`).
    SelfCapture,
    /// The position repeats the end of one of the mover's earlier turns
    /// (`repetition`).
    Repetition,
    /// A pass while the button is in use and untaken (`pass_before_button`).
    PassBeforeButton,
    /// Taking the button a second time (`button_taken`).
    ButtonTaken,
    /// Taking the button with `button=off` (`button_not_in_use`).
    ButtonNotInUse,
    /// `RE` disagrees with how the game ended (`result_mismatch`).
    ResultMismatch,
}

impl Reason {
    /// The JSON code.
    pub fn code(self) -> &'static str {
        match self {
            Reason::AfterEnd => "after_end",
            Reason::WrongPlayer => "wrong_player",
            Reason::OffBoard => "off_board",
            Reason::Occupied => "occupied",
            Reason::SelfCapture => "self_capture",
            Reason::Repetition => "repetition",
            Reason::PassBeforeButton => "pass_before_button",
            Reason::ButtonTaken => "button_taken",
            Reason::ButtonNotInUse => "button_not_in_use",
            Reason::ResultMismatch => "result_mismatch",
        }
    }

    /// Every reason, in the order of [`Reason`].
    pub const ALL: [Reason; 10] = [
        Reason::AfterEnd,
        Reason::WrongPlayer,
        Reason::OffBoard,
        Reason::Occupied,
        Reason::SelfCapture,
        Reason::Repetition,
        Reason::PassBeforeButton,
        Reason::ButtonTaken,
        Reason::ButtonNotInUse,
        Reason::ResultMismatch,
    ];

    fn of(reason: &IllegalReason) -> Reason {
        match reason {
            IllegalReason::GameOver => Reason::AfterEnd,
            IllegalReason::WrongPlayer { .. } => Reason::WrongPlayer,
            IllegalReason::OffBoard => Reason::OffBoard,
            IllegalReason::Occupied => Reason::Occupied,
            IllegalReason::SelfCapture => Reason::SelfCapture,
            IllegalReason::Repetition { .. } => Reason::Repetition,
            IllegalReason::PassBeforeButton => Reason::PassBeforeButton,
            IllegalReason::ButtonTaken => Reason::ButtonTaken,
            IllegalReason::ButtonNotInUse => Reason::ButtonNotInUse,
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

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

/// The first illegal move of a line, or the result mismatch of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Illegal {
    /// The ply of the illegal move (1-based, from the start of the game
    /// along its line). For [`Reason::ResultMismatch`]: the number of plies
    /// of the main line (the JSON gives `null`).
    pub ply: u32,
    /// The colour that moved.
    pub color: Color,
    /// The move as written, `W[a2]`; for a result mismatch the result,
    /// `RE[B+3.5]` (the JSON gives `null`).
    pub mv: String,
    /// Why it is illegal.
    pub reason: Reason,
    /// Line of the node (the root for a result mismatch), from 1.
    pub line: u32,
    /// Column of the node's `;`, from 1, in characters.
    pub column: u32,
    /// For [`Reason::Repetition`]: every earlier ply of the mover whose end
    /// position the move recreates (increasing); empty otherwise.
    pub repeats_plies: Vec<u32>,
    /// The node holding the move (the root for a result mismatch).
    pub node: NodeId,
    /// The move's (or `RE`'s) property span in the decoded text.
    pub span: Span,
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.reason == Reason::ResultMismatch {
            return write!(f, "{} disagrees with the game", self.mv);
        }
        let who = self.color;
        let what = match self.reason {
            Reason::AfterEnd => "the game already ended with two passes".to_string(),
            Reason::WrongPlayer => format!("it is {}'s turn", who.opposite()),
            Reason::OffBoard => "the point is off the board".to_string(),
            Reason::Occupied => "the point is occupied".to_string(),
            Reason::SelfCapture => {
                "self-capture: the stone's group has no liberty after removals".to_string()
            }
            Reason::Repetition => format!(
                "repetition: the position repeats the end of ply {}",
                self.repeats_plies
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Reason::PassBeforeButton => "no pass before the button is taken".to_string(),
            Reason::ButtonTaken => "the button was already taken".to_string(),
            Reason::ButtonNotInUse => "the button is not in use (button=off)".to_string(),
            Reason::ResultMismatch => unreachable!(),
        };
        write!(f, "ply {}: {} is illegal: {what}", self.ply, self.mv)
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
    /// `Complete` (two passes), `Unfinished`, or `Invalid`. `RE` belongs to
    /// the main line and is not checked here.
    pub status: Status,
    /// The first illegal move along the variation. Its ply is below
    /// `branch_ply` when the line was already illegal where the variation
    /// leaves it.
    pub illegal: Option<Illegal>,
    /// The score, when two passes end the variation.
    pub score: Option<Score>,
}

/// The verdict on one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The status of the main line.
    pub status: Status,
    /// The computed score of a game that ended by passes (`Complete`, and
    /// `Invalid` with a result mismatch).
    pub score: Option<Score>,
    /// The winner: computed for a game that ended by passes, named by `RE`
    /// for a resignation, time or forfeit.
    pub winner: Option<Winner>,
    /// The absolute score difference, with [`Verdict::score`].
    pub margin: Option<HalfPoints>,
    /// Why the game is invalid.
    pub illegal: Option<Illegal>,
    /// The record's warnings (missing `GM`/`SZ`, unusual komi, setup, SGF
    /// repairs).
    pub warnings: Vec<Warning>,
    /// Every variation, in file order.
    pub variations: Vec<VariationVerdict>,
    /// The number of move nodes on the main line (the illegal one and any
    /// after it included).
    pub plies: u32,
    /// Whether the komi deserves a warning (see [`Warning::Komi`]).
    pub komi_warning: bool,
}

impl Verdict {
    /// True when the game is not invalid and no variation is.
    pub fn is_valid(&self) -> bool {
        self.status != Status::Invalid
            && self.variations.iter().all(|v| v.status != Status::Invalid)
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
    /// The key of the position after the move.
    pub key: PositionKey,
    /// The canonical key of that position and the symmetry onto it.
    pub canonical: (PositionKey, Symmetry),
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
    pub start: Position,
    /// The position after the last legal move.
    pub final_position: Position,
}

/// A verdict and the replay that produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Validation {
    /// The verdict.
    pub verdict: Verdict,
    /// The main line's replay.
    pub replay: Replay,
}

/// Replays the main line and every variation of a record (each variation from
/// its branch point, in one pass over the tree) and gives the verdict.
///
/// The main line's status follows record-format.md "Validation outcome": an
/// illegal move makes it `invalid` (first illegal ply, move, reason,
/// location, repeated plies); a game ended by two passes is `complete` when
/// a given `RE` (other than `?`) agrees with the computed winner and margin,
/// `invalid` with `result_mismatch` otherwise; a game not ended by passes is
/// `resigned`/`time`/`forfeit` per `RE`, `unfinished` with no `RE`, `RE[?]`
/// or `RE[Void]`, and `invalid` with `result_mismatch` when `RE` claims a
/// counted result or a draw.
///
/// Variations are replayed from a copy of the game at their branch point,
/// so the whole tree costs one replay of each node.
pub fn validate(record: &Record) -> Validation {
    run(record.view(), true)
}

/// The verdict alone (no [`Replay`] plies are built).
pub(crate) fn verdict_of(record: View<'_>) -> Verdict {
    run(record, false).verdict
}

fn run(record: View<'_>, replay: bool) -> Validation {
    let start = record
        .setup
        .copied()
        .unwrap_or_else(|| Position::empty(record.board));
    let game = match record.setup {
        Some(setup) => Game::from_setup(setup, record.ruleset, record.to_move),
        None => Game::new(record.board, record.ruleset),
    };
    let mut found: Vec<Pending> = Vec::new();

    // The main line.
    let mut plies = Vec::new();
    let mut line = Line {
        game,
        record,
        illegal: None,
        moves: 0,
    };
    line.walk(NodeId::ROOT, Vec::new(), &mut found, |id, m, outcome| {
        if !replay {
            return;
        }
        let node = record.tree.node(id);
        let MoveValue::Move(mv) = m.value else {
            unreachable!("an off-board move is never legal")
        };
        let comment = node
            .get("C")
            .and_then(|p| p.value())
            .map(|v| v.text().into_owned());
        plies.push(PlyRecord {
            ply: outcome.ply,
            color: m.color,
            mv,
            captured: outcome.captured,
            key: outcome.key,
            canonical: outcome.canonical,
            comment,
            node: id,
        });
    });
    let final_position = line.game.position();
    let mut verdict = main_verdict(record, &line);

    // The variations, depth first in file order.
    let mut pending: Vec<Pending> = Vec::new();
    found.reverse();
    pending.append(&mut found);
    while let Some(v) = pending.pop() {
        let mut line = Line {
            game: v.game,
            record,
            illegal: v.illegal,
            moves: v.moves,
        };
        line.walk(v.node, v.path.clone(), &mut found, |_, _, _| {});
        let (status, score) = match (&line.illegal, line.game.is_over()) {
            (Some(_), _) => (Status::Invalid, None),
            (None, true) => (Status::Complete, Some(line.game.score())),
            (None, false) => (Status::Unfinished, None),
        };
        verdict.variations.push(VariationVerdict {
            path: v.path,
            branch_ply: v.moves + 1,
            node: v.node,
            status,
            illegal: line.illegal,
            score,
        });
        found.reverse();
        pending.append(&mut found);
    }

    Validation {
        verdict,
        replay: Replay {
            plies,
            start,
            final_position,
        },
    }
}

/// A variation waiting to be replayed.
struct Pending {
    /// Its first node.
    node: NodeId,
    /// The game at the branch point (its state is unused once the line is
    /// illegal).
    game: Game,
    /// The line's first illegal move before the branch point.
    illegal: Option<Illegal>,
    /// Move nodes before the branch point.
    moves: u32,
    /// Its path (see [`VariationVerdict::path`]).
    path: Vec<usize>,
}

/// One line being replayed.
struct Line<'r> {
    game: Game,
    record: View<'r>,
    illegal: Option<Illegal>,
    /// Move nodes seen along the line, legal or not.
    moves: u32,
}

impl<'r> Line<'r> {
    /// Follows first children from `id` to a leaf, playing every move until
    /// the first illegal one; every other child met is pushed on `found`
    /// with a copy of the game there. `on_ply` sees each legal move.
    fn walk(
        &mut self,
        mut id: NodeId,
        mut path: Vec<usize>,
        found: &mut Vec<Pending>,
        mut on_ply: impl FnMut(NodeId, NodeMove, TurnOutcome),
    ) {
        let tree = self.record.tree;
        loop {
            if let Some(m) = self.record.node_move(id)
                && let Some(outcome) = self.step(id, m)
            {
                on_ply(id, m, outcome);
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

    /// Plays a node's move; records the first illegal move of the line.
    fn step(&mut self, id: NodeId, m: NodeMove) -> Option<TurnOutcome> {
        self.moves += 1;
        if self.illegal.is_some() {
            return None;
        }
        let result = match self.game.check_turn(m.color) {
            Err(e) => Err((Reason::of(&e.reason), Vec::new())),
            Ok(()) => match m.value {
                MoveValue::OffBoard => Err((Reason::OffBoard, Vec::new())),
                MoveValue::Move(mv) => self.game.play_as(m.color, mv).map_err(|e| {
                    let reason = Reason::of(&e.reason);
                    match e.reason {
                        IllegalReason::Repetition { plies, .. } => (reason, plies),
                        _ => (reason, Vec::new()),
                    }
                }),
            },
        };
        match result {
            Ok(outcome) => Some(outcome),
            Err((reason, repeats_plies)) => {
                let (line, column) = self.record.location(id);
                self.illegal = Some(Illegal {
                    ply: self.game.ply() + 1,
                    color: m.color,
                    mv: self.record.move_text(id).unwrap_or_default(),
                    reason,
                    line,
                    column,
                    repeats_plies,
                    node: id,
                    span: self.record.move_span(id),
                });
                None
            }
        }
    }
}

fn main_verdict(record: View<'_>, line: &Line<'_>) -> Verdict {
    let mut v = Verdict {
        status: Status::Unfinished,
        score: None,
        winner: None,
        margin: None,
        illegal: None,
        warnings: record.warnings.to_vec(),
        variations: Vec::new(),
        plies: line.moves,
        komi_warning: record.ruleset.komi_warning(),
    };
    if let Some(illegal) = &line.illegal {
        v.status = Status::Invalid;
        v.illegal = Some(illegal.clone());
        return v;
    }
    let result = record.info.result;
    let ended = line.game.is_over();
    let agrees = if ended {
        let score = line.game.score();
        let winner = score.winner();
        v.score = Some(score);
        v.winner = Some(Winner::of(winner));
        v.margin = Some(score.margin());
        v.status = Status::Complete;
        match result {
            None | Some(GameResult::Unknown) => true,
            Some(GameResult::Draw) => winner.is_none(),
            Some(GameResult::Win { winner: w, by }) => {
                Some(w) == winner
                    && match by {
                        WinBy::Score(m) => m == score.margin(),
                        WinBy::Unspecified => true,
                        WinBy::Resign | WinBy::Time | WinBy::Forfeit => false,
                    }
            }
            Some(GameResult::Void) => false,
        }
    } else {
        match result {
            None | Some(GameResult::Unknown) | Some(GameResult::Void) => true,
            Some(GameResult::Win { winner, by }) => {
                let status = match by {
                    WinBy::Resign => Status::Resigned,
                    WinBy::Time => Status::Time,
                    WinBy::Forfeit => Status::Forfeit,
                    WinBy::Score(_) | WinBy::Unspecified => Status::Invalid,
                };
                v.status = status;
                v.winner = Some(Winner::of(Some(winner)));
                status != Status::Invalid
            }
            Some(GameResult::Draw) => false,
        }
    };
    if !agrees {
        v.status = Status::Invalid;
        let root = record.tree.root();
        let re = root.get("RE").expect("a result mismatch needs an RE");
        let (line_no, column) = record.location(NodeId::ROOT);
        let loc = re.span();
        v.illegal = Some(Illegal {
            ply: line.game.ply(),
            color: line.game.to_move().opposite(),
            mv: format!("RE[{}]", re.raw_value().unwrap_or("")),
            reason: Reason::ResultMismatch,
            line: line_no,
            column,
            repeats_plies: Vec::new(),
            node: NodeId::ROOT,
            span: loc,
        });
    }
    v
}
