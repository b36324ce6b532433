//! Writing a record as SGF text (record-format.md).

use std::fmt::Write as _;

use keil_rules::{Board, Color, Linking, Move, Ruleset};

use crate::GameResult;
use crate::meta::{COMMENTS, Player};
use crate::rng::Rng;

/// Escapes an SGF text value: `\` and `]` get a backslash before them.
///
/// ```
/// assert_eq!(keil_gen::escape_text(r"Smith [2d] a\b"), r"Smith [2d\] a\\b");
/// ```
pub fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if ch == '\\' || ch == ']' {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// The shortest `RU` value: `Keil` and the options that differ from the
/// defaults, as players write it.
fn ru_value(rules: &Ruleset) -> String {
    let mut ru = String::from("Keil");
    if rules.linking == Linking::Unopposed {
        ru.push_str("; linking=unopposed");
    }
    if !rules.button {
        ru.push_str("; button=off");
    }
    ru
}

/// The game information of one record.
pub(crate) struct Info<'a> {
    pub size: u8,
    pub rules: &'a Ruleset,
    pub black: &'a Player,
    pub white: &'a Player,
    pub event: &'a str,
    pub round: u32,
    pub date: String,
    pub place: &'a str,
    pub result: &'a GameResult,
    pub empty_pass: bool,
}

/// Moves per line of the record.
const MOVES_PER_LINE: usize = 12;
/// Chance (per million) that a record carries a comment.
const COMMENT_RATE: u32 = 80_000;

/// One game tree: the root node, then one node per move.
pub(crate) fn write_record(
    board: &Board,
    info: &Info<'_>,
    moves: &[Move],
    rng: &mut Rng,
) -> String {
    let mut s = String::with_capacity(256 + moves.len() * 7);
    let t = escape_text;
    // Writing to a String cannot fail.
    let _ = write!(
        s,
        "(;GM[Keil]FF[4]CA[UTF-8]SZ[{}]KM[{}]RU[{}]PB[{}]PW[{}]BR[{}]WR[{}]\nEV[{}]RO[{}]DT[{}]PC[{}]RE[{}]",
        info.size,
        info.rules.komi,
        ru_value(info.rules),
        t(&info.black.name),
        t(&info.white.name),
        info.black.rank,
        info.white.rank,
        t(info.event),
        info.round,
        info.date,
        t(info.place),
        info.result,
    );
    let comment_at = if !moves.is_empty() && rng.chance(COMMENT_RATE) {
        Some((rng.below(moves.len()), *rng.pick(COMMENTS)))
    } else {
        None
    };
    let mut color = Color::Black;
    for (i, &mv) in moves.iter().enumerate() {
        s.push_str(if i % MOVES_PER_LINE == 0 { "\n;" } else { ";" });
        s.push(color.letter());
        s.push('[');
        match mv {
            Move::Place(p) => {
                let _ = write!(s, "{}", board.name(p));
            }
            Move::Pass if info.empty_pass => {}
            Move::Pass => s.push_str("pass"),
            Move::TakeButton => s.push_str("button"),
        }
        s.push(']');
        if let Some((at, text)) = comment_at {
            if at == i {
                let _ = write!(s, "C[{}]", t(text));
            }
        }
        color = color.opposite();
    }
    s.push_str(")\n");
    s
}
