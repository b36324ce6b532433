//! Containers of game records: folders, archives and compressed
//! collections, expanded into named members.
//!
//! Go collections are published as archives: KGS's yearly sets as `.zip`,
//! `.tar.gz` and `.tar.bz2`, Fox's as `.7z` split into volumes
//! (`9k2.7z.001`), Leela Zero's games as one `all.sgf.xz`. An [`Expander`]
//! turns a path (a file or a folder) or bytes in memory into [`Member`]s:
//!
//! - a plain file on disk that holds records ([`Member::File`]: the caller
//!   reads it, in parallel with others);
//! - a member of an archive or the content of a compressed collection,
//!   whole in memory ([`Member::Bytes`]), named after its container with
//!   `!` ([`SEPARATOR`]): `KGS-2019.zip!2019/01/01/x.sgf`,
//!   `a.zip!b.tar.gz!c.sgf`; a compressed stream keeps its container's
//!   name (`all.sgf.xz`);
//! - a container that cannot be read, or a limit passed ([`Member::Problem`]).
//!
//! Formats are told by content (magic bytes, [`Format::sniff`]), never by
//! name alone, and recursively: an archive inside a folder inside an
//! archive. Inside an archive a member is kept when it is a container or
//! holds an SGF game tree ([`looks_like_records`]); anything else (a
//! README, an image) is skipped and counted ([`Expander::skipped`]). A
//! file or body named by the caller is always handed on, so that the
//! caller can refuse it with its own reason.
//!
//! Archive bombs are bounded by [`Limits`]: uncompressed bytes in all,
//! bytes per member (a member is held in memory), members, and nesting
//! depth. Once the total or the member count is spent, every container
//! after it is refused.
//!
//! The other way, [`Bundle`] writes records as one collection or a zip
//! archive, streamed (`keil export`, the API's bulk download).
//!
//! Crates: `zip` (its reader and stream writer, with deflate, deflate64, bzip2, LZMA, XZ and
//! zstd members), `tar`, `flate2` (gzip, multi-member as `gzip -c a b`
//! writes), `bzip2` (the pure-Rust libbz2 port), `lzma-rust2` (xz; the
//! decoder that `zip` and `sevenz-rust2` use too, no C build), `zstd`, and
//! `sevenz-rust2` (7z: LZMA, LZMA2, BZip2, Deflate, zstd; solid archives).

mod bundle;

pub use bundle::{Bundle, BundleFormat};

use std::fs::File;
use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Separates a container's name from its member's: `a.zip!dir/x.sgf`.
pub const SEPARATOR: char = '!';

/// The reason code of a container that cannot be read: corrupt, truncated,
/// encrypted, or compressed with a method the reader lacks.
pub const BAD_CONTAINER: &str = "bad_container";

/// The reason code of a container or member past a [`Limits`] bound.
pub const ARCHIVE_LIMIT: &str = "archive_limit";

/// Bytes read from a file's start to tell its format (the tar magic ends
/// at byte 262) and whether it holds records: 64 KiB.
pub const SNIFF_BYTES: usize = 64 << 10;

/// Bounds against archive bombs (a 42 KB zip that expands to petabytes, a
/// gzip that contains itself). Defaults: [`Limits::default`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Uncompressed bytes read from containers in all, over one expander's
    /// life (one import). Default 64 GiB.
    pub max_total_bytes: u64,
    /// Uncompressed bytes of one member, which is held in memory whole
    /// (a `.sgf.xz` collection is one member). Default 2 GiB.
    pub max_member_bytes: u64,
    /// Members read from containers in all (skipped ones included).
    /// Default 50,000,000.
    pub max_members: u64,
    /// Containers inside containers: every layer counts (`x.tar.gz` is two:
    /// gzip, then tar). Default 6.
    pub max_depth: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_total_bytes: 64 << 30,
            max_member_bytes: 2 << 30,
            max_members: 50_000_000,
            max_depth: 6,
        }
    }
}

/// A container format, told by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A zip archive (`PK\3\4`).
    Zip,
    /// A POSIX tar archive (`ustar` at byte 257).
    Tar,
    /// A 7z archive (`7z\xBC\xAF\x27\x1C`), or the first of its split
    /// volumes (`.7z.001`).
    SevenZip,
    /// A gzip stream (`\x1F\x8B`).
    Gzip,
    /// A bzip2 stream (`BZh1`…`BZh9`).
    Bzip2,
    /// An xz stream (`\xFD7zXZ\0`).
    Xz,
    /// A zstd frame (`\x28\xB5\x2F\xFD`).
    Zstd,
}

