//! The store's statements, written once for both backends: parameters
//! ([`Param`], `params!`), rows ([`Row`],
//! [`Cell`]) and the handle that runs them ([`Conn`]: an SQLite connection
//! or a PostgreSQL session).
//!
//! The store's modules write portable SQL (`?` or `?N` placeholders,
//! `ON CONFLICT`, `RETURNING`, `COALESCE`, `TRUE`, `CAST(… AS BIGINT)`), and
//! ask [`Backend`] for the few phrases the two spell differently. Integers
//! are read and bound whatever the column's width (SQLite has one integer
//! type; PostgreSQL's `SMALLINT`, `INTEGER` and `BIGINT` all read as the
//! Rust integer asked for, out of range being an error), so a module never
//! names a backend's types.

use crate::error::{Error, Result};
pub(crate) use crate::param::params;
pub use crate::param::{Backend, Param, ToParam};
use crate::sequences::Sequences;

/// A caller's callback run inside a statement's row loop ([`Conn::each`]),
/// whose error type is the caller's: a failure is kept here and the loop
/// told to stop, and [`Relay::finish`] hands it back after the statement.
pub(crate) struct Relay<E>(Option<E>);

impl<E: From<Error>> Relay<E> {
    /// No failure yet.
    pub(crate) fn new() -> Relay<E> {
        Relay(None)
    }

    /// The callback's answer for the row loop: `Ok(go)` is `go`; an error
    /// is kept and stops the loop.
    pub(crate) fn go(&mut self, out: std::result::Result<bool, E>) -> bool {
        match out {
            Ok(go) => go,
            Err(e) => {
                self.0 = Some(e);
                false
            }
        }
    }

    /// The statement's outcome: its own error first, then the callback's.
    pub(crate) fn finish<T>(self, out: Result<T>) -> std::result::Result<T, E> {
        let value = out?;
        match self.0 {
            Some(e) => Err(e),
            None => Ok(value),
        }
    }
}

/// A row of a result, from either backend; columns are read by index with
/// [`Row::get`].
pub enum Row<'r> {
    /// An SQLite row.
    Sqlite(&'r rusqlite::Row<'r>),
    /// A PostgreSQL row.
    Postgres(&'r postgres::Row),
}

impl Row<'_> {
    /// Column `i` (from 0) as a `T`; an `Option` reads `NULL` as `None`.
    ///
    /// # Errors
    /// A storage error for a `NULL` read as a non-`Option`, a value of
    /// another type, or an integer out of `T`'s range.
    pub fn get<T: Cell>(&self, i: usize) -> Result<T> {
        match self {
            Row::Sqlite(r) => Ok(T::sqlite(r, i)?),
            Row::Postgres(r) => T::postgres(r, i),
        }
    }
}

/// A Rust type a column reads as (see [`Row::get`]).
pub trait Cell: Sized {
    /// Reads SQLite's column `i`.
    fn sqlite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Self>;
    /// Reads PostgreSQL's column `i`.
    fn postgres(row: &postgres::Row, i: usize) -> Result<Self>;
}

/// A non-`NULL` value type: [`Cell`] for it and for its `Option`.
pub trait Value: Sized {
    /// SQLite's column `i`, `None` for `NULL`.
    fn sqlite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<Self>>;
    /// PostgreSQL's column `i`, `None` for `NULL`.
    fn postgres(row: &postgres::Row, i: usize) -> Result<Option<Self>>;
}

/// A `NULL` read as a value that cannot be one.
#[derive(Debug, thiserror::Error)]
#[error("column {0} is NULL")]
struct UnexpectedNull(usize);

impl<T: Value> Cell for T {
    fn sqlite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<T> {
        <T as Value>::sqlite(row, i)?.ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                i,
                rusqlite::types::Type::Null,
                Box::new(UnexpectedNull(i)),
            )
        })
    }

    fn postgres(row: &postgres::Row, i: usize) -> Result<T> {
        <T as Value>::postgres(row, i)?
            .ok_or_else(|| crate::error::storage_error("PostgreSQL", UnexpectedNull(i)))
    }
}

impl<T: Value> Cell for Option<T> {
    fn sqlite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<T>> {
        <T as Value>::sqlite(row, i)
    }

    fn postgres(row: &postgres::Row, i: usize) -> Result<Option<T>> {
        <T as Value>::postgres(row, i)
    }
}

/// An integer that does not fit the type asked for.
#[derive(Debug, thiserror::Error)]
#[error("column {column}: {value} is out of range")]
struct OutOfRange {
    column: usize,
    value: i64,
}

