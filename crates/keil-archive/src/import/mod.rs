//! The import pipeline: sources → read → validate in parallel → deduplicate
//! → batched transactions (games, people, position index, import log:
//! [`write`](mod@write)) → text index.

pub(crate) mod collection;
mod merge;
pub(crate) mod prepare;
mod repair;
mod run;
mod write;

pub use keil_store::model::MergeKind;
pub use repair::MergeRepair;
pub(crate) use repair::repair_merges;
pub(crate) use run::import;
pub use write::REMOVED;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rayon::prelude::*;
use serde::Serialize;

use keil_container::Member;

use crate::error::Result;
use crate::import::prepare::{Checked, Prepare, prepare};
use crate::people::SpellingCache;
use keil_store::ids::{GameId, ImportId};
use keil_store::model::refused::Problem;
use keil_store::progress::ImportProgress;

/// Where games come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImportSource {
    /// A file, or a directory searched recursively for `.keil`, `.kaomi` and `.sgf`
    /// files (in name order).
    Path(PathBuf),
    /// Standard input, read to the end.
    Stdin,
    /// Bytes in memory, with a name for reports.
    Bytes {
        /// The name used in reports and the import log.
        name: String,
        /// The collection's bytes.
        bytes: Vec<u8>,
    },
}

/// How often the progress callback hears from an import that is waiting
/// for its next batch.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// How to import.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    /// Games per transaction (default 2,000). A kill loses at most the
    /// batch in flight; each batch is all-or-nothing.
    pub batch_size: usize,
    /// Whether the report lists what became of every game tree, with the
    /// validator's verdict on it ([`ImportReport::outcomes`]); off by
    /// default, since a large import needs only the counts and the refused
    /// games.
    pub outcomes: bool,
    /// A file is read in parts of about this many bytes (default
    /// [`keil_record::PART_BYTES`], 32 MiB), each starting at a game tree:
    /// collections larger than the parser's file-size limit are imported
    /// whole, with at most one part's trees in memory.
    pub part_bytes: usize,
    /// How many game trees of each fate (stored, duplicate, refused) the
    /// report lists, in [`ImportReport::outcomes`] and
    /// [`ImportReport::invalid`]; `None` (the default): all. The counts
    /// ([`ImportReport::counts`], [`ImportReport::reasons`]) stay exact
    /// and every refusal is still written to the import log: a caller that
    /// answers strangers (the server) keeps its answer and its memory
    /// bounded however many trees a body holds.
    pub listed: Option<usize>,
    /// Who imported, recorded in the import log (`imports.uploader`): the
    /// name of the server token that uploaded the games; `None` for a
    /// local `keil import`.
    pub uploader: Option<String>,
    /// The collection every stored game goes to (`keil import
    /// --collection NAME`); `None`: the uploader's name, else the folder
    /// or archive each game's source names (`import/collection.rs`).
    pub collection: Option<String>,
    /// The bounds on archives and compressed files read
    /// ([`keil_container::Limits`]: uncompressed bytes, bytes per member,
    /// members, nesting depth).
    pub limits: keil_container::Limits,
    /// What counts as a game already stored (default
    /// [`Duplicates::Signature`]).
    pub duplicates: Duplicates,
    /// Aliases added before the first game is read (`alias`, `name`), as
    /// [`Archive::add_alias`](crate::Archive::add_alias) adds them: `keil import --aliases FILE`
    /// ([`crate::read_aliases`]). A pair whose names are already one person
    /// is passed over.
    pub aliases: Vec<(String, String)>,
    /// Whether a refused game tree's text is kept with its refusal
    /// (default true; [`crate::Archive::refused_record`]): a server keeps
    /// those of its operator's uploads only. A tree that did not parse
    /// into one (a source that is not SGF, a file with no game tree) has
    /// no text to keep.
    pub keep_refused: bool,
}

/// What counts as a game already stored (docs/collections.md,
/// "Duplicates").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Duplicates {
    /// The same normalised record (the content hash), or the same game as
    /// the moves and game information prove it (`import/merge.rs`,
    /// go-rules.md "Metadata"; the game signature, `moves::signature`,
    /// only proposes the candidates): a record of a stored game published
    /// with other headers, in another orientation, cut short, transposed
    /// or with a few moves written wrong is linked to that game as another
    /// source's record ([`Fate::Merged`]), not stored as a second game; a
    /// record with the same moves and game information of another game (a
    /// replay) is stored and linked to it as similar.
    #[default]
    Signature,
    /// The same normalised record only: records that differ in any header
    /// are two games.
    Exact,
}

