//! Chunk compression: header, block starts, optional dictionary, and per-block streams.

use super::blocksize::{choose_blocksize, layout_blocksize, split_block};
use super::copy::{copy_blocks, copy_bytes};
use super::header::*;
use super::params::{BlockInfo, CParams};
use super::pipeline::{self, Loc};
use super::runner::Pool;
use super::scratch::{reuse, with_scratch, Scratch};
use super::stream::encode_stream;
use crate::codecs::{self, Dict};
use crate::{Error, Result};
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

/// Everything the block compressor needs that is the same for all blocks of one call.
struct BlockJob<'a> {
    params: &'a CParams,
    src: &'a [u8],
    typesize: usize,
    blocksize: usize,
    nblocks: usize,
    leftover: usize,
    split: bool,
    /// Streams that are all one byte value are stored as runs (extended headers only).
    detect_runs: bool,
    /// The prefilter's output is disposable: every stream is stored as a zero run, no codec
    /// runs (extended headers only, as c-blosc2).
    zero_runs: bool,
    dict: Dict<'a>,
    /// The raw dictionary stored after the block starts, when one was trained.
    dict_bytes: Option<&'a [u8]>,
}

impl BlockJob<'_> {
    fn block_len(&self, nblock: usize) -> usize {
        if nblock == self.nblocks - 1 && self.leftover > 0 {
            self.leftover
        } else {
            self.blocksize
        }
    }

    fn nstreams(&self, nblock: usize) -> usize {
        let leftover_block = nblock == self.nblocks - 1 && self.leftover > 0;
        if self.split && !leftover_block {
            self.typesize
        } else {
            1
        }
    }

    /// Worst-case size of a compressed block (every stream stored raw with its size).
    fn max_block_out(&self, nblock: usize) -> usize {
        self.block_len(nblock) + 5 * self.nstreams(nblock)
    }
}

/// A run of one byte value?
fn is_run(s: &[u8]) -> bool {
    match s.first() {
        None => true,
        Some(&b) => {
            let word = u64::from_ne_bytes([b; 8]);
            let (words, rest) = s.as_chunks::<8>();
            words.iter().all(|&c| u64::from_ne_bytes(c) == word) && rest.iter().all(|&x| x == b)
        }
    }
}

/// A stream stored raw whose copy into the chunk waits until the chunk is known to be kept:
/// `len` bytes of the source at `from` go to `to` in the output.
struct RawCopy {
    to: usize,
    from: usize,
    len: usize,
}

/// Compresses block `nblock` into `out`. Returns the bytes written, or 0 when it did not fit.
/// With `defer_raw`, streams stored raw straight from the source (no filter ran) are left
/// unwritten and listed there, `to` relative to `out`: for incompressible data the chunk ends
/// up a plain copy, and copying each block first doubled the bytes moved.
fn compress_block(
    job: &BlockJob<'_>,
    nblock: usize,
    tid: usize,
    out: &mut [u8],
    s: &mut Scratch,
    mut defer_raw: Option<&mut Vec<RawCopy>>,
) -> Result<usize> {
    let bsize = job.block_len(nblock);
    let offset = nblock * job.blocksize;
    s.ensure(job.blocksize);
    let loc = pipeline::forward(
        job.params,
        job.typesize,
        job.src,
        offset,
        bsize,
        nblock,
        tid,
        &mut s.bufs,
    )?;
    let Scratch { bufs, codec, .. } = s;
    let filtered: &[u8] = match loc {
        Loc::Outer => &job.src[offset..offset + bsize],
        Loc::Buf(i) => &bufs[i][..bsize],
    };
    let nstreams = job.nstreams(nblock);
    if job.zero_runs {
        // A zero run is its size, 0, alone.
        let Some(sizes) = out.get_mut(..4 * nstreams) else {
            return Ok(0);
        };
        sizes.fill(0);
        return Ok(4 * nstreams);
    }
    let neblock = bsize / nstreams;
    let mut pos = 0usize;
    for j in 0..nstreams {
        let stream = &filtered[j * neblock..(j + 1) * neblock];
        if out.len() < pos + 4 {
            return Ok(0);
        }
        let size_at = pos;
        pos += 4;
        if job.detect_runs && is_run(stream) {
            let value = stream.first().copied().unwrap_or(0);
            out[size_at..size_at + 4].copy_from_slice(&(-(value as i32)).to_le_bytes());
            if value != 0 {
                if out.len() < pos + 1 {
                    return Ok(0);
                }
                // Token bit 0: the stream is a run of the byte in the size's low byte.
                out[pos] = 1;
                pos += 1;
            }
            continue;
        }
        let maxout = neblock.min(out.len() - pos);
        if maxout == 0 {
            return Ok(0);
        }
        let dst = &mut out[pos..pos + maxout];
        let cbytes = encode_stream(job.params, stream, dst, &job.dict, codec, job.src)?;
        if cbytes > maxout {
            return Err(Error::WriteBuffer);
        }
        let cbytes = if cbytes == 0 || cbytes == neblock {
            // The codec could not compress: store the stream raw.
            if out.len() < pos + neblock {
                return Ok(0);
            }
            match (&mut defer_raw, loc) {
                (Some(list), Loc::Outer) => list.push(RawCopy {
                    to: pos,
                    from: offset + j * neblock,
                    len: neblock,
                }),
                _ => copy_bytes(&mut out[pos..pos + neblock], stream),
            }
            neblock
        } else {
            cbytes
        };
        out[size_at..size_at + 4].copy_from_slice(&(cbytes as i32).to_le_bytes());
        pos += cbytes;
    }
    Ok(pos)
}

/// Whether a filter id may appear in cparams (checked when a context is created): the ids
/// c-blosc2 defines (its built-in filters and those it registers at init) and the user range
/// (160..).
pub(crate) fn filter_id_allowed(f: u8) -> bool {
    crate::filters::names::is_known(f) || f >= super::registry::USER_REGISTERED_START
}

/// Validates parameters at context creation (c-blosc2 returns a NULL context for these).
pub(crate) fn validate_for_create(params: &CParams) -> Result<()> {
    if params.filters.iter().all(|&f| filter_id_allowed(f)) {
        Ok(())
    } else {
        Err(Error::FilterPipeline)
    }
}

/// Validates compression parameters the way `blosc2_compress_ctx` does (same error codes).
pub(crate) fn validate(params: &CParams) -> Result<()> {
    validate_for_create(params)?;
    if params.clevel > 9 {
        return Err(Error::CodecParam);
    }
    if !codecs::is_builtin(params.compcode) && params.user_codec.is_none() {
        return Err(Error::CodecSupport);
    }
    if params.blocksize < 0 {
        return Err(Error::InvalidParam);
    }
    for (i, &f) in params.filters.iter().enumerate() {
        let usable = match f {
            NOFILTER | SHUFFLE | BITSHUFFLE | DELTA | TRUNC_PREC => true,
            // both bytedeltas need their number of streams: filters_meta, or the
            // super-chunk's typesize when that is 0.
            pipeline::BYTEDELTA | pipeline::BYTEDELTA_BUGGY => {
                params.filters_meta[i] != 0 || params.schunk_typesize.is_some()
            }
            // The params' own, or a registered one (the pipeline looks there too).
            _ => {
                params.user_filters.iter().any(|(id, _)| *id == f)
                    || super::registry::filter(f).is_some()
            }
        };
        if !usable {
            return Err(Error::FilterPipeline);
        }
    }
    Ok(())
}

/// Compresses `src` into `dst` as one chunk. Returns the chunk size, or 0 when it cannot fit
/// in `dst` (as c-blosc2 does).
pub(crate) fn compress(
    params: &CParams,
    pool: Option<&Pool>,
    src: &[u8],
    dst: &mut [u8],
) -> Result<usize> {
    compress_into(params, pool, src, Dst::Slice(dst))
}

