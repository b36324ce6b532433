//! A list that keeps a single element inline.

use std::fmt;
use std::ops::{Deref, DerefMut};

/// A list that stores one element without a heap allocation and more in a
/// `Vec`. It dereferences to a slice, so `list.len()`, `list[0]`,
/// `list.iter()` and `for x in &list` work as for a `Vec`.
///
/// Most SGF nodes hold one property and most properties one value; keeping
/// that element inline saves an allocation per node and per property.
#[derive(Clone)]
pub struct SmallList<T>(Repr<T>);

#[derive(Clone)]
enum Repr<T> {
    One(T),
    Many(Vec<T>),
}

impl<T> SmallList<T> {
    /// An empty list (no allocation).
    pub const fn new() -> SmallList<T> {
        SmallList(Repr::Many(Vec::new()))
    }

    /// A list of one element (no allocation).
    pub const fn one(value: T) -> SmallList<T> {
        SmallList(Repr::One(value))
    }

    /// Append an element.
    pub fn push(&mut self, value: T) {
        match &mut self.0 {
            Repr::Many(v) if v.capacity() > 0 => v.push(value),
            // An unallocated Vec owns nothing: forgetting it leaks nothing
            // and saves running its drop glue.
            Repr::Many(_) => std::mem::forget(std::mem::replace(&mut self.0, Repr::One(value))),
            Repr::One(_) => self.spill(value),
        }
    }

    #[cold]
    fn spill(&mut self, value: T) {
        if let Repr::One(first) = std::mem::replace(&mut self.0, Repr::Many(Vec::new())) {
            self.0 = Repr::Many(vec![first, value]);
        }
    }

    /// Remove and return the element at `index`, shifting the rest left.
    ///
    /// # Panics
    /// When `index` is out of bounds.
    pub fn remove(&mut self, index: usize) -> T {
        match &mut self.0 {
            Repr::Many(v) => v.remove(index),
            Repr::One(_) => {
                assert_eq!(index, 0, "index out of bounds");
                let Repr::One(only) = std::mem::replace(&mut self.0, Repr::Many(Vec::new())) else {
                    unreachable!("matched One above")
                };
                only
            }
        }
    }

    /// The elements as a slice.
    pub fn as_slice(&self) -> &[T] {
        match &self.0 {
            Repr::One(x) => std::slice::from_ref(x),
            Repr::Many(v) => v,
        }
    }

    /// The elements as a mutable slice.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match &mut self.0 {
            Repr::One(x) => std::slice::from_mut(x),
            Repr::Many(v) => v,
        }
    }
}

impl<T> Default for SmallList<T> {
    fn default() -> Self {
        SmallList::new()
    }
}

impl<T> Deref for SmallList<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> DerefMut for SmallList<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T: fmt::Debug> fmt::Debug for SmallList<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: PartialEq> PartialEq for SmallList<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq> Eq for SmallList<T> {}

impl<T> From<Vec<T>> for SmallList<T> {
    fn from(v: Vec<T>) -> Self {
        SmallList(Repr::Many(v))
    }
}

impl<T> FromIterator<T> for SmallList<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut list = SmallList::new();
        for x in iter {
            list.push(x);
        }
        list
    }
}

impl<'l, T> IntoIterator for &'l SmallList<T> {
    type Item = &'l T;
    type IntoIter = std::slice::Iter<'l, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T> IntoIterator for SmallList<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        match self.0 {
            Repr::One(x) => vec![x].into_iter(),
            Repr::Many(v) => v.into_iter(),
        }
    }
}
