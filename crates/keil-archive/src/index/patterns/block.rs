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
//!
//! **Version 2** adds, after the games, the region index's entries of the
//! block's games ([`super::regions`]), so that a node start merges sorted
//! runs instead of finding and sorting every game's entries (at a million
//! 19×19 games that was most of the pattern index's load): the number of
//! boards with regions among the block's games (varint), then per board
//! its kind and size (a byte each) and its entries as one segment
//! ([`Segment::write_block`]), the games numbered from 0 among the block's
//! games of that board, in block order. Version 2 blocks carry zstd's
//! checksum of their content. Version 1 blocks are still read (their
//! games' region entries are found from their events). What the region
//! index holds (its regions, contents, keys, continuation byte) is part of
//! this format: a change to it is a new [`VERSION`].
//!
//! **Version 3** holds the bytes of version 2 as two zstd frames, one
//! after the other: the games, then the region entries (each frame with
//! its content size and checksum), so that a node's first load, which
//! leaves the region index for later, decompresses the games alone (the
//! region entries are four fifths of a 19×19 block's bytes). Read whole,
//! the two frames are version 2's bytes.

use keil_rules::{AnyBoard, BoardSpec, GameKind};

use super::events::{Built, Event, columns_of};
use super::index::{Line, Replayed};
use super::regions::Regions;
use super::runs::Segment;
use crate::index::varint::{get_varint, put_varint};

/// The block format's version (`derived_blocks.version`) written.
pub(crate) const VERSION: i64 = 3;

/// The oldest version read (see the format above).
pub(crate) const OLDEST: i64 = 1;

/// A decoded block: its games (ids ascending), and per board with
/// regions its games' region entries, numbered from 0 among the block's
/// games of that kind and board (none in a version 1 block).
pub(super) struct Decoded {
    pub(super) games: Vec<Replayed>,
    pub(super) regions: Vec<(GameKind, AnyBoard, Segment)>,
}

/// The derived index's name in the store (`derived_blocks.kind`).
pub(crate) const KIND: &str = "patterns";

/// zstd's level for blocks: smaller blocks than level 1 at a cost the
/// import's batches hardly see (BENCHMARKS.md).
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

/// Encodes games (ids ascending) as one block of [`VERSION`]; returns its
/// bytes and the length of its first frame (the games: what a load that
/// wants only them reads, `derived_blocks.head_bytes`).
pub(crate) fn encode(games: &[Replayed]) -> (Vec<u8>, usize) {
    let mut part = Vec::with_capacity(games.len() * 3000);
    put_games(&mut part, games);
    let mut zstd = zstd::bulk::Compressor::new(LEVEL).expect("zstd's level");
    zstd.include_checksum(true).expect("zstd's checksum flag");
    let mut out = zstd.compress(&part).expect("zstd compresses to memory");
    let head = out.len();
    part.clear();
    put_regions(&mut part, games);
    out.extend(zstd.compress(&part).expect("zstd compresses to memory"));
    (out, head)
}

/// Appends the games (version 1's whole block, before compression).
fn put_games(out: &mut Vec<u8>, games: &[Replayed]) {
    put_varint(out, games.len() as u64);
    let mut last_id = 0u32;
    for (kind, board, line, winner, built) in games {
        out.push(kind_code(*kind));
        out.push(board.size());
        put_varint(out, u64::from(line.id - last_id));
        last_id = line.id;
        put_varint(out, u64::from(line.date));
        put_varint(out, u64::from(line.plies));
        out.push(match winner {
            0 => 0,
            1 => 1,
            _ => 2,
        });
        match &line.nodes {
            None => put_varint(out, 0),
            Some(nodes) => {
                put_varint(out, nodes.len() as u64);
                let mut prev = 0u32;
                for &n in nodes.iter() {
                    put_varint(out, u64::from(n.wrapping_sub(prev)));
                    prev = n;
                }
            }
        }
        put_varint(out, built.events.len() as u64);
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
                    put_varint(out, u64::from(step));
                }
            }
        }
    }
}

/// Appends the region entries of `games` (the block's), board by board in
/// the order the boards first come.
fn put_regions(out: &mut Vec<u8>, games: &[Replayed]) {
    let mut boards: Vec<(GameKind, AnyBoard)> = Vec::new();
    for (kind, board, ..) in games {
        if !boards.contains(&(*kind, *board)) {
            boards.push((*kind, *board));
        }
    }
    let sets: Vec<(GameKind, AnyBoard, Segment)> = boards
        .into_iter()
        .filter_map(|(kind, board)| {
            let regions = Regions::new(board)?;
            let these: Vec<(u32, &[Event])> = games
                .iter()
                .filter(|g| g.0 == kind && g.1 == board)
                .enumerate()
                .map(|(i, g)| (i as u32, &g.4.events[..]))
                .collect();
            Some((kind, board, regions.block_segment(&these)))
        })
        .collect();
    put_varint(out, sets.len() as u64);
    for (kind, board, segment) in sets {
        out.push(kind_code(kind));
        out.push(board.size());
        segment.write_block(out);
    }
}

