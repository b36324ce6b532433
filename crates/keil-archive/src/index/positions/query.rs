//! The public types of position search: the query ([`PositionQuery`],
//! its notation) and the answer ([`PositionAnswer`], its hits and
//! continuations).
//!
//! Invariants: a query's absent player to move or button flag matches
//! either value (record-format.md, "Position notation"); moves and
//! symmetries in an answer are in the query's orientation.

use keil_rules::{AnyPosition, Color, Move, NotationError, Position};

use super::super::explore::{ExploreError, ExploreOptions};
use keil_store::ids::GameId;
use keil_store::model::{CollectionCount, GameFilter, HitDetails, YearCount};

/// A position search (issue: "positions: exact board search").
///
/// The board is matched exactly (or under symmetry); the player to move and
/// the button flag match either value when `None` (record-format.md,
/// "Position notation": a query's absent suffix matches either value).
#[derive(Clone, Debug)]
pub struct PositionQuery {
    /// The board to find (Keil or Go; its kind and size): its stones. A
    /// Keil board's button flag is not read: see [`PositionQuery::button`].
    pub position: AnyPosition,
    /// Only occurrences with this player to move; `None`: either.
    pub to_move: Option<Color>,
    /// Only occurrences with the button taken (`Some(true)`) or not
    /// (`Some(false)`); `None`: either. Go has no button: not read.
    pub button: Option<bool>,
    /// Whether any of the board's symmetric images matches (12 on the
    /// hexagon, 8 on the square; otherwise only the board as given).
    pub symmetry: bool,
    /// Colour swap: also match the board with black and white exchanged,
    /// the player to move exchanged too (go-rules.md, "Position notation
    /// and search"); with `symmetry`, 24 images on the hexagon and 16 on
    /// the square. Hits say whether they matched swapped; continuations
    /// are counted in the query's colours.
    pub swap_colors: bool,
    /// Only games that pass this filter ([`GameFilter`]: players, dates,
    /// event, result, ranks, handicap, komi, ...; its kind and size are
    /// the position's and are not read).
    pub filter: GameFilter,
    /// The explorer's options. A position search reads the move limit,
    /// the history ([`PositionAnswer::history`]) and the games listed
    /// ([`PositionAnswer::top_games`], [`PositionAnswer::recent_games`]);
    /// its player to move is [`PositionQuery::to_move`], which
    /// [`PositionQuery::with_options`] sets from `next`, and it reads main
    /// lines only ([`ExploreOptions::main_lines_only`]).
    pub explore: ExploreOptions,
    /// How many games to list (statistics always cover all matches).
    pub limit: usize,
    /// Continue after this cursor (from [`PositionAnswer::next_cursor`]).
    pub cursor: Option<String>,
}

/// A position of some game kind, for [`PositionQuery::new`].
pub trait QueryPosition {
    /// The position as an [`AnyPosition`].
    fn into_any(self) -> AnyPosition;
}

impl QueryPosition for AnyPosition {
    fn into_any(self) -> AnyPosition {
        self
    }
}

impl QueryPosition for Position {
    fn into_any(self) -> AnyPosition {
        AnyPosition::Keil(self)
    }
}

impl QueryPosition for keil_rules::GoPosition {
    fn into_any(self) -> AnyPosition {
        AnyPosition::Go(self)
    }
}

impl PositionQuery {
    /// A query for `position` (Keil, Go or [`AnyPosition`]) as it is (its
    /// stones and, Keil, its button flag), whoever is to move, with no
    /// filters, symmetry and colour swap off, 20 games.
    pub fn new(position: impl QueryPosition) -> PositionQuery {
        let position = position.into_any();
        PositionQuery {
            position,
            to_move: None,
            button: position.button_taken(),
            symmetry: false,
            swap_colors: false,
            filter: GameFilter::default(),
            explore: ExploreOptions::default(),
            limit: 20,
            cursor: None,
        }
    }

    /// The query with the explorer's options `options`: its player to
    /// move is the notation's or `options.next` (both when they agree).
    /// The one place a position search takes them, for the API, the
    /// explorer page and the CLI.
    ///
    /// # Errors
    /// [`ExploreError::NextContradicts`] when `next` is not the player to
    /// move the query already has.
    pub fn with_options(self, options: ExploreOptions) -> Result<PositionQuery, ExploreError> {
        Ok(PositionQuery {
            to_move: options.player_to_move(self.to_move)?,
            explore: options,
            ..self
        })
    }

