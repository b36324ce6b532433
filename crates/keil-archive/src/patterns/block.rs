//! Pattern blocks: the pattern index's games stored as bounded, immutable
//! blocks (one per import batch, or per `LOAD_CHUNK`
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
//! events (varint count, then per event a little-endian 16-bit word: its
//! point, state and move bits in bits 0..13, bit 13 set when its node is
//! the previous event's plus one, bit 14 when it steps further, the step
//! then following as a varint). The
//! columns are not stored: [`columns_of`] recomputes them from the events,
//! as the replay computes them.

use keil_rules::{AnyBoard, BoardSpec, GameKind};

use super::events::{Built, Event};
use super::index::{Line, columns_of};
use super::load::Replayed;
use crate::positions::{get_varint, put_varint};

/// The block format's version (`derived_blocks.version`).
pub(crate) const VERSION: i64 = 1;

/// The derived index's name in the store (`derived_blocks.kind`).
pub(crate) const KIND: &str = "patterns";

/// zstd's level for blocks: 16 % smaller than level 1 on 19×19 Go games
/// (595 against 710 bytes a game), about 10 ms a 2,000-game batch.
const LEVEL: i32 = 3;

/// An event's own bits in a block's 16-bit word: point (9 bits), state (2),
/// move bits (2).
const LOW: u32 = 0x1FFF;
/// Set in the word when the event's node is the previous event's plus one.
const NEXT_NODE: u16 = 1 << 13;
/// Set in the word when the node steps by more (a varint step follows).
const JUMP: u16 = 1 << 14;

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
            let step = e.node().wrapping_sub(prev);
            prev = e.node();
            let low = (e.raw() & LOW) as u16;
            match step {
                0 => out.extend_from_slice(&low.to_le_bytes()),
                1 => out.extend_from_slice(&(low | NEXT_NODE).to_le_bytes()),
                _ => {
                    out.extend_from_slice(&(low | JUMP).to_le_bytes());
                    put_varint(&mut out, u64::from(step));
                }
            }
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
            let word = raw.get(at..at + 2).ok_or("truncated")?;
            let word = u16::from_le_bytes([word[0], word[1]]);
            at += 2;
            if word & 0x8000 != 0 {
                return Err("event");
            }
            let step = match word & (NEXT_NODE | JUMP) {
                0 => 0,
                NEXT_NODE => 1,
                JUMP => u16::try_from(varint(&mut at)?).map_err(|_| "event node")?,
                _ => return Err("event"),
            };
            node = node.wrapping_add(step);
            let e = Event::from_raw(u32::from(node) << 16 | (u32::from(word) & LOW));
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

#[cfg(test)]
mod tests {
    use keil_gen::{Generator, GeneratorConfig};
    use keil_rules::GameKind;

    use super::{decode, encode};
    use crate::patterns::load::{assert_same, replayed};

    /// Games of every kind (Keil's captures, Go's handicaps, Kaomi's
    /// pushes) come out of a block as the replay made them: line, winner,
    /// events and the columns recomputed from the events; a block cut
    /// short or with a bad word does not decode.
    #[test]
    fn blocks_round_trip_every_kind_and_refuse_damage() {
        for (game, size) in [
            (GameKind::Keil, 7),
            (GameKind::Go, 19),
            (GameKind::Kaomi, 9),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let archive = crate::Archive::open(dir.path()).unwrap();
            let bytes: Vec<u8> = Generator::new(GeneratorConfig {
                game,
                games: 30,
                size,
                seed: 4,
                handicaps: game == GameKind::Go,
                ..GeneratorConfig::default()
            })
            .unwrap()
            .flat_map(|g| g.record.into_bytes())
            .collect();
            let source = crate::ImportSource::Bytes {
                name: "gen".into(),
                bytes,
            };
            archive
                .import(&[source], &crate::ImportOptions::default(), &mut |_| {})
                .unwrap();
            let conn = archive.reader().unwrap();
            let mut games = Vec::new();
            crate::store::games::stored_between(
                conn.read(),
                0,
                i64::MAX,
                |(s, id, date, winner)| {
                    games.push(replayed(s, id, &date, winner).unwrap());
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(games.len(), 30);
            let block = encode(&games);
            let back = decode(&block).unwrap();
            assert_eq!(back.len(), games.len());
            for (a, b) in games.iter().zip(&back) {
                assert_same(a, b, &format!("{game:?}"));
            }
            assert!(decode(&block[..block.len() / 2]).is_err());
            let raw = zstd::stream::decode_all(&block[..]).unwrap();
            let cut = zstd::bulk::compress(&raw[..raw.len() - 1], 1).unwrap();
            assert!(decode(&cut).is_err());
        }
    }
}
