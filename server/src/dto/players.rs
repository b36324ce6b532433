//! The answers about players: name search hits and profiles.

use keil_archive::{MatchKind, PlayerHit, PlayerId, PlayerProfile};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A player found by name.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PlayerHitDto {
    /// The player id.
    #[schema(value_type = i64)]
    pub id: PlayerId,
    /// The name shown: the spelling most of the player's records use, or
    /// the one an operator set.
    pub name: String,
    /// Stored games.
    pub games: u64,
    /// `exact`, `word` (the one-word query is a whole word of the name:
    /// `Shusaku` of `Honinbo Shusaku`), `prefix` or `fuzzy`.
    pub matched: String,
    /// Day of the earliest dated game.
    pub first_date: Option<String>,
    /// Day of the latest dated game.
    pub last_date: Option<String>,
    /// The years played, `1846–1862` (empty when no game is dated).
    pub years: String,
    /// The rank written in the earliest games, then in the latest (once
    /// when the same; none when no game writes one).
    pub ranks: Vec<String>,
    /// What names this player alone in a games filter's `player` or
    /// `opponent`: the name, or `#ID` when the name answers to other
    /// people too (`Shusaku`). Absent where not worked out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
}

/// A match kind as the API and the pages write it.
pub(crate) fn match_name(m: MatchKind) -> &'static str {
    match m {
        MatchKind::Exact => "exact",
        MatchKind::Word => "word",
        MatchKind::Prefix => "prefix",
        MatchKind::Fuzzy => "fuzzy",
    }
}

impl From<PlayerHit> for PlayerHitDto {
    fn from(h: PlayerHit) -> PlayerHitDto {
        PlayerHitDto {
            id: h.id,
            years: h.span.years(),
            name: h.name,
            games: h.games,
            matched: match_name(h.matched).to_string(),
            first_date: h.span.first_date,
            last_date: h.span.last_date,
            ranks: h.span.ranks,
            filter: None,
        }
    }
}

/// Players matching a search.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PlayersDto {
    /// Best first: exact, except that people whose longer names have the
    /// one-word query as a whole word (`word`) come first, by games
    /// (`Honinbo Shusaku` before the account `Shusaku`); then prefix (most
    /// games first), then fuzzy.
    pub players: Vec<PlayerHitDto>,
}

/// A person a name answers to, to choose from.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PersonChoiceDto {
    /// The player id: `#ID` names them alone in a filter.
    #[schema(value_type = i64)]
    pub id: PlayerId,
    /// The name shown.
    pub name: String,
    /// Stored games.
    pub games: u64,
    /// The years played, `1846–1862` (empty when no game is dated).
    pub years: String,
    /// The rank written in the earliest games, then in the latest.
    pub ranks: Vec<String>,
}

impl From<keil_archive::PersonChoice> for PersonChoiceDto {
    fn from(c: keil_archive::PersonChoice) -> PersonChoiceDto {
        PersonChoiceDto {
            id: c.id,
            years: c.span.years(),
            name: c.name,
            games: c.games,
            ranks: c.span.ranks,
        }
    }
}

/// A filter's name that answers to several people: the list holds the
/// games of all of them; `#ID` in the filter names one alone.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct NamedPeopleDto {
    /// `player` or `opponent`.
    pub field: String,
    /// The name as given.
    pub name: String,
    /// How many people it answers to.
    pub people: usize,
    /// The people with the most games among them (at most 10), most
    /// first.
    pub choices: Vec<PersonChoiceDto>,
}

/// Games, wins and losses with one colour, or against one opponent.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RecordDto {
    /// Games.
    pub games: u64,
    /// Won.
    pub wins: u64,
    /// Lost.
    pub losses: u64,
}

/// An opponent in a profile.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct OpponentDto {
    /// The opponent's name.
    pub name: String,
    /// Games between the two.
    pub games: u64,
    /// Games the profiled player won.
    pub wins: u64,
    /// Games the profiled player lost.
    pub losses: u64,
}

/// One way a player's name is written in the records.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SpellingDto {
    /// The name as written (`PB`/`PW`).
    pub name: String,
    /// Stored games that write it so.
    pub games: u64,
}

/// A player's profile.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PlayerDto {
    /// The player id.
    #[schema(value_type = i64)]
    pub id: PlayerId,
    /// The name shown: the spelling most of the player's records use, or
    /// the one an operator set (`keil players name`).
    pub name: String,
    /// Whether an operator set the name shown.
    pub name_set: bool,
    /// All stored games (a game against oneself once).
    pub games: u64,
    /// Games against oneself (both colours this player: a program's
    /// self-play, or two spellings of one person): neither won nor lost.
    pub self_play: u64,
    /// The ways the name is written in the records (case, spacing,
    /// punctuation and aliases folded together), most games first.
    pub spellings: Vec<SpellingDto>,
    /// As Black.
    pub as_black: RecordDto,
    /// As White.
    pub as_white: RecordDto,
    /// Day of the earliest dated game.
    pub first_date: Option<String>,
    /// Day of the latest dated game.
    pub last_date: Option<String>,
    /// Most frequent opponents.
    pub opponents: Vec<OpponentDto>,
    /// The player's games by collection, most games first.
    pub collections: Vec<crate::dto::CollectionCountDto>,
}

impl From<PlayerProfile> for PlayerDto {
    fn from(p: PlayerProfile) -> PlayerDto {
        let rec = |r: keil_archive::ColorRecord| RecordDto {
            games: r.games,
            wins: r.wins,
            losses: r.losses,
        };
        PlayerDto {
            id: p.id,
            name: p.name,
            name_set: p.name_set,
            games: p.games,
            self_play: p.self_play,
            spellings: p
                .spellings
                .into_iter()
                .map(|s| SpellingDto {
                    name: s.name,
                    games: s.games,
                })
                .collect(),
            as_black: rec(p.as_black),
            as_white: rec(p.as_white),
            first_date: p.first_date,
            last_date: p.last_date,
            opponents: p
                .opponents
                .into_iter()
                .map(|o| OpponentDto {
                    name: o.name,
                    games: o.games,
                    wins: o.wins,
                    losses: o.losses,
                })
                .collect(),
            collections: p.collections.into_iter().map(Into::into).collect(),
        }
    }
}
