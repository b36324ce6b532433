//! The placements of a pattern: every translation its mode allows, under
//! the board's symmetries and colour swap, identical ones counted once, and
//! the folding of pattern points that the pattern's own symmetries make
//! equivalent (Kombilo's continuation table).

use std::collections::HashMap;

use keil_rules::{AnyBoard, Point};

use super::pattern::{Cell, Pattern, PatternMode};
use crate::error::PatternError;

/// No pattern point here.
const NONE: u16 = u16::MAX;

/// One placement of a pattern: a translation, then a board symmetry, then
/// perhaps colours exchanged.
#[derive(Clone, Debug)]
pub(crate) struct Placement {
    /// The board points and cells to test (no `Any`), stones first; empty
    /// for a whole-board pattern (the position index tests those).
    pub cells: Vec<(u16, Cell)>,
    /// How many of `cells` are stones (they come first).
    pub stones: usize,
    /// The region: every pattern point's image, `Any` included.
    pub region: [u64; 8],
    /// The translation `(columns, rows)` applied first.
    shift: (i32, i32),
    /// The board symmetry applied after the translation.
    pub sym: u8,
    /// Whether colours are exchanged.
    pub swapped: bool,
}

/// A search's placements, and the folding of the pattern's points under
/// its own symmetries.
#[derive(Debug)]
pub(crate) struct Placements {
    pub list: Vec<Placement>,
    board: AnyBoard,
    /// Board point → the pattern point (index into the pattern's cells)
    /// drawn there, or [`NONE`].
    cell_at: Vec<u16>,
    /// Pattern point index → the index of its orbit's representative.
    pub fold: Vec<u16>,
    /// For the first translation, by `sym * 2 + swapped`: the placement
    /// it is (or duplicates).
    pub first: Vec<Option<u32>>,
    /// The placements (indices) grouped by their non-stone cells: a group
    /// shares that part of the search (a colour-swapped pair without `x`
    /// or `o` points, say).
    pub groups: Vec<Vec<u32>>,
}

impl Placements {
    /// Per board point, the pattern point that placement `pl` puts there
    /// ([`Placements::pattern_point`]), or `u16::MAX` off its region: the
    /// table a search builds once per placement that has hits.
    pub(crate) fn point_table(&self, pl: &Placement) -> Box<[u16]> {
        let mut table = vec![NONE; self.board.len()].into_boxed_slice();
        for (w, &word) in pl.region.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let p = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if let Some(i) = self.pattern_point(pl, Point(p as u16)) {
                    table[p] = i;
                }
            }
        }
        table
    }

    /// The pattern point (index into the pattern's cells) that placement
    /// `pl` puts on board point `p`, if any.
    pub(crate) fn pattern_point(&self, pl: &Placement, p: Point) -> Option<u16> {
        let drawn = self.board.transform(p, self.board.inverse(pl.sym));
        let (c, r) = self.board.coords(drawn);
        let at = self
            .board
            .point_at(i32::from(c) - pl.shift.0, i32::from(r) - pl.shift.1)?;
        let i = self.cell_at[at.index()];
        (i != NONE).then_some(i)
    }
}

/// Every distinct placement of `pattern` in `mode` (see [`PatternMode`]),
/// under the board's symmetries when `symmetry`, and colour-swapped too
/// when `swap`; identical placements (same points, same cells) count once,
/// the first kept.
///
/// # Errors
/// [`PatternError::NotInCorner`], [`PatternError::NotOnSide`],
/// [`PatternError::NoPlacement`].
pub(crate) fn placements(
    pattern: &Pattern,
    mode: PatternMode,
    symmetry: bool,
    swap: bool,
) -> Result<Placements, PatternError> {
    let board = pattern.board();
    let syms: Vec<u8> = if symmetry {
        (0..board.symmetry_count()).collect()
    } else {
        vec![0]
    };
    if pattern.is_whole_board() {
        return Ok(whole_board(pattern, &syms, swap));
    }
    let cells = pattern.cells();
    let coords: Vec<(i32, i32)> = cells
        .iter()
        .map(|&(p, _)| {
            let (c, r) = board.coords(p);
            (i32::from(c), i32::from(r))
        })
        .collect();
    let translations = translations(pattern, mode, &coords)?;
    let mut build = Build::new(board, cells);
    for (t, &(dc, dr)) in translations.iter().enumerate() {
        for &s in &syms {
            for swapped in [false, true] {
                if swapped && !swap {
                    continue;
                }
                let images =
                    coords
                        .iter()
                        .zip(cells)
                        .enumerate()
                        .map(|(i, (&(c, r), &(_, cell)))| {
                            let p = board
                                .point_at(c + dc, r + dr)
                                .expect("translations keep the pattern on the board");
                            let cell = if swapped { cell.swap_colors() } else { cell };
                            (board.transform(p, s).0, cell, i as u16)
                        });
                build.add(images, t == 0, (dc, dr), s, swapped);
            }
        }
    }
    Ok(build.finish())
}

