//! What the archive says of refused records (`super`'s logic; the rows
//! in `store/refused.rs`, which reads and writes these types): a kept
//! record's summary, a list's filter and page, the line a viewer replays,
//! and what an import keeps of a refused game tree.

use keil_rules::{Color, Move};
use serde::Serialize;

use crate::ids::ImportId;
use crate::ids::RefusedId;
use crate::kind::GameKind;
use crate::model::GameMoves;

/// Most refused records one page lists.
pub const MAX_REFUSED_PAGE: usize = 1_000;

/// A kept refused record: where it came from and why it was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RefusedSummary {
    /// Its id (its row in the import log's refusals).
    pub id: RefusedId,
    /// The import that refused it.
    pub import_id: ImportId,
    /// When that import started, RFC 3339 UTC.
    pub refused_at: String,
    /// The file or archive member (`a.zip!dir/x.sgf`; `-` for standard
    /// input, or the name given to bytes).
    pub source: String,
    /// 0-based index of the game tree in its source.
    pub index: usize,
    /// The reason code (`keil_archive::Problem::reason`: `repetition`,
    /// `occupied`, `suicide`, `wrong_player`, `board_size`, ...).
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
    /// The game the record says (`keil`, `go`, `kaomi`), when it says one
    /// this archive knows.
    pub kind: Option<String>,
    /// The board size the record says (`SZ`: the square's side, or the
    /// hexagon's), when it says one.
    pub size: Option<u32>,
}

/// A kept refused record with its text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RefusedRecord {
    /// Where it came from and why it was refused.
    #[serde(flatten)]
    pub summary: RefusedSummary,
    /// The game tree's text as it came (`(;GM[1]…)`), decoded to UTF-8.
    pub record: String,
}

/// The order of a refused list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RefusedOrder {
    /// The latest refused first (descending ids).
    #[default]
    Newest,
    /// Ascending ids.
    Id,
}

/// Which kept refused records a list holds, and from where.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RefusedFilter {
    /// Only those of this import.
    pub import: Option<ImportId>,
    /// Only those refused for this reason code.
    pub reason: Option<String>,
    /// Only those of this game kind.
    pub kind: Option<GameKind>,
    /// Only those of this board size.
    pub size: Option<u32>,
    /// The order.
    pub order: RefusedOrder,
    /// The keyset cursor: the page starts after this id in `order`.
    pub after: Option<RefusedId>,
}

/// One page of kept refused records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RefusedPage {
    /// The records, in the filter's order.
    pub items: Vec<RefusedSummary>,
    /// The cursor of the next page (`after`), `None` on the last page.
    pub next: Option<RefusedId>,
}

/// A kept refused record's main line up to its refused move, for a viewer
/// (`keil_archive::Archive::refused_line`).
#[derive(Clone, Debug)]
pub struct RefusedLine {
    /// The legal moves of the main line before the refused one, ready to
    /// replay; its `id` is the refused record's number, not a game's.
    pub moves: GameMoves,
    /// The refused move: its player and the point it names, when it names
    /// one on the board (none for a pass, a move off the board, a
    /// refusal that is no move).
    pub refused: Option<(Color, Move)>,
    /// The player of the refused move (or of the ply a refusal names).
    pub color: Option<Color>,
    /// For a repetition: the earlier plies whose position the refused
    /// move recreates (Go's simple ko: the ply two before), 0 for the
    /// start; empty otherwise.
    pub repeats_plies: Vec<u32>,
}

/// What an import keeps of a refused game tree: its text as it came, and
/// the game kind and board size its root says.
#[derive(Clone, Debug)]
pub struct Kept {
    /// The game tree's text, `(` to `)`.
    pub text: String,
    /// The kind code, when the root names one this archive knows.
    pub kind: Option<&'static str>,
    /// `SZ`'s first number, when there is one.
    pub size: Option<u32>,
}

impl Kept {
    /// Game tree `tree` of `file` as it came; `hint` reads a root
    /// without `GM` as the import does.
    pub fn of_tree(
        file: &keil_record::ParsedFile<'_>,
        tree: usize,
        hint: keil_record::NameHint,
    ) -> Option<Kept> {
        let t = file.trees().get(tree)?;
        let span = t.span();
        let text = file.text().get(span.start..span.end)?.to_string();
        let root = t.root();
        let value = |id: &str| root.value(id).map(|v| v.simple_text().trim().to_string());
        let kind = match value("GM") {
            Some(gm) if gm.eq_ignore_ascii_case("keil") => Some(GameKind::Keil),
            Some(gm) if gm.eq_ignore_ascii_case("kaomi") => Some(GameKind::Kaomi),
            Some(gm) if gm.parse::<u32>() == Ok(1) => Some(GameKind::Go),
            Some(_) => None,
            None => {
                let ru = value("RU").unwrap_or_default().to_ascii_lowercase();
                Some(if ru.starts_with("keil") {
                    GameKind::Keil
                } else if ru.starts_with("kaomi") {
                    GameKind::Kaomi
                } else {
                    match hint {
                        keil_record::NameHint::Keil => GameKind::Keil,
                        keil_record::NameHint::Kaomi => GameKind::Kaomi,
                        _ => GameKind::Go,
                    }
                })
            }
        };
        let size = value("SZ").and_then(|sz| {
            let first = sz.split(':').next().unwrap_or("").trim();
            first.parse::<u32>().ok()
        });
        Some(Kept {
            text,
            kind: kind.map(GameKind::code),
            size,
        })
    }

    /// The first 16 bytes of the BLAKE3 hash of the text: the same
    /// refused record is kept once.
    pub fn hash(&self) -> [u8; 16] {
        let mut hash = [0u8; 16];
        hash.copy_from_slice(&blake3::hash(self.text.as_bytes()).as_bytes()[..16]);
        hash
    }
}

/// Why a game is not stored.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// The file (`-` for standard input, or the name given to bytes).
    pub source: String,
    /// 0-based index of the game tree in its file.
    pub index: usize,
    /// A verdict code (`occupied`, `repetition`, `result_mismatch`, ...),
    /// a keil-record error code (`bad_size`, ...) for a record that could
    /// not be read, `setup_in_game` for a Go game with setup after its
    /// first move (not stored yet), `empty_record` for a game tree with
    /// nothing of a game (`EMPTY_RECORD`), `not_sgf` for a source that is
    /// binary data (`NOT_SGF`), `unreadable` for a file
    /// that could not be read, `removed` for a record of a game the
    /// operator removed (`REMOVED`).
    pub reason: String,
    /// The explanation, with the line and column when there are some.
    pub message: String,
    /// The 1-based ply of the first illegal move, if any (none for a result
    /// mismatch, as in `keil validate --json`).
    pub ply: Option<u32>,
    /// The illegal move as written (`W[b2]`), if any.
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// The line of the fault in the file (1-based): the illegal move's
    /// node, the root for a result mismatch, the value at fault for a record
    /// that could not be read.
    pub line: Option<u32>,
    /// The column of the fault (1-based, in characters).
    pub column: Option<u32>,
}
