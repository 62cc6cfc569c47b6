//! Writing frames: creating one, and committing a change (the chunk written, then the offsets
//! index, trailer and header) in the order that keeps the last committed state readable in a
//! file wherever the writer is killed (docs/CRASH-SAFETY.md).

use std::path::Path;
use std::sync::Arc;

use super::fingerprint::{self, FpChange};
use super::io::{ByteStore, Io, OpenMode};
use super::*;

impl Frame {
    /// Creates a frame with no chunks in `backing` (the store is truncated to it), with
    /// fingerprints when `fingerprints`.
    pub(crate) fn create(
        backing: Backing,
        io: Arc<dyn Io>,
        header: FrameHeader,
        metas: &[Meta],
        vlmetas: &[Meta],
        fingerprints: bool,
    ) -> Result<Frame> {
        let mut frame = Frame {
            backing,
            io,
            header,
            offsets: Vec::new(),
            trailer_len: 0,
            offsets_adjust: None,
            building: false,
            fp: FpState {
                write: fingerprints,
                ..FpState::default()
            },
        };
        frame.header.nbytes = 0;
        frame.header.cbytes = 0;
        frame.header.sparse = frame.is_sparse();
        let h = frame.header.clone();
        frame.commit(h, metas, vlmetas, None, Vec::new(), FpChange::Same)?;
        Ok(frame)
    }

    /// Rewrites header, offsets index and trailer from `header` (sizes already updated by the
    /// caller), after writing `new_chunk` (a regular chunk) where it goes: at the end of the
    /// data section (`at` is its offset) or into its sframe chunk file (`at` is its id). `fp`
    /// says how the chunks' fingerprints change.
    pub(crate) fn commit(
        &mut self,
        header: FrameHeader,
        metas: &[Meta],
        vlmetas: &[Meta],
        new_chunk: Option<(i64, &[u8])>,
        offsets: Vec<i64>,
        fp: FpChange<'_>,
    ) -> Result<()> {
        self.commit_with(header, metas, vlmetas, new_chunk, offsets, None, fp)
    }

