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
