//! HTTP tests: the server bound to a loopback port over a temporary archive
//! filled with generated games, driven by a blocking HTTP client.

mod common;

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::Duration;

use common::agent;
use keil_archive::{Archive, ImportOptions, ImportSource};
use keil_gen::GeneratorConfig;
use keil_rules::{Color, Game, Move, Position};
use keil_server::ServerOptions;
use keil_server::limits::RateLimits;
use serde_json::Value;

const TOKEN: &str = "test-token-01234";
const LIMIT: usize = 64 * 1024;

struct Fixture {
    base: String,
    archive: Arc<Archive>,
    _dir: tempfile::TempDir,
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

fn import(archive: &Archive, name: &str, bytes: Vec<u8>, batch_size: usize) {
    let source = ImportSource::Bytes {
        name: name.into(),
        bytes,
    };
    let report = archive
        .import(
            &[source],
            &ImportOptions {
                batch_size,
                ..ImportOptions::default()
            },
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(report.counts.invalid, 0, "{:?}", report.invalid);
}

/// A server on 127.0.0.1 (port 0) over a new archive of `games` games.
fn start(games: u64, token: Option<&str>) -> Fixture {
    start_with(games, token, |_| {})
}

/// [`start`], with the options changed by `tune` (rate limits are off
/// unless it sets them).
fn start_with(games: u64, token: Option<&str>, tune: impl FnOnce(&mut ServerOptions)) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let archive = Arc::new(Archive::open(dir.path()).unwrap());
    if games > 0 {
        import(&archive, "corpus", corpus(games, 1), 500);
    }
    let mut options = ServerOptions {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        token: token.map(str::to_string),
        max_upload: LIMIT,
        workers: Some(2),
        rate_limits: RateLimits::off(),
        ..ServerOptions::new(Arc::clone(&archive))
    };
    tune(&mut options);
    let addr = common::serve(options);
    Fixture {
        base: format!("http://{addr}"),
        archive,
        _dir: dir,
    }
}

/// The read-only server shared by most tests: 200 games.
fn shared() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| start(200, Some(TOKEN)))
}

struct Reply {
    status: u16,
    content_type: String,
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

    /// Asserts an RFC 7807 problem with this status; returns its detail.
    fn problem(&self, status: u16) -> String {
        assert_eq!(self.status, status, "{}", self.body);
        assert_eq!(self.content_type, "application/problem+json");
        let p = self.json();
        assert_eq!(p["status"], status);
        assert!(p["type"].as_str().unwrap().starts_with("urn:keil:problem:"));
        assert!(p["title"].is_string());
        p["detail"].as_str().unwrap().to_string()
    }
}

fn reply(mut r: ureq::http::Response<ureq::Body>) -> Reply {
    let headers = r
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let content_type = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    Reply {
        status: r.status().as_u16(),
        content_type,
        headers,
        body: r.body_mut().read_to_string().unwrap(),
    }
}

fn get(base: &str, path: &str) -> Reply {
    reply(agent().get(&format!("{base}{path}")).call().unwrap())
}

fn get_ok(base: &str, path: &str) -> Value {
    let r = get(base, path);
    assert_eq!(r.status, 200, "GET {path}: {}", r.body);
    assert!(
        r.content_type.starts_with("application/json"),
        "{}",
        r.content_type
    );
    r.json()
}

fn post(base: &str, token: Option<&str>, body: impl Into<Vec<u8>>) -> Reply {
    let mut req = agent().post(&format!("{base}/api/v1/games"));
    if let Some(t) = token {
        req = req.header("Authorization", &format!("Bearer {t}"));
    }
    reply(req.send(body.into()).unwrap())
}

fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Replays a game detail's moves locally with keil-rules to `ply`.
/// A board notation with `b` and `w` exchanged.
fn swap_letters(board: &str) -> String {
    board
        .chars()
        .map(|c| match c {
            'b' => 'w',
            'w' => 'b',
            c => c,
        })
        .collect()
}

fn replay_local(detail: &Value, ply: usize) -> (Position, Vec<String>) {
    let board = keil_rules::Board::new(detail["size"].as_u64().unwrap() as u8).unwrap();
    let ruleset: keil_rules::Ruleset = detail["ruleset"].as_str().unwrap().parse().unwrap();
    let mut game = Game::new(board, ruleset);
    let mut captured = Vec::new();
    for mv in detail["moves"].as_array().unwrap().iter().take(ply) {
        let mv = match mv.as_str().unwrap() {
            "pass" => Move::Pass,
            "button" => Move::TakeButton,
            p => Move::Place(board.parse_point(p).unwrap()),
        };
        captured = game
            .play(mv)
            .unwrap()
            .captured
            .iter()
            .map(|&p| board.name(p).to_string())
            .collect();
    }
    (game.position(), captured)
}

// ---- reads -------------------------------------------------------------------

#[test]
fn healthz_answers_ok() {
    let f = shared();
    assert_eq!(get_ok(&f.base, "/healthz")["status"], "ok");
}

#[test]
fn stats_count_the_games() {
    let f = shared();
    let s = get_ok(&f.base, "/api/v1/stats");
    assert_eq!(s["games"], 200);
    assert_eq!(s["by_size"]["7"], 200);
    assert_eq!(s["by_kind"]["keil"], 200);
    assert_eq!(s["by_board"]["keil 7"], 200);
    assert!(s["players"].as_u64().unwrap() > 1);
}

