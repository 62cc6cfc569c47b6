//! CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of iSCSI, ext4, Btrfs and
//! Zarr's `crc32c` codec, used for frame fingerprints (docs/FINGERPRINTS.md).
//!
//! On x86_64 CPUs with SSE4.2 the `crc32` instruction does 8 bytes at a time, on three
//! independent streams so that its 3-cycle latency does not limit it: a buffer is cut in runs
//! of three equal blocks whose CRCs are computed side by side, then joined by shifting the
//! first over the length of the next (a multiplication in GF(2) by x^(8 * block), done with
//! four 256-entry tables per block length). Elsewhere a table-driven byte-at-a-time loop
//! (slicing by 8) gives the same values.
//!
//! With AVX2 and VPCLMULQDQ as well, buffers of 512 bytes and more are folded by carry-less
//! multiplication (four 256-bit registers, 128 bytes a round; the 128 bits left are reduced by
//! the `crc32` instruction), and from 16 KiB on the fold takes 128 of every 224 bytes while
//! three `crc32` streams take the rest, on other execution units; the streams' CRCs are joined
//! by multiplying with powers of x modulo the polynomial (`shift_operator`, `mul_mod`).
//!
//! [`copy_crc32c_append`] copies a buffer and computes its CRC in the same pass: each word is
//! loaded once, fed to the `crc32` instruction and stored, so the CRC of a chunk written into
//! an in-memory frame costs no second read of it (for a chunk larger than the L2 cache, that
//! second read came from memory).

use std::mem::MaybeUninit;
use std::sync::OnceLock;

/// The reflected CRC-32C polynomial.
const POLY: u32 = 0x82F6_3B78;

/// Bytes per stream in the long and short runs of three interleaved streams.
const LONG: usize = 8192;
const SHORT: usize = 256;

/// The CRC-32C of `data`.
pub fn crc32c(data: &[u8]) -> u32 {
    crc32c_append(0, data)
}

/// The CRC-32C of the bytes whose CRC is `crc` followed by `data`.
pub fn crc32c_append(crc: u32, data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if hardware() {
        if data.len() >= FUSED_MIN && clmul_hardware() {
            let rounds = data.len() / fold::FUSED_ROUND;
            // SAFETY: the CPU has SSE4.2, PCLMULQDQ, AVX2 and VPCLMULQDQ (checked by
            // `clmul_hardware`), all `fold::run_beside_streams` needs.
            let c = unsafe { fold::run_beside_streams(crc, data, rounds) };
            // SAFETY: as below.
            return unsafe { hw(c, &data[rounds * fold::FUSED_ROUND..]) };
        }
        if data.len() >= CLMUL_MIN && clmul_hardware() {
            // SAFETY: the CPU has SSE4.2, PCLMULQDQ, AVX2 and VPCLMULQDQ (checked by
            // `clmul_hardware`), all `fold::run` needs.
            let (c, n) = unsafe { fold::run(!crc, data, None) };
            // SAFETY: as below.
            return unsafe { hw(!c, &data[n..]) };
        }
        // SAFETY: the CPU supports SSE4.2 (checked by `hardware`), all `hw` needs.
        return unsafe { hw(crc, data) };
    }
    sw(crc, data)
}

