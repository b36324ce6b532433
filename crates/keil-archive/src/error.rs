//! The crate's one error type.

use std::path::PathBuf;

/// What can go wrong when opening, importing into or querying an archive.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Occurs when SQLite refuses a statement (I/O, corruption, a lock held
    /// longer than the busy timeout of 5 s).
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Occurs when the schema migrations cannot be applied, e.g. an archive
    /// written by a newer version of keil-archive.
    #[error("schema migration: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    /// Occurs when the tantivy text index cannot be opened, written or read.
    #[error("text index: {0}")]
    Text(#[from] tantivy::TantivyError),
    /// Occurs when a full-text query does not parse (e.g. an unknown field
    /// or an unbalanced quote).
    #[error("text query: {0}")]
    TextQuery(#[from] tantivy::query::QueryParserError),
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
        /// The game id.
        game: i64,
        /// What could not be decoded.
        reason: String,
    },
    /// Occurs when a cursor string given for pagination is not one this
    /// crate produced.
    #[error("bad cursor {0:?}: expected DATE~ID as returned by a previous page")]
    BadCursor(String),
    /// Occurs when a stored position segment does not decode (a damaged
    /// archive); `keil reindex` rebuilds the position index from the games.
    #[error("position index: {0}")]
    PositionIndex(String),
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
