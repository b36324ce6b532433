//! Query strings and path segments, bounded before they are read: every
//! handler's query parameters come through [`Query`] (the API) or
//! [`crate::pages::PageQuery`] (the pages), which refuse a parameter longer
//! than its limit ([`limit_of`]) or a query string with more than
//! [`MAX_PARAMS`] parameters with a 400 naming it, before any parser sees
//! the value. Path segments that are not numbers are bounded by
//! [`segment`].
//!
//! Every parser behind these bounds is total (fuzzed in `fuzz/`): the
//! bounds keep what one request can ask small, and refusals short. The
//! readers of the values (ids, plies, colours, days, limits, flags, game
//! filters, game-list and pattern queries) live here too, shared by the
//! API and the pages.

use std::future::{Ready, ready};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use serde::de::DeserializeOwned;

use chrono::NaiveDate;
use keil_archive::{
    Cursor, GameFilter, GameId, Order, Page, Pattern, PatternMode, PatternQuery, PositionQuery,
};
use keil_rules::{Color, KaomiVariant, Ruleset};

use crate::dto::{GameFilterQuery, GamesQuery, PatternsQuery, PositionsQuery, SearchQuery};
use crate::error::{ApiError, bad, quote};

/// The most parameters a query string may have (repeated names count
/// each time).
pub const MAX_PARAMS: usize = 64;

/// The longest value, in bytes (UTF-8, after percent-decoding), of a
/// parameter with no larger limit of its own: names, dates, numbers,
/// flags, cursors.
pub const MAX_PARAM_BYTES: usize = 200;

/// The longest position or pattern notation (`position`, `pattern`), in
/// bytes: a 19×19 board written point by point (`X:aa,ab,…`) takes about
/// 1,100.
pub const MAX_NOTATION_BYTES: usize = 2000;

/// The longest value of the parameter `name`, in bytes: `q` (a text
/// query or a player's name) [`keil_archive::MAX_TEXT_QUERY_BYTES`],
/// `position` and `pattern` [`MAX_NOTATION_BYTES`], any other
/// [`MAX_PARAM_BYTES`].
pub fn limit_of(name: &str) -> usize {
    match name {
        "q" => keil_archive::MAX_TEXT_QUERY_BYTES,
        "position" | "pattern" => MAX_NOTATION_BYTES,
        _ => MAX_PARAM_BYTES,
    }
}

/// Reads the query string `query` into `T` (a query type of
/// [`crate::dto`] or of the pages), checking the bounds first.
///
/// # Errors
/// [`ApiError::BadRequest`] naming the parameter (or name) over its limit, for more
/// than [`MAX_PARAMS`] parameters, or for a query string `T` does not
/// accept (a parameter given twice, bytes that are not UTF-8).
pub fn parse<T: DeserializeOwned>(query: &str) -> Result<T, ApiError> {
    let malformed =
        |e: actix_web::error::QueryPayloadError| ApiError::BadRequest(format!("query string: {e}"));
    let pairs = web::Query::<Vec<(String, String)>>::from_query(query).map_err(malformed)?;
    if pairs.len() > MAX_PARAMS {
        return Err(ApiError::BadRequest(format!(
            "the query string has {} parameters; the limit is {MAX_PARAMS}",
            pairs.len()
        )));
    }
    for (name, value) in pairs.iter() {
        if name.len() > MAX_PARAM_BYTES {
            return Err(ApiError::BadRequest(format!(
                "the query parameter name {} is {} bytes long; the limit is {MAX_PARAM_BYTES} bytes",
                quote(name),
                name.len()
            )));
        }
        let limit = limit_of(name);
        if value.len() > limit {
            return Err(ApiError::BadRequest(format!(
                "the query parameter {} is {} bytes long; the limit is {limit} bytes",
                quote(name),
                value.len()
            )));
        }
    }
    web::Query::<T>::from_query(query)
        .map(web::Query::into_inner)
        .map_err(malformed)
}

/// The query parameters of an API request as `T`, bounded ([`parse`]);
/// refusals are problem documents.
#[derive(Debug)]
pub struct Query<T>(pub T);