macro_rules! int_value {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn sqlite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<$t>> {
                row.get::<_, Option<i64>>(i)?
                    .map(|v| {
                        <$t>::try_from(v).map_err(|_| {
                            rusqlite::Error::IntegralValueOutOfRange(i, v)
                        })
                    })
                    .transpose()
            }

            fn postgres(row: &postgres::Row, i: usize) -> Result<Option<$t>> {
                crate::postgres::row_int(row, i)?
                    .map(|v| {
                        <$t>::try_from(v).map_err(|_| {
                            crate::error::storage_error(
                                "PostgreSQL",
                                OutOfRange { column: i, value: v },
                            )
                        })
                    })
                    .transpose()
            }
        }
    )*};
}
int_value!(i64, i32, i16, u64, u32, u16, u8, usize);

impl Value for bool {
    fn sqlite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<bool>> {
        Ok(row.get::<_, Option<i64>>(i)?.map(|v| v != 0))
    }

    fn postgres(row: &postgres::Row, i: usize) -> Result<Option<bool>> {
        Ok(crate::postgres::row_int(row, i)?.map(|v| v != 0))
    }
}

impl Value for f64 {
    fn sqlite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<f64>> {
        row.get(i)
    }

    fn postgres(row: &postgres::Row, i: usize) -> Result<Option<f64>> {
        Ok(row.try_get(i)?)
    }
}

impl Value for String {
    fn sqlite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<String>> {
        row.get(i)
    }

    fn postgres(row: &postgres::Row, i: usize) -> Result<Option<String>> {
        Ok(row.try_get(i)?)
    }
}

impl Value for Vec<u8> {
    fn sqlite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<Vec<u8>>> {
        row.get(i)
    }

    fn postgres(row: &postgres::Row, i: usize) -> Result<Option<Vec<u8>>> {
        Ok(row.try_get(i)?)
    }
}

/// Keys a statement names at most in one `IN (…)` list or `VALUES` list
/// ([`Conn::query_in`]), well under SQLite's and PostgreSQL's parameter
/// limits.
pub const IN_CHUNK: usize = 500;

/// A statement that was expected to return a row and returned none.
#[derive(Debug, thiserror::Error)]
#[error("no row for: {0}")]
struct NoRow(String);

