//! One move per node, in every game: a move property with two values
//! (`W[ce][cf]`) is two moves in one node, like two move properties. Go
//! judges the line `malformed`, `two_moves_in_node` (go-rules.md, "Moves";
//! tests/go.rs); Keil and Kaomi refuse the record, `two_moves`
//! (record-format.md, "Moves and variations": "One move per node";
//! kaomi-rules.md, "Records": its node rules are record-format.md's).

use keil_record::{Status, read_records, validate};

/// The error code and `line:column` of the only game of `sgf`, or its
/// status when it reads.
fn outcome(sgf: &str) -> Result<Status, String> {
    let records = read_records(sgf.as_bytes());
    let [r] = records.as_slice() else {
        panic!("{sgf}: {records:?}");
    };
    match r {
        Ok(record) => Ok(validate(record).verdict.status),
        Err(e) => Err(format!("{} {}:{} {}", e.code(), e.line, e.column, e.kind)),
    }
}

#[test]
fn keil_a_move_with_two_values_is_two_moves() {
    assert_eq!(
        outcome("(;GM[Keil]SZ[2];B[b2][a1])"),
        Err("two_moves 1:23 a node with two moves: B[b2] and B[a1]".to_string())
    );
    // The second value is reported before a malformed one is read (the
    // column is the second value's, after its `[`).
    assert_eq!(
        outcome("(;GM[Keil]SZ[2];B[b2];W[pass][zz])").map_err(|e| e[..9].to_string()),
        Err("two_moves".to_string())
    );
    // Unchanged: one value, and two move properties.
    assert_eq!(
        outcome("(;GM[Keil]SZ[2];B[button];W[c2])"),
        Ok(Status::Unfinished)
    );
    assert_eq!(
        outcome("(;GM[Keil]SZ[2];B[b2]W[a1])").map_err(|e| e[..9].to_string()),
        Err("two_moves".to_string())
    );
}

#[test]
fn kaomi_a_move_with_two_values_is_two_moves() {
    assert_eq!(
        outcome("(;GM[Kaomi]SZ[3];B[aa];W[bb][cc])"),
        Err("two_moves 1:30 a node with two moves: W[bb] and W[cc]".to_string())
    );
    assert_eq!(
        outcome("(;GM[Kaomi]SZ[3];B[aa];W[bb];B[swap][swap])").map_err(|e| e[..9].to_string()),
        Err("two_moves".to_string())
    );
    assert_eq!(
        outcome("(;GM[Kaomi]SZ[3];B[aa];W[bb])"),
        Ok(Status::Unfinished)
    );
}
