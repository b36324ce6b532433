//! A player's results per year, drawn as an SVG bar chart on the server
//! (no script, no inline style: presentation attributes and classes).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use keil_archive::YearRecord;

/// Wins, losses and other results (draws, no result) per year.
#[derive(Default)]
pub(super) struct Years {
    by_year: BTreeMap<i32, [u64; 3]>,
    undated: [u64; 3],
}

impl Years {
    /// The archive's per-year records of a player.
    pub(super) fn from_records(records: &[YearRecord]) -> Years {
        let mut out = Years::default();
        for r in records {
            let counts = [r.wins, r.losses, r.games.saturating_sub(r.wins + r.losses)];
            match r.year {
                Some(y) => {
                    out.by_year.insert(y, counts);
                }
                None => out.undated = counts,
            }
        }
        out
    }

    /// The chart: per year, a green bar of wins, a red bar of losses and a
    /// grey one of other results, each with its count and a `<title>`.
    pub(super) fn svg(&self, name: &str) -> String {
        let years: Vec<(String, [u64; 3])> = self
            .by_year
            .iter()
            .map(|(y, c)| (y.to_string(), *c))
            .chain((self.undated != [0; 3]).then(|| ("undated".to_string(), self.undated)))
            .collect();
        if years.is_empty() {
            return "<p class=\"muted\">No games.</p>".into();
        }
        let max = years
            .iter()
            .flat_map(|(_, c)| c.iter().copied())
            .max()
            .unwrap_or(1)
            .max(1);
        let (bar, gap, plot, top, bottom) = (14.0, 18.0, 160.0, 18.0, 24.0);
        let group = 3.0 * bar + gap;
        let w = 40.0 + group * years.len() as f64;
        let h = top + plot + bottom;
        let mut s = String::new();
        let label = format!(
            "Results per year of {}: {}",
            escape(name),
            years
                .iter()
                .map(|(y, c)| format!("{y}: {} won, {} lost, {} other", c[0], c[1], c[2]))
                .collect::<Vec<_>>()
                .join("; ")
        );
        let _ = write!(
            s,
            r##"<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.0} {h:.0}" width="{w:.0}" height="{h:.0}" role="img" aria-label="{label}" font-family="sans-serif" font-size="11"><title>{label}</title><line x1="20" y1="{:.0}" x2="{:.0}" y2="{:.0}" stroke="#888"/>"##,
            top + plot,
            w - 10.0,
            top + plot
        );
        for (i, (year, counts)) in years.iter().enumerate() {
            let x0 = 30.0 + group * i as f64;
            for (k, (class, what)) in [("wins", "won"), ("losses", "lost"), ("other", "other")]
                .iter()
                .enumerate()
            {
                let n = counts[k];
                let bh = plot * n as f64 / max as f64;
                let x = x0 + bar * k as f64;
                let _ = write!(
                    s,
                    r#"<rect class="{class}" x="{x:.1}" y="{:.1}" width="{:.1}" height="{bh:.1}"><title>{year}: {n} {what}</title></rect>"#,
                    top + plot - bh,
                    bar - 2.0
                );
                if n > 0 {
                    let _ = write!(
                        s,
                        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="9">{n}</text>"#,
                        x + (bar - 2.0) / 2.0,
                        top + plot - bh - 3.0
                    );
                }
            }
            let _ = write!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{year}</text>"#,
                x0 + 1.5 * bar,
                top + plot + 16.0
            );
        }
        s.push_str("</svg>");
        s
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_result_in_its_year_and_escapes_the_name() {
        let rec = |year, games, wins, losses| YearRecord {
            year,
            games,
            wins,
            losses,
        };
        let y = Years::from_records(&[
            rec(Some(2020), 2, 1, 1),
            rec(Some(2021), 1, 0, 0),
            rec(None, 1, 1, 0),
        ]);
        let svg = y.svg("<script>x</script>");
        assert!(svg.contains("2020: 1 won, 1 lost, 0 other"));
        assert!(svg.contains("undated: 1 won"));
        assert!(!svg.contains("<script>"));
        roxmltree::Document::parse(&svg).unwrap();
    }
}
