//! Changing the chunks: append, insert, update, delete, reorder and special-value fills, on
//! an in-memory list or in a frame.

use std::borrow::Cow;

use super::{Chunks, Schunk};
use crate::chunk::header::{Special, EXTENDED_HEADER_LENGTH, MAX_OVERHEAD, VL_BLOCKS};
use crate::chunk::scratch::with_chunk_out;
use crate::chunk::ChunkHeader;
use crate::frame::offsets::chunk_offset_special;
use crate::{Error, Result};

/// What replacing or deleting a chunk of an in-memory list takes off the super-chunk's cbytes:
/// c-blosc2 counts a chunk of exactly MAX_OVERHEAD bytes (a header-only special chunk, such
/// as b2nd_empty's) as 0 there, although appending it added its 32 bytes; a b2nd array filled
/// after `empty` reports 32 bytes per chunk more than its chunks hold, in both libraries.
fn list_counted_cbytes(old_cbytes: i64) -> i64 {
    if old_cbytes == MAX_OVERHEAD as i64 {
        0
    } else {
        old_cbytes
    }
}

impl Schunk {
    // ----- writing chunks ------------------------------------------------------------------

    /// Compresses `src` with the super-chunk's parameters and appends it; returns nchunks.
    pub fn append_buffer(&mut self, src: &[u8]) -> Result<i64> {
        let _held = self.hold(true)?;
        let compressor = self.compressor();
        // Compressed into the thread's reused buffer, then stored at its compressed size (a
        // frame copies it in, a list keeps an exact-size copy). A chunk-sized buffer per call
        // was zeroed by calloc once glibc served it from the heap, and, above glibc's mmap
        // threshold, mapped, shrunk and unmapped per chunk (faulting its pages in each time).
        with_chunk_out(src.len() + MAX_OVERHEAD, |chunk| {
            let n = compressor.compress(src, chunk)?;
            if n == 0 {
                return Err(Error::Failure);
            }
            self.insert_at(self.nchunks(), Cow::Borrowed(&chunk[..n]))
        })
    }

    /// Appends a copy of `chunk`; returns the new number of chunks.
    pub fn append_chunk(&mut self, chunk: &[u8]) -> Result<i64> {
        let _held = self.hold(true)?;
        self.check_chunk_kind(chunk, Error::ChunkAppend)?;
        self.insert_at(self.nchunks(), Cow::Borrowed(chunk))
    }

    /// Appends `chunk`, taking ownership (no copy for in-memory lists).
    pub fn append_chunk_owned(&mut self, chunk: Vec<u8>) -> Result<i64> {
        let _held = self.hold(true)?;
        self.check_chunk_kind(&chunk, Error::ChunkAppend)?;
        self.insert_at(self.nchunks(), Cow::Owned(chunk))
    }

    /// Inserts `chunk` at position `nchunk`; returns the new number of chunks.
    pub fn insert_chunk(&mut self, nchunk: i64, chunk: &[u8]) -> Result<i64> {
        let _held = self.hold(true)?;
        if nchunk < 0 || nchunk > self.nchunks() {
            return Err(Error::InvalidParam);
        }
        self.check_chunk_kind(chunk, Error::ChunkInsert)?;
        self.insert_at(nchunk, Cow::Borrowed(chunk))
    }

    /// As in c-blosc2, the chunks of a super-chunk are all VL-block chunks or all regular ones
    /// (its `flags2`, set by the first): once it has chunks, one of the other kind is refused
    /// with `refused`, the error of the operation.
    fn check_chunk_kind(&self, chunk: &[u8], refused: Error) -> Result<()> {
        let vl = ChunkHeader::parse(chunk)?.blosc2_flags2 & VL_BLOCKS;
        if self.nchunks() > 0 && vl != self.flags2 & VL_BLOCKS {
            return Err(refused);
        }
        Ok(())
    }

    /// Checks a chunk to add and returns (nbytes, cbytes) of it.
    fn chunk_sizes(chunk: &[u8]) -> Result<(i32, i32)> {
        let h = ChunkHeader::parse(chunk)?;
        if (h.cbytes as usize) > chunk.len() {
            return Err(Error::ReadBuffer);
        }
        Ok((h.nbytes, h.cbytes))
    }

