//! Statement parameters, written once for both backends: [`Param`]
//! (bound by rusqlite and by postgres), [`ToParam`] and `params!`, the
//! [`Backend`] phrases the two spell differently, and the placeholders
//! rewritten for PostgreSQL. It sits below the engines and the statement
//! layer (`sql.rs`), which both bind parameters.

use std::borrow::Cow;

/// Which backend a handle runs on, for the phrases the two spell
/// differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The embedded archive (`store/sqlite/`).
    Sqlite,
    /// A database server (`store/postgres/`).
    Postgres,
}

impl Backend {
    /// A hint that a `FROM table` reads through `index` (SQLite's
    /// `INDEXED BY`; PostgreSQL's planner takes no hints: empty).
    pub fn indexed_by(self, index: &str) -> String {
        match self {
            Backend::Sqlite => format!(" INDEXED BY {index}"),
            Backend::Postgres => String::new(),
        }
    }

    /// The greater of two integer expressions (SQLite's two-argument `MAX`,
    /// PostgreSQL's `GREATEST`).
    pub fn greatest(self, a: &str, b: &str) -> String {
        match self {
            Backend::Sqlite => format!("MAX({a}, {b})"),
            Backend::Postgres => format!("GREATEST({a}, {b})"),
        }
    }

    /// Whether a slice of a blob far from its start is read without the
    /// bytes before it ([`Conn::blob_at`](crate::sql::Conn::blob_at)): PostgreSQL reads an
    /// out-of-line value's chunks by number; SQLite walks the blob's
    /// overflow-page chain from its start, so a read at an offset costs
    /// the pages before it.
    pub fn slices_blobs(self) -> bool {
        self == Backend::Postgres
    }

    /// Whether text `haystack` contains the next parameter (SQLite's
    /// `instr`, PostgreSQL's `strpos`; no pattern characters).
    pub fn contains(self, haystack: &str) -> String {
        match self {
            Backend::Sqlite => format!("instr({haystack}, ?) > 0"),
            Backend::Postgres => format!("strpos({haystack}, ?) > 0"),
        }
    }
}

/// One bound parameter: borrowed text and bytes, as SQLite keeps them.
#[derive(Clone, Debug, PartialEq)]
pub enum Param<'a> {
    /// SQL `NULL`, whatever the column's type.
    Null,
    /// An integer, bound at the column's width (an error when it does not
    /// fit).
    Int(i64),
    /// A float.
    Real(f64),
    /// Text.
    Text(Cow<'a, str>),
    /// Bytes (`BLOB`, `BYTEA`).
    Blob(Cow<'a, [u8]>),
}

/// A value that binds as a [`Param`] (what `params!` takes, by
/// reference, as rusqlite's `params!` does).
pub trait ToParam {
    /// The parameter, borrowing from `self`.
    fn param(&self) -> Param<'_>;
}

macro_rules! int_param {
    ($($t:ty),*) => {$(
        impl ToParam for $t {
            fn param(&self) -> Param<'_> {
                Param::Int(*self as i64)
            }
        }
    )*};
}
int_param!(i64, i32, i16, u32, u16, u8, usize);

impl ToParam for bool {
    fn param(&self) -> Param<'_> {
        Param::Int(i64::from(*self))
    }
}

impl ToParam for f64 {
    fn param(&self) -> Param<'_> {
        Param::Real(*self)
    }
}

impl ToParam for str {
    fn param(&self) -> Param<'_> {
        Param::Text(Cow::Borrowed(self))
    }
}

impl ToParam for String {
    fn param(&self) -> Param<'_> {
        Param::Text(Cow::Borrowed(self))
    }
}

impl ToParam for [u8] {
    fn param(&self) -> Param<'_> {
        Param::Blob(Cow::Borrowed(self))
    }
}

impl ToParam for Vec<u8> {
    fn param(&self) -> Param<'_> {
        Param::Blob(Cow::Borrowed(self))
    }
}

