//! One test per statement of go-rules.md that the rules decide (RU values,
//! placing a stone, precedence, turn order, end of the game, area score,
//! position notation), and the dispatch layer over Keil and Go.

use keil_rules::{
    AnyBoard, AnyGame, AnyPosition, AnyRuleset, Board, BoardSpec, Color, GameKind, GoEnd, GoGame,
    GoNotationError, GoPosition, GoRuleset, HalfPoints, IllegalReason, Move, Point, Position,
    RepetitionRule, RuMapped, Ruleset, SquareBoard, SquareSymmetry, ToMove,
};

fn board(n: u8) -> &'static SquareBoard {
    SquareBoard::new(n).unwrap()
}

fn at(b: &SquareBoard, s: &str) -> Move {
    Move::Place(b.parse_sgf_point(s).unwrap())
}

/// Plays `B[aa] W[]`-style moves; panics on an illegal one.
fn moves(game: &mut GoGame, text: &str) {
    let b = game.board();
    for m in text.split_whitespace() {
        let color = if m.starts_with('B') {
            Color::Black
        } else {
            Color::White
        };
        let v = &m[2..m.len() - 1];
        let mv = if v.is_empty() { Move::Pass } else { at(b, v) };
        game.play_as(color, mv)
            .unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

#[test]
fn ru_values_map_as_the_table_says() {
    use GoRuleset::*;
    for (ru, rules, mapped) in [
        (None, Japanese, RuMapped::Missing),
        (Some(""), Japanese, RuMapped::Missing),
        (Some("Kee Rules"), Kee, RuMapped::Ru),
        (Some("Tromp/Taylor"), TrompTaylor, RuMapped::Ru),
        (Some("TT--"), TrompTaylor, RuMapped::Ru),
        (Some("TTx"), Japanese, RuMapped::Unknown),
        (Some("Japanese 1989"), Japanese, RuMapped::Ru),
        (Some("JPN"), Japanese, RuMapped::Ru),
        (Some("Korean"), Korean, RuMapped::Ru),
        (Some("kr"), Korean, RuMapped::Ru),
        (Some("Chinese (superko)"), Chinese, RuMapped::Ru),
        (Some("CN"), Chinese, RuMapped::Ru),
        (Some("AGA"), Aga, RuMapped::Ru),
        (Some("American"), Aga, RuMapped::Ru),
        (Some("New Zealand"), Nz, RuMapped::Ru),
        (Some("NZ"), Nz, RuMapped::Ru),
        (Some("Ing"), Japanese, RuMapped::Unknown),
        (Some("GOE"), Japanese, RuMapped::Unknown),
    ] {
        assert_eq!(GoRuleset::from_ru(ru), (rules, mapped), "{ru:?}");
    }
    for r in GoRuleset::ALL {
        assert_eq!(r.code().parse::<GoRuleset>().unwrap(), r);
    }
    assert_eq!(TrompTaylor.code(), "tromp-taylor");
    assert_eq!(
        (Nz.suicide(), Aga.suicide(), Kee.repetition()),
        (true, false, RepetitionRule::Kee)
    );
    assert_eq!(Chinese.repetition().code(), "positional");
    assert_eq!(Nz.repetition().code(), "situational");
    assert_eq!(Korean.repetition().code(), "simple");
    assert_eq!(
        (Kee.end(), TrompTaylor.end()),
        (GoEnd::FourPasses, GoEnd::TwoPasses)
    );
    assert!(Kee.result_checked() && TrompTaylor.result_checked() && !Chinese.result_checked());
    assert_eq!(RuMapped::Unknown.code(), "unknown");
}

#[test]
fn placing_captures_only_groups_without_liberties() {
    let b = board(5);
    let mut g = GoGame::new(b, GoRuleset::Japanese, HalfPoints(0));
    // A two-stone white group in the corner, captured by Black's last stone.
    moves(&mut g, "B[ca] W[aa] B[ab] W[ba] B[bb]");
    assert_eq!(g.position().to_string(), "2b2/bb3/5/5/5");
    let group = g.group_at(b.parse_sgf_point("ab").unwrap()).unwrap();
    assert_eq!(group.stones.len(), 2);
    assert_eq!(group.liberties.len(), 5);
    // A stone without liberty that captures is legal.
    let mut g = GoGame::new(b, GoRuleset::Japanese, HalfPoints(0));
    moves(&mut g, "B[ba] W[ca] B[ab] W[bb] B[] W[ac]");
    let out = g.play_as(Color::Black, at(b, "aa"));
    assert_eq!(out.unwrap_err().reason, IllegalReason::SelfCapture);
    let out = g.play_as(Color::Black, Move::Pass).unwrap();
    assert!(out.captured.is_empty());
    let out = g.play_as(Color::White, at(b, "aa")).unwrap();
    assert_eq!(out.captured.len(), 2, "White aa captures ba and ab");
}

#[test]
fn suicide_removes_the_group_where_legal() {
    let b = board(3);
    for rules in [GoRuleset::Nz, GoRuleset::TrompTaylor, GoRuleset::Kee] {
        let mut g = GoGame::new(b, rules, HalfPoints(0));
        moves(&mut g, "B[ba] W[] B[ab] W[] B[bb]");
        // A one-stone suicide leaves the board unchanged: always a
        // positional repetition (Tromp-Taylor).
        let out = g.play_as(Color::White, at(b, "aa"));
        if rules == GoRuleset::TrompTaylor {
            assert_eq!(
                out.unwrap_err().reason,
                IllegalReason::Repetition {
                    plies: vec![5],
                    kee: None
                }
            );
            continue;
        }
        let out = out.unwrap();
        assert_eq!(out.suicided, vec![Point(0)], "{rules}");
        assert!(out.captured.is_empty());
        assert_eq!(out.pass_play, rules == GoRuleset::Kee);
        assert_eq!(g.stone_at(Point(0)), None);
    }
}

#[test]
fn precedence_of_reasons() {
    let b = board(3);
    let mut g = GoGame::new(b, GoRuleset::TrompTaylor, HalfPoints(0));
    moves(&mut g, "B[bb]");
    // wrong_player before off_board and occupied.
    let e = g.play_as(Color::Black, Move::Place(Point(99))).unwrap_err();
    assert_eq!(
        e.reason,
        IllegalReason::WrongPlayer {
            expected: Color::White
        }
    );
    let e = g.play_as(Color::White, Move::Place(Point(9))).unwrap_err();
    assert_eq!((e.reason.code(), e.ply), ("off_board", 2));
    let e = g.play_as(Color::White, at(b, "bb")).unwrap_err();
    assert_eq!(e.reason, IllegalReason::Occupied);
    assert_eq!(
        g.play_as(Color::White, Move::TakeButton)
            .unwrap_err()
            .reason,
        IllegalReason::ButtonNotInUse
    );
    moves(&mut g, "W[] B[]");
    assert!(g.is_over() && g.is_complete());
    // after_end before wrong_player.
    let e = g.play_as(Color::Black, at(b, "bb")).unwrap_err();
    assert_eq!(e.reason, IllegalReason::GameOver);
    assert!(g.check_turn(Color::White).is_err());
}

#[test]
fn simple_ko_never_applies_after_a_pass() {
    let b = board(3);
    // E's ko: B[cc] takes; after W[] B[] (two passes, agreement rules) W
    // retakes; then Black's immediate retake is refused again.
    let mut g = GoGame::new(b, GoRuleset::Japanese, HalfPoints(0));
    moves(&mut g, "B[bb] W[bc] B[ca] W[cb] B[cc] W[] B[] W[cb]");
    let e = g.play_as(Color::Black, at(b, "cc")).unwrap_err();
    assert_eq!(
        e.reason,
        IllegalReason::Repetition {
            plies: vec![7],
            kee: None
        }
    );
}

#[test]
fn turn_order_pl_setup_handicap_and_resumption() {
    let b = board(5);
    // Setup without PL: either colour starts.
    let (setup, _) = GoPosition::parse_notation("b4/5/5/5/5").unwrap();
    let g = GoGame::from_setup(&setup, GoRuleset::Japanese, HalfPoints(0), ToMove::Either);
    assert_eq!(g.to_move(), ToMove::Either);
    assert!(g.check_turn(Color::White).is_ok() && g.check_turn(Color::Black).is_ok());

    // HA[3] as moves: three Black moves, then White.
    let mut g = GoGame::new(b, GoRuleset::Japanese, HalfPoints(0));
    g.set_handicap_moves(3);
    moves(&mut g, "B[aa] B[cc]");
    let e = g.play_as(Color::White, at(b, "ee")).unwrap_err();
    assert_eq!(
        e.reason,
        IllegalReason::WrongPlayer {
            expected: Color::Black
        }
    );
    moves(&mut g, "B[ee]");
    assert_eq!(g.to_move(), ToMove::Color(Color::White));
    moves(&mut g, "W[dd] B[bb]");
    // PL overrides.
    g.set_to_move(ToMove::Color(Color::Black));
    moves(&mut g, "B[ab]");

    // Agreement rulesets: after two passes either colour; the placement
    // that follows is flagged as resumed, a third pass is not.
    let mut g = GoGame::new(b, GoRuleset::Chinese, HalfPoints(0));
    moves(&mut g, "B[cc] W[] B[]");
    assert!(g.is_complete() && !g.is_over());
    assert_eq!(g.to_move(), ToMove::Either);
    let out = g.play_as(Color::Black, Move::Pass).unwrap();
    assert!(!out.resumed && !out.ended);
    let out = g.play_as(Color::Black, at(b, "dd")).unwrap();
    assert!(out.resumed);
    assert!(!g.is_complete());
    assert_eq!(g.to_move(), ToMove::Color(Color::White));
}

#[test]
fn setup_in_the_game_restarts_the_records() {
    let b = board(3);
    // Without the restart W[cb] would repeat ply 4 under positional superko.
    let mut g = GoGame::new(b, GoRuleset::Chinese, HalfPoints(0));
    moves(&mut g, "B[bb] W[bc] B[ca] W[cb] B[cc]");
    let pos = g.position();
    g.apply_setup(&pos, ToMove::Either);
    moves(&mut g, "W[cb]");
    assert_eq!(g.ply(), 6, "the ply count goes on");
    // ... but the setup board itself is in the new records, as ply 5.
    let e = g.play_as(Color::Black, at(b, "cc")).unwrap_err();
    assert_eq!(
        e.reason,
        IllegalReason::Repetition {
            plies: vec![5],
            kee: None
        }
    );
    // Kee: history = [(setup, m)].
    let mut g = GoGame::new(b, GoRuleset::Kee, HalfPoints(0));
    moves(&mut g, "B[bb] W[bc] B[ca] W[cb] B[cc]");
    let pos = g.position();
    g.apply_setup(&pos, ToMove::Color(Color::White));
    moves(&mut g, "W[cb]");
    let e = g.play_as(Color::Black, at(b, "cc")).unwrap_err();
    assert_eq!(e.reason.code(), "repetition");
    assert!(matches!(e.reason, IllegalReason::Repetition { ref plies, .. } if plies == &[5]));
}

#[test]
fn area_score_counts_stones_and_one_colour_regions() {
    let (pos, _) = GoPosition::parse_notation("1b1w1/bb1ww/5/ww1bb/1w1b1").unwrap();
    let score = pos.score(HalfPoints(13));
    // One-point regions in the corners: aa and ee Black's, ea and ae
    // White's; the middle row and column touch both colours.
    assert_eq!(score.tally.stones, [6, 6]);
    assert_eq!(score.tally.territory, [2, 2]);
    assert_eq!(score.tally.contested, 5 + 4);
    assert_eq!(score.black, HalfPoints(16));
    assert_eq!(score.white, HalfPoints(16 + 13));
    let empty = GoPosition::empty(board(9)).score(HalfPoints(0));
    assert_eq!(empty.tally.unlinked, 81);
    assert_eq!(empty.winner(), None);
}

#[test]
fn position_notation_round_trips_and_names_faults() {
    let empty = GoPosition::empty(board(19));
    let text = empty.to_string();
    assert_eq!(text, vec!["19"; 19].join("/"));
    assert_eq!(text.parse::<GoPosition>().unwrap(), empty);
    let (p, to_move) = GoPosition::parse_notation("b1w/3/2b w").unwrap();
    assert_eq!(p.board().size(), 3);
    assert_eq!(to_move, Some(Color::White));
    assert_eq!(p.to_notation(Some(Color::White)), "b1w/3/2b w");
    assert_eq!(p.get(Point(8)), Some(Color::Black));
    for (bad, err) in [
        ("", GoNotationError::Empty),
        (
            "3/3",
            GoNotationError::RowLength {
                row: 1,
                expected: 2,
            },
        ),
        ("b1w/3/2b x", GoNotationError::Suffix("x".into())),
        ("b1w/3/2b b w", GoNotationError::Suffix("w".into())),
        ("b1w/3/2b +", GoNotationError::Suffix("+".into())),
        ("bw/2x", GoNotationError::Char { ch: 'x', offset: 4 }),
        ("03/3/3", GoNotationError::Run { offset: 0 }),
        (
            "4/3/3",
            GoNotationError::RowLength {
                row: 1,
                expected: 3,
            },
        ),
        (
            "2/b",
            GoNotationError::RowLength {
                row: 2,
                expected: 2,
            },
        ),
    ] {
        assert_eq!(GoPosition::parse_notation(bad).unwrap_err(), err, "{bad:?}");
    }
    let twenty = vec!["20"; 20].join("/");
    assert_eq!(
        GoPosition::parse_notation(&twenty).unwrap_err(),
        GoNotationError::Rows(20)
    );
}

#[test]
fn keys_are_salted_and_canonical_keys_agree_across_images() {
    let b = board(9);
    let (pos, _) = GoPosition::parse_notation("bw7/9/9/9/9/9/9/9/9").unwrap();
    // Go and Keil keys of "the same" stones differ; the empty boards too.
    let hex = Board::new(5).unwrap();
    let keil = Position::from_stones(hex, [Point(0)], [Point(1)], false).unwrap();
    assert_ne!(pos.key(), keil.key());
    assert_ne!(GoPosition::empty(b).key(), Position::empty(hex).key());
    assert_ne!(GoPosition::empty(b).key().0, 0);
    assert_ne!(
        GoPosition::empty(b).key(),
        GoPosition::empty(board(8)).key()
    );
    let (canon, s) = pos.canonical_key();
    assert_eq!(pos.transform(s).key(), canon);
    for t in SquareSymmetry::all() {
        let image = pos.transform(t);
        assert_eq!(image.canonical_key().0, canon);
        assert_eq!(image.canonical().0, pos.canonical().0);
    }
    assert_eq!(pos.swap_colors().swap_colors(), pos);
    assert_ne!(pos.swap_colors().key(), pos.key());
}

#[test]
fn dispatch_over_keil_and_go() {
    assert_eq!("go".parse::<GameKind>().unwrap(), GameKind::Go);
    assert_eq!("KEIL".parse::<GameKind>().unwrap(), GameKind::Keil);
    assert!("chess".parse::<GameKind>().is_err());
    assert!(BoardSpec::new(GameKind::Go, 20).is_err());
    assert!(BoardSpec::new(GameKind::Keil, 1).is_err());

    // Go.
    let spec = BoardSpec::new(GameKind::Go, 3).unwrap();
    let board = spec.board().unwrap();
    assert_eq!((board.len(), board.symmetry_count()), (9, 8));
    assert_eq!(board.point_name(Point(2)), "ca");
    assert_eq!(board.display_name(Point(2)), "C3");
    assert_eq!(board.parse_point("ca").unwrap(), Point(2));
    assert!(board.parse_point("dd").is_err());
    assert_eq!(board.move_name(Move::Pass), "pass");
    let parsed = AnyPosition::parse_notation(GameKind::Go, "b1w/3/2b b").unwrap();
    assert_eq!(parsed.to_move, Some(Color::Black));
    assert_eq!(parsed.button, None);
    let pos = parsed.position;
    assert_eq!(pos.to_notation(Some(Color::Black)), "b1w/3/2b b");
    assert_eq!(pos.to_full_notation(Color::White), "b1w/3/2b w");
    assert_eq!(pos.spec(), spec);
    let (k, s) = pos.canonical_key();
    assert_eq!(pos.transform(s).key(), k);
    assert_eq!(pos.swap_colors().get(Point(0)), Some(Color::White));
    assert!(AnyPosition::parse_notation(GameKind::Go, "b1w/3/2b +").is_err());
    let swapped = parsed.swap_colors();
    assert_eq!(swapped.to_move, Some(Color::White));
    assert_eq!(swapped.position.to_notation(swapped.to_move), "w1b/3/2w w");

    let rules = AnyRuleset::Go {
        ruleset: GoRuleset::TrompTaylor,
        komi: HalfPoints(1),
    };
    let mut game = AnyGame::new(spec, rules, None, ToMove::Color(Color::Black)).unwrap();
    let out = game.play_as(Color::Black, Move::Place(Point(4))).unwrap();
    assert_eq!(out.canonical_sym, game.canonical_key().1);
    assert_eq!(game.key(), out.key);
    game.play_as(Color::White, Move::Pass).unwrap();
    game.play_as(Color::Black, Move::Pass).unwrap();
    assert!(game.is_over() && game.is_complete());
    assert_eq!(game.score().black, HalfPoints(18));
    assert_eq!(game.legal_moves(Color::White), vec![]);
    assert!(
        AnyGame::new(
            spec,
            AnyRuleset::Keil(Ruleset::keil()),
            None,
            ToMove::Either
        )
        .is_err()
    );

    // Keil through the same interface.
    let spec = BoardSpec::new(GameKind::Keil, 2).unwrap();
    let board = spec.board().unwrap();
    assert!(matches!(board, AnyBoard::Hex(_)));
    assert_eq!(board.symmetry_count(), 12);
    let parsed = AnyPosition::parse_notation(GameKind::Keil, "b1/3/2 w -").unwrap();
    assert_eq!(
        (parsed.to_move, parsed.button),
        (Some(Color::White), Some(false))
    );
    assert_eq!(parsed.position.to_full_notation(Color::White), "b1/3/2 w -");
    let parsed = AnyPosition::parse_notation(GameKind::Keil, "b1/3/2 +").unwrap();
    assert_eq!(parsed.button, Some(true));
    assert_eq!(parsed.position.to_notation(None), "b1/3/2 +");
    assert_eq!(parsed.swap_colors().position.to_notation(None), "w1/3/2 +");
    assert_eq!(
        AnyPosition::parse_notation(GameKind::Keil, "b1/3/2")
            .unwrap()
            .button,
        None
    );
    let mut game = AnyGame::new(
        spec,
        AnyRuleset::Keil(Ruleset::keil()),
        None,
        ToMove::Either,
    )
    .unwrap();
    assert_eq!(game.to_move(), ToMove::Color(Color::Black));
    let a1 = board.parse_point("a1").unwrap();
    let out = game.play_as(Color::Black, Move::Place(a1)).unwrap();
    assert_eq!(out.canonical.1.index(), out.canonical_sym);
    assert!(game.apply_setup(&game.position(), ToMove::Either).is_err());
    assert_eq!(game.kind(), GameKind::Keil);
    assert_eq!(game.position().button_taken(), Some(false));
}
