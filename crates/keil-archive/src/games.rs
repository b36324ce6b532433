//! Game queries: one game, lists with filters and keyset pagination,
//! summaries and moves by id.

use crate::error::{Error, Result};
use crate::node::Node;
use keil_store::budget::Budget;
use keil_store::ids::GameId;
use keil_store::model::{
    CollectionSummary, Game, GameFilter, GameList, GameMoves, GameStatus, GameSummary, Page,
};
use keil_store::{Read, games as sql};

/// One game's summary and moves; `None` when no game has this id.
fn summary_and_moves(read: Read<'_>, id: GameId) -> Result<Option<(GameSummary, GameMoves)>> {
    let Some(summary) = sql::summaries(read, &[id])?.pop() else {
        return Ok(None);
    };
    let moves = sql::game_moves(read, id)?.ok_or(Error::Corrupt {
        game: id,
        reason: "vanished".into(),
    })?;
    Ok(Some((summary, moves)))
}

/// The game queries of an archive, from [`Archive::games`](crate::Archive::games). Each call uses
/// one pooled read connection.
pub struct Games<'a> {
    pub(crate) node: &'a Node,
}

impl Games<'_> {
    /// Every collection with stored games (`keil import --collection`),
    /// most games first: its games, years and players' ranks, from the
    /// game facts (caught up with the store first).
    ///
    /// # Errors
    /// Storage errors.
    pub fn collections(&self) -> Result<Vec<CollectionSummary>> {
        let conn = self.node.reader()?;
        conn.snapshot(|read| self.node.facts.refresh(read))?;
        Ok(self.node.facts.read().collection_summaries())
    }

    /// One game in full: metadata, moves and the normalised record text;
    /// `None` when no game has this id.
    ///
    /// # Errors
    /// Storage errors; [`Error::Corrupt`] when the stored moves or record
    /// do not decode.
    pub fn get(&self, id: GameId) -> Result<Option<Game>> {
        self.node.reader()?.snapshot(|read| {
            let Some((summary, moves)) = summary_and_moves(read, id)? else {
                return Ok(None);
            };
            let blob = sql::record(read, id)?.ok_or(Error::Corrupt {
                game: id,
                reason: "vanished".into(),
            })?;
            Ok(Some(Game {
                summary,
                moves,
                record: keil_store::records::decompress(id, &blob)?,
            }))
        })
    }

    /// The name of the upload token whose upload stored game `id` (its
    /// import's `uploader`); `None` for a local import, an import before
    /// schema 6, or an unknown game.
    ///
    /// # Errors
    /// Storage errors.
    pub fn uploader(&self, id: GameId) -> Result<Option<String>> {
        Ok(sql::uploader(self.node.reader()?.read(), id)?)
    }

    /// A page of the games that pass `filter`, sorted by date then id
    /// (keyset pagination: pass the returned `next` as the next page's
    /// `after`).
    ///
    /// # Errors
    /// Storage errors.
    pub fn list(&self, filter: &GameFilter, page: &Page) -> Result<GameList> {
        Ok(sql::list_games(self.node.reader()?.read(), filter, page)?)
    }

    /// [`Games::list`] under a budget: one snapshot whose statements stop
    /// once the budget is spent. For the filters whose list reads rows that
    /// fail them ([`GameFilter::scans`]), which a server runs as searches.
    ///
    /// # Errors
    /// [`Error::OverBudget`] when the budget runs out; storage errors.
    pub fn list_within(
        &self,
        filter: &GameFilter,
        page: &Page,
        budget: &Budget,
    ) -> Result<GameList> {
        self.node
            .reader()?
            .snapshot_within(budget, |read| Ok(sql::list_games(read, filter, page)?))
    }

    /// Summaries of these game ids, in the given order; missing ids are
    /// skipped.
    ///
    /// # Errors
    /// Storage errors.
    pub fn summaries(&self, ids: &[GameId]) -> Result<Vec<GameSummary>> {
        self.node
            .reader()?
            .snapshot(|read| Ok(sql::summaries(read, ids)?))
    }

    /// The main line of one game with its board, ruleset and setup, for
    /// replay; `None` when no game has this id.
    ///
    /// # Errors
    /// Storage errors; [`Error::Corrupt`] when the stored moves do not
    /// decode.
    pub fn moves(&self, id: GameId) -> Result<Option<GameMoves>> {
        Ok(sql::game_moves(self.node.reader()?.read(), id)?)
    }

    /// One game's metadata and main line, without the record text (no
    /// decompression): what a game page shows; `None` when no game has
    /// this id. The two reads need no common snapshot: a stored game never
    /// changes.
    ///
    /// # Errors
    /// Storage errors; [`Error::Corrupt`] when the stored moves do not
    /// decode.
    pub fn summary_and_moves(&self, id: GameId) -> Result<Option<(GameSummary, GameMoves)>> {
        summary_and_moves(self.node.reader()?.read(), id)
    }

    /// The number of games that pass `filter`.
    ///
    /// # Errors
    /// Storage errors.
    pub fn count(&self, filter: &GameFilter) -> Result<u64> {
        self.count_within(filter, &Budget::unlimited())
    }

    /// [`Games::count`] under a budget, one snapshot with the budget's
    /// limit on its statements (see [`GameFilter::count_scans`] for the
    /// counts that may need it).
    ///
    /// # Errors
    /// [`Error::OverBudget`] when the budget runs out; storage errors.
    pub fn count_within(&self, filter: &GameFilter, budget: &Budget) -> Result<u64> {
        let conn = self.node.reader()?;
        match filter.counted() {
            Some(name) => Ok(sql::counts(conn.read())?.get(&name)),
            None => conn.snapshot_within(budget, |read| Ok(sql::count(read, filter)?)),
        }
    }

    /// Every stored status with its number of games.
    ///
    /// # Errors
    /// Storage errors.
    pub fn count_by_status(&self) -> Result<Vec<(GameStatus, u64)>> {
        Ok(sql::counts(self.node.reader()?.read())?.by_status())
    }
}

