//! The kinds of game an archive holds.
//!
//! Mirrors `GameKind` of keil-rules' dispatch module (the session's API
//! contract: `Keil`, `Go`, `#[non_exhaustive]`, `code()`, `FromStr`); once
//! that lands, this type becomes a re-export of it. Until then every
//! imported game is [`GameKind::Keil`].

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

/// The game a record is of: stored in `games.kind` as [`GameKind::code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum GameKind {
    /// Keil: hexagonal board of side 2..=13 (keil-rules.md).
    Keil,
    /// Go: square board n×n (go-rules.md).
    Go,
    /// Kaomi: square board n×n, 2 ≤ n ≤ 19 (kaomi-rules.md).
    Kaomi,
}

impl GameKind {
    /// Every kind, in this order.
    pub const ALL: [GameKind; 3] = [GameKind::Keil, GameKind::Go, GameKind::Kaomi];

    /// The code stored in the archive and used in JSON and queries:
    /// `keil`, `go`, `kaomi`.
    pub fn code(self) -> &'static str {
        match self {
            GameKind::Keil => "keil",
            GameKind::Go => "go",
            GameKind::Kaomi => "kaomi",
        }
    }

    /// A number per kind, part of the position index's exact keys (so
    /// that positions of two kinds never share a key). Stored on disk:
    /// never renumber; a new kind takes the next number (3 bits: at most 8).
    pub(crate) fn key_code(self) -> u64 {
        match self {
            GameKind::Keil => 0,
            GameKind::Go => 1,
            GameKind::Kaomi => 2,
        }
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.code())
    }
}

impl Serialize for GameKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

/// A text that names no [`GameKind`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game kind {0:?}: expected keil, go or kaomi")]
pub struct GameKindError(pub String);

impl FromStr for GameKind {
    type Err = GameKindError;
    /// Reads a [`GameKind::code`], ignoring ASCII case.
    fn from_str(s: &str) -> Result<GameKind, GameKindError> {
        GameKind::ALL
            .into_iter()
            .find(|k| k.code().eq_ignore_ascii_case(s))
            .ok_or_else(|| GameKindError(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_and_have_distinct_key_codes() {
        for k in GameKind::ALL {
            assert_eq!(k.code().parse::<GameKind>().unwrap(), k);
            assert_eq!(k.code().to_uppercase().parse::<GameKind>().unwrap(), k);
            assert_eq!(
                serde_json::to_string(&k).unwrap(),
                format!("\"{}\"", k.code())
            );
            assert!(k.key_code() < 8);
        }
        let mut codes: Vec<u64> = GameKind::ALL.iter().map(|k| k.key_code()).collect();
        codes.dedup();
        assert_eq!(codes.len(), GameKind::ALL.len());
        assert!("chess".parse::<GameKind>().is_err());
    }
}
