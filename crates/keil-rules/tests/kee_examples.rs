//! The worked examples of kee-rules.md that a square Go board or a Keil
//! board can express (D, E under every ruleset, F under every ruleset, G,
//! H with its button and setup sentences), as exact move sequences with
//! their verdicts.

use keil_rules::{
    Board, Color, Game, GoGame, GoPosition, GoRuleset, HalfPoints, IllegalMove, IllegalReason,
    KeeCheck, Move, Position, Ruleset, SquareBoard, ToMove, TurnOutcome,
};

/// Plays `B[aa] W[]`-style moves on a Go game; stops at the first illegal
/// one.
fn go_moves(game: &mut GoGame, text: &str) -> Result<Vec<TurnOutcome>, IllegalMove> {
    let board = game.board();
    text.split_whitespace()
        .map(|m| {
            let color = if m.starts_with('B') {
                Color::Black
            } else {
                Color::White
            };
            let v = &m[2..m.len() - 1];
            let mv = if v.is_empty() {
                Move::Pass
            } else {
                Move::Place(board.parse_sgf_point(v).unwrap())
            };
            game.play_as(color, mv)
        })
        .collect()
}

fn go(size: u8, rules: GoRuleset) -> GoGame {
    GoGame::new(SquareBoard::new(size).unwrap(), rules, HalfPoints(0))
}

fn refused(game: &mut GoGame, mv: &str) -> IllegalReason {
    let before = (game.ply(), game.key());
    let err = go_moves(game, mv).unwrap_err();
    assert_eq!(
        (game.ply(), game.key()),
        before,
        "a refusal changes nothing"
    );
    err.reason
}

fn repetition(plies: &[u32], kee: Option<KeeCheck>) -> IllegalReason {
    IllegalReason::Repetition {
        plies: plies.to_vec(),
        kee,
    }
}

use KeeCheck::{RepeatedSituation, SuperkoStart};

#[test]
fn d_greedy_black_on_2x2() {
    let mut g = go(2, GoRuleset::Kee);
    go_moves(&mut g, "B[aa] W[bb] B[ab] W[ba] B[aa] W[ab]").unwrap();
    assert_eq!(g.position().to_string(), "1w/ww");
    assert_eq!(
        refused(&mut g, "B[aa]"),
        repetition(&[1], Some(SuperkoStart))
    );
    go_moves(&mut g, "B[]").unwrap();
    // White at aa would empty the board (a four-stone suicide).
    assert_eq!(
        refused(&mut g, "W[aa]"),
        repetition(&[0], Some(SuperkoStart))
    );
    go_moves(&mut g, "W[]").unwrap();
    let out = go_moves(&mut g, "B[aa]").unwrap();
    assert!(out[0].superko_break);
    assert_eq!(out[0].captured.len(), 3);
    assert_eq!(
        refused(&mut g, "W[bb]"),
        repetition(&[2], Some(SuperkoStart))
    );
    assert_eq!(g.superko_breaks(), &[9]);
}

const E_START: &str = "B[bb] W[bc] B[ca] W[cb] B[cc]";

#[test]
fn e_ko_under_every_ruleset() {
    use GoRuleset::*;
    for rules in GoRuleset::ALL {
        let mut g = go(3, rules);
        let out = go_moves(&mut g, E_START).unwrap();
        assert_eq!(out[4].captured.len(), 1, "{rules}: B[cc] takes the ko");
        let expected = match rules {
            Kee => repetition(&[4], Some(SuperkoStart)),
            _ => repetition(&[4], None),
        };
        assert_eq!(refused(&mut g, "W[cb]"), expected, "{rules}");

        go_moves(&mut g, "W[] B[]").unwrap();
        let retake = go_moves(&mut g, "W[cb]");
        match rules {
            Kee => assert!(retake.unwrap()[0].superko_break),
            Japanese | Korean => {
                let out = retake.unwrap();
                assert!(out[0].resumed, "play resumes after two passes");
                assert!(!out[0].superko_break);
            }
            Chinese => assert_eq!(retake.unwrap_err().reason, repetition(&[4], None)),
            Aga | Nz => assert_eq!(retake.unwrap_err().reason, repetition(&[4], None)),
            TrompTaylor => assert_eq!(retake.unwrap_err().reason, IllegalReason::GameOver),
        }
    }
}

