//! The shared answer key (`../shared/data/keil-vectors/`): every main line
//! replayed through the engine gets the expected status, first illegal ply,
//! reason, repeated plies and scores.
//!
//! The records are read by a deliberately small test-only reader (the vector
//! files are well-formed); the full agreement test, variations included, is
//! the validator's (keil-record).

use std::path::PathBuf;

use keil_rules::{Board, Color, Game, HalfPoints, IllegalReason, Move, PointError, Ruleset};

fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("KEIL_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    dir.join("data/keil-vectors/expected.jsonl")
        .exists()
        .then_some(dir)
}

/// One node: its properties in order.
type Node = Vec<(String, Vec<String>)>;

/// Reads the main line (first child at every branch) of the first game tree.
fn main_line(text: &str) -> Vec<Node> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut nodes = Vec::new();
    let mut depth = 0i32;
    // Depth of the variation we follow; once it closes or a sibling opens,
    // we stop.
    let mut follow = 1;
    while i < b.len() {
        match b[i] {
            b'(' => {
                depth += 1;
                if depth > follow {
                    if depth == follow + 1 && !nodes.is_empty() {
                        follow += 1;
                    } else {
                        break;
                    }
                }
                i += 1;
            }
            b')' => break,
            b';' => {
                i += 1;
                let mut node = Node::new();
                loop {
                    while i < b.len() && b[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    if i >= b.len() || !b[i].is_ascii_uppercase() {
                        break;
                    }
                    let s = i;
                    while b[i].is_ascii_uppercase() {
                        i += 1;
                    }
                    let ident = text[s..i].to_string();
                    let mut values = Vec::new();
                    loop {
                        while i < b.len() && b[i].is_ascii_whitespace() {
                            i += 1;
                        }
                        if i >= b.len() || b[i] != b'[' {
                            break;
                        }
                        i += 1;
                        let mut v = String::new();
                        while b[i] != b']' {
                            if b[i] == b'\\' {
                                i += 1;
                            }
                            let ch = text[i..].chars().next().unwrap();
                            v.push(ch);
                            i += ch.len_utf8();
                        }
                        i += 1;
                        values.push(v);
                    }
                    node.push((ident, values));
                }
                nodes.push(node);
            }
            _ => i += 1,
        }
    }
    nodes
}

fn prop<'a>(node: &'a Node, id: &str) -> Option<&'a str> {
    node.iter()
        .find(|(k, _)| k == id)
        .map(|(_, v)| v[0].as_str())
}

fn as_half(v: &serde_json::Value) -> Option<HalfPoints> {
    v.as_f64().map(|f| HalfPoints((f * 2.0).round() as i32))
}

#[test]
fn main_lines_agree_with_the_answer_key() {
    let Some(shared) = shared() else {
        eprintln!("note: ../shared is absent; skipping the keil-vectors answer key");
        return;
    };
    let dir = shared.join("data/keil-vectors");
    let expected = std::fs::read_to_string(dir.join("expected.jsonl")).unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in expected.lines() {
        let want: serde_json::Value = serde_json::from_str(line).unwrap();
        let file = want["file"].as_str().unwrap();
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let nodes = main_line(&text);
        let root = &nodes[0];
        let board = Board::new(prop(root, "SZ").map_or(7, |s| s.parse().unwrap())).unwrap();
        let mut rules: Ruleset = prop(root, "RU").unwrap_or("Keil").parse().unwrap();
        rules.komi = prop(root, "KM").map_or(HalfPoints(0), |k| k.parse().unwrap());
        assert_eq!(
            rules.komi_warning(),
            want["komi_warning"].as_bool().unwrap(),
            "{file}"
        );
        let mut game = Game::new(board, rules);
        let mut got_illegal: Option<(u32, String, Vec<u32>)> = None;
        let mut ply = 0;
        for node in &nodes[1..] {
            let Some((ident, values)) = node.iter().find(|(k, _)| k == "B" || k == "W") else {
                continue;
            };
            ply += 1;
            let color = if ident == "B" {
                Color::Black
            } else {
                Color::White
            };
            if let Err(e) = game.check_turn(color) {
                got_illegal = Some((ply, e.reason.code().into(), vec![]));
                break;
            }
            let mv = match values[0].as_str() {
                "" | "pass" => Move::Pass,
                "button" => Move::TakeButton,
                name => match board.parse_point(name) {
                    Ok(p) => Move::Place(p),
                    Err(PointError::OffBoard { .. }) => {
                        got_illegal = Some((ply, "off_board".into(), vec![]));
                        break;
                    }
                    Err(e) => panic!("{file}: {e}"),
                },
            };
            if let Err(e) = game.play_as(color, mv) {
                let plies = match &e.reason {
                    IllegalReason::Repetition { plies, .. } => plies.clone(),
                    _ => vec![],
                };
                got_illegal = Some((ply, e.reason.code().into(), plies));
                break;
            }
        }
        let re = prop(root, "RE");
        let status = want["status"].as_str().unwrap();
        let reason = want["reason"].as_str();
        let mut fail = |what: String| failures.push(format!("{file}: {what}"));
        match (status, reason) {
            ("invalid", Some("result_mismatch")) => {
                // The moves are legal; the RE disagrees with how it ended.
                if got_illegal.is_some() {
                    fail(format!("unexpected illegal move {got_illegal:?}"));
                }
                let s = game.score();
                let claimed = re.unwrap();
                let computed = match s.winner() {
                    Some(c) => format!("{}+{}", c.letter(), s.margin()),
                    None => "0".into(),
                };
                if game.is_over() && claimed == computed {
                    fail(format!("RE {claimed} agrees with the score"));
                }
            }
            ("invalid", Some(reason)) => {
                let want_ply = want["ply"].as_u64().unwrap() as u32;
                let want_plies: Vec<u32> = want["repeats_plies"]
                    .as_array()
                    .map(|a| a.iter().map(|v| v.as_u64().unwrap() as u32).collect())
                    .unwrap_or_default();
                match &got_illegal {
                    Some((p, r, plies))
                        if *p == want_ply && r == reason && *plies == want_plies => {}
                    other => fail(format!(
                        "want {reason} at ply {want_ply} {want_plies:?}, got {other:?}"
                    )),
                }
            }
            _ => {
                if let Some(g) = got_illegal {
                    fail(format!("want {status}, got illegal {g:?}"));
                    continue;
                }
                match status {
                    "complete" => {
                        if !game.is_over() {
                            fail("not over".into());
                        }
                        let s = game.score();
                        let winner = match s.winner() {
                            Some(c) => c.letter().to_string(),
                            None => "draw".into(),
                        };
                        let got = (winner, s.margin(), s.black, s.white, s.tally.unlinked);
                        let exp = (
                            want["winner"].as_str().unwrap().to_string(),
                            as_half(&want["margin"]).unwrap(),
                            as_half(&want["score_black"]).unwrap(),
                            as_half(&want["score_white"]).unwrap(),
                            want["unlinked_territory_points"].as_u64().unwrap() as u16,
                        );
                        if got != exp {
                            fail(format!("score {got:?}, want {exp:?}"));
                        }
                    }
                    "resigned" | "unfinished" if game.is_over() => {
                        fail(format!("{status} but the game ended by passes"))
                    }
                    _ => {}
                }
            }
        }
        checked += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked >= 300, "only {checked} vectors read");
    eprintln!("keil-vectors: {checked} of {checked} main lines agree");
}
