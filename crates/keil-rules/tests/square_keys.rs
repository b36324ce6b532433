//! The position keys of Go and Kaomi, pinned: archives store them, so a
//! position's key, canonical key and canonical symmetry never change.

use keil_rules::{
    Color, GoGame, GoPosition, GoRuleset, HalfPoints, KaomiGame, KaomiPosition, KaomiRuleset, Move,
    Point, SquareBoard,
};

/// Go positions in the position notation, with their key, canonical key and
/// the index of a symmetry whose image has it.
const GO: &[(&str, u64, u64, u8)] = &[
    ("1", 0x34a6_5a3d_0eea_fd5a, 0x34a6_5a3d_0eea_fd5a, 0),
    ("b", 0xc95f_81d0_d840_4e0a, 0xc95f_81d0_d840_4e0a, 0),
    (
        "9/9/9/9/9/9/9/9/9",
        0x9d76_2d33_ad50_c7bc,
        0x9d76_2d33_ad50_c7bc,
        0,
    ),
    (
        "bw7/9/9/9/9/9/9/9/9",
        0xc293_4eb2_d4ea_0800,
        0x1abd_3d17_08d9_b9f0,
        4,
    ),
    ("2b/1w1/3", 0xe4ec_178e_6731_6cec, 0x1393_7416_246e_dd3c, 2),
    (
        "19/19/19/3b15/19/19/19/19/19/19/19/19/19/19/15w3/19/19/19/19",
        0xce6c_bf1b_8856_5012,
        0x0b88_db47_afbd_5943,
        7,
    ),
];

/// Kaomi positions, as for Go.
const KAOMI: &[(&str, u64, u64, u8)] = &[
    ("2/2", 0x9e35_f74e_a671_84d5, 0x9e35_f74e_a671_84d5, 0),
    ("bw/2", 0x0214_3525_85b2_caf7, 0x0214_3525_85b2_caf7, 0),
    (
        "7/7/7/3b3/7/7/7",
        0x9298_f525_c6c3_4b54,
        0x9298_f525_c6c3_4b54,
        0,
    ),
    ("b1w/3/2b", 0x8cb8_2c43_487b_1269, 0x1512_c691_7b70_3aae, 1),
    (
        "bwbw/wbwb/bwbw/wbw1",
        0x99d9_ffb1_f5d1_0845,
        0x2d9e_3e2d_db81_3392,
        1,
    ),
];

#[test]
fn go_keys_are_pinned() {
    for &(text, key, canon, s) in GO {
        let (pos, _) = GoPosition::parse_notation(text).unwrap();
        assert_eq!(pos.key().0, key, "{text}");
        assert_eq!(pos.canonical_key().0.0, canon, "{text}");
        assert_eq!(pos.canonical_key().1.index(), s, "{text}");
    }
}

#[test]
fn kaomi_keys_are_pinned() {
    for &(text, key, canon, s) in KAOMI {
        let (pos, _) = KaomiPosition::parse_notation(text).unwrap();
        assert_eq!(pos.key().0, key, "{text}");
        assert_eq!(pos.canonical_key().0.0, canon, "{text}");
        assert_eq!(pos.canonical_key().1.index(), s, "{text}");
    }
}

/// The keys a game reports after each move are the keys of its position.
#[test]
fn game_keys_follow_the_position_keys() {
    let board = SquareBoard::new(5).unwrap();
    let mut go = GoGame::new(board, GoRuleset::Chinese, HalfPoints(15));
    let mut kaomi = KaomiGame::new(board, KaomiRuleset::STANDARD, HalfPoints(0));
    for (i, p) in [12u16, 6, 7, 13, 0, 24].into_iter().enumerate() {
        let color = if i % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        let out = go.play_as(color, Move::Place(Point(p))).unwrap();
        assert_eq!(out.key, go.position().key());
        assert_eq!(go.canonical_key(), go.position().canonical_key());
        let out = kaomi.play_as(color, Move::Place(Point(p))).unwrap();
        assert_eq!(out.key, kaomi.position().key());
        assert_eq!(kaomi.canonical_key(), kaomi.position().canonical_key());
    }
}
