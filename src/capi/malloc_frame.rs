//! A byte store in malloc'd memory, so that `blosc2_schunk_to_buffer` can build the copy of a
//! super-chunk right where C will find it and free it (`free`), with no copy of the frame
//! afterwards: c-blosc2 also hands out its copy's own frame buffer.

use std::ptr;
use std::sync::{Arc, Mutex};

use crate::frame::io::ByteStore;
use crate::{Error, Result};

/// The buffer: `len` bytes of frame in an allocation of `cap` bytes, of which the first `init`
/// are initialised; bytes between `len` and `init` are always zero, as a growing `Vec` would
/// show them.
struct MallocBuf {
    ptr: *mut u8,
    len: usize,
    cap: usize,
    init: usize,
}

// SAFETY: the allocation belongs to this struct alone; it is reached only through the Mutex of
// a `MallocFrame`.
unsafe impl Send for MallocBuf {}

impl Drop for MallocBuf {
    fn drop(&mut self) {
        // SAFETY: NULL or our own allocation, not handed out (`take` nulls it).
        unsafe { libc::free(self.ptr.cast()) };
    }
}

/// Below this, a frame buffer is left to the usual 4 KiB pages.
const HUGE_PAGE_MIN: usize = 8 << 20;
const HUGE_PAGE: usize = 2 << 20;

