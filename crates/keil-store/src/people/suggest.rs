//! Pairs of people an operator may want to make one
//! (`keil players suggest-aliases`): never merged here, only listed with
//! the evidence for each, for the operator to confirm with an alias.
//!
//! Candidates come from the names alone, read from the people tables whole
//! (an operator's command, bounded by the tables): two people whose
//! spellings have the same words in another order (`Iyama Yuta`, `Yuta
//! Iyama`), share their last word (`Honinbo Shusaku`, `Kuwahara Shusaku`:
//! a title or family name that changed), or have person keys one letter
//! apart (a romanisation: `Cho Chikun`, `Cho Chikhun`). The games then
//! weigh them: a pair that played each other is two people and is left
//! out, as is one whose years lie far apart; shared opponents and
//! overlapping years are the evidence.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::error::Result;
use crate::ids::PlayerId;
use crate::model::people::{AliasEvidence, AliasSuggestion, PersonChoice};
use crate::sql::{Read, params};

/// People sharing a last word above this many: the word is too common
/// (`Li`, `Kim`) to say anything.
const MAX_WORD_GROUP: usize = 40;

/// Person keys shorter than this are not compared letter by letter (short
/// handles differ by a letter without being one person).
const MIN_KEY_FOR_SPELLING: usize = 7;

/// Candidate pairs whose games are read at most (the most games first).
const MAX_CANDIDATES: usize = 5_000;

/// Years between two people's spans past which they are not one person.
const MAX_YEARS_APART: i32 = 5;

/// How a candidate pair's names resemble each other, strongest first.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Likeness {
    /// The same words in another order.
    WordOrder,
    /// The same last word (the word itself).
    LastWord(String),
    /// Person keys one deletion apart.
    Spelling,
}

