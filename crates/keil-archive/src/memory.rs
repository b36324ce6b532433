//! The derived indexes' memory: what each holds in the process's heap and
//! what it maps from the node's cache directory, and the budget under which
//! mapped parts are copied ("pinned") into the heap.
//!
//! Without a cache directory every index is in the heap. With one
//! ([`Archive::cache_in`](crate::Archive::cache_in)) the position segments and the pattern index's
//! columns, events and region segments are files mapped in place: their
//! pages are the system's page cache, read from disk on demand and given
//! back under memory pressure. [`Archive::pin_indexes`](crate::Archive::pin_indexes) then copies the
//! hottest of them into the heap, in a fixed order, until a budget of
//! bytes is spent: the rest stays on disk and is read on demand.

use serde::Serialize;

/// Bytes one index holds, in the heap and mapped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Held {
    /// Bytes in the process's heap (resident: this machine's kind has no
    /// swap).
    pub heap: u64,
    /// Bytes mapped from the node's cache directory: the system's page
    /// cache, read on demand and given back under memory pressure.
    pub mapped: u64,
}

/// The derived indexes' memory (from [`Archive::index_memory`](crate::Archive::index_memory) or
/// [`Archive::pin_indexes`](crate::Archive::pin_indexes)). The text index (tantivy) is always mapped
/// from its own folder and is not counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IndexMemory {
    /// The position index: segments (heap or mapped), their block
    /// directories and the game facts searches filter on (heap).
    pub positions: Held,
    /// The pattern index: columns, events and region segments (heap or
    /// mapped), per-game lines, winners and answer order, and the
    /// searches' idle per-game tallies (heap); zero before it is loaded.
    pub patterns: Held,
    /// Bytes copied from mapped files into the heap by the last
    /// [`Archive::pin_indexes`](crate::Archive::pin_indexes) (0 before any).
    pub pinned: u64,
}

impl IndexMemory {
    /// Heap bytes of both indexes.
    pub fn heap(&self) -> u64 {
        self.positions.heap + self.patterns.heap
    }

    /// Mapped bytes of both indexes.
    pub fn mapped(&self) -> u64 {
        self.positions.mapped + self.patterns.mapped
    }
}

/// What is left of a pinning budget (bytes) while mapped arrays are
/// offered to it in order: an array is pinned whole when it fits in what
/// is left, and skipped otherwise (a smaller one after it may still fit).
#[derive(Debug)]
pub(crate) struct Pins {
    left: u64,
    /// Bytes granted so far.
    pub(crate) pinned: u64,
}

impl Pins {
    /// A budget of `bytes`.
    pub(crate) fn new(bytes: u64) -> Pins {
        Pins {
            left: bytes,
            pinned: 0,
        }
    }

    /// Whether an array of `bytes` may be copied into the heap (and, if so,
    /// takes them from the budget).
    pub(crate) fn take(&mut self, bytes: usize) -> bool {
        let bytes = bytes as u64;
        if bytes > self.left {
            return false;
        }
        self.left -= bytes;
        self.pinned += bytes;
        true
    }
}

/// A new cache file written without the page cache where the file system
/// allows it (`O_DIRECT` on Linux: the bytes go from an aligned buffer of
/// this writer's straight to the disk), else as any file.
///
/// Why: a new node writes its position segments (gigabytes at a million
/// games) into its cache directory. Through the page cache every byte is
/// copied into fresh pages, the largest single cost of a node's start on
/// the machines measured (BENCHMARKS.md, "Node start"); a direct write is
/// a DMA from the same warm buffer, several times faster there. Its pages
/// are then read from the disk as searches touch them, or ahead of them
/// ([`read_ahead`]).
pub(crate) struct DirectFile {
    file: std::fs::File,
    /// [`DIRECT_CHUNK`] bytes from `at`, aligned to [`DIRECT_ALIGN`].
    buffer: Vec<u8>,
    at: usize,
    /// Bytes of the buffer filled.
    filled: usize,
    /// Bytes written to the file.
    written: u64,
    /// Whether the file was opened with `O_DIRECT`.
    direct: bool,
}

/// The alignment of a direct write's memory, offset and length (bytes):
/// a page, which is also every Linux file system's largest logical block.
const DIRECT_ALIGN: usize = 4096;
/// The bytes a direct write writes at a time: 1 MiB.
const DIRECT_CHUNK: usize = 1 << 20;

