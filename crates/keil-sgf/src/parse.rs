//! The parser: nom token parsers driven by an explicit stack.
//!
//! Tokens (white space, property identifiers, bracketed values) are nom 8
//! parsers over `&str`. The tree structure (`(`, `;`, `)`) is driven by a
//! loop with a heap-allocated stack of open variations instead of recursive
//! descent, so nesting depth costs no native stack, and a broken game tree
//! can be abandoned and the next top-level tree read.

use std::borrow::Cow;

use memchr::{memchr, memchr2, memchr3};
use nom::bytes::complete::take_while1;
use nom::{IResult, Parser as _};

use crate::diag::{Diagnostic, Severity, code};
use crate::span::Span;
use crate::tree::{
    Arena, Collection, GameTree, INLINE_NODE, MAX_OFFSET, NONE, NodeData, OWN, PropData, TextRef,
};

/// What the parser accepts and how far it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Report every repaired malformation as an error instead of a warning.
    /// The repair is still made, so the trees are the same as without.
    pub strict: bool,
    /// Largest text accepted, in bytes; a larger one gives a
    /// [`file-too-large`](crate::code::FILE_TOO_LARGE) error and no tree.
    /// Default 64 MiB. Texts of 2 GiB or more are always refused (trees
    /// store offsets in 31 bits).
    pub max_file_size: usize,
    /// Longest value, in bytes between the brackets; a longer one gives a
    /// [`value-too-long`](crate::code::VALUE_TOO_LONG) error and ends its game
    /// tree. Default 1 MiB.
    pub max_value_len: usize,
    /// Most nodes in one game tree; more give a
    /// [`too-many-nodes`](crate::code::TOO_MANY_NODES) error and end the game
    /// tree. Default 1,000,000.
    pub max_nodes: usize,
    /// Deepest nesting of `(`, counting the game tree's own; deeper gives a
    /// [`nesting-too-deep`](crate::code::TOO_DEEP) error and ends the game
    /// tree. Default 10,000.
    pub max_depth: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            strict: false,
            max_file_size: 64 << 20,
            max_value_len: 1 << 20,
            max_nodes: 1_000_000,
            max_depth: 10_000,
        }
    }
}

impl ParseOptions {
    /// The default limits with [`strict`](Self::strict) on.
    pub fn strict() -> ParseOptions {
        ParseOptions {
            strict: true,
            ..ParseOptions::default()
        }
    }
}

/// Parse SGF text (SGF FF\[4\] `Collection`) into game trees.
///
/// Never fails and never panics: what cannot be read is reported in
/// [`Collection::diagnostics`], each about one tree where it can be, and
/// reading resumes at the next top-level game tree. A leading byte order mark
/// is skipped. Spans are byte offsets into `text`.
///
/// Repaired with a warning (an error when [`ParseOptions::strict`]): text
/// outside game trees, a missing or extra `)`, a node without `;`,
/// lower-case letters in identifiers, an unescaped `]` inside a value when
/// the rest of the file shows where the value really ends, stray characters,
/// empty variations, a property without value and a value without property.
///
/// To parse bytes in some charset, [`decode`](crate::decode()) them first.
pub fn parse<'a>(text: &'a str, options: &ParseOptions) -> Collection<'a> {
    Reader {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        opts: options,
        diags: Vec::new(),
        tree: None,
        scratch: Arena::default(),
    }
    .collection()
}

/// Parse the game trees of `text[range]`, with spans that are byte offsets
/// into the whole `text` (so line and column are those of the whole file).
///
/// For collections larger than [`ParseOptions::max_file_size`]: cut them
/// with [`split_collection`] and parse the parts one after the other, each
/// within the limit, without holding the whole file's trees at once. The
/// size limit applies to the range. A byte order mark is skipped only at the
/// start of the text.
///
/// # Panics
/// When `range` is not within `text` or does not fall on character
/// boundaries.
pub fn parse_range<'a>(
    text: &'a str,
    range: std::ops::Range<usize>,
    options: &ParseOptions,
) -> Collection<'a> {
    let text = &text[..range.end];
    assert!(
        text.is_char_boundary(range.start),
        "range start inside a character"
    );
    Reader {
        text,
        bytes: text.as_bytes(),
        pos: range.start,
        opts: options,
        diags: Vec::new(),
        tree: None,
        scratch: Arena::default(),
    }
    .collection()
}

