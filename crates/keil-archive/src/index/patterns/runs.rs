//! A region index's entries as they are stored: segments sorted by key,
//! then game, each key's entries one run of bytes (see [`super::regions`]
//! for what the entries are and how segments are merged).
//!
//! A run is written in one of two encodings, chosen per run when it is
//! written (as Roaring chooses per container):
//!
//! - **varint** (most runs): each entry a varint game (the difference from
//!   the run's previous game, the first from 0), a varint node and the
//!   continuation byte: 3 to 4 bytes an entry. Merges copy such runs as
//!   they are, rewriting only their first game.
//! - **dense** (runs of at least [`DENSE_MIN`] entries whose games are at
//!   least an eighth of those they span: the common contents, say a 4-4
//!   stone in a corner): the marker [`DENSE`], the first game, the
//!   number of entries and of bitmap words (u32 little-endian each); a
//!   bit per game from the first (u64 little-endian words), set for each
//!   game with an entry; then the entries' nodes (u16 little-endian) and
//!   their continuation bytes, in game order. As small as the varints
//!   where a quarter of the games have an entry (an eighth of a byte a
//!   game, three bytes an entry), and read without a branch per entry on
//!   what the data holds: a search that reads a million such entries (the
//!   common wildcard corners) decodes them several times as fast.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use super::arrays::Array;
use crate::index::varint::{get_varint, put_varint};

/// One indexed content's first occurrence in one game, while gathered.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    pub(super) key: u64,
    pub(super) game: u32,
    pub(super) node: u16,
    /// The continuation byte: 0 for none, else `1 + (rank << 2 | white <<
    /// 1 | after tenuki)`.
    pub(super) next: u8,
}

/// A run's entry as read: `(game, node, continuation byte)`.
pub(crate) type Read = (u32, u16, u8);

/// The first two bytes of a dense run: no varint run starts so
/// (`put_varint` writes a first game of 0 as the one byte 0).
pub(super) const DENSE: [u8; 2] = [0x80, 0x00];

/// Bytes of a dense run before its bitmap: [`DENSE`], then its first game,
/// its entries and its bitmap's words (u32 each).
const DENSE_HEADER: usize = 14;

/// The fewest entries of a dense run (fewer in unit tests, so that their
/// small archives have some).
pub(super) const DENSE_MIN: usize = if cfg!(test) { 16 } else { 4096 };

/// Whether a run of `count` entries from game `first` to game `last` is
/// written dense: enough entries, and at least one for every eight games
/// spanned.
fn is_dense(count: usize, first: u32, last: u32) -> bool {
    count >= DENSE_MIN && ((last - first) as usize) / 8 < count
}

/// Entries sorted by key, then game; immutable once built (owned, or
/// mapped from the node's snapshot).
#[derive(Debug)]
pub(super) struct Segment {
    pub(super) keys: Array<u64>,
    /// `starts[i]..starts[i + 1]`: the bytes of `keys[i]`'s entries.
    pub(super) starts: Array<u64>,
    pub(super) data: Array<u8>,
    /// Per key, the last game of its run, so that a merge need not decode
    /// the run to find it; empty when not known (a segment read from a
    /// snapshot, cut by [`Segment::below`], or compacted: kept only while
    /// segments are merged during loads).
    pub(super) lasts: Vec<u32>,
    /// Added to every game of the runs (and of `lasts`): non-zero only for
    /// a segment read from a pattern block, whose games are numbered from
    /// the block's first game of its board, until it is merged (see
    /// [`Segment::read_block`]): lookups and merges add it.
    pub(super) base: u32,
}

/// A run as a merge takes it: its bytes, its last game when known, and
/// the base its games are numbered from (see [`Segment::base`]; the last
/// game includes it).
#[derive(Clone, Copy)]
struct Piece<'a> {
    bytes: &'a [u8],
    last: Option<u32>,
    base: u32,
}

impl<'a> Piece<'a> {
    /// Its entries, numbered with the base.
    fn run(&self) -> Run<'a> {
        Run::with_base(self.bytes, self.base)
    }
}

/// A [`Segment`] while it is written.
#[derive(Default)]
struct SegmentBuilder {
    keys: Vec<u64>,
    starts: Vec<u64>,
    data: Vec<u8>,
    /// Each key's last game, when every run it is written from has one.
    lasts: Option<Vec<u32>>,
}

/// The entries of one run, in game order, in either encoding.
pub(super) enum Run<'a> {
    Varint(Varint<'a>),
    Dense(Dense<'a>),
}

/// A varint run's entries: its bytes, where they are read to, and the
/// last game read.
pub(super) struct Varint<'a> {
    data: &'a [u8],
    at: usize,
    game: u32,
}

/// A dense run's entries: the bitmap's bytes, the nodes' and the
/// continuations', the word being read (its bits not yet read) and the
/// game of its bit 0, the next word, and the entries read.
pub(super) struct Dense<'a> {
    first: u32,
    bits: &'a [u8],
    nodes: &'a [u8],
    codes: &'a [u8],
    word: u64,
    base: u32,
    next_word: usize,
    read: usize,
}

