//! A [`GameFilter`] as position and pattern searches apply it to the
//! [`Fact`] table ([`Selection`]), reading from the store only what the
//! table has no column for.

use std::collections::HashSet;

use keil_rules::Color;

use super::{Fact, Facts, date_number};
use crate::error::Result;
use keil_store::Read;
use keil_store::ids::GameId;
use keil_store::model::GameFilter;

/// A [`GameFilter`] as a search applies it: the parts the [`Fact`] table
/// answers (dates, winner, players and colours, ranks, handicap, komi,
/// event, result, collection), and the rest (ruleset, variant, status), read from the
/// store for the matching games only. The filter's kind and size are the
/// query's board and are not read.
#[derive(Clone, Debug, Default)]
pub(crate) struct Selection {
    from: Option<u32>,
    to: Option<u32>,
    winner: Option<i8>,
    min_rank: Option<u8>,
    max_rank: Option<u8>,
    handicap: Option<u32>,
    komi: Option<i32>,
    /// The ids of the events whose folded name holds `event`'s, sorted.
    events: Option<Vec<u32>>,
    /// The id of the result `result` names (0: none of the games has it).
    result: Option<u16>,
    /// The id of the collection `collection` names (0: none of the games
    /// is in it).
    collection: Option<u16>,
    /// The player ids (spellings) of the people `player` names, sorted.
    players: Option<Vec<u32>>,
    /// The same for `opponent`.
    opponents: Option<Vec<u32>>,
    color: Option<Color>,
    /// The filters read from the store, when any is set.
    rest: Option<GameFilter>,
    /// Whether the filter sets nothing (but kind and size).
    everything: bool,
}

impl Selection {
    /// Reads `filter`: the people its names name (on `conn`), the events
    /// and result it names (in `facts`).
    ///
    /// # Errors
    /// Storage errors.
    pub(crate) fn new(conn: Read<'_>, facts: &Facts, filter: &GameFilter) -> Result<Selection> {
        let day = |d: &chrono::NaiveDate| date_number(&d.format("%Y-%m-%d").to_string());
        let ids = |name: &Option<String>| -> Result<Option<Vec<u32>>> {
            name.as_deref()
                .map(|n| {
                    let mut ids: Vec<u32> = keil_store::games::players_named(conn, n)?
                        .into_iter()
                        .filter_map(|id| u32::try_from(id).ok())
                        .collect();
                    ids.sort_unstable();
                    Ok(ids)
                })
                .transpose()
        };
        let (events, result, collection) = {
            let t = facts.read();
            let events = filter.event.as_deref().map(|e| {
                let part = keil_store::fold::fold(e);
                (1..)
                    .zip(&t.events)
                    .filter(|(_, (_, folded))| folded.contains(&part))
                    .map(|(id, _)| id)
                    .collect::<Vec<u32>>()
            });
            let result = filter.result.as_deref().map(|r| {
                t.results
                    .find(r)
                    .and_then(|id| u16::try_from(id).ok())
                    .unwrap_or(0)
            });
            let collection = filter
                .collection
                .as_deref()
                .map(|c| t.collection_id(c).unwrap_or(0));
            (events, result, collection)
        };
        let rest = GameFilter {
            ruleset: filter.ruleset,
            variant: filter.variant,
            status: filter.status,
            ..GameFilter::default()
        };
        Ok(Selection {
            from: filter.from.as_ref().map(day),
            to: filter.to.as_ref().map(day),
            winner: filter.winner.map(|c| c.index() as i8),
            min_rank: filter.min_rank.map(|r| r.ordinal()),
            max_rank: filter.max_rank.map(|r| r.ordinal()),
            handicap: filter.handicap,
            komi: filter.komi.map(|k| k.0),
            events,
            result,
            collection,
            players: ids(&filter.player)?,
            opponents: ids(&filter.opponent)?,
            color: filter.color,
            rest: (rest != GameFilter::default()).then_some(rest),
            everything: *filter
                == GameFilter {
                    kind: filter.kind,
                    size: filter.size,
                    ..GameFilter::default()
                },
        })
    }

    /// Whether the selection keeps every game.
    pub(crate) fn is_everything(&self) -> bool {
        self.everything
    }

