//! Player queries: search by name (case- and accent-insensitive, prefix and
//! fuzzy) and a player's profile. A player is a person (`people`): every
//! spelling of the name, folded and aliased together (see `people.rs`).

use std::sync::RwLock;

use crate::error::Result;
use crate::index::vocabulary::Vocabulary;
use crate::node::Node;
use keil_store::fold::{fold, person_key};
use keil_store::ids::PlayerId;
use keil_store::model::people::{MatchKind, NameSpelling, PlayerHit, PlayerProfile, YearRecord};
use keil_store::{Read, people as sql};

fn allowed_edits(len: usize) -> usize {
    match len {
        0..=2 => 0,
        3..=5 => 1,
        _ => 2,
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
    let (mut hits, seen) = named(conn, query, &q)?;
    let edits = allowed_edits(q.len());
    if hits.len() < limit && edits > 0 {
        crate::index::catch_up(conn, &mut [&mut { vocabulary }])?;
        hits.extend(fuzzy(conn, vocabulary, &q, edits, &seen)?);
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

/// The people `query` names exactly or by prefix (`q` is it folded):
/// the person its key resolves to (an alias, or a spelling with other
/// spaces) first, then the people whose folded names start with `q`; and
/// the ids of the people found.
fn named(
    conn: Read<'_>,
    query: &str,
    q: &str,
) -> Result<(Vec<PlayerHit>, std::collections::HashSet<i64>)> {
    let joined = q.replace(' ', "");
    let mut hits: Vec<PlayerHit> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    if let Some((id, name, games)) = sql::person_by_key(conn, &person_key(query))? {
        seen.insert(id);
        hits.push(PlayerHit {
            id: PlayerId::from_sql(id),
            name,
            games: games as u64,
            matched: MatchKind::Exact,
        });
    }
    for (id, name, folded, games) in sql::people_by_prefix(conn, q)? {
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
    Ok((hits, seen))
}

/// The people not in `seen` with a spelling within `edits` of `q`
/// (Damerau–Levenshtein, over the players' vocabulary), closest first,
/// then by games and name.
fn fuzzy(
    conn: Read<'_>,
    vocabulary: &RwLock<Vocabulary>,
    q: &str,
    edits: usize,
    seen: &std::collections::HashSet<i64>,
) -> Result<Vec<PlayerHit>> {
    // The closest term of each spelling within the allowed edits; a
    // term's length differs from the query's by at most its distance.
    let mut best: std::collections::HashMap<i64, usize> = Default::default();
    {
        let v = vocabulary.read().expect("poisoned");
        let lengths = q.len().saturating_sub(edits)..=q.len() + edits;
        for bucket in lengths.filter_map(|n| v.by_len.get(n)) {
            for (term, id) in bucket {
                let d = strsim::damerau_levenshtein(q, term);
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
    let mut fuzzy: Vec<(usize, PlayerHit)> = people
        .into_iter()
        .map(|(id, (d, name, games))| {
            let hit = PlayerHit {
                id: PlayerId::from_sql(id),
                name,
                games: games as u64,
                matched: MatchKind::Fuzzy,
            };
            (d, hit)
        })
        .collect();
    fuzzy.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(b.1.games.cmp(&a.1.games))
            .then(a.1.name.cmp(&b.1.name))
    });
    Ok(fuzzy.into_iter().map(|(_, h)| h).collect())
}

/// The player queries of an archive, from [`Archive::players`](crate::Archive::players).
pub struct Players<'a> {
    pub(crate) node: &'a Node,
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
        let conn = self.node.reader()?;
        search_players(conn.read(), &self.node.vocabulary, query, limit)
    }

    /// A player's profile; `None` when no player has this id.
    ///
    /// # Errors
    /// Storage errors.
    pub fn profile(&self, id: PlayerId) -> Result<Option<PlayerProfile>> {
        self.node
            .reader()?
            .snapshot(|read| Ok(sql::profile(read, id)?))
    }

    /// A player's games, wins and losses per year, oldest first, undated
    /// games last; empty when no player has this id.
    ///
    /// # Errors
    /// Storage errors.
    pub fn results_by_year(&self, id: PlayerId) -> Result<Vec<YearRecord>> {
        Ok(sql::results_by_year(self.node.reader()?.read(), id)?)
    }

    /// The player (person) that `name` names: the person of this exact
    /// spelling, else of any spelling with the same person key
    /// ([`person_key`]: `KeJie` names `Ke Jie`) after the operator's
    /// aliases; `None` when there is none.
    ///
    /// # Errors
    /// Storage errors.
    pub fn id_of(&self, name: &str) -> Result<Option<PlayerId>> {
        Ok(sql::id_of(self.node.reader()?.read(), name)?)
    }

    /// The players with the most games, most first (then by name), at
    /// most `limit`: what the pages offer as an example to search for.
    ///
    /// # Errors
    /// Storage errors.
    pub fn most_played(&self, limit: usize) -> Result<Vec<PlayerHit>> {
        Ok(sql::most_played(self.node.reader()?.read(), limit)?)
    }

    /// The ways a player's name was written in the records, most games
    /// first; empty when no player has this id.
    ///
    /// # Errors
    /// Storage errors.
    pub fn spellings(&self, id: PlayerId) -> Result<Vec<NameSpelling>> {
        Ok(sql::spellings(self.node.reader()?.read(), id)?)
    }
}
