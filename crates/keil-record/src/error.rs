//! The crate's one error type: why a game tree is not a readable record
//! (record-format.md; Go records are refused only for SGF syntax, their
//! other defects are verdicts, go-rules.md "Verdict of one line").

use keil_rules::{KaomiRulesetError, RulesetError};
use keil_sgf::{Diagnostic, Span};

use crate::info::ResultError;

/// What is wrong with a game tree, so that it gives no [`Record`](crate::Record).
///
/// These are record errors (the file does not say a game this crate reads),
/// not move verdicts: an illegal move in a well-formed record is reported by
/// [`validate`](crate::validate()) instead. A Go record is refused only for
/// SGF syntax ([`ErrorKind::Syntax`]): its malformed values and unsupported
/// sizes are verdicts (`malformed`, `unsupported`). The Keil-specific kinds
/// (`BadSize` … `SetupNotInRoot`) are record-format.md's, for Keil records.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Occurs when the root's `GM` names a game other than Keil, Go and
    /// Kaomi (`GM[11]` is Hex) — record-format.md: "must parse as SGF and
    /// then be refused with a clear 'not a Keil, Go or Kaomi record' error".
    #[error("not a Keil, Go or Kaomi record: GM[{gm}] is {}", game_name(gm))]
    UnknownGame {
        /// The `GM` value as written.
        gm: String,
    },
    /// Occurs when a Kaomi `SZ` is not one number from 2 to 19
    /// (kaomi-rules.md, "Board and points": `SZ[a:b]` too).
    #[error("bad board size SZ[{value}]: a Kaomi board is n x n with n from 2 to 19")]
    KaomiSize {
        /// The value as written.
        value: String,
    },
    /// Occurs when a Kaomi `RU` is not `Kaomi` with known options, each at
    /// most once (kaomi-rules.md, "Rulesets").
    #[error("bad ruleset RU[{value}]: {source}")]
    KaomiRuleset {
        /// The value as written.
        value: String,
        /// What keil-rules found wrong.
        source: KaomiRulesetError,
    },
    /// Occurs on setup (`AB`, `AW`, `AE`) in a Kaomi record: setup is not
    /// part of Kaomi (kaomi-rules.md, "Records").
    #[error("setup {prop} in a Kaomi record: Kaomi games start from the empty board")]
    KaomiSetup {
        /// The property.
        prop: String,
    },
    /// Occurs on a Kaomi move value that is not two SGF letters, `swap`,
    /// `pass` or empty (`c3`, `a`, `SWAP`, `swap-sides`).
    #[error("malformed move {prop}[{value}]: expected two letters like cc, swap, pass or []")]
    KaomiMoveValue {
        /// The property (`B` or `W`).
        prop: String,
        /// The value as written.
        value: String,
    },
    /// Occurs when `SZ` is not a number from 2 to 13.
    #[error("bad board size SZ[{value}]: a Keil board has side 2 to 13")]
    BadSize {
        /// The value as written.
        value: String,
    },
    /// Occurs on a move or setup point that is not a column letter and a row
    /// number (`7g`, `g`, `aa`), record-format.md "Point values".
    #[error(
        "malformed point {prop}[{value}]: expected a point like g7, `pass`, `button` or []{}",
        go_hint(value)
    )]
    MalformedPoint {
        /// The property (`B`, `W`, `AB`, …).
        prop: String,
        /// The value as written.
        value: String,
    },
    /// Occurs on a setup point (`AB`, `AW`, `AE`) off the board. (An
    /// off-board *move* is not a record error but an illegal move,
    /// `off_board`.)
    #[error("setup point {prop}[{value}] is off the board of side {side}")]
    OffBoardSetup {
        /// The property.
        prop: String,
        /// The value as written.
        value: String,
        /// The board side.
        side: u8,
    },
    /// Occurs on a point given for both colours in the setup.
    #[error("setup point {value} is given for both Black and White")]
    ConflictingSetup {
        /// The point.
        value: String,
    },
    /// Occurs when `KM` is not a multiple of 0.5.
    #[error("bad komi KM[{value}]: expected a multiple of 0.5 such as 6, 6.5 or -0.5")]
    BadKomi {
        /// The value as written.
        value: String,
    },
    /// Occurs when `RU` is not `Keil` with known options.
    #[error("bad ruleset RU[{value}]: {source}")]
    BadRuleset {
        /// The value as written.
        value: String,
        /// What keil-rules found wrong.
        source: RulesetError,
    },
    /// Occurs when `RE` is not a result record-format.md knows.
    #[error("{source}")]
    BadResult {
        /// The value as written.
        value: String,
        /// Why.
        source: ResultError,
    },
    /// Occurs on a node with two moves (`;B[a1]W[b2]`, `B` twice, or a
    /// move with two values `;B[a1][b2]`).
    #[error("a node with two moves: {first} and {second}")]
    TwoMoves {
        /// The first move as written.
        first: String,
        /// The second.
        second: String,
    },
    /// Occurs on a node with a move and setup (`;B[a1]AW[b2]`).
    #[error("a node with a move and setup: {mv} and {setup}")]
    MoveAndSetup {
        /// The move as written.
        mv: String,
        /// The setup property.
        setup: String,
    },
    /// Occurs on setup (`AB`, `AW`, `AE`) outside the root node.
    #[error("setup {prop} outside the root node: Keil records set up stones in the root only")]
    SetupNotInRoot {
        /// The property.
        prop: String,
    },
    /// Occurs when the SGF reader could not read the game tree as written (a
    /// limit, a value never closed): the first error diagnostic.
    #[error("SGF syntax error [{code}]: {message}")]
    Syntax {
        /// The keil-sgf diagnostic code.
        code: &'static str,
        /// Its message.
        message: String,
    },
}

