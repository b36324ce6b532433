//! People and their spellings: `players` (a name as written,
//! folded, with its words in `player_words`), `people` (one identity per
//! person, by person key), `player_aliases` (the operator's aliases) and
//! `game_players` (a person's games, one row per colour, keyed by date):
//! what the import resolves names to, what an alias merges, and the reads
//! of player search and profiles. [`names`]: the name a person is shown
//! by and the people a name answers to; [`suggest`]: pairs of people an
//! operator may want to make one.

pub mod names;
pub mod suggest;

use crate::error::Result;
use crate::fold::{fold, person_key};
use crate::ids::PlayerId;
use crate::model::CollectionCount;
use crate::model::people::{AliasReport, NameSpelling, Spelling};
use crate::model::people::{
    ColorRecord, MatchKind, Opponent, PROFILE_OPPONENTS, PlayerHit, PlayerProfile, YearRecord,
};
use crate::sql::Param;
use crate::sql::params;
use crate::sql::{Read, Write};

/// The id of the person that the person key `?` resolves to, after the
/// aliases (no row when none): an SQL subquery. Its one parameter, an
/// anonymous `?` (so that it mixes with a filter's other `?`), is
/// [`person_key`]`(name)`.
pub const PERSON_OF: &str = "SELECT p.id FROM (SELECT CAST(? AS TEXT) AS k) x JOIN people p \
     ON p.key = COALESCE((SELECT a.target FROM player_aliases a WHERE a.key = x.k), x.k)";

/// The key a person key resolves to: its alias's target, or itself.
fn resolved(conn: Read<'_>, key: &str) -> Result<String> {
    let target: Option<String> = conn.query_opt(
        "SELECT target FROM player_aliases WHERE key = ?1",
        params![key],
        |r| r.get(0),
    )?;
    Ok(target.unwrap_or_else(|| key.to_string()))
}

/// The person key that `name` resolves to after the aliases: what
/// `people.key` holds for the person the name would be (the merge rule
/// compares players by it).
pub fn resolved_key_of(conn: Read<'_>, name: &str) -> Result<String> {
    resolved(conn, &person_key(name))
}

/// The person a resolved key names, if any.
fn person_with_key(conn: Read<'_>, key: &str) -> Result<Option<i64>> {
    conn.query_opt("SELECT id FROM people WHERE key = ?1", params![key], |r| {
        r.get(0)
    })
}

/// The spelling `name` as stored, with its person; `None` when no game
/// wrote it yet.
pub fn spelling(conn: Read<'_>, name: &str) -> Result<Option<Spelling>> {
    conn.query_opt(
        "SELECT id, person FROM players WHERE name = ?",
        params![name],
        |r| {
            Ok(Spelling {
                id: r.get(0)?,
                person: r.get(1)?,
            })
        },
    )
}

/// The stored spellings among `names`, by name (a few hundred names a
/// statement).
pub fn spellings_named(
    conn: Read<'_>,
    names: &[&str],
) -> Result<std::collections::HashMap<String, Spelling>> {
    let names: Vec<Param<'_>> = names.iter().map(|n| Param::Text((*n).into())).collect();
    let found = conn.query_in(
        &[],
        &names,
        |m| format!("SELECT name, id, person FROM players WHERE name IN ({m})"),
        |r| {
            Ok((
                r.get::<String>(0)?,
                Spelling {
                    id: r.get(1)?,
                    person: r.get(2)?,
                },
            ))
        },
    )?;
    Ok(found.into_iter().collect())
}

