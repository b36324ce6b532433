//! An import's rows: the import log (`imports`), refusals
//! (`import_problems`), new games with their rows per person
//! (`game_players`), other sources' records of a stored game
//! (`game_sources`) and the game counts of spellings, people and events.
//! The import (`import/write.rs`) decides what each game is; these
//! functions write it, inside the batch's transaction.

use std::collections::HashMap;

use crate::error::Result;
use crate::kind::GameKind;
use crate::model::people::Spelling;
use crate::model::refused::Problem;
use crate::model::{GameStatus, StoredMoves};
use crate::progress::ImportProgress;
use crate::sql::params;
use crate::sql::{IN_CHUNK, Param, ToParam};
use crate::sql::{Read, Write};
use keil_rules::{Color, HalfPoints};

/// Logs a new import run started at `at` (RFC 3339) from `sources` (one
/// name per line), by `uploader` (an upload token's name; `None` for a
/// local import). Returns its id.
pub fn start_import(w: Write<'_>, at: &str, sources: &str, uploader: Option<&str>) -> Result<i64> {
    w.value(
        "INSERT INTO imports (started_at, sources, uploader) VALUES (?, ?, ?) RETURNING id",
        params![at, sources, uploader],
    )
}

/// Records that import `id` finished at `at` with these counts.
pub fn finish_import(w: Write<'_>, id: i64, at: &str, counts: &ImportProgress) -> Result<()> {
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

/// What one batch adds to its import's counts (the `imports` row).
pub struct BatchCounts {
    /// Game trees read.
    pub read: u64,
    /// Games stored.
    pub imported: u64,
    /// Records merged into a stored game (exact duplicates and the other kinds of merge).
    pub duplicates: u64,
    /// Games refused.
    pub invalid: u64,
    /// Records kept as another source's record of a stored game.
    pub merged: u64,
}

/// Adds one batch's counts to import `id`'s row, in the batch's
/// transaction (the log stays true for the batches committed when an
/// import is killed).
pub fn count_batch(w: Write<'_>, id: i64, counts: &BatchCounts) -> Result<()> {
    let n = |v: u64| v as i64;
    w.execute(
        "UPDATE imports SET games_read = games_read + ?, imported = imported + ?, \
         duplicates = duplicates + ?, invalid = invalid + ?, merged = merged + ? WHERE id = ?",
        params![
            n(counts.read),
            n(counts.imported),
            n(counts.duplicates),
            n(counts.invalid),
            n(counts.merged),
            id
        ],
    )?;
    Ok(())
}

/// Logs a refused game of import `import_id` without its record
/// ([`super::refused::insert`] writes the row).
pub fn insert_problem(w: Write<'_>, import_id: i64, p: &Problem) -> Result<()> {
    super::refused::insert(w, import_id, p, None).map(drop)
}

/// Runs `sql_of(marks)` (a statement reading `(key, id)` rows for the
/// keys of its `IN (marks)`) over `keys` ([`crate::sql::Conn::query_in`]),
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
pub fn stored_as(r: Read<'_>, hashes: &[&[u8]]) -> Result<HashMap<Vec<u8>, i64>> {
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

/// The stored games with these signatures, by signature: every game of
/// each, in id order (a signature only proposes candidates, and real
/// collections share some: replays of one game).
pub fn with_signatures(r: Read<'_>, signatures: &[&[u8]]) -> Result<HashMap<Vec<u8>, Vec<i64>>> {
    let keys: Vec<Param<'_>> = signatures.iter().map(|k| k.param()).collect();
    let mut out: HashMap<Vec<u8>, Vec<i64>> = HashMap::new();
    for (sig, id) in r.query_in(
        &[],
        &keys,
        |m| format!("SELECT signature, id FROM games WHERE signature IN ({m})"),
        |row| Ok((row.get::<Vec<u8>>(0)?, row.get::<i64>(1)?)),
    )? {
        out.entry(sig).or_default().push(id);
    }
    for ids in out.values_mut() {
        ids.sort_unstable();
        ids.dedup();
    }
    Ok(out)
}

/// What the merge rule reads of one stored game ([`candidates`]).
pub struct CandidateRow {
    /// `games.id`.
    pub id: i64,
    /// `games.kind`: the game's name.
    pub kind: String,
    /// `games.size`: the board's size (side in points).
    pub size: u8,
    /// `games.setup`: the start in the kind's notation, when set up.
    pub setup: Option<String>,
    /// `games.moves`: the main line's move blob ([`crate::moves`]).
    pub moves: Vec<u8>,
    /// `games.date_raw`: the `DT` property as written.
    pub date_raw: Option<String>,
    /// Black's person key (`people.key`: after the aliases).
    pub black: Option<String>,
    /// White's person key, as `black`.
    pub white: Option<String>,
}

/// The stored games among `ids` as the merge rule reads them, in no
/// particular order (those not stored are left out).
pub fn candidates(r: Read<'_>, ids: &[i64]) -> Result<Vec<CandidateRow>> {
    let ids: Vec<Param<'_>> = ids.iter().map(|&id| Param::Int(id)).collect();
    r.query_in(
        &[],
        &ids,
        |m| {
            format!(
                "SELECT g.id, g.kind, g.size, g.setup, g.moves, g.date_raw, pb.key, pw.key \
                   FROM games g \
                   LEFT JOIN players sb ON sb.id = g.black_id \
                   LEFT JOIN people pb ON pb.id = sb.person \
                   LEFT JOIN players sw ON sw.id = g.white_id \
                   LEFT JOIN people pw ON pw.id = sw.person \
                  WHERE g.id IN ({m})"
            )
        },
        |row| {
            Ok(CandidateRow {
                id: row.get(0)?,
                kind: row.get(1)?,
                size: u8::try_from(row.get::<i64>(2)?).unwrap_or(0),
                setup: row.get(3)?,
                moves: row.get(4)?,
                date_raw: row.get(5)?,
                black: row.get(6)?,
                white: row.get(7)?,
            })
        },
    )
}

/// How a record is linked to its game ([`link_source`]): the merge kind's
/// code (`game_sources.merge_kind`), the symmetry that maps its points
/// onto the game's, and the 1-based plies where its moves differ.
pub struct Link<'a> {
    /// The merge kind's code (`game_sources.merge_kind`).
    pub kind: &'a str,
    /// The symmetry (0–7) that maps the record's points onto the game's.
    pub transform: u8,
    /// The 1-based plies where the record's moves differ from the game's.
    pub differs: &'a [u32],
}

/// The plies where moves differ as `game_sources.differs` holds them:
/// comma-separated, NULL for none.
fn differs_text(differs: &[u32]) -> Option<String> {
    (!differs.is_empty()).then(|| {
        differs
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",")
    })
}

