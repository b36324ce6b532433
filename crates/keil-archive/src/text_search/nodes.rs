//! Where a node of a record's game tree is, as the game viewer takes it:
//! its ply (the moves from the start through it) and its variation (the
//! validator's number, the viewer's `var`; none on the main line).

use keil_record::Record;
use keil_sgf::{GameTree, NodeId};

/// Where a node is: the viewer shows it at `ply` of `variation` (the main
/// line when `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct NodeAt {
    /// The moves played from the start of the game through this node,
    /// along its line (the root and the nodes before the first move: 0;
    /// a node without a move: the ply of the move before it).
    pub ply: u32,
    /// The variation the node is on: 1-based, in the validator's order
    /// (the game viewer's `var`); `None` on the main line.
    pub variation: Option<u32>,
}

/// Every node's place, by node index (the tree stores parents before
/// their children).
pub(crate) fn places(record: &Record) -> Vec<NodeAt> {
    let tree = &record.tree;
    let numbers = variation_numbers(tree);
    let mut out: Vec<NodeAt> = Vec::with_capacity(tree.len());
    for node in tree.nodes() {
        let id = node.id();
        let moved = u32::from(record.node_move(id).is_some());
        let at = match node.parent() {
            None => NodeAt {
                ply: moved,
                variation: None,
            },
            Some(p) => {
                let parent = out[p.index()];
                let first = tree.node(p).first_child() == Some(id);
                NodeAt {
                    ply: parent.ply + moved,
                    variation: if first {
                        parent.variation
                    } else {
                        numbers.get(&id).copied()
                    },
                }
            }
        };
        out.push(at);
    }
    out
}

/// The variations' numbers, by their first node, in the validator's
/// order (keil-record's `validate`, [`keil_record::VariationVerdict`]):
/// the main line's branches from the top down, each followed at once by
/// the variations that leave it, in the same order.
pub(crate) fn variation_numbers(tree: &GameTree<'_>) -> std::collections::HashMap<NodeId, u32> {
    let mut numbers = std::collections::HashMap::new();
    let mut pending = branches(tree, NodeId::ROOT);
    pending.reverse();
    while let Some(v) = pending.pop() {
        let n = numbers.len() as u32 + 1;
        numbers.insert(v, n);
        let mut more = branches(tree, v);
        more.reverse();
        pending.append(&mut more);
    }
    numbers
}

/// The first nodes of the variations that leave the line from `from`
/// (first children to its end), from the top down and in file order.
fn branches(tree: &GameTree<'_>, from: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut id = from;
    loop {
        let mut children = tree.children(id).map(|(c, _)| c);
        let Some(first) = children.next() else {
            return out;
        };
        out.extend(children);
        id = first;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(sgf: &str) -> Record {
        keil_record::read_records(sgf.as_bytes())
            .pop()
            .unwrap()
            .unwrap()
    }

    /// The numbers are the validator's: each variation's first node, in
    /// the order of its verdicts.
    #[test]
    fn variations_are_numbered_as_the_validator_numbers_them() {
        let r = record(
            "(;GM[1]SZ[9];B[aa](;W[bb];B[cc](;W[dd])(;W[ee]))(;W[ff](;B[gg])(;B[hh];W[ii](;B[jj])(;B[ab])))(;W[ac]))",
        );
        let verdict = keil_record::validate(&r).verdict;
        let numbers = variation_numbers(&r.tree);
        assert_eq!(numbers.len(), verdict.variations.len());
        for (k, v) in verdict.variations.iter().enumerate() {
            assert_eq!(numbers[&v.node], k as u32 + 1, "variation {k}");
        }
    }

    #[test]
    fn a_node_is_at_the_moves_through_it_on_its_line() {
        let r = record("(;GM[1]SZ[9]C[root];B[aa];C[none];W[bb](;B[cc])(;B[dd];W[ee]))");
        let at = places(&r);
        let ply: Vec<u32> = at.iter().map(|a| a.ply).collect();
        assert_eq!(ply, [0, 1, 1, 2, 3, 3, 4]);
        let var: Vec<Option<u32>> = at.iter().map(|a| a.variation).collect();
        assert_eq!(var, [None, None, None, None, None, Some(1), Some(1)]);
    }
}
