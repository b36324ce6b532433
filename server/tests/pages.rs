//! Plain HTTP tests of the web pages, as a browser without JavaScript sees
//! them: status, content type, the contract's links and marked elements,
//! the Content-Security-Policy, and escaping.

mod common;

use common::{EVIL, enc, first_game, shared};

use serde_json::Value;

/// The codes of the game kinds in the test archive (Kaomi joins when
/// `common::CORPUS` generates it).
fn kinds() -> Vec<String> {
    common::CORPUS
        .iter()
        .map(|(k, ..)| k.code().to_string())
        .collect()
}

struct Page {
    status: u16,
    content_type: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Page {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn get(path: &str) -> Page {
    let agent = common::agent();
    let url = if path.starts_with("http") {
        path.to_string()
    } else {
        format!("{}{path}", shared().base)
    };
    let mut r = agent.get(&url).call().unwrap();
    Page {
        status: r.status().as_u16(),
        content_type: r
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default(),
        headers: r
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
            .collect(),
        body: r.body_mut().read_to_string().unwrap(),
    }
}

/// A page that must answer 200 with HTML and the page headers.
fn html(path: &str) -> String {
    let p = get(path);
    assert_eq!(p.status, 200, "GET {path}: {}", p.body);
    assert_eq!(p.content_type, "text/html; charset=utf-8", "{path}");
    check_page_rules(path, &p);
    p.body
}

/// The CSP header, and no inline script, style or handler in the HTML.
fn check_page_rules(path: &str, p: &Page) {
    let csp = p.header("content-security-policy").expect("CSP");
    assert!(csp.starts_with("default-src 'self'"), "{csp}");
    assert!(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"));
    let lower = p.body.to_ascii_lowercase();
    for (i, _) in lower.match_indices("<script") {
        let tag = &lower[i..i + lower[i..].find('>').unwrap()];
        assert!(
            tag.contains(" src=\"/static/"),
            "{path}: inline script {tag}"
        );
    }
    assert!(!lower.contains("<style"), "{path}: <style> element");
    assert!(!lower.contains(" style=\""), "{path}: style attribute");
    for handler in [
        " onclick=",
        " onload=",
        " onerror=",
        " onsubmit=",
        "href=\"javascript:",
    ] {
        assert!(!lower.contains(handler), "{path}: {handler}");
    }
}

/// Every `href="…"` of a page, unescaped (`&amp;` → `&`).
fn hrefs(body: &str) -> Vec<String> {
    body.match_indices("href=\"")
        .map(|(i, m)| {
            let rest = &body[i + m.len()..];
            rest[..rest.find('"').unwrap()]
                .replace("&amp;", "&")
                .replace("&#38;", "&")
        })
        .collect()
}

/// The inline board `<svg …>…</svg>` of a page.
fn board(body: &str) -> &str {
    let start = body
        .find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board-svg\"")
        .expect("board svg");
    let end = start + body[start..].find("</svg>").unwrap() + 6;
    &body[start..end]
}

fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    Some(&tag[i..i + tag[i..].find('"')?])
}

/// The pattern editor's points: `(data-at, data-cell)` of every link
/// with `data-at`, the cell empty outside the pattern.
fn editor_cells(svg: &str) -> Vec<(String, String)> {
    svg.match_indices(" data-at=\"")
        .map(|(i, _)| {
            let start = svg[..i].rfind('<').unwrap();
            let tag = &svg[start..start + svg[start..].find('>').unwrap()];
            (
                attr(tag, "data-at").unwrap().to_string(),
                attr(tag, "data-cell").unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// `(black, white)` point names of the stones on a board: the elements
/// with `data-point`.
fn stones(svg: &str) -> (Vec<String>, Vec<String>) {
    let (mut b, mut w) = (Vec::new(), Vec::new());
    for (i, _) in svg.match_indices(" data-point=\"") {
        let start = svg[..i].rfind('<').unwrap();
        let tag = &svg[start..start + svg[start..].find('>').unwrap()];
        let point = attr(tag, "data-point").unwrap().to_string();
        match attr(tag, "data-color") {
            Some("b") => b.push(point),
            Some("w") => w.push(point),
            other => panic!("stone {point} has data-color {other:?}"),
        }
    }
    b.sort();
    w.sort();
    (b, w)
}

fn api(path: &str) -> Value {
    let p = get(path);
    assert_eq!(p.status, 200, "{path}: {}", p.body);
    serde_json::from_str(&p.body).unwrap()
}

fn api_stones(id: i64, ply: u32) -> (Vec<String>, Vec<String>) {
    let v = api(&format!("/api/v1/games/{id}/positions/{ply}"));
    let names = |k: &str| {
        let mut v: Vec<String> = v[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect();
        v.sort();
        v
    };
    (names("black"), names("white"))
}

#[test]
fn home_page_has_search_counts_openings_and_links() {
    let body = html("/");
    assert!(body.contains("<form class=\"search\" action=\"/search\" method=\"get\""));
    assert!(body.contains("name=\"q\""));
    for kind in kinds() {
        let kind = kind.as_str();
        assert!(
            body.contains(&format!("class=\"card kind-count\" data-kind=\"{kind}\"")),
            "{kind}"
        );
        assert!(
            body.contains(&format!("<section class=\"opening\" data-kind=\"{kind}\"")),
            "{kind}"
        );
    }
    let links = hrefs(&body);
    for want in ["/games", "/positions", "/upload"] {
        assert!(links.iter().any(|l| l == want), "{want}");
    }
    assert!(links.iter().any(|l| l.starts_with("/games/")));
    // The first-move links open the explorer after that move.
    let first_move = links
        .iter()
        .find(|l| l.starts_with("/positions?kind=keil&position=") && l.contains("to_move=w"))
        .expect("a Keil first move");
    html(first_move);
}

#[test]
fn static_assets_are_hashed_immutable_and_refused_under_other_names() {
    let body = html("/");
    let css = hrefs(&body)
        .into_iter()
        .find(|h| h.starts_with("/static/app.") && h.ends_with(".css"))
        .unwrap();
    let p = get(&css);
    assert_eq!(p.status, 200);
    assert_eq!(p.content_type, "text/css; charset=utf-8");
    assert_eq!(
        p.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert!(body.contains("<script type=\"module\" src=\"/static/common."));
    assert_eq!(get("/static/app.css").status, 404);
    assert_eq!(get("/static/app.000000000000.css").status, 404);
}

#[test]
fn game_list_filters_paginates_and_downloads() {
    let body = html("/games?kind=go&limit=10");
    let rows: Vec<String> = hrefs(&body)
        .into_iter()
        .filter(|h| h.starts_with("/games/") && h[7..].chars().all(|c| c.is_ascii_digit()))
        .collect();
    assert_eq!(rows.len(), 10, "{body}");
    assert!(body.contains("Go 9×9"));
    assert!(!body.contains("Keil side 7 #"));
    // The filter stays in the form and in the next page's link.
    assert!(body.contains("<option value=\"go\" selected>"));
    let next = hrefs(&body)
        .into_iter()
        .find(|h| h.starts_with("/games?") && h.contains("cursor="))
        .expect("next page");
    assert!(next.contains("kind=go") && next.contains("limit=10"));
    let second = html(&next);
    assert!(!second.contains(&rows[0]) || !second.contains(&format!("href=\"{}\"", rows[0])));
    // The download link gives the filtered games as one collection.
    let download = hrefs(&body)
        .into_iter()
        .find(|h| h.starts_with("/games.sgf"))
        .unwrap();
    assert!(download.contains("kind=go"));
    let sgf = get(&download);
    assert_eq!(sgf.status, 200);
    assert!(sgf.content_type.starts_with("application/x-go-sgf"));
    assert_eq!(sgf.body.matches("(;").count(), 40, "every Go game");
    assert!(sgf.body.contains("GM[1]") || sgf.body.contains("GM[Go]"));
    // Player and empty fields, as a form sends them.
    let by_player = html(&format!(
        "/games?player={}&color=&opponent=&event=&from=&to=&result=&winner=&kind=&size=&ruleset=&status=&order=desc",
        enc("luis bolanos")
    ));
    assert!(by_player.contains("Luis Bolaños"));
    // A bad filter is a 400 page that says what to fix.
    let bad = get("/games?from=yesterday");
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("from"), "{}", bad.body);
}

#[test]
fn viewer_board_equals_the_api_position_for_each_kind() {
    let f = shared();
    for kind in kinds() {
        let kind = kind.as_str();
        let (id, plies) = first_game(f, kind);
        for ply in [0, 1, plies / 2, plies] {
            let body = html(&format!("/games/{id}?ply={ply}"));
            let svg = board(&body);
            assert!(svg.contains(&format!("data-ply=\"{ply}\"")), "{kind} {ply}");
            assert_eq!(
                stones(svg),
                api_stones(id, ply),
                "{kind} game {id} ply {ply}"
            );
            // The fragment the script fetches draws the same board.
            let fragment = get(&format!("/games/{id}/board?ply={ply}"));
            assert_eq!(fragment.status, 200);
            assert_eq!(stones(board(&fragment.body)), api_stones(id, ply));
        }
        let body = html(&format!("/games/{id}?ply=3"));
        let links = hrefs(&body);
        // Every ply is a link, the current one marked.
        for n in 0..=plies {
            assert!(links.contains(&format!("?ply={n}")), "{kind} ply {n}");
        }
        assert!(body.contains("data-ply=\"3\" aria-current=\"step\""));
        assert!(body.contains("aria-live=\"polite\""));
        assert!(links.contains(&format!("/api/v1/games/{id}/record")));
        let explore = links
            .iter()
            .find(|l| l.starts_with("/positions?"))
            .expect("this position");
        // The explorer finds this game at this ply (or earlier).
        let explorer = html(explore);
        assert!(
            hrefs(&explorer)
                .iter()
                .any(|h| h.starts_with(&format!("/games/{id}?ply="))),
            "{kind}: {explore}"
        );
        // Without a ply: the end; past the end: 404 saying the range.
        let end = html(&format!("/games/{id}"));
        assert!(board(&end).contains(&format!("data-ply=\"{plies}\"")));
        let past = get(&format!("/games/{id}?ply={}", plies + 1));
        assert_eq!(past.status, 404);
        assert!(past.content_type.starts_with("text/html"));
        assert!(
            past.body.contains(&format!("0 to {plies}")),
            "{}",
            past.body
        );
    }
    assert_eq!(get("/games/abc").status, 400);
    assert_eq!(get("/games/999999").status, 404);
}

#[test]
fn the_final_position_of_a_complete_game_marks_its_score() {
    let f = shared();
    for kind in kinds() {
        let kind = kind.as_str();
        let filter = keil_archive::GameFilter {
            kind: Some(kind.parse().unwrap()),
            status: Some(keil_archive::GameStatus::Complete),
            ..Default::default()
        };
        let page = keil_archive::Page {
            order: keil_archive::Order::Ascending,
            limit: 100,
            after: None,
            before: None,
        };
        let games = f.archive.games().list(&filter, &page).unwrap().games;
        // Kaomi: a standard game (Squared removes no pairs).
        let g = games
            .iter()
            .find(|g| kind != "kaomi" || !g.ruleset.contains("squared"))
            .unwrap_or_else(|| panic!("no complete {kind} game to mark"));
        let end = html(&format!("/games/{}", g.id));
        let svg = board(&end);
        if kind == "kaomi" {
            // Kaomi counts groups: the removed pairs' stones and the
            // deciding group are marked as the game answer gives them.
            let k = &api(&format!("/api/v1/games/{}", g.id))["kaomi"];
            let removed: u64 = k["removed_pairs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| 2 * p["size"].as_u64().unwrap())
                .sum();
            let deciding = k["winner_group"]["size"].as_u64().unwrap_or(0);
            assert_eq!(
                svg.matches("class=\"removed\"").count() as u64,
                removed,
                "game {}: {k}",
                g.id
            );
            assert_eq!(
                svg.matches("class=\"deciding\"").count() as u64,
                deciding,
                "game {}: {k}",
                g.id
            );
            assert!(removed + deciding > 0, "game {}: {k}", g.id);
            // Kaomi's coordinates are SGF letters, as its records name
            // points (Go's would be A..T and row numbers).
            let coords = &svg[svg.find("class=\"coords\"").unwrap()..];
            let coords = &coords[..coords.find("</g>").unwrap()];
            assert!(
                coords.contains(">a</text>") && !coords.contains(">A</text>"),
                "{coords}"
            );
            let before = html(&format!("/games/{}?ply={}", g.id, g.plies - 1));
            assert!(!board(&before).contains("class=\"removed\""));
            continue;
        }
        let owned = svg.matches("class=\"dot-b\"").count() + svg.matches("class=\"dot-w\"").count();
        assert!(owned > 0, "{kind} game {}: no owned points marked", g.id);
        assert!(svg.contains("score B "), "{kind}");
        assert!(end.contains("<dd class=\"score\">"), "{kind}");
        let before = html(&format!("/games/{}?ply={}", g.id, g.plies - 1));
        assert!(!board(&before).contains("class=\"dot-"), "{kind}");
    }
}

#[test]
fn continuation_links_open_the_next_position_and_its_games() {
    for &(kind, size, ..) in common::CORPUS {
        let kind = kind.code();
        // The empty board opens in play: its continuations are links that
        // play them.
        let search = format!("/positions?kind={kind}&size={size}");
        let body = html(&search);
        assert!(body.contains("reached this position"));
        let next = body
            .split("class=\"continuation\" href=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .map(|h| h.replace("&#38;", "&").replace("&amp;", "&"))
            .unwrap_or_else(|| panic!("{kind}: no continuation link in {search}"));
        assert!(next.contains("play="), "{next}");
        let after = html(&next);
        let (b, w) = stones(board(&after));
        assert_eq!(
            (b.len(), w.len()),
            (1, 0),
            "{kind}: one black stone after the first move"
        );
        // Its games open at the matched ply, where the board has that stone.
        let game = hrefs(&after)
            .into_iter()
            .find(|h| h.starts_with("/games/") && h.contains("?ply="))
            .unwrap_or_else(|| panic!("{kind}: no game at {next}: {after}"));
        let viewer = html(&game);
        let (gb, _) = stones(board(&viewer));
        assert_eq!(gb.len(), 1, "{kind}: {game}");
    }
}

#[test]
fn the_game_list_has_its_total_and_pages_both_ways() {
    let first = html("/games?limit=5");
    let total: u64 = first
        .split("data-total=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .and_then(|n| n.parse().ok())
        .expect("a total");
    let api = api("/api/v1/games?limit=1000");
    assert_eq!(total as usize, api["games"].as_array().unwrap().len());
    assert!(
        !first.contains("rel=\"prev\""),
        "no previous page on the first"
    );
    let next = hrefs(&first)
        .into_iter()
        .find(|h| h.contains("cursor="))
        .unwrap();
    let second = html(&next);
    let prev = hrefs(&second)
        .into_iter()
        .find(|h| h.contains("before="))
        .expect("a previous page");
    let back = html(&prev);
    let ids = |body: &str| -> Vec<String> {
        hrefs(body)
            .into_iter()
            .filter(|h| h.starts_with("/games/"))
            .collect()
    };
    assert_eq!(ids(&back), ids(&first));
    // Phones fold the filters behind a button (no script).
    assert!(first.contains("id=\"show-filters\""));
}

#[test]
fn the_game_list_form_has_every_filter_the_api_has() {
    let query = "kind=go&min_rank=30k&max_rank=9p&handicap=0&komi=6.5&variant=&limit=1000";
    let body = html(&format!("/games?{query}"));
    for (name, value) in [
        ("min_rank", "30k"),
        ("max_rank", "9p"),
        ("handicap", "0"),
        ("komi", "6.5"),
    ] {
        assert!(
            body.contains(&format!("name=\"{name}\" value=\"{value}\"")),
            "{name} echoed: {body}"
        );
    }
    assert!(body.contains("<select name=\"variant\">"));
    // The page lists what the API lists, and its links keep the filters.
    let api = api(&format!("/api/v1/games?{query}"));
    let total: usize = body
        .split("data-total=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .and_then(|n| n.parse().ok())
        .expect("a total");
    assert_eq!(total, api["games"].as_array().unwrap().len());
    let download = hrefs(&body)
        .into_iter()
        .find(|h| h.starts_with("/games.sgf"))
        .unwrap();
    assert!(
        download.contains("handicap=0") && download.contains("komi=6.5"),
        "{download}"
    );
}

#[test]
fn the_explorer_plays_any_legal_move_and_keeps_the_line() {
    // Go 9×9: two moves played, as players name them or as records do.
    let body = html("/positions?kind=go&size=9&play=E5,cc");
    let (b, w) = stones(board(&body));
    assert_eq!((b.len(), w.len()), (1, 1));
    assert!(body.contains(r#"data-line-ply="1">1. B E5</a>"#), "{body}");
    assert!(body.contains(r#"data-line-ply="2">2. W C7</a>"#), "{body}");
    assert!(body.contains("data-undo"), "{body}");
    assert!(body.contains("data-pass"), "{body}");
    // Every empty point is a move that plays (79 of 81).
    let plays: Vec<String> = hrefs(board(&body))
        .into_iter()
        .filter(|h| h.contains("play=E5%2CC7%2C"))
        .collect();
    assert_eq!(plays.len(), 79, "{plays:?}");
    // Undo is the line without its last move.
    let undo = hrefs(&body)
        .into_iter()
        .find(|h| h.ends_with("play=E5") || h.contains("play=E5&"))
        .unwrap();
    assert_eq!(stones(board(&html(&undo))).0.len(), 1);
    // A capture is applied: White's stone at A9 goes.
    let taken = html("/positions?kind=go&size=9&play=B9,A9,A8");
    assert_eq!(
        stones(board(&taken)),
        (vec!["ab".into(), "ba".into()], vec![])
    );
    // The continuation rows carry their counts and win shares.
    let empty = html("/positions?kind=go&size=9");
    assert!(
        empty.contains("data-move=") && empty.contains("data-black-wins="),
        "{empty}"
    );
    // The most played moves are lettered stones, A first, each with its
    // row; passes, ends and rare moves fold away, without letters.
    let folded_at = empty.find("id=\"more-continuations\"");
    let shown_part = &empty[..folded_at.unwrap_or(empty.len())];
    let shown = shown_part
        .matches("<span class=\"stone-letter b\">")
        .count();
    assert!((1..=20).contains(&shown), "{shown}");
    assert!(shown_part.contains("<span class=\"stone-letter b\">A</span>"));
    assert_eq!(
        board(&empty).matches("class=\"next next-b\"").count(),
        shown
    );
    if let Some(i) = folded_at {
        let folded = &empty[i..i + empty[i..].find("</details>").unwrap()];
        assert!(!folded.contains("stone-letter"), "{folded}");
        assert!(folded.contains("<tr data-move="), "{folded}");
    }
    // A move that is not one, or not legal: 400 naming it.
    for bad in ["E5,E5", "E5,Z99"] {
        let p = get(&format!("/positions?kind=go&size=9&play={bad}"));
        assert_eq!(p.status, 400, "{bad}");
        assert!(p.body.contains("move 2"), "{bad}: {}", p.body);
    }
    // The explorer link with nothing chosen opens the archive's main board.
    let home = html("/positions");
    assert!(home.contains("data-line-ply=\"0\""), "plays from the start");
}

#[test]
fn the_editor_cycles_points_and_finds_games() {
    let body = html("/positions?kind=go&size=9&edit=1");
    let svg = board(&body);
    // Every point is a link; following one adds a black stone.
    let cycle: Vec<String> = hrefs(svg)
        .into_iter()
        .filter(|h| h.contains("edit=1"))
        .collect();
    assert_eq!(cycle.len(), 81);
    let one = html(&cycle[40]);
    assert_eq!(stones(board(&one)).0.len(), 1);
    // Again: white; again: empty.
    let point_link = |page: &str, i: usize| {
        hrefs(board(page))
            .into_iter()
            .filter(|h| h.contains("edit=1"))
            .nth(i)
            .unwrap()
    };
    let two = html(&point_link(&one, 40));
    assert_eq!(stones(board(&two)), (vec![], vec!["ee".to_string()]));
    let three = html(&point_link(&two, 40));
    assert_eq!(stones(board(&three)), (vec![], vec![]));
    // A Keil board too.
    let keil = html("/positions?kind=keil&size=7&edit=1");
    assert_eq!(
        hrefs(board(&keil))
            .iter()
            .filter(|h| h.contains("edit=1"))
            .count(),
        127
    );
    // A bad notation is a 400 page naming the parameter.
    let bad = get("/positions?position=xyz");
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("position"));
}

#[test]
fn player_page_has_totals_chart_opponents_and_links() {
    let body = html(&format!("/players/{}", enc("Luis Bolaños")));
    assert!(body.contains("<h1>Luis Bolaños</h1>"));
    assert!(body.contains("<svg class=\"chart\""));
    assert!(body.contains("Results per year of Luis Bolaños"));
    let links = hrefs(&body);
    assert!(
        links
            .iter()
            .any(|l| l.starts_with("/positions?player=Luis%20Bola"))
    );
    assert!(
        links
            .iter()
            .any(|l| l.starts_with("/games?player=Luis%20Bola") && l.contains("opponent="))
    );
    assert!(links.iter().any(|l| l.starts_with("/players/")));
    // Accent- and case-insensitive name, and a missing player.
    html(&format!("/players/{}", enc("luis bolaños")));
    assert_eq!(get("/players/Nobody%20Here").status, 404);
}

#[test]
fn every_text_is_escaped() {
    let f = shared();
    let search = html(&format!("/search?q={}", enc("Bolaños")));
    assert!(search.contains("Luis Bolaños"));
    // The evil game: listed, viewed, and its player's page.
    let evil_id = {
        let p = f.archive.players().search("Eve", 5).unwrap();
        assert!(!p.is_empty());
        let list = f
            .archive
            .games()
            .list(
                &keil_archive::GameFilter {
                    player: Some(EVIL.into()),
                    ..Default::default()
                },
                &keil_archive::Page {
                    order: keil_archive::Order::Descending,
                    limit: 5,
                    after: None,
                    before: None,
                },
            )
            .unwrap();
        list.games[0].id
    };
    let escaped = "&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;Eve&#34;";
    for path in [
        format!("/games/{evil_id}"),
        format!("/games?player={}", enc(EVIL)),
        format!("/players/{}", enc(EVIL)),
        format!("/search?q={}", enc("<script>alert(1)</script>")),
        "/".to_string(),
    ] {
        let body = html(&path);
        assert!(!body.contains("<script>alert"), "{path}");
        assert!(!body.contains("<b>bold"), "{path}");
        if path != "/" && !path.starts_with("/search") {
            assert!(body.contains(escaped), "{path}");
        }
    }
    // An error page escapes the path it names.
    let p = get("/players/%3Cimg%20src%3Dx%3E");
    assert_eq!(p.status, 404);
    assert!(!p.body.contains("<img src=x>"));
}

#[test]
fn unknown_paths_are_an_html_page_for_browsers_and_a_problem_otherwise() {
    let agent = common::agent();
    let url = format!("{}/no/such/page", shared().base);
    let mut r = agent
        .get(&url)
        .header("Accept", "text/html,application/xhtml+xml")
        .call()
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(r.headers().contains_key("content-security-policy"));
    assert!(
        r.body_mut()
            .read_to_string()
            .unwrap()
            .contains("/no/such/page")
    );
    let p = get("/no/such/page");
    assert_eq!(p.status, 404);
    assert_eq!(p.content_type, "application/problem+json");
}

#[test]
fn a_trailing_slash_is_redirected_to_the_address_without_it() {
    let no_redirects = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .new_agent();
    for (from, to) in [
        ("/games/", "/games"),
        ("/games/1/?ply=3", "/games/1?ply=3"),
        ("/api/v1/games/", "/api/v1/games"),
        ("//example.com/", "/example.com"),
    ] {
        let r = no_redirects
            .get(&format!("{}{from}", shared().base))
            .call()
            .unwrap();
        assert_eq!(r.status().as_u16(), 308, "{from}");
        assert_eq!(r.headers()["location"].to_str().unwrap(), to, "{from}");
    }
    // Followed, it is the page.
    assert!(html("/games/").contains("<table"));
}

#[test]
fn upload_page_has_the_form_and_no_token() {
    let body = html("/upload");
    assert!(body.contains("<form id=\"upload\""));
    assert!(body.contains("type=\"file\""));
    assert!(body.contains("name=\"token\" type=\"password\""));
    assert!(!body.contains(common::TOKEN));
    assert!(body.contains("<noscript>"));
    assert!(body.contains("src=\"/static/upload."));
}

#[test]
fn a_150_ply_side_7_game_page_is_under_60_kb() {
    let f = shared();
    let (id, plies) = first_game(f, "keil");
    // The final position: the fullest board, with the score's marks.
    let body = html(&format!("/games/{id}?ply={plies}"));
    // The generated games are shorter than 150 plies: add the measured size
    // of one move-list item per missing ply (the board's size does not
    // depend on the number of plies; a fuller board adds one circle of
    // about 90 bytes per stone, counted too).
    let list = &body[body.find("<ol class=\"moves\"").unwrap()..body.find("</ol>").unwrap()];
    let per_item = list.len() / (plies as usize + 1);
    let missing = 150usize.saturating_sub(plies as usize);
    let estimate = body.len() + missing * (per_item + 90);
    println!(
        "game page: {} bytes at {plies} plies (board {} bytes); estimated at 150 plies: {estimate}",
        body.len(),
        board(&body).len()
    );
    assert!(estimate < 60 * 1024, "{estimate}");
}

/// The pattern links of a pattern page's board (each point cycles).
fn pattern_links(body: &str) -> Vec<String> {
    hrefs(board(body))
        .into_iter()
        .filter(|h| h.starts_with("/patterns?") && h.contains("edit=1"))
        .collect()
}

#[test]
fn the_pattern_editor_cycles_points_through_the_region() {
    // No pattern: the editor over an empty board, every point a link.
    let body = html("/patterns?kind=go&size=9");
    assert!(body.contains("Pattern search"));
    let links = pattern_links(&body);
    assert_eq!(links.len(), 81);
    assert!(!board(&body).contains("class=\"region\""));
    // Every point carries its name, lattice coordinates and cell for the
    // editor script; the pattern's stones are cells, not board stones.
    assert_eq!(editor_cells(board(&body)).len(), 81);
    assert!(editor_cells(board(&body)).iter().all(|(_, c)| c.is_empty()));
    assert!(board(&body).contains(r#"data-at="ee" data-col="4" data-row="4""#));
    // ee: black, white, empty, any, then out of the pattern again.
    let cell = |page: &str| {
        editor_cells(board(page))
            .into_iter()
            .filter(|(_, c)| !c.is_empty())
            .collect::<Vec<_>>()
    };
    let ee = |c: &str| vec![("ee".to_string(), c.to_string())];
    let one = html(&links[40]);
    assert_eq!(cell(&one), ee("X"));
    assert_eq!(stones(board(&one)), (vec![], vec![]));
    assert!(
        one.contains("value=\"X@ee\""),
        "the form carries the pattern"
    );
    let two = html(&pattern_links(&one)[40]);
    assert_eq!(cell(&two), ee("O"));
    let three = html(&pattern_links(&two)[40]);
    assert_eq!(cell(&three), ee("."));
    let four = html(&pattern_links(&three)[40]);
    assert_eq!(cell(&four), ee("*"));
    assert!(board(&four).contains(">*</text>"));
    let five = html(&pattern_links(&four)[40]);
    assert!(cell(&five).is_empty());
    // The tools of the editor script, hidden until it runs.
    assert!(body.contains(
        r#"id="pattern-tools" class="tools" role="toolbar" aria-label="Pattern tools" hidden"#
    ));
    // A Keil hexagon of side 7.
    let keil = html("/patterns?kind=keil&size=7");
    assert_eq!(pattern_links(&keil).len(), 127);
    // The nav and the position explorer lead here.
    assert!(hrefs(&html("/")).iter().any(|h| h == "/patterns"));
    assert!(
        hrefs(&html("/positions?kind=go&size=9&edit=1"))
            .iter()
            .any(|h| h.starts_with("/patterns?kind=go&size=9"))
    );
}

#[test]
fn a_pattern_search_page_shows_continuations_and_games() {
    // A Go game's top-left corner after ply 12, as a corner pattern.
    let list = api("/api/v1/games?kind=go&limit=100");
    let (id, rows) = list["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["plies"].as_u64().unwrap() > 30)
        .find_map(|g| {
            let id = g["id"].as_i64().unwrap();
            let (b, w) = api_stones(id, 12);
            let mut count = 0;
            let rows: Vec<String> = (0..5u8)
                .map(|r| {
                    (0..5u8)
                        .map(|c| {
                            let name = format!("{}{}", (b'a' + c) as char, (b'a' + r) as char);
                            if b.contains(&name) {
                                count += 1;
                                'X'
                            } else if w.contains(&name) {
                                count += 1;
                                'O'
                            } else {
                                '.'
                            }
                        })
                        .collect()
                })
                .collect();
            (count >= 2).then(|| (id, rows.join("/")))
        })
        .expect("a Go game with stones in its top-left corner");
    let query = format!("pattern={}&kind=go&size=9&mode=corner", enc(&rows));
    let answer = api(&format!("/api/v1/patterns?{query}&limit=1000"));
    let total = answer["total_games"].as_u64().unwrap();
    assert!(total > 0, "{query}: {answer}");
    let body = html(&format!("/patterns?{query}"));
    let plural = if total == 1 { "" } else { "s" };
    assert!(
        body.contains(&format!("{total} game{plural}, ")),
        "the page counts the games as the API does"
    );
    // The continuations: lettered stones on the board, black where Black
    // played more often, rows in the table.
    let continuations = answer["continuations"].as_array().unwrap();
    assert!(!continuations.is_empty());
    let svg = board(&body);
    assert_eq!(
        svg.matches("class=\"next next-").count(),
        continuations.len()
    );
    let black_more = continuations
        .iter()
        .filter(|c| c["black"]["count"].as_u64() >= c["white"]["count"].as_u64())
        .count();
    assert_eq!(svg.matches("class=\"next next-b\"").count(), black_more);
    assert!(svg.contains(">A</text>"));
    assert_eq!(
        body.matches("<tr class=\"continuation\">").count(),
        continuations.len()
    );
    // The pattern's region is tinted and its stones drawn.
    assert_eq!(svg.matches("class=\"region\"").count(), 25);
    // Each stone is the next step: the pattern with its stone added,
    // searched at once (as Kombilo's and waltheri's continuations are).
    let steps: Vec<String> = hrefs(svg)
        .into_iter()
        .filter(|h| h.starts_with("/patterns?"))
        .collect();
    assert_eq!(steps.len(), continuations.len());
    let first = &continuations[0];
    let (black, white) = (
        first["black"]["count"].as_u64().unwrap(),
        first["white"]["count"].as_u64().unwrap(),
    );
    assert!(!steps[0].contains("edit=1") && steps[0].contains("mode=corner"));
    let step = html(&steps[0]);
    let point = first["point"].as_str().unwrap().to_string();
    let (b, w) = stones(board(&step));
    assert!(
        if black >= white {
            b.contains(&point)
        } else {
            w.contains(&point)
        },
        "{point} added: {b:?} {w:?}"
    );
    let step_total: u64 = step[step.find("<h2>").unwrap() + 4..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(step_total >= 1, "the step finds the games that played it");
    // The table links each colour that played it.
    let table_steps = body
        .matches("<a class=\"continuation\" href=\"/patterns?")
        .count() as u64;
    let played: u64 = continuations
        .iter()
        .map(|c| {
            u64::from(c["black"]["count"].as_u64() > Some(0))
                + u64::from(c["white"]["count"].as_u64() > Some(0))
        })
        .sum();
    assert_eq!(table_steps, played);
    // The games, each a link to the game at its match; the game the
    // pattern came from among them.
    let links = hrefs(&body);
    let game_links: Vec<&String> = links.iter().filter(|h| h.starts_with("/games/")).collect();
    assert_eq!(game_links.len() as u64, total.min(20));
    if total <= 20 {
        let hit = answer["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"].as_i64() == Some(id))
            .expect("the game of the pattern");
        let href = format!("/games/{id}?ply={}", hit["ply"]);
        assert!(links.contains(&href), "{href}");
        // The link opens the game at the match.
        assert!(html(&href).contains(&format!("data-ply=\"{}\"", hit["ply"])));
    }
    // No search while editing; the edit link keeps the pattern.
    let edit = links
        .iter()
        .find(|h| h.starts_with("/patterns?") && h.contains("edit=1") && h.contains("mode=corner"))
        .unwrap();
    let editing = html(edit);
    assert_eq!(pattern_links(&editing).len(), 81);
    assert!(!editing.contains("<tr class=\"continuation\">"));

    // A Keil pattern as points.
    let keil = html(&format!("/patterns?kind=keil&pattern={}", enc("X:g7 .:h8")));
    assert!(keil.contains("<tr class=\"continuation\">"));
    assert!(hrefs(&keil).iter().any(|h| h.starts_with("/games/")));
}

#[test]
fn a_bad_pattern_shows_its_message_not_a_server_error() {
    for (query, message) in [
        (
            "pattern=XQ&size=9",
            "&#39;Q&#39; at row 1, column 2 is not a cell",
        ),
        (
            "pattern=X%3Aee+.%3Aef&size=9&mode=corner",
            "a corner pattern must be drawn in a corner",
        ),
        ("pattern=X.%2F..&kind=keil", "VALUE:POINT"),
        ("pattern=X%3Add&size=9&mode=edge", "mode: unknown mode"),
        ("pattern=X%3Add&size=40", "size:"),
    ] {
        let p = get(&format!("/patterns?{query}"));
        assert_eq!(p.status, 400, "{query}: {}", p.body);
        assert_eq!(p.content_type, "text/html; charset=utf-8");
        check_page_rules(query, &p);
        assert!(p.body.contains("role=\"alert\""), "{query}");
        assert!(p.body.contains(message), "{query}: {message} in {}", p.body);
        // The editor stays usable.
        assert!(!pattern_links(&p.body).is_empty(), "{query}");
    }
}

/// A Go game as a commented record is: a handicap, comments, board markup
/// and variations (one illegal), as the Master–Iyama Yuta record holds them.
const COMMENTED: &str = "(;GM[1]FF[4]CA[UTF-8]SZ[19]KM[0.5]HA[2]RU[Japanese]PB[Master]BR[P9段]PW[Iyama Yuta]WR[9段]RE[B+R]AB[pd][dp]\n\
;W[dd]C[Operator error. See variation.]TR[pd]LB[dp:A]\n\
(;B[qq];W[cc];B[po])\n\
(;B[cc]C[AlphaGo recommended this move.];W[dc];B[dd])\n\
(;B[qc]))";

/// A finished game under agreement rules: the players' result, not a count.
const AGREED: &str =
    "(;GM[1]FF[4]SZ[9]KM[6.5]RU[Japanese]PB[Ann]PW[Bob]RE[B+139.5];B[ee];W[cc];B[];W[])";

fn stored(f: &common::Fixture, name: &str, text: &str) -> i64 {
    let report = f
        .archive
        .import(
            &[keil_archive::ImportSource::Bytes {
                name: name.into(),
                bytes: text.as_bytes().to_vec(),
            }],
            &keil_archive::ImportOptions {
                outcomes: true,
                ..keil_archive::ImportOptions::default()
            },
            &mut |_| {},
        )
        .unwrap();
    match &report.outcomes[0].fate {
        keil_archive::Fate::Stored { id, .. } => id.to_string().parse().unwrap(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_viewer_shows_comments_variations_markup_and_move_numbers() {
    let f = common::start();
    let id = stored(&f, "commented.sgf", COMMENTED);
    let page = |path: &str| {
        let r = common::agent()
            .get(&format!("{}{path}", f.base))
            .call()
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut r = r;
        r.body_mut().read_to_string().unwrap()
    };
    // Move 1: its comment, its markup, the handicap and ranks; the two
    // variations that branch after it, each with its verdict.
    let body = page(&format!("/games/{id}?ply=1"));
    assert!(
        body.contains("data-comment>Operator error. See variation.</div>"),
        "{body}"
    );
    assert!(
        body.contains(r#"class="mk-tr""#) && body.contains(r#"class="mk-lb""#),
        "{body}"
    );
    assert!(body.contains("data-handicap>2 stones"), "{body}");
    assert!(body.contains("Master 9p – Iyama Yuta 9d"), "{body}");
    assert!(body.contains(r#"data-variation="1">B C17</a> <span class="verdict">invalid: occupied at ply 4</span>"#), "{body}");
    assert!(
        body.contains(r#"data-variation="2">B R17</a> <span class="verdict">unfinished</span>"#),
        "{body}"
    );
    assert!(body.contains("data-tree"), "{body}");
    // The variation's board and comment, with the way back.
    let v = page(&format!("/games/{id}?var=1&ply=2"));
    assert!(
        v.contains("data-comment>AlphaGo recommended this move.</div>"),
        "{v}"
    );
    assert!(
        v.contains("data-line>Variation 1, from move 2: invalid: occupied"),
        "{v}"
    );
    assert!(v.contains(r#"data-query="var=1&#38;""#), "{v}");
    let fragment = page(&format!("/games/{id}/board?var=1&ply=2"));
    assert!(
        fragment.contains("AlphaGo recommended this move."),
        "{fragment}"
    );
    // The variation stops before its illegal move: 3 plies, not 4.
    assert!(v.contains(r#"data-plies="3""#), "{v}");
    // Move numbers on the four stones played (not on the handicap stones).
    let n = page(&format!("/games/{id}?ply=4&numbers=1"));
    assert_eq!(n.matches(r#"class="mk-num""#).count(), 4, "{n}");
    assert!(!page(&format!("/games/{id}?ply=4")).contains("mk-num"));
    // No such variation: 404; a bad number: 400.
    for (q, status) in [
        ("var=4", 404),
        ("var=0", 400),
        ("var=x", 400),
        ("numbers=maybe", 400),
    ] {
        let r = common::agent()
            .get(&format!("{}/games/{id}?{q}", f.base))
            .call()
            .unwrap();
        assert_eq!(r.status().as_u16(), status, "{q}");
    }
}

#[test]
fn a_result_the_rules_leave_to_the_players_is_not_claimed_as_computed() {
    let f = common::start();
    let id = stored(&f, "agreed.sgf", AGREED);
    let body = html_of(&f, &format!("/games/{id}"));
    assert!(body.contains("result, not counted here"), "{body}");
    assert!(!body.contains("computed score"), "{body}");
    assert!(!body.contains(r#"class="dot-b""#), "no area marks: {body}");
}

fn html_of(f: &common::Fixture, path: &str) -> String {
    let mut r = common::agent()
        .get(&format!("{}{path}", f.base))
        .call()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200, "{path}");
    r.body_mut().read_to_string().unwrap()
}

/// The pattern page without a chosen mode places the pattern where it
/// suggests (`auto`); stones alone in a corner stand for the corner region;
/// the explorer and the pattern page download the games they found.
#[test]
fn patterns_follow_their_edges_and_found_games_download() {
    // A 3-3 stone alone, no mode: a corner pattern, its region grown to
    // the corner (as the API reads `mode=corner`).
    let query = format!("pattern={}&kind=go&size=9", enc("X:cc"));
    let body = html(&format!("/patterns?{query}"));
    assert!(body.contains(r#"data-placed="corner""#), "auto: corner");
    assert!(
        body.contains("(auto: from the pattern&#39;s edges)")
            || body.contains("(auto: from the pattern's edges)")
    );
    assert_eq!(board(&body).matches("class=\"region\"").count(), 9);
    let answer = api(&format!("/api/v1/patterns?{query}&mode=corner&limit=1000"));
    let api_auto = api(&format!("/api/v1/patterns?{query}&mode=auto&limit=1000"));
    assert_eq!(answer["pattern"], api_auto["pattern"]);
    assert_eq!(answer["pattern"], ".../.../..X@aa");
    let total = answer["total_games"].as_u64().unwrap();
    assert!(total > 0, "{answer}");
    assert!(body.contains(&format!("{total} game")));
    // Its download: the games found, as one collection and as a zip.
    let links = hrefs(&body);
    let sgf_link = links
        .iter()
        .find(|h| h.starts_with("/patterns.sgf?"))
        .unwrap();
    let sgf = get(sgf_link);
    assert_eq!(sgf.status, 200, "{}", sgf.body);
    assert!(sgf.content_type.starts_with("application/x-go-sgf"));
    assert_eq!(sgf.body.matches("(;").count() as u64, total.min(1000));
    let zip_link = links
        .iter()
        .find(|h| h.starts_with("/patterns.zip?"))
        .unwrap();
    let zip = common::agent()
        .get(format!("{}{zip_link}", shared().base))
        .call()
        .unwrap()
        .body_mut()
        .read_to_vec()
        .unwrap();
    let archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
    assert_eq!(archive.len() as u64, total.min(1000));
    let mut names: Vec<String> = archive
        .file_names()
        .map(|n| n.unwrap().to_string())
        .collect();
    names.sort();
    let mut ids: Vec<String> = answer["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| format!("{}.sgf", g["id"]))
        .collect();
    ids.sort();
    assert_eq!(names, ids, "the zip holds the games the search found");

    // A drawn region keeps its edges: a side region is placed along a side.
    let side = html(&format!(
        "/patterns?pattern={}&kind=go&size=9",
        enc("..../.X..@ca")
    ));
    assert!(side.contains(r#"data-placed="side""#));

    // The explorer's download: the games that reached the position (the
    // empty 9×9 board: every 9×9 Go game).
    let start = html("/positions?kind=go&size=9");
    let total: u64 = start
        .split("<h2>")
        .nth(1)
        .and_then(|h| h.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    let link = hrefs(&start)
        .into_iter()
        .find(|h| h.starts_with("/positions.sgf?"))
        .expect("a download link when games were found");
    assert!(
        link.contains("kind=go") && link.contains("size=9"),
        "{link}"
    );
    let sgf = get(&link);
    assert_eq!(sgf.status, 200);
    assert_eq!(sgf.body.matches("(;").count() as u64, total.min(1000));
    assert!(total > 0);
}

/// The pattern page with variations searched: a match only in a
/// variation of the commented record is listed as that variation's and
/// linked to the viewer on it.
#[test]
fn the_pattern_page_finds_and_links_a_match_in_a_variation() {
    let f = common::start();
    let id = stored(&f, "commented.sgf", COMMENTED);
    let page = |extra: &str| {
        let path = format!(
            "/patterns?pattern=X%3Acc%20O%3Add&kind=go&size=19&mode=fixed&symmetry=false&colors=same{extra}"
        );
        let mut r = common::agent()
            .get(&format!("{}{path}", f.base))
            .call()
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        r.body_mut().read_to_string().unwrap()
    };
    // Black c17 (cc) beside White's d16 (dd): played only in the first
    // variation, at its ply 2 (after White's d16).
    // A Go page counts moves.
    let row = format!("#{id} at move 2 of variation 1</a>");
    let without = page("");
    assert!(!without.contains(&row), "{without}");
    let with = page("&variations=true");
    assert!(with.contains(&row), "{with}");
    assert!(
        with.contains(&format!("/games/{id}?ply=2&#38;var=1")),
        "{with}"
    );
    // The recent games list it as the variation's too.
    let recent = page("&variations=true&recent_games=1");
    let list = &recent[recent.find("id=\"recent-games\"").expect("a recent list")..];
    assert!(list.contains(&row), "{recent}");
}

/// The search page says where each game matched: the field, an excerpt
/// with the words in `<mark>` (the record's text escaped), a comment's
/// move linked to the viewer there; a year filters by date; past 20
/// games a next page, with the total.
#[test]
fn the_search_page_shows_where_games_matched_and_pages_past_twenty() {
    let f = common::start();
    let commented = stored(&f, "commented.sgf", COMMENTED);
    let spring: String = (0..25)
        .map(|i| {
            let point = format!("{}{}", (b'a' + i / 9) as char, (b'a' + i % 9) as char);
            format!(
                "(;GM[1]SZ[9]PB[Shusaku]PW[P{i}]DT[{}]EV[Spring Cup];B[{point}])\n",
                1846 + u32::from(i % 2)
            )
        })
        .collect();
    stored(&f, "spring.sgf", &spring);

    // A comment in a variation: the move and the variation, linked.
    let body = html_of(&f, "/search?q=alphago");
    assert!(
        body.contains("<mark>AlphaGo</mark> recommended this move."),
        "{body}"
    );
    assert!(
        body.contains(&format!(
            "<a href=\"/games/{commented}?ply=2&#38;var=1\">move 2 of variation 1</a>"
        )),
        "{body}"
    );
    assert!(
        body.contains("<span class=\"field\">comment</span>"),
        "{body}"
    );
    assert!(body.contains("1 game"), "{body}");

    // The record's text is escaped around and inside the marks.
    let body = html_of(&f, &format!("/search?q={}", enc("alert eve")));
    assert!(
        body.contains("&#60;script&#62;<mark>alert</mark>(1)&#60;/script&#62; &#38; &#34;<mark>Eve</mark>&#34;"),
        "{body}"
    );
    assert!(!body.contains("<script>alert"));

    // 25 games: 20, then the next page's 5.
    let first = html_of(&f, "/search?q=spring");
    assert!(first.contains("25 games"), "{first}");
    assert_eq!(
        first.matches("<span class=\"field\">event</span>").count(),
        20
    );
    let at = first
        .find("rel=\"next\" href=\"")
        .expect("a next page link")
        + 17;
    let next = first[at..at + first[at..].find('"').unwrap()].replace("&amp;", "&");
    assert!(next.starts_with("/search?q=spring&after="), "{next}");
    let second = html_of(&f, &next);
    assert!(second.contains("25 games"), "{second}");
    assert_eq!(
        second.matches("<span class=\"field\">event</span>").count(),
        5
    );
    assert!(!second.contains("rel=\"next\""));
    assert!(second.contains("first page</a>"));
    assert!(!second.contains("<h2>Players</h2>"));

    // A year is a date filter, not a word.
    let years = html_of(&f, &format!("/search?q={}", enc("Shusaku 1846")));
    assert!(years.contains("13 games of 1846"), "{years}");
    // A cursor that is none is refused, saying what to give.
    let bad = get(&format!("{}/search?q=spring&after=12", f.base));
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("after"), "{}", bad.body);
}

/// An archive of one kind is named for it in every page's title and
/// header, from the upload that makes it so; a mixed one keeps the
/// product's name.
#[test]
fn an_archive_of_one_kind_is_named_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let archive = std::sync::Arc::new(keil_archive::Archive::open(dir.path()).unwrap());
    let addr = common::serve(keil_server::ServerOptions {
        token: Some(common::TOKEN.into()),
        rate_limits: keil_server::limits::RateLimits::off(),
        ..keil_server::ServerOptions::new(std::sync::Arc::clone(&archive))
    });
    let base = format!("http://{addr}");
    let page = |path: &str| {
        let mut r = common::agent()
            .get(&format!("{base}{path}"))
            .call()
            .unwrap();
        assert_eq!(r.status().as_u16(), 200, "{path}");
        r.body_mut().read_to_string().unwrap()
    };
    let empty = page("/games");
    assert!(
        empty.contains("<title>Games · Keil archive</title>"),
        "{empty}"
    );
    let uploaded = common::agent()
        .post(&format!("{base}/api/v1/games"))
        .header("Authorization", &format!("Bearer {}", common::TOKEN))
        .send("(;GM[1]FF[4]SZ[9]PB[A]PW[B];B[ee];W[cc])")
        .unwrap();
    assert_eq!(uploaded.status().as_u16(), 201);
    for (path, title) in [("/games", "Games"), ("/positions", "Position explorer")] {
        let body = page(path);
        assert!(
            body.contains(&format!("<title>{title} · Go archive</title>")),
            "{path}: {body}"
        );
        assert!(body.contains(r#"<a class="brand" href="/">Go archive</a>"#));
        // Its own words: Go's records, no other game offered.
        assert!(body.contains("<footer>Go game records ·"), "{path}: {body}");
        assert!(!body.contains(r#"value="keil""#), "{path}: {body}");
        assert!(!body.contains(r#"value="kaomi""#), "{path}: {body}");
        assert!(!body.contains("Kaomi variant"), "{path}: {body}");
        // The upload's collection, offered to filter by.
        assert!(
            body.contains(r#"<option value="uploads">uploads · 1 game</option>"#),
            "{path}: {body}"
        );
    }
    assert!(page("/").contains("<h1>Go game records</h1>"));
    // An error page too is the archive's.
    let missing = get(&format!("{base}/games/999"));
    assert_eq!(missing.status, 404);
    let body = missing.body;
    assert!(body.contains("· Go archive</title>"), "{body}");
    assert!(body.contains("<footer>Go game records ·"), "{body}");
    drop(archive);
    drop(dir);
    // The shared archive holds every kind: the product's name.
    assert!(html("/games").contains("<title>Games · Keil archive</title>"));
}
