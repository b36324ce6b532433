//! The viewer's board panel: a line of a game (the main line, or a
//! variation of its record) replayed to a ply, drawn with its replay
//! buttons, caption, captures, the node's comments and markup and the
//! variations that branch there. Part of the game page, and the fragment
//! the viewer's script fetches as it steps.

use std::fmt::Write as _;

use askama::Template;
use keil_archive::{GameId, GameMoves};
use keil_rules::{AnyBoard, AnyGame, AnyRuleset, Color, Move, Point};

use super::names::{color_word, letter, link};
use super::tree::{Branch, LineNodes, Tree};
use crate::error::ApiError;
use crate::params::View;
use crate::svg::{self, Drawing, Extras, PointMark};

/// One move of the move list.
pub(super) struct MoveItem {
    pub(super) ply: u32,
    pub(super) color: &'static str,
    pub(super) name: String,
}

/// A replayed line: each move's player and name, the board at the
/// requested ply, the final game, and the ply of the stone on each
/// occupied point (for move numbers).
pub(super) struct Line {
    pub(super) moves: Vec<MoveItem>,
    at: crate::replay::Replayed,
    pub(super) end: AnyGame,
    /// The last move placed on each point, up to the ply shown.
    placed: Vec<(Point, u32)>,
}

fn replay_line(line: &GameMoves, ply: u32) -> Result<Line, ApiError> {
    let board = line.board;
    let mut items = Vec::with_capacity(line.moves.len());
    let mut placed = Vec::new();
    let (at, end) = crate::replay::replay_through(line, ply, true, &mut |i, color, mv| {
        let n = i as u32 + 1;
        if let (Move::Place(p), true) = (mv, n <= ply) {
            placed.push((p, n));
        }
        items.push((n, color, mv));
    })?;
    // Points named as the game names them (Kaomi: SGF letters).
    let moves = items
        .into_iter()
        .map(|(ply, color, mv)| MoveItem {
            ply,
            color: letter(color),
            name: match mv {
                Move::Place(p) => at.position.display_name(p),
                m => board.move_name(m),
            },
        })
        .collect();
    Ok(Line {
        moves,
        at,
        end,
        placed,
    })
}

/// A replay button.
struct NavButton {
    ply: u32,
    text: &'static str,
    title: &'static str,
    disabled: bool,
}

/// Where the viewer is on a variation: its number, where it leaves, its
/// verdict, and the link back.
struct LineNote {
    text: String,
    back: String,
}

#[derive(Template)]
#[template(path = "board_panel.html")]
struct BoardPanel {
    ply: u32,
    announce: String,
    svg: String,
    buttons: Vec<NavButton>,
    caption: String,
    explore: String,
    /// The query kept by the replay links (`var=2&`).
    keep: String,
    numbers_href: String,
    numbers_text: &'static str,
    captures: [u32; 2],
    comments: Vec<String>,
    branches: Vec<Branch>,
    line_note: Option<LineNote>,
}

/// Kaomi's marks on a board of the viewer (kaomi-rules.md): the squares
/// the last placement pushed stones from (`ghost`, titled with where each
/// went) and, on the full board at the end, the stones of removed pairs
/// (`removed`) and the deciding group (`deciding`). Empty for other games.
fn kaomi_marks(l: &crate::replay::Replayed, end: bool) -> Vec<PointMark> {
    let mut marks = Vec::new();
    let name = |p: Point| l.position.display_name(p);
    for &(from, to) in &l.moved {
        marks.push(PointMark {
            point: from,
            class: "ghost",
            label: String::new(),
            href: None,
            title: format!("{} pushed to {}", name(from), name(to)),
            fill: None,
            data: Vec::new(),
        });
    }
    let Some(result) = l.kaomi.as_ref().filter(|_| end) else {
        return marks;
    };
    let deciding = result.deciding;
    for (i, g) in result.groups.iter().enumerate() {
        let class = if g.removed {
            "removed"
        } else if deciding == Some(i) {
            "deciding"
        } else {
            continue;
        };
        let who = color_word(g.color);
        for p in g.stones.iter() {
            marks.push(PointMark {
                point: p,
                class,
                label: String::new(),
                href: None,
                title: if g.removed {
                    format!(
                        "{}: {who}'s group of {}, removed in a pair",
                        name(p),
                        g.size
                    )
                } else {
                    format!("{}: {who}'s deciding group of {}", name(p), g.size)
                },
                fill: None,
                data: Vec::new(),
            });
        }
    }
    marks
}

