//! Go lines (go-rules.md, "Setup and the player to move", "Placing a
//! stone", "Rulesets", "End of the game and the result", "Verdict of one
//! line"; kee-rules.md for `RU[Kee]`).

use keil_rules::{
    AnyPosition, Color, GoGame, GoPosition, GoRuleset, IllegalReason, Score, SquareBoard, ToMove,
};
use keil_sgf::NodeId;

use super::{
    Illegal, Line, Notes, Played, Reason, Replay, Replayer, Rules, Status, Validation, Verdict,
    Winner, agrees, problem, reported, result_mismatch, run_lines,
};
use crate::info::{GameResult, WinBy};
use crate::record::{GoNode, GoSpec, MoveValue, NodeMove, View};

/// A Go game along one line, with what the turn order of the first move
/// needs (go-rules.md, "Turn order" 1).
#[derive(Clone, Debug)]
pub(crate) struct GoLine {
    game: GoGame,
    /// `HA` (free handicap moves from 2 up).
    handicap: u32,
    /// Whether the line reached its first move.
    started: bool,
    /// `PL` before the first move.
    first_player: Option<Color>,
    /// Whether setup came before the first move.
    setup_first: bool,
    /// The initial position (captured at the first move).
    start: Option<GoPosition>,
    /// A setup in the game since the last move.
    setup: Option<GoPosition>,
}

impl Replayer for GoLine {
    #[inline]
    fn step(line: &mut Line<'_, GoLine>, id: NodeId, notes: &mut Notes) -> Option<Played> {
        let record = line.record;
        let data = record.node(id);
        let m = data.mv;
        if m.is_some() {
            line.moves += 1;
        }
        if line.illegal.is_some() {
            return None;
        }
        let extra = record.go_node(data);
        if let Some(ill) = malformed(line, id, m, extra) {
            line.illegal = Some(ill);
            return None;
        }
        let pl = extra.and_then(|x| x.pl);
        let g = &mut line.game;
        if let Some(setup) = extra.and_then(|x| x.setup.as_ref()) {
            let mut position = g.game.position();
            setup.apply(&mut position);
            // With a move in the node, its PL names the player after that
            // move.
            let named = if m.is_some() { None } else { pl };
            g.apply_setup(position, record.location(id), named, notes);
        } else if let (Some(c), None) = (pl, m) {
            if !g.started {
                g.first_player = Some(c);
            }
            g.game.set_to_move(ToMove::Color(c));
        }
        let m = m?;
        g.at_first_move();
        let result = match g.game.check_turn(m.color) {
            Err(e) => Err(e.reason),
            Ok(()) => match m.value {
                MoveValue::Move(mv) => g.game.play_as(m.color, mv).map_err(|e| e.reason),
                _ => Err(IllegalReason::OffBoard),
            },
        };
        match result {
            Ok(outcome) => {
                if let Some(c) = pl {
                    g.game.set_to_move(ToMove::Color(c));
                }
                if outcome.resumed {
                    let (l, column) = record.location(id);
                    notes.resumed.add(l, column);
                }
                Some(Played {
                    mv: m,
                    outcome,
                    setup: g.setup.take().map(|p| Box::new(AnyPosition::Go(p))),
                })
            }
            Err(e) => {
                line.illegal = Some(refused(line, id, m, e));
                None
            }
        }
    }
}

impl GoLine {
    /// Setup in a node at `(line, column)` (go-rules.md, "Setup and the
    /// player to move"): the board becomes `position`, and who moves next
    /// is `named` (the node's `PL`), before the first move also one named
    /// earlier, else either colour. Notes a setup that leaves a group
    /// without liberties, and one in the game.
    fn apply_setup(
        &mut self,
        position: GoPosition,
        (l, column): (u32, u32),
        named: Option<Color>,
        notes: &mut Notes,
    ) {
        if position.groups().iter().any(|g| g.liberties.is_empty()) {
            notes.setup_no_liberties.add(l, column);
        }
        let to_move = if self.started {
            notes.setup_in_game.add(l, column);
            self.setup = Some(position);
            named
        } else {
            self.setup_first = true;
            named.or(self.first_player)
        };
        self.game
            .apply_setup(&position, to_move.map_or(ToMove::Either, ToMove::Color));
    }

    /// At the line's first move: keeps the initial position, and starts
    /// free handicap moves (`HA` from 2 up, without setup or `PL` before).
    #[inline]
    fn at_first_move(&mut self) {
        if !self.started {
            self.started = true;
            self.start = Some(self.game.position());
            if self.handicap >= 2 && !self.setup_first && self.first_player.is_none() {
                self.game.set_handicap_moves(self.handicap);
            }
        }
    }
}

/// What makes node `id` malformed, if anything: a problem of the node
/// (`two_moves_in_node`, `bad_setup`), or a move value that is no move
/// (`bad_move_value`).
#[inline]
fn malformed(
    line: &Line<'_, GoLine>,
    id: NodeId,
    m: Option<NodeMove>,
    extra: Option<&GoNode>,
) -> Option<Illegal> {
    if let Some(p) = extra.and_then(|x| x.problem.as_ref()) {
        let at = (
            line.moves + u32::from(m.is_none()),
            m.map_or(Color::Black, |m| m.color),
        );
        return Some(problem(
            line.record,
            id,
            at,
            p.text.clone(),
            p.reason,
            p.span,
        ));
    }
    let m = m.filter(|m| m.value == MoveValue::Malformed)?;
    Some(line.illegal(id, m, line.moves, Reason::BadMoveValue, Vec::new(), None))
}

