//! Player queries: search by name (case- and accent-insensitive, prefix and
//! fuzzy) and a player's profile. A player is a person (`people`): every
//! spelling of the name, folded and aliased together (see `people.rs`).

use std::sync::RwLock;

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use crate::people::{NameSpelling, spellings};
use crate::{Archive, PlayerId, Result, fold, person_key};

/// How a player's name matched a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchKind {
    /// The folded name equals the folded query, or both are the same
    /// person key ([`person_key`]: `kejie` is `Ke Jie`), after aliases.
    Exact,
    /// The folded name, or one of its words, starts with the folded query.
    Prefix,
    /// A word or the whole folded name is within a small edit distance of
    /// the folded query (1 edit up to 5 letters, 2 beyond; none under 3).
    Fuzzy,
}

/// One player found by a search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerHit {
    /// The player (person) id.
    pub id: PlayerId,
    /// The name shown: the person's first spelling, or the name an alias
    /// gave.
    pub name: String,
    /// Number of stored games the player played (a game against oneself
    /// once).
    pub games: u64,
    /// How the name (any of its spellings) matched.
    pub matched: MatchKind,
}

/// Games, wins and losses with one colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ColorRecord {
    /// Games played with this colour (a game against oneself counts for
    /// both colours).
    pub games: u64,
    /// Games won (a game against oneself is neither won nor lost).
    pub wins: u64,
    /// Games lost.
    pub losses: u64,
}

/// An opponent of a player, with the player's results against them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Opponent {
    /// The opponent's id.
    pub id: PlayerId,
    /// The opponent's name.
    pub name: String,
    /// Games between the two.
    pub games: u64,
    /// Games the profiled player won.
    pub wins: u64,
    /// Games the profiled player lost.
    pub losses: u64,
}

/// A player's profile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerProfile {
    /// The player (person) id.
    pub id: PlayerId,
    /// The name shown (see [`PlayerHit::name`]).
    pub name: String,
    /// All games (a game against oneself once).
    pub games: u64,
    /// Games in which the player had both colours (a program against
    /// itself, or two spellings of one person): neither won nor lost.
    pub self_play: u64,
    /// The ways the name was written in the records, most games first.
    pub spellings: Vec<NameSpelling>,
    /// As Black.
    pub as_black: ColorRecord,
    /// As White.
    pub as_white: ColorRecord,
    /// First day of the earliest dated game.
    pub first_date: Option<String>,
    /// First day of the latest dated game.
    pub last_date: Option<String>,
    /// The most frequent opponents (other people), most games first (then
    /// by name), at most [`PROFILE_OPPONENTS`].
    pub opponents: Vec<Opponent>,
}

/// A player's results in one year (the first day of the game's date).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct YearRecord {
    /// The year; `None` for undated games.
    pub year: Option<i32>,
    /// Games played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games lost.
    pub losses: u64,
}

/// The number of opponents a profile lists.
pub const PROFILE_OPPONENTS: usize = 10;

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
    /// Every player with an id up to this one is in.
    max_id: i64,
    /// `by_len[n]`: the terms of `n` bytes (folded names are ASCII) with
    /// their player.
    by_len: Vec<Vec<(Box<str>, i64)>>,
}

