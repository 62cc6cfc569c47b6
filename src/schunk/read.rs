//! Reading chunks: whole, lazily from a frame on disk, decompressed.

use std::borrow::Cow;
use std::mem::MaybeUninit;

use super::{Chunks, Schunk};
use crate::chunk::ChunkHeader;
use crate::frame::ChunkBytes;
use crate::{Error, Result};

impl Schunk {
    // ----- reading chunks ------------------------------------------------------------------

    pub(super) fn index(&self, nchunk: i64) -> Result<usize> {
        if nchunk < 0 || nchunk >= self.nchunks() {
            return Err(Error::InvalidParam);
        }
        Ok(nchunk as usize)
    }

    /// The compressed chunk `nchunk` (borrowed when it is in memory).
    pub fn get_chunk(&self, nchunk: i64) -> Result<Cow<'_, [u8]>> {
        let _held = self.hold(false)?;
        let i = self.index(nchunk)?;
        self.chunks.get(i)
    }

    /// Like `get_chunk`, but a chunk read from disk goes into the buffer `alloc` returns for its
    /// length (one the caller hands on as it is), not into a zeroed vector of its own.
    pub fn get_chunk_into<'b>(
        &self,
        nchunk: i64,
        alloc: &mut dyn FnMut(usize) -> Result<&'b mut [MaybeUninit<u8>]>,
    ) -> Result<ChunkBytes<'_, 'b>> {
        let _held = self.hold(false)?;
        let i = self.index(nchunk)?;
        self.chunks.get_into(i, alloc)
    }

    /// Like `get_chunk`, but a chunk of a frame on disk comes back lazy (see
    /// `Frame::lazy_chunk`); decompress it with `decompress_lazy`.
    pub fn get_lazychunk(&self, nchunk: i64) -> Result<Cow<'_, [u8]>> {
        let _held = self.hold(false)?;
        let i = self.index(nchunk)?;
        self.chunks.get_lazy(i)
    }

    /// Decompresses a chunk returned by `get_lazychunk` (lazy or not) into `dst`.
    pub fn decompress_lazy(
        &self,
        chunk: &[u8],
        dst: &mut [u8],
        maskout: Option<&[bool]>,
    ) -> Result<usize> {
        let h = ChunkHeader::parse(chunk)?;
        let frame = self.frame();
        if h.is_lazy() && h.is_vl_blocks() {
            // The chunk engine decodes VL-block chunks from whole chunks only.
            let whole = frame.ok_or(Error::InvalidParam)?.unlazy(chunk)?;
            return self.decompressor().decompress(&whole, dst, maskout);
        }
        let reader = frame.map(|f| f as &dyn crate::chunk::decompress::LazyBlocks);
        self.decompressor()
            .decompress_with(chunk, dst, maskout, reader)
    }

    /// Decompresses chunk `nchunk` into `dst`; returns its size. `maskout` skips blocks.
    pub fn decompress_chunk(
        &self,
        nchunk: i64,
        dst: &mut [u8],
        maskout: Option<&[bool]>,
    ) -> Result<usize> {
        // Held through the decompression: a lazy chunk reads its blocks then.
        let _held = self.hold(false)?;
        self.observe_chunk(nchunk);
        let mut decode = |chunk: &[u8]| {
            let h = ChunkHeader::parse(chunk)?;
            if dst.len() < h.nbytes as usize {
                // c-blosc2 says so with different codes for frames and chunk lists.
                return Err(if self.frame().is_some() {
                    Error::Data
                } else {
                    Error::InvalidParam
                });
            }
            let n = self.decompress_lazy(chunk, dst, maskout)?;
            if n != h.nbytes as usize {
                return Err(Error::Failure);
            }
            Ok(n)
        };
        // With a mask, a chunk on disk is read lazily: masked-out blocks are never read.
        match &self.chunks {
            Chunks::Frame(f) if maskout.is_none() => {
                self.index(nchunk)?;
                f.with_chunk(nchunk, |chunk| {
                    // c-blosc2 checks a frame's chunk against the size its header gives first:
                    // a shorter one (an sframe chunk file cut short) is invalid data.
                    let cbytes = chunk
                        .get(12..16)
                        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                    if cbytes.is_some_and(|c| (chunk.len() as i64) < i64::from(c)) {
                        return Err(Error::Data);
                    }
                    decode(chunk)
                })
            }
            _ if maskout.is_some() => decode(&self.get_lazychunk(nchunk)?),
            _ => decode(&self.get_chunk(nchunk)?),
        }
    }

    /// Decompresses chunk `nchunk` into a new vector.
    pub fn decompress_chunk_vec(&self, nchunk: i64) -> Result<Vec<u8>> {
        let chunk = self.get_chunk(nchunk)?;
        self.observe_chunk(nchunk);
        let h = ChunkHeader::parse(&chunk)?;
        let mut dst = vec![0u8; h.nbytes as usize];
        let n = self.decompressor().decompress(&chunk, &mut dst, None)?;
        dst.truncate(n);
        Ok(dst)
    }
}
