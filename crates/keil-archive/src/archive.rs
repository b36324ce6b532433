//! [`Archive`]: an open archive, the facade every caller holds.

use std::path::Path;
use std::sync::Mutex;

use serde::Serialize;

use crate::budget::Budget;
use crate::error::{Error, Result};
use crate::games::Games;
use crate::ids::GameId;
use crate::import::MergeRepair;
use crate::index::patterns::Patterns;
use crate::index::positions::Positions;
use crate::index::text::query::TextPlan;
use crate::index::{self, facts, patterns, positions, text};
use crate::kind::GameKind;
use crate::location::{Location, SQLITE_FILE, TANTIVY_DIR};
use crate::model::{GameStatus, GameSummary};
use crate::players::Players;
use crate::{import, players, refused, store};

/// Opens a node's text index (a PostgreSQL archive's, in the node-local
/// `dir`), restored first from the store's latest snapshot when it lacks
/// more than 1/16 of the snapshot's games (`text::restore`). A snapshot
/// that does not restore is passed over: the catch-up then builds the
/// index from the games, as derived data never answers in place of the
/// store.
fn node_text_index(dir: &Path, readers: &store::ReadPool) -> Result<text::TextIndex> {
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
/// writer lock ([`Archive::writers`]).
const WRITER_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// An open archive. `Send + Sync`: share one behind an `Arc`; queries take a
/// pooled read connection each, imports serialise on the writer.
pub struct Archive {
    pub(crate) location: Location,
    /// `None` when opened read-only.
    pub(crate) writer: Option<Mutex<store::Writer>>,
    pub(crate) readers: store::ReadPool,
    pub(crate) text: text::TextIndex,
    pub(crate) positions: positions::PositionIndex,
    pub(crate) patterns: patterns::PatternIndex,
    /// What searches filter, count and rank games on.
    pub(crate) facts: facts::Facts,
    /// Players' folded names and words, for fuzzy name search.
    pub(crate) vocabulary: std::sync::RwLock<players::Vocabulary>,
    /// The last round of [`Archive::catch_up`].
    pub(crate) follow: index::Follow,
    /// What the merge repair of schema 14 did when this open carried it
    /// out.
    pub(crate) upgraded: Option<MergeRepair>,
}

/// The store's writer, locked ([`Archive::writer`]). Dropping it forgets
/// the node's last catch-up round ([`index::Follow::forget`]), so that
/// this process's searches see what it wrote at once.
pub(crate) struct Writing<'a> {
    pub(crate) guard: std::sync::MutexGuard<'a, store::Writer>,
    pub(crate) follow: &'a index::Follow,
}

impl std::ops::Deref for Writing<'_> {
    type Target = store::Writer;

    fn deref(&self) -> &store::Writer {
        &self.guard
    }
}

impl std::ops::DerefMut for Writing<'_> {
    fn deref_mut(&mut self) -> &mut store::Writer {
        &mut self.guard
    }
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        self.follow.forget();
    }
}

/// A full-text match.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TextHit {
    /// The game.
    pub game: GameSummary,
    /// tantivy's BM25 score (higher is better).
    pub score: f32,
}

/// Sizes and counts of an archive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Stored games.
    pub games: u64,
    /// People: players' names as one identity per person (spellings
    /// folded and aliased together, docs/collections.md "Players").
    pub players: u64,
    /// Import runs logged.
    pub imports: u64,
    /// Refused games logged over all imports: one line a refusal (a
    /// record refused twice is two lines), whether its record is kept or
    /// not.
    pub refused: u64,
    /// Refused records kept ([`Archive::refused_list`]): each refused
    /// record's text once, as it came.
    pub refused_records: u64,
    /// Games per status.
    pub by_status: Vec<(GameStatus, u64)>,
    /// Games per kind (the kinds with games).
    pub by_kind: Vec<(GameKind, u64)>,
    /// Games per board: (kind, size: the hexagon's side or the square's,
    /// games), by kind then size.
    pub by_board: Vec<(GameKind, u8, u64)>,
    /// Games in the text index.
    pub text_documents: u64,
    /// Bytes on disk of the store, the source of truth: the embedded
    /// store's SQLite database and write-ahead log, or a PostgreSQL
    /// archive's tables with their indexes and out-of-line data.
    pub store_bytes: u64,
    /// Bytes on disk of the text index (the tantivy directory).
    pub tantivy_bytes: u64,
}

