//! Shared by the integration tests: corpora and the brute-force truth,
//! computed from the generated text with a tiny scanner and keil-rules'
//! replay (independently of keil-record and of the archive).
#![allow(dead_code)]

use std::collections::BTreeMap;

use keil_archive::{Archive, ImportOptions, ImportReport, ImportSource};
use keil_gen::{Generator, GeneratorConfig};
use keil_rules::{Board, Color, Game, HalfPoints, Move, Ruleset};

/// A 19×19 Go game of `moves` moves (all different points, in a fixed
/// order from `start`: games from starts far apart differ), with the
/// given root properties.
pub fn go_game(headers: &str, moves: usize, start: usize) -> String {
    let mut s = format!("(;GM[1]FF[4]SZ[19]KM[6.5]{headers}");
    for i in 0..moves {
        let p = (start + i * 7) % 361;
        let (x, y) = (p % 19, p / 19);
        let c = if i % 2 == 0 { 'B' } else { 'W' };
        s.push_str(&format!(
            ";{c}[{}{}]",
            (b'a' + x as u8) as char,
            (b'a' + y as u8) as char
        ));
    }
    s.push_str(")\n");
    s
}

/// One game as the test sees it.
#[derive(Clone, Debug)]
pub struct Truth {
    pub record: String,
    pub props: BTreeMap<String, String>,
    pub comments: Vec<String>,
    pub size: u8,
    pub moves: Vec<Move>,
    pub winner: Option<Color>,
    pub status: &'static str,
    pub day: String,
}

impl Truth {
    pub fn prop(&self, k: &str) -> Option<&str> {
        self.props.get(k).map(|s| s.as_str())
    }
    pub fn player(&self, c: Color) -> &str {
        self.prop(if c == Color::Black { "PB" } else { "PW" })
            .unwrap()
    }
}

/// Root properties and node comments/moves of a one-line-per-tree SGF
/// without variations.
fn scan(text: &str) -> (BTreeMap<String, String>, Vec<(String, String)>) {
    let mut root = BTreeMap::new();
    let mut nodes: Vec<(String, String)> = Vec::new();
    let mut node = 0;
    let mut ident = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ';' => node += 1,
            'A'..='Z' => ident.push(c),
            '[' => {
                let mut v = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => v.push(chars.next().unwrap()),
                        ']' => break,
                        c => v.push(c),
                    }
                }
                if node == 1 {
                    root.insert(ident.clone(), v);
                } else {
                    nodes.push((ident.clone(), v));
                }
                ident.clear();
            }
            _ => {}
        }
    }
    (root, nodes)
}

pub fn truth_of(record: &str) -> Truth {
    let (props, nodes) = scan(record);
    let size: u8 = props["SZ"].parse().unwrap();
    let board = Board::new(size).unwrap();
    let mut rules: Ruleset = props["RU"].parse().unwrap();
    rules.komi = props["KM"].parse::<HalfPoints>().unwrap();
    let mut game = Game::new(board, rules);
    let mut moves = Vec::new();
    let mut comments = Vec::new();
    for (k, v) in nodes {
        match k.as_str() {
            "B" | "W" => {
                let mv = match v.as_str() {
                    "" | "pass" => Move::Pass,
                    "button" => Move::TakeButton,
                    p => Move::Place(board.parse_point(p).unwrap()),
                };
                game.play(mv).unwrap();
                moves.push(mv);
            }
            "C" => comments.push(v),
            _ => {}
        }
    }
    let re = props["RE"].clone();
    let (winner, status) = if game.is_over() {
        (game.score().winner(), "complete")
    } else if re.ends_with("+R") {
        (
            Some(if re.starts_with('B') {
                Color::Black
            } else {
                Color::White
            }),
            "resigned",
        )
    } else {
        (None, "unfinished")
    };
    let day = props
        .get("DT")
        .map(|d| d[..10].to_string())
        .unwrap_or_default();
    Truth {
        record: record.to_string(),
        props,
        comments,
        size,
        moves,
        winner,
        status,
        day,
    }
}

/// A generated corpus and its truth.
pub fn corpus(games: u64, size: u8, seed: u64) -> (String, Vec<Truth>) {
    let config = GeneratorConfig {
        games,
        size,
        seed,
        ..GeneratorConfig::default()
    };
    let mut text = String::new();
    let mut truth = Vec::new();
    for g in Generator::new(config).unwrap() {
        text.push_str(&g.record);
        truth.push(truth_of(&g.record));
    }
    (text, truth)
}

