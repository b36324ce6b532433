//! The corner index of a square board: for each stored game and each of
//! the board's four 7×7 corner regions, the first node at which the region
//! held each of its contents with 1 to [`MAX_STONES`] stones, found by
//! content (Kombilo hashes its corner positions the same way).
//!
//! A pattern whose every placement covers exactly one of these regions,
//! with a black, white or empty value at each of its 49 points and 1 to
//! [`MAX_STONES`] stones, is answered here by one lookup per placement: the
//! usual 7×7 corner joseki search. A few wildcards are expanded: a
//! placement whose `x`, `o` and `*` points stand for at most
//! [`MAX_CONTENTS`] contents, each with 1 to [`MAX_STONES`] stones, is one
//! lookup per content. Every other pattern, and every board smaller than
//! 8×8 or not square, is left to the scan of [`super::index`]. The two
//! give the same `(game, placement, first node)` triples; the tests
//! compare them on generated games.
//!
//! **Keys** are exact, not hashes: the region's number (bits 60..64), the
//! number of stones (56..60), and below them each stone as its point's
//! rank in the region (0..49) and its colour, 7 bits a stone, in rank
//! order (at most 8 × 7 = 56 bits).
//!
//! **Layout.** Entries are kept in segments, each sorted by key and then
//! game: a key's games and first nodes are one contiguous run. Games added
//! after the load (an import while a server runs) make a new segment, which
//! is merged with the one before it while it holds at least a quarter as
//! many entries ([`MERGE_RATIO`]): segment sizes shrink geometrically, so
//! there are few of them and an entry is re-sorted a few times at most,
//! and a one-game upload never re-sorts the whole index. Games only grow,
//! so segments come in game order.

use keil_rules::{AnyBoard, Point};
use rayon::prelude::*;

use super::Cell;
use super::index::Event;
use super::placement::Placement;

/// The side of a corner region, in points.
pub(crate) const SIDE: i32 = 7;
/// The most stones a region's content may hold to be indexed: the contents
/// searched most (joseki openings) have few, and a pattern with more
/// stones is found fast by the scan, whose first test is its stones.
pub(crate) const MAX_STONES: u32 = 8;
/// Most contents a placement may stand for (its `x`, `o` and `*` points
/// expanded) to be answered here: 2 ways for each `x` or `o`, 3 for `*`.
pub(crate) const MAX_CONTENTS: usize = 64;
/// A new segment is merged with the one before it while it holds at least
/// 1 / `MERGE_RATIO` as many entries.
const MERGE_RATIO: usize = 4;

/// The corner index of one board.
#[derive(Debug)]
pub(crate) struct Corners {
    /// Each region's points, as a bit set of board points.
    regions: Vec<[u64; 8]>,
    /// Per board point, the regions holding it and its rank in each.
    members: Vec<Vec<(u8, u8)>>,
    segments: Vec<Segment>,
    /// Entries of games pushed since the last [`Corners::seal`]: (key,
    /// game index, first node).
    pending: Vec<(u64, u32, u16)>,
}

/// Entries sorted by key, then game.
#[derive(Debug, Default)]
struct Segment {
    keys: Vec<u64>,
    /// `starts[i]..starts[i + 1]`: the entries of `keys[i]`.
    starts: Vec<u32>,
    games: Vec<u32>,
    nodes: Vec<u16>,
}

/// The top-left points `(column, row)` of the four corner regions of an
/// `n`×`n` board.
fn origins(n: i32) -> [(i32, i32); 4] {
    [(0, 0), (n - SIDE, 0), (0, n - SIDE), (n - SIDE, n - SIDE)]
}

/// The key of a region's content (see the module docs): `black` and
/// `white` are bit sets of ranks in region `region`.
fn key(region: u8, black: u64, white: u64) -> u64 {
    let stones = black | white;
    let mut codes = 0u64;
    let mut bits = stones;
    while bits != 0 {
        let rank = u64::from(bits.trailing_zeros());
        codes = codes << 7 | rank << 1 | (white >> rank & 1);
        bits &= bits - 1;
    }
    u64::from(region) << 60 | u64::from(stones.count_ones()) << 56 | codes
}

