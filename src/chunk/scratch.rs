//! Per-thread working memory for the block pipeline: filter buffers and codec contexts.
//! Kept in a thread-local so that context worker threads and callers reuse it across calls;
//! taken out while in use, so a re-entrant call (e.g. from a user codec) gets a fresh one.

use crate::codecs::CodecScratch;
use std::cell::Cell;

/// Working buffers for one block.
#[derive(Default)]
pub struct Scratch {
    /// A block's intermediate results: filters and codecs go back and forth between the two.
    pub bufs: BlockBufs,
    pub codec: CodecScratch,
    /// getitem's decoded partial block and DELTA reference block: kept across calls so that a
    /// small getitem neither allocates nor zeroes a whole block each time.
    pub getitem_block: Vec<u8>,
    pub getitem_dref: Vec<u8>,
    /// Streams of one repeated byte for b2nd slices' partial block decoding.
    pub repeated_runs: RepeatedRuns,
    /// Buffers for blocks compressed in parallel (at most one per thread): kept by the calling
    /// thread and reused, so that no call maps and faults in fresh pages.
    pub block_outs: Vec<Vec<u8>>,
}

/// The two block-sized buffers a block's pipeline alternates between (see [`Scratch::bufs`]).
pub type BlockBufs = [Vec<u8>; 2];

impl Scratch {
    /// Makes the first block buffer at least `n` bytes long; the second is sized by
    /// [`grow_to`] where a pipeline needs it (one filter and a codec never do). The contents
    /// are not kept: a fresh zeroed allocation costs nothing for pages never touched, which
    /// matters when a corrupt header claims a huge block and decoding fails early. But once
    /// glibc's mmap threshold has risen, a block-sized zeroed allocation comes from the heap
    /// and is zero-filled, every page of it resident: a buffer made and never used cost a
    /// block of RSS per thread (2-thread rows: up to 2.4 MB more than c-blosc2).
    pub fn ensure(&mut self, n: usize) {
        grow_to(&mut self.bufs[0], n);
    }
}

/// Makes `b` at least `n` bytes long (zeroed when it grows).
pub fn grow_to(b: &mut Vec<u8>, n: usize) {
    if b.len() < n {
        *b = vec![0u8; n];
    }
}

thread_local! {
    static SCRATCH: Cell<Option<Box<Scratch>>> = const { Cell::new(None) };
    static CHUNK_OUT: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// A chunk output buffer larger than this is freed after use rather than kept for the thread.
const CHUNK_OUT_MAX_KEPT: usize = 64 << 20;

/// Runs `f` with this thread's buffer for a compressed chunk, at least `n` bytes long (see
/// [`reuse`] for its contents). For callers that compress a whole chunk and store only the
/// bytes it compressed to: a fresh chunk-sized buffer per call is zeroed by the allocator (once
/// glibc serves it from the heap) for the few bytes the chunk takes. A nested call (from a
/// user codec, say) gets a buffer of its own.
pub fn with_chunk_out<R>(n: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    let mut buf = CHUNK_OUT.with(|c| c.take());
    let r = f(reuse(&mut buf, n));
    if buf.len() <= CHUNK_OUT_MAX_KEPT {
        CHUNK_OUT.with(|c| {
            let kept = c.take();
            c.set(if kept.len() > buf.len() { kept } else { buf });
        });
    }
    r
}

/// `buf` holding at least `n` bytes, grown only when it is shorter; the first `n` bytes hold
/// whatever a previous call left there, so callers overwrite all of them. Grown as a fresh zeroed
/// allocation rather than resized: a large one comes zeroed from the system and its pages count
/// in RSS only once written, and a compressed block writes only what it compresses to.
pub fn reuse(buf: &mut Vec<u8>, n: usize) -> &mut [u8] {
    if buf.len() < n {
        *buf = Vec::new();
        *buf = vec![0u8; n];
    }
    &mut buf[..n]
}

/// Runs `f` with this thread's scratch.
pub fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    let mut s = SCRATCH.with(|c| c.take()).unwrap_or_default();
    let r = f(&mut s);
    SCRATCH.with(|c| c.set(Some(s)));
    r
}

/// Two distinct elements of a slice, one shared and one mutable.
pub fn pair_mut<T>(v: &mut [T], read: usize, write: usize) -> (&T, &mut T) {
    assert_ne!(read, write);
    if read < write {
        let (a, b) = v.split_at_mut(write);
        (&a[read], &mut b[0])
    } else {
        let (a, b) = v.split_at_mut(read);
        (&b[0], &mut a[write])
    }
}

/// Streams that are one byte repeated (the constant high bytes of floats, zeros), kept
/// filled across blocks and calls so that such a stream is read from here rather than
/// written out for every block: a few runs per thread, each as long as the longest stream
/// asked for.
#[derive(Default)]
pub struct RepeatedRuns {
    runs: Vec<(u8, Vec<u8>)>,
}

impl RepeatedRuns {
    /// Most runs kept (a byte past them is filled into the block as usual).
    const MAX: usize = 4;

    /// Makes the run of `byte` at least `len` bytes long, if there is room for it.
    pub(super) fn prepare(&mut self, byte: u8, len: usize) {
        if let Some((_, run)) = self.runs.iter_mut().find(|(b, _)| *b == byte) {
            if run.len() < len {
                *run = vec![byte; len];
            }
        } else if self.runs.len() < Self::MAX {
            self.runs.push((byte, vec![byte; len]));
        }
    }

    /// `len` bytes of `byte`, when prepared.
    pub(super) fn get(&self, byte: u8, len: usize) -> Option<&[u8]> {
        let (_, run) = self.runs.iter().find(|(b, _)| *b == byte)?;
        run.get(..len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_runs_keep_a_few_bytes_and_grow() {
        let mut runs = RepeatedRuns::default();
        for byte in [7u8, 0, 7, 9, 200, 3, 4] {
            runs.prepare(byte, 16);
        }
        for byte in [7u8, 0, 9, 200] {
            assert_eq!(runs.get(byte, 16), Some(&[byte; 16][..]));
        }
        // Past the few kept, a byte is filled into the block instead.
        assert_eq!(runs.get(3, 1), None);
        assert_eq!(runs.get(4, 1), None);
        // Longer than prepared: not given until prepared that long.
        assert_eq!(runs.get(7, 17), None);
        runs.prepare(7, 40);
        assert_eq!(runs.get(7, 40), Some(&[7u8; 40][..]));
        assert_eq!(runs.get(7, 3), Some(&[7u8; 3][..]));
    }
}
