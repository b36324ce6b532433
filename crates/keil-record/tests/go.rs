//! Go records, statement by statement (go-rules.md): points and passes,
//! malformed values, setup and the player to move, handicap, sizes, RU
//! mapping, results per ruleset, warnings, and the `GM` dispatch of
//! record-format.md.

use keil_record::{
    GameResult, GameSpec, Reason, Status, Verdict, Warning, Winner, read_records, validate,
};
use keil_rules::{Color, GameKind, GoRuleset, HalfPoints, RuMapped, ToMove};

/// The verdict on the only game of `sgf`.
fn verdict(sgf: &str) -> Verdict {
    let records = read_records(sgf.as_bytes());
    let [Ok(record)] = records.as_slice() else {
        panic!("{sgf}: {records:?}");
    };
    validate(record).verdict
}

/// Status, reason, ply and move of the main line.
fn outcome(sgf: &str) -> (Status, Option<Reason>, Option<u32>, Option<String>) {
    let v = verdict(sgf);
    let ill = v.illegal.as_ref();
    let moved = ill.filter(|i| i.reason.has_move());
    (
        v.status,
        ill.map(|i| i.reason),
        moved.map(|i| i.ply),
        moved.map(|i| i.mv.clone()),
    )
}

fn codes(v: &Verdict) -> Vec<&'static str> {
    v.warnings.iter().map(Warning::code).collect()
}

const UNFINISHED: (Status, Option<Reason>, Option<u32>, Option<String>) =
    (Status::Unfinished, None, None, None);

fn illegal(
    reason: Reason,
    ply: u32,
    mv: &str,
) -> (Status, Option<Reason>, Option<u32>, Option<String>) {
    (
        reason.status(),
        Some(reason),
        Some(ply),
        Some(mv.to_string()),
    )
}

#[test]
fn passes_are_empty_values_and_tt() {
    assert_eq!(outcome("(;GM[1]SZ[9];B[];W[tt];B[ee])"), UNFINISHED);
    assert_eq!(outcome("(;GM[1];B[tt];W[tt])").0, Status::Complete);
    // Two passes under japanese: complete; a third pass and play resume.
    let v = verdict("(;GM[1]SZ[9];B[ee];W[];B[];W[tt];B[cc])");
    assert_eq!(v.status, Status::Unfinished);
    assert_eq!(codes(&v), ["resumed_after_passes"]);
}

#[test]
fn two_letters_off_the_board_are_off_board_anything_else_malformed() {
    for mv in ["W[jj]", "W[zz]", "W[aA]", "W[Aa]"] {
        let sgf = format!("(;GM[1]SZ[9];B[ee];{mv})");
        assert_eq!(outcome(&sgf), illegal(Reason::OffBoard, 2, mv), "{mv}");
    }
    for mv in ["W[c4]", "W[pass]", "W[90]", "W[abc]", "W[a]"] {
        let sgf = format!("(;GM[1]SZ[9];B[ee];{mv};B[cc])");
        assert_eq!(outcome(&sgf), illegal(Reason::BadMoveValue, 2, mv), "{mv}");
    }
}

#[test]
fn a_node_with_two_moves_is_malformed() {
    assert_eq!(
        outcome("(;GM[1]SZ[9];B[ee];B[tt]W[tt])"),
        illegal(Reason::TwoMovesInNode, 2, "B[tt]W[tt]")
    );
    assert_eq!(
        outcome("(;GM[1]SZ[9];B[aa]B[bb])"),
        illegal(Reason::TwoMovesInNode, 1, "B[aa]B[bb]")
    );
}

