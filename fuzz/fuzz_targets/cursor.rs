//! Fuzz the cursor readers of keil-archive with any text: the game list's
//! [`Cursor`] (`DATE~ID`), the searches' [`HitCursor`] (`DATE-GAME`) and
//! the text search's [`TextCursor`] (`SCORE-GAME`).
//!
//! Checks: no panic; a cursor that reads writes itself back (`Display`) to
//! a text that reads to the same cursor.

#![no_main]

use keil_archive::{Cursor, HitCursor, TextCursor};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(c) = text.parse::<Cursor>() {
        let again: Cursor = c.to_string().parse().expect("a written cursor reads back");
        assert_eq!(again, c, "from {text:?}");
    }
    if let Ok(c) = text.parse::<HitCursor>() {
        let again: HitCursor = c.to_string().parse().expect("a written cursor reads back");
        assert_eq!(again, c, "from {text:?}");
    }
    if let Some(c) = TextCursor::parse(text) {
        let again = TextCursor::parse(&c.to_string()).expect("a written cursor reads back");
        assert_eq!(again, c, "from {text:?}");
    }
});
