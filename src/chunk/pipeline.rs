//! The filter pipeline of one block, forward (compression) and backward (decompression).
//!
//! Buffers are cycled as in c-blosc2: each filter reads one buffer and writes another. The
//! backward pipeline writes its last step straight into the destination block when it can, and
//! DELTA always runs in place on the destination, because its reference is the chunk's first
//! decoded block.

use super::copy::copy_bytes;
use super::header::{BITSHUFFLE, DELTA, MAX_FILTERS, NOFILTER, SHUFFLE, TRUNC_PREC};
use super::params::{BlockCallback, BlockInfo, CParams, DParams, UserFilter};
use super::registry;
use super::scratch::{grow_to, pair_mut, BlockBufs};
use crate::filters::{bitshuffle, bytedelta, delta, shuffle, trunc_prec};
use crate::{Error, Result};
use std::sync::{Arc, OnceLock};

pub use crate::filters::names::{BYTEDELTA, BYTEDELTA_BUGGY, DEFINED_FILTERS_STOP};

/// Where the current data of a block lives while filters run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Loc {
    /// The caller's source (forward) or destination block (backward).
    Outer,
    /// One of the scratch buffers, by index.
    Buf(usize),
}

fn free_buf(used: Loc) -> usize {
    match used {
        Loc::Buf(0) => 1,
        _ => 0,
    }
}

/// BYTEDELTA's number of byte streams: its meta byte, or when that is 0 the super-chunk's
/// typesize, as c-blosc2 takes it (`missing` when there is no super-chunk).
pub(crate) fn bytedelta_streams(
    meta: u8,
    schunk_typesize: Option<i32>,
    missing: Error,
) -> Result<usize> {
    if meta != 0 {
        return Ok(meta as usize);
    }
    schunk_typesize
        .filter(|&t| t > 0)
        .map(|t| t as usize)
        .ok_or(missing)
}

/// The filter with id `f`: the one the params carry, else the registry's (the plugins c-blosc2
/// registers at init are there from the start, so params built without the C layer, such as
/// those of a super-chunk opened from a file, still find them).
fn filter_for(given: &[(u8, Arc<dyn UserFilter>)], f: u8) -> Option<Arc<dyn UserFilter>> {
    given
        .iter()
        .find(|(id, _)| *id == f)
        .map(|(_, uf)| uf.clone())
        .or_else(|| registry::filter(f).map(|e| e.filter))
}

/// Applies one forward filter from `src` to `dst` (equal lengths).
#[allow(clippy::too_many_arguments)]
fn forward_one(
    filter: u8,
    meta: u8,
    typesize: usize,
    chunk_src: &[u8],
    offset: usize,
    src: &[u8],
    dst: &mut [u8],
    params: &CParams,
    nblock: usize,
) -> Result<()> {
    match filter {
        SHUFFLE => shuffle::shuffle_with_meta(typesize, meta, src, dst),
        BITSHUFFLE => bitshuffle::bitshuffle(typesize, src, dst)?,
        DELTA => delta::delta_encode(chunk_src, offset, src, typesize, dst),
        TRUNC_PREC => trunc_prec::truncate_precision(meta as i8, typesize, src, dst)?,
        BYTEDELTA => {
            let streams = bytedelta_streams(meta, params.schunk_typesize, Error::FilterPipeline)?;
            bytedelta::bytedelta_forward(streams, src, dst)?
        }
        // c-blosc2 3.3.5 still registers the old encoder under id 34, so it writes such chunks.
        BYTEDELTA_BUGGY => {
            let streams = bytedelta_streams(meta, params.schunk_typesize, Error::FilterPipeline)?;
            bytedelta::bytedelta_buggy_forward(streams, src, dst)?
        }
        f if f > DEFINED_FILTERS_STOP => {
            let uf = filter_for(&params.user_filters, f).ok_or(Error::FilterPipeline)?;
            if uf.forward(src, dst, meta, params, nblock as i32, typesize as i32) != 0 {
                return Err(Error::FilterPipeline);
            }
        }
        _ => return Err(Error::FilterPipeline),
    }
    Ok(())
}

/// The slot of the SHUFFLE that the DELTA in slot `i` can be fused with for a block after the
/// first of `bsize` bytes: the next filter, when it is a SHUFFLE and the block is whole DELTA
/// words (DELTA leaves a partial last word as it is, the fused kernel would XOR it).
fn shuffle_after_delta(params: &CParams, i: usize, bsize: usize, typesize: usize) -> Option<usize> {
    if !bsize.is_multiple_of(delta::delta_width(typesize)) {
        return None;
    }
    let j = (i + 1..MAX_FILTERS).find(|&j| params.filters[j] != NOFILTER)?;
    (params.filters[j] == SHUFFLE).then_some(j)
}

