//! The PostgreSQL backend: a pool of sessions (`r2d2_postgres` over the
//! synchronous `postgres` client), the numbered migrations of
//! `schema/postgres/`, read snapshots and the writer's transactions.
//!
//! The archive's statements are the store's own (`store/*.rs`, written once
//! for both backends through [`super::sql`]); this module runs them: a
//! [`Session`] rewrites SQLite's placeholders as PostgreSQL's and prepares
//! each statement once per connection.
//!
//! Many processes may write one database (importers, nodes taking
//! uploads). Every write transaction first takes one transaction-level
//! advisory lock ([`WRITE_LOCK`]), so writes are serialised as SQLite's
//! are: a batch reads the greatest game id and gives the next ones inside
//! the lock, and batches commit in id order, so a node that has read every
//! game up to id N never meets a later commit below N.
//!
//! Connections use TLS as the connection string's `sslmode` and
//! `sslrootcert` ask, as libpq does ([`tls`]: rustls).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use r2d2_postgres::PostgresConnectionManager;

use crate::error::{Error, Result};
use crate::param::{Backend, Param, numbered_placeholders};
use crate::sequences::{self, Sequences};

mod conninfo;
mod tls;
pub use conninfo::redacted;

/// The numbered migrations of `schema/postgres/`, in order. Never edit one
/// that has been released: add the next file.
const MIGRATIONS: &[&str] = &[
    include_str!("../../schema/postgres/0001_initial.sql"),
    include_str!("../../schema/postgres/0002_text_snapshots.sql"),
    include_str!("../../schema/postgres/0003_block_heads.sql"),
    include_str!("../../schema/postgres/0004_merges_refused.sql"),
    include_str!("../../schema/postgres/0005_people_names.sql"),
    include_str!("../../schema/postgres/0006_collections.sql"),
];

/// The advisory lock key every write transaction holds until it commits
/// (`pg_advisory_xact_lock`): "keil" in ASCII.
pub const WRITE_LOCK: i64 = 0x6b65_696c;

/// The advisory lock key migrations hold, so that two processes opening a
/// new database at once apply them once.
const MIGRATION_LOCK: i64 = 0x6b65_696d;

/// Connections a process keeps at most (its readers and its writer).
const POOL_SIZE: u32 = 16;

/// How long a connection to the primary may take before the pool gives up.
const PRIMARY_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a connection to a replica may take: past it, reads go to the
/// primary and the replica rests for [`REPLICA_REST`].
const REPLICA_TIMEOUT: Duration = Duration::from_secs(1);

/// How long a replica that failed is not asked again.
const REPLICA_REST: Duration = Duration::from_secs(5);

/// Statements prepared per session before the cache is emptied (filters
/// make statements of many shapes).
const STATEMENT_CACHE: usize = 512;

/// The pool's connection manager: `r2d2_postgres`'s, with each
/// connection's prepared statements kept beside it (a statement is
/// prepared once per connection, not once per checkout), over TLS as the
/// connection string asks ([`tls::configure`]).
struct Manager(PostgresConnectionManager<tls::Tls>);

/// A pooled connection and its prepared statements, by the SQL they were
/// written as (with SQLite's placeholders).
struct Connection {
    client: postgres::Client,
    statements: HashMap<String, postgres::Statement>,
}

impl r2d2::ManageConnection for Manager {
    type Connection = Connection;
    type Error = tls::ConnectError;

    fn connect(&self) -> std::result::Result<Connection, tls::ConnectError> {
        Ok(Connection {
            client: self.0.connect()?,
            statements: HashMap::new(),
        })
    }

    fn is_valid(&self, conn: &mut Connection) -> std::result::Result<(), tls::ConnectError> {
        Ok(self.0.is_valid(&mut conn.client)?)
    }

    fn has_broken(&self, conn: &mut Connection) -> bool {
        conn.client.is_closed()
    }
}

type Pooled = r2d2::PooledConnection<Manager>;

impl From<postgres::Error> for Error {
    fn from(e: postgres::Error) -> Error {
        crate::error::storage_error("PostgreSQL", e)
    }
}

impl From<r2d2::Error> for Error {
    fn from(e: r2d2::Error) -> Error {
        crate::error::storage_error("PostgreSQL connection pool", e)
    }
}

/// A session with nested use: a statement run while another's rows are
/// being streamed on the same session.
#[derive(Debug, thiserror::Error)]
#[error("a statement ran on a PostgreSQL session while another's rows were being read")]
struct Nested;

/// One pooled connection with its prepared statements.
struct Inner {
    conn: Pooled,
}

