//! Searches, and the lists whose filters no index serves, run under the
//! server's query budget (`--query-budget`): past it they answer 503 with
//! `Retry-After`; within it, the answers are the archive's.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use keil_archive::{Archive, ImportOptions, ImportSource, PatternMode, PatternQuery};
use keil_gen::GeneratorConfig;
use keil_rules::GameKind;
use keil_server::ServerOptions;

/// A server with `budget` over `archive`; its base URL.
fn serve(archive: &Arc<Archive>, budget: Duration) -> String {
    let options = ServerOptions {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        workers: Some(1),
        query_budget: budget,
        ..ServerOptions::new(Arc::clone(archive))
    };
    let addr = common::serve(options);
    format!("http://{addr}")
}

fn archive() -> (tempfile::TempDir, Arc<Archive>) {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(dir.path()).unwrap();
    let mut bytes = Vec::new();
    let config = GeneratorConfig {
        game: GameKind::Go,
        games: 60,
        size: 9,
        seed: 7,
        ..GeneratorConfig::default()
    };
    keil_gen::write_collection(config, &mut bytes).unwrap();
    let source = ImportSource::Bytes {
        name: "go9.sgf".into(),
        bytes,
    };
    archive
        .import(&[source], &ImportOptions::default(), &mut |_| {})
        .unwrap();
    (dir, Arc::new(archive))
}

/// Status, content type, `Retry-After` and body of a GET.
fn get(url: &str) -> (u16, String, Option<String>, String) {
    let mut r = common::agent().get(url).call().unwrap();
    let header = |name: &str| {
        r.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let (ct, retry) = (
        header("content-type").unwrap_or_default(),
        header("retry-after"),
    );
    (
        r.status().as_u16(),
        ct,
        retry,
        r.body_mut().read_to_string().unwrap(),
    )
}

const PATTERN: &str = "/api/v1/patterns?kind=go&size=9&mode=anywhere&limit=5&pattern=X%3Aee";
const SEARCHES: &[&str] = &[
    PATTERN,
    "/api/v1/positions?kind=go&position=9%2F9%2F9%2F9%2F9%2F9%2F9%2F9%2F9",
    "/api/v1/search?q=comment",
];

#[test]
fn searches_past_the_budget_answer_503_with_retry_after() {
    let (_dir, archive) = archive();
    let base = serve(&archive, Duration::from_nanos(1));
    for path in SEARCHES {
        let (status, ct, retry, body) = get(&format!("{base}{path}"));
        assert_eq!(status, 503, "{path}: {body}");
        assert_eq!(ct, "application/problem+json", "{path}");
        assert!(
            retry.is_some_and(|s| s.parse::<u64>().unwrap() >= 1),
            "{path}"
        );
        let problem: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(problem["type"], "urn:keil:problem:over-budget", "{body}");
        assert!(
            problem["detail"].as_str().unwrap().contains("budget"),
            "{body}"
        );
    }
    // The pages that search are under the same budget.
    let (status, _, _, body) = get(&format!(
        "{base}/patterns?kind=go&size=9&mode=anywhere&pattern=X%3Aee"
    ));
    assert_eq!(status, 503, "{body}");
    // Plain reads have no budget.
    let (status, _, _, body) = get(&format!("{base}/api/v1/games/1"));
    assert_eq!(status, 200, "{body}");
    // Nor have the lists an index reads in order: none, a date range, a
    // kind and size, a player's games.
    for path in [
        "/api/v1/games",
        "/api/v1/games?from=2000-01-01",
        "/api/v1/games?kind=go&size=9",
        "/api/v1/games?player=nobody&color=B",
        "/games?player=nobody",
    ] {
        let (status, _, _, body) = get(&format!("{base}{path}"));
        assert_eq!(status, 200, "{path}: {body}");
    }
    // A list whose filters no index serves scans the archive: it runs as
    // a search, under the budget; so does a page whose count scans.
    for path in [
        "/api/v1/games?result=0",
        "/api/v1/games?komi=99",
        "/api/v1/games?player=nobody&komi=99",
        "/api/v1/games?size=9",
        "/games?komi=99",
        "/games?from=2000-01-01",
    ] {
        let (status, _, retry, body) = get(&format!("{base}{path}"));
        assert_eq!(status, 503, "{path}: {body}");
        assert!(retry.is_some(), "{path}");
    }
}

#[test]
fn the_default_budget_answers_as_the_archive_does() {
    let (_dir, archive) = archive();
    let base = serve(&archive, keil_server::DEFAULT_QUERY_BUDGET);
    for path in SEARCHES {
        let (status, _, _, body) = get(&format!("{base}{path}"));
        assert_eq!(status, 200, "{path}: {body}");
    }
    let (_, _, _, body) = get(&format!("{base}{PATTERN}"));
    let served: serde_json::Value = serde_json::from_str(&body).unwrap();
    let pattern =
        keil_archive::Pattern::parse(GameKind::Go, 9, "X:ee", PatternMode::Anywhere).unwrap();
    let q = PatternQuery {
        limit: 5,
        ..PatternQuery::new(pattern, PatternMode::Anywhere)
    };
    let direct = archive.patterns().search(&q).unwrap();
    assert!(direct.total_games > 0);
    assert_eq!(served["total_games"], direct.total_games);
    assert_eq!(served["total_hits"], direct.total_hits);
    let ids: Vec<u64> = served["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_u64().unwrap())
        .collect();
    let want: Vec<u64> = direct.games.iter().map(|g| g.game_id.get()).collect();
    assert_eq!(ids, want);
}

/// Regression: the first pattern searches of a server, arriving together,
/// all answer. On a rayon pool of search threads they deadlocked now and
/// then (about 1 run in 12 of the page tests): one search held the pattern
/// index's refresh lock while waiting for its parallel replay, and its
/// thread took up the other search meanwhile, which waited for that lock.
#[test]
fn first_pattern_searches_arriving_together_all_answer() {
    let (dir, archive) = archive();
    drop(archive);
    for round in 0..12 {
        // A fresh open has a cold pattern index: the first searches load it.
        let archive = Arc::new(Archive::open(dir.path()).unwrap());
        let base = serve(&archive, Duration::from_secs(60));
        let searches: Vec<_> = (0..4)
            .map(|i| {
                let url = format!("{base}{PATTERN}");
                thread::spawn(move || {
                    match common::agent_with(Duration::from_secs(30)).get(&url).call() {
                        Ok(r) => r.status().as_u16(),
                        Err(e) => panic!("round {round}, search {i}: {e}"),
                    }
                })
            })
            .collect();
        for s in searches {
            assert_eq!(s.join().unwrap(), 200, "round {round}");
        }
    }
}