    /// Reads a query in position notation (record-format.md, "Position
    /// notation"): the board, then optional suffixes in any order, each at
    /// most once: ` b`/` w` the player to move, ` +` the button taken, ` -`
    /// not taken. An absent suffix matches either value: `7/8/…/7` finds
    /// the board whoever was to move and whatever the button's state.
    ///
    /// # Errors
    /// [`NotationError`] for the board (from keil-rules), or
    /// [`NotationError::Suffix`] for an unknown or repeated suffix.
    pub fn parse(text: &str) -> Result<PositionQuery, NotationError> {
        let mut parts = text.split_whitespace();
        let board = parts.next().ok_or(NotationError::Empty)?;
        let (mut to_move, mut button) = (None, None);
        for suffix in parts {
            match suffix {
                "b" | "B" if to_move.is_none() => to_move = Some(Color::Black),
                "w" | "W" if to_move.is_none() => to_move = Some(Color::White),
                "+" if button.is_none() => button = Some(true),
                "-" if button.is_none() => button = Some(false),
                other => return Err(NotationError::Suffix(other.to_string())),
            }
        }
        let (position, _) = Position::parse_notation(board)?;
        Ok(PositionQuery {
            button,
            ..PositionQuery::new(position)
        }
        .with_to_move(to_move))
    }

    fn with_to_move(self, to_move: Option<Color>) -> PositionQuery {
        PositionQuery { to_move, ..self }
    }

    /// Reads a query of game `kind` in its notation: Keil as
    /// [`PositionQuery::parse`]; Go rows (go-rules.md, "Position notation
    /// and search") with an optional ` b`/` w` (absent: either player).
    ///
    /// # Errors
    /// [`keil_rules::AnyNotationError`] with the kind's own error.
    pub fn parse_kind(
        kind: keil_rules::GameKind,
        text: &str,
    ) -> Result<PositionQuery, keil_rules::AnyNotationError> {
        if kind == keil_rules::GameKind::Keil {
            return PositionQuery::parse(text).map_err(keil_rules::AnyNotationError::Keil);
        }
        let parsed = AnyPosition::parse_notation(kind, text)?;
        Ok(PositionQuery::new(parsed.position).with_to_move(parsed.to_move))
    }

    /// Reads a query of game `kind` ([`PositionQuery::parse_kind`]), or,
    /// without a kind, of the kind whose notation reads it: Keil's columns
    /// have different lengths and Go's rows all the same length, so no
    /// board reads as both (Keil is tried first). When neither reads it,
    /// the error is the one of the board the text is drawn as: Go's when
    /// its first row describes as many points as it has rows (a square),
    /// else Keil's (a hexagon's first column describes `(k+1)/2` points of
    /// its `k`), so that a mistyped Go board is not told about columns.
    ///
    /// # Errors
    /// [`keil_rules::AnyNotationError`] as [`PositionQuery::parse_kind`].
    pub fn parse_inferred(
        kind: Option<keil_rules::GameKind>,
        text: &str,
    ) -> Result<PositionQuery, keil_rules::AnyNotationError> {
        use keil_rules::GameKind;
        match kind {
            Some(kind) => PositionQuery::parse_kind(kind, text),
            None => PositionQuery::parse_kind(GameKind::Keil, text).or_else(|keil| {
                PositionQuery::parse_kind(GameKind::Go, text)
                    .map_err(|go| if drawn_as_square(text) { go } else { keil })
            }),
        }
    }

    /// The query in position notation, as [`PositionQuery::parse`] reads
    /// it: the board, then ` b`/` w` and ` +`/` -` for the restrictions
    /// given (none for a value that matches either).
    pub fn notation(&self) -> String {
        let AnyPosition::Keil(mut board) = self.position else {
            return self.position.to_notation(self.to_move);
        };
        board.set_button_taken(false);
        let mut s = board.to_notation(self.to_move);
        match self.button {
            Some(true) => s.push_str(" +"),
            Some(false) => s.push_str(" -"),
            None => {}
        }
        s
    }
}

/// What was played from a position, over all matching games (an opening
/// explorer row), per matched position: the same move by another player to
/// move or with another button state is another row.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Continuation {
    /// The move in the query's orientation: `g7` (Keil), `D16` (Go),
    /// `pass`, `button`, or `end` when the game ended in this position.
    #[serde(rename = "move")]
    pub mv: String,
    /// The same move, typed (in the query's orientation): `None` for
    /// `end`. What a caller plays, instead of reading `mv` back.
    #[serde(skip)]
    pub next: Option<Move>,
    /// The player to move in the matched position (who played `mv`), in
    /// the query's colours (a colour-swapped match's White is Black here).
    pub to_move: Color,
    /// Keil only: whether the button had been taken in the matched
    /// position (`None` for Go and Kaomi, which have no button; left out
    /// of their JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub button_taken: Option<bool>,
    /// Distinct games that played it.
    pub games: u64,
    /// Of those, games won by the player of the query's black stones
    /// (Black; White in a colour-swapped match).
    pub black_wins: u64,
    /// Of those, games won by the player of the query's white stones.
    pub white_wins: u64,
    /// `games` / `total_games`, 0..=1.
    pub share: f64,
    /// With the query's `history`: `games` by year.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<YearCount>>,
}