/// A game kind's byte in a block (0 Keil, 1 Go, 2 Kaomi).
fn kind_code(kind: GameKind) -> u8 {
    GameKind::ALL.iter().position(|k| *k == kind).unwrap_or(0) as u8
}

/// The board of the kind's byte and the size's at `raw[*at..]` (a
/// block's; `at` is left after them).
fn board_at(raw: &[u8], at: &mut usize) -> Result<(GameKind, AnyBoard), Damaged> {
    let [kind, size] = *raw
        .get(*at..*at + 2)
        .and_then(|b| <&[u8; 2]>::try_from(b).ok())
        .ok_or("truncated")?;
    *at += 2;
    let kind = *GameKind::ALL.get(usize::from(kind)).ok_or("game kind")?;
    let board = BoardSpec::new(kind, size)
        .and_then(|s| s.board())
        .map_err(|_| "board size")?;
    Ok((kind, board))
}

/// What a decode keeps of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Want {
    /// The games and the region entries.
    All,
    /// The games only (a node's first load, which leaves the region index
    /// to [`super::load::PatternIndex::fill_regions`]): the region entries
    /// are neither read nor checked.
    Games,
    /// The region entries, with each game's kind, board and id but neither
    /// its events nor its columns (read and checked, then dropped).
    Regions,
}

/// Decodes a block of format `version` (from [`OLDEST`] to [`VERSION`]),
/// keeping what `want` says.
///
/// # Errors
/// What is wrong with bytes that do not decode.
pub(super) fn decode(bytes: &[u8], version: i64, want: Want) -> Result<Decoded, Damaged> {
    // The games' frame alone, when the games are all that is wanted.
    let bytes = if version >= 3 && want == Want::Games {
        let games = zstd::zstd_safe::find_frame_compressed_size(bytes).map_err(|_| "not zstd")?;
        &bytes[..games]
    } else {
        bytes
    };
    RAW.with_borrow_mut(|(zstd, raw)| {
        decompress(bytes, zstd, raw)?;
        decode_raw(raw, version, want)
    })
}

/// Whether a stored block (`derived_blocks`: its bytes, format
/// `version`, and the game ids `first..=last` and count `games` its row
/// says) decodes whole, its games and region entries, and holds what its
/// row says: `keil verify`.
///
/// # Errors
/// What is wrong, in words.
pub(crate) fn check(
    bytes: &[u8],
    version: i64,
    (first, last, games): (i64, i64, i64),
) -> Result<(), String> {
    if !(OLDEST..=VERSION).contains(&version) {
        return Err(format!("its version {version} is not one this keil reads"));
    }
    let decoded =
        decode(bytes, version, Want::All).map_err(|e| format!("it does not decode: {e}"))?;
    if decoded.games.len() as i64 != games {
        return Err(format!(
            "it holds {} games, its row says {games}",
            decoded.games.len()
        ));
    }
    let ids: Vec<i64> = decoded.games.iter().map(|g| i64::from(g.2.id)).collect();
    if ids.windows(2).any(|w| w[0] >= w[1]) {
        return Err("its games' ids do not ascend".into());
    }
    if ids.iter().any(|&id| id < first || id > last) {
        return Err(format!("it holds a game outside ids {first}..={last}"));
    }
    Ok(())
}

