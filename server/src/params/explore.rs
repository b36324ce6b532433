//! The explorer's options, shared by the position and pattern searches
//! (the API's and the pages'): the move limit, the player to move next,
//! the history, the games listed and the variations, read into the
//! archive's one [`ExploreOptions`].

use keil_archive::ExploreOptions;

use super::values::{nonempty, number, parse_color, parse_flag};
use crate::dto::ExploreQuery;
use crate::error::{ApiError, bad};

/// The most games `top_games` and `recent_games` list.
pub const MAX_LISTED: usize = 100;

/// The largest `move_limit`, in plies.
pub const MAX_MOVE_LIMIT: u32 = 100_000;

impl ExploreQuery {
    /// The options: `move_limit` 0 to [`MAX_MOVE_LIMIT`], `next` `B`/`W`,
    /// `history` and `variations` flags, `top_games` and `recent_games` 0
    /// to [`MAX_LISTED`].
    ///
    /// # Errors
    /// 400 naming the parameter that does not read.
    pub(crate) fn read(&self) -> Result<ExploreOptions, ApiError> {
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
        Ok(ExploreOptions {
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
