//! getitem: a range of bytes of a chunk, decoding only the blocks (and parts of blocks) it
//! covers; the cell-wise getitem of `zfp_rate` chunks.

use super::copy::copy_bytes;
use super::decoder::{Chunk, LazyBlocks};
use super::header::*;
use super::params::{ArrayLayout, DParams};
use super::pipeline::{self, Backward, Dref};
use super::scratch::{reuse, with_scratch, Scratch};
use crate::codecs::{self, zfp};
use crate::{Error, Result};

/// Decompresses `nbytes` bytes starting at byte `start` of the chunk into `dst`.
/// `start` and `nbytes` must lie within the chunk.
pub(crate) fn getitem_bytes(
    dparams: &DParams,
    src: &[u8],
    start: usize,
    nbytes: usize,
    dst: &mut [u8],
) -> Result<usize> {
    getitem_bytes_with(dparams, src, start, nbytes, dst, None)
}

/// `getitem_bytes`, also for lazy chunks whose blocks `reader` fetches.
pub(crate) fn getitem_bytes_with(
    dparams: &DParams,
    src: &[u8],
    start: usize,
    nbytes: usize,
    dst: &mut [u8],
    reader: Option<&dyn LazyBlocks>,
) -> Result<usize> {
    getitem_parsed(
        dparams,
        &ChunkHeader::parse(src)?,
        src,
        start,
        nbytes,
        dst,
        reader,
    )
}

/// `getitem_bytes_with` for a chunk whose header the caller has parsed already. Inlined into
/// its callers for the plain copy out of a memcpyed chunk, where a one-item getitem is all
/// per-call overhead; everything else is in `getitem_general`.
#[inline]
pub fn getitem_parsed(
    dparams: &DParams,
    header: &ChunkHeader,
    src: &[u8],
    start: usize,
    nbytes: usize,
    dst: &mut [u8],
    reader: Option<&dyn LazyBlocks>,
) -> Result<usize> {
    if !header.is_lazy() && header.cbytes as usize > src.len() {
        return Err(Error::InvalidHeader);
    }
    if header.memcpyed() && header.special_raw() == 0 && !header.is_lazy() {
        // A plain copy: the checks `Chunk::with_header` and the general path below make for
        // such a chunk, without building a `Chunk` (a small getitem is dominated by that).
        let hl = header.header_len();
        if header.cbytes as i64 != header.nbytes as i64 + hl as i64 {
            return Err(Error::Data);
        }
        if !request_fits(header, start, nbytes, dst.len())? {
            return Ok(0);
        }
        if !header.is_vl_blocks() && dparams.postfilter.is_none() {
            let from = src
                .get(hl + start..hl + start + nbytes)
                .ok_or(Error::ReadBuffer)?;
            copy_bytes(&mut dst[..nbytes], from);
            return Ok(nbytes);
        }
    }
    if header.special_raw() != 0 && dparams.postfilter.is_none() {
        return getitem_special(dparams, header, src, start, nbytes, dst, reader);
    }
    getitem_general(dparams, header, src, start, nbytes, dst, reader)
}

/// getitem's checks of the request against the chunk and the destination, in c-blosc2's order
/// (the general path makes the same): `Ok(false)` for an empty request, which succeeds with 0.
#[inline(always)]
fn request_fits(header: &ChunkHeader, start: usize, nbytes: usize, dst_len: usize) -> Result<bool> {
    if nbytes == 0 {
        return Ok(false);
    }
    if nbytes > dst_len {
        return Err(Error::WriteBuffer);
    }
    if start + nbytes > header.nbytes as usize {
        return Err(Error::InvalidParam);
    }
    Ok(true)
}

/// [`getitem_general`] of a special-value chunk without a postfilter: the same checks in the
/// same order, and for zeros and uninitialised bytes the fill without building a `Chunk` (a
/// getitem of an uninitialised chunk is nothing but the checks: 608 instructions a call before,
/// c-blosc2 352). NaNs and a repeated value take the general path.
#[inline(never)]
fn getitem_special(
    dparams: &DParams,
    header: &ChunkHeader,
    src: &[u8],
    start: usize,
    nbytes: usize,
    dst: &mut [u8],
    reader: Option<&dyn LazyBlocks>,
) -> Result<usize> {
    let special = header.special()?;
    if !matches!(special, Special::Zero | Special::Uninit) {
        return getitem_general(dparams, header, src, start, nbytes, dst, reader);
    }
    // `Chunk::with_header`'s check, then `getitem_general`'s.
    if header.memcpyed()
        && header.cbytes as i64 != header.nbytes as i64 + header.header_len() as i64
    {
        return Err(Error::Data);
    }
    if !request_fits(header, start, nbytes, dst.len())? {
        return Ok(0);
    }
    if header.is_vl_blocks() {
        return Err(Error::InvalidParam);
    }
    if special == Special::Zero {
        dst[..nbytes].fill(0);
    }
    Ok(nbytes)
}

