//! One identity per person (docs/collections.md, "Players"): spellings
//! (`players`, the name as written) resolve to people (`people`) by their
//! person key ([`person_key`]) and the operator's aliases
//! (`player_aliases`). The import resolves each new spelling here; an alias
//! merges two people here (the rows: `keil_store::people`).

use std::collections::{HashMap, HashSet};

use crate::error::{Error, Result};
use crate::node::Node;
use keil_store::fold::person_key;
use keil_store::ids::PlayerId;
use keil_store::model::people::{AliasReport, Spelling};
use keil_store::{Write, people as sql};

/// The spellings an import met, by name: a name is looked up once per
/// import. Names added by a batch that rolls back are forgotten
/// ([`SpellingCache::forget`]).
#[derive(Default)]
pub(crate) struct SpellingCache {
    known: HashMap<String, Spelling>,
    /// Names [`SpellingCache::prefetch`] found unstored in this batch's
    /// transaction: added without another lookup.
    unstored: HashSet<String>,
}

impl SpellingCache {
    /// The spelling `name`, stored (with its person when the name's key is
    /// new) if the archive does not have it yet; `added` collects the
    /// names stored in this transaction.
    pub(crate) fn get(
        &mut self,
        tx: Write<'_>,
        added: &mut Vec<String>,
        name: &str,
    ) -> Result<Spelling> {
        if let Some(&s) = self.known.get(name) {
            return Ok(s);
        }
        let stored = if self.unstored.remove(name) {
            None
        } else {
            sql::spelling(tx.read(), name)?
        };
        let spelling = match stored {
            Some(s) => s,
            None => {
                let s = sql::add_spelling(tx, name)?;
                added.push(name.to_string());
                s
            }
        };
        self.known.insert(name.to_string(), spelling);
        Ok(spelling)
    }

    /// Looks up, in a few statements, the names of a batch that the cache
    /// does not know (inside the batch's transaction: the names it then
    /// finds unstored are added by [`SpellingCache::get`] without another
    /// lookup).
    ///
    /// # Errors
    /// Storage errors.
    pub(crate) fn prefetch<'n>(
        &mut self,
        tx: Write<'_>,
        names: impl IntoIterator<Item = &'n str>,
    ) -> Result<()> {
        self.unstored.clear();
        let mut wanted: Vec<&str> = names
            .into_iter()
            .filter(|n| !self.known.contains_key(*n))
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        let found = sql::spellings_named(tx.read(), &wanted)?;
        for name in wanted {
            match found.get(name) {
                Some(&s) => {
                    self.known.insert(name.to_string(), s);
                }
                None => {
                    self.unstored.insert(name.to_string());
                }
            }
        }
        Ok(())
    }

    /// Forgets names whose rows were rolled back.
    pub(crate) fn forget(&mut self, names: Vec<String>) {
        self.unstored.clear();
        for name in names {
            self.known.remove(&name);
        }
    }
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

/// [`Archive::add_alias`](crate::Archive::add_alias): see there.
pub(crate) fn add_alias(node: &Node, alias: &str, name: &str) -> Result<AliasReport> {
    if node.is_read_only() {
        return Err(Error::ReadOnly);
    }
    node.writer()?.transaction(|tx| alias_in(tx, alias, name))
}

/// [`Archive::set_player_name`](crate::Archive::set_player_name): see
/// there.
pub(crate) fn set_name(node: &Node, person: &str, name: Option<&str>) -> Result<PlayerId> {
    if node.is_read_only() {
        return Err(Error::ReadOnly);
    }
    let name = name.map(str::trim);
    if let Some(n) = name
        && !n.chars().any(char::is_alphanumeric)
    {
        return Err(Error::BadPlayerName(format!(
            "{n:?} has no letter or digit to show a person by"
        )));
    }
    node.writer()?.transaction(|tx| {
        let id = sql::id_of(tx.read(), person)?.ok_or_else(|| {
            Error::BadPlayerName(format!(
                "no player named {person:?}: give a name as the records write it, or #ID from the player's page"
            ))
        })?;
        sql::names::set_name(tx, id, name)?;
        Ok(id)
    })
}

/// [`Archive::add_alias`](crate::Archive::add_alias) inside a transaction.
pub(crate) fn alias_in(tx: Write<'_>, alias: &str, name: &str) -> Result<AliasReport> {
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
    Ok(sql::alias(tx, &alias_key, &name_key, name)?)
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

    #[test]
    fn spelling_names_read_dense_and_sparse_ids() {
        let dir = tempfile::tempdir().unwrap();
        let archive = crate::archive::Archive::open(dir.path()).unwrap();
        crate::archive::import_generated(
            &archive,
            keil_gen::GeneratorConfig {
                games: 40,
                seed: 9,
                ..keil_gen::GeneratorConfig::default()
            },
        );
        let conn = archive.node.reader().unwrap();
        let names = |ids: &[u32]| keil_store::people::spelling_names(conn.read(), ids).unwrap();
        // Dense ids: one range read; ids past the last spelling are left out.
        let mut dense = names(&(1..=200).collect::<Vec<_>>());
        dense.sort();
        assert!(dense.len() >= 3, "{dense:?}");
        assert!(dense.iter().all(|(_, name)| !name.is_empty()));
        // Sparse ids: by list, the same names.
        let (first, last) = (dense[0].clone(), dense[dense.len() - 1].clone());
        let mut sparse = names(&[first.0, last.0, 50_000]);
        sparse.sort();
        assert_eq!(sparse, vec![first, last]);
        assert!(names(&[]).is_empty());
    }
}