/// [`compress`] into `out` (cleared first), as if into a buffer of `room` bytes: the chunk's
/// bytes are appended (`out` grows as it needs; its capacity is the caller's choice), and no
/// byte past them is written. For callers that keep the chunk (or copy it on): a chunk-sized
/// `dst` for [`compress`] must be initialised first, and zeroing it (calloc, once glibc serves
/// it from the heap) cost 15% of a b2nd_from_cbuffer of an 8 MB LZ4 chunk. Returns the
/// chunk's size (`out.len()`), or 0 when it does not fit.
pub(crate) fn compress_to_vec(
    params: &CParams,
    pool: Option<&Pool>,
    src: &[u8],
    out: &mut Vec<u8>,
    room: usize,
) -> Result<usize> {
    out.clear();
    let r = compress_into(params, pool, src, Dst::Vec(out, room));
    if !matches!(r, Ok(n) if n > 0) {
        out.clear();
    }
    r
}

/// Where a chunk is compressed to.
enum Dst<'d> {
    /// A caller's buffer, all of it room for the chunk.
    Slice(&'d mut [u8]),
    /// An empty vector the chunk is appended to, at most this many bytes of room.
    Vec(&'d mut Vec<u8>, usize),
}

impl Dst<'_> {
    fn room(&self) -> usize {
        match self {
            Dst::Slice(d) => d.len(),
            Dst::Vec(_, room) => *room,
        }
    }
}

fn compress_into(
    params: &CParams,
    pool: Option<&Pool>,
    src: &[u8],
    mut dst: Dst<'_>,
) -> Result<usize> {
    // c-blosc2 asks the tuner first, before it checks sizes or parameters.
    params.consult_tuner()?;
    validate(params)?;
    if src.len() as i64 > MAX_BUFFERSIZE {
        return Err(Error::MaxBufsizeExceeded);
    }
    if dst.room() < MAX_OVERHEAD {
        return Err(Error::MaxBufsizeExceeded);
    }
    let plan = Plan::new(params, src.len());
    let chunk_params = plan.callback_params(params);
    let params = &*chunk_params;
    let mut header = plan.header(params);
    if params.use_dict && !matches!(params.compcode, codecs::ZSTD | codecs::LZ4 | codecs::LZ4HC) {
        return Err(Error::CodecParam);
    }
    if !plan.memcpyed {
        // Dictionaries smaller than this do not pay for themselves; c-blosc2 skips them.
        let use_dict = params.use_dict && header.extended && src.len() / 20 >= MINUSEFULDICT;
        if use_dict {
            header.blosc2_flags |= USEDICT;
        }
        let n = compress_with_blocks(params, pool, src, &plan, &header, &mut dst)?;
        if n > 0 {
            return Ok(n);
        }
        // Did not fit: the last chance is a plain copy. c-blosc2 keeps the USEDICT flag on
        // such a chunk and then fails to read it back (-9); a copy has no dictionary.
        header.flags |= MEMCPYED;
        header.blosc2_flags &= !USEDICT;
        header.blocksize = plan.blocksize;
    }
    write_copy(params, pool, src, &plan, header, dst)
}

/// What was chosen for one chunk before its blocks are compressed.
struct Plan {
    /// The size of the data.
    nbytes: i32,
    /// The typesize the header records: the caller's, or 1 when it does not fit the header byte.
    typesize: i32,
    /// The flags the filters stand for.
    filter_flags: u8,
    /// The block size chosen (or forced), as a plain copy's header records it.
    blocksize: i32,
    /// The block size blocks are cut at (see `layout_blocksize`), as a compressed chunk's
    /// header records it.
    layout: i32,
    /// Whether blocks are split into one stream per byte of the typesize.
    split: bool,
    /// Whether the chunk is a plain copy from the start (level 0 or a tiny buffer).
    memcpyed: bool,
}

impl Plan {
    fn new(params: &CParams, len: usize) -> Plan {
        let nbytes = len as i32;
        // A typesize that does not fit the header byte makes the buffer a plain byte stream.
        let typesize: i32 = if params.typesize > MAX_TYPESIZE as i32 || params.typesize <= 0 {
            1
        } else {
            params.typesize
        };
        let filter_flags = flags_from_filters(&params.filters);
        // c-blosc2 sizes blocks with the caller's typesize and only then falls back to 1 for a
        // typesize the header cannot hold.
        let (blocksize, tuned_split) = choose_blocksize(
            params.compcode,
            params.clevel,
            params.typesize.max(1),
            nbytes,
            params.blocksize,
            params.splitmode,
            filter_flags,
        );
        // A forced block size that is not a multiple of the typesize: blocks are cut at its
        // rounded value, which a compressed chunk's header records (c-blosc2 records the
        // caller's value there and cannot read such a chunk back); a plain copy keeps the
        // caller's value, as c-blosc2 writes it.
        let layout = layout_blocksize(blocksize, params.typesize.max(1));
        // c-blosc2's automatic tuner (the one without a user tuner) reports what it chose at
        // every compression.
        if let (Some(split), None) = (tuned_split, &params.tuner) {
            report_tuning(&TuningChoice {
                compcode: params.compcode,
                clevel: params.clevel,
                blocksize: layout,
                splitmode: i32::from(split),
                typesize: params.typesize,
            });
        }
        let split = split_block(
            params.splitmode,
            params.compcode,
            params.clevel,
            filter_flags,
            typesize,
            layout,
        );
        Plan {
            nbytes,
            typesize,
            filter_flags,
            blocksize,
            layout,
            split,
            memcpyed: params.clevel == 0 || nbytes < MIN_BUFFERSIZE,
        }
    }

    /// The block size as a `usize`, at least 1.
    fn bs(&self) -> usize {
        self.layout.max(1) as usize
    }

    /// The parameters user codecs and filters get for this chunk, as c-blosc2 hands them its
    /// context's: the typesize the chunk records and the block size chosen, not an automatic 0.
    fn callback_params<'p>(&self, params: &'p CParams) -> Cow<'p, CParams> {
        let user_callbacks = !codecs::is_builtin(params.compcode)
            || params
                .filters
                .iter()
                .any(|&f| f > pipeline::DEFINED_FILTERS_STOP);
        if (params.typesize != self.typesize || params.blocksize != self.layout) && user_callbacks {
            Cow::Owned(CParams {
                typesize: self.typesize,
                blocksize: self.layout,
                ..params.clone()
            })
        } else {
            Cow::Borrowed(params)
        }
    }

    /// The chunk's header before its size is known.
    fn header(&self, params: &CParams) -> ChunkHeader {
        let mut header = ChunkHeader {
            version: VERSION_FORMAT_STABLE,
            versionlz: 1,
            flags: DOSHUFFLE | DOBITSHUFFLE,
            typesize: self.typesize as u8,
            nbytes: self.nbytes,
            blocksize: self.layout,
            cbytes: 0,
            filters: params.filters,
            udcompcode: params.compcode,
            compcode_meta: params.compcode_meta,
            filters_meta: params.filters_meta,
            blosc2_flags2: 0,
            blosc2_flags: 0,
            extended: true,
        };
        if params.legacy_header {
            // c-blosc 1.x layout: 16-byte header, filters only as flag bits.
            header.extended = false;
            header.flags = 0;
        }
        if self.memcpyed {
            header.flags |= MEMCPYED;
            header.blocksize = self.blocksize;
        } else {
            header.flags |= if header.extended {
                self.filter_flags & DODELTA
            } else {
                self.filter_flags
            };
            if !self.split {
                header.flags |= DONT_SPLIT;
            }
            header.flags |= codecs::compformat(params.compcode) << 5;
        }
        header
    }
}

/// What c-blosc2's automatic tuner chose for a compression (its BLOSC_INFO line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TuningChoice {
    /// The codec.
    pub compcode: u8,
    /// The compression level.
    pub clevel: u8,
    /// The block size blocks are cut at.
    pub blocksize: i32,
    /// 1 when blocks are split, 0 otherwise.
    pub splitmode: i32,
    /// The caller's typesize.
    pub typesize: i32,
}

/// Where [`TuningChoice`]s go (see [`set_tuning_report`]).
static TUNING_REPORT: OnceLock<fn(&TuningChoice)> = OnceLock::new();

