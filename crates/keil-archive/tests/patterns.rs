//! Pattern search against brute force: patterns cut from generated Keil,
//! Go and Kaomi games (with wildcards), in every mode, with and without
//! symmetry and colour swap, each answer (games, first node and hits per
//! game, continuation table) equal to the one a deliberately simple matcher
//! computes by replaying every stored game and testing every placement at
//! every node.

mod common;

use std::collections::BTreeMap;

use keil_archive::{
    Archive, Cell, GameId, GameKind, ImportOptions, ImportSource, Pattern, PatternMode,
    PatternQuery,
};
use keil_gen::{Generator, GeneratorConfig};
use keil_rules::{AnyBoard, Color, Move, Point};

/// A stored game replayed: the state of every point (0 empty, 1 black,
/// 2 white) after node 0 and after each move, with the move's node, point
/// and player.
struct Line {
    id: GameId,
    winner: Option<Color>,
    /// (node, state after it).
    states: Vec<(u32, Vec<u8>)>,
    /// (node, point, player) of each move placing a stone.
    moves: Vec<(u32, Point, Color)>,
}

fn state_of(pos: &keil_rules::AnyPosition, board: AnyBoard) -> Vec<u8> {
    let (b, w) = (pos.stones(Color::Black), pos.stones(Color::White));
    board
        .points()
        .map(|p| {
            if b.contains(p) {
                1
            } else if w.contains(p) {
                2
            } else {
                0
            }
        })
        .collect()
}

fn archive_of(configs: Vec<GeneratorConfig>) -> (tempfile::TempDir, Archive, Vec<Line>) {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let mut sources = Vec::new();
    for (i, config) in configs.into_iter().enumerate() {
        let bytes: Vec<u8> = Generator::new(config)
            .unwrap()
            .flat_map(|g| g.record.into_bytes())
            .collect();
        sources.push(ImportSource::Bytes {
            name: format!("gen{i}.sgf"),
            bytes,
        });
    }
    // A record with a comment-only node and a setup root: node numbers
    // that are not one move per node.
    sources.push(ImportSource::Bytes {
        name: "nodes.sgf".into(),
        bytes: b"(;GM[1]FF[4]SZ[9]AB[cc]AW[gg];B[cg];C[a comment node];W[gc];;B[ee];W[cd])"
            .to_vec(),
    });
    let report = archive
        .import(&sources, &ImportOptions::default(), &mut |_| {})
        .unwrap();
    assert!(report.invalid.is_empty(), "{:?}", report.invalid);
    let games = archive.stats().unwrap().games;
    let mut lines = Vec::new();
    for id in (1..=games).map(|n| GameId::new(n).unwrap()) {
        let m = archive.games().moves(id).unwrap().unwrap();
        let summary = archive.games().summaries(&[id]).unwrap().remove(0);
        let mut game = m.start();
        let mut states = vec![(0, state_of(&game.position(), m.board))];
        let mut moves = Vec::new();
        for i in 0..m.moves.len() {
            let color = m.color(i, &game);
            m.play(i, &mut game).unwrap();
            states.push((m.nodes[i], state_of(&game.position(), m.board)));
            if let Move::Place(p) = m.moves[i] {
                moves.push((m.nodes[i], p, color));
            }
        }
        lines.push(Line {
            id,
            winner: summary.winner,
            states,
            moves,
        });
    }
    (dir, archive, lines)
}

/// A placement as the simple matcher sees it: board point → (cell,
/// pattern point index), and whether colours are exchanged.
type Simple = (BTreeMap<u16, (Cell, usize)>, bool);

fn allows(c: Cell, s: u8) -> bool {
    match c {
        Cell::Black => s == 1,
        Cell::White => s == 2,
        Cell::Empty => s == 0,
        Cell::Any => true,
        Cell::BlackOrEmpty => s != 2,
        Cell::WhiteOrEmpty => s != 1,
    }
}

