//! `keil backup` and `keil verify`: a consistent copy of an archive's
//! store, and whether a store (a copy restored, or the live one) is sound.
//! The work is the archive's (`Archive::backup`, `Archive::verify`); this
//! module parses flags and prints.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use keil_archive::{Archive, Location};

use crate::archive::Db;

/// Options of `keil backup`.
#[derive(clap::Args, Debug)]
pub struct BackupArgs {
    /// The archive to copy: a directory (a PostgreSQL URL is answered with
    /// the `pg_dump` command that backs it up).
    #[arg(long)]
    pub db: Db,
    /// The new archive directory the copy goes into (created; one that
    /// exists must be empty).
    pub dest: PathBuf,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Options of `keil verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The archive: a directory, or a PostgreSQL URL.
    #[arg(long)]
    pub db: Db,
    /// Print the report as JSON (the exit status is the same).
    #[arg(long)]
    pub json: bool,
}

/// `url` without its password (`user:secret@host` → `user@host`): a
/// command to show, which then takes the password from `~/.pgpass` or
/// `PGPASSWORD`.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let Some(at) = rest.rfind('@') else {
        return url.to_string();
    };
    let (userinfo, host) = rest.split_at(at);
    let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
    format!("{scheme}://{user}{host}")
}

/// Copies the store of an embedded archive into a new directory while
/// servers and imports go on writing; for a PostgreSQL archive, says which
/// command backs it up and fails.
pub fn backup(args: BackupArgs) -> anyhow::Result<()> {
    let location = args.db.location(None);
    if let Location::Postgres { url, .. } = &location {
        let url = without_password(url);
        anyhow::bail!(
            "a PostgreSQL archive is backed up by PostgreSQL's own tools, not by keil backup; run\n\
             \n    pg_dump --format=custom --file={dest} '{url}'\n\n\
             (every table and sequence of the database; restore it into a new database with \
             `createdb NEW && pg_restore --no-owner --dbname=NEW {dest}`, then \
             `keil verify --db postgres://…/NEW`), or pg_basebackup for the whole cluster: \
             docs/operating.md, \"Backups and restores\"",
            dest = args.dest.display()
        );
    }
    let archive = Archive::open_read_only(location)
        .with_context(|| format!("opening archive {}", args.db))?;
    let start = std::time::Instant::now();
    let report = archive
        .backup(&args.dest)
        .with_context(|| format!("backing {} up into {}", args.db, args.dest.display()))?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        outln!(
            "copied {} games ({} bytes) into {} in {:.2} s",
            report.games,
            report.bytes,
            report.store.display(),
            start.elapsed().as_secs_f64()
        )?;
        outln!(
            "check it with `keil verify --db {}`; `keil serve --db {}` serves it (its indexes are rebuilt)",
            args.dest.display(),
            args.dest.display()
        )?;
    }
    Ok(())
}

/// Checks a store and prints what is wrong; fails (exit 1) when anything
/// is, after listing it.
pub fn verify(args: VerifyArgs) -> anyhow::Result<()> {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed} verifying games {pos}/{len}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    let start = std::time::Instant::now();
    let report = keil_archive::verify_at(args.db.location(None), &mut |p| {
        bar.set_length(p.total);
        bar.set_position(p.games);
    })
    .with_context(|| format!("verifying archive {}", args.db))?;
    bar.finish_and_clear();
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        outln!(
            "checked {} games ({} moves replayed), {} pattern blocks and {} position segments \
             in {:.2} s; schema version {}",
            report.games,
            report.moves,
            report.blocks,
            report.segments,
            start.elapsed().as_secs_f64(),
            report.schema_version
        )?;
        for p in &report.problems {
            outln!("{p}")?;
        }
        if report.unlisted > 0 {
            outln!("... and {} more problems", report.unlisted)?;
        }
        if report.is_sound() {
            outln!("sound: no problem found")?;
        }
    }
    if !report.is_sound() {
        anyhow::bail!(
            "archive {} is not sound: {} problems found",
            args.db,
            report.problem_count()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::without_password;

    #[test]
    fn a_command_shows_no_password() {
        assert_eq!(
            without_password("postgres://keil:secret@db:5432/keil"),
            "postgres://keil@db:5432/keil"
        );
        assert_eq!(
            without_password("postgres://keil@db/keil"),
            "postgres://keil@db/keil"
        );
        assert_eq!(without_password("postgres://db/keil"), "postgres://db/keil");
    }
}
