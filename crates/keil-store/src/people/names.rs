//! The names people are shown by and the names people answer to.
//!
//! A person is shown by `people.name`: the spelling most of their stored
//! records use (ties: the first stored), kept so whenever their games or
//! spellings change ([`refresh`]: imports, removals, aliases), unless an
//! operator set one (`people.name_set`, [`set_name`]).
//!
//! A name answers to every person it is a spelling or alias of, and, when
//! it is one word, to every person one of whose spellings has it as a whole
//! word (`Shusaku`: the account `Shusaku`, and `Honinbo Shusaku`, `Kuwahara
//! Shusaku`): [`answering_sql`]. `#17` names person 17 alone.

use crate::error::Result;
use crate::fold::{fold, person_key};
use crate::ids::PlayerId;
use crate::model::people::{PersonChoice, PersonSpan};
use crate::sql::{Param, Read, Write, params};

/// The spelling of person `people.id` with the most stored games (ties:
/// the first stored): an SQL subquery over the `people` row being updated.
const MOST_WRITTEN: &str = "SELECT s.name FROM players s WHERE s.person = people.id \
     ORDER BY s.games DESC, s.id LIMIT 1";

/// People a statement of [`refresh`] updates at most.
const CHUNK: usize = 500;

/// Shows each of `people` (`people.id`) by the spelling most of their
/// records use, unless an operator set their name: after their games or
/// spellings changed. Indexed reads of their own spellings only.
///
/// # Errors
/// Storage errors.
pub fn refresh(w: Write<'_>, people: &[i64]) -> Result<()> {
    for chunk in people.chunks(CHUNK) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let ids: Vec<Param<'_>> = chunk.iter().map(|&id| Param::Int(id)).collect();
        w.execute(
            &format!(
                "UPDATE people SET name = COALESCE(({MOST_WRITTEN}), name) \
                 WHERE name_set = 0 AND id IN ({marks})"
            ),
            &ids,
        )?;
    }
    Ok(())
}

/// Shows `person` by `name` from now on (`Some`), whatever their records
/// write; or again by the spelling most of them use (`None`). `false` when
/// there is no such person.
///
/// # Errors
/// Storage errors.
pub fn set_name(w: Write<'_>, person: PlayerId, name: Option<&str>) -> Result<bool> {
    let id = person.sql();
    let found: Option<i64> =
        w.read()
            .query_opt("SELECT id FROM people WHERE id = ?", params![id], |r| {
                r.get(0)
            })?;
    if found.is_none() {
        return Ok(false);
    }
    match name {
        Some(name) => {
            w.execute(
                "UPDATE people SET name = ?2, name_set = 1 WHERE id = ?1",
                params![id, name],
            )?;
        }
        None => {
            w.execute("UPDATE people SET name_set = 0 WHERE id = ?1", params![id])?;
            refresh(w, &[id])?;
        }
    }
    Ok(true)
}

