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

use super::lz_match::{copy_match, copy_match_wide, WIDE_COPY_SLACK};

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
    // Entropy probe over the last part of the block (all of it from clevel 7 on).
    let probe_len = match clevel {
        0..=1 => length / 8,
        2..=3 => length / 4,
        4..=6 => length / 2,
        _ => length,
    };
    let ratio = probe_ratio(&input[length - probe_len..], hash_log);
    if ratio < MIN_PROBE_RATIO[clevel] {
        return 0;
    }
    if length < 16 || maxout < 66 {
        return 0;
    }
    let mut htab: HashTable = [0; 1 << HASH_LOG];
    let output = &mut output[..maxout];
    // 0 (the caller stores the block raw) when the output is too small.
    encode(clevel == 9, hash_log, input, output, &mut htab).unwrap_or(0)
}

#[inline(always)]
fn read_u32(data: &[u8], pos: usize) -> u32 {
    let bytes: [u8; 4] = data[pos..pos + 4].try_into().unwrap_or([0; 4]);
    u32::from_le_bytes(bytes)
}

/// Positions by hash, sized for the largest hash log (smaller logs use its start).
type HashTable = [u32; 1 << HASH_LOG];

#[inline(always)]
fn hash(seq: u32, hash_log: u32) -> usize {
    // The mask is a no-op (hash_log <= HASH_LOG) that lets the compiler drop bounds checks.
    (seq.wrapping_mul(HASH_MULTIPLIER) >> (32 - hash_log)) as usize & ((1 << HASH_LOG) - 1)
}

/// Extends a match: returns one past the first position `p` in `start..bound` where
/// `data[p] != data[p - distance]`, or `bound` when there is none (the reference's match and
/// run finders both land there, whatever their word size).
#[inline(always)]
fn match_end(data: &[u8], start: usize, bound: usize, distance: usize) -> usize {
    // The bytes from `start` and the ones `distance` before them, both up to `bound`: equal
    // lengths, so each comparison below needs no bounds check of its own.
    let (Some(cur), Some(prev)) = (
        data.get(start..bound),
        data.get(start.wrapping_sub(distance)..bound.wrapping_sub(distance)),
    ) else {
        return bound;
    };
    let mut matched = 0;
    // Most matches are short: settle them with one 8-byte comparison.
    if let (Some(a), Some(b)) = (cur.first_chunk::<8>(), prev.first_chunk::<8>()) {
        let diff = u64::from_le_bytes(*a) ^ u64::from_le_bytes(*b);
        if diff != 0 {
            return start + (diff.trailing_zeros() / 8) as usize + 1;
        }
        matched = 8;
    }
    // Long matches (runs above all): compare 32 bytes at a time, then find the byte below.
    for (a, b) in cur[matched..]
        .as_chunks::<32>()
        .0
        .iter()
        .zip(prev[matched..].as_chunks::<32>().0)
    {
        if a != b {
            break;
        }
        matched += 32;
    }
    for (a, b) in cur[matched..]
        .as_chunks::<8>()
        .0
        .iter()
        .zip(prev[matched..].as_chunks::<8>().0)
    {
        let diff = u64::from_le_bytes(*a) ^ u64::from_le_bytes(*b);
        if diff != 0 {
            return start + matched + (diff.trailing_zeros() / 8) as usize + 1;
        }
        matched += 8;
    }
    for (a, b) in cur[matched..].iter().zip(&prev[matched..]) {
        if a != b {
            return start + matched + 1;
        }
        matched += 1;
    }
    bound
}

/// [`match_end`] out of line: inlined, it makes the probe keep more loop variables than the
/// literal step (run for almost every byte of a block that fails the probe) can hold in registers.
#[inline(never)]
fn probe_match_end(data: &[u8], start: usize, bound: usize, distance: usize) -> usize {
    match_end(data, start, bound, distance)
}

/// The probe's literal step, run for almost every byte of a block that fails the probe: hashes
/// the 4-byte sequence at each position from `ip` on (below `ip_limit`) until one equals the
/// one its hash entry remembers, at a distance the format can encode. Returns that position
/// and the earlier one.
#[inline(always)]
fn probe_scan(
    window: &[u8],
    htab: &mut ProbeTable,
    hash_log: u32,
    mut ip: usize,
    ip_limit: usize,
) -> Option<(usize, usize)> {
    // The length test of `first_chunk` is also the loop's end test and bounds check.
    let mut rest = window.get(ip..ip_limit + 3)?;
    while let Some(&bytes) = rest.first_chunk::<4>() {
        let seq = u32::from_le_bytes(bytes);
        let h = hash(seq, hash_log);
        let candidate = usize::from(htab[h]);
        // Positions stored are below `window.len()` <= 2^HASH_LOG, which fits in u16.
        htab[h] = ip as u16;
        // One comparison for `1 <= distance < MAX_FAR_DISTANCE` (candidate < ip).
        let distance = ip.wrapping_sub(candidate);
        if distance.wrapping_sub(1) < MAX_FAR_DISTANCE - 1 {
            // SAFETY: `rest` starts at `ip` in `window` and holds 4 bytes, and the distance
            // test above means `candidate < ip`: `candidate + 4 <= window.len()`. (Checked,
            // this read was 3 of the step's 20 instructions; the compiler cannot see the bound.)
            let earlier = unsafe { window.get_unchecked(candidate..candidate + 4) };
            if earlier == bytes {
                return Some((ip, candidate));
            }
        }
        ip += 1;
        rest = &rest[1..];
    }
    None
}

/// Positions by hash for the entropy probe: it looks at no more than `2^HASH_LOG` bytes, so a
/// position fits in 16 bits and the table zeroed per stream is half the encoder's.
type ProbeTable = [u16; 1 << HASH_LOG];