impl Default for ImportOptions {
    fn default() -> ImportOptions {
        ImportOptions {
            batch_size: 2_000,
            outcomes: false,
            part_bytes: keil_record::PART_BYTES,
            listed: None,
            uploader: None,
            collection: None,
            limits: keil_container::Limits::default(),
            duplicates: Duplicates::default(),
            aliases: Vec::new(),
            keep_refused: true,
        }
    }
}

/// What became of one game tree of an import, in reading order, and what
/// the validator said about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameOutcome {
    /// Stored, duplicate or refused (in JSON: the `outcome` tag and its
    /// fields).
    #[serde(flatten)]
    pub fate: Fate,
    /// The verdict (or read error) behind the fate, as keil-record gives
    /// it: a caller shows the full verdict from here instead of reading and
    /// validating the game again. Not serialised.
    #[serde(skip)]
    pub checked: Checked,
}

impl GameOutcome {
    /// The file (`-` for standard input, or the name given to bytes).
    pub fn source(&self) -> &str {
        match &self.fate {
            Fate::Stored { source, .. }
            | Fate::Duplicate { source, .. }
            | Fate::Merged { source, .. } => source,
            Fate::Invalid(p) => &p.source,
        }
    }

    /// 0-based index of the game tree in its file.
    pub fn index(&self) -> usize {
        match &self.fate {
            Fate::Stored { index, .. }
            | Fate::Duplicate { index, .. }
            | Fate::Merged { index, .. } => *index,
            Fate::Invalid(p) => p.index,
        }
    }
}

/// What an import did with one game tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Fate {
    /// Newly stored as game `id`.
    Stored {
        /// The file (`-` for standard input, or the name given to bytes).
        source: String,
        /// 0-based index of the game tree in its file.
        index: usize,
        /// The new game's id.
        id: GameId,
    },
    /// Already in the archive (same normalised record) as game `id`.
    Duplicate {
        /// The file (`-` for standard input, or the name given to bytes).
        source: String,
        /// 0-based index of the game tree in its file.
        index: usize,
        /// The id of the game already stored.
        id: GameId,
    },
    /// The same game as stored game `id`, as the moves and game
    /// information prove it, in another record: kept as another source's
    /// record of that game ([`Duplicates::Signature`]).
    Merged {
        /// The file (`-` for standard input, or the name given to bytes).
        source: String,
        /// 0-based index of the game tree in its file.
        index: usize,
        /// The stored game it is a record of.
        id: GameId,
        /// How the record is that game.
        kind: MergeKind,
    },
    /// Refused, with the reason (also in [`ImportReport::invalid`]).
    Invalid(Problem),
}

/// What an import did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImportReport {
    /// The run in the import log.
    pub import_id: ImportId,
    /// Final counts.
    pub counts: ImportProgress,
    /// Every refused game with its reason (also in the import log), or the
    /// first [`ImportOptions::listed`] of them.
    pub invalid: Vec<Problem>,
    /// The records linked to a stored game as another source's record
    /// ([`Fate::Merged`]), in reading order (at most
    /// [`ImportOptions::listed`]).
    pub merged: Vec<Merge>,
    /// The number of refused games per reason code (exact, whatever
    /// [`ImportOptions::listed`] says).
    pub reasons: BTreeMap<String, u64>,
    /// What became of every game tree, in reading order, when
    /// [`ImportOptions::outcomes`] asked for it (at most
    /// [`ImportOptions::listed`] of each fate); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outcomes: Vec<GameOutcome>,
}

impl ImportReport {
    /// Game trees read per second of wall time.
    pub fn games_per_second(&self) -> f64 {
        self.counts.games_read as f64 / self.counts.elapsed.as_secs_f64().max(1e-9)
    }
}

/// A record linked to a stored game as another source's record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Merge {
    /// The file (`-` for standard input, or the name given to bytes).
    pub source: String,
    /// 0-based index of the game tree in its file.
    pub index: usize,
    /// The stored game it is a record of.
    pub id: GameId,
    /// How the record is that game.
    pub kind: MergeKind,
}

