//! Game information: players, dates, event, result (record-format.md,
//! "Properties with Keil meaning").

use std::fmt;
use std::str::FromStr;

use chrono::NaiveDate;
use keil_rules::{Color, HalfPoints};

/// The game information of a record's root node. Every field is the text as
/// the record wrote it (SGF SimpleText or Text, escapes applied), or `None`
/// when the property is absent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameInfo {
    /// `PB`: Black's name.
    pub black: Option<String>,
    /// `PW`: White's name.
    pub white: Option<String>,
    /// `BR`: Black's rank.
    pub black_rank: Option<String>,
    /// `WR`: White's rank.
    pub white_rank: Option<String>,
    /// `BT`: Black's team.
    pub black_team: Option<String>,
    /// `WT`: White's team.
    pub white_team: Option<String>,
    /// `DT`: the date or dates played.
    pub date: Option<GameDate>,
    /// `EV`: event.
    pub event: Option<String>,
    /// `RO`: round.
    pub round: Option<String>,
    /// `PC`: place.
    pub place: Option<String>,
    /// `GN`: game name.
    pub game_name: Option<String>,
    /// `SO`: source.
    pub source: Option<String>,
    /// `US`: user (who entered the record).
    pub user: Option<String>,
    /// `AN`: annotator.
    pub annotator: Option<String>,
    /// `CP`: copyright.
    pub copyright: Option<String>,
    /// `ON`: opening.
    pub opening: Option<String>,
    /// `GC`: comment about the game as a whole.
    pub comment: Option<String>,
    /// `TM`: time limit, as written (seconds in FF\[4\]).
    pub time_limit: Option<String>,
    /// `OT`: overtime.
    pub overtime: Option<String>,
    /// `RE`: the result the record claims.
    pub result: Option<GameResult>,
}

/// How precise a [`GameDate`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DatePrecision {
    /// `2019-12-08`.
    Day,
    /// `2019-12`.
    Month,
    /// `2019`.
    Year,
}

/// An SGF date list (`DT`): `2019-12-08`, partial dates `2019-12` or `2019`,
/// lists such as `2019-12-08,09` or `2019-12-30,2020-01-02`.
///
/// The text is kept as written; [`GameDate::first`] is the first date of the
/// list read with `chrono`, a partial date read as its first day.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameDate {
    raw: String,
    first: Option<(NaiveDate, DatePrecision)>,
}

impl GameDate {
    /// Reads a `DT` value. Never fails: a value that is no date keeps its
    /// text and has no [`first`](Self::first) date.
    pub fn new(raw: impl Into<String>) -> GameDate {
        let raw = raw.into();
        let first = parse_first_date(&raw);
        GameDate { raw, first }
    }

    /// The value as written.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// The first date of the list; for a partial date its first day
    /// (`2019-12` gives 2019-12-01). `None` when the value starts with no
    /// readable date.
    pub fn first(&self) -> Option<NaiveDate> {
        self.first.map(|(d, _)| d)
    }

    /// How precise the first date is.
    pub fn precision(&self) -> Option<DatePrecision> {
        self.first.map(|(_, p)| p)
    }
}

impl fmt::Display for GameDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

/// The first date of a `DT` value (go-rules.md, "Metadata"): the first item
/// of a list (`2019-12-14,15`), with `.` or `/` as separators and a time
/// after it ignored (Fox's `2017.01.02 12:30`, `2017-01-02T12:30:00`);
/// else the first date in free text (`summer 2019` is 2019), a date being
/// four digits that no other digit touches, then an optional month and
/// day.
fn parse_first_date(raw: &str) -> Option<(NaiveDate, DatePrecision)> {
    if let Some(d) = date_at_start(raw.split(',').next()?.trim()) {
        return Some(d);
    }
    let bytes = raw.as_bytes();
    (0..bytes.len().saturating_sub(3))
        .filter(|&i| {
            bytes[i..i + 4].iter().all(u8::is_ascii_digit)
                && (i == 0 || !bytes[i - 1].is_ascii_digit())
                && bytes.get(i + 4).is_none_or(|b| !b.is_ascii_digit())
        })
        .find_map(|i| date_at_start(&raw[i..]))
}