/// Copies `src` into `dst` (of the same length; its bytes need not be initialised) and returns
/// the CRC-32C of the bytes whose CRC is `crc` followed by `src`, in one pass over `src`.
///
/// # Panics
/// If `dst` and `src` differ in length.
pub fn copy_crc32c_append(crc: u32, dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u32 {
    assert_eq!(dst.len(), src.len(), "copy_crc32c_append: lengths differ");
    #[cfg(target_arch = "x86_64")]
    if hardware() {
        if src.len() >= CLMUL_MIN && clmul_hardware() {
            // SAFETY: the CPU has SSE4.2, PCLMULQDQ, AVX2 and VPCLMULQDQ (checked by
            // `clmul_hardware`), all `fold::run` needs.
            let (c, n) = unsafe { fold::run(!crc, src, Some(&mut *dst)) };
            // SAFETY: as below.
            return unsafe { hw_copy(!c, &mut dst[n..], &src[n..]) };
        }
        // SAFETY: the CPU supports SSE4.2 (checked by `hardware`), all `hw_copy` needs.
        return unsafe { hw_copy(crc, dst, src) };
    }
    sw_copy(crc, dst, src)
}

/// [`copy_crc32c_append`] into initialised bytes.
///
/// # Panics
/// If `dst` and `src` differ in length.
pub fn copy_crc32c_init(crc: u32, dst: &mut [u8], src: &[u8]) -> u32 {
    // SAFETY: `[MaybeUninit<u8>]` has the layout of `[u8]`, and the copy stores only
    // initialised bytes through it, so `dst` stays initialised.
    let dst = unsafe { &mut *(dst as *mut [u8] as *mut [MaybeUninit<u8>]) };
    copy_crc32c_append(crc, dst, src)
}

/// [`copy_crc32c_append`] without SSE4.2: in pieces small enough to be CRCed while they are
/// still in the L1 cache.
pub(crate) fn sw_copy(crc: u32, dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u32 {
    let mut c = crc;
    for (d, s) in dst.chunks_mut(3 * SHORT).zip(src.chunks(3 * SHORT)) {
        for (d, &b) in d.iter_mut().zip(s) {
            d.write(b);
        }
        c = sw(c, s);
    }
    c
}

/// Whether the CPU has the SSE4.2 `crc32` instruction (and RBLOSC2_SIMD does not ask for scalar
/// kernels).
#[cfg(target_arch = "x86_64")]
fn hardware() -> bool {
    static HW: OnceLock<bool> = OnceLock::new();
    *HW.get_or_init(|| {
        std::arch::is_x86_feature_detected!("sse4.2")
            && crate::filters::cpu::isa() != crate::filters::cpu::Isa::Scalar
    })
}

/// Slicing-by-8 tables: `t[k][b]` is the CRC of byte `b` followed by `k` zero bytes.
fn sw_tables() -> &'static [[u32; 256]; 8] {
    static T: OnceLock<Box<[[u32; 256]; 8]>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = Box::new([[0u32; 256]; 8]);
        for b in 0..256u32 {
            let mut c = b;
            for _ in 0..8 {
                c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            }
            t[0][b as usize] = c;
        }
        for b in 0..256 {
            for k in 1..8 {
                let prev = t[k - 1][b];
                t[k][b] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            }
        }
        t
    })
}

/// The table-driven CRC-32C, for CPUs without SSE4.2 (and to check the hardware one).
pub(crate) fn sw(crc: u32, data: &[u8]) -> u32 {
    let t = sw_tables();
    let mut c = !crc;
    let (words, rest) = data.as_chunks::<8>();
    for w in words {
        let lo = c ^ u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        c = t[7][(lo & 0xff) as usize]
            ^ t[6][((lo >> 8) & 0xff) as usize]
            ^ t[5][((lo >> 16) & 0xff) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][w[4] as usize]
            ^ t[2][w[5] as usize]
            ^ t[1][w[6] as usize]
            ^ t[0][w[7] as usize];
    }
    for &b in rest {
        c = (c >> 8) ^ t[0][((c ^ b as u32) & 0xff) as usize];
    }
    !c
}

/// `a * b` modulo the polynomial, both reflected (bit 31 is x^0), as CRC registers are.
const fn mul_mod(a: u32, mut b: u32) -> u32 {
    let mut product = 0;
    let mut bit = 1u32 << 31;
    while bit != 0 {
        if a & bit != 0 {
            product ^= b;
        }
        // b times x.
        b = if b & 1 != 0 { (b >> 1) ^ POLY } else { b >> 1 };
        bit >>= 1;
    }
    product
}

/// x^(2^k) modulo the polynomial, reflected, for k = 0..64.
const X_POW2: [u32; 64] = {
    let mut t = [0u32; 64];
    // x^1: bit 30 in the reflected order.
    t[0] = 1 << 30;
    let mut k = 1;
    while k < 64 {
        t[k] = mul_mod(t[k - 1], t[k - 1]);
        k += 1;
    }
    t
};

