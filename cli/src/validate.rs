//! `keil validate`: verdicts for every game of the given files, Keil and Go
//! alike (crate keil-record), as rustc-style text or one JSON object per
//! game.
//!
//! Exit status: 0 when every game is valid (with `--strict`: and has no
//! warning), 1 when some game or variation is invalid, malformed or
//! unsupported, or some game tree is not a readable record, 2 on a usage or
//! I/O error. The JSON line format is documented in
//! `cli/docs/validate-json.md`.

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use keil_record::{NameHint, PART_BYTES, ParsedFile, Reason, RecordError, Status, Verdict};
use keil_sgf::{Diagnostic, Severity, Span};
use rayon::prelude::*;

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

/// Counts for the summary line and the exit status.
#[derive(Default, Debug)]
struct Counts {
    files: usize,
    games: usize,
    plies: u64,
    status: [usize; Status::ALL.len()],
    reasons: [usize; Reason::ALL.len()],
    /// Record errors by code, in order of first appearance.
    errors: Vec<(&'static str, usize)>,
    warnings: usize,
    games_with_warnings: usize,
    invalid_variations: usize,
    io_errors: usize,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.files += o.files;
        self.games += o.games;
        self.plies += o.plies;
        for (a, b) in self.status.iter_mut().zip(o.status) {
            *a += b;
        }
        for (a, b) in self.reasons.iter_mut().zip(o.reasons) {
            *a += b;
        }
        for &(code, n) in &o.errors {
            self.add_error(code, n);
        }
        self.warnings += o.warnings;
        self.games_with_warnings += o.games_with_warnings;
        self.invalid_variations += o.invalid_variations;
        self.io_errors += o.io_errors;
    }

    fn add_error(&mut self, code: &'static str, n: usize) {
        match self.errors.iter_mut().find(|(c, _)| *c == code) {
            Some((_, k)) => *k += n,
            None => self.errors.push((code, n)),
        }
    }

    fn record_errors(&self) -> usize {
        self.errors.iter().map(|(_, n)| n).sum()
    }

    fn exit_code(&self, strict: bool) -> i32 {
        if self.io_errors > 0 {
            2
        } else if Status::ALL
            .iter()
            .zip(self.status)
            .any(|(s, n)| s.is_failure() && n > 0)
            || self.invalid_variations > 0
            || self.record_errors() > 0
            || (strict && self.games_with_warnings > 0)
        {
            1
        } else {
            0
        }
    }

