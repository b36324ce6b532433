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
    /// The name as written in the records.
    pub name: String,
    /// Stored games.
    pub games: u64,
    /// `exact`, `prefix` or `fuzzy`.
    pub matched: String,
}

impl From<PlayerHit> for PlayerHitDto {
    fn from(h: PlayerHit) -> PlayerHitDto {
        PlayerHitDto {
            id: h.id,
            name: h.name,
            games: h.games,
            matched: match h.matched {
                MatchKind::Exact => "exact",
                MatchKind::Prefix => "prefix",
                MatchKind::Fuzzy => "fuzzy",
            }
            .to_string(),
        }
    }
}

/// Players matching a search.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PlayersDto {
    /// Best first: exact, then prefix (most games first), then fuzzy.
    pub players: Vec<PlayerHitDto>,
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
    /// The name shown: the player's first spelling, or the name an
    /// operator's alias gave.
    pub name: String,
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
        }
    }
}
