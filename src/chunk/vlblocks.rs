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
/// it through the context's super-chunk; without one it is an invalid parameter. The whole
/// chunk is read, but its trailer is checked as c-blosc2, which reads only the block, checks
/// it (see `LazyTrailer::check`).
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
    let trailer = LazyTrailer::check(&h, src, nblock)?;
    let whole = reader.read_block(trailer.nchunk, trailer.position, 0, h.cbytes)?;
    let block = decompress_block(dparams, &whole, nblock)?;
    // c-blosc2 reads as many bytes of the block as the trailer says: fewer than the block has
    // do not decode, and more than the largest block could have are a bad header.
    if trailer.block_csize < trailer.block_span {
        return Err(Error::Data);
    }
    let most = (trailer.largest_span as i64).max(block.len() as i64) + 4 * h.typesize as i64;
    if trailer.block_csize as i64 > most {
        return Err(Error::InvalidHeader);
    }
    Ok(block)
}

/// What the trailer of a lazy VL-block chunk says about one block, checked as c-blosc2 checks
/// it before reading the block (although the whole chunk is read here, from its position).
struct LazyTrailer {
    nchunk: i32,
    position: i64,
    /// The block's compressed size as the trailer states it.
    block_csize: i32,
    /// The distance from the block's start to the next one's (or to the chunk's end).
    block_span: i32,
    /// The largest distance between consecutive block starts (the last block's runs to the
    /// chunk's end).
    largest_span: i32,
}

impl LazyTrailer {
    /// The lazy chunk `src` (header `h`) is its header, its block starts, then the chunk's
    /// number (i32), its position in the frame (i64) and each block's compressed size (i32).
    /// The trailer must be whole (`ReadBuffer`), the block starts in order inside the chunk,
    /// the block's size more than its 4-byte size prefix and the chunk's position not
    /// negative (`InvalidHeader`), `nblock` one of its blocks (`InvalidParam`).
    fn check(h: &ChunkHeader, src: &[u8], nblock: i32) -> Result<LazyTrailer> {
        let (nblocks, _) = h.nblocks_leftover();
        let bstarts_end = EXTENDED_HEADER_LENGTH + 4 * nblocks;
        let trailer = src
            .get(bstarts_end..bstarts_end + 12 + 4 * nblocks)
            .ok_or(Error::ReadBuffer)?;
        let le32 = |b: &[u8], i: usize| i32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let starts = &src[EXTENDED_HEADER_LENGTH..bstarts_end];
        let mut spans = Vec::with_capacity(nblocks);
        for i in 0..nblocks {
            let start = le32(starts, 4 * i);
            let next = if i + 1 < nblocks {
                le32(starts, 4 * (i + 1))
            } else {
                h.cbytes
            };
            if (start as i64) < bstarts_end as i64 || next <= start || next > h.cbytes {
                return Err(Error::InvalidHeader);
            }
            spans.push(next - start);
        }
        let n = usize::try_from(nblock)
            .ok()
            .filter(|n| *n < nblocks)
            .ok_or(Error::InvalidParam)?;
        let block_csize = le32(trailer, 12 + 4 * n);
        let mut position = [0u8; 8];
        position.copy_from_slice(&trailer[4..12]);
        let position = i64::from_le_bytes(position);
        if block_csize <= 4 || position < 0 {
            return Err(Error::InvalidHeader);
        }
        Ok(LazyTrailer {
            nchunk: le32(trailer, 0),
            position,
            block_csize,
            block_span: spans[n],
            largest_span: spans.iter().copied().max().unwrap_or(0),
        })
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame holding one chunk at `position` (the chunk's bytes after `position` filler).
    struct OneChunk(Vec<u8>);

    impl LazyBlocks for OneChunk {
        fn read_block(&self, _: i32, chunk_offset: i64, offset: i64, len: i32) -> Result<Vec<u8>> {
            let at = (chunk_offset + offset) as usize;
            self.0
                .get(at..at + len as usize)
                .map(<[u8]>::to_vec)
                .ok_or(Error::ReadBuffer)
        }
    }

    /// The trailer of a lazy VL-block chunk is checked as c-blosc2 checks it before reading a
    /// block, although the whole chunk is read: a block size that cannot hold the block's size
    /// prefix, a negative position, starts out of order, a short trailer are refused; a size
    /// below the block's span does not decode, one over any block's is a bad header.
    #[test]
    fn lazy_trailers_are_checked() {
        let texts: [&[u8]; 3] = [b"one block", b"another, longer block of text", b"3"];
        let mut chunk = vec![0u8; 512];
        let params = CParams {
            typesize: 1,
            ..Default::default()
        };
        let n = vlcompress(&params, &texts, &mut chunk).unwrap();
        chunk.truncate(n);
        let position = 100usize;
        let mut frame = vec![0xAAu8; position];
        frame.extend_from_slice(&chunk);
        let reader = OneChunk(frame);

        let bstarts_end = EXTENDED_HEADER_LENGTH + 12;
        let start = |i: usize| le(&chunk, EXTENDED_HEADER_LENGTH + 4 * i);
        let mut lazy = chunk[..bstarts_end].to_vec();
        lazy[31] |= LAZY_CHUNK;
        lazy.extend_from_slice(&7i32.to_le_bytes());
        lazy.extend_from_slice(&(position as i64).to_le_bytes());
        for i in 0..3 {
            let end = if i < 2 { start(i + 1) } else { n as i32 };
            lazy.extend_from_slice(&(end - start(i)).to_le_bytes());
        }
        let csize_at = bstarts_end + 12;
        let dp = DParams::default();
        let read = |l: &[u8], b: i32| decompress_block_maybe_lazy(&dp, l, b, Some(&reader));
        for (b, text) in texts.iter().enumerate() {
            assert_eq!(read(&lazy, b as i32).as_deref(), Ok(*text));
        }
        assert_eq!(read(&lazy, 3), Err(Error::InvalidParam));
        assert_eq!(
            decompress_block_maybe_lazy(&dp, &lazy, 0, None),
            Err(Error::InvalidParam)
        );

        let with = |at: usize, bytes: &[u8]| {
            let mut l = lazy.clone();
            l[at..at + bytes.len()].copy_from_slice(bytes);
            l
        };
        let span0 = start(1) - start(0);
        for (csize, want) in [
            (1, Err(Error::InvalidHeader)),
            (4, Err(Error::InvalidHeader)),
            (-3, Err(Error::InvalidHeader)),
            (span0 - 1, Err(Error::Data)),
            (span0 + 2, Ok(texts[0])),
            (1 << 30, Err(Error::InvalidHeader)),
        ] {
            let l = with(csize_at, &csize.to_le_bytes());
            assert_eq!(
                read(&l, 0),
                want.map(<[u8]>::to_vec),
                "block 0 of size {csize}"
            );
            // Only the block read is checked.
            assert_eq!(read(&l, 1).as_deref(), Ok(texts[1]));
        }
        let l = with(bstarts_end + 4, &(-8i64).to_le_bytes());
        assert_eq!(read(&l, 0), Err(Error::InvalidHeader));
        let l = with(EXTENDED_HEADER_LENGTH, &start(1).to_le_bytes());
        assert_eq!(read(&l, 2), Err(Error::InvalidHeader));
        assert_eq!(read(&lazy[..lazy.len() - 1], 0), Err(Error::ReadBuffer));
    }

    fn le(b: &[u8], at: usize) -> i32 {
        i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }
}
