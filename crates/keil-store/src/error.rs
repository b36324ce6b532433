//! The store's one error type. Storage failures are opaque
//! ([`StorageError`]): no type of the storage engine (SQLite, PostgreSQL)
//! appears in the API. The archive maps each variant onto its own error of
//! the same name.

use std::path::PathBuf;

use crate::ids::GameId;

/// What can go wrong when opening, reading or writing the store.
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
    /// Occurs when a search runs past its [`crate::budget::Budget`]'s deadline
    /// (`budget_ms`), or its budget was cancelled (`budget_ms` 0 when it had
    /// no deadline): the search stopped early and has no answer.
    #[error("the search stopped: over its budget of {budget_ms} ms, or cancelled")]
    OverBudget {
        /// The budget in ms (0: no deadline, cancelled).
        budget_ms: u64,
    },
    /// Occurs when a store opened read-only would need a migration, which
    /// writes; the text says what is out of date.
    #[error(
        "the archive needs an upgrade ({0}): open it once for writing (e.g. `keil reindex` or `keil serve`) on a writable volume"
    )]
    NeedsUpgrade(String),
    /// Occurs when the store was written by a newer version of keil (its
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
    /// (e.g. a file copy of a PostgreSQL store, which `pg_dump`
    /// backs up); the text says what to do instead.
    #[error("{0}")]
    Unsupported(String),
}

/// The store's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// [`Error::BadCursor`] quoting at most the first 64 characters of
    /// `cursor` (a refusal does not echo a long input back).
    pub fn bad_cursor(cursor: &str) -> Error {
        let mut quoted: String = cursor.chars().take(64).collect();
        if quoted.len() < cursor.len() {
            quoted.push('…');
        }
        Error::BadCursor(quoted)
    }

    /// [`Error::Io`] on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
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
    /// What the store read of the disk in its engine's error codes.
    disk: Disk,
    source: Box<dyn std::error::Error + Send + Sync + 'static>,
}

/// What a storage engine's error says of the disk under it, as the store
/// reads its engine's codes (`store/sqlite/mod.rs`): only the store knows
/// its engine's error types.
#[derive(Clone, Copy, Debug, Default)]
pub struct Disk {
    /// The disk is full (SQLite's `SQLITE_FULL`, or `SQLITE_IOERR`: what a
    /// failed write reports).
    pub full: bool,
    /// The disk or file cannot be written (read-only, full, no
    /// permission, a failed write).
    pub unwritable: bool,
}

impl StorageError {
    /// Whether the failure is a full disk: SQLite's `SQLITE_FULL` or
    /// `SQLITE_IOERR` (what a failed write reports), or an I/O error of
    /// kind `StorageFull` anywhere in the cause chain (the text index).
    pub fn is_out_of_space(&self) -> bool {
        if self.disk.full {
            return true;
        }
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&*self.source);
        while let Some(c) = cause {
            if let Some(io) = c.downcast_ref::<std::io::Error>()
                && io.kind() == std::io::ErrorKind::StorageFull
            {
                return true;
            }
            cause = c.source();
        }
        false
    }

    /// Which part of the storage failed: `SQLite`, `schema migration` or
    /// `text index`.
    pub fn part(&self) -> &'static str {
        self.what
    }

    /// Whether the engine's codes said the disk or file cannot be written
    /// (read-only, full, no permission, a failed write); the cause chain
    /// ([`std::error::Error::source`]) may say more.
    pub fn is_unwritable_disk(&self) -> bool {
        self.disk.unwritable
    }
}

/// A storage error whose engine's codes the store has read (`disk`).
pub fn engine_error(
    what: &'static str,
    e: impl std::error::Error + Send + Sync + 'static,
    disk: Disk,
) -> Error {
    Error::Storage(StorageError {
        what,
        disk,
        source: Box::new(e),
    })
}

impl StorageError {
    /// A failure of part `what` (`SQLite`, `schema migration`, `text
    /// index`) caused by `e`, whose codes say nothing of the disk (the
    /// cause chain is still read by [`StorageError::is_out_of_space`]).
    pub fn new(
        what: &'static str,
        e: impl std::error::Error + Send + Sync + 'static,
    ) -> StorageError {
        StorageError {
            what,
            disk: Disk::default(),
            source: Box::new(e),
        }
    }
}

/// A storage error of part `what` (`SQLite`, `schema migration`, `text
/// index`) whose engine's codes say nothing of the disk.
pub fn storage_error(
    what: &'static str,
    e: impl std::error::Error + Send + Sync + 'static,
) -> Error {
    Error::Storage(StorageError::new(what, e))
}
