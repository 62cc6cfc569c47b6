//! Variable-length-block chunks (chunk format 6): each block is a separate buffer of its own
//! size, compressed as one stream, individually decompressible. The header's blocksize field
//! holds the number of blocks and each stream's size field the block's *uncompressed* size.

use super::compress::{MAXDICTSIZE, MINUSEFULDICT};
use super::decoder::{Chunk, LazyBlocks};
use super::header::*;
use super::params::{CParams, DParams};
use super::pipeline::{self, Backward, Loc};
use super::scratch::with_scratch;
use crate::codecs::{self, Dict};
use crate::{Error, Result};

/// Compresses `blocks` into one VL-block chunk in `dst`; returns its size (0 if it does not fit,
/// [`Error::MaxBufsizeExceeded`] if `dst` is shorter than the largest chunk header).
pub fn vlcompress(params: &CParams, blocks: &[&[u8]], dst: &mut [u8]) -> Result<usize> {
    if blocks.is_empty() || blocks.iter().any(|b| b.is_empty()) {
        return Err(Error::InvalidParam);
    }
    // As for regular chunks, c-blosc2 asks the tuner before it checks the parameters.
    params.consult_tuner()?;
    super::compress::validate(params)?;
    let total: usize = blocks.iter().map(|b| b.len()).sum();
    if total as i64 > MAX_BUFFERSIZE {
        return Err(Error::MaxBufsizeExceeded);
    }
    // As for regular chunks, a destination that cannot hold the largest header is refused
    // (c-blosc2 checks it when it sets up the context).
    if dst.len() < MAX_OVERHEAD {
        return Err(Error::MaxBufsizeExceeded);
    }
    let typesize: i32 = if params.typesize > MAX_TYPESIZE as i32 || params.typesize <= 0 {
        1
    } else {
        params.typesize
    };
    if params.use_dict && !matches!(params.compcode, codecs::ZSTD | codecs::LZ4 | codecs::LZ4HC) {
        return Err(Error::CodecParam);
    }
    let nblocks = blocks.len();
    let mut header = ChunkHeader {
        version: VERSION_FORMAT_VL_BLOCKS,
        versionlz: 1,
        flags: DOSHUFFLE | DOBITSHUFFLE | DONT_SPLIT | (codecs::compformat(params.compcode) << 5),
        typesize: typesize as u8,
        nbytes: total as i32,
        blocksize: nblocks as i32,
        cbytes: 0,
        filters: params.filters,
        udcompcode: params.compcode,
        compcode_meta: params.compcode_meta,
        filters_meta: params.filters_meta,
        blosc2_flags2: VL_BLOCKS,
        blosc2_flags: 0,
        extended: true,
    };
    header.flags |= flags_from_filters(&params.filters) & DODELTA;
    let ts = typesize as usize;
    // Filter every block first (dictionary training needs the filtered data).
    let filtered: Vec<Vec<u8>> = with_scratch(|s| -> Result<Vec<Vec<u8>>> {
        let mut out = Vec::with_capacity(nblocks);
        for (i, b) in blocks.iter().enumerate() {
            s.ensure(b.len());
            let loc = pipeline::forward(params, ts, b, 0, b.len(), i, 0, &mut s.bufs)?;
            out.push(match loc {
                Loc::Outer => b.to_vec(),
                Loc::Buf(k) => s.bufs[k][..b.len()].to_vec(),
            });
        }
        Ok(out)
    })?;
    let mut dict_bytes = None;
    if params.use_dict && total / 20 >= MINUSEFULDICT && nblocks >= 8 {
        let concat: Vec<u8> = filtered.concat();
        let sizes: Vec<usize> = filtered.iter().map(|b| b.len()).collect();
        if let Ok(d) = codecs::zstd::train_dict(&concat, &sizes, MAXDICTSIZE.min(total / 20)) {
            header.blosc2_flags |= USEDICT;
            dict_bytes = Some(d);
        }
    }
    let prepared;
    let dict = match (&dict_bytes, params.compcode) {
        (Some(d), codecs::ZSTD) => {
            prepared = codecs::zstd::PreparedDict::for_compression(d, params.clevel as i32);
            Dict::Zstd(&prepared)
        }
        (Some(d), _) => Dict::Lz4(d),
        _ => Dict::None,
    };
    let bstarts_at = EXTENDED_HEADER_LENGTH;
    let dict_at = bstarts_at + 4 * nblocks;
    let mut pos = dict_at + dict_bytes.as_ref().map_or(0, |d| 4 + d.len());
    if pos > dst.len() {
        return Ok(0);
    }
    if let Some(d) = &dict_bytes {
        dst[dict_at..dict_at + 4].copy_from_slice(&(d.len() as i32).to_le_bytes());
        dst[dict_at + 4..dict_at + 4 + d.len()].copy_from_slice(d);
    }
    let ok = with_scratch(|s| -> Result<bool> {
        for (i, data) in filtered.iter().enumerate() {
            let size = data.len();
            if pos + 4 > dst.len() {
                return Ok(false);
            }
            dst[bstarts_at + 4 * i..bstarts_at + 4 * i + 4]
                .copy_from_slice(&(pos as i32).to_le_bytes());
            dst[pos..pos + 4].copy_from_slice(&(size as i32).to_le_bytes());
            pos += 4;
            let maxout = size.min(dst.len() - pos);
            let out = &mut dst[pos..pos + maxout];
            // A VL-block chunk has no single source buffer: the block is the encoder's.
            let n = super::stream::encode_stream(params, data, out, &dict, &mut s.codec, data)?;
            let n = if n == 0 || n >= size {
                // Not compressible: stored raw, recognisable by its length equal to the size.
                if pos + size > dst.len() {
                    return Ok(false);
                }
                dst[pos..pos + size].copy_from_slice(data);
                size
            } else {
                n
            };
            pos += n;
        }
        Ok(true)
    })?;
    if !ok {
        return Ok(0);
    }
    header.cbytes = pos as i32;
    header.write(dst);
    Ok(pos)
}

