//! The compact move blob stored in `games.moves`.
//!
//! Keil (hexagonal boards; unchanged since schema 1): boards of at most 254
//! points (sides up to 9) use one byte per move: the point index, `254` a
//! pass, `255` the button. Larger boards use two bytes (little endian) with
//! `0xFFFE` a pass and `0xFFFF` the button. Colours are not stored: Keil's
//! turns alternate.
//!
//! Go (square boards up to 19×19 = 361 points): two bytes per move (little
//! endian), the colour in bit 15 (set for White) and the point index in the
//! low 15 bits, `GO_PASS` for a pass. Colours are stored because a Go
//! record names the player of each move (handicap moves, `PL`, setup with
//! either colour to move).
//!
//! Kaomi (square boards) is stored as Go is, with `KAOMI_SWAP` for the
//! pie rule's swap.

use keil_rules::{
    AnyBoard, AnyPosition, AnyRuleset, BoardSpec, Color, GoRuleset, HalfPoints, KaomiRuleset, Move,
    Point, Ruleset, ToMove,
};

use crate::error::{Error, Result};
use crate::ids::GameId;
use crate::model::{GameMoves, StoredMoves};

const NARROW_PASS: u8 = 254;
const NARROW_BUTTON: u8 = 255;
const WIDE_PASS: u16 = 0xFFFE;
const WIDE_BUTTON: u16 = 0xFFFF;
/// A Go pass (low 15 bits), with the colour bit.
const GO_PASS: u16 = 0x7FFF;
const GO_WHITE: u16 = 0x8000;
/// Kaomi's swap (low 15 bits), with the colour bit (always White).
const KAOMI_SWAP: u16 = 0x7FFE;

fn narrow(board: AnyBoard) -> bool {
    board.len() <= usize::from(NARROW_PASS)
}

