//! The games in the store: summaries (the `games` row with its players'
//! names), filtered lists with keyset pages, counts, moves, records and
//! uploaders, exports streamed in date order, and the runs of games that
//! derived indexes catch up with (streamed in id order).
//!
//! A [`GameFilter`] becomes one SQL condition ([`filter_sql`]) that every
//! read here shares, so a list, a count, an export and a search's filter
//! select the same games.

use crate::counts::Counts;
use crate::error::{Error, Result};
use crate::ids::GameId;
use crate::model::{Cursor, GameFilter, GameList, GameMoves, GameSummary, Order, Page};
use crate::model::{MAX_PAGE, StoredMoves};
use crate::sql::Read;
use crate::sql::{Backend, Row, params};
use crate::sql::{Param, Relay};
use chrono::NaiveDate;
use keil_rules::{Color, HalfPoints};

/// The columns read into a [`GameSummary`], over `games g` joined with
/// `players pb` (Black) and `players pw` (White): [`SUMMARY_WIDTH`] of
/// them.
const SUMMARY_COLUMNS: &str = "g.id, pb.name, pw.name, g.black_rank, g.white_rank, \
     g.date_raw, g.date, g.event, g.round, g.place, g.game_name, g.result, g.winner, g.margin, \
     g.status, g.size, g.ruleset, g.komi, g.plies, g.kind, g.black_rank_ord, g.white_rank_ord, g.handicap, gc.name";

/// How many columns [`SUMMARY_COLUMNS`] has: a query that reads more
/// after them reads them from this index on.
const SUMMARY_WIDTH: usize = 24;

const SUMMARY_FROM: &str = "games g LEFT JOIN players pb ON pb.id = g.black_id \
     LEFT JOIN players pw ON pw.id = g.white_id LEFT JOIN collections gc ON gc.id = g.collection_id";

fn color(i: Option<i64>) -> Option<Color> {
    match i {
        Some(0) => Some(Color::Black),
        Some(1) => Some(Color::White),
        _ => None,
    }
}

/// The rank of a stored ordinal (`games.black_rank_ord`, `white_rank_ord`: [`keil_record::Rank::ordinal`]); `None` for none or an ordinal no rank has.
pub fn rank(ordinal: Option<i64>) -> Option<keil_record::Rank> {
    ordinal
        .and_then(|n| u8::try_from(n).ok())
        .and_then(keil_record::Rank::from_ordinal)
}

fn summary_of(row: &Row<'_>) -> Result<GameSummary> {
    let date: String = row.get(6)?;
    let status: String = row.get(14)?;
    let kind: String = row.get(19)?;
    Ok(GameSummary {
        id: GameId::from_sql(row.get(0)?),
        black: row.get(1)?,
        white: row.get(2)?,
        black_rank: rank(row.get(20)?),
        white_rank: rank(row.get(21)?),
        black_rank_text: row.get(3)?,
        white_rank_text: row.get(4)?,
        date: row.get(5)?,
        day: NaiveDate::parse_from_str(&date, "%Y-%m-%d").ok(),
        event: row.get(7)?,
        round: row.get(8)?,
        place: row.get(9)?,
        game_name: row.get(10)?,
        result: row.get(11)?,
        winner: color(row.get(12)?),
        margin: row.get::<Option<i32>>(13)?.map(HalfPoints),
        status: status
            .parse()
            .map_err(|e: crate::model::GameStatusError| crate::error::storage_error("store", e))?,
        size: row.get(15)?,
        ruleset: row.get(16)?,
        komi: HalfPoints(row.get(17)?),
        handicap: row.get::<i64>(22)?.clamp(0, i64::from(u32::MAX)) as u32,
        plies: row.get(18)?,
        kind: kind
            .parse()
            .map_err(|e: crate::kind::GameKindError| crate::error::storage_error("store", e))?,
        collection: row.get(SUMMARY_WIDTH - 1)?,
    })
}