/// Every distinct placement, by trying every translation and symmetry;
/// and the pattern points to fold (those two mappings of one placement
/// send to the same board point).
fn simple_placements(
    p: &Pattern,
    mode: PatternMode,
    symmetry: bool,
    swap: bool,
) -> (Vec<Simple>, Vec<usize>) {
    let board = p.board();
    let cells = p.cells();
    let edges_at = |dc: i32, dr: i32| -> Option<(u8, Vec<Point>)> {
        let mut e = 0;
        let mut pts = Vec::new();
        for &(q, _) in cells {
            let (c, r) = board.coords(q);
            let at = board.point_at(i32::from(c) + dc, i32::from(r) + dr)?;
            e |= board.edges(at);
            pts.push(at);
        }
        Some((e, pts))
    };
    let drawn = edges_at(0, 0).unwrap().0;
    let mut out: Vec<Simple> = Vec::new();
    let mut fold: Vec<usize> = (0..cells.len()).collect();
    for dr in -30..=30 {
        for dc in -30..=30 {
            let Some((e, pts)) = edges_at(dc, dr) else {
                continue;
            };
            let ok = match mode {
                PatternMode::Fixed => (dc, dr) == (0, 0),
                PatternMode::Anywhere => true,
                PatternMode::Corner | PatternMode::Side => e == drawn,
                PatternMode::Centre => e == 0,
            };
            if !ok {
                continue;
            }
            let syms = if symmetry { board.symmetry_count() } else { 1 };
            for s in 0..syms {
                for swapped in [false, true] {
                    if swapped && !swap {
                        continue;
                    }
                    let map: BTreeMap<u16, (Cell, usize)> = pts
                        .iter()
                        .enumerate()
                        .map(|(i, &q)| {
                            let c = cells[i].1;
                            let c = if swapped { c.swap_colors() } else { c };
                            (board.transform(q, s).0, (c, i))
                        })
                        .collect();
                    let cells_of = |m: &BTreeMap<u16, (Cell, usize)>| -> Vec<(u16, Cell)> {
                        m.iter().map(|(&q, &(c, _))| (q, c)).collect()
                    };
                    match out.iter().find(|(m, _)| cells_of(m) == cells_of(&map)) {
                        Some((kept, kept_swapped)) => {
                            if *kept_swapped == swapped {
                                for (q, &(_, i)) in &map {
                                    let j = kept[q].1;
                                    let (a, b) = (root(&mut fold, i), root(&mut fold, j));
                                    fold[a.max(b)] = a.min(b);
                                }
                            }
                        }
                        None => out.push((map, swapped)),
                    }
                }
            }
        }
    }
    // Each point's representative: the least (column, row) of its class.
    let n = cells.len();
    let key = |i: usize| board.coords(cells[i].0);
    let reps: Vec<usize> = (0..n)
        .map(|i| {
            let r = root(&mut fold, i);
            (0..n)
                .filter(|&j| root(&mut fold.clone(), j) == r)
                .min_by_key(|&j| key(j))
                .unwrap()
        })
        .collect();
    (out, reps)
}

fn root(f: &mut [usize], mut x: usize) -> usize {
    while f[x] != x {
        x = f[x];
    }
    x
}

/// The answer as the simple matcher computes it: per game (first node,
/// hits), and per pattern point (B, W, B after tenuki, W after tenuki,
/// wins of the pattern's Black, of its White).
type Expected = (BTreeMap<GameId, (u32, u32)>, BTreeMap<String, [u64; 6]>);

