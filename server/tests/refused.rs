//! Refused records over HTTP: an operator's upload keeps them, another
//! token's keeps nothing of them; `GET /api/v1/refused` (filters, keyset
//! pages, 400s that say what to fix), `GET /api/v1/refused/{id}`, the
//! count in `/api/v1/stats`, and the pages `/refused` and `/refused/{id}`
//! (the viewer up to the refused move, marked, and why in words).

mod common;

use std::net::SocketAddr;
use std::sync::Arc;

use common::agent;
use keil_archive::Archive;
use keil_server::ServerOptions;
use keil_server::limits::RateLimits;
use serde_json::Value;

const ALICE: &str = "alice-token-0123456789";
const OPS: &str = "ops-token-0123456789ab";

/// White retakes a simple ko at once (Japanese rules): refused at ply 10.
const KO: &str = "(;GM[1]FF[4]SZ[19]RU[Japanese]PB[Ko Black]PW[Ko White];B[ba];W[ca];B[ab];W[bb];B[bc];W[db];B[pp];W[cc];B[cb];W[bb])";
/// White plays into Black's eye: self-capture at ply 4.
const SUICIDE: &str = "(;GM[1]FF[4]SZ[19]RU[Japanese];B[ba];W[pp];B[ab];W[aa])";
/// Black plays on White's stone at move 3.
const OCCUPIED: &str = "(;GM[1]FF[4]SZ[19];B[pd];W[dp];B[dp])";
/// Black moves twice.
const TWICE: &str = "(;GM[1]FF[4]SZ[19];B[pd];B[dp])";
/// A 21×21 board.
const BIG: &str = "(;GM[1]FF[4]SZ[21];B[aa])";
/// A legal game.
const LEGAL: &str = "(;GM[1]FF[4]SZ[19]PB[Legal];B[pd];W[dp])";

struct Fixture {
    base: String,
    archive: Arc<Archive>,
    _dir: tempfile::TempDir,
}

fn start() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let archive = Arc::new(Archive::open(dir.path().join("db")).unwrap());
    let file = dir.path().join("tokens");
    std::fs::write(&file, format!("alice {ALICE}\nops {OPS} operator\n")).unwrap();
    let options = ServerOptions {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        token_file: Some(file),
        workers: Some(1),
        rate_limits: RateLimits::off(),
        ..ServerOptions::new(Arc::clone(&archive))
    };
    let addr = common::serve(options);
    Fixture {
        base: format!("http://{addr}"),
        archive,
        _dir: dir,
    }
}

struct Reply {
    status: u16,
    content_type: String,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// Asserts a problem document with this status; returns its detail.
    fn problem(&self, status: u16) -> String {
        assert_eq!(self.status, status, "{}", self.body);
        assert_eq!(self.content_type, "application/problem+json");
        self.json()["detail"].as_str().unwrap().to_string()
    }
}

fn reply(mut r: ureq::http::Response<ureq::Body>) -> Reply {
    let content_type = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    Reply {
        status: r.status().as_u16(),
        content_type,
        body: r.body_mut().read_to_string().unwrap(),
    }
}

fn get(f: &Fixture, path: &str) -> Reply {
    reply(agent().get(&format!("{}{path}", f.base)).call().unwrap())
}

fn upload(f: &Fixture, token: &str, body: &str) -> Reply {
    let req = agent()
        .post(&format!("{}/api/v1/games", f.base))
        .header("Authorization", &format!("Bearer {token}"));
    reply(req.send(body.as_bytes().to_vec()).unwrap())
}

