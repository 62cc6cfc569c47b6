//! The Blosc2 chunk engine: chunk format, compression, decompression, getitem, special values.

// Every unsafe operation sits in its own `unsafe {}` block with a SAFETY line, also inside
// `unsafe fn`s (the coordinator moves this to lib.rs once src/capi is clean too).

pub mod blocksize;
pub mod compress;
pub(crate) mod copy;
pub(crate) mod decoder;
pub mod decompress;
pub(crate) mod getitem;
pub mod header;
pub mod params;
pub(crate) mod partial;
pub mod pipeline;
pub(crate) mod plugins;
pub mod registry;
pub(crate) mod runner;
pub(crate) mod scratch;
pub mod special;
pub(crate) mod stream;
pub mod vlblocks;

pub use header::ChunkHeader;
pub use params::{CParams, DParams};

use crate::Result;
use runner::Pool;
use std::cell::Cell;
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// The worker pool for `nthreads` (> 1). Contexts asking for the same number of threads share
/// one pool, as c-blosc2 shares its thread pools; it lives as long as a context holds it.
pub(crate) fn make_pool(nthreads: i16) -> Result<Option<Arc<Pool>>> {
    if nthreads <= 1 {
        return Ok(None);
    }
    static POOLS: Mutex<Vec<(i16, Weak<Pool>)>> = Mutex::new(Vec::new());
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    pools.retain(|(_, w)| w.strong_count() > 0);
    if let Some(p) = pools
        .iter()
        .find(|(n, _)| *n == nthreads)
        .and_then(|(_, w)| w.upgrade())
    {
        return Ok(Some(p));
    }
    let pool = Arc::new(Pool::new(nthreads as usize)?);
    pools.push((nthreads, Arc::downgrade(&pool)));
    Ok(Some(pool))
}

/// The pool the global settings keep alive between calls (see [`keep_pool`]).
static KEPT_POOL: Mutex<Option<Arc<Pool>>> = Mutex::new(None);

/// Keeps the worker pool for `nthreads` alive while no context holds it (none for 1 thread),
/// in place of the one kept before, as c-blosc2's global context holds the threads of the
/// global thread count from `blosc2_set_nthreads` (or its first job) on. Without it, every
/// context made and freed around a single call (python-blosc2's `compress2`, the global
/// `blosc2_compress`) started and ended its threads: 4 thread starts, each faulting in a fresh
/// stack, per compress and decompress of a 4 MiB buffer. Fails with
/// [`Error::ThreadCreate`](crate::Error::ThreadCreate) when the pool cannot start (the pool
/// kept before is kept then).
pub(crate) fn keep_pool(nthreads: i16) -> Result<()> {
    let mut kept = KEPT_POOL.lock().unwrap_or_else(|e| e.into_inner());
    let size = |p: &Option<Arc<Pool>>| p.as_ref().map_or(1, |p| p.nthreads());
    if size(&kept) != (nthreads.max(1) as usize) {
        *kept = make_pool(nthreads)?;
    }
    Ok(())
}

/// Lets the kept pool end once no context holds it (`blosc2_free_resources`, `blosc2_destroy`).
pub(crate) fn release_kept_pool() {
    let pool = KEPT_POOL.lock().unwrap_or_else(|e| e.into_inner()).take();
    drop(pool);
}

/// The worker pool of a context with `nthreads` > 1, started at the context's first call that
/// takes it, as c-blosc2 starts a context's threads at its first use: a context made and dropped
/// without one starts no thread. python-blosc2's `blosc2.open` makes and drops four (the
/// super-chunk's compressor and decompressor, then the ones it swaps in), which started and
/// joined 4 threads per open of an array nobody else held: 103-106 us an open against
/// c-blosc2's 67-68. A clone shares the pool once it has started (and the registry of
/// [`make_pool`] before).
#[derive(Clone)]
struct LazyPool {
    nthreads: i16,
    pool: OnceLock<Arc<Pool>>,
}

impl LazyPool {
    fn new(nthreads: i16) -> LazyPool {
        LazyPool {
            nthreads,
            pool: OnceLock::new(),
        }
    }

    /// The pool, started now if it has not been ([`Error::ThreadCreate`](crate::Error) when
    /// it cannot start); None for one thread.
    fn get(&self) -> Result<Option<&Pool>> {
        if self.nthreads <= 1 {
            return Ok(None);
        }
        if self.pool.get().is_none() {
            if let Some(pool) = make_pool(self.nthreads)? {
                // Another thread may have started it meanwhile: both got the registry's pool.
                let _ = self.pool.set(pool);
            }
        }
        Ok(self.pool.get().map(|p| &**p))
    }
}

