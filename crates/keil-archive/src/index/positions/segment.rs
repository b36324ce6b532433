//! The segment codec: sorted postings encoded as an immutable blob of
//! blocks (32 postings each) behind a block directory, and the decoding of
//! a whole segment or of single blocks.
//!
//! Two layouts are read: `KPX2`, written since the storage-seam issue
//! (each block's fields bit-packed at the block's own widths, game ids
//! relative to the segment's lowest: 10.4 bytes a posting on 19×19 Go
//! games against 12.8), and `KPX1` (each field a LEB128 varint), which
//! archives written before still hold until a merge or a reindex rewrites
//! their segments.
//!
//! Invariants: a segment's postings are sorted by (key, game, ply, ...);
//! each block starts from its first key (held in the directory), so any
//! block decodes on its own; a damaged blob is an
//! [`Error::PositionIndex`], never a panic (a block's length must be
//! exactly what its widths say before anything is unpacked). No SQL here:
//! storing segments is [`super::store`]'s.

use tantivy_bitpacker::{BitPacker, BitUnpacker};

use super::posting::Posting;
use crate::error::{Error, Result};
use crate::index::varint::get_varint;

/// Postings per block: the unit of decoding.
const BLOCK: usize = 32;
const MAGIC_V1: &[u8; 4] = b"KPX1";
const MAGIC_V2: &[u8; 4] = b"KPX2";
/// magic, nonce u64, postings u32, blocks u32 (both layouts start so);
/// `KPX2` adds the segment's lowest game id (u32) after it.
pub(super) const HEADER: usize = 4 + 8 + 4 + 4;
pub(super) const HEADER_V2: usize = HEADER + 4;
/// first key u64, offset u32.
const INDEX_ENTRY: usize = 12;
/// A `KPX2` block's head: its postings, then the bit widths of its key
/// deltas, game offsets, plies and tails.
const BLOCK_HEAD: usize = 5;

/// A posting's last field: `next << 5 | sym << 1 | white_to_move`.
fn tail_of(p: &Posting) -> u64 {
    u64::from(p.next) << 5 | u64::from(p.sym) << 1 | u64::from(p.white_to_move)
}

/// The posting of `key`, `game`, `ply` and a tail made by [`tail_of`].
fn with_tail(key: u64, game: u32, ply: u16, tail: u64) -> Posting {
    Posting {
        key,
        game,
        ply,
        next: (tail >> 5) as u16,
        sym: ((tail >> 1) & 0xf) as u8,
        white_to_move: tail & 1 != 0,
    }
}

/// The bits a bit-packed field needs for values up to `max`: 57 to 63 are
/// widened to 64 (the unpacker reads 8 bytes at a time).
fn width(max: u64) -> u8 {
    match (64 - max.leading_zeros()) as u8 {
        57..=63 => 64,
        w => w,
    }
}

/// Bytes of `n` values packed at `w` bits.
fn packed_len(n: usize, w: u8) -> usize {
    (n * usize::from(w)).div_ceil(8)
}

fn pack(out: &mut Vec<u8>, w: u8, values: impl Iterator<Item = u64>) {
    let mut packer = BitPacker::new();
    for v in values {
        packer.write(v, w, out).expect("writes to a Vec");
    }
    packer.close(out).expect("writes to a Vec");
}