/// A dense run's entries from its first; `None` for a run not dense, or
/// one whose header disagrees with its length.
fn dense_parts(data: &[u8]) -> Option<Dense<'_>> {
    if data.get(..2)? != DENSE || data.len() < DENSE_HEADER {
        return None;
    }
    let word = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().expect("4 bytes"));
    let (first, count, words) = (word(2), word(6) as usize, word(10) as usize);
    let (bits, rest) = data[DENSE_HEADER..].split_at_checked(words.checked_mul(8)?)?;
    let (nodes, codes) = rest.split_at_checked(count.checked_mul(2)?)?;
    (codes.len() == count).then_some(Dense {
        first,
        bits,
        nodes,
        codes,
        word: 0,
        base: first,
        next_word: 0,
        read: 0,
    })
}

impl<'a> Run<'a> {
    /// The entries of a run's bytes, from its first.
    pub(super) fn new(data: &'a [u8]) -> Run<'a> {
        Run::with_base(data, 0)
    }

    /// The entries of a run's bytes, from its first, `base` added to
    /// every game.
    fn with_base(data: &'a [u8], base: u32) -> Run<'a> {
        match dense_parts(data) {
            Some(mut dense) => {
                dense.first += base;
                dense.base = dense.first;
                Run::Dense(dense)
            }
            None => Run::Varint(Varint {
                data,
                at: 0,
                game: base,
            }),
        }
    }

    /// At most how many entries are left: a varint entry takes 3 bytes or
    /// more.
    pub(super) fn most_left(&self) -> usize {
        match self {
            Run::Varint(v) => (v.data.len() - v.at) / 3,
            Run::Dense(d) => d.codes.len() - d.read,
        }
    }

    /// Appends up to `n` more entries to `out` (fewer at the run's end), in
    /// a loop of the run's encoding.
    #[inline]
    pub(super) fn fill(&mut self, out: &mut Vec<Read>, n: usize) {
        match self {
            Run::Varint(v) => out.extend(v.take(n)),
            Run::Dense(d) => d.fill(out, n),
        }
    }
}

impl Dense<'_> {
    /// [`Run::fill`] of a dense run: the entries' nodes and continuations
    /// in order, each given the next set bit of the bitmap (a word loaded
    /// once its bits are used up).
    fn fill(&mut self, out: &mut Vec<Read>, n: usize) {
        let from = out.len();
        let end = self.codes.len().min(self.read.saturating_add(n));
        let nodes = &self.nodes[2 * self.read..2 * end];
        let codes = &self.codes[self.read..end];
        out.resize(from + codes.len(), (0, 0, 0));
        let entries = nodes.chunks_exact(2).zip(codes).zip(&mut out[from..]);
        for (written, ((node, &code), slot)) in entries.enumerate() {
            while self.word == 0 {
                let at = self.next_word * 8;
                let Some(word) = self.bits.get(at..at + 8) else {
                    // Fewer bits than entries: the run ends here.
                    self.read = self.codes.len();
                    out.truncate(from + written);
                    return;
                };
                self.word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                self.base = self.first + (self.next_word as u32) * 64;
                self.next_word += 1;
            }
            let bit = self.word.trailing_zeros();
            self.word &= self.word - 1;
            *slot = (
                self.base + bit,
                u16::from_le_bytes([node[0], node[1]]),
                code,
            );
        }
        self.read = end;
    }
}

impl Iterator for Run<'_> {
    type Item = Read;

    #[inline]
    fn next(&mut self) -> Option<Read> {
        match self {
            Run::Varint(v) => v.next(),
            Run::Dense(d) => d.next(),
        }
    }
}

impl Iterator for Varint<'_> {
    type Item = Read;

    #[inline]
    fn next(&mut self) -> Option<Read> {
        if self.at >= self.data.len() {
            return None;
        }
        let delta = get_varint(self.data, &mut self.at).expect("a run's entries are whole");
        let node = get_varint(self.data, &mut self.at).expect("a run's entries are whole");
        let next = self.data[self.at];
        self.at += 1;
        self.game += delta as u32;
        Some((self.game, node as u16, next))
    }
}

impl Iterator for Dense<'_> {
    type Item = Read;

    #[inline]
    fn next(&mut self) -> Option<Read> {
        while self.word == 0 {
            let at = self.next_word * 8;
            let word = self.bits.get(at..at + 8)?;
            self.word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            self.base = self.first + (self.next_word as u32) * 64;
            self.next_word += 1;
        }
        let bit = self.word.trailing_zeros();
        self.word &= self.word - 1;
        let i = self.read;
        let code = *self.codes.get(i)?;
        self.read += 1;
        let node = u16::from_le_bytes([self.nodes[2 * i], self.nodes[2 * i + 1]]);
        Some((self.base + bit, node, code))
    }
}

/// Appends a run of `entries` (`count` of them, games ascending from
/// `first` to `last`) to `data`, in the encoding [`is_dense`] picks.
fn put_run(
    data: &mut Vec<u8>,
    entries: impl Iterator<Item = Read>,
    count: usize,
    (first, last): (u32, u32),
) {
    if !is_dense(count, first, last) {
        let mut before = 0;
        for (game, node, next) in entries {
            put_varint(data, u64::from(game - before));
            put_varint(data, u64::from(node));
            data.push(next);
            before = game;
        }
        return;
    }
    put_dense(
        data,
        (first, last),
        count,
        &[Part::Entries(entries.collect())],
    );
}

