//! The handles the archive holds on its store: the one [`Writer`], the
//! [`ReadPool`] and its [`ReadConnection`]s (which give the [`Read`] and
//! [`Write`] handles of `sql.rs` to the statement modules), and the
//! [`Place`] a store lives at.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::sequences::Sequences;
use crate::sql::{Conn, Read, Write};
use crate::{postgres, sqlite};

/// Where a store lives, as [`ReadPool::open`] takes it.
#[derive(Clone, Debug)]
pub enum Place {
    /// The embedded SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database: the primary's URL and its read replicas'.
    Postgres {
        /// The primary (writes; reads when no replica will do).
        url: String,
        /// Hot standbys that reads go to, in turn.
        replicas: Vec<String>,
    },
}

/// The store's one writer in this process: the connection every write of
/// this process goes through (held by the archive behind its lock).
pub enum Writer {
    /// The embedded archive's writer.
    Sqlite(sqlite::Writer),
    /// A PostgreSQL session kept for writes.
    Postgres(postgres::Writer),
}

impl Writer {
    /// The writer of the store `pool` reads (creating an embedded one if
    /// needed; on PostgreSQL, a session of the pool's primary), with the
    /// pending migrations applied.
    ///
    /// # Errors
    /// Storage and migration errors.
    pub fn open(pool: &ReadPool) -> Result<Writer> {
        Ok(match pool {
            ReadPool::Sqlite(p) => Writer::Sqlite(sqlite::Writer::open(p.path())?),
            ReadPool::Postgres(pools) => Writer::Postgres(postgres::Writer::open(pools)?),
        })
    }

    /// Runs `f` in one write transaction: committed when `f` returns `Ok`,
    /// rolled back (nothing of it stored) when it returns an error. On
    /// PostgreSQL the transaction holds the store's write lock, so writes
    /// of every process are serialised.
    ///
    /// # Errors
    /// The error of `f`; storage errors of `BEGIN`/`COMMIT`.
    pub fn transaction<T, E: From<Error>>(
        &mut self,
        f: impl FnOnce(Write<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        match self {
            Writer::Sqlite(w) => w.transaction(|c| f(Write(Conn::Sqlite(c)))),
            Writer::Postgres(w) => w.transaction(|s| f(Write(Conn::Postgres(s)))),
        }
    }

    /// Statements outside a transaction, each committed alone.
    pub fn autocommit(&self) -> Write<'_> {
        match self {
            Writer::Sqlite(w) => Write(Conn::Sqlite(w.connection())),
            Writer::Postgres(w) => Write(Conn::Postgres(w.session())),
        }
    }

    /// Reads on the writer's connection (they see every commit).
    pub fn read(&self) -> Read<'_> {
        match self {
            Writer::Sqlite(w) => Read(Conn::Sqlite(w.connection())),
            Writer::Postgres(w) => Read(Conn::Postgres(w.session())),
        }
    }

    /// Gives back the space of deleted and rewritten data (SQLite:
    /// `VACUUM` and a WAL checkpoint; PostgreSQL: `VACUUM`).
    ///
    /// # Errors
    /// Storage errors, e.g. while SQLite readers hold old snapshots.
    pub fn compact(&self) -> Result<()> {
        match self {
            Writer::Sqlite(w) => w.compact(),
            Writer::Postgres(w) => w.compact(),
        }
    }

    /// Caps an embedded store at its size plus `extra_pages` pages, so that
    /// a write past it fails as on a full volume (tests of a full disk).
    /// Returns the cap.
    ///
    /// # Errors
    /// Storage errors; on PostgreSQL, always (there is no such cap).
    pub fn cap_pages(&self, extra_pages: u64) -> Result<u64> {
        match self {
            Writer::Sqlite(w) => w.cap_pages(extra_pages),
            Writer::Postgres(_) => Err(crate::error::storage_error(
                "PostgreSQL",
                std::io::Error::other("a page cap is an embedded archive's test hook"),
            )),
        }
    }
}

/// The read connections of a store.
pub enum ReadPool {
    /// The embedded archive's small pool.
    Sqlite(sqlite::ReadPool),
    /// The PostgreSQL primary's pool (the writer's session comes from it)
    /// and the read replicas'.
    Postgres(postgres::Pools),
}

