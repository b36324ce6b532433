//! Byte spans and the line index that turns them into line and column.

use std::fmt;
use std::ops::Range;

/// A half-open range `[start, end)` of byte offsets into the decoded text.
///
/// Every node, property and value of a parsed tree carries one, and so does
/// every [`Diagnostic`](crate::Diagnostic). Units are bytes of the UTF-8 text
/// that was given to [`parse`](crate::parse()) (after decoding, see
/// [`decode`](crate::decode())); use a [`LineIndex`] to get a line and column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset one past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` (inclusive) to `end` (exclusive), in bytes.
    pub const fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// An empty span at `offset`.
    pub const fn at(offset: usize) -> Span {
        Span {
            start: offset,
            end: offset,
        }
    }

    /// Length in bytes.
    pub const fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// True when the span covers no byte.
    pub const fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    /// The span as a range, for slicing the text it points into.
    pub const fn range(&self) -> Range<usize> {
        self.start..self.end
    }
}

impl From<Range<usize>> for Span {
    fn from(r: Range<usize>) -> Span {
        Span::new(r.start, r.end)
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// A position in the text: byte offset plus 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// Byte offset into the text.
    pub offset: usize,
    /// Line number, starting at 1.
    pub line: usize,
    /// Column, starting at 1, counted in characters (Unicode scalar values)
    /// from the start of the line.
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Maps byte offsets of one text to lines and columns.
///
/// Line breaks are `\n`, `\r\n` and a lone `\r` (old Mac files). Building the
/// index costs one pass over the text; each lookup is a binary search.
#[derive(Clone, Debug)]
pub struct LineIndex<'t> {
    text: &'t str,
    /// Byte offset at which each line starts; the first is always 0.
    starts: Vec<usize>,
}

impl<'t> LineIndex<'t> {
    /// Index the line starts of `text`.
    pub fn new(text: &'t str) -> LineIndex<'t> {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                continue; // the '\n' that follows ends this line
            }
            starts.push(i + 1);
        }
        LineIndex { text, starts }
    }

    /// The text this index was built over.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// Number of lines (a text without line break has one).
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The line and column of a byte offset. Offsets past the end are clamped
    /// to the end; an offset inside a multi-byte character counts as that
    /// character.
    pub fn location(&self, offset: usize) -> Location {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let column = 1 + count_chars(&self.text.as_bytes()[start..offset]);
        Location {
            offset,
            line: line + 1,
            column,
        }
    }

    /// The byte span of a 1-based line, without its line break. Lines past the
    /// end give an empty span at the end of the text.
    pub fn line_span(&self, line: usize) -> Span {
        let len = self.text.len();
        let Some(&start) = self.starts.get(line.wrapping_sub(1)) else {
            return Span::at(len);
        };
        let bytes = self.text.as_bytes();
        let mut end = self.starts.get(line).copied().unwrap_or(len);
        while end > start && matches!(bytes[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        Span::new(start, end)
    }

    /// The text of a 1-based line, without its line break.
    pub fn line_text(&self, line: usize) -> &'t str {
        let span = self.line_span(line);
        &self.text[span.range()]
    }
}

/// Number of characters in a UTF-8 byte slice that may start or end inside a
/// character (counts the bytes that are not continuation bytes).
pub(crate) fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}