/// The translations of `pattern` (its points' coordinates `coords`) that
/// `mode` allows, (0, 0) first: those that keep its bounding box inside
/// the lattice's square of coordinates (the board's points lie in it) and
/// touch the edges the mode asks for.
///
/// # Errors
/// As [`placements`].
fn translations(
    pattern: &Pattern,
    mode: PatternMode,
    coords: &[(i32, i32)],
) -> Result<Vec<(i32, i32)>, PatternError> {
    let board = pattern.board();
    // Each point's edges, by index.
    let edges_at: Vec<u8> = board.points().map(|p| board.edges(p)).collect();
    // The edges a translation touches, `None` when it leaves the board or
    // touches an edge outside `allowed`.
    let touched = |dc: i32, dr: i32, allowed: u8| -> Option<u8> {
        let mut edges = 0;
        for &(c, r) in coords {
            edges |= edges_at[board.point_at(c + dc, r + dr)?.index()];
            if edges & !allowed != 0 {
                return None;
            }
        }
        Some(edges)
    };
    let (drawn, corner) = pattern.edges();
    match mode {
        PatternMode::Corner if !corner => return Err(PatternError::NotInCorner),
        PatternMode::Side if corner || drawn.count_ones() != 1 => {
            return Err(PatternError::NotOnSide);
        }
        _ => {}
    }
    let width = board.points().map(|p| board.coords(p).0).max().unwrap_or(0);
    let ((c0, r0), (w, h)) = pattern.bounds();
    let (c0, r0, w, h, width) = (
        i32::from(c0),
        i32::from(r0),
        i32::from(w),
        i32::from(h),
        i32::from(width),
    );
    let mut translations = vec![(0, 0)];
    for dr in -r0..=width + 1 - h - r0 {
        for dc in -c0..=width + 1 - w - c0 {
            // A fixed pattern stays as drawn; so does a corner one: touching
            // the two edges it was drawn on fixes its translation.
            if matches!(mode, PatternMode::Fixed | PatternMode::Corner) || (dc, dr) == (0, 0) {
                continue;
            }
            let allowed = match mode {
                PatternMode::Corner | PatternMode::Side => drawn,
                PatternMode::Centre => 0,
                PatternMode::Fixed | PatternMode::Anywhere => u8::MAX,
            };
            let Some(edges) = touched(dc, dr, allowed) else {
                continue;
            };
            let ok = match mode {
                PatternMode::Fixed | PatternMode::Anywhere => true,
                PatternMode::Corner | PatternMode::Side => edges == drawn,
                PatternMode::Centre => edges == 0,
            };
            if ok {
                translations.push((dc, dr));
            }
        }
    }
    if mode == PatternMode::Centre && drawn != 0 {
        translations.remove(0);
    }
    if translations.is_empty() {
        return Err(PatternError::NoPlacement(mode.code()));
    }
    Ok(translations)
}

/// The placements being gathered: each new one kept, one met again (the
/// same points and cells by another mapping) folding the pattern points it
/// maps together, as Kombilo does.
struct Build<'a> {
    cells: &'a [(Point, Cell)],
    out: Placements,
    /// The pattern points' orbits (union-find over their indexes).
    parent: Vec<u16>,
    /// Placements seen, by a fingerprint of their (point, cell) list; the
    /// lists themselves (`keys`) settle a shared fingerprint.
    seen: HashMap<u64, Vec<usize>>,
    keys: Vec<Vec<(u16, Cell)>>,
    /// The current placement's (point, cell, pattern point), by point.
    image: Vec<(u16, Cell, u16)>,
    /// For a large pattern, a table of the board that puts its image in
    /// board order without sorting; empty otherwise.
    dense: Vec<(Cell, u16)>,
}

