//! Uploads and abuse: the game-tree limit, the bounded answer, empty and
//! binary bodies, slow bodies (408), a full disk (507), per-client rate
//! limits (429 with Retry-After), wrong tokens, and the token file (named
//! tokens, refusal at start, revocation by editing).

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::agent;
use keil_archive::Archive;
use keil_gen::GeneratorConfig;
use keil_server::ServerOptions;
use keil_server::limits::RateLimits;
use serde_json::Value;

const TOKEN: &str = "abuse-token-0123456";

struct Fixture {
    base: String,
    addr: SocketAddr,
    archive: Arc<Archive>,
    dir: tempfile::TempDir,
}

/// A server over an empty archive, with `tune`'s options (rate limits off
/// unless set).
fn start(tune: impl FnOnce(&mut ServerOptions, &Path)) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let archive = Arc::new(Archive::open(dir.path().join("db")).unwrap());
    let mut options = ServerOptions {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        token: Some(TOKEN.into()),
        max_upload: 4 << 20,
        workers: Some(1),
        rate_limits: RateLimits::off(),
        ..ServerOptions::new(Arc::clone(&archive))
    };
    tune(&mut options, dir.path());
    let addr = common::serve(options);
    Fixture {
        base: format!("http://{addr}"),
        addr,
        archive,
        dir,
    }
}

fn corpus(games: u64, seed: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let config = GeneratorConfig {
        games,
        size: 7,
        seed,
        ..GeneratorConfig::default()
    };
    keil_gen::write_collection(config, &mut out).unwrap();
    out
}

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Asserts a problem document with this status; returns its detail.
    fn problem(&self, status: u16) -> String {
        assert_eq!(self.status, status, "{}", self.body);
        assert_eq!(
            self.header("content-type"),
            Some("application/problem+json")
        );
        self.json()["detail"].as_str().unwrap().to_string()
    }
}

fn send(req: ureq::RequestBuilder<ureq::typestate::WithBody>, body: Vec<u8>) -> Reply {
    reply(req.send(body).unwrap())
}

fn reply(mut r: ureq::http::Response<ureq::Body>) -> Reply {
    let headers = r
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    Reply {
        status: r.status().as_u16(),
        headers,
        body: r
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_string()
            .unwrap(),
    }
}

/// POSTs an upload with `token`, from `client` (an `X-Forwarded-For`
/// value) when given.
fn upload(f: &Fixture, token: &str, client: Option<&str>, body: impl Into<Vec<u8>>) -> Reply {
    let mut req = agent()
        .post(&format!("{}/api/v1/games", f.base))
        .header("Authorization", &format!("Bearer {token}"));
    if let Some(c) = client {
        req = req.header("X-Forwarded-For", c);
    }
    send(req, body.into())
}

fn get(f: &Fixture, path: &str, client: Option<&str>) -> Reply {
    let mut req = agent().get(&format!("{}{path}", f.base));
    if let Some(c) = client {
        req = req.header("X-Forwarded-For", c);
    }
    reply(req.call().unwrap())
}

fn games(f: &Fixture) -> u64 {
    f.archive.stats().unwrap().games
}

// ---- uploads are bounded and honest ------------------------------------------------

#[test]
fn more_game_trees_than_the_limit_are_413_and_nothing_is_stored() {
    let f = start(|o, _| o.max_upload_games = 5);
    let detail = upload(&f, TOKEN, None, corpus(6, 1)).problem(413);
    assert!(
        detail.contains("6 game trees") && detail.contains("limit of 5"),
        "{detail}"
    );
    assert_eq!(games(&f), 0);
    let r = upload(&f, TOKEN, None, corpus(5, 1));
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(games(&f), 5);
}