/// Estimates the compression ratio the encoder would reach on `window`, looking at no more
/// than one hash table's worth of bytes (`2^hash_log`). Counts output bytes the way the
/// encoder writes them, with a single hash update per match.
///
/// Most probed bytes are literals (a block that fails the probe is all literals), so the
/// literal step only advances `ip`: the bytes a literal run costs (one per literal plus a
/// control byte per 32) are added when the run ends.
#[inline(never)]
fn probe_ratio(window: &[u8], hash_log: u32) -> f64 {
    let limit = window.len().min(1 << hash_log);
    if limit <= 12 {
        return 0.0;
    }
    let window = &window[..limit];
    let mut htab: ProbeTable = [0; 1 << HASH_LOG];
    let ip_bound = limit - 1;
    let ip_limit = limit - 12;
    // Output bytes of everything before the current literal run, the run's control byte
    // included. The probe starts as the encoder does, as if 4 literals were pending (whose
    // bytes are counted by the run length, `ip + 4 - run_origin`).
    let mut out_count: usize = 1;
    let mut run_origin: usize = 0;
    let mut ip = 0;
    while let Some((anchor, candidate)) = probe_scan(window, &mut htab, hash_log, ip, ip_limit) {
        let distance = anchor - candidate;
        let end = probe_match_end(window, anchor + 4, ip_bound, distance) - MATCH_SHIFT;
        let len = end - anchor;
        if len < MATCH_SHIFT {
            ip = anchor + 1;
            continue;
        }
        let run = anchor + 4 - run_origin;
        out_count += run + run / MAX_COPY;
        // A run ending on a full control byte's worth leaves an unused placeholder.
        if run.is_multiple_of(MAX_COPY) {
            out_count -= 1;
        }
        if len >= 7 {
            out_count += (len - 7) / 255 + 1;
        }
        out_count += if distance - 1 < MAX_DISTANCE { 2 } else { 4 };
        htab[hash(read_u32(window, end), hash_log)] = end as u16;
        ip = end + 2;
        // The next literal run's control byte.
        out_count += 1;
        run_origin = ip + 4;
    }
    // The scan stopped at `ip_limit`, unless a match took `ip` past it.
    let ip = ip.max(ip_limit);
    let run = ip + 4 - run_origin;
    out_count += run + run / MAX_COPY;
    ip as f64 / out_count as f64
}

/// The encoder proper; `None` when `output` is too small.
fn encode(
    double_hash_update: bool,
    hash_log: u32,
    input: &[u8],
    output: &mut [u8],
    htab: &mut HashTable,
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
    decompress_until::<false>(input, output, usize::MAX)
}

/// Decompresses the start of a stream: at least its first `want` bytes (fewer only when the
/// stream is shorter or invalid), stopping at the first token that ends at or past them.
/// `output` has room for the whole stream. Returns how many leading bytes of `output` were
/// decoded, 0 on error.
pub fn decompress_prefix(input: &[u8], output: &mut [u8], want: usize) -> usize {
    decompress_until::<true>(input, output, want.max(1))
}

/// [`decompress`], returning as soon as `stop` bytes or more are decoded (`usize::MAX` with
/// `PREFIX` false: never, and the check is compiled out).
///
/// The bulk of a stream goes through [`decode_fast`], which takes only tokens that lie whole
/// inside the input and output; the rest (and any token it declines) goes through
/// [`decode_checked`], which checks every step.
#[inline(always)]
fn decompress_until<const PREFIX: bool>(input: &[u8], output: &mut [u8], stop: usize) -> usize {
    let Some(&first) = input.first() else {
        return 0;
    };
    let (ip, op, ctrl) = decode_fast::<PREFIX>(input, output, stop, 1, 0, (first & 31) as usize);
    decode_checked(input, output, stop, ip, op, ctrl)
}

/// Input bytes a match token needs after its control byte and length bytes: the distance
/// (1 or 3 bytes) and the next control byte.
const MATCH_TAIL_BYTES: usize = 4;
/// Decodes tokens while each one, whole, lies inside the input and the output and is followed
/// by another: literal runs are copied as fixed 32-byte chunks when both buffers have room for
/// one (by [`copy_literal_near_end`] otherwise), and matches by [`copy_match_wide`] when the output has [`WIDE_COPY_SLACK`] bytes of
/// room past them (by [`copy_match`] otherwise).
///
/// Starts and ends at a token boundary: `ctrl` is the token's control byte and `ip` the
/// position after it. A token it does not take (the last one, one that would overrun either
/// buffer, or an invalid distance) is left whole to [`decode_checked`], which then decides
/// exactly as it would have from the start; every token taken here passes all the checks
/// `decode_checked` makes, so both paths accept, reject and write the same.
///
/// This loop decodes most of every stream and the compiler cannot drop the bounds checks of
/// its reads and copies (callgrind: they were a third of its instructions), so it reads and
/// writes unchecked where the loop's own conditions prove the bounds, each stated at the site.
#[inline(always)]
fn decode_fast<const PREFIX: bool>(
    input: &[u8],
    output: &mut [u8],
    stop: usize,
    mut ip: usize,
    mut op: usize,
    mut ctrl: usize,
) -> (usize, usize, usize) {
    let ip_limit = input.len();
    let op_limit = output.len();
    // `ip < match_ip_end`: `ip + MATCH_TAIL_BYTES <= ip_limit`.
    let match_ip_end = (ip_limit + 1).saturating_sub(MATCH_TAIL_BYTES);
    // `ip < chunk_ip_end`: `ip + MAX_COPY < ip_limit` (a chunk and the next control byte).
    let chunk_ip_end = ip_limit.saturating_sub(MAX_COPY);
    // `op <= chunk_op_end`: `op + MAX_COPY <= op_limit`.
    let Some(chunk_op_end) = op_limit.checked_sub(MAX_COPY) else {
        return (ip, op, ctrl);
    };
    while ip < match_ip_end && (!PREFIX || op < stop) {
        let token_ip = ip;
        if ctrl < 32 {
            let run = ctrl + 1;
            if ip >= chunk_ip_end || op > chunk_op_end {
                // Near an end: a run followed by another token is still copied here (the
                // stream's last token and anything out of bounds go to `decode_checked`).
                if ip + run >= ip_limit || op + run > op_limit {
                    return (token_ip, op, ctrl);
                }
                copy_literal_near_end(&input[ip..], &mut output[op..], run);
                op += run;
                ip += run;
                ctrl = input[ip] as usize;
                ip += 1;
                continue;
            }
            // SAFETY: `ip + MAX_COPY < input.len()` and `op + MAX_COPY <= output.len()` (just
            // checked), and `run <= MAX_COPY`, so the chunk read, the chunk written and the
            // next control byte at `ip + run` are all in bounds.
            unsafe {
                let chunk = input
                    .as_ptr()
                    .add(ip)
                    .cast::<[u8; MAX_COPY]>()
                    .read_unaligned();
                output
                    .as_mut_ptr()
                    .add(op)
                    .cast::<[u8; MAX_COPY]>()
                    .write_unaligned(chunk);
                ctrl = *input.get_unchecked(ip + run) as usize;
            }
            op += run;
            ip += run + 1;
            continue;
        }
        let mut len = (ctrl >> 5) + 2;
        if len == 9 {
            loop {
                if ip + 1 >= match_ip_end {
                    return (token_ip, op, ctrl);
                }
                // SAFETY: `ip < match_ip_end <= input.len()`.
                let code = unsafe { *input.get_unchecked(ip) };
                ip += 1;
                len += code as usize;
                if code != 255 {
                    break;
                }
            }
        }
        // Here `ip < match_ip_end` (the loop condition, or the length bytes' check), so
        // `input[ip..ip + MATCH_TAIL_BYTES]` holds the distance bytes and the next control byte.
        // SAFETY: as just said.
        let low = unsafe { *input.get_unchecked(ip) } as usize;
        let high = (ctrl & 31) << 8;
        let mut distance = high + low + 1;
        let mut next = ip + 1;
        if low == 255 && high == 31 << 8 {
            // SAFETY: `ip + 2 < ip + MATCH_TAIL_BYTES <= input.len()`.
            let far = unsafe { [*input.get_unchecked(ip + 1), *input.get_unchecked(ip + 2)] };
            distance = u16::from_be_bytes(far) as usize + MAX_DISTANCE + 1;
            next = ip + 3;
        }
        if distance > op || op + len > op_limit {
            return (token_ip, op, ctrl);
        }
        // SAFETY: `next <= ip + 3 < ip + MATCH_TAIL_BYTES <= input.len()`.
        ctrl = unsafe { *input.get_unchecked(next) } as usize;
        ip = next + 1;
        if op + len + WIDE_COPY_SLACK <= op_limit {
            copy_match_wide(output, op, distance, len);
        } else {
            copy_match(output, op, distance, len);
        }
        op += len;
    }
    (ip, op, ctrl)
}

