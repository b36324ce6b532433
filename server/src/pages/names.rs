//! How the pages name things for people and link them: links with
//! percent-encoded values, the names of kinds, board sizes, colours and
//! turns, and a game as a row of a game table.

use std::fmt::Write as _;

use keil_archive::{GameId, GameSummary};
use keil_rules::{AnyBoard, BoardSpec, Color};

/// Percent-encodes a query value (everything but unreserved characters).
fn enc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// `path?k=v&...` of the non-empty values. A pair takes the place of an
/// earlier one of its name (a page's link with one of its fields changed:
/// the field's pair, then the change), so that no name is given twice
/// (the parameters' parser refuses that).
pub(super) fn link(path: &str, pairs: &[(&str, &str)]) -> String {
    let mut s = path.to_string();
    let mut sep = '?';
    let last = |i: usize, k: &str| !pairs[i + 1..].iter().any(|(later, _)| *later == k);
    for (_, (k, v)) in pairs
        .iter()
        .enumerate()
        .filter(|&(i, (k, v))| !v.is_empty() && last(i, k))
    {
        let _ = write!(s, "{sep}{k}={}", enc(v));
        sep = '&';
    }
    s
}

/// A game kind's name for people (`Keil`), from its code (`keil`); an
/// unknown code as it is.
pub(super) fn kind_name(code: &str) -> String {
    code.parse::<keil_rules::GameKind>()
        .map_or_else(|_| code.to_string(), |k| k.name().to_string())
}

/// A board size for people: `side 7` (hexagon), `9×9` (square).
pub(super) fn size_name(kind: &str, size: u8) -> String {
    let board = kind
        .parse::<keil_rules::GameKind>()
        .ok()
        .and_then(|k| BoardSpec::new(k, size).ok())
        .and_then(|s| s.board().ok());
    match board {
        Some(AnyBoard::Square(_)) => format!("{size}×{size}"),
        _ => format!("side {size}"),
    }
}

/// Whether a page counts a game of `kind` in moves (Go and Kaomi: a stone
/// or a pass a turn, a move and a ply are one, and Go players count
/// moves) rather than plies (Keil, whose button take is a turn of its
/// own, keil-rules.md).
fn counts_moves(kind: keil_rules::GameKind) -> bool {
    kind != keil_rules::GameKind::Keil
}

/// How a page names a turn of a game of `kind`: `move` or `ply`
/// ([`counts_moves`]).
pub(super) fn ply_word(kind: keil_rules::GameKind) -> &'static str {
    if counts_moves(kind) { "move" } else { "ply" }
}

/// How a page heads a count of a game's turns: `Moves` or `Plies`
/// ([`counts_moves`]).
pub(super) fn plies_heading(kind: keil_rules::GameKind) -> &'static str {
    if counts_moves(kind) { "Moves" } else { "Plies" }
}

/// The game kinds a form offers: those the archive holds
/// ([`crate::state::Site::kinds`]: a Go archive offers Go alone), and
/// the kind `selected` (a code, as the URL gave it) if it is another:
/// `(code, name)`.
pub(super) fn kinds(site: &crate::state::Site, selected: &str) -> Vec<(String, String)> {
    let held = site.kinds();
    keil_archive::GameKind::ALL
        .iter()
        .filter(|k| held.contains(k) || k.code().eq_ignore_ascii_case(selected.trim()))
        .map(|k| (k.code().to_string(), kind_name(k.code())))
        .collect()
}

/// The collections a form offers ([`crate::state::Site::collections`]),
/// most games first: `(name, label)` with the label saying how many games
/// and which years (`KGS · 209016 games, 2001–2019`).
pub(super) fn collection_options(site: &crate::state::Site) -> Vec<(String, String)> {
    site.collections()
        .iter()
        .map(|c| {
            let years = match (c.first_year, c.last_year) {
                (Some(a), Some(b)) if a != b => format!(", {a}–{b}"),
                (Some(a), _) => format!(", {a}"),
                _ => String::new(),
            };
            let games = if c.games == 1 { "game" } else { "games" };
            (
                c.name.clone(),
                format!("{} · {} {games}{years}", c.name, c.games),
            )
        })
        .collect()
}

/// `B` or `W`.
pub(super) fn letter(c: Color) -> &'static str {
    match c {
        Color::Black => "B",
        Color::White => "W",
    }
}

/// `Black` or `White`.
pub(super) fn color_word(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// A row of a game table.
pub(super) struct Row {
    /// The game.
    pub(super) id: GameId,
    /// The game's viewer.
    pub(super) href: String,
    /// The kind's name ([`kind_name`]).
    pub(super) kind_name: String,
    /// The board's size ([`size_name`]).
    pub(super) size_name: String,
    /// Black's name, if known.
    pub(super) black: Option<String>,
    /// White's name, if known.
    pub(super) white: Option<String>,
    /// Black's rank as shown (empty: none).
    pub(super) black_rank: String,
    /// White's rank as shown (empty: none).
    pub(super) white_rank: String,
    /// The result (empty: none).
    pub(super) result: String,
    /// The date (empty: none).
    pub(super) date: String,
    /// The event (empty: none).
    pub(super) event: String,
    /// The moves of the main line.
    pub(super) plies: u32,
}

impl From<&GameSummary> for Row {
    fn from(g: &GameSummary) -> Row {
        let code = g.kind.code();
        Row {
            id: g.id,
            href: format!("/games/{}", g.id),
            kind_name: kind_name(code),
            size_name: size_name(code, g.size),
            black: g.black.clone(),
            white: g.white.clone(),
            black_rank: g.shown_rank(Color::Black).unwrap_or_default(),
            white_rank: g.shown_rank(Color::White).unwrap_or_default(),
            result: g.result.clone().unwrap_or_default(),
            date: g.date.clone().unwrap_or_default(),
            event: g.event.clone().unwrap_or_default(),
            plies: g.plies,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_encode_values_and_skip_empty_ones() {
        assert_eq!(
            link(
                "/games",
                &[("player", "Luis Bolaños"), ("color", ""), ("x", "a&b")]
            ),
            "/games?player=Luis%20Bola%C3%B1os&x=a%26b"
        );
        assert_eq!(link("/games", &[]), "/games");
        // A later pair of a name takes the earlier one's place, even empty.
        assert_eq!(
            link("/games", &[("a", "1"), ("b", "2"), ("a", "3"), ("b", "")]),
            "/games?a=3"
        );
    }

    #[test]
    fn kinds_and_sizes_are_named_from_the_board_geometry() {
        assert_eq!(kind_name("keil"), "Keil");
        assert_eq!(kind_name("kaomi"), "Kaomi");
        assert_eq!(size_name("keil", 7), "side 7");
        assert_eq!(size_name("go", 9), "9×9");
    }
}
