//! Text search that shows where: [`Archive::search_text_page`] finds the
//! games (the tantivy index, which holds nothing but game ids), then reads
//! each listed game's record from the store and finds the query's words
//! again in it, field by field, to say where they are: the field, an
//! excerpt with the words marked ([`Excerpt`]) and, for a comment, its
//! node's ply and variation ([`NodeAt`]).
//!
//! The text is not stored in the index: a page reads its hits' records
//! (at most [`MAX_TEXT_PAGE`] through the server), where stored fields
//! would grow the index by the text of every game and still not give a
//! comment's node. Measured on a 5,000-game 19×19 Go archive (about 330
//! moves a game): `keil search text classic --limit 100` runs in 20 to
//! 40 ms, the archive's open included; `--limit 20` in 10 to 30 ms.
//!
//! A four-digit year from [`YEARS`](crate::TEXT_YEARS) in the query
//! (`Shusaku 1846`) is no word: it keeps the games of that year
//! ([`TextPlan::take_years`]); several years keep the games of any of
//! them.

mod cursor;
mod excerpt;
mod nodes;

use std::sync::Arc;

use serde::Serialize;

pub use cursor::TextCursor;
pub use excerpt::{EXCERPT_CHARS, Excerpt};
pub use nodes::NodeAt;

use crate::archive::Archive;
use crate::error::Result;
use crate::index::text::page::PageSpec;
use crate::index::text::query::{TextClause, TextField, TextPlan, analyzer};
use keil_record::Record;
use keil_store::budget::Budget;
use keil_store::ids::GameId;
use keil_store::model::GameSummary;

/// The most hits a page of a text search lists.
pub const MAX_TEXT_PAGE: usize = 100;

/// Which page of a text search: at most `limit` hits, after `after` (the
/// first page without).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextPage {
    /// At most this many hits (the archive reads each one's record).
    pub limit: usize,
    /// The hits after this one ([`TextResults::next`] of the page before).
    pub after: Option<TextCursor>,
}

impl Default for TextPage {
    /// The first 20 hits.
    fn default() -> TextPage {
        TextPage {
            limit: 20,
            after: None,
        }
    }
}

/// Where a hit's game has the query's words: one field, with an excerpt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextMatch {
    /// The field: players, event, place, game name or comment.
    pub field: TextField,
    /// The field's text around the words, the words marked.
    pub excerpt: Excerpt,
    /// For a comment: its node ([`NodeAt`]; the game comment `GC` is the
    /// root's, ply 0); `None` for the other fields.
    pub node: Option<NodeAt>,
    /// How many of the query's words (a phrase counts as one) the field
    /// has.
    pub words: usize,
}

/// A full-text match.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TextHit {
    /// The game.
    pub game: GameSummary,
    /// tantivy's BM25 score (higher is better).
    pub score: f32,
    /// Where the game has the query's words: each field that has some,
    /// the field with most words first, then players, event, place, game
    /// name, comment. Of the comments, the one that has most of the words
    /// (the first such along the main line, then in the variations), then
    /// those that have words found in no match before them, up to 3.
    /// Empty only when the stored record no longer reads as one game.
    pub matches: Vec<TextMatch>,
}

impl TextHit {
    /// The cursor of the page after this hit.
    pub fn cursor(&self) -> TextCursor {
        TextCursor {
            score: self.score,
            game: self.game.id,
        }
    }
}

/// One page of a text search (the default: an empty page, nothing
/// found).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TextResults {
    /// Best first (by score, then by game id).
    pub hits: Vec<TextHit>,
    /// Every game the query finds, on every page.
    pub total: u64,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<TextCursor>,
    /// The years of the query read as a date filter, not as words.
    pub years: Vec<u16>,
}

