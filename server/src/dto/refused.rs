//! Refused records kept by the archive: the list and one record with its
//! verdict (`GET /api/v1/refused`, `GET /api/v1/refused/{id}`).

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// `GET /api/v1/refused` query: filters and the keyset page.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RefusedQuery {
    /// Only the records of this import (its id in the import log).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([1-9][0-9]{0,17}|[1-8][0-9]{18}|9[0-1][0-9]{17}|92[0-1][0-9]{16}|922[0-2][0-9]{15}|9223[0-2][0-9]{14}|92233[0-6][0-9]{13}|922337[0-1][0-9]{12}|92233720[0-2][0-9]{10}|922337203[0-5][0-9]{9}|9223372036[0-7][0-9]{8}|92233720368[0-4][0-9]{7}|922337203685[0-3][0-9]{6}|9223372036854[0-6][0-9]{5}|92233720368547[0-6][0-9]{4}|922337203685477[0-4][0-9]{3}|9223372036854775[0-7][0-9]{2}|922337203685477580[0-6]|9223372036854775807))?\s*$")]
    pub import: Option<String>,
    /// Only the records refused for this reason code (`repetition`,
    /// `occupied`, `self_capture`, `wrong_player`, `board_size`, ...):
    /// lowercase letters and `_`.
    #[param(value_type = Option<String>, pattern = r"^\s*([a-z_]{1,40})?\s*$")]
    pub reason: Option<String>,
    /// Only the records of this game: `keil`, `go` or `kaomi`.
    #[param(value_type = Option<String>, pattern = r"^\s*([Kk][Ee][Ii][Ll]|[Gg][Oo]|[Kk][Aa][Oo][Mm][Ii])?\s*$")]
    pub kind: Option<String>,
    /// Only the records of this board size (`SZ`), 0 to 255 (the number
    /// `params::parse_size` reads, as the game list's `size`).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([0-9]{1,2}|1[0-9]{2}|2[0-4][0-9]|25[0-5]))?\s*$")]
    pub size: Option<String>,
    /// `newest` (the latest refused first, the default) or `id`
    /// (ascending ids).
    #[param(value_type = Option<String>, pattern = r"^\s*(newest|id)?\s*$")]
    pub order: Option<String>,
    /// Records per page, 1 to 1000 (default 50).
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([1-9][0-9]{0,2}|1000))?\s*$")]
    pub limit: Option<String>,
    /// The `next` of the previous page: the page starts after this id.
    #[param(value_type = Option<String>, pattern = r"^\s*(0*([1-9][0-9]{0,17}|[1-8][0-9]{18}|9[0-1][0-9]{17}|92[0-1][0-9]{16}|922[0-2][0-9]{15}|9223[0-2][0-9]{14}|92233[0-6][0-9]{13}|922337[0-1][0-9]{12}|92233720[0-2][0-9]{10}|922337203[0-5][0-9]{9}|9223372036[0-7][0-9]{8}|92233720368[0-4][0-9]{7}|922337203685[0-3][0-9]{6}|9223372036854[0-6][0-9]{5}|92233720368547[0-6][0-9]{4}|922337203685477[0-4][0-9]{3}|9223372036854775[0-7][0-9]{2}|922337203685477580[0-6]|9223372036854775807))?\s*$")]
    pub after: Option<String>,
}

/// A kept refused record: where it came from and why it was refused.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RefusedDto {
    /// Its id (`GET /api/v1/refused/{id}`).
    pub id: u64,
    /// The import that refused it.
    pub import_id: u64,
    /// When that import started (RFC 3339, UTC).
    pub refused_at: String,
    /// The file or archive member it came from.
    pub source: String,
    /// 0-based index of the game tree in its source.
    pub index: usize,
    /// The reason code.
    pub reason: String,
    /// The explanation, with the line and column.
    pub message: String,
    /// The 1-based ply of the refused move, if any.
    pub ply: Option<u32>,
    /// The refused move as written (`W[dd]`), if any.
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// The line of the fault in the source (1-based).
    pub line: Option<u32>,
    /// The column of the fault (1-based, in characters).
    pub column: Option<u32>,
    /// The game the record says: `keil`, `go` or `kaomi`.
    pub kind: Option<String>,
    /// The board size the record says (`SZ`).
    pub size: Option<u32>,
}

impl From<keil_archive::RefusedSummary> for RefusedDto {
    fn from(r: keil_archive::RefusedSummary) -> RefusedDto {
        RefusedDto {
            id: r.id.get(),
            import_id: r.import_id.get(),
            refused_at: r.refused_at,
            source: r.source,
            index: r.index,
            reason: r.reason,
            message: r.message,
            ply: r.ply,
            mv: r.mv,
            line: r.line,
            column: r.column,
            kind: r.kind,
            size: r.size,
        }
    }
}

/// One page of kept refused records.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RefusedListDto {
    /// The records, in the order asked for.
    pub refused: Vec<RefusedDto>,
    /// The `after` of the next page; absent on the last page.
    pub next: Option<String>,
}

/// A kept refused record with its text and its verdict in words.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RefusedRecordDto {
    /// Where it came from and why it was refused.
    #[serde(flatten)]
    pub refused: RefusedDto,
    /// Why, in words a player reads ("White retakes the ko at move 213
    /// without a move elsewhere first").
    pub verdict: String,
    /// The game tree's text as it came (SGF).
    pub record: String,
}
