//! Reading a Keil record (record-format.md, "Properties with Keil meaning",
//! "Moves and variations", "Point values"): root properties, the root setup,
//! and every node's move.

use keil_rules::{Board, Color, HalfPoints, Move, PointError, Position, Ruleset};
use keil_sgf::{GameTree, Node, Property};

use super::{
    Cursor, GameSpec, KeilSpec, MoveValue, NO_EXTRA, NodeData, NodeMove, Reader, Tree, Warning,
    text_of, value_span,
};
use crate::error::{ErrorKind, Result};
use crate::info::{GameInfo, GameResult};

/// The spec, node data and warnings of a Keil record (after `GM`; the
/// caller reads the game information and adds SGF repairs).
pub(super) fn read(
    r: &Reader<'_, '_>,
    tree: &GameTree<'_>,
    cursor: &mut Cursor<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<(GameInfo, Tree)> {
    let root = tree.root();
    let board = read_size(
        r,
        &root,
        warnings,
        7,
        |side| Board::new(side).ok(),
        |value| ErrorKind::BadSize { value },
    )?;
    let ruleset = read_ruleset(r, &root, warnings)?;
    let info = super::read_info(&root, |p| {
        let value = text_of(p);
        let result = value
            .parse::<GameResult>()
            .map_err(|source| r.error(ErrorKind::BadResult { value, source }, value_span(p)))?;
        Ok(Some(result))
    })?;
    let (setup, player) = root_setup(r, &root, board)?;
    if setup.is_some() {
        warnings.push(Warning::FromSetup);
    }

    let nodes = read_moves(r, tree, cursor, Dialect::Keil, |raw| move_value(board, raw))?;
    let to_move = player.unwrap_or_else(|| {
        if setup.is_some() {
            tree.main_line()
                .find_map(|(id, _)| nodes[id.index()].mv.map(|m| m.color))
                .unwrap_or(Color::Black)
        } else {
            Color::Black
        }
    });
    let spec = GameSpec::Keil(KeilSpec {
        board,
        ruleset,
        setup,
        to_move,
    });
    Ok((
        info,
        Tree {
            spec,
            nodes,
            go_nodes: Vec::new(),
        },
    ))
}

/// `RU` with `KM` as its komi (`RU` absent: Keil's defaults), and the
/// komi warning of record-format.md.
fn read_ruleset(
    r: &Reader<'_, '_>,
    root: &Node<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Ruleset> {
    let komi = read_komi(r, root)?;
    let mut ruleset = match root.get("RU") {
        None => Ruleset::keil(),
        Some(p) => {
            let value = text_of(&p);
            value.parse::<Ruleset>().map_err(|source| {
                r.error(ErrorKind::BadRuleset { value, source }, value_span(&p))
            })?
        }
    };
    ruleset.komi = komi;
    if ruleset.komi_warning() {
        warnings.push(Warning::Komi {
            komi,
            button: ruleset.button,
        });
    }
    Ok(ruleset)
}

/// The board of `SZ` (Keil and Kaomi): `default` with a `MissingSz`
/// warning when absent; one number that `board` accepts, else the error
/// `bad` makes of the value as written, at the value.
pub(super) fn read_size<B>(
    r: &Reader<'_, '_>,
    root: &Node<'_>,
    warnings: &mut Vec<Warning>,
    default: u8,
    board: impl Fn(u8) -> Option<B>,
    bad: impl Fn(String) -> ErrorKind,
) -> Result<B> {
    let Some(p) = root.get("SZ") else {
        warnings.push(Warning::MissingSz { size: default });
        return Ok(board(default).expect("the default size exists"));
    };
    let value = p.raw_value().unwrap_or("").trim();
    value
        .parse::<u8>()
        .ok()
        .filter(|_| p.values().len() == 1)
        .and_then(board)
        .ok_or_else(|| r.error(bad(value.to_string()), value_span(&p)))
}

/// `KM` as a multiple of 0.5 (0 when absent); anything else is a record
/// error (Keil and Kaomi).
pub(super) fn read_komi(r: &Reader<'_, '_>, root: &Node<'_>) -> Result<HalfPoints> {
    match root.get("KM") {
        None => Ok(HalfPoints(0)),
        Some(p) => {
            let value = text_of(&p);
            value
                .parse::<HalfPoints>()
                .map_err(|_| r.error(ErrorKind::BadKomi { value }, value_span(&p)))
        }
    }
}

/// `PL` and the setup stones of the root (`AB`, `AW`, `AE`).
fn root_setup(
    r: &Reader<'_, '_>,
    root: &Node<'_>,
    board: &'static Board,
) -> Result<(Option<Position>, Option<Color>)> {
    let mut setup_props = Vec::new();
    let mut player = None;
    for p in root.properties() {
        match p.ident() {
            "PL" => {
                player = match text_of(&p).as_str() {
                    "B" | "b" | "1" => Some(Color::Black),
                    "W" | "w" | "2" => Some(Color::White),
                    _ => player,
                };
            }
            "AB" | "AW" | "AE" => setup_props.push(p),
            _ => {}
        }
    }
    if setup_props.is_empty() {
        return Ok((None, player));
    }
    let mut black = Vec::new();
    let mut white = Vec::new();
    for p in &setup_props {
        for v in p.values() {
            let value = v.raw.trim();
            let point = board.parse_point(value).map_err(|e| {
                let (prop, value) = (p.ident().to_string(), value.to_string());
                let kind = match e {
                    PointError::OffBoard { .. } => ErrorKind::OffBoardSetup {
                        prop,
                        value,
                        side: board.side(),
                    },
                    PointError::Malformed(_) => ErrorKind::MalformedPoint { prop, value },
                };
                r.error(kind, v.span)
            })?;
            black.retain(|&q| q != point);
            white.retain(|&q| q != point);
            match p.ident() {
                "AB" => black.push(point),
                "AW" => white.push(point),
                _ => {}
            }
        }
    }
    let position = Position::from_stones(board, black, white, false).map_err(|p| {
        r.error(
            ErrorKind::ConflictingSetup {
                value: board.name(p).to_string(),
            },
            root.span(),
        )
    })?;
    Ok((Some(position), player))
}

/// A Keil move value (record-format.md, "Point values"): `pass` or empty,
/// `button`, a point name (or off the board); `None` for a malformed point.
fn move_value(board: &'static Board, raw: &str) -> Option<MoveValue> {
    if raw.is_empty() || raw.eq_ignore_ascii_case("pass") {
        Some(MoveValue::Move(Move::Pass))
    } else if raw.eq_ignore_ascii_case("button") {
        Some(MoveValue::Move(Move::TakeButton))
    } else {
        match board.parse_point(raw) {
            Ok(point) => Some(MoveValue::Move(Move::Place(point))),
            Err(PointError::OffBoard { .. }) => Some(MoveValue::OffBoard),
            Err(PointError::Malformed(_)) => None,
        }
    }
}

/// Every node's move, read by [`read_node_move`] with the game's value
/// reader `value`, and where the node is, in node order (the root first).
pub(super) fn read_moves(
    r: &Reader<'_, '_>,
    tree: &GameTree<'_>,
    cursor: &mut Cursor<'_>,
    dialect: Dialect,
    value: impl Fn(&str) -> Option<MoveValue>,
) -> Result<Vec<NodeData>> {
    let mut nodes = Vec::with_capacity(tree.len());
    for (i, node) in tree.nodes().enumerate() {
        let loc = cursor.advance(node.span().start);
        let mv = read_node_move(r, &node, dialect, &value, i == 0)?;
        nodes.push(NodeData {
            mv,
            line: loc.line as u32,
            column: loc.column as u32,
            extra: NO_EXTRA,
        });
    }
    Ok(nodes)
}

/// The game whose node rules apply: where setup (`AB`, `AW`, `AE`) may
/// stand and what a malformed move value is called.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    /// Keil: setup in the root only; moves `g7`, `pass`, `button`, `[]`.
    Keil,
    /// Kaomi: no setup at all (kaomi-rules.md, "Records"); moves `cc`,
    /// `swap`, `pass`, `[]`.
    Kaomi,
}

/// A node's move with the game's value reader `value` (the trimmed raw
/// value; `None` is a malformed point, a record error), and the record
/// errors every game shares: two moves (two move properties, or one with
/// two values such as `B[g7][g8]`: record-format.md, "One move per node"),
/// a move with setup, setup where the game has none.
pub(super) fn read_node_move(
    r: &Reader<'_, '_>,
    node: &Node<'_>,
    dialect: Dialect,
    value: impl Fn(&str) -> Option<MoveValue>,
    root: bool,
) -> Result<Option<NodeMove>> {
    let mut mv: Option<NodeMove> = None;
    let mut setup_prop: Option<Property<'_>> = None;
    for (k, p) in node.properties().enumerate() {
        let color = match p.ident() {
            "B" => Color::Black,
            "W" => Color::White,
            "AB" | "AW" | "AE" => {
                setup_allowed(r, &p, dialect, root)?;
                setup_prop = Some(p);
                continue;
            }
            _ => continue,
        };
        if let Some(first) = mv {
            return Err(r.error(
                ErrorKind::TwoMoves {
                    first: super::written(&node.property(first.property)),
                    second: super::written(&p),
                },
                p.span(),
            ));
        }
        let mut values = p.values();
        let v = values
            .next()
            .expect("the parser never yields a property without value");
        if let Some(second) = values.next() {
            return Err(r.error(
                ErrorKind::TwoMoves {
                    first: super::written(&p),
                    second: format!("{}[{}]", p.ident(), second.raw),
                },
                second.span,
            ));
        }
        let raw = v.raw.trim();
        let Some(value) = value(raw) else {
            let (prop, value) = (p.ident().to_string(), raw.to_string());
            let kind = match dialect {
                Dialect::Keil => ErrorKind::MalformedPoint { prop, value },
                Dialect::Kaomi => ErrorKind::KaomiMoveValue { prop, value },
            };
            return Err(r.error(kind, v.span));
        };
        mv = Some(NodeMove {
            color,
            value,
            property: k,
        });
    }
    if let (Some(m), Some(s)) = (mv, setup_prop) {
        return Err(r.error(
            ErrorKind::MoveAndSetup {
                mv: super::written(&node.property(m.property)),
                setup: s.ident().to_string(),
            },
            node.property(m.property).span(),
        ));
    }
    Ok(mv)
}

/// Setup (`AB`, `AW`, `AE`) is a record error outside the root, and
/// anywhere in Kaomi, which has none.
fn setup_allowed(r: &Reader<'_, '_>, p: &Property<'_>, dialect: Dialect, root: bool) -> Result<()> {
    let prop = p.ident().to_string();
    if dialect == Dialect::Kaomi {
        return Err(r.error(ErrorKind::KaomiSetup { prop }, p.span()));
    }
    if !root {
        return Err(r.error(ErrorKind::SetupNotInRoot { prop }, p.span()));
    }
    Ok(())
}