impl Vocabulary {
    /// Adds the players stored since the last call. The rows are read
    /// before the vocabulary is locked, so that name searches go on with
    /// it as it was meanwhile; the lock is held only to add them.
    fn refresh(lock: &RwLock<Vocabulary>, conn: &Connection) -> Result<()> {
        let max: i64 = conn
            .prepare_cached("SELECT COALESCE(MAX(id), 0) FROM players")?
            .query_row([], |r| r.get(0))?;
        let from = lock.read().expect("poisoned").max_id;
        if max <= from {
            return Ok(());
        }
        let mut stmt =
            conn.prepare_cached("SELECT id, folded FROM players WHERE id > ?1 AND id <= ?2")?;
        let rows = stmt
            .query_map([from, max], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut v = lock.write().expect("poisoned");
        // Another refresh may have added some of them meanwhile.
        let added = v.max_id;
        for (id, folded) in rows.into_iter().filter(|&(id, _)| id > added) {
            let words = folded.split(' ').filter(|w| !w.is_empty() && *w != folded);
            for term in std::iter::once(folded.as_str()).chain(words) {
                if v.by_len.len() <= term.len() {
                    v.by_len.resize_with(term.len() + 1, Vec::new);
                }
                v.by_len[term.len()].push((term.into(), id));
            }
        }
        v.max_id = v.max_id.max(max);
        Ok(())
    }
}

/// Searches players (see [`Players::search`]) on one connection. People
/// without a stored game (all of theirs removed) are not found.
pub(crate) fn search_players(
    conn: &Connection,
    vocabulary: &RwLock<Vocabulary>,
    query: &str,
    limit: usize,
) -> Result<Vec<PlayerHit>> {
    let q = fold(query);
    if q.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    // Folded names are ASCII: '\x7f' sorts after every continuation.
    let upper = format!("{q}\x7f");
    let joined = q.replace(' ', "");
    let mut hits: Vec<PlayerHit> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // The person the query's key resolves to (an alias, or a spelling
    // with other spaces), first.
    let mut by_key = conn.prepare_cached(&format!(
        "SELECT id, name, games FROM people WHERE games > 0 AND id = ({})",
        crate::people::PERSON_OF
    ))?;
    if let Some((id, name, games)) = by_key
        .query_row([person_key(query)], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })
        .optional()?
    {
        seen.insert(id);
        hits.push(PlayerHit {
            id: PlayerId::from_sql(id),
            name,
            games: games as u64,
            matched: MatchKind::Exact,
        });
    }
    let mut stmt = conn.prepare_cached(
        "SELECT q.id, q.name, s.folded, q.games FROM players s JOIN people q ON q.id = s.person \
         WHERE s.folded >= ?1 AND s.folded < ?2 AND q.games > 0 \
         UNION SELECT q.id, q.name, s.folded, q.games FROM player_words w \
         JOIN players s ON s.id = w.player_id JOIN people q ON q.id = s.person \
         WHERE w.word >= ?1 AND w.word < ?2 AND q.games > 0",
    )?;
    let rows = stmt.query_map(params![q, upper], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, i64>(3)?,
        ))
    })?;
    for row in rows {
        let (id, name, folded, games) = row?;
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
        Vocabulary::refresh(vocabulary, conn)?;
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
        let mut row = conn.prepare_cached(
            "SELECT q.id, q.name, q.games FROM players s JOIN people q ON q.id = s.person \
             WHERE s.id = ?1 AND q.games > 0",
        )?;
        // The closest spelling of each person.
        let mut people: std::collections::HashMap<i64, (usize, String, i64)> = Default::default();
        for (spelling, d) in best {
            // A spelling newer than this reader's snapshot is not there yet.
            let Some((id, name, games)) = row
                .query_row([spelling], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, i64>(2)?,
                    ))
                })
                .optional()?
            else {
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

/// A player's profile (see [`Players::profile`]) on one connection.
pub(crate) fn player_profile(conn: &Connection, player: PlayerId) -> Result<Option<PlayerProfile>> {
    let id = player.sql();
    let Some((name, games)) = conn
        .prepare_cached("SELECT name, games FROM people WHERE id = ?")?
        .query_row([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
        .optional()?
    else {
        return Ok(None);
    };
    let mut by_color = [ColorRecord::default(); 2];
    let mut stmt = conn.prepare_cached(
        "SELECT color, COUNT(*), COALESCE(SUM(won = 1), 0), COALESCE(SUM(won = 0), 0) \
         FROM game_players WHERE player_id = ? GROUP BY color",
    )?;
    let rows = stmt.query_map([id], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, i64>(2)?,
            r.get::<_, i64>(3)?,
        ))
    })?;
    for row in rows {
        let (color, n, w, l) = row?;
        if let Some(slot) = by_color.get_mut(color as usize) {
            *slot = ColorRecord {
                games: n as u64,
                wins: w as u64,
                losses: l as u64,
            };
        }
    }
    let (first_date, last_date): (Option<String>, Option<String>) = conn
        .prepare_cached(
            "SELECT MIN(date), MAX(date) FROM game_players WHERE player_id = ? AND date <> ''",
        )?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let self_play: i64 = conn
        .prepare_cached(
            "SELECT COUNT(*) FROM game_players WHERE player_id = ?1 AND opponent_id = ?1 AND color = 0",
        )?
        .query_row([id], |r| r.get(0))?;
    let mut stmt = conn.prepare_cached(
        "SELECT gp.opponent_id, p.name, COUNT(*) AS n, COALESCE(SUM(gp.won = 1), 0), \
         COALESCE(SUM(gp.won = 0), 0) FROM game_players gp JOIN people p ON p.id = gp.opponent_id \
         WHERE gp.player_id = ?1 AND gp.opponent_id <> ?1 GROUP BY gp.opponent_id \
         ORDER BY n DESC, p.name LIMIT ?2",
    )?;
    let opponents = stmt
        .query_map(params![id, PROFILE_OPPONENTS as i64], |r| {
            Ok(Opponent {
                id: PlayerId::from_sql(r.get(0)?),
                name: r.get(1)?,
                games: r.get::<_, i64>(2)? as u64,
                wins: r.get::<_, i64>(3)? as u64,
                losses: r.get::<_, i64>(4)? as u64,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Some(PlayerProfile {
        id: player,
        name,
        games: games as u64,
        self_play: self_play as u64,
        spellings: spellings(conn, player)?,
        as_black: by_color[0],
        as_white: by_color[1],
        first_date,
        last_date,
        opponents,
    }))
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
    /// SQLite errors.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<PlayerHit>> {
        let conn = self.archive.reader()?;
        search_players(&conn, &self.archive.vocabulary, query, limit)
    }

    /// A player's profile; `None` when no player has this id.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn profile(&self, id: PlayerId) -> Result<Option<PlayerProfile>> {
        self.archive
            .reader()?
            .snapshot(|conn| player_profile(conn, id))
    }

    /// A player's games, wins and losses per year, oldest first, undated
    /// games last; empty when no player has this id.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn results_by_year(&self, id: PlayerId) -> Result<Vec<YearRecord>> {
        let conn = self.archive.reader()?;
        let mut stmt = conn.prepare_cached(
            "SELECT substr(date, 1, 4) AS y, COUNT(DISTINCT game_id), COALESCE(SUM(won = 1), 0), \
             COALESCE(SUM(won = 0), 0) FROM game_players WHERE player_id = ? \
             GROUP BY y ORDER BY y = '', y",
        )?;
        let rows = stmt.query_map([id.sql()], |r| {
            Ok(YearRecord {
                year: r.get::<_, String>(0)?.parse().ok(),
                games: r.get::<_, i64>(1)? as u64,
                wins: r.get::<_, i64>(2)? as u64,
                losses: r.get::<_, i64>(3)? as u64,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// The player (person) that `name` names: the person of this exact
    /// spelling, else of any spelling with the same person key
    /// ([`person_key`]: `KeJie` names `Ke Jie`) after the operator's
    /// aliases; `None` when there is none.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn id_of(&self, name: &str) -> Result<Option<PlayerId>> {
        let conn = self.archive.reader()?;
        let exact: Option<i64> = conn
            .prepare_cached("SELECT person FROM players WHERE name = ?")?
            .query_row([name], |r| r.get(0))
            .optional()?;
        let id = match exact {
            Some(id) => Some(id),
            None => conn
                .prepare_cached(crate::people::PERSON_OF)?
                .query_row([person_key(name)], |r| r.get(0))
                .optional()?,
        };
        Ok(id.map(PlayerId::from_sql))
    }

    /// The players with the most games, most first (then by name), at
    /// most `limit`: what the pages offer as an example to search for.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn most_played(&self, limit: usize) -> Result<Vec<PlayerHit>> {
        let conn = self.archive.reader()?;
        let mut stmt = conn.prepare_cached(
            "SELECT id, name, games FROM people WHERE games > 0 ORDER BY games DESC, name LIMIT ?",
        )?;
        let rows = stmt.query_map([limit as i64], |r| {
            Ok(PlayerHit {
                id: PlayerId::from_sql(r.get(0)?),
                name: r.get(1)?,
                games: r.get::<_, i64>(2)?.max(0) as u64,
                matched: MatchKind::Exact,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The ways a player's name was written in the records, most games
    /// first; empty when no player has this id.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn spellings(&self, id: PlayerId) -> Result<Vec<NameSpelling>> {
        spellings(&*self.archive.reader()?, id)
    }
}
