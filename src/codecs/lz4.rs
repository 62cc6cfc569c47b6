//! LZ4 and LZ4HC through the lz4 C library (lz4-sys), with c-blosc2's parameters:
//! acceleration 1 for LZ4, clevel passed through for LZ4HC, and raw-dictionary variants.

use std::os::raw::{c_char, c_int, c_void};

extern "C" {
    // Declared here because lz4-sys does not bind the dictionary and partial entry points; the
    // symbols are in the lz4 library that lz4-sys builds and links.
    fn LZ4_decompress_safe_usingDict(
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_capacity: c_int,
        dict_start: *const c_char,
        dict_size: c_int,
    ) -> c_int;
    fn LZ4_decompress_safe_partial(
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        target_output_size: c_int,
        dst_capacity: c_int,
    ) -> c_int;
    fn LZ4_createStream() -> *mut c_void;
    fn LZ4_freeStream(stream: *mut c_void) -> c_int;
    fn LZ4_loadDict(stream: *mut c_void, dictionary: *const c_char, dict_size: c_int) -> c_int;
    fn LZ4_compress_fast_continue(
        stream: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_capacity: c_int,
        acceleration: c_int,
    ) -> c_int;
    fn LZ4_createStreamHC() -> *mut c_void;
    fn LZ4_freeStreamHC(stream: *mut c_void) -> c_int;
    fn LZ4_resetStreamHC_fast(stream: *mut c_void, level: c_int);
    fn LZ4_loadDictHC(stream: *mut c_void, dictionary: *const c_char, dict_size: c_int) -> c_int;
    fn LZ4_compress_HC_continue(
        stream: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_capacity: c_int,
    ) -> c_int;
    fn LZ4_compress_fast_extState(
        state: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_capacity: c_int,
        acceleration: c_int,
    ) -> c_int;
    fn LZ4_compress_HC_extStateHC_fastReset(
        state: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_capacity: c_int,
        clevel: c_int,
    ) -> c_int;
}

/// LZ4 and LZ4HC compression states kept per thread. `LZ4_compress_HC` allocates and zeroes a
/// 256 KiB state for every stream; ours is reset with LZ4HC's fast reset, which moves the start
/// index 64 KiB past every earlier position, so the output is what a fresh state writes, byte
/// for byte (tested below). LZ4's state is re-initialised per stream, as `LZ4_compress_fast`
/// does: its fast reset skips zeroing the 16 KiB table for inputs under 4 KiB but then runs the
/// slower loop that checks every candidate against the start index, and measured in one process
/// against the reference on 16 KiB chunks (2 KiB streams; bench/abtime.sh), the zeroing cost less:
/// 0.955 of the reference's time against 1.021. Keeping the LZ4 state at all pays too: the same
/// measurement gives 0.960 for this state and 1.011 for `LZ4_compress_fast`, which builds its
/// 16 KiB state on the stack for each stream.
pub struct Lz4States {
    fast: *mut c_void,
    hc: *mut c_void,
}

// SAFETY: the states are owned exclusively by this value and only used through &mut self.
unsafe impl Send for Lz4States {}

impl Default for Lz4States {
    fn default() -> Self {
        Lz4States {
            fast: std::ptr::null_mut(),
            hc: std::ptr::null_mut(),
        }
    }
}

impl Drop for Lz4States {
    fn drop(&mut self) {
        // SAFETY: the pointers are null (accepted by the free functions) or were created by
        // LZ4_createStream / LZ4_createStreamHC and are freed exactly once.
        unsafe {
            LZ4_freeStream(self.fast);
            LZ4_freeStreamHC(self.hc);
        }
    }
}

/// An LZ4 entry point compressing with a caller-kept state: (state, src, dst, src_size,
/// dst_capacity, acceleration or level) -> bytes written, 0 when they did not fit.
type ExtStateCompress =
    unsafe extern "C" fn(*mut c_void, *const c_char, *mut c_char, c_int, c_int, c_int) -> c_int;

