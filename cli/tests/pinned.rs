//! The people's output of `keil search`, `keil validate`, `keil import`
//! and `keil generate --transform-of`, and the help of every command,
//! pinned byte for byte (times and rates masked), so that a change to the
//! code that prints them is seen to keep them.
//!
//! Each case is `$ keil ARGS`, its exit code, its standard output and its
//! standard error, compared with the file of the same name under
//! `tests/pinned/`. After a wanted change of the output, run with
//! `KEIL_PIN=1` to write the files anew, and read their difference.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod common;

use common::fresh;

const KEIL: &str = env!("CARGO_BIN_EXE_keil");

/// A command line's words: split at spaces, a word in single quotes kept
/// whole (`search pattern --db db 'X:cc O:dc'`).
fn words(line: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut rest = line.trim_start();
    while !rest.is_empty() {
        let (word, after) = match rest.strip_prefix('\'') {
            Some(quoted) => quoted.split_once('\'').expect("a closing quote"),
            None => rest.split_once(' ').unwrap_or((rest, "")),
        };
        words.push(word);
        rest = after.trim_start();
    }
    words
}

/// The cases of one file, written as they ran.
struct Transcript {
    /// The directory the commands run in; written `DIR` in the transcript.
    dir: PathBuf,
    text: String,
}

impl Transcript {
    fn new(dir: &Path) -> Transcript {
        Transcript {
            dir: dir.to_path_buf(),
            text: String::new(),
        }
    }

    /// Runs `keil LINE` ([`words`]) in the directory, with `stdin` as its
    /// standard input, and writes the case; `mask` hides what varies from
    /// run to run in its output.
    fn run(&mut self, line: &str, stdin: &str, mask: fn(&str) -> String) {
        let mut child = Command::new(KEIL)
            .args(words(line))
            .current_dir(&self.dir)
            .env_remove("NO_COLOR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut input, stdin.as_bytes()).unwrap();
        drop(input);
        let out = child.wait_with_output().unwrap();
        let dir = self.dir.display().to_string();
        let shown = |bytes: &[u8]| mask(&String::from_utf8_lossy(bytes).replace(&dir, "DIR"));
        self.text.push_str(&format!(
            "$ keil {line}\n[exit {}]\n{}--- stderr\n{}\n",
            out.status.code().map_or("signal".into(), |c| c.to_string()),
            shown(&out.stdout),
            shown(&out.stderr),
        ));
    }

    /// Runs each line as [`Transcript::run`] does, without standard input.
    fn run_all(&mut self, lines: &[&str], mask: fn(&str) -> String) {
        for line in lines {
            self.run(line, "", mask);
        }
    }

    /// Compares the transcript with `tests/pinned/NAME`.
    fn check(self, name: &str) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/pinned")
            .join(name);
        if std::env::var_os("KEIL_PIN").is_some() {
            std::fs::write(&path, &self.text).unwrap();
            return;
        }
        let pinned = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (KEIL_PIN=1 writes it)", path.display()));
        if pinned == self.text {
            return;
        }
        let from = pinned
            .lines()
            .zip(self.text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(pinned.lines().count().min(self.text.lines().count()));
        let lines = |text: &str| {
            text.lines()
                .skip(from)
                .take(8)
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "the output differs from {} from line {}:\n--- pinned\n{}\n--- now\n{}",
            path.display(),
            from + 1,
            lines(&pinned),
            lines(&self.text),
        );
    }
}

/// Output that does not vary.
fn as_is(text: &str) -> String {
    text.to_string()
}

/// Each line with the numbers between the last `after` and the next
/// `until` masked ([`common::mask_numbers`]).
fn mask_between(text: &str, after: &str, until: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            let span = line.rfind(after).and_then(|i| {
                let from = i + after.len();
                line[from..].find(until).map(|j| (from, from + j))
            });
            match span {
                Some((from, to)) => format!(
                    "{}{}{}",
                    &line[..from],
                    common::mask_numbers(&line[from..to]),
                    &line[to..]
                ),
                None => line.to_string(),
            }
        })
        .collect()
}

