//! A stored record's game tree as the viewer reads it: the lines (the main
//! line and each variation, as keil-record's validator numbers them), and
//! at each ply of a line its comments, its board markup and the variations
//! that branch there with their verdicts. The moves of a line are replayed
//! by the caller with keil-rules (through [`keil_archive::GameMoves`]), so
//! no rule is restated here.

use keil_record::{MoveValue, Record, VariationVerdict, Verdict};
use keil_rules::{AnyBoard, Color, Move, Point};
use keil_sgf::NodeId;

/// At most this many variations are listed in the compact game tree (a
/// record of an AI review can hold thousands); the rest are counted.
pub(super) const TREE_LISTED: usize = 300;

/// A record read for the viewer, with the validator's verdict on every
/// variation (a record without variations is not replayed here: its main
/// line is the stored game's).
pub(super) struct Tree {
    record: Record,
    verdict: Option<Verdict>,
}

/// One line of the tree: its nodes from the root and its legal moves.
pub(super) struct LineNodes {
    nodes: Vec<NodeId>,
    /// `at_ply[n]`: the index in `nodes` of the node of move `n` (`0`:
    /// the root), for every legal move of the line.
    at_ply: Vec<usize>,
    /// The line's moves up to its first illegal one, with their players.
    pub(super) moves: Vec<(Color, Move)>,
}

impl LineNodes {
    /// The indexes in [`LineNodes::nodes`] of the nodes that belong to ply
    /// `ply`: its move's node and the nodes without a move after it (the
    /// root and the nodes before the first move for ply 0); empty past the
    /// line's end.
    fn span(&self, ply: u32) -> std::ops::Range<usize> {
        let ply = ply as usize;
        let Some(&from) = self.at_ply.get(ply) else {
            return 0..0;
        };
        let to = self
            .at_ply
            .get(ply + 1)
            .copied()
            .unwrap_or(self.nodes.len());
        from..to
    }
}

/// A board markup (SGF `TR`, `SQ`, `CR`, `MA`, `LB`) on one point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Markup {
    pub(super) point: Point,
    /// `tr`, `sq`, `cr`, `ma` or `lb`.
    pub(super) shape: &'static str,
    /// The text of a label (`LB`), else empty.
    pub(super) label: String,
}

/// A variation that branches at the ply shown.
pub(super) struct Branch {
    /// 1-based, the validator's order (file order): the `var` parameter.
    pub(super) number: usize,
    /// The ply of its first move.
    pub(super) ply: u32,
    /// Its first move as players read it (`W D4`, `B pass`), or `(no
    /// move)`.
    pub(super) first: String,
    /// The verdict in words: `unfinished`, `complete`, `invalid:
    /// occupied at ply 58`.
    pub(super) verdict: String,
    /// Its depth among variations (1: leaves the main line).
    pub(super) depth: usize,
}

/// The verdict of a variation in words.
fn verdict_words(v: &VariationVerdict) -> String {
    match &v.illegal {
        Some(i) => format!("{}: {} at ply {}", v.status.code(), i.reason.code(), i.ply),
        None => v.status.code().to_string(),
    }
}

impl Tree {
    /// Reads a stored record (the first game tree of its text); `None`
    /// when it does not read, and the viewer shows the stored main line
    /// alone.
    pub(super) fn read(text: &str) -> Option<Tree> {
        let record = keil_record::read_records(text.as_bytes())
            .into_iter()
            .next()?
            .ok()?;
        let branches = record.tree.nodes().any(|n| {
            n.first_child()
                .is_some_and(|c| record.tree.node(c).next_sibling().is_some())
        });
        let verdict = branches.then(|| keil_record::validate(&record).verdict);
        Some(Tree { record, verdict })
    }

    /// Every variation's verdict, in the validator's (file) order.
    fn all(&self) -> &[VariationVerdict] {
        self.verdict.as_ref().map_or(&[], |v| &v.variations)
    }

    /// The number of variations.
    pub(super) fn variations(&self) -> usize {
        self.all().len()
    }

    /// Variation `number` (1-based), if there is one.
    pub(super) fn variation(&self, number: usize) -> Option<&VariationVerdict> {
        self.all().get(number.checked_sub(1)?)
    }

