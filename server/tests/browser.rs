//! The pages in a real browser: headless Chromium driven through
//! chromedriver (WebDriver, over plain HTTP on loopback) by fantoccini,
//! against the server on another loopback port with a generated archive
//! of every game kind (`common::CORPUS`).
//!
//! Needs `chromedriver` (Debian's `chromium` and `chromium-driver`; CI
//! installs them). Without it the test prints a note and passes, except
//! under CI (`CI` set), where a missing driver fails the run.
//! Screenshots of each page at 390 and 1280 pixels wide are written to
//! `target/screenshots/`.

mod common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Fixture, TOKEN, enc, first_game, shared};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

/// The chromedriver to use: `$CHROMEDRIVER`, else `chromedriver` on the
/// `PATH`.
fn chromedriver() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMEDRIVER") {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("chromedriver"))
            .find(|p| p.is_file())
    })
}

/// A chromedriver process on a free loopback port, killed on drop.
struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_driver(bin: &Path) -> Driver {
    let port = free_port();
    let child = Command::new(bin)
        .arg(format!("--port={port}"))
        .arg("--allowed-ips=127.0.0.1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
    let driver = Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    driver
}

/// Where screenshots go: `target/screenshots/`.
fn screenshot_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Reads the browser's console since the last call (chromedriver's log
/// endpoint).
#[derive(Debug)]
struct BrowserLog;

impl fantoccini::wd::WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!("session/{}/se/log", session_id.unwrap_or("")))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({"type": "browser"}).to_string()),
        )
    }
}

/// Fails on any console message of level SEVERE (errors, CSP
/// violations, failed loads) since the last check, but for the network
/// messages that contain `expected` (an answer the test asked for).
async fn no_console_errors(c: &Client, at: &str, expected: Option<&str>) {
    let log = c.issue_cmd(BrowserLog).await.expect("browser log");
    let allowed = |e: &Value| {
        expected.is_some_and(|x| {
            e["source"] == "network" && e["message"].as_str().unwrap_or("").contains(x)
        })
    };
    let severe: Vec<&Value> = log
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|e| e["level"] == "SEVERE" && !allowed(e))
                .collect()
        })
        .unwrap_or_default();
    assert!(severe.is_empty(), "console errors at {at}: {severe:#?}");
}

async fn shoot(c: &Client, name: &str) {
    for width in [390u32, 1280] {
        c.set_window_size(width, if width == 390 { 844 } else { 900 })
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(150)).await;
        let png = c.screenshot().await.unwrap();
        std::fs::write(screenshot_dir().join(format!("{name}-{width}.png")), png).unwrap();
    }
}

/// `(black, white)` stones of the page's board, sorted.
async fn board_stones(c: &Client) -> (Vec<String>, Vec<String>) {
    let v = c
        .execute(
            "const s = [...document.querySelectorAll('svg[data-ply] [data-point], #explorer-board svg [data-point]')];\
             return s.map(e => [e.dataset.point, e.dataset.color]);",
            vec![],
        )
        .await
        .unwrap();
    let (mut b, mut w) = (Vec::new(), Vec::new());
    for pair in v.as_array().unwrap() {
        let p = pair[0].as_str().unwrap().to_string();
        match pair[1].as_str().unwrap() {
            "b" => b.push(p),
            "w" => w.push(p),
            o => panic!("data-color {o}"),
        }
    }
    b.sort();
    w.sort();
    (b, w)
}

async fn shown_ply(c: &Client) -> u32 {
    // One script call: the board may be replaced between two commands.
    let v = c
        .execute(
            "return document.querySelector('svg[data-ply]').dataset.ply",
            vec![],
        )
        .await
        .unwrap();
    v.as_str().unwrap().parse().unwrap()
}

fn api(f: &Fixture, path: &str) -> Value {
    let body = ureq::get(&format!("{}{path}", f.base))
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    serde_json::from_str(&body).unwrap()
}

fn api_stones(f: &Fixture, id: i64, ply: u32) -> (Vec<String>, Vec<String>) {
    let v = api(f, &format!("/api/v1/games/{id}/positions/{ply}"));
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

/// Waits until `check` holds (5 s at most).
async fn until<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + Duration::from_secs(5);
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap();
}