/// One prepared game tree and where it came from.
pub(crate) struct Item {
    /// The source's name.
    pub(crate) source: Arc<str>,
    /// The tree's index in its source, from 0.
    pub(crate) index: usize,
    pub(crate) prepared: Prepare,
    /// A refused tree's text as it came, when the import keeps refused
    /// records ([`ImportOptions::keep_refused`]).
    pub(crate) kept: Option<Box<keil_store::model::refused::Kept>>,
}

/// One batch of prepared games (one transaction), from one source or from
/// several small ones.
struct Batch {
    items: Vec<Item>,
}

/// Writes prepared items as one batch of import `import_id` through the
/// import's writer ([`write::write_batch`], duplicates by signature): how
/// [`crate::Archive::reindex`] stores the refused records that are valid
/// now. Returns what became of each item, in order.
///
/// # Errors
/// Storage errors (nothing of the batch is then stored).
pub(crate) fn write_items(
    writer: &mut keil_store::Writer,
    import_id: i64,
    items: Vec<Item>,
) -> Result<Vec<GameOutcome>> {
    let mut outcomes = Vec::new();
    let mut collections = collection::Collections::of_logged(writer.read(), import_id)?;
    write::write_batch(
        writer,
        write::Target {
            import_id,
            collections: &mut collections,
        },
        Batch { items },
        &mut SpellingCache::default(),
        Duplicates::default(),
        Some(&mut outcomes),
        |_| Ok(()),
    )?;
    Ok(outcomes)
}

/// Files up to this size are read in groups, a whole file per rayon task: a
/// folder of one-game files (the usual shape of real Go collections) is then
/// read in parallel and stored in full batches, not one transaction per file.
const SMALL_FILE: u64 = 1 << 20;

/// A group of small files is prepared at once when it holds this many bytes.
const GROUP_BYTES: u64 = 8 << 20;

impl Input {
    /// The source's name in reports.
    fn name(&self) -> String {
        match self {
            Input::File(p) => p.display().to_string(),
            Input::Bytes(n, _) => n.clone(),
        }
    }

    /// The source's size in bytes if it is small enough to be read in a
    /// group ([`SMALL_FILE`]); `None` for large sources.
    fn small_size(&self) -> Option<u64> {
        let len = match self {
            Input::File(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
            Input::Bytes(_, b) => b.len() as u64,
        };
        (len <= SMALL_FILE).then_some(len)
    }

    /// The source's bytes.
    fn read(self) -> std::io::Result<Vec<u8>> {
        match self {
            Input::File(p) => std::fs::read(&p),
            Input::Bytes(_, b) => Ok(b),
        }
    }
}

/// Where prepared games go; false once the writer stopped.
type ItemSink<'a> = dyn FnMut(Vec<Item>) -> bool + 'a;

/// A problem that stands for a whole source (unreadable, not SGF, an
/// archive that cannot be read): one refused item.
fn source_problem(name: &str, reason: &str, message: String) -> Item {
    let problem = Problem {
        source: name.to_string(),
        index: 0,
        reason: reason.into(),
        message,
        ply: None,
        mv: None,
        line: None,
        column: None,
    };
    Item {
        source: Arc::from(name),
        index: 0,
        prepared: Prepare::Invalid(problem, Checked::NotRead),
        kept: None,
    }
}

/// How one source's game trees are prepared: runs of at most `run` trees
/// in parallel, files read in parts of `part_bytes`, verdicts kept when
/// `keep`, refused trees' texts when `keep_refused`.
#[derive(Clone, Copy)]
struct Reading<'a> {
    run: usize,
    part_bytes: usize,
    keep: bool,
    keep_refused: bool,
    expander: &'a keil_container::Expander,
}

/// Reads one source and prepares its game trees, handing each run to
/// `sink`; a source whose content is an archive or a compressed file
/// (`x.sgf` that is gzip) is expanded first. False as soon as `sink`
/// returns false (the writer stopped).
fn prepare_source(input: Input, how: Reading<'_>, sink: &mut ItemSink<'_>) -> bool {
    let name = input.name();
    let bytes = match input.read() {
        Ok(b) => b,
        Err(e) => return sink(vec![source_problem(&name, "unreadable", e.to_string())]),
    };
    if keil_container::Format::sniff(&bytes).is_none() {
        return prepare_bytes(&name, &bytes, how, sink);
    }
    how.expander
        .expand_bytes(&name, bytes, &mut |member| match member {
            Member::Bytes { name, bytes } => prepare_bytes(&name, &bytes, how, sink),
            Member::Problem(p) => sink(vec![source_problem(&p.name, p.reason, p.message)]),
            Member::File(p) => prepare_source(Input::File(p), how, sink),
        })
}

