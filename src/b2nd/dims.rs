//! [`Dims`]: one number per dimension, held in place for the usual few dimensions.
//!
//! A b2nd call builds several geometries and stride tables (a new array, each loan of a C
//! array, each view); with a `Vec` per table that was five to eighteen heap allocations a call,
//! most of the per-array cost a C client sees (c-blosc2 keeps these tables in fixed arrays).
//! Up to [`INLINE`] dimensions live in the value itself; more (up to `MAX_DIM`) on the heap.

use std::fmt;
use std::ops::{Deref, DerefMut};

/// Dimensions held without an allocation.
pub const INLINE: usize = 6;

/// A per-dimension table (extents, strides, indices) that reads and writes as a `[i64]`.
#[derive(Clone)]
pub enum Dims {
    /// `len` values at the front of `values`.
    Inline {
        /// How many of `values` are in use.
        len: u8,
        /// The values, then unused slots.
        values: [i64; INLINE],
    },
    /// More dimensions than fit in place.
    Heap(Vec<i64>),
}

impl Dims {
    /// `n` copies of `value`.
    pub fn filled(n: usize, value: i64) -> Dims {
        if n <= INLINE {
            Dims::Inline {
                len: n as u8,
                values: [value; INLINE],
            }
        } else {
            Dims::Heap(vec![value; n])
        }
    }

    /// The values, as a slice.
    pub fn as_slice(&self) -> &[i64] {
        self
    }

    /// Appends one dimension.
    pub fn push(&mut self, value: i64) {
        match self {
            Dims::Inline { len, values } if (*len as usize) < INLINE => {
                values[*len as usize] = value;
                *len += 1;
            }
            Dims::Inline { len, values } => {
                let mut v = values[..*len as usize].to_vec();
                v.push(value);
                *self = Dims::Heap(v);
            }
            Dims::Heap(v) => v.push(value),
        }
    }
}

impl Default for Dims {
    fn default() -> Dims {
        Dims::Inline {
            len: 0,
            values: [0; INLINE],
        }
    }
}

impl Deref for Dims {
    type Target = [i64];
    fn deref(&self) -> &[i64] {
        match self {
            Dims::Inline { len, values } => &values[..*len as usize],
            Dims::Heap(v) => v,
        }
    }
}

impl DerefMut for Dims {
    fn deref_mut(&mut self) -> &mut [i64] {
        match self {
            Dims::Inline { len, values } => &mut values[..*len as usize],
            Dims::Heap(v) => v,
        }
    }
}

impl From<&[i64]> for Dims {
    fn from(s: &[i64]) -> Dims {
        if s.len() <= INLINE {
            let mut values = [0; INLINE];
            values[..s.len()].copy_from_slice(s);
            Dims::Inline {
                len: s.len() as u8,
                values,
            }
        } else {
            Dims::Heap(s.to_vec())
        }
    }
}

impl<const N: usize> From<[i64; N]> for Dims {
    fn from(a: [i64; N]) -> Dims {
        Dims::from(&a[..])
    }
}

impl From<Vec<i64>> for Dims {
    fn from(v: Vec<i64>) -> Dims {
        if v.len() <= INLINE {
            Dims::from(&v[..])
        } else {
            Dims::Heap(v)
        }
    }
}

impl FromIterator<i64> for Dims {
    fn from_iter<I: IntoIterator<Item = i64>>(iter: I) -> Dims {
        let mut d = Dims::default();
        for v in iter {
            d.push(v);
        }
        d
    }
}

impl AsRef<[i64]> for Dims {
    fn as_ref(&self) -> &[i64] {
        self
    }
}

/// Equal to anything holding the same values (another `Dims`, a slice, a `Vec`, an array).
impl<T: AsRef<[i64]> + ?Sized> PartialEq<T> for Dims {
    fn eq(&self, other: &T) -> bool {
        self[..] == *other.as_ref()
    }
}

impl Eq for Dims {}

impl fmt::Debug for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_few_dimensions_in_place_and_many_on_the_heap() {
        let few: Dims = (1..=INLINE as i64).collect();
        assert!(matches!(few, Dims::Inline { .. }));
        assert_eq!(few, (1..=INLINE as i64).collect::<Vec<_>>());
        let mut many = few.clone();
        many.push(7);
        assert!(matches!(many, Dims::Heap(_)));
        assert_eq!(many, (1..=7).collect::<Vec<i64>>());
        assert_eq!(Dims::from(vec![3; 16]).len(), 16);
        assert_eq!(Dims::filled(2, 9), [9, 9]);
        assert!(Dims::default().is_empty());
    }

    #[test]
    fn writes_through_as_a_slice() {
        let mut d = Dims::from([4, 5, 6]);
        d[1] = 50;
        d.iter_mut().for_each(|v| *v += 1);
        assert_eq!(d, [5, 51, 7]);
        assert_eq!(format!("{d:?}"), "[5, 51, 7]");
        assert_ne!(d, Dims::from([5, 51]));
    }
}
