//! One parameter's value (already bounded: `query.rs`) read into a domain
//! type: ids, plies, colours, days, limits, flags, ranks, kinds and sizes.
//! A refusal is a 400 naming the parameter; a blank value is absent
//! ([`nonempty`]). The OpenAPI patterns of `crate::dto` say the same.

use chrono::NaiveDate;
use keil_archive::GameId;
use keil_rules::Color;

use crate::error::{ApiError, bad, quote};

/// A game id from a path segment or parameter.
///
/// # Errors
/// 400 for anything but a whole number in `1..=2^63-1`, quoting the start
/// of the text.
pub(crate) fn parse_id(s: &str) -> Result<GameId, ApiError> {
    s.parse::<GameId>().map_err(|_| {
        ApiError::BadRequest(format!(
            "id: {} is not a game id: expected a whole number from 1 to {}",
            quote(s),
            i64::MAX
        ))
    })
}

/// A record's number in its game (`GET /api/v1/games/{id}/records/{record}`):
/// 0 for the game's own record, else the id the game's `records` list
/// gives: any integer from 0 to 2^63-1, as the OpenAPI document says.
pub(crate) fn parse_record_number(s: &str) -> Result<i64, ApiError> {
    s.parse::<i64>()
        .ok()
        .filter(|&n| n >= 0)
        .ok_or_else(|| {
            bad(
                "record",
                format!(
                    "{} is not a record number: 0 is the game's own record, the others are listed in the game's `records`",
                    quote(s)
                ),
            )
        })
}

pub(crate) fn parse_color(what: &str, s: &str) -> Result<Color, ApiError> {
    match s.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(bad(what, format!("{s:?} is not B or W"))),
    }
}

/// Which end of a date range a day bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// Games on or after the day.
    From,
    /// Games on or before the day.
    To,
}

/// A day `YYYY-MM-DD` bounding a date range. A day past its month's end
/// (`2023-02-30`, `2023-04-31`) bounds the range as its text sorts among
/// dates: `from` the first of the next month, `to` the month's last day.
///
/// # Errors
/// [`ApiError::BadRequest`] naming `what` when `s` is not four digits, a
/// month 01 to 12 and a day 01 to 31.
pub(crate) fn parse_day(what: &str, s: &str, bound: Bound) -> Result<NaiveDate, ApiError> {
    let refused = || bad(what, format!("{s:?} is not a date YYYY-MM-DD"));
    let (year, month, day) = keil_archive::written_day(s).ok_or_else(refused)?;
    let (year, month, day) = (i32::from(year), u32::from(month), u32::from(day));
    if let Some(d) = NaiveDate::from_ymd_opt(year, month, day) {
        return Ok(d);
    }
    let first_of_next = if month == 12 {
        NaiveDate::from_ymd_opt(year + 1, 1, 1)
    } else {
        NaiveDate::from_ymd_opt(year, month + 1, 1)
    };
    let first_of_next = first_of_next.ok_or_else(refused)?;
    Ok(match bound {
        Bound::From => first_of_next,
        Bound::To => first_of_next.pred_opt().ok_or_else(refused)?,
    })
}

