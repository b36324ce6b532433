//! From a read record to the rows of one game: the only module that knows
//! keil-record's types (besides the position index).

use keil_record::{Reason, Record, RecordError, Replay, Verdict};
use keil_rules::{Color, HalfPoints, ToMove};

use crate::index::text::{TextFields, text_fields};
use keil_store::import::{GameRow, Meta};
use keil_store::kind::GameKind;
use keil_store::model::GameStatus;
use keil_store::model::refused::Problem;
use keil_store::moves;

/// A valid game ready to be written: its row, and what the derived
/// indexes take of it.
pub(crate) struct Prepared {
    pub row: GameRow,
    pub text: TextFields,
    pub replay: Replay,
    /// The game replayed for the pattern index (id 0: the writer gives
    /// it), for its batch's pattern block; `None` when that replay failed
    /// (the writer then replays it from the store, and reports it).
    pub pattern: Option<crate::index::patterns::Replayed>,
}

/// What reading and validating one game tree said, as keil-record gives it:
/// for callers that show the full verdict (the server's upload answers
/// write it as `keil validate --json` does). Kept in
/// [`crate::GameOutcome`]s only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Checked {
    /// The record was read; the validator's verdict (valid or not).
    Verdict(Box<Verdict>),
    /// The game tree is not a readable record.
    RecordError(Box<RecordError>),
    /// The file could not be read at all.
    NotRead,
}

/// The result of preparing one game tree, with the validator's word when
/// asked for (`Checked::NotRead` otherwise).
pub(crate) enum Prepare {
    Valid(Box<Prepared>, Checked),
    Invalid(Problem, Checked),
}

/// The status of a verdict, `None` when the game is invalid.
fn status_of(code: &str) -> Option<GameStatus> {
    code.parse().ok()
}

/// Why a verdict refuses its game (its main line): the first illegal move
/// or result mismatch, else the status itself.
fn refusal(source: &str, index: usize, verdict: &Verdict) -> Problem {
    match &verdict.illegal {
        Some(ill) => {
            let moved = ill.reason != Reason::ResultMismatch;
            Problem {
                ply: moved.then_some(ill.ply),
                mv: moved.then(|| ill.mv.clone()),
                line: Some(ill.line),
                column: Some(ill.column),
                ..problem(
                    source,
                    index,
                    ill.reason.code(),
                    format!("{ill} (line {}, column {})", ill.line, ill.column),
                )
            }
        }
        None => problem(
            source,
            index,
            verdict.status.code(),
            format!("the game is {}", verdict.status.code()),
        ),
    }
}

/// The reason code of a game tree that is not a game: no move, no setup,
/// no game information and no comment (`(;)`, `(;GM[1]SZ[19])`). Never
/// stored, by `keil import` and uploads alike.
pub const EMPTY_RECORD: &str = "empty_record";

/// Whether a record holds nothing of a game: no move on its main line, no
/// setup, no game information (players, date, event, result, ... all
/// absent) and no comment. The game kind, size and komi alone are not a
/// game.
fn is_empty_record(record: &Record, replay: &Replay) -> bool {
    let setup = record.keil().is_some_and(|k| k.setup.is_some())
        || record.go().is_some_and(|g| g.setup.is_some());
    replay.plies.is_empty()
        && !setup
        && record.info == keil_record::GameInfo::default()
        && record.comments().next().is_none()
}

/// Reads the verdict on one game tree and, for a valid one, the rows to
/// store. With `keep`, the verdict (or read error) comes along for the
/// import's outcomes.
pub(crate) fn prepare(
    source: &str,
    index: usize,
    read: Result<Record, RecordError>,
    keep: bool,
) -> Prepare {
    let record = match read {
        Ok(r) => r,
        Err(e) => {
            let problem = Problem {
                line: Some(e.line),
                column: Some(e.column),
                ..problem(source, index, e.code(), e.to_string())
            };
            let checked = if keep {
                Checked::RecordError(Box::new(e))
            } else {
                Checked::NotRead
            };
            return Prepare::Invalid(problem, checked);
        }
    };
    let validation = keil_record::validate(&record);
    let verdict = validation.verdict;
    let status = status_of(verdict.status.code()).filter(|_| verdict.illegal.is_none());
    let checked = |verdict: Verdict| {
        if keep {
            Checked::Verdict(Box::new(verdict))
        } else {
            Checked::NotRead
        }
    };
    let Some(status) = status else {
        return Prepare::Invalid(refusal(source, index, &verdict), checked(verdict));
    };
    let Some(replay) = validation.replay else {
        // Only a Go record with no board has no replay, and it is malformed
        // or unsupported (refused above).
        let message = "the game has no board to replay".to_string();
        return Prepare::Invalid(
            problem(source, index, "unsupported", message),
            checked(verdict),
        );
    };
    if let Some(problem) = unstorable(source, index, &record, &replay) {
        return Prepare::Invalid(problem, checked(verdict));
    }
    let Some(board) = board_of(&record, &replay) else {
        let message = format!("the archive does not store {} games", record.kind().code());
        let problem = problem(source, index, "unsupported_kind", message);
        return Prepare::Invalid(problem, checked(verdict));
    };
    let sgf = record.to_sgf();
    let mut hash = [0u8; 16];
    hash.copy_from_slice(&blake3::hash(sgf.as_bytes()).as_bytes()[..16]);
    let (meta, setup) = meta_of(&record.info, &verdict, board);
    let line = MainLine::of(&record, &replay);
    let mut valid = Box::new(Prepared {
        row: GameRow {
            hash,
            meta,
            status,
            plies: replay.plies.len() as u32,
            setup,
            moves: line.moves,
            move_nodes: line.nodes,
            record: keil_store::records::compress(sgf.as_bytes()),
        },
        text: text_fields(&record),
        replay,
        pattern: None,
    });
    valid.pattern = pattern_of(&valid, &line.depths);
    Prepare::Valid(valid, checked(verdict))
}

