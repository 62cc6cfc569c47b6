//! The chunk decoder: a chunk's header, block table and dictionary checked and opened
//! ([`Chunk`]), and its blocks decoded whole, for every chunk format c-blosc 1.x and c-blosc2
//! wrote.

use super::copy::copy_bytes;
use super::header::*;
use super::params::{BlockInfo, DParams};
use super::pipeline::{self, Backward, Dref, Loc};
use super::scratch::{grow_to, Scratch};
use super::stream::{decode_stream, next_stream, Stream};
use crate::codecs::{self, zstd::PreparedDict, Dict};
use crate::filters::{bytedelta, shuffle};
use crate::{Error, Result};

/// Largest dictionary accepted when reading (c-blosc2 2.x wrote up to 128 KiB).
pub(super) const MAX_READ_DICT: i32 = 128 * 1024;

/// Source of the blocks of a lazy chunk (one read from a frame on disk).
pub trait LazyBlocks: Sync {
    /// Reads `len` bytes of chunk `nchunk` at `offset` within the chunk (which starts at
    /// `chunk_offset` in its frame).
    fn read_block(&self, nchunk: i32, chunk_offset: i64, offset: i64, len: i32) -> Result<Vec<u8>>;
}

/// A chunk ready to decode: header, block table, dictionary.
pub(crate) struct Chunk<'a> {
    pub header: ChunkHeader,
    pub src: &'a [u8],
    pub(super) nblocks: usize,
    pub(super) leftover: usize,
    bstarts: &'a [u8],
    zdict: Option<PreparedDict>,
    lz4dict: Option<&'a [u8]>,
    lazy: Option<Lazy<'a>>,
}

/// Where the blocks of a lazy chunk are: its frame position and per-block compressed sizes.
struct Lazy<'a> {
    reader: &'a dyn LazyBlocks,
    nchunk: i32,
    offset: i64,
    bsizes: &'a [u8],
}

impl<'a> Chunk<'a> {
    /// Parses and validates a chunk for decompression into a buffer of `destsize` bytes.
    pub fn open(src: &'a [u8], destsize: usize) -> Result<Chunk<'a>> {
        Self::open_with(src, destsize, None)
    }

    /// Like `open`, with the reader of a lazy chunk's blocks.
    pub fn open_with(
        src: &'a [u8],
        destsize: usize,
        reader: Option<&'a dyn LazyBlocks>,
    ) -> Result<Chunk<'a>> {
        let header = ChunkHeader::parse(src)?;
        if header.nbytes as usize > destsize {
            return Err(Error::WriteBuffer);
        }
        if !header.is_lazy() && header.cbytes as usize > src.len() {
            return Err(Error::InvalidHeader);
        }
        Self::with_header(header, src, reader)
    }

