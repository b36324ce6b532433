//! The crate's one error type. Storage failures are opaque
//! ([`StorageError`]): no type of the storage engine (SQLite, tantivy)
//! appears in the API, so that another backend can report its own.

use std::path::PathBuf;

use crate::GameId;

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
    TextQuery(#[from] crate::TextQueryError),
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
    Pattern(#[from] crate::PatternError),
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
}

/// A failure of the archive's storage, with its cause (see
/// [`std::error::Error::source`]). Opaque: callers report it, they do not
/// match on the engine's errors.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {source}")]
pub struct StorageError {
    /// Which part of the storage failed: `SQLite`, `schema migration` or
    /// `text index`.
    what: &'static str,
    source: Box<dyn std::error::Error + Send + Sync + 'static>,
}

impl StorageError {
    /// Which part of the storage failed: `SQLite`, `schema migration` or
    /// `text index`.
    pub fn part(&self) -> &'static str {
        self.what
    }
}

fn storage(what: &'static str, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Storage(StorageError {
        what,
        source: Box::new(e),
    })
}

// The conversions that let the crate's code use `?` on its engines' calls.
#[doc(hidden)]
impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Error {
        storage("SQLite", e)
    }
}

#[doc(hidden)]
impl From<rusqlite_migration::Error> for Error {
    fn from(e: rusqlite_migration::Error) -> Error {
        storage("schema migration", e)
    }
}

#[doc(hidden)]
impl From<tantivy::TantivyError> for Error {
    fn from(e: tantivy::TantivyError) -> Error {
        storage("text index", e)
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// [`Error::BadCursor`] quoting at most the first 64 characters of
    /// `cursor` (a refusal does not echo a long input back).
    pub(crate) fn bad_cursor(cursor: &str) -> Error {
        let mut quoted: String = cursor.chars().take(64).collect();
        if quoted.len() < cursor.len() {
            quoted.push('…');
        }
        Error::BadCursor(quoted)
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