/// The illegal move `m` of node `id`, refused by the game for `e`; an
/// `after_end` move says how many passes ended the game.
fn refused(line: &Line<'_, GoLine>, id: NodeId, m: NodeMove, e: IllegalReason) -> Illegal {
    let game = &line.game.game;
    let reason = Reason::of(&e);
    let (plies, kee) = match e {
        IllegalReason::Repetition { plies, kee } => (plies, kee),
        _ => (Vec::new(), None),
    };
    let mut ill = line.illegal(id, m, game.ply() + 1, reason, plies, kee);
    if reason == Reason::AfterEnd {
        ill.end_passes = if game.ruleset() == GoRuleset::Kee {
            4
        } else {
            2
        };
    }
    ill
}

pub(super) fn run(record: View<'_>, spec: &GoSpec, replay: bool) -> Validation {
    let board = match spec.board {
        Ok(board) => board,
        Err(ref e) => return unreadable_board(record, spec, e),
    };
    let line = GoLine {
        game: GoGame::new(board, spec.ruleset, spec.komi),
        handicap: spec.handicap,
        started: false,
        first_player: None,
        setup_first: false,
        start: None,
        setup: None,
    };
    let checked = spec.ruleset.result_checked();
    let mut notes = Notes::default();
    let lines = run_lines(record, line, &mut notes, replay, |var| {
        match var.game.game.is_complete() {
            true => (Status::Complete, checked.then(|| var.game.game.score())),
            false => (Status::Unfinished, None),
        }
    });
    let line = &lines.main;
    let final_position = line.game.game.position();
    let start = line.game.start.unwrap_or(final_position);
    let mut verdict = main_verdict(record, spec, board, line);
    verdict.variations = lines.variations;
    notes.into_warnings(&mut verdict.warnings);
    Validation {
        verdict,
        replay: Some(Replay {
            plies: lines.plies,
            start: AnyPosition::Go(start),
            final_position: AnyPosition::Go(final_position),
        }),
    }
}

/// The verdict fields every Go verdict has.
fn base(record: View<'_>, spec: &GoSpec, size: Option<u8>, moves: u32) -> Verdict {
    let rules = Rules::Go(spec.ruleset, spec.ru_mapped);
    let mut v = Verdict::start(record, rules, size, spec.komi, moves);
    v.handicap = Some(spec.handicap);
    v
}

/// `malformed` (`bad_size`) or `unsupported` (`board_size`): nothing is
/// replayed.
fn unreadable_board(record: View<'_>, spec: &GoSpec, e: &crate::record::SizeError) -> Validation {
    let size = e.value.trim().parse::<u8>().ok();
    let mut v = base(record, spec, size, record.main_line_plies() as u32);
    v.status = e.reason.status();
    let mv = format!("SZ[{}]", e.value);
    let ill = problem(
        record,
        NodeId::ROOT,
        (0, Color::Black),
        mv,
        e.reason,
        e.span,
    );
    v.illegal = Some(ill);
    Validation {
        verdict: v,
        replay: None,
    }
}

fn main_verdict(
    record: View<'_>,
    spec: &GoSpec,
    board: &'static SquareBoard,
    line: &Line<'_, GoLine>,
) -> Verdict {
    let game = &line.game.game;
    let mut v = base(record, spec, Some(board.size()), line.moves);
    if spec.ruleset == GoRuleset::Kee {
        v.superko_breaks = Some(game.superko_breaks().to_vec());
        v.pass_plays = Some(game.pass_plays().to_vec());
    }
    if let Some(illegal) = &line.illegal {
        v.status = illegal.reason.status();
        v.illegal = Some(illegal.clone());
        return v;
    }
    let result = record.info.result;
    if game.is_complete() && spec.ruleset.result_checked() {
        let score: Score = game.score();
        v.score = Some(score);
        v.winner = Some(Winner::of(score.winner()));
        v.margin = Some(score.margin());
        v.status = Status::Complete;
        v.re_checked = true;
        if !agrees(result, (score.winner(), score.margin()), true) {
            v.status = Status::Invalid;
            let ill: Illegal = result_mismatch(record, game.ply(), Color::Black);
            v.illegal = Some(ill);
        }
        return v;
    }
    (v.winner, v.margin) = reported(result);
    v.status = if game.is_complete() {
        Status::Complete
    } else {
        match result {
            Some(GameResult::Win { by, .. }) => match by {
                WinBy::Resign => Status::Resigned,
                WinBy::Time => Status::Time,
                WinBy::Forfeit => Status::Forfeit,
                WinBy::Score(_) | WinBy::FineScore(_) | WinBy::Unspecified => Status::Scored,
            },
            Some(GameResult::Draw) => Status::Scored,
            None | Some(GameResult::Unknown) | Some(GameResult::Void) => Status::Unfinished,
        }
    };
    v
}
