#[test]
fn bad_settings_are_refused_with_what_to_do() {
    let err = |url: &str| super::configure(url).err().unwrap().to_string();
    assert!(err("postgres://db/k?sslmode=allow").contains("sslmode=\"allow\" is not supported"));
    assert!(err("postgres://db/k?sslmode=require&sslrootcert=system").contains("system"));
    let missing = "/nonexistent/keil-root.pem";
    let e = err(&format!(
        "postgres://db/k?sslmode=verify-full&sslrootcert={missing}"
    ));
    assert!(e.contains(missing) && e.contains("sslrootcert"), "{e}");
    // Named and missing: an error even where libpq would go on.
    assert!(
        err(&format!(
            "postgres://db/k?sslmode=require&sslrootcert={missing}"
        ))
        .contains(missing)
    );
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "not a certificate\n").unwrap();
    let e = err(&format!(
        "postgres://db/k?sslmode=verify-ca&sslrootcert={}",
        empty.display()
    ));
    assert!(
        e.contains("holds no certificate") && e.contains("empty.pem"),
        "{e}"
    );
    // verify-* without root certificates (libpq's default file absent).
    if !super::default_root_file().is_some_and(|f| f.exists()) {
        let e = err("postgres://db/k?sslmode=verify-full");
        assert!(e.contains("add sslrootcert=PATH"), "{e}");
        assert!(super::configure("postgres://db/k?sslmode=require").is_ok());
    }
    // Disabled: the file is not read.
    assert!(
        super::configure(&format!(
            "postgres://db/k?sslmode=disable&sslrootcert={missing}"
        ))
        .is_ok()
    );
}

// Against throwaway clusters (keil-testpg) that offer TLS with certificates
// made here (rcgen): each test skips, with keil-testpg's note, where
// PostgreSQL's server is not installed.

use std::sync::OnceLock;
use std::time::Duration;

use keil_testpg::Cluster;

use super::super::Pool;
use crate::sql::Conn;

/// A certificate authority: its certificate (PEM) and what signs with it.
struct Ca {
    pem: String,
    issuer: rcgen::Issuer<'static, rcgen::KeyPair>,
}

impl Ca {
    fn new(name: &str) -> Ca {
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, name);
        params.key_usages = vec![
            rcgen::KeyUsagePurpose::KeyCertSign,
            rcgen::KeyUsagePurpose::CrlSign,
            rcgen::KeyUsagePurpose::DigitalSignature,
        ];
        let key = rcgen::KeyPair::generate().unwrap();
        let pem = params.self_signed(&key).unwrap().pem();
        Ca {
            pem,
            issuer: rcgen::Issuer::new(params, key),
        }
    }

    /// A server certificate for `names` (host names or addresses) and its
    /// key, PEM.
    fn server(&self, names: &[&str]) -> (String, String) {
        let mut params =
            rcgen::CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
                .unwrap();
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, names[0]);
        params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

/// The test CA that signs the clusters' certificates.
fn ca() -> &'static Ca {
    static CA: OnceLock<Ca> = OnceLock::new();
    CA.get_or_init(|| Ca::new("keil test CA"))
}

/// Another CA, which signed none of them.
fn other_ca() -> &'static Ca {
    static CA: OnceLock<Ca> = OnceLock::new();
    CA.get_or_init(|| Ca::new("keil other CA"))
}

/// A cluster offering TLS with a certificate of [`ca`] for `localhost`
/// and 127.0.0.1 (what the tests connect to).
fn tls_cluster() -> Option<&'static Cluster> {
    static CLUSTER: OnceLock<Option<&'static Cluster>> = OnceLock::new();
    *CLUSTER.get_or_init(|| {
        let (cert, key) = ca().server(&["localhost", "127.0.0.1"]);
        Some(Cluster::start_tls(&cert, &key)?.keep_until_exit())
    })
}

/// A cluster offering TLS with a certificate of [`ca`] for another host
/// (`db.elsewhere.example`) only.
fn elsewhere_cluster() -> Option<&'static Cluster> {
    static CLUSTER: OnceLock<Option<&'static Cluster>> = OnceLock::new();
    *CLUSTER.get_or_init(|| {
        let (cert, key) = ca().server(&["db.elsewhere.example"]);
        Some(Cluster::start_tls(&cert, &key)?.keep_until_exit())
    })
}

/// A cluster without TLS.
fn plain_cluster() -> Option<&'static Cluster> {
    static CLUSTER: OnceLock<Option<&'static Cluster>> = OnceLock::new();
    *CLUSTER.get_or_init(|| Some(Cluster::start()?.keep_until_exit()))
}

/// `ca`'s certificate in a file of `dir`.
fn ca_file(dir: &tempfile::TempDir, ca: &Ca) -> String {
    let file = dir.path().join("root.pem");
    std::fs::write(&file, &ca.pem).unwrap();
    file.to_str().unwrap().to_string()
}