/// What one request shows: a line of a game (the main line, or a
/// variation of its record) replayed to a ply, with the record's tree.
pub(super) struct Shown {
    pub(super) ply: u32,
    pub(super) plies: u32,
    pub(super) line: Line,
    pub(super) board: AnyBoard,
    pub(super) tree: Option<Tree>,
    nodes: Option<LineNodes>,
    pub(super) view: View,
    /// Whether the result is compared with a computed score (else the
    /// final position's count is not shown).
    pub(super) result_checked: bool,
    /// What the caption calls the line's record: `Game 12`, `Refused
    /// record 3`.
    pub(super) title: String,
    /// Marks drawn besides the viewer's own (the refused move).
    pub(super) marks: Vec<PointMark>,
}

/// Whether the rules compare `RE` with a computed score (go-rules.md
/// "Verdict of one line": Keil and Kaomi always; Go under tromp-taylor and
/// kee only).
fn rules_check_result(rules: &AnyRuleset) -> bool {
    match rules {
        AnyRuleset::Go { ruleset, .. } => ruleset.result_checked(),
        _ => true,
    }
}

/// Reads the record, picks the line and replays it to the ply asked for.
///
/// # Errors
/// 404 for a variation the record does not have or a ply past the line's
/// end.
pub(super) fn show(
    id: GameId,
    moves: GameMoves,
    record: &str,
    view: View,
) -> Result<Shown, ApiError> {
    let tree = Tree::read(record);
    let board = moves.board;
    let (line_moves, nodes) = match view.var {
        // Another record of the game: its own main line.
        None if view.record.is_some() => {
            let nodes = tree.as_ref().and_then(|t| t.line(None)).ok_or_else(|| {
                ApiError::NotFound(format!("game {id}'s record does not read as a game tree"))
            })?;
            let mut m = moves;
            m.moves = nodes.moves.iter().map(|&(_, mv)| mv).collect();
            m.colors = nodes.moves.iter().map(|&(c, _)| c).collect();
            (m, Some(nodes))
        }
        None => {
            let nodes = tree.as_ref().and_then(|t| t.line(None));
            (moves, nodes)
        }
        Some(k) => {
            let count = tree.as_ref().map_or(0, Tree::variations);
            let nodes = tree.as_ref().and_then(|t| t.line(Some(k))).ok_or_else(|| {
                ApiError::NotFound(format!(
                    "game {id} has {count} variations: there is no variation {k}"
                ))
            })?;
            let mut m = moves;
            m.moves = nodes.moves.iter().map(|&(_, mv)| mv).collect();
            m.colors = nodes.moves.iter().map(|&(c, _)| c).collect();
            (m, Some(nodes))
        }
    };
    let plies = line_moves.moves.len() as u32;
    let ply = view.ply.unwrap_or(plies);
    let line = replay_line(&line_moves, ply)?;
    let result_checked = rules_check_result(&line_moves.rules);
    Ok(Shown {
        ply,
        plies,
        line,
        board,
        tree,
        nodes,
        view,
        result_checked,
        title: format!("Game {id}"),
        marks: Vec::new(),
    })
}

/// The ink that reads on the stone at `p` (white on black).
fn ink(position: &keil_rules::AnyPosition, p: Point) -> Option<String> {
    (position.get(p) == Some(Color::Black)).then(|| "#fff".to_string())
}