    pub(super) fn insert_at(&mut self, at: i64, chunk: Cow<'_, [u8]>) -> Result<i64> {
        let (nbytes, cbytes) = Schunk::chunk_sizes(&chunk)?;
        let chunk = match chunk {
            Cow::Owned(mut v) => {
                v.truncate(cbytes as usize);
                Cow::Owned(v)
            }
            Cow::Borrowed(b) => Cow::Borrowed(&b[..cbytes as usize]),
        };
        let nchunks = self.nchunks();
        let chunksize = self.chunksize_after(at, at == nchunks, nbytes)?;
        if nchunks == 0 {
            self.flags2 = ChunkHeader::parse(&chunk)?.blosc2_flags2;
        }
        let special = chunk_offset_special(&chunk);
        let base_h = self.frame_header();
        self.mark_list_changed(at as usize);
        match &mut self.chunks {
            Chunks::List(list) => {
                list.insert(at as usize, chunk.into_owned());
                self.chunksize = chunksize;
                self.nbytes += nbytes as i64;
                self.cbytes += cbytes as i64;
            }
            Chunks::Frame(frame) => {
                let sparse = frame.is_sparse();
                let mut offsets = frame.offsets().to_vec();
                let stored_len = if special.is_some() { 0 } else { cbytes as i64 };
                let (offset, write) = match special {
                    Some(kind) => (crate::frame::offsets::special_offset(kind), None),
                    None if sparse => {
                        let id = offsets.iter().copied().max().unwrap_or(-1).max(-1) + 1;
                        (id, Some((id, &chunk[..])))
                    }
                    None => (self.cbytes, Some((self.cbytes, &chunk[..]))),
                };
                offsets.insert(at as usize, offset);
                let mut h = base_h.clone();
                h.chunksize = chunksize;
                h.nbytes = self.nbytes + nbytes as i64;
                h.cbytes = self.cbytes + stored_len;
                frame.commit(h, &self.metas, &self.vlmetas, write, offsets)?;
                self.chunksize = chunksize;
                self.nbytes += nbytes as i64;
                self.cbytes += stored_len;
            }
        }
        Ok(self.nchunks())
    }

