//! One test per rule of keil-rules.md, on hand-made small-board positions.

use keil_rules::{
    Board, Color, Game, HalfPoints, IllegalReason, Ko, Linking, Move, Position, Ruleset, Symmetry,
};

fn board(side: u8) -> &'static Board {
    Board::new(side).unwrap()
}

/// Plays moves written as in a record (`g7`, `pass`, `button`), all legal.
fn play(game: &mut Game, moves: &[&str]) {
    for (i, m) in moves.iter().enumerate() {
        let mv = parse_move(game.board(), m);
        if let Err(e) = game.play(mv) {
            panic!("move {} ({m}) should be legal: {e}", i + 1);
        }
    }
}

fn parse_move(board: &Board, m: &str) -> Move {
    match m {
        "pass" => Move::Pass,
        "button" => Move::TakeButton,
        p => Move::Place(board.parse_point(p).unwrap()),
    }
}

fn rules(ru: &str, komi: i32) -> Ruleset {
    let mut r: Ruleset = ru.parse().unwrap();
    r.komi = HalfPoints(komi);
    r
}

fn pos(side: u8, black: &[&str], white: &[&str]) -> Position {
    let b = board(side);
    let pts = |names: &[&str]| {
        names
            .iter()
            .map(|n| b.parse_point(n).unwrap())
            .collect::<Vec<_>>()
    };
    Position::from_stones(b, pts(black), pts(white), false).unwrap()
}

#[test]
fn edge_pair_links_through_its_single_common_neighbour() {
    let b = board(3);
    let p = |n| b.parse_point(n).unwrap();
    // a1-a2 lies on the edge: b2 is their only common neighbour.
    assert_eq!(b.common_neighbours(p("a1"), p("a2")), vec![p("b2")]);
    let empty_b2 = pos(3, &["a1", "a2"], &[]);
    assert!(!empty_b2.linked(p("a1"), p("a2"), Linking::SameType));
    assert!(empty_b2.linked(p("a1"), p("a2"), Linking::Unopposed));
    let black_b2 = pos(3, &["a1", "a2", "b2"], &[]);
    assert!(black_b2.linked(p("a1"), p("a2"), Linking::SameType));
    let white_b2 = pos(3, &["a1", "a2"], &["b2"]);
    assert!(!white_b2.linked(p("a1"), p("a2"), Linking::SameType));
    assert!(!white_b2.linked(p("a1"), p("a2"), Linking::Unopposed));
    // So a1 and a2 are two groups under same-type, one under unopposed.
    assert_eq!(empty_b2.groups(Linking::SameType).len(), 2);
    assert_eq!(empty_b2.groups(Linking::Unopposed).len(), 1);
}

