//! The archive and server the page tests share: generated games of every
//! game kind the generator plays (Keil side 7, Go 9×9), a hand-written
//! game whose players are named `<script>…` and `Luis Bolaños`, and the
//! server on a loopback port with an upload token.

#![allow(dead_code)] // Each test binary uses a part.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::Duration;

use keil_archive::{Archive, ImportOptions, ImportSource};
use keil_gen::GeneratorConfig;
use keil_rules::GameKind;
use keil_server::ServerOptions;

/// The upload token of the shared server.
pub const TOKEN: &str = "page-token-47110";

/// A player name that must be shown as text.
pub const EVIL: &str = "<script>alert(1)</script> & \"Eve\"";

/// The hand-written game with [`EVIL`] as Black.
pub fn evil_record() -> String {
    format!(
        "(;GM[Keil]FF[4]CA[UTF-8]SZ[3]KM[0]RU[Keil]PB[{}]PW[Luis Bolaños]DT[2024-03-09]EV[Cup <b>bold</b>]RE[W+18.5]\n;B[a1];W[b2];B[button];W[pass];B[pass])",
        EVIL.replace(']', "\\]")
    )
}

/// A running server over its archive.
pub struct Fixture {
    /// `http://127.0.0.1:port`.
    pub base: String,
    /// The archive.
    pub archive: Arc<Archive>,
    _dir: tempfile::TempDir,
}

/// The games of each kind: `(kind, size, games, seed)`. Every page test
/// and the browser test's viewer steps run once per entry: a new game kind
/// is covered by adding its line here.
pub const CORPUS: &[(GameKind, u8, u64, u64)] = &[
    (GameKind::Keil, 7, 60, 11),
    (GameKind::Go, 9, 40, 12),
    (GameKind::Kaomi, 7, 40, 13),
];

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

/// A new archive with [`CORPUS`] and the evil game, served on 127.0.0.1.
pub fn start() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let archive = Arc::new(Archive::open(dir.path()).unwrap());
    for &(game, size, games, seed) in CORPUS {
        let mut out = Vec::new();
        let config = GeneratorConfig {
            game,
            games,
            size,
            seed,
            ..GeneratorConfig::default()
        };
        keil_gen::write_collection(config, &mut out).unwrap();
        import(&archive, game.code(), out);
    }
    import(&archive, "evil", evil_record().into_bytes());
    let options = ServerOptions {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        token: Some(TOKEN.into()),
        workers: Some(2),
        rate_limits: keil_server::limits::RateLimits::off(),
        ..ServerOptions::new(Arc::clone(&archive))
    };
    let addr = serve(options);
    Fixture {
        base: format!("http://{addr}"),
        archive,
        _dir: dir,
    }
}

/// The server shared by the tests of one binary.
pub fn shared() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(start)
}

/// Percent-encodes a query value.
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The first game id of a kind.
pub fn first_game(f: &Fixture, kind: &str) -> (i64, u32) {
    let filter = keil_archive::GameFilter {
        kind: Some(kind.parse().unwrap()),
        ..Default::default()
    };
    let page = keil_archive::Page {
        order: keil_archive::Order::Ascending,
        limit: 50,
        after: None,
        before: None,
    };
    let list = f.archive.games().list(&filter, &page).unwrap();
    let g = list.games.iter().max_by_key(|g| g.plies).unwrap();
    (g.id.to_string().parse().unwrap(), g.plies)
}

/// Serves `options` on its own actix system in a background thread (the
/// address has port 0 in tests) and returns the address it listens on.
pub fn serve(options: ServerOptions) -> SocketAddr {
    serve_all(options)[0]
}

/// [`serve`], returning every address: the public one, then the metrics
/// listener's when `metrics_addr` is set.
pub fn serve_all(options: ServerOptions) -> Vec<SocketAddr> {
    let (send, receive) = std::sync::mpsc::channel();
    thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let (server, addrs) = keil_server::bind(options).unwrap();
            send.send(addrs).unwrap();
            server.await
        })
    });
    receive.recv_timeout(Duration::from_secs(30)).unwrap()
}

/// An HTTP client that returns error statuses as answers and gives up
/// after 120 s: a hung server fails the test instead of the CI run.
pub fn agent() -> ureq::Agent {
    agent_with(Duration::from_secs(120))
}

/// [`agent`] with its own time limit for a whole request.
pub fn agent_with(limit: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(limit))
        .build()
        .new_agent()
}