/// Has `report` called with what the automatic tuner chooses at every compression that uses it
/// (the C layer prints it when BLOSC_INFO is set, as c-blosc2 does). The first call decides;
/// later ones change nothing. Without one, nothing is reported.
pub fn set_tuning_report(report: fn(&TuningChoice)) {
    let _ = TUNING_REPORT.set(report);
}

fn report_tuning(choice: &TuningChoice) {
    if let Some(report) = TUNING_REPORT.get() {
        report(choice);
    }
}

/// Compresses the blocks (with a dictionary trained on them when `header` says so) after the
/// header; 0 when the result does not fit in `dst`.
fn compress_with_blocks(
    params: &CParams,
    pool: Option<&Pool>,
    src: &[u8],
    plan: &Plan,
    header: &ChunkHeader,
    dst: &mut Dst<'_>,
) -> Result<usize> {
    let bs = plan.bs();
    let mut job = BlockJob {
        params,
        src,
        typesize: plan.typesize as usize,
        blocksize: bs,
        nblocks: src.len().div_ceil(bs),
        leftover: src.len() % bs,
        split: plan.split,
        detect_runs: header.extended,
        zero_runs: header.extended
            && params
                .prefilter
                .as_ref()
                .is_some_and(|p| p.output_is_disposable()),
        dict: Dict::None,
        dict_bytes: None,
    };
    let trained;
    let prepared;
    if header.blosc2_flags & USEDICT != 0 {
        trained = train_dict(&job)?;
        job.dict_bytes = Some(&trained);
        job.dict = if params.compcode == codecs::ZSTD {
            prepared = codecs::zstd::PreparedDict::for_compression(&trained, params.clevel as i32);
            Dict::Zstd(&prepared)
        } else {
            Dict::Lz4(&trained)
        };
    }
    compress_blocks(&job, pool, header, plan.blocksize, dst)
}

/// Writes the chunk as a plain copy of `src` (through the prefilter, when there is one); 0 when
/// it does not fit in `dst`.
fn write_copy(
    params: &CParams,
    pool: Option<&Pool>,
    src: &[u8],
    plan: &Plan,
    mut header: ChunkHeader,
    dst: Dst<'_>,
) -> Result<usize> {
    let hl = header.header_len();
    let total = hl + src.len();
    if total > dst.room() {
        return Ok(0);
    }
    header.cbytes = total as i32;
    let dst = match dst {
        Dst::Slice(d) => d,
        Dst::Vec(v, _) if params.prefilter.is_none() => {
            v.clear();
            v.resize(hl, 0);
            header.write(v);
            v.extend_from_slice(src);
            return Ok(total);
        }
        Dst::Vec(v, _) => {
            v.clear();
            v.resize(total, 0);
            &mut v[..]
        }
    };
    header.write(dst);
    let bs = plan.bs();
    let Some(pre) = &params.prefilter else {
        copy_blocks(pool, &mut dst[hl..total], src, bs)?;
        return Ok(total);
    };
    let nblocks = src.len().div_ceil(bs);
    let leftover = src.len() % bs;
    for nblock in 0..nblocks {
        let off = nblock * bs;
        let len = if nblock == nblocks - 1 && leftover > 0 {
            leftover
        } else {
            bs
        };
        let out = &mut dst[hl + off..hl + off + len];
        let block = BlockInfo {
            typesize: plan.typesize,
            offset: off as i32,
            nblock: nblock as i32,
            tid: 0,
        };
        pipeline::run_prefilter(pre.as_ref(), &src[off..off + len], out, block)?;
    }
    Ok(total)
}

/// Largest dictionary written (BLOSC2_MAXDICTSIZE).
pub const MAXDICTSIZE: usize = 32 * 1024;
/// Smallest dictionary worth training (BLOSC2_MINUSEFULDICT).
pub const MINUSEFULDICT: usize = 256;

/// Trains a dictionary on the filtered blocks of the chunk (8 equal samples, as c-blosc2).
fn train_dict(job: &BlockJob<'_>) -> Result<Vec<u8>> {
    let mut filtered = vec![0u8; job.src.len()];
    with_scratch(|s| -> Result<()> {
        s.ensure(job.blocksize);
        for nblock in 0..job.nblocks {
            let off = nblock * job.blocksize;
            let len = job.block_len(nblock);
            let loc = pipeline::forward(
                job.params,
                job.typesize,
                job.src,
                off,
                len,
                nblock,
                0,
                &mut s.bufs,
            )?;
            let data = match loc {
                Loc::Outer => &job.src[off..off + len],
                Loc::Buf(i) => &s.bufs[i][..len],
            };
            filtered[off..off + len].copy_from_slice(data);
        }
        Ok(())
    })?;
    let max_size = MAXDICTSIZE.min(job.src.len() / 20);
    let nsamples = 8;
    let sample = job.src.len() / nsamples;
    codecs::zstd::train_dict(&filtered, &[sample; 8], max_size)
}

/// Where a block compressed into a buffer starts in it. Large buffers come from the system at
/// the same offset in a page (glibc: 16 bytes in), so without this a codec copying a stored
/// stream from a filter buffer into this one (Zstd's raw blocks, 3 bytes after a header) copies
/// to 1..63 bytes after the source modulo 4096, where `rep movsb` crawls on AMD Zen (see
/// copy.rs): half a page apart, the copies run at full speed. Measured with perf on
/// bitshuffle+zstd(5) 4 MiB at 2 threads: memcpy 6.5% of the samples without the offset, as
/// against 2.2% at 1 thread, which compresses straight into the chunk.
const BLOCK_OUT_OFFSET: usize = 2048;

/// The most memory a thread keeps in `Scratch::block_outs` between parallel compressions.
const MAX_KEPT_BLOCK_BUFFERS: usize = 16 << 20;

/// Compresses all blocks after the header; 0 when the result does not fit in `dst`. A chunk
/// that ends up without blocks records `blockless_blocksize` (the caller's block size).
fn compress_blocks(
    job: &BlockJob<'_>,
    pool: Option<&Pool>,
    header: &ChunkHeader,
    blockless_blocksize: i32,
    dst: &mut Dst<'_>,
) -> Result<usize> {
    let bstarts_at = header.header_len();
    let dict_at = bstarts_at + 4 * job.nblocks;
    let data_at = dict_at + job.dict_bytes.map_or(0, |d| 4 + d.len());
    let room = dst.room();
    if data_at > room {
        return Ok(0);
    }
    if let Dst::Vec(v, _) = dst {
        // The header, block starts and dictionary, written below and at the end.
        v.clear();
        v.resize(data_at, 0);
    }
    let head: &mut [u8] = match dst {
        Dst::Slice(d) => d,
        Dst::Vec(v, _) => v,
    };
    if let Some(d) = job.dict_bytes {
        head[dict_at..dict_at + 4].copy_from_slice(&(d.len() as i32).to_le_bytes());
        head[dict_at + 4..data_at].copy_from_slice(d);
    }
    // The blocks' end, their starts and the streams stored raw, copied from the source once
    // every block fits (offsets in `dst`).
    let (mut pos, bstarts, raw) = match pool {
        Some(pool) if job.nblocks > 1 => {
            let out = match dst {
                Dst::Slice(d) => Dst::Slice(&mut d[data_at..]),
                Dst::Vec(v, room) => Dst::Vec(v, *room),
            };
            let Some(mut placed) = compress_blocks_parallel(job, pool, out)? else {
                return Ok(0);
            };
            for c in &mut placed.raw {
                c.to += data_at;
            }
            let bstarts: Vec<i32> = placed.bstarts.iter().map(|&b| b + data_at as i32).collect();
            (data_at + placed.len, bstarts, placed.raw)
        }
        _ => {
            let (mut bstarts, mut raw) = (Vec::new(), Vec::new());
            match compress_blocks_serial(job, dst, data_at, &mut bstarts, &mut raw)? {
                Some(end) => (end, bstarts, raw),
                None => return Ok(0),
            }
        }
    };
    let out: &mut [u8] = match dst {
        Dst::Slice(d) => d,
        Dst::Vec(v, _) => v,
    };
    copy_raw_streams(pool, out, job.src, &raw)?;
    for (i, b) in bstarts.iter().enumerate() {
        out[bstarts_at + 4 * i..bstarts_at + 4 * i + 4].copy_from_slice(&b.to_le_bytes());
    }
    let mut header = *header;
    // A chunk made only of zero runs becomes a special zeros chunk (just the header).
    let nstreams: usize = (0..job.nblocks).map(|b| job.nstreams(b)).sum();
    if header.extended && pos == dict_at + 4 * nstreams {
        header.blosc2_flags |= (Special::Zero as u8) << 4;
        header.blocksize = blockless_blocksize;
        pos = EXTENDED_HEADER_LENGTH;
    }
    header.cbytes = pos as i32;
    header.write(out);
    if let Dst::Vec(v, _) = dst {
        v.truncate(pos);
    }
    Ok(pos)
}

