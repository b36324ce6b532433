//! Diagnostics: what the decoder and the parser found wrong, where, and how
//! bad it is, plus a renderer that shows the source line with a marker.

use std::fmt;
use std::fmt::Write as _;

use crate::span::{LineIndex, Location, Span, count_chars};

/// How bad a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// The input broke an SGF rule, and the parser repaired it (the repair is
    /// described in the message). The tree is usable.
    Warning,
    /// The input could not be read as written: a limit was exceeded, a value
    /// was never closed, or (in strict mode) a rule was broken. The tree the
    /// diagnostic belongs to may be incomplete.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// Stable machine-readable codes carried by [`Diagnostic::code`].
///
/// The messages may change; these codes do not.
pub mod code {
    /// Text (other than white space) before the first game tree.
    pub const TEXT_BEFORE_TREE: &str = "text-before-tree";
    /// Text between or after game trees (other than white space).
    pub const TEXT_OUTSIDE_TREE: &str = "text-outside-tree";
    /// A `)` with no open game tree.
    pub const EXTRA_CLOSE_PAREN: &str = "extra-close-paren";
    /// A game tree or variation that is not closed by `)` at the end of the file.
    pub const MISSING_CLOSE_PAREN: &str = "missing-close-paren";
    /// A game tree or variation whose first node lacks its `;`.
    pub const MISSING_SEMICOLON: &str = "missing-semicolon";
    /// A game tree or variation with no node at all (`()`), dropped.
    pub const EMPTY_GAME_TREE: &str = "empty-game-tree";
    /// A game tree that opens with a variation instead of a node; an empty
    /// root node was added.
    pub const MISSING_ROOT_NODE: &str = "missing-root-node";
    /// A node after the variations of a sequence (`(;a(;b);c)`); it was
    /// attached as one more variation.
    pub const NODE_AFTER_VARIATION: &str = "node-after-variation";
    /// An FF\[3\]-style identifier with lower-case letters, normalised to its
    /// upper-case letters (`AddBlack` → `AB`).
    pub const LOWERCASE_IDENTIFIER: &str = "lowercase-identifier";
    /// An identifier without any upper-case letter; the property was dropped.
    pub const INVALID_IDENTIFIER: &str = "invalid-identifier";
    /// A property identifier not followed by a value; the property was dropped.
    pub const PROPERTY_WITHOUT_VALUE: &str = "property-without-value";
    /// A value (`[...]`) with no property identifier; it was dropped.
    pub const VALUE_WITHOUT_PROPERTY: &str = "value-without-property";
    /// A property that occurs twice in one node (both are kept).
    pub const DUPLICATE_PROPERTY: &str = "duplicate-property";
    /// A `]` inside a value that should have been escaped; the value was
    /// extended to the next `]` that the rest of the file makes plausible.
    pub const UNESCAPED_BRACKET: &str = "unescaped-bracket";
    /// Characters that are not SGF syntax, skipped.
    pub const UNEXPECTED_CHARACTER: &str = "unexpected-character";
    /// A value that is still open at the end of the file.
    pub const UNTERMINATED_VALUE: &str = "unterminated-value";
    /// The file holds no game tree at all.
    pub const NO_GAME_TREE: &str = "no-game-tree";
    /// The file is larger than [`ParseOptions::max_file_size`](crate::ParseOptions::max_file_size).
    pub const FILE_TOO_LARGE: &str = "file-too-large";
    /// A value is longer than [`ParseOptions::max_value_len`](crate::ParseOptions::max_value_len).
    pub const VALUE_TOO_LONG: &str = "value-too-long";
    /// A game tree has more nodes than [`ParseOptions::max_nodes`](crate::ParseOptions::max_nodes).
    pub const TOO_MANY_NODES: &str = "too-many-nodes";
    /// Variations nest deeper than [`ParseOptions::max_depth`](crate::ParseOptions::max_depth).
    pub const TOO_DEEP: &str = "nesting-too-deep";
    /// The declared charset (`CA`) is not known; the text was decoded as if
    /// there were no `CA`.
    pub const UNKNOWN_CHARSET: &str = "unknown-charset";
    /// The declared charset cannot be right (for example UTF-16 in a file
    /// whose `CA` could be read as ASCII) and was ignored.
    pub const CHARSET_IGNORED: &str = "charset-ignored";
    /// No `CA`, and the bytes are not UTF-8: the charset was guessed.
    pub const CHARSET_GUESSED: &str = "charset-guessed";
    /// Bytes that are not valid in the charset used; each was replaced by
    /// U+FFFD.
    pub const UNDECODABLE_BYTES: &str = "undecodable-bytes";
}

