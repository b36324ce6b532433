//! Reading a Go record (go-rules.md): `SZ`, `KM`, `RU`, `HA`, `RE`, and
//! every node's move, setup and `PL`. Nothing here is a record error: a
//! malformed value or an unsupported size is kept for the verdict
//! (go-rules.md, "Verdict of one line": `malformed`, `unsupported`).

use keil_rules::{
    Color, GoPosition, GoRuleset, HalfPoints, Move, Point, SgfPointError, SquareBoard, ToMove,
};
use keil_sgf::{GameTree, Node, NodeId, PropValue, Property, Span};

use super::{
    Cursor, GameSpec, GoSpec, MoveValue, NO_EXTRA, NodeData, NodeMove, Seen, SizeError, Tree,
    Warning, text_of, value_span, written_all,
};
use crate::info::{GameInfo, GameResult};
use crate::meta::read_komi;
use crate::reason::Reason;

/// What a Go node holds besides its move (most nodes hold nothing else and
/// have no entry).
#[derive(Clone, Debug, Default)]
pub(crate) struct GoNode {
    /// `AB`, `AW`, `AE` of the node (all values of repeated properties).
    pub(crate) setup: Option<GoSetup>,
    /// `PL[B]`/`PL[W]`.
    pub(crate) pl: Option<Color>,
    /// Why the node makes the record malformed (`two_moves_in_node`,
    /// `bad_setup`); a malformed move value is [`MoveValue::Malformed`].
    pub(crate) problem: Option<NodeProblem>,
}

/// A node's setup points: black stones, white stones, empty points,
/// applied in that order (go-rules.md, "Setup and the player to move").
#[derive(Clone, Debug, Default)]
pub(crate) struct GoSetup {
    pub(crate) black: Vec<Point>,
    pub(crate) white: Vec<Point>,
    pub(crate) empty: Vec<Point>,
}

impl GoSetup {
    /// Applies the setup to a position.
    pub(crate) fn apply(&self, position: &mut GoPosition) {
        for &p in &self.black {
            position.set(p, Some(Color::Black));
        }
        for &p in &self.white {
            position.set(p, Some(Color::White));
        }
        for &p in &self.empty {
            position.set(p, None);
        }
    }
}

/// A node that makes its line malformed.
#[derive(Clone, Debug)]
pub(crate) struct NodeProblem {
    /// `TwoMovesInNode` or `BadSetup`.
    pub(crate) reason: Reason,
    /// The second move (property, or value of a move property with two),
    /// or the setup value that is not a point.
    pub(crate) span: Span,
    /// As written: `B[tt]W[tt]`, `W[ce][cf]`, `AB[zz]`.
    pub(crate) text: String,
}

/// The spec, node data and game information of a Go record (after `GM`).
pub(super) fn read(
    tree: &GameTree<'_>,
    cursor: &mut Cursor<'_>,
    warnings: &mut Vec<Warning>,
) -> (GameInfo, Tree) {
    let root = tree.root();
    let board = match root.get("SZ") {
        None => Ok(SquareBoard::new(19).expect("19x19 exists")),
        Some(p) => read_size(&p),
    };
    // KM: a number; absent or unreadable means 0 (go-rules.md, "End of the
    // game and the result").
    let km = root.get("KM").map(|p| text_of(&p));
    let komi = km
        .as_deref()
        .and_then(|t| t.parse::<HalfPoints>().ok())
        .unwrap_or(HalfPoints(0));
    let komi_meant = komi_meant(km.as_deref(), warnings);
    let ru = root.get("RU").map(|p| text_of(&p));
    let (ruleset, ru_mapped) = GoRuleset::from_ru(ru.as_deref());
    let handicap = read_handicap(&root, warnings);
    let info = super::read_info(&root, |p| Ok(GameResult::parse_go(&text_of(p))))
        .expect("reading a Go result never fails");
    let sized = board.as_ref().ok().copied();
    let (nodes, go_nodes) = read_nodes(tree, cursor, sized, warnings);
    let (setup, first_player) = match sized {
        Some(b) => initial_position(tree, b, &nodes, &go_nodes),
        None => (None, ToMove::Color(Color::Black)),
    };
    let spec = GameSpec::Go(GoSpec {
        board,
        ruleset,
        ru_mapped,
        ru,
        komi,
        komi_meant,
        handicap,
        setup,
        first_player,
    });
    (
        info,
        Tree {
            spec,
            nodes,
            go_nodes,
        },
    )
}

/// `KM` as its writer meant it, which the archive stores and shows
/// (go-rules.md, "Metadata"), with a warning when it was rescaled or
/// ignored; 0 when absent.
fn komi_meant(km: Option<&str>, warnings: &mut Vec<Warning>) -> HalfPoints {
    let Some(written) = km else {
        return HalfPoints(0);
    };
    match read_komi(written) {
        Some(k) => {
            if k.rescaled {
                warnings.push(Warning::KomiRescaled {
                    written: written.to_string(),
                    komi: k.value,
                });
            }
            k.value
        }
        None => {
            if !written.trim().is_empty() {
                warnings.push(Warning::KomiIgnored {
                    written: written.to_string(),
                });
            }
            HalfPoints(0)
        }
    }
}

