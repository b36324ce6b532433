//! Writing a record as SGF text (record-format.md; Go records go-rules.md).

use std::fmt::Write as _;

use keil_rules::{Board, Color, HalfPoints, Linking, Move, Point, Ruleset, SquareBoard};

use crate::GameResult;
use crate::meta::{COMMENTS, GO_COMMENTS, Player};
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
    pub black: &'a Player,
    pub white: &'a Player,
    pub event: &'a str,
    pub round: u32,
    pub date: String,
    pub place: &'a str,
    pub result: &'a GameResult,
    /// The event writes passes the less usual way: Keil `[]` rather than
    /// `[pass]`, Go `[tt]` rather than `[]`.
    pub alt_pass: bool,
}

/// Moves per line of the record.
const MOVES_PER_LINE: usize = 12;
/// Chance (per million) that a record carries a comment.
const COMMENT_RATE: u32 = 80_000;

/// One Keil game tree: the root node, then one node per move.
pub(crate) fn write_record(
    board: &Board,
    rules: &Ruleset,
    info: &Info<'_>,
    moves: &[Move],
    rng: &mut Rng,
) -> String {
    let mut s = String::with_capacity(256 + moves.len() * 7);
    // Writing to a String cannot fail.
    let _ = write!(
        s,
        "(;GM[Keil]FF[4]CA[UTF-8]SZ[{}]KM[{}]RU[{}]",
        info.size,
        rules.komi,
        ru_value(rules),
    );
    write_info(&mut s, info);
    let pass = if info.alt_pass { "" } else { "pass" };
    write_moves(&mut s, moves, Color::Black, pass, COMMENTS, rng, |s, p| {
        let _ = write!(s, "{}", board.name(p));
    });
    s
}

/// The Go-only game information of one record.
pub(crate) struct GoInfo<'a> {
    /// `RU` as the event writes it.
    pub ru: &'a str,
    pub komi: HalfPoints,
    /// Handicap stones (`AB`, with `HA`), in the order they are placed.
    pub handicap: &'a [Point],
    /// Who moves first: White in handicap games.
    pub first: Color,
}

/// One Go game tree (`GM[1]`, SGF point letters; go-rules.md): the root
/// node with `HA` and `AB` for a handicap, then one node per move. Passes
/// are written `[]`, or `[tt]` (the `FF[3]` convention) by some events.
pub(crate) fn write_go_record(
    board: &SquareBoard,
    info: &Info<'_>,
    go: &GoInfo<'_>,
    moves: &[Move],
    rng: &mut Rng,
) -> String {
    let mut s = String::with_capacity(256 + moves.len() * 6);
    let _ = write!(
        s,
        "(;GM[1]FF[4]CA[UTF-8]SZ[{}]KM[{}]RU[{}]",
        info.size,
        go.komi,
        escape_text(go.ru),
    );
    if !go.handicap.is_empty() {
        let _ = write!(s, "HA[{}]", go.handicap.len());
    }
    write_info(&mut s, info);
    if !go.handicap.is_empty() {
        s.push_str("\nAB");
        for &p in go.handicap {
            let _ = write!(s, "[{}]", board.sgf_name(p));
        }
    }
    // `tt` is a pass in FF[3] and never a point up to 19×19.
    let pass = if info.alt_pass { "tt" } else { "" };
    write_moves(&mut s, moves, go.first, pass, GO_COMMENTS, rng, |s, p| {
        s.push_str(&board.sgf_name(p));
    });
    s
}

/// One Kaomi game tree (`GM[Kaomi]`, SGF point letters, `W[swap]`;
/// kaomi-rules.md "Records"): `KM` only where the variant counts it.
pub(crate) fn write_kaomi_record(
    board: &SquareBoard,
    info: &Info<'_>,
    ru: &str,
    komi: HalfPoints,
    moves: &[Move],
    rng: &mut Rng,
) -> String {
    let mut s = String::with_capacity(256 + moves.len() * 6);
    let _ = write!(s, "(;GM[Kaomi]FF[4]CA[UTF-8]SZ[{}]", info.size);
    if komi.0 != 0 {
        let _ = write!(s, "KM[{komi}]");
    }
    let _ = write!(s, "RU[{}]", escape_text(ru));
    write_info(&mut s, info);
    write_moves(&mut s, moves, Color::Black, "", COMMENTS, rng, |s, p| {
        s.push_str(&board.sgf_name(p));
    });
    s
}

/// The players, event and result properties of a root node.
fn write_info(s: &mut String, info: &Info<'_>) {
    let t = escape_text;
    let _ = write!(
        s,
        "PB[{}]PW[{}]BR[{}]WR[{}]\nEV[{}]RO[{}]DT[{}]PC[{}]RE[{}]",
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
}

/// The move nodes, `MOVES_PER_LINE` to a line, colours alternating from
/// `first`; a pass is written `[pass_text]`, a placement by `point`. One
/// record in `1 / COMMENT_RATE` carries a comment from `comments`.
fn write_moves(
    s: &mut String,
    moves: &[Move],
    first: Color,
    pass_text: &str,
    comments: &[&str],
    rng: &mut Rng,
    point: impl Fn(&mut String, Point),
) {
    let comment_at = if !moves.is_empty() && rng.chance(COMMENT_RATE) {
        Some((rng.below(moves.len()), *rng.pick(comments)))
    } else {
        None
    };
    let mut color = first;
    for (i, &mv) in moves.iter().enumerate() {
        s.push_str(if i % MOVES_PER_LINE == 0 { "\n;" } else { ";" });
        s.push(color.letter());
        s.push('[');
        match mv {
            Move::Place(p) => point(s, p),
            Move::Pass => s.push_str(pass_text),
            Move::TakeButton => s.push_str("button"),
            Move::Swap => s.push_str("swap"),
        }
        s.push(']');
        if let Some((at, text)) = comment_at
            && at == i
        {
            let _ = write!(s, "C[{}]", escape_text(text));
        }
        color = color.opposite();
    }
    s.push_str(")\n");
}
