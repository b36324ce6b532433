//! TLS to PostgreSQL: the connection string's `sslmode` and `sslrootcert`
//! honoured as libpq does (PostgreSQL's documentation, "libpq — C
//! Library", section "SSL Support": "Protection Provided in Different
//! Modes" and "Client Verification of Server Certificates").
//!
//! The TLS library is [rustls](https://docs.rs/rustls) with the `ring`
//! crypto provider, joined to the `postgres` client by
//! `tokio-postgres-rustls`: pure Rust (ring's few C and assembly files are
//! built by `cc` from the crate itself), so neither a build machine nor a
//! node needs the system's OpenSSL (no `libssl-dev` to build, no
//! `libssl3` to run), and the crates come from crates.io alone.
//! `postgres-openssl` would have tied every build and every binary to the
//! system's OpenSSL.
//!
//! The `postgres` crate's own parser knows `sslmode` `disable`, `prefer`
//! and `require` only, and neither `verify-ca`, `verify-full` nor
//! `sslrootcert`: [`configure`] takes those two parameters out of the
//! string (the URL form's query, or libpq's `key=value` form), hands the
//! rest to [`postgres::Config`], and builds the TLS connector that does
//! what the mode asks:
//!
//! | `sslmode` | TLS | the server's certificate |
//! | --- | --- | --- |
//! | `disable` | never | — |
//! | `prefer` (the default) | when the server offers it, else plain | checked as `require` does |
//! | `require` | always | not checked; with a root certificate file, its chain is (as `verify-ca`) |
//! | `verify-ca` | always | its chain, against the root certificates |
//! | `verify-full` | always | its chain, and that it names the host connected to |
//!
//! The root certificates are those of `sslrootcert=PATH` (PEM, one or
//! more), else of `~/.postgresql/root.crt` when that file exists (libpq's
//! default). Unlike libpq, a `sslrootcert` that was named and cannot be
//! read is an error in every mode but `disable` (libpq ignores it under
//! `prefer` and `require`): a mistyped path must not turn a check off.
//! As in libpq, a connection over a Unix socket never asks for TLS,
//! whatever the mode (the server offers none there); a host list mixing
//! sockets and TCP hosts takes the mode for all. Two more differences: the host name is matched against the
//! certificate's subjectAltName only (webpki does not read the Common
//! Name, which libpq falls back to), and under `prefer` a handshake that
//! fails is an error (libpq tries again without TLS).
//! libpq's `sslmode=allow`, `sslrootcert=system`, client certificates
//! (`sslcert`, `sslkey`) and certificate revocation lists (`sslcrl`) are
//! not supported: the first two are refused with a message that says so.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::error::{Error, Result};

/// The TLS connector every pooled connection is made with (its
/// `sslmode` set in the [`postgres::Config`] beside it).
pub type Tls = MakeRustlsConnect;

/// libpq's `sslmode` values that this crate supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslMode {
    /// No TLS.
    Disable,
    /// TLS when the server offers it, else plain (libpq's default).
    Prefer,
    /// TLS; the certificate checked only when root certificates are at
    /// hand.
    Require,
    /// TLS; the certificate's chain checked against the root
    /// certificates.
    VerifyCa,
    /// TLS; the chain checked and the host name matched.
    VerifyFull,
}

impl SslMode {
    /// The mode `value` names.
    fn parse(value: &str) -> std::result::Result<SslMode, TlsSetupError> {
        Ok(match value {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            other => return Err(TlsSetupError::Mode(other.to_string())),
        })
    }

    /// Its name in a connection string.
    fn name(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }
}

