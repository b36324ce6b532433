//! Where an archive lives: a directory, or a PostgreSQL database with a
//! node-local directory.

use std::path::{Path, PathBuf};

/// Where an archive lives: an embedded archive, a directory holding the
/// store ([`SQLITE_FILE`]) and the text index ([`TANTIVY_DIR`]), or a
/// PostgreSQL database that many processes share, with this process's
/// node-local directory for its derived copies (the text index, the
/// index caches). Every path converts into a directory, so
/// `Archive::open("games")` opens the directory `games`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Location {
    /// An embedded archive in this directory.
    Directory(PathBuf),
    /// A PostgreSQL database (`postgres://user@host:port/dbname`, or
    /// libpq's `key=value` form) as the store, its read replicas, and
    /// `dir`, node-local, for the text index ([`TANTIVY_DIR`]) and caches.
    Postgres {
        /// The database's connection string (the primary: every write).
        url: String,
        /// Hot standbys of it (streaming replicas) that reads go to, in
        /// turn, when they have replayed what this process has seen; a
        /// replica that lags or fails leaves the read to the primary.
        replicas: Vec<String>,
        /// The node-local directory (created if needed).
        dir: PathBuf,
    },
}

impl Location {
    /// The location a command-line `--db` value names: a PostgreSQL URL
    /// (`postgres://` or `postgresql://`) with `dir` as its node-local
    /// directory, or else a directory.
    pub fn parse(db: &str, dir: impl FnOnce() -> PathBuf) -> Location {
        if db.starts_with("postgres://") || db.starts_with("postgresql://") {
            Location::Postgres {
                url: db.to_string(),
                replicas: Vec::new(),
                dir: dir(),
            }
        } else {
            Location::Directory(PathBuf::from(db))
        }
    }

    /// The node-local directory: the embedded archive's own, or a
    /// PostgreSQL archive's derived copies'.
    pub fn dir(&self) -> &Path {
        match self {
            Location::Directory(dir) | Location::Postgres { dir, .. } => dir,
        }
    }

    /// The store's place.
    /// Whether this is an embedded archive, whose text index lives beside
    /// its store (a PostgreSQL node's is node-local: restored from and
    /// published to the store's snapshots).
    pub(crate) fn is_embedded(&self) -> bool {
        matches!(self, Location::Directory(_))
    }

    pub(crate) fn place(&self) -> keil_store::Place {
        match self {
            Location::Directory(dir) => keil_store::Place::Sqlite(dir.join(SQLITE_FILE)),
            Location::Postgres { url, replicas, .. } => keil_store::Place::Postgres {
                url: url.clone(),
                replicas: replicas.clone(),
            },
        }
    }
}

impl<P: AsRef<Path>> From<P> for Location {
    fn from(path: P) -> Location {
        Location::Directory(path.as_ref().to_path_buf())
    }
}

impl std::fmt::Display for Location {
    /// The directory, or the URL without its password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Directory(dir) => write!(f, "{}", dir.display()),
            Location::Postgres { url, .. } => write!(f, "{}", keil_store::redacted(url)),
        }
    }
}

/// The SQLite file inside an archive directory (for tools and tests that
/// inspect the storage itself; callers of the archive use
/// [`Archive::exists`](crate::Archive::exists) and the views).
pub const SQLITE_FILE: &str = "archive.sqlite";
/// The tantivy directory inside an archive directory.
pub const TANTIVY_DIR: &str = "tantivy";
