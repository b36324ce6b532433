//! Upload tokens: the token file (named tokens, one of them the
//! operator's), their constant-time check, and revocation by editing the
//! file (re-read on SIGHUP and when its modification time changes).
//!
//! The token file holds one entry per line; blank lines and lines starting
//! with `#` are skipped:
//!
//! ```text
//! # name   token                              role
//! alice    3f9c0a5e1b7d4c2a8e6f0b1d3c5a7e9f
//! ops      9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b   operator
//! ```
//!
//! A file of one bare token line (the format before named tokens) still
//! works: its token is named `default`. Every token has at least
//! [`MIN_TOKEN_LEN`] characters. The name (never the token) is recorded
//! with each upload's import (the games' `uploaded_by`).

use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::time::SystemTime;

use actix_web::HttpRequest;
use actix_web::http::header;
use subtle::ConstantTimeEq;

/// The shortest token accepted, in characters: 16 random characters of a
/// 64-letter alphabet are 96 bits, beyond guessing at any request rate.
pub const MIN_TOKEN_LEN: usize = 16;

/// The name given to a token without one (a bare token line, or the
/// `KEIL_TOKEN` environment variable).
pub const DEFAULT_NAME: &str = "default";

/// Why a token file or token is refused, with the file and the 1-based
/// line to fix.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// The file cannot be read.
    #[error("cannot read the token file {}: {source}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line does not parse, or breaks a rule (a short token, a name used
    /// twice, two operators, ...).
    #[error("token file {}, line {line}: {message}", file.display())]
    Line {
        /// The file (`KEIL_TOKEN` for the environment variable).
        file: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The file holds no token (empty, or only comments).
    #[error(
        "the token file {} holds no token: write one per line (`name token`, at least {MIN_TOKEN_LEN} characters), or drop --token-file to disable uploads",
        file.display()
    )]
    Empty {
        /// The file.
        file: PathBuf,
    },
}

/// One upload token: its name, whether it is the operator's, and the
/// BLAKE3 digest of the token (the token itself is not kept).
#[derive(Clone, Debug)]
pub struct Token {
    /// The name recorded with its uploads.
    pub name: String,
    /// Whether this is the operator's token: its uploads are not rate
    /// limited (bulk imports of the operator).
    pub operator: bool,
    digest: [u8; 32],
}

/// The tokens in force: parsed totally from a token file or one token.
#[derive(Clone, Debug, Default)]
pub struct TokenSet {
    tokens: Vec<Token>,
}

fn digest(s: &str) -> [u8; 32] {
    *blake3::hash(s.as_bytes()).as_bytes()
}

impl TokenSet {
    /// One token named [`DEFAULT_NAME`] (the `KEIL_TOKEN` environment
    /// variable, or [`crate::ServerOptions::token`]).
    ///
    /// # Errors
    /// [`TokenError::Line`] (line 1 of `origin`) for a token under
    /// [`MIN_TOKEN_LEN`] characters or holding white space.
    pub fn single(token: &str, origin: &Path) -> Result<TokenSet, TokenError> {
        check_token(token, origin, 1)?;
        Ok(TokenSet {
            tokens: vec![Token {
                name: DEFAULT_NAME.into(),
                operator: false,
                digest: digest(token),
            }],
        })
    }

