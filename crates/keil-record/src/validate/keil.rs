//! Keil lines (keil-rules.md, "A turn", "End and score"; record-format.md,
//! "Validation outcome for one game"; kee-rules.md for `ko=kee`).

use keil_rules::{AnyPosition, Game, IllegalReason, Ko, Position};
use keil_sgf::NodeId;

use super::{
    Illegal, Line, Notes, Played, Reason, Replay, Replayer, Rules, Status, Validation, Verdict,
    Winner, agrees, result_mismatch, run_lines,
};
use crate::info::{GameResult, WinBy};
use crate::record::{KeilSpec, MoveValue, View};

impl Replayer for Game {
    #[inline]
    fn step(line: &mut Line<'_, Game>, id: NodeId, _: &mut Notes) -> Option<Played> {
        let m = line.record.node_move(id)?;
        line.moves += 1;
        if line.illegal.is_some() {
            return None;
        }
        let result = match line.game.check_turn(m.color) {
            Err(e) => Err(e.reason),
            Ok(()) => match m.value {
                MoveValue::Move(mv) => line.game.play_as(m.color, mv).map_err(|e| e.reason),
                // A Keil record never holds a malformed value (a record error).
                MoveValue::OffBoard | MoveValue::Malformed => Err(IllegalReason::OffBoard),
            },
        };
        match result {
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
                let mut ill = line.illegal(id, m, line.game.ply() + 1, reason, plies, kee);
                if reason == Reason::AfterEnd {
                    ill.end_passes = end_passes(line.game.ruleset().ko);
                }
                line.illegal = Some(ill);
                None
            }
        }
    }
}

/// Consecutive passes that end a Keil game: 2, or 4 with `ko=kee`.
fn end_passes(ko: Ko) -> u8 {
    match ko {
        Ko::Kee => 4,
        _ => 2,
    }
}

pub(super) fn run(record: View<'_>, spec: &KeilSpec, replay: bool) -> Validation {
    let start = spec.setup.unwrap_or_else(|| Position::empty(spec.board));
    let game = match &spec.setup {
        Some(setup) => Game::from_setup(setup, spec.ruleset, spec.to_move),
        None => Game::new(spec.board, spec.ruleset),
    };
    let lines = run_lines(record, game, &mut Notes::default(), replay, |var| match var
        .game
        .is_over()
    {
        true => (Status::Complete, Some(var.game.score())),
        false => (Status::Unfinished, None),
    });
    let final_position = lines.main.game.position();
    let mut verdict = main_verdict(record, spec, &lines.main);
    verdict.variations = lines.variations;
    Validation {
        verdict,
        replay: Some(Replay {
            plies: lines.plies,
            start: AnyPosition::Keil(start),
            final_position: AnyPosition::Keil(final_position),
        }),
    }
}

fn main_verdict(record: View<'_>, spec: &KeilSpec, line: &Line<'_, Game>) -> Verdict {
    let ruleset = spec.ruleset;
    let size = Some(spec.board.side());
    let mut v = Verdict::start(record, Rules::Keil(ruleset), size, ruleset.komi, line.moves);
    v.komi_warning = ruleset.komi_warning();
    v.superko_breaks = (ruleset.ko == Ko::Kee).then(|| line.game.superko_breaks().to_vec());
    if let Some(illegal) = &line.illegal {
        v.status = Status::Invalid;
        v.illegal = Some(illegal.clone());
        return v;
    }
    let result = record.info.result;
    let ok = if line.game.is_over() {
        let score = line.game.score();
        v.score = Some(score);
        v.winner = Some(Winner::of(score.winner()));
        v.margin = Some(score.margin());
        v.status = Status::Complete;
        v.re_checked = true;
        agrees(result, &score, false)
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
    if !ok {
        v.status = Status::Invalid;
        let ill: Illegal = result_mismatch(record, line.game.ply(), line.game.to_move().opposite());
        v.illegal = Some(ill);
    }
    v
}
