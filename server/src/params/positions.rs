//! The position searches' parameters: the API's query, and the
//! explorer page's (a notation, or a line of moves played from the empty
//! board, and the editor).

use keil_archive::PositionQuery;
use keil_rules::{AnyPosition, BoardSpec, GameKind};
use serde::Deserialize;

use super::values::{
    editing, nonempty, parse_color, parse_colors, parse_flag, parse_kind, parse_limit, parse_size,
};
use crate::dto::PositionsQuery;
use crate::error::{ApiError, bad};
use crate::play::{Line, parse_play};

/// The archive query of a position search (`GET /api/v1/positions`, the
/// explorer page): a board (`position`, in its notation) or a line of moves
/// from the empty board (`play`, with `kind` and `size`), symmetry (default
/// off), colours (default fixed), the game filters, the explorer's options
/// and the page. Every error names the parameter and what to write
/// instead. Also the entry point of the `search_query` fuzz target.
///
/// # Errors
/// [`ApiError::BadRequest`] for a parameter that does not read.
pub fn position_query(q: PositionsQuery) -> Result<PositionQuery, ApiError> {
    let kind = nonempty(&q.kind).map(parse_kind).transpose()?;
    let parsed = match (nonempty(&q.position), q.play.as_deref()) {
        (Some(_), Some(_)) => {
            return Err(bad(
                "play",
                "give either position (a board) or play (a line of moves), not both",
            ));
        }
        (Some(text), None) => {
            PositionQuery::parse_inferred(kind, text).map_err(|e| bad("position", e))?
        }
        (None, Some(play)) => {
            let kind = kind.ok_or_else(|| {
                bad(
                    "kind",
                    "required with play: the game whose empty board the line starts from",
                )
            })?;
            let size = nonempty(&q.size)
                .map(parse_size)
                .transpose()?
                .unwrap_or(kind.default_size());
            let spec = keil_rules::BoardSpec::new(kind, size).map_err(|e| bad("size", e))?;
            let line = parse_play(spec, play)?;
            let mut pq = PositionQuery::new(line.position());
            pq.to_move = Some(line.to_move());
            pq
        }
        (None, None) => {
            return Err(ApiError::BadRequest(
                "the query parameter position is required (or play, a line of moves from the empty board of kind)".into(),
            ));
        }
    };
    let symmetry = parse_flag("symmetry", nonempty(&q.symmetry), false)?;
    let swap_colors = parse_colors(q.colors.as_deref(), false)?;
    let explore = q.explore.read()?;
    explore.main_lines_only()?;
    let parsed = parsed.with_options(explore)?;
    let query = PositionQuery {
        symmetry,
        swap_colors,
        filter: q.filter.filter()?,
        limit: parse_limit(nonempty(&q.limit), 20, keil_archive::MAX_PAGE)?,
        cursor: nonempty(&q.cursor).map(str::to_string),
        ..parsed
    };
    Ok(query)
}

/// `GET /positions` parameters: the API's, plus the editor's.
#[derive(Debug, Default, Deserialize)]
pub struct ExplorerParams {
    /// The board in position notation (suffixes as the API reads them).
    pub position: Option<String>,
    /// The game kind (`keil`, `go`, ...); inferred from the notation when
    /// absent; with no position, the empty board's kind (default `keil`).
    pub kind: Option<String>,
    /// With no position: the empty board's size (default: the kind's).
    pub size: Option<String>,
    /// `b` or `w`: the player to move (overrides a suffix).
    pub to_move: Option<String>,
    /// `true`: symmetric images match too.
    pub symmetry: Option<String>,
    /// `swap`: colour-swapped positions match too.
    pub colors: Option<String>,
    /// The game filters (the API's).
    #[serde(flatten)]
    pub filter: crate::dto::GameFilterQuery,
    /// The explorer's options (the API's; `next` is `to_move`).
    #[serde(flatten)]
    pub explore: crate::dto::ExploreQuery,
    /// The next page of games.
    pub cursor: Option<String>,
    /// `1`: the board editor (clicking a point cycles it).
    pub edit: Option<String>,
    /// A line of moves from the empty board of `kind`/`size`
    /// (comma-separated, `Q16` or `pd`, `pass`): the position after it,
    /// captures and the turn applied (`play.rs`). Without `position`
    /// and `edit`, the explorer plays: an absent line is the empty board.
    pub play: Option<String>,
}