#[test]
fn e_kee_continuation_breaks_then_repeated_situation_then_four_passes() {
    let mut g = go(3, GoRuleset::Kee);
    go_moves(&mut g, E_START).unwrap();
    go_moves(&mut g, "W[] B[] W[cb] B[] W[] B[cc] W[] B[]").unwrap();
    assert_eq!(g.superko_breaks(), &[8, 11]);
    assert_eq!(
        refused(&mut g, "W[cb]"),
        repetition(&[4, 8, 9, 10], Some(RepeatedSituation))
    );
    assert!(!g.is_over(), "two passes do not end a Kee game");
    go_moves(&mut g, "W[]").unwrap();
    assert!(!g.is_over(), "three passes do not end a Kee game");
    let out = go_moves(&mut g, "B[]").unwrap();
    assert!(out[0].ended && g.is_over() && g.is_complete());
    assert_eq!(g.position().to_string(), "2b/1b1/1wb");
    let score = g.score();
    assert_eq!((score.black, score.white), (HalfPoints(8), HalfPoints(2)));
    assert_eq!(score.winner(), Some(Color::Black));
    assert_eq!(score.margin(), HalfPoints(6));
    for mv in ["W[]", "W[aa]", "B[aa]"] {
        assert_eq!(refused(&mut g, mv), IllegalReason::GameOver, "{mv} at 16");
    }
}

fn f_setup() -> GoPosition {
    let (pos, to_move) = GoPosition::parse_notation("1bb/bbw/1w1 b").unwrap();
    assert_eq!(to_move, Some(Color::Black));
    pos
}

fn f_game(rules: GoRuleset) -> GoGame {
    GoGame::from_setup(
        &f_setup(),
        rules,
        HalfPoints(0),
        ToMove::Color(Color::Black),
    )
}

#[test]
fn f_suicide_that_is_a_pass_under_every_ruleset() {
    use GoRuleset::*;
    for rules in GoRuleset::ALL {
        let mut g = f_game(rules);
        go_moves(&mut g, "B[cc]").unwrap();
        let suicide = go_moves(&mut g, "W[aa]");
        match rules {
            Japanese | Korean | Chinese | Aga => {
                assert_eq!(
                    suicide.unwrap_err().reason,
                    IllegalReason::SelfCapture,
                    "{rules}"
                )
            }
            TrompTaylor => assert_eq!(suicide.unwrap_err().reason, repetition(&[1], None)),
            Nz => {
                let out = suicide.unwrap();
                assert_eq!(out[0].suicided.len(), 1);
                assert!(!out[0].pass_play);
                go_moves(&mut g, "B[]").unwrap();
                // The retake recreates (setup board, Black to move).
                assert_eq!(refused(&mut g, "W[cb]"), repetition(&[0], None));
            }
            Kee => {
                let out = suicide.unwrap();
                assert!(out[0].pass_play);
                assert_eq!(g.pass_plays(), &[2]);
                go_moves(&mut g, "B[]").unwrap();
                let out = go_moves(&mut g, "W[cb]").unwrap();
                assert!(out[0].superko_break, "the suicide lifted White's ban");
                assert_eq!(
                    refused(&mut g, "B[cc]"),
                    repetition(&[1, 2, 3], Some(SuperkoStart))
                );
            }
        }
    }
    // The suicide is the first of four passes.
    let mut g = f_game(Kee);
    go_moves(&mut g, "B[cc] W[aa] B[] W[]").unwrap();
    assert!(!g.is_over());
    go_moves(&mut g, "B[]").unwrap();
    assert!(g.is_over() && g.is_complete());
}

#[test]
fn g_sending_two_and_returning_one() {
    use GoRuleset::*;
    let start = "B[ba] W[bb] B[cb] W[bc]";
    for rules in GoRuleset::ALL {
        let mut g = go(3, rules);
        go_moves(&mut g, start).unwrap();
        assert_eq!(g.position().to_string(), "1b1/1wb/1w1");
        go_moves(&mut g, "B[cc]").unwrap();
        let out = go_moves(&mut g, "W[ca]").unwrap();
        assert_eq!(out[0].captured.len(), 2);
        let ret = go_moves(&mut g, "B[cb]");
        match rules {
            Kee => assert_eq!(
                ret.unwrap_err().reason,
                repetition(&[4], Some(SuperkoStart))
            ),
            Chinese | TrompTaylor => assert_eq!(ret.unwrap_err().reason, repetition(&[4], None)),
            Aga | Nz | Japanese | Korean => assert_eq!(ret.unwrap()[0].captured.len(), 1),
        }
    }
    let mut g = go(3, Kee);
    go_moves(&mut g, start).unwrap();
    go_moves(&mut g, "B[cc] W[ca] B[] W[]").unwrap();
    assert!(go_moves(&mut g, "B[cb]").unwrap()[0].superko_break);
    assert_eq!(g.superko_breaks(), &[9]);
}

// ---- H: Keil side 2 -------------------------------------------------------------