/// One problem found while decoding or parsing, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Warning (repaired) or error (not repairable, or strict mode).
    pub severity: Severity,
    /// A short stable machine code, one of the constants in [`code`].
    pub code: &'static str,
    /// What is wrong and, for a warning, how it was repaired.
    pub message: String,
    /// Where, in bytes of the decoded text.
    pub span: Span,
    /// Index into [`Collection::trees`](crate::Collection::trees) of the game
    /// tree this is about; `None` for the file as a whole (charset, text
    /// outside trees, limits on the file).
    pub tree: Option<usize>,
}

impl Diagnostic {
    /// A diagnostic about the file as a whole.
    pub fn new(
        severity: Severity,
        code: &'static str,
        message: impl Into<String>,
        span: Span,
    ) -> Diagnostic {
        Diagnostic {
            severity,
            code,
            message: message.into(),
            span,
            tree: None,
        }
    }

    /// True for [`Severity::Error`].
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Line and column of the start of the span.
    pub fn location(&self, index: &LineIndex<'_>) -> Location {
        index.location(self.span.start)
    }

    /// Render for a terminal, in the style of rustc: a header with severity,
    /// code and message, the `file:line:column`, the source line and a row of
    /// `^` under the fault (to the end of the line when the span runs on).
    ///
    /// ```
    /// use keil_sgf::{parse, LineIndex, ParseOptions};
    /// let text = "(;B[aa];W[bb]";
    /// let c = parse(text, &ParseOptions::default());
    /// let shown = c.diagnostics[0].render("game.sgf", &LineIndex::new(text));
    /// assert!(shown.starts_with("warning[missing-close-paren]"));
    /// assert!(shown.contains("game.sgf:1:14"));
    /// ```
    pub fn render(&self, file_name: &str, index: &LineIndex<'_>) -> String {
        let loc = self.location(index);
        let line_span = index.line_span(loc.line);
        let line_text = index.line_text(loc.line);
        let bytes = index.text().as_bytes();
        let mark_end = self.span.end.clamp(loc.offset, line_span.end);
        let width = count_chars(&bytes[loc.offset.min(line_span.end)..mark_end]).max(1);
        let number = loc.line.to_string();
        let pad = " ".repeat(number.len());
        let mut out = String::new();
        let _ = writeln!(out, "{}[{}]: {}", self.severity, self.code, self.message);
        let _ = writeln!(out, "{pad}--> {file_name}:{loc}");
        let _ = writeln!(out, "{pad} |");
        let shown: String = line_text
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .collect();
        let _ = writeln!(out, "{number} | {shown}");
        let _ = writeln!(
            out,
            "{pad} | {}{}",
            " ".repeat(loc.column - 1),
            "^".repeat(width)
        );
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}[{}] at bytes {}: {}",
            self.severity, self.code, self.span, self.message
        )
    }
}

/// Render several diagnostics of one text, one after the other (see
/// [`Diagnostic::render`]).
pub fn render_all(diagnostics: &[Diagnostic], file_name: &str, text: &str) -> String {
    let index = LineIndex::new(text);
    diagnostics
        .iter()
        .map(|d| d.render(file_name, &index))
        .collect::<Vec<_>>()
        .join("\n")
}
