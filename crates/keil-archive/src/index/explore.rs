//! The explorer's options, one type for the position and the pattern
//! searches (Kombilo's search options, lichess's explorer lists): the
//! move limit, the colour of the next move, the history, the games listed
//! and the variations; and the two ways a position search can refuse
//! them ([`ExploreError`]).

use keil_rules::Color;

/// What a search counts and lists beyond its hits, as the API's
/// parameters (`move_limit`, `next`, `history`, `top_games`,
/// `recent_games`, `variations`) and the CLI's flags (`--move-limit`, ...)
/// give it: both front ends read their input into this one type.
///
/// The default is Kombilo's: no move limit, either colour next, no
/// history, no games listed beyond the page, main lines only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExploreOptions {
    /// Only occurrences at or before this ply (Kombilo's move limit: the
    /// position or pattern stood after at most this many moves); `None`:
    /// any.
    pub move_limit: Option<u32>,
    /// The colour of the next move (Kombilo's "next move"). A pattern
    /// search keeps only hits whose continuation is a move of this colour,
    /// in the pattern's colours (a hit with no continuation is then out).
    /// A position search reads it as the player to move
    /// ([`ExploreOptions::player_to_move`]). `None`: any.
    pub next: Option<Color>,
    /// Whether the answer and each continuation break their games down by
    /// year (the answers' `history`).
    pub history: bool,
    /// How many of the games whose weaker player ranks highest to list
    /// (the answers' `top_games`; 0: none).
    pub top_games: usize,
    /// How many of the latest games to list (the answers' `recent_games`;
    /// 0: none).
    pub recent_games: usize,
    /// Whether a pattern search reads the variations too (Kombilo's
    /// option; see `patterns/variations.rs`): every stored record of the
    /// board is read and its variation lines replayed, so the time grows
    /// with the archive. A position search reads main lines only and
    /// refuses it ([`ExploreOptions::main_lines_only`]).
    pub variations: bool,
}

/// Why a position search refuses its options. Each names the option to
/// drop ([`ExploreError::option`]); its text says why, and the front end
/// adds how to ask instead in its own terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExploreError {
    /// `next` is not the player to move that the position's notation gives.
    #[error("{} contradicts the position's player to move ({}): drop one", next.letter(), given.letter())]
    NextContradicts {
        /// The option's colour.
        next: Color,
        /// The notation's player to move.
        given: Color,
    },
    /// `variations` asked of a position search.
    #[error("a position search reads main lines only (the position index holds no variations)")]
    Variations,
}

impl ExploreError {
    /// The option to drop: `next` or `variations` (the API's parameter;
    /// the CLI's flag is `--` and this).
    pub fn option(&self) -> &'static str {
        match self {
            ExploreError::NextContradicts { .. } => "next",
            ExploreError::Variations => "variations",
        }
    }
}

impl ExploreOptions {
    /// A position search's player to move, given the notation's
    /// (`given`) and [`ExploreOptions::next`]: either, or both when they
    /// agree.
    ///
    /// # Errors
    /// [`ExploreError::NextContradicts`] when they disagree.
    pub fn player_to_move(&self, given: Option<Color>) -> Result<Option<Color>, ExploreError> {
        match (given, self.next) {
            (Some(given), Some(next)) if given != next => {
                Err(ExploreError::NextContradicts { next, given })
            }
            (a, b) => Ok(a.or(b)),
        }
    }

    /// Checks that a position search can take these options: its index
    /// holds main lines only.
    ///
    /// # Errors
    /// [`ExploreError::Variations`] when [`ExploreOptions::variations`] is
    /// set.
    pub fn main_lines_only(&self) -> Result<(), ExploreError> {
        if self.variations {
            return Err(ExploreError::Variations);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_and_the_notation_agree_or_are_refused() {
        let black = ExploreOptions {
            next: Some(Color::Black),
            ..ExploreOptions::default()
        };
        assert_eq!(black.player_to_move(None), Ok(Some(Color::Black)));
        assert_eq!(
            black.player_to_move(Some(Color::Black)),
            Ok(Some(Color::Black))
        );
        let e = black.player_to_move(Some(Color::White)).unwrap_err();
        assert_eq!(e.option(), "next");
        assert_eq!(
            e.to_string(),
            "B contradicts the position's player to move (W): drop one"
        );
        let either = ExploreOptions::default();
        assert_eq!(
            either.player_to_move(Some(Color::White)),
            Ok(Some(Color::White))
        );
        assert_eq!(either.player_to_move(None), Ok(None));
    }

    #[test]
    fn a_position_search_refuses_variations() {
        assert_eq!(ExploreOptions::default().main_lines_only(), Ok(()));
        let v = ExploreOptions {
            variations: true,
            ..ExploreOptions::default()
        };
        assert_eq!(v.main_lines_only(), Err(ExploreError::Variations));
        assert_eq!(ExploreError::Variations.option(), "variations");
    }
}
