//! `keil validate`: verdicts for every game of the given files, Keil and Go
//! alike (crate keil-record), as rustc-style text or one JSON object per
//! game.
//!
//! Exit status: 0 when every game is valid (with `--strict`: and has no
//! warning), 1 when some game or variation is invalid, malformed or
//! unsupported, or some game tree is not a readable record, 2 on a usage or
//! I/O error. The JSON line format is documented in
//! `cli/docs/validate-json.md`.

mod counts;
mod text;

use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use keil_record::{NameHint, PART_BYTES, ParsedFile, Reason, RecordError, Status};
use keil_sgf::Severity;
use rayon::prelude::*;

use counts::Counts;
use text::{Style, human_verdict, paint, render};

/// Options of `keil validate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Files or directories (searched recursively for .keil, .kaomi and
    /// .sgf files); `-` reads standard input. A record without GM is Keil
    /// in a .keil file (or with an RU beginning with Keil), Kaomi in a
    /// .kaomi file (or with an RU beginning with Kaomi), Go otherwise.
    #[arg(required = true, value_name = "FILE|DIR|-")]
    paths: Vec<PathBuf>,
    /// One JSON object per line per game (and per file that cannot be
    /// read) on standard output; the summary goes to standard error.
    #[arg(long)]
    json: bool,
    /// Warnings fail: exit 1 when any game has a warning.
    #[arg(long)]
    strict: bool,
    /// Also print one line per valid game.
    #[arg(short, long)]
    verbose: bool,
    /// Print only the summary line.
    #[arg(short, long, conflicts_with = "verbose")]
    quiet: bool,
    /// When to colour the output: auto (only on a terminal, and not with
    /// NO_COLOR set), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

/// When to colour.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// One input: a file, or standard input.
#[derive(Debug)]
enum Input {
    File(PathBuf),
    Stdin,
}

impl Input {
    fn name(&self) -> String {
        match self {
            Input::File(p) => p.display().to_string(),
            Input::Stdin => "<stdin>".to_string(),
        }
    }

    /// What the file name says about records without GM.
    fn hint(&self) -> NameHint {
        match self {
            Input::File(p) => NameHint::of(p),
            Input::Stdin => NameHint::None,
        }
    }
}

/// Runs `keil validate` and exits with its status (0, 1 or 2; a failure to
/// write the output is an I/O error, 2, except a closed pipe).
pub fn run(args: Args) -> anyhow::Result<()> {
    match run_checked(args) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            eprintln!("keil: {e}");
            std::process::exit(2);
        }
        r => Ok(r?),
    }
}

fn run_checked(args: Args) -> io::Result<()> {
    let started = Instant::now();
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let style = Style {
        json: args.json,
        color,
        verbose: args.verbose,
        quiet: args.quiet,
    };
    let mut total = Counts::default();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());

    let (inputs, walk_errors) = collect_inputs(&args.paths);
    for (name, e) in walk_errors {
        total.io_errors += 1;
        write_io_error(&mut out, style, &name, &e)?;
    }
    let bytes: u64 = inputs
        .iter()
        .map(|i| match i {
            Input::File(p) => p.metadata().map_or(0, |m| m.len()),
            Input::Stdin => 0,
        })
        .sum();
    let progress = progress_bar(bytes, inputs.len());

    // Files in chunks, each chunk in parallel (and the games of a large
    // file in parallel too), printed in input order.
    for chunk in inputs.chunks(64) {
        let reports: Vec<(String, Counts)> = chunk
            .par_iter()
            .map(|input| check_input(input, style, progress.as_ref()))
            .collect();
        for (text, counts) in reports {
            out.write_all(text.as_bytes())?;
            total.add(&counts);
        }
    }
    if let Some(p) = &progress {
        p.finish_and_clear();
    }
    let summary = total.summary(started.elapsed());
    if style.json {
        out.flush()?;
        eprintln!("{summary}");
    } else {
        writeln!(out, "{}", paint(color, "1", &summary))?;
    }
    out.flush()?;
    drop(out);
    let code = total.exit_code(args.strict);
    if code != 0 {
        std::process::exit(code);
    }
    Ok(())
}

fn progress_bar(bytes: u64, files: usize) -> Option<ProgressBar> {
    if !io::stderr().is_terminal() || (bytes < 4 << 20 && files < 200) {
        return None;
    }
    let bar = ProgressBar::with_draw_target(Some(bytes), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, eta {eta})",
        )
        .expect("a valid template"),
    );
    Some(bar)
}

/// Expands directories (recursively, sorted) into .keil/.kaomi/.sgf files.
fn collect_inputs(paths: &[PathBuf]) -> (Vec<Input>, Vec<(String, io::Error)>) {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.push(Input::Stdin);
            continue;
        }
        match path.metadata() {
            Err(e) => errors.push((path.display().to_string(), e)),
            Ok(m) if m.is_dir() => walk(path, &mut inputs, &mut errors),
            Ok(_) => inputs.push(Input::File(path.clone())),
        }
    }
    (inputs, errors)
}

fn walk(dir: &Path, inputs: &mut Vec<Input>, errors: &mut Vec<(String, io::Error)>) {
    let mut stack = vec![dir.to_path_buf()];
    let mut found = Vec::new();
    while let Some(d) = stack.pop() {
        let entries = match std::fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) => {
                errors.push((d.display().to_string(), e));
                continue;
            }
        };
        for entry in entries.flatten() {
            let p = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(_) if is_record_file(&p) => found.push(p),
                _ => {}
            }
        }
    }
    found.sort();
    inputs.extend(found.into_iter().map(Input::File));
}

