//! Where a super-chunk's chunks are: a plain list in memory or a frame. [`Chunks`] is the one
//! type behind which the two differ: reads, and the changes (insert, replace, delete, reorder)
//! with what each does to the super-chunk's compressed size, which the two count differently
//! (as c-blosc2 does).

use std::borrow::Cow;
use std::mem::MaybeUninit;

use crate::chunk::header::{Special, MAX_OVERHEAD};
use crate::chunk::ChunkHeader;
use crate::chunk::Compressor;
use crate::frame::fingerprint::FpChange;
use crate::frame::offsets::special_offset;
use crate::frame::{ChunkBytes, DataEdit, Frame, FrameHeader, Meta};
use crate::{Error, Result};

/// The bytes of a chunk another owner allocated and handed over to an in-memory chunk list
/// (a C caller's chunk appended with `copy = false`): the list keeps them where they are, as
/// c-blosc2 keeps the pointer, and dropping the chunk gives them back to their allocator.
pub trait HandedChunk: Send + Sync {
    /// The chunk, exactly its cbytes.
    fn bytes(&self) -> &[u8];
    /// Drops the chunk without releasing its bytes: a change that did not take it leaves them
    /// to the caller that handed them over.
    fn give_back(self: Box<Self>);
}

/// A chunk handed over by its owner to one change of a super-chunk. An in-memory list keeps it
/// as it is ([`Handover::take`]); a frame copies its bytes in and releases it once the change
/// is written ([`Handover::release`]). A change that does neither (refused, or failed) drops
/// the `Handover`, which gives the chunk back to its owner: every way out of a change but its
/// two successful ones leaves the chunk where the caller can still free it.
pub struct Handover(Box<dyn HandedChunk>);

/// What a [`Handover`] holds once its chunk is gone (taken, or given back as it drops): no
/// bytes, nothing to give back (a zero-sized box, which allocates nothing).
struct Gone;

impl HandedChunk for Gone {
    fn bytes(&self) -> &[u8] {
        &[]
    }
    fn give_back(self: Box<Self>) {}
}

impl Handover {
    /// Takes `chunk` over for one change.
    pub fn new(chunk: Box<dyn HandedChunk>) -> Self {
        Handover(chunk)
    }

    /// The chunk, exactly its cbytes.
    pub fn bytes(&self) -> &[u8] {
        self.0.bytes()
    }

    /// The chunk, which the taker now owns (dropping it releases its bytes).
    fn take(mut self) -> Box<dyn HandedChunk> {
        std::mem::replace(&mut self.0, Box::new(Gone))
    }

    /// Releases the chunk's bytes: their copy is where the change put them.
    fn release(self) {
        drop(self.take());
    }
}

impl Drop for Handover {
    fn drop(&mut self) {
        std::mem::replace(&mut self.0, Box::new(Gone)).give_back();
    }
}

/// A chunk given to a change (insert, append, update): bytes to copy, a buffer of ours, or a
/// chunk handed over by another owner. An in-memory list keeps the last two as they are (no
/// copy, as c-blosc2 keeps a chunk given with `copy = false`); a frame copies the bytes in.
pub enum GivenChunk<'a> {
    /// Bytes the change copies.
    Borrowed(&'a [u8]),
    /// A buffer of ours, which a list keeps as it is.
    Owned(Vec<u8>),
    /// A chunk handed over by another owner (see [`Handover`]).
    Handed(Handover),
}

/// Borrowed bytes are copied by the change, an owned buffer is kept as it is.
impl<'a> From<std::borrow::Cow<'a, [u8]>> for GivenChunk<'a> {
    fn from(chunk: std::borrow::Cow<'a, [u8]>) -> Self {
        match chunk {
            std::borrow::Cow::Borrowed(b) => GivenChunk::Borrowed(b),
            std::borrow::Cow::Owned(v) => GivenChunk::Owned(v),
        }
    }
}