/// Compresses `src` into `dst` with the kept `state` (created on first use by `create`) through
/// `with_state`; by `without_state` when no state can be created. 0 when the output does not fit.
fn compress_kept(
    state: &mut *mut c_void,
    create: unsafe extern "C" fn() -> *mut c_void,
    with_state: ExtStateCompress,
    without_state: fn(&[u8], &mut [u8], i32) -> usize,
    src: &[u8],
    dst: &mut [u8],
    param: i32,
) -> usize {
    if state.is_null() {
        // SAFETY: a plain constructor (LZ4_createStream / LZ4_createStreamHC); the state comes
        // initialized.
        *state = unsafe { create() };
        if state.is_null() {
            return without_state(src, dst, param);
        }
    }
    // SAFETY: `state` is an initialized state of the kind `with_state` takes (the caller pairs
    // them); both buffers are valid for the lengths passed and LZ4 never writes past
    // dst_capacity.
    let n = unsafe {
        with_state(
            *state,
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(dst.len()),
            param,
        )
    };
    n.max(0) as usize
}

impl Lz4States {
    /// Compresses with LZ4 at `accel`eration; 0 when the output does not fit.
    pub fn compress(&mut self, src: &[u8], dst: &mut [u8], accel: i32) -> usize {
        compress_kept(
            &mut self.fast,
            LZ4_createStream,
            LZ4_compress_fast_extState,
            compress,
            src,
            dst,
            accel,
        )
    }

    /// Compresses with LZ4HC at `clevel`; 0 when the output does not fit.
    pub fn compress_hc(&mut self, src: &[u8], dst: &mut [u8], clevel: i32) -> usize {
        compress_kept(
            &mut self.hc,
            LZ4_createStreamHC,
            LZ4_compress_HC_extStateHC_fastReset,
            compress_hc,
            src,
            dst,
            clevel,
        )
    }
}

fn len_i32(n: usize) -> c_int {
    n.min(c_int::MAX as usize) as c_int
}

/// Compresses with LZ4 at `accel`eration; 0 when the output does not fit.
pub fn compress(src: &[u8], dst: &mut [u8], accel: i32) -> usize {
    // SAFETY: both pointers are valid for the lengths passed; LZ4 never writes past dst_capacity.
    let n = unsafe {
        lz4_sys::LZ4_compress_fast(
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(dst.len()),
            accel,
        )
    };
    n.max(0) as usize
}

/// Compresses with LZ4HC at `clevel`; 0 when the output does not fit.
pub fn compress_hc(src: &[u8], dst: &mut [u8], clevel: i32) -> usize {
    // SAFETY: as in `compress`.
    let n = unsafe {
        lz4_sys::LZ4_compress_HC(
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(dst.len()),
            clevel,
        )
    };
    n.max(0) as usize
}

/// Compresses with LZ4 against a raw dictionary.
pub fn compress_with_dict(src: &[u8], dst: &mut [u8], dict: &[u8]) -> usize {
    // SAFETY: the stream is created, used with valid buffers, and freed here; the dictionary
    // outlives the calls.
    unsafe {
        let stream = LZ4_createStream();
        if stream.is_null() {
            return 0;
        }
        LZ4_loadDict(stream, dict.as_ptr() as *const c_char, len_i32(dict.len()));
        let n = LZ4_compress_fast_continue(
            stream,
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(dst.len()),
            1,
        );
        LZ4_freeStream(stream);
        n.max(0) as usize
    }
}

/// Compresses with LZ4HC against a raw dictionary.
pub fn compress_hc_with_dict(src: &[u8], dst: &mut [u8], clevel: i32, dict: &[u8]) -> usize {
    // SAFETY: as in `compress_with_dict`.
    unsafe {
        let stream = LZ4_createStreamHC();
        if stream.is_null() {
            return 0;
        }
        LZ4_resetStreamHC_fast(stream, clevel);
        LZ4_loadDictHC(stream, dict.as_ptr() as *const c_char, len_i32(dict.len()));
        let n = LZ4_compress_HC_continue(
            stream,
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(dst.len()),
        );
        LZ4_freeStreamHC(stream);
        n.max(0) as usize
    }
}

