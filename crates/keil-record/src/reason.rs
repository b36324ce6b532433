//! The words of a verdict: the status of a game or line and why it is not
//! valid (record-format.md, "Validation outcome for one game"; go-rules.md,
//! "Verdict of one line"). The record layer names a reason when a Go tree
//! holds a value that means nothing; the validator names the rest.

use std::fmt;

use keil_rules::IllegalReason;

/// The verdict's status for a game (or a variation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Status {
    /// Ended by passes; where the result is checked (Keil, Go tromp-taylor
    /// and kee) the computed score is the result and a given `RE` agrees.
    Complete,
    /// `RE` says a player resigned; every move is legal and the game did not
    /// end by passes.
    Resigned,
    /// `RE` says a player lost on time (same conditions).
    Time,
    /// `RE` says a player forfeited (same conditions; Go `B+I` too).
    Forfeit,
    /// Go: not ended by passes, and `RE` gives a score, a winner (`B+`) or a
    /// draw (go-rules.md, "Verdict of one line").
    Scored,
    /// No end, and no decisive `RE` (or `RE[?]`, or `RE[Void]`, or a Go
    /// `RE` that does not parse).
    Unfinished,
    /// An illegal move, or an `RE` that disagrees with the game.
    Invalid,
    /// Go: a value that means nothing (`bad_move_value`,
    /// `two_moves_in_node`, `bad_setup`, `bad_size`).
    Malformed,
    /// Go: a board this validator does not handle (`board_size`).
    Unsupported,
}

impl Status {
    /// The JSON code: `complete`, `resigned`, `time`, `forfeit`, `scored`,
    /// `unfinished`, `invalid`, `malformed`, `unsupported`.
    pub fn code(self) -> &'static str {
        match self {
            Status::Complete => "complete",
            Status::Resigned => "resigned",
            Status::Time => "time",
            Status::Forfeit => "forfeit",
            Status::Scored => "scored",
            Status::Unfinished => "unfinished",
            Status::Invalid => "invalid",
            Status::Malformed => "malformed",
            Status::Unsupported => "unsupported",
        }
    }

    /// Every status, in the order of the summary line.
    pub const ALL: [Status; 9] = [
        Status::Complete,
        Status::Resigned,
        Status::Time,
        Status::Forfeit,
        Status::Scored,
        Status::Unfinished,
        Status::Invalid,
        Status::Malformed,
        Status::Unsupported,
    ];

    /// Whether a game or line with this status is not valid: `invalid`,
    /// `malformed` or `unsupported`.
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Status::Invalid | Status::Malformed | Status::Unsupported
        )
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Why a game is invalid, malformed or unsupported: the fixed lists of
/// record-format.md ("Validation outcome") and go-rules.md ("Verdict of one
/// line"), the move reasons in the order of precedence where several apply
/// first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// A turn after passes ended the game (`after_end`).
    AfterEnd,
    /// Not this colour's turn (`wrong_player`).
    WrongPlayer,
    /// A point name off the board (`off_board`).
    OffBoard,
    /// A placement on a stone (`occupied`).
    Occupied,
    /// The placed stone's group has no liberty after removals, under rules
    /// without suicide (`self_capture`).
    SelfCapture,
    /// The position repeats an earlier one the repetition rule forbids
    /// (`repetition`).
    Repetition,
    /// A pass while the button is in use and untaken (`pass_before_button`).
    PassBeforeButton,
    /// Taking the button a second time (`button_taken`).
    ButtonTaken,
    /// Taking the button with `button=off` (`button_not_in_use`).
    ButtonNotInUse,
    /// Kaomi: a pass; Kaomi has none (`pass_not_allowed`).
    PassNotAllowed,
    /// Kaomi: a swap with `pie=off` (`swap_not_allowed`).
    SwapNotAllowed,
    /// Kaomi: a swap with the pie rule in use but not on White's first
    /// turn, ply 2 (`swap_wrong_turn`).
    SwapWrongTurn,
    /// `RE` disagrees with how the game ended (`result_mismatch`).
    ResultMismatch,
    /// Go, `malformed`: a move value that is no move (`bad_move_value`).
    BadMoveValue,
    /// Go, `malformed`: a node with two moves (`two_moves_in_node`).
    TwoMovesInNode,
    /// Go, `malformed`: a setup value that is not a point (`bad_setup`).
    BadSetup,
    /// Go, `malformed`: `SZ` is not a positive number (`bad_size`).
    BadSize,
    /// Go, `unsupported`: larger than 19, or rectangular (`board_size`).
    BoardSize,
}

