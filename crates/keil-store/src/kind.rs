//! The kinds of game an archive holds: keil-rules' [`GameKind`] (one home
//! for the concept), with the archive's own number per kind in its keys.

pub use keil_rules::{GameKind, GameKindError};

/// A number per kind, part of the position index's exact keys (so that
/// positions of two kinds never share a key). Stored on disk: never
/// renumber; a new kind takes the next number (3 bits: at most 8).
pub fn key_code(kind: GameKind) -> u64 {
    match kind {
        GameKind::Keil => 0,
        GameKind::Go => 1,
        GameKind::Kaomi => 2,
        // A kind this archive version cannot store never reaches a key:
        // imports refuse it first.
        _ => 7,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_and_have_distinct_key_codes() {
        for k in GameKind::ALL {
            assert_eq!(k.code().parse::<GameKind>().unwrap(), k);
            assert_eq!(k.code().to_uppercase().parse::<GameKind>().unwrap(), k);
            assert_eq!(
                serde_json::to_string(&k).unwrap(),
                format!("\"{}\"", k.code())
            );
            assert!(key_code(k) < 7);
        }
        let mut codes: Vec<u64> = GameKind::ALL.iter().map(|&k| key_code(k)).collect();
        codes.dedup();
        assert_eq!(codes.len(), GameKind::ALL.len());
        assert!("chess".parse::<GameKind>().is_err());
    }
}
