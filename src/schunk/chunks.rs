//! Changing the chunks: append, insert, update, delete, reorder and special-value fills, on
//! an in-memory list or in a frame.

use super::storage::{Chunks, Commit, GivenChunk, Replacement};
use super::Schunk;
use crate::chunk::header::{Special, EXTENDED_HEADER_LENGTH, MAX_OVERHEAD, VL_BLOCKS};
use crate::chunk::scratch::with_chunk_out;
use crate::chunk::ChunkHeader;
use crate::frame::offsets::chunk_offset_special;
use crate::{Error, Result};

/// The most compressed bytes of chunks that a call writing a slice keeps to commit in one pass
/// ([`Schunk::update_chunks`]); past it, the chunks kept so far are committed.
pub const ONE_PASS_BYTES: usize = 16 << 20;

impl Schunk {
    // ----- writing chunks ------------------------------------------------------------------

    /// Compresses `src` with the super-chunk's parameters and appends it; returns nchunks.
    pub fn append_buffer(&mut self, src: &[u8]) -> Result<i64> {
        let _held = self.hold(true)?;
        let compressor = self.compressor();
        if self.chunks.is_list() && src.len() >= crate::kept::MIN {
            // A list keeps the buffer the chunk was compressed into (a kept one whose pages are
            // resident, see crate::kept), as c-blosc2 keeps its: no copy of the chunk.
            let chunk = super::storage::compress_list_chunk(&compressor, src)?;
            return self.insert_at(self.nchunks(), GivenChunk::Owned(chunk), Error::ChunkAppend);
        }
        // Compressed into the thread's reused buffer, then stored at its compressed size (a
        // frame copies it in, a small chunk of a list is copied to its own exact-size
        // buffer). A chunk-sized buffer per call was zeroed by calloc once glibc served it
        // from the heap, and, above glibc's mmap threshold, mapped, shrunk and unmapped per
        // chunk (faulting its pages in each time).
        with_chunk_out(src.len() + MAX_OVERHEAD, |chunk| {
            let n = compressor.compress(src, chunk)?;
            if n == 0 {
                return Err(Error::Failure);
            }
            self.insert_at(
                self.nchunks(),
                GivenChunk::Borrowed(&chunk[..n]),
                Error::ChunkAppend,
            )
        })
    }

    /// Appends a copy of `chunk`; returns the new number of chunks.
    pub fn append_chunk(&mut self, chunk: &[u8]) -> Result<i64> {
        self.append_chunk_given(GivenChunk::Borrowed(chunk))
    }

    /// Appends `chunk` (an in-memory list keeps an owned or handed-over chunk as it is, see
    /// [`GivenChunk`]); returns the new number of chunks.
    pub fn append_chunk_given(&mut self, chunk: GivenChunk<'_>) -> Result<i64> {
        let _held = self.hold(true)?;
        self.insert_at(self.nchunks(), chunk, Error::ChunkAppend)
    }

    /// Inserts a copy of `chunk` at position `nchunk`; returns the new number of chunks.
    pub fn insert_chunk(&mut self, nchunk: i64, chunk: &[u8]) -> Result<i64> {
        self.insert_chunk_given(nchunk, GivenChunk::Borrowed(chunk))
    }

    /// Inserts `chunk` at position `nchunk` (0 ..= nchunks), kept as
    /// [`Schunk::append_chunk_given`] keeps it; returns the new number of chunks.
    pub fn insert_chunk_given(&mut self, nchunk: i64, chunk: GivenChunk<'_>) -> Result<i64> {
        let _held = self.hold(true)?;
        if nchunk < 0 || nchunk > self.nchunks() {
            return Err(Error::InvalidParam);
        }
        self.insert_at(nchunk, chunk, Error::ChunkInsert)
    }