impl Inner {
    /// The prepared statement for `sql` (written with SQLite's
    /// placeholders).
    fn statement(&mut self, sql: &str) -> Result<postgres::Statement> {
        let conn = &mut *self.conn;
        if let Some(s) = conn.statements.get(sql) {
            return Ok(s.clone());
        }
        if conn.statements.len() >= STATEMENT_CACHE {
            conn.statements.clear();
        }
        let s = conn.client.prepare(&numbered_placeholders(sql))?;
        conn.statements.insert(sql.to_string(), s.clone());
        Ok(s)
    }
}

/// A PostgreSQL connection that runs the store's statements (what
/// [`crate::sql::Conn::Postgres`] holds). Not `Sync`: one thread uses it
/// at a time. A statement outside a transaction that finds the connection
/// closed by the server (a restart, a failover) runs again, once, on a new
/// connection from the pool; inside a transaction the error is the
/// caller's (the transaction is lost).
pub struct Session(Box<SessionState>);

struct SessionState {
    inner: RefCell<Inner>,
    /// Where a new connection comes from.
    pool: Pool,
    /// Inside `BEGIN` .. `COMMIT`/`ROLLBACK`.
    in_transaction: std::cell::Cell<bool>,
}

impl Session {
    fn new(client: Pooled, pool: Pool) -> Session {
        // Boxed: the pooled connection is large, and a session sits in
        // enums beside SQLite's small handles.
        Session(Box::new(SessionState {
            inner: RefCell::new(Inner { conn: client }),
            pool,
            in_transaction: std::cell::Cell::new(false),
        }))
    }