#[test]
fn many_refusals_answer_a_bounded_summary() {
    // 100 KB of `(;)`: 34,133 empty game trees, each refused.
    let n = 34_133;
    let f = start(|o, _| o.max_upload_games = 50_000);
    let r = upload(&f, TOKEN, None, "(;)".repeat(n));
    assert_eq!(r.status, 422, "{}", &r.body[..r.body.len().min(500)]);
    assert!(r.body.len() < 100_000, "{} bytes", r.body.len());
    let a = r.json();
    assert_eq!(a["trees"], n);
    assert_eq!(a["invalid"], n);
    assert_eq!(a["reasons"]["empty_record"], n);
    assert_eq!(a["games"].as_array().unwrap().len(), 100);
    assert_eq!(a["truncated"], true);
    assert_eq!(a["games"][0]["reason"], "empty_record");
    assert_eq!(games(&f), 0);

    // Stored and duplicate games are listed up to 100 each, the counts
    // cover all.
    let body = corpus(130, 4);
    let a = upload(&f, TOKEN, None, body.clone()).json();
    assert_eq!(
        (a["stored"].as_u64(), a["trees"].as_u64()),
        (Some(130), Some(130))
    );
    assert_eq!(a["games"].as_array().unwrap().len(), 100);
    assert_eq!(a["truncated"], true);
    let a = upload(&f, TOKEN, None, body).json();
    assert_eq!(a["duplicates"], 130);
    assert_eq!(a["games"].as_array().unwrap().len(), 100);
    assert_eq!(a["games"][99]["outcome"], "duplicate");
}

/// A zip of `files` (name, bytes), deflated.
fn zip_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut b = keil_container::Bundle::new(keil_container::BundleFormat::Zip, Vec::new());
    for (name, bytes) in files {
        b.add(name, std::str::from_utf8(bytes).unwrap()).unwrap();
    }
    b.finish().unwrap()
}

fn brotli_of(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut out = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
        w.write_all(bytes).unwrap();
    }
    out
}

