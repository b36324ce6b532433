//! A game's events: the changes of its points' states (empty, black,
//! white) node by node, with a marker for each move's own stone (see
//! [`super::index`] for the time line they make). They come from a replay
//! of the stored moves ([`build`]) or, at import, from the validator's
//! plies ([`build_from_plies`]); both give the same events, and the
//! columns are derived from them by [`columns_of`].

use keil_rules::{AnyBoard, AnyGame, Color, IllegalMove, Move, Point};

use keil_store::model::GameMoves;

/// "Never": no such node (nodes are clamped below it).
pub(crate) const NEVER: u16 = 0x3FFF;
/// Set in the arrival lane when the first stone was white.
pub(super) const WHITE: u16 = 0x4000;

/// An event: bits 0..9 the point, 9..11 its state after the event (0
/// empty, 1 black, 2 white), bit 11 set for a move's own point, bit 12 set
/// when that move was White's, bits 16.. the node.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    zerocopy::FromBytes,
    zerocopy::IntoBytes,
    zerocopy::Immutable,
    zerocopy::KnownLayout,
)]
#[repr(transparent)]
pub(crate) struct Event(u32);

const MOVE_BIT: u32 = 1 << 11;
const WHITE_MOVE_BIT: u32 = 1 << 12;

impl Event {
    fn new(node: u16, point: Point, state: u8, mover: Option<Color>) -> Event {
        let mv = match mover {
            None => 0,
            Some(Color::Black) => MOVE_BIT,
            Some(Color::White) => MOVE_BIT | WHITE_MOVE_BIT,
        };
        Event(u32::from(node) << 16 | mv | u32::from(state) << 9 | u32::from(point.0))
    }

    /// The event as stored in a block ([`super::block`]).
    pub(crate) fn raw(self) -> u32 {
        self.0
    }

    /// An event from [`Event::raw`]'s bits.
    pub(crate) fn from_raw(raw: u32) -> Event {
        Event(raw)
    }

    pub(crate) fn node(self) -> u16 {
        (self.0 >> 16) as u16
    }

    pub(crate) fn point(self) -> usize {
        (self.0 & 0x1FF) as usize
    }

    pub(crate) fn state(self) -> u8 {
        (self.0 >> 9 & 3) as u8
    }

    /// The player of the move whose own point this is; `None` for a
    /// setup stone, a capture or a push.
    pub(crate) fn mover(self) -> Option<Color> {
        if self.0 & MOVE_BIT == 0 {
            None
        } else if self.0 & WHITE_MOVE_BIT != 0 {
            Some(Color::White)
        } else {
            Some(Color::Black)
        }
    }
}

/// A game replayed for the index: its events and its per-point columns.
pub(crate) struct Built {
    pub events: Vec<Event>,
    /// Per point: arrival (with its colour bit), departure.
    pub columns: Vec<[u16; 2]>,
}

/// Each point's first-life columns (arrival with its colour bit,
/// departure) from a game's events: the one home of the first-life rule,
/// for a replay ([`build`]), the validator's plies and a
/// game read from a block.
pub(crate) fn columns_of(points: usize, events: &[Event]) -> Vec<[u16; 2]> {
    let mut state = vec![0u8; points];
    let mut columns = vec![[NEVER; 2]; points];
    for e in events {
        let (p, new, node) = (e.point(), e.state(), e.node());
        let old = &mut state[p];
        if *old != new {
            let col = &mut columns[p];
            if col[0] == NEVER && *old == 0 {
                col[0] = if new == 2 { node | WHITE } else { node };
            } else if col[1] == NEVER {
                col[1] = node;
            }
            *old = new;
        }
    }
    columns
}

/// A node number as events hold it: below [`NEVER`].
fn clamp_node(n: u32) -> u16 {
    n.min(u32::from(NEVER) - 1) as u16
}

fn state_of(b: &keil_rules::PointSet, w: &keil_rules::PointSet, p: Point) -> u8 {
    if b.contains(p) {
        1
    } else if w.contains(p) {
        2
    } else {
        0
    }
}

