//! The normalised export: a record written back as SGF text in canonical
//! property order, one node (so one move) per line, losing nothing.

use keil_sgf::{NodeId, PropValue, PropertyBuf, write_tree};

use crate::record::Record;

/// Root properties in the order the export writes them (record-format.md,
/// "Properties with Keil meaning"); any other property follows in its
/// original order.
const ROOT_ORDER: &[&str] = &[
    "GM", "FF", "CA", "SZ", "KM", "RU", "PB", "BR", "BT", "PW", "WR", "WT", "DT", "EV", "RO", "PC",
    "GN", "SO", "US", "AN", "CP", "ON", "TM", "OT", "RE", "GC", "PL", "AB", "AW", "AE",
];

/// Properties of any node, after the move, in this order.
const NODE_ORDER: &[&str] = &["B", "W", "C", "N"];

/// Whether a property has Keil meaning in a node (the root when `root`).
pub(crate) fn is_known(ident: &str, root: bool) -> bool {
    NODE_ORDER.contains(&ident) || (root && ROOT_ORDER.contains(&ident))
}

fn rank(ident: &str, root: bool) -> usize {
    if root && let Some(i) = ROOT_ORDER.iter().position(|&k| k == ident) {
        return i;
    }
    match NODE_ORDER.iter().position(|&k| k == ident) {
        Some(i) => ROOT_ORDER.len() + i,
        None => ROOT_ORDER.len() + NODE_ORDER.len(),
    }
}

impl Record {
    /// The record as normalised SGF text: `GM[Keil]`, `FF[4]` and `SZ` always
    /// written (filled in when the record left them implicit), `CA[UTF-8]`
    /// when the record named a charset (the text is UTF-8 now), properties
    /// in canonical order (game information as in record-format.md, then the
    /// move, comment and name of each node, then every other property in its
    /// original order), one node per line, variations in parentheses. Values
    /// are written as the record wrote them; reading the export gives the
    /// same game information, moves, variations and verdict.
    pub fn to_sgf(&self) -> String {
        let mut tree = self.tree.clone();
        let mut root: Vec<PropertyBuf<'_>> =
            self.tree.root().properties().map(|p| p.to_buf()).collect();
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
        set("GM", "Keil".into(), true);
        set("FF", "4".into(), false);
        set("SZ", self.board.side().to_string(), false);
        for p in &mut root {
            if p.ident == "CA" {
                *p = PropertyBuf::new("CA", [PropValue::from_raw("UTF-8")]);
            }
        }
        tree.set_properties(NodeId::ROOT, root);
        for id in self.node_ids() {
            let root = id == NodeId::ROOT;
            tree.sort_properties_by_key(id, |p| rank(p.ident(), root));
        }
        let mut out = write_tree(&tree);
        out.push('\n');
        out
    }
}