fn zlib(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn archives_and_gzip_bodies_are_unpacked_within_limits() {
    let f = start(|o, _| o.max_upload_games = 12);
    // A zip of one-game files, with a README that is skipped.
    let mut files: Vec<(String, Vec<u8>)> = (0..6)
        .map(|i| (format!("2019/g{i}.sgf"), corpus(1, 40 + i)))
        .collect();
    files.push(("README.txt".into(), b"six games".to_vec()));
    let req = agent()
        .post(&format!("{}/api/v1/games", f.base))
        .header("Authorization", &format!("Bearer {TOKEN}"))
        .header("Content-Type", "application/zip");
    let r = send(req, zip_of(&files));
    assert_eq!(r.status, 201, "{}", r.body);
    let a = r.json();
    assert_eq!(
        (a["stored"].as_u64(), a["trees"].as_u64()),
        (Some(6), Some(6))
    );
    assert_eq!(games(&f), 6);
    // A gzip body, sent as Content-Encoding.
    let req = agent()
        .post(&format!("{}/api/v1/games", f.base))
        .header("Authorization", &format!("Bearer {TOKEN}"))
        .header("Content-Type", "application/x-go-sgf")
        .header("Content-Encoding", "gzip");
    let r = send(req, gzip(&corpus(3, 77)));
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(games(&f), 9);
    // Brotli and deflate bodies (no magic bytes: read by the header).
    let post = |coding: &str, body: Vec<u8>| {
        let req = agent()
            .post(&format!("{}/api/v1/games", f.base))
            .header("Authorization", &format!("Bearer {TOKEN}"))
            .header("Content-Type", "application/x-go-sgf")
            .header("Content-Encoding", coding);
        send(req, body)
    };
    let r = post("br", brotli_of(&corpus(2, 78)));
    assert_eq!(r.status, 201, "{}", r.body);
    let r = post("deflate", zlib(&corpus(2, 79)));
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(games(&f), 13);
    let detail = post("compress", corpus(1, 80)).problem(415);
    assert!(detail.contains("Content-Encoding \"compress\""), "{detail}");
    let detail = post("br", b"not brotli at all".to_vec()).problem(415);
    assert!(detail.contains("does not decode"), "{detail}");
    // The same game with other headers: kept as another record of the
    // stored game, not a new game.
    let one = String::from_utf8(corpus(1, 78)).unwrap();
    let other = one.replacen("EV[", "EV[Another source: ", 1);
    assert_ne!(one, other);
    let r = upload(&f, TOKEN, None, other);
    assert_eq!(r.status, 200, "{}", r.body);
    let a = r.json();
    assert_eq!(a["merged"], 1, "{a}");
    assert_eq!(a["games"][0]["outcome"], "merged", "{a}");
    assert_eq!(games(&f), 13);
    // The merged record stays visible from its game: listed with its
    // game information and how it is the game, downloadable, viewable.
    let id = a["games"][0]["id"].as_i64().unwrap();
    let game = get(&f, &format!("/api/v1/games/{id}"), None).json();
    let records = game["records"].as_array().unwrap();
    assert_eq!(records.len(), 2, "{game}");
    assert_eq!(records[0]["record"], 0, "{game}");
    assert_eq!(records[1]["merge_kind"], "identical", "{game}");
    assert!(
        records[1]["event"]
            .as_str()
            .unwrap()
            .starts_with("Another source: "),
        "{game}"
    );
    let number = records[1]["record"].as_i64().unwrap();
    let text = get(&f, &format!("/api/v1/games/{id}/records/{number}"), None);
    assert_eq!(text.status, 200);
    assert!(text.body.contains("EV[Another source: "), "{}", text.body);
    let detail = get(&f, &format!("/api/v1/games/{id}/records/99999"), None).problem(404);
    assert!(detail.contains("no record 99999"), "{detail}");
    let detail = get(&f, &format!("/api/v1/games/{id}/records/-1"), None).problem(400);
    assert!(detail.contains("not a record number"), "{detail}");
    let page = get(&f, &format!("/games/{id}?record={number}"), None);
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("Records of this game"), "{}", page.body);
    assert!(page.body.contains("the same moves"), "{}", page.body);
    // More trees than the limit once unpacked: 413, nothing stored.
    let many: Vec<(String, Vec<u8>)> = vec![("all.sgf".into(), corpus(13, 5))];
    let detail = upload(&f, TOKEN, None, zip_of(&many)).problem(413);
    assert!(detail.contains("13 game trees"), "{detail}");
    // A bomb: 65 MiB of spaces (8 times the 8 MiB body limit, and more) in
    // a 65 KB gzip: 413, nothing stored.
    let bomb = gzip(&vec![b' '; 65 << 20]);
    assert!(bomb.len() < 1 << 20);
    let detail = upload(&f, TOKEN, None, bomb).problem(413);
    assert!(detail.contains("archive bomb"), "{detail}");
    // An archive without a record: 415.
    let readme = vec![("README.txt".to_string(), b"nothing".to_vec())];
    let detail = upload(&f, TOKEN, None, zip_of(&readme)).problem(415);
    assert!(detail.contains("no SGF"), "{detail}");
    assert_eq!(games(&f), 13);
}

/// `n` pseudo-random bytes (a fixed xorshift).
fn random_bytes(n: usize, mut seed: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect()
}

#[test]
fn binary_bodies_are_415_and_nothing_is_stored() {
    let f = start(|_, _| {});
    let random = random_bytes(200_000, 7);
    let detail = upload(&f, TOKEN, None, random).problem(415);
    assert!(
        detail.starts_with("the body is not an SGF collection: binary data"),
        "{detail}"
    );
    let mut zip = b"PK\x03\x04\x14\x00\x00\x00\x00\x00".to_vec();
    zip.extend_from_slice(b"(;GM[1]SZ[19]PB[Ann];B[pd])");
    upload(&f, TOKEN, None, zip).problem(415);
    // Empty trees alone: 422 with the reason, nothing stored.
    let r = upload(&f, TOKEN, None, "(;)(;GM[1]SZ[19])");
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(r.json()["reasons"]["empty_record"], 2);
    assert_eq!(games(&f), 0);
}

