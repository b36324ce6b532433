//! Game queries: one game, lists with filters and keyset pagination,
//! summaries and moves by id.

use chrono::NaiveDate;
use keil_rules::{
    AnyPosition, AnyRuleset, BoardSpec, Color, GoRuleset, HalfPoints, KaomiRuleset, Ruleset, ToMove,
};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row};

use crate::model::{
    Cursor, Game, GameFilter, GameList, GameMoves, GameStatus, GameSummary, Order, Page,
};
use crate::{Archive, Error, GameId, Result, moves, person_key, prepare};

/// Most games one page returns.
pub const MAX_PAGE: usize = 1_000;

/// The columns read into a [`GameSummary`], over `games g` joined with
/// `players pb` (Black) and `players pw` (White).
pub(crate) const SUMMARY_COLUMNS: &str = "g.id, pb.name, pw.name, g.black_rank, g.white_rank, \
     g.date_raw, g.date, g.event, g.round, g.place, g.game_name, g.result, g.winner, g.margin, \
     g.status, g.size, g.ruleset, g.komi, g.plies, g.kind, g.black_rank_ord, g.white_rank_ord";

pub(crate) const SUMMARY_FROM: &str = "games g LEFT JOIN players pb ON pb.id = g.black_id \
     LEFT JOIN players pw ON pw.id = g.white_id";

fn color(i: Option<i64>) -> Option<Color> {
    match i {
        Some(0) => Some(Color::Black),
        Some(1) => Some(Color::White),
        _ => None,
    }
}

fn rank(ordinal: Option<i64>) -> Option<keil_record::Rank> {
    ordinal
        .and_then(|n| u8::try_from(n).ok())
        .and_then(keil_record::Rank::from_ordinal)
}

pub(crate) fn summary_of(row: &Row<'_>) -> rusqlite::Result<GameSummary> {
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
        margin: row.get::<_, Option<i32>>(13)?.map(HalfPoints),
        status: status.parse().map_err(|e: crate::model::GameStatusError| {
            rusqlite::Error::FromSqlConversionFailure(14, rusqlite::types::Type::Text, Box::new(e))
        })?,
        size: row.get(15)?,
        ruleset: row.get(16)?,
        komi: HalfPoints(row.get(17)?),
        plies: row.get(18)?,
        kind: kind.parse().map_err(|e: crate::GameKindError| {
            rusqlite::Error::FromSqlConversionFailure(19, rusqlite::types::Type::Text, Box::new(e))
        })?,
    })
}