    fn summary(&self, elapsed: Duration) -> String {
        let mut s = format!(
            "{} game{} in {} file{}:",
            self.games,
            plural(self.games),
            self.files,
            plural(self.files)
        );
        let mut parts = Vec::new();
        for (i, status) in Status::ALL.iter().enumerate() {
            let n = self.status[i];
            if n == 0 && *status != Status::Invalid {
                continue;
            }
            let mut part = format!("{n} {status}");
            if status.is_failure() && n > 0 {
                let reasons: Vec<String> = Reason::ALL
                    .iter()
                    .zip(self.reasons)
                    .filter(|(r, k)| *k > 0 && r.status() == *status)
                    .map(|(r, k)| format!("{k} {r}"))
                    .collect();
                let _ = write!(part, " ({})", reasons.join(", "));
            }
            parts.push(part);
        }
        if !self.errors.is_empty() {
            let codes: Vec<String> = self
                .errors
                .iter()
                .map(|(c, n)| format!("{n} {c}"))
                .collect();
            parts.push(format!(
                "{} not read ({})",
                self.record_errors(),
                codes.join(", ")
            ));
        }
        let _ = write!(s, " {}", parts.join(", "));
        if self.invalid_variations > 0 {
            let _ = write!(s, "; {} invalid variations", self.invalid_variations);
        }
        if self.warnings > 0 {
            let _ = write!(
                s,
                "; {} warning{} in {} game{}",
                self.warnings,
                plural(self.warnings),
                self.games_with_warnings,
                plural(self.games_with_warnings)
            );
        }
        if self.io_errors > 0 {
            let _ = write!(
                s,
                "; {} unreadable input{}",
                self.io_errors,
                plural(self.io_errors)
            );
        }
        let secs = elapsed.as_secs_f64();
        let _ = write!(s, " [{secs:.2} s");
        if secs > 0.0 && self.games > 0 {
            let _ = write!(
                s,
                ", {:.0} games/s, {:.0} plies/s",
                self.games as f64 / secs,
                self.plies as f64 / secs
            );
        }
        s.push(']');
        s
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// How to print.
#[derive(Clone, Copy)]
struct Style {
    json: bool,
    color: bool,
    verbose: bool,
    quiet: bool,
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

/// A rustc-style message with the source line and a marker under `span`.
fn render(
    file: &ParsedFile<'_>,
    name: &str,
    severity: Severity,
    code: &'static str,
    message: String,
    span: Span,
    style: Style,
) -> String {
    let d = Diagnostic::new(severity, code, message, span);
    let text = d.render(name, file.lines());
    let mut out = if style.color {
        colorize(&text, severity)
    } else {
        text
    };
    out.push('\n');
    out
}

fn human_verdict(
    file: &ParsedFile<'_>,
    name: &str,
    game: usize,
    many: bool,
    v: &Verdict,
    style: Style,
) -> String {
    let prefix = if many {
        format!("game {game}: ")
    } else {
        String::new()
    };
    let mut out = String::new();
    if let Some(ill) = &v.illegal {
        let kaomi = v.kind == keil_rules::GameKind::Kaomi;
        let (ended, not_ended) = if kaomi {
            (
                "the board is full and the result is",
                "the board is not full",
            )
        } else {
            (
                "the game ended by passes and the count gives",
                "the game did not end by two passes",
            )
        };
        let message = match (ill.reason, v.winner, v.margin) {
            (Reason::ResultMismatch, Some(w), Some(m)) => format!(
                "{prefix}{ill}: {ended} {}",
                match w.color() {
                    Some(c) => format!("{}+{m}", c.letter()),
                    None => "a draw (0)".to_string(),
                }
            ),
            (Reason::ResultMismatch, _, _) => format!("{prefix}{ill}: {not_ended}"),
            _ => format!("{prefix}{ill}"),
        };
        out.push_str(&render(
            file,
            name,
            Severity::Error,
            ill.reason.code(),
            message,
            ill.span,
            style,
        ));
    }
    for var in &v.variations {
        // A variation below the main line's illegal move inherits it:
        // reported once, above.
        if let Some(ill) = var.illegal.as_ref().filter(|i| i.ply >= var.branch_ply) {
            let message = format!(
                "{prefix}variation {:?} (from ply {}): {ill}",
                var.path, var.branch_ply
            );
            out.push_str(&render(
                file,
                name,
                Severity::Error,
                ill.reason.code(),
                message,
                ill.span,
                style,
            ));
        }
    }
    for w in &v.warnings {
        match w {
            keil_record::Warning::Sgf {
                code,
                message,
                span,
                ..
            } => out.push_str(&render(
                file,
                name,
                Severity::Warning,
                code,
                format!("{prefix}{message}"),
                *span,
                style,
            )),
            _ => {
                let head = format!("warning[{}]", w.code());
                let at = match w.seen() {
                    Some(seen) => format!("{name}:{}:{}", seen.line, seen.column),
                    None => name.to_string(),
                };
                let _ = writeln!(
                    out,
                    "{}: {prefix}{w}\n  --> {at}\n",
                    paint(style.color, "1;33", &head)
                );
            }
        }
    }
    if style.verbose && v.illegal.is_none() {
        let result = match (v.status, v.winner, v.margin) {
            (Status::Complete | Status::Scored, Some(w), Some(m)) => match w.color() {
                Some(c) => format!(" {}+{m}", c.letter()),
                None => " draw".to_string(),
            },
            (_, Some(w), _) => format!(" {} wins", w.code()),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "{name}{}: {}{result}, {} plies",
            if many {
                format!(" game {game}")
            } else {
                String::new()
            },
            paint(style.color, "32", v.status.code()),
            v.plies
        );
    }
    out
}

fn paint(color: bool, sgr: &str, text: &str) -> String {
    if color {
        format!("\x1b[{sgr}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Colours a rendered diagnostic: the header, the `-->` line, the gutter
/// and the marker.
fn colorize(text: &str, severity: Severity) -> String {
    let sev = match severity {
        Severity::Error => "1;31",
        Severity::Warning => "1;33",
    };
    let mut out = String::with_capacity(text.len() + 64);
    for (k, line) in text.lines().enumerate() {
        if k == 0 {
            match line.find(": ") {
                Some(i) => {
                    out.push_str(&paint(true, sev, &line[..i]));
                    out.push_str(&paint(true, "1", &line[i..]));
                }
                None => out.push_str(line),
            }
        } else if let Some(i) = line.find(" | ") {
            let (gutter, rest) = line.split_at(i + 3);
            out.push_str(&paint(true, "1;34", gutter));
            if rest.trim_start().starts_with('^') {
                let pad = rest.len() - rest.trim_start().len();
                out.push_str(&rest[..pad]);
                out.push_str(&paint(true, sev, rest.trim_start()));
            } else {
                out.push_str(rest);
            }
        } else if line.trim_start().starts_with("-->") || line.trim_end().ends_with('|') {
            out.push_str(&paint(true, "1;34", line));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_code_follows_the_worst_outcome() {
        let mut c = Counts::default();
        assert_eq!(c.exit_code(false), 0);
        c.games_with_warnings = 1;
        assert_eq!(c.exit_code(false), 0);
        assert_eq!(c.exit_code(true), 1);
        c.games_with_warnings = 0;
        c.invalid_variations = 1;
        assert_eq!(c.exit_code(false), 1);
        c.io_errors = 1;
        assert_eq!(c.exit_code(false), 2);
    }
}