    /// `commit` with the offsets chunk given already encoded (`None`: encode `offsets`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn commit_with(
        &mut self,
        header: FrameHeader,
        metas: &[Meta],
        vlmetas: &[Meta],
        new_chunk: Option<(i64, &[u8])>,
        offsets: Vec<i64>,
        off_chunk: Option<Vec<u8>>,
        fp: FpChange<'_>,
    ) -> Result<()> {
        let edit = new_chunk.map(|(at, chunk)| DataEdit::chunk(at, chunk));
        self.commit_edit(header, metas, vlmetas, edit, offsets, off_chunk, fp)
    }

    /// `commit` of a contiguous frame in a file whose data section changes from `edit.at` on
    /// (an updated chunk, the chunks after it moved): the moved bytes go from place to place
    /// in the store, never all in memory at once.
    pub(crate) fn commit_update(
        &mut self,
        header: FrameHeader,
        metas: &[Meta],
        vlmetas: &[Meta],
        edit: DataEdit<'_>,
        offsets: Vec<i64>,
        fp: FpChange<'_>,
    ) -> Result<()> {
        self.commit_edit(header, metas, vlmetas, Some(edit), offsets, None, fp)
    }

    #[allow(clippy::too_many_arguments)]
    fn commit_edit(
        &mut self,
        mut header: FrameHeader,
        metas: &[Meta],
        vlmetas: &[Meta],
        edit: Option<DataEdit<'_>>,
        offsets: Vec<i64>,
        off_chunk: Option<Vec<u8>>,
        fp: FpChange<'_>,
    ) -> Result<()> {
        let straight = self.writes_straight();
        // A new chunk written straight into a contiguous frame gets its CRC as it is copied
        // in (one pass over it, not two: an in-memory append was 10% slower with fingerprints
        // when the CRC read the chunk first); the table and trailer are finished after.
        let deferred = match edit {
            Some(e) if straight && self.fp.write => fp.position_of(e.chunk),
            _ => None,
        };
        let mut table = self.next_table(fp, &offsets, deferred.is_some())?;
        let table_meta = table.as_deref().map(fingerprint::table_meta).transpose()?;
        header.sparse = self.is_sparse();
        header.has_vlmeta = !vlmetas.is_empty() || table_meta.is_some();
        let mut hbytes = header.encode(metas)?;
        if table.is_some() {
            fingerprint::set_marker(&mut hbytes);
        }
        let header_len = hbytes.len() as i64;
        if header_len != self.header.header_len as i64
            && self.header.header_len != 0
            && self.header.cbytes > 0
            && !self.is_sparse()
        {
            // Chunks sit right after the header: it cannot change size under them.
            return Err(Error::Data);
        }
        let off_chunk = match off_chunk {
            Some(c) => c,
            None if offsets.is_empty() => Vec::new(),
            None => self.encode_offsets(&offsets, offsets.len())?,
        };
        let mut tbytes = trailer::encode(vlmetas, table_meta.as_ref())?;
        // Without an offsets index (no chunks) the trailer follows the header right away.
        let off_pos = if self.is_sparse() || off_chunk.is_empty() {
            header_len
        } else {
            header_len + header.cbytes
        };
        let frame_len = off_pos + off_chunk.len() as i64 + tbytes.len() as i64;
        header.frame_len = frame_len;
        header.header_len = header_len as i32;
        hbytes[header::POS_FRAME_LEN..header::POS_FRAME_LEN + 8]
            .copy_from_slice(&frame_len.to_be_bytes());
        if table.is_some() && deferred.is_none() {
            fingerprint::seal(&hbytes, &off_chunk, &mut tbytes);
        }

        let old = Sizes::of(&self.header);
        match &mut self.backing {
            Backing::Sparse { .. } => {
                let parts = FrameParts {
                    header: &hbytes,
                    edit,
                    offsets: &offsets,
                    off_pos,
                    off_chunk: &off_chunk,
                    trailer: &tbytes,
                };
                self.write_sparse(&parts, frame_len)?;
            }
            Backing::Contiguous { store, offset } if straight => {
                let data_at = *offset + header_len as u64;
                let crc = write_edit(&mut **store, data_at, data_at, edit, deferred.is_some())?;
                if let (Some(i), Some(t), Some(crc)) = (deferred, table.as_mut(), crc) {
                    fingerprint::set_entry_crc(t, &mut tbytes, i, crc);
                    fingerprint::seal(&hbytes, &off_chunk, &mut tbytes);
                }
                write_frame(&mut **store, *offset, &hbytes, off_pos, &off_chunk, &tbytes)?;
            }
            Backing::Contiguous { store, offset } => {
                let new = Sizes {
                    header_len,
                    nbytes: header.nbytes,
                    cbytes: header.cbytes,
                    frame_len,
                };
                let parts = FrameParts {
                    header: &hbytes,
                    edit: edit.filter(|e| e.len() > 0),
                    offsets: &offsets,
                    off_pos,
                    off_chunk: &off_chunk,
                    trailer: &tbytes,
                };
                write_frame_safely(&mut **store, *offset, old, new, parts)?;
            }
        }
        self.header = header;
        self.offsets = offsets;
        self.trailer_len = tbytes.len() as u32;
        self.fp.table = table;
        self.fp.damaged = None;
        Ok(())
    }

    /// Whether a change is written straight, in c-blosc2's order: into a contiguous frame
    /// just made or being built by the call that created it (nothing acknowledged in it yet),
    /// or one in memory or a user backend; frames in files are written in an order that
    /// survives the writer being killed at any point (docs/CRASH-SAFETY.md).
    fn writes_straight(&self) -> bool {
        let fresh = self.trailer_len == 0 || self.building;
        match &self.backing {
            Backing::Contiguous { store, .. } => fresh || !store.ordered_writes(),
            Backing::Sparse { .. } => false,
        }
    }

    /// Writes the new state of an sframe (`parts.edit` names the chunk file the new chunk goes
    /// to), its index frame `frame_len` bytes long: replaced whole where a kill must not leave
    /// it half written.
    fn write_sparse(&mut self, parts: &FrameParts<'_>, frame_len: i64) -> Result<()> {
        let fresh = self.trailer_len == 0 || self.building;
        let chunk_in_use = parts.edit.is_some_and(|e| self.offsets.contains(&e.at));
        let io = self.io.clone();
        let Backing::Sparse { dir, index } = &mut self.backing else {
            return Err(Error::FrameType);
        };
        let renames = io.renames() && index.ordered_writes() && !fresh;
        if let Some(DataEdit { at: id, chunk, .. }) = parts.edit {
            let path = sframe_chunk_path(dir, id);
            if renames && chunk_in_use {
                // The old file stays whole until the new one replaces it.
                replace_file(&*io, &path, chunk)?;
            } else {
                // A new id: no offset refers to the file yet.
                let mut f = io.open(&path, OpenMode::Create)?;
                f.write_at(0, chunk)?;
            }
        }
        if !renames {
            let (h, t) = (parts.header, parts.trailer);
            return write_frame(&mut **index, 0, h, parts.off_pos, parts.off_chunk, t);
        }
        let mut whole = Vec::with_capacity(frame_len as usize);
        whole.extend_from_slice(parts.header);
        whole.extend_from_slice(parts.off_chunk);
        whole.extend_from_slice(parts.trailer);
        if whole.len() <= ONE_WRITE {
            // One write within the first page: a kill lands before or after it, and bytes
            // left past the new end by a kill before the truncation are past the frame
            // length, which readers do not read.
            index.write_at(0, &whole)?;
            index.truncate(frame_len as u64)
        } else {
            let path = dir.join(SFRAME_INDEX);
            replace_file(&*io, &path, &whole)?;
            *index = io.open(&path, OpenMode::ReadWrite)?;
            Ok(())
        }
    }

    /// Removes the chunk files of an sframe that no offset refers to any more.
    pub(crate) fn remove_unused_chunk_files(&self, ids: &[i64]) -> Result<()> {
        if let Backing::Sparse { dir, .. } = &self.backing {
            for &id in ids {
                if id >= 0 && !self.offsets.contains(&id) {
                    let _ = self.io.remove(&sframe_chunk_path(dir, id));
                }
            }
        }
        Ok(())
    }

    /// Moves the regular chunks of a contiguous frame so that chunk `n` (of `old_len` bytes at
    /// `old_offset`) takes `new_len` bytes: the data after it shifts by the difference.
    pub(crate) fn resize_chunk_slot(
        &mut self,
        old_offset: i64,
        old_len: i64,
        new_len: i64,
    ) -> Result<()> {
        let Backing::Contiguous { store, offset } = &mut self.backing else {
            return Ok(());
        };
        let data_start = *offset + self.header.header_len as u64;
        let tail_from = old_offset + old_len;
        let tail_len = self.header.cbytes - tail_from;
        if tail_len > 0 && old_len != new_len {
            let to = data_start + (old_offset + new_len) as u64;
            store.move_within(data_start + tail_from as u64, to, tail_len as usize)?;
        }
        Ok(())
    }

    /// Writes `len` bytes at offset `at` of the data section of a contiguous frame, as `fill`
    /// produces them in the buffer it is given (the store's own memory for in-memory frames).
    pub(crate) fn fill_data(
        &mut self,
        at: i64,
        len: usize,
        fill: &mut dyn FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<()> {
        let Backing::Contiguous { store, offset } = &mut self.backing else {
            return Err(Error::FrameType);
        };
        let at = u64::try_from(at).map_err(|_| Error::InvalidParam)?;
        store.write_with(*offset + self.header.header_len as u64 + at, len, fill)
    }

    /// Tells the store of a contiguous frame that the frame is about to grow to `len` bytes.
    pub(crate) fn reserve(&mut self, len: u64) {
        if let Backing::Contiguous { store, offset } = &mut self.backing {
            store.reserve(offset.saturating_add(len));
        }
    }

    /// Whether changes to this contiguous frame are written in the crash-safe order
    /// ([`ByteStore::ordered_writes`]: files, not memory or user backends).
    pub(crate) fn ordered_writes(&self) -> bool {
        match &self.backing {
            Backing::Contiguous { store, .. } => store.ordered_writes(),
            Backing::Sparse { .. } => false,
        }
    }

    /// Whether an update of several chunks next to each other in this frame is best committed
    /// in one pass ([`DataEdit`] holding them all): a contiguous frame in a file, written in
    /// the crash-safe order (not being built), where each update moves the chunks after it.
    pub(crate) fn updates_in_one_pass(&self) -> bool {
        self.ordered_writes() && !self.building
    }
}

