//! Game information as its writers meant it (go-rules.md, "Metadata"):
//! komi in the conventions of real servers, and ranks as an ordered value.
//! The record's own text is always kept beside the normalised value.

use std::fmt;

use keil_rules::HalfPoints;

/// A Go komi read as its writer meant it: [`read_komi`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Komi {
    /// The komi, in half-points.
    pub value: HalfPoints,
    /// Whether a server convention changed the number written (Fox's
    /// hundredths, Chinese counting in stones): warning `komi_rescaled`.
    pub rescaled: bool,
}

/// Reads a `KM` value as its writer meant it (go-rules.md, "Metadata"; the
/// conventions are those that KataGo's, Sabaki's and Ogatak's readers apply
/// to Fox and Chinese records):
///
/// 1. The text is folded: white space trimmed, full-width digits, signs and
///    point (`７．５`), a decimal comma (`6,5`), `½` or ` 1/2` for a half
///    (`5 1/2`), trailing zeros (`7.500000`).
/// 2. **Fox's hundredths**: a whole number written without a point, at least
///    50 in absolute value and a multiple of 25, is hundredths: `KM[750]` is
///    7.5, `KM[650]` 6.5, `KM[550]` 5.5, `KM[50]` 0.5, `KM[375]` 3.75.
/// 3. **Counting in stones** (Chinese rules, Fox's `KM[375]`): a komi whose
///    fraction is .25 or .75 is in stones and doubled: 3.75 is 7.5, 3.25 is
///    6.5.
///
/// Steps 2 and 3 set [`Komi::rescaled`]. `None` for an empty value (`KM[]`)
/// or one that does not read as a multiple of 0.5 after these steps
/// (`KM[6.3]`, `KM[abc]`).
pub fn read_komi(text: &str) -> Option<Komi> {
    let folded = fold_number(text);
    let (negative, digits) = match folded.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, folded.strip_prefix('+').unwrap_or(&folded)),
    };
    let (whole, fraction) = match digits.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (digits, None),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(whole)
        || !fraction.is_none_or(all_digits)
        || (whole.is_empty() && fraction.is_none_or(str::is_empty))
        || whole.len() > 6
    {
        return None;
    }
    let whole_value: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    // The value in hundredths; digits past the second must be zeros.
    let hundredths_of_fraction = match fraction {
        None => 0,
        Some(f) => {
            if f.bytes().skip(2).any(|b| b != b'0') {
                return None;
            }
            let two: String = f.chars().chain("00".chars()).take(2).collect();
            two.parse::<i64>().ok()?
        }
    };
    let mut hundredths = whole_value * 100 + hundredths_of_fraction;
    let mut rescaled = false;
    if fraction.is_none() && whole_value >= 50 && whole_value % 25 == 0 {
        hundredths = whole_value;
        rescaled = true;
    }
    if hundredths % 50 == 25 {
        hundredths *= 2;
        rescaled = true;
    }
    if hundredths % 50 != 0 {
        return None;
    }
    let half_points = i32::try_from(hundredths / 50).ok()?;
    Some(Komi {
        value: HalfPoints(if negative { -half_points } else { half_points }),
        rescaled,
    })
}

/// Folds a written number: full-width forms to ASCII, a decimal comma to a
/// point, a written half (`½`, ` 1/2`) to `.5`, white space trimmed.
fn fold_number(text: &str) -> String {
    let mut out: String = text
        .trim()
        .chars()
        .map(|c| match c {
            '０'..='９' => char::from(b'0' + (c as u32 - '０' as u32) as u8),
            '．' | '，' | ',' => '.',
            '－' | '−' => '-',
            '＋' => '+',
            c => c,
        })
        .collect();
    for half in [" 1/2", "1/2", "½"] {
        if let Some(stem) = out.strip_suffix(half) {
            let stem = stem.trim_end();
            out = if stem.contains('.') {
                // `5.½` is no number.
                String::new()
            } else {
                format!("{stem}.5")
            };
            break;
        }
    }
    out
}

/// A player's rank, ordered kyu < dan < professional (go-rules.md,
/// "Metadata"): `30k`…`1k`, `1d`…`9d`, `1p`…`9p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rank {
    /// A kyu rank, 30 (weakest) to 1.
    Kyu(u8),
    /// An amateur dan rank, 1 to 9.
    Dan(u8),
    /// A professional dan rank, 1 to 9.
    Pro(u8),
}

impl Rank {
    /// Reads a `BR`/`WR` value (go-rules.md, "Metadata"): `9d`, `9 dan`,
    /// `9段` (Chinese and Japanese dan), `9단` (Korean) are amateur dan;
    /// `9p`, `P9`, `P9段`, `9 pro`, `9p段` professional; `14k`, `14 kyu`,
    /// `14级`/`14級` (Chinese, Japanese), `14급` (Korean) kyu. Case and white
    /// space are ignored, and a trailing `*`, `?`, `+` or `-` (an uncertain
    /// or approximate rank) is dropped. `None` for anything else (`NR`,
    /// `-`, an empty value, a rank out of range such as `35k` or `10d`).
    pub fn parse(text: &str) -> Option<Rank> {
        let lower = text.trim().to_lowercase();
        let t = lower.trim_end_matches(['*', '?', '+', '-', ' ']);
        // `P9`, `P9段`, `p9p`: professional with the letter first.
        if let Some(rest) = t.strip_prefix('p') {
            let (n, unit) = split_number(rest)?;
            return matches!(unit, "" | "段" | "p" | "dan" | "단")
                .then_some(())
                .and_then(|()| Rank::pro(n));
        }
        let (n, unit) = split_number(t)?;
        match unit {
            "d" | "dan" | "段" | "단" => Rank::dan(n),
            "p" | "pro" | "p段" | "pro dan" => Rank::pro(n),
            "k" | "kyu" | "级" | "級" | "급" => Rank::kyu(n),
            _ => None,
        }
    }

