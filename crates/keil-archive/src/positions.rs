//! The position index: which games reached a position, at which ply, and
//! what was played next (issue 6, "positions").
//!
//! Every position of every stored game's main line (the start and the
//! position after each ply) is a *posting*: index key, game, ply, the
//! symmetry onto the canonical orientation, the next move (stored in the
//! canonical orientation) and the player to move.
//!
//! - **Keys.** A position with at most five stones (the openings that many
//!   games share) is keyed by an exact, injective code of its canonical form;
//!   any other by its canonical Zobrist key (keil-rules), so the 12 symmetric
//!   images share a key. A Zobrist match is confirmed by replaying the game
//!   to the ply and comparing positions: hash collisions never produce false
//!   matches, and the long posting lists (openings) need no replay.
//! - **Storage.** Postings live in immutable, sorted segments (blocks of 128
//!   postings, varint-delta encoded, with a block directory), one blob row of
//!   `position_segments` per import batch, written in the batch's own
//!   transaction. Segments merge by tiers of four. The index is derived: it
//!   can always be rebuilt from the games table.
//! - **Search.** Segments are immutable; each is read once and kept in
//!   memory (about 1.5 KB per game), and a lookup binary-searches its block
//!   directory and decodes only the blocks that may hold the key. Filters
//!   and statistics use an in-memory summary of every game (date, winner,
//!   players).
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
    AnyBoard, AnyPosition, Board, Color, Move, Point, PointSet, Position, PositionKey,
    SymmetricKeys, Symmetry,
};

use crate::games::game_moves;
use crate::{Error, GameId, Result};

// ---- index keys -------------------------------------------------------------

/// Positions with at most this many stones get an exact (injective) index key.
const EXACT_STONES: usize = 5;
/// Marks an exact key; Zobrist keys have this bit cleared.
const EXACT_BIT: u64 = 1 << 63;

/// The index key of a position and the symmetry that maps it onto the
/// canonical orientation the index stores it in.
///
/// Positions with at most [`EXACT_STONES`] stones (the openings, which many
/// games share) get an injective code of their canonical form: a match needs
/// no confirmation. Larger positions get their canonical Zobrist key with the
/// top bit cleared; a match is confirmed by replaying the game.
pub(crate) fn index_key(
    position: &Position,
    keys: &SymmetricKeys,
    stones: usize,
) -> (u64, Symmetry) {
    if stones <= EXACT_STONES {
        let (canon, sym) = position.canonical();
        (exact_code(&canon), sym)
    } else {
        let (key, sym) = keys.canonical();
        (key.0 & !EXACT_BIT, sym)
    }
}

/// Whether an index key is exact (no confirmation needed).
pub(crate) fn is_exact(key: u64) -> bool {
    key & EXACT_BIT != 0
}

/// `head` with the stones of a position (at most [`EXACT_STONES`]) in
/// board order, 10 bits each: point index (9 bits) << 1 | colour, and their
/// count (3 bits) << 52.
fn pack_stones(head: u64, black: PointSet, white: PointSet) -> u64 {
    let mut stones: Vec<(usize, u64)> = black
        .iter()
        .map(|p| (p.index(), 0))
        .chain(white.iter().map(|p| (p.index(), 1)))
        .collect();
    stones.sort_unstable();
    debug_assert!(stones.len() <= EXACT_STONES);
    let mut code = head | (stones.len() as u64) << 52;
    for (i, (p, c)) in stones.into_iter().enumerate() {
        code |= ((p as u64) << 1 | c) << (10 * i);
    }
    code
}

/// marker | side (4 bits) << 56 | button << 55 | count (3 bits) << 52 |
/// stones in board order, 10 bits each: point index (9 bits) << 1 | colour.
fn exact_code(canon: &Position) -> u64 {
    let head =
        EXACT_BIT | (canon.board().side() as u64) << 56 | (canon.button_taken() as u64) << 55;
    pack_stones(head, canon.stones(Color::Black), canon.stones(Color::White))
}

