//! The match copies of both LZ decoders (BloscLZ, LZ4).
//!
//! A match of `len` bytes at a distance (period) below 16 overlaps itself: it repeats the
//! `period` bytes before it.
//! Copying such a match in chunks, each load reading what the previous store has just written,
//! makes every step wait for that store to reach the cache: lz4's own decoder spent 38% of its
//! time on the benchmark's shuffled float64 streams in such a loop (period 5, hundreds of bytes).
//! Here the match's first 16 bytes are built in a register once and stored every `step` bytes
//! (the largest multiple of the period that fits in 16), so no store waits for a load.

/// Output bytes [`copy_match_wide`] may write past a match's end.
pub(crate) const WIDE_COPY_SLACK: usize = 32;

/// Copies the match of `len` bytes at `distance` to `op` when there is room after it: in 8-
/// or 16-byte chunks, or (a longer match at a distance below 16) by storing its repeating
/// pattern from a register ([`copy_repeating`]), writing up to [`WIDE_COPY_SLACK`] bytes past
/// the match end, which the caller writes again later.
///
/// The caller guarantees `1 <= distance <= op` and `op + len + WIDE_COPY_SLACK <=
/// output.len()`; with them, every chunk below starts before `op + len` (or is one of the
/// first two), so it ends by `op + len + WIDE_COPY_SLACK`, and reads only bytes written before
/// it.
#[inline(always)]
pub(crate) fn copy_match_wide(output: &mut [u8], op: usize, distance: usize, len: usize) {
    let end = op + len;
    let base = output.as_mut_ptr();
    let mut d = op;
    if distance >= 8 && len <= 16 {
        // Most matches: two 8-byte moves. The bytes a match copies were mostly written by the
        // last few tokens, whose stores may not have reached the cache yet; a load the CPU
        // cannot take whole from one of them waits until they do. Loads of 8 bytes lie within
        // one earlier 16-byte store more often than loads of 16 (16-byte moves here: b2nd
        // slab, column and box reads 9-11% slower; one 16-byte move for these: 7% slower).
        // SAFETY: `op + 16 <= op + len + WIDE_COPY_SLACK <= output.len()`; `op - distance + 16
        // <= op + 8`, so the second load reads at most what the first store wrote.
        unsafe {
            move_chunk::<8>(base, op - distance, op);
            move_chunk::<8>(base, op + 8 - distance, op + 8);
        }
        return;
    }
    if distance >= 16 {
        // Each source chunk ends at or before its destination, so it is already final. The
        // first 32 bytes go unconditionally: most matches are shorter, and a copy loop's exit
        // after one or two rounds is a branch the CPU mispredicts often.
        // SAFETY: `op + 32 <= op + len + WIDE_COPY_SLACK <= output.len()`, and each source
        // chunk ends at or before its destination (`distance >= 16`).
        unsafe {
            move_chunk::<16>(base, op - distance, op);
            move_chunk::<16>(base, op + 16 - distance, op + 16);
        }
        d += 32;
        while d < end {
            // SAFETY: `d < end`, so `d + 16 <= output.len()`, and `d - distance + 16 <= d`.
            unsafe { move_chunk::<16>(base, d - distance, d) };
            d += 16;
        }
        return;
    }
    // A longer match at a distance below 16 repeats the `distance` bytes before `op`.
    copy_repeating(output, op, distance, len);
}

/// Copies the `N` bytes at `from` to `to` within the buffer at `base` (the load before the
/// store, so the ranges may overlap).
///
/// # Safety
/// `from + N` and `to + N` are within the buffer.
#[inline(always)]
unsafe fn move_chunk<const N: usize>(base: *mut u8, from: usize, to: usize) {
    // SAFETY: `from + N` and `to + N` lie within the buffer at `base` (this fn's contract): an
    // unaligned read and an unaligned write of N bytes.
    unsafe {
        let chunk = base.add(from).cast::<[u8; N]>().read_unaligned();
        base.add(to).cast::<[u8; N]>().write_unaligned(chunk);
    }
}

