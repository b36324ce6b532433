//! The normalised export: a record written back as SGF text in canonical
//! property order, one node (so one move) per line, losing nothing.

use keil_rules::GameKind;
use keil_sgf::{GameTree, NodeId, PropValue, PropertyBuf, write_tree};

use crate::properties::orders;
use crate::record::{GameSpec, Record};

mod transform;

fn rank(kind: GameKind, ident: &str, root: bool) -> usize {
    let (root_order, node_order) = orders(kind);
    if root && let Some(i) = root_order.iter().position(|&k| k == ident) {
        return i;
    }
    match node_order.iter().position(|&k| k == ident) {
        Some(i) => root_order.len() + i,
        None => root_order.len() + node_order.len(),
    }
}

impl Record {
    /// The record as normalised SGF text: `GM` (`Keil`, `1` for Go,
    /// `Kaomi`),
    /// `FF[4]` and `SZ` always written (filled in when the record left them
    /// implicit, so the export needs no file-name hint), `CA[UTF-8]` when
    /// the record named a charset (the text is UTF-8 now), properties in
    /// canonical order (game information as in record-format.md, `HA` in
    /// Go, then each node's setup (Go), move, `PL` (Go), comment and name,
    /// then every other property in its original order), one node per line,
    /// variations in parentheses. Values are written as the record wrote
    /// them (a Go `SZ` that is not a size too); reading the export gives
    /// the same game information, moves, variations and verdict.
    pub fn to_sgf(&self) -> String {
        self.write_normalised(self.tree.clone())
    }

    /// [`to_sgf`](Self::to_sgf) of `tree`, this record's tree or a copy of
    /// it with other values (the same nodes).
    fn write_normalised(&self, mut tree: GameTree<'static>) -> String {
        let copy = tree.clone();
        let mut root: Vec<PropertyBuf<'_>> = copy.root().properties().map(|p| p.to_buf()).collect();
        let mut set = |ident: &'static str, value: String, replace: bool| match root
            .iter()
            .position(|p| p.ident == ident)
        {
            Some(i) if replace => {
                root[i] = PropertyBuf::new(ident, [PropValue::from_raw(value)]);
            }
            Some(_) => {}
            None => root.push(PropertyBuf::new(ident, [PropValue::from_raw(value)])),
        };
        let kind = self.kind();
        let size = match &self.spec {
            GameSpec::Keil(k) => Some(k.board.side()),
            GameSpec::Go(g) => g.board.as_ref().ok().map(|b| b.size()),
            GameSpec::Kaomi(k) => Some(k.board.size()),
        };
        let gm = match kind {
            GameKind::Go => "1",
            GameKind::Kaomi => "Kaomi",
            _ => "Keil",
        };
        set("GM", gm.into(), true);
        set("FF", "4".into(), false);
        if let Some(size) = size {
            set("SZ", size.to_string(), false);
        }
        for p in &mut root {
            if p.ident == "CA" {
                *p = PropertyBuf::new("CA", [PropValue::from_raw("UTF-8")]);
            }
        }
        tree.set_properties(NodeId::ROOT, root);
        for id in self.node_ids() {
            let root = id == NodeId::ROOT;
            tree.sort_properties_by_key(id, |p| rank(kind, p.ident(), root));
        }
        let mut out = write_tree(&tree);
        out.push('\n');
        out
    }
}
