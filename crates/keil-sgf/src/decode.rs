//! Bytes to text: BOM, the root's `CA`, UTF-8, or a guessed charset.

use std::borrow::Cow;

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{DecoderResult, Encoding, REPLACEMENT, UTF_8, UTF_16BE, UTF_16LE};

use crate::diag::{Diagnostic, Severity, code};
use crate::parse::{ParseOptions, find_close, is_ws, skip_ws_at, tree_start_at};
use crate::span::Span;
use crate::tree::Collection;

/// Where the charset used for decoding came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CharsetSource {
    /// A byte order mark (UTF-8, UTF-16LE or UTF-16BE).
    Bom,
    /// The first root node's `CA` property (SGF FF\[4\] `CA`).
    Declared,
    /// No usable `CA`, and the bytes are valid UTF-8 (the FF\[4\] default).
    Default,
    /// No usable `CA`, and the bytes are not UTF-8: guessed from the bytes.
    Detected,
}

/// The decoded text of an SGF file, ready for [`parse`](crate::parse()).
#[derive(Clone, Debug)]
pub struct Decoded<'a> {
    /// The text, without byte order mark. Borrows the input when it is valid
    /// UTF-8 (or ASCII in an ASCII-compatible declared charset).
    pub text: Cow<'a, str>,
    /// Name of the charset used (the WHATWG name encoding_rs gives, e.g.
    /// `UTF-8`, `GBK` for `CA[GB2312]`, `Shift_JIS`, `windows-1252` for
    /// `CA[ISO-8859-1]`).
    pub charset: &'static str,
    /// Where [`charset`](Self::charset) came from.
    pub source: CharsetSource,
    /// Charset problems: unknown `CA`, a guessed charset, undecodable bytes
    /// (each replaced by U+FFFD). Spans are in `text`.
    pub diagnostics: Vec<Diagnostic>,
}

impl Decoded<'_> {
    /// Parse the text; the decoding diagnostics come first in the result
    /// (as errors when [`ParseOptions::strict`]).
    pub fn parse(&self, options: &ParseOptions) -> Collection<'_> {
        self.parse_range(0..self.text.len(), options)
    }

    /// Parse one part of the text, `self.text[range]` (a part of
    /// [`split_collection`](crate::split_collection)), as a text of its
    /// own: spans are byte offsets into the part, so a part of a text of
    /// 2 GiB or more reads as long as the part itself is under the limit
    /// (the tree offsets' 31 bits; build the part's
    /// [`LineIndex::starting_at`](crate::LineIndex::starting_at) for the
    /// whole text's lines and columns). The decoding diagnostics that start
    /// within `range` come first, moved into the part, as in
    /// [`Decoded::parse`], so that parsing every part reports each once.
    ///
    /// # Panics
    /// When `range` is not within the text or not on character boundaries.
    pub fn parse_range(
        &self,
        range: std::ops::Range<usize>,
        options: &ParseOptions,
    ) -> Collection<'_> {
        let last = range.end == self.text.len();
        // A part after the first starts at a game tree's `(`: no byte
        // order mark to skip there.
        let mut collection = crate::parse(&self.text[range.clone()], options);
        let local = |at: usize| at.clamp(range.start, range.end) - range.start;
        let mut diagnostics: Vec<Diagnostic> = self
            .diagnostics
            .iter()
            .filter(|d| range.contains(&d.span.start) || (last && d.span.start >= range.end))
            .map(|d| {
                let mut d = d.clone();
                d.span = Span::new(local(d.span.start), local(d.span.end));
                d
            })
            .collect();
        if options.strict {
            for d in &mut diagnostics {
                d.severity = Severity::Error;
            }
        }
        diagnostics.append(&mut collection.diagnostics);
        collection.diagnostics = diagnostics;
        collection
    }
}