async fn type_into(c: &Client, css: &str, text: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .send_keys(text)
        .await
        .unwrap();
}

/// Whether the text of the element at `css` contains `text`; false while
/// there is no such element. The pages replace elements as they update, so
/// one may be missing for a moment, or be found and then detached before
/// its text is read (WebDriver's stale element reference): both read as
/// "not yet", and [`until`] asks again.
async fn text_contains(c: &Client, css: &str, text: &str) -> bool {
    let element = match c.find(Locator::Css(css)).await {
        Ok(element) => element,
        Err(e) if e.is_no_such_element() => return false,
        Err(e) => panic!("{css}: {e}"),
    };
    match element.text().await {
        Ok(t) => t.contains(text),
        Err(e) if e.is_stale_element_reference() => false,
        Err(e) => panic!("{css}: {e}"),
    }
}

/// The query string of the current URL.
async fn query(c: &Client) -> Option<String> {
    c.current_url().await.unwrap().query().map(str::to_string)
}

const ARROW_LEFT: &str = "\u{E012}";
const ARROW_RIGHT: &str = "\u{E014}";

async fn press(c: &Client, key: &str) {
    type_into(c, "body", key).await;
}

async fn home_and_typeahead(c: &Client, base: &str) {
    c.goto(&format!("{base}/")).await.unwrap();
    let q = c.find(Locator::Css("input[name=q]")).await.unwrap();
    q.send_keys("bolanos").await.unwrap();
    let hit = c
        .wait()
        .at_most(Duration::from_secs(5))
        .for_element(Locator::Css("#q-suggest a"))
        .await
        .expect("typeahead suggestions");
    let text = hit.text().await.unwrap();
    assert!(text.contains("Bolaños"), "{text}");
    shoot(c, "home").await;
    hit.click().await.unwrap();
    until("the player page", || async {
        c.current_url()
            .await
            .unwrap()
            .path()
            .starts_with("/players/")
    })
    .await;
    let h1 = c
        .find(Locator::Css("h1"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(h1.contains("Bolaños"));
    c.find(Locator::Css("svg.chart")).await.unwrap();
    shoot(c, "player").await;
    no_console_errors(c, "home, player", None).await;
}

/// The games list after choosing `value` in the form's select `name` and
/// submitting: the address says the filter, and every game listed is named
/// with `game` (its kind's name).
async fn list_filtered_by(c: &Client, base: &str, name: &str, value: &str, game: &str) {
    c.goto(&format!("{base}/games")).await.unwrap();
    let select = c
        .find(Locator::Css(&format!("select[name={name}]")))
        .await
        .unwrap();
    select.select_by_value(value).await.unwrap();
    click(c, "form.filters button[type=submit]").await;
    let said = format!("{name}={value}");
    until("the filtered list", || async {
        query(c).await.is_some_and(|q| q.contains(&said))
    })
    .await;
    let rows = c
        .find_all(Locator::Css("table.games tbody tr td:first-child a"))
        .await
        .unwrap();
    assert!(!rows.is_empty());
    for r in &rows {
        assert!(r.text().await.unwrap().starts_with(&format!("{game} ")));
    }
}

async fn list_and_filters(c: &Client, base: &str) {
    list_filtered_by(c, base, "kind", "go", "Go").await;
    shoot(c, "games").await;
    no_console_errors(c, "games", None).await;
    // A collection (an import's games), chosen in the form.
    list_filtered_by(c, base, "collection", "kaomi", "Kaomi").await;
}

/// In the games list's form, a chosen suggestion fills the field: the page
/// stays the list, with its other filters.
async fn list_player_suggestion_fills(c: &Client, base: &str) {
    c.goto(&format!("{base}/games?event=Cup")).await.unwrap();
    type_into(c, "#f-player", "bolanos").await;
    let hit = c
        .wait()
        .at_most(Duration::from_secs(5))
        .for_element(Locator::Css("#f-player-suggest a"))
        .await
        .expect("typeahead suggestions in the games form");
    // "Begoña Bolaños (12 games, 2019–2024)": the name before the details.
    let text = hit.text().await.unwrap();
    let name = text.split(" (").next().unwrap().to_string();
    assert!(name.contains("Bolaños"), "{text}");
    hit.click().await.unwrap();
    let input = c.find(Locator::Css("#f-player")).await.unwrap();
    let value = input.prop("value").await.unwrap().unwrap_or_default();
    assert_eq!(value, name);
    assert_eq!(c.current_url().await.unwrap().path(), "/games");
    assert!(query(c).await.is_some_and(|q| q.contains("event=Cup")));
    click(c, "form.filters button[type=submit]").await;
    until("the list filtered by the chosen player", || async {
        query(c).await.is_some_and(|q| {
            let q = url::form_urlencoded::parse(q.as_bytes())
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>();
            q.iter().any(|p| p == &format!("player={value}")) && q.iter().any(|p| p == "event=Cup")
        })
    })
    .await;
    no_console_errors(c, "games, suggestion", None).await;
}

async fn viewer_steps(c: &Client, f: &Fixture, kind: &str) {
    let (id, plies) = first_game(f, kind);
    let ply = plies / 2;
    c.goto(&format!("{}/games/{id}?ply={ply}", f.base))
        .await
        .unwrap();
    assert_eq!(shown_ply(c).await, ply);
    assert_eq!(
        board_stones(c).await,
        api_stones(f, id, ply),
        "{kind} at {ply}"
    );
    // The move list is scrolled to the current ply.
    let visible = c
        .execute(
            "const a = document.querySelector('ol.moves a[aria-current]'); const l = a.closest('ol');\
             const t = a.offsetTop - l.offsetTop; return t >= l.scrollTop && t <= l.scrollTop + l.clientHeight;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        visible,
        json!(true),
        "{kind}: current move scrolled into view"
    );
    if kind == "keil" {
        shoot(c, "viewer").await;
    }
    for (key, to) in [(ARROW_RIGHT, ply + 1), (ARROW_LEFT, ply)] {
        press(c, key).await;
        until("the next board", || async { shown_ply(c).await == to }).await;
        assert_eq!(
            board_stones(c).await,
            api_stones(f, id, to),
            "{kind} at {to}"
        );
        let url = c.current_url().await.unwrap();
        assert_eq!(url.query(), Some(format!("ply={to}").as_str()));
        assert_eq!(url.path(), format!("/games/{id}"));
        let said = c
            .find(Locator::Id("announce"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(said.starts_with("Move "), "{said:?}");
    }
    // The buttons and the move list are links that step the same way.
    click(c, "nav.controls a[title^='Forward ten']").await;
    let to = (ply + 10).min(plies);
    until("ten plies on", || async { shown_ply(c).await == to }).await;
    assert_eq!(board_stones(c).await, api_stones(f, id, to));
    press(c, "\u{E011}").await; // Home
    until("the start", || async { shown_ply(c).await == 0 }).await;
    no_console_errors(c, &format!("viewer {kind}"), None).await;
}

/// A commented Go record with variations (as the Master–Iyama Yuta
/// record): the comment follows the keys, a variation opens its line and
/// keeps it while stepping, move numbers toggle.
async fn viewer_comments_and_variations(c: &Client, f: &Fixture) {
    let record = "(;GM[1]FF[4]CA[UTF-8]SZ[19]KM[0.5]HA[2]RU[Japanese]PB[Master]PW[Iyama Yuta]RE[B+R]AB[pd][dp]\n\
        ;W[dd]C[Operator error. See variation.]TR[pd]\n\
        (;B[qq]C[The game went on.];W[cc];B[po])\n\
        (;B[cc]C[AlphaGo recommended this move.];W[dc];B[qq]))";
    let report = f
        .archive
        .import(
            &[keil_archive::ImportSource::Bytes {
                name: "commented.sgf".into(),
                bytes: record.as_bytes().to_vec(),
            }],
            &keil_archive::ImportOptions {
                outcomes: true,
                ..keil_archive::ImportOptions::default()
            },
            &mut |_| {},
        )
        .unwrap();
    let keil_archive::Fate::Stored { id, .. } = &report.outcomes[0].fate else {
        panic!("{:?}", report.outcomes)
    };
    c.goto(&format!("{}/games/{id}?ply=0", f.base))
        .await
        .unwrap();
    press(c, ARROW_RIGHT).await;
    until("move 1's comment", || {
        text_contains(c, "[data-comment]", "Operator error")
    })
    .await;
    press(c, ARROW_RIGHT).await;
    until("move 2's comment", || {
        text_contains(c, "[data-comment]", "The game went on")
    })
    .await;
    press(c, ARROW_LEFT).await;
    until("move 1 again", || async { shown_ply(c).await == 1 }).await;
    shoot(c, "viewer-comments").await;
    click(c, "#board-panel a[data-variation='1']").await;
    until("the variation's comment", || {
        text_contains(c, "[data-comment]", "AlphaGo recommended")
    })
    .await;
    until("the variation's line", || {
        text_contains(c, "[data-line]", "Variation 1")
    })
    .await;
    press(c, ARROW_RIGHT).await;
    until("the variation's next move", || async {
        shown_ply(c).await == 3
    })
    .await;
    assert_eq!(query(c).await.as_deref(), Some("var=1&ply=3"));
    click(c, "#board-panel a[data-numbers]").await;
    until("move numbers", || async {
        c.find_all(Locator::Css("#board-panel .mk-num"))
            .await
            .map(|v| v.len() == 3)
            .unwrap_or(false)
    })
    .await;
    no_console_errors(c, "viewer comments", None).await;
}

async fn explorer_and_editor(c: &Client, f: &Fixture) {
    let base = &f.base;
    // A continuation link opens the position after it.
    c.goto(&format!(
        "{base}/positions?kind=keil&position={}",
        enc("7/8/9/10/11/12/13/12/11/10/9/8/7")
    ))
    .await
    .unwrap();
    let first = c.find(Locator::Css("a.continuation")).await.unwrap();
    let mv = first.text().await.unwrap();
    shoot(c, "explorer").await;
    first.click().await.unwrap();
    until("the next position", || async {
        query(c).await.is_some_and(|q| q.contains("to_move=w"))
    })
    .await;
    let (b, w) = board_stones(c).await;
    assert_eq!((b.len(), w.len()), (1, 0), "after {mv}");
    assert!(mv.ends_with(&b[0]), "{mv} vs {b:?}");
    no_console_errors(c, "explorer", None).await;

    // The editor: click the first move of a Go game on the empty board,
    // then find the games with that position.
    let (id, _) = first_game(f, "go");
    let detail = api(f, &format!("/api/v1/games/{id}"));
    let sgf_name = detail["moves"][0].as_str().unwrap().to_string();
    let board = keil_rules::SquareBoard::new(9).unwrap();
    let display = board.display_name(board.parse_sgf_point(&sgf_name).unwrap());
    c.goto(&format!("{base}/positions?kind=go&size=9&edit=1"))
        .await
        .unwrap();
    let point = format!(
        "//*[local-name()='a'][*[local-name()='circle']/*[local-name()='title'][starts-with(., '{display} ')]]"
    );
    c.find(Locator::XPath(&point))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until("a black stone", || async {
        board_stones(c).await.0 == vec![sgf_name.clone()]
    })
    .await;
    shoot(c, "editor").await;
    c.find(Locator::LinkText("Find games with this position"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until("the search", || async {
        !query(c).await.unwrap_or_default().contains("edit=1")
    })
    .await;
    let games = c
        .find_all(Locator::Css("table.games tbody a"))
        .await
        .unwrap();
    assert!(!games.is_empty(), "the editor's position has games");
    let heading = c
        .find(Locator::XPath("//h2[contains(., 'reached this position')]"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!heading.starts_with("0 "), "{heading}");
    no_console_errors(c, "editor", None).await;

    // Playing from the empty board: a click on a point plays it (any legal
    // move, whether the archive has it or not), the line grows, undo
    // takes it back.
    play_a1(c, base).await;
    shoot(c, "explorer-play").await;
    click(c, "nav.line a[data-undo]").await;
    until("undone", || async { board_stones(c).await.0.is_empty() }).await;
    no_console_errors(c, "explorer play", None).await;
}

/// The pattern page's cells, `(data-at, data-cell)` of every point in
/// the pattern, sorted.
async fn pattern_cells(c: &Client) -> Vec<(String, String)> {
    let v = c
        .execute(
            "return [...document.querySelectorAll('#pattern-board a[data-cell]')].map(e => [e.dataset.at, e.dataset.cell]);",
            vec![],
        )
        .await
        .unwrap();
    let mut cells: Vec<(String, String)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().into(), p[1].as_str().unwrap().into()))
        .collect();
    cells.sort();
    cells
}

async fn pattern_point(c: &Client, at: &str) -> fantoccini::elements::Element {
    c.find(Locator::Css(&format!("#pattern-board a[data-at='{at}']")))
        .await
        .unwrap_or_else(|e| panic!("point {at}: {e}"))
}

/// The pattern editor: a region dragged with the mouse (1280 px) or
/// chosen by two taps (390 px), stones placed in turn, no reload, then the
/// search (its mode following the region) and its download.
async fn pattern_editor(c: &Client, f: &Fixture) {
    use fantoccini::actions::{InputSource, MouseActions, PointerAction};
    let base = &f.base;
    let (id, _) = first_game(f, "go");
    let detail = api(f, &format!("/api/v1/games/{id}"));
    let first = detail["moves"][0].as_str().unwrap().to_string();
    let second = if first == "gg" { "hh" } else { "gg" };
    c.set_window_size(1280, 900).await.unwrap();
    c.goto(&format!("{base}/patterns?kind=go&size=9"))
        .await
        .unwrap();
    // A marker that a reload would lose.
    c.execute("window.keilMarker = 1;", vec![]).await.unwrap();
    assert!(
        c.find(Locator::Css("#pattern-tools"))
            .await
            .unwrap()
            .is_displayed()
            .await
            .unwrap(),
        "the script shows its tools"
    );
    c.find(Locator::Css("#pattern-query select[name=colors]"))
        .await
        .unwrap()
        .select_by_value("same")
        .await
        .unwrap();
    // Drag from aa to ee: the 5×5 corner region, its points empty.
    let drag = MouseActions::new("mouse".into())
        .then(PointerAction::MoveToElement {
            element: pattern_point(c, "aa").await,
            duration: None,
            x: 0.0,
            y: 0.0,
        })
        .then(PointerAction::Down { button: 0 })
        .then(PointerAction::MoveToElement {
            element: pattern_point(c, "cc").await,
            duration: Some(Duration::from_millis(100)),
            x: 0.0,
            y: 0.0,
        })
        .then(PointerAction::MoveToElement {
            element: pattern_point(c, "ee").await,
            duration: Some(Duration::from_millis(100)),
            x: 0.0,
            y: 0.0,
        })
        .then(PointerAction::Up { button: 0 });
    c.perform_actions(drag).await.unwrap();
    until("the dragged region", || async {
        pattern_cells(c).await.len() == 25
    })
    .await;
    assert!(pattern_cells(c).await.iter().all(|(_, v)| v == "."));
    // Stones in turn: the first move of a game black, then a white stone
    // taken back.
    pattern_point(c, &first).await.click().await.unwrap();
    pattern_point(c, second).await.click().await.unwrap();
    until("a black and a white stone", || async {
        let cells = pattern_cells(c).await;
        cells.contains(&(first.clone(), "X".into()))
            && cells.contains(&(second.to_string(), "O".into()))
    })
    .await;
    pattern_point(c, second).await.click().await.unwrap();
    until("the white stone taken back", || async {
        !pattern_cells(c).await.iter().any(|(_, v)| v == "O")
    })
    .await;
    let kept = c
        .execute("return window.keilMarker === 1;", vec![])
        .await
        .unwrap();
    assert_eq!(kept, json!(true), "the page was reloaded");
    let field = c
        .find(Locator::Css("#pattern-query input[name=pattern]"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap()
        .unwrap();
    assert!(
        field.starts_with(&format!("X:{first}")) && field.contains(" .:aa,"),
        "{field}"
    );
    assert!(query(c).await.unwrap_or_default().contains("edit=1"));
    shoot(c, "patterns-editor").await;
    c.set_window_size(1280, 900).await.unwrap();
    click(c, "#pattern-query button[type=submit]").await;
    until("the search", || async {
        !query(c).await.unwrap_or_default().contains("edit=1")
    })
    .await;
    let games = c
        .find_all(Locator::Css("table.games tbody a"))
        .await
        .unwrap();
    assert!(!games.is_empty(), "a first move's stone is found");
    assert!(query(c).await.unwrap_or_default().contains("colors=same"));
    let placed = c
        .find(Locator::Css("[data-placed]"))
        .await
        .unwrap()
        .attr("data-placed")
        .await
        .unwrap();
    assert_eq!(placed.as_deref(), Some("corner"), "auto follows the region");
    assert!(c.find(Locator::Css("a[data-download=zip]")).await.is_ok());
    shoot(c, "patterns").await;
    no_console_errors(c, "patterns", None).await;

    // A phone: the region tool and two taps, then a stone.
    c.set_window_size(390, 844).await.unwrap();
    c.goto(&format!("{base}/patterns?kind=go&size=9"))
        .await
        .unwrap();
    click(c, "#pattern-tools [data-tool=region]").await;
    pattern_point(c, "aa").await.click().await.unwrap();
    pattern_point(c, "cc").await.click().await.unwrap();
    until("the tapped region", || async {
        pattern_cells(c).await.len() == 9
    })
    .await;
    pattern_point(c, "bb").await.click().await.unwrap();
    until("a stone in the region", || async {
        pattern_cells(c).await.contains(&("bb".into(), "X".into()))
    })
    .await;
    assert_eq!(pattern_cells(c).await.len(), 9);
    // "Search this pattern", right under the board, sends what was drawn.
    click(c, "#search-drawn").await;
    until("the drawn pattern searched", || async {
        let q = query(c).await.unwrap_or_default();
        !q.contains("edit=1") && q.contains("bb")
    })
    .await;
    assert!(fits_the_window(c).await, "the pattern's answer fits 390 px");
    // A continuation's stone is the next step: the pattern with its stone
    // added, searched.
    let before = query(c).await.unwrap_or_default();
    if c.find(Locator::Css("#pattern-board a circle.next"))
        .await
        .is_ok()
    {
        click(c, "#pattern-board a circle.next").await;
        until("the next step", || async {
            let q = query(c).await.unwrap_or_default();
            q != before && !q.contains("edit=1")
        })
        .await;
        let cells = c
            .execute(
                "return document.querySelectorAll('#pattern-board svg [data-point]').length;",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(cells, json!(2), "the stone drawn and the one added");
    }
    no_console_errors(c, "patterns on a phone", None).await;
    c.set_window_size(1280, 900).await.unwrap();
}

/// The explorer's graphics say what their numbers say, at 1280 and 390
/// px: each share bar is filled in proportion to its percentage, the
/// continuations are black or white stones lettered as their rows, and
/// the page is no wider than the window (tables scroll in their box).
async fn truthful_graphics(c: &Client, base: &str) {
    for (width, height) in [(1280, 900), (390, 844)] {
        c.set_window_size(width, height).await.unwrap();
        c.goto(&format!("{base}/positions?kind=go&size=9"))
            .await
            .unwrap();
        assert!(fits_the_window(c).await, "the explorer fits {width} px");
        let bars = c
            .execute(
                "return [...document.querySelectorAll('table.continuations tbody tr')].map((tr) => {
                   const bar = tr.querySelector('svg.share-bar');
                   const fill = bar.querySelector('.fill').getBoundingClientRect().width;
                   const track = bar.querySelector('.track').getBoundingClientRect().width;
                   const text = tr.querySelector('td:last-child').textContent.trim();
                   return [fill / track, parseFloat(text)];
                 });",
                vec![],
            )
            .await
            .unwrap();
        let bars = bars.as_array().unwrap();
        assert!(!bars.is_empty());
        for bar in bars {
            let (drawn, said) = (bar[0].as_f64().unwrap(), bar[1].as_f64().unwrap());
            assert!((drawn * 100.0 - said).abs() < 1.5, "{width} px: {bar}");
        }
        let stones = c
            .execute(
                "return [...document.querySelectorAll('#explorer-board circle.next')].map((s) =>
                   [s.getAttribute('fill'), s.nextElementSibling.textContent]);",
                vec![],
            )
            .await
            .unwrap();
        let letters = c
            .execute(
                "return [...document.querySelectorAll('span.stone-letter')].map((s) => s.textContent);",
                vec![],
            )
            .await
            .unwrap();
        let stones = stones.as_array().unwrap();
        assert!(!stones.is_empty());
        for (stone, letter) in stones.iter().zip(letters.as_array().unwrap()) {
            assert_eq!(stone[0], "#151515", "Black's moves are black stones");
            assert_eq!(&stone[1], letter, "a stone is lettered as its row");
        }
    }
    no_console_errors(c, "explorer graphics", None).await;
    c.set_window_size(1280, 900).await.unwrap();
}

/// Opens the explorer on the empty 9×9 Go board and plays Black A1 by a
/// click on the point: the board and the line follow.
async fn play_a1(c: &Client, base: &str) {
    c.goto(&format!("{base}/positions?kind=go&size=9"))
        .await
        .unwrap();
    let play = "//*[local-name()='a'][*[local-name()='circle']/*[local-name()='title'][starts-with(., 'play Black A1')]]";
    c.find(Locator::XPath(play))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until("A1 played", || async {
        board_stones(c).await.0 == vec!["ai".to_string()]
    })
    .await;
    until("the line", || text_contains(c, "nav.line", "1. B A1")).await;
}

/// Whether the page is no wider than the window (tables scroll inside
/// their own box).
async fn fits_the_window(c: &Client) -> bool {
    c.execute(
        "return document.documentElement.scrollWidth <= window.innerWidth;",
        vec![],
    )
    .await
    .unwrap()
        == json!(true)
}

/// The pages driven at 390 px: the viewer's buttons, the explorer's
/// played line and its download, the game list and the pattern page fit
/// the window.
async fn on_a_phone(c: &Client, f: &Fixture) {
    let base = &f.base;
    c.set_window_size(390, 844).await.unwrap();
    let (id, plies) = first_game(f, "go");
    let ply = plies / 2;
    c.goto(&format!("{base}/games/{id}?ply={ply}"))
        .await
        .unwrap();
    assert!(fits_the_window(c).await, "the viewer fits 390 px");
    click(c, "nav.controls a[title^='Forward ten']").await;
    let to = (ply + 10).min(plies);
    until("ten plies on", || async { shown_ply(c).await == to }).await;
    assert_eq!(board_stones(c).await, api_stones(f, id, to));

    play_a1(c, base).await;
    assert!(fits_the_window(c).await, "the explorer fits 390 px");
    c.goto(&format!("{base}/positions?kind=go&size=9"))
        .await
        .unwrap();
    let download = c
        .find(Locator::Css("a[data-download=sgf]"))
        .await
        .unwrap()
        .attr("href")
        .await
        .unwrap()
        .unwrap();
    assert!(download.starts_with("/positions.sgf?"), "{download}");

    for path in ["/games", "/patterns?kind=go&size=9", "/"] {
        c.goto(&format!("{base}{path}")).await.unwrap();
        assert!(fits_the_window(c).await, "{path} fits 390 px");
    }
    no_console_errors(c, "pages on a phone", None).await;
    c.set_window_size(1280, 900).await.unwrap();
}

async fn upload(c: &Client, base: &str) {
    c.goto(&format!("{base}/upload")).await.unwrap();
    let mut record = Vec::new();
    keil_gen::write_collection(
        keil_gen::GeneratorConfig {
            games: 2,
            size: 5,
            seed: 4242,
            ..keil_gen::GeneratorConfig::default()
        },
        &mut record,
    )
    .unwrap();
    // Through the file picker.
    let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-upload.sgf");
    std::fs::write(&file, &record).unwrap();
    type_into(c, "input[type=file]", file.to_str().unwrap()).await;
    type_into(c, "input[name=token]", TOKEN).await;
    click(c, "#upload button[type=submit]").await;
    let row = c
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#result tr.verdict"))
        .await
        .expect("verdicts");
    let text = row.text().await.unwrap();
    assert!(text.contains("stored"), "{text}");
    let link = row.find(Locator::Css("a")).await.unwrap();
    let href = link.attr("href").await.unwrap().unwrap();
    assert!(href.starts_with("/games/"), "{href}");
    // The token stays out of the URL and of storage.
    let url = c.current_url().await.unwrap();
    assert!(!url.as_str().contains(TOKEN));
    let stored = c
        .execute(
            "return JSON.stringify(localStorage) + JSON.stringify(sessionStorage) + document.cookie",
            vec![],
        )
        .await
        .unwrap();
    assert!(!stored.as_str().unwrap().contains(TOKEN));
    shoot(c, "upload").await;
    // Dropped on the drop zone (a drop event carrying a file), then sent:
    // already in the archive.
    c.execute(
        "const dt = new DataTransfer();\
         dt.items.add(new File([arguments[0]], 'dropped.sgf'));\
         document.getElementById('drop').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));",
        vec![json!(String::from_utf8(record.clone()).unwrap())],
    )
    .await
    .unwrap();
    until("the dropped file's name", || {
        text_contains(c, "#drop p", "dropped.sgf")
    })
    .await;
    click(c, "#upload button[type=submit]").await;
    until("the duplicate verdicts", || {
        text_contains(c, "#result", "0 stored, 2 already in the archive")
    })
    .await;
    // A refused game shows its reason and line:column.
    let textarea = c.find(Locator::Css("textarea")).await.unwrap();
    textarea
        .send_keys("(;GM[Keil]FF[4]SZ[2]KM[0]PB[Ann]PW[Bo]\n;B[b2];W[b2])")
        .await
        .unwrap();
    click(c, "#upload button[type=submit]").await;
    until("the refusal", || text_contains(c, "#result", "line 2:")).await;
    // The text stays to be fixed, its line 2 marked, and the verdict's
    // place selects it.
    let kept = c
        .execute("return document.querySelector('textarea').value", vec![])
        .await
        .unwrap();
    assert!(kept.as_str().unwrap().contains("W[b2]"), "{kept}");
    let marked = c
        .find(Locator::Css("#result pre.marked mark"))
        .await
        .expect("the named line is marked");
    assert_eq!(
        marked.attr("data-line").await.unwrap().as_deref(),
        Some("2")
    );
    click(c, "#result button[data-line]").await;
    let selected = c
        .execute(
            "const t = document.querySelector('textarea'); return t.value.slice(t.selectionStart, t.selectionEnd)",
            vec![],
        )
        .await
        .unwrap();
    assert!(selected.as_str().unwrap().contains("W[b2]"), "{selected}");
    no_console_errors(
        c,
        "upload",
        Some("/api/v1/games - Failed to load resource: the server responded with a status of 422"),
    )
    .await;
}

#[test]
fn pages_in_a_real_browser() {
    let Some(bin) = chromedriver() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install chromium-driver (the browser tests would be skipped)"
        );
        println!(
            "note: chromedriver not found: browser tests skipped (apt-get install chromium chromium-driver)"
        );
        return;
    };
    let f = shared();
    let driver = start_driver(&bin);
    let profile = tempfile::tempdir().unwrap();
    let mut args = vec![
        "--headless=new".to_string(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--disable-dev-shm-usage".into(),
        "--hide-scrollbars".into(),
        "--window-size=1280,900".into(),
        format!("--user-data-dir={}", profile.path().display()),
    ];
    if std::env::var_os("KEIL_TEST_DARK").is_some() {
        args.push("--force-dark-mode".into());
    }
    let mut chrome = json!({ "args": args });
    if Path::new("/usr/bin/chromium").is_file() {
        chrome["binary"] = json!("/usr/bin/chromium");
    }
    let mut caps = serde_json::Map::new();
    caps.insert("goog:chromeOptions".into(), chrome);
    caps.insert("goog:loggingPrefs".into(), json!({ "browser": "ALL" }));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(&driver.url)
            .await
            .expect("a WebDriver session");
        home_and_typeahead(&c, &f.base).await;
        list_and_filters(&c, &f.base).await;
        list_player_suggestion_fills(&c, &f.base).await;
        for &(kind, ..) in common::CORPUS {
            viewer_steps(&c, f, kind.code()).await;
        }
        viewer_comments_and_variations(&c, f).await;
        explorer_and_editor(&c, f).await;
        truthful_graphics(&c, &f.base).await;
        pattern_editor(&c, f).await;
        on_a_phone(&c, f).await;
        upload(&c, &f.base).await;
        c.close().await.unwrap();
    });
    println!(
        "browser tests ran; screenshots in {}",
        screenshot_dir().display()
    );
}
