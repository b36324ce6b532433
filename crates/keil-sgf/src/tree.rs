//! The tree: a collection of game trees, each an arena of nodes.

use std::borrow::Cow;
use std::fmt;

use crate::diag::{Diagnostic, Severity};
use crate::error::{Error, Result};
use crate::list::SmallList;
use crate::span::Span;
use crate::value::PropValue;

/// A property: an identifier and one or more values (SGF FF\[4\] `Property =
/// PropIdent PropValue { PropValue }`).
///
/// Equality compares identifier and values, not spans.
#[derive(Clone)]
pub struct Property<'a> {
    /// The identifier, upper-case letters only (`AB`). FF\[3\]-style
    /// identifiers with lower-case letters are normalised by the parser
    /// (`AddBlack` → `AB`); then this is owned rather than borrowed.
    pub ident: Cow<'a, str>,
    /// Where the identifier was written, in bytes (as written, before
    /// normalisation).
    pub ident_span: Span,
    /// The values in order; the parser never yields an empty list.
    pub values: SmallList<PropValue<'a>>,
}

impl<'a> Property<'a> {
    /// A property built in code (spans are `0..0`). `ident` should be
    /// upper-case ASCII letters: the writer writes it as it is.
    pub fn new(
        ident: impl Into<Cow<'a, str>>,
        values: impl IntoIterator<Item = PropValue<'a>>,
    ) -> Property<'a> {
        Property {
            ident: ident.into(),
            ident_span: Span::default(),
            values: values.into_iter().collect(),
        }
    }

    /// The first value (SGF properties that are not lists have exactly one).
    pub fn value(&self) -> Option<&PropValue<'a>> {
        self.values.first()
    }

    /// From the start of the identifier to the end of the last value's `]`,
    /// in bytes.
    pub fn span(&self) -> Span {
        match self.values.last() {
            Some(v) if v.span != Span::default() => {
                Span::new(self.ident_span.start, v.span.end + 1)
            }
            _ => self.ident_span,
        }
    }

    /// A copy that owns its text, made from a reference (no intermediate
    /// clone of the borrowed property). Common one- and two-letter move
    /// identifiers stay borrowed from static strings.
    pub fn to_owned_property(&self) -> Property<'static> {
        Property {
            ident: static_ident(&self.ident),
            ident_span: self.ident_span,
            values: self
                .values
                .iter()
                .map(|v| PropValue {
                    raw: Cow::Owned(String::from(v.raw.as_ref())),
                    span: v.span,
                })
                .collect(),
        }
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> Property<'static> {
        Property {
            ident: Cow::Owned(self.ident.into_owned()),
            ident_span: self.ident_span,
            values: self.values.into_iter().map(PropValue::into_owned).collect(),
        }
    }
}

impl PartialEq for Property<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.ident == other.ident && self.values == other.values
    }
}

impl Eq for Property<'_> {}

impl fmt::Debug for Property<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.ident)?;
        for v in &self.values {
            write!(f, "{v:?}")?;
        }
        Ok(())
    }
}

/// Index of a node in its [`GameTree`]. The root is [`NodeId::ROOT`]; the
/// parser numbers nodes in the order they appear in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(u32);

impl NodeId {
    /// The root node of every game tree.
    pub const ROOT: NodeId = NodeId(0);

    /// The index into [`GameTree::nodes`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// No node (a link that is absent).
pub(crate) const NONE: u32 = u32::MAX;

/// A node: the properties written after one `;` (SGF FF\[4\] `Node = ";" {
/// Property }`), with links to its parent and children inside its
/// [`GameTree`].
///
/// Equality compares properties only (not spans, not links).
#[derive(Clone)]
pub struct Node<'a> {
    /// The properties in the order written.
    pub properties: SmallList<Property<'a>>,
    /// From the `;` to the end of the last property, in bytes.
    pub span: Span,
    pub(crate) parent: u32,
    pub(crate) first_child: u32,
    pub(crate) last_child: u32,
    pub(crate) next_sibling: u32,
}

impl<'a> Node<'a> {
    /// A node with these properties and no links yet (add it to a tree with
    /// [`GameTree::new`] or [`GameTree::add_child`]).
    pub fn new(properties: impl IntoIterator<Item = Property<'a>>) -> Node<'a> {
        Node {
            properties: properties.into_iter().collect(),
            span: Span::default(),
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
        }
    }

    /// A node read by the parser, not linked yet.
    pub(crate) fn parsed(properties: SmallList<Property<'a>>, span: Span) -> Node<'a> {
        Node {
            properties,
            span,
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
        }
    }

    /// The first property with this (upper-case) identifier.
    pub fn get(&self, ident: &str) -> Option<&Property<'a>> {
        self.properties.iter().find(|p| p.ident == ident)
    }

    /// The first value of the first property with this identifier.
    pub fn value(&self, ident: &str) -> Option<&PropValue<'a>> {
        self.get(ident).and_then(Property::value)
    }

    /// The parent node; `None` for the root.
    pub fn parent(&self) -> Option<NodeId> {
        (self.parent != NONE).then_some(NodeId(self.parent))
    }

