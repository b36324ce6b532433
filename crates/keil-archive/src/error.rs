//! The crate's one error type. Storage failures are opaque
//! ([`StorageError`]): no type of the storage engine (SQLite, tantivy)
//! appears in the API, so that another backend can report its own.

use std::path::PathBuf;

use keil_store::StorageError;
use keil_store::ids::GameId;

/// What can go wrong when opening, importing into or querying an archive.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Occurs when the storage fails: the database refuses a statement (I/O,
    /// corruption, a lock held longer than the busy timeout of 5 s), the
    /// schema migrations cannot be applied (e.g. an archive written by a
    /// newer version of keil-archive), or the text index cannot be opened,
    /// written or read.
    #[error("{0}")]
    Storage(StorageError),
    /// Occurs when a full-text query is over its bounds (too long, too
    /// many words); no query within them is refused.
    #[error("{0}")]
    TextQuery(#[from] TextQueryError),
    /// Occurs when an alias cannot be added ([`crate::Archive::add_alias`]):
    /// a name without a letter or digit, or two names that are already
    /// one person key.
    #[error("alias refused: {0}")]
    BadAlias(String),
    /// Occurs when a person's name cannot be set
    /// ([`crate::Archive::set_player_name`]): no person by that name, or a
    /// name without a letter or digit.
    #[error("player name refused: {0}")]
    BadPlayerName(String),
    /// Occurs when an import's collection name is refused
    /// ([`crate::collection_name`]: empty, too long, a control character).
    #[error("collection refused: {0}")]
    BadCollection(String),
    /// Occurs when a file or directory cannot be read or created.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Occurs when another import (in this or another process) holds the
    /// archive's writer lock.
    #[error("another import is running on this archive")]
    Busy,
    /// Occurs when a stored game cannot be decoded (its moves or record).
    #[error("game {game} is corrupt: {reason}")]
    Corrupt {
        /// The game.
        game: GameId,
        /// What could not be decoded.
        reason: String,
    },
    /// Occurs when a cursor string given for pagination is not one this
    /// crate produced; holds its first 64 characters.
    #[error(
        "bad cursor {0:?}: pass the next cursor of a previous answer unchanged (a game list's DATE~ID, a search's DATE-GAME)"
    )]
    BadCursor(String),
    /// Occurs when a pattern cannot be placed as asked (a corner pattern
    /// not drawn in a corner, a pattern too large for its mode, ...); the
    /// text says what to change.
    #[error("pattern: {0}")]
    Pattern(#[from] PatternError),
    /// Occurs when a stored position segment does not decode (a damaged
    /// archive); `keil reindex` rebuilds the position index from the games.
    #[error("position index: {0}")]
    PositionIndex(String),
    /// Occurs when a search runs past its [`crate::Budget`]'s deadline
    /// (`budget_ms`), or its budget was cancelled (`budget_ms` 0 when it had
    /// no deadline): the search stopped early and has no answer.
    #[error("the search stopped: over its budget of {budget_ms} ms, or cancelled")]
    OverBudget {
        /// The budget in ms (0: no deadline, cancelled).
        budget_ms: u64,
    },
    /// Occurs when a write (an import, a reindex, a compaction) is asked of
    /// an archive opened with [`crate::Archive::open_read_only`].
    #[error("the archive is open read-only")]
    ReadOnly,
    /// Occurs when an archive opened read-only would need a migration or an
    /// index upgrade, which writes; the text says what is out of date.
    #[error(
        "the archive needs an upgrade ({0}): open it once for writing (e.g. `keil reindex` or `keil serve`) on a writable volume"
    )]
    NeedsUpgrade(String),
    /// Occurs when the archive was written by a newer version of keil (its
    /// schema version is above this crate's).
    #[error(
        "the archive has schema version {found}, newer than this keil's {expected}: use a newer keil"
    )]
    TooNew {
        /// The archive's schema version.
        found: usize,
        /// This crate's ([`crate::schema_version`]).
        expected: usize,
    },
    /// Occurs when an operation does not apply to the archive's backend
    /// (e.g. [`crate::Archive::backup`] of a PostgreSQL archive, which
    /// `pg_dump` backs up); the text says what to do instead.
    #[error("{0}")]
    Unsupported(String),
    /// Occurs when an import stops part way (a storage failure such as a
    /// full disk, while writing a batch): `progress` counts what the
    /// batches committed before it stored (whole batches only: a batch is
    /// one transaction, so nothing is half-written); `cause` is the
    /// failure ([`Error::is_out_of_space`] tells a full disk).
    #[error(
        "the import stopped after storing {} games ({} read): {cause}",
        .progress.imported,
        .progress.games_read
    )]
    Stopped {
        /// What was stored before the failure.
        progress: keil_store::progress::ImportProgress,
        /// Why the import stopped.
        cause: Box<Error>,
    },
}

