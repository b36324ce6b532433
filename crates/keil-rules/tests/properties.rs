//! Property tests over random games (keil-rules.md: the invariant, the 12
//! symmetries, and consequence 3 — the two linking readings agree on
//! captures and legality).

use keil_rules::{Board, Game, Linking, Move, Ruleset, Symmetry};
use proptest::prelude::*;

/// Board sides to test: small ones, the usual 7, and 8 (the wide bitset).
fn side() -> impl Strategy<Value = u8> {
    prop::sample::select(vec![2u8, 3, 4, 5, 7, 8])
}

fn ruleset(linking: Linking, button: bool) -> Ruleset {
    Ruleset {
        linking,
        button,
        ..Ruleset::keil()
    }
}

fn linking() -> impl Strategy<Value = Linking> {
    prop_oneof![Just(Linking::SameType), Just(Linking::Unopposed)]
}

/// Plays the game chosen by `choices` (an index into the legal moves at each
/// turn) and calls `each` after every turn with the move played.
fn replay(game: &mut Game, choices: &[u32], mut each: impl FnMut(&Game, &Game, Move)) {
    for &c in choices {
        let legal = game.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mv = legal[c as usize % legal.len()];
        let before = game.clone();
        game.play(mv).expect("a legal move plays");
        each(&before, game, mv);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_group_has_a_liberty_after_every_legal_turn(
        side in side(), linking in linking(), button in any::<bool>(),
        choices in prop::collection::vec(any::<u32>(), 0..90),
    ) {
        let board = Board::new(side).unwrap();
        let mut game = Game::new(board, ruleset(linking, button));
        replay(&mut game, &choices, |_, after, _| {
            for group in after.position().groups(linking) {
                assert!(!group.liberties.is_empty(), "{} has a group without liberty", after.position());
            }
            assert_eq!(after.key(), after.position().key());
            assert_eq!(after.canonical_key().0, after.position().canonical_key().0);
        });
    }

    #[test]
    fn a_symmetric_image_of_a_game_has_the_same_legality_and_score(
        side in side(), linking in linking(), sym in 0u8..12,
        choices in prop::collection::vec(any::<u32>(), 0..70),
    ) {
        let board = Board::new(side).unwrap();
        let s = Symmetry::from_index(sym).unwrap();
        let rules = ruleset(linking, true);
        let mut game = Game::new(board, rules);
        let mut image = Game::new(board, rules);
        replay(&mut game, &choices, |before, after, mv| {
            let mut want: Vec<Move> = before.legal_moves().into_iter().map(|m| m.transform(board, s)).collect();
            let mut got = image.legal_moves();
            want.sort_by_key(|m| format!("{m:?}"));
            got.sort_by_key(|m| format!("{m:?}"));
            assert_eq!(want, got);
            let out = image.play(mv.transform(board, s)).unwrap();
            assert_eq!(image.position(), after.position().transform(s));
            assert_eq!(out.canonical.0, after.canonical_key().0);
            assert_eq!(image.score(), after.score());
        });
    }

    #[test]
    fn the_two_linking_readings_agree_on_captures_and_legality(
        side in side(), choices in prop::collection::vec(any::<u32>(), 0..90),
    ) {
        let board = Board::new(side).unwrap();
        let mut same = Game::new(board, ruleset(Linking::SameType, true));
        let mut unopposed = Game::new(board, ruleset(Linking::Unopposed, true));
        replay(&mut same, &choices, |before, after, mv| {
            assert_eq!(before.legal_moves(), unopposed.legal_moves());
            unopposed.play(mv).unwrap();
            assert_eq!(after.position(), unopposed.position());
        });
    }

    #[test]
    fn notation_round_trips(side in side(), choices in prop::collection::vec(any::<u32>(), 0..60)) {
        let board = Board::new(side).unwrap();
        let mut game = Game::new(board, Ruleset::keil());
        replay(&mut game, &choices, |_, _, _| {});
        let p = game.position();
        let text = p.to_notation(Some(game.to_move()));
        let (back, to_move) = keil_rules::Position::parse_notation(&text).unwrap();
        prop_assert_eq!(back, p);
        prop_assert_eq!(to_move, Some(game.to_move()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn group_at_and_territory_at_agree_with_the_whole_board_analysis(
        side in side(), linking in linking(),
        choices in prop::collection::vec(any::<u32>(), 0..60),
    ) {
        let board = Board::new(side).unwrap();
        let mut game = Game::new(board, ruleset(linking, true));
        replay(&mut game, &choices, |_, _, _| {});
        let position = game.position();
        let groups = position.groups(linking);
        let territories = position.territories(linking);
        for p in board.points() {
            match position.get(p) {
                Some(_) => {
                    let g = game.group_at(p).unwrap();
                    prop_assert!(groups.contains(&g));
                    prop_assert!(game.territory_at(p).is_none());
                }
                None => {
                    let t = game.territory_at(p).unwrap();
                    prop_assert!(territories.contains(&t));
                    prop_assert!(game.group_at(p).is_none());
                    match game.area_at(p).unwrap() {
                        keil_rules::Area::Contested => prop_assert_eq!(t.linked, [true, true]),
                        keil_rules::Area::Territory(a) => prop_assert_eq!(a, t),
                    }
                }
            }
        }
    }
}
