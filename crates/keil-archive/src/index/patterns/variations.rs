//! Pattern search in variations (Kombilo's "search in variations",
//! `variations=true`): the indexes hold main lines only, so a search that
//! asks for variations reads every stored record of the board, replays each
//! variation line (from the root, through the node where it leaves its
//! parent line, then first children to its end; up to its first illegal
//! move) into a pattern index of its own, and scans it with the search's
//! placements.
//!
//! A variation's hits are those of its line whose first match lies at or
//! after the variation's first node (a match on the part it shares with
//! its parent line is the parent's). Like a main line, a line counts a
//! placement once, at its first match.
//!
//! **Cost.** Every record is read and decompressed, and those that hold a
//! `(` after their first byte are parsed and validated: the time grows
//! with the archive (a few microseconds a game without variations), so on
//! a large archive such a search may run into the query budget.

use keil_rules::Move;
use keil_sgf::NodeId;

use super::index::{Group, Line, Scratch, continuation};
use super::placement::Placements;
use super::{events, regions};
use crate::error::Result;
use keil_store::Read;
use keil_store::budget::Budget;
use keil_store::ids::GameId;
use keil_store::model::GameMoves;

/// A variation line of a stored game.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Variation {
    /// The game's index in the main group.
    pub game: u32,
    /// The variation's number: 1-based, in the validator's order (the
    /// file's), as the game viewer's `var` parameter takes it.
    pub number: u32,
    /// Each move's node (the SGF node's depth from the root).
    pub nodes: Box<[u32]>,
}

impl Variation {
    /// The number of moves played by the end of node `t`.
    pub(crate) fn ply_at(&self, t: u16) -> u32 {
        super::index::plies_by(&self.nodes, t)
    }
}

/// A variation's hit: its line (an index into the variations found), the
/// placement, its first node and continuation.
pub(super) type Hit = (u32, u32, u16, regions::Next);

/// A variation line read from a record, before its game's start is known.
struct LineRead {
    id: GameId,
    number: u32,
    /// The node where the variation leaves its parent line.
    first_node: u32,
    moves: Vec<(keil_rules::Color, Move)>,
    nodes: Vec<u32>,
}

/// The variation lines of every stored game of `group`'s board and their
/// hits for `placements`.
///
/// # Errors
/// [`crate::Error::OverBudget`] when `budget` is spent; storage errors;
/// [`crate::Error::Corrupt`] for a stored record that does not decompress.
pub(super) fn search(
    conn: Read<'_>,
    group: &Group,
    placements: &Placements,
    budget: &Budget,
) -> Result<(Vec<Variation>, Vec<Hit>)> {
    let read = read_lines(conn, group, budget)?;
    budget.check()?;
    let (lines, own, first_nodes) = build(conn, group, read)?;
    let mut found = Vec::new();
    let mut scratch = Scratch::default();
    for b in 0..own.blocks() {
        budget.check()?;
        own.scan_block(
            b,
            &placements.list,
            &placements.groups,
            &mut scratch,
            &mut found,
        );
    }
    found.sort_unstable();
    let mut tables: Vec<Option<Box<[u16]>>> = vec![None; placements.list.len()];
    let mut hits = Vec::new();
    for (v, k, t) in found {
        if u32::from(t) < first_nodes[v as usize] {
            continue;
        }
        let pl = &placements.list[k as usize];
        let table = tables[k as usize].get_or_insert_with(|| placements.point_table(pl));
        let next = continuation(&own, &own.lines[v as usize], table, pl.swapped, t);
        hits.push((v, k, t, next));
    }
    Ok((lines, hits))
}