/// Connects with `url` (its TLS parameters appended: `query`) and says
/// whether the session is over TLS, as the server sees it.
fn ssl_of(cluster: &Cluster, query: &str) -> crate::error::Result<bool> {
    let url = format!("{}?{query}", cluster.url("postgres"));
    let pool = Pool::connect(&url, Duration::from_secs(3))?;
    let session = pool.session()?;
    Conn::Postgres(&session).value(
        "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
        &[],
    )
}

#[test]
fn require_connects_over_tls_without_checking_the_certificate() {
    let Some(pg) = tls_cluster() else { return };
    assert!(ssl_of(pg, "sslmode=require").unwrap(), "TLS");
    // No certificate check: even the other host's certificate will do.
    let Some(elsewhere) = elsewhere_cluster() else {
        return;
    };
    assert!(ssl_of(elsewhere, "sslmode=require").unwrap());
}

#[test]
fn require_with_a_root_file_checks_the_chain_as_verify_ca() {
    let Some(pg) = tls_cluster() else { return };
    let dir = tempfile::tempdir().unwrap();
    let wrong = ca_file(&dir, other_ca());
    let e = ssl_of(pg, &format!("sslmode=require&sslrootcert={wrong}"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("not signed by a certificate authority of"),
        "{e}"
    );
}

#[test]
fn verify_full_with_the_right_ca_connects_over_tls() {
    let Some(pg) = tls_cluster() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = ca_file(&dir, ca());
    assert!(ssl_of(pg, &format!("sslmode=verify-full&sslrootcert={root}")).unwrap());
    assert!(ssl_of(pg, &format!("sslmode=verify-ca&sslrootcert={root}")).unwrap());
}

#[test]
fn verify_full_refuses_a_certificate_for_another_host_name() {
    let Some(pg) = elsewhere_cluster() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = ca_file(&dir, ca());
    let e = ssl_of(pg, &format!("sslmode=verify-full&sslrootcert={root}"))
        .unwrap_err()
        .to_string();
    println!("refused, as it should be: {e}");
    assert!(
        e.contains("does not match host name \"127.0.0.1\"") && e.contains("db.elsewhere.example"),
        "{e}"
    );
    // verify-ca checks the chain only: the same certificate will do.
    assert!(ssl_of(pg, &format!("sslmode=verify-ca&sslrootcert={root}")).unwrap());
}

#[test]
fn verify_ca_refuses_a_certificate_of_another_ca() {
    let Some(pg) = tls_cluster() else { return };
    let dir = tempfile::tempdir().unwrap();
    let wrong = ca_file(&dir, other_ca());
    for mode in ["verify-ca", "verify-full"] {
        let e = ssl_of(pg, &format!("sslmode={mode}&sslrootcert={wrong}"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not signed by a certificate authority of the root certificate file")
                && e.contains(&wrong)
                && e.contains(&format!("sslmode={mode}")),
            "{e}"
        );
    }
}

#[test]
fn disable_connects_without_tls_to_a_tls_server() {
    let Some(pg) = tls_cluster() else { return };
    assert!(!ssl_of(pg, "sslmode=disable").unwrap(), "plain");
}

#[test]
fn prefer_takes_tls_when_offered_and_plain_when_not() {
    let Some(pg) = tls_cluster() else { return };
    assert!(ssl_of(pg, "sslmode=prefer").unwrap(), "TLS when offered");
    // The default is prefer.
    assert!(ssl_of(pg, "application_name=keil").unwrap(), "the default");
    let Some(plain) = plain_cluster() else { return };
    assert!(!ssl_of(plain, "sslmode=prefer").unwrap(), "plain when not");
    let e = ssl_of(plain, "sslmode=require").unwrap_err().to_string();
    assert!(e.contains("TLS"), "require refuses a plain server: {e}");
}

#[test]
fn the_key_value_form_carries_the_tls_parameters_too() {
    let Some(pg) = tls_cluster() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = ca_file(&dir, ca());
    let url = format!(
        "host=localhost port={} user=postgres dbname=postgres sslmode=verify-full sslrootcert='{root}'",
        pg.port()
    );
    let pool = Pool::connect(&url, Duration::from_secs(3)).unwrap();
    let session = pool.session().unwrap();
    let ssl: bool = Conn::Postgres(&session)
        .value(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .unwrap();
    assert!(ssl);
}

#[test]
fn a_unix_socket_never_asks_for_tls_as_in_libpq() {
    let Some(pg) = tls_cluster() else { return };
    for mode in ["require", "verify-full"] {
        let dir = tempfile::tempdir().unwrap();
        let root = ca_file(&dir, ca());
        let url = format!(
            "host={} port={} user=postgres dbname=postgres sslmode={mode} sslrootcert={root}",
            pg.socket_dir().display(),
            pg.port()
        );
        let pool = Pool::connect(&url, Duration::from_secs(3)).unwrap();
        let session = pool.session().unwrap();
        let ssl: bool = Conn::Postgres(&session)
            .value(
                "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                &[],
            )
            .unwrap();
        assert!(!ssl, "{mode}: plain over the socket");
    }
}