impl<T> Query<T> {
    /// The parameters.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Query<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned> FromRequest for Query<T> {
    type Error = ApiError;
    type Future = Ready<Result<Query<T>, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(parse(req.query_string()).map(Query))
    }
}

/// A path segment that is text (a player's name): refused past
/// [`MAX_PARAM_BYTES`] with a 400 naming it (`what`).
///
/// # Errors
/// [`ApiError::BadRequest`] for a segment over the limit.
pub fn segment<'a>(what: &str, value: &'a str) -> Result<&'a str, ApiError> {
    if value.len() > MAX_PARAM_BYTES {
        return Err(ApiError::BadRequest(format!(
            "the {what} in the path is {} bytes long; the limit is {MAX_PARAM_BYTES} bytes",
            value.len()
        )));
    }
    Ok(value)
}

// ---- parameter values ------------------------------------------------------
//
// Each reads one parameter's value (already bounded above) into a domain
// type; a refusal is a 400 naming the parameter. A blank value is absent
// ([`nonempty`]). The OpenAPI patterns of `crate::dto` say the same.

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

impl GameFilterQuery {
    /// The archive filter (any kind and size).
    pub(crate) fn filter(self) -> Result<GameFilter, ApiError> {
        let text = |v: &Option<String>| nonempty(v).map(str::to_string);
        let (from, to) = day_range(&self.from, &self.to)?;
        Ok(GameFilter {
            player: text(&self.player),
            color: nonempty(&self.color)
                .map(|c| parse_color("color", c))
                .transpose()?,
            opponent: text(&self.opponent),
            event: text(&self.event),
            from,
            to,
            result: text(&self.result),
            winner: nonempty(&self.winner)
                .map(|c| parse_color("winner", c))
                .transpose()?,
            kind: None,
            size: None,
            ruleset: nonempty(&self.ruleset)
                .map(|r| r.parse::<Ruleset>().map_err(|e| bad("ruleset", e)))
                .transpose()?,
            status: nonempty(&self.status)
                .map(|s| s.parse().map_err(|e| bad("status", e)))
                .transpose()?,
            variant: nonempty(&self.variant)
                .map(|v| v.parse::<KaomiVariant>().map_err(|e| bad("variant", e)))
                .transpose()?,
            min_rank: nonempty(&self.min_rank)
                .map(|r| parse_rank("min_rank", r))
                .transpose()?,
            max_rank: nonempty(&self.max_rank)
                .map(|r| parse_rank("max_rank", r))
                .transpose()?,
            handicap: nonempty(&self.handicap)
                .map(|h| {
                    number(h)
                        .and_then(|n| u32::try_from(n).ok())
                        .filter(|&n| n <= 255)
                        .ok_or_else(|| bad("handicap", format!("{h:?} is not a number of stones from 0 to 255")))
                })
                .transpose()?,
            komi: nonempty(&self.komi)
                .map(|k| {
                    k.parse::<keil_rules::HalfPoints>()
                        .ok()
                        .filter(|h| h.0.abs() <= MAX_KOMI)
                        .ok_or_else(|| bad("komi", format!("{k:?} is not a komi: expected points in halves, like 6.5, 7.5, 0 or -0.5, at most 999.5 either way")))
                })
                .transpose()?,
        })
    }
}

/// The largest komi (either way) a filter reads, in half-points: 999.5.
pub const MAX_KOMI: i32 = 1999;

/// The most games `top_games` and `recent_games` list.
pub const MAX_LISTED: usize = 100;

/// The largest `move_limit`, in plies.
pub const MAX_MOVE_LIMIT: u32 = 100_000;

/// The explorer's options of a search, read ([`crate::dto::ExploreQuery::read`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Explore {
    pub variations: bool,
    pub move_limit: Option<u32>,
    pub next: Option<Color>,
    pub history: bool,
    pub top_games: usize,
    pub recent_games: usize,
}

