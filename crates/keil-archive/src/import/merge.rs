//! When a record is a stored game (go-rules.md, "Metadata"): a merge is a
//! proof, not a guess. The game signature ([`keil_store::moves::signature`]) only
//! proposes candidates; [`judge`] decides from the moves and the game
//! information whether the record is the candidate's game (merged, with
//! the kind of proof), another game with the same moves (`similar`: a
//! replay, a relay), or unrelated.
//!
//! The moves say a record is a game when, under one of the board's
//! symmetries applied to setup and moves alike, its main line is the
//! game's move for move (`identical`, `symmetric`), or the start of it
//! (`prefix`: the longer is kept as the game), or the same moves of each
//! colour in another order (`transposed`). The game information must not
//! contradict it: the same date (a year or a month alone agrees with any
//! day inside it), or, where a date is missing or differs, the same players
//! (their person keys, aliases included). Two records of the same players
//! and date whose moves differ at 1 to [`MAX_DIFFERENCES`] plies are one
//! game with a discrepancy.

use chrono::{Datelike, NaiveDate};
use keil_record::{DatePrecision, GameDate};
use keil_rules::{AnyBoard, AnyPosition, BoardSpec, Color, GameKind, Move};

use keil_store::model::MergeKind;
use keil_store::moves;

/// The most plies at which two records of one game may differ and still be
/// one game with a discrepancy (go-rules.md, "Metadata": "a few places").
pub(crate) const MAX_DIFFERENCES: usize = 5;

/// What the merge rule reads of one game: its board, start, main line,
/// date and players.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    pub board: AnyBoard,
    /// The setup (`games.setup` read back), `None` for the empty board
    /// with Black to move.
    pub start: Option<(AnyPosition, Option<Color>)>,
    /// The main line and each move's colour (empty for Keil, whose turns
    /// alternate).
    pub moves: Vec<Move>,
    pub colors: Vec<Color>,
    /// The days the game's date may be: one day, a month or a year
    /// (inclusive); `None` without a readable date.
    pub date: Option<(NaiveDate, NaiveDate)>,
    /// Black's and White's person keys after the aliases.
    pub black: Option<String>,
    pub white: Option<String>,
}

impl Shape {
    /// A game's shape from what the store holds of it: kind and size,
    /// setup notation, moves blob ([`moves::encode`]), `DT` as written, and
    /// the players' resolved person keys. `None` when a value does not read
    /// back (the game then has no candidate).
    pub(crate) fn read(
        kind: GameKind,
        size: u8,
        setup: Option<&str>,
        blob: &[u8],
        date_raw: Option<&str>,
        black: Option<String>,
        white: Option<String>,
    ) -> Option<Shape> {
        let board = BoardSpec::new(kind, size).ok()?.board().ok()?;
        let start = match setup {
            None => None,
            Some(text) => {
                let parsed = AnyPosition::parse_notation(kind, text).ok()?;
                Some((parsed.position, parsed.to_move))
            }
        };
        let (moves, colors) = moves::decode(board, blob)?;
        Some(Shape {
            board,
            start,
            moves,
            colors,
            date: date_raw.and_then(date_span),
            black,
            white,
        })
    }

    /// A stored candidate's shape ([`keil_store::import::candidates`]).
    pub(crate) fn of_row(row: keil_store::import::CandidateRow) -> Option<Shape> {
        let kind = row.kind.parse().ok()?;
        Shape::read(
            kind,
            row.size,
            row.setup.as_deref(),
            &row.moves,
            row.date_raw.as_deref(),
            row.black,
            row.white,
        )
    }

    /// The move at ply index `i` under symmetry `sym`, with its colour.
    fn at(&self, i: usize, sym: u8) -> (Move, Option<Color>) {
        let mv = match self.moves[i] {
            Move::Place(p) => Move::Place(self.board.transform(p, sym)),
            m => m,
        };
        (mv, self.colors.get(i).copied())
    }

    /// Whether the start under `sym` is `other`'s.
    fn same_start(&self, sym: u8, other: &Shape) -> bool {
        match (&self.start, &other.start) {
            (None, None) => true,
            (Some((a, ta)), Some((b, tb))) => ta == tb && a.transform(sym) == *b,
            _ => false,
        }
    }

    /// Whether the date says the same game as `other`'s: both known and
    /// overlapping (a year or a month alone agrees with any day inside
    /// it).
    fn same_date(&self, other: &Shape) -> bool {
        match (self.date, other.date) {
            (Some((a0, a1)), Some((b0, b1))) => a0 <= b1 && b0 <= a1,
            _ => false,
        }
    }

    /// Whether both players are the same people (a missing player only
    /// matches a missing one).
    fn same_players(&self, other: &Shape) -> bool {
        self.black == other.black && self.white == other.white
    }
}

