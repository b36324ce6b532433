//! Operations over HTTP: every error a document in the form the client
//! asks for (problem+json or an HTML page) on every path, 405/414/431 with
//! bodies, request ids on every answer, compressed answers that keep their
//! ETag, `/metrics` on its own listener or the public one, and a read-only
//! archive served with uploads answering 503.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use keil_archive::{Archive, ImportOptions, ImportSource};
use keil_server::ServerOptions;
use serde_json::Value;

const TOKEN: &str = "ops-test-token-0123456789";
const GAME: &str = "(;GM[Keil]FF[4]SZ[2]KM[1]PB[Ana]PW[Bo]DT[2024-05-01]EV[Spring Cup]RE[B+6.5];B[button];W[c2];B[b2];W[pass];B[pass])";

struct Served {
    addrs: Vec<SocketAddr>,
    _dir: tempfile::TempDir,
}

/// An archive with one game, served with `options` (on port 0; read-only
/// when `read_only`).
fn serve(read_only: bool, edit: impl FnOnce(&mut ServerOptions)) -> Served {
    let dir = tempfile::tempdir().unwrap();
    {
        let archive = Archive::open(dir.path()).unwrap();
        let source = ImportSource::Bytes {
            name: "one".into(),
            bytes: GAME.into(),
        };
        let r = archive
            .import(&[source], &ImportOptions::default(), &mut |_| {})
            .unwrap();
        assert_eq!(r.counts.imported, 1);
    }
    let archive = if read_only {
        Archive::open_read_only(dir.path()).unwrap()
    } else {
        Archive::open(dir.path()).unwrap()
    };
    let mut options = ServerOptions {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        token: Some(TOKEN.into()),
        workers: Some(1),
        max_upload: 4096,
        ..ServerOptions::new(Arc::new(archive))
    };
    edit(&mut options);
    let addrs = common::serve_all(options);
    Served { addrs, _dir: dir }
}

fn shared() -> &'static Served {
    static S: OnceLock<Served> = OnceLock::new();
    S.get_or_init(|| serve(false, |_| {}))
}

/// An answer read off the wire.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    fn problem(&self) -> Value {
        assert_eq!(
            self.header("content-type"),
            Some("application/problem+json"),
            "{}",
            self.text()
        );
        let v: Value = serde_json::from_slice(&self.body).unwrap();
        assert_eq!(v["status"], self.status, "{v}");
        assert!(!v["detail"].as_str().unwrap().is_empty());
        v
    }
    fn page(&self) -> String {
        assert!(
            self.header("content-type")
                .unwrap()
                .starts_with("text/html"),
            "{:?}",
            self.headers
        );
        assert!(self.header("content-security-policy").is_some());
        let body = self.text();
        assert!(body.contains(&format!("<h1>{}", self.status)), "{body}");
        assert!(body.contains("<html"), "the site's layout: {body}");
        body
    }
}

/// Sends raw HTTP/1.1 (so that any method, target and header goes out as
/// written) and reads the answer (`Connection: close`).
fn raw(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Answer {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut bytes = Vec::new();
    let _ = s.read_to_end(&mut bytes);
    let split = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&bytes[..split]).into_owned();
    let mut lines = head.lines();
    let status = lines.next().unwrap()[9..12].parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = bytes[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"))
    {
        body = unchunk(&body);
    }
    Answer {
        status,
        headers,
        body,
    }
}

fn unchunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = b.windows(2).position(|w| w == b"\r\n").unwrap();
        let n = usize::from_str_radix(std::str::from_utf8(&b[..eol]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + n]);
        b = &b[eol + 2 + n + 2..];
    }
}

const BROWSER: (&str, &str) = (
    "Accept",
    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
);
const API: (&str, &str) = ("Accept", "application/json");

/// Both forms of one failing request: the problem document for an API
/// client (and for no `Accept`), the HTML page for a browser, with the
/// same status and extra headers.
fn both_forms(
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    status: u16,
    kind: &str,
) -> (Answer, Answer) {
    let addr = shared().addrs[0];
    let with = |accept: Option<(&'static str, &'static str)>| {
        let mut h = headers.to_vec();
        h.extend(accept);
        raw(addr, method, target, &h, body)
    };
    let json = with(Some(API));
    assert_eq!(json.status, status, "{method} {target}: {}", json.text());
    let p = json.problem();
    assert_eq!(p["type"], format!("urn:keil:problem:{kind}"), "{p}");
    let html = with(Some(BROWSER));
    assert_eq!(html.status, status, "{method} {target}");
    html.page();
    for name in ["allow", "retry-after", "www-authenticate"] {
        assert_eq!(json.header(name), html.header(name), "{name}");
    }
    (json, html)
}

