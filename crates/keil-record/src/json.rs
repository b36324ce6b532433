//! The JSON form of verdicts and record errors: one object per game, the
//! line format of `keil validate --json` (field names and codes of the
//! keil-vectors answer key, `expected.jsonl`, where they overlap).

use keil_rules::{Color, GameKind, HalfPoints, KaomiVariant};
use serde_json::{Map, Value, json};

use crate::error::RecordError;
use crate::record::Warning;
use crate::validate::{Illegal, KaomiVerdict, Rules, VariationVerdict, Verdict};

/// A half-point value as a JSON number: `6` or `6.5`.
pub fn points(h: HalfPoints) -> Value {
    if h.0 % 2 == 0 {
        Value::from(h.0 / 2)
    } else {
        Value::from(h.as_f64())
    }
}

fn opt<T>(v: Option<T>, f: impl FnOnce(T) -> Value) -> Value {
    v.map_or(Value::Null, f)
}

/// The `ruleset` object: Keil `{"button", "ko", "linking"}`, Go
/// `{"ko", "result_checked", "rules", "suicide"}` (kee-vectors README).
fn ruleset(rules: &Rules) -> Value {
    match rules {
        Rules::Keil(r) => json!({
            "linking": linking(r),
            "button": if r.button { "on" } else { "off" },
            "ko": r.ko.code(),
        }),
        Rules::Go(r, _) => json!({
            "rules": r.code(),
            "suicide": r.suicide(),
            "ko": r.repetition().code(),
            "result_checked": r.result_checked(),
        }),
        Rules::Kaomi(r) => json!({
            "variant": r.variant.code(),
            "pie": if r.pie { "on" } else { "off" },
        }),
    }
}

fn linking(r: &keil_rules::Ruleset) -> &'static str {
    match r.linking {
        keil_rules::Linking::SameType => "same-type",
        keil_rules::Linking::Unopposed => "unopposed",
    }
}

fn ru_mapped(rules: &Rules) -> Option<&'static str> {
    match rules {
        Rules::Keil(_) | Rules::Kaomi(_) => None,
        Rules::Go(_, m) => Some(m.code()),
    }
}

fn illegal_fields(map: &mut Map<String, Value>, illegal: Option<&Illegal>) {
    // A result mismatch (and a malformed setup or size) has no ply and no
    // move (expected.jsonl).
    let mv = moved(illegal);
    map.insert("ply".into(), opt(mv, |i| i.ply.into()));
    map.insert("reason".into(), opt(illegal, |i| i.reason.code().into()));
    map.insert("move".into(), opt(mv, |i| i.mv.clone().into()));
    map.insert(
        "repeats_plies".into(),
        opt(illegal.filter(|i| !i.repeats_plies.is_empty()), |i| {
            i.repeats_plies.clone().into()
        }),
    );
    map.insert(
        "kee_check".into(),
        opt(illegal.and_then(|i| i.kee_check), |k| k.code().into()),
    );
    map.insert("line".into(), opt(illegal, |i| i.line.into()));
    map.insert("column".into(), opt(illegal, |i| i.column.into()));
}

