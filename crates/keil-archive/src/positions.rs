//! The position index: which games reached a position, at which ply, and
//! what was played next (issue 6, "positions").
//!
//! Every position of every stored game's main line (the start and the
//! position after each ply) is a *posting*: index key, game, ply, the
//! symmetry onto the canonical orientation, the next move (stored in the
//! canonical orientation) and the player to move.
//!
//! - **Keys.** A position with at most five stones (the openings that many
//!   games share) is keyed by an exact, injective code of its canonical form
//!   with the game kind and the board size; any other by its canonical
//!   Zobrist key (keil-rules; salted by game kind once Go is indexed), so
//!   the symmetric images
//!   (12 on the hexagon, 8 on the square) share a key. A Zobrist match is
//!   confirmed by replaying the game to the ply and comparing positions:
//!   hash collisions never produce false matches, and the long posting lists
//!   (openings) need no replay. The canonical orientation is chosen from
//!   the stones alone, and the button flag is the key's lowest bit: the two
//!   button states of a board are adjacent keys in one orientation, so a
//!   query without a button suffix reads one key range in one pass.
//!   Segments record the version of their keys ([`KEY_VERSION`]); older
//!   ones are rebuilt from the games when the archive is opened.
//! - **Storage.** Postings live in immutable, sorted segments (blocks of 32
//!   postings, varint-delta encoded, with a block directory), one blob row of
//!   `position_segments` per import batch, written in the batch's own
//!   transaction. Segments merge by tiers of four. The index is derived: it
//!   can always be rebuilt from the games table.
//! - **Search.** Segments are immutable; each is read once and kept in
//!   memory (about 1.5 KB per game), and a lookup binary-searches its block
//!   directory and decodes only the blocks that may hold the key. Filters
//!   and statistics use an in-memory summary of every game (date, winner,
//!   players).
//! - **Queries.** A query's absent player-to-move or button suffix matches
//!   either value (record-format.md, "Position notation"); answers write the
//!   matched position in full, and continuations are counted per matched
//!   position (who moves, button flag).
//! - **Popular positions.** The matches of a search before paging (first
//!   occurrence per game, newest first, and the continuation counts) are
//!   kept in a bounded cache (64 MiB, weighted by size) when the key had at
//!   least 256 postings, keyed by the index generation (a hash of the
//!   segments' ids and nonces) and the query's filters: the next search of
//!   the empty board, or of its next page, costs a binary search, and any
//!   import or reindex makes a new generation.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use chrono::NaiveDate;
use keil_record::Replay;
use keil_rules::{
    AnyBoard, AnyPosition, Board, Color, Move, NotationError, Point, PointSet, Position,
    PositionKey, SymmetricKeys, Symmetry,
};
use rusqlite::OptionalExtension;

use crate::games::game_moves;
use crate::{Budget, Error, GameId, GameKind, Result};

