//! What the position explorer and the pattern page share: the
//! fields of the game filters and of the explorer's options (the API's
//! own parameters, [`GameFilterQuery`] and [`ExploreQuery`], read by the
//! API's parsers), the links that keep them, the history chart, and the
//! top and recent games.

use std::fmt::Write as _;

use keil_archive::{GameId, HitDetails, YearCount};

use crate::dto::{ExploreQuery, GameFilterQuery};
use crate::params::nonempty;

/// The filter and option fields of a search page as the person wrote
/// them: echoed into the form and kept in the page's links.
#[derive(Debug, Default)]
pub(super) struct Fields {
    pub player: String,
    pub event: String,
    pub from: String,
    pub to: String,
    pub min_rank: String,
    pub max_rank: String,
    pub handicap: String,
    pub komi: String,
    pub move_limit: String,
    pub next: String,
    pub top_games: String,
    pub recent_games: String,
    pub history: bool,
    /// Pattern page: search the variations too.
    pub variations: bool,
}

impl Fields {
    /// The fields of `filter` and `explore` (blank when absent).
    pub(super) fn new(filter: &GameFilterQuery, explore: &ExploreQuery) -> Fields {
        let echo = |v: &Option<String>| nonempty(v).unwrap_or_default().to_string();
        Fields {
            player: echo(&filter.player),
            event: echo(&filter.event),
            from: echo(&filter.from),
            to: echo(&filter.to),
            min_rank: echo(&filter.min_rank),
            max_rank: echo(&filter.max_rank),
            handicap: echo(&filter.handicap),
            komi: echo(&filter.komi),
            move_limit: echo(&explore.move_limit),
            next: echo(&explore.next).to_ascii_uppercase(),
            top_games: echo(&explore.top_games),
            recent_games: echo(&explore.recent_games),
            history: crate::params::parse_flag("history", nonempty(&explore.history), false)
                .unwrap_or(false),
            variations: crate::params::parse_flag(
                "variations",
                nonempty(&explore.variations),
                false,
            )
            .unwrap_or(false),
        }
    }

    /// The fields as link parameters (blank ones are left out by
    /// [`crate::pages::names::link`]).
    pub(super) fn pairs(&self) -> Vec<(&'static str, &str)> {
        vec![
            ("player", &self.player),
            ("event", &self.event),
            ("from", &self.from),
            ("to", &self.to),
            ("min_rank", &self.min_rank),
            ("max_rank", &self.max_rank),
            ("handicap", &self.handicap),
            ("komi", &self.komi),
            ("move_limit", &self.move_limit),
            ("next", &self.next),
            ("history", if self.history { "true" } else { "" }),
            ("variations", if self.variations { "true" } else { "" }),
            ("top_games", &self.top_games),
            ("recent_games", &self.recent_games),
        ]
    }
}

/// The game viewer at `ply` of a game, on variation `variation` (the
/// viewer's `var`) when the ply is one of a variation's.
pub(super) fn viewer_href(id: GameId, ply: u32, variation: Option<u32>) -> String {
    match variation {
        None => format!("/games/{id}?ply={ply}"),
        Some(v) => format!("/games/{id}?ply={ply}&var={v}"),
    }
}

/// A game of the top or recent list.
pub(super) struct Listed {
    pub id: GameId,
    pub ply: u32,
    /// The variation the ply is in (a pattern match found in one).
    pub variation: Option<u32>,
    pub href: String,
    pub black: String,
    pub white: String,
    pub result: String,
    pub date: String,
}

impl Listed {
    /// A game listed at `ply` (the match's, in `variation` when there),
    /// linked to the game there, each player of its header `game` with
    /// their rank when there is one.
    fn new(id: GameId, (ply, variation): (u32, Option<u32>), game: &HitDetails) -> Listed {
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        // A player with a rank: `Name (7d)`.
        let player = |name: &Option<String>, rank: &Option<String>| match rank {
            Some(r) => format!("{} ({r})", text(name)),
            None => text(name),
        };
        Listed {
            id,
            ply,
            variation,
            href: viewer_href(id, ply, variation),
            black: player(&game.black, &game.black_rank),
            white: player(&game.white, &game.white_rank),
            result: text(&game.result),
            date: game.date.clone(),
        }
    }
}

impl From<&keil_archive::PositionHit> for Listed {
    fn from(g: &keil_archive::PositionHit) -> Listed {
        Listed::new(g.game_id, (g.ply, None), &g.game)
    }
}