/// The explorer's parameters read as far as they go before any archive
/// call: the kind and the size asked for, and whether the editor is on.
/// With neither a position nor a kind, the board is the archive's main
/// one ([`ExplorerBoard::wants_main_board`]), which the caller reads.
pub(crate) struct ExplorerBoard<'a> {
    q: &'a ExplorerParams,
    kind: Option<GameKind>,
    size: Option<u8>,
    /// Whether the board editor is on (`edit=`).
    pub(crate) edit: bool,
}

impl ExplorerParams {
    /// The first step of reading: the kind, the editor switch, the size.
    ///
    /// # Errors
    /// 400 naming `kind` or `size` when it does not read.
    pub(crate) fn board(&self) -> Result<ExplorerBoard<'_>, ApiError> {
        let kind = nonempty(&self.kind)
            .map(|k| k.parse::<GameKind>().map_err(|e| bad("kind", e)))
            .transpose()?;
        let edit = editing(&self.edit);
        let size = nonempty(&self.size)
            .map(|s| {
                s.parse::<u8>()
                    .map_err(|_| bad("size", format!("{s:?} is not a board size")))
            })
            .transpose()?;
        Ok(ExplorerBoard {
            q: self,
            kind,
            size,
            edit,
        })
    }
}

impl ExplorerBoard<'_> {
    /// Whether the board is the archive's main one: no position, no kind.
    pub(crate) fn wants_main_board(&self) -> bool {
        self.kind.is_none() && nonempty(&self.q.position).is_none()
    }

    /// The search the explorer's parameters ask for, and the line played
    /// (`play=`): the page's and its downloads'. `main_board` is the
    /// archive's main board (kind and size), read when
    /// [`ExplorerBoard::wants_main_board`].
    ///
    /// # Errors
    /// 400 naming the parameter that does not read.
    pub(crate) fn query(
        self,
        main_board: Option<(GameKind, u8)>,
    ) -> Result<(PositionQuery, Option<Line>), ApiError> {
        let q = self.q;
        let (kind, size) = (self.kind, self.size);
        // The board of a line or of the editor: as given, else the archive's.
        let board_spec = |kind: GameKind, size: Option<u8>| {
            BoardSpec::new(kind, size.unwrap_or(kind.default_size())).map_err(|e| bad("size", e))
        };
        let spec = match (kind, nonempty(&q.position), main_board) {
            (_, Some(_), _) => None,
            (Some(k), None, _) => Some(board_spec(k, size)?),
            (None, None, main) => {
                let (k, main) = main.unwrap_or((GameKind::Keil, 7));
                Some(board_spec(k, size.or(Some(main)))?)
            }
        };
        let mut line: Option<Line> = None;
        let mut query = match (nonempty(&q.position), spec) {
            (Some(text), _) => {
                PositionQuery::parse_inferred(kind, text).map_err(|e| bad("position", e))?
            }
            (None, Some(spec)) if !self.edit => {
                let l = parse_play(spec, q.play.as_deref().unwrap_or(""))?;
                let mut pq = PositionQuery::new(l.position());
                pq.to_move = Some(l.to_move());
                line = Some(l);
                pq
            }
            (None, Some(spec)) => {
                PositionQuery::new(AnyPosition::empty(spec).map_err(|e| bad("size", e))?)
            }
            (None, None) => unreachable!("a board without a position"),
        };
        if let Some(t) = nonempty(&q.to_move) {
            query.to_move = Some(parse_color("to_move", t)?);
        }
        // The API's parser: `true`/`1`/`yes` (the page once read `yes` as
        // false).
        query.symmetry = parse_flag("symmetry", nonempty(&q.symmetry), false)?;
        query.swap_colors = parse_colors(q.colors.as_deref(), false)?;
        query.filter = q.filter.clone().filter()?;
        let explore = q.explore.read()?;
        let mut query = query.with_options(explore)?;
        query.limit = 20;
        query.cursor = nonempty(&q.cursor).map(str::to_string);
        Ok((query, line))
    }
}