/// New bytes of a contiguous frame's data section: from offset `at` on, it holds `chunk` (one
/// updated chunk, or several that sit one after the other), then the `tail_len` bytes that are
/// now at offset `tail_from` of the old data section (the chunks after the updated ones). In an
/// sframe, `at` is the id of the chunk file `chunk` goes to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DataEdit<'a> {
    pub at: i64,
    pub chunk: &'a [u8],
    pub tail_from: i64,
    pub tail_len: i64,
}

impl<'a> DataEdit<'a> {
    /// Only `chunk`, at `at`.
    pub fn chunk(at: i64, chunk: &'a [u8]) -> DataEdit<'a> {
        DataEdit {
            at,
            chunk,
            tail_from: 0,
            tail_len: 0,
        }
    }

    /// How many bytes of the data section it writes.
    fn len(&self) -> i64 {
        self.chunk.len() as i64 + self.tail_len
    }
}

/// Where the parts of a contiguous frame are: its header length, uncompressed and stored
/// sizes (the data section is `cbytes` long, the offsets index follows) and its length.
#[derive(Debug, Clone, Copy)]
struct Sizes {
    header_len: i64,
    nbytes: i64,
    cbytes: i64,
    frame_len: i64,
}

impl Sizes {
    fn of(h: &FrameHeader) -> Sizes {
        Sizes {
            header_len: h.header_len as i64,
            nbytes: h.nbytes,
            cbytes: h.cbytes,
            frame_len: h.frame_len,
        }
    }
}

/// The new state of a contiguous frame, as `commit` made it.
struct FrameParts<'a> {
    /// The encoded header.
    header: &'a [u8],
    /// New bytes of the data section (none empty).
    edit: Option<DataEdit<'a>>,
    /// The chunk offsets `off_chunk` encodes.
    offsets: &'a [i64],
    /// Where the offsets index goes (from the frame's start).
    off_pos: i64,
    off_chunk: &'a [u8],
    trailer: &'a [u8],
}

