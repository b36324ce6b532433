//! `keil` on a PostgreSQL archive (`--db postgres://…`), on a throwaway
//! cluster: every command answers as on the embedded archive of the same
//! games, and two `keil serve` nodes on one database serve one archive (an
//! upload on one is found on the other; a removal on one is gone from the
//! other; a node killed with -9 and started again answers the same), and
//! an importer killed with -9 leaves whole batches that a rerun completes.
//! Skips, with a note, where PostgreSQL's server is not installed.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const KEIL: &str = env!("CARGO_BIN_EXE_keil");
const TOKEN: &str = "postgres-test-token-0123456789";

fn keil(args: &[&str]) -> String {
    let out = Command::new(KEIL).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "keil {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// What each test starts from: a throwaway cluster with database `db`
/// (its URL), a temporary directory, and `games` generated 19×19 Go games
/// (`seed`) in `games.sgf` there; `None` where PostgreSQL is not
/// installed.
struct Setup {
    pg: keil_testpg::Cluster,
    url: String,
    dir: tempfile::TempDir,
    games: PathBuf,
}

fn setup(db: &str, games: u32, seed: u32) -> Option<Setup> {
    let pg = keil_testpg::Cluster::start()?;
    let url = pg.create_database(db);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("games.sgf");
    let (games, seed) = (games.to_string(), seed.to_string());
    let generated = keil(&[
        "generate", "--game", "go", "--games", &games, "--seed", &seed,
    ]);
    std::fs::write(&file, generated).unwrap();
    Some(Setup {
        pg,
        url,
        dir,
        games: file,
    })
}

/// `value` without what differs between two archives of the same games
/// (sizes on disk, the import log's ids and times).
fn comparable(mut value: serde_json::Value) -> serde_json::Value {
    if let Some(o) = value.as_object_mut() {
        for key in [
            "store_bytes",
            "tantivy_bytes",
            "bytes_per_game",
            "import_id",
            "elapsed_ms",
            "elapsed",
            "games_per_second",
        ] {
            o.remove(key);
        }
    }
    value
}

#[test]
fn every_command_answers_on_postgres_as_on_the_embedded_archive() {
    // The cluster lives as long as the test (bound, never used).
    let Some(Setup {
        pg: _pg,
        url,
        dir,
        games,
    }) = setup("commands", 40, 3)
    else {
        return;
    };
    let embedded = dir.path().join("db");
    let embedded = embedded.to_str().unwrap();
    let games = games.to_str().unwrap();
    let node = dir.path().join("node");
    let run = |db: &str, args: &[&str]| -> String {
        let out = Command::new(KEIL)
            .args(args)
            .args(["--db", db])
            .env("KEIL_NODE_DIR", &node)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "keil {args:?} --db {db}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    for db in [embedded, url.as_str()] {
        let report: serde_json::Value =
            serde_json::from_str(&run(db, &["import", "--json", games])).unwrap();
        assert_eq!(report["counts"]["imported"], 40, "{report}");
    }
    let both = |args: &[&str]| -> (String, String) { (run(embedded, args), run(&url, args)) };
    let same_json = |args: &[&str]| {
        let (a, b) = both(args);
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_str(&a).unwrap(),
            serde_json::from_str(&b).unwrap(),
        );
        assert_eq!(comparable(a), comparable(b), "keil {args:?}");
    };
    same_json(&["stats", "--json"]);
    same_json(&["search", "games", "--json"]);
    same_json(&["search", "players", "a", "--json"]);
    same_json(&["search", "pattern", "--json", "--size", "19", "X:dd O:cc"]);
    same_json(&[
        "search",
        "pattern",
        "--json",
        "--mode",
        "corner",
        "...../...../..X../...O./.....",
    ]);
    let (a, b) = both(&["export"]);
    assert_eq!(a, b, "keil export");
    // A second import of the same games stores none.
    for db in [embedded, url.as_str()] {
        let again: serde_json::Value =
            serde_json::from_str(&run(db, &["import", "--json", games])).unwrap();
        assert_eq!(again["counts"]["duplicates"], 40, "{again}");
    }
    // Reindex and removal.
    assert!(run(&url, &["reindex"]).contains("reindexed 40 games"));
    run(&url, &["remove", "--by", "test", "7"]);
    run(embedded, &["remove", "--by", "test", "7"]);
    same_json(&["stats", "--json"]);
    same_json(&["search", "pattern", "--json", "--size", "19", "X:dd O:cc"]);
    // The password is never printed.
    let secret = url.replace("postgres@", "postgres:hunter2@");
    let out = Command::new(KEIL)
        .args(["stats", "--db", &secret])
        .env("KEIL_NODE_DIR", &node)
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!all.contains("hunter2"), "{all}");
}

/// A `keil serve` node on `db` with `cache` as its directory: the child
/// and its address.
fn serve(db: &str, cache: &Path, tokens: &Path) -> (std::process::Child, String) {
    let mut child = Command::new(KEIL)
        .args(["serve", "--addr", "127.0.0.1:0", "--no-demo", "--db", db])
        .arg("--cache-dir")
        .arg(cache)
        .arg("--token-file")
        .arg(tokens)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let mut said = String::new();
    let addr = loop {
        line.clear();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "the node ended: {said}"
        );
        said.push_str(&line);
        if let Some(i) = line.find("listening on http://") {
            let rest = &line[i + "listening on http://".len()..];
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = stderr.read_to_string(&mut rest);
    });
    (child, addr)
}

/// One HTTP/1.1 request: the status and the body.
fn http(addr: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\n\
         Content-Type: application/x-go-sgf\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status = out[9..12].parse().unwrap();
    let body = out
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (status, body)
}