/// The board at a ply with its replay buttons, caption, explorer link,
/// captures, the node's comments and the variations that branch there:
/// part of the game page, and the fragment the viewer's script fetches.
pub(super) fn board_panel(sh: &Shown) -> String {
    let (ply, plies) = (sh.ply, sh.plies);
    let l = &sh.line.at;
    let (mut caption, announce) = caption_and_announce(sh);
    let mut marks = kaomi_marks(l, ply == plies);
    count_marks(sh, &mut caption, &mut marks);
    if sh.view.numbers {
        marks.extend(move_numbers(sh));
    }
    let (mut comments, mut branches) = (Vec::new(), Vec::new());
    if let (Some(t), Some(nodes)) = (&sh.tree, &sh.nodes) {
        comments = t.comments(nodes, ply);
        branches = t.branches(nodes, ply, sh.board);
        marks.extend(markup_marks(sh, t, nodes));
    }
    marks.extend(sh.marks.iter().cloned());
    let flipped = View {
        numbers: !sh.view.numbers,
        ..sh.view
    };
    let panel = BoardPanel {
        ply,
        announce,
        svg: panel_svg(sh, &caption, &marks),
        buttons: nav_buttons(ply, plies),
        caption: format!("{}, {caption}", sh.title),
        explore: explore_link(l),
        keep: sh.view.keep(),
        numbers_href: format!("?{}ply={ply}", flipped.keep()),
        numbers_text: if sh.view.numbers {
            "hide move numbers"
        } else {
            "show move numbers"
        },
        captures: l.captures,
        comments,
        branches,
        line_note: line_note(sh),
    };
    panel.render().unwrap_or_default()
}

/// The board's caption (`ply 12/80 · B d4 · White to move`) and the
/// screen readers' announcement of the last move.
fn caption_and_announce(sh: &Shown) -> (String, String) {
    let l = &sh.line.at;
    let mut caption = format!("ply {}/{}", sh.ply, sh.plies);
    let mut announce = String::new();
    match l.last {
        Some((n, c, mv)) => {
            let name = match mv {
                Move::Place(p) => l.position.display_name(p),
                m => sh.board.move_name(m),
            };
            let _ = write!(caption, " · {} {name}", letter(c));
            let _ = write!(announce, "Move {n}: {} {name}", color_word(c));
            if !l.captured.is_empty() {
                let _ = write!(announce, ", {} captured", l.captured.len());
            }
        }
        None => announce.push_str("Start of the game"),
    }
    let _ = write!(caption, " · {} to move", color_word(l.to_move));
    if l.position.button_taken() == Some(true) {
        caption.push_str(" · button taken");
    }
    (caption, announce)
}

/// The final position of a finished game whose result the rules count:
/// the computed score added to the caption, and the points its score
/// counts (territory, area) marked for their owner. Under agreement rules
/// (Japanese, Korean, AGA...) the players' result stands and no count is
/// drawn (go-rules.md).
fn count_marks(sh: &Shown, caption: &mut String, marks: &mut Vec<PointMark>) {
    let line = &sh.line;
    if !(sh.ply == sh.plies && line.end.is_complete() && sh.result_checked) {
        return;
    }
    let score = line.end.score();
    let _ = write!(
        caption,
        " · computed score B {} W {}",
        score.black, score.white
    );
    for (p, c) in line.end.owned_points() {
        let (class, who) = match c {
            Color::Black => ("dot-b", "Black"),
            Color::White => ("dot-w", "White"),
        };
        marks.push(PointMark {
            point: p,
            class,
            label: String::new(),
            href: None,
            title: format!("{}: {who}'s", sh.board.display_name(p)),
            fill: None,
            data: Vec::new(),
        });
    }
}

/// The number of the move that placed each stone still on the board.
fn move_numbers(sh: &Shown) -> Vec<PointMark> {
    let l = &sh.line.at;
    let mut last: std::collections::HashMap<Point, u32> = Default::default();
    for &(p, n) in &sh.line.placed {
        last.insert(p, n);
    }
    let mut numbered: Vec<(Point, u32)> = last
        .into_iter()
        .filter(|&(p, _)| l.position.get(p).is_some())
        .collect();
    numbered.sort_unstable_by_key(|&(_, n)| n);
    numbered
        .into_iter()
        .map(|(p, n)| PointMark {
            point: p,
            class: "mk-num",
            label: n.to_string(),
            href: None,
            title: format!("move {n}"),
            fill: Some(ink(&l.position, p).unwrap_or_else(|| "#000".into())),
            data: Vec::new(),
        })
        .collect()
}

