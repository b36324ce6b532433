//! [`Archive`]: an open archive, the facade every caller holds.

use std::path::Path;
use std::sync::Mutex;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::games::Games;
use crate::import;
use crate::import::MergeRepair;
use crate::index::{self, facts, patterns, positions, text};
use crate::location::{Location, SQLITE_FILE, TANTIVY_DIR};
use crate::memory::{IndexMemory, Pins};
use crate::node::Node;
use crate::patterns::Patterns;
use crate::players::Players;
use crate::positions::Positions;
use keil_store::kind::GameKind;
use keil_store::model::GameStatus;

mod upkeep;

/// An open archive. `Send + Sync`: share one behind an `Arc`; queries take a
/// pooled read connection each, imports serialise on the writer.
pub struct Archive {
    /// The store's connections and this process's derived indexes.
    pub(crate) node: Node,
    /// What the merge repair of schema 14 did when this open carried it
    /// out.
    pub(crate) upgraded: Option<MergeRepair>,
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
        let readers = keil_store::ReadPool::open(&place, read_only)?;
        let mut upgraded = None;
        let (writer, text) = if read_only && embedded {
            (None, Archive::embedded_text(&location, &dir)?)
        } else if read_only {
            (None, Archive::node_text(&dir, &readers)?)
        } else {
            let (writer, text, repaired) = Archive::writer_and_text(&dir, &readers, embedded)?;
            upgraded = repaired;
            (Some(Mutex::new(writer)), text)
        };
        let archive = Archive {
            node: Node {
                readers,
                writer,
                text,
                positions: positions::PositionIndex::default(),
                patterns: patterns::PatternIndex::default(),
                facts: facts::Facts::default(),
                vocabulary: Default::default(),
                follow: index::Follow::default(),
                location,
            },
            upgraded,
        };
        if read_only {
            let conn = archive.node.reader()?;
            keil_store::check_schema(conn.read())?;
            if let Some(reason) = positions::pending_upgrade(conn.read())? {
                return Err(Error::NeedsUpgrade(reason));
            }
        }
        Ok(archive)
    }

    /// The text index of an embedded archive opened read-only, as it is
    /// (a read-only open writes nothing).
    ///
    /// # Errors
    /// [`Error::Io`] when no archive is there; [`Error::NeedsUpgrade`] for
    /// a store without a text index (`keil backup`'s copy).
    fn embedded_text(location: &Location, dir: &std::path::Path) -> Result<text::TextIndex> {
        if !Archive::exists(location.clone()) {
            let e = std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("no archive here (no {SQLITE_FILE})"),
            );
            return Err(Error::io(dir, e));
        }
        if !dir.join(TANTIVY_DIR).is_dir() {
            // A store alone (`keil backup`'s copy): its text index is
            // built by a read-write open.
            return Err(Error::NeedsUpgrade(format!(
                "it has no text index yet ({TANTIVY_DIR}/): a read-write open builds it from the store"
            )));
        }
        text::TextIndex::open_read_only(&dir.join(TANTIVY_DIR))
    }

    /// A node's text index, in its node directory `dir`: its own, so it
    /// is caught up from the store even when the store is only read.
    fn node_text(dir: &std::path::Path, readers: &keil_store::ReadPool) -> Result<text::TextIndex> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let text = crate::node::node_text_index(dir, readers)?;
        if let Some(mut w) = text.try_writer()? {
            w.catch_up(readers.get()?.read())?;
        }
        Ok(text)
    }

    /// The writer of a read-write open, with the open-time upgrades done
    /// (position keys, segment nonces, the merge repair, whose report it
    /// returns, the collections of games stored before them), and the text index caught up with the store (restored
    /// or published on PostgreSQL).
    fn writer_and_text(
        dir: &std::path::Path,
        readers: &keil_store::ReadPool,
        embedded: bool,
    ) -> Result<(keil_store::Writer, text::TextIndex, Option<MergeRepair>)> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let mut writer = keil_store::Writer::open(readers)?;
        positions::upgrade_keys(&mut writer)?;
        positions::fill_nonces(writer.autocommit())?;
        let upgraded = import::repair_merges(&mut writer)?;
        import::collection::label_earlier_games(&mut writer)?;
        let text = if embedded {
            let text = text::TextIndex::open(&dir.join(TANTIVY_DIR))?;
            // An index from a later state of the store (the store
            // restored from a backup under it) is emptied, then caught up
            // below.
            text.forget_if_ahead(writer.read())?;
            text
        } else {
            crate::node::node_text_index(dir, readers)?
        };
        if let Some(mut w) = text.try_writer()? {
            w.catch_up(writer.read())?;
            if !embedded {
                w.publish(&mut writer, false)?;
            }
        }
        Ok((writer, text, upgraded))
    }

    /// What this open's upgrade of the archive did (schema 14's merge
    /// repair: [`MergeRepair`]), for the caller to tell the operator;
    /// `None` when there was nothing to upgrade.
    pub fn upgraded(&self) -> Option<&MergeRepair> {
        self.upgraded.as_ref()
    }

    /// Whether the archive was opened with [`Archive::open_read_only`].
    pub fn is_read_only(&self) -> bool {
        self.node.is_read_only()
    }

    /// Whether `location` holds an archive (so that [`Archive::open`]
    /// would open it rather than create one).
    /// A PostgreSQL location exists when its database answers and has
    /// the archive's schema.
    pub fn exists(location: impl Into<Location>) -> bool {
        match location.into() {
            Location::Directory(dir) => dir.join(SQLITE_FILE).is_file(),
            location @ Location::Postgres { .. } => {
                keil_store::ReadPool::open(&location.place(), true)
                    .and_then(|pool| keil_store::check_schema(pool.get()?.read()))
                    .is_ok()
            }
        }
    }

    /// Where the archive lives.
    pub fn location(&self) -> Location {
        self.node.location.clone()
    }

    /// The archive's node-local directory (an embedded archive's: where
    /// its store and text index files are; a PostgreSQL archive's: where
    /// this process keeps its text index and caches).
    pub fn dir(&self) -> &Path {
        self.node.location.dir()
    }

    /// Keeps this node's derived copies in directory `dir` (created if
    /// needed; node-local, one directory per archive), so that a node start
    /// reads them instead of deriving them again; they are a cache, never
    /// trusted over the store:
    ///
    /// - the position index's segments as files, mapped instead of read
    ///   from the store, their pages the system's page cache
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
        self.node.positions.cache_in(dir)?;
        self.node.patterns.cache_in(dir);
        Ok(())
    }

    /// Brings every derived index this node holds (the game facts, the
    /// position index, the pattern index once loaded, the text index) up
    /// to the store, and keeps the state they then share, so that
    /// searches for the next second answer from it without reading the
    /// store's state each (on a database server, a round trip per search
    /// fewer). A server calls it every [`CATCH_UP_EVERY`](crate::CATCH_UP_EVERY) (250 ms): what
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
        self.node.catch_up()
    }

    /// The game queries.
    pub fn games(&self) -> Games<'_> {
        Games { node: &self.node }
    }

    /// The player queries.
    pub fn players(&self) -> Players<'_> {
        Players { node: &self.node }
    }

    /// The position queries.
    pub fn positions(&self) -> Positions<'_> {
        Positions { node: &self.node }
    }

    /// The pattern queries.
    pub fn patterns(&self) -> Patterns<'_> {
        Patterns { node: &self.node }
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
        let (counts, refused_records) = self.node.reader()?.snapshot(|read| -> Result<_> {
            Ok((
                keil_store::games::counts(read)?,
                keil_store::refused::count(read)?,
            ))
        })?;
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
            text_documents: self.node.text.num_docs()?,
            store_bytes: self.node.readers.bytes()?,
            tantivy_bytes: dir_size(&self.dir().join(TANTIVY_DIR)),
        })
    }
}