impl Archive {
    /// Games whose players, event, place, game name or comments match
    /// `query`, best first, at most `limit`. The query is read by
    /// [`TextPlan::parse`](crate::TextPlan::parse): words that must all occur (case and accents
    /// ignored, each in any field), `"phrases"`, `player:`, `event:`,
    /// `place:`, `name:`,
    /// `comment:` to restrict a word or phrase to one field, `-word` to
    /// exclude; anything else (brackets, `AND`, a lone quote, `a:b:c`) is
    /// searched as words, never a syntax error. A query with no word to
    /// find (only punctuation, or only excluded words) finds nothing. A
    /// four-digit year from 1600 to 2100 among other words (`Shusaku
    /// 1846`) keeps the games of that year instead of being searched
    /// ([`TextPlan::take_years`](crate::TextPlan::take_years)). Each hit
    /// says where it matched ([`TextHit::matches`](crate::TextHit::matches));
    /// [`Archive::search_text_page`] pages past `limit`, with the total.
    ///
    /// # Errors
    /// [`Error::TextQuery`](crate::Error::TextQuery) for a query over [`MAX_TEXT_QUERY_BYTES`](crate::MAX_TEXT_QUERY_BYTES) or
    /// [`MAX_TEXT_QUERY_WORDS`](crate::MAX_TEXT_QUERY_WORDS); tantivy and SQLite errors.
    pub fn search_text(&self, query: &str, limit: usize) -> Result<Vec<TextHit>> {
        self.search_text_within(query, limit, &Budget::unlimited())
    }

    /// [`Archive::search_text`] under a time budget, checked before the
    /// text index is searched and before the games are read.
    ///
    /// # Errors
    /// [`Error::OverBudget`](crate::Error::OverBudget) when `budget` is spent; as
    /// [`Archive::search_text`].
    pub fn search_text_within(
        &self,
        query: &str,
        limit: usize,
        budget: &Budget,
    ) -> Result<Vec<TextHit>> {
        let page = TextPage { limit, after: None };
        Ok(self.search_text_page(query, &page, budget)?.hits)
    }

    /// One page of the games whose players, event, place, game name or
    /// comments match `query` (read as [`Archive::search_text`] says, a
    /// year taken as a date filter: the module's docs), best first, each
    /// with where it matched ([`TextHit::matches`]), the number of games
    /// found and the next page's cursor. `budget` is checked before the
    /// index is searched, between its segments and before each record is
    /// read.
    ///
    /// # Errors
    /// [`Error::TextQuery`](crate::Error::TextQuery) for a query over the bounds;
    /// [`Error::OverBudget`](crate::Error::OverBudget) when `budget` is spent; tantivy and storage
    /// errors.
    pub fn search_text_page(
        &self,
        query: &str,
        page: &TextPage,
        budget: &Budget,
    ) -> Result<TextResults> {
        let mut plan = TextPlan::parse(query)?;
        let years = plan.take_years();
        budget.check()?;
        // An embedded archive opened read-only writes nothing, its text
        // index included; every other follows the store (a fresh catch-up
        // round has).
        if self.node.text_follows() && self.node.follow.current().is_none() {
            self.node.text.follow(self.node.reader()?.read())?;
        }
        let keep = if years.is_empty() {
            None
        } else {
            Some(self.games_of_years(&years)?)
        };
        let spec = PageSpec {
            keep,
            after: page.after.map(TextCursor::ranked),
            limit: page.limit.saturating_add(1),
        };
        let mut found = self.node.text.search_page(&plan, spec, budget)?;
        let more = found.hits.len() > page.limit;
        found.hits.truncate(page.limit);
        budget.check()?;
        let ids: Vec<GameId> = found
            .hits
            .iter()
            .filter_map(|h| GameId::new(h.id))
            .collect();
        let mut by_id: std::collections::HashMap<GameId, GameSummary> = self
            .games()
            .summaries(&ids)?
            .into_iter()
            .map(|g| (g.id, g))
            .collect();
        let mut hits = Vec::with_capacity(ids.len());
        for (h, id) in found.hits.iter().zip(ids) {
            let Some(game) = by_id.remove(&id) else {
                continue;
            };
            budget.check()?;
            let matches = self.matches_of(&game, plan.clauses())?;
            hits.push(TextHit {
                game,
                score: h.score,
                matches,
            });
        }
        let next = found.hits.last().filter(|_| more).and_then(|h| {
            Some(TextCursor {
                score: h.score,
                game: GameId::new(h.id)?,
            })
        });
        Ok(TextResults {
            hits,
            total: found.total,
            next,
            years,
        })
    }

    /// The ids of the stored games dated in one of `years`, sorted.
    fn games_of_years(&self, years: &[u16]) -> Result<Arc<[u64]>> {
        let facts = &self.node.facts;
        self.node.reader()?.snapshot(|conn| facts.refresh(conn))?;
        let table = facts.read();
        Ok(table.ids_where(|f| years.contains(&f.year())).into())
    }

