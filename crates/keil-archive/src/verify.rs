//! `keil verify`: whether a store is sound, as a typed report
//! ([`VerifyReport`]) that the command line prints and a server or a test
//! reads.
//!
//! In one read snapshot of the store (a server may go on writing): the
//! engine's own checks (SQLite's `PRAGMA integrity_check` and
//! `foreign_key_check`), the schema version against this build's, the
//! counts the store keeps (`counts`) against the rows, every game's
//! stored record (it decompresses, its hash is the game's, it reads and
//! validates, and its main line is the stored moves and board columns)
//! and its stored moves (they decode and replay legally, as many as the
//! `plies` column says), and the derived blocks (every pattern block and
//! position segment decodes and holds what its row says). Games are read
//! streamed, [`BATCH`] at a time, and checked in parallel (rayon): memory
//! does not grow with the archive.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::node::Node;
use keil_store::ids::GameId;
use keil_store::{self, verify as sql};

/// Games read before they are checked in parallel.
const BATCH: usize = 512;

/// Problems listed in a report; past it they are only counted
/// ([`VerifyReport::unlisted`]).
pub const MAX_LISTED: usize = 1_000;

/// Which check found a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Check {
    /// The storage engine's own check of its files (SQLite's
    /// `integrity_check` and `foreign_key_check`).
    Engine,
    /// The schema version is not this build's.
    Schema,
    /// A count kept in `counts` is not the number of rows.
    Counts,
    /// A game's stored record: it does not decompress, its hash is not
    /// the game's, or it does not read and validate as a stored game.
    Record,
    /// A game's stored moves: they are not the record's main line, do not
    /// decode, or do not replay legally.
    Moves,
    /// A derived block (`derived_blocks`, the pattern index's) does not
    /// decode or does not hold what its row says.
    Blocks,
    /// A position segment does not decode or does not hold what its row
    /// says.
    Segments,
}

impl Check {
    /// The check's name as reports print it (`engine`, `schema`, `counts`,
    /// `record`, `moves`, `blocks`, `segments`).
    pub fn name(self) -> &'static str {
        match self {
            Check::Engine => "engine",
            Check::Schema => "schema",
            Check::Counts => "counts",
            Check::Record => "record",
            Check::Moves => "moves",
            Check::Blocks => "blocks",
            Check::Segments => "segments",
        }
    }
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One problem found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyProblem {
    /// The check that found it.
    pub check: Check,
    /// The game it is about, if one.
    pub game: Option<GameId>,
    /// What is wrong, in words.
    pub detail: String,
}

impl std::fmt::Display for VerifyProblem {
    /// `check: game N: detail` (without `game N: ` when about no game).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.game {
            Some(id) => write!(f, "{}: game {id}: {}", self.check, self.detail),
            None => write!(f, "{}: {}", self.check, self.detail),
        }
    }
}

/// What [`Archive::verify`](crate::Archive::verify) found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    /// The store's schema version (SQLite's `user_version`, PostgreSQL's
    /// `schema_version` table).
    pub schema_version: usize,
    /// This build's ([`crate::schema_version`] on SQLite).
    pub expected_schema_version: usize,
    /// Games checked (every stored game).
    pub games: u64,
    /// Moves replayed over all games.
    pub moves: u64,
    /// Derived blocks decoded.
    pub blocks: u64,
    /// Position segments decoded.
    pub segments: u64,
    /// The problems, at most [`MAX_LISTED`], in the order found (engine,
    /// schema, counts, then games by id, blocks, segments).
    pub problems: Vec<VerifyProblem>,
    /// Problems found past [`MAX_LISTED`], not listed.
    pub unlisted: u64,
}

impl VerifyReport {
    /// Whether no problem was found.
    pub fn is_sound(&self) -> bool {
        self.problems.is_empty() && self.unlisted == 0
    }

    /// Every problem found, listed or not.
    pub fn problem_count(&self) -> u64 {
        self.problems.len() as u64 + self.unlisted
    }

    fn add(&mut self, check: Check, game: Option<GameId>, detail: String) {
        if self.problems.len() < MAX_LISTED {
            self.problems.push(VerifyProblem {
                check,
                game,
                detail,
            });
        } else {
            self.unlisted += 1;
        }
    }
}