/// A refusal of the tree at `index` of `source`, with no place in it.
fn problem(source: &str, index: usize, reason: &str, message: String) -> Problem {
    Problem {
        source: source.to_string(),
        index,
        reason: reason.to_string(),
        message,
        ply: None,
        mv: None,
        line: None,
        column: None,
    }
}

/// The refusal of a valid record that the archive does not store: one
/// with nothing of a game ([`EMPTY_RECORD`]), or a Go setup in the middle
/// of the game (AB/AW/AE after the first move), which has no place in the
/// move blob.
fn unstorable(source: &str, index: usize, record: &Record, replay: &Replay) -> Option<Problem> {
    if is_empty_record(record, replay) {
        let (line, column) = record.location(keil_sgf::NodeId::ROOT);
        let message = format!(
            "the game tree has no move, no setup and no game information (line {line}, column {column}): it is not a game"
        );
        return Some(Problem {
            line: Some(line),
            column: Some(column),
            ..problem(source, index, EMPTY_RECORD, message)
        });
    }
    let at = replay.plies.iter().find(|p| p.setup.is_some())?;
    let (line, column) = record.location(at.node);
    let message = format!(
        "the archive does not store setup in the middle of a game (before ply {}, line {line}, column {column})",
        at.ply
    );
    Some(Problem {
        ply: Some(at.ply),
        line: Some(line),
        column: Some(column),
        ..problem(source, index, "setup_in_game", message)
    })
}

/// The metadata columns of a record (its game information, the verdict's
/// winner and margin, its `board`), and the start in the kind's notation.
fn meta_of(
    info: &keil_record::GameInfo,
    verdict: &Verdict,
    board: Board,
) -> (Meta, Option<String>) {
    let rank = |r: &Option<String>| r.as_deref().and_then(keil_record::Rank::parse);
    let meta = Meta {
        black: info.black.clone(),
        white: info.white.clone(),
        black_rank: info.black_rank.clone(),
        white_rank: info.white_rank.clone(),
        black_rank_ord: rank(&info.black_rank),
        white_rank_ord: rank(&info.white_rank),
        date_raw: info.date.as_ref().map(|d| d.raw().to_string()),
        date: info
            .date
            .as_ref()
            .and_then(|d| d.first())
            .map(|d| d.format("%Y-%m-%d").to_string())
            .unwrap_or_default(),
        event: info.event.clone(),
        round: info.round.clone(),
        place: info.place.clone(),
        game_name: info.game_name.clone(),
        result: info.result.as_ref().map(|r| r.to_string()),
        winner: verdict.winner.and_then(|w| w.color()),
        margin: verdict.margin,
        kind: board.kind,
        size: board.size,
        ruleset: board.ruleset,
        komi: board.komi,
        handicap: board.handicap,
    };
    (meta, board.setup)
}

/// A record's main line as stored: the moves blob (`moves::encode`), each
/// move's node depth, and the nodes blob (`moves::encode_nodes`).
struct MainLine {
    moves: Vec<u8>,
    /// A move's node number is its node's depth in the main line (the
    /// plies follow the main line in order), as stored: below 2^16.
    depths: Vec<u32>,
    nodes: Option<Vec<u8>>,
}

