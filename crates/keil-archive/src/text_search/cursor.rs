//! [`TextCursor`]: where the next page of a text search starts.

use std::fmt;

use crate::index::text::page::Ranked;
use keil_store::ids::GameId;

/// Where the next page of a text search starts: the last hit of a page,
/// its score and game, written `<score>-<game>` with the score's 32 bits
/// in 8 hex digits (`41a4c000-1234`), so that it reads back exactly.
///
/// Hits are ordered by score, best first, then by game id: a page asked
/// with a cursor lists the hits after it in that order. Scores follow the
/// index: games added or removed between two pages can move a hit across
/// the cursor (listed twice, or not at all), never make a page fail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextCursor {
    /// The last hit's score.
    pub score: f32,
    /// The last hit's game.
    pub game: GameId,
}

impl TextCursor {
    /// Reads a cursor as [`TextCursor`]'s `Display` writes it; `None` for
    /// anything else (total: any text).
    pub fn parse(s: &str) -> Option<TextCursor> {
        let (bits, id) = s.split_once('-')?;
        if bits.len() != 8 || !bits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let score = f32::from_bits(u32::from_str_radix(bits, 16).ok()?);
        let game = id.parse::<GameId>().ok()?;
        score.is_finite().then_some(TextCursor { score, game })
    }

    pub(crate) fn ranked(self) -> Ranked {
        Ranked {
            score: self.score,
            id: self.game.get(),
        }
    }
}

/// Serialised as its text (`Display`).
impl serde::Serialize for TextCursor {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl fmt::Display for TextCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:08x}-{}", self.score.to_bits(), self.game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_exactly_and_nothing_else_reads() {
        let c = TextCursor {
            score: 5.137_42,
            game: GameId::new(1234).unwrap(),
        };
        assert_eq!(TextCursor::parse(&c.to_string()), Some(c));
        assert_eq!(c.to_string(), format!("{:08x}-1234", 5.137_42f32.to_bits()));
        for bad in [
            "",
            "-",
            "41a4c000",
            "41a4c000-",
            "41a4c00-1",
            "41a4c0000-1",
            "41a4c000-0",
            "41a4c000--1",
            "41a4c000-+1",
            "7fc00000-1",
            "7f800000-1",
            "zzzzzzzz-1",
            "41a4c000-99999999999999999999",
            "41a4c000-1-2",
            "é1a4c000-1",
        ] {
            assert_eq!(TextCursor::parse(bad), None, "{bad:?}");
        }
    }
}