    /// Where game `game`'s record has the clauses' words.
    fn matches_of(&self, game: &GameSummary, clauses: &[TextClause]) -> Result<Vec<TextMatch>> {
        let id = game.id;
        let Some(blob) = keil_store::games::record(self.node.reader()?.read(), id)? else {
            return Ok(Vec::new());
        };
        let text = keil_store::records::decompress(id, &blob)?;
        let mut records = keil_record::read_records(text.as_bytes());
        // The index read the same record (`text_of_stored`): one that no
        // longer reads as one game (a reader changed since) is listed
        // without its matches rather than failing the search.
        Ok(match records.pop() {
            Some(Ok(r)) if records.is_empty() => matches_in(&r, game.plies, clauses),
            _ => Vec::new(),
        })
    }
}

/// At most this many comments of a game are listed as its matches.
const MAX_COMMENTS: usize = 3;

/// Where `record` has the clauses' words (see [`TextHit::matches`]);
/// a main-line node's ply at most `plies` (the stored main line's).
fn matches_in(record: &Record, plies: u32, clauses: &[TextClause]) -> Vec<TextMatch> {
    let mut analyzer = analyzer();
    let info = &record.info;
    let players = [&info.black, &info.white, &info.black_team, &info.white_team]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" · ");
    let mut out = Vec::new();
    let mut covered = 0u64;
    for (field, text) in [
        (TextField::Player, Some(players.as_str())),
        (TextField::Event, info.event.as_deref()),
        (TextField::Place, info.place.as_deref()),
        (TextField::Name, info.game_name.as_deref()),
    ] {
        let Some(text) = text else { continue };
        let (marks, found) = excerpt::find(text, field, clauses, &mut analyzer);
        if found != 0 {
            covered |= found;
            out.push(TextMatch {
                field,
                excerpt: excerpt::excerpt(text, &marks),
                node: None,
                words: found.count_ones() as usize,
            });
        }
    }
    out.extend(comments(record, plies, clauses, covered, &mut analyzer));
    // Stable: the fields' order among those with as many words.
    out.sort_by_key(|m| std::cmp::Reverse(m.words));
    out
}

/// The comments to list: the one with most of the clauses' words, then,
/// while some clause is found in a comment but in no match listed
/// (`covered`: the other fields'), the one with most of those, up to
/// [`MAX_COMMENTS`]. Comments are taken in this order, the first winning
/// a tie: the game comment, the main line's node comments, the
/// variations' in file order.
fn comments(
    record: &Record,
    plies: u32,
    clauses: &[TextClause],
    mut covered: u64,
    analyzer: &mut tantivy::tokenizer::TextAnalyzer,
) -> Vec<TextMatch> {
    let root = NodeAt {
        ply: 0,
        variation: None,
    };
    let places = nodes::places(record);
    let mut texts: Vec<(NodeAt, std::borrow::Cow<'_, str>)> = Vec::new();
    if let Some(gc) = &record.info.comment {
        texts.push((root, gc.as_str().into()));
    }
    for node in record.tree.nodes() {
        for p in node.properties().filter(|p| p.ident() == "C") {
            for v in p.values() {
                texts.push((places[node.id().index()], v.into_text()));
            }
        }
    }
    // Main line first, keeping the file's order within each part.
    texts.sort_by_key(|(at, _)| at.variation.is_some());
    let mut found: Vec<(NodeAt, &str, Vec<std::ops::Range<usize>>, u64)> = texts
        .iter()
        .filter_map(|(at, text)| {
            let (marks, found) = excerpt::find(text, TextField::Comment, clauses, analyzer);
            (found != 0).then_some((*at, &**text, marks, found))
        })
        .collect();
    let mut out = Vec::new();
    let mut wanted = u64::MAX;
    while out.len() < MAX_COMMENTS {
        let gain = |f: u64| (f & wanted).count_ones();
        let Some(best) = found
            .iter()
            .enumerate()
            .filter(|(_, c)| gain(c.3) > 0)
            .min_by_key(|(k, c)| (std::cmp::Reverse(gain(c.3)), *k))
            .map(|(k, _)| k)
        else {
            break;
        };
        let (mut at, text, marks, f) = found.remove(best);
        if at.variation.is_none() {
            at.ply = at.ply.min(plies);
        }
        covered |= f;
        wanted = !covered;
        out.push(TextMatch {
            field: TextField::Comment,
            excerpt: excerpt::excerpt(text, &marks),
            node: Some(at),
            words: f.count_ones() as usize,
        });
    }
    out
}

#[cfg(test)]
mod tests;
