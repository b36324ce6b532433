//! The explorer's moves from its position, as links: the continuations
//! found (rows, and discs on the board), every legal move along a line
//! played from the empty board, the editor's cycling points, and the
//! line's own links (each move, the start, undo, pass).

use keil_archive::PositionAnswer;
use keil_rules::{AnyGame, AnyPosition, Color, Move, ToMove};

use crate::pages::names::{color_word, letter as letter_of, link};
use crate::play::Line;
use crate::svg::{self, PointMark};

/// A move of the line played so far, as a link back to it.
pub(super) struct LineLink {
    pub(super) ply: usize,
    pub(super) text: String,
    pub(super) href: String,
}

pub(super) struct ContinuationRow {
    /// The letter of its stone on the board (`A`, `B`, ...; Kombilo's
    /// marking), empty for a row folded away.
    pub(super) letter: String,
    pub(super) color: &'static str,
    pub(super) mv: String,
    pub(super) href: Option<String>,
    pub(super) games: u64,
    pub(super) black_wins: u64,
    pub(super) white_wins: u64,
    pub(super) percent: String,
    /// Black's and White's wins in percent of the move's games (the rest:
    /// neither won).
    pub(super) black_pct: u32,
    pub(super) white_pct: u32,
}

/// Whether a symmetry other than the identity maps the position onto
/// itself (the empty board, ...).
pub(super) fn is_symmetric(pos: &AnyPosition) -> bool {
    (1..pos.board().symmetry_count()).any(|s| pos.transform(s) == *pos)
}

/// The link to the explorer at the position after a continuation. The
/// archive counts the continuations of a symmetric position (the empty
/// board) over its symmetric images, so from one (or with `symmetry`) the
/// link searches the images too.
pub(in crate::pages) fn continuation_href(
    pos: &AnyPosition,
    kind: &str,
    to_move: Color,
    mv: Option<Move>,
    symmetry: bool,
) -> Option<String> {
    let after = position_after(pos, to_move, mv?)?;
    let next = if to_move == Color::Black { "w" } else { "b" };
    let sym = if symmetry || is_symmetric(pos) {
        "true"
    } else {
        ""
    };
    Some(link(
        "/positions",
        &[
            ("kind", kind),
            ("position", &after.to_notation(None)),
            ("to_move", next),
            ("symmetry", sym),
        ],
    ))
}

/// The position after `mv` by `to_move` (captures, or Kaomi's pushes, by
/// the kind's rules).
fn position_after(pos: &AnyPosition, to_move: Color, mv: Move) -> Option<AnyPosition> {
    // A Kaomi game never starts from a setup (kaomi-rules.md, "Records"):
    // a placement is the rules' push procedure on the position itself.
    if let (AnyPosition::Kaomi(p), Move::Place(at)) = (pos, mv) {
        let mut after = *p;
        if after.get(at).is_some() {
            return None;
        }
        after.place(at, to_move);
        return Some(AnyPosition::Kaomi(after));
    }
    let rules = crate::play::default_rules(pos.kind())?;
    let mut game = AnyGame::new(pos.spec(), rules, Some(pos), ToMove::Color(to_move)).ok()?;
    game.play_as(to_move, mv).ok()?;
    Some(game.position())
}

/// The marks on the board: along a line (unless editing) every legal
/// move under the continuations' discs, which link the same moves; while
/// editing, every point cycling.
pub(super) fn board_marks(
    mut found: Vec<PointMark>,
    links: &MoveLinks<'_>,
    edit: bool,
    to_move_code: &str,
) -> Vec<PointMark> {
    let mut marks = match links.line.filter(|_| !edit) {
        Some(l) => legal_moves(l, links),
        None => Vec::new(),
    };
    marks.append(&mut found);
    if edit {
        marks.extend(cycling_points(links.pos, links.kind, to_move_code));
    }
    marks
}

/// The explorer's board: the position with its `marks`, captioned with
/// what the page does and the games found.
pub(super) fn explorer_svg(
    pos: &AnyPosition,
    notation: &str,
    marks: &[PointMark],
    edit: bool,
    total: u64,
) -> String {
    let caption = format!(
        "{} · {} game{}",
        if edit { "editing" } else { "explorer" },
        total,
        if total == 1 { "" } else { "s" }
    );
    svg::render_marked(pos, &caption, Some(notation), marks)
}

/// How the explorer links a move from its position: along the line
/// played (`play=`), else as a continuation of the board.
pub(super) struct MoveLinks<'a> {
    pub(super) pos: &'a AnyPosition,
    pub(super) line: Option<&'a Line>,
    /// The line's `play=` value (empty without a line).
    pub(super) base: &'a str,
    pub(super) kind: &'a str,
    pub(super) size: &'a str,
    /// The `symmetry` of the links after one more move.
    pub(super) next_sym: &'static str,
    pub(super) symmetry: bool,
}