fn expected(lines: &[Line], p: &Pattern, kind: GameKind, q: &PatternQuery) -> Expected {
    let (placements, reps) = simple_placements(p, q.mode, q.symmetry, q.swap_colors);
    let mut games = BTreeMap::new();
    let mut conts: BTreeMap<String, [u64; 6]> = BTreeMap::new();
    for line in lines {
        let m_kind = if line.states[0].1.len() == p.board().len() {
            kind
        } else {
            continue;
        };
        let _ = m_kind;
        let mut first: Option<u32> = None;
        let mut hits = 0;
        for (map, swapped) in &placements {
            let Some(&(t, _)) = line
                .states
                .iter()
                .find(|(_, s)| map.iter().all(|(&q, &(c, _))| allows(c, s[usize::from(q)])))
            else {
                continue;
            };
            hits += 1;
            first = Some(first.map_or(t, |f| f.min(t)));
            let next = line
                .moves
                .iter()
                .find(|&&(n, pt, _)| n > t && map.contains_key(&pt.0));
            if let Some(&(n, pt, color)) = next {
                let color = if *swapped { color.opposite() } else { color };
                let i = reps[map[&pt.0].1];
                let name = p.board().point_name(p.cells()[i].0);
                let e = conts.entry(name).or_default();
                let k = color.index();
                e[k] += 1;
                e[2 + k] += u64::from(n - t >= 3);
                let winner = if *swapped {
                    line.winner.map(Color::opposite)
                } else {
                    line.winner
                };
                e[4] += u64::from(winner == Some(Color::Black));
                e[5] += u64::from(winner == Some(Color::White));
            }
        }
        if let Some(f) = first {
            games.insert(line.id, (f, hits));
        }
    }
    (games, conts)
}

/// Checks the search in every symmetry and colour setting; returns the
/// games and continuations found (so a test can see it found some).
fn check(
    archive: &Archive,
    lines: &[Line],
    kind: GameKind,
    p: &Pattern,
    mode: PatternMode,
) -> (usize, usize) {
    let mut found = (0, 0);
    for symmetry in [false, true] {
        for swap in [false, true] {
            let mut q = PatternQuery::new(p.clone(), mode);
            q.symmetry = symmetry;
            q.swap_colors = swap;
            q.limit = 10_000;
            let answer = archive.patterns().search(&q).unwrap();
            let (games, conts) = expected(lines, p, kind, &q);
            let ours: BTreeMap<GameId, (u32, u32)> = answer
                .games
                .iter()
                .map(|h| (h.game_id, (h.node, h.hits)))
                .collect();
            let what = format!("{kind:?} {p} {mode:?} symmetry {symmetry} swap {swap}");
            assert_eq!(ours, games, "{what}");
            // Listed latest date first, then highest id; pages of 7
            // through the cursor list the same games.
            let listed: Vec<(String, GameId)> = answer
                .games
                .iter()
                .map(|h| (h.game.date.clone(), h.game_id))
                .collect();
            let mut sorted = listed.clone();
            sorted.sort_by(|a, b| b.cmp(a));
            assert_eq!(listed, sorted, "{what}");
            if symmetry && swap {
                let mut paged = Vec::new();
                q.limit = 7;
                loop {
                    let page = archive.patterns().search(&q).unwrap();
                    paged.extend(page.games.iter().map(|h| (h.game.date.clone(), h.game_id)));
                    match page.next_cursor {
                        Some(c) => q.cursor = Some(c),
                        None => break,
                    }
                }
                assert_eq!(paged, listed, "{what}");
            }
            assert_eq!(
                answer.total_hits,
                games.values().map(|g| u64::from(g.1)).sum::<u64>(),
                "{what}"
            );
            let ours: BTreeMap<String, [u64; 6]> = answer
                .continuations
                .iter()
                .map(|c| {
                    (
                        c.point.clone(),
                        [
                            c.black.count,
                            c.white.count,
                            c.black.after_tenuki,
                            c.white.after_tenuki,
                            c.black.black_wins + c.white.black_wins,
                            c.black.white_wins + c.white.white_wins,
                        ],
                    )
                })
                .collect();
            assert_eq!(ours, conts, "{what}");
            found.0 += games.len();
            found.1 += conts.len();
        }
    }
    found
}

fn tally(seen: &mut (usize, usize), found: (usize, usize)) {
    seen.0 += found.0;
    seen.1 += found.1;
}

/// A tiny deterministic generator for the patterns.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// A pattern cut from a game's state at some node: the points of
/// `region`, each with its value, some turned into wildcards.
fn cut(
    lines: &[Line],
    board: AnyBoard,
    kind: GameKind,
    region: &[Point],
    rng: &mut Rng,
) -> Pattern {
    cut_at(lines, board, kind, region, rng, usize::MAX, true)
}