fn is_record_file(p: &Path) -> bool {
    keil_record::NameHint::is_record_file(p)
}

fn read_input(input: &Input) -> io::Result<Vec<u8>> {
    match input {
        Input::File(p) => std::fs::read(p),
        Input::Stdin => {
            let mut buf = Vec::new();
            io::stdin().lock().read_to_end(&mut buf)?;
            Ok(buf)
        }
    }
}

fn write_io_error(out: &mut impl Write, style: Style, name: &str, e: &io::Error) -> io::Result<()> {
    let text = io_error_text(style, name, e);
    out.write_all(text.as_bytes())
}

fn io_error_text(style: Style, name: &str, e: &io::Error) -> String {
    if style.json {
        let v = serde_json::json!({
            "file": name, "game": null, "status": "io_error", "message": e.to_string(),
        });
        format!("{v}\n")
    } else {
        format!(
            "{}: cannot read {name}: {e}\n",
            paint(style.color, "1;31", "error")
        )
    }
}

/// One game's output and counts.
struct GameReport {
    text: String,
    counts: Counts,
}

/// Reads and checks one input; returns its output and counts.
fn check_input(input: &Input, style: Style, progress: Option<&ProgressBar>) -> (String, Counts) {
    let name = input.name();
    let bytes = match read_input(input) {
        Ok(b) => b,
        Err(e) => {
            let counts = Counts {
                io_errors: 1,
                ..Counts::default()
            };
            return (io_error_text(style, &name, &e), counts);
        }
    };
    let decoded = keil_sgf::decode(&bytes);
    let mut counts = Counts {
        files: 1,
        ..Counts::default()
    };
    let mut text = String::new();
    // Part by part: a collection over the parser's size limit is read
    // whole, one part's trees at a time.
    let hint = input.hint();
    let mut parts = ParsedFile::in_parts(&decoded, PART_BYTES)
        .map(|part| part.with_hint(hint))
        .peekable();
    let mut many = None;
    while let Some(file) = parts.next() {
        let many = *many.get_or_insert(file.len() > 1 || parts.peek().is_some());
        if let Some(e) = file.file_error() {
            let r = error_report(&file, &name, &e, many, style);
            text.push_str(&r.text);
            counts.add(&r.counts);
            if let Some(p) = progress {
                p.inc(file.text().len() as u64);
            }
            continue;
        }
        let check = |i: usize| {
            let r = check_game(&file, i, &name, many, style);
            if let Some(p) = progress {
                p.inc(file.trees()[i].span().len() as u64);
            }
            r
        };
        let reports: Vec<GameReport> = if file.len() >= 16 {
            (0..file.len()).into_par_iter().map(check).collect()
        } else {
            (0..file.len()).map(check).collect()
        };
        for r in reports {
            text.push_str(&r.text);
            counts.add(&r.counts);
        }
    }
    (text, counts)
}

/// The report on tree `i` of `file` (game `file.first_game() + i` of the
/// input).
fn check_game(file: &ParsedFile<'_>, i: usize, name: &str, many: bool, style: Style) -> GameReport {
    let verdict = match file.verdict(i) {
        Ok(v) => v,
        Err(e) => return error_report(file, name, &e, many, style),
    };
    let game = file.first_game() + i;
    let v = &verdict;
    let mut counts = Counts {
        games: 1,
        plies: u64::from(v.plies),
        warnings: v.warnings.len(),
        games_with_warnings: usize::from(!v.warnings.is_empty()),
        invalid_variations: v
            .variations
            .iter()
            .filter(|x| x.status.is_failure())
            .count(),
        ..Counts::default()
    };
    let si = Status::ALL.iter().position(|s| *s == v.status).unwrap_or(0);
    counts.status[si] = 1;
    if let Some(ill) = &v.illegal {
        let ri = Reason::ALL
            .iter()
            .position(|r| *r == ill.reason)
            .unwrap_or(0);
        counts.reasons[ri] = 1;
    }
    let text = if style.json {
        let mut line = Vec::with_capacity(512);
        v.write_json(name, game, &mut line);
        line.push(b'\n');
        String::from_utf8(line).expect("JSON text is UTF-8")
    } else if style.quiet {
        String::new()
    } else {
        human_verdict(file, name, game, many, v, style)
    };
    GameReport { text, counts }
}

fn error_report(
    file: &ParsedFile<'_>,
    name: &str,
    e: &RecordError,
    many: bool,
    style: Style,
) -> GameReport {
    let mut counts = Counts {
        games: 1,
        ..Counts::default()
    };
    counts.add_error(e.code(), 1);
    let text = if style.json {
        let mut line = e.to_json(name).to_string();
        line.push('\n');
        line
    } else if style.quiet {
        String::new()
    } else {
        let prefix = if many {
            format!("game {}: ", e.game)
        } else {
            String::new()
        };
        let message = format!("{prefix}{}", e.kind);
        render(
            file,
            name,
            Severity::Error,
            e.code(),
            message,
            e.span,
            style,
        )
    };
    GameReport { text, counts }
}