    /// Parses the header of a chunk to add and checks it: its cbytes within the buffer, and,
    /// as in c-blosc2, its kind: the chunks of a super-chunk are all VL-block chunks or all
    /// regular ones (its `flags2`, set by the first), so once it has chunks, one of the other
    /// kind is refused with `refused`, the error of the operation.
    fn checked_header(&self, chunk: &[u8], refused: Error) -> Result<ChunkHeader> {
        let h = ChunkHeader::parse(chunk)?;
        if (h.cbytes as usize) > chunk.len() {
            return Err(Error::ReadBuffer);
        }
        if self.nchunks() > 0 && h.blosc2_flags2 & VL_BLOCKS != self.flags2 & VL_BLOCKS {
            return Err(refused);
        }
        Ok(h)
    }

    /// Puts `chunk` at position `at` (checked by the caller), refusing a chunk of the other
    /// kind with `refused`.
    pub(super) fn insert_at(
        &mut self,
        at: i64,
        chunk: GivenChunk<'_>,
        refused: Error,
    ) -> Result<i64> {
        let h = self.checked_header(chunk.bytes(), refused)?;
        let chunksize = self.chunksize_after(at, at == self.nchunks(), h.nbytes)?;
        let chunk = chunk.exact(h.cbytes as usize)?;
        if self.nchunks() == 0 {
            self.flags2 = h.blosc2_flags2;
        }
        let special = chunk_offset_special(chunk.bytes());
        let mut header = self.frame_header();
        header.chunksize = chunksize;
        header.nbytes = self.nbytes + h.nbytes as i64;
        self.mark_list_changed(at as usize);
        let commit = Commit::new(header, &self.metas, &self.vlmetas);
        self.cbytes = self
            .chunks
            .insert(at as usize, chunk, special, self.cbytes, commit)?;
        self.chunksize = chunksize;
        self.nbytes += h.nbytes as i64;
        Ok(self.nchunks())
    }

    /// Uncompressed size of chunk `n`, reading only its header.
    pub(crate) fn chunk_nbytes(&self, n: i64) -> Result<i32> {
        self.chunks.nbytes_of(self.index(n)?)
    }

    /// The chunk size once a chunk of `nbytes` is put at position `at` (a new chunk there when
    /// `adding`, else a replacement). As in c-blosc2 3.3.5 the first chunk sets it; it stays
    /// while every chunk but the last has that size and the last no more; otherwise it becomes
    /// 0 (variable-size chunks) for good.
    pub(super) fn chunksize_after(&self, at: i64, appending: bool, nbytes: i32) -> Result<i32> {
        let n = self.nchunks();
        let cs = if self.chunksize == -1 {
            nbytes
        } else {
            self.chunksize
        };
        if cs <= 0 {
            return Ok(cs.max(0));
        }
        let ok = if appending {
            nbytes <= cs && (n == 0 || self.chunk_nbytes(n - 1)? == cs)
        } else if at == n - 1 {
            nbytes <= cs
        } else {
            nbytes == cs
        };
        Ok(if ok { cs } else { 0 })
    }

    /// Replaces chunk `nchunk` with a copy of `chunk`; returns the number of chunks.
    pub fn update_chunk(&mut self, nchunk: i64, chunk: &[u8]) -> Result<i64> {
        self.update_chunk_given(nchunk, GivenChunk::Borrowed(chunk))
    }

    /// Replaces chunk `nchunk` with `chunk`, taking ownership (an in-memory list keeps it as
    /// it is, with no copy); returns nchunks.
    pub fn update_chunk_owned(&mut self, nchunk: i64, chunk: Vec<u8>) -> Result<i64> {
        self.update_chunk_given(nchunk, GivenChunk::Owned(chunk))
    }

    /// Replaces chunk `nchunk` with `chunk`, kept as [`Schunk::append_chunk_given`] keeps it;
    /// returns the number of chunks.
    pub fn update_chunk_given(&mut self, nchunk: i64, chunk: GivenChunk<'_>) -> Result<i64> {
        let _held = self.hold(true)?;
        let i = self.index(nchunk)?;
        let h = self.checked_header(chunk.bytes(), Error::ChunkUpdate)?;
        let chunk = chunk.exact(h.cbytes as usize)?;
        let chunksize = self.chunksize_after(nchunk, false, h.nbytes)?;
        // The old chunk's sizes: its header is all that is read.
        let old_h = self.chunks.header_of(i)?;
        let old_nbytes = old_h.nbytes as i64;
        let old_cbytes = old_h.cbytes as i64;
        let special = chunk_offset_special(chunk.bytes());
        let mut header = self.frame_header();
        header.chunksize = chunksize;
        header.nbytes = self.nbytes + h.nbytes as i64 - old_nbytes;
        self.mark_list_changed(i);
        let commit = Commit::new(header, &self.metas, &self.vlmetas);
        self.cbytes = self
            .chunks
            .replace(i, chunk, special, old_cbytes, self.cbytes, commit)?;
        self.nbytes += h.nbytes as i64 - old_nbytes;
        self.chunksize = chunksize;
        Ok(self.nchunks())
    }