/// Sends the headers of an upload of `len` bytes, then one byte every
/// `every`; returns the answer's status line and the time it came.
fn trickle(addr: SocketAddr, len: usize, every: Duration) -> (String, Duration) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    let start = Instant::now();
    write!(
        s,
        "POST /api/v1/games HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/x-go-sgf\r\nContent-Length: {len}\r\n\r\n"
    )
    .unwrap();
    let mut answer = Vec::new();
    let mut answered = None;
    for _ in 0..len {
        let mut buf = [0u8; 4096];
        if let Ok(n) = s.read(&mut buf) {
            answer.extend_from_slice(&buf[..n]);
            if n > 0 {
                answered = Some(start.elapsed());
                break;
            }
        }
        // A write fails once the server has answered and closed.
        if s.write_all(b"(").is_err() || start.elapsed() > Duration::from_secs(20) {
            break;
        }
        thread::sleep(every);
    }
    s.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let _ = s.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).to_string();
    (text, answered.unwrap_or_else(|| start.elapsed()))
}

#[test]
fn a_slow_body_is_cut_off_with_408() {
    let f = start(|o, _| o.body_timeout = Duration::from_secs(1));
    let (answer, took) = trickle(f.addr, 1000, Duration::from_millis(250));
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("application/problem+json"), "{answer}");
    assert!(answer.contains("within 1 s"), "{answer}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert_eq!(games(&f), 0);
}

#[test]
fn a_full_disk_answers_507_with_what_was_stored_in_whole_batches() {
    let f = start(|o, _| o.upload_batch = 50);
    // Room for a batch or two (50 of these games and their derived blocks
    // take about 60 pages of 4 KiB).
    f.archive.cap_pages_for_tests(100).unwrap();
    let detail = upload(&f, TOKEN, None, corpus(600, 9)).problem(507);
    let stored: u64 = detail
        .split(" games were stored")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{detail}"));
    assert!(stored > 0 && stored < 600, "{detail}");
    assert_eq!(stored % 50, 0, "whole batches only: {detail}");
    assert_eq!(games(&f), stored);
    assert!(detail.contains("nothing is half-written"), "{detail}");
}

// ---- abuse is throttled per client -------------------------------------------------

fn retry_after(r: &Reply) -> u64 {
    r.header("retry-after").unwrap().parse().unwrap()
}

#[test]
fn searches_reads_and_uploads_have_separate_quotas_per_client() {
    let f = start(|o, _| {
        o.rate_limits = RateLimits {
            searches: 3,
            reads: 5,
            uploads: 2,
            search_seconds: 0,
            token_failures: 0,
            trust_proxy: true,
        }
    });
    let a = Some("9.9.9.9, 10.0.0.1");
    for _ in 0..3 {
        assert_eq!(get(&f, "/api/v1/search?q=x", a).status, 200);
    }
    let r = get(&f, "/api/v1/positions?q=x", a);
    let detail = r.problem(429);
    assert!(detail.contains("searches"), "{detail}");
    assert!((1..=20).contains(&retry_after(&r)), "{:?}", r.headers);
    // The search page draws on the same quota.
    assert_eq!(get(&f, "/search?q=x", a).status, 429);
    // The right-most address is the client: the left part is ignored.
    assert_eq!(get(&f, "/api/v1/search?q=x", Some("10.0.0.1")).status, 429);
    // Another client, and another class, are not affected.
    assert_eq!(get(&f, "/api/v1/search?q=x", Some("10.0.0.2")).status, 200);
    for _ in 0..5 {
        assert_eq!(get(&f, "/api/v1/games", a).status, 200);
    }
    get(&f, "/api/v1/stats", a).problem(429);
    // /healthz is never limited.
    assert_eq!(get(&f, "/healthz", a).status, 200);
    for _ in 0..2 {
        assert_ne!(upload(&f, TOKEN, a, "(;)").status, 429);
    }
    let detail = upload(&f, TOKEN, a, "(;)").problem(429);
    assert!(detail.contains("uploads"), "{detail}");
}