/// Encodes sorted postings as a `KPX2` segment:
/// `KPX2 | nonce u64 | postings u32 | blocks u32 | base game u32 | blocks ×
/// (first key u64, offset u32) | block data`. A block is: its postings
/// `n` (u8), the bit widths of its four fields (u8 each), then each field
/// bit-packed (low bits first) at its width and padded to a byte: the
/// `n - 1` key deltas from the previous posting, the `n` game ids less
/// the segment's base game (its lowest), the `n` plies and the `n` tails
/// (`next << 5 | sym << 1 | white_to_move`). All integers in the header
/// are little-endian.
pub(crate) fn encode_segment(postings: &[Posting], nonce: u64) -> Vec<u8> {
    debug_assert!(postings.windows(2).all(|w| w[0] <= w[1]));
    let base = postings.iter().map(|p| p.game).min().unwrap_or(0);
    let blocks = postings.len().div_ceil(BLOCK);
    let mut data = Vec::with_capacity(postings.len() * 11);
    let mut index = Vec::with_capacity(blocks * INDEX_ENTRY);
    for block in postings.chunks(BLOCK) {
        index.extend_from_slice(&block[0].key.to_le_bytes());
        index.extend_from_slice(&(data.len() as u32).to_le_bytes());
        let deltas = block.windows(2).map(|w| w[1].key - w[0].key);
        let games = block.iter().map(|p| u64::from(p.game - base));
        let plies = block.iter().map(|p| u64::from(p.ply));
        let tails = block.iter().map(tail_of);
        let widths = [
            width(deltas.clone().max().unwrap_or(0)),
            width(games.clone().max().unwrap_or(0)),
            width(plies.clone().max().unwrap_or(0)),
            width(tails.clone().max().unwrap_or(0)),
        ];
        data.push(block.len() as u8);
        data.extend_from_slice(&widths);
        pack(&mut data, widths[0], deltas);
        pack(&mut data, widths[1], games);
        pack(&mut data, widths[2], plies);
        pack(&mut data, widths[3], tails);
    }
    let mut out = Vec::with_capacity(HEADER_V2 + index.len() + data.len());
    out.extend_from_slice(MAGIC_V2);
    out.extend_from_slice(&nonce.to_le_bytes());
    out.extend_from_slice(&(postings.len() as u32).to_le_bytes());
    out.extend_from_slice(&(blocks as u32).to_le_bytes());
    out.extend_from_slice(&base.to_le_bytes());
    out.extend_from_slice(&index);
    out.extend_from_slice(&data);
    out
}

/// The block directory of a segment, kept in memory per segment.
#[derive(Clone, Debug)]
pub(crate) struct SegmentIndex {
    pub(super) nonce: u64,
    postings: u32,
    /// The lowest game id of a `KPX2` segment (its games are stored less
    /// it); `None` for a `KPX1` one.
    base: Option<u32>,
    pub(super) first_keys: Vec<u64>,
    /// Byte ranges of the blocks within the blob; one more than blocks.
    pub(super) offsets: Vec<u32>,
}

pub(super) fn corrupt(what: &str) -> Error {
    Error::PositionIndex(format!(
        "damaged segment ({what}); run `keil reindex` to rebuild it"
    ))
}

/// The nonce, postings and blocks of a segment's header (either layout;
/// `head` holds at least [`HEADER`] bytes).
pub(super) fn read_header(head: &[u8]) -> Result<(u64, u32, u32)> {
    if head.len() < HEADER || (&head[..4] != MAGIC_V1 && &head[..4] != MAGIC_V2) {
        return Err(corrupt("bad magic"));
    }
    let nonce = u64::from_le_bytes(head[4..12].try_into().expect("8 bytes"));
    let postings = u32::from_le_bytes(head[12..16].try_into().expect("4 bytes"));
    let blocks = u32::from_le_bytes(head[16..20].try_into().expect("4 bytes"));
    Ok((nonce, postings, blocks))
}

/// The length of a segment's header and block directory (what
/// [`SegmentIndex::parse`] reads), from the blob's first [`HEADER_V2`]
/// bytes (all of it, when shorter).
pub(super) fn directory_len(head: &[u8]) -> Result<usize> {
    let (_, _, blocks) = read_header(head)?;
    let header = if &head[..4] == MAGIC_V2 {
        HEADER_V2
    } else {
        HEADER
    };
    Ok(header + blocks as usize * INDEX_ENTRY)
}

impl SegmentIndex {
    /// Reads the directory from the start of a segment (`head` must hold the
    /// header and the block index) and the blob's total length.
    pub(super) fn parse(head: &[u8], blob_len: usize) -> Result<SegmentIndex> {
        let (nonce, postings, blocks) = read_header(head)?;
        let (base, header) = if &head[..4] == MAGIC_V2 {
            let b = head
                .get(HEADER..HEADER_V2)
                .ok_or_else(|| corrupt("truncated header"))?;
            (
                Some(u32::from_le_bytes(b.try_into().expect("4 bytes"))),
                HEADER_V2,
            )
        } else {
            (None, HEADER)
        };
        let blocks = blocks as usize;
        let data_start = header + blocks * INDEX_ENTRY;
        if head.len() < data_start || blob_len < data_start {
            return Err(corrupt("truncated block index"));
        }
        let mut first_keys = Vec::with_capacity(blocks);
        let mut offsets = Vec::with_capacity(blocks + 1);
        for b in 0..blocks {
            let e = &head[header + b * INDEX_ENTRY..header + (b + 1) * INDEX_ENTRY];
            first_keys.push(u64::from_le_bytes(e[..8].try_into().expect("8 bytes")));
            offsets
                .push(data_start as u32 + u32::from_le_bytes(e[8..].try_into().expect("4 bytes")));
        }
        offsets.push(blob_len as u32);
        if offsets.windows(2).any(|w| w[0] > w[1]) {
            return Err(corrupt("block offsets out of order"));
        }
        if postings as usize > blocks * BLOCK {
            return Err(corrupt("more postings than its blocks hold"));
        }
        Ok(SegmentIndex {
            nonce,
            postings,
            base,
            first_keys,
            offsets,
        })
    }

