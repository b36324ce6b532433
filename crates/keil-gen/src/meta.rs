//! Game information: a fixed pool of recurring players, event series, dates.

use std::sync::OnceLock;

use crate::rng::Rng;

/// The pool's own seed: the same players for every generator seed, so names
/// recur across corpora too.
const POOL_SEED: u64 = 0x4B45_494C_504F_4F4C;
/// Players in the pool.
pub(crate) const POOL_SIZE: usize = 320;

/// A player: name, rank and strength.
#[derive(Clone, Debug)]
pub(crate) struct Player {
    /// The name as written in `PB`/`PW`.
    pub name: String,
    /// The rank as written in `BR`/`WR`: `15k` … `1k`, `1d` … `7d`.
    pub rank: String,
    /// Strength, 0 (30 kyu) to 36 (7 dan).
    pub level: u32,
    /// The region of the player's home club (an index into `REGIONS`).
    pub region: usize,
}

/// A culture: given names, family names, and how a full name is written.
struct Culture {
    given: &'static [&'static str],
    family: &'static [&'static str],
    /// Family name first, no space (Chinese, Japanese).
    family_first_joined: bool,
    region: usize,
}

/// Regions: index → (places where events happen).
pub(crate) const REGIONS: &[&[&str]] = &[
    &["Madrid", "Bogotá", "Sevilla", "Ciudad de México"],
    &["Oslo", "København", "Malmö", "Ålesund", "Reykjavík"],
    &["Москва", "Санкт-Петербург", "Kraków", "Praha"],
    &["北京", "上海", "東京", "大阪", "서울"],
    &["Dublin", "Boston", "Montréal", "Edinburgh"],
    &["Berlin", "Zürich", "Wien", "Köln", "Paris", "Lyon"],
];

const CULTURES: &[Culture] = &[
    Culture {
        given: &[
            "Luis", "María", "José", "Lucía", "Andrés", "Sofía", "Íñigo", "Begoña",
        ],
        family: &[
            "Bolaños", "García", "Núñez", "Ibáñez", "Peña", "Muñoz", "Ortiz", "Castaño",
        ],
        family_first_joined: false,
        region: 0,
    },
    Culture {
        given: &[
            "Søren",
            "Øystein",
            "Åsa",
            "Bjørn",
            "Sigríður",
            "Ingrid",
            "Magnus",
            "Ólafur",
        ],
        family: &[
            "Østergaard",
            "Håkansson",
            "Lindqvist",
            "Jørgensen",
            "Þórsson",
            "Berg",
            "Dahl",
        ],
        family_first_joined: false,
        region: 1,
    },
    Culture {
        given: &["Иван", "Дмитрий", "Сергей", "Алексей"],
        family: &["Иванов", "Смирнов", "Кузнецов", "Попов"],
        family_first_joined: false,
        region: 2,
    },
    Culture {
        given: &[
            "Łukasz",
            "Zuzana",
            "Jiří",
            "Małgorzata",
            "Tomáš",
            "Agnieszka",
        ],
        family: &["Wróbel", "Dvořák", "Kowalczyk", "Novák", "Nowak", "Svoboda"],
        family_first_joined: false,
        region: 2,
    },
    Culture {
        given: &["明", "伟", "芳", "健", "美咲", "翔太", "秀"],
        family: &["李", "王", "张", "田中", "佐藤", "陈", "高橋"],
        family_first_joined: true,
        region: 3,
    },
    Culture {
        given: &["Min-jun", "Seo-yeon", "Ji-ho", "Hana", "Takeshi", "Yuki"],
        family: &["Kim", "Park", "Lee", "Choi", "Yamada", "Nakamura"],
        family_first_joined: false,
        region: 3,
    },
    Culture {
        given: &[
            "Seán", "Aoife", "Siobhán", "Liam", "Fiona", "Connor", "Emma", "Noah",
        ],
        family: &[
            "O'Neil", "O'Brien", "McCarthy", "Murphy", "Walsh", "Smith", "Tremblay",
        ],
        family_first_joined: false,
        region: 4,
    },
    Culture {
        given: &[
            "Jürgen",
            "Zoë",
            "François",
            "Hélène",
            "Jörg",
            "Anaïs",
            "Bärbel",
            "Noël",
        ],
        family: &[
            "Müller",
            "Lefèvre",
            "Schröder",
            "Dubois",
            "Weiß",
            "Gauß",
            "Bérenger",
        ],
        family_first_joined: false,
        region: 5,
    },
];

/// Players known by one name or a club handle, as real records have them.
const SINGLE_NAMES: &[(&str, usize)] = &[
    ("Zoë", 5),
    ("Luis Bolaños", 0),
    ("Иванов", 2),
    ("李明", 3),
    ("Søren", 1),
    ("O'Neil", 4),
    ("J. Smith [2d]", 4),
    ("hex\\master", 5),
];

/// The player pool: the same for every seed.
pub(crate) fn pool() -> &'static [Player] {
    static POOL: OnceLock<Vec<Player>> = OnceLock::new();
    POOL.get_or_init(build_pool)
}

fn rank_of(level: u32) -> String {
    // level 0..=29: 30k..1k; 30..=36: 1d..7d.
    if level < 30 {
        format!("{}k", 30 - level)
    } else {
        format!("{}d", level - 29)
    }
}

fn random_level(rng: &mut Rng) -> u32 {
    // Mostly single-digit kyu, some dan players, a tail of beginners.
    let a = rng.range(8, 36);
    let b = rng.range(8, 36);
    (a + b) / 2
}