/// Prepares the game trees of one source's bytes.
fn prepare_bytes(name: &str, bytes: &[u8], how: Reading<'_>, sink: &mut ItemSink<'_>) -> bool {
    let source: Arc<str> = Arc::from(name);
    let item = |index: usize, prepared: Prepare| Item {
        source: source.clone(),
        index,
        prepared,
        kept: None,
    };
    let decoded = keil_sgf::decode(bytes);
    if let Some(problem) = binary_problem(name, &decoded.text) {
        return sink(vec![item(0, Prepare::Invalid(problem, Checked::NotRead))]);
    }
    // A record without GM is Keil in a .keil file, Kaomi in a .kaomi file.
    let hint = keil_record::NameHint::of(name);
    // Part by part: a collection over the parser's size limit is read
    // whole, one part's trees at a time.
    for file in keil_record::ParsedFile::in_parts(&decoded, how.part_bytes) {
        let file = file.with_hint(hint);
        let base = file.first_game();
        if let Some(e) = file.file_error() {
            if !sink(vec![item(base, prepare(name, base, Err(e), how.keep))]) {
                return false;
            }
            continue;
        }
        let mut first = 0;
        while first < file.len() {
            let end = (first + how.run).min(file.len());
            let items: Vec<Item> = (first..end)
                .into_par_iter()
                .map(|i| {
                    let prepared = prepare(name, base + i, file.record(i), how.keep);
                    let kept = match &prepared {
                        Prepare::Invalid(..) if how.keep_refused => {
                            keil_store::model::refused::Kept::of_tree(&file, i, hint).map(Box::new)
                        }
                        _ => None,
                    };
                    Item {
                        kept,
                        ..item(base + i, prepared)
                    }
                })
                .collect();
            if !sink(items) {
                return false;
            }
            first = end;
        }
    }
    true
}

/// The reason code of a source that is binary data, not an SGF collection
/// (a zip file, an image, random bytes): refused whole, nothing of it
/// stored, by `keil import` and uploads alike.
pub const NOT_SGF: &str = "not_sgf";

/// Adds a written batch's games to the text index (uncommitted), after
/// the games other processes stored between the index's `at` and the
/// batch's first id; moves `at` to the batch's last id.
///
/// # Errors
/// Storage and tantivy errors.
fn text_of_batch(
    text: &mut crate::index::text::TextWriter<'_>,
    read: keil_store::Read<'_>,
    at: &mut i64,
    written: &write::Written,
) -> Result<()> {
    let Some(first) = written.new_games.first().map(|(id, _)| id.sql()) else {
        return Ok(());
    };
    if first > *at + 1 {
        text.add_stored(read, *at, first - 1)?;
    }
    for (id, fields) in &written.new_games {
        text.add(*id, fields)?;
        *at = id.sql();
    }
    Ok(())
}

/// The refusal of a source whose decoded text holds a NUL character: SGF
/// is text, and in every text encoding the decoder reads (UTF-16 included,
/// by its byte-order mark) a NUL stands for binary data. Without this
/// check the lenient parser found `(;` by chance in random bytes and
/// stored empty games.
fn binary_problem(source: &str, text: &str) -> Option<Problem> {
    let at = text.find('\0')?;
    let line = text[..at].bytes().filter(|&b| b == b'\n').count() + 1;
    Some(Problem {
        source: source.to_string(),
        index: 0,
        reason: NOT_SGF.into(),
        message: format!(
            "not an SGF collection: binary data (a NUL byte at line {line}); \
             send SGF text, or an archive (zip, tar, 7z) or compressed file (gzip, bzip2, xz, zstd) of SGF files"
        ),
        ply: None,
        mv: None,
        line: Some(line as u32),
        column: None,
    })
}

/// One expanded input: a record file on disk, or bytes in memory (standard
/// input, an upload, a member of an archive) with their name.
enum Input {
    File(PathBuf),
    Bytes(String, Vec<u8>),
}