/// The filter as an SQL condition over the `games` table aliased `g`
/// (`WHERE` not included; `TRUE` when nothing is filtered), with its
/// parameters in order (positional `?`), in `backend`'s spelling. Agrees with [`GameFilter::matches`]
/// where a person has the name's key; beyond it, follows the aliases and
/// falls back to word prefixes, as [`GameFilter`] says.
pub fn filter_sql(backend: Backend, filter: &GameFilter) -> (String, Vec<Param<'static>>) {
    let mut w = Where::default();
    players(&mut w, filter);
    if let Some(e) = &filter.event {
        event(&mut w, backend, e);
    }
    columns(&mut w, filter);
    if w.conds.is_empty() {
        ("TRUE".into(), w.params)
    } else {
        (w.conds.join(" AND "), w.params)
    }
}

/// A `WHERE` clause being written: its conditions (joined by `AND`) and
/// their parameters, in order.
#[derive(Default)]
struct Where {
    conds: Vec<String>,
    params: Vec<Param<'static>>,
}

impl Where {
    /// Adds condition `cond`, whose placeholders take `params`.
    fn add(&mut self, cond: impl Into<String>, params: impl IntoIterator<Item = Param<'static>>) {
        self.conds.push(cond.into());
        self.params.extend(params);
    }
}

/// The filter's player, opponent and colour: the games where a spelling
/// of the player's people holds the colour (either when none is given)
/// against a spelling of the opponent's.
fn players(w: &mut Where, filter: &GameFilter) {
    if filter.player.is_none() && filter.opponent.is_none() && filter.color.is_none() {
        return;
    }
    let colors = match filter.color {
        Some(c) => vec![c],
        None => vec![Color::Black, Color::White],
    };
    let mut alts = Vec::new();
    let mut params = Vec::new();
    for c in colors {
        let (me, other) = match c {
            Color::Black => ("g.black_id", "g.white_id"),
            Color::White => ("g.white_id", "g.black_id"),
        };
        let mut parts = Vec::new();
        for (col, name) in [(me, &filter.player), (other, &filter.opponent)] {
            if let Some(n) = name {
                // Every spelling of the people the name names: one
                // set, so that the column's index serves it.
                let (people, values) = people_named(n);
                parts.push(format!(
                    "{col} IN (SELECT id FROM players WHERE person IN ({people}))"
                ));
                params.extend(values);
            }
        }
        if parts.is_empty() {
            parts.push("TRUE".into());
        }
        alts.push(format!("({})", parts.join(" AND ")));
    }
    w.add(format!("({})", alts.join(" OR ")), params);
}

/// A part of the folded event name `e`, found among the distinct events,
/// compared case-insensitively as `games_event` indexes them (SQLite:
/// NOCASE; PostgreSQL: lower(event)): the index serves the set.
fn event(w: &mut Where, backend: Backend, e: &str) {
    let contains = backend.contains("folded");
    let cond = match backend {
        Backend::Sqlite => {
            format!("g.event COLLATE NOCASE IN (SELECT name FROM events WHERE {contains})")
        }
        Backend::Postgres => {
            format!("lower(g.event) IN (SELECT lower(name) FROM events WHERE {contains})")
        }
    };
    w.add(cond, [Param::Text(crate::fold::fold(e).into())]);
}

