//! Every game tree of `../shared/data/sgf-real/` (real Go records, Go
//! problems, other projects' SGF test files) gets a verdict — or, for the
//! few trees that are not Keil or Go records, a record error naming what and
//! where — and never a panic. The counts per status and per reason are
//! pinned, and every game (and variation) that is not valid is listed below
//! with why, each checked by hand against its record (go-rules.md, "Setup
//! and the player to move": the real broken records are Fox-server games
//! with a missing move or pass, Fox games where White moves first with
//! `HA[0]`, and test files).

mod common;

use std::collections::BTreeMap;

use keil_record::{NameHint, Status, read_records_with, validate};

/// Verdicts per status. `scored` includes the 8 results whose margin is
/// no whole number of half-points, a score all the same (go-rules.md: "a
/// positive number"): Fox (YuanYu) records' `RE[W+0.02]`, `RE[W+0.03]`,
/// `RE[B+0.03]`, and `RE[B+0.2]`, `RE[B+2.25]`, `RE[W+1.25]`.
const STATUSES: &[(&str, usize)] = &[
    ("complete", 28),
    ("resigned", 4177),
    ("time", 14),
    ("forfeit", 5),
    ("scored", 530),
    ("unfinished", 1313),
    ("invalid", 36),
    ("malformed", 2),
    ("unsupported", 1),
];

/// Verdicts per reason (main lines).
const REASONS: &[(&str, usize)] = &[
    ("wrong_player", 34),
    ("occupied", 1),
    ("self_capture", 1),
    ("two_moves_in_node", 1),
    ("bad_setup", 1),
    ("board_size", 1),
];

/// Trees that are not records this crate reads, per error code:
/// `compressed-point-list.sgf` (tree 1) and `escaping.sgf` are `GM[19]`
/// (Octi) test files, `sgfc/test.sgf` has `GM[game of go]` and `GM[12]`
/// trees and a last tree whose value is never closed, and
/// `Illegal games/not-an-sgf-file.sgf` holds no game tree at all.
const ERRORS: &[(&str, usize)] = &[("unknown_game", 4), ("syntax", 2)];