/// Marks a Go exact key (Keil's have it cleared, so that the codes of the
/// two kinds never agree).
const GO_BIT: u64 = 1 << 62;

/// The exact code of a canonical position of any kind: Keil's as
/// [`exact_code`]; Go: marker | Go bit | size (6 bits) << 56 | count
/// (3 bits) << 52 | stones in board order, 10 bits each (point index
/// < 361 in 9 bits, colour).
fn any_exact_code(canon: &AnyPosition) -> u64 {
    match canon {
        AnyPosition::Keil(p) => exact_code(p),
        AnyPosition::Go(_) => {
            let head = EXACT_BIT | GO_BIT | u64::from(canon.board().size()) << 56;
            pack_stones(head, canon.stones(Color::Black), canon.stones(Color::White))
        }
    }
}

/// The number of stones of a position.
fn stone_count(p: &AnyPosition) -> usize {
    p.stones(Color::Black).len() + p.stones(Color::White).len()
}

/// [`index_key`] for a position of any kind, given its canonical Zobrist
/// key and symmetry index (from the game or [`AnyPosition::canonical_key`]).
pub(crate) fn any_index_key(position: &AnyPosition, canonical: (PositionKey, u8)) -> (u64, u8) {
    if let AnyPosition::Keil(p) = position {
        let (key, sym) = index_key(p, &SymmetricKeys::new(p), stone_count(position));
        return (key, sym.index());
    }
    if stone_count(position) <= EXACT_STONES {
        let (canon, sym) = position.canonical();
        (any_exact_code(&canon), sym)
    } else {
        (canonical.0.0 & !EXACT_BIT, canonical.1)
    }
}

/// A move for people: the point's display name (`g7`, `D16`), `pass` or
/// `button`.
pub(crate) fn show_move(board: AnyBoard, mv: Move) -> String {
    match mv {
        Move::Place(p) => board.display_name(p),
        Move::Pass => "pass".to_string(),
        Move::TakeButton => "button".to_string(),
    }
}

fn transform_move(board: AnyBoard, mv: Move, sym: u8) -> Move {
    match mv {
        Move::Place(p) => Move::Place(board.transform(p, sym)),
        m => m,
    }
}

// ---- postings ---------------------------------------------------------------

/// The next-move codes: end of game, pass, button, or `POINT + index`.
pub(crate) const NEXT_END: u16 = 0;
const NEXT_PASS: u16 = 1;
const NEXT_BUTTON: u16 = 2;
const NEXT_POINT: u16 = 3;

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
        Move::Place(p) => NEXT_POINT + board.transform(p, sym).0,
    }
}

/// The move a next-move code stands for, `None` for the end of the game.
pub(crate) fn decode_move(code: u16) -> Option<Move> {
    match code {
        NEXT_END => None,
        NEXT_PASS => Some(Move::Pass),
        NEXT_BUTTON => Some(Move::TakeButton),
        c => Some(Move::Place(Point(c - NEXT_POINT))),
    }
}

/// One turn as the index needs it: who played what, and what it captured.
pub(crate) struct Step<'a> {
    pub color: Color,
    pub mv: Move,
    pub captured: &'a [Point],
}