/// The continuation rows shown at once, at most (the most played
/// moves); the rest fold away.
const SHOWN_MAX: usize = 20;

/// The continuation rows always shown when there are that many moves on
/// points; past them a row needs [`SHOWN_MIN_SHARE`].
const SHOWN_ALWAYS: usize = 5;

/// The share of the games a move past the first [`SHOWN_ALWAYS`] needs to
/// be shown at once (1%): rarer ones fold away.
const SHOWN_MIN_SHARE: f64 = 0.01;

/// The continuations found, as the page lists them.
#[derive(Default)]
pub(super) struct Continuations {
    /// Each shown move's stone on the board, lettered as its row (none
    /// while editing).
    pub(super) marks: Vec<PointMark>,
    /// The rows shown at once: moves on points, the most played first.
    pub(super) shown: Vec<ContinuationRow>,
    /// The rows folded away until asked: passes, the games' ends, the
    /// button, and moves past [`SHOWN_MAX`] or rarer than
    /// [`SHOWN_MIN_SHARE`].
    pub(super) folded: Vec<ContinuationRow>,
}

/// The letter of the `i`th continuation shown (`A`…`Z`, then `a`…`z`),
/// as Kombilo letters its continuations.
fn continuation_letter(i: usize) -> String {
    let letters = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    letters
        .get(i)
        .map(|&b| char::from(b).to_string())
        .unwrap_or_default()
}

/// The continuations found: the rows shown (moves on points, the most
/// played first, each with its lettered stone on the board unless
/// editing) and those folded away, each a link to the position after
/// the move.
pub(super) fn continuation_rows(
    answer: &PositionAnswer,
    links: &MoveLinks<'_>,
    edit: bool,
) -> Continuations {
    let MoveLinks {
        pos,
        base,
        kind: kind_code,
        size: size_text,
        next_sym,
        symmetry,
        ..
    } = *links;
    let mut out = Continuations::default();
    for c in &answer.continuations {
        let href = match links.line {
            Some(l) => c
                .next
                .and_then(|m| after(l, pos, base, m))
                .map(|t| play_link(kind_code, size_text, &t, next_sym)),
            None => continuation_href(pos, kind_code, c.to_move, c.next, symmetry),
        };
        let point = match c.next {
            Some(Move::Place(p)) => Some(p),
            _ => None,
        };
        let n = out.shown.len();
        let shown =
            point.is_some() && n < SHOWN_MAX && (n < SHOWN_ALWAYS || c.share >= SHOWN_MIN_SHARE);
        let letter = if shown {
            continuation_letter(n)
        } else {
            String::new()
        };
        if let (true, false, Some(p)) = (shown, edit, point) {
            out.marks.push(PointMark {
                point: p,
                class: if c.to_move == Color::Black {
                    "next-b"
                } else {
                    "next-w"
                },
                label: letter.clone(),
                href: href.clone(),
                title: format!(
                    "{letter}: {} {}: {} games, Black won {}, White won {}",
                    color_word(c.to_move),
                    c.mv,
                    c.games,
                    c.black_wins,
                    c.white_wins
                ),
                fill: None,
                data: Vec::new(),
            });
        }
        let pct = |n: u64| (n * 100).checked_div(c.games).unwrap_or(0) as u32;
        let row = ContinuationRow {
            letter,
            color: letter_of(c.to_move),
            mv: c.mv.clone(),
            href,
            games: c.games,
            black_wins: c.black_wins,
            white_wins: c.white_wins,
            percent: format!("{:.0}", c.share * 100.0),
            black_pct: pct(c.black_wins),
            white_pct: pct(c.white_wins),
        };
        if shown {
            out.shown.push(row);
        } else {
            out.folded.push(row);
        }
    }
    out
}

/// Every legal move after the line `l` as a link on its point: the rules
/// say which (captures, ko and superko, suicide, Kaomi's pushes), not this
/// page.
fn legal_moves(l: &Line, links: &MoveLinks<'_>) -> Vec<PointMark> {
    let pos = links.pos;
    let board = pos.board();
    let mut hot = Vec::new();
    for p in board.points().filter(|&p| pos.get(p).is_none()) {
        let name = pos.display_name(p);
        if let Some(t) = after(l, pos, links.base, Move::Place(p)) {
            hot.push(PointMark {
                point: p,
                class: "hot",
                label: String::new(),
                href: Some(play_link(links.kind, links.size, &t, links.next_sym)),
                title: format!("play {} {name}", color_word(l.to_move())),
                fill: None,
                data: Vec::new(),
            });
        }
    }
    hot
}