/// The record's markup at the ply shown (SGF `TR`, `SQ`, `CR`, `MA`, `LB`).
fn markup_marks(sh: &Shown, t: &Tree, nodes: &LineNodes) -> Vec<PointMark> {
    let (board, l) = (sh.board, &sh.line.at);
    t.markup(nodes, sh.ply, board)
        .into_iter()
        .map(|m| {
            let (class, what) = match m.shape {
                "tr" => ("mk-tr", "triangle"),
                "sq" => ("mk-sq", "square"),
                "cr" => ("mk-cr", "circle"),
                "ma" => ("mk-ma", "cross"),
                _ => ("mk-lb", "label"),
            };
            let title = if m.label.is_empty() {
                format!("{}: {what}", board.display_name(m.point))
            } else {
                format!("{}: {what} {}", board.display_name(m.point), m.label)
            };
            PointMark {
                point: m.point,
                class,
                label: m.label,
                href: None,
                title,
                fill: ink(&l.position, m.point),
                data: Vec::new(),
            }
        })
        .collect()
}

/// The board's SVG, inline: the position at the ply with its last move,
/// captures, notation and `marks`.
fn panel_svg(sh: &Shown, caption: &str, marks: &[PointMark]) -> String {
    let l = &sh.line.at;
    let last_point = match l.last {
        Some((_, _, Move::Place(p))) => Some(p),
        _ => None,
    };
    let captured: Vec<(Point, Color)> = match l.last {
        Some((_, c, _)) => l.captured.iter().map(|&p| (p, c.opposite())).collect(),
        None => Vec::new(),
    };
    let notation = l.position.to_notation(Some(l.to_move));
    svg::render_with(
        &Drawing {
            position: &l.position,
            last: last_point,
            captured: &captured,
            caption,
        },
        &Extras {
            inline: true,
            ply: Some(sh.ply),
            notation: Some(&notation),
            marks,
        },
    )
}

/// The replay buttons: start, back ten, back one, forward one, forward
/// ten, end.
fn nav_buttons(ply: u32, plies: u32) -> Vec<NavButton> {
    let b = |to: u32, text, title, disabled| NavButton {
        ply: to,
        text,
        title,
        disabled,
    };
    vec![
        b(0, "|◀", "Start (Home)", ply == 0),
        b(ply.saturating_sub(10), "◀◀", "Back ten moves (↑)", ply == 0),
        b(ply.saturating_sub(1), "◀", "Back one move (←)", ply == 0),
        b(
            (ply + 1).min(plies),
            "▶",
            "Forward one move (→)",
            ply == plies,
        ),
        b(
            (ply + 10).min(plies),
            "▶▶",
            "Forward ten moves (↓)",
            ply == plies,
        ),
        b(plies, "▶|", "End (End)", ply == plies),
    ]
}

/// The explorer at the position shown, with its player to move.
fn explore_link(l: &crate::replay::Replayed) -> String {
    link(
        "/positions",
        &[
            ("kind", l.position.kind().code()),
            ("position", &l.position.to_notation(None)),
            ("to_move", if l.to_move == Color::Black { "b" } else { "w" }),
        ],
    )
}

/// On a variation: its number, where it leaves the main line, its moves,
/// and the link back.
fn line_note(sh: &Shown) -> Option<LineNote> {
    let k = sh.view.var?;
    let (from, words) = sh.tree.as_ref()?.variation_words(k)?;
    Some(LineNote {
        text: format!("Variation {k}, from move {from}: {words}"),
        back: format!("?ply={}", from.saturating_sub(1)),
    })
}