    pub(super) fn with_header(
        header: ChunkHeader,
        src: &'a [u8],
        reader: Option<&'a dyn LazyBlocks>,
    ) -> Result<Chunk<'a>> {
        header.special()?;
        let hl = header.header_len();
        if header.memcpyed() && header.cbytes as i64 != header.nbytes as i64 + hl as i64 {
            return Err(Error::Data);
        }
        let (nblocks, leftover) = header.nblocks_leftover();
        let mut chunk = Chunk {
            header,
            src,
            nblocks,
            leftover,
            bstarts: &[],
            zdict: None,
            lz4dict: None,
            lazy: None,
        };
        if header.special_raw() != 0 || header.nbytes == 0 {
            return Ok(chunk);
        }
        let bstarts_end = hl + 4 * nblocks;
        if header.is_lazy() {
            // Lazy chunk: header, block starts, then nchunk (i32), offset (i64), block sizes.
            let reader = reader.ok_or(Error::InvalidParam)?;
            let trailer = src
                .get(bstarts_end..bstarts_end + 12 + 4 * nblocks)
                .ok_or(Error::ReadBuffer)?;
            chunk.bstarts = &src[hl..bstarts_end];
            chunk.lazy = Some(Lazy {
                reader,
                nchunk: i32::from_le_bytes(trailer[0..4].try_into().unwrap()),
                offset: i64::from_le_bytes(trailer[4..12].try_into().unwrap()),
                bsizes: &trailer[12..],
            });
            if header.use_dict() {
                return Err(Error::CodecDict);
            }
            return Ok(chunk);
        }
        if header.memcpyed() {
            return Ok(chunk);
        }
        if src.len() < bstarts_end {
            return Err(Error::ReadBuffer);
        }
        chunk.bstarts = &src[hl..bstarts_end];
        if header.use_dict() {
            if src.len() < bstarts_end + 4 {
                return Err(Error::ReadBuffer);
            }
            let dsize = i32::from_le_bytes(src[bstarts_end..bstarts_end + 4].try_into().unwrap());
            if dsize <= 0 || dsize > MAX_READ_DICT {
                return Err(Error::CodecDict);
            }
            let dstart = bstarts_end + 4;
            if src.len() < dstart + dsize as usize {
                return Err(Error::ReadBuffer);
            }
            let dict = &src[dstart..dstart + dsize as usize];
            match header.compformat() {
                codecs::ZSTD_FORMAT => chunk.zdict = Some(PreparedDict::for_decompression(dict)),
                codecs::LZ4_FORMAT => chunk.lz4dict = Some(dict),
                _ => return Err(Error::CodecDict),
            }
        }
        Ok(chunk)
    }

    pub(super) fn block_len(&self, nblock: usize) -> usize {
        if nblock == self.nblocks - 1 && self.leftover > 0 {
            self.leftover
        } else {
            self.header.blocksize as usize
        }
    }

    /// Where block `nblock`'s streams start; 0 (never a valid start, callers reject it) when
    /// the chunk has no such entry, e.g. a VL-block flag on a special or empty chunk.
    pub(crate) fn bstart(&self, nblock: usize) -> i32 {
        match self.bstarts.get(4 * nblock..4 * nblock + 4) {
            Some(b) => i32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            None => 0,
        }
    }

    /// Errors with `Data` unless block `nblock` has a start inside the chunk (for a lazy chunk,
    /// a positive one: its bytes are read from the frame).
    pub(super) fn check_block_start(&self, nblock: usize) -> Result<()> {
        let start = self.bstart(nblock);
        let inside = self.lazy.is_some() || (start as usize) < self.src.len();
        if start <= 0 || !inside {
            return Err(Error::Data);
        }
        Ok(())
    }

    pub(crate) fn dict(&self) -> Dict<'_> {
        match (&self.zdict, self.lz4dict) {
            (Some(z), _) => Dict::Zstd(z),
            (_, Some(l)) => Dict::Lz4(l),
            _ => Dict::None,
        }
    }

    pub(super) fn has_delta(&self) -> bool {
        self.header.filters.contains(&DELTA)
    }

    /// Fills `out` (a block's worth starting at byte `offset` of the chunk, or a part of one
    /// block) for a special or memcpyed chunk. Special values fill `out` from its start, as
    /// c-blosc2 fills each block or getitem segment.
    pub(super) fn fill_plain(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        let ts = self.header.typesize as usize;
        match self.header.special()? {
            Special::Zero => out.fill(0),
            Special::Uninit => {}
            Special::Nan => match ts {
                4 => fill_pattern(out, &f32::NAN.to_le_bytes()),
                8 => fill_pattern(out, &f64::NAN.to_le_bytes()),
                _ => return Err(Error::Data),
            },
            Special::Value => {
                // The value is what follows the header (cbytes - 32 bytes, the typesize when
                // written): c-blosc2 repeats those bytes whatever the header's typesize says.
                let v = self
                    .src
                    .get(EXTENDED_HEADER_LENGTH..self.header.cbytes as usize)
                    .filter(|v| !v.is_empty())
                    .ok_or(Error::ReadBuffer)?;
                if !out.len().is_multiple_of(v.len()) {
                    return Err(Error::Data);
                }
                fill_pattern(out, v);
            }
            Special::None => {
                let start = self.header.header_len() + offset;
                if let Some(lazy) = &self.lazy {
                    let bytes = lazy.reader.read_block(
                        lazy.nchunk,
                        lazy.offset,
                        start as i64,
                        out.len() as i32,
                    )?;
                    if bytes.len() != out.len() {
                        return Err(Error::ReadBuffer);
                    }
                    out.copy_from_slice(&bytes);
                    return Ok(());
                }
                let s = self
                    .src
                    .get(start..start + out.len())
                    .ok_or(Error::ReadBuffer)?;
                copy_bytes(out, s);
            }
        }
        Ok(())
    }

    /// Block `nblock` (`block` its full length) of a special or memcpyed chunk, through the
    /// postfilter when there is one (c-blosc2 runs it on these blocks too).
    pub(super) fn plain_block(
        &self,
        dparams: &DParams,
        nblock: usize,
        block: &mut [u8],
        tid: usize,
    ) -> Result<()> {
        let offset = nblock * self.header.blocksize as usize;
        self.fill_plain(offset, block)?;
        if let Some(post) = &dparams.postfilter {
            let input = block.to_vec();
            let info = BlockInfo {
                typesize: self.header.typesize as i32,
                offset: offset as i32,
                nblock: nblock as i32,
                tid: tid as i32,
            };
            if post.call(&input, block, info) != 0 {
                return Err(Error::Postfilter);
            }
        }
        Ok(())
    }

    /// Bytes `start..start + out.len()` of a special or memcpyed chunk without a postfilter:
    /// a repeated value fills each block's part from the value's start, as c-blosc2 does.
    pub(super) fn fill_plain_range(&self, start: usize, out: &mut [u8]) -> Result<()> {
        if self.header.special()? != Special::Value {
            return self.fill_plain(start, out);
        }
        let bs = self.header.blocksize as usize;
        let mut at = start;
        for part in split_at_blocks(out, start, bs) {
            self.fill_plain(at, part)?;
            at += part.len();
        }
        Ok(())
    }

    /// The compressed bytes of block `nblock` (its streams), from the chunk or, for a lazy
    /// chunk, read from the frame.
    pub(super) fn block_src(&self, nblock: usize) -> Result<std::borrow::Cow<'a, [u8]>> {
        let src_offset = self.bstart(nblock);
        if let Some(lazy) = &self.lazy {
            let b = lazy
                .bsizes
                .get(4 * nblock..4 * nblock + 4)
                .ok_or(Error::Data)?;
            let bsize_c = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            if src_offset <= 0 || bsize_c < 0 {
                return Err(Error::Data);
            }
            let bytes =
                lazy.reader
                    .read_block(lazy.nchunk, lazy.offset, src_offset as i64, bsize_c)?;
            return Ok(std::borrow::Cow::Owned(bytes));
        }
        if src_offset <= 0 || src_offset as usize >= self.src.len() {
            return Err(Error::Data);
        }
        Ok(std::borrow::Cow::Borrowed(&self.src[src_offset as usize..]))
    }

    /// How many codec streams block `nblock` (of `bsize` bytes) has and how long each is.
    pub(super) fn stream_layout(&self, nblock: usize, bsize: usize) -> Result<(usize, usize)> {
        let leftover_block = nblock == self.nblocks - 1 && self.leftover > 0;
        let nstreams = if !self.header.dont_split() && !leftover_block {
            self.header.typesize as usize
        } else {
            1
        };
        let neblock = bsize / nstreams;
        if neblock == 0 {
            return Err(Error::Failure);
        }
        Ok((nstreams, neblock))
    }

    /// Decodes block `nblock` into `dest` (its full length). `dref` is block 0's decoded data
    /// when DELTA needs it.
    pub(super) fn decode_block<'d>(
        &self,
        bw: &Backward<'_>,
        nblock: usize,
        dest: &mut [u8],
        dref: impl Into<Dref<'d>>,
        tid: usize,
        s: &mut Scratch,
    ) -> Result<()> {
        let h = &self.header;
        let bsize = dest.len();
        let offset = nblock * h.blocksize as usize;
        // A corrupt header can claim blocks of up to 512 MiB: check the block's start before
        // sizing the scratch buffers for it.
        self.check_block_start(nblock)?;
        s.ensure(h.blocksize as usize);
        let block_src = self.block_src(nblock)?;
        let src: &[u8] = &block_src;
        let (nstreams, neblock) = self.stream_layout(nblock, bsize)?;
        let has_post = bw.dparams.postfilter.is_some();
        let Scratch { bufs, codec, .. } = s;
        if let Some((rest, bytedelta)) = scattered_unshuffle(bw, nstreams, neblock, bsize) {
            // Streams stored as they are stay in the chunk: the unshuffle reads them there.
            let mut raw: [Option<&[u8]>; MAX_SCATTERED_STREAMS] = [None; MAX_SCATTERED_STREAMS];
            self.decode_streams(
                h,
                bw.dparams,
                src,
                &mut bufs[0][..bsize],
                nstreams,
                Some(&mut raw[..nstreams]),
                codec,
            )?;
            let (decoded, others) = bufs.split_at_mut(1);
            let mut streams: [&[u8]; MAX_SCATTERED_STREAMS] = [&[]; MAX_SCATTERED_STREAMS];
            for (j, (stream, r)) in streams.iter_mut().zip(raw).take(nstreams).enumerate() {
                *stream = r.unwrap_or(&decoded[0][j * neblock..(j + 1) * neblock]);
            }
            let dref: Dref<'_> = dref.into();
            if let ([(DELTA, _)], false, true) = (rest, bytedelta, offset != 0) {
                // DELTA after the first block is a XOR with block 0: done as the unshuffle
                // stores, in one pass over the block.
                let block0 = dref.get()?;
                if block0.len() >= bsize {
                    shuffle::unshuffle_streams_xor(&streams[..nstreams], &block0[..bsize], dest);
                    return Ok(());
                }
            }
            let rest_bw = Backward { steps: rest, ..*bw };
            let start = if rest.first().is_none_or(|f| f.0 == DELTA) {
                unshuffle_into(&streams[..nstreams], dest, bytedelta)?;
                Loc::Outer
            } else {
                grow_to(&mut others[0], bsize);
                unshuffle_into(&streams[..nstreams], &mut others[0][..bsize], bytedelta)?;
                Loc::Buf(1)
            };
            if !rest.is_empty() {
                pipeline::backward(&rest_bw, start, dest, dref, offset, nblock, tid, bufs)?;
            }
            return Ok(());
        }
        let target = pipeline::decode_target(bw.steps, has_post);
        {
            let out: &mut [u8] = match target {
                Loc::Outer => &mut *dest,
                Loc::Buf(i) => &mut bufs[i][..bsize],
            };
            self.decode_streams(h, bw.dparams, src, out, nstreams, None, codec)?;
        }
        if !bw.steps.is_empty() || has_post {
            pipeline::backward(bw, target, dest, dref.into(), offset, nblock, tid, bufs)?;
        }
        Ok(())
    }

    /// Decodes the `nstreams` codec streams of a block from `src` into `out`, `out.len() /
    /// nstreams` bytes each. With `raw`, a stream stored as it is is not copied: `raw[j]` gets
    /// its bytes in `src` instead (its place in `out` is left as it was).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn decode_streams<'s>(
        &self,
        h: &ChunkHeader,
        dparams: &DParams,
        mut src: &'s [u8],
        out: &mut [u8],
        nstreams: usize,
        mut raw: Option<&mut [Option<&'s [u8]>]>,
        codec: &mut codecs::CodecScratch,
    ) -> Result<()> {
        let neblock = out.len() / nstreams;
        let dict = self.dict();
        for j in 0..nstreams {
            let o = &mut out[j * neblock..(j + 1) * neblock];
            match next_stream(&mut src)? {
                Stream::Repeat(byte) => o.fill(byte),
                Stream::Coded(cdata) => {
                    if cdata.len() == neblock {
                        match raw.as_deref_mut() {
                            Some(r) => r[j] = Some(cdata),
                            None => copy_bytes(o, cdata),
                        }
                        continue;
                    }
                    let n = decode_stream(h, cdata, o, &dict, dparams, codec, self.src)?;
                    if n != neblock {
                        return Err(Error::Data);
                    }
                }
            }
        }
        Ok(())
    }
}

