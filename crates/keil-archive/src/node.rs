//! [`Node`]: what this process holds of an archive, under the facade
//! ([`crate::Archive`]): the store's connections and the derived indexes it
//! keeps in step with the store, which every view reads.

use std::path::Path;
use std::sync::{Mutex, RwLock};

use crate::error::{Error, Result};
use crate::index::vocabulary::Vocabulary;
use crate::index::{self, facts, patterns, positions, text};
use crate::location::{Location, TANTIVY_DIR};

/// Opens a node's text index (a PostgreSQL archive's, in the node-local
/// `dir`), restored first from the store's latest snapshot when it lacks
/// more than 1/16 of the snapshot's games (`text::restore`). A snapshot
/// that does not restore is passed over: the catch-up then builds the
/// index from the games, as derived data never answers in place of the
/// store.
pub(crate) fn node_text_index(
    dir: &Path,
    readers: &keil_store::ReadPool,
) -> Result<text::TextIndex> {
    let tantivy = dir.join(TANTIVY_DIR);
    let current = text::TextIndex::open(&tantivy)?;
    // An index from a later state of the store (restored from a backup
    // since) is emptied first, then restored from the store's snapshot.
    // The store's state is read from the primary or from a replica that
    // has replayed as far as the index: a lagging replica is not taken
    // for a store behind it.
    readers.saw(current.indexed()?);
    current.forget_if_ahead(readers.get()?.read())?;
    match text::restore(current, &tantivy, readers.get()?.read()) {
        Ok(text) => Ok(text),
        Err(_) => text::TextIndex::open(&tantivy),
    }
}

/// How long an operation that changes games waits for the text index's
/// writer lock ([`Node::writers`]).
const WRITER_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The store and the derived indexes of one open archive in this process.
pub(crate) struct Node {
    pub(crate) location: Location,
    /// `None` when opened read-only.
    pub(crate) writer: Option<Mutex<keil_store::Writer>>,
    pub(crate) readers: keil_store::ReadPool,
    pub(crate) text: text::TextIndex,
    pub(crate) positions: positions::PositionIndex,
    pub(crate) patterns: patterns::PatternIndex,
    /// What searches filter, count and rank games on.
    pub(crate) facts: facts::Facts,
    /// Players' folded names and words, for fuzzy name search.
    pub(crate) vocabulary: RwLock<Vocabulary>,
    /// The last round of [`Node::catch_up`].
    pub(crate) follow: index::Follow,
}

/// The store's writer, locked ([`Node::writer`]). Dropping it forgets
/// the node's last catch-up round ([`index::Follow::forget`]), so that
/// this process's searches see what it wrote at once.
pub(crate) struct Writing<'a> {
    pub(crate) guard: std::sync::MutexGuard<'a, keil_store::Writer>,
    pub(crate) follow: &'a index::Follow,
}

impl std::ops::Deref for Writing<'_> {
    type Target = keil_store::Writer;

    fn deref(&self) -> &keil_store::Writer {
        &self.guard
    }
}

impl std::ops::DerefMut for Writing<'_> {
    fn deref_mut(&mut self) -> &mut keil_store::Writer {
        &mut self.guard
    }
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        self.follow.forget();
    }
}

impl Node {
    /// Whether the archive was opened read-only (no writer).
    pub(crate) fn is_read_only(&self) -> bool {
        self.writer.is_none()
    }

    /// Whether the text index follows the store: every node's but that of
    /// an embedded archive opened read-only, which writes nothing.
    pub(crate) fn text_follows(&self) -> bool {
        !(self.is_read_only() && self.location.is_embedded())
    }

    /// The writer connection, locked.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only archive.
    pub(crate) fn writer(&self) -> Result<Writing<'_>> {
        let writer = self.writer.as_ref().ok_or(Error::ReadOnly)?;
        Ok(Writing {
            guard: writer.lock().unwrap_or_else(|e| e.into_inner()),
            follow: &self.follow,
        })
    }

    /// Both writers, for an operation that changes games (an import, a
    /// removal, a reindex): the text index's writer (waiting up to
    /// [`WRITER_WAIT`] for another process's, which a reader process holds
    /// briefly while it catches the text index up) and then the store's,
    /// always in that order.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only archive; [`Error::Busy`] while
    /// another writer (an import) holds the text index; tantivy errors.
    pub(crate) fn writers(&self) -> Result<(text::TextWriter<'_>, Writing<'_>)> {
        if self.is_read_only() {
            return Err(Error::ReadOnly);
        }
        let text = self.text.writer_waiting(WRITER_WAIT)?.ok_or(Error::Busy)?;
        Ok((text, self.writer()?))
    }

    /// A read-only connection from the pool (returned on drop). For the
    /// crate's own queries and the position index; statements see WAL
    /// snapshots, so a reader never sees half an import batch.
    pub(crate) fn reader(&self) -> Result<keil_store::ReadConnection<'_>> {
        Ok(self.readers.get()?)
    }

    /// [`Archive::catch_up`](crate::Archive::catch_up): every derived index
    /// brought up to the store, the state they share kept for the next
    /// searches.
    pub(crate) fn catch_up(&self) -> Result<()> {
        let round = || -> Result<()> {
            let writes = self.follow.writes();
            let reader = self.reader()?;
            for _ in 0..2 {
                let (at, segments) = keil_store::positions::state(reader.read())?;
                // The pattern index is followed once something loaded it
                // (`keil serve --lazy-patterns` leaves it to the first
                // pattern search).
                let patterns = index::Derived::reached(&&self.patterns)?;
                let follows_patterns = patterns != keil_store::Sequences::default();
                if self.facts.at() == at
                    && (!follows_patterns || patterns == at)
                    && self.positions.holds(at, &segments)
                {
                    // The text index says how far it is in its own files:
                    // the store is read again only when it lags.
                    if self.text_follows() && self.text.indexed()? != at {
                        self.text.follow(reader.read())?;
                    }
                    // Later reads (a position search's confirmations) see
                    // at least the state the searches answer from.
                    self.readers.saw(at);
                    self.follow.keep(writes, at, segments);
                    return Ok(());
                }
                reader.snapshot(|conn| {
                    let to = self.facts.refresh(conn)?;
                    if follows_patterns {
                        self.patterns.refresh(conn)?;
                    }
                    self.positions.catch_up(conn, to.removals)
                })?;
            }
            Ok(())
        };
        round().inspect_err(|_| self.follow.forget())
    }
}