/// What keeps a connection string's TLS settings from being used.
#[derive(Debug, thiserror::Error)]
pub enum TlsSetupError {
    /// An `sslmode` that is not one of the supported five.
    #[error(
        "sslmode={0:?} is not supported: use disable, prefer (the default), require, verify-ca or verify-full"
    )]
    Mode(String),
    /// `sslrootcert=system` (libpq 16's system trust store).
    #[error(
        "sslrootcert=system is not supported: name a PEM file instead (e.g. sslrootcert=/etc/ssl/certs/ca-certificates.crt)"
    )]
    SystemRoots,
    /// A root certificate file that cannot be read.
    #[error("cannot read the root certificate file (sslrootcert) {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A root certificate file whose PEM does not parse, or holds a
    /// certificate that is not one.
    #[error("the root certificate file (sslrootcert) {} is not PEM certificates: {reason}", .path.display())]
    Pem {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A root certificate file without one certificate.
    #[error("the root certificate file (sslrootcert) {} holds no certificate (PEM \"BEGIN CERTIFICATE\")", .path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// `verify-ca` or `verify-full` without root certificates.
    #[error(
        "sslmode={mode} checks the server's certificate against root certificates, and there are none: \
         add sslrootcert=PATH (a PEM file of the certificate authority) to the connection string, \
         or create {default}"
    )]
    NoRoots {
        /// The mode.
        mode: &'static str,
        /// libpq's default file.
        default: String,
    },
    /// rustls refuses the configuration (no protocol version in common
    /// with the provider: not expected).
    #[error("TLS configuration: {0}")]
    Config(#[from] rustls::Error),
}

impl From<TlsSetupError> for Error {
    fn from(e: TlsSetupError) -> Error {
        crate::error::storage_error("PostgreSQL TLS", e)
    }
}

/// A connection the pool could not make or check, its text holding the
/// whole chain of causes: `r2d2` keeps only the text of the last error,
/// and a `postgres::Error`'s text leaves its cause out ("error performing
/// TLS handshake", without the certificate that was refused).
#[derive(Debug, thiserror::Error)]
#[error("{text}")]
pub struct ConnectError {
    /// The error's text and its causes', joined by ": ".
    text: String,
    /// The error.
    source: postgres::Error,
}

impl From<postgres::Error> for ConnectError {
    fn from(source: postgres::Error) -> ConnectError {
        let mut text = source.to_string();
        let mut cause = std::error::Error::source(&source);
        while let Some(c) = cause {
            text.push_str(": ");
            text.push_str(&c.to_string());
            cause = c.source();
        }
        ConnectError { text, source }
    }
}

/// Why a server's certificate was refused (the cause inside the TLS
/// handshake's error, which names it).
#[derive(Debug, thiserror::Error)]
enum Refused {
    /// The chain does not lead to a root certificate of the file.
    #[error(
        "the server's certificate is not signed by a certificate authority of {roots} \
         (sslmode={mode}): {cause}"
    )]
    Chain {
        /// Where the root certificates came from.
        roots: String,
        /// The mode.
        mode: &'static str,
        /// rustls's reason.
        cause: rustls::Error,
    },
    /// The certificate does not name the host connected to.
    #[error(
        "the server's certificate does not match host name {host:?} (sslmode=verify-full checks the host name; \
         sslmode=verify-ca would not): {cause}"
    )]
    HostName {
        /// The host name (or address) of the connection string.
        host: String,
        /// rustls's reason (with the names the certificate holds).
        cause: rustls::Error,
    },
}

/// The settings of connection string `url` (`postgres://…` or libpq's
/// `key=value` form) and the TLS connector its `sslmode` and
/// `sslrootcert` ask for (see the module's table), as libpq does.
///
/// # Errors
/// A malformed string ([`postgres::Config`]'s error), an unsupported
/// `sslmode`, a root certificate file that cannot be read or holds no
/// PEM certificate (the error names the file), `verify-ca` or
/// `verify-full` without root certificates.
pub fn configure(url: &str) -> Result<(postgres::Config, Tls)> {
    let split = super::conninfo::split(url);
    let mode = match &split.mode {
        Some(m) => SslMode::parse(m)?,
        None => SslMode::Prefer,
    };
    let mut config: postgres::Config = split.rest.parse()?;
    // libpq does not ask for TLS on a Unix socket, whatever the mode.
    let unix_only = !config.get_hosts().is_empty()
        && config
            .get_hosts()
            .iter()
            .all(|h| !matches!(h, postgres::config::Host::Tcp(_)));
    config.ssl_mode(match mode {
        _ if unix_only => postgres::config::SslMode::Disable,
        SslMode::Disable => postgres::config::SslMode::Disable,
        SslMode::Prefer => postgres::config::SslMode::Prefer,
        SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => {
            postgres::config::SslMode::Require
        }
    });
    let roots = match mode {
        // Never used: no TLS.
        SslMode::Disable => None,
        _ => root_certificates(mode, split.rootcert.as_deref())?,
    };
    Ok((config, connector(mode, roots)?))
}

