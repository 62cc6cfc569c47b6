//! Chunk decompression and getitem, for every chunk format c-blosc 1.x and c-blosc2 wrote.

use super::copy::copy_bytes;
use super::header::*;
use super::params::{ArrayLayout, BlockInfo, DParams};
use super::pipeline::{self, Backward, Dref, Loc};
use super::scratch::{reuse, with_scratch, Scratch};
use crate::codecs::{self, zfp, zstd::PreparedDict, Dict};
use crate::filters::{bytedelta, shuffle};
use crate::{Error, Result};
use std::sync::{Mutex, OnceLock};

/// Largest dictionary accepted when reading (c-blosc2 2.x wrote up to 128 KiB).
const MAX_READ_DICT: i32 = 128 * 1024;

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
    nblocks: usize,
    leftover: usize,
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

    fn with_header(
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

    fn block_len(&self, nblock: usize) -> usize {
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
    fn check_block_start(&self, nblock: usize) -> Result<()> {
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

    fn has_delta(&self) -> bool {
        self.header.filters.contains(&DELTA)
    }

    /// Fills `out` (a block's worth starting at byte `offset` of the chunk, or a part of one
    /// block) for a special or memcpyed chunk. Special values fill `out` from its start, as
    /// c-blosc2 fills each block or getitem segment.
    fn fill_plain(&self, offset: usize, out: &mut [u8]) -> Result<()> {
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
    fn plain_block(
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
    fn fill_plain_range(&self, start: usize, out: &mut [u8]) -> Result<()> {
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
    fn block_src(&self, nblock: usize) -> Result<std::borrow::Cow<'a, [u8]>> {
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
    fn stream_layout(&self, nblock: usize, bsize: usize) -> Result<(usize, usize)> {
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

    /// Decodes bytes `from..to` of block `nblock` into `out` (`to - from` bytes), decoding each
    /// stream only as far as those bytes need (see [`part_streams`](Self::part_streams)) and
    /// unshuffling only their elements. Returns `Ok(false)`, having written nothing, for blocks
    /// it does not do that way, which the caller decodes whole.
    #[allow(clippy::too_many_arguments)]
    fn decode_block_part(
        &self,
        bw: &Backward<'_>,
        nblock: usize,
        from: usize,
        to: usize,
        out: &mut [u8],
        dref: Option<&[u8]>,
        s: &mut Scratch,
    ) -> Result<bool> {
        if !self.part_decodable(bw, nblock, from, to) {
            return Ok(false);
        }
        self.check_block_start(nblock)?;
        s.ensure(self.header.blocksize as usize);
        let block_src = self.block_src(nblock)?;
        let blen = self.block_len(nblock);
        let Scratch { bufs, codec, .. } = s;
        let (decoded, others) = bufs.split_at_mut(1);
        let Some(part) = self.part_streams(
            bw,
            nblock,
            from,
            to,
            dref,
            &block_src,
            &mut decoded[0][..blen],
            None,
            codec,
        )?
        else {
            return Ok(false);
        };
        part.write(out, &mut others[0])?;
        Ok(true)
    }

    /// Whether [`part_streams`](Self::part_streams) may do bytes `from..to` of block `nblock`
    /// (not a postfilter, a range inside the block).
    fn part_decodable(&self, bw: &Backward<'_>, nblock: usize, from: usize, to: usize) -> bool {
        bw.dparams.postfilter.is_none() && from < to && to <= self.block_len(nblock)
    }

    /// Decodes the codec streams of block `nblock` (its bytes `block_src`, into `decoded`, the
    /// block's length) only as far as bytes `from..to` of the block need: LZ4 and BloscLZ stop
    /// early (see `codecs::decompress_stream_prefix`), runs fill only the wanted bytes, streams
    /// stored as they are stay in `block_src`. Returns `Ok(None)`, for the caller to decode
    /// the block whole, unless its filters are nothing or one SHUFFLE over the codec's streams
    /// (then DELTA too for blocks after the first, against `dref`, block 0 decoded; before it a
    /// BYTEDELTA over the same streams where a fused kernel exists). The caller has checked
    /// [`part_decodable`](Self::part_decodable) and the block's start.
    #[allow(clippy::too_many_arguments)]
    fn part_streams<'s>(
        &self,
        bw: &Backward<'_>,
        nblock: usize,
        from: usize,
        to: usize,
        dref: Option<&'s [u8]>,
        block_src: &'s [u8],
        decoded: &'s mut [u8],
        runs: Option<&'s mut RepeatedRuns>,
        codec: &mut codecs::CodecScratch,
    ) -> Result<Option<PartStreams<'s>>> {
        let h = &self.header;
        let blen = decoded.len();
        let (nstreams, neblock) = self.stream_layout(nblock, blen)?;
        let (bytedelta, steps) = fused_bytedelta(bw, nstreams);
        let shuffled = match (steps, dref) {
            ([], _) if !bytedelta => false,
            ([(SHUFFLE, meta)], _) | ([(SHUFFLE, meta), (DELTA, _)], Some(_))
                if shuffle::streams_for_meta(bw.typesize, *meta) == nstreams =>
            {
                true
            }
            _ => return Ok(None),
        };
        let has_delta = steps.len() == 2;
        if nstreams * neblock != blen
            || nstreams > MAX_SCATTERED_STREAMS
            || (shuffled && nstreams < 2)
            || (has_delta && dref.is_none_or(|d| d.len() < to))
        {
            return Ok(None);
        }
        let mut src = block_src;
        let mut part = PartStreams {
            streams: [&[]; MAX_SCATTERED_STREAMS],
            nstreams,
            neblock,
            shuffled,
            bytedelta,
            dref: if has_delta { dref } else { None },
            from,
            to,
            // BYTEDELTA's running sums start at each stream's first byte.
            first_elem: if bytedelta { 0 } else { from / nstreams },
            end_elem: to.div_ceil(nstreams),
        };
        let dict = self.dict();
        let mut found: [Option<Stream<'s>>; MAX_SCATTERED_STREAMS] = [None; MAX_SCATTERED_STREAMS];
        for (j, f) in found.iter_mut().enumerate().take(nstreams) {
            if !shuffled && j * neblock >= to {
                break;
            }
            *f = Some(next_stream(&mut src)?);
        }
        let runs: Option<&'s RepeatedRuns> = runs.map(|r| {
            for f in &found[..nstreams] {
                if let Some(Stream::Repeat(byte)) = f {
                    r.prepare(*byte, neblock);
                }
            }
            &*r
        });
        // Streams that are not decoded into `decoded`: stored as they are in the chunk, or a
        // run of one byte in `runs`.
        let mut raw: [Option<&'s [u8]>; MAX_SCATTERED_STREAMS] = [None; MAX_SCATTERED_STREAMS];
        for (j, f) in found.into_iter().enumerate().take(nstreams) {
            let Some(stream) = f else {
                break;
            };
            let (lo, hi) = part.wanted(j, neblock);
            let o = &mut decoded[j * neblock..(j + 1) * neblock];
            match stream {
                Stream::Repeat(byte) => match runs.and_then(|r| r.get(byte, neblock)) {
                    Some(run) => raw[j] = Some(run),
                    None => o[lo..hi].fill(byte),
                },
                Stream::Coded(cdata) => {
                    if cdata.len() == neblock {
                        raw[j] = Some(cdata);
                    } else if hi > lo {
                        let n = decode_stream_prefix(
                            h, cdata, o, hi, &dict, bw.dparams, codec, self.src,
                        )?;
                        if n < hi {
                            return Err(Error::Data);
                        }
                    }
                }
            }
        }
        let decoded: &'s [u8] = decoded;
        for (j, (stream, r)) in part.streams.iter_mut().zip(raw).take(nstreams).enumerate() {
            *stream = r.unwrap_or(&decoded[j * neblock..(j + 1) * neblock]);
        }
        Ok(Some(part))
    }

    /// Decodes block `nblock` into `dest` (its full length). `dref` is block 0's decoded data
    /// when DELTA needs it.
    fn decode_block<'d>(
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
    fn decode_streams<'s>(
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

/// Streams that are one byte repeated (the constant high bytes of floats, zeros), kept
/// filled across blocks and calls so that such a stream is read from here rather than
/// written out for every block: a few runs per thread, each as long as the longest stream
/// asked for.
#[derive(Default)]
pub struct RepeatedRuns {
    runs: Vec<(u8, Vec<u8>)>,
}

impl RepeatedRuns {
    /// Most runs kept (a byte past them is filled into the block as usual).
    const MAX: usize = 4;

    /// Makes the run of `byte` at least `len` bytes long, if there is room for it.
    fn prepare(&mut self, byte: u8, len: usize) {
        if let Some((_, run)) = self.runs.iter_mut().find(|(b, _)| *b == byte) {
            if run.len() < len {
                *run = vec![byte; len];
            }
        } else if self.runs.len() < Self::MAX {
            self.runs.push((byte, vec![byte; len]));
        }
    }

    /// `len` bytes of `byte`, when prepared.
    fn get(&self, byte: u8, len: usize) -> Option<&[u8]> {
        let (_, run) = self.runs.iter().find(|(b, _)| *b == byte)?;
        run.get(..len)
    }
}

/// The codec streams of a block decoded as far as bytes `from..to` of it need (see
/// [`Chunk::part_streams`]).
struct PartStreams<'s> {
    /// Each stream whole (`neblock` bytes), of which only the wanted bytes are decoded.
    streams: [&'s [u8]; MAX_SCATTERED_STREAMS],
    nstreams: usize,
    /// Bytes of each stream.
    neblock: usize,
    /// The streams are SHUFFLE's byte streams (else the block's bytes one after another).
    shuffled: bool,
    /// A BYTEDELTA over the streams is to be undone with the unshuffle.
    bytedelta: bool,
    /// Block 0 decoded, when the unshuffled bytes are to be XORed with it (DELTA).
    dref: Option<&'s [u8]>,
    from: usize,
    to: usize,
    /// The elements of every stream decoded, when shuffled.
    first_elem: usize,
    end_elem: usize,
}

impl PartStreams<'_> {
    /// Writes the block's bytes `from..to` into `out` (as long): unshuffled (through
    /// `elems`, a block's length of scratch, when they do not start and end on elements),
    /// XORed with block 0 for DELTA; else copied from the streams.
    fn write(&self, out: &mut [u8], elems: &mut [u8]) -> Result<()> {
        let (streams, nstreams, from, to) = (&self.streams, self.nstreams, self.from, self.to);
        if !self.shuffled {
            for (j, stream) in streams.iter().enumerate().take(nstreams) {
                let (lo, hi) = self.wanted(j, self.neblock);
                if hi > lo {
                    let at = j * self.neblock + lo - from;
                    copy_bytes(&mut out[at..at + hi - lo], &stream[lo..hi]);
                }
            }
            return Ok(());
        }
        let (first_elem, end_elem) = (self.first_elem, self.end_elem);
        let mut elem_streams: [&[u8]; MAX_SCATTERED_STREAMS] = [&[]; MAX_SCATTERED_STREAMS];
        for (e, stream) in elem_streams.iter_mut().zip(streams).take(nstreams) {
            *e = &stream[first_elem..end_elem];
        }
        let elems_start = first_elem * nstreams;
        if from == elems_start && to == end_elem * nstreams {
            unshuffle_into(&elem_streams[..nstreams], out, self.bytedelta)?;
        } else {
            let elems = &mut elems[..(end_elem - first_elem) * nstreams];
            unshuffle_into(&elem_streams[..nstreams], elems, self.bytedelta)?;
            copy_bytes(out, &elems[from - elems_start..to - elems_start]);
        }
        if let Some(d) = self.dref {
            // DELTA after the first block is a plain XOR with block 0 (see filters::delta).
            for (o, r) in out.iter_mut().zip(&d[from..to]) {
                *o ^= r;
            }
        }
        Ok(())
    }

    /// The bytes wanted of stream `j` (of `neblock` bytes): elements `first_elem..end_elem`
    /// of every stream when shuffled, else the part of `from..to` that falls in the stream.
    fn wanted(&self, j: usize, neblock: usize) -> (usize, usize) {
        if self.shuffled {
            (self.first_elem, self.end_elem)
        } else {
            let (lo, hi) = (j * neblock, (j + 1) * neblock);
            (self.from.clamp(lo, hi) - lo, self.to.clamp(lo, hi) - lo)
        }
    }
}

/// One codec stream of a block, as its 4-byte size announces it.
#[derive(Clone, Copy)]
enum Stream<'s> {
    /// Zeros (size 0) or a run of one byte (negative size, then a token byte).
    Repeat(u8),
    /// The stream's bytes: coded, or the stream stored as it is when as long as the stream.
    Coded(&'s [u8]),
}

/// Reads the next stream of a block from `src` and moves `src` past it.
fn next_stream<'s>(src: &mut &'s [u8]) -> Result<Stream<'s>> {
    let rest: &'s [u8] = src;
    let head = rest.get(..4).ok_or(Error::ReadBuffer)?;
    let csize = i32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    let rest = &rest[4..];
    if csize == 0 {
        *src = rest;
        return Ok(Stream::Repeat(0));
    }
    if csize < 0 {
        let token = *rest.first().ok_or(Error::ReadBuffer)?;
        *src = &rest[1..];
        if token & 1 == 0 || csize < -255 {
            return Err(Error::RunLength);
        }
        return Ok(Stream::Repeat((-csize) as u8));
    }
    let cdata = rest.get(..csize as usize).ok_or(Error::ReadBuffer)?;
    *src = &rest[csize as usize..];
    Ok(Stream::Coded(cdata))
}

/// Most byte streams [`scattered_unshuffle`] takes (typesizes above keep the plain path).
const MAX_SCATTERED_STREAMS: usize = 32;

/// Whether the backward steps open with a BYTEDELTA over `nstreams` streams that a fused
/// BYTEDELTA+unshuffle kernel can undo, and the steps left after it.
fn fused_bytedelta<'b>(bw: &Backward<'b>, nstreams: usize) -> (bool, &'b [(u8, u8)]) {
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
fn scattered_unshuffle<'b>(
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
fn unshuffle_into(streams: &[&[u8]], dst: &mut [u8], bytedelta: bool) -> Result<()> {
    if !bytedelta {
        shuffle::unshuffle_streams(streams, dst);
    } else if !bytedelta::bytedelta_backward_unshuffle(streams, dst) {
        // `scattered_unshuffle` and `decode_block_part` checked that the kernel exists.
        return Err(Error::Failure);
    }
    Ok(())
}

/// Decompresses one stream with the chunk's codec (built-in or user-registered); returns the
/// bytes written. `chunk` is the whole chunk, for user codecs.
pub(crate) fn decode_stream(
    h: &ChunkHeader,
    cdata: &[u8],
    out: &mut [u8],
    dict: &Dict<'_>,
    dparams: &DParams,
    codec: &mut codecs::CodecScratch,
    chunk: &[u8],
) -> Result<usize> {
    if h.compformat() != codecs::UDCODEC_FORMAT {
        return codecs::decompress_stream(h.compformat(), cdata, out, dict, codec);
    }
    // The params' own codec, or a registered one (the plugins c-blosc2 registers at init are
    // there from the start, for params built without the C layer).
    let uc = dparams
        .user_codecs
        .iter()
        .find(|(id, _)| *id == h.udcompcode)
        .map(|(_, c)| c.clone())
        .or_else(|| super::registry::codec(h.udcompcode).map(|e| e.codec))
        .ok_or(Error::CodecSupport)?;
    if !uc.decoder_available() {
        return Err(Error::CodecSupport);
    }
    let r = uc.decode(cdata, out, h.compcode_meta, dparams, chunk);
    // c-blosc2 answers any result but the stream's full length, error codes included, with
    // BLOSC2_ERROR_DATA.
    if r < 0 || r as usize != out.len() {
        return Err(Error::Data);
    }
    Ok(r as usize)
}

/// [`decode_stream`] of at least the first `want` bytes of a stream (see
/// `codecs::decompress_stream_prefix`); user codecs decode the whole stream.
#[allow(clippy::too_many_arguments)]
fn decode_stream_prefix(
    h: &ChunkHeader,
    cdata: &[u8],
    out: &mut [u8],
    want: usize,
    dict: &Dict<'_>,
    dparams: &DParams,
    codec: &mut codecs::CodecScratch,
    chunk: &[u8],
) -> Result<usize> {
    if h.compformat() == codecs::UDCODEC_FORMAT {
        return decode_stream(h, cdata, out, dict, dparams, codec, chunk);
    }
    codecs::decompress_stream_prefix(h.compformat(), cdata, out, want, dict, codec)
}

/// `out` cut where the blocks of `bs` bytes of a chunk end, `out` starting at byte `start`.
fn split_at_blocks(out: &mut [u8], start: usize, bs: usize) -> impl Iterator<Item = &mut [u8]> {
    let first = (bs - start % bs).min(out.len());
    let (head, rest) = out.split_at_mut(first);
    std::iter::once(head)
        .chain(rest.chunks_mut(bs))
        .filter(|p| !p.is_empty())
}

/// Bytes a pattern fill doubles up to before copying that prefix along the rest: a source that
/// stays in L1 while the copies run at memcpy speed.
const FILL_PERIOD: usize = 16 * 1024;

/// Repeats `pat` over `out` (a last partial copy truncated): the pattern once, then copies of
/// what is filled, doubling up to [`FILL_PERIOD`] bytes, then that prefix copied along (a
/// copy per item ran 12 times slower than c-blosc2's typed loops).
fn fill_pattern(out: &mut [u8], pat: &[u8]) {
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
        if nbytes == 0 {
            return Ok(0);
        }
        if nbytes > dst.len() {
            return Err(Error::WriteBuffer);
        }
        if start + nbytes > header.nbytes as usize {
            return Err(Error::InvalidParam);
        }
        if !header.is_vl_blocks() && dparams.postfilter.is_none() {
            let from = src
                .get(hl + start..hl + start + nbytes)
                .ok_or(Error::ReadBuffer)?;
            copy_bytes(&mut dst[..nbytes], from);
            return Ok(nbytes);
        }
    }
    getitem_general(dparams, header, src, start, nbytes, dst, reader)
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
    if nbytes == 0 {
        return Ok(0);
    }
    if nbytes > dst.len() {
        return Err(Error::WriteBuffer);
    }
    let stop = start + nbytes;
    if stop > h.nbytes as usize {
        return Err(Error::InvalidParam);
    }
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
        || h.udcompcode != super::plugins::ZFP_RATE
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

/// Bytes `from..to` of a block, decoded for copying out in runs (see [`for_each_block_part`]):
/// the block's bytes, or SHUFFLE's byte streams that each run is unshuffled from.
pub struct DecodedPart<'b> {
    kind: PartKind<'b>,
    from: usize,
    to: usize,
}

// Built once per block on the stack and handed out by reference: its size costs nothing.
#[allow(clippy::large_enum_variant)]
enum PartKind<'b> {
    /// The block's bytes, at their offsets in the block.
    Bytes(&'b [u8]),
    /// SHUFFLE's byte streams, whole (byte `i` of the block is `streams[i % n][i / n]`), and
    /// block 0 decoded when the unshuffled bytes are XORed with it (DELTA).
    Shuffled {
        streams: [&'b [u8]; MAX_SCATTERED_STREAMS],
        nstreams: usize,
        dref: Option<&'b [u8]>,
    },
}

impl DecodedPart<'_> {
    /// The block's bytes, of which only `from..to` (the second item) are decoded, when the
    /// part was decoded that way: a caller copying many short runs checks its span once
    /// and copies them plainly.
    pub fn block_bytes(&self) -> Option<(&[u8], std::ops::Range<usize>)> {
        match self.kind {
            PartKind::Bytes(block) => Some((block, self.from..self.to)),
            PartKind::Shuffled { .. } => None,
        }
    }

    /// Writes bytes `at..at + out.len()` of the block into `out`; `Error::Data` (nothing
    /// written) unless they lie within the decoded bytes.
    #[inline]
    pub fn copy_to(&self, at: usize, out: &mut [u8]) -> Result<()> {
        let end = at.checked_add(out.len()).ok_or(Error::Data)?;
        if at < self.from || end > self.to {
            return Err(Error::Data);
        }
        match &self.kind {
            PartKind::Bytes(block) => copy_bytes(out, &block[at..end]),
            PartKind::Shuffled {
                streams,
                nstreams,
                dref,
            } => {
                let ns = *nstreams;
                let streams = &streams[..ns];
                // Whole elements go through the kernel; bytes of partial elements at either
                // end (runs of items whose size is not the typesize) one by one.
                let head = (ns - at % ns) % ns;
                let head = head.min(out.len());
                let whole = (out.len() - head) / ns * ns;
                let byte = |i: usize| streams[i % ns][i / ns];
                for (k, o) in out[..head].iter_mut().enumerate() {
                    *o = byte(at + k);
                }
                shuffle::unshuffle_streams_at(
                    streams,
                    (at + head) / ns,
                    &mut out[head..head + whole],
                );
                for (k, o) in out[head + whole..].iter_mut().enumerate() {
                    *o = byte(at + head + whole + k);
                }
                if let Some(d) = dref {
                    for (o, r) in out.iter_mut().zip(&d[at..end]) {
                        *o ^= r;
                    }
                }
            }
        }
        Ok(())
    }
}

/// A span of a block of which less than one byte in this many is used is gathered from its
/// streams run by run rather than unshuffled whole (see [`for_each_block_part`]). A gathered
/// run costs a kernel call: the corners of an unaligned box (2 x 2 x 10 items, a fifth of
/// their span) cost fewer instructions unshuffled whole; a column (one item per row) far fewer
/// gathered.
const SPARSE_SPAN: usize = 16;

/// Bytes `from..to` of block `nblock` of a chunk, of which a caller copies `used` bytes out.
#[derive(Clone, Copy, Debug)]
pub struct BlockSpan {
    /// Index of the block in its chunk.
    pub nblock: usize,
    /// First byte wanted, in the block.
    pub from: usize,
    /// One past the last byte wanted.
    pub to: usize,
    /// How many of the bytes `from..to` the caller copies out.
    pub used: usize,
}

/// For each span of `spans`, decodes its bytes of its block of chunk `src` and hands them to
/// `f` with the span's index: a caller copying parts of some blocks elsewhere (a b2nd slice)
/// decodes each stream only as far as its part needs and keeps its working set to one block.
/// A span whose bytes are mostly used is unshuffled whole into a scratch block (one long run
/// of the widest kernel, then plain copies); one that uses few of them (a column through a
/// block) is left as SHUFFLE's byte streams, from which each run copied is gathered straight
/// into its place (see [`DecodedPart::copy_to`]). Blocks whose filters allow neither (see
/// `Chunk::part_streams`) are decoded whole. DELTA's reference, block 0, is decoded once
/// whether wanted or not.
///
/// Returns `Ok(false)` without calling `f` for chunks decoded whole anyway (special values,
/// VL blocks, lazy chunks, a postfilter) or whose blocks `spans` does not fit.
pub fn for_each_block_part(
    dparams: &DParams,
    src: &[u8],
    spans: &[BlockSpan],
    mut f: impl FnMut(usize, &DecodedPart<'_>) -> Result<()>,
) -> Result<bool> {
    let header = ChunkHeader::parse(src)?;
    if header.special_raw() != 0
        || header.is_vl_blocks()
        || header.is_lazy()
        || header.nbytes == 0
        || dparams.postfilter.is_some()
    {
        return Ok(false);
    }
    let chunk = Chunk::open_with(src, header.nbytes as usize, None)?;
    let fits = |b: &BlockSpan| {
        b.nblock < chunk.nblocks && b.from < b.to && b.to <= chunk.block_len(b.nblock)
    };
    if !spans.iter().all(fits) {
        return Ok(false);
    }
    let memcpyed = chunk.header.memcpyed();
    let bs = chunk.header.blocksize as usize;
    let steps = pipeline::backward_steps(&chunk.header.filters, &chunk.header.filters_meta);
    let bw = Backward {
        steps: &steps,
        typesize: chunk.header.typesize as usize,
        format_version: chunk.header.version,
        dparams,
    };
    with_scratch(|s| -> Result<bool> {
        let mut dref_store = std::mem::take(&mut s.getitem_dref);
        let mut block_store = std::mem::take(&mut s.getitem_block);
        let mut run = || -> Result<()> {
            let dref: Option<&[u8]> = if !memcpyed && chunk.has_delta() {
                chunk.check_block_start(0)?;
                let d = reuse(&mut dref_store, chunk.block_len(0));
                chunk.decode_block(&bw, 0, d, Dref::None, 0, s)?;
                Some(d)
            } else {
                None
            };
            for (k, span) in spans.iter().enumerate() {
                let BlockSpan {
                    nblock, from, to, ..
                } = *span;
                let blen = chunk.block_len(nblock);
                let whole = |bytes| DecodedPart {
                    kind: PartKind::Bytes(bytes),
                    from: 0,
                    to: blen,
                };
                if let (0, Some(d)) = (nblock, dref) {
                    f(k, &whole(d))?;
                    continue;
                }
                if memcpyed {
                    // The block's bytes are in the chunk as they are.
                    let at = chunk.header.header_len() + nblock * bs;
                    f(k, &whole(src.get(at..at + blen).ok_or(Error::ReadBuffer)?))?;
                    continue;
                }
                chunk.check_block_start(nblock)?;
                let dref = dref.filter(|_| nblock > 0);
                // BYTEDELTA's running sums need every stream from its start: unshuffled
                // into the scratch block below, as getitem does.
                let nstreams = chunk.stream_layout(nblock, blen)?.0;
                let sparse = span.used.saturating_mul(SPARSE_SPAN) < to - from;
                let block = reuse(&mut block_store, blen);
                if chunk.part_decodable(&bw, nblock, from, to) && !fused_bytedelta(&bw, nstreams).0
                {
                    s.ensure(bs);
                    let block_src = chunk.block_src(nblock)?;
                    let Scratch {
                        bufs,
                        codec,
                        repeated_runs,
                        ..
                    } = &mut *s;
                    let (decoded, others) = bufs.split_at_mut(1);
                    let decoded = &mut decoded[0][..blen];
                    let runs = Some(repeated_runs);
                    let part = chunk.part_streams(
                        &bw, nblock, from, to, dref, &block_src, decoded, runs, codec,
                    )?;
                    let kind = match part {
                        Some(p) if p.shuffled && sparse => PartKind::Shuffled {
                            streams: p.streams,
                            nstreams: p.nstreams,
                            dref: p.dref,
                        },
                        Some(p) if !p.shuffled && p.nstreams == 1 => PartKind::Bytes(p.streams[0]),
                        Some(p) => {
                            p.write(&mut block[from..to], &mut others[0])?;
                            PartKind::Bytes(block)
                        }
                        None => {
                            chunk.decode_block(&bw, nblock, block, dref, 0, s)?;
                            f(k, &whole(block))?;
                            continue;
                        }
                    };
                    f(k, &DecodedPart { kind, from, to })?;
                    continue;
                }
                if chunk.decode_block_part(&bw, nblock, from, to, &mut block[from..to], dref, s)? {
                    f(
                        k,
                        &DecodedPart {
                            kind: PartKind::Bytes(block),
                            from,
                            to,
                        },
                    )?;
                } else {
                    chunk.decode_block(&bw, nblock, block, dref, 0, s)?;
                    f(k, &whole(block))?;
                }
            }
            Ok(())
        };
        let r = run();
        s.getitem_dref = dref_store;
        s.getitem_block = block_store;
        r.map(|()| true)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_runs_keep_a_few_bytes_and_grow() {
        let mut runs = RepeatedRuns::default();
        for byte in [7u8, 0, 7, 9, 200, 3, 4] {
            runs.prepare(byte, 16);
        }
        for byte in [7u8, 0, 9, 200] {
            assert_eq!(runs.get(byte, 16), Some(&[byte; 16][..]));
        }
        // Past the few kept, a byte is filled into the block instead.
        assert_eq!(runs.get(3, 1), None);
        assert_eq!(runs.get(4, 1), None);
        // Longer than prepared: not given until prepared that long.
        assert_eq!(runs.get(7, 17), None);
        runs.prepare(7, 40);
        assert_eq!(runs.get(7, 40), Some(&[7u8; 40][..]));
        assert_eq!(runs.get(7, 3), Some(&[7u8; 3][..]));
    }
}
