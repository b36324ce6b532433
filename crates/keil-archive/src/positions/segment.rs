//! The segment codec: sorted postings encoded as an immutable blob of
//! blocks (32 postings each, varint-delta encoded) behind a block
//! directory, and the decoding of a whole segment or of single blocks.
//!
//! Invariants: a segment's postings are sorted by (key, game, ply, ...);
//! each block starts from its first key (held in the directory), so any
//! block decodes on its own; the layout (`KPX1`) is stored on disk and a
//! damaged blob is an [`Error::PositionIndex`], never a panic. No SQL here:
//! storing segments is [`super::store`]'s.

use super::posting::Posting;
use crate::{Error, Result};

/// Postings per block: the unit of decoding.
const BLOCK: usize = 32;
const MAGIC: &[u8; 4] = b"KPX1";
/// magic, nonce u64, postings u32, blocks u32.
pub(super) const HEADER: usize = 4 + 8 + 4 + 4;
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
#[derive(Clone, Debug)]
pub(crate) struct SegmentIndex {
    pub(super) nonce: u64,
    postings: u32,
    pub(super) first_keys: Vec<u64>,
    /// Byte ranges of the blocks within the blob; one more than blocks.
    pub(super) offsets: Vec<u32>,
}

pub(super) fn corrupt(what: &str) -> Error {
    Error::PositionIndex(format!(
        "damaged segment ({what}); run `keil reindex` to rebuild it"
    ))
}

pub(super) fn read_header(head: &[u8]) -> Result<(u64, u32, u32)> {
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
    pub(super) fn parse(head: &[u8], blob_len: usize) -> Result<SegmentIndex> {
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
    pub(super) fn blocks_for(&self, lo: u64, hi: u64) -> std::ops::Range<usize> {
        let first = self.first_keys.partition_point(|&k| k < lo);
        let end = self.first_keys.partition_point(|&k| k <= hi);
        first.saturating_sub(1)..end.max(first)
    }
}

/// Decodes one block, calling `f` for each posting.
pub(super) fn decode_block(buf: &[u8], first_key: u64, mut f: impl FnMut(Posting)) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
