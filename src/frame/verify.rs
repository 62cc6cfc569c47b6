//! A frame's fingerprints at work: the table kept current through changes, chunk reads checked
//! against it, whole frames verified (docs/FINGERPRINTS.md).

use super::fingerprint::{Entry, FpChange, Region, Report, State};
use super::*;

impl Frame {
    /// Writes changes from now on with fingerprints (`write`) or without, and checks chunk
    /// reads against the table (`verify_reads`). Takes effect at the next change (see
    /// [`Frame::fingerprinted`]).
    pub(crate) fn set_fingerprinting(&mut self, write: bool, verify_reads: bool) {
        self.fp.write = write;
        self.fp.verify_reads = verify_reads;
    }

    /// Whether changes are written with fingerprints.
    pub fn writes_fingerprints(&self) -> bool {
        self.fp.write
    }

    /// Whether chunk reads are checked against the fingerprint table.
    pub fn verifies_reads(&self) -> bool {
        self.fp.verify_reads
    }

    /// Whether the frame holds a fingerprint (as opened or last written) whose header, index
    /// and trailer values held when read.
    pub fn fingerprinted(&self) -> bool {
        self.fp.table.is_some()
    }

    /// The region opening found damaged, if the frame's fingerprint did not hold then.
    pub fn damaged_when_opened(&self) -> Option<Region> {
        self.fp.damaged
    }

    /// The table the frame holds after a change: `None` when it is written without
    /// fingerprints; [`Error::Data`] for a frame whose fingerprint did not hold when opened; else the current table (or, for a frame that had none, one computed from
    /// its stored chunks, `offsets` before the change) with `change` applied. A rebuild reads
    /// the stored chunks `new_offsets` points to. With `deferred`, the new chunk of an insert
    /// or replace gets a CRC of 0, set once it is written ([`FpChange::apply`]).
    pub(crate) fn next_table(
        &self,
        change: FpChange<'_>,
        new_offsets: &[i64],
        deferred: bool,
    ) -> Result<Option<Vec<Entry>>> {
        if !self.fp.write {
            return Ok(None);
        }
        // Sealing a frame whose fingerprint did not hold when opened would hide the damage:
        // it is changed only once its fingerprint is turned off.
        if self.fp.damaged.is_some() {
            return Err(Error::Data);
        }
        if let FpChange::Rebuild = change {
            return self.stored_entries(new_offsets).map(Some);
        }
        let mut table = match &self.fp.table {
            Some(t) => t.clone(),
            None => self.stored_entries(&self.offsets)?,
        };
        change.apply(&mut table, deferred)?;
        if table.len() != new_offsets.len() {
            return Err(Error::Data);
        }
        Ok(Some(table))
    }

    /// Entries computed from the stored chunks `offsets` point to.
    fn stored_entries(&self, offsets: &[i64]) -> Result<Vec<Entry>> {
        offsets
            .iter()
            .map(|&o| {
                if o < 0 {
                    return Ok(Entry::default());
                }
                let bytes = self.stored_chunk(o, None)?;
                Ok(Entry::of(Some(&bytes)))
            })
            .collect()
    }

    /// The stored bytes of the chunk at `offset` (an sframe chunk file id): `len` bytes when
    /// given, else as many as its header says (a whole sframe chunk file). Bounded by the
    /// store, not by the frame header (a copy fills the data before it commits).
    fn stored_chunk(&self, offset: i64, len: Option<u32>) -> Result<Vec<u8>> {
        let (store, pos, file);
        match &self.backing {
            Backing::Sparse { dir, .. } => {
                file = self
                    .io
                    .open(&sframe_chunk_path(dir, offset), OpenMode::Read)?;
                store = &*file;
                pos = 0;
            }
            Backing::Contiguous {
                store: s,
                offset: base,
            } => {
                store = &**s;
                pos = base + self.header.header_len as u64 + offset as u64;
            }
        }
        let size = store.size()?;
        let len = match len {
            Some(l) => l as u64,
            None if self.is_sparse() => size,
            None => {
                let head = read_vec(store, pos, EXTENDED_HEADER_LENGTH)?;
                ChunkHeader::parse(&head)?.cbytes.max(0) as u64
            }
        };
        if pos.saturating_add(len) > size {
            return Err(Error::ReadBuffer);
        }
        read_vec(
            store,
            pos,
            usize::try_from(len).map_err(|_| Error::MemoryAlloc)?,
        )
    }