impl Stats {
    /// Bytes on disk of the whole archive: the store and the text index.
    pub fn bytes_on_disk(&self) -> u64 {
        self.store_bytes + self.tantivy_bytes
    }

    /// Bytes on disk per stored game ([`Stats::bytes_on_disk`] over the
    /// games); 0 for an empty archive.
    pub fn bytes_per_game(&self) -> u64 {
        self.bytes_on_disk().checked_div(self.games).unwrap_or(0)
    }
}

/// What a [`Archive::reindex`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ReindexReport {
    /// Games indexed.
    pub games: u64,
    /// Kept refused records checked again with today's rules.
    pub refused_checked: u64,
    /// Of those, the ones valid now and stored as games (their refused
    /// records are deleted, as are those of records valid now that were
    /// already stored).
    pub refused_stored: u64,
}

fn dir_size(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_size(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

impl Archive {
    /// Opens the archive at `location` (a directory: any path converts
    /// into a [`Location`]), creating the directory and an empty archive if
    /// needed. Applies pending schema migrations, then adds
    /// to the text index the games it lacks (those stored by an import that
    /// was killed), unless an import is running in another process.
    ///
    /// # Errors
    /// [`Error::Io`] when the directory cannot be created; SQLite, migration
    /// and tantivy errors (e.g. an archive from a newer version); on a
    /// read-only or full volume, errors for which
    /// [`Error::is_unwritable`] holds.
    pub fn open(location: impl Into<Location>) -> Result<Archive> {
        Archive::open_in(location.into(), false)
    }

    /// Opens the existing archive at `location` for reading only: no
    /// file or directory is created, written or locked (no migration, no
    /// text-index catch-up, no tantivy lock file), so it works on a
    /// read-only or full volume and beside a writer in another process.
    /// Writes ([`Archive::import`], [`Archive::reindex`],
    /// [`Archive::compact`]) fail with [`Error::ReadOnly`].
    ///
    /// While no process has the archive open for writing, SQLite reads the
    /// file as immutable (no `-wal`/`-shm` files, no locks); once a writer
    /// appears, new read connections follow its commits. Games that a
    /// killed import stored but did not index are not found by text search
    /// until a read-write open catches the index up; on a read-only volume,
    /// games still in a leftover WAL file without its `-shm` file are not
    /// seen (a read-write open folds them in).
    ///
    /// # Errors
    /// [`Error::Io`] when `location` holds no archive; [`Error::NeedsUpgrade`]
    /// for an archive that a read-write open would migrate;
    /// [`Error::TooNew`] for one written by a newer version; SQLite and
    /// tantivy errors.
    pub fn open_read_only(location: impl Into<Location>) -> Result<Archive> {
        Archive::open_in(location.into(), true)
    }

    /// The one home of opening, read-write or read-only.
    fn open_in(location: Location, read_only: bool) -> Result<Archive> {
        let dir = location.dir().to_path_buf();
        let place = location.place();
        let embedded = location.is_embedded();
        let readers = store::ReadPool::open(&place, read_only)?;
        let mut upgraded = None;
        let (writer, text) = if read_only && embedded {
            if !Archive::exists(location.clone()) {
                let e = std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("no archive here (no {SQLITE_FILE})"),
                );
                return Err(Error::io(&dir, e));
            }
            if !dir.join(TANTIVY_DIR).is_dir() {
                // A store alone (`keil backup`'s copy): its text index is
                // built by a read-write open.
                return Err(Error::NeedsUpgrade(format!(
                    "it has no text index yet ({TANTIVY_DIR}/): a read-write open builds it from the store"
                )));
            }
            (
                None,
                text::TextIndex::open_read_only(&dir.join(TANTIVY_DIR))?,
            )
        } else if read_only {
            // A node's text index is its own: it is caught up from the
            // store even when the store is only read.
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            let text = node_text_index(&dir, &readers)?;
            if let Some(mut w) = text.try_writer()? {
                w.catch_up(readers.get()?.read())?;
            }
            (None, text)
        } else {
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            let mut writer = store::Writer::open(&readers)?;
            positions::upgrade_keys(&mut writer)?;
            positions::fill_nonces(writer.autocommit())?;
            upgraded = import::repair_merges(&mut writer)?;
            let text = if embedded {
                let text = text::TextIndex::open(&dir.join(TANTIVY_DIR))?;
                // An index from a later state of the store (the store
                // restored from a backup under it) is emptied, then
                // caught up below.
                text.forget_if_ahead(writer.read())?;
                text
            } else {
                node_text_index(&dir, &readers)?
            };
            if let Some(mut w) = text.try_writer()? {
                w.catch_up(writer.read())?;
                if !embedded {
                    w.publish(&mut writer, false)?;
                }
            }
            (Some(Mutex::new(writer)), text)
        };
        let archive = Archive {
            readers,
            writer,
            text,
            positions: positions::PositionIndex::default(),
            patterns: patterns::PatternIndex::default(),
            facts: facts::Facts::default(),
            vocabulary: Default::default(),
            follow: index::Follow::default(),
            location,
            upgraded,
        };
        if read_only {
            let conn = archive.reader()?;
            store::check_schema(conn.read())?;
            if let Some(reason) = positions::pending_upgrade(conn.read())? {
                return Err(Error::NeedsUpgrade(reason));
            }
        }
        Ok(archive)
    }

    /// What this open's upgrade of the archive did (schema 14's merge
    /// repair: [`MergeRepair`]), for the caller to tell the operator;
    /// `None` when there was nothing to upgrade.
    pub fn upgraded(&self) -> Option<&MergeRepair> {
        self.upgraded.as_ref()
    }

    /// Whether the archive was opened with [`Archive::open_read_only`].
    pub fn is_read_only(&self) -> bool {
        self.writer.is_none()
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

    /// Whether `location` holds an archive (so that [`Archive::open`]
    /// would open it rather than create one).
    /// A PostgreSQL location exists when its database answers and has
    /// the archive's schema.
    pub fn exists(location: impl Into<Location>) -> bool {
        match location.into() {
            Location::Directory(dir) => dir.join(SQLITE_FILE).is_file(),
            location @ Location::Postgres { .. } => store::ReadPool::open(&location.place(), true)
                .and_then(|pool| store::check_schema(pool.get()?.read()))
                .is_ok(),
        }
    }

    /// Where the archive lives.
    pub fn location(&self) -> Location {
        self.location.clone()
    }

    /// The archive's node-local directory (an embedded archive's: where
    /// its store and text index files are; a PostgreSQL archive's: where
    /// this process keeps its text index and caches).
    pub fn dir(&self) -> &Path {
        self.location.dir()
    }

    /// Keeps this node's derived copies in directory `dir` (created if
    /// needed; node-local, one directory per archive), so that a node start
    /// reads them instead of deriving them again; they are a cache, never
    /// trusted over the store:
    ///
    /// - the position index's segments as files, mapped instead of read
    ///   from the store (milliseconds instead of ~8 s a million 19×19
    ///   games, measured on one core), their pages the system's page cache
    ///   rather than the heap; one whose length or nonce is not its
    ///   segment's is read again from the store, and the files of segments
    ///   merged away are deleted (~3.4 KB a 19×19 Go game, ~1.3 KB a side-7
    ///   Keil game);
    /// - the pattern index as one snapshot file (`patterns.snapshot`, about
    ///   the index's size in memory: ~3.4 KB a 19×19 Go game), read in one
    ///   pass by [`Patterns::load`] when its fingerprint and checksum say it
    ///   is this archive's, then caught up from the pattern blocks.
    ///
    /// Call before the first search; the first call wins. Files are written
    /// atomically; a cache that cannot be written (a full disk) is skipped.
    ///
    /// # Errors
    /// [`Error::Io`] when `dir` cannot be created or opened.
    pub fn cache_in(&self, dir: impl AsRef<Path>) -> Result<()> {
        let dir = dir.as_ref();
        self.positions.cache_in(dir)?;
        self.patterns.cache_in(dir);
        Ok(())
    }

    /// Brings every derived index this node holds (the game facts, the
    /// position index, the pattern index once loaded, the text index) up
    /// to the store, and keeps the state they then share, so that
    /// searches for the next second answer from it without reading the
    /// store's state each (on a database server, a round trip per search
    /// fewer). A server calls it every [`CATCH_UP_EVERY`] (250 ms): what
    /// other nodes and importers
    /// store or remove is then found within about that; what this process
    /// writes, at once. Nothing is kept when the indexes could not be
    /// brought to one state in two tries (writes kept coming): searches
    /// then read the state themselves, as without this call.
    ///
    /// # Errors
    /// Storage errors (the last round is then forgotten); the indexes'
    /// own errors, as a search would meet them.
    pub fn catch_up(&self) -> Result<()> {
        let round = || -> Result<()> {
            let writes = self.follow.writes();
            let reader = self.reader()?;
            for _ in 0..2 {
                let (at, segments) = store::positions::state(reader.read())?;
                // The pattern index is followed once something loaded it
                // (`keil serve --lazy-patterns` leaves it to the first
                // pattern search).
                let patterns = index::Derived::reached(&&self.patterns)?;
                let follows_patterns = patterns != store::Sequences::default();
                if self.facts.at() == at
                    && (!follows_patterns || patterns == at)
                    && self.positions.holds(at, &segments)
                {
                    // The text index says how far it is in its own files:
                    // the store is read again only when it lags.
                    if !(self.is_read_only() && self.location.is_embedded())
                        && self.text.indexed()? != at
                    {
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

    /// A read-only connection from the pool (returned on drop). For the
    /// crate's own queries and the position index; statements see WAL
    /// snapshots, so a reader never sees half an import batch.
    pub(crate) fn reader(&self) -> Result<store::ReadConnection<'_>> {
        self.readers.get()
    }

    /// The game queries.
    pub fn games(&self) -> Games<'_> {
        Games { archive: self }
    }

    /// The player queries.
    pub fn players(&self) -> Players<'_> {
        Players { archive: self }
    }

    /// The position queries.
    pub fn positions(&self) -> Positions<'_> {
        Positions { archive: self }
    }

    /// The pattern queries.
    pub fn patterns(&self) -> Patterns<'_> {
        Patterns { archive: self }
    }

    /// Games whose players, event, place, game name or comments match
    /// `query`, best first, at most `limit`. The query is read by
    /// [`TextPlan::parse`]: words that must all occur (case and accents
    /// ignored, each in any field), `"phrases"`, `player:`, `event:`,
    /// `place:`, `name:`,
    /// `comment:` to restrict a word or phrase to one field, `-word` to
    /// exclude; anything else (brackets, `AND`, a lone quote, `a:b:c`) is
    /// searched as words, never a syntax error. A query with no word to
    /// find (only punctuation, or only excluded words) finds nothing.
    ///
    /// # Errors
    /// [`Error::TextQuery`] for a query over [`MAX_TEXT_QUERY_BYTES`] or
    /// [`MAX_TEXT_QUERY_WORDS`]; tantivy and SQLite errors.
    pub fn search_text(&self, query: &str, limit: usize) -> Result<Vec<TextHit>> {
        self.search_text_within(query, limit, &Budget::unlimited())
    }

    /// [`Archive::search_text`] under a time budget, checked before the
    /// text index is searched and before the games are read.
    ///
    /// # Errors
    /// [`Error::OverBudget`] when `budget` is spent; as
    /// [`Archive::search_text`].
    pub fn search_text_within(
        &self,
        query: &str,
        limit: usize,
        budget: &Budget,
    ) -> Result<Vec<TextHit>> {
        let plan = TextPlan::parse(query)?;
        budget.check()?;
        // An embedded archive opened read-only writes nothing, its text
        // index included; every other follows the store (a fresh catch-up
        // round has).
        if !(self.is_read_only() && self.location.is_embedded()) && self.follow.current().is_none()
        {
            self.text.follow(self.reader()?.read())?;
        }
        let found = self.text.search(&plan, limit, budget)?;
        budget.check()?;
        let ids: Vec<GameId> = found.iter().map(|(id, _)| *id).collect();
        let games = self.games().summaries(&ids)?;
        let mut by_id: std::collections::HashMap<GameId, GameSummary> =
            games.into_iter().map(|g| (g.id, g)).collect();
        Ok(found
            .into_iter()
            .filter_map(|(id, score)| by_id.remove(&id).map(|game| TextHit { game, score }))
            .collect())
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
        self.writer()?.cap_pages(extra_pages)
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
        let (mut text, mut conn) = self.writers()?;
        // Refused records valid under today's rules become games first,
        // so the rebuild below indexes them.
        let refused = refused::revalidate(&mut conn)?;
        conn.transaction(|tx| {
            positions::rebuild(tx)?;
            patterns::rebuild_blocks(tx)
        })?;
        text.clear()?;
        let now = store::Sequences::read(conn.read())?;
        let games = text.add_stored(conn.read(), 0, now.games)?;
        text.commit(now)?;
        // A new node restores the rebuilt index, not the one before.
        if !self.location.is_embedded() {
            text.publish(&mut conn, true)?;
        }
        Ok(ReindexReport {
            games,
            refused_checked: refused.checked,
            refused_stored: refused.stored,
        })
    }

    /// Counts and sizes. The counts are those the import keeps as it
    /// writes (schema/0006_counts.sql), read in one query, and the kept
    /// refused records (the rows of one partial index): the time does not
    /// grow with the number of games (only the tantivy directory's files
    /// are listed for its size).
    ///
    /// # Errors
    /// SQLite and tantivy errors.
    pub fn stats(&self) -> Result<Stats> {
        // One connection and one snapshot for both counts.
        let (counts, refused_records) = self
            .reader()?
            .snapshot(|read| Ok((store::games::counts(read)?, store::refused::count(read)?)))?;
        let by_board = counts.by_board();
        let by_kind = GameKind::ALL
            .into_iter()
            .map(|k| (k, by_board.iter().filter(|b| b.0 == k).map(|b| b.2).sum()))
            .filter(|&(_, n)| n > 0)
            .collect();
        Ok(Stats {
            games: counts.get("games"),
            players: counts.get("people"),
            imports: counts.get("imports"),
            refused: counts.get("import_problems"),
            refused_records,
            by_status: counts.by_status(),
            by_kind,
            by_board,
            text_documents: self.text.num_docs()?,
            store_bytes: self.readers.bytes()?,
            tantivy_bytes: dir_size(&self.dir().join(TANTIVY_DIR)),
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
        self.writer()?.compact()
    }
}

/// Imports the games `config` generates into `archive`, as one file: how
/// the unit tests fill an archive.
#[cfg(test)]
pub(crate) fn import_generated(archive: &Archive, config: keil_gen::GeneratorConfig) {
    let bytes: Vec<u8> = keil_gen::Generator::new(config)
        .unwrap()
        .flat_map(|g| g.record.into_bytes())
        .collect();
    let source = crate::import::ImportSource::Bytes {
        name: "gen".into(),
        bytes,
    };
    archive
        .import(
            &[source],
            &crate::import::ImportOptions::default(),
            &mut |_| {},
        )
        .unwrap();
}