impl Corners {
    /// The corner index of `board`, empty; `None` for a board without
    /// four separate corner regions to index (not square, or under 8×8).
    pub(crate) fn new(board: AnyBoard) -> Option<Corners> {
        let AnyBoard::Square(_) = board else {
            return None;
        };
        let n = i32::from(board.size());
        if n <= SIDE {
            return None;
        }
        let mut regions = Vec::new();
        let mut members = vec![Vec::new(); board.len()];
        for (c0, r0) in origins(n) {
            let region = regions.len() as u8;
            let mut points: Vec<Point> = (r0..r0 + SIDE)
                .flat_map(|r| (c0..c0 + SIDE).map(move |c| (c, r)))
                .map(|(c, r)| {
                    board
                        .point_at(c, r)
                        .expect("a corner region is on its board")
                })
                .collect();
            points.sort_by_key(|p| p.0);
            let mut mask = [0u64; 8];
            for (rank, p) in points.iter().enumerate() {
                mask[p.index() / 64] |= 1 << (p.index() % 64);
                members[p.index()].push((region, rank as u8));
            }
            regions.push(mask);
        }
        Some(Corners {
            regions,
            members,
            segments: Vec::new(),
            pending: Vec::new(),
        })
    }

    /// Indexes game `game`'s events (the contents each region held at the
    /// end of each node, each content once, at its first node).
    pub(crate) fn push(&mut self, game: u32, events: &[Event]) {
        let mut masks = vec![(0u64, 0u64); self.regions.len()];
        let from = self.pending.len();
        let mut i = 0;
        while i < events.len() {
            let node = events[i].node();
            let mut touched = 0u8;
            while i < events.len() && events[i].node() == node {
                let e = events[i];
                for &(region, rank) in &self.members[e.point()] {
                    let (b, w) = &mut masks[usize::from(region)];
                    let bit = 1u64 << rank;
                    *b &= !bit;
                    *w &= !bit;
                    match e.state() {
                        1 => *b |= bit,
                        2 => *w |= bit,
                        _ => {}
                    }
                    touched |= 1 << region;
                }
                i += 1;
            }
            while touched != 0 {
                let region = touched.trailing_zeros() as u8;
                touched &= touched - 1;
                let (b, w) = masks[usize::from(region)];
                if !(1..=MAX_STONES).contains(&(b | w).count_ones()) {
                    continue;
                }
                let k = key(region, b, w);
                if !self.pending[from..].iter().any(|p| p.0 == k) {
                    self.pending.push((k, game, node));
                }
            }
        }
    }

    /// Takes out the entries of games `n` and later that are not sealed
    /// yet.
    pub(crate) fn truncate(&mut self, n: u32) {
        self.pending.retain(|e| e.1 < n);
    }

    /// Sorts the games pushed since the last call into a new segment (and
    /// merges it with the segments before it that are not much larger).
    pub(crate) fn seal(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut entries = std::mem::take(&mut self.pending);
        while let Some(last) = self.segments.last() {
            if entries.len() * MERGE_RATIO < last.games.len() {
                break;
            }
            let s = self.segments.pop().expect("a last segment");
            for (i, &k) in s.keys.iter().enumerate() {
                for j in s.starts[i] as usize..s.starts[i + 1] as usize {
                    entries.push((k, s.games[j], s.nodes[j]));
                }
            }
        }
        entries.par_sort_unstable_by_key(|e| (e.0, e.1));
        let mut s = Segment {
            games: entries.iter().map(|e| e.1).collect(),
            nodes: entries.iter().map(|e| e.2).collect(),
            ..Segment::default()
        };
        for (i, e) in entries.iter().enumerate() {
            if s.keys.last() != Some(&e.0) {
                s.keys.push(e.0);
                s.starts.push(i as u32);
            }
        }
        s.starts.push(entries.len() as u32);
        s.keys.shrink_to_fit();
        s.starts.shrink_to_fit();
        self.segments.push(s);
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.segments
            .iter()
            .map(|s| s.keys.len() * 8 + s.starts.len() * 4 + s.games.len() * 6)
            .sum::<usize>()
            + self.pending.len() * 16
    }

