//! Hostile input: any string as any query parameter, path segment or read
//! header of every GET route and page gets a 2xx or a 4xx (a problem
//! document on the API), never a 5xx or a hang; and the reproducers of
//! two crashes found so (nested brackets in a text query, a person's
//! punctuation).
//!
//! The server runs on 127.0.0.1 (port 0) over a temporary archive of a few
//! generated games and one handmade game whose event has the punctuation.

mod common;

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use keil_archive::{Archive, ImportOptions, ImportSource};
use keil_gen::GeneratorConfig;
use keil_server::ServerOptions;
use proptest::prelude::*;
use serde_json::Value;

/// The handmade game: its event holds what people type.
const PUNCTUATED: &str = "(;GM[Keil]FF[4]SZ[2]KM[1]PB[Seán O'Brien]PW[Bo]DT[2024-05-01]\
EV[O'Brien Memorial: AND OR NOT a:b:c]RE[B+6.5];B[button];W[c2];B[b2];W[pass];B[pass])";

struct Fixture {
    base: String,
    /// The id of the handmade game.
    punctuated: u64,
    _archive: Arc<Archive>,
    _dir: tempfile::TempDir,
}

fn import(archive: &Archive, name: &str, bytes: Vec<u8>) {
    let source = ImportSource::Bytes {
        name: name.into(),
        bytes,
    };
    let report = archive
        .import(&[source], &ImportOptions::default(), &mut |_| {})
        .unwrap();
    assert_eq!(report.counts.invalid, 0, "{:?}", report.invalid);
}

/// The server shared by every test: 20 generated games of side 4 and the
/// handmade one.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let archive = Arc::new(Archive::open(dir.path()).unwrap());
        let mut corpus = Vec::new();
        let config = GeneratorConfig {
            games: 20,
            size: 4,
            seed: 22,
            ..GeneratorConfig::default()
        };
        keil_gen::write_collection(config, &mut corpus).unwrap();
        import(&archive, "corpus", corpus);
        import(&archive, "punctuated", PUNCTUATED.into());
        let punctuated = archive
            .search_text("memorial", 1)
            .unwrap()
            .first()
            .expect("the handmade game")
            .game
            .id
            .get();
        let options = ServerOptions {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            workers: Some(2),
            ..ServerOptions::new(Arc::clone(&archive))
        };
        let addr = common::serve(options);
        Fixture {
            base: format!("http://{addr}"),
            punctuated,
            _archive: archive,
            _dir: dir,
        }
    })
}

/// A client that gives every status as an answer and gives up after 10 s
/// (a hang fails the test).
fn agent() -> ureq::Agent {
    common::agent_with(Duration::from_secs(10))
}

struct Reply {
    status: u16,
    content_type: String,
    body: String,
}

fn get_with(path_and_query: &str, headers: &[(&str, &[u8])]) -> Reply {
    let url = format!("{}{path_and_query}", fixture().base);
    let mut req = agent().get(&url);
    for (name, value) in headers {
        let value = ureq::http::HeaderValue::from_bytes(value).expect("a header value");
        req = req.header(*name, value);
    }
    let mut r = req
        .call()
        .unwrap_or_else(|e| panic!("GET {path_and_query}: {e}"));
    let content_type = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let body = r.body_mut().read_to_string().unwrap_or_default();
    Reply {
        status: r.status().as_u16(),
        content_type,
        body,
    }
}

fn get(path_and_query: &str) -> Reply {
    get_with(path_and_query, &[])
}

