//! Removal of games by the archive's operator (a junk upload, a takedown
//! request): the game leaves the store and every view in one transaction,
//! the removal is logged with who asked, when and why, and the derived
//! indexes catch up on it as they catch up on new games (the position
//! index forgets the game's summary and a merge drops its postings, the
//! pattern index masks it, the text index deletes its document). A record
//! of a removed game, or another record of the same game, is refused by
//! later imports (`removed`).

use crate::error::Result;
use crate::node::Node;
use keil_store::ids::GameId;
use keil_store::model::Removal;
use keil_store::removals;

/// The longest reason kept with a removal, in bytes (longer ones are cut
/// at a character boundary).
pub const MAX_REASON_BYTES: usize = 500;

fn cut(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// [`Archive::remove`](crate::Archive::remove): see there.
pub(crate) fn remove(node: &Node, id: GameId, by: &str, reason: &str) -> Result<Option<Removal>> {
    let (mut text, mut conn) = node.writers()?;
    let at = keil_store::model::now();
    let reason = cut(reason, MAX_REASON_BYTES);
    let removed = conn.transaction(|tx| removals::remove(tx, id, &at, by, reason))?;
    if removed.is_some() {
        text.catch_up(conn.read())?;
    }
    Ok(removed)
}

/// [`Archive::removed_games`](crate::Archive::removed_games): see there.
pub(crate) fn removed_games(node: &Node) -> Result<u64> {
    let conn = node.reader()?;
    Ok(keil_store::Sequences::read(conn.read())?.removals as u64)
}

/// [`Archive::removals`](crate::Archive::removals): see there.
pub(crate) fn removals(node: &Node, limit: usize) -> Result<Vec<Removal>> {
    let conn = node.reader()?;
    Ok(removals::log(conn.read(), limit)?)
}
