//! `AnyGame::owned_points` names exactly the empty points the score counts
//! for each colour, for every game kind, along played games.

use keil_rules::{
    AnyGame, AnyRuleset, BoardSpec, Color, GameKind, GoRuleset, HalfPoints, Move, Ruleset, ToMove,
};

fn check_along_a_game(spec: BoardSpec, rules: AnyRuleset) {
    let mut game = AnyGame::new(spec, rules, None, ToMove::Color(Color::Black)).unwrap();
    let mut seed = 12345u64;
    for _ in 0..60 {
        let owned = game.owned_points();
        let tally = game.score().tally;
        for c in [Color::Black, Color::White] {
            let n = owned.iter().filter(|o| o.1 == c).count();
            assert_eq!(n, usize::from(tally.territory[c.index()]), "{spec} {c:?}");
        }
        for &(p, _) in &owned {
            assert_eq!(game.position().get(p), None, "owned points are empty");
        }
        let Some(color) = game.to_move().color() else {
            break;
        };
        let moves: Vec<Move> = game
            .legal_moves(color)
            .into_iter()
            .filter(|m| matches!(m, Move::Place(_)))
            .collect();
        if moves.is_empty() || game.is_over() {
            break;
        }
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let mv = moves[(seed >> 33) as usize % moves.len()];
        game.play_as(color, mv).unwrap();
    }
}

#[test]
fn owned_points_agree_with_the_score() {
    check_along_a_game(
        BoardSpec::new(GameKind::Keil, 4).unwrap(),
        AnyRuleset::Keil(Ruleset::default()),
    );
    check_along_a_game(
        BoardSpec::new(GameKind::Go, 9).unwrap(),
        AnyRuleset::Go {
            ruleset: GoRuleset::default(),
            komi: HalfPoints(0),
        },
    );
}