fn keil(rules: &str) -> Game {
    Game::new(Board::new(2).unwrap(), rules.parse().unwrap())
}

fn keil_moves(game: &mut Game, text: &str) -> Result<Vec<TurnOutcome>, IllegalMove> {
    let board = game.board();
    text.split_whitespace()
        .map(|m| {
            let color = if m.starts_with('B') {
                Color::Black
            } else {
                Color::White
            };
            let v = &m[2..m.len() - 1];
            let mv = match v {
                "" => Move::Pass,
                "button" => Move::TakeButton,
                _ => Move::Place(board.parse_point(v).unwrap()),
            };
            game.play_as(color, mv)
        })
        .collect()
}

fn keil_refused(game: &mut Game, mv: &str) -> IllegalReason {
    let before = (game.ply(), game.key());
    let err = keil_moves(game, mv).unwrap_err();
    assert_eq!((game.ply(), game.key()), before);
    err.reason
}

const H_START: &str = "B[a1] W[b1] B[b3] W[a2]";

#[test]
fn h_keil_kee_on_side_2() {
    let mut g = keil("Keil; ko=kee; button=off");
    let out = keil_moves(&mut g, H_START).unwrap();
    assert_eq!(out[3].captured.len(), 1, "W a2 captures a1");
    assert_eq!(
        keil_refused(&mut g, "B[a1]"),
        repetition(&[3], Some(SuperkoStart))
    );
    keil_moves(&mut g, "B[] W[]").unwrap();
    assert!(keil_moves(&mut g, "B[a1]").unwrap()[0].superko_break);
    assert_eq!(
        keil_refused(&mut g, "W[a2]"),
        repetition(&[4, 5, 6], Some(SuperkoStart))
    );
    keil_moves(&mut g, "W[] B[]").unwrap();
    assert!(keil_moves(&mut g, "W[a2]").unwrap()[0].superko_break);
    assert_eq!(g.superko_breaks(), &[7, 10]);
    keil_moves(&mut g, "B[] W[]").unwrap();
    assert_eq!(
        keil_refused(&mut g, "B[a1]"),
        repetition(&[3, 7, 8, 9], Some(RepeatedSituation))
    );
    keil_moves(&mut g, "B[]").unwrap();
    assert!(!g.is_over());
    let out = keil_moves(&mut g, "W[]").unwrap();
    assert!(out[0].ended && g.is_over());
    assert_eq!(keil_refused(&mut g, "B[]"), IllegalReason::GameOver);
}

#[test]
fn h_keil_own_rule_refuses_the_first_retake_too() {
    let mut g = keil("Keil; button=off");
    keil_moves(&mut g, H_START).unwrap();
    assert_eq!(keil_refused(&mut g, "B[a1]"), repetition(&[3], None));
}

#[test]
fn h_button_turn_is_a_new_position_not_a_break() {
    let mut g = keil("Keil; ko=kee");
    keil_moves(&mut g, H_START).unwrap();
    let out = keil_moves(&mut g, "B[button] W[] B[a1]").unwrap();
    assert!(out.iter().all(|o| !o.superko_break));
    assert_eq!(
        keil_refused(&mut g, "W[a2]"),
        repetition(&[5, 6], Some(SuperkoStart))
    );
    // The button turn breaks a run of passes: B pass after the button is
    // still refused before the button in the default ruleset.
    let mut g = keil("Keil; ko=kee");
    assert_eq!(keil_refused(&mut g, "B[]"), IllegalReason::PassBeforeButton);
}

#[test]
fn h_setup_counts_under_kee_only() {
    let board = Board::new(2).unwrap();
    let p = |n| board.parse_point(n).unwrap();
    let setup = Position::from_stones(board, [p("a1"), p("b3")], [p("b1")], false).unwrap();
    let rules: Ruleset = "Keil; ko=kee; button=off".parse().unwrap();
    let mut g = Game::from_setup(&setup, rules, Color::White);
    keil_moves(&mut g, "W[a2]").unwrap();
    assert_eq!(
        keil_refused(&mut g, "B[a1]"),
        repetition(&[0], Some(SuperkoStart))
    );
    let rules: Ruleset = "Keil; button=off".parse().unwrap();
    let mut g = Game::from_setup(&setup, rules, Color::White);
    keil_moves(&mut g, "W[a2] B[a1]").unwrap();
}

#[test]
fn keil_kee_four_passes_with_button_in_between() {
    let mut g = keil("Keil; ko=kee");
    keil_moves(&mut g, "B[a1] W[button] B[] W[] B[]").unwrap();
    assert!(!g.is_over(), "three passes");
    keil_moves(&mut g, "W[]").unwrap();
    assert!(g.is_over());
}