/// Copies a literal run of `run` bytes from the start of `src` to the start of `dst` (both
/// hold at least `run`), a whole 16-byte chunk when the run and both buffers allow it.
#[inline(always)]
fn copy_literal_near_end(src: &[u8], dst: &mut [u8], run: usize) {
    if let (Some(from), Some(to)) = (src.first_chunk::<16>(), dst.first_chunk_mut::<16>()) {
        if run <= 16 {
            *to = *from;
            return;
        }
    }
    dst[..run].copy_from_slice(&src[..run]);
}

/// Every token checked step by step: the tail of a stream, and the tokens [`decode_fast`]
/// leaves. Starts at a token boundary (`ctrl` read, `ip` after it).
#[inline(always)]
fn decode_checked(
    input: &[u8],
    output: &mut [u8],
    stop: usize,
    mut ip: usize,
    mut op: usize,
    mut ctrl: usize,
) -> usize {
    let ip_limit = input.len();
    let op_limit = output.len();
    loop {
        if op >= stop {
            return op;
        }
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
            if op + MAX_COPY <= op_limit && ip + MAX_COPY <= ip_limit {
                // Fixed-size copy (cheaper than a variable one); the bytes past `run` are
                // overwritten by what follows.
                let chunk: &[u8; MAX_COPY] = input[ip..ip + MAX_COPY]
                    .try_into()
                    .unwrap_or(&[0; MAX_COPY]);
                output[op..op + MAX_COPY].copy_from_slice(chunk);
            } else {
                if op + run > op_limit || ip + run > ip_limit {
                    return 0;
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic generators; the known answers below were produced from the same inputs by
    /// c-blosc2 3.3.5's own `blosclz_compress` (taken from the reference's static library).
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
    }

    const WORDS: [&[u8]; 12] = [
        b"blosc",
        b"chunk",
        b"the",
        b"of",
        b"compression",
        b"fast",
        b"data",
        b"a",
        b"block",
        b"shuffle",
        b"and",
        b"zeros",
    ];

    fn generate(kind: &str, n: usize, seed: u64) -> Vec<u8> {
        let mut rng = Lcg(seed);
        let mut out = Vec::with_capacity(n + 32);
        match kind {
            "text" => {
                while out.len() < n {
                    out.extend_from_slice(WORDS[(rng.next() % 12) as usize]);
                    out.push(if rng.next().is_multiple_of(16) {
                        b'\n'
                    } else {
                        b' '
                    });
                }
            }
            "shuffled_f64" => {
                let k = n / 8;
                let values: Vec<[u8; 8]> = (0..k)
                    .map(|i| (i as f64 * 0.001 + ((i * 37) % 101) as f64 * 0.5).to_le_bytes())
                    .collect();
                out.resize(n, 0);
                for b in 0..8 {
                    for (i, v) in values.iter().enumerate() {
                        out[b * k + i] = v[b];
                    }
                }
            }
            "structs" => {
                let mut i = 0u64;
                while out.len() < n {
                    out.extend_from_slice(&((i % 100) as u32).to_le_bytes());
                    out.extend_from_slice(&((i * 3) as i64).to_le_bytes());
                    out.extend_from_slice(&((rng.next() % 4) as u16).to_le_bytes());
                    out.extend_from_slice(&1.5f64.to_le_bytes());
                    i += 1;
                }
            }
            "random_bytes" => out.extend((0..n).map(|_| rng.next() as u8)),
            "low_entropy" => out.extend((0..n).map(|_| b"ab\x00\x01"[(rng.next() % 4) as usize])),
            _ => unreachable!("unknown generator {kind}"),
        }
        out.truncate(n);
        out
    }

    fn fnv1a(data: &[u8]) -> u64 {
        data.iter().fold(0xcbf29ce484222325, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x100000001b3)
        })
    }

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// (generator, size, seed, clevel, reference stream in hex; empty = reference returned 0).
    const SMALL_STREAMS: &[(&str, usize, u64, i32, &str)] = &[
        ("text", 600, 1, 9, "3f74686520626c6f73632064617461207468652073687566666c65206f6620626c176f73630a74686520616e6420636f6d7072657373696f6e20e0032a07650a626c6f73630a803815650a7a65726f7320626c6f7363207468652064617461e0033c07207a65726f732074e0016b802c801716206461746120626c6f636b206368756e6b207468652061c0960d20626c6f736320612061206461748004042066617374803dc02602206f66803d0b206120616e6420626c6f636b80051320746865206f6620666173742066617374206f66c0bb010a74a0af802a0b206461746120616e640a6f66e00259042066617374801b0061805f0020e00a630320746865e003a5808f8058e005ac0620666173742074e1010f02206461e00482012074a09602206661a079e10250046e0a636875e005590420666173748070012061809e042066617374807d8005e002410b6e20626c6f736320626c6f63a17502206461a15d072064617461206f66801dc10602206461e004a2e0034d02206461"),
        ("structs", 512, 2, 5, "2300000000e006030700f83f0100000003801601000280070700f83f0200000006800dc0010700f83f0300000009c00f80010700f83f040000000c800dc0490700f83f050000000fe00715053f06000000128015c0010700f83f0700000015800fe00183053f0800000018801501000180070700f83f090000001b800de0012b053f0a0000001e8015e00183053f0b000000218015e0012b053f0c00000024e00715053f0d00000027e00715053f0e0000002a8015c0010700f83f0f0000002d800fe00157053f1000000030e00715053f11000000338015e001c5053f12000000368015e00141053f13000000398015e001c5053f140000003c8015c0010700f83f150000003f800fe00141053f16000000428015c0010800f83f170000004500"),
        ("text", 2000, 3, 3, "3f7a65726f73207a65726f7320626c6f736320612066617374206120626c6f636b0620616e64206f66a0158028a02005206368756e6b8005e00218082073687566666c6520a04e800780050420666173748031e0020a0320616e64804000208073006180228013e003050520626c6f73638011c0670320746865c065c013c007802fc00d09206120616e640a636875c05b0320746865806ba02301650ae007110065a0191b6520626c6f636b2074686520626c6f736320626c6f636b2064617461c02280981f2066617374206f6620646174610a6461746120636f6d7072657373696f6e206f0b6620626c6f73632064617461800a800507206120616e642061a10c09730a6f66206120626c6f81850920626c6f73630a626c6fa147806de0065b05206461746120e00091c040102066617374206461746120746865206f66e0083c096e0a6661737420626c6fa0d4e0080ae00369801c07207468650a616e64809480520020805fe00206e20029e10205802b80450620666173742074e105578195012061811005206120746865e0038080408025032064617482b5e0064a8024082066617374206f6620c0f50520610a616e64807c0a2074686520616e642074688245006fc07b801f80610c20626c6f736320616e64206661c17903206f660a819f036b0a6661a15e8029800501206180800420626c6f63e206d50320646174a01e0320616e64c1a704206f662061a200017320e204380320626c6fe202cb006180b3042066617374e10318e0030be0007ee0023802206f66c2ae0320616e64e0028780ea072074686520626c6fe20105006fa26fc036e00361e00b1302206661e0012c0920616e64206f660a6461827ac030c01302206661c14f8075032074686580b702207468e3059ca00d02206661822fc04b0020a42f0020e1042f0320646174819e006b835980df0020a02c80638005c02a046f73632061a219016b0aa4c704207468650ae202ba0420610a6661e105730320646174a0560320616e64e00097e0030be0049b012074a1b905207468652074e003f10620746865206461a119a0b30061a1a8c05980b6e10388e1013c80320220646181700520626c6f636b84f4002080e2e4021dc2a2e0034ac064802d02206661c086c018806102206661e101e68090c02002206661c0330420616e6420e40096042064617461c2eb02206461e001d1042074686520843602206461c31ae00396a0498069809b072064617461206f66a69d02206461e00150e0033ac09780b80520626c6f636bc0130320626c6fa429007384c78011e002c3c02ae00b5284990b20626c6f636b20610a7a6572a24e04206368756e84180520626c6f636b801b0620626c6f636b20c0c7012074a208a0c20320626c6fe2028482b910640a6120666173740a6f66206368756e6ba0250361206461c1290720626c6f636b206f"),
        ("low_entropy", 300, 4, 9, ""),
    ];

    /// (generator, size, seed, clevel, reference compressed size, FNV-1a 64 of the stream).
    const LARGE_STREAMS: &[(&str, usize, u64, i32, usize, u64)] = &[
        ("text", 16384, 11, 1, 0, 0xcbf29ce484222325),
        ("text", 16384, 11, 2, 7717, 0xe9c62cf48047bbda),
        ("text", 16384, 11, 3, 7684, 0xdeb585c03c9eaffe),
        ("text", 16384, 11, 4, 7684, 0xdeb585c03c9eaffe),
        ("text", 16384, 11, 5, 7684, 0xdeb585c03c9eaffe),
        ("text", 16384, 11, 6, 7684, 0xdeb585c03c9eaffe),
        ("text", 16384, 11, 7, 7684, 0xdeb585c03c9eaffe),
        ("text", 16384, 11, 8, 7684, 0xdeb585c03c9eaffe),
        ("text", 16384, 11, 9, 7684, 0xdeb585c03c9eaffe),
        ("text", 262144, 11, 1, 0, 0xcbf29ce484222325),
        ("text", 262144, 11, 2, 122081, 0xe3334434674d61e8),
        ("text", 262144, 11, 3, 121643, 0x365311ae5eeb1829),
        ("text", 262144, 11, 4, 121643, 0x365311ae5eeb1829),
        ("text", 262144, 11, 5, 121643, 0x365311ae5eeb1829),
        ("text", 262144, 11, 6, 121643, 0x365311ae5eeb1829),
        ("text", 262144, 11, 7, 121643, 0x365311ae5eeb1829),
        ("text", 262144, 11, 8, 121643, 0x365311ae5eeb1829),
        ("text", 262144, 11, 9, 121672, 0xe42c34e0fc6c02af),
        ("shuffled_f64", 16384, 11, 1, 11285, 0x88dea1be27df1044),
        ("shuffled_f64", 16384, 11, 2, 11215, 0x1d9417eb2bf1ee98),
        ("shuffled_f64", 16384, 11, 3, 11193, 0xe57024e2835a2a41),
        ("shuffled_f64", 16384, 11, 4, 11193, 0xe57024e2835a2a41),
        ("shuffled_f64", 16384, 11, 5, 11193, 0xe57024e2835a2a41),
        ("shuffled_f64", 16384, 11, 6, 11193, 0xe57024e2835a2a41),
        ("shuffled_f64", 16384, 11, 7, 11193, 0xe57024e2835a2a41),
        ("shuffled_f64", 16384, 11, 8, 11193, 0xe57024e2835a2a41),
        ("shuffled_f64", 16384, 11, 9, 11193, 0x32209042bb5fed1e),
        ("shuffled_f64", 262144, 11, 1, 112711, 0xa9f0b5dfc01599ac),
        ("shuffled_f64", 262144, 11, 2, 111124, 0x7e1e501ceaa0f40a),
        ("shuffled_f64", 262144, 11, 3, 110114, 0xefd49f85b06fdaa6),
        ("shuffled_f64", 262144, 11, 4, 110114, 0xefd49f85b06fdaa6),
        ("shuffled_f64", 262144, 11, 5, 110114, 0xefd49f85b06fdaa6),
        ("shuffled_f64", 262144, 11, 6, 110114, 0xefd49f85b06fdaa6),
        ("shuffled_f64", 262144, 11, 7, 110114, 0xefd49f85b06fdaa6),
        ("shuffled_f64", 262144, 11, 8, 110114, 0xefd49f85b06fdaa6),
        ("shuffled_f64", 262144, 11, 9, 110218, 0x005485fd5f24134c),
        ("structs", 16384, 11, 1, 0, 0xcbf29ce484222325),
        ("structs", 16384, 11, 2, 8328, 0x3e8be0c1b736b893),
        ("structs", 16384, 11, 3, 8312, 0xd038c34e4b54e3b1),
        ("structs", 16384, 11, 4, 8312, 0xd038c34e4b54e3b1),
        ("structs", 16384, 11, 5, 8312, 0xd038c34e4b54e3b1),
        ("structs", 16384, 11, 6, 8312, 0xd038c34e4b54e3b1),
        ("structs", 16384, 11, 7, 8312, 0xd038c34e4b54e3b1),
        ("structs", 16384, 11, 8, 8312, 0xd038c34e4b54e3b1),
        ("structs", 16384, 11, 9, 8316, 0xe6cc1224d4c41e7f),
        ("structs", 262144, 11, 1, 0, 0xcbf29ce484222325),
        ("structs", 262144, 11, 2, 131635, 0x77abd4a75da3bb99),
        ("structs", 262144, 11, 3, 131400, 0xa63ebb2a9e525913),
        ("structs", 262144, 11, 4, 131400, 0xa63ebb2a9e525913),
        ("structs", 262144, 11, 5, 131400, 0xa63ebb2a9e525913),
        ("structs", 262144, 11, 6, 131400, 0xa63ebb2a9e525913),
        ("structs", 262144, 11, 7, 131400, 0xa63ebb2a9e525913),
        ("structs", 262144, 11, 8, 131400, 0xa63ebb2a9e525913),
        ("structs", 262144, 11, 9, 131385, 0x0b770a3d43c6819a),
        ("random_bytes", 16384, 11, 1, 0, 0xcbf29ce484222325),
        ("random_bytes", 16384, 11, 2, 0, 0xcbf29ce484222325),
        ("random_bytes", 16384, 11, 3, 0, 0xcbf29ce484222325),
        ("random_bytes", 16384, 11, 4, 0, 0xcbf29ce484222325),
        ("random_bytes", 16384, 11, 5, 0, 0xcbf29ce484222325),
        ("random_bytes", 16384, 11, 6, 0, 0xcbf29ce484222325),
        ("random_bytes", 16384, 11, 7, 0, 0xcbf29ce484222325),
        ("random_bytes", 16384, 11, 8, 0, 0xcbf29ce484222325),
        ("random_bytes", 16384, 11, 9, 0, 0xcbf29ce484222325),
        ("random_bytes", 262144, 11, 1, 0, 0xcbf29ce484222325),
        ("random_bytes", 262144, 11, 2, 0, 0xcbf29ce484222325),
        ("random_bytes", 262144, 11, 3, 0, 0xcbf29ce484222325),
        ("random_bytes", 262144, 11, 4, 0, 0xcbf29ce484222325),
        ("random_bytes", 262144, 11, 5, 0, 0xcbf29ce484222325),
        ("random_bytes", 262144, 11, 6, 0, 0xcbf29ce484222325),
        ("random_bytes", 262144, 11, 7, 0, 0xcbf29ce484222325),
        ("random_bytes", 262144, 11, 8, 0, 0xcbf29ce484222325),
        ("random_bytes", 262144, 11, 9, 0, 0xcbf29ce484222325),
        ("low_entropy", 16384, 11, 1, 0, 0xcbf29ce484222325),
        ("low_entropy", 16384, 11, 2, 0, 0xcbf29ce484222325),
        ("low_entropy", 16384, 11, 3, 0, 0xcbf29ce484222325),
        ("low_entropy", 16384, 11, 4, 0, 0xcbf29ce484222325),
        ("low_entropy", 16384, 11, 5, 0, 0xcbf29ce484222325),
        ("low_entropy", 16384, 11, 6, 0, 0xcbf29ce484222325),
        ("low_entropy", 16384, 11, 7, 0, 0xcbf29ce484222325),
        ("low_entropy", 16384, 11, 8, 0, 0xcbf29ce484222325),
        ("low_entropy", 16384, 11, 9, 16100, 0xc73f2d698ded3188),
        ("low_entropy", 262144, 11, 1, 0, 0xcbf29ce484222325),
        ("low_entropy", 262144, 11, 2, 0, 0xcbf29ce484222325),
        ("low_entropy", 262144, 11, 3, 0, 0xcbf29ce484222325),
        ("low_entropy", 262144, 11, 4, 0, 0xcbf29ce484222325),
        ("low_entropy", 262144, 11, 5, 0, 0xcbf29ce484222325),
        ("low_entropy", 262144, 11, 6, 0, 0xcbf29ce484222325),
        ("low_entropy", 262144, 11, 7, 0, 0xcbf29ce484222325),
        ("low_entropy", 262144, 11, 8, 0, 0xcbf29ce484222325),
        ("low_entropy", 262144, 11, 9, 257321, 0xe99a3d6bdc606315),
    ];

    #[test]
    fn small_streams_match_reference_bytes() {
        for &(kind, n, seed, clevel, hex) in SMALL_STREAMS {
            let input = generate(kind, n, seed);
            let expected = unhex(hex);
            let mut out = vec![0u8; n];
            let size = compress(clevel, &input, &mut out);
            assert_eq!(&out[..size], &expected[..], "{kind} {n} clevel {clevel}");
            if !expected.is_empty() {
                let mut back = vec![0u8; n];
                assert_eq!(decompress(&expected, &mut back), n);
                assert_eq!(back, input);
            }
        }
    }

    #[test]
    fn large_streams_match_reference_digests() {
        let mut last: Option<(&str, usize, Vec<u8>)> = None;
        for &(kind, n, seed, clevel, csize, digest) in LARGE_STREAMS {
            if last.as_ref().map(|(k, s, _)| (*k, *s)) != Some((kind, n)) {
                last = Some((kind, n, generate(kind, n, seed)));
            }
            let input = &last.as_ref().unwrap().2;
            let mut out = vec![0u8; n];
            let size = compress(clevel, input, &mut out);
            assert_eq!(size, csize, "{kind} {n} clevel {clevel}");
            assert_eq!(fnv1a(&out[..size]), digest, "{kind} {n} clevel {clevel}");
            if size > 0 {
                let mut back = vec![0u8; n];
                assert_eq!(decompress(&out[..size], &mut back), n);
                assert_eq!(&back, input);
            }
        }
    }

    #[test]
    fn prefix_decodes_at_least_what_is_wanted() {
        let mut last: Option<(&str, usize, Vec<u8>)> = None;
        for &(kind, n, seed, clevel, _, _) in LARGE_STREAMS {
            if last.as_ref().map(|(k, s, _)| (*k, *s)) != Some((kind, n)) {
                last = Some((kind, n, generate(kind, n, seed)));
            }
            let input = &last.as_ref().unwrap().2;
            let mut c = vec![0u8; n];
            let size = compress(clevel, input, &mut c);
            if size == 0 {
                continue;
            }
            for want in [0, 1, 3, n / 3, n / 2 + 1, n - 1, n, n + 5] {
                let mut back = vec![0u8; n];
                let got = decompress_prefix(&c[..size], &mut back, want);
                assert!(
                    got >= want.clamp(1, n) && got <= n,
                    "{kind} {n} want {want} got {got}"
                );
                assert_eq!(back[..got], input[..got], "{kind} {n} want {want}");
            }
        }
    }

    #[test]
    fn round_trips_edge_sizes_and_tight_outputs() {
        for n in 0..300usize {
            let mut input = generate("text", n, n as u64);
            // Some runs and far repeats too.
            if n > 40 {
                input[10..30].fill(7);
            }
            for clevel in 1..=9 {
                for cap in [n, n / 2, 66, 65, n + 64] {
                    let mut out = vec![0u8; cap];
                    let size = compress(clevel, &input, &mut out);
                    assert!(size <= cap);
                    if size > 0 {
                        let mut back = vec![0u8; n];
                        assert_eq!(decompress(&out[..size], &mut back), n, "n {n} cl {clevel}");
                        assert_eq!(back, input);
                    }
                }
            }
        }
        // Nothing below 16 bytes is compressed; clevel 0 never is.
        assert_eq!(compress(9, &[0u8; 15], &mut [0u8; 100]), 0);
        assert_eq!(compress(0, &[0u8; 4096], &mut [0u8; 4096]), 0);
    }

    #[test]
    fn far_matches_and_long_runs_round_trip() {
        let mut rng = Lcg(99);
        let chunk: Vec<u8> = (0..20000).map(|_| rng.next() as u8).collect();
        let mut input = chunk.clone();
        input.extend((0..30000).map(|_| rng.next() as u8));
        input.extend_from_slice(&chunk); // distance 50000: far encoding
        input.extend(std::iter::repeat_n(0xAB, 70000)); // long run
        input.extend_from_slice(&chunk[..5000]);
        for clevel in [7, 9] {
            // The random half defeats the entropy probe at lower clevels: check it still codes.
            let mut out = vec![0u8; input.len()];
            let size = compress(clevel, &input, &mut out);
            if size == 0 {
                continue;
            }
            let mut back = vec![0u8; input.len()];
            assert_eq!(decompress(&out[..size], &mut back), input.len());
            assert_eq!(back, input);
        }
        // Decoder: a hand-made far match (distance 8192 + 300) and an overlapping one.
        let mut stream = vec![31u8 | 0x20];
        let lit: Vec<u8> = (0..32u32).map(|i| (i * 7) as u8).collect();
        stream.extend_from_slice(&lit);
        let mut expected = lit.clone();
        // Match of 5 bytes at distance 3: control (3 << 5) + 0, low byte 2.
        stream.extend_from_slice(&[3 << 5, 2]);
        for _ in 0..5 {
            expected.push(expected[expected.len() - 3]);
        }
        stream.extend_from_slice(&[0, 0x55]);
        expected.push(0x55);
        let mut back = vec![0u8; expected.len()];
        assert_eq!(decompress(&stream, &mut back), expected.len());
        assert_eq!(back, expected);
    }

    #[test]
    fn decoder_rejects_truncated_and_mutated_streams_without_panicking() {
        let mut corpus = Vec::new();
        for (kind, clevel) in [("text", 9), ("structs", 5), ("low_entropy", 9), ("text", 3)] {
            let input = generate(kind, 8192, 5);
            let mut out = vec![0u8; input.len()];
            let size = compress(clevel, &input, &mut out);
            assert!(size > 0, "{kind}");
            out.truncate(size);
            corpus.push((input, out));
        }
        let mut rng = Lcg(2024);
        let mut rejected = 0;
        for round in 0..6000 {
            let (input, stream) = &corpus[round % corpus.len()];
            let mut bad = stream.clone();
            match rng.next() % 4 {
                0 => bad.truncate((rng.next() as usize) % bad.len()),
                1 => {
                    for _ in 0..1 + rng.next() % 4 {
                        let at = (rng.next() as usize) % bad.len();
                        bad[at] = rng.next() as u8;
                    }
                }
                2 => {
                    let at = (rng.next() as usize) % bad.len();
                    bad[at] ^= 1 << (rng.next() % 8);
                }
                _ => bad = (0..rng.next() % 200).map(|_| rng.next() as u8).collect(),
            }
            // Output slightly smaller, exact, or larger than expected.
            let cap = match rng.next() % 3 {
                0 => input.len() - 1,
                1 => input.len(),
                _ => input.len() + 100,
            };
            let mut back = vec![0u8; cap];
            let n = decompress(&bad, &mut back);
            assert!(n <= cap);
            if n != input.len() || back[..n] != input[..] {
                rejected += 1;
            }
        }
        assert!(
            rejected > 3000,
            "mutations should mostly be caught: {rejected}"
        );
        assert_eq!(decompress(&[], &mut [0u8; 10]), 0);
    }
}