/// The CRC-32C of `a` followed by `b`, from `crc_a` (of `a`), `crc_b` (of `b`) and `b`'s
/// length: `crc_a`'s register moved on over `len_b` bytes (a multiplication by x^(8 len_b),
/// from the powers x^(2^k)), then `crc_b` added. Lets pieces of a buffer be checked apart.
#[cfg(test)]
fn crc32c_combine(crc_a: u32, crc_b: u32, len_b: usize) -> u32 {
    mul_mod(shift_operator(len_b), crc_a) ^ crc_b
}

/// x^(8 len) modulo the polynomial, reflected: what moves a CRC register over `len` bytes.
fn shift_operator(len: usize) -> u32 {
    // The product of x^(2^(k + 3)) over the bits k of len.
    let mut shift = 1u32 << 31;
    let mut n = len as u64;
    let mut k = 3;
    while n != 0 {
        if n & 1 != 0 {
            shift = mul_mod(X_POW2[k], shift);
        }
        n >>= 1;
        k += 1;
    }
    shift
}

/// `mat` (32 columns of a GF(2) matrix) times the vector `vec`.
fn gf2_times(mat: &[u32; 32], mut vec: u32) -> u32 {
    let mut sum = 0;
    let mut i = 0;
    while vec != 0 {
        if vec & 1 != 0 {
            sum ^= mat[i];
        }
        vec >>= 1;
        i += 1;
    }
    sum
}

/// The square of `mat`.
fn gf2_square(mat: &[u32; 32]) -> [u32; 32] {
    let mut sq = [0u32; 32];
    for (n, s) in sq.iter_mut().enumerate() {
        *s = gf2_times(mat, mat[n]);
    }
    sq
}

/// Tables shifting a (non-inverted) CRC register over `len` zero bytes (`len` a power of two):
/// the shifted register is the XOR of `t[k][byte k of crc]`.
fn shift_tables(len: usize) -> [[u32; 256]; 4] {
    debug_assert!(len.is_power_of_two());
    // The operator of one zero bit, then squared up to one zero byte, then to `len` bytes.
    let mut op = [0u32; 32];
    op[0] = POLY;
    for (n, o) in op.iter_mut().enumerate().skip(1) {
        *o = 1 << (n - 1);
    }
    for _ in 0..3 + len.trailing_zeros() {
        op = gf2_square(&op);
    }
    let mut t = [[0u32; 256]; 4];
    for n in 0..256u32 {
        for (k, row) in t.iter_mut().enumerate() {
            row[n as usize] = gf2_times(&op, n << (8 * k));
        }
    }
    t
}

/// The shift tables for [`LONG`] and [`SHORT`] blocks.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn hw_tables() -> &'static [[[u32; 256]; 4]; 2] {
    static T: OnceLock<Box<[[[u32; 256]; 4]; 2]>> = OnceLock::new();
    T.get_or_init(|| Box::new([shift_tables(LONG), shift_tables(SHORT)]))
}

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn shift(t: &[[u32; 256]; 4], crc: u32) -> u32 {
    t[0][(crc & 0xff) as usize]
        ^ t[1][((crc >> 8) & 0xff) as usize]
        ^ t[2][((crc >> 16) & 0xff) as usize]
        ^ t[3][(crc >> 24) as usize]
}

#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "sse4.2")]
fn word(crc: u64, w: &[u8; 8]) -> u64 {
    std::arch::x86_64::_mm_crc32_u64(crc, u64::from_le_bytes(*w))
}

/// Three streams of `block` bytes side by side over `data` (3 * block bytes), joined.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "sse4.2")]
fn three_streams(crc: u32, data: &[u8], block: usize, t: &[[u32; 256]; 4]) -> u32 {
    let (a, rest) = data.split_at(block);
    let (b, c) = rest.split_at(block);
    let (a, b, c) = (
        a.as_chunks::<8>().0,
        b.as_chunks::<8>().0,
        c.as_chunks::<8>().0,
    );
    let (mut c0, mut c1, mut c2) = (crc as u64, 0u64, 0u64);
    for ((x, y), z) in a.iter().zip(b).zip(c) {
        c0 = word(c0, x);
        c1 = word(c1, y);
        c2 = word(c2, z);
    }
    let joined = shift(t, c0 as u32) ^ c1 as u32;
    shift(t, joined) ^ c2 as u32
}

