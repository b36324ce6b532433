//! The embedded backend: opening the SQLite database (pragmas, migrations,
//! the functions migrations call), the writer, and the read pool (read
//! connections for a read-write archive, or for a read-only one: see
//! [`ReadPool::new`]). The statements themselves are the store's
//! (`store/*.rs`).

pub mod codes;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, OpenFlags};
use rusqlite_migration::{M, Migrations};

use crate::error::{Error, Result};

/// The numbered migrations of `schema/`, in order. Never edit one that has
/// been released: add the next file.
const MIGRATIONS: &[&str] = &[
    include_str!("../../schema/0001_initial.sql"),
    include_str!("../../schema/0002_segment_nonce.sql"),
    include_str!("../../schema/0003_game_kinds.sql"),
    include_str!("../../schema/0004_go_games.sql"),
    include_str!("../../schema/0005_move_nodes.sql"),
    include_str!("../../schema/0006_counts.sql"),
    include_str!("../../schema/0007_uploader.sql"),
    include_str!("../../schema/0008_ranks_komi.sql"),
    include_str!("../../schema/0009_people_signatures.sql"),
    include_str!("../../schema/0010_events.sql"),
    include_str!("../../schema/0011_removals_blocks.sql"),
    include_str!("../../schema/0012_games_facts.sql"),
    include_str!("../../schema/0013_block_heads.sql"),
    include_str!("../../schema/0014_merges_refused.sql"),
    include_str!("../../schema/0015_people_names.sql"),
    include_str!("../../schema/0016_collections.sql"),
];

/// The store's one writer: the connection that every write of this process
/// goes through (held by the archive behind its lock).
pub struct Writer(Connection);

impl Writer {
    /// Opens (creating if needed) the database at `path`, in WAL mode, and
    /// applies the pending migrations.
    ///
    /// # Errors
    /// SQLite and migration errors.
    pub fn open(path: &Path) -> Result<Writer> {
        open_writer(path).map(Writer)
    }

    /// Runs `f` in one write transaction: committed when `f` returns `Ok`,
    /// rolled back (nothing of it stored) when it returns an error.
    ///
    /// # Errors
    /// The error of `f`; SQLite errors of `BEGIN`/`COMMIT`.
    pub fn transaction<T, E: From<Error>>(
        &mut self,
        f: impl FnOnce(&Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        let tx = self.0.transaction().map_err(Error::from)?;
        let out = f(&tx)?;
        tx.commit().map_err(Error::from)?;
        Ok(out)
    }

    /// The writer's connection: statements outside a transaction, each
    /// committed alone, and reads that see every commit.
    pub fn connection(&self) -> &Connection {
        &self.0
    }

    /// Gives back the space of deleted and rewritten data: `VACUUM`, then
    /// the write-ahead log folded into the database.
    ///
    /// # Errors
    /// SQLite errors, e.g. while readers hold old snapshots.
    pub fn compact(&self) -> Result<()> {
        self.0
            .execute_batch("VACUUM; PRAGMA wal_checkpoint(TRUNCATE);")?;
        Ok(())
    }

    /// Caps the database at its size plus `extra_pages` pages (`PRAGMA
    /// max_page_count`), so that a write past it fails with `SQLITE_FULL`
    /// as on a full volume (tests of a full disk). Returns the cap.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn cap_pages(&self, extra_pages: u64) -> Result<u64> {
        let pages: u64 = self.0.query_row("PRAGMA page_count", [], |r| r.get(0))?;
        let cap = pages + extra_pages;
        Ok(self
            .0
            .query_row(&format!("PRAGMA max_page_count = {cap}"), [], |r| r.get(0))?)
    }
}

/// The bytes of the database file at `path` and its write-ahead log.
pub fn file_bytes(path: &Path) -> u64 {
    let len = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    len(path) + len(Path::new(&wal))
}

/// How long a statement waits for another connection's lock (ms).
const BUSY_TIMEOUT_MS: u64 = 5_000;

