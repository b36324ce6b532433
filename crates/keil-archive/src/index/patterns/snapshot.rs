//! A node-local snapshot of the loaded pattern index: one file in the
//! node's cache directory (`Archive::cache_in`) holding every group as it
//! is in memory (lines, columns, events, winners, answer order, removal
//! masks and the region index's segments). A restart maps it: the large
//! arrays (columns, events, region segments) are used in place, their
//! pages the system's page cache rather than the process's heap, and only
//! the small per-game arrays are copied out; nothing is decoded or
//! recomputed. The games stored or removed since it was written are then
//! added from the pattern blocks by the one catch-up loop, as for any
//! index (into owned arrays after the mapped ones).
//!
//! A snapshot is derived data, never trusted over the store: it is used
//! only when its format, the pattern blocks' version and its fingerprint
//! (`load::stamp`: the sequences it holds, the archive's first and last
//! game identities up to them, its large pattern blocks and its removals)
//! are the store's, when its BLAKE3 checksum holds, and when every group's
//! parts agree (`Group::check`, `Segment::from_parts`); anything else (a
//! missing, cut, damaged or foreign file) is ignored, the index loads from
//! the blocks and the file is written again. A mapped file must not be
//! changed in place while a node runs (it is only ever replaced, by a
//! rename).
//!
//! **Format** (little-endian; every array starts at a multiple of 8 bytes,
//! so that it is used in place): the magic `KEILPIX6`, the pattern blocks'
//! version (u32), the fingerprint (32 bytes), the games and removals
//! sequences (i64 each), the number of groups (u32); per group its kind (0
//! Keil, 1 Go, 2 Kaomi) and board size (u64 each), then its arrays, each as
//! a u64 count, its values and zeros to the next multiple of 8: line ids,
//! dates, plies, event ends (u32 each), per line its count of move nodes
//! (u32, 0 for one move per node) and all the nodes (u32), columns (i16),
//! events (u32), winners (i8), the answer order (u32), the removal mask (a
//! byte per game, or none); then the region index: a u64 (0 none, else 1 +
//! its number of segments) and per segment its keys (u64), run starts (u64)
//! and entry bytes (each run varint or dense, see [`super::runs`]). Last, the BLAKE3 hash of everything before it (32
//! bytes).

use std::fs::File;
use std::io::{self, BufWriter, Write as _};
use std::path::Path;

use keil_rules::{AnyBoard, BoardSpec, GameKind};
use tantivy::directory::{Directory, MmapDirectory, OwnedBytes};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::arrays::{Array, Growing};
use super::events::Event;
use super::index::{Group, LANES, Line, Loaded};
use super::regions::Regions;
use super::runs::Segment;
use keil_store::Sequences;

/// The file's name in the cache directory.
pub(super) const FILE: &str = "patterns.snapshot";

/// The format's magic; `KEILPIX4` since the region index holds the corner
/// boxes' stone sets, `KEILPIX5` since its runs may be dense
/// ([`super::runs`]), `KEILPIX6` since its run starts are u64 (a region
/// segment of a million 19×19 games holds 2.1 GB of runs: u32 starts
/// would overflow at about two million); an older snapshot is not used.
const MAGIC: &[u8; 8] = b"KEILPIX6";

/// The header's length: magic, version, fingerprint, sequences, groups.
const HEADER: usize = 8 + 4 + 32 + 16 + 4;

/// A snapshot's identity: what the store must say for it to be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stamp {
    /// The pattern blocks' format version (`block::VERSION`).
    pub version: u32,
    /// See `load::stamp`.
    pub fingerprint: [u8; 32],
    /// The sequences the snapshot holds.
    pub at: Sequences,
}