impl Explore {
    /// `q` with these options: its player to move ([`Explore::player_to_move`]
    /// of its own), the move limit, the history and the games listed. The
    /// one place a position search takes them, for the API and the
    /// explorer page.
    ///
    /// # Errors
    /// 400 when `next` contradicts the position's player to move.
    pub(crate) fn position(self, q: PositionQuery) -> Result<PositionQuery, ApiError> {
        Ok(PositionQuery {
            to_move: self.player_to_move(q.to_move)?,
            move_limit: self.move_limit,
            history: self.history,
            top_games: self.top_games,
            recent_games: self.recent_games,
            ..q
        })
    }

    /// A position query's player to move, given the notation's (`given`)
    /// and `next`: either, or both when they agree.
    ///
    /// # Errors
    /// 400 when they disagree.
    fn player_to_move(self, given: Option<Color>) -> Result<Option<Color>, ApiError> {
        match (given, self.next) {
            (Some(a), Some(b)) if a != b => Err(bad(
                "next",
                format!(
                    "{} contradicts the position's player to move ({}): drop one",
                    b.letter(),
                    a.letter()
                ),
            )),
            (a, b) => Ok(a.or(b)),
        }
    }
}

impl crate::dto::ExploreQuery {
    /// The options: `move_limit` 0 to [`MAX_MOVE_LIMIT`], `next` `B`/`W`,
    /// `history` and `variations` flags, `top_games` and `recent_games` 0
    /// to [`MAX_LISTED`].
    ///
    /// # Errors
    /// 400 naming the parameter that does not read.
    pub(crate) fn read(&self) -> Result<Explore, ApiError> {
        let count = |what: &str, v: &Option<String>| -> Result<usize, ApiError> {
            match nonempty(v) {
                None => Ok(0),
                Some(t) => number(t)
                    .and_then(|n| usize::try_from(n).ok())
                    .filter(|&n| n <= MAX_LISTED)
                    .ok_or_else(|| {
                        bad(
                            what,
                            format!("{t:?} is not a number from 0 to {MAX_LISTED}"),
                        )
                    }),
            }
        };
        Ok(Explore {
            variations: parse_flag("variations", nonempty(&self.variations), false)?,
            move_limit: nonempty(&self.move_limit)
                .map(|t| {
                    number(t)
                        .and_then(|n| u32::try_from(n).ok())
                        .filter(|&n| n <= MAX_MOVE_LIMIT)
                        .ok_or_else(|| {
                            bad(
                                "move_limit",
                                format!(
                                    "{t:?} is not a number of plies from 0 to {MAX_MOVE_LIMIT}"
                                ),
                            )
                        })
                })
                .transpose()?,
            next: nonempty(&self.next)
                .map(|c| parse_color("next", c))
                .transpose()?,
            history: parse_flag("history", nonempty(&self.history), false)?,
            top_games: count("top_games", &self.top_games)?,
            recent_games: count("recent_games", &self.recent_games)?,
        })
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
fn number(s: &str) -> Option<u64> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// The games a list or a download selects: the filters, kind and size.
pub(crate) fn selection(q: crate::dto::SelectionQuery) -> Result<GameFilter, ApiError> {
    Ok(GameFilter {
        kind: nonempty(&q.kind).map(parse_kind).transpose()?,
        size: nonempty(&q.size).map(parse_size).transpose()?,
        ..q.filter.filter()?
    })
}

/// The archive filter and page of a game list query: the selection, the
/// order (`asc`, `desc`: default newest first), the cursors and the limit
/// (default 50).
pub(crate) fn games_query(q: GamesQuery) -> Result<(GameFilter, Page), ApiError> {
    let filter = selection(q.selection)?;
    let order = match nonempty(&q.order) {
        None | Some("desc") => Order::Descending,
        Some("asc") => Order::Ascending,
        Some(o) => return Err(bad("order", format!("{o:?} is not asc or desc"))),
    };
    let after = nonempty(&q.cursor)
        .map(|c| c.parse::<Cursor>().map_err(ApiError::from))
        .transpose()?;
    let before = nonempty(&q.before)
        .map(|c| c.parse::<Cursor>().map_err(ApiError::from))
        .transpose()?;
    let page = Page {
        order,
        limit: parse_limit(nonempty(&q.limit), 50, keil_archive::MAX_PAGE)?,
        after,
        before,
    };
    Ok((filter, page))
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

/// The archive filter and page size of a refused-record list (`GET
/// /api/v1/refused`, the `/refused` page): `import`, `reason`, `kind`,
/// `size`, `order` (`newest` or `id`), `limit` (1 to
/// [`keil_archive::MAX_REFUSED_PAGE`], default 50) and `after` (the
/// previous page's `next`). Blank values are absent.
///
/// # Errors
/// [`ApiError::BadRequest`] naming the parameter that does not read and
/// what to write instead.
pub(crate) fn refused_query(
    q: &crate::dto::RefusedQuery,
) -> Result<(keil_archive::RefusedFilter, usize), ApiError> {
    let import = nonempty(&q.import)
        .map(|s| numbered_id("import", s))
        .transpose()?;
    let after = nonempty(&q.after)
        .map(|s| numbered_id("after", s))
        .transpose()?;
    let reason = nonempty(&q.reason)
        .map(|s| {
            let ok = s.len() <= 40 && s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
            ok.then(|| s.to_string()).ok_or_else(|| {
                bad(
                    "reason",
                    format!(
                        "{} is not a reason code: lowercase letters and _, e.g. repetition, occupied, self_capture, wrong_player, board_size",
                        quote(s)
                    ),
                )
            })
        })
        .transpose()?;
    let order = match nonempty(&q.order) {
        None | Some("newest") => keil_archive::RefusedOrder::Newest,
        Some("id") => keil_archive::RefusedOrder::Id,
        Some(o) => return Err(bad("order", format!("{} is not newest or id", quote(o)))),
    };
    let filter = keil_archive::RefusedFilter {
        import,
        reason,
        kind: nonempty(&q.kind).map(parse_kind).transpose()?,
        size: nonempty(&q.size)
            .map(parse_size)
            .transpose()?
            .map(u32::from),
        order,
        after,
    };
    let limit = parse_limit(nonempty(&q.limit), 50, keil_archive::MAX_REFUSED_PAGE)?;
    Ok((filter, limit))
}

/// A text search (`GET /api/v1/search`): the query text, checked to read
/// as one ([`keil_archive::TextPlan::parse`]), and the limit (default 20,
/// at most 100).
///
/// # Errors
/// [`ApiError::BadRequest`] for no `q`, a `q` that does not read, or a bad
/// limit.
pub(crate) fn search_query(q: &SearchQuery) -> Result<(String, usize), ApiError> {
    let text = required("q", &q.q)?.to_string();
    keil_archive::TextPlan::parse(&text).map_err(|e| bad("q", e))?;
    let limit = parse_limit(nonempty(&q.limit), 20, 100)?;
    Ok((text, limit))
}

/// The archive query of a position search (`GET /api/v1/positions`, the
/// explorer page): a board (`position`, in its notation) or a line of moves
/// from the empty board (`play`, with `kind` and `size`), symmetry (default
/// off), colours (default fixed), the game filters, the explorer's options
/// and the page. Every error names the parameter and what to write
/// instead. Also the entry point of the `search_query` fuzz target.
///
/// # Errors
/// [`ApiError::BadRequest`] for a parameter that does not read.
pub fn position_query(q: PositionsQuery) -> Result<PositionQuery, ApiError> {
    let kind = nonempty(&q.kind).map(parse_kind).transpose()?;
    let parsed = match (nonempty(&q.position), q.play.as_deref()) {
        (Some(_), Some(_)) => {
            return Err(bad(
                "play",
                "give either position (a board) or play (a line of moves), not both",
            ));
        }
        (Some(text), None) => {
            PositionQuery::parse_inferred(kind, text).map_err(|e| bad("position", e))?
        }
        (None, Some(play)) => {
            let kind = kind.ok_or_else(|| {
                bad(
                    "kind",
                    "required with play: the game whose empty board the line starts from",
                )
            })?;
            let size = nonempty(&q.size)
                .map(parse_size)
                .transpose()?
                .unwrap_or(kind.default_size());
            let spec = keil_rules::BoardSpec::new(kind, size).map_err(|e| bad("size", e))?;
            let line = crate::play::parse_play(spec, play)?;
            let mut pq = PositionQuery::new(line.position());
            pq.to_move = Some(line.to_move());
            pq
        }
        (None, None) => {
            return Err(ApiError::BadRequest(
                "the query parameter position is required (or play, a line of moves from the empty board of kind)".into(),
            ));
        }
    };
    let symmetry = parse_flag("symmetry", nonempty(&q.symmetry), false)?;
    let swap_colors = parse_colors(q.colors.as_deref(), false)?;
    let explore = q.explore.read()?;
    if explore.variations {
        return Err(bad(
            "variations",
            "a position search reads main lines only (the position index holds no variations): leave it out, or search the board as a whole-board pattern (GET /api/v1/patterns) with variations=true",
        ));
    }
    let parsed = explore.position(parsed)?;
    let query = PositionQuery {
        symmetry,
        swap_colors,
        filter: q.filter.filter()?,
        limit: parse_limit(nonempty(&q.limit), 20, keil_archive::MAX_PAGE)?,
        cursor: nonempty(&q.cursor).map(str::to_string),
        ..parsed
    };
    Ok(query)
}

/// The archive query of a pattern search: kind (default Go), size
/// (default the kind's usual), mode (default anywhere; `auto`:
/// `read_pattern`), symmetry (default
/// on), colours (default swap), the game filters and the page. Every
/// error names the parameter and what to write instead. Also the entry
/// point of the `search_query` fuzz target.
///
/// # Errors
/// [`ApiError::BadRequest`] for a parameter that does not read.
pub fn pattern_query(q: PatternsQuery) -> Result<PatternQuery, ApiError> {
    let text = required("pattern", &q.pattern)?;
    let kind = nonempty(&q.kind)
        .map(parse_kind)
        .transpose()?
        .unwrap_or(keil_rules::GameKind::Go);
    let size = match nonempty(&q.size) {
        Some(s) => parse_size(s)?,
        None => kind.default_size(),
    };
    let symmetry = parse_flag("symmetry", nonempty(&q.symmetry), true)?;
    let swap_colors = parse_colors(q.colors.as_deref(), true)?;
    let (pattern, mode) = read_pattern(
        kind,
        size,
        text,
        nonempty(&q.mode).unwrap_or(PatternMode::Anywhere.code()),
    )?;
    let explore = q.explore.read()?;
    Ok(PatternQuery {
        symmetry,
        swap_colors,
        filter: q.filter.filter()?,
        move_limit: explore.move_limit,
        next: explore.next,
        variations: explore.variations,
        history: explore.history,
        top_games: explore.top_games,
        recent_games: explore.recent_games,
        limit: parse_limit(nonempty(&q.limit), 20, keil_archive::MAX_PAGE)?,
        cursor: nonempty(&q.cursor).map(str::to_string),
        ..PatternQuery::new(pattern, mode)
    })
}

/// A pattern's text read for the mode `mode` names: `fixed`, `corner`,
/// `side`, `centre`, `anywhere`, or `auto`, the mode the pattern itself
/// suggests ([`Pattern::natural_mode`]: a drawn region's edges, or where
/// stones alone lie). Returns the pattern (for `corner` and `side`, stones
/// alone grown to their region: [`Pattern::reaching`]) and the mode.
pub(crate) fn read_pattern(
    kind: keil_rules::GameKind,
    size: u8,
    text: &str,
    mode: &str,
) -> Result<(Pattern, PatternMode), ApiError> {
    if mode == "auto" {
        let p = Pattern::parse(kind, size, text, PatternMode::Anywhere).map_err(ApiError::from)?;
        let natural = p.natural_mode();
        return Ok((p.reaching(natural), natural));
    }
    let mode = mode
        .parse::<PatternMode>()
        .map_err(|e| bad("mode", format!("{e} (or auto: from the pattern's edges)")))?;
    let pattern = Pattern::parse(kind, size, text, mode).map_err(ApiError::from)?;
    Ok((pattern, mode))
}

// ---- the pattern page's form -------------------------------------------------
//
// The page reads leniently: what does not read is said on the form (each
// message naming its parameter) and a default stands in, so that the
// editor can still be drawn.

/// The board of the pattern page's form (`kind`, `size`): as asked for,
/// else Go, at the kind's usual size; what does not read is added to
/// `errors` (`kind: …`, `size: …`) and the default used instead.
pub(crate) fn form_board(
    kind: &Option<String>,
    size: &Option<String>,
    errors: &mut Vec<String>,
) -> keil_rules::BoardSpec {
    let kind = match nonempty(kind).map(str::parse::<keil_rules::GameKind>) {
        None => keil_rules::GameKind::Go,
        Some(Ok(k)) => k,
        Some(Err(e)) => {
            errors.push(format!("kind: {e}"));
            keil_rules::GameKind::Go
        }
    };
    nonempty(size)
        .map(|s| {
            s.parse::<u8>()
                .map_err(|_| format!("size: {s:?} is not a board size"))
                .and_then(|n| keil_rules::BoardSpec::new(kind, n).map_err(|e| format!("size: {e}")))
        })
        .transpose()
        .unwrap_or_else(|e| {
            errors.push(e);
            None
        })
        .unwrap_or(keil_rules::BoardSpec {
            kind,
            size: kind.default_size(),
        })
}

/// The pattern page's pattern `text` on the board `spec`: while editing,
/// the points as drawn (stones alone grow their region only when
/// searched; the mode `mode` names, else anywhere); else read for its mode
/// as the API reads it ([`read_pattern`]), with that mode. `None` for no
/// text, or text that does not read (its refusal added to `errors`).
pub(crate) fn form_pattern(
    spec: keil_rules::BoardSpec,
    text: &str,
    mode: &str,
    edit: bool,
    errors: &mut Vec<String>,
) -> (Option<Pattern>, Option<PatternMode>) {
    if text.is_empty() {
        return (None, None);
    }
    let read = if edit {
        let drawn_mode = mode.parse().unwrap_or(PatternMode::Anywhere);
        Pattern::parse_drawn(spec.kind, spec.size, text, drawn_mode)
            .map(|p| (p, None))
            .map_err(ApiError::from)
    } else {
        read_pattern(spec.kind, spec.size, text, mode).map(|(p, m)| (p, Some(m)))
    };
    match read {
        Ok((p, m)) => (Some(p), m),
        Err(e) => {
            errors.push(e.to_string());
            (None, None)
        }
    }
}

/// The pattern page's `symmetry` and `colors` as the form shows them when
/// its query does not read: symmetry unless `false`, `0` or `no`; colours
/// swapped unless `same`.
pub(crate) fn form_symmetry_colors(q: &PatternsQuery) -> (bool, bool) {
    (
        !matches!(nonempty(&q.symmetry), Some("false" | "0" | "no")),
        nonempty(&q.colors) != Some("same"),
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Q {
        q: Option<String>,
        limit: Option<String>,
    }

    #[test]
    fn bounds_are_checked_before_the_values_are_read() {
        let q: Q = parse("q=a%20b&limit=3&other=x").unwrap();
        assert_eq!(
            (q.q.as_deref(), q.limit.as_deref()),
            (Some("a b"), Some("3"))
        );
        let long = format!("q={}", "a".repeat(keil_archive::MAX_TEXT_QUERY_BYTES + 1));
        let e = parse::<Q>(&long).unwrap_err().to_string();
        assert!(
            e.contains("parameter \"q\"") && e.contains("1000 bytes"),
            "{e}"
        );
        let e = parse::<Q>(&format!("limit={}", "9".repeat(201)))
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"limit\" is 201 bytes"), "{e}");
        let many = vec!["x=1"; MAX_PARAMS + 1].join("&");
        let e = parse::<Q>(&many).unwrap_err().to_string();
        assert!(e.contains("65 parameters"), "{e}");
        assert!(parse::<Q>("q=1&q=2").is_err());
        // A long name is quoted short.
        let e = parse::<Q>(&format!("{}=1", "n".repeat(10_000)))
            .unwrap_err()
            .to_string();
        assert!(e.len() < 200 && e.contains('…'), "{e}");
    }

    #[test]
    fn quote_shortens_on_a_char_boundary() {
        assert_eq!(quote("abc"), "\"abc\"");
        let q = quote(&"é".repeat(100));
        assert_eq!(q, format!("{:?}…", "é".repeat(40)));
    }
}