#[test]
fn a_move_property_with_two_values_is_two_moves_in_node() {
    // Real Go files: W[ce][cf], one property with two values (once read as
    // W[ce], and B's next move wrong_player).
    assert_eq!(
        outcome("(;GM[1]SZ[19];B[dd];W[ce][cf])"),
        illegal(Reason::TwoMovesInNode, 2, "W[ce][cf]")
    );
    assert_eq!(
        outcome("(;GM[1]SZ[19];B[dd];W[ce][cf];B[pp])"),
        illegal(Reason::TwoMovesInNode, 2, "W[ce][cf]")
    );
    // Two passes, two empty values, one value off the board or malformed:
    // still two moves in one node.
    for (node, mv) in [
        ("W[][]", "W[][]"),
        ("W[tt][tt]", "W[tt][tt]"),
        ("W[ce][zz]", "W[ce][zz]"),
        ("W[ce][c4]", "W[ce][c4]"),
        ("W[c4][ce]", "W[c4][ce]"),
    ] {
        let sgf = format!("(;GM[1]SZ[19];B[dd];{node})");
        assert_eq!(
            outcome(&sgf),
            illegal(Reason::TwoMovesInNode, 2, mv),
            "{node}"
        );
    }
    // In a variation too, at its own ply.
    let v = verdict("(;GM[1]SZ[19];B[dd](;W[ce])(;W[ce][cf]))");
    assert_eq!(v.status, Status::Unfinished);
    let ill = v.variations[0].illegal.as_ref().expect("malformed");
    assert_eq!(
        (v.variations[0].status, ill.reason, ill.ply, ill.mv.as_str()),
        (Status::Malformed, Reason::TwoMovesInNode, 2, "W[ce][cf]")
    );
}

#[test]
fn a_move_property_repeated_in_a_node_is_two_moves_in_node() {
    // A property repeated in one node counts as one property with all the
    // values (go-rules.md, "Setup and the player to move"): W[ff] W[ff] is
    // W[ff][ff], two moves, even the same one.
    for (node, mv) in [
        ("W[ff] W[ff]", "W[ff]W[ff]"),
        ("W[ff]W[gg]", "W[ff]W[gg]"),
        ("W[ff]C[x]W[ff]", "W[ff]W[ff]"),
        ("W[]W[]", "W[]W[]"),
        ("W[ff][gg]W[hh]", "W[ff][gg]W[hh]"),
    ] {
        let sgf = format!("(;GM[1]SZ[19];B[dd];{node};B[pp])");
        assert_eq!(
            outcome(&sgf),
            illegal(Reason::TwoMovesInNode, 2, mv),
            "{node}"
        );
    }
    // The same through the fast path (ParsedFile::verdict, no Record).
    let sgf = "(;GM[1]SZ[19];B[dd];W[ff] W[ff])";
    let decoded = keil_sgf::decode(sgf.as_bytes());
    let file = keil_record::ParsedFile::new(&decoded);
    let v = file.verdict(0).unwrap();
    assert_eq!(
        (v.status, v.illegal.map(|i| (i.reason, i.ply, i.mv))),
        (
            Status::Malformed,
            Some((Reason::TwoMovesInNode, 2, "W[ff]W[ff]".to_string()))
        )
    );
}

#[test]
fn setup_lists_are_compressed_and_repeated_properties_count_as_one() {
    let records = read_records(b"(;GM[1]SZ[9]AB[aa:cc]AB[ee]AW[gg][hh:hi]AE[bb];W[ii])");
    let record = records[0].as_ref().unwrap();
    let GameSpec::Go(go) = &record.spec else {
        panic!("not Go")
    };
    let setup = go.setup.expect("a setup");
    assert_eq!(setup.stones(Color::Black).len(), 9 - 1 + 1);
    assert_eq!(setup.stones(Color::White).len(), 3);
    assert_eq!(go.first_player, ToMove::Either);
    let v = validate(record).verdict;
    assert_eq!(v.status, Status::Unfinished);
    // A setup value that is not a point.
    for bad in ["AB[zz]", "AW[a1]", "AE[aa:zz]", "AB[]"] {
        let sgf = format!("(;GM[1]SZ[9]{bad};B[ee])");
        assert_eq!(
            outcome(&sgf),
            (Status::Malformed, Some(Reason::BadSetup), None, None),
            "{bad}"
        );
    }
}