    /// Whether the selection reads the store for some of its filters
    /// ([`Selection::stored`]).
    pub(crate) fn reads_store(&self) -> bool {
        self.rest.is_some()
    }

    /// Whether `f` passes the filters the table answers (as
    /// [`GameFilter::matches`] does).
    #[inline]
    pub(crate) fn keeps(&self, f: &Fact) -> bool {
        let dated = f.date != 0;
        if self.from.is_some_and(|d| !dated || f.date < d)
            || self.to.is_some_and(|d| !dated || f.date > d)
            || self.winner.is_some_and(|w| f.winner != w)
            || self.handicap.is_some_and(|h| u32::from(f.handicap) != h)
            || self.komi.is_some_and(|k| i32::from(f.komi) != k)
            || self.result.is_some_and(|r| r == 0 || f.result != r)
            || self.collection.is_some_and(|c| c == 0 || f.collection != c)
            || self
                .events
                .as_ref()
                .is_some_and(|e| e.binary_search(&f.event).is_err())
        {
            return false;
        }
        let ranked = f.black_rank != 0 && f.white_rank != 0;
        if self
            .min_rank
            .is_some_and(|m| !ranked || f.black_rank < m || f.white_rank < m)
            || self
                .max_rank
                .is_some_and(|m| !ranked || f.black_rank > m || f.white_rank > m)
        {
            return false;
        }
        if self.players.is_some() || self.opponents.is_some() || self.color.is_some() {
            let is = |id: u32, set: &Option<Vec<u32>>| {
                set.as_ref()
                    .is_none_or(|s| id != 0 && s.binary_search(&id).is_ok())
            };
            let as_color = |c: Color| {
                let (mine, theirs) = match c {
                    Color::Black => (f.black, f.white),
                    Color::White => (f.white, f.black),
                };
                is(mine, &self.players) && is(theirs, &self.opponents)
            };
            let ok = match self.color {
                Some(c) => as_color(c),
                None => as_color(Color::Black) || as_color(Color::White),
            };
            if !ok {
                return false;
            }
        }
        true
    }

    /// Of `games` (ids, any order), those that pass the filters read from
    /// the store; `None` when the selection reads none (every game
    /// passes them).
    ///
    /// # Errors
    /// Storage errors.
    pub(crate) fn stored(&self, conn: Read<'_>, games: &[u32]) -> Result<Option<HashSet<u32>>> {
        let Some(rest) = &self.rest else {
            return Ok(None);
        };
        let ids: Vec<GameId> = games
            .iter()
            .map(|&g| GameId::from_sql(i64::from(g)))
            .collect();
        Ok(Some(
            keil_store::games::kept(conn, rest, &ids)?
                .into_iter()
                .map(|id| id.sql() as u32)
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::facts::tests::fact;

    #[test]
    fn ranks_bound_both_players_and_the_unranked_fail() {
        let s = |min: Option<u8>, max: Option<u8>| Selection {
            min_rank: min,
            max_rank: max,
            ..Selection::default()
        };
        assert!(s(Some(33), None).keeps(&fact()));
        assert!(!s(Some(34), None).keeps(&fact()));
        assert!(s(None, Some(35)).keeps(&fact()));
        assert!(!s(None, Some(34)).keeps(&fact()));
        let unranked = Fact {
            white_rank: 0,
            ..fact()
        };
        assert!(!s(Some(1), None).keeps(&unranked));
        assert!(s(None, None).keeps(&unranked));
        assert_eq!(fact().weaker_rank(), 33);
        assert_eq!(unranked.weaker_rank(), 0);
    }

    #[test]
    fn players_and_colours_follow_the_game_filter() {
        let s = Selection {
            players: Some(vec![2]),
            color: Some(Color::White),
            ..Selection::default()
        };
        assert!(s.keeps(&fact()));
        let s = Selection {
            color: Some(Color::Black),
            ..s
        };
        assert!(!s.keeps(&fact()));
        // An opponent alone: either player.
        let s = Selection {
            opponents: Some(vec![1]),
            ..Selection::default()
        };
        assert!(s.keeps(&fact()));
    }
}
