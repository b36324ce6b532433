//! The pages' HTML (and the boards' SVG inside it) held byte for byte
//! against golden files (`tests/golden/*.html`): the home page, the game
//! viewer of every kind (the final position's count, move numbers,
//! markup, comments and variations), the board fragment, the explorer
//! (playing, editing), the pattern page, the search page and a refused
//! record's page; and
//! the API's answers to a position and a pattern search
//! (`tests/golden/*.json`).
//!
//! After a change that is meant to alter a page, write the files anew
//! with `KEIL_BLESS=1 cargo test -p keil-server --test golden` and read
//! the difference.

mod common;

use std::path::PathBuf;

use keil_archive::{ImportOptions, ImportSource};

/// A Go record with every kind of board markup, comments and two
/// variations.
const MARKED: &str = "(;GM[1]FF[4]CA[UTF-8]SZ[9]KM[6.5]RU[Japanese]PB[Mark Up]PW[Var Iation]DT[2024-05-01]RE[B+R]\
C[The start]\
;B[ee]TR[cc]SQ[gg]CR[cg]MA[gc]LB[dd:A][ff:12]C[Tengen, marked]\
(;W[cc]C[Main line];B[gg];W[cg]TR[ee];B[gc])\
(;W[gg]C[First variation];B[cc])\
(;W[cg];B[gc]LB[cc:x]))";

/// A Go record the archive refuses (a move on an occupied point), kept as
/// a refused record.
const REFUSED: &str =
    "(;GM[1]FF[4]SZ[9]KM[6.5]RU[Japanese]PB[Re]PW[Fused]DT[2024-05-02];B[ee];W[ee])";

fn import(f: &common::Fixture, name: &str, text: &str) {
    let source = ImportSource::Bytes {
        name: name.into(),
        bytes: text.as_bytes().to_vec(),
    };
    f.archive
        .import(&[source], &ImportOptions::default(), &mut |_| {})
        .unwrap();
}

/// A page as its golden file holds it: the times a page names (when a
/// refused record was refused) written as `TIME`.
fn steady(body: &str) -> String {
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z").unwrap();
    time.replace_all(body, "TIME").into_owned()
}

fn fetch(base: &str, path: &str) -> String {
    let mut r = common::agent()
        .get(&format!("{base}{path}"))
        .call()
        .unwrap();
    let status = r.status().as_u16();
    let body = r.body_mut().read_to_string().unwrap();
    assert_eq!(status, 200, "GET {path}: {body}");
    body
}

/// The id of the one game `black` played.
fn game_of(f: &common::Fixture, black: &str) -> String {
    let filter = keil_archive::GameFilter {
        player: Some(black.into()),
        ..Default::default()
    };
    let page = keil_archive::Page {
        order: keil_archive::Order::Ascending,
        limit: 1,
        after: None,
        before: None,
    };
    let list = f.archive.games().list(&filter, &page).unwrap();
    list.games[0].id.to_string()
}

/// Up to 80 bytes either side of `at`, as text.
fn around(s: &str, at: usize) -> String {
    let b = s.as_bytes();
    String::from_utf8_lossy(&b[at.saturating_sub(80)..(at + 80).min(b.len())]).into_owned()
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

#[test]
fn pages_are_byte_for_byte_as_their_golden_files() {
    let f = common::start();
    import(&f, "marked", MARKED);
    import(&f, "refused", REFUSED);
    let marked = game_of(&f, "Mark Up");
    let mut pages: Vec<(String, String)> = vec![
        ("home".into(), "/".into()),
        ("games".into(), "/games?kind=go".into()),
        ("marked".into(), format!("/games/{marked}?ply=1&numbers=1")),
        ("marked-end".into(), format!("/games/{marked}")),
        ("marked-var".into(), format!("/games/{marked}?var=2&ply=2")),
        (
            "marked-fragment".into(),
            format!("/games/{marked}/board?ply=3&numbers=1"),
        ),
        ("explorer".into(), "/positions".into()),
        (
            "explorer-go".into(),
            "/positions?kind=go&size=9&play=ee,cc".into(),
        ),
        (
            "explorer-edit".into(),
            "/positions?kind=keil&size=4&edit=1".into(),
        ),
        (
            "explorer-options".into(),
            "/positions?kind=go&size=9&play=ee&symmetry=true&top_games=3&recent_games=3&history=true"
                .into(),
        ),
        (
            "patterns".into(),
            "/patterns?kind=go&size=9&pattern=X%3Aee&history=true&top_games=2".into(),
        ),
        ("patterns-edit".into(), "/patterns?kind=go&size=9&edit=1".into()),
        ("refused".into(), "/refused/1".into()),
        // Text hits with where they matched: a comment in a variation
        // and at the start, the words marked.
        ("search".into(), "/search?q=start+variation".into()),
        (
            "api-positions.json".into(),
            "/api/v1/positions?kind=go&size=9&play=ee&top_games=2&recent_games=2".into(),
        ),
        (
            "api-patterns.json".into(),
            "/api/v1/patterns?kind=go&size=9&pattern=X%3Aee&top_games=2&recent_games=2".into(),
        ),
    ];
    for &(kind, ..) in common::CORPUS {
        let (id, plies) = common::first_game(&f, kind.code());
        pages.push((format!("game-{}", kind.code()), format!("/games/{id}")));
        pages.push((
            format!("game-{}-mid", kind.code()),
            format!("/games/{id}?ply={}&numbers=1", plies / 2),
        ));
    }
    let bless = std::env::var_os("KEIL_BLESS").is_some();
    let dir = golden_dir();
    let mut differ = Vec::new();
    for (name, path) in &pages {
        let body = steady(&fetch(&f.base, path));
        let file = if name.ends_with(".json") {
            dir.join(name)
        } else {
            dir.join(format!("{name}.html"))
        };
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&file, &body).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{}: {e} (KEIL_BLESS=1 writes it)", file.display()));
        if want != body {
            let at = want
                .bytes()
                .zip(body.bytes())
                .position(|(a, b)| a != b)
                .unwrap_or(want.len().min(body.len()));
            differ.push(format!(
                "{name} (GET {path}) differs at byte {at}:\n  golden: {:?}\n  now:    {:?}",
                around(&want, at),
                around(&body, at),
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