/// Entries a dense run is written from: a dense run's, taken word by word
/// and array by array, or a list of them.
enum Part<'a> {
    Dense(Dense<'a>),
    Entries(Vec<Read>),
}

/// Appends a dense run of `parts` (`count` entries, games ascending from
/// part to part, from `first` to `last`) to `data`: a dense part's bitmap
/// is shifted into place a word at a time and its nodes and
/// continuations copied, so that merging dense runs decodes none.
fn put_dense(data: &mut Vec<u8>, (first, last): (u32, u32), count: usize, parts: &[Part<'_>]) {
    let words = (last - first) as usize / 64 + 1;
    data.extend_from_slice(&DENSE);
    for n in [first, count as u32, words as u32] {
        data.extend_from_slice(&n.to_le_bytes());
    }
    // The bitmap is set in place, in the run's bytes.
    let from = data.len();
    data.resize(from + words * 8, 0);
    let bits = &mut data[from..];
    let mut set = |at: usize, word: u64| {
        if let Some(w) = bits.get_mut(at * 8..at * 8 + 8) {
            let was = u64::from_le_bytes((&*w).try_into().expect("8 bytes"));
            w.copy_from_slice(&(was | word).to_le_bytes());
        }
    };
    for part in parts {
        match part {
            Part::Dense(d) => {
                let offset = (d.first - first) as usize;
                let (at, shift) = (offset / 64, offset % 64);
                for (i, word) in d.bits.chunks_exact(8).enumerate() {
                    let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                    set(at + i, word << shift);
                    if shift > 0 {
                        set(at + i + 1, word >> (64 - shift));
                    }
                }
            }
            Part::Entries(entries) => {
                for &(game, _, _) in entries {
                    let at = (game - first) as usize;
                    set(at / 64, 1 << (at % 64));
                }
            }
        }
    }
    for part in parts {
        match part {
            Part::Dense(d) => data.extend_from_slice(d.nodes),
            Part::Entries(entries) => data.extend(entries.iter().flat_map(|e| e.1.to_le_bytes())),
        }
    }
    for part in parts {
        match part {
            Part::Dense(d) => data.extend_from_slice(d.codes),
            Part::Entries(entries) => data.extend(entries.iter().map(|e| e.2)),
        }
    }
}

impl Segment {
    /// A segment from its parts (read back from a snapshot).
    ///
    /// # Errors
    /// When they disagree: keys not ascending, or run starts not one more
    /// than the keys, not ascending from 0 to the data's end; or a run
    /// marked dense whose header disagrees with its length.
    pub(super) fn from_parts(
        keys: Array<u64>,
        starts: Array<u64>,
        data: Array<u8>,
    ) -> Result<Segment, &'static str> {
        if starts.len() != keys.len() + 1
            || starts.first() != Some(&0)
            || starts.last().map(|&s| s as usize) != Some(data.len())
            || starts.windows(2).any(|w| w[0] > w[1])
            || keys.windows(2).any(|w| w[0] >= w[1])
        {
            return Err("region segment");
        }
        let run = |w: &[u64]| &data[w[0] as usize..w[1] as usize];
        if starts
            .windows(2)
            .any(|w| run(w).starts_with(&DENSE) && dense_parts(run(w)).is_none())
        {
            return Err("region segment's dense run");
        }
        Ok(Segment {
            keys,
            starts,
            data,
            lasts: Vec::new(),
            base: 0,
        })
    }

    /// A segment of `entries`, sorted by key and then game.
    pub(super) fn encode(entries: &[Entry]) -> Segment {
        let mut s = SegmentBuilder::default();
        let mut lasts = Vec::new();
        for run in entries.chunk_by(|a, b| a.key == b.key) {
            let (first, last) = (run[0].game, run[run.len() - 1].game);
            s.keys.push(run[0].key);
            s.starts.push(s.data.len() as u64);
            lasts.push(last);
            let read = run.iter().map(|e| (e.game, e.node, e.next));
            put_run(&mut s.data, read, run.len(), (first, last));
        }
        s.lasts = Some(lasts);
        s.finish()
    }

    /// Whether every key's last game is known.
    pub(super) fn knows_lasts(&self) -> bool {
        self.lasts.len() == self.keys.len()
    }

    pub(super) fn bytes(&self) -> usize {
        self.keys.len() * 8 + self.starts.len() * 8 + self.data.len() + self.lasts.capacity() * 4
    }

    /// Key `i`'s run as a merge takes it.
    fn piece(&self, i: usize) -> Piece<'_> {
        Piece {
            bytes: self.run_bytes(i),
            last: self.lasts.get(i).map(|&l| l + self.base),
            base: self.base,
        }
    }

    /// The bytes of key `i`'s entries.
    pub(super) fn run_bytes(&self, i: usize) -> &[u8] {
        &self.data[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// The entries of key `key`, if it has any (numbered with the
    /// segment's base: a pattern block's segment answers before it is
    /// merged).
    pub(super) fn run(&self, key: u64) -> Option<Run<'_>> {
        let i = self.keys.binary_search(&key).ok()?;
        Some(Run::with_base(self.run_bytes(i), self.base))
    }

    /// The entries of `segments` (each one's games after the one's
    /// before it) as one segment: a k-way merge by key (a heap of the
    /// segments' next keys), each key's runs one after the other, in
    /// parallel on rayon's pool over [`MERGE_PARTS`] ranges of keys a
    /// thread (cut where the largest segment's bytes are even), whose
    /// parts are then put one after the other. The result knows each
    /// key's last game when every segment does.
    pub(super) fn merge_all<S: std::borrow::Borrow<Segment>>(segments: &[S]) -> Segment {
        let segments: Vec<&Segment> = segments.iter().map(|s| s.borrow()).collect();
        let Some(largest) = segments.iter().max_by_key(|s| s.data.len()) else {
            return SegmentBuilder::default().finish();
        };
        let parts = if largest.data.len() < MERGE_PART_BYTES {
            1
        } else {
            rayon::current_num_threads() * MERGE_PARTS
        };
        // Each part's first key (the first part's is the least).
        let mut cuts = vec![0u64];
        for p in 1..parts {
            let byte = (largest.data.len() * p / parts) as u64;
            let i = largest.starts.partition_point(|&s| s < byte);
            if let Some(&key) = largest.keys.get(i)
                && key > *cuts.last().expect("a first cut")
            {
                cuts.push(key);
            }
        }
        let lasts = segments.iter().all(|s| s.knows_lasts());
        let built: Vec<SegmentBuilder> = (0..cuts.len())
            .into_par_iter()
            .map(|p| {
                let (from, to) = (cuts[p], cuts.get(p + 1).copied());
                let ranges: Vec<(usize, usize)> = segments
                    .iter()
                    .map(|s| {
                        let end = to.map_or(s.keys.len(), |to| s.keys.partition_point(|&k| k < to));
                        (s.keys.partition_point(|&k| k < from), end)
                    })
                    .collect();
                merge_ranges(&segments, &ranges, lasts)
            })
            .collect();
        SegmentBuilder::concat(built, lasts).finish()
    }

    /// Appends the segment's runs to a pattern block (its section of a
    /// board's region entries, see [`super::block`]): the number of keys
    /// (varint), then per key its difference from the key before (varint;
    /// the first from 0), its run's last game (varint), the run's length
    /// in bytes (varint) and the run's bytes as they are.
    pub(super) fn write_block(&self, out: &mut Vec<u8>) {
        debug_assert_eq!(self.base, 0);
        put_varint(out, self.keys.len() as u64);
        let mut before = 0u64;
        for (i, &key) in self.keys.iter().enumerate() {
            put_varint(out, key - before);
            before = key;
            let run = self.run_bytes(i);
            let last = self.lasts.get(i).copied();
            let last = last.unwrap_or_else(|| Run::new(run).last().map_or(0, |e| e.0));
            put_varint(out, u64::from(last));
            put_varint(out, run.len() as u64);
            out.extend_from_slice(run);
        }
    }

    /// Reads a segment [`Segment::write_block`] wrote, from `raw[*at..]`
    /// (`at` is left after it), for a block holding `games` games of its
    /// board (numbered from 0: the caller sets [`Segment::base`]).
    ///
    /// # Errors
    /// Bytes cut short, keys not ascending, a last game not below `games`,
    /// an empty run or a dense one whose header disagrees with its length.
    pub(super) fn read_block(
        raw: &[u8],
        at: &mut usize,
        games: u32,
    ) -> Result<Segment, &'static str> {
        let varint = |at: &mut usize| get_varint(raw, at).ok_or("region runs cut short");
        let n = varint(at)? as usize;
        if n > raw.len() - *at {
            return Err("region runs cut short");
        }
        let mut s = SegmentBuilder {
            keys: Vec::with_capacity(n),
            starts: Vec::with_capacity(n + 1),
            // The runs' bytes are at most the rest of the block's (the
            // builder's finish gives back what they leave), so that the
            // copy below never grows and moves the buffer.
            data: Vec::with_capacity(raw.len() - *at),
            lasts: Some(Vec::with_capacity(n)),
        };
        let mut key = 0u64;
        for i in 0..n {
            let step = varint(at)?;
            if i > 0 && step == 0 {
                return Err("region keys not ascending");
            }
            key = key.checked_add(step).ok_or("region key")?;
            let last = u32::try_from(varint(at)?).map_err(|_| "region run's last game")?;
            if last >= games {
                return Err("region run's last game");
            }
            let len = varint(at)? as usize;
            let run = raw
                .get(*at..at.saturating_add(len))
                .filter(|r| !r.is_empty())
                .ok_or("region run")?;
            if run.starts_with(&DENSE) && dense_parts(run).is_none() {
                return Err("region segment's dense run");
            }
            *at += len;
            s.keys.push(key);
            s.starts.push(s.data.len() as u64);
            s.data.extend_from_slice(run);
            if let Some(lasts) = &mut s.lasts {
                lasts.push(last);
            }
        }
        Ok(s.finish())
    }

    /// The entries of games below `n`.
    pub(super) fn below(&self, n: u32) -> Segment {
        if self.base != 0 {
            return Segment::merge_all(std::slice::from_ref(self)).below(n);
        }
        let mut s = SegmentBuilder::default();
        for (i, &key) in self.keys.iter().enumerate() {
            let data = self.run_bytes(i);
            let mut run = match Run::new(data) {
                Run::Varint(run) => run,
                Run::Dense(run) => {
                    let kept: Vec<Read> = run.take_while(|e| e.0 < n).collect();
                    if let (Some(first), Some(last)) = (kept.first(), kept.last()) {
                        s.keys.push(key);
                        s.starts.push(s.data.len() as u64);
                        let span = (first.0, last.0);
                        put_run(&mut s.data, kept.iter().copied(), kept.len(), span);
                    }
                    continue;
                }
            };
            let mut end = 0;
            while let Some((game, _, _)) = run.next() {
                if game >= n {
                    break;
                }
                end = run.at;
            }
            if end > 0 {
                s.keys.push(key);
                s.starts.push(s.data.len() as u64);
                s.data.extend_from_slice(&data[..end]);
            }
        }
        s.finish()
    }
}