/// Compresses the blocks one after another on this thread into `dst` from `data_at` on,
/// recording their starts in `bstarts` and the streams left to copy raw in `raw` (offsets in
/// `dst`). Returns where the blocks end, None when they do not fit.
fn compress_blocks_serial(
    job: &BlockJob<'_>,
    dst: &mut Dst<'_>,
    data_at: usize,
    bstarts: &mut Vec<i32>,
    raw: &mut Vec<RawCopy>,
) -> Result<Option<usize>> {
    let mut pos = data_at;
    let fits = with_scratch(|s| -> Result<bool> {
        match dst {
            Dst::Slice(d) => {
                for nblock in 0..job.nblocks {
                    let mark = raw.len();
                    let n = compress_block(job, nblock, 0, &mut d[pos..], s, Some(&mut *raw))?;
                    if n == 0 {
                        return Ok(false);
                    }
                    for c in &mut raw[mark..] {
                        c.to += pos;
                    }
                    bstarts.push(pos as i32);
                    pos += n;
                }
                Ok(true)
            }
            Dst::Vec(v, room) => {
                // Each block goes through a block buffer, and the chunk gets its bytes.
                let mut buf = s.block_outs.pop().unwrap_or_default();
                let r = (|| {
                    for nblock in 0..job.nblocks {
                        // The room a chunk-sized buffer leaves (see compress_block).
                        let need = job.max_block_out(nblock).min(*room - pos);
                        let out = &mut reuse(&mut buf, BLOCK_OUT_OFFSET + need)[BLOCK_OUT_OFFSET..];
                        raw.clear();
                        let n = compress_block(job, nblock, 0, out, s, Some(&mut *raw))?;
                        if n == 0 {
                            return Ok(false);
                        }
                        bstarts.push(pos as i32);
                        let block = &buf[BLOCK_OUT_OFFSET..BLOCK_OUT_OFFSET + n];
                        append_block(v, block, raw, false, job.src);
                        pos += n;
                    }
                    raw.clear();
                    Ok(true)
                })();
                if buf.capacity() <= MAX_KEPT_SERIAL_BLOCK_BUFFER {
                    s.block_outs.push(buf);
                }
                r
            }
        }
    })?;
    Ok(fits.then_some(pos))
}

/// The largest block buffer a thread keeps after compressing into a vector alone (larger
/// ones, of chunks of one huge block, are freed after the call).
const MAX_KEPT_SERIAL_BLOCK_BUFFER: usize = 1 << 20;

/// A block's bytes in the buffer it was compressed into (`len` bytes at `BLOCK_OUT_OFFSET`),
/// or in its compact copy (see [`compact_block`]).
fn block_bytes(buf: &[u8], len: usize, compact: bool) -> &[u8] {
    if compact {
        buf
    } else {
        &buf[BLOCK_OUT_OFFSET..BLOCK_OUT_OFFSET + len]
    }
}

/// Appends a block compressed into `block` (`block.len()` bytes in the chunk) to `v`: its
/// bytes, with the streams stored raw, `raw` (relative to the block's start), copied from
/// `src`. `block` holds the bytes between them at their places in the block, or only those
/// bytes, one after another, when `compact` (see [`compact_block`]).
fn append_block(v: &mut Vec<u8>, block: &[u8], raw: &[RawCopy], compact: bool, src: &[u8]) {
    let len = if compact {
        block.len() + raw.iter().map(|c| c.len).sum::<usize>()
    } else {
        block.len()
    };
    let mut from = 0;
    let mut at = 0;
    for c in raw {
        let n = c.to - at;
        v.extend_from_slice(&block[from..from + n]);
        v.extend_from_slice(&src[c.from..c.from + c.len]);
        from = if compact { from + n } else { from + n + c.len };
        at = c.to + c.len;
    }
    v.extend_from_slice(&block[from..from + (len - at)]);
}

/// Below this many bytes of raw streams in all, one thread copies them.
const PARALLEL_RAW_COPY: usize = 256 << 10;

/// Copies the streams stored raw, `raw` (in increasing order of `to`, as blocks and their
/// streams are placed), from `src` into `dst`: on `pool`'s threads when there is one and the
/// bytes are many, as each thread copied its own blocks' raw streams before the copies were
/// deferred (one thread alone copying them after the parallel phase left the others idle).
fn copy_raw_streams(
    pool: Option<&Pool>,
    dst: &mut [u8],
    src: &[u8],
    raw: &[RawCopy],
) -> Result<()> {
    let total: usize = raw.iter().map(|c| c.len).sum();
    let pool = match pool {
        Some(pool) if raw.len() > 1 && total >= PARALLEL_RAW_COPY => pool,
        _ => {
            for c in raw {
                copy_bytes(&mut dst[c.to..c.to + c.len], &src[c.from..c.from + c.len]);
            }
            return Ok(());
        }
    };
    // Disjoint places in `dst`, cut in order, each behind its own lock for whichever thread
    // takes it.
    let mut pieces = Vec::with_capacity(raw.len());
    let (mut rest, mut at) = (dst, 0);
    for c in raw {
        let skip = c.to.checked_sub(at).ok_or(Error::Failure)?;
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(skip);
        let (piece, tail) = tail.split_at_mut(c.len);
        pieces.push(Mutex::new(Some((piece, &src[c.from..c.from + c.len]))));
        (rest, at) = (tail, c.to + c.len);
    }
    super::runner::for_each_item(pool, pieces.len(), |i, _| {
        let piece = pieces[i].lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some((to, from)) = piece {
            copy_bytes(to, from);
        }
        Ok(())
    })
}

/// The blocks compressed in parallel, as placed in the chunk: their starts relative to the
/// first block and the bytes they take.
struct PlacedBlocks {
    bstarts: Vec<i32>,
    len: usize,
    /// The streams stored raw, still to copy from the source (offsets relative to the first
    /// block, as `bstarts`).
    raw: Vec<RawCopy>,
}

/// A block compressed before the blocks ahead of it were written, waiting in its buffer
/// (without its streams stored raw, listed in `raw` relative to the block's start).
struct Finished {
    nblock: usize,
    buf: Vec<u8>,
    len: usize,
    raw: Vec<RawCopy>,
    /// `buf` is a compact copy (see [`compact_block`]), not a block buffer counted in use.
    compact: bool,
}

/// A block's place in the chunk and the buffer holding its bytes, to copy outside the lock:
/// the bytes between the raw streams (listed relative to the block's start).
struct Copy<'d> {
    region: &'d mut [u8],
    buf: Vec<u8>,
    raw: Vec<RawCopy>,
    /// `buf` holds only the bytes between the raw streams, one after another (see
    /// [`compact_block`]), not a block buffer.
    compact: bool,
}

impl Copy<'_> {
    fn run(&mut self) {
        // Where the next bytes between raw streams are in `buf`.
        let mut from = if self.compact { 0 } else { BLOCK_OUT_OFFSET };
        let mut at = 0;
        for c in &self.raw {
            let n = c.to - at;
            copy_bytes(&mut self.region[at..c.to], &self.buf[from..from + n]);
            from = if self.compact {
                from + n
            } else {
                from + n + c.len
            };
            at = c.to + c.len;
        }
        let n = self.region.len() - at;
        copy_bytes(&mut self.region[at..], &self.buf[from..from + n]);
    }
}