/// `HA`: a number of handicap stones (a negative one is 0), with a warning
/// when it is not a number; 0 when absent.
fn read_handicap(root: &Node<'_>, warnings: &mut Vec<Warning>) -> u32 {
    let Some(p) = root.get("HA") else {
        return 0;
    };
    let value = text_of(&p);
    match value.parse::<i64>() {
        Ok(h) => u32::try_from(h.max(0)).unwrap_or(u32::MAX),
        Err(_) => {
            warnings.push(Warning::HandicapIgnored { value });
            0
        }
    }
}

/// Every node's move and where the node is, in node order, with the Go
/// nodes of those that hold more ([`GoNode`]); warns once for `PL` and once
/// for setup in a node with a move.
fn read_nodes(
    tree: &GameTree<'_>,
    cursor: &mut Cursor<'_>,
    sized: Option<&'static SquareBoard>,
    warnings: &mut Vec<Warning>,
) -> (Vec<NodeData>, Vec<GoNode>) {
    let mut nodes = Vec::with_capacity(tree.len());
    let mut go_nodes = Vec::new();
    let mut pl_with_move = Seen::default();
    let mut setup_with_move = Seen::default();
    for node in tree.nodes() {
        let loc = cursor.advance(node.span().start);
        let (line, column) = (loc.line as u32, loc.column as u32);
        let (mv, extra) = read_node(&node, sized);
        let mut data = NodeData {
            mv,
            line,
            column,
            extra: NO_EXTRA,
        };
        if let Some(extra) = extra {
            if mv.is_some() && extra.pl.is_some() {
                pl_with_move.add(line, column);
            }
            if mv.is_some() && extra.setup.is_some() {
                setup_with_move.add(line, column);
            }
            data.extra = go_nodes.len() as u32;
            go_nodes.push(extra);
        }
        nodes.push(data);
    }
    if let Some(at) = setup_with_move.get() {
        warnings.push(Warning::SetupWithMove { at });
    }
    if let Some(at) = pl_with_move.get() {
        warnings.push(Warning::PlWithMove { at });
    }
    (nodes, go_nodes)
}

/// `SZ[n]` or `SZ[n:n]`, 1 ≤ n ≤ 19 (go-rules.md, "Board and points").
fn read_size(p: &Property<'_>) -> Result<&'static SquareBoard, SizeError> {
    let raw = p.raw_value().unwrap_or("").trim();
    let span = value_span(p);
    let error = |reason| SizeError {
        reason,
        value: raw.to_string(),
        span,
    };
    // A positive decimal number (saturating: a huge one is still a number).
    let number = |s: &str| {
        let s = s.trim();
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().unwrap_or(u64::MAX))
            .filter(|&n| n > 0)
    };
    let (c, r) = raw.split_once(':').unwrap_or((raw, raw));
    match (number(c), number(r)) {
        (Some(c), Some(r)) if c == r && c <= 19 => {
            SquareBoard::new(c as u8).map_err(|_| error(Reason::BoardSize))
        }
        (Some(_), Some(_)) => Err(error(Reason::BoardSize)),
        _ => Err(error(Reason::BadSize)),
    }
}

/// A move value (go-rules.md, "Moves"): `[]` and `[tt]` pass; two SGF
/// letters a point, or off the board; anything else malformed.
#[inline]
fn move_value(board: Option<&'static SquareBoard>, raw: &str) -> MoveValue {
    if raw.is_empty() || raw == "tt" {
        return MoveValue::Move(Move::Pass);
    }
    // An unsupported board is never replayed: any value will do.
    let Some(board) = board else {
        return MoveValue::Move(Move::Pass);
    };
    match board.parse_sgf_point(raw) {
        Ok(p) => MoveValue::Move(Move::Place(p)),
        Err(SgfPointError::OffBoard { .. }) => MoveValue::OffBoard,
        Err(SgfPointError::Malformed(_)) => MoveValue::Malformed,
    }
}

