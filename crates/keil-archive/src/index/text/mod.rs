//! The tantivy text index: event, place, game name and comments of every
//! game, tokenised with case and accents folded. It stores nothing but the
//! game id (a fast field); SQLite has the rest.
//!
//! The index commit payload is the highest game id the index holds: every
//! game with a larger id in SQLite is missing and gets added by
//! [`TextWriter::catch_up`]. Imports hold the writer lock for their whole
//! run, so ids are indexed in order.
//!
//! A read-only archive opens the index through [`ReadOnlyDirectory`]: no
//! lock file, no write, no writer.

use std::io;
use std::path::Path;
use std::sync::Arc;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
};
use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query, TermQuery};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, Schema, Term, TextFieldIndexing, TextOptions,
};
use tantivy::{
    Index, IndexReader, IndexWriter, ReloadPolicy, SegmentOrdinal, SegmentReader, TantivyDocument,
    TantivyError,
};

use crate::error::{Error, Result};
use crate::index::{Changes, Derived};
pub(crate) use fields::{TextFields, text_fields};
use keil_store::budget::Budget;
use keil_store::ids::GameId;
use keil_store::{Read, Sequences};
use query::{TextClause, TextField, TextPlan};

mod fields;
pub(crate) mod page;
pub(crate) mod query;
mod snapshot;

pub(crate) use snapshot::restore;

const TOKENIZER: &str = "keil_folded";
/// Memory for the index writer (one thread).
const WRITER_MEMORY: usize = 32 * 1024 * 1024;

#[derive(Clone, Copy)]
struct Fields {
    game_id: Field,
    players: Field,
    event: Field,
    place: Field,
    game_name: Field,
    comment: Field,
}

pub(crate) struct TextIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
}

/// The tantivy writer, held by one import (or catch-up, or reindex) at a
/// time.
pub(crate) struct TextWriter<'a> {
    text: &'a TextIndex,
    writer: IndexWriter,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields = Fields {
        game_id: b.add_u64_field("game_id", INDEXED | FAST),
        players: b.add_text_field("players", text.clone()),
        event: b.add_text_field("event", text.clone()),
        place: b.add_text_field("place", text.clone()),
        game_name: b.add_text_field("name", text.clone()),
        comment: b.add_text_field("comment", text),
    };
    (b.build(), fields)
}

/// The index directory of a read-only archive: reads go to tantivy's
/// [`MmapDirectory`]; every write fails with [`io::ErrorKind::ReadOnlyFilesystem`];
/// locks are granted without a lock file. tantivy takes its meta lock
/// while a reader opens segment files, so that a writer's garbage
/// collection does not delete them meanwhile: without it, a writer in
/// another process that merges segments at that moment makes the open (or
/// a reload) fail, and a retry succeeds.
#[derive(Clone, Debug)]
struct ReadOnlyDirectory(MmapDirectory);

fn read_only_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::ReadOnlyFilesystem,
        "the text index is open read-only",
    )
}

impl Directory for ReadOnlyDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.0.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        Err(DeleteError::IoError {
            io_error: Arc::new(read_only_error()),
            filepath: path.to_path_buf(),
        })
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.0.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        Err(OpenWriteError::IoError {
            io_error: Arc::new(read_only_error()),
            filepath: path.to_path_buf(),
        })
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.0.atomic_read(path)
    }

    fn atomic_write(&self, _path: &Path, _data: &[u8]) -> io::Result<()> {
        Err(read_only_error())
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    fn acquire_lock(&self, _lock: &Lock) -> Result<DirectoryLock, LockError> {
        Ok(DirectoryLock::from(Box::new(())))
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.0.watch(watch_callback)
    }
}

/// Removes an index's files: the directory is emptied (made anew).
fn remove_index_files(dir: &Path) -> Result<()> {
    std::fs::remove_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))
}