/// [`cut`] from the first `nodes` states of the game, with wildcards or
/// without.
fn cut_at(
    lines: &[Line],
    board: AnyBoard,
    kind: GameKind,
    region: &[Point],
    rng: &mut Rng,
    nodes: usize,
    wildcards: bool,
) -> Pattern {
    let candidates: Vec<&Line> = lines
        .iter()
        .filter(|l| l.states[0].1.len() == board.len())
        .collect();
    let line = candidates[rng.below(candidates.len())];
    let (_, state) = &line.states[rng.below(line.states.len().min(nodes))];
    let cells = region.iter().map(|&p| {
        let wild = if wildcards { rng.below(6) } else { 6 };
        let c = match (state[p.index()], wild) {
            (_, 0) => Cell::Any,
            (0, 1) => Cell::BlackOrEmpty,
            (0, _) => Cell::Empty,
            (1, 1) => Cell::BlackOrEmpty,
            (1, _) => Cell::Black,
            (_, 1) => Cell::WhiteOrEmpty,
            _ => Cell::White,
        };
        (p, c)
    });
    Pattern::new(kind, board.size(), cells).unwrap()
}

fn rect(board: AnyBoard, c0: i32, r0: i32, w: i32, h: i32) -> Vec<Point> {
    let mut out = Vec::new();
    for r in r0..r0 + h {
        for c in c0..c0 + w {
            out.push(board.point_at(c, r).unwrap());
        }
    }
    out
}

#[test]
fn square_boards_agree_with_brute_force_in_every_mode() {
    let (_dir, archive, lines) = archive_of(vec![
        GeneratorConfig {
            game: GameKind::Go,
            games: 30,
            size: 9,
            seed: 14,
            ..GeneratorConfig::default()
        },
        GeneratorConfig {
            game: GameKind::Kaomi,
            games: 25,
            size: 7,
            seed: 15,
            ..GeneratorConfig::default()
        },
    ]);
    let mut rng = Rng(14);
    let mut seen = (0, 0);
    for (kind, size) in [(GameKind::Go, 9u8), (GameKind::Kaomi, 7)] {
        let spec = keil_rules::BoardSpec { kind, size };
        let board = spec.board().unwrap();
        let n = i32::from(size);
        for _ in 0..6 {
            // Corner: a 3x3 in the top-left corner; side: 2x3 on the top
            // edge, off the corners; centre and anywhere: 2x2 inside.
            for (region, modes) in [
                (
                    rect(board, 0, 0, 3, 3),
                    &[PatternMode::Corner, PatternMode::Fixed][..],
                ),
                (rect(board, 2, 0, 3, 2), &[PatternMode::Side]),
                (
                    rect(board, n / 2 - 1, 2, 2, 2),
                    &[PatternMode::Centre, PatternMode::Anywhere],
                ),
            ] {
                let pattern = cut(&lines, board, kind, &region, &mut rng);
                for &mode in modes {
                    tally(&mut seen, check(&archive, &lines, kind, &pattern, mode));
                }
            }
        }
    }
    // 7x7 corner patterns without wildcards from early nodes, the ones
    // the region index answers (the 9x9 board's corner regions overlap).
    let board = keil_rules::BoardSpec {
        kind: GameKind::Go,
        size: 9,
    }
    .board()
    .unwrap();
    for _ in 0..8 {
        let region = rect(board, 2 * rng.below(2) as i32, 0, 7, 7);
        let pattern = cut_at(&lines, board, GameKind::Go, &region, &mut rng, 9, false);
        for mode in [PatternMode::Corner, PatternMode::Fixed] {
            tally(
                &mut seen,
                check(&archive, &lines, GameKind::Go, &pattern, mode),
            );
        }
    }
    // The patterns come from the games: the answers are not empty.
    assert!(seen.0 > 100 && seen.1 > 50, "{seen:?}");
}