/// The filter's conditions on the games' own columns: dates, result,
/// winner, game, board, ruleset, variant, status, ranks, handicap, komi,
/// collection.
fn columns(w: &mut Where, filter: &GameFilter) {
    if let Some(f) = filter.from {
        w.add("g.date >= ?", [text(f.format("%Y-%m-%d").to_string())]);
    }
    if let Some(t) = filter.to {
        w.add(
            "g.date <> '' AND g.date <= ?",
            [text(t.format("%Y-%m-%d").to_string())],
        );
    }
    if let Some(r) = &filter.result {
        w.add("g.result = ?", [text(r.clone())]);
    }
    if let Some(c) = filter.winner {
        w.add("g.winner = ?", [Param::Int(c.index() as i64)]);
    }
    if let Some(k) = filter.kind {
        w.add("g.kind = ?", [text(k.code())]);
    }
    if let Some(s) = filter.size {
        w.add("g.size = ?", [Param::Int(i64::from(s))]);
    }
    if let Some(r) = filter.ruleset {
        w.add("g.ruleset = ?", [text(r.to_string())]);
    }
    if let Some(v) = filter.variant {
        // The stored ruleset is KaomiRuleset's canonical form,
        // `Kaomi; variant=squared; pie=off`.
        w.add(
            "g.kind = 'kaomi' AND g.ruleset LIKE ?",
            [text(format!("%variant={};%", v.code()))],
        );
    }
    if let Some(s) = filter.status {
        w.add("g.status = ?", [text(s.code())]);
    }
    if let Some(r) = filter.min_rank {
        let n = Param::Int(r.ordinal().into());
        w.add(
            "g.black_rank_ord >= ? AND g.white_rank_ord >= ?",
            [n.clone(), n],
        );
    }
    if let Some(r) = filter.max_rank {
        let n = Param::Int(r.ordinal().into());
        w.add(
            "g.black_rank_ord <= ? AND g.white_rank_ord <= ?",
            [n.clone(), n],
        );
    }
    if let Some(h) = filter.handicap {
        w.add("g.handicap = ?", [Param::Int(i64::from(h))]);
    }
    if let Some(k) = filter.komi {
        w.add("g.komi = ?", [Param::Int(i64::from(k.0))]);
    }
    if let Some(c) = &filter.collection {
        w.add(
            "g.collection_id = (SELECT id FROM collections WHERE name = ?)",
            [text(c.clone())],
        );
    }
}

/// A text parameter.
fn text(s: impl Into<String>) -> Param<'static> {
    Param::Text(s.into().into())
}

/// The cursor of a listed game.
fn cursor_of(g: &GameSummary) -> Cursor {
    Cursor {
        date: g
            .day
            .map(|d| d.format("%Y-%m-%d").to_string())
            .unwrap_or_default(),
        id: g.id,
    }
}

/// The people a player filter's name names, as an SQL subquery and its
/// parameters: the people it answers to
/// ([`answering_sql`](crate::people::names::answering_sql)).
fn people_named(name: &str) -> (String, Vec<Param<'static>>) {
    crate::people::names::answering_sql(name)
}

/// The player ids (`players.id`: spellings) of the people a filter's
/// name names ([`GameFilter::player`]: the person, with aliases, else
/// word prefixes), in no particular order.
pub fn players_named(conn: Read<'_>, name: &str) -> Result<Vec<i64>> {
    let (people, values) = people_named(name);
    conn.query(
        &format!("SELECT id FROM players WHERE person IN ({people})"),
        &values,
        |r| r.get(0),
    )
}

/// Lists games (see `keil_archive::Games::list`).
pub fn list_games(conn: Read<'_>, filter: &GameFilter, page: &Page) -> Result<GameList> {
    let Some(n) = &filter.player else {
        return list_page(conn, filter, page, None);
    };
    list_page(conn, filter, page, Some(people_test(conn, n)?))
}

/// People a list of ids names at most in a statement; a name that answers
/// to more (a common word) is tested by its subquery.
const PEOPLE_LISTED: usize = 2_000;

