//! The counts kept by the store as it writes (in SQLite,
//! schema/0006_counts.sql: triggers add and take away as rows of `games`,
//! `players`, `imports` and `import_problems` are inserted and deleted), so
//! reading them costs one small query whatever the archive's size.

use std::collections::HashMap;

use crate::kind::GameKind;
use crate::model::GameStatus;

/// The `counts` table, read at once: name → count.
pub struct Counts(HashMap<String, u64>);

impl FromIterator<(String, u64)> for Counts {
    /// The counts as read: (name, count) pairs.
    fn from_iter<I: IntoIterator<Item = (String, u64)>>(rows: I) -> Counts {
        Counts(rows.into_iter().collect())
    }
}

impl Counts {
    /// The count named `name` (`games`, `players`, `imports`,
    /// `import_problems`, `status <code>`, `board <kind> <size>`); 0 when
    /// absent.
    pub fn get(&self, name: &str) -> u64 {
        self.0.get(name).copied().unwrap_or(0)
    }

    /// Games per status, every status in [`GameStatus::ALL`]'s order.
    pub fn by_status(&self) -> Vec<(GameStatus, u64)> {
        GameStatus::ALL
            .into_iter()
            .map(|st| (st, self.get(&format!("status {}", st.code()))))
            .collect()
    }

    /// Games per (kind, board size), the boards with games, by kind (in
    /// [`GameKind::ALL`]'s order) then size.
    pub fn by_board(&self) -> Vec<(GameKind, u8, u64)> {
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
