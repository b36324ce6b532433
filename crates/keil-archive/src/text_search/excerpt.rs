//! The query's words found again in a field's text, as the index found
//! them (the same tokenizer: case and accents folded), and the excerpt
//! around them.

use std::ops::Range;

use serde::Serialize;
use tantivy::tokenizer::{TextAnalyzer, TokenStream};

use crate::index::text::query::{TextClause, TextField};

/// At most about this many characters of a field's text are shown around
/// its first match (a longer text is cut, `…` marking the cut).
pub const EXCERPT_CHARS: usize = 200;

/// How many characters before the first match an excerpt starts, at
/// most.
const BEFORE_CHARS: usize = 60;

/// A piece of a field's text with the query's words in it marked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Excerpt {
    /// The text, as the record has it (line breaks and tabs as spaces),
    /// with `…` where it was cut.
    pub text: String,
    /// The marked ranges of [`Excerpt::text`] (byte offsets, on character
    /// boundaries), in order, not overlapping.
    pub marks: Vec<Range<usize>>,
}

impl Excerpt {
    /// The text in pieces, in order, each with whether it is marked: what
    /// a page writes, escaping each piece and wrapping the marked ones
    /// (`<mark>`).
    pub fn segments(&self) -> Vec<(&str, bool)> {
        let mut out = Vec::with_capacity(2 * self.marks.len() + 1);
        let mut at = 0;
        for m in &self.marks {
            if m.start > at {
                out.push((&self.text[at..m.start], false));
            }
            out.push((&self.text[m.clone()], true));
            at = m.end;
        }
        if at < self.text.len() {
            out.push((&self.text[at..], false));
        }
        out
    }
}

/// Where the query's clauses that concern `field` occur in `text`: the
/// marked ranges (byte offsets, merged, in order) and which clauses occur
/// (bit `i` for `clauses[i]`: a query has at most 64 words, so at most 64
/// clauses). A clause of one word marks each token equal to it; a phrase
/// marks each run of tokens equal to its words in order.
pub(crate) fn find(
    text: &str,
    field: TextField,
    clauses: &[TextClause],
    analyzer: &mut TextAnalyzer,
) -> (Vec<Range<usize>>, u64) {
    let wanted: Vec<(usize, &TextClause)> = clauses
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.excluded && c.field.is_none_or(|f| f == field))
        .collect();
    if wanted.is_empty() || text.is_empty() {
        return (Vec::new(), 0);
    }
    let mut tokens: Vec<(String, Range<usize>)> = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while let Some(t) = stream.next() {
        tokens.push((t.text.clone(), t.offset_from..t.offset_to));
    }
    let mut marks = Vec::new();
    let mut matched = 0u64;
    for (i, c) in wanted {
        let n = c.words.len();
        for start in 0..tokens.len().saturating_sub(n - 1) {
            let run = &tokens[start..start + n];
            if run.iter().zip(&c.words).all(|((t, _), w)| t == w) {
                marks.push(run[0].1.start..run[n - 1].1.end);
                matched |= 1u64.checked_shl(i as u32).unwrap_or(0);
            }
        }
    }
    marks.sort_unstable_by_key(|m| (m.start, m.end));
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(marks.len());
    for m in marks {
        match merged.last_mut() {
            Some(last) if m.start <= last.end => last.end = last.end.max(m.end),
            _ => merged.push(m),
        }
    }
    (merged, matched)
}

/// The excerpt of `text` around its first mark: the whole text when it
/// is short, else about [`EXCERPT_CHARS`] characters from a little before
/// the first mark, cut at spaces where one is near, `…` at each cut.
pub(crate) fn excerpt(text: &str, marks: &[Range<usize>]) -> Excerpt {
    let first = marks.first().map_or(0, |m| m.start);
    let (from, to) = window(text, first);
    let mut out = String::with_capacity(to - from + 8);
    let lead = if from > 0 { "…" } else { "" };
    out.push_str(lead);
    out.extend(
        text[from..to]
            .chars()
            .map(|c| if c.is_whitespace() { ' ' } else { c }),
    );
    // Every white space character became one space: offsets past the
    // first shift by what the replaced characters' lengths differ.
    let shift = |at: usize| -> usize {
        let before = &text[from..at];
        let lost: usize = before
            .chars()
            .filter(|c| c.is_whitespace())
            .map(|c| c.len_utf8() - 1)
            .sum();
        lead.len() + at - from - lost
    };
    let kept = marks
        .iter()
        .filter(|m| m.start >= from && m.end <= to)
        .map(|m| shift(m.start)..shift(m.end))
        .collect();
    if to < text.len() {
        out.push('…');
    }
    Excerpt {
        text: out,
        marks: kept,
    }
}

