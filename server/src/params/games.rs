//! The game lists' parameters: the game filters, the selection (filters,
//! kind, size) and page of a list or a download, and the refused records'
//! list.

use keil_archive::{Cursor, GameFilter, Order, Page};
use keil_rules::{KaomiVariant, Ruleset};

use super::values::{
    day_range, nonempty, number, numbered_id, parse_color, parse_kind, parse_limit, parse_rank,
    parse_size,
};
use crate::dto::{GameFilterQuery, GamesQuery};
use crate::error::{ApiError, bad, quote};

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
            result: nonempty(&self.result)
                .map(|r| {
                    keil_record::GameResult::parse_any(r)
                        .map(|r| r.to_string())
                        .map_err(|e| bad("result", e))
                })
                .transpose()?,
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
            collection: nonempty(&self.collection)
                .map(|c| keil_archive::collection_name(c).map_err(|e| bad("collection", e)))
                .transpose()?,
        })
    }
}

/// The largest komi (either way) a filter reads, in half-points: 999.5.
pub const MAX_KOMI: i32 = 1999;

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