#[test]
fn wrong_tokens_block_the_clients_uploads() {
    let f = start(|o, _| {
        o.rate_limits = RateLimits {
            trust_proxy: true,
            ..RateLimits::off()
        };
        o.rate_limits.token_failures = 10;
    });
    let a = Some("10.0.0.7");
    for _ in 0..10 {
        upload(&f, "wrong-token-0123456", a, "(;)").problem(401);
    }
    let r = upload(&f, "wrong-token-0123456", a, "(;)");
    let detail = r.problem(429);
    assert!(detail.contains("tokens"), "{detail}");
    assert_eq!(retry_after(&r), 60);
    // Blocked: even the right token, until the window passes.
    upload(&f, TOKEN, a, corpus(1, 3)).problem(429);
    // Another client is not.
    assert_eq!(
        upload(&f, TOKEN, Some("10.0.0.8"), corpus(1, 3)).status,
        201
    );
}

// ---- tokens ---------------------------------------------------------------------

const ALICE: &str = "alice-token-0123456789";
const BOB: &str = "bob-token-0123456789";
const OPS: &str = "ops-token-0123456789";

#[test]
fn named_tokens_record_the_uploader_and_are_revoked_by_editing_the_file() {
    let f = start(|o, dir| {
        let file = dir.join("tokens");
        std::fs::write(
            &file,
            format!("# uploaders\nalice {ALICE}\nbob {BOB}\nops {OPS} operator\n"),
        )
        .unwrap();
        o.token = None;
        o.token_file = Some(file);
        o.rate_limits.uploads = 1;
        o.rate_limits.trust_proxy = true;
    });
    let r = upload(&f, ALICE, None, corpus(1, 21));
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["games"][0]["id"].as_i64().unwrap();
    let detail = get(&f, &format!("/api/v1/games/{id}"), None).json();
    assert_eq!(detail["uploaded_by"], "alice");
    assert!(!detail.to_string().contains(ALICE), "the token never shows");
    // The operator's uploads draw on no quota (1 a minute here).
    for seed in [22, 23, 24] {
        assert_eq!(upload(&f, OPS, None, corpus(1, seed)).status, 201);
    }

    // Revoke alice: the file is re-read when it changes, no restart.
    let file = f.dir.path().join("tokens");
    std::fs::write(&file, format!("bob {BOB}\n")).unwrap();
    let later = std::time::SystemTime::now() + Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(later)
        .unwrap();
    upload(&f, ALICE, Some("10.1.0.1"), corpus(1, 25)).problem(401);
    let r = upload(&f, BOB, Some("10.1.0.2"), corpus(1, 25));
    assert_eq!(r.status, 201, "{}", r.body);
}

#[test]
fn empty_token_files_and_short_tokens_refuse_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Arc::new(Archive::open(dir.path().join("db")).unwrap());
    let file = dir.path().join("tokens");
    let state = |token_file: Option<&Path>, token: Option<&str>| {
        let options = ServerOptions {
            token: token.map(str::to_string),
            token_file: token_file.map(Path::to_path_buf),
            ..ServerOptions::new(Arc::clone(&archive))
        };
        keil_server::ServerState::new(&options).map(|_| ())
    };
    std::fs::write(&file, "# no token yet\n\n").unwrap();
    let e = state(Some(&file), None).unwrap_err().to_string();
    assert!(
        e.contains("holds no token") && e.contains(&file.display().to_string()),
        "{e}"
    );
    std::fs::write(&file, format!("alice {ALICE}\nbob short-token\n")).unwrap();
    let e = state(Some(&file), None).unwrap_err().to_string();
    assert!(e.contains("line 2") && e.contains("at least 16"), "{e}");
    let e = state(None, Some("short")).unwrap_err().to_string();
    assert!(e.contains("at least 16"), "{e}");
    std::fs::write(&file, format!("{ALICE}\n")).unwrap();
    state(Some(&file), None).unwrap();
}

#[cfg(unix)]
#[test]
fn a_token_file_readable_by_others_is_warned_about() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tokens");
    std::fs::write(&file, format!("{ALICE}\n")).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let w = keil_server::tokens::permission_warning(&file).unwrap();
    assert!(w.contains("644") && w.contains("chmod 600"), "{w}");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert!(keil_server::tokens::permission_warning(&file).is_none());
}

