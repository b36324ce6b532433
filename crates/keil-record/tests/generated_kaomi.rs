//! Generated Kaomi games (keil-gen): every record reads, validates, and
//! its `RE` is the computed result (complete games) or a resignation;
//! both variants, the pie rule's swap, sizes 2 to 9; the same seed gives
//! the same bytes.

use keil_gen::{GameResult, GameStatus, Generator, GeneratorConfig};
use keil_record::{Status, read_records, validate};
use keil_rules::{GameKind, KaomiVariant};

fn config(size: u8, seed: u64, variant: Option<KaomiVariant>) -> GeneratorConfig {
    GeneratorConfig {
        game: GameKind::Kaomi,
        games: 60,
        size,
        seed,
        kaomi_variant: variant,
        ..GeneratorConfig::default()
    }
}

#[test]
fn every_generated_record_validates_with_its_result() {
    let (mut swaps, mut squared, mut resigned, mut games) = (0, 0, 0, 0);
    for size in 2..=9 {
        for variant in [None, Some(KaomiVariant::Squared)] {
            for game in Generator::new(config(size, u64::from(size), variant)).unwrap() {
                games += 1;
                let records = read_records(game.record.as_bytes());
                let record = records[0].as_ref().expect("a generated record reads");
                let v = validate(record).verdict;
                assert!(v.is_valid(), "{}\n{v:?}", game.record);
                let kaomi = v.kaomi.as_ref().unwrap();
                swaps += usize::from(kaomi.swapped);
                squared +=
                    usize::from(record.kaomi().unwrap().ruleset.variant == KaomiVariant::Squared);
                match game.status {
                    GameStatus::Complete => {
                        assert_eq!(v.status, Status::Complete, "{}", game.record);
                        assert!(v.re_checked);
                        let GameResult::Counted { margin, .. } = game.result else {
                            panic!("a complete game has a counted result")
                        };
                        assert_eq!(v.margin, Some(margin));
                    }
                    GameStatus::Resigned => {
                        resigned += 1;
                        assert_eq!(v.status, Status::Resigned, "{}", game.record);
                    }
                }
            }
        }
    }
    assert!(swaps > 20, "{swaps} swaps in {games} games");
    assert!(squared > games / 2, "{squared} Squared games of {games}");
    assert!(resigned > 10, "{resigned} resignations of {games}");
}

#[test]
fn same_seed_same_bytes() {
    let a: Vec<_> = Generator::new(config(7, 11, None))
        .unwrap()
        .map(|g| g.record)
        .collect();
    let b: Vec<_> = Generator::new(config(7, 11, None))
        .unwrap()
        .map(|g| g.record)
        .collect();
    assert_eq!(a, b);
    assert!(a[0].starts_with("(;GM[Kaomi]FF[4]CA[UTF-8]SZ[7]"));
}