impl TextIndex {
    /// Opens the index in `dir`, creating the directory and an empty index
    /// if needed.
    pub(crate) fn open(dir: &Path) -> Result<TextIndex> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let (schema, _) = schema();
        let mmap = MmapDirectory::open(dir).map_err(TantivyError::from)?;
        match Index::open_or_create(mmap, schema.clone()) {
            Ok(index) => TextIndex::with_index(index),
            // An index of an older schema (before the players field): it
            // is derived, so it is made anew, empty, and the catch-up
            // fills it from SQLite (every game after id 0).
            Err(TantivyError::SchemaError(_)) => {
                remove_index_files(dir)?;
                let mmap = MmapDirectory::open(dir).map_err(TantivyError::from)?;
                TextIndex::with_index(Index::create(mmap, schema, Default::default())?)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Opens the existing index in `dir` for reading only: nothing in `dir`
    /// is created or locked; [`TextIndex::try_writer`] then fails.
    pub(crate) fn open_read_only(dir: &Path) -> Result<TextIndex> {
        let mmap = MmapDirectory::open(dir).map_err(TantivyError::from)?;
        TextIndex::with_index(Index::open(ReadOnlyDirectory(mmap))?)
    }

    fn with_index(index: Index) -> Result<TextIndex> {
        let (_, fields) = schema();
        index.tokenizers().register(TOKENIZER, query::analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(TextIndex {
            index,
            reader,
            fields,
        })
    }

    /// How far the committed index has caught up with the store: every
    /// game up to `games` added, every removal up to `removals` applied
    /// (zeros when empty). The commit payload is `games removals`; an index
    /// written before removals existed holds `games` alone.
    pub(crate) fn indexed(&self) -> Result<Sequences> {
        let metas = self.index.load_metas()?;
        let payload = metas.payload.unwrap_or_default();
        let mut parts = payload.split(' ').map(|p| p.parse::<i64>().unwrap_or(0));
        Ok(Sequences {
            games: parts.next().unwrap_or(0),
            removals: parts.next().unwrap_or(0),
        })
    }

    /// Catches the index up with what other processes stored (a node of a
    /// shared PostgreSQL archive: another node's uploads and removals)
    /// when the store's sequences are past [`TextIndex::indexed`]: the
    /// cost of a search that finds it caught up is one small query and a
    /// read of tantivy's `meta.json`. Skipped while another writer (an
    /// import) holds the index: it brings the index up to date itself.
    ///
    /// # Errors
    /// Storage and tantivy errors.
    pub(crate) fn follow(&self, read: Read<'_>) -> Result<()> {
        let (at, to) = (self.indexed()?, Sequences::read(read)?);
        if at.games >= to.games && at.removals >= to.removals {
            return Ok(());
        }
        if let Some(mut w) = self.try_writer()? {
            w.catch_up(read)?;
        }
        Ok(())
    }

    /// Empties the index (documents deleted, sequences back to none) when
    /// it holds more than the store: its sequences past the store's. That
    /// is an index written from a later state of the store than the one
    /// now there: a store restored from a backup (`keil backup`,
    /// `pg_restore`) under an archive or node directory whose index was
    /// caught up since. Such an index would answer games the store does
    /// not have and, never going back, never add the games the store
    /// gives those ids next; emptied, the catch-up (or, on a node, the
    /// store's text snapshot) fills it from the store. Returns whether it
    /// was emptied; nothing is done while another writer holds the index.
    ///
    /// # Errors
    /// Storage and tantivy errors.
    pub(crate) fn forget_if_ahead(&self, read: Read<'_>) -> Result<bool> {
        let (at, store) = (self.indexed()?, Sequences::read(read)?);
        if at.games <= store.games && at.removals <= store.removals {
            return Ok(false);
        }
        let Some(mut w) = self.try_writer()? else {
            return Ok(false);
        };
        w.clear()?;
        w.commit(Sequences::default())?;
        Ok(true)
    }

    /// Takes the writer lock; `Ok(None)` when another writer holds it.
    pub(crate) fn try_writer(&self) -> Result<Option<TextWriter<'_>>> {
        match self.index.writer_with_num_threads(1, WRITER_MEMORY) {
            Ok(writer) => Ok(Some(TextWriter { text: self, writer })),
            Err(TantivyError::LockFailure(..)) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Takes the writer lock, retrying for up to `wait`; `Ok(None)` when it
    /// is still held then.
    pub(crate) fn writer_waiting(
        &self,
        wait: std::time::Duration,
    ) -> Result<Option<TextWriter<'_>>> {
        let start = std::time::Instant::now();
        loop {
            if let Some(w) = self.try_writer()? {
                return Ok(Some(w));
            }
            if start.elapsed() >= wait {
                return Ok(None);
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Number of documents in the committed index.
    pub(crate) fn num_docs(&self) -> Result<u64> {
        self.reader.reload()?;
        Ok(self.reader.searcher().num_docs())
    }

    /// One page of the matches of `plan` ([`page`]): every match that
    /// `spec` keeps counted, the best `spec.limit` after its cursor
    /// listed, best first. `budget` is checked before each segment.
    ///
    /// # Errors
    /// The budget's error ([`crate::Error::OverBudget`]); tantivy's
    /// errors.
    pub(crate) fn search_page(
        &self,
        plan: &TextPlan,
        spec: page::PageSpec,
        budget: &Budget,
    ) -> Result<page::PageFruit> {
        if !plan.can_match() {
            return Ok(page::PageFruit::default());
        }
        self.reader.reload()?;
        let searcher = self.reader.searcher();
        let collector = Budgeted {
            inner: page::PageCollector(spec),
            budget,
        };
        match searcher.search(&self.plan_query(plan), &collector) {
            Ok(fruit) => Ok(fruit),
            Err(e) => {
                budget.check()?;
                Err(e.into())
            }
        }
    }

    /// The query of a plan: every clause must (or, excluded, must not)
    /// match.
    fn plan_query(&self, plan: &TextPlan) -> BooleanQuery {
        BooleanQuery::new(
            plan.clauses()
                .iter()
                .map(|c| {
                    let occur = if c.excluded {
                        Occur::MustNot
                    } else {
                        Occur::Must
                    };
                    (occur, self.clause_query(c))
                })
                .collect(),
        )
    }

    /// One clause: its word (or phrase) in its field, or in any field.
    fn clause_query(&self, c: &TextClause) -> Box<dyn Query> {
        let f = self.fields;
        let field = |t: TextField| match t {
            TextField::Player => f.players,
            TextField::Event => f.event,
            TextField::Place => f.place,
            TextField::Name => f.game_name,
            TextField::Comment => f.comment,
        };
        let in_field = |t: TextField| -> Box<dyn Query> {
            let mut terms: Vec<Term> = c
                .words
                .iter()
                .map(|w| Term::from_field_text(field(t), w))
                .collect();
            match terms.len() {
                1 => Box::new(TermQuery::new(
                    terms.remove(0),
                    IndexRecordOption::WithFreqs,
                )),
                _ => Box::new(PhraseQuery::new(terms)),
            }
        };
        match c.field {
            Some(t) => in_field(t),
            None => Box::new(BooleanQuery::new(
                TextField::ALL
                    .into_iter()
                    .map(|t| (Occur::Should, in_field(t)))
                    .collect(),
            )),
        }
    }
}

impl TextWriter<'_> {
    /// Adds one game's document (uncommitted).
    pub(crate) fn add(&mut self, id: GameId, t: &TextFields) -> Result<()> {
        let f = self.text.fields;
        let mut doc = TantivyDocument::default();
        doc.add_u64(f.game_id, id.get());
        if !t.players.is_empty() {
            doc.add_text(f.players, &t.players);
        }
        for (field, value) in [
            (f.event, &t.event),
            (f.place, &t.place),
            (f.game_name, &t.game_name),
        ] {
            if let Some(v) = value {
                doc.add_text(field, v);
            }
        }
        if !t.comments.is_empty() {
            doc.add_text(f.comment, &t.comments);
        }
        self.writer.add_document(doc)?;
        Ok(())
    }

    /// Removes every document (uncommitted).
    pub(crate) fn clear(&mut self) -> Result<()> {
        self.writer.delete_all_documents()?;
        Ok(())
    }

    /// Commits, recording how far the index has caught up (see
    /// [`TextIndex::indexed`]).
    pub(crate) fn commit(&mut self, at: Sequences) -> Result<()> {
        let mut prepared = self.writer.prepare_commit()?;
        prepared.set_payload(&format!("{} {}", at.games, at.removals));
        prepared.commit()?;
        self.text.reader.reload()?;
        Ok(())
    }

    /// Adds (uncommitted) every stored game with an id in `(after, upto]`,
    /// streaming. Returns the number of games added.
    pub(crate) fn add_stored(&mut self, conn: Read<'_>, after: i64, upto: i64) -> Result<u64> {
        let mut n = 0u64;
        keil_store::games::records_between(conn, after, upto, |game, blob| -> Result<()> {
            let fields = fields::text_of_stored(game, blob)?;
            self.add(game, &fields)?;
            n += 1;
            Ok(())
        })?;
        Ok(n)
    }

    /// Adds every game the store has and this index lacks, deletes the
    /// documents of games removed since the last commit, and commits when
    /// anything changed (through the catch-up loop, [`crate::index`]).
    pub(crate) fn catch_up(&mut self, conn: Read<'_>) -> Result<()> {
        crate::index::catch_up(conn, &mut [self]).map(drop)
    }
}

impl Derived for TextWriter<'_> {
    fn reached(&self) -> Result<Sequences> {
        self.text.indexed()
    }

    fn apply(&mut self, read: Read<'_>, changes: &Changes) -> Result<()> {
        let (to, at) = (changes.to, self.reached()?);
        if to.games > at.games {
            self.add_stored(read, at.games, to.games)?;
        }
        for id in changes.removed_after(at.removals) {
            self.writer
                .delete_term(Term::from_field_u64(self.text.fields.game_id, id as u64));
        }
        // The greatest id stays when that game was removed: ids are never
        // given again.
        let reached = Sequences {
            games: to.games.max(at.games),
            removals: to.removals.max(at.removals),
        };
        if reached != at {
            self.commit(reached)?;
        }
        Ok(())
    }
}

/// A collector that checks a search [`Budget`] before each segment (the
/// searcher calls `collect_segment` once per segment), then collects it as
/// `inner` does (its own per-segment path kept). Within a
/// segment the work is bounded by the query's 64 words.
struct Budgeted<'a, C> {
    inner: C,
    budget: &'a Budget,
}

impl<C: Collector> Budgeted<'_, C> {
    fn check(&self) -> tantivy::Result<()> {
        self.budget
            .check()
            .map_err(|e| TantivyError::InternalError(e.to_string()))
    }
}

impl<C: Collector> Collector for Budgeted<'_, C> {
    type Fruit = C::Fruit;
    type Child = C::Child;

    fn check_schema(&self, schema: &tantivy::schema::Schema) -> tantivy::Result<()> {
        self.inner.check_schema(schema)
    }

    fn for_segment(
        &self,
        segment_local_id: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<Self::Child> {
        self.inner.for_segment(segment_local_id, segment)
    }

    fn requires_scoring(&self) -> bool {
        self.inner.requires_scoring()
    }

    fn merge_fruits(
        &self,
        segment_fruits: Vec<<Self::Child as SegmentCollector>::Fruit>,
    ) -> tantivy::Result<Self::Fruit> {
        self.inner.merge_fruits(segment_fruits)
    }

    fn collect_segment(
        &self,
        weight: &dyn tantivy::query::Weight,
        segment_ord: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<<Self::Child as SegmentCollector>::Fruit> {
        self.check()?;
        self.inner.collect_segment(weight, segment_ord, reader)
    }
}

#[cfg(test)]
mod tests {
    use crate::archive::Archive;
    use crate::error::Error;
    use crate::import::{ImportOptions, ImportSource};
    use keil_store::budget::Budget;

    /// The text index checks the budget itself, segment by segment: a
    /// search whose budget is spent when tantivy starts on a segment ends
    /// with the budget's error, not with hits or a tantivy error.
    #[test]
    fn a_spent_budget_stops_the_search_at_the_first_segment() {
        let dir = tempfile::tempdir().unwrap();
        let archive = Archive::open(dir.path()).unwrap();
        let record = "(;GM[Keil]FF[4]SZ[3]KM[0]EV[Winter Cup]PB[A]PW[B];B[a1];W[b2])";
        let source = ImportSource::Bytes {
            name: "cup".into(),
            bytes: record.as_bytes().to_vec(),
        };
        archive
            .import(&[source], &ImportOptions::default(), &mut |_| {})
            .unwrap();
        let plan = super::query::TextPlan::parse("cup").unwrap();
        let spec = super::page::PageSpec {
            keep: None,
            after: None,
            limit: 10,
        };
        let found = archive
            .node
            .text
            .search_page(&plan, spec.clone(), &Budget::unlimited())
            .unwrap();
        assert_eq!((found.total, found.hits.len()), (1, 1));
        let spent = Budget::unlimited();
        spent.cancel();
        let refused = archive.node.text.search_page(&plan, spec, &spent);
        assert!(
            matches!(refused, Err(Error::OverBudget { .. })),
            "{refused:?}"
        );
    }
}
