//! The LEB128 varint codec the position segments and the pattern blocks
//! and region runs share.

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
