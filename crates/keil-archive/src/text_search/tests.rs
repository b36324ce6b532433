//! Where a record has a query's words ([`super::matches_in`]).

use super::*;

fn record(sgf: &str) -> Record {
    keil_record::read_records(sgf.as_bytes())
        .pop()
        .unwrap()
        .unwrap()
}

fn matches(sgf: &str, query: &str) -> Vec<TextMatch> {
    let plan = TextPlan::parse(query).unwrap();
    matches_in(&record(sgf), 1000, plan.clauses())
}

const GAME: &str = "(;GM[1]SZ[9]PB[Honinbo Shusaku]PW[Gennan Inseki]EV[Castle game]\
    GC[A famous game];B[aa];W[bb]C[An ear-reddening move];B[cc]\
    (;W[dd];B[ee]C[ear reddening again, and the castle])\
    (;W[ff];B[gg]C[Shusaku's castle ear-reddening]))";

#[test]
fn each_field_with_words_is_named_most_words_first() {
    let m = matches(GAME, "shusaku castle");
    let fields: Vec<TextField> = m.iter().map(|m| m.field).collect();
    // The comment of the variation has both words; the players and the
    // event one each.
    assert_eq!(
        fields,
        [TextField::Comment, TextField::Player, TextField::Event]
    );
    assert_eq!(
        m[0].node,
        Some(NodeAt {
            ply: 5,
            variation: Some(1)
        })
    );
    assert_eq!(m[1].excerpt.text, "Honinbo Shusaku · Gennan Inseki");
    assert_eq!(m[1].excerpt.segments()[1], ("Shusaku", true));
}

#[test]
fn a_comment_match_is_the_first_on_the_main_line_with_most_words() {
    let m = matches(GAME, "ear-reddening");
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].field, TextField::Comment);
    assert_eq!(
        m[0].node,
        Some(NodeAt {
            ply: 2,
            variation: None
        })
    );
    assert_eq!(
        m[0].excerpt.segments(),
        [("An ", false), ("ear-reddening", true), (" move", false)]
    );
    // The game comment is the root's.
    let gc = matches(GAME, "comment:famous");
    assert_eq!(gc[0].node.map(|n| n.ply), Some(0));
    // A field the query names alone.
    assert!(matches(GAME, "event:shusaku").is_empty());
}

#[test]
fn a_main_line_ply_is_at_most_the_stored_main_line() {
    let plan = TextPlan::parse("ear").unwrap();
    let m = matches_in(&record(GAME), 1, plan.clauses());
    assert_eq!(m[0].node.map(|n| n.ply), Some(1));
}

#[test]
fn comments_are_listed_until_every_word_found_in_one_is_shown() {
    // `famous` is in the game comment only, `again` in one node comment:
    // both listed, in the order found. `ear` is in two, and listed once.
    let m = matches(GAME, "famous again ear");
    let at: Vec<(u32, Option<u32>, usize)> = m
        .iter()
        .map(|m| {
            let n = m.node.unwrap();
            (n.ply, n.variation, m.words)
        })
        .collect();
    assert_eq!(at, [(5, None, 2), (0, None, 1)]);
    // Words the players' field shows need no comment beyond the best.
    let m = matches(GAME, "gennan ear");
    let fields: Vec<TextField> = m.iter().map(|m| m.field).collect();
    assert_eq!(fields, [TextField::Player, TextField::Comment]);
}