/// One record of a game: the game's own (the one it was stored from) or
/// another source's record that the merge rule proved to be the game
/// (go-rules.md, "Metadata"), with the game information it gives.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct GameRecord {
    /// The record's number in its game: 0 for the game's own record, else
    /// the id of the other source's record (stable).
    pub record: i64,
    /// The import that read it (`None` for games stored before imports
    /// were logged).
    pub import_id: Option<keil_store::ids::ImportId>,
    /// The file or archive member it came from (`None`: the game's own
    /// record of an import before schema 14, which did not keep it).
    pub source: Option<String>,
    /// The index of its game tree in that file (0-based).
    pub index: Option<u64>,
    /// How it is the game (`None` for the game's own record, and for a
    /// record merged by an older version and not checked yet).
    pub merge_kind: Option<keil_store::model::MergeKind>,
    /// The board symmetry (0-7 on a square board, keil-rules' order) that
    /// maps the record's points onto the game's (0 for the game's own).
    pub transform: u8,
    /// The 1-based plies where its moves differ from the game's.
    pub differs: Vec<u32>,
    /// Its game information, as it writes it: Black (`PB`).
    pub black: Option<String>,
    /// White (`PW`).
    pub white: Option<String>,
    /// The date (`DT` as written).
    pub date: Option<String>,
    /// The event (`EV`).
    pub event: Option<String>,
    /// The result (`RE` as written).
    pub result: Option<String>,
}

/// A game with the same moves as another and game information of its own
/// (a replay by other players, a relay): linked, never merged.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SimilarGame {
    /// The other game.
    pub game: GameSummary,
    /// The link's kind (`similar`).
    pub kind: String,
    /// The symmetry that maps the points of the game with the higher id
    /// onto the other's.
    pub transform: u8,
}