pub(crate) fn parse_limit(
    limit: Option<&str>,
    default: usize,
    max: usize,
) -> Result<usize, ApiError> {
    let Some(text) = limit else {
        return Ok(default);
    };
    match number(text).and_then(|n| usize::try_from(n).ok()) {
        Some(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(bad(
            "limit",
            format!("{text:?} is not a number in 1..={max}"),
        )),
    }
}

/// The parameters `from` and `to` (either may be absent or blank), read
/// by [`parse_day`] as the two ends of a date range.
///
/// # Errors
/// [`ApiError::BadRequest`] naming the parameter that is not a day.
pub(crate) fn day_range(
    from: &Option<String>,
    to: &Option<String>,
) -> Result<(Option<NaiveDate>, Option<NaiveDate>), ApiError> {
    let from = nonempty(from)
        .map(|d| parse_day("from", d, Bound::From))
        .transpose()?;
    let to = nonempty(to)
        .map(|d| parse_day("to", d, Bound::To))
        .transpose()?;
    Ok((from, to))
}

/// A flag: `true`/`1`/`yes` or `false`/`0`/`no`; `default` when absent
/// (blank values are passed as absent).
pub(crate) fn parse_flag(what: &str, v: Option<&str>, default: bool) -> Result<bool, ApiError> {
    match v {
        None => Ok(default),
        Some("false" | "0" | "no") => Ok(false),
        Some("true" | "1" | "yes") => Ok(true),
        Some(other) => Err(bad(what, format!("{other:?} is not true or false"))),
    }
}

/// The `colors` parameter: `same` (false) or `swap` (true); `default`
/// when absent or blank.
pub(crate) fn parse_colors(v: Option<&str>, default: bool) -> Result<bool, ApiError> {
    match v.map(str::trim) {
        None | Some("") => Ok(default),
        Some("same") => Ok(false),
        Some("swap") => Ok(true),
        Some(other) => Err(bad(
            "colors",
            format!("{other:?} is not a colour mode: expected same or swap"),
        )),
    }
}

/// A query or form value, trimmed; `None` when absent or blank.
pub(crate) fn nonempty(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

pub(crate) fn required<'a>(what: &str, v: &'a Option<String>) -> Result<&'a str, ApiError> {
    match v.as_deref().map(str::trim) {
        Some(s) if !s.is_empty() => Ok(s),
        _ => Err(ApiError::BadRequest(format!(
            "the query parameter {what} is required"
        ))),
    }
}

/// A rank parameter in its written form only: `14k`, `3d`, `9p` (case
/// ignored; go-rules.md, "Metadata"), as the OpenAPI pattern says.
pub(crate) fn parse_rank(what: &str, s: &str) -> Result<keil_record::Rank, ApiError> {
    let lower = s.to_ascii_lowercase();
    keil_record::Rank::parse(&lower)
        .filter(|r| r.to_string() == lower)
        .ok_or_else(|| {
            bad(
                what,
                format!("{s:?} is not a rank: expected 30k to 1k, 1d to 9d, or 1p to 9p"),
            )
        })
}

pub(crate) fn parse_kind(s: &str) -> Result<keil_rules::GameKind, ApiError> {
    s.parse().map_err(|e| bad("kind", e))
}

pub(crate) fn parse_size(s: &str) -> Result<u8, ApiError> {
    number(s).and_then(|n| u8::try_from(n).ok()).ok_or_else(|| {
        bad(
            "size",
            format!("{s:?} is not a board side (a number to 255)"),
        )
    })
}

/// A whole number written in ASCII digits only (no sign), as the OpenAPI
/// patterns of the numeric parameters say; `None` past `u64`.
pub(crate) fn number(s: &str) -> Option<u64> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// An id of the archive (an import's, a refused record's) in parameter
/// `what`: ASCII digits, 1 to 2^63-1.
///
/// # Errors
/// [`ApiError::BadRequest`] naming `what` for anything else.
pub(crate) fn numbered_id<T: std::str::FromStr>(what: &str, s: &str) -> Result<T, ApiError> {
    number(s).and_then(|_| s.parse::<T>().ok()).ok_or_else(|| {
        bad(
            what,
            format!(
                "{} is not an id: expected a whole number from 1 to {}",
                quote(s),
                i64::MAX
            ),
        )
    })
}

pub(crate) fn parse_ply(s: &str) -> Result<u32, ApiError> {
    s.parse().map_err(|_| {
        bad(
            "ply",
            format!(
                "{} is not a number of plies from 0 to {}",
                quote(s),
                u32::MAX
            ),
        )
    })
}

/// Whether an editor switch (`edit=`) is on: present and neither `0` nor
/// `false` (the explorer's and the pattern page's).
pub(crate) fn editing(v: &Option<String>) -> bool {
    nonempty(v).is_some_and(|v| v != "0" && v != "false")
}