    /// Parses a token file's text (see the module documentation): every
    /// line is checked, and the first fault is reported with its line.
    ///
    /// # Errors
    /// [`TokenError::Line`] for a line with more than three fields, a role
    /// other than `operator`, a name that is not 1-64 letters, digits,
    /// `-`, `_` or `.`, a token under [`MIN_TOKEN_LEN`] characters, a name
    /// or token used twice, a second operator, or a bare token beside
    /// other entries; [`TokenError::Empty`] when no line holds a token.
    pub fn parse(text: &str, file: &Path) -> Result<TokenSet, TokenError> {
        let err = |line: usize, message: String| TokenError::Line {
            file: file.to_path_buf(),
            line,
            message,
        };
        let mut set = TokenSet::default();
        let mut bare = None;
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (name, token, operator) = match fields[..] {
                [token] => {
                    bare = Some(n);
                    (DEFAULT_NAME, token, false)
                }
                [name, token] => (name, token, false),
                [name, token, "operator"] => (name, token, true),
                [_, _, role] => {
                    return Err(err(
                        n,
                        format!("unknown role {role:?}: the third field can only be `operator`"),
                    ));
                }
                _ => {
                    return Err(err(
                        n,
                        format!(
                            "{} fields: write `name token` or `name token operator`",
                            fields.len()
                        ),
                    ));
                }
            };
            let name_ok = (1..=64).contains(&name.len())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
            if !name_ok {
                return Err(err(
                    n,
                    format!("the name {name:?} must be 1-64 letters, digits, '-', '_' or '.'"),
                ));
            }
            check_token(token, file, n)?;
            if set.tokens.iter().any(|t| t.name == name) {
                return Err(err(n, format!("the name {name:?} is used twice")));
            }
            let d = digest(token);
            if set.tokens.iter().any(|t| bool::from(t.digest.ct_eq(&d))) {
                return Err(err(n, "this token is used twice".into()));
            }
            if operator && set.tokens.iter().any(|t| t.operator) {
                return Err(err(n, "a second operator: mark one token only".into()));
            }
            set.tokens.push(Token {
                name: name.into(),
                operator,
                digest: d,
            });
        }
        if let Some(n) = bare.filter(|_| set.tokens.len() > 1) {
            return Err(err(
                n,
                "a bare token among named ones: write `name token`".into(),
            ));
        }
        if set.tokens.is_empty() {
            return Err(TokenError::Empty {
                file: file.to_path_buf(),
            });
        }
        Ok(set)
    }

    /// Reads and parses a token file ([`TokenSet::parse`]).
    ///
    /// # Errors
    /// [`TokenError::Read`] when it cannot be read; as
    /// [`TokenSet::parse`].
    pub fn read(file: &Path) -> Result<TokenSet, TokenError> {
        let text = std::fs::read_to_string(file).map_err(|source| TokenError::Read {
            file: file.to_path_buf(),
            source,
        })?;
        TokenSet::parse(&text, file)
    }

    /// The token that `given` is, if any. Constant time in the tokens: the
    /// BLAKE3 digest of `given` is compared with every token's digest by
    /// `subtle`'s `ct_eq` (32 bytes each, no early exit), so neither where
    /// a guess differs nor the token's length shows in the time taken;
    /// hashing takes time in the length of `given` only, which the client
    /// knows.
    pub fn check(&self, given: &str) -> Option<&Token> {
        let d = digest(given);
        let mut found = None;
        for t in &self.tokens {
            if bool::from(t.digest.ct_eq(&d)) {
                found = Some(t);
            }
        }
        found
    }

    /// The number of tokens.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether there is no token (uploads disabled).
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
}

fn check_token(token: &str, file: &Path, line: usize) -> Result<(), TokenError> {
    let err = |message: String| TokenError::Line {
        file: file.to_path_buf(),
        line,
        message,
    };
    if token.chars().any(char::is_whitespace) {
        return Err(err("a token cannot hold white space".into()));
    }
    let n = token.chars().count();
    if n < MIN_TOKEN_LEN {
        return Err(err(format!(
            "the token has {n} characters; use at least {MIN_TOKEN_LEN} (e.g. `openssl rand -hex 16`)"
        )));
    }
    Ok(())
}

/// When the token file is readable by its group or others (mode & 0o077):
/// the warning to give. `None` when it is private, or on systems without
/// Unix modes.
pub fn permission_warning(file: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(file).ok()?.permissions().mode();
        (mode & 0o077 != 0).then(|| {
            format!(
                "the token file {} is readable by others (mode {:o}); run `chmod 600 {}`",
                file.display(),
                mode & 0o777,
                file.display()
            )
        })
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        None
    }
}

/// The tokens a server checks uploads against: fixed, or read from a file
/// and re-read when it changes ([`Tokens::refresh`], at each upload) or on
/// SIGHUP ([`Tokens::reload`]). A file that no longer parses disables
/// uploads (fail closed: a bad edit never keeps a revoked token) and is
/// logged.
#[derive(Debug)]
pub struct Tokens {
    file: Option<PathBuf>,
    state: RwLock<(TokenSet, Option<SystemTime>)>,
}

impl Tokens {
    /// Fixed tokens (none: uploads disabled).
    pub fn fixed(set: TokenSet) -> Tokens {
        Tokens {
            file: None,
            state: RwLock::new((set, None)),
        }
    }

