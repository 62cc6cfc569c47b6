//! Partial decoding of blocks: the bytes `from..to` of a block decoded with each codec stream
//! only as far as they need and only their elements unshuffled, for getitem and for b2nd
//! slices ([`for_each_block_part`]).

use super::copy::copy_bytes;
use super::decoder::{fused_bytedelta, unshuffle_into, Chunk, LazyBlocks, MAX_SCATTERED_STREAMS};
use super::header::*;
use super::params::DParams;
use super::pipeline::{self, Backward, Dref};
use super::scratch::{grow_to, reuse, with_scratch, RepeatedRuns, Scratch};
use super::stream::{decode_stream_prefix, next_stream, Stream};
use crate::codecs;
use crate::filters::shuffle;
use crate::{Error, Result};

impl<'a> Chunk<'a> {
    /// Decodes bytes `from..to` of block `nblock` into `out` (`to - from` bytes), decoding each
    /// stream only as far as those bytes need (see [`part_streams`](Self::part_streams)) and
    /// unshuffling only their elements. Returns `Ok(false)`, having written nothing, for blocks
    /// it does not do that way, which the caller decodes whole.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn decode_block_part(
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
        grow_to(&mut others[0], blen);
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

/// Chunk `src` opened for [`for_each_block_part`]; None when it is decoded whole anyway or
/// `spans` does not fit its blocks.
fn open_for_parts<'a>(
    dparams: &DParams,
    src: &'a [u8],
    spans: &[BlockSpan],
    reader: Option<&'a dyn LazyBlocks>,
) -> Result<Option<Chunk<'a>>> {
    let header = ChunkHeader::parse(src)?;
    if header.special_raw() != 0
        || header.is_vl_blocks()
        || (header.is_lazy() && (reader.is_none() || header.memcpyed()))
        || header.nbytes == 0
        || dparams.postfilter.is_some()
    {
        return Ok(None);
    }
    let chunk = Chunk::open_with(src, header.nbytes as usize, reader)?;
    let fits = |b: &BlockSpan| {
        b.nblock < chunk.nblocks && b.from < b.to && b.to <= chunk.block_len(b.nblock)
    };
    Ok(spans.iter().all(fits).then_some(chunk))
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
/// A lazy chunk (header and block offsets of a chunk on disk) reads the blocks it decodes
/// through `reader`, one read each, as c-blosc2 reads them for a slice of an array on disk.
///
/// Returns `Ok(false)` without calling `f` for chunks decoded whole anyway (special values,
/// VL blocks, lazy chunks without a reader or stored as they are, a postfilter) or whose
/// blocks `spans` does not fit.
pub fn for_each_block_part(
    dparams: &DParams,
    src: &[u8],
    spans: &[BlockSpan],
    reader: Option<&dyn LazyBlocks>,
    mut f: impl FnMut(usize, &DecodedPart<'_>) -> Result<()>,
) -> Result<bool> {
    let Some(chunk) = open_for_parts(dparams, src, spans, reader)? else {
        return Ok(false);
    };
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
                            grow_to(&mut others[0], blen);
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
