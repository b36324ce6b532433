//! The derived indexes' memory: what each holds in the process's heap and
//! what it maps from the node's cache directory, and the budget under which
//! mapped parts are copied ("pinned") into the heap.
//!
//! Without a cache directory every index is in the heap. With one
//! ([`Archive::cache_in`]) the position segments and the pattern index's
//! columns, events and region segments are files mapped in place: their
//! pages are the system's page cache, read from disk on demand and given
//! back under memory pressure. [`Archive::pin_indexes`] then copies the
//! hottest of them into the heap, in a fixed order, until a budget of
//! bytes is spent: the rest stays on disk and is read on demand.

use serde::Serialize;

use crate::Archive;

/// Bytes one index holds, in the heap and mapped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Held {
    /// Bytes in the process's heap (resident: this machine's kind has no
    /// swap).
    pub heap: u64,
    /// Bytes mapped from the node's cache directory: the system's page
    /// cache, read on demand and given back under memory pressure.
    pub mapped: u64,
}

/// The derived indexes' memory (from [`Archive::index_memory`] or
/// [`Archive::pin_indexes`]). The text index (tantivy) is always mapped
/// from its own folder and is not counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IndexMemory {
    /// The position index: segments (heap or mapped), their block
    /// directories and the game facts searches filter on (heap).
    pub positions: Held,
    /// The pattern index: columns, events and region segments (heap or
    /// mapped), per-game lines, winners and answer order, and the
    /// searches' idle per-game tallies (heap); zero before it is loaded.
    pub patterns: Held,
    /// Bytes copied from mapped files into the heap by the last
    /// [`Archive::pin_indexes`] (0 before any).
    pub pinned: u64,
}

impl IndexMemory {
    /// Heap bytes of both indexes.
    pub fn heap(&self) -> u64 {
        self.positions.heap + self.patterns.heap
    }

    /// Mapped bytes of both indexes.
    pub fn mapped(&self) -> u64 {
        self.positions.mapped + self.patterns.mapped
    }
}

/// What is left of a pinning budget (bytes) while mapped arrays are
/// offered to it in order: an array is pinned whole when it fits in what
/// is left, and skipped otherwise (a smaller one after it may still fit).
#[derive(Debug)]
pub(crate) struct Pins {
    left: u64,
    /// Bytes granted so far.
    pub(crate) pinned: u64,
}

impl Pins {
    /// A budget of `bytes`.
    pub(crate) fn new(bytes: u64) -> Pins {
        Pins {
            left: bytes,
            pinned: 0,
        }
    }

    /// Whether an array of `bytes` may be copied into the heap (and, if so,
    /// takes them from the budget).
    pub(crate) fn take(&mut self, bytes: usize) -> bool {
        let bytes = bytes as u64;
        if bytes > self.left {
            return false;
        }
        self.left -= bytes;
        self.pinned += bytes;
        true
    }
}

impl Archive {
    /// What the position and pattern indexes hold now, in the heap and
    /// mapped (bytes).
    pub fn index_memory(&self) -> IndexMemory {
        let mut positions = self.positions.held();
        positions.heap += self.facts.heap_bytes();
        IndexMemory {
            positions,
            patterns: self.patterns.held(),
            pinned: 0,
        }
    }

    /// Copies mapped parts of the loaded indexes into the heap, hottest
    /// first, until the two indexes hold `budget` bytes of heap
    /// (`keil serve --index-memory`), and says what each holds after:
    ///
    /// 1. the pattern index's region segments (every corner search reads a
    ///    few runs of them, at random places);
    /// 2. the position segments, oldest first (a whole-board search reads
    ///    one block of each);
    /// 3. the pattern index's first-life columns, then its events (the
    ///    scans of side and wildcard patterns read them all, in order,
    ///    which the system's read-ahead serves well from disk).
    ///
    /// An array is copied whole when it fits in what is left of the budget
    /// and skipped otherwise. What the heap holds already (the per-game
    /// parts, every index without a cache directory, the parts added since
    /// a snapshot) is counted first and stays, even past the budget. Call
    /// after the loads ([`Positions::load`](crate::Positions::load),
    /// [`Patterns::load`](crate::Patterns::load)): parts loaded later (the
    /// segments of later imports, mapped when a cache directory is set)
    /// are not pinned. Searches meanwhile wait for the pattern index's
    /// pinning (a copy: about a second a GB) and go on with the mapped
    /// position segments they hold.
    pub fn pin_indexes(&self, budget: u64) -> IndexMemory {
        let mut pins = Pins::new(budget.saturating_sub(self.index_memory().heap()));
        self.patterns.pin_regions(&mut pins);
        self.positions.pin(&mut pins);
        self.patterns.pin_scanned(&mut pins);
        IndexMemory {
            pinned: pins.pinned,
            ..self.index_memory()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Pins;

    #[test]
    fn pins_take_what_fits_and_skip_the_rest() {
        let mut pins = Pins::new(100);
        assert!(pins.take(60));
        assert!(!pins.take(50), "past what is left");
        assert!(pins.take(40), "a smaller one after still fits");
        assert!(!pins.take(1));
        assert!(pins.take(0));
        assert_eq!(pins.pinned, 100);
    }
}
