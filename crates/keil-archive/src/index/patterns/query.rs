//! The public types of a pattern search: the query ([`PatternQuery`]),
//! its answer ([`PatternAnswer`]: hits and continuations) and what a load
//! says of the index ([`PatternIndexStats`]).

use serde::Serialize;

use super::super::explore::ExploreOptions;
use super::pattern::{Pattern, PatternMode};
use keil_store::ids::GameId;
use keil_store::model::{GameFilter, HitDetails, YearCount};

/// A pattern search.
#[derive(Clone, Debug)]
pub struct PatternQuery {
    /// The pattern (its kind and size select the games searched).
    pub pattern: Pattern,
    /// Where it may be placed.
    pub mode: PatternMode,
    /// Whether the board's symmetries (8 on the square, 12 on the hexagon)
    /// place it too.
    pub symmetry: bool,
    /// Whether the pattern with black and white exchanged matches too
    /// (hits say `swapped`; continuations are counted in the pattern's
    /// colours).
    pub swap_colors: bool,
    /// Only games that pass this filter (its kind and size are the
    /// pattern's).
    pub filter: GameFilter,
    /// The explorer's options: the move limit, the colour of the next
    /// move, the history ([`PatternAnswer::history`]), the games listed
    /// ([`PatternAnswer::top_games`], [`PatternAnswer::recent_games`]) and
    /// the variations (hits in one say which: [`PatternHit::variation`]).
    pub explore: ExploreOptions,
    /// How many games to list (statistics always cover all matches).
    pub limit: usize,
    /// Continue after this cursor (from [`PatternAnswer::next_cursor`]).
    pub cursor: Option<String>,
}

impl PatternQuery {
    /// A query for `pattern` in `mode`, with symmetry and colour swap on
    /// (Kombilo's default), no filter, 20 games.
    pub fn new(pattern: Pattern, mode: PatternMode) -> PatternQuery {
        PatternQuery {
            pattern,
            mode,
            symmetry: true,
            swap_colors: true,
            filter: GameFilter::default(),
            explore: ExploreOptions::default(),
            limit: 20,
            cursor: None,
        }
    }
}

/// Next moves of one colour at one point of a pattern.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MoveStats {
    /// Hits whose continuation was this colour's move here.
    pub count: u64,
    /// Of those, played 3 or more nodes after the match (after a tenuki).
    pub after_tenuki: u64,
    /// Of those, games won by the player of the pattern's black stones
    /// (the game's White in a colour-swapped hit).
    pub black_wins: u64,
    /// Of those, games won by the player of the pattern's white stones.
    pub white_wins: u64,
}

/// The continuations at one point of the pattern (Kombilo's continuation
/// table row).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PatternContinuation {
    /// The point as the pattern is drawn, as records write it (`dd`,
    /// `g7`); points the pattern's own symmetries make equivalent are
    /// counted on one of them.
    pub point: String,
    /// The point for people (Go `D16`).
    pub display: String,
    /// Its offset `[x, y]` from the pattern's top-left (lattice
    /// coordinates).
    pub offset: [u8; 2],
    /// A label, `A` for the most played point, then `B`, ...
    pub label: String,
    /// Moves of the pattern's Black here.
    pub black: MoveStats,
    /// Moves of the pattern's White here.
    pub white: MoveStats,
    /// With the query's `history`: the hits of both colours here by year
    /// (its `games` are hits; they add up to `black.count + white.count`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<YearCount>>,
}

/// A game in which the pattern occurs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PatternHit {
    /// The game id.
    pub game_id: GameId,
    /// The first node at whose end the pattern stood (the root is 0).
    pub node: u32,
    /// The moves played by then.
    pub ply: u32,
    /// Distinct placements that matched in this game.
    pub hits: u32,
    /// The symmetry (its index: 0..8 square, 0..12 hexagon) of the first
    /// match's placement.
    pub symmetry: u8,
    /// Whether the first match was colour-swapped.
    pub swapped: bool,
    /// The first match's continuation as a pattern point (`None`: no move
    /// was played in the region after it).
    pub next: Option<String>,
    /// With the query's `explore.variations`, when the game's first match is in
    /// a variation: its number, 1-based in the validator's order (the
    /// file's; the game viewer's `var`); `None` for the main line. `node`
    /// and `ply` are then the variation's.
    pub variation: Option<u32>,
    /// The game's date, players, ranks and result as lists show them
    /// (flattened: the answer's fields `date`, `black`, `white`,
    /// `black_rank`, `white_rank`, `result`; blank for a game removed
    /// since the matches were read).
    #[serde(flatten)]
    pub game: HitDetails,
}

/// The answer to a [`PatternQuery`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PatternAnswer {
    /// The pattern as searched, in its notation.
    pub pattern: String,
    /// Distinct placements searched.
    pub placements: u32,
    /// Games in which the pattern occurs (after filters).
    pub total_games: u64,
    /// (game, distinct placement) pairs that match.
    pub total_hits: u64,
    /// Continuations, most played first.
    pub continuations: Vec<PatternContinuation>,
    /// With the query's `history`: `total_games` by year (the games of
    /// the years add up to it; winners in the colours of each game's
    /// first match).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<YearCount>>,
    /// With the query's `history`: `total_games` by collection, most
    /// games first (games in no collection left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collections: Option<Vec<keil_store::model::CollectionCount>>,
    /// One page of games, newest first.
    pub games: Vec<PatternHit>,
    /// Pass as `cursor` for the next page; `None` on the last.
    pub next_cursor: Option<String>,
    /// The query's `top_games` games whose weaker player ranks highest,
    /// highest first (then newest first); games without both ranks are
    /// not among them.
    pub top_games: Vec<PatternHit>,
    /// The query's `recent_games` latest games, newest first.
    pub recent_games: Vec<PatternHit>,
}

/// Memory held by the pattern index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PatternIndexStats {
    /// Games indexed.
    pub games: u64,
    /// Bytes held (columns, events, per-game lines, the region index).
    pub bytes: u64,
    /// Of `bytes`, those mapped from the node's snapshot (columns, events
    /// and region segments read in place: the system's page cache, given
    /// back under memory pressure, rather than the heap).
    pub mapped_bytes: u64,
    /// Whether the load started from the node's snapshot
    /// ([`Archive::cache_in`](crate::Archive::cache_in)) rather than from
    /// the pattern blocks alone.
    pub from_snapshot: bool,
    /// Whether the region index was left for
    /// [`Patterns::settle`](crate::Patterns::settle)
    /// ([`Patterns::load_unmerged`](crate::Patterns::load_unmerged) from
    /// the blocks): until then, searches it would answer are answered by
    /// the scan.
    pub regions_deferred: bool,
}
