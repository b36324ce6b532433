//! Text search that shows where (issue 50): each hit names its field
//! with an excerpt, a comment hit its node's ply; a year in the query
//! filters by date; pages past the limit with a total and a cursor.

mod common;

use std::collections::HashSet;

use common::{bytes, import};
use keil_archive::{
    Archive, Budget, NodeAt, TextCursor, TextField, TextHit, TextPage, TextResults,
};

/// A 19×19 Go game of `moves` moves that capture nothing (Black on rows
/// 3 and 5, White on rows 15 and 17), with `comment` on move `at`.
fn go_game(
    black: &str,
    date: Option<&str>,
    event: &str,
    moves: usize,
    comment: Option<(usize, &str)>,
) -> String {
    let letter = |n: usize| (b'a' + n as u8) as char;
    let mut sgf = format!("(;GM[1]FF[4]SZ[19]KM[6.5]PB[{black}]PW[Gennan Inseki]EV[{event}]");
    if let Some(d) = date {
        sgf.push_str(&format!("DT[{d}]"));
    }
    for ply in 1..=moves {
        let k = (ply - 1) / 2;
        let (row, col) = (2 * (k / 19), k % 19);
        let (color, row) = if ply % 2 == 1 {
            ('B', 2 + row)
        } else {
            ('W', 16 - row)
        };
        sgf.push_str(&format!(";{color}[{}{}]", letter(col), letter(row)));
        if let Some((at, text)) = comment
            && at == ply
        {
            sgf.push_str(&format!("C[{text}]"));
        }
    }
    sgf.push(')');
    sgf
}

fn page(archive: &Archive, q: &str, limit: usize, after: Option<TextCursor>) -> TextResults {
    archive
        .search_text_page(q, &TextPage { limit, after }, &Budget::unlimited())
        .unwrap_or_else(|e| panic!("{q:?}: {e}"))
}

fn marked(hit: &TextHit, field: TextField) -> Vec<String> {
    let m = hit
        .matches
        .iter()
        .find(|m| m.field == field)
        .expect("the field matched");
    m.excerpt
        .segments()
        .into_iter()
        .filter(|s| s.1)
        .map(|s| s.0.to_string())
        .collect()
}

#[test]
fn a_comment_hit_names_its_field_marks_its_words_and_knows_its_ply() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let comment = "Shusaku's ear-reddening move: Gennan's ears turned red. <b>&amp;</b>";
    let record = go_game(
        "Honinbo Shusaku",
        Some("1846-09-11"),
        "Castle game",
        120,
        Some((66, comment)),
    );
    import(&archive, &[bytes("ear.sgf", &record)]);

    let found = page(&archive, "ear-reddening", 20, None);
    assert_eq!((found.total, found.hits.len(), found.next), (1, 1, None));
    let hit = &found.hits[0];
    assert_eq!(hit.matches.len(), 1);
    let m = &hit.matches[0];
    assert_eq!(m.field, TextField::Comment);
    assert_eq!(
        m.node,
        Some(NodeAt {
            ply: 66,
            variation: None
        })
    );
    assert_eq!(marked(hit, TextField::Comment), ["ear-reddening"]);
    // The excerpt is the text as written (the page escapes it).
    assert_eq!(m.excerpt.text, comment);

    // Three fields: the comment has two of the words (gennan, ears), the
    // players and the event one each, in that order.
    let both = page(&archive, "gennan ears castle", 20, None);
    let fields: Vec<TextField> = both.hits[0].matches.iter().map(|m| m.field).collect();
    assert_eq!(
        fields,
        [TextField::Comment, TextField::Player, TextField::Event]
    );
    assert_eq!(both.hits[0].matches[0].words, 2);
    assert_eq!(
        marked(&both.hits[0], TextField::Comment),
        ["Gennan", "ears"]
    );
    assert_eq!(marked(&both.hits[0], TextField::Player), ["Gennan"]);
    // An excluded word is not marked; a field-restricted one only there.
    let hit = &page(&archive, "event:castle -chess", 20, None).hits[0];
    assert_eq!(hit.matches.len(), 1);
    assert_eq!(marked(hit, TextField::Event), ["Castle"]);
}