/// `keil validate`'s summary with its time and rates masked (`[0.01 s,
/// ...]`, its last bracket).
fn validate_mask(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            if line.contains(" s]") || line.contains(" s, ") {
                mask_between(line, " [", "]")
            } else {
                line.to_string()
            }
        })
        .collect()
}

/// `keil import`'s summary with its time and rate masked.
fn import_mask(text: &str) -> String {
    mask_between(text, " games read in ", "):")
}

/// Writes `keil generate LINE` to `dir/file`.
fn generated(dir: &Path, file: &str, line: &str) -> PathBuf {
    let out = Command::new(KEIL)
        .arg("generate")
        .args(words(line))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let path = dir.join(file);
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

/// A cut zip download: a local file header, then a game, no central
/// directory.
fn cut_zip() -> Vec<u8> {
    let mut zip = b"PK\x03\x04\x14\x00\x00\x00\x00\x00".to_vec();
    zip.extend_from_slice(b"(;GM[1]SZ[19]PB[Ann];B[pd])");
    zip
}

#[test]
fn search_output_is_pinned() {
    let dir = fresh("search");
    generated(&dir, "go.sgf", "--game go --size 9 --games 20 --seed 4");
    generated(&dir, "keil.keil", "--games 20 --seed 2");
    generated(&dir, "kaomi.kaomi", "--game kaomi --games 10 --seed 3");
    // Black c7 with White c3 only in the record's second line; a game
    // without date, players or result; a player against themself, written
    // two ways.
    std::fs::write(
        dir.join("v.sgf"),
        "(;GM[1]FF[4]SZ[9]KM[6.5]DT[2020-01-01]PB[A]PW[B]RE[B+R];B[cc];W[gg]\
         (;B[cg];W[gc])(;B[ee];W[cg];B[gc]))\n\
         (;GM[1]FF[4]SZ[5]KM[6.5];B[cc];W[dc])\n\
         (;GM[1]FF[4]SZ[9]KM[6.5]PB[Ann Lee]PW[AnnLee]RE[W+R];B[cc];W[dd])\n",
    )
    .unwrap();
    let mut t = Transcript::new(&dir);
    t.run(
        "import --db db go.sgf keil.keil kaomi.kaomi v.sgf",
        "",
        import_mask,
    );
    t.run_all(
        &[
            "search players a --db db",
            "search players an --profile --limit 3 --db db",
            "search players 'ann lee' --profile --db db",
            "search players an --profile --json --limit 2 --db db",
            "search games --limit 4 --db db",
            "search games --oldest-first --kind go --limit 3 --db db",
            "search games --kind kaomi --min-rank 10k --db db",
            "search games --json --limit 2 --db db",
            "search games --after nonsense --db db",
            "search games --ruleset nonsense --db db",
            "search position --kind go --history --top-games 2 --recent-games 2 --limit 3 \
             --db db 9/9/9/9/9/9/9/9/9",
            "search position --limit 3 --db db 7/8/9/10/11/12/13/12/11/10/9/8/7",
            "search position --next white --symmetry --colors swap --move-limit 4 --limit 2 \
             --db db 7/8/9/10/11/12/13/12/11/10/9/8/7",
            "search position --kind kaomi --limit 2 --db db 7/7/7/7/7/7/7",
            "search position --json --kind go --limit 2 --db db 9/9/9/9/9/9/9/9/9",
            "search position --kind go --next white --db db '9/9/9/9/9/9/9/9/9 b'",
            "search position --kind go --variations --db db 9/9/9/9/9/9/9/9/9",
            "search position --db db nonsense",
            "search position --kind go --db db 5/5/5/5/5",
            "search pattern --size 9 --limit 3 --history --top-games 2 --recent-games 1 \
             --db db 'X:cc O:dc'",
            "search pattern --kind keil --limit 2 --db db 'X:g7 .:h8'",
            "search pattern --size 9 --mode corner --next black --move-limit 30 --limit 2 \
             --db db .../.X./...",
            "search pattern --size 9 --mode fixed --no-symmetry --colors same --variations \
             --db db 'X:cc O:cg'",
            "search pattern --json --size 9 --limit 1 --db db 'X:cc O:dc'",
            "search pattern --size 9 --mode corner --db db 'X:ee .:ef'",
            "search pattern --size 9 --db db XQ",
            "search pattern --size 5 --db db X:cc",
            "search text congress --limit 3 --db db",
            "search text congress --limit 18 --after 3f7bb203-23 --db db",
            "search text 'congress 2017' --limit 1 --db db",
            "search text 'congress 2016' --db db",
            "search text congress --after 23 --db db",
            "search text event:classic --json --limit 1 --db db",
            "search games --db nowhere",
        ],
        as_is,
    );
    t.check("search.txt");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn validate_output_is_pinned() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut t = Transcript::new(&dir);
    t.run_all(
        &[
            "validate --verbose --color never rules",
            "validate --color always --verbose rules/illegal-occupied.keil \
             rules/result-mismatch.keil rules/resigned.keil",
            "validate --quiet rules",
            "validate --color never rules/none.keil rules/unfinished.keil",
        ],
        validate_mask,
    );
    // Go and Kaomi on standard input: passes, a variation with an
    // illegal move, warnings, a draw, results the board contradicts.
    let games = concat!(
        // Go 5x5, ended by passes.
        "(;GM[1]FF[4]SZ[5]KM[0.5]RU[Chinese]PB[A]PW[B]RE[W+10];B[cc];W[dd];B[];W[])\n",
        // Go, not ended by passes.
        "(;GM[1]FF[4]SZ[5]KM[0.5]RU[Chinese]PB[A]PW[B]RE[W+10];B[cc];W[dd])\n",
        // Go, a variation that plays on a stone.
        "(;GM[1]FF[4]SZ[9]KM[6.5]PB[A]PW[B]RE[B+R];B[cc];W[gg](;B[cg])(;B[gg]))\n",
        // Go with a property twice (an SGF warning) and a komi that does
        // not read (a record's warning).
        "(;GM[1]FF[4]SZ[9]SZ[9]KM[x]PB[A]PW[B]RE[B+R];B[cc];W[gg])\n",
        // Go scored: two passes, the count agrees.
        "(;GM[1]FF[4]SZ[2]KM[0.5]RU[Chinese]RE[B+3.5];B[aa];W[];B[])\n",
        // Go, a draw by count.
        "(;GM[1]FF[4]SZ[2]KM[0]RU[Chinese]RE[0];W[];B[])\n",
        // Go on time.
        "(;GM[1]FF[4]SZ[9]KM[6.5]RE[W+T];B[cc])\n",
        // A move off the board.
        "(;GM[1]FF[4]SZ[9]KM[6.5];B[zz])\n",
        // Kaomi: a result on a board that is not full, and one that the
        // full board contradicts (with komi, ignored: a warning).
        "(;GM[Kaomi]FF[4]SZ[2]RU[Kaomi; pie=on]PB[A]PW[B]RE[B+0];B[ba])\n",
        "(;GM[Kaomi]FF[4]SZ[2]RU[Kaomi;pie=off]KM[4]RE[B+3];B[bb];W[ab];B[aa];W[ba])\n",
        // A tree that does not end.
        "(;GM[1]FF[4]SZ[5];B[cc]C[x\\])\n",
    );
    for line in [
        "validate --verbose --color never -",
        "validate --color never -",
        "validate --color always -",
        "validate --strict --color never -",
        "validate --json -",
    ] {
        t.run(line, games, validate_mask);
    }
    t.check("validate.txt");
}

#[test]
fn import_output_is_pinned() {
    let dir = fresh("import");
    generated(&dir, "good.keil", "--games 3 --seed 5");
    let go = generated(&dir, "go.sgf", "--game go --size 9 --games 24 --seed 6");
    // The same Go games with other headers: merged, more than 20 of them.
    let text = std::fs::read_to_string(&go).unwrap();
    let copies = text.replace("GM[1]", "GM[1]GC[a copy]");
    std::fs::write(dir.join("copies.sgf"), copies).unwrap();
    // The same Go games played again by others on another day: similar.
    let replay = text.replace("PB[", "PB[Other ").replace("DT[2", "DT[1");
    std::fs::write(dir.join("replay.sgf"), replay).unwrap();
    std::fs::write(dir.join("games.zip"), cut_zip()).unwrap();
    std::fs::write(dir.join("binary.sgf"), b"\x00\x01 not text").unwrap();
    // More than 20 illegal games.
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/rules");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&rules)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("illegal-")
        })
        .collect();
    names.sort();
    let once: String = names
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    std::fs::write(dir.join("illegal.keil"), once.repeat(3)).unwrap();
    let mut t = Transcript::new(&dir);
    t.run_all(
        &[
            "import --db db good.keil go.sgf",
            "import --db db copies.sgf games.zip binary.sgf illegal.keil",
            "import --db db good.keil",
            "import --db db replay.sgf",
            "export --db db --kind keil -o keil.zip",
        ],
        import_mask,
    );
    t.run(
        "import --db db2 keil.zip -",
        "(;GM[1]SZ[9];B[cc])",
        import_mask,
    );
    t.run_all(
        &[
            "import --db db3 --duplicates exact go.sgf copies.sgf",
            "import --db db4 --aliases none.txt good.keil",
        ],
        import_mask,
    );
    t.check("import.txt");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_is_pinned() {
    let mut t = Transcript::new(Path::new(env!("CARGO_MANIFEST_DIR")));
    t.run("--help", "", as_is);
    for command in [
        "generate", "validate", "export", "import", "search", "players", "reindex", "stats",
        "refused", "remove", "serve", "backup", "verify",
    ] {
        t.run(&format!("{command} --help"), "", as_is);
    }
    for search in ["players", "games", "position", "pattern", "text"] {
        t.run(&format!("search {search} --help"), "", as_is);
    }
    t.run_all(
        &["search position -h", "players alias --help", "search"],
        as_is,
    );
    t.check("help.txt");
}

