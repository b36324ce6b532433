//! Property tests: no input makes the decoder or parser panic or give a
//! span outside the text, and writing then parsing any tree gives it back.

use keil_sgf::{
    Collection, GameTree, NodeId, ParseOptions, PropValue, PropertyBuf, decode, parse,
    write_collection, write_tree,
};
use proptest::prelude::*;

/// A small well-formed file that the mutation strategy starts from.
const SEED: &str = "(;FF[4]GM[1]CA[UTF-8]PB[Ann\\]]C[soft\\\nbreak: a\\\\b]\r\n;B[aa]AddBlack[bb][cc](;W[dd]LB[ee:x\\:y])(;W[ff]C[x]))\n(;GN[two];B[gg])";

/// Check every span of a parsed collection lies inside `text` and slices it
/// on character boundaries.
fn check_spans(c: &Collection<'_>, text: &str) {
    let inside = |s: keil_sgf::Span| {
        s.start <= s.end && s.end <= text.len() && text.get(s.range()).is_some()
    };
    for d in &c.diagnostics {
        assert!(inside(d.span), "diagnostic {d}");
        assert!(d.tree.is_none_or(|t| t < c.trees.len()));
    }
    for tree in &c.trees {
        assert!(inside(tree.span()));
        for node in tree.nodes() {
            assert!(inside(node.span()));
            for p in node.properties() {
                assert!(inside(p.ident_span()));
                assert!(p.values().len() > 0);
                for v in p.values() {
                    assert!(inside(v.span));
                    assert_eq!(&text[v.span.range()], v.raw);
                }
            }
        }
    }
}

fn mutate(seed: &[u8], edits: &[(usize, u8, u8)]) -> Vec<u8> {
    let mut bytes = seed.to_vec();
    for &(at, kind, byte) in edits {
        let at = at % (bytes.len() + 1);
        match kind % 3 {
            0 if at < bytes.len() => bytes[at] = byte,
            1 => bytes.insert(at, byte),
            _ if at < bytes.len() => {
                bytes.remove(at);
            }
            _ => {}
        }
    }
    bytes
}

/// Bytes biased towards SGF's special characters.
fn sgf_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        4 => prop::sample::select(b"();[]\\:ABCWabc \n\r\t".to_vec()),
        1 => any::<u8>(),
    ]
}

fn value() -> impl Strategy<Value = PropValue<'static>> {
    prop_oneof![
        "[a-s]{2}".prop_map(PropValue::from_raw),
        any::<String>().prop_map(|s| PropValue::from_text(&s).into_owned()),
        ("[ -~]{0,6}", "[ -~]{0,6}").prop_map(|(a, b)| PropValue::from_composed(&a, &b)),
    ]
}

fn property() -> impl Strategy<Value = PropertyBuf<'static>> {
    ("[A-Z]{1,3}", prop::collection::vec(value(), 1..4))
        .prop_map(|(ident, values)| PropertyBuf::new(ident, values))
}

/// A tree built from a list of (parent choice, properties): each node hangs
/// under one of the nodes made before it.
fn tree() -> impl Strategy<Value = GameTree<'static>> {
    prop::collection::vec(
        (
            any::<prop::sample::Index>(),
            prop::collection::vec(property(), 0..4),
        ),
        1..40,
    )
    .prop_map(|nodes| {
        let mut iter = nodes.into_iter();
        let (_, root) = iter.next().expect("at least one node");
        let mut tree = GameTree::new(root);
        let mut ids = vec![NodeId::ROOT];
        for (parent, props) in iter {
            let parent = ids[parent.index(ids.len())];
            ids.push(tree.add_child(parent, props));
        }
        tree
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(sgf_byte(), 0..400)) {
        let decoded = decode(&bytes);
        let c = decoded.parse(&ParseOptions::default());
        check_spans(&c, &decoded.text);
        let _ = write_collection(&c);
    }

    #[test]
    fn mutated_sgf_never_panics(edits in prop::collection::vec((any::<usize>(), any::<u8>(), sgf_byte()), 1..12)) {
        let bytes = mutate(SEED.as_bytes(), &edits);
        let decoded = decode(&bytes);
        let c = decoded.parse(&ParseOptions::default());
        check_spans(&c, &decoded.text);
        // Writing what was read is stable after one pass.
        let once = write_collection(&c);
        let again = parse(&once, &ParseOptions::default());
        prop_assert_eq!(&again.trees, &c.trees);
        prop_assert_eq!(write_collection(&again), once);
    }

    #[test]
    fn write_then_parse_gives_the_tree_back(t in tree()) {
        let text = write_tree(&t);
        let c = parse(&text, &ParseOptions::default());
        prop_assert_eq!(c.trees.len(), 1);
        prop_assert_eq!(&c.trees[0], &t);
        check_spans(&c, &text);
    }
}
