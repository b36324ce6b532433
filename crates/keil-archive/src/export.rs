//! Bulk export: the stored records of the games a filter selects, or of
//! the games a search found, oldest first, handed one at a time or written
//! into a [`keil_container::Bundle`] (an SGF collection or a zip), memory
//! staying that of one game whatever the count. The one naming of
//! `keil export --db` and the server's downloads lives here.

use rusqlite::Row;

use crate::games::{SUMMARY_COLUMNS, SUMMARY_FROM, filter_sql, summary_of};
use crate::model::{GameFilter, GameSummary};
use crate::{GameId, Games, Result, prepare};

impl Games<'_> {
    /// Every game that passes `filter`, oldest first (by the first day of
    /// its date, then id), with its stored record (the normalised SGF,
    /// whose game information is the record's own text), read in one pass
    /// over one read connection: memory stays that of one game, whatever
    /// the count. `each` returns false to stop. Returns the number of
    /// games handed to `each`.
    ///
    /// # Errors
    /// SQLite errors; [`crate::Error::Corrupt`] for a record that does not
    /// decompress; the first error `each` returns.
    pub fn export(
        &self,
        filter: &GameFilter,
        each: &mut dyn FnMut(&GameSummary, &str) -> Result<bool>,
    ) -> Result<u64> {
        let conn = self.archive.reader()?;
        let (cond, params) = filter_sql(filter);
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS}, g.record FROM {SUMMARY_FROM} WHERE {cond} \
             ORDER BY g.date, g.id"
        );
        let mut stmt = conn.prepare(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
        let mut n = 0;
        while let Some(row) = rows.next()? {
            let (summary, record) = with_record(row)?;
            n += 1;
            if !each(&summary, &record)? {
                break;
            }
        }
        Ok(n)
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
        let conn = self.archive.reader()?;
        let mut stmt = conn.prepare(&format!(
            "SELECT {SUMMARY_COLUMNS}, g.record FROM {SUMMARY_FROM} WHERE g.id = ?"
        ))?;
        let mut n = 0;
        for &id in ids {
            let mut rows = stmt.query([id.sql()])?;
            let Some(row) = rows.next()? else {
                continue;
            };
            let (g, record) = with_record(row)?;
            n += 1;
            let written = add_to_bundle(bundle, &g, &record);
            if written.is_err() {
                return Ok((n, written));
            }
        }
        Ok((n, Ok(())))
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

/// A row of `SUMMARY_COLUMNS` and the record: the summary and the
/// decompressed record.
fn with_record(row: &Row<'_>) -> Result<(GameSummary, String)> {
    let summary = summary_of(row)?;
    let blob: Vec<u8> = row.get(22)?;
    let record = prepare::decompress(summary.id, &blob)?;
    Ok((summary, record))
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
