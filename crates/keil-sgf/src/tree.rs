//! The tree: a collection of game trees, each stored flat (nodes,
//! properties and values in three vectors), read through borrowing views.

use std::borrow::Cow;
use std::fmt;
use std::iter::FusedIterator;

use crate::diag::{Diagnostic, Severity};
use crate::error::{Error, Result};
use crate::span::Span;
use crate::value::PropValue;

/// No node (a link that is absent).
pub(crate) const NONE: u32 = u32::MAX;

/// Set in [`TextRef::start`] when the text is in the tree's own buffer
/// rather than in the parsed text.
pub(crate) const OWN: u32 = 1 << 31;

/// Largest offset a tree can refer to, in either text, and most nodes,
/// properties or values: offsets and indices are `u32` with one bit kept
/// for [`OWN`] or [`INLINE`].
pub(crate) const MAX_OFFSET: usize = (OWN - 1) as usize;

/// In [`NodeData::props_end`]: the node holds one property with one value,
/// written `;ID[value]` from `start` to `end`, with its `[` at
/// `props_start`. The parser stores most move nodes so, without a
/// [`PropData`] nor a value record.
pub(crate) const INLINE_NODE: u32 = u32::MAX;

/// Set in a property or value index that stands for the inline property of
/// node `index & !INLINE` (or its value), rather than for an entry of
/// [`Arena::props`] or [`Arena::values`].
const INLINE: u32 = 1 << 31;

/// Where a piece of text is: bytes `start..end` of the parsed text (absolute
/// offsets, so also the span), or, when `start` has the [`OWN`] bit, of the
/// tree's own buffer (text that was built or normalised, without a span).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TextRef {
    pub(crate) start: u32,
    pub(crate) end: u32,
}

impl TextRef {
    /// Bytes `start..end` of the parsed text.
    #[inline]
    pub(crate) fn source(start: usize, end: usize) -> TextRef {
        TextRef {
            start: start as u32,
            end: end as u32,
        }
    }

    fn span(self) -> Span {
        if self.start & OWN != 0 {
            Span::default()
        } else {
            Span::new(self.start as usize, self.end as usize)
        }
    }
}

/// One node in the arena: links, span, and its properties
/// (`props_start..props_end` in [`Arena::props`], or one inline property,
/// see [`INLINE_NODE`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeData {
    pub(crate) parent: u32,
    pub(crate) first_child: u32,
    pub(crate) last_child: u32,
    pub(crate) next_sibling: u32,
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) props_start: u32,
    pub(crate) props_end: u32,
}

/// One property in the arena: identifier (text and span), and its values
/// (`values_start..values_end` in [`Arena::values`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PropData {
    pub(crate) ident: TextRef,
    pub(crate) ident_start: u32,
    pub(crate) ident_end: u32,
    pub(crate) values_start: u32,
    pub(crate) values_end: u32,
}

/// The three vectors of a game tree, plus its own text buffer.
#[derive(Clone, Debug, Default)]
pub(crate) struct Arena {
    pub(crate) nodes: Vec<NodeData>,
    pub(crate) props: Vec<PropData>,
    pub(crate) values: Vec<TextRef>,
    /// Text that is not in the parsed text: normalised identifiers, and the
    /// identifiers and values of properties built in code.
    pub(crate) own: String,
}

impl Arena {
    /// Append `text` to the own buffer and refer to it.
    ///
    /// # Panics
    /// When the buffer would pass [`MAX_OFFSET`] bytes.
    pub(crate) fn push_own(&mut self, text: &str) -> TextRef {
        let start = self.own.len();
        self.own.push_str(text);
        assert!(self.own.len() <= MAX_OFFSET, "too much text in one tree");
        TextRef {
            start: start as u32 | OWN,
            end: self.own.len() as u32,
        }
    }

