//! Real collections as they are downloaded: a folder of real Go games (the
//! shared sgf-real data, read only) and the same folder as `.zip`,
//! `.tar.gz`, `.tar.xz`, `.7z` and one `.sgf.gz` collection store exactly
//! the same games; a member's refusal names the member.

use std::io::{Cursor, Write};
mod common;

use std::path::Path;

use keil_archive::{Archive, GameFilter, ImportOptions, ImportSource, Page};

/// Up to `n` real `.sgf` files spread over the collection, as (path
/// relative to the collection, bytes); UTF-8 text only, so that they can
/// also be joined into one collection.
fn real_files(n: usize) -> Option<Vec<(String, Vec<u8>)>> {
    let all = common::real_sgf_files()?;
    let root = all[0]
        .ancestors()
        .find(|a| a.ends_with("yenw__computer-go-dataset"))?
        .to_path_buf();
    let step = (all.len() / n).max(1);
    Some(
        all.iter()
            .step_by(step)
            .filter_map(|p| {
                let bytes = std::fs::read(p).unwrap();
                std::str::from_utf8(&bytes).ok()?;
                let rel = p.strip_prefix(&root).unwrap().display().to_string();
                Some((rel, bytes))
            })
            .take(n)
            .collect(),
    )
}

fn zip_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut b = keil_container::Bundle::new(keil_container::BundleFormat::Zip, Vec::new());
    for (name, bytes) in files {
        b.add(name, std::str::from_utf8(bytes).unwrap()).unwrap();
    }
    b.finish().unwrap()
}

fn tar_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, bytes) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, &bytes[..]).unwrap();
    }
    b.into_inner().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn xz(bytes: &[u8]) -> Vec<u8> {
    let mut e =
        lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(1)).unwrap();
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn seven_zip_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut w = sevenz_rust2::ArchiveWriter::new(Cursor::new(Vec::new())).unwrap();
    for (name, bytes) in files {
        w.push_archive_entry(sevenz_rust2::ArchiveEntry::new_file(name), Some(&bytes[..]))
            .unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// The games an import of `source` stores: each game's players, date,
/// result and plies, sorted; with the import's counts.
fn stored(source: &Path) -> (Vec<String>, keil_archive::ImportProgress) {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let report = archive
        .import(
            &[ImportSource::Path(source.to_path_buf())],
            &ImportOptions::default(),
            &mut |_| {},
        )
        .unwrap();
    let list = archive
        .games()
        .list(
            &GameFilter::default(),
            &Page {
                limit: 1000,
                ..Page::default()
            },
        )
        .unwrap();
    let mut games: Vec<String> = list
        .games
        .iter()
        .map(|g| {
            format!(
                "{:?} {:?} {:?} {:?} {}",
                g.black, g.white, g.date, g.result, g.plies
            )
        })
        .collect();
    games.sort();
    (games, report.counts)
}

#[test]
fn a_folder_and_the_same_folder_as_archives_store_the_same_games() {
    let Some(files) = real_files(60) else {
        return;
    };
    assert!(files.len() >= 50, "{}", files.len());
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder");
    for (name, bytes) in &files {
        let p = folder.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let (expected, counts) = stored(&folder);
    assert!(counts.imported >= 45, "{counts:?}");

    let tar = tar_of(&files);
    let joined: Vec<u8> = files
        .iter()
        .flat_map(|(_, b)| b.iter().copied().chain(*b"\n"))
        .collect();
    for (name, bytes) in [
        ("games.zip", zip_of(&files)),
        ("games.tar.gz", gzip(&tar)),
        ("games.tar.xz", xz(&tar)),
        ("games.7z", seven_zip_of(&files)),
        ("all.sgf.gz", gzip(&joined)),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let (games, c) = stored(&path);
        assert_eq!(games, expected, "{name}");
        assert_eq!(
            (c.games_read, c.imported, c.duplicates, c.invalid),
            (
                counts.games_read,
                counts.imported,
                counts.duplicates,
                counts.invalid
            ),
            "{name}"
        );
        if name != "all.sgf.gz" {
            assert_eq!(c.members, files.len() as u64, "{name}");
        }
    }
}

#[test]
fn a_refused_member_is_named_inside_its_archive_and_the_others_import() {
    let dir = tempfile::tempdir().unwrap();
    let files = vec![
        (
            "2019/01/good.sgf".to_string(),
            b"(;GM[1]FF[4]SZ[9]PB[Ke Jie]PW[Gu Li];B[ee];W[cc])".to_vec(),
        ),
        (
            "2019/01/bad.sgf".to_string(),
            b"(;GM[1]FF[4]SZ[9]PB[A]PW[B]\n;B[ee]\n;W[ee])".to_vec(),
        ),
        ("README.txt".to_string(), b"KGS games of 2019".to_vec()),
    ];
    let path = dir.path().join("KGS-2019.tar.gz");
    std::fs::write(&path, gzip(&tar_of(&files))).unwrap();
    let db = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(db.path())).unwrap();
    let report = archive
        .import(
            &[ImportSource::Path(path.clone())],
            &ImportOptions::default(),
            &mut |_| {},
        )
        .unwrap();
    let c = report.counts;
    assert_eq!((c.imported, c.invalid, c.members, c.skipped), (1, 1, 3, 1));
    let p = &report.invalid[0];
    assert_eq!(p.source, format!("{}!2019/01/bad.sgf", path.display()));
    assert_eq!(p.reason, "occupied");
    assert_eq!((p.ply, p.line), (Some(2), Some(3)));
}

#[test]
fn a_bomb_is_refused_and_the_import_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    // 64 MiB of one byte, in a 64 KiB gzip.
    let bomb = dir.path().join("bomb.sgf.gz");
    std::fs::write(&bomb, gzip(&vec![b' '; 64 << 20])).unwrap();
    let good = dir.path().join("good.sgf");
    std::fs::write(&good, "(;GM[1]SZ[9]PB[Ann];B[ee])").unwrap();
    let db = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(db.path())).unwrap();
    let options = ImportOptions {
        limits: keil_container::Limits {
            max_member_bytes: 16 << 20,
            ..keil_container::Limits::default()
        },
        ..ImportOptions::default()
    };
    let report = archive
        .import(
            &[ImportSource::Path(dir.path().to_path_buf())],
            &options,
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(report.counts.imported, 1);
    assert_eq!(report.reasons[keil_container::ARCHIVE_LIMIT], 1);
    assert_eq!(report.invalid[0].source, bomb.display().to_string());
}