/// Runs a prefilter over one block the way c-blosc2 does: the output is zeroed first (what
/// the prefilter leaves unwritten reads as zeros) unless it is disposable, and a failure is an
/// error unless the output is disposable. Returns whether the call succeeded.
pub(crate) fn run_prefilter(
    pre: &dyn BlockCallback,
    input: &[u8],
    output: &mut [u8],
    block: BlockInfo,
) -> Result<bool> {
    let disposable = pre.output_is_disposable();
    if !disposable {
        output.fill(0);
    }
    match pre.call(input, output, block) {
        0 => Ok(true),
        _ if disposable => Ok(false),
        _ => Err(Error::FilterPipeline),
    }
}

/// Runs prefilter and filters over block `nblock` (`bsize` bytes at `offset` of `chunk_src`).
/// Returns where the filtered block is: `Loc::Outer` means the untouched source.
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward(
    params: &CParams,
    typesize: usize,
    chunk_src: &[u8],
    offset: usize,
    bsize: usize,
    nblock: usize,
    tid: usize,
    bufs: &mut BlockBufs,
) -> Result<Loc> {
    let mut cur = Loc::Outer;
    if let Some(pre) = &params.prefilter {
        let input = &chunk_src[offset..offset + bsize];
        let block = BlockInfo {
            typesize: typesize as i32,
            offset: offset as i32,
            nblock: nblock as i32,
            tid: tid as i32,
        };
        if !run_prefilter(pre.as_ref(), input, &mut bufs[0][..bsize], block)? {
            // Disposable output the prefilter gave up on: no filters either (as c-blosc2).
            return Ok(Loc::Buf(0));
        }
        cur = Loc::Buf(0);
    }
    let mut fused_shuffle = None;
    for i in 0..MAX_FILTERS {
        let f = params.filters[i];
        if f == NOFILTER || fused_shuffle == Some(i) {
            continue;
        }
        let meta = params.filters_meta[i];
        let dsti = free_buf(cur);
        if dsti == 1 {
            grow_to(&mut bufs[1], bsize);
        }
        let shuffle_next = if f == DELTA && offset != 0 {
            shuffle_after_delta(params, i, bsize, typesize)
        } else {
            None
        };
        if let Some(j) = shuffle_next {
            // shuffle(block ^ block 0) in one pass.
            let streams = shuffle::streams_for_meta(typesize, params.filters_meta[j]);
            let dref = &chunk_src[..bsize];
            let done = match cur {
                Loc::Outer => shuffle::shuffle_xor(
                    streams,
                    &chunk_src[offset..offset + bsize],
                    dref,
                    &mut bufs[dsti][..bsize],
                ),
                Loc::Buf(s) => {
                    let (src, dst) = pair_mut(bufs, s, dsti);
                    shuffle::shuffle_xor(streams, &src[..bsize], dref, &mut dst[..bsize])
                }
            };
            if done {
                fused_shuffle = Some(j);
                cur = Loc::Buf(dsti);
                continue;
            }
        }
        match cur {
            Loc::Outer => {
                let src = &chunk_src[offset..offset + bsize];
                forward_one(
                    f,
                    meta,
                    typesize,
                    chunk_src,
                    offset,
                    src,
                    &mut bufs[dsti][..bsize],
                    params,
                    nblock,
                )?;
            }
            Loc::Buf(s) => {
                let (src, dst) = pair_mut(bufs, s, dsti);
                forward_one(
                    f,
                    meta,
                    typesize,
                    chunk_src,
                    offset,
                    &src[..bsize],
                    &mut dst[..bsize],
                    params,
                    nblock,
                )?;
            }
        }
        cur = Loc::Buf(dsti);
    }
    Ok(cur)
}

/// The filters that act on decompression (id, meta), in the order they are undone; a slice
/// through `Deref`. Kept inline, not in a Vec: a small decompression should not allocate.
pub(crate) struct Steps {
    list: [(u8, u8); MAX_FILTERS],
    len: usize,
}

impl std::ops::Deref for Steps {
    type Target = [(u8, u8)];
    fn deref(&self) -> &[(u8, u8)] {
        &self.list[..self.len]
    }
}