/// Decode the bytes of an SGF file to text.
///
/// In order: a byte order mark decides (UTF-8, UTF-16); UTF-16 without one
/// is recognised by its zero bytes; else the charset in the first root
/// node's `CA` (SGF FF\[4\]: "CA: charset used for SimpleText and Text",
/// found by scanning the bytes, as `CA` values are ASCII); else UTF-8 when
/// the bytes are valid UTF-8; else a charset guessed by `chardetng`, with a
/// warning. Bytes not valid in the charset used become U+FFFD with a
/// warning; this never fails nor panics.
pub fn decode(bytes: &[u8]) -> Decoded<'_> {
    let mut decoded = decode_bytes(bytes);
    // Diagnostics about CA were placed in the bytes; place them in the text.
    let ca =
        declared_charset(decoded.text.as_bytes()).map_or(Span::at(0), |(s, e)| Span::new(s, e));
    for d in &mut decoded.diagnostics {
        if matches!(d.code, code::UNKNOWN_CHARSET | code::CHARSET_IGNORED) {
            d.span = ca;
        }
    }
    decoded
}

fn decode_bytes(bytes: &[u8]) -> Decoded<'_> {
    let mut diagnostics = Vec::new();
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        return transcode(enc, &bytes[bom_len..], CharsetSource::Bom, diagnostics);
    }
    if let Some(enc) = sniff_utf16(bytes) {
        let mut decoded = transcode(enc, bytes, CharsetSource::Detected, Vec::new());
        decoded.diagnostics.insert(
            0,
            Diagnostic::new(
                Severity::Warning,
                code::CHARSET_GUESSED,
                format!("no byte order mark, but the bytes look like {}", enc.name()),
                Span::at(0),
            ),
        );
        return decoded;
    }
    if let Some((start, end)) = declared_charset(bytes) {
        // CA values are ASCII; anything else cannot name a charset.
        let label = String::from_utf8_lossy(&bytes[start..end]);
        let label = label.trim();
        let span = Span::new(start, end);
        match charset_for_label(label) {
            Some(enc) if enc == UTF_16LE || enc == UTF_16BE || enc == REPLACEMENT => {
                diagnostics.push(Diagnostic::new(
                    Severity::Warning,
                    code::CHARSET_IGNORED,
                    format!(
                        "CA[{label}] cannot be right for a file whose CA reads as ASCII; ignored"
                    ),
                    span,
                ));
            }
            Some(enc) => return transcode(enc, bytes, CharsetSource::Declared, diagnostics),
            None => diagnostics.push(Diagnostic::new(
                Severity::Warning,
                code::UNKNOWN_CHARSET,
                format!("unknown charset CA[{label}]; read as UTF-8 or a guessed charset"),
                span,
            )),
        }
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Decoded {
            text: Cow::Borrowed(text),
            charset: UTF_8.name(),
            source: CharsetSource::Default,
            diagnostics,
        };
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Allow);
    detector.feed(bytes, true);
    let enc = detector.guess(None, Utf8Detection::Allow);
    diagnostics.push(Diagnostic::new(
        Severity::Warning,
        code::CHARSET_GUESSED,
        format!(
            "no CA and the bytes are not UTF-8; read as {} (a guess)",
            enc.name()
        ),
        Span::at(0),
    ));
    transcode(enc, bytes, CharsetSource::Detected, diagnostics)
}

/// The charset a `CA` label names: a WHATWG label (what encoding_rs knows),
/// or one of the common non-WHATWG names found in SGF files.
fn charset_for_label(label: &str) -> Option<&'static Encoding> {
    Encoding::for_label(label.as_bytes()).or_else(|| {
        let alias: &[u8] = match label.to_ascii_lowercase().as_str() {
            "euc-cn" | "euccn" | "cp936" | "ms936" | "windows-936" => b"gbk",
            "cp949" | "ms949" | "uhc" | "windows-949" => b"euc-kr",
            "cp932" | "ms932" | "windows-932" | "shiftjis" => b"shift_jis",
            "cp950" | "ms950" | "windows-950" => b"big5",
            "macroman" | "mac-roman" => b"macintosh",
            _ => return None,
        };
        Encoding::for_label(alias)
    })
}

/// How many undecodable byte sequences get a diagnostic each; the rest are
/// counted in one more.
const MAX_REPORTED: usize = 10;