/// Stores the word `w` into `d`.
#[inline(always)]
fn put(d: &mut [MaybeUninit<u8>; 8], w: &[u8; 8]) {
    *d = w.map(MaybeUninit::new);
}

/// [`three_streams`] that also copies `src` into `dst`.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "sse4.2")]
fn three_streams_copy(
    crc: u32,
    dst: &mut [MaybeUninit<u8>],
    src: &[u8],
    block: usize,
    t: &[[u32; 256]; 4],
) -> u32 {
    let (a, rest) = src.split_at(block);
    let (b, c) = rest.split_at(block);
    let (da, rest) = dst.split_at_mut(block);
    let (db, dc) = rest.split_at_mut(block);
    let (a, b, c) = (
        a.as_chunks::<8>().0,
        b.as_chunks::<8>().0,
        c.as_chunks::<8>().0,
    );
    let (da, db, dc) = (
        da.as_chunks_mut::<8>().0,
        db.as_chunks_mut::<8>().0,
        dc.as_chunks_mut::<8>().0,
    );
    let (mut c0, mut c1, mut c2) = (crc as u64, 0u64, 0u64);
    let words = a.iter().zip(b).zip(c);
    for (((x, y), z), ((p, q), r)) in words.zip(da.iter_mut().zip(db).zip(dc)) {
        c0 = word(c0, x);
        c1 = word(c1, y);
        c2 = word(c2, z);
        put(p, x);
        put(q, y);
        put(r, z);
    }
    let joined = shift(t, c0 as u32) ^ c1 as u32;
    shift(t, joined) ^ c2 as u32
}

/// [`hw`] that also copies `src` into `dst` (of the same length).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.2")]
fn hw_copy(crc: u32, mut dst: &mut [MaybeUninit<u8>], mut src: &[u8]) -> u32 {
    let tables = hw_tables();
    let mut c = !crc;
    for (block, t) in [(LONG, &tables[0]), (SHORT, &tables[1])] {
        while src.len() >= 3 * block {
            let (d, d_rest) = dst.split_at_mut(3 * block);
            let (s, s_rest) = src.split_at(3 * block);
            c = three_streams_copy(c, d, s, block, t);
            (dst, src) = (d_rest, s_rest);
        }
    }
    let (words, rest) = src.as_chunks::<8>();
    let (dwords, drest) = dst.as_chunks_mut::<8>();
    let mut c64 = c as u64;
    for (w, d) in words.iter().zip(dwords) {
        c64 = word(c64, w);
        put(d, w);
    }
    let mut c = c64 as u32;
    for (&b, d) in rest.iter().zip(drest) {
        c = std::arch::x86_64::_mm_crc32_u8(c, b);
        d.write(b);
    }
    !c
}

/// `x^k mod P` for the carry-less multiplication of [`fold`]: the remainder's 32 coefficients
/// reflected into the high half of a 64-bit lane, where a reflected lane of data meets them.
#[cfg(target_arch = "x86_64")]
const fn fold_constant(k: u32) -> i64 {
    // P unreflected, x^32 included.
    const P: u64 = 0x1_1EDC_6F41;
    let mut r: u64 = 1;
    let mut i = 0;
    while i < k {
        r <<= 1;
        if r & (1 << 32) != 0 {
            r ^= P;
        }
        i += 1;
    }
    (((r as u32).reverse_bits() as u64) << 32) as i64
}

/// The pair of constants that folds a 128-bit register `d` bits forward (see [`fold`]).
#[cfg(target_arch = "x86_64")]
const fn fold_pair(d: u32) -> [i64; 2] {
    [fold_constant(d + 63), fold_constant(d - 1)]
}

/// Bytes folded per round of [`fold::run`]: registers of 16 bytes side by side.
#[cfg(target_arch = "x86_64")]
const CLMUL_ROUND: usize = 128;

/// From this length on, [`fold::run`] is faster than three `crc32` streams.
#[cfg(target_arch = "x86_64")]
const CLMUL_MIN: usize = 4 * CLMUL_ROUND;

/// From this length on, [`fold::run_beside_streams`] (whose streams' CRCs are joined at the
/// end, a fraction of a microsecond) is faster than [`fold::run`] alone.
#[cfg(target_arch = "x86_64")]
const FUSED_MIN: usize = 16 << 10;