/// [`getitem_parsed`] past its memcpyed-chunk shortcut.
#[inline(never)]
fn getitem_general(
    dparams: &DParams,
    header: &ChunkHeader,
    src: &[u8],
    start: usize,
    nbytes: usize,
    dst: &mut [u8],
    reader: Option<&dyn LazyBlocks>,
) -> Result<usize> {
    let chunk = Chunk::with_header(*header, src, reader)?;
    let h = chunk.header;
    if !request_fits(&h, start, nbytes, dst.len())? {
        return Ok(0);
    }
    let stop = start + nbytes;
    if h.is_vl_blocks() {
        return Err(Error::InvalidParam);
    }
    let dst = &mut dst[..nbytes];
    if (h.special_raw() != 0 || h.memcpyed()) && dparams.postfilter.is_none() {
        chunk.fill_plain_range(start, dst)?;
        return Ok(nbytes);
    }
    let bs = h.blocksize as usize;
    let steps = pipeline::backward_steps(&h.filters, &h.filters_meta);
    let bw = Backward {
        steps: &steps,
        typesize: h.typesize as usize,
        format_version: h.version,
        dparams,
    };
    if let Some(layout) = zfp_rate_layout(&h, dparams, &steps) {
        return with_scratch(|s| zfp_rate_getitem(&chunk, &bw, layout, start, dst, s));
    }
    with_scratch(|s| -> Result<usize> {
        let first_block = start / bs;
        let last_block = (stop - 1) / bs;
        // DELTA's reference for blocks > 0 is block 0 decoded, also when the range starts in
        // block 0 itself.
        if !(h.special_raw() != 0 || h.memcpyed()) {
            for nblock in first_block..=last_block {
                chunk.check_block_start(nblock)?;
            }
        }
        let mut dref_store = std::mem::take(&mut s.getitem_dref);
        let mut block_store = std::mem::take(&mut s.getitem_block);
        let dref_buf: &[u8] = if chunk.has_delta() && last_block > 0 {
            chunk.check_block_start(0)?;
            let d = reuse(&mut dref_store, chunk.block_len(0));
            chunk.decode_block(&bw, 0, d, Dref::None, 0, s)?;
            d
        } else {
            &[]
        };
        let mut written = 0;
        for nblock in first_block..=last_block {
            let blen = chunk.block_len(nblock);
            let bstart = nblock * bs;
            let from = start.max(bstart) - bstart;
            let to = stop.min(bstart + blen) - bstart;
            let dref = if nblock > 0 && chunk.has_delta() {
                Some(dref_buf)
            } else {
                None
            };
            if nblock == 0 && !dref_buf.is_empty() {
                copy_bytes(&mut dst[written..written + to - from], &dref_buf[from..to]);
            } else if from == 0 && to == blen {
                let out = &mut dst[written..written + blen];
                if h.special_raw() != 0 || h.memcpyed() {
                    chunk.plain_block(dparams, nblock, out, 0)?;
                } else {
                    chunk.decode_block(&bw, nblock, out, dref, 0, s)?;
                }
            } else if h.special_raw() != 0 || h.memcpyed() {
                // The postfilter (the only way here) sees whole blocks, as in c-blosc2.
                let block_buf = reuse(&mut block_store, blen);
                chunk.plain_block(dparams, nblock, block_buf, 0)?;
                copy_bytes(&mut dst[written..written + to - from], &block_buf[from..to]);
            } else {
                let out = &mut dst[written..written + to - from];
                if !chunk.decode_block_part(&bw, nblock, from, to, out, dref, s)? {
                    let block_buf = reuse(&mut block_store, blen);
                    chunk.decode_block(&bw, nblock, block_buf, dref, 0, s)?;
                    copy_bytes(out, &block_buf[from..to]);
                }
            }
            written += to - from;
        }
        s.getitem_dref = dref_store;
        s.getitem_block = block_store;
        Ok(written)
    })
}