/// The filters that act on decompression, in the order they are undone.
pub(crate) fn backward_steps(filters: &[u8; MAX_FILTERS], meta: &[u8; MAX_FILTERS]) -> Steps {
    let mut steps = Steps {
        list: [(0, 0); MAX_FILTERS],
        len: 0,
    };
    for i in (0..MAX_FILTERS).rev() {
        if filters[i] != NOFILTER && filters[i] != TRUNC_PREC {
            steps.list[steps.len] = (filters[i], meta[i]);
            steps.len += 1;
        }
    }
    steps
}

/// Where the codec should decode a block: straight into the destination when no filter (or only
/// DELTA first) has to run before it, and there is no postfilter.
pub(crate) fn decode_target(steps: &[(u8, u8)], has_postfilter: bool) -> Loc {
    if has_postfilter {
        return Loc::Buf(0);
    }
    match steps.first() {
        None => Loc::Outer,
        Some((DELTA, _)) => Loc::Outer,
        _ => Loc::Buf(0),
    }
}

/// Parameters of the backward pipeline that are the same for every block of a chunk.
pub(crate) struct Backward<'a> {
    pub(crate) steps: &'a [(u8, u8)],
    pub(crate) typesize: usize,
    pub(crate) format_version: u8,
    pub(crate) dparams: &'a DParams,
}

#[allow(clippy::too_many_arguments)]
fn backward_one(
    bw: &Backward<'_>,
    filter: u8,
    meta: u8,
    src: &[u8],
    dst: &mut [u8],
    nblock: usize,
) -> Result<()> {
    let ts = bw.typesize;
    match filter {
        SHUFFLE => shuffle::unshuffle_with_meta(ts, meta, src, dst),
        BITSHUFFLE => bitshuffle::bitunshuffle(ts, src, dst, bw.format_version)?,
        BYTEDELTA => {
            let streams = bytedelta_streams(meta, bw.dparams.schunk_typesize, Error::Failure)?;
            bytedelta::bytedelta_backward(streams, src, dst)?
        }
        BYTEDELTA_BUGGY => {
            let streams = bytedelta_streams(meta, bw.dparams.schunk_typesize, Error::Failure)?;
            bytedelta::bytedelta_buggy_backward(streams, src, dst)?
        }
        f if f > DEFINED_FILTERS_STOP => {
            let uf = filter_for(&bw.dparams.user_filters, f).ok_or(Error::FilterPipeline)?;
            let rc = uf.backward(src, dst, meta, bw.dparams, nblock as i32, ts as i32);
            if rc != 0 {
                return Err(if rc < 0 {
                    Error::from_code(rc).unwrap_or(Error::FilterPipeline)
                } else {
                    Error::FilterPipeline
                });
            }
        }
        _ => return Err(Error::FilterPipeline),
    }
    Ok(())
}

/// DELTA's reference, the chunk's block 0 decoded, as a block being decoded sees it.
#[derive(Clone, Copy)]
pub(crate) enum Dref<'a> {
    /// No reference: block 0 itself, or no DELTA in the pipeline.
    None,
    /// Block 0, already decoded.
    Ready(&'a [u8]),
    /// Block 0 as another thread decodes it: a block waits for it only at its DELTA step, so
    /// its codec and other filters run meanwhile (None in the cell: block 0 failed).
    Pending(&'a OnceLock<Option<&'a [u8]>>),
}

/// How long a block waits awake for block 0 before sleeping: block 0's filters take tens of
/// microseconds after a block's codec, and a sleeping thread takes about as long to wake.
const DREF_SPIN: std::time::Duration = std::time::Duration::from_micros(200);

impl<'a> Dref<'a> {
    pub(crate) fn get(self) -> Result<&'a [u8]> {
        match self {
            Dref::None => Ok(&[]),
            Dref::Ready(d) => Ok(d),
            Dref::Pending(cell) => {
                super::runner::spin_until(DREF_SPIN, || cell.get().is_some());
                cell.wait().ok_or(Error::Failure)
            }
        }
    }
}

impl<'a> From<Option<&'a [u8]>> for Dref<'a> {
    fn from(d: Option<&'a [u8]>) -> Self {
        d.map_or(Dref::None, Dref::Ready)
    }
}