impl Games<'_> {
    /// Game `id`'s records: its own first, then the other sources' in the
    /// order they were merged; empty when no game has this id.
    ///
    /// # Errors
    /// Storage errors; [`Error::Corrupt`] for a record that does not
    /// decompress.
    pub fn records(&self, id: GameId) -> Result<Vec<GameRecord>> {
        self.node.reader()?.snapshot(|read| {
            let Some((import, source, index)) = keil_store::sources::own(read, id.sql())? else {
                return Ok(Vec::new());
            };
            let own = sql::record(read, id)?.ok_or(Error::Corrupt {
                game: id,
                reason: "vanished".into(),
            })?;
            let mut out = vec![record_of(
                0,
                import,
                source,
                index,
                None,
                0,
                None,
                &keil_store::records::decompress(id, &own)?,
            )];
            for row in keil_store::sources::of_game(read, id.sql())? {
                let text = keil_store::records::decompress(id, &row.record)?;
                out.push(record_of(
                    row.id,
                    row.import_id,
                    Some(row.source),
                    Some(row.game_index),
                    row.merge_kind.as_deref(),
                    row.transform,
                    row.differs.as_deref(),
                    &text,
                ));
            }
            Ok(out)
        })
    }

    /// The text of game `id`'s record number `record` ([`GameRecord::record`]:
    /// 0 for its own); `None` when the game has no such record.
    ///
    /// # Errors
    /// Storage errors; [`Error::Corrupt`] for a record that does not
    /// decompress.
    pub fn record_text(&self, id: GameId, record: i64) -> Result<Option<String>> {
        let read = self.node.reader()?;
        if record == 0 {
            let blob = sql::record(read.read(), id)?;
            return Ok(blob
                .map(|blob| keil_store::records::decompress(id, &blob))
                .transpose()?);
        }
        let row = keil_store::sources::of_game(read.read(), id.sql())?
            .into_iter()
            .find(|row| row.id == record);
        Ok(row
            .map(|row| keil_store::records::decompress(id, &row.record))
            .transpose()?)
    }

    /// The games linked to game `id` as similar (the same moves, other game
    /// information), in id order.
    ///
    /// # Errors
    /// Storage errors.
    pub fn similar(&self, id: GameId) -> Result<Vec<SimilarGame>> {
        self.node.reader()?.snapshot(|read| {
            let links = keil_store::sources::links(read, id.sql())?;
            let ids: Vec<GameId> = links.iter().map(|l| GameId::from_sql(l.0)).collect();
            let mut summaries: std::collections::HashMap<GameId, GameSummary> =
                sql::summaries(read, &ids)?
                    .into_iter()
                    .map(|s| (s.id, s))
                    .collect();
            Ok(links
                .into_iter()
                .filter_map(|(other, kind, transform)| {
                    Some(SimilarGame {
                        game: summaries.remove(&GameId::from_sql(other))?,
                        kind,
                        transform: u8::try_from(transform).unwrap_or(0),
                    })
                })
                .collect())
        })
    }
}

/// A [`GameRecord`] from its stored columns and its text (the game
/// information read from the record's root; none when it does not read).
#[allow(clippy::too_many_arguments)]
fn record_of(
    record: i64,
    import: Option<i64>,
    source: Option<String>,
    index: Option<i64>,
    kind: Option<&str>,
    transform: i64,
    differs: Option<&str>,
    text: &str,
) -> GameRecord {
    let info = keil_record::read_records(text.as_bytes())
        .into_iter()
        .next()
        .and_then(|r| r.ok())
        .map(|r| r.info);
    let info = info.as_ref();
    GameRecord {
        record,
        import_id: import.map(keil_store::ids::ImportId::from_sql),
        source,
        index: index.and_then(|i| u64::try_from(i).ok()),
        merge_kind: kind.and_then(keil_store::model::MergeKind::parse),
        transform: u8::try_from(transform).unwrap_or(0),
        differs: differs
            .unwrap_or("")
            .split(',')
            .filter_map(|p| p.parse().ok())
            .collect(),
        black: info.and_then(|i| i.black.clone()),
        white: info.and_then(|i| i.white.clone()),
        date: info.and_then(|i| i.date.as_ref().map(|d| d.raw().to_string())),
        event: info.and_then(|i| i.event.clone()),
        result: info.and_then(|i| i.result.as_ref().map(|r| r.to_string())),
    }
}
