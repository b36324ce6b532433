//! The game archive of Keil, Go and Kaomi records: the games stored in a
//! store (`keil-store`: SQLite, the embedded default, or PostgreSQL, one
//! database shared by many nodes), the source of truth; searchable by
//! player, by text (tantivy) and by position and pattern, through indexes
//! derived from the store and caught up with it.
//!
//! An archive is a [`Location`]: a directory (`archive.sqlite`, the schema
//! applied and upgraded by numbered migrations when opened, and the text
//! index `tantivy/`), or a PostgreSQL URL with the node's own directory
//! for its derived files. [`Archive::reindex`] rebuilds the text index.
//!
//! - [`Archive::open`] opens or creates one; [`Archive::open_read_only`]
//!   opens one for reading without writing a byte (a read-only or full
//!   volume, a second process beside a writer); [`Archive::import`] reads,
//!   validates (in parallel), deduplicates and stores games in batched
//!   transactions, and reports the refused ones with their reasons
//!   ([`ImportReport`]).
//! - [`Archive::games`] ([`Games`]): one game ([`Game`]), lists with a
//!   [`GameFilter`] sorted by date with keyset pagination ([`Page`],
//!   [`Cursor`]), [`GameSummary`]s and [`GameMoves`] by id.
//! - [`Archive::players`] ([`Players`]): name search, case- and
//!   accent-insensitive, prefix and fuzzy ([`PlayerHit`]); profiles
//!   ([`PlayerProfile`]).
//! - [`Archive::positions`] ([`Positions`]): the games that reached a
//!   position, with continuation statistics ([`PositionQuery`], read from
//!   the position notation by [`PositionQuery::parse`]; [`PositionAnswer`]).
//! - [`Archive::patterns`] ([`Patterns`]): the games in which a partial
//!   board occurs ([`Pattern`] with wildcards, [`PatternMode`] corner, side,
//!   centre, anywhere or fixed, under symmetries and colour swap), with
//!   Kombilo's hits and continuation statistics ([`PatternQuery`],
//!   [`PatternAnswer`]). Both take the explorer's options in one
//!   [`ExploreOptions`].
//! - Every game has a [`GameKind`] (Keil, Go or Kaomi) and a board size;
//!   [`GameFilter`] selects by both.
//! - [`Archive::search_text`]: players, events, places, game names and
//!   comments; [`Archive::search_text_page`] pages through them, each hit
//!   saying where it matched ([`TextMatch`]: the field, an excerpt, a
//!   comment's ply), a year in the query filtering by date.
//!
//! The storage stays inside: callers see typed views and domain types
//! ([`GameId`], [`GameSummary`], ...), never a connection, a statement or
//! SQL: the two backends serve the same views.
//!
//! ```
//! use keil_archive::{Archive, GameFilter, ImportOptions, ImportSource, Page};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let archive = Archive::open(dir.path()).unwrap();
//! let sgf = "(;GM[Keil]FF[4]SZ[2]KM[1]PB[Ana Bolaños]PW[Bo]DT[2024-05-01]EV[Spring Cup]\
//!            RE[B+6.5];B[button];W[c2];B[b2];W[pass];B[pass])";
//! let source = ImportSource::Bytes { name: "demo.keil".into(), bytes: sgf.into() };
//! let report = archive.import(&[source.clone()], &ImportOptions::default(), &mut |_| {}).unwrap();
//! assert_eq!((report.counts.imported, report.counts.invalid), (1, 0));
//! // The same game again adds nothing.
//! let again = archive.import(&[source], &ImportOptions::default(), &mut |_| {}).unwrap();
//! assert_eq!((again.counts.imported, again.counts.duplicates), (0, 1));
//!
//! // Accents and case do not matter.
//! let hits = archive.players().search("bolanos", 10).unwrap();
//! assert_eq!(hits[0].name, "Ana Bolaños");
//! let filter = GameFilter { player: Some("ANA BOLANOS".into()), ..GameFilter::default() };
//! let page = archive.games().list(&filter, &Page::default()).unwrap();
//! assert_eq!(page.games[0].result.as_deref(), Some("B+6.5"));
//! // Text search.
//! let found = archive.search_text("spring", 10).unwrap();
//! assert_eq!(found[0].game.id, page.games[0].id);
//! ```

mod archive;
mod backup;
mod error;
mod export;
mod games;
mod import;
mod index;
mod location;
mod memory;
mod node;
mod patterns;
mod people;
mod players;
mod positions;
mod refused;
mod removal;
mod text_search;
mod verify;

pub use archive::{Archive, ReindexReport, Stats};
pub use backup::BackupReport;
pub use keil_store::budget::Budget;
pub use location::{Location, SQLITE_FILE, TANTIVY_DIR};
pub use text_search::{
    EXCERPT_CHARS, Excerpt, MAX_TEXT_PAGE, NodeAt, TextCursor, TextHit, TextMatch, TextPage,
    TextResults,
};
/// How often a server node calls [`Archive::catch_up`] (250 ms).
pub const CATCH_UP_EVERY: std::time::Duration = index::Follow::EVERY;
pub use error::{Error, Result};
pub use error::{MAX_TEXT_QUERY_BYTES, MAX_TEXT_QUERY_WORDS, PatternError, TextQueryError};
pub use games::{GameRecord, Games, SimilarGame};
pub use import::collection::{MAX_COLLECTION_CHARS, collection_name, default_collection};
pub use import::prepare::{Checked, EMPTY_RECORD};
pub use import::{
    Duplicates, Fate, GameOutcome, ImportOptions, ImportReport, ImportSource, Merge, MergeKind,
    MergeRepair, NOT_SGF, REMOVED,
};
pub use index::explore::{ExploreError, ExploreOptions};
pub use index::patterns::{
    Cell, MoveStats, Pattern, PatternAnswer, PatternContinuation, PatternHit, PatternIndexStats,
    PatternMode, PatternQuery,
};
pub use index::positions::{Continuation, PositionAnswer, PositionHit, PositionQuery};
pub use index::text::query::{TextClause, TextField, TextPlan, YEARS as TEXT_YEARS};
pub use keil_store::fold::{fold, person_key};
pub use keil_store::ids::{GameId, IdError, ImportId, PlayerId};
pub use keil_store::kind::{GameKind, GameKindError};
pub use keil_store::model::Removal;
pub use keil_store::model::people::{
    AliasEvidence, AliasReport, AliasSuggestion, ColorRecord, MatchKind, NameSpelling, Opponent,
    PROFILE_OPPONENTS, PersonChoice, PersonSpan, PlayerHit, PlayerProfile, YearRecord,
};
pub use keil_store::model::refused::Problem;
pub use keil_store::model::{
    CollectionCount, CollectionSummary, Cursor, Game, GameFilter, GameList, GameMoves, GameStatus,
    GameStatusError, GameSummary, HitCursor, HitDetails, MAX_PAGE, Order, Page, YearCount,
    written_day,
};
pub use keil_store::progress::ImportProgress;
pub use keil_store::schema_version;
pub use keil_store::{Error as StoreError, StorageError};
pub use memory::{Held, IndexMemory};
pub use patterns::Patterns;
pub use people::{AliasFileError, read_aliases};
pub use players::Players;
pub use positions::Positions;
pub use refused::{
    MAX_REFUSED_PAGE, RefusedFilter, RefusedId, RefusedLine, RefusedOrder, RefusedPage,
    RefusedRecord, RefusedSummary,
};
pub use removal::MAX_REASON_BYTES;
pub use verify::{Check, MAX_LISTED, VerifyProblem, VerifyProgress, VerifyReport, verify_at};
