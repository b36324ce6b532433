//! The storage seam: what the archive asks of its store, and the embedded
//! backend that answers it (`sqlite/`, the only one today; every SQL
//! statement of the archive is meant to live under it).
//!
//! The neutral types here name the store's sequences, which every derived
//! index catches up on: games are added with ascending ids that are never
//! given again, and removals are numbered by their own sequence.

mod sqlite;

pub use sqlite::schema_version;
pub(crate) use sqlite::{
    Read, ReadConnection, ReadPool, Write, Writer, check_schema, out_of_space, unwritable,
};
pub(crate) use sqlite::{blocks, games, import, people, positions, removals};

/// How far the store has gone: the greatest game id given and the last
/// removal's sequence number (0 for none). A derived index that has added
/// every game up to `games` and applied every removal up to `removals`
/// answers as the store does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Sequences {
    /// The greatest game id given (0 for none): stored, or since removed.
    /// It only grows (ids are never given again).
    pub games: i64,
    /// The last removal's sequence number (0 for none).
    pub removals: i64,
}

impl Sequences {
    /// Reads both sequences in one statement (call it inside the read
    /// snapshot the caller searches).
    ///
    /// # Errors
    /// Storage errors.
    pub(crate) fn read(conn: Read<'_>) -> crate::Result<Sequences> {
        removals::sequences(conn)
    }
}