// ---- index keys -------------------------------------------------------------

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
const BUTTON_BIT: u64 = 1;
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
fn button_of(key: u64) -> bool {
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
        | crate::kind::key_code(kind) << 59
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

fn transform_move(board: AnyBoard, mv: Move, sym: u8) -> Move {
    match mv {
        Move::Place(p) => Move::Place(board.transform(p, sym)),
        m => m,
    }
}

/// The symmetric Zobrist keys of a position's stones (its button left out:
/// the button is the key's lowest bit, and the orientation must not depend
/// on it).
fn stone_keys(position: &Position) -> SymmetricKeys {
    let mut stones = *position;
    stones.set_button_taken(false);
    SymmetricKeys::new(&stones)
}

// ---- postings ---------------------------------------------------------------

/// The next-move codes: end of game, pass, button, or `POINT + index`.
pub(crate) const NEXT_END: u16 = 0;
const NEXT_PASS: u16 = 1;
const NEXT_BUTTON: u16 = 2;
const NEXT_POINT: u16 = 3;
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

// ---- segments -----------------------------------------------------------------

/// Postings per block: the unit of decoding.
const BLOCK: usize = 32;
const MAGIC: &[u8; 4] = b"KPX1";
/// magic, nonce u64, postings u32, blocks u32.
const HEADER: usize = 4 + 8 + 4 + 4;
/// first key u64, offset u32.
const INDEX_ENTRY: usize = 12;

/// Appends `v` as a LEB128 varint (7 bits a byte, low first).
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a LEB128 varint at `at` and moves past it; `None` when `buf`
/// ends inside it or it runs over 64 bits.
pub(crate) fn get_varint(buf: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// Encodes sorted postings as a segment:
/// `KPX1 | nonce u64 | postings u32 | blocks u32 | blocks × (first key u64,
/// offset u32) | block data`. Inside a block, each posting is: key delta,
/// game (delta from the previous posting when the key repeats), ply, and
/// `next << 5 | sym << 1 | white_to_move`, all LEB128 varints. All integers
/// in the header are little-endian.
pub(crate) fn encode_segment(postings: &[Posting], nonce: u64) -> Vec<u8> {
    debug_assert!(postings.windows(2).all(|w| w[0] <= w[1]));
    let blocks = postings.len().div_ceil(BLOCK);
    let mut data = Vec::with_capacity(postings.len() * 8);
    let mut index = Vec::with_capacity(blocks * INDEX_ENTRY);
    for block in postings.chunks(BLOCK) {
        index.extend_from_slice(&block[0].key.to_le_bytes());
        index.extend_from_slice(&(data.len() as u32).to_le_bytes());
        let mut prev: Option<&Posting> = None;
        for p in block {
            let key_delta = p.key - prev.map_or(block[0].key, |q| q.key);
            put_varint(&mut data, key_delta);
            match prev {
                Some(q) if q.key == p.key => put_varint(&mut data, u64::from(p.game - q.game)),
                _ => put_varint(&mut data, u64::from(p.game)),
            }
            put_varint(&mut data, u64::from(p.ply));
            let tail = u64::from(p.next) << 5 | u64::from(p.sym) << 1 | u64::from(p.white_to_move);
            put_varint(&mut data, tail);
            prev = Some(p);
        }
    }
    let mut out = Vec::with_capacity(HEADER + index.len() + data.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&nonce.to_le_bytes());
    out.extend_from_slice(&(postings.len() as u32).to_le_bytes());
    out.extend_from_slice(&(blocks as u32).to_le_bytes());
    out.extend_from_slice(&index);
    out.extend_from_slice(&data);
    out
}

/// The block directory of a segment, kept in memory per segment.
#[derive(Debug)]
pub(crate) struct SegmentIndex {
    nonce: u64,
    postings: u32,
    first_keys: Vec<u64>,
    /// Byte ranges of the blocks within the blob; one more than blocks.
    offsets: Vec<u32>,
}

fn corrupt(what: &str) -> Error {
    Error::PositionIndex(format!(
        "damaged segment ({what}); run `keil reindex` to rebuild it"
    ))
}

fn read_header(head: &[u8]) -> Result<(u64, u32, u32)> {
    if head.len() < HEADER || &head[..4] != MAGIC {
        return Err(corrupt("bad magic"));
    }
    let nonce = u64::from_le_bytes(head[4..12].try_into().expect("8 bytes"));
    let postings = u32::from_le_bytes(head[12..16].try_into().expect("4 bytes"));
    let blocks = u32::from_le_bytes(head[16..20].try_into().expect("4 bytes"));
    Ok((nonce, postings, blocks))
}

impl SegmentIndex {
    /// Reads the directory from the start of a segment (`head` must hold the
    /// header and the block index) and the blob's total length.
    fn parse(head: &[u8], blob_len: usize) -> Result<SegmentIndex> {
        let (nonce, postings, blocks) = read_header(head)?;
        let blocks = blocks as usize;
        let data_start = HEADER + blocks * INDEX_ENTRY;
        if head.len() < data_start || blob_len < data_start {
            return Err(corrupt("truncated block index"));
        }
        let mut first_keys = Vec::with_capacity(blocks);
        let mut offsets = Vec::with_capacity(blocks + 1);
        for b in 0..blocks {
            let e = &head[HEADER + b * INDEX_ENTRY..HEADER + (b + 1) * INDEX_ENTRY];
            first_keys.push(u64::from_le_bytes(e[..8].try_into().expect("8 bytes")));
            offsets
                .push(data_start as u32 + u32::from_le_bytes(e[8..].try_into().expect("4 bytes")));
        }
        offsets.push(blob_len as u32);
        Ok(SegmentIndex {
            nonce,
            postings,
            first_keys,
            offsets,
        })
    }

    /// The blocks that may hold keys in `lo..=hi`: the last block starting
    /// below `lo` and every block starting within the range.
    fn blocks_for(&self, lo: u64, hi: u64) -> std::ops::Range<usize> {
        let first = self.first_keys.partition_point(|&k| k < lo);
        let end = self.first_keys.partition_point(|&k| k <= hi);
        first.saturating_sub(1)..end.max(first)
    }
}

/// Decodes one block, calling `f` for each posting.
fn decode_block(buf: &[u8], first_key: u64, mut f: impl FnMut(Posting)) -> Result<()> {
    let mut at = 0;
    let mut prev: Option<Posting> = None;
    while at < buf.len() {
        let bad = || corrupt("truncated block");
        let key = prev.map_or(first_key, |q| q.key) + get_varint(buf, &mut at).ok_or_else(bad)?;
        let g = get_varint(buf, &mut at).ok_or_else(bad)? as u32;
        let game = match prev {
            Some(q) if q.key == key => q.game + g,
            _ => g,
        };
        let ply = get_varint(buf, &mut at).ok_or_else(bad)? as u16;
        let tail = get_varint(buf, &mut at).ok_or_else(bad)?;
        let p = Posting {
            key,
            game,
            ply,
            next: (tail >> 5) as u16,
            sym: ((tail >> 1) & 0xf) as u8,
            white_to_move: tail & 1 != 0,
        };
        f(p);
        prev = Some(p);
    }
    Ok(())
}

/// Decodes a whole segment held in memory.
pub(crate) fn decode_segment(blob: &[u8]) -> Result<Vec<Posting>> {
    let index = SegmentIndex::parse(blob, blob.len())?;
    let mut out = Vec::with_capacity(index.postings as usize);
    for (b, &first) in index.first_keys.iter().enumerate() {
        let range = index.offsets[b] as usize..index.offsets[b + 1] as usize;
        decode_block(
            blob.get(range)
                .ok_or_else(|| corrupt("block out of range"))?,
            first,
            |p| out.push(p),
        )?;
    }
    if out.len() != index.postings as usize {
        return Err(corrupt("posting count disagrees with header"));
    }
    Ok(out)
}

// ---- writing ---------------------------------------------------------------

/// Adds the positions of a batch of newly stored games as one new segment,
/// inside the import transaction (so a killed import leaves neither games
/// nor postings). Merges segments when a tier fills up.
pub(crate) fn index_games(tx: &rusqlite::Transaction<'_>, games: &[(i64, &Replay)]) -> Result<()> {
    if games.is_empty() {
        return Ok(());
    }
    let mut postings: Vec<Posting> = games
        .iter()
        .flat_map(|&(id, replay)| replay_postings(id as u32, replay))
        .collect();
    postings.sort_unstable();
    insert_segment(tx, &postings, games.len())?;
    compact(tx)
}

fn insert_segment(conn: &rusqlite::Connection, postings: &[Posting], games: usize) -> Result<()> {
    let nonce = next_nonce();
    let blob = encode_segment(postings, nonce);
    conn.execute(
        "INSERT INTO position_segments (id, games, postings, data, nonce, keys)
         VALUES ((SELECT COALESCE(MAX(id), 0) + 1 FROM position_segments), ?1, ?2, ?3, ?4, ?5)",
        rusqlite::params![
            games as i64,
            postings.len() as i64,
            blob,
            nonce as i64,
            KEY_VERSION
        ],
    )?;
    Ok(())
}

/// Rebuilds the position index, in one transaction, when a segment was
/// written with keys older than [`KEY_VERSION`] (an archive of schema 2 or
/// older, or one whose upgrade was interrupted: the rebuild commits whole
/// or not at all). Returns whether it rebuilt. Reads only the `keys`
/// index, never the segments' blobs.
///
/// # Errors
/// [`Error::Corrupt`] for a stored game whose moves do not replay; storage
/// errors.
pub(crate) fn upgrade_keys(conn: &mut rusqlite::Connection) -> Result<bool> {
    if !has_old_keys(conn)? {
        return Ok(false);
    }
    let tx = conn.transaction()?;
    rebuild(&tx)?;
    tx.commit()?;
    Ok(true)
}

/// Whether a segment was written with keys older than [`KEY_VERSION`].
fn has_old_keys(conn: &rusqlite::Connection) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT id FROM position_segments INDEXED BY position_segments_keys \
             WHERE keys < ?1 LIMIT 1",
            [KEY_VERSION],
            |r| r.get::<_, i64>(0),
        )
        .optional()?
        .is_some())
}

/// What [`upgrade_keys`] or [`fill_nonces`] would write, for a read-only
/// open that cannot: `Some(reason)` when the position index needs it.
///
/// # Errors
/// SQLite errors.
pub(crate) fn pending_upgrade(conn: &rusqlite::Connection) -> Result<Option<String>> {
    if has_old_keys(conn)? {
        return Ok(Some(format!(
            "its position index has keys older than version {KEY_VERSION}"
        )));
    }
    let missing: Option<i64> = conn
        .query_row(
            "SELECT id FROM position_segments WHERE nonce IS NULL LIMIT 1",
            [],
            |r| r.get(0),
        )
        .optional()?;
    Ok(missing.map(|_| "its position segments lack their nonce column".to_string()))
}

/// Copies each segment's nonce from its header into the `nonce` column
/// where it is NULL (segments written before schema 2), so searches read
/// it from the table.
///
/// # Errors
/// [`Error::PositionIndex`] for a segment whose header is damaged; SQLite
/// errors.
pub(crate) fn fill_nonces(conn: &rusqlite::Connection) -> Result<()> {
    let ids: Vec<i64> = conn
        .prepare("SELECT id FROM position_segments WHERE nonce IS NULL")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for id in ids {
        let blob = conn.blob_open(rusqlite::MAIN_DB, "position_segments", "data", id, true)?;
        let mut head = [0u8; HEADER];
        blob.read_at_exact(&mut head, 0)?;
        drop(blob);
        let (nonce, _, _) = read_header(&head)?;
        conn.execute(
            "UPDATE position_segments SET nonce = ?1 WHERE id = ?2",
            [nonce as i64, id],
        )?;
    }
    Ok(())
}

/// A value that differs between any two segments ever written by this
/// process or any other (time and a counter), so a cached directory is
/// never mistaken for a new segment that reuses a row id.
fn next_nonce() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    now ^ COUNTER.fetch_add(1, Ordering::Relaxed).rotate_left(48)
        ^ u64::from(std::process::id()) << 32
}

