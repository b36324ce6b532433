//! The people of the archive as the store holds them: spellings, aliases,
//! player hits and profiles.

use serde::Serialize;

use crate::ids::PlayerId;
use crate::model::CollectionCount;

/// What `Archive::add_alias` did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AliasReport {
    /// The person key that now resolves to `target_key`.
    pub alias_key: String,
    /// The person key of the name the alias points to.
    pub target_key: String,
    /// The person the names are now one of, if either has games stored.
    pub person: Option<PlayerId>,
    /// Whether two stored people became one (their games, spellings and
    /// results merged).
    pub merged: bool,
    /// Whether the alias changed nothing (the names were already one).
    pub unchanged: bool,
}

/// One way a person's name was written in the records, with how many
/// stored games used it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NameSpelling {
    /// The name as written (`PB`/`PW`).
    pub name: String,
    /// Stored games in which it was written.
    pub games: u64,
}

/// One spelling as the import resolved it: the spelling's row and its
/// person's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spelling {
    /// `players.id`.
    pub id: i64,
    /// `people.id`.
    pub person: i64,
}

/// The number of opponents a profile lists.
pub const PROFILE_OPPONENTS: usize = 10;

/// A player's results in one year (the first day of the game's date).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct YearRecord {
    /// The year; `None` for undated games.
    pub year: Option<i32>,
    /// Games played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games lost.
    pub losses: u64,
}

/// A player's profile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerProfile {
    /// The player (person) id.
    pub id: PlayerId,
    /// The name shown (see [`PlayerHit::name`]).
    pub name: String,
    /// Whether an operator set the name shown (`keil players name`);
    /// else it is the spelling most of the person's records use.
    pub name_set: bool,
    /// All games (a game against oneself once).
    pub games: u64,
    /// Games in which the player had both colours (a program against
    /// itself, or two spellings of one person): neither won nor lost.
    pub self_play: u64,
    /// The ways the name was written in the records, most games first.
    pub spellings: Vec<NameSpelling>,
    /// As Black.
    pub as_black: ColorRecord,
    /// As White.
    pub as_white: ColorRecord,
    /// First day of the earliest dated game.
    pub first_date: Option<String>,
    /// First day of the latest dated game.
    pub last_date: Option<String>,
    /// The most frequent opponents (other people), most games first (then
    /// by name), at most [`PROFILE_OPPONENTS`].
    pub opponents: Vec<Opponent>,
    /// The player's games by collection, most games first (games in no
    /// collection left out).
    pub collections: Vec<CollectionCount>,
}

/// An opponent of a player, with the player's results against them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Opponent {
    /// The opponent's id.
    pub id: PlayerId,
    /// The opponent's name.
    pub name: String,
    /// Games between the two.
    pub games: u64,
    /// Games the profiled player won.
    pub wins: u64,
    /// Games the profiled player lost.
    pub losses: u64,
}

/// Games, wins and losses with one colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ColorRecord {
    /// Games played with this colour (a game against oneself counts for
    /// both colours).
    pub games: u64,
    /// Games won (a game against oneself is neither won nor lost).
    pub wins: u64,
    /// Games lost.
    pub losses: u64,
}

/// One player found by a search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerHit {
    /// The player (person) id.
    pub id: PlayerId,
    /// The name shown: the spelling most of the person's records use, or
    /// the one an operator set (`keil players name`).
    pub name: String,
    /// Number of stored games the player played (a game against oneself
    /// once).
    pub games: u64,
    /// How the name (any of its spellings) matched.
    pub matched: MatchKind,
    /// When and at what rank the player played: what tells apart people
    /// who answer to one name. Filled by searches
    /// ([`crate::people::names::span`]); empty elsewhere.
    pub span: PersonSpan,
}

/// When and at what rank a person played, from their first and last
/// games: what a list of the people who answer to one name shows of each.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PersonSpan {
    /// First day of the earliest dated game.
    pub first_date: Option<String>,
    /// First day of the latest dated game.
    pub last_date: Option<String>,
    /// The rank written in the person's earliest games that write one,
    /// then the one in the latest (once when they are the same): at most
    /// two, earliest first.
    pub ranks: Vec<String>,
}

impl PersonSpan {
    /// The years played, `1846–1862` (one year once); empty when no game
    /// is dated.
    pub fn years(&self) -> String {
        let year = |d: &Option<String>| d.as_deref().and_then(|d| d.get(..4)).map(str::to_string);
        match (year(&self.first_date), year(&self.last_date)) {
            (Some(a), Some(b)) if a != b => format!("{a}\u{2013}{b}"),
            (Some(a), _) | (None, Some(a)) => a,
            (None, None) => String::new(),
        }
    }
}

/// A person that a name answers to, as a list of choices shows them
/// ([`crate::people::names::answering`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PersonChoice {
    /// The person id.
    pub id: PlayerId,
    /// The name shown.
    pub name: String,
    /// Stored games.
    pub games: u64,
    /// When and at what rank they played.
    pub span: PersonSpan,
}

/// How a player's name matched a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchKind {
    /// The folded name equals the folded query, or both are the same
    /// person key ([`person_key`](crate::fold::person_key): `kejie` is `Ke Jie`), after aliases.
    Exact,
    /// The query, one word, is a whole word of a longer name: `Shusaku`
    /// of `Honinbo Shusaku` (people who answer to the name as well as the
    /// one whose name it is).
    Word,
    /// The folded name, or one of its words, starts with the folded query.
    Prefix,
    /// A word or the whole folded name is within a small edit distance of
    /// the folded query (1 edit up to 5 letters, 2 beyond; none under 3).
    Fuzzy,
}

/// Two people an operator may want to make one
/// ([`crate::people::suggest::suggest`]), with the evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AliasSuggestion {
    /// The person with fewer games: the alias's name.
    pub alias: PersonChoice,
    /// The person with more games: the name the alias would stand for.
    pub name: PersonChoice,
    /// Why the two may be one person, strongest first.
    pub evidence: Vec<AliasEvidence>,
}

/// One reason to think two people are one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AliasEvidence {
    /// Their names have the same words in another order (`Iyama Yuta`,
    /// `Yuta Iyama`).
    WordOrder,
    /// Their names end with the same word (`Honinbo Shusaku`, `Kuwahara
    /// Shusaku`): a title or family name that changed.
    LastWord(String),
    /// Their person keys are one letter apart (a romanisation).
    Spelling,
    /// This many people played both.
    SharedOpponents(u64),
    /// Their years (first to last game) overlap.
    YearsOverlap,
    /// This many years lie between their spans.
    YearsApart(u32),
    /// They never played each other (always so: a pair that did is two
    /// people and is not suggested).
    NeverPlayedEachOther,
}

impl std::fmt::Display for AliasEvidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AliasEvidence::WordOrder => write!(f, "the same words in another order"),
            AliasEvidence::LastWord(w) => write!(f, "both names end in {w:?}"),
            AliasEvidence::Spelling => write!(f, "names one letter apart"),
            AliasEvidence::SharedOpponents(1) => write!(f, "1 opponent in common"),
            AliasEvidence::SharedOpponents(n) => write!(f, "{n} opponents in common"),
            AliasEvidence::YearsOverlap => write!(f, "their years overlap"),
            AliasEvidence::YearsApart(1) => write!(f, "1 year apart"),
            AliasEvidence::YearsApart(n) => write!(f, "{n} years apart"),
            AliasEvidence::NeverPlayedEachOther => write!(f, "never played each other"),
        }
    }
}