impl ReadPool {
    /// The read pool of the store at `place`; an embedded archive opened
    /// `read_only` writes nothing (see `sqlite::ReadPool::new`).
    ///
    /// # Errors
    /// A PostgreSQL URL that does not parse, or a server that does not
    /// answer.
    pub fn open(place: &Place, read_only: bool) -> Result<ReadPool> {
        Ok(match place {
            Place::Sqlite(path) => ReadPool::Sqlite(sqlite::ReadPool::new(path.clone(), read_only)),
            Place::Postgres { url, replicas } => {
                ReadPool::Postgres(postgres::Pools::connect(url, replicas)?)
            }
        })
    }

    /// The store's bytes on disk: the SQLite file and its write-ahead log,
    /// or the PostgreSQL archive's tables on the server.
    ///
    /// # Errors
    /// Storage errors.
    pub fn bytes(&self) -> Result<u64> {
        match self {
            ReadPool::Sqlite(p) => Ok(sqlite::file_bytes(p.path())),
            ReadPool::Postgres(p) => postgres::database_bytes(p.get()?.session()),
        }
    }

    /// Writes a consistent copy of the embedded store into the new file
    /// `dest` (`sqlite::copy_into`: SQLite's `VACUUM INTO`, while writers
    /// go on); returns the copy's games.
    ///
    /// # Errors
    /// Storage errors; [`crate::Error::Unsupported`] for a PostgreSQL
    /// store (`pg_dump` copies it).
    pub fn copy_into(&self, dest: &std::path::Path) -> Result<u64> {
        match self {
            ReadPool::Sqlite(p) => sqlite::copy_into(p.path(), dest),
            ReadPool::Postgres(_) => Err(crate::error::Error::Unsupported(
                "a PostgreSQL archive is backed up with pg_dump -Fc (docs/operating.md, \"Backups and restores\")".into(),
            )),
        }
    }

    /// A read connection (back to the pool when dropped).
    ///
    /// # Errors
    /// Storage errors.
    pub fn get(&self) -> Result<ReadConnection<'_>> {
        Ok(match self {
            ReadPool::Sqlite(p) => ReadConnection::Sqlite(p.get()?),
            ReadPool::Postgres(p) => ReadConnection::Postgres(p.get()?),
        })
    }

    /// Says that this process's indexes hold the store's state `at`, so
    /// that later reads see at least that much: a read replica that has
    /// not replayed it is not asked (the embedded store's reads always
    /// see the latest commit).
    pub fn saw(&self, at: Sequences) {
        match self {
            ReadPool::Sqlite(_) => {}
            ReadPool::Postgres(p) => p.saw(at),
        }
    }
}

/// A read connection borrowed from the pool; statements run through
/// [`ReadConnection::read`] (each on its own snapshot) and
/// [`ReadConnection::snapshot`] (several on one).
pub enum ReadConnection<'a> {
    /// An SQLite connection.
    Sqlite(sqlite::ReadConnection<'a>),
    /// A PostgreSQL session.
    Postgres(postgres::ReadSession),
}

