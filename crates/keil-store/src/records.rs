//! The `record` column of `games` and `refused`: each record is stored
//! zstd-compressed with its size, and read back here.

use crate::error::{Error, Result};
use crate::ids::GameId;

/// zstd level for the stored record text.
pub const ZSTD_LEVEL: i32 = 5;

/// `text` compressed as the store keeps records (zstd at [`ZSTD_LEVEL`],
/// with its size). Compressing into memory does not fail; an empty blob
/// stands for the impossible case.
pub fn compress(text: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(text, ZSTD_LEVEL).unwrap_or_default()
}

/// Decompresses a stored record.
///
/// # Errors
/// [`crate::Error::Corrupt`] for a record that does not decompress or is
/// not UTF-8.
pub fn decompress(game: GameId, blob: &[u8]) -> Result<String> {
    RecordReader::default().text(game, blob).map(str::to_string)
}

/// The largest record [`RecordReader`] decompresses into its buffer, in
/// bytes (a larger one is read as a stream).
const MAX_RECORD_BYTES: u64 = 64 << 20;

/// Decompresses stored records one after another with one zstd context
/// and one buffer (a search that reads every record of the archive,
/// `patterns/variations.rs`, allocates neither per record).
#[derive(Default)]
pub struct RecordReader {
    context: Option<zstd::bulk::Decompressor<'static>>,
    bytes: Vec<u8>,
}

impl RecordReader {
    /// Game `game`'s stored record `blob`, decompressed (valid until the
    /// next call).
    ///
    /// # Errors
    /// [`crate::Error::Corrupt`] for a record that does not decompress.
    pub fn bytes(&mut self, game: GameId, blob: &[u8]) -> Result<&[u8]> {
        let corrupt = |e: std::io::Error| corrupt_record(game, e);
        // Records are compressed with their size (`zstd::bulk`); one
        // without is read as a stream.
        match zstd::zstd_safe::get_frame_content_size(blob) {
            Ok(Some(n)) if n <= MAX_RECORD_BYTES => {
                self.bytes.clear();
                self.bytes.reserve(n as usize);
                let context = match &mut self.context {
                    Some(c) => c,
                    None => self
                        .context
                        .insert(zstd::bulk::Decompressor::new().map_err(corrupt)?),
                };
                context
                    .decompress_to_buffer(blob, &mut self.bytes)
                    .map_err(corrupt)?;
            }
            _ => self.bytes = zstd::stream::decode_all(blob).map_err(corrupt)?,
        }
        Ok(&self.bytes)
    }

    /// [`RecordReader::bytes`] as text.
    ///
    /// # Errors
    /// [`crate::Error::Corrupt`] for a record that does not decompress or is
    /// not UTF-8.
    pub fn text(&mut self, game: GameId, blob: &[u8]) -> Result<&str> {
        let bytes = self.bytes(game, blob)?;
        std::str::from_utf8(bytes).map_err(|e| corrupt_record(game, e))
    }
}

/// The error of game `game`'s stored record that does not read back.
pub fn corrupt_record(game: GameId, e: impl std::fmt::Display) -> Error {
    Error::Corrupt {
        game,
        reason: format!("record: {e}"),
    }
}
