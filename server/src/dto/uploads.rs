//! The answer to an upload: counts per outcome and per-game verdicts.

use keil_archive::GameId;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What happened to one uploaded game.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct UploadVerdictDto {
    /// 0-based index of the game tree in the body.
    pub index: usize,
    /// `stored`, `duplicate`, `merged` (another record of game `id`, kept
    /// with it) or `invalid`.
    pub outcome: String,
    /// The status code this game alone would get: 201, 200 or 422.
    pub http_status: u16,
    /// The stored game's id: the new game (`stored`) or the one already
    /// in the archive (`duplicate`).
    #[schema(value_type = Option<i64>)]
    pub id: Option<GameId>,
    /// The validator's status (`complete`, `resigned`, `invalid`, ... or
    /// `error` for a record that does not read).
    pub status: String,
    /// Why the game was refused: an illegal-move reason (`occupied`,
    /// `repetition`, ...) or a record error code (`not_keil`, ...).
    pub reason: Option<String>,
    /// A sentence saying what was wrong.
    pub message: Option<String>,
    /// The 1-based ply of the first illegal move.
    pub ply: Option<u32>,
    /// The illegal move as written (`B[g7]`).
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// Line of the fault in the body (1-based).
    pub line: Option<u32>,
    /// Column of the fault in the body (1-based).
    pub column: Option<u32>,
    /// The full verdict as `keil validate --json` prints it.
    #[schema(value_type = Object)]
    pub verdict: serde_json::Value,
}

/// The answer to an upload: counts per outcome and per refusal reason, and
/// the first 100 game trees of each outcome (stored, duplicate, refused)
/// in full. Its size does not grow with the body's game trees (at most
/// 10,000 per upload, `--max-upload-games`).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct UploadDto {
    /// Game trees read from the body.
    pub trees: u64,
    /// Games newly stored.
    pub stored: u64,
    /// Valid games already in the archive.
    pub duplicates: u64,
    /// Records of games already stored, with other headers (the same game
    /// signature): kept as another source's record of that game
    /// (`outcome` `merged`, `id` the game).
    pub merged: u64,
    /// Game trees refused.
    pub invalid: u64,
    /// Refused game trees per reason code (`occupied`, `empty_record`,
    /// ...), all of them counted.
    pub reasons: std::collections::BTreeMap<String, u64>,
    /// The first 100 game trees of each outcome, in body order.
    pub games: Vec<UploadVerdictDto>,
    /// True when some game trees are not listed in `games` (more than 100
    /// of one outcome); the counts cover them.
    pub truncated: bool,
}

/// A removal as the log keeps it (`DELETE /api/v1/games/{id}`).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RemovalDto {
    /// Its place in the removal sequence (1, 2, ...).
    pub seq: u64,
    /// The removed game's id (never given to another game).
    #[schema(value_type = i64)]
    pub game_id: GameId,
    /// When, RFC 3339 UTC (`2026-11-26T09:30:00.000Z`).
    pub removed_at: String,
    /// Who asked: the token's name and the client's address.
    pub removed_by: String,
    /// Why, as given (empty when none was).
    pub reason: String,
    /// The game as a person names it: `Black vs White, date, event`.
    pub what: String,
}

impl From<keil_archive::Removal> for RemovalDto {
    fn from(r: keil_archive::Removal) -> RemovalDto {
        RemovalDto {
            seq: r.seq,
            game_id: r.game_id,
            removed_at: r.removed_at,
            removed_by: r.removed_by,
            reason: r.reason,
            what: r.what,
        }
    }
}