/// The date that `s` starts with: `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, with
/// `-`, `.` or `/` between the parts, up to the first other character.
fn date_at_start(s: &str) -> Option<(NaiveDate, DatePrecision)> {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '.' | '/')))
        .unwrap_or(s.len());
    let first = s[..end]
        .trim_end_matches(['-', '.', '/'])
        .replace(['.', '/'], "-");
    if let Ok(d) = NaiveDate::parse_from_str(&first, "%Y-%m-%d") {
        return Some((d, DatePrecision::Day));
    }
    let mut parts = first.split('-');
    let year = parts.next()?;
    if year.len() != 4 || !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let year: i32 = year.parse().ok()?;
    match (parts.next(), parts.next()) {
        (None, _) => NaiveDate::from_ymd_opt(year, 1, 1).map(|d| (d, DatePrecision::Year)),
        (Some(m), None) if m.len() == 2 => {
            let month: u32 = m.parse().ok()?;
            NaiveDate::from_ymd_opt(year, month, 1).map(|d| (d, DatePrecision::Month))
        }
        _ => None,
    }
}

/// How a game was won (the part of `RE` after `B+` or `W+`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WinBy {
    /// By this many points on the count (`B+3.5`).
    Score(HalfPoints),
    /// Go: by a margin that is not a whole number of half-points (`W+0.02`,
    /// `B+1.25`), kept exactly as written (go-rules.md: a score is any
    /// positive number). A score all the same: the game is `scored`; see
    /// [`FineMargin`] for what a verdict reports of it.
    FineScore(FineMargin),
    /// By resignation (`B+R`, also read from `B+Resign`).
    Resign,
    /// On time (`B+T`, also `B+Time`).
    Time,
    /// By forfeit (`B+F`, also `B+Forfeit`).
    Forfeit,
    /// The margin is not given (`B+`).
    Unspecified,
}

/// A positive margin that is not a whole number of half-points, as a Go
/// `RE` writes it (`W+0.02`, `B+0.2`, `W+1.25`: Fox and Chinese-rules
/// records), exactly: `digits / 10^scale`, without trailing zeros.
///
/// The archive holds margins in [`HalfPoints`] and never rounds one into a
/// margin the record does not say: a verdict on such a result names its
/// winner and gives **no margin** (`margin` `null` in `keil validate
/// --json`, as for `B+`), while the record's [`GameResult`] keeps the
/// margin as written (its [`Display`](fmt::Display) writes `W+0.02`). Where
/// the result is checked (tromp-taylor, kee), it never equals a computed
/// margin, which is always a whole number of half-points: a
/// `result_mismatch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FineMargin {
    digits: u64,
    scale: u8,
}

impl FineMargin {
    /// The most decimals a fine margin may have (after trailing zeros are
    /// dropped); a value with more is no result this crate reads.
    pub const MAX_DECIMALS: u8 = 9;

    /// Reads a positive decimal number that is not a whole number of
    /// half-points: digits, optionally `.` and digits (`0.02`, `.25`,
    /// `1.250`), the whole part no larger than a [`HalfPoints`] margin can
    /// be, at most [`FineMargin::MAX_DECIMALS`] decimals. `None` for
    /// anything else: a sign, an exponent (`1e9`), `inf`, `NaN`, zero, and
    /// multiples of 0.5 (those are [`WinBy::Score`]).
    pub fn parse(s: &str) -> Option<FineMargin> {
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let frac = frac.trim_end_matches('0');
        if frac.is_empty() || frac == "5" || frac.len() > usize::from(Self::MAX_DECIMALS) {
            return None;
        }
        // Digits only, so `parse` fails on overflow alone.
        let whole: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
        // The same range as a HalfPoints margin (i32 half-points).
        if whole > (i32::MAX as u64) / 2 {
            return None;
        }
        let scale = frac.len() as u8;
        let digits = whole * 10u64.pow(u32::from(scale)) + frac.parse::<u64>().ok()?;
        Some(FineMargin { digits, scale })
    }

    /// The margin in points, for display (approximate: `0.1` has no exact
    /// binary form).
    pub fn as_f64(self) -> f64 {
        self.digits as f64 / 10f64.powi(i32::from(self.scale))
    }
}

impl fmt::Display for FineMargin {
    /// The shortest decimal form: `0.02`, `1.25`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = 10u64.pow(u32::from(self.scale));
        let (whole, frac) = (self.digits / unit, self.digits % unit);
        write!(f, "{whole}.{frac:0width$}", width = usize::from(self.scale))
    }
}

