//! The Blosc2 chunk engine: chunk format, compression, decompression, getitem, special values.

pub mod blocksize;
pub mod compress;
pub mod copy;
pub mod decompress;
pub mod header;
pub mod params;
pub mod pipeline;
pub mod plugins;
pub mod registry;
pub mod runner;
pub mod scratch;
pub mod special;
pub mod vlblocks;

pub use header::ChunkHeader;
pub use params::{CParams, DParams};

use crate::Result;
use runner::Pool;
use std::sync::{Arc, Mutex, Weak};

/// The worker pool for `nthreads` (> 1). Contexts asking for the same number of threads share
/// one pool, as c-blosc2 shares its thread pools; it lives as long as a context holds it.
pub fn make_pool(nthreads: i16) -> Result<Option<Arc<Pool>>> {
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

/// A compression context: parameters plus the worker pool for its `nthreads`.
pub struct Compressor {
    params: CParams,
    pool: Option<Arc<Pool>>,
}

impl Compressor {
    pub fn new(params: CParams) -> Result<Compressor> {
        compress::validate_for_create(&params)?;
        let pool = make_pool(params.nthreads)?;
        Ok(Compressor { params, pool })
    }

    pub fn params(&self) -> &CParams {
        &self.params
    }

    /// Compresses `src` into `dst`; the chunk size, or 0 when it does not fit.
    pub fn compress(&self, src: &[u8], dst: &mut [u8]) -> Result<usize> {
        compress::compress(&self.params, self.pool.as_deref(), src, dst)
    }
}

/// A decompression context.
pub struct Decompressor {
    params: DParams,
    pool: Option<Arc<Pool>>,
}

impl Decompressor {
    pub fn new(params: DParams) -> Result<Decompressor> {
        let pool = make_pool(params.nthreads)?;
        Ok(Decompressor { params, pool })
    }

    pub fn params(&self) -> &DParams {
        &self.params
    }

    /// Decompresses a chunk into `dst`; returns its nbytes.
    pub fn decompress(
        &self,
        src: &[u8],
        dst: &mut [u8],
        maskout: Option<&[bool]>,
    ) -> Result<usize> {
        decompress::decompress(&self.params, self.pool.as_deref(), src, dst, maskout)
    }

    /// `decompress` for a lazy chunk (blocks fetched through `reader`) or a regular one.
    pub fn decompress_with(
        &self,
        src: &[u8],
        dst: &mut [u8],
        maskout: Option<&[bool]>,
        reader: Option<&dyn decompress::LazyBlocks>,
    ) -> Result<usize> {
        decompress::decompress_with(
            &self.params,
            self.pool.as_deref(),
            src,
            dst,
            maskout,
            reader,
        )
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