/// The filter as an SQL condition over the `games` table aliased `g`
/// (`WHERE` not included; `1` when nothing is filtered), with its
/// parameters in order (positional `?`). Agrees with [`GameFilter::matches`]
/// where a person has the name's key; beyond it, follows the aliases and
/// falls back to word prefixes, as [`GameFilter`] says.
pub(crate) fn filter_sql(filter: &GameFilter) -> (String, Vec<Value>) {
    let mut conds: Vec<String> = Vec::new();
    let mut params: Vec<Value> = Vec::new();
    if filter.player.is_some() || filter.opponent.is_some() || filter.color.is_some() {
        let colors = match filter.color {
            Some(c) => vec![c],
            None => vec![Color::Black, Color::White],
        };
        let mut alts = Vec::new();
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
                parts.push("1".into());
            }
            alts.push(format!("({})", parts.join(" AND ")));
        }
        conds.push(format!("({})", alts.join(" OR ")));
    }
    if let Some(e) = &filter.event {
        // A part of the folded name, found among the distinct events.
        // NOCASE, as `games_event` is: the index serves the set.
        conds.push(
            "g.event COLLATE NOCASE IN (SELECT name FROM events WHERE instr(folded, ?) > 0)".into(),
        );
        params.push(Value::Text(crate::fold(e)));
    }
    if let Some(f) = filter.from {
        conds.push("g.date >= ?".into());
        params.push(Value::Text(f.format("%Y-%m-%d").to_string()));
    }
    if let Some(t) = filter.to {
        conds.push("g.date <> '' AND g.date <= ?".into());
        params.push(Value::Text(t.format("%Y-%m-%d").to_string()));
    }
    if let Some(r) = &filter.result {
        conds.push("g.result = ?".into());
        params.push(Value::Text(r.clone()));
    }
    if let Some(w) = filter.winner {
        conds.push("g.winner = ?".into());
        params.push(Value::Integer(w.index() as i64));
    }
    if let Some(k) = filter.kind {
        conds.push("g.kind = ?".into());
        params.push(Value::Text(k.code().into()));
    }
    if let Some(s) = filter.size {
        conds.push("g.size = ?".into());
        params.push(Value::Integer(i64::from(s)));
    }
    if let Some(r) = filter.ruleset {
        conds.push("g.ruleset = ?".into());
        params.push(Value::Text(r.to_string()));
    }
    if let Some(v) = filter.variant {
        // The stored ruleset is KaomiRuleset's canonical form,
        // `Kaomi; variant=squared; pie=off`.
        conds.push("g.kind = 'kaomi' AND g.ruleset LIKE ?".into());
        params.push(Value::Text(format!("%variant={};%", v.code())));
    }
    if let Some(s) = filter.status {
        conds.push("g.status = ?".into());
        params.push(Value::Text(s.code().into()));
    }
    if let Some(r) = filter.min_rank {
        conds.push("g.black_rank_ord >= ? AND g.white_rank_ord >= ?".into());
        params.extend([
            Value::Integer(r.ordinal().into()),
            Value::Integer(r.ordinal().into()),
        ]);
    }
    if let Some(r) = filter.max_rank {
        conds.push("g.black_rank_ord <= ? AND g.white_rank_ord <= ?".into());
        params.extend([
            Value::Integer(r.ordinal().into()),
            Value::Integer(r.ordinal().into()),
        ]);
    }
    if conds.is_empty() {
        ("1".into(), params)
    } else {
        (conds.join(" AND "), params)
    }
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
/// parameters: the person the name is a spelling (or alias) of; when none
/// is, the people a word of one of whose spellings starts with it.
fn people_named(name: &str) -> (String, Vec<Value>) {
    let person = crate::people::PERSON_OF;
    let key = person_key(name);
    let prefix = crate::fold(name).replace(' ', "");
    (
        format!(
            "{person} UNION SELECT s.person FROM player_words w \
             JOIN players s ON s.id = w.player_id \
             WHERE w.word >= ? AND w.word < ? AND NOT EXISTS ({person})"
        ),
        vec![
            Value::Text(key.clone()),
            Value::Text(prefix.clone()),
            Value::Text(format!("{prefix}\x7f")),
            Value::Text(key),
        ],
    )
}