impl Format {
    /// The format whose magic bytes `head` starts with; `None` for
    /// anything else (text, an image).
    pub fn sniff(head: &[u8]) -> Option<Format> {
        let format = if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
            Format::Zip
        } else if head.starts_with(&[0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]) {
            Format::SevenZip
        } else if head.starts_with(&[0x1F, 0x8B]) {
            Format::Gzip
        } else if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
            Format::Bzip2
        } else if head.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0]) {
            Format::Xz
        } else if head.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
            Format::Zstd
        } else if head.get(257..262) == Some(b"ustar") {
            Format::Tar
        } else {
            return None;
        };
        Some(format)
    }

    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Zip => "zip",
            Format::Tar => "tar",
            Format::SevenZip => "7z",
            Format::Gzip => "gzip",
            Format::Bzip2 => "bzip2",
            Format::Xz => "xz",
            Format::Zstd => "zstd",
        }
    }
}

/// Whether `head` (a file's first bytes) holds an SGF game tree: a `(`
/// followed, after white space, by `;` in the first [`SNIFF_BYTES`], and no
/// NUL byte there (binary data); UTF-16 text (a byte-order mark) is taken
/// as records, for the SGF reader to decode.
pub fn looks_like_records(head: &[u8]) -> bool {
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        return true;
    }
    let head = &head[..head.len().min(SNIFF_BYTES)];
    if head.contains(&0) {
        return false;
    }
    let mut from = 0;
    while let Some(at) = head[from..].iter().position(|&b| b == b'(') {
        let rest = &head[from + at + 1..];
        if rest.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b';') {
            return true;
        }
        from += at + 1;
    }
    false
}

/// A container or member that could not be expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The container's or member's name (`a.zip!x.sgf`).
    pub name: String,
    /// [`BAD_CONTAINER`] or [`ARCHIVE_LIMIT`].
    pub reason: &'static str,
    /// What happened and what to do, in a sentence.
    pub message: String,
}

/// What an [`Expander`] hands on.
#[derive(Debug)]
pub enum Member {
    /// A plain file on disk that holds records (or was named by the
    /// caller): read it, and give its bytes to [`Expander::expand_bytes`]
    /// should they turn out to be a container.
    File(PathBuf),
    /// A member of a container (or a named body), whole in memory.
    Bytes {
        /// `container!member`, nested as deep as the containers.
        name: String,
        /// The member's uncompressed bytes.
        bytes: Vec<u8>,
    },
    /// A container that cannot be read, or a bound of [`Limits`] passed.
    Problem(Problem),
}

/// Where members go; returns false to stop the expansion (the consumer
/// stopped).
pub type Sink<'a> = dyn FnMut(Member) -> bool + 'a;

/// Expands paths and bytes into [`Member`]s under [`Limits`] (one
/// expander per import: the limits count over its life). `Sync`: files
/// found to be containers may be expanded on several threads at once.
#[derive(Debug)]
pub struct Expander {
    limits: Limits,
    record_file: fn(&Path) -> bool,
    total: AtomicU64,
    members: AtomicU64,
    skipped: AtomicU64,
    spent: AtomicBool,
}

impl Expander {
    /// An expander under `limits`; `record_file` tells the names of record
    /// files (`.sgf`, `.keil`, …), handed on from folders without a look at
    /// their content.
    pub fn new(limits: Limits, record_file: fn(&Path) -> bool) -> Expander {
        Expander {
            limits,
            record_file,
            total: AtomicU64::new(0),
            members: AtomicU64::new(0),
            skipped: AtomicU64::new(0),
            spent: AtomicBool::new(false),
        }
    }

    /// The members read from containers so far (skipped ones included).
    pub fn members(&self) -> u64 {
        self.members.load(Ordering::Relaxed)
    }

    /// Files in folders and members of containers passed over so far:
    /// neither a container nor records.
    pub fn skipped(&self) -> u64 {
        self.skipped.load(Ordering::Relaxed)
    }

