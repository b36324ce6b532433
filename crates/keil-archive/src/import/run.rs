//! One import run, as three steps: the reader (the sources expanded and
//! their games prepared in parallel, full batches handed over a bounded
//! channel), the writer loop on the caller's thread (one transaction a
//! batch, the text index after it) and the report gathered as it goes.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::mpsc;
use std::time::Instant;

use rayon::prelude::*;

use keil_container::{Expander, Member};

use super::collection::Collections;
use super::write::{self, Written};
use super::{
    Batch, Fate, GROUP_BYTES, GameOutcome, ImportOptions, ImportReport, ImportSource, Input, Item,
    Merge, PROGRESS_EVERY, Reading, prepare_source, source_problem, text_of_batch,
};
use crate::error::{Error, Result};
use crate::index::text::TextWriter;
use crate::node::{Node, Writing};
use crate::people::SpellingCache;
use keil_store::Sequences;
use keil_store::ids::ImportId;
use keil_store::model::refused::Problem;
use keil_store::progress::ImportProgress;

/// What an import lists in its report, each kind up to
/// [`ImportOptions::listed`] of them.
#[derive(Clone, Copy)]
enum Slot {
    Stored,
    Duplicate,
    Problem,
    Refused,
    Merge,
    Merged,
}

/// How many of each [`Slot`] an import still lists (`None`: all).
struct Listed {
    left: Option<[usize; 6]>,
}

impl Listed {
    fn new(limit: Option<usize>) -> Listed {
        Listed {
            left: limit.map(|n| [n; 6]),
        }
    }

    /// Whether one more of `slot` is listed (and counts it).
    fn take(&mut self, slot: Slot) -> bool {
        match &mut self.left {
            None => true,
            Some(left) if left[slot as usize] > 0 => {
                left[slot as usize] -= 1;
                true
            }
            Some(_) => false,
        }
    }
}

/// The report as the batches are written.
struct Report {
    counts: ImportProgress,
    problems: Vec<Problem>,
    reasons: BTreeMap<String, u64>,
    outcomes: Vec<GameOutcome>,
    merged: Vec<Merge>,
    listed: Listed,
}

impl Report {
    fn new(listed: Option<usize>) -> Report {
        Report {
            counts: ImportProgress::default(),
            problems: Vec::new(),
            reasons: BTreeMap::new(),
            outcomes: Vec::new(),
            merged: Vec::new(),
            listed: Listed::new(listed),
        }
    }

    /// Counts one written batch, and lists what is still listed of it
    /// (`outcomes`: its games' outcomes, when they are kept).
    fn add(&mut self, written: Written, outcomes: Vec<GameOutcome>) {
        let counts = &mut self.counts;
        counts.games_read += written.read;
        counts.imported += written.new_games.len() as u64;
        counts.duplicates += written.duplicates;
        counts.invalid += written.problems.len() as u64;
        counts.merged += written.merged.len() as u64;
        counts.similar += written.similar;
        counts.promoted += written.promoted.len() as u64;
        for m in written.merged {
            if self.listed.take(Slot::Merge) {
                self.merged.push(m);
            }
        }
        for p in written.problems {
            *self.reasons.entry(p.reason.clone()).or_insert(0) += 1;
            if self.listed.take(Slot::Problem) {
                self.problems.push(p);
            }
        }
        let listed = &mut self.listed;
        self.outcomes.extend(outcomes.into_iter().filter(|o| {
            listed.take(match o.fate {
                Fate::Stored { .. } => Slot::Stored,
                Fate::Duplicate { .. } => Slot::Duplicate,
                Fate::Merged { .. } => Slot::Merged,
                Fate::Invalid(_) => Slot::Refused,
            })
        }));
    }

    /// The counts that the expansion keeps, as of now.
    fn expanded(&mut self, expander: &Expander, start: Instant) {
        self.counts.members = expander.members();
        self.counts.skipped = expander.skipped();
        self.counts.elapsed = start.elapsed();
    }
}

/// The text index's writer and where it stands during a run: it holds
/// every game up to `at` and the removals up to `start`'s.
struct Text<'a> {
    writer: TextWriter<'a>,
    start: Sequences,
    at: i64,
}

impl Text<'_> {
    /// Commits what the text index holds (every game up to `at`).
    fn commit(&mut self) -> Result<()> {
        self.writer.commit(Sequences {
            games: self.at,
            removals: self.start.removals,
        })
    }
}

