//! One test per syntax rule and per repaired quirk.

use keil_sgf::{
    CharsetSource, Collection, Error, Limit, LineIndex, NodeId, ParseOptions, Severity, code,
    decode, parse, write_collection,
};

fn lenient(text: &str) -> Collection<'_> {
    parse(text, &ParseOptions::default())
}

fn codes(c: &Collection<'_>) -> Vec<&'static str> {
    c.diagnostics.iter().map(|d| d.code).collect()
}

/// Values of the main line, as `IDENT=text` strings.
fn main_line(c: &Collection<'_>, tree: usize) -> Vec<String> {
    c.trees[tree]
        .main_line()
        .flat_map(|(_, n)| n.properties())
        .map(|p| {
            let values: Vec<String> = p.values().map(|v| v.text().into_owned()).collect();
            format!("{}={}", p.ident(), values.join("|"))
        })
        .collect()
}

#[test]
fn well_formed_file_has_no_diagnostics() {
    let c = lenient("(;FF[4]GM[1];B[aa];W[bb])");
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    assert_eq!(main_line(&c, 0), ["FF=4", "GM=1", "B=aa", "W=bb"]);
}

#[test]
fn escaped_bracket_and_backslash() {
    let c = lenient(r"(;C[a\]b\\c]N[x\y])");
    assert!(c.diagnostics.is_empty());
    let root = c.trees[0].root();
    let v = root.value("C").unwrap();
    assert_eq!(v.raw, r"a\]b\\c");
    assert_eq!(v.text(), r"a]b\c");
    assert_eq!(root.value("N").unwrap().text(), "xy");
}

#[test]
fn soft_line_break_is_removed_from_text() {
    for text in ["(;C[one\\\ntwo\nthree])", "(;C[one\\\r\ntwo\r\nthree])"] {
        let c = lenient(text);
        let v = c.trees[0].root().value("C").unwrap();
        assert_eq!(v.text(), "onetwo\nthree");
        assert_eq!(v.simple_text(), "onetwo three");
    }
}

#[test]
fn text_turns_other_white_space_into_spaces() {
    let c = lenient("(;C[a\tb\x0bc])");
    assert_eq!(c.trees[0].root().value("C").unwrap().text(), "a b c");
}

#[test]
fn white_space_anywhere_between_tokens() {
    let c = lenient(" \n( \t;\r\n B \n [aa] \n [bb]\x0c;W  [cc]\n(\n;B[dd]\n)\n(;B[ee])\n)\n");
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    let tree = &c.trees[0];
    assert_eq!(tree.root().get("B").unwrap().values().len(), 2);
    assert_eq!(tree.len(), 4);
}

#[test]
fn crlf_line_endings_give_lines_and_columns() {
    let text = "(;GM[1]\r\n;B[aa]\r\n;W[bb])\r\n";
    let c = lenient(text);
    assert!(c.diagnostics.is_empty());
    let index = LineIndex::new(text);
    let (w, _) = c.trees[0].main_line().nth(2).unwrap();
    let at = index.location(c.trees[0].node(w).span().start);
    assert_eq!((at.line, at.column), (3, 1));
    assert_eq!(index.line_text(2), ";B[aa]");
}

#[test]
fn utf8_bom_is_stripped() {
    let bytes = b"\xef\xbb\xbf(;PB[Ann])";
    let d = decode(bytes);
    assert_eq!(d.source, CharsetSource::Bom);
    assert_eq!(d.text, "(;PB[Ann])");
    assert!(matches!(d.text, std::borrow::Cow::Borrowed(_)));
    // parse() itself also skips a BOM left in the text.
    let c = lenient("\u{feff}(;PB[Ann])");
    assert!(c.diagnostics.is_empty());
    assert_eq!(c.trees[0].root().value("PB").unwrap().span.start, 8);
}

#[test]
fn lowercase_identifier_is_normalised_with_warning() {
    let c = lenient("(;AddBlack[aa][bb]GaMe[1])");
    assert_eq!(codes(&c), [code::LOWERCASE_IDENTIFIER; 2]);
    assert_eq!(c.diagnostics[0].severity, Severity::Warning);
    let root = c.trees[0].root();
    assert_eq!(root.get("AB").unwrap().values().len(), 2);
    assert_eq!(root.get("AB").unwrap().ident_span(), (2..10).into());
    assert!(root.get("GM").is_some());
    let strict = parse("(;AddBlack[aa])", &ParseOptions::strict());
    assert_eq!(strict.diagnostics[0].severity, Severity::Error);
}

#[test]
fn identifier_without_capitals_is_dropped() {
    let c = lenient("(;foo[1]B[aa])");
    assert_eq!(codes(&c), [code::INVALID_IDENTIFIER]);
    assert_eq!(main_line(&c, 0), ["B=aa"]);
}

#[test]
fn declared_charsets_are_decoded() {
    for (label, text) in [
        ("GB2312", "黑棋"),
        ("Shift_JIS", "本因坊"),
        ("ISO-8859-1", "Müller"),
        ("EUC-KR", "이세돌"),
    ] {
        let enc = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
        let mut bytes = format!("(;CA[{label}]PB[").into_bytes();
        let (encoded, _, bad) = enc.encode(text);
        assert!(!bad);
        assert!(std::str::from_utf8(&encoded).is_err() || encoded.is_ascii());
        bytes.extend_from_slice(&encoded);
        bytes.extend_from_slice(b"])");
        let d = decode(&bytes);
        assert_eq!(d.source, CharsetSource::Declared, "{label}");
        assert!(d.diagnostics.is_empty(), "{label}: {:?}", d.diagnostics);
        let c = d.parse(&ParseOptions::default());
        assert_eq!(
            c.trees[0].root().value("PB").unwrap().text(),
            text,
            "{label}"
        );
    }
}

#[test]
fn common_non_whatwg_charset_names_are_known() {
    let (encoded, _, _) = encoding_rs::GBK.encode("(;CA[EUC-CN]PB[黑棋])");
    let d = decode(&encoded);
    assert_eq!((d.charset, d.source), ("GBK", CharsetSource::Declared));
    assert!(d.text.contains("黑棋"));
}

#[test]
fn utf8_without_ca_is_borrowed() {
    let bytes = "(;PB[李世乭])".as_bytes();
    let d = decode(bytes);
    assert_eq!((d.charset, d.source), ("UTF-8", CharsetSource::Default));
    assert!(matches!(d.text, std::borrow::Cow::Borrowed(_)));
}

#[test]
fn non_utf8_without_ca_is_guessed_with_warning() {
    let (encoded, _, _) =
        encoding_rs::SHIFT_JIS.encode("(;C[これは日本語のコメントです。囲碁の対局。])");
    let d = decode(&encoded);
    assert_eq!(d.source, CharsetSource::Detected);
    assert_eq!(d.charset, "Shift_JIS");
    assert_eq!(d.diagnostics[0].code, code::CHARSET_GUESSED);
    let c = d.parse(&ParseOptions::default());
    assert!(
        c.trees[0]
            .root()
            .value("C")
            .unwrap()
            .text()
            .contains("日本語")
    );
}

#[test]
fn undecodable_bytes_give_a_diagnostic() {
    let d = decode(b"(;CA[UTF-8]PB[ab\xe9\xaa])");
    assert_eq!(d.source, CharsetSource::Declared);
    assert_eq!(d.diagnostics.len(), 1);
    assert_eq!(d.diagnostics[0].code, code::UNDECODABLE_BYTES);
    assert_eq!(&d.text[d.diagnostics[0].span.range()], "\u{fffd}");
    let c = d.parse(&ParseOptions::default());
    assert!(!c.has_errors());
    assert_eq!(c.trees[0].root().value("PB").unwrap().text(), "ab\u{fffd}");
}

#[test]
fn unknown_charset_falls_back_with_warning() {
    let d = decode(b"(;CA[foo]PB[x])");
    assert_eq!(d.diagnostics[0].code, code::UNKNOWN_CHARSET);
    assert_eq!(&d.text[d.diagnostics[0].span.range()], "foo");
    assert_eq!(d.source, CharsetSource::Default);
}

#[test]
fn utf16_is_decoded() {
    let mut le = vec![0xff, 0xfe];
    let mut bare = Vec::new();
    for u in "(;PB[Ann])".encode_utf16() {
        le.extend_from_slice(&u.to_le_bytes());
        bare.extend_from_slice(&u.to_le_bytes());
    }
    assert_eq!(decode(&le).text, "(;PB[Ann])");
    let d = decode(&bare);
    assert_eq!((d.charset, d.source), ("UTF-16LE", CharsetSource::Detected));
    assert_eq!(d.text, "(;PB[Ann])");
}

#[test]
fn missing_final_paren_is_added() {
    let c = lenient("(;B[aa](;W[bb]");
    assert_eq!(codes(&c), [code::MISSING_CLOSE_PAREN]);
    assert_eq!(c.trees[0].len(), 2);
    assert!(c.diagnostics[0].message.contains("2 `(`"));
}

#[test]
fn extra_final_paren_is_ignored() {
    let c = lenient("(;B[aa]))\n");
    assert_eq!(codes(&c), [code::EXTRA_CLOSE_PAREN]);
    assert_eq!(c.diagnostics[0].span, (8..9).into());
    assert_eq!(c.diagnostics[0].tree, None);
}

#[test]
fn text_before_first_tree_is_skipped() {
    let c = lenient("Game record (see below).\n\n\n(;B[aa])");
    assert_eq!(codes(&c), [code::TEXT_BEFORE_TREE]);
    assert_eq!(c.trees.len(), 1);
    // Blank lines alone are white space, not a fault.
    assert!(lenient("\n\n\r\n(;B[aa])").diagnostics.is_empty());
}

#[test]
fn tree_without_semicolon_gets_one() {
    let c = lenient("(B[aa];W[bb])");
    assert_eq!(codes(&c), [code::MISSING_SEMICOLON]);
    assert_eq!(main_line(&c, 0), ["B=aa", "W=bb"]);
}

#[test]
fn unescaped_bracket_in_comment_is_repaired() {
    let c = lenient("(;C[He said [this] is good];B[aa])");
    assert_eq!(codes(&c), [code::UNESCAPED_BRACKET]);
    assert_eq!(c.diagnostics[0].span, (17..18).into());
    assert_eq!(main_line(&c, 0), ["C=He said [this] is good", "B=aa"]);
    // Written back escaped, and stable from there.
    let written = write_collection(&c);
    assert!(written.contains(r"[this\] is good]"));
    assert!(lenient(&written).diagnostics.is_empty());
}

#[test]
fn ambiguous_bracket_is_not_repaired() {
    // After `a]` comes `junk;B[` with a `[` before the next `]`: no repair.
    let c = lenient("(;C[a]junk;B[bb])");
    assert!(!codes(&c).contains(&code::UNESCAPED_BRACKET));
    assert_eq!(c.trees[0].root().value("C").unwrap().raw, "a");
}

#[test]
fn strict_turns_repairs_into_errors() {
    let text = "junk (;AddBlack[aa];C[x]y];B[cc]";
    let lenient_c = lenient(text);
    let strict_c = parse(text, &ParseOptions::strict());
    assert!(!lenient_c.has_errors());
    assert_eq!(codes(&lenient_c).len(), 4, "{:?}", codes(&lenient_c));
    assert_eq!(codes(&lenient_c), codes(&strict_c));
    assert!(strict_c.diagnostics.iter().all(|d| d.is_error()));
    assert_eq!(lenient_c.trees, strict_c.trees);
    assert!(matches!(
        strict_c.into_result(),
        Err(Error::Syntax {
            code: code::TEXT_BEFORE_TREE,
            ..
        })
    ));
}

#[test]
fn several_game_trees() {
    let c = lenient("(;GN[one])\n(;GN[two])(;GN[three])");
    assert!(c.diagnostics.is_empty());
    let names: Vec<_> = c
        .trees
        .iter()
        .map(|t| t.root().value("GN").unwrap().text().into_owned())
        .collect();
    assert_eq!(names, ["one", "two", "three"]);
}

#[test]
fn broken_tree_does_not_hide_the_others() {
    let options = ParseOptions {
        max_value_len: 10,
        ..ParseOptions::default()
    };
    let text = "(;GN[one])(;GN[two];C[this value is too long](;B[aa])(;B[bb]))(;GN[three])";
    let c = parse(text, &options);
    assert_eq!(c.trees.len(), 3);
    assert_eq!(codes(&c), [code::VALUE_TOO_LONG]);
    assert_eq!(c.diagnostics[0].tree, Some(1));
    assert!(!c.tree_has_errors(0) && c.tree_has_errors(1) && !c.tree_has_errors(2));
    assert_eq!(c.trees[2].root().value("GN").unwrap().text(), "three");
    // What came before the fault is kept.
    assert_eq!(c.trees[1].len(), 2);
    assert!(matches!(
        c.into_result(),
        Err(Error::LimitExceeded {
            limit: Limit::ValueLength,
            ..
        })
    ));
}

#[test]
fn unterminated_value_is_an_error() {
    let c = lenient("(;GN[ok])(;C[never closed");
    assert_eq!(codes(&c), [code::UNTERMINATED_VALUE]);
    assert_eq!(c.diagnostics[0].tree, Some(1));
    assert_eq!(c.trees.len(), 2);
    assert!(!c.tree_has_errors(0));
}

#[test]
fn file_size_limit() {
    let options = ParseOptions {
        max_file_size: 8,
        ..ParseOptions::default()
    };
    let c = parse("(;B[aa];W[bb])", &options);
    assert!(c.trees.is_empty());
    assert_eq!(codes(&c), [code::FILE_TOO_LARGE]);
    assert!(matches!(
        c.into_result(),
        Err(Error::LimitExceeded {
            limit: Limit::FileSize,
            ..
        })
    ));
}

#[test]
fn node_count_limit() {
    let options = ParseOptions {
        max_nodes: 3,
        ..ParseOptions::default()
    };
    let c = parse("(;a[1];B[aa];W[bb];B[cc];W[dd])(;GN[next])", &options);
    assert!(codes(&c).contains(&code::TOO_MANY_NODES));
    assert_eq!(c.trees[0].len(), 3);
    assert_eq!(c.trees.len(), 2);
    assert!(!c.tree_has_errors(1));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let depth = 100_000;
    let text = format!(
        "(;GN[deep]{}{}(;GN[after])",
        "(;B[aa]".repeat(depth),
        ")".repeat(depth + 1)
    );
    let c = lenient(&text);
    assert_eq!(codes(&c), [code::TOO_DEEP]);
    assert_eq!(c.diagnostics[0].tree, Some(0));
    assert_eq!(c.trees.len(), 2, "the tree after the deep one is read");
    assert_eq!(c.trees[1].root().value("GN").unwrap().text(), "after");
}

#[test]
fn deep_tree_within_limits_parses_writes_and_drops() {
    let depth = 100_000;
    let text = format!(
        "(;GN[deep]{}{}",
        "(;B[aa](;W[bb])".repeat(depth),
        ")".repeat(depth + 1)
    );
    let options = ParseOptions {
        max_depth: depth + 2,
        ..ParseOptions::default()
    };
    let c = parse(&text, &options);
    assert!(c.diagnostics.is_empty());
    let tree = &c.trees[0];
    assert_eq!(tree.len(), 2 * depth + 1);
    assert_eq!(tree.variation_depth(), depth - 1);
    let written = write_collection(&c);
    let again = parse(&written, &options);
    assert!(again.trees[0] == *tree);
    drop(again);
}

#[test]
fn spans_point_at_what_was_read() {
    let text = "(;GM[1]\n;B[aa]C[hi\\]]\n)";
    let c = lenient(text);
    let tree = &c.trees[0];
    assert_eq!(tree.span(), (0..text.len()).into());
    let (id, node) = tree.main_line().nth(1).unwrap();
    assert_eq!(tree.node(id).parent(), Some(NodeId::ROOT));
    assert_eq!(&text[node.span().range()], ";B[aa]C[hi\\]]");
    let c_prop = node.get("C").unwrap();
    assert_eq!(&text[c_prop.span().range()], "C[hi\\]]");
    assert_eq!(&text[c_prop.ident_span().range()], "C");
    assert_eq!(&text[c_prop.value().unwrap().span.range()], "hi\\]");
}

#[test]
fn composed_values_split_at_unescaped_colon() {
    let c = lenient(r"(;LB[dd:a\:b]AP[Prog:1.0]SZ[19])");
    let root = c.trees[0].root();
    let (point, label) = root.value("LB").unwrap().split_composed().unwrap();
    assert_eq!((&*point.raw, label.simple_text().as_ref()), ("dd", "a:b"));
    assert_eq!(label.span, (8..12).into());
    let (name, version) = root.value("AP").unwrap().split_composed().unwrap();
    assert_eq!((&*name.raw, &*version.raw), ("Prog", "1.0"));
    assert!(root.value("SZ").unwrap().split_composed().is_none());
}

#[test]
fn variations_and_main_line() {
    let c = lenient("(;GN[x];B[aa](;W[bb];B[cc])(;W[dd])(;W[ee]))");
    let tree = &c.trees[0];
    let (b, _) = tree.main_line().nth(1).unwrap();
    let kids: Vec<_> = tree
        .children(b)
        .map(|(_, n)| n.value("W").unwrap().text().into_owned())
        .collect();
    assert_eq!(kids, ["bb", "dd", "ee"]);
    assert_eq!(main_line(&c, 0), ["GN=x", "B=aa", "W=bb", "B=cc"]);
}

#[test]
fn node_after_variation_becomes_a_variation() {
    let c = lenient("(;B[aa](;W[bb]);W[cc])");
    assert_eq!(codes(&c), [code::NODE_AFTER_VARIATION]);
    assert_eq!(c.trees[0].children(NodeId::ROOT).count(), 2);
}

#[test]
fn empty_variation_and_stray_values_are_dropped() {
    let c = lenient("(;B[aa]()[x];W[bb]AB;C[ok])");
    assert_eq!(
        codes(&c),
        [
            code::EMPTY_GAME_TREE,
            code::VALUE_WITHOUT_PROPERTY,
            code::PROPERTY_WITHOUT_VALUE
        ]
    );
    assert_eq!(main_line(&c, 0), ["B=aa", "W=bb", "C=ok"]);
}

#[test]
fn no_game_tree_is_an_error() {
    let c = lenient("This is not SGF (really).");
    assert!(c.trees.is_empty());
    assert_eq!(codes(&c), [code::TEXT_BEFORE_TREE, code::NO_GAME_TREE]);
}

#[test]
fn duplicate_property_is_kept_with_warning() {
    let c = lenient("(;AP[a]AP[b])");
    assert_eq!(codes(&c), [code::DUPLICATE_PROPERTY]);
    assert_eq!(c.trees[0].root().properties().len(), 2);
}

#[test]
fn render_shows_line_and_marker() {
    let text = "(;GM[1]\n;B[aa] $$ ;W[bb])";
    let c = lenient(text);
    assert_eq!(codes(&c), [code::UNEXPECTED_CHARACTER]);
    let shown = c.diagnostics[0].render("x.sgf", &LineIndex::new(text));
    let expected = "\
warning[unexpected-character]: unexpected \"$$\"; skipped
 --> x.sgf:2:8
  |
2 | ;B[aa] $$ ;W[bb])
  |        ^^
";
    assert_eq!(shown, expected);
}