/// The root certificates for `mode`: those of `rootcert` when given,
/// else those of libpq's default file when it exists.
///
/// # Errors
/// `sslrootcert=system`; a file that cannot be read or holds no
/// certificate; `verify-*` without a file.
fn root_certificates(
    mode: SslMode,
    rootcert: Option<&str>,
) -> std::result::Result<Option<Roots>, TlsSetupError> {
    match rootcert {
        Some("system") => Err(TlsSetupError::SystemRoots),
        Some(path) => Roots::read(Path::new(path)).map(Some),
        None => {
            let default = default_root_file();
            match &default {
                Some(file) if file.is_file() => Roots::read(file).map(Some),
                _ if matches!(mode, SslMode::VerifyCa | SslMode::VerifyFull) => {
                    Err(TlsSetupError::NoRoots {
                        mode: mode.name(),
                        default: default.map_or_else(
                            || "~/.postgresql/root.crt".to_string(),
                            |f| f.display().to_string(),
                        ),
                    })
                }
                _ => Ok(None),
            }
        }
    }
}

/// libpq's default root certificate file, `~/.postgresql/root.crt`.
fn default_root_file() -> Option<PathBuf> {
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".postgresql/root.crt"))
}

/// Root certificates and the file they were read from.
#[derive(Debug)]
struct Roots {
    store: Arc<RootCertStore>,
    file: PathBuf,
}

impl Roots {
    /// Reads the PEM certificates of `file`.
    ///
    /// # Errors
    /// The file cannot be read, its PEM does not parse, or it holds no
    /// certificate.
    fn read(file: &Path) -> std::result::Result<Roots, TlsSetupError> {
        let bytes = std::fs::read(file).map_err(|source| TlsSetupError::Read {
            path: file.to_path_buf(),
            source,
        })?;
        let pem = |reason: String| TlsSetupError::Pem {
            path: file.to_path_buf(),
            reason,
        };
        let mut store = RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(&bytes) {
            let cert = cert.map_err(|e| pem(e.to_string()))?;
            store.add(cert).map_err(|e| pem(e.to_string()))?;
        }
        if store.is_empty() {
            return Err(TlsSetupError::Empty {
                path: file.to_path_buf(),
            });
        }
        Ok(Roots {
            store: Arc::new(store),
            file: file.to_path_buf(),
        })
    }
}

/// The connector for `mode` with `roots` (ring's provider, TLS 1.2 and
/// 1.3).
fn connector(mode: SslMode, roots: Option<Roots>) -> std::result::Result<Tls, TlsSetupError> {
    // rustls 0.23.48 deprecates ring's provider for want of post-quantum
    // key exchange (which aws-lc-rs has, at the price of a C library
    // build of its own); the classical groups (X25519, P-256, P-384) are
    // what PostgreSQL's servers offer today.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = Verifier {
        mode,
        roots,
        provider: provider.clone(),
    };
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}

/// Checks a server's certificate as `sslmode` asks: nothing without root
/// certificates (`prefer`, `require`), the chain with them, and the host
/// name under `verify-full`. The handshake's signatures are always
/// checked (the server holds the certificate's key).
#[derive(Debug)]
struct Verifier {
    mode: SslMode,
    roots: Option<Roots>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        let Some(roots) = &self.roots else {
            return Ok(ServerCertVerified::assertion());
        };
        // `Error::Other`, whose text is the refusal's (a
        // `CertificateError::Other` would print it as `Debug`).
        let refused = |r: Refused| rustls::Error::Other(rustls::OtherError(Arc::new(r)));
        let cert = rustls::server::ParsedCertificate::try_from(end_entity)?;
        rustls::client::verify_server_cert_signed_by_trust_anchor(
            &cert,
            &roots.store,
            intermediates,
            now,
            self.provider.signature_verification_algorithms.all,
        )
        .map_err(|cause| {
            refused(Refused::Chain {
                roots: format!("the root certificate file {}", roots.file.display()),
                mode: self.mode.name(),
                cause,
            })
        })?;
        if self.mode == SslMode::VerifyFull {
            rustls::client::verify_server_name(&cert, server_name).map_err(|cause| {
                refused(Refused::HostName {
                    host: server_name.to_str().into_owned(),
                    cause,
                })
            })?;
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests;