/// How many times smaller than its output a shuffled plane's LZ4 block must be for the Rust
/// decoder to take it (see [`decompress`]): 2, 3, 4 and 8 gave the same times on the three data
/// sets measured; the plane of many short matches compresses about 1.4 times.
pub const RUST_DECODE_MIN_RATIO: usize = 4;

/// Decompresses an LZ4 block; returns `dst.len()` on success, 0 otherwise (as c-blosc2 does).
///
/// `short_periods` says the block is a byte plane of shuffled items of 8 bytes or more. Such a
/// plane that shrank at least [`RUST_DECODE_MIN_RATIO`] times is mostly long matches repeating a
/// few bytes at distances below 16: the Rust decoder ([`super::lz4_block::decode`]) takes those
/// (chunk of `bench/data.h`'s NOISY float64, 4 MiB, LZ4 5, one thread: 0.26 ms against 0.30 by
/// lz4's decoder and 0.39 by c-blosc2), and a block it refuses goes to lz4's
/// `LZ4_decompress_safe`, which decides. Other blocks go to lz4's decoder directly, which is
/// faster on them: planes of many short matches at long distances (python-blosc2 bench's
/// ramp-plus-noise float64, about 14,000 sequences per 64 KiB plane: lz4's 2.55 ms per 4 MiB
/// chunk against 2.75 by the Rust decoder, c-blosc2 2.55), float64 without shuffle, shuffled 2-
/// and 4-byte items and bitshuffle.
pub fn decompress(src: &[u8], dst: &mut [u8], short_periods: bool) -> usize {
    if short_periods
        && dst.len() >= RUST_DECODE_MIN_RATIO * src.len()
        && super::lz4_block::decode(src, dst)
    {
        return dst.len();
    }
    c_decompress(src, dst)
}

/// [`decompress`] by lz4's `LZ4_decompress_safe` alone.
fn c_decompress(src: &[u8], dst: &mut [u8]) -> usize {
    // SAFETY: LZ4_decompress_safe never reads past src_size nor writes past dst_capacity.
    let n = unsafe {
        lz4_sys::LZ4_decompress_safe(
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(dst.len()),
        )
    };
    if n >= 0 && n as usize == dst.len() {
        dst.len()
    } else {
        0
    }
}

/// Decompresses the start of an LZ4 block: at least its first `want` bytes (fewer only when
/// the block is shorter or invalid), stopping soon after. `dst` has room for the whole block.
/// Returns how many leading bytes of `dst` were decoded, 0 on error.
pub fn decompress_prefix(src: &[u8], dst: &mut [u8], want: usize) -> usize {
    // SAFETY: LZ4_decompress_safe_partial never reads past src_size nor writes past
    // dst_capacity; the target is clamped to the capacity.
    let n = unsafe {
        LZ4_decompress_safe_partial(
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(want.min(dst.len())),
            len_i32(dst.len()),
        )
    };
    n.max(0) as usize
}

/// Decompresses an LZ4 block compressed against `dict`.
pub fn decompress_with_dict(src: &[u8], dst: &mut [u8], dict: &[u8]) -> usize {
    // SAFETY: as in `decompress`; the dictionary is a valid slice.
    let n = unsafe {
        LZ4_decompress_safe_usingDict(
            src.as_ptr() as *const c_char,
            dst.as_mut_ptr() as *mut c_char,
            len_i32(src.len()),
            len_i32(dst.len()),
            dict.as_ptr() as *const c_char,
            len_i32(dict.len()),
        )
    };
    if n >= 0 && n as usize == dst.len() {
        dst.len()
    } else {
        0
    }
}