/// One node: its first move and, when it has any, its setup, `PL` and
/// problem.
///
/// A node with two moves is `two_moves_in_node` (go-rules.md, "Moves"),
/// whether they are two properties (`B[tt]W[tt]`, `B[aa]B[bb]`: a
/// property repeated in a node counts as one with all the values) or one
/// move property with two values (`W[ce][cf]`); the problem's text is the
/// node's move properties, every value as written (`W[ff][gg]W[hh]`). The
/// node's move is still its first value, so that it counts as one ply.
fn read_node(
    node: &Node<'_>,
    board: Option<&'static SquareBoard>,
) -> (Option<NodeMove>, Option<GoNode>) {
    let mut mv: Option<NodeMove> = None;
    let mut extra: Option<GoNode> = None;
    for (k, p) in node.properties().enumerate() {
        let color = match p.ident() {
            "B" => Color::Black,
            "W" => Color::White,
            "AB" | "AW" | "AE" => {
                let x = extra.get_or_insert_with(GoNode::default);
                let setup = x.setup.get_or_insert_with(GoSetup::default);
                if let Err((span, text)) = read_setup(&p, board, setup)
                    && x.problem.is_none()
                {
                    x.problem = Some(NodeProblem {
                        reason: Reason::BadSetup,
                        span,
                        text,
                    });
                }
                continue;
            }
            "PL" => {
                let pl = match text_of(&p).as_str() {
                    "B" | "b" => Some(Color::Black),
                    "W" | "w" => Some(Color::White),
                    _ => None,
                };
                if pl.is_some() {
                    extra.get_or_insert_with(GoNode::default).pl = pl;
                }
                continue;
            }
            _ => continue,
        };
        // The second move: this property, or the first one's second value.
        let second = match mv {
            Some(_) => Some(p.span()),
            None => p.values().nth(1).map(|v| v.span),
        };
        if let Some(span) = second {
            let x = extra.get_or_insert_with(GoNode::default);
            if x.problem.is_none() {
                x.problem = Some(NodeProblem {
                    reason: Reason::TwoMovesInNode,
                    span,
                    // Written below, with every move of the node.
                    text: String::new(),
                });
            }
        }
        if mv.is_none() {
            let raw = p.raw_value().unwrap_or("").trim();
            mv = Some(NodeMove {
                color,
                value: move_value(board, raw),
                property: k,
            });
        }
    }
    if let Some(problem) = extra.as_mut().and_then(|x| x.problem.as_mut())
        && problem.reason == Reason::TwoMovesInNode
    {
        problem.text = node
            .properties()
            .filter(|p| matches!(p.ident(), "B" | "W"))
            .map(|p| written_all(&p))
            .collect();
    }
    (mv, extra)
}

/// Adds the points of one `AB`/`AW`/`AE` property (points, or compressed
/// rectangles `aa:cc`) to `setup`; on a value that is not a point of the
/// board, its span and text (`bad_setup`).
fn read_setup(
    p: &Property<'_>,
    board: Option<&'static SquareBoard>,
    setup: &mut GoSetup,
) -> Result<(), (Span, String)> {
    let Some(board) = board else {
        return Ok(());
    };
    let list = match p.ident() {
        "AB" => &mut setup.black,
        "AW" => &mut setup.white,
        _ => &mut setup.empty,
    };
    let bad = |v: &PropValue<'_>| (v.span, format!("{}[{}]", p.ident(), v.raw));
    for v in p.values() {
        let point = |v: &PropValue<'_>| board.parse_sgf_point(v.raw.trim()).ok();
        match v.split_composed() {
            None => list.push(point(&v).ok_or_else(|| bad(&v))?),
            Some((a, b)) => {
                let (Some(a), Some(b)) = (point(&a), point(&b)) else {
                    return Err(bad(&v));
                };
                let ((c0, r0), (c1, r1)) = (board.coords(a), board.coords(b));
                for r in r0.min(r1)..=r0.max(r1) {
                    for c in c0.min(c1)..=c0.max(c1) {
                        let q = board.point_at(i32::from(c), i32::from(r));
                        list.push(q.expect("inside the rectangle of two points"));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The main line's initial position (setup in the root and in the nodes
/// before its first move, and in the first move's own node) and who plays
/// the first move (go-rules.md, "Turn order" 1). `None` without setup; a
/// setup value that is not a point is left out (the verdict says
/// `bad_setup`).
fn initial_position(
    tree: &GameTree<'_>,
    board: &'static SquareBoard,
    nodes: &[NodeData],
    go_nodes: &[GoNode],
) -> (Option<GoPosition>, ToMove) {
    let mut position: Option<GoPosition> = None;
    let mut pl = None;
    for (id, _) in tree.main_line() {
        let data = nodes[NodeId::index(id)];
        if let Some(x) = go_nodes.get(data.extra as usize) {
            if let Some(s) = &x.setup {
                s.apply(position.get_or_insert_with(|| GoPosition::empty(board)));
            }
            if data.mv.is_none() {
                pl = x.pl.or(pl);
            }
        }
        if data.mv.is_some() {
            break;
        }
    }
    let first = match (pl, &position) {
        (Some(c), _) => ToMove::Color(c),
        (None, Some(_)) => ToMove::Either,
        // With HA ≥ 2 too: the free handicap moves are Black's.
        (None, None) => ToMove::Color(Color::Black),
    };
    (position, first)
}