/// The writer's page cache: 64 MiB (SQLite's `cache_size` in KiB when
/// negative).
const WRITER_CACHE_KIB: i64 = -65_536;

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
fn open_writer(path: &Path) -> Result<Connection> {
    let mut conn = Connection::open(path)?;
    configure(&conn)?;
    // The writer's statement journals (a statement that fires the count
    // triggers inside a batch's transaction keeps one) stay in memory
    // rather than in temporary files, and its page cache holds a batch's
    // b-tree pages (SQLite's default is 2 MiB): 5 % of an import's time
    // went to statement-journal writes in a profile of 20,000 Go games.
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.pragma_update(None, "cache_size", WRITER_CACHE_KIB)?;
    let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
    debug_assert_eq!(mode.to_ascii_lowercase(), "wal");
    register_functions(&conn)?;
    let migrations = Migrations::new(MIGRATIONS.iter().map(|sql| M::up(sql)).collect());
    migrations.to_latest(&mut conn)?;
    Ok(conn)
}

/// The SQL functions that migrations call to fill derived columns from
/// what is stored: `keil_rank(text)` (keil-record's `Rank::parse`, as
/// [`Rank::ordinal`](keil_record::Rank::ordinal), NULL for no rank) and
/// `keil_go_komi(record, komi)` (a stored Go record's komi as meant, in
/// half-points; `komi` when the record does not read),
/// `keil_person_key(name)` ([`crate::fold::person_key`]), `keil_fold(text)`
/// ([`crate::fold::fold()`]) and
/// `keil_signature(kind, size, plies, moves)` (`moves::signature`, NULL
/// for none).
fn register_functions(conn: &Connection) -> Result<()> {
    use rusqlite::functions::FunctionFlags;
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function("keil_rank", 1, flags, |ctx| {
        let text: Option<String> = ctx.get(0)?;
        Ok(text
            .as_deref()
            .and_then(keil_record::Rank::parse)
            .map(|r| i64::from(r.ordinal())))
    })?;
    conn.create_scalar_function("keil_go_komi", 2, flags, |ctx| {
        let record: Vec<u8> = ctx.get(0)?;
        let komi: i64 = ctx.get(1)?;
        let meant = zstd::stream::decode_all(&record[..])
            .ok()
            .and_then(|text| keil_record::read_records(&text).into_iter().next())
            .and_then(|r| r.ok())
            .and_then(|r| r.go().map(|g| i64::from(g.komi_meant.0)));
        Ok(meant.unwrap_or(komi))
    })?;
    conn.create_scalar_function("keil_person_key", 1, flags, |ctx| {
        let name: String = ctx.get(0)?;
        Ok(crate::fold::person_key(&name))
    })?;
    conn.create_scalar_function("keil_fold", 1, flags, |ctx| {
        let text: String = ctx.get(0)?;
        Ok(crate::fold::fold(&text))
    })?;
    conn.create_scalar_function("keil_signature", 4, flags, |ctx| {
        let kind: String = ctx.get(0)?;
        let size: i64 = ctx.get(1)?;
        let plies: i64 = ctx.get(2)?;
        let moves: Vec<u8> = ctx.get(3)?;
        let size = u8::try_from(size).unwrap_or(0);
        let plies = usize::try_from(plies).unwrap_or(0);
        Ok(crate::moves::signature(&kind, size, plies, &moves).map(|s| s.to_vec()))
    })?;
    Ok(())
}

/// Refuses, for a read-only open, a database whose schema is not this
/// crate's: an older one needs its migrations (a write), a newer one was
/// written by a newer version.
///
/// # Errors
/// [`Error::NeedsUpgrade`] and [`Error::TooNew`]; SQLite errors.
pub fn check_schema(conn: &Connection) -> Result<()> {
    let found = user_version(conn)?;
    let expected = schema_version();
    match found.cmp(&expected) {
        std::cmp::Ordering::Less => Err(Error::NeedsUpgrade(format!(
            "its schema is version {found}, this keil writes version {expected}"
        ))),
        std::cmp::Ordering::Greater => Err(Error::TooNew { found, expected }),
        std::cmp::Ordering::Equal => Ok(()),
    }
}

/// The schema version of the database `conn` is on (`PRAGMA
/// user_version`, which the migrations keep).
///
/// # Errors
/// SQLite errors.
pub fn user_version(conn: &Connection) -> Result<usize> {
    Ok(conn
        .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))?
        .max(0) as usize)
}

