//! What SQLite's error codes say of the disk under the store: the one
//! place that reads them.

use crate::error::{Disk, Error};

/// A storage error of SQLite's (`e` a `rusqlite` or migration error),
/// with what its codes say of the disk.
pub fn error(what: &'static str, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    let disk = Disk {
        full: out_of_space(&e).unwrap_or(false),
        unwritable: unwritable(&e).unwrap_or(false),
    };
    crate::error::engine_error(what, e, disk)
}

/// Whether a storage error's cause `e` is SQLite's full disk
/// (`SQLITE_FULL`, or `SQLITE_IOERR`: what a failed write reports); `None`
/// when `e` is not SQLite's.
fn out_of_space(e: &(dyn std::error::Error + 'static)) -> Option<bool> {
    let rusqlite::Error::SqliteFailure(f, _) = e.downcast_ref::<rusqlite::Error>()? else {
        return None;
    };
    Some(matches!(
        f.code,
        rusqlite::ErrorCode::DiskFull | rusqlite::ErrorCode::SystemIoFailure
    ))
}

/// Whether a storage error's cause `e` says SQLite cannot write (a
/// read-only or full volume, no permission, or the WAL index that cannot
/// be created or grown); `None` when `e` is not SQLite's.
fn unwritable(e: &(dyn std::error::Error + 'static)) -> Option<bool> {
    use rusqlite::ErrorCode as C;
    use rusqlite::ffi;
    if let Some(rusqlite_migration::Error::RusqliteError { err, .. }) =
        e.downcast_ref::<rusqlite_migration::Error>()
    {
        return unwritable(err);
    }
    let rusqlite::Error::SqliteFailure(f, _) = e.downcast_ref::<rusqlite::Error>()? else {
        return None;
    };
    let write_io = [
        ffi::SQLITE_IOERR_WRITE,
        ffi::SQLITE_IOERR_TRUNCATE,
        ffi::SQLITE_IOERR_SHMOPEN,
        ffi::SQLITE_IOERR_SHMSIZE,
    ];
    Some(
        matches!(
            f.code,
            C::ReadOnly | C::CannotOpen | C::DiskFull | C::PermissionDenied
        ) || write_io.contains(&f.extended_code),
    )
}
