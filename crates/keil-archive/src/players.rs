//! Player queries: search by name (case- and accent-insensitive, prefix and
//! fuzzy) and a player's profile. A player is a person (`people`): every
//! spelling of the name, folded and aliased together (see `people.rs`).

use std::sync::RwLock;

use crate::error::Result;
use crate::index::vocabulary::Vocabulary;
use crate::node::Node;
use keil_store::fold::{fold, person_key};
use keil_store::ids::PlayerId;
use keil_store::model::people::{
    AliasSuggestion, MatchKind, NameSpelling, PersonChoice, PlayerHit, PlayerProfile, YearRecord,
};
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
    order(&mut hits, limit);
    for hit in &mut hits {
        hit.span = sql::names::span(conn, hit.id)?;
    }
    Ok(hits)
}

/// Puts hits in their order and keeps `limit` of them: the people who
/// answer to the name by a word of a longer name (`Honinbo Shusaku` for
/// `Shusaku`) by games, then the one whose name it is exactly (the
/// account `Shusaku`; first when no longer name has the word), then
/// prefixes by games, then fuzzy matches in edit order (stable). The exact
/// match is kept when the limit cuts the list (in its last place).
fn order(hits: &mut Vec<PlayerHit>, limit: usize) {
    let words = hits.iter().any(|h| h.matched == MatchKind::Word);
    let rank = |m: MatchKind| match m {
        MatchKind::Exact if words => 1,
        MatchKind::Exact => 0,
        MatchKind::Word => 0,
        MatchKind::Prefix => 2,
        MatchKind::Fuzzy => 3,
    };
    hits.sort_by(|a, b| {
        rank(a.matched).cmp(&rank(b.matched)).then_with(|| {
            if a.matched == MatchKind::Fuzzy {
                std::cmp::Ordering::Equal
            } else {
                b.games.cmp(&a.games).then(a.name.cmp(&b.name))
            }
        })
    });
    if limit >= 2
        && let Some(i) = hits.iter().position(|h| h.matched == MatchKind::Exact)
        && i >= limit
    {
        let exact = hits.remove(i);
        hits.truncate(limit - 1);
        hits.push(exact);
    }
    hits.truncate(limit);
}

/// The people `query` names exactly, by a whole word or by prefix (`q`
/// is it folded): the person its key resolves to (an alias, or a spelling
/// with other spaces), then the people whose folded names start with `q`
/// (each by the best way one of their spellings matched); and the ids of
/// the people found.
fn named(
    conn: Read<'_>,
    query: &str,
    q: &str,
) -> Result<(Vec<PlayerHit>, std::collections::HashSet<i64>)> {
    let joined = q.replace(' ', "");
    let one_word = !q.contains(' ');
    let mut hits: Vec<PlayerHit> = Vec::new();
    let mut at: std::collections::HashMap<i64, usize> = Default::default();
    let hit = |id: i64, name: String, games: i64, matched: MatchKind| PlayerHit {
        id: PlayerId::from_sql(id),
        name,
        games: games as u64,
        matched,
        span: Default::default(),
    };
    if let Some((id, name, games)) = sql::person_by_key(conn, &person_key(query))? {
        at.insert(id, hits.len());
        hits.push(hit(id, name, games, MatchKind::Exact));
    }
    for (id, name, folded, games) in sql::people_by_prefix(conn, q)? {
        let matched = if folded == q || folded.replace(' ', "") == joined {
            MatchKind::Exact
        } else if one_word && folded.split(' ').any(|w| w == q) {
            MatchKind::Word
        } else {
            MatchKind::Prefix
        };
        match at.get(&id) {
            Some(&i) => hits[i].matched = hits[i].matched.min(matched),
            None => {
                at.insert(id, hits.len());
                hits.push(hit(id, name, games, matched));
            }
        }
    }
    let seen = at.into_keys().collect();
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
                span: Default::default(),
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
    /// ([`fold()`]): exact matches first, except that people whose longer
    /// names have the one-word query as a whole word come before the exact
    /// one (most games first: `Honinbo Shusaku` before the account
    /// `Shusaku`); then names or name words starting with the query (most
    /// games first), then, to fill up to `limit`, names within a small
    /// edit distance (`bolanso` finds `Bolaños`). Each hit says when and at
    /// what rank the player played ([`PlayerHit::span`]).
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

    /// The player (person) that `name` names: `#ID` the person ID; else
    /// the person of this exact spelling, else of any spelling with the
    /// same person key ([`person_key`]: `KeJie` names `Ke Jie`) after the
    /// operator's aliases, else the person shown by this name (an
    /// operator's); `None` when there is none.
    ///
    /// # Errors
    /// Storage errors.
    pub fn id_of(&self, name: &str) -> Result<Option<PlayerId>> {
        Ok(sql::id_of(self.node.reader()?.read(), name)?)
    }

    /// The people `name` answers to, with games, to choose from: the person
    /// it is a spelling or alias of, and, for one word, the people one of
    /// whose spellings has it as a whole word (`Shusaku`: `Honinbo
    /// Shusaku`, `Kuwahara Shusaku` and the account `Shusaku`); `#ID` the
    /// person ID alone. Most games first, at most `limit`, with when and at
    /// what rank each played; and how many there are in all. What a games
    /// filter's `player` and `opponent` select.
    ///
    /// # Errors
    /// Storage errors.
    pub fn answering(&self, name: &str, limit: usize) -> Result<(Vec<PersonChoice>, usize)> {
        let conn = self.node.reader()?;
        Ok(sql::names::answering(conn.read(), name, limit)?)
    }

    /// The ids of the people `name` answers to (see
    /// [`Players::answering`]; those without games too), in no particular
    /// order: one statement.
    ///
    /// # Errors
    /// Storage errors.
    pub fn answering_ids(&self, name: &str) -> Result<Vec<PlayerId>> {
        let conn = self.node.reader()?;
        Ok(sql::names::answering_ids(conn.read(), name)?
            .into_iter()
            .map(PlayerId::from_sql)
            .collect())
    }

    /// Up to `limit` pairs of people an operator may want to make one
    /// (`keil players suggest-aliases`), best first, with the evidence for
    /// each: names with the same words in another order, the same last
    /// word or keys a letter apart; shared opponents and near years. A pair
    /// that played each other is never suggested. Nothing is merged:
    /// [`Archive::add_alias`](crate::Archive::add_alias) confirms one.
    /// Reads the people tables whole.
    ///
    /// # Errors
    /// Storage errors.
    pub fn suggest_aliases(&self, limit: usize) -> Result<Vec<AliasSuggestion>> {
        let conn = self.node.reader()?;
        Ok(sql::suggest::suggest(conn.read(), limit)?)
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