/// The byte range an excerpt shows of `text`, its first mark at `first`.
fn window(text: &str, first: usize) -> (usize, usize) {
    if text.chars().count() <= EXCERPT_CHARS {
        return (0, text.len());
    }
    // Back up to BEFORE_CHARS characters, then forward to a word's start.
    let mut from = first;
    for (n, (i, _)) in text[..first].char_indices().rev().enumerate() {
        if n >= BEFORE_CHARS {
            break;
        }
        from = i;
    }
    if from > 0
        && let Some(space) = text[from..first].find(char::is_whitespace)
    {
        from += space + 1;
    }
    let to = text[from..]
        .char_indices()
        .nth(EXCERPT_CHARS)
        .map_or(text.len(), |(i, _)| from + i);
    // Back to the end of a word, unless that loses the first mark.
    let to = match text[..to].rfind(char::is_whitespace) {
        Some(space) if to < text.len() && space > first && space > from => space,
        _ => to,
    };
    (from, to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::text::query::{TextPlan, analyzer};

    fn marks(text: &str, field: TextField, query: &str) -> (Vec<Range<usize>>, u32) {
        let plan = TextPlan::parse(query).unwrap();
        let (marks, clauses) = find(text, field, plan.clauses(), &mut analyzer());
        (marks, clauses.count_ones())
    }

    fn found<'a>(text: &'a str, field: TextField, query: &str) -> (Vec<&'a str>, u32) {
        let (marks, n) = marks(text, field, query);
        (marks.into_iter().map(|m| &text[m]).collect(), n)
    }

    #[test]
    fn words_and_phrases_are_found_as_the_index_reads_them() {
        let text = "The EAR-reddening move: Shūsaku's ear reddening, not ear... reddening";
        assert_eq!(
            found(text, TextField::Comment, "ear-reddening"),
            (
                vec!["EAR-reddening", "ear reddening", "ear... reddening"],
                1
            )
        );
        assert_eq!(
            found(text, TextField::Comment, "shusaku move -not"),
            (vec!["move", "Shūsaku"], 2)
        );
        // A clause for another field is not looked for.
        assert_eq!(found(text, TextField::Comment, "event:move"), (vec![], 0));
        assert_eq!(
            found(text, TextField::Event, "event:move"),
            (vec!["move"], 1)
        );
    }

    #[test]
    fn a_long_text_is_cut_around_its_first_mark_and_marks_follow() {
        let text = format!(
            "{}the\tkey point{}",
            "word ".repeat(100),
            " tail".repeat(100)
        );
        let (marks, _) = marks(&text, TextField::Comment, "key");
        let e = excerpt(&text, &marks);
        assert!(
            e.text.starts_with('…') && e.text.ends_with('…'),
            "{}",
            e.text
        );
        assert!(e.text.chars().count() <= EXCERPT_CHARS + 2);
        assert!(e.text.contains("the key point"), "{}", e.text);
        let segments = e.segments();
        let marked: Vec<&str> = segments.iter().filter(|s| s.1).map(|s| s.0).collect();
        assert_eq!(marked, ["key"]);
        assert_eq!(segments.iter().map(|s| s.0).collect::<String>(), e.text);
    }

    #[test]
    fn a_short_text_is_whole_with_its_white_space_as_spaces() {
        let text = "Honinbo\u{2003}Shūsaku\nGennan Inseki";
        let (marks, _) = marks(text, TextField::Player, "shusaku gennan");
        let e = excerpt(text, &marks);
        assert_eq!(e.text, "Honinbo Shūsaku Gennan Inseki");
        let marked: Vec<&str> = e
            .segments()
            .into_iter()
            .filter(|s| s.1)
            .map(|s| s.0)
            .collect();
        assert_eq!(marked, ["Shūsaku", "Gennan"]);
    }
}