/// Up to `limit` pairs of people an operator may want to make one, best
/// first (see the module's documentation).
///
/// # Errors
/// Storage errors.
pub fn suggest(conn: Read<'_>, limit: usize) -> Result<Vec<AliasSuggestion>> {
    let people: HashMap<i64, (String, i64, String)> = conn
        .query(
            "SELECT id, name, games, key FROM people WHERE games > 0",
            params![],
            |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?))),
        )?
        .into_iter()
        .collect();
    let spellings: Vec<(i64, String)> = conn.query(
        "SELECT person, folded FROM players WHERE games > 0",
        params![],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let mut pairs: HashMap<(i64, i64), Likeness> = HashMap::new();
    let mut add = |a: i64, b: i64, like: Likeness| {
        if a != b {
            let key = (a.min(b), a.max(b));
            let e = pairs.entry(key).or_insert_with(|| like.clone());
            if like < *e {
                *e = like;
            }
        }
    };
    // Names by their words in order, and by their last word.
    let mut by_words: HashMap<Vec<&str>, BTreeSet<i64>> = HashMap::new();
    let mut by_last: HashMap<&str, BTreeSet<i64>> = HashMap::new();
    for (person, folded) in &spellings {
        if !people.contains_key(person) {
            continue;
        }
        let words: Vec<&str> = folded.split(' ').filter(|w| !w.is_empty()).collect();
        if words.len() < 2 {
            continue;
        }
        let mut sorted = words.clone();
        sorted.sort_unstable();
        by_words.entry(sorted).or_default().insert(*person);
        if let Some(last) = words.last().filter(|w| w.len() >= 3) {
            by_last.entry(last).or_default().insert(*person);
        }
    }
    for group in by_words.values().filter(|g| g.len() <= MAX_WORD_GROUP) {
        let ids: Vec<i64> = group.iter().copied().collect();
        for (i, &a) in ids.iter().enumerate() {
            for &b in &ids[i + 1..] {
                add(a, b, Likeness::WordOrder);
            }
        }
    }
    for (word, group) in by_last.iter().filter(|(_, g)| g.len() <= MAX_WORD_GROUP) {
        let ids: Vec<i64> = group.iter().copied().collect();
        for (i, &a) in ids.iter().enumerate() {
            for &b in &ids[i + 1..] {
                add(a, b, Likeness::LastWord((*word).to_string()));
            }
        }
    }
    // Keys one deletion apart: each key and its deletions, bucketed.
    let mut deletions: HashMap<String, Vec<i64>> = HashMap::new();
    for (&id, (_, _, key)) in &people {
        let chars: Vec<char> = key.chars().collect();
        if chars.len() < MIN_KEY_FOR_SPELLING || !key.is_ascii() {
            continue;
        }
        deletions.entry(key.clone()).or_default().push(id);
        for i in 0..chars.len() {
            let shorter: String = chars[..i].iter().chain(&chars[i + 1..]).collect();
            deletions.entry(shorter).or_default().push(id);
        }
    }
    for group in deletions.values_mut() {
        group.sort_unstable();
        group.dedup();
        if group.len() > MAX_WORD_GROUP {
            continue;
        }
        for (i, &a) in group.iter().enumerate() {
            for &b in &group[i + 1..] {
                // Digits apart are accounts (`shusaku1`, `shusaku2`).
                let (ka, kb) = (&people[&a].2, &people[&b].2);
                if differs_by_digit(ka, kb) {
                    continue;
                }
                add(a, b, Likeness::Spelling);
            }
        }
    }
    // The games weigh the candidates, most games first.
    let mut candidates: Vec<((i64, i64), Likeness)> = pairs.into_iter().collect();
    let games = |id: &i64| people.get(id).map_or(0, |p| p.1);
    candidates.sort_by(|x, y| {
        x.1.cmp(&y.1)
            .then((games(&y.0.0) + games(&y.0.1)).cmp(&(games(&x.0.0) + games(&x.0.1))))
            .then(x.0.cmp(&y.0))
    });
    candidates.truncate(MAX_CANDIDATES);
    let mut opponents: HashMap<i64, HashSet<i64>> = HashMap::new();
    let mut spans = HashMap::new();
    let mut out = Vec::new();
    for ((a, b), like) in candidates {
        for id in [a, b] {
            if let std::collections::hash_map::Entry::Vacant(slot) = opponents.entry(id) {
                let set: HashSet<i64> = conn
                    .query(
                        "SELECT DISTINCT opponent_id FROM game_players \
                         WHERE player_id = ? AND opponent_id IS NOT NULL",
                        params![id],
                        |r| r.get(0),
                    )?
                    .into_iter()
                    .collect();
                slot.insert(set);
                spans.insert(id, super::names::span(conn, PlayerId::from_sql(id))?);
            }
        }
        if opponents[&a].contains(&b) {
            continue;
        }
        let (sa, sb) = (&spans[&a], &spans[&b]);
        let years = |s: &crate::model::people::PersonSpan| {
            let y = |d: &Option<String>| d.as_deref().and_then(|d| d.get(..4)?.parse::<i32>().ok());
            y(&s.first_date).zip(y(&s.last_date))
        };
        let apart = match (years(sa), years(sb)) {
            (Some((a0, a1)), Some((b0, b1))) => Some((b0 - a1).max(a0 - b1).max(0)),
            _ => None,
        };
        if apart.is_some_and(|n| n > MAX_YEARS_APART) {
            continue;
        }
        let shared = opponents[&a].intersection(&opponents[&b]).count() as u64;
        let mut evidence = vec![match &like {
            Likeness::WordOrder => AliasEvidence::WordOrder,
            Likeness::LastWord(w) => AliasEvidence::LastWord(w.clone()),
            Likeness::Spelling => AliasEvidence::Spelling,
        }];
        if shared > 0 {
            evidence.push(AliasEvidence::SharedOpponents(shared));
        }
        match apart {
            Some(0) => evidence.push(AliasEvidence::YearsOverlap),
            Some(n) => evidence.push(AliasEvidence::YearsApart(n as u32)),
            None => {}
        }
        evidence.push(AliasEvidence::NeverPlayedEachOther);
        // The alias is the name with fewer games.
        let choice = |id: i64| {
            let (name, games, _) = &people[&id];
            PersonChoice {
                id: PlayerId::from_sql(id),
                name: name.clone(),
                games: (*games).max(0) as u64,
                span: spans[&id].clone(),
            }
        };
        let (alias, name) = if games(&a) < games(&b) || (games(&a) == games(&b) && a > b) {
            (choice(a), choice(b))
        } else {
            (choice(b), choice(a))
        };
        out.push((
            like,
            shared,
            apart,
            AliasSuggestion {
                alias,
                name,
                evidence,
            },
        ));
    }
    // Best first: the likeness, then shared opponents, then the nearest
    // years, then the most games.
    out.sort_by(|x, y| {
        let rank = |l: &Likeness| match l {
            Likeness::WordOrder => 0,
            Likeness::LastWord(_) => 1,
            Likeness::Spelling => 2,
        };
        rank(&x.0)
            .cmp(&rank(&y.0))
            .then(y.1.cmp(&x.1))
            .then(x.2.unwrap_or(i32::MAX).cmp(&y.2.unwrap_or(i32::MAX)))
            .then((y.3.alias.games + y.3.name.games).cmp(&(x.3.alias.games + x.3.name.games)))
    });
    Ok(out.into_iter().take(limit).map(|x| x.3).collect())
}

/// Whether either key has a digit (`shusaku1`, `shusaku2`, `shusaku`):
/// such names are accounts, which a letter does not make one.
fn differs_by_digit(a: &str, b: &str) -> bool {
    a.chars().chain(b.chars()).any(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accounts_that_differ_by_a_digit_are_not_spellings() {
        assert!(differs_by_digit("shusaku1", "shusaku2"));
        assert!(differs_by_digit("shusaku1", "shusaku"));
        assert!(!differs_by_digit("chochikun", "chochikhun"));
    }
}