#[cfg(unix)]
#[test]
fn sighup_rereads_the_token_file() {
    let f = start(|o, dir| {
        let file = dir.join("tokens");
        std::fs::write(&file, format!("alice {ALICE}\nbob {BOB}\n")).unwrap();
        o.token = None;
        o.token_file = Some(file);
    });
    let file = f.dir.path().join("tokens");
    let before = std::fs::metadata(&file).unwrap().modified().unwrap();
    assert_eq!(upload(&f, ALICE, None, corpus(1, 31)).status, 201);
    // Alice's line goes, the modification time stays: only the signal
    // makes the server read the file again.
    std::fs::write(&file, format!("bob {BOB}\n")).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(before)
        .unwrap();
    assert_eq!(upload(&f, ALICE, None, corpus(1, 32)).status, 201);
    let status = std::process::Command::new("kill")
        .args(["-HUP", &std::process::id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = upload(&f, ALICE, None, corpus(1, 33));
        if r.status == 401 {
            break;
        }
        assert!(Instant::now() < deadline, "still accepted: {}", r.status);
        thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(upload(&f, BOB, None, corpus(1, 34)).status, 201);
}

fn delete(f: &Fixture, path: &str, token: Option<&str>) -> Reply {
    let mut req = agent().delete(&format!("{}{path}", f.base));
    if let Some(t) = token {
        req = req.header("Authorization", &format!("Bearer {t}"));
    }
    reply(req.call().unwrap())
}

/// `DELETE /api/v1/games/{id}`: only the operator's token removes; the
/// game is gone from the API (its page, the list, text search) and its
/// upload is refused; the answer is the log entry with who asked.
#[test]
fn only_the_operator_removes_games_and_they_stay_out() {
    let f = start(|o, dir| {
        let file = dir.join("tokens");
        std::fs::write(&file, format!("alice {ALICE}\nops {OPS} operator\n")).unwrap();
        o.token = None;
        o.token_file = Some(file);
    });
    let body = corpus(3, 31);
    let r = upload(&f, ALICE, None, body.clone());
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["games"][1]["id"].as_i64().unwrap();
    let path = format!("/api/v1/games/{id}");
    // No token, an uploader's token, a wrong token: refused, nothing gone.
    let detail = delete(&f, &path, None).problem(401);
    assert!(detail.contains("removals need"), "{detail}");
    let detail = delete(&f, &path, Some(ALICE)).problem(403);
    assert!(
        detail.contains("operator") && detail.contains("alice"),
        "{detail}"
    );
    delete(&f, &path, Some("not-a-token-0123456789")).problem(401);
    delete(&f, "/api/v1/games/x1", Some(OPS)).problem(400);
    let long = format!("{path}?reason={}", "x".repeat(201));
    delete(&f, &long, Some(OPS)).problem(400);
    assert_eq!(games(&f), 3);

    let r = delete(&f, &format!("{path}?reason=spam"), Some(OPS));
    assert_eq!(r.status, 200, "{}", r.body);
    let entry = r.json();
    assert_eq!(entry["game_id"].as_i64(), Some(id));
    assert_eq!(entry["reason"], "spam");
    assert!(
        entry["removed_by"].as_str().unwrap().starts_with("ops ("),
        "{entry}"
    );
    assert_eq!(games(&f), 2);
    get(&f, &path, None).problem(404);
    delete(&f, &path, Some(OPS)).problem(404);
    let list = get(&f, "/api/v1/games?limit=100", None).json();
    let ids: Vec<i64> = list["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids.len(), 2);
    assert!(!ids.contains(&id));
    // The same upload again: two duplicates, the removed game refused.
    let r = upload(&f, ALICE, None, body);
    assert_eq!(r.status, 200, "{}", r.body);
    let answer = r.json();
    assert_eq!(answer["reasons"]["removed"], 1, "{answer}");
    assert_eq!(f.archive.removals(10).unwrap().len(), 1);
    assert_eq!(get(&f, "/api/v1/stats", None).json()["removed"], 1);
}
