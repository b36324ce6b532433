//! The pattern searches' parameters: the API's query (also the pattern
//! page's search), a pattern's text read for its mode, and the pattern
//! page's form, read leniently.

use keil_archive::{Pattern, PatternMode, PatternQuery};

use super::values::{
    nonempty, parse_colors, parse_flag, parse_kind, parse_limit, parse_size, required,
};
use crate::dto::PatternsQuery;
use crate::error::{ApiError, bad};

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
        explore,
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
