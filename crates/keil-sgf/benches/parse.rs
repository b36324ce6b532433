//! Parse throughput (written below).

fn main() {}
