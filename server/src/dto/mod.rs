//! Request and response types of the API: the JSON shapes, separate from
//! keil-archive's domain types (colours as `B`/`W`, half-points as numbers,
//! cursors as strings), with their OpenAPI schemas.
//!
//! One module per resource: `queries` (the parameters of every request),
//! `games`, `players`, `searches` (positions and patterns), `meta` (full
//! text, statistics, health), `refused` (refused records kept) and
//! `uploads`; every type is re-exported
//! here, as `crate::dto::X`.

mod games;
mod meta;
mod players;
mod queries;
mod refused;
mod searches;
mod uploads;

pub use games::*;
pub use meta::*;
pub use players::*;
pub use queries::*;
pub use refused::*;
pub use searches::*;
pub use uploads::*;

use keil_rules::{Color, HalfPoints};

/// `B` or `W`.
pub(crate) fn color_code(c: Color) -> String {
    c.letter().to_string()
}

/// Half-points as a JSON number of points: `6` or `6.5`.
pub(crate) fn points(h: HalfPoints) -> f64 {
    h.as_f64()
}