    /// With verified reads, checks the bytes read of chunk `n` against the table: a frame
    /// whose fingerprint did not hold when opened, or a chunk whose bytes differ from what the
    /// table records, is [`Error::Data`]. Frames without a fingerprint are not checked.
    pub(crate) fn check_read(&self, n: i64, bytes: &[u8]) -> Result<()> {
        if !self.fp.verify_reads {
            return Ok(());
        }
        if self.fp.damaged.is_some() {
            return Err(Error::Data);
        }
        let Some(table) = &self.fp.table else {
            return Ok(());
        };
        let i = usize::try_from(n).map_err(|_| Error::InvalidParam)?;
        if self.offsets.get(i).is_some_and(|&o| o < 0) {
            return Ok(());
        }
        match table.get(i) {
            Some(e) if e.holds(bytes) => Ok(()),
            _ => Err(Error::Data),
        }
    }

    /// Verifies the whole frame as it is in its store now: header, offsets index and trailer
    /// are read again and checked against the fingerprint slot, then every stored chunk
    /// against the table. A frame whose parts no longer open is reported damaged
    /// ([`Region::Layout`]).
    pub fn verify(&self) -> Result<Report> {
        let (store, base) = self.main_store();
        let exact = match &self.backing {
            Backing::Contiguous { store, offset: 0 } if store.as_slice().is_some() => {
                Some(store.size()?)
            }
            _ => None,
        };
        let mut report = Report {
            absent: None,
            damaged: Vec::new(),
            chunks_checked: 0,
            chunk_bytes: 0,
            unreferenced: 0,
        };
        let mut parts = match read_parts(store, base, exact, self.is_sparse()) {
            Ok(p) => p,
            Err(_) => {
                report.damaged.push(Region::Layout);
                return Ok(report);
            }
        };
        let table = match parts.fingerprint() {
            State::Absent(why) => {
                report.absent = Some(why);
                return Ok(report);
            }
            State::Damaged(r) => {
                report.damaged.push(r);
                return Ok(report);
            }
            State::Valid(t) => t,
        };
        let h = &parts.header;
        let hl = h.header_len as i64;
        let off_len = parts.off_bytes.len() as i64;
        let expected_len = if self.is_sparse() || parts.offsets.is_empty() {
            hl + off_len + parts.trailer_len as i64
        } else {
            hl + h.cbytes + off_len + parts.trailer_len as i64
        };
        if expected_len != h.frame_len {
            report.damaged.push(Region::Layout);
            return Ok(report);
        }
        let mut referenced = 0u64;
        for (i, (&o, e)) in parts.offsets.iter().zip(&table).enumerate() {
            if o < 0 {
                continue;
            }
            let ok = match &self.backing {
                Backing::Contiguous { .. } => {
                    o.checked_add(e.len as i64)
                        .is_some_and(|end| end <= h.cbytes)
                        && read_vec(store, base + (hl + o) as u64, e.len as usize)
                            .is_ok_and(|b| e.holds(&b))
                }
                Backing::Sparse { .. } => self.stored_chunk(o, None).is_ok_and(|b| e.holds(&b)),
            };
            report.chunks_checked += 1;
            report.chunk_bytes += e.len as u64;
            referenced += e.len as u64;
            if !ok {
                report.damaged.push(Region::Chunk(i as i64));
            }
        }
        if !self.is_sparse() {
            report.unreferenced = (h.cbytes.max(0) as u64).saturating_sub(referenced);
        }
        Ok(report)
    }
}
