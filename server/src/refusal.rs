//! Why a refused record was refused, in words a player reads: the API's
//! `verdict` of `GET /api/v1/refused/{id}` and the refused record's page.

use keil_archive::{RefusedLine, RefusedSummary};
use keil_rules::Color;

/// The player of the refused move: the replay's word, else the move as
/// written (`W[dd]`).
fn player(r: &RefusedSummary, line: Option<&RefusedLine>) -> Option<Color> {
    line.and_then(|l| l.color)
        .or_else(|| match r.mv.as_deref()?.as_bytes().first()? {
            b'B' => Some(Color::Black),
            b'W' => Some(Color::White),
            _ => None,
        })
}

/// The board as a player names it: `21×21` for a square board.
fn board(r: &RefusedSummary) -> String {
    match (r.kind.as_deref(), r.size) {
        (Some("keil"), Some(n)) => format!("a hexagon of side {n}"),
        (_, Some(n)) => format!("{n}×{n}"),
        (_, None) => "of no size the archive reads".into(),
    }
}

/// Why record `r` was refused, in a sentence: "White retakes the ko at
/// move 213 without a move elsewhere first", "Black plays on an occupied
/// point at move 57", "White's move at 120 would have no liberties
/// (self-capture)", "Black moves twice in a row at move 88", "the board is
/// 21×21: the archive reads boards up to 19×19". A reason without words
/// of its own gives the import's message.
pub(crate) fn in_words(r: &RefusedSummary, line: Option<&RefusedLine>) -> String {
    let who = player(r, line).map(|c| match c {
        Color::Black => "Black",
        Color::White => "White",
    });
    let at = r.ply.unwrap_or(0);
    match (r.reason.as_str(), who) {
        ("repetition", Some(who)) => {
            let repeats = line.map_or(&[][..], |l| &l.repeats_plies[..]);
            match repeats {
                [k] if *k + 2 == at && r.kind.as_deref() == Some("go") => {
                    format!("{who} retakes the ko at move {at} without a move elsewhere first")
                }
                [.., 0] => format!(
                    "{who}'s move at {at} brings back the starting position, which the rules forbid"
                ),
                [.., k] => format!(
                    "{who}'s move at {at} brings back the position after move {k}, which the rules forbid"
                ),
                [] => format!(
                    "{who}'s move at {at} repeats an earlier position, which the rules forbid"
                ),
            }
        }
        ("occupied", Some(who)) => format!("{who} plays on an occupied point at move {at}"),
        ("self_capture", Some(who)) => {
            format!("{who}'s move at {at} would have no liberties (self-capture)")
        }
        ("wrong_player", Some(who)) => format!("{who} moves twice in a row at move {at}"),
        ("off_board", Some(who)) => format!("{who}'s move at {at} is off the board"),
        ("after_end", Some(who)) => {
            format!("{who} plays at move {at} after both players passed and the game ended")
        }
        ("board_size", _) => format!(
            "the board is {}: the archive reads boards up to 19×19",
            board(r)
        ),
        ("bad_size", _) => "the board size (SZ) is not a number the archive reads".into(),
        ("result_mismatch", _) => {
            "the result written in the record does not agree with how the game ended".into()
        }
        _ => r.message.clone(),
    }
}
