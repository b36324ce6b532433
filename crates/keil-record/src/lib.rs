//! Game records of Keil and Go: the typed [`Record`] read from an SGF game
//! tree, the replay validator that gives each game a [`Verdict`], and the
//! normalised export.
//!
//! The contracts are `record-format.md` (syntax, `GM` dispatch, Keil
//! properties), `go-rules.md` (Go records) and `kee-rules.md` (the Kee rule
//! in both games); the rules are keil-rules'. Reading and validating are
//! separate steps: a record that reads (the properties mean something in
//! its game) is not yet a legal game.
//!
//! ```
//! use keil_record::{read_records, validate, Reason, Status, Winner};
//!
//! let sgf = b"(;GM[Keil]FF[4]SZ[2]KM[1]RE[B+6.5]PB[Ann]DT[2023-11]
//! ;B[button];W[c2]
//! (;B[b2];W[pass];B[pass])
//! (;B[b3];W[a1];B[button]))";
//! let records = read_records(sgf);
//! let record = records[0].as_ref().unwrap();
//! assert_eq!(record.info.black.as_deref(), Some("Ann"));
//! assert_eq!(record.info.date.as_ref().unwrap().first().unwrap().to_string(), "2023-11-01");
//!
//! let validation = validate(record);
//! let verdict = &validation.verdict;
//! assert_eq!(verdict.status, Status::Complete);
//! assert_eq!(verdict.winner, Some(Winner::Black));
//! assert_eq!(verdict.margin.unwrap().to_string(), "6.5");
//! assert_eq!(validation.replay.as_ref().unwrap().plies.len(), 5);
//!
//! // The variation takes the button a second time at ply 5.
//! let var = &verdict.variations[0];
//! assert_eq!((var.path.as_slice(), var.branch_ply, var.status), (&[1][..], 3, Status::Invalid));
//! let illegal = var.illegal.as_ref().unwrap();
//! assert_eq!((illegal.ply, illegal.reason, illegal.mv.as_str()), (5, Reason::ButtonTaken, "B[button]"));
//! assert_eq!((illegal.line, illegal.column), (4, 14));
//!
//! // One JSON object per game, as `keil validate --json` prints it.
//! let json = verdict.to_json("game.keil", 0);
//! assert_eq!(json["variations"][0]["reason"], "button_taken");
//!
//! // Go records are validated too (go-rules.md); other games are refused.
//! let go = read_records(b"(;GM[1]SZ[9]RU[Japanese]RE[W+R];B[ee];W[ce];B[ee])");
//! let verdict = validate(go[0].as_ref().unwrap()).verdict;
//! assert_eq!((verdict.status, verdict.illegal.unwrap().reason), (Status::Invalid, Reason::Occupied));
//! let hex = read_records(b"(;GM[11]SZ[11];B[aa])");
//! assert_eq!(hex[0].as_ref().unwrap_err().code(), "unknown_game");
//! ```
//!
//! # Overview
//!
//! - [`read_records`] reads every game tree of a file; [`ParsedFile`] does
//!   the same one tree at a time (for parallel readers). `GM` picks the game
//!   (`GM[Keil]`, `GM[1]`; without `GM`, an `RU` beginning with `Keil` or a
//!   `.keil` file name — [`NameHint`] — means Keil, anything else Go). A
//!   game tree that is not a readable record gives a [`RecordError`] naming
//!   the value, its span and line:column.
//! - [`Record`]: [`GameInfo`] (players, [`GameDate`], [`GameResult`], …),
//!   the game's [`GameSpec`] ([`KeilSpec`]: board, ruleset with komi,
//!   setup; [`GoSpec`]: board, Go ruleset, komi, handicap, setup, first
//!   player), the SGF tree with each node's move read
//!   ([`Record::node_move`]), [`Warning`]s.
//! - [`validate()`] replays the main line and every variation in one pass and
//!   gives a [`Validation`]: the [`Verdict`] (status, score, first
//!   [`Illegal`] move, variations) and the main line's [`Replay`] (per-ply
//!   keys, captures, final position) for the archive.
//! - [`Record::to_sgf`] writes the normalised export.

mod error;
mod export;
mod info;
mod json;
mod meta;
mod properties;
mod reason;
mod record;
mod validate;

pub use error::{ErrorKind, RecordError, Result};
pub use info::{
    DatePrecision, FineMargin, GameDate, GameInfo, GameResult, ResultError, UnreadResult, WinBy,
};
pub use json::points;
pub use meta::{Komi, Rank, read_komi};
pub use reason::{Reason, Status};
pub use record::{
    GameSpec, GoSpec, KaomiSpec, KeilSpec, MoveValue, NameHint, NodeMove, PART_BYTES, ParsedFile,
    Record, Seen, SizeError, Warning, file_extension, read_records, read_records_with,
};
pub use validate::{
    Illegal, KaomiVerdict, PlyRecord, Replay, Rules, Validation, VariationVerdict, Verdict, Winner,
    validate,
};