#[test]
fn a_comment_in_a_variation_has_its_variations_number_and_ply() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let record = "(;GM[1]FF[4]SZ[9]PB[A]PW[B];B[cc];W[gg](;B[cg];W[gc])(;B[ee];W[ce]C[the joseki mistake];B[ec]))";
    import(&archive, &[bytes("var.sgf", record)]);
    let hit = &page(&archive, "joseki", 20, None).hits[0];
    assert_eq!(
        hit.matches[0].node,
        Some(NodeAt {
            ply: 4,
            variation: Some(1)
        })
    );
}

#[test]
fn a_year_filters_by_date_instead_of_being_searched() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    let games = [
        go_game(
            "Honinbo Shusaku",
            Some("1846-09-11"),
            "Castle game",
            10,
            None,
        ),
        go_game("Honinbo Shusaku", Some("1847"), "Castle game", 12, None),
        go_game("Honinbo Shusaku", None, "Castle game", 14, None),
        go_game("Ota Yuzo", Some("1846-05-02"), "Castle game", 16, None),
        go_game("Ota Yuzo", Some("1850"), "Match of 1846", 18, None),
    ]
    .join("\n");
    import(&archive, &[bytes("years.sgf", &games)]);

    let found = page(&archive, "Shusaku 1846", 20, None);
    assert_eq!(found.years, [1846]);
    assert_eq!(found.total, 1);
    assert_eq!(found.hits[0].game.date.as_deref(), Some("1846-09-11"));
    assert_eq!(page(&archive, "shusaku", 20, None).total, 3);
    assert_eq!(page(&archive, "castle 1846 1847", 20, None).total, 3);
    assert_eq!(
        page(&archive, "castle 1846 1847", 20, None).years,
        [1846, 1847]
    );
    // As a word where a field names it, or alone (nothing else to find).
    let word = page(&archive, "event:1846", 20, None);
    assert_eq!((word.total, word.years.len()), (1, 0));
    assert_eq!(word.hits[0].game.date.as_deref(), Some("1850"));
    assert_eq!(page(&archive, "1846", 20, None).total, 1);
    // Outside 1600..=2100 a number is a word.
    assert_eq!(page(&archive, "castle 1599", 20, None).total, 0);
    // search_text reads years too.
    assert_eq!(archive.search_text("Shusaku 1847", 10).unwrap().len(), 1);
}

#[test]
fn pages_go_past_the_limit_with_a_total_and_a_cursor() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::open(common::at(dir.path())).unwrap();
    // 45 games; scores differ (some have the word twice) and tie.
    let games: Vec<String> = (0..45)
        .map(|i| {
            let event = if i % 3 == 0 {
                "Spring Cup spring"
            } else {
                "Spring Cup"
            };
            go_game(
                &format!("Player {i}"),
                Some("2020-04-01"),
                event,
                4 + i,
                None,
            )
        })
        .collect();
    import(&archive, &[bytes("spring.sgf", &games.join("\n"))]);

    let mut seen = Vec::new();
    let mut after = None;
    let mut sizes = Vec::new();
    loop {
        let p = page(&archive, "spring", 20, after);
        assert_eq!(p.total, 45);
        sizes.push(p.hits.len());
        seen.extend(p.hits.iter().map(|h| (h.score, h.game.id)));
        match p.next {
            Some(c) => {
                assert_eq!(Some(c), p.hits.last().map(TextHit::cursor));
                // The cursor reads back from its text.
                after = Some(TextCursor::parse(&c.to_string()).unwrap());
            }
            None => break,
        }
    }
    assert_eq!(sizes, [20, 20, 5]);
    let ids: HashSet<_> = seen.iter().map(|s| s.1).collect();
    assert_eq!(ids.len(), 45, "every game once");
    // Best first, then by id: the same order as one page of all.
    let all = page(&archive, "spring", 100, None);
    let one: Vec<_> = all.hits.iter().map(|h| (h.score, h.game.id)).collect();
    assert_eq!(seen, one);
    assert!(
        one.windows(2)
            .all(|w| w[0].0 > w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1))
    );
    assert!(one[0].0 > one[44].0, "the games with the word twice first");
    // A page of exactly the rest has no next.
    let p = page(&archive, "spring", 25, Some(all.hits[19].cursor()));
    assert_eq!((p.hits.len(), p.next), (25, None));
}