/// Keeps `p`'s record as another source's record of stored game `game`,
/// as `link` proved it.
pub fn link_source(
    w: Write<'_>,
    game: i64,
    p: &GameRow,
    import_id: i64,
    source: &str,
    index: usize,
    link: &Link<'_>,
) -> Result<()> {
    w.execute(
        "INSERT INTO game_sources (game_id, hash, import_id, source, game_index, record, \
         merge_kind, transform, differs) VALUES (?,?,?,?,?,?,?,?,?)",
        params![
            game,
            &p.hash[..],
            import_id,
            source,
            index as i64,
            p.record,
            link.kind,
            i64::from(link.transform),
            differs_text(link.differs)
        ],
    )?;
    Ok(())
}

/// Links two games that are not one game but resemble each other
/// (`game_links`, kind `kind`: `similar`); `transform` maps the points of
/// the game with the higher id onto the other's. A pair already linked is
/// left as it is.
pub fn link_games(w: Write<'_>, a: i64, b: i64, kind: &str, transform: u8) -> Result<()> {
    let (low, high) = (a.min(b), a.max(b));
    w.execute(
        "INSERT INTO game_links (game_id, other_id, kind, transform) VALUES (?,?,?,?) \
         ON CONFLICT DO NOTHING",
        params![low, high, kind, i64::from(transform)],
    )?;
    Ok(())
}