/// Copies `len` bytes from `op - distance` to `op` front to back (so overlapping copies repeat
/// the pattern), writing up to 16 bytes past them where `output` has room (the caller writes
/// them again later). The caller guarantees `1 <= distance <= op` and `op + len <= output.len()`.
#[inline(always)]
pub(crate) fn copy_match(output: &mut [u8], op: usize, distance: usize, len: usize) {
    let src = op - distance;
    let end = op + len;
    if distance >= 16 && end + 16 <= output.len() {
        // Wide copy in 16-byte steps: each source chunk lies before its destination and is
        // already final; bytes written past `end` are overwritten later.
        let (mut s, mut d) = (src, op);
        while d < end {
            let chunk: [u8; 16] = output[s..s + 16].try_into().unwrap_or([0; 16]);
            output[d..d + 16].copy_from_slice(&chunk);
            s += 16;
            d += 16;
        }
    } else if distance >= 8 && end + 8 <= output.len() {
        // Same in 8-byte steps for closer sources.
        let (mut s, mut d) = (src, op);
        while d < end {
            let chunk: [u8; 8] = output[s..s + 8].try_into().unwrap_or([0; 8]);
            output[d..d + 8].copy_from_slice(&chunk);
            s += 8;
            d += 8;
        }
    } else if distance == 1 {
        let byte = output[src];
        output[op..end].fill(byte);
    } else if distance >= len {
        output.copy_within(src..src + len, op);
    } else {
        // Overlapping: the region [src, op + copied) is periodic with period `distance`, so
        // it can be copied onto itself in doubling steps that keep the phase.
        let mut copied = 0;
        while copied < len {
            let n = (distance + copied).min(len - copied);
            output.copy_within(src..src + n, op + copied);
            copied += n;
        }
    }
}

/// Writes the `len` bytes (`len >= 1`) that repeat `out[op - period..op]` at `op`
/// (`1 <= period < 16`, `period <= op`), writing up to 16 bytes past them (`op + len + 16 <=
/// out.len()`), which the caller writes again later. Out of line: the decoding loops keep
/// their registers for the common short matches.
#[inline(never)]
pub(crate) fn copy_repeating(out: &mut [u8], op: usize, period: usize, len: usize) {
    let end = op + len;
    let base = out.as_mut_ptr();
    let pattern = repeat_pattern(out, op, period);
    let step = PATTERN_STEP[period] as usize;
    let mut d = op;
    loop {
        // SAFETY: `d < end`, so `d + 16 <= end + 16 <= out.len()`.
        unsafe { base.add(d).cast::<[u8; 16]>().write_unaligned(pattern) };
        d += step;
        if d >= end {
            return;
        }
    }
}

/// For each period below 16, the largest multiple of it that fits in 16 bytes.
const PATTERN_STEP: [u8; 16] = {
    let mut table = [16u8; 16];
    let mut period = 1;
    while period < 16 {
        table[period] = (16 - 16 % period) as u8;
        period += 1;
    }
    table
};

/// For each period below 16, the 128-bit number with a 1 at the start of every period: a
/// period's bytes times it are the bytes repeated (no carries, each copy is below the next).
const REPEAT: [u128; 16] = {
    let mut table = [0u128; 16];
    let mut period = 1;
    while period < 16 {
        let mut at = 0;
        while at < 128 {
            table[period] |= 1u128 << at;
            at += 8 * period;
        }
        period += 1;
    }
    table
};

/// The first 16 bytes of the sequence that repeats `out[op - period..op]` (`1 <= period <
/// 16`, `op + 16 <= out.len()`).
#[inline(always)]
fn repeat_pattern(out: &[u8], op: usize, period: usize) -> [u8; 16] {
    let from = op - period;
    // SAFETY: `from + 16 < op + 16 <= out.len()`.
    let raw = unsafe { out.as_ptr().add(from).cast::<[u8; 16]>().read_unaligned() };
    let once = u128::from_le_bytes(raw) & PERIOD_MASK[period];
    once.wrapping_mul(REPEAT[period]).to_le_bytes()
}

/// For each period below 16, the mask of its bytes in a 128-bit little-endian number.
const PERIOD_MASK: [u128; 16] = {
    let mut table = [0u128; 16];
    let mut period = 1;
    while period < 16 {
        table[period] = (1u128 << (8 * period)) - 1;
        period += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_period_and_length_repeats_exactly() {
        for period in 1..16usize {
            for len in 1..100usize {
                let mut out: Vec<u8> = (0..20u8).map(|i| i.wrapping_mul(29) ^ 0x33).collect();
                let op = out.len();
                out.resize(op + len + 16, 0xEE);
                copy_repeating(&mut out, op, period, len);
                for i in 0..len {
                    assert_eq!(
                        out[op + i],
                        out[op + i - period],
                        "period {period} len {len} at {i}"
                    );
                }
            }
        }
    }
}