impl Verdict {
    /// The `--json` line for this verdict: `file`, `game` (0-based index in
    /// the file), `game_kind` (`keil`, `go`), `status`, `winner` (`B`, `W`,
    /// `draw`), `margin`, `score_black`, `score_white`,
    /// `unlinked_territory_points` (Keil), `ply`, `reason`, `move`,
    /// `repeats_plies`, `kee_check`, `superko_breaks`, `pass_plays`, `line`,
    /// `column`, `plies`, `komi`, `komi_warning`, `handicap` (Go),
    /// `re_checked`, `ruleset` (an object), `ru_mapped` (Go), `size`,
    /// `warnings` (objects with `code` and `message`) and `variations`
    /// (objects with `path`, `branch_ply`, `status`, `ply`, `reason`,
    /// `move`, `repeats_plies`, `kee_check`, `line`, `column`). Absent
    /// values are `null`. See `docs/validate-json.md` in the CLI.
    pub fn to_json(&self, file: &str, game: usize) -> Value {
        let keil = self.kind == GameKind::Keil;
        let mut m = Map::new();
        m.insert("file".into(), file.into());
        m.insert("game".into(), game.into());
        m.insert("game_kind".into(), self.kind.code().into());
        m.insert("status".into(), self.status.code().into());
        m.insert("winner".into(), opt(self.winner, |w| w.code().into()));
        m.insert("margin".into(), opt(self.margin, points));
        m.insert("score_black".into(), opt(self.score, |s| points(s.black)));
        m.insert("score_white".into(), opt(self.score, |s| points(s.white)));
        m.insert(
            "unlinked_territory_points".into(),
            opt(self.score.filter(|_| keil), |s| s.tally.unlinked.into()),
        );
        illegal_fields(&mut m, self.illegal.as_ref());
        m.insert(
            "superko_breaks".into(),
            opt(self.superko_breaks.clone(), Value::from),
        );
        m.insert(
            "pass_plays".into(),
            opt(self.pass_plays.clone(), Value::from),
        );
        m.insert("plies".into(), self.plies.into());
        m.insert("komi".into(), points(self.komi));
        m.insert("komi_warning".into(), self.komi_warning.into());
        m.insert("handicap".into(), opt(self.handicap, Value::from));
        m.insert("re_checked".into(), self.re_checked.into());
        m.insert("ruleset".into(), ruleset(&self.rules));
        m.insert("ru_mapped".into(), opt(ru_mapped(&self.rules), Value::from));
        m.insert("size".into(), opt(self.size, Value::from));
        m.insert(
            "warnings".into(),
            self.warnings
                .iter()
                .map(|w| json!({"code": w.code(), "message": w.to_string()}))
                .collect(),
        );
        m.insert(
            "variations".into(),
            self.variations
                .iter()
                .map(|v| {
                    let mut vm = Map::new();
                    vm.insert("path".into(), v.path.clone().into());
                    vm.insert("branch_ply".into(), v.branch_ply.into());
                    vm.insert("status".into(), v.status.code().into());
                    illegal_fields(&mut vm, v.illegal.as_ref());
                    if let Some(p) = &v.position {
                        vm.insert("position".into(), p.clone().into());
                    }
                    Value::Object(vm)
                })
                .collect(),
        );
        if let Some(k) = &self.kaomi {
            kaomi_fields(&mut m, k);
        }
        Value::Object(m)
    }
}

/// The Kaomi fields of kaomi-vectors' `expected.jsonl`: `swapped`,
/// `last_stone`, `groups_black`/`groups_white` (complete games, largest
/// first), `left_black`/`left_white` (complete standard games),
/// `position`.
fn kaomi_fields(m: &mut Map<String, Value>, k: &KaomiVerdict) {
    let r = k.result.as_ref();
    let standard = r.filter(|r| r.variant == KaomiVariant::Standard);
    m.insert("swapped".into(), k.swapped.into());
    m.insert(
        "last_stone".into(),
        opt(k.last_stone, |c| c.letter().to_string().into()),
    );
    for (color, name) in [(Color::Black, "black"), (Color::White, "white")] {
        m.insert(format!("groups_{name}"), opt(r, |r| r.sizes(color).into()));
        m.insert(
            format!("left_{name}"),
            opt(standard, |r| r.left(color).into()),
        );
    }
    m.insert("position".into(), k.position.clone().into());
}

impl RecordError {
    /// The `--json` line for a game tree that is not a readable record:
    /// `file`, `game`, `status` (`"error"`), `error` (the code, e.g.
    /// `unknown_game`), `message`, `line`, `column`.
    pub fn to_json(&self, file: &str) -> Value {
        json!({
            "file": file,
            "game": self.game,
            "status": "error",
            "error": self.code(),
            "message": self.kind.to_string(),
            "line": self.line,
            "column": self.column,
        })
    }
}

/// Appends JSON text to a byte buffer, as serde_json's compact writer
/// writes the same values (strings escaped by serde_json itself).
struct Out<'o>(&'o mut Vec<u8>);

