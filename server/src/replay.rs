//! A game's main line replayed to a ply: the position, the last move, the
//! captures and (Kaomi) the pushes, as the position routes, the SVG board
//! and the game page show them.

use keil_archive::GameMoves;
use keil_rules::{Color, Move, Point};

use crate::dto::*;
use crate::error::ApiError;

/// A game replayed to a ply.
pub(crate) struct Replayed {
    pub(crate) position: keil_rules::AnyPosition,
    pub(crate) to_move: Color,
    pub(crate) last: Option<(u32, Color, Move)>,
    pub(crate) captured: Vec<Point>,
    pub(crate) captures: [u32; 2],
    pub(crate) plies: u32,
    /// Kaomi: the stones the last move pushed.
    pub(crate) moved: Vec<(Point, Point)>,
    /// Kaomi: the result, when the board is full.
    pub(crate) kaomi: Option<keil_rules::KaomiResult>,
}

pub(crate) fn replay(line: &GameMoves, ply: u32) -> Result<Replayed, ApiError> {
    replay_through(line, ply, false, &mut |_, _, _| {}).map(|(at, _)| at)
}

/// Replays the main line to `ply` (a [`Replayed`] of that ply) and, with
/// `to_end`, on to the end in the same pass (the game after the last
/// move). `each` sees every move played: its index, player and move.
pub(crate) fn replay_through(
    line: &GameMoves,
    ply: u32,
    to_end: bool,
    each: &mut dyn FnMut(usize, Color, Move),
) -> Result<(Replayed, keil_rules::AnyGame), ApiError> {
    let plies = line.moves.len() as u32;
    if ply > plies {
        return Err(ApiError::NotFound(format!(
            "game {} has {plies} plies: there is no ply {ply} (use 0 to {plies})",
            line.id
        )));
    }
    let mut game = line.start();
    let mut last = None;
    let mut captured = Vec::new();
    let mut captures = [0u32; 2];
    let mut moved = Vec::new();
    let mut at = None;
    let end = if to_end { plies } else { ply } as usize;
    for i in 0..=end {
        if i == ply as usize {
            let kaomi = game.kaomi_result();
            at = Some(Replayed {
                position: game.position(),
                // Either colour may move (Go, after setup or passes): the
                // next stored move's player, else Black.
                to_move: game.to_move().color().unwrap_or_else(|| {
                    if i < line.moves.len() {
                        line.color(i, &game)
                    } else {
                        Color::Black
                    }
                }),
                last,
                captured: std::mem::take(&mut captured),
                captures,
                plies,
                moved: std::mem::take(&mut moved),
                kaomi,
            });
        }
        let Some(&mv) = line.moves.get(i).filter(|_| i < end) else {
            break;
        };
        let color = line.color(i, &game);
        let out = line
            .play(i, &mut game)
            .map_err(|e| ApiError::Internal(format!("game {} does not replay: {e}", line.id)))?;
        each(i, color, mv);
        captures[color.index()] += out.captured.len() as u32;
        captured = out.captured;
        moved = out.moved;
        last = Some((i as u32 + 1, color, mv));
    }
    let at = at.expect("ply is at most the number of plies");
    Ok((at, game))
}

/// The end of a Kaomi game for the API.
pub(crate) fn kaomi_end(board: keil_rules::AnyBoard, r: &keil_rules::KaomiResult) -> KaomiEndDto {
    let names = |s: &keil_rules::PointSet| s.iter().map(|p| board.point_name(p)).collect();
    let standard = r.variant == keil_rules::KaomiVariant::Standard;
    let removed_pairs = r
        .groups
        .iter()
        .filter(|g| g.removed && g.color == Color::Black)
        .filter_map(|b| {
            let w = &r.groups[b.paired_with?];
            Some(KaomiPairDto {
                size: b.size,
                black: names(&b.stones),
                white: names(&w.stones),
            })
        })
        .collect();
    KaomiEndDto {
        variant: r.variant.code().to_string(),
        groups_black: r.sizes(Color::Black),
        groups_white: r.sizes(Color::White),
        left_black: standard.then(|| r.left(Color::Black)),
        left_white: standard.then(|| r.left(Color::White)),
        score_black: r.scores[0].as_f64(),
        score_white: r.scores[1].as_f64(),
        winner: r.winner.map(color_code),
        margin: r.margin.as_f64(),
        emptied: r.emptied,
        winner_group: r.deciding.map(|i| {
            let g = &r.groups[i];
            KaomiGroupDto {
                color: color_code(g.color),
                size: g.size,
                points: names(&g.stones),
            }
        }),
        removed_pairs,
    }
}