    /// The blocks that may hold keys in `lo..=hi`: the last block starting
    /// below `lo` and every block starting within the range.
    pub(super) fn blocks_for(&self, lo: u64, hi: u64) -> std::ops::Range<usize> {
        let first = self.first_keys.partition_point(|&k| k < lo);
        let end = self.first_keys.partition_point(|&k| k <= hi);
        first.saturating_sub(1)..end.max(first)
    }

    /// Decodes block `b`, whose bytes are `buf`, calling `f` for each
    /// posting.
    pub(super) fn decode_block(&self, b: usize, buf: &[u8], f: impl FnMut(Posting)) -> Result<()> {
        let first = *self
            .first_keys
            .get(b)
            .ok_or_else(|| corrupt("block out of range"))?;
        match self.base {
            Some(base) => decode_block_v2(buf, first, base, f),
            None => decode_block_v1(buf, first, f),
        }
    }
}

/// Decodes one `KPX2` block (see [`encode_segment`]).
fn decode_block_v2(
    buf: &[u8],
    first_key: u64,
    base: u32,
    mut f: impl FnMut(Posting),
) -> Result<()> {
    let head = buf
        .get(..BLOCK_HEAD)
        .ok_or_else(|| corrupt("truncated block"))?;
    let n = usize::from(head[0]);
    let widths = [head[1], head[2], head[3], head[4]];
    if n == 0 || n > BLOCK || widths.iter().any(|&w| w > 64 || (57..64).contains(&w)) {
        return Err(corrupt("bad block head"));
    }
    let counts = [n - 1, n, n, n];
    let mut fields: [&[u8]; 4] = [&[]; 4];
    let mut at = BLOCK_HEAD;
    for i in 0..4 {
        let len = packed_len(counts[i], widths[i]);
        fields[i] = buf
            .get(at..at + len)
            .ok_or_else(|| corrupt("truncated block"))?;
        at += len;
    }
    if at != buf.len() {
        return Err(corrupt("block longer than its fields"));
    }
    let [deltas, games, plies, tails] = widths.map(BitUnpacker::new);
    let mut key = first_key;
    for i in 0..n {
        if i > 0 {
            key = key.wrapping_add(deltas.get(i as u32 - 1, fields[0]));
        }
        let game = u32::try_from(games.get(i as u32, fields[1]))
            .ok()
            .and_then(|g| g.checked_add(base))
            .ok_or_else(|| corrupt("game id out of range"))?;
        let ply = u16::try_from(plies.get(i as u32, fields[2]))
            .map_err(|_| corrupt("ply out of range"))?;
        f(with_tail(key, game, ply, tails.get(i as u32, fields[3])));
    }
    Ok(())
}

/// Decodes one `KPX1` block: per posting, the key delta, the game (a
/// delta from the previous posting when the key repeats), the ply and the
/// tail, each a LEB128 varint.
fn decode_block_v1(buf: &[u8], first_key: u64, mut f: impl FnMut(Posting)) -> Result<()> {
    let mut at = 0;
    let mut prev: Option<Posting> = None;
    while at < buf.len() {
        let bad = || corrupt("truncated block");
        let key = prev
            .map_or(first_key, |q| q.key)
            .wrapping_add(get_varint(buf, &mut at).ok_or_else(bad)?);
        let g = get_varint(buf, &mut at).ok_or_else(bad)? as u32;
        let game = match prev {
            Some(q) if q.key == key => q.game.wrapping_add(g),
            _ => g,
        };
        let ply = get_varint(buf, &mut at).ok_or_else(bad)? as u16;
        let p = with_tail(key, game, ply, get_varint(buf, &mut at).ok_or_else(bad)?);
        f(p);
        prev = Some(p);
    }
    Ok(())
}