/// The test of a `game_players` id column for the people `name` answers to
/// ([`answering_sql`](crate::people::names::answering_sql)), looked up
/// first so that the index reads each one's rows: `= ?` for one, `IN (…)`
/// for a few, the subquery itself for many.
fn people_test(conn: Read<'_>, name: &str) -> Result<(String, Vec<Param<'static>>)> {
    let ids = crate::people::names::answering_ids(conn, name)?;
    // No NULL in a list: the test is also negated (a game between two of
    // the people once), where `x IN (NULL, …)` would be NULL, not false.
    Ok(match ids.len() {
        0 => ("IN (NULL)".to_string(), Vec::new()),
        1 => ("= ?".to_string(), vec![Param::Int(ids[0])]),
        n if n <= PEOPLE_LISTED => (
            format!("IN (?{})", ",?".repeat(n - 1)),
            ids.into_iter().map(Param::Int).collect(),
        ),
        _ => {
            let (sql, values) = people_named(name);
            (format!("IN ({sql})"), values)
        }
    })
}

/// The rows a game list pages through: the tables (`FROM`), the filter's
/// condition and parameters, and the (date, id) columns the list is
/// ordered by.
struct Rows {
    from: String,
    cond: String,
    params: Vec<Param<'static>>,
    by: (&'static str, &'static str),
}

