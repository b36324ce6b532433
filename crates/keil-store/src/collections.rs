//! The collections games belong to (`collections`, `games.collection_id`;
//! schema 16): a name per import source, given by the import
//! (`keil import --collection NAME`, the folder or archive named, an
//! upload's token name) and kept by every game that import stores.

use std::collections::HashMap;

use crate::error::Result;
use crate::sql::params;
use crate::sql::{Param, Read, Write};

/// The id of the collection named `name`, created if there is none.
///
/// # Errors
/// Storage errors.
pub fn collection_id(w: Write<'_>, name: &str) -> Result<i64> {
    w.execute(
        "INSERT INTO collections (name) VALUES (?) ON CONFLICT(name) DO NOTHING",
        params![name],
    )?;
    w.read()
        .value("SELECT id FROM collections WHERE name = ?", params![name])
}

/// Every collection: `(id, name)`, by id.
///
/// # Errors
/// Storage errors.
pub fn collections(r: Read<'_>) -> Result<Vec<(i64, String)>> {
    r.query(
        "SELECT id, name FROM collections ORDER BY id",
        params![],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )
}

/// A game stored before collections (schema 16) and not yet in one: its
/// id, its import and where its record came from (`games.source`).
#[derive(Debug)]
pub struct Unlabelled {
    /// `games.id`.
    pub id: i64,
    /// `games.import_id` (`None` for none).
    pub import_id: Option<i64>,
    /// The file or archive member the record came from.
    pub source: Option<String>,
}

/// Up to `limit` games without a collection with ids above `after`, in
/// id order.
///
/// # Errors
/// Storage errors.
pub fn unlabelled(r: Read<'_>, after: i64, limit: usize) -> Result<Vec<Unlabelled>> {
    r.query(
        &format!(
            "SELECT id, import_id, source FROM games WHERE collection_id IS NULL AND id > ? \
             ORDER BY id LIMIT {limit}"
        ),
        params![after],
        |row| {
            Ok(Unlabelled {
                id: row.get(0)?,
                import_id: row.get(1)?,
                source: row.get(2)?,
            })
        },
    )
}

/// Every import's sources (`imports.sources`: one name per line) and
/// uploader (an upload token's name), by import id.
///
/// # Errors
/// Storage errors.
pub fn import_sources(r: Read<'_>) -> Result<HashMap<i64, (String, Option<String>)>> {
    let rows: Vec<(i64, String, Option<String>)> = r.query(
        "SELECT id, sources, uploader FROM imports",
        params![],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )?;
    Ok(rows.into_iter().map(|(id, s, u)| (id, (s, u))).collect())
}

/// Import `id`'s sources and uploader, as [`import_sources`] gives every
/// import's; `None` when no import has this id.
///
/// # Errors
/// Storage errors.
pub fn import_source(r: Read<'_>, id: i64) -> Result<Option<(String, Option<String>)>> {
    r.query_opt(
        "SELECT sources, uploader FROM imports WHERE id = ?",
        params![id],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )
}

/// Puts the games `ids` in collection `collection`.
///
/// # Errors
/// Storage errors.
pub fn set_collection(w: Write<'_>, collection: i64, ids: &[i64]) -> Result<()> {
    for chunk in ids.chunks(crate::sql::IN_CHUNK) {
        let marks = vec!["?"; chunk.len()].join(",");
        let mut p = vec![Param::Int(collection)];
        p.extend(chunk.iter().map(|&i| Param::Int(i)));
        w.execute(
            &format!("UPDATE games SET collection_id = ? WHERE id IN ({marks})"),
            &p,
        )?;
    }
    Ok(())
}
