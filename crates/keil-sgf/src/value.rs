//! Property values: raw text between the brackets, and its readings as SGF
//! Text, SimpleText and Compose.

use std::borrow::Cow;
use std::fmt;

use crate::span::Span;

/// One property value: the text between `[` and `]`, exactly as written.
///
/// `raw` still has its escapes (`\]`, `\\`, `\:`) and soft line breaks; read
/// it with [`text`](PropValue::text), [`simple_text`](PropValue::simple_text)
/// or [`split_composed`](PropValue::split_composed). Values borrow from the
/// parsed text; owned ones come from [`PropValue::from_text`].
///
/// Equality compares `raw` only, not the span.
#[derive(Clone)]
pub struct PropValue<'a> {
    /// The bytes between the brackets (SGF FF\[4\] `CValueType`), escapes not
    /// yet applied. Must not contain an unescaped `]` nor end in a lone `\`
    /// (the writer repairs both by escaping).
    pub raw: Cow<'a, str>,
    /// Where `raw` is, in bytes of the decoded text (the brackets excluded).
    /// Default (`0..0`) for values built in code.
    pub span: Span,
}

impl<'a> PropValue<'a> {
    /// A value from its raw (escaped) form.
    pub fn from_raw(raw: impl Into<Cow<'a, str>>) -> PropValue<'a> {
        PropValue {
            raw: raw.into(),
            span: Span::default(),
        }
    }

    /// A value that reads back as `text`: escapes `\` and `]` (SGF FF\[4\]
    /// Text and SimpleText escaping).
    pub fn from_text(text: &'a str) -> PropValue<'a> {
        PropValue::from_raw(escape(text, false))
    }

    /// A composed value `a:b` (SGF FF\[4\] Compose) whose halves read back as
    /// `a` and `b`: escapes `\`, `]` and `:` in each half.
    pub fn from_composed(a: &str, b: &str) -> PropValue<'static> {
        let mut raw = escape(a, true).into_owned();
        raw.push(':');
        raw.push_str(&escape(b, true));
        PropValue::from_raw(raw)
    }

    /// True when the value is empty (`[]`).
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// The value read as SGF FF\[4\] Text: soft line breaks (`\` + line break)
    /// removed, escapes applied (`\x` → `x`), line breaks kept (each of
    /// `\r\n`, `\n\r`, `\r` becomes `\n`), other white space (tab, vertical
    /// tab, form feed) turned into a space as FF\[4\] says. Borrows when
    /// nothing changes.
    pub fn text(&self) -> Cow<'_, str> {
        unescape(&self.raw, false)
    }

    /// [`text`](Self::text), keeping the lifetime of the raw text: borrows
    /// from it when nothing changes (handy for values returned by value
    /// from a tree's views).
    pub fn into_text(self) -> Cow<'a, str> {
        match self.raw {
            Cow::Borrowed(raw) => unescape(raw, false),
            Cow::Owned(raw) => Cow::Owned(unescape(&raw, false).into_owned()),
        }
    }

    /// The value read as SGF FF\[4\] SimpleText: like [`text`](Self::text),
    /// but line breaks that are not escaped become spaces too.
    pub fn simple_text(&self) -> Cow<'_, str> {
        unescape(&self.raw, true)
    }

    /// Split a composed value `a:b` (SGF FF\[4\] Compose, e.g. `AR[aa:bb]`,
    /// `LB[dd:label]`) at its first `:` that is not escaped. The halves keep
    /// their escapes (read them with [`text`](Self::text) or
    /// [`simple_text`](Self::simple_text)) and get their own spans. `None`
    /// when there is no such `:`.
    pub fn split_composed(&self) -> Option<(PropValue<'a>, PropValue<'a>)> {
        let bytes = self.raw.as_bytes();
        let mut i = 0;
        let colon = loop {
            let k = memchr::memchr2(b':', b'\\', &bytes[i..])?;
            match bytes[i + k] {
                b':' => break i + k,
                _ => i += k + 2,
            }
            if i >= bytes.len() {
                return None;
            }
        };
        let (left_span, right_span) = if self.span == Span::default() {
            (Span::default(), Span::default())
        } else {
            (
                Span::new(self.span.start, self.span.start + colon),
                Span::new(self.span.start + colon + 1, self.span.end),
            )
        };
        let (left, right) = match &self.raw {
            Cow::Borrowed(s) => (Cow::Borrowed(&s[..colon]), Cow::Borrowed(&s[colon + 1..])),
            Cow::Owned(s) => (
                Cow::Owned(s[..colon].to_owned()),
                Cow::Owned(s[colon + 1..].to_owned()),
            ),
        };
        Some((
            PropValue {
                raw: left,
                span: left_span,
            },
            PropValue {
                raw: right,
                span: right_span,
            },
        ))
    }

    /// A copy that owns its text, so it no longer borrows the input.
    pub fn into_owned(self) -> PropValue<'static> {
        PropValue {
            raw: Cow::Owned(self.raw.into_owned()),
            span: self.span,
        }
    }
}