/// How far a verification is: games checked of the games stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyProgress {
    /// Games checked so far.
    pub games: u64,
    /// Games stored (the rows counted).
    pub total: u64,
}

/// [`Archive::verify`](crate::Archive::verify): see there.
pub(crate) fn verify(
    node: &Node,
    progress: &mut dyn FnMut(VerifyProgress),
) -> Result<VerifyReport> {
    node.reader()?.snapshot(|read| verify_in(read, progress))
}

/// [`Archive::verify`](crate::Archive::verify) of the store at `location`, without opening the
/// archive: no derived index is opened, built or written (an embedded
/// archive's text index may be missing, as in a copy made by
/// [`Archive::backup`](crate::Archive::backup); a PostgreSQL archive's node directory is not
/// touched), and a schema that is not this build's is reported rather
/// than refused or migrated.
///
/// # Errors
/// [`Error::Io`] when an embedded location holds no archive; storage
/// errors that stop the reads (a store too old for the reads themselves
/// among them).
pub fn verify_at(
    location: impl Into<crate::location::Location>,
    progress: &mut dyn FnMut(VerifyProgress),
) -> Result<VerifyReport> {
    let location = location.into();
    if location.is_embedded() && !location.dir().join(crate::location::SQLITE_FILE).is_file() {
        let e = std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no archive here (no {})", crate::location::SQLITE_FILE),
        );
        return Err(Error::io(location.dir(), e));
    }
    let pool = keil_store::ReadPool::open(&location.place(), true)?;
    pool.get()?.snapshot(|read| verify_in(read, progress))
}

/// [`Archive::verify`](crate::Archive::verify) in the caller's snapshot.
fn verify_in(
    read: keil_store::Read<'_>,
    progress: &mut dyn FnMut(VerifyProgress),
) -> Result<VerifyReport> {
    let mut report = VerifyReport::default();
    for line in sql::engine_problems(read)? {
        report.add(Check::Engine, None, line);
    }
    let (found, expected) = keil_store::schema_versions(read)?;
    report.schema_version = found;
    report.expected_schema_version = expected;
    if found != expected {
        report.add(
            Check::Schema,
            None,
            format!("the store's schema is version {found}, this keil's is {expected}"),
        );
    }
    let total = check_counts(read, &mut report)?;
    check_games(read, &mut report, total, progress)?;
    for (id, kind, first, last, games, version) in sql::blocks(read)? {
        report.blocks += 1;
        let problem = if kind != crate::index::patterns::BLOCK_KIND {
            Some(format!("block {id} is of unknown kind {kind:?}"))
        } else {
            let data = keil_store::blocks::data(read, id)?;
            crate::index::patterns::check_block(&data, version, (first, last, games))
                .err()
                .map(|e| format!("block {id} (games {first}..={last}): {e}"))
        };
        if let Some(p) = problem {
            report.add(Check::Blocks, None, p);
        }
    }
    for (id, postings, nonce) in sql::segments(read)? {
        report.segments += 1;
        let blob = keil_store::positions::segment_bytes(read, id)?;
        if let Err(e) = crate::index::positions::check_segment(&blob, postings, nonce) {
            report.add(Check::Segments, None, format!("segment {id}: {e}"));
        }
    }
    Ok(report)
}

/// Compares the kept counts with the rows; returns the games counted.
fn check_counts(read: keil_store::Read<'_>, report: &mut VerifyReport) -> Result<u64> {
    let counted: BTreeMap<String, u64> = sql::counted(read)?.into_iter().collect();
    let kept: BTreeMap<String, i64> = sql::kept(read)?.into_iter().collect();
    let names: std::collections::BTreeSet<&String> = counted.keys().chain(kept.keys()).collect();
    for name in names {
        let rows = counted.get(name).copied().unwrap_or(0);
        let says = kept.get(name).copied().unwrap_or(0);
        if says != rows as i64 {
            report.add(
                Check::Counts,
                None,
                format!("`{name}` is kept as {says}, the rows are {rows}"),
            );
        }
    }
    Ok(counted.get("games").copied().unwrap_or(0))
}

