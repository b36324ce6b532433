//! Reading a person's text query ([`TextPlan::parse`]): total, linear and
//! bounded, with no syntax error.
//!
//! A query is words separated by white space. Every word must occur, each
//! in any of the fields players, event, place, game name, comments (so
//! `lee sedol alphago` finds the game of Lee Sedol against AlphaGo), case
//! and accents ignored. Three constructs are read when they are well-formed, and
//! anything else is searched as words:
//!
//! - `"two words"`: a phrase, the words next to each other in this order
//!   (a quote without its closing quote is not a phrase: it is ignored);
//! - `player:`, `event:`, `place:`, `name:`, `comment:` before a word or a
//!   phrase:
//!   only in that field (any other `word:` is part of the word);
//! - `-word` (or `-"a phrase"`): games without it; `+word` is `word`.
//!
//! A word is cut into the index's tokens (runs of letters and digits,
//! lower-cased, accents folded to ASCII), so `O'Brien` finds the tokens
//! `o brien` next to each other, as the index stored the same text, and
//! `a:b:c` the tokens `a b c`. Brackets, `AND`, `OR`, `NOT`, `*`, `~`,
//! `^` are not operators: `AND OR NOT` looks for those three words and
//! brackets are dropped, so no nesting is ever parsed. A query with no
//! word (only punctuation) finds nothing; so does one whose every word is
//! excluded.
//!
//! Bounds: at most [`MAX_TEXT_QUERY_BYTES`] bytes and
//! [`MAX_TEXT_QUERY_WORDS`] words, refused as a whole beyond them
//! ([`TextQueryError`]); the plan is built in one pass over the text.

use crate::error::{MAX_TEXT_QUERY_BYTES, MAX_TEXT_QUERY_WORDS, TextQueryError};
use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, SimpleTokenizer, TextAnalyzer, TokenStream,
};

/// A field of the text index, as a query names it (`player:`, `event:`,
/// `place:`, `name:`, `comment:`); serialised as that name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TextField {
    /// The players' names and teams (`PB`, `PW`, `BT`, `WT`).
    Player,
    /// The event (`EV`).
    Event,
    /// The place (`PC`).
    Place,
    /// The game name (`GN`).
    Name,
    /// The comments of every node (`C`).
    Comment,
}

impl TextField {
    /// Every field.
    pub const ALL: [TextField; 5] = [
        TextField::Player,
        TextField::Event,
        TextField::Place,
        TextField::Name,
        TextField::Comment,
    ];

    /// The name a query writes before `:` (`player`, `event`, `place`,
    /// `name`, `comment`).
    pub fn name(self) -> &'static str {
        match self {
            TextField::Player => "player",
            TextField::Event => "event",
            TextField::Place => "place",
            TextField::Name => "name",
            TextField::Comment => "comment",
        }
    }
}

/// One condition of a [`TextPlan`]: its words (one word, or a phrase of
/// several next to each other in this order) occur, or with `excluded` do
/// not occur, in `field` (or in any field).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextClause {
    /// The field; `None`: any field.
    pub field: Option<TextField>,
    /// The index's tokens (lower case, accents folded); never empty.
    pub words: Vec<String>,
    /// Whether games with these words are excluded (`-word`).
    pub excluded: bool,
}

/// A text query as read ([`TextPlan::parse`]): the clauses every game found
/// satisfies, all of them (see the module's docs for the notation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextPlan {
    clauses: Vec<TextClause>,
}

/// The tokenizer of the text index, for its documents and its queries
/// alike: runs of letters and digits, lower-cased, folded to ASCII.
pub(crate) fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