/// Cuts a collection into parts of at most about `max_part` bytes, each
/// starting at a top-level game tree (`(` outside every value and tree),
/// for [`parse_range`]. The parts cover the text in order; a part holds
/// more than `max_part` bytes only when one game tree does.
///
/// The cut points come from a scan of tree starts, brackets, values and
/// escapes only: on malformed text (an unbalanced `[` or `(` inside a tree)
/// fewer cut points are found, never one inside a well-formed tree. A text
/// within `max_part` is one part.
pub fn split_collection(text: &str, max_part: usize) -> Vec<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    if bytes.len() <= max_part {
        return std::iter::once(0..bytes.len()).collect();
    }
    let mut parts = Vec::new();
    let mut start = 0;
    // The last top-level tree start in the part after its first tree.
    let mut cut = None;
    let mut part_has_tree = false;
    for_each_tree_start(bytes, |i| {
        // A part starts with its first tree (text before the first tree
        // stays with it); any later tree start may cut.
        if part_has_tree {
            if i - start > max_part
                && let Some(c) = cut
            {
                parts.push(start..c);
                start = c;
            }
            cut = Some(i);
        }
        part_has_tree = true;
    });
    if bytes.len() - start > max_part
        && let Some(c) = cut.filter(|&c| c > start)
    {
        parts.push(start..c);
        start = c;
    }
    parts.push(start..bytes.len());
    parts
}

/// The number of top-level game trees in a collection, by the same scan as
/// [`split_collection`] (tree starts, brackets, values and escapes; no
/// tree is built): linear in the text's length, constant memory. A caller
/// bounds a collection's game trees with it before parsing (the server's
/// game-tree limit per upload). On malformed text it may differ from the
/// parser's count, as the cut points of [`split_collection`] may.
///
/// ```
/// assert_eq!(keil_sgf::count_trees("(;GM[1])(;GM[1](;B[aa])(;B[bb]))"), 2);
/// assert_eq!(keil_sgf::count_trees("(;C[a (; in a value])(;)"), 2);
/// assert_eq!(keil_sgf::count_trees("no tree here"), 0);
/// ```
pub fn count_trees(text: &str) -> usize {
    let mut n = 0;
    for_each_tree_start(text.as_bytes(), |_| n += 1);
    n
}

/// Calls `on_start` with the offset of every top-level tree start (`(`
/// outside every value and tree, as [`tree_start_at`] sees it), in order.
fn for_each_tree_start(bytes: &[u8], mut on_start: impl FnMut(usize)) {
    let (mut depth, mut in_value, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if depth == 0 {
            // Outside trees only a tree start counts, as for the parser.
            if b == b'(' && tree_start_at(bytes, i) {
                on_start(i);
                depth = 1;
            }
            continue;
        }
        if in_value {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b']' => in_value = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'[' => in_value = true,
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ => {}
        }
    }
}

/// SGF white space: the ASCII space and control characters that may stand
/// between tokens.
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// `PropIdent`: letters (upper-case in FF\[4\]; lower-case accepted for FF\[3\]).
fn ident(input: &[u8]) -> IResult<&[u8], &[u8]> {
    take_while1(|b: u8| b.is_ascii_alphabetic()).parse(input)
}

/// `CValueType`: everything up to the first `]` that is not escaped by `\`.
fn value_body(input: &[u8]) -> IResult<&[u8], &[u8]> {
    match find_close(input, 0) {
        Some(end) => Ok((&input[end..], &input[..end])),
        None => Err(nom::Err::Error(nom::error::Error::new(
            input,
            nom::error::ErrorKind::TakeUntil,
        ))),
    }
}

