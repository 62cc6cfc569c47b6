//! Chunk decompression, for every chunk format c-blosc 1.x and c-blosc2 wrote: the whole chunk
//! into a buffer, its blocks on the context's threads. The chunk decoder itself is in
//! `decoder`, getitem in `getitem`, partial decoding of blocks in `partial`.

use super::decoder::Chunk;
use super::params::DParams;
use super::pipeline::{self, Backward, Dref};
use super::scratch::with_scratch;
use crate::{Error, Result};
use std::sync::{Mutex, OnceLock};

pub use super::decoder::LazyBlocks;
pub use super::getitem::getitem_parsed;
pub(crate) use super::getitem::{getitem_bytes, getitem_bytes_with};
pub use super::partial::{for_each_block_part, BlockSpan, DecodedPart};
/// Decompresses a chunk into `dst`; returns the number of bytes written (the chunk's nbytes).
/// `maskout[i] == true` skips block i (leaving its bytes untouched).
pub(crate) fn decompress(
    dparams: &DParams,
    pool: Option<&super::runner::Pool>,
    src: &[u8],
    dst: &mut [u8],
    maskout: Option<&[bool]>,
) -> Result<usize> {
    decompress_with(dparams, pool, src, dst, maskout, None)
}

/// Sets a DELTA reference cell to "block 0 failed" unless it was published: whatever happens
/// to the thread decoding block 0 (an error, a panic), the blocks waiting for it are released.
struct ReleaseDrefOnDrop<'c, 'd>(&'c OnceLock<Option<&'d [u8]>>);

impl Drop for ReleaseDrefOnDrop<'_, '_> {
    fn drop(&mut self) {
        let _ = self.0.set(None);
    }
}

/// Decodes every block of a DELTA chunk on the pool, block 0 included: block 0 is decoded in
/// its place in `dst` (into a spare buffer when masked out) and published in a cell that the
/// other blocks wait for only at their DELTA step, so a thread is never idle while block 0's
/// codec runs (decoding block 0 first and the rest afterwards made an 8-block chunk take 5
/// block-times on 2 threads instead of 4). Block 0 is the critical path: no copy of it.
fn decode_delta_blocks_in_parallel(
    chunk: &Chunk<'_>,
    bw: &Backward<'_>,
    dst: &mut [u8],
    pool: &super::runner::Pool,
    masked: &(dyn Fn(usize) -> bool + Sync),
) -> Result<()> {
    let bs = chunk.header.blocksize as usize;
    let mut spare = vec![0u8; if masked(0) { bs.min(dst.len()) } else { 0 }];
    let spare = Mutex::new(Some(&mut spare[..]));
    let block0: OnceLock<Option<&[u8]>> = OnceLock::new();
    super::runner::for_each_piece(pool, dst, bs, |k, block, tid| {
        if k == 0 {
            let release = ReleaseDrefOnDrop(&block0);
            // Masked out, block 0 is still every other block's reference: decoded aside.
            let block = if masked(0) {
                let spare = spare.lock().unwrap_or_else(|e| e.into_inner()).take();
                spare.ok_or(Error::ThreadCreate)?
            } else {
                block
            };
            with_scratch(|s| chunk.decode_block(bw, 0, block, Dref::None, tid, s))?;
            let _ = block0.set(Some(block));
            drop(release);
            return Ok(());
        }
        if masked(k) {
            return Ok(());
        }
        with_scratch(|s| chunk.decode_block(bw, k, block, Dref::Pending(&block0), tid, s))
    })
}

/// `decompress`, also for lazy chunks whose blocks `reader` fetches.
pub(crate) fn decompress_with(
    dparams: &DParams,
    pool: Option<&super::runner::Pool>,
    src: &[u8],
    dst: &mut [u8],
    maskout: Option<&[bool]>,
    reader: Option<&dyn LazyBlocks>,
) -> Result<usize> {
    #[cfg(test)]
    crate::fault::hit("chunk::decompress");
    let chunk = Chunk::open_with(src, dst.len(), reader)?;
    let h = chunk.header;
    if let Some(m) = maskout {
        if m.len() != chunk.nblocks {
            return Err(Error::Data);
        }
    }
    if h.nbytes == 0 && h.cbytes as usize == h.header_len() && h.special_raw() == 0 {
        return Ok(0);
    }
    if h.is_vl_blocks() {
        return super::vlblocks::decompress_concat(dparams, &chunk, dst);
    }
    let nbytes = h.nbytes as usize;
    let bs = h.blocksize as usize;
    let dst = &mut dst[..nbytes];
    let masked = |i: usize| maskout.is_some_and(|m| m[i]);
    // c-blosc2 runs on its threads only chunks of more than one block.
    let pool = if nbytes / bs <= 1 { None } else { pool };
    if h.special_raw() != 0 || h.memcpyed() {
        let plain_block = |i: usize, block: &mut [u8], tid: usize| -> Result<()> {
            if masked(i) {
                return Ok(());
            }
            chunk.plain_block(dparams, i, block, tid)
        };
        // Copies and fills are split by block among the threads as c-blosc2 splits them: one
        // thread alone moves a 4 MiB copy at a single core's memcpy speed, well below two.
        match pool {
            Some(pool) => super::runner::for_each_piece(pool, dst, bs, plain_block)?,
            None if dparams.postfilter.is_none() && maskout.is_none() => {
                chunk.fill_plain_range(0, dst)?
            }
            None => {
                for (i, block) in dst.chunks_mut(bs).enumerate() {
                    plain_block(i, block, 0)?;
                }
            }
        }
        return Ok(nbytes);
    }
    let steps = pipeline::backward_steps(&h.filters, &h.filters_meta);
    let bw = Backward {
        steps: &steps,
        typesize: h.typesize as usize,
        format_version: h.version,
        dparams,
    };
    if let Some(pool) = pool.filter(|_| chunk.has_delta() && chunk.nblocks > 2) {
        return decode_delta_blocks_in_parallel(&chunk, &bw, dst, pool, &masked).map(|()| nbytes);
    }
    let mut dref_buf = Vec::new();
    let (dref, todo, start_block): (Option<&[u8]>, &mut [u8], usize) = if chunk.has_delta() {
        // DELTA's reference is block 0: decode it first (even when masked out).
        let (first, rest) = dst.split_at_mut(bs.min(nbytes));
        if masked(0) {
            dref_buf.resize(first.len(), 0);
            with_scratch(|s| chunk.decode_block(&bw, 0, &mut dref_buf, Dref::None, 0, s))?;
            (Some(&dref_buf), rest, 1)
        } else {
            with_scratch(|s| chunk.decode_block(&bw, 0, first, Dref::None, 0, s))?;
            (Some(&*first), rest, 1)
        }
    } else {
        (None, dst, 0)
    };
    let nleft = chunk.nblocks - start_block;
    let decode = |k: usize, block: &mut [u8], tid: usize| -> Result<()> {
        let i = k + start_block;
        if masked(i) {
            return Ok(());
        }
        with_scratch(|s| chunk.decode_block(&bw, i, block, dref, tid, s))
    };
    match pool {
        Some(pool) if nleft > 1 => super::runner::for_each_piece(pool, todo, bs, decode)?,
        _ => {
            for (k, b) in todo.chunks_mut(bs).enumerate() {
                decode(k, b, 0)?;
            }
        }
    }
    Ok(nbytes)
}
