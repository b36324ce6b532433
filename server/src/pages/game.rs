//! The game viewer: the board panel ([`super::board`]) at a ply of the
//! main line or of a variation, the move list, the game tree, the game's
//! facts; and the board panel alone, which the viewer's script fetches as
//! it steps.

use actix_web::HttpRequest;
use actix_web::http::header;
use actix_web::web::{self, Data};
use askama::Template;
use keil_archive::GameId;

use super::board::{MoveItem, board_panel, show};
use super::names::Row;
use super::respond::{PageResult, blocking, render};
use super::tree::Branch;
use crate::assets::{Assets, assets};
use crate::error::{ApiError, PageError};
use crate::http::CSP;
use crate::params::{PageQuery, View, ViewParams};
use crate::state::ServerState;

#[derive(Template)]
#[template(path = "game.html")]
struct GamePage<'a> {
    a: &'a Assets,
    /// The archive's name ([`crate::state::Site`]).
    site: crate::assets::SiteName,
    title: String,
    heading: String,
    id: GameId,
    ply: u32,
    plies: u32,
    /// `Plies` (Keil) or `Moves` (Go, Kaomi): the count's name
    /// ([`super::names::plies_heading`]).
    plies_word: &'static str,
    panel: String,
    /// The query the viewer's script keeps (`var=2&numbers=1&`).
    keep: String,
    moves: Vec<MoveItem>,
    g: Row,
    ruleset: String,
    komi: String,
    handicap: u32,
    round: String,
    place: String,
    game_name: String,
    status: &'static str,
    verdict: String,
    result_source: &'static str,
    score: Option<String>,
    black_q: String,
    white_q: String,
    tree: Vec<Branch>,
    tree_more: usize,
    on_variation: Option<usize>,
    /// The game's records (its own first) when it has more than one.
    records: Vec<RecordRow>,
    /// Games with the same moves and their own game information.
    similar: Vec<SimilarRow>,
}

/// One of the game's records as its page lists it.
struct RecordRow {
    record: i64,
    /// Whether the viewer shows this record.
    shown: bool,
    source: String,
    players: String,
    date: String,
    result: String,
    /// How it is the game, in words.
    how: String,
}

impl From<keil_archive::GameRecord> for RecordRow {
    fn from(r: keil_archive::GameRecord) -> RecordRow {
        use keil_archive::MergeKind as K;
        let differs = r
            .differs
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let how = match r.merge_kind {
            None if r.record == 0 => "the record the game was stored from".to_string(),
            None => "merged by an older version (not checked yet)".to_string(),
            Some(K::Identical) => "the same moves".to_string(),
            Some(K::Symmetric) => "the same moves, drawn in another orientation".to_string(),
            Some(K::Prefix) => "the same moves, one record cut short".to_string(),
            Some(K::Transposed) => "the same moves of each colour, in another order".to_string(),
            Some(K::Discrepancy) => format!("the same players and date; moves {differs} differ"),
        };
        let players = format!(
            "{} – {}",
            r.black.as_deref().unwrap_or("?"),
            r.white.as_deref().unwrap_or("?")
        );
        let source = match (r.source, r.index) {
            (Some(s), Some(i)) if i > 0 => format!("{s}, game {}", i + 1),
            (Some(s), _) => s,
            (None, _) => "(not kept)".to_string(),
        };
        RecordRow {
            record: r.record,
            shown: false,
            source,
            players,
            date: r.date.unwrap_or_default(),
            result: r.result.unwrap_or_default(),
            how,
        }
    }
}

/// A similar game as the page lists it.
struct SimilarRow {
    id: GameId,
    players: String,
    date: String,
}

/// What a stored game's status says; `checked`: whether the rules compare
/// the result with a computed score.
fn status_sentence(s: keil_archive::GameStatus, checked: bool) -> &'static str {
    use keil_archive::GameStatus as S;
    match s {
        S::Complete if checked => {
            "legal throughout; ended by passes, and the result agrees with the computed score"
        }
        S::Complete => "legal throughout; ended by passes",
        S::Resigned => "legal throughout; a player resigned",
        S::Time => "legal throughout; a player lost on time",
        S::Forfeit => "legal throughout; a player forfeited",
        S::Scored => "legal throughout; the result is taken as written",
        S::Unfinished => "legal throughout; not finished",
    }
}

/// The game of a viewer request and its parameters read.
///
/// # Errors
/// 400 for a bad id or parameter, 404 for no such game.
async fn load(
    state: &Data<ServerState>,
    id: &str,
    q: &ViewParams,
) -> Result<(GameId, View, keil_archive::Game), PageError> {
    let id = crate::params::parse_id(id)?;
    let view = View::parse(q)?;
    let game = blocking(state, move |a| {
        let mut game = a
            .games()
            .get(id)?
            .ok_or_else(|| PageError(ApiError::NotFound(format!("no game with id {id}"))))?;
        if let Some(n) = view.record {
            // Another source's record: its own text and main line, its
            // setup in its own orientation.
            let missing = || {
                PageError(ApiError::NotFound(format!(
                    "game {id} has no record {n}: its records are listed on its page"
                )))
            };
            let record = a
                .games()
                .records(id)?
                .into_iter()
                .find(|r| r.record == n)
                .ok_or_else(missing)?;
            game.record = a.games().record_text(id, n)?.ok_or_else(missing)?;
            let board = game.moves.board;
            let inverse = (0..board.symmetry_count())
                .find(|&t| board.compose(record.transform, t) == 0)
                .unwrap_or(0);
            if let Some(setup) = &mut game.moves.setup {
                *setup = setup.transform(inverse);
            }
        }
        Ok(game)
    })
    .await?;
    Ok((id, view, game))
}