/// The person id a name of the form `#17` gives; `None` for any other
/// name.
pub fn person_number(name: &str) -> Option<i64> {
    let digits = name.trim().strip_prefix('#')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The people a name answers to (see the module's documentation), as an SQL
/// query of their ids and its parameters: the person `#N` names; else the
/// person the name is a spelling or alias of (by its person key), and the
/// people with a spelling that has the name (folded, its spaces dropped)
/// as a whole word; when there are none, the people with a spelling one of
/// whose words starts with it (`Honinbo Shu`).
pub fn answering_sql(name: &str) -> (String, Vec<Param<'static>>) {
    if let Some(id) = person_number(name) {
        return (
            "SELECT id FROM people WHERE id = ?".into(),
            vec![Param::Int(id)],
        );
    }
    let person = super::PERSON_OF;
    let key = person_key(name);
    let word = fold(name).replace(' ', "");
    let text = |s: &str| Param::Text(s.to_string().into());
    (
        format!(
            "{person} UNION SELECT s.person FROM player_words w \
             JOIN players s ON s.id = w.player_id WHERE w.word = ? \
             UNION SELECT s.person FROM player_words w \
             JOIN players s ON s.id = w.player_id \
             WHERE w.word >= ? AND w.word < ? AND NOT EXISTS ({person}) \
             AND NOT EXISTS (SELECT 1 FROM player_words x WHERE x.word = ?)"
        ),
        vec![
            text(&key),
            text(&word),
            text(&word),
            text(&format!("{word}\x7f")),
            text(&key),
            text(&word),
        ],
    )
}

/// The ids of the people `name` answers to ([`answering_sql`]), in no
/// particular order.
///
/// # Errors
/// Storage errors.
pub fn answering_ids(conn: Read<'_>, name: &str) -> Result<Vec<i64>> {
    let (sql, values) = answering_sql(name);
    conn.query(&sql, &values, |r| r.get(0))
}

/// The people `name` answers to ([`answering_sql`]) who have games, most
/// games first (then by name), at most `limit`, with when and at what
/// rank they played; and how many there are in all.
///
/// # Errors
/// Storage errors.
pub fn answering(conn: Read<'_>, name: &str, limit: usize) -> Result<(Vec<PersonChoice>, usize)> {
    let (sql, values) = answering_sql(name);
    let people: Vec<(i64, String, i64)> = conn.query(
        &format!(
            "SELECT id, name, games FROM people WHERE games > 0 AND id IN ({sql}) \
             ORDER BY games DESC, name"
        ),
        &values,
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let total = people.len();
    let mut out = Vec::with_capacity(total.min(limit));
    for (id, name, games) in people.into_iter().take(limit) {
        let id = PlayerId::from_sql(id);
        out.push(PersonChoice {
            id,
            name,
            games: games.max(0) as u64,
            span: span(conn, id)?,
        });
    }
    Ok((out, total))
}

/// Games a person's first and last ranks are looked for in, at each end.
const RANK_GAMES: i64 = 20;

/// When and at what rank `person` played: the days of their first and
/// last dated games, and the rank written in the first of their earliest
/// and latest 20 games that write one. A few index reads,
/// whatever the number of games.
///
/// # Errors
/// Storage errors.
pub fn span(conn: Read<'_>, person: PlayerId) -> Result<PersonSpan> {
    let rank = |order: &str| {
        format!(
            "SELECT r FROM (SELECT CASE gp.color WHEN 0 THEN g.black_rank ELSE g.white_rank END AS r, \
             gp.date AS d FROM game_players gp JOIN games g ON g.id = gp.game_id \
             WHERE gp.player_id = ?1 AND gp.date > '' ORDER BY gp.date {order} LIMIT ?2) x \
             WHERE r IS NOT NULL AND r <> '' ORDER BY d {order} LIMIT 1"
        )
    };
    let day = |order: &str| {
        format!(
            "SELECT date FROM game_players WHERE player_id = ?1 AND date > '' \
             ORDER BY date {order} LIMIT 1"
        )
    };
    let (first_date, last_date, first_rank, last_rank): (
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
    ) = conn.query_one(
        &format!(
            "SELECT ({}), ({}), ({}), ({})",
            day("ASC"),
            day("DESC"),
            rank("ASC"),
            rank("DESC")
        ),
        params![person.sql(), RANK_GAMES],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    let mut ranks: Vec<String> = first_rank.into_iter().chain(last_rank).collect();
    ranks.dedup();
    Ok(PersonSpan {
        first_date,
        last_date,
        ranks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_hash_and_digits_name_a_person_by_number() {
        assert_eq!(person_number("#17"), Some(17));
        assert_eq!(person_number(" #17 "), Some(17));
        for name in ["17", "#", "#1a", "# 17", "Shusaku", "#-1"] {
            assert_eq!(person_number(name), None, "{name}");
        }
    }
}
