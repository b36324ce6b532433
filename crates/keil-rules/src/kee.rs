//! The Kee rule (kee-rules.md, seed 003): the three records — history,
//! superko starts, repeated situations — written once and used by Go
//! `RU[Kee]` ([`crate::GoRuleset::Kee`]) and Keil `ko=kee`
//! ([`crate::Ko::Kee`]).

use crate::color::Color;

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

/// A 4096-bit filter over 64-bit position keys (one bit per key's top 12
/// bits): a key whose bit is clear was never added, so a repetition check
/// needs no scan. A set bit only says "maybe": the caller scans and
/// confirms by comparing positions.
#[derive(Clone, Debug)]
pub(crate) struct KeyFilter(Box<[u64; 64]>);

impl KeyFilter {
    pub(crate) fn new() -> KeyFilter {
        KeyFilter(Box::new([0; 64]))
    }

    #[inline]
    fn bit(key: u64) -> (usize, u64) {
        let b = (key >> 52) as usize;
        (b >> 6, 1 << (b & 63))
    }

    #[inline]
    pub(crate) fn insert(&mut self, key: u64) {
        let (w, m) = KeyFilter::bit(key);
        self.0[w] |= m;
    }

    #[inline]
    pub(crate) fn may_contain(&self, key: u64) -> bool {
        let (w, m) = KeyFilter::bit(key);
        self.0[w] & m != 0
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
    filter: KeyFilter,
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
        let mut filter = KeyFilter::new();
        filter.insert(key);
        KeeRecords {
            entries,
            filter,
            positions,
            starts: [number; 2],
            repeated: Vec::new(),
        }
    }

    fn append(&mut self, position: P, key: u64, number: u32) {
        self.filter.insert(key);
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
        if !self.filter.may_contain(key) {
            return Ok(KeeVerdict::New);
        }
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
    #[cfg(test)]
    pub(crate) fn starts(&self) -> [u32; 2] {
        self.starts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Black, White};

    /// kee-rules.md example A ("Black 11 is prohibited"), on the records
    /// alone: the 2x1 board's positions written as text, keys derived from
    /// the text (so a key match is always confirmed by comparison).
    #[test]
    fn example_a_on_a_2x1_board() {
        let key = |p: &str| p.len() as u64 + p.bytes().map(u64::from).sum::<u64>();
        let mut r = KeeRecords::new("..", key(".."), 1);
        let play = |r: &mut KeeRecords<&'static str>, who, m, p: &'static str| {
            let v = r.check(who, &p, key(p))?;
            r.commit(v, who, m, p, key(p));
            Ok::<_, (KeeCheck, Vec<u32>)>(v)
        };
        assert_eq!(play(&mut r, Black, 1, "b."), Ok(KeeVerdict::New));
        assert_eq!(play(&mut r, White, 2, ".w"), Ok(KeeVerdict::New));
        assert_eq!(
            r.check(Black, &"b.", key("b.")),
            Err((KeeCheck::SuperkoStart, vec![1]))
        );
        r.pass(Black, 3, ".w", key(".w"));
        assert_eq!(r.starts(), [4, 1]);
        // White at 0: a two-stone suicide that empties the board.
        assert_eq!(
            r.check(White, &"..", key("..")),
            Err((KeeCheck::SuperkoStart, vec![0]))
        );
        r.pass(White, 4, ".w", key(".w"));
        assert_eq!(play(&mut r, Black, 5, "b."), Ok(KeeVerdict::Break));
        assert_eq!(r.starts(), [1, 1]);
        r.pass(White, 6, "b.", key("b."));
        r.pass(Black, 7, "b.", key("b."));
        assert_eq!(play(&mut r, White, 8, ".w"), Ok(KeeVerdict::Break));
        r.pass(Black, 9, ".w", key(".w"));
        r.pass(White, 10, ".w", key(".w"));
        assert_eq!(
            r.check(Black, &"b.", key("b.")),
            Err((KeeCheck::RepeatedSituation, vec![1, 5, 6, 7]))
        );
    }

    /// A new position empties the set of repeated situations: the same
    /// situation may break superko again afterwards.
    #[test]
    fn a_new_position_empties_the_repeated_situations() {
        let key = |p: &str| p.bytes().map(u64::from).sum::<u64>();
        let mut r = KeeRecords::new("a", key("a"), 1);
        for (m, p) in [(1, "b"), (2, "c")] {
            let v = r
                .check(if m % 2 == 1 { Black } else { White }, &p, key(p))
                .unwrap();
            r.commit(v, if m % 2 == 1 { Black } else { White }, m, p, key(p));
        }
        r.pass(Black, 3, "c", key("c"));
        r.pass(White, 4, "c", key("c"));
        // Black recreates "b": a break; (b, White) is now a repeated situation.
        assert_eq!(r.check(Black, &"b", key("b")), Ok(KeeVerdict::Break));
        r.commit(KeeVerdict::Break, Black, 5, "b", key("b"));
        r.pass(White, 6, "b", key("b"));
        r.pass(Black, 7, "b", key("b"));
        assert_eq!(r.check(White, &"c", key("c")), Ok(KeeVerdict::Break));
        r.commit(KeeVerdict::Break, White, 8, "c", key("c"));
        r.pass(Black, 9, "c", key("c"));
        r.pass(White, 10, "c", key("c"));
        assert!(matches!(
            r.check(Black, &"b", key("b")),
            Err((KeeCheck::RepeatedSituation, _))
        ));
        // A new position appears: the set is emptied.
        let v = r.check(Black, &"d", key("d")).unwrap();
        assert_eq!(v, KeeVerdict::New);
        r.commit(v, Black, 11, "d", key("d"));
        r.pass(White, 12, "d", key("d"));
        r.pass(Black, 13, "d", key("d"));
        r.pass(White, 14, "d", key("d"));
        assert_eq!(r.check(Black, &"b", key("b")), Ok(KeeVerdict::Break));
    }
}