/// The ids of the refused records listed at `path`.
fn listed(f: &Fixture, path: &str) -> Vec<u64> {
    get(f, path).json()["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect()
}

#[test]
fn only_the_operators_uploads_keep_refused_records() {
    let f = start();
    let r = upload(&f, ALICE, &format!("{TWICE}{LEGAL}"));
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.json()["reasons"]["wrong_player"], 1);
    let stats = get(&f, "/api/v1/stats").json();
    assert_eq!(stats["refused"], 1);
    assert_eq!(
        stats["refused_records"], 0,
        "a stranger's record is not kept"
    );
    assert!(listed(&f, "/api/v1/refused").is_empty());

    let r = upload(&f, OPS, TWICE);
    assert_eq!(r.status, 422, "{}", r.body);
    let stats = get(&f, "/api/v1/stats").json();
    assert_eq!(
        (stats["refused"].as_u64(), stats["refused_records"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(f.archive.refused_records().unwrap(), 1);
}

#[test]
fn the_api_lists_and_reads_refused_records() {
    let f = start();
    let r = upload(&f, OPS, &format!("{KO}{SUICIDE}{OCCUPIED}{TWICE}{BIG}"));
    assert_eq!(r.status, 422, "{}", r.body);
    let all = get(&f, "/api/v1/refused?order=id").json();
    let rows = all["refused"].as_array().unwrap();
    assert_eq!(rows.len(), 5, "{all}");
    assert!(all["next"].is_null());
    let reasons: Vec<&str> = rows.iter().map(|r| r["reason"].as_str().unwrap()).collect();
    assert_eq!(
        reasons,
        [
            "repetition",
            "self_capture",
            "occupied",
            "wrong_player",
            "board_size"
        ]
    );

    // Keyset pages, the latest first.
    let first = get(&f, "/api/v1/refused?limit=2").json();
    let ids: Vec<u64> = first["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    let next = first["next"].as_str().unwrap().to_string();
    let second = listed(&f, &format!("/api/v1/refused?limit=2&after={next}"));
    assert_eq!(ids.len() + second.len(), 4);
    assert!(ids[1] > second[0]);
    // Filters.
    assert_eq!(listed(&f, "/api/v1/refused?reason=occupied").len(), 1);
    assert_eq!(listed(&f, "/api/v1/refused?size=21&kind=go").len(), 1);
    assert!(listed(&f, "/api/v1/refused?kind=keil").is_empty());
    let import = rows[0]["import_id"].as_u64().unwrap();
    assert_eq!(
        listed(&f, &format!("/api/v1/refused?import={import}")).len(),
        5
    );

    // Bad values: 400s that name the parameter.
    for (q, names) in [
        ("limit=0", "limit"),
        ("limit=1001", "limit"),
        ("after=abc", "after"),
        ("import=-1", "import"),
        ("kind=chess", "kind"),
        ("size=x", "size"),
        ("reason=Not%20a%20code", "reason"),
        ("order=oldest", "order"),
    ] {
        let detail = get(&f, &format!("/api/v1/refused?{q}")).problem(400);
        assert!(detail.starts_with(names), "{q}: {detail}");
    }

    // One record: the text as it came and the verdict in words.
    let ko = rows[0]["id"].as_u64().unwrap();
    let one = get(&f, &format!("/api/v1/refused/{ko}")).json();
    assert_eq!(one["record"], KO);
    assert_eq!(one["ply"], 10);
    assert_eq!(one["move"], "W[bb]");
    assert_eq!(
        one["verdict"],
        "White retakes the ko at move 10 without a move elsewhere first"
    );
    let words = |i: usize| {
        let id = rows[i]["id"].as_u64().unwrap();
        get(&f, &format!("/api/v1/refused/{id}")).json()["verdict"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        words(1),
        "White's move at 4 would have no liberties (self-capture)"
    );
    assert_eq!(words(2), "Black plays on an occupied point at move 3");
    assert_eq!(words(3), "Black moves twice in a row at move 2");
    assert_eq!(
        words(4),
        "the board is 21×21: the archive reads boards up to 19×19"
    );
    get(&f, "/api/v1/refused/999999").problem(404);
    get(&f, "/api/v1/refused/x").problem(400);
    get(&f, "/api/v1/refused/0").problem(400);

    // Documented.
    let doc = get(&f, "/openapi.json").json();
    for path in ["/api/v1/refused", "/api/v1/refused/{id}"] {
        let responses = &doc["paths"][path]["get"]["responses"];
        for status in ["200", "400", "429"] {
            assert!(responses.get(status).is_some(), "{path} {status}");
        }
    }
    assert!(
        doc["paths"]["/api/v1/refused/{id}"]["get"]["responses"]
            .get("404")
            .is_some()
    );
}

#[test]
fn the_pages_show_the_refused_move_and_why() {
    let f = start();
    upload(&f, OPS, &format!("{KO}{BIG}"));
    let home = get(&f, "/");
    assert!(home.body.contains("href=\"/refused\""), "{}", home.body);
    let list = get(&f, "/refused");
    assert_eq!(list.status, 200, "{}", list.body);
    // The list says it without replaying each record.
    assert!(
        list.body
            .contains("s move at 10 repeats an earlier position"),
        "{}",
        list.body
    );
    assert!(
        list.body
            .contains("the board is 21×21: the archive reads boards up to 19×19")
    );
    let ko = listed(&f, "/api/v1/refused?reason=repetition")[0];
    let page = get(&f, &format!("/refused/{ko}"));
    assert_eq!(page.status, 200, "{}", page.body);
    // The viewer at the position the move was played on: nine moves, the
    // refused one marked on its point and named in the move list.
    assert!(page.body.contains("data-ply=\"9\""), "{}", page.body);
    assert!(page.body.contains("class=\"refused\""), "{}", page.body);
    assert!(
        page.body
            .contains("White retakes the ko at move 10 without a move elsewhere first")
    );
    assert!(page.body.contains("data-refused-move"));
    assert!(page.body.contains("W[bb] (refused)"));
    assert!(page.body.contains("Refused record"));
    // An earlier ply: no mark.
    let earlier = get(&f, &format!("/refused/{ko}?ply=3"));
    assert!(!earlier.body.contains("class=\"refused\""));
    // The 21×21 record has no board to replay: the words and the text.
    let big = listed(&f, "/api/v1/refused?reason=board_size")[0];
    let page = get(&f, &format!("/refused/{big}"));
    assert_eq!(page.status, 200);
    assert!(page.body.contains("the board is 21×21"));
    assert!(page.body.contains("SZ[21]"));
    assert_eq!(get(&f, "/refused/424242").status, 404);
    // Bad filters on the page: an error page that names the parameter.
    let bad = get(&f, "/refused?size=big");
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("size"));
}