impl Out<'_> {
    fn raw(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
    }

    fn key(&mut self, first: bool, key: &str) {
        if !first {
            self.0.push(b',');
        }
        self.0.push(b'"');
        self.raw(key);
        self.raw("\":");
    }

    fn str(&mut self, s: &str) {
        serde_json::to_writer(&mut *self.0, s).expect("writing to a Vec cannot fail");
    }

    fn int(&mut self, n: impl std::fmt::Display) {
        use std::io::Write as _;
        write!(self.0, "{n}").expect("writing to a Vec cannot fail");
    }

    fn points(&mut self, h: HalfPoints) {
        if h.0 % 2 == 0 {
            self.int(h.0 / 2);
        } else {
            serde_json::to_writer(&mut *self.0, &h.as_f64()).expect("writing to a Vec cannot fail");
        }
    }

    fn opt<T>(&mut self, v: Option<T>, f: impl FnOnce(&mut Self, T)) {
        match v {
            Some(v) => f(self, v),
            None => self.raw("null"),
        }
    }

    fn ints<T: Copy + std::fmt::Display>(&mut self, list: &[T]) {
        self.0.push(b'[');
        for (k, n) in list.iter().enumerate() {
            if k > 0 {
                self.0.push(b',');
            }
            self.int(*n);
        }
        self.0.push(b']');
    }

    /// `column`, `line`, `move`, `ply`, `reason`, `repeats_plies` are
    /// interleaved with other keys in alphabetical order: the caller writes
    /// them through these helpers.
    fn column(&mut self, illegal: Option<&Illegal>) {
        self.opt(illegal, |o, i| o.int(i.column));
    }

    fn line(&mut self, illegal: Option<&Illegal>) {
        self.opt(illegal, |o, i| o.int(i.line));
    }

    fn mv(&mut self, illegal: Option<&Illegal>) {
        self.opt(moved(illegal), |o, i| o.str(&i.mv));
    }

    fn ply(&mut self, illegal: Option<&Illegal>) {
        self.opt(moved(illegal), |o, i| o.int(i.ply));
    }

    fn reason(&mut self, illegal: Option<&Illegal>) {
        self.opt(illegal, |o, i| o.str(i.reason.code()));
    }

    fn repeats(&mut self, illegal: Option<&Illegal>) {
        let r = illegal.filter(|i| !i.repeats_plies.is_empty());
        self.opt(r, |o, i| o.ints(&i.repeats_plies));
    }

    fn kee_check(&mut self, illegal: Option<&Illegal>) {
        self.opt(illegal.and_then(|i| i.kee_check), |o, k| o.str(k.code()));
    }

    fn bool(&mut self, b: bool) {
        self.raw(if b { "true" } else { "false" });
    }

    /// The `ruleset` object, keys in alphabetical order.
    fn ruleset(&mut self, rules: &Rules) {
        self.raw("{");
        match rules {
            Rules::Keil(r) => {
                self.key(true, "button");
                self.str(if r.button { "on" } else { "off" });
                self.key(false, "ko");
                self.str(r.ko.code());
                self.key(false, "linking");
                self.str(linking(r));
            }
            Rules::Kaomi(r) => {
                self.key(true, "pie");
                self.str(if r.pie { "on" } else { "off" });
                self.key(false, "variant");
                self.str(r.variant.code());
            }
            Rules::Go(r, _) => {
                self.key(true, "ko");
                self.str(r.repetition().code());
                self.key(false, "result_checked");
                self.bool(r.result_checked());
                self.key(false, "rules");
                self.str(r.code());
                self.key(false, "suicide");
                self.bool(r.suicide());
            }
        }
        self.raw("}");
    }
}