/// [`Archive::import`](crate::Archive::import): see there.
pub(crate) fn import(
    node: &Node,
    sources: &[ImportSource],
    options: &ImportOptions,
    progress: &mut dyn FnMut(&ImportProgress),
) -> Result<ImportReport> {
    if node.is_read_only() {
        return Err(Error::ReadOnly);
    }
    let start = Instant::now();
    // A path that does not exist fails the import before it starts;
    // everything else is read as the import goes (archives stream).
    for s in sources {
        if let ImportSource::Path(p) = s {
            std::fs::metadata(p).map_err(|e| Error::io(p, e))?;
        }
    }
    let mut collections = Collections::of_import(sources, options)?;
    let expander = &Expander::new(options.limits, |p| keil_record::NameHint::is_record_file(p));
    let (text, mut conn) = node.writers()?;
    let mut text = begin_text(text, &conn)?;
    let import_id = begin(&mut conn, sources, options)?;
    let mut report = Report::new(options.listed);
    let (send, receive) = mpsc::sync_channel::<Batch>(2);
    let written: Result<()> = std::thread::scope(|scope| {
        // Reading and validating run there (rayon), writing on this thread.
        let reader = scope.spawn(move || read_sources(sources, options, expander, &send));
        let run = Run {
            import_id,
            options,
            expander,
            start,
        };
        let result = run.write_batches(
            &mut conn,
            &mut text,
            &mut collections,
            receive,
            &mut report,
            progress,
        );
        let _ = reader.join();
        result
    });
    if let Err(cause) = written {
        // Whole batches only were stored (each batch also counted itself
        // in the import log): the text index of their games is committed
        // if the storage still allows it, else it catches up on the next
        // open.
        report.counts.elapsed = start.elapsed();
        let _ = text.commit();
        return Err(Error::Stopped {
            progress: report.counts,
            cause: Box::new(cause),
        });
    }
    // What other processes stored or removed since the start is caught
    // up after the commit (nothing on an embedded archive, whose writers
    // are this import's).
    text.commit()?;
    text.writer.catch_up(conn.read())?;
    if !node.location.is_embedded() {
        text.writer.publish(&mut conn, false)?;
    }
    report.expanded(expander, start);
    keil_store::import::finish_import(
        conn.autocommit(),
        import_id,
        &keil_store::model::now(),
        &report.counts,
    )?;
    Ok(ImportReport {
        import_id: ImportId::from_sql(import_id),
        counts: report.counts,
        invalid: report.problems,
        merged: report.merged,
        reasons: report.reasons,
        outcomes: report.outcomes,
    })
}

/// The text index at the start of a run: games stored by an earlier,
/// interrupted run get their text first, so that the payload's "every id
/// up to N" stays true. Other processes may store batches between ours
/// (importers and nodes sharing a PostgreSQL archive): their games are
/// added from the store before ours.
fn begin_text<'a>(mut writer: TextWriter<'a>, conn: &Writing<'_>) -> Result<Text<'a>> {
    writer.catch_up(conn.read())?;
    let start = crate::index::Derived::reached(&writer)?;
    Ok(Text {
        writer,
        start,
        at: start.games,
    })
}

/// Adds the run's aliases and logs the run; returns its id.
fn begin(conn: &mut Writing<'_>, sources: &[ImportSource], options: &ImportOptions) -> Result<i64> {
    if !options.aliases.is_empty() {
        conn.transaction(|tx| -> Result<()> {
            for (alias, name) in &options.aliases {
                if keil_store::fold::person_key(alias) != keil_store::fold::person_key(name) {
                    crate::people::alias_in(tx, alias, name)?;
                }
            }
            Ok(())
        })?;
    }
    let names: Vec<String> = sources
        .iter()
        .map(|s| match s {
            ImportSource::Path(p) => p.display().to_string(),
            ImportSource::Stdin => "-".into(),
            ImportSource::Bytes { name, .. } => name.clone(),
        })
        .collect();
    Ok(keil_store::import::start_import(
        conn.autocommit(),
        &keil_store::model::now(),
        &names.join("\n"),
        options.uploader.as_deref(),
    )?)
}

