//! Copies of a super-chunk into other storage, and serialising it as a contiguous frame.

use std::borrow::Cow;
use std::path::Path;

use super::{Chunks, Schunk, Storage};
use crate::chunk::header::{Special, EXTENDED_HEADER_LENGTH, MAX_OVERHEAD};
use crate::chunk::{CParams, ChunkHeader};
use crate::frame::io::{ByteStore, OpenMode};
use crate::frame::offsets::chunk_offset_special;
use crate::frame::{Backing, ChunkPlace};
use crate::{Error, Result};

/// Where a chunk `append_stored_chunks` copies is stored.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StoredAt<'a> {
    /// In a chunk list in memory.
    Bytes(&'a [u8]),
    /// In a frame.
    Frame(ChunkPlace),
    /// Nowhere: a special chunk a frame keeps as an offset value.
    Nowhere,
}

/// A source chunk as `append_stored_chunks` plans to copy it.
struct PlannedChunk<'a> {
    nbytes: i32,
    cbytes: i32,
    flags2: u8,
    /// Stored as an offset value in the copy (zeros, NaNs, uninit).
    special: Option<Special>,
    from: StoredAt<'a>,
}

impl Schunk {
    // ----- copies and serialisation --------------------------------------------------------

    /// Copies the super-chunk into `storage`: chunks are copied as they are when the
    /// compression parameters match, recompressed otherwise; metalayers and vlmetalayers follow.
    pub fn copy(&self, storage: Storage) -> Result<Schunk> {
        let as_stored = self.copies_as_stored(&storage.cparams);
        self.copy_chunks(storage, as_stored)
    }

    /// Whether a copy with `cparams` can take the chunks as they are stored (made with the
    /// compressor's parameters).
    fn copies_as_stored(&self, dst: &CParams) -> bool {
        let compressor = self.compressor();
        let src = compressor.params();
        src.typesize == dst.typesize
            && src.clevel == dst.clevel
            && src.compcode == dst.compcode
            && src.use_dict == dst.use_dict
            && (dst.blocksize == 0 || src.blocksize == dst.blocksize)
            && src.filters == dst.filters
            && src.filters_meta == dst.filters_meta
            && src.prefilter.is_none()
            && self.decompressor().params().postfilter.is_none()
    }

    /// `copy` with the choice of how chunks travel made by the caller: `as_stored` copies the
    /// compressed chunks as they are (the C layer decides as c-blosc2 does, against the block
    /// size its context last used), otherwise each chunk is decompressed and compressed again
    /// with `storage`'s parameters.
    pub fn copy_chunks(&self, storage: Storage, as_stored: bool) -> Result<Schunk> {
        let out = Schunk::new(storage)?;
        self.copy_into(out, as_stored)
    }

    /// `copy_chunks` into a contiguous in-memory frame kept in `store`, an empty store the
    /// caller provides (the C layer's is malloc'd memory that C code may free); `storage`
    /// must be contiguous and without a urlpath.
    pub fn copy_to_store(
        &self,
        storage: Storage,
        store: Box<dyn ByteStore>,
        as_stored: bool,
    ) -> Result<Schunk> {
        if !storage.contiguous || storage.urlpath.is_some() {
            return Err(Error::InvalidParam);
        }
        let mut out = Schunk::bare(storage, Chunks::List(Vec::new()))?;
        out.chunks = Chunks::Frame(Box::new(out.create_frame(Backing::Contiguous {
            store: store.into(),
            offset: 0,
        })?));
        self.copy_into(out, as_stored)
    }

    /// Fills `out`, a super-chunk just created for the copy, as a file being built (see
    /// [`Schunk::building`]).
    fn copy_into(&self, mut out: Schunk, as_stored: bool) -> Result<Schunk> {
        // A copy of a super-chunk with fingerprints has them too.
        if self.fingerprint != super::FingerprintMode::Off
            && out.fingerprint == super::FingerprintMode::Off
            && out.frame().is_some()
        {
            out.set_fingerprint_mode(super::FingerprintMode::On)?;
        }
        out.building(|out| self.fill_copy(out, as_stored))?;
        Ok(out)
    }

    fn fill_copy(&self, out: &mut Schunk, as_stored: bool) -> Result<()> {
        for m in &self.metas {
            out.meta_add(&m.name, &m.content)?;
        }
        if !as_stored || !out.append_stored_chunks(self)? {
            for n in 0..self.nchunks() {
                if as_stored {
                    out.append_chunk(&self.get_chunk(n)?)?;
                } else {
                    out.append_buffer(&self.decompress_chunk_vec(n)?)?;
                }
            }
        }
        for m in &self.vlmetas {
            // As c-blosc2 does: decompressed, then added again with the default parameters.
            out.vlmeta_add(&m.name, &self.vlmeta_get(&m.name)?, None)?;
        }
        Ok(())
    }