/// The most bytes written at the start of a file that a kill cannot split: a write within one
/// page (4 KiB, the smallest page size of the systems this runs on) is all or nothing when the
/// writer is killed, since the kernel looks for a fatal signal only between pages.
const ONE_WRITE: usize = 4096;

/// Sets the stored size and frame length fields of an encoded header.
fn patch_header(header: &mut [u8], cbytes: i64, frame_len: i64) {
    header[header::POS_CBYTES..header::POS_CBYTES + 8].copy_from_slice(&cbytes.to_be_bytes());
    header[header::POS_FRAME_LEN..header::POS_FRAME_LEN + 8]
        .copy_from_slice(&frame_len.to_be_bytes());
}

/// Writes the new state of the contiguous frame at `base` of `store` (the frame there is in
/// state `old`) so that a writer killed before any of its writes leaves a frame that opens as
/// the old state or the new one, and ends with the bytes `write_frame` writes.
///
/// The final places of the new chunk, index and trailer overlap the old index and trailer (and,
/// for an update, the old chunks after the one replaced). So one state is first made readable
/// from bytes past both the old and the new frame end, `far`, by a header whose stored size
/// (`cbytes`) reaches there: the bytes between are then data no offset points to. Either the
/// old state (its index and trailer copied to `far`: when the change writes nothing in the old
/// data section) or the new one (an update, or a frame without chunks before: see
/// [`write_update_safely`]). Then the new state is written in its final place, which only
/// overwrites bytes that header does not use, the final header is written, and the store is
/// cut at the new end. Each header is one write of a few hundred bytes.
fn write_frame_safely(
    store: &mut dyn ByteStore,
    base: u64,
    old: Sizes,
    new: Sizes,
    parts: FrameParts<'_>,
) -> Result<()> {
    let hl = new.header_len;
    let end = base + new.frame_len as u64;
    if hl != old.header_len || (old.nbytes == 0 && new.nbytes == 0) {
        // No chunk before or after (a header only changes size without stored data, and a
        // frame without chunks keeps its trailer right after the header): the whole frame is
        // a few hundred bytes, written at once.
        if parts.edit.is_some() || parts.off_pos != hl {
            let old_data_at = base + old.header_len as u64;
            write_edit(store, base + hl as u64, old_data_at, parts.edit, false)?;
            return write_frame(
                store,
                base,
                parts.header,
                parts.off_pos,
                parts.off_chunk,
                parts.trailer,
            );
        }
        let mut whole = Vec::with_capacity(new.frame_len as usize);
        whole.extend_from_slice(parts.header);
        whole.extend_from_slice(parts.off_chunk);
        whole.extend_from_slice(parts.trailer);
        store.write_at(base, &whole)?;
        return store.truncate(end);
    }
    let far = old.frame_len.max(new.frame_len);
    let keeps_old_data = parts.edit.is_none_or(|e| e.at >= old.cbytes);
    if !keeps_old_data || old.nbytes == 0 {
        // An update (or a first chunk): the new state is made readable first.
        let edit = parts.edit.unwrap_or(DataEdit::chunk(new.cbytes, &[]));
        return write_update_safely(store, base, far, new, edit, &parts);
    }
    // The old state, its index and trailer copied past both ends.
    let from = hl + old.cbytes;
    let old_tail = read_vec(store, base + from as u64, (old.frame_len - from) as usize)?;
    store.write_at(base + far as u64, &old_tail)?;
    let mut mid = read_vec(store, base, hl as usize)?;
    patch_header(&mut mid, far - hl, far + old_tail.len() as i64);
    store.write_at(base, &mid)?;
    // The new chunk (if any) at the end of the old data, which that header does not use.
    write_edit(store, base + hl as u64, base + hl as u64, parts.edit, false)?;
    let mut index = Vec::with_capacity(parts.off_chunk.len() + parts.trailer.len());
    index.extend_from_slice(parts.off_chunk);
    index.extend_from_slice(parts.trailer);
    store.write_at(base + parts.off_pos as u64, &index)?;
    store.write_at(base, parts.header)?;
    store.truncate(end)
}

