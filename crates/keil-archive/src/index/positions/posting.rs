//! Postings: what an index key maps to (one occurrence of a position in a
//! game: game, ply, symmetry, next move, player to move), how a game's
//! main line becomes its postings, and the next-move codes.
//!
//! Invariants: a game of `n` plies has `n + 1` postings (the start and the
//! position after each ply), in ply order; the next move is stored in the
//! canonical orientation of the posting's key ([`super::key`]); the
//! next-move codes are stored on disk and never change.

use keil_record::Replay;
use keil_rules::{AnyPosition, Board, Color, Move, Point, Position, PositionKey, Symmetry};

use super::key::{any_index_key, button_of, index_key, stone_keys};
use keil_store::kind::GameKind;

/// The next-move codes: end of game, pass, button, or `POINT + index`.
pub(crate) const NEXT_END: u16 = 0;
const NEXT_PASS: u16 = 1;
const NEXT_BUTTON: u16 = 2;
pub(super) const NEXT_POINT: u16 = 3;
/// Kaomi's swap: above every point code (stored on disk: never change).
const NEXT_SWAP: u16 = u16::MAX;

/// One occurrence of a position in a game: the position (by index key), the
/// game, the ply after which it stood (0 = the start), the symmetry that maps
/// the game's orientation onto the canonical one, the move played next (in
/// the canonical orientation) and the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Posting {
    pub key: u64,
    pub game: u32,
    pub ply: u16,
    pub next: u16,
    pub sym: u8,
    pub white_to_move: bool,
}

fn encode_move(board: &Board, mv: Move, sym: Symmetry) -> u16 {
    match mv {
        Move::Pass => NEXT_PASS,
        Move::TakeButton => NEXT_BUTTON,
        Move::Swap => NEXT_SWAP,
        Move::Place(p) => NEXT_POINT + board.transform(p, sym).0,
    }
}

/// The move a next-move code stands for, `None` for the end of the game.
pub(crate) fn decode_move(code: u16) -> Option<Move> {
    match code {
        NEXT_END => None,
        NEXT_PASS => Some(Move::Pass),
        NEXT_BUTTON => Some(Move::TakeButton),
        NEXT_SWAP => Some(Move::Swap),
        c => Some(Move::Place(Point(c - NEXT_POINT))),
    }
}

/// One turn as the index needs it: who played what, what it captured, and
/// (Kaomi) the stones it pushed, `(from, to)` in the order the rules moved
/// them.
pub(crate) struct Step<'a> {
    pub color: Color,
    pub mv: Move,
    pub captured: &'a [Point],
    pub moved: &'a [(Point, Point)],
}

/// The postings of one game of `kind`: the start position and the position
/// after every ply of its main line.
pub(crate) fn postings<'a>(
    kind: GameKind,
    game: u32,
    start: &Position,
    steps: impl ExactSizeIterator<Item = Step<'a>>,
) -> Vec<Posting> {
    let board = start.board();
    let mut position = *start;
    let mut keys = stone_keys(&position);
    let mut stones = position.stones(Color::Black).len() + position.stones(Color::White).len();
    let mut out = Vec::with_capacity(steps.len() + 1);
    let mut steps = steps.peekable();
    let mut to_move = steps.peek().map_or(Color::Black, |s| s.color);
    let mut ply = 0u16;
    loop {
        let (key, sym) = index_key(kind, &position, &keys, stones);
        let step = steps.next();
        out.push(Posting {
            key,
            game,
            ply,
            next: step
                .as_ref()
                .map_or(NEXT_END, |s| encode_move(board, s.mv, sym)),
            sym: sym.index(),
            white_to_move: to_move == Color::White,
        });
        let Some(step) = step else { break };
        match step.mv {
            Move::Place(pt) => {
                position.set(pt, Some(step.color));
                keys.toggle(pt, step.color);
                stones += 1;
                for &c in step.captured {
                    position.set(c, None);
                    keys.toggle(c, step.color.opposite());
                    stones -= 1;
                }
            }
            // The button is the key's lowest bit, not part of the keys.
            Move::TakeButton => position.set_button_taken(true),
            Move::Pass | Move::Swap => {}
        }
        to_move = step.color.opposite();
        ply += 1;
    }
    out
}

