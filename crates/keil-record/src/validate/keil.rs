//! Keil lines (keil-rules.md, "A turn", "End and score"; record-format.md,
//! "Validation outcome for one game"; kee-rules.md for `ko=kee`).

use keil_rules::{AnyPosition, Game, IllegalReason, Ko, Position};
use keil_sgf::NodeId;

use super::{
    Line, Notes, Played, Reason, Replay, Replayer, Rules, Status, Validation, Verdict,
    judge_checked, run_lines, step_move,
};
use crate::record::{KeilSpec, MoveValue, View};

impl Replayer for Game {
    #[inline]
    fn step(line: &mut Line<'_, Game>, id: NodeId, _: &mut Notes) -> Option<Played> {
        let played = step_move(line, id, Game::ply, |game, m| {
            game.check_turn(m.color).map_err(|e| e.reason)?;
            match m.value {
                MoveValue::Move(mv) => game.play_as(m.color, mv).map_err(|e| e.reason),
                // A Keil record never holds a malformed value (a record error).
                MoveValue::OffBoard | MoveValue::Malformed => Err(IllegalReason::OffBoard),
            }
        });
        if let Some(ill) = &mut line.illegal
            && ill.reason == Reason::AfterEnd
        {
            ill.end_passes = end_passes(line.game.ruleset().ko);
        }
        played
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
    let end = line.game.is_over().then(|| {
        let score = line.game.score();
        (score, score.winner(), score.margin())
    });
    let last = line.game.to_move().opposite();
    judge_checked(record, &mut v, end, line.game.ply(), last);
    v
}