/// Offset of the first `]` at or after `from` that is not escaped.
#[inline(always)]
pub(crate) fn find_close(bytes: &[u8], from: usize) -> Option<usize> {
    // Most values (moves, numbers) are shorter than 8 bytes: look at the
    // next 8 bytes as one word first.
    if let Some(&chunk) = bytes.get(from..).and_then(|b| b.first_chunk::<8>()) {
        // `]` (0x5d) and `\` (0x5c) differ in the lowest bit only: setting
        // it in every byte leaves one value to look for.
        let word = u64::from_le_bytes(chunk) | ONES;
        let found = zero_bytes(word ^ (u64::from(b']') * ONES));
        if found == 0 {
            return find_close_from(bytes, from + 8);
        }
        let i = from + (found.trailing_zeros() / 8) as usize;
        if bytes[i] == b']' {
            return Some(i);
        }
        return find_close_from(bytes, i);
    }
    find_close_from(bytes, from)
}

/// `0x01` in every byte of a word.
const ONES: u64 = u64::from_le_bytes([1; 8]);

/// The high bit of each byte of `x` that is zero, and no other bit.
#[inline]
fn zero_bytes(x: u64) -> u64 {
    const LOW7: u64 = ONES * 0x7f;
    !(((x & LOW7) + LOW7) | x | LOW7)
}