/// Makes stored game `from`'s records records of game `into`, before
/// `from` is removed because `into` is the longer record of one game: its
/// own record becomes a `prefix` source of `into` (its points mapped by
/// `transform`), its other sources follow with their transforms composed
/// by `compose(theirs)`, and its links become `into`'s.
pub fn absorb(
    w: Write<'_>,
    from: i64,
    into: i64,
    transform: u8,
    compose: impl Fn(u8) -> u8,
) -> Result<()> {
    w.execute(
        "INSERT INTO game_sources (game_id, hash, import_id, source, game_index, record, \
         merge_kind, transform, differs) \
         SELECT CAST(? AS BIGINT), hash, import_id, COALESCE(source, ''), \
                COALESCE(game_index, 0), record, 'prefix', CAST(? AS BIGINT), NULL \
           FROM games WHERE id = ?",
        params![into, i64::from(transform), from],
    )?;
    let sources: Vec<(i64, i64)> = w.read().query(
        "SELECT id, transform FROM game_sources WHERE game_id = ?",
        params![from],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    for (id, t) in sources {
        let t = compose(u8::try_from(t).unwrap_or(0));
        w.execute(
            "UPDATE game_sources SET game_id = ?, transform = ? WHERE id = ?",
            params![into, i64::from(t), id],
        )?;
    }
    let links: Vec<(i64, String, i64)> = w.read().query(
        "SELECT CASE WHEN game_id = ?1 THEN other_id ELSE game_id END, kind, transform \
           FROM game_links WHERE game_id = ?1 OR other_id = ?1",
        params![from],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    for (other, kind, t) in links {
        if other != into {
            link_games(w, other, into, &kind, u8::try_from(t).unwrap_or(0))?;
        }
    }
    Ok(())
}

/// A new game as the import stores it.
pub struct NewGame<'a> {
    /// Its id (above every stored and removed game's).
    pub id: i64,
    /// The import that stores it.
    pub import_id: i64,
    /// Black's spelling, as resolved.
    pub black: Option<Spelling>,
    /// White's spelling, as `black`.
    pub white: Option<Spelling>,
    /// The game's row.
    pub row: &'a GameRow,
    /// Its signature ([`crate::moves::signature`]), when it has one.
    pub signature: Option<&'a [u8]>,
    /// Where its record came from: the file or archive member.
    pub source: &'a str,
    /// The index of its game tree in `source` (0-based).
    pub index: usize,
    /// Its collection (`collections.id`: [`crate::collections::collection_id`]).
    pub collection: i64,
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
    "source",
    "game_index",
    "collection_id",
];

/// Stores a batch's new games: their `games` rows, then one
/// `game_players` row per colour with a player (a game against oneself is
/// neither won nor lost), in two bulk inserts ([`crate::sql::Conn::insert_rows`]:
/// one `COPY` each on PostgreSQL). The hashes are new (the import checked
/// them inside the write lock). The spellings', people's and events'
/// counts follow with [`add_game_counts`].
pub fn insert_games(w: Write<'_>, games: &[NewGame<'_>]) -> Result<()> {
    let mut rows = Vec::with_capacity(games.len());
    let mut sides = Vec::with_capacity(games.len() * 2);
    for g in games {
        let (p, id) = (g.row, g.id);
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
            Param::Text(g.source.into()),
            Param::Int(g.index as i64),
            Param::Int(g.collection),
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
/// event is added to the events' vocabulary); the people are then shown by
/// the spelling most of their records use
/// ([`refresh`](crate::people::names::refresh)).
pub fn add_game_counts(
    w: Write<'_>,
    spellings: &HashMap<i64, i64>,
    people: &HashMap<i64, i64>,
    events: &HashMap<&str, i64>,
) -> Result<()> {
    add_games(w, "players", spellings)?;
    add_games(w, "people", people)?;
    let mut touched: Vec<i64> = people.keys().copied().collect();
    touched.sort_unstable();
    crate::people::names::refresh(w, &touched)?;
    for (name, n) in events {
        w.execute(
            "INSERT INTO events (name, folded, games) VALUES (?1, ?2, ?3) \
             ON CONFLICT(name) DO UPDATE SET games = events.games + ?3",
            params![name, crate::fold::fold(name), n],
        )?;
    }
    Ok(())
}

/// Whether the upgrade `name` (`upgrades`, schema 14) waits to be carried
/// out.
pub fn upgrade_pending(r: Read<'_>, name: &str) -> Result<bool> {
    Ok(r.query_opt(
        "SELECT 1 FROM upgrades WHERE name = ? AND done_at IS NULL",
        params![name],
        |row| row.get::<i64>(0),
    )?
    .is_some())
}

/// Records that the upgrade `name` was carried out at `at` (RFC 3339).
pub fn finish_upgrade(w: Write<'_>, name: &str, at: &str) -> Result<()> {
    w.execute(
        "UPDATE upgrades SET done_at = ? WHERE name = ?",
        params![at, name],
    )?;
    Ok(())
}

/// A game's moves as its signature reads them: id, kind, size, plies,
/// moves blob.
pub type SignatureRow = (i64, String, u8, i64, Vec<u8>);

/// The games with ids above `after`, in id order, at most `limit`, as
/// [`SignatureRow`]s.
pub fn games_after(r: Read<'_>, after: i64, limit: usize) -> Result<Vec<SignatureRow>> {
    r.query(
        "SELECT id, kind, size, plies, moves FROM games WHERE id > ? ORDER BY id LIMIT ?",
        params![after, limit as i64],
        |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                u8::try_from(row.get::<i64>(2)?).unwrap_or(0),
                row.get(3)?,
                row.get(4)?,
            ))
        },
    )
}