#[cfg(target_arch = "x86_64")]
mod fold {
    use super::{fold_pair, CLMUL_ROUND};
    use std::arch::x86_64::*;
    use std::mem::MaybeUninit;

    /// A pair of fold constants (see [`fold_pair`]) as one register.
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq,avx2,vpclmulqdq")]
    fn k(pair: [i64; 2]) -> __m128i {
        _mm_set_epi64x(pair[1], pair[0])
    }

    /// Registers folded side by side.
    const LANES: usize = CLMUL_ROUND / 16;
    /// A round's fold: the registers move on by all of them.
    const ROUND_FOLD: [i64; 2] = fold_pair(8 * CLMUL_ROUND as u32);
    /// The folds that join the registers: register j moves on by those after it.
    const LANE_FOLDS: [[i64; 2]; LANES - 1] = {
        let mut f = [[0; 2]; LANES - 1];
        let mut j = 0;
        while j < LANES - 1 {
            f[j] = fold_pair(128 * (LANES - 1 - j) as u32);
            j += 1;
        }
        f
    };

    /// A 128-bit register of reflected data is the polynomial whose coefficient of x^(127 - j)
    /// is its bit j. Carry-less products of reflected lanes come out one place short (x^-1),
    /// which the constants make up: `fold(x, k(d))` is congruent to x * x^d modulo P.
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq,avx2,vpclmulqdq")]
    fn fold(x: __m128i, k: __m128i) -> __m128i {
        _mm_xor_si128(
            _mm_clmulepi64_si128(x, k, 0x00),
            _mm_clmulepi64_si128(x, k, 0x11),
        )
    }

    /// A round's 128 bytes as four registers.
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq,avx2,vpclmulqdq")]
    fn load_round(r: &[u8; CLMUL_ROUND]) -> [__m256i; 4] {
        // SAFETY: bytes 32 j .. 32 j + 32 of the round are readable (j < 4); the load has no
        // alignment requirement.
        [0, 1, 2, 3].map(|j| unsafe { _mm256_loadu_si256(r.as_ptr().add(32 * j).cast()) })
    }

    /// The registers of a first round `first` with the CRC register `reg` folded into its
    /// first 32 bits, as the `crc32` instruction takes it.
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq,avx2,vpclmulqdq")]
    fn start(first: [__m256i; 4], reg: u32) -> [__m256i; 4] {
        let mut x = first;
        x[0] = _mm256_xor_si256(x[0], _mm256_zextsi128_si256(_mm_cvtsi32_si128(reg as i32)));
        x
    }

    /// The fold constants of a round, for both lanes of a register.
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq,avx2,vpclmulqdq")]
    fn round_constants() -> __m256i {
        let [lo, hi] = ROUND_FOLD;
        _mm256_set_epi64x(hi, lo, hi, lo)
    }

    /// Moves the registers `x` on by a round (`k`: [`round_constants`]) and adds the next
    /// round's registers `b`.
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq,avx2,vpclmulqdq")]
    fn fold_round(x: &mut [__m256i; 4], b: [__m256i; 4], k: __m256i) {
        for (v, b) in x.iter_mut().zip(b) {
            let f = _mm256_xor_si256(
                _mm256_clmulepi64_epi128(*v, k, 0x00),
                _mm256_clmulepi64_epi128(*v, k, 0x11),
            );
            *v = _mm256_xor_si256(f, b);
        }
    }

