//! Uploads: the bearer-token check and the per-game verdicts of a posted
//! record or collection.
//!
//! The body goes to the archive in one import, which reads and validates
//! every game tree once: its per-game outcomes say stored (with the new
//! id), duplicate (with the id of the game already stored) or invalid (with
//! the reason, ply and line:column), each with the validator's full verdict.

use actix_web::HttpRequest;
use actix_web::http::header;
use keil_archive::{Checked, Fate, GameOutcome, ImportOptions, ImportSource};

use crate::ServerState;
use crate::dto::{UploadDto, UploadVerdictDto};
use crate::error::ApiError;

/// Checks `Authorization: Bearer <token>` against the configured token.
///
/// # Errors
/// [`ApiError::WritesDisabled`] with no token configured;
/// [`ApiError::Unauthorized`] for a missing or wrong token.
pub(crate) fn authorize(req: &HttpRequest, token: Option<&str>) -> Result<(), ApiError> {
    let Some(token) = token else {
        return Err(ApiError::WritesDisabled);
    };
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| {
            ApiError::Unauthorized("uploads need an Authorization: Bearer <token> header".into())
        })?;
    let given = given
        .strip_prefix("Bearer ")
        .or_else(|| given.strip_prefix("bearer "))
        .ok_or_else(|| ApiError::Unauthorized("the Authorization scheme must be Bearer".into()))?;
    if !same(given.trim().as_bytes(), token.as_bytes()) {
        return Err(ApiError::Unauthorized(
            "the bearer token is not valid".into(),
        ));
    }
    Ok(())
}

/// Compares in time independent of where the inputs differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
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

/// Imports an upload and answers with a verdict per game tree; `source`
/// names it in the import log. One import reads, validates and stores the
/// body (the archive's verdict pipeline): its outcomes carry the verdicts.
/// Runs on the writer thread ([`crate::work::write`]).
///
/// # Errors
/// [`ApiError::Busy`] when another import runs; archive errors.
pub(crate) fn store(state: &ServerState, source: &str, body: &[u8]) -> Result<UploadDto, ApiError> {
    let sources = [ImportSource::Bytes {
        name: source.to_string(),
        bytes: body.to_vec(),
    }];
    let options = ImportOptions {
        outcomes: true,
        ..ImportOptions::default()
    };
    let report = state.archive.import(&sources, &options, &mut |_| {})?;
    if report.counts.imported > 0 {
        state.home.clear();
    }
    let games: Vec<UploadVerdictDto> = report.outcomes.into_iter().map(verdict_dto).collect();
    let count = |o: &str| games.iter().filter(|g| g.outcome == o).count() as u64;
    Ok(UploadDto {
        stored: count("stored"),
        duplicates: count("duplicate"),
        invalid: count("invalid"),
        games,
    })
}

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn token_comparison_needs_every_byte() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
        assert!(!same(b"", b"a"));
    }
}
