//! Player queries: search by name (case- and accent-insensitive, prefix and
//! fuzzy) and a player's profile. A player is a person (`people`): every
//! spelling of the name, folded and aliased together (see `people.rs`).

use std::sync::RwLock;

use crate::archive::Archive;
use crate::error::Result;
use crate::fold::{fold, person_key};
use crate::ids::PlayerId;
use crate::index::{Changes, Derived};
use crate::model::people::{MatchKind, NameSpelling, PlayerHit, PlayerProfile, YearRecord};
use crate::store::{Read, Sequences, people as sql};

fn allowed_edits(len: usize) -> usize {
    match len {
        0..=2 => 0,
        3..=5 => 1,
        _ => 2,
    }
}

/// Every player's folded name and the words of it, grouped by length, so
/// that fuzzy search compares the query with the terms of about its length
/// only, in memory, instead of reading every player row. Players are never
/// renamed: the vocabulary only grows.
#[derive(Debug, Default)]
pub(crate) struct Vocabulary {
    /// Every spelling with an id up to this one is in.
    max_id: i64,
    /// Every spelling of the games up to this id is in (spellings are
    /// stored in the transaction of their first game).
    games: i64,
    /// `by_len[n]`: the terms of `n` bytes (folded names are ASCII) with
    /// their player.
    by_len: Vec<Vec<(Box<str>, i64)>>,
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

/// Searches players (see [`Players::search`]) on one connection. People
/// without a stored game (all of theirs removed) are not found.
pub(crate) fn search_players(
    conn: Read<'_>,
    vocabulary: &RwLock<Vocabulary>,
    query: &str,
    limit: usize,
) -> Result<Vec<PlayerHit>> {
    let q = fold(query);
    if q.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let joined = q.replace(' ', "");
    let mut hits: Vec<PlayerHit> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // The person the query's key resolves to (an alias, or a spelling
    // with other spaces), first.
    if let Some((id, name, games)) = sql::person_by_key(conn, &person_key(query))? {
        seen.insert(id);
        hits.push(PlayerHit {
            id: PlayerId::from_sql(id),
            name,
            games: games as u64,
            matched: MatchKind::Exact,
        });
    }
    for (id, name, folded, games) in sql::people_by_prefix(conn, &q)? {
        if seen.insert(id) {
            let matched = if folded == q || folded.replace(' ', "") == joined {
                MatchKind::Exact
            } else {
                MatchKind::Prefix
            };
            hits.push(PlayerHit {
                id: PlayerId::from_sql(id),
                name,
                games: games as u64,
                matched,
            });
        }
    }
    let edits = allowed_edits(q.len());
    if hits.len() < limit && edits > 0 {
        crate::index::catch_up(conn, &mut [&mut { vocabulary }])?;
        // The closest term of each spelling within the allowed edits; a
        // term's length differs from the query's by at most its distance.
        let mut best: std::collections::HashMap<i64, usize> = Default::default();
        {
            let v = vocabulary.read().expect("poisoned");
            let lengths = q.len().saturating_sub(edits)..=q.len() + edits;
            for bucket in lengths.filter_map(|n| v.by_len.get(n)) {
                for (term, id) in bucket {
                    let d = strsim::damerau_levenshtein(&q, term);
                    if d <= edits {
                        let e = best.entry(*id).or_insert(d);
                        *e = (*e).min(d);
                    }
                }
            }
        }
        // The closest spelling of each person.
        let mut people: std::collections::HashMap<i64, (usize, String, i64)> = Default::default();
        for (spelling, d) in best {
            // A spelling newer than this reader's snapshot is not there yet.
            let Some((id, name, games)) = sql::person_of_spelling(conn, spelling)? else {
                continue;
            };
            if seen.contains(&id) {
                continue;
            }
            let e = people.entry(id).or_insert((d, name, games));
            e.0 = e.0.min(d);
        }
        let mut fuzzy = Vec::with_capacity(people.len());
        for (id, (d, name, games)) in people {
            fuzzy.push((
                d,
                PlayerHit {
                    id: PlayerId::from_sql(id),
                    name,
                    games: games as u64,
                    matched: MatchKind::Fuzzy,
                },
            ));
        }
        fuzzy.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(b.1.games.cmp(&a.1.games))
                .then(a.1.name.cmp(&b.1.name))
        });
        hits.extend(fuzzy.into_iter().map(|(_, h)| h));
    }
    // Exact, then prefix by games, then fuzzy in edit order (stable).
    hits.sort_by(|a, b| {
        a.matched.cmp(&b.matched).then_with(|| {
            if a.matched == MatchKind::Fuzzy {
                std::cmp::Ordering::Equal
            } else {
                b.games.cmp(&a.games).then(a.name.cmp(&b.name))
            }
        })
    });
    hits.truncate(limit);
    Ok(hits)
}

/// The player queries of an archive, from [`Archive::players`].
pub struct Players<'a> {
    pub(crate) archive: &'a Archive,
}

impl Players<'_> {
    /// Players whose name matches `query`, case- and accent-insensitively
    /// ([`fold()`]): exact matches first, then names or name words starting
    /// with the query (most games first), then, to fill up to `limit`,
    /// names within a small edit distance (`bolanso` finds `Bolaños`).
    ///
    /// # Errors
    /// Storage errors.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<PlayerHit>> {
        let conn = self.archive.reader()?;
        search_players(conn.read(), &self.archive.vocabulary, query, limit)
    }

    /// A player's profile; `None` when no player has this id.
    ///
    /// # Errors
    /// Storage errors.
    pub fn profile(&self, id: PlayerId) -> Result<Option<PlayerProfile>> {
        self.archive
            .reader()?
            .snapshot(|read| sql::profile(read, id))
    }

    /// A player's games, wins and losses per year, oldest first, undated
    /// games last; empty when no player has this id.
    ///
    /// # Errors
    /// Storage errors.
    pub fn results_by_year(&self, id: PlayerId) -> Result<Vec<YearRecord>> {
        sql::results_by_year(self.archive.reader()?.read(), id)
    }

    /// The player (person) that `name` names: the person of this exact
    /// spelling, else of any spelling with the same person key
    /// ([`person_key`]: `KeJie` names `Ke Jie`) after the operator's
    /// aliases; `None` when there is none.
    ///
    /// # Errors
    /// Storage errors.
    pub fn id_of(&self, name: &str) -> Result<Option<PlayerId>> {
        sql::id_of(self.archive.reader()?.read(), name)
    }

    /// The players with the most games, most first (then by name), at
    /// most `limit`: what the pages offer as an example to search for.
    ///
    /// # Errors
    /// Storage errors.
    pub fn most_played(&self, limit: usize) -> Result<Vec<PlayerHit>> {
        sql::most_played(self.archive.reader()?.read(), limit)
    }

    /// The ways a player's name was written in the records, most games
    /// first; empty when no player has this id.
    ///
    /// # Errors
    /// Storage errors.
    pub fn spellings(&self, id: PlayerId) -> Result<Vec<NameSpelling>> {
        sql::spellings(self.archive.reader()?.read(), id)
    }
}