/// A result as `RE` writes it (record-format.md: `B+3.5`, `W+0.5`, `B+R`,
/// `W+T`, `B+F`, `0`, `Void`, `?`).
///
/// [`Display`](fmt::Display) writes the canonical form, which
/// [`FromStr`] reads back to the same value ([`GameResult::parse_go`] for
/// a Go result with a [`WinBy::FineScore`], which Keil does not read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// A player won.
    Win {
        /// The winner.
        winner: Color,
        /// How.
        by: WinBy,
    },
    /// A draw (jigo): `0`, also read from `Draw` and `Jigo`.
    Draw,
    /// No result (`Void`).
    Void,
    /// The result is not known (`?`).
    Unknown,
}

impl GameResult {
    /// The winner, if the result names one.
    pub fn winner(&self) -> Option<Color> {
        match self {
            GameResult::Win { winner, .. } => Some(*winner),
            _ => None,
        }
    }
}

/// Why an `RE` value could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("result {0:?} is not a Keil result (expected B+3.5, W+R, B+T, W+F, 0, Void or ?)")]
pub struct ResultError(pub String);

/// Why a result written to search by (a list's result filter) could not
/// be read: its text, and the forms that are.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a result: write B+3.5, W+R (or W+Resign), B+T, W+F, 0 (or Draw, Jigo), Void or ?, in any case"
)]
pub struct UnreadResult(pub String);

impl GameResult {
    /// Reads a result as a person writes it to search by: any form
    /// [`GameResult::parse_go`] reads, which holds every form a Keil
    /// record's `RE` may take. Its `Display` is the form the archive
    /// stores (go-rules.md, "End of the game and the result": `W+Resign`
    /// is `W+R`, `Jigo` and `Draw` are `0`), so a filter matches every
    /// spelling of one result.
    ///
    /// # Errors
    /// [`UnreadResult`] for anything else (`B`, `john wins`).
    pub fn parse_any(s: &str) -> Result<GameResult, UnreadResult> {
        GameResult::parse_go(s).ok_or_else(|| UnreadResult(s.to_string()))
    }
}

impl FromStr for GameResult {
    type Err = ResultError;

    /// Reads `B+3.5`, `W+R`/`W+Resign`, `B+T`/`B+Time`, `W+F`/`W+Forfeit`,
    /// `B+`, `0`/`Draw`/`Jigo`, `Void`, `?` (letters in any case, white space
    /// around ignored).
    fn from_str(s: &str) -> Result<GameResult, ResultError> {
        let t = s.trim();
        let err = || ResultError(s.to_string());
        if t == "?" {
            return Ok(GameResult::Unknown);
        }
        if t == "0" || t.eq_ignore_ascii_case("draw") || t.eq_ignore_ascii_case("jigo") {
            return Ok(GameResult::Draw);
        }
        if t.eq_ignore_ascii_case("void") {
            return Ok(GameResult::Void);
        }
        let (who, how) = t.split_once('+').ok_or_else(err)?;
        let winner = match who.trim() {
            "B" | "b" => Color::Black,
            "W" | "w" => Color::White,
            _ => return Err(err()),
        };
        let how = how.trim();
        let by = match how.to_ascii_lowercase().as_str() {
            "" => WinBy::Unspecified,
            "r" | "resign" => WinBy::Resign,
            "t" | "time" => WinBy::Time,
            "f" | "forfeit" => WinBy::Forfeit,
            _ => WinBy::Score(how.parse::<HalfPoints>().map_err(|_| err())?),
        };
        Ok(GameResult::Win { winner, by })
    }
}

