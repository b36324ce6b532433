//! An import's rows: the import log (`imports`), refusals
//! (`import_problems`), new games with their rows per person
//! (`game_players`), other sources' records of a stored game
//! (`game_sources`) and the game counts of spellings, people and events.
//! The import (`import/write.rs`) decides what each game is; these
//! functions write it, inside the batch's transaction.

use std::collections::HashMap;

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

/// Logs a refused game of import `import_id`.
pub(crate) fn insert_problem(w: Write<'_>, import_id: i64, p: &Problem) -> Result<()> {
    w.execute(
        "INSERT INTO import_problems (import_id, source, game_index, reason, message, ply, \
         line, col) VALUES (?,?,?,?,?,?,?,?)",
        params![
            import_id,
            p.source,
            p.index as i64,
            p.reason,
            p.message,
            p.ply,
            p.line,
            p.column
        ],
    )?;
    Ok(())
}

/// The game a record with content hash `hash` is stored as: as the game's
/// own record, or as another source's record of it.
pub(crate) fn stored_as(r: Read<'_>, hash: &[u8]) -> Result<Option<i64>> {
    let own = r.query_opt("SELECT id FROM games WHERE hash = ?", params![hash], |r| {
        r.get(0)
    })?;
    if own.is_some() {
        return Ok(own);
    }
    r.query_opt(
        "SELECT game_id FROM game_sources WHERE hash = ?",
        params![hash],
        |r| r.get(0),
    )
}

/// A stored game with this Dyer signature, if any.
pub(crate) fn game_with_signature(r: Read<'_>, signature: &[u8]) -> Result<Option<i64>> {
    r.query_opt(
        "SELECT id FROM games WHERE signature = ? LIMIT 1",
        params![signature],
        |r| r.get(0),
    )
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

/// Stores a new game: its `games` row and one `game_players` row per
/// colour with a player (a game against oneself is neither won nor lost).
/// The spellings', people's and events' counts follow with
/// [`add_game_counts`].
pub(crate) fn insert_game(w: Write<'_>, g: &NewGame<'_>) -> Result<()> {
    let (p, id) = (g.prepared, g.id);
    let m = &p.meta;
    w.execute(
        "INSERT INTO games (id, hash, import_id, black_id, white_id, black_rank, white_rank, \
         date_raw, date, event, round, place, game_name, result, winner, margin, status, \
         kind, size, ruleset, komi, plies, setup, moves, record, handicap, move_nodes, \
         black_rank_ord, white_rank_ord, signature) \
         VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(hash) DO NOTHING",
        params![
        id,
        &p.hash[..],
        g.import_id,
        g.black.map(|s| s.id),
        g.white.map(|s| s.id),
        m.black_rank,
        m.white_rank,
        m.date_raw,
        m.date,
        m.event,
        m.round,
        m.place,
        m.game_name,
        m.result,
        m.winner.map(|c| c.index() as i64),
        m.margin.map(|h| i64::from(h.0)),
        p.status.code(),
        m.kind.code(),
        i64::from(m.size),
        m.ruleset,
        i64::from(m.komi.0),
        i64::from(p.plies),
        p.setup,
        p.moves,
        p.record,
        i64::from(m.handicap),
        p.move_nodes,
        m.black_rank_ord.map(|r| i64::from(r.ordinal())),
        m.white_rank_ord.map(|r| i64::from(r.ordinal())),
            g.signature,
        ],
    )?;
    let self_play = matches!((g.black, g.white), (Some(b), Some(w)) if b.person == w.person);
    for (color, me, other) in [(0i64, g.black, g.white), (1, g.white, g.black)] {
        if let Some(me) = me {
            let won = m
                .winner
                .filter(|_| !self_play)
                .map(|w| i64::from(w.index() as i64 == color));
            w.execute(
                "INSERT INTO game_players (player_id, date, game_id, color, opponent_id, won) \
                 VALUES (?,?,?,?,?,?)",
                params![me.person, m.date, id, color, other.map(|o| o.person), won],
            )?;
        }
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
    for (spelling, n) in spellings {
        w.execute(
            "UPDATE players SET games = games + ? WHERE id = ?",
            params![n, spelling],
        )?;
    }
    for (person, n) in people {
        w.execute(
            "UPDATE people SET games = games + ? WHERE id = ?",
            params![n, person],
        )?;
    }
    for (name, n) in events {
        w.execute(
            "INSERT INTO events (name, folded, games) VALUES (?1, ?2, ?3) \
             ON CONFLICT(name) DO UPDATE SET games = events.games + ?3",
            params![name, crate::fold(name), n],
        )?;
    }
    Ok(())
}