impl Error {
    /// Whether the storage ran out of space (SQLite's `SQLITE_FULL`, a
    /// write's I/O error, or an operating-system "no space left"), here or
    /// in the cause of an [`Error::Stopped`] import.
    pub fn is_out_of_space(&self) -> bool {
        match self {
            Error::Stopped { cause, .. } => cause.is_out_of_space(),
            Error::Io { source, .. } => source.kind() == std::io::ErrorKind::StorageFull,
            Error::Storage(s) => s.is_out_of_space(),
            _ => false,
        }
    }
}

/// A storage error of part `what` (`text index`, `refused record`, ...)
/// caused by `e`.
pub(crate) fn storage_error(
    what: &'static str,
    e: impl std::error::Error + Send + Sync + 'static,
) -> Error {
    Error::Storage(StorageError::new(what, e))
}

impl From<keil_store::Error> for Error {
    /// Each store error as the archive's variant of the same name.
    fn from(e: keil_store::Error) -> Error {
        use keil_store::Error as S;
        match e {
            S::Storage(s) => Error::Storage(s),
            S::Io { path, source } => Error::Io { path, source },
            S::Busy => Error::Busy,
            S::Corrupt { game, reason } => Error::Corrupt { game, reason },
            S::BadCursor(c) => Error::BadCursor(c),
            S::OverBudget { budget_ms } => Error::OverBudget { budget_ms },
            S::NeedsUpgrade(what) => Error::NeedsUpgrade(what),
            S::TooNew { found, expected } => Error::TooNew { found, expected },
            S::Unsupported(what) => Error::Unsupported(what),
            // The store's error is non-exhaustive: a variant added there
            // is reported as a storage failure until it is mapped here.
            other => storage_error("store", other),
        }
    }
}

#[doc(hidden)]
impl From<tantivy::TantivyError> for Error {
    fn from(e: tantivy::TantivyError) -> Error {
        storage_error("text index", e)
    }
}

impl Error {
    /// Whether the error says that the storage cannot be written: a
    /// read-only volume, a full disk, a file or directory without write
    /// permission, or an archive opened read-only. A caller that only needs
    /// to read may then open the archive with
    /// [`crate::Archive::open_read_only`].
    pub fn is_unwritable(&self) -> bool {
        match self {
            Error::ReadOnly => true,
            Error::Io { source, .. } => io_unwritable(source),
            Error::Storage(s) if s.is_unwritable_disk() => true,
            Error::Storage(s) => {
                let mut cause = std::error::Error::source(s);
                while let Some(c) = cause {
                    if engine_unwritable(c) {
                        return true;
                    }
                    cause = c.source();
                }
                false
            }
            _ => false,
        }
    }
}

fn io_unwritable(e: &std::io::Error) -> bool {
    use std::io::ErrorKind as K;
    matches!(
        e.kind(),
        K::ReadOnlyFilesystem | K::PermissionDenied | K::StorageFull | K::QuotaExceeded
    )
}