    /// Append properties built in code; returns their range in `props`.
    fn push_properties<'p>(
        &mut self,
        properties: impl IntoIterator<Item = PropertyBuf<'p>>,
    ) -> (u32, u32) {
        let start = index(self.props.len());
        for p in properties {
            let ident = self.push_own(&p.ident);
            let values_start = index(self.values.len());
            for v in &p.values {
                let r = self.push_own(&v.raw);
                self.values.push(r);
            }
            self.props.push(PropData {
                ident,
                ident_start: 0,
                ident_end: 0,
                values_start,
                values_end: index(self.values.len()),
            });
        }
        (start, index(self.props.len()))
    }

    /// Make node `id` the last child of `parent` (nothing for NONE): set
    /// the parent's child links and the previous last child's sibling link.
    #[inline]
    pub(crate) fn attach(&mut self, parent: u32, id: u32) {
        if let Some(p) = self.nodes.get_mut(parent as usize) {
            let last = p.last_child;
            p.last_child = id;
            if last == NONE {
                p.first_child = id;
            } else {
                self.nodes[last as usize].next_sibling = id;
            }
        }
    }

    /// Append a node under `parent` (NONE for a root) and link it; its
    /// properties are `props` in `self.props`. Returns its id.
    #[inline]
    pub(crate) fn link(&mut self, parent: u32, span: Span, props: (u32, u32)) -> u32 {
        let id = index(self.nodes.len());
        self.attach(parent, id);
        self.nodes.push(NodeData {
            parent,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            start: span.start as u32,
            end: span.end as u32,
            props_start: props.0,
            props_end: props.1,
        });
        id
    }
}

/// A vector length as a `u32` index.
///
/// # Panics
/// When it does not fit (more than [`MAX_OFFSET`] items).
#[inline]
pub(crate) fn index(len: usize) -> u32 {
    assert!(len <= MAX_OFFSET, "too many items in one tree");
    len as u32
}

/// A property to add to a tree ([`GameTree::new`], [`GameTree::add_child`],
/// [`GameTree::set_properties`]): an identifier and its values (SGF
/// FF\[4\] `Property = PropIdent PropValue { PropValue }`).
///
/// The tree copies the text; values added this way have no span (`0..0`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyBuf<'a> {
    /// The identifier; should be upper-case ASCII letters, as the writer
    /// writes it as it is.
    pub ident: Cow<'a, str>,
    /// The values in order; SGF wants at least one.
    pub values: Vec<PropValue<'a>>,
}

impl<'a> PropertyBuf<'a> {
    /// A property from its identifier and values.
    pub fn new(
        ident: impl Into<Cow<'a, str>>,
        values: impl IntoIterator<Item = PropValue<'a>>,
    ) -> PropertyBuf<'a> {
        PropertyBuf {
            ident: ident.into(),
            values: values.into_iter().collect(),
        }
    }
}

/// Index of a node in its [`GameTree`]. The root is [`NodeId::ROOT`]; the
/// parser numbers nodes in the order they appear in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(u32);

impl NodeId {
    /// The root node of every game tree.
    pub const ROOT: NodeId = NodeId(0);

    /// The index of the node in [`GameTree::nodes`] order, from 0.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One game tree (SGF FF\[4\] `GameTree = "(" Sequence { GameTree } ")"`),
/// stored flat.
///
/// Sequences and variations are flattened into one tree of nodes: a node's
/// children are, in order, the next node of its sequence (if any) and the
/// first nodes of the variations that follow; the first child is the main
/// line. Nodes, properties and values live in three vectors of small
/// fixed-size records (a parsed move node `;B[aa]` costs 32 bytes, no allocation of
/// its own, nothing to drop); values refer to the parsed text by offset.
/// Read the tree through the views [`Node`] and [`Property`]. No recursion
/// anywhere: building, walking, writing and dropping a tree 100,000 nodes
/// deep uses no stack depth.
///
/// There is always at least a root node. Equality compares the shape and
/// the properties, not spans or node numbering.
#[derive(Clone)]
pub struct GameTree<'a> {
    /// The text values refer to: the parsed text, or (for an owned tree)
    /// the part of it the tree spans.
    source: Cow<'a, str>,
    /// Offset in the parsed text of `source`'s first byte.
    base: u32,
    arena: Arena,
    span: Span,
}