/// The editor's points: each a link to the board with that point cycled
/// (empty → black → white → empty).
fn cycling_points(pos: &AnyPosition, kind_code: &str, to_move_code: &str) -> Vec<PointMark> {
    let board = pos.board();
    let mut marks = Vec::new();
    for p in board.points() {
        let mut cycled = *pos;
        let (now, then) = match pos.get(p) {
            None => ("empty", Some(Color::Black)),
            Some(Color::Black) => ("black", Some(Color::White)),
            Some(Color::White) => ("white", None),
        };
        cycled.set(p, then);
        let href = link(
            "/positions",
            &[
                ("edit", "1"),
                ("kind", kind_code),
                ("position", &cycled.to_notation(None)),
                ("to_move", to_move_code),
            ],
        );
        marks.push(PointMark {
            point: p,
            class: "hot",
            label: String::new(),
            href: Some(href),
            title: format!("{} ({now}): click to cycle", board.display_name(p)),
            fill: None,
            data: Vec::new(),
        });
    }
    marks
}

/// The line played, move by move: each move's link (the line up to it),
/// the start's, the undo's (the line without its last move) and the
/// pass's (`None` when the rules refuse a pass).
pub(super) fn line_links(
    l: &Line,
    links: &MoveLinks<'_>,
) -> (Vec<LineLink>, String, Option<String>, Option<String>) {
    let (kind_code, size_text) = (links.kind, links.size);
    let mut line_links = Vec::new();
    let mut undo = None;
    let start_href = play_link(kind_code, size_text, "", "");
    // Each move's link is the line up to it: the prefixes, grown once.
    let mut prefix = String::new();
    for (i, name) in l.names().iter().enumerate() {
        if i > 0 {
            undo = Some(play_link(kind_code, size_text, &prefix, ""));
            prefix.push(',');
        } else {
            undo = Some(start_href.clone());
        }
        prefix.push_str(name);
        line_links.push(LineLink {
            ply: i + 1,
            text: format!("{}. {} {name}", i + 1, letter_of(l.colors[i])),
            href: play_link(kind_code, size_text, &prefix, ""),
        });
    }
    let pass = after(l, links.pos, links.base, Move::Pass)
        .map(|t| play_link(kind_code, size_text, &t, ""));
    (line_links, start_href, undo, pass)
}

/// The `play=` value after one more move (`base`: the line's value, `pos`:
/// its position), or `None` when the rules refuse the move.
fn after(line: &Line, pos: &AnyPosition, base: &str, mv: Move) -> Option<String> {
    line.legal(mv).then(|| {
        let name = crate::play::move_name(pos, mv);
        if base.is_empty() {
            name
        } else {
            format!("{base},{name}")
        }
    })
}

/// The explorer after a line of moves.
fn play_link(kind: &str, size: &str, play: &str, symmetry: &str) -> String {
    link(
        "/positions",
        &[
            ("kind", kind),
            ("size", size),
            ("play", play),
            ("symmetry", symmetry),
        ],
    )
}

#[cfg(test)]
mod tests {
    use keil_rules::BoardSpec;

    use super::*;

    #[test]
    fn a_continuation_link_plays_the_move_with_captures() {
        let spec = BoardSpec::new(keil_rules::GameKind::Go, 9).unwrap();
        let mut pos = AnyPosition::empty(spec).unwrap();
        let board = pos.board();
        let p = |n: &str| board.parse_point(n).unwrap();
        // A white stone in the corner with one liberty left.
        pos.set(p("aa"), Some(Color::White));
        pos.set(p("ba"), Some(Color::Black));
        let href =
            continuation_href(&pos, "go", Color::Black, Some(Move::Place(p("ab"))), false).unwrap();
        let mut want = AnyPosition::empty(spec).unwrap();
        want.set(p("ba"), Some(Color::Black));
        want.set(p("ab"), Some(Color::Black));
        assert_eq!(
            href,
            link(
                "/positions",
                &[
                    ("kind", "go"),
                    ("position", &want.to_notation(None)),
                    ("to_move", "w")
                ]
            )
        );
        assert_eq!(
            continuation_href(&pos, "go", Color::Black, None, false),
            None
        );
        // From the empty board, the link searches the symmetric images.
        let empty = AnyPosition::empty(spec).unwrap();
        let first = continuation_href(
            &empty,
            "go",
            Color::Black,
            Some(Move::Place(p("ee"))),
            false,
        )
        .unwrap();
        assert!(first.ends_with("&to_move=w&symmetry=true"), "{first}");
    }
}