/// Xorshift numbers for the encoder's and decoder's randomized tests.
#[cfg(test)]
struct Rng(u64);

#[cfg(test)]
impl Rng {
    fn next(&mut self) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as usize
    }

    fn below(&mut self, n: usize) -> usize {
        self.next() % n.max(1)
    }
}

#[cfg(test)]
mod encode_tests {
    use super::*;

    /// The entropy probe written the plain way, one byte-count update per literal as the
    /// encoder writes them: the model [`probe_ratio`] (which counts a literal run at its end)
    /// must agree with to the last bit.
    fn probe_ratio_model(window: &[u8], hash_log: u32) -> f64 {
        let limit = window.len().min(1 << hash_log);
        if limit <= 12 {
            return 0.0;
        }
        let mut htab = vec![0usize; 1 << hash_log];
        let (ip_bound, ip_limit) = (limit - 1, limit - 12);
        let (mut out_count, mut copy, mut ip) = (5, 4, 0);
        while ip < ip_limit {
            let seq = read_u32(window, ip);
            let h = hash(seq, hash_log);
            let candidate = htab[h];
            htab[h] = ip;
            let distance = ip - candidate;
            let mut end = ip;
            if distance != 0 && read_u32(window, candidate) == seq {
                end = match_end(window, ip + 4, ip_bound, distance) - MATCH_SHIFT;
            }
            if end < ip + MATCH_SHIFT {
                out_count += 1;
                ip += 1;
                copy += 1;
                if copy == MAX_COPY {
                    copy = 0;
                    out_count += 1;
                }
                continue;
            }
            let len = end - ip;
            if copy == 0 {
                out_count -= 1;
            }
            copy = 0;
            if len >= 7 {
                out_count += (len - 7) / 255 + 1;
            }
            out_count += if distance - 1 < MAX_DISTANCE { 2 } else { 4 };
            htab[hash(read_u32(window, end), hash_log)] = end;
            ip = end + 2;
            out_count += 1;
        }
        ip as f64 / out_count as f64
    }

