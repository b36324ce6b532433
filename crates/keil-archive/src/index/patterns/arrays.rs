//! The pattern index's arrays ([`Array`], [`Growing`]): owned, or mapped
//! in place from the node's snapshot file ([`super::snapshot`]).

use std::marker::PhantomData;
use std::ops::Deref;

use tantivy::directory::OwnedBytes;
use zerocopy::{FromBytes, Immutable, KnownLayout};

use crate::memory::Pins;

/// An immutable array of the pattern index: owned, or mapped from the
/// node's snapshot file.
pub(crate) enum Array<T> {
    Owned(Vec<T>),
    /// Bytes checked, when mapped, to be whole `T`s at `T`'s alignment.
    Mapped(OwnedBytes, PhantomData<T>),
}

impl<T> Default for Array<T> {
    fn default() -> Array<T> {
        Array::Owned(Vec::new())
    }
}

impl<T: FromBytes + Immutable + KnownLayout> Array<T> {
    /// `bytes` used in place; `None` when they are not whole `T`s at `T`'s
    /// alignment.
    pub(super) fn mapped(bytes: OwnedBytes) -> Option<Array<T>> {
        <[T]>::ref_from_bytes(bytes.as_slice()).ok()?;
        Some(Array::Mapped(bytes, PhantomData))
    }

    /// Bytes of it that are mapped (0 when owned).
    pub(crate) fn mapped_bytes(&self) -> usize {
        match self {
            Array::Owned(_) => 0,
            Array::Mapped(b, _) => b.len(),
        }
    }

    /// Copies a mapped array into the heap when `pins` grants its bytes
    /// (see [`crate::Archive::pin_indexes`]).
    pub(crate) fn pin(&mut self, pins: &mut Pins)
    where
        T: Copy,
    {
        if let Array::Mapped(b, _) = self
            && pins.take(b.len())
        {
            *self = Array::Owned(self.to_vec());
        }
    }
}

impl<T: FromBytes + Immutable + KnownLayout> Deref for Array<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match self {
            Array::Owned(v) => v,
            Array::Mapped(b, _) => {
                <[T]>::ref_from_bytes(b.as_slice()).expect("checked when mapped")
            }
        }
    }
}

impl<T: FromBytes + Immutable + KnownLayout> std::fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Array({} values, {} mapped bytes)",
            self.len(),
            self.mapped_bytes()
        )
    }
}

/// An array of the pattern index that grows as games come: its first
/// values possibly mapped from the node's snapshot (frozen), the later
/// ones owned. Indices count from the first frozen value.
pub(crate) struct Growing<T> {
    frozen: Array<T>,
    owned: Vec<T>,
}

impl<T> Default for Growing<T> {
    fn default() -> Growing<T> {
        Growing {
            frozen: Array::default(),
            owned: Vec::new(),
        }
    }
}

impl<T: FromBytes + Immutable + KnownLayout + Copy> Growing<T> {
    pub(super) fn new(frozen: Array<T>, owned: Vec<T>) -> Growing<T> {
        Growing { frozen, owned }
    }

    /// All the values.
    pub(crate) fn len(&self) -> usize {
        self.frozen.len() + self.owned.len()
    }

    /// The frozen values (mapped, or none).
    pub(crate) fn frozen_len(&self) -> usize {
        self.frozen.len()
    }

    /// Values `range`, which lies within the frozen values or within the
    /// owned ones.
    pub(crate) fn get(&self, range: std::ops::Range<usize>) -> &[T] {
        let frozen = self.frozen.len();
        if range.start >= frozen {
            &self.owned[range.start - frozen..range.end - frozen]
        } else {
            &self.frozen[range]
        }
    }

    /// The owned values from index `at` (at least [`Growing::frozen_len`])
    /// on, to write.
    pub(crate) fn owned_from(&mut self, at: usize) -> &mut [T] {
        let frozen = self.frozen.len();
        &mut self.owned[at - frozen..]
    }

    /// Appends `values`.
    pub(crate) fn extend(&mut self, values: impl IntoIterator<Item = T>) {
        self.owned.extend(values);
    }

    /// Appends `n` copies of `value`.
    pub(crate) fn grow(&mut self, n: usize, value: T) {
        self.owned.resize(self.owned.len() + n, value);
    }

    /// Keeps the first `len` values (at least the frozen ones: a refresh
    /// only takes out what it added).
    pub(crate) fn truncate(&mut self, len: usize) {
        debug_assert!(len >= self.frozen.len());
        self.owned.truncate(len.saturating_sub(self.frozen.len()));
    }

    /// Bytes of it that are mapped.
    pub(crate) fn mapped_bytes(&self) -> usize {
        self.frozen.mapped_bytes()
    }

    /// Copies the mapped values into the heap when `pins` grants their
    /// bytes.
    pub(crate) fn pin(&mut self, pins: &mut Pins) {
        self.frozen.pin(pins);
    }

    /// The frozen values, then the owned ones.
    pub(super) fn parts(&self) -> [&[T]; 2] {
        [&self.frozen, &self.owned]
    }
}
