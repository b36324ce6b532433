//! Pattern blocks: the pattern index's games stored as bounded, immutable
//! blocks (one per import batch, or per [`LOAD_CHUNK`](super::LOAD_CHUNK)
//! games when `reindex` rebuilds them), so that a node start reads them
//! instead of replaying every game. A block is derived data: a block that
//! does not decode, or of another [`VERSION`], is never trusted (its games
//! are replayed), and `keil reindex` writes them all again.
//!
//! **Format** (version 1), compressed with zstd as a whole: the number of
//! games (varint), then per game its kind (0 Keil, 1 Go, 2 Kaomi) and
//! board size (one byte each), its id as the difference from the previous
//! game's (varint; ids ascend), its date as `YYYYMMDD` (varint, 0 when
//! unknown), its plies (varint), its winner (one byte: 0 Black, 1 White, 2
//! none), its move nodes (varint count, 0 when one move per node after the
//! root, then each node as the difference from the previous one), and its
//! events (varint count, then each event's node as the difference from the
//! previous event's and its low 16 bits: point, state, move bits). The
//! columns are not stored: [`columns_of`] recomputes them from the events,
//! as the replay computes them.

use keil_rules::{AnyBoard, BoardSpec, GameKind};

use super::index::{Built, Event, Line, columns_of};
use super::load::Replayed;
use crate::positions::{get_varint, put_varint};

/// The block format's version (`derived_blocks.version`).
pub(crate) const VERSION: i64 = 1;

/// The derived index's name in the store (`derived_blocks.kind`).
pub(crate) const KIND: &str = "patterns";

/// zstd's level for blocks: fast to write, as small as level 3 within a
/// few per cent on these bytes.
const LEVEL: i32 = 1;

/// Why a block does not decode (the loader then replays its games).
pub(crate) type Damaged = &'static str;

/// Encodes games (ids ascending) as one block.
pub(crate) fn encode(games: &[Replayed]) -> Vec<u8> {
    let mut out = Vec::with_capacity(games.len() * 600);
    put_varint(&mut out, games.len() as u64);
    let mut last_id = 0u32;
    for (kind, board, line, winner, built) in games {
        let k = GameKind::ALL.iter().position(|k| k == kind).unwrap_or(0);
        out.push(k as u8);
        out.push(board.size());
        put_varint(&mut out, u64::from(line.id - last_id));
        last_id = line.id;
        put_varint(&mut out, u64::from(line.date));
        put_varint(&mut out, u64::from(line.plies));
        out.push(match winner {
            0 => 0,
            1 => 1,
            _ => 2,
        });
        match &line.nodes {
            None => put_varint(&mut out, 0),
            Some(nodes) => {
                put_varint(&mut out, nodes.len() as u64);
                let mut prev = 0u32;
                for &n in nodes.iter() {
                    put_varint(&mut out, u64::from(n.wrapping_sub(prev)));
                    prev = n;
                }
            }
        }
        put_varint(&mut out, built.events.len() as u64);
        let mut prev = 0u16;
        for e in &built.events {
            put_varint(&mut out, u64::from(e.node().wrapping_sub(prev)));
            prev = e.node();
            put_varint(&mut out, u64::from(e.raw() & 0xFFFF));
        }
    }
    zstd::bulk::compress(&out, LEVEL).expect("zstd compresses to memory")
}

/// Decodes a block written by [`encode`].
///
/// # Errors
/// What is wrong with bytes that do not decode.
pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<Replayed>, Damaged> {
    let raw = zstd::stream::decode_all(bytes).map_err(|_| "not zstd")?;
    let mut at = 0usize;
    let varint = |at: &mut usize| get_varint(&raw, at).ok_or("truncated");
    let n = varint(&mut at)? as usize;
    let mut games = Vec::with_capacity(n.min(1 << 16));
    let mut last_id = 0u64;
    for _ in 0..n {
        let (&k, &size) = (
            raw.get(at).ok_or("truncated")?,
            raw.get(at + 1).ok_or("truncated")?,
        );
        at += 2;
        let kind = *GameKind::ALL.get(usize::from(k)).ok_or("game kind")?;
        let board: AnyBoard = BoardSpec::new(kind, size)
            .and_then(|s| s.board())
            .map_err(|_| "board size")?;
        last_id = last_id.checked_add(varint(&mut at)?).ok_or("game id")?;
        let id = u32::try_from(last_id).map_err(|_| "game id")?;
        let date = u32::try_from(varint(&mut at)?).map_err(|_| "date")?;
        let plies = u32::try_from(varint(&mut at)?).map_err(|_| "plies")?;
        let winner = match raw.get(at) {
            Some(0) => 0,
            Some(1) => 1,
            Some(2) => -1,
            _ => return Err("winner"),
        };
        at += 1;
        let count = varint(&mut at)? as usize;
        let nodes = if count == 0 {
            None
        } else {
            let mut nodes = Vec::with_capacity(count.min(1 << 16));
            let mut prev = 0u32;
            for _ in 0..count {
                let d = u32::try_from(varint(&mut at)?).map_err(|_| "node")?;
                prev = prev.wrapping_add(d);
                nodes.push(prev);
            }
            Some(nodes.into_boxed_slice())
        };
        let count = varint(&mut at)? as usize;
        let mut events = Vec::with_capacity(count.min(1 << 16));
        let mut node = 0u16;
        for _ in 0..count {
            let d = u16::try_from(varint(&mut at)?).map_err(|_| "event node")?;
            node = node.wrapping_add(d);
            let low = u32::try_from(varint(&mut at)?)
                .ok()
                .filter(|&l| l <= 0xFFFF)
                .ok_or("event")?;
            let e = Event::from_raw(u32::from(node) << 16 | low);
            if e.point() >= board.len() {
                return Err("event point");
            }
            events.push(e);
        }
        let columns = columns_of(board.len(), &events);
        let line = Line {
            id,
            date,
            plies,
            nodes,
            events: 0..0,
        };
        games.push((kind, board, line, winner, Built { events, columns }));
    }
    if at != raw.len() {
        return Err("trailing bytes");
    }
    Ok(games)
}