impl<'a> GameTree<'a> {
    /// A tree with just a root node holding these properties.
    ///
    /// # Panics
    /// When the properties hold more than 2 GiB of text.
    pub fn new<'p>(root: impl IntoIterator<Item = PropertyBuf<'p>>) -> GameTree<'a> {
        let mut arena = Arena::default();
        let props = arena.push_properties(root);
        arena.link(NONE, Span::default(), props);
        GameTree {
            source: Cow::Borrowed(""),
            base: 0,
            arena,
            span: Span::default(),
        }
    }

    /// Build from parsed parts: `arena` must hold at least one node with
    /// valid links, and every parsed-text reference lie inside `span`.
    pub(crate) fn from_parts(text: &'a str, arena: Arena, span: Span) -> GameTree<'a> {
        debug_assert!(!arena.nodes.is_empty());
        GameTree {
            source: Cow::Borrowed(text),
            base: 0,
            arena,
            span,
        }
    }

    /// Add a node with these properties as the last child of `parent` (a
    /// new variation if `parent` already has children) and return its id.
    /// The node has no span (`0..0`).
    ///
    /// # Panics
    /// When `parent` is not a node of this tree, or the tree would have 2³¹
    /// nodes, properties or values, or 2 GiB of text.
    pub fn add_child<'p>(
        &mut self,
        parent: NodeId,
        properties: impl IntoIterator<Item = PropertyBuf<'p>>,
    ) -> NodeId {
        assert!(
            parent.index() < self.arena.nodes.len(),
            "no such parent node"
        );
        let props = self.arena.push_properties(properties);
        NodeId(self.arena.link(parent.0, Span::default(), props))
    }

    /// Replace the properties of a node (its links and span stay). The new
    /// properties have no spans.
    ///
    /// # Panics
    /// When `id` is not a node of this tree, or the limits of
    /// [`add_child`](Self::add_child) are passed.
    pub fn set_properties<'p>(
        &mut self,
        id: NodeId,
        properties: impl IntoIterator<Item = PropertyBuf<'p>>,
    ) {
        assert!(id.index() < self.arena.nodes.len(), "no such node");
        let (start, end) = self.arena.push_properties(properties);
        let node = &mut self.arena.nodes[id.index()];
        node.props_start = start;
        node.props_end = end;
    }

    /// Reorder the properties of a node by a key computed once for each
    /// (a stable sort: equal keys keep their order). Spans stay.
    ///
    /// # Panics
    /// When `id` is not a node of this tree.
    pub fn sort_properties_by_key<K: Ord>(
        &mut self,
        id: NodeId,
        mut key: impl FnMut(Property<'_>) -> K,
    ) {
        let node = self.arena.nodes[id.index()];
        if node.props_end == INLINE_NODE {
            return; // one property
        }
        let (start, end) = (node.props_start as usize, node.props_end as usize);
        let mut keyed: Vec<(K, PropData)> = (start..end)
            .map(|k| {
                (
                    key(Property {
                        tree: self,
                        index: k as u32,
                    }),
                    self.arena.props[k],
                )
            })
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        for (slot, (_, data)) in self.arena.props[start..end].iter_mut().zip(keyed) {
            *slot = data;
        }
    }

    /// From the `(` to the matching `)` (or to where reading stopped), in
    /// bytes of the parsed text; `0..0` for a tree built in code.
    #[inline]
    pub fn span(&self) -> Span {
        self.span
    }

    /// The root node.
    #[inline]
    pub fn root(&self) -> Node<'_> {
        self.node(NodeId::ROOT)
    }

    /// The node with this id.
    ///
    /// # Panics
    /// When `id` is not from this tree.
    #[inline]
    pub fn node(&self, id: NodeId) -> Node<'_> {
        assert!(id.index() < self.arena.nodes.len(), "no such node");
        Node {
            tree: self,
            id: id.0,
        }
    }

    /// All nodes in storage order (the parser stores them in the order they
    /// appear in the file; parents always come before their children).
    #[inline]
    pub fn nodes(&self) -> Nodes<'_> {
        Nodes {
            tree: self,
            next: 0,
            end: self.arena.nodes.len() as u32,
        }
    }

    /// Number of nodes.
    #[inline]
    pub fn len(&self) -> usize {
        self.arena.nodes.len()
    }

    /// Always false: a tree has at least its root.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.arena.nodes.is_empty()
    }

    /// The children of a node in order; the first is the main line.
    ///
    /// # Panics
    /// When `id` is not from this tree.
    #[inline]
    pub fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            tree: self,
            next: self.arena.nodes[id.index()].first_child,
        }
    }

    /// The main line: the root, then the first child of each node in turn.
    #[inline]
    pub fn main_line(&self) -> MainLine<'_> {
        MainLine {
            tree: self,
            next: 0,
        }
    }

    /// Number of nested variations on the way from the root to the deepest
    /// node (0 for a tree without variations).
    pub fn variation_depth(&self) -> usize {
        // Nodes are stored parents-first by both the parser and add_child.
        let nodes = &self.arena.nodes;
        let mut depth = vec![0usize; nodes.len()];
        let mut max = 0;
        for (i, n) in nodes.iter().enumerate().skip(1) {
            let p = n.parent as usize;
            let branch = usize::from(nodes[p].first_child != nodes[p].last_child);
            depth[i] = depth[p] + branch;
            max = max.max(depth[i]);
        }
        max
    }

    /// A copy that owns its text, made from a reference: equal to
    /// `self.clone().into_owned()` (same nodes, links and spans). Costs one
    /// copy of the tree's part of the text and of its three vectors, with no
    /// allocation per node.
    pub fn to_owned_tree(&self) -> GameTree<'static> {
        GameTree {
            source: Cow::Owned(self.own_source().to_owned()),
            base: self.span.start as u32,
            arena: self.arena.clone(),
            span: self.span,
        }
    }

    /// A copy that owns its text (see [`to_owned_tree`](Self::to_owned_tree));
    /// the vectors are moved, not copied.
    pub fn into_owned(self) -> GameTree<'static> {
        let source =
            if matches!(self.source, Cow::Owned(_)) && self.base as usize == self.span.start {
                // Already the tree's own part of the text (see to_owned_tree).
                self.source.into_owned()
            } else {
                self.own_source().to_owned()
            };
        GameTree {
            source: Cow::Owned(source),
            base: self.span.start as u32,
            arena: self.arena,
            span: self.span,
        }
    }

    /// The part of the source the tree refers to: its span.
    fn own_source(&self) -> &str {
        let base = self.base as usize;
        &self.source[self.span.start - base..self.span.end - base]
    }

    /// The text a reference points to.
    #[inline]
    fn text(&self, r: TextRef) -> &str {
        if r.start & OWN != 0 {
            &self.arena.own[(r.start & !OWN) as usize..r.end as usize]
        } else {
            &self.source[(r.start - self.base) as usize..(r.end - self.base) as usize]
        }
    }

    /// Where value `k` is (an index into the values, or [`INLINE`] + node).
    #[inline]
    fn value_ref(&self, k: u32) -> TextRef {
        if k & INLINE != 0 {
            let n = &self.arena.nodes[(k & !INLINE) as usize];
            TextRef {
                start: n.props_start + 1,
                end: n.end - 1,
            }
        } else {
            self.arena.values[k as usize]
        }
    }

    #[inline]
    fn value_at(&self, k: u32) -> PropValue<'_> {
        let r = self.value_ref(k);
        PropValue {
            raw: Cow::Borrowed(self.text(r)),
            span: r.span(),
        }
    }

    /// Property `k` (an index into the properties, or [`INLINE`] + node).
    #[inline]
    fn prop_data(&self, k: u32) -> PropData {
        if k & INLINE != 0 {
            let n = &self.arena.nodes[(k & !INLINE) as usize];
            PropData {
                ident: TextRef {
                    start: n.start + 1,
                    end: n.props_start,
                },
                ident_start: n.start + 1,
                ident_end: n.props_start,
                values_start: k,
                values_end: k + 1,
            }
        } else {
            self.arena.props[k as usize]
        }
    }
}