/// A handle that runs statements: an SQLite connection or a PostgreSQL
/// session, inside whatever transaction its owner began. `Copy`.
#[derive(Clone, Copy)]
pub enum Conn<'a> {
    /// An SQLite connection; statements are cached on it.
    Sqlite(&'a rusqlite::Connection),
    /// A PostgreSQL session; statements are prepared once per session.
    Postgres(&'a crate::postgres::Session),
}

impl<'a> Conn<'a> {
    /// The backend, for the phrases the two spell differently.
    pub fn backend(self) -> Backend {
        match self {
            Conn::Sqlite(_) => Backend::Sqlite,
            Conn::Postgres(_) => Backend::Postgres,
        }
    }

    /// Runs `sql` and streams its rows to `each` while it returns `true`.
    ///
    /// # Errors
    /// Storage errors; the first error of `each`.
    pub fn each(
        self,
        sql: &str,
        params: &[Param<'_>],
        mut each: impl FnMut(&Row<'_>) -> Result<bool>,
    ) -> Result<()> {
        match self {
            Conn::Sqlite(c) => {
                let mut stmt = c.prepare_cached(sql)?;
                let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
                while let Some(r) = rows.next()? {
                    if !each(&Row::Sqlite(r))? {
                        break;
                    }
                }
                Ok(())
            }
            Conn::Postgres(s) => s.each(sql, params, &mut |r| each(&Row::Postgres(r))),
        }
    }

    /// Runs `sql` and maps every row with `f`.
    ///
    /// # Errors
    /// Storage errors; the first error of `f`.
    pub fn query<T>(
        self,
        sql: &str,
        params: &[Param<'_>],
        mut f: impl FnMut(&Row<'_>) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut out = Vec::new();
        self.each(sql, params, |r| {
            out.push(f(r)?);
            Ok(true)
        })?;
        Ok(out)
    }

    /// Runs `sql_of(marks)` over `keys` in chunks of [`IN_CHUNK`]:
    /// `marks` is the chunk's `?,?,…` for an `IN (…)` list, whose
    /// parameters follow `before`'s. Maps every row with `f`. The one home
    /// of a lookup of many keys in a few statements (a batch's records, a
    /// page's games).
    ///
    /// # Errors
    /// Storage errors; the first error of `f`.
    pub fn query_in<T>(
        self,
        before: &[Param<'_>],
        keys: &[Param<'_>],
        sql_of: impl Fn(&str) -> String,
        mut f: impl FnMut(&Row<'_>) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut out = Vec::new();
        for chunk in keys.chunks(IN_CHUNK) {
            let marks = vec!["?"; chunk.len()].join(",");
            let params: Vec<Param<'_>> = before.iter().chain(chunk).cloned().collect();
            self.each(&sql_of(&marks), &params, |r| {
                out.push(f(r)?);
                Ok(true)
            })?;
        }
        Ok(out)
    }

    /// Runs `sql` and maps its first row with `f` (`None` for no row).
    ///
    /// # Errors
    /// Storage errors; the error of `f`.
    pub fn query_opt<T>(
        self,
        sql: &str,
        params: &[Param<'_>],
        f: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<Option<T>> {
        let mut f = Some(f);
        let mut out = None;
        self.each(sql, params, |r| {
            if let Some(f) = f.take() {
                out = Some(f(r)?);
            }
            Ok(false)
        })?;
        Ok(out)
    }

    /// Runs `sql` and maps its first row with `f`.
    ///
    /// # Errors
    /// Storage errors, among them a statement that returns no row; the
    /// error of `f`.
    pub fn query_one<T>(
        self,
        sql: &str,
        params: &[Param<'_>],
        f: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        self.query_opt(sql, params, f)?
            .ok_or_else(|| self.error(NoRow(sql.to_string())))
    }

    /// Runs `sql` and reads its first row's first column.
    ///
    /// # Errors
    /// As [`Conn::query_one`].
    pub fn value<T: Cell>(self, sql: &str, params: &[Param<'_>]) -> Result<T> {
        self.query_one(sql, params, |r| r.get(0))
    }

    /// Runs `sql`, returning the rows it changed.
    ///
    /// # Errors
    /// Storage errors.
    pub fn execute(self, sql: &str, params: &[Param<'_>]) -> Result<u64> {
        match self {
            Conn::Sqlite(c) => {
                Ok(c.prepare_cached(sql)?
                    .execute(rusqlite::params_from_iter(params))? as u64)
            }
            Conn::Postgres(s) => s.execute(sql, params),
        }
    }

    /// Inserts `rows` (each the values of `columns`, in order) into
    /// `table`: SQLite runs one cached `INSERT` a row; PostgreSQL streams
    /// them in one binary `COPY` (no `ON CONFLICT`: the caller has checked
    /// the unique keys inside the write lock). Returns the rows inserted.
    ///
    /// # Errors
    /// Storage errors, among them a unique key already stored.
    pub fn insert_rows(
        self,
        table: &str,
        columns: &[&str],
        rows: &[Vec<Param<'_>>],
    ) -> Result<u64> {
        if rows.is_empty() {
            return Ok(0);
        }
        match self {
            Conn::Sqlite(c) => {
                let sql = format!(
                    "INSERT INTO {table} ({}) VALUES ({})",
                    columns.join(", "),
                    vec!["?"; columns.len()].join(", ")
                );
                let mut stmt = c.prepare_cached(&sql)?;
                for row in rows {
                    stmt.execute(rusqlite::params_from_iter(row))?;
                }
                Ok(rows.len() as u64)
            }
            Conn::Postgres(s) => s.copy_in(table, columns, rows),
        }
    }

    /// The `len` bytes from byte `offset` of the blob in `column` of
    /// `table`'s row `id` (SQLite: an incremental blob read; PostgreSQL:
    /// `substring`, the value as it comes): the bytes after them are not
    /// read, nor, where [`Backend::slices_blobs`], those before.
    ///
    /// # Errors
    /// Storage errors, among them a missing row or a blob that ends before
    /// `offset + len`.
    pub fn blob_at(
        self,
        table: &str,
        column: &str,
        id: i64,
        offset: usize,
        len: usize,
    ) -> Result<Vec<u8>> {
        match self {
            Conn::Sqlite(c) => {
                let blob = c.blob_open(rusqlite::MAIN_DB, table, column, id, true)?;
                let mut bytes = vec![0; len];
                blob.read_at_exact(&mut bytes, offset)?;
                Ok(bytes)
            }
            Conn::Postgres(_) => {
                let bytes: Vec<u8> = self.value(
                    &format!("SELECT substring({column} FROM ? FOR ?) FROM {table} WHERE id = ?"),
                    params![offset + 1, len, id],
                )?;
                if bytes.len() != len {
                    return Err(self.error(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        format!("{table} {id}: {column} ends before byte {}", offset + len),
                    )));
                }
                Ok(bytes)
            }
        }
    }

    /// Writes the blob in `column` of `table`'s row `id` to `out`, whole
    /// (SQLite: incremental blob reads of 1 MiB, so that no copy of it is
    /// held in memory; PostgreSQL: the value, then written). Returns its
    /// length in bytes.
    ///
    /// # Errors
    /// Storage errors, among them a missing row; [`Error::Io`] when `out`
    /// cannot be written.
    pub fn blob_to(
        self,
        table: &str,
        column: &str,
        id: i64,
        out: &mut dyn std::io::Write,
    ) -> Result<u64> {
        let written = |e| Error::io(format!("{table}.{column} of row {id}, copied"), e);
        match self {
            Conn::Sqlite(c) => {
                let blob = c.blob_open(rusqlite::MAIN_DB, table, column, id, true)?;
                let mut chunk = vec![0u8; (1 << 20).min(blob.len())];
                let mut at = 0;
                while at < blob.len() {
                    let n = chunk.len().min(blob.len() - at);
                    blob.read_at_exact(&mut chunk[..n], at)?;
                    out.write_all(&chunk[..n]).map_err(written)?;
                    at += n;
                }
                Ok(at as u64)
            }
            Conn::Postgres(_) => {
                let bytes: Vec<u8> = self.value(
                    &format!("SELECT {column} FROM {table} WHERE id = ?"),
                    params![id],
                )?;
                out.write_all(&bytes).map_err(written)?;
                Ok(bytes.len() as u64)
            }
        }
    }

    /// A storage error of this backend.
    fn error(self, e: impl std::error::Error + Send + Sync + 'static) -> Error {
        match self {
            Conn::Sqlite(_) => crate::sqlite::codes::error("SQLite", e),
            Conn::Postgres(_) => crate::error::storage_error("PostgreSQL", e),
        }
    }
}

/// A read handle on the store: the statements of one read, on a pooled
/// connection (inside [`ReadConnection::snapshot`](crate::ReadConnection::snapshot) when several must see one
/// state) or on the writer's (inside its transaction, where a write sees
/// what it wrote). `Copy`. Only the store's modules run statements on it
/// (the field is private to this crate): the rest of the crate hands it to the
/// store's functions.
#[derive(Clone, Copy)]
pub struct Read<'a>(pub(crate) Conn<'a>);

/// A write handle: the statements of one write transaction of the writer
/// ([`Writer::transaction`](crate::Writer::transaction): an import batch, a removal, a reindex), or
/// single autocommit statements ([`Writer::autocommit`](crate::Writer::autocommit)). `Copy`; reads
/// through [`Write::read`] see what it wrote.
#[derive(Clone, Copy)]
pub struct Write<'a>(pub(crate) Conn<'a>);

impl<'a> std::ops::Deref for Read<'a> {
    type Target = Conn<'a>;
    fn deref(&self) -> &Conn<'a> {
        &self.0
    }
}

impl<'a> std::ops::Deref for Write<'a> {
    type Target = Conn<'a>;
    fn deref(&self) -> &Conn<'a> {
        &self.0
    }
}

impl<'a> Write<'a> {
    /// Reads inside this write (they see its own writes).
    pub fn read(self) -> Read<'a> {
        Read(self.0)
    }
}

impl Sequences {
    /// Reads both sequences in one statement (call it inside the read
    /// snapshot the caller searches).
    ///
    /// # Errors
    /// Storage errors.
    pub fn read(conn: Read<'_>) -> Result<Sequences> {
        conn.query_one(
            &crate::sequences::statement(conn.backend()),
            params![],
            |r| {
                Ok(Sequences {
                    games: r.get(0)?,
                    removals: r.get(1)?,
                })
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::param::numbered_placeholders;

    #[test]
    fn placeholders_are_numbered_outside_quotes() {
        assert_eq!(
            numbered_placeholders("SELECT a FROM t WHERE b = ? AND c = ? AND d = '?'"),
            "SELECT a FROM t WHERE b = $1 AND c = $2 AND d = '?'"
        );
        assert_eq!(
            numbered_placeholders("UPDATE t SET a = ?2 WHERE k = ?1 OR j = ?1"),
            "UPDATE t SET a = $2 WHERE k = $1 OR j = $1"
        );
        assert_eq!(numbered_placeholders("SELECT \"?\""), "SELECT \"?\"");
    }

    #[test]
    fn sqlite_rows_read_any_integer_width_and_refuse_what_does_not_fit() {
        let c = rusqlite::Connection::open_in_memory().unwrap();
        let conn = Conn::Sqlite(&c);
        let (a, b, n): (u8, Option<i32>, Option<String>) = conn
            .query_one(
                "SELECT ?, ?, ?",
                params![200i64, 7u16, None::<String>],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!((a, b, n), (200, Some(7), None));
        assert!(conn.value::<u8>("SELECT 300", params![]).is_err());
        assert!(conn.value::<i64>("SELECT NULL", params![]).is_err());
        assert!(conn.value::<i64>("SELECT 1 WHERE 0", params![]).is_err());
        assert_eq!(
            conn.query_opt("SELECT 1 WHERE 0", params![], |r| r.get::<i64>(0))
                .unwrap(),
            None
        );
    }
}