/// The most bytes of the chunks after an updated one that move in one group (see
/// [`write_update_safely`]): up to this much a group is held in memory, and the staging areas
/// past the frame's end are that large.
const MOVE_GROUP: i64 = 1 << 20;

/// How an update's tail moves (see [`write_update_safely`]).
struct TailMove {
    /// The change in size: where the tail goes, relative to where it is.
    delta: i64,
    /// The index in force while the tail moves: the new chunk(s) at `far`, the tail where it
    /// is now (data offsets).
    cur: Vec<i64>,
    /// The positions in the index of the tail's chunks.
    tail: Vec<usize>,
    /// The groups of whole tail chunks (data offsets, start..end), in the order they move.
    groups: Vec<(i64, i64)>,
}

/// Plans an update's tail move: `far_data` is `far` as a data offset.
fn plan_tail_move(edit: &DataEdit<'_>, offsets: &[i64], far_data: i64) -> TailMove {
    let n_len = edit.chunk.len() as i64;
    let new_tail = edit.at + n_len;
    let delta = new_tail - edit.tail_from;
    let (tail_from, tail_end) = (edit.tail_from, edit.tail_from + edit.tail_len);
    let mut cur: Vec<i64> = offsets.to_vec();
    let mut tail = Vec::new();
    for (j, o) in cur.iter_mut().enumerate() {
        if edit.tail_len > 0 && *o >= new_tail {
            *o -= delta;
            tail.push(j);
        } else if (edit.at..new_tail).contains(o) {
            // A new chunk (`edit.chunk` may hold several, one after the other).
            *o += far_data - edit.at;
        }
    }
    // Groups of whole chunks: the tail cut where its chunks start.
    let mut cuts: Vec<i64> = tail.iter().map(|&j| cur[j]).collect();
    cuts.push(tail_from);
    cuts.sort_unstable();
    cuts.dedup();
    cuts.retain(|&c| (tail_from..tail_end).contains(&c));
    let group_max = MOVE_GROUP.max((edit.tail_len + 31) / 32);
    let mut groups: Vec<(i64, i64)> = Vec::new();
    for (k, &start) in cuts.iter().enumerate() {
        let end = cuts.get(k + 1).copied().unwrap_or(tail_end);
        match groups.last_mut() {
            Some(g) if end - g.0 <= group_max => g.1 = end,
            _ => groups.push((start, end)),
        }
    }
    if delta > 0 {
        groups.reverse();
    }
    if delta == 0 {
        // Nothing moves: only the chunk goes to `far` first.
        groups.clear();
    }
    TailMove {
        delta,
        cur,
        tail,
        groups,
    }
}