/// Writes `loaded` (every group sealed) with `stamp` to `path`, atomically
/// (a file beside it, synced, then renamed over it: a node that maps the
/// old file keeps it).
///
/// # Errors
/// The file system's.
pub(super) fn write(path: &Path, loaded: &Loaded, stamp: &Stamp) -> io::Result<()> {
    if cfg!(target_endian = "big") {
        return Ok(());
    }
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let result = (|| {
        let file = File::create(&tmp)?;
        let mut out = Out {
            w: BufWriter::with_capacity(1 << 20, file),
            hash: blake3::Hasher::new(),
            at: 0,
        };
        out.bytes(MAGIC)?;
        out.bytes(&stamp.version.to_le_bytes())?;
        out.bytes(&stamp.fingerprint)?;
        out.bytes(&stamp.at.games.to_le_bytes())?;
        out.bytes(&stamp.at.removals.to_le_bytes())?;
        out.bytes(&(loaded.groups.len() as u32).to_le_bytes())?;
        for (kind, group) in &loaded.groups {
            write_group(&mut out, *kind, group)?;
        }
        let hash = out.hash.finalize();
        out.w.write_all(hash.as_bytes())?;
        let file = out.w.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn write_group(out: &mut Out, kind: GameKind, g: &Group) -> io::Result<()> {
    let k = GameKind::ALL.iter().position(|&k| k == kind).unwrap_or(0);
    out.bytes(&(k as u64).to_le_bytes())?;
    out.bytes(&u64::from(g.board.size()).to_le_bytes())?;
    let lines = &g.lines;
    let column = |f: &dyn Fn(&Line) -> u32| lines.iter().map(f).collect::<Vec<u32>>();
    out.array(&[&column(&|l| l.id)])?;
    out.array(&[&column(&|l| l.date)])?;
    out.array(&[&column(&|l| l.plies)])?;
    out.array(&[&column(&|l| l.events.end)])?;
    out.array(&[&column(&|l| l.nodes.as_ref().map_or(0, |n| n.len() as u32))])?;
    let nodes: Vec<u32> = lines
        .iter()
        .flat_map(|l| l.nodes.iter().flatten().copied())
        .collect();
    out.array(&[&nodes])?;
    out.array(&g.columns.parts())?;
    out.array(&g.events.parts())?;
    out.array(&[&g.winners])?;
    out.array(&[&g.listed])?;
    let kept: Vec<u8> = g.kept.iter().map(|&k| u8::from(k)).collect();
    out.array(&[&kept])?;
    match &g.regions {
        None => out.bytes(&0u64.to_le_bytes()),
        Some(regions) => {
            let segments = regions.segments();
            out.bytes(&(1 + segments.len() as u64).to_le_bytes())?;
            for s in segments {
                out.array(&[&s.keys])?;
                out.array(&[&s.starts])?;
                out.array(&[&s.data])?;
            }
            Ok(())
        }
    }
}

/// The writer: every byte written is hashed.
struct Out {
    w: BufWriter<File>,
    hash: blake3::Hasher,
    /// Bytes written.
    at: usize,
}

impl Out {
    fn bytes(&mut self, b: &[u8]) -> io::Result<()> {
        self.hash.update(b);
        self.at += b.len();
        self.w.write_all(b)
    }

    /// One array of the parts one after the other: its count, its values,
    /// zeros to the next multiple of 8.
    fn array<T: IntoBytes + Immutable>(&mut self, parts: &[&[T]]) -> io::Result<()> {
        let n: usize = parts.iter().map(|p| p.len()).sum();
        self.bytes(&(n as u64).to_le_bytes())?;
        for p in parts {
            self.bytes(p.as_bytes())?;
        }
        let pad = self.at.next_multiple_of(8) - self.at;
        self.bytes(&[0u8; 8][..pad])
    }
}

/// The stamp of the snapshot at `path`, read from its header alone; `None`
/// when there is none or it is not one.
pub(super) fn stamp(path: &Path) -> Option<Stamp> {
    use std::io::Read as _;
    let mut header = [0u8; HEADER];
    File::open(path).ok()?.read_exact(&mut header).ok()?;
    parse_stamp(&header)
}

fn parse_stamp(header: &[u8]) -> Option<Stamp> {
    if header.get(..8)? != MAGIC || header.len() < HEADER {
        return None;
    }
    let word = |at: usize| i64::from_le_bytes(header[at..at + 8].try_into().expect("8 bytes"));
    Some(Stamp {
        version: u32::from_le_bytes(header[8..12].try_into().expect("4 bytes")),
        fingerprint: header[12..44].try_into().expect("32 bytes"),
        at: Sequences {
            games: word(44),
            removals: word(52),
        },
    })
}

/// Why a snapshot is not used.
pub(super) type Unused = String;

/// Maps the snapshot at `path` if it carries `expected` and its checksum
/// and parts hold.
///
/// # Errors
/// Why it is not used (missing, foreign, cut short, damaged).
pub(super) fn read(path: &Path, expected: &Stamp) -> Result<Loaded, Unused> {
    if cfg!(target_endian = "big") {
        return Err("a big-endian host maps no snapshot".into());
    }
    let (dir, name) = (
        path.parent().ok_or("no directory")?,
        path.file_name().ok_or("no file name")?,
    );
    // A directory of its own: tantivy's keeps the mappings it gave out by
    // path, and the file may have been replaced since.
    let bytes = MmapDirectory::open(dir)
        .map_err(|e| e.to_string())?
        .open_read(Path::new(name))
        .map_err(|e| e.to_string())?
        .read_bytes()
        .map_err(|e| e.to_string())?;
    let body = bytes.len().checked_sub(32).ok_or("cut short")?;
    if blake3::hash(&bytes.as_slice()[..body]).as_bytes() != &bytes.as_slice()[body..] {
        return Err("checksum does not hold".into());
    }
    let stamp = parse_stamp(bytes.as_slice()).ok_or("not a pattern index snapshot")?;
    if stamp != *expected {
        return Err("written for other games or another block version".into());
    }
    let mut input = In {
        bytes: bytes.slice(0..body),
        at: HEADER,
    };
    let count = u32::from_le_bytes(bytes.as_slice()[HEADER - 4..HEADER].try_into().expect("4"));
    let mut groups = Vec::new();
    for _ in 0..count {
        groups.push(read_group(&mut input)?);
    }
    if input.at != body {
        return Err("bytes after the last group".into());
    }
    Ok(Loaded {
        at: stamp.at,
        groups,
        unmerged: false,
        regions_deferred: false,
    })
}

/// One group as [`write_group`] wrote it: its board, lines and arrays,
/// its parts checked to agree.
fn read_group(input: &mut In) -> Result<(GameKind, Group), Unused> {
    let (kind, board) = read_board(input)?;
    let lines = read_lines(input)?;
    let n = lines.len();
    // The whole blocks' columns are used in place; the last block, when
    // part full, is copied out (the next games fill its lanes).
    let block_len = board.len() * 2 * LANES;
    let (frozen, owned) = input.split_array::<i16>((n / LANES) * block_len)?;
    let columns = Growing::new(frozen, owned);
    let events = Growing::new(input.array::<Event>()?, Vec::new());
    let winners = input.array::<i8>()?.to_vec();
    let listed = input.array::<u32>()?.to_vec();
    let kept: Vec<bool> = input.array::<u8>()?.iter().map(|&k| k != 0).collect();
    let regions = read_regions(input, board)?;
    let group = Group {
        board,
        indexed: lines.len(),
        ids: lines.iter().map(|l| l.id).collect(),
        plies: lines.iter().map(super::index::plies_of).collect(),
        years: lines
            .iter()
            .map(|l| crate::index::facts::year_of(l.date))
            .collect(),
        lines,
        columns,
        events,
        winners,
        regions,
        listed,
        rank: Vec::new(),
        kept,
    };
    group.check()?;
    let mut group = group;
    group.rank_listed();
    Ok((kind, group))
}

/// A group's game kind and board (its first two words).
fn read_board(input: &mut In) -> Result<(GameKind, AnyBoard), Unused> {
    let kind = usize::try_from(input.word()?).map_err(|_| "game kind")?;
    let kind = *GameKind::ALL.get(kind).ok_or("game kind")?;
    let size = u8::try_from(input.word()?).map_err(|_| "board size")?;
    let board = BoardSpec::new(kind, size)
        .and_then(|s| s.board())
        .map_err(|_| "board size")?;
    Ok((kind, board))
}

/// A group's lines, from their arrays (ids, dates, plies, event ends,
/// node counts and nodes), which must agree.
fn read_lines(input: &mut In) -> Result<Vec<Line>, Unused> {
    let ids = input.array::<u32>()?;
    let dates = input.array::<u32>()?;
    let plies = input.array::<u32>()?;
    let ends = input.array::<u32>()?;
    let node_counts = input.array::<u32>()?;
    let nodes = input.array::<u32>()?;
    let n = ids.len();
    if [dates.len(), plies.len(), ends.len(), node_counts.len()] != [n; 4]
        || node_counts.iter().map(|&c| c as usize).sum::<usize>() != nodes.len()
        || ids.windows(2).any(|w| w[0] >= w[1])
    {
        return Err("lines disagree".into());
    }
    let mut lines = Vec::with_capacity(n);
    let (mut start, mut at) = (0u32, 0usize);
    for i in 0..n {
        let c = node_counts[i] as usize;
        lines.push(Line {
            id: ids[i],
            date: dates[i],
            plies: plies[i],
            nodes: (c > 0).then(|| nodes[at..at + c].into()),
            events: start..ends[i],
        });
        (start, at) = (ends[i], at + c);
    }
    Ok(lines)
}

/// A group's region index on `board`, its segments used in place; `None`
/// when the snapshot holds none.
fn read_regions(input: &mut In, board: AnyBoard) -> Result<Option<Regions>, Unused> {
    let regions = match input.word()? {
        0 => None,
        present => {
            let mut regions = Regions::new(board).ok_or("regions on a board without")?;
            let mut segments = Vec::new();
            for _ in 1..present {
                segments.push(Segment::from_parts(
                    input.array()?,
                    input.array()?,
                    input.array()?,
                )?);
            }
            regions.set_segments(segments);
            Some(regions)
        }
    };
    Ok(regions)
}

/// The reader: the mapped file, and where the next value starts.
struct In {
    bytes: OwnedBytes,
    at: usize,
}

impl In {
    fn word(&mut self) -> Result<u64, Unused> {
        let b = self
            .bytes
            .as_slice()
            .get(self.at..self.at + 8)
            .ok_or("cut short")?;
        self.at += 8;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    /// The bytes of an array written by [`Out::array`] of `T`s.
    fn array_bytes<T>(&mut self) -> Result<OwnedBytes, Unused> {
        let n = usize::try_from(self.word()?).map_err(|_| "an array longer than the file")?;
        let len = n
            .checked_mul(std::mem::size_of::<T>())
            .filter(|&len| len <= self.bytes.len() - self.at)
            .ok_or("an array longer than the file")?;
        let bytes = self.bytes.slice(self.at..self.at + len);
        self.at = (self.at + len).next_multiple_of(8).min(self.bytes.len());
        Ok(bytes)
    }

    /// An array written by [`Out::array`], used in place.
    fn array<T: FromBytes + Immutable + KnownLayout>(&mut self) -> Result<Array<T>, Unused> {
        let bytes = self.array_bytes::<T>()?;
        Array::mapped(bytes).ok_or_else(|| "an array out of alignment".into())
    }

    /// An array's first `frozen` values used in place and the rest copied
    /// out.
    fn split_array<T: FromBytes + Immutable + KnownLayout + Copy>(
        &mut self,
        frozen: usize,
    ) -> Result<(Array<T>, Vec<T>), Unused> {
        let bytes = self.array_bytes::<T>()?;
        let cut = frozen * std::mem::size_of::<T>();
        if cut > bytes.len() {
            return Err("an array shorter than its games".into());
        }
        let rest = Array::<T>::mapped(bytes.slice(cut..bytes.len()))
            .ok_or("an array out of alignment")?
            .to_vec();
        let head = Array::mapped(bytes.slice(0..cut)).ok_or("an array out of alignment")?;
        Ok((head, rest))
    }
}