impl TextPlan {
    /// Reads `query` (any text: see the module's docs). Linear in the
    /// query's length; never recursive.
    ///
    /// # Errors
    /// [`TextQueryError::TooLong`] past [`MAX_TEXT_QUERY_BYTES`] (checked
    /// before anything is read); [`TextQueryError::TooManyWords`] past
    /// [`MAX_TEXT_QUERY_WORDS`].
    pub fn parse(query: &str) -> Result<TextPlan, TextQueryError> {
        if query.len() > MAX_TEXT_QUERY_BYTES {
            return Err(TextQueryError::TooLong { bytes: query.len() });
        }
        let mut analyzer = analyzer();
        let mut clauses = Vec::new();
        let mut words = 0;
        let mut rest = query;
        loop {
            rest = rest.trim_start();
            if rest.is_empty() {
                break;
            }
            let (clause, after) = next_clause(rest, &mut analyzer);
            rest = after;
            if let Some(clause) = clause {
                words += clause.words.len();
                clauses.push(clause);
            }
        }
        if words > MAX_TEXT_QUERY_WORDS {
            return Err(TextQueryError::TooManyWords { words });
        }
        Ok(TextPlan { clauses })
    }

    /// The clauses, in the query's order.
    pub fn clauses(&self) -> &[TextClause] {
        &self.clauses
    }

    /// Whether the plan can find a game: it has a clause that is not
    /// excluded.
    pub fn can_match(&self) -> bool {
        self.clauses.iter().any(|c| !c.excluded)
    }

    /// Takes the years out of the plan: every clause that is a bare word
    /// of four digits from [`YEARS`] (`1846`; not `-1846`, not
    /// `event:1846`, not part of a phrase such as `shusaku-1846`), when
    /// the plan keeps a clause to find without them. Returns them, in the
    /// query's order, each once; a plan of years alone keeps them as
    /// words (and returns none).
    pub fn take_years(&mut self) -> Vec<u16> {
        let year = |c: &TextClause| -> Option<u16> {
            let [word] = c.words.as_slice() else {
                return None;
            };
            let digits = word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit());
            let y: u16 = word.parse().ok().filter(|_| digits)?;
            (c.field.is_none() && !c.excluded && YEARS.contains(&y)).then_some(y)
        };
        if !self
            .clauses
            .iter()
            .any(|c| !c.excluded && year(c).is_none())
        {
            return Vec::new();
        }
        let mut years = Vec::new();
        self.clauses.retain(|c| match year(c) {
            Some(y) => {
                if !years.contains(&y) {
                    years.push(y);
                }
                false
            }
            None => true,
        });
        years
    }
}

/// The years a text query reads as a date filter rather than as words
/// ([`TextPlan::take_years`]).
pub const YEARS: std::ops::RangeInclusive<u16> = 1600..=2100;

/// Reads one clause at the start of `text` (not empty, no leading white
/// space): `[-+][field:]("phrase"|word)`. Returns the clause (`None` when
/// it has no word) and the text after it.
fn next_clause<'a>(text: &'a str, analyzer: &mut TextAnalyzer) -> (Option<TextClause>, &'a str) {
    let mut rest = text;
    let mut excluded = false;
    // A sign counts only before something; alone it is punctuation.
    if let Some(after) = rest.strip_prefix(['-', '+'])
        && after.starts_with(|c: char| !c.is_whitespace())
    {
        excluded = rest.starts_with('-');
        rest = after;
    }
    let mut field = None;
    let chunk = &rest[..rest.find(char::is_whitespace).unwrap_or(rest.len())];
    if let Some((name, _)) = chunk.split_once(':')
        && let Some(f) = TextField::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
        && chunk.len() > name.len() + 1
    {
        field = Some(f);
        rest = &rest[name.len() + 1..];
    }
    // A phrase: balanced quotes; anything else runs to the next space.
    let (body, after) = match rest
        .strip_prefix('"')
        .and_then(|inner| inner.split_once('"'))
    {
        Some((phrase, after)) => (phrase, after),
        None => rest.split_at(rest.find(char::is_whitespace).unwrap_or(rest.len())),
    };
    let words = tokens(body, analyzer);
    let clause = (!words.is_empty()).then_some(TextClause {
        field,
        words,
        excluded,
    });
    (clause, after)
}