#[test]
fn sizes_from_1_to_19_square_only() {
    assert_eq!(verdict("(;GM[1];B[pd])").size, Some(19));
    assert_eq!(verdict("(;GM[1]SZ[9:9];B[ee])").size, Some(9));
    assert_eq!(verdict("(;GM[1]SZ[1];B[])").status, Status::Unfinished);
    // On 1x1 the only point is a suicide.
    assert_eq!(
        outcome("(;GM[1]SZ[1];B[aa])"),
        illegal(Reason::SelfCapture, 1, "B[aa]")
    );
    for (sz, status, reason) in [
        ("25", Status::Unsupported, Reason::BoardSize),
        ("19:25", Status::Unsupported, Reason::BoardSize),
        ("20", Status::Unsupported, Reason::BoardSize),
        ("0", Status::Malformed, Reason::BadSize),
        ("-10", Status::Malformed, Reason::BadSize),
        ("nine", Status::Malformed, Reason::BadSize),
        ("9.5", Status::Malformed, Reason::BadSize),
    ] {
        let sgf = format!("(;GM[1]SZ[{sz}];B[aa];W[bb])");
        let records = read_records(sgf.as_bytes());
        let validation = validate(records[0].as_ref().unwrap());
        let v = validation.verdict;
        assert_eq!(
            (v.status, v.illegal.map(|i| i.reason)),
            (status, Some(reason)),
            "{sz}"
        );
        assert_eq!(v.plies, 2);
        assert!(validation.replay.is_none());
    }
}

#[test]
fn turn_order_of_the_first_move() {
    // No setup, no PL, no HA: Black.
    assert_eq!(
        outcome("(;GM[1]SZ[9];W[ee])"),
        illegal(Reason::WrongPlayer, 1, "W[ee]")
    );
    // HA[0] and HA[1] are no handicap.
    assert_eq!(
        outcome("(;GM[1]SZ[9]HA[0];W[ee])"),
        illegal(Reason::WrongPlayer, 1, "W[ee]")
    );
    assert_eq!(
        outcome("(;GM[1]SZ[9]HA[1];B[ee];B[cc])"),
        illegal(Reason::WrongPlayer, 2, "B[cc]")
    );
    // PL before the first move.
    assert_eq!(outcome("(;GM[1]SZ[9]PL[W];W[ee];B[cc])"), UNFINISHED);
    assert_eq!(outcome("(;GM[1]SZ[9];PL[W];W[ee];B[cc])"), UNFINISHED);
    // Setup: either colour (handicap stones, White first; problems).
    assert_eq!(
        outcome("(;GM[1]SZ[9]HA[2]AB[cc][gg];W[ee];B[dd])"),
        UNFINISHED
    );
    assert_eq!(outcome("(;GM[1]SZ[9]AB[cc];B[ee];W[dd])"), UNFINISHED);
    assert_eq!(outcome("(;GM[1]SZ[9];AE[cc];W[ee])"), UNFINISHED);
    // PL before the setup still names the player.
    assert_eq!(
        outcome("(;GM[1]SZ[9]PL[B];AB[cc];W[ee])"),
        illegal(Reason::WrongPlayer, 1, "W[ee]")
    );
    // Free handicap as moves: HA Black moves, then White.
    assert_eq!(
        outcome("(;GM[1]SZ[9]HA[3];B[cc];B[gg];B[ee];W[dd])"),
        UNFINISHED
    );
    assert_eq!(
        outcome("(;GM[1]SZ[9]HA[3];B[cc];B[gg];W[ee])"),
        illegal(Reason::WrongPlayer, 3, "W[ee]")
    );
    assert_eq!(
        outcome("(;GM[1]SZ[9]HA[2];B[cc];B[gg];B[ee])"),
        illegal(Reason::WrongPlayer, 3, "B[ee]")
    );
    // HA that is not an integer: ignored, with a warning.
    let v = verdict("(;GM[1]SZ[9]HA[7.5];B[cc];B[gg])");
    assert_eq!(v.illegal.as_ref().unwrap().reason, Reason::WrongPlayer);
    assert_eq!(codes(&v), ["handicap_ignored"]);
}