    /// The nodes of a line: the main line (`None`) or variation `number`
    /// (1-based): at each branch point the child its path names, then
    /// first children to the end. `None` for no such variation.
    pub(super) fn line(&self, variation: Option<usize>) -> Option<LineNodes> {
        let (path, illegal): (&[usize], Option<u32>) = match variation {
            None => (&[], None),
            Some(n) => {
                let v = self.variation(n)?;
                (&v.path, v.illegal.as_ref().map(|i| i.ply))
            }
        };
        let tree = &self.record.tree;
        let mut nodes = Vec::new();
        let mut at_ply = vec![0];
        let mut moves = Vec::new();
        let mut path = path.iter();
        let mut id = NodeId::ROOT;
        let mut legal = true;
        loop {
            if let Some(m) = self.record.node_move(id) {
                let ply = moves.len() as u32 + 1;
                match m.value {
                    MoveValue::Move(mv) if legal && illegal.is_none_or(|i| ply < i) => {
                        moves.push((m.color, mv));
                        at_ply.push(nodes.len());
                    }
                    _ => legal = false,
                }
            }
            nodes.push(id);
            let mut children = tree.children(id).map(|(c, _)| c);
            let first = children.next();
            let Some(first) = first else { break };
            id = match children.next() {
                None => first,
                Some(_) => {
                    let k = path.next().copied().unwrap_or(0);
                    tree.children(id).nth(k).map(|(c, _)| c)?
                }
            };
        }
        Some(LineNodes {
            nodes,
            at_ply,
            moves,
        })
    }

    /// The comments (`C`) of ply `ply` of a line, in node order.
    pub(super) fn comments(&self, line: &LineNodes, ply: u32) -> Vec<String> {
        line.nodes[line.span(ply)]
            .iter()
            .filter_map(|&id| {
                let v = self.record.tree.node(id).value("C")?;
                let text = v.text().trim().to_string();
                (!text.is_empty()).then_some(text)
            })
            .collect()
    }

    /// The board markup of ply `ply` of a line (`TR`, `SQ`, `CR`, `MA`
    /// point lists, compressed rectangles `aa:cc` included; `LB`
    /// `point:text`); values that name no point of `board` are skipped.
    pub(super) fn markup(&self, line: &LineNodes, ply: u32, board: AnyBoard) -> Vec<Markup> {
        let mut out = Vec::new();
        for &id in &line.nodes[line.span(ply)] {
            let node = self.record.tree.node(id);
            for (ident, shape) in [
                ("TR", "tr"),
                ("SQ", "sq"),
                ("CR", "cr"),
                ("MA", "ma"),
                ("LB", "lb"),
            ] {
                let Some(prop) = node.get(ident) else {
                    continue;
                };
                for v in prop.values() {
                    let text = v.text();
                    if shape == "lb" {
                        let Some((at, label)) = text.split_once(':') else {
                            continue;
                        };
                        if let Ok(point) = board.parse_point(at.trim()) {
                            out.push(Markup {
                                point,
                                shape,
                                label: label.chars().take(4).collect(),
                            });
                        }
                        continue;
                    }
                    for point in points_of(board, &text) {
                        out.push(Markup {
                            point,
                            shape,
                            label: String::new(),
                        });
                    }
                }
            }
        }
        out
    }

    /// The variations that branch at ply `ply` of a line: the children of
    /// its nodes that the line does not follow.
    pub(super) fn branches(&self, line: &LineNodes, ply: u32, board: AnyBoard) -> Vec<Branch> {
        let mut out = Vec::new();
        for i in line.span(ply) {
            let follow = line.nodes.get(i + 1).copied();
            for (child, _) in self.record.tree.children(line.nodes[i]) {
                if Some(child) == follow {
                    continue;
                }
                if let Some(k) = self.all().iter().position(|v| v.node == child) {
                    out.push(self.branch(k, board));
                }
            }
        }
        out
    }

    /// Every variation, in the validator's (file) order, at most
    /// [`TREE_LISTED`]: the compact game tree.
    pub(super) fn all_branches(&self, board: AnyBoard) -> Vec<Branch> {
        (0..self.variations().min(TREE_LISTED))
            .map(|k| self.branch(k, board))
            .collect()
    }

