//! `play=`: a line of moves from the empty board of a game kind and size,
//! replayed by keil-rules (captures, the turn, Kaomi's pushes, the button),
//! as the explorer page and `GET /api/v1/positions` read it. One parser
//! for both.

use keil_rules::{
    AnyBoard, AnyGame, AnyPosition, AnyRuleset, BoardSpec, Color, GameKind, GoRuleset, HalfPoints,
    Move, Ruleset, ToMove,
};

use crate::error::{ApiError, bad, quote};

/// The most moves a `play=` line holds.
pub(crate) const MAX_PLAY_MOVES: usize = 1_000;

/// The rules a line from the empty board is played under: Keil's
/// standard rules (the button in use, keil-rules.md), Go's and Kaomi's
/// default rulesets (captures and the turn are the same under every Go
/// ruleset; komi 0). `None` for a kind these rules do not know.
pub(crate) fn default_rules(kind: GameKind) -> Option<AnyRuleset> {
    match kind {
        GameKind::Keil => Some(AnyRuleset::Keil(Ruleset::keil())),
        GameKind::Go => Some(AnyRuleset::Go {
            ruleset: GoRuleset::default(),
            komi: HalfPoints(0),
        }),
        GameKind::Kaomi => Some(AnyRuleset::Kaomi {
            ruleset: keil_rules::KaomiRuleset::default(),
            komi: HalfPoints(0),
        }),
        #[allow(unreachable_patterns)] // GameKind is non-exhaustive.
        _ => None,
    }
}

/// A line played from the empty board.
#[derive(Clone)]
pub(crate) struct Line {
    /// The game after the line.
    pub game: AnyGame,
    /// The moves, in order.
    pub moves: Vec<Move>,
    /// Each move's player.
    pub colors: Vec<Color>,
}

impl Line {
    /// The empty board of `spec`, nothing played.
    ///
    /// # Errors
    /// 400 for a kind without rules here.
    pub(crate) fn start(spec: BoardSpec) -> Result<Line, ApiError> {
        let rules = default_rules(spec.kind)
            .ok_or_else(|| bad("kind", format!("{} cannot be played here", spec.kind)))?;
        let game = AnyGame::new(spec, rules, None, ToMove::Color(Color::Black))
            .map_err(|e| bad("play", e))?;
        Ok(Line {
            game,
            moves: Vec::new(),
            colors: Vec::new(),
        })
    }

    /// The player to move (Black when the rules leave it open).
    pub(crate) fn to_move(&self) -> Color {
        self.game.to_move().color().unwrap_or(Color::Black)
    }

    /// The position after the line.
    pub(crate) fn position(&self) -> AnyPosition {
        self.game.position()
    }

    /// Plays `mv` for the player to move.
    ///
    /// # Errors
    /// The rules' refusal; nothing changes then.
    fn play(&mut self, mv: Move) -> Result<(), keil_rules::IllegalMove> {
        let color = self.to_move();
        self.game.play_as(color, mv)?;
        self.moves.push(mv);
        self.colors.push(color);
        Ok(())
    }

    /// Whether the rules let the player to move play `mv` next.
    pub(crate) fn legal(&self, mv: Move) -> bool {
        let mut game = self.game.clone();
        game.play_as(self.to_move(), mv).is_ok()
    }

    /// Each move as people read it (`Q16`, `g7`, Kaomi `cc`, `pass`).
    pub(crate) fn names(&self) -> Vec<String> {
        let pos = self.game.position();
        self.moves.iter().map(|&m| move_name(&pos, m)).collect()
    }

    /// The line as a `play=` value: [`Line::names`], comma-separated.
    pub(crate) fn text(&self) -> String {
        self.names().join(",")
    }
}

/// A move as the `play=` value writes it: the point's display name in
/// `pos`'s game (Go `Q16`, Keil `g7`, Kaomi `cc`), `pass`, `button` or
/// `swap`.
pub(crate) fn move_name(pos: &AnyPosition, mv: Move) -> String {
    match mv {
        Move::Place(p) => pos.display_name(p),
        m => pos.board().move_name(m),
    }
}

/// Reads one move of a `play=` value on `board`: `pass`, `button`,
/// `swap`, a point as records write it (`pd`, `g7`) or as Go players do
/// (`Q16`, either case).
fn parse_move(board: AnyBoard, name: &str) -> Option<Move> {
    match name.to_ascii_lowercase().as_str() {
        "pass" => return Some(Move::Pass),
        "button" => return Some(Move::TakeButton),
        "swap" => return Some(Move::Swap),
        _ => {}
    }
    if let Ok(p) = board.parse_point(name) {
        return Some(Move::Place(p));
    }
    match board {
        AnyBoard::Square(b) => b.parse_display_name(name).ok().map(Move::Place),
        AnyBoard::Hex(_) => None,
    }
}

/// Reads and plays a `play=` value from the empty board of `spec`: moves
/// separated by commas (spaces ignored), at most [`MAX_PLAY_MOVES`].
///
/// # Errors
/// 400 naming the move (its number and text) that names no point of the
/// board, or that the rules refuse, and why.
pub(crate) fn parse_play(spec: BoardSpec, text: &str) -> Result<Line, ApiError> {
    let mut line = Line::start(spec)?;
    let board = line.game.position().board();
    let names: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if names.len() > MAX_PLAY_MOVES {
        return Err(bad(
            "play",
            format!(
                "{} moves: at most {MAX_PLAY_MOVES} can be played",
                names.len()
            ),
        ));
    }
    for (i, name) in names.into_iter().enumerate() {
        let mv = parse_move(board, name).ok_or_else(|| {
            bad(
                "play",
                format!(
                    "move {} ({}) is not a point of the {} board: write points as records do (pd, g7) or as players do (Q16), or pass",
                    i + 1,
                    quote(name),
                    spec.kind.name()
                ),
            )
        })?;
        line.play(mv).map_err(|e| {
            bad(
                "play",
                format!("move {} ({name}) is not legal here: {e}", i + 1),
            )
        })?;
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go19() -> BoardSpec {
        BoardSpec::new(GameKind::Go, 19).unwrap()
    }

    #[test]
    fn a_line_applies_captures_and_the_turn() {
        // Black captures the white stone at B19 (SGF ba).
        let line = parse_play(go19(), "pd,ba, aa ,qq,ca,pp,bb").unwrap();
        assert_eq!(line.moves.len(), 7);
        let pos = line.position();
        let ba = pos.board().parse_point("ba").unwrap();
        assert_eq!(pos.get(ba), None, "captured");
        assert_eq!(line.to_move(), Color::White);
        // Players' names and record names are one line.
        let same = parse_play(go19(), "Q16,B19,A19,R3,C19,Q4,B18").unwrap();
        assert_eq!(same.position(), pos);
        assert_eq!(same.text(), "Q16,B19,A19,R3,C19,Q4,B18");
    }

    #[test]
    fn a_bad_or_illegal_move_is_named() {
        let e = parse_play(go19(), "pd,zz").err().unwrap().to_string();
        assert!(e.contains("move 2") && e.contains("zz"), "{e}");
        let e = parse_play(go19(), "pd,pd").err().unwrap().to_string();
        assert!(e.contains("move 2 (pd) is not legal"), "{e}");
        let long = vec!["pass"; MAX_PLAY_MOVES + 1].join(",");
        assert!(parse_play(go19(), &long).is_err());
        // Keil's points and the button.
        let keil = BoardSpec::new(GameKind::Keil, 7).unwrap();
        let line = parse_play(keil, "g7,button,a1").unwrap();
        assert_eq!(line.moves.len(), 3);
    }
}
