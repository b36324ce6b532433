//! [`Archive`]'s writes and upkeep: imports, removals, aliases, the kept
//! refused records, reindexing, compaction, verification and backups. Each
//! method hands the node to the module that owns the work.

use std::path::Path;

use super::{Archive, ReindexReport};
use crate::backup::BackupReport;
use crate::error::{Error, Result};
use crate::import::{ImportOptions, ImportReport, ImportSource};
use crate::index::{patterns, positions};
use crate::refused;
use crate::verify::{VerifyProgress, VerifyReport};
use keil_store::ids::{GameId, PlayerId, RefusedId};
use keil_store::model::Removal;
use keil_store::model::people::AliasReport;
use keil_store::model::refused::{
    RefusedFilter, RefusedLine, RefusedPage, RefusedRecord, RefusedSummary,
};
use keil_store::progress::ImportProgress;

impl Archive {
    /// Removes game `id`: its rows, its place in every view and every
    /// derived index, in one transaction, logged with `by` (who asked) and
    /// `reason` (cut to [`MAX_REASON_BYTES`](crate::MAX_REASON_BYTES)). Returns the log entry, or
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
        crate::removal::remove(&self.node, id, by, reason)
    }

    /// How many games were removed (the removal sequence: the log is never
    /// pruned). One indexed read.
    ///
    /// # Errors
    /// Storage errors.
    pub fn removed_games(&self) -> Result<u64> {
        crate::removal::removed_games(&self.node)
    }

    /// The removal log, latest first, at most `limit` entries.
    ///
    /// # Errors
    /// Storage errors.
    pub fn removals(&self, limit: usize) -> Result<Vec<Removal>> {
        crate::removal::removals(&self.node, limit)
    }

    /// Checks the store (see the module's documentation, `verify.rs`) in
    /// one read snapshot and reports every problem found; `progress` is
    /// told after each batch of games. Reads only: it works on an archive
    /// opened read-only and beside a server that writes.
    ///
    /// # Errors
    /// Storage errors that stop the reads themselves (a problem that the
    /// reads can go past is in the report instead).
    pub fn verify(&self, progress: &mut dyn FnMut(VerifyProgress)) -> Result<VerifyReport> {
        crate::verify::verify(&self.node, progress)
    }

    /// Copies the store into `dest`, a new archive directory (created;
    /// one that exists must be empty), as a consistent state of one
    /// commit, while other connections and processes go on writing (see
    /// `backup.rs`). `keil serve --db dest` then opens the copy and
    /// rebuilds its derived indexes.
    ///
    /// # Errors
    /// [`Error::Io`] when `dest` is a file or a directory that is not
    /// empty, or cannot be created, synced or renamed into;
    /// [`Error::Unsupported`] for a PostgreSQL archive (back it up with
    /// `pg_dump -Fc`); storage errors of the copy.
    pub fn backup(&self, dest: impl AsRef<Path>) -> Result<BackupReport> {
        crate::backup::backup(&self.node, dest)
    }

    /// Imports games: reads every source, validates the games in parallel,
    /// stores the valid ones not already present (same normalised record)
    /// in transactions of [`ImportOptions::batch_size`] games, logs refused
    /// games with their reasons, then indexes the new games' text.
    ///
    /// `progress` is called after every batch, and every 250 ms while the
    /// next batch is being read (archive members count on).
    ///
    /// A process killed during an import leaves whole batches only: a game
    /// is stored with its players, its log entry and its positions, or not
    /// at all. The text index catches up on the next open or import.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for an archive opened read-only (nothing is
    /// read); [`Error::Busy`] when another import runs on the archive (after waiting
    /// up to 5 s for the lock); [`Error::Io`]
    /// for a path that does not exist or a directory that cannot be listed
    /// (unreadable files inside a directory are reported as problems);
    /// SQLite and tantivy errors before the first batch;
    /// [`Error::Stopped`] for a failure while storing (a full disk:
    /// [`Error::is_out_of_space`]), with the counts of the batches
    /// committed before it, whose games stay stored.
    pub fn import(
        &self,
        sources: &[ImportSource],
        options: &ImportOptions,
        progress: &mut dyn FnMut(&ImportProgress),
    ) -> Result<ImportReport> {
        crate::import::import(&self.node, sources, options, progress)
    }

    /// Makes `alias` another name of the person `name` names (an
    /// operator's decision: `AlphaGo Master` is `AlphaGo`). Stored for
    /// later imports too: a game of any spelling with `alias`'s person key
    /// counts for `name`'s person. When both names already have games, the
    /// two people become one: their spellings, games and results are
    /// merged, and a game between them becomes a game against oneself
    /// (neither won nor lost), shown by the spelling most of their records
    /// use unless an operator named either ([`Archive::set_player_name`]).
    /// When only `alias` has games, its person takes `name` as the name
    /// shown, as [`Archive::set_player_name`] would set it.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only archive; [`Error::BadAlias`]
    /// when a name has no letter or digit or both are the same person key;
    /// SQLite errors.
    pub fn add_alias(&self, alias: &str, name: &str) -> Result<AliasReport> {
        crate::people::add_alias(&self.node, alias, name)
    }

    /// Shows the person `person` names (as [`Players::id_of`](crate::Players::id_of)
    /// reads a name: a spelling, an alias, the name shown, or `#ID`) by
    /// `name` from now on, whatever their records write (`Some`); or again
    /// by the spelling most of their records use (`None`). Returns the
    /// person.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only archive;
    /// [`Error::BadPlayerName`] when `person` names nobody or `name` has no
    /// letter or digit; storage errors.
    pub fn set_player_name(&self, person: &str, name: Option<&str>) -> Result<PlayerId> {
        crate::people::set_name(&self.node, person, name)
    }

    /// One page of the kept refused records that pass `filter`, at most
    /// `limit` (1..=[`MAX_REFUSED_PAGE`](crate::MAX_REFUSED_PAGE); other values are clamped).
    ///
    /// # Errors
    /// Storage errors.
    pub fn refused_list(&self, filter: &RefusedFilter, limit: usize) -> Result<RefusedPage> {
        crate::refused::refused_list(&self.node, filter, limit)
    }

    /// Kept refused record `id` with its text; `None` when no record is
    /// kept under that id (a refusal without a record, one removed, or
    /// none at all).
    ///
    /// # Errors
    /// Storage errors; a storage error for a kept text that does not
    /// decompress.
    pub fn refused_record(&self, id: RefusedId) -> Result<Option<RefusedRecord>> {
        crate::refused::refused_record(&self.node, id)
    }

    /// Kept refused record `id` with its main line replayed up to the
    /// refused move ([`RefusedLine`]); the line is `None` when the record
    /// does not read as one game or has no board to replay (a board the
    /// archive does not hold). `None` when no record is kept under `id`.
    ///
    /// # Errors
    /// As [`Archive::refused_record`].
    pub fn refused_line(
        &self,
        id: RefusedId,
    ) -> Result<Option<(RefusedRecord, Option<RefusedLine>)>> {
        crate::refused::refused_line(&self.node, id)
    }

    /// The number of kept refused records ([`crate::Stats::refused_records`]).
    ///
    /// # Errors
    /// Storage errors.
    pub fn refused_records(&self) -> Result<u64> {
        crate::refused::refused_records(&self.node)
    }

    /// Hands `each` every kept refused record in id order with its text as
    /// it came; `each` returns false to stop. Returns how many were
    /// handed over.
    ///
    /// # Errors
    /// Storage errors; a text that does not decompress; the first error
    /// of `each`.
    pub fn export_refused(
        &self,
        each: &mut dyn FnMut(&RefusedSummary, &str) -> Result<bool>,
    ) -> Result<u64> {
        crate::refused::export_refused(&self.node, each)
    }

    /// Removes kept refused record `id`: its text goes, its refusal stays
    /// in the import log (a later import of the same record keeps it
    /// again). Returns false when no record is kept under that id.
    ///
    /// # Errors
    /// [`crate::Error::ReadOnly`] for a read-only archive; storage errors.
    pub fn remove_refused(&self, id: RefusedId) -> Result<bool> {
        crate::refused::remove_refused(&self.node, id)
    }

    /// For tests of a full disk: caps the database at its current size plus
    /// `extra_pages` pages (`PRAGMA max_page_count` on the writer
    /// connection), so that a write past it fails with `SQLITE_FULL` as on
    /// a full volume. Returns the cap in pages. Not part of the API.
    ///
    /// # Errors
    /// SQLite errors.
    #[doc(hidden)]
    pub fn cap_pages_for_tests(&self, extra_pages: u64) -> Result<u64> {
        Ok(self.node.writer()?.cap_pages(extra_pages)?)
    }

    /// Checks every kept refused record again with today's rules (one
    /// valid now becomes a game through the import's writer, logged as an
    /// import run, and its refused record is deleted), then rebuilds the
    /// derived indexes from the store: the text index and the position
    /// and pattern indexes, from scratch.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only archive; [`Error::Busy`] while
    /// an import runs; tantivy and SQLite errors; [`Error::Corrupt`] when a
    /// stored record does not read back.
    pub fn reindex(&self) -> Result<ReindexReport> {
        if self.is_read_only() {
            return Err(Error::ReadOnly);
        }
        let (mut text, mut conn) = self.node.writers()?;
        // Refused records valid under today's rules become games first,
        // so the rebuild below indexes them.
        let refused = refused::revalidate(&mut conn)?;
        conn.transaction(|tx| {
            positions::rebuild(tx)?;
            patterns::rebuild_blocks(tx)
        })?;
        text.clear()?;
        let now = keil_store::Sequences::read(conn.read())?;
        let games = text.add_stored(conn.read(), 0, now.games)?;
        text.commit(now)?;
        // A new node restores the rebuilt index, not the one before.
        if !self.node.location.is_embedded() {
            text.publish(&mut conn, true)?;
        }
        Ok(ReindexReport {
            games,
            refused_checked: refused.checked,
            refused_stored: refused.stored,
        })
    }

    /// Compacts the store: gives back the space of deleted and rewritten
    /// data (the embedded store: SQLite's `VACUUM`, then the write-ahead
    /// log folded into the database).
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only archive; SQLite errors, e.g.
    /// while readers hold old snapshots.
    pub fn compact(&self) -> Result<()> {
        Ok(self.node.writer()?.compact()?)
    }
}
