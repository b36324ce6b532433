//! A Go record written under a symmetry of the square board: the same
//! game turned or mirrored, for benchmark sets built from real games
//! (`keil generate --transform-of`).
//!
//! It lives beside the normalised export rather than in keil-gen because it
//! is an export of a record that was read: it needs what the record reader
//! knows (which properties hold points in a Go record, passes, compressed
//! point lists, the board of `SZ`) and writes through the same normalised
//! writer, so that a transformed record reads back with the verdict of its
//! original. keil-gen makes games from a seed and knows no record.

use keil_rules::{SquareBoard, SquareSymmetry};
use keil_sgf::{NodeId, PropValue, PropertyBuf};

use crate::record::{GameSpec, Record};

/// Go properties whose values are points or compressed point lists
/// (`aa:cc`): setup, kept as written when a value is not a point of the
/// board (so that the verdict stays `bad_setup`).
const SETUP: &[&str] = &["AB", "AW", "AE"];

/// Markup whose values are points or compressed point lists: dropped when
/// a value is not a point of the board. `TB`/`TW` (territory, as KGS
/// writes it at the end), `DD` and `VW` are point lists too.
const POINT_MARKS: &[&str] = &["TR", "SQ", "CR", "MA", "SL", "TB", "TW", "DD", "VW"];

/// Markup whose values are two points (`AR`, `LN`: `aa:cc`).
const POINT_PAIRS: &[&str] = &["AR", "LN"];

impl Record {
    /// The record as [`to_sgf`](Self::to_sgf) writes it, with every point
    /// value mapped by `symmetry` (keil-rules' [`SquareSymmetry`], applied
    /// with [`SquareBoard::transform`]), and `gn_suffix` appended to `GN`
    /// (`GN` is added, the suffix trimmed, when the record has none; an
    /// empty suffix leaves `GN` alone).
    ///
    /// Mapped: moves `B`/`W` (a pass, `[]` or `[tt]`, stays a pass; a value
    /// that is not a point stays as written, so the verdict does not
    /// change), setup `AB`/`AW`/`AE` (compressed rectangles `aa:cc`
    /// expanded to their points), point markup `TR`, `SQ`, `CR`, `MA`,
    /// `SL`, `TB`, `TW`, `DD`, `VW`, label points `LB[dd:text]` and point
    /// pairs `AR`/`LN`. Markup with a value that is not a point of the
    /// board is dropped. Everything else (game information, comments,
    /// timing) is kept as written: a comment that names a point still
    /// names the original one.
    ///
    /// `None` for a record that is not a Go game on a board the validator
    /// supports (a square board up to 19×19).
    pub fn to_sgf_transformed(&self, symmetry: SquareSymmetry, gn_suffix: &str) -> Option<String> {
        let GameSpec::Go(go) = &self.spec else {
            return None;
        };
        let board = *go.board.as_ref().ok()?;
        let mut tree = self.tree.clone();
        for id in self.node_ids() {
            let node = self.tree.node(id);
            let mut props: Vec<PropertyBuf<'static>> = node
                .properties()
                .filter_map(|p| {
                    let ident = p.ident();
                    let values: Vec<PropValue<'_>> = p.values().collect();
                    let mapped = map_values(board, symmetry, ident, &values);
                    match mapped {
                        Some(values) => Some(PropertyBuf::new(ident.to_string(), values)),
                        None if POINT_MARKS.contains(&ident)
                            || POINT_PAIRS.contains(&ident)
                            || ident == "LB" =>
                        {
                            None
                        }
                        None => Some(owned(p.to_buf())),
                    }
                })
                .collect();
            if id == NodeId::ROOT && !gn_suffix.is_empty() {
                match props.iter_mut().find(|p| p.ident == "GN") {
                    Some(gn) => {
                        let mut raw = gn
                            .values
                            .first()
                            .map(|v| v.raw.to_string())
                            .unwrap_or_default();
                        raw.push_str(&PropValue::from_text(gn_suffix).raw);
                        gn.values = vec![PropValue::from_raw(raw)];
                    }
                    None => props.push(PropertyBuf::new(
                        "GN",
                        [PropValue::from_raw(
                            PropValue::from_text(gn_suffix.trim()).raw.into_owned(),
                        )],
                    )),
                }
            }
            tree.set_properties(id, props);
        }
        Some(self.write_normalised(tree))
    }
}

/// A property with owned values.
fn owned(p: PropertyBuf<'_>) -> PropertyBuf<'static> {
    PropertyBuf::new(
        p.ident.into_owned(),
        p.values
            .into_iter()
            .map(|v| PropValue::from_raw(v.raw.into_owned())),
    )
}

/// The values of a point property mapped by `s`; `None` for a property
/// that holds no points, or one with a value that is not a point of the
/// board (the caller keeps it as written or drops it).
fn map_values(
    board: &'static SquareBoard,
    s: SquareSymmetry,
    ident: &str,
    values: &[PropValue<'_>],
) -> Option<Vec<PropValue<'static>>> {
    let point = |raw: &str| {
        board
            .parse_sgf_point(raw.trim())
            .ok()
            .map(|p| board.sgf_name(board.transform(p, s)))
    };
    let mut out = Vec::with_capacity(values.len());
    match ident {
        "B" | "W" => {
            let raw = values.first()?.raw.trim();
            if raw.is_empty() || raw == "tt" {
                return None;
            }
            out.push(PropValue::from_raw(point(raw)?));
        }
        _ if SETUP.contains(&ident) || POINT_MARKS.contains(&ident) => {
            for v in values {
                // `VW[]` and `DD[]` reset: nothing to map.
                if v.is_empty() {
                    out.push(PropValue::from_raw(""));
                    continue;
                }
                match v.split_composed() {
                    None => out.push(PropValue::from_raw(point(v.raw.as_ref())?)),
                    Some((a, b)) => {
                        let a = board.parse_sgf_point(a.raw.trim()).ok()?;
                        let b = board.parse_sgf_point(b.raw.trim()).ok()?;
                        let ((c0, r0), (c1, r1)) = (board.coords(a), board.coords(b));
                        for r in r0.min(r1)..=r0.max(r1) {
                            for c in c0.min(c1)..=c0.max(c1) {
                                let q = board.point_at(i32::from(c), i32::from(r))?;
                                out.push(PropValue::from_raw(
                                    board.sgf_name(board.transform(q, s)),
                                ));
                            }
                        }
                    }
                }
            }
        }
        "LB" => {
            for v in values {
                let (at, text) = v.split_composed()?;
                let mut raw = point(at.raw.as_ref())?;
                raw.push(':');
                raw.push_str(&text.raw);
                out.push(PropValue::from_raw(raw));
            }
        }
        _ if POINT_PAIRS.contains(&ident) => {
            for v in values {
                let (a, b) = v.split_composed()?;
                out.push(PropValue::from_raw(format!(
                    "{}:{}",
                    point(a.raw.as_ref())?,
                    point(b.raw.as_ref())?
                )));
            }
        }
        _ => return None,
    }
    Some(out)
}