/// A compression context: parameters plus the worker pool for its `nthreads`. A clone shares
/// the pool.
#[derive(Clone)]
pub struct Compressor {
    params: CParams,
    pool: LazyPool,
}

impl Compressor {
    /// A compressor for `params`, with a worker pool when `nthreads` > 1 (pools are shared
    /// between contexts of the same size; started at the first job, a call that cannot start
    /// it failing with [`Error::ThreadCreate`]). Fails with [`Error::FilterPipeline`] for a
    /// filter id c-blosc2 does not know (built-in ids, its plugin ids 32..=36 and user ids
    /// 160.. pass); the rest of the parameters is checked by each `compress`.
    pub fn new(mut params: CParams) -> Result<Compressor> {
        let pool = Self::start(&mut params)?;
        Ok(Compressor { params, pool })
    }

    /// [`Compressor::new`] for a compressor that lives inside a larger boxed value: `wrap`
    /// places it, and the value is made in its box rather than moved there (moves of large
    /// values are memcpy calls, which showed in the cost of creating a C context).
    #[inline]
    pub fn new_boxed_in<T>(
        params: impl FnOnce() -> CParams,
        wrap: impl FnOnce(Compressor) -> T,
    ) -> Result<Box<T>> {
        let mut params = params();
        let pool = Self::start(&mut params)?;
        let slot = Box::new_uninit();
        Ok(Box::write(slot, wrap(Compressor { params, pool })))
    }

    /// Checks `params`, completes them, and gives the pool they need (started at its first
    /// job).
    fn start(params: &mut CParams) -> Result<LazyPool> {
        compress::validate_for_create(params)?;
        // A registered codec the params name but do not carry (params built without the C
        // layer, such as those of a super-chunk opened from a file).
        if params.user_codec.is_none() && !crate::codecs::is_builtin(params.compcode) {
            params.user_codec = registry::codec(params.compcode).map(|e| e.codec);
        }
        Ok(LazyPool::new(params.nthreads))
    }

    /// The parameters it compresses with.
    pub fn params(&self) -> &CParams {
        &self.params
    }

    /// Changes the array layout the filters that need one see (the super-chunk's metalayer
    /// changed).
    pub fn set_layout(&mut self, layout: Option<Arc<params::ArrayLayout>>) {
        self.params.layout = layout;
    }

    /// Compresses `src` into `dst` as one chunk; returns the chunk's size in bytes, or 0 when
    /// it does not fit in `dst` (a `dst` of `src.len() +`
    /// [`MAX_OVERHEAD`](header::MAX_OVERHEAD) bytes always suffices).
    ///
    /// # Errors
    /// [`Error::MaxBufsizeExceeded`] when `src` is larger than
    /// [`MAX_BUFFERSIZE`](header::MAX_BUFFERSIZE) or `dst` shorter than `MAX_OVERHEAD`;
    /// [`Error::CodecParam`] for a level above 9 (or a dictionary with a codec that takes
    /// none); [`Error::CodecSupport`], [`Error::FilterPipeline`] for a codec or filter that is
    /// neither built in nor given; whatever a user codec, filter or prefilter reports.
    pub fn compress(&self, src: &[u8], dst: &mut [u8]) -> Result<usize> {
        compress::compress(&self.params, self.pool.get()?, src, dst)
    }

    /// Compresses `src` as one chunk into `out` (cleared first; its length becomes the
    /// chunk's size), as [`Compressor::compress`] does into a `dst` of `src.len() +`
    /// [`MAX_OVERHEAD`](header::MAX_OVERHEAD) bytes, but writing no byte past the chunk's:
    /// for callers that keep or copy the chunk, which need not zero a chunk-sized buffer
    /// first. `out` grows as it needs (reserve what the chunk may take to avoid reallocations).
    /// Returns the chunk's size, 0 when it does not fit; the errors are
    /// [`Compressor::compress`]'s.
    pub fn compress_to_vec(&self, src: &[u8], out: &mut Vec<u8>) -> Result<usize> {
        compress::compress_to_vec(
            &self.params,
            self.pool.get()?,
            src,
            out,
            src.len() + header::MAX_OVERHEAD,
        )
    }
}