impl PartialEq for GameTree<'_> {
    /// Same shape (children in the same order) and equal properties, node by
    /// node; spans and node numbering are ignored.
    fn eq(&self, other: &Self) -> bool {
        let (a_nodes, b_nodes) = (&self.arena.nodes, &other.arena.nodes);
        if a_nodes.len() != b_nodes.len() {
            return false;
        }
        let mut stack = vec![(0u32, 0u32)];
        while let Some((a, b)) = stack.pop() {
            if self.node(NodeId(a)) != other.node(NodeId(b)) {
                return false;
            }
            let (mut ca, mut cb) = (
                a_nodes[a as usize].first_child,
                b_nodes[b as usize].first_child,
            );
            while ca != NONE && cb != NONE {
                stack.push((ca, cb));
                ca = a_nodes[ca as usize].next_sibling;
                cb = b_nodes[cb as usize].next_sibling;
            }
            if ca != cb {
                return false; // one has more children than the other
            }
        }
        true
    }
}

/// A node of a [`GameTree`], borrowed: the properties written after one `;`
/// (SGF FF\[4\] `Node = ";" { Property }`) and the node's links.
///
/// Equality compares properties only (not spans, not links).
#[derive(Clone, Copy)]
pub struct Node<'t> {
    tree: &'t GameTree<'t>,
    id: u32,
}