    /// The keys of the contents a placement matches, when the index can
    /// answer it: exactly one region's points, each black, white or empty
    /// once its `x`, `o` and `*` points (those outside its cells) are
    /// expanded, at most [`MAX_CONTENTS`] contents, each with 1 to
    /// [`MAX_STONES`] stones.
    fn keys_of(&self, pl: &Placement) -> Option<Vec<u64>> {
        let region = self.regions.iter().position(|r| *r == pl.region)?;
        let rank_of = |p: u16| {
            self.members[usize::from(p)]
                .iter()
                .find(|m| usize::from(m.0) == region)
                .map(|m| m.1)
        };
        // Fixed stones, and each open point's rank and choice of states
        // (bit 0 empty, 1 black, 2 white); a point outside the cells is `*`.
        let (mut b, mut w) = (0u64, 0u64);
        let mut open: Vec<(u8, u8)> = Vec::new();
        let mut seen = 0u64;
        for &(p, cell) in &pl.cells {
            let rank = rank_of(p)?;
            seen |= 1 << rank;
            match cell {
                Cell::Black => b |= 1 << rank,
                Cell::White => w |= 1 << rank,
                Cell::Empty => {}
                Cell::BlackOrEmpty => open.push((rank, 0b011)),
                Cell::WhiteOrEmpty => open.push((rank, 0b101)),
                Cell::Any => open.push((rank, 0b111)),
            }
        }
        let all = u64::MAX >> (64 - SIDE * SIDE);
        let mut rest = all & !seen;
        while rest != 0 {
            open.push((rest.trailing_zeros() as u8, 0b111));
            rest &= rest - 1;
        }
        // Counted first: a pattern with many `*` stands for far too many.
        open.iter().try_fold(1usize, |n, &(_, states)| {
            Some(n * states.count_ones() as usize).filter(|&n| n <= MAX_CONTENTS)
        })?;
        let mut content = vec![(b, w)];
        for &(rank, states) in &open {
            let bit = 1u64 << rank;
            content = content
                .into_iter()
                .flat_map(|(b, w)| {
                    [(b, w), (b | bit, w), (b, w | bit)]
                        .into_iter()
                        .enumerate()
                        .filter(move |(i, _)| states >> i & 1 != 0)
                        .map(|(_, c)| c)
                })
                .collect();
        }
        content
            .into_iter()
            .map(|(b, w)| {
                (1..=MAX_STONES)
                    .contains(&(b | w).count_ones())
                    .then(|| key(region as u8, b, w))
            })
            .collect()
    }