    fn inner(&self) -> Result<std::cell::RefMut<'_, Inner>> {
        self.0
            .inner
            .try_borrow_mut()
            .map_err(|_| crate::error::storage_error("PostgreSQL", Nested))
    }

    /// Runs `op`; when it fails on a connection the server closed, outside
    /// a transaction and before `op` handed anything on (`handed`), runs
    /// it again on a new connection.
    fn run<T>(
        &self,
        handed: &std::cell::Cell<bool>,
        mut op: impl FnMut(&mut Inner) -> Result<T>,
    ) -> Result<T> {
        let mut inner = self.inner()?;
        match op(&mut inner) {
            Err(_)
                if inner.conn.client.is_closed()
                    && !self.0.in_transaction.get()
                    && !handed.get() =>
            {
                inner.conn = self.0.pool.0.get()?;
                op(&mut inner)
            }
            other => other,
        }
    }

    /// Runs `sql` and streams its rows to `each` while it returns `true`.
    pub fn each(
        &self,
        sql: &str,
        params: &[Param<'_>],
        each: &mut dyn FnMut(&postgres::Row) -> Result<bool>,
    ) -> Result<()> {
        let handed = std::cell::Cell::new(false);
        self.run(&handed, |inner| {
            let stmt = inner.statement(sql)?;
            let mut rows = inner.conn.client.query_raw(
                &stmt,
                params.iter().map(|p| p as &dyn postgres::types::ToSql),
            )?;
            while let Some(row) = postgres::fallible_iterator::FallibleIterator::next(&mut rows)? {
                handed.set(true);
                if !each(&row)? {
                    break;
                }
            }
            Ok(())
        })
    }

    /// Runs `sql`, returning the rows it changed.
    pub fn execute(&self, sql: &str, params: &[Param<'_>]) -> Result<u64> {
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = params
            .iter()
            .map(|p| p as &(dyn postgres::types::ToSql + Sync))
            .collect();
        self.run(&std::cell::Cell::new(false), |inner| {
            let stmt = inner.statement(sql)?;
            Ok(inner.conn.client.execute(&stmt, &refs)?)
        })
    }

    /// Streams `rows` into `table`'s `columns` with one binary `COPY`
    /// (the columns' types read from a prepared `SELECT` of them).
    pub fn copy_in(&self, table: &str, columns: &[&str], rows: &[Vec<Param<'_>>]) -> Result<u64> {
        let mut inner = self.inner()?;
        let cols = columns.join(", ");
        let types: Vec<postgres::types::Type> = inner
            .statement(&format!("SELECT {cols} FROM {table} LIMIT 0"))?
            .columns()
            .iter()
            .map(|c| c.type_().clone())
            .collect();
        let copy = inner
            .conn
            .client
            .copy_in(&format!("COPY {table} ({cols}) FROM STDIN BINARY"))?;
        let mut writer = postgres::binary_copy::BinaryCopyInWriter::new(copy, &types);
        for row in rows {
            let values: Vec<&(dyn postgres::types::ToSql + Sync)> = row
                .iter()
                .map(|p| p as &(dyn postgres::types::ToSql + Sync))
                .collect();
            writer.write(&values)?;
        }
        Ok(writer.finish()?)
    }

    /// Runs statements without parameters.
    pub fn batch(&self, sql: &str) -> Result<()> {
        self.run(&std::cell::Cell::new(false), |inner| {
            Ok(inner.conn.client.batch_execute(sql)?)
        })
    }

    /// Runs `f` between `begin` and `COMMIT`, or `ROLLBACK` when it fails.
    fn within<T, E: From<Error>>(
        &self,
        begin: &str,
        f: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E> {
        self.batch(begin)?;
        self.0.in_transaction.set(true);
        let out = f();
        let end = match &out {
            Ok(_) => self.batch("COMMIT"),
            // The error is what the caller needs; a failed rollback
            // leaves the connection broken, and the pool drops it.
            Err(_) => self.batch("ROLLBACK").or(Ok(())),
        };
        self.0.in_transaction.set(false);
        end?;
        out
    }
}

/// A pool of sessions on one database (a handle: clones share it).
#[derive(Clone)]
pub struct Pool(r2d2::Pool<Manager>);

impl Pool {
    /// Connects to `url` (`postgres://user@host:port/dbname`, or libpq's
    /// `key=value` form; TLS as its `sslmode` and `sslrootcert` ask:
    /// [`tls::configure`]), waiting up to `timeout` for a connection.
    ///
    /// # Errors
    /// A malformed URL; TLS settings that cannot be used (an unknown
    /// `sslmode`, a root certificate file that cannot be read).
    fn connect(url: &str, timeout: Duration) -> Result<Pool> {
        let (config, tls) = tls::configure(url)?;
        let manager = Manager(PostgresConnectionManager::new(config, tls));
        let pool = r2d2::Pool::builder()
            .max_size(POOL_SIZE)
            .min_idle(Some(0))
            // A connection the server closed is dropped (`is_closed`);
            // no test query at each checkout, a round trip every read.
            .test_on_check_out(false)
            .connection_timeout(timeout)
            .build(manager)?;
        Ok(Pool(pool))
    }

    /// A session from the pool (back to it when dropped).
    ///
    /// # Errors
    /// The server does not answer.
    fn session(&self) -> Result<Session> {
        Ok(Session::new(self.0.get()?, self.clone()))
    }
}

/// The highest store sequences this process has written or read: a read
/// goes to a replica only when the replica has replayed that far, so a
/// process never reads an older state than it saw (its uploader's own
/// games included).
#[derive(Default)]
pub struct Watermark {
    games: AtomicI64,
    removals: AtomicI64,
}

impl Watermark {
    fn raise(&self, at: Sequences) {
        self.games.fetch_max(at.games, Ordering::AcqRel);
        self.removals.fetch_max(at.removals, Ordering::AcqRel);
    }

    fn reached_by(&self, at: Sequences) -> bool {
        at.games >= self.games.load(Ordering::Acquire)
            && at.removals >= self.removals.load(Ordering::Acquire)
    }
}

/// A hot standby that reads may go to.
struct Replica {
    pool: Pool,
    /// Not asked again before this instant (it failed).
    resting: Mutex<Option<Instant>>,
}

impl Replica {
    fn is_resting(&self) -> bool {
        let resting = self.resting.lock().unwrap_or_else(|e| e.into_inner());
        resting.is_some_and(|until| Instant::now() < until)
    }

    fn rest(&self) {
        let mut resting = self.resting.lock().unwrap_or_else(|e| e.into_inner());
        *resting = Some(Instant::now() + REPLICA_REST);
    }
}

/// The sessions of a PostgreSQL archive: the primary's (writes, and reads
/// when no replica will do) and the read replicas' (hot standbys, taken in
/// turn).
pub struct Pools {
    primary: Pool,
    replicas: Vec<Replica>,
    next: AtomicUsize,
    seen: Arc<Watermark>,
}

impl Pools {
    /// Connects to the primary at `url` and to the `replicas` (no
    /// connection is made yet: a server that does not answer fails the
    /// first statement, a replica that does not answer rests). Each URL
    /// carries its own TLS settings ([`tls::configure`]).
    ///
    /// # Errors
    /// A malformed URL; TLS settings that cannot be used.
    pub fn connect(url: &str, replicas: &[String]) -> Result<Pools> {
        Ok(Pools {
            primary: Pool::connect(url, PRIMARY_TIMEOUT)?,
            replicas: replicas
                .iter()
                .map(|r| {
                    Ok(Replica {
                        pool: Pool::connect(r, REPLICA_TIMEOUT)?,
                        resting: Mutex::new(None),
                    })
                })
                .collect::<Result<_>>()?,
            next: AtomicUsize::new(0),
            seen: Arc::default(),
        })
    }

    /// Raises what this process has seen to `at` (see
    /// [`crate::handles::ReadPool::saw`]).
    pub fn saw(&self, at: Sequences) {
        self.seen.raise(at);
    }

    /// A read connection: on a replica that answers and has replayed all
    /// this process has seen (taken in turn), else on the primary.
    ///
    /// # Errors
    /// The primary does not answer.
    pub fn get(&self) -> Result<ReadSession> {
        let n = self.replicas.len();
        if n == 0 {
            return Ok(ReadSession(self.primary.session()?));
        }
        let first = self.next.fetch_add(1, Ordering::Relaxed);
        for i in 0..n {
            let replica = &self.replicas[(first + i) % n];
            if replica.is_resting() {
                continue;
            }
            let Ok(session) = replica.pool.session() else {
                replica.rest();
                continue;
            };
            match read_sequences(&session) {
                Ok(at) if self.seen.reached_by(at) => {
                    self.seen.raise(at);
                    return Ok(ReadSession(session));
                }
                // Lagging: the primary answers this read.
                Ok(_) => {}
                Err(_) => replica.rest(),
            }
        }
        let session = self.primary.session()?;
        self.seen.raise(read_sequences(&session)?);
        Ok(ReadSession(session))
    }
}

/// A pooled session for reads.
pub struct ReadSession(Session);

impl ReadSession {
    /// Runs `f` inside one read-only `REPEATABLE READ` transaction: all its
    /// statements see one state of the database.
    pub fn snapshot<T, E: From<Error>>(
        &self,
        f: impl FnOnce(&Session) -> Result<T, E>,
    ) -> Result<T, E> {
        self.0
            .within("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", || {
                f(&self.0)
            })
    }

    /// As [`ReadSession::snapshot`], with `statement_timeout` set for the
    /// transaction to the time `budget` has left and a millisecond (none
    /// for an unlimited budget).
    ///
    /// # Errors
    /// As [`ReadSession::snapshot`]; a statement past the timeout fails
    /// with `57014 query_canceled` (the caller names the budget).
    pub fn snapshot_within<T, E: From<Error>>(
        &self,
        budget: &crate::budget::Budget,
        f: impl FnOnce(&Session) -> Result<T, E>,
    ) -> Result<T, E> {
        self.0
            .within("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", || {
                if let Some(left) = budget.remaining() {
                    // A millisecond past the deadline, rounded up: when the
                    // server cancels the statement, the budget is spent
                    // (the caller tells the two apart by it).
                    let ms = (left.as_millis() + 1).min(i32::MAX as u128);
                    self.0
                        .batch(&format!("SET LOCAL statement_timeout = {ms}"))?;
                }
                f(&self.0)
            })
    }

    /// The session: reads, each statement on its own snapshot.
    pub fn session(&self) -> &Session {
        &self.0
    }
}

/// The process's writer: one session on the primary kept for every write
/// (on a new connection when the server closed it: a restart, a failover).
pub struct Writer {
    session: Session,
    /// The read pools' watermark, raised by every commit; `None` without
    /// replicas (nothing reads it: every read is the primary's).
    seen: Option<Arc<Watermark>>,
}

impl Writer {
    /// Connects to `pools`' primary and applies the pending migrations.
    ///
    /// # Errors
    /// Connection and migration errors.
    pub fn open(pools: &Pools) -> Result<Writer> {
        let session = pools.primary.session()?;
        migrate(&session)?;
        Ok(Writer {
            session,
            seen: (!pools.replicas.is_empty()).then(|| pools.seen.clone()),
        })
    }

    /// Runs `f` in one write transaction holding [`WRITE_LOCK`]: committed
    /// when `f` returns `Ok`, rolled back when it returns an error. Once
    /// committed, this process's reads see at least what it wrote (the
    /// watermark).
    pub fn transaction<T, E: From<Error>>(
        &mut self,
        f: impl FnOnce(&Session) -> Result<T, E>,
    ) -> Result<T, E> {
        let (session, seen) = (&self.session, self.seen.as_deref());
        let (out, at) = session.within("BEGIN", || -> Result<_, E> {
            session.execute("SELECT pg_advisory_xact_lock(?)", &[Param::Int(WRITE_LOCK)])?;
            let out = f(session)?;
            let at = match seen {
                Some(_) => Some(read_sequences(session)?),
                None => None,
            };
            Ok((out, at))
        })?;
        if let (Some(seen), Some(at)) = (seen, at) {
            seen.raise(at);
        }
        Ok(out)
    }

    /// The writer's session: statements outside a transaction, each
    /// committed alone, and reads that see every commit.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// `VACUUM` of the whole database (space of deleted rows reused;
    /// PostgreSQL's autovacuum does the same in the background).
    pub fn compact(&self) -> Result<()> {
        self.session.batch("VACUUM")
    }
}

/// The schema version of the database `session` is on (0 for an empty
/// database).
fn version(session: &Session) -> Result<usize> {
    let exists = int(
        session,
        "SELECT to_regclass('schema_version') IS NOT NULL",
        &[],
    )?;
    if exists != Some(1) {
        return Ok(0);
    }
    let v = int(session, "SELECT MAX(version) FROM schema_version", &[])?;
    Ok(v.unwrap_or(0).max(0) as usize)
}

/// The store's sequences as `session` sees them
/// ([`sequences::statement`]).
fn read_sequences(session: &Session) -> Result<Sequences> {
    let mut at = None;
    session.each(&sequences::statement(Backend::Postgres), &[], &mut |row| {
        at = Some(Sequences {
            games: row_int(row, 0)?.unwrap_or(0),
            removals: row_int(row, 1)?.unwrap_or(0),
        });
        Ok(false)
    })?;
    Ok(at.unwrap_or_default())
}

/// The integer (or boolean as 0/1) in the first column of the first row
/// of `sql`; `None` for `NULL` or no row.
fn int(session: &Session, sql: &str, params: &[Param<'_>]) -> Result<Option<i64>> {
    let mut out = None;
    session.each(sql, params, &mut |row| {
        out = row_int(row, 0)?;
        Ok(false)
    })?;
    Ok(out)
}

/// A PostgreSQL integer column of any width (or a boolean as 0/1).
pub(crate) fn row_int(row: &postgres::Row, i: usize) -> Result<Option<i64>> {
    use postgres::types::Type;
    let ty = row
        .columns()
        .get(i)
        .map(|c| c.type_().clone())
        .unwrap_or(Type::INT8);
    Ok(match ty {
        Type::INT2 => row.try_get::<_, Option<i16>>(i)?.map(i64::from),
        Type::INT4 => row.try_get::<_, Option<i32>>(i)?.map(i64::from),
        Type::BOOL => row.try_get::<_, Option<bool>>(i)?.map(i64::from),
        _ => row.try_get::<_, Option<i64>>(i)?,
    })
}

/// Applies the pending migrations in one transaction (PostgreSQL's DDL is
/// transactional: all or none), under [`MIGRATION_LOCK`].
fn migrate(session: &Session) -> Result<()> {
    session.within("BEGIN", || {
        session.execute(
            "SELECT pg_advisory_xact_lock(?)",
            &[Param::Int(MIGRATION_LOCK)],
        )?;
        let found = version(session)?;
        if found > MIGRATIONS.len() {
            return Err(Error::TooNew {
                found,
                expected: MIGRATIONS.len(),
            });
        }
        // Each migration records its own version (its last statement,
        // `INSERT INTO schema_version VALUES (N)`; tests/postgres_schema.rs
        // holds the files to it).
        for sql in &MIGRATIONS[found..] {
            session.batch(sql)?;
        }
        Ok(())
    })
}

/// Refuses, for a read-only open, a database whose schema is not this
/// crate's.
pub fn check_schema(session: &Session) -> Result<()> {
    let found = version(session)?;
    let expected = MIGRATIONS.len();
    match found.cmp(&expected) {
        std::cmp::Ordering::Less => Err(Error::NeedsUpgrade(format!(
            "its schema is version {found}, this keil writes version {expected}"
        ))),
        std::cmp::Ordering::Greater => Err(Error::TooNew { found, expected }),
        std::cmp::Ordering::Equal => Ok(()),
    }
}

/// The database's schema version and this build's, `(found, expected)`
/// (`keil verify`).
pub fn schema_versions(session: &Session) -> Result<(usize, usize)> {
    Ok((version(session)?, MIGRATIONS.len()))
}

/// The bytes the archive's tables take on the server: every table of the
/// current schema with its indexes and out-of-line (TOAST) data
/// (`pg_total_relation_size`; the database's own catalogs, ~7.5 MB, are
/// not counted).
pub fn database_bytes(session: &Session) -> Result<u64> {
    let n = int(
        session,
        "SELECT CAST(COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS BIGINT) \
         FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace",
        &[],
    )?;
    Ok(n.unwrap_or(0).max(0) as u64)
}
