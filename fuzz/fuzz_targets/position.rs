//! Fuzz the position notation readers of keil-archive with any text:
//! [`PositionQuery::parse_inferred`] with no kind and with each kind.
//!
//! Checks: no panic, and time linear in the input (libFuzzer's `-timeout`
//! catches a super-linear case); a query read back from its own notation
//! ([`PositionQuery::notation`]) reads again to the same notation.

#![no_main]

use keil_archive::PositionQuery;
use keil_rules::GameKind;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let kinds = [
        None,
        Some(GameKind::Keil),
        Some(GameKind::Go),
        Some(GameKind::Kaomi),
    ];
    for kind in kinds {
        let Ok(query) = PositionQuery::parse_inferred(kind, text) else {
            continue;
        };
        let notation = query.notation();
        let again = PositionQuery::parse_inferred(Some(query.position.kind()), &notation)
            .unwrap_or_else(|e| panic!("{notation:?} (from {text:?}) does not read back: {e}"));
        assert_eq!(again.notation(), notation, "from {text:?}");
    }
});