/// Decodes a whole segment held in memory.
pub(crate) fn decode_segment(blob: &[u8]) -> Result<Vec<Posting>> {
    let index = SegmentIndex::parse(blob, blob.len())?;
    let mut out = Vec::with_capacity(index.postings as usize);
    for b in 0..index.first_keys.len() {
        let range = index.offsets[b] as usize..index.offsets[b + 1] as usize;
        let block = blob
            .get(range)
            .ok_or_else(|| corrupt("block out of range"))?;
        index.decode_block(b, block, |p| out.push(p))?;
    }
    if out.len() != index.postings as usize {
        return Err(corrupt("posting count disagrees with header"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::varint::put_varint;

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
                dir.decode_block(b, &blob[range], |p| {
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

    /// Postings as a 19×19 Go import batch has them: a few early keys
    /// shared by many games, most keys once, plies up to 300, games from
    /// 1,000,000 on.
    fn go_like(n: u32) -> Vec<Posting> {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut postings: Vec<Posting> = (0..n)
            .map(|i| {
                let ply = (i % 300) as u16;
                Posting {
                    key: if ply < 4 {
                        u64::from(ply) << 60
                    } else {
                        next()
                    },
                    game: 1_000_000 + i / 300,
                    ply,
                    next: (next() % 362) as u16,
                    sym: (next() % 8) as u8,
                    white_to_move: ply % 2 == 1,
                }
            })
            .collect();
        postings.sort_unstable();
        postings
    }

    /// The `KPX1` layout as archives before `KPX2` wrote it.
    fn encode_v1(postings: &[Posting], nonce: u64) -> Vec<u8> {
        let mut data = Vec::new();
        let mut index = Vec::new();
        for block in postings.chunks(BLOCK) {
            index.extend_from_slice(&block[0].key.to_le_bytes());
            index.extend_from_slice(&(data.len() as u32).to_le_bytes());
            let mut prev: Option<&Posting> = None;
            for p in block {
                put_varint(&mut data, p.key - prev.map_or(block[0].key, |q| q.key));
                match prev {
                    Some(q) if q.key == p.key => put_varint(&mut data, u64::from(p.game - q.game)),
                    _ => put_varint(&mut data, u64::from(p.game)),
                }
                put_varint(&mut data, u64::from(p.ply));
                put_varint(&mut data, tail_of(p));
                prev = Some(p);
            }
        }
        let mut out = MAGIC_V1.to_vec();
        out.extend_from_slice(&nonce.to_le_bytes());
        out.extend_from_slice(&(postings.len() as u32).to_le_bytes());
        out.extend_from_slice(&(postings.len().div_ceil(BLOCK) as u32).to_le_bytes());
        out.extend_from_slice(&index);
        out.extend_from_slice(&data);
        out
    }

    #[test]
    fn old_segments_still_decode_and_new_ones_are_smaller() {
        let postings = go_like(60_000);
        let (v1, v2) = (encode_v1(&postings, 9), encode_segment(&postings, 9));
        assert_eq!(decode_segment(&v1).unwrap(), postings);
        assert_eq!(decode_segment(&v2).unwrap(), postings);
        let (a, b) = (v1.len() as f64, v2.len() as f64);
        assert!(b < 0.85 * a, "KPX2 {b} bytes against KPX1 {a}");
        let mut head = [0u8; HEADER];
        head.copy_from_slice(&v1[..HEADER]);
        assert_eq!(read_header(&head).unwrap(), (9, 60_000, 1875));
        head.copy_from_slice(&v2[..HEADER]);
        assert_eq!(read_header(&head).unwrap(), (9, 60_000, 1875));
    }

    #[test]
    fn extreme_fields_round_trip() {
        let mut postings = vec![
            Posting {
                key: 0,
                game: 3,
                ply: 0,
                next: 0,
                sym: 0,
                white_to_move: false,
            },
            Posting {
                key: u64::MAX >> 1,
                game: u32::MAX,
                ply: u16::MAX,
                next: 2047,
                sym: 15,
                white_to_move: true,
            },
            Posting {
                key: u64::MAX,
                game: 3,
                ply: 1,
                next: 1,
                sym: 1,
                white_to_move: true,
            },
        ];
        postings.sort_unstable();
        let blob = encode_segment(&postings, 1);
        assert_eq!(decode_segment(&blob).unwrap(), postings);
        assert_eq!(decode_segment(&encode_segment(&[], 2)).unwrap(), []);
    }

    #[test]
    fn damaged_segments_are_errors_not_panics() {
        let postings = go_like(200);
        let blob = encode_segment(&postings, 5);
        for len in 0..blob.len() {
            assert!(decode_segment(&blob[..len]).is_err(), "cut at {len}");
        }
        for at in 0..blob.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = blob.clone();
                bad[at] ^= flip;
                // Decoded or refused, never a panic; a flipped payload
                // bit may decode to other postings.
                let _ = decode_segment(&bad);
            }
        }
    }
}
