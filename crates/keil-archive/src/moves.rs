//! The compact move blob stored in `games.moves`.
//!
//! Boards of at most 254 points (sides up to 9) use one byte per move: the
//! point index, `254` a pass, `255` the button. Larger boards use two bytes
//! (little endian) with `0xFFFE` a pass and `0xFFFF` the button.

use keil_rules::{Board, Move, Point};

const NARROW_PASS: u8 = 254;
const NARROW_BUTTON: u8 = 255;
const WIDE_PASS: u16 = 0xFFFE;
const WIDE_BUTTON: u16 = 0xFFFF;

fn narrow(board: &Board) -> bool {
    board.len() <= usize::from(NARROW_PASS)
}

/// Encodes moves of a game on `board`.
pub(crate) fn encode(board: &Board, moves: impl IntoIterator<Item = Move>) -> Vec<u8> {
    let mut out = Vec::new();
    let narrow = narrow(board);
    for mv in moves {
        if narrow {
            out.push(match mv {
                // Index < 254 on a narrow board.
                Move::Place(p) => p.0 as u8,
                Move::Pass => NARROW_PASS,
                Move::TakeButton => NARROW_BUTTON,
            });
        } else {
            let v = match mv {
                Move::Place(p) => p.0,
                Move::Pass => WIDE_PASS,
                Move::TakeButton => WIDE_BUTTON,
            };
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Decodes a blob written by [`encode`] for the same board; `None` when a
/// value is not a point of the board or the length is odd on a wide board.
pub(crate) fn decode(board: &Board, bytes: &[u8]) -> Option<Vec<Move>> {
    let point = |v: u16| (usize::from(v) < board.len()).then_some(Move::Place(Point(v)));
    if narrow(board) {
        bytes
            .iter()
            .map(|&b| match b {
                NARROW_PASS => Some(Move::Pass),
                NARROW_BUTTON => Some(Move::TakeButton),
                b => point(u16::from(b)),
            })
            .collect()
    } else {
        if bytes.len() % 2 != 0 {
            return None;
        }
        bytes
            .chunks_exact(2)
            .map(|c| match u16::from_le_bytes([c[0], c[1]]) {
                WIDE_PASS => Some(Move::Pass),
                WIDE_BUTTON => Some(Move::TakeButton),
                v => point(v),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_narrow_and_wide() {
        for side in [2, 7, 9, 10, 13] {
            let board = Board::new(side).unwrap();
            let mut moves: Vec<Move> = board.points().map(Move::Place).collect();
            moves.extend([Move::Pass, Move::TakeButton, Move::Pass]);
            let blob = encode(board, moves.iter().copied());
            let per = if side <= 9 { 1 } else { 2 };
            assert_eq!(blob.len(), moves.len() * per, "side {side}");
            assert_eq!(decode(board, &blob).unwrap(), moves, "side {side}");
        }
    }

    #[test]
    fn decode_refuses_points_off_the_board() {
        let board = Board::new(2).unwrap();
        assert_eq!(decode(board, &[7]), None);
        let wide = Board::new(13).unwrap();
        assert_eq!(decode(wide, &[1]), None);
    }
}