    /// The first child (the main line continues there); `None` for a leaf.
    pub fn first_child(&self) -> Option<NodeId> {
        (self.first_child != NONE).then_some(NodeId(self.first_child))
    }

    /// The next child of this node's parent.
    pub fn next_sibling(&self) -> Option<NodeId> {
        (self.next_sibling != NONE).then_some(NodeId(self.next_sibling))
    }
}

impl PartialEq for Node<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.properties == other.properties
    }
}

impl fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ";")?;
        for p in &self.properties {
            write!(f, "{p:?}")?;
        }
        Ok(())
    }
}

/// One game tree (SGF FF\[4\] `GameTree = "(" Sequence { GameTree } ")"`),
/// stored as an arena of nodes.
///
/// Sequences and variations are flattened into one tree of nodes: a node's
/// children are, in order, the next node of its sequence (if any) and the
/// first nodes of the variations that follow; the first child is the main
/// line. The arena means no recursion anywhere: building, walking,
/// writing and dropping a tree 100,000 nodes deep uses no stack depth.
///
/// There is always at least a root node. Equality compares the shape and
/// the properties, not spans or node numbering.
#[derive(Clone)]
pub struct GameTree<'a> {
    nodes: Vec<Node<'a>>,
    /// From the `(` to the matching `)` (or to where reading stopped), in bytes.
    pub span: Span,
}

impl<'a> GameTree<'a> {
    /// A tree with just this root node.
    pub fn new(root: Node<'a>) -> GameTree<'a> {
        let mut tree = GameTree {
            nodes: Vec::new(),
            span: Span::default(),
        };
        tree.push_node(None, root);
        tree
    }

    /// Build from parsed parts: `nodes` must be non-empty with valid links.
    pub(crate) fn from_parts(nodes: Vec<Node<'a>>, span: Span) -> GameTree<'a> {
        debug_assert!(!nodes.is_empty());
        GameTree { nodes, span }
    }

    /// Add `node` as the last child of `parent` (a new variation if `parent`
    /// already has children) and return its id.
    ///
    /// # Panics
    /// When `parent` is not a node of this tree, or the tree would have more
    /// than `u32::MAX - 1` nodes.
    pub fn add_child(&mut self, parent: NodeId, node: Node<'a>) -> NodeId {
        assert!(parent.index() < self.nodes.len(), "no such parent node");
        self.push_node(Some(parent), node)
    }

    pub(crate) fn push_node(&mut self, parent: Option<NodeId>, node: Node<'a>) -> NodeId {
        link(&mut self.nodes, parent.map_or(NONE, |p| p.0), node)
    }

    /// The root node.
    pub fn root(&self) -> &Node<'a> {
        &self.nodes[0]
    }

    /// All nodes; index with [`NodeId::index`]. The parser stores them in the
    /// order they appear in the file.
    pub fn nodes(&self) -> &[Node<'a>] {
        &self.nodes
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always false: a tree has at least its root.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node with this id.
    ///
    /// # Panics
    /// When `id` is not from this tree.
    pub fn node(&self, id: NodeId) -> &Node<'a> {
        &self.nodes[id.index()]
    }

    /// The node with this id, to change its properties (links cannot be
    /// changed this way).
    ///
    /// # Panics
    /// When `id` is not from this tree.
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node<'a> {
        &mut self.nodes[id.index()]
    }

    /// The children of a node in order; the first is the main line.
    pub fn children(&self, id: NodeId) -> Children<'_, 'a> {
        Children {
            tree: self,
            next: self.nodes[id.index()].first_child,
        }
    }

    /// The main line: the root, then the first child of each node in turn.
    pub fn main_line(&self) -> MainLine<'_, 'a> {
        MainLine {
            tree: self,
            next: 0,
        }
    }

    /// Number of nested variations on the way from the root to the deepest
    /// node (0 for a tree without variations).
    pub fn variation_depth(&self) -> usize {
        // Nodes are stored parents-first by both the parser and add_child.
        let mut depth = vec![0usize; self.nodes.len()];
        let mut max = 0;
        for (i, n) in self.nodes.iter().enumerate().skip(1) {
            let p = n.parent as usize;
            let branch = usize::from(self.nodes[p].first_child != self.nodes[p].last_child);
            depth[i] = depth[p] + branch;
            max = max.max(depth[i]);
        }
        max
    }

    /// A copy that owns its text, made from a reference: equal to
    /// `self.clone().into_owned()` (same nodes, links and spans) without
    /// the intermediate clone.
    pub fn to_owned_tree(&self) -> GameTree<'static> {
        GameTree {
            nodes: self
                .nodes
                .iter()
                .map(|n| Node {
                    properties: n
                        .properties
                        .iter()
                        .map(Property::to_owned_property)
                        .collect(),
                    span: n.span,
                    parent: n.parent,
                    first_child: n.first_child,
                    last_child: n.last_child,
                    next_sibling: n.next_sibling,
                })
                .collect(),
            span: self.span,
        }
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> GameTree<'static> {
        GameTree {
            nodes: self
                .nodes
                .into_iter()
                .map(|n| Node {
                    properties: n.properties.into_iter().map(Property::into_owned).collect(),
                    span: n.span,
                    parent: n.parent,
                    first_child: n.first_child,
                    last_child: n.last_child,
                    next_sibling: n.next_sibling,
                })
                .collect(),
            span: self.span,
        }
    }
}

