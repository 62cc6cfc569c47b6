//! Delta filter (`BLOSC_DELTA`): XOR of each block against the chunk's first block ("dref").
//!
//! c-blosc2 XORs in words of `width` bytes, where `width` is the typesize when that is 1, 2, 4
//! or 8, else 8 when the typesize is a multiple of 8, else 1 (see [`delta_width`]). The first
//! block (offset 0) is delta-coded against itself: word `i >= 1` is XORed with word `i - 1` of
//! the block's own input and word 0 is kept. Every other block is XORed word by word with dref,
//! the chunk's *unfiltered* first block, whatever filters run before delta (checked against
//! 3.3.5 chunks with filters [SHUFFLE, DELTA]: block 0 uses its shuffled self, the others the
//! raw first block). Decoding mirrors this: block 0 is undone in place, the others are XORed
//! with the already fully decoded first block.
//!
//! Bytes past the last whole word (a block whose length is not a multiple of `width`, which
//! only the chunk's last block can be) are left unwritten by c-blosc2 3.3.5, so its output
//! there is whatever its scratch buffer held and the reference cannot decode such chunks
//! itself. We copy those bytes from the source instead, which the reference decodes correctly.

/// The XOR word size c-blosc2 uses for a typesize.
pub fn delta_width(typesize: usize) -> usize {
    match typesize {
        1 | 2 | 4 | 8 => typesize,
        t if t % 8 == 0 => 8,
        _ => 1,
    }
}

