//! The crate's one error type, for callers that want a `Result`.

use std::fmt;

use crate::diag::{Diagnostic, code};
use crate::span::Span;

/// A limit of [`ParseOptions`](crate::ParseOptions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// [`ParseOptions::max_file_size`](crate::ParseOptions::max_file_size), bytes.
    FileSize,
    /// [`ParseOptions::max_value_len`](crate::ParseOptions::max_value_len), bytes.
    ValueLength,
    /// [`ParseOptions::max_nodes`](crate::ParseOptions::max_nodes), nodes per game tree.
    NodeCount,
    /// [`ParseOptions::max_depth`](crate::ParseOptions::max_depth), nested `(`.
    NestingDepth,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::FileSize => "file size",
            Limit::ValueLength => "value length",
            Limit::NodeCount => "node count",
            Limit::NestingDepth => "nesting depth",
        })
    }
}

/// A hard failure: what [`Collection::into_result`](crate::Collection::into_result)
/// returns for the first error-severity diagnostic.
///
/// Parsing itself never fails: it always yields a
/// [`Collection`](crate::Collection) with diagnostics. This type is for
/// callers that want to stop at the first error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Occurs when the input exceeds one of the limits of
    /// [`ParseOptions`](crate::ParseOptions) (file size, value length, node
    /// count, nesting depth).
    #[error("{limit} limit exceeded at bytes {span}: {message}")]
    LimitExceeded {
        /// Which limit.
        limit: Limit,
        /// Where it was exceeded, in bytes of the decoded text.
        span: Span,
        /// The diagnostic's message, with the numbers.
        message: String,
    },
    /// Occurs when the input is not readable SGF (no game tree, a value left
    /// open), when a charset problem was found, or, with
    /// [`ParseOptions::strict`](crate::ParseOptions::strict), when any rule of
    /// SGF FF\[4\] syntax is broken.
    #[error("{code} at bytes {span}: {message}")]
    Syntax {
        /// The diagnostic's code (see [`code`]).
        code: &'static str,
        /// Where, in bytes of the decoded text.
        span: Span,
        /// What is wrong.
        message: String,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<&Diagnostic> for Error {
    fn from(d: &Diagnostic) -> Error {
        let limit = match d.code {
            code::FILE_TOO_LARGE => Some(Limit::FileSize),
            code::VALUE_TOO_LONG => Some(Limit::ValueLength),
            code::TOO_MANY_NODES => Some(Limit::NodeCount),
            code::TOO_DEEP => Some(Limit::NestingDepth),
            _ => None,
        };
        match limit {
            Some(limit) => Error::LimitExceeded {
                limit,
                span: d.span,
                message: d.message.clone(),
            },
            None => Error::Syntax {
                code: d.code,
                span: d.span,
                message: d.message.clone(),
            },
        }
    }
}
