//! Selections of an [`Array`]: orthogonal selections (the cross product of one index list
//! per dimension) and sparse items, read and written chunk by chunk.

use super::array::{unravel, Array};
use super::scratch::Scratch;
use super::shape::{for_each_index, strides};
use super::store::ChunkStore;
use crate::{Error, Result};

impl<S: ChunkStore> Array<S> {
    /// Reads the items at the cross product of `selection` (one list of indices per
    /// dimension) into `buffer`, a C-order buffer of `buffershape`: item
    /// `(selection[0][i0], selection[1][i1], ...)` goes to position `(i0, i1, ...)`.
    pub fn get_orthogonal_selection(
        &self,
        selection: &[&[i64]],
        buffer: &mut [u8],
        buffershape: &[i64],
    ) -> Result<()> {
        let _held = self.store.hold(false)?;
        let plan = self.plan_selection(selection, buffer.len(), buffershape)?;
        let ts = self.geom.typesize;
        let mut data = Scratch::chunk_data();
        for chunk in &plan.chunks {
            let mut mask = vec![true; self.geom.nblocks()];
            for run in &chunk.runs {
                mask[run.nblock] = false;
            }
            self.read_chunk(chunk.nchunk, Some(&mask), &mut data)?;
            for run in &chunk.runs {
                let (from, to, len) = (run.chunk_pos * ts, run.buffer_pos * ts, run.len * ts);
                buffer[to..to + len].copy_from_slice(&data[from..from + len]);
            }
        }
        Ok(())
    }

    /// Writes `buffer` (see `get_orthogonal_selection`) to the selected items. With repeated
    /// indices, the last occurrence wins.
    pub fn set_orthogonal_selection(
        &mut self,
        selection: &[&[i64]],
        buffer: &[u8],
        buffershape: &[i64],
    ) -> Result<()> {
        let plan = self.plan_selection(selection, buffer.len(), buffershape)?;
        let ts = self.geom.typesize;
        let mut data = Scratch::chunk_data();
        for chunk in &plan.chunks {
            self.read_chunk(chunk.nchunk, None, &mut data)?;
            for run in &chunk.runs {
                let (to, from, len) = (run.chunk_pos * ts, run.buffer_pos * ts, run.len * ts);
                data[to..to + len].copy_from_slice(&buffer[from..from + len]);
            }
            self.store.update_chunk_data(chunk.nchunk, &data)?;
        }
        Ok(())
    }

