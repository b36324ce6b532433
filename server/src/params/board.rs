//! The game viewer's parameters (the game page, its board fragment and
//! the refused record's page): `?ply=N&var=K&numbers=1&record=R`, read
//! ([`View`]) and written back for links to other plies
//! ([`View::keep`]).

use std::fmt::Write as _;

use serde::Deserialize;

use super::values::{nonempty, parse_flag, parse_ply, parse_record_number};
use crate::error::{ApiError, bad, quote};

/// The viewer's parameters: `?ply=N&var=K&numbers=1&record=R`.
#[derive(Debug, Deserialize)]
pub struct ViewParams {
    /// Another of the game's records to show instead of its own: its
    /// number in the game's records (0: the game's own).
    pub record: Option<String>,
    /// The ply to show (0: the start; default: the last).
    pub ply: Option<String>,
    /// A variation to show instead of the main line: its number (1-based,
    /// in the validator's order, which is the file's).
    pub var: Option<String>,
    /// `1`/`true`: move numbers on the stones.
    pub numbers: Option<String>,
}

/// [`ViewParams`] read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct View {
    /// The ply shown (`None`: the last).
    pub(crate) ply: Option<u32>,
    /// The variation shown (`None`: the main line).
    pub(crate) var: Option<usize>,
    /// Whether the stones carry their move numbers.
    pub(crate) numbers: bool,
    /// The record shown (`None`: the game's own).
    pub(crate) record: Option<i64>,
}

impl View {
    /// The parameters read.
    ///
    /// # Errors
    /// 400 naming the parameter that does not read.
    pub(crate) fn parse(p: &ViewParams) -> Result<View, ApiError> {
        let ply = nonempty(&p.ply).map(parse_ply).transpose()?;
        let var = nonempty(&p.var).map(parse_variation).transpose()?;
        let numbers = parse_flag("numbers", nonempty(&p.numbers), false)?;
        let record = nonempty(&p.record)
            .map(parse_record_number)
            .transpose()?
            .filter(|&n| n != 0);
        Ok(View {
            ply,
            var,
            numbers,
            record,
        })
    }

    /// The query that keeps the line and the numbers (`var=2&numbers=1&`),
    /// for links to other plies.
    pub(crate) fn keep(&self) -> String {
        let mut q = String::new();
        if let Some(r) = self.record {
            let _ = write!(q, "record={r}&");
        }
        if let Some(v) = self.var {
            let _ = write!(q, "var={v}&");
        }
        if self.numbers {
            q.push_str("numbers=1&");
        }
        q
    }
}

/// A variation's number (`var`): 1 or more.
fn parse_variation(s: &str) -> Result<usize, ApiError> {
    s.parse::<usize>().ok().filter(|&n| n >= 1).ok_or_else(|| {
        bad(
            "var",
            format!(
                "{} is not a variation number: 1 is the record's first variation",
                quote(s)
            ),
        )
    })
}
