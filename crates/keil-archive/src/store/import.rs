//! An import's rows: the import log (`imports`), refusals
//! (`import_problems`), new games with their rows per person
//! (`game_players`), other sources' records of a stored game
//! (`game_sources`) and the game counts of spellings, people and events.
//! The import (`import/write.rs`) decides what each game is; these
//! functions write it, inside the batch's transaction.

use std::collections::HashMap;

use super::sql::{IN_CHUNK, Param, ToParam};
use super::{Read, Write, params};
use crate::people::Spelling;
use crate::prepare::{Prepared, Problem};
use crate::{ImportProgress, Result};

/// Logs a new import run started at `at` (RFC 3339) from `sources` (one
/// name per line), by `uploader` (an upload token's name; `None` for a
/// local import). Returns its id.
pub(crate) fn start_import(
    w: Write<'_>,
    at: &str,
    sources: &str,
    uploader: Option<&str>,
) -> Result<i64> {
    w.value(
        "INSERT INTO imports (started_at, sources, uploader) VALUES (?, ?, ?) RETURNING id",
        params![at, sources, uploader],
    )
}

/// Records that import `id` finished at `at` with these counts.
pub(crate) fn finish_import(
    w: Write<'_>,
    id: i64,
    at: &str,
    counts: &ImportProgress,
) -> Result<()> {
    w.execute(
        "UPDATE imports SET finished_at = ?, games_read = ?, imported = ?, duplicates = ?, \
         invalid = ?, merged = ? WHERE id = ?",
        params![
            at,
            counts.games_read as i64,
            counts.imported as i64,
            counts.duplicates as i64,
            counts.invalid as i64,
            counts.merged as i64,
            id
        ],
    )?;
    Ok(())
}

/// Adds one batch's counts to import `id`'s: games read, imported,
/// duplicates, invalid and merged, in that order (the log stays true for
/// the batches committed when an import is killed).
pub(crate) fn count_batch(w: Write<'_>, id: i64, counts: [u64; 5]) -> Result<()> {
    let [read, imported, duplicates, invalid, merged] = counts.map(|n| n as i64);
    w.execute(
        "UPDATE imports SET games_read = games_read + ?, imported = imported + ?, \
         duplicates = duplicates + ?, invalid = invalid + ?, merged = merged + ? WHERE id = ?",
        params![read, imported, duplicates, invalid, merged, id],
    )?;
    Ok(())
}

/// Logs a refused game of import `import_id` without its record
/// ([`super::refused::insert`] writes the row).
pub(crate) fn insert_problem(w: Write<'_>, import_id: i64, p: &Problem) -> Result<()> {
    super::refused::insert(w, import_id, p, None).map(drop)
}

/// Runs `sql_of(marks)` (a statement reading `(key, id)` rows for the
/// keys of its `IN (marks)`) over `keys` ([`super::sql::Conn::query_in`]),
/// collecting the rows into `into`; a key read twice keeps its lowest id.
fn lookup(
    r: Read<'_>,
    keys: &[&[u8]],
    sql_of: impl Fn(&str) -> String,
    into: &mut HashMap<Vec<u8>, i64>,
) -> Result<()> {
    let keys: Vec<Param<'_>> = keys.iter().map(|k| k.param()).collect();
    for (key, id) in r.query_in(&[], &keys, sql_of, |row| {
        Ok((row.get::<Vec<u8>>(0)?, row.get::<i64>(1)?))
    })? {
        let slot = into.entry(key).or_insert(id);
        *slot = (*slot).min(id);
    }
    Ok(())
}

/// The games records with these content hashes are stored as, by hash:
/// as the game's own record, or as another source's record of it (the
/// game's own wins).
pub(crate) fn stored_as(r: Read<'_>, hashes: &[&[u8]]) -> Result<HashMap<Vec<u8>, i64>> {
    let mut sources = HashMap::new();
    lookup(
        r,
        hashes,
        |m| format!("SELECT hash, game_id FROM game_sources WHERE hash IN ({m})"),
        &mut sources,
    )?;
    let mut own = HashMap::new();
    lookup(
        r,
        hashes,
        |m| format!("SELECT hash, id FROM games WHERE hash IN ({m})"),
        &mut own,
    )?;
    sources.extend(own);
    Ok(sources)
}

/// The stored games with these Dyer signatures, by signature (the lowest
/// id of each).
pub(crate) fn with_signatures(r: Read<'_>, signatures: &[&[u8]]) -> Result<HashMap<Vec<u8>, i64>> {
    let mut out = HashMap::new();
    lookup(
        r,
        signatures,
        |m| format!("SELECT signature, id FROM games WHERE signature IN ({m})"),
        &mut out,
    )?;
    Ok(out)
}

/// Keeps `p`'s record as another source's record of stored game `game`.
pub(crate) fn link_source(
    w: Write<'_>,
    game: i64,
    p: &Prepared,
    import_id: i64,
    source: &str,
    index: usize,
) -> Result<()> {
    w.execute(
        "INSERT INTO game_sources (game_id, hash, import_id, source, game_index, record) \
         VALUES (?,?,?,?,?,?)",
        params![game, &p.hash[..], import_id, source, index as i64, p.record],
    )?;
    Ok(())
}

/// A new game as the import stores it.
pub(crate) struct NewGame<'a> {
    /// Its id (above every stored and removed game's).
    pub id: i64,
    /// The import that stores it.
    pub import_id: i64,
    /// Black's and White's spellings, as resolved.
    pub black: Option<Spelling>,
    pub white: Option<Spelling>,
    /// The prepared game.
    pub prepared: &'a Prepared,
    /// Its Dyer signature, when it has one.
    pub signature: Option<&'a [u8]>,
}