/// A finished block whose bytes between its raw streams are this small a part of its block
/// buffer or less waits for its turn in a copy of just those bytes, and its thread goes on
/// with its buffer (see [`compact_block`]).
const COMPACT_FRACTION: usize = 32;

/// The bytes a block compressed into `len` bytes keeps between its raw streams `raw`: what
/// [`compact_block`] copies.
fn kept_bytes(len: usize, raw: &[RawCopy]) -> Option<usize> {
    len.checked_sub(raw.iter().map(|c| c.len).sum())
}

/// Whether a finished block that keeps `kept` bytes between its raw streams waits for its turn
/// in a compact copy (see [`compact_block`]) rather than in its block buffer of `need` bytes:
/// always when they are at most 1/[`COMPACT_FRACTION`] of the buffer; otherwise when the
/// compact copies waiting, with this one, stay within [`COMPACT_BUDGET_PER_THREAD`] block
/// buffers' worth per thread (`nthreads`) and [`COMPACT_BUDGET_MAX`] bytes, for blocks
/// (`block_len` bytes) of at most [`COMPACT_BLOCK_MAX`].
fn compacts(
    kept: usize,
    need: usize,
    block_len: usize,
    compact_waiting: usize,
    nthreads: usize,
) -> bool {
    let budget = need
        .saturating_mul(COMPACT_BUDGET_PER_THREAD.saturating_mul(nthreads))
        .min(COMPACT_BUDGET_MAX);
    kept.saturating_mul(COMPACT_FRACTION) <= need
        || block_len <= COMPACT_BLOCK_MAX && compact_waiting.saturating_add(kept) <= budget
}

/// The bytes of compact copies that may wait for their turn, in block buffers (beyond the
/// small ones of mostly raw blocks). A block that waited in its buffer took one of the buffers
/// the threads may hold, and a thread that ran ahead of a slower one then waited for the slower
/// block (spinning, then sleeping), either with its next block finished or for a buffer to
/// compress it into: python-blosc2's expressions, which compress each result chunk on 2 threads,
/// slept 5 times as often as on c-blosc2 (which writes blocks in the order they finish, so its
/// threads never wait). A copy of just the block's compressed bytes (a memcpy of a fraction of
/// the time the block took to compress) leaves the buffer to its thread. A budget of 1 block
/// buffer's worth in all still left a thread waiting once per chunk (zstd-1 f64 2 MB chunks of
/// 25 blocks on 2 threads, a loaded machine: 6.0 voluntary context switches per compression
/// against c-blosc2's 3.4); 2 per thread, 3.3. c-blosc2's threads each hold several block-sized
/// buffers of their own.
const COMPACT_BUDGET_PER_THREAD: usize = 2;

/// The most bytes of compact copies that may wait (see [`COMPACT_BUDGET_PER_THREAD`]), and
/// ([`COMPACT_BLOCK_MAX`]) the largest blocks copied so: the waits cost most with small
/// blocks (a wake-up is a larger part of a block's time), which this lets run several blocks
/// ahead, while large blocks' copies added to the peak memory (2 MB more for 4 MiB zstd-1 f64
/// chunks on 2 threads, 1.23x c-blosc2's peak RSS; with this cap alone, up to 1.12x in other
/// rows of bench/matrix.sh, against 1.05x without the copies).
const COMPACT_BUDGET_MAX: usize = 256 << 10;
/// See [`COMPACT_BUDGET_MAX`]: 128 KiB, a block size c-blosc2 often chooses.
const COMPACT_BLOCK_MAX: usize = 128 << 10;

/// The bytes of a block compressed into `buf` (`len` bytes at `BLOCK_OUT_OFFSET`) between its
/// raw streams `raw`, one after another (None when `raw` does not fit in `len`). A block of
/// mostly incompressible data (its streams stored raw from the source) is then kept in a few
/// bytes rather than in a block buffer: it no longer counts against the buffers the threads
/// may hold, whose cap made a thread that ran ahead of a slow block wait (blosclz+noshuf f64 at
/// 2 threads, where incompressible blocks give up early and the compressible ones take several
/// times longer, was slower than one thread); see [`compacts`] for which blocks are.
fn compact_block(buf: &[u8], len: usize, raw: &[RawCopy]) -> Option<Vec<u8>> {
    let kept = kept_bytes(len, raw)?;
    let block = &buf[BLOCK_OUT_OFFSET..BLOCK_OUT_OFFSET + len];
    let mut out = Vec::with_capacity(kept);
    let mut at = 0;
    for c in raw {
        out.extend_from_slice(&block[at..c.to]);
        at = c.to + c.len;
    }
    out.extend_from_slice(&block[at..]);
    Some(out)
}

/// Where the blocks compressed in parallel go. Blocks are written in block order, so the chunk
/// holds the bytes a serial run writes whatever the number of threads (c-blosc2 appends blocks
/// as they finish). The thread that takes the next block to write while nothing is pending
/// compresses it straight into the chunk; the others compress into buffers. A block that
/// finishes before its turn waits in its buffer while its thread goes on with another block, as
/// long as the threads hold no more buffers than there are threads (one each, as when every
/// thread waits for its turn with its own buffer: peak memory stays that of one block buffer
/// per thread); otherwise its thread waits for its turn.
struct Placement<'d> {
    /// The next block to hand out.
    taken: usize,
    /// The next block to write and its offset.
    next: usize,
    pos: usize,
    /// The output from `pos` on; None while lent to the thread compressing block `next` into it.
    rest: Option<&'d mut [u8]>,
    /// Or the vector the blocks are appended to (under the lock, as they come in block order),
    /// and the most bytes it may hold.
    vec: Option<(&'d mut Vec<u8>, usize)>,
    bstarts: Vec<i32>,
    /// Streams stored raw from the source, to copy (offsets in the output) once every block is
    /// placed: when the chunk does not fit, it becomes a plain copy and they are never copied.
    raw: Vec<RawCopy>,
    /// Blocks compressed before their turn.
    finished: Vec<Finished>,
    /// Block buffers free for reuse.
    spare: Vec<Vec<u8>>,
    /// Buffers in threads' hands or in `finished`, and how many may be.
    in_use: usize,
    max_in_use: usize,
    /// Bytes of the compact copies in `finished`.
    compact_waiting: usize,
    /// Threads waiting on the condition variable (it is signalled only when one is).
    sleepers: usize,
    /// The lowest block that failed, with its error (None: it did not fit); once set, no
    /// thread takes another block.
    failure: Option<(usize, Option<Error>)>,
}

impl<'d> Placement<'d> {
    fn fail(&mut self, nblock: usize, error: Option<Error>) {
        if self.failure.as_ref().is_none_or(|(b, _)| nblock < *b) {
            self.failure = Some((nblock, error));
        }
    }

    fn stopped(&self) -> bool {
        self.failure.is_some()
    }

    /// Takes back a block buffer a thread held or a finished block waited in.
    fn give_back(&mut self, buf: Vec<u8>) {
        self.spare.push(buf);
        self.in_use -= 1;
    }