/// Key ranges of [`Segment::merge_all`] a thread (more than one, so that
/// an uneven range does not leave a thread idle).
const MERGE_PARTS: usize = 4;
/// [`Segment::merge_all`] of segments whose largest holds fewer bytes runs
/// as one part.
const MERGE_PART_BYTES: usize = if cfg!(test) { 64 } else { 1 << 20 };

/// The keys `ranges[i]` (indexes into its keys) of each segment
/// `segments[i]`, merged as [`Segment::merge_all`] merges whole segments.
fn merge_ranges(segments: &[&Segment], ranges: &[(usize, usize)], lasts: bool) -> SegmentBuilder {
    let keys: usize = ranges.iter().map(|&(a, b)| b - a).sum();
    let mut s = SegmentBuilder {
        keys: Vec::with_capacity(keys),
        starts: Vec::with_capacity(keys + 1),
        data: Vec::with_capacity(
            segments
                .iter()
                .zip(ranges)
                .map(|(g, &(a, b))| (g.starts[b] - g.starts[a]) as usize)
                .sum(),
        ),
        lasts: lasts.then(Vec::new),
    };
    // The next key of each segment, least first (and among equal keys,
    // the earlier segment first: its games come first).
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> = ranges
        .iter()
        .enumerate()
        .filter(|(_, r)| r.0 < r.1)
        .map(|(i, r)| Reverse((segments[i].keys[r.0], i)))
        .collect();
    let mut at: Vec<usize> = ranges.iter().map(|r| r.0).collect();
    let mut runs: Vec<Piece<'_>> = Vec::with_capacity(segments.len());
    while let Some(Reverse((key, _))) = heap.peek().copied() {
        runs.clear();
        // The top is replaced by its segment's next key in place (one
        // sift down), or popped when the segment has no more.
        while let Some(mut top) = heap.peek_mut() {
            let Reverse((k, i)) = *top;
            if k != key {
                break;
            }
            runs.push(segments[i].piece(at[i]));
            at[i] += 1;
            if at[i] < ranges[i].1 {
                *top = Reverse((segments[i].keys[at[i]], i));
            } else {
                std::collections::binary_heap::PeekMut::pop(top);
            }
        }
        s.push_runs(key, &runs);
    }
    s
}

