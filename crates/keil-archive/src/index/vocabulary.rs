//! The players' vocabulary: every spelling's folded name and its words,
//! in memory, for fuzzy name search; a derived index caught up with the
//! store's spellings.

use std::sync::RwLock;

use crate::error::Result;
use crate::index::{Changes, Derived};
use keil_store::{Read, Sequences, people as sql};

/// Every player's folded name and the words of it, grouped by length, so
/// that fuzzy search compares the query with the terms of about its length
/// only, in memory, instead of reading every player row. Players are never
/// renamed: the vocabulary only grows.
#[derive(Debug, Default)]
pub(crate) struct Vocabulary {
    /// Every spelling with an id up to this one is in.
    pub(crate) max_id: i64,
    /// Every spelling of the games up to this id is in (spellings are
    /// stored in the transaction of their first game).
    pub(crate) games: i64,
    /// `by_len[n]`: the terms of `n` bytes (folded names are ASCII) with
    /// their player.
    pub(crate) by_len: Vec<Vec<(Box<str>, i64)>>,
}

impl Derived for &RwLock<Vocabulary> {
    fn reached(&self) -> Result<Sequences> {
        let v = self.read().expect("poisoned");
        // Removals take no spelling out: people without games are left
        // out by the queries.
        Ok(Sequences {
            games: v.games,
            removals: i64::MAX,
        })
    }

    /// Adds the spellings stored with the games since the last call. The
    /// rows are read before the vocabulary is locked, so that name
    /// searches go on with it as it was meanwhile; the lock is held only
    /// to add them.
    fn apply(&mut self, read: Read<'_>, changes: &Changes) -> Result<()> {
        let from = self.read().expect("poisoned").max_id;
        let rows = sql::spellings_after(read, from)?;
        let mut v = self.write().expect("poisoned");
        // Another caller may have added some of them meanwhile.
        let added = v.max_id;
        for (id, folded) in rows.into_iter().filter(|&(id, _)| id > added) {
            let words = folded.split(' ').filter(|w| !w.is_empty() && *w != folded);
            for term in std::iter::once(folded.as_str()).chain(words) {
                if v.by_len.len() <= term.len() {
                    v.by_len.resize_with(term.len() + 1, Vec::new);
                }
                v.by_len[term.len()].push((term.into(), id));
            }
            v.max_id = id;
        }
        v.games = v.games.max(changes.to.games);
        Ok(())
    }
}