fn build_pool() -> Vec<Player> {
    let mut rng = Rng::new(POOL_SEED, 0);
    let mut seen = std::collections::HashSet::new();
    let mut players = Vec::with_capacity(POOL_SIZE);
    for &(name, region) in SINGLE_NAMES {
        seen.insert(name.to_string());
        let level = random_level(&mut rng);
        players.push(Player {
            name: name.to_string(),
            rank: rank_of(level),
            level,
            region,
        });
    }
    while players.len() < POOL_SIZE {
        let c = rng.pick(CULTURES);
        let given = rng.pick(c.given);
        let family = rng.pick(c.family);
        let name = if c.family_first_joined {
            format!("{family}{given}")
        } else {
            format!("{given} {family}")
        };
        if !seen.insert(name.clone()) {
            continue;
        }
        let level = random_level(&mut rng);
        players.push(Player {
            name,
            rank: rank_of(level),
            level,
            region: c.region,
        });
    }
    players
}

/// An event series: held again and again in one region.
pub(crate) struct Series {
    /// The name before the year.
    pub name: &'static str,
    /// Its region (index into `REGIONS`).
    pub region: usize,
}

/// The event series.
pub(crate) const SERIES: &[Series] = &[
    Series {
        name: "Madrid Keil Open",
        region: 0,
    },
    Series {
        name: "Copa Bogotá de Keil",
        region: 0,
    },
    Series {
        name: "Nordic Keil Championship",
        region: 1,
    },
    Series {
        name: "Malmö Hexagon Cup",
        region: 1,
    },
    Series {
        name: "Кубок Москвы по кейлу",
        region: 2,
    },
    Series {
        name: "Kraków Keil Spring",
        region: 2,
    },
    Series {
        name: "东亚 Keil 名人战",
        region: 3,
    },
    Series {
        name: "東京 Keil Meijin",
        region: 3,
    },
    Series {
        name: "Irish Keil Congress",
        region: 4,
    },
    Series {
        name: "Montréal Keil Classic",
        region: 4,
    },
    Series {
        name: "Zürich Keil Turnier",
        region: 5,
    },
    Series {
        name: "European Keil Congress",
        region: 5,
    },
    Series {
        name: "Internet Keil League",
        region: usize::MAX,
    },
];

/// The Go event series: the same regions as Keil's, Go names.
pub(crate) const GO_SERIES: &[Series] = &[
    Series {
        name: "Madrid Go Open",
        region: 0,
    },
    Series {
        name: "Copa Bogotá de Go",
        region: 0,
    },
    Series {
        name: "Nordic Go Championship",
        region: 1,
    },
    Series {
        name: "Malmö Go Cup",
        region: 1,
    },
    Series {
        name: "Кубок Москвы по го",
        region: 2,
    },
    Series {
        name: "Kraków Go Spring",
        region: 2,
    },
    Series {
        name: "东亚围棋名人战",
        region: 3,
    },
    Series {
        name: "東京囲碁 Meijin",
        region: 3,
    },
    Series {
        name: "Irish Go Congress",
        region: 4,
    },
    Series {
        name: "Montréal Go Classic",
        region: 4,
    },
    Series {
        name: "Zürich Go Turnier",
        region: 5,
    },
    Series {
        name: "European Go Congress",
        region: 5,
    },
    Series {
        name: "Internet Go League",
        region: usize::MAX,
    },
];

/// A date as days since 1970-01-01, written `YYYY-MM-DD`.
pub(crate) fn format_date(days: i64) -> String {
    // Civil-from-days over 400-year eras of 146097 days, epoch shifted to
    // 0000-03-01 so that leap days come last in each year.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Days since 1970-01-01 of 2017-01-01: the first date of a corpus.
pub(crate) const FIRST_DAY: i64 = 17_167;
/// The span of a corpus's dates: about eight years.
pub(crate) const SPAN_DAYS: i64 = 8 * 365 + 1;

/// Comments some nodes carry, for full-text search to find.
pub(crate) const COMMENTS: &[&str] = &[
    "Tesuji: the link through the empty point breaks.",
    "Böse Überraschung für Weiß",
    "Слабая группа — надо спасать",
    "这步棋很厉害",
    "Mistake? [White could cut here]",
    "Button now, or one more exchange?",
    "¡Qué jugada! El botón llega tarde.",
    "Path: a1\\b2\\c3 (with backslashes)",
    "Heavy shape. Søren would have passed.",
    "Both groups are alive.",
];

/// Comments some Go nodes carry, for full-text search to find.
pub(crate) const GO_COMMENTS: &[&str] = &[
    "Tesuji: the throw-in makes a false eye.",
    "Böse Überraschung für Weiß",
    "Слабая группа — надо спасать",
    "这步棋很厉害",
    "Mistake? [White could cut at the hane]",
    "Ko threat, or resolve the ko now?",
    "¡Qué jugada! La escalera funciona.",
    "Path: a1\\b2\\c3 (with backslashes)",
    "Heavy shape. Søren would have tenuki'd.",
    "Seki: both groups are alive.",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil() {
        assert_eq!(format_date(0), "1970-01-01");
        assert_eq!(format_date(FIRST_DAY), "2017-01-01");
        assert_eq!(format_date(FIRST_DAY + 31 + 28), "2017-03-01");
        // 2020 is a leap year.
        assert_eq!(format_date(18_321), "2020-02-29");
        assert_eq!(format_date(FIRST_DAY + SPAN_DAYS - 1), "2024-12-30");
    }

    #[test]
    fn pool_is_large_unique_and_stable() {
        let p = pool();
        assert_eq!(p.len(), POOL_SIZE);
        let names: std::collections::HashSet<_> = p.iter().map(|q| &q.name).collect();
        assert_eq!(names.len(), POOL_SIZE);
        assert!(p.iter().any(|q| !q.name.is_ascii()));
        assert_eq!(rank_of(29), "1k");
        assert_eq!(rank_of(30), "1d");
    }
}