impl Out<'_> {
    /// `[a,b,…]`, each item written by `item`.
    fn list<T>(&mut self, items: &[T], item: impl Fn(&mut Self, &T)) {
        self.raw("[");
        for (k, x) in items.iter().enumerate() {
            if k > 0 {
                self.raw(",");
            }
            item(self, x);
        }
        self.raw("]");
    }

    /// One variation's object (keys in alphabetical order).
    fn variation(&mut self, v: &VariationVerdict) {
        let ill = v.illegal.as_ref();
        self.raw("{");
        self.key(true, "branch_ply");
        self.int(v.branch_ply);
        self.key(false, "column");
        self.column(ill);
        self.key(false, "kee_check");
        self.kee_check(ill);
        self.key(false, "line");
        self.line(ill);
        self.key(false, "move");
        self.mv(ill);
        self.key(false, "path");
        self.ints(&v.path);
        self.key(false, "ply");
        self.ply(ill);
        self.key(false, "reason");
        self.reason(ill);
        self.key(false, "repeats_plies");
        self.repeats(ill);
        self.key(false, "status");
        self.str(v.status.code());
        self.raw("}");
    }

    /// One warning's object: its code and message.
    fn warning(&mut self, w: &Warning) {
        self.raw("{");
        self.key(true, "code");
        self.str(w.code());
        self.key(false, "message");
        self.str(&w.to_string());
        self.raw("}");
    }
}

/// A result mismatch, a malformed setup and a size have no ply and no move
/// (expected.jsonl).
fn moved(illegal: Option<&Illegal>) -> Option<&Illegal> {
    illegal.filter(|i| i.reason.has_move())
}

impl Verdict {
    /// Appends the `--json` line for this verdict (without the newline) to
    /// `out`: the same text as `self.to_json(file, game).to_string()`,
    /// written directly (keys in alphabetical order).
    pub fn write_json(&self, file: &str, game: usize, out: &mut Vec<u8>) {
        if self.kaomi.is_some() {
            // Kaomi's extra fields: the general writer (the fast one is
            // Keil's and Go's).
            serde_json::to_writer(&mut *out, &self.to_json(file, game))
                .expect("writing to a Vec cannot fail");
            return;
        }
        let keil = self.kind == GameKind::Keil;
        let mut o = Out(out);
        let ill = self.illegal.as_ref();
        o.raw("{");
        o.key(true, "column");
        o.column(ill);
        o.key(false, "file");
        o.str(file);
        o.key(false, "game");
        o.int(game);
        o.key(false, "game_kind");
        o.str(self.kind.code());
        o.key(false, "handicap");
        o.opt(self.handicap, Out::int);
        o.key(false, "kee_check");
        o.kee_check(ill);
        o.key(false, "komi");
        o.points(self.komi);
        o.key(false, "komi_warning");
        o.bool(self.komi_warning);
        o.key(false, "line");
        o.line(ill);
        o.key(false, "margin");
        o.opt(self.margin, Out::points);
        o.key(false, "move");
        o.mv(ill);
        o.key(false, "pass_plays");
        o.opt(self.pass_plays.as_deref(), Out::ints);
        o.key(false, "plies");
        o.int(self.plies);
        o.key(false, "ply");
        o.ply(ill);
        o.key(false, "re_checked");
        o.bool(self.re_checked);
        o.key(false, "reason");
        o.reason(ill);
        o.key(false, "repeats_plies");
        o.repeats(ill);
        o.key(false, "ru_mapped");
        o.opt(ru_mapped(&self.rules), Out::str);
        o.key(false, "ruleset");
        o.ruleset(&self.rules);
        o.key(false, "score_black");
        o.opt(self.score, |o, s| o.points(s.black));
        o.key(false, "score_white");
        o.opt(self.score, |o, s| o.points(s.white));
        o.key(false, "size");
        o.opt(self.size, Out::int);
        o.key(false, "status");
        o.str(self.status.code());
        o.key(false, "superko_breaks");
        o.opt(self.superko_breaks.as_deref(), Out::ints);
        o.key(false, "unlinked_territory_points");
        o.opt(self.score.filter(|_| keil), |o, s| o.int(s.tally.unlinked));
        o.key(false, "variations");
        o.list(&self.variations, Out::variation);
        o.key(false, "warnings");
        o.list(&self.warnings, Out::warning);
        o.key(false, "winner");
        o.opt(self.winner, |o, w| o.str(w.code()));
        o.raw("}");
    }
}
