//! Index keys: the number a position is filed under in the position index,
//! and the symmetry onto the canonical orientation it is stored in.
//!
//! Invariants: a position of at most [`EXACT_STONES`] stones gets an exact,
//! injective code (bit 63 set) of its canonical form, game kind and board
//! size; any other a canonical Zobrist key (bit 63 clear), so symmetric
//! images share a key. The canonical orientation depends on
//! the stones alone and the button flag is the key's lowest bit
//! ([`BUTTON_BIT`]): a board's two button states are adjacent keys in one
//! orientation. Keys are stored in segments: any change to them needs a
//! new [`KEY_VERSION`].

use keil_rules::{
    AnyBoard, AnyPosition, Color, Move, PointSet, Position, PositionKey, SymmetricKeys, Symmetry,
};

use keil_store::kind::GameKind;

/// The version of the index keys that segments are written with (the
/// `keys` column of `position_segments`). Version 2 (schema 3): exact codes
/// carry the game kind and the board size, the canonical orientation comes
/// from the stones alone, and the button flag is the lowest bit. Segments of
/// an older version are rebuilt when the archive is opened.
pub(crate) const KEY_VERSION: i64 = 2;

/// Positions with at most this many stones get an exact (injective) index key.
const EXACT_STONES: usize = 5;
/// Marks an exact key; Zobrist keys have this bit cleared.
const EXACT_BIT: u64 = 1 << 63;
/// The button flag: the lowest bit of every key.
pub(super) const BUTTON_BIT: u64 = 1;
/// Bits per stone in an exact code: point index and colour.
const STONE_BITS: u32 = 10;
/// Point indexes an exact code can hold (9 bits).
const EXACT_POINTS: usize = 1 << (STONE_BITS - 1);
/// Board sizes an exact code can hold (5 bits).
const EXACT_SIZES: u8 = 1 << 5;

/// The index key of a position of game `kind` and the symmetry that maps it
/// onto the canonical orientation the index stores it in. The orientation
/// depends on the stones only; the button flag is the key's lowest bit.
///
/// Positions with at most [`EXACT_STONES`] stones (the openings, which many
/// games share) get an injective code of their canonical form, game kind
/// and board size: a match needs no confirmation, and positions of two
/// kinds never share a key. Larger positions get the canonical Zobrist key
/// of their stones with the top and lowest bits cleared; a match is
/// confirmed by replaying the game. `keys` are the symmetric keys of the
/// stones (the button left out).
pub(crate) fn index_key(
    kind: GameKind,
    position: &Position,
    keys: &SymmetricKeys,
    stones: usize,
) -> (u64, Symmetry) {
    let button = u64::from(position.button_taken());
    let board = position.board();
    if stones <= EXACT_STONES && board.len() <= EXACT_POINTS && board.side() < EXACT_SIZES {
        let (canon, sym) = position.canonical();
        (exact_code(kind, &canon) | button, sym)
    } else {
        let (key, sym) = keys.canonical();
        ((key.0 & !EXACT_BIT & !BUTTON_BIT) | button, sym)
    }
}

/// Whether an index key is exact (no confirmation needed).
pub(crate) fn is_exact(key: u64) -> bool {
    key & EXACT_BIT != 0
}

/// Whether an index key is of a position with the button taken.
pub(super) fn button_of(key: u64) -> bool {
    key & BUTTON_BIT != 0
}

/// marker (bit 63) | kind (3 bits) << 59 | size (5 bits) << 54 | count
/// (3 bits) << 51 | stones in board order from bit 1, 10 bits each: point
/// index (9 bits) << 1 | colour. The button bit (0) is left clear.
fn exact_code(kind: GameKind, canon: &Position) -> u64 {
    pack_exact(
        kind,
        canon.board().side(),
        canon.stones(Color::Black),
        canon.stones(Color::White),
    )
}

/// The exact code of [`exact_code`] from a board size and the stones.
fn pack_exact(kind: GameKind, size: u8, black: PointSet, white: PointSet) -> u64 {
    let mut stones: Vec<(usize, u64)> = black
        .iter()
        .map(|p| (p.index(), 0))
        .chain(white.iter().map(|p| (p.index(), 1)))
        .collect();
    stones.sort_unstable();
    debug_assert!(stones.len() <= EXACT_STONES);
    let mut code = EXACT_BIT
        | keil_store::kind::key_code(kind) << 59
        | u64::from(size) << 54
        | (stones.len() as u64) << 51;
    for (i, (p, c)) in stones.into_iter().enumerate() {
        code |= ((p as u64) << 1 | c) << (1 + STONE_BITS as usize * i);
    }
    code
}

/// The number of stones of a position.
fn stone_count(p: &AnyPosition) -> usize {
    p.stones(Color::Black).len() + p.stones(Color::White).len()
}

/// The game kind of a position, as the archive names it.
fn kind_of(p: &AnyPosition) -> GameKind {
    match p {
        AnyPosition::Keil(_) => GameKind::Keil,
        AnyPosition::Go(_) => GameKind::Go,
        AnyPosition::Kaomi(_) => GameKind::Kaomi,
    }
}