#[test]
fn not_found_is_a_document_on_every_path() {
    for target in [
        "/no/such/page",
        "/api/v1/nope",
        "/static/app.000000000000.css",
        "/api/v1/games/999999",
        "/games/999999",
    ] {
        both_forms("GET", target, &[], b"", 404, "not-found");
    }
    // Without Accept: the form of the route's own answers.
    let addr = shared().addrs[0];
    raw(addr, "GET", "/static/nope.css", &[], b"").problem();
    raw(addr, "GET", "/api/v1/games/999999", &[], b"").problem();
    raw(addr, "GET", "/games/999999", &[], b"").page();
}

#[test]
fn a_wrong_method_is_405_with_allow() {
    let (json, _) = both_forms(
        "DELETE",
        "/api/v1/games",
        &[],
        b"",
        405,
        "method-not-allowed",
    );
    assert_eq!(json.header("allow"), Some("GET, POST"));
    let (json, _) = both_forms("POST", "/api/v1/stats", &[], b"", 405, "method-not-allowed");
    assert_eq!(json.header("allow"), Some("GET"));
    both_forms(
        "PUT",
        "/static/app.css",
        &[],
        b"",
        405,
        "method-not-allowed",
    );
}

#[test]
fn long_targets_and_large_headers_are_documents() {
    let long = format!(
        "/api/v1/search?q={}",
        "a".repeat(keil_server::documents::MAX_TARGET)
    );
    both_forms("GET", &long, &[], b"", 414, "uri-too-long");
    // Just under the limit goes through (a route that reads no parameter:
    // the API's own caps, e.g. 1,000 bytes of `q`, are not this test's).
    let ok = format!("/healthz?pad={}", "a".repeat(4000));
    assert_eq!(raw(shared().addrs[0], "GET", &ok, &[API], b"").status, 200);

    let big = "x".repeat(keil_server::documents::MAX_HEADER_BYTES);
    both_forms(
        "GET",
        "/healthz",
        &[("X-Big", &big)],
        b"",
        431,
        "headers-too-large",
    );
    let names: Vec<String> = (0..keil_server::documents::MAX_HEADERS)
        .map(|i| format!("X-H{i}"))
        .collect();
    let many: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "1")).collect();
    both_forms("GET", "/healthz", &many, b"", 431, "headers-too-large");
}

#[test]
fn upload_refusals_are_documents_with_their_headers() {
    let (json, _) = both_forms(
        "POST",
        "/api/v1/games",
        &[],
        GAME.as_bytes(),
        401,
        "unauthorized",
    );
    assert!(
        json.header("www-authenticate")
            .unwrap()
            .starts_with("Bearer")
    );
    let auth = format!("Bearer {TOKEN}");
    let body = vec![b' '; 5000];
    both_forms(
        "POST",
        "/api/v1/games",
        &[("Authorization", &auth)],
        &body,
        413,
        "payload-too-large",
    );
}

#[test]
fn every_error_kind_has_both_forms_with_the_same_headers() {
    use actix_web::body::MessageBody;
    use keil_server::{ApiError, Form, answer};
    let cases = [
        (
            ApiError::MethodNotAllowed {
                method: "PUT".into(),
                allow: "GET".into(),
            },
            405,
            Some(("allow", "GET")),
        ),
        (ApiError::RequestTimeout { seconds: 30 }, 408, None),
        (ApiError::PayloadTooLarge { limit: 10 }, 413, None),
        (ApiError::UriTooLong { limit: 10 }, 414, None),
        (
            ApiError::TooManyRequests {
                what: "searches",
                retry_after: 7,
            },
            429,
            Some(("retry-after", "7")),
        ),
        (ApiError::HeadersTooLarge { limit: 10 }, 431, None),
        (
            ApiError::OverBudget { budget_ms: 2000 },
            503,
            Some(("retry-after", "5")),
        ),
        (ApiError::ReadOnly, 503, None),
        (
            ApiError::InsufficientStorage("stored 3 of 9 games".into()),
            507,
            None,
        ),
        (ApiError::NotFound("x".into()), 404, None),
    ];
    for (e, status, header) in cases {
        for form in [Form::Json, Form::Html] {
            let r = answer(&e, form);
            assert_eq!(r.status().as_u16(), status, "{e:?}");
            if let Some((name, value)) = header {
                assert_eq!(r.headers().get(name).unwrap(), value, "{e:?} {form:?}");
            }
            let ct = r
                .headers()
                .get("content-type")
                .unwrap()
                .to_str()
                .unwrap()
                .to_string();
            let body = r.into_body().try_into_bytes().unwrap();
            let text = String::from_utf8_lossy(&body);
            match form {
                Form::Json => {
                    assert_eq!(ct, "application/problem+json");
                    let v: Value = serde_json::from_slice(&body).unwrap();
                    assert_eq!(v["status"], status);
                    assert_eq!(v["detail"], e.to_string());
                }
                Form::Html => {
                    assert!(ct.starts_with("text/html"));
                    assert!(text.contains(&format!("<h1>{status}")), "{text}");
                }
            }
        }
    }
}

