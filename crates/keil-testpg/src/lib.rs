//! Throwaway PostgreSQL clusters for tests ("tests start their
//! own throwaway PostgreSQL cluster, never a mock").
//!
//! [`Cluster::start`] runs `initdb` and `pg_ctl` of the system's PostgreSQL
//! server package (found on `PATH`, else under Debian's
//! `/usr/lib/postgresql/<version>/bin`, the highest version) on a free
//! loopback port, in a temporary directory that is deleted when the
//! cluster is dropped. When the process runs as root (CI containers), the
//! server runs as the `postgres` user, which `initdb` requires, and the
//! cluster lives under `/tmp` so that the user can reach it. On a machine
//! without the server binaries, [`Cluster::start`] returns `None` and says
//! so on stderr: the tests that need one skip.
//!
//! [`Cluster::start_tls`] starts one that also offers TLS, with a server
//! certificate and key the test made.
//!
//! The cluster trusts local connections (`initdb -A trust`) and runs with
//! `fsync = off`: a committed transaction still survives the server's
//! crash (`pg_ctl stop -m immediate`, [`Cluster::crash`]), not the
//! machine's.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A running throwaway cluster; stopped (immediately) and deleted on drop.
#[derive(Debug)]
pub struct Cluster {
    /// Holds the data directory; deleted on drop.
    root: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    /// Run the server's programs as the `postgres` user (this process is
    /// root).
    as_postgres: bool,
}

/// The superuser every cluster is created with.
pub const SUPERUSER: &str = "postgres";

impl Cluster {
    /// Creates and starts a cluster, or `None` when PostgreSQL's server
    /// binaries are not installed (a note on stderr names what was looked
    /// for).
    ///
    /// # Panics
    /// When the binaries are there but `initdb` or `pg_ctl start` fails
    /// (with their output): a test machine that should run PostgreSQL and
    /// cannot must fail, not skip.
    pub fn start() -> Option<Cluster> {
        Cluster::start_with(None)
    }

    /// Creates and starts a cluster that offers TLS (`ssl = on`) with the
    /// server certificate `cert_pem` (PEM, the certificate then any
    /// intermediates) and its private key `key_pem` (PEM), written to the
    /// data directory as `server.crt` and `server.key` (mode 0600, the
    /// server's user's). Plain connections are still accepted (the
    /// cluster's `pg_hba.conf` has `host` lines): a client chooses with its
    /// `sslmode`. `None` as [`Cluster::start`] says.
    ///
    /// # Panics
    /// As [`Cluster::start`]; also when the server refuses the certificate
    /// or key (`pg_ctl start` fails, with the server's log).
    pub fn start_tls(cert_pem: &str, key_pem: &str) -> Option<Cluster> {
        Cluster::start_with(Some((cert_pem, key_pem)))
    }

    /// [`Cluster::start`], with TLS when `tls` holds a certificate and key
    /// (PEM).
    fn start_with(tls: Option<(&str, &str)>) -> Option<Cluster> {
        let Some(bin) = server_binaries() else {
            eprintln!(
                "note: no PostgreSQL server binaries (initdb, pg_ctl on PATH or under \
                 /usr/lib/postgresql/*/bin): the PostgreSQL tests skip; install Debian's \
                 `postgresql` package to run them"
            );
            return None;
        };
        let mut cluster = Cluster::empty(bin, is_root(), "keil-pg-");
        let data = cluster.data_dir();
        let args = [
            "-D",
            path_str(&data),
            "-U",
            SUPERUSER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ];
        cluster.run_ok("initdb", &args);
        let conf = format!(
            "\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{}'\n\
             fsync = off\nfull_page_writes = off\nmax_connections = 200\n\
             wal_level = replica\nmax_wal_senders = 4\n",
            path_str(&data)
        );
        append(&data.join("postgresql.conf"), &conf);
        if let Some((cert, key)) = tls {
            cluster.write_private(&data.join("server.crt"), cert);
            cluster.write_private(&data.join("server.key"), key);
            append(
                &data.join("postgresql.conf"),
                "ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n",
            );
        }
        cluster.start_on_a_free_port();
        Some(cluster)
    }