/// The postings of one game of any kind but Keil (which has the faster
/// [`postings`]): `steps` give each ply with the canonical key and
/// symmetry index of the position after it.
pub(crate) fn any_postings<'a>(
    game: u32,
    start: &AnyPosition,
    steps: impl ExactSizeIterator<Item = (Step<'a>, (PositionKey, u8))>,
) -> Vec<Posting> {
    let board = start.board();
    let mut position = *start;
    let mut canonical = start.canonical_key();
    let mut out = Vec::with_capacity(steps.len() + 1);
    let mut steps = steps.peekable();
    let mut to_move = steps.peek().map_or(Color::Black, |s| s.0.color);
    let mut ply = 0u16;
    loop {
        let (key, sym) = any_index_key(&position, Some(canonical));
        let step = steps.next();
        out.push(Posting {
            key,
            game,
            ply,
            next: step.as_ref().map_or(NEXT_END, |(s, _)| match s.mv {
                Move::Pass => NEXT_PASS,
                Move::TakeButton => NEXT_BUTTON,
                Move::Swap => NEXT_SWAP,
                Move::Place(p) => NEXT_POINT + board.transform(p, sym).0,
            }),
            sym,
            white_to_move: to_move == Color::White,
        });
        let Some((step, after)) = step else { break };
        match step.mv {
            Move::Place(pt) => {
                position.set(pt, Some(step.color));
                for &c in step.captured {
                    position.set(c, None);
                }
                for &(from, to) in step.moved {
                    position.set(to, position.get(from));
                    position.set(from, None);
                }
            }
            // Kaomi's swap: the one stone on the board changes colour.
            Move::Swap => position = position.swap_colors(),
            Move::Pass | Move::TakeButton => {}
        }
        canonical = after;
        to_move = step.color.opposite();
        ply += 1;
    }
    out
}

/// The postings of a validated game.
pub(crate) fn replay_postings(game: u32, replay: &Replay) -> Vec<Posting> {
    let steps = replay.plies.iter().map(|p| Step {
        color: p.color,
        mv: p.mv,
        captured: &p.captured,
        moved: &p.moved,
    });
    match &replay.start {
        AnyPosition::Keil(start) => postings(GameKind::Keil, game, start, steps),
        start => {
            let keys = replay.plies.iter().map(|p| p.canonical);
            any_postings(game, start, steps.zip(keys))
        }
    }
}

/// What a matched position adds to the query's board: the player to move
/// and the button flag, packed as `button << 1 | white_to_move` (0..4).
pub(super) type Variant = u8;
/// The number of [`Variant`]s.
pub(super) const VARIANTS: usize = 4;

pub(super) fn variant_of(x: &Posting) -> Variant {
    u8::from(button_of(x.key)) << 1 | u8::from(x.white_to_move)
}

pub(super) fn variant_to_move(v: Variant) -> Color {
    if v & 1 != 0 {
        Color::White
    } else {
        Color::Black
    }
}

pub(super) fn variant_button(v: Variant) -> bool {
    v & 2 != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::positions::key::{BUTTON_BIT, key_of};

    /// The replay of a record with these moves, through the real reader
    /// and validator.
    fn replay_of(side: u8, moves: &[&str]) -> Replay {
        let mut sgf = format!("(;GM[Keil]FF[4]SZ[{side}]KM[0]");
        for (i, m) in moves.iter().enumerate() {
            sgf.push_str(&format!(";{}[{m}]", if i % 2 == 0 { 'B' } else { 'W' }));
        }
        sgf.push(')');
        let record = keil_record::read_records(sgf.as_bytes())
            .into_iter()
            .next()
            .unwrap()
            .unwrap();
        keil_record::validate(&record).replay.unwrap()
    }

    #[test]
    fn postings_cover_the_start_and_every_ply_with_next_moves() {
        let replay = replay_of(3, &["a1", "b2", "button", "c3", "pass", "pass"]);
        let ps = replay_postings(9, &replay);
        assert_eq!(ps.len(), 7);
        assert!(ps.iter().all(|p| p.game == 9));
        assert_eq!(
            ps.iter().map(|p| p.ply).collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 4, 5, 6]
        );
        assert_eq!(ps[6].next, NEXT_END);
        assert_eq!(ps[2].next, NEXT_BUTTON);
        assert_eq!(ps[4].next, NEXT_PASS);
        assert!(!ps[0].white_to_move && ps[1].white_to_move);
        // Ply 2: W b2 captured B a1 (the corner), so the position after ply 2
        // is one white stone; its next move is the button.
        let AnyPosition::Keil(start) = replay.start else {
            panic!("a Keil game")
        };
        let board = start.board();
        let after2 =
            Position::from_stones(board, [], [board.parse_point("b2").unwrap()], false).unwrap();
        assert_eq!(ps[2].key, key_of(&after2).0);
        // The button taken at ply 3: the same board, the next key.
        assert_eq!(ps[3].key, ps[2].key | BUTTON_BIT);
        assert_eq!(ps[3].sym, ps[2].sym);
        // The stored next move, mapped back from the canonical orientation,
        // is the move the game played.
        let s = Symmetry::from_index(ps[0].sym).unwrap();
        let canon_move = decode_move(ps[0].next).unwrap();
        assert_eq!(
            canon_move.transform(board, s.inverse()),
            Move::Place(board.parse_point("a1").unwrap())
        );
    }
}
