//! Large buffers kept for reuse, process-wide, within one budget: the buffers of in-memory
//! frames and of the chunks of in-memory chunk lists, once the super-chunk that held them
//! drops, replaces or deletes them.
//!
//! Why: buffers of hundreds of kilobytes to megabytes come from mmap or from the top of glibc's
//! heap, which glibc trims when they are freed, so every super-chunk rebuilt, chunk inserted or
//! frame re-made in a loop faulted its pages in anew (4,716 minor faults per insert sample of
//! the matrix's 32x1MiB list against c-blosc2's 40, whose allocation order happens to leave
//! its heap untrimmed). Kept here, the next frame or chunk of that size reuses resident pages.
//! The cost is at most [`BUDGET`] bytes held after the last super-chunk is gone.

use std::sync::Mutex;

/// The most bytes kept (the sum of the kept buffers' capacities): the oldest buffers go first.
const BUDGET: usize = 64 << 20;

/// The smallest buffer kept: smaller ones the allocator serves well from its free lists.
pub(crate) const MIN: usize = 64 << 10;

struct Kept {
    /// Emptied buffers, oldest first.
    buffers: Vec<Vec<u8>>,
    /// Sum of their capacities.
    bytes: usize,
}

static KEPT: Mutex<Kept> = Mutex::new(Kept {
    buffers: Vec::new(),
    bytes: 0,
});

/// Takes out the kept buffer that `pick` chooses (an index into the kept buffers, oldest
/// first), empty; None when `pick` chooses none.
pub(crate) fn take(pick: impl FnOnce(&[Vec<u8>]) -> Option<usize>) -> Option<Vec<u8>> {
    let mut kept = KEPT.lock().ok()?;
    let at = pick(&kept.buffers)?;
    let b = kept.buffers.swap_remove(at);
    kept.bytes -= b.capacity();
    Some(b)
}

/// Keeps `buffers` (emptied) for reuse: those of [`MIN`] to [`BUDGET`] bytes, the oldest kept
/// ones making room for them; the rest are freed.
pub(crate) fn keep(buffers: impl IntoIterator<Item = Vec<u8>>) {
    let mut freed = Vec::new();
    match KEPT.lock() {
        Ok(mut kept) => {
            for mut b in buffers {
                let cap = b.capacity();
                if (MIN..=BUDGET).contains(&cap) {
                    b.clear();
                    kept.bytes += cap;
                    kept.buffers.push(b);
                } else {
                    freed.push(b);
                }
            }
            let mut evict = 0;
            while kept.bytes > BUDGET {
                kept.bytes -= kept.buffers[evict].capacity();
                evict += 1;
            }
            freed.extend(kept.buffers.drain(..evict));
        }
        Err(_) => freed.extend(buffers),
    }
    // Freed after the lock is released.
    drop(freed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_buffers_come_back_empty_and_small_ones_are_not_kept() {
        // Sizes no other test keeps, so that parallel tests do not take them.
        let odd = MIN + 12_345;
        let mut b = Vec::with_capacity(odd);
        b.extend_from_slice(&[1, 2, 3]);
        keep([b, Vec::with_capacity(MIN - 1)]);
        let got = take(|bs| bs.iter().position(|b| b.capacity() == odd)).unwrap();
        assert!(got.is_empty());
        assert_eq!(got.capacity(), odd);
        assert!(take(|bs| bs.iter().position(|b| b.capacity() == MIN - 1)).is_none());
        assert!(take(|_| None).is_none());
    }

    #[test]
    fn the_budget_bounds_what_is_kept() {
        let size = (BUDGET / 4) + 1;
        keep((0..5).map(|_| Vec::<u8>::with_capacity(size)));
        let kept = KEPT.lock().unwrap();
        assert!(kept.bytes <= BUDGET);
        assert_eq!(
            kept.bytes,
            kept.buffers.iter().map(Vec::capacity).sum::<usize>()
        );
    }
}
