//! A deliberately small, test-only reader and replayer for the simple
//! records this crate writes and keeps in `fixtures/` (well-formed SGF; the
//! real parser is keil-sgf, the real validator keil-record).
#![allow(dead_code)]

use keil_rules::{
    Board, Color, Game, HalfPoints, IllegalReason, Move, PointError, Position, Ruleset,
};
use serde_json::{Value, json};

/// A node: its properties in order, values unescaped.
pub type Node = Vec<(String, Vec<String>)>;

/// A game tree.
#[derive(Debug, Default)]
pub struct Tree {
    pub nodes: Vec<Node>,
    pub children: Vec<Tree>,
}

impl Tree {
    /// The main line: the nodes along the first child at every branch.
    pub fn main_line(&self) -> Vec<&Node> {
        let mut out: Vec<&Node> = self.nodes.iter().collect();
        if let Some(first) = self.children.first() {
            out.extend(first.main_line());
        }
        out
    }
}

/// Every game tree of a collection.
pub fn read_collection(text: &str) -> Vec<Tree> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut trees = Vec::new();
    loop {
        skip_ws(b, &mut i);
        if i >= b.len() {
            return trees;
        }
        assert_eq!(b[i], b'(', "a game tree at byte {i}");
        trees.push(tree(text, &mut i));
    }
}

fn skip_ws(b: &[u8], i: &mut usize) {
    while *i < b.len() && b[*i].is_ascii_whitespace() {
        *i += 1;
    }
}

fn tree(text: &str, i: &mut usize) -> Tree {
    let b = text.as_bytes();
    *i += 1; // '('
    let mut t = Tree::default();
    loop {
        skip_ws(b, i);
        match b[*i] {
            b';' => {
                *i += 1;
                t.nodes.push(node(text, i));
            }
            b'(' => t.children.push(tree(text, i)),
            b')' => {
                *i += 1;
                return t;
            }
            c => panic!("unexpected {:?} at byte {i}", c as char),
        }
    }
}

fn node(text: &str, i: &mut usize) -> Node {
    let b = text.as_bytes();
    let mut props = Node::new();
    loop {
        skip_ws(b, i);
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_uppercase() {
            *i += 1;
        }
        if start == *i {
            return props;
        }
        let ident = text[start..*i].to_string();
        let mut values = Vec::new();
        loop {
            skip_ws(b, i);
            if *i >= b.len() || b[*i] != b'[' {
                break;
            }
            *i += 1;
            let mut v = String::new();
            loop {
                let ch = text[*i..].chars().next().expect("a closed value");
                *i += ch.len_utf8();
                match ch {
                    ']' => break,
                    '\\' => {
                        let next = text[*i..].chars().next().unwrap();
                        *i += next.len_utf8();
                        v.push(next);
                    }
                    c => v.push(c),
                }
            }
            values.push(v);
        }
        props.push((ident, values));
    }
}

/// The 64-bit FNV-1a digest of some bytes, in hex: pinned corpora are
/// compared by it.
pub fn digest(bytes: &[u8]) -> String {
    let d = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    format!("{d:016x}")
}

/// The first value of a property of a node.
pub fn prop<'a>(node: &'a Node, id: &str) -> Option<&'a str> {
    node.iter()
        .find(|(k, _)| k == id)
        .map(|(_, v)| v[0].as_str())
}

/// The verdict of a main line, with the fields of `expected.jsonl`.
#[derive(Debug)]
pub struct Verdict {
    pub json: Value,
    /// The game after the last legal move.
    pub game: Game,
}

