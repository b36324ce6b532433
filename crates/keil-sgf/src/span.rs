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
    /// Lines before the text's first (a part of a larger text,
    /// [`LineIndex::starting_at`]); 0 for a whole text.
    lines_before: usize,
    /// Characters before the text's start on its first line; 0 for a whole
    /// text.
    columns_before: usize,
}

impl<'t> LineIndex<'t> {
    /// Index the line starts of `text`.
    pub fn new(text: &'t str) -> LineIndex<'t> {
        LineIndex::starting_at(text, 1, 1)
    }

    /// Index the line starts of `text`, a part of a larger text that starts
    /// at 1-based `line` and `column` of it: [`LineIndex::location`] gives
    /// the larger text's line and column (and the offset into `text`), and
    /// [`LineIndex::line_span`] takes the larger text's line numbers.
    pub fn starting_at(text: &'t str, line: usize, column: usize) -> LineIndex<'t> {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                continue; // the '\n' that follows ends this line
            }
            starts.push(i + 1);
        }
        LineIndex {
            text,
            starts,
            lines_before: line.saturating_sub(1),
            columns_before: column.saturating_sub(1),
        }
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
        let mut column = 1 + count_chars(&self.text.as_bytes()[start..offset]);
        if line == 0 {
            column += self.columns_before;
        }
        Location {
            offset,
            line: self.lines_before + line + 1,
            column,
        }
    }

    /// The byte span of a 1-based line, without its line break. Lines past the
    /// end give an empty span at the end of the text.
    pub fn line_span(&self, line: usize) -> Span {
        let len = self.text.len();
        let Some(&start) = self
            .starts
            .get(line.wrapping_sub(1).wrapping_sub(self.lines_before))
        else {
            return Span::at(len);
        };
        let bytes = self.text.as_bytes();
        let mut end = self
            .starts
            .get(line.wrapping_sub(self.lines_before))
            .copied()
            .unwrap_or(len);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_indexed_on_its_own_gives_the_whole_texts_lines_and_columns() {
        let text = "ab\r\ncé(;B[aa])\rx\n\n(;W[bb]\n)z";
        let whole = LineIndex::new(text);
        for cut in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let start = whole.location(cut);
            let part = LineIndex::starting_at(&text[cut..], start.line, start.column);
            for at in (cut..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                let (w, p) = (whole.location(at), part.location(at - cut));
                assert_eq!((w.line, w.column), (p.line, p.column), "cut {cut}, at {at}");
                assert_eq!(p.offset, at - cut);
            }
            // Lines the part holds whole read the same.
            for line in start.line + 1..=whole.line_count() + 1 {
                assert_eq!(part.line_text(line), whole.line_text(line), "line {line}");
            }
        }
    }
}
