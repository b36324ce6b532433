//! The counts of `keil validate`: what the summary line says and the
//! exit status follows.

use std::fmt::Write as _;
use std::time::Duration;

use keil_record::{Reason, Status};

/// Counts for the summary line and the exit status.
#[derive(Default, Debug)]
pub(super) struct Counts {
    pub(super) files: usize,
    pub(super) games: usize,
    pub(super) plies: u64,
    pub(super) status: [usize; Status::ALL.len()],
    pub(super) reasons: [usize; Reason::ALL.len()],
    /// Record errors by code, in order of first appearance.
    pub(super) errors: Vec<(&'static str, usize)>,
    pub(super) warnings: usize,
    pub(super) games_with_warnings: usize,
    pub(super) invalid_variations: usize,
    pub(super) io_errors: usize,
}

impl Counts {
    pub(super) fn add(&mut self, o: &Counts) {
        self.files += o.files;
        self.games += o.games;
        self.plies += o.plies;
        for (a, b) in self.status.iter_mut().zip(o.status) {
            *a += b;
        }
        for (a, b) in self.reasons.iter_mut().zip(o.reasons) {
            *a += b;
        }
        for &(code, n) in &o.errors {
            self.add_error(code, n);
        }
        self.warnings += o.warnings;
        self.games_with_warnings += o.games_with_warnings;
        self.invalid_variations += o.invalid_variations;
        self.io_errors += o.io_errors;
    }

    pub(super) fn add_error(&mut self, code: &'static str, n: usize) {
        match self.errors.iter_mut().find(|(c, _)| *c == code) {
            Some((_, k)) => *k += n,
            None => self.errors.push((code, n)),
        }
    }

    fn record_errors(&self) -> usize {
        self.errors.iter().map(|(_, n)| n).sum()
    }

    pub(super) fn exit_code(&self, strict: bool) -> i32 {
        if self.io_errors > 0 {
            2
        } else if Status::ALL
            .iter()
            .zip(self.status)
            .any(|(s, n)| s.is_failure() && n > 0)
            || self.invalid_variations > 0
            || self.record_errors() > 0
            || (strict && self.games_with_warnings > 0)
        {
            1
        } else {
            0
        }
    }

    pub(super) fn summary(&self, elapsed: Duration) -> String {
        let mut s = format!(
            "{} game{} in {} file{}:",
            self.games,
            plural(self.games),
            self.files,
            plural(self.files)
        );
        let mut parts = Vec::new();
        for (i, status) in Status::ALL.iter().enumerate() {
            let n = self.status[i];
            if n == 0 && *status != Status::Invalid {
                continue;
            }
            let mut part = format!("{n} {status}");
            if status.is_failure() && n > 0 {
                let reasons: Vec<String> = Reason::ALL
                    .iter()
                    .zip(self.reasons)
                    .filter(|(r, k)| *k > 0 && r.status() == *status)
                    .map(|(r, k)| format!("{k} {r}"))
                    .collect();
                let _ = write!(part, " ({})", reasons.join(", "));
            }
            parts.push(part);
        }
        if !self.errors.is_empty() {
            let codes: Vec<String> = self
                .errors
                .iter()
                .map(|(c, n)| format!("{n} {c}"))
                .collect();
            parts.push(format!(
                "{} not read ({})",
                self.record_errors(),
                codes.join(", ")
            ));
        }
        let _ = write!(s, " {}", parts.join(", "));
        if self.invalid_variations > 0 {
            let _ = write!(s, "; {} invalid variations", self.invalid_variations);
        }
        if self.warnings > 0 {
            let _ = write!(
                s,
                "; {} warning{} in {} game{}",
                self.warnings,
                plural(self.warnings),
                self.games_with_warnings,
                plural(self.games_with_warnings)
            );
        }
        if self.io_errors > 0 {
            let _ = write!(
                s,
                "; {} unreadable input{}",
                self.io_errors,
                plural(self.io_errors)
            );
        }
        let secs = elapsed.as_secs_f64();
        let _ = write!(s, " [{secs:.2} s");
        if secs > 0.0 && self.games > 0 {
            let _ = write!(
                s,
                ", {:.0} games/s, {:.0} plies/s",
                self.games as f64 / secs,
                self.plies as f64 / secs
            );
        }
        s.push(']');
        s
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_code_follows_the_worst_outcome() {
        let mut c = Counts::default();
        assert_eq!(c.exit_code(false), 0);
        c.games_with_warnings = 1;
        assert_eq!(c.exit_code(false), 0);
        assert_eq!(c.exit_code(true), 1);
        c.games_with_warnings = 0;
        c.invalid_variations = 1;
        assert_eq!(c.exit_code(false), 1);
        c.io_errors = 1;
        assert_eq!(c.exit_code(false), 2);
    }
}