impl SegmentBuilder {
    /// `parts` (each one's keys above the one's before it, none finished)
    /// one after the other, as one builder; with `lasts` when asked.
    fn concat(parts: Vec<SegmentBuilder>, lasts: bool) -> SegmentBuilder {
        if parts.len() == 1 {
            return parts.into_iter().next().expect("one part");
        }
        let mut s = SegmentBuilder {
            keys: Vec::with_capacity(parts.iter().map(|p| p.keys.len()).sum()),
            starts: Vec::with_capacity(parts.iter().map(|p| p.starts.len()).sum::<usize>() + 1),
            data: Vec::with_capacity(parts.iter().map(|p| p.data.len()).sum()),
            lasts: lasts.then(Vec::new),
        };
        for p in parts {
            let offset = s.data.len() as u64;
            s.keys.extend_from_slice(&p.keys);
            s.starts.extend(p.starts.iter().map(|&at| at + offset));
            s.data.extend_from_slice(&p.data);
            if let (Some(all), Some(these)) = (&mut s.lasts, &p.lasts) {
                all.extend_from_slice(these);
            }
        }
        s
    }

    fn finish(mut self) -> Segment {
        self.starts.push(self.data.len() as u64);
        self.keys.shrink_to_fit();
        self.starts.shrink_to_fit();
        self.data.shrink_to_fit();
        Segment {
            keys: Array::Owned(self.keys),
            starts: Array::Owned(self.starts),
            data: Array::Owned(self.data),
            lasts: self.lasts.unwrap_or_default(),
            base: 0,
        }
    }

