//! LZ4 block decoding in Rust, for the streams c-blosc2 writes without a dictionary.
//!
//! lz4's `LZ4_decompress_safe` copies a match whose offset is 3, 5, 6 or 7 (or 9 to 15) eight
//! bytes at a time, each copy reading the bytes the one before it has just written, so every
//! step waits for the store before it to reach the cache (perf: 38% of its time on the
//! shuffled float64 streams of `bench/`, whose high bytes repeat with period 5 for hundreds of
//! bytes). Here a match with an offset below 16 is written from a register that holds its
//! repeating pattern, 16 bytes a store.
//!
//! [`decode`] accepts a subset of what `LZ4_decompress_safe` accepts, with the same output:
//! every stream lz4's compressors write, and nothing lz4 rejects. Each check lz4 makes on the
//! way is made here too, and some more: lz4's fast loop skips the end-of-block rules for
//! sequences far from the end, this decoder applies them to every sequence (a non-final
//! sequence's literals end at least 12 bytes before the output's end and 8 before the input's,
//! a match ends at least 5 bytes before the output's end), and offset 0, which lz4 accepts
//! in its fast loop, is refused. A stream refused here is handed to lz4 whole by the caller,
//! which then decides exactly as c-blosc2 does.

/// Minimum match length.
const MIN_MATCH: usize = 4;
/// A match ends at least this many bytes before the end of the output (lz4's LASTLITERALS).
const LAST_LITERALS: usize = 5;
/// A sequence other than the last one ends its literals at least this many bytes before the
/// output's end (lz4's MFLIMIT).
const MF_LIMIT: usize = 12;
/// ... and at least this many before the input's end (an offset, a token, the last literals).
const LITERALS_INPUT_ROOM: usize = 2 + 1 + LAST_LITERALS;
use super::lz_match::{copy_match, copy_match_wide, WIDE_COPY_SLACK};

/// Decodes the LZ4 block `src` into all of `dst`. Returns `true` when the block decodes to
/// exactly `dst.len()` bytes and satisfies every rule in the module documentation; `false`
/// otherwise (`dst` then holds anything).
pub fn decode(src: &[u8], dst: &mut [u8]) -> bool {
    let Some((ip, op)) = decode_fast(src, dst) else {
        return false;
    };
    decode_checked(src, dst, ip, op)
}

/// Input bytes the fast loop wants left at a token: the token, up to 14 literals copied as 16
/// bytes, the offset, and room for the end-of-block rules.
const FAST_INPUT_ROOM: usize = 32;
/// Output bytes the fast loop keeps after every match it copies: 16 for the next literals,
/// the 18 bytes of a short match and the wide match copy's slack.
const FAST_OUTPUT_ROOM: usize = 64;

/// Decodes sequences while each starts with [`FAST_INPUT_ROOM`] input bytes left and ends its
/// match [`FAST_OUTPUT_ROOM`] output bytes before the end, reading and writing without bounds
/// checks where these conditions prove them (lz4's own fast loop does the same; callgrind
/// counted a third of this loop's instructions in bounds checks without it). The output
/// condition is checked once per sequence, at its match, which also covers the next
/// sequence's start. Returns where it stopped, at a token boundary, for [`decode_checked`] to
/// go on from; `None` for a sequence that breaks a rule.
#[inline(always)]
fn decode_fast(src: &[u8], dst: &mut [u8]) -> Option<(usize, usize)> {
    let (iend, oend) = (src.len(), dst.len());
    let (mut ip, mut op) = (0usize, 0usize);
    let (Some(in_end), Some(out_end)) = (
        iend.checked_sub(FAST_INPUT_ROOM),
        oend.checked_sub(FAST_OUTPUT_ROOM),
    ) else {
        return Some((0, 0));
    };
    let (sp, dp) = (src.as_ptr(), dst.as_mut_ptr());
    // Here and at every loop top `op <= out_end`.
    while ip <= in_end {
        let start = (ip, op);
        // SAFETY: `ip + FAST_INPUT_ROOM <= iend`.
        let token = unsafe { *sp.add(ip) };
        ip += 1;
        let mut lit = (token >> 4) as usize;
        if lit == 15 {
            lit += extra_length(src, &mut ip, iend - 15, true)?;
            if ip + lit + FAST_INPUT_ROOM > iend || op + lit + (FAST_OUTPUT_ROOM - 14) > oend {
                // Near the end: the checked loop takes this sequence and the rest.
                return Some(start);
            }
            copy_long_literals(src, ip, dst, op, lit);
        } else {
            // SAFETY: `ip + 16 <= iend` and `op + 16 <= oend` (`ip <= in_end`, `op <=
            // out_end`); the bytes copied past the run are written again by what follows.
            unsafe {
                let chunk = sp.add(ip).cast::<[u8; 16]>().read_unaligned();
                dp.add(op).cast::<[u8; 16]>().write_unaligned(chunk);
            }
        }
        ip += lit;
        op += lit;
        // Now `ip + 17 <= iend` and `op + 50 <= oend`: not the last sequence (which needs a
        // token and literals ending the input: the checked loop sees it), and the end-of-block
        // rules for the literals hold. SAFETY: `ip + 2 <= iend`.
        let offset = unsafe { u16::from_le_bytes(sp.add(ip).cast::<[u8; 2]>().read()) } as usize;
        ip += 2;
        // Offset 0 or one reaching before the start of the block (one compare for both).
        if offset.wrapping_sub(1) >= op {
            return None;
        }
        let code = (token & 15) as usize;
        if code == 15 {
            let len =
                15 + MIN_MATCH + extra_length(src, &mut ip, iend - (LAST_LITERALS - 1), false)?;
            if op + len > out_end {
                // Near the end: the checked loop takes this sequence again, and the rest
                // (keeping the checked copy, `copy_match`, out of this loop keeps its values
                // in registers).
                return Some(start);
            }
            copy_match_wide(dst, op, offset, len);
            op += len;
            continue;
        }
        let len = code + MIN_MATCH;
        if op + len > out_end {
            return Some(start);
        }
        if offset >= 8 {
            // Most matches (at most 18 bytes): 8 + 8 + 2 bytes as lz4 moves them, each load
            // ending where the store before it ended or earlier, so it reads final bytes.
            // SAFETY: `op + 18 <= out_end + 18 <= oend`, and `offset <= op`.
            unsafe {
                let from = dp.add(op - offset);
                let to = dp.add(op);
                to.cast::<[u8; 8]>()
                    .write_unaligned(from.cast::<[u8; 8]>().read_unaligned());
                to.add(8)
                    .cast::<[u8; 8]>()
                    .write_unaligned(from.add(8).cast::<[u8; 8]>().read_unaligned());
                to.add(16)
                    .cast::<[u8; 2]>()
                    .write_unaligned(from.add(16).cast::<[u8; 2]>().read_unaligned());
            }
        } else {
            copy_match_wide(dst, op, offset, len);
        }
        op += len;
    }
    Some((ip, op))
}