impl ReadConnection<'_> {
    /// Runs `f` inside one read transaction, so that all its queries see one
    /// state of the archive.
    ///
    /// # Errors
    /// The error of `f`, else storage errors of `BEGIN`/`COMMIT`.
    pub fn snapshot<T, E: From<Error>>(
        &self,
        f: impl FnOnce(Read<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        match self {
            ReadConnection::Sqlite(c) => c.snapshot(|c| f(Read(Conn::Sqlite(c)))),
            ReadConnection::Postgres(c) => c.snapshot(|s| f(Read(Conn::Postgres(s)))),
        }
    }

    /// As [`ReadConnection::snapshot`], with its statements stopped once
    /// `budget` is spent: a list or count whose filter no index serves
    /// scans rows in proportion to the archive, and runs as a search.
    /// SQLite checks the budget every `PROGRESS_STEPS` virtual
    /// machine steps (a progress handler); PostgreSQL's `statement_timeout`
    /// is set, for the transaction, to the time the budget has left (a
    /// cancelled budget is not seen until then).
    ///
    /// # Errors
    /// [`crate::Error::OverBudget`] when the budget ran out before or
    /// during `f`; else as [`ReadConnection::snapshot`].
    pub fn snapshot_within<T, E: From<Error>>(
        &self,
        budget: &crate::budget::Budget,
        f: impl FnOnce(Read<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        budget.check()?;
        let out = match self {
            ReadConnection::Sqlite(c) => c.snapshot_within(budget, |c| f(Read(Conn::Sqlite(c)))),
            ReadConnection::Postgres(c) => {
                c.snapshot_within(budget, |s| f(Read(Conn::Postgres(s))))
            }
        };
        // A statement stopped by the budget fails with the engine's own
        // error (interrupted, cancelled): the budget's error says why.
        match out {
            Err(_) if budget.spent() => Err(budget.over().into()),
            out => out,
        }
    }

    /// Reads on this connection, each statement on its own snapshot.
    pub fn read(&self) -> Read<'_> {
        match self {
            ReadConnection::Sqlite(c) => Read(Conn::Sqlite(c.conn())),
            ReadConnection::Postgres(c) => Read(Conn::Postgres(c.session())),
        }
    }
}

/// Refuses, for a read-only open, a store whose schema is not this
/// crate's: an older one needs its migrations (a write), a newer one was
/// written by a newer version.
///
/// # Errors
/// [`crate::Error::NeedsUpgrade`] and [`crate::Error::TooNew`]; storage
/// errors.
pub fn check_schema(conn: Read<'_>) -> Result<()> {
    match conn.0 {
        Conn::Sqlite(c) => sqlite::check_schema(c),
        Conn::Postgres(s) => postgres::check_schema(s),
    }
}

/// The store's schema version and this build's, `(found, expected)`
/// (`keil verify`).
///
/// # Errors
/// Storage errors.
pub fn schema_versions(conn: Read<'_>) -> Result<(usize, usize)> {
    match conn.0 {
        Conn::Sqlite(c) => Ok((sqlite::user_version(c)?, sqlite::schema_version())),
        Conn::Postgres(s) => postgres::schema_versions(s),
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::budget::Budget;
    use crate::error::Error;

    /// A read that would never end: stopped by its budget, with the
    /// budget's error, and the connection serves the next read.
    fn stops_at_the_budget(pool: &ReadPool, endless: &str) {
        let conn = pool.get().unwrap();
        let started = Instant::now();
        let out = conn.snapshot_within(&Budget::new(Duration::from_millis(200)), |r| {
            r.0.value::<i64>(endless, &[])
        });
        assert!(
            matches!(out, Err(Error::OverBudget { budget_ms: 200 })),
            "{out:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(20));
        let one = conn.snapshot_within(&Budget::new(Duration::from_secs(60)), |r| {
            r.0.value::<i64>("SELECT CAST(1 AS BIGINT)", &[])
        });
        assert_eq!(one.unwrap(), 1);
        // A spent budget runs nothing.
        let spent = Budget::new(Duration::ZERO);
        let out = conn.snapshot_within(&spent, |_| -> Result<()> { panic!("ran") });
        assert!(matches!(out, Err(Error::OverBudget { .. })));
    }

    #[test]
    fn a_read_past_its_budget_stops_on_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        // The read pool opens an existing database only.
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t(x)")
            .unwrap();
        let pool = ReadPool::open(&Place::Sqlite(path), false).unwrap();
        stops_at_the_budget(
            &pool,
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) \
             SELECT count(*) FROM c",
        );
    }

    #[test]
    fn a_read_past_its_budget_stops_on_postgres() {
        let Some(cluster) = keil_testpg::Cluster::shared() else {
            eprintln!("skipped: no PostgreSQL server binaries (Debian's postgresql)");
            return;
        };
        let place = Place::Postgres {
            url: cluster.ensure_database("keil_budget"),
            replicas: Vec::new(),
        };
        let pool = ReadPool::open(&place, false).unwrap();
        stops_at_the_budget(&pool, "SELECT CAST(1 AS BIGINT) FROM pg_sleep(30)");
    }
}
