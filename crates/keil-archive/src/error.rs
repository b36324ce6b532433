//! The crate's one error type. Storage failures are opaque
//! ([`StorageError`]): no type of the storage engine (SQLite, tantivy)
//! appears in the API, so that another backend can report its own.

use std::path::PathBuf;

use crate::ids::GameId;

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
    TextQuery(#[from] crate::index::text::query::TextQueryError),
    /// Occurs when an alias cannot be added ([`crate::Archive::add_alias`]):
    /// a name without a letter or digit, or two names that are already
    /// one person key.
    #[error("alias refused: {0}")]
    BadAlias(String),
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
    Pattern(#[from] crate::index::patterns::PatternError),
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
        progress: crate::model::ImportProgress,
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
    /// Whether the failure is a full disk: SQLite's `SQLITE_FULL` or
    /// `SQLITE_IOERR` (what a failed write reports), or an I/O error of
    /// kind `StorageFull` anywhere in the cause chain (the text index).
    pub fn is_out_of_space(&self) -> bool {
        if let Some(full) = crate::store::out_of_space(&*self.source) {
            return full;
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
}

fn storage(what: &'static str, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Storage(StorageError {
        what,
        source: Box::new(e),
    })
}

// The conversions that let the crate's code use `?` on its engines' calls
// (the store's: `store/sqlite/mod.rs`).
pub(crate) fn storage_error(
    what: &'static str,
    e: impl std::error::Error + Send + Sync + 'static,
) -> Error {
    storage(what, e)
}

#[doc(hidden)]
impl From<tantivy::TantivyError> for Error {
    fn from(e: tantivy::TantivyError) -> Error {
        storage("text index", e)
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
            Error::Storage(s) => {
                let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&*s.source);
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

/// One cause in a storage error's chain: an I/O error, or the store's or
/// tantivy's codes for one.
fn engine_unwritable(e: &(dyn std::error::Error + 'static)) -> bool {
    use tantivy::TantivyError as T;
    use tantivy::directory::error::{LockError, OpenDirectoryError, OpenWriteError};
    if let Some(io) = e.downcast_ref::<std::io::Error>() {
        return io_unwritable(io);
    }
    if let Some(unwritable) = crate::store::unwritable(e) {
        return unwritable;
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