    /// Appends key `key`'s entries from `runs` (each run's games above the
    /// one's before it): the first run's bytes as they are, each later
    /// one's first game rewritten as a difference from the games before it
    /// (and the first run's too, when its games have a base).
    fn push_runs(&mut self, key: u64, runs: &[Piece<'_>]) {
        self.keys.push(key);
        self.starts.push(self.data.len() as u64);
        if let Some(last) = self.dense_runs(runs) {
            if let Some(lasts) = &mut self.lasts {
                lasts.push(last);
            }
            return;
        }
        let mut last = 0u32;
        for (i, piece) in runs.iter().enumerate() {
            let mut at = 0;
            let first = get_varint(piece.bytes, &mut at).expect("a run's entries are whole") as u32;
            put_varint(&mut self.data, u64::from(first + piece.base - last));
            self.data.extend_from_slice(&piece.bytes[at..]);
            // The next run's first game is written after this one's last
            // (decoded only when not known).
            if i + 1 < runs.len() || self.lasts.is_some() {
                last = piece
                    .last
                    .unwrap_or_else(|| piece.run().last().map_or(last, |e| e.0));
            }
        }
        if let Some(lasts) = &mut self.lasts {
            lasts.push(last);
        }
    }

    /// Writes `runs` (as for [`SegmentBuilder::push_runs`]) as one run
    /// decoded and written again, when one of them is dense or together
    /// they may be (their entries counted at most: varint ones take 3
    /// bytes or more); their last game, or `None` when nothing was
    /// written (the varint runs are then copied as they are).
    fn dense_runs(&mut self, runs: &[Piece<'_>]) -> Option<u32> {
        let varint = runs.iter().all(|r| dense_parts(r.bytes).is_none());
        let most: usize = runs.iter().map(|r| r.run().most_left()).sum();
        if varint && most < DENSE_MIN {
            return None;
        }
        let first = runs.first()?.run().next()?.0;
        let piece = runs.last()?;
        let last = piece.last.or_else(|| Some(piece.run().last()?.0))?;
        if varint && !is_dense(most, first, last) {
            return None;
        }
        // Dense runs are copied a word and an array at a time; varint
        // ones are decoded.
        let parts: Vec<Part<'_>> = runs
            .iter()
            .map(|r| match r.run() {
                Run::Dense(d) => Part::Dense(d),
                Run::Varint(v) => Part::Entries(v.collect()),
            })
            .collect();
        let count = parts
            .iter()
            .map(|p| match p {
                Part::Dense(d) => d.codes.len(),
                Part::Entries(e) => e.len(),
            })
            .sum();
        if is_dense(count, first, last) {
            put_dense(&mut self.data, (first, last), count, &parts);
        } else {
            let entries = runs.iter().flat_map(|r| r.run());
            put_run(&mut self.data, entries, count, (first, last));
        }
        Some(last)
    }
}

/// Sorts `entries` by key, keeping their order among equal keys: a radix
/// sort on the key's bytes, least significant first, skipping the bytes
/// every entry shares (a region's number, a content's unused codes). Each
/// pass reads and writes the entries once (BENCHMARKS.md compares it with
/// the comparison sort it replaced, pdqsort on key and game).
///
/// `spare` is working space (its contents are lost, its capacity kept for
/// the next call).
pub(super) fn sort_entries(entries: &mut Vec<Entry>, spare: &mut Vec<Entry>) {
    let n = entries.len();
    if n < 1024 {
        entries.sort_by_key(|e| e.key);
        return;
    }
    let mut counts = [[0usize; 256]; 8];
    for e in entries.iter() {
        for (byte, count) in counts.iter_mut().enumerate() {
            count[(e.key >> (8 * byte)) as u8 as usize] += 1;
        }
    }
    spare.clear();
    spare.resize(n, entries[0]);
    let (mut from, mut to) = (entries, spare);
    let mut passes = 0;
    for (byte, count) in counts.iter().enumerate() {
        if count.contains(&n) {
            continue;
        }
        let mut at = [0usize; 256];
        for d in 1..256 {
            at[d] = at[d - 1] + count[d - 1];
        }
        for e in from.iter() {
            let d = (e.key >> (8 * byte)) as u8 as usize;
            to[at[d]] = *e;
            at[d] += 1;
        }
        std::mem::swap(&mut from, &mut to);
        passes += 1;
    }
    // After an odd number of passes the sorted entries are in `spare`'s
    // buffer (`from`): the two vectors trade buffers.
    if passes % 2 == 1 {
        std::mem::swap(from, to);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The load's sort orders entries as a stable sort by key does: by key,
    /// and among equal keys in the order they came (game order), with keys
    /// that share some bytes and differ in others, above and below the
    /// size where it falls back to the standard sort.
    #[test]
    fn the_radix_sort_sorts_by_key_and_keeps_game_order() {
        let mut seed = 11u64;
        for n in [0usize, 5, 1023, 1024, 5000] {
            let entries: Vec<Entry> = (0..n as u32)
                .map(|game| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    // Region 3 or 40 in the top byte, few distinct codes.
                    let region = if seed >> 63 == 0 { 3u64 } else { 40 };
                    Entry {
                        key: region << 56 | ((seed >> 20) % 300) << 9,
                        game,
                        node: game as u16,
                        next: 0,
                    }
                })
                .collect();
            let mut expected = entries.clone();
            expected.sort_by_key(|e| e.key);
            let pairs = |v: &[Entry]| v.iter().map(|e| (e.key, e.game)).collect::<Vec<_>>();
            // With fresh working space, and with the same again (its
            // old contents, and a buffer the last sort traded).
            let mut spare = Vec::new();
            for _ in 0..2 {
                let mut sorted = entries.clone();
                sort_entries(&mut sorted, &mut spare);
                assert_eq!(pairs(&sorted), pairs(&expected), "{n}");
                assert!(sorted.is_sorted_by_key(|e| (e.key, e.game)));
            }
        }
    }

    /// A segment written into a pattern block reads back with its entries
    /// and last games, and merges with its games numbered from a base; a
    /// block's segment cut short, with keys not ascending, an empty run or
    /// a last game beyond the block's games is refused.
    #[test]
    fn block_runs_read_back_rebased_and_are_checked() {
        // Keys of many games (dense runs) and of few (varint ones).
        let mut entries: Vec<Entry> = (0..200u32)
            .flat_map(|g| {
                let few = if g % 40 == 3 { Some(1000) } else { None };
                let keys = (0..(g % 3) as u64 + 1).map(|k| k * 7 + 1).chain(few);
                keys.map(move |key| Entry {
                    key,
                    game: g,
                    node: g as u16 + 1,
                    next: (g % 5) as u8,
                })
            })
            .collect();
        entries.sort_by_key(|e| (e.key, e.game));
        let segment = Segment::encode(&entries);
        let mut out = vec![9];
        segment.write_block(&mut out);
        out.push(9);
        let mut at = 1;
        let back = Segment::read_block(&out, &mut at, 200).unwrap();
        assert_eq!(at, out.len() - 1);
        let decode = |s: &Segment| -> Vec<(u64, u32, u16, u8)> {
            s.keys
                .iter()
                .flat_map(|&k| s.run(k).unwrap().map(move |(g, n, c)| (k, g, n, c)))
                .collect()
        };
        assert_eq!(decode(&back), decode(&segment));
        assert_eq!(back.lasts, segment.lasts);
        // Merged after a segment of games 0..1000, numbered from 1000.
        let mut rebased = Segment::read_block(&out, &mut 1, 200).unwrap();
        rebased.base = 1000;
        let before: Vec<Entry> = entries
            .iter()
            .map(|e| Entry {
                game: e.game * 5,
                ..*e
            })
            .collect();
        let merged = Segment::merge_all(&[Segment::encode(&before), rebased]);
        let mut expected: Vec<_> = before
            .iter()
            .chain(
                &entries
                    .iter()
                    .map(|e| Entry {
                        game: e.game + 1000,
                        ..*e
                    })
                    .collect::<Vec<_>>(),
            )
            .map(|e| (e.key, e.game, e.node, e.next))
            .collect();
        expected.sort_by_key(|e| (e.0, e.1));
        assert_eq!(decode(&merged), expected);
        assert!(merged.knows_lasts());
        // Damage.
        assert!(
            Segment::read_block(&out, &mut 1, 199).is_err(),
            "a last game beyond"
        );
        assert!(
            Segment::read_block(&out[..out.len() / 2], &mut 1, 200).is_err(),
            "cut"
        );
        let mut bad = Vec::new();
        for v in [2u64, 5, 0, 3] {
            put_varint(&mut bad, v);
        }
        bad.extend_from_slice(&[0, 1, 0]);
        for v in [0u64, 0, 3] {
            put_varint(&mut bad, v);
        }
        bad.extend_from_slice(&[0, 1, 0]);
        assert_eq!(
            Segment::read_block(&bad, &mut 0, 10).unwrap_err(),
            "region keys not ascending"
        );
        let empty = [1u8, 5, 0, 0];
        assert!(
            Segment::read_block(&empty, &mut 0, 10).is_err(),
            "an empty run"
        );
    }

    /// Segments merge and shrink to the games below a bound as the entries
    /// they were built from would: each key's games and nodes, in game
    /// order, with their continuation bytes.
    #[test]
    fn segments_merge_and_truncate_as_sorted_entries() {
        let entries = |games: std::ops::Range<u32>| -> Vec<Entry> {
            let mut out: Vec<Entry> = games
                .flat_map(|g| {
                    (0..(g % 5) as u64).map(move |k| Entry {
                        key: k * 3 + u64::from(g % 2),
                        game: g,
                        node: (g * 7 % 300) as u16,
                        next: (g % 11) as u8,
                    })
                })
                .collect();
            out.sort_unstable_by_key(|e| (e.key, e.game));
            out
        };
        let decode = |s: &Segment| -> Vec<(u64, u32, u16, u8)> {
            s.keys
                .iter()
                .flat_map(|&k| s.run(k).unwrap().map(move |(g, t, n)| (k, g, t, n)))
                .collect()
        };
        let flat = |e: &[Entry]| -> Vec<(u64, u32, u16, u8)> {
            e.iter().map(|e| (e.key, e.game, e.node, e.next)).collect()
        };
        let older = || Segment::encode(&entries(0..400));
        let newer = || Segment::encode(&entries(400..1000));
        let merged = Segment::merge_all(&[older(), newer()]);
        assert_eq!(decode(&merged), flat(&entries(0..1000)));
        assert_eq!(decode(&merged.below(650)), flat(&entries(0..650)));
        assert_eq!(decode(&merged.below(0)), Vec::new());
        assert_eq!(merged.below(0).keys.len(), 0);
        // Each key's last game is carried through merges, or left unknown
        // (and decoded) once a segment does not know it; the entries are
        // the same either way.
        let lasts = |s: &Segment| -> Vec<u32> {
            s.keys
                .iter()
                .map(|&k| s.run(k).unwrap().last().unwrap().0)
                .collect()
        };
        assert!(merged.knows_lasts());
        assert_eq!(merged.lasts, lasts(&merged));
        let cut = merged.below(650);
        assert!(!cut.knows_lasts());
        let later = || Segment::encode(&entries(1000..1300));
        let again = Segment::merge_all(&[merged.below(650), later()]);
        assert!(!again.knows_lasts());
        let expected: Vec<_> = flat(&entries(0..650))
            .into_iter()
            .chain(flat(&entries(1000..1300)))
            .collect();
        let mut expected = expected;
        expected.sort_by_key(|e| (e.0, e.1));
        assert_eq!(decode(&again), expected);
        // Keys of two games in five and more are written dense, keys of
        // fewer than [`DENSE_MIN`] entries or one game in twelve are not:
        // both kinds went through the merges and cuts above.
        let kinds = |s: &Segment| -> (usize, usize) {
            let dense = (0..s.keys.len())
                .filter(|&i| matches!(Run::new(s.run_bytes(i)), Run::Dense(_)))
                .count();
            (dense, s.keys.len() - dense)
        };
        for s in [&merged, &cut, &again] {
            let (dense, varint) = kinds(s);
            assert!(dense > 0 && varint > 0, "{dense} {varint}");
        }
        // The k-way merge (in parallel parts by key range: segments of
        // more than 64 bytes are cut in tests) gives the sorted entries,
        // with every key's last game when each segment knows them.
        let sorted = |games: &[std::ops::Range<u32>]| {
            let mut e: Vec<_> = games
                .iter()
                .flat_map(|g| flat(&entries(g.clone())))
                .collect();
            e.sort_by_key(|e| (e.0, e.1));
            e
        };
        let all = Segment::merge_all(&[older(), newer(), later()]);
        assert_eq!(decode(&all), sorted(&[0..650, 650..1300]));
        assert!(kinds(&all).0 > 0);
        assert!(all.knows_lasts());
        assert_eq!(all.lasts, lasts(&all));
        let all = Segment::merge_all(&[cut, later()]);
        assert_eq!(decode(&all), sorted(&[0..650, 1000..1300]));
        assert!(!all.knows_lasts());
        assert_eq!(decode(&Segment::merge_all::<Segment>(&[])), Vec::new());
    }

    /// A dense run reads back its entries: games at the ends of bitmap
    /// words and a word with none, every node and continuation; it is
    /// written for enough entries an eighth of the games they span, not
    /// for fewer; a segment read back refuses a dense run whose header
    /// disagrees with its length.
    #[test]
    fn dense_runs_read_back_and_are_checked() {
        // From game 100: every third game, none in the bitmap's third word,
        // then the last bit of the sixth word and the first of the
        // seventh.
        let games: Vec<u32> = (0..DENSE_MIN as u32 * 4)
            .map(|i| 100 + i * 3 + u32::from(i > 40) * 130)
            .chain([483, 484, 547, 611])
            .collect();
        let entries: Vec<Read> = games
            .iter()
            .enumerate()
            .map(|(i, &g)| (g, (i as u16).wrapping_mul(2477), i as u8))
            .collect();
        let span = (entries[0].0, entries[entries.len() - 1].0);
        let mut data = Vec::new();
        put_run(&mut data, entries.iter().copied(), entries.len(), span);
        assert_eq!(data[..2], DENSE);
        let run = Run::new(&data);
        assert_eq!(run.most_left(), entries.len());
        assert_eq!(run.collect::<Vec<_>>(), entries);
        let mut filled = Vec::new();
        let mut run = Run::new(&data);
        run.fill(&mut filled, 5);
        run.fill(&mut filled, usize::MAX);
        assert_eq!(filled, entries);
        // Sparser than one game in eight, or too few: varints.
        let sparse: Vec<Read> = entries.iter().map(|e| (e.0 * 9, e.1, e.2)).collect();
        let mut data = Vec::new();
        let span = (sparse[0].0, sparse[sparse.len() - 1].0);
        put_run(&mut data, sparse.iter().copied(), sparse.len(), span);
        assert!(matches!(Run::new(&data), Run::Varint(_)));
        assert_eq!(Run::new(&data).collect::<Vec<_>>(), sparse);
        let few = &entries[..DENSE_MIN - 1];
        let mut data = Vec::new();
        let span = (few[0].0, few[few.len() - 1].0);
        put_run(&mut data, few.iter().copied(), few.len(), span);
        assert!(matches!(Run::new(&data), Run::Varint(_)));
        // A segment of one dense run, cut short: refused.
        let mut data = Vec::new();
        let span = (entries[0].0, entries[entries.len() - 1].0);
        put_run(&mut data, entries.iter().copied(), entries.len(), span);
        let whole = data.len() as u64;
        let parts = |end: u64| {
            Segment::from_parts(
                Array::Owned(vec![7]),
                Array::Owned(vec![0, end]),
                Array::Owned(data[..end as usize].to_vec()),
            )
        };
        assert!(parts(whole).is_ok());
        assert!(parts(whole - 1).is_err());
    }
}
