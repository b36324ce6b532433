//! Operating `keil`: output into a pipe that its reader closes early
//! (`keil stats | head -1`), `keil stats` on an archive that it must not
//! write, and `keil serve` stopped by SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::fresh;

const KEIL: &str = env!("CARGO_BIN_EXE_keil");

/// An archive of 30 generated Keil games in `dir/db`.
fn archive(dir: &Path) -> PathBuf {
    let out = Command::new(KEIL)
        .args(["generate", "--games", "30", "--seed", "5"])
        .output()
        .unwrap();
    assert!(out.status.success());
    std::fs::write(dir.join("games.keil"), &out.stdout).unwrap();
    let db = dir.join("db");
    let status = Command::new(KEIL)
        .arg("import")
        .arg("--db")
        .arg(&db)
        .arg(dir.join("games.keil"))
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    db
}

/// Runs `keil args` with its standard output a pipe that is closed before
/// the command writes: the command must end cleanly (status 0, no panic).
fn with_closed_stdout(args: &[&str], db: &Path) {
    let mut child = Command::new(KEIL)
        .args(args)
        .arg("--db")
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(
        !stderr.contains("panicked"),
        "keil {args:?} panicked: {stderr}"
    );
    assert_eq!(status.code(), Some(0), "keil {args:?}: {stderr}");
}

#[test]
fn a_closed_stdout_ends_stats_and_search_cleanly() {
    let dir = fresh("pipe");
    let db = archive(&dir);
    with_closed_stdout(&["stats", "--json"], &db);
    with_closed_stdout(&["stats"], &db);
    with_closed_stdout(&["search", "games"], &db);
    with_closed_stdout(&["search", "players", "a"], &db);
    let _ = std::fs::remove_dir_all(dir);
}

/// Every file under `dir` with its size and modification time.
fn snapshot(dir: &Path) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            if m.is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), m.len(), m.modified().unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn stats_and_search_write_nothing() {
    let dir = fresh("readonly");
    let db = archive(&dir);
    let before = snapshot(&db);
    for args in [&["stats", "--json"][..], &["search", "games"][..]] {
        let out = Command::new(KEIL)
            .args(args)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
    }
    assert_eq!(snapshot(&db), before);
    // A directory without an archive stays without one.
    let none = dir.join("none");
    let out = Command::new(KEIL)
        .args(["stats", "--db"])
        .arg(&none)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(!none.exists());
    let _ = std::fs::remove_dir_all(dir);
}

/// Reads the server's standard error until it says where it listens: the
/// address, and the lines before (what its start said).
fn listening(stderr: &mut BufReader<std::process::ChildStderr>) -> (String, String) {
    let mut start = String::new();
    let mut line = String::new();
    loop {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "the server ended");
        if let Some(i) = line.find("listening on http://") {
            let rest = &line[i + "listening on http://".len()..];
            return (rest.split_whitespace().next().unwrap().to_string(), start);
        }
        start.push_str(&line);
    }
}

/// The tests that start a server take turns: the SIGTERM tests time a
/// request in flight, and another test's import beside them (on a 2-core
/// machine) once left the server no time to take the request in.
fn one_server_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

/// A `keil serve` on `db` with a write token and this grace period (s),
/// logging at INFO: the child, its address, and its log (read to the end
/// on a thread, so that the server never blocks on a full pipe).
struct Served {
    child: std::process::Child,
    addr: String,
    /// What the server wrote before it listened.
    start: String,
    log: std::thread::JoinHandle<String>,
}

const TOKEN: &str = "sigterm-test-token-0123456789";
const GAME: &str = "(;GM[Keil]FF[4]SZ[2]KM[1]PB[Sig Term]PW[Bo]DT[2024-05-01]RE[B+6.5];B[button];W[c2];B[b2];W[pass];B[pass])";

fn serve(db: &Path, grace: &str) -> Served {
    serve_with(
        db,
        &[
            "--lazy-patterns".as_ref(),
            "--grace".as_ref(),
            grace.as_ref(),
        ],
    )
}

/// A `keil serve` on `db` (no demo, any free port, a token), with `extra`
/// arguments.
fn serve_with(db: &Path, extra: &[&std::ffi::OsStr]) -> Served {
    serve_with_env(db, extra, &[])
}

