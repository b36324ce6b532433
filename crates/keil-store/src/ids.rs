//! The archive's identifiers: [`GameId`], [`PlayerId`], [`ImportId`],
//! [`RefusedId`].
//!
//! Each is a positive integer, stable for the archive's life, written and
//! read in decimal (`Display`/`FromStr`) and serialised as a JSON number.
//! How a storage backend numbers its rows stays behind these types.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A text that is not an id: not a positive decimal integer within
/// `1..=2^63-1`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a {what} id: expected a positive integer")]
pub struct IdError {
    /// What kind of id was expected: `game`, `player`, `import` or
    /// `refused record`.
    pub what: &'static str,
    /// The text given.
    pub text: String,
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
        )]
        #[serde(try_from = "u64", into = "u64")]
        pub struct $name(u64);

        impl $name {
            /// The id numbered `n`; `None` unless `1 <= n <= 2^63 - 1`.
            pub const fn new(n: u64) -> Option<$name> {
                if n >= 1 && n <= i64::MAX as u64 {
                    Some($name(n))
                } else {
                    None
                }
            }

            /// Its number (at least 1).
            pub const fn get(self) -> u64 {
                self.0
            }

            /// The number as SQLite's rowid (always positive).
            #[allow(dead_code, reason = "not every id is written back")]
            pub const fn sql(self) -> i64 {
                self.0 as i64
            }

            /// The id of a rowid read from the archive's tables; rowids of
            /// stored rows are positive.
            pub fn from_sql(n: i64) -> $name {
                debug_assert!(n > 0, "rowids of stored rows are positive");
                $name(n.max(1) as u64)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        impl FromStr for $name {
            type Err = IdError;
            fn from_str(s: &str) -> Result<$name, IdError> {
                s.parse::<u64>()
                    .ok()
                    .and_then($name::new)
                    .ok_or_else(|| IdError {
                        what: $what,
                        text: s.to_string(),
                    })
            }
        }

        impl TryFrom<u64> for $name {
            type Error = IdError;
            fn try_from(n: u64) -> Result<$name, IdError> {
                $name::new(n).ok_or_else(|| IdError {
                    what: $what,
                    text: n.to_string(),
                })
            }
        }

        impl From<$name> for u64 {
            fn from(id: $name) -> u64 {
                id.0
            }
        }
    };
}

id_type!(
    /// A stored game, e.g. `42`: its identity for the archive's life (the
    /// same game imported again is a duplicate of this id).
    GameId,
    "game"
);

id_type!(
    /// A player: one distinct name as written in `PB`/`PW`.
    PlayerId,
    "player"
);

id_type!(
    /// One run of `keil_archive::Archive::import` in the import log.
    ImportId,
    "import"
);

id_type!(
    /// A refused record kept by an import (`keil_archive::Archive::refused_record`):
    /// its row in the import log's refusals.
    RefusedId,
    "refused record"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_refuse_what_is_not_positive() {
        for n in [1u64, 42, i64::MAX as u64] {
            let id = GameId::new(n).unwrap();
            assert_eq!(id.to_string().parse::<GameId>().unwrap(), id);
            assert_eq!(serde_json::to_string(&id).unwrap(), n.to_string());
            let back: GameId = serde_json::from_str(&n.to_string()).unwrap();
            assert_eq!(back, id);
        }
        for s in ["0", "-3", "abc", "", "1.5", "9223372036854775808"] {
            let e = s.parse::<PlayerId>().unwrap_err();
            assert_eq!(e.what, "player");
            assert!(e.to_string().contains("positive integer"), "{e}");
        }
        assert!(serde_json::from_str::<ImportId>("0").is_err());
    }
}