/// [`index_key`] for a position of any kind, the symmetry as its index in
/// the board's group. `canonical` is the canonical Zobrist key and
/// symmetry index of the position (from the game or
/// [`AnyPosition::canonical_key`]; computed when `None` and needed), used
/// for Go only (Keil's keys are of the stones alone, button left out). Go
/// has no button: its keys' lowest bit is clear.
pub(crate) fn any_index_key(
    position: &AnyPosition,
    canonical: Option<(PositionKey, u8)>,
) -> (u64, u8) {
    if let AnyPosition::Keil(p) = position {
        let (key, sym) = index_key(GameKind::Keil, p, &stone_keys(p), stone_count(position));
        return (key, sym.index());
    }
    if stone_count(position) <= EXACT_STONES {
        let (canon, sym) = position.canonical();
        let code = pack_exact(
            kind_of(position),
            canon.board().size(),
            canon.stones(Color::Black),
            canon.stones(Color::White),
        );
        (code, sym)
    } else {
        let (key, sym) = canonical.unwrap_or_else(|| position.canonical_key());
        (key.0 & !EXACT_BIT & !BUTTON_BIT, sym)
    }
}

/// A move for people on the board of `position`: the point's display
/// name (`g7`, `D16`, Kaomi `cc`), `pass`, `button` or `swap`.
pub(crate) fn show_move(position: &AnyPosition, mv: Move) -> String {
    match mv {
        Move::Place(p) => position.display_name(p),
        Move::Pass => "pass".to_string(),
        Move::TakeButton => "button".to_string(),
        Move::Swap => "swap".to_string(),
    }
}

pub(super) fn transform_move(board: AnyBoard, mv: Move, sym: u8) -> Move {
    match mv {
        Move::Place(p) => Move::Place(board.transform(p, sym)),
        m => m,
    }
}

/// The symmetric Zobrist keys of a position's stones (its button left out:
/// the button is the key's lowest bit, and the orientation must not depend
/// on it).
pub(super) fn stone_keys(position: &Position) -> SymmetricKeys {
    let mut stones = *position;
    stones.set_button_taken(false);
    SymmetricKeys::new(&stones)
}

/// The Keil index key of a position and its orientation.
#[cfg(test)]
pub(super) fn key_of(p: &Position) -> (u64, Symmetry) {
    let stones = p.stones(Color::Black).len() + p.stones(Color::White).len();
    index_key(GameKind::Keil, p, &stone_keys(p), stones)
}

#[cfg(test)]
mod tests {
    use super::*;
    use keil_rules::{Board, Point};

    #[test]
    fn small_positions_get_exact_keys_shared_by_their_images() {
        let board = Board::new(7).unwrap();
        let p = |n| board.parse_point(n).unwrap();
        let a = Position::from_stones(board, [p("g7"), p("a1")], [p("b3")], false).unwrap();
        let (ka, sa) = key_of(&a);
        assert!(is_exact(ka) && !button_of(ka));
        for s in Symmetry::all() {
            assert_eq!(key_of(&a.transform(s)).0, ka);
        }
        // Different positions, different exact keys.
        let b = Position::from_stones(board, [p("g7"), p("a1")], [p("b4")], false).unwrap();
        assert_ne!(key_of(&b).0, ka);
        // The button is the lowest bit, in the same orientation.
        let mut c = a;
        c.set_button_taken(true);
        assert_eq!(key_of(&c), (ka | BUTTON_BIT, sa));
        // The kind and the board size are part of the code.
        let (canon, _) = a.canonical();
        assert_ne!(
            exact_code(GameKind::Go, &canon),
            exact_code(GameKind::Keil, &canon)
        );
        let side5 = Board::new(5).unwrap();
        let e =
            Position::from_stones(side5, [side5.parse_point("a1").unwrap()], [], false).unwrap();
        let f = Position::from_stones(board, [p("a1")], [], false).unwrap();
        assert_ne!(key_of(&e).0, key_of(&f).0);
        // Six stones: a Zobrist key, top bit clear; its button state is the
        // lowest bit too, in the same orientation.
        let mut d = Position::from_stones(
            board,
            [p("g7"), p("a1"), p("c3")],
            [p("b3"), p("d4"), p("e5")],
            false,
        )
        .unwrap();
        let (kd, sd) = key_of(&d);
        assert!(!is_exact(kd) && !button_of(kd));
        d.set_button_taken(true);
        assert_eq!(key_of(&d), (kd | BUTTON_BIT, sd));
    }

    #[test]
    fn every_side_fits_the_exact_code() {
        // Side 13 has the most points (469 < 512); five stones at the last
        // points still decode to distinct codes per colour pattern.
        let board = Board::new(13).unwrap();
        let last: Vec<Point> = board.points().skip(board.len() - 5).collect();
        let all_black = Position::from_stones(board, last.clone(), [], false).unwrap();
        let all_white = Position::from_stones(board, [], last, false).unwrap();
        let (kb, kw) = (key_of(&all_black).0, key_of(&all_white).0);
        assert!(is_exact(kb) && is_exact(kw) && kb != kw);
    }
}