    /// Replaces chunks `first`, `first + 1`, ... with `chunks`; returns the number of chunks.
    /// The super-chunk ends as after [`Schunk::update_chunk`] of each in turn. In a contiguous
    /// frame file where the replaced chunks sit one after the other, they are committed in one
    /// kill-safe pass (all of them or none; the chunks after them move once), and a bad chunk
    /// among them changes nothing; elsewhere they are updated one by one.
    pub fn update_chunks(&mut self, first: i64, chunks: &[&[u8]]) -> Result<i64> {
        if chunks.len() > 1 && self.updates_in_one_pass() {
            let chunksize = self.chunksize;
            let done = {
                let _held = self.hold(true)?;
                self.update_run(first, chunks)
            };
            if !matches!(done, Ok(true)) {
                self.chunksize = chunksize;
            }
            if done? {
                return Ok(self.nchunks());
            }
        }
        for (k, chunk) in chunks.iter().enumerate() {
            self.update_chunk(first + k as i64, chunk)?;
        }
        Ok(self.nchunks())
    }

    /// Whether [`Schunk::update_chunks`] may commit several chunks in one pass.
    pub fn updates_in_one_pass(&self) -> bool {
        match &self.chunks {
            Chunks::Frame(f) => f.updates_in_one_pass(),
            Chunks::List(_) => false,
        }
    }

    /// The one pass of [`Schunk::update_chunks`]; false (nothing written) where the chunks are
    /// not stored one after the other. Leaves `chunksize` changed unless it returns true.
    fn update_run(&mut self, first: i64, chunks: &[&[u8]]) -> Result<bool> {
        let first_i = self.index(first)?;
        let mut run = Vec::with_capacity(chunks.len());
        let mut nbytes_delta = 0i64;
        for (k, chunk) in chunks.iter().enumerate() {
            let nchunk = first + k as i64;
            let i = self.index(nchunk)?;
            let h = self.checked_header(chunk, Error::ChunkUpdate)?;
            // Each update sees the chunksize the ones before it left.
            self.chunksize = self.chunksize_after(nchunk, false, h.nbytes)?;
            let old_h = self.chunks.header_of(i)?;
            nbytes_delta += h.nbytes as i64 - old_h.nbytes as i64;
            run.push(Replacement {
                chunk: &chunk[..h.cbytes as usize],
                special: chunk_offset_special(chunk),
                old_cbytes: old_h.cbytes as i64,
            });
        }
        let mut header = self.frame_header();
        header.chunksize = self.chunksize;
        header.nbytes = self.nbytes + nbytes_delta;
        let commit = Commit::new(header, &self.metas, &self.vlmetas);
        let Some(cbytes) = self
            .chunks
            .replace_run(first_i, &run, self.cbytes, commit)?
        else {
            return Ok(false);
        };
        self.mark_list_changed(first_i);
        self.cbytes = cbytes;
        self.nbytes += nbytes_delta;
        Ok(true)
    }

    /// Removes chunk `nchunk`; returns the number of chunks left.
    pub fn delete_chunk(&mut self, nchunk: i64) -> Result<i64> {
        let _held = self.hold(true)?;
        let i = self.index(nchunk)?;
        let old_h = self.chunks.header_of(i)?;
        let mut header = self.frame_header();
        header.nbytes = self.nbytes - old_h.nbytes as i64;
        self.mark_list_changed(i);
        let commit = Commit::new(header, &self.metas, &self.vlmetas);
        self.cbytes = self
            .chunks
            .delete(i, old_h.cbytes as i64, self.cbytes, commit)?;
        self.nbytes -= old_h.nbytes as i64;
        Ok(self.nchunks())
    }

