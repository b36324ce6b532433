//! Bulk export: the stored records of the games a filter selects, or of
//! the games a search found, oldest first, handed one at a time or written
//! into a [`keil_container::Bundle`] (an SGF collection or a zip), memory
//! staying that of one game whatever the count. The one naming of
//! `keil export --db` and the server's downloads lives here.

use crate::error::Result;
use crate::games::Games;
use keil_store::ids::GameId;
use keil_store::model::{GameFilter, GameSummary};

impl Games<'_> {
    /// Every game that passes `filter`, oldest first (by the first day of
    /// its date, then id), with its stored record (the normalised SGF,
    /// whose game information is the record's own text), read in one pass
    /// over one read connection: memory stays that of one game, whatever
    /// the count. `each` returns false to stop. Returns the number of
    /// games handed to `each`.
    ///
    /// # Errors
    /// Storage errors; [`crate::Error::Corrupt`] for a record that does not
    /// decompress; the first error `each` returns.
    pub fn export(
        &self,
        filter: &GameFilter,
        each: &mut dyn FnMut(&GameSummary, &str) -> Result<bool>,
    ) -> Result<u64> {
        keil_store::games::export(self.node.reader()?.read(), filter, each)
    }

    /// The games `ids`, in that order (ids not stored are skipped), written
    /// into `bundle` as [`Games::export_into`] names them: the download of
    /// the games a position or pattern search found. Returns the games
    /// written and the bundle's first write error, which ends the export.
    ///
    /// # Errors
    /// As [`Games::export`].
    pub fn export_ids_into<W: std::io::Write>(
        &self,
        ids: &[GameId],
        bundle: &mut keil_container::Bundle<W>,
    ) -> Result<(u64, std::io::Result<()>)> {
        let mut written = Ok(());
        let n =
            keil_store::games::export_ids(self.node.reader()?.read(), ids, &mut |g,
                                                                                 r|
             -> Result<
                bool,
            > {
                written = add_to_bundle(bundle, g, r);
                Ok(written.is_ok())
            })?;
        Ok((n, written))
    }

    /// Writes every game `filter` selects into `bundle`, in
    /// [`Games::export`]'s order, each named `{id}.{ext}` (`42.sgf`,
    /// `7.keil`): the one naming of `keil export --db` and the server's
    /// downloads. Returns the games written and the bundle's first write
    /// error (a closed pipe, a client gone), which ends the export.
    ///
    /// # Errors
    /// As [`Games::export`].
    pub fn export_into<W: std::io::Write>(
        &self,
        filter: &GameFilter,
        bundle: &mut keil_container::Bundle<W>,
    ) -> Result<(u64, std::io::Result<()>)> {
        let mut written = Ok(());
        let n = self.export(filter, &mut |g, record| {
            written = add_to_bundle(bundle, g, record);
            Ok(written.is_ok())
        })?;
        Ok((n, written))
    }
}

/// Adds a game's record to `bundle` as `{id}.{ext}`.
fn add_to_bundle<W: std::io::Write>(
    bundle: &mut keil_container::Bundle<W>,
    g: &GameSummary,
    record: &str,
) -> std::io::Result<()> {
    let name = format!("{}.{}", g.id, keil_record::file_extension(g.kind));
    bundle.add(&name, record)
}