/// Most byte streams [`scattered_unshuffle`] takes (typesizes above keep the plain path).
pub(super) const MAX_SCATTERED_STREAMS: usize = 32;

/// Whether the backward steps open with a BYTEDELTA over `nstreams` streams that a fused
/// BYTEDELTA+unshuffle kernel can undo, and the steps left after it.
pub(super) fn fused_bytedelta<'b>(bw: &Backward<'b>, nstreams: usize) -> (bool, &'b [(u8, u8)]) {
    match bw.steps {
        [(pipeline::BYTEDELTA, m), rest @ ..]
            if pipeline::bytedelta_streams(*m, bw.dparams.schunk_typesize, Error::Failure)
                == Ok(nstreams)
                && bytedelta::has_backward_unshuffle(nstreams) =>
        {
            (true, rest)
        }
        steps => (false, steps),
    }
}

/// When a block's first backward step is a SHUFFLE whose byte streams are exactly the codec's
/// streams (and no postfilter wants the unfiltered block), the unshuffle can read each stream
/// where it is, in the decoder's buffer or, when stored as it is, in the chunk: returns the
/// steps after that SHUFFLE. Also when a BYTEDELTA over the same streams comes first and a
/// kernel does both at once (then `true`).
pub(super) fn scattered_unshuffle<'b>(
    bw: &Backward<'b>,
    nstreams: usize,
    neblock: usize,
    bsize: usize,
) -> Option<(&'b [(u8, u8)], bool)> {
    let (bytedelta, steps) = fused_bytedelta(bw, nstreams);
    let (&(f, meta), rest) = steps.split_first()?;
    let fits = f == SHUFFLE
        && nstreams > 1
        && nstreams <= MAX_SCATTERED_STREAMS
        && shuffle::streams_for_meta(bw.typesize, meta) == nstreams
        && nstreams * neblock == bsize
        && bw.dparams.postfilter.is_none();
    fits.then_some((rest, bytedelta))
}