/// Delta-encodes one block.
///
/// * `dref`: the chunk's first block as given to the compressor (before any filter); at least
///   as long as `src`. Not read for the first block.
/// * `offset`: the block's byte offset in the chunk; 0 selects the first-block rule.
/// * `src`: the block as produced by the previous filters; `dst` the same length.
///
/// Panics if `dst.len() != src.len()`, or for `offset != 0` if `dref` is shorter than `src`.
pub fn delta_encode(dref: &[u8], offset: usize, src: &[u8], typesize: usize, dst: &mut [u8]) {
    assert_eq!(
        src.len(),
        dst.len(),
        "delta: source and destination lengths differ"
    );
    let len = src.len();
    let width = delta_width(typesize);
    let body = len - len % width;
    if offset == 0 {
        let first = width.min(body);
        dst[..first].copy_from_slice(&src[..first]);
        for ((d, s), r) in dst[first..body]
            .iter_mut()
            .zip(&src[first..body])
            .zip(&src[..body - first])
        {
            *d = s ^ r;
        }
    } else {
        let dref = &dref[..len];
        for ((d, s), r) in dst[..body].iter_mut().zip(&src[..body]).zip(dref) {
            *d = s ^ r;
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// Undoes [`delta_encode`] in place on `data`, the block at byte `offset` of the chunk.
///
/// For `offset != 0`, `dref` is the chunk's first block *already decoded* (c-blosc2 decodes
/// block 0 first and reads it from the output buffer); it must be at least as long as `data`.
/// For `offset == 0` the reference is the block itself, decoded word by word in place, and
/// `dref` is ignored (pass an empty slice).
pub fn delta_decode(dref: &[u8], offset: usize, data: &mut [u8], typesize: usize) {
    let len = data.len();
    let width = delta_width(typesize);
    let body = len - len % width;
    if offset == 0 {
        prefix_xor(&mut data[..body], width);
    } else {
        for (d, r) in data[..body].iter_mut().zip(&dref[..body]) {
            *d ^= r;
        }
    }
}

/// Replaces each `width`-byte word of `data` (1, 2, 4 or 8 bytes; `data.len()` a multiple of
/// it) with the XOR of itself and every word before it: the first block's delta undone. Eight
/// bytes at a time: the XOR within a u64 is a prefix over its words (shifts by 1, 2, 4 words),
/// and the last word of the previous u64, repeated over all its words, carries in.
fn prefix_xor(data: &mut [u8], width: usize) {
    // One copy per width, so that the shifts within a u64 unroll to straight-line code.
    match width {
        1 => prefix_xor_words::<1>(data),
        2 => prefix_xor_words::<2>(data),
        4 => prefix_xor_words::<4>(data),
        _ => prefix_xor_words::<8>(data),
    }
}

fn prefix_xor_words<const WIDTH: usize>(data: &mut [u8]) {
    let width = WIDTH;
    let bits = 8 * width as u32;
    // Multiplying a word by this repeats it over the u64.
    let repeat = (0..64 / bits).fold(0u64, |acc, k| acc | 1 << (k * bits));
    // A u64's own prefix, and its last word repeated over a u64.
    let prefixed = |w: &[u8]| {
        let mut x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        let mut shift = bits;
        while shift < 64 {
            x ^= x << shift;
            shift *= 2;
        }
        (x, (x >> (64 - bits)).wrapping_mul(repeat))
    };
    // `carry` is the XOR of every word so far, repeated over a u64. Four u64s at a time, only
    // one XOR per four depends on the words before: everything else is computed off that
    // chain (carrying a product of the result ran at 4 cycles per u64, 15% of a delta chunk's
    // decompression time; one XOR per u64 at ~1.7).
    let mut carry = 0u64;
    let (quads, rest) = data.as_chunks_mut::<32>();
    for q in quads {
        let (x0, t0) = prefixed(&q[..8]);
        let (x1, t1) = prefixed(&q[8..16]);
        let (x2, t2) = prefixed(&q[16..24]);
        let (x3, t3) = prefixed(&q[24..]);
        let (c1, c2) = (t0, t0 ^ t1);
        let c3 = c2 ^ t2;
        q[..8].copy_from_slice(&(x0 ^ carry).to_le_bytes());
        q[8..16].copy_from_slice(&(x1 ^ c1 ^ carry).to_le_bytes());
        q[16..24].copy_from_slice(&(x2 ^ c2 ^ carry).to_le_bytes());
        q[24..].copy_from_slice(&(x3 ^ c3 ^ carry).to_le_bytes());
        carry ^= c3 ^ t3;
    }
    let (words, tail) = rest.as_chunks_mut::<8>();
    for w in words {
        let (x, last_repeated) = prefixed(w);
        *w = (x ^ carry).to_le_bytes();
        carry ^= last_repeated;
    }
    let last = carry.to_le_bytes();
    for (i, b) in tail.iter_mut().enumerate() {
        // Before the tail's first word the previous word is the carry's.
        let prev = if i < width { last[8 - width + i] } else { 0 };
        *b ^= prev;
    }
    for i in width..tail.len() {
        tail[i] ^= tail[i - width];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::testutil::{fnv1a, pattern};

    #[test]
    fn prefix_xor_is_the_word_by_word_loop() {
        for width in [1, 2, 4, 8] {
            for words in [0, 1, 2, 3, 7, 8, 9, 100, 1001] {
                let data = pattern(words * width);
                let mut want = data.clone();
                for i in width..want.len() {
                    want[i] ^= want[i - width];
                }
                let mut got = data.clone();
                prefix_xor(&mut got, width);
                assert_eq!(got, want, "width {width} words {words}");
            }
        }
    }

    #[test]
    fn widths() {
        let got: Vec<usize> = [1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 17, 24, 255, 256]
            .iter()
            .map(|t| delta_width(*t))
            .collect();
        assert_eq!(got, [1, 2, 1, 4, 1, 1, 1, 8, 1, 8, 1, 8, 1, 8]);
    }

    /// Encodes a whole chunk block by block, then decodes it as c-blosc2 does (block 0 first).
    fn round_trip(typesize: usize, blocksize: usize, chunk: &[u8]) -> Vec<Vec<u8>> {
        let dref = &chunk[..blocksize.min(chunk.len())];
        let mut encoded = Vec::new();
        for (k, block) in chunk.chunks(blocksize).enumerate() {
            let mut out = vec![0; block.len()];
            delta_encode(dref, k * blocksize, block, typesize, &mut out);
            encoded.push(out);
        }
        let mut decoded: Vec<u8> = Vec::new();
        for (k, block) in encoded.iter().enumerate() {
            let mut b = block.clone();
            if k == 0 {
                delta_decode(&[], 0, &mut b, typesize);
            } else {
                delta_decode(&decoded[..blocksize], k * blocksize, &mut b, typesize);
            }
            decoded.extend_from_slice(&b);
        }
        assert_eq!(decoded, chunk, "ts {typesize} bs {blocksize}");
        encoded
    }

    #[test]
    fn round_trips() {
        for ts in [1, 2, 3, 4, 5, 8, 12, 16, 17, 24] {
            for bs in [ts * 64, ts * 50] {
                for len in [0, 1, 7, bs, bs + 3, 3 * bs + 100] {
                    round_trip(ts, bs, &pattern(len));
                }
            }
        }
    }

    // FNV-1a of c-blosc2 3.3.5's filter output (the zlib codec undone) over all blocks of the
    // chunk of `pattern(12384)` compressed with blocksize 64 * typesize and DELTA alone.
    #[test]
    fn matches_reference_chunks() {
        for (ts, hash) in [
            (1, 0x4e5da19cf3777eec_u64),
            (2, 0x5c49196ba76cb310),
            (3, 0x99fdb7d1e928555f),
            (4, 0x2562659f7bb5f57c),
            (8, 0x51e8a369919550ee),
            (12, 0xf2571fa7ad9da31e),
            (16, 0x0cd2daac6c7f0ca9),
            (24, 0x8da466c13422546b),
        ] {
            let blocks = round_trip(ts, 64 * ts, &pattern(12384));
            assert_eq!(fnv1a(&blocks.concat()), hash, "ts {ts}");
        }
    }

    // Filters [.., SHUFFLE, DELTA]: delta sees shuffled blocks but XORs with the raw first block.
    #[test]
    fn matches_reference_after_shuffle() {
        use crate::filters::shuffle::shuffle;
        for (ts, hash) in [(4, 0x1cfff8c0283203f4_u64), (8, 0x18f9925ff32df863)] {
            let chunk = pattern(12384);
            let bs = 64 * ts;
            let mut all = Vec::new();
            for (k, block) in chunk.chunks(bs).enumerate() {
                let mut shuffled = vec![0; block.len()];
                shuffle(ts, block, &mut shuffled);
                let mut out = vec![0; block.len()];
                delta_encode(&chunk[..bs], k * bs, &shuffled, ts, &mut out);
                all.extend_from_slice(&out);
            }
            assert_eq!(fnv1a(&all), hash, "ts {ts}");
        }
    }
}
