//! Helpers shared by the filter tests.

/// Deterministic pseudo-random bytes (an LCG), the same the known answers were computed from.
pub(crate) fn pattern(n: usize) -> Vec<u8> {
    let mut x: u32 = 0x9E37_79B9;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (x >> 16) as u8
        })
        .collect()
}

/// FNV-1a 64-bit hash, to freeze long reference outputs in a few digits.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Typesizes the SIMD-versus-scalar tests cover.
pub(crate) const TYPESIZES: &[usize] = &[
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 24, 31, 32, 33, 64, 255, 256,
];

/// Block lengths around the SIMD widths and their multiples by typesize.
pub(crate) fn lengths(typesize: usize) -> Vec<usize> {
    let mut v = vec![
        0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 1000,
        4096, 4099, 65536, 65543,
    ];
    for k in [8, 16, 24, 31, 32, 33, 64, 65, 256, 264, 513] {
        v.push(typesize * k);
        v.push(typesize * k + typesize / 2 + 1);
    }
    v
}
