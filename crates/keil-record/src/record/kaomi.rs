//! Reading a Kaomi record (kaomi-rules.md, "Records", "Rulesets"): `SZ`,
//! `RU`, `KM`, `RE` and every node's move; setup is refused.

use keil_rules::{
    KaomiRuleset, KaomiVariant, MAX_KAOMI_SIZE, MIN_KAOMI_SIZE, Move, SgfPointError, SquareBoard,
};
use keil_sgf::{GameTree, Node};

use super::keil::{Dialect, read_komi, read_moves, read_size};
use super::{Cursor, GameSpec, KaomiSpec, MoveValue, Reader, Tree, Warning, text_of, value_span};
use crate::error::{ErrorKind, Result};
use crate::info::{GameInfo, GameResult};

/// The spec, node data and warnings of a Kaomi record (after `GM`; the
/// caller adds SGF repairs).
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
        keil_rules::DEFAULT_KAOMI_SIZE,
        |n| {
            (MIN_KAOMI_SIZE..=MAX_KAOMI_SIZE)
                .contains(&n)
                .then(|| SquareBoard::new(n).ok())
                .flatten()
        },
        |value| ErrorKind::KaomiSize { value },
    )?;
    let ruleset = read_ruleset(r, &root)?;
    let komi = read_komi(r, &root)?;
    let komi_warning = match ruleset.variant {
        KaomiVariant::Standard => komi.0 != 0,
        KaomiVariant::Squared => komi.0 % 4 != 0,
    };
    if komi_warning {
        warnings.push(Warning::KaomiKomi {
            komi,
            variant: ruleset.variant,
        });
    }
    let info = super::read_info(&root, |p| {
        let value = text_of(p);
        Ok(match value.parse::<GameResult>() {
            Ok(result) => Some(result),
            Err(_) => {
                warnings.push(Warning::ResultIgnored { value });
                None
            }
        })
    })?;
    let nodes = read_moves(r, tree, cursor, Dialect::Kaomi, |raw| {
        move_value(board, raw)
    })?;
    let spec = GameSpec::Kaomi(KaomiSpec {
        board,
        ruleset,
        komi,
        komi_warning,
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

/// `RU`: a Kaomi ruleset, `RU[Kaomi]` when absent.
fn read_ruleset(r: &Reader<'_, '_>, root: &Node<'_>) -> Result<KaomiRuleset> {
    match root.get("RU") {
        None => Ok(KaomiRuleset::default()),
        Some(p) => {
            let value = text_of(&p);
            KaomiRuleset::from_ru(Some(&value)).map_err(|source| {
                r.error(ErrorKind::KaomiRuleset { value, source }, value_span(&p))
            })
        }
    }
}

/// A Kaomi move value (kaomi-rules.md, "Records"): two SGF letters (a
/// placement, or off the board: `tt`, `Ab`), `swap`, `pass` or empty (a
/// pass, always illegal); `None` for anything else.
fn move_value(board: &'static SquareBoard, raw: &str) -> Option<MoveValue> {
    match raw {
        "" | "pass" => Some(MoveValue::Move(Move::Pass)),
        "swap" => Some(MoveValue::Move(Move::Swap)),
        _ => match board.parse_sgf_point(raw) {
            Ok(p) => Some(MoveValue::Move(Move::Place(p))),
            Err(SgfPointError::OffBoard { .. }) => Some(MoveValue::OffBoard),
            Err(SgfPointError::Malformed(_)) => None,
        },
    }
}