/// Writes a consistent copy of the database at `path` into the new file
/// `dest` with `VACUUM INTO` (SQLite's online copy: one read transaction,
/// so writers of other connections and processes go on meanwhile, and
/// the copy is the state of one commit, compacted; never a copy of the
/// files, which a writer may change under it). Opens its own connection,
/// read-only (`mode=ro`, else, when there are no WAL files and so no
/// writer, `immutable=1`: a read-only volume). Returns the copy's games (its `counts` row), read back
/// from the copy.
///
/// # Errors
/// SQLite errors (among them `dest` existing and not empty); a `dest`
/// that is not UTF-8.
pub fn copy_into(path: &Path, dest: &Path) -> Result<u64> {
    let flags = OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_READ_ONLY;
    let open = |param: &str| {
        Connection::open_with_flags(format!("file:{}?{param}", uri_path(path)), flags).and_then(
            |c| {
                c.query_row("SELECT COUNT(*) FROM sqlite_schema", [], |_| Ok(()))
                    .map(|()| c)
            },
        )
    };
    let wal_files = ["-wal", "-shm"].iter().any(|suffix| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        Path::new(&name).exists()
    });
    let conn = match open("mode=ro") {
        Ok(c) => c,
        // No WAL files: no writer, so the file read as it is is a commit's
        // state (a read-only volume).
        Err(_) if !wal_files => open("immutable=1")?,
        Err(e) => return Err(e.into()),
    };
    conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS))?;
    let target = dest.to_str().ok_or_else(|| {
        Error::io(
            dest,
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a UTF-8 path"),
        )
    })?;
    conn.execute("VACUUM INTO ?1", [target])?;
    drop(conn);
    let copy = Connection::open_with_flags(dest, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let games: i64 = copy
        .query_row("SELECT n FROM counts WHERE name = 'games'", [], |r| {
            r.get(0)
        })
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(0),
            e => Err(e),
        })?;
    Ok(games.max(0) as u64)
}

/// How the pool's connections open the database file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    /// Read-write connections restricted by `PRAGMA query_only`: the
    /// archive's own writer keeps the WAL files.
    Shared,
    /// `mode=ro`: a read-only archive whose WAL files exist (another
    /// process has the database open, or one stopped without closing it):
    /// reads see that process's commits and the WAL's games.
    ReadOnly,
    /// `immutable=1`: a read-only archive without WAL files. SQLite then
    /// creates no `-wal`/`-shm` file and takes no lock, so it works on a
    /// read-only or full volume, but it assumes nobody writes the file:
    /// the pool switches to `mode=ro` for new connections as soon as a
    /// writer appears (its `-shm` file), see [`ReadPool::get`].
    Immutable,
}

/// A small pool of read-only connections.
pub struct ReadPool {
    path: PathBuf,
    /// Whether the archive was opened read-only (no writer of ours).
    read_only: bool,
    idle: Mutex<Vec<(Access, Connection)>>,
}