/// The linked lz4 version as "major.minor.release".
pub fn version_string() -> String {
    // SAFETY: LZ4_versionNumber has no preconditions.
    let v = unsafe { lz4_sys::LZ4_versionNumber() };
    format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let src: Vec<u8> = (0..10000u32).map(|i| (i % 37) as u8).collect();
        let mut c = vec![0u8; 10000];
        let n = compress(&src, &mut c, 1);
        assert!(n > 0 && n < 1000);
        for short_periods in [false, true] {
            let mut d = vec![0u8; 10000];
            assert_eq!(decompress(&c[..n], &mut d, short_periods), 10000);
            assert_eq!(d, src);
        }
        let n = compress_hc(&src, &mut c, 9);
        assert!(n > 0);
        for short_periods in [false, true] {
            let mut d = vec![0u8; 10000];
            assert_eq!(decompress(&c[..n], &mut d, short_periods), 10000);
            assert_eq!(d, src);
        }
        let mut d = vec![0u8; 10000];
        let dict: Vec<u8> = (0..300u32).map(|i| (i % 37) as u8).collect();
        let n = compress_with_dict(&src, &mut c, &dict);
        assert_eq!(decompress_with_dict(&c[..n], &mut d, &dict), 10000);
        assert_eq!(d, src);
        assert_eq!(version_string(), "1.10.0");
    }

    /// Deterministic test bytes of a few kinds: runs, short periods, smooth float64 bytes,
    /// noise, and mixtures of them.
    fn sample(kind: u32, n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let r = next();
            match (kind + (r % 7) as u32 * (kind / 4)) % 4 {
                0 => out.extend(std::iter::repeat_n(r as u8, 1 + (r >> 8) as usize % 300)),
                1 => {
                    let period = 1 + (r >> 8) as usize % 15;
                    let seed_bytes = (r >> 16).to_le_bytes();
                    let reps = 4 + (r >> 24) as usize % 200;
                    out.extend((0..period * reps).map(|i| seed_bytes[i % period % 8]));
                }
                2 => {
                    let v = ((out.len() as f64) * 0.001).sin() * 1000.0;
                    out.extend_from_slice(&v.to_le_bytes()[5..]);
                }
                _ => out.extend((0..1 + (r >> 8) % 40).map(|_| next() as u8)),
            }
        }
        out.truncate(n);
        out
    }

    /// The Rust decoder against lz4's: every block lz4 writes is taken and decoded the same,
    /// and any block it takes after corruption (bytes changed, cut short, output sized wrong)
    /// lz4 takes too, with the same output.
    #[test]
    fn rust_decoder_takes_a_subset_of_what_lz4_takes() {
        let mut accepted_corrupt = 0;
        let mut checked = 0;
        for kind in 0..8u32 {
            for (k, n) in [0usize, 1, 5, 12, 13, 17, 31, 64, 65, 100, 1000, 4096, 65536]
                .into_iter()
                .enumerate()
            {
                let src = sample(
                    kind,
                    n,
                    0x9e37_79b9_7f4a_7c15 ^ (kind as u64 * 31 + k as u64),
                );
                let mut c = vec![0u8; n + n / 255 + 64];
                for level in [0i32, 1, 4, 9] {
                    let len = if level == 0 {
                        compress(&src, &mut c, 1)
                    } else {
                        compress_hc(&src, &mut c, level)
                    };
                    assert!(len > 0 || n == 0);
                    let block = &c[..len];
                    let mut ours = vec![0u8; n];
                    assert!(
                        super::super::lz4_block::decode(block, &mut ours),
                        "kind {kind} n {n} level {level}"
                    );
                    assert_eq!(ours, src);
                    // Corrupt copies: one byte changed, cut short, output a byte off.
                    let mut x = (n as u64) << 8 | level as u64 | 1;
                    for t in 0..200usize {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let mut bad = block.to_vec();
                        let out_len = match t % 4 {
                            0 if !bad.is_empty() => {
                                let at = x as usize % bad.len();
                                bad[at] = (x >> 32) as u8;
                                n
                            }
                            1 => {
                                bad.truncate(x as usize % (bad.len() + 1));
                                n
                            }
                            2 => n + 1,
                            _ => n.saturating_sub(1 + (x >> 40) as usize % 3),
                        };
                        let mut ours = vec![0xAAu8; out_len];
                        let mut theirs = vec![0x55u8; out_len];
                        checked += 1;
                        if super::super::lz4_block::decode(&bad, &mut ours) {
                            accepted_corrupt += 1;
                            assert_eq!(
                                c_decompress(&bad, &mut theirs),
                                out_len,
                                "kind {kind} n {n} t {t}"
                            );
                            assert_eq!(ours, theirs);
                        }
                    }
                }
            }
        }
        // Changed literal bytes and some changed lengths still decode: the comparison above
        // ran on real cases.
        assert!(accepted_corrupt > 1000, "{accepted_corrupt} of {checked}");
    }

    #[test]
    fn prefix_decodes_at_least_what_is_wanted() {
        let src: Vec<u8> = (0..20000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut c = vec![0u8; 30000];
        let n = compress(&src, &mut c, 1);
        for want in [0usize, 1, 2, 100, 4095, 19999, 20000, 30000] {
            let mut d = vec![0u8; 20000];
            let got = decompress_prefix(&c[..n], &mut d, want);
            assert!(
                got >= want.min(20000) && got <= 20000,
                "want {want} got {got}"
            );
            assert_eq!(d[..got], src[..got]);
        }
        assert_eq!(decompress_prefix(&[0xff; 10], &mut [0u8; 100], 50), 0);
    }

    #[test]
    fn rejects_garbage() {
        let mut d = vec![0u8; 100];
        assert_eq!(decompress(&[0xff; 10], &mut d, false), 0);
        assert_eq!(decompress(&[0xff; 10], &mut d, true), 0);
    }

    /// Streams of 16 bytes to 70 KiB: small alphabets, runs, counters with noise (xorshift).
    fn streams() -> Vec<Vec<u8>> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..3000)
            .map(|k| {
                let len = if k % 100 == 0 {
                    70_000
                } else {
                    16 + (next() % 4200) as usize
                };
                let alphabet = 1 + next() % 16;
                (0..len)
                    .map(|i| match k % 3 {
                        0 => (next() % alphabet) as u8,
                        1 => ((i as u64 * (next() % 3)) % alphabet) as u8,
                        _ if next() % 8 == 0 => next() as u8,
                        _ => (i / 7) as u8 % alphabet as u8,
                    })
                    .collect()
            })
            .collect()
    }

    /// Output room: the bound, or half the input (so that some streams do not fit).
    fn room(k: usize, src: &[u8]) -> usize {
        if k % 4 == 3 {
            src.len() / 2
        } else {
            src.len() + src.len() / 255 + 16
        }
    }

    #[test]
    fn kept_states_write_what_fresh_ones_write() {
        let input = streams();
        let mut states = Lz4States::default();
        let (mut fitted, mut compressed) = (0, 0);
        for (k, src) in input.iter().enumerate() {
            let cap = room(k, src);
            let (mut kept, mut fresh) = (vec![0u8; cap], vec![0u8; cap]);
            let accel = 1 + (k % 9) as i32;
            let n = states.compress(src, &mut kept, accel);
            assert_eq!(n, compress(src, &mut fresh, accel), "stream {k}");
            assert_eq!(kept[..n], fresh[..n], "stream {k}");
            if n > 0 {
                fitted += 1;
                compressed += usize::from(n < src.len() / 2);
                let mut d = vec![0u8; src.len()];
                assert_eq!(decompress(&kept[..n], &mut d, k % 2 == 0), src.len());
                assert_eq!(&d, src);
            }
            if k % 10 == 0 {
                let level = 1 + (k / 10 % 12) as i32;
                let n = states.compress_hc(src, &mut kept, level);
                assert_eq!(n, compress_hc(src, &mut fresh, level), "stream {k}");
                assert_eq!(kept[..n], fresh[..n], "stream {k}");
            }
        }
        // The streams exercise both outcomes, fitting (some well compressed) and not.
        assert!(
            fitted > 1500 && fitted < 3000 && compressed > 100,
            "{fitted} {compressed}"
        );
    }
}
