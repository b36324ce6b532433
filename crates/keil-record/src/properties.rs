//! The properties with a meaning in each game, in the order the normalised
//! export writes them (record-format.md, "Properties with Keil meaning";
//! go-rules.md, "Metadata"); every other property is kept as it was read.

use keil_rules::GameKind;

/// Root properties of a Keil record in the order the export writes them
/// (record-format.md, "Properties with Keil meaning"); any other property
/// follows in its original order.
const ROOT_ORDER: &[&str] = &[
    "GM", "FF", "CA", "SZ", "KM", "RU", "PB", "BR", "BT", "PW", "WR", "WT", "DT", "EV", "RO", "PC",
    "GN", "SO", "US", "AN", "CP", "ON", "TM", "OT", "RE", "GC", "PL", "AB", "AW", "AE",
];

/// Properties of any Keil node, after the move, in this order.
const NODE_ORDER: &[&str] = &["B", "W", "C", "N"];

/// Root properties of a Go record (go-rules.md: the same game information,
/// and `HA`).
const GO_ROOT_ORDER: &[&str] = &[
    "GM", "FF", "CA", "SZ", "KM", "RU", "HA", "PB", "BR", "BT", "PW", "WR", "WT", "DT", "EV", "RO",
    "PC", "GN", "SO", "US", "AN", "CP", "ON", "TM", "OT", "RE", "GC",
];

/// Properties of any Go node (the root's after its game information):
/// setup, applied before the move; the move; `PL`; comment and name.
const GO_NODE_ORDER: &[&str] = &["AB", "AW", "AE", "B", "W", "PL", "C", "N"];

/// The root and node orders of a record of `kind`.
pub(crate) fn orders(kind: GameKind) -> (&'static [&'static str], &'static [&'static str]) {
    match kind {
        GameKind::Go => (GO_ROOT_ORDER, GO_NODE_ORDER),
        _ => (ROOT_ORDER, NODE_ORDER),
    }
}

/// Whether a property has a meaning in a node of a record of `kind` (the
/// root when `root`).
pub(crate) fn is_known(kind: GameKind, ident: &str, root: bool) -> bool {
    let (root_order, node_order) = orders(kind);
    node_order.contains(&ident) || (root && root_order.contains(&ident))
}
