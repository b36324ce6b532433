//! SGF (Smart Game Format, FF\[4\]) syntax: a parser that survives real
//! files, a tree with byte spans, a writer, and diagnostics.
//!
//! This crate knows SGF syntax only, not the meaning of any game's
//! properties.
//!
//! ```
//! use keil_sgf::{decode, write_tree, GameTree, LineIndex, NodeId, ParseOptions, PropValue, PropertyBuf};
//!
//! let bytes = b"(;GM[1]PB[Ann]C[a \\] bracket]\n;B[aa](;W[bb])(;W[cc]C[try\\\nthis]))";
//! let decoded = decode(bytes);                       // charset: CA, UTF-8 or guessed
//! let collection = decoded.parse(&ParseOptions::default());
//! assert!(collection.diagnostics.is_empty());
//!
//! let tree = &collection.trees[0];
//! let root = tree.root();
//! assert_eq!(root.value("PB").unwrap().simple_text(), "Ann");
//! assert_eq!(root.value("C").unwrap().text(), "a ] bracket");
//!
//! // The main line follows the first child of every node.
//! let moves: Vec<_> = tree.main_line().filter_map(|(_, n)| n.get("B").or(n.get("W"))).collect();
//! assert_eq!(moves.len(), 2);
//! // Soft line breaks vanish from Text.
//! let (last, _) = tree.children(tree.main_line().nth(1).unwrap().0).nth(1).unwrap();
//! assert_eq!(tree.node(last).value("C").unwrap().text(), "trythis");
//!
//! // Spans are byte offsets; a LineIndex gives line and column.
//! let span = root.get("PB").unwrap().value().unwrap().span;
//! assert_eq!(&decoded.text[span.range()], "Ann");
//! let at = LineIndex::new(&decoded.text).location(tree.node(last).span().start);
//! assert_eq!((at.line, at.column), (2, 16));
//!
//! // Writing and reading back gives the same tree.
//! let text = write_tree(tree);
//! let again = keil_sgf::parse(&text, &ParseOptions::default());
//! assert_eq!(&again.trees[0], tree);
//!
//! // Trees are built (and changed) with owned properties.
//! let mut built = GameTree::new([PropertyBuf::new("GM", [PropValue::from_raw("1")])]);
//! let child = built.add_child(NodeId::ROOT, [PropertyBuf::new("B", [PropValue::from_raw("aa")])]);
//! assert_eq!(built.node(child).get("B").unwrap().raw_value(), Some("aa"));
//! assert_eq!(write_tree(&built), "(;GM[1]\n;B[aa])");
//! ```
//!
//! # Overview
//!
//! - [`decode()`] turns bytes into text ([`Decoded`]), using a byte order mark,
//!   the root's `CA`, UTF-8, or a guessed charset.
//! - [`parse()`] turns text into a [`Collection`] of [`GameTree`]s plus
//!   [`Diagnostic`]s. It never fails: malformations that real files have are
//!   repaired with a warning (errors in [`ParseOptions::strict`] mode), and a
//!   broken game tree does not stop the next one from being read. Limits
//!   ([`ParseOptions`]) bound file size, value length, node count and
//!   nesting depth; [`Collection::into_result`] turns the first error into
//!   an [`Error`].
//! - A [`GameTree`] is stored flat: nodes, properties and values in three
//!   vectors of small records, values referring to the text by offset. It
//!   is read through borrowing views: [`Node`] (addressed by [`NodeId`]),
//!   [`Property`] and [`PropValue`], each with its [`Span`]. Trees are built
//!   and changed with [`PropertyBuf`]s ([`GameTree::new`],
//!   [`GameTree::add_child`], [`GameTree::set_properties`]).
//! - [`write_tree`] and [`write_collection`] write SGF text back.
//! - [`Diagnostic::render`] shows the source line with a marker.

mod decode;
mod diag;
mod error;
mod parse;
mod span;
mod tree;
mod value;
mod write;

pub use decode::{CharsetSource, Decoded, decode};
pub use diag::{Diagnostic, Severity, code, render_all};
pub use error::{Error, Limit, Result};
pub use parse::{ParseOptions, count_trees, parse, parse_range, split_collection};
pub use span::{LineIndex, Location, Span};
pub use tree::{
    Children, Collection, GameTree, MainLine, Node, NodeId, Nodes, Properties, Property,
    PropertyBuf, Values,
};
pub use value::{PropValue, canonical, escape, unescape};
pub use write::{write_collection, write_tree, write_tree_to};