/// Every main line that is not valid: file, tree, reason, ply (0: none),
/// move as written.
const NOT_VALID: &[(&str, usize, &str, u32, &str)] = &[
    // SZ[25]: larger than 19, unsupported.
    (
        "herzbube__littlego/sgf/25x25/25x25_single_black_move.sgf",
        0,
        "board_size",
        0,
        "",
    ),
    // A test file for non-alternating play: ...B[ba];W[bb];W[ge], two White
    // moves in a row.
    (
        "herzbube__littlego/sgf/9x9/non-alternating-play.sgf",
        0,
        "wrong_player",
        45,
        "W[ge]",
    ),
    // A test file: root setup with PL[B], then PL[W] in a node before the
    // first move, which is Black's ("played by the side that was NOT set up
    // to play first", says its comment).
    (
        "herzbube__littlego/sgf/9x9/setup-variations.sgf",
        0,
        "wrong_player",
        1,
        "B[ha]",
    ),
    // An illegal-games test file: W[hd] on Black's stone of ply 15.
    (
        "herzbube__littlego/sgf/Illegal games/illegal-move.sgf",
        0,
        "occupied",
        16,
        "W[hd]",
    ),
    // An illegal-games test file: B[ab];W[];B[ba];W[aa], a one-stone suicide
    // in the corner; no RU, so japanese (no suicide).
    (
        "herzbube__littlego/sgf/Illegal games/suicide.sgf",
        0,
        "self_capture",
        4,
        "W[aa]",
    ),
    // SGFC test trees: (;GM[1];W[bb];B[aa]...): White first, no setup, no
    // PL, no HA.
    (
        "herzbube__littlego/sgf/sgfc/test-strict.sgf",
        6,
        "wrong_player",
        1,
        "W[bb]",
    ),
    // (;GM[1];B[aa];W[cc];B[dd];C[empty];B[ee]): an empty node between two
    // Black moves is not a pass.
    (
        "herzbube__littlego/sgf/sgfc/test-strict.sgf",
        7,
        "wrong_player",
        4,
        "B[ee]",
    ),
    // SGFC's error test file: its first move B[ce][too much values] is two
    // moves in one node (its second, B[90], is not a point).
    (
        "herzbube__littlego/sgf/sgfc/test.sgf",
        0,
        "two_moves_in_node",
        1,
        "B[ce][too much values]",
    ),
    // A tsumego with a typo in its setup: AW[...][Wpq] (meant [pq]).
    (
        "sanderland__tsumego/problems/2a. Tesuji/Go Seigen - Segoe Tesuji Dictionary/Tuke06_57-58.sgf",
        0,
        "bad_setup",
        0,
        "",
    ),
    // Tencent 2018 records with a missing Black move or pass near the end:
    // ...B[nj];W[rm];W[qa] (the last move).
    (
        "yenw__computer-go-dataset/AI/2018 Tencent World AI WEIQI Competition/PC 1-5 Dolbaram vs Northern Lights.SGF",
        0,
        "wrong_player",
        353,
        "W[qa]",
    ),
    // ...B[hi];W[ik];W[aa] (the last move).
    (
        "yenw__computer-go-dataset/AI/2018 Tencent World AI WEIQI Competition/R 2-1-2 Dolbaram vs ELFOpenGo.SGF",
        0,
        "wrong_player",
        313,
        "W[aa]",
    ),
    // ...B[gm];W[fo];W[sf];W[la] (Black's replies missing, 9 moves from the end).
    (
        "yenw__computer-go-dataset/AI/2018 Tencent World AI WEIQI Competition/R 4-1-1 Dolbaram vs AQ.SGF",
        0,
        "wrong_player",
        313,
        "W[sf]",
    ),
    // ...W[sh];B[rf];B[ho] (a White move missing).
    (
        "yenw__computer-go-dataset/AI/2018 Tencent World AI WEIQI Competition/R 5-1-4 Dolbaram vs Octopus.SGF",
        0,
        "wrong_player",
        248,
        "B[ho]",
    ),
    // Fox (YuanYu) records with a missing move or pass: two moves of one
    // colour in a row.
    // ...W[jl];B[il];B[sp].
    (
        "yenw__computer-go-dataset/AI/BensonDarr/2018.02.12 BensonDarr VS lcarus (010001518).SGF",
        0,
        "wrong_player",
        266,
        "B[sp]",
    ),
    // ...B[lf];W[ne];W[pc].
    (
        "yenw__computer-go-dataset/AI/BensonDarr/2018.02.13 doomsday VS BensonDarr (010001943).SGF",
        0,
        "wrong_player",
        275,
        "W[pc]",
    ),
    // ...W[dc];B[gn];B[nl].
    (
        "yenw__computer-go-dataset/AI/BensonDarr/2018.02.23 BensonDarr VS 舞动de灵魂 (010001167).SGF",
        0,
        "wrong_player",
        184,
        "B[nl]",
    ),
    // ...W[ea];B[qa];B[dj].
    (
        "yenw__computer-go-dataset/AI/CGI Fox Go Server/2017.09.24 CGI vs marny (68307668).SGF",
        0,
        "wrong_player",
        250,
        "B[dj]",
    ),
    // ...B[bi];W[mh];W[ka].
    (
        "yenw__computer-go-dataset/AI/CGI Fox Go Server/2017.11.12 jingjing vs CGI (80145292).SGF",
        0,
        "wrong_player",
        275,
        "W[ka]",
    ),
    // ...W[fh];B[bp];B[ok] (the last move).
    (
        "yenw__computer-go-dataset/AI/CGI Fox Go Server/2017.11.14 欲望 vs CGI (68003655).SGF",
        0,
        "wrong_player",
        242,
        "B[ok]",
    ),
    // ...B[nh];W[ng];W[pa].
    (
        "yenw__computer-go-dataset/AI/CGI Fox Go Server/2017.11.16 CGI vs 破牢 (85977185).SGF",
        0,
        "wrong_player",
        163,
        "W[pa]",
    ),
    // ...B[mp];W[lp];W[kh].
    (
        "yenw__computer-go-dataset/AI/CGI Fox Go Server/2017.11.18 CGI vs TMC (00445298).SGF",
        0,
        "wrong_player",
        179,
        "W[kh]",
    ),
    // Fox games opening with two Black moves (handicap stones written as
    // moves with HA[0]): B[nd];B[qd].
    (
        "yenw__computer-go-dataset/AI/Dancer/2017.12.23 冲天一次 VS 舞者 (010001446).SGF",
        0,
        "wrong_player",
        2,
        "B[qd]",
    ),
    // Fox games where White moves first with HA[0] and no setup: W[pd].
    (
        "yenw__computer-go-dataset/AI/Dancer/2018.01.28 舞者 VS 冲天一次 (010001612).SGF",
        0,
        "wrong_player",
        1,
        "W[pd]",
    ),
    // White first: W[pd].
    (
        "yenw__computer-go-dataset/AI/Dancer/2018.01.28 舞者 VS 神龙之息 (010001494).SGF",
        0,
        "wrong_player",
        1,
        "W[pd]",
    ),
    // Two Black moves first: B[qd];B[pp].
    (
        "yenw__computer-go-dataset/AI/Dancer/2018.01.28 逝去的孤影 VS 舞者 (010001533).SGF",
        0,
        "wrong_player",
        2,
        "B[pp]",
    ),
    // Two Black moves first: B[pd];B[dc].
    (
        "yenw__computer-go-dataset/AI/Dancer/2018.02.03 冲天一次 VS 舞者 (010001608).SGF",
        0,
        "wrong_player",
        2,
        "B[dc]",
    ),
    // Two Black moves first: B[pd];B[qp].
    (
        "yenw__computer-go-dataset/AI/Dancer/2018.02.03 协鑫集成 VS 舞者 (010001817).SGF",
        0,
        "wrong_player",
        2,
        "B[qp]",
    ),
    // White first: W[pd].
    (
        "yenw__computer-go-dataset/AI/Dancer/2018.02.03 舞者 VS 冲天一次 (010001889).SGF",
        0,
        "wrong_player",
        1,
        "W[pd]",
    ),
    // Two Black moves first: B[pd];B[qp].
    (
        "yenw__computer-go-dataset/AI/Dancer/2018.02.04 冲天一次 VS 舞者 (010001791).SGF",
        0,
        "wrong_player",
        2,
        "B[qp]",
    ),
    // Two Black moves first: B[pd];B[pq].
    (
        "yenw__computer-go-dataset/AI/Dancer/2018.02.06 nightraid1 VS 舞者 (010001498).SGF",
        0,
        "wrong_player",
        2,
        "B[pq]",
    ),
    // Two Black moves first: B[pd];B[dp].
    (
        "yenw__computer-go-dataset/AI/Dancer/2018.02.19 myuh VS 舞者 (010001979).SGF",
        0,
        "wrong_player",
        2,
        "B[dp]",
    ),
    // B[pd];W[dd];W[cp]: a Black move missing at ply 3.
    (
        "yenw__computer-go-dataset/AI/Dancer/2018.02.19 舞者 VS dream09 (010001372).SGF",
        0,
        "wrong_player",
        3,
        "W[cp]",
    ),
    // White first: W[pd].
    (
        "yenw__computer-go-dataset/AI/Dancer/2018.02.19 舞者 VS myuh (010001431).SGF",
        0,
        "wrong_player",
        1,
        "W[pd]",
    ),
    // White first (W[pd];W[dc]: two White moves, handicap-like).
    (
        "yenw__computer-go-dataset/AI/Dancer/2018.02.20 舞者 VS 茯蓠 (010001986).SGF",
        0,
        "wrong_player",
        1,
        "W[pd]",
    ),
    // ...B[fs];W[do];W[en].
    (
        "yenw__computer-go-dataset/AI/Li Long/2017.05.31 oneokrock vs 骊龙 (49328953).SGF",
        0,
        "wrong_player",
        223,
        "W[en]",
    ),
    // ...W[ic];B[je];B[hc].
    (
        "yenw__computer-go-dataset/AI/Sweeper/2016.09.05 扫地僧2016 vs revenge (77853121).SGF",
        0,
        "wrong_player",
        190,
        "B[hc]",
    ),
    // Two Black moves first: B[pd];B[pp].
    (
        "yenw__computer-go-dataset/AI/dolbaram9/2017.11.02 胡傲穹 vs dolbaram9 (62048026).SGF",
        0,
        "wrong_player",
        2,
        "B[pp]",
    ),
    // Two Black moves first: B[nd];B[pn].
    (
        "yenw__computer-go-dataset/AI/dolbaram9/2017.11.04 冲天一次 vs dolbaram9 (46485821).SGF",
        0,
        "wrong_player",
        2,
        "B[pn]",
    ),
    // White first: W[pd].
    (
        "yenw__computer-go-dataset/AI/dolbaram9/2018.01.20 dolbaram9 VS gangnam (010001374).SGF",
        0,
        "wrong_player",
        1,
        "W[pd]",
    ),
];