impl Reason {
    /// The JSON code.
    pub fn code(self) -> &'static str {
        match self {
            Reason::AfterEnd => "after_end",
            Reason::WrongPlayer => "wrong_player",
            Reason::OffBoard => "off_board",
            Reason::Occupied => "occupied",
            Reason::SelfCapture => "self_capture",
            Reason::Repetition => "repetition",
            Reason::PassBeforeButton => "pass_before_button",
            Reason::ButtonTaken => "button_taken",
            Reason::ButtonNotInUse => "button_not_in_use",
            Reason::PassNotAllowed => "pass_not_allowed",
            Reason::SwapNotAllowed => "swap_not_allowed",
            Reason::SwapWrongTurn => "swap_wrong_turn",
            Reason::ResultMismatch => "result_mismatch",
            Reason::BadMoveValue => "bad_move_value",
            Reason::TwoMovesInNode => "two_moves_in_node",
            Reason::BadSetup => "bad_setup",
            Reason::BadSize => "bad_size",
            Reason::BoardSize => "board_size",
        }
    }

    /// Every reason, in the order of [`Reason`].
    pub const ALL: [Reason; 18] = [
        Reason::AfterEnd,
        Reason::WrongPlayer,
        Reason::OffBoard,
        Reason::Occupied,
        Reason::SelfCapture,
        Reason::Repetition,
        Reason::PassBeforeButton,
        Reason::ButtonTaken,
        Reason::ButtonNotInUse,
        Reason::PassNotAllowed,
        Reason::SwapNotAllowed,
        Reason::SwapWrongTurn,
        Reason::ResultMismatch,
        Reason::BadMoveValue,
        Reason::TwoMovesInNode,
        Reason::BadSetup,
        Reason::BadSize,
        Reason::BoardSize,
    ];

    /// The status a line with this reason gets: `malformed` for the
    /// malformed values, `unsupported` for `board_size`, else `invalid`.
    pub fn status(self) -> Status {
        match self {
            Reason::BadMoveValue | Reason::TwoMovesInNode | Reason::BadSetup | Reason::BadSize => {
                Status::Malformed
            }
            Reason::BoardSize => Status::Unsupported,
            _ => Status::Invalid,
        }
    }

    /// Whether the reason names a move (its `ply` and `move` are given):
    /// not `result_mismatch`, `bad_setup`, `bad_size`, `board_size`.
    pub fn has_move(self) -> bool {
        !matches!(
            self,
            Reason::ResultMismatch | Reason::BadSetup | Reason::BadSize | Reason::BoardSize
        )
    }

    pub(crate) fn of(reason: &IllegalReason) -> Reason {
        match reason {
            IllegalReason::GameOver | IllegalReason::BoardFull => Reason::AfterEnd,
            IllegalReason::PassNotAllowed => Reason::PassNotAllowed,
            IllegalReason::SwapNotAllowed => Reason::SwapNotAllowed,
            IllegalReason::SwapWrongTurn => Reason::SwapWrongTurn,
            IllegalReason::WrongPlayer { .. } => Reason::WrongPlayer,
            IllegalReason::Occupied => Reason::Occupied,
            IllegalReason::SelfCapture => Reason::SelfCapture,
            IllegalReason::Repetition { .. } => Reason::Repetition,
            IllegalReason::PassBeforeButton => Reason::PassBeforeButton,
            IllegalReason::ButtonTaken => Reason::ButtonTaken,
            IllegalReason::ButtonNotInUse => Reason::ButtonNotInUse,
            IllegalReason::OffBoard => Reason::OffBoard,
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}
