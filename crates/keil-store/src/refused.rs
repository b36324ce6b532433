//! Refused records kept with their verdicts (`import_problems` rows whose
//! `record` is set, schema 14): the one row an import writes for each
//! refusal, the lists, one record, the count, the export, removal and the
//! rows reindex checks again. The logic is `crate::refused`'s.

use crate::error::{Error, Result};
use crate::ids::ImportId;
use crate::ids::RefusedId;
use crate::model::refused::Problem;
use crate::model::refused::{Kept, RefusedFilter, RefusedOrder, RefusedSummary};
use crate::sql::Relay;
use crate::sql::params;
use crate::sql::{Read, Write};

/// The columns [`summary`] reads, in order (`p` is `import_problems`,
/// `i` its import).
const SUMMARY_COLUMNS: &str = "p.id, p.import_id, i.started_at, p.source, p.game_index, \
     p.reason, p.message, p.ply, p.mv, p.line, p.col, p.kind, p.size";

/// The rows [`SUMMARY_COLUMNS`] read from.
const SUMMARY_FROM: &str = "import_problems p JOIN imports i ON i.id = p.import_id";

/// One row of [`SUMMARY_COLUMNS`].
fn summary(r: &crate::sql::Row<'_>) -> Result<RefusedSummary> {
    Ok(RefusedSummary {
        id: RefusedId::from_sql(r.get(0)?),
        import_id: ImportId::from_sql(r.get(1)?),
        refused_at: r.get(2)?,
        source: r.get(3)?,
        index: r.get::<i64>(4)?.max(0) as usize,
        reason: r.get(5)?,
        message: r.get(6)?,
        ply: r.get(7)?,
        mv: r.get(8)?,
        line: r.get(9)?,
        column: r.get(10)?,
        kind: r.get(11)?,
        size: r.get(12)?,
    })
}

/// Logs refusal `p` of import `import_id`, keeping the record `kept`
/// (the game tree's text as it came) unless a record with the same hash
/// is kept already: then the row logs the refusal with the hash and no
/// second copy of the text. Returns whether the text was kept.
pub fn insert(w: Write<'_>, import_id: i64, p: &Problem, kept: Option<&Kept>) -> Result<bool> {
    let hash = kept.map(Kept::hash);
    let already = match &hash {
        Some(h) => w
            .read()
            .query_opt(
                "SELECT id FROM import_problems WHERE hash = ? AND record IS NOT NULL LIMIT 1",
                params![&h[..]],
                |r| r.get::<i64>(0),
            )?
            .is_some(),
        None => false,
    };
    let record = kept
        .filter(|_| !already)
        // Compressing into a Vec cannot fail for an in-memory buffer.
        .map(|k| crate::records::compress(k.text.as_bytes()));
    w.execute(
        "INSERT INTO import_problems (import_id, source, game_index, reason, message, ply, \
         line, col, mv, record, hash, kind, size) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        params![
            import_id,
            p.source,
            p.index as i64,
            p.reason,
            p.message,
            p.ply,
            p.line,
            p.column,
            p.mv,
            record,
            hash.as_ref().map(|h| &h[..]),
            kept.and_then(|k| k.kind),
            kept.and_then(|k| k.size),
        ],
    )?;
    Ok(record.is_some())
}

/// The kept refused records that pass `filter`, in its order, at most
/// `limit` of them.
pub fn list(conn: Read<'_>, filter: &RefusedFilter, limit: usize) -> Result<Vec<RefusedSummary>> {
    let mut cond = vec!["p.record IS NOT NULL".to_string()];
    let mut params = Vec::new();
    if let Some(import) = filter.import {
        cond.push("p.import_id = ?".into());
        params.push(crate::sql::Param::Int(import.sql()));
    }
    if let Some(reason) = &filter.reason {
        cond.push("p.reason = ?".into());
        params.push(crate::sql::Param::Text(reason.clone().into()));
    }
    if let Some(kind) = &filter.kind {
        cond.push("p.kind = ?".into());
        params.push(crate::sql::Param::Text(kind.code().into()));
    }
    if let Some(size) = filter.size {
        cond.push("p.size = ?".into());
        params.push(crate::sql::Param::Int(i64::from(size)));
    }
    let (cmp, dir) = match filter.order {
        RefusedOrder::Newest => ("<", "DESC"),
        RefusedOrder::Id => (">", "ASC"),
    };
    if let Some(after) = filter.after {
        cond.push(format!("p.id {cmp} ?"));
        params.push(crate::sql::Param::Int(after.sql()));
    }
    let sql = format!(
        "SELECT {SUMMARY_COLUMNS} FROM {SUMMARY_FROM} WHERE {} ORDER BY p.id {dir} LIMIT {}",
        cond.join(" AND "),
        limit.min(i64::MAX as usize)
    );
    conn.query(&sql, &params, summary)
}

/// Kept refused record `id`: its summary and its compressed text; `None`
/// when no row with that id keeps a record.
pub fn get(conn: Read<'_>, id: RefusedId) -> Result<Option<(RefusedSummary, Vec<u8>)>> {
    conn.query_opt(
        &format!(
            "SELECT {SUMMARY_COLUMNS}, p.record FROM {SUMMARY_FROM} \
             WHERE p.id = ? AND p.record IS NOT NULL"
        ),
        params![id.sql()],
        |r| Ok((summary(r)?, r.get::<Vec<u8>>(13)?)),
    )
}

/// The number of kept refused records (rows with a record).
pub fn count(conn: Read<'_>) -> Result<u64> {
    Ok(conn
        .value::<i64>(
            "SELECT COUNT(*) FROM import_problems WHERE hash IS NOT NULL AND record IS NOT NULL",
            params![],
        )?
        .max(0) as u64)
}

/// Hands `each` every kept refused record in id order, with its compressed
/// text, streamed; `each` returns false to stop.
pub fn each<E: From<Error>>(
    conn: Read<'_>,
    each: &mut dyn FnMut(RefusedSummary, Vec<u8>) -> Result<bool, E>,
) -> Result<(), E> {
    let mut relay = Relay::new();
    let out = conn.each(
        &format!(
            "SELECT {SUMMARY_COLUMNS}, p.record FROM {SUMMARY_FROM} \
             WHERE p.record IS NOT NULL ORDER BY p.id"
        ),
        params![],
        |r| {
            let (summary, record) = (summary(r)?, r.get::<Vec<u8>>(13)?);
            Ok(relay.go(each(summary, record)))
        },
    );
    relay.finish(out)
}

/// Drops the kept record of row `id` (its text and hash): the refusal stays
/// in the import log. Returns whether a record was kept there.
pub fn forget(w: Write<'_>, id: RefusedId) -> Result<bool> {
    Ok(w.execute(
        "UPDATE import_problems SET record = NULL, hash = NULL \
         WHERE id = ? AND record IS NOT NULL",
        params![id.sql()],
    )? > 0)
}

/// Deletes row `id` (a refused record that is valid now).
pub fn delete(w: Write<'_>, id: RefusedId) -> Result<()> {
    w.execute(
        "DELETE FROM import_problems WHERE id = ?",
        params![id.sql()],
    )?;
    Ok(())
}