    /// Bytes mixing literals, runs and repeats at near and far distances, in proportions set by
    /// `seed`, so that literal runs end on every multiple of 32 and matches end past the limit.
    fn mixed(n: usize, seed: u64) -> Vec<u8> {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut next = move || rng.next();
        let literal_share = next() % 100;
        let mut data = Vec::with_capacity(n);
        while data.len() < n {
            let r = next();
            let span = (r >> 8) % 300 + 1;
            if r % 100 < literal_share || data.len() < 8 {
                data.extend((0..span).map(|_| next() as u8));
            } else if r % 7 == 0 {
                data.extend(std::iter::repeat_n(r as u8, span));
            } else {
                let distance = (r >> 24) % data.len() + 1;
                for _ in 0..span {
                    data.push(data[data.len() - distance]);
                }
            }
        }
        data.truncate(n);
        data
    }

    #[test]
    fn probe_counts_what_a_byte_by_byte_count_does() {
        let mut tested = 0;
        let mut passed = [0usize; 3];
        for seed in 0..300u64 {
            let n = match seed % 4 {
                0 => (seed as usize * 7) % 64,
                1 => (seed as usize * 131) % 5000,
                _ => 16384 + (seed as usize % 3) * 1000,
            };
            let data = mixed(n, seed);
            for (i, hash_log) in [HASH_LOG - 2, HASH_LOG - 1, HASH_LOG]
                .into_iter()
                .enumerate()
            {
                let fast = probe_ratio(&data, hash_log);
                let model = probe_ratio_model(&data, hash_log);
                assert_eq!(
                    fast.to_bits(),
                    model.to_bits(),
                    "seed {seed}, n {n}, log {hash_log}"
                );
                tested += 1;
                passed[i] += usize::from(fast >= 1.5);
            }
        }
        assert_eq!(tested, 900);
        // Both sides of the clevel thresholds were exercised.
        assert!(passed.iter().all(|&p| p > 20 && p < 280), "{passed:?}");
    }

