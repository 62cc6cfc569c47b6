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
#[path = "blosclz_tests.rs"]
mod blosclz_tests;