thread_local! {
    /// Each decoding thread's zstd context and the buffer its blocks are
    /// decompressed into: kept from block to block, so that a node start
    /// (500 blocks of 2-6 MB at a million games) neither grows a buffer
    /// nor faults in fresh pages for each block. A thread keeps its
    /// largest block's size (a few MB) for as long as it lives.
    static RAW: std::cell::RefCell<(Option<zstd::bulk::Decompressor<'static>>, Vec<u8>)> =
        const { std::cell::RefCell::new((None, Vec::new())) };
}

/// The largest decompressed block believed from a frame's header (bytes):
/// a damaged header does not make a load allocate more. A block of this
/// format holds one import batch (2,000 games at about 3 KB).
const MAX_RAW: u64 = 1 << 30;

/// The content size of the zstd frames `bytes` holds, one after the
/// other, when each says its own.
fn content_size(mut bytes: &[u8]) -> Option<u64> {
    let mut total = 0u64;
    while !bytes.is_empty() {
        let size = zstd::zstd_safe::get_frame_content_size(bytes).ok()??;
        let len = zstd::zstd_safe::find_frame_compressed_size(bytes).ok()?;
        total = total.checked_add(size)?;
        bytes = bytes.get(len..)?;
    }
    Some(total)
}

/// Decompresses `bytes` (one or more frames) into `raw` (cleared first):
/// in one call when the frames say their content sizes (every block
/// [`encode`] writes), else as a stream.
fn decompress(
    bytes: &[u8],
    zstd: &mut Option<zstd::bulk::Decompressor<'static>>,
    raw: &mut Vec<u8>,
) -> Result<(), Damaged> {
    raw.clear();
    match content_size(bytes) {
        Some(size) if size <= MAX_RAW => {
            raw.reserve(size as usize);
            let zstd = match zstd {
                Some(z) => z,
                None => zstd.insert(zstd::bulk::Decompressor::new().map_err(|_| "zstd")?),
            };
            zstd.decompress_to_buffer(bytes, raw)
                .map_err(|_| "not zstd")?;
        }
        _ => {
            use std::io::Read;
            zstd::stream::read::Decoder::new(bytes)
                .and_then(|mut d| d.read_to_end(raw))
                .map_err(|_| "not zstd")?;
        }
    }
    Ok(())
}

/// [`decode`] of a decompressed block.
fn decode_raw(raw: &[u8], version: i64, want: Want) -> Result<Decoded, Damaged> {
    let keep_events = want != Want::Regions;
    let mut r = Reader { raw, at: 0 };
    let n = r.varint()? as usize;
    let mut games = Vec::with_capacity(n.min(1 << 16));
    let mut last_id = 0u64;
    for _ in 0..n {
        games.push(r.game(&mut last_id, keep_events)?);
    }
    let mut regions = Vec::new();
    if want == Want::Games {
        return Ok(Decoded { games, regions });
    }
    if version >= 2 {
        regions = r.regions(&games)?;
    }
    if r.at != raw.len() {
        return Err("trailing bytes");
    }
    Ok(Decoded { games, regions })
}

/// A decompressed block as it is read: its bytes, and where the next
/// value starts.
struct Reader<'a> {
    raw: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    /// The varint at the cursor.
    #[inline(always)]
    fn varint(&mut self) -> Result<u64, Damaged> {
        get_varint(self.raw, &mut self.at).ok_or("truncated")
    }

    /// One game: its board, line (its events' range left empty), winner
    /// and, with `keep_events`, its events and columns; `last_id` is the
    /// block's previous game's id (0 before the first), then this one's.
    #[inline(always)]
    fn game(&mut self, last_id: &mut u64, keep_events: bool) -> Result<Replayed, Damaged> {
        let (kind, board) = board_at(self.raw, &mut self.at)?;
        *last_id = last_id.checked_add(self.varint()?).ok_or("game id")?;
        let id = u32::try_from(*last_id).map_err(|_| "game id")?;
        let date = u32::try_from(self.varint()?).map_err(|_| "date")?;
        let plies = u32::try_from(self.varint()?).map_err(|_| "plies")?;
        let winner = self.winner()?;
        let nodes = self.nodes()?;
        let events = self.events(board, keep_events)?;
        let columns = if keep_events {
            columns_of(board.len(), &events)
        } else {
            Vec::new()
        };
        let line = Line {
            id,
            date,
            plies,
            nodes,
            events: 0..0,
        };
        Ok((kind, board, line, winner, Built { events, columns }))
    }

    /// A game's winner: 0 Black, 1 White, -1 none.
    #[inline(always)]
    fn winner(&mut self) -> Result<i8, Damaged> {
        let winner = match self.raw.get(self.at) {
            Some(0) => 0,
            Some(1) => 1,
            Some(2) => -1,
            _ => return Err("winner"),
        };
        self.at += 1;
        Ok(winner)
    }

    /// A game's move nodes (none for one move per node).
    #[inline(always)]
    fn nodes(&mut self) -> Result<Option<Box<[u32]>>, Damaged> {
        let count = self.varint()? as usize;
        if count == 0 {
            return Ok(None);
        }
        let mut nodes = Vec::with_capacity(count.min(1 << 16));
        let mut prev = 0u32;
        for _ in 0..count {
            let d = u32::try_from(self.varint()?).map_err(|_| "node")?;
            prev = prev.wrapping_add(d);
            nodes.push(prev);
        }
        Ok(Some(nodes.into_boxed_slice()))
    }

    /// A game's events on `board`, each checked; kept only with `keep`
    /// (else none).
    #[inline(always)]
    fn events(&mut self, board: AnyBoard, keep: bool) -> Result<Vec<Event>, Damaged> {
        let count = self.varint()? as usize;
        let mut events = Vec::with_capacity(if keep { count.min(1 << 16) } else { 0 });
        let mut node = 0u16;
        for _ in 0..count {
            let word = self.raw.get(self.at..self.at + 2).ok_or("truncated")?;
            let word = u16::from_le_bytes([word[0], word[1]]);
            self.at += 2;
            if word & 0x8000 != 0 {
                return Err("event");
            }
            let step = match word & (NEXT_NODE | JUMP) {
                0 => 0,
                NEXT_NODE => 1,
                JUMP => u16::try_from(self.varint()?).map_err(|_| "event node")?,
                _ => return Err("event"),
            };
            node = node.wrapping_add(step);
            let e = Event::from_raw(u32::from(node) << 16 | (u32::from(word) & LOW));
            if e.point() >= board.len() {
                return Err("event point");
            }
            if keep {
                events.push(e);
            }
        }
        Ok(events)
    }

    /// The region entries (version 2 on) of the block's `games`: per board
    /// with regions, a segment numbering its games from 0; each board
    /// once, and one the block has games of.
    fn regions(
        &mut self,
        games: &[Replayed],
    ) -> Result<Vec<(GameKind, AnyBoard, Segment)>, Damaged> {
        let mut regions = Vec::new();
        let sets = self.varint()?;
        for _ in 0..sets {
            let (kind, board) = board_at(self.raw, &mut self.at)?;
            let of_board = games.iter().filter(|g| g.0 == kind && g.1 == board).count();
            if of_board == 0
                || regions
                    .iter()
                    .any(|r: &(GameKind, AnyBoard, Segment)| (r.0, r.1) == (kind, board))
            {
                return Err("region entries' board");
            }
            let segment = Segment::read_block(self.raw, &mut self.at, of_board as u32)?;
            regions.push((kind, board, segment));
        }
        Ok(regions)
    }
}