/// The postings of one game: the start position and the position after
/// every ply of its main line.
pub(crate) fn postings<'a>(
    game: u32,
    start: &Position,
    steps: impl ExactSizeIterator<Item = Step<'a>>,
) -> Vec<Posting> {
    let board = start.board();
    let mut position = *start;
    let mut keys = SymmetricKeys::new(&position);
    let mut stones = position.stones(Color::Black).len() + position.stones(Color::White).len();
    let mut out = Vec::with_capacity(steps.len() + 1);
    let mut steps = steps.peekable();
    let mut to_move = steps.peek().map_or(Color::Black, |s| s.color);
    let mut ply = 0u16;
    loop {
        let (key, sym) = index_key(&position, &keys, stones);
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
            Move::TakeButton => {
                position.set_button_taken(true);
                keys.toggle_button();
            }
            Move::Pass => {}
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
        let (key, sym) = any_index_key(&position, canonical);
        let step = steps.next();
        out.push(Posting {
            key,
            game,
            ply,
            next: step.as_ref().map_or(NEXT_END, |(s, _)| match s.mv {
                Move::Pass => NEXT_PASS,
                Move::TakeButton => NEXT_BUTTON,
                Move::Place(p) => NEXT_POINT + board.transform(p, sym).0,
            }),
            sym,
            white_to_move: to_move == Color::White,
        });
        let Some((step, after)) = step else { break };
        if let Move::Place(pt) = step.mv {
            position.set(pt, Some(step.color));
            for &c in step.captured {
                position.set(c, None);
            }
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
    });
    match &replay.start {
        AnyPosition::Keil(start) => postings(game, start, steps),
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

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(buf: &[u8], at: &mut usize) -> Option<u64> {
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

    /// The blocks that may hold `key`: the last block starting below it and
    /// every block starting at it.
    fn blocks_for(&self, key: u64) -> std::ops::Range<usize> {
        let lo = self.first_keys.partition_point(|&k| k < key);
        let hi = self.first_keys.partition_point(|&k| k <= key);
        lo.saturating_sub(1)..hi.max(lo)
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
        "INSERT INTO position_segments (id, games, postings, data, nonce)
         VALUES ((SELECT COALESCE(MAX(id), 0) + 1 FROM position_segments), ?1, ?2, ?3, ?4)",
        rusqlite::params![games as i64, postings.len() as i64, blob, nonce as i64],
    )?;
    Ok(())
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

fn date_number(date: &str) -> u32 {
    date.bytes()
        .filter(u8::is_ascii_digit)
        .fold(0u32, |n, b| n * 10 + u32::from(b - b'0'))
}

impl PositionIndex {
    /// Loads the summaries of games added since the last call.
    fn refresh(&self, conn: &rusqlite::Connection) -> Result<()> {
        let max: i64 = conn
            .prepare_cached("SELECT COALESCE(MAX(id), 0) FROM games")?
            .query_row([], |r| r.get(0))?;
        if max <= self.summaries.read().expect("poisoned").max_id {
            return Ok(());
        }
        let mut s = self.summaries.write().expect("poisoned");
        let mut stmt = conn.prepare_cached(
            "SELECT id, date, winner, black_id, white_id FROM games WHERE id > ?1 AND id <= ?2",
        )?;
        let rows = stmt.query_map([s.max_id, max], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                Brief {
                    date: date_number(&r.get::<_, String>(1)?),
                    winner: r.get::<_, Option<i64>>(2)?.map_or(-1, |w| w as i8),
                    black: r.get::<_, Option<i64>>(3)?.unwrap_or(0),
                    white: r.get::<_, Option<i64>>(4)?.unwrap_or(0),
                },
            ))
        })?;
        for row in rows {
            let (id, brief) = row?;
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
    /// Calls `f` with every posting of `key`, segment by segment; within a
    /// segment they come sorted by (game, ply).
    fn scan(&self, key: u64, mut f: impl FnMut(Posting)) -> Result<()> {
        for segment in &self.list {
            let dir = &segment.index;
            for b in dir.blocks_for(key) {
                let range = dir.offsets[b] as usize..dir.offsets[b + 1] as usize;
                let block = segment
                    .bytes
                    .get(range)
                    .ok_or_else(|| corrupt("block out of range"))?;
                decode_block(block, dir.first_keys[b], |p| {
                    if p.key == key {
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
#[derive(Clone, Debug)]
pub struct PositionQuery {
    /// The position to find (its kind and board size, and for Keil the
    /// button flag).
    pub position: AnyPosition,
    /// Only occurrences with this player to move.
    pub to_move: Option<Color>,
    /// Whether any symmetric image matches (12 on Keil's hexagon, 8 on
    /// Go's square; otherwise only the position as given).
    pub symmetry: bool,
    /// Colour swap: also match the position with black and white
    /// exchanged, the player to move exchanged too (go-rules.md, "Position
    /// notation and search"); with `symmetry`, 24 images on the hexagon and
    /// 16 on the square. Hits say whether they matched swapped.
    pub swap_colors: bool,
    /// Only games with a player of this exact name (either colour).
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
    /// A query for `position` (Keil, Go or [`AnyPosition`]) with no
    /// filters, symmetry and colour swap off, 20 games.
    pub fn new(position: impl QueryPosition) -> PositionQuery {
        PositionQuery {
            position: position.into_any(),
            to_move: None,
            symmetry: false,
            swap_colors: false,
            player: None,
            from: None,
            to: None,
            limit: 20,
            cursor: None,
        }
    }
}

/// What was played from a position, over all matching games (an opening
/// explorer row).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Continuation {
    /// The move in the query's orientation: `g7` (Keil), `D16` (Go),
    /// `pass`, `button`, or `end` when the game ended in this position.
    #[serde(rename = "move")]
    pub mv: String,
    /// Distinct games that played it.
    pub games: u64,
    /// Of those, games won by the player who has the query's black stones
    /// (Black, or White in a colour-swapped match).
    pub black_wins: u64,
    /// Of those, games won by the player who has the query's white stones.
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
    /// The symmetry (0..12 on Keil's hexagon, 0..8 on Go's square) that
    /// maps the game's board onto the query's.
    pub symmetry: u8,
    /// Whether the game reached the position with colours exchanged (a
    /// colour-swap search): its Black played the query's white stones.
    pub swapped: bool,
    /// The position as the game had it, in full (board in the game's
    /// orientation and colours, the player to move, Keil's button flag).
    pub position: String,
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
            let mut turns = Vec::with_capacity(line.moves.len());
            for (i, &mv) in line.moves.iter().enumerate() {
                let color = line.color(i, &game);
                let out = line.play(i, &mut game).map_err(|e| Error::Corrupt {
                    game: game_id,
                    reason: format!("stored moves do not replay: {e}"),
                })?;
                let after = if game.kind() == keil_rules::GameKind::Keil {
                    (PositionKey(0), 0)
                } else {
                    game.canonical_key()
                };
                turns.push((color, mv, out.captured, after));
            }
            let steps = turns.iter().map(|(color, mv, captured, _)| Step {
                color: *color,
                mv: *mv,
                captured,
            });
            match &start {
                AnyPosition::Keil(start) => batch.extend(postings(id as u32, start, steps)),
                start => {
                    let keys = turns.iter().map(|t| t.3);
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
    /// Finds the games that reached a position (any of its 12 images when
    /// `q.symmetry`), with the ply and the move played next shown in the
    /// query's orientation, and continuation statistics over all matches
    /// (issue 6, "positions"). Runs on one read snapshot.
    ///
    /// # Errors
    /// [`Error::BadCursor`] for a cursor this search did not produce;
    /// [`Error::PositionIndex`] for a damaged segment; storage errors.
    pub fn search(&self, q: &PositionQuery) -> Result<PositionAnswer> {
        let archive = self.archive;
        archive
            .reader()?
            .snapshot(|conn| search(&archive.positions, conn, q))
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
/// generation, the key, the orientations allowed (a bit per symmetry from
/// the game's board onto the canonical one), and the filters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct MatchKey {
    generation: u64,
    key: u64,
    orientations: u16,
    white_to_move: Option<bool>,
    player: Option<String>,
    from: Option<u32>,
    to: Option<u32>,
}

/// The matches of a search before paging; for a popular position, shared
/// by every search of it until the index changes.
#[derive(Debug)]
pub(crate) struct Matches {
    /// (next-move code reduced under the position's own symmetries, games,
    /// Black wins, White wins), most frequent first; codes are canonical.
    per_move: Vec<(u16, u64, u64, u64)>,
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
    white_to_move: bool,
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
        (128 + m.games.len() * std::mem::size_of::<Hit>() + m.per_move.len() * 32) as u64
    }
}

/// The cache of popular positions' match lists.
pub(crate) type Answers = quick_cache::sync::Cache<MatchKey, Arc<Matches>, MatchesWeight>;

pub(crate) fn new_answers() -> Answers {
    Answers::with_weighter(1024, CACHE_BYTES, MatchesWeight)
}

/// One side of a search (the query, or its colour swap): the match key,
/// the canonical position and the symmetry back to the query.
struct Side {
    key: MatchKey,
    canon: AnyPosition,
    to_query: u8,
    swapped: bool,
}

impl Side {
    fn new(
        p: &AnyPosition,
        to_move: Option<Color>,
        q: &PositionQuery,
        generation: u64,
        swapped: bool,
    ) -> Side {
        let board = p.board();
        let (key, s_q) = any_index_key(p, p.canonical_key());
        let canon = p.transform(s_q);
        let to_query = board.inverse(s_q);
        let count = board.symmetry_count();
        // Symmetries of the game orientation allowed when images don't
        // match: those under which the game's board is the query's board.
        let orientations: u16 = if q.symmetry {
            (1 << count) - 1
        } else {
            (0..count)
                .filter(|&s| canon.transform(board.inverse(s)) == *p)
                .fold(0, |m, s| m | 1 << s)
        };
        Side {
            key: MatchKey {
                generation,
                key,
                orientations,
                white_to_move: to_move.map(|c| c == Color::White),
                player: q.player.clone(),
                from: q.from.map(|d| date_number(&d.to_string())),
                to: q.to.map(|d| date_number(&d.to_string())),
            },
            canon,
            to_query,
            swapped,
        }
    }

    /// The matches, from the cache when there.
    fn matches(
        &self,
        index: &PositionIndex,
        conn: &rusqlite::Connection,
        snapshot: &Snapshot,
    ) -> Result<Arc<Matches>> {
        if let Some(m) = index.answers.get(&self.key) {
            return Ok(m);
        }
        let (m, postings) = collect(index, conn, snapshot, &self.key, &self.canon)?;
        let m = Arc::new(m);
        if postings >= CACHE_MIN_POSTINGS {
            index.answers.insert(self.key.clone(), m.clone());
        }
        Ok(m)
    }
}

/// Runs a position search on one read connection.
pub(crate) fn search(
    index: &PositionIndex,
    conn: &rusqlite::Connection,
    q: &PositionQuery,
) -> Result<PositionAnswer> {
    let p = q.position;
    let board = p.board();
    let after = match &q.cursor {
        None => None,
        Some(c) => Some(parse_cursor(c)?),
    };

    index.refresh(conn)?;
    let snapshot = index.segments(conn)?;
    let mut sides = vec![Side::new(&p, q.to_move, q, snapshot.generation, false)];
    if q.swap_colors {
        let swapped = p.swap_colors();
        let to_move = q.to_move.map(Color::opposite);
        sides.push(Side::new(&swapped, to_move, q, snapshot.generation, true));
    }
    let matches = sides
        .iter()
        .map(|side| side.matches(index, conn, &snapshot))
        .collect::<Result<Vec<_>>>()?;

    // Continuations in the query's orientation and colours.
    let mut per_move: HashMap<String, (u64, u64, u64)> = HashMap::new();
    for (side, m) in sides.iter().zip(&matches) {
        for &(code, n, b, w) in &m.per_move {
            let mv = match decode_move(code) {
                None => "end".to_string(),
                Some(m) => show_move(board, transform_move(board, m, side.to_query)),
            };
            let (b, w) = if side.swapped { (w, b) } else { (b, w) };
            let e = per_move.entry(mv).or_default();
            e.0 += n;
            e.1 += b;
            e.2 += w;
        }
    }
    // Every matching game once (its first occurrence; unswapped first).
    let merged: Vec<(Hit, usize)> = if matches.len() == 1 {
        Vec::new()
    } else {
        let mut all: Vec<(Hit, usize)> = matches
            .iter()
            .enumerate()
            .flat_map(|(i, m)| m.games.iter().map(move |&h| (h, i)))
            .collect();
        all.sort_by_key(|(h, i)| (h.order(), h.ply, *i));
        all.dedup_by_key(|(h, _)| h.game);
        all
    };
    let list: &[(Hit, usize)] = &merged;
    let total = if matches.len() == 1 {
        matches[0].games.len()
    } else {
        list.len()
    } as u64;
    let mut continuations: Vec<Continuation> = per_move
        .into_iter()
        .map(|(mv, (n, b, w))| Continuation {
            mv,
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
    continuations.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.mv.cmp(&b.mv)));

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
            list.partition_point(|(h, _)| h.order() <= std::cmp::Reverse((d, g)))
        });
        let end = (first + limit).min(list.len());
        (list[first..end].to_vec(), end < list.len())
    };
    let next_cursor = more
        .then(|| page.last().map(|(h, _)| format!("{}-{}", h.date, h.game)))
        .flatten();
    let mut stmt = conn.prepare_cached(
        "SELECT g.date, b.name, w.name, g.result FROM games g
         LEFT JOIN players b ON b.id = g.black_id LEFT JOIN players w ON w.id = g.white_id
         WHERE g.id = ?1",
    )?;
    let mut hits = Vec::with_capacity(page.len());
    for (h, i) in &page {
        let side = &sides[*i];
        let (date, black, white, result) = stmt.query_row([i64::from(h.game)], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
        // The game's orientation and colours: the canonical position mapped
        // back by the inverse of the game's symmetry.
        let at = side.canon.transform(board.inverse(h.sym));
        let to_move = if h.white_to_move {
            Color::White
        } else {
            Color::Black
        };
        hits.push(PositionHit {
            game_id: GameId::from_sql(i64::from(h.game)),
            ply: u32::from(h.ply),
            next: decode_move(h.next)
                .map(|m| show_move(board, transform_move(board, m, side.to_query))),
            symmetry: board.compose(h.sym, side.to_query),
            swapped: side.swapped,
            position: at.to_full_notation(to_move),
            date,
            black,
            white,
            result,
        });
    }
    Ok(PositionAnswer {
        total_games: total,
        continuations,
        games: hits,
        next_cursor,
    })
}

/// Finds the matches of `k` in the snapshot: postings of the key with an
/// allowed orientation and player to move, confirmed exactly (Zobrist keys:
/// by replay), of games that pass the filters; then the first occurrence
/// per game and the continuation statistics. Also returns the number of
/// postings read (the cost of doing it again).
fn collect(
    index: &PositionIndex,
    conn: &rusqlite::Connection,
    snapshot: &Snapshot,
    k: &MatchKey,
    canon: &AnyPosition,
) -> Result<(Matches, usize)> {
    let board = canon.board();
    let mut postings = Vec::new();
    let mut read = 0;
    snapshot.scan(k.key, |x| {
        read += 1;
        if k.orientations & (1 << x.sym) != 0
            && k.white_to_move.is_none_or(|w| x.white_to_move == w)
        {
            postings.push(x);
        }
    })?;
    // Each segment's postings of the key are sorted by (game, ply): a stable
    // sort merges those runs (it finds them) rather than sorting from
    // scratch. The first posting of each game is then its first occurrence.
    postings.sort_by_key(|x| (x.game, x.ply));
    // Exactness: Zobrist keys are confirmed by replay, once per game.
    if !is_exact(k.key) {
        let mut confirmed: HashMap<(u32, u16), bool> = HashMap::new();
        for x in &postings {
            if let std::collections::hash_map::Entry::Vacant(e) = confirmed.entry((x.game, x.ply)) {
                let ok = position_at(conn, x)?.is_some_and(|at| at.transform(x.sym) == *canon);
                e.insert(ok);
            }
        }
        postings.retain(|x| confirmed[&(x.game, x.ply)]);
    }
    let player_ids: Option<Vec<i64>> = match &k.player {
        None => None,
        Some(name) => {
            let mut stmt = conn.prepare_cached("SELECT id FROM players WHERE name = ?1")?;
            Some(
                stmt.query_map([name], |r| r.get(0))?
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
    let mut per_move: Vec<(u64, u64, u64)> = vec![(0, 0, 0); codes];
    let mut run: Vec<u16> = Vec::new();
    let mut games: Vec<Hit> = Vec::new();
    let mut current: Option<(u32, Brief)> = None;
    for x in &postings {
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
                    white_to_move: x.white_to_move,
                });
                b
            }
        };
        let bucket = reduce[x.next as usize];
        if !run.contains(&bucket) {
            run.push(bucket);
            let e = &mut per_move[bucket as usize];
            e.0 += 1;
            e.1 += u64::from(b.winner == 0);
            e.2 += u64::from(b.winner == 1);
        }
    }
    drop(summaries);
    games.sort_unstable_by_key(Hit::order);
    let mut per_move: Vec<(u16, u64, u64, u64)> = per_move
        .into_iter()
        .enumerate()
        .filter(|&(_, (n, _, _))| n > 0)
        .map(|(code, (n, b, w))| (code as u16, n, b, w))
        .collect();
    per_move.sort_by_key(|&(code, n, _, _)| (std::cmp::Reverse(n), code));
    Ok((Matches { per_move, games }, read))
}

fn parse_cursor(c: &str) -> Result<(u32, u32)> {
    let bad = || Error::BadCursor(c.to_string());
    let (d, g) = c.split_once('-').ok_or_else(bad)?;
    Ok((d.parse().map_err(|_| bad())?, g.parse().map_err(|_| bad())?))
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
            for b in dir.blocks_for(want) {
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

    #[test]
    fn small_positions_get_exact_keys_shared_by_their_images() {
        let board = Board::new(7).unwrap();
        let p = |n| board.parse_point(n).unwrap();
        let a = Position::from_stones(board, [p("g7"), p("a1")], [p("b3")], false).unwrap();
        let keys = SymmetricKeys::new(&a);
        let (ka, _) = index_key(&a, &keys, 3);
        assert!(is_exact(ka));
        for s in Symmetry::all() {
            let image = a.transform(s);
            assert_eq!(index_key(&image, &SymmetricKeys::new(&image), 3).0, ka);
        }
        // Different positions, different exact keys; the button counts.
        let b = Position::from_stones(board, [p("g7"), p("a1")], [p("b4")], false).unwrap();
        assert_ne!(index_key(&b, &SymmetricKeys::new(&b), 3).0, ka);
        let mut c = a;
        c.set_button_taken(true);
        assert_ne!(index_key(&c, &SymmetricKeys::new(&c), 3).0, ka);
        // Six stones: a Zobrist key, top bit clear.
        let d = Position::from_stones(
            board,
            [p("g7"), p("a1"), p("c3")],
            [p("b3"), p("d4"), p("e5")],
            false,
        )
        .unwrap();
        assert!(!is_exact(index_key(&d, &SymmetricKeys::new(&d), 6).0));
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
        let keil_rules::AnyPosition::Keil(start) = replay.start else {
            unreachable!("a Keil record")
        };
        let board = start.board();
        let after2 =
            Position::from_stones(board, [], [board.parse_point("b2").unwrap()], false).unwrap();
        assert_eq!(
            ps[2].key,
            index_key(&after2, &SymmetricKeys::new(&after2), 1).0
        );
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
        let game = line.game_at(12).unwrap();
        let q = game.position();
        let (key, _) = any_index_key(&q, q.canonical_key());
        assert!(!is_exact(key));
        let mut query = PositionQuery::new(q);
        query.symmetry = true;
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
            let conn = archive.writer.lock().unwrap();
            insert_segment(&conn, &[forged], 1).unwrap();
        }
        let answer = archive.positions().search(&query).unwrap();
        assert_eq!(answer, honest, "the forged posting must be rejected");
    }
}