/// Segments per tier before the tier is merged. Tiers are powers of four
/// in postings, so a segment is rewritten O(log n) times in all.
const TIER_FANOUT: usize = 4;

/// Merges, within the current transaction, every tier that holds
/// [`TIER_FANOUT`] or more segments.
pub(crate) fn compact(conn: &rusqlite::Connection) -> Result<()> {
    loop {
        let mut stmt = conn.prepare_cached("SELECT id, postings FROM position_segments")?;
        let sizes: Vec<(i64, i64)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let tier = |n: i64| (64 - (n.max(1) as u64).leading_zeros()) / 2;
        let mut by_tier: std::collections::BTreeMap<u32, Vec<i64>> = Default::default();
        for (id, n) in sizes {
            by_tier.entry(tier(n)).or_default().push(id);
        }
        let Some(ids) = by_tier.into_values().find(|ids| ids.len() >= TIER_FANOUT) else {
            return Ok(());
        };
        merge(conn, &ids)?;
    }
}

/// Replaces the given segments by one.
fn merge(conn: &rusqlite::Connection, ids: &[i64]) -> Result<()> {
    let mut postings = Vec::new();
    let mut games = 0i64;
    for &id in ids {
        let (blob, g): (Vec<u8>, i64) = conn.query_row(
            "SELECT data, games FROM position_segments WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        postings.extend(decode_segment(&blob)?);
        games += g;
    }
    postings.sort_unstable();
    insert_segment(conn, &postings, games as usize)?;
    let mut del = conn.prepare_cached("DELETE FROM position_segments WHERE id = ?1")?;
    for &id in ids {
        del.execute([id])?;
    }
    Ok(())
}

// ---- reading ----------------------------------------------------------------

/// The in-memory side of the position index: the segments and a
/// compact summary of every game (date, winner, players) for filters and
/// statistics over long posting lists.
pub(crate) struct PositionIndex {
    segments: Mutex<HashMap<i64, Arc<Segment>>>,
    /// Held while a segment is read from the database.
    loading: Mutex<()>,
    summaries: RwLock<Summaries>,
    /// Match lists of popular positions, by index generation and query.
    answers: Answers,
}

impl Default for PositionIndex {
    fn default() -> PositionIndex {
        PositionIndex {
            segments: Mutex::default(),
            loading: Mutex::default(),
            summaries: RwLock::default(),
            answers: new_answers(),
        }
    }
}

impl std::fmt::Debug for PositionIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PositionIndex")
            .field("segments", &self.segments.lock().map(|s| s.len()).ok())
            .field("answers", &self.answers.len())
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Default)]
struct Summaries {
    /// Indexed by game id; `None` for ids without a game.
    games: Vec<Option<Brief>>,
    max_id: i64,
}

/// What position search needs of a game.
#[derive(Clone, Copy, Debug)]
struct Brief {
    /// `YYYYMMDD`, 0 when unknown.
    date: u32,
    /// 0 Black, 1 White, -1 nobody.
    winner: i8,
    black: i64,
    white: i64,
}

pub(crate) fn date_number(date: &str) -> u32 {
    date.bytes()
        .filter(u8::is_ascii_digit)
        .fold(0u32, |n, b| n * 10 + u32::from(b - b'0'))
}

impl PositionIndex {
    /// Loads the summaries of games added since the last call. The rows are
    /// read before the summaries are locked, so that searches go on with
    /// the summaries as they were meanwhile; the lock is held only to add
    /// them.
    fn refresh(&self, conn: &rusqlite::Connection) -> Result<()> {
        let max: i64 = conn
            .prepare_cached("SELECT COALESCE(MAX(id), 0) FROM games")?
            .query_row([], |r| r.get(0))?;
        let from = self.summaries.read().expect("poisoned").max_id;
        if max <= from {
            return Ok(());
        }
        let mut stmt = conn.prepare_cached(
            "SELECT id, date, winner, black_id, white_id FROM games WHERE id > ?1 AND id <= ?2",
        )?;
        let rows = stmt
            .query_map([from, max], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    Brief {
                        date: date_number(&r.get::<_, String>(1)?),
                        winner: r.get::<_, Option<i64>>(2)?.map_or(-1, |w| w as i8),
                        black: r.get::<_, Option<i64>>(3)?.unwrap_or(0),
                        white: r.get::<_, Option<i64>>(4)?.unwrap_or(0),
                    },
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut s = self.summaries.write().expect("poisoned");
        // Another refresh may have gone as far meanwhile: adding a game's
        // summary twice writes the same value.
        if max <= s.max_id {
            return Ok(());
        }
        for (id, brief) in rows {
            if s.games.len() <= id as usize {
                s.games.resize(id as usize + 1, None);
            }
            s.games[id as usize] = Some(brief);
        }
        s.max_id = max;
        Ok(())
    }

    /// The segments of the caller's read snapshot, with a signature that
    /// changes whenever the set of segments does (an import, a merge, a
    /// reindex).
    ///
    /// Segments are immutable: each is read whole once (SQLite's incremental
    /// blob reads walk the overflow-page chain from the start, which made
    /// every lookup linear in the segment's size) and kept in memory, about
    /// 1.5 KB per game. Per query, only the segments' ids and nonces are
    /// read, to see that the cached copies are still the stored ones.
    fn segments(&self, conn: &rusqlite::Connection) -> Result<Snapshot> {
        let mut stmt = conn.prepare_cached(
            "SELECT id, nonce FROM position_segments INDEXED BY position_segments_nonce",
        )?;
        let rows: Vec<(i64, Option<i64>)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let mut list = Vec::with_capacity(rows.len());
        let mut signature = blake3::Hasher::new();
        for &(id, nonce) in &rows {
            // Filled in at open for segments older than the column.
            let nonce = nonce.ok_or_else(|| corrupt("segment without a nonce"))? as u64;
            signature.update(&id.to_le_bytes());
            signature.update(&nonce.to_le_bytes());
            let cached = || {
                self.segments
                    .lock()
                    .expect("poisoned")
                    .get(&id)
                    .filter(|s| s.index.nonce == nonce)
                    .cloned()
            };
            let segment = match cached() {
                Some(s) => s,
                None => {
                    // One reader loads a segment; the others wait for it
                    // rather than each holding a copy of it.
                    let _loading = self.loading.lock().expect("poisoned");
                    if let Some(s) = cached() {
                        list.push(s);
                        continue;
                    }
                    let bytes: Vec<u8> = conn.query_row(
                        "SELECT data FROM position_segments WHERE id = ?1",
                        [id],
                        |r| r.get(0),
                    )?;
                    let index = SegmentIndex::parse(&bytes, bytes.len())?;
                    if index.nonce != nonce {
                        return Err(corrupt("nonce column disagrees with the header"));
                    }
                    let s = Arc::new(Segment { index, bytes });
                    self.segments
                        .lock()
                        .expect("poisoned")
                        .insert(id, s.clone());
                    s
                }
            };
            list.push(segment);
        }
        // Forget segments merged away since.
        self.segments
            .lock()
            .expect("poisoned")
            .retain(|id, _| rows.iter().any(|&(r, _)| r == *id));
        let hash = signature.finalize();
        let generation = u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"));
        Ok(Snapshot { list, generation })
    }
}

/// The segments one search reads.
struct Snapshot {
    list: Vec<Arc<Segment>>,
    /// Differs between any two sets of segments (ids and nonces hashed).
    generation: u64,
}

impl Snapshot {
    /// Calls `f` with every posting of the keys `keys` (one range, read in
    /// one pass), segment by segment; within a segment they come sorted by
    /// (key, game, ply).
    /// Checks `budget` once per block.
    fn scan(
        &self,
        keys: std::ops::RangeInclusive<u64>,
        budget: &Budget,
        mut f: impl FnMut(Posting),
    ) -> Result<()> {
        let (lo, hi) = (*keys.start(), *keys.end());
        for segment in &self.list {
            let dir = &segment.index;
            for b in dir.blocks_for(lo, hi) {
                budget.check()?;
                let range = dir.offsets[b] as usize..dir.offsets[b + 1] as usize;
                let block = segment
                    .bytes
                    .get(range)
                    .ok_or_else(|| corrupt("block out of range"))?;
                decode_block(block, dir.first_keys[b], |p| {
                    if keys.contains(&p.key) {
                        f(p)
                    }
                })?;
            }
        }
        Ok(())
    }
}

/// A segment held in memory: its block directory and its bytes.
#[derive(Debug)]
struct Segment {
    index: SegmentIndex,
    bytes: Vec<u8>,
}

/// A position search (issue: "positions: exact board search").
///
/// The board is matched exactly (or under symmetry); the player to move and
/// the button flag match either value when `None` (record-format.md,
/// "Position notation": a query's absent suffix matches either value).
#[derive(Clone, Debug)]
pub struct PositionQuery {
    /// The board to find (Keil or Go; its kind and size): its stones. A
    /// Keil board's button flag is not read: see [`PositionQuery::button`].
    pub position: AnyPosition,
    /// Only occurrences with this player to move; `None`: either.
    pub to_move: Option<Color>,
    /// Only occurrences with the button taken (`Some(true)`) or not
    /// (`Some(false)`); `None`: either. Go has no button: not read.
    pub button: Option<bool>,
    /// Whether any of the board's symmetric images matches (12 on the
    /// hexagon, 8 on the square; otherwise only the board as given).
    pub symmetry: bool,
    /// Colour swap: also match the board with black and white exchanged,
    /// the player to move exchanged too (go-rules.md, "Position notation
    /// and search"); with `symmetry`, 24 images on the hexagon and 16 on
    /// the square. Hits say whether they matched swapped; continuations
    /// are counted in the query's colours.
    pub swap_colors: bool,
    /// Only games of this player (either colour): the person the name
    /// names, any spelling ([`crate::person_key`], the operator's aliases).
    pub player: Option<String>,
    /// Only games on or after this date.
    pub from: Option<NaiveDate>,
    /// Only games on or before this date.
    pub to: Option<NaiveDate>,
    /// How many games to list (statistics always cover all matches).
    pub limit: usize,
    /// Continue after this cursor (from [`PositionAnswer::next_cursor`]).
    pub cursor: Option<String>,
}

/// A position of some game kind, for [`PositionQuery::new`].
pub trait QueryPosition {
    /// The position as an [`AnyPosition`].
    fn into_any(self) -> AnyPosition;
}

impl QueryPosition for AnyPosition {
    fn into_any(self) -> AnyPosition {
        self
    }
}

impl QueryPosition for Position {
    fn into_any(self) -> AnyPosition {
        AnyPosition::Keil(self)
    }
}

impl QueryPosition for keil_rules::GoPosition {
    fn into_any(self) -> AnyPosition {
        AnyPosition::Go(self)
    }
}

impl PositionQuery {
    /// A query for `position` (Keil, Go or [`AnyPosition`]) as it is (its
    /// stones and, Keil, its button flag), whoever is to move, with no
    /// filters, symmetry and colour swap off, 20 games.
    pub fn new(position: impl QueryPosition) -> PositionQuery {
        let position = position.into_any();
        PositionQuery {
            position,
            to_move: None,
            button: position.button_taken(),
            symmetry: false,
            swap_colors: false,
            player: None,
            from: None,
            to: None,
            limit: 20,
            cursor: None,
        }
    }