impl Rows {
    /// A player's games, read from `game_players`, whose key orders them
    /// by date: the page is a range of that index, not a sort of every
    /// game of the player. Its rows say the colour and the opponent, so
    /// the rest of the filter leaves them out. `player` is the test of
    /// `game_players.player_id` and its parameters.
    fn of_player(
        conn: Read<'_>,
        filter: &GameFilter,
        (test, mut p): (String, Vec<Param<'static>>),
    ) -> Result<Rows> {
        // One person (the usual case) is an equality, which reads the
        // index in date order.
        let mut c = format!("g.id = gp.game_id AND gp.player_id {test}");
        match filter.color {
            Some(color) => {
                c.push_str(" AND gp.color = ?");
                p.push(Param::Int(color.index() as i64));
            }
            // A game against oneself, or between two of the people the
            // name answers to, once, not once per colour.
            None => {
                c.push_str(&format!(
                    " AND NOT (gp.color = 1 AND (gp.opponent_id = gp.player_id \
                     OR gp.opponent_id {test}))"
                ));
                let again = p.clone();
                p.extend(again);
            }
        }
        if let Some(o) = &filter.opponent {
            let (test, others) = people_test(conn, o)?;
            c.push_str(&format!(" AND gp.opponent_id {test}"));
            p.extend(others);
        }
        let (rest, values) = filter_sql(
            conn.backend(),
            &GameFilter {
                player: None,
                opponent: None,
                color: None,
                ..filter.clone()
            },
        );
        p.extend(values);
        Ok(Rows {
            from: format!("game_players gp CROSS JOIN {SUMMARY_FROM}"),
            cond: format!("{c} AND {rest}"),
            params: p,
            by: ("gp.date", "gp.game_id"),
        })
    }
}

/// One page of [`list_games`]; with a player filter, `player` is the test
/// of `game_players.player_id` (`= ?`, `IN (…)`, `= (subquery)`) and its
/// parameters (the people the name names).
fn list_page(
    conn: Read<'_>,
    filter: &GameFilter,
    page: &Page,
    player: Option<(String, Vec<Param<'static>>)>,
) -> Result<GameList> {
    let Rows {
        from,
        mut cond,
        mut params,
        by,
    } = match player {
        Some(player) => Rows::of_player(conn, filter, player)?,
        None => {
            let (cond, params) = filter_sql(conn.backend(), filter);
            Rows {
                from: SUMMARY_FROM.to_string(),
                cond,
                params,
                by: ("g.date", "g.id"),
            }
        }
    };
    let limit = page.limit.clamp(1, MAX_PAGE);
    // The page before a cursor is read in the other order, then reversed.
    let backwards = page.after.is_none() && page.before.is_some();
    let ascending = (page.order == Order::Ascending) != backwards;
    let (cmp, dir) = if ascending {
        (">", "ASC")
    } else {
        ("<", "DESC")
    };
    let (date, id) = by;
    if let Some(c) = page.after.as_ref().or(page.before.as_ref()) {
        cond.push_str(&format!(" AND ({date}, {id}) {cmp} (?, ?)"));
        params.push(text(c.date.clone()));
        params.push(Param::Int(c.id.sql()));
    }
    let sql = format!(
        "SELECT {SUMMARY_COLUMNS} FROM {from} WHERE {cond} \
         ORDER BY {date} {dir}, {id} {dir} LIMIT {}",
        limit + 1
    );
    let mut games = conn.query(&sql, &params, summary_of)?;
    let more = games.len() > limit;
    games.truncate(limit);
    let (next, prev) = if backwards {
        games.reverse();
        // The cursor's own game follows this page.
        (
            games.last().map(cursor_of),
            games.first().filter(|_| more).map(cursor_of),
        )
    } else {
        (
            games.last().filter(|_| more).map(cursor_of),
            games
                .first()
                .filter(|_| page.after.is_some())
                .map(cursor_of),
        )
    };
    Ok(GameList { games, next, prev })
}

/// The ids as parameters of an `IN (…)` list.
fn id_params(ids: &[GameId]) -> Vec<Param<'static>> {
    ids.iter().map(|id| Param::Int(id.sql())).collect()
}

/// `found` (keyed by id) in the order of `ids`, those not found skipped.
fn in_order<T>(ids: &[GameId], mut found: std::collections::HashMap<GameId, T>) -> Vec<T> {
    ids.iter().filter_map(|id| found.remove(id)).collect()
}

/// Summaries of the games with these ids, in the order of `ids`; ids not in
/// the archive are skipped. A few statements, whatever the number of ids.
pub fn summaries(conn: Read<'_>, ids: &[GameId]) -> Result<Vec<GameSummary>> {
    let found = conn.query_in(
        &[],
        &id_params(ids),
        |m| format!("SELECT {SUMMARY_COLUMNS} FROM {SUMMARY_FROM} WHERE g.id IN ({m})"),
        summary_of,
    )?;
    Ok(in_order(
        ids,
        found.into_iter().map(|g| (g.id, g)).collect(),
    ))
}

/// The games of `ids` that pass `filter` ([`filter_sql`]: people by
/// person key and aliases), in the order of `ids`.
pub fn kept(conn: Read<'_>, filter: &GameFilter, ids: &[GameId]) -> Result<Vec<GameId>> {
    let (cond, params) = filter_sql(conn.backend(), filter);
    // The filter's parameters come first in the statement's text.
    let found = conn.query_in(
        &params,
        &id_params(ids),
        |m| format!("SELECT g.id FROM games g WHERE {cond} AND g.id IN ({m})"),
        |r| Ok(GameId::from_sql(r.get(0)?)),
    )?;
    Ok(in_order(
        ids,
        found.into_iter().map(|id| (id, id)).collect(),
    ))
}

/// The moves of one game (see `keil_archive::Games::moves`).
pub fn game_moves(conn: Read<'_>, id: GameId) -> Result<Option<GameMoves>> {
    let row = conn.query_opt(
        &format!("SELECT {STORED_MOVES} FROM games WHERE id = ?"),
        params![id.sql()],
        stored_moves,
    )?;
    row.map(|row| row.decode(id)).transpose()
}

/// The moves of the stored games among `ids`, by id: one statement a
/// chunk of ids ([`crate::sql::Conn::query_in`]), whatever their number.
///
/// # Errors
/// Storage errors; [`crate::Error::Corrupt`] when stored moves do not
/// decode.
pub fn games_moves(
    conn: Read<'_>,
    ids: &[GameId],
) -> Result<std::collections::HashMap<GameId, GameMoves>> {
    let rows = conn.query_in(
        &[],
        &id_params(ids),
        |m| format!("SELECT {STORED_MOVES}, id FROM games WHERE id IN ({m})"),
        |r| Ok((GameId::from_sql(r.get(8)?), stored_moves(r)?)),
    )?;
    rows.into_iter()
        .map(|(id, row)| Ok((id, row.decode(id)?)))
        .collect()
}

/// The columns [`stored_moves`] reads, from its first.
pub(super) const STORED_MOVES: &str =
    "kind, size, ruleset, komi, setup, moves, handicap, move_nodes";

/// Reads the columns [`STORED_MOVES`] of a row.
fn stored_moves(r: &Row<'_>) -> Result<StoredMoves> {
    stored_moves_from(r, 0)
}

/// Reads the columns [`STORED_MOVES`] of a row, the first at column
/// `at`.
pub(super) fn stored_moves_from(r: &Row<'_>, at: usize) -> Result<StoredMoves> {
    Ok(StoredMoves {
        kind: r.get(at)?,
        size: r.get(at + 1)?,
        ruleset: r.get(at + 2)?,
        komi: r.get(at + 3)?,
        setup: r.get(at + 4)?,
        blob: r.get(at + 5)?,
        handicap: r.get(at + 6)?,
        nodes: r.get(at + 7)?,
    })
}

/// A stored game as a derived index replays it: its moves (the columns
/// `STORED_MOVES`), id, date as stored (`YYYY-MM-DD`, `''` when
/// unknown) and winner (0 Black, 1 White, `None` for none).
pub type StoredGame = (StoredMoves, i64, String, Option<i64>);

/// Hands `each` the games with ids in `(from, upto]`, in id order, one at
/// a time (the rows are streamed: memory does not grow with the run).
///
/// # Errors
/// Storage errors, and the first error `each` returns.
pub fn stored_between<E: From<Error>>(
    conn: Read<'_>,
    from: i64,
    upto: i64,
    mut each: impl FnMut(StoredGame) -> Result<(), E>,
) -> Result<(), E> {
    let mut relay = Relay::new();
    let out = conn.each(
        &format!(
            "SELECT {STORED_MOVES}, id, date, winner FROM games \
             WHERE id > ?1 AND id <= ?2 ORDER BY id"
        ),
        params![from, upto],
        |r| {
            let game = (
                stored_moves(r)?,
                r.get::<i64>(8)?,
                r.get::<String>(9)?,
                r.get::<Option<i64>>(10)?,
            );
            Ok(relay.go(each(game).map(|()| true)))
        },
    );
    relay.finish(out)
}

/// The record identities (`games.hash`) of the first stored game and of
/// the last one with id at most `upto`, in that order (none when no game
/// is stored up to `upto`): what a node-local snapshot of a derived index
/// checks to know that it was written from this archive.
pub fn edge_hashes(conn: Read<'_>, upto: i64) -> Result<Vec<Vec<u8>>> {
    conn.query(
        "SELECT hash FROM (SELECT hash FROM games WHERE id <= ?1 ORDER BY id LIMIT 1) AS first \
         UNION ALL \
         SELECT hash FROM (SELECT hash FROM games WHERE id <= ?1 ORDER BY id DESC LIMIT 1) AS last",
        params![upto],
        |r| r.get(0),
    )
}

/// Game `id`'s stored record (zstd-compressed bytes); `None` when no game
/// has this id.
pub fn record(conn: Read<'_>, id: GameId) -> Result<Option<Vec<u8>>> {
    conn.query_opt(
        "SELECT record FROM games WHERE id = ?",
        params![id.sql()],
        |r| r.get(0),
    )
}

/// The name of the upload token whose upload stored game `id`; `None` for
/// a local import or an unknown game.
pub fn uploader(conn: Read<'_>, id: GameId) -> Result<Option<String>> {
    let name: Option<Option<String>> = conn.query_opt(
        "SELECT i.uploader FROM games g JOIN imports i ON i.id = g.import_id WHERE g.id = ?",
        params![id.sql()],
        |r| r.get(0),
    )?;
    Ok(name.flatten())
}

/// The number of games that pass `filter`, counted over the games.
pub fn count(conn: Read<'_>, filter: &GameFilter) -> Result<u64> {
    let (cond, params) = filter_sql(conn.backend(), filter);
    let n: i64 = conn.value(
        &format!("SELECT COUNT(*) FROM games g WHERE {cond}"),
        &params,
    )?;
    Ok(n as u64)
}

/// Every count the import keeps (schema/0006_counts.sql: triggers add and
/// take away as rows are inserted and deleted), in one small query.
pub fn counts(conn: Read<'_>) -> Result<Counts> {
    let rows = conn.query("SELECT name, n FROM counts", params![], |r| {
        Ok((r.get::<String>(0)?, r.get::<i64>(1)?.max(0) as u64))
    })?;
    Ok(rows.into_iter().collect())
}

/// Hands `each` every game that passes `filter`, oldest first (by the
/// first day of its date, then id), with its decompressed record, streamed
/// (memory stays that of one game). `each` returns false to stop. Returns
/// the number of games handed to `each`.
///
/// # Errors
/// Storage errors; [`crate::Error::Corrupt`] for a record that does not
/// decompress; the first error of `each`.
pub fn export<E: From<Error>>(
    conn: Read<'_>,
    filter: &GameFilter,
    each: &mut dyn FnMut(&GameSummary, &str) -> Result<bool, E>,
) -> Result<u64, E> {
    let (cond, params) = filter_sql(conn.backend(), filter);
    let sql = format!(
        "SELECT {SUMMARY_COLUMNS}, g.record FROM {SUMMARY_FROM} WHERE {cond} \
         ORDER BY g.date, g.id"
    );
    let mut n = 0;
    let mut relay = Relay::new();
    let out = conn.each(&sql, &params, |row| {
        let (summary, record) = with_record(row)?;
        n += 1;
        Ok(relay.go(each(&summary, &record)))
    });
    relay.finish(out)?;
    Ok(n)
}

/// Hands `each` the games `ids` with their decompressed records, in that
/// order (ids not stored are skipped); `each` returns false to stop.
/// Returns the number of games handed to `each`.
///
/// # Errors
/// As [`export`].
pub fn export_ids<E: From<Error>>(
    conn: Read<'_>,
    ids: &[GameId],
    each: &mut dyn FnMut(&GameSummary, &str) -> Result<bool, E>,
) -> Result<u64, E> {
    let sql = format!("SELECT {SUMMARY_COLUMNS}, g.record FROM {SUMMARY_FROM} WHERE g.id = ?");
    let mut n = 0;
    for &id in ids {
        let Some((summary, record)) = conn.query_opt(&sql, params![id.sql()], with_record)? else {
            continue;
        };
        n += 1;
        if !each(&summary, &record)? {
            break;
        }
    }
    Ok(n)
}

/// A row of `SUMMARY_COLUMNS` and the record: the summary and the
/// decompressed record.
fn with_record(row: &Row<'_>) -> Result<(GameSummary, String)> {
    let summary = summary_of(row)?;
    let blob: Vec<u8> = row.get(SUMMARY_WIDTH)?;
    let record = crate::records::decompress(summary.id, &blob)?;
    Ok((summary, record))
}

/// Hands `each` the stored records (zstd-compressed bytes) of the games
/// with ids in `(after, upto]`, in id order, streamed.
///
/// # Errors
/// Storage errors, and the first error `each` returns.
pub fn records_between<E: From<Error>>(
    conn: Read<'_>,
    after: i64,
    upto: i64,
    mut each: impl FnMut(GameId, &[u8]) -> Result<(), E>,
) -> Result<(), E> {
    let mut relay = Relay::new();
    let out = conn.each(
        "SELECT id, record FROM games WHERE id > ? AND id <= ? ORDER BY id",
        params![after, upto],
        |row| {
            let blob: Vec<u8> = row.get(1)?;
            let id = GameId::from_sql(row.get(0)?);
            Ok(relay.go(each(id, &blob).map(|()| true)))
        },
    );
    relay.finish(out)
}

/// [`game_facts`]' statement: on SQLite it reads the covering index
/// `games_facts` (schema/0012_games_facts.sql), not the games' rows.
pub(super) const GAME_FACTS: &str = "SELECT id, date, winner, black_id, white_id, komi, handicap, \
    black_rank_ord, white_rank_ord, event, result, black_rank, white_rank, date_raw, \
    collection_id FROM games WHERE id > ?1 AND id <= ?2";

/// The columns of one game that the facts table keeps (`games`), as stored.
#[derive(Debug)]
pub struct FactColumns {
    /// `games.id`.
    pub id: i64,
    /// `YYYY-MM-DD` or empty.
    pub date: String,
    /// 0 Black, 1 White; `None` for nobody.
    pub winner: Option<i64>,
    /// Black's spelling id (`players.id`).
    pub black: Option<i64>,
    /// White's spelling id (`players.id`).
    pub white: Option<i64>,
    /// Komi in half-points.
    pub komi: i64,
    /// Go `HA` (0 for none and for Keil and Kaomi).
    pub handicap: i64,
    /// Black's rank ordinal ([`rank`]).
    pub black_rank_ord: Option<i64>,
    /// White's rank ordinal, as `black_rank_ord`.
    pub white_rank_ord: Option<i64>,
    /// Black's rank as written (`BR`).
    pub black_rank: Option<String>,
    /// White's rank as written (`WR`).
    pub white_rank: Option<String>,
    /// The event (`EV`) as written.
    pub event: Option<String>,
    /// The result (`RE`) as written.
    pub result: Option<String>,
    /// The date (`DT`) as written.
    pub date_raw: Option<String>,
    /// The collection (`collections.id`; `None` for a game stored before
    /// collections and not yet labelled).
    pub collection: Option<i64>,
}

/// The [`FactColumns`] of every game with an id in `from + 1..=max`, in no
/// particular order; its players' names are left out (the facts keep each
/// spelling's once, read by
/// [`spelling_names`](crate::people::spelling_names): a join here cost a
/// million games' load about a second).
///
/// # Errors
/// Storage errors.
pub fn game_facts(conn: Read<'_>, from: i64, max: i64) -> Result<Vec<FactColumns>> {
    conn.query(GAME_FACTS, params![from, max], |r| {
        Ok(FactColumns {
            id: r.get(0)?,
            date: r.get(1)?,
            winner: r.get(2)?,
            black: r.get(3)?,
            white: r.get(4)?,
            komi: r.get(5)?,
            handicap: r.get(6)?,
            black_rank_ord: r.get(7)?,
            white_rank_ord: r.get(8)?,
            event: r.get(9)?,
            result: r.get(10)?,
            black_rank: r.get(11)?,
            white_rank: r.get(12)?,
            date_raw: r.get(13)?,
            collection: r.get(14)?,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_width_counts_its_columns() {
        assert_eq!(SUMMARY_COLUMNS.split(',').count(), SUMMARY_WIDTH);
    }

    /// The game facts come from their covering index, not the rows.
    #[test]
    fn the_game_facts_read_their_covering_index() {
        let dir = tempfile::tempdir().unwrap();
        let place = crate::handles::Place::Sqlite(dir.path().join("keil.sqlite"));
        let pool = crate::handles::ReadPool::open(&place, false).unwrap();
        let writer = crate::handles::Writer::open(&pool).unwrap();
        let plan: Vec<String> = writer
            .read()
            .query(
                &format!("EXPLAIN QUERY PLAN {GAME_FACTS}"),
                params![0i64, 100i64],
                |r| r.get(3),
            )
            .unwrap();
        assert!(
            plan.iter()
                .any(|d| d.contains("USING COVERING INDEX games_facts")),
            "{plan:?}"
        );
    }
}