/// The days a `DT` value may mean: its first date at its precision.
fn date_span(raw: &str) -> Option<(NaiveDate, NaiveDate)> {
    let date = GameDate::new(raw);
    let first = date.first()?;
    let last = match date.precision()? {
        DatePrecision::Day => first,
        DatePrecision::Month => {
            let (y, m) = if first.month() == 12 {
                (first.year() + 1, 1)
            } else {
                (first.year(), first.month() + 1)
            };
            NaiveDate::from_ymd_opt(y, m, 1)?.pred_opt()?
        }
        DatePrecision::Year => NaiveDate::from_ymd_opt(first.year(), 12, 31)?,
    };
    Some((first, last))
}

/// What a record is to a stored game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Judgement {
    /// The same game: merged.
    Same {
        kind: MergeKind,
        /// The symmetry that maps the record's points onto the game's.
        transform: u8,
        /// The 1-based plies where the moves differ (discrepancies).
        differs: Vec<u32>,
        /// Whether the record is longer than the game (a prefix whose
        /// longer record is the new one: it becomes the game).
        longer: bool,
    },
    /// The same moves with game information that says another game.
    Similar {
        /// The symmetry that maps the record's points onto the game's.
        transform: u8,
    },
    /// Another game.
    Other,
}

/// How the moves of two records relate under one symmetry.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Relation {
    Same,
    Prefix { longer: bool },
    Transposed,
    Differs(Vec<u32>),
}

/// How `record`'s moves under `sym` relate to `game`'s, if they do.
fn relate(record: &Shape, game: &Shape, sym: u8) -> Option<Relation> {
    let (n, m) = (record.moves.len(), game.moves.len());
    let common = n.min(m);
    let mut differs = Vec::new();
    for i in 0..common {
        if record.at(i, sym) != game.at(i, 0) {
            differs.push(i as u32 + 1);
            if differs.len() > MAX_DIFFERENCES && n != m {
                return None;
            }
        }
    }
    if differs.is_empty() {
        return Some(if n == m {
            Relation::Same
        } else {
            Relation::Prefix { longer: n > m }
        });
    }
    if n != m {
        return (differs.len() <= MAX_DIFFERENCES).then_some(Relation::Differs(differs));
    }
    // Same length: the same moves of each colour in another order?
    let mut mine: Vec<(Move, Option<Color>)> = (0..n).map(|i| record.at(i, sym)).collect();
    let mut theirs: Vec<(Move, Option<Color>)> = (0..m).map(|i| game.at(i, 0)).collect();
    let key = |x: &(Move, Option<Color>)| (x.1.map(Color::index), move_key(x.0));
    mine.sort_unstable_by_key(key);
    theirs.sort_unstable_by_key(key);
    if mine == theirs {
        return Some(Relation::Transposed);
    }
    (differs.len() <= MAX_DIFFERENCES).then_some(Relation::Differs(differs))
}

/// A sort key of a move.
fn move_key(mv: Move) -> u32 {
    match mv {
        Move::Place(p) => u32::from(p.0),
        Move::Pass => 1 << 16,
        Move::TakeButton => (1 << 16) + 1,
        Move::Swap => (1 << 16) + 2,
    }
}

/// Whether `record` is stored game `game`, under the rule of the module
/// doc. The symmetries are tried in index order (identity first); the
/// first that proves the game wins.
pub(crate) fn judge(record: &Shape, game: &Shape) -> Judgement {
    if record.board != game.board {
        return Judgement::Other;
    }
    let info_agrees = record.same_date(game) || record.same_players(game);
    let one_sitting = record.same_date(game) && record.same_players(game);
    let mut similar = None;
    for sym in 0..record.board.symmetry_count() {
        if !record.same_start(sym, game) {
            continue;
        }
        let Some(relation) = relate(record, game, sym) else {
            continue;
        };
        let (kind, differs, longer) = match relation {
            Relation::Same if sym == 0 => (MergeKind::Identical, Vec::new(), false),
            Relation::Same => (MergeKind::Symmetric, Vec::new(), false),
            Relation::Prefix { longer } => (MergeKind::Prefix, Vec::new(), longer),
            Relation::Transposed => (MergeKind::Transposed, Vec::new(), false),
            Relation::Differs(d) => {
                if one_sitting {
                    return Judgement::Same {
                        kind: MergeKind::Discrepancy,
                        transform: sym,
                        differs: d,
                        longer: false,
                    };
                }
                continue;
            }
        };
        if info_agrees {
            return Judgement::Same {
                kind,
                transform: sym,
                differs,
                longer,
            };
        }
        similar.get_or_insert(Judgement::Similar { transform: sym });
    }
    similar.unwrap_or(Judgement::Other)
}

#[cfg(test)]
mod tests {
    use super::*;
    use keil_rules::{Point, SquareBoard};

