//! An archive on PostgreSQL over TLS: a throwaway cluster
//! offering TLS with a server certificate made here (rcgen) for
//! `localhost` and 127.0.0.1; [`Archive`] opens with a `verify-full` URL
//! naming the CA's file, imports a game and reads it back, and every
//! connection it holds is over TLS (`pg_stat_ssl`, as the server sees
//! it); a URL whose CA did not sign the certificate does not open. The
//! modes one by one are the library's tests (`store/postgres/tls/`).
//! Skips, with a note, where PostgreSQL's server is not installed.

mod common;

use keil_archive::{Archive, GameFilter, ImportOptions, ImportSource, Location, Page};

/// A CA's certificate (PEM) and its issuer.
fn ca(name: &str) -> (String, rcgen::Issuer<'static, rcgen::KeyPair>) {
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::DigitalSignature,
    ];
    let key = rcgen::KeyPair::generate().unwrap();
    let pem = params.self_signed(&key).unwrap().pem();
    (pem, rcgen::Issuer::new(params, key))
}

/// The connections of application `name` to the cluster: how many, and
/// how many of them are over TLS.
fn connections(pg: &keil_testpg::Cluster, name: &str) -> (u64, u64) {
    let out = pg.psql(
        "postgres",
        &format!(
            "SELECT count(*), count(*) FILTER (WHERE s.ssl) FROM pg_stat_activity a \
             JOIN pg_stat_ssl s USING (pid) WHERE a.application_name = '{name}'"
        ),
    );
    let (all, tls) = out.split_once('|').unwrap();
    (all.parse().unwrap(), tls.parse().unwrap())
}

#[test]
fn an_archive_imports_and_reads_a_game_over_verified_tls() {
    let (ca_pem, issuer) = ca("keil test CA");
    let mut params =
        rcgen::CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .unwrap();
    params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = params.signed_by(&key, &issuer).unwrap();
    let Some(pg) = keil_testpg::Cluster::start_tls(&cert.pem(), &key.serialize_pem()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root.pem");
    std::fs::write(&root, &ca_pem).unwrap();
    pg.create_database("keil");
    // A password in the URL (the cluster trusts local connections and does
    // not ask for it): the location's text leaves it out.
    let url = format!(
        "postgresql://postgres:s3cret@127.0.0.1:{}/keil?sslmode=verify-full&sslrootcert={}&application_name=keil-tls",
        pg.port(),
        root.display()
    );
    let location = Location::Postgres {
        url,
        replicas: Vec::new(),
        dir: dir.path().join("node"),
    };
    assert!(!location.to_string().contains("s3cret"), "{location}");

    let archive = Archive::open(location).unwrap();
    let record = common::go_records(1, 7).concat();
    let report = archive
        .import(
            &[ImportSource::Bytes {
                name: "one.sgf".into(),
                bytes: record.clone().into_bytes(),
            }],
            &ImportOptions::default(),
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(report.counts.imported, 1, "{report:?}");
    let list = archive
        .games()
        .list(&GameFilter::default(), &Page::default())
        .unwrap();
    assert_eq!(list.games.len(), 1);
    let game = archive.games().get(list.games[0].id).unwrap().unwrap();
    let black = record
        .split("PB[")
        .nth(1)
        .unwrap()
        .split(']')
        .next()
        .unwrap();
    assert_eq!(game.summary.black.as_deref(), Some(black));
    assert!(!game.moves.moves.is_empty() && game.record.contains(black));

    let (all, tls) = connections(&pg, "keil-tls");
    assert!(all > 0, "the archive holds connections");
    assert_eq!(tls, all, "every connection of the archive is over TLS");
    drop(archive);

    // A CA that did not sign the server's certificate: refused, saying so.
    let (other_pem, _) = ca("keil other CA");
    let other = dir.path().join("other.pem");
    std::fs::write(&other, &other_pem).unwrap();
    let e = Archive::open(Location::Postgres {
        url: format!(
            "postgresql://postgres@127.0.0.1:{}/keil?sslmode=verify-full&sslrootcert={}",
            pg.port(),
            other.display()
        ),
        replicas: Vec::new(),
        dir: dir.path().join("refused"),
    })
    .err()
    .expect("a certificate of another CA is refused")
    .to_string();
    assert!(
        e.contains("not signed by a certificate authority") && e.contains("other.pem"),
        "{e}"
    );
}