#[test]
fn game_list_pages_cover_every_game_once_in_a_stable_order() {
    let f = shared();
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    let mut last_date = String::new();
    loop {
        let path = match &cursor {
            None => "/api/v1/games?order=asc&limit=33".to_string(),
            Some(c) => format!("/api/v1/games?order=asc&limit=33&cursor={}", enc(c)),
        };
        let page = get_ok(&f.base, &path);
        let games = page["games"].as_array().unwrap();
        assert!(games.len() <= 33);
        for g in games {
            let date = g["date"].as_str().unwrap_or("").to_string();
            assert!(date >= last_date, "{date} after {last_date}");
            last_date = date;
            ids.push(g["id"].as_i64().unwrap());
        }
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    let distinct: HashSet<i64> = ids.iter().copied().collect();
    assert_eq!((ids.len(), distinct.len()), (200, 200));
}

#[test]
fn game_list_filters_by_player_and_refuses_bad_parameters() {
    let f = shared();
    let first = &get_ok(&f.base, "/api/v1/games?limit=1")["games"][0];
    let black = first["black"].as_str().unwrap();
    let page = get_ok(
        &f.base,
        &format!(
            "/api/v1/games?player={}&color=B&limit=1000",
            enc(&black.to_lowercase())
        ),
    );
    let games = page["games"].as_array().unwrap();
    assert!(!games.is_empty());
    assert!(games.iter().all(|g| g["black"] == black));

    let detail = get(&f.base, "/api/v1/games?cursor=nonsense").problem(400);
    assert!(detail.contains("cursor"), "{detail}");
    let detail = get(&f.base, "/api/v1/games?color=green").problem(400);
    assert!(
        detail.contains("color") && detail.contains("green"),
        "{detail}"
    );
    let detail = get(&f.base, "/api/v1/games?from=2020-13-01").problem(400);
    assert!(detail.contains("from"), "{detail}");
    let detail = get(&f.base, "/api/v1/games?limit=0").problem(400);
    assert!(detail.contains("limit"), "{detail}");
    let detail = get(&f.base, "/api/v1/games?size=big").problem(400);
    assert!(detail.contains("size"), "{detail}");

    // Kinds: every stored game is a Keil game of side 7 (so far).
    let count = |query: &str| {
        get_ok(&f.base, &format!("/api/v1/games?limit=1000&{query}"))["games"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(count("kind=keil"), 200);
    assert_eq!(count("kind=keil&size=7"), 200);
    assert_eq!(count("kind=KEIL&size=5"), 0);
    assert_eq!(count("kind=go"), 0);
    assert_eq!(count("size=7"), 200);
    let page = get_ok(&f.base, "/api/v1/games?limit=3&kind=keil");
    assert!(
        page["games"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["kind"] == "keil")
    );
    let detail = get(&f.base, "/api/v1/games?kind=chess").problem(400);
    assert!(
        detail.contains("kind") && detail.contains("chess"),
        "{detail}"
    );

    // A result in any spelling finds the games stored with its normal
    // form; one that is no result is refused with the forms that are.
    let result = first["result"].as_str().unwrap();
    let written = result.to_lowercase();
    let same = count(&format!("result={}", enc(result)));
    assert!(same > 0);
    assert_eq!(count(&format!("result={}", enc(&written))), same);
    let detail = get(&f.base, "/api/v1/games?result=john%20wins").problem(400);
    assert!(
        detail.contains("result") && detail.contains("Jigo"),
        "{detail}"
    );
}

#[test]
fn game_detail_is_cacheable_and_unknown_games_are_404() {
    let f = shared();
    let id = get_ok(&f.base, "/api/v1/games?limit=1")["games"][0]["id"]
        .as_i64()
        .unwrap();
    let r = get(&f.base, &format!("/api/v1/games/{id}"));
    assert_eq!(r.status, 200);
    let g = r.json();
    assert_eq!(g["id"], id);
    assert_eq!(g["kind"], "keil");
    assert_eq!(
        g["moves"].as_array().unwrap().len() as u64,
        g["plies"].as_u64().unwrap()
    );
    let etag = r.header("etag").unwrap().to_string();
    assert!(r.header("cache-control").unwrap().contains("max-age"));
    let again = reply(
        agent()
            .get(&format!("{}/api/v1/games/{id}", f.base))
            .header("If-None-Match", &etag)
            .call()
            .unwrap(),
    );
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());

    let detail = get(&f.base, "/api/v1/games/999999").problem(404);
    assert!(detail.contains("999999"), "{detail}");
    let detail = get(&f.base, "/api/v1/games/abc").problem(400);
    assert!(detail.contains("abc"), "{detail}");
    get(&f.base, "/api/v1/nothing-here").problem(404);
}

#[test]
fn record_downloads_as_a_keil_file() {
    let f = shared();
    let id = get_ok(&f.base, "/api/v1/games?limit=1")["games"][0]["id"]
        .as_i64()
        .unwrap();
    let r = get(&f.base, &format!("/api/v1/games/{id}/record"));
    assert_eq!(r.status, 200);
    assert!(r.content_type.starts_with("application/x-go-sgf"));
    assert!(
        r.header("content-disposition")
            .unwrap()
            .contains(&format!("keil-{id}.keil"))
    );
    assert!(r.body.starts_with("(;GM[Keil]"), "{}", r.body);
    assert!(r.header("etag").is_some());
    get(&f.base, "/api/v1/games/424242/record").problem(404);
}

#[test]
fn positions_of_a_game_agree_with_a_local_replay() {
    let f = shared();
    let page = get_ok(&f.base, "/api/v1/games?limit=20");
    let mut checked_capture = false;
    for g in page["games"].as_array().unwrap() {
        let id = g["id"].as_i64().unwrap();
        let detail = get_ok(&f.base, &format!("/api/v1/games/{id}"));
        let plies = detail["plies"].as_u64().unwrap() as usize;
        // The start, the end, and the first capture if any.
        let mut plies_to_check = vec![0, plies];
        if !checked_capture
            && let Some(p) = (1..=plies).find(|&p| !replay_local(&detail, p).1.is_empty())
        {
            plies_to_check.push(p);
            checked_capture = true;
        }
        for ply in plies_to_check {
            let (position, captured) = replay_local(&detail, ply);
            let got = get_ok(&f.base, &format!("/api/v1/games/{id}/positions/{ply}"));
            assert_eq!(got["ply"], ply);
            let (notation, to_move) =
                Position::parse_notation(got["notation"].as_str().unwrap()).unwrap();
            assert_eq!(notation, position, "game {id} ply {ply}");
            assert_eq!(
                got["black"].as_array().unwrap().len(),
                position.stones(Color::Black).len()
            );
            let want_to_move = if ply % 2 == 0 { "B" } else { "W" };
            assert_eq!(got["to_move"], want_to_move);
            assert_eq!(
                to_move.map(|c| c.letter().to_string()).as_deref(),
                Some(want_to_move)
            );
            let got_captured: Vec<String> = got["captured"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect();
            assert_eq!(got_captured, captured, "game {id} ply {ply}");
            if ply == 0 {
                assert!(got["last_move"].is_null());
                assert_eq!(got["notation"], "7/8/9/10/11/12/13/12/11/10/9/8/7 b");
            } else {
                assert_eq!(got["last_move"]["ply"], ply);
            }
        }
        if checked_capture {
            break;
        }
    }
    assert!(checked_capture, "no game with a capture among 20");

    let id = page["games"][0]["id"].as_i64().unwrap();
    let plies = page["games"][0]["plies"].as_u64().unwrap();
    let detail = get(
        &f.base,
        &format!("/api/v1/games/{id}/positions/{}", plies + 1),
    )
    .problem(404);
    assert!(detail.contains("plies"), "{detail}");
    get(&f.base, &format!("/api/v1/games/{id}/positions/x")).problem(400);
    get(&f.base, "/api/v1/games/999999/positions/0").problem(404);
}

#[test]
fn position_svg_draws_the_board() {
    let f = shared();
    let g = &get_ok(&f.base, "/api/v1/games?limit=1")["games"][0];
    let id = g["id"].as_i64().unwrap();
    let r = get(&f.base, &format!("/api/v1/games/{id}/positions/5.svg"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.content_type, "image/svg+xml");
    assert!(r.body.starts_with("<svg"));
    assert_eq!(r.body.matches(r#"class="last""#).count(), 1);
    assert!(r.body.contains(">m</text>") && r.body.contains(">13</text>"));
    assert!(r.header("etag").is_some());
    let start = get(&f.base, &format!("/api/v1/games/{id}/positions/0.svg"));
    assert_eq!(start.status, 200);
    assert!(!start.body.contains(r#"class="last""#));
    get(&f.base, "/api/v1/games/999999/positions/0.svg").problem(404);
}

#[test]
fn players_are_found_by_part_of_their_name_and_profiled() {
    let f = shared();
    let g = &get_ok(&f.base, "/api/v1/games?limit=1")["games"][0];
    let name = g["black"].as_str().unwrap().to_string();
    let prefix: String = name.chars().take(4).collect::<String>().to_lowercase();
    let hits = get_ok(&f.base, &format!("/api/v1/players?q={}", enc(&prefix)));
    let players = hits["players"].as_array().unwrap();
    assert!(players.iter().any(|p| p["name"] == name.as_str()), "{hits}");

    let profile = get_ok(&f.base, &format!("/api/v1/players/{}", enc(&name)));
    assert_eq!(profile["name"], name.as_str());
    let games = profile["games"].as_u64().unwrap();
    assert!(games >= 1);
    assert_eq!(
        profile["as_black"]["games"].as_u64().unwrap()
            + profile["as_white"]["games"].as_u64().unwrap(),
        games
    );

    get(&f.base, "/api/v1/players/Nobody%20At%20All").problem(404);
    let detail = get(&f.base, "/api/v1/players").problem(400);
    assert!(detail.contains('q'), "{detail}");
}

#[test]
fn a_player_is_one_person_whatever_the_spelling() {
    let f = start(0, None);
    let game = |headers: &str, shift: usize| {
        let mut s = format!("(;GM[1]FF[4]SZ[19]{headers}");
        for i in 0..30usize {
            let p = (shift + i * 7) % 361;
            let c = if i % 2 == 0 { 'B' } else { 'W' };
            let (x, y) = (
                (b'a' + (p % 19) as u8) as char,
                (b'a' + (p / 19) as u8) as char,
            );
            s.push_str(&format!(";{c}[{x}{y}]"));
        }
        s + ")"
    };
    let text = [
        game("PB[Ke Jie]PW[Gu Li]RE[B+R]", 0),
        game("PB[Gu Li]PW[KeJie]RE[W+R]", 1),
        game("PB[Ke Jie]PW[KeJie]RE[B+R]", 2),
    ]
    .concat();
    import(&f.archive, "spellings", text.into_bytes(), 10);
    for name in ["Ke Jie", "KeJie", "ke-jie"] {
        let p = get_ok(&f.base, &format!("/api/v1/players/{}", enc(name)));
        assert_eq!(p["name"], "Ke Jie", "{p}");
        assert_eq!(p["games"], 3, "{p}");
        assert_eq!(p["self_play"], 1, "{p}");
        assert_eq!(p["spellings"].as_array().unwrap().len(), 2, "{p}");
        assert_eq!(
            p["as_black"]["wins"].as_u64().unwrap() + p["as_white"]["wins"].as_u64().unwrap(),
            2,
            "the game against oneself is no win: {p}"
        );
    }
    let list = get_ok(&f.base, "/api/v1/games?player=kejie");
    assert_eq!(list["games"].as_array().unwrap().len(), 3, "{list}");
    let page = get(&f.base, "/players/KeJie");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("data-spellings"), "{}", page.body);
    assert!(page.body.contains("data-self-play"), "{}", page.body);
}

/// 19×19 Go records for the people tests: `headers` and 30 moves from
/// `shift`.
fn go_record(headers: &str, shift: usize) -> String {
    let mut s = format!("(;GM[1]FF[4]SZ[19]{headers}");
    for i in 0..30usize {
        let p = (shift * 11 + i * 7) % 361;
        let c = if i % 2 == 0 { 'B' } else { 'W' };
        let (x, y) = (
            (b'a' + (p % 19) as u8) as char,
            (b'a' + (p / 19) as u8) as char,
        );
        s.push_str(&format!(";{c}[{x}{y}]"));
    }
    s + ")"
}

#[test]
fn a_name_several_people_answer_to_offers_them_and_the_most_used_spelling_is_shown() {
    let f = start(0, None);
    let text = [
        go_record("PB[GULI]PW[Ke Jie]DT[2015-01-01]RE[B+R]", 1),
        go_record("PB[Gu Li]PW[Ke Jie]DT[2016-01-01]RE[B+R]", 2),
        go_record("PB[Gu Li]PW[Ke Jie]DT[2016-02-01]RE[B+R]", 3),
        go_record(
            "PB[Honinbo Shusaku]BR[7d]PW[Ota Yuzo]DT[1853-09-01]RE[B+R]",
            4,
        ),
        go_record(
            "PB[Honinbo Shusaku]BR[7d]PW[Ota Yuzo]DT[1854-09-01]RE[B+R]",
            5,
        ),
        go_record(
            "PB[Honinbo Shusaku]BR[4d]PW[Inoue Gennan Inseki]DT[1846-07-21]RE[B+2]",
            6,
        ),
        go_record("PB[Shusaku]BR[3k]PW[kgsfan]DT[2010-01-01]RE[W+R]", 7),
    ]
    .concat();
    import(&f.archive, "names", text.into_bytes(), 10);
    // The spelling most records use, whichever came first.
    let p = get_ok(&f.base, "/api/v1/players/GULI");
    assert_eq!(p["name"], "Gu Li", "{p}");
    assert_eq!(p["name_set"], false, "{p}");
    // Everyone who answers to "Shusaku", the exact account last, with
    // years, ranks and what names each alone in a filter.
    let hits = get_ok(&f.base, "/api/v1/players?q=Shusaku");
    let hits = hits["players"].as_array().unwrap();
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert_eq!(hits[0]["name"], "Honinbo Shusaku");
    assert_eq!(hits[0]["matched"], "word");
    assert_eq!(hits[0]["years"], "1846–1854");
    assert_eq!(hits[0]["ranks"], serde_json::json!(["4d", "7d"]));
    assert_eq!(hits[0]["filter"], "Honinbo Shusaku");
    assert_eq!(hits[1]["name"], "Shusaku");
    assert_eq!(hits[1]["matched"], "exact");
    let account = hits[1]["id"].as_i64().unwrap();
    assert_eq!(hits[1]["filter"], format!("#{account}"));
    // The filter takes them all and says so.
    let list = get_ok(
        &f.base,
        "/api/v1/games?player=Shusaku&opponent=Gennan&from=1846-01-01&to=1846-12-31",
    );
    let games = list["games"].as_array().unwrap();
    assert_eq!(games.len(), 1, "{list}");
    assert_eq!(games[0]["black"], "Honinbo Shusaku");
    assert_eq!(list["named"][0]["field"], "player", "{list}");
    assert_eq!(list["named"][0]["people"], 2, "{list}");
    assert_eq!(list["named"][0]["choices"][0]["name"], "Honinbo Shusaku");
    // `#ID` takes one alone, and the list says nothing more.
    let list = get_ok(&f.base, &format!("/api/v1/games?player=%23{account}"));
    assert_eq!(list["games"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["games"][0]["black"], "Shusaku");
    assert!(list.get("named").is_none(), "{list}");
    // The games page offers each person alone, the other filters kept.
    let page = get(&f.base, "/games?player=Shusaku&kind=go");
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains(r#"data-named="Player""#),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains(&format!("/games?player=%23{account}&#38;kind=go")),
        "{}",
        page.body
    );
    assert!(page.body.contains(r#"data-typeahead="fill""#));
    // The account's page names the others the name answers to, and its
    // links take the account alone.
    let page = get(&f.base, "/players/Shusaku");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("data-others"), "{}", page.body);
    assert!(page.body.contains("Honinbo Shusaku"), "{}", page.body);
    assert!(
        page.body.contains(&format!("/games?player=%23{account}")),
        "{}",
        page.body
    );
    // A name that answers to one person is theirs; to several, the answer
    // names them.
    let p = get_ok(&f.base, "/api/v1/players/Gennan");
    assert_eq!(p["name"], "Inoue Gennan Inseki", "{p}");
    let detail = get(&f.base, "/api/v1/players/shusaku2").problem(404);
    assert!(detail.contains("no player named"), "{detail}");
    let detail = get(&f.base, "/api/v1/players/Shu").problem(404);
    assert!(detail.contains("answers to 2 players"), "{detail}");
    assert!(detail.contains(&format!("#{account}")), "{detail}");
    // The operator's name is shown everywhere.
    f.archive
        .set_player_name("Gu Li", Some("Gu Li (古力)"))
        .unwrap();
    let p = get_ok(&f.base, "/api/v1/players/GULI");
    assert_eq!(
        (p["name"].as_str(), p["name_set"].as_bool()),
        (Some("Gu Li (古力)"), Some(true))
    );
    let ke = get_ok(&f.base, "/api/v1/players/Ke%20Jie");
    assert_eq!(ke["opponents"][0]["name"], "Gu Li (古力)", "{ke}");
    let hits = get_ok(&f.base, "/api/v1/players?q=guli");
    assert_eq!(hits["players"][0]["name"], "Gu Li (古力)", "{hits}");
    let page = get(&f.base, &format!("/players/{}", enc("Gu Li (古力)")));
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<h1>Gu Li (古力)</h1>"), "{}", page.body);
}

#[test]
fn a_line_of_moves_answers_as_the_position_after_it() {
    let f = shared();
    let played = get_ok(
        &f.base,
        "/api/v1/positions?kind=keil&play=g7,button,a1&symmetry=true",
    );
    let position = played["position"].as_str().unwrap().to_string();
    let same = get_ok(
        &f.base,
        &format!(
            "/api/v1/positions?kind=keil&symmetry=true&position={}",
            enc(&position)
        ),
    );
    assert_eq!(played["total_games"], same["total_games"]);
    assert_eq!(played["continuations"], same["continuations"]);
    assert!(
        position.ends_with(" w +") || position.ends_with(" w") || position.contains(" w"),
        "{position}"
    );
    for (q, what) in [
        ("play=g7", "kind"),
        ("kind=keil&play=g7,g7", "move 2"),
        ("kind=keil&play=zz9", "move 1"),
        (
            "kind=keil&play=g7&position=7/8/9/10/11/12/13/12/11/10/9/8/7",
            "not both",
        ),
        ("kind=go&size=99&play=pd", "size"),
    ] {
        let detail = get(&f.base, &format!("/api/v1/positions?{q}")).problem(400);
        assert!(detail.contains(what), "{q}: {detail}");
    }
}

#[test]
fn position_search_finds_the_game_and_counts_continuations() {
    let f = shared();
    let g = &get_ok(&f.base, "/api/v1/games?limit=1")["games"][0];
    let id = g["id"].as_i64().unwrap();
    let pos = get_ok(&f.base, &format!("/api/v1/games/{id}/positions/8"));
    let notation = pos["notation"].as_str().unwrap();
    let exact = get_ok(
        &f.base,
        &format!("/api/v1/positions?position={}&limit=100", enc(notation)),
    );
    let total = exact["total_games"].as_u64().unwrap();
    assert!(total >= 1);
    assert!(
        exact["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["id"] == id),
        "{exact}"
    );
    let played: u64 = exact["continuations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["games"].as_u64().unwrap())
        .sum();
    assert!(played >= total);

    let sym = get_ok(
        &f.base,
        &format!("/api/v1/positions?position={}&symmetry=true", enc(notation)),
    );
    assert!(sym["total_games"].as_u64().unwrap() >= total);

    // The empty board: every game.
    let start = get_ok(
        &f.base,
        "/api/v1/positions?position=7/8/9/10/11/12/13/12/11/10/9/8/7",
    );
    assert_eq!(start["total_games"], 200);
    // Suffixes restrict; an absent one matches either value, and every
    // game writes the position it matched in full.
    let empty = "7/8/9/10/11/12/13/12/11/10/9/8/7";
    let count_of = |query: &str| {
        let answer = get_ok(
            &f.base,
            &format!("/api/v1/positions?position={}&limit=1000", enc(query)),
        );
        assert_eq!(answer["position"], query.trim());
        answer["total_games"].as_u64().unwrap()
    };
    assert_eq!(
        count_of(&format!("{empty} -")),
        200,
        "every game starts with the button"
    );
    assert_eq!(count_of(&format!("{empty} b -")), 200);
    assert_eq!(
        count_of(&format!("{empty} w")),
        count_of(&format!("{empty} w -")) + count_of(&format!("{empty} w +"))
    );
    let board = notation.split(' ').next().unwrap();
    let either = get_ok(
        &f.base,
        &format!("/api/v1/positions?position={}&limit=1000", enc(board)),
    );
    assert!(either["total_games"].as_u64().unwrap() >= total);
    let hit = either["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == id)
        .unwrap_or_else(|| panic!("game {id} in {either}"));
    let written = hit["position"].as_str().unwrap();
    assert!(written.starts_with(board), "{written}");
    let suffix = if hit["button_taken"].as_bool().unwrap() {
        "+"
    } else {
        "-"
    };
    let to_move = hit["to_move"].as_str().unwrap().to_ascii_lowercase();
    assert!(
        written.ends_with(&format!(" {to_move} {suffix}")),
        "{written}"
    );
    assert!(
        either["continuations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["to_move"].is_string() && c["button_taken"].is_boolean())
    );
    let detail = get(
        &f.base,
        &format!(
            "/api/v1/positions?position={}",
            enc(&format!("{empty} + -"))
        ),
    )
    .problem(400);
    assert!(detail.contains('-'), "{detail}");

    let detail = get(
        &f.base,
        &format!(
            "/api/v1/positions?position={}",
            enc("7/8/x9/10/11/12/13/12/11/10/9/8/7")
        ),
    )
    .problem(400);
    assert!(
        detail.starts_with("position:") && detail.contains("'x'"),
        "{detail}"
    );
    let detail = get(&f.base, "/api/v1/positions?position=7/8").problem(400);
    assert!(detail.contains("columns"), "{detail}");
    let detail = get(&f.base, "/api/v1/positions").problem(400);
    assert!(detail.contains("position"), "{detail}");
}

#[test]
fn text_search_finds_events() {
    let f = shared();
    let page = get_ok(&f.base, "/api/v1/games?limit=50");
    let event = page["games"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|g| g["event"].as_str())
        .expect("an event");
    let word = event
        .split_whitespace()
        .find(|w| w.len() > 3 && w.chars().all(char::is_alphabetic))
        .unwrap();
    let hits = get_ok(&f.base, &format!("/api/v1/search?q={}", enc(word)));
    let hits = hits["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(hits[0]["game"]["id"].is_i64());
    get(&f.base, "/api/v1/search").problem(400);
    // Not a syntax error: an unknown field is part of the words.
    let none = get_ok(
        &f.base,
        &format!("/api/v1/search?q={}", enc("nosuchfield:x")),
    );
    assert_eq!(none["hits"].as_array().unwrap().len(), 0);
}

#[test]
fn openapi_document_lists_every_route() {
    let f = shared();
    let doc = get_ok(&f.base, "/openapi.json");
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    let expected = [
        ("get", "/healthz"),
        ("get", "/openapi.json"),
        ("get", "/api/v1/games"),
        ("post", "/api/v1/games"),
        ("get", "/api/v1/games.sgf"),
        ("get", "/api/v1/games.zip"),
        ("get", "/api/v1/games/{id}"),
        ("delete", "/api/v1/games/{id}"),
        ("get", "/api/v1/games/{id}/record"),
        ("get", "/api/v1/games/{id}/records/{record}"),
        ("get", "/api/v1/games/{id}/positions/{ply}"),
        ("get", "/api/v1/games/{id}/positions/{ply}.svg"),
        ("get", "/api/v1/players"),
        ("get", "/api/v1/players/{name}"),
        ("get", "/api/v1/positions"),
        ("get", "/api/v1/patterns"),
        ("get", "/api/v1/search"),
        ("get", "/api/v1/stats"),
        ("get", "/api/v1/collections"),
        ("get", "/api/v1/refused"),
        ("get", "/api/v1/refused/{id}"),
    ];
    for (method, path) in expected {
        assert!(
            doc["paths"][path][method].is_object(),
            "{method} {path} missing"
        );
    }
    assert_eq!(keil_server::routes().len(), expected.len());
    for (method, path) in keil_server::routes() {
        assert!(
            doc["paths"][path][method.to_ascii_lowercase()].is_object(),
            "registered route {method} {path} is not documented"
        );
    }
    assert!(doc["components"]["securitySchemes"]["bearer"].is_object());
}

// ---- uploads -------------------------------------------------------------------

#[test]
fn uploads_need_the_token() {
    let f = shared();
    let game = corpus(1, 99);
    let r = post(&f.base, None, game.clone());
    let detail = r.problem(401);
    assert!(detail.contains("Bearer"), "{detail}");
    assert!(r.header("www-authenticate").unwrap().starts_with("Bearer"));
    post(&f.base, Some("wrong-token-0123"), game.clone()).problem(401);

    let closed = start(0, None);
    let detail = post(&closed.base, Some(TOKEN), game).problem(403);
    assert!(detail.contains("disabled"), "{detail}");
}

#[test]
fn oversized_uploads_are_413() {
    let f = shared();
    let big = vec![b' '; LIMIT + 1];
    let detail = post(&f.base, Some(TOKEN), big).problem(413);
    assert!(detail.contains(&LIMIT.to_string()), "{detail}");
}

#[test]
fn upload_answers_a_verdict_per_game() {
    let f = start(0, Some(TOKEN));
    // An illegal record: 422 with reason, ply and line:column.
    let illegal = "(;GM[Keil]FF[4]SZ[2]KM[0]PB[Ann]PW[Bo]\n;B[b2];W[b2])";
    let r = post(&f.base, Some(TOKEN), illegal);
    assert_eq!(r.status, 422, "{}", r.body);
    let v = &r.json()["games"][0];
    assert_eq!(v["outcome"], "invalid");
    assert_eq!(v["reason"], "occupied");
    assert_eq!(v["ply"], 2);
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64()),
        (Some(2), Some(7)),
        "{v}"
    );
    assert!(v["message"].as_str().unwrap().contains("occupied"));
    assert_eq!(v["move"], "W[b2]");
    assert_eq!(v["verdict"]["reason"], "occupied");
    assert_eq!(v["verdict"]["file"], "upload");

    // A Go record is stored (schema 4); a chess record is refused.
    let r = post(&f.base, Some(TOKEN), "(;GM[1]SZ[19];B[pd])");
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.json()["games"][0]["outcome"], "stored");
    let r = post(&f.base, Some(TOKEN), "(;GM[3]SZ[8];B[aa])");
    assert_eq!(r.status, 422, "{}", r.body);

    // A valid game: 201 with its id; again: 200, duplicate.
    let game = corpus(1, 7);
    let r = post(&f.base, Some(TOKEN), game.clone());
    assert_eq!(r.status, 201, "{}", r.body);
    let v = &r.json()["games"][0];
    assert_eq!(v["outcome"], "stored");
    let id = v["id"].as_i64().unwrap();
    assert_eq!(r.header("location").unwrap(), format!("/api/v1/games/{id}"));
    assert_eq!(get_ok(&f.base, &format!("/api/v1/games/{id}"))["id"], id);
    let r = post(&f.base, Some(TOKEN), game.clone());
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["games"][0]["outcome"], "duplicate");
    assert_eq!(
        r.json()["games"][0]["id"],
        id,
        "a duplicate names the stored game"
    );

    // A collection: new, duplicate, illegal, new; ids follow the order.
    let mut body = corpus(3, 8);
    body.extend_from_slice(&game);
    body.extend_from_slice(illegal.as_bytes());
    let r = post(&f.base, Some(TOKEN), body);
    assert_eq!(r.status, 201, "{}", r.body);
    let answer = r.json();
    let outcomes: Vec<&str> = answer["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(
        outcomes,
        ["stored", "stored", "stored", "duplicate", "invalid"]
    );
    // Each answer carries the validator's verdict on its own game tree.
    for (i, g) in answer["games"].as_array().unwrap().iter().enumerate() {
        assert_eq!(g["index"], i);
        assert_eq!(g["verdict"]["game"], i, "{g}");
    }
    // Lines count in the whole body.
    let illegal_at = &answer["games"][4];
    assert_eq!(illegal_at["line"], illegal_at["verdict"]["line"]);
    assert!(illegal_at["line"].as_u64().unwrap() > 2, "{illegal_at}");
    assert_eq!(
        answer["games"][0]["status"],
        answer["games"][0]["verdict"]["status"]
    );
    assert_eq!(
        (
            answer["stored"].as_u64(),
            answer["duplicates"].as_u64(),
            answer["invalid"].as_u64()
        ),
        (Some(3), Some(1), Some(1))
    );
    // The summary: every tree counted, refusals per reason, nothing cut.
    assert_eq!(answer["trees"], 5);
    assert_eq!(answer["reasons"], serde_json::json!({"occupied": 1}));
    assert_eq!(answer["truncated"], false);
    let ids: Vec<i64> = answer["games"].as_array().unwrap()[..3]
        .iter()
        .map(|g| g["id"].as_i64().unwrap())
        .collect();
    for (i, id) in ids.iter().enumerate() {
        let stored = get(&f.base, &format!("/api/v1/games/{id}/record")).body;
        let sent = String::from_utf8(corpus(3, 8)).unwrap();
        let first_player = |s: &str| {
            s.split("PB[")
                .nth(1)
                .and_then(|r| r.split(']').next())
                .map(str::to_string)
        };
        let nth_sent = sent.split("(;").filter(|s| !s.is_empty()).nth(i).unwrap();
        assert_eq!(first_player(&stored), first_player(nth_sent), "game {i}");
    }
    // Three generated games and the Go game posted above.
    assert_eq!(get_ok(&f.base, "/api/v1/stats")["games"], 5);
}

#[test]
fn pagination_neither_repeats_nor_skips_while_an_import_runs() {
    let f = start(150, None);
    let before: HashSet<i64> = {
        let page = get_ok(&f.base, "/api/v1/games?limit=1000");
        page["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(before.len(), 150);
    let archive = Arc::clone(&f.archive);
    let importer = thread::spawn(move || {
        // Small batches, so commits land between the pages.
        import(&archive, "more", corpus(300, 2), 10);
    });
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            None => "/api/v1/games?limit=7".to_string(),
            Some(c) => format!("/api/v1/games?limit=7&cursor={}", enc(c)),
        };
        let page = get_ok(&f.base, &path);
        seen.extend(
            page["games"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["id"].as_i64().unwrap()),
        );
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
        thread::sleep(Duration::from_millis(5));
    }
    importer.join().unwrap();
    let distinct: HashSet<i64> = seen.iter().copied().collect();
    assert_eq!(distinct.len(), seen.len(), "a game was listed twice");
    let missing: Vec<_> = before.difference(&distinct).collect();
    assert!(missing.is_empty(), "games skipped: {missing:?}");
    assert_eq!(get_ok(&f.base, "/api/v1/stats")["games"], 450);
}

#[test]
fn go_games_list_replay_draw_and_search_by_position() {
    let f = start(0, None);
    let mut bytes = Vec::new();
    let config = GeneratorConfig {
        game: keil_rules::GameKind::Go,
        games: 12,
        size: 9,
        seed: 5,
        ..GeneratorConfig::default()
    };
    keil_gen::write_collection(config, &mut bytes).unwrap();
    import(&f.archive, "go", bytes, 5);

    // Lists by kind and size.
    let list = get_ok(&f.base, "/api/v1/games?kind=go&size=9&limit=100");
    let games = list["games"].as_array().unwrap();
    assert_eq!(games.len(), 12, "{list}");
    assert!(games.iter().all(|g| g["kind"] == "go" && g["size"] == 9));
    let none = get_ok(&f.base, "/api/v1/games?kind=keil");
    assert_eq!(none["games"].as_array().unwrap().len(), 0);

    // One game, its positions, its boards.
    let id = games[0]["id"].as_i64().unwrap();
    let game = get_ok(&f.base, &format!("/api/v1/games/{id}"));
    let moves = game["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    let plies = moves.len();
    let start = get_ok(&f.base, &format!("/api/v1/games/{id}/positions/0"));
    assert_eq!(start["size"], 9);
    let two = get_ok(&f.base, &format!("/api/v1/games/{id}/positions/2"));
    assert_eq!(two["ply"], 2);
    let notation = two["notation"].as_str().unwrap().to_string();
    assert_eq!(notation.split(' ').next().unwrap().split('/').count(), 9);
    let end = get_ok(&f.base, &format!("/api/v1/games/{id}/positions/{plies}"));
    assert_eq!(end["ply"].as_u64(), Some(plies as u64));
    let svg = get(&f.base, &format!("/api/v1/games/{id}/positions/2.svg"));
    assert_eq!(svg.status, 200);
    assert!(svg.content_type.starts_with("image/svg+xml"));
    assert!(svg.body.contains("<svg") && svg.body.contains("data-point"));
    // The record downloads as a Go SGF file.
    let record = get(&f.base, &format!("/api/v1/games/{id}/record"));
    assert_eq!(record.status, 200);
    assert!(
        record
            .header("content-disposition")
            .unwrap()
            .contains(&format!("keil-{id}.sgf")),
        "{:?}",
        record.header("content-disposition")
    );
    assert!(record.body.starts_with("(;GM[1]"), "{}", record.body);

    // The position after ply 2, by kind, inferred, symmetric, swapped.
    let board = notation.split(' ').next().unwrap();
    let path = |extra: &str| format!("/api/v1/positions?position={}{extra}", enc(board));
    let exact = get_ok(&f.base, &path("&kind=go"));
    assert_eq!(exact["kind"], "go");
    let total = exact["total_games"].as_u64().unwrap();
    assert!(total >= 1);
    assert!(
        exact["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"].as_i64() == Some(id) && g["ply"] == 2 && g["swapped"] == false)
    );
    let inferred = get_ok(&f.base, &path(""));
    assert_eq!(inferred["kind"], "go");
    assert_eq!(inferred["total_games"].as_u64(), Some(total));
    let wide = get_ok(&f.base, &path("&kind=go&symmetry=true&colors=swap"));
    assert_eq!(wide["swap_colors"], true);
    assert!(wide["total_games"].as_u64().unwrap() >= total);
    // The colour-swapped board finds the game, marked swapped.
    let swapped_board = swap_letters(board);
    let swapped = get_ok(
        &f.base,
        &format!(
            "/api/v1/positions?position={}&kind=go&colors=swap",
            enc(&swapped_board)
        ),
    );
    assert!(
        swapped["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"].as_i64() == Some(id) && g["swapped"] == true),
        "{swapped}"
    );
    // Bad parameters.
    assert_eq!(get(&f.base, &path("&kind=go&colors=both")).status, 400);
    assert_eq!(get(&f.base, &path("&kind=chess")).status, 400);
    assert_eq!(get(&f.base, &path("&kind=keil")).status, 400);
}

/// The top-left `n`×`n` corner of a square position as pattern rows.
fn corner_rows(position: &Value, n: u8) -> (String, usize) {
    let stones = |c: &str| -> HashSet<String> {
        position[c]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect()
    };
    let (black, white) = (stones("black"), stones("white"));
    let mut rows = Vec::new();
    let mut count = 0;
    for r in 0..n {
        let mut row = String::new();
        for c in 0..n {
            let name = format!("{}{}", (b'a' + c) as char, (b'a' + r) as char);
            row.push(if black.contains(&name) {
                count += 1;
                'X'
            } else if white.contains(&name) {
                count += 1;
                'O'
            } else {
                '.'
            });
        }
        rows.push(row);
    }
    (rows.join("/"), count)
}

#[test]
fn pattern_search_finds_corner_and_point_patterns_pages_and_refuses_bad_ones() {
    let f = start(30, None);
    let mut bytes = Vec::new();
    let config = GeneratorConfig {
        game: keil_rules::GameKind::Go,
        games: 20,
        size: 9,
        seed: 7,
        ..GeneratorConfig::default()
    };
    keil_gen::write_collection(config, &mut bytes).unwrap();
    import(&f.archive, "go", bytes, 50);

    // A Go game's top-left corner after ply 12, as a corner pattern.
    let list = get_ok(&f.base, "/api/v1/games?kind=go&limit=100");
    let games = list["games"].as_array().unwrap();
    assert_eq!(games.len(), 20);
    let (id, rows) = games
        .iter()
        .filter(|g| g["plies"].as_u64().unwrap() > 30)
        .find_map(|g| {
            let id = g["id"].as_i64().unwrap();
            let pos = get_ok(&f.base, &format!("/api/v1/games/{id}/positions/12"));
            let (rows, stones) = corner_rows(&pos, 5);
            (stones >= 2).then_some((id, rows))
        })
        .expect("a game with stones in its top-left corner");
    let path = |extra: &str| {
        format!(
            "/api/v1/patterns?pattern={}&kind=go&size=9&mode=corner{extra}",
            enc(&rows)
        )
    };
    let a = get_ok(&f.base, &path("&limit=1000"));
    assert_eq!(a["pattern"], format!("{rows}@aa"), "{a}");
    assert_eq!(a["kind"], "go");
    assert_eq!(a["size"], 9);
    assert_eq!(a["mode"], "corner");
    assert_eq!(a["symmetry"], true);
    assert_eq!(a["swap_colors"], true);
    let total = a["total_games"].as_u64().unwrap();
    assert!(total > 0, "{a}");
    assert!(a["total_hits"].as_u64().unwrap() >= total);
    assert!(a["placements"].as_u64().unwrap() >= 1);
    let hits = a["games"].as_array().unwrap();
    assert_eq!(hits.len() as u64, total);
    let hit = hits
        .iter()
        .find(|g| g["id"].as_i64() == Some(id))
        .unwrap_or_else(|| panic!("game {id} is not found by its own corner: {a}"));
    assert!(hit["ply"].as_u64().unwrap() <= 12, "{hit}");
    assert!(hit["hits"].as_u64().unwrap() >= 1);
    // A region of 25 points of a 9x9 board is played in again: the
    // continuation table has rows, labelled A, B, ... most played first.
    let continuations = a["continuations"].as_array().unwrap();
    assert!(!continuations.is_empty(), "{a}");
    assert_eq!(continuations[0]["label"], "A");
    let played =
        |c: &Value| c["black"]["count"].as_u64().unwrap() + c["white"]["count"].as_u64().unwrap();
    assert!(played(&continuations[0]) > 0);
    assert!(
        continuations
            .windows(2)
            .all(|w| played(&w[0]) >= played(&w[1]))
    );
    for c in continuations {
        assert!(c["point"].as_str().unwrap().len() == 2, "{c}");
        assert!(c["offset"][0].as_u64().unwrap() < 5 && c["offset"][1].as_u64().unwrap() < 5);
    }
    // Exactly as drawn, in the game's colours, it still finds the game.
    let exact = get_ok(&f.base, &path("&symmetry=false&colors=same&limit=1000"));
    assert!(exact["total_games"].as_u64().unwrap() <= total);
    assert!(
        exact["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"].as_i64() == Some(id) && g["swapped"] == false && g["symmetry"] == 0)
    );

    // Pages of one game cover every game once, newest first.
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let extra = match &cursor {
            None => "&limit=1".to_string(),
            Some(c) => format!("&limit=1&cursor={}", enc(c)),
        };
        let page = get_ok(&f.base, &path(&extra));
        assert_eq!(page["total_games"].as_u64(), Some(total));
        let ids: Vec<i64> = page["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_i64().unwrap())
            .collect();
        assert!(ids.len() <= 1);
        seen.extend(ids);
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    let all: Vec<i64> = hits.iter().map(|g| g["id"].as_i64().unwrap()).collect();
    assert_eq!(seen, all);
    assert!(
        get(&f.base, &path("&cursor=nonsense"))
            .problem(400)
            .contains("cursor")
    );

    // The game filters of the game list apply.
    let black = hit["black"].as_str().unwrap().to_string();
    let mine = get_ok(
        &f.base,
        &path(&format!("&limit=1000&player={}", enc(&black))),
    );
    let mine_games = mine["games"].as_array().unwrap();
    assert!(mine_games.iter().any(|g| g["id"].as_i64() == Some(id)));
    assert!(
        mine_games
            .iter()
            .all(|g| g["black"].as_str() == Some(&black) || g["white"].as_str() == Some(&black))
    );
    let none = get_ok(&f.base, &path("&from=2999-01-01"));
    assert_eq!(none["total_games"], 0);
    assert_eq!(none["games"].as_array().unwrap().len(), 0);

    // A Keil point list: every stone of a game after ply 6, where it is.
    let keil = get_ok(&f.base, "/api/v1/games?kind=keil&limit=1");
    let kid = keil["games"][0]["id"].as_i64().unwrap();
    let pos = get_ok(&f.base, &format!("/api/v1/games/{kid}/positions/6"));
    let names = |c: &str| -> Vec<String> {
        pos[c]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect()
    };
    let (b, w) = (names("black"), names("white"));
    assert!(!b.is_empty() && !w.is_empty());
    let pattern = format!("X:{} O:{}", b.join(","), w.join(","));
    let k = get_ok(
        &f.base,
        &format!(
            "/api/v1/patterns?pattern={}&kind=keil&mode=fixed&symmetry=false&limit=1000",
            enc(&pattern)
        ),
    );
    assert_eq!(k["kind"], "keil");
    assert_eq!(k["size"], 7);
    assert_eq!(
        k["placements"], 2,
        "where drawn, and with colours swapped: {k}"
    );
    assert!(
        k["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"].as_i64() == Some(kid) && g["ply"].as_u64().unwrap() <= 6),
        "{k}"
    );
    let anywhere = get_ok(
        &f.base,
        &format!("/api/v1/patterns?pattern={}&kind=keil", enc(&pattern)),
    );
    assert!(anywhere["total_games"].as_u64() >= k["total_games"].as_u64());

    // Bad requests name the parameter and what to fix.
    let problem = |q: &str| get(&f.base, &format!("/api/v1/patterns?{q}")).problem(400);
    let d = problem("");
    assert!(d.contains("pattern") && d.contains("required"), "{d}");
    let d = problem(&format!("pattern={}&size=9", enc("XQ./...")));
    assert!(
        d.starts_with("pattern:") && d.contains("'Q'") && d.contains("row 1, column 2"),
        "{d}"
    );
    let d = problem(&format!("pattern={}&size=9", enc("XX/X")));
    assert!(d.contains("every row needs the same width"), "{d}");
    let d = problem(&format!("pattern={}&size=9&mode=corner", enc("X:ee .:ef")));
    assert!(d.starts_with("pattern:") && d.contains("corner"), "{d}");
    let d = problem(&format!("pattern={}&size=9&mode=edge", enc("X:ee")));
    assert!(
        d.starts_with("mode:") && d.contains("fixed, corner, side, centre or anywhere"),
        "{d}"
    );
    let d = problem(&format!("pattern={}&size=40", enc("X:dd")));
    assert!(d.starts_with("size:"), "{d}");
    let d = problem(&format!("pattern={}&kind=keil", enc("X./..")));
    assert!(d.contains("VALUE:POINT"), "{d}");
    let d = problem(&format!("pattern={}&size=9&colors=both", enc("X:ee")));
    assert!(d.starts_with("colors:"), "{d}");
    let d = problem(&format!("pattern={}&size=9&symmetry=maybe", enc("X:ee")));
    assert!(d.starts_with("symmetry:"), "{d}");
    let d = problem(&format!("pattern={}&size=9&winner=green", enc("X:ee")));
    assert!(d.starts_with("winner:"), "{d}");
}

#[test]
fn kaomi_games_list_show_their_end_draw_pushes_and_search_by_position() {
    let f = start(0, None);
    for (seed, variant) in [
        (3, keil_rules::KaomiVariant::Standard),
        (4, keil_rules::KaomiVariant::Squared),
    ] {
        let mut bytes = Vec::new();
        let config = GeneratorConfig {
            game: keil_rules::GameKind::Kaomi,
            games: 10,
            size: 7,
            seed,
            kaomi_variant: Some(variant),
            resign_share: 0.0,
            ..GeneratorConfig::default()
        };
        keil_gen::write_collection(config, &mut bytes).unwrap();
        import(&f.archive, "kaomi", bytes, 5);
    }

    // Side-7 Keil games beside the 7x7 Kaomi ones: stats keep the boards
    // of two kinds apart.
    let mut keil = Vec::new();
    let config = GeneratorConfig {
        games: 3,
        size: 7,
        seed: 9,
        ..GeneratorConfig::default()
    };
    keil_gen::write_collection(config, &mut keil).unwrap();
    import(&f.archive, "keil", keil, 5);
    let stats = get_ok(&f.base, "/api/v1/stats");
    assert_eq!(stats["by_board"]["kaomi 7"], 20, "{stats}");
    assert_eq!(stats["by_board"]["keil 7"], 3, "{stats}");
    assert_eq!(stats["by_size"]["7"], 23, "{stats}");

    // Lists by kind, size and variant.
    let all = get_ok(&f.base, "/api/v1/games?kind=kaomi&size=7&limit=100");
    assert_eq!(all["games"].as_array().unwrap().len(), 20, "{all}");
    let squared = get_ok(
        &f.base,
        "/api/v1/games?kind=kaomi&variant=squared&limit=100",
    );
    let squared = squared["games"].as_array().unwrap();
    assert_eq!(squared.len(), 10);
    assert!(
        squared
            .iter()
            .all(|g| g["ruleset"].as_str().unwrap().contains("variant=squared"))
    );
    assert_eq!(get(&f.base, "/api/v1/games?variant=cubed").status, 400);

    // A standard game: its final groups, pairs and deciding group.
    let standard = get_ok(
        &f.base,
        "/api/v1/games?kind=kaomi&variant=standard&limit=100",
    );
    let game = &standard["games"].as_array().unwrap()[0];
    let id = game["id"].as_i64().unwrap();
    let detail = get_ok(&f.base, &format!("/api/v1/games/{id}"));
    let end = &detail["kaomi"];
    assert_eq!(end["variant"], "standard", "{detail}");
    let blacks: u64 = end["groups_black"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    let whites: u64 = end["groups_white"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(blacks + whites, 49);
    assert_eq!(end["winner"], game["winner"]);
    assert_eq!(end["margin"].as_f64(), game["margin"].as_f64());
    if end["emptied"] == false {
        let group = &end["winner_group"];
        assert_eq!(group["color"], end["winner"]);
        assert_eq!(
            group["points"].as_array().unwrap().len() as u64,
            group["size"].as_u64().unwrap()
        );
    }
    for pair in end["removed_pairs"].as_array().unwrap() {
        assert_eq!(
            pair["black"].as_array().unwrap().len(),
            pair["white"].as_array().unwrap().len()
        );
    }
    let plies = detail["moves"].as_array().unwrap().len();
    let svg = get(
        &f.base,
        &format!("/api/v1/games/{id}/positions/{plies}.svg"),
    );
    assert_eq!(svg.status, 200);
    assert!(
        svg.body.contains(r#"class="deciding""#) || end["emptied"] == true,
        "{}",
        svg.body
    );
    assert_eq!(
        svg.body.matches(r#"data-size="#).count()
            - usize::from(svg.body.contains(r#"class="deciding""#)),
        end["removed_pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| 2 * p["size"].as_u64().unwrap() as usize)
            .sum::<usize>()
    );

    // A ply that pushed stones: the position lists them, the SVG draws
    // ghosts and arrows.
    let pushed = (1..=plies)
        .map(|ply| {
            (
                ply,
                get_ok(&f.base, &format!("/api/v1/games/{id}/positions/{ply}")),
            )
        })
        .find(|(_, p)| p.get("moved").is_some())
        .expect("some placement pushes a stone");
    let (ply, position) = pushed;
    let moved = position["moved"].as_array().unwrap();
    let svg = get(&f.base, &format!("/api/v1/games/{id}/positions/{ply}.svg"));
    assert_eq!(svg.body.matches(r#"class="ghost""#).count(), moved.len());
    assert_eq!(svg.body.matches(r#"class="push""#).count(), moved.len());
    assert!(svg.body.contains(&format!(
        r#"data-to="{}""#,
        moved[0]["to"].as_str().unwrap()
    )));
    // Coordinates are Kaomi's SGF letters, not Go's.
    assert!(svg.body.contains(">g</text>") && !svg.body.contains(">A</text>"));
    // The record downloads as a .kaomi file.
    let record = get(&f.base, &format!("/api/v1/games/{id}/record"));
    let disposition = record.header("content-disposition").unwrap();
    assert!(
        disposition.contains(&format!("keil-{id}.kaomi")),
        "{disposition}"
    );
    assert!(record.body.starts_with("(;GM[Kaomi]"));

    // The position after that ply, by kind, symmetric and colour-swapped.
    let board = position["notation"]
        .as_str()
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    let found = |query: &str| -> bool {
        get_ok(
            &f.base,
            &format!("/api/v1/positions?position={query}&kind=kaomi&symmetry=true&colors=swap"),
        )["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"].as_i64() == Some(id) && g["ply"].as_u64() == Some(ply as u64))
    };
    assert!(found(&enc(&board)));
    // Rotated by 180°: rows reversed, each row reversed.
    let rotated: Vec<String> = board
        .split('/')
        .rev()
        .map(|r| {
            let mut cells = String::new();
            for ch in r.chars() {
                match ch.to_digit(10) {
                    Some(k) => cells.extend(std::iter::repeat_n('.', k as usize)),
                    None => cells.push(ch),
                }
            }
            let reversed: String = cells.chars().rev().collect();
            // Back to digit runs.
            let mut out = String::new();
            let mut run = 0;
            for ch in reversed.chars() {
                if ch == '.' {
                    run += 1;
                } else {
                    if run > 0 {
                        out.push_str(&run.to_string());
                        run = 0;
                    }
                    out.push(ch);
                }
            }
            if run > 0 {
                out.push_str(&run.to_string());
            }
            out
        })
        .collect();
    assert!(found(&enc(&rotated.join("/"))));
    assert!(found(&enc(&swap_letters(&board))));
}

/// Every query parameter with an OpenAPI `pattern` is read by the server
/// exactly as the pattern says: a value the schema accepts answers 200, one
/// it refuses answers 400 (Schemathesis checks the same from generated
/// values; these are the edge cases: blanks, signs, leading zeros, days
/// past a month's end, case). Left out are the parameters whose valid
/// values depend on another's (rules JSON Schema cannot state): the
/// pattern search's `kind`, `size` and `mode` (the board, and where the
/// pattern is drawn on it) and the position search's `kind` (the
/// notation's board).
#[test]
fn query_parameters_are_read_as_their_openapi_patterns_say() {
    let f = shared();
    let doc = get_ok(&f.base, "/openapi.json");
    let empty_keil_7 = "7/8/9/10/11/12/13/12/11/10/9/8/7";
    let operations = [
        ("/api/v1/games", String::new()),
        ("/api/v1/patterns", format!("pattern={}", enc("X:dd"))),
        (
            "/api/v1/positions",
            format!("position={}", enc(empty_keil_7)),
        ),
        ("/api/v1/players", "q=a".to_string()),
        ("/api/v1/search", "q=a".to_string()),
        ("/api/v1/refused", String::new()),
    ];
    let probes = [
        "",
        " ",
        "  x",
        "b",
        "B",
        "black",
        "WHITE",
        "green",
        "2023-02-28",
        "2023-02-30",
        "2023-13-01",
        "2023-2-1",
        "١٢٣",
        "+5",
        "-1",
        "0",
        "00",
        "007",
        "5",
        "25",
        "26",
        "100",
        "101",
        "255",
        "256",
        "1000",
        "1001",
        "asc",
        "ASC",
        "desc",
        "keil",
        "GO",
        "Kaomi",
        "chess",
        "true",
        "no",
        "TRUE",
        "same",
        "swap",
        "corner",
        "center",
        "Corner",
        "standard",
        "SQUARED",
        "complete",
        "Resigned",
        "keil",
        "Keil; button=off",
        "keil ko=kee,linking=unopposed",
        "keil button",
        "go",
        "~5",
        "2020-01-01~7",
        "2020-02-31~7",
        "2020-01-01~+7",
        "12-3",
        "+1-2",
        "1-",
        "20191208-42",
        "9d",
        "9D",
        "30k",
        "31k",
        "0k",
        "05k",
        "1p",
        "10p",
        " 3d ",
        "9段",
        "P9",
    ];
    let mut checked = 0;
    for (path, required) in &operations {
        let params = doc["paths"][path]["get"]["parameters"].as_array().unwrap();
        for param in params {
            let name = param["name"].as_str().unwrap();
            let schema = &param["schema"];
            let Some(pattern) = schema["pattern"].as_str() else {
                continue;
            };
            let cross = match *path {
                "/api/v1/patterns" => ["kind", "size", "mode"].contains(&name),
                // Which board `position` and `play` describe depends on
                // `kind` and `size`, and the reverse; `variations` is the
                // explorer's option of both searches, and a position search
                // refuses `true` (as its description says; tested apart).
                "/api/v1/positions" => {
                    ["kind", "position", "play", "size", "variations"].contains(&name)
                }
                _ => false,
            };
            if param["required"] == true || cross {
                continue;
            }
            let re = regex::Regex::new(pattern).unwrap();
            let max = schema["maxLength"].as_u64().unwrap_or(u64::MAX) as usize;
            for probe in probes {
                let valid = re.is_match(probe) && probe.len() <= max;
                let sep = if required.is_empty() { "" } else { "&" };
                let url = format!("{path}?{required}{sep}{name}={}", enc(probe));
                let r = get(&f.base, &url);
                let want = if valid { 200 } else { 400 };
                assert_eq!(r.status, want, "{url} (pattern {pattern}): {}", r.body);
                checked += 1;
            }
        }
    }
    assert!(checked > 600, "{checked}");
}

/// Every query parameter of every GET operation is refused (400) one
/// character past the `maxLength` the document gives it: the document's
/// bounds are the server's (the bulk download once read its query without
/// them, and answered 200).
#[test]
fn every_query_parameter_past_its_max_length_is_refused() {
    let f = shared();
    let doc = get_ok(&f.base, "/openapi.json");
    let required = |path: &str| match path {
        "/api/v1/patterns" => format!("pattern={}", enc("X:dd")),
        "/api/v1/positions" => format!("position={}", enc("7/8/9/10/11/12/13/12/11/10/9/8/7")),
        "/api/v1/players" | "/api/v1/search" => "q=a".into(),
        _ => String::new(),
    };
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        let Some(params) = item["get"]["parameters"].as_array() else {
            continue;
        };
        if path.contains('{') {
            continue;
        }
        for param in params.iter().filter(|p| p["in"] == "query") {
            let name = param["name"].as_str().unwrap();
            let max = param["schema"]["maxLength"]
                .as_u64()
                .unwrap_or_else(|| panic!("{path} {name}: no maxLength"));
            let long = "1".repeat(max as usize + 1);
            let base = required(path);
            let mut query: Vec<String> = base
                .split('&')
                .filter(|p| !p.is_empty() && !p.starts_with(&format!("{name}=")))
                .map(str::to_string)
                .collect();
            query.push(format!("{name}={long}"));
            let url = format!("{path}?{}", query.join("&"));
            let r = get(&f.base, &url);
            assert_eq!(r.status, 400, "{path} {name}: {}", r.body);
            assert!(r.body.contains(name), "{path} {name}: {}", r.body);
            checked += 1;
        }
    }
    assert!(checked > 80, "{checked}");
}

#[test]
fn games_carry_ranks_read_and_as_written_and_filter_by_rank() {
    let f = shared();
    let all = get_ok(&f.base, "/api/v1/games?limit=1000");
    let games = all["games"].as_array().unwrap();
    assert!(games.iter().any(|g| g["black_rank"].is_string()));
    for g in games {
        for side in ["black", "white"] {
            let rank = &g[format!("{side}_rank")];
            let text = &g[format!("{side}_rank_text")];
            // The generator writes ranks in their canonical form.
            assert_eq!(rank, text, "{g}");
        }
    }
    let order = |r: &Value| r.as_str().and_then(|r| r.parse::<keil_record::Rank>().ok());
    // The strongest weaker player of any game: at least that game passes.
    let three_dan = games
        .iter()
        .filter_map(|g| order(&g["black_rank"]).min(order(&g["white_rank"])))
        .max()
        .unwrap();
    let url = format!("/api/v1/games?limit=1000&min_rank={three_dan}");
    let strong = get_ok(&f.base, &url);
    let strong = strong["games"].as_array().unwrap();
    let want: Vec<&Value> = games
        .iter()
        .filter(|g| {
            ["black_rank", "white_rank"]
                .iter()
                .all(|k| order(&g[*k]).is_some_and(|r| r >= three_dan))
        })
        .map(|g| &g["id"])
        .collect();
    assert!(!want.is_empty() && want.len() < games.len());
    let got: Vec<&Value> = strong.iter().map(|g| &g["id"]).collect();
    assert_eq!(got, want);
    let r = get(&f.base, "/api/v1/games?min_rank=9%E6%AE%B5");
    assert_eq!(r.status, 400, "{}", r.body);
}

/// Reads a whole answer's body as bytes.
fn get_bytes(base: &str, path: &str) -> (u16, String, Vec<u8>) {
    let mut r = agent().get(&format!("{base}{path}")).call().unwrap();
    let status = r.status().as_u16();
    let content_type = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let body = r
        .body_mut()
        .with_config()
        .limit(512 << 20)
        .read_to_vec()
        .unwrap();
    (status, content_type, body)
}

#[test]
fn bulk_downloads_stream_every_matching_game() {
    let f = shared();
    let listed = get_ok(&f.base, "/api/v1/games?limit=1000&order=asc&kind=keil");
    let listed: Vec<u64> = listed["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_u64().unwrap())
        .collect();
    assert!(listed.len() > 100, "{}", listed.len());

    // One collection: every game, oldest first, each record as stored.
    let (status, content_type, body) = get_bytes(&f.base, "/api/v1/games.sgf?kind=keil");
    assert_eq!(status, 200);
    assert_eq!(content_type, "application/x-go-sgf");
    let records = keil_record::read_records(&body);
    assert_eq!(records.len(), listed.len());
    assert!(records.iter().all(Result::is_ok));
    let first = get(&f.base, &format!("/api/v1/games/{}/record", listed[0]));
    let text = String::from_utf8(body).unwrap();
    assert!(text.starts_with(first.body.as_str()), "{}", &text[..200]);

    // A zip of one file per game, named by id.
    let (status, content_type, body) =
        get_bytes(&f.base, "/api/v1/games.zip?kind=keil&min_rank=1d");
    assert_eq!(status, 200);
    assert_eq!(content_type, "application/zip");
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(body)).unwrap();
    let strong = get_ok(
        &f.base,
        "/api/v1/games?limit=1000&order=asc&kind=keil&min_rank=1d",
    );
    let strong: Vec<String> = strong["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| format!("{}.keil", g["id"]))
        .collect();
    let names: Vec<String> = (0..zip.len())
        .map(|i| zip.by_index(i).unwrap().name().unwrap().to_string())
        .collect();
    assert_eq!(names, strong);
    assert!(!names.is_empty() && names.len() < listed.len());

    // A bad filter is a problem document.
    let r = get(&f.base, "/api/v1/games.zip?min_rank=10d");
    assert_eq!(r.status, 400, "{}", r.body);
}

#[test]
fn explorer_options_filter_count_by_year_and_list_top_and_recent_games() {
    let f = start(0, None);
    let mut bytes = Vec::new();
    let config = GeneratorConfig {
        game: keil_rules::GameKind::Go,
        games: 60,
        size: 9,
        seed: 11,
        handicaps: true,
        ..GeneratorConfig::default()
    };
    keil_gen::write_collection(config, &mut bytes).unwrap();
    import(&f.archive, "go", bytes, 50);
    let empty = enc("9/9/9/9/9/9/9/9/9");
    let all = get_ok(
        &f.base,
        &format!(
            "/api/v1/positions?kind=go&position={empty}&limit=1000&history=true&top_games=3&recent_games=2"
        ),
    );
    let total = all["total_games"].as_u64().unwrap();
    assert!(total > 20, "{all}");
    // The history adds up, per answer and per continuation.
    let sum = |h: &Value| {
        h.as_array()
            .unwrap()
            .iter()
            .map(|y| y["games"].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(sum(&all["history"]), total, "{all}");
    for c in all["continuations"].as_array().unwrap() {
        assert_eq!(sum(&c["history"]), c["games"].as_u64().unwrap(), "{c}");
    }
    let ids = |v: &Value| -> Vec<i64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(ids(&all["recent_games"]), ids(&all["games"])[..2].to_vec());
    assert_eq!(ids(&all["top_games"]).len(), 3, "{all}");
    // Top games have both ranks (that is why they are there).
    for g in all["top_games"].as_array().unwrap() {
        assert!(
            g["black_rank"].is_string() && g["white_rank"].is_string(),
            "{g}"
        );
    }
    // Without history, none is written.
    let plain = get_ok(
        &f.base,
        &format!("/api/v1/positions?kind=go&position={empty}"),
    );
    assert!(plain.get("history").is_none(), "{plain}");
    assert_eq!(plain["top_games"], serde_json::json!([]));
    // Filters: each keeps exactly the games the game list keeps.
    let list = |q: &str| -> HashSet<i64> {
        let v = get_ok(&f.base, &format!("/api/v1/games?kind=go&limit=1000&{q}"));
        ids(&v["games"]).into_iter().collect()
    };
    for q in [
        "handicap=0",
        "komi=6.5",
        "min_rank=3k",
        "max_rank=2k",
        "winner=W",
    ] {
        let got = get_ok(
            &f.base,
            &format!("/api/v1/positions?kind=go&position={empty}&limit=1000&{q}"),
        );
        let got: HashSet<i64> = ids(&got["games"]).into_iter().collect();
        // Handicap games start from their stones, not the empty board.
        let want: HashSet<i64> = list(q)
            .intersection(&ids(&all["games"]).into_iter().collect())
            .copied()
            .collect();
        assert_eq!(got, want, "{q}");
    }
    // `next` is the player to move of a position; it may not contradict
    // the notation's.
    let black = get_ok(
        &f.base,
        &format!("/api/v1/positions?kind=go&position={empty}&next=B"),
    );
    assert!(
        black["continuations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["to_move"] == "B"),
        "{black}"
    );
    let detail = get(
        &f.base,
        &format!(
            "/api/v1/positions?kind=go&position={}&next=W",
            enc("9/9/9/9/9/9/9/9/9 b")
        ),
    )
    .problem(400);
    assert!(detail.contains("next"), "{detail}");
    for (q, name) in [
        ("komi=6.3", "komi"),
        ("handicap=300", "handicap"),
        ("move_limit=x", "move_limit"),
        ("top_games=101", "top_games"),
        ("history=maybe", "history"),
        ("variations=true", "variations"),
    ] {
        let detail = get(
            &f.base,
            &format!("/api/v1/positions?kind=go&position={empty}&{q}"),
        )
        .problem(400);
        assert!(detail.starts_with(name), "{q}: {detail}");
    }
    // Patterns: the next move's colour, the move limit, the history.
    let corner = enc("X:cc");
    let base = format!("/api/v1/patterns?pattern={corner}&kind=go&size=9&mode=corner&limit=1000");
    let every = get_ok(&f.base, &base);
    // Variations searched too: these records have none, so the same games.
    let with_variations = get_ok(&f.base, &format!("{base}&variations=true"));
    assert_eq!(
        with_variations["games"], every["games"],
        "{with_variations}"
    );
    let detail = get(&f.base, &format!("{base}&variations=maybe")).problem(400);
    assert!(detail.starts_with("variations"), "{detail}");
    let black = get_ok(&f.base, &format!("{base}&next=B&history=true"));
    assert!(black["total_games"].as_u64().unwrap() > 0, "{black}");
    assert!(
        black["continuations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["white"]["count"] == 0),
        "{black}"
    );
    assert_eq!(
        sum(&black["history"]),
        black["total_games"].as_u64().unwrap()
    );
    let early = get_ok(&f.base, &format!("{base}&move_limit=10"));
    let want: Vec<i64> = every["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["ply"].as_u64().unwrap() <= 10)
        .map(|g| g["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids(&early["games"]), want);
    // The pages draw the history and list the top and recent games.
    for page in [
        "/positions?kind=go&size=9&history=true&top_games=2&recent_games=2&min_rank=5k".to_string(),
        format!(
            "/patterns?pattern={corner}&kind=go&size=9&mode=corner&history=true&top_games=2&recent_games=2"
        ),
    ] {
        let r = get(&f.base, &page);
        assert_eq!(r.status, 200, "{page}: {}", r.body);
        assert!(r.body.contains("chart history"), "{page}");
        assert!(r.body.contains("id=\"top-games\""), "{page}");
        assert!(r.body.contains("id=\"recent-games\""), "{page}");
        assert!(r.body.contains("name=\"min_rank\""), "{page}");
        // Only the pattern page searches variations.
        assert_eq!(
            r.body.contains("name=\"variations\""),
            page.starts_with("/patterns"),
            "{page}"
        );
    }
    // The pattern page with variations searched: the box stays ticked.
    let r = get(
        &f.base,
        &format!("/patterns?pattern={corner}&kind=go&size=9&mode=corner&variations=true"),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body
            .contains("name=\"variations\" value=\"true\" checked"),
        "{}",
        r.body
    );
}

/// `GET /api/v1/search` says where each game matched (the field, the
/// excerpt in marked pieces, a comment's ply), reads a year as a date
/// filter, pages with `total`, `next` and `after`, and refuses a bad
/// `after` or `limit` saying what to give.
#[test]
fn text_search_says_where_and_pages() {
    let f = start(0, None);
    let moves: String = (0..70)
        .map(|k: u32| {
            let (color, row) = if k.is_multiple_of(2) {
                ('B', 2 + 2 * (k / 38))
            } else {
                ('W', 16 - 2 * (k / 38))
            };
            let col = (b'a' + ((k / 2) % 19) as u8) as char;
            let row = (b'a' + row as u8) as char;
            let comment = if k + 1 == 66 {
                "C[The ear-reddening move]"
            } else {
                ""
            };
            format!(";{color}[{col}{row}]{comment}")
        })
        .collect();
    let ear =
        format!("(;GM[1]FF[4]SZ[19]PB[Honinbo Shusaku]PW[Gennan Inseki]DT[1846-09-11]{moves})");
    import(&f.archive, "ear", ear.into_bytes(), 100);
    let spring: String = (0..25)
        .map(|i: u8| {
            format!(
                "(;GM[1]SZ[9]PB[Shusaku]PW[P{i}]DT[{}]EV[Spring Cup];B[{}{}])\n",
                1846 + u16::from(i % 2),
                (b'a' + i / 9) as char,
                (b'a' + i % 9) as char
            )
        })
        .collect();
    import(&f.archive, "spring", spring.into_bytes(), 100);

    let found = get_ok(
        &f.base,
        &format!("/api/v1/search?q={}", enc("ear-reddening")),
    );
    assert_eq!(found["total"], 1);
    assert!(found["next"].is_null());
    let m = &found["hits"][0]["matches"][0];
    assert_eq!(m["field"], "comment");
    assert_eq!(m["ply"], 66);
    assert!(m["variation"].is_null());
    let pieces: Vec<(String, bool)> = m["excerpt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["text"].as_str().unwrap().to_string(),
                s["marked"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pieces,
        [
            ("The ".to_string(), false),
            ("ear-reddening".to_string(), true),
            (" move".to_string(), false)
        ]
    );

    // A year: Shusaku's games of 1846 (the one above and 13 of Spring).
    let years = get_ok(
        &f.base,
        &format!("/api/v1/search?q={}", enc("Shusaku 1846")),
    );
    assert_eq!(years["total"], 14);
    assert_eq!(years["years"], serde_json::json!([1846]));

    // Pages: 10, 10, 5, every game once.
    let mut ids = HashSet::new();
    let mut after = String::new();
    let mut sizes = Vec::new();
    loop {
        let p = get_ok(&f.base, &format!("/api/v1/search?q=spring&limit=10{after}"));
        assert_eq!(p["total"], 25);
        let hits = p["hits"].as_array().unwrap();
        sizes.push(hits.len());
        ids.extend(hits.iter().map(|h| h["game"]["id"].as_i64().unwrap()));
        match p["next"].as_str() {
            Some(n) => after = format!("&after={n}"),
            None => break,
        }
    }
    assert_eq!(sizes, [10, 10, 5]);
    assert_eq!(ids.len(), 25);

    for (query, what) in [
        ("q=spring&after=x", "after"),
        ("q=spring&after=00000000-0", "after"),
        ("q=spring&limit=101", "limit"),
        ("q=spring&limit=0", "limit"),
    ] {
        let detail = get(&f.base, &format!("/api/v1/search?{query}")).problem(400);
        assert!(detail.starts_with(what), "{query}: {detail}");
    }
    let detail = get(&f.base, "/api/v1/search?q=spring&after=x").problem(400);
    assert!(detail.contains("`next`"), "{detail}");
}

/// Collections: listed with their games, years and ranks; every game
/// answer names its own; `collection=` filters the list, the explorer and
/// the pattern search alike; a name past its bound is refused naming the
/// parameter.
#[test]
fn collections_are_listed_named_and_filter_every_search() {
    let f = start_with(0, Some(TOKEN), |_| {});
    import(&f.archive, "club.sgf", corpus(30, 7), 500);
    import(&f.archive, "pro.sgf", corpus(20, 8), 500);
    let listed = get_ok(&f.base, "/api/v1/collections");
    let names: Vec<(String, u64)> = listed["collections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["games"].as_u64().unwrap(),
            )
        })
        .collect();
    let games = |c: &str| names.iter().find(|n| n.0 == c).map(|n| n.1).unwrap();
    let (club, pro) = (games("club"), games("pro"));
    assert!(club > 0 && pro > 0, "{listed}");
    assert_eq!(names.len(), 2, "{listed}");
    for (name, n) in [("club", club), ("pro", pro)] {
        let list = get_ok(
            &f.base,
            &format!("/api/v1/games?collection={name}&limit=100"),
        );
        let rows = list["games"].as_array().unwrap();
        assert_eq!(rows.len() as u64, n, "{list}");
        assert!(rows.iter().all(|g| g["collection"] == name), "{list}");
        let explored = get_ok(
            &f.base,
            &format!("/api/v1/positions?kind=keil&play=&history=true&collection={name}"),
        );
        assert_eq!(explored["total_games"].as_u64(), Some(n), "{explored}");
        assert_eq!(
            explored["collections"],
            serde_json::json!([{"name": name, "games": n}]),
            "{explored}"
        );
    }
    // Unfiltered, the explorer counts both, most games first.
    let all = get_ok(&f.base, "/api/v1/positions?kind=keil&play=&history=true");
    assert_eq!(all["collections"].as_array().unwrap().len(), 2, "{all}");
    // The pattern search keeps the collection's games alone.
    let pattern = |extra: &str| {
        get_ok(
            &f.base,
            &format!("/api/v1/patterns?pattern={}&kind=keil{extra}", enc("X:g7")),
        )["total_games"]
            .as_u64()
            .unwrap()
    };
    let (both, only_pro) = (pattern(""), pattern("&collection=pro"));
    assert!(only_pro > 0 && only_pro < both, "{only_pro} of {both}");
    let long = "x".repeat(101);
    let detail = get(&f.base, &format!("/api/v1/games?collection={long}")).problem(400);
    assert!(detail.contains("collection"), "{detail}");
}
