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
    pub collection: String,
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
            collection: echo(&filter.collection),
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
            ("collection", &self.collection),
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
/// chart: no script, no inline style) on a time axis: a bar per year at
/// its place between the first and the last year the data has (years
/// without games are gaps), its height the games (or hits) of the year,
/// split into the wins of the query's Black (dark), of its White (light)
/// and the rest (grey); undated games last, apart. The axis names whole
/// years at a round step (at most [`YEAR_TICKS`] of them) and the
/// tallest bar's count. `what` names the counted things in the labels
/// (`games`, `hits`).
pub(super) fn history_svg(years: &[YearCount], what: &str) -> String {
    if years.is_empty() {
        return "<p class=\"muted\">No games.</p>".into();
    }
    let max = years.iter().map(|y| y.games).max().unwrap_or(1).max(1);
    let dated: Vec<i32> = years.iter().filter_map(|y| y.year.map(i32::from)).collect();
    let (first, last) = (
        dated.iter().copied().min().unwrap_or(0),
        dated.iter().copied().max().unwrap_or(0),
    );
    let span = if dated.is_empty() {
        0
    } else {
        (last - first + 1) as usize
    };
    let undated = years.iter().any(|y| y.year.is_none());
    // Slots: one a year of the span, then a gap and the undated bar.
    let slots = span + if undated { 2 } else { 0 };
    let (w, left, right, top, plot, bottom) = (640.0, 40.0, 8.0, 12.0, 140.0, 24.0);
    let slot = (w - left - right) / slots.max(1) as f64;
    let bar = (slot * 0.8).max(0.6);
    let h = top + plot + bottom;
    let base = top + plot;
    let slot_of = |y: &YearCount| match y.year {
        Some(year) => (i32::from(year) - first) as usize,
        None => span + 1,
    };
    let x_of = |i: usize| left + slot * i as f64 + (slot - bar) / 2.0;
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
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg class="chart history" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.0} {h:.0}" width="{w:.0}" height="{h:.0}" role="img" aria-label="{label}" font-family="sans-serif" font-size="13"><title>{label}</title><line x1="{left:.0}" y1="{base:.0}" x2="{:.0}" y2="{base:.0}" stroke="#888"/><line x1="{left:.0}" y1="{top:.0}" x2="{left:.0}" y2="{base:.0}" stroke="#888"/><text x="{:.0}" y="{:.0}" text-anchor="end" dominant-baseline="central">{max}</text><text x="{:.0}" y="{base:.0}" text-anchor="end" dominant-baseline="central">0</text>"##,
        w - right,
        left - 4.0,
        top,
        left - 4.0,
    );
    for y in years {
        let x = x_of(slot_of(y));
        let scale = |n: u64| plot * n as f64 / max as f64;
        let other = y.games.saturating_sub(y.black_wins + y.white_wins);
        let mut level = base;
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
    }
    let tick = |s: &mut String, i: usize, text: &str| {
        let x = x_of(i) + bar / 2.0;
        let _ = write!(
            s,
            r##"<line x1="{x:.1}" y1="{base:.0}" x2="{x:.1}" y2="{:.0}" stroke="#888"/><text x="{x:.1}" y="{:.0}" text-anchor="middle">{text}</text>"##,
            base + 4.0,
            base + 18.0
        );
    };
    if span > 0 {
        for year in year_ticks(first, last) {
            tick(&mut s, (year - first) as usize, &year.to_string());
        }
    }
    if undated {
        tick(&mut s, span + 1, "?");
    }
    s.push_str("</svg>");
    s
}

/// The most year labels on a history chart's axis.
const YEAR_TICKS: i32 = 7;

/// The years a chart from `first` to `last` names: the multiples of the
/// smallest round step (1, 2, 5, 10, 20, 25, 50, 100, 200, 500 years) that
/// gives at most [`YEAR_TICKS`] of them; `first` alone when none falls in
/// the span.
fn year_ticks(first: i32, last: i32) -> Vec<i32> {
    let span = last - first + 1;
    let step = [1, 2, 5, 10, 20, 25, 50, 100, 200, 500]
        .into_iter()
        .find(|&step| span / step < YEAR_TICKS)
        .unwrap_or(1000);
    let ticks: Vec<i32> = (first..=last).filter(|y| y % step == 0).collect();
    if ticks.is_empty() { vec![first] } else { ticks }
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
    fn the_chart_names_whole_years_on_a_time_axis() {
        let y = |year, games| YearCount {
            year: Some(year),
            games,
            black_wins: 0,
            white_wins: 0,
        };
        let svg = history_svg(&[y(1846, 1), y(1990, 5), y(2020, 10)], "games");
        roxmltree::Document::parse(&svg).unwrap();
        let labels: Vec<String> = roxmltree::Document::parse(&svg)
            .unwrap()
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text().map(str::to_string))
            .collect();
        // The count axis (the tallest bar, 0), then the years, four digits.
        assert_eq!(labels, ["10", "0", "1850", "1900", "1950", "2000"]);
        // The bars stand where their years are: 1990 is 144 of 175 slots in.
        let xs: Vec<f64> = roxmltree::Document::parse(&svg)
            .unwrap()
            .descendants()
            .filter(|n| n.attribute("class") == Some("hit"))
            .map(|n| n.attribute("x").unwrap().parse().unwrap())
            .collect();
        let slot = (640.0 - 48.0) / 175.0;
        assert!((xs[1] - xs[0] - 144.0 * slot).abs() < 0.2, "{xs:?}");
        assert_eq!(year_ticks(2001, 2003), [2001, 2002, 2003]);
        assert_eq!(year_ticks(2001, 2001), [2001]);
        assert_eq!(year_ticks(1995, 2024), [1995, 2000, 2005, 2010, 2015, 2020]);
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