#[test]
fn an_empty_node_is_not_a_pass() {
    assert_eq!(
        outcome("(;GM[1]SZ[9];B[aa];W[cc];B[dd];C[empty];B[ee])"),
        illegal(Reason::WrongPlayer, 4, "B[ee]")
    );
}

#[test]
fn pl_in_a_node_with_a_move_names_the_next_player() {
    let v = verdict("(;GM[1]SZ[9];B[aa]PL[B];B[bb];W[cc])");
    assert_eq!(v.status, Status::Unfinished);
    assert_eq!(codes(&v), ["pl_with_move"]);
    // PL in a node without a move, in the game.
    assert_eq!(outcome("(;GM[1]SZ[9];B[aa];PL[B];B[bb])"), UNFINISHED);
}

#[test]
fn setup_in_the_game_restarts_the_records_and_frees_the_turn() {
    // After setup: either colour (here Black again).
    let v = verdict("(;GM[1]SZ[9];B[aa];W[bb];AB[cc];W[dd];B[ee])");
    assert_eq!(v.status, Status::Unfinished);
    assert_eq!(codes(&v), ["setup_in_game"]);
    let v = verdict("(;GM[1]SZ[9];B[aa];W[bb];AB[cc]PL[B];W[dd])");
    assert_eq!(v.illegal.unwrap().reason, Reason::WrongPlayer);
    // In a move node: applied before the move (aa emptied, then played).
    let v = verdict("(;GM[1]SZ[9];B[aa];W[bb];AE[aa]B[aa])");
    assert_eq!(v.status, Status::Unfinished);
    assert_eq!(codes(&v), ["setup_with_move", "setup_in_game"]);
    // A setup leaving a group without liberties keeps it.
    let v = verdict("(;GM[1]SZ[9]AB[aa]AW[ab][ba];B[ee])");
    assert_eq!(v.status, Status::Unfinished);
    assert_eq!(codes(&v), ["setup_no_liberties"]);
    let validation = validate(
        read_records(b"(;GM[1]SZ[9]AB[aa]AW[ab][ba];B[ee])")[0]
            .as_ref()
            .unwrap(),
    );
    let replay = validation.replay.unwrap();
    assert_eq!(replay.start.get(keil_rules::Point(0)), Some(Color::Black));
}

#[test]
fn ru_values_map_to_rulesets() {
    for (ru, rules, mapped) in [
        (Some("Tromp/Taylor"), GoRuleset::TrompTaylor, RuMapped::Ru),
        (Some("TT"), GoRuleset::TrompTaylor, RuMapped::Ru),
        (Some("Japanese 1989"), GoRuleset::Japanese, RuMapped::Ru),
        (Some("Chinese (superko)"), GoRuleset::Chinese, RuMapped::Ru),
        (Some("New Zealand"), GoRuleset::Nz, RuMapped::Ru),
        (Some("Kee Rules"), GoRuleset::Kee, RuMapped::Ru),
        (Some("GOE"), GoRuleset::Japanese, RuMapped::Unknown),
        (Some(""), GoRuleset::Japanese, RuMapped::Missing),
        (None, GoRuleset::Japanese, RuMapped::Missing),
    ] {
        let ru = ru.map(|r| format!("RU[{r}]")).unwrap_or_default();
        let v = verdict(&format!("(;GM[1]SZ[9]{ru};B[ee])"));
        assert_eq!(v.rules, keil_record::Rules::Go(rules, mapped), "{ru}");
    }
}

