//! The kee-vectors of the shared folder (`../shared/data/kee-vectors`,
//! expected.jsonl), replayed at the rules level: Go records under every
//! ruleset and Keil records with `ko=kee`. The record layer tests the same
//! files end to end (RE, warnings, malformed values); here only what the
//! rules decide is compared: the first illegal move (ply, reason, move,
//! `repeats_plies`, `kee_check`), whether the line ended by passes,
//! `superko_breaks`, `pass_plays` and the computed scores.
//!
//! The records are read with a deliberately small SGF reader (these files
//! are plain FF[4]); keil-rules does not depend on keil-sgf. Skipped, with a
//! note, when the shared folder is absent.

use std::path::PathBuf;

use keil_rules::{
    AnyGame, AnyPosition, AnyRuleset, BoardSpec, Color, GameKind, GoRuleset, HalfPoints,
    IllegalReason, Move, Ruleset, SgfPointError, ToMove,
};
use serde_json::Value;

// ---- a small SGF reader ---------------------------------------------------------

#[derive(Debug, Default)]
struct Node {
    props: Vec<(String, Vec<String>)>,
}

impl Node {
    fn get(&self, id: &str) -> Option<&[String]> {
        self.props
            .iter()
            .find(|(k, _)| k == id)
            .map(|(_, v)| v.as_slice())
    }
    fn one(&self, id: &str) -> Option<&str> {
        self.get(id).and_then(|v| v.first()).map(String::as_str)
    }
}

#[derive(Debug, Default)]
struct Tree {
    nodes: Vec<Node>,
    children: Vec<Vec<usize>>,
}

/// The first game tree of an SGF text.
fn parse_sgf(text: &str) -> Tree {
    let mut tree = Tree::default();
    let mut stack: Vec<Option<usize>> = Vec::new();
    let mut current: Option<usize> = None;
    let mut chars = text.chars().peekable();
    let mut ident = String::new();
    while let Some(c) = chars.next() {
        match c {
            '(' => stack.push(current),
            ')' => {
                current = stack.pop().expect("balanced");
                if stack.is_empty() {
                    break;
                }
            }
            ';' => {
                let id = tree.nodes.len();
                tree.nodes.push(Node::default());
                tree.children.push(Vec::new());
                if let Some(parent) = current {
                    tree.children[parent].push(id);
                }
                current = Some(id);
            }
            '[' => {
                let mut value = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => value.extend(chars.next()),
                        ']' => break,
                        c => value.push(c),
                    }
                }
                let node = &mut tree.nodes[current.expect("a node")];
                if !ident.is_empty() {
                    node.props.push((std::mem::take(&mut ident), Vec::new()));
                }
                node.props.last_mut().expect("a property").1.push(value);
            }
            c if c.is_ascii_uppercase() => ident.push(c),
            _ => {}
        }
    }
    tree
}

/// The nodes of the main line, and of the variation at the first branch.
fn lines(tree: &Tree) -> (Vec<usize>, Option<Vec<usize>>) {
    let follow = |mut at: usize, mut path: Vec<usize>| {
        path.push(at);
        while let Some(&c) = tree.children[at].first() {
            path.push(c);
            at = c;
        }
        path
    };
    let main = follow(0, Vec::new());
    let variation = main
        .iter()
        .position(|&n| tree.children[n].len() > 1)
        .map(|i| follow(tree.children[main[i]][1], main[..=i].to_vec()));
    (main, variation)
}

// ---- replay ---------------------------------------------------------------------

/// An illegal move: ply, reason code, move as written, `repeats_plies`,
/// `kee_check`.
type Illegal = (u32, String, String, Option<Vec<u32>>, Option<String>);

#[derive(Debug, Default, PartialEq)]
struct Outcome {
    illegal: Option<Illegal>,
    complete: bool,
    superko_breaks: Vec<u32>,
    pass_plays: Vec<u32>,
    score: (f64, f64),
}