/// Unshuffles `streams` into `dst`, after undoing BYTEDELTA on them when `bytedelta`.
pub(super) fn unshuffle_into(streams: &[&[u8]], dst: &mut [u8], bytedelta: bool) -> Result<()> {
    if !bytedelta {
        shuffle::unshuffle_streams(streams, dst);
    } else if !bytedelta::bytedelta_backward_unshuffle(streams, dst) {
        // `scattered_unshuffle` and `decode_block_part` checked that the kernel exists.
        return Err(Error::Failure);
    }
    Ok(())
}

/// `out` cut where the blocks of `bs` bytes of a chunk end, `out` starting at byte `start`.
pub(super) fn split_at_blocks(
    out: &mut [u8],
    start: usize,
    bs: usize,
) -> impl Iterator<Item = &mut [u8]> {
    let first = (bs - start % bs).min(out.len());
    let (head, rest) = out.split_at_mut(first);
    std::iter::once(head)
        .chain(rest.chunks_mut(bs))
        .filter(|p| !p.is_empty())
}

/// Bytes a pattern fill doubles up to before copying that prefix along the rest: a source that
/// stays in L1 while the copies run at memcpy speed.
pub(super) const FILL_PERIOD: usize = 16 * 1024;

/// Repeats `pat` over `out` (a last partial copy truncated): the pattern once, then copies of
/// what is filled, doubling up to [`FILL_PERIOD`] bytes, then that prefix copied along (a
/// copy per item ran 12 times slower than c-blosc2's typed loops).
pub(super) fn fill_pattern(out: &mut [u8], pat: &[u8]) {
    if pat.is_empty() || out.is_empty() {
        return;
    }
    let first = pat.len().min(out.len());
    out[..first].copy_from_slice(&pat[..first]);
    let mut filled = first;
    // Whole copies of the pattern only, so every copy below starts on a pattern boundary.
    let period_cap = (FILL_PERIOD / pat.len()).max(1) * pat.len();
    while filled < out.len() {
        let n = filled.min(period_cap).min(out.len() - filled);
        let (done, todo) = out.split_at_mut(filled);
        todo[..n].copy_from_slice(&done[..n]);
        filled += n;
    }
}
