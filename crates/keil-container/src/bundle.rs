//! Writing many records as one download: a collection (one `.sgf` text,
//! records one after another) or a zip archive of one file per game,
//! written as a stream (no seek, nothing held back: a zip goes straight
//! to standard output or to an HTTP answer).

use std::io::{self, Write};
use std::path::Path;

/// What [`Bundle`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BundleFormat {
    /// One collection: every record, one after another, a newline after
    /// each (`application/x-go-sgf`).
    Sgf,
    /// A zip archive, one deflated file per record (`application/zip`).
    Zip,
}

impl BundleFormat {
    /// [`BundleFormat::Zip`] for a path ending in `.zip` (any case), else
    /// [`BundleFormat::Sgf`].
    pub fn of_path(path: &Path) -> BundleFormat {
        match path.extension() {
            Some(e) if e.eq_ignore_ascii_case("zip") => BundleFormat::Zip,
            _ => BundleFormat::Sgf,
        }
    }

    /// The media type of the bundle.
    pub fn content_type(self) -> &'static str {
        match self {
            BundleFormat::Sgf => "application/x-go-sgf",
            BundleFormat::Zip => "application/zip",
        }
    }
}

enum Inner<W: Write> {
    Sgf(W),
    Zip(Box<zip::ZipWriter<zip::write::StreamWriter<W>>>),
}

/// A bundle being written to `W`: [`Bundle::add`] each record, then
/// [`Bundle::finish`] (a zip's central directory is written there).
pub struct Bundle<W: Write> {
    inner: Inner<W>,
}

impl<W: Write> Bundle<W> {
    /// A bundle of `format` written to `out`.
    pub fn new(format: BundleFormat, out: W) -> Bundle<W> {
        let inner = match format {
            BundleFormat::Sgf => Inner::Sgf(out),
            BundleFormat::Zip => Inner::Zip(Box::new(zip::ZipWriter::new_stream(out))),
        };
        Bundle { inner }
    }

    /// Adds one record; `name` is its file name in a zip (`42.sgf`), unused
    /// in a collection.
    ///
    /// # Errors
    /// The writer's errors (a closed pipe, a gone client).
    pub fn add(&mut self, name: &str, record: &str) -> io::Result<()> {
        match &mut self.inner {
            Inner::Sgf(w) => {
                w.write_all(record.as_bytes())?;
                if !record.ends_with('\n') {
                    w.write_all(b"\n")?;
                }
                Ok(())
            }
            Inner::Zip(z) => {
                let options = zip::write::SimpleFileOptions::default()
                    .compression_method(zip::CompressionMethod::Deflated);
                z.start_file(name, options).map_err(io::Error::other)?;
                z.write_all(record.as_bytes())
            }
        }
    }

    /// Ends the bundle and returns the writer (flushed).
    ///
    /// # Errors
    /// The writer's errors.
    pub fn finish(self) -> io::Result<W> {
        let mut out = match self.inner {
            Inner::Sgf(w) => w,
            Inner::Zip(z) => z.finish().map_err(io::Error::other)?.into_inner(),
        };
        out.flush()?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Expander, Limits, Member};

    #[test]
    fn a_streamed_zip_reads_back_member_by_member() {
        let mut b = Bundle::new(BundleFormat::Zip, Vec::new());
        b.add("1.sgf", "(;GM[1]SZ[9];B[ee])").unwrap();
        b.add("2.keil", "(;GM[Keil]SZ[2];B[button])").unwrap();
        let zip = b.finish().unwrap();
        let x = Expander::new(Limits::default(), |_| false);
        let mut names = Vec::new();
        x.expand_bytes("out.zip", zip, &mut |m| {
            if let Member::Bytes { name, .. } = m {
                names.push(name);
            }
            true
        });
        assert_eq!(names, ["out.zip!1.sgf", "out.zip!2.keil"]);
        let mut b = Bundle::new(BundleFormat::Sgf, Vec::new());
        b.add("1.sgf", "(;GM[1])").unwrap();
        b.add("2.sgf", "(;GM[1])\n").unwrap();
        assert_eq!(b.finish().unwrap(), b"(;GM[1])\n(;GM[1])\n");
    }
}