    /// Every `(game index, placement index, first node)` match of the
    /// placements, grouped by game in ascending order (as the scan gives
    /// them); `None` when some placement is not one the index can answer.
    pub(crate) fn find(&self, placements: &[Placement]) -> Option<Vec<(u32, u32, u16)>> {
        let keys: Vec<Vec<u64>> = placements
            .iter()
            .map(|pl| self.keys_of(pl))
            .collect::<Option<_>>()?;
        let mut out = Vec::new();
        for s in &self.segments {
            for (k, keys) in keys.iter().enumerate() {
                for key in keys {
                    if let Ok(i) = s.keys.binary_search(key) {
                        let run = s.starts[i] as usize..s.starts[i + 1] as usize;
                        out.extend(
                            s.games[run.clone()]
                                .iter()
                                .zip(&s.nodes[run])
                                .map(|(&g, &t)| (g, k as u32, t)),
                        );
                    }
                }
            }
        }
        // A placement standing for several contents matches first at the
        // earliest of theirs.
        out.sort_unstable();
        out.dedup_by_key(|m| (m.0, m.1));
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use keil_gen::{Generator, GeneratorConfig};
    use keil_rules::GameKind;

    use super::super::{Pattern, PatternMode, PatternQuery, placements};
    use super::*;
    use crate::{Archive, ImportOptions, ImportSource};

    /// Imports `games` generated games of `kind` and `size` from `seed`.
    fn import(archive: &Archive, kind: GameKind, size: u8, games: u64, seed: u64) {
        let config = GeneratorConfig {
            game: kind,
            games,
            size,
            seed,
            ..GeneratorConfig::default()
        };
        let source = ImportSource::Bytes {
            name: format!("{kind:?}{size}-{seed}.sgf"),
            bytes: Generator::new(config)
                .unwrap()
                .flat_map(|g| g.record.into_bytes())
                .collect(),
        };
        let report = archive
            .import(&[source], &ImportOptions::default(), &mut |_| {})
            .unwrap();
        assert!(report.invalid.is_empty(), "{:?}", report.invalid);
    }

    /// Corner patterns (exact, and with three wildcards) cut from
    /// generated Go games (9×9, whose corner regions overlap, 13×13 and
    /// 19×19) and Kaomi games (9×9, where stones are pushed), imported in
    /// parts: the corner index answers every exact one and most of the
    /// others, and its answer (games, first nodes and placements, hits,
    /// continuations) is the scan's.
    #[test]
    fn corner_index_answers_as_the_scan_does() {
        let dir = tempfile::tempdir().unwrap();
        let archive = Archive::open(dir.path()).unwrap();
        // Imported in parts, a load after each: the corner index's later
        // parts are new segments (on 9×9, 40 games and then five parts of
        // 2: small segments after a large one, merged with each other).
        let parts = [
            (GameKind::Go, 9u8, 40u64, 1),
            (GameKind::Go, 9, 2, 5),
            (GameKind::Go, 13, 20, 2),
            (GameKind::Go, 19, 25, 1),
            (GameKind::Kaomi, 9, 30, 1),
        ];
        let patterns = archive.patterns();
        for (kind, size, games, count) in parts {
            for part in 0..count {
                import(
                    &archive,
                    kind,
                    size,
                    games,
                    u64::from(size) * 1000 + games * 10 + part,
                );
                patterns.load().unwrap();
            }
        }
        // Each group lists its games once each, in answer order, though
        // they came in parts.
        {
            let loaded = archive.patterns.loaded.read().unwrap();
            for (_, g) in &loaded.groups {
                let order: Vec<_> = g
                    .listed
                    .iter()
                    .map(|&i| g.lines[i as usize].order())
                    .collect();
                assert!(order.is_sorted());
                let mut once = g.listed.clone();
                once.sort_unstable();
                once.dedup();
                assert_eq!(once.len(), g.lines.len());
            }
        }
        let mut seed = 7u64;
        let mut below = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        let mut answered = [0usize; 2];
        let mut found = 0;
        for (kind, size) in [
            (GameKind::Go, 9u8),
            (GameKind::Go, 13),
            (GameKind::Go, 19),
            (GameKind::Kaomi, 9),
        ] {
            // Each pattern: a game's corner region at one of its nodes.
            let mut cut = Vec::new();
            {
                let loaded = archive.patterns.loaded.read().unwrap();
                let (_, group) = loaded
                    .groups
                    .iter()
                    .find(|(k, g)| *k == kind && g.board.size() == size)
                    .unwrap();
                let board = group.board;
                let n = i32::from(size);
                while cut.len() < 24 {
                    let line = &group.lines[below(group.lines.len())];
                    let events = group.events(line);
                    let t = events[below(events.len())].node();
                    let mut state = vec![0u8; board.len()];
                    for e in events.iter().take_while(|e| e.node() <= t) {
                        state[e.point()] = e.state();
                    }
                    let (c0, r0) = origins(n)[below(4)];
                    let cells: Vec<(Point, Cell)> = (r0..r0 + SIDE)
                        .flat_map(|r| (c0..c0 + SIDE).map(move |c| (c, r)))
                        .map(|(c, r)| {
                            let p = board.point_at(c, r).unwrap();
                            let cell = [Cell::Empty, Cell::Black, Cell::White]
                                [usize::from(state[p.index()])];
                            (p, cell)
                        })
                        .collect();
                    let stones = cells.iter().filter(|c| c.1 != Cell::Empty).count() as u32;
                    if !(1..=MAX_STONES).contains(&stones) {
                        continue;
                    }
                    // And with three points turned into wildcards.
                    let mut wild = cells.clone();
                    for _ in 0..3 {
                        let i = below(wild.len());
                        let cell = &mut wild[i].1;
                        *cell = match (*cell, below(3)) {
                            (Cell::Black, _) => Cell::BlackOrEmpty,
                            (Cell::White, _) => Cell::WhiteOrEmpty,
                            (_, 0) => Cell::BlackOrEmpty,
                            (_, 1) => Cell::WhiteOrEmpty,
                            _ => Cell::Any,
                        };
                    }
                    cut.push((Pattern::new(kind, size, cells).unwrap(), true));
                    cut.push((Pattern::new(kind, size, wild).unwrap(), false));
                }
            }
            for (pattern, exact) in cut {
                for (mode, symmetry, swap_colors) in [
                    (PatternMode::Corner, true, true),
                    (PatternMode::Corner, true, false),
                    (PatternMode::Fixed, false, false),
                ] {
                    let q = PatternQuery {
                        symmetry,
                        swap_colors,
                        ..PatternQuery::new(pattern.clone(), mode)
                    };
                    let pls = placements(&q.pattern, mode, symmetry, swap_colors).unwrap();
                    let loaded = archive.patterns.loaded.read().unwrap();
                    let group = &loaded
                        .groups
                        .iter()
                        .find(|(k, g)| *k == kind && g.board.size() == size)
                        .unwrap()
                        .1;
                    let indexed = group.corner_matches(&pls.list).is_some();
                    assert!(indexed || !exact, "{pattern}");
                    drop(loaded);
                    let conn = archive.reader().unwrap();
                    let (fast, scan) = conn
                        .snapshot(|c| {
                            Ok((
                                patterns.matches(c, &q, true)?,
                                patterns.matches(c, &q, false)?,
                            ))
                        })
                        .unwrap();
                    assert_eq!(fast, scan, "{pattern} {mode:?} {symmetry} {swap_colors}");
                    answered[usize::from(exact)] += usize::from(indexed);
                    found += fast.games.len();
                }
            }
        }
        // Every exact pattern, and most of those with three wildcards.
        assert_eq!(answered[1], 4 * 12 * 3);
        assert!(answered[0] > 4 * 12 * 3 / 2, "{answered:?}");
        // Cut from the games themselves: each one is found at least once.
        assert!(found >= 2 * 4 * 12 * 3, "{found}");
    }

    /// A refresh that meets a stored game that does not decode fails, and
    /// takes out the games it had added: the next one, once the game is
    /// mended, adds each game once.
    #[test]
    fn a_failed_refresh_adds_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let archive = Archive::open(dir.path()).unwrap();
        let import = |seed| import(&archive, GameKind::Go, 9, 70, seed);
        let lines = || {
            let loaded = archive.patterns.loaded.read().unwrap();
            loaded
                .groups
                .iter()
                .map(|(_, g)| g.lines.len())
                .sum::<usize>()
        };
        let pattern = Pattern::parse(
            GameKind::Go,
            9,
            "......./......./..O..../...X.../......./......./.......",
            PatternMode::Corner,
        )
        .unwrap();
        let query = PatternQuery::new(pattern, PatternMode::Corner);
        import(1);
        archive.patterns().load().unwrap();
        assert_eq!(lines(), 70);
        let before = archive.patterns().search_uncached(&query).unwrap();
        // Game 100 gets moves that do not decode: it is in the second
        // chunk (of 16 in unit tests) that this refresh reads, so one chunk
        // was added before the read fails.
        import(2);
        let db = rusqlite::Connection::open(dir.path().join(crate::SQLITE_FILE)).unwrap();
        let moves: Vec<u8> = db
            .query_row("SELECT moves FROM games WHERE id = 100", [], |r| r.get(0))
            .unwrap();
        let set = |m: &[u8]| {
            db.execute("UPDATE games SET moves = ?1 WHERE id = 100", [m])
                .unwrap()
        };
        set(&[0xFF; 7]);
        let e = archive.patterns().load().unwrap_err();
        assert!(e.to_string().contains("100"), "{e}");
        assert_eq!(lines(), 70);
        // So does a search (it refreshes first), naming the game.
        let e = archive.patterns().search_uncached(&query).unwrap_err();
        assert!(e.to_string().contains("100"), "{e}");
        assert_eq!(lines(), 70);
        set(&moves);
        archive.patterns().load().unwrap();
        assert_eq!(lines(), 140);
        let after = archive.patterns().search_uncached(&query).unwrap();
        assert!(after.total_games >= before.total_games);
        let mut ids: Vec<_> = {
            let loaded = archive.patterns.loaded.read().unwrap();
            loaded.groups[0].1.lines.iter().map(|l| l.id).collect()
        };
        ids.dedup();
        assert_eq!(ids.len(), 140);
    }