/// The variation lines of the stored records of `group`'s games that
/// have variations (a record without `(` past its first byte has none).
fn read_lines(conn: Read<'_>, group: &Group, budget: &Budget) -> Result<Vec<LineRead>> {
    let mut read = Vec::new();
    let mut seen = 0usize;
    let mut records = keil_store::records::RecordReader::default();
    keil_store::games::records_between(conn, 0, i64::MAX, |id, blob| -> Result<()> {
        seen += 1;
        budget.check_every(seen)?;
        let Ok(id32) = u32::try_from(id.sql()) else {
            return Ok(());
        };
        if group.ids.binary_search(&id32).is_err() {
            return Ok(());
        }
        let bytes = records.bytes(id, blob)?;
        // A tree without variations has no `(` but its first.
        if !bytes.get(1..).is_some_and(|b| b.contains(&b'(')) {
            return Ok(());
        }
        let text =
            std::str::from_utf8(bytes).map_err(|e| keil_store::records::corrupt_record(id, e))?;
        read.extend(lines_of(id, text));
        Ok(())
    })?;
    Ok(read)
}

/// The lines `read` as a group of their own (each with its game's date
/// and result, its events built from its moves on its game's start), with
/// the [`Variation`]s they are and each line's first node of its own.
fn build(
    conn: Read<'_>,
    group: &Group,
    read: Vec<LineRead>,
) -> Result<(Vec<Variation>, Group, Vec<u32>)> {
    let ids: Vec<GameId> = {
        let mut ids: Vec<GameId> = read.iter().map(|r| r.id).collect();
        ids.dedup();
        ids
    };
    let starts = keil_store::games::games_moves(conn, &ids)?;
    let mut lines = Vec::new();
    let mut own = Group::new(group.board);
    let mut first_nodes = Vec::new();
    for r in read {
        let (Some(main), Ok(g)) = (
            starts.get(&r.id),
            group.ids.binary_search(&(r.id.sql() as u32)),
        ) else {
            continue;
        };
        let (colors, moves): (Vec<_>, Vec<_>) = r.moves.into_iter().unzip();
        let m = GameMoves {
            moves,
            // As the game's own line stores them: Keil's turns alternate
            // (no colours), a Go record names each move's player.
            colors: if main.colors.is_empty() {
                Vec::new()
            } else {
                colors
            },
            nodes: r.nodes.clone(),
            ..main.clone()
        };
        let Ok(built) = events::build(&m) else {
            continue;
        };
        let mut line = Line::new(r.id.sql() as u32, "", &r.nodes);
        line.date = group.lines[g].date;
        own.push(line, group.winners[g], built);
        first_nodes.push(r.first_node);
        lines.push(Variation {
            game: g as u32,
            number: r.number,
            nodes: r.nodes.into(),
        });
    }
    Ok((lines, own, first_nodes))
}

/// The variation lines of a stored record (`text`, one game tree): each
/// variation the validator reports, from the root to the end of its first
/// children, up to its first illegal move; none when the record does not
/// read.
fn lines_of(id: GameId, text: &str) -> Vec<LineRead> {
    let file = keil_record::ParsedFile::from_text(text);
    let Ok(record) = file.record(0) else {
        return Vec::new();
    };
    let verdict = keil_record::validate(&record).verdict;
    let tree = &record.tree;
    verdict
        .variations
        .iter()
        .zip(1..)
        .map(|(v, number)| {
            // The nodes from the root to the variation's first, then
            // first children to its end.
            let mut path: Vec<NodeId> = Vec::new();
            let mut at = Some(v.node);
            while let Some(n) = at {
                path.push(n);
                at = tree.node(n).parent();
            }
            path.reverse();
            let first_node = (path.len() - 1) as u32;
            let mut at = tree.node(v.node).first_child();
            while let Some(n) = at {
                path.push(n);
                at = tree.node(n).first_child();
            }
            let legal = v.illegal.as_ref().map_or(u32::MAX, |i| i.ply);
            let mut moves = Vec::new();
            let mut nodes = Vec::new();
            for (depth, &n) in path.iter().enumerate().skip(1) {
                if let Some(keil_record::NodeMove {
                    color,
                    value: keil_record::MoveValue::Move(mv),
                    ..
                }) = record.node_move(n)
                {
                    if moves.len() as u32 + 1 >= legal {
                        break;
                    }
                    moves.push((color, mv));
                    nodes.push(depth as u32);
                }
            }
            LineRead {
                id,
                number,
                first_node,
                moves,
                nodes,
            }
        })
        .collect()
}