#[test]
fn columns_count_characters() {
    let text = "(;PB[李世乭]\n;B[aa] !)";
    let index = LineIndex::new(text);
    let c = lenient(text);
    let at = c.diagnostics[0].location(&index);
    assert_eq!((at.line, at.column, at.offset), (2, 8, 23));
    let at = index.location(c.trees[0].root().span().end);
    assert_eq!((at.line, at.column), (1, 10));
}

#[test]
fn a_collection_cut_into_parts_parses_as_a_whole() {
    // Values holding brackets, parentheses and escapes; variations; text
    // between trees; CRLF.
    let mut text = String::from("Notes before the first tree.\r\n");
    for i in 0..40 {
        text.push_str(&format!(
            "(;GM[1]FF[4]C[game {i}: ( \\] ) \\\\]GN[a(b]\r\n;B[aa](;W[bb]C[x)y];B[cc])(;W[dd]))\n"
        ));
        if i % 7 == 0 {
            text.push_str("stray words (not a tree\n");
        }
    }
    let whole = lenient(&text);
    let options = ParseOptions::default();
    for max_part in [1, 50, 200, 1000, usize::MAX] {
        let parts = keil_sgf::split_collection(&text, max_part);
        assert_eq!(parts.first().unwrap().start, 0);
        assert_eq!(parts.last().unwrap().end, text.len());
        assert!(parts.windows(2).all(|w| w[0].end == w[1].start));
        if max_part == usize::MAX {
            assert_eq!(parts.len(), 1);
        }
        if max_part <= 200 {
            assert!(parts.len() > 10, "{max_part}: {} parts", parts.len());
        }
        let mut trees = Vec::new();
        let mut diagnostics = Vec::new();
        for part in parts {
            assert!(part.start == 0 || text[part.start..].starts_with('('));
            let c = keil_sgf::parse_range(&text, part, &options);
            diagnostics.extend(c.diagnostics.iter().map(|d| (d.code, d.span)));
            trees.extend(c.trees);
        }
        assert_eq!(trees.len(), whole.trees.len(), "{max_part}");
        for (a, b) in trees.iter().zip(&whole.trees) {
            assert_eq!(a, b);
            assert_eq!(a.span(), b.span(), "spans are offsets into the whole text");
        }
        let want: Vec<_> = whole.diagnostics.iter().map(|d| (d.code, d.span)).collect();
        assert_eq!(diagnostics, want, "{max_part}");
    }
}

#[test]
fn the_size_limit_applies_to_the_range() {
    let text = "(;GM[1];B[aa])(;GM[1];B[bb])";
    let options = ParseOptions {
        max_file_size: 15,
        ..ParseOptions::default()
    };
    assert_eq!(
        codes(&keil_sgf::parse(text, &options)),
        vec![code::FILE_TOO_LARGE]
    );
    for part in keil_sgf::split_collection(text, 15) {
        let c = keil_sgf::parse_range(text, part.clone(), &options);
        assert!(c.diagnostics.is_empty(), "{part:?}");
        assert_eq!(c.trees.len(), 1);
        assert_eq!(c.trees[0].span().start, part.start);
    }
}