/// Decodes the sequences from `ip` (a token) on, checking every step; `op` bytes of `dst`
/// are decoded. The end of every block, and the sequences [`decode_fast`] leaves. Out of line:
/// inlined, its values cost the fast loop registers.
#[inline(never)]
fn decode_checked(src: &[u8], dst: &mut [u8], mut ip: usize, mut op: usize) -> bool {
    let (iend, oend) = (src.len(), dst.len());
    loop {
        let Some(&token) = src.get(ip) else {
            return false;
        };
        ip += 1;
        let mut lit = (token >> 4) as usize;
        if lit == 15 {
            match extra_length(src, &mut ip, iend.saturating_sub(15), true) {
                Some(n) => lit += n,
                None => return false,
            }
        }
        // Literals.
        let (lit_end, op_lit_end) = (ip + lit, op + lit);
        if lit_end > iend || op_lit_end > oend {
            return false;
        }
        if lit <= 16 && ip + 16 <= iend && op + 16 <= oend {
            // One fixed 16-byte copy: the bytes past the run are written again later.
            let chunk: [u8; 16] = src[ip..ip + 16].try_into().unwrap_or([0; 16]);
            dst[op..op + 16].copy_from_slice(&chunk);
        } else {
            dst[op..op_lit_end].copy_from_slice(&src[ip..lit_end]);
        }
        ip = lit_end;
        op = op_lit_end;
        if ip == iend {
            // The last sequence: its literals end the input, and the output must be full.
            return op == oend;
        }
        if op + MF_LIMIT > oend || ip + LITERALS_INPUT_ROOM > iend {
            return false;
        }
        // Here `ip + 8 <= iend`: the offset and the next token are in the input.
        let offset = u16::from_le_bytes([src[ip], src[ip + 1]]) as usize;
        ip += 2;
        if offset == 0 || offset > op {
            return false;
        }
        let mut len = (token & 15) as usize;
        if len == 15 {
            match extra_length(src, &mut ip, iend - (LAST_LITERALS - 1), false) {
                Some(n) => len += n,
                None => return false,
            }
        }
        len += MIN_MATCH;
        if op + len + LAST_LITERALS > oend {
            return false;
        }
        if op + len + WIDE_COPY_SLACK <= oend {
            copy_match_wide(dst, op, offset, len);
        } else {
            copy_match(dst, op, offset, len);
        }
        op += len;
    }
}