/// The identifier as a `'static` borrow when it is a common one (no
/// allocation), else an owned copy.
fn static_ident(ident: &str) -> Cow<'static, str> {
    const COMMON: [&str; 12] = [
        "B", "W", "C", "AB", "AW", "AE", "PL", "BL", "WL", "OB", "OW", "N",
    ];
    match COMMON.iter().find(|c| **c == ident) {
        Some(c) => Cow::Borrowed(c),
        None => Cow::Owned(ident.to_owned()),
    }
}

/// Append `node` to the arena under `parent` (NONE for a root) and return its id.
pub(crate) fn link<'a>(nodes: &mut Vec<Node<'a>>, parent: u32, mut node: Node<'a>) -> NodeId {
    let id = u32::try_from(nodes.len())
        .ok()
        .filter(|&i| i != NONE)
        .expect("too many nodes");
    node.parent = parent;
    node.first_child = NONE;
    node.last_child = NONE;
    node.next_sibling = NONE;
    if parent != NONE {
        let p = &mut nodes[parent as usize];
        if p.last_child == NONE {
            p.first_child = id;
        } else {
            let last = p.last_child as usize;
            p.last_child = id;
            nodes[last].next_sibling = id;
        }
        nodes[parent as usize].last_child = id;
    }
    nodes.push(node);
    NodeId(id)
}

impl PartialEq for GameTree<'_> {
    /// Same shape (children in the same order) and equal properties, node by
    /// node; spans and node numbering are ignored.
    fn eq(&self, other: &Self) -> bool {
        if self.nodes.len() != other.nodes.len() {
            return false;
        }
        let mut stack = vec![(0u32, 0u32)];
        while let Some((a, b)) = stack.pop() {
            let (na, nb) = (&self.nodes[a as usize], &other.nodes[b as usize]);
            if na != nb {
                return false;
            }
            let (mut ca, mut cb) = (na.first_child, nb.first_child);
            while ca != NONE && cb != NONE {
                stack.push((ca, cb));
                ca = self.nodes[ca as usize].next_sibling;
                cb = other.nodes[cb as usize].next_sibling;
            }
            if ca != cb {
                return false; // one has more children than the other
            }
        }
        true
    }
}

impl fmt::Debug for GameTree<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::write::write_tree(self))
    }
}

/// Iterator over the children of a node, see [`GameTree::children`].
#[derive(Clone, Debug)]
pub struct Children<'t, 'a> {
    tree: &'t GameTree<'a>,
    next: u32,
}

impl<'t, 'a> Iterator for Children<'t, 'a> {
    type Item = (NodeId, &'t Node<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        if self.next == NONE {
            return None;
        }
        let id = self.next;
        let node = &self.tree.nodes[id as usize];
        self.next = node.next_sibling;
        Some((NodeId(id), node))
    }
}

/// Iterator over the main line, see [`GameTree::main_line`].
#[derive(Clone, Debug)]
pub struct MainLine<'t, 'a> {
    tree: &'t GameTree<'a>,
    next: u32,
}

impl<'t, 'a> Iterator for MainLine<'t, 'a> {
    type Item = (NodeId, &'t Node<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        if self.next == NONE {
            return None;
        }
        let id = self.next;
        let node = self.tree.nodes.get(id as usize)?;
        self.next = node.first_child;
        Some((NodeId(id), node))
    }
}

/// What one file holds (SGF FF\[4\] `Collection = GameTree { GameTree }`):
/// its game trees and everything found wrong while reading it.
#[derive(Clone, Debug, Default)]
pub struct Collection<'a> {
    /// The game trees in file order. A tree with an error diagnostic is kept
    /// with what could be read of it.
    pub trees: Vec<GameTree<'a>>,
    /// All diagnostics in the order found; those about one tree carry its
    /// index in [`Diagnostic::tree`].
    pub diagnostics: Vec<Diagnostic>,
}

impl<'a> Collection<'a> {
    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The diagnostics about game tree `index` (see [`Diagnostic::tree`]).
    pub fn diagnostics_for(&self, index: usize) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(move |d| d.tree == Some(index))
    }

    /// True when game tree `index` has an error diagnostic, so it may be
    /// incomplete. Other trees are unaffected.
    pub fn tree_has_errors(&self, index: usize) -> bool {
        self.diagnostics_for(index)
            .any(|d| d.severity == Severity::Error)
    }

    /// The collection, or the first error-severity diagnostic as an [`Error`].
    ///
    /// # Errors
    /// [`Error::LimitExceeded`] for a limit, [`Error::Syntax`] otherwise.
    pub fn into_result(self) -> Result<Collection<'a>> {
        match self.diagnostics.iter().find(|d| d.is_error()) {
            Some(d) => Err(Error::from(d)),
            None => Ok(self),
        }
    }
}