    /// Reads a query in position notation (record-format.md, "Position
    /// notation"): the board, then optional suffixes in any order, each at
    /// most once: ` b`/` w` the player to move, ` +` the button taken, ` -`
    /// not taken. An absent suffix matches either value: `7/8/…/7` finds
    /// the board whoever was to move and whatever the button's state.
    ///
    /// # Errors
    /// [`NotationError`] for the board (from keil-rules), or
    /// [`NotationError::Suffix`] for an unknown or repeated suffix.
    pub fn parse(text: &str) -> Result<PositionQuery, NotationError> {
        let mut parts = text.split_whitespace();
        let board = parts.next().ok_or(NotationError::Empty)?;
        let (mut to_move, mut button) = (None, None);
        for suffix in parts {
            match suffix {
                "b" | "B" if to_move.is_none() => to_move = Some(Color::Black),
                "w" | "W" if to_move.is_none() => to_move = Some(Color::White),
                "+" if button.is_none() => button = Some(true),
                "-" if button.is_none() => button = Some(false),
                other => return Err(NotationError::Suffix(other.to_string())),
            }
        }
        let (position, _) = Position::parse_notation(board)?;
        Ok(PositionQuery {
            button,
            ..PositionQuery::new(position)
        }
        .with_to_move(to_move))
    }

    fn with_to_move(self, to_move: Option<Color>) -> PositionQuery {
        PositionQuery { to_move, ..self }
    }

    /// Reads a query of game `kind` in its notation: Keil as
    /// [`PositionQuery::parse`]; Go rows (go-rules.md, "Position notation
    /// and search") with an optional ` b`/` w` (absent: either player).
    ///
    /// # Errors
    /// [`keil_rules::AnyNotationError`] with the kind's own error.
    pub fn parse_kind(
        kind: keil_rules::GameKind,
        text: &str,
    ) -> Result<PositionQuery, keil_rules::AnyNotationError> {
        if kind == keil_rules::GameKind::Keil {
            return PositionQuery::parse(text).map_err(keil_rules::AnyNotationError::Keil);
        }
        let parsed = AnyPosition::parse_notation(kind, text)?;
        Ok(PositionQuery::new(parsed.position).with_to_move(parsed.to_move))
    }

    /// Reads a query of game `kind` ([`PositionQuery::parse_kind`]), or,
    /// without a kind, of the kind whose notation reads it: Keil's columns
    /// have different lengths and Go's rows all the same length, so no
    /// board reads as both (Keil is tried first; its error is given when
    /// neither reads it).
    ///
    /// # Errors
    /// [`keil_rules::AnyNotationError`] as [`PositionQuery::parse_kind`].
    pub fn parse_inferred(
        kind: Option<keil_rules::GameKind>,
        text: &str,
    ) -> Result<PositionQuery, keil_rules::AnyNotationError> {
        match kind {
            Some(kind) => PositionQuery::parse_kind(kind, text),
            None => PositionQuery::parse_kind(keil_rules::GameKind::Keil, text).or_else(|e| {
                PositionQuery::parse_kind(keil_rules::GameKind::Go, text).map_err(|_| e)
            }),
        }
    }