#[test]
fn results_are_reported_under_agreement_rules() {
    let go = |re: &str| verdict(&format!("(;GM[1]SZ[9]RE[{re}];B[ee];W[cc])"));
    let v = go("B+R");
    assert_eq!(
        (v.status, v.winner, v.margin),
        (Status::Resigned, Some(Winner::Black), None)
    );
    assert_eq!(go("W+Time").status, Status::Time);
    assert_eq!(go("B+F").status, Status::Forfeit);
    assert_eq!(go("B+I").status, Status::Forfeit);
    let v = go("W+3.5");
    assert_eq!(
        (v.status, v.winner, v.margin),
        (Status::Scored, Some(Winner::White), Some(HalfPoints(7)))
    );
    assert_eq!(go("B+").status, Status::Scored);
    let v = go("Jigo");
    assert_eq!((v.status, v.winner), (Status::Scored, Some(Winner::Draw)));
    assert_eq!(go("W+0.0").winner, Some(Winner::Draw));
    // A score is any positive number (go-rules.md), not only a multiple of
    // 0.5: W+0.02 (Fox records) is a score; its margin is not a number of
    // half-points, so the verdict names the winner and no margin.
    for (re, winner) in [
        ("W+0.02", Winner::White),
        ("B+0.03", Winner::Black),
        ("B+0.2", Winner::Black),
        ("W+1.25", Winner::White),
        ("w+ 3.75 ", Winner::White),
    ] {
        let v = go(re);
        assert_eq!(
            (v.status, v.winner, v.margin),
            (Status::Scored, Some(winner), None),
            "{re}"
        );
    }
    // The record keeps the margin as written; the JSON line is well-formed,
    // its margin null (not rounded to half-points).
    let sgf = "(;GM[1]SZ[9]KM[750]RE[W+0.020];B[ee];W[cc])";
    let records = read_records(sgf.as_bytes());
    let record = records[0].as_ref().unwrap();
    let result = record.info.result.expect("a result");
    assert_eq!(result.to_string(), "W+0.02");
    assert_eq!(GameResult::parse_go(&result.to_string()), Some(result));
    let json = validate(record).verdict.to_json("f.sgf", 0);
    let line = serde_json::to_string(&json).unwrap();
    let back: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        (&back["status"], &back["winner"], &back["margin"]),
        (&"scored".into(), &"W".into(), &serde_json::Value::Null)
    );
    let mut written = Vec::new();
    validate(record)
        .verdict
        .write_json("f.sgf", 0, &mut written);
    let fast: serde_json::Value = serde_json::from_slice(&written).unwrap();
    assert_eq!(fast, back);
    // Zero is a draw, however written; a sign, an exponent, infinities and
    // NaN are no positive number: unparsed.
    for draw in ["W+0", "B+0.00", "W+.0", "W+00"] {
        let v = go(draw);
        assert_eq!(
            (v.status, v.winner, v.margin),
            (Status::Scored, Some(Winner::Draw), Some(HalfPoints(0))),
            "{draw}"
        );
    }
    for unfinished in [
        "?",
        "Void",
        "B",
        "B+AW",
        "john wins",
        "W+-3",
        "W+-0.5",
        "B+-0.02",
        "W++3",
        "W+abc",
        "W+1e9",
        "W+1E2",
        "W+inf",
        "W+Infinity",
        "W+NaN",
        "W+0x10",
        "W+3.5.5",
        "W+.",
        "W+1,5",
        "W+99999999999999999999",
        "W+1073741824",
    ] {
        let v = go(unfinished);
        assert_eq!(
            (v.status, v.winner),
            (Status::Unfinished, None),
            "{unfinished}"
        );
    }
    // Ended by passes: complete, RE reported and never checked.
    let v = verdict("(;GM[1]SZ[9]RE[W+R];B[ee];W[];B[])");
    assert_eq!(
        (v.status, v.winner, v.re_checked),
        (Status::Complete, Some(Winner::White), false)
    );
    assert_eq!(v.score, None);
}