impl GivenChunk<'_> {
    /// The chunk's bytes (possibly longer than its cbytes until [`GivenChunk::exact`]).
    pub fn bytes(&self) -> &[u8] {
        match self {
            GivenChunk::Borrowed(b) => b,
            GivenChunk::Owned(v) => v,
            GivenChunk::Handed(h) => h.bytes(),
        }
    }

    /// The chunk cut to its `cbytes` (at most its length, checked by the caller). A handed
    /// chunk is kept whole, so it must be exactly that long ([`Error::ReadBuffer`] otherwise).
    pub(super) fn exact(self, cbytes: usize) -> Result<Self> {
        match self {
            GivenChunk::Borrowed(b) => Ok(GivenChunk::Borrowed(&b[..cbytes])),
            GivenChunk::Owned(mut v) => {
                v.truncate(cbytes);
                Ok(GivenChunk::Owned(v))
            }
            GivenChunk::Handed(h) if h.bytes().len() == cbytes => Ok(GivenChunk::Handed(h)),
            GivenChunk::Handed(_) => Err(Error::ReadBuffer),
        }
    }

    /// The chunk as a list keeps it: a copy of borrowed bytes, the rest as it is.
    fn into_list_chunk(self) -> ListChunk {
        match self {
            GivenChunk::Borrowed(b) => ListChunk::Own(list_chunk(b)),
            GivenChunk::Owned(v) => ListChunk::Own(v),
            GivenChunk::Handed(h) => ListChunk::Handed(h.take()),
        }
    }

    /// Its bytes were copied where the change put them: a handed chunk is released.
    fn copied(self) {
        if let GivenChunk::Handed(h) = self {
            h.release();
        }
    }
}

/// A chunk of an in-memory list.
pub enum ListChunk {
    /// A buffer of ours (kept for reuse once the list lets it go, see crate::kept).
    Own(Vec<u8>),
    /// Bytes handed over (see [`HandedChunk`]).
    Handed(Box<dyn HandedChunk>),
}

impl std::ops::Deref for ListChunk {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            ListChunk::Own(v) => v,
            ListChunk::Handed(h) => h.bytes(),
        }
    }
}

impl ListChunk {
    fn into_own(self) -> Option<Vec<u8>> {
        match self {
            ListChunk::Own(v) => Some(v),
            ListChunk::Handed(_) => None,
        }
    }
}

/// Lets chunks of a list go: our buffers are kept for reuse, handed ones released.
fn let_go(chunks: impl IntoIterator<Item = ListChunk>) {
    crate::kept::keep(chunks.into_iter().filter_map(ListChunk::into_own));
}

/// Where the chunks of a super-chunk are.
pub(super) enum Chunks {
    /// Chunks kept apart in memory (`storage.contiguous == false`, no urlpath).
    List(Vec<ListChunk>),
    /// Chunks in a frame (contiguous in memory or on disk, or sparse on disk).
    Frame(Box<Frame>),
}

/// What a change to a frame commits with the chunks: the frame header after the change (its
/// chunk size and nbytes already set; the change works out cbytes) and the metalayers.
/// Chunk lists take no notice of it.
/// A chunk that replaces one of a super-chunk ([`Chunks::replace_run`]).
pub(super) struct Replacement<'a> {
    /// Exactly its cbytes.
    pub chunk: &'a [u8],
    /// The special value it stands for (it is stored as an offset, not in the data section).
    pub special: Option<Special>,
    /// The cbytes of the chunk it replaces.
    pub old_cbytes: i64,
}

pub(super) struct Commit<'a> {
    pub header: FrameHeader,
    pub metas: &'a [Meta],
    pub vlmetas: &'a [Meta],
}

impl<'a> Commit<'a> {
    pub(super) fn new(header: FrameHeader, metas: &'a [Meta], vlmetas: &'a [Meta]) -> Self {
        Commit {
            header,
            metas,
            vlmetas,
        }
    }
}

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

/// Whether a buffer of `capacity` bytes holds a chunk of `len` bytes without wasting more
/// than an eighth of it.
fn fits(capacity: usize, len: usize) -> bool {
    capacity >= len && capacity - len <= len / 8
}