/// Streams every game, [`BATCH`] at a time, and checks each batch in
/// parallel.
fn check_games(
    read: keil_store::Read<'_>,
    report: &mut VerifyReport,
    total: u64,
    progress: &mut dyn FnMut(VerifyProgress),
) -> Result<()> {
    let mut batch = Vec::with_capacity(BATCH);
    let mut run = |batch: &mut Vec<sql::StoredGame>, report: &mut VerifyReport| {
        let found: Vec<(u64, Vec<VerifyProblem>)> = batch.par_drain(..).map(check_game).collect();
        for (moves, problems) in found {
            report.games += 1;
            report.moves += moves;
            for p in problems {
                report.add(p.check, p.game, p.detail);
            }
        }
        progress(VerifyProgress {
            games: report.games,
            total,
        });
    };
    sql::each_game(read, |game| -> Result<bool> {
        batch.push(game);
        if batch.len() == BATCH {
            run(&mut batch, report);
        }
        Ok(true)
    })?;
    if !batch.is_empty() {
        run(&mut batch, report);
    }
    Ok(())
}

/// One game's checks: the moves replayed and the problems found.
fn check_game(game: sql::StoredGame) -> (u64, Vec<VerifyProblem>) {
    let id = GameId::from_sql(game.id);
    let mut problems = Vec::new();
    let mut problem = |check: Check, detail: String| {
        problems.push(VerifyProblem {
            check,
            game: Some(id),
            detail,
        })
    };
    // The record: decompressed, its identity, its main line.
    match keil_store::records::decompress(id, &game.record) {
        Err(e) => problem(Check::Record, e.to_string()),
        Ok(text) => {
            let hash = blake3::hash(text.as_bytes());
            if game.hash.as_slice() != &hash.as_bytes()[..16] {
                problem(
                    Check::Record,
                    "the record's hash is not the game's (the record or its hash was changed)"
                        .into(),
                );
            }
            match crate::import::prepare::line_of(&text) {
                Err(e) => problem(Check::Record, format!("the stored record: {e}")),
                Ok(line) => {
                    for difference in differences(&line, &game) {
                        problem(Check::Moves, difference);
                    }
                }
            }
        }
    }
    // The stored moves alone: they decode and replay.
    let mut replayed = 0;
    match game.moves.decode(id) {
        Err(keil_store::Error::Corrupt { reason, .. }) => problem(Check::Moves, reason),
        Err(e) => problem(Check::Moves, e.to_string()),
        Ok(moves) => {
            if moves.moves.len() as i64 != game.plies {
                problem(
                    Check::Moves,
                    format!(
                        "{} moves stored, the plies column says {}",
                        moves.moves.len(),
                        game.plies
                    ),
                );
            }
            let mut at = moves.start();
            for i in 0..moves.moves.len() {
                if let Err(e) = moves.play(i, &mut at) {
                    problem(
                        Check::Moves,
                        format!("stored move {} does not replay: {e}", i + 1),
                    );
                    break;
                }
                replayed += 1;
            }
        }
    }
    (replayed, problems)
}