/// Number of blocks of a VL-block chunk.
pub fn nblocks(src: &[u8]) -> Result<i32> {
    let h = ChunkHeader::parse(src)?;
    if !h.is_vl_blocks() {
        return Err(Error::InvalidParam);
    }
    Ok(h.blocksize)
}

/// Where block `nblock`'s stream is: (start of compressed data, its length, uncompressed size).
fn locate(chunk: &Chunk<'_>, nblock: usize) -> Result<(usize, usize, usize)> {
    let h = &chunk.header;
    let nb = h.blocksize as usize;
    if nblock >= nb {
        return Err(Error::InvalidParam);
    }
    let start = chunk.bstart(nblock);
    let end = if nblock + 1 < nb {
        chunk.bstart(nblock + 1)
    } else {
        h.cbytes
    };
    if start <= 0 || (end as i64) < start as i64 + 4 || end as usize > chunk.src.len() {
        return Err(Error::Data);
    }
    let (start, end) = (start as usize, end as usize);
    let usize_ = i32::from_le_bytes(chunk.src[start..start + 4].try_into().unwrap());
    // The blocks add up to the chunk's nbytes: a larger one is corrupt (and would make us
    // allocate and fill up to 2 GiB).
    if usize_ <= 0 || usize_ > h.nbytes {
        return Err(Error::Data);
    }
    Ok((start + 4, end - start - 4, usize_ as usize))
}

/// Decompresses block `nblock` of a VL-block chunk into `out` (exactly its size long).
fn decode_into(dparams: &DParams, chunk: &Chunk<'_>, nblock: usize, out: &mut [u8]) -> Result<()> {
    let h = chunk.header;
    let (cstart, clen, size) = locate(chunk, nblock)?;
    if out.len() != size {
        return Err(Error::WriteBuffer);
    }
    let cdata = &chunk.src[cstart..cstart + clen];
    let steps = pipeline::backward_steps(&h.filters, &h.filters_meta);
    let bw = Backward {
        steps: &steps,
        typesize: h.typesize as usize,
        format_version: h.version,
        dparams,
    };
    let target = pipeline::decode_target(&steps, dparams.postfilter.is_some());
    with_scratch(|s| -> Result<()> {
        s.ensure(size);
        let super::scratch::Scratch { bufs, codec, .. } = s;
        {
            let o: &mut [u8] = match target {
                Loc::Outer => &mut *out,
                Loc::Buf(i) => &mut bufs[i][..size],
            };
            if clen == size {
                o.copy_from_slice(cdata);
            } else {
                let n = super::stream::decode_stream(
                    &h,
                    cdata,
                    o,
                    &chunk.dict(),
                    dparams,
                    codec,
                    chunk.src,
                )?;
                if n != size {
                    return Err(Error::Data);
                }
            }
        }
        if !steps.is_empty() || dparams.postfilter.is_some() {
            pipeline::backward(&bw, target, out, pipeline::Dref::None, 0, nblock, 0, bufs)?;
        }
        Ok(())
    })
}

