//! What a search page shows beside each hit (the game's date as written,
//! players' names, ranks as lists show them, and result; its collection
//! is the facts' own),
//! kept beside the facts so that a page of position or pattern hits reads
//! nothing from the store: on a database server that is a round trip per
//! search fewer, and on either backend a page of one game is as cheap as
//! one of a hundred.
//!
//! Invariants: a stored game never changes and a spelling's name
//! (`players.name`) never changes, so what is kept for a game id is right
//! for as long as the game is stored; the facts' own entry says whether it
//! still is.

use std::collections::HashMap;

use super::Texts;
use keil_store::model::HitDetails;

/// Per game id its shown date, ranks and result (ids in [`Shown`]'s texts,
/// the result's in the facts' own), and the names of the players
/// (spellings) met: 16 bytes a game, and a few bytes per distinct date,
/// rank and name.
#[derive(Debug, Default)]
pub(super) struct Shown {
    /// By game id: `[date, black rank, white rank, result]`, text ids.
    games: Vec<[u32; 4]>,
    dates: Texts,
    ranks: Texts,
    /// By player id (spelling): its name as written.
    names: HashMap<u32, Box<str>>,
}

impl Shown {
    /// Keeps what game `id` shows (`row`, its result already the facts'
    /// text `result`; its players' names are kept apart, by
    /// [`Shown::add_names`]).
    pub(super) fn set(&mut self, id: usize, result: u32, row: &HitDetails) {
        if self.games.len() <= id {
            self.games.resize(id + 1, [0; 4]);
        }
        self.games[id] = [
            self.dates.id(Some(&row.date)),
            self.ranks.id(row.black_rank.as_deref()),
            self.ranks.id(row.white_rank.as_deref()),
            result,
        ];
    }

    /// Of the players `ids` (0 for none), those whose names are not kept:
    /// ascending, distinct.
    pub(super) fn missing_names(&self, ids: impl Iterator<Item = u32>) -> Vec<u32> {
        let mut missing: Vec<u32> = ids
            .filter(|&p| p != 0 && !self.names.contains_key(&p))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        missing
    }

    /// Keeps players' names, `(id, name)` (a name kept stays: a spelling's
    /// never changes).
    pub(super) fn add_names(&mut self, names: Vec<(u32, String)>) {
        for (player, name) in names {
            self.names.entry(player).or_insert_with(|| name.into());
        }
    }

    /// What game `id`, played by `black` and `white`, shows (its result
    /// read in `results`, the facts' texts); `None` when nothing was kept
    /// for it.
    pub(super) fn details(
        &self,
        id: usize,
        black: u32,
        white: u32,
        results: &Texts,
    ) -> Option<HitDetails> {
        let [date, black_rank, white_rank, result] = *self.games.get(id)?;
        let name = |p: u32| self.names.get(&p).map(|n| n.to_string());
        Some(HitDetails {
            date: self.dates.get(date)?.to_string(),
            black: name(black),
            white: name(white),
            black_rank: self.ranks.get(black_rank).map(str::to_string),
            white_rank: self.ranks.get(white_rank).map(str::to_string),
            result: results.get(result).map(str::to_string),
            collection: None,
        })
    }

    /// Bytes held in the heap, about.
    pub(super) fn bytes(&self) -> usize {
        self.games.capacity() * 16
            + self.dates.bytes()
            + self.ranks.bytes()
            + self.names.values().map(|n| n.len() + 32).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(date: &str, black: Option<&str>, rank: Option<&str>) -> HitDetails {
        HitDetails {
            date: date.into(),
            black: black.map(Into::into),
            white: Some("Lee".into()),
            black_rank: rank.map(Into::into),
            white_rank: None,
            result: rank.map(|_| "B+R".into()),
            collection: None,
        }
    }

    #[test]
    fn a_game_shows_what_was_kept_for_it_and_unknown_games_nothing() {
        let (mut s, mut results) = (Shown::default(), Texts::default());
        for (id, black, r) in [
            (3, 7, row("2020-01-02", Some("Cho"), Some("9p"))),
            (5, 0, row("", None, None)),
        ] {
            let result = results.id(r.result.as_deref());
            s.set(id, result, &r);
            let missing = s.missing_names([black, 8, 0].into_iter());
            let names = [(7, r.black.clone()), (8, r.white.clone())]
                .into_iter()
                .filter_map(|(p, n)| Some((p, n?)))
                .filter(|(p, _)| missing.contains(p));
            s.add_names(names.collect());
        }
        // A player's name is asked for once; 0 (none) never.
        assert_eq!(s.missing_names([0, 7, 8, 9, 9].into_iter()), vec![9]);
        let d = s.details(3, 7, 8, &results).unwrap();
        assert_eq!(
            (d.date.as_str(), d.black.as_deref(), d.white.as_deref()),
            ("2020-01-02", Some("Cho"), Some("Lee"))
        );
        assert_eq!(
            (d.black_rank.as_deref(), d.white_rank, d.result.as_deref()),
            (Some("9p"), None, Some("B+R"))
        );
        let d = s.details(5, 0, 8, &results).unwrap();
        assert_eq!((d.date.as_str(), d.black, d.result), ("", None, None));
        // Ids never set (between and after those kept) show nothing.
        assert!(s.details(4, 7, 8, &results).is_none());
        assert!(s.details(6, 7, 8, &results).is_none());
    }
}