/// Compresses `data` as one chunk (room for the worst case, so it always fits), into a
/// buffer of its own that only the chunk's bytes are written to (no chunk-sized buffer zeroed
/// and no copy): a kept buffer of a chunk dropped before (see `crate::kept`), whose pages are
/// resident, or a new one of the chunk's room. The chunk keeps a little room at most (as
/// [`list_chunk`] leaves, so that a chunk replacing it most often fits in its
/// place).
pub(crate) fn compress_list_chunk(compressor: &Compressor, data: &[u8]) -> Result<Vec<u8>> {
    let room = data.len() + MAX_OVERHEAD;
    let mut chunk = crate::kept::take(|buffers| kept_for(buffers, room))
        .unwrap_or_else(|| Vec::with_capacity(room));
    // The compressor's error as it is (a super-chunk append returns it, as c-blosc2's does;
    // b2nd answers any with BLOSC2_ERROR_FAILURE), and Failure for a chunk that did not fit.
    let result = compressor.compress_to_vec(data, &mut chunk);
    match result {
        Ok(n) if n > 0 => {
            if chunk.capacity() - n > n / 8 {
                chunk.shrink_to(n + n / 64);
            }
            Ok(chunk)
        }
        _ => {
            crate::kept::keep([chunk]);
            Err(result.err().unwrap_or(Error::Failure))
        }
    }
}

/// The kept buffer to compress a chunk of `room` bytes at most into: the largest of those
/// that are no larger (the newest of them), and not so small that the chunk would grow it
/// many times.
fn kept_for(buffers: &[Vec<u8>], room: usize) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, b) in buffers.iter().enumerate().rev() {
        let c = b.capacity();
        if c <= room && c >= room / 32 && best.is_none_or(|j| c > buffers[j].capacity()) {
            best = Some(i);
        }
    }
    best
}

/// A copy of `chunk` for a list, in a kept buffer when one fits.
pub(super) fn list_chunk(chunk: &[u8]) -> Vec<u8> {
    if chunk.len() >= crate::kept::MIN {
        // The newest kept buffer it fits (see crate::kept).
        let spare = crate::kept::take(|buffers| {
            buffers
                .iter()
                .rposition(|b| fits(b.capacity(), chunk.len()))
        });
        if let Some(mut b) = spare {
            b.extend_from_slice(chunk);
            return b;
        }
        // A little room, so that a chunk replacing this one most often fits in its place.
        let mut b = Vec::with_capacity(chunk.len() + chunk.len() / 64);
        b.extend_from_slice(chunk);
        return b;
    }
    chunk.to_vec()
}

impl Drop for Chunks {
    fn drop(&mut self) {
        if let Chunks::List(list) = self {
            let_go(std::mem::take(list));
        }
    }
}

/// Room for what one more offset adds to a frame's offsets chunk (its 8 bytes, compressed
/// or not) when an in-memory frame grows ahead of a commit.
const OFFSETS_GROWTH: i64 = 64;

/// The id of a new chunk file of a sparse frame: one past the highest in use.
fn next_chunk_id(offsets: &[i64]) -> i64 {
    offsets.iter().copied().max().unwrap_or(-1).max(-1) + 1
}

impl Chunks {
    /// Number of chunks.
    pub(super) fn len(&self) -> i64 {
        match self {
            Chunks::List(l) => l.len() as i64,
            Chunks::Frame(f) => f.nchunks(),
        }
    }

