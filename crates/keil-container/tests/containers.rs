//! Every container kind, made here with the writers of the same crates,
//! expanded into the same members; bombs and broken containers refused
//! with their reason.

use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};

use keil_container::{ARCHIVE_LIMIT, BAD_CONTAINER, Expander, Limits, Member, SEPARATOR};

const A: &str = "(;GM[1]FF[4]SZ[9]PB[Ke Jie]PW[AlphaGo];B[ee];W[cc])";
const B: &str = "(;GM[1]FF[4]SZ[9]PB[Lee Sedol]PW[AlphaGo];B[dd])\n(;GM[1]SZ[9];B[ff])\n";

/// The files every archive holds: two record files (one in a folder), a
/// text file without records and binary data (both skipped).
fn files() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("a.sgf", A.as_bytes().to_vec()),
        ("dir/b.txt", B.as_bytes().to_vec()),
        ("README", b"Games of 2019, one per file.".to_vec()),
        ("logo.png", vec![0x89, b'P', b'N', b'G', 0, 0, 1, 2, 3]),
    ]
}

fn is_record_file(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "sgf")
}

fn zip_of(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    w.add_directory("dir/", options).unwrap();
    for (name, bytes) in files {
        w.start_file(*name, options).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn tar_of(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
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

fn bzip2(bytes: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn xz(bytes: &[u8]) -> Vec<u8> {
    let mut e =
        lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(1)).unwrap();
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::stream::encode_all(bytes, 1).unwrap()
}

fn seven_zip_of(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut w = sevenz_rust2::ArchiveWriter::new(Cursor::new(Vec::new())).unwrap();
    for (name, bytes) in files {
        w.push_archive_entry(sevenz_rust2::ArchiveEntry::new_file(name), Some(&bytes[..]))
            .unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// What an expander handed on: (name, bytes) of members in memory, the
/// files, the problems (name, reason).
#[derive(Debug, Default)]
struct Seen {
    bytes: Vec<(String, Vec<u8>)>,
    files: Vec<PathBuf>,
    problems: Vec<(String, &'static str, String)>,
}

fn expand(path: &Path, limits: Limits) -> (Seen, Expander) {
    let x = Expander::new(limits, is_record_file);
    let mut seen = Seen::default();
    let go = x
        .expand_path(path, &mut |m| {
            match m {
                Member::File(p) => seen.files.push(p),
                Member::Bytes { name, bytes } => seen.bytes.push((name, bytes)),
                Member::Problem(p) => seen.problems.push((p.name, p.reason, p.message)),
            }
            true
        })
        .unwrap();
    assert!(go);
    (seen, x)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, bytes).unwrap();
    p
}

/// The two record members, named inside `container`.
fn expected(container: &Path) -> Vec<(String, Vec<u8>)> {
    let c = container.display();
    vec![
        (format!("{c}{SEPARATOR}a.sgf"), A.as_bytes().to_vec()),
        (format!("{c}{SEPARATOR}dir/b.txt"), B.as_bytes().to_vec()),
    ]
}

#[test]
fn every_archive_kind_gives_the_same_members() {
    let dir = tempfile::tempdir().unwrap();
    let tar = tar_of(&files());
    let kinds: Vec<(&str, Vec<u8>)> = vec![
        ("x.zip", zip_of(&files())),
        ("x.tar", tar.clone()),
        ("x.tar.gz", gzip(&tar)),
        ("x.tgz", gzip(&tar)),
        ("x.tar.bz2", bzip2(&tar)),
        ("x.tar.xz", xz(&tar)),
        ("x.tar.zst", zstd(&tar)),
        ("x.7z", seven_zip_of(&files())),
        // Named by content alone: a zip without its extension.
        ("download", zip_of(&files())),
    ];
    for (name, bytes) in kinds {
        let path = write(dir.path(), name, &bytes);
        let (seen, x) = expand(&path, Limits::default());
        assert_eq!(seen.bytes, expected(&path), "{name}");
        assert!(seen.problems.is_empty(), "{name}: {:?}", seen.problems);
        assert_eq!(x.skipped(), 2, "{name}: README and logo.png");
        assert_eq!(x.members(), 4, "{name}");
    }
}

#[test]
fn split_seven_zip_volumes_are_read_from_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let whole = seven_zip_of(&files());
    let third = whole.len() / 3 + 1;
    for (i, part) in whole.chunks(third).enumerate() {
        write(dir.path(), &format!("fox.7z.{:03}", i + 1), part);
    }
    let first = dir.path().join("fox.7z.001");
    let (seen, _) = expand(&first, Limits::default());
    assert_eq!(seen.bytes, expected(&first));
    // A missing middle volume: the archive cannot be read, and says so.
    std::fs::remove_file(dir.path().join("fox.7z.002")).unwrap();
    let (seen, _) = expand(&first, Limits::default());
    assert!(seen.bytes.len() < 2);
    assert_eq!(seen.problems.len(), 1, "{:?}", seen.problems);
    assert_eq!(seen.problems[0].1, BAD_CONTAINER);
}

#[test]
fn a_compressed_collection_is_one_member_under_its_own_name() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        ("all.sgf.gz", gzip(B.as_bytes())),
        ("all.sgf.bz2", bzip2(B.as_bytes())),
        ("all.sgf.xz", xz(B.as_bytes())),
        ("all.sgf.zst", zstd(B.as_bytes())),
    ] {
        let path = write(dir.path(), name, &bytes);
        let (seen, _) = expand(&path, Limits::default());
        assert_eq!(
            seen.bytes,
            vec![(path.display().to_string(), B.as_bytes().to_vec())]
        );
    }
}

#[test]
fn containers_nest_and_name_every_level() {
    let dir = tempfile::tempdir().unwrap();
    let inner = gzip(&tar_of(&[("c.sgf", A.as_bytes().to_vec())]));
    let outer = zip_of(&[("inner.tar.gz", inner)]);
    write(dir.path(), "2019/outer.zip", &outer);
    write(dir.path(), "2019/d.sgf", A.as_bytes());
    write(dir.path(), "notes.txt", b"no games here");
    write(dir.path(), "games.txt", B.as_bytes());
    let (seen, x) = expand(dir.path(), Limits::default());
    let outer = dir.path().join("2019/outer.zip").display().to_string();
    assert_eq!(
        seen.bytes,
        vec![(
            format!("{outer}{SEPARATOR}inner.tar.gz{SEPARATOR}c.sgf"),
            A.as_bytes().to_vec()
        )]
    );
    // Record files by name, a text file by content; notes.txt skipped.
    assert_eq!(
        seen.files,
        vec![dir.path().join("2019/d.sgf"), dir.path().join("games.txt")]
    );
    assert_eq!(x.skipped(), 1);
}

#[test]
fn bombs_are_refused_by_each_limit() {
    let dir = tempfile::tempdir().unwrap();
    // 10 MB of zeros in 10 KB of zip.
    let zeros = zip_of(&[("big.sgf", vec![b'('; 10 << 20]), ("a.sgf", A.into())]);
    let path = write(dir.path(), "bomb.zip", &zeros);
    let small = Limits {
        max_member_bytes: 1 << 20,
        ..Limits::default()
    };
    let (seen, _) = expand(&path, small);
    assert_eq!(seen.problems.len(), 1, "{:?}", seen.problems);
    assert_eq!(seen.problems[0].1, ARCHIVE_LIMIT);
    assert!(seen.problems[0].0.ends_with("big.sgf"));
    assert!(
        seen.problems[0].2.contains("one member"),
        "{:?}",
        seen.problems
    );
    // The member after it is still read.
    assert_eq!(seen.bytes.len(), 1);

    // The total: spent by the first member, the rest refused.
    let total = Limits {
        max_total_bytes: 1 << 20,
        ..Limits::default()
    };
    let (seen, x) = expand(&path, total);
    assert_eq!(seen.problems.len(), 1, "{:?}", seen.problems);
    assert!(seen.problems[0].2.contains("in all"));
    assert!(seen.bytes.is_empty());
    assert!(x.bytes() <= (1 << 20) + 1);

    // Members.
    let many: Vec<(String, Vec<u8>)> = (0..50)
        .map(|i| (format!("g{i}.sgf"), A.as_bytes().to_vec()))
        .collect();
    let many: Vec<(&str, Vec<u8>)> = many.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    let path = write(dir.path(), "many.zip", &zip_of(&many));
    let few = Limits {
        max_members: 10,
        ..Limits::default()
    };
    let (seen, _) = expand(&path, few);
    assert_eq!(seen.bytes.len(), 10);
    assert_eq!(seen.problems.len(), 1);
    assert!(seen.problems[0].2.contains("members"));

    // Depth: gzip in gzip in gzip in gzip.
    let mut nested = A.as_bytes().to_vec();
    for _ in 0..4 {
        nested = gzip(&nested);
    }
    let path = write(dir.path(), "deep.gz", &nested);
    let shallow = Limits {
        max_depth: 3,
        ..Limits::default()
    };
    let (seen, _) = expand(&path, shallow);
    assert!(seen.bytes.is_empty());
    assert_eq!(seen.problems.len(), 1);
    assert!(seen.problems[0].2.contains("nested deeper than 3"));
    let (seen, _) = expand(&path, Limits::default());
    assert_eq!(seen.bytes.len(), 1);
}

#[test]
fn broken_containers_are_problems_named_after_them() {
    let dir = tempfile::tempdir().unwrap();
    let zip = zip_of(&files());
    let path = write(dir.path(), "cut.zip", &zip[..zip.len() / 2]);
    let (seen, _) = expand(&path, Limits::default());
    assert_eq!(seen.problems.len(), 1);
    assert_eq!(seen.problems[0].0, path.display().to_string());
    assert_eq!(seen.problems[0].1, BAD_CONTAINER);

    let tgz = gzip(&tar_of(&files()));
    let path = write(dir.path(), "cut.tar.gz", &tgz[..tgz.len() - 20]);
    let (seen, _) = expand(&path, Limits::default());
    assert_eq!(seen.problems.len(), 1, "{seen:?}");
    assert_eq!(seen.problems[0].1, BAD_CONTAINER);
}

#[test]
fn bytes_in_memory_are_expanded_or_handed_back_whole() {
    let x = Expander::new(Limits::default(), is_record_file);
    let mut got = Vec::new();
    let mut sink = |m| {
        if let Member::Bytes { name, bytes } = m {
            got.push((name, bytes));
        }
        true
    };
    assert!(x.expand_bytes("upload", zip_of(&files()), &mut sink));
    assert!(x.expand_bytes("-", B.as_bytes().to_vec(), &mut sink));
    // Binary data that is no container: handed back for the caller to refuse.
    assert!(x.expand_bytes("junk", vec![0, 1, 2, 3], &mut sink));
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["upload!a.sgf", "upload!dir/b.txt", "-", "junk"]);
}