/// A variation that is not valid: file, tree, path, reason, ply, move.
type Variation = (
    &'static str,
    usize,
    &'static [usize],
    &'static str,
    u32,
    &'static str,
);

/// Every variation that is not valid.
const VARIATIONS_NOT_VALID: &[Variation] = &[
    // Both variations leave the main line after its illegal ply: they carry
    // it (ply below their branch ply).
    (
        "herzbube__littlego/sgf/9x9/non-alternating-play.sgf",
        0,
        &[0, 1],
        "wrong_player",
        45,
        "W[ge]",
    ),
    // The second variation's own PL[W] before the first move, then B[hb].
    (
        "herzbube__littlego/sgf/9x9/setup-variations.sgf",
        0,
        &[1],
        "wrong_player",
        1,
        "B[hb]",
    ),
    // Variations after the main line's illegal W[hd].
    (
        "herzbube__littlego/sgf/Illegal games/illegal-move.sgf",
        0,
        &[0, 1],
        "occupied",
        16,
        "W[hd]",
    ),
    (
        "herzbube__littlego/sgf/Illegal games/illegal-move.sgf",
        0,
        &[0, 0, 1],
        "occupied",
        16,
        "W[hd]",
    ),
    // The FF[4] example's "Suicide move" B[qs] (C[Suicide move...]): no RU,
    // japanese.
    (
        "herzbube__littlego/sgf/sgfc/ff4_ex-rewritten-by-sgfc.sgf",
        0,
        &[4],
        "self_capture",
        21,
        "B[qs]",
    ),
    (
        "herzbube__littlego/sgf/sgfc/ff4_ex.sgf",
        0,
        &[4],
        "self_capture",
        21,
        "B[qs]",
    ),
    // SGFC's variation-reordering test: (;W[ab]) as a first move...
    (
        "herzbube__littlego/sgf/sgfc/test-reorder.sgf",
        0,
        &[1],
        "wrong_player",
        1,
        "W[ab]",
    ),
    // ...(;B[ab](;B[fb])): Black twice...
    (
        "herzbube__littlego/sgf/sgfc/test-reorder.sgf",
        0,
        &[0, 2],
        "wrong_player",
        2,
        "B[fb]",
    ),
    // ...;B[aa];W[cg](;W[ab]): White twice...
    (
        "herzbube__littlego/sgf/sgfc/test-reorder.sgf",
        1,
        &[1],
        "wrong_player",
        3,
        "W[ab]",
    ),
    // ...(;B[ab](;B[fb])): Black twice.
    (
        "herzbube__littlego/sgf/sgfc/test-reorder.sgf",
        1,
        &[0, 2],
        "wrong_player",
        4,
        "B[fb]",
    ),
    // ;B[aa];W[cg](;W[ab]...): White twice.
    (
        "herzbube__littlego/sgf/sgfc/test-strict.sgf",
        10,
        &[1],
        "wrong_player",
        3,
        "W[ab]",
    ),
];

