//! Kaomi lines (kaomi-rules.md, "A turn", "Pie rule", "End and result",
//! "Variant Squared", "Verdicts").

use keil_rules::{AnyPosition, IllegalReason, KaomiGame, KaomiPosition};
use keil_sgf::NodeId;

use super::{
    KaomiVerdict, Line, Notes, Played, Replay, Replayer, Rules, Status, Validation, Verdict,
    judge_checked, run_lines, step_move,
};
use crate::record::{KaomiSpec, MoveValue, View};

impl Replayer for KaomiGame {
    #[inline]
    fn step(line: &mut Line<'_, KaomiGame>, id: NodeId, _: &mut Notes) -> Option<Played> {
        step_move(line, id, KaomiGame::ply, |game, m| {
            game.check_turn(m.color).map_err(|e| e.reason)?;
            match m.value {
                MoveValue::Move(mv) => game.play_as(m.color, mv).map_err(|e| e.reason),
                MoveValue::OffBoard | MoveValue::Malformed => Err(IllegalReason::OffBoard),
            }
        })
    }

    fn kaomi_position(&self) -> Option<String> {
        Some(notation(self))
    }
}

/// The board with the player to move, unless it is full.
fn notation(game: &KaomiGame) -> String {
    let to_move = (!game.is_over()).then(|| game.to_move());
    game.position().to_notation(to_move)
}

pub(super) fn run(record: View<'_>, spec: &KaomiSpec, replay: bool) -> Validation {
    let game = KaomiGame::new(spec.board, spec.ruleset, spec.komi);
    let lines = run_lines(
        record,
        game,
        &mut Notes::default(),
        replay,
        |var| match var.game.result() {
            Some(r) => (Status::Complete, Some(r.as_score())),
            None => (Status::Unfinished, None),
        },
    );
    let line = &lines.main;
    let game = &line.game;
    let size = Some(spec.board.size());
    let mut v = Verdict::start(
        record,
        Rules::Kaomi(spec.ruleset),
        size,
        spec.komi,
        line.moves,
    );
    v.komi_warning = spec.komi_warning;
    let result = game.result();
    if let Some(illegal) = &line.illegal {
        v.status = Status::Invalid;
        v.illegal = Some(illegal.clone());
    } else {
        let end = result.as_ref().map(|r| (r.as_score(), r.winner, r.margin));
        let last = game.to_move().opposite();
        judge_checked(record, &mut v, end, game.ply(), last);
    }
    v.kaomi = Some(KaomiVerdict {
        swapped: game.swapped(),
        last_stone: result
            .as_ref()
            .filter(|_| line.illegal.is_none())
            .and(game.last_placer()),
        result: if line.illegal.is_none() { result } else { None },
        position: notation(game),
    });
    v.variations = lines.variations;
    Validation {
        verdict: v,
        replay: Some(Replay {
            plies: lines.plies,
            start: AnyPosition::Kaomi(KaomiPosition::empty(spec.board)),
            final_position: AnyPosition::Kaomi(game.position()),
        }),
    }
}