#[test]
fn the_accept_header_chooses_the_form() {
    use actix_web::http::header::{ACCEPT, HeaderMap, HeaderValue};
    use keil_server::Form;
    let of = |accept: Option<&'static str>, default| {
        let mut h = HeaderMap::new();
        if let Some(a) = accept {
            h.insert(ACCEPT, HeaderValue::from_static(a));
        }
        Form::of(&h, default)
    };
    assert_eq!(of(None, Form::Json), Form::Json);
    assert_eq!(of(None, Form::Html), Form::Html);
    assert_eq!(of(Some("*/*"), Form::Html), Form::Html);
    assert_eq!(of(Some(BROWSER.1), Form::Json), Form::Html);
    assert_eq!(of(Some("application/json"), Form::Html), Form::Json);
    assert_eq!(
        of(Some("text/html;q=0.5, application/json"), Form::Html),
        Form::Json
    );
    assert_eq!(
        of(Some("text/html, application/json;q=0.5"), Form::Json),
        Form::Html
    );
    assert_eq!(of(Some("text/html;q=0"), Form::Json), Form::Json);
}

#[test]
fn every_answer_carries_a_request_id() {
    let addr = shared().addrs[0];
    let mut seen = std::collections::HashSet::new();
    for target in ["/healthz", "/api/v1/games/999999", "/no/such"] {
        let a = raw(addr, "GET", target, &[], b"");
        let id = a.header("x-request-id").expect("an id").to_string();
        assert!(keil_server::request_id::acceptable(id.as_bytes()), "{id}");
        assert!(seen.insert(id), "ids are distinct");
    }
    let long = format!("/x?{}", "a".repeat(keil_server::documents::MAX_TARGET));
    assert!(
        raw(addr, "GET", &long, &[], b"")
            .header("x-request-id")
            .is_some()
    );
    // A client's id is kept when it is plain and short...
    let a = raw(
        addr,
        "GET",
        "/healthz",
        &[("X-Request-Id", "client-42.a_b")],
        b"",
    );
    assert_eq!(a.header("x-request-id"), Some("client-42.a_b"));
    // ...and replaced otherwise.
    for bad in ["", "has space", "<script>", &"a".repeat(65)] {
        let a = raw(addr, "GET", "/healthz", &[("X-Request-Id", bad)], b"");
        let id = a.header("x-request-id").unwrap();
        assert_ne!(id, bad);
        assert_eq!(id.len(), 36, "a new UUID: {id}");
    }
}

#[test]
fn answers_are_compressed_when_asked_and_keep_their_etag() {
    let addr = shared().addrs[0];
    let plain = raw(addr, "GET", "/api/v1/games/1", &[], b"");
    assert_eq!(plain.status, 200);
    assert_eq!(plain.header("content-encoding"), None);
    let gz = raw(
        addr,
        "GET",
        "/api/v1/games/1",
        &[("Accept-Encoding", "gzip")],
        b"",
    );
    assert_eq!(gz.status, 200);
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    let mut inflated = Vec::new();
    flate2::read::GzDecoder::new(&gz.body[..])
        .read_to_end(&mut inflated)
        .unwrap();
    assert_eq!(inflated, plain.body);
    for encoding in ["br", "zstd"] {
        let a = raw(
            addr,
            "GET",
            "/openapi.json",
            &[("Accept-Encoding", encoding)],
            b"",
        );
        assert_eq!(a.header("content-encoding"), Some(encoding));
    }
    // The ETag is the same, and a revalidation is still 304.
    let etag = plain.header("etag").unwrap();
    assert_eq!(gz.header("etag"), Some(etag));
    let again = raw(
        addr,
        "GET",
        "/api/v1/games/1",
        &[("Accept-Encoding", "gzip"), ("If-None-Match", etag)],
        b"",
    );
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
}

/// One sample of the text format: the value of `name{labels}`.
fn sample(text: &str, name: &str, labels: &str) -> Option<f64> {
    let key = if labels.is_empty() {
        format!("{name} ")
    } else {
        format!("{name}{{{labels}}} ")
    };
    text.lines()
        .find_map(|l| l.strip_prefix(&key))
        .map(|v| v.parse().unwrap())
}