/// The record a viewer request shows: 0 for the game's own.
fn view_record(q: &ViewParams) -> Result<i64, PageError> {
    Ok(View::parse(q)?.record.unwrap_or(0))
}

/// `GET /games/{id}?ply=N&var=K&numbers=1&record=R`: the game viewer.
pub async fn game_page(
    state: Data<ServerState>,
    id: web::Path<String>,
    q: PageQuery<ViewParams>,
) -> PageResult {
    let (id, view, game) = load(&state, &id, &q).await?;
    let (records, similar) = blocking(&state, move |a| {
        Ok((a.games().records(id)?, a.games().similar(id)?))
    })
    .await?;
    let records = record_rows(records, view_record(&q)?);
    let similar = similar.into_iter().map(SimilarRow::from).collect();
    render(&game_view(
        id,
        view,
        game,
        records,
        similar,
        state.site.name(),
    )?)
}

/// The game's records as its page lists them, `shown` marked; none when
/// the game has only its own.
fn record_rows(records: Vec<keil_archive::GameRecord>, shown: i64) -> Vec<RecordRow> {
    if records.len() <= 1 {
        return Vec::new();
    }
    records
        .into_iter()
        .map(RecordRow::from)
        .map(|r| RecordRow {
            shown: r.record == shown,
            ..r
        })
        .collect()
}

impl From<keil_archive::SimilarGame> for SimilarRow {
    fn from(s: keil_archive::SimilarGame) -> SimilarRow {
        SimilarRow {
            id: s.game.id,
            players: format!(
                "{} – {}",
                s.game.black.as_deref().unwrap_or("?"),
                s.game.white.as_deref().unwrap_or("?")
            ),
            date: s.game.date.clone().unwrap_or_default(),
        }
    }
}

/// The game page's view: the board panel at the ply asked for, the move
/// list, the tree, the game's facts, its records and similar games,
/// under the archive's name `site`.
fn game_view(
    id: GameId,
    view: View,
    game: keil_archive::Game,
    records: Vec<RecordRow>,
    similar: Vec<SimilarRow>,
    site: crate::assets::SiteName,
) -> Result<GamePage<'static>, PageError> {
    let summary = game.summary;
    let handicap = game.moves.handicap;
    let sh = show(id, game.moves, &game.record, view)?;
    let panel = board_panel(&sh);
    let checked = sh.result_checked;
    let complete = summary.status == keil_archive::GameStatus::Complete;
    let score = (complete && checked).then(|| {
        let s = sh.line.end.score();
        format!("Black {}, White {} (komi included)", s.black, s.white)
    });
    let g = Row::from(&summary);
    let heading = heading(&summary, &g);
    let (tree, tree_more) = match &sh.tree {
        Some(t) => {
            let all = t.all_branches(sh.board);
            let more = t.variations().saturating_sub(all.len());
            (all, more)
        }
        None => (Vec::new(), 0),
    };
    Ok(GamePage {
        a: assets(),
        site,
        title: heading.clone(),
        heading,
        id,
        ply: sh.ply,
        plies: sh.plies,
        plies_word: super::names::plies_heading(summary.kind),
        panel,
        keep: sh.view.keep(),
        moves: sh.line.moves,
        ruleset: summary.ruleset.clone(),
        komi: summary.komi.to_string(),
        handicap,
        round: summary.round.clone().unwrap_or_default(),
        place: summary.place.clone().unwrap_or_default(),
        game_name: summary.game_name.clone().unwrap_or_default(),
        status: summary.status.code(),
        verdict: status_sentence(summary.status, checked).to_string(),
        result_source: result_source(&summary, checked),
        score,
        black_q: summary.black.clone().unwrap_or_default(),
        white_q: summary.white.clone().unwrap_or_default(),
        tree,
        tree_more,
        on_variation: sh.view.var,
        records,
        similar,
        g,
    })
}

/// The page's heading: the players with their ranks, the kind and the
/// board.
fn heading(summary: &keil_archive::GameSummary, g: &Row) -> String {
    let name = |n: &Option<String>, rank: &str| {
        let n = n.clone().unwrap_or_else(|| "?".into());
        if rank.is_empty() {
            n
        } else {
            format!("{n} {rank}")
        }
    };
    format!(
        "{} – {} · {} {}",
        name(&summary.black, &g.black_rank),
        name(&summary.white, &g.white_rank),
        g.kind_name,
        g.size_name
    )
}

/// Where the result shown comes from, in words (`checked`: whether the
/// rules compare it with a computed score).
fn result_source(summary: &keil_archive::GameSummary, checked: bool) -> &'static str {
    let complete = summary.status == keil_archive::GameStatus::Complete;
    if summary.result.is_none() {
        ""
    } else if checked && complete {
        "as the record gives it, checked against the computed score"
    } else if complete {
        "as the record gives it: the players' result, not counted here (the rules count by agreement, go-rules.md)"
    } else {
        "as the record gives it"
    }
}

/// `GET /games/{id}/board?ply=N&var=K&numbers=1`: the board panel alone
/// (HTML fragment), fetched by the viewer's script when stepping.
pub async fn board_fragment(
    req: HttpRequest,
    state: Data<ServerState>,
    id: web::Path<String>,
    q: PageQuery<ViewParams>,
) -> PageResult {
    let (id, view, game) = load(&state, &id, &q).await?;
    let sh = show(id, game.moves, &game.record, view)?;
    let body = board_panel(&sh);
    let mut r = crate::http::game_data(&req, "text/html; charset=utf-8", body.into_bytes());
    r.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        header::HeaderValue::from_static(CSP),
    );
    Ok(r)
}