/// The index's tokens of `text`.
fn tokens(text: &str, analyzer: &mut TextAnalyzer) -> Vec<String> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while let Some(t) = stream.next() {
        if !t.text.is_empty() {
            out.push(t.text.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clause(field: Option<TextField>, words: &[&str], excluded: bool) -> TextClause {
        TextClause {
            field,
            words: words.iter().map(|w| w.to_string()).collect(),
            excluded,
        }
    }

    fn plan(q: &str) -> Vec<TextClause> {
        TextPlan::parse(q).unwrap().clauses
    }

    #[test]
    fn words_phrases_fields_and_exclusions() {
        assert_eq!(
            plan("Spring  CUP"),
            [
                clause(None, &["spring"], false),
                clause(None, &["cup"], false)
            ]
        );
        assert_eq!(
            plan("\"Montréal Classic\" -final"),
            [
                clause(None, &["montreal", "classic"], false),
                clause(None, &["final"], true)
            ]
        );
        assert_eq!(
            plan("EVENT:cup place:\"new york\" +name:x comment:"),
            [
                clause(Some(TextField::Event), &["cup"], false),
                clause(Some(TextField::Place), &["new", "york"], false),
                clause(Some(TextField::Name), &["x"], false),
                clause(None, &["comment"], false),
            ]
        );
    }

    #[test]
    fn what_a_person_types_is_searched_as_words() {
        assert_eq!(plan("O'Brien"), [clause(None, &["o", "brien"], false)]);
        assert_eq!(plan("a:b:c"), [clause(None, &["a", "b", "c"], false)]);
        assert_eq!(
            plan("AND OR NOT"),
            [
                clause(None, &["and"], false),
                clause(None, &["or"], false),
                clause(None, &["not"], false)
            ]
        );
        // An unbalanced quote, brackets, lone signs: punctuation.
        assert_eq!(
            plan("\"cup (((final - + ))"),
            [
                clause(None, &["cup"], false),
                clause(None, &["final"], false)
            ]
        );
        assert_eq!(plan("\" ((( ))) - + :"), []);
        assert_eq!(
            plan("unknown:field"),
            [clause(None, &["unknown", "field"], false)]
        );
        assert!(!TextPlan::parse("-cup").unwrap().can_match());
        assert!(!TextPlan::parse("(((").unwrap().can_match());
    }

    #[test]
    fn bare_four_digit_years_are_taken_out_when_words_remain() {
        let mut p = TextPlan::parse("Shusaku 1846 1846 1599 -1850 event:1851 a-1852 2101").unwrap();
        assert_eq!(p.take_years(), [1846]);
        assert_eq!(
            p.clauses,
            [
                clause(None, &["shusaku"], false),
                clause(None, &["1599"], false),
                clause(None, &["1850"], true),
                clause(Some(TextField::Event), &["1851"], false),
                clause(None, &["a", "1852"], false),
                clause(None, &["2101"], false),
            ]
        );
        let mut two = TextPlan::parse("1846 cup 1847").unwrap();
        assert_eq!(two.take_years(), [1846, 1847]);
        assert_eq!(two.clauses, [clause(None, &["cup"], false)]);
        // Years alone stay words: there is nothing else to find.
        let mut alone = TextPlan::parse("1846 -cup").unwrap();
        assert_eq!(alone.take_years(), Vec::<u16>::new());
        assert_eq!(alone.clauses.len(), 2);
    }

    #[test]
    fn deep_nesting_is_flat_and_length_and_words_are_bounded() {
        let q = format!("{}a{}", "(".repeat(490), ")".repeat(490));
        assert_eq!(plan(&q), [clause(None, &["a"], false)]);
        let long = format!("{}a{}", "(".repeat(3000), ")".repeat(3000));
        assert_eq!(
            TextPlan::parse(&long),
            Err(TextQueryError::TooLong { bytes: 6001 })
        );
        assert!(TextPlan::parse(&"a".repeat(MAX_TEXT_QUERY_BYTES)).is_ok());
        let many = "w ".repeat(MAX_TEXT_QUERY_WORDS + 1);
        assert_eq!(
            TextPlan::parse(&many),
            Err(TextQueryError::TooManyWords {
                words: MAX_TEXT_QUERY_WORDS + 1
            })
        );
        assert!(TextPlan::parse(&"w ".repeat(MAX_TEXT_QUERY_WORDS)).is_ok());
    }
}