/// Decompresses one block of a VL-block chunk into a new buffer.
pub fn decompress_block(dparams: &DParams, src: &[u8], nblock: i32) -> Result<Vec<u8>> {
    let chunk = open(src)?;
    if nblock < 0 {
        return Err(Error::InvalidParam);
    }
    let (_, _, size) = locate(&chunk, nblock as usize)?;
    let mut out = vec![0u8; size];
    decode_into(dparams, &chunk, nblock as usize, &mut out)?;
    Ok(out)
}

/// Decompresses one block of a VL-block chunk that may be a lazy one (from
/// `blosc2_schunk_get_lazychunk` of a super-chunk on disk: header, block starts and where the
/// chunk is): a lazy chunk is read through `lazy`, its super-chunk's frame, as c-blosc2 reads
/// it through the context's super-chunk; without one it is an invalid parameter.
pub fn decompress_block_maybe_lazy(
    dparams: &DParams,
    src: &[u8],
    nblock: i32,
    lazy: Option<&dyn LazyBlocks>,
) -> Result<Vec<u8>> {
    let h = ChunkHeader::parse(src)?;
    if !h.is_lazy() {
        return decompress_block(dparams, src, nblock);
    }
    if !h.is_vl_blocks() {
        return Err(Error::InvalidParam);
    }
    let reader = lazy.ok_or(Error::InvalidParam)?;
    let (nblocks, _) = h.nblocks_leftover();
    // The lazy chunk's trailer: the chunk's number and its position in the frame.
    let at = EXTENDED_HEADER_LENGTH + 4 * nblocks;
    let trailer = src.get(at..at + 12).ok_or(Error::ReadBuffer)?;
    let nchunk = i32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let mut position = [0u8; 8];
    position.copy_from_slice(&trailer[4..12]);
    let whole = reader.read_block(nchunk, i64::from_le_bytes(position), 0, h.cbytes)?;
    decompress_block(dparams, &whole, nblock)
}

/// Decompresses every block of a VL-block chunk into separate buffers.
pub fn decompress_blocks(dparams: &DParams, src: &[u8]) -> Result<Vec<Vec<u8>>> {
    let chunk = open(src)?;
    let mut total = 0;
    (0..chunk.header.blocksize as usize)
        .map(|i| {
            let (_, _, size) = locate(&chunk, i)?;
            total += size;
            if total > chunk.header.nbytes as usize {
                return Err(Error::Data);
            }
            let mut out = vec![0u8; size];
            decode_into(dparams, &chunk, i, &mut out)?;
            Ok(out)
        })
        .collect()
}

/// Decompresses every block of a VL-block chunk, concatenated, into `dst`.
pub(crate) fn decompress_concat(
    dparams: &DParams,
    chunk: &Chunk<'_>,
    dst: &mut [u8],
) -> Result<usize> {
    let mut pos = 0;
    for i in 0..chunk.header.blocksize as usize {
        let (_, _, size) = locate(chunk, i)?;
        if pos + size > dst.len() {
            return Err(Error::Data);
        }
        decode_into(dparams, chunk, i, &mut dst[pos..pos + size])?;
        pos += size;
    }
    if pos != chunk.header.nbytes as usize {
        return Err(Error::Data);
    }
    Ok(pos)
}

fn open(src: &[u8]) -> Result<Chunk<'_>> {
    let h = ChunkHeader::parse(src)?;
    if !h.is_vl_blocks() {
        return Err(Error::InvalidParam);
    }
    if h.cbytes as usize > src.len() {
        return Err(Error::InvalidHeader);
    }
    Chunk::open(src, h.nbytes as usize)
}