    /// Uncompressed size of chunk `n`, reading only its header.
    pub(crate) fn chunk_nbytes(&self, n: i64) -> Result<i32> {
        match &self.chunks {
            Chunks::List(l) => Ok(ChunkHeader::parse(&l[self.index(n)?])?.nbytes),
            Chunks::Frame(f) => Ok(f.chunk_header(n)?.nbytes),
        }
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

    /// Replaces chunk `nchunk` with `chunk`; returns the number of chunks.
    pub fn update_chunk(&mut self, nchunk: i64, chunk: &[u8]) -> Result<i64> {
        let _held = self.hold(true)?;
        let i = self.index(nchunk)?;
        let (nbytes, cbytes) = Schunk::chunk_sizes(chunk)?;
        self.check_chunk_kind(chunk, Error::ChunkUpdate)?;
        let chunk = &chunk[..cbytes as usize];
        let chunksize = self.chunksize_after(nchunk, false, nbytes)?;
        let old = self.get_chunk(nchunk)?;
        let old_h = ChunkHeader::parse(&old)?;
        let old_nbytes = old_h.nbytes as i64;
        let old_cbytes = old_h.cbytes as i64;
        drop(old);
        let special = chunk_offset_special(chunk);
        let base_h = self.frame_header();
        self.mark_list_changed(i);
        match &mut self.chunks {
            Chunks::List(list) => {
                list[i] = chunk.to_vec();
                self.nbytes += nbytes as i64 - old_nbytes;
                self.cbytes += cbytes as i64 - list_counted_cbytes(old_cbytes);
            }
            Chunks::Frame(frame) => {
                let mut offsets = frame.offsets().to_vec();
                let old_offset = offsets[i];
                let mut h = base_h.clone();
                h.chunksize = chunksize;
                h.nbytes = self.nbytes + nbytes as i64 - old_nbytes;
                let new_len = if special.is_some() { 0 } else { cbytes as i64 };
                let mut write = None;
                if frame.is_sparse() {
                    // The chunk files keep their ids; a special chunk frees its file.
                    let old_stored = if old_offset >= 0 { old_cbytes } else { 0 };
                    h.cbytes = self.cbytes - old_stored + new_len;
                    match special {
                        Some(kind) => offsets[i] = crate::frame::offsets::special_offset(kind),
                        None => {
                            if old_offset < 0 {
                                offsets[i] =
                                    offsets.iter().copied().max().unwrap_or(-1).max(-1) + 1;
                            }
                            write = Some((offsets[i], chunk));
                        }
                    }
                    frame.commit(h.clone(), &self.metas, &self.vlmetas, write, offsets)?;
                    if old_offset >= 0 {
                        frame.remove_unused_chunk_files(&[old_offset])?;
                    }
                } else {
                    // The data after the old chunk shifts so the new one fits in its place.
                    let (slot, old_stored) = if old_offset >= 0 {
                        (old_offset, old_cbytes)
                    } else {
                        (self.cbytes, 0)
                    };
                    let old_end = slot + old_stored;
                    let delta = new_len - old_stored;
                    for (j, o) in offsets.iter_mut().enumerate() {
                        if j != i && *o >= 0 && *o > slot {
                            *o += delta;
                        }
                    }
                    offsets[i] = match special {
                        Some(kind) => crate::frame::offsets::special_offset(kind),
                        None => slot,
                    };
                    h.cbytes = self.cbytes + delta;
                    if !frame.ordered_writes() {
                        frame.resize_chunk_slot(slot, old_stored, new_len)?;
                        if special.is_none() {
                            frame.write_in_data(slot, chunk)?;
                        }
                        frame.commit(h.clone(), &self.metas, &self.vlmetas, None, offsets)?;
                    } else {
                        // In a file the new data from the slot on (the chunk, then the chunks
                        // after it) goes to commit, which first writes it where a kill cannot
                        // hurt (docs/CRASH-SAFETY.md).
                        let tail = frame.read_data(old_end, self.cbytes - old_end)?;
                        let mut data = Vec::with_capacity(new_len as usize + tail.len());
                        if special.is_none() {
                            data.extend_from_slice(chunk);
                        }
                        data.extend_from_slice(&tail);
                        let edit = (!data.is_empty()).then_some((slot, &data[..]));
                        frame.commit(h.clone(), &self.metas, &self.vlmetas, edit, offsets)?;
                    }
                }
                self.nbytes = h.nbytes;
                self.cbytes = h.cbytes;
            }
        }
        self.chunksize = chunksize;
        Ok(self.nchunks())
    }

    /// Removes chunk `nchunk`; returns the number of chunks left.
    pub fn delete_chunk(&mut self, nchunk: i64) -> Result<i64> {
        let _held = self.hold(true)?;
        let i = self.index(nchunk)?;
        let old = self.get_chunk(nchunk)?;
        let old_h = ChunkHeader::parse(&old)?;
        drop(old);
        let base_h = self.frame_header();
        self.mark_list_changed(i);
        match &mut self.chunks {
            Chunks::List(list) => {
                list.remove(i);
                self.nbytes -= old_h.nbytes as i64;
                self.cbytes -= list_counted_cbytes(old_h.cbytes as i64);
            }
            Chunks::Frame(frame) => {
                let mut offsets = frame.offsets().to_vec();
                let old_offset = offsets.remove(i);
                let mut h = base_h.clone();
                h.nbytes = self.nbytes - old_h.nbytes as i64;
                if frame.is_sparse() && old_offset >= 0 {
                    h.cbytes = self.cbytes - old_h.cbytes as i64;
                }
                // With no chunk left commit_with writes no offsets index (as c-blosc2 does).
                let off_chunk = if offsets.is_empty() {
                    None
                } else {
                    let room = offsets.len() + 1;
                    Some(crate::frame::offsets::encode_with_room(&offsets, room)?)
                };
                frame.commit_with(
                    h.clone(),
                    &self.metas,
                    &self.vlmetas,
                    None,
                    offsets,
                    off_chunk,
                )?;
                frame.remove_unused_chunk_files(&[old_offset])?;
                self.nbytes = h.nbytes;
                self.cbytes = h.cbytes;
            }
        }
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
        for &o in order {
            let o = usize::try_from(o).map_err(|_| Error::Data)?;
            if o >= n || seen[o] {
                return Err(Error::Data);
            }
            seen[o] = true;
        }
        let base_h = self.frame_header();
        self.mark_list_changed(0);
        match &mut self.chunks {
            Chunks::List(list) => {
                let old = std::mem::take(list);
                let mut slots: Vec<Option<Vec<u8>>> = old.into_iter().map(Some).collect();
                *list = order
                    .iter()
                    .map(|&o| slots[o as usize].take().unwrap_or_default())
                    .collect();
            }
            Chunks::Frame(frame) => {
                let old = frame.offsets();
                let offsets = order.iter().map(|&o| old[o as usize]).collect();
                frame.commit(base_h.clone(), &self.metas, &self.vlmetas, None, offsets)?;
            }
        }
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
        let mut params = self.storage.cparams.clone();
        params.typesize = typesize;
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
        let off_chunk = crate::frame::offsets::encode_all_special(nchunks, kind)?;
        if let Chunks::Frame(frame) = &mut self.chunks {
            let r = frame.commit_with(
                h,
                &self.metas,
                &self.vlmetas,
                None,
                offsets,
                Some(off_chunk),
            );
            if let Err(e) = r {
                (self.blocksize, self.chunksize, self.nbytes) = before;
                return Err(e);
            }
        }
        Ok(self.nchunks())
    }
}