/// What the node's indexes hold in memory (`memory.rs`).
impl Archive {
    /// What the position and pattern indexes hold now, in the heap and
    /// mapped (bytes).
    pub fn index_memory(&self) -> IndexMemory {
        let mut positions = self.node.positions.held();
        positions.heap += self.node.facts.heap_bytes();
        IndexMemory {
            positions,
            patterns: self.node.patterns.held(),
            pinned: 0,
        }
    }

    /// Copies mapped parts of the loaded indexes into the heap, hottest
    /// first, until the two indexes hold `budget` bytes of heap
    /// (`keil serve --index-memory`), and says what each holds after:
    ///
    /// 1. the pattern index's region segments (every corner search reads a
    ///    few runs of them, at random places);
    /// 2. the position segments, oldest first (a whole-board search reads
    ///    one block of each);
    /// 3. the pattern index's first-life columns, then its events (the
    ///    scans of side and wildcard patterns read them all, in order,
    ///    which the system's read-ahead serves well from disk).
    ///
    /// An array is copied whole when it fits in what is left of the budget
    /// and skipped otherwise. What the heap holds already (the per-game
    /// parts, every index without a cache directory, the parts added since
    /// a snapshot) is counted first and stays, even past the budget. Call
    /// after the loads ([`Positions::load`](crate::Positions::load),
    /// [`Patterns::load`](crate::Patterns::load)): parts loaded later (the
    /// segments of later imports, mapped when a cache directory is set)
    /// are not pinned. Searches meanwhile wait for the pattern index's
    /// pinning (a copy: about a second a GB) and go on with the mapped
    /// position segments they hold.
    pub fn pin_indexes(&self, budget: u64) -> IndexMemory {
        let mut pins = Pins::new(budget.saturating_sub(self.index_memory().heap()));
        self.node.patterns.pin_regions(&mut pins);
        self.node.positions.pin(&mut pins);
        self.node.patterns.pin_scanned(&mut pins);
        IndexMemory {
            pinned: pins.pinned,
            ..self.index_memory()
        }
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