impl ReadPool {
    /// A pool over the database at `path`. A read-write archive's readers
    /// share its writer's WAL files; a read-only archive's readers write
    /// nothing: `mode=ro` when the WAL files exist, `immutable=1` when they
    /// do not (or when `mode=ro` cannot open them: a read-only volume
    /// without the `-shm` file; committed games still in a WAL file are
    /// then not seen until the archive is opened for writing once).
    pub fn new(path: PathBuf, read_only: bool) -> ReadPool {
        ReadPool {
            path,
            read_only,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sibling(&self, suffix: &str) -> PathBuf {
        let mut name = self.path.clone().into_os_string();
        name.push(suffix);
        PathBuf::from(name)
    }

    /// The access a new connection gets now.
    fn access(&self) -> Access {
        if !self.read_only {
            Access::Shared
        } else if self.sibling("-shm").exists() || self.sibling("-wal").exists() {
            Access::ReadOnly
        } else {
            Access::Immutable
        }
    }

    fn open(&self, access: Access) -> Result<Connection> {
        let flags = OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let c = match access {
            Access::Shared => {
                Connection::open_with_flags(&self.path, flags | OpenFlags::SQLITE_OPEN_READ_WRITE)?
            }
            Access::ReadOnly | Access::Immutable => {
                let param = if access == Access::ReadOnly {
                    "mode=ro"
                } else {
                    "immutable=1"
                };
                Connection::open_with_flags(
                    format!("file:{}?{param}", uri_path(&self.path)),
                    flags | OpenFlags::SQLITE_OPEN_READ_ONLY,
                )?
            }
        };
        configure(&c)?;
        c.pragma_update(None, "query_only", "ON")?;
        if access != Access::Shared {
            // The WAL files are opened at the first read: fail here (and
            // fall back to `immutable`), not in a query.
            c.query_row("SELECT COUNT(*) FROM sqlite_schema", [], |_| Ok(()))?;
        }
        Ok(c)
    }

    /// A connection: an idle one, or a new one. In a read-only archive an
    /// idle `immutable` connection is dropped once a writer has appeared.
    pub fn get(&self) -> Result<ReadConnection<'_>> {
        let access = self.access();
        let idle = {
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            if access != Access::Immutable {
                idle.retain(|(a, _)| *a != Access::Immutable);
            }
            idle.pop()
        };
        let (access, conn) = match idle {
            Some(c) => c,
            None => match self.open(access) {
                Ok(c) => (access, c),
                // A read-only volume without the `-shm` file.
                Err(_) if access == Access::ReadOnly => {
                    (Access::Immutable, self.open(Access::Immutable)?)
                }
                Err(e) => return Err(e),
            },
        };
        Ok(ReadConnection {
            pool: self,
            conn: Some((access, conn)),
        })
    }
}

/// `path` for a `file:` URI: `%`, `?` and `#` escaped.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

/// SQLite virtual machine steps between two checks of a budget
/// ([`ReadConnection::snapshot_within`]): a few microseconds of work, so
/// that a spent budget stops a scan within well under a millisecond.
pub const PROGRESS_STEPS: std::ffi::c_int = 1000;

/// A read-only connection borrowed from the archive's pool; it goes back to
/// the pool when dropped; its statements run through [`ReadConnection::conn`]
/// and [`ReadConnection::snapshot`].
///
/// Statements on it see a consistent snapshot per transaction (WAL mode):
/// run several queries in [`ReadConnection::snapshot`] to see one state of
/// the archive.
pub struct ReadConnection<'a> {
    pool: &'a ReadPool,
    conn: Option<(Access, Connection)>,
}

impl ReadConnection<'_> {
    /// Runs `f` inside one read transaction, so that all its queries see one
    /// state of the archive. `BEGIN` and `COMMIT` are cached statements
    /// (rusqlite's transactions prepare them anew on every call).
    ///
    /// # Errors
    /// The error of `f`, else SQLite errors of `BEGIN`/`COMMIT`.
    pub fn snapshot<T, E: From<Error>>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        self.conn()
            .prepare_cached("BEGIN")
            .and_then(|mut s| s.execute([]))
            .map_err(Error::from)?;
        let out = f(self.conn());
        // Ending a read transaction cannot lose anything; a connection left
        // inside one is not reused (see `Drop`).
        let end = self
            .conn()
            .prepare_cached("COMMIT")
            .and_then(|mut s| s.execute([]));
        let out = out?;
        end.map_err(Error::from)?;
        Ok(out)
    }
}

impl ReadConnection<'_> {
    /// As [`ReadConnection::snapshot`], its statements interrupted once
    /// `budget` is spent (checked every [`PROGRESS_STEPS`] steps).
    ///
    /// # Errors
    /// As [`ReadConnection::snapshot`]; an interrupted statement fails
    /// with SQLite's `SQLITE_INTERRUPT` (the caller names the budget).
    pub fn snapshot_within<T, E: From<Error>>(
        &self,
        budget: &crate::budget::Budget,
        f: impl FnOnce(&Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        let b = budget.clone();
        self.conn()
            .progress_handler(PROGRESS_STEPS, Some(move || b.spent()));
        let out = self.snapshot(f);
        self.conn().progress_handler(0, None::<fn() -> bool>);
        out
    }

    /// The connection: reads, each statement on its own snapshot (use
    /// [`ReadConnection::snapshot`] for several on one).
    pub fn conn(&self) -> &Connection {
        // Only `drop` takes the connection out.
        &self.conn.as_ref().expect("connection present until drop").1
    }
}

impl Drop for ReadConnection<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            // A connection left inside a transaction is not reused.
            if conn.1.is_autocommit() {
                let mut idle = self.pool.idle.lock().unwrap_or_else(|e| e.into_inner());
                if idle.len() < POOL_IDLE {
                    idle.push(conn);
                }
            }
        }
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Error {
        codes::error("SQLite", e)
    }
}

impl From<rusqlite_migration::Error> for Error {
    fn from(e: rusqlite_migration::Error) -> Error {
        codes::error("schema migration", e)
    }
}