    fn kyu(n: u32) -> Option<Rank> {
        (1..=30).contains(&n).then_some(Rank::Kyu(n as u8))
    }

    fn dan(n: u32) -> Option<Rank> {
        (1..=9).contains(&n).then_some(Rank::Dan(n as u8))
    }

    fn pro(n: u32) -> Option<Rank> {
        (1..=9).contains(&n).then_some(Rank::Pro(n as u8))
    }

    /// The rank as one ordered integer: 30k is 1, 1k 30, 1d 31, 9d 39, 1p
    /// 41, 9p 49 (stored and compared by the archive).
    pub fn ordinal(self) -> u8 {
        match self {
            Rank::Kyu(k) => 31 - k,
            Rank::Dan(d) => 30 + d,
            Rank::Pro(p) => 40 + p,
        }
    }

    /// The rank of an [`ordinal`](Self::ordinal); `None` out of range.
    pub fn from_ordinal(n: u8) -> Option<Rank> {
        match n {
            1..=30 => Some(Rank::Kyu(31 - n)),
            31..=39 => Some(Rank::Dan(n - 30)),
            41..=49 => Some(Rank::Pro(n - 40)),
            _ => None,
        }
    }
}

impl Ord for Rank {
    /// Weakest first: 30k < 1k < 1d < 9d < 1p < 9p.
    fn cmp(&self, other: &Rank) -> std::cmp::Ordering {
        self.ordinal().cmp(&other.ordinal())
    }
}

impl PartialOrd for Rank {
    fn partial_cmp(&self, other: &Rank) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A number and the unit after it, white space between them ignored:
/// `14 kyu` is (14, "kyu").
fn split_number(t: &str) -> Option<(u32, &str)> {
    let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    if end == 0 || end > 2 {
        return None;
    }
    let n = t[..end].parse().ok()?;
    Some((n, t[end..].trim()))
}

impl fmt::Display for Rank {
    /// `14k`, `9d`, `9p`: the form [`Rank::parse`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rank::Kyu(k) => write!(f, "{k}k"),
            Rank::Dan(d) => write!(f, "{d}d"),
            Rank::Pro(p) => write!(f, "{p}p"),
        }
    }
}

impl serde::Serialize for Rank {
    /// As its text: `"9d"`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl std::str::FromStr for Rank {
    type Err = String;

    fn from_str(s: &str) -> Result<Rank, String> {
        Rank::parse(s).ok_or_else(|| format!("{s:?} is not a rank such as 14k, 3d or 9p"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn komi(text: &str) -> Option<(f64, bool)> {
        read_komi(text).map(|k| (f64::from(k.value.0) / 2.0, k.rescaled))
    }

    #[test]
    fn komi_is_read_as_its_writer_meant_it() {
        // As written.
        for (text, value) in [
            ("6.5", 6.5),
            ("7.50", 7.5),
            ("7.500000", 7.5),
            ("0", 0.0),
            ("0.5", 0.5),
            ("-59.5", -59.5),
            (" 5.5 ", 5.5),
            ("5 1/2", 5.5),
            ("6½", 6.5),
            ("6,5", 6.5),
            ("７．５", 7.5),
            ("-7", -7.0),
            ("25", 25.0),
            ("45", 45.0),
        ] {
            assert_eq!(komi(text), Some((value, false)), "{text}");
        }
        // Fox's hundredths and counting in stones.
        for (text, value) in [
            ("750", 7.5),
            ("650", 6.5),
            ("550", 5.5),
            ("50", 0.5),
            ("375", 7.5),
            ("325", 6.5),
            ("3.75", 7.5),
            ("-375", -7.5),
        ] {
            assert_eq!(komi(text), Some((value, true)), "{text}");
        }
        for text in [
            "", "abc", "6.3", "7.55", "1/2x", "1e3", "-", ".", "7.5.5", "5.½",
        ] {
            assert_eq!(komi(text), None, "{text}");
        }
    }

    #[test]
    fn ranks_of_real_records_are_read_and_ordered() {
        for (text, rank) in [
            ("9段", "9d"),
            ("P9", "9p"),
            ("9d", "9d"),
            ("9p", "9p"),
            ("P8段", "8p"),
            ("15级", "15k"),
            ("9P", "9p"),
            ("7d*", "7d"),
            ("25k?", "25k"),
            ("12k ", "12k"),
            ("P9p", "9p"),
            ("9 Dan", "9d"),
            ("11k+", "11k"),
            ("1級", "1k"),
            ("3단", "3d"),
            ("4급", "4k"),
            ("30k", "30k"),
        ] {
            assert_eq!(
                Rank::parse(text).map(|r| r.to_string()).as_deref(),
                Some(rank),
                "{text}"
            );
        }
        for text in [
            "", "NR", "-", "?", "31k", "10d", "0k", "P10", "pro", "d9", "9x", "123k",
        ] {
            assert_eq!(Rank::parse(text), None, "{text}");
        }
        let order: Vec<Rank> = ["30k", "1k", "1d", "9d", "1p", "9p"]
            .iter()
            .map(|t| t.parse().unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]));
        for n in 0..=60 {
            if let Some(r) = Rank::from_ordinal(n) {
                assert_eq!(r.ordinal(), n);
                assert_eq!(Rank::parse(&r.to_string()), Some(r));
            }
        }
    }
}