    /// Keeps this cluster until the test process exits, as
    /// [`Cluster::shared`]'s is kept (a watchdog stops it and deletes its
    /// directory then): for a test binary's own shared clusters, in
    /// statics, which are never dropped.
    pub fn keep_until_exit(self) -> &'static Cluster {
        self.watch(std::process::id());
        Box::leak(Box::new(self))
    }

    /// One cluster for the whole test process, started at the first call
    /// (`None` as [`Cluster::start`] says). A static is never dropped, so
    /// a watchdog (a shell loop) stops the server immediately and deletes
    /// its directory once this process has exited.
    pub fn shared() -> Option<&'static Cluster> {
        static SHARED: std::sync::OnceLock<Option<Cluster>> = std::sync::OnceLock::new();
        SHARED
            .get_or_init(|| {
                let cluster = Cluster::start()?;
                cluster.watch(std::process::id());
                Some(cluster)
            })
            .as_ref()
    }

    /// Starts the watchdog of [`Cluster::shared`] for process `pid`.
    fn watch(&self, pid: u32) {
        let pg_ctl = self.bin.join("pg_ctl");
        let pg_ctl = if pg_ctl.is_file() {
            pg_ctl.to_string_lossy().into_owned()
        } else {
            "pg_ctl".to_string()
        };
        let runas = if self.as_postgres {
            format!("runuser -u {SUPERUSER} -- ")
        } else {
            String::new()
        };
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 1; done; \
             {runas}'{pg_ctl}' stop -D '{}' -m immediate >/dev/null 2>&1; rm -rf '{}'",
            path_str(&self.data_dir()),
            path_str(self.root.path())
        );
        // Outlives this process on purpose: never waited for.
        #[allow(clippy::zombie_processes)]
        Command::new("sh")
            .args(["-c", &script])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the cluster's watchdog starts");
    }

    /// A hot standby of this cluster: `pg_basebackup -R` (streaming
    /// replication from this cluster, `standby.signal` written) into a new
    /// temporary directory, started on its own free port. It replays what
    /// this cluster commits and answers reads only.
    ///
    /// # Panics
    /// When `pg_basebackup` or `pg_ctl start` fails.
    pub fn standby(&self) -> Cluster {
        let mut standby = Cluster::empty(self.bin.clone(), self.as_postgres, "keil-pg-standby-");
        let data = standby.data_dir();
        self.client(
            "pg_basebackup",
            &[
                "-D",
                path_str(&data),
                "-R",
                "-X",
                "stream",
                // An immediate checkpoint, not a spread one (minutes).
                "-c",
                "fast",
                "--no-sync",
            ],
        );
        // The copied configuration names the primary's socket directory.
        append(
            &data.join("postgresql.conf"),
            &format!(
                "\nunix_socket_directories = '{}'\nhot_standby = on\n",
                path_str(&data)
            ),
        );
        standby.start_on_a_free_port();
        standby
    }

    /// Creates database `name` unless this cluster already has it; returns
    /// its URL.
    ///
    /// # Panics
    /// When `psql` fails.
    pub fn ensure_database(&self, name: &str) -> String {
        let found = self.psql(
            SUPERUSER,
            &format!("SELECT 1 FROM pg_database WHERE datname = '{name}'"),
        );
        if found.is_empty() {
            self.create_database(name);
        }
        self.url(name)
    }

    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The directory of its Unix socket (`host=` of a connection over the
    /// socket; the port names the socket file in it).
    pub fn socket_dir(&self) -> PathBuf {
        self.data_dir()
    }

    /// A connection URL for database `db` as the superuser
    /// (`postgres://postgres@127.0.0.1:PORT/db`).
    pub fn url(&self, db: &str) -> String {
        format!("postgres://{SUPERUSER}@127.0.0.1:{}/{db}", self.port)
    }

    /// Creates database `name` (UTF-8) and returns its URL.
    ///
    /// # Panics
    /// When `createdb` fails.
    pub fn create_database(&self, name: &str) -> String {
        self.client("createdb", &[name]);
        self.url(name)
    }

    /// Runs one SQL statement with `psql` on database `db` and returns
    /// its output, unaligned and without headers (`psql -Atc`).
    ///
    /// # Panics
    /// When `psql` fails.
    pub fn psql(&self, db: &str, sql: &str) -> String {
        let out = self.client("psql", &["-d", db, "-v", "ON_ERROR_STOP=1", "-Atc", sql]);
        String::from_utf8_lossy(&out.stdout).trim_end().to_string()
    }

    /// Dumps database `db` with `pg_dump --format=custom` (what
    /// docs/operating.md's backups run) into a file in the cluster's
    /// directory, and returns the file's path.
    ///
    /// # Panics
    /// When `pg_dump` fails.
    pub fn dump(&self, db: &str) -> PathBuf {
        let file = self.root.path().join(format!("{db}.dump"));
        self.client(
            "pg_dump",
            &["--format=custom", "--file", path_str(&file), "--dbname", db],
        );
        file
    }

    /// Restores `dump` (from [`Cluster::dump`]) into the existing, empty
    /// database `db` with `pg_restore --no-owner`.
    ///
    /// # Panics
    /// When `pg_restore` fails.
    pub fn restore(&self, dump: &Path, db: &str) {
        self.client(
            "pg_restore",
            &[
                "--no-owner",
                "--exit-on-error",
                "--dbname",
                db,
                path_str(dump),
            ],
        );
    }

    /// Stops the server as a crash would (`pg_ctl stop -m immediate`: no
    /// checkpoint, the processes killed; the next start replays the
    /// write-ahead log).
    ///
    /// # Panics
    /// When `pg_ctl stop` fails.
    pub fn crash(&self) {
        self.run_ok(
            "pg_ctl",
            &["stop", "-D", path_str(&self.data_dir()), "-m", "immediate"],
        );
    }

    /// Starts the server again after [`Cluster::crash`], on the same port.
    ///
    /// # Panics
    /// When `pg_ctl start` fails.
    pub fn restart(&self) {
        let out = self.pg_ctl_start();
        assert!(
            out.status.success(),
            "pg_ctl start failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A cluster not yet made: its temporary directory (under `/tmp` and
    /// given to the `postgres` user when `as_postgres`), no port yet.
    fn empty(bin: PathBuf, as_postgres: bool, prefix: &str) -> Cluster {
        let mut builder = tempfile::Builder::new();
        builder.prefix(prefix);
        let root = if as_postgres {
            builder.tempdir_in("/tmp")
        } else {
            builder.tempdir()
        }
        .expect("a temporary directory for the cluster");
        let cluster = Cluster {
            root,
            bin,
            port: 0,
            as_postgres,
        };
        if as_postgres {
            cluster.give_to_postgres();
        }
        cluster
    }

    /// Starts the server on a free port: one bound and let go, which
    /// another process may take before the server does, so the start is
    /// tried up to five times.
    ///
    /// # Panics
    /// When the fifth start fails (with `pg_ctl`'s output and the log).
    fn start_on_a_free_port(&mut self) {
        for attempt in 0..5 {
            self.port = free_port();
            let out = self.pg_ctl_start();
            if out.status.success() {
                return;
            }
            assert!(
                attempt < 4,
                "pg_ctl start failed: {}\n{}\nlog: {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
                std::fs::read_to_string(self.log_file()).unwrap_or_default()
            );
        }
    }

    /// Runs client program `name` of the server package against this
    /// cluster (`-h 127.0.0.1 -p PORT -U postgres`, then `args`).
    ///
    /// # Panics
    /// When it fails.
    fn client(&self, name: &str, args: &[&str]) -> Output {
        let port = self.port.to_string();
        let mut all = vec!["-h", "127.0.0.1", "-p", &port, "-U", SUPERUSER];
        all.extend_from_slice(args);
        self.run_ok(name, &all)
    }

    fn data_dir(&self) -> PathBuf {
        self.root.path().join("data")
    }

    fn log_file(&self) -> PathBuf {
        self.root.path().join("server.log")
    }

    /// Starts the server on [`Cluster::port`] (given on the command line,
    /// so that a retry on another port rewrites no configuration).
    fn pg_ctl_start(&self) -> Output {
        let (data, log) = (self.data_dir(), self.log_file());
        let port = format!("-p {}", self.port);
        self.run(
            "pg_ctl",
            &[
                "start",
                "-w",
                "-t",
                "60",
                "-D",
                path_str(&data),
                "-l",
                path_str(&log),
                "-o",
                &port,
            ],
        )
    }

    /// Writes `text` to `file`, readable by its owner only (the server's
    /// user: `postgres` when this process is root), as the server wants
    /// its key.
    fn write_private(&self, file: &Path, text: &str) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(file, text)
            .and_then(|()| std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600)))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", file.display()));
        if self.as_postgres {
            let status = Command::new("chown")
                .arg(format!("{SUPERUSER}:"))
                .arg(file)
                .status()
                .expect("chown runs");
            assert!(status.success(), "chown of {} failed", file.display());
        }
    }

    /// Makes the temporary directory the `postgres` user's.
    fn give_to_postgres(&self) {
        let status = Command::new("chown")
            .arg(format!("{SUPERUSER}:"))
            .arg(self.root.path())
            .status()
            .expect("chown runs");
        assert!(status.success(), "chown of the cluster's directory failed");
    }

    /// Runs the server package's program `name` (as the `postgres` user
    /// when this process is root).
    fn run(&self, name: &str, args: &[&str]) -> Output {
        let program = self.bin.join(name);
        let program = if program.is_file() {
            program
        } else {
            PathBuf::from(name)
        };
        let mut cmd = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", SUPERUSER, "--"]).arg(&program);
            c
        } else {
            Command::new(&program)
        };
        cmd.args(args)
            .env("LC_ALL", "C")
            .env("PGCONNECT_TIMEOUT", "10")
            .current_dir(self.root.path())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()))
    }

    fn run_ok(&self, name: &str, args: &[&str]) -> Output {
        let out = self.run(name, args);
        assert!(
            out.status.success(),
            "{name} {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.port != 0 {
            let _ = self.run(
                "pg_ctl",
                &["stop", "-D", path_str(&self.data_dir()), "-m", "immediate"],
            );
        }
    }
}