fn setup_into(position: &mut AnyPosition, node: &Node) -> bool {
    let mut any = false;
    for (id, stone) in [
        ("AB", Some(Color::Black)),
        ("AW", Some(Color::White)),
        ("AE", None),
    ] {
        for v in node.get(id).unwrap_or(&[]) {
            any = true;
            let board = position.board();
            let points = match v.split_once(':') {
                None => vec![board.parse_point(v).unwrap()],
                Some((a, b)) => {
                    let (a, b) = (board.parse_point(a).unwrap(), board.parse_point(b).unwrap());
                    let AnyPosition::Go(go) = position else {
                        panic!("compressed list in Keil")
                    };
                    let sq = go.board();
                    let ((c0, r0), (c1, r1)) = (sq.coords(a), sq.coords(b));
                    let mut out = Vec::new();
                    for r in r0.min(r1)..=r0.max(r1) {
                        for c in c0.min(c1)..=c0.max(c1) {
                            out.push(sq.point_at(c as i32, r as i32).unwrap());
                        }
                    }
                    out
                }
            };
            for p in points {
                position.set(p, stone);
            }
        }
    }
    any
}

fn color_of(s: &str) -> Option<ToMove> {
    match s {
        "B" | "b" => Some(ToMove::Color(Color::Black)),
        "W" | "w" => Some(ToMove::Color(Color::White)),
        _ => None,
    }
}

fn replay(tree: &Tree, path: &[usize]) -> Outcome {
    let root = &tree.nodes[0];
    let kind = match root.one("GM") {
        Some(gm) if gm.eq_ignore_ascii_case("keil") => GameKind::Keil,
        _ => GameKind::Go,
    };
    let size: u8 = root
        .one("SZ")
        .map(|s| s.split(':').next().unwrap().parse().unwrap())
        .unwrap_or(19);
    let komi: HalfPoints = root
        .one("KM")
        .and_then(|k| k.parse().ok())
        .unwrap_or_default();
    let rules = match kind {
        GameKind::Keil => {
            let mut r: Ruleset = root.one("RU").unwrap_or("Keil").parse().unwrap();
            r.komi = komi;
            AnyRuleset::Keil(r)
        }
        _ => AnyRuleset::Go {
            ruleset: GoRuleset::from_ru(root.one("RU")).0,
            komi,
        },
    };
    let spec = BoardSpec::new(kind, size).unwrap();
    let handicap: u32 = root.one("HA").and_then(|h| h.parse().ok()).unwrap_or(0);
    let mut out = Outcome::default();

    // The initial position: setup before the first move (and in its node).
    let first_move = path
        .iter()
        .position(|&n| tree.nodes[n].get("B").is_some() || tree.nodes[n].get("W").is_some())
        .unwrap_or(path.len());
    let mut start = AnyPosition::empty(spec).unwrap();
    let mut any_setup = false;
    let mut pl = None;
    for &n in &path[..(first_move + 1).min(path.len())] {
        any_setup |= setup_into(&mut start, &tree.nodes[n]);
        if n != *path.get(first_move).unwrap_or(&usize::MAX) {
            pl = tree.nodes[n].one("PL").and_then(color_of).or(pl);
        }
    }
    let to_move = pl.unwrap_or(if any_setup {
        ToMove::Either
    } else {
        ToMove::Color(Color::Black)
    });
    let mut game = AnyGame::new(spec, rules, Some(&start), to_move).unwrap();
    if pl.is_none() && !any_setup && handicap >= 2 {
        game.set_handicap_moves(handicap).unwrap();
    }

    let mut ply = 0;
    for (i, &n) in path.iter().enumerate() {
        let node = &tree.nodes[n];
        let mv = node
            .get("B")
            .map(|v| (Color::Black, v))
            .or(node.get("W").map(|v| (Color::White, v)));
        if i > first_move {
            let mut pos = game.position();
            if setup_into(&mut pos, node) {
                let t = node.one("PL").and_then(color_of).unwrap_or(ToMove::Either);
                game.apply_setup(&pos, t).unwrap();
            } else if mv.is_none()
                && let Some(t) = node.one("PL").and_then(color_of)
            {
                game.set_to_move(t).unwrap();
            }
        }
        let Some((color, values)) = mv else { continue };
        ply += 1;
        let value = values.first().map(String::as_str).unwrap_or("");
        let written = format!("{}[{value}]", color.letter());
        let board = game.board();
        let result = game.check_turn(color).map_err(|e| e.reason).and_then(|()| {
            let mv = match (kind, value) {
                (_, "") => Move::Pass,
                (GameKind::Go, "tt") => Move::Pass,
                (GameKind::Keil, "pass") => Move::Pass,
                (GameKind::Keil, "button") => Move::TakeButton,
                _ => match board.parse_point(value) {
                    Ok(p) => Move::Place(p),
                    Err(keil_rules::AnyPointError::Square(SgfPointError::Malformed(m))) => {
                        panic!("malformed {m}")
                    }
                    Err(_) => return Err(IllegalReason::OffBoard),
                },
            };
            game.play_as(color, mv).map_err(|e| e.reason)
        });
        match result {
            Ok(_) => {
                if i >= first_move
                    && let Some(t) = node.one("PL").and_then(color_of)
                {
                    game.set_to_move(t).unwrap();
                }
            }
            Err(reason) => {
                let (repeats, kee) = match &reason {
                    IllegalReason::Repetition { plies, kee } => {
                        (Some(plies.clone()), kee.map(|k| k.code().to_string()))
                    }
                    _ => (None, None),
                };
                out.illegal = Some((ply, reason.code().to_string(), written, repeats, kee));
                break;
            }
        }
    }
    out.complete = game.is_complete();
    out.superko_breaks = game.superko_breaks().to_vec();
    out.pass_plays = game.pass_plays().to_vec();
    let score = game.score();
    out.score = (score.black.as_f64(), score.white.as_f64());
    out
}