fn game_name(gm: &str) -> String {
    let name = match gm.trim() {
        "1" => "Go",
        "2" => "Othello",
        "3" => "chess",
        "4" => "Gomoku",
        "5" => "Nine Men's Morris",
        "6" => "backgammon",
        "7" => "Chinese chess",
        "8" => "shogi",
        "9" => "Lines of Action",
        "10" => "Ataxx",
        "11" => "Hex",
        "12" => "Jungle",
        "13" => "Neutron",
        "14" => "Philosopher's Football",
        "15" => "Quadrature",
        "16" => "Trax",
        "17" => "Tantrix",
        "18" => "Amazons",
        "19" => "Octi",
        "20" => "Gess",
        "21" => "Twixt",
        "22" => "Zertz",
        "23" => "Plateau",
        "24" => "Yinsh",
        "25" => "Punct",
        "26" => "Gobblet",
        "27" => "hive",
        "28" => "Exxit",
        "29" => "Hnefatal",
        "30" => "Kuba",
        "31" => "Tripples",
        "32" => "Chase",
        "33" => "Tumbling Down",
        "34" => "Sahara",
        "35" => "Byte",
        "36" => "Focus",
        "37" => "Dvonn",
        "38" => "Tamsk",
        "39" => "Gipf",
        "40" => "Kropki",
        _ => return "another game (expected GM[Keil], GM[1] or GM[Kaomi])".to_string(),
    };
    format!("{name} (expected GM[Keil], GM[1] or GM[Kaomi])")
}

fn go_hint(value: &str) -> &'static str {
    let b = value.as_bytes();
    if b.len() == 2 && b.iter().all(u8::is_ascii_lowercase) {
        " (two letters look like a Go record)"
    } else {
        ""
    }
}

impl ErrorKind {
    /// A short stable code for JSON and the terminal (`unknown_game`,
    /// `bad_size`, `setup_not_allowed`, `malformed_move`, `malformed_point`, `off_board_setup`, `conflicting_setup`,
    /// `bad_komi`, `bad_ruleset`, `bad_result`, `two_moves`,
    /// `move_and_setup`, `setup_not_in_root`, `syntax`).
    pub fn code(&self) -> &'static str {
        match self {
            ErrorKind::UnknownGame { .. } => "unknown_game",
            ErrorKind::KaomiSize { .. } => "bad_size",
            ErrorKind::KaomiRuleset { .. } => "bad_ruleset",
            ErrorKind::KaomiSetup { .. } => "setup_not_allowed",
            ErrorKind::KaomiMoveValue { .. } => "malformed_move",
            ErrorKind::BadSize { .. } => "bad_size",
            ErrorKind::MalformedPoint { .. } => "malformed_point",
            ErrorKind::OffBoardSetup { .. } => "off_board_setup",
            ErrorKind::ConflictingSetup { .. } => "conflicting_setup",
            ErrorKind::BadKomi { .. } => "bad_komi",
            ErrorKind::BadRuleset { .. } => "bad_ruleset",
            ErrorKind::BadResult { .. } => "bad_result",
            ErrorKind::TwoMoves { .. } => "two_moves",
            ErrorKind::MoveAndSetup { .. } => "move_and_setup",
            ErrorKind::SetupNotInRoot { .. } => "setup_not_in_root",
            ErrorKind::Syntax { .. } => "syntax",
        }
    }
}

/// Why a game tree gives no [`Record`](crate::Record): what, where (byte
/// span and 1-based line:column in the decoded text), and the SGF
/// diagnostics of that tree.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {kind}")]
pub struct RecordError {
    /// What is wrong (boxed: errors are rare, results stay small).
    pub kind: Box<ErrorKind>,
    /// The value or property at fault, in bytes of the decoded text.
    pub span: Span,
    /// Line of `span.start`, from 1.
    pub line: u32,
    /// Column of `span.start`, from 1, in characters.
    pub column: u32,
    /// Index of the game tree in its file, from 0.
    pub game: usize,
    /// The SGF reader's diagnostics about this tree (and, for the first
    /// tree, about the file as a whole).
    pub diagnostics: Vec<Diagnostic>,
}

impl RecordError {
    /// The code of [`RecordError::kind`].
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }
}

/// `Result` with this crate's [`RecordError`].
pub type Result<T, E = RecordError> = std::result::Result<T, E>;
