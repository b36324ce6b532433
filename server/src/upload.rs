//! Uploads: the bearer-token check and the per-game verdicts of a posted
//! record or collection.
//!
//! The body goes to the archive in one import, which reads and validates
//! every game tree once: its per-game outcomes say stored (with the new
//! id), duplicate (with the id of the game already stored) or invalid (with
//! the reason, ply and line:column), each with the validator's full verdict.

use std::net::IpAddr;

use actix_web::HttpRequest;
use actix_web::http::header;
use keil_archive::{Checked, Fate, GameOutcome, ImportOptions, ImportSource, NOT_SGF};

use crate::dto::{UploadDto, UploadVerdictDto};
use crate::error::ApiError;
use crate::state::ServerState;
use crate::tokens::{Token, bearer};

/// How many game trees of each outcome (stored, duplicate, refused) an
/// upload's answer lists in full; the counts cover them all.
pub const LISTED: usize = 100;

/// Authorises a write (`action`: `uploads`, `removals`, named in the
/// refusal): the archive must be writable, and `Authorization: Bearer
/// <token>` must name one of the server's tokens (re-read first if the
/// token file changed). Returns the token (its name and role) and the
/// client's address (behind `--trust-proxy`, the proxy's
/// `X-Forwarded-For`). A wrong token counts against the client's allowance
/// of wrong tokens ([`crate::limits::Limits::token_failed`]).
///
/// # Errors
/// [`ApiError::ReadOnly`] for a read-only archive;
/// [`ApiError::TooManyRequests`] for a client blocked for wrong tokens;
/// [`ApiError::WritesDisabled`] with no token configured;
/// [`ApiError::Unauthorized`] for a missing or wrong token.
pub(crate) fn authorize(
    req: &HttpRequest,
    state: &ServerState,
    action: &str,
) -> Result<(Token, IpAddr), ApiError> {
    if state.archive.is_read_only() {
        return Err(ApiError::ReadOnly);
    }
    let client = crate::limits::client_ip(req, state.limits.trust_proxy());
    state.limits.check_blocked(client)?;
    state.tokens.refresh();
    if !state.tokens.enabled() {
        return Err(ApiError::WritesDisabled);
    }
    let header_given = req.headers().contains_key(header::AUTHORIZATION);
    let Some(given) = bearer(req) else {
        return Err(ApiError::Unauthorized(if header_given {
            "the Authorization scheme must be Bearer".into()
        } else {
            format!("{action} need an Authorization: Bearer <token> header")
        }));
    };
    match state.tokens.check(given) {
        Some(token) => Ok((token, client)),
        None => {
            state.limits.token_failed(client)?;
            Err(ApiError::Unauthorized(
                "the bearer token is not valid".into(),
            ))
        }
    }
}

/// The answer for one game tree, from what the import did with it and the
/// verdict it kept.
fn verdict_dto(outcome: GameOutcome) -> UploadVerdictDto {
    let index = outcome.index();
    let verdict = match &outcome.checked {
        Checked::Verdict(v) => v.to_json(UPLOAD, index),
        Checked::RecordError(e) => e.to_json(UPLOAD),
        Checked::NotRead => serde_json::Value::Null,
    };
    let status = verdict
        .get("status")
        .and_then(|v| v.as_str())
        .unwrap_or("invalid")
        .to_string();
    let (outcome, http_status, id) = match outcome.fate {
        Fate::Stored { id, .. } => ("stored", 201, Some(id)),
        Fate::Duplicate { id, .. } => ("duplicate", 200, Some(id)),
        Fate::Merged { id, .. } => ("merged", 200, Some(id)),
        Fate::Invalid(p) => {
            return UploadVerdictDto {
                index,
                outcome: "invalid".into(),
                http_status: 422,
                id: None,
                status,
                reason: Some(p.reason),
                message: Some(p.message),
                ply: p.ply,
                mv: p.mv,
                line: p.line,
                column: p.column,
                verdict,
            };
        }
    };
    UploadVerdictDto {
        index,
        outcome: outcome.into(),
        http_status,
        id,
        status,
        reason: None,
        message: None,
        ply: None,
        mv: None,
        line: None,
        column: None,
        verdict,
    }
}

