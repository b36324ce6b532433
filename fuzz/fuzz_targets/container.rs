//! Fuzz keil-container's expansion of bytes (an upload body, standard
//! input) with any data, under small limits: zip, tar, 7z, gzip, bzip2,
//! xz and zstd readers behind the format sniffer.
//!
//! Checks: no panic; the limits hold (no member handed on is larger than
//! the member limit, the bytes read stay within the total plus one member's
//! overshoot of one byte); the expansion always ends.

#![no_main]

use keil_container::{Expander, Limits, Member};
use libfuzzer_sys::fuzz_target;

const MEMBER: u64 = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_total_bytes: 4 << 20,
        max_member_bytes: MEMBER,
        max_members: 1_000,
        max_depth: 4,
    };
    let expander = Expander::new(limits, |_| false);
    let mut members = 0u64;
    expander.expand_bytes("fuzz", data.to_vec(), &mut |m| {
        if let Member::Bytes { name, bytes } = m {
            if name != "fuzz" {
                assert!(bytes.len() as u64 <= MEMBER, "{name}: {} bytes", bytes.len());
            }
            members += 1;
        }
        true
    });
    assert!(expander.members() <= 1_001);
    assert!(expander.bytes() <= (4 << 20) + 1 + MEMBER);
    assert!(members <= 1_001);
});
