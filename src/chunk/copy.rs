//! Copies of whole blocks and streams that stay fast whatever the buffers' addresses.
//!
//! glibc's memcpy moves large copies (above a few KiB) with `rep movsb`, and on AMD Zen cores
//! that instruction runs about ten times slower (3 GB/s instead of 30) when the destination
//! sits 1 to 63 bytes after the source modulo 4096: it cannot tell such a copy from an
//! overlapping one within a page. Block buffers, chunk headers and stream sizes put copies at
//! exactly such distances (a stream starts 4 bytes after its size, a block at a page multiple
//! of the source), so those copies go through pieces small enough for memcpy's vector loop.

/// Below glibc's smallest `rep movsb` threshold (2048 bytes with SSE2, more with AVX).
const PIECE: usize = 2048;

/// Whether `rep movsb` would crawl on this pair: destination 1..=63 bytes after the source,
/// modulo a page.
fn aliased(dst: &[u8], src: &[u8]) -> bool {
    let distance = (dst.as_ptr() as usize).wrapping_sub(src.as_ptr() as usize) % 4096;
    (1..64).contains(&distance)
}

/// `dst.copy_from_slice(src)`, in pieces when the addresses would make memcpy slow.
#[inline]
pub fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    if src.len() <= PIECE || !aliased(dst, src) {
        dst.copy_from_slice(src);
        return;
    }
    assert_eq!(dst.len(), src.len(), "copy_bytes: lengths differ");
    for (d, s) in dst.chunks_mut(PIECE).zip(src.chunks(PIECE)) {
        d.copy_from_slice(s);
    }
}

/// `copy_bytes(dst, src)` split into `block`-byte pieces shared out among `pool`'s threads when
/// there are at least two: c-blosc2 copies the blocks of a memcpyed chunk on all its threads,
/// and one core alone copies at well under what two do.
pub fn copy_blocks(
    pool: Option<&super::runner::Pool>,
    dst: &mut [u8],
    src: &[u8],
    block: usize,
) -> crate::Result<()> {
    match pool {
        Some(pool) if src.len() / block.max(1) > 1 => {
            assert_eq!(dst.len(), src.len(), "copy_blocks: lengths differ");
            super::runner::for_each_piece(pool, dst, block, |i, piece, _| {
                let from = i * block;
                copy_bytes(piece, &src[from..from + piece.len()]);
                Ok(())
            })
        }
        _ => {
            copy_bytes(dst, src);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_at_every_distance_and_length() {
        let src: Vec<u8> = (0..3 * 4096 + 77)
            .map(|i| (i * 7 + i / 251) as u8)
            .collect();
        let mut dst = vec![0u8; src.len() + 4096];
        for shift in [0usize, 1, 4, 31, 63, 64, 100, 4095] {
            for len in [0usize, 1, 2048, 2049, 4096, 8191, src.len()] {
                dst.fill(0);
                copy_bytes(&mut dst[shift..shift + len], &src[..len]);
                assert_eq!(&dst[shift..shift + len], &src[..len]);
                assert!(dst[..shift].iter().all(|&b| b == 0));
                assert!(dst[shift + len..].iter().all(|&b| b == 0));
            }
        }
    }

    #[test]
    fn copies_in_blocks_on_a_pool() {
        let pool = super::super::runner::Pool::new(2).unwrap();
        let src: Vec<u8> = (0..100_000).map(|i| (i * 13 + i / 256) as u8).collect();
        for (len, block) in [
            (0, 4096),
            (5000, 4096),
            (8192, 4096),
            (100_000, 4096),
            (100_000, 1),
        ] {
            for pool in [None, Some(&pool)] {
                let mut dst = vec![0u8; len];
                copy_blocks(pool, &mut dst, &src[..len], block).unwrap();
                assert_eq!(dst, &src[..len]);
            }
        }
    }
}