impl<const N: usize> ToParam for [u8; N] {
    fn param(&self) -> Param<'_> {
        Param::Blob(Cow::Borrowed(self))
    }
}

impl<T: ToParam + ?Sized> ToParam for &T {
    fn param(&self) -> Param<'_> {
        (**self).param()
    }
}

impl<T: ToParam> ToParam for Option<T> {
    fn param(&self) -> Param<'_> {
        match self {
            Some(v) => v.param(),
            None => Param::Null,
        }
    }
}

impl ToParam for Param<'_> {
    fn param(&self) -> Param<'_> {
        match self {
            Param::Null => Param::Null,
            Param::Int(i) => Param::Int(*i),
            Param::Real(f) => Param::Real(*f),
            Param::Text(t) => Param::Text(Cow::Borrowed(t)),
            Param::Blob(b) => Param::Blob(Cow::Borrowed(b)),
        }
    }
}

/// The parameters of a statement, in order: `params![a, b]` is
/// `&[a.param(), b.param()]` (each taken by reference).
macro_rules! params {
    () => {
        &[] as &[$crate::param::Param<'_>]
    };
    ($($p:expr),+ $(,)?) => {
        &[$($crate::param::ToParam::param(&$p)),+] as &[$crate::param::Param<'_>]
    };
}
pub(crate) use params;

impl rusqlite::ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match self {
            Param::Null => ValueRef::Null,
            Param::Int(i) => ValueRef::Integer(*i),
            Param::Real(f) => ValueRef::Real(*f),
            Param::Text(t) => ValueRef::Text(t.as_bytes()),
            Param::Blob(b) => ValueRef::Blob(b),
        }))
    }
}

/// A parameter that does not fit its column (a PostgreSQL type it cannot
/// be bound as, or an integer too wide for it).
#[derive(Debug, thiserror::Error)]
#[error("a parameter of {param} cannot be bound as a {column} column")]
struct Unbindable {
    param: &'static str,
    column: String,
}

impl postgres::types::ToSql for Param<'_> {
    fn to_sql(
        &self,
        ty: &postgres::types::Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> std::result::Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>>
    {
        use postgres::types::{IsNull, Type};
        let unbindable = |param| {
            Box::new(Unbindable {
                param,
                column: ty.name().to_string(),
            })
        };
        match self {
            Param::Null => Ok(IsNull::Yes),
            Param::Int(i) => match *ty {
                Type::INT8 => i.to_sql(ty, out),
                Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
                Type::BOOL => (*i != 0).to_sql(ty, out),
                Type::FLOAT8 => (*i as f64).to_sql(ty, out),
                Type::TEXT | Type::VARCHAR => i.to_string().to_sql(ty, out),
                _ => Err(unbindable("an integer")),
            },
            Param::Real(f) => match *ty {
                Type::FLOAT8 => f.to_sql(ty, out),
                Type::FLOAT4 => (*f as f32).to_sql(ty, out),
                _ => Err(unbindable("a float")),
            },
            Param::Text(t) => match *ty {
                Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
                    t.as_ref().to_sql(ty, out)
                }
                _ => Err(unbindable("text")),
            },
            Param::Blob(b) => match *ty {
                Type::BYTEA => b.as_ref().to_sql(ty, out),
                _ => Err(unbindable("bytes")),
            },
        }
    }

    fn accepts(_: &postgres::types::Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

/// `sql` with SQLite's placeholders (`?` numbered in order, `?N`)
/// rewritten as PostgreSQL's (`$N`); quoted text and identifiers are kept.
pub fn numbered_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut next = 1u32;
    let mut quote: Option<char> = None;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                out.push(c);
            }
            (Some(_), c) => out.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                out.push(c);
            }
            (None, '?') => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                    digits.push(d);
                    chars.next();
                }
                out.push('$');
                if digits.is_empty() {
                    out.push_str(&next.to_string());
                    next += 1;
                } else {
                    out.push_str(&digits);
                }
            }
            (None, c) => out.push(c),
        }
    }
    out
}
