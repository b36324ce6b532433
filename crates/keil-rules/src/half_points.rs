//! Half-points: the unit of komi, scores and margins.

use std::fmt;
use std::ops::{Add, Sub};
use std::str::FromStr;

/// A number of half-points: komi, scores and margins are integers in this
/// unit, never floats (6.5 points is `HalfPoints(13)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HalfPoints(pub i32);

impl HalfPoints {
    /// Whole points as half-points.
    pub fn from_points(points: i32) -> HalfPoints {
        HalfPoints(points * 2)
    }

    /// The value in points, for display and JSON (exact: a multiple of 0.5).
    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / 2.0
    }
}

impl Add for HalfPoints {
    type Output = HalfPoints;
    fn add(self, o: HalfPoints) -> HalfPoints {
        HalfPoints(self.0 + o.0)
    }
}

impl Sub for HalfPoints {
    type Output = HalfPoints;
    fn sub(self, o: HalfPoints) -> HalfPoints {
        HalfPoints(self.0 - o.0)
    }
}

impl fmt::Display for HalfPoints {
    /// `6`, `6.5`, `-0.5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let v = self.0.unsigned_abs();
        if v.is_multiple_of(2) {
            write!(f, "{sign}{}", v / 2)
        } else {
            write!(f, "{sign}{}.5", v / 2)
        }
    }
}

/// Why a number is not a multiple of half a point.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a multiple of 0.5 (expected a number like 6, 6.5 or -0.5)")]
pub struct HalfPointsError(pub String);

impl FromStr for HalfPoints {
    type Err = HalfPointsError;

    /// Reads `6`, `6.5`, `6.50`, `+6`, `-0.5`, `7.0`.
    fn from_str(s: &str) -> Result<HalfPoints, HalfPointsError> {
        let err = || HalfPointsError(s.to_string());
        let t = s.trim();
        let (neg, t) = match t.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let (int, frac) = t.split_once('.').unwrap_or((t, ""));
        if int.is_empty() && frac.is_empty() {
            return Err(err());
        }
        if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err());
        }
        let whole: i32 = if int.is_empty() {
            0
        } else {
            int.parse().map_err(|_| err())?
        };
        let frac = frac.trim_end_matches('0');
        let half = match frac {
            "" => 0,
            "5" => 1,
            _ => return Err(err()),
        };
        let v = whole
            .checked_mul(2)
            .and_then(|w| w.checked_add(half))
            .ok_or_else(err)?;
        Ok(HalfPoints(if neg { -v } else { v }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_points_parse_and_print() {
        for (s, v, out) in [
            ("6", 12, "6"),
            ("6.5", 13, "6.5"),
            ("6.50", 13, "6.5"),
            ("7.0", 14, "7"),
            ("-0.5", -1, "-0.5"),
            ("+2", 4, "2"),
            (".5", 1, "0.5"),
        ] {
            let h: HalfPoints = s.parse().unwrap();
            assert_eq!(h, HalfPoints(v), "{s}");
            assert_eq!(h.to_string(), out);
        }
        for bad in ["6.25", "abc", "", "-", "6.", "1e3", "6.7"] {
            if bad == "6." {
                assert_eq!(bad.parse::<HalfPoints>(), Ok(HalfPoints(12)));
                continue;
            }
            assert!(bad.parse::<HalfPoints>().is_err(), "{bad}");
        }
    }
}