    /// Gathers the items at flat C-order positions `coords` (each in `[0, nitems)`, repeats and
    /// any order allowed) into `buffer`, in the order of `coords`.
    pub fn get_sparse_cbuffer(&self, coords: &[i64], buffer: &mut [u8]) -> Result<()> {
        let g = &self.geom;
        let ts = g.typesize;
        if (buffer.len() as u64) < coords.len() as u64 * ts as u64 {
            return Err(Error::InvalidParam);
        }
        if coords.iter().any(|c| *c < 0 || *c >= g.nitems) {
            return Err(Error::InvalidIndex);
        }
        let ndim = g.ndim();
        let grid_strides = strides(&g.chunks_per_dim());
        let block_strides = strides(&g.blocks_per_dim());
        let item_strides = strides(&g.blockshape);
        // (nchunk, nblock, position in chunk, position in buffer), sorted by chunk.
        let mut items: Vec<(i64, usize, usize, usize)> = coords
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let idx = unravel(*c, &g.shape);
                let (mut nchunk, mut nblock, mut item) = (0i64, 0i64, 0i64);
                for d in 0..ndim {
                    let (cs, bs) = (g.chunkshape[d], g.blockshape[d]);
                    nchunk += idx[d] / cs * grid_strides[d];
                    nblock += idx[d] % cs / bs * block_strides[d];
                    item += idx[d] % cs % bs * item_strides[d];
                }
                let pos = (nblock * g.blocknitems + item) as usize;
                (nchunk, nblock as usize, pos, i)
            })
            .collect();
        items.sort_unstable();
        let mut data = Scratch::chunk_data();
        for group in items.chunk_by(|a, b| a.0 == b.0) {
            let mut mask = vec![true; g.nblocks()];
            for it in group {
                mask[it.1] = false;
            }
            self.read_chunk(group[0].0, Some(&mask), &mut data)?;
            for &(_, _, pos, i) in group {
                buffer[i * ts..(i + 1) * ts].copy_from_slice(&data[pos * ts..(pos + 1) * ts]);
            }
        }
        Ok(())
    }

    /// Groups the selected items by chunk, each with its place in the chunk and the buffer.
    fn plan_selection(
        &self,
        selection: &[&[i64]],
        buffer_len: usize,
        buffershape: &[i64],
    ) -> Result<SelectionPlan> {
        let g = &self.geom;
        let ndim = g.ndim();
        if selection.len() != ndim || buffershape.len() != ndim {
            return Err(Error::InvalidParam);
        }
        let mut sel_bytes = g.typesize as i64;
        let mut buf_items = 1i64;
        for d in 0..ndim {
            // c-blosc2 accepts an index equal to the extent (and reads padding); not here.
            if selection[d].iter().any(|i| *i < 0 || *i >= g.shape[d]) {
                return Err(Error::InvalidIndex);
            }
            if buffershape[d] < selection[d].len() as i64 {
                return Err(Error::InvalidParam);
            }
            sel_bytes = sel_bytes
                .checked_mul(selection[d].len() as i64)
                .ok_or(Error::InvalidParam)?;
            buf_items = buf_items
                .checked_mul(buffershape[d])
                .ok_or(Error::InvalidParam)?;
        }
        let ts = g.typesize as i64;
        if (buffer_len as i64) < sel_bytes
            || buf_items
                .checked_mul(ts)
                .is_none_or(|n| n > buffer_len as i64)
        {
            return Err(Error::InvalidParam);
        }
        // An array opened with chunks larger than a Blosc chunk cannot be read or written.
        g.chunk_buffer_len(Error::InvalidParam)?;
        if sel_bytes == 0 {
            return Ok(SelectionPlan { chunks: Vec::new() });
        }
        if ndim == 0 {
            return Ok(SelectionPlan {
                chunks: vec![PlannedChunk {
                    nchunk: 0,
                    runs: vec![PlannedRun {
                        nblock: 0,
                        chunk_pos: 0,
                        buffer_pos: 0,
                        len: 1,
                    }],
                }],
            });
        }
        // Per dimension: (value, position in the selection), sorted by value then position so
        // that, when writing, the last occurrence of a repeated index is applied last.
        let sorted: Vec<Vec<(i64, i64)>> = selection
            .iter()
            .map(|s| {
                let mut v: Vec<(i64, i64)> =
                    s.iter().enumerate().map(|(i, x)| (*x, i as i64)).collect();
                v.sort_unstable();
                v
            })
            .collect();
        let bstrides = strides(buffershape);
        let grid_strides = strides(&g.chunks_per_dim());
        let block_strides = strides(&g.blocks_per_dim());
        let item_strides = strides(&g.blockshape);
        // Per dimension, the ranges of `sorted` falling in each chunk.
        let groups: Vec<Vec<(i64, usize, usize)>> = sorted
            .iter()
            .enumerate()
            .map(|(d, v)| {
                let mut out = Vec::new();
                let mut i = 0;
                while i < v.len() {
                    let c = v[i].0 / g.chunkshape[d];
                    let mut j = i;
                    while j < v.len() && v[j].0 / g.chunkshape[d] == c {
                        j += 1;
                    }
                    out.push((c, i, j));
                    i = j;
                }
                out
            })
            .collect();
        let counts: Vec<i64> = groups.iter().map(|v| v.len() as i64).collect();
        let last = ndim - 1;
        // Where an index of dimension `d` lies in its chunk: the block's and the item's offsets
        // along `d` (the item's in C order within the block; 1 a step along the last).
        let place = |d: usize, value: i64| {
            let in_chunk = value % g.chunkshape[d];
            (
                in_chunk / g.blockshape[d] * block_strides[d],
                in_chunk % g.blockshape[d] * item_strides[d],
            )
        };
        // Along the last dimension, the entries of each chunk's group split into segments of
        // consecutive items in one block at consecutive buffer places; a segment is the same
        // for every row the other dimensions select, so a row is one run a segment (a
        // selection of whole rows is a few runs, not an item each).
        let segments: Vec<Vec<Segment>> = groups[last]
            .iter()
            .map(|&(_, a, b)| {
                let mut out: Vec<Segment> = Vec::new();
                for &(value, pos) in &sorted[last][a..b] {
                    let (block, item) = place(last, value);
                    match out.last_mut() {
                        Some(seg)
                            if seg.block == block
                                && seg.item + seg.len == item
                                && seg.buffer + seg.len == pos =>
                        {
                            seg.len += 1
                        }
                        _ => out.push(Segment {
                            block,
                            item,
                            buffer: pos,
                            len: 1,
                        }),
                    }
                }
                out
            })
            .collect();
        let mut chunks = Vec::new();
        for_each_index(&counts, |gi| {
            let mut nchunk = 0;
            let mut ranges = Vec::with_capacity(last);
            for d in 0..ndim {
                let (c, a, b) = groups[d][gi[d] as usize];
                nchunk += c * grid_strides[d];
                if d < last {
                    ranges.push(b as i64 - a as i64);
                }
            }
            let mut runs: Vec<PlannedRun> = Vec::new();
            for_each_index(&ranges, |ri| {
                let (mut nblock, mut chunk_item, mut buf) = (0i64, 0i64, 0i64);
                for (d, r) in ri.iter().enumerate() {
                    let (value, pos) = sorted[d][groups[d][gi[d] as usize].1 + *r as usize];
                    let (block, item) = place(d, value);
                    nblock += block;
                    chunk_item += item;
                    buf += pos * bstrides[d];
                }
                for seg in &segments[gi[last] as usize] {
                    let block = nblock + seg.block;
                    let run = PlannedRun {
                        nblock: block as usize,
                        chunk_pos: (block * g.blocknitems + chunk_item + seg.item) as usize,
                        buffer_pos: (buf + seg.buffer) as usize,
                        len: seg.len as usize,
                    };
                    // Rows that follow each other in the block and in the buffer join.
                    match runs.last_mut() {
                        Some(prev)
                            if prev.nblock == run.nblock
                                && prev.chunk_pos + prev.len == run.chunk_pos
                                && prev.buffer_pos + prev.len == run.buffer_pos =>
                        {
                            prev.len += run.len
                        }
                        _ => runs.push(run),
                    }
                }
                Ok(())
            })?;
            chunks.push(PlannedChunk { nchunk, runs });
            Ok(())
        })?;
        Ok(SelectionPlan { chunks })
    }
}

/// Consecutive entries of the last dimension's selection within one chunk and one block:
/// the block's and the first item's offsets in the chunk along that dimension, and the first
/// entry's place along it in the buffer.
struct Segment {
    block: i64,
    item: i64,
    buffer: i64,
    len: i64,
}

/// `len` items at consecutive places in one block of a chunk and in the buffer.
struct PlannedRun {
    nblock: usize,
    chunk_pos: usize,
    buffer_pos: usize,
    len: usize,
}

struct PlannedChunk {
    nchunk: i64,
    runs: Vec<PlannedRun>,
}

struct SelectionPlan {
    chunks: Vec<PlannedChunk>,
}
