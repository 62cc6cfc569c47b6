//! Conversions between n-dimensional indices and flat (row-major) positions.

/// Flat position of `index` given the per-dimension `strides` (sum of `index[d] * strides[d]`).
/// Wraps on overflow, like the C arithmetic it replaces.
pub fn multidim_to_unidim(index: &[i64], strides: &[i64]) -> i64 {
    index
        .iter()
        .zip(strides)
        .fold(0i64, |acc, (i, s)| acc.wrapping_add(i.wrapping_mul(*s)))
}

/// The row-major n-dimensional index of flat position `pos` in an array of `shape`; fills
/// `index[..shape.len()]`.  The first coordinate is not reduced modulo `shape[0]` (a position past
/// the end gives a first coordinate past the end), and a zero extent yields zero coordinates
/// instead of dividing by zero.
pub fn unidim_to_multidim(shape: &[i64], pos: i64, index: &mut [i64]) {
    let ndim = shape.len().min(index.len());
    if ndim == 0 {
        return;
    }
    let mut strides = vec![1i64; ndim];
    for d in (0..ndim - 1).rev() {
        strides[d] = strides[d + 1].wrapping_mul(shape[d + 1]);
    }
    index[0] = pos.checked_div(strides[0]).unwrap_or(0);
    for d in 1..ndim {
        let rem = pos.checked_rem(strides[d - 1]).unwrap_or(0);
        index[d] = rem.checked_div(strides[d]).unwrap_or(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_known_values() {
        let shape = [4, 5, 6];
        let mut index = [0i64; 3];
        // Values checked against c-blosc2 3.3.5.
        for (pos, want) in [
            (0, [0, 0, 0]),
            (7, [0, 1, 1]),
            (29, [0, 4, 5]),
            (30, [1, 0, 0]),
            (119, [3, 4, 5]),
            (500, [16, 3, 2]),
        ] {
            unidim_to_multidim(&shape, pos, &mut index);
            assert_eq!(index, want);
        }
        assert_eq!(multidim_to_unidim(&[1, 2, 3], &[30, 6, 1]), 45);
        for pos in 0..120 {
            unidim_to_multidim(&shape, pos, &mut index);
            assert_eq!(multidim_to_unidim(&index, &[30, 6, 1]), pos);
        }
        unidim_to_multidim(&[3, 0, 2], 5, &mut index);
        assert_eq!(index, [0, 0, 1]);
    }
}