/// One cause in a storage error's chain: an I/O error, or tantivy's codes
/// for one (the store's engine's were read when the error was made).
fn engine_unwritable(e: &(dyn std::error::Error + 'static)) -> bool {
    use tantivy::TantivyError as T;
    use tantivy::directory::error::{LockError, OpenDirectoryError, OpenWriteError};
    if let Some(io) = e.downcast_ref::<std::io::Error>() {
        return io_unwritable(io);
    }
    match e.downcast_ref::<T>() {
        Some(T::IoError(io))
        | Some(T::LockFailure(LockError::IoError(io), _))
        | Some(T::OpenWriteError(OpenWriteError::IoError { io_error: io, .. }))
        | Some(T::OpenDirectoryError(OpenDirectoryError::IoError { io_error: io, .. })) => {
            io_unwritable(io)
        }
        _ => false,
    }
}

/// The longest text query read, in bytes (UTF-8): a person's query is a
/// few words; this bounds what one request can ask of the index.
pub const MAX_TEXT_QUERY_BYTES: usize = 1000;

/// The most words (the index's tokens, over every clause) a text query may
/// have: each word is a lookup in every field it may match.
pub const MAX_TEXT_QUERY_WORDS: usize = 64;

/// A text query refused as a whole (the only refusals: nothing in a query
/// within the bounds is a syntax error).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextQueryError {
    /// The query is longer than [`MAX_TEXT_QUERY_BYTES`].
    #[error(
        "the text query is {bytes} bytes long; the limit is {MAX_TEXT_QUERY_BYTES} bytes: use fewer words"
    )]
    TooLong {
        /// The query's length in bytes (UTF-8).
        bytes: usize,
    },
    /// The query has more than [`MAX_TEXT_QUERY_WORDS`] words.
    #[error(
        "the text query has {words} words; the limit is {MAX_TEXT_QUERY_WORDS} words: use fewer"
    )]
    TooManyWords {
        /// The words of the query (the index's tokens).
        words: usize,
    },
}

/// Why a pattern is refused (each names what to fix).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// The text is empty.
    #[error("empty pattern: write rows of X O . * x o separated by '/', or VALUE:POINT items")]
    Empty,
    /// A character that is no cell value.
    #[error(
        "{found:?} at row {row}, column {column} is not a cell: use X (black), O (white), . (empty), * (any), x (black or empty), o (white or empty)"
    )]
    Cell {
        /// The character.
        found: char,
        /// Its row, from 1.
        row: usize,
        /// Its column, from 1.
        column: usize,
    },
    /// Rows of different lengths.
    #[error("row {row} has {found} cells, row 1 has {expected}: every row needs the same width")]
    Ragged {
        /// The row, from 1.
        row: usize,
        /// Row 1's width.
        expected: usize,
        /// This row's width.
        found: usize,
    },
    /// The rows notation on a hexagonal board.
    #[error(
        "a Keil pattern is written as VALUE:POINT items (X:g7 O:h8 .:g8,h7): rows are for square boards"
    )]
    RowsOnHexagon,
    /// A point that is malformed or off the board.
    #[error("point {point:?}: {reason}")]
    Point {
        /// The point as written.
        point: String,
        /// Why it is refused.
        reason: String,
    },
    /// An item of the point-list notation that is not `VALUE:POINTS`.
    #[error("{0:?} is not VALUE:POINT[,POINT...] (e.g. X:dd or .:cc,cd)")]
    Item(String),
    /// The same point given twice.
    #[error("point {0} is given twice")]
    Twice(String),
    /// The drawn pattern does not fit on the board.
    #[error("the pattern does not fit on the board ({0})")]
    OffBoard(String),
    /// An unknown mode.
    #[error("unknown mode {0:?}: use fixed, corner, side, centre or anywhere")]
    Mode(String),
    /// A corner pattern not drawn in a corner.
    #[error(
        "a corner pattern must be drawn in a corner of the board (touching two edges that meet there): extend its region to the corner, name its stones alone (e.g. X:dd O:cf) and the region grows to the nearest corner, or choose the mode side, centre or anywhere"
    )]
    NotInCorner,
    /// A side pattern not drawn on exactly one edge.
    #[error(
        "a side pattern must be drawn touching exactly one edge of the board and no corner: extend its region to one edge, name its stones alone (e.g. X:jd) and the region grows to the nearest edge, or choose the mode corner, centre or anywhere"
    )]
    NotOnSide,
    /// No placement of the pattern is possible in the mode.
    #[error(
        "the pattern has no place on this board in {0} mode: its region is too large for the mode; make it smaller or choose the mode anywhere"
    )]
    NoPlacement(&'static str),
    /// A board the kind does not have.
    #[error("board: {0}")]
    Board(String),
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