    /// The tokens of `file`, read now.
    ///
    /// # Errors
    /// As [`TokenSet::read`].
    pub fn from_file(file: &Path) -> Result<Tokens, TokenError> {
        let mtime = modified(file);
        let set = TokenSet::read(file)?;
        Ok(Tokens {
            file: Some(file.to_path_buf()),
            state: RwLock::new((set, mtime)),
        })
    }

    /// Re-reads the file when its modification time changed since it was
    /// last read (one `stat`).
    pub fn refresh(&self) {
        let Some(file) = &self.file else { return };
        let now = modified(file);
        let seen = self.state.read().unwrap_or_else(|e| e.into_inner()).1;
        if now != seen {
            self.reload();
        }
    }

    /// Re-reads the file now (SIGHUP).
    pub fn reload(&self) {
        let Some(file) = &self.file else { return };
        let mtime = modified(file);
        let set = match TokenSet::read(file) {
            Ok(set) => {
                tracing::info!(file = %file.display(), tokens = set.len(), "token file read");
                set
            }
            Err(e) => {
                tracing::error!(error = %e, "uploads disabled until the token file is fixed");
                TokenSet::default()
            }
        };
        *self.state.write().unwrap_or_else(|e| e.into_inner()) = (set, mtime);
    }

    /// Whether uploads are enabled (some token in force).
    pub fn enabled(&self) -> bool {
        !self
            .state
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .0
            .is_empty()
    }

    /// Whether `given` is the operator's token.
    pub fn is_operator(&self, given: &str) -> bool {
        self.check(given).is_some_and(|t| t.operator)
    }

    /// The token that `given` is ([`TokenSet::check`]), cloned.
    pub fn check(&self, given: &str) -> Option<Token> {
        self.state
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .0
            .check(given)
            .cloned()
    }
}

fn modified(file: &Path) -> Option<SystemTime> {
    std::fs::metadata(file).and_then(|m| m.modified()).ok()
}

/// The bearer token of a request's `Authorization` header (`Bearer <token>`,
/// the scheme in either case), trimmed; `None` without one.
pub(crate) fn bearer(req: &HttpRequest) -> Option<&str> {
    let given = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    given
        .strip_prefix("Bearer ")
        .or_else(|| given.strip_prefix("bearer "))
        .map(str::trim)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "aaaaaaaaaaaaaaaa";
    const B: &str = "bbbbbbbbbbbbbbbbbbbb";

    fn parse(text: &str) -> Result<TokenSet, TokenError> {
        TokenSet::parse(text, Path::new("tokens"))
    }

    fn line_of(text: &str) -> usize {
        match parse(text) {
            Err(TokenError::Line { line, .. }) => line,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn named_tokens_parse_with_comments_and_one_operator() {
        let set = parse(&format!("# tokens\n\nalice {A}\n ops {B} operator \n")).unwrap();
        assert_eq!(set.len(), 2);
        let a = set.check(A).unwrap();
        assert_eq!((a.name.as_str(), a.operator), ("alice", false));
        assert!(set.check(B).unwrap().operator);
        assert!(
            set.check("aaaaaaaaaaaaaaa").is_none(),
            "a prefix is not the token"
        );
        assert!(set.check(&format!("{A}a")).is_none());
        assert!(set.check("").is_none());
    }

    #[test]
    fn a_bare_token_is_named_default() {
        let set = parse(&format!("{A}\n")).unwrap();
        assert_eq!(set.check(A).unwrap().name, DEFAULT_NAME);
    }

    #[test]
    fn faults_name_their_line() {
        assert_eq!(line_of(&format!("# c\nalice {A}\nbob short\n")), 3);
        assert_eq!(line_of(&format!("alice {A} admin\n")), 1);
        assert_eq!(line_of(&format!("a {A}\na {B}\n")), 2);
        assert_eq!(line_of(&format!("a {A}\nb {A}\n")), 2);
        assert_eq!(line_of(&format!("a {A} operator\nb {B} operator\n")), 2);
        assert_eq!(line_of(&format!("{A}\nb {B}\n")), 1);
        assert_eq!(line_of("a b c d\n"), 1);
        assert_eq!(line_of(&format!("al/ice {A}\n")), 1);
        assert_eq!(line_of("short\n"), 1);
        assert!(matches!(parse("# only\n\n"), Err(TokenError::Empty { .. })));
        assert!(matches!(parse(""), Err(TokenError::Empty { .. })));
        let e = parse("x short\n").unwrap_err().to_string();
        assert!(e.contains("tokens, line 1") && e.contains("16"), "{e}");
    }
}