#[test]
fn real_files_get_a_verdict_or_an_error_never_a_panic() {
    let Some(shared) = common::shared("sgf-real") else {
        eprintln!("note: ../shared is absent; skipping the real-file corpus");
        return;
    };
    let root = shared.join("data/sgf-real");
    let paths = common::files(&root, &["sgf"]);
    let mut statuses: BTreeMap<&str, usize> = BTreeMap::new();
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    let mut errors: BTreeMap<&str, usize> = BTreeMap::new();
    let mut not_valid = Vec::new();
    let mut variations = Vec::new();
    let (mut games, mut plies) = (0, 0u64);
    for p in &paths {
        let bytes = std::fs::read(p).unwrap();
        let name = p.strip_prefix(&root).unwrap().display().to_string();
        for r in read_records_with(&bytes, NameHint::of(p)) {
            games += 1;
            let record = match r {
                Ok(record) => record,
                Err(e) => {
                    // An error names what and where.
                    assert!(e.line >= 1 && e.column >= 1, "{name}: {e}");
                    assert!(!e.kind.to_string().is_empty());
                    *errors.entry(e.code()).or_default() += 1;
                    continue;
                }
            };
            let v = validate(&record).verdict;
            plies += u64::from(v.plies);
            *statuses.entry(v.status.code()).or_default() += 1;
            if let Some(ill) = &v.illegal {
                *reasons.entry(ill.reason.code()).or_default() += 1;
                assert!(ill.line >= 1 && ill.column >= 1, "{name}");
            }
            if v.status.is_failure() {
                let ill = v.illegal.as_ref().expect("a failure says why");
                let ply = if ill.reason.has_move() { ill.ply } else { 0 };
                let mv = if ill.reason.has_move() {
                    ill.mv.clone()
                } else {
                    String::new()
                };
                not_valid.push((name.clone(), record.game, ill.reason.code(), ply, mv));
            }
            for var in v.variations.iter().filter(|x| x.status.is_failure()) {
                let ill = var.illegal.as_ref().expect("a failure says why");
                variations.push((
                    name.clone(),
                    record.game,
                    var.path.clone(),
                    ill.reason.code(),
                    ill.ply,
                    ill.mv.clone(),
                ));
            }
        }
    }
    eprintln!(
        "sgf-real: {} files, {games} game trees, {plies} plies: {statuses:?} {reasons:?} errors {errors:?}",
        paths.len()
    );
    let table = |t: &[(&'static str, usize)]| t.iter().copied().collect::<BTreeMap<_, _>>();
    assert_eq!(statuses, table(STATUSES));
    assert_eq!(reasons, table(REASONS));
    assert_eq!(errors, table(ERRORS));
    let verdicts: usize = statuses.values().sum();
    assert_eq!(verdicts + errors.values().sum::<usize>(), games);
    assert_eq!(verdicts, 6106);
    let want: Vec<_> = NOT_VALID
        .iter()
        .map(|&(f, g, r, ply, mv)| (f.to_string(), g, r, ply, mv.to_string()))
        .collect();
    assert_eq!(not_valid, want);
    let want: Vec<_> = VARIATIONS_NOT_VALID
        .iter()
        .map(|&(f, g, path, r, ply, mv)| (f.to_string(), g, path.to_vec(), r, ply, mv.to_string()))
        .collect();
    assert_eq!(variations, want);
    assert_eq!(
        statuses[Status::Invalid.code()],
        NOT_VALID
            .iter()
            .filter(|n| {
                !matches!(
                    n.2,
                    "bad_move_value" | "two_moves_in_node" | "bad_setup" | "board_size"
                )
            })
            .count()
    );
}
