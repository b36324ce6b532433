//! The Kee rule (kee-rules.md, seed 003): the three records — history,
//! superko starts, repeated situations — written once and used by Go
//! `RU[Kee]` ([`crate::GoRuleset::Kee`]) and Keil `ko=kee`
//! ([`crate::Ko::Kee`]).

#![allow(dead_code)] // API stage: used by the games in stage 2.

use crate::Color;

/// Which check of kee-rules.md ("After a play") refused a play: the
/// `kee_check` field of a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum KeeCheck {
    /// Step 2: an entry of the position in the history has a move number
    /// not smaller than the mover's superko start (`superko_start`).
    SuperkoStart,
    /// Step 3: the situation (position, next player) already broke superko
    /// since the last new position (`repeated_situation`).
    RepeatedSituation,
}

impl KeeCheck {
    /// The verdict code: `superko_start` or `repeated_situation`.
    pub fn code(self) -> &'static str {
        match self {
            KeeCheck::SuperkoStart => "superko_start",
            KeeCheck::RepeatedSituation => "repeated_situation",
        }
    }
}

impl std::fmt::Display for KeeCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// What a play does to the Kee records, once it is known to be legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeeVerdict {
    /// Step 1: a position not in the history.
    New,
    /// Step 4: a superko break.
    Break,
}

/// One history entry: the position's key, where the position is stored by
/// the caller (an index into its own list), and the move number of the move
/// after it.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    number: u32,
}

/// The three records of kee-rules.md for two players. Positions themselves
/// are kept by the caller, one per entry in the same order (`P`), so that a
/// key match is confirmed by comparing positions.
#[derive(Clone, Debug)]
pub(crate) struct KeeRecords<P> {
    entries: Vec<Entry>,
    positions: Vec<P>,
    /// Superko start per colour (move numbers).
    starts: [u32; 2],
    /// Repeated situations: (index of an entry holding the position, player
    /// to move next).
    repeated: Vec<(u32, Color)>,
}

impl<P: PartialEq + Clone> KeeRecords<P> {
    /// Records starting at `position` with the move number `number` of the
    /// next move (1 at the start of a game; m after a Go setup restart).
    pub(crate) fn new(position: P, key: u64, number: u32) -> Self {
        let mut entries = Vec::with_capacity(64);
        entries.push(Entry { key, number });
        let mut positions = Vec::with_capacity(64);
        positions.push(position);
        KeeRecords {
            entries,
            positions,
            starts: [number; 2],
            repeated: Vec::new(),
        }
    }

    fn append(&mut self, position: P, key: u64, number: u32) {
        self.entries.push(Entry { key, number });
        self.positions.push(position);
    }

    /// The entries equal to `position` (by key, confirmed by comparison).
    fn matches<'a>(&'a self, position: &'a P, key: u64) -> impl Iterator<Item = usize> + 'a {
        self.entries
            .iter()
            .enumerate()
            .filter(move |(i, e)| e.key == key && self.positions[*i] == *position)
            .map(|(i, _)| i)
    }

    /// After a pass by `player` as move `m` (or a pass-equivalent play):
    /// the unchanged position is appended with `m + 1`, and the player's
    /// superko start becomes `m + 1`.
    pub(crate) fn pass(&mut self, player: Color, m: u32, position: P, key: u64) {
        self.append(position, key, m + 1);
        self.starts[player.index()] = m + 1;
    }

    /// A turn that makes a new position without being a play (Keil's button
    /// turn): appended with `m + 1`, the repeated situations emptied, no
    /// superko start touched.
    pub(crate) fn neutral(&mut self, m: u32, position: P, key: u64) {
        self.append(position, key, m + 1);
        self.repeated.clear();
    }

    /// Steps 1-3 for a play by `player` producing `position` (not equal to
    /// the position before it: step 0 is the caller's).
    ///
    /// # Errors
    /// The refusing check and every earlier ply whose position is
    /// `position` (move number − 1).
    pub(crate) fn check(
        &self,
        player: Color,
        position: &P,
        key: u64,
    ) -> Result<KeeVerdict, (KeeCheck, Vec<u32>)> {
        let mut found = false;
        let mut banned = false;
        let start = self.starts[player.index()];
        for i in self.matches(position, key) {
            found = true;
            banned |= self.entries[i].number >= start;
        }
        if !found {
            return Ok(KeeVerdict::New);
        }
        let plies = || {
            self.matches(position, key)
                .map(|i| self.entries[i].number - 1)
                .collect()
        };
        if banned {
            return Err((KeeCheck::SuperkoStart, plies()));
        }
        let next = player.opposite();
        let repeated = self.repeated.iter().any(|&(i, c)| {
            c == next
                && self.entries[i as usize].key == key
                && self.positions[i as usize] == *position
        });
        if repeated {
            return Err((KeeCheck::RepeatedSituation, plies()));
        }
        Ok(KeeVerdict::Break)
    }

    /// Records a legal play by `player` as move `m` with the verdict
    /// [`KeeRecords::check`] gave.
    pub(crate) fn commit(
        &mut self,
        verdict: KeeVerdict,
        player: Color,
        m: u32,
        position: P,
        key: u64,
    ) {
        self.append(position, key, m + 1);
        match verdict {
            KeeVerdict::New => self.repeated.clear(),
            KeeVerdict::Break => {
                self.starts = [1; 2];
                let i = self.entries.len() as u32 - 1;
                self.repeated.push((i, player.opposite()));
            }
        }
    }

    /// The superko start of each colour (move numbers), `[black, white]`.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn starts(&self) -> [u32; 2] {
        self.starts
    }
}
