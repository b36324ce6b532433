//! What the benches share.

/// A deterministic xorshift64 stream from `seed` (non-zero): the benches'
/// random games are fixed functions of their seed.
pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}