/// Sets game `id`'s signature.
pub fn set_signature(w: Write<'_>, id: i64, signature: Option<&[u8]>) -> Result<()> {
    w.execute(
        "UPDATE games SET signature = ? WHERE id = ?",
        params![signature, id],
    )?;
    Ok(())
}

/// A record merged before schema 14 (`game_sources.merge_kind` NULL).
pub struct UncheckedSource {
    /// `game_sources.id`.
    pub id: i64,
    /// The game it was merged into (`games.id`).
    pub game_id: i64,
    /// The import that read it (`None` for an import since removed).
    pub import_id: Option<i64>,
    /// The file or archive member it was read from.
    pub source: String,
    /// The index of its game tree there (0-based).
    pub game_index: i64,
    /// The normalised record, compressed (as `games.record`).
    pub record: Vec<u8>,
}

/// The records merged before schema 14 with ids above `after`, in id
/// order, at most `limit`.
pub fn unchecked_sources(r: Read<'_>, after: i64, limit: usize) -> Result<Vec<UncheckedSource>> {
    r.query(
        "SELECT id, game_id, import_id, source, game_index, record FROM game_sources \
         WHERE merge_kind IS NULL AND id > ? ORDER BY id LIMIT ?",
        params![after, limit as i64],
        |row| {
            Ok(UncheckedSource {
                id: row.get(0)?,
                game_id: row.get(1)?,
                import_id: row.get(2)?,
                source: row.get(3)?,
                game_index: row.get(4)?,
                record: row.get(5)?,
            })
        },
    )
}

/// Records how another source's record `id` is its game, as the merge
/// rule proved it.
pub fn set_merge(w: Write<'_>, id: i64, link: &Link<'_>) -> Result<()> {
    w.execute(
        "UPDATE game_sources SET merge_kind = ?, transform = ?, differs = ? WHERE id = ?",
        params![
            link.kind,
            i64::from(link.transform),
            differs_text(link.differs),
            id
        ],
    )?;
    Ok(())
}

