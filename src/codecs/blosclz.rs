//! BloscLZ codec: the stream format c-blosc2 3.3.5 writes and reads (BloscLZ 2.5.x).
//!
//! A stream is a sequence of instructions; the first byte of the stream carries the marker bit
//! `0x20`, which the decoder masks off (the first instruction is always a literal run).
//!
//! * literal run: one control byte `0b000nnnnn` followed by `n + 1` raw bytes (1..=32);
//! * match: control byte `lll ddddd` with `lll` in 1..=7. The copy length is `lll + 2` when
//!   `lll < 7`; when `lll == 7` extra length bytes follow, each added to the length, the run of
//!   them ending at the first byte that is not 255 (the copy length is then `7 + 2 + sum`). Then
//!   one byte `e`: the distance is `(ddddd << 8 | e) + 1`. When `ddddd == 31` and `e == 255` the
//!   match is "far": two more bytes (big-endian) `f` follow and the distance is `f + 8192`.
//!
//! The compressor is a greedy hash-chain-less matcher (one candidate per 4-byte hash) whose every
//! decision follows c-blosc2's `blosclz_compress`, so that the produced bytes are identical to
//! the reference library's for the same input, `clevel` and output capacity: hash table size by
//! clevel, a matched length cut back by 4 bytes ("ipshift") with 4 as the minimum length, far
//! matches only from 6 bytes, and an "entropy probe" that estimates the compression ratio on
//! the tail of the block first and gives up (returns 0) when it is too low for the clevel.
//! c-blosc2 passes its context to `blosclz_compress` but the 3.3.5 code does not use it, so the
//! clevel, the input and the output capacity decide everything.

/// Longest literal run one control byte can announce.
const MAX_COPY: usize = 32;
/// Distances (minus one) below this use the 2-byte near encoding.
const MAX_DISTANCE: usize = 8191;
/// Distances from this one on are never encoded (16-bit far offset plus the near range).
const MAX_FAR_DISTANCE: usize = 65535 + MAX_DISTANCE - 1;
/// Largest hash table, used from clevel 3 on (clevel 1 uses 2^12 entries, clevel 2 2^13).
const HASH_LOG: u32 = 14;
/// Multiplicative hash constant (Knuth's golden ratio prime, as in LZ4).
const HASH_MULTIPLIER: u32 = 2_654_435_761;
/// Bytes a match end is moved back by, which is also the minimum encoded length.
const MATCH_SHIFT: usize = 4;
/// Control byte announcing a full literal run (32 bytes) — also the placeholder written before
/// a literal run whose length is not yet known.
const LITERAL_PLACEHOLDER: u8 = (MAX_COPY - 1) as u8;
/// Minimum compression ratio the entropy probe must estimate, per clevel, for the block to be
/// compressed at all (BloscLZ is not worth its decompression cost below these).
const MIN_PROBE_RATIO: [f64; 10] = [0.0, 2.0, 1.5, 1.2, 1.2, 1.2, 1.2, 1.15, 1.1, 1.0];

/// Compresses `input` into `output`; returns the compressed length, or 0 when the result would
/// not fit in `output` or would not be worth it (c-blosc2's blosclz_compress returns 0 then too;
/// the caller then stores the block uncompressed). `clevel` 0..=9; `maxlen` = output.len().
///
/// `clevel` 0 (never passed by c-blosc2, which stores such blocks raw) returns 0; values above 9
/// act as 9. Inputs of 2 GiB or more return 0 (the format's callers use `i32` sizes).
pub fn compress(clevel: i32, input: &[u8], output: &mut [u8]) -> usize {
    let length = input.len();
    if clevel <= 0 || length > i32::MAX as usize {
        return 0;
    }
    let clevel = clevel.min(9) as usize;
    let maxout = output.len().min(i32::MAX as usize);
    let hash_log = match clevel {
        1 => HASH_LOG - 2,
        2 => HASH_LOG - 1,
        _ => HASH_LOG,
    };
    let mut htab = [0u32; 1 << HASH_LOG];

    // Entropy probe over the last part of the block (all of it from clevel 7 on).
    let probe_len = match clevel {
        0..=1 => length / 8,
        2..=3 => length / 4,
        4..=6 => length / 2,
        _ => length,
    };
    let ratio = probe_ratio(&input[length - probe_len..], hash_log, &mut htab);
    if ratio < MIN_PROBE_RATIO[clevel] {
        return 0;
    }
    if length < 16 || maxout < 66 {
        return 0;
    }
    htab[..1 << hash_log].fill(0);
    let output = &mut output[..maxout];
    // 0 (the caller stores the block raw) when the output is too small.
    encode(clevel == 9, hash_log, input, output, &mut htab).unwrap_or(0)
}

#[inline(always)]
fn read_u32(data: &[u8], pos: usize) -> u32 {
    u32::from_le_bytes([data[pos], data[pos + 1], data[pos + 2], data[pos + 3]])
}

#[inline(always)]
fn read_u64(data: &[u8], pos: usize) -> u64 {
    let bytes: [u8; 8] = data[pos..pos + 8].try_into().unwrap_or([0; 8]);
    u64::from_le_bytes(bytes)
}