/// The file name the verdicts of an upload give (`keil validate --json`'s
/// `file`).
const UPLOAD: &str = "upload";

/// How much larger than the body limit an uploaded archive may unpack.
pub const UNPACKED_FACTOR: u64 = 8;

/// The container limits of an upload: at most [`UNPACKED_FACTOR`] times
/// the body limit unpacked (in all, and per member), at most the game-tree
/// limit of members, containers at most 3 deep (a `.tar.gz` in a zip).
pub(crate) fn upload_limits(state: &ServerState) -> keil_container::Limits {
    let unpacked = (state.max_upload as u64).saturating_mul(UNPACKED_FACTOR);
    keil_container::Limits {
        max_total_bytes: unpacked,
        max_member_bytes: unpacked,
        max_members: state.max_upload_games as u64,
        max_depth: 3,
    }
}

/// The body as import sources: itself when it is not an archive, else its
/// members (SGF text only; named `source!member`).
///
/// # Errors
/// [`ApiError::ArchiveLimit`] past `limits`; [`ApiError::NotSgf`] for an
/// archive that cannot be read.
fn unpack(
    source: &str,
    body: Vec<u8>,
    limits: keil_container::Limits,
) -> Result<Vec<ImportSource>, ApiError> {
    let expander = keil_container::Expander::new(limits, |_| false);
    let mut sources = Vec::new();
    let mut problem = None;
    expander.expand_bytes(source, body, &mut |member| match member {
        keil_container::Member::Bytes { name, bytes } => {
            sources.push(ImportSource::Bytes { name, bytes });
            true
        }
        keil_container::Member::Problem(p) => {
            problem = Some(p);
            false
        }
        keil_container::Member::File(_) => true,
    });
    match problem {
        Some(p) if p.reason == keil_container::ARCHIVE_LIMIT => Err(ApiError::ArchiveLimit(
            format!("{}: {}; nothing was stored", p.name, p.message),
        )),
        Some(p) => Err(ApiError::NotSgf(format!(
            "{}: {}; nothing was stored",
            p.name, p.message
        ))),
        None if sources.is_empty() => Err(ApiError::NotSgf(format!(
            "{source}: the archive holds no SGF game record; nothing was stored"
        ))),
        None => Ok(sources),
    }
}

/// The body as sent, without its `Content-Encoding`: `br` (brotli) and
/// `deflate` (zlib, RFC 9110 §8.4.1.2) are decoded here, to at most
/// `max_bytes`; `gzip` and `zstd` bodies are left to [`unpack`], which
/// tells them by content as it does for files; `identity` or none is the
/// body. A body encoded twice or in another coding is refused.
///
/// # Errors
/// [`ApiError::ArchiveLimit`] when the decoded body passes `max_bytes`;
/// [`ApiError::NotSgf`] for a coding not read or a body that does not
/// decode.
pub(crate) fn decode_content(
    encoding: Option<&str>,
    body: Vec<u8>,
    max_bytes: u64,
) -> Result<Vec<u8>, ApiError> {
    use std::io::Read;
    let coding = encoding.map(|e| e.trim().to_ascii_lowercase());
    let reader: Box<dyn Read + '_> = match coding.as_deref() {
        None | Some("" | "identity" | "gzip" | "x-gzip" | "zstd") => return Ok(body),
        Some("br") => Box::new(brotli::Decompressor::new(&body[..], 64 << 10)),
        Some("deflate") => Box::new(flate2::read::ZlibDecoder::new(&body[..])),
        Some(other) => {
            return Err(ApiError::NotSgf(format!(
                "Content-Encoding {other:?} is not read; send the body as is, or encoded with one of gzip, deflate, br, zstd; nothing was stored"
            )));
        }
    };
    let mut out = Vec::new();
    reader
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| {
            ApiError::NotSgf(format!(
                "the body does not decode as its Content-Encoding says: {e}; nothing was stored"
            ))
        })?;
    if out.len() as u64 > max_bytes {
        return Err(ApiError::ArchiveLimit(format!(
            "the body decodes to more than {max_bytes} bytes (8 times the upload limit); nothing was stored"
        )));
    }
    Ok(out)
}