impl From<&keil_archive::PatternHit> for Listed {
    fn from(g: &keil_archive::PatternHit) -> Listed {
        Listed::new(g.game_id, (g.ply, g.variation), &g.game)
    }
}

/// The history as a bar chart drawn on the server (as the player page's
/// chart: no script, no inline style): a bar per year, its height the
/// games (or hits) of the year, split into the wins of the query's Black
/// (dark), of its White (light) and the rest (grey); undated games last.
/// `what` names the counted things in the labels (`games`, `hits`).
pub(super) fn history_svg(years: &[YearCount], what: &str) -> String {
    if years.is_empty() {
        return "<p class=\"muted\">No games.</p>".into();
    }
    let max = years.iter().map(|y| y.games).max().unwrap_or(1).max(1);
    let (bar, gap, plot, top, bottom) = (16.0, 6.0, 120.0, 14.0, 22.0);
    let w = 20.0 + (bar + gap) * years.len() as f64;
    let h = top + plot + bottom;
    let name = |y: &YearCount| y.year.map_or("undated".to_string(), |y| y.to_string());
    let label = format!(
        "{what} per year: {}",
        years
            .iter()
            .map(|y| format!(
                "{}: {} {what}, Black won {}, White won {}",
                name(y),
                y.games,
                y.black_wins,
                y.white_wins
            ))
            .collect::<Vec<_>>()
            .join("; ")
    );
    // A year label every `step` bars, so that they do not overlap.
    let step = (years.len() / 12).max(1);
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg class="chart history" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.0} {h:.0}" width="{w:.0}" height="{h:.0}" role="img" aria-label="{label}" font-family="sans-serif" font-size="10"><title>{label}</title><line x1="8" y1="{base:.0}" x2="{:.0}" y2="{base:.0}" stroke="#888"/>"##,
        w - 4.0,
        base = top + plot,
    );
    for (i, y) in years.iter().enumerate() {
        let x = 12.0 + (bar + gap) * i as f64;
        let scale = |n: u64| plot * n as f64 / max as f64;
        let other = y.games.saturating_sub(y.black_wins + y.white_wins);
        let mut level = top + plot;
        for (class, n) in [
            ("black-wins", y.black_wins),
            ("white-wins", y.white_wins),
            ("other", other),
        ] {
            let bh = scale(n);
            level -= bh;
            let _ = write!(
                s,
                r#"<rect class="{class}" x="{x:.1}" y="{level:.1}" width="{bar:.1}" height="{bh:.1}"/>"#
            );
        }
        let _ = write!(
            s,
            r#"<rect class="hit" x="{x:.1}" y="{top:.1}" width="{bar:.1}" height="{plot:.1}" fill-opacity="0"><title>{}: {} {what}, Black won {}, White won {}</title></rect>"#,
            name(y),
            y.games,
            y.black_wins,
            y.white_wins
        );
        if i % step == 0 || y.year.is_none() {
            let text = y
                .year
                .map_or("–".to_string(), |y| format!("{:02}", y % 100));
            let _ = write!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{text}</text>"#,
                x + bar / 2.0,
                top + plot + 14.0
            );
        }
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chart_has_a_bar_per_year_and_names_each() {
        let y = |year, games, b, w| YearCount {
            year,
            games,
            black_wins: b,
            white_wins: w,
        };
        let svg = history_svg(
            &[
                y(Some(2001), 4, 3, 1),
                y(Some(2002), 2, 0, 1),
                y(None, 1, 0, 0),
            ],
            "games",
        );
        roxmltree::Document::parse(&svg).unwrap();
        assert!(
            svg.contains("2001: 4 games, Black won 3, White won 1"),
            "{svg}"
        );
        assert!(svg.contains("undated: 1 games"), "{svg}");
        assert_eq!(svg.matches("class=\"hit\"").count(), 3);
        assert!(history_svg(&[], "games").contains("No games"));
    }

    #[test]
    fn fields_keep_what_was_written() {
        let filter = GameFilterQuery {
            min_rank: Some("5d".into()),
            komi: Some(" 6.5 ".into()),
            ..GameFilterQuery::default()
        };
        let explore = ExploreQuery {
            history: Some("true".into()),
            next: Some("b".into()),
            ..ExploreQuery::default()
        };
        let f = Fields::new(&filter, &explore);
        let link = crate::pages::names::link("/positions", &f.pairs());
        assert_eq!(link, "/positions?min_rank=5d&komi=6.5&next=B&history=true");
    }
}
