//! The store of the Keil archive: the ground floor under `keil-archive`.
//! It owns the connections to the two backends, the numbered migrations
//! (`schema/` for SQLite, `schema/postgres/`), every SQL statement the
//! archive runs (written once, read by both engines), and the plain row
//! types it reads and writes. It imports nothing of the archive: the
//! archive converts these rows into its own indexes and answers.
//!
//! - [`handles`]: what the archive holds: the one [`Writer`], the
//!   [`ReadPool`]; they give the [`Read`]/[`Write`] handles of [`sql`].
//!   Nothing outside this crate knows which backend runs.
//! - [`sequences`]: the two sequences derived indexes catch up on.
//! - [`sql`]: the statement layer both backends run (parameters, rows, the
//!   connection [`sql::Conn`], the [`Read`]/[`Write`] handles); `sqlite/` is the embedded backend (one
//!   file, WAL mode, a small read pool), `postgres/` a database server
//!   many processes share (a connection pool, advisory-locked writes).
//! - [`blocks`], [`collections`], [`games`], [`import`], [`people`], [`positions`],
//!   [`refused`], [`removals`], [`snapshots`], [`sources`], [`verify`]:
//!   the statements, one module per table family, named after the tables.
//! - [`model`], [`ids`], [`kind`], [`fold`], [`counts`], [`moves`],
//!   [`records`], [`budget`], [`progress`]: the plain types and codecs the
//!   rows are made of (ids, game summaries, folded names, the move and
//!   record encodings, a search's time budget).
//! - [`error`]: the store's one error type.

pub mod blocks;
pub mod budget;
pub mod collections;
pub mod counts;
pub mod error;
pub mod fold;
pub mod games;
pub mod handles;
pub mod ids;
pub mod import;
pub mod kind;
pub mod model;
pub mod moves;
pub mod param;
pub mod people;
pub mod positions;
mod postgres;
pub mod progress;
pub mod records;
pub mod refused;
pub mod removals;
pub mod sequences;
pub mod snapshots;
pub mod sources;
pub mod sql;
mod sqlite;
pub mod verify;

pub use error::{Error, Result, StorageError};
pub use handles::{Place, ReadConnection, ReadPool, Writer, check_schema, schema_versions};
pub use postgres::redacted;
pub use sequences::Sequences;
pub use sql::{Backend, Read, Row, Write};
pub use sqlite::schema_version;