    /// Chunk `i` (checked by the caller), borrowed when it is in memory.
    pub(super) fn get(&self, i: usize) -> Result<Cow<'_, [u8]>> {
        match self {
            Chunks::List(l) => Ok(Cow::Borrowed(&l[i])),
            Chunks::Frame(f) => f.chunk(i as i64),
        }
    }

    /// Chunk `i` (checked by the caller) as [`Frame::chunk_into`] gives it: one on disk is read
    /// into the buffer `alloc` returns.
    pub(super) fn get_into<'b>(
        &self,
        i: usize,
        alloc: &mut dyn FnMut(usize) -> Result<&'b mut [MaybeUninit<u8>]>,
    ) -> Result<ChunkBytes<'_, 'b>> {
        match self {
            Chunks::List(l) => Ok(ChunkBytes::Stored(Cow::Borrowed(&l[i]))),
            Chunks::Frame(f) => f.chunk_into(i as i64, alloc),
        }
    }

    /// Chunk `i` (checked by the caller); one of a frame on disk comes back lazy (see
    /// `Frame::lazy_chunk`).
    pub(super) fn get_lazy(&self, i: usize) -> Result<Cow<'_, [u8]>> {
        match self {
            Chunks::List(l) => Ok(Cow::Borrowed(&l[i])),
            Chunks::Frame(f) => f.lazy_chunk(i as i64),
        }
    }

    /// Uncompressed size of chunk `i` (checked by the caller), reading only its header.
    pub(super) fn nbytes_of(&self, i: usize) -> Result<i32> {
        match self {
            Chunks::List(l) => Ok(ChunkHeader::parse(&l[i])?.nbytes),
            Chunks::Frame(f) => Ok(f.chunk_header(i as i64)?.nbytes),
        }
    }

    /// The header of chunk `i` (checked by the caller) as `get` returns the chunk, reading
    /// only the header from disk.
    pub(super) fn header_of(&self, i: usize) -> Result<ChunkHeader> {
        match self {
            Chunks::List(l) => ChunkHeader::parse(&l[i]),
            Chunks::Frame(f) => f.located_chunk_header(i as i64),
        }
    }

    /// The list, if the chunks are one.
    pub(super) fn list(&self) -> Option<&[ListChunk]> {
        match self {
            Chunks::List(l) => Some(l),
            Chunks::Frame(_) => None,
        }
    }

    /// The frame, if the chunks are in one.
    pub(super) fn frame(&self) -> Option<&Frame> {
        match self {
            Chunks::Frame(f) => Some(f),
            Chunks::List(_) => None,
        }
    }

    /// Puts `chunk` (exactly its cbytes; `special` when a frame keeps it as an offset value)
    /// at position `at`. Returns the super-chunk's cbytes after, from `cbytes` before: a list
    /// counts every chunk whole, a frame only the chunks it stores.
    /// Whether the chunks are a list in memory, which keeps a chunk handed over as its own.
    pub(super) fn is_list(&self) -> bool {
        matches!(self, Chunks::List(_))
    }

    pub(super) fn insert(
        &mut self,
        at: usize,
        chunk: GivenChunk<'_>,
        special: Option<Special>,
        cbytes: i64,
        commit: Commit<'_>,
    ) -> Result<i64> {
        let chunk_len = chunk.bytes().len() as i64;
        let frame = match self {
            Chunks::List(list) => {
                list.insert(at, chunk.into_list_chunk());
                return Ok(cbytes + chunk_len);
            }
            Chunks::Frame(frame) => frame,
        };
        let stored_len = if special.is_some() { 0 } else { chunk_len };
        // An in-memory frame grows before the commit's temporaries are allocated: glibc may
        // put them right above it, and a buffer that cannot grow in place is copied, the old
        // one staying resident in the heap.
        frame.reserve((frame.len() + stored_len + OFFSETS_GROWTH) as u64);
        let mut offsets = Vec::with_capacity(frame.offsets().len() + 1);
        offsets.extend_from_slice(frame.offsets());
        let bytes = chunk.bytes();
        let (offset, write) = match special {
            Some(kind) => (special_offset(kind), None),
            None if frame.is_sparse() => {
                let id = next_chunk_id(&offsets);
                (id, Some((id, bytes)))
            }
            None => (cbytes, Some((cbytes, bytes))),
        };
        offsets.insert(at, offset);
        let mut h = commit.header;
        h.cbytes = cbytes + stored_len;
        let fp = FpChange::Insert(at, write.map(|(_, c)| c));
        frame.commit(h, commit.metas, commit.vlmetas, write, offsets, fp)?;
        chunk.copied();
        Ok(cbytes + stored_len)
    }

    /// Replaces chunk `i` (whose cbytes were `old_cbytes`) with `chunk` (exactly its cbytes;
    /// `special` as for [`Chunks::insert`]); returns the super-chunk's cbytes after.
    pub(super) fn replace(
        &mut self,
        i: usize,
        chunk: GivenChunk<'_>,
        special: Option<Special>,
        old_cbytes: i64,
        cbytes: i64,
        commit: Commit<'_>,
    ) -> Result<i64> {
        let frame = match self {
            Chunks::List(list) => {
                let len = chunk.bytes().len();
                match (chunk, &mut list[i]) {
                    // The replaced chunk's buffer takes borrowed bytes when they fit.
                    (GivenChunk::Borrowed(c), ListChunk::Own(v)) if fits(v.capacity(), len) => {
                        v.clear();
                        v.extend_from_slice(c);
                    }
                    // A chunk given away takes the old one's place as it is.
                    (chunk, slot) => {
                        let old = std::mem::replace(slot, chunk.into_list_chunk());
                        let_go([old]);
                    }
                }
                return Ok(cbytes + len as i64 - list_counted_cbytes(old_cbytes));
            }
            Chunks::Frame(frame) => frame,
        };
        let after =
            Self::replace_in_frame(frame, i, chunk.bytes(), special, old_cbytes, cbytes, commit)?;
        chunk.copied();
        Ok(after)
    }

    /// [`Chunks::replace`] in a frame.
    fn replace_in_frame(
        frame: &mut Frame,
        i: usize,
        chunk: &[u8],
        special: Option<Special>,
        old_cbytes: i64,
        cbytes: i64,
        commit: Commit<'_>,
    ) -> Result<i64> {
        let mut offsets = frame.offsets().to_vec();
        let old_offset = offsets[i];
        let mut h = commit.header;
        let new_len = if special.is_some() {
            0
        } else {
            chunk.len() as i64
        };
        if frame.is_sparse() {
            // The chunk files keep their ids; a special chunk frees its file.
            let old_stored = if old_offset >= 0 { old_cbytes } else { 0 };
            h.cbytes = cbytes - old_stored + new_len;
            let mut write = None;
            match special {
                Some(kind) => offsets[i] = special_offset(kind),
                None => {
                    // With fingerprints the new chunk gets a new file: the old one, which the
                    // table in force describes, stays whole until the new index replaces it.
                    if old_offset < 0 || frame.writes_fingerprints() {
                        offsets[i] = next_chunk_id(&offsets);
                    }
                    write = Some((offsets[i], chunk));
                }
            }
            let after = h.cbytes;
            let fp = FpChange::Replace(i, write.map(|(_, c)| c));
            frame.commit(h, commit.metas, commit.vlmetas, write, offsets, fp)?;
            if old_offset >= 0 {
                frame.remove_unused_chunk_files(&[old_offset])?;
            }
            return Ok(after);
        }
        // The data after the old chunk shifts so the new one fits in its place.
        let (slot, old_stored) = if old_offset >= 0 {
            (old_offset, old_cbytes)
        } else {
            (cbytes, 0)
        };
        let old_end = slot + old_stored;
        let delta = new_len - old_stored;
        for (j, o) in offsets.iter_mut().enumerate() {
            if j != i && *o >= 0 && *o > slot {
                *o += delta;
            }
        }
        offsets[i] = match special {
            Some(kind) => special_offset(kind),
            None => slot,
        };
        h.cbytes = cbytes + delta;
        let after = h.cbytes;
        let fp = FpChange::Replace(i, special.is_none().then_some(chunk));
        if !frame.ordered_writes() {
            frame.resize_chunk_slot(slot, old_stored, new_len)?;
            // The chunk goes in with the commit, which computes its CRC (with fingerprints)
            // as it copies it.
            let write = special.is_none().then_some((slot, chunk));
            frame.commit(h, commit.metas, commit.vlmetas, write, offsets, fp)?;
        } else {
            // In a file the new data from the slot on (the chunk, then the chunks after it)
            // goes to commit, which first writes it where a kill cannot hurt
            // (docs/CRASH-SAFETY.md), moving the chunks after it inside the file.
            let edit = DataEdit {
                at: slot,
                chunk: if special.is_none() { chunk } else { &[] },
                tail_from: old_end,
                tail_len: cbytes - old_end,
            };
            frame.commit_update(h, commit.metas, commit.vlmetas, edit, offsets, fp)?;
        }
        Ok(after)
    }

    /// [`Chunks::replace`] of chunks `first..first + run.len()` at once, in a contiguous frame
    /// file where they sit one after the other (nothing else stored between or in them): the
    /// frame ends with the bytes the updates one by one leave, but the chunks after them move
    /// once, in one kill-safe commit (all of the updates or none). Returns the super-chunk's
    /// cbytes after, or `None` (nothing done) where the chunks are not so stored.
    pub(super) fn replace_run(
        &mut self,
        first: usize,
        run: &[Replacement<'_>],
        cbytes: i64,
        commit: Commit<'_>,
    ) -> Result<Option<i64>> {
        let Chunks::Frame(frame) = self else {
            return Ok(None);
        };
        if !frame.ordered_writes() {
            return Ok(None);
        }
        let mut offsets = frame.offsets().to_vec();
        let Some(&slot) = offsets.get(first) else {
            return Ok(None);
        };
        let mut old_end = slot;
        for (k, r) in run.iter().enumerate() {
            if slot < 0 || offsets.get(first + k) != Some(&old_end) {
                return Ok(None);
            }
            old_end += r.old_cbytes;
        }
        let members = first..first + run.len();
        let shared = offsets
            .iter()
            .enumerate()
            .any(|(j, o)| !members.contains(&j) && (slot..old_end).contains(o));
        if shared || old_end > cbytes {
            return Ok(None);
        }
        // As the updates one by one leave it: the new chunks from the slot on, in order (a
        // special one stores nothing), the chunks after them moved by the change in size.
        let mut data = Vec::new();
        for (k, r) in run.iter().enumerate() {
            offsets[first + k] = match r.special {
                Some(kind) => special_offset(kind),
                None => {
                    let at = slot + data.len() as i64;
                    data.extend_from_slice(r.chunk);
                    at
                }
            };
        }
        let delta = slot + data.len() as i64 - old_end;
        for (j, o) in offsets.iter_mut().enumerate() {
            if !members.contains(&j) && *o >= old_end {
                *o += delta;
            }
        }
        let mut h = commit.header;
        h.cbytes = cbytes + delta;
        let after = h.cbytes;
        let edit = DataEdit {
            at: slot,
            chunk: &data,
            tail_from: old_end,
            tail_len: cbytes - old_end,
        };
        let stored: Vec<Option<&[u8]>> = run
            .iter()
            .map(|r| r.special.is_none().then_some(r.chunk))
            .collect();
        let fp = FpChange::ReplaceRun(first, &stored);
        frame.commit_update(h, commit.metas, commit.vlmetas, edit, offsets, fp)?;
        Ok(Some(after))
    }

    /// Removes chunk `i` (whose cbytes were `old_cbytes`); returns the super-chunk's cbytes
    /// after. A contiguous frame keeps the chunk's bytes in its data section and counts them,
    /// as c-blosc2 does.
    pub(super) fn delete(
        &mut self,
        i: usize,
        old_cbytes: i64,
        cbytes: i64,
        commit: Commit<'_>,
    ) -> Result<i64> {
        let frame = match self {
            Chunks::List(list) => {
                let_go([list.remove(i)]);
                return Ok(cbytes - list_counted_cbytes(old_cbytes));
            }
            Chunks::Frame(frame) => frame,
        };
        let mut offsets = frame.offsets().to_vec();
        let old_offset = offsets.remove(i);
        let mut h = commit.header;
        h.cbytes = cbytes;
        if frame.is_sparse() && old_offset >= 0 {
            h.cbytes -= old_cbytes;
        }
        // With no chunk left commit_with writes no offsets index (as c-blosc2 does).
        let off_chunk = if offsets.is_empty() {
            None
        } else {
            let room = offsets.len() + 1;
            Some(frame.encode_offsets(&offsets, room)?)
        };
        let after = h.cbytes;
        let fp = FpChange::Remove(i);
        frame.commit_with(
            h,
            commit.metas,
            commit.vlmetas,
            None,
            offsets,
            off_chunk,
            fp,
        )?;
        frame.remove_unused_chunk_files(&[old_offset])?;
        Ok(after)
    }

    /// Reorders the chunks: new chunk `i` is old chunk `order[i]` (a permutation, checked by
    /// the caller).
    pub(super) fn reorder(&mut self, order: &[usize], commit: Commit<'_>) -> Result<()> {
        match self {
            Chunks::List(list) => {
                let mut slots: Vec<Option<ListChunk>> =
                    std::mem::take(list).into_iter().map(Some).collect();
                *list = order
                    .iter()
                    .map(|&o| {
                        slots[o]
                            .take()
                            .unwrap_or_else(|| ListChunk::Own(Vec::new()))
                    })
                    .collect();
                Ok(())
            }
            Chunks::Frame(frame) => {
                let old = frame.offsets();
                let offsets = order.iter().map(|&o| old[o]).collect();
                let fp = FpChange::Permute(order);
                frame.commit(
                    commit.header,
                    commit.metas,
                    commit.vlmetas,
                    None,
                    offsets,
                    fp,
                )
            }
        }
    }
}
