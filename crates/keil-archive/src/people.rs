//! One identity per person (docs/collections.md, "Players"): spellings
//! (`players`, the name as written) resolve to people (`people`) by their
//! person key ([`person_key`]) and the operator's aliases
//! (`player_aliases`). The import resolves each new spelling here; an alias
//! merges two people here; every player filter selects spellings through
//! [`SPELLINGS_OF`].

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::Serialize;

use crate::{Archive, Error, PlayerId, Result, fold, person_key};

/// The id of the person that the person key `?` resolves to, after the
/// aliases (no row when none): an SQL subquery. Its one parameter, an
/// anonymous `?` (so that it mixes with a filter's other `?`), is
/// [`person_key`]`(name)`. A macro, so that [`SPELLINGS_OF`] is built from
/// it at compile time.
macro_rules! person_of {
    () => {
        "SELECT p.id FROM (SELECT ? AS k) x JOIN people p \
         ON p.key = COALESCE((SELECT a.target FROM player_aliases a WHERE a.key = x.k), x.k)"
    };
}

/// [`person_of!`] as a constant.
pub(crate) const PERSON_OF: &str = person_of!();

/// The ids of the spellings (`players.id`) of the person [`PERSON_OF`]
/// gives: an SQL subquery for a player filter (`g.black_id IN (...)`),
/// with the same one parameter.
pub(crate) const SPELLINGS_OF: &str =
    concat!("SELECT id FROM players WHERE person = (", person_of!(), ")");

/// The key a person key resolves to: its alias's target, or itself.
fn resolved(conn: &Connection, key: &str) -> Result<String> {
    let target: Option<String> = conn
        .prepare_cached("SELECT target FROM player_aliases WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()?;
    Ok(target.unwrap_or_else(|| key.to_string()))
}

/// The person a resolved key names, if any.
fn person_with_key(conn: &Connection, key: &str) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT id FROM people WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()?)
}

/// One spelling as the import resolved it: the spelling's row and its
/// person's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Spelling {
    /// `players.id`.
    pub id: i64,
    /// `people.id`.
    pub person: i64,
}

/// The spellings an import met, by name: a name is looked up once per
/// import. Names added by a batch that rolls back are forgotten
/// ([`SpellingCache::forget`]).
#[derive(Default)]
pub(crate) struct SpellingCache {
    known: HashMap<String, Spelling>,
}

impl SpellingCache {
    /// The spelling `name`, stored (with its person when the name's key is
    /// new) if the archive does not have it yet; `added` collects the
    /// names stored in this transaction.
    pub(crate) fn get(
        &mut self,
        tx: &Transaction<'_>,
        added: &mut Vec<String>,
        name: &str,
    ) -> Result<Spelling> {
        if let Some(&s) = self.known.get(name) {
            return Ok(s);
        }
        let existing = tx
            .prepare_cached("SELECT id, person FROM players WHERE name = ?")?
            .query_row([name], |r| {
                Ok(Spelling {
                    id: r.get(0)?,
                    person: r.get(1)?,
                })
            })
            .optional()?;
        let spelling = match existing {
            Some(s) => s,
            None => {
                let key = resolved(tx, &person_key(name))?;
                let person = match person_with_key(tx, &key)? {
                    Some(p) => p,
                    None => {
                        tx.prepare_cached("INSERT INTO people (name, key) VALUES (?, ?)")?
                            .execute(params![name, key])?;
                        tx.last_insert_rowid()
                    }
                };
                let folded = fold(name);
                tx.prepare_cached("INSERT INTO players (name, folded, person) VALUES (?, ?, ?)")?
                    .execute(params![name, folded, person])?;
                let id = tx.last_insert_rowid();
                let mut words = tx.prepare_cached(
                    "INSERT OR IGNORE INTO player_words (word, player_id) VALUES (?, ?)",
                )?;
                // Each word, and the words run together ("kejie" finds
                // "Ke Jie").
                let joined = folded.replace(' ', "");
                for w in folded.split(' ').chain([joined.as_str()]) {
                    if !w.is_empty() {
                        words.execute(params![w, id])?;
                    }
                }
                added.push(name.to_string());
                Spelling { id, person }
            }
        };
        self.known.insert(name.to_string(), spelling);
        Ok(spelling)
    }

    /// Forgets names whose rows were rolled back.
    pub(crate) fn forget(&mut self, names: Vec<String>) {
        for name in names {
            self.known.remove(&name);
        }
    }
}

/// One way a person's name was written in the records, with how many
/// stored games used it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NameSpelling {
    /// The name as written (`PB`/`PW`).
    pub name: String,
    /// Stored games in which it was written.
    pub games: u64,
}

/// What [`Archive::add_alias`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AliasReport {
    /// The person key that now resolves to `target_key`.
    pub alias_key: String,
    /// The person key of the name the alias points to.
    pub target_key: String,
    /// The person the names are now one of, if either has games stored.
    pub person: Option<PlayerId>,
    /// Whether two stored people became one (their games, spellings and
    /// results merged).
    pub merged: bool,
    /// Whether the alias changed nothing (the names were already one).
    pub unchanged: bool,
}

/// An alias file that does not read (`keil import --aliases`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct AliasFileError {
    /// The 1-based line.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// Reads an alias file: one alias per line, `alias = name` (the first `=`