/// [`write_frame_safely`] for an update whose chunks after the updated one (the tail) move by
/// the change in its size. Every state a kill can leave is readable, and the bytes at the end
/// are `write_frame`'s, as c-blosc2 writes them (docs/CRASH-SAFETY.md, "update"):
///
/// 1. the new chunk at `far` (past both frame ends), then an index in which it is there and the
///    tail where it was, in an index slot past it, then a header pointing at that slot;
/// 2. the tail, in groups of whole chunks from the end that moves into free room first (the
///    last group when the chunk grew, the first when it shrank): a group whose final place
///    overlaps its old one is first copied to one of two staging areas past `far`, the index
///    (in the other slot, then the header) pointed at the copy; then the group is written in
///    its final place and pointed there by the next index (which also points the next group at
///    its copy). A group only ever overwrites bytes no index in force points to: its own old
///    place, and room the groups moved before left;
/// 3. the new chunk in its final place, the final index and trailer, the header, a truncate.
///
/// A group holds [`MOVE_GROUP`] bytes or a thirty-second of the tail, whichever is more (one
/// chunk at least), so a change takes a few dozen index rewrites at most, and the tail is written
/// twice only through warm pages of the staging areas instead of once more past the file's
/// end (8 updates of 800 KB chunks in a 32-chunk file: 67-80 ms before, 24-26 ms; c-blosc2 17).
fn write_update_safely(
    store: &mut dyn ByteStore,
    base: u64,
    far: i64,
    new: Sizes,
    edit: DataEdit<'_>,
    parts: &FrameParts<'_>,
) -> Result<()> {
    let hl = new.header_len;
    let n_len = edit.chunk.len() as i64;
    let TailMove {
        delta,
        mut cur,
        tail,
        groups,
    } = plan_tail_move(&edit, parts.offsets, far - hl);
    let staging = groups.iter().map(|g| g.1 - g.0).max().unwrap_or(0);
    // Past `far`: the new chunk, two staging areas, two index slots.
    let stage_at = [far + n_len, far + n_len + staging];
    let slot_len =
        offsets::offsets_nbytes(cur.len() as i64)? as i64 + 64 + parts.trailer.len() as i64;
    let slot_at = [
        far + n_len + 2 * staging,
        far + n_len + 2 * staging + slot_len,
    ];
    let mut slot = 0;
    // Writes `cur` to the slot not in force, then the header pointing at it.
    let mut point = |store: &mut dyn ByteStore, cur: &[i64]| -> Result<()> {
        let at = slot_at[slot];
        slot ^= 1;
        let mut index = if cur.is_empty() {
            Vec::new()
        } else {
            offsets::encode(cur)?
        };
        let off_len = index.len();
        index.extend_from_slice(parts.trailer);
        // The trailer's fingerprint (if any) names this index while it is in force.
        let (off, trailer) = index.split_at_mut(off_len);
        fingerprint::reseal_index(trailer, off);
        if index.len() as i64 > slot_len {
            return Err(Error::Data);
        }
        store.write_at(base + at as u64, &index)?;
        let mut shadow = parts.header.to_vec();
        patch_header(&mut shadow, at - hl, at + index.len() as i64);
        store.write_at(base, &shadow)
    };
    if n_len > 0 {
        store.write_at(base + far as u64, edit.chunk)?;
    }
    point(store, &cur)?;
    let data = base + hl as u64;
    // Where each tail chunk was (data offsets).
    let old_at: Vec<(usize, i64)> = tail.iter().map(|&j| (j, cur[j])).collect();
    let mut buf = Vec::new();
    // Whether `cur` has changed since it was last written.
    let mut dirty = false;
    for (k, &g) in groups.iter().enumerate() {
        let len = g.1 - g.0;
        let members = || old_at.iter().filter(move |(_, o)| (g.0..g.1).contains(o));
        let overlaps = delta.abs() < len;
        let stage = stage_at[k % 2];
        if overlaps {
            // Its final place overlaps its old one: first a copy it is read from meanwhile.
            if len <= MOVE_GROUP {
                buf.clear();
                store.read_exact_append(data + g.0 as u64, len as usize, &mut buf)?;
                store.write_at(base + stage as u64, &buf)?;
            } else {
                store.move_within(data + g.0 as u64, base + stage as u64, len as usize)?;
            }
            for &(j, o) in members() {
                cur[j] = stage - hl + (o - g.0);
            }
            dirty = true;
        }
        // The groups moved before at their final places (and this one at its copy) before
        // anything is written over their old ones.
        if dirty {
            point(store, &cur)?;
        }
        let to = data + (g.0 + delta) as u64;
        if overlaps && len <= MOVE_GROUP {
            store.write_at(to, &buf)?;
        } else if overlaps {
            store.move_within(base + stage as u64, to, len as usize)?;
        } else {
            store.move_within(data + g.0 as u64, to, len as usize)?;
        }
        for &(j, o) in members() {
            cur[j] = o + delta;
        }
        dirty = true;
    }
    if dirty {
        point(store, &cur)?;
    }
    // The final layout: nothing an index in force points to is written from here on but by
    // the last header.
    if n_len > 0 {
        store.write_at(data + edit.at as u64, edit.chunk)?;
    }
    let mut index = Vec::with_capacity(parts.off_chunk.len() + parts.trailer.len());
    index.extend_from_slice(parts.off_chunk);
    index.extend_from_slice(parts.trailer);
    store.write_at(base + parts.off_pos as u64, &index)?;
    store.write_at(base, parts.header)?;
    store.truncate(base + new.frame_len as u64)
}