impl<'a> Build<'a> {
    /// No placement yet of the pattern of `cells` on `board`.
    fn new(board: AnyBoard, cells: &'a [(Point, Cell)]) -> Build<'a> {
        let mut cell_at = vec![NONE; board.len()];
        for (i, &(p, _)) in cells.iter().enumerate() {
            cell_at[p.index()] = i as u16;
        }
        let n = cells.len();
        Build {
            cells,
            out: Placements {
                list: Vec::new(),
                board,
                cell_at,
                fold: Vec::new(),
                first: vec![None; usize::from(board.symmetry_count()) * 2],
                groups: Vec::new(),
            },
            parent: (0..n as u16).collect(),
            seen: HashMap::new(),
            keys: Vec::new(),
            image: Vec::with_capacity(n),
            dense: if n * 8 > board.len() {
                vec![(Cell::Any, NONE); board.len()]
            } else {
                Vec::new()
            },
        }
    }

    /// Adds the placement whose (point, cell, pattern point) triples are
    /// `images`: by translation `shift` (`first`: the untranslated one),
    /// then symmetry `sym`, colours `swapped`.
    fn add(
        &mut self,
        images: impl Iterator<Item = (u16, Cell, u16)>,
        first: bool,
        shift: (i32, i32),
        sym: u8,
        swapped: bool,
    ) {
        let board = self.out.board;
        self.image.clear();
        if self.dense.is_empty() {
            self.image.extend(images);
            self.image.sort_unstable();
        } else {
            // A large pattern: in board order through a table of
            // the board, without sorting.
            for (p, cell, i) in images {
                self.dense[usize::from(p)] = (cell, i);
            }
            for (p, slot) in self.dense.iter_mut().enumerate() {
                if slot.1 != NONE {
                    self.image.push((p as u16, slot.0, slot.1));
                    *slot = (Cell::Any, NONE);
                }
            }
        }
        let key: Vec<(u16, Cell)> = self.image.iter().map(|&(p, c, _)| (p, c)).collect();
        let print = key.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &(p, c)| {
            (h ^ (u64::from(p) << 8 | c as u64)).wrapping_mul(0x0100_0000_01b3)
        });
        let same = self
            .seen
            .get(&print)
            .and_then(|ks| ks.iter().copied().find(|&k| self.keys[k] == key));
        if first {
            self.out.first[usize::from(sym) * 2 + usize::from(swapped)] =
                Some(same.unwrap_or(self.out.list.len()) as u32);
        }
        if let Some(k) = same {
            // The same placement by another mapping: the pattern
            // points it maps together are one (Kombilo folds them).
            if self.out.list[k].swapped == swapped {
                for &(p, _, i) in &self.image {
                    let j = self
                        .out
                        .pattern_point(&self.out.list[k], Point(p))
                        .expect("same points");
                    let (a, b) = (find(&mut self.parent, i), find(&mut self.parent, j));
                    self.parent[usize::from(a.max(b))] = a.min(b);
                }
            }
            return;
        }
        self.seen
            .entry(print)
            .or_default()
            .push(self.out.list.len());
        self.keys.push(key);
        let mut region = [0u64; 8];
        for &(p, _, _) in &self.image {
            region[usize::from(p) / 64] |= 1 << (p % 64);
        }
        let mut tested: Vec<(u16, Cell)> = self
            .image
            .iter()
            .filter(|(_, c, _)| *c != Cell::Any)
            .map(|&(p, c, _)| (p, c))
            .collect();
        tested.sort_by_key(|&(p, c)| (!c.is_stone(), p));
        let stones = tested.iter().filter(|(_, c)| c.is_stone()).count();
        order_by_nearness(board, &mut tested, stones);
        self.out.list.push(Placement {
            stones,
            cells: tested,
            region,
            shift,
            sym,
            swapped,
        });
    }

    /// The placements gathered, with each orbit's representative (its
    /// least point by (column, row)) and the placements grouped by their
    /// non-stone cells.
    fn finish(mut self) -> Placements {
        let (board, cells) = (self.out.board, self.cells);
        let mut out = self.out;
        out.fold = fold(&mut self.parent, |i| board.coords(cells[usize::from(i)].0));
        let mut by_others: HashMap<&[(u16, Cell)], usize> = HashMap::new();
        let mut groups: Vec<Vec<u32>> = Vec::new();
        for (k, pl) in out.list.iter().enumerate() {
            let others = &pl.cells[pl.stones..];
            match by_others.get(others) {
                Some(&g) => groups[g].push(k as u32),
                None => {
                    by_others.insert(others, groups.len());
                    groups.push(vec![k as u32]);
                }
            }
        }
        out.groups = groups;
        out
    }
}