/// The reader: expands `sources` and prepares their games, handing full
/// batches to the writer over `send` until the sources end or the writer
/// stops (it drops its end of the channel).
fn read_sources(
    sources: &[ImportSource],
    options: &ImportOptions,
    expander: &Expander,
    send: &mpsc::SyncSender<Batch>,
) {
    let batch_size = options.batch_size.max(1);
    // Games wait here until they fill a batch.
    let mut pending: Vec<Item> = Vec::new();
    // Adds prepared games and hands full batches to the writer; false
    // once the writer stopped.
    let mut add = |items: Vec<Item>| -> bool {
        pending.extend(items);
        while pending.len() >= batch_size {
            let rest = pending.split_off(batch_size);
            let items = std::mem::replace(&mut pending, rest);
            if send.send(Batch { items }).is_err() {
                return false;
            }
        }
        true
    };
    let how = Reading {
        run: batch_size,
        part_bytes: options.part_bytes.max(1),
        // Verdicts travel with the games only when the outcomes are kept.
        keep: options.outcomes,
        keep_refused: options.keep_refused,
        expander,
    };
    let mut group = Group::default();
    // Each input as the expansion finds it: false once the writer stopped.
    let mut on_member = |member: Member| -> bool {
        let input = match member {
            Member::File(p) => Input::File(p),
            Member::Bytes { name, bytes } => Input::Bytes(name, bytes),
            Member::Problem(p) => {
                let mut items = group.prepare(how);
                items.push(source_problem(&p.name, p.reason, p.message));
                return add(items);
            }
        };
        if let Some(len) = input.small_size() {
            if group.push(input, len, batch_size) {
                return add(group.prepare(how));
            }
            return true;
        }
        if !group.is_empty() && !add(group.prepare(how)) {
            return false;
        }
        prepare_source(input, how, &mut add)
    };
    for s in sources {
        if !expand(s, expander, &mut on_member) {
            return;
        }
    }
    if !group.is_empty() && !add(group.prepare(how)) {
        return;
    }
    if !pending.is_empty() {
        let _ = send.send(Batch { items: pending });
    }
}

/// Small files, prepared a group at a time, one file a task, in input
/// order.
#[derive(Default)]
struct Group {
    inputs: Vec<Input>,
    bytes: u64,
}

impl Group {
    fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    /// Adds a small input of `len` bytes; true when the group is full.
    fn push(&mut self, input: Input, len: u64, batch_size: usize) -> bool {
        self.bytes += len;
        self.inputs.push(input);
        self.bytes >= GROUP_BYTES || self.inputs.len() >= batch_size
    }

    /// The group's games, prepared in parallel; the group is left empty.
    fn prepare(&mut self, how: Reading<'_>) -> Vec<Item> {
        self.bytes = 0;
        std::mem::take(&mut self.inputs)
            .into_par_iter()
            .flat_map_iter(|input| {
                let mut out = Vec::new();
                prepare_source(input, how, &mut |items| {
                    out.extend(items);
                    true
                });
                out
            })
            .collect()
    }
}

/// Expands one source into `on_member`; false once it said stop. A
/// source that cannot be read is one problem member.
fn expand(
    source: &ImportSource,
    expander: &Expander,
    on_member: &mut dyn FnMut(Member) -> bool,
) -> bool {
    let unreadable = |name: String, e: std::io::Error| {
        Member::Problem(keil_container::Problem {
            name,
            reason: "unreadable",
            message: e.to_string(),
        })
    };
    match source {
        ImportSource::Path(p) => expander
            .expand_path(p, &mut *on_member)
            .unwrap_or_else(|e| on_member(unreadable(p.display().to_string(), e))),
        ImportSource::Stdin => {
            let mut bytes = Vec::new();
            match std::io::stdin().read_to_end(&mut bytes) {
                Ok(_) => expander.expand_bytes("-", bytes, on_member),
                Err(e) => on_member(unreadable("-".into(), e)),
            }
        }
        ImportSource::Bytes { name, bytes } => {
            expander.expand_bytes(name, bytes.clone(), on_member)
        }
    }
}

/// What the writer loop keeps of the run.
struct Run<'a> {
    import_id: i64,
    options: &'a ImportOptions,
    expander: &'a Expander,
    start: Instant,
}

impl Run<'_> {
    /// The writer loop: each batch in one transaction, then its games'
    /// text; the progress after every batch and every [`PROGRESS_EVERY`]
    /// between batches. Stops at the first error, closing the channel
    /// (which stops the reader).
    fn write_batches(
        &self,
        conn: &mut Writing<'_>,
        text: &mut Text<'_>,
        collections: &mut Collections,
        receive: mpsc::Receiver<Batch>,
        report: &mut Report,
        progress: &mut dyn FnMut(&ImportProgress),
    ) -> Result<()> {
        let mut spellings = SpellingCache::default();
        loop {
            // The members an archive yields move on before a batch fills.
            let batch = match receive.recv_timeout(PROGRESS_EVERY) {
                Ok(batch) => batch,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    report.expanded(self.expander, self.start);
                    progress(&report.counts);
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
            };
            let mut these = Vec::new();
            let written = write::write_batch(
                conn,
                write::Target {
                    import_id: self.import_id,
                    collections: &mut *collections,
                },
                batch,
                &mut spellings,
                self.options.duplicates,
                self.options.outcomes.then_some(&mut these),
                |_| Ok(()),
            )?;
            let indexed = text_of_batch(&mut text.writer, conn.read(), &mut text.at, &written);
            report.add(written, these);
            report.expanded(self.expander, self.start);
            progress(&report.counts);
            indexed?;
        }
    }
}