fn plies(v: &Value) -> Option<Vec<u32>> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_u64().unwrap() as u32).collect())
}

const RULE_REASONS: [&str; 9] = [
    "after_end",
    "wrong_player",
    "off_board",
    "occupied",
    "self_capture",
    "repetition",
    "pass_before_button",
    "button_taken",
    "button_not_in_use",
];

/// Compares one line's outcome with its expected verdict; returns the
/// differences.
fn compare(file: &str, line: &str, got: &Outcome, exp: &Value, main: bool) -> Vec<String> {
    let mut errors = Vec::new();
    let status = exp["status"].as_str().unwrap();
    let reason = exp["reason"].as_str();
    let mut diff = |what: &str, a: String, b: String| {
        if a != b {
            errors.push(format!("{file} {line}: {what}: got {a}, expected {b}"));
        }
    };
    match reason.filter(|r| RULE_REASONS.contains(r)) {
        Some(r) => {
            let exp_illegal = (
                exp["ply"].as_u64().unwrap() as u32,
                r.to_string(),
                exp["move"].as_str().unwrap().to_string(),
                plies(&exp["repeats_plies"]),
                exp["kee_check"].as_str().map(str::to_string),
            );
            diff(
                "illegal move",
                format!("{:?}", got.illegal),
                format!("{:?}", Some(exp_illegal)),
            );
        }
        None => {
            diff("illegal move", format!("{:?}", got.illegal), "None".into());
            if status == "complete" {
                diff("complete", got.complete.to_string(), "true".into());
            } else if status != "invalid" {
                diff("complete", got.complete.to_string(), "false".into());
            }
        }
    }
    if !main {
        return errors;
    }
    if let Some(b) = plies(&exp["superko_breaks"]) {
        diff(
            "superko_breaks",
            format!("{:?}", got.superko_breaks),
            format!("{b:?}"),
        );
    }
    if let Some(p) = plies(&exp["pass_plays"]) {
        diff(
            "pass_plays",
            format!("{:?}", got.pass_plays),
            format!("{p:?}"),
        );
    }
    if let (Some(b), Some(w)) = (exp["score_black"].as_f64(), exp["score_white"].as_f64()) {
        diff("score", format!("{:?}", got.score), format!("{:?}", (b, w)));
    }
    errors
}

fn shared() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    dir.is_dir().then_some(dir)
}

#[test]
fn kee_vectors_replay_to_their_expected_verdicts() {
    let Some(shared) = shared() else {
        eprintln!("note: ../shared is absent; kee-vectors skipped");
        return;
    };
    let dir = shared.join("data/kee-vectors");
    let expected = std::fs::read_to_string(dir.join("expected.jsonl")).unwrap();
    let mut errors = Vec::new();
    let mut count = 0;
    for line in expected.lines() {
        let exp: Value = serde_json::from_str(line).unwrap();
        let file = exp["file"].as_str().unwrap();
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let tree = parse_sgf(&text);
        let (main, variation) = lines(&tree);
        errors.extend(compare(file, "main", &replay(&tree, &main), &exp, true));
        if let (Some(var), Some(vexp)) = (variation, exp["variations"].get(0)) {
            errors.extend(compare(
                file,
                "variation",
                &replay(&tree, &var),
                vexp,
                false,
            ));
        }
        count += 1;
    }
    assert!(count >= 400, "{count} vectors");
    assert!(
        errors.is_empty(),
        "{} differences:\n{}",
        errors.len(),
        errors.join("\n")
    );
}