/// The directory of `initdb` and `pg_ctl`: on `PATH`, else the highest
/// version under `/usr/lib/postgresql/*/bin` (Debian keeps them off
/// `PATH`).
fn server_binaries() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .find(|d| d.join("initdb").is_file() && d.join("pg_ctl").is_file())
    });
    if let Some(dir) = on_path {
        // Debian links them from /usr/local/bin or the like: the server's
        // own directory holds the rest (postgres, createdb, psql).
        let initdb = std::fs::canonicalize(dir.join("initdb")).ok()?;
        return initdb.parent().map(Path::to_path_buf);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            (bin.join("initdb").is_file() && bin.join("pg_ctl").is_file()).then_some((v, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

fn append(file: &Path, text: &str) {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(file)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .unwrap_or_else(|e| panic!("cannot append to {}: {e}", file.display()));
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("temporary paths are UTF-8")
}

#[cfg(test)]
mod tests {
    use super::Cluster;

    #[test]
    fn a_cluster_starts_answers_survives_a_crash_and_stops() {
        let Some(pg) = Cluster::start() else {
            return;
        };
        let url = pg.create_database("keil_test");
        assert!(url.ends_with(&format!(":{}/keil_test", pg.port())));
        pg.psql(
            "keil_test",
            "CREATE TABLE t (x int); INSERT INTO t VALUES (7)",
        );
        pg.crash();
        pg.restart();
        assert_eq!(pg.psql("keil_test", "SELECT sum(x) FROM t"), "7");
        let port = pg.port();
        drop(pg);
        assert!(
            std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
            "stopped on drop"
        );
    }

    #[test]
    fn a_tls_cluster_serves_tls_and_plain_connections() {
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        let Some(pg) = Cluster::start_tls(&cert.pem(), &key.serialize_pem()) else {
            return;
        };
        let ssl = "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()";
        assert_eq!(pg.psql("postgres", "SHOW ssl"), "on");
        assert_eq!(pg.psql("dbname=postgres sslmode=require", ssl), "t");
        assert_eq!(pg.psql("dbname=postgres sslmode=disable", ssl), "f");
    }
}