/// The collection of the uploads made with the environment's one token
/// ([`crate::tokens::DEFAULT_NAME`]).
pub const UPLOADS: &str = "uploads";

/// Imports an upload and answers with counts per outcome and per refusal
/// reason and the first [`LISTED`] game trees of each outcome in full;
/// `source` names it in the import log, `uploader` is the token: the
/// refused records of an upload are kept ([`ImportOptions::keep_refused`])
/// when it is the operator's, and nothing of them but the refusal
/// otherwise. A body sent with a `Content-Encoding` is decoded first
/// ([`decode_content`]); a body that is an archive or a compressed file (a
/// zip, `Content-Encoding: gzip`, a `.tar.xz`: told by content) is unpacked, in memory, under
/// [`upload_limits`]. The body's game trees are counted next: past the
/// server's limit nothing is read further. Runs on the writer thread
/// ([`crate::work::write`]).
///
/// # Errors
/// [`ApiError::ArchiveLimit`] for an archive past [`upload_limits`];
/// [`ApiError::TooManyGameTrees`] past the limit;
/// [`ApiError::NotSgf`] for binary data or an archive that cannot be read; [`ApiError::Busy`] when another
/// import runs; [`ApiError::InsufficientStorage`] when the storage fills
/// (the detail counts what was stored before it); archive errors.
pub(crate) fn store(
    state: &ServerState,
    source: &str,
    body: Vec<u8>,
    encoding: Option<&str>,
    uploader: &Token,
) -> Result<UploadDto, ApiError> {
    let limits = upload_limits(state);
    let body = decode_content(encoding, body, limits.max_total_bytes)?;
    let sources = unpack(source, body, limits)?;
    // Counted on the decoded text without parsing it (keil-sgf's scan).
    let trees = sources
        .iter()
        .map(|s| match s {
            ImportSource::Bytes { bytes, .. } => {
                keil_sgf::count_trees(&keil_sgf::decode(bytes).text)
            }
            _ => 0,
        })
        .sum();
    if trees > state.max_upload_games {
        return Err(ApiError::TooManyGameTrees {
            trees,
            limit: state.max_upload_games,
        });
    }
    let options = ImportOptions {
        limits,
        outcomes: true,
        listed: Some(LISTED),
        uploader: Some(uploader.name.clone()),
        // An upload's games go to the collection of its token's name; the
        // one token of `KEIL_TOKEN` (named `default`) uploads to `uploads`.
        collection: Some(if uploader.name == crate::tokens::DEFAULT_NAME {
            UPLOADS.to_string()
        } else {
            uploader.name.clone()
        }),
        batch_size: state.upload_batch,
        keep_refused: uploader.operator,
        ..ImportOptions::default()
    };
    let report = state.archive.import(&sources, &options, &mut |_| {});
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            if let keil_archive::Error::Stopped { progress, .. } = &e
                && progress.imported > 0
            {
                state.home.clear();
                state.site.refresh(&state.archive);
            }
            return Err(e.into());
        }
    };
    if report.counts.imported > 0 {
        state.home.clear();
        state.site.refresh(&state.archive);
    }
    if let [p] = &report.invalid[..]
        && p.reason == NOT_SGF
        && report.counts.games_read == 1
    {
        return Err(ApiError::NotSgf(format!("the body is {}", p.message)));
    }
    let c = report.counts;
    let listed = report.outcomes.len() as u64;
    let games: Vec<UploadVerdictDto> = report.outcomes.into_iter().map(verdict_dto).collect();
    Ok(UploadDto {
        trees: c.games_read,
        stored: c.imported,
        duplicates: c.duplicates,
        merged: c.merged,
        invalid: c.invalid,
        reasons: report.reasons,
        truncated: listed < c.games_read,
        games,
    })
}