/// splits; spaces around the names are trimmed); empty lines and lines
/// starting with `#` are skipped.
///
/// ```
/// let aliases = keil_archive::read_aliases("# AlphaGo\nAlphaGo Master = AlphaGo\n").unwrap();
/// assert_eq!(aliases, vec![("AlphaGo Master".to_string(), "AlphaGo".to_string())]);
/// ```
///
/// # Errors
/// [`AliasFileError`] naming the first line without `=`, or with an empty
/// name on either side.
pub fn read_aliases(text: &str) -> std::result::Result<Vec<(String, String)>, AliasFileError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fail = |reason: &str| AliasFileError {
            line: i + 1,
            reason: reason.into(),
        };
        let (alias, name) = line
            .split_once('=')
            .ok_or_else(|| fail("expected `alias = name`"))?;
        let (alias, name) = (alias.trim(), name.trim());
        if alias.is_empty() || name.is_empty() {
            return Err(fail("a name is empty: expected `alias = name`"));
        }
        out.push((alias.to_string(), name.to_string()));
    }
    Ok(out)
}

impl Archive {
    /// Makes `alias` another name of the person `name` names (an
    /// operator's decision: `AlphaGo Master` is `AlphaGo`). Stored for
    /// later imports too: a game of any spelling with `alias`'s person key
    /// counts for `name`'s person. When both names already have games, the
    /// two people become one: their spellings, games and results are
    /// merged, and a game between them becomes a game against oneself
    /// (neither won nor lost). When only `alias` has games, its person
    /// takes `name` as the name shown.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] for a read-only archive; [`Error::BadAlias`]
    /// when a name has no letter or digit or both are the same person key;
    /// SQLite errors.
    pub fn add_alias(&self, alias: &str, name: &str) -> Result<AliasReport> {
        if self.is_read_only() {
            return Err(Error::ReadOnly);
        }
        let mut conn = self.writer()?;
        let tx = conn.transaction()?;
        let report = alias_in(&tx, alias, name)?;
        tx.commit()?;
        Ok(report)
    }
}

/// [`Archive::add_alias`] inside a transaction.
pub(crate) fn alias_in(tx: &Transaction<'_>, alias: &str, name: &str) -> Result<AliasReport> {
    let alias_key = person_key(alias);
    let name_key = person_key(name);
    for (n, k) in [(alias, &alias_key), (name, &name_key)] {
        if !k.chars().any(char::is_alphanumeric) {
            return Err(Error::BadAlias(format!(
                "{n:?} has no letter or digit to tell a person by"
            )));
        }
    }
    if alias_key == name_key {
        return Err(Error::BadAlias(format!(
            "{alias:?} and {name:?} are already one person (both are {alias_key:?} once case, spaces and punctuation are ignored)"
        )));
    }
    let from = resolved(tx, &alias_key)?;
    let to = resolved(tx, &name_key)?;
    let from_person = person_with_key(tx, &from)?;
    let to_person = person_with_key(tx, &to)?;
    let mut report = AliasReport {
        alias_key: alias_key.clone(),
        target_key: to.clone(),
        person: to_person.or(from_person).map(PlayerId::from_sql),
        merged: false,
        unchanged: from == to,
    };
    if from == to {
        return Ok(report);
    }
    // Every key that resolved to `from` resolves to `to` (no chains).
    tx.execute(
        "UPDATE player_aliases SET target = ?2 WHERE target = ?1",
        params![from, to],
    )?;
    for key in [&from, &alias_key] {
        if *key != to {
            tx.execute(
                "INSERT OR REPLACE INTO player_aliases (key, target) VALUES (?1, ?2)",
                params![key, to],
            )?;
        }
    }
    match (from_person, to_person) {
        (Some(a), None) => {
            tx.execute(
                "UPDATE people SET key = ?2, name = ?3 WHERE id = ?1",
                params![a, to, name],
            )?;
        }
        (Some(a), Some(b)) => {
            merge(tx, a, b)?;
            report.merged = true;
        }
        (None, _) => {}
    }
    Ok(report)
}

/// Merges person `a` into person `b`: spellings, game rows, results
/// against each other (now against oneself), the game count.
fn merge(tx: &Transaction<'_>, a: i64, b: i64) -> Result<()> {
    tx.execute("UPDATE players SET person = ?2 WHERE person = ?1", [a, b])?;
    tx.execute(
        "UPDATE game_players SET opponent_id = ?2 WHERE opponent_id = ?1",
        [a, b],
    )?;
    tx.execute(
        "UPDATE game_players SET player_id = ?2 WHERE player_id = ?1",
        [a, b],
    )?;
    tx.execute(
        "UPDATE game_players SET won = NULL WHERE player_id = ?1 AND opponent_id = ?1",
        [b],
    )?;
    tx.execute(
        "UPDATE people SET games = (SELECT COUNT(DISTINCT game_id) FROM game_players \
         WHERE player_id = ?1) WHERE id = ?1",
        [b],
    )?;
    tx.execute("DELETE FROM people WHERE id = ?1", [a])?;
    Ok(())
}

/// The spellings of a person, most games first (then by name).
pub(crate) fn spellings(conn: &Connection, person: PlayerId) -> Result<Vec<NameSpelling>> {
    let mut stmt = conn.prepare_cached(
        "SELECT name, games FROM players WHERE person = ? ORDER BY games DESC, name",
    )?;
    let rows = stmt.query_map([person.sql()], |r| {
        Ok(NameSpelling {
            name: r.get(0)?,
            games: r.get::<_, i64>(1)?.max(0) as u64,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alias_files_name_the_line_at_fault() {
        assert_eq!(
            read_aliases("a = b\n\n# c\n d=e \n").unwrap(),
            vec![("a".into(), "b".into()), ("d".into(), "e".into())]
        );
        let e = read_aliases("a = b\nno separator\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert_eq!(read_aliases("x =\n").unwrap_err().line, 1);
    }
}