    /// The query in position notation, as [`PositionQuery::parse`] reads
    /// it: the board, then ` b`/` w` and ` +`/` -` for the restrictions
    /// given (none for a value that matches either).
    pub fn notation(&self) -> String {
        let AnyPosition::Keil(mut board) = self.position else {
            return self.position.to_notation(self.to_move);
        };
        board.set_button_taken(false);
        let mut s = board.to_notation(self.to_move);
        match self.button {
            Some(true) => s.push_str(" +"),
            Some(false) => s.push_str(" -"),
            None => {}
        }
        s
    }
}

/// A matched position written in full: the board's notation `board`, the
/// player to move and the button flag (` +` taken, ` -` not), as an answer
/// writes it; read back by [`PositionQuery::parse`], it matches only itself.
/// Go has no button: its positions are written with the player to move
/// only (`keil` false).
fn full_notation(board: &str, v: Variant, keil: bool) -> String {
    let to_move = variant_to_move(v).letter().to_ascii_lowercase();
    if !keil {
        return format!("{board} {to_move}");
    }
    let button = if variant_button(v) { '+' } else { '-' };
    format!("{board} {to_move} {button}")
}

/// What was played from a position, over all matching games (an opening
/// explorer row), per matched position: the same move by another player to
/// move or with another button state is another row.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Continuation {
    /// The move in the query's orientation: `g7` (Keil), `D16` (Go),
    /// `pass`, `button`, or `end` when the game ended in this position.
    #[serde(rename = "move")]
    pub mv: String,
    /// The same move, typed (in the query's orientation): `None` for
    /// `end`. What a caller plays, instead of reading `mv` back.
    #[serde(skip)]
    pub next: Option<Move>,
    /// The player to move in the matched position (who played `mv`), in
    /// the query's colours (a colour-swapped match's White is Black here).
    pub to_move: Color,
    /// Whether the button had been taken in the matched position.
    pub button_taken: bool,
    /// Distinct games that played it.
    pub games: u64,
    /// Of those, games won by the player of the query's black stones
    /// (Black; White in a colour-swapped match).
    pub black_wins: u64,
    /// Of those, games won by the player of the query's white stones.
    pub white_wins: u64,
    /// `games` / `total_games`, 0..=1.
    pub share: f64,
}

/// A game that reached the position.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PositionHit {
    /// The game id.
    pub game_id: GameId,
    /// The first ply after which the position stood (0: the start).
    pub ply: u32,
    /// The move played next, in the query's orientation (`None` at the end).
    pub next: Option<String>,
    /// The symmetry (its index: 0..12 on the hexagon, 0..8 on the square)
    /// that maps the game's board onto the query's.
    pub symmetry: u8,
    /// Whether the game had the position with colours exchanged (a
    /// colour-swap search): its Black had the query's white stones.
    pub swapped: bool,
    /// The position matched, in full, in the query's orientation and the
    /// game's colours: board, player to move, Keil's button flag (` +`
    /// taken, ` -` not).
    pub position: String,
    /// The player to move in the matched position.
    pub to_move: Color,
    /// Whether the button had been taken in the matched position.
    pub button_taken: bool,
    /// The game's date, `YYYY-MM-DD` or empty.
    pub date: String,
    /// Black's name.
    pub black: Option<String>,
    /// White's name.
    pub white: Option<String>,
    /// The result as written in RE.
    pub result: Option<String>,
}

/// The answer to a [`PositionQuery`].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PositionAnswer {
    /// Distinct games that reached the position (after filters).
    pub total_games: u64,
    /// Moves played next, most frequent first.
    pub continuations: Vec<Continuation>,
    /// One page of games, newest first.
    pub games: Vec<PositionHit>,
    /// Pass as `cursor` for the next page; `None` on the last.
    pub next_cursor: Option<String>,
}

/// Replays a stored game's main line to the posting's ply and returns the
/// position; `None` when the game is gone or does not replay.
fn position_at(conn: &rusqlite::Connection, x: &Posting) -> Result<Option<AnyPosition>> {
    let Some(line) = game_moves(conn, GameId::from_sql(i64::from(x.game)))? else {
        return Ok(None);
    };
    Ok(line.game_at(x.ply as usize).ok().map(|g| g.position()))
}

/// Rebuilds the position index from the games table, inside the caller's
/// transaction: every stored main line is replayed through keil-rules.
///
/// # Errors
/// [`Error::Corrupt`] for a stored game whose moves do not replay; SQLite
/// errors.
pub(crate) fn rebuild(tx: &rusqlite::Transaction<'_>) -> Result<()> {
    tx.execute("DELETE FROM position_segments", [])?;
    let ids: Vec<i64> = tx
        .prepare("SELECT id FROM games ORDER BY id")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for chunk in ids.chunks(2048) {
        let mut batch = Vec::new();
        for &id in chunk {
            let game_id = GameId::from_sql(id);
            let line = game_moves(tx, game_id)?.ok_or(Error::Corrupt {
                game: game_id,
                reason: "vanished during reindex".into(),
            })?;
            let mut game = line.start();
            let start = game.position();
            let keil = matches!(start, AnyPosition::Keil(_));
            let mut turns = Vec::with_capacity(line.moves.len());
            for (i, &mv) in line.moves.iter().enumerate() {
                let color = line.color(i, &game);
                let out = line.play(i, &mut game).map_err(|e| Error::Corrupt {
                    game: game_id,
                    reason: format!("stored moves do not replay: {e}"),
                })?;
                // Keil's postings keep their own keys of the stones.
                let after = if keil {
                    (PositionKey(0), 0)
                } else {
                    game.canonical_key()
                };
                turns.push((color, mv, out.captured, out.moved, after));
            }
            let steps = turns.iter().map(|(color, mv, captured, moved, _)| Step {
                color: *color,
                mv: *mv,
                captured,
                moved,
            });
            match &start {
                AnyPosition::Keil(start) => {
                    batch.extend(postings(GameKind::Keil, id as u32, start, steps));
                }
                start => {
                    let keys = turns.iter().map(|t| t.4);
                    batch.extend(any_postings(id as u32, start, steps.zip(keys)));
                }
            }
        }
        batch.sort_unstable();
        insert_segment(tx, &batch, chunk.len())?;
        compact(tx)?;
    }
    Ok(())
}

/// The position queries of an archive, from [`crate::Archive::positions`].
/// Each call uses one pooled read connection.
pub struct Positions<'a> {
    pub(crate) archive: &'a crate::Archive,
}

impl Positions<'_> {
    /// Finds the games that reached a board (any of its symmetric images,
    /// 12 on the hexagon, when `q.symmetry`) with the player to move and
    /// button state the query allows, with the ply, the position matched
    /// (in full) and the move played next shown in the query's
    /// orientation, and continuation statistics over all matches per
    /// matched position (issue 6, "positions"). Runs on one read snapshot.
    ///
    /// # Errors
    /// [`Error::BadCursor`] for a cursor this search did not produce;
    /// [`Error::PositionIndex`] for a damaged segment; storage errors.
    pub fn search(&self, q: &PositionQuery) -> Result<PositionAnswer> {
        self.search_within(q, &Budget::unlimited())
    }

    /// [`Positions::search`] under a time budget: the search stops early
    /// when `budget` is spent (its deadline passed, or it was cancelled).
    ///
    /// # Errors
    /// [`Error::OverBudget`] when it stopped so; as [`Positions::search`].
    pub fn search_within(&self, q: &PositionQuery, budget: &Budget) -> Result<PositionAnswer> {
        let archive = self.archive;
        budget.check()?;
        archive
            .reader()?
            .snapshot(|conn| search(&archive.positions, conn, q, budget))
    }

    /// Reads the position index into memory (its segments and the game
    /// summaries, about 1.5 KB per game) ahead of the first search, which
    /// would otherwise pay for it (0.3–0.5 s at 100,000 games). A server
    /// calls it before it takes requests.
    ///
    /// # Errors
    /// [`Error::PositionIndex`] for a damaged segment; storage errors.
    pub fn load(&self) -> Result<()> {
        let index = &self.archive.positions;
        self.archive.reader()?.snapshot(|conn| {
            index.refresh(conn)?;
            index.segments(conn).map(drop)
        })
    }
}