#[test]
fn keil_hexagon_agrees_with_brute_force_in_every_mode() {
    let (_dir, archive, lines) = archive_of(vec![GeneratorConfig {
        games: 40,
        size: 4,
        seed: 16,
        ..GeneratorConfig::default()
    }]);
    let board = AnyBoard::Hex(keil_rules::Board::new(4).unwrap());
    let mut rng = Rng(16);
    let at = |c, r| board.point_at(c, r).unwrap();
    let mut seen = (0, 0);
    for _ in 0..6 {
        // A corner point and two neighbours; three points along the edge
        // c = 0 (no corner); a point and its six neighbours inside.
        let centre: Vec<Point> = [(3, 3), (4, 3), (2, 3), (3, 4), (3, 2), (4, 4), (2, 2)]
            .iter()
            .map(|&(c, r)| at(c, r))
            .collect();
        for (region, modes) in [
            (
                vec![at(0, 0), at(1, 0), at(1, 1)],
                &[PatternMode::Corner][..],
            ),
            (vec![at(0, 1), at(0, 2), at(1, 2)], &[PatternMode::Side]),
            (
                centre,
                &[
                    PatternMode::Centre,
                    PatternMode::Anywhere,
                    PatternMode::Fixed,
                ],
            ),
        ] {
            let pattern = cut(&lines, board, GameKind::Keil, &region, &mut rng);
            for &mode in modes {
                tally(
                    &mut seen,
                    check(&archive, &lines, GameKind::Keil, &pattern, mode),
                );
            }
        }
    }
    assert!(seen.0 > 100 && seen.1 > 50, "{seen:?}");
}

#[test]
fn nodes_count_setup_and_moveless_nodes() {
    let (_dir, archive, _lines) = archive_of(vec![]);
    // The white stone at gc came at node 3 (root 0, B[cg] 1, comment 2).
    let p = Pattern::parse(GameKind::Go, 9, "O:gc X:cc", PatternMode::Fixed).unwrap();
    let mut q = PatternQuery::new(p, PatternMode::Fixed);
    q.symmetry = false;
    q.swap_colors = false;
    let a = archive.patterns().search(&q).unwrap();
    assert_eq!(a.games.len(), 1);
    assert_eq!((a.games[0].node, a.games[0].ply), (3, 2));
    // Its continuation: B[ee] at node 5, 2 nodes on: not after tenuki.
    let p = Pattern::parse(GameKind::Go, 9, "O:gc X:cc .:ee", PatternMode::Fixed).unwrap();
    let mut q = PatternQuery::new(p, PatternMode::Fixed);
    q.symmetry = false;
    q.swap_colors = false;
    let a = archive.patterns().search(&q).unwrap();
    assert_eq!(a.continuations.len(), 1);
    assert_eq!(a.continuations[0].point, "ee");
    assert_eq!(
        (
            a.continuations[0].black.count,
            a.continuations[0].black.after_tenuki
        ),
        (1, 0)
    );
}

#[test]
fn notation_errors_name_what_to_fix() {
    let e = Pattern::parse(GameKind::Go, 19, "..X/.Q.", PatternMode::Corner).unwrap_err();
    assert!(e.to_string().contains("row 2, column 2"), "{e}");
    let e = Pattern::parse(GameKind::Go, 19, "..X/..", PatternMode::Corner).unwrap_err();
    assert!(e.to_string().contains("row 2 has 2 cells"), "{e}");
    let e = Pattern::parse(GameKind::Keil, 7, "..X/...", PatternMode::Anywhere).unwrap_err();
    assert!(e.to_string().contains("VALUE:POINT"), "{e}");
    let e = Pattern::parse(GameKind::Go, 9, "X:zz", PatternMode::Fixed).unwrap_err();
    assert!(e.to_string().contains("zz"), "{e}");
    let e = Pattern::parse(GameKind::Go, 9, "X:dd O:dd", PatternMode::Fixed).unwrap_err();
    assert!(e.to_string().contains("twice"), "{e}");
    // Round trip of both notations.
    for (kind, size, text) in [
        (GameKind::Go, 19, "..X/.O./*xo@dd"),
        (GameKind::Keil, 7, "X:g7 O:h8 .:g8,h7"),
    ] {
        let p = Pattern::parse(kind, size, text, PatternMode::Anywhere).unwrap();
        assert_eq!(p.to_string(), text);
        assert_eq!(
            Pattern::parse(kind, size, &p.to_string(), PatternMode::Anywhere).unwrap(),
            p
        );
    }
    // A corner pattern drawn away from the corner is refused at search.
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let p = Pattern::parse(GameKind::Go, 19, "..X/...@dd", PatternMode::Corner).unwrap();
    let e = archive
        .patterns()
        .search(&PatternQuery::new(p, PatternMode::Corner))
        .unwrap_err();
    assert!(e.to_string().contains("corner"), "{e}");
}

