//! `keil import` as a user runs it on a cut zip download and random bytes
//! beside real records: the zip is reported as an archive that cannot be
//! read, the random bytes as not SGF, nothing of them is stored, and the
//! other files import.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn keil() -> Command {
    Command::cargo_bin("keil").unwrap()
}

#[test]
fn binary_files_are_refused_and_the_others_import() {
    let dir = std::env::temp_dir().join(format!("keil-import-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = keil()
        .args(["generate", "--games", "3", "--seed", "5"])
        .assert()
        .code(0);
    let good = dir.join("good.keil");
    std::fs::write(&good, &out.get_output().stdout).unwrap();
    // A cut zip download (a local file header, then a game, no central
    // directory) and random bytes.
    let zip = dir.join("games.zip");
    let mut z = b"PK\x03\x04\x14\x00\x00\x00\x00\x00".to_vec();
    z.extend_from_slice(b"(;GM[1]SZ[19]PB[Ann];B[pd])");
    std::fs::write(&zip, z).unwrap();
    let mut seed = 7u64;
    let noise: Vec<u8> = (0..200_000)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect();
    let random = dir.join("noise.sgf");
    std::fs::write(&random, noise).unwrap();
    let db = dir.join("db");
    keil()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .args([&zip, &random, &good])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("3 imported"))
        .stdout(predicate::str::contains("invalid, not_sgf: 1"))
        .stdout(predicate::str::contains("invalid, bad_container: 1"))
        .stdout(predicate::str::contains(format!(
            "{} game 1: cannot read this zip container",
            zip.display()
        )))
        .stdout(predicate::str::contains(format!(
            "{} game 1: not an SGF collection: binary data",
            random.display()
        )));
    let stats = keil()
        .args(["stats", "--json", "--db"])
        .arg(&db)
        .assert()
        .code(0);
    let stats: Value = serde_json::from_slice(&stats.get_output().stdout).unwrap();
    assert_eq!(stats["games"], 3, "{stats}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `keil export --db` streams an archive's games (filtered) as a collection
/// or a zip; importing the zip into a new archive stores the same games.
#[test]
fn export_of_an_archive_imports_back_the_same_games() {
    let dir = std::env::temp_dir().join(format!("keil-export-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let games = dir.join("games.sgf");
    keil()
        .args([
            "generate", "--game", "go", "--size", "9", "--games", "60", "--seed", "3", "--out",
        ])
        .arg(&games)
        .assert()
        .code(0);
    let db = dir.join("db");
    keil()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .arg(&games)
        .assert()
        .code(0);
    let count = |db: &std::path::Path| -> u64 {
        let stats = keil()
            .args(["stats", "--json", "--db"])
            .arg(db)
            .assert()
            .code(0);
        let v: Value = serde_json::from_slice(&stats.get_output().stdout).unwrap();
        v["games"].as_u64().unwrap()
    };
    let stored = count(&db);
    assert!(stored > 50, "{stored}");
    let zip = dir.join("all.zip");
    keil()
        .args(["export", "--db"])
        .arg(&db)
        .arg("-o")
        .arg(&zip)
        .assert()
        .code(0)
        .stderr(predicate::str::contains(format!("{stored} games exported")));
    let again = dir.join("again");
    keil()
        .arg("import")
        .arg("--db")
        .arg(&again)
        .arg(&zip)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!("{stored} imported")))
        .stdout(predicate::str::contains(format!(
            "{stored} archive members"
        )));
    assert_eq!(count(&again), stored);
    // A filter, to standard output as one collection.
    let out = keil()
        .args(["export", "--db"])
        .arg(&db)
        .args(["--winner", "black"])
        .assert()
        .code(0);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let n = text.matches("(;GM[1]").count() as u64;
    assert!(n > 0 && n < stored, "{n} of {stored}");
    assert_eq!(text.matches("RE[B+").count() as u64, n);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Players as an operator manages them: an alias file at import, `keil
/// players alias` afterwards, spellings on the profile; and the same game
/// from two sources, merged or (with `--duplicates exact`) kept twice.
#[test]
fn aliases_spellings_and_signature_duplicates_from_the_command_line() {
    let root = std::env::temp_dir().join(format!("keil-people-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    struct Dir(std::path::PathBuf);
    impl Dir {
        fn path(&self) -> &std::path::Path {
            &self.0
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let dir = Dir(root);
    let game = |headers: &str| {
        let mut s = format!("(;GM[1]FF[4]SZ[19]{headers}");
        for i in 0..80usize {
            let p = (i * 7) % 361;
            let c = if i % 2 == 0 { 'B' } else { 'W' };
            let (x, y) = (
                (b'a' + (p % 19) as u8) as char,
                (b'a' + (p / 19) as u8) as char,
            );
            s.push_str(&format!(";{c}[{x}{y}]"));
        }
        s + ")\n"
    };
    let a = dir.path().join("a.sgf");
    std::fs::write(
        &a,
        game("PB[Ke Jie]PW[AlphaGo Master]RE[W+R]EV[Future of Go]"),
    )
    .unwrap();
    let b = dir.path().join("b.sgf");
    std::fs::write(&b, game("PB[KeJie]PW[Master]RE[W+Resign]EV[Wuzhen]")).unwrap();
    let aliases = dir.path().join("aliases.txt");
    std::fs::write(&aliases, "# operator's list\nMaster = AlphaGo Master\n").unwrap();
    let db = dir.path().join("db");
    keil()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .arg("--aliases")
        .arg(&aliases)
        .args([&a, &b])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "1 imported, 0 duplicates, 1 merged",
        ))
        .stdout(predicate::str::contains(format!(
            "merged (identical): {} game 1 is another record of game 1",
            b.display()
        )));
    // Kept twice with --duplicates exact; KeJie is Ke Jie, Master is
    // AlphaGo Master.
    let db2 = dir.path().join("db2");
    keil()
        .arg("import")
        .arg("--db")
        .arg(&db2)
        .args(["--duplicates", "exact", "--aliases"])
        .arg(&aliases)
        .args([&a, &b])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "2 imported, 0 duplicates, 0 merged",
        ));
    keil()
        .args(["search", "players", "kejie", "--profile", "--db"])
        .arg(&db2)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Ke Jie"))
        .stdout(predicate::str::contains(
            "written as: Ke Jie (1), KeJie (1)",
        ));
    keil()
        .args(["players", "alias", "--db"])
        .arg(&db2)
        .args(["AlphaGo Master", "AlphaGo"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("also for later imports"));
    let out = keil()
        .args(["search", "players", "Master", "--profile", "--json", "--db"])
        .arg(&db2)
        .assert()
        .code(0);
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["profile"]["name"], "AlphaGo", "{v}");
    assert_eq!(v["profile"]["games"], 2, "{v}");
    // A name without a letter is refused with the reason.
    keil()
        .args(["players", "alias", "--db"])
        .arg(&db2)
        .args(["??", "AlphaGo"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no letter or digit"));
}

/// `keil players name` sets the name a player is shown by and `--auto`
/// gives it back; `keil players suggest-aliases` lists likely pairs with
/// the command that confirms each, and merges nothing.
#[test]
fn an_operator_names_players_and_reads_suggested_aliases() {
    let dir = tempfile::tempdir().unwrap();
    let game = |headers: &str, shift: usize| {
        let mut s = format!("(;GM[1]FF[4]SZ[19]{headers}");
        for i in 0..40usize {
            let p = (shift * 13 + i * 7) % 361;
            let c = if i % 2 == 0 { 'B' } else { 'W' };
            let (x, y) = (
                (b'a' + (p % 19) as u8) as char,
                (b'a' + (p / 19) as u8) as char,
            );
            s.push_str(&format!(";{c}[{x}{y}]"));
        }
        s + ")\n"
    };
    let sgf = dir.path().join("names.sgf");
    std::fs::write(
        &sgf,
        [
            game("PB[GULI]PW[Ke Jie]DT[2015-01-01]RE[B+R]", 1),
            game("PB[Gu Li]PW[Ke Jie]DT[2016-01-01]RE[B+R]", 2),
            game("PB[Gu Li]PW[Ke Jie]DT[2016-02-01]RE[B+R]", 3),
            game("PB[Kuwahara Shusaku]PW[Ota Yuzo]DT[1845-01-01]RE[B+R]", 4),
            game("PB[Honinbo Shusaku]PW[Ota Yuzo]DT[1848-01-01]RE[B+R]", 5),
            game("PB[Honinbo Shusaku]PW[Ota Yuzo]DT[1849-01-01]RE[B+R]", 6),
        ]
        .concat(),
    )
    .unwrap();
    let db = dir.path().join("db");
    keil()
        .args(["import", "--db"])
        .arg(&db)
        .arg(&sgf)
        .assert()
        .code(0);
    let shown = |name: &str| -> Value {
        let out = keil()
            .args(["search", "players", name, "--profile", "--json", "--db"])
            .arg(&db)
            .assert()
            .code(0);
        let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        v["profile"]["name"].clone()
    };
    assert_eq!(shown("GULI"), "Gu Li");
    keil()
        .args(["players", "name", "--db"])
        .arg(&db)
        .args(["GULI", "Gu Li (古力)"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("is now shown as \"Gu Li (古力)\""));
    assert_eq!(shown("guli"), "Gu Li (古力)");
    keil()
        .args(["players", "name", "--db"])
        .arg(&db)
        .args(["Gu Li (古力)", "--auto"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("\"Gu Li\", the spelling most"));
    assert_eq!(shown("guli"), "Gu Li");
    keil()
        .args(["players", "name", "--db"])
        .arg(&db)
        .args(["Nobody", "X"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no player named \"Nobody\""));
    keil()
        .args(["players", "suggest-aliases", "--db"])
        .arg(&db)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("\"Kuwahara Shusaku\""))
        .stdout(predicate::str::contains("both names end in \"shusaku\""))
        .stdout(predicate::str::contains("1 opponent in common"))
        .stdout(predicate::str::contains("confirm: keil players alias --db"))
        .stdout(predicate::str::contains(
            "\"Kuwahara Shusaku\" \"Honinbo Shusaku\"",
        ));
    // Nothing merged.
    assert_eq!(shown("Kuwahara Shusaku"), "Kuwahara Shusaku");
}

/// `--collection` labels an import's games; without it, a folder names its
/// own; `keil collections` lists them and `--collection` filters a search.
#[test]
fn imports_are_labelled_and_collections_listed_and_filtered() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let club = dir.path().join("club");
    std::fs::create_dir_all(&club).unwrap();
    let games = |n: &str, seed: &str| {
        keil()
            .args(["generate", "--games", n, "--seed", seed])
            .assert()
            .code(0)
            .get_output()
            .stdout
            .clone()
    };
    std::fs::write(club.join("a.keil"), games("3", "21")).unwrap();
    let pro = dir.path().join("pro.keil");
    std::fs::write(&pro, games("2", "22")).unwrap();
    keil()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .arg(&club)
        .assert()
        .code(0);
    keil()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .args(["--collection", "Professional"])
        .arg(&pro)
        .assert()
        .code(0);
    let out = keil()
        .arg("collections")
        .arg("--db")
        .arg(&db)
        .arg("--json")
        .assert()
        .code(0);
    let listed: Vec<(String, u64)> = String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["name"].as_str().unwrap().to_string(),
                v["games"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [("club".to_string(), 3), ("Professional".to_string(), 2)]
    );
    let out = keil()
        .args(["search", "games", "--db"])
        .arg(&db)
        .args(["--collection", "Professional", "--json"])
        .assert()
        .code(0);
    let found: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let games = found["games"].as_array().unwrap();
    assert_eq!(games.len(), 2, "{found}");
    assert!(
        games.iter().all(|g| g["collection"] == "Professional"),
        "{found}"
    );
    // A name that is no name is refused before anything is read.
    keil()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .args(["--collection", " "])
        .arg(&pro)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("collection"));
}
