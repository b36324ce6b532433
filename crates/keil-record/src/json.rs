//! The JSON form of verdicts and record errors: one object per game, the
//! line format of `keil validate --json` (field names and codes of the
//! keil-vectors answer key, `expected.jsonl`, where they overlap).

use keil_rules::HalfPoints;
use serde_json::{Map, Value, json};

use crate::error::RecordError;
use crate::validate::{Illegal, Reason, Verdict};

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

fn illegal_fields(map: &mut Map<String, Value>, illegal: Option<&Illegal>) {
    // A result mismatch has no ply and no move (expected.jsonl).
    let mv = illegal.filter(|i| i.reason != Reason::ResultMismatch);
    map.insert("ply".into(), opt(mv, |i| i.ply.into()));
    map.insert("reason".into(), opt(illegal, |i| i.reason.code().into()));
    map.insert("move".into(), opt(mv, |i| i.mv.clone().into()));
    map.insert(
        "repeats_plies".into(),
        opt(illegal.filter(|i| !i.repeats_plies.is_empty()), |i| {
            i.repeats_plies.clone().into()
        }),
    );
    map.insert("line".into(), opt(illegal, |i| i.line.into()));
    map.insert("column".into(), opt(illegal, |i| i.column.into()));
}

impl Verdict {
    /// The `--json` line for this verdict: `file`, `game` (0-based index in
    /// the file), `status`, `winner` (`B`, `W`, `draw`), `margin`,
    /// `score_black`, `score_white`, `unlinked_territory_points`, `ply`,
    /// `reason`, `move`, `repeats_plies`, `line`, `column`, `plies`,
    /// `komi_warning`, `warnings` (objects with `code` and `message`) and
    /// `variations` (objects with `path`, `branch_ply`, `status`, `ply`,
    /// `reason`, `move`, `repeats_plies`, `line`, `column`). Absent values
    /// are `null`. See `docs/validate-json.md` in the CLI.
    pub fn to_json(&self, file: &str, game: usize) -> Value {
        let mut m = Map::new();
        m.insert("file".into(), file.into());
        m.insert("game".into(), game.into());
        m.insert("status".into(), self.status.code().into());
        m.insert("winner".into(), opt(self.winner, |w| w.code().into()));
        m.insert("margin".into(), opt(self.margin, points));
        m.insert("score_black".into(), opt(self.score, |s| points(s.black)));
        m.insert("score_white".into(), opt(self.score, |s| points(s.white)));
        m.insert(
            "unlinked_territory_points".into(),
            opt(self.score, |s| s.tally.unlinked.into()),
        );
        illegal_fields(&mut m, self.illegal.as_ref());
        m.insert("plies".into(), self.plies.into());
        m.insert("komi_warning".into(), self.komi_warning.into());
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
                    Value::Object(vm)
                })
                .collect(),
        );
        Value::Object(m)
    }
}

impl RecordError {
    /// The `--json` line for a game tree that is not a readable Keil record:
    /// `file`, `game`, `status` (`"error"`), `error` (the code, e.g.
    /// `not_keil`), `message`, `line`, `column`.
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