/// Asks for transparent huge pages on the 2 MiB-aligned inside of a large buffer (where the
/// system leaves that to the program: THP "madvise"). A frame of tens of megabytes is written
/// once from start to end, and faulting it in 4 KiB at a time cost a quarter of the time of
/// `blosc2_schunk_to_buffer` on a file frame (measured with perf: page-fault handling against
/// the copy itself). Only advice: where it is refused, nothing changes.
fn advise_huge_pages(ptr: *mut u8, len: usize) {
    if len < HUGE_PAGE_MIN || ptr.is_null() {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
    let end = (ptr as usize + len) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: the range lies inside our own live allocation; MADV_HUGEPAGE changes no
        // contents and its failure is harmless.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

impl MallocBuf {
    /// Makes room for `cap` bytes. The first allocation is calloc'd (fresh zeroed pages: nothing
    /// to clear, and no memory used until written); later ones realloc, leaving the new part
    /// to be cleared when the frame reaches it.
    fn grow(&mut self, cap: usize) -> Result<()> {
        if cap <= self.cap {
            return Ok(());
        }
        if self.ptr.is_null() {
            // SAFETY: a plain allocation; NULL is checked.
            let p = unsafe { libc::calloc(cap, 1) }.cast::<u8>();
            if p.is_null() {
                return Err(Error::MemoryAlloc);
            }
            (self.ptr, self.cap, self.init) = (p, cap, cap);
        } else {
            // SAFETY: our own allocation; on failure realloc leaves it as it was.
            let p = unsafe { libc::realloc(self.ptr.cast(), cap) }.cast::<u8>();
            if p.is_null() {
                return Err(Error::MemoryAlloc);
            }
            (self.ptr, self.cap) = (p, cap);
        }
        advise_huge_pages(self.ptr, self.cap);
        Ok(())
    }

    /// Makes the frame at least `end` bytes long, the new bytes zero.
    fn extend_to(&mut self, end: usize) -> Result<()> {
        if end <= self.len {
            return Ok(());
        }
        if end > self.cap {
            // A quarter more than asked: appends one chunk at a time do not realloc each time.
            self.grow(end.max(self.cap.saturating_add(self.cap / 4)))?;
        }
        if end > self.init {
            // SAFETY: [init, end) lies inside the allocation (end <= cap).
            unsafe { ptr::write_bytes(self.ptr.add(self.init), 0, end - self.init) };
            self.init = end;
        }
        self.len = end;
        Ok(())
    }

    /// The frame bytes in `[pos, pos + len)`, which must lie within the frame.
    fn slice_mut(&mut self, pos: usize, len: usize) -> &mut [u8] {
        assert!(pos.checked_add(len).is_some_and(|end| end <= self.len));
        if len == 0 {
            return &mut [];
        }
        // SAFETY: inside the frame, hence allocated and initialised; `&mut self` makes it the
        // only reference.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(pos), len) }
    }

    fn bytes(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: the frame is allocated and initialised; shared as long as `&self` lives.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// The store a copy's frame is built in (see `Schunk::copy_to_store`); the C layer keeps a
/// clone to take the buffer once the copy is dropped.
#[derive(Clone)]
pub(crate) struct MallocFrame(Arc<Mutex<MallocBuf>>);

impl MallocFrame {
    pub(crate) fn new() -> MallocFrame {
        MallocFrame(Arc::new(Mutex::new(MallocBuf {
            ptr: ptr::null_mut(),
            len: 0,
            cap: 0,
            init: 0,
        })))
    }

    fn buf(&self) -> Result<std::sync::MutexGuard<'_, MallocBuf>> {
        self.0.lock().map_err(|_| Error::Failure)
    }

    /// Hands the buffer over (malloc'd, at least one byte: C frees it) with the frame's length.
    pub(crate) fn take(&self) -> Result<(*mut u8, usize)> {
        let mut b = self.buf()?;
        if b.ptr.is_null() {
            b.grow(1)?;
        }
        let taken = (b.ptr, b.len);
        (b.ptr, b.len, b.cap, b.init) = (ptr::null_mut(), 0, 0, 0);
        Ok(taken)
    }
}

fn to_usize(pos: u64) -> Result<usize> {
    usize::try_from(pos).map_err(|_| Error::MemoryAlloc)
}

impl ByteStore for MallocFrame {
    fn size(&self) -> Result<u64> {
        Ok(self.buf()?.len as u64)
    }

    fn read_at(&self, pos: u64, out: &mut [u8]) -> Result<usize> {
        let b = self.buf()?;
        let bytes = b.bytes();
        let Some(rest) = usize::try_from(pos).ok().and_then(|p| bytes.get(p..)) else {
            return Ok(0);
        };
        let n = out.len().min(rest.len());
        out[..n].copy_from_slice(&rest[..n]);
        Ok(n)
    }

    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        self.write_with(pos, data.len(), &mut |buf| {
            buf.copy_from_slice(data);
            Ok(())
        })
    }

    fn write_with(
        &mut self,
        pos: u64,
        len: usize,
        fill: &mut dyn FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<()> {
        let pos = to_usize(pos)?;
        let end = pos.checked_add(len).ok_or(Error::MemoryAlloc)?;
        let mut b = self.buf()?;
        b.extend_to(end)?;
        fill(b.slice_mut(pos, len))
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        let len = to_usize(len)?;
        let mut b = self.buf()?;
        if len < b.len {
            // Keeps the bytes past the end zero.
            let old = b.len;
            b.slice_mut(len, old - len).fill(0);
            b.len = len;
            return Ok(());
        }
        b.extend_to(len)
    }

    fn reserve(&mut self, len: u64) {
        if let (Ok(len), Ok(mut b)) = (to_usize(len), self.buf()) {
            // Only a hint: without room now, the frame grows as it is written.
            let _ = b.grow(len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_zero_filled_and_hands_over_its_buffer() {
        let mut m = MallocFrame::new();
        m.write_at(4, b"abc").unwrap();
        assert_eq!(m.size().unwrap(), 7);
        let mut out = [9u8; 8];
        assert_eq!(m.read_at(0, &mut out).unwrap(), 7);
        assert_eq!(&out[..7], b"\0\0\0\0abc");
        m.truncate(5).unwrap();
        m.reserve(1 << 20);
        m.write_with(6, 2, &mut |b| {
            b.copy_from_slice(b"xy");
            Ok(())
        })
        .unwrap();
        let mut out = [9u8; 8];
        assert_eq!(m.read_at(0, &mut out).unwrap(), 8);
        // The byte the truncation cut reads back as zero, as in a Vec.
        assert_eq!(&out, b"\0\0\0\0a\0xy");
        assert_eq!(m.read_at(9, &mut out).unwrap(), 0);
        let (p, len) = m.take().unwrap();
        assert_eq!(len, 8);
        // SAFETY: the buffer just taken: 8 initialised bytes, malloc'd.
        unsafe {
            assert_eq!(std::slice::from_raw_parts(p, len), b"\0\0\0\0a\0xy");
            libc::free(p.cast());
        }
        assert_eq!(m.size().unwrap(), 0);
    }

    #[test]
    fn a_large_frame_on_huge_pages_keeps_every_byte() {
        // Past HUGE_PAGE_MIN, first allocated and then grown (realloc moves it), written in
        // pieces that straddle 2 MiB boundaries.
        let mut m = MallocFrame::new();
        let piece: Vec<u8> = (0..3_000_001u32).map(|i| (i % 251) as u8).collect();
        let mut pos = 0u64;
        for _ in 0..12 {
            m.write_at(pos, &piece).unwrap();
            pos += piece.len() as u64 + 1000;
        }
        assert_eq!(m.size().unwrap(), pos - 1000);
        let mut out = vec![7u8; piece.len() + 1000];
        assert_eq!(
            m.read_at(5 * (piece.len() as u64 + 1000), &mut out)
                .unwrap(),
            out.len()
        );
        assert_eq!(&out[..piece.len()], &piece[..]);
        assert!(out[piece.len()..].iter().all(|&b| b == 0));
        let (p, len) = m.take().unwrap();
        assert_eq!(len as u64, pos - 1000);
        // SAFETY: the buffer just taken: `len` initialised bytes, malloc'd.
        unsafe {
            let all = std::slice::from_raw_parts(p, len);
            assert_eq!(&all[len - piece.len()..], &piece[..]);
            libc::free(p.cast());
        }
    }
}