    /// Records block `next`, `len` bytes at `pos` with its raw streams `raw` (relative to the
    /// block), and returns its place (None: it does not fit).
    fn place(&mut self, len: usize, raw: &[RawCopy]) -> Option<&'d mut [u8]> {
        let rest = self.rest.take()?;
        if len > rest.len() {
            self.rest = Some(rest);
            self.fail(self.next, None);
            return None;
        }
        let (region, rest) = rest.split_at_mut(len);
        self.rest = Some(rest);
        self.record(len, raw);
        Some(region)
    }

    /// Appends block `next`, `len` bytes compressed into `block` (see [`append_block`]) to the
    /// vector the blocks go to; false when it does not fit (or the blocks go to a buffer).
    fn append(
        &mut self,
        block: &[u8],
        len: usize,
        raw: &[RawCopy],
        compact: bool,
        src: &[u8],
    ) -> bool {
        let Some((v, room)) = self.vec.as_mut() else {
            return false;
        };
        if v.len() + len > *room {
            self.fail(self.next, None);
            return false;
        }
        append_block(v, block, raw, compact, src);
        self.record(len, &[]);
        true
    }

    /// Records block `next` as `len` bytes at `pos`, its raw streams `raw` relative to it.
    fn record(&mut self, len: usize, raw: &[RawCopy]) {
        let start = self.pos;
        self.raw.extend(raw.iter().map(|c| RawCopy {
            to: start + c.to,
            ..*c
        }));
        self.bstarts.push(start as i32);
        self.pos += len;
        self.next += 1;
    }

    /// Places the finished blocks that are now next in line, for the caller to copy (appends
    /// them when the blocks go to a vector).
    fn place_finished(&mut self, copies: &mut Vec<Copy<'d>>, src: &[u8]) {
        while let Some(i) = self.finished.iter().position(|f| f.nblock == self.next) {
            let f = self.finished.swap_remove(i);
            if f.compact {
                self.compact_waiting -= f.buf.len();
            }
            if self.vec.is_some() {
                let block = block_bytes(&f.buf, f.len, f.compact);
                let placed = self.append(block, f.len, &f.raw, f.compact, src);
                if !f.compact {
                    self.give_back(f.buf);
                }
                if !placed {
                    return;
                }
                continue;
            }
            match self.place(f.len, &f.raw) {
                Some(region) => copies.push(Copy {
                    region,
                    buf: f.buf,
                    raw: f.raw,
                    compact: f.compact,
                }),
                None => {
                    if !f.compact {
                        self.give_back(f.buf);
                    }
                    return;
                }
            }
        }
    }
}

fn lock<'a, 'd>(m: &'a Mutex<Placement<'d>>) -> MutexGuard<'a, Placement<'d>> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Compresses all blocks on `pool`'s threads into `out`, in block order; None when they do not
/// fit. Blocks are handed out in order to whichever thread is free (see [`Placement`]).
fn compress_blocks_parallel(
    job: &BlockJob<'_>,
    pool: &Pool,
    out: Dst<'_>,
) -> Result<Option<PlacedBlocks>> {
    let spare = with_scratch(|s| std::mem::take(&mut s.block_outs));
    let (rest, vec) = match out {
        Dst::Slice(d) => (Some(d), None),
        Dst::Vec(v, room) => (None, Some((v, room))),
    };
    // Blocks appended to a vector all go through buffers: one more then, for the block that
    // compresses straight into a chunk buffer otherwise (with one buffer per thread alone, a
    // thread that finished the block after the one being compressed waited for it: 4.4% of
    // bitshuffle+zstd-3 t2's samples spinning against 3.1%).
    let max_in_use = pool.nthreads() + usize::from(vec.is_some());
    let placement = Mutex::new(Placement {
        taken: 0,
        next: 0,
        pos: 0,
        rest,
        vec,
        bstarts: Vec::with_capacity(job.nblocks),
        raw: Vec::new(),
        finished: Vec::new(),
        spare,
        in_use: 0,
        // One buffer per thread. A buffer more with DELTA (whose block 0 is slow) once made
        // delta+shuffle+lz4 at 2 threads 11% faster; since a waiting block is compacted out of
        // its buffer (compact_block) it gains nothing (blosclz-5+delta+shuffle t2: 968-977 us
        // either way) and cost 0.3-0.5 MiB of peak RSS (up to 1.05x c-blosc2's).
        max_in_use,
        compact_waiting: 0,
        sleepers: 0,
        failure: None,
    });
    // Signalled whenever the next block to write moves on, a buffer is freed or the run stops.
    let changed = Changes {
        condvar: Condvar::new(),
        count: AtomicUsize::new(0),
    };
    pool.run(&|worker| compress_blocks_worker(job, worker, &placement, &changed));
    let Placement {
        next,
        pos,
        bstarts,
        raw,
        finished,
        spare: mut buffers,
        failure,
        ..
    } = placement.into_inner().unwrap_or_else(|e| e.into_inner());
    buffers.extend(finished.into_iter().filter(|f| !f.compact).map(|f| f.buf));
    // Keep the buffers for the next call unless they hold a lot of memory.
    if buffers.iter().map(Vec::capacity).sum::<usize>() <= MAX_KEPT_BLOCK_BUFFERS {
        with_scratch(|s| s.block_outs = buffers);
    }
    match failure {
        Some((_, Some(e))) => Err(e),
        Some((_, None)) => Ok(None),
        // A job runner that did not run every job leaves blocks out.
        None if next != job.nblocks => Err(Error::ThreadCreate),
        None => Ok(Some(PlacedBlocks {
            bstarts,
            len: pos,
            raw,
        })),
    }
}

/// Signals changes of a [`Placement`] to the threads waiting for one.
struct Changes {
    condvar: Condvar,
    /// Counts the changes, so that a waiter can watch for one without the lock.
    count: AtomicUsize,
}

/// How long a thread waits awake for a change before it sleeps: the wait for the block before
/// it is usually shorter than a sleeping thread takes to wake up again.
const SPIN_BEFORE_SLEEP: Duration = Duration::from_micros(50);

impl Changes {
    /// Records a change of `st` (the caller holds the lock) and wakes the threads sleeping.
    fn signal(&self, st: &Placement<'_>) {
        self.count.fetch_add(1, Ordering::Release);
        if st.sleepers > 0 {
            self.condvar.notify_all();
        }
    }

    /// Releases `st` until it changes, and returns it locked again.
    fn wait<'a, 'd>(
        &self,
        placement: &'a Mutex<Placement<'d>>,
        mut st: MutexGuard<'a, Placement<'d>>,
    ) -> MutexGuard<'a, Placement<'d>> {
        let seen = self.count.load(Ordering::Relaxed);
        drop(st);
        super::runner::spin_until(SPIN_BEFORE_SLEEP, || {
            self.count.load(Ordering::Acquire) != seen
        });
        st = lock(placement);
        if self.count.load(Ordering::Relaxed) != seen {
            return st;
        }
        // Changes are made under the lock, and this thread sleeps before releasing it.
        st.sleepers += 1;
        let mut st = self.condvar.wait(st).unwrap_or_else(|e| e.into_inner());
        st.sleepers -= 1;
        st
    }
}

/// One thread's part of [`compress_blocks_parallel`]: takes blocks until none is left.
fn compress_blocks_worker<'d>(
    job: &BlockJob<'_>,
    worker: usize,
    placement: &Mutex<Placement<'d>>,
    changed: &Changes,
) {
    Worker {
        job,
        worker,
        placement,
        changed,
        held: None,
        copies: Vec::new(),
        raw: Vec::new(),
    }
    .run();
}

/// A thread's hold on a [`Placement`].
type Guard<'a, 'd> = MutexGuard<'a, Placement<'d>>;

/// How a thread goes on after compressing a block into its buffer.
enum Next<'a, 'd> {
    /// With the blocks that are now in line, then the next block.
    Go(Guard<'a, 'd>),
    /// The block failed: no more blocks.
    Stop(Guard<'a, 'd>),
    /// It had no buffer (cannot happen: it takes one first).
    Quit,
}

/// One thread of [`compress_blocks_parallel`] and what it holds between blocks.
struct Worker<'a, 'j, 'd> {
    job: &'a BlockJob<'j>,
    worker: usize,
    placement: &'a Mutex<Placement<'d>>,
    changed: &'a Changes,
    /// The buffer this thread compresses into, when it has one.
    held: Option<Vec<u8>>,
    /// Blocks placed by this thread, to copy into the chunk outside the lock.
    copies: Vec<Copy<'d>>,
    /// The raw streams of the block being compressed.
    raw: Vec<RawCopy>,
}

