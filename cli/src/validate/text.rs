//! `keil validate`'s text for people: rustc-style messages with the
//! source line and a marker, in colour when asked.

use keil_record::{Illegal, ParsedFile, Reason, Status, Verdict, Warning};
use keil_sgf::{Diagnostic, Severity, Span};

/// How to print.
#[derive(Clone, Copy)]
pub(super) struct Style {
    pub(super) json: bool,
    pub(super) color: bool,
    pub(super) verbose: bool,
    pub(super) quiet: bool,
}

/// A rustc-style message with the source line and a marker under `span`.
pub(super) fn render(
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

/// A game's verdict for people: the illegal move of its main line, those
/// of its variations, its warnings, and with `--verbose` the line of a
/// valid game.
pub(super) fn human_verdict(
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
    let error = |ill: &Illegal, message: String| {
        render(
            file,
            name,
            Severity::Error,
            ill.reason.code(),
            message,
            ill.span,
            style,
        )
    };
    let mut out = String::new();
    if let Some(ill) = &v.illegal {
        out.push_str(&error(ill, illegal_message(&prefix, ill, v)));
    }
    for var in &v.variations {
        // A variation below the main line's illegal move inherits it:
        // reported once, above.
        if let Some(ill) = var.illegal.as_ref().filter(|i| i.ply >= var.branch_ply) {
            let message = format!(
                "{prefix}variation {:?} (from ply {}): {ill}",
                var.path, var.branch_ply
            );
            out.push_str(&error(ill, message));
        }
    }
    for w in &v.warnings {
        out.push_str(&warning_text(file, name, &prefix, w, style));
    }
    if style.verbose && v.illegal.is_none() {
        out.push_str(&valid_line(name, many.then_some(game), v, style));
    }
    out
}

/// What the main line's illegal move says; a result that contradicts the
/// count (Go, Keil) or the full board (Kaomi) says what they give.
fn illegal_message(prefix: &str, ill: &Illegal, v: &Verdict) -> String {
    let (ended, not_ended) = if v.kind == keil_rules::GameKind::Kaomi {
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
    match (ill.reason, v.winner, v.margin) {
        (Reason::ResultMismatch, Some(w), Some(m)) => format!(
            "{prefix}{ill}: {ended} {}",
            match w.color() {
                Some(c) => format!("{}+{m}", c.letter()),
                None => "a draw (0)".to_string(),
            }
        ),
        (Reason::ResultMismatch, _, _) => format!("{prefix}{ill}: {not_ended}"),
        _ => format!("{prefix}{ill}"),
    }
}

/// A warning: an SGF one rendered with its source line, the others as a
/// header and where the record says it.
fn warning_text(
    file: &ParsedFile<'_>,
    name: &str,
    prefix: &str,
    w: &Warning,
    style: Style,
) -> String {
    match w {
        Warning::Sgf {
            code,
            message,
            span,
            ..
        } => render(
            file,
            name,
            Severity::Warning,
            code,
            format!("{prefix}{message}"),
            *span,
            style,
        ),
        _ => {
            let head = format!("warning[{}]", w.code());
            let at = match w.seen() {
                Some(seen) => format!("{name}:{}:{}", seen.line, seen.column),
                None => name.to_string(),
            };
            format!(
                "{}: {prefix}{w}\n  --> {at}\n\n",
                paint(style.color, "1;33", &head)
            )
        }
    }
}

/// The line of a valid game (`--verbose`): its status, the result the
/// rules give, its plies; `game` its number when the input holds several.
fn valid_line(name: &str, game: Option<usize>, v: &Verdict, style: Style) -> String {
    let result = match (v.status, v.winner, v.margin) {
        (Status::Complete | Status::Scored, Some(w), Some(m)) => match w.color() {
            Some(c) => format!(" {}+{m}", c.letter()),
            None => " draw".to_string(),
        },
        (_, Some(w), _) => format!(" {} wins", w.code()),
        _ => String::new(),
    };
    format!(
        "{name}{}: {}{result}, {} plies\n",
        game.map(|g| format!(" game {g}")).unwrap_or_default(),
        paint(style.color, "32", v.status.code()),
        v.plies
    )
}

pub(super) fn paint(color: bool, sgr: &str, text: &str) -> String {
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