/// A decompression context. A clone shares the pool.
#[derive(Clone)]
pub struct Decompressor {
    params: DParams,
    pool: LazyPool,
}

impl Decompressor {
    /// A decompressor for `params`, with a worker pool when `nthreads` > 1 (started at its
    /// first job; a call that cannot start it fails with [`Error::ThreadCreate`]).
    pub fn new(params: DParams) -> Result<Decompressor> {
        let pool = LazyPool::new(params.nthreads);
        Ok(Decompressor { params, pool })
    }

    /// [`Decompressor::new`] for a decompressor that lives inside a larger boxed value, made in
    /// its box (as [`Compressor::new_boxed_in`]).
    #[inline]
    pub fn new_boxed_in<T>(
        params: impl FnOnce() -> DParams,
        wrap: impl FnOnce(Decompressor) -> T,
    ) -> Result<Box<T>> {
        let params = params();
        let pool = LazyPool::new(params.nthreads);
        let slot = Box::new_uninit();
        Ok(Box::write(slot, wrap(Decompressor { params, pool })))
    }

    /// A decompressor on `nthreads` threads for the default parameters with every codec and
    /// filter registered so far: what blosc1-style calls without a context decompress with.
    pub fn with_defaults(nthreads: i16) -> Result<Decompressor> {
        Decompressor::new(DParams {
            nthreads,
            user_codecs: registry::all_codecs(),
            user_filters: registry::all_filters(),
            ..DParams::default()
        })
    }

    /// Runs `f` with this thread's one-thread [`Decompressor::with_defaults`], kept between calls
    /// (building one costs more than a getitem of a small chunk) and built again once a codec
    /// or filter has been registered. A call made from inside `f` (a user codec calling back)
    /// gets one of its own.
    pub fn with_serial_default<R>(f: impl FnOnce(&Decompressor) -> Result<R>) -> Result<R> {
        thread_local! {
            /// The kept decompressor, with the registration count it was built at.
            static KEPT: Cell<Option<(usize, Decompressor)>> = const { Cell::new(None) };
        }
        let seen = registry::registrations();
        let d = match KEPT.with(Cell::take) {
            Some((n, d)) if n == seen => d,
            _ => Decompressor::with_defaults(1)?,
        };
        let r = f(&d);
        KEPT.with(|k| k.set(Some((seen, d))));
        r
    }

    /// The parameters it decompresses with.
    pub fn params(&self) -> &DParams {
        &self.params
    }

    /// As [`Compressor::set_layout`].
    pub fn set_layout(&mut self, layout: Option<Arc<params::ArrayLayout>>) {
        self.params.layout = layout;
    }

    /// Decompresses the chunk `src` into `dst`; returns the number of bytes written, the
    /// chunk's nbytes. `maskout`, one flag per block, skips the blocks marked `true` (their
    /// bytes in `dst` are left as they were).
    ///
    /// # Errors
    /// [`Error::WriteBuffer`] when `dst` is shorter than the chunk's nbytes;
    /// [`Error::ReadBuffer`], [`Error::InvalidHeader`] or [`Error::Data`] when `src` is not a
    /// whole, consistent chunk (a mask of the wrong length included);
    /// [`Error::CodecSupport`] for a codec neither built in nor registered; what a postfilter,
    /// user codec or filter reports.
    pub fn decompress(
        &self,
        src: &[u8],
        dst: &mut [u8],
        maskout: Option<&[bool]>,
    ) -> Result<usize> {
        decompress::decompress(
            &self.params,
            self.pool_for(maskout, false)?,
            src,
            dst,
            maskout,
        )
    }

    /// `decompress` for a lazy chunk (blocks fetched through `reader`) or a regular one.
    pub fn decompress_with(
        &self,
        src: &[u8],
        dst: &mut [u8],
        maskout: Option<&[bool]>,
        reader: Option<&dyn decompress::LazyBlocks>,
    ) -> Result<usize> {
        let pool = self.pool_for(maskout, reader.is_some())?;
        decompress::decompress_with(&self.params, pool, src, dst, maskout, reader)
    }