impl GameResult {
    /// Reads the `RE` of a Go record (go-rules.md, "End of the game and the
    /// result"), case-insensitively: `0`, `Draw`, `Jigo`, `D`, `B+0`, `W+0`
    /// a draw; `B+R`/`B+Resign`, `B+T`/`B+Time`, `B+F`/`B+Forfeit`, and the
    /// servers' `B+I`/`B+Illegal` read as a forfeit; `B+3.5` a score (any
    /// positive number: a multiple of 0.5 is a [`WinBy::Score`], another
    /// one such as `W+0.02` a [`WinBy::FineScore`]); `B+` a winner with no
    /// margin; `Void`; `?`. White space around the value and around `+` is
    /// ignored.
    ///
    /// `None` for anything else (`B`, `B+AW`, `john wins`, a sign `B+-3`,
    /// an exponent `B+1e9`, `B+inf`, `B+NaN`, a margin too large for
    /// [`HalfPoints`]): an unparsed result, which a Go verdict reports as
    /// written and never compares (unlike a Keil record, where it is an
    /// error).
    pub fn parse_go(s: &str) -> Option<GameResult> {
        let t = s.trim();
        let lower = t.to_ascii_lowercase();
        match lower.as_str() {
            "?" => return Some(GameResult::Unknown),
            "0" | "draw" | "jigo" | "d" => return Some(GameResult::Draw),
            "void" => return Some(GameResult::Void),
            _ => {}
        }
        let (who, how) = lower.split_once('+')?;
        let winner = match who.trim() {
            "b" => Color::Black,
            "w" => Color::White,
            _ => return None,
        };
        let by = match how.trim() {
            "" => WinBy::Unspecified,
            "r" | "resign" => WinBy::Resign,
            "t" | "time" => WinBy::Time,
            "f" | "forfeit" | "i" | "illegal" => WinBy::Forfeit,
            n => {
                if n.starts_with(['+', '-']) {
                    return None;
                }
                match n.parse::<HalfPoints>() {
                    Ok(HalfPoints(0)) => return Some(GameResult::Draw),
                    Ok(m) if m.0 > 0 => WinBy::Score(m),
                    Ok(_) => return None,
                    Err(_) => WinBy::FineScore(FineMargin::parse(n)?),
                }
            }
        };
        Some(GameResult::Win { winner, by })
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameResult::Win { winner, by } => {
                write!(f, "{}+", winner.letter())?;
                match by {
                    WinBy::Score(m) => write!(f, "{m}"),
                    WinBy::FineScore(m) => write!(f, "{m}"),
                    WinBy::Resign => f.write_str("R"),
                    WinBy::Time => f.write_str("T"),
                    WinBy::Forfeit => f.write_str("F"),
                    WinBy::Unspecified => Ok(()),
                }
            }
            GameResult::Draw => f.write_str("0"),
            GameResult::Void => f.write_str("Void"),
            GameResult::Unknown => f.write_str("?"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_round_trip() {
        for s in [
            "B+3.5", "W+0.5", "B+R", "W+T", "B+F", "W+", "0", "Void", "?", "B+12",
        ] {
            let r: GameResult = s.parse().unwrap();
            assert_eq!(r.to_string(), s);
            assert_eq!(r.to_string().parse::<GameResult>().unwrap(), r);
        }
        assert_eq!("W+Resign".parse::<GameResult>().unwrap().to_string(), "W+R");
        assert_eq!("Jigo".parse::<GameResult>().unwrap(), GameResult::Draw);
        for bad in ["B+3.25", "X+R", "B", "Black wins", ""] {
            assert!(bad.parse::<GameResult>().is_err(), "{bad}");
        }
    }

    #[test]
    fn go_results_are_read_leniently() {
        let win = |winner, by| Some(GameResult::Win { winner, by });
        let score = |h| WinBy::Score(HalfPoints(h));
        let fine = |m| WinBy::FineScore(FineMargin::parse(m).unwrap());
        for (s, want) in [
            ("B+R", win(Color::Black, WinBy::Resign)),
            ("w+resign", win(Color::White, WinBy::Resign)),
            ("B+Time", win(Color::Black, WinBy::Time)),
            ("W+F", win(Color::White, WinBy::Forfeit)),
            ("B+I", win(Color::Black, WinBy::Forfeit)),
            ("b+illegal", win(Color::Black, WinBy::Forfeit)),
            ("B+3.5", win(Color::Black, score(7))),
            ("W+2.50", win(Color::White, score(5))),
            ("B+", win(Color::Black, WinBy::Unspecified)),
            (" W + 12 ", win(Color::White, score(24))),
            ("W+0.02", win(Color::White, fine("0.02"))),
            ("b+3.25", win(Color::Black, fine("3.25"))),
            ("B+0.2", win(Color::Black, fine("0.2"))),
            ("W+1.250", win(Color::White, fine("1.25"))),
            ("W+.75", win(Color::White, fine("0.75"))),
            (
                "W+1073741823.001",
                win(Color::White, fine("1073741823.001")),
            ),
            ("W+0", Some(GameResult::Draw)),
            ("W+0.000", Some(GameResult::Draw)),
            ("0", Some(GameResult::Draw)),
            ("DRAW", Some(GameResult::Draw)),
            ("jigo", Some(GameResult::Draw)),
            ("D", Some(GameResult::Draw)),
            ("B+0", Some(GameResult::Draw)),
            ("W+0.0", Some(GameResult::Draw)),
            ("void", Some(GameResult::Void)),
            ("?", Some(GameResult::Unknown)),
        ] {
            assert_eq!(GameResult::parse_go(s), want, "{s}");
        }
        for unparsed in [
            "B",
            "W",
            "B+AW",
            "W+J",
            "D+J",
            "john wins",
            "B+-3",
            "B+-3.25",
            "W+-0",
            "W++0.02",
            "W+abc",
            "W+1e9",
            "W+inf",
            "W+NaN",
            "W+0.0000000001",
            "W+1073741824",
            "W+1073741823.5x",
            "",
            "X+R",
        ] {
            assert_eq!(GameResult::parse_go(unparsed), None, "{unparsed}");
        }
    }

    #[test]
    fn fine_margins_are_kept_as_written() {
        for (s, shown, approx) in [
            ("0.02", "0.02", 0.02),
            ("3.250", "3.25", 3.25),
            (".1", "0.1", 0.1),
            ("12.000000001", "12.000000001", 12.000000001),
        ] {
            let m = FineMargin::parse(s).unwrap();
            assert_eq!(m.to_string(), shown, "{s}");
            assert_eq!(FineMargin::parse(shown), Some(m));
            assert!((m.as_f64() - approx).abs() < 1e-12, "{s}");
        }
        // Whole numbers of half-points are WinBy::Score; no signs, no
        // exponents, no more than nine decimals.
        for not in [
            "0",
            "0.0",
            "3",
            "3.5",
            "3.50",
            "",
            ".",
            "-0.02",
            "+0.02",
            "1e-2",
            "inf",
            "nan",
            "0.1.2",
            "0.0000000001",
        ] {
            assert_eq!(FineMargin::parse(not), None, "{not}");
        }
        // Keil results stay multiples of 0.5.
        assert!("W+0.02".parse::<GameResult>().is_err());
    }

    #[test]
    fn dates_keep_their_text_and_read_the_first_date() {
        let d = GameDate::new("2019-12-08,09");
        assert_eq!(d.raw(), "2019-12-08,09");
        assert_eq!(d.first(), NaiveDate::from_ymd_opt(2019, 12, 8));
        assert_eq!(d.precision(), Some(DatePrecision::Day));
        let m = GameDate::new("2019-12");
        assert_eq!(m.first(), NaiveDate::from_ymd_opt(2019, 12, 1));
        assert_eq!(m.precision(), Some(DatePrecision::Month));
        let y = GameDate::new("2019");
        assert_eq!(y.first(), NaiveDate::from_ymd_opt(2019, 1, 1));
        assert_eq!(GameDate::new("2019-13-01").first(), None);
        // Real writers: Fox's dots and times, ISO times, free text.
        for (text, day, precision) in [
            ("2017.01.02 12:30", (2017, 1, 2), DatePrecision::Day),
            ("2017-01-02 12:30:00", (2017, 1, 2), DatePrecision::Day),
            (
                "2016-03-09T04:00:00.000000000+00:00",
                (2016, 3, 9),
                DatePrecision::Day,
            ),
            ("2017/01/02", (2017, 1, 2), DatePrecision::Day),
            ("summer 2019", (2019, 1, 1), DatePrecision::Year),
            ("played 1846-09-11,13", (1846, 9, 11), DatePrecision::Day),
            ("1846-09-11,13,15", (1846, 9, 11), DatePrecision::Day),
        ] {
            let d = GameDate::new(text);
            assert_eq!(d.raw(), text);
            assert_eq!(
                d.first(),
                NaiveDate::from_ymd_opt(day.0, day.1, day.2),
                "{text}"
            );
            assert_eq!(d.precision(), Some(precision), "{text}");
        }
        for text in [
            "a sunny afternoon last summer",
            "99th and 99th march 99",
            "12345",
            "",
        ] {
            assert_eq!(GameDate::new(text).first(), None, "{text}");
        }
    }

    #[test]
    fn a_result_to_search_by_reads_as_the_archive_stores_it() {
        for (written, stored) in [
            ("Jigo", "0"),
            ("draw", "0"),
            ("0", "0"),
            ("w+r", "W+R"),
            ("W+Resign", "W+R"),
            (" b+3.5 ", "B+3.5"),
            ("B+Time", "B+T"),
            ("void", "Void"),
        ] {
            assert_eq!(
                GameResult::parse_any(written).unwrap().to_string(),
                stored,
                "{written}"
            );
        }
        let e = GameResult::parse_any("john wins").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("\"john wins\" is not a result: write B+3.5")
        );
    }
}