#[inline(always)]
fn hash(seq: u32, hash_log: u32) -> usize {
    (seq.wrapping_mul(HASH_MULTIPLIER) >> (32 - hash_log)) as usize
}

/// Extends a match: returns one past the first position `p` in `start..bound` where
/// `data[p] != data[p - distance]`, or `bound` when there is none (the reference's match and
/// run finders both land there, whatever their word size).
#[inline(always)]
fn match_end(data: &[u8], start: usize, bound: usize, distance: usize) -> usize {
    let mut p = start;
    while p + 8 <= bound {
        let diff = read_u64(data, p) ^ read_u64(data, p - distance);
        if diff != 0 {
            return p + (diff.trailing_zeros() / 8) as usize + 1;
        }
        p += 8;
    }
    while p < bound {
        if data[p] != data[p - distance] {
            return p + 1;
        }
        p += 1;
    }
    bound
}

/// Estimates the compression ratio the encoder would reach on `window`, looking at no more
/// than one hash table's worth of bytes (`2^hash_log`). Counts output bytes the way the
/// encoder writes them, with a single hash update per match.
fn probe_ratio(window: &[u8], hash_log: u32, htab: &mut [u32]) -> f64 {
    let hash_len = 1usize << hash_log;
    htab[..hash_len].fill(0);
    let limit = window.len().min(hash_len);
    if limit <= 12 {
        return 0.0;
    }
    let ip_bound = limit - 1;
    let ip_limit = limit - 12;
    let mut out_count: usize = 5;
    let mut copy = 4;
    let mut ip = 0;
    while ip < ip_limit {
        let anchor = ip;
        let seq = read_u32(window, ip);
        let h = hash(seq, hash_log);
        let candidate = htab[h] as usize;
        htab[h] = anchor as u32;
        let distance = anchor.wrapping_sub(candidate);
        let mut matched = None;
        if distance != 0 && distance < MAX_FAR_DISTANCE && read_u32(window, candidate) == seq {
            let end = match_end(window, anchor + 4, ip_bound, distance) - MATCH_SHIFT;
            if end - anchor >= MATCH_SHIFT {
                matched = Some(end);
            }
        }
        let Some(end) = matched else {
            out_count += 1;
            ip = anchor + 1;
            copy += 1;
            if copy == MAX_COPY {
                copy = 0;
                out_count += 1;
            }
            continue;
        };
        let len = end - anchor;
        if copy == 0 {
            out_count -= 1;
        }
        copy = 0;
        if len >= 7 {
            out_count += (len - 7) / 255 + 1;
        }
        out_count += if distance - 1 < MAX_DISTANCE { 2 } else { 4 };
        htab[hash(read_u32(window, end), hash_log)] = end as u32;
        ip = end + 2;
        out_count += 1;
    }
    ip as f64 / out_count as f64
}

/// The encoder proper; `None` when `output` is too small.
fn encode(
    double_hash_update: bool,
    hash_log: u32,
    input: &[u8],
    output: &mut [u8],
    htab: &mut [u32],
) -> Option<usize> {
    let length = input.len();
    let op_limit = output.len();
    let ip_bound = length - 1;
    let ip_limit = length - 12;

    output[0] = LITERAL_PLACEHOLDER;
    output[1..5].copy_from_slice(&input[..4]);
    let mut op = 5;
    let mut ip = 4;
    let mut copy = 4;

    while ip < ip_limit {
        let anchor = ip;
        let seq = read_u32(input, ip);
        let h = hash(seq, hash_log);
        let candidate = htab[h] as usize;
        htab[h] = anchor as u32;
        let distance = anchor.wrapping_sub(candidate);

        let mut matched = None;
        if distance != 0 && distance < MAX_FAR_DISTANCE && read_u32(input, candidate) == seq {
            let end = match_end(input, anchor + 4, ip_bound, distance) - MATCH_SHIFT;
            let len = end - anchor;
            // Short far matches cost more to decode than the literals they replace.
            if len >= MATCH_SHIFT && (len > 5 || distance - 1 < MAX_DISTANCE) {
                matched = Some(end);
            }
        }
        let Some(end) = matched else {
            if op + 2 > op_limit {
                return None;
            }
            output[op] = input[anchor];
            op += 1;
            ip = anchor + 1;
            copy += 1;
            if copy == MAX_COPY {
                copy = 0;
                output[op] = LITERAL_PLACEHOLDER;
                op += 1;
            }
            continue;
        };

        // Close the pending literal run (or drop its unused placeholder).
        if copy > 0 {
            output[op - copy - 1] = (copy - 1) as u8;
        } else {
            op -= 1;
        }
        copy = 0;

        let len = end - anchor;
        let distance = distance - 1;
        op = if distance < MAX_DISTANCE {
            emit_match(
                output,
                op,
                len,
                0,
                distance as u8,
                (distance >> 8) as u8,
                &[],
            )?
        } else {
            let far = (distance - MAX_DISTANCE) as u16;
            emit_match(output, op, len, 4, 255, 31, &far.to_be_bytes())?
        };

        let seq = read_u32(input, end);
        htab[hash(seq, hash_log)] = end as u32;
        if double_hash_update {
            htab[hash(seq >> 8, hash_log)] = (end + 1) as u32;
        }
        ip = end + 2;
        if op + 1 > op_limit {
            return None;
        }
        output[op] = LITERAL_PLACEHOLDER;
        op += 1;
    }

    while ip <= ip_bound {
        if op + 2 > op_limit {
            return None;
        }
        output[op] = input[ip];
        op += 1;
        ip += 1;
        copy += 1;
        if copy == MAX_COPY {
            copy = 0;
            output[op] = LITERAL_PLACEHOLDER;
            op += 1;
        }
    }
    if copy > 0 {
        output[op - copy - 1] = (copy - 1) as u8;
    } else {
        op -= 1;
    }
    output[0] |= 1 << 5;
    Some(op)
}

