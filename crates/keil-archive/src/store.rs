//! Opening the SQLite database: pragmas, migrations, the read pool.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, OpenFlags};
use rusqlite_migration::{M, Migrations};

use crate::Result;

/// The numbered migrations of `schema/`, in order. Never edit one that has
/// been released: add the next file.
const MIGRATIONS: &[&str] = &[
    include_str!("../../../schema/0001_initial.sql"),
    include_str!("../../../schema/0002_segment_nonce.sql"),
    include_str!("../../../schema/0003_game_kinds.sql"),
    include_str!("../../../schema/0004_go_games.sql"),
    include_str!("../../../schema/0005_move_nodes.sql"),
    include_str!("../../../schema/0006_uploader.sql"),
];

/// How long a statement waits for another connection's lock (ms).
const BUSY_TIMEOUT_MS: u64 = 5_000;

/// Idle read connections kept for reuse.
const POOL_IDLE: usize = 8;

/// The schema version an archive written by this crate has.
pub fn schema_version() -> usize {
    MIGRATIONS.len()
}

fn configure(conn: &Connection) -> Result<()> {
    conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS))?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(())
}

/// Opens (creating if needed) the database, sets WAL mode and applies the
/// pending migrations.
pub(crate) fn open_writer(path: &Path) -> Result<Connection> {
    let mut conn = Connection::open(path)?;
    configure(&conn)?;
    let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
    debug_assert_eq!(mode.to_ascii_lowercase(), "wal");
    let migrations = Migrations::new(MIGRATIONS.iter().map(|sql| M::up(sql)).collect());
    migrations.to_latest(&mut conn)?;
    Ok(conn)
}

/// A small pool of read-only connections.
pub(crate) struct ReadPool {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl ReadPool {
    pub(crate) fn new(path: PathBuf) -> ReadPool {
        ReadPool {
            path,
            idle: Mutex::new(Vec::new()),
        }
    }

    pub(crate) fn get(&self) -> Result<ReadConnection<'_>> {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let conn = match idle {
            Some(c) => c,
            None => {
                let c = Connection::open_with_flags(
                    &self.path,
                    OpenFlags::SQLITE_OPEN_READ_WRITE
                        | OpenFlags::SQLITE_OPEN_URI
                        | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                configure(&c)?;
                c.pragma_update(None, "query_only", "ON")?;
                c
            }
        };
        Ok(ReadConnection {
            pool: self,
            conn: Some(conn),
        })
    }
}

/// A read-only connection borrowed from the archive's pool; it goes back to
/// the pool when dropped. Dereferences to [`rusqlite::Connection`].
///
/// Statements on it see a consistent snapshot per transaction (WAL mode):
/// run several queries in [`ReadConnection::snapshot`] to see one state of
/// the archive.
pub(crate) struct ReadConnection<'a> {
    pool: &'a ReadPool,
    conn: Option<Connection>,
}

impl ReadConnection<'_> {
    /// Runs `f` inside one read transaction, so that all its queries see one
    /// state of the archive. `BEGIN` and `COMMIT` are cached statements
    /// (rusqlite's transactions prepare them anew on every call).
    ///
    /// # Errors
    /// The error of `f`, else SQLite errors of `BEGIN`/`COMMIT`.
    pub(crate) fn snapshot<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        self.prepare_cached("BEGIN")?.execute([])?;
        let out = f(self);
        // Ending a read transaction cannot lose anything; a connection left
        // inside one is not reused (see `Drop`).
        let end = self
            .prepare_cached("COMMIT")
            .and_then(|mut s| s.execute([]));
        let out = out?;
        end?;
        Ok(out)
    }
}

impl Deref for ReadConnection<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        // Only `drop` takes the connection out.
        self.conn.as_ref().expect("connection present until drop")
    }
}

impl Drop for ReadConnection<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            // A connection left inside a transaction is not reused.
            if conn.is_autocommit() {
                let mut idle = self.pool.idle.lock().unwrap_or_else(|e| e.into_inner());
                if idle.len() < POOL_IDLE {
                    idle.push(conn);
                }
            }
        }
    }
}