    /// Uncompressed bytes read from containers so far.
    pub fn bytes(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    /// Expands a path named by the caller: a folder is walked in name order
    /// (record files handed on by name, other files by content); a file is
    /// expanded when its content is a container, else handed on as
    /// [`Member::File`]. Returns false when the sink stopped.
    ///
    /// # Errors
    /// When `path` does not exist or a folder cannot be listed. A file that
    /// cannot be read is handed on (the caller reports it).
    pub fn expand_path(&self, path: &Path, sink: &mut Sink<'_>) -> io::Result<bool> {
        if std::fs::metadata(path)?.is_dir() {
            self.expand_dir(path, sink)
        } else {
            Ok(self.expand_file(path, true, sink))
        }
    }

    fn expand_dir(&self, dir: &Path, sink: &mut Sink<'_>) -> io::Result<bool> {
        let mut entries = std::fs::read_dir(dir)?
            .map(|e| e.map(|e| e.path()))
            .collect::<io::Result<Vec<PathBuf>>>()?;
        entries.sort();
        for path in entries {
            let go = if path.is_dir() {
                self.expand_dir(&path, sink)?
            } else {
                self.expand_file(&path, false, sink)
            };
            if !go {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// A file in a folder (`named` false) or named by the caller.
    fn expand_file(&self, path: &Path, named: bool, sink: &mut Sink<'_>) -> bool {
        if !named && (self.record_file)(path) {
            return sink(Member::File(path.to_path_buf()));
        }
        let mut head = Vec::new();
        let read = File::open(path).and_then(|f| f.take(SNIFF_BYTES as u64).read_to_end(&mut head));
        if read.is_err() {
            // The caller reads it again and reports why it cannot.
            return sink(Member::File(path.to_path_buf()));
        }
        let name = path.display().to_string();
        match Format::sniff(&head) {
            Some(Format::SevenZip) if is_first_volume(path) => match Volumes::open(path) {
                Ok(volumes) => {
                    self.expand_seekable(&name, Format::SevenZip, volumes, 1, true, sink)
                }
                Err(e) => sink(bad(&name, Format::SevenZip, &e)),
            },
            Some(format) => match File::open(path) {
                Ok(file) => self.expand_seekable(&name, format, file, 1, true, sink),
                Err(e) => sink(bad(&name, format, &e)),
            },
            None if named || looks_like_records(&head) => sink(Member::File(path.to_path_buf())),
            None => {
                self.skipped.fetch_add(1, Ordering::Relaxed);
                true
            }
        }
    }

    /// Expands bytes in memory named `name` (standard input, an upload
    /// body, a record file whose content is a container): a container by
    /// content is expanded, anything else handed back whole as
    /// [`Member::Bytes`]. Returns false when the sink stopped.
    pub fn expand_bytes(&self, name: &str, bytes: Vec<u8>, sink: &mut Sink<'_>) -> bool {
        match Format::sniff(&bytes) {
            Some(format) => self.expand_seekable(name, format, Cursor::new(bytes), 1, true, sink),
            None => sink(Member::Bytes {
                name: name.to_string(),
                bytes,
            }),
        }
    }

    /// Refuses a container at `depth` past the depth limit or once a
    /// global limit is spent: the problem to hand on, if any.
    fn refused(&self, name: &str, depth: u32) -> Option<Member> {
        if self.spent.load(Ordering::Relaxed) {
            return Some(limit(
                name,
                "not read: the import's limits on uncompressed bytes or members are spent".into(),
            ));
        }
        (depth > self.limits.max_depth).then(|| {
            limit(
                name,
                format!(
                    "containers nested deeper than {} levels (a gzip in a tar counts two)",
                    self.limits.max_depth
                ),
            )
        })
    }

    fn expand_seekable<R: Read + Seek>(
        &self,
        name: &str,
        format: Format,
        reader: R,
        depth: u32,
        named: bool,
        sink: &mut Sink<'_>,
    ) -> bool {
        if let Some(problem) = self.refused(name, depth) {
            return sink(problem);
        }
        match format {
            Format::Zip => self.zip(name, reader, depth, sink),
            Format::SevenZip => self.seven_zip(name, reader, depth, sink),
            Format::Tar => self.tar(name, reader, depth, sink),
            Format::Gzip | Format::Bzip2 | Format::Xz | Format::Zstd => {
                self.decompressed(name, format, reader, depth, named, sink)
            }
        }
    }

    /// The content of a compressed stream (gzip, bzip2, xz, zstd): a tar
    /// is read as it arrives, anything else whole, as one member that
    /// keeps the stream's name.
    fn decompressed<R: Read>(
        &self,
        name: &str,
        format: Format,
        reader: R,
        depth: u32,
        named: bool,
        sink: &mut Sink<'_>,
    ) -> bool {
        let mut reader: Box<dyn Read + '_> = match format {
            Format::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(reader)),
            Format::Xz => Box::new(lzma_rust2::XzReader::new(reader, true)),
            Format::Zstd => match zstd::stream::read::Decoder::new(reader) {
                Ok(d) => Box::new(d),
                Err(e) => return sink(bad(name, format, &e)),
            },
            _ => Box::new(flate2::read::MultiGzDecoder::new(reader)),
        };
        let mut head = Vec::new();
        if let Err(e) = (&mut reader).take(512).read_to_end(&mut head) {
            return sink(bad(name, format, &e));
        }
        let inner = Format::sniff(&head);
        let mut whole = Cursor::new(head).chain(reader);
        if inner == Some(Format::Tar) {
            if let Some(problem) = self.refused(name, depth + 1) {
                return sink(problem);
            }
            return self.tar(name, whole, depth + 1, sink);
        }
        self.member(name, None, &mut whole, depth, named, sink)
    }

    /// One member (or a stream's content) at `depth`: read whole under the
    /// limits, then expanded when it is a container, handed on when it
    /// holds records (or is `named`), skipped otherwise.
    fn member(
        &self,
        name: &str,
        declared: Option<u64>,
        reader: &mut dyn Read,
        depth: u32,
        named: bool,
        sink: &mut Sink<'_>,
    ) -> bool {
        let limits = &self.limits;
        if self.members.fetch_add(1, Ordering::Relaxed) >= limits.max_members {
            self.spent.store(true, Ordering::Relaxed);
            return sink(limit(
                name,
                format!("more than {} members in all", limits.max_members),
            ));
        }
        let too_large = || {
            limit(
                name,
                format!(
                    "more than {} bytes uncompressed in one member",
                    limits.max_member_bytes
                ),
            )
        };
        if declared.is_some_and(|n| n > limits.max_member_bytes) {
            return sink(too_large());
        }
        let left = limits
            .max_total_bytes
            .saturating_sub(self.total.load(Ordering::Relaxed));
        let cap = limits.max_member_bytes.min(left);
        let mut bytes = Vec::with_capacity(declared.unwrap_or(0).min(64 << 20) as usize);
        let read = reader.take(cap + 1).read_to_end(&mut bytes);
        let n = bytes.len() as u64;
        self.total.fetch_add(n, Ordering::Relaxed);
        if let Err(e) = read {
            return sink(Member::Problem(Problem {
                name: name.to_string(),
                reason: BAD_CONTAINER,
                message: format!("cannot read this member: {e}"),
            }));
        }
        if n > cap {
            if cap < limits.max_member_bytes {
                self.spent.store(true, Ordering::Relaxed);
                return sink(limit(
                    name,
                    format!(
                        "more than {} bytes uncompressed in all",
                        limits.max_total_bytes
                    ),
                ));
            }
            return sink(too_large());
        }
        match Format::sniff(&bytes) {
            Some(format) => {
                self.expand_seekable(name, format, Cursor::new(bytes), depth + 1, named, sink)
            }
            None if named || looks_like_records(&bytes) => sink(Member::Bytes {
                name: name.to_string(),
                bytes,
            }),
            None => {
                self.skipped.fetch_add(1, Ordering::Relaxed);
                true
            }
        }
    }

    fn tar<R: Read>(&self, name: &str, reader: R, depth: u32, sink: &mut Sink<'_>) -> bool {
        let mut archive = tar::Archive::new(reader);
        let entries = match archive.entries() {
            Ok(entries) => entries,
            Err(e) => return sink(bad(name, Format::Tar, &e)),
        };
        for entry in entries {
            let mut entry = match entry {
                Ok(entry) => entry,
                // A broken stream: nothing after it can be found.
                Err(e) => return sink(bad(name, Format::Tar, &e)),
            };
            if !entry.header().entry_type().is_file() {
                continue;
            }
            if self.spent.load(Ordering::Relaxed) {
                break;
            }
            let member = format!(
                "{name}{SEPARATOR}{}",
                String::from_utf8_lossy(&entry.path_bytes())
            );
            let size = entry.size();
            if !self.member(&member, Some(size), &mut entry, depth, false, sink) {
                return false;
            }
        }
        true
    }

    fn zip<R: Read + Seek>(&self, name: &str, reader: R, depth: u32, sink: &mut Sink<'_>) -> bool {
        let mut archive = match zip::ZipArchive::new(reader) {
            Ok(archive) => archive,
            Err(e) => return sink(bad(name, Format::Zip, &e)),
        };
        for i in 0..archive.len() {
            if self.spent.load(Ordering::Relaxed) {
                break;
            }
            let mut file = match archive.by_index(i) {
                Ok(file) => file,
                Err(e) => {
                    let member = format!("{name}{SEPARATOR}#{}", i + 1);
                    if !sink(bad(&member, Format::Zip, &e)) {
                        return false;
                    }
                    continue;
                }
            };
            if file.is_dir() {
                continue;
            }
            let member = format!(
                "{name}{SEPARATOR}{}",
                String::from_utf8_lossy(file.name_raw())
            );
            let size = file.size();
            if !self.member(&member, Some(size), &mut file, depth, false, sink) {
                return false;
            }
        }
        true
    }

    fn seven_zip<R: Read + Seek>(
        &self,
        name: &str,
        reader: R,
        depth: u32,
        sink: &mut Sink<'_>,
    ) -> bool {
        let mut archive =
            match sevenz_rust2::ArchiveReader::new(reader, sevenz_rust2::Password::empty()) {
                Ok(archive) => archive,
                Err(e) => return sink(bad(name, Format::SevenZip, &e)),
            };
        let mut go = true;
        let read = archive.for_each_entries(|entry, data| {
            if entry.is_directory() || !entry.has_stream() {
                return Ok(true);
            }
            if self.spent.load(Ordering::Relaxed) {
                return Ok(false);
            }
            let member = format!("{name}{SEPARATOR}{}", entry.name());
            go = self.member(&member, Some(entry.size()), data, depth, false, sink);
            Ok(go)
        });
        match read {
            Err(e) if go => sink(bad(name, Format::SevenZip, &e)),
            _ => go,
        }
    }
}

fn bad(name: &str, format: Format, e: &dyn std::fmt::Display) -> Member {
    Member::Problem(Problem {
        name: name.to_string(),
        reason: BAD_CONTAINER,
        message: format!("cannot read this {} container: {e}", format.name()),
    })
}

fn limit(name: &str, what: String) -> Member {
    Member::Problem(Problem {
        name: name.to_string(),
        reason: ARCHIVE_LIMIT,
        message: format!(
            "{what}: refused as a possible archive bomb (the import's limits can be raised)"
        ),
    })
}

/// Whether `path` names the first of split volumes: `x.7z.001`.
fn is_first_volume(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "001")
}

/// Split volumes (`x.7z.001`, `x.7z.002`, …: the archive's bytes cut in
/// pieces) read as one file.
struct Volumes {
    /// Each volume and its length in bytes.
    files: Vec<(File, u64)>,
    pos: u64,
    len: u64,
}

impl Volumes {
    /// The volumes from `first` (`….001`) on, as far as they are numbered
    /// without a gap.
    fn open(first: &Path) -> io::Result<Volumes> {
        let stem = first.with_extension("");
        let mut files = Vec::new();
        let mut len = 0;
        for i in 1.. {
            let path = PathBuf::from(format!("{}.{i:03}", stem.display()));
            let file = match File::open(&path) {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::NotFound && i > 1 => break,
                Err(e) => return Err(e),
            };
            let n = file.metadata()?.len();
            len += n;
            files.push((file, n));
        }
        Ok(Volumes { files, pos: 0, len })
    }
}

impl Read for Volumes {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut start = 0;
        for (file, n) in &mut self.files {
            if self.pos < start + *n {
                let offset = self.pos - start;
                file.seek(SeekFrom::Start(offset))?;
                let want = buf.len().min((*n - offset) as usize);
                let got = file.read(&mut buf[..want])?;
                self.pos += got as u64;
                return Ok(got);
            }
            start += *n;
        }
        Ok(0)
    }
}

impl Seek for Volumes {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let pos = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = pos.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the first volume's start",
            )
        })?;
        Ok(self.pos)
    }
}