/// A game's events as they are found, with each point's state (0 empty,
/// 1 black, 2 white) so far.
struct Events {
    state: Vec<u8>,
    events: Vec<Event>,
}

impl Events {
    /// The events of `start`'s stones, at node 0.
    fn new(board: AnyBoard, start: &keil_rules::AnyPosition, plies: usize) -> Events {
        let mut e = Events {
            state: vec![0u8; board.len()],
            events: Vec::with_capacity(plies + 8),
        };
        for (colour, v) in [(Color::Black, 1), (Color::White, 2)] {
            for p in start.stones(colour).iter() {
                e.change(0, p, v, None);
            }
        }
        e
    }

    /// Point `p` is `new` at node `node` (`mover` for a move's own point):
    /// an event unless nothing changed.
    fn change(&mut self, node: u16, p: Point, new: u8, mover: Option<Color>) {
        let old = &mut self.state[p.index()];
        if *old == new && mover.is_none() {
            return;
        }
        *old = new;
        self.events.push(Event::new(node, p, new, mover));
    }

    fn built(self, board: AnyBoard) -> Built {
        let columns = columns_of(board.len(), &self.events);
        Built {
            events: self.events,
            columns,
        }
    }
}

/// Replays a stored game and returns its events and columns.
///
/// # Errors
/// The first move that does not replay (a corrupt archive).
pub(crate) fn build(m: &GameMoves) -> Result<Built, IllegalMove> {
    let board = m.board;
    let mut game: AnyGame = m.start();
    let mut e = Events::new(board, &game.position(), m.moves.len());
    let mut touched = Vec::new();
    for i in 0..m.moves.len() {
        let color = m.color(i, &game);
        let out = m.play(i, &mut game)?;
        let node = clamp_node(m.nodes.get(i).copied().unwrap_or(i as u32 + 1));
        touched.clear();
        touched.extend(out.captured.iter().copied());
        touched.extend(out.suicided.iter().copied());
        for &(from, to) in &out.moved {
            touched.extend([from, to]);
        }
        let placed = match m.moves[i] {
            Move::Place(p) => Some(p),
            // Kaomi's pie rule gives the first stone to the other player.
            Move::Swap => {
                touched.extend(board.points());
                None
            }
            Move::Pass | Move::TakeButton => None,
        };
        if touched.is_empty() && placed.is_none() {
            continue;
        }
        let pos = game.position();
        let (b, w) = (pos.stones(Color::Black), pos.stones(Color::White));
        if let Some(p) = placed {
            e.change(node, p, state_of(&b, &w, p), Some(color));
        }
        for &p in &touched {
            e.change(node, p, state_of(&b, &w, p), None);
        }
    }
    Ok(e.built(board))
}

/// What [`build`] gives for a game the validator has just replayed, from
/// its plies (each ply's mover, move, captures and suicided stones;
/// `nodes[i]` ply `i`'s node), without replaying it again: the import's
/// pattern index costs no second replay. `None` for a game this does not
/// cover (a setup during the game, a Kaomi push or swap): replay it with
/// [`build`].
pub(crate) fn build_from_plies(
    board: AnyBoard,
    start: &keil_rules::AnyPosition,
    plies: &[keil_record::PlyRecord],
    nodes: &[u32],
) -> Option<Built> {
    let mut e = Events::new(board, start, plies.len());
    for (i, ply) in plies.iter().enumerate() {
        if ply.setup.is_some() || !ply.moved.is_empty() || ply.mv == Move::Swap {
            return None;
        }
        let node = clamp_node(nodes.get(i).copied().unwrap_or(i as u32 + 1));
        if let Move::Place(p) = ply.mv {
            let own = if ply.suicided.contains(&p) {
                0
            } else if ply.color == Color::Black {
                1
            } else {
                2
            };
            e.change(node, p, own, Some(ply.color));
        }
        for &p in ply.captured.iter().chain(&ply.suicided) {
            e.change(node, p, 0, None);
        }
    }
    Some(e.built(board))
}
