//! [`ImportProgress`]: the counts of an import so far, which the import
//! reports as it goes and an import that stopped part way carries.

use std::time::Duration;

use serde::Serialize;

/// Counts so far, given to the progress callback after every batch and
/// while a batch is being read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ImportProgress {
    /// Game trees read (valid or not).
    pub games_read: u64,
    /// Games newly stored.
    pub imported: u64,
    /// Valid games already in the archive (same normalised record).
    pub duplicates: u64,
    /// Games refused.
    pub invalid: u64,
    /// Records of stored games with other headers, linked to them
    /// (`Fate::Merged`).
    pub merged: u64,
    /// New games linked as similar to a stored game: the same moves with
    /// game information of another game (a replay, a relay).
    pub similar: u64,
    /// Stored games that a longer record of the same game replaced: each
    /// is now a record of the new game (and logged as a removal that names
    /// it).
    pub promoted: u64,
    /// Members read from archives and compressed files (records or not).
    pub members: u64,
    /// Files in folders and members of archives passed over: neither an
    /// archive nor SGF text.
    pub skipped: u64,
    /// Time since the import started.
    #[serde(serialize_with = "secs")]
    pub elapsed: Duration,
}

fn secs<S: serde::Serializer>(d: &Duration, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}