/// [`serve_with`] with these environment variables too.
fn serve_with_env(
    db: &Path,
    extra: &[&std::ffi::OsStr],
    env: &[(&str, &std::ffi::OsStr)],
) -> Served {
    let mut child = Command::new(KEIL)
        .args(["serve", "--addr", "127.0.0.1:0", "--no-demo"])
        .args(extra)
        .arg("--db")
        .arg(db)
        .envs(env.iter().copied())
        .env("KEIL_TOKEN", TOKEN)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let (addr, start) = listening(&mut stderr);
    let log = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = stderr.read_to_string(&mut rest);
        rest
    });
    Served {
        child,
        addr,
        start,
        log,
    }
}

/// Starts an upload of [`GAME`] whose body stops after 10 bytes, and
/// gives the server time to take the request in.
fn start_upload(addr: &str) -> TcpStream {
    let mut upload = TcpStream::connect(addr).unwrap();
    upload
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(
        upload,
        "POST /api/v1/games HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/x-go-sgf\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        GAME.len()
    )
    .unwrap();
    upload.write_all(&GAME.as_bytes()[..10]).unwrap();
    upload.flush().unwrap();
    // Time for the server to take the request in (under a loaded test run
    // 300 ms was once too short: the connection was not yet in flight).
    std::thread::sleep(Duration::from_millis(1500));
    upload
}

/// Whether the archive at `db` holds [`GAME`] (its black player's games).
fn stored(db: &Path) -> bool {
    let out = Command::new(KEIL)
        .args(["search", "games", "--player", "Sig Term", "--json", "--db"])
        .arg(db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).contains("Sig Term")
}