fn transcode<'a>(
    enc: &'static Encoding,
    bytes: &'a [u8],
    source: CharsetSource,
    mut diagnostics: Vec<Diagnostic>,
) -> Decoded<'a> {
    let borrowed = if enc == UTF_8 || (enc.is_ascii_compatible() && bytes.is_ascii()) {
        std::str::from_utf8(bytes).ok()
    } else {
        None
    };
    if let Some(text) = borrowed {
        return Decoded {
            text: Cow::Borrowed(text),
            charset: enc.name(),
            source,
            diagnostics,
        };
    }
    let mut decoder = enc.new_decoder_without_bom_handling();
    let mut out = String::with_capacity(
        decoder
            .max_utf8_buffer_length_without_replacement(bytes.len())
            .unwrap_or(bytes.len()),
    );
    let mut read = 0;
    let mut bad = 0usize;
    loop {
        let (result, n) =
            decoder.decode_to_string_without_replacement(&bytes[read..], &mut out, true);
        read += n;
        match result {
            DecoderResult::InputEmpty => break,
            DecoderResult::OutputFull => out.reserve(4 * (bytes.len() - read) + 16),
            DecoderResult::Malformed(len, extra) => {
                bad += 1;
                if bad <= MAX_REPORTED {
                    let at = read - usize::from(len) - usize::from(extra);
                    diagnostics.push(Diagnostic::new(
                        Severity::Warning,
                        code::UNDECODABLE_BYTES,
                        format!(
                            "{len} byte(s) at offset {at} of the file are not valid {}; replaced by U+FFFD",
                            enc.name()
                        ),
                        Span::new(out.len(), out.len() + '\u{fffd}'.len_utf8()),
                    ));
                }
                out.push('\u{fffd}');
            }
        }
    }
    if bad > MAX_REPORTED {
        diagnostics.push(Diagnostic::new(
            Severity::Warning,
            code::UNDECODABLE_BYTES,
            format!(
                "{} more undecodable byte sequences replaced by U+FFFD",
                bad - MAX_REPORTED
            ),
            Span::at(out.len()),
        ));
    }
    Decoded {
        text: Cow::Owned(out),
        charset: enc.name(),
        source,
        diagnostics,
    }
}

/// UTF-16 without a byte order mark: most of the first bytes alternate
/// between zero and ASCII. Returns the byte order.
fn sniff_utf16(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(256) & !1];
    if head.len() < 4 {
        return None;
    }
    let pairs = head.len() / 2;
    let zero_odd = head
        .chunks_exact(2)
        .filter(|p| p[1] == 0 && p[0] != 0)
        .count();
    let zero_even = head
        .chunks_exact(2)
        .filter(|p| p[0] == 0 && p[1] != 0)
        .count();
    if zero_odd * 4 >= pairs * 3 {
        Some(UTF_16LE)
    } else if zero_even * 4 >= pairs * 3 {
        Some(UTF_16BE)
    } else {
        None
    }
}

/// Byte range of the first value of `CA` in the first root node, if any.
pub(crate) fn declared_charset(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut p = 0;
    while !tree_start_at(bytes, p) {
        p += 1 + memchr::memchr(b'(', bytes.get(p + 1..)?)?;
    }
    // Past the `(`s and the `;` of the root node.
    p = skip_ws_at(bytes, p + 1);
    while bytes.get(p) == Some(&b'(') {
        p = skip_ws_at(bytes, p + 1);
    }
    if bytes.get(p) == Some(&b';') {
        p += 1;
    }
    loop {
        p = skip_ws_at(bytes, p);
        let start = p;
        while bytes.get(p).is_some_and(u8::is_ascii_alphabetic) {
            p += 1;
        }
        if p == start {
            return None; // end of the root node (or something unreadable)
        }
        let is_ca = bytes[start..p]
            .iter()
            .filter(|b| b.is_ascii_uppercase())
            .eq(b"CA".iter());
        p = skip_ws_at(bytes, p);
        while bytes.get(p) == Some(&b'[') {
            let close = find_close(bytes, p + 1)?;
            if is_ca {
                let value = &bytes[p + 1..close];
                let lead = value.iter().take_while(|&&b| is_ws(b)).count();
                return Some((p + 1 + lead, close));
            }
            p = skip_ws_at(bytes, close + 1);
        }
    }
}