    /// The CRC register (not inverted) after `crc` and `src`, which holds at least one round;
    /// with `dst`, `src` is also copied there. The bytes past the last whole 16 are left to the
    /// caller: returns the register and how many bytes were taken. Four 256-bit registers fold
    /// two 128-bit lanes each (a round: 128 bytes), then the eight lanes join.
    #[target_feature(enable = "sse4.2,pclmulqdq,avx2,vpclmulqdq")]
    pub(super) fn run(
        crc: u32,
        src: &[u8],
        mut dst: Option<&mut [MaybeUninit<u8>]>,
    ) -> (u32, usize) {
        let (rounds, _) = src.as_chunks::<CLMUL_ROUND>();
        debug_assert!(!rounds.is_empty());
        let mut drounds = dst
            .as_deref_mut()
            .map(|d| d.as_chunks_mut::<CLMUL_ROUND>().0);
        let mut put = |i: usize, x: &[__m256i; 4]| {
            if let Some(d) = drounds.as_deref_mut() {
                for (j, v) in x.iter().enumerate() {
                    // SAFETY: bytes 32 j .. 32 j + 32 of round i of `dst` are writable; the
                    // store has no alignment requirement.
                    unsafe { _mm256_storeu_si256(d[i].as_mut_ptr().add(32 * j).cast(), *v) }
                }
            }
        };
        let first = load_round(&rounds[0]);
        put(0, &first);
        let mut x = start(first, crc);
        let by_round = round_constants();
        for (i, r) in rounds.iter().enumerate().skip(1) {
            let b = load_round(r);
            put(i, &b);
            fold_round(&mut x, b, by_round);
        }
        let mut acc = join(&x);
        let taken = rounds.len() * CLMUL_ROUND;
        let (blocks, _) = src[taken..].as_chunks::<16>();
        let one = k(LANE_FOLDS[LANES - 2]);
        for (i, b) in blocks.iter().enumerate() {
            // SAFETY: `b` is 16 readable bytes; the load has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(b.as_ptr().cast()) };
            if let Some(d) = dst.as_deref_mut() {
                // SAFETY: the 16 bytes of `dst` at the same place are writable.
                unsafe { _mm_storeu_si128(d[taken + 16 * i..].as_mut_ptr().cast(), v) }
            }
            acc = _mm_xor_si128(fold(acc, one), v);
        }
        (finish(acc), taken + blocks.len() * 16)
    }

    /// The eight 128-bit lanes of four registers folded into one, in the order of their bytes.
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq,avx2,vpclmulqdq")]
    fn join(x: &[__m256i; 4]) -> __m128i {
        let lanes: [__m128i; LANES] = std::array::from_fn(|l| {
            let v = x[l / 2];
            if l % 2 == 0 {
                _mm256_castsi256_si128(v)
            } else {
                _mm256_extracti128_si256::<1>(v)
            }
        });
        let mut acc = lanes[LANES - 1];
        for (j, r) in lanes[..LANES - 1].iter().enumerate() {
            acc = _mm_xor_si128(acc, fold(*r, k(LANE_FOLDS[j])));
        }
        acc
    }

    /// The CRC register of the 128 bits left, congruent to everything folded into them, by the
    /// instruction.
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq,avx2,vpclmulqdq")]
    fn finish(acc: __m128i) -> u32 {
        let lo = _mm_cvtsi128_si64(acc) as u64;
        let hi = _mm_extract_epi64(acc, 1) as u64;
        _mm_crc32_u64(_mm_crc32_u64(0, lo), hi) as u32
    }

    /// Bytes of one `crc32` stream per round of [`run_beside_streams`].
    pub(super) const STREAM_ROUND: usize = 32;
    /// Bytes a round of [`run_beside_streams`] takes: one folding round and three streams'.
    pub(super) const FUSED_ROUND: usize = CLMUL_ROUND + 3 * STREAM_ROUND;

    /// The CRC-32C (not the register) after `crc` and the first `rounds` [`FUSED_ROUND`]s of
    /// `src`, whose last bytes are left to the caller. The carry-less multiplier folds the
    /// first 128 bytes of every 224 (four registers, as [`run`]) while the `crc32` instruction,
    /// which runs on other execution units, takes three streams of 32 bytes over the rest:
    /// the folding is bound by the multiplier's throughput (one 256-bit product every other
    /// cycle), so the streams come nearly free. The four CRCs are joined at the end.
    #[target_feature(enable = "sse4.2,pclmulqdq,avx2,vpclmulqdq")]
    pub(super) fn run_beside_streams(crc: u32, src: &[u8], rounds: usize) -> u32 {
        debug_assert!(rounds > 0 && src.len() >= rounds * FUSED_ROUND);
        let (folded, rest) = src.split_at(rounds * CLMUL_ROUND);
        let folded = folded.as_chunks::<CLMUL_ROUND>().0;
        let stream_len = rounds * STREAM_ROUND;
        let streams: [&[[u8; STREAM_ROUND]]; 3] =
            [0, 1, 2].map(|j| rest[j * stream_len..(j + 1) * stream_len].as_chunks().0);
        let mut x = start(load_round(&folded[0]), !crc);
        let by_round = round_constants();
        // The streams start as a CRC from zero does.
        let mut c = [u32::MAX as u64; 3];
        for i in 0..rounds {
            if i > 0 {
                fold_round(&mut x, load_round(&folded[i]), by_round);
            }
            for (c, s) in c.iter_mut().zip(&streams) {
                for w in s[i].as_chunks::<8>().0 {
                    *c = _mm_crc32_u64(*c, u64::from_le_bytes(*w));
                }
            }
        }
        let shift = super::shift_operator(stream_len);
        c.iter().fold(!finish(join(&x)), |whole, &s| {
            super::mul_mod(shift, whole) ^ !(s as u32)
        })
    }
}

