//! Portable byte shuffle: the definition every SIMD kernel must reproduce.

/// Shuffles elements `first..n` of `src` (n = len / typesize) into `dst` and copies the
/// `len % typesize` leftover bytes verbatim. Byte `j` of element `i` goes to `j * n + i`.
pub(crate) fn shuffle_from(typesize: usize, first: usize, src: &[u8], dst: &mut [u8]) {
    shuffle_mapped_from(typesize, first, src, dst, |_, b| b);
}

/// [`shuffle_from`] of `src` XORed byte for byte with `xor` (at least as long): DELTA then
/// SHUFFLE, for the elements the fused SIMD kernel leaves.
pub(crate) fn shuffle_xor_from(
    typesize: usize,
    first: usize,
    src: &[u8],
    xor: &[u8],
    dst: &mut [u8],
) {
    shuffle_mapped_from(typesize, first, src, dst, |k, b| b ^ xor[k]);
}

/// [`shuffle_from`] with each byte of `src` passed through `map(its offset in src, byte)`.
#[inline(always)]
fn shuffle_mapped_from(
    typesize: usize,
    first: usize,
    src: &[u8],
    dst: &mut [u8],
    map: impl Fn(usize, u8) -> u8,
) {
    let n = src.len() / typesize;
    let body = n * typesize;
    if first < n {
        let elems = &src[first * typesize..body];
        for j in 0..typesize {
            let stream = &mut dst[j * n + first..j * n + n];
            for (i, (d, e)) in stream
                .iter_mut()
                .zip(elems.chunks_exact(typesize))
                .enumerate()
            {
                *d = map((first + i) * typesize + j, e[j]);
            }
        }
    }
    for (k, (d, s)) in dst[body..].iter_mut().zip(&src[body..]).enumerate() {
        *d = map(body + k, *s);
    }
}

/// Inverse of [`shuffle_from`]: rebuilds elements `first..n` and copies the leftover bytes.
pub(crate) fn unshuffle_from(typesize: usize, first: usize, src: &[u8], dst: &mut [u8]) {
    let n = src.len() / typesize;
    let body = n * typesize;
    if first < n {
        let elems = &mut dst[first * typesize..body];
        for j in 0..typesize {
            let stream = &src[j * n + first..j * n + n];
            for (e, s) in elems.chunks_exact_mut(typesize).zip(stream) {
                e[j] = *s;
            }
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// Inverse of [`shuffle_from`] from streams lying anywhere: rebuilds elements `first..n`
/// (n = `dst.len() / streams.len()`) from `streams[j]`, which holds byte `j` of each element.
pub(crate) fn unshuffle_streams_from(streams: &[&[u8]], first: usize, dst: &mut [u8]) {
    let ts = streams.len();
    let n = dst.len() / ts;
    if first >= n {
        return;
    }
    let elems = &mut dst[first * ts..n * ts];
    for (j, stream) in streams.iter().enumerate() {
        for (e, s) in elems.chunks_exact_mut(ts).zip(&stream[first..n]) {
            e[j] = *s;
        }
    }
}
