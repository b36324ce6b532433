//! Fuzz the pattern notation reader of keil-archive ([`Pattern::parse`]):
//! the first three bytes choose the kind, the board size and the mode, the
//! rest is the pattern text.
//!
//! Checks: no panic, and time linear in the input; a pattern that reads
//! writes a notation (`Display`) that reads back to the same cells; the
//! pattern as drawn, grown for its natural mode (the page's `auto`), keeps
//! every cell it had.

#![no_main]

use keil_archive::{Pattern, PatternMode};
use keil_rules::GameKind;
use libfuzzer_sys::fuzz_target;

const MODES: [PatternMode; 5] = [
    PatternMode::Fixed,
    PatternMode::Corner,
    PatternMode::Side,
    PatternMode::Centre,
    PatternMode::Anywhere,
];

fuzz_target!(|data: &[u8]| {
    let [k, size, mode, rest @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let kind = GameKind::ALL[usize::from(*k) % GameKind::ALL.len()];
    // Sizes 0..=20 reach every board and the refusals on either side.
    let size = size % 21;
    let mode = MODES[usize::from(*mode) % MODES.len()];
    let Ok(pattern) = Pattern::parse(kind, size, text, mode) else {
        return;
    };
    let written = pattern.to_string();
    let again = Pattern::parse(kind, size, &written, mode)
        .unwrap_or_else(|e| panic!("{written:?} (from {text:?}) does not read back: {e}"));
    assert_eq!(again.cells(), pattern.cells(), "{written:?} from {text:?}");
    let drawn = Pattern::parse_drawn(kind, size, text, mode)
        .unwrap_or_else(|e| panic!("{text:?} parses but not as drawn: {e}"));
    let grown = drawn.clone().reaching(drawn.natural_mode());
    for cell in drawn.cells() {
        assert!(grown.cells().contains(cell), "{text:?} lost {cell:?}");
    }
});