/// Lists games on `conn` (see [`Games::list`]).
pub(crate) fn list_games(conn: &Connection, filter: &GameFilter, page: &Page) -> Result<GameList> {
    // A player's games are read from `game_players`, whose key orders
    // them by date: the page is a range of that index, not a sort of
    // every game of the player. Its rows say the colour and the opponent,
    // so the rest of the filter leaves them out.
    let (from, mut cond, mut params, by) = match &filter.player {
        Some(n) => {
            // The people first: one person (the usual case) is an
            // equality, which reads the index in date order.
            let people = |name: &str| -> Result<Vec<Value>> {
                let (sql, values) = people_named(name);
                Ok(conn
                    .prepare_cached(&sql)?
                    .query_map(rusqlite::params_from_iter(values), |r| {
                        r.get::<_, i64>(0).map(Value::Integer)
                    })?
                    .collect::<rusqlite::Result<_>>()?)
            };
            let mut p = people(n)?;
            let mut c = match p.len() {
                1 => "g.id = gp.game_id AND gp.player_id = ?".to_string(),
                n => format!(
                    "g.id = gp.game_id AND gp.player_id IN (NULL{})",
                    ",?".repeat(n)
                ),
            };
            match filter.color {
                Some(color) => {
                    c.push_str(" AND gp.color = ?");
                    p.push(Value::Integer(color.index() as i64));
                }
                // A game against oneself once, not once per colour.
                None => c.push_str(" AND NOT (gp.color = 1 AND gp.opponent_id = gp.player_id)"),
            }
            if let Some(o) = &filter.opponent {
                let others = people(o)?;
                c.push_str(&format!(
                    " AND gp.opponent_id IN (NULL{})",
                    ",?".repeat(others.len())
                ));
                p.extend(others);
            }
            let (rest, values) = filter_sql(&GameFilter {
                player: None,
                opponent: None,
                color: None,
                ..filter.clone()
            });
            p.extend(values);
            (
                format!("game_players gp CROSS JOIN {SUMMARY_FROM}"),
                format!("{c} AND {rest}"),
                p,
                ("gp.date", "gp.game_id"),
            )
        }
        None => {
            let (cond, values) = filter_sql(filter);
            (SUMMARY_FROM.to_string(), cond, values, ("g.date", "g.id"))
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
        params.push(Value::Text(c.date.clone()));
        params.push(Value::Integer(c.id.sql()));
    }
    let sql = format!(
        "SELECT {SUMMARY_COLUMNS} FROM {from} WHERE {cond} \
         ORDER BY {date} {dir}, {id} {dir} LIMIT {}",
        limit + 1
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut games = stmt
        .query_map(rusqlite::params_from_iter(params), summary_of)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
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

/// Summaries of the games with these ids, in the order of `ids`; ids not in
/// the archive are skipped.
pub(crate) fn summaries(conn: &Connection, ids: &[GameId]) -> Result<Vec<GameSummary>> {
    let mut out = Vec::with_capacity(ids.len());
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {SUMMARY_COLUMNS} FROM {SUMMARY_FROM} WHERE g.id = ?"
    ))?;
    for &id in ids {
        if let Some(s) = stmt.query_row([id.sql()], summary_of).optional()? {
            out.push(s);
        }
    }
    Ok(out)
}

/// The games of `ids` that pass `filter` ([`filter_sql`]: people by
/// person key and aliases), in the order of `ids`.
pub(crate) fn kept(conn: &Connection, filter: &GameFilter, ids: &[GameId]) -> Result<Vec<GameId>> {
    let (cond, params) = filter_sql(filter);
    let mut stmt = conn.prepare(&format!("SELECT 1 FROM games g WHERE g.id = ? AND {cond}"))?;
    let mut out = Vec::new();
    for &id in ids {
        let mut all = Vec::with_capacity(params.len() + 1);
        all.push(Value::Integer(id.sql()));
        all.extend(params.iter().cloned());
        if stmt.exists(rusqlite::params_from_iter(all))? {
            out.push(id);
        }
    }
    Ok(out)
}

/// What a search page shows beside each hit: the game's date (as stored,
/// `YYYY-MM-DD` or empty), Black's and White's names and the result as
/// written in RE.
pub(crate) struct HitDetails {
    pub date: String,
    pub black: Option<String>,
    pub white: Option<String>,
    pub result: Option<String>,
}

/// The [`HitDetails`] of one game (one indexed row and two player
/// lookups: lighter than a [`GameSummary`]); `None` when the game is gone.
pub(crate) fn hit_details(conn: &Connection, id: GameId) -> Result<Option<HitDetails>> {
    let mut stmt = conn.prepare_cached(
        "SELECT g.date, b.name, w.name, g.result FROM games g
         LEFT JOIN players b ON b.id = g.black_id LEFT JOIN players w ON w.id = g.white_id
         WHERE g.id = ?1",
    )?;
    Ok(stmt
        .query_row([id.sql()], |r| {
            Ok(HitDetails {
                date: r.get(0)?,
                black: r.get(1)?,
                white: r.get(2)?,
                result: r.get(3)?,
            })
        })
        .optional()?)
}

/// The moves of one game (see [`Games::moves`]).
pub(crate) fn game_moves(conn: &Connection, id: GameId) -> Result<Option<GameMoves>> {
    let row = conn
        .prepare_cached(&format!(
            "SELECT {} FROM games WHERE id = ?",
            StoredMoves::COLUMNS
        ))?
        .query_row([id.sql()], StoredMoves::read)
        .optional()?;
    row.map(|row| row.decode(id)).transpose()
}

/// A game's stored main line as read from `games` (the columns
/// [`StoredMoves::COLUMNS`], in that order).
pub(crate) struct StoredMoves {
    kind: String,
    size: u8,
    ruleset: String,
    komi: i32,
    setup: Option<String>,
    blob: Vec<u8>,
    handicap: u32,
    nodes: Option<Vec<u8>>,
}

impl StoredMoves {
    /// The columns [`StoredMoves::read`] reads, from its first.
    pub(crate) const COLUMNS: &'static str =
        "kind, size, ruleset, komi, setup, moves, handicap, move_nodes";

    /// What the import stores of a prepared game, as a read would give it
    /// back.
    pub(crate) fn of_prepared(p: &crate::prepare::Prepared) -> StoredMoves {
        StoredMoves {
            kind: p.meta.kind.code().to_string(),
            size: p.meta.size,
            ruleset: p.meta.ruleset.clone(),
            komi: p.meta.komi.0,
            setup: p.setup.clone(),
            blob: p.moves.clone(),
            handicap: p.meta.handicap,
            nodes: p.move_nodes.clone(),
        }
    }

    /// Reads the columns [`StoredMoves::COLUMNS`] of a row.
    pub(crate) fn read(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredMoves> {
        Ok(StoredMoves {
            kind: r.get(0)?,
            size: r.get(1)?,
            ruleset: r.get(2)?,
            komi: r.get(3)?,
            setup: r.get(4)?,
            blob: r.get(5)?,
            handicap: r.get(6)?,
            nodes: r.get(7)?,
        })
    }

    /// The game's moves, ready to replay.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a value this crate did not write.
    pub(crate) fn decode(self, id: GameId) -> Result<GameMoves> {
        let StoredMoves {
            kind,
            size,
            ruleset,
            komi,
            setup,
            blob,
            handicap,
            nodes,
        } = self;
        let corrupt = |reason: String| Error::Corrupt { game: id, reason };
        let kind: keil_rules::GameKind = kind.parse().map_err(|e| corrupt(format!("kind: {e}")))?;
        let spec = BoardSpec::new(kind, size).map_err(|e| corrupt(format!("board: {e}")))?;
        let board = spec.board().map_err(|e| corrupt(format!("board: {e}")))?;
        let komi = HalfPoints(komi);
        let rules = match kind {
            keil_rules::GameKind::Go => {
                let ruleset: GoRuleset = ruleset
                    .parse()
                    .map_err(|e| corrupt(format!("ruleset: {e}")))?;
                AnyRuleset::Go { ruleset, komi }
            }
            keil_rules::GameKind::Kaomi => {
                let ruleset: KaomiRuleset = ruleset
                    .parse()
                    .map_err(|e| corrupt(format!("ruleset: {e}")))?;
                AnyRuleset::Kaomi { ruleset, komi }
            }
            _ => {
                let mut ruleset: Ruleset = ruleset
                    .parse()
                    .map_err(|e| corrupt(format!("ruleset: {e}")))?;
                ruleset.komi = komi;
                AnyRuleset::Keil(ruleset)
            }
        };
        let go = kind == keil_rules::GameKind::Go;
        let (setup, to_move) = match setup {
            None => (None, ToMove::Color(Color::Black)),
            Some(text) => {
                let parsed = AnyPosition::parse_notation(kind, &text)
                    .map_err(|e| corrupt(format!("setup: {e}")))?;
                if parsed.position.spec() != spec {
                    return Err(corrupt("setup on another board".into()));
                }
                let to_move = match parsed.to_move {
                    Some(c) => ToMove::Color(c),
                    None if go => ToMove::Either,
                    None => ToMove::Color(Color::Black),
                };
                (Some(parsed.position), to_move)
            }
        };
        let (moves, colors) =
            moves::decode(board, &blob).ok_or_else(|| corrupt("moves blob".to_string()))?;
        let nodes = moves::decode_nodes(nodes.as_deref(), moves.len())
            .ok_or_else(|| corrupt("move nodes blob".to_string()))?;
        Ok(GameMoves {
            id,
            board,
            rules,
            setup,
            to_move,
            handicap: if go { handicap } else { 0 },
            moves,
            colors,
            nodes,
        })
    }
}

/// One game's summary and moves on `conn`; `None` when no game has this id.
fn summary_and_moves(conn: &Connection, id: GameId) -> Result<Option<(GameSummary, GameMoves)>> {
    let Some(summary) = summaries(conn, &[id])?.pop() else {
        return Ok(None);
    };
    let moves = game_moves(conn, id)?.ok_or(Error::Corrupt {
        game: id,
        reason: "vanished".into(),
    })?;
    Ok(Some((summary, moves)))
}

/// The game queries of an archive, from [`Archive::games`]. Each call uses
/// one pooled read connection.
pub struct Games<'a> {
    pub(crate) archive: &'a Archive,
}

impl Games<'_> {
    /// One game in full: metadata, moves and the normalised record text;
    /// `None` when no game has this id.
    ///
    /// # Errors
    /// SQLite errors; [`Error::Corrupt`] when the stored moves or record do
    /// not decode.
    pub fn get(&self, id: GameId) -> Result<Option<Game>> {
        let conn = self.archive.reader()?;
        let tx = conn.unchecked_transaction()?;
        let Some((summary, moves)) = summary_and_moves(&tx, id)? else {
            return Ok(None);
        };
        let blob: Vec<u8> =
            tx.query_row("SELECT record FROM games WHERE id = ?", [id.sql()], |r| {
                r.get(0)
            })?;
        let record = prepare::decompress(id, &blob)?;
        tx.finish()?;
        Ok(Some(Game {
            summary,
            moves,
            record,
        }))
    }

    /// The name of the upload token whose upload stored game `id` (its
    /// import's `uploader`); `None` for a local import, an import before
    /// schema 6, or an unknown game.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn uploader(&self, id: GameId) -> Result<Option<String>> {
        let conn = self.archive.reader()?;
        let name: Option<Option<String>> = conn
            .query_row(
                "SELECT i.uploader FROM games g JOIN imports i ON i.id = g.import_id WHERE g.id = ?",
                [id.sql()],
                |r| r.get(0),
            )
            .optional()?;
        Ok(name.flatten())
    }

    /// A page of the games that pass `filter`, sorted by date then id
    /// (keyset pagination: pass the returned `next` as the next page's
    /// `after`).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn list(&self, filter: &GameFilter, page: &Page) -> Result<GameList> {
        let conn = self.archive.reader()?;
        list_games(&conn, filter, page)
    }

    /// Summaries of these game ids, in the given order; missing ids are
    /// skipped.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn summaries(&self, ids: &[GameId]) -> Result<Vec<GameSummary>> {
        self.archive.reader()?.snapshot(|conn| summaries(conn, ids))
    }

    /// The main line of one game with its board, ruleset and setup, for
    /// replay; `None` when no game has this id.
    ///
    /// # Errors
    /// SQLite errors; [`Error::Corrupt`] when the stored moves do not decode.
    pub fn moves(&self, id: GameId) -> Result<Option<GameMoves>> {
        let conn = self.archive.reader()?;
        game_moves(&conn, id)
    }

    /// One game's metadata and main line, without the record text (no
    /// decompression): what a game page shows; `None` when no game has
    /// this id. The two reads need no common snapshot: a stored game never
    /// changes.
    ///
    /// # Errors
    /// SQLite errors; [`Error::Corrupt`] when the stored moves do not decode.
    pub fn summary_and_moves(&self, id: GameId) -> Result<Option<(GameSummary, GameMoves)>> {
        let conn = self.archive.reader()?;
        summary_and_moves(&conn, id)
    }

    /// The number of games that pass `filter`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn count(&self, filter: &GameFilter) -> Result<u64> {
        let conn = self.archive.reader()?;
        // The counts the import keeps answer the filters they cover
        // (nothing, a kind, a kind and size, a status) in one small query.
        let only = |f: GameFilter| *filter == f;
        let counted = if only(GameFilter::default()) {
            Some("games".to_string())
        } else if let (Some(kind), Some(size)) = (filter.kind, filter.size)
            && only(GameFilter {
                kind: Some(kind),
                size: Some(size),
                ..GameFilter::default()
            })
        {
            Some(format!("board {} {size}", kind.code()))
        } else if let Some(status) = filter.status
            && only(GameFilter {
                status: Some(status),
                ..GameFilter::default()
            })
        {
            Some(format!("status {}", status.code()))
        } else {
            None
        };
        if let Some(name) = counted {
            return Ok(crate::counts::Counts::read(&conn)?.get(&name));
        }
        let (cond, params) = filter_sql(filter);
        let n: i64 = conn.query_row(
            &format!("SELECT COUNT(*) FROM games g WHERE {cond}"),
            rusqlite::params_from_iter(params),
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }

    /// Every stored status with its number of games.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn count_by_status(&self) -> Result<Vec<(GameStatus, u64)>> {
        let conn = self.archive.reader()?;
        Ok(crate::counts::Counts::read(&conn)?.by_status())
    }
}