impl DirectFile {
    /// Creates (or truncates) the file at `path`.
    ///
    /// # Errors
    /// As [`std::fs::File::create`].
    pub(crate) fn create(path: &std::path::Path) -> std::io::Result<DirectFile> {
        let open = |flags: i32| {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .custom_flags(flags)
                .open(path)
        };
        // A file system without direct I/O (tmpfs) refuses the flag.
        #[cfg(target_os = "linux")]
        let direct = open(rustix::fs::OFlags::DIRECT.bits() as i32).ok();
        #[cfg(not(target_os = "linux"))]
        let direct = None;
        let (file, direct) = match direct {
            Some(f) => (f, true),
            None => (open(0)?, false),
        };
        let buffer = vec![0u8; DIRECT_CHUNK + DIRECT_ALIGN];
        let at = buffer.as_ptr().align_offset(DIRECT_ALIGN);
        Ok(DirectFile {
            file,
            buffer,
            at,
            filled: 0,
            written: 0,
            direct,
        })
    }

    /// Writes the buffer's first `len` bytes (a multiple of
    /// [`DIRECT_ALIGN`] for a direct file).
    fn write_buffer(&mut self, len: usize) -> std::io::Result<()> {
        use std::io::Write;
        let at = self.at;
        let bytes = &self.buffer[at..at + len];
        match self.file.write_all(bytes) {
            // A file system may take the flag at open and refuse the
            // write (EINVAL, nothing written): the rest goes through the
            // page cache.
            #[cfg(target_os = "linux")]
            Err(e)
                if self.direct
                    && e.raw_os_error() == Some(rustix::io::Errno::INVAL.raw_os_error()) =>
            {
                let flags = rustix::fs::fcntl_getfl(&self.file)?;
                rustix::fs::fcntl_setfl(&self.file, flags - rustix::fs::OFlags::DIRECT)?;
                self.direct = false;
                self.file.write_all(bytes)?;
            }
            r => r?,
        }
        self.written += len as u64;
        self.filled = 0;
        Ok(())
    }

    /// Writes what is buffered and cuts the file to the bytes written (a
    /// direct write's last block is padded).
    ///
    /// # Errors
    /// Write errors.
    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        let len = self.filled as u64 + self.written;
        if self.filled > 0 {
            let padded = if self.direct {
                self.filled.next_multiple_of(DIRECT_ALIGN)
            } else {
                self.filled
            };
            let (from, to) = (self.at + self.filled, self.at + padded);
            self.buffer[from..to].fill(0);
            self.write_buffer(padded)?;
        }
        self.file.set_len(len)
    }
}

/// Asks the kernel to read file `file` into the page cache ahead of use
/// (`POSIX_FADV_WILLNEED`): advice only, a kernel that ignores it reads on
/// demand.
pub(crate) fn read_ahead(file: &std::fs::File) {
    #[cfg(target_os = "linux")]
    let _ = rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::WillNeed);
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

impl std::io::Write for DirectFile {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let n = bytes.len().min(DIRECT_CHUNK - self.filled);
        let from = self.at + self.filled;
        self.buffer[from..from + n].copy_from_slice(&bytes[..n]);
        self.filled += n;
        if self.filled == DIRECT_CHUNK {
            self.write_buffer(DIRECT_CHUNK)?;
        }
        Ok(n)
    }

    /// Buffered bytes are written by [`DirectFile::finish`] (a direct
    /// write takes whole blocks).
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Pins;

    #[test]
    fn pins_take_what_fits_and_skip_the_rest() {
        let mut pins = Pins::new(100);
        assert!(pins.take(60));
        assert!(!pins.take(50), "past what is left");
        assert!(pins.take(40), "a smaller one after still fits");
        assert!(!pins.take(1));
        assert!(pins.take(0));
        assert_eq!(pins.pinned, 100);
    }

    #[test]
    fn a_direct_file_holds_what_was_written_whatever_the_pieces() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        // Past two whole chunks with a tail, exactly one chunk, less than
        // a block, nothing.
        for len in [2 * super::DIRECT_CHUNK + 1234, super::DIRECT_CHUNK, 17, 0] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let path = dir.path().join(format!("{len}.seg"));
            let mut f = super::DirectFile::create(&path).unwrap();
            for piece in bytes.chunks(7777) {
                f.write_all(piece).unwrap();
            }
            f.finish().unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), bytes, "{len} bytes");
        }
        // Written again over a longer file, it holds only the new bytes.
        let path = dir.path().join("17.seg");
        let mut f = super::DirectFile::create(&path).unwrap();
        f.write_all(b"abc").unwrap();
        f.finish().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"abc");
        // A direct write the file system refuses (here: from memory out of
        // alignment, which ext4 refuses and tmpfs takes) goes through the
        // page cache, nothing lost.
        let bytes: Vec<u8> = (0..super::DIRECT_CHUNK + 5).map(|i| i as u8).collect();
        let path = dir.path().join("refused.seg");
        let mut f = super::DirectFile::create(&path).unwrap();
        let direct = f.direct;
        f.at += 1;
        f.write_all(&bytes).unwrap();
        f.finish().unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            bytes,
            "direct at first: {direct}"
        );
    }
}
