//! The counts kept by the import (schema/0006_counts.sql): SQLite triggers
//! add and take away as rows of `games`, `players`, `imports` and
//! `import_problems` are inserted and deleted, so reading them costs one
//! small query whatever the archive's size.

use std::collections::HashMap;

use rusqlite::Connection;

use crate::{GameKind, GameStatus, Result};

/// The `counts` table, read at once: name → count.
pub(crate) struct Counts(HashMap<String, u64>);

impl Counts {
    /// Reads every count.
    ///
    /// # Errors
    /// SQLite errors.
    pub(crate) fn read(conn: &Connection) -> Result<Counts> {
        let mut stmt = conn.prepare_cached("SELECT name, n FROM counts")?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?.max(0) as u64))
        })?;
        Ok(Counts(rows.collect::<rusqlite::Result<_>>()?))
    }

    /// The count named `name` (`games`, `players`, `imports`,
    /// `import_problems`, `status <code>`, `board <kind> <size>`); 0 when
    /// absent.
    pub(crate) fn get(&self, name: &str) -> u64 {
        self.0.get(name).copied().unwrap_or(0)
    }

    /// Games per status, every status in [`GameStatus::ALL`]'s order.
    pub(crate) fn by_status(&self) -> Vec<(GameStatus, u64)> {
        GameStatus::ALL
            .into_iter()
            .map(|st| (st, self.get(&format!("status {}", st.code()))))
            .collect()
    }

    /// Games per (kind, board size), the boards with games, by kind (in
    /// [`GameKind::ALL`]'s order) then size.
    pub(crate) fn by_board(&self) -> Vec<(GameKind, u8, u64)> {
        let mut out: Vec<(GameKind, u8, u64)> = self
            .0
            .iter()
            .filter(|&(_, &n)| n > 0)
            .filter_map(|(name, &n)| {
                let (kind, size) = name.strip_prefix("board ")?.split_once(' ')?;
                Some((kind.parse().ok()?, size.parse().ok()?, n))
            })
            .collect();
        let rank = |k: GameKind| GameKind::ALL.iter().position(|&x| x == k);
        out.sort_by_key(|&(k, size, _)| (rank(k), size));
        out
    }
}