/// Match lists at least this long are kept in [`PositionIndex::answers`]:
/// shorter ones cost less to recompute than to keep.
const CACHE_MIN_POSTINGS: usize = 256;

/// Memory for cached match lists, in bytes.
const CACHE_BYTES: u64 = 64 << 20;

/// What identifies the matches of a search before paging: the index
/// generation, the keys (both button states of the board, or one), the
/// orientations allowed (a bit per symmetry from the game's board onto the
/// canonical one), and the filters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct MatchKey {
    generation: u64,
    keys: std::ops::RangeInclusive<u64>,
    orientations: u16,
    white_to_move: Option<bool>,
    player: Option<String>,
    from: Option<u32>,
    to: Option<u32>,
}

/// What a matched position adds to the query's board: the player to move
/// and the button flag, packed as `button << 1 | white_to_move` (0..4).
type Variant = u8;
/// The number of [`Variant`]s.
const VARIANTS: usize = 4;

fn variant_of(x: &Posting) -> Variant {
    u8::from(button_of(x.key)) << 1 | u8::from(x.white_to_move)
}

fn variant_to_move(v: Variant) -> Color {
    if v & 1 != 0 {
        Color::White
    } else {
        Color::Black
    }
}

fn variant_button(v: Variant) -> bool {
    v & 2 != 0
}

/// The matches of a search before paging; for a popular position, shared
/// by every search of it until the index changes.
#[derive(Debug)]
pub(crate) struct Matches {
    /// (matched position's variant, next-move code reduced under the
    /// position's own symmetries, games, Black wins, White wins), most
    /// frequent first; codes are canonical.
    per_move: Vec<(Variant, u16, u64, u64, u64)>,
    /// The first occurrence in each matching game, newest game first.
    games: Vec<Hit>,
}

/// A game's first occurrence of the position.
#[derive(Clone, Copy, Debug)]
struct Hit {
    date: u32,
    game: u32,
    ply: u16,
    next: u16,
    sym: u8,
    variant: Variant,
}

impl Hit {
    /// The keyset order of pages: newest first, then highest id.
    fn order(&self) -> std::cmp::Reverse<(u32, u32)> {
        std::cmp::Reverse((self.date, self.game))
    }
}

/// Weighs cached match lists by their memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MatchesWeight;

impl quick_cache::Weighter<MatchKey, Arc<Matches>> for MatchesWeight {
    fn weight(&self, _key: &MatchKey, m: &Arc<Matches>) -> u64 {
        (128 + m.games.len() * std::mem::size_of::<Hit>() + m.per_move.len() * 40) as u64
    }
}

/// The cache of popular positions' match lists.
pub(crate) type Answers = quick_cache::sync::Cache<MatchKey, Arc<Matches>, MatchesWeight>;

pub(crate) fn new_answers() -> Answers {
    Answers::with_weighter(1024, CACHE_BYTES, MatchesWeight)
}

/// One side of a search (the query, or its colour swap): the match key,
/// the board without button (as given, and canonical), the symmetry back to
/// the query.
struct Side {
    key: MatchKey,
    board: AnyPosition,
    canon: AnyPosition,
    to_query: u8,
    swapped: bool,
}

impl Side {
    /// The query's colour sides: as given, then, with `swap_colors`, with
    /// colours (and the player to move) exchanged.
    fn all(q: &PositionQuery, generation: u64) -> Vec<Side> {
        let mut sides = vec![Side::new(q.position, q.to_move, q, generation)];
        if q.swap_colors {
            let to_move = q.to_move.map(Color::opposite);
            let mut side = Side::new(q.position.swap_colors(), to_move, q, generation);
            side.swapped = true;
            sides.push(side);
        }
        sides
    }

    fn new(p: AnyPosition, to_move: Option<Color>, q: &PositionQuery, generation: u64) -> Side {
        // The board alone: its key has the button bit clear, and the
        // query's button restriction picks one or both of the two adjacent
        // keys (Keil; Go keys have the bit clear).
        let mut p = p;
        if let AnyPosition::Keil(k) = &mut p {
            k.set_button_taken(false);
        }
        let board = p.board();
        let (key, s_q) = any_index_key(&p, None);
        let keys = match (q.button, &p) {
            (_, AnyPosition::Go(_)) => key..=key,
            (None, _) => key..=key | BUTTON_BIT,
            (Some(b), _) => {
                let k = key | u64::from(b);
                k..=k
            }
        };
        let canon = p.transform(s_q);
        let count = board.symmetry_count();
        // Symmetries of the game orientation allowed when images don't
        // match: those under which the game's board is the query's board.
        let orientations: u16 = if q.symmetry {
            (1 << count) - 1
        } else {
            (0..count)
                .filter(|&s| canon.transform(board.inverse(s)) == p)
                .fold(0, |m, s| m | 1 << s)
        };
        Side {
            key: MatchKey {
                generation,
                keys,
                orientations,
                white_to_move: to_move.map(|c| c == Color::White),
                player: q.player.clone(),
                from: q.from.map(|d| date_number(&d.to_string())),
                to: q.to.map(|d| date_number(&d.to_string())),
            },
            board: p,
            canon,
            to_query: board.inverse(s_q),
            swapped: false,
        }
    }

    /// The matches, from the cache when there.
    fn matches(
        &self,
        index: &PositionIndex,
        conn: &rusqlite::Connection,
        snapshot: &Snapshot,
        budget: &Budget,
    ) -> Result<Arc<Matches>> {
        if let Some(m) = index.answers.get(&self.key) {
            return Ok(m);
        }
        let (m, postings) = collect(index, conn, snapshot, &self.key, &self.canon, budget)?;
        let m = Arc::new(m);
        if postings >= CACHE_MIN_POSTINGS {
            index.answers.insert(self.key.clone(), m.clone());
        }
        Ok(m)
    }

    /// A variant in the query's colours.
    fn seen(&self, v: Variant) -> Variant {
        if self.swapped { v ^ 1 } else { v }
    }
}