/// An optional integer parameter.
fn int(v: Option<i64>) -> Param<'static> {
    v.map_or(Param::Null, Param::Int)
}

/// The columns of a `games` row, as [`insert_games`] writes them.
const GAME_COLUMNS: &[&str] = &[
    "id",
    "hash",
    "import_id",
    "black_id",
    "white_id",
    "black_rank",
    "white_rank",
    "date_raw",
    "date",
    "event",
    "round",
    "place",
    "game_name",
    "result",
    "winner",
    "margin",
    "status",
    "kind",
    "size",
    "ruleset",
    "komi",
    "plies",
    "setup",
    "moves",
    "record",
    "handicap",
    "move_nodes",
    "black_rank_ord",
    "white_rank_ord",
    "signature",
];

/// Stores a batch's new games: their `games` rows, then one
/// `game_players` row per colour with a player (a game against oneself is
/// neither won nor lost), in two bulk inserts ([`super::sql::Conn::insert_rows`]:
/// one `COPY` each on PostgreSQL). The hashes are new (the import checked
/// them inside the write lock). The spellings', people's and events'
/// counts follow with [`add_game_counts`].
pub(crate) fn insert_games(w: Write<'_>, games: &[NewGame<'_>]) -> Result<()> {
    let mut rows = Vec::with_capacity(games.len());
    let mut sides = Vec::with_capacity(games.len() * 2);
    for g in games {
        let (p, id) = (g.prepared, g.id);
        let m = &p.meta;
        rows.push(vec![
            Param::Int(id),
            p.hash[..].param(),
            Param::Int(g.import_id),
            int(g.black.map(|s| s.id)),
            int(g.white.map(|s| s.id)),
            m.black_rank.param(),
            m.white_rank.param(),
            m.date_raw.param(),
            m.date.param(),
            m.event.param(),
            m.round.param(),
            m.place.param(),
            m.game_name.param(),
            m.result.param(),
            int(m.winner.map(|c| c.index() as i64)),
            int(m.margin.map(|h| i64::from(h.0))),
            Param::Text(p.status.code().into()),
            Param::Text(m.kind.code().into()),
            Param::Int(i64::from(m.size)),
            m.ruleset.param(),
            Param::Int(i64::from(m.komi.0)),
            Param::Int(i64::from(p.plies)),
            p.setup.param(),
            p.moves.param(),
            p.record.param(),
            Param::Int(i64::from(m.handicap)),
            p.move_nodes.param(),
            int(m.black_rank_ord.map(|r| i64::from(r.ordinal()))),
            int(m.white_rank_ord.map(|r| i64::from(r.ordinal()))),
            g.signature.param(),
        ]);
        let self_play = matches!((g.black, g.white), (Some(b), Some(w)) if b.person == w.person);
        for (color, me, other) in [(0i64, g.black, g.white), (1, g.white, g.black)] {
            if let Some(me) = me {
                let won = m
                    .winner
                    .filter(|_| !self_play)
                    .map(|w| i64::from(w.index() as i64 == color));
                sides.push(vec![
                    Param::Int(me.person),
                    m.date.param(),
                    Param::Int(id),
                    Param::Int(color),
                    int(other.map(|o| o.person)),
                    int(won),
                ]);
            }
        }
    }
    w.insert_rows("games", GAME_COLUMNS, &rows)?;
    w.insert_rows(
        "game_players",
        &[
            "player_id",
            "date",
            "game_id",
            "color",
            "opponent_id",
            "won",
        ],
        &sides,
    )?;
    Ok(())
}

/// Adds `n` to the `games` column of `table`'s row `id` for each `(id, n)`
/// of `added`, a few hundred rows a statement (`UPDATE … FROM (VALUES …)`,
/// which both backends read; VALUES' columns are `column1`, `column2` on
/// both).
fn add_games(w: Write<'_>, table: &str, added: &HashMap<i64, i64>) -> Result<()> {
    let pairs: Vec<(i64, i64)> = added.iter().map(|(&id, &n)| (id, n)).collect();
    for chunk in pairs.chunks(IN_CHUNK) {
        let values = vec!["(CAST(? AS BIGINT), CAST(? AS BIGINT))"; chunk.len()].join(", ");
        let params: Vec<Param<'_>> = chunk
            .iter()
            .flat_map(|&(id, n)| [Param::Int(id), Param::Int(n)])
            .collect();
        w.execute(
            &format!(
                "UPDATE {table} SET games = games + v.column2 FROM (VALUES {values}) AS v \
                 WHERE {table}.id = v.column1"
            ),
            &params,
        )?;
    }
    Ok(())
}

/// Adds a batch's games to the game counts of spellings (`players.id` →
/// games), people (`people.id` → games) and events (name → games; a new
/// event is added to the events' vocabulary).
pub(crate) fn add_game_counts(
    w: Write<'_>,
    spellings: &HashMap<i64, i64>,
    people: &HashMap<i64, i64>,
    events: &HashMap<&str, i64>,
) -> Result<()> {
    add_games(w, "players", spellings)?;
    add_games(w, "people", people)?;
    for (name, n) in events {
        w.execute(
            "INSERT INTO events (name, folded, games) VALUES (?1, ?2, ?3) \
             ON CONFLICT(name) DO UPDATE SET games = events.games + ?3",
            params![name, crate::fold(name), n],
        )?;
    }
    Ok(())
}