impl<'t> Node<'t> {
    #[inline]
    fn data(&self) -> &'t NodeData {
        &self.tree.arena.nodes[self.id as usize]
    }

    /// This node's id.
    #[inline]
    pub fn id(&self) -> NodeId {
        NodeId(self.id)
    }

    /// From the `;` to the end of the last property, in bytes; `0..0` for a
    /// node built in code.
    #[inline]
    pub fn span(&self) -> Span {
        let d = self.data();
        Span::new(d.start as usize, d.end as usize)
    }

    /// The range of this node's properties (see [`INLINE`]).
    #[inline]
    fn props(&self) -> (u32, u32) {
        let d = self.data();
        if d.props_end == INLINE_NODE {
            (self.id | INLINE, (self.id | INLINE) + 1)
        } else {
            (d.props_start, d.props_end)
        }
    }

    /// The properties in the order written.
    #[inline]
    pub fn properties(&self) -> Properties<'t> {
        let (next, end) = self.props();
        Properties {
            tree: self.tree,
            next,
            end,
        }
    }

    /// Property `k` of [`properties`](Self::properties), from 0.
    ///
    /// # Panics
    /// When the node has no property `k`.
    #[inline]
    pub fn property(&self, k: usize) -> Property<'t> {
        let (start, end) = self.props();
        assert!(k < (end - start) as usize, "no property {k} in this node");
        Property {
            tree: self.tree,
            index: start + k as u32,
        }
    }

    /// The first property with this (upper-case) identifier.
    #[inline]
    pub fn get(&self, ident: &str) -> Option<Property<'t>> {
        self.properties().find(|p| p.ident() == ident)
    }

    /// The first value of the first property with this identifier.
    #[inline]
    pub fn value(&self, ident: &str) -> Option<PropValue<'t>> {
        self.get(ident).and_then(|p| p.value())
    }

    /// The parent node; `None` for the root.
    #[inline]
    pub fn parent(&self) -> Option<NodeId> {
        let p = self.data().parent;
        (p != NONE).then_some(NodeId(p))
    }

    /// The first child (the main line continues there); `None` for a leaf.
    #[inline]
    pub fn first_child(&self) -> Option<NodeId> {
        let c = self.data().first_child;
        (c != NONE).then_some(NodeId(c))
    }

    /// The next child of this node's parent.
    #[inline]
    pub fn next_sibling(&self) -> Option<NodeId> {
        let s = self.data().next_sibling;
        (s != NONE).then_some(NodeId(s))
    }

    /// The children of this node in order; the first is the main line.
    #[inline]
    pub fn children(&self) -> Children<'t> {
        self.tree.children(self.id())
    }
}

impl PartialEq for Node<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.properties().eq(other.properties())
    }
}

impl fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ";")?;
        for p in self.properties() {
            write!(f, "{p:?}")?;
        }
        Ok(())
    }
}

/// A property of a node, borrowed: an identifier and one or more values
/// (SGF FF\[4\] `Property = PropIdent PropValue { PropValue }`).
///
/// Equality compares identifier and values, not spans.
#[derive(Clone, Copy)]
pub struct Property<'t> {
    tree: &'t GameTree<'t>,
    index: u32,
}

impl<'t> Property<'t> {
    #[inline]
    fn data(&self) -> PropData {
        self.tree.prop_data(self.index)
    }