    #[test]
    fn probe_of_literals_only_and_of_one_run() {
        // 100 distinct bytes: only literals. The scan stops 12 bytes before the end (88
        // probed); 4 + 88 literals cost 92 bytes plus a control byte per 32 (3 in all).
        let literals: Vec<u8> = (0..100u32).map(|i| ((i * 37 + 11) % 251) as u8).collect();
        assert_eq!(probe_ratio(&literals, HASH_LOG), 88.0 / 95.0);
        assert_eq!(probe_ratio_model(&literals, HASH_LOG), 88.0 / 95.0);
        let zeros = vec![0u8; 4096];
        assert_eq!(
            probe_ratio(&zeros, HASH_LOG).to_bits(),
            probe_ratio_model(&zeros, HASH_LOG).to_bits()
        );
        assert!(probe_ratio(&zeros, HASH_LOG) > 100.0);
    }
}

#[cfg(test)]
mod decode_tests {
    use super::*;

    /// The decoder as it was before the fast path: every step checked, matches copied byte by
    /// byte. The fast decoder must return the same count and the same bytes for any input.
    fn oracle_decode(input: &[u8], output: &mut [u8], stop: usize) -> usize {
        let (ip_limit, op_limit) = (input.len(), output.len());
        let Some(&first) = input.first() else {
            return 0;
        };
        let (mut ip, mut op, mut ctrl) = (1, 0, (first & 31) as usize);
        loop {
            if op >= stop {
                return op;
            }
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
                for i in op..op + len {
                    output[i] = output[i - back - 1];
                }
                op += len;
            } else {
                let run = ctrl + 1;
                if op + run > op_limit || ip + run > ip_limit {
                    return 0;
                }
                output[op..op + run].copy_from_slice(&input[ip..ip + run]);
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

    /// Data the compressor turns into every kind of token: repeats of a short pattern (every
    /// distance below 16, long matches with length bytes), runs, text-like repeats and random
    /// bytes with a far repeat.
    fn sample(rng: &mut Rng, n: usize) -> Vec<u8> {
        let mut data = Vec::with_capacity(n);
        while data.len() < n {
            match rng.below(5) {
                0 => {
                    let period = 1 + rng.below(15);
                    let pattern: Vec<u8> = (0..period).map(|_| rng.next() as u8).collect();
                    let longest = if rng.below(4) == 0 { 3000 } else { 80 };
                    let len = rng.below(longest);
                    data.extend(pattern.iter().cycle().take(len));
                }
                1 => data.extend((0..rng.below(40)).map(|_| rng.next() as u8)),
                2 if data.len() > 8 => {
                    // A repeat from anywhere before, near or far.
                    let from = rng.below(data.len() - 4);
                    let len = 4 + rng.below(60).min(data.len() - from - 4);
                    data.extend_from_within(from..from + len);
                }
                3 => {
                    let words: [&[u8]; 5] =
                        [b"blosc ", b"chunk ", b"frame ", b"lz ", b"\0\0\0\x01"];
                    for _ in 0..rng.below(10) {
                        data.extend_from_slice(words[rng.below(5)]);
                    }
                }
                _ => data.extend(std::iter::repeat_n(rng.next() as u8, rng.below(300))),
            }
        }
        data.truncate(n);
        data
    }

    /// A token stream written directly (not by the compressor): literal runs and matches of
    /// random lengths and distances, near and far, so that every copy case shows up in every
    /// position relative to the ends of the buffers. Returns the stream and what it decodes to.
    fn synthetic(rng: &mut Rng, tokens: usize) -> (Vec<u8>, Vec<u8>) {
        let mut stream = Vec::new();
        let mut out: Vec<u8> = Vec::new();
        for t in 0..tokens {
            if t == 0 || rng.below(3) == 0 {
                let run = 1 + rng.below(MAX_COPY);
                stream.push((run - 1) as u8 | if t == 0 { 0x20 } else { 0 });
                for _ in 0..run {
                    let b = rng.next() as u8;
                    stream.push(b);
                    out.push(b);
                }
                continue;
            }
            let len = 3 + match rng.below(4) {
                0 => rng.below(7),
                1 => rng.below(40),
                2 => rng.below(700),
                _ => rng.below(20),
            };
            let max_distance = out.len().min(MAX_FAR_DISTANCE);
            let distance = 1 + match rng.below(3) {
                0 => rng.below(16.min(max_distance)),
                1 => rng.below(max_distance),
                _ => rng.below(64.min(max_distance)),
            };
            let back = distance - 1;
            let code = (len - 2).min(7);
            let far = back >= MAX_DISTANCE;
            let high = if far { 31 } else { back >> 8 };
            stream.push((code << 5 | high) as u8);
            if code == 7 {
                let mut rest = len - 9;
                while rest >= 255 {
                    stream.push(255);
                    rest -= 255;
                }
                stream.push(rest as u8);
            }
            if far {
                stream.push(255);
                stream.extend_from_slice(&((back - MAX_DISTANCE) as u16).to_be_bytes());
            } else {
                // A near distance whose low byte is 255 with high 31 would read as far: the
                // encoder never writes it and neither does this.
                if back == 31 << 8 | 255 {
                    stream.truncate(stream.len() - 1 - usize::from(code == 7));
                    continue;
                }
                stream.push((back & 255) as u8);
            }
            for _ in 0..len {
                out.push(out[out.len() - distance]);
            }
        }
        (stream, out)
    }

    /// Decodes `stream` with the fast decoder and the oracle into buffers of `cap` bytes (full
    /// decode, and a prefix of `want` bytes) and asserts both agree; returns the full count.
    fn check_same(stream: &[u8], cap: usize, want: usize) -> usize {
        let mut fast = vec![0xA5u8; cap];
        let mut slow = vec![0x5Au8; cap];
        let n = decompress(stream, &mut fast);
        assert_eq!(n, oracle_decode(stream, &mut slow, usize::MAX), "cap {cap}");
        assert_eq!(fast[..n], slow[..n], "cap {cap}");
        let p = decompress_prefix(stream, &mut fast, want);
        assert_eq!(
            p,
            oracle_decode(stream, &mut slow, want.max(1)),
            "cap {cap} want {want}"
        );
        assert_eq!(fast[..p], slow[..p], "cap {cap} want {want}");
        n
    }

    #[test]
    fn fast_decoder_matches_oracle_on_valid_streams() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for round in 0..600 {
            let n = match round % 4 {
                0 => rng.below(200),
                1 => rng.below(5000),
                2 => 4096,
                _ => 20000 + rng.below(60000),
            };
            let data = sample(&mut rng, n);
            let mut c = vec![0u8; n + 64];
            let size = compress(1 + round % 9, &data, &mut c);
            if size == 0 {
                continue;
            }
            let stream = &c[..size];
            assert_eq!(check_same(stream, n, rng.below(n + 2)), n);
            let mut back = vec![0u8; n];
            assert_eq!(decompress(stream, &mut back), n);
            assert_eq!(back, data);
        }
        for round in 0..3000 {
            let tokens = 1 + rng.below(if round % 2 == 0 { 12 } else { 300 });
            let (stream, out) = synthetic(&mut rng, tokens);
            for cap in [out.len(), out.len() + 1 + rng.below(40)] {
                let n = check_same(&stream, cap, rng.below(out.len() + 2));
                let mut back = vec![0u8; cap];
                assert_eq!(decompress(&stream, &mut back), n);
                // The last match is not copied when nothing follows it (as in c-blosc2).
                assert!(n <= out.len() && back[..n] == out[..n], "round {round}");
            }
        }
    }

    #[test]
    fn fast_decoder_matches_oracle_on_damaged_streams() {
        let mut rng = Rng(42);
        let mut corpus = Vec::new();
        for round in 0..40 {
            let n = [100, 1000, 4096, 30000][round % 4] + rng.below(100);
            let data = sample(&mut rng, n);
            let mut c = vec![0u8; n + 64];
            let size = compress(5 + round as i32 % 5, &data, &mut c);
            if size > 0 {
                corpus.push((c[..size].to_vec(), n));
            }
            let tokens = 1 + rng.below(200);
            let (stream, out) = synthetic(&mut rng, tokens);
            corpus.push((stream, out.len()));
        }
        for _ in 0..20000 {
            let (stream, n) = &corpus[rng.below(corpus.len())];
            let mut bad = stream.clone();
            for _ in 0..1 + rng.below(3) {
                match rng.below(5) {
                    0 => bad.truncate(rng.below(bad.len() + 1)),
                    1 if !bad.is_empty() => {
                        let at = rng.below(bad.len());
                        bad[at] = rng.next() as u8;
                    }
                    2 if !bad.is_empty() => {
                        let at = rng.below(bad.len());
                        bad[at] ^= 1 << rng.below(8);
                    }
                    3 => {
                        let at = rng.below(bad.len() + 1);
                        bad.insert(at, rng.next() as u8);
                    }
                    _ if !bad.is_empty() => {
                        bad.remove(rng.below(bad.len()));
                    }
                    _ => {}
                }
            }
            let cap = match rng.below(4) {
                0 => n.saturating_sub(1 + rng.below(40)),
                1 => *n,
                2 => n + 1 + rng.below(64),
                _ => rng.below(2 * n + 1),
            };
            let n = check_same(&bad, cap, rng.below(cap + 2));
            assert!(n <= cap);
        }
        // Random bytes and tiny buffers.
        for _ in 0..5000 {
            let stream: Vec<u8> = (0..rng.below(80)).map(|_| rng.next() as u8).collect();
            check_same(&stream, rng.below(300), rng.below(300));
        }
    }
}