#[test]
fn generate_output_is_pinned() {
    let dir = fresh("generate");
    std::fs::create_dir_all(dir.join("in/sub")).unwrap();
    // A Go game, one on a board over 19x19, one with a move off the board.
    std::fs::write(
        dir.join("in/sub/games.sgf"),
        concat!(
            "(;GM[1]FF[4]SZ[5]KM[0.5]PB[Ann]PW[Bob];B[cc];W[dd];B[];W[])\n",
            "(;GM[1]FF[4]SZ[25]KM[0.5];B[cc])\n",
            "(;GM[1]FF[4]SZ[5];B[zz])\n",
        ),
    )
    .unwrap();
    std::fs::write(dir.join("in/k.keil"), "(;GM[Keil]FF[4]SZ[2]KM[1];B[a1])\n").unwrap();
    std::fs::write(
        dir.join("in/broken.sgf"),
        "(;GM[1]FF[4]SZ[5];B[cc]C[x\\])\n",
    )
    .unwrap();
    std::fs::write(dir.join("in/cut.zip"), cut_zip()).unwrap();
    let mut t = Transcript::new(&dir);
    t.run_all(
        &[
            "generate --transform-of in",
            "generate --transform-of in --out t.sgf",
            "generate --transform-of nowhere",
            "generate --games 2 --seed 3 --game go --size 5",
        ],
        as_is,
    );
    t.check("generate.txt");
    let _ = std::fs::remove_dir_all(&dir);
}
