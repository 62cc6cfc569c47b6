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
