//! The explorer's options, shared by the position and pattern searches
//! (the API's and the pages'): the move limit, the player to move next,
//! the history, the games listed and the variations.

use keil_archive::PositionQuery;
use keil_rules::Color;

use super::values::{nonempty, number, parse_color, parse_flag};
use crate::dto::ExploreQuery;
use crate::error::{ApiError, bad};

/// The most games `top_games` and `recent_games` list.
pub const MAX_LISTED: usize = 100;

/// The largest `move_limit`, in plies.
pub const MAX_MOVE_LIMIT: u32 = 100_000;

/// The explorer's options of a search, read ([`ExploreQuery::read`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Explore {
    pub variations: bool,
    pub move_limit: Option<u32>,
    pub next: Option<Color>,
    pub history: bool,
    pub top_games: usize,
    pub recent_games: usize,
}

impl Explore {
    /// `q` with these options: its player to move ([`Explore::player_to_move`]
    /// of its own), the move limit, the history and the games listed. The
    /// one place a position search takes them, for the API and the
    /// explorer page.
    ///
    /// # Errors
    /// 400 when `next` contradicts the position's player to move.
    pub(crate) fn position(self, q: PositionQuery) -> Result<PositionQuery, ApiError> {
        Ok(PositionQuery {
            to_move: self.player_to_move(q.to_move)?,
            move_limit: self.move_limit,
            history: self.history,
            top_games: self.top_games,
            recent_games: self.recent_games,
            ..q
        })
    }

    /// A position query's player to move, given the notation's (`given`)
    /// and `next`: either, or both when they agree.
    ///
    /// # Errors
    /// 400 when they disagree.
    fn player_to_move(self, given: Option<Color>) -> Result<Option<Color>, ApiError> {
        match (given, self.next) {
            (Some(a), Some(b)) if a != b => Err(bad(
                "next",
                format!(
                    "{} contradicts the position's player to move ({}): drop one",
                    b.letter(),
                    a.letter()
                ),
            )),
            (a, b) => Ok(a.or(b)),
        }
    }
}

impl ExploreQuery {
    /// The options: `move_limit` 0 to [`MAX_MOVE_LIMIT`], `next` `B`/`W`,
    /// `history` and `variations` flags, `top_games` and `recent_games` 0
    /// to [`MAX_LISTED`].
    ///
    /// # Errors
    /// 400 naming the parameter that does not read.
    pub(crate) fn read(&self) -> Result<Explore, ApiError> {
        let count = |what: &str, v: &Option<String>| -> Result<usize, ApiError> {
            match nonempty(v) {
                None => Ok(0),
                Some(t) => number(t)
                    .and_then(|n| usize::try_from(n).ok())
                    .filter(|&n| n <= MAX_LISTED)
                    .ok_or_else(|| {
                        bad(
                            what,
                            format!("{t:?} is not a number from 0 to {MAX_LISTED}"),
                        )
                    }),
            }
        };
        Ok(Explore {
            variations: parse_flag("variations", nonempty(&self.variations), false)?,
            move_limit: nonempty(&self.move_limit)
                .map(|t| {
                    number(t)
                        .and_then(|n| u32::try_from(n).ok())
                        .filter(|&n| n <= MAX_MOVE_LIMIT)
                        .ok_or_else(|| {
                            bad(
                                "move_limit",
                                format!(
                                    "{t:?} is not a number of plies from 0 to {MAX_MOVE_LIMIT}"
                                ),
                            )
                        })
                })
                .transpose()?,
            next: nonempty(&self.next)
                .map(|c| parse_color("next", c))
                .transpose()?,
            history: parse_flag("history", nonempty(&self.history), false)?,
            top_games: count("top_games", &self.top_games)?,
            recent_games: count("recent_games", &self.recent_games)?,
        })
    }
}
