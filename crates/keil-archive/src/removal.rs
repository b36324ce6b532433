//! Removal of games by the archive's operator (a junk upload, a takedown
//! request): the game leaves the store and every view in one transaction,
//! the removal is logged with who asked, when and why, and the derived
//! indexes catch up on it as they catch up on new games (the position
//! index forgets the game's summary and a merge drops its postings, the
//! pattern index masks it, the text index deletes its document). A record
//! of a removed game, or another record of the same game, is refused by
//! later imports (`removed`).

use serde::Serialize;

use crate::archive::Archive;
use crate::error::Result;
use crate::ids::GameId;
use crate::store::removals;

/// The longest reason kept with a removal, in bytes (longer ones are cut
/// at a character boundary).
pub const MAX_REASON_BYTES: usize = 500;

/// One removal in the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Removal {
    /// Its place in the removal sequence (1, 2, ...).
    pub seq: u64,
    /// The removed game's id (never given to another game).
    pub game_id: GameId,
    /// When, RFC 3339 UTC with milliseconds (`2026-11-26T09:30:00.000Z`).
    pub removed_at: String,
    /// Who asked: a server token's name, or the local user of `keil remove`.
    pub removed_by: String,
    /// Why, as given (empty when none was).
    pub reason: String,
    /// The game as a person names it: `Black vs White, date, event`.
    pub what: String,
}

fn cut(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

impl Archive {
    /// Removes game `id`: its rows, its place in every view and every
    /// derived index, in one transaction, logged with `by` (who asked) and
    /// `reason` (cut to [`MAX_REASON_BYTES`]). Returns the log entry, or
    /// `None` when no game has that id (never stored, or already removed).
    ///
    /// Searches of this archive (and of other processes on it) stop
    /// finding the game from their next read on: each derived index
    /// applies removals before it answers. Its postings stay in the
    /// position segments, masked, until a merge drops them.
    ///
    /// # Errors
    /// [`crate::Error::ReadOnly`] for a read-only archive; [`crate::Error::Busy`] while
    /// an import runs (after waiting up to 5 s for it); storage and
    /// tantivy errors (the store's transaction is then rolled back).
    pub fn remove(&self, id: GameId, by: &str, reason: &str) -> Result<Option<Removal>> {
        let (mut text, mut conn) = self.writers()?;
        let at = crate::import::now();
        let reason = cut(reason, MAX_REASON_BYTES);
        let removed = conn.transaction(|tx| removals::remove(tx, id, &at, by, reason))?;
        if removed.is_some() {
            text.catch_up(conn.read())?;
        }
        Ok(removed)
    }

    /// How many games were removed (the removal sequence: the log is never
    /// pruned). One indexed read.
    ///
    /// # Errors
    /// Storage errors.
    pub fn removed_games(&self) -> Result<u64> {
        let conn = self.reader()?;
        Ok(crate::store::Sequences::read(conn.read())?.removals as u64)
    }

    /// The removal log, latest first, at most `limit` entries.
    ///
    /// # Errors
    /// Storage errors.
    pub fn removals(&self, limit: usize) -> Result<Vec<Removal>> {
        let conn = self.reader()?;
        removals::log(conn.read(), limit)
    }
}