/// How the stored main line differs from the one the record gives.
fn differences(line: &crate::import::prepare::Line, game: &sql::StoredGame) -> Vec<String> {
    let stored = &game.moves;
    let mut out = Vec::new();
    let b = &line.board;
    if b.kind.code() != stored.kind || b.size != stored.size {
        out.push(format!(
            "the record is {} {}, the stored columns say {} {}",
            b.kind.code(),
            b.size,
            stored.kind,
            stored.size
        ));
    }
    if b.ruleset != stored.ruleset || b.komi.0 != stored.komi || b.handicap != stored.handicap {
        out.push("the stored ruleset, komi or handicap is not the record's".into());
    }
    if b.setup != stored.setup {
        out.push("the stored setup is not the record's".into());
    }
    if line.moves != stored.blob {
        let first = line
            .moves
            .iter()
            .zip(&stored.blob)
            .position(|(a, b)| a != b)
            .unwrap_or(line.moves.len().min(stored.blob.len()));
        out.push(format!(
            "the stored moves are not the record's main line ({} bytes stored, {} from the record; they differ from byte {first})",
            stored.blob.len(),
            line.moves.len()
        ));
    }
    if line.plies as i64 != game.plies {
        out.push(format!(
            "the record has {} moves, the plies column says {}",
            line.plies, game.plies
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    //! Damage done to a store by hand, which `crate::verify` must name.

    use crate::archive::Archive;

    /// Runs `sql` on `archive`'s writer (a test's damage).
    fn damage(archive: &Archive, sql: &str) {
        archive
            .node
            .writer()
            .unwrap()
            .autocommit()
            .execute(sql, &[])
            .unwrap();
    }

    /// An archive of 12 generated Go games.
    fn filled() -> (tempfile::TempDir, Archive) {
        let dir = tempfile::tempdir().unwrap();
        let archive = Archive::open(dir.path()).unwrap();
        crate::archive::import_generated(
            &archive,
            keil_gen::GeneratorConfig {
                game: keil_rules::GameKind::Go,
                size: 9,
                games: 12,
                seed: 4,
                ..Default::default()
            },
        );
        (dir, archive)
    }

    #[test]
    fn a_sound_store_verifies() {
        let (_dir, archive) = filled();
        let report = archive.verify(&mut |_| {}).unwrap();
        assert!(report.is_sound(), "{:?}", report.problems);
        assert_eq!(report.games, 12);
        assert!(report.moves > 0 && report.blocks > 0 && report.segments > 0);
        assert_eq!(report.schema_version, keil_store::schema_version());
    }

    #[test]
    fn a_game_whose_moves_were_changed_is_named() {
        let (_dir, archive) = filled();
        // Game 1 gets game 2's moves: a record and its main line disagree.
        damage(
            &archive,
            "UPDATE games SET moves = (SELECT moves FROM games WHERE id = 2) WHERE id = 1",
        );
        let report = archive.verify(&mut |_| {}).unwrap();
        assert!(!report.is_sound());
        let named: Vec<_> = report
            .problems
            .iter()
            .filter(|p| p.check == super::Check::Moves)
            .map(|p| p.game)
            .collect();
        assert!(
            named.contains(&Some(keil_store::ids::GameId::from_sql(1))),
            "{report:?}"
        );
        assert!(
            report
                .problems
                .iter()
                .all(|p| p.game == Some(keil_store::ids::GameId::from_sql(1))),
            "{report:?}"
        );
        assert!(
            report.problems[0]
                .to_string()
                .starts_with("moves: game 1: ")
        );
    }

    #[test]
    fn a_changed_count_and_a_damaged_record_are_named() {
        let (_dir, archive) = filled();
        damage(&archive, "UPDATE counts SET n = n + 1 WHERE name = 'games'");
        damage(
            &archive,
            "UPDATE games SET record = X'00010203' WHERE id = 3",
        );
        let report = archive.verify(&mut |_| {}).unwrap();
        let shown: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
        assert!(
            shown.contains(&"counts: `games` is kept as 13, the rows are 12".to_string()),
            "{shown:?}"
        );
        assert!(
            report
                .problems
                .iter()
                .any(|p| p.check == super::Check::Record
                    && p.game == Some(keil_store::ids::GameId::from_sql(3))),
            "{shown:?}"
        );
    }

    #[test]
    fn a_damaged_pattern_block_and_position_segment_are_named() {
        let (_dir, archive) = filled();
        damage(&archive, "UPDATE derived_blocks SET data = X'28B52FFD00'");
        damage(
            &archive,
            "UPDATE position_segments SET postings = postings + 1",
        );
        let report = archive.verify(&mut |_| {}).unwrap();
        let checks: Vec<super::Check> = report.problems.iter().map(|p| p.check).collect();
        assert!(checks.contains(&super::Check::Blocks), "{report:?}");
        assert!(checks.contains(&super::Check::Segments), "{report:?}");
    }

    #[test]
    fn the_counts_worked_out_match_the_kept_ones_on_a_sound_store() {
        let (_dir, archive) = filled();
        let read = archive.node.reader().unwrap();
        let mut counted = keil_store::verify::counted(read.read()).unwrap();
        let mut kept: Vec<(String, u64)> = keil_store::verify::kept(read.read())
            .unwrap()
            .into_iter()
            .filter(|(_, n)| *n != 0)
            .map(|(k, n)| (k, n as u64))
            .collect();
        counted.retain(|(_, n)| *n != 0);
        counted.sort();
        kept.sort();
        assert_eq!(counted, kept);
        assert!(
            keil_store::verify::engine_problems(read.read())
                .unwrap()
                .is_empty()
        );
    }
}