/// Undoes the filters of one block whose codec output is at `start`, leaving the result in
/// `dest` (the block's place in the output). `dref` is the chunk's first decoded block, needed
/// by DELTA (None when this is block 0). `offset` is the block's byte offset in the chunk.
#[allow(clippy::too_many_arguments)]
pub(crate) fn backward(
    bw: &Backward<'_>,
    start: Loc,
    dest: &mut [u8],
    dref: Dref<'_>,
    offset: usize,
    nblock: usize,
    tid: usize,
    bufs: &mut BlockBufs,
) -> Result<()> {
    let bsize = dest.len();
    let postfilter = bw.dparams.postfilter.as_ref();
    let mut cur = start;
    let n = bw.steps.len();
    for (si, &(f, meta)) in bw.steps.iter().enumerate() {
        if f == DELTA {
            if let Loc::Buf(s) = cur {
                copy_bytes(dest, &bufs[s][..bsize]);
            }
            delta::delta_decode(dref.get()?, offset, dest, bw.typesize);
            cur = Loc::Outer;
            continue;
        }
        let next_is_delta = bw.steps.get(si + 1).map(|s| s.0) == Some(DELTA);
        let to_dest = postfilter.is_none() && (si + 1 == n || next_is_delta) && cur != Loc::Outer;
        match (cur, to_dest) {
            (Loc::Buf(s), true) => {
                backward_one(bw, f, meta, &bufs[s][..bsize], dest, nblock)?;
                cur = Loc::Outer;
            }
            (Loc::Buf(s), false) => {
                let d = free_buf(cur);
                if d == 1 {
                    grow_to(&mut bufs[1], bsize);
                }
                let (src, dst) = pair_mut(bufs, s, d);
                backward_one(bw, f, meta, &src[..bsize], &mut dst[..bsize], nblock)?;
                cur = Loc::Buf(d);
            }
            (Loc::Outer, _) => {
                copy_bytes(&mut bufs[0][..bsize], dest);
                grow_to(&mut bufs[1], bsize);
                let (src, dst) = pair_mut(bufs, 0, 1);
                backward_one(bw, f, meta, &src[..bsize], &mut dst[..bsize], nblock)?;
                cur = Loc::Buf(1);
            }
        }
    }
    if let Some(post) = postfilter {
        let input_copy;
        let input: &[u8] = match cur {
            Loc::Buf(s) => &bufs[s][..bsize],
            Loc::Outer => {
                input_copy = dest.to_vec();
                &input_copy
            }
        };
        if post.call(
            input,
            dest,
            BlockInfo {
                typesize: bw.typesize as i32,
                offset: offset as i32,
                nblock: nblock as i32,
                tid: tid as i32,
            },
        ) != 0
        {
            return Err(Error::Postfilter);
        }
    } else if let Loc::Buf(s) = cur {
        copy_bytes(dest, &bufs[s][..bsize]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::testutil::pattern;

    /// DELTA then SHUFFLE (with empty slots between, and a SHUFFLE meta) gives, block by block,
    /// what the two filters give one after the other, where the fused kernel serves the
    /// typesize and where it does not.
    #[test]
    fn delta_then_shuffle_is_the_two_filters_in_turn() {
        for ts in [2usize, 3, 4, 8, 12, 16] {
            for (meta, gap) in [(0u8, 0usize), (0, 2), (4, 1)] {
                let mut params = CParams {
                    typesize: ts as i32,
                    ..Default::default()
                };
                params.filters = [NOFILTER; MAX_FILTERS];
                params.filters[1] = DELTA;
                params.filters[2 + gap] = SHUFFLE;
                params.filters_meta[2 + gap] = meta;
                let bsize = 96 * ts * 8;
                let chunk = pattern(3 * bsize + 40);
                for nblock in 0..4 {
                    let offset = nblock * bsize;
                    let len = bsize.min(chunk.len() - offset);
                    let mut bufs: crate::chunk::scratch::BlockBufs =
                        std::array::from_fn(|_| vec![0u8; bsize]);
                    let at = forward(&params, ts, &chunk, offset, len, nblock, 0, &mut bufs)
                        .expect("forward");
                    let Loc::Buf(b) = at else {
                        panic!("filtered block left in place")
                    };
                    let mut delta_out = vec![0u8; len];
                    delta::delta_encode(
                        &chunk,
                        offset,
                        &chunk[offset..offset + len],
                        ts,
                        &mut delta_out,
                    );
                    let mut want = vec![0u8; len];
                    shuffle::shuffle_with_meta(ts, meta, &delta_out, &mut want);
                    assert_eq!(
                        &bufs[b][..len],
                        &want[..],
                        "ts {ts} meta {meta} block {nblock}"
                    );
                }
            }
        }
    }
}