/// A plain SQLite connection to an archive's database, for tests that check
/// the storage itself (the import log, invariants between tables): the
/// archive's API keeps its connections to itself.
pub fn storage(archive: &Archive) -> rusqlite::Connection {
    let file = archive.dir().join(keil_archive::SQLITE_FILE);
    rusqlite::Connection::open_with_flags(&file, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap()
}

pub fn bytes(name: &str, text: &str) -> ImportSource {
    ImportSource::Bytes {
        name: name.into(),
        bytes: text.as_bytes().to_vec(),
    }
}

pub fn import(archive: &Archive, sources: &[ImportSource]) -> ImportReport {
    archive
        .import(
            sources,
            &ImportOptions {
                batch_size: 64,
                ..ImportOptions::default()
            },
            &mut |_| {},
        )
        .unwrap()
}

/// Folds like a player would expect, written independently of the crate:
/// lower case, the accents of the test names stripped.
pub fn plain(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' | 'Á' => 'a',
            'é' | 'è' | 'ê' | 'ë' | 'É' => 'e',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ó' | 'ò' | 'ô' | 'ö' | 'õ' | 'ø' | 'Ø' | 'Ö' => 'o',
            'ú' | 'ù' | 'û' | 'ü' | 'Ü' => 'u',
            'ñ' => 'n',
            'ç' => 'c',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// The `.sgf` files (any case) of the shared real computer-Go collection,
/// recursively in name order; `None`, with a note, when the shared data is
/// absent (the tests that use it then skip).
pub fn real_sgf_files() -> Option<Vec<std::path::PathBuf>> {
    use std::path::{Path, PathBuf};
    let data = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/sgf-real/yenw__computer-go-dataset");
    if !data.is_dir() {
        println!("skipped: {} is absent", data.display());
        return None;
    }
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("sgf")) {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&data, &mut out);
    Some(out)
}

/// Turns an archive of this crate's schema (16) back into schema 10 (what
/// an archive written before removals holds). Run on a plain connection to
/// a closed archive.
pub const UNDO_SCHEMA_11: &str = "
    DROP INDEX games_collection; DROP INDEX games_facts;
    ALTER TABLE games DROP COLUMN collection_id; DROP TABLE collections;
    CREATE INDEX games_facts ON games(id, date, winner, black_id, white_id, komi, handicap,
        black_rank_ord, white_rank_ord, event, result, black_rank, white_rank);
    DROP INDEX people_name; ALTER TABLE people DROP COLUMN name_set;
    DROP TABLE upgrades; DROP INDEX import_problems_reason; DROP INDEX import_problems_hash;
    ALTER TABLE import_problems DROP COLUMN mv; ALTER TABLE import_problems DROP COLUMN size;
    ALTER TABLE import_problems DROP COLUMN kind; ALTER TABLE import_problems DROP COLUMN hash;
    ALTER TABLE import_problems DROP COLUMN record; DROP TABLE game_links;
    ALTER TABLE game_sources DROP COLUMN differs; ALTER TABLE game_sources DROP COLUMN transform;
    ALTER TABLE game_sources DROP COLUMN merge_kind;
    ALTER TABLE games DROP COLUMN game_index; ALTER TABLE games DROP COLUMN source;
    DROP INDEX games_facts;
    DROP TABLE derived_blocks; DROP TABLE removed_records; DROP TABLE removals;
    PRAGMA user_version = 10;";

/// Turns an archive of schema 16 back into schema 8 (what an archive written
/// before people, signatures and the events' vocabulary holds), for tests
/// of the migrations: the
/// person ids become spelling ids again (right when no two spellings share
/// a person, as in generated games). Run on a plain connection to a closed
/// archive.
pub const UNDO_SCHEMA_9: &str = "
    DROP INDEX games_collection; DROP INDEX games_facts;
    ALTER TABLE games DROP COLUMN collection_id; DROP TABLE collections;
    CREATE INDEX games_facts ON games(id, date, winner, black_id, white_id, komi, handicap,
        black_rank_ord, white_rank_ord, event, result, black_rank, white_rank);
    DROP INDEX people_name; ALTER TABLE people DROP COLUMN name_set;
    DROP TABLE upgrades; DROP INDEX import_problems_reason; DROP INDEX import_problems_hash;
    ALTER TABLE import_problems DROP COLUMN mv; ALTER TABLE import_problems DROP COLUMN size;
    ALTER TABLE import_problems DROP COLUMN kind; ALTER TABLE import_problems DROP COLUMN hash;
    ALTER TABLE import_problems DROP COLUMN record; DROP TABLE game_links;
    ALTER TABLE game_sources DROP COLUMN differs; ALTER TABLE game_sources DROP COLUMN transform;
    ALTER TABLE game_sources DROP COLUMN merge_kind;
    ALTER TABLE games DROP COLUMN game_index; ALTER TABLE games DROP COLUMN source;
    DROP INDEX games_facts;
    DROP TABLE derived_blocks; DROP TABLE removed_records; DROP TABLE removals;
    DROP TABLE events;
    DROP TRIGGER counts_people_insert; DROP TRIGGER counts_people_delete;
    DELETE FROM counts WHERE name = 'people';
    CREATE TABLE old_game_players (
        player_id INTEGER NOT NULL REFERENCES players(id), date TEXT NOT NULL,
        game_id INTEGER NOT NULL REFERENCES games(id), color INTEGER NOT NULL,
        opponent_id INTEGER REFERENCES players(id), won INTEGER,
        PRIMARY KEY (player_id, date, game_id, color)) WITHOUT ROWID;
    INSERT INTO old_game_players
        SELECT CASE color WHEN 0 THEN g.black_id ELSE g.white_id END, gp.date, gp.game_id,
               gp.color, CASE color WHEN 0 THEN g.white_id ELSE g.black_id END,
               CASE WHEN g.winner IS NULL THEN NULL ELSE g.winner = gp.color END
          FROM game_players gp JOIN games g ON g.id = gp.game_id;
    DROP TABLE game_players;
    ALTER TABLE old_game_players RENAME TO game_players;
    CREATE INDEX game_players_game ON game_players(game_id);
    DROP INDEX players_person; ALTER TABLE players DROP COLUMN person;
    DROP TABLE game_sources; DROP TABLE player_aliases; DROP TABLE people;
    DROP INDEX games_signature; ALTER TABLE games DROP COLUMN signature;
    ALTER TABLE imports DROP COLUMN merged;
    PRAGMA user_version = 8;";

/// The backend the archive tests run on: `KEIL_TEST_STORE=postgres` runs
/// them on PostgreSQL (one throwaway cluster per test process, a database
/// per archive directory), anything else on the embedded SQLite store.
pub fn on_postgres() -> bool {
    std::env::var("KEIL_TEST_STORE").is_ok_and(|v| v == "postgres")
}

/// Whether a test that inspects the embedded store itself (its file, its
/// pages, a copy of its directory) runs: not on PostgreSQL, where it says
/// so and skips.
pub fn embedded_only(test: &str) -> bool {
    if on_postgres() {
        println!("skipped on PostgreSQL: {test} inspects the embedded store's file");
        return false;
    }
    true
}

/// The archive location for directory `dir` on the backend under test:
/// the directory itself, or (on PostgreSQL) the database named after the
/// directory, created at the first call, with `dir` as the node-local
/// directory. The same directory gives the same database, so a test that
/// reopens an archive finds it.
pub fn at(dir: impl AsRef<std::path::Path>) -> keil_archive::Location {
    let dir = dir.as_ref();
    if !on_postgres() {
        return keil_archive::Location::Directory(dir.to_path_buf());
    }
    let cluster = keil_testpg::Cluster::shared()
        .expect("KEIL_TEST_STORE=postgres needs PostgreSQL's server (Debian's postgresql)");
    let hash = blake3::hash(dir.to_string_lossy().as_bytes());
    let name = format!("keil_{}", &hash.to_hex()[..16]);
    keil_archive::Location::Postgres {
        url: cluster.ensure_database(&name),
        replicas: Vec::new(),
        dir: dir.to_path_buf(),
    }
}

/// Runs `sql` on the store of the archive at `dir` (a test's look at the
/// tables themselves, on either backend) and returns its rows, each cell
/// as text (`NULL` as the empty string, integers in decimal). A statement
/// that is not a `SELECT` returns one row: the rows it changed.
pub fn query(dir: impl AsRef<std::path::Path>, sql: &str) -> Vec<Vec<String>> {
    let select = sql.trim_start().to_ascii_uppercase().starts_with("SELECT");
    match at(dir.as_ref()) {
        keil_archive::Location::Postgres { url, .. } => {
            let cluster = keil_testpg::Cluster::shared().unwrap();
            let db = url.rsplit('/').next().unwrap();
            let sql = if select {
                sql.to_string()
            } else {
                format!("WITH changed AS ({sql} RETURNING 1) SELECT COUNT(*) FROM changed")
            };
            let out = cluster.psql(db, &sql);
            out.lines()
                .filter(|l| !l.is_empty())
                .map(|l| l.split('|').map(str::to_string).collect())
                .collect()
        }
        location => {
            let file = location.dir().join(keil_archive::SQLITE_FILE);
            let conn = rusqlite::Connection::open(file).unwrap();
            if !select {
                return vec![vec![conn.execute(sql, []).unwrap().to_string()]];
            }
            let mut stmt = conn.prepare(sql).unwrap();
            let n = stmt.column_count();
            stmt.query_map([], |r| {
                (0..n)
                    .map(|i| {
                        use rusqlite::types::ValueRef;
                        Ok(match r.get_ref(i)? {
                            ValueRef::Null => String::new(),
                            ValueRef::Integer(v) => v.to_string(),
                            ValueRef::Real(v) => v.to_string(),
                            ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                            ValueRef::Blob(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
                        })
                    })
                    .collect()
            })
            .unwrap()
            .map(Result::unwrap)
            .collect()
        }
    }
}

/// The first cell of [`query`] as an integer.
pub fn scalar(dir: impl AsRef<std::path::Path>, sql: &str) -> i64 {
    query(dir, sql)[0][0].parse().unwrap()
}

/// A bytes literal for [`query`] on the backend under test, from hex.
pub fn bytes_literal(hex: &str) -> String {
    if on_postgres() {
        format!("'\\x{hex}'::bytea")
    } else {
        format!("x'{hex}'")
    }
}

/// `games` generated 19×19 Go records from `seed` (keil-gen), one string
/// each.
pub fn go_records(games: u64, seed: u64) -> Vec<String> {
    Generator::new(GeneratorConfig {
        game: keil_rules::GameKind::Go,
        games,
        size: 19,
        seed,
        ..GeneratorConfig::default()
    })
    .unwrap()
    .map(|g| g.record)
    .collect()
}