impl MainLine {
    fn of(record: &Record, replay: &Replay) -> MainLine {
        let moves = moves::encode(
            replay.start.board(),
            replay.plies.iter().map(|p| (p.color, p.mv)),
        );
        let mut line = record.tree.main_line().map(|(id, _)| id).enumerate();
        let depths: Vec<u32> = replay
            .plies
            .iter()
            .map(|p| {
                line.find(|&(_, id)| id == p.node)
                    .map_or(0, |(depth, _)| (depth as u32).min(u32::from(u16::MAX)))
            })
            .collect();
        let nodes = moves::encode_nodes(depths.iter().copied());
        MainLine {
            moves,
            depths,
            nodes,
        }
    }
}

/// The game replayed for the pattern index: the validator's plies give
/// its events; a game they do not cover is replayed from its stored
/// moves. `None` when that fails too.
fn pattern_of(valid: &Prepared, depths: &[u32]) -> Option<crate::index::patterns::Replayed> {
    let meta = &valid.row.meta;
    let winner = meta.winner.map(|c| c.index() as i64);
    crate::index::patterns::replayed_from_plies(
        meta.kind,
        &valid.replay,
        depths,
        &meta.date,
        winner,
    )
    .or_else(|| {
        let stored = valid.row.stored_moves();
        crate::index::patterns::replayed(stored, 0, &meta.date, winner).ok()
    })
}

/// The board columns of a record as the archive stores them: kind, size,
/// ruleset (Keil's `RU` or the Go or Kaomi ruleset code), komi, Go's
/// handicap and the start in the kind's notation (written when set up or
/// when the first player is not Black).
pub(crate) struct Board {
    pub kind: GameKind,
    pub size: u8,
    pub ruleset: String,
    pub komi: HalfPoints,
    pub handicap: u32,
    pub setup: Option<String>,
}

/// [`Board`] of `record` as `replay` replayed it; `None` for a game this
/// archive does not store.
pub(crate) fn board_of(record: &Record, replay: &Replay) -> Option<Board> {
    if let Some(keil) = record.keil() {
        let setup = keil
            .setup
            .as_ref()
            .map(|start| start.to_notation(Some(keil.to_move)));
        let r = keil.ruleset;
        Some(Board {
            kind: GameKind::Keil,
            size: keil.board.side(),
            ruleset: r.to_string(),
            komi: r.komi,
            handicap: 0,
            setup,
        })
    } else if let Some(go) = record.go() {
        // The start as the validator replayed it; written when set up or
        // when the first player is not Black (`PL[W]`, or either colour
        // after setup).
        let first = go.first_player;
        let setup = (go.setup.is_some() || first != ToMove::Color(Color::Black))
            .then(|| replay.start.to_notation(first.color()));
        Some(Board {
            kind: GameKind::Go,
            size: replay.start.board().size(),
            ruleset: go.ruleset.code().to_string(),
            komi: go.komi_meant,
            handicap: go.handicap,
            setup,
        })
    } else {
        record.kaomi().map(|kaomi| Board {
            kind: GameKind::Kaomi,
            size: kaomi.board.size(),
            ruleset: kaomi.ruleset.to_string(),
            komi: kaomi.komi,
            handicap: 0,
            setup: None,
        })
    }
}

/// What the import stores of a game's main line, worked out again from
/// its stored record's text (`keil verify`: [`crate::verify`]): the
/// board columns ([`Board`]), the moves blob (`moves::encode`) and the
/// number of moves.
pub(crate) struct Line {
    /// Kind, size, ruleset, komi, handicap and setup, as stored.
    pub board: Board,
    /// The moves blob.
    pub moves: Vec<u8>,
    /// The main line's moves.
    pub plies: usize,
}

/// [`Line`] of a stored record's text, read and validated as the import
/// does.
///
/// # Errors
/// Why the text does not give a game the archive stores: not one record,
/// a record error, a verdict that refuses it, no board.
pub(crate) fn line_of(text: &str) -> Result<Line, String> {
    let mut records = keil_record::read_records(text.as_bytes());
    let record = match records.pop() {
        Some(Ok(r)) if records.is_empty() => r,
        Some(Err(e)) if records.is_empty() => return Err(format!("it does not read: {e}")),
        _ => return Err("it is not one game tree".into()),
    };
    let validation = keil_record::validate(&record);
    let verdict = validation.verdict;
    if verdict.illegal.is_some() || status_of(verdict.status.code()).is_none() {
        return Err(format!(
            "the validator refuses it ({})",
            verdict.status.code()
        ));
    }
    let replay = validation.replay.ok_or("it has no board to replay")?;
    let board = board_of(&record, &replay).ok_or("not a game kind the archive stores")?;
    let moves = moves::encode(
        replay.start.board(),
        replay.plies.iter().map(|p| (p.color, p.mv)),
    );
    Ok(Line {
        board,
        moves,
        plies: replay.plies.len(),
    })
}