    /// The identifier, upper-case letters only (`AB`). FF\[3\]-style
    /// identifiers with lower-case letters are normalised by the parser
    /// (`AddBlack` → `AB`).
    #[inline]
    pub fn ident(&self) -> &'t str {
        self.tree.text(self.data().ident)
    }

    /// Where the identifier was written, in bytes (as written, before
    /// normalisation); `0..0` for a property built in code.
    #[inline]
    pub fn ident_span(&self) -> Span {
        let d = self.data();
        Span::new(d.ident_start as usize, d.ident_end as usize)
    }

    /// The values in order; the parser never yields an empty list.
    #[inline]
    pub fn values(&self) -> Values<'t> {
        let d = self.data();
        Values {
            tree: self.tree,
            next: d.values_start,
            end: d.values_end,
        }
    }

    /// The first value (SGF properties that are not lists have exactly one).
    #[inline]
    pub fn value(&self) -> Option<PropValue<'t>> {
        self.values().next()
    }

    /// The raw text (escapes not applied) of the first value, borrowed from
    /// the tree: `p.value().map(|v| v.raw)` without the `Cow`.
    #[inline]
    pub fn raw_value(&self) -> Option<&'t str> {
        let d = self.data();
        (d.values_start < d.values_end).then(|| self.tree.text(self.tree.value_ref(d.values_start)))
    }

    /// From the start of the identifier to the end of the last value's `]`,
    /// in bytes.
    #[inline]
    pub fn span(&self) -> Span {
        let d = self.data();
        let ident = self.ident_span();
        if d.values_start == d.values_end {
            return ident;
        }
        match self.tree.value_ref(d.values_end - 1).span() {
            v if v != Span::default() => Span::new(ident.start, v.end + 1),
            _ => ident,
        }
    }

    /// The property as a [`PropertyBuf`] borrowing this tree's text (to
    /// build another node from it).
    pub fn to_buf(&self) -> PropertyBuf<'t> {
        PropertyBuf {
            ident: Cow::Borrowed(self.ident()),
            values: self.values().collect(),
        }
    }
}

impl PartialEq for Property<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.ident() == other.ident() && self.values().eq(other.values())
    }
}

impl Eq for Property<'_> {}

impl fmt::Debug for Property<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.ident())?;
        for v in self.values() {
            write!(f, "{v:?}")?;
        }
        Ok(())
    }
}

/// Defines an iterator over `next..end` of one of the tree's vectors.
macro_rules! range_iter {
    ($(#[$doc:meta])* $name:ident => $item:ty, |$tree:ident, $k:ident| $make:expr) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name<'t> {
            tree: &'t GameTree<'t>,
            next: u32,
            end: u32,
        }

        impl<'t> Iterator for $name<'t> {
            type Item = $item;
            #[inline]
            fn next(&mut self) -> Option<$item> {
                if self.next >= self.end {
                    return None;
                }
                let ($tree, $k) = (self.tree, self.next);
                self.next += 1;
                Some($make)
            }
            fn size_hint(&self) -> (usize, Option<usize>) {
                let n = (self.end - self.next) as usize;
                (n, Some(n))
            }
        }

        impl<'t> DoubleEndedIterator for $name<'t> {
            fn next_back(&mut self) -> Option<$item> {
                if self.next >= self.end {
                    return None;
                }
                self.end -= 1;
                let ($tree, $k) = (self.tree, self.end);
                Some($make)
            }
        }

        impl ExactSizeIterator for $name<'_> {}
        impl FusedIterator for $name<'_> {}

        impl fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.clone()).finish()
            }
        }
    };
}

range_iter!(
    /// The nodes of a tree in storage order, see [`GameTree::nodes`].
    Nodes => Node<'t>, |tree, k| Node { tree, id: k }
);
range_iter!(
    /// The properties of a node, see [`Node::properties`].
    Properties => Property<'t>, |tree, k| Property { tree, index: k }
);
range_iter!(
    /// The values of a property, see [`Property::values`].
    Values => PropValue<'t>, |tree, k| tree.value_at(k)
);

/// Iterator over the children of a node, see [`GameTree::children`].
#[derive(Clone, Debug)]
pub struct Children<'t> {
    tree: &'t GameTree<'t>,
    next: u32,
}

impl<'t> Iterator for Children<'t> {
    type Item = (NodeId, Node<'t>);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.next == NONE {
            return None;
        }
        let id = self.next;
        self.next = self.tree.arena.nodes[id as usize].next_sibling;
        Some((
            NodeId(id),
            Node {
                tree: self.tree,
                id,
            },
        ))
    }
}

impl FusedIterator for Children<'_> {}

/// Iterator over the main line, see [`GameTree::main_line`].
#[derive(Clone, Debug)]
pub struct MainLine<'t> {
    tree: &'t GameTree<'t>,
    next: u32,
}

impl<'t> Iterator for MainLine<'t> {
    type Item = (NodeId, Node<'t>);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let id = self.next;
        let data = self.tree.arena.nodes.get(id as usize)?;
        self.next = data.first_child;
        Some((
            NodeId(id),
            Node {
                tree: self.tree,
                id,
            },
        ))
    }
}

impl FusedIterator for MainLine<'_> {}

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