impl<'a, 'd> Worker<'a, '_, 'd> {
    fn lock(&self) -> Guard<'a, 'd> {
        lock(self.placement)
    }

    fn wait(&self, st: Guard<'a, 'd>) -> Guard<'a, 'd> {
        self.changed.wait(self.placement, st)
    }

    fn wake(&self, st: &Guard<'a, 'd>) {
        self.changed.signal(st)
    }

    fn run(mut self) {
        let mut st = self.lock();
        while !st.stopped() && st.taken < self.job.nblocks {
            let nblock = st.taken;
            let need = self.job.max_block_out(nblock);
            // Nothing is pending before this block: straight into the chunk, when the chunk has
            // room for a buffer's worth (so that the codec sees the room it sees in a buffer: a
            // chunk that just fits is then written as with buffers, whoever compresses it).
            let direct = nblock == st.next && st.rest.as_ref().is_some_and(|r| r.len() >= need);
            if direct {
                let Some(rest) = st.rest.take() else {
                    break;
                };
                st = self.compress_direct(st, rest, nblock, need);
            } else {
                if self.held.is_none() {
                    if st.in_use >= st.max_in_use {
                        st = self.wait(st);
                        continue;
                    }
                    self.held = Some(st.spare.pop().unwrap_or_default());
                    st.in_use += 1;
                }
                st = match self.compress_buffered(st, nblock, need) {
                    Next::Go(st) => st,
                    Next::Stop(stopped) => {
                        st = stopped;
                        break;
                    }
                    Next::Quit => return,
                };
            }
            st = self.copy_placed(st);
        }
        if let Some(buf) = self.held.take() {
            st.give_back(buf);
        }
        self.wake(&st);
    }

    /// Compresses block `nblock`, the next in line, straight into `rest`, the chunk's room from
    /// its place on.
    fn compress_direct(
        &mut self,
        mut st: Guard<'a, 'd>,
        rest: &'d mut [u8],
        nblock: usize,
        need: usize,
    ) -> Guard<'a, 'd> {
        st.taken += 1;
        if let Some(buf) = self.held.take() {
            st.give_back(buf);
            self.wake(&st);
        }
        drop(st);
        self.raw.clear();
        let (job, worker, raw) = (self.job, self.worker, &mut self.raw);
        let r =
            with_scratch(|s| compress_block(job, nblock, worker, &mut rest[..need], s, Some(raw)));
        let mut st = self.lock();
        match r {
            Ok(n) if n > 0 => {
                // The block is in place: record it and give the rest back.
                let (_, after) = rest.split_at_mut(n);
                st.rest = Some(after);
                st.record(n, &self.raw);
            }
            r => st.fail(nblock, r.err()),
        }
        st
    }

    /// Compresses block `nblock` into the thread's buffer, then places it or leaves it waiting
    /// (see [`Worker::settle`]).
    fn compress_buffered(
        &mut self,
        mut st: Guard<'a, 'd>,
        nblock: usize,
        need: usize,
    ) -> Next<'a, 'd> {
        st.taken += 1;
        drop(st);
        let Some(buf) = self.held.as_mut() else {
            return Next::Quit;
        };
        let out = &mut reuse(buf, BLOCK_OUT_OFFSET + need)[BLOCK_OUT_OFFSET..];
        self.raw.clear();
        let (job, worker, raw) = (self.job, self.worker, &mut self.raw);
        let r = with_scratch(|s| compress_block(job, nblock, worker, out, s, Some(raw)));
        let mut st = self.lock();
        match r {
            Ok(n) if n > 0 => Next::Go(self.settle(st, nblock, need, n)),
            r => {
                st.fail(nblock, r.err());
                self.wake(&st);
                Next::Stop(st)
            }
        }
    }

    /// Block `nblock`, compressed into `n` bytes of the thread's buffer: appended or placed when
    /// it is next in line, else left waiting in a compact copy or in its buffer, else waited
    /// with until one of those can be done.
    fn settle(
        &mut self,
        mut st: Guard<'a, 'd>,
        nblock: usize,
        need: usize,
        n: usize,
    ) -> Guard<'a, 'd> {
        // The block's bytes copied out of `held` (see compact_block), once it has to wait.
        let mut compact: Option<Vec<u8>> = None;
        let mut compacted = false;
        loop {
            if st.stopped() {
                break;
            }
            if st.next == nblock && st.vec.is_some() {
                // Appended now, under the lock; the buffer stays with this thread.
                let (block, compact) = match (&compact, &self.held) {
                    (Some(bytes), _) => (&bytes[..], true),
                    (None, Some(buf)) => (block_bytes(buf, n, false), false),
                    (None, None) => break,
                };
                st.append(block, n, &self.raw, compact, self.job.src);
                break;
            }
            if st.next == nblock {
                if let Some(region) = st.place(n, &self.raw) {
                    let (buf, compact) = match compact.take() {
                        Some(bytes) => (Some(bytes), true),
                        None => (self.held.take(), false),
                    };
                    if let Some(buf) = buf {
                        self.copies.push(Copy {
                            region,
                            buf,
                            raw: std::mem::take(&mut self.raw),
                            compact,
                        });
                    }
                }
                break;
            }
            if let Some(bytes) = compact.take() {
                // Waits in its copy: this thread keeps its buffer and goes on.
                st.compact_waiting += bytes.len();
                st.finished.push(Finished {
                    nblock,
                    buf: bytes,
                    len: n,
                    raw: std::mem::take(&mut self.raw),
                    compact: true,
                });
                break;
            }
            let kept = kept_bytes(n, &self.raw).unwrap_or(usize::MAX);
            let block_len = self.job.block_len(nblock);
            if !compacted && compacts(kept, need, block_len, st.compact_waiting, st.max_in_use) {
                compacted = true;
                if let Some(buf) = self.held.as_ref() {
                    drop(st);
                    compact = compact_block(buf, n, &self.raw);
                    st = self.lock();
                    // The lock was released: the block may be next by now, and the change
                    // that made it so has been signalled already (waiting for another one
                    // could wait forever).
                    continue;
                }
            }
            if st.in_use < st.max_in_use {
                // Another buffer may be taken: leave this block to whoever writes the one
                // before it and go on.
                if let Some(buf) = self.held.take() {
                    st.finished.push(Finished {
                        nblock,
                        buf,
                        len: n,
                        raw: std::mem::take(&mut self.raw),
                        compact: false,
                    });
                }
                break;
            }
            st = self.wait(st);
        }
        st
    }

    /// Places the finished blocks now in line and copies the blocks this thread placed into
    /// the chunk, outside the lock; keeps one block buffer for the next block.
    fn copy_placed(&mut self, mut st: Guard<'a, 'd>) -> Guard<'a, 'd> {
        st.place_finished(&mut self.copies, self.job.src);
        self.wake(&st);
        if self.copies.is_empty() {
            return st;
        }
        drop(st);
        for c in self.copies.iter_mut() {
            c.run();
        }
        let mut st = self.lock();
        for Copy { buf, compact, .. } in self.copies.drain(..) {
            // This thread's own buffer stays in its hands for the next block; a compact copy
            // is dropped.
            if compact {
                continue;
            }
            if self.held.is_none() {
                self.held = Some(buf);
            } else {
                st.give_back(buf);
            }
        }
        self.wake(&st);
        st
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::params::{BlockCallback, DParams, UserCodec, ALWAYS_SPLIT};
    use crate::chunk::{Compressor, Decompressor};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    /// A codec that stores its input as it is and counts its encoder calls.
    #[derive(Default)]
    struct CountingCodec(AtomicUsize);

    impl UserCodec for CountingCodec {
        fn encode(&self, src: &[u8], dst: &mut [u8], _: u8, _: &CParams, _: &[u8]) -> i32 {
            self.0.fetch_add(1, Ordering::Relaxed);
            if src.len() > dst.len() {
                return 0;
            }
            dst[..src.len()].copy_from_slice(src);
            src.len() as i32
        }
        fn decode(&self, src: &[u8], dst: &mut [u8], _: u8, _: &DParams, _: &[u8], _: i32) -> i32 {
            dst[..src.len()].copy_from_slice(src);
            src.len() as i32
        }
    }

    /// A reduction's prefilter: sums its input, writes it plus one as its output, and fails
    /// when told to.
    struct Summing {
        disposable: bool,
        fail: AtomicBool,
        sum: AtomicUsize,
        calls: AtomicUsize,
    }

    impl BlockCallback for Summing {
        fn call(&self, input: &[u8], output: &mut [u8], _: BlockInfo) -> i32 {
            let s: usize = input.iter().map(|&b| b as usize).sum();
            self.sum.fetch_add(s, Ordering::Relaxed);
            self.calls.fetch_add(1, Ordering::Relaxed);
            for (o, i) in output.iter_mut().zip(input) {
                *o = i.wrapping_add(1);
            }
            i32::from(self.fail.load(Ordering::Relaxed))
        }
        fn output_is_disposable(&self) -> bool {
            self.disposable
        }
    }

    #[test]
    fn disposable_prefilter_output_is_stored_as_zeros_without_the_codec() {
        let src: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let want_sum: usize = src.iter().map(|&b| b as usize).sum();
        for nthreads in [1, 2] {
            for (disposable, fail) in [(true, false), (true, true), (false, false)] {
                let codec = Arc::new(CountingCodec::default());
                let pre = Arc::new(Summing {
                    disposable,
                    fail: AtomicBool::new(fail),
                    sum: AtomicUsize::new(0),
                    calls: AtomicUsize::new(0),
                });
                let params = CParams {
                    compcode: 200,
                    typesize: 4,
                    blocksize: 16384,
                    splitmode: ALWAYS_SPLIT,
                    nthreads,
                    user_codec: Some(codec.clone()),
                    prefilter: Some(pre.clone()),
                    ..CParams::default()
                };
                // Room for the streams stored raw with their sizes: no fallback to a copy.
                let mut chunk = vec![0u8; 2 * src.len()];
                let n = Compressor::new(params)
                    .unwrap()
                    .compress(&src, &mut chunk)
                    .unwrap();
                let what = format!("nthreads {nthreads} disposable {disposable} fail {fail}");
                // Every block went through the prefilter once, whatever happened after.
                assert_eq!(pre.calls.load(Ordering::Relaxed), 19, "{what}");
                assert_eq!(pre.sum.load(Ordering::Relaxed), want_sum, "{what}");
                let header = ChunkHeader::parse(&chunk[..n]).unwrap();
                let mut out = vec![1u8; src.len()];
                Decompressor::new(DParams::default())
                    .unwrap()
                    .decompress(&chunk[..n], &mut out, None)
                    .unwrap();
                if disposable {
                    assert_eq!(codec.0.load(Ordering::Relaxed), 0, "{what}: codec ran");
                    assert_eq!(n, EXTENDED_HEADER_LENGTH, "{what}");
                    assert_eq!(header.special().unwrap(), Special::Zero, "{what}");
                    assert!(out.iter().all(|&b| b == 0), "{what}");
                } else {
                    // 4-byte items split in 4 streams a block, 18 blocks and a leftover one.
                    assert_eq!(codec.0.load(Ordering::Relaxed), 18 * 4 + 1, "{what}");
                    assert!(out.iter().zip(&src).all(|(o, s)| *o == s + 1), "{what}");
                }
            }
        }
    }

    /// With a prefilter, a chunk compressed into a vector is the chunk compressed into a
    /// buffer: compressed blocks, a plain copy (clevel 0, where the prefilter writes into the
    /// chunk) and a disposable output (a zeros chunk).
    #[test]
    fn with_a_prefilter_a_chunk_compressed_into_a_vector_is_the_buffers() {
        let src: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for nthreads in [1, 2] {
            for (clevel, disposable) in [(5, false), (0, false), (5, true)] {
                let params = CParams {
                    compcode: codecs::LZ4,
                    clevel,
                    typesize: 4,
                    blocksize: 16384,
                    nthreads,
                    prefilter: Some(Arc::new(Summing {
                        disposable,
                        fail: AtomicBool::new(false),
                        sum: AtomicUsize::new(0),
                        calls: AtomicUsize::new(0),
                    })),
                    ..CParams::default()
                };
                let c = Compressor::new(params).unwrap();
                let mut chunk = vec![0u8; src.len() + MAX_OVERHEAD];
                let n = c.compress(&src, &mut chunk).unwrap();
                let mut v = vec![7u8; 3];
                assert_eq!(c.compress_to_vec(&src, &mut v), Ok(n));
                let what = format!("nthreads {nthreads} clevel {clevel} disposable {disposable}");
                assert!(v == chunk[..n], "{what}");
                let mut out = vec![0u8; src.len()];
                Decompressor::new(DParams::default())
                    .unwrap()
                    .decompress(&v, &mut out, None)
                    .unwrap();
                if !disposable {
                    assert!(out.iter().zip(&src).all(|(o, s)| *o == s + 1), "{what}");
                }
            }
        }
    }

    #[test]
    fn a_failing_prefilter_fails_unless_its_output_is_disposable() {
        let src = vec![3u8; 50_000];
        for clevel in [5, 0] {
            for disposable in [false, true] {
                let pre = Arc::new(Summing {
                    disposable,
                    fail: AtomicBool::new(true),
                    sum: AtomicUsize::new(0),
                    calls: AtomicUsize::new(0),
                });
                let params = CParams {
                    clevel,
                    prefilter: Some(pre),
                    ..CParams::default()
                };
                let mut chunk = vec![0u8; src.len() + MAX_OVERHEAD];
                let r = Compressor::new(params).unwrap().compress(&src, &mut chunk);
                if disposable {
                    assert!(r.unwrap() > 0, "clevel {clevel}");
                } else {
                    assert_eq!(r, Err(Error::FilterPipeline), "clevel {clevel}");
                }
            }
        }
    }

    #[test]
    fn a_compact_block_copies_out_as_its_buffer_does() {
        // A 100-byte block whose bytes 10..40 and 70..90 are raw streams (not in the buffer).
        let len = 100;
        let raw = [
            RawCopy {
                to: 10,
                from: 0,
                len: 30,
            },
            RawCopy {
                to: 70,
                from: 500,
                len: 20,
            },
        ];
        let mut buf = vec![0xEEu8; BLOCK_OUT_OFFSET + len];
        for (i, b) in buf[BLOCK_OUT_OFFSET..].iter_mut().enumerate() {
            *b = i as u8;
        }
        // 50 bytes between the raw streams: kept compact for a buffer of 1600 bytes or more.
        assert_eq!(kept_bytes(len, &raw), Some(50));
        assert_eq!(kept_bytes(40, &raw), None);
        assert!(compacts(50, 1600, 1595, 1600, 0));
        assert!(!compacts(50, 1599, 1594, 1599 - 49, 0));
        // A larger one within 2 buffers' worth of copies waiting per thread.
        assert!(compacts(1000, 1599, 1594, 2 * 1599 - 1000, 1));
        assert!(!compacts(1000, 1599, 1594, 2 * 1599 - 999, 1));
        assert!(compacts(1000, 1599, 1594, 4 * 1599 - 1000, 2));
        assert!(!compacts(1000, 1599, 1594, 4 * 1599 - 999, 2));
        assert!(!compacts(usize::MAX, 1599, 1594, 0, 2));
        // At most COMPACT_BUDGET_MAX bytes of them, and only for blocks of COMPACT_BLOCK_MAX
        // bytes or less.
        let big = COMPACT_BLOCK_MAX;
        let kept = big / 16;
        assert!(compacts(kept, big + 5, big, COMPACT_BUDGET_MAX - kept, 2));
        assert!(!compacts(
            kept,
            big + 5,
            big,
            COMPACT_BUDGET_MAX - kept + 1,
            2
        ));
        assert!(!compacts(kept, big + 6, big + 1, 0, 2));
        let compact = compact_block(&buf, len, &raw).unwrap();
        assert_eq!(compact.len(), 50);
        let mut copied = [[0u8; 100]; 2];
        for (out, (bytes, is_compact)) in copied
            .iter_mut()
            .zip([(buf.clone(), false), (compact, true)])
        {
            Copy {
                region: &mut out[..],
                buf: bytes,
                raw: raw.iter().map(|c| RawCopy { ..*c }).collect(),
                compact: is_compact,
            }
            .run();
        }
        assert_eq!(copied[0], copied[1]);
        let want: Vec<u8> = (0..100u8)
            .map(|i| {
                if (10..40).contains(&i) || (70..90).contains(&i) {
                    0
                } else {
                    i
                }
            })
            .collect();
        assert_eq!(&copied[1][..], &want[..]);
    }
}