    fn branch(&self, k: usize, board: AnyBoard) -> Branch {
        let v = &self.all()[k];
        let first = match self.record.node_move(v.node) {
            Some(m) => {
                let name = match m.value {
                    MoveValue::Move(Move::Place(p)) => board.display_name(p),
                    MoveValue::Move(mv) => board.move_name(mv),
                    _ => self.record.move_text(v.node).unwrap_or_default(),
                };
                format!("{} {name}", if m.color == Color::Black { "B" } else { "W" })
            }
            None => "(no move)".into(),
        };
        let branch_points = v.path.iter().filter(|&&c| c > 0).count().max(1);
        Branch {
            number: k + 1,
            ply: v.branch_ply,
            first,
            verdict: verdict_words(v),
            depth: branch_points,
        }
    }

    /// The verdict of variation `number` in words (see [`Branch::verdict`]).
    pub(super) fn variation_words(&self, number: usize) -> Option<(u32, String)> {
        let v = self.variation(number)?;
        Some((v.branch_ply, verdict_words(v)))
    }
}

/// The points of a point-list value: one point, or a compressed rectangle
/// `aa:cc` (SGF `FF[4]`, square boards).
fn points_of(board: AnyBoard, text: &str) -> Vec<Point> {
    let Some((a, b)) = text.split_once(':') else {
        return board.parse_point(text.trim()).into_iter().collect();
    };
    let (Ok(a), Ok(b)) = (board.parse_point(a.trim()), board.parse_point(b.trim())) else {
        return Vec::new();
    };
    let ((c1, r1), (c2, r2)) = (board.coords(a), board.coords(b));
    let mut out = Vec::new();
    for r in r1.min(r2)..=r1.max(r2) {
        for c in c1.min(c2)..=c1.max(c2) {
            if let Some(p) = board.point_at(i32::from(c), i32::from(r)) {
                out.push(p);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use keil_rules::SquareBoard;

    const RECORD: &str = "(;GM[1]FF[4]SZ[9]C[Before the game]\
        ;B[ee]C[Tengen.]TR[dd][ff]LB[cc:A]\
        (;W[cc]SQ[aa:bb];B[gg])\
        (;W[gc]C[AlphaGo recommended this move.]MA[ee];B[ee])\
        (;W[dc]))";

    fn tree() -> (Tree, AnyBoard) {
        let board = AnyBoard::Square(SquareBoard::new(9).unwrap());
        (Tree::read(RECORD).unwrap(), board)
    }

    #[test]
    fn comments_markup_and_branches_follow_the_line() {
        let (t, board) = tree();
        assert_eq!(t.variations(), 2);
        let main = t.line(None).unwrap();
        assert_eq!(main.moves.len(), 3);
        assert_eq!(t.comments(&main, 0), vec!["Before the game"]);
        assert_eq!(t.comments(&main, 1), vec!["Tengen."]);
        let marks = t.markup(&main, 1, board);
        assert_eq!(marks.len(), 3, "{marks:?}");
        assert_eq!(marks[2].label, "A");
        // The compressed rectangle aa:bb is four points.
        assert_eq!(t.markup(&main, 2, board).len(), 4);
        // After move 1, two variations branch.
        let b = t.branches(&main, 1, board);
        assert_eq!(b.iter().map(|b| b.number).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(b[0].first, "W G7");
        assert_eq!(b[0].ply, 2);
        assert!(t.branches(&main, 2, board).is_empty());
        assert_eq!(t.all_branches(board).len(), 2);
    }

    #[test]
    fn a_variation_is_a_line_cut_at_its_first_illegal_move() {
        let (t, board) = tree();
        let v = t.line(Some(1)).unwrap();
        assert_eq!(t.comments(&v, 2), vec!["AlphaGo recommended this move."]);
        // B[ee] on an occupied point: the line stops before it.
        assert_eq!(v.moves.len(), 2);
        let (ply, words) = t.variation_words(1).unwrap();
        assert_eq!(ply, 2);
        assert!(words.starts_with("invalid: occupied"), "{words}");
        assert_eq!(t.markup(&v, 2, board)[0].shape, "ma");
        assert!(t.line(Some(3)).is_none());
        assert!(t.line(Some(0)).is_none());
        assert_eq!(t.line(Some(2)).unwrap().moves.len(), 2);
    }
}