/// A pattern of stones alone in `corner` or `side` mode reads as the
/// smallest region that holds them and reaches the nearest corner (or
/// edge), the rest of it empty; a drawn region is never grown.
#[test]
fn stones_alone_grow_their_region_to_the_corner_or_side() {
    let go = |text: &str, mode| Pattern::parse(GameKind::Go, 19, text, mode);
    // The 4-4 stone and the knight's approach: the top-left 4×6 box.
    let p = go("X:dd O:cf", PatternMode::Corner).unwrap();
    assert_eq!(p.to_string(), "..../..../..../...X/..../..O.@aa");
    // The nearest corner is chosen: here the top right.
    let p = go("X:pd O:qf", PatternMode::Corner).unwrap();
    assert_eq!(p.to_string(), "..../..../..../X.../..../.O..@pa");
    // Side: a 4th-line stone reaches the top edge, not a corner.
    let p = go("X:jd", PatternMode::Side).unwrap();
    assert_eq!(p.to_string(), "./././X@ja");
    // Other modes, and a pattern with a drawn region, stay as named.
    assert_eq!(
        go("X:dd O:cf", PatternMode::Anywhere)
            .unwrap()
            .cells()
            .len(),
        2
    );
    assert_eq!(
        go("X:dd .:de", PatternMode::Corner).unwrap().cells().len(),
        2
    );
    // A hexagon: the region reaches one of its six corners.
    let k = Pattern::parse(GameKind::Keil, 7, "X:g7", PatternMode::Corner).unwrap();
    let board = k.board();
    assert!(k.cells().len() > 1);
    assert!(
        k.cells()
            .iter()
            .any(|&(q, _)| board.edges(q).count_ones() >= 2)
    );
    assert_eq!(
        k.cells().iter().filter(|(_, c)| *c == Cell::Black).count(),
        1
    );
}

/// The page's `auto` mode: a drawn region follows its edges; stones
/// alone near a corner are a joseki, near one edge a side pattern.
#[test]
fn the_natural_mode_follows_the_region_or_the_stones() {
    let mode = |text: &str| {
        Pattern::parse(GameKind::Go, 19, text, PatternMode::Anywhere)
            .unwrap()
            .natural_mode()
    };
    assert_eq!(mode("X:dd O:cf"), PatternMode::Corner);
    assert_eq!(mode("X:qp O:oq"), PatternMode::Corner);
    assert_eq!(mode("X:jd"), PatternMode::Side);
    assert_eq!(mode("X:jj O:kk"), PatternMode::Centre);
    assert_eq!(mode("...../..X..@aa"), PatternMode::Corner);
    assert_eq!(mode("...../..X..@ha"), PatternMode::Side);
    assert_eq!(mode("...../..X..@hh"), PatternMode::Centre);
    assert_eq!(mode("X:aa,sa"), PatternMode::Corner);
}

/// A joseki named by its stones finds what the drawn corner finds.
#[test]
fn a_joseki_named_by_its_stones_finds_the_drawn_corner() {
    let (_dir, archive, _) = archive_of(vec![GeneratorConfig {
        game: GameKind::Go,
        games: 30,
        size: 9,
        seed: 21,
        ..GeneratorConfig::default()
    }]);
    let games = |p: Pattern| {
        let a = archive
            .patterns()
            .search(&PatternQuery::new(p, PatternMode::Corner))
            .unwrap();
        (a.total_games, a.total_hits)
    };
    let named = Pattern::parse(GameKind::Go, 9, "X:cc", PatternMode::Corner).unwrap();
    let drawn = Pattern::parse(GameKind::Go, 9, ".../.../..X", PatternMode::Corner).unwrap();
    assert_eq!(named, drawn);
    let found = games(named);
    assert!(found.0 > 0, "{found:?}");
    assert_eq!(found, games(drawn));
}