    /// Appends the chunks of `src` as they are stored to this super-chunk, an empty contiguous
    /// frame, leaving the bytes appending them one by one leaves (same header, offsets and
    /// chunk-size rules), but with one index rewrite and one read per run of chunks stored
    /// next to each other, straight into the frame. Ok(false) when it does not apply (not an
    /// empty contiguous frame, or a source chunk this path does not take: the caller then
    /// appends one by one, which reports any error as before).
    pub(super) fn append_stored_chunks(&mut self, src: &Schunk) -> Result<bool> {
        match &self.chunks {
            Chunks::Frame(f) if !f.is_sparse() && f.nchunks() == 0 && self.cbytes == 0 => {}
            _ => return Ok(false),
        }
        let Some(plan) = src.stored_chunk_plan().filter(|p| !p.is_empty()) else {
            return Ok(false);
        };
        // The header fields one append after another would leave (see insert_at and
        // chunksize_after; a special chunk's size as the frame itself derives it).
        let mut chunksize = self.chunksize;
        let (mut nbytes, mut cbytes) = (self.nbytes, self.cbytes);
        let mut offsets = Vec::with_capacity(plan.len());
        for (n, c) in plan.iter().enumerate() {
            let cs = if chunksize == -1 { c.nbytes } else { chunksize };
            chunksize = if cs <= 0 {
                cs.max(0)
            } else {
                let prev_ok = match n.checked_sub(1).map(|p| &plan[p]) {
                    None => true,
                    Some(prev) if prev.special.is_some() => {
                        if chunksize <= 0 {
                            return Ok(false);
                        }
                        let rem = (nbytes % chunksize as i64) as i32;
                        (if rem != 0 { rem } else { chunksize }) == cs
                    }
                    Some(prev) => prev.nbytes == cs,
                };
                if c.nbytes <= cs && prev_ok {
                    cs
                } else {
                    0
                }
            };
            nbytes += c.nbytes as i64;
            match c.special {
                Some(kind) => offsets.push(crate::frame::offsets::special_offset(kind)),
                None => {
                    offsets.push(cbytes);
                    cbytes += c.cbytes as i64;
                }
            }
        }
        self.flags2 = plan[0].flags2;
        let mut h = self.frame_header();
        h.chunksize = chunksize;
        h.nbytes = nbytes;
        h.cbytes = cbytes;
        let Chunks::Frame(frame) = &mut self.chunks else {
            return Ok(false);
        };
        // Room for the data, the index and the trailer the vlmetalayers will need.
        let index_len = 8 * plan.len() as u64 + MAX_OVERHEAD as u64;
        let vl_len: usize = src
            .vlmetas
            .iter()
            .map(|m| m.name.len() + m.content.len())
            .sum();
        let header_len = frame.header().header_len as u64;
        frame.reserve(header_len + cbytes as u64 + index_len + 2 * vl_len as u64 + 1024);

        // Groups of consecutive regular chunks of up to COPY_GROUP bytes, each written with
        // one fill of the frame, reading runs of adjacent source chunks with one read.
        const COPY_GROUP: usize = 8 << 20;
        let regular: Vec<&PlannedChunk<'_>> = plan.iter().filter(|c| c.special.is_none()).collect();
        let mut at = 0i64;
        let mut i = 0;
        while i < regular.len() {
            let mut j = i;
            let mut len = 0usize;
            while j < regular.len() && (j == i || len + regular[j].cbytes as usize <= COPY_GROUP) {
                len += regular[j].cbytes as usize;
                j += 1;
            }
            let group = &regular[i..j];
            frame.fill_data(at, len, &mut |buf| src.read_stored_chunks(group, buf))?;
            at += len as i64;
            i = j;
        }
        let fp = crate::frame::fingerprint::FpChange::Rebuild;
        frame.commit(h, &self.metas, &self.vlmetas, None, offsets, fp)?;
        self.chunksize = chunksize;
        self.nbytes = nbytes;
        self.cbytes = cbytes;
        Ok(true)
    }