/// Writes one match instruction at `op`: control byte (length code, `high` distance bits), the
/// extra length bytes for long matches, then `low` and the far offset bytes `far`. `tail_room`
/// is the space the reference requires for the final bytes (2 near, 4 far). Returns the new
/// output position, `None` when the output is full (checked exactly where the reference checks).
#[inline(always)]
fn emit_match(
    output: &mut [u8],
    mut op: usize,
    len: usize,
    tail_room: usize,
    low: u8,
    high: u8,
    far: &[u8],
) -> Option<usize> {
    let op_limit = output.len();
    let tail_room = tail_room.max(2);
    if len < 7 {
        if op + tail_room > op_limit {
            return None;
        }
        output[op] = ((len as u8) << 5) + high;
        output[op + 1] = low;
        output[op + 2..op + 2 + far.len()].copy_from_slice(far);
        return Some(op + 2 + far.len());
    }
    if op + 1 > op_limit {
        return None;
    }
    output[op] = (7 << 5) + high;
    op += 1;
    let mut rest = len - 7;
    while rest >= 255 {
        if op + 1 > op_limit {
            return None;
        }
        output[op] = 255;
        op += 1;
        rest -= 255;
    }
    if op + tail_room > op_limit {
        return None;
    }
    output[op] = rest as u8;
    output[op + 1] = low;
    output[op + 2..op + 2 + far.len()].copy_from_slice(far);
    Some(op + 2 + far.len())
}

/// Decompresses a BloscLZ stream into `output` (whose length is the expected decompressed size);
/// returns the number of bytes written, or 0 on any malformed/truncated input (never panics,
/// never reads or writes out of bounds).
///
/// Accepts exactly what the reference decoder accepts: like it, a match that ends the stream is
/// validated but not copied, and the count returned is what was written (callers compare it with
/// the expected size).
pub fn decompress(input: &[u8], output: &mut [u8]) -> usize {
    let ip_limit = input.len();
    let op_limit = output.len();
    let Some(&first) = input.first() else {
        return 0;
    };
    let mut ip = 1;
    let mut op = 0;
    let mut ctrl = (first & 31) as usize;
    loop {
        if ctrl >= 32 {
            let mut len = (ctrl >> 5) - 1;
            let high = (ctrl & 31) << 8;
            if len == 6 {
                loop {
                    if ip + 1 >= ip_limit {
                        return 0;
                    }
                    let code = input[ip];
                    ip += 1;
                    len += code as usize;
                    if code != 255 {
                        break;
                    }
                }
            } else if ip + 1 >= ip_limit {
                return 0;
            }
            let low = input[ip];
            ip += 1;
            len += 3;
            // `back` is the distance minus one.
            let mut back = high + low as usize;
            if low == 255 && high == 31 << 8 {
                if ip + 1 >= ip_limit {
                    return 0;
                }
                back = ((input[ip] as usize) << 8 | input[ip + 1] as usize) + MAX_DISTANCE;
                ip += 2;
            }
            if op + len > op_limit || back + 1 > op {
                return 0;
            }
            if ip >= ip_limit {
                break;
            }
            ctrl = input[ip] as usize;
            ip += 1;
            copy_match(output, op, back + 1, len);
            op += len;
        } else {
            let run = ctrl + 1;
            if op + run > op_limit || ip + run > ip_limit {
                return 0;
            }
            if op + MAX_COPY <= op_limit && ip + MAX_COPY <= ip_limit {
                // Fixed-size copy (cheaper than a variable one); the bytes past `run` are
                // overwritten by what follows.
                output[op..op + MAX_COPY].copy_from_slice(&input[ip..ip + MAX_COPY]);
            } else {
                output[op..op + run].copy_from_slice(&input[ip..ip + run]);
            }
            op += run;
            ip += run;
            if ip >= ip_limit {
                break;
            }
            ctrl = input[ip] as usize;
            ip += 1;
        }
    }
    op
}

/// Copies `len` bytes from `op - distance` to `op` front to back (so overlapping copies repeat
/// the pattern). The caller guarantees `1 <= distance <= op` and `op + len <= output.len()`.
#[inline(always)]
fn copy_match(output: &mut [u8], op: usize, distance: usize, len: usize) {
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