#[cfg(test)]
mod tests {
    use keil_gen::GeneratorConfig;
    use keil_rules::GameKind;

    use super::{LEVEL, VERSION, Want, decode, encode, put_games};
    use crate::index::patterns::events::Event;
    use crate::index::patterns::index::Replayed;
    use crate::index::patterns::load::{assert_same, replayed};
    use crate::index::patterns::regions::Regions;
    use crate::index::patterns::runs::Segment;

    /// Stored games of `game` on boards of side `sizes`, replayed for the
    /// index (in one archive, ids ascending).
    fn stored(game: GameKind, sizes: &[u8]) -> Vec<Replayed> {
        let dir = tempfile::tempdir().unwrap();
        let archive = crate::archive::Archive::open(dir.path()).unwrap();
        for (i, &size) in sizes.iter().enumerate() {
            crate::archive::import_generated(
                &archive,
                GeneratorConfig {
                    game,
                    games: 30,
                    size,
                    seed: 4 + i as u64,
                    handicaps: game == GameKind::Go,
                    ..GeneratorConfig::default()
                },
            );
        }
        let conn = archive.node.reader().unwrap();
        let mut games = Vec::new();
        keil_store::games::stored_between(
            conn.read(),
            0,
            i64::MAX,
            |(s, id, date, winner)| -> crate::error::Result<()> {
                games.push(replayed(s, id, &date, winner).unwrap());
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(games.len(), 30 * sizes.len());
        games
    }

    /// A segment's entries: (key, game, node, continuation byte).
    fn entries(s: &Segment) -> Vec<(u64, u32, u16, u8)> {
        s.keys
            .iter()
            .flat_map(|&k| s.run(k).unwrap().map(move |(g, n, c)| (k, g, n, c)))
            .collect()
    }

    /// Games of every kind (Keil's captures, Go's handicaps, Kaomi's
    /// pushes) come out of a block as the replay made them: line, winner,
    /// events and the columns recomputed from the events; each board's
    /// region entries as the index finds them from the games' events
    /// (games numbered from 0 among the block's of that board, two boards
    /// in one block); the games alone from the first of its two frames; a
    /// version 2 block (one frame) and a version 1 block (the games alone)
    /// still read;
    /// a block cut short, with a bad word, or of the wrong version does not
    /// decode.
    #[test]
    fn blocks_round_trip_every_kind_and_refuse_damage() {
        for (game, sizes) in [
            (GameKind::Keil, &[7][..]),
            (GameKind::Go, &[19, 9][..]),
            (GameKind::Kaomi, &[9][..]),
        ] {
            let games = stored(game, sizes);
            let (block, head) = encode(&games);
            let back = decode(&block, VERSION, Want::All).unwrap();
            assert_eq!(back.games.len(), games.len());
            for (a, b) in games.iter().zip(&back.games) {
                assert_same(a, b, &format!("{game:?}"));
            }
            assert_eq!(back.regions.len(), sizes.len(), "{game:?}");
            for (kind, board, segment) in &back.regions {
                let events: Vec<(u32, &[Event])> = games
                    .iter()
                    .filter(|g| (g.0, g.1) == (*kind, *board))
                    .enumerate()
                    .map(|(i, g)| (i as u32, &g.4.events[..]))
                    .collect();
                assert_eq!(events.len(), 30);
                let found = Regions::new(*board).unwrap().block_segment(&events);
                assert!(!found.keys.is_empty());
                assert_eq!(
                    entries(segment),
                    entries(&found),
                    "{game:?} {}",
                    board.size()
                );
                assert_eq!(segment.lasts, found.lasts);
            }
            // A node's first load takes the games alone, its region fill
            // the entries with each game's board and id alone.
            let games_only = decode(&block, VERSION, Want::Games).unwrap();
            assert!(games_only.regions.is_empty());
            for (a, b) in games.iter().zip(&games_only.games) {
                assert_same(a, b, &format!("{game:?} games only"));
            }
            let regions_only = decode(&block, VERSION, Want::Regions).unwrap();
            assert_eq!(regions_only.games.len(), games.len());
            for (a, b) in games.iter().zip(&regions_only.games) {
                assert_eq!((a.0, a.1, a.2.id), (b.0, b.1, b.2.id));
                assert!(b.4.events.is_empty() && b.4.columns.is_empty());
            }
            assert_eq!(regions_only.regions.len(), back.regions.len());
            for (a, b) in back.regions.iter().zip(&regions_only.regions) {
                assert_eq!((a.0, a.1), (b.0, b.1));
                assert_eq!(entries(&a.2), entries(&b.2));
            }
            assert!(decode(&block[..block.len() / 2], VERSION, Want::All).is_err());
            let raw = zstd::stream::decode_all(&block[..]).unwrap();
            let cut = zstd::bulk::compress(&raw[..raw.len() - 1], 1).unwrap();
            assert!(decode(&cut, VERSION, Want::All).is_err());
            // A frame that does not say its content size (a stream's)
            // decodes as well, into the buffer the block before used.
            let streamed = zstd::stream::encode_all(&raw[..], LEVEL).unwrap();
            assert!(matches!(
                zstd::zstd_safe::get_frame_content_size(&streamed),
                Ok(None)
            ));
            let back = decode(&streamed, VERSION, Want::All).unwrap();
            assert_eq!(back.games.len(), games.len());
            for (a, b) in games.iter().zip(&back.games) {
                assert_same(a, b, &format!("{game:?} streamed"));
            }
            assert_eq!(back.regions.len(), sizes.len(), "{game:?} streamed");
            // The games' frame alone (the head `encode` gives) serves a
            // load of the games, and nothing else.
            let games_frame = zstd::zstd_safe::find_frame_compressed_size(&block).unwrap();
            assert_eq!(head, games_frame);
            assert!(games_frame < block.len());
            let head = decode(&block[..games_frame], VERSION, Want::Games).unwrap();
            assert_eq!(head.games.len(), games.len());
            assert!(decode(&block[..games_frame], VERSION, Want::All).is_err());
            // Version 2 (the same bytes, one frame) still reads, whatever
            // is wanted.
            let v2 = zstd::bulk::compress(&raw, LEVEL).unwrap();
            for want in [Want::All, Want::Games, Want::Regions] {
                let back = decode(&v2, 2, want).unwrap();
                assert_eq!(back.games.len(), games.len());
                assert_eq!(
                    back.regions.len(),
                    (want != Want::Games) as usize * sizes.len()
                );
            }
            // Read as version 1, the region entries are trailing bytes.
            assert!(decode(&block, 1, Want::All).is_err());
            let mut v1 = Vec::new();
            put_games(&mut v1, &games);
            let v1 = zstd::bulk::compress(&v1, LEVEL).unwrap();
            let back = decode(&v1, 1, Want::All).unwrap();
            assert!(back.regions.is_empty());
            for (a, b) in games.iter().zip(&back.games) {
                assert_same(a, b, &format!("{game:?}"));
            }
            assert!(decode(&v1, VERSION, Want::All).is_err());
        }
    }
}