    /// Each chunk's sizes, flags and place, for `append_stored_chunks`; None when a chunk is
    /// not one it takes (a short or damaged header, a special offset that does not read back).
    fn stored_chunk_plan(&self) -> Option<Vec<PlannedChunk<'_>>> {
        let mut plan = Vec::with_capacity(self.nchunks() as usize);
        for n in 0..self.nchunks() {
            let (head, from) = match &self.chunks {
                Chunks::List(l) => {
                    let c = l.get(n as usize)?;
                    (
                        c.get(..EXTENDED_HEADER_LENGTH)?.to_vec(),
                        StoredAt::Bytes(c),
                    )
                }
                Chunks::Frame(f) => match f.chunk_head(n).ok()? {
                    (head, Some(place)) => (head, StoredAt::Frame(place)),
                    (head, None) => (head, StoredAt::Nowhere),
                },
            };
            let h = ChunkHeader::parse(&head).ok()?;
            let special = chunk_offset_special(&head);
            let fits = match from {
                StoredAt::Bytes(c) => (h.cbytes as usize) <= c.len(),
                _ => true,
            };
            if !fits || h.cbytes < EXTENDED_HEADER_LENGTH as i32 {
                return None;
            }
            if special.is_none() && matches!(from, StoredAt::Nowhere) {
                return None;
            }
            plan.push(PlannedChunk {
                nbytes: h.nbytes,
                cbytes: h.cbytes,
                flags2: h.blosc2_flags2,
                special,
                from,
            });
        }
        Some(plan)
    }

    /// Reads the regular chunks of `group` one after another into `buf`, runs of chunks stored
    /// next to each other in one read, and checks that each chunk read is the one planned.
    fn read_stored_chunks(&self, group: &[&PlannedChunk<'_>], buf: &mut [u8]) -> Result<()> {
        let mut done = 0usize;
        let mut k = 0;
        while k < group.len() {
            let start = done;
            let first = group[k];
            done += first.cbytes as usize;
            match first.from {
                StoredAt::Bytes(c) => {
                    buf[start..done].copy_from_slice(&c[..first.cbytes as usize]);
                    k += 1;
                }
                StoredAt::Frame(place) => {
                    k += 1;
                    if let ChunkPlace::InStore(pos) = place {
                        let mut next = pos + first.cbytes as u64;
                        while k < group.len()
                            && group[k].from == StoredAt::Frame(ChunkPlace::InStore(next))
                        {
                            done += group[k].cbytes as usize;
                            next += group[k].cbytes as u64;
                            k += 1;
                        }
                    }
                    let Chunks::Frame(f) = &self.chunks else {
                        return Err(Error::FrameType);
                    };
                    f.read_chunk_at(place, &mut buf[start..done])?;
                }
                StoredAt::Nowhere => return Err(Error::Data),
            }
        }
        // What was read must still be the chunks the plan measured.
        let mut at = 0usize;
        for c in group {
            let h = ChunkHeader::parse(&buf[at..])?;
            if h.cbytes != c.cbytes || h.nbytes != c.nbytes {
                return Err(Error::ReadBuffer);
            }
            at += c.cbytes as usize;
        }
        Ok(())
    }

    /// The super-chunk as a contiguous frame (borrowed when it already is one in memory).
    /// The super-chunk as a contiguous frame (borrowed when it already is one in memory).
    pub fn to_buffer(&self) -> Result<Cow<'_, [u8]>> {
        if let Some(f) = self.frame() {
            if let Some(bytes) = f.as_bytes() {
                return Ok(Cow::Borrowed(bytes));
            }
        }
        let copy = self.copy(Storage {
            contiguous: true,
            urlpath: None,
            ..self.storage.clone()
        })?;
        let bytes = copy.frame().ok_or(Error::SchunkCopy)?.to_vec()?;
        Ok(Cow::Owned(bytes))
    }

    /// Writes the super-chunk as a cframe file at `urlpath`; returns its length.
    pub fn to_file(&self, urlpath: &Path) -> Result<i64> {
        if let Some(bytes) = self.frame().and_then(|f| f.as_bytes()) {
            let mut f = self.storage.io.open(urlpath, OpenMode::Create)?;
            f.write_at(0, bytes)?;
            return Ok(bytes.len() as i64);
        }
        let copy = self.copy(Storage {
            contiguous: true,
            urlpath: Some(urlpath.to_path_buf()),
            ..self.storage.clone()
        })?;
        Ok(copy.frame_len())
    }

    /// Appends the super-chunk as a cframe at the end of the file `urlpath`; returns the offset
    /// where it starts (open it again with `open_offset`); a missing file is created.
    pub fn append_file(&self, urlpath: &Path) -> Result<i64> {
        let bytes = self.to_buffer()?;
        // c-blosc2 opens the file "ab": a missing file is created and the frame lands at 0.
        let mut f = self.storage.io.open(urlpath, OpenMode::Append)?;
        let at = f.size()?;
        f.write_at(at, &bytes)?;
        Ok(at as i64)
    }
}