/// Every byte percent-encoded except the unreserved ones.
fn enc(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Asserts the answer is a 2xx or a 4xx (a 304 for `If-None-Match`), and
/// on the API every 4xx an RFC 7807 problem document.
fn assert_answered(what: &str, r: &Reply) {
    assert!(
        (200..300).contains(&r.status) || (400..500).contains(&r.status) || r.status == 304,
        "{what}: status {}: {}",
        r.status,
        r.body
    );
    if r.status >= 400 && what.starts_with("/api/") {
        assert_eq!(r.content_type, "application/problem+json", "{what}");
        let p: Value = serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(p["status"], r.status, "{what}");
        assert!(p["type"].as_str().unwrap().starts_with("urn:keil:problem:"));
        assert!(p["title"].is_string() && p["detail"].is_string(), "{what}");
    }
}

/// Every GET route and page with a query, and the parameters it reads.
const QUERY_ROUTES: &[(&str, &[&str])] = &[
    (
        "/api/v1/games",
        &[
            "player", "color", "opponent", "event", "from", "to", "result", "winner", "variant",
            "ruleset", "status", "kind", "size", "order", "limit", "cursor",
        ],
    ),
    (
        "/api/v1/patterns",
        &[
            "pattern", "kind", "size", "mode", "symmetry", "colors", "limit", "cursor", "player",
            "from", "event",
        ],
    ),
    ("/api/v1/players", &["q", "limit"]),
    ("/api/v1/search", &["q", "limit"]),
    (
        "/api/v1/positions",
        &[
            "position", "kind", "symmetry", "colors", "player", "from", "to", "limit", "cursor",
        ],
    ),
    ("/api/v1/stats", &["x"]),
    ("/healthz", &["x"]),
    ("/", &["q"]),
    (
        "/games",
        &["player", "kind", "size", "order", "limit", "cursor", "from"],
    ),
    ("/games.sgf", &["player", "kind", "size", "limit", "cursor"]),
    (
        "/positions",
        &[
            "position", "kind", "size", "to_move", "symmetry", "colors", "player", "from", "to",
            "cursor", "edit",
        ],
    ),
    (
        "/patterns",
        &[
            "pattern", "kind", "size", "mode", "symmetry", "colors", "edit", "cursor",
        ],
    ),
    ("/search", &["q"]),
    ("/upload", &["x"]),
];

/// Every GET route with path segments: the path with `{}` for the one
/// segment the test replaces (the others valid).
const PATH_ROUTES: &[&str] = &[
    "/api/v1/games/{}",
    "/api/v1/games/{}/record",
    "/api/v1/games/{}/positions/0",
    "/api/v1/games/1/positions/{}",
    "/api/v1/games/{}/positions/1.svg",
    "/api/v1/games/1/positions/{}.svg",
    "/api/v1/players/{}",
    "/games/{}",
    "/games/{}/board",
    "/games/1/board?ply={}",
    "/players/{}",
    "/static/{}",
];

/// Values as a stranger sends them: any text, any bytes (not UTF-8 once
/// decoded), query syntax, huge numbers, long runs of brackets.
fn hostile() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        any::<String>().prop_map(String::into_bytes),
        proptest::collection::vec(any::<u8>(), 0..64),
        "[()\"'+:*~^{}\\[\\]\\- a-zA-Z0-9!?/\\\\]{0,40}".prop_map(String::into_bytes),
        "-?[0-9]{10,40}".prop_map(String::into_bytes),
        (
            0usize..3000,
            prop::sample::select(vec!["(", "\"", "a:", "-", "%", "/"])
        )
            .prop_map(|(n, s)| s.repeat(n).into_bytes()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any value as any query parameter of any GET route or page.
    #[test]
    fn any_query_parameter_gets_a_2xx_or_a_4xx(
        route in 0..QUERY_ROUTES.len(),
        param in any::<prop::sample::Index>(),
        value in hostile(),
    ) {
        let (path, params) = QUERY_ROUTES[route];
        let name = params[param.index(params.len())];
        let target = format!("{path}?{name}={}", enc(&value));
        assert_answered(&target, &get(&target));
    }

    /// Any value as a path segment.
    #[test]
    fn any_path_segment_gets_a_2xx_or_a_4xx(
        route in 0..PATH_ROUTES.len(),
        value in hostile(),
    ) {
        let target = PATH_ROUTES[route].replace("{}", &enc(&value));
        assert_answered(&target, &get(&target));
    }

    /// Any value in the headers the server reads, on a cacheable answer.
    #[test]
    fn any_header_value_gets_a_2xx_or_a_4xx(
        value in "[ -~\\t]{0,300}",
        header in prop::sample::select(vec!["If-None-Match", "Accept", "Authorization", "Accept-Encoding"]),
        path in prop::sample::select(vec!["/api/v1/games/1", "/api/v1/nowhere", "/nowhere", "/games/1"]),
    ) {
        let r = get_with(path, &[(header, value.as_bytes())]);
        assert_answered(path, &r);
    }
}

/// A reproducer: 3,000 `(`, a word, 3,000 `)` once overflowed the
/// stack of a worker and took the server down. Now refused for its length
/// (400 naming the limit, or 414 when the whole target is over the
/// server's limit), and the server answers afterwards.
#[test]
fn thousands_of_brackets_are_refused_and_the_server_lives() {
    let q = format!("{}a{}", "(".repeat(3000), ")".repeat(3000));
    let target = format!("/api/v1/search?q={}", enc(q.as_bytes()));
    let r = get(&target);
    assert_answered("/api/v1/search", &r);
    assert!(matches!(r.status, 400 | 414), "{}: {}", r.status, r.body);
    if r.status == 400 {
        assert!(r.body.contains("1000 bytes"), "{}", r.body);
    }
    // Unencoded brackets: a shorter target, the same refusal.
    let r = get(&format!("/api/v1/search?q={q}"));
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(
        r.body.contains("q") && r.body.contains("1000 bytes"),
        "{}",
        r.body
    );
    let health = get("/healthz");
    assert_eq!(health.status, 200);
}

/// 25 nested brackets cost ~15 s of CPU in tantivy 0.24's parser; brackets
/// are punctuation now. A regression guard, not a timing test.
#[test]
fn nested_brackets_answer_at_once() {
    let f = fixture();
    for depth in [25, 400] {
        let q = format!("{}memorial{}", "(".repeat(depth), ")".repeat(depth));
        let start = Instant::now();
        let r = get(&format!("/api/v1/search?q={}", enc(q.as_bytes())));
        let took = start.elapsed();
        assert_eq!(r.status, 200, "{}", r.body);
        assert!(
            took < Duration::from_secs(5),
            "{depth} brackets took {took:?}"
        );
        let hits: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(hits["hits"][0]["game"]["id"], f.punctuated, "{}", r.body);
    }
}

/// What people type is searched as words: each finds the game whose
/// event has them, with a 200 (never a syntax error).
#[test]
fn punctuation_is_searched_as_words() {
    let f = fixture();
    for q in [
        "O'Brien",
        "AND OR NOT",
        "a:b:c",
        "\"O'Brien memorial",
        "memorial:",
        "(((memorial",
        "memorial -",
        "brien +memorial",
    ] {
        let r = get(&format!("/api/v1/search?q={}", enc(q.as_bytes())));
        assert_eq!(r.status, 200, "{q}: {}", r.body);
        let hits: Value = serde_json::from_str(&r.body).unwrap();
        let ids: Vec<u64> = hits["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["game"]["id"].as_u64().unwrap())
            .collect();
        assert!(ids.contains(&f.punctuated), "{q}: {ids:?}");
    }
    // No word at all: nothing found, still a 200.
    for q in ["\"", "(((", "- +", ":"] {
        let r = get(&format!("/api/v1/search?q={}", enc(q.as_bytes())));
        assert_eq!(r.status, 200, "{q}: {}", r.body);
        assert_eq!(
            r.body, r#"{"hits":[],"total":0,"next":null,"years":[]}"#,
            "{q}"
        );
    }
    // The page searches the same way.
    let r = get(&format!("/search?q={}", enc(b"O'Brien")));
    assert_eq!(r.status, 200);
    assert!(
        r.body.contains(&format!("/games/{}", f.punctuated)),
        "{}",
        r.body
    );
}

/// Numbers past their type are 400s naming the parameter, not 404s or
/// 500s; long values are refused naming the parameter and the limit.
#[test]
fn huge_numbers_and_long_values_are_400s_naming_the_parameter() {
    let huge = "99999999999999999999999";
    for (target, name) in [
        (format!("/api/v1/games/{huge}"), "id"),
        (format!("/api/v1/games/{huge}/record"), "id"),
        ("/api/v1/games/9223372036854775808".to_string(), "id"),
        ("/api/v1/games/0".to_string(), "id"),
        (format!("/api/v1/games/1/positions/{huge}"), "ply"),
        (format!("/api/v1/games/1/positions/{huge}.svg"), "ply"),
        (format!("/api/v1/games?limit={huge}"), "limit"),
        (format!("/api/v1/games?size={huge}"), "size"),
        ("/api/v1/games?size=256".to_string(), "size"),
        (format!("/api/v1/search?q=a&limit={huge}"), "limit"),
        (format!("/api/v1/patterns?pattern=X:dd&size={huge}"), "size"),
        (
            format!("/api/v1/positions?position=4/5/6/7/6/5/4&limit={huge}"),
            "limit",
        ),
        (format!("/api/v1/games?cursor=~{huge}"), "cursor"),
        (
            format!("/api/v1/positions?position=4/5/6/7/6/5/4&cursor={huge}-1"),
            "cursor",
        ),
        (format!("/api/v1/players?q={}", "a".repeat(1001)), "q"),
        (
            format!("/api/v1/players/{}", "a".repeat(201)),
            "player name",
        ),
        (
            format!("/api/v1/games?player={}", "a".repeat(201)),
            "player",
        ),
        (
            format!("/api/v1/positions?position={}", "7/".repeat(1001)),
            "position",
        ),
        (
            format!("/api/v1/patterns?pattern={}", "X".repeat(2001)),
            "pattern",
        ),
        (
            format!("/api/v1/games?{}", vec!["x=1"; 65].join("&")),
            "65 parameters",
        ),
    ] {
        let r = get(&target);
        assert_eq!(r.status, 400, "{target}: {}", r.body);
        assert_answered(&target, &r);
        let p: Value = serde_json::from_str(&r.body).unwrap();
        let detail = p["detail"].as_str().unwrap();
        assert!(detail.contains(name), "{target}: {detail}");
        assert!(
            detail.len() < 300,
            "{target}: the detail echoes the input: {detail}"
        );
    }
}