/// What a node says of the player `name`: the games listed, and the text
/// search's hits.
fn found(addr: &str, name: &str) -> (String, String) {
    let q = name.replace(' ', "%20");
    let (s1, list) = http(addr, "GET", &format!("/api/v1/games?player={q}"), "");
    let (s2, text) = http(addr, "GET", &format!("/api/v1/search?q={q}"), "");
    assert_eq!((s1, s2), (200, 200), "{list}\n{text}");
    (list, text)
}

/// `found` on `addr` once both its list and its text search hold `name`
/// (`held`) or both leave it out, within 10 s: a node's lists read the
/// store, its text search answers from its last catch-up round while that
/// is fresh, so another node's write reaches it after a round or two.
fn found_when(addr: &str, name: &str, held: bool) -> (String, String) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (list, text) = found(addr, name);
        let settled = list.contains(name) == held && text.contains(name) == held;
        if settled || std::time::Instant::now() > deadline {
            return (list, text);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn two_nodes_serve_one_archive_and_a_killed_node_comes_back_the_same() {
    // The cluster lives as long as the test (bound, never used).
    let Some(Setup {
        pg: _pg,
        url,
        dir,
        games,
    }) = setup("nodes", 20, 4)
    else {
        return;
    };
    let tokens = dir.path().join("tokens");
    std::fs::write(&tokens, format!("op {TOKEN} operator\n")).unwrap();
    let status = Command::new(KEIL)
        .args(["import", "--db", &url])
        .arg(&games)
        .env("KEIL_NODE_DIR", dir.path().join("importer"))
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let cache = |n: &str| -> PathBuf { dir.path().join(n) };
    let (mut a, addr_a) = serve(&url, &cache("a"), &tokens);
    let (mut b, addr_b) = serve(&url, &cache("b"), &tokens);

    // An upload on A, found on B by player and by text.
    let name = "Nodeson Quince";
    let game = format!(
        "(;GM[1]FF[4]SZ[19]KM[6.5]RU[Japanese]PB[{name}]PW[Other Player]DT[2025-01-02]RE[B+R];B[pd];W[dp];B[pp];W[dd])"
    );
    let (status, body) = http(&addr_a, "POST", "/api/v1/games", &game);
    assert_eq!(status, 201, "{body}");
    let id = serde_json::from_str::<serde_json::Value>(&body).unwrap()["games"][0]["id"]
        .as_u64()
        .unwrap_or_else(|| panic!("{body}"));
    let (list, text) = found_when(&addr_b, name, true);
    assert!(list.contains(name), "B lists A's upload: {list}");
    assert!(
        text.contains(name),
        "B's text search finds A's upload: {text}"
    );

    // Killed with -9 and started again, B answers the same.
    let before = (
        found(&addr_b, name),
        http(&addr_b, "GET", "/api/v1/stats", "").1,
    );
    b.kill().unwrap();
    b.wait().unwrap();
    let (mut b, addr_b) = serve(&url, &cache("b"), &tokens);
    let after = (
        found(&addr_b, name),
        http(&addr_b, "GET", "/api/v1/stats", "").1,
    );
    assert_eq!(after, before);

    // A removal on A is gone from B.
    let (status, body) = http(&addr_a, "DELETE", &format!("/api/v1/games/{id}"), "");
    assert_eq!(status, 200, "{body}");
    let (list, text) = found_when(&addr_b, name, false);
    assert!(!list.contains(name), "B forgets A's removal: {list}");
    assert!(!text.contains(name), "{text}");
    for child in [&mut a, &mut b] {
        child.kill().unwrap();
        child.wait().unwrap();
    }
}

#[test]
fn a_killed_importer_leaves_whole_batches_and_the_rerun_completes() {
    let Some(Setup {
        pg,
        url,
        dir,
        games,
    }) = setup("killed", 6000, 8)
    else {
        return;
    };
    let import = || {
        let mut cmd = Command::new(KEIL);
        cmd.args(["import", "--batch", "25", "--db", &url])
            .arg(&games)
            .env("KEIL_NODE_DIR", dir.path().join("node"))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        cmd
    };
    let count = |sql: &str| -> i64 { pg.psql("killed", sql).parse().unwrap() };
    let mut child = import().spawn().unwrap();
    // Killed with -9 once a batch is in (of 240).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let ready = pg.psql(
            "killed",
            "SELECT COUNT(*) FROM pg_tables WHERE tablename = 'counts'",
        ) == "1";
        let stored = if ready {
            count("SELECT n FROM counts WHERE name = 'games'")
        } else {
            0
        };
        if stored >= 25 {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the import ended first"
        );
        assert!(std::time::Instant::now() < deadline, "no batch in 60 s");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // The server rolls the killed session's transaction back.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let stored = count("SELECT COUNT(*) FROM games");
    assert!(stored >= 25);
    assert!(stored < 6000, "killed before the end");
    assert_eq!(stored % 25, 0, "whole batches only: {stored}");
    assert_eq!(count("SELECT n FROM counts WHERE name = 'games'"), stored);
    assert_eq!(
        count("SELECT COUNT(DISTINCT game_id) FROM game_players"),
        stored
    );
    // The rerun stores the rest.
    assert!(import().status().unwrap().success());
    let total = count("SELECT COUNT(*) FROM games");
    assert!(total > stored);
    assert_eq!(total, count("SELECT COUNT(DISTINCT hash) FROM games"));
    let again: serde_json::Value = serde_json::from_str(&keil(&[
        "import",
        "--json",
        "--db",
        &url,
        games.to_str().unwrap(),
    ]))
    .unwrap();
    assert_eq!(again["counts"]["imported"], 0, "{again}");
}