#[test]
fn stone_empty_links_are_the_same_under_both_readings() {
    // Consequence 1 of keil-rules.md, over every stone-empty pair of many
    // positions of side 3.
    let b = board(3);
    for mask in 0..3u32.pow(7) {
        let mut position = Position::empty(b);
        let mut m = mask;
        for p in b.points().take(7) {
            position.set(
                p,
                match m % 3 {
                    1 => Some(Color::Black),
                    2 => Some(Color::White),
                    _ => None,
                },
            );
            m /= 3;
        }
        for p in b.points() {
            for q in b.neighbours(p) {
                if position.get(p).is_some() && position.get(q).is_none() {
                    assert_eq!(
                        position.linked(p, q, Linking::SameType),
                        position.linked(p, q, Linking::Unopposed),
                        "{position} {p:?} {q:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn corner_stone_is_captured_by_a_broken_stone_empty_link() {
    // keil-rules.md consequence 4: W b2 captures B a1 although b1 and a2
    // stay empty (both of a1's links run through b2).
    let b = board(3);
    assert_eq!(b.neighbours(b.parse_point("a1").unwrap()).count(), 3);
    let mut game = Game::new(b, Ruleset::keil());
    play(&mut game, &["a1"]);
    let out = game.play(parse_move(b, "b2")).unwrap();
    assert_eq!(out.captured, vec![b.parse_point("a1").unwrap()]);
    assert_eq!(game.stone_at(b.parse_point("a1").unwrap()), None);
}

#[test]
fn one_placement_captures_several_groups_at_once() {
    let b = board(3);
    let mut game = Game::new(b, Ruleset::keil());
    play(&mut game, &["c4", "a3", "e5", "b4", "d4", "c1", "d2", "b1"]);
    let before = game.position();
    let (a3, b4) = (b.parse_point("a3").unwrap(), b.parse_point("b4").unwrap());
    let groups = before.groups(Linking::SameType);
    let of = |p| groups.iter().position(|g| g.stones.contains(p)).unwrap();
    assert_ne!(of(a3), of(b4), "a3 and b4 are separate groups");
    let out = game.play(parse_move(b, "b3")).unwrap();
    assert_eq!(out.captured, vec![a3, b4]);
}

#[test]
fn self_capture_is_illegal_and_leaves_the_game_unchanged() {
    let b = board(3);
    let mut game = Game::new(b, Ruleset::keil());
    play(&mut game, &["c3", "b2"]);
    let before = game.position();
    let err = game.play(parse_move(b, "a1")).unwrap_err();
    assert_eq!(err.reason, IllegalReason::SelfCapture);
    assert_eq!((err.ply, err.color), (3, Color::Black));
    assert_eq!(game.position(), before);
    assert_eq!(game.ply(), 2);
    // Occupied comes before any other check.
    let err = game.play(parse_move(b, "b2")).unwrap_err();
    assert_eq!(err.reason, IllegalReason::Occupied);
}

#[test]
fn repeating_the_movers_own_earlier_position_is_illegal() {
    // Vector 00000: side 2, unopposed; W a2 at ply 6 recreates the position
    // at the end of White's ply 4.
    let b = board(2);
    let mut game = Game::new(b, rules("Keil; linking=unopposed", 0));
    play(&mut game, &["button", "c3", "a1", "a2", "b3"]);
    let err = game.play(parse_move(b, "a2")).unwrap_err();
    assert_eq!(
        err.reason,
        IllegalReason::Repetition {
            plies: vec![4],
            kee: None
        }
    );
    assert_eq!(err.reason.code(), "repetition");
    assert_eq!(err.ply, 6);
}

#[test]
fn repeating_only_an_opponents_turn_end_position_is_legal() {
    // Found by search: White's b2 at ply 18 recreates the position at the end
    // of one of Black's turns, but of none of White's own.
    let b = board(2);
    let moves = [
        "b1", "b2", "button", "a1", "pass", "b1", "pass", "a2", "pass", "c3", "pass", "b3", "c2",
        "a2", "b3", "pass", "a1",
    ];
    let mut game = Game::new(b, Ruleset::keil());
    let mut ends = Vec::new();
    for m in moves {
        let mover = game.to_move();
        game.play(parse_move(b, m)).unwrap();
        ends.push((game.position(), mover));
    }
    let mover = game.to_move();
    assert_eq!(mover, Color::White);
    game.play(parse_move(b, "b2"))
        .expect("legal: only Black ended a turn here");
    let now = game.position();
    assert!(ends.iter().any(|(p, c)| *p == now && *c != mover));
    assert!(!ends.iter().any(|(p, c)| *p == now && *c == mover));
}

#[test]
fn button_and_pass_rules() {
    let b = board(3);
    let mut game = Game::new(b, Ruleset::keil());
    assert_eq!(
        game.play(Move::Pass).unwrap_err().reason,
        IllegalReason::PassBeforeButton
    );
    play(&mut game, &["button"]);
    assert_eq!(game.button_holder(), Some(Color::Black));
    assert_eq!(
        game.play(Move::TakeButton).unwrap_err().reason,
        IllegalReason::ButtonTaken
    );
    play(&mut game, &["pass"]);
    // The button flag is part of the position: the same board with and
    // without the button differs.
    assert!(game.position().button_taken());

    let mut off = Game::new(b, rules("Keil; button=off", 1));
    assert_eq!(
        off.play(Move::TakeButton).unwrap_err().reason,
        IllegalReason::ButtonNotInUse
    );
    play(&mut off, &["pass"]);
}

#[test]
fn two_passes_in_a_row_end_the_game_and_nothing_may_follow() {
    let b = board(3);
    let mut game = Game::new(b, Ruleset::keil());
    play(&mut game, &["c3", "button", "pass"]);
    assert!(!game.is_over());
    play(&mut game, &["d4", "pass"]); // a placement breaks the pair
    assert!(!game.is_over());
    let out = game.play(Move::Pass).unwrap();
    assert!(out.ended && game.is_over());
    for mv in [Move::Pass, Move::TakeButton, parse_move(b, "a1")] {
        assert_eq!(game.play(mv).unwrap_err().reason, IllegalReason::GameOver);
    }
    assert!(game.legal_moves().is_empty());
    assert_eq!(
        game.check_turn(Color::Black).unwrap_err().reason,
        IllegalReason::GameOver
    );
}

#[test]
fn wrong_player_is_reported_before_the_move_is_looked_at() {
    let b = board(3);
    let mut game = Game::new(b, Ruleset::keil());
    let err = game.play_as(Color::White, parse_move(b, "c3")).unwrap_err();
    assert_eq!(
        err.reason,
        IllegalReason::WrongPlayer {
            expected: Color::Black
        }
    );
}

#[test]
fn the_two_linking_readings_can_give_different_winners() {
    // keil-rules.md consequence 3: side 2, komi 1: B a1, W b3, B c2, W takes
    // the button, two passes. Same-type B+0.5 (3 to 2.5); unopposed W+0.5
    // (2 to 2.5).
    let moves = ["a1", "b3", "c2", "button", "pass", "pass"];
    let mut same = Game::new(board(2), rules("Keil", 2));
    play(&mut same, &moves);
    let s = same.score();
    assert_eq!((s.black, s.white), (HalfPoints(6), HalfPoints(5)));
    assert_eq!(s.winner(), Some(Color::Black));
    let mut unopposed = Game::new(board(2), rules("Keil linking=unopposed", 2));
    play(&mut unopposed, &moves);
    let s = unopposed.score();
    assert_eq!((s.black, s.white), (HalfPoints(4), HalfPoints(5)));
    assert_eq!(
        (s.winner(), s.margin()),
        (Some(Color::White), HalfPoints(1))
    );
}

#[test]
fn territory_linked_to_no_stone_belongs_to_nobody() {
    let empty = Position::empty(board(3));
    let t = empty.territories(Linking::SameType);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].owner, None);
    let tally = empty.tally(Linking::SameType);
    assert_eq!((tally.unlinked, tally.territory), (19, [0, 0]));
    // A draw: whole komi without the button.
    let s = empty.score(Linking::SameType, HalfPoints(0), None);
    assert_eq!(s.winner(), None);
}

#[test]
fn ruleset_options_parse_and_reject_clearly() {
    let r: Ruleset = "Keil linking=unopposed button=off ko=keil".parse().unwrap();
    assert_eq!((r.linking, r.button), (Linking::Unopposed, false));
    assert_eq!(r.to_string().parse::<Ruleset>().unwrap(), r);
    assert!(
        "Go".parse::<Ruleset>()
            .unwrap_err()
            .to_string()
            .contains("not Keil")
    );
    let e = "Keil; linking=diagonal".parse::<Ruleset>().unwrap_err();
    assert!(e.to_string().contains("same-type or unopposed"), "{e}");
    assert!("Keil; colour=red".parse::<Ruleset>().is_err());
    let kee: Ruleset = "Keil; ko=kee".parse().unwrap();
    assert_eq!(kee.ko, Ko::Kee);
    assert_eq!(
        kee.to_string(),
        "Keil; linking=same-type; button=on; ko=kee"
    );
    assert_eq!(kee.to_string().parse::<Ruleset>().unwrap(), kee);
    assert!("Keil; ko=superko".parse::<Ruleset>().is_err());
    // The komi warning: fractional with the button, whole without it.
    assert!(rules("Keil", 13).komi_warning());
    assert!(!rules("Keil", 12).komi_warning());
    assert!(rules("Keil button=off", 12).komi_warning());
    assert!(!rules("Keil button=off", 13).komi_warning());
}

#[test]
fn position_notation_round_trips_and_names_faults() {
    let empty = Position::empty(board(7));
    assert_eq!(empty.to_string(), "7/8/9/10/11/12/13/12/11/10/9/8/7");
    let mut game = Game::new(board(7), Ruleset::keil());
    play(&mut game, &["g7", "a1", "m13", "button"]);
    let p = game.position();
    let text = p.to_notation(Some(Color::Black));
    assert_eq!(text, "w6/8/9/10/11/12/6b6/12/11/10/9/8/6b b +");
    let (back, to_move) = Position::parse_notation(&text).unwrap();
    assert_eq!((back, to_move), (p, Some(Color::Black)));
    for bad in [
        "",
        "7/8/9",
        "7/8/9/10/11/12/13/12/11/10/9/8/8",
        "7/8/9/10/11/12/13/12/11/10/9/8/6x",
    ] {
        let e = Position::parse_notation(bad).unwrap_err();
        assert!(!e.to_string().is_empty());
    }
    let e = Position::parse_notation("7/8/9/10/11/12/12/12/11/10/9/8/7").unwrap_err();
    assert!(e.to_string().contains("column g"), "{e}");
}

#[test]
fn keys_are_incremental_and_canonical_keys_ignore_symmetry() {
    let b = board(4);
    let mut game = Game::new(b, Ruleset::keil());
    play(&mut game, &["a1", "d4", "b1", "button", "g7"]);
    let p = game.position();
    assert_eq!(game.key(), p.key());
    assert_eq!(game.canonical_key().0, p.canonical_key().0);
    let (canon, s) = p.canonical();
    assert_eq!(p.transform(s), canon);
    for sym in Symmetry::all() {
        let image = p.transform(sym);
        assert_eq!(image.canonical_key().0, p.canonical_key().0);
        assert_eq!(image.canonical().0, canon);
        assert_eq!(image.transform(sym.inverse()), p);
    }
    let mut without_button = p;
    without_button.set_button_taken(false);
    assert_ne!(without_button.key(), p.key());
}