/// The array layout c-blosc2's cell-wise getitem of `zfp_rate` chunks needs, when it applies:
/// a `zfp_rate` chunk of a super-chunk with a 1- to 4-D "b2nd" layout, whose blocks go through
/// no filter nor postfilter. (With filters c-blosc2 unfilters a whole block of which only the
/// cell was decoded, from stale scratch memory; those chunks decode their blocks whole here.)
fn zfp_rate_layout<'p>(
    h: &ChunkHeader,
    dparams: &'p DParams,
    steps: &[(u8, u8)],
) -> Option<&'p ArrayLayout> {
    if h.compformat() != codecs::UDCODEC_FORMAT
        || h.udcompcode != crate::codecs::ZFP_RATE
        || !steps.is_empty()
        || dparams.postfilter.is_some()
        || h.special_raw() != 0
        || h.memcpyed()
        || h.is_vl_blocks()
    {
        return None;
    }
    dparams
        .layout
        .as_deref()
        .filter(|l| (1..=4).contains(&l.blockshape.len()))
}

/// getitem on a `zfp_rate` chunk as c-blosc2 3.3.5 serves it: every block the items touch,
/// when its single stream is a zfp one, first goes to the plugin's cell reader
/// (`zfp::rate_cell`) with the start's place in that block and the whole item count.
/// - When all the items lie in one block and fit in the start's cell, they are that cell's, in
///   the cell's order, without decoding the rest of the block (the fast path; a run that
///   crosses a cell row continues on the cell's next row, where the block's next items are
///   elsewhere).
/// - Whenever the cell reader fails (see `rate_cell`: notably more bits asked for than a cell
///   takes) the getitem fails with `Data`, also for items spanning blocks.
/// - Otherwise the blocks are decoded whole and the items copied in order. (For items spanning
///   blocks whose cell reads succeed, c-blosc2 copies nothing or copies to the wrong place;
///   here the items are right.)
fn zfp_rate_getitem(
    chunk: &Chunk<'_>,
    bw: &Backward<'_>,
    layout: &ArrayLayout,
    start: usize,
    dst: &mut [u8],
    s: &mut Scratch,
) -> Result<usize> {
    let h = &chunk.header;
    let (bs, ts) = (h.blocksize as usize, h.typesize as usize);
    let stop = start + dst.len();
    let (first_block, last_block) = (start / bs, (stop - 1) / bs);
    let nitems = dst.len() / ts;
    let mut block_store = std::mem::take(&mut s.getitem_block);
    let mut written = 0;
    for nblock in first_block..=last_block {
        chunk.check_block_start(nblock)?;
        let blen = chunk.block_len(nblock);
        let bstart = nblock * bs;
        let from = start.max(bstart) - bstart;
        let to = stop.min(bstart + blen) - bstart;
        if chunk.stream_layout(nblock, blen)?.0 == 1 {
            let src = chunk.block_src(nblock)?;
            if let Some(stream) = zfp_stream_of(&src, blen) {
                let single = first_block == last_block;
                let items = from / ts..from / ts + nitems;
                let read = |out: &mut [u8]| {
                    let meta = h.compcode_meta;
                    zfp::rate_cell(meta, &layout.blockshape, ts, stream, items, blen, out)
                };
                let cell = if single {
                    read(dst)
                } else {
                    read(&mut [0u8; zfp::MAX_CELL_BYTES])
                };
                match cell {
                    Ok(Some(n)) if single => return Ok(n),
                    Ok(_) => {}
                    Err(_) => return Err(Error::Data),
                }
            }
        }
        let block = reuse(&mut block_store, blen);
        chunk.decode_block(bw, nblock, block, Dref::None, 0, s)?;
        copy_bytes(&mut dst[written..written + to - from], &block[from..to]);
        written += to - from;
    }
    s.getitem_block = block_store;
    Ok(written)
}

/// The codec's stream of a one-stream block (`src`: the block's bytes from its start), when
/// the codec wrote one: not a run, zeros, or the block stored raw. `None` also for a stream
/// that overruns `src`, which the block's regular decoding reports.
fn zfp_stream_of(src: &[u8], block_len: usize) -> Option<&[u8]> {
    let csize = i32::from_le_bytes(src.get(..4)?.try_into().ok()?);
    if csize <= 0 || csize as usize == block_len {
        return None;
    }
    src.get(4..4 + csize as usize)
}