#[test]
fn metrics_count_routes_statuses_uploads_and_the_archive() {
    let s = serve(false, |_| {});
    let addr = s.addrs[0];
    for _ in 0..3 {
        assert_eq!(raw(addr, "GET", "/api/v1/games/1", &[], b"").status, 200);
    }
    raw(addr, "GET", "/api/v1/games/424242", &[], b"");
    raw(addr, "GET", "/secret/player-name", &[], b"");
    let auth = format!("Bearer {TOKEN}");
    let game2 = GAME.replace("PB[Ana]", "PB[Cy]");
    let up = raw(
        addr,
        "POST",
        "/api/v1/games",
        &[("Authorization", &auth)],
        game2.as_bytes(),
    );
    assert_eq!(up.status, 201, "{}", up.text());

    let m = raw(addr, "GET", "/metrics", &[], b"");
    assert_eq!(m.status, 200);
    assert!(m.header("content-type").unwrap().starts_with("text/plain"));
    let text = m.text();
    let route = |r: &str, status: &str| {
        sample(
            &text,
            "keil_http_requests_total",
            &format!("method=\"GET\",route=\"{r}\",status=\"{status}\""),
        )
    };
    assert_eq!(route("/api/v1/games/{id}", "200"), Some(3.0), "{text}");
    assert_eq!(route("/api/v1/games/{id}", "404"), Some(1.0), "{text}");
    assert_eq!(route("unmatched", "404"), Some(1.0), "{text}");
    assert_eq!(
        sample(
            &text,
            "keil_http_errors_total",
            "problem=\"not-found\",route=\"unmatched\""
        ),
        Some(1.0)
    );
    assert_eq!(
        sample(
            &text,
            "keil_http_request_duration_seconds_count",
            "route=\"/api/v1/games/{id}\""
        ),
        Some(4.0)
    );
    assert_eq!(sample(&text, "keil_uploads_total", ""), Some(1.0));
    assert_eq!(
        sample(&text, "keil_upload_games_total", "outcome=\"stored\""),
        Some(1.0)
    );
    assert_eq!(
        sample(&text, "keil_archive_games", "kind=\"keil\""),
        Some(2.0),
        "{text}"
    );
    assert!(text.contains("keil_archive_text_index_bytes "));
    assert!(text.contains("keil_archive_store_bytes "));
    // No cache directory: the indexes are all in the heap.
    for index in ["positions", "patterns"] {
        let labels = |held: &str| format!("held=\"{held}\",index=\"{index}\"");
        assert!(
            sample(&text, "keil_index_bytes", &labels("heap")).is_some(),
            "{text}"
        );
        assert_eq!(
            sample(&text, "keil_index_bytes", &labels("mapped")),
            Some(0.0)
        );
    }
    // Nothing private: no raw path, token, address or player name.
    for private in [
        "424242",
        "secret",
        "player-name",
        TOKEN,
        "127.0.0.1",
        "Cy",
        "Ana",
    ] {
        assert!(!text.contains(private), "{private} in {text}");
    }
}

#[test]
fn metrics_move_to_their_own_listener() {
    let s = serve(false, |o| {
        o.metrics_addr = Some(SocketAddr::from(([127, 0, 0, 1], 0)));
    });
    assert_eq!(s.addrs.len(), 2);
    let (public, metrics) = (s.addrs[0], s.addrs[1]);
    raw(public, "GET", "/metrics", &[], b"").problem();
    assert_eq!(raw(public, "GET", "/metrics", &[], b"").status, 404);
    assert_eq!(raw(public, "GET", "/healthz", &[], b"").status, 200);
    let m = raw(metrics, "GET", "/metrics", &[], b"");
    assert_eq!(m.status, 200);
    assert!(m.text().contains("keil_http_requests_total"));
    assert_eq!(raw(metrics, "GET", "/healthz", &[], b"").status, 404);
    assert_eq!(raw(metrics, "GET", "/api/v1/games/1", &[], b"").status, 404);
}

#[test]
fn a_read_only_archive_is_served_and_uploads_answer_503() {
    let s = serve(true, |_| {});
    let addr = s.addrs[0];
    assert_eq!(raw(addr, "GET", "/api/v1/games/1", &[], b"").status, 200);
    assert_eq!(raw(addr, "GET", "/api/v1/stats", &[], b"").status, 200);
    let auth = format!("Bearer {TOKEN}");
    let game2 = GAME.replace("PB[Ana]", "PB[Di]");
    let up = raw(
        addr,
        "POST",
        "/api/v1/games",
        &[("Authorization", &auth), API],
        game2.as_bytes(),
    );
    assert_eq!(up.status, 503);
    assert_eq!(up.problem()["type"], "urn:keil:problem:read-only");
    let page = raw(
        addr,
        "POST",
        "/api/v1/games",
        &[("Authorization", &auth), BROWSER],
        game2.as_bytes(),
    );
    assert_eq!(page.status, 503);
    assert!(page.page().contains("read-only"));
}
