//! Reusable per-thread buffers for decompressed and compressed chunks: allocating (and
//! zeroing) a chunk-sized buffer on every slice read costs more than the read itself.

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};
use std::thread::LocalKey;

/// Buffers larger than this are freed rather than kept for the next call.
const MAX_KEPT: usize = 64 << 20;

thread_local! {
    static CHUNK_DATA: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static COMPRESSED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A buffer borrowed from a per-thread pool and returned to it when dropped. Its contents are
/// whatever the last user left (callers size and overwrite what they read). A nested borrow
/// of the same pool gets a fresh empty buffer.
pub struct Scratch {
    buf: Vec<u8>,
    pool: &'static LocalKey<RefCell<Vec<u8>>>,
}

impl Scratch {
    fn take(pool: &'static LocalKey<RefCell<Vec<u8>>>) -> Scratch {
        let buf = pool
            .try_with(|p| {
                p.try_borrow_mut()
                    .map(|mut v| std::mem::take(&mut *v))
                    .unwrap_or_default()
            })
            .unwrap_or_default();
        Scratch { buf, pool }
    }

    /// A buffer for decompressed chunk data.
    pub fn chunk_data() -> Scratch {
        Self::take(&CHUNK_DATA)
    }

    /// A buffer for compressor output.
    pub fn compressed() -> Scratch {
        Self::take(&COMPRESSED)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if self.buf.capacity() > MAX_KEPT {
            return;
        }
        let buf = std::mem::take(&mut self.buf);
        let _ = self.pool.try_with(|p| {
            if let Ok(mut p) = p.try_borrow_mut() {
                if p.capacity() <= buf.capacity() {
                    *p = buf;
                }
            }
        });
    }
}

/// Compressor output buffers up to this size stay with the thread after a write call.
const COMPRESSED_KEPT_AFTER_CALL: usize = 1 << 20;

/// Frees this thread's compressor output buffer when dropped, if it is larger than it keeps:
/// held by a call that writes chunks, so that its chunks share one buffer but the buffer does
/// not stay resident after it (c-blosc2 frees its own; a 2 MiB one kept made a slice read after
/// from_cbuffer peak 1.05x c-blosc2's RSS, a 256 KiB one 1.06x for arrays of 8 MB).
pub struct CompressedReleased {
    keep: usize,
}

impl CompressedReleased {
    /// For a call that may be one of many small writes (a set_slice): a buffer of up to
    /// [`COMPRESSED_KEPT_AFTER_CALL`] stays for the next call, which would otherwise allocate
    /// and fault it in again.
    pub fn after_call() -> Self {
        CompressedReleased {
            keep: COMPRESSED_KEPT_AFTER_CALL,
        }
    }

    /// For a call that writes a whole array (from_cbuffer): nothing stays.
    pub fn all() -> Self {
        CompressedReleased { keep: 0 }
    }
}

impl Drop for CompressedReleased {
    fn drop(&mut self) {
        let _ = COMPRESSED.try_with(|p| {
            if let Ok(mut p) = p.try_borrow_mut() {
                if p.capacity() > self.keep {
                    *p = Vec::new();
                }
            }
        });
    }
}

impl Deref for Scratch {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.buf
    }
}

impl DerefMut for Scratch {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }
}