/// [`find_close`] without the word-at-a-time start.
#[inline(never)]
fn find_close_from(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    // Most values are short (moves, numbers): a plain loop beats setting up
    // a vector search.
    let short_end = bytes.len().min(from + 16);
    while i < short_end {
        match bytes[i] {
            b']' => return Some(i),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    loop {
        let j = i + memchr2(b']', b'\\', bytes.get(i..)?)?;
        if bytes[j] == b']' {
            return Some(j);
        }
        i = j + 2;
    }
}

pub(crate) fn skip_ws_at(bytes: &[u8], mut p: usize) -> usize {
    while p < bytes.len() && is_ws(bytes[p]) {
        p += 1;
    }
    p
}

fn skip_letters_at(bytes: &[u8], mut p: usize) -> usize {
    while p < bytes.len() && bytes[p].is_ascii_alphabetic() {
        p += 1;
    }
    p
}

/// Does a game tree start at `p`: `(` then, after white space, `;`, `(` or a
/// property (letters, white space, `[`)? Prose in parentheses before the
/// first tree does not.
pub(crate) fn tree_start_at(bytes: &[u8], p: usize) -> bool {
    if bytes.get(p) != Some(&b'(') {
        return false;
    }
    let q = skip_ws_at(bytes, p + 1);
    match bytes.get(q) {
        Some(b';' | b'(') => true,
        Some(c) if c.is_ascii_alphabetic() => {
            let r = skip_ws_at(bytes, skip_letters_at(bytes, q));
            bytes.get(r) == Some(&b'[')
        }
        _ => false,
    }
}

/// `a == b` for identifiers, which are short: a plain loop rather than a
/// call to `memcmp`.
fn same_ident(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Normalise a property identifier: upper-case letters kept, lower-case
/// dropped (FF\[3\] `AddBlack` → `AB`). `None` when no upper-case letter is left.
fn normalise(id: &str) -> Option<Cow<'_, str>> {
    if id.bytes().all(|b| b.is_ascii_uppercase()) {
        return Some(Cow::Borrowed(id));
    }
    let up: String = id.chars().filter(char::is_ascii_uppercase).collect();
    (!up.is_empty()).then_some(Cow::Owned(up))
}

/// How many later `]` the unescaped-bracket repair tries.
const REPAIR_TRIES: usize = 8;

/// Reading stopped inside the current game tree (a limit, or a value never
/// closed); the diagnostic is already reported.
struct Fatal;

struct Reader<'a, 'o> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    opts: &'o ParseOptions,
    diags: Vec<Diagnostic>,
    /// Index of the game tree being read, for its diagnostics.
    tree: Option<usize>,
    /// Where game trees are built, reused from one tree to the next (so it
    /// grows to the largest tree once); each tree gets an exact copy.
    scratch: Arena,
}

/// The bytes of an identifier reference made while reading `bytes`.
fn ident_bytes<'s>(bytes: &'s [u8], arena: &'s Arena, r: TextRef) -> &'s [u8] {
    let (start, end) = ((r.start & !OWN) as usize, r.end as usize);
    if r.start & OWN != 0 {
        &arena.own.as_bytes()[start..end]
    } else {
        &bytes[start..end]
    }
}

impl<'a> Reader<'a, '_> {
    fn report(&mut self, severity: Severity, code: &'static str, span: Span, message: String) {
        self.diags.push(Diagnostic {
            severity,
            code,
            message,
            span,
            tree: self.tree,
        });
    }

    /// A repaired malformation: a warning, or an error in strict mode.
    fn warn(&mut self, code: &'static str, span: Span, message: String) {
        let severity = if self.opts.strict {
            Severity::Error
        } else {
            Severity::Warning
        };
        self.report(severity, code, span, message);
    }

    fn error(&mut self, code: &'static str, span: Span, message: String) {
        self.report(Severity::Error, code, span, message);
    }

    fn rest(&self) -> &'a [u8] {
        &self.bytes[self.pos..]
    }

    #[inline]
    fn skip_ws(&mut self) {
        if self.bytes.get(self.pos).is_some_and(|&b| is_ws(b)) {
            self.pos = skip_ws_at(self.bytes, self.pos + 1);
        }
    }

    fn collection(mut self) -> Collection<'a> {
        let len = self.text.len();
        let first = self.pos;
        let size = len - first;
        if size > self.opts.max_file_size || len > MAX_OFFSET {
            let message = if size > self.opts.max_file_size {
                let max = self.opts.max_file_size;
                format!("the text is {size} bytes, more than the limit of {max} bytes; not read")
            } else {
                // A part of a larger text (`parse_range`) that ends past
                // the offsets a tree can hold.
                format!(
                    "this part of the text ends {len} bytes into it, past the {MAX_OFFSET} bytes \
                     a text may hold; not read (split the file into files under 2 GiB)"
                )
            };
            self.error(code::FILE_TOO_LARGE, Span::new(first, len), message);
            return Collection {
                trees: Vec::new(),
                diagnostics: self.diags,
            };
        }
        if first == 0 && self.text.starts_with('\u{feff}') {
            self.pos = '\u{feff}'.len_utf8();
        }
        let mut trees = Vec::new();
        loop {
            self.skip_ws();
            if self.pos >= len {
                break;
            }
            if tree_start_at(self.bytes, self.pos) {
                self.tree = Some(trees.len());
                trees.push(self.game_tree());
                self.tree = None;
            } else {
                self.outside_text(trees.is_empty());
            }
        }
        if trees.is_empty() {
            self.error(
                code::NO_GAME_TREE,
                Span::new(first, len),
                "no SGF game tree (`(;...)`) found".to_owned(),
            );
        }
        Collection {
            trees,
            diagnostics: self.diags,
        }
    }

    /// Skip text outside game trees up to the next `(` that starts a tree.
    fn outside_text(&mut self, before_first: bool) {
        let start = self.pos;
        let len = self.bytes.len();
        let mut p = start;
        self.pos = loop {
            match memchr(b'(', &self.bytes[p + 1..]) {
                Some(k) if tree_start_at(self.bytes, p + 1 + k) => break p + 1 + k,
                Some(k) => p += 1 + k,
                None => break len,
            }
        };
        let skipped = self.text[start..self.pos].trim_end();
        let span = Span::new(start, start + skipped.len());
        if skipped.bytes().all(|b| b == b')' || is_ws(b)) {
            let n = skipped.bytes().filter(|&b| b == b')').count();
            self.warn(
                code::EXTRA_CLOSE_PAREN,
                span,
                format!("{n} `)` without an open game tree; ignored"),
            );
        } else if skipped.bytes().all(|b| b == b')' || b == b'(' || is_ws(b)) {
            self.warn(
                code::EMPTY_GAME_TREE,
                span,
                "game tree without any node; ignored".to_owned(),
            );
        } else {
            let (code, place) = if before_first {
                (code::TEXT_BEFORE_TREE, "before the first game tree")
            } else {
                (code::TEXT_OUTSIDE_TREE, "outside any game tree")
            };
            self.warn(
                code,
                span,
                format!("{} bytes of text {place}; ignored", skipped.len()),
            );
        }
    }

    /// Read one top-level game tree; `self.pos` is at its `(`.
    fn game_tree(&mut self) -> GameTree<'a> {
        let start = self.pos;
        self.pos += 1;
        // Built in the scratch vectors, copied out at the end: one exact
        // allocation per vector, and no growth once the scratch is as large
        // as the largest tree. Every count and offset fits in a u32, as the
        // text is shorter than MAX_OFFSET bytes.
        let mut arena = std::mem::take(&mut self.scratch);
        // Open variations: the node new nodes attach to, the node count and
        // the offset when it was opened.
        let mut stack: Vec<(u32, usize, usize)> = Vec::new();
        let mut current = NONE;
        let mut after_close = false;
        loop {
            self.skip_ws();
            let Some(&b) = self.bytes.get(self.pos) else {
                let open = stack.len() + 1;
                self.warn(
                    code::MISSING_CLOSE_PAREN,
                    Span::at(self.pos),
                    format!("end of file with {open} `(` still open; closed here"),
                );
                break;
            };
            match b {
                b';' | b'A'..=b'Z' | b'a'..=b'z' => {
                    // Fast path: nearly all nodes are `;` plus one property
                    // with one value (a move), in which case nothing needs
                    // reporting.
                    if b == b';' && !after_close {
                        let before = arena.nodes.len();
                        current = self.simple_nodes(&mut arena, current);
                        if arena.nodes.len() > before {
                            continue;
                        }
                    }
                    if after_close {
                        self.warn(
                            code::NODE_AFTER_VARIATION,
                            Span::at(self.pos),
                            "node after the variations of a sequence; read as one more variation"
                                .to_owned(),
                        );
                        after_close = false;
                    }
                    if b != b';' {
                        self.warn(
                            code::MISSING_SEMICOLON,
                            Span::at(self.pos),
                            "node without its `;`; added".to_owned(),
                        );
                    }
                    if arena.nodes.len() >= self.opts.max_nodes {
                        let max = self.opts.max_nodes;
                        self.error(
                            code::TOO_MANY_NODES,
                            Span::at(self.pos),
                            format!("game tree has more than {max} nodes; rest of it not read"),
                        );
                        self.skip_tree_rest(stack.len() + 1);
                        break;
                    }
                    let node_start = self.pos;
                    if b == b';' {
                        self.pos += 1;
                    }
                    let props_start = arena.props.len() as u32;
                    let outcome = self.properties(&mut arena);
                    let props_end = arena.props.len() as u32;
                    // A parsed property ends after its last value's `]`.
                    let end = arena
                        .props
                        .last()
                        .filter(|_| props_end > props_start)
                        .map_or(node_start + 1, |p| {
                            arena.values[p.values_end as usize - 1].end as usize + 1
                        });
                    let span = Span::new(node_start, end.max(node_start + 1));
                    current = arena.link(current, span, (props_start, props_end));
                    if outcome.is_err() {
                        self.skip_tree_rest(stack.len() + 1);
                        break;
                    }
                }
                b'(' => {
                    after_close = false;
                    if stack.len() + 2 > self.opts.max_depth {
                        let max = self.opts.max_depth;
                        self.error(
                            code::TOO_DEEP,
                            Span::at(self.pos),
                            format!(
                                "variations nest deeper than {max}; rest of the game tree not read"
                            ),
                        );
                        self.skip_tree_rest(stack.len() + 1);
                        break;
                    }
                    if current == NONE {
                        self.warn(
                            code::MISSING_ROOT_NODE,
                            Span::at(self.pos),
                            "game tree opens with a variation; empty root node added".to_owned(),
                        );
                        let none = arena.props.len() as u32;
                        current = arena.link(NONE, Span::at(self.pos), (none, none));
                    }
                    stack.push((current, arena.nodes.len(), self.pos));
                    self.pos += 1;
                }
                b')' => {
                    self.pos += 1;
                    let Some((attach, count, open)) = stack.pop() else {
                        break;
                    };
                    current = attach;
                    if arena.nodes.len() == count {
                        self.warn(
                            code::EMPTY_GAME_TREE,
                            Span::new(open, self.pos),
                            "variation without any node; ignored".to_owned(),
                        );
                    } else {
                        after_close = true;
                    }
                }
                b'[' => {
                    if self.stray_value().is_err() {
                        self.skip_tree_rest(stack.len() + 1);
                        break;
                    }
                }
                _ => self.junk(),
            }
        }
        if arena.nodes.is_empty() {
            let none = arena.props.len() as u32;
            arena.link(NONE, Span::at(start), (none, none));
        }
        let tree = Arena {
            nodes: arena.nodes.as_slice().to_vec(),
            props: arena.props.as_slice().to_vec(),
            values: arena.values.as_slice().to_vec(),
            own: std::mem::take(&mut arena.own),
        };
        arena.nodes.clear();
        arena.props.clear();
        arena.values.clear();
        self.scratch = arena;
        GameTree::from_parts(self.text, tree, Span::new(start, self.pos))
    }

    /// Read a run of simple nodes, each `;`, one upper-case property
    /// identifier and one value, followed (after optional white space) by
    /// `;`, `(`, `)` or the end of the text; link each under the one before,
    /// the first under `parent`, and return the last (`parent` when none was
    /// read). `self.pos` is at a `;` and ends after the last node read.
    ///
    /// Such a node has nothing to report, and reads (through the views)
    /// exactly as what the general path (`properties`) would give; it is
    /// stored inline (see `INLINE_NODE`), without property nor value record. Reading stops, with nothing
    /// changed, at the first node that is not simple (or would exceed
    /// [`ParseOptions::max_nodes`]): the general path reads that one.
    // Not inlined: a loop of its own keeps its values in registers.
    #[inline(never)]
    fn simple_nodes(&mut self, arena: &mut Arena, parent: u32) -> u32 {
        let bytes = self.bytes;
        let max_value_len = self.opts.max_value_len;
        let first = arena.nodes.len();
        let mut budget = self.opts.max_nodes.saturating_sub(first);
        let mut pos = self.pos;
        // Each node is pushed with the next one as its only child; the last
        // one read is put right below.
        let mut prev = parent;
        while budget > 0 {
            let id_start = pos + 1;
            // Most identifiers are one letter (`B`, `W`).
            let open = match bytes.get(id_start..id_start + 2) {
                Some(&[c, b'[']) if c.is_ascii_uppercase() => id_start + 1,
                _ => {
                    let mut open = id_start;
                    while bytes.get(open).is_some_and(u8::is_ascii_uppercase) {
                        open += 1;
                    }
                    if open == id_start || bytes.get(open) != Some(&b'[') {
                        break;
                    }
                    open
                }
            };
            let Some(close) = find_close(bytes, open + 1) else {
                break;
            };
            if close - (open + 1) > max_value_len {
                break;
            }
            let mut next = close + 1;
            match bytes.get(next) {
                None | Some(b';' | b'(' | b')') => {}
                Some(&c) if is_ws(c) => {
                    next = skip_ws_at(bytes, next + 1);
                    if !matches!(bytes.get(next), None | Some(b';' | b'(' | b')')) {
                        break;
                    }
                }
                Some(_) => break,
            }
            // The text is shorter than MAX_OFFSET, so all of these fit.
            let id = arena.nodes.len() as u32;
            // The property is inline: `;`, identifier, `[` at `open`, value,
            // `]` at `end - 1`.
            arena.nodes.push(NodeData {
                parent: prev,
                first_child: id + 1,
                last_child: id + 1,
                next_sibling: NONE,
                start: pos as u32,
                end: (close + 1) as u32,
                props_start: open as u32,
                props_end: INLINE_NODE,
            });
            prev = id;
            budget -= 1;
            pos = next;
            if bytes.get(pos) != Some(&b';') {
                break;
            }
        }
        self.pos = pos;
        if let Some(last) = arena.nodes[first..].last_mut() {
            last.first_child = NONE;
            last.last_child = NONE;
            // The first node read hangs under `parent`, after its other
            // children (if the run started after a variation).
            arena.attach(parent, first as u32);
        }
        prev
    }

    /// Read the properties of one node, up to the next `;`, `(`, `)` or the
    /// end of the text, onto the end of `arena.props` (and their values
    /// onto `arena.values`).
    fn properties(&mut self, arena: &mut Arena) -> Result<(), Fatal> {
        let node_props = arena.props.len();
        loop {
            self.skip_ws();
            let Some(&b) = self.bytes.get(self.pos) else {
                return Ok(());
            };
            match b {
                b';' | b'(' | b')' => return Ok(()),
                b'[' => self.stray_value()?,
                b'A'..=b'Z' | b'a'..=b'z' => {
                    let Ok((_, id)) = ident(self.rest()) else {
                        unreachable!("a letter starts an identifier")
                    };
                    let ident_span = Span::new(self.pos, self.pos + id.len());
                    // Letters are ASCII, so the span is on character boundaries.
                    let id = &self.text[ident_span.range()];
                    self.pos = ident_span.end;
                    self.skip_ws();
                    if self.bytes.get(self.pos) != Some(&b'[') {
                        self.warn(
                            code::PROPERTY_WITHOUT_VALUE,
                            ident_span,
                            format!("property `{id}` has no value; dropped"),
                        );
                        continue;
                    }
                    let values_start = arena.values.len();
                    let read = self.values(arena);
                    if read.is_err() {
                        arena.values.truncate(values_start);
                        return read;
                    }
                    let Some(name) = normalise(id) else {
                        arena.values.truncate(values_start);
                        self.warn(
                            code::INVALID_IDENTIFIER,
                            ident_span,
                            format!("`{id}` has no upper-case letter, so it is no property identifier; dropped"),
                        );
                        continue;
                    };
                    let ident = match &name {
                        Cow::Borrowed(_) => TextRef::source(ident_span.start, ident_span.end),
                        Cow::Owned(up) => {
                            self.warn(
                                code::LOWERCASE_IDENTIFIER,
                                ident_span,
                                format!("FF[3]-style identifier `{id}` read as `{up}`"),
                            );
                            arena.push_own(up)
                        }
                    };
                    if arena.props[node_props..].iter().any(|p| {
                        same_ident(ident_bytes(self.bytes, arena, p.ident), name.as_bytes())
                    }) {
                        self.warn(
                            code::DUPLICATE_PROPERTY,
                            ident_span,
                            format!("property `{name}` occurs twice in this node; both kept"),
                        );
                    }
                    arena.props.push(PropData {
                        ident,
                        ident_start: ident_span.start as u32,
                        ident_end: ident_span.end as u32,
                        values_start: values_start as u32,
                        values_end: arena.values.len() as u32,
                    });
                }
                _ => self.junk(),
            }
        }
    }

    /// Read the values of a property onto `arena.values`; `self.pos` is at
    /// the first `[`.
    fn values(&mut self, arena: &mut Arena) -> Result<(), Fatal> {
        while self.bytes.get(self.pos) == Some(&b'[') {
            let (start, end) = self.value()?;
            arena.values.push(TextRef::source(start, end));
            self.skip_ws();
        }
        Ok(())
    }

    /// Read one value; `self.pos` is at its `[`. Returns where its raw text
    /// is (the brackets excluded).
    fn value(&mut self) -> Result<(usize, usize), Fatal> {
        let open = self.pos;
        let start = open + 1;
        let Ok((_, raw)) = value_body(&self.bytes[start..]) else {
            let len = self.bytes.len();
            self.error(
                code::UNTERMINATED_VALUE,
                Span::new(open, len),
                "value opened here is never closed (no `]` before the end of the file)".to_owned(),
            );
            self.pos = len;
            return Err(Fatal);
        };
        let mut end = start + raw.len();
        if !self.plausible_after_value(end + 1)
            && let Some(e) = self.repair_bracket(end)
        {
            self.warn(
                code::UNESCAPED_BRACKET,
                Span::new(end, end + 1),
                "`]` inside a value should be escaped as `\\]`; read as part of the value"
                    .to_owned(),
            );
            end = e;
        }
        self.pos = end + 1;
        if end - start > self.opts.max_value_len {
            let max = self.opts.max_value_len;
            self.error(
                code::VALUE_TOO_LONG,
                Span::new(start, end),
                format!(
                    "value is {} bytes long, more than the limit of {max}; rest of the game tree not read",
                    end - start
                ),
            );
            return Err(Fatal);
        }
        Ok((start, end))
    }

    /// Could what follows a `]` at `p - 1` be SGF: another value, a node, a
    /// variation, the end of a tree or of the file, or a property?
    fn plausible_after_value(&self, p: usize) -> bool {
        let bytes = self.bytes;
        if let Some(b'[' | b';' | b'(' | b')') = bytes.get(p) {
            return true;
        }
        let q = skip_ws_at(bytes, p);
        match bytes.get(q) {
            None | Some(b'[' | b';' | b'(' | b')') => true,
            Some(c) if c.is_ascii_alphabetic() => {
                let r = skip_ws_at(bytes, skip_letters_at(bytes, q));
                bytes.get(r) == Some(&b'[')
            }
            Some(_) => false,
        }
    }

    /// After a `]` at `first` that cannot end the value, find a later `]`
    /// that can, with no `[` in between (else the repair is ambiguous).
    fn repair_bracket(&self, first: usize) -> Option<usize> {
        let bytes = self.bytes;
        let mut cand = first;
        for _ in 0..REPAIR_TRIES {
            let mut i = cand + 1;
            let next = loop {
                let j = i + memchr3(b']', b'\\', b'[', bytes.get(i..)?)?;
                match bytes[j] {
                    b']' => break j,
                    b'[' => return None,
                    _ => i = j + 2,
                }
            };
            if self.plausible_after_value(next + 1) {
                return Some(next);
            }
            cand = next;
        }
        None
    }

    /// A value with no property identifier before it: skip it.
    fn stray_value(&mut self) -> Result<(), Fatal> {
        let open = self.pos;
        let (_, end) = self.value()?;
        self.warn(
            code::VALUE_WITHOUT_PROPERTY,
            Span::new(open, end + 1),
            "value without a property identifier; dropped".to_owned(),
        );
        Ok(())
    }

    /// Skip characters that are not SGF syntax, up to the next one that is.
    fn junk(&mut self) {
        let start = self.pos;
        let bytes = self.bytes;
        let mut p = start + 1;
        while p < bytes.len()
            && !matches!(bytes[p], b';' | b'(' | b')' | b'[')
            && !bytes[p].is_ascii_alphabetic()
            && !is_ws(bytes[p])
        {
            p += 1;
        }
        // Stop bytes are ASCII, so `p` is on a character boundary.
        self.pos = p;
        let shown: String = self.text[start..p].chars().take(20).collect();
        self.warn(
            code::UNEXPECTED_CHARACTER,
            Span::new(start, p),
            format!("unexpected {shown:?}; skipped"),
        );
    }

    /// After a fatal error, skip to the end of the current top-level game
    /// tree (`depth` is the number of `(` open, the tree's own included),
    /// so the next tree can be read.
    fn skip_tree_rest(&mut self, mut depth: usize) {
        let bytes = self.bytes;
        while self.pos < bytes.len() {
            let Some(k) = memchr3(b'(', b')', b'[', &bytes[self.pos..]) else {
                self.pos = bytes.len();
                return;
            };
            let j = self.pos + k;
            self.pos = j + 1;
            match bytes[j] {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => self.pos = find_close(bytes, j + 1).map_or(bytes.len(), |e| e + 1),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::find_close;

    /// The first `]` not escaped by `\`, one byte at a time.
    fn naive(bytes: &[u8], from: usize) -> Option<usize> {
        let mut i = from;
        while i < bytes.len() {
            match bytes[i] {
                b']' => return Some(i),
                b'\\' => i += 2,
                _ => i += 1,
            }
        }
        None
    }

    #[test]
    fn find_close_agrees_with_a_byte_loop() {
        // Every string of up to 10 bytes over `a`, `]`, `\` and `^` (0x5e,
        // one bit away from `]` too), from every start offset.
        let alphabet = [b'a', b']', b'\\', b'^'];
        for len in 0..=10u32 {
            for mut n in 0..4usize.pow(len) {
                let mut bytes = Vec::with_capacity(len as usize);
                for _ in 0..len {
                    bytes.push(alphabet[n % 4]);
                    n /= 4;
                }
                for from in 0..=bytes.len() {
                    assert_eq!(
                        find_close(&bytes, from),
                        naive(&bytes, from),
                        "{bytes:?} from {from}"
                    );
                }
            }
        }
    }
}