/// A game that reached the position.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PositionHit {
    /// The game id.
    pub game_id: GameId,
    /// The first ply after which the position stood (0: the start).
    pub ply: u32,
    /// The move played next, in the query's orientation (`None` at the end).
    pub next: Option<String>,
    /// The symmetry (its index: 0..12 on the hexagon, 0..8 on the square)
    /// that maps the game's board onto the query's.
    pub symmetry: u8,
    /// Whether the game had the position with colours exchanged (a
    /// colour-swap search): its Black had the query's white stones.
    pub swapped: bool,
    /// The position matched, in full, in the query's orientation and the
    /// game's colours: board, player to move, Keil's button flag (` +`
    /// taken, ` -` not).
    pub position: String,
    /// The player to move in the matched position.
    pub to_move: Color,
    /// Keil only: whether the button had been taken in the matched
    /// position (`None` for Go and Kaomi; left out of their JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub button_taken: Option<bool>,
    /// The game's date, players, ranks and result as lists show them
    /// (flattened: the answer's fields `date`, `black`, `white`,
    /// `black_rank`, `white_rank`, `result`).
    #[serde(flatten)]
    pub game: HitDetails,
}

/// Whether a position notation's board part is drawn as a square: its
/// first row describes as many points (runs of empty points and stones)
/// as there are rows.
fn drawn_as_square(text: &str) -> bool {
    let board = text.split_whitespace().next().unwrap_or("");
    let rows = board.split('/').count();
    let first = board.split('/').next().unwrap_or("");
    let (mut points, mut run) = (0usize, 0usize);
    for ch in first.chars() {
        match ch.to_digit(10) {
            Some(d) => run = run.saturating_mul(10).saturating_add(d as usize),
            None => {
                points = points.saturating_add(run).saturating_add(1);
                run = 0;
            }
        }
    }
    points.saturating_add(run) == rows
}

/// The answer to a [`PositionQuery`].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PositionAnswer {
    /// Distinct games that reached the position (after filters).
    pub total_games: u64,
    /// Moves played next, most frequent first.
    pub continuations: Vec<Continuation>,
    /// With the query's `history`: `total_games` by year (the games of
    /// the years add up to it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<YearCount>>,
    /// With the query's `history`: `total_games` by collection, most
    /// games first (games in no collection left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collections: Option<Vec<CollectionCount>>,
    /// One page of games, newest first.
    pub games: Vec<PositionHit>,
    /// Pass as `cursor` for the next page; `None` on the last.
    pub next_cursor: Option<String>,
    /// The query's `top_games` games whose weaker player ranks highest,
    /// highest first (then newest first); games without both ranks are
    /// not among them.
    pub top_games: Vec<PositionHit>,
    /// The query's `recent_games` latest games, newest first.
    pub recent_games: Vec<PositionHit>,
}

#[cfg(test)]
mod tests {
    use super::PositionQuery;

    #[test]
    fn a_board_neither_kind_reads_gets_the_error_of_its_shape() {
        // A 19×19 Go board whose third row is short: Go's error, not a
        // hexagon's columns.
        let mut rows = vec!["19"; 19];
        rows[2] = "18";
        let go = PositionQuery::parse_inferred(None, &rows.join("/"))
            .unwrap_err()
            .to_string();
        assert!(go.contains("row 3 must describe exactly 19 points"), "{go}");
        // A side-7 hexagon whose last column is short: Keil's.
        let keil = PositionQuery::parse_inferred(None, "7/8/9/10/11/12/13/12/11/10/9/8/6")
            .unwrap_err()
            .to_string();
        assert!(keil.contains("column"), "{keil}");
        assert!(!keil.contains("row"), "{keil}");
        // Both still read.
        assert!(PositionQuery::parse_inferred(None, &["19"; 19].join("/")).is_ok());
        assert!(PositionQuery::parse_inferred(None, "7/8/9/10/11/12/13/12/11/10/9/8/7").is_ok());
    }
}