    /// A 19×19 game of `n` distinct plies, alternating from Black.
    fn go(n: usize, date: Option<&str>, black: &str, white: &str) -> Shape {
        let board = AnyBoard::Square(SquareBoard::new(19).unwrap());
        let moves: Vec<Move> = (0..n)
            .map(|i| Move::Place(Point(((i * 7) % 361) as u16)))
            .collect();
        let colors = (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                }
            })
            .collect();
        Shape {
            board,
            start: None,
            moves,
            colors,
            date: date.and_then(date_span),
            black: Some(black.into()),
            white: Some(white.into()),
        }
    }

    fn same(kind: MergeKind, transform: u8) -> Judgement {
        Judgement::Same {
            kind,
            transform,
            differs: vec![],
            longer: false,
        }
    }

    #[test]
    fn a_record_of_the_same_game_is_merged() {
        let a = go(120, Some("2016-03-09"), "lee sedol", "alphago");
        let b = go(120, Some("2016-03-09"), "other", "names");
        assert_eq!(judge(&b, &a), same(MergeKind::Identical, 0));
        // A year alone agrees with a day inside it, players unknown.
        let mut c = go(120, Some("2016"), "x", "y");
        assert_eq!(judge(&c, &a), same(MergeKind::Identical, 0));
        // No date: the players decide.
        c.date = None;
        assert_eq!(judge(&c, &a), Judgement::Similar { transform: 0 });
        let d = go(120, None, "lee sedol", "alphago");
        assert_eq!(judge(&d, &a), same(MergeKind::Identical, 0));
    }

    #[test]
    fn a_replay_on_another_day_by_others_is_similar_not_merged() {
        let shusaku = go(150, Some("1861"), "murase shuho", "honinbo shusaku");
        let replay = go(150, Some("2001-05-02"), "yanagida", "hayami");
        assert_eq!(
            judge(&replay, &shusaku),
            Judgement::Similar { transform: 0 }
        );
        // The same players on another day: their record of the game.
        let later = go(150, Some("1862"), "murase shuho", "honinbo shusaku");
        assert_eq!(judge(&later, &shusaku), same(MergeKind::Identical, 0));
    }

    #[test]
    fn every_orientation_is_the_same_game() {
        let a = go(100, Some("2016-03-13"), "a", "b");
        for sym in 1..8u8 {
            let mut b = a.clone();
            // b is a drawn under the inverse of sym: sym maps b onto a.
            let inverse = (0..8).find(|&t| a.board.compose(sym, t) == 0).unwrap();
            for m in &mut b.moves {
                if let Move::Place(p) = m {
                    *p = a.board.transform(*p, inverse);
                }
            }
            assert_eq!(
                judge(&b, &a),
                same(MergeKind::Symmetric, sym),
                "symmetry {sym}"
            );
        }
    }

    #[test]
    fn prefixes_transpositions_and_discrepancies() {
        let a = go(200, Some("2016-03-09"), "a", "b");
        let mut short = a.clone();
        short.moves.truncate(150);
        short.colors.truncate(150);
        let prefix = |longer| Judgement::Same {
            kind: MergeKind::Prefix,
            transform: 0,
            differs: vec![],
            longer,
        };
        assert_eq!(judge(&short, &a), prefix(false));
        assert_eq!(judge(&a, &short), prefix(true));
        // Moves 2 and 4 (both White's) swapped.
        let mut t = a.clone();
        t.moves.swap(1, 3);
        assert_eq!(judge(&t, &a), same(MergeKind::Transposed, 0));
        // Three moves written wrong: a discrepancy of the same sitting.
        let mut d = a.clone();
        for i in [10, 50, 90] {
            d.moves[i] = Move::Pass;
        }
        let discrepancy = Judgement::Same {
            kind: MergeKind::Discrepancy,
            transform: 0,
            differs: vec![11, 51, 91],
            longer: false,
        };
        assert_eq!(judge(&d, &a), discrepancy);
        // ... but not with other players, nor with six differences.
        let mut other = d.clone();
        other.black = Some("c".into());
        assert_eq!(judge(&other, &a), Judgement::Other);
        for i in [100, 110, 120] {
            d.moves[i] = Move::Pass;
        }
        assert_eq!(judge(&d, &a), Judgement::Other);
    }

    #[test]
    fn games_that_part_are_other_games() {
        let a = go(200, Some("2019-01-24"), "leela", "elf");
        let mut b = go(200, Some("2019-01-31"), "leela", "elf");
        for i in 75..200 {
            b.moves[i] = Move::Place(Point(((i * 11) % 361) as u16));
        }
        assert_eq!(judge(&b, &a), Judgement::Other);
        // Another board size is never the same game.
        let mut small = a.clone();
        small.board = AnyBoard::Square(SquareBoard::new(13).unwrap());
        assert_eq!(judge(&small, &a), Judgement::Other);
    }

    #[test]
    fn month_and_year_spans() {
        assert_eq!(
            date_span("2019-12"),
            Some((
                NaiveDate::from_ymd_opt(2019, 12, 1).unwrap(),
                NaiveDate::from_ymd_opt(2019, 12, 31).unwrap()
            ))
        );
        assert_eq!(
            date_span("1846").map(|s| s.1),
            NaiveDate::from_ymd_opt(1846, 12, 31)
        );
        assert_eq!(date_span("unknown"), None);
    }
}