/// Deletes another source's record `id` (it is about to be stored again,
/// in the same transaction) and takes it out of its import's counts: one
/// game read and merged fewer (the store adds it back as it decides).
///
/// # Errors
/// [`crate::Error::Busy`] when the record is gone (another process, opening
/// the same archive at the same time, stored it again first); storage
/// errors.
pub fn unlink_source(w: Write<'_>, id: i64, import_id: Option<i64>) -> Result<()> {
    if w.execute("DELETE FROM game_sources WHERE id = ?", params![id])? == 0 {
        return Err(crate::error::Error::Busy);
    }
    if let Some(import) = import_id {
        w.execute(
            "UPDATE imports SET games_read = games_read - 1, merged = merged - 1 WHERE id = ?",
            params![import],
        )?;
    }
    Ok(())
}

/// The metadata columns of one game.
#[derive(Clone, Debug)]
pub struct Meta {
    /// Black's name as written (`PB`).
    pub black: Option<String>,
    /// White's name as written (`PW`).
    pub white: Option<String>,
    /// Black's rank as written (`BR`).
    pub black_rank: Option<String>,
    /// White's rank as written (`WR`).
    pub white_rank: Option<String>,
    /// The ranks read (go-rules.md, "Metadata").
    pub black_rank_ord: Option<keil_record::Rank>,
    /// White's rank read, as `black_rank_ord`.
    pub white_rank_ord: Option<keil_record::Rank>,
    /// The date as written (`DT`).
    pub date_raw: Option<String>,
    /// `YYYY-MM-DD` or empty.
    pub date: String,
    /// The event (`EV`).
    pub event: Option<String>,
    /// The round (`RO`).
    pub round: Option<String>,
    /// The place (`PC`).
    pub place: Option<String>,
    /// The game's name (`GN`).
    pub game_name: Option<String>,
    /// The result as written (`RE`).
    pub result: Option<String>,
    /// The winner read from the result (`None`: no winner, a draw, or unknown).
    pub winner: Option<Color>,
    /// The margin read from the result, in half-points (`None` for a resignation, time, or none written).
    pub margin: Option<HalfPoints>,
    /// The game (`GM`).
    pub kind: GameKind,
    /// The board's size (side in points).
    pub size: u8,
    /// The ruleset's name as the kind writes it (`RU`).
    pub ruleset: String,
    /// Komi in half-points (`KM`).
    pub komi: HalfPoints,
    /// Go `HA` (0 for Keil).
    pub handicap: u32,
}

impl Meta {
    /// The event the events' vocabulary and counts take: `EV` when written
    /// and not empty.
    pub fn event_name(&self) -> Option<&str> {
        self.event.as_deref().filter(|e| !e.is_empty())
    }
}

/// A valid game's row as the import writes it (`games`; its players,
/// import and signature apart, in [`NewGame`]).
pub struct GameRow {
    /// The normalised record's hash (the exact-duplicate key).
    pub hash: [u8; 16],
    /// The metadata columns.
    pub meta: Meta,
    /// The replay's verdict (valid, finished, scored, ...).
    pub status: GameStatus,
    /// The main line's length in plies.
    pub plies: u32,
    /// The start in the kind's notation, when set up.
    pub setup: Option<String>,
    /// The main line (`moves::encode`).
    pub moves: Vec<u8>,
    /// Each move's SGF node (`moves::encode_nodes`); `None` when move i is
    /// at node i + 1.
    pub move_nodes: Option<Vec<u8>>,
    /// The record, zstd-compressed.
    pub record: Vec<u8>,
}

impl GameRow {
    /// What the import stores of this game's main line, as a read would
    /// give it back.
    pub fn stored_moves(&self) -> StoredMoves {
        StoredMoves {
            kind: self.meta.kind.code().to_string(),
            size: self.meta.size,
            ruleset: self.meta.ruleset.clone(),
            komi: self.meta.komi.0,
            setup: self.setup.clone(),
            blob: self.moves.clone(),
            handicap: self.meta.handicap,
            nodes: self.move_nodes.clone(),
        }
    }
}
