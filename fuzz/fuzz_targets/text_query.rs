//! Fuzz the text query reader of keil-archive ([`TextPlan::parse`], the
//! pure step of [`keil_archive::Archive::search_text`] before the index)
//! with any text.
//!
//! Checks: no panic and time linear in the input (no recursion: any
//! nesting of brackets and quotes is flat); a query over
//! [`MAX_TEXT_QUERY_BYTES`] never reads, one within it reads unless it has
//! more than [`MAX_TEXT_QUERY_WORDS`] words; the plan
//! has at most [`MAX_TEXT_QUERY_WORDS`] words, no clause without a word
//! and no empty word; the years taken out of it ([`TextPlan::take_years`])
//! are in [`TEXT_YEARS`], each once, and leave a clause to find.

#![no_main]

use keil_archive::{
    MAX_TEXT_QUERY_BYTES, MAX_TEXT_QUERY_WORDS, TEXT_YEARS, TextPlan, TextQueryError,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut plan = match TextPlan::parse(&text) {
        Ok(plan) => plan,
        Err(TextQueryError::TooLong { bytes }) => {
            assert!(
                bytes == text.len() && bytes > MAX_TEXT_QUERY_BYTES,
                "{text:?}"
            );
            return;
        }
        Err(TextQueryError::TooManyWords { words }) => {
            assert!(text.len() <= MAX_TEXT_QUERY_BYTES && words > MAX_TEXT_QUERY_WORDS);
            return;
        }
    };
    assert!(text.len() <= MAX_TEXT_QUERY_BYTES);
    let words: usize = plan.clauses().iter().map(|c| c.words.len()).sum();
    assert!(words <= MAX_TEXT_QUERY_WORDS, "{text:?}: {plan:?}");
    for clause in plan.clauses() {
        assert!(!clause.words.is_empty(), "{text:?}: {plan:?}");
        for w in &clause.words {
            assert!(
                !w.is_empty() && !w.contains(char::is_whitespace),
                "{text:?}: {w:?}"
            );
        }
    }
    let clauses = plan.clauses().len();
    let years = plan.take_years();
    if !years.is_empty() {
        assert!(plan.can_match(), "{text:?}: {plan:?}");
        assert!(plan.clauses().len() + years.len() <= clauses, "{text:?}");
    }
    for (k, y) in years.iter().enumerate() {
        assert!(
            TEXT_YEARS.contains(y) && !years[..k].contains(y),
            "{text:?}: {years:?}"
        );
    }
});