/// Sends SIGTERM to `child`.
fn terminate(child: &std::process::Child) {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits for `child` to end, at most `limit` after `since`.
fn exit_within(child: &mut std::process::Child, since: Instant, limit: Duration) -> Option<i32> {
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s.code();
        }
        assert!(
            since.elapsed() < limit,
            "still running {limit:?} after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// SIGTERM: the server stops accepting, lets the request in flight (an
/// upload whose body is still arriving) finish and answer, and exits 0
/// well within the grace period.
/// (actix-server 2.6's own graceful stop dropped it in about 1 run in 4:
/// actix/actix-net#945; the server now stops itself, `shutdown.rs`.)
#[test]
fn sigterm_finishes_the_request_in_flight_and_exits_cleanly() {
    let _turn = one_server_at_a_time();
    let dir = fresh("sigterm");
    let db = archive(&dir);
    let Served {
        mut child,
        addr,
        log,
        ..
    } = serve(&db, "5");
    let mut upload = start_upload(&addr);

    let term = Instant::now();
    terminate(&child);
    std::thread::sleep(Duration::from_millis(500));
    // No new connection is served.
    let refused = TcpStream::connect(&addr).and_then(|mut s| {
        s.set_read_timeout(Some(Duration::from_secs(2)))?;
        write!(s, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")?;
        let mut b = [0u8; 1];
        s.read(&mut b)
    });
    assert!(!matches!(refused, Ok(n) if n > 0), "served after SIGTERM");
    // The upload in flight completes and is answered.
    upload.write_all(&GAME.as_bytes()[10..]).unwrap();
    let mut answer = String::new();
    upload.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");

    let code = exit_within(&mut child, term, Duration::from_secs(5));
    let log = log.join().unwrap();
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("SIGTERM"), "{log}");
    assert!(stored(&db), "{log}");
    // The request's log lines name its id.
    let request_lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("/api/v1/games"))
        .collect();
    assert!(!request_lines.is_empty(), "{log}");
    assert!(
        request_lines.iter().all(|l| l.contains("request_id=")),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// SIGTERM with a request that does not finish: the server waits for it
/// the grace period and no longer, then closes it (nothing stored) and
/// exits 0.
#[test]
fn sigterm_closes_what_is_unfinished_after_the_grace_period() {
    let _turn = one_server_at_a_time();
    let dir = fresh("sigterm-grace");
    let db = archive(&dir);
    let Served {
        mut child,
        addr,
        log,
        ..
    } = serve(&db, "1");
    let mut upload = start_upload(&addr);
    let term = Instant::now();
    terminate(&child);
    let code = exit_within(&mut child, term, Duration::from_secs(4));
    assert!(
        term.elapsed() >= Duration::from_millis(900),
        "{:?}",
        term.elapsed()
    );
    let log = log.join().unwrap();
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("grace period over"), "{log}");
    let mut answer = String::new();
    let _ = upload.read_to_string(&mut answer);
    assert!(!answer.contains("201"), "{answer}");
    // The interrupted upload stored nothing.
    assert!(!stored(&db), "{log}");
    let _ = std::fs::remove_dir_all(dir);
}

/// `keil remove`: removes the named games, logs them with who and why
/// (`--list`), fails naming the ids that are no game, and the archive's
/// count follows.
#[test]
fn remove_takes_games_out_and_logs_who_asked() {
    let dir = fresh("remove");
    let db = archive(&dir);
    let keil = |args: &[&str]| {
        Command::new(KEIL)
            .args(args)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap()
    };
    let games = |out: std::process::Output| -> u64 {
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["games"].as_u64().unwrap()
    };
    assert_eq!(games(keil(&["stats", "--json"])), 30);
    let out = keil(&["remove", "3", "7", "--reason", "junk upload", "--by", "ana"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("removed game 3: ") && text.contains("removed game 7: "),
        "{text}"
    );
    assert_eq!(games(keil(&["stats", "--json"])), 28);
    // An id that is no game (any more) fails, naming it; the others go.
    let out = keil(&["remove", "7", "9"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no game with id 7"), "{err}");
    assert_eq!(games(keil(&["stats", "--json"])), 27);
    let stats: serde_json::Value =
        serde_json::from_slice(&keil(&["stats", "--json"]).stdout).unwrap();
    assert_eq!(stats["removed"], 3);
    let out = keil(&["remove", "--list", "--json"]);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let log = log.as_array().unwrap();
    assert_eq!(log.len(), 3);
    assert_eq!(log[2]["game_id"], 3);
    assert_eq!(log[2]["removed_by"], "cli:ana");
    assert_eq!(log[2]["reason"], "junk upload");
    assert_eq!(log[0]["game_id"], 9);
    let _ = std::fs::remove_dir_all(dir);
}

/// `keil serve --cache-dir DIR` loads the position and pattern indexes
/// through the cache before it listens, and writes the cache's files
/// while it serves (the segments' files synced on a thread, the pattern
/// index's snapshot once its region segments are merged): the directory
/// then holds both, and a position search answers as without it.
#[test]
fn serve_writes_its_cache_while_it_serves() {
    let _turn = one_server_at_a_time();
    let dir = fresh("segment-cache");
    let db = archive(&dir);
    let cache = dir.join("cache");
    let mut served = serve_with(&db, &["--cache-dir".as_ref(), cache.as_os_str()]);
    let addr = served.addr.clone();
    let listing = || -> Vec<String> {
        std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    let waited = std::time::Instant::now();
    let mut files = listing();
    while !(files.iter().any(|n| n.ends_with(".seg"))
        && files.iter().any(|n| n == "patterns.snapshot"))
        && waited.elapsed() < std::time::Duration::from_secs(60)
    {
        std::thread::sleep(std::time::Duration::from_millis(50));
        files = listing();
    }
    assert!(
        files.iter().any(|n| n.ends_with(".seg")),
        "no segment file in {}",
        cache.display()
    );
    assert!(
        files.iter().any(|n| n == "patterns.snapshot"),
        "no pattern snapshot in {}: {files:?}",
        cache.display()
    );
    // The empty side-7 board: every game passes through it.
    let mut http = TcpStream::connect(&addr).unwrap();
    write!(
        http,
        "GET /api/v1/positions?position=7/8/9/10/11/12/13/12/11/10/9/8/7&limit=1 HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    http.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"total_games\":30"), "{answer}");
    assert!(
        served.start.contains("from the pattern blocks"),
        "{}",
        served.start
    );
    terminate(&served.child);
    let _ = served.child.wait();
    // The next start maps the pattern index from the snapshot: everything
    // the cache holds is mapped until a budget pins it into the heap.
    let mut again = serve_with(&db, &["--cache-dir".as_ref(), cache.as_os_str()]);
    assert!(
        again.start.contains("from the cache's snapshot"),
        "{}",
        again.start
    );
    assert!(!again.start.contains("0 B mapped"), "{}", again.start);
    terminate(&again.child);
    let _ = again.child.wait();
    let mut pinned = serve_with(
        &db,
        &[
            "--cache-dir".as_ref(),
            cache.as_os_str(),
            "--index-memory".as_ref(),
            "1GiB".as_ref(),
        ],
    );
    assert!(
        pinned.start.contains("positions")
            && pinned.start.matches("+ 0 B mapped").count() == 2
            && pinned.start.contains("pinned in"),
        "{}",
        pinned.start
    );
    terminate(&pinned.child);
    let _ = pinned.child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The files in directory `dir` (none when it is not there).
fn files_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir).map_or_else(
        |_| Vec::new(),
        |entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        },
    )
}

/// Waits (at most 60 s) until directory `dir` holds a position segment's
/// file and the pattern index's snapshot, which a node writes while it
/// serves; its files then.
fn cache_written(dir: &Path) -> Vec<String> {
    let waited = Instant::now();
    loop {
        let files = files_in(dir);
        let done = files.iter().any(|n| n.ends_with(".seg"))
            && files.iter().any(|n| n == "patterns.snapshot");
        if done || waited.elapsed() > Duration::from_secs(60) {
            return files;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `keil serve --db DIR` with no cache flag keeps its node cache in
/// `DIR/cache/`: the first start derives the indexes and writes the
/// cache's files there, the second maps them (the pattern index from the
/// snapshot, the position segments mapped, not in the heap). Read-only,
/// it uses that folder when it is there, and otherwise (nothing made in
/// the archive's directory) a folder of the user's cache directory;
/// `--no-cache-dir` keeps none.
#[test]
fn serve_keeps_its_node_cache_in_the_archive_by_default() {
    let _turn = one_server_at_a_time();
    let dir = fresh("default-cache");
    let db = archive(&dir);
    let cache = db.join("cache");
    assert!(!cache.exists());
    let user_cache = dir.join("user-cache");
    let env = [("XDG_CACHE_HOME", user_cache.as_os_str())];
    let stop = |mut served: Served| {
        terminate(&served.child);
        let _ = served.child.wait();
        let _ = served.log.join();
    };

    let first = serve_with_env(&db, &[], &env);
    let said = format!("keil: node cache in {} (the default", cache.display());
    assert!(first.start.contains(&said), "{}", first.start);
    assert!(
        first.start.contains("from the pattern blocks"),
        "{}",
        first.start
    );
    let files = cache_written(&cache);
    assert!(
        files.iter().any(|n| n.ends_with(".seg")) && files.iter().any(|n| n == "patterns.snapshot"),
        "no segment file or pattern snapshot in {}: {files:?}",
        cache.display()
    );
    stop(first);

    let again = serve_with_env(&db, &[], &env);
    assert!(again.start.contains(&said), "{}", again.start);
    assert!(
        again.start.contains("from the cache's snapshot"),
        "{}",
        again.start
    );
    assert!(!again.start.contains("+ 0 B mapped"), "{}", again.start);
    stop(again);

    // Read-only, with the folder there: it is used.
    let read_only = serve_with_env(&db, &["--read-only".as_ref()], &env);
    assert!(read_only.start.contains(&said), "{}", read_only.start);
    assert!(
        read_only.start.contains("from the cache's snapshot"),
        "{}",
        read_only.start
    );
    stop(read_only);

    // No cache: the indexes in the heap, the cache's files left alone.
    let none = serve_with_env(&db, &["--no-cache-dir".as_ref()], &env);
    assert!(
        none.start.contains("no node cache (--no-cache-dir)"),
        "{}",
        none.start
    );
    assert!(
        none.start.contains("from the pattern blocks")
            && none.start.matches("+ 0 B mapped").count() == 2,
        "{}",
        none.start
    );
    stop(none);

    // Read-only without the folder: the user's cache directory's, and
    // nothing new in the archive's directory.
    std::fs::remove_dir_all(&cache).unwrap();
    let elsewhere = serve_with_env(&db, &["--read-only".as_ref()], &env);
    assert!(!cache.exists(), "{}", elsewhere.start);
    let keil_cache = user_cache.join("keil");
    let folders = files_in(&keil_cache);
    assert_eq!(folders.len(), 1, "{folders:?}: {}", elsewhere.start);
    let used = keil_cache.join(&folders[0]);
    assert!(
        elsewhere.start.contains(&format!(
            "keil: node cache in {} (the archive is read-only",
            used.display()
        )),
        "{}",
        elsewhere.start
    );
    let files = cache_written(&used);
    assert!(
        files.iter().any(|n| n.ends_with(".seg")),
        "{files:?}: {}",
        elsewhere.start
    );
    stop(elsewhere);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn index_memory_needs_a_node_cache_and_a_size() {
    let serve = |args: &[&str]| {
        let out = Command::new(KEIL)
            .args(["serve", "--db", "/nonexistent/keil-db"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "a usage error: {out:?}");
        String::from_utf8(out.stderr).unwrap()
    };
    let err = serve(&["--no-cache-dir", "--index-memory", "1GiB"]);
    assert!(err.contains("--no-cache-dir"), "{err}");
    let err = serve(&["--no-cache-dir", "--cache-dir", "/tmp/x"]);
    assert!(err.contains("cannot be used with"), "{err}");
    let err = serve(&["--cache-dir", "/tmp/x", "--index-memory", "lots"]);
    assert!(err.contains("is not a size"), "{err}");
}

/// The lines `keil serve` writes while it starts (its own, not the
/// request log's), with every number written `#`, `db` written `DB` and
/// its parent directory `DIR`.
fn start_lines(start: &str, db: &Path) -> Vec<String> {
    let parent = db.parent().unwrap().display().to_string();
    let db = db.display().to_string();
    start
        .lines()
        .filter(|l| l.starts_with("keil: "))
        .map(|l| common::mask_numbers(&l.replace(&db, "DB").replace(&parent, "DIR")))
        .collect()
}

/// What `keil serve` says while it starts, times and sizes masked: the
/// archive opened, the indexes loaded, their memory (pinned into a
/// budget), where it serves and whether it takes uploads.
#[test]
fn serve_says_what_it_opened_and_loaded() {
    let _turn = one_server_at_a_time();
    let dir = fresh("start-lines");
    let db = archive(&dir);
    let cache = dir.join("cache");
    let mut said = Vec::new();
    for extra in [
        &["--lazy-patterns".as_ref()][..],
        &[
            "--read-only".as_ref(),
            "--lazy-patterns".as_ref(),
            "--cache-dir".as_ref(),
            cache.as_os_str(),
            "--index-memory".as_ref(),
            "0".as_ref(),
        ],
        &["--lazy-patterns".as_ref(), "--no-cache-dir".as_ref()],
    ] {
        let mut served = serve_with(&db, extra);
        said.push(start_lines(&served.start, &db));
        terminate(&served.child);
        let _ = served.child.wait();
    }
    assert_eq!(
        said,
        [
            vec![
                "keil: archive opened in # s (its text index caught up)",
                "keil: node cache in DB/cache (the default: inside the archive; --no-cache-dir for none)",
                "keil: position index loaded in # s (the pattern index at the first pattern search)",
                "keil: index memory: positions # KiB heap + # KiB mapped, patterns # B heap + # B mapped",
                "keil: serving DB on http://#:# (uploads enabled)",
            ],
            vec![
                "keil: archive opened in # s (its text index caught up)",
                "keil: node cache in DIR/cache (--cache-dir)",
                "keil: position index loaded in # s (the pattern index at the first pattern search)",
                "keil: index memory: positions # KiB heap + # KiB mapped, patterns # B heap + # B mapped (# B pinned in # s, budget # B)",
                "keil: serving DB on http://#:# (uploads disabled: the archive is read-only; they answer #)",
            ],
            vec![
                "keil: archive opened in # s (its text index caught up)",
                "keil: no node cache (--no-cache-dir): the indexes are derived into the heap",
                "keil: position index loaded in # s (the pattern index at the first pattern search)",
                "keil: index memory: positions # KiB heap + # B mapped, patterns # B heap + # B mapped",
                "keil: serving DB on http://#:# (uploads enabled)",
            ],
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