/// Runs a position search on one read connection.
pub(crate) fn search(
    index: &PositionIndex,
    conn: &rusqlite::Connection,
    q: &PositionQuery,
    budget: &Budget,
) -> Result<PositionAnswer> {
    let board = q.position.board();
    let keil = matches!(q.position, AnyPosition::Keil(_));
    let after = match &q.cursor {
        None => None,
        Some(c) => Some(parse_cursor(c)?),
    };

    index.refresh(conn)?;
    let snapshot = index.segments(conn)?;
    let sides = Side::all(q, snapshot.generation);
    let matches = sides
        .iter()
        .map(|side| side.matches(index, conn, &snapshot, budget))
        .collect::<Result<Vec<_>>>()?;

    // Every matching game once: its first occurrence (unswapped first).
    let merged: Vec<(Hit, usize)> = if matches.len() == 1 {
        Vec::new()
    } else {
        let mut all: Vec<(Hit, usize)> = matches
            .iter()
            .enumerate()
            .flat_map(|(i, m)| m.games.iter().map(move |&h| (h, i)))
            .collect();
        all.sort_by_key(|(h, i)| (h.game, h.ply, *i));
        all.dedup_by_key(|(h, _)| h.game);
        all.sort_by_key(|(h, _)| h.order());
        all
    };
    let total = if matches.len() == 1 {
        matches[0].games.len()
    } else {
        merged.len()
    } as u64;

    // Continuations in the query's orientation and colours.
    let mut rows: HashMap<(Option<Move>, Variant), (u64, u64, u64)> = HashMap::new();
    for (side, m) in sides.iter().zip(&matches) {
        for &(variant, code, n, b, w) in &m.per_move {
            let mv = decode_move(code).map(|m| transform_move(board, m, side.to_query));
            let (b, w) = if side.swapped { (w, b) } else { (b, w) };
            let e = rows.entry((mv, side.seen(variant))).or_default();
            e.0 += n;
            e.1 += b;
            e.2 += w;
        }
    }
    let mut continuations: Vec<Continuation> = rows
        .into_iter()
        .map(|((next, variant), (n, b, w))| Continuation {
            mv: next.map_or_else(|| "end".to_string(), |m| show_move(&q.position, m)),
            next,
            to_move: variant_to_move(variant),
            button_taken: variant_button(variant),
            games: n,
            black_wins: b,
            white_wins: w,
            share: if total == 0 {
                0.0
            } else {
                n as f64 / total as f64
            },
        })
        .collect();
    continuations.sort_by(|a, b| {
        b.games
            .cmp(&a.games)
            .then_with(|| a.mv.cmp(&b.mv))
            .then_with(|| a.to_move.index().cmp(&b.to_move.index()))
            .then_with(|| a.button_taken.cmp(&b.button_taken))
    });

    // One page of games, newest first, keyset on (date, id).
    let limit = q.limit.max(1);
    let (page, more): (Vec<(Hit, usize)>, bool) = if matches.len() == 1 {
        let games = &matches[0].games;
        let first = after.map_or(0, |(d, g)| {
            games.partition_point(|h| h.order() <= std::cmp::Reverse((d, g)))
        });
        let end = (first + limit).min(games.len());
        (
            games[first..end].iter().map(|&h| (h, 0)).collect(),
            end < games.len(),
        )
    } else {
        let first = after.map_or(0, |(d, g)| {
            merged.partition_point(|(h, _)| h.order() <= std::cmp::Reverse((d, g)))
        });
        let end = (first + limit).min(merged.len());
        (merged[first..end].to_vec(), end < merged.len())
    };
    let next_cursor = more
        .then(|| {
            page.last().map(|(h, _)| {
                crate::HitCursor {
                    date: h.date,
                    game: h.game,
                }
                .to_string()
            })
        })
        .flatten();
    let mut hits = Vec::with_capacity(page.len());
    // Each side's board notation, once (Keil: button flag clear).
    let board_texts: Vec<String> = if page.is_empty() {
        Vec::new()
    } else {
        sides.iter().map(|s| s.board.to_notation(None)).collect()
    };
    let count = board.symmetry_count();
    for (h, i) in &page {
        let side = &sides[*i];
        let game_id = GameId::from_sql(i64::from(h.game));
        let d = crate::games::hit_details(conn, game_id)?.ok_or(Error::Corrupt {
            game: game_id,
            reason: "indexed but not stored".into(),
        })?;
        if h.sym >= count {
            return Err(corrupt("symmetry index"));
        }
        let (to_move, button_taken) = (variant_to_move(h.variant), variant_button(h.variant));
        hits.push(PositionHit {
            game_id,
            ply: u32::from(h.ply),
            next: decode_move(h.next)
                .map(|m| show_move(&q.position, transform_move(board, m, side.to_query))),
            symmetry: board.compose(h.sym, side.to_query),
            swapped: side.swapped,
            position: full_notation(&board_texts[*i], h.variant, keil),
            to_move,
            button_taken,
            date: d.date,
            black: d.black,
            white: d.white,
            result: d.result,
        });
    }
    Ok(PositionAnswer {
        total_games: total,
        continuations,
        games: hits,
        next_cursor,
    })
}

/// A game's first occurrence of a board on one colour side: the pattern
/// search's whole-board path.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Occurrence {
    /// The game id.
    pub game: u32,
    /// The first ply after which the board stood.
    pub ply: u16,
    /// The symmetry (index) that maps the game's board onto the query's.
    pub sym: u8,
    /// Whether the game had the board with colours exchanged.
    pub swapped: bool,
}

/// The games that reached `position`'s stones (any player to move, any
/// button state), under its symmetries when `symmetry`, colour-swapped
/// too when `swap`: each game's first occurrence per colour side, from the
/// position index (confirmed exactly, as [`search`]).
pub(crate) fn occurrences(
    index: &PositionIndex,
    conn: &rusqlite::Connection,
    position: AnyPosition,
    symmetry: bool,
    swap: bool,
    budget: &Budget,
) -> Result<Vec<Occurrence>> {
    index.refresh(conn)?;
    let snapshot = index.segments(conn)?;
    let q = PositionQuery {
        symmetry,
        swap_colors: swap,
        button: None,
        ..PositionQuery::new(position)
    };
    let board = position.board();
    let mut out = Vec::new();
    for side in &Side::all(&q, snapshot.generation) {
        let m = side.matches(index, conn, &snapshot, budget)?;
        out.extend(m.games.iter().map(|h| Occurrence {
            game: h.game,
            ply: h.ply,
            sym: board.compose(h.sym, side.to_query),
            swapped: side.swapped,
        }));
    }
    Ok(out)
}

