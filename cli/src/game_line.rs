//! A game on one line of a list, as `keil search` prints it: the one place
//! the command writes a game's header fields (date, players, ranks,
//! result, event, round) and what stands for a field the record leaves
//! out (`?` for a name, a date or a result, `-` for a rank).

use keil_archive::{GameSummary, HitDetails, PatternHit, PositionHit};
use keil_rules::Color;

/// A game of a list (`keil search games`, `keil search text`): id, kind,
/// size, date, players with their ranks, result, event and round.
pub(crate) fn summary(g: &GameSummary) -> String {
    format!(
        "{:>7}  {:<4} {:>2}  {:<10}  {} ({}) - {} ({})  {}  {}  {}",
        g.id,
        g.kind,
        g.size,
        g.date.as_deref().unwrap_or("?"),
        name(g.black.as_deref()),
        rank(g.shown_rank(Color::Black)),
        name(g.white.as_deref()),
        rank(g.shown_rank(Color::White)),
        result(g.result.as_deref()),
        g.event.as_deref().unwrap_or(""),
        g.round
            .as_deref()
            .map(|r| format!("round {r}"))
            .unwrap_or_default(),
    )
}

/// A game that reached a searched position: where (its ply, the player to
/// move and, Keil, the button flag), its header (date, players, result)
/// and the move played next.
pub(crate) fn position_hit(h: &PositionHit) -> String {
    format!(
        "{:>7}  ply {:>3} {}{}  {}  next {}",
        h.game_id,
        h.ply,
        matched(h.to_move, h.button_taken),
        if h.swapped { " swapped" } else { "" },
        header(&h.game),
        next(h.next.as_deref())
    )
}

/// A game in which a searched pattern occurs: its date, players, result,
/// where the first match is (node, ply, variation), how many matches and
/// the move played next in the region.
pub(crate) fn pattern_hit(h: &PatternHit) -> String {
    format!(
        "{:>7}  {}  node {} ply {}{}  {} hit{}{}  next {}",
        h.game_id,
        header(&h.game),
        h.node,
        h.ply,
        h.variation
            .map_or(String::new(), |v| format!(" (variation {v})")),
        h.hits,
        if h.hits == 1 { "" } else { "s" },
        if h.swapped { " swapped" } else { "" },
        next(h.next.as_deref())
    )
}

/// A hit's game header: its date (`?` when it has none), players and
/// result.
fn header(game: &HitDetails) -> String {
    format!(
        "{:<10}  {}  {}",
        if game.date.is_empty() {
            "?"
        } else {
            &game.date
        },
        players(game.black.as_deref(), game.white.as_deref()),
        result(game.result.as_deref()),
    )
}

/// What a matched position adds to the board: the player to move and the
/// button flag (Keil), as the notation's suffixes (`w +`, `b -`; Go `b`).
pub(crate) fn matched(to_move: Color, button_taken: Option<bool>) -> String {
    let to_move = to_move.letter().to_ascii_lowercase();
    match button_taken {
        Some(b) => format!("{to_move} {}", if b { '+' } else { '-' }),
        None => to_move.to_string(),
    }
}

/// `Black - White`, without ranks.
fn players(black: Option<&str>, white: Option<&str>) -> String {
    format!("{} - {}", name(black), name(white))
}

/// A player's name, `?` when the record gives none.
fn name(name: Option<&str>) -> &str {
    name.unwrap_or("?")
}

/// A rank as lists show it, `-` when the record gives none.
fn rank(rank: Option<String>) -> String {
    rank.unwrap_or_else(|| "-".into())
}

/// The result as written, `?` when the record gives none.
fn result(result: Option<&str>) -> &str {
    result.unwrap_or("?")
}

/// The move played next, `-` at the end of the game.
fn next(mv: Option<&str>) -> &str {
    mv.unwrap_or("-")
}
