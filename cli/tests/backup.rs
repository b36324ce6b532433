//! Backups that restore: `keil backup` of an embedded archive
//! while imports keep writing it, and the copy verified (`keil verify`),
//! served and holding every game acknowledged before the backup began; a
//! PostgreSQL archive dumped with `pg_dump -Fc` and restored with
//! `pg_restore` into a new database, verified, holding its games, and
//! found by a node whose cache directory is ahead of it; a damaged store
//! named by `keil verify`. The PostgreSQL test skips, with a note, where
//! PostgreSQL's server is not installed.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const KEIL: &str = env!("CARGO_BIN_EXE_keil");

/// Runs `keil args` (with `KEIL_NODE_DIR` when given).
fn run(args: &[&OsStr], node: Option<&Path>) -> Output {
    let mut cmd = Command::new(KEIL);
    cmd.args(args);
    if let Some(node) = node {
        cmd.env("KEIL_NODE_DIR", node);
    }
    cmd.output().unwrap()
}

/// Runs `keil args`, which must succeed; returns its standard output.
fn ok(args: &[&OsStr], node: Option<&Path>) -> String {
    let out = run(args, node);
    assert!(
        out.status.success(),
        "keil {args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// `games` generated games (`kind`, `seed`) in `dir/name`.
fn generated(dir: &Path, name: &str, kind: &str, games: u32, seed: u32) -> PathBuf {
    let file = dir.join(name);
    let text = ok(
        &[
            os("generate"),
            os("--game"),
            os(kind),
            os("--games"),
            os(&games.to_string()),
            os("--seed"),
            os(&seed.to_string()),
        ],
        None,
    );
    std::fs::write(&file, text).unwrap();
    file
}

/// `keil import --json` of `file` into `db`: the games it stored.
fn import(db: &OsStr, file: &Path, node: Option<&Path>) -> u64 {
    let report: serde_json::Value = serde_json::from_str(&ok(
        &[os("import"), os("--json"), os("--db"), db, file.as_os_str()],
        node,
    ))
    .unwrap();
    report["counts"]["imported"].as_u64().unwrap()
}

/// `keil stats --json` of `db`.
fn stats(db: &OsStr, node: Option<&Path>) -> serde_json::Value {
    serde_json::from_str(&ok(&[os("stats"), os("--json"), os("--db"), db], node)).unwrap()
}

/// One HTTP/1.1 GET: the status and the body.
fn get(addr: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
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

#[test]
fn a_backup_taken_while_imports_run_verifies_serves_and_holds_every_acknowledged_game() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let first = generated(dir.path(), "first.keil", "keil", 60, 1);
    assert!(import(db.as_os_str(), &first, None) > 0);
    // Collections that an importer stores one after another while the
    // backup runs; a file counts as acknowledged once its import exited 0.
    let files: Vec<PathBuf> = (2..10)
        .map(|seed| generated(dir.path(), &format!("{seed}.keil"), "keil", 200, seed))
        .collect();
    let acknowledged = Arc::new(Mutex::new(vec![first]));
    let stop = Arc::new(AtomicBool::new(false));
    let importer = {
        let (db, acknowledged, stop) = (db.clone(), acknowledged.clone(), stop.clone());
        std::thread::spawn(move || {
            for file in files.iter().cycle() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                import(db.as_os_str(), file, None);
                acknowledged.lock().unwrap().push(file.clone());
            }
        })
    };
    // The backup starts once an import has been acknowledged beside it,
    // while the next one writes.
    let since = Instant::now();
    while acknowledged.lock().unwrap().len() < 2 {
        assert!(
            since.elapsed() < Duration::from_secs(300),
            "no import ended"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let before: Vec<PathBuf> = acknowledged.lock().unwrap().clone();
    let copy = dir.path().join("copy");
    let said = ok(
        &[os("backup"), os("--db"), db.as_os_str(), copy.as_os_str()],
        None,
    );
    assert!(said.contains("copied"), "{said}");
    stop.store(true, Ordering::SeqCst);
    importer.join().unwrap();

    // The copy is the store alone, and it is sound.
    let names: Vec<String> = std::fs::read_dir(&copy)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["archive.sqlite".to_string()]);
    let verified = ok(&[os("verify"), os("--db"), copy.as_os_str()], None);
    assert!(verified.contains("sound: no problem found"), "{verified}");

    // It serves: its indexes are built from its store.
    let mut child = Command::new(KEIL)
        .args(["serve", "--addr", "127.0.0.1:0", "--no-demo", "--db"])
        .arg(&copy)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let addr = loop {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "the server ended");
        if let Some(i) = line.find("listening on http://") {
            let rest = &line[i + "listening on http://".len()..];
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    let drain = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = stderr.read_to_string(&mut rest);
    });
    let games = stats(copy.as_os_str(), None)["games"].as_u64().unwrap();
    let (status, body) = get(&addr, "/api/v1/stats");
    assert_eq!(status, 200, "{body}");
    let served: serde_json::Value =
        serde_json::from_str(&body[body.find('{').unwrap()..=body.rfind('}').unwrap()]).unwrap();
    assert_eq!(served["games"].as_u64(), Some(games), "{served}");
    let (status, list) = get(&addr, "/api/v1/games?limit=5");
    assert_eq!(status, 200, "{list}");
    assert!(list.contains("\"id\""), "{list}");
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
    let _ = drain.join();
    let listed = ok(
        &[
            os("search"),
            os("games"),
            os("--json"),
            os("--db"),
            copy.as_os_str(),
        ],
        None,
    );
    assert!(listed.contains("\"id\""), "{listed}");

    // Every game acknowledged before the backup began is in the copy: an
    // import of those files into it stores nothing.
    for file in before {
        assert_eq!(
            import(copy.as_os_str(), &file, None),
            0,
            "{} was acknowledged before the backup, its games are in the copy",
            file.display()
        );
    }
}

#[test]
fn a_backup_refuses_a_destination_in_use_and_names_pg_dump_for_postgres() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let file = generated(dir.path(), "g.keil", "keil", 5, 3);
    import(db.as_os_str(), &file, None);
    // Never over an archive: the source itself, or any directory with files.
    let out = run(
        &[os("backup"), os("--db"), db.as_os_str(), db.as_os_str()],
        None,
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not empty"), "{err}");
    // PostgreSQL: the command to run, no connection needed.
    let out = run(
        &[
            os("backup"),
            os("--db"),
            os("postgres://keil:secret@db.example:5432/keil"),
            os("keil.dump"),
        ],
        None,
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "pg_dump --format=custom --file=keil.dump 'postgres://keil@db.example:5432/keil'"
        ),
        "{err}"
    );
    assert!(!err.contains("secret"), "{err}");
    // verify of a place without an archive fails and creates nothing.
    let none = dir.path().join("none");
    let out = run(&[os("verify"), os("--db"), none.as_os_str()], None);
    assert!(!out.status.success());
    assert!(!none.exists());
}