/// Finds the matches of `k` in the snapshot, in one pass over the postings
/// of its key range: postings with an allowed orientation and player to
/// move, confirmed exactly (Zobrist keys: by replay), of games that pass
/// the filters; then the first occurrence per game and the continuation
/// statistics per matched position. `canon` is the board in the canonical
/// orientation (button clear). Also returns the number of postings read
/// (the cost of doing it again).
fn collect(
    index: &PositionIndex,
    conn: &rusqlite::Connection,
    snapshot: &Snapshot,
    k: &MatchKey,
    canon: &AnyPosition,
    budget: &Budget,
) -> Result<(Matches, usize)> {
    let board = canon.board();
    let mut postings = Vec::new();
    let mut read = 0;
    snapshot.scan(k.keys.clone(), budget, |x| {
        read += 1;
        if k.orientations & (1 << x.sym) != 0
            && k.white_to_move.is_none_or(|w| x.white_to_move == w)
        {
            postings.push(x);
        }
    })?;
    // Each segment's postings of a key are sorted by (game, ply): a stable
    // sort merges those runs (it finds them) rather than sorting from
    // scratch. The first posting of each game is then its first occurrence,
    // whichever button state it had.
    postings.sort_by_key(|x| (x.game, x.ply));
    // Exactness: Zobrist keys are confirmed by replay, once per game ply.
    if !is_exact(*k.keys.start()) {
        let mut confirmed: HashMap<(u32, u16), bool> = HashMap::new();
        for x in &postings {
            if let std::collections::hash_map::Entry::Vacant(e) = confirmed.entry((x.game, x.ply)) {
                // A replay per entry: checked each time.
                budget.check()?;
                let mut want = *canon;
                if let AnyPosition::Keil(p) = &mut want {
                    p.set_button_taken(button_of(x.key));
                }
                if x.sym >= board.symmetry_count() {
                    return Err(corrupt("symmetry index"));
                }
                let ok = position_at(conn, x)?.is_some_and(|at| at.transform(x.sym) == want);
                e.insert(ok);
            }
        }
        postings.retain(|x| confirmed[&(x.game, x.ply)]);
    }
    let player_ids: Option<Vec<i64>> = match &k.player {
        None => None,
        Some(name) => {
            let mut stmt = conn.prepare_cached(crate::people::SPELLINGS_OF)?;
            Some(
                stmt.query_map([crate::person_key(name)], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()?,
            )
        }
    };
    // Next moves merge under the position's own symmetries: each code maps
    // to the least code of its orbit (a table, built once per search).
    let stabiliser: Vec<u8> = (0..board.symmetry_count())
        .filter(|&t| canon.transform(t) == *canon)
        .collect();
    let codes = NEXT_POINT as usize + board.len();
    let reduce: Vec<u16> = (0..codes as u16)
        .map(|code| match decode_move(code) {
            Some(Move::Place(pt)) => stabiliser
                .iter()
                .map(|&t| NEXT_POINT + board.transform(pt, t).0)
                .min()
                .unwrap_or(code),
            _ => code,
        })
        .collect();

    let summaries = index.summaries.read().expect("poisoned");
    // Counts per variant (a table per variant met) and reduced code.
    let mut per_move: [Vec<(u64, u64, u64)>; VARIANTS] = Default::default();
    let mut run: Vec<(Variant, u16)> = Vec::new();
    let mut games: Vec<Hit> = Vec::new();
    let mut current: Option<(u32, Brief)> = None;
    for (i, x) in postings.iter().enumerate() {
        budget.check_every(i)?;
        let variant = variant_of(x);
        let b = match current {
            Some((g, b)) if g == x.game => b,
            _ => {
                let Some(b) = summaries.games.get(x.game as usize).copied().flatten() else {
                    continue;
                };
                let keep = k.from.is_none_or(|from| b.date >= from && b.date != 0)
                    && k.to.is_none_or(|to| b.date <= to && b.date != 0)
                    && player_ids
                        .as_ref()
                        .is_none_or(|ids| ids.contains(&b.black) || ids.contains(&b.white));
                if !keep {
                    continue;
                }
                current = Some((x.game, b));
                run.clear();
                games.push(Hit {
                    date: b.date,
                    game: x.game,
                    ply: x.ply,
                    next: x.next,
                    sym: x.sym,
                    variant,
                });
                b
            }
        };
        let bucket = (variant, reduce[x.next as usize]);
        if !run.contains(&bucket) {
            run.push(bucket);
            let table = &mut per_move[usize::from(variant)];
            if table.is_empty() {
                table.resize(codes, (0, 0, 0));
            }
            let e = &mut table[usize::from(bucket.1)];
            e.0 += 1;
            e.1 += u64::from(b.winner == 0);
            e.2 += u64::from(b.winner == 1);
        }
    }
    drop(summaries);
    games.sort_unstable_by_key(Hit::order);
    let mut per_move: Vec<(Variant, u16, u64, u64, u64)> = per_move
        .iter()
        .enumerate()
        .flat_map(|(variant, table)| {
            table
                .iter()
                .enumerate()
                .filter(|&(_, &(n, _, _))| n > 0)
                .map(move |(code, &(n, b, w))| (variant as Variant, code as u16, n, b, w))
        })
        .collect();
    per_move.sort_by_key(|&(variant, code, n, _, _)| (std::cmp::Reverse(n), code, variant));
    Ok((Matches { per_move, games }, read))
}

/// The `(date, game)` of a search's cursor ([`crate::HitCursor`]).
pub(crate) fn parse_cursor(c: &str) -> Result<(u32, u32)> {
    let c: crate::HitCursor = c.parse()?;
    Ok((c.date, c.game))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn segments_round_trip_and_find_every_key() {
        let mut postings: Vec<Posting> = (0..1000u32)
            .map(|i| Posting {
                key: u64::from(i / 3).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 1,
                game: 7 + i % 5,
                ply: (i % 200) as u16,
                next: (i % 130) as u16,
                sym: (i % 12) as u8,
                white_to_move: i % 2 == 1,
            })
            .collect();
        postings.sort_unstable();
        postings.dedup();
        let blob = encode_segment(&postings, 42);
        assert_eq!(decode_segment(&blob).unwrap(), postings);
        let dir = SegmentIndex::parse(&blob, blob.len()).unwrap();
        assert_eq!(dir.nonce, 42);
        for want in postings.iter().map(|p| p.key) {
            let mut got = Vec::new();
            for b in dir.blocks_for(want, want) {
                let range = dir.offsets[b] as usize..dir.offsets[b + 1] as usize;
                decode_block(&blob[range], dir.first_keys[b], |p| {
                    if p.key == want {
                        got.push(p)
                    }
                })
                .unwrap();
            }
            let expected: Vec<Posting> =
                postings.iter().copied().filter(|p| p.key == want).collect();
            assert_eq!(got, expected);
        }
        // A damaged blob is an error, not a panic.
        assert!(decode_segment(&blob[..blob.len() - 3]).is_err());
        assert!(decode_segment(b"nonsense").is_err());
    }

    /// The Keil index key of a position and its orientation.
    fn key_of(p: &Position) -> (u64, Symmetry) {
        let stones = p.stones(Color::Black).len() + p.stones(Color::White).len();
        index_key(GameKind::Keil, p, &stone_keys(p), stones)
    }

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

    #[test]
    fn a_colliding_key_never_produces_a_false_match() {
        let dir = tempfile::tempdir().unwrap();
        let archive = crate::Archive::open(dir.path()).unwrap();
        let config = keil_gen::GeneratorConfig {
            games: 12,
            size: 4,
            seed: 3,
            ..keil_gen::GeneratorConfig::default()
        };
        let bytes: Vec<u8> = keil_gen::Generator::new(config)
            .unwrap()
            .flat_map(|g| g.record.into_bytes())
            .collect();
        let source = crate::ImportSource::Bytes {
            name: "gen.keil".into(),
            bytes,
        };
        let options = crate::ImportOptions::default();
        archive.import(&[source], &options, &mut |_| {}).unwrap();
        // The position after ply 12 of game 1: more than five stones, so a
        // Zobrist key.
        let line = archive
            .games()
            .moves(GameId::new(1).unwrap())
            .unwrap()
            .unwrap();
        let q = line.game_at(12).unwrap().position();
        let AnyPosition::Keil(q) = q else {
            panic!("a Keil game")
        };
        let (key, _) = key_of(&q);
        assert!(!is_exact(key));
        let mut query = PositionQuery::new(q);
        query.symmetry = true;
        // Whatever the button's state: the key range holds both.
        query.button = None;
        let honest = archive.positions().search(&query).unwrap();
        assert!(
            honest
                .games
                .iter()
                .any(|h| h.game_id.get() == 1 && h.ply == 12)
        );
        // Forge a collision: game 2 at ply 3 filed under the same key.
        let forged = Posting {
            key,
            game: 2,
            ply: 3,
            next: NEXT_END,
            sym: 0,
            white_to_move: true,
        };
        {
            let conn = archive.writer().unwrap();
            insert_segment(&conn, &[forged], 1).unwrap();
        }
        let answer = archive.positions().search(&query).unwrap();
        assert_eq!(answer, honest, "the forged posting must be rejected");
    }
}
