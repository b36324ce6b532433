//! The refused records the archive keeps: their list (`/refused`, with the
//! API's filters and keyset pages) and one record (`/refused/{id}`): its
//! main line replayed in the game viewer up to the refused move, that move
//! marked on the board, and why it was refused in words.

use actix_web::web::{self, Data};
use askama::Template;
use keil_archive::{GameId, RefusedId, RefusedSummary};
use keil_rules::Move;

use super::board::{MoveItem, board_panel, show};
use super::forms::drop_blank;
use super::names::{kind_name, kinds, link};
use super::respond::{PageResult, blocking, render};
use crate::assets::{Assets, assets};
use crate::dto::RefusedQuery;
use crate::error::{ApiError, PageError};
use crate::params::{PageQuery, View, ViewParams};
use crate::state::ServerState;
use crate::svg::PointMark;

/// A row of the refused list.
struct RefusedRow {
    id: RefusedId,
    reason: String,
    words: String,
    board: String,
    source: String,
    index: usize,
    import_id: String,
}

impl From<&RefusedSummary> for RefusedRow {
    fn from(r: &RefusedSummary) -> RefusedRow {
        RefusedRow {
            id: r.id,
            reason: r.reason.clone(),
            words: crate::refusal::in_words(r, None),
            board: board_name(r),
            source: r.source.clone(),
            index: r.index,
            import_id: r.import_id.to_string(),
        }
    }
}

/// `Go 19×19`, `Keil side 7`, or what the record says of it.
fn board_name(r: &RefusedSummary) -> String {
    let kind = r.kind.as_deref().map(kind_name).unwrap_or_default();
    match (r.kind.as_deref(), r.size) {
        (Some("keil"), Some(n)) => format!("{kind} side {n}"),
        (_, Some(n)) => format!("{kind} {n}×{n}").trim().to_string(),
        _ => kind,
    }
}

#[derive(Template)]
#[template(path = "refused_list.html")]
struct RefusedListPage<'a> {
    a: &'a Assets,
    /// The archive's name ([`crate::state::Site`]).
    site: crate::assets::SiteName,
    title: &'a str,
    rows: Vec<RefusedRow>,
    reason: String,
    kind: String,
    size: String,
    import: String,
    kinds: Vec<(String, String)>,
    next: Option<String>,
}

/// `GET /refused?reason=…&kind=…&size=…&import=…&after=…`: the kept
/// refused records, the latest first, a page at a time.
pub async fn refused_list_page(q: PageQuery<RefusedQuery>, state: Data<ServerState>) -> PageResult {
    let mut q = q.into_inner();
    for v in [
        &mut q.import,
        &mut q.reason,
        &mut q.kind,
        &mut q.size,
        &mut q.order,
        &mut q.limit,
        &mut q.after,
    ] {
        drop_blank(v);
    }
    let (filter, limit) = crate::params::refused_query(&q)?;
    let page = blocking(&state, move |a| Ok(a.refused_list(&filter, limit)?)).await?;
    let keep = |v: &Option<String>| v.clone().unwrap_or_default();
    let (reason, kind, size, import) = (
        keep(&q.reason),
        keep(&q.kind),
        keep(&q.size),
        keep(&q.import),
    );
    let next = page.next.map(|n| {
        link(
            "/refused",
            &[
                ("reason", &reason),
                ("kind", &kind),
                ("size", &size),
                ("import", &import),
                ("after", &n.to_string()),
            ],
        )
    });
    let kinds = kinds(&state.site, &kind);
    render(&RefusedListPage {
        a: assets(),
        site: state.site.name(),
        title: "Refused records",
        rows: page.items.iter().map(RefusedRow::from).collect(),
        reason,
        kind,
        size,
        import,
        kinds,
        next,
    })
}

#[derive(Template)]
#[template(path = "refused.html")]
struct RefusedPage<'a> {
    a: &'a Assets,
    /// The archive's name ([`crate::state::Site`]).
    site: crate::assets::SiteName,
    title: String,
    id: RefusedId,
    words: String,
    r: RefusedSummary,
    board: String,
    record: String,
    /// The viewer, when the record's line replays.
    panel: Option<String>,
    ply: u32,
    plies: u32,
    keep: String,
    moves: Vec<MoveItem>,
}

/// `GET /refused/{id}?ply=N`: a kept refused record in the game viewer,
/// replayed up to the refused move (the default ply: the position it was
/// played on, with the move marked), why it was refused, and its text.
pub async fn refused_page(
    state: Data<ServerState>,
    id: web::Path<String>,
    q: PageQuery<ViewParams>,
) -> PageResult {
    let id: RefusedId = crate::params::numbered_id("id", &id)?;
    let view = View::parse(&q)?;
    let (record, line) = blocking(&state, move |a| {
        a.refused_line(id)?.ok_or_else(|| {
            PageError(ApiError::NotFound(format!(
                "no refused record with id {id}"
            )))
        })
    })
    .await?;
    let words = crate::refusal::in_words(&record.summary, line.as_ref());
    let (mut panel, mut ply, mut plies, mut keep, mut moves) =
        (None, 0, 0, String::new(), Vec::new());
    if let Some(l) = line {
        let as_game = GameId::new(id.get()).ok_or_else(|| ApiError::NotFound(id.to_string()))?;
        let mut sh = show(as_game, l.moves, &record.record, view)?;
        sh.title = format!("Refused record {id}");
        if let Some((_, Move::Place(p))) = l.refused
            && sh.ply == sh.plies
            && sh.view.var.is_none()
        {
            sh.marks.push(PointMark {
                point: p,
                class: "refused",
                label: String::new(),
                href: None,
                title: format!("{}: the refused move. {words}", sh.board.display_name(p)),
                fill: None,
                data: Vec::new(),
            });
        }
        panel = Some(board_panel(&sh));
        (ply, plies, keep) = (sh.ply, sh.plies, sh.view.keep());
        moves = sh.line.moves;
    }
    render(&RefusedPage {
        a: assets(),
        site: state.site.name(),
        title: format!("Refused record {id}"),
        id,
        board: board_name(&record.summary),
        words,
        r: record.summary,
        record: record.record,
        panel,
        ply,
        plies,
        keep,
        moves,
    })
}