    /// The pool for a decompression reading the blocks `maskout` leaves (all without one):
    /// none when they are few, as c-blosc2's b2nd slices then decode the blocks one at a time
    /// on the calling thread (at most a quarter of the blocks of a chunk read from a file,
    /// a sixteenth of one in memory). Reading a few blocks of a file opened for it otherwise
    /// started the pool's threads, and ended them when the array was freed: 2 thread starts
    /// for python-blosc2's `open(path)[3, 10:20]`, twice its time.
    fn pool_for(&self, maskout: Option<&[bool]>, lazy: bool) -> Result<Option<&Pool>> {
        if let Some(m) = maskout {
            let wanted = m.iter().filter(|masked| !**masked).count();
            if wanted * if lazy { 4 } else { 16 } <= m.len() {
                return Ok(None);
            }
        }
        self.pool.get()
    }

    /// Decodes the byte spans of blocks of chunk `src` one at a time,
    /// passing each to `f` with its index (see [`decompress::for_each_block_part`]);
    /// `Ok(false)` when the chunk is not one it handles.
    pub fn for_each_block_part(
        &self,
        src: &[u8],
        spans: &[decompress::BlockSpan],
        reader: Option<&dyn decompress::LazyBlocks>,
        f: impl FnMut(usize, &decompress::DecodedPart<'_>) -> Result<()>,
    ) -> Result<bool> {
        decompress::for_each_block_part(&self.params, src, spans, reader, f)
    }

    /// Runs `f(item)` for every item in `0..nitems` on the context's threads (on the calling
    /// thread alone without a pool), as its blocks are run: work made of several chunks (a
    /// b2nd slice) shares them out this way. Returns the error of the lowest failed item.
    pub fn for_each_item(
        &self,
        nitems: usize,
        f: impl Fn(usize) -> Result<()> + Sync,
    ) -> Result<()> {
        match self.pool.get()? {
            Some(pool) if nitems > 1 => runner::for_each_item(pool, nitems, |i, _| f(i)),
            _ => (0..nitems).try_for_each(f),
        }
    }

    /// `getitem_bytes` for a lazy chunk (blocks fetched through `reader`) or a regular one.
    pub fn getitem_bytes_with(
        &self,
        src: &[u8],
        start: usize,
        nbytes: usize,
        dst: &mut [u8],
        reader: Option<&dyn decompress::LazyBlocks>,
    ) -> Result<usize> {
        decompress::getitem_bytes_with(&self.params, src, start, nbytes, dst, reader)
    }

    /// Decompresses `nbytes` bytes at byte `start` of a chunk.
    pub fn getitem_bytes(
        &self,
        src: &[u8],
        start: usize,
        nbytes: usize,
        dst: &mut [u8],
    ) -> Result<usize> {
        decompress::getitem_bytes(&self.params, src, start, nbytes, dst)
    }
}

/// (nbytes, cbytes, blocksize) of a chunk, from its header.
pub fn cbuffer_sizes(src: &[u8]) -> Result<(i32, i32, i32)> {
    let h = ChunkHeader::parse(src)?;
    Ok((h.nbytes, h.cbytes, h.blocksize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_few_blocks_through_a_maskout_are_decoded_without_starting_the_pool() {
        let src: Vec<u8> = (0..64 * 4096u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let c = Compressor::new(CParams {
            typesize: 4,
            blocksize: 16384,
            ..CParams::default()
        })
        .unwrap();
        let mut chunk = vec![0u8; src.len() + 4096];
        let n = c.compress(&src, &mut chunk).unwrap();
        chunk.truncate(n);
        let nblocks = src.len() / 16384;
        let two = DParams {
            nthreads: 2,
            ..DParams::default()
        };
        // 4 of 64 blocks in memory (a sixteenth): decoded here, no pool started.
        let d = Decompressor::new(two).unwrap();
        let mask: Vec<bool> = (0..nblocks).map(|i| i % 16 != 3).collect();
        let mut out = vec![0u8; src.len()];
        assert_eq!(
            d.decompress(&chunk, &mut out, Some(&mask)).unwrap(),
            src.len()
        );
        for (i, block) in out.chunks(16384).enumerate() {
            if !mask[i] {
                assert!(block == &src[i * 16384..(i + 1) * 16384], "block {i}");
            }
        }
        assert!(d.pool.pool.get().is_none());
        // 5 blocks: the pool decodes them.
        let mask: Vec<bool> = (0..nblocks).map(|i| i % 16 != 3 && i != 0).collect();
        d.decompress(&chunk, &mut out, Some(&mask)).unwrap();
        assert!(out[..16384] == src[..16384]);
        assert!(d.pool.pool.get().is_some());
    }
}