    /// Which patterns the corner index answers: a corner region's 49
    /// points, with few enough wildcards and stones; the others are left to
    /// the scan.
    #[test]
    fn which_patterns_the_index_answers() {
        let board = AnyBoard::Square(keil_rules::SquareBoard::new(19).unwrap());
        let corners = Corners::new(board).unwrap();
        let contents = |rows: &str| {
            let p = Pattern::parse(GameKind::Go, 19, rows, PatternMode::Corner).unwrap();
            let pls = placements(&p, PatternMode::Corner, true, true).unwrap();
            corners.find(&pls.list)?;
            Some(
                pls.list
                    .iter()
                    .map(|pl| corners.keys_of(pl).unwrap().len())
                    .max(),
            )
        };
        let corner = |top: &str| format!("{top}/..O..../...X.../......./......./.......");
        // Exact: one content a placement.
        assert_eq!(contents(&corner("......./.......")), Some(Some(1)));
        // x, o and * stand for 2, 2 and 3 contents.
        assert_eq!(contents(&corner("x.o..../...*...")), Some(Some(12)));
        // 3^4 = 81 contents: too many.
        assert_eq!(contents(&corner("****.../.......")), None);
        // A content with no stone (x and o alone): not indexed.
        assert_eq!(
            contents("......./......./..o..../...x.../......./......./......."),
            None
        );
        // More than 8 stones once x points are black.
        assert_eq!(contents(&corner("XXXOOOx/.......")), None);
        // Not a corner region: 6×6.
        assert_eq!(contents("....../....../..O.../...X../....../......"), None);
        assert!(Corners::new(AnyBoard::Square(keil_rules::SquareBoard::new(7).unwrap())).is_none());
    }
}