/// Orders the non-stone points (after the first `stones` of `cells`) by
/// their squared distance to the nearest stone, then by point: a scan tests
/// them in this order and stops once every game is decided, which the
/// points nearest the stones (the first to be played in a game that does
/// not match) usually settle.
fn order_by_nearness(board: AnyBoard, cells: &mut [(u16, Cell)], stones: usize) {
    if stones == 0 {
        return;
    }
    let at = |p: u16| {
        let (c, r) = board.coords(Point(p));
        (i32::from(c), i32::from(r))
    };
    let stone_at: Vec<(i32, i32)> = cells[..stones].iter().map(|&(p, _)| at(p)).collect();
    cells[stones..].sort_by_cached_key(|&(p, _)| {
        let (c, r) = at(p);
        let d = stone_at
            .iter()
            .map(|&(sc, sr)| (c - sc).pow(2) + (r - sr).pow(2))
            .min();
        (d, p)
    });
}

/// The placements of a whole-board pattern (the position index tests
/// them, so they carry no cells): one per symmetry and colour side, each
/// compared with those kept by its stones.
fn whole_board(pattern: &Pattern, syms: &[u8], swap: bool) -> Placements {
    let board = pattern.board();
    let n = board.len();
    let mut region = [0u64; 8];
    for p in 0..n {
        region[p / 64] |= 1 << (p % 64);
    }
    let mut out = Placements {
        list: Vec::new(),
        board,
        cell_at: (0..n as u16).collect(),
        fold: Vec::new(),
        first: vec![None; usize::from(board.symmetry_count()) * 2],
        groups: Vec::new(),
    };
    let mut parent: Vec<u16> = (0..n as u16).collect();
    let mut folded = false;
    // The cell an image puts on board point q: the pattern's at s⁻¹(q).
    let inverse: Vec<u8> = (0..board.symmetry_count())
        .map(|s| board.inverse(s))
        .collect();
    // An image is its stones (a whole-board pattern has no wildcards, so
    // two images are equal exactly when their stones are), in board order.
    let stones: Vec<(Point, Cell)> = pattern
        .cells()
        .iter()
        .copied()
        .filter(|(_, c)| c.is_stone())
        .collect();
    let mut images: Vec<Vec<(u16, Cell)>> = Vec::new();
    for &s in syms {
        for swapped in [false, true] {
            if swapped && !swap {
                continue;
            }
            let mut image: Vec<(u16, Cell)> = stones
                .iter()
                .map(|&(p, c)| {
                    let c = if swapped { c.swap_colors() } else { c };
                    (board.transform(p, s).0, c)
                })
                .collect();
            image.sort_unstable();
            let same = images.iter().position(|kept| *kept == image);
            out.first[usize::from(s) * 2 + usize::from(swapped)] =
                Some(same.unwrap_or(out.list.len()) as u32);
            match same {
                Some(k) if out.list[k].swapped == swapped => {
                    // Pattern point p lands where the kept placement
                    // puts other⁻¹(s(p)): the two are one point.
                    let back = inverse[usize::from(out.list[k].sym)];
                    for p in board.points() {
                        let q = board.transform(board.transform(p, s), back);
                        let (a, b) = (find(&mut parent, p.0), find(&mut parent, q.0));
                        parent[usize::from(a.max(b))] = a.min(b);
                    }
                    folded = true;
                }
                Some(_) => {}
                None => {
                    out.list.push(Placement {
                        cells: Vec::new(),
                        stones: 0,
                        region,
                        shift: (0, 0),
                        sym: s,
                        swapped,
                    });
                    images.push(image);
                }
            }
        }
    }
    out.fold = if folded {
        fold(&mut parent, |i| board.coords(Point(i)))
    } else {
        (0..n as u16).collect()
    };
    out
}

/// Each union-find orbit's representative: its least point by `key`.
fn fold(parent: &mut [u16], key: impl Fn(u16) -> (u8, u8)) -> Vec<u16> {
    let n = parent.len() as u16;
    let mut best: Vec<u16> = (0..n).collect();
    for i in 0..n {
        let root = usize::from(find(parent, i));
        if key(i) < key(best[root]) {
            best[root] = i;
        }
    }
    (0..n).map(|i| best[usize::from(find(parent, i))]).collect()
}

/// The root of `x` in a union-find forest, halving paths.
fn find(parent: &mut [u16], mut x: u16) -> u16 {
    while parent[usize::from(x)] != x {
        let up = parent[usize::from(parent[usize::from(x)])];
        parent[usize::from(x)] = up;
        x = up;
    }
    x
}