/// Replays the main line of `tree` through keil-rules and gives its verdict
/// in the fields of `../shared/data/keil-vectors/expected.jsonl` (status,
/// winner, margin, score_black, score_white, ply, reason, move,
/// repeats_plies, plies, komi_warning).
pub fn verdict(tree: &Tree) -> Verdict {
    let line = tree.main_line();
    let root = line[0];
    let board = Board::new(prop(root, "SZ").map_or(7, |s| s.parse().unwrap())).unwrap();
    let mut rules: Ruleset = prop(root, "RU").unwrap_or("Keil").parse().unwrap();
    rules.komi = prop(root, "KM").map_or(HalfPoints(0), |k| k.parse().unwrap());
    let points = |id: &str| -> Vec<_> {
        root.iter()
            .filter(|(k, _)| k == id)
            .flat_map(|(_, v)| v.iter().map(|n| board.parse_point(n).unwrap()))
            .collect()
    };
    let (ab, aw) = (points("AB"), points("AW"));
    let mut game = if ab.is_empty() && aw.is_empty() {
        Game::new(board, rules)
    } else {
        let setup = Position::from_stones(board, ab, aw, false).unwrap();
        let first = if prop(root, "PL") == Some("W") {
            Color::White
        } else {
            Color::Black
        };
        Game::from_setup(&setup, rules, first)
    };
    let mut illegal: Option<(u32, &str, String, Option<Vec<u32>>)> = None;
    let mut plies = 0u32;
    for node in &line[1..] {
        let Some((ident, values)) = node.iter().find(|(k, _)| k == "B" || k == "W") else {
            continue;
        };
        plies += 1;
        if illegal.is_some() {
            continue;
        }
        let color = if ident == "B" {
            Color::Black
        } else {
            Color::White
        };
        let written = format!("{ident}[{}]", values[0]);
        if let Err(e) = game.check_turn(color) {
            illegal = Some((plies, e.reason.code(), written, None));
            continue;
        }
        let mv = match values[0].as_str() {
            "" | "pass" => Move::Pass,
            "button" => Move::TakeButton,
            name => match board.parse_point(name) {
                Ok(p) => Move::Place(p),
                Err(PointError::OffBoard { .. }) => {
                    illegal = Some((plies, "off_board", written, None));
                    continue;
                }
                Err(e) => panic!("malformed move {name:?}: {e}"),
            },
        };
        if let Err(e) = game.play_as(color, mv) {
            let repeats = match &e.reason {
                IllegalReason::Repetition { plies, .. } => Some(plies.clone()),
                _ => None,
            };
            illegal = Some((plies, e.reason.code(), written, repeats));
        }
    }
    let mut v = json!({
        "status": null, "winner": null, "margin": null, "score_black": null,
        "score_white": null, "ply": null, "reason": null, "move": null,
        "repeats_plies": null, "plies": plies, "komi_warning": rules.komi_warning(),
        "unlinked_territory_points": null,
    });
    let re = prop(root, "RE").filter(|r| !r.is_empty() && *r != "?");
    if let Some((ply, reason, mv, repeats)) = illegal {
        v["status"] = "invalid".into();
        v["ply"] = ply.into();
        v["reason"] = reason.into();
        v["move"] = mv.into();
        v["repeats_plies"] = json!(repeats);
    } else if game.is_over() {
        let s = game.score();
        let winner = match s.winner() {
            Some(c) => c.letter().to_string(),
            None => "draw".into(),
        };
        v["winner"] = winner.clone().into();
        v["margin"] = s.margin().as_f64().into();
        v["score_black"] = s.black.as_f64().into();
        v["score_white"] = s.white.as_f64().into();
        v["unlinked_territory_points"] = s.tally.unlinked.into();
        let computed = match s.winner() {
            Some(c) => format!("{}+{}", c.letter(), s.margin()),
            None => "0".into(),
        };
        let agrees = re.is_none_or(|r| r == computed || (r == "Draw" && computed == "0"));
        if agrees {
            v["status"] = "complete".into();
        } else {
            v["status"] = "invalid".into();
            v["reason"] = "result_mismatch".into();
        }
    } else {
        match re {
            Some(r) if r.len() == 3 && r.as_bytes()[1] == b'+' && "RTF".contains(&r[2..]) => {
                v["status"] = match &r[2..] {
                    "R" => "resigned",
                    "T" => "time",
                    _ => "forfeit",
                }
                .into();
                v["winner"] = r[..1].into();
            }
            _ => v["status"] = "unfinished".into(),
        }
    }
    Verdict { json: v, game }
}

/// The fields of an expected verdict that [`verdict`] decides.
pub const FIELDS: &[&str] = &[
    "status",
    "winner",
    "margin",
    "score_black",
    "score_white",
    "ply",
    "reason",
    "move",
    "repeats_plies",
    "plies",
    "komi_warning",
    "unlinked_territory_points",
];

/// The differences between an expected verdict and a computed one.
pub fn differences(want: &Value, got: &Value) -> Vec<String> {
    let num = |v: &Value| v.as_f64().map(|f| (f * 2.0).round() as i64);
    FIELDS
        .iter()
        .filter(|f| {
            let (w, g) = (&want[**f], &got[**f]);
            match (num(w), num(g)) {
                (Some(a), Some(b)) => a != b,
                _ => w != g,
            }
        })
        .map(|f| format!("{f}: want {}, got {}", want[*f], got[*f]))
        .collect()
}