/// Writes the changed bytes of a data section that starts at `data_at` in `store`; the moved
/// bytes (`tail_from`) are counted from `tail_base`.
/// With `crc`, returns the CRC-32C of the chunk written, computed as it is copied in.
fn write_edit(
    store: &mut dyn ByteStore,
    data_at: u64,
    tail_base: u64,
    edit: Option<DataEdit<'_>>,
    crc: bool,
) -> Result<Option<u32>> {
    let Some(e) = edit else {
        return Ok(None);
    };
    let chunk_at = data_at + e.at as u64;
    let mut chunk_crc = None;
    if !e.chunk.is_empty() {
        if crc {
            chunk_crc = Some(store.write_at_crc(chunk_at, e.chunk)?);
        } else {
            store.write_at(chunk_at, e.chunk)?;
        }
    }
    if e.tail_len > 0 {
        let to = chunk_at + e.chunk.len() as u64;
        store.move_within(tail_base + e.tail_from as u64, to, e.tail_len as usize)?;
    }
    Ok(chunk_crc)
}

/// Replaces the file at `path` with one holding `bytes`: written under a temporary name next
/// to it and renamed over it, so that the path names the old file or the new one, whole.
fn replace_file(io: &dyn Io, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = path.as_os_str().to_os_string();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    {
        let mut f = io.open(&tmp, OpenMode::Create)?;
        f.write_at(0, bytes)?;
    }
    io.rename(&tmp, path)
}

/// Writes header, offsets chunk and trailer of a frame at `base`, then cuts the store there.
fn write_frame(
    store: &mut dyn ByteStore,
    base: u64,
    header: &[u8],
    off_pos: i64,
    off_chunk: &[u8],
    trailer: &[u8],
) -> Result<()> {
    let off_at = base + off_pos as u64;
    store.write_at(off_at, off_chunk)?;
    let trailer_at = off_at + off_chunk.len() as u64;
    store.write_at(trailer_at, trailer)?;
    store.truncate(trailer_at + trailer.len() as u64)?;
    store.write_at(base, header)
}
