//! Uploads: the bearer-token check and the per-game verdicts of a posted
//! record or collection.
//!
//! Every game tree is read and validated here first (for the verdict with
//! reason, ply and line:column); the valid ones go to the archive in one
//! import whose per-game outcomes say stored (with the new id) or duplicate
//! (with the id of the game already stored).

use actix_web::HttpRequest;
use actix_web::http::header;
use keil_archive::{GameOutcome, ImportOptions, ImportSource};

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

fn refused(index: usize, verdict: serde_json::Value) -> UploadVerdictDto {
    let s = |k: &str| verdict.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let n = |k: &str| verdict.get(k).and_then(|v| v.as_u64()).map(|v| v as u32);
    UploadVerdictDto {
        index,
        outcome: "invalid".into(),
        http_status: 422,
        id: None,
        status: s("status").unwrap_or_else(|| "invalid".into()),
        reason: s("reason").or_else(|| s("error")),
        message: s("message"),
        ply: n("ply"),
        mv: s("move"),
        line: n("line"),
        column: n("column"),
        verdict,
    }
}

/// Reads, validates and imports an upload; `source` names it in the import
/// log. Runs on the blocking pool.
///
/// # Errors
/// [`ApiError::Busy`] when another import runs; archive errors.
pub(crate) fn store(state: &ServerState, source: &str, body: &[u8]) -> Result<UploadDto, ApiError> {
    let mut games: Vec<UploadVerdictDto> = Vec::new();
    // The valid games: their index in `games` and normalised record.
    let mut valid: Vec<(usize, String)> = Vec::new();
    for (i, read) in keil_record::read_records(body).into_iter().enumerate() {
        match read {
            Err(e) => games.push(refused(i, e.to_json("upload"))),
            Ok(record) => {
                let verdict = keil_record::validate(&record).verdict;
                let json = verdict.to_json("upload", i);
                if let Some(ill) = verdict.illegal.as_ref().filter(|_| !verdict.is_valid()) {
                    let mut v = refused(i, json);
                    v.message = Some(format!(
                        "ply {}: {} is illegal ({}) at line {}, column {}",
                        ill.ply,
                        ill.mv,
                        ill.reason.code(),
                        ill.line,
                        ill.column
                    ));
                    games.push(v);
                } else if !verdict.is_valid() {
                    let mut v = refused(i, json);
                    v.message = Some(format!("the game is {}", verdict.status.code()));
                    games.push(v);
                } else {
                    valid.push((games.len(), record.to_sgf()));
                    games.push(UploadVerdictDto {
                        index: i,
                        outcome: String::new(),
                        http_status: 0,
                        id: None,
                        status: verdict.status.code().to_string(),
                        reason: None,
                        message: None,
                        ply: None,
                        mv: None,
                        line: None,
                        column: None,
                        verdict: json,
                    });
                }
            }
        }
    }

    if !valid.is_empty() {
        let mut collection = String::new();
        for (_, sgf) in &valid {
            collection.push_str(sgf);
            collection.push('\n');
        }
        let sources = [ImportSource::Bytes {
            name: source.to_string(),
            bytes: collection.into_bytes(),
        }];
        let options = ImportOptions {
            outcomes: true,
            ..ImportOptions::default()
        };
        let _writer = state.writer.lock().unwrap_or_else(|e| e.into_inner());
        let report = state.archive.import(&sources, &options, &mut |_| {})?;
        // One collection of the valid games, in order: outcome i is valid[i].
        for ((at, _), outcome) in valid.iter().zip(report.outcomes) {
            let g = &mut games[*at];
            match outcome {
                GameOutcome::Stored { id, .. } => {
                    g.outcome = "stored".into();
                    g.http_status = 201;
                    g.id = Some(id);
                }
                GameOutcome::Duplicate { id, .. } => {
                    g.outcome = "duplicate".into();
                    g.http_status = 200;
                    g.id = Some(id);
                }
                GameOutcome::Invalid(p) => {
                    g.outcome = "invalid".into();
                    g.http_status = 422;
                    g.reason = Some(p.reason);
                    g.message = Some(p.message);
                    g.ply = p.ply;
                }
            }
        }
    }
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