/// Encodes the moves of a game on `board`, each with its player (the
/// colours are written for square boards only).
pub fn encode(board: AnyBoard, moves: impl IntoIterator<Item = (Color, Move)>) -> Vec<u8> {
    let mut out = Vec::new();
    if let AnyBoard::Square(_) = board {
        for (color, mv) in moves {
            let v = match mv {
                Move::Place(p) => p.0,
                // Go never takes the button: the validator refused it.
                Move::Pass | Move::TakeButton => GO_PASS,
                Move::Swap => KAOMI_SWAP,
            };
            let c = if color == Color::White { GO_WHITE } else { 0 };
            out.extend_from_slice(&(v | c).to_le_bytes());
        }
        return out;
    }
    let narrow = narrow(board);
    for (_, mv) in moves {
        if narrow {
            out.push(match mv {
                // Index < 254 on a narrow board.
                Move::Place(p) => p.0 as u8,
                Move::Pass => NARROW_PASS,
                // Keil never swaps: the validator refused it.
                Move::TakeButton | Move::Swap => NARROW_BUTTON,
            });
        } else {
            let v = match mv {
                Move::Place(p) => p.0,
                Move::Pass => WIDE_PASS,
                Move::TakeButton | Move::Swap => WIDE_BUTTON,
            };
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Encodes each move's SGF node (root = 0) for `games.move_nodes` (schema
/// 5): `None` when move i is at node i + 1 (one move per node after a
/// move-less root: nearly every record), else two bytes per move, little
/// endian (nodes past 65,535 are written as 65,535).
pub fn encode_nodes(nodes: impl IntoIterator<Item = u32>) -> Option<Vec<u8>> {
    let nodes: Vec<u32> = nodes.into_iter().collect();
    if nodes.iter().enumerate().all(|(i, &n)| n as usize == i + 1) {
        return None;
    }
    Some(
        nodes
            .iter()
            .flat_map(|&n| (n.min(u32::from(u16::MAX)) as u16).to_le_bytes())
            .collect(),
    )
}

/// Decodes `games.move_nodes` for a game of `moves` moves (`None`: move i
/// at node i + 1); `None` when the blob's length does not fit.
pub fn decode_nodes(blob: Option<&[u8]>, moves: usize) -> Option<Vec<u32>> {
    match blob {
        None => Some((1..=moves as u32).collect()),
        Some(b) if b.len() == moves * 2 => Some(
            b.chunks_exact(2)
                .map(|c| u32::from(u16::from_le_bytes([c[0], c[1]])))
                .collect(),
        ),
        Some(_) => None,
    }
}

/// A decoded blob: the moves, and for Go their colours (empty for Keil).
pub type Decoded = (Vec<Move>, Vec<Color>);

/// Decodes a blob written by [`encode`] for the same board; `None` when a
/// value is not a point of the board or the length is odd on a two-byte
/// board.
pub fn decode(board: AnyBoard, bytes: &[u8]) -> Option<Decoded> {
    let point = |v: u16| (usize::from(v) < board.len()).then_some(Move::Place(Point(v)));
    if let AnyBoard::Square(_) = board {
        if !bytes.len().is_multiple_of(2) {
            return None;
        }
        let mut moves = Vec::with_capacity(bytes.len() / 2);
        let mut colors = Vec::with_capacity(bytes.len() / 2);
        for c in bytes.chunks_exact(2) {
            let v = u16::from_le_bytes([c[0], c[1]]);
            colors.push(if v & GO_WHITE != 0 {
                Color::White
            } else {
                Color::Black
            });
            moves.push(match v & !GO_WHITE {
                GO_PASS => Move::Pass,
                KAOMI_SWAP => Move::Swap,
                v => point(v)?,
            });
        }
        return Some((moves, colors));
    }
    let moves = if narrow(board) {
        bytes
            .iter()
            .map(|&b| match b {
                NARROW_PASS => Some(Move::Pass),
                NARROW_BUTTON => Some(Move::TakeButton),
                b => point(u16::from(b)),
            })
            .collect::<Option<Vec<Move>>>()?
    } else {
        if !bytes.len().is_multiple_of(2) {
            return None;
        }
        bytes
            .chunks_exact(2)
            .map(|c| match u16::from_le_bytes([c[0], c[1]]) {
                WIDE_PASS => Some(Move::Pass),
                WIDE_BUTTON => Some(Move::TakeButton),
                v => point(v),
            })
            .collect::<Option<Vec<Move>>>()?
    };
    Some((moves, Vec::new()))
}

/// The moves whose points make the Dyer signature (1-based), as Kombilo's
/// `libkombilo` takes them.
const DYER_MOVES: [usize; 6] = [20, 31, 40, 51, 60, 71];

/// Games shorter than this (plies) have no signature: too few moves to
/// tell two games apart.
pub const SIGNATURE_MIN_PLIES: usize = 20;

/// The game signature that proposes the stored games a record may be
/// (docs/collections.md, "Duplicates"; go-rules.md, "Metadata"): 16 bytes
/// of a BLAKE3 hash, salted by the game kind, of the board size and either
/// (at least 71 moves) the points of moves 20, 31, 40, 51, 60 and 71 (the
/// Dyer signature Kombilo uses; the number of moves is left out, so that a
/// record cut short after move 71 is proposed too) or (20 to 70 moves) the
/// number of moves and every move. Each move is its point (or pass,
/// button, swap), without its colour.
///
/// The signature is the same for the board's every orientation: it hashes
/// the moves under each of the board's symmetries (8 on a square board, 12
/// on Keil's hexagon) and keeps the smallest hash, and the images of a
/// game drawn in another orientation are the same set. It only proposes
/// candidates (among strong players and programs it collides often):
/// `import/merge.rs` decides.
///
/// `None` under [`SIGNATURE_MIN_PLIES`] moves, or when `blob` is not a
/// move blob of this board (`games.moves`, [`encode`]).
pub fn signature(kind: &str, size: u8, plies: usize, blob: &[u8]) -> Option<[u8; 16]> {
    if plies < SIGNATURE_MIN_PLIES {
        return None;
    }
    let game_kind: keil_rules::GameKind = kind.parse().ok()?;
    let board = keil_rules::BoardSpec::new(game_kind, size)
        .ok()?
        .board()
        .ok()?;
    let (moves, _) = decode(board, blob)?;
    if moves.len() != plies {
        return None;
    }
    let picked: Vec<Move> = if plies >= DYER_MOVES[5] {
        DYER_MOVES.iter().map(|&m| moves[m - 1]).collect()
    } else {
        moves
    };
    let value = |mv: Move| -> u16 {
        match mv {
            Move::Place(p) => p.0,
            Move::Pass => 0xFFFD,
            Move::TakeButton => 0xFFFE,
            Move::Swap => 0xFFFF,
        }
    };
    (0..board.symmetry_count())
        .map(|sym| {
            let mut h = blake3::Hasher::new();
            h.update(b"keil game signature 2\0");
            h.update(kind.as_bytes());
            h.update(&[0, size]);
            if plies < DYER_MOVES[5] {
                h.update(&(plies as u64).to_le_bytes());
            }
            for &mv in &picked {
                let mv = match mv {
                    Move::Place(p) => Move::Place(board.transform(p, sym)),
                    m => m,
                };
                h.update(&value(mv).to_le_bytes());
            }
            let mut out = [0u8; 16];
            out.copy_from_slice(&h.finalize().as_bytes()[..16]);
            out
        })
        .min()
}

impl StoredMoves {
    /// The game's moves, ready to replay.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a value this crate did not write.
    pub fn decode(self, id: GameId) -> Result<GameMoves> {
        let StoredMoves {
            kind,
            size,
            ruleset,
            komi,
            setup,
            blob,
            handicap,
            nodes,
        } = self;
        let corrupt = |reason: String| Error::Corrupt { game: id, reason };
        let kind: keil_rules::GameKind = kind.parse().map_err(|e| corrupt(format!("kind: {e}")))?;
        let spec = BoardSpec::new(kind, size).map_err(|e| corrupt(format!("board: {e}")))?;
        let board = spec.board().map_err(|e| corrupt(format!("board: {e}")))?;
        let komi = HalfPoints(komi);
        let rules = match kind {
            keil_rules::GameKind::Go => {
                let ruleset: GoRuleset = ruleset
                    .parse()
                    .map_err(|e| corrupt(format!("ruleset: {e}")))?;
                AnyRuleset::Go { ruleset, komi }
            }
            keil_rules::GameKind::Kaomi => {
                let ruleset: KaomiRuleset = ruleset
                    .parse()
                    .map_err(|e| corrupt(format!("ruleset: {e}")))?;
                AnyRuleset::Kaomi { ruleset, komi }
            }
            _ => {
                let mut ruleset: Ruleset = ruleset
                    .parse()
                    .map_err(|e| corrupt(format!("ruleset: {e}")))?;
                ruleset.komi = komi;
                AnyRuleset::Keil(ruleset)
            }
        };
        let go = kind == keil_rules::GameKind::Go;
        let (setup, to_move) = match setup {
            None => (None, ToMove::Color(Color::Black)),
            Some(text) => {
                let parsed = AnyPosition::parse_notation(kind, &text)
                    .map_err(|e| corrupt(format!("setup: {e}")))?;
                if parsed.position.spec() != spec {
                    return Err(corrupt("setup on another board".into()));
                }
                let to_move = match parsed.to_move {
                    Some(c) => ToMove::Color(c),
                    None if go => ToMove::Either,
                    None => ToMove::Color(Color::Black),
                };
                (Some(parsed.position), to_move)
            }
        };
        let (moves, colors) =
            decode(board, &blob).ok_or_else(|| corrupt("moves blob".to_string()))?;
        let nodes = decode_nodes(nodes.as_deref(), moves.len())
            .ok_or_else(|| corrupt("move nodes blob".to_string()))?;
        Ok(GameMoves {
            id,
            board,
            rules,
            setup,
            to_move,
            handicap: if go { handicap } else { 0 },
            moves,
            colors,
            nodes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keil_rules::{Board, SquareBoard};

    fn black(moves: &[Move]) -> impl Iterator<Item = (Color, Move)> + '_ {
        moves.iter().map(|&m| (Color::Black, m))
    }

    #[test]
    fn round_trip_narrow_and_wide() {
        for side in [2, 7, 9, 10, 13] {
            let board = AnyBoard::Hex(Board::new(side).unwrap());
            let mut moves: Vec<Move> = board.points().map(Move::Place).collect();
            moves.extend([Move::Pass, Move::TakeButton, Move::Pass]);
            let blob = encode(board, black(&moves));
            let per = if side <= 9 { 1 } else { 2 };
            assert_eq!(blob.len(), moves.len() * per, "side {side}");
            assert_eq!(
                decode(board, &blob).unwrap(),
                (moves, vec![]),
                "side {side}"
            );
        }
    }

    #[test]
    fn keil_encoding_is_unchanged() {
        // Byte for byte as schema 1 wrote it.
        let narrow = AnyBoard::Hex(Board::new(2).unwrap());
        let moves = [Move::Place(Point(3)), Move::Pass, Move::TakeButton];
        assert_eq!(encode(narrow, black(&moves)), vec![3, 254, 255]);
        let wide = AnyBoard::Hex(Board::new(13).unwrap());
        assert_eq!(
            encode(wide, black(&moves)),
            vec![3, 0, 0xFE, 0xFF, 0xFF, 0xFF]
        );
    }

    #[test]
    fn go_round_trips_every_point_pass_and_colour() {
        for n in [1, 9, 13, 19] {
            let board = AnyBoard::Square(SquareBoard::new(n).unwrap());
            let mut plies: Vec<(Color, Move)> = board
                .points()
                .enumerate()
                .map(|(i, p)| {
                    let c = if i % 3 == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    (c, Move::Place(p))
                })
                .collect();
            plies.extend([(Color::Black, Move::Pass), (Color::White, Move::Pass)]);
            let blob = encode(board, plies.iter().copied());
            assert_eq!(blob.len(), plies.len() * 2, "size {n}");
            let (moves, colors) = decode(board, &blob).unwrap();
            let back: Vec<(Color, Move)> = colors.into_iter().zip(moves).collect();
            assert_eq!(back, plies, "size {n}");
        }
    }

    #[test]
    fn node_numbers_are_stored_only_when_not_one_move_per_node() {
        assert_eq!(encode_nodes([1, 2, 3]), None);
        assert_eq!(decode_nodes(None, 3), Some(vec![1, 2, 3]));
        // A comment node between moves 1 and 2; a move in the root.
        for nodes in [vec![1, 3, 4], vec![0, 1, 2]] {
            let blob = encode_nodes(nodes.iter().copied()).unwrap();
            assert_eq!(decode_nodes(Some(&blob), 3), Some(nodes));
            assert_eq!(decode_nodes(Some(&blob), 2), None);
        }
    }

    #[test]
    fn decode_refuses_points_off_the_board() {
        let board = AnyBoard::Hex(Board::new(2).unwrap());
        assert_eq!(decode(board, &[7]), None);
        let wide = AnyBoard::Hex(Board::new(13).unwrap());
        assert_eq!(decode(wide, &[1]), None);
        let go = AnyBoard::Square(SquareBoard::new(9).unwrap());
        assert_eq!(decode(go, &[81, 0]), None);
        assert_eq!(decode(go, &[1]), None);
    }

    #[test]
    fn signatures_see_the_dyer_moves_only_from_71_moves() {
        let long: Vec<u8> = (0..200u16).flat_map(|v| v.to_le_bytes()).collect();
        let sig = signature("go", 19, 200, &long).unwrap();
        // A move outside the six changes nothing; one of the six does.
        let mut other = long.clone();
        other[2 * 21] ^= 1;
        assert_eq!(signature("go", 19, 200, &other), Some(sig));
        other[2 * 19] ^= 1;
        assert_ne!(signature("go", 19, 200, &other), Some(sig));
        // Size and kind are part of it; from 71 moves the move count is
        // not (a record cut short is proposed too).
        let small: Vec<u8> = (0..200u16).flat_map(|v| (v % 169).to_le_bytes()).collect();
        assert_ne!(signature("go", 13, 200, &small), Some(sig));
        assert_ne!(signature("kaomi", 19, 200, &long), Some(sig));
        assert_eq!(signature("go", 19, 150, &long[..300]), Some(sig));
        // 20 to 70 moves: every move and their number count; under 20,
        // none.
        let short = &long[..2 * 30];
        let s = signature("go", 19, 30, short).unwrap();
        let mut changed = short.to_vec();
        changed[2] ^= 1;
        assert_ne!(signature("go", 19, 30, &changed), Some(s));
        assert_ne!(signature("go", 19, 29, &short[..58]), Some(s));
        assert_eq!(signature("go", 19, 19, &long[..38]), None);
        assert_eq!(signature("go", 19, 30, &long[..59]), None);
    }

    #[test]
    fn signatures_are_the_same_in_every_orientation() {
        let board = AnyBoard::Square(SquareBoard::new(19).unwrap());
        let moves: Vec<Move> = (0..120u16).map(|v| Move::Place(Point(v * 3))).collect();
        let blob = encode(board, black(&moves));
        let sig = signature("go", 19, 120, &blob).unwrap();
        for sym in 0..8 {
            let turned: Vec<Move> = moves
                .iter()
                .map(|&m| match m {
                    Move::Place(p) => Move::Place(board.transform(p, sym)),
                    m => m,
                })
                .collect();
            let blob = encode(board, black(&turned));
            assert_eq!(signature("go", 19, 120, &blob), Some(sig), "symmetry {sym}");
        }
        // Keil's hexagon: its 12 symmetries.
        let hex = AnyBoard::Hex(Board::new(7).unwrap());
        let moves: Vec<Move> = (0..80u16).map(|v| Move::Place(Point(v % 127))).collect();
        let sig = signature("keil", 7, 80, &encode(hex, black(&moves))).unwrap();
        for sym in 0..12 {
            let turned: Vec<Move> = moves
                .iter()
                .map(|&m| match m {
                    Move::Place(p) => Move::Place(hex.transform(p, sym)),
                    m => m,
                })
                .collect();
            let blob = encode(hex, black(&turned));
            assert_eq!(signature("keil", 7, 80, &blob), Some(sig), "symmetry {sym}");
        }
    }
}