/// Copies a literal run of `lit` bytes from `src[ip..]` to `dst[op..]` in 32-byte steps,
/// which may read and write up to 31 bytes past the run (`ip + lit + 31 <= src.len()`,
/// `op + lit + 31 <= dst.len()`; the bytes written past it are written again later).
#[inline(always)]
fn copy_long_literals(src: &[u8], ip: usize, dst: &mut [u8], op: usize, lit: usize) {
    let mut done = 0;
    while done < lit {
        // SAFETY: `done < lit`, so `ip + done + 32 <= ip + lit + 31 <= src.len()`, and the
        // same for `dst`.
        unsafe {
            let (from, to) = (src.as_ptr().add(ip + done), dst.as_mut_ptr().add(op + done));
            let low = from.cast::<[u8; 16]>().read_unaligned();
            let high = from.add(16).cast::<[u8; 16]>().read_unaligned();
            to.cast::<[u8; 16]>().write_unaligned(low);
            to.add(16).cast::<[u8; 16]>().write_unaligned(high);
        }
        done += 32;
    }
}

/// Reads the extra length bytes of a literal run or match (each added, up to the first that
/// is not 255) as lz4's `read_variable_length` does: `None` when a byte read leaves `ip`
/// past `limit`, or (`check_first`) when `ip` is at or past `limit` before the first.
#[inline(always)]
fn extra_length(src: &[u8], ip: &mut usize, limit: usize, check_first: bool) -> Option<usize> {
    if check_first && *ip >= limit {
        return None;
    }
    let mut total = 0usize;
    loop {
        let byte = *src.get(*ip)?;
        *ip += 1;
        total += byte as usize;
        if *ip > limit {
            return None;
        }
        if byte != 255 {
            return Some(total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LZ4 sequences written by hand: (literals, offset, match length); offset 0 ends.
    fn encode(seqs: &[(&[u8], usize, usize)]) -> Vec<u8> {
        let mut out = Vec::new();
        for &(lits, offset, len) in seqs {
            let l = lits.len();
            let m = if offset == 0 { 0 } else { len - MIN_MATCH };
            out.push(((l.min(15) as u8) << 4) | m.min(15) as u8);
            if l >= 15 {
                push_extra_length(&mut out, l - 15);
            }
            out.extend_from_slice(lits);
            if offset == 0 {
                break;
            }
            out.extend_from_slice(&(offset as u16).to_le_bytes());
            if m >= 15 {
                push_extra_length(&mut out, m - 15);
            }
        }
        out
    }

    /// LZ4's extra length bytes for `rest`: 255s, then the remainder.
    fn push_extra_length(out: &mut Vec<u8>, mut rest: usize) {
        while rest >= 255 {
            out.push(255);
            rest -= 255;
        }
        out.push(rest as u8);
    }

    /// What the sequences decode to, byte by byte.
    fn expand(seqs: &[(&[u8], usize, usize)]) -> Vec<u8> {
        let mut out: Vec<u8> = Vec::new();
        for &(lits, offset, len) in seqs {
            out.extend_from_slice(lits);
            if offset == 0 {
                break;
            }
            for _ in 0..len {
                out.push(out[out.len() - offset]);
            }
        }
        out
    }

    #[test]
    fn every_short_offset_and_length_decodes() {
        let lits: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
        let tail = b"0123456789abcdef";
        for offset in 1..=40usize {
            for len in [4usize, 5, 7, 15, 16, 17, 18, 19, 31, 32, 33, 100, 300, 700] {
                let seqs: [(&[u8], usize, usize); 2] = [(&lits, offset, len), (tail, 0, 0)];
                let stream = encode(&seqs);
                let want = expand(&seqs);
                let mut got = vec![0u8; want.len()];
                assert!(decode(&stream, &mut got), "offset {offset} len {len}");
                assert_eq!(got, want, "offset {offset} len {len}");
            }
        }
    }

    #[test]
    fn the_end_of_block_rules_are_kept() {
        let lits = b"abcdefgh";
        let ok: [(&[u8], usize, usize); 2] = [(lits, 3, 20), (b"12345", 0, 0)];
        let stream = encode(&ok);
        let mut out = vec![0u8; 33];
        assert!(decode(&stream, &mut out));
        // Output one byte longer or shorter than the block: refused.
        assert!(!decode(&stream, &mut [0u8; 34]));
        assert!(!decode(&stream, &mut [0u8; 32]));
        // A match ending within the last 5 bytes of the output: refused.
        let late: [(&[u8], usize, usize); 2] = [(lits, 3, 22), (b"123", 0, 0)];
        assert!(!decode(&encode(&late), &mut [0u8; 33]));
        // Offset 0 and an offset before the start: refused.
        let zero = [0x40u8, 1, 2, 3, 4, 0, 0, 0x50, 1, 2, 3, 4, 5];
        assert!(!decode(&zero, &mut [0u8; 13]));
        let far: [(&[u8], usize, usize); 2] = [(lits, 9, 20), (b"12345", 0, 0)];
        assert!(!decode(&encode(&far), &mut [0u8; 33]));
        // Truncated anywhere: refused.
        for cut in 0..stream.len() {
            assert!(!decode(&stream[..cut], &mut out), "cut at {cut}");
        }
    }
}
