//! Automatic block size and split decisions, as c-blosc2's "stune" tuner makes them. Ratios and
//! speeds are only comparable with c-blosc2 when blocks are the same, so this follows it exactly.

use super::header::{DOSHUFFLE, MIN_BUFFERSIZE};
use super::params::{ALWAYS_SPLIT, NEVER_SPLIT};
use crate::codecs::{BLOSCLZ, LZ4, LZ4HC, ZLIB, ZSTD};

/// Size of the L1 cache c-blosc2 assumes.
const L1: i32 = 32 * 1024;
/// Maximum number of streams a block is split into.
const MAX_STREAMS: i32 = 16;

/// Codecs meant for high compression ratios get larger blocks.
fn is_hcr(compcode: u8) -> bool {
    matches!(compcode, LZ4HC | ZLIB | ZSTD)
}

/// Whether blocks are split into `typesize` streams.
pub fn split_block(
    splitmode: i32,
    compcode: u8,
    clevel: u8,
    filter_flags: u8,
    typesize: i32,
    blocksize: i32,
) -> bool {
    match splitmode {
        ALWAYS_SPLIT => return true,
        NEVER_SPLIT => return false,
        _ => {}
    }
    let codec_splits = compcode == BLOSCLZ || compcode == LZ4 || (compcode == ZSTD && clevel <= 5);
    codec_splits
        && filter_flags & DOSHUFFLE != 0
        && typesize <= MAX_STREAMS
        && typesize > 0
        && blocksize / typesize >= MIN_BUFFERSIZE
}

/// The size c-blosc2 cuts blocks at for a chunk whose header `blocksize` is what
/// [`choose_blocksize`] returned: a forced size rounded down to a multiple of the typesize (the
/// automatic sizes already are). c-blosc2 3.3.5 still writes the unrounded forced size in the
/// header, so its compressed chunks then disagree with their own header and do not decode.
pub fn layout_blocksize(blocksize: i32, typesize: i32) -> i32 {
    if typesize > 0 && blocksize > typesize {
        blocksize / typesize * typesize
    } else {
        blocksize
    }
}

/// The block size c-blosc2 chooses for a chunk of `nbytes` (a non-zero `user_blocksize` wins),
/// and (but for a buffer smaller than one item) whether c-blosc2's automatic tuner finds that
/// blocks of that size split: it reports both under `BLOSC_INFO`.
pub fn choose_blocksize(
    compcode: u8,
    clevel: u8,
    typesize: i32,
    nbytes: i32,
    user_blocksize: i32,
    splitmode: i32,
    filter_flags: u8,
) -> (i32, Option<bool>) {
    if user_blocksize != 0 {
        // c-blosc2 3.3.5 records a forced block size as it is, only capped at a non-empty
        // buffer's size (its blocks are cut at `layout_blocksize` of it).
        let forced = if nbytes > 0 && user_blocksize > nbytes {
            nbytes
        } else {
            user_blocksize
        };
        // c-blosc2's tuner reports a forced size too (unless the buffer is smaller than one
        // item), with whether that size would split.
        let split = (nbytes >= typesize).then(|| {
            split_block(
                splitmode,
                compcode,
                clevel,
                filter_flags,
                typesize,
                user_blocksize,
            )
        });
        return (forced, split);
    }
    if nbytes < typesize {
        return (1, None);
    }
    let mut blocksize = nbytes;
    let split;
    {
        if nbytes >= L1 {
            blocksize = L1;
            if is_hcr(compcode) {
                blocksize *= 2;
            }
            blocksize = match clevel {
                0 => blocksize / 4,
                1 => blocksize / 2,
                2 => blocksize,
                3 => blocksize * 2,
                4 | 5 => blocksize * 4,
                6..=8 => blocksize * 8,
                _ => {
                    if is_hcr(compcode) {
                        blocksize * 16
                    } else {
                        blocksize * 8
                    }
                }
            };
        }
        split = split_block(
            splitmode,
            compcode,
            clevel,
            filter_flags,
            typesize,
            blocksize,
        );
        if clevel > 0 && split {
            blocksize = match clevel {
                1..=3 => 32 * 1024,
                4..=6 => 64 * 1024,
                7 => 128 * 1024,
                8 => 256 * 1024,
                _ => 512 * 1024,
            };
            blocksize = blocksize.saturating_mul(typesize);
            blocksize = blocksize.clamp(32 * 1024, 4 * 1024 * 1024);
        }
    }
    if blocksize > nbytes {
        blocksize = nbytes;
    }
    if blocksize > typesize {
        blocksize = blocksize / typesize * typesize;
    }
    (blocksize, Some(split))
}
