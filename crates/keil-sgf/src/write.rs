//! The writer: a tree back to SGF text.

use std::fmt;

use crate::tree::{Collection, GameTree, NodeId};
use crate::value::{PropValue, canonical};

/// A game tree shows itself as the SGF text that [`write_tree`] writes.
impl fmt::Debug for GameTree<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&write_tree(self))
    }
}

/// Write every game tree of a collection, one after the other, each ending
/// with a line break. See [`write_tree`].
pub fn write_collection(collection: &Collection<'_>) -> String {
    let mut out = String::new();
    for tree in &collection.trees {
        write_tree_to(tree, &mut out);
        out.push('\n');
    }
    out
}

/// Write one game tree as SGF FF\[4\] text.
///
/// Each node starts a line; a node with several children writes each as a
/// variation in parentheses, the first child first. Values are written
/// raw (escapes and soft line breaks as they were read), with a `]` that is
/// not escaped written as `\]` and a final lone `\` doubled, so that
/// `parse(&write_tree(t))` gives back a tree equal to `t`. Iterative: any
/// depth is fine.
pub fn write_tree(tree: &GameTree<'_>) -> String {
    let mut out = String::new();
    write_tree_to(tree, &mut out);
    out
}

enum Step {
    Node(NodeId),
    Open,
    Close,
}

/// Append one game tree to `out` (see [`write_tree`]).
pub fn write_tree_to(tree: &GameTree<'_>, out: &mut String) {
    out.push('(');
    let mut first = true;
    let mut steps = vec![Step::Close, Step::Node(NodeId::ROOT)];
    while let Some(step) = steps.pop() {
        match step {
            Step::Open => {
                out.push_str("\n(");
                first = true;
            }
            Step::Close => out.push(')'),
            Step::Node(id) => {
                if !first {
                    out.push('\n');
                }
                first = false;
                out.push(';');
                for prop in tree.node(id).properties() {
                    out.push_str(prop.ident());
                    for value in prop.values() {
                        write_value(&value, out);
                    }
                }
                let node = tree.node(id);
                match node.first_child() {
                    None => {}
                    Some(only) if tree.node(only).next_sibling().is_none() => {
                        steps.push(Step::Node(only));
                    }
                    Some(_) => {
                        let children: Vec<NodeId> = tree.children(id).map(|(c, _)| c).collect();
                        for &child in children.iter().rev() {
                            steps.push(Step::Close);
                            steps.push(Step::Node(child));
                            steps.push(Step::Open);
                        }
                    }
                }
            }
        }
    }
}

/// `[raw]`, escaping what must be escaped for the value to read back.
fn write_value(value: &PropValue<'_>, out: &mut String) {
    out.push('[');
    out.push_str(&canonical(&value.raw));
    out.push(']');
}