    /// Reorders the chunks: new chunk `i` is old chunk `order[i]`.
    pub fn reorder_offsets(&mut self, order: &[i64]) -> Result<()> {
        let _held = self.hold(true)?;
        let n = self.nchunks() as usize;
        if order.len() != n {
            return Err(Error::InvalidParam);
        }
        let mut seen = vec![false; n];
        let mut permutation = Vec::with_capacity(n);
        for &o in order {
            let o = usize::try_from(o).map_err(|_| Error::Data)?;
            if o >= n || seen[o] {
                return Err(Error::Data);
            }
            seen[o] = true;
            permutation.push(o);
        }
        let header = self.frame_header();
        self.mark_list_changed(0);
        let commit = Commit::new(header, &self.metas, &self.vlmetas);
        self.chunks.reorder(&permutation, commit)?;
        Ok(())
    }

    /// Fills an empty super-chunk with `nitems` items of a special value (zeros, NaNs,
    /// uninitialised) in chunks of `chunksize` bytes; returns the number of chunks.
    pub fn fill_special(&mut self, nitems: i64, kind: Special, chunksize: i32) -> Result<i64> {
        let _held = self.hold(true)?;
        if nitems == 0 {
            return Ok(0);
        }
        let typesize = self.typesize();
        if chunksize <= 0 || nitems < 0 {
            return Err(Error::SchunkSpecial);
        }
        if nitems.saturating_mul(typesize as i64) / chunksize as i64 > i32::MAX as i64 {
            return Err(Error::SchunkSpecial);
        }
        if self.nbytes > 0 || self.cbytes > 0 {
            return Err(Error::FrameSpecial);
        }
        if !matches!(kind, Special::Zero | Special::Nan | Special::Uninit) {
            return Err(Error::SchunkSpecial);
        }
        let chunkitems = (chunksize / typesize) as i64;
        if chunkitems <= 0 {
            return Err(Error::FrameSpecial);
        }
        let full = nitems / chunkitems;
        let leftover = nitems % chunkitems;
        // As c-blosc2 makes them with a context of its own: the parameters as the compressor
        // takes them (the block size of the first is the super-chunk's from now on).
        let params = self.storage.compressor_cparams();
        let make = |nbytes: i32| -> Result<Vec<u8>> {
            let mut c = vec![0u8; EXTENDED_HEADER_LENGTH];
            crate::chunk::special::make(&params, kind, nbytes, None, &mut c)?;
            Ok(c)
        };
        if let Chunks::List(_) = self.chunks {
            let c = make(chunksize)?;
            for _ in 0..full {
                self.append_chunk(&c)?;
            }
            if leftover > 0 {
                self.append_chunk(&make((leftover * typesize as i64) as i32)?)?;
            }
            return Ok(self.nchunks());
        }
        // A frame gets every chunk as one run-length offsets chunk, written at once.
        let nchunks = full + i64::from(leftover > 0);
        let before = (self.blocksize, self.chunksize, self.nbytes);
        self.blocksize = ChunkHeader::parse(&make(chunksize)?)?.blocksize;
        self.chunksize = chunksize;
        self.nbytes = nitems * typesize as i64;
        let h = self.frame_header();
        let offsets = vec![crate::frame::offsets::special_offset(kind); nchunks as usize];
        let off_chunk = crate::frame::offsets::encode_all_special(
            nchunks,
            kind,
            self.storage.compressor_adjust.as_ref(),
        )?;
        if let Chunks::Frame(frame) = &mut self.chunks {
            let r = frame.commit_with(
                h,
                &self.metas,
                &self.vlmetas,
                None,
                offsets,
                Some(off_chunk),
                crate::frame::fingerprint::FpChange::Rebuild,
            );
            if let Err(e) = r {
                (self.blocksize, self.chunksize, self.nbytes) = before;
                return Err(e);
            }
        }
        Ok(self.nchunks())
    }
}