#[test]
fn results_are_checked_under_tromp_taylor_and_kee() {
    // 3x3, Black at the centre owns the board: B+9 with no komi.
    let tt = |re: &str| verdict(&format!("(;GM[1]SZ[3]RU[TT]RE[{re}];B[bb];W[];B[])"));
    let v = tt("B+9");
    assert_eq!(
        (v.status, v.re_checked, v.margin),
        (Status::Complete, true, Some(HalfPoints(18)))
    );
    assert_eq!(tt("B+").status, Status::Complete);
    assert_eq!(tt("Void").status, Status::Complete);
    assert_eq!(tt("?").status, Status::Complete);
    // A margin between half-points never equals a computed one.
    for mismatch in ["B+8", "W+9", "B+R", "0", "B+9.02", "B+8.99"] {
        let v = tt(mismatch);
        assert_eq!(v.status, Status::Invalid, "{mismatch}");
        assert_eq!(v.illegal.as_ref().unwrap().reason, Reason::ResultMismatch);
        assert_eq!(v.winner, Some(Winner::Black));
    }
    // A move after two passes ends... under tromp-taylor: after_end.
    assert_eq!(
        outcome("(;GM[1]SZ[3]RU[TT];B[bb];W[];B[];W[aa])"),
        illegal(Reason::AfterEnd, 4, "W[aa]")
    );
    // Kee: four passes.
    let v = verdict("(;GM[1]SZ[3]RU[Kee]RE[B+9];B[bb];W[];B[];W[];B[])");
    assert_eq!((v.status, v.re_checked), (Status::Complete, true));
    assert_eq!(v.superko_breaks, Some(vec![]));
    assert_eq!(v.pass_plays, Some(vec![]));
    assert_eq!(
        verdict("(;GM[1]SZ[3]RU[Kee];B[bb];W[];B[])").status,
        Status::Unfinished
    );
}

#[test]
fn variations_are_replayed_from_the_start_with_their_location() {
    let sgf = "(;GM[1]SZ[9]\n;B[ee];W[cc]\n(;B[gg])\n(;W[gg])\n(;B[ee]))";
    let v = verdict(sgf);
    assert_eq!(v.status, Status::Unfinished);
    let vars: Vec<_> = v
        .variations
        .iter()
        .map(|x| {
            let i = x.illegal.as_ref().unwrap();
            (
                x.path.clone(),
                x.branch_ply,
                i.reason,
                i.ply,
                i.line,
                i.column,
            )
        })
        .collect();
    assert_eq!(
        vars,
        [
            (vec![1], 3, Reason::WrongPlayer, 3, 4, 2),
            (vec![2], 3, Reason::Occupied, 3, 5, 2)
        ]
    );
}

#[test]
fn gm_chooses_the_game() {
    let kind = |sgf: &str| {
        read_records(sgf.as_bytes())[0]
            .as_ref()
            .map(|r| r.kind())
            .map_err(|e| e.code())
    };
    assert_eq!(kind("(;GM[1])"), Ok(GameKind::Go));
    assert_eq!(kind("(;GM[Keil]SZ[2])"), Ok(GameKind::Keil));
    assert_eq!(kind("(;SZ[2]RU[Keil; button=off])"), Ok(GameKind::Keil));
    assert_eq!(kind("(;SZ[19])"), Ok(GameKind::Go));
    assert_eq!(kind("(;GM[11])"), Err("unknown_game"));
    assert_eq!(kind("(;GM[Kaomi])"), Ok(GameKind::Kaomi));
    assert_eq!(kind("(;RU[Kaomi])"), Ok(GameKind::Kaomi));
    let e = read_records(b"(;GM[11]SZ[11])").remove(0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "1:6: not a Keil, Go or Kaomi record: GM[11] is Hex (expected GM[Keil], GM[1] or GM[Kaomi])"
    );
    let v = verdict("(;SZ[9];B[ee])");
    assert_eq!(codes(&v), ["missing_gm"]);
    assert_eq!(
        v.warnings[0].to_string(),
        "no GM property: read as GM[1] (Go)"
    );
}