#[test]
fn a_postgres_dump_restored_into_a_new_database_verifies_and_a_node_ahead_of_it_starts_over() {
    let Some(pg) = keil_testpg::Cluster::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let node = dir.path().join("node");
    let live = pg.create_database("live");
    let games = generated(dir.path(), "games.sgf", "go", 30, 8);
    let later = generated(dir.path(), "later.sgf", "go", 12, 9);
    assert_eq!(import(os(&live), &games, Some(&node)), 30);
    // The backup, as docs/operating.md says: pg_dump -Fc, then pg_restore
    // into a new database of the same cluster.
    let dump = pg.dump("live");
    let restored = pg.create_database("restored");
    pg.restore(&dump, "restored");
    let verified = ok(&[os("verify"), os("--db"), os(&restored)], None);
    assert!(verified.contains("checked 30 games"), "{verified}");
    assert!(verified.contains("sound: no problem found"), "{verified}");

    // The live database goes on: the node's text index holds games the
    // restored database never had.
    assert_eq!(import(os(&live), &later, Some(&node)), 12);
    assert_eq!(stats(os(&live), Some(&node))["text_documents"], 42);
    // The same node directory on the restored database: its text index
    // is ahead of the store, so it starts over from the store.
    let s = stats(os(&restored), Some(&node));
    assert_eq!(
        (s["games"].as_u64(), s["text_documents"].as_u64()),
        (Some(30), Some(30)),
        "{s}"
    );
    // Games stored in the restored database now take the ids the live
    // one gave its later games, and are found by text.
    let other = generated(dir.path(), "other.sgf", "go", 12, 10);
    assert_eq!(import(os(&restored), &other, Some(&node)), 12);
    let s = stats(os(&restored), Some(&node));
    assert_eq!(s["text_documents"].as_u64(), Some(42), "{s}");
    assert!(ok(&[os("verify"), os("--db"), os(&restored)], None).contains("checked 42 games"));

    // A damaged store is named: a game's moves changed by hand.
    pg.psql(
        "restored",
        "UPDATE games SET moves = (SELECT moves FROM games WHERE id = 2) WHERE id = 1",
    );
    let out = run(&[os("verify"), os("--db"), os(&restored)], None);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("moves: game 1: "), "{said}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not sound"),
        "{out:?}"
    );
}
