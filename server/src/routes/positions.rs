//! Positions: a game's board after a ply (JSON and SVG) and the search
//! for games that reached a board.

use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use keil_rules::{Color, Move, Point};

use super::{json_body, load_replay};
use crate::dto::*;
use crate::error::{ApiError, Problem};
use crate::http::game_data;
use crate::params::Query;
use crate::state::ServerState;
use crate::{svg, work};

/// The board after a ply (0: the start): stones, notation, player to move,
/// the last move and what it captured.
#[utoipa::path(get, path = "/api/v1/games/{id}/positions/{ply}", tag = "games",
    params(("id" = i64, Path, minimum = 1, description = "The game id (a positive integer)"), ("ply" = u32, Path, minimum = 0, description = "0 for the start, else the ply (1-based) after which to show the board")),
    responses(
        (status = 200, description = "The position (ETag, cacheable)", body = PositionDto),
        (status = 400, description = "The ply is not a number", body = Problem, content_type = "application/problem+json"),
        (status = 400, description = "The id (or ply) is not a number in range (ids are 1 to 2^63-1)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or ply", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get_position(
    req: HttpRequest,
    state: Data<ServerState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (id, ply) = path.into_inner();
    let (line, r) = load_replay(&state, &id, &ply).await?;
    let board = line.board;
    let names = |c: Color| -> Vec<String> {
        r.position
            .stones(c)
            .iter()
            .map(|p| board.point_name(p))
            .collect()
    };
    let dto = PositionDto {
        game_id: line.id,
        ply: r.last.map_or(0, |l| l.0),
        plies: r.plies,
        size: board.size(),
        notation: r.position.to_notation(Some(r.to_move)),
        to_move: color_code(r.to_move),
        button_taken: r.position.button_taken(),
        black: names(Color::Black),
        white: names(Color::White),
        last_move: r.last.map(|(ply, color, mv)| MoveDto {
            ply,
            color: color_code(color),
            mv: board.move_name(mv),
        }),
        captured: r.captured.iter().map(|&p| board.point_name(p)).collect(),
        captures: CapturesDto {
            black: r.captures[0],
            white: r.captures[1],
        },
        moved: r
            .moved
            .iter()
            .map(|&(from, to)| PushDto {
                from: board.point_name(from),
                to: board.point_name(to),
            })
            .collect(),
    };
    Ok(game_data(&req, "application/json", json_body(&dto)))
}

/// The board after a ply drawn as SVG: the hexagon of points with
/// coordinates, the stones, the last move marked, captured stones faded and
/// crossed.
#[utoipa::path(get, path = "/api/v1/games/{id}/positions/{ply}.svg", tag = "games",
    params(("id" = i64, Path, minimum = 1, description = "The game id (a positive integer)"), ("ply" = u32, Path, minimum = 0, description = "0 for the start, else the ply after which to draw the board")),
    responses(
        (status = 200, description = "The board (ETag, cacheable)", content_type = "image/svg+xml", body = String),
        (status = 400, description = "The id (or ply) is not a number in range (ids are 1 to 2^63-1)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or ply", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get_position_svg(
    req: HttpRequest,
    state: Data<ServerState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (id, ply) = path.into_inner();
    let (line, r) = load_replay(&state, &id, &ply).await?;
    let board = line.board;
    let captured: Vec<(Point, Color)> = match r.last {
        Some((_, color, _)) => r.captured.iter().map(|&p| (p, color.opposite())).collect(),
        None => Vec::new(),
    };
    let last_point = match r.last {
        Some((_, _, Move::Place(p))) => Some(p),
        _ => None,
    };
    let to_move = if r.to_move == Color::Black {
        "Black"
    } else {
        "White"
    };
    let mut caption = format!(
        "game {} · ply {}/{}",
        line.id,
        r.last.map_or(0, |l| l.0),
        r.plies
    );
    if let Some((_, color, mv)) = r.last {
        let name = match mv {
            Move::Place(p) => r.position.display_name(p),
            m => board.move_name(m),
        };
        caption.push_str(&format!(" · {} {name}", color.letter()));
    }
    caption.push_str(&format!(" · {to_move} to move"));
    if r.position.button_taken() == Some(true) {
        caption.push_str(" · button taken");
    }
    let drawing = svg::Drawing {
        position: &r.position,
        last: last_point,
        captured: &captured,
        caption: &caption,
    };
    let body = match &r.position {
        keil_rules::AnyPosition::Kaomi(_) => svg::render_kaomi(
            &drawing,
            &svg::KaomiMarks {
                moved: &r.moved,
                result: r.kaomi.as_ref(),
            },
        ),
        _ => svg::render(&drawing),
    };
    Ok(game_data(&req, "image/svg+xml", body.into_bytes()))
}

/// Games that reached a board (exactly, or any of its 12 symmetric
/// images), whoever was to move and whatever the button's state unless the
/// query's suffixes say, with what was played next and how it scored, per
/// matched position; each game writes the position it matched in full.
#[utoipa::path(get, path = "/api/v1/positions", tag = "positions", params(PositionsQuery, GameFilterQuery, ExploreQuery),
    responses(
        (status = 200, description = "Matching games and continuation statistics", body = PositionSearchDto),
        (status = 400, description = "The position notation (or another parameter) does not parse", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The search ran past the server's query budget (`--query-budget`); `Retry-After` says when to retry", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn search_positions(
    state: Data<ServerState>,
    q: Query<PositionsQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = crate::params::position_query(q.into_inner())?;
    let (symmetry, swap_colors) = (query.symmetry, query.swap_colors);
    let position = query.notation();
    let kind = query.position.kind().code();
    let answer = work::search(&state, move |a, b| {
        Ok(a.positions().search_within(&query, b)?)
    })
    .await?;
    Ok(HttpResponse::Ok().json(PositionSearchDto {
        position,
        kind: kind.to_string(),
        symmetry,
        swap_colors,
        total_games: answer.total_games,
        continuations: answer
            .continuations
            .into_iter()
            .map(|c| ContinuationDto {
                mv: c.mv,
                to_move: color_code(c.to_move),
                button_taken: c.button_taken,
                games: c.games,
                black_wins: c.black_wins,
                white_wins: c.white_wins,
                share: c.share,
                history: history_dto(c.history),
            })
            .collect(),
        history: history_dto(answer.history),
        collections: answer
            .collections
            .map(|c| c.into_iter().map(Into::into).collect()),
        games: answer.games.into_iter().map(position_game).collect(),
        next_cursor: answer.next_cursor,
        top_games: answer.top_games.into_iter().map(position_game).collect(),
        recent_games: answer.recent_games.into_iter().map(position_game).collect(),
    }))
}

/// A game of a position search's answer as the API writes it.
fn position_game(g: keil_archive::PositionHit) -> PositionGameDto {
    PositionGameDto {
        id: g.game_id,
        ply: g.ply,
        next: g.next,
        symmetry: g.symmetry,
        swapped: g.swapped,
        position: g.position,
        to_move: color_code(g.to_move),
        button_taken: g.button_taken,
        game: g.game.into(),
    }
}