/// Whether the CPU has the carry-less multiplication [`fold`] needs.
#[cfg(target_arch = "x86_64")]
fn clmul_hardware() -> bool {
    static HW: OnceLock<bool> = OnceLock::new();
    *HW.get_or_init(|| {
        hardware()
            && std::arch::is_x86_feature_detected!("pclmulqdq")
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("vpclmulqdq")
    })
}

/// The CRC-32C with the SSE4.2 instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.2")]
fn hw(crc: u32, mut data: &[u8]) -> u32 {
    let tables = hw_tables();
    let mut c = !crc;
    for (block, t) in [(LONG, &tables[0]), (SHORT, &tables[1])] {
        while data.len() >= 3 * block {
            c = three_streams(c, &data[..3 * block], block, t);
            data = &data[3 * block..];
        }
    }
    let (words, rest) = data.as_chunks::<8>();
    let mut c64 = c as u64;
    for w in words {
        c64 = word(c64, w);
    }
    let mut c = c64 as u32;
    for &b in rest {
        c = std::arch::x86_64::_mm_crc32_u8(c, b);
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit by bit, straight from the definition.
    fn bitwise(data: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in data {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            }
        }
        !c
    }

    #[test]
    fn check_values() {
        // The standard check value, and RFC 3720's test vectors (B.4).
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
        assert_eq!(crc32c(&[0xffu8; 32]), 0x62A8_AB43);
        let inc: Vec<u8> = (0..32).collect();
        assert_eq!(crc32c(&inc), 0x46DD_794E);
        assert_eq!(crc32c(b""), 0);
    }

    #[test]
    fn all_paths_agree_with_the_definition() {
        let mut x = 0x1234_5678u32;
        let data: Vec<u8> = (0..3 * LONG * 2 + 3 * SHORT * 3 + 37)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        let lens = [
            0,
            1,
            7,
            8,
            9,
            255,
            3 * SHORT - 1,
            3 * SHORT,
            3 * SHORT + 5,
            3 * LONG,
            // the folding and streams side by side: from their first length, with a round but
            // one left over, and a whole number of rounds
            16 << 10,
            (16 << 10) + 223,
            224 * 100,
        ];
        for &len in lens.iter().chain([data.len()].iter()) {
            for start in [0, 1, 3] {
                let d = &data[start.min(data.len() - len)..][..len];
                let want = bitwise(d);
                assert_eq!(sw(0, d), want, "sw len {len}");
                assert_eq!(crc32c(d), want, "crc32c len {len}");
                let (a, b) = d.split_at(len / 3);
                assert_eq!(crc32c_append(crc32c(a), b), want, "append len {len}");
                type Copy = fn(u32, &mut [MaybeUninit<u8>], &[u8]) -> u32;
                for (name, f) in [("copy", copy_crc32c_append as Copy), ("sw_copy", sw_copy)] {
                    let mut copy = vec![MaybeUninit::new(0xa5u8); len];
                    let (ca, cb) = copy.split_at_mut(len / 3);
                    assert_eq!(f(f(0, ca, a), cb, b), want, "{name} len {len}");
                    assert!(copy.iter().zip(d).all(|(c, &b)| {
                        // SAFETY: every byte of `copy` was initialised by `vec!`.
                        (unsafe { c.assume_init() }) == b
                    }));
                }
            }
        }
    }

    #[test]
    fn every_single_bit_flip_changes_the_crc() {
        let data: Vec<u8> = (0..200u32).map(|i| (i * 7 + 3) as u8).collect();
        let base = crc32c(&data);
        let mut d = data.clone();
        for i in 0..d.len() * 8 {
            d[i / 8] ^= 1 << (i % 8);
            assert_ne!(crc32c(&d), base);
            d[i / 8] ^= 1 << (i % 8);
        }
    }

    #[test]
    fn combined_pieces_give_the_whole_crc() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 31 + i / 7) as u8).collect();
        let whole = crc32c(&data);
        for cut in [0, 1, 7, 16, 511, 512, 1000, 4095, 4999, 5000] {
            let (a, b) = data.split_at(cut);
            assert_eq!(
                crc32c_combine(crc32c(a), crc32c(b), b.len()),
                whole,
                "cut {cut}"
            );
        }
        // Three pieces, and the RFC 3720 check value split.
        let (a, rest) = data.split_at(1234);
        let (b, c) = rest.split_at(2345);
        let ab = crc32c_combine(crc32c(a), crc32c(b), b.len());
        assert_eq!(crc32c_combine(ab, crc32c(c), c.len()), whole);
        assert_eq!(
            crc32c_combine(crc32c(b"1234"), crc32c(b"56789"), 5),
            0xE306_9283
        );
    }

    /// Three `crc32` streams against carry-less folding, on a hot buffer and in a copy into
    /// fresh memory: `cargo test --release --lib crc32c::tests::fold_throughput -- --ignored
    /// --nocapture`.
    #[cfg(target_arch = "x86_64")]
    #[test]
    #[ignore]
    fn fold_throughput() {
        if !clmul_hardware() {
            return;
        }
        let len = 800 << 10;
        let src: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4096) as u8).collect();
        let mut best = [f64::MAX; 4];
        let mut dst: Vec<MaybeUninit<u8>> = vec![MaybeUninit::new(0); len];
        for _ in 0..200 {
            for (k, b) in best.iter_mut().enumerate() {
                let t = std::time::Instant::now();
                // SAFETY: the CPU has SSE4.2, PCLMULQDQ, AVX2 and VPCLMULQDQ (checked above).
                let c = unsafe {
                    match k {
                        0 => hw(0, &src),
                        1 => crc32c(&src),
                        2 => hw_copy(0, &mut dst, &src),
                        _ => copy_crc32c_append(0, &mut dst, &src),
                    }
                };
                *b = b.min(t.elapsed().as_secs_f64());
                std::hint::black_box(c);
            }
        }
        let gbs = |t: f64| len as f64 / t / 1e9;
        println!(
            "800 KiB hot: crc32 streams {:.1} GB/s, folding {:.1} GB/s; with a copy {:.1}, {:.1}",
            gbs(best[0]),
            gbs(best[1]),
            gbs(best[2]),
            gbs(best[3])
        );
    }

    /// Copy then CRC against the CRC in the copy, into fresh memory (as a frame grows):
    /// `cargo test --release --lib crc32c::tests::copy_throughput -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn copy_throughput() {
        let len = 800 << 10;
        let src: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4096) as u8).collect();
        let evict = vec![1u8; 8 << 20];
        let (mut two, mut one) = (f64::MAX, f64::MAX);
        for _ in 0..30 {
            for fused in [false, true] {
                std::hint::black_box(evict.iter().map(|&b| b as u64).sum::<u64>());
                let mut v: Vec<u8> = Vec::with_capacity(len);
                let t = std::time::Instant::now();
                let c = if fused {
                    let c = copy_crc32c_append(0, &mut v.spare_capacity_mut()[..len], &src);
                    // SAFETY: the copy initialised the `len` bytes.
                    unsafe { v.set_len(len) };
                    c
                } else {
                    let c = crc32c(&src);
                    v.extend_from_slice(&src);
                    c
                };
                let e = t.elapsed().as_secs_f64();
                std::hint::black_box((c, &v));
                if fused {
                    one = one.min(e);
                } else {
                    two = two.min(e);
                }
            }
        }
        println!(
            "800 KiB: crc then copy {:.0} us, in one pass {:.0} us",
            two * 1e6,
            one * 1e6
        );
    }
}