/// Stores the new spelling `name` with its words, and its person when the
/// name's key (after the aliases) names nobody yet.
pub fn add_spelling(tx: Write<'_>, name: &str) -> Result<Spelling> {
    // The key after the aliases and its person, in one statement.
    let (key, person): (String, Option<i64>) = tx.query_one(
        "SELECT k, (SELECT id FROM people WHERE key = x.k) FROM \
         (SELECT COALESCE((SELECT target FROM player_aliases WHERE key = ?1), ?1) AS k) x",
        params![person_key(name)],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let person = match person {
        Some(p) => p,
        None => tx.value(
            "INSERT INTO people (name, key) VALUES (?, ?) RETURNING id",
            params![name, key],
        )?,
    };
    let folded = fold(name);
    let id: i64 = tx.value(
        "INSERT INTO players (name, folded, person) VALUES (?, ?, ?) RETURNING id",
        params![name, folded, person],
    )?;
    // Each word, and the words run together ("kejie" finds "Ke Jie"), in
    // one statement.
    let joined = folded.replace(' ', "");
    let mut words: Vec<&str> = folded
        .split(' ')
        .chain([joined.as_str()])
        .filter(|w| !w.is_empty())
        .collect();
    words.sort_unstable();
    words.dedup();
    if !words.is_empty() {
        let values = vec!["(?, CAST(? AS BIGINT))"; words.len()].join(", ");
        let params: Vec<Param<'_>> = words
            .iter()
            .flat_map(|w| [Param::Text((*w).into()), Param::Int(id)])
            .collect();
        tx.execute(
            &format!(
                "INSERT INTO player_words (word, player_id) VALUES {values} ON CONFLICT DO NOTHING"
            ),
            &params,
        )?;
    }
    Ok(Spelling { id, person })
}

/// Makes the person key `alias_key` resolve to `name_key`'s target (see
/// `keil_archive::Archive::add_alias`). When only the alias's person
/// exists, `name` becomes their name shown, as an operator's
/// ([`names::set_name`]); two people merged are shown by the spelling most
/// of their records use ([`names::refresh`]) unless an operator named
/// either.
pub fn alias(tx: Write<'_>, alias_key: &str, name_key: &str, name: &str) -> Result<AliasReport> {
    let read = tx.read();
    let alias_key = alias_key.to_string();
    let from = resolved(read, &alias_key)?;
    let to = resolved(read, name_key)?;
    let from_person = person_with_key(read, &from)?;
    let to_person = person_with_key(read, &to)?;
    let mut report = AliasReport {
        alias_key: alias_key.clone(),
        target_key: to.clone(),
        person: to_person.or(from_person).map(PlayerId::from_sql),
        merged: false,
        unchanged: from == to,
    };
    if from == to {
        return Ok(report);
    }
    // Every key that resolved to `from` resolves to `to` (no chains).
    tx.execute(
        "UPDATE player_aliases SET target = ?2 WHERE target = ?1",
        params![from, to],
    )?;
    for key in [&from, &alias_key] {
        if *key != to {
            tx.execute(
                "INSERT INTO player_aliases (key, target) VALUES (?1, ?2) \
                 ON CONFLICT (key) DO UPDATE SET target = excluded.target",
                params![key, to],
            )?;
        }
    }
    match (from_person, to_person) {
        (Some(a), None) => {
            tx.execute(
                "UPDATE people SET key = ?2, name = ?3, name_set = 1 WHERE id = ?1",
                params![a, to, name],
            )?;
        }
        (Some(a), Some(b)) => {
            merge(tx, a, b)?;
            report.merged = true;
        }
        (None, _) => {}
    }
    Ok(report)
}

/// Merges person `a` into person `b`: spellings, game rows, results
/// against each other (now against oneself), the game count, and the name
/// shown (an operator's name for `b`, else for `a`, else the spelling most
/// of their records use).
fn merge(tx: Write<'_>, a: i64, b: i64) -> Result<()> {
    for sql in [
        "UPDATE players SET person = ?2 WHERE person = ?1",
        "UPDATE game_players SET opponent_id = ?2 WHERE opponent_id = ?1",
        "UPDATE game_players SET player_id = ?2 WHERE player_id = ?1",
    ] {
        tx.execute(sql, params![a, b])?;
    }
    tx.execute(
        "UPDATE game_players SET won = NULL WHERE player_id = ?1 AND opponent_id = ?1",
        params![b],
    )?;
    tx.execute(
        "UPDATE people SET games = (SELECT COUNT(DISTINCT game_id) FROM game_players \
         WHERE player_id = ?1) WHERE id = ?1",
        params![b],
    )?;
    // `b` takes `a`'s operator's name when it has none of its own.
    tx.execute(
        "UPDATE people SET name = (SELECT name FROM people WHERE id = ?1), name_set = 1 \
         WHERE id = ?2 AND name_set = 0 AND EXISTS (SELECT 1 FROM people WHERE id = ?1 AND name_set = 1)",
        params![a, b],
    )?;
    tx.execute("DELETE FROM people WHERE id = ?1", params![a])?;
    names::refresh(tx, &[b])?;
    Ok(())
}

/// The spellings of a person, most games first (then by name).
pub fn spellings(conn: Read<'_>, person: PlayerId) -> Result<Vec<NameSpelling>> {
    conn.query(
        "SELECT name, games FROM players WHERE person = ? ORDER BY games DESC, name",
        params![person.sql()],
        |r| {
            Ok(NameSpelling {
                name: r.get(0)?,
                games: r.get::<i64>(1)?.max(0) as u64,
            })
        },
    )
}

/// Wins and losses counted over `game_players.won` (1 won, 0 lost), as two
/// SQL expressions.
const WINS_LOSSES: &str = "COALESCE(SUM(CASE WHEN won = 1 THEN 1 ELSE 0 END), 0), \
     COALESCE(SUM(CASE WHEN won = 0 THEN 1 ELSE 0 END), 0)";

/// A player's profile (see `keil_archive::Players::profile`).
pub fn profile(conn: Read<'_>, player: PlayerId) -> Result<Option<PlayerProfile>> {
    let id = player.sql();
    let Some((name, games, name_set)) = conn.query_opt(
        "SELECT name, games, name_set FROM people WHERE id = ?",
        params![id],
        |r| Ok((r.get::<String>(0)?, r.get::<i64>(1)?, r.get::<i64>(2)?)),
    )?
    else {
        return Ok(None);
    };
    let mut by_color = [ColorRecord::default(); 2];
    let rows = conn.query(
        &format!(
            "SELECT color, COUNT(*), {WINS_LOSSES} \
             FROM game_players WHERE player_id = ? GROUP BY color"
        ),
        params![id],
        |r| {
            Ok((
                r.get::<i64>(0)?,
                r.get::<i64>(1)?,
                r.get::<i64>(2)?,
                r.get::<i64>(3)?,
            ))
        },
    )?;
    for (color, n, w, l) in rows {
        if let Some(slot) = by_color.get_mut(color as usize) {
            *slot = ColorRecord {
                games: n as u64,
                wins: w as u64,
                losses: l as u64,
            };
        }
    }
    let (first_date, last_date): (Option<String>, Option<String>) = conn.query_one(
        "SELECT MIN(date), MAX(date) FROM game_players WHERE player_id = ? AND date <> ''",
        params![id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let self_play: i64 = conn.value(
        "SELECT COUNT(*) FROM game_players WHERE player_id = ?1 AND opponent_id = ?1 AND color = 0",
        params![id],
    )?;
    let opponents = conn.query(
        &format!(
            "SELECT gp.opponent_id, p.name, COUNT(*) AS n, {} \
             FROM game_players gp JOIN people p ON p.id = gp.opponent_id \
             WHERE gp.player_id = ?1 AND gp.opponent_id <> ?1 GROUP BY gp.opponent_id, p.name \
             ORDER BY n DESC, p.name LIMIT ?2",
            WINS_LOSSES.replace("won", "gp.won")
        ),
        params![id, PROFILE_OPPONENTS as i64],
        |r| {
            Ok(Opponent {
                id: PlayerId::from_sql(r.get(0)?),
                name: r.get(1)?,
                games: r.get::<i64>(2)? as u64,
                wins: r.get::<i64>(3)? as u64,
                losses: r.get::<i64>(4)? as u64,
            })
        },
    )?;
    // Read from the games' covering index (`games_facts` holds the id and
    // the collection), not their rows.
    let collections = conn.query(
        "SELECT c.name, COUNT(DISTINCT g.id) AS n FROM game_players gp \
         JOIN games g ON g.id = gp.game_id JOIN collections c ON c.id = g.collection_id \
         WHERE gp.player_id = ? GROUP BY c.name ORDER BY n DESC, c.name",
        params![id],
        |r| {
            Ok(CollectionCount {
                name: r.get(0)?,
                games: r.get::<i64>(1)?.max(0) as u64,
            })
        },
    )?;
    Ok(Some(PlayerProfile {
        id: player,
        name,
        name_set: name_set != 0,
        games: games as u64,
        self_play: self_play as u64,
        spellings: spellings(conn, player)?,
        as_black: by_color[0],
        as_white: by_color[1],
        first_date,
        last_date,
        opponents,
        collections,
    }))
}

/// The person whose key (after the aliases) is `key`, if they have games:
/// `(id, name shown, games)`.
pub fn person_by_key(conn: Read<'_>, key: &str) -> Result<Option<(i64, String, i64)>> {
    conn.query_opt(
        &format!("SELECT id, name, games FROM people WHERE games > 0 AND id = ({PERSON_OF})"),
        params![key],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
}

/// The people with games one of whose spellings, or a word of one, starts
/// with the folded `prefix`: `(id, name shown, folded spelling, games)`.
pub fn people_by_prefix(conn: Read<'_>, prefix: &str) -> Result<Vec<(i64, String, String, i64)>> {
    // Folded names are ASCII: '\x7f' sorts after every continuation (in
    // byte order: PostgreSQL's text columns are `COLLATE "C"`).
    let upper = format!("{prefix}\x7f");
    conn.query(
        "SELECT q.id, q.name, s.folded, q.games FROM players s JOIN people q ON q.id = s.person \
         WHERE s.folded >= ?1 AND s.folded < ?2 AND q.games > 0 \
         UNION SELECT q.id, q.name, s.folded, q.games FROM player_words w \
         JOIN players s ON s.id = w.player_id JOIN people q ON q.id = s.person \
         WHERE w.word >= ?1 AND w.word < ?2 AND q.games > 0",
        params![prefix, upper],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )
}

/// The person of spelling `spelling` (`players.id`), if they have games:
/// `(id, name shown, games)`; `None` too for a spelling newer than this
/// read's snapshot.
pub fn person_of_spelling(conn: Read<'_>, spelling: i64) -> Result<Option<(i64, String, i64)>> {
    conn.query_opt(
        "SELECT q.id, q.name, q.games FROM players s JOIN people q ON q.id = s.person \
         WHERE s.id = ?1 AND q.games > 0",
        params![spelling],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
}

/// The spellings stored after spelling id `after`, `(id, folded name)`
/// in id order.
pub fn spellings_after(conn: Read<'_>, after: i64) -> Result<Vec<(i64, String)>> {
    conn.query(
        "SELECT id, folded FROM players WHERE id > ?1 ORDER BY id",
        params![after],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// A person's games, wins and losses per year (see
/// `keil_archive::Players::results_by_year`).
pub fn results_by_year(conn: Read<'_>, id: PlayerId) -> Result<Vec<YearRecord>> {
    conn.query(
        &format!(
            "SELECT substr(date, 1, 4) AS y, COUNT(DISTINCT game_id), {WINS_LOSSES} \
             FROM game_players WHERE player_id = ? \
             GROUP BY substr(date, 1, 4) ORDER BY substr(date, 1, 4) = '', substr(date, 1, 4)"
        ),
        params![id.sql()],
        |r| {
            Ok(YearRecord {
                year: r.get::<String>(0)?.parse().ok(),
                games: r.get::<i64>(1)? as u64,
                wins: r.get::<i64>(2)? as u64,
                losses: r.get::<i64>(3)? as u64,
            })
        },
    )
}

/// The person `name` names (see `keil_archive::Players::id_of`): `#N`
/// person N; else the person of this exact spelling, of its person key
/// (after the aliases), or shown by this name (the fewest-numbered of
/// those, should two be).
pub fn id_of(conn: Read<'_>, name: &str) -> Result<Option<PlayerId>> {
    if let Some(n) = names::person_number(name) {
        let id: Option<i64> =
            conn.query_opt("SELECT id FROM people WHERE id = ?", params![n], |r| {
                r.get(0)
            })?;
        return Ok(id.map(PlayerId::from_sql));
    }
    let exact: Option<i64> = conn.query_opt(
        "SELECT person FROM players WHERE name = ?",
        params![name],
        |r| r.get(0),
    )?;
    let id = match exact {
        Some(id) => Some(id),
        None => match conn.query_opt(PERSON_OF, params![person_key(name)], |r| r.get(0))? {
            Some(id) => Some(id),
            None => conn.query_opt(
                "SELECT MIN(id) FROM people WHERE name = ? HAVING COUNT(*) > 0",
                params![name],
                |r| r.get(0),
            )?,
        },
    };
    Ok(id.map(PlayerId::from_sql))
}

/// The people with the most games (see `keil_archive::Players::most_played`).
pub fn most_played(conn: Read<'_>, limit: usize) -> Result<Vec<PlayerHit>> {
    conn.query(
        "SELECT id, name, games FROM people WHERE games > 0 ORDER BY games DESC, name LIMIT ?",
        params![limit as i64],
        |r| {
            Ok(PlayerHit {
                id: PlayerId::from_sql(r.get(0)?),
                name: r.get(1)?,
                games: r.get::<i64>(2)?.max(0) as u64,
                matched: MatchKind::Exact,
                span: Default::default(),
            })
        },
    )
}

/// The names of spellings `ids` (ascending, distinct), `(id, name)`, those
/// not stored left out: one range read when the ids are dense (a node's
/// first load reads every spelling), else by lists.
///
/// # Errors
/// Storage errors.
pub fn spelling_names(conn: Read<'_>, ids: &[u32]) -> Result<Vec<(u32, String)>> {
    let (Some(&lo), Some(&hi)) = (ids.first(), ids.last()) else {
        return Ok(Vec::new());
    };
    let row = |r: &crate::sql::Row<'_>| Ok((r.get::<i64>(0)? as u32, r.get(1)?));
    if u64::from(hi - lo) < 8 * ids.len() as u64 {
        return conn.query(
            "SELECT id, name FROM players WHERE id >= ?1 AND id <= ?2",
            params![i64::from(lo), i64::from(hi)],
            row,
        );
    }
    let keys: Vec<crate::sql::Param<'_>> = ids
        .iter()
        .map(|&id| crate::sql::Param::Int(i64::from(id)))
        .collect();
    conn.query_in(
        &[],
        &keys,
        |m| format!("SELECT id, name FROM players WHERE id IN ({m})"),
        row,
    )
}