impl PartialEq for PropValue<'_> {
    /// Equal when written the same (see [`canonical`]); spans are ignored.
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw || canonical(&self.raw) == canonical(&other.raw)
    }
}

/// The raw form as the writer writes it: a `]` that is not escaped becomes
/// `\]` and a final lone `\` is doubled. Borrows when nothing changes,
/// which is always the case for values read by the parser without repair.
pub fn canonical(raw: &str) -> Cow<'_, str> {
    let bytes = raw.as_bytes();
    let Some(first) = memchr::memchr2(b']', b'\\', bytes) else {
        return Cow::Borrowed(raw);
    };
    // Find whether anything needs changing before allocating.
    let mut i = first;
    let clean = loop {
        match memchr::memchr2(b']', b'\\', &bytes[i..]) {
            None => break true,
            Some(k) if bytes[i + k] == b']' => break false,
            Some(k) if i + k + 1 == bytes.len() => break false,
            Some(k) => i += k + 2,
        }
        if i >= bytes.len() {
            break true;
        }
    };
    if clean {
        return Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len() + 4);
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push('\\');
                out.push(chars.next().unwrap_or('\\'));
            }
            ']' => out.push_str("\\]"),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

impl Eq for PropValue<'_> {}

impl fmt::Debug for PropValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{:?} @{}]", self.raw, self.span)
    }
}

/// Escape `\` and `]` (and `:` when `colon`) so the text reads back unchanged.
pub fn escape(text: &str, colon: bool) -> Cow<'_, str> {
    let special = |c: char| c == '\\' || c == ']' || (colon && c == ':');
    if !text.contains(special) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if special(c) {
            out.push('\\');
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// Apply SGF FF\[4\] Text (or, with `simple`, SimpleText) rules to a raw value:
/// see [`PropValue::text`] and [`PropValue::simple_text`].
pub fn unescape(raw: &str, simple: bool) -> Cow<'_, str> {
    let needs_work = raw
        .bytes()
        .any(|b| matches!(b, b'\\' | b'\r' | b'\t' | 0x0b | 0x0c) || (simple && b == b'\n'));
    if !needs_work {
        return Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                // Soft line break: the escaped line break (one of \n, \r,
                // \r\n, \n\r) is removed.
                Some(b @ ('\n' | '\r')) => {
                    let other = if b == '\n' { '\r' } else { '\n' };
                    if chars.peek() == Some(&other) {
                        chars.next();
                    }
                }
                Some('\t' | '\x0b' | '\x0c') => out.push(' '),
                Some(x) => out.push(x),
                None => {}
            },
            '\n' | '\r' => {
                let other = if c == '\n' { '\r' } else { '\n' };
                if chars.peek() == Some(&other) {
                    chars.next();
                }
                out.push(if simple { ' ' } else { '\n' });
            }
            '\t' | '\x0b' | '\x0c' => out.push(' '),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}
