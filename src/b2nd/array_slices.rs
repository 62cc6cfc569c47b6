//! Slices of an [`Array`]: reading a region into a C-order buffer (whole chunks, streamed
//! blocks or parts of blocks, on the decompressor's threads), writing one, copying a region
//! between arrays.

use super::array::{Array, Params};
use super::scratch::Scratch;
use super::shape::for_each_index;
use super::slice::{
    check_slice, copy_buffer, count_blocks, for_each_block, for_each_chunk, Part, PartCopier,
};
use super::store::ChunkStore;
use crate::chunk::decompress::BlockSpan;
use crate::schunk::ONE_PASS_BYTES;
use crate::{Error, Result};
use std::sync::Mutex;

/// Fewest blocks of a chunk a slice needs for their decompression to be shared among the
/// decompressor's threads (below that, handing them out costs more than it saves: a thin
/// column needs one block per chunk).
const PARALLEL_MIN_BLOCKS: usize = 4;

/// Most locks a slice read by several threads splits its buffer into (row groups along the
/// first dimension).
const ROW_GROUPS: usize = 64;

impl<S: ChunkStore> Array<S> {
    /// Copies the region `[start, stop)` into `buffer`, a C-order buffer of `buffershape`
    /// whose first item receives item `start` (the rest of the buffer is zeroed).
    pub fn get_slice_cbuffer(
        &self,
        start: &[i64],
        stop: &[i64],
        buffer: &mut [u8],
        buffershape: &[i64],
    ) -> Result<()> {
        // As c-blosc2: the whole read under the shared lock, so another handle's change
        // (held exclusively) is seen entirely or not at all.
        let _held = self.store.hold(false)?;
        self.check_buffer(buffer.len(), buffershape, start, stop)?;
        let ts = self.geom.typesize;
        // Items outside the slice are zeroed; when the slice fills the buffer, every byte is
        // written below.
        if (0..self.ndim()).any(|d| buffershape[d] != stop[d] - start[d]) {
            buffer.fill(0);
        }
        if self.ndim() == 0 {
            let mut data = Scratch::chunk_data();
            self.read_chunk(0, None, &mut data)?;
            buffer[..ts].copy_from_slice(&data[..ts]);
            return Ok(());
        }
        if let Some(nchunk) = self.whole_chunk_in_c_order(start, stop, buffershape) {
            let n = self.geom.chunk_nbytes();
            if self
                .store
                .decompress_chunk(nchunk, &mut buffer[..n], None)?
                != n
            {
                return Err(Error::Data);
            }
            return Ok(());
        }
        let copier = PartCopier::new(ts, &self.geom.blockshape, buffershape, start)?;
        let mut chunks: Vec<(i64, Vec<i64>)> = Vec::new();
        for_each_chunk(&self.geom, start, stop, |nchunk, coords| {
            chunks.push((nchunk, coords.to_vec()));
            Ok(())
        })?;
        let nthreads = self
            .store
            .with_decoding_params(|d| d.nthreads.max(1) as usize);
        if nthreads > 1
            && chunks.len() >= nthreads
            && self.chunks_share_evenly(&chunks, start, stop, nthreads)
        {
            return self.get_chunks_in_parallel(&chunks, start, stop, &copier, buffer);
        }
        let mut parts = Vec::new();
        let mut spans = Vec::new();
        let mut data = Scratch::chunk_data();
        for (nchunk, coords) in &chunks {
            self.plan_chunk(coords, start, stop, &copier, &mut parts, &mut spans);
            // With threads and several blocks to decode, the chunk path below shares them
            // out; otherwise each block's part is copied out as it is decoded.
            if nthreads > 1 && parts.len() >= PARALLEL_MIN_BLOCKS
                || !self.stream_chunk(*nchunk, &parts, &spans, &copier, buffer)?
            {
                self.copy_from_whole_chunk(*nchunk, &parts, &copier, &mut data, buffer)?;
            }
        }
        Ok(())
    }

    /// Whether sharing the slice's chunks out among `nthreads` threads (one chunk a thread at a
    /// time, [`Array::get_chunks_in_parallel`]) keeps them as busy as sharing out each chunk's
    /// blocks in turn, which is what c-blosc2 does: counted in blocks to decode, the busiest
    /// thread's share of the chunks (at least the largest chunk's blocks) against the sum over
    /// the chunks of a thread's share of their blocks (all of a chunk's blocks for one below
    /// [`PARALLEL_MIN_BLOCKS`], which one thread decodes). A box over two chunks of python-
    /// blosc2's default layout, 24 blocks in one and 15 in the other, takes 24 blocks' time
    /// shared by chunk and 20 by block: 0.85 of the wheel's speed before this choice. Fewer
    /// than [`PARALLEL_MIN_BLOCKS`] blocks a thread in all are not shared out.
    fn chunks_share_evenly(
        &self,
        chunks: &[(i64, Vec<i64>)],
        start: &[i64],
        stop: &[i64],
        nthreads: usize,
    ) -> bool {
        let (mut total, mut largest, mut by_blocks) = (0, 0, 0);
        for (_, coords) in chunks {
            let n = count_blocks(&self.geom, coords, start, stop);
            total += n;
            largest = largest.max(n);
            by_blocks += if n >= PARALLEL_MIN_BLOCKS {
                n.div_ceil(nthreads)
            } else {
                n
            };
        }
        // A few blocks in all are decoded on the calling thread, as c-blosc2 decodes a few
        // blocks of a chunk one at a time: starting the threads of an array just opened cost
        // more than the read (python-blosc2's `open(path)[3, 10:20]`, 2 blocks in each of 2
        // chunks: 2 thread starts and ends, twice the time of the reference).
        total >= nthreads * PARALLEL_MIN_BLOCKS
            && total.div_ceil(nthreads).max(largest) <= by_blocks
    }

    /// The parts of the slice `[start, stop)` in the blocks of the chunk at `coords`, and
    /// the bytes of its block that each spans.
    fn plan_chunk(
        &self,
        coords: &[i64],
        start: &[i64],
        stop: &[i64],
        copier: &PartCopier,
        parts: &mut Vec<Part>,
        spans: &mut Vec<BlockSpan>,
    ) {
        parts.clear();
        spans.clear();
        // for_each_block calls nothing that fails.
        let _ = for_each_block(&self.geom, coords, start, stop, |p| {
            let part = copier.part(&p);
            let (from, to) = copier.span(&part);
            spans.push(BlockSpan {
                nblock: p.nblock,
                from,
                to,
                used: copier.part_bytes(&part),
            });
            parts.push(part);
            Ok(())
        });
    }

    /// Decodes the parts of the blocks of chunk `nchunk` one at a time and copies each out;
    /// `Ok(false)`, nothing copied, for a chunk that must be read whole.
    fn stream_chunk(
        &self,
        nchunk: i64,
        parts: &[Part],
        spans: &[BlockSpan],
        copier: &PartCopier,
        buffer: &mut [u8],
    ) -> Result<bool> {
        self.store
            .for_each_block_part(nchunk, spans, &mut |k, block| {
                let part = parts.get(k).ok_or(Error::Data)?;
                copier.copy_decoded(part, block, buffer)
            })
    }

    /// Decompresses the blocks of chunk `nchunk` that `parts` lie in into `data` (with the
    /// store's threads) and copies the parts out.
    fn copy_from_whole_chunk(
        &self,
        nchunk: i64,
        parts: &[Part],
        copier: &PartCopier,
        data: &mut Vec<u8>,
        buffer: &mut [u8],
    ) -> Result<()> {
        let bn = self.geom.block_nbytes();
        let mut mask = vec![true; self.geom.nblocks()];
        for part in parts {
            *mask.get_mut(part.nblock).ok_or(Error::Data)? = false;
        }
        let mask = mask.iter().any(|m| *m).then_some(&mask[..]);
        self.read_chunk(nchunk, mask, data)?;
        for part in parts {
            let block = data
                .get(part.nblock * bn..(part.nblock + 1) * bn)
                .ok_or(Error::Data)?;
            copier.copy(part, block, buffer)?;
        }
        Ok(())
    }

    /// `get_slice_cbuffer` of a slice over several chunks with a multi-threaded store: the
    /// chunks are shared out among the threads, each decoding its chunk's blocks one at a
    /// time and copying its parts into the buffer under the locks of the row groups they
    /// write (at most `ROW_GROUPS` groups along the buffer's first dimension). Chunks that
    /// must be read whole are read afterwards, on the calling thread, where the store's
    /// threads can share their blocks.
    fn get_chunks_in_parallel(
        &self,
        chunks: &[(i64, Vec<i64>)],
        start: &[i64],
        stop: &[i64],
        copier: &PartCopier,
        buffer: &mut [u8],
    ) -> Result<()> {
        let row_bytes = copier.row_bytes();
        let nrows = buffer.len().checked_div(row_bytes).unwrap_or(0).max(1);
        let rows_per_group = nrows.div_ceil(ROW_GROUPS);
        let groups: Vec<Mutex<&mut [u8]>> = buffer
            .chunks_mut((rows_per_group * row_bytes).max(1))
            .map(Mutex::new)
            .collect();
        let whole: Mutex<Vec<usize>> = Mutex::new(Vec::new());
        self.store.for_each_item(chunks.len(), &|i| {
            let (nchunk, coords) = &chunks[i];
            let (mut parts, mut spans) = (Vec::new(), Vec::new());
            self.plan_chunk(coords, start, stop, copier, &mut parts, &mut spans);
            let streamed = self
                .store
                .for_each_block_part(*nchunk, &spans, &mut |k, block| {
                    let part = parts.get(k).ok_or(Error::Data)?;
                    copier.copy_to_row_groups(part, &groups, rows_per_group, |sub, rows| {
                        copier.copy_decoded(sub, block, rows)
                    })
                })?;
            if !streamed {
                whole.lock().unwrap_or_else(|e| e.into_inner()).push(i);
            }
            Ok(())
        })?;
        let mut whole = whole.into_inner().unwrap_or_else(|e| e.into_inner());
        if whole.is_empty() {
            return Ok(());
        }
        whole.sort_unstable();
        drop(groups);
        let (mut parts, mut spans) = (Vec::new(), Vec::new());
        let mut data = Scratch::chunk_data();
        for i in whole {
            let (nchunk, coords) = &chunks[i];
            self.plan_chunk(coords, start, stop, copier, &mut parts, &mut spans);
            self.copy_from_whole_chunk(*nchunk, &parts, copier, &mut data, buffer)?;
        }
        Ok(())
    }

    /// Writes `buffer` (C order, shape `buffershape`, its first item going to `start`) into
    /// the region `[start, stop)`. In a frame file, chunks of it stored one after the other
    /// are committed together, all or none (up to [`ONE_PASS_BYTES`] of them).
    pub fn set_slice_cbuffer(
        &mut self,
        buffer: &[u8],
        buffershape: &[i64],
        start: &[i64],
        stop: &[i64],
    ) -> Result<()> {
        // As c-blosc2: one change for other handles however many chunks it rewrites.
        let _held = self.store.hold(true)?;
        let _released = super::scratch::CompressedReleased::after_call();
        self.check_buffer(buffer.len(), buffershape, start, stop)?;
        let ts = self.geom.typesize;
        if self.ndim() == 0 {
            self.store.update_chunk_data(0, &buffer[..ts])?;
            return Ok(());
        }
        if let Some(nchunk) = self.whole_chunk_in_c_order(start, stop, buffershape) {
            self.store
                .update_chunk_data(nchunk, &buffer[..self.geom.chunk_nbytes()])?;
            return Ok(());
        }
        let geom = self.geom.clone();
        let mut data = Scratch::chunk_data();
        // Chunks that follow each other are committed together where the store gains by it
        // (a frame file: the chunks after them move once, not once per chunk), up to
        // ONE_PASS_BYTES of them.
        let one_pass = self.store.updates_in_one_pass();
        let mut pending: (i64, Vec<Vec<u8>>, usize) = (0, Vec::new(), 0);
        for_each_chunk(&geom, start, stop, |nchunk, coords| {
            let (cstart, cstop) = geom.chunk_region(coords);
            let whole = (0..geom.ndim()).all(|d| start[d] <= cstart[d] && cstop[d] <= stop[d]);
            if whole {
                // Every item of the chunk is written below; only padding must be zeroed.
                let padded =
                    (0..geom.ndim()).any(|d| cstop[d] - cstart[d] != geom.extchunkshape[d]);
                if padded {
                    data.clear();
                }
                data.resize(geom.chunk_nbytes(), 0);
            } else {
                self.read_chunk(nchunk, None, &mut data)?;
            }
            let bn = geom.block_nbytes();
            for_each_block(&geom, coords, start, stop, |p| {
                let block = &mut data[p.nblock * bn..(p.nblock + 1) * bn];
                let src_start: Vec<i64> =
                    (0..p.start.len()).map(|d| p.start[d] - start[d]).collect();
                let src_stop: Vec<i64> = (0..p.start.len()).map(|d| p.stop[d] - start[d]).collect();
                let dst_start: Vec<i64> = (0..p.start.len())
                    .map(|d| p.start[d] - p.block_origin[d])
                    .collect();
                copy_buffer(
                    ts,
                    buffer,
                    buffershape,
                    &src_start,
                    &src_stop,
                    block,
                    &geom.blockshape,
                    &dst_start,
                )
            })?;
            if one_pass {
                let (first, chunks, bytes) = &mut pending;
                let next = *first + chunks.len() as i64 == nchunk;
                if !chunks.is_empty() && (!next || *bytes >= ONE_PASS_BYTES) {
                    self.store.update_chunks(*first, chunks)?;
                }
                if !next || *bytes >= ONE_PASS_BYTES {
                    chunks.clear();
                    (*first, *bytes) = (nchunk, 0);
                }
                let chunk = self.store.compress_chunk(&data)?;
                *bytes += chunk.len();
                chunks.push(chunk);
                return Ok(());
            }
            // Stored at once: keeping every compressed chunk until the end held a second copy
            // of the array's compressed bytes (from_cbuffer peaked at twice c-blosc2's).
            self.store.update_chunk_data(nchunk, &data)?;
            Ok(())
        })?;
        self.store.update_chunks(pending.0, &pending.1)?;
        Ok(())
    }

    /// A new array holding the region `[start, stop)`; `params` gives its chunk and block
    /// shapes and storage (its shape is replaced by `stop - start`).
    pub fn get_slice<T: ChunkStore>(
        &self,
        params: &Params<T::Options>,
        start: &[i64],
        stop: &[i64],
    ) -> Result<Array<T>> {
        let mut params = params.clone();
        params.shape = self.slice_shape(start, stop)?;
        let mut out = Array::<T>::empty(&params)?;
        out.building(|out| out.fill_from(self, start))?;
        Ok(out)
    }

    /// The shape of the region `[start, stop)` that [`Array::get_slice`] takes (`InvalidParam`
    /// for one it refuses).
    pub fn slice_shape(&self, start: &[i64], stop: &[i64]) -> Result<Vec<i64>> {
        // A stop past the shape is allowed here (c-blosc2 3.3.5 takes it, and its own tests
        // rely on it): the items outside the array are zeros in the result.
        let inside: Vec<i64> = (0..self.ndim().min(stop.len()))
            .map(|d| {
                stop[d]
                    .min(self.geom.shape[d])
                    .max(start.get(d).copied().unwrap_or(0))
            })
            .collect();
        check_slice(&self.geom, start, &inside)?;
        if (0..self.ndim()).any(|d| start[d] > stop[d]) {
            return Err(Error::InvalidParam);
        }
        Ok((0..self.ndim()).map(|d| stop[d] - start[d]).collect())
    }

    /// Fills this array (of zeros) with `src`'s items from `start` on: the second half of
    /// [`Array::get_slice`], which c-blosc2 runs on an empty array made first.
    pub fn fill_from<T: ChunkStore>(&mut self, src: &Array<T>, start: &[i64]) -> Result<()> {
        if self.geom.typesize != src.geom.typesize || start.len() != src.ndim() {
            return Err(Error::InvalidParam);
        }
        self.copy_region_from(src, start)
    }

    /// Fills every chunk of `self` with `src`'s items at offset `offset`.
    pub(super) fn copy_region_from<T: ChunkStore>(
        &mut self,
        src: &Array<T>,
        offset: &[i64],
    ) -> Result<()> {
        if self.geom.nitems == 0 {
            return Ok(());
        }
        if self.ndim() == 0 {
            let v = src.to_vec()?;
            return self.set_slice_cbuffer(&v, &[], &[], &[]);
        }
        let grid = self.geom.chunks_per_dim();
        let mut buf = Vec::new();
        let geom = self.geom.clone();
        for_each_index(&grid, |coords| {
            let (cstart, mut cstop) = geom.chunk_region(coords);
            // Only the part inside `src`: the rest of the chunk keeps the zeros it was made with.
            for d in 0..cstart.len() {
                cstop[d] = cstop[d].min(src.geom.shape[d] - offset[d]).max(cstart[d]);
            }
            if (0..cstart.len()).any(|d| cstop[d] == cstart[d]) {
                return Ok(());
            }
            let cshape: Vec<i64> = (0..cstart.len()).map(|d| cstop[d] - cstart[d]).collect();
            let sstart: Vec<i64> = (0..cstart.len()).map(|d| cstart[d] + offset[d]).collect();
            let sstop: Vec<i64> = (0..cstart.len()).map(|d| cstop[d] + offset[d]).collect();
            // The slice fills the buffer: get_slice_cbuffer writes every byte, so what the
            // previous chunk left is not zeroed first (a chunk-sized memset per chunk, 4% of
            // python-blosc2's NDArray.slice of 2 MB chunks).
            buf.resize(cshape.iter().product::<i64>() as usize * geom.typesize, 0);
            src.get_slice_cbuffer(&sstart, &sstop, &mut buf, &cshape)?;
            self.set_slice_cbuffer(&buf, &cshape, &cstart, &cstop)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::b2nd::array::Params;
    use crate::chunk::{CParams, DParams};
    use crate::schunk::{Schunk, Storage};

    /// python-blosc2's default layout of a 2000 x 2000 float64 array (chunks of 512 rows,
    /// blocks of 16), decompressed on two threads.
    fn default_layout_array() -> (Array<Schunk>, Vec<f64>) {
        let data: Vec<f64> = (0..2000 * 2000).map(|i| (i % 1013) as f64 * 0.25).collect();
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut params = Params::<Storage>::new(
            CParams {
                typesize: 8,
                nthreads: 2,
                ..Default::default()
            },
            &[2000, 2000],
            &[512, 2000],
            &[16, 2000],
        );
        params.dparams = DParams {
            nthreads: 2,
            ..Default::default()
        };
        (Array::from_cbuffer(&params, &bytes).unwrap(), data)
    }

    fn shared_by_chunk(a: &Array<Schunk>, start: &[i64], stop: &[i64]) -> bool {
        let mut chunks = Vec::new();
        for_each_chunk(&a.geom, start, stop, |nchunk, coords| {
            chunks.push((nchunk, coords.to_vec()));
            Ok(())
        })
        .unwrap();
        a.chunks_share_evenly(&chunks, start, stop, 2)
    }

    #[test]
    fn uneven_chunks_are_shared_out_by_block_and_read_right() {
        let (a, data) = default_layout_array();
        // Rows 125..750: 24 blocks of the first chunk, 15 of the second.
        assert!(!shared_by_chunk(&a, &[125, 125], &[750, 750]));
        // Rows 0..1024: 32 blocks in each of two chunks.
        assert!(shared_by_chunk(&a, &[0, 0], &[1024, 2000]));
        for (start, stop) in [([125, 125], [750, 750]), ([0, 0], [1024, 2000])] {
            let shape = [stop[0] - start[0], stop[1] - start[1]];
            let mut out = vec![0u8; (shape[0] * shape[1] * 8) as usize];
            a.get_slice_cbuffer(&start, &stop, &mut out, &shape)
                .unwrap();
            for (k, v) in out.chunks_exact(8).enumerate() {
                let (r, c) = (
                    k as i64 / shape[1] + start[0],
                    k as i64 % shape[1] + start[1],
                );
                let want = data[(r * 2000 + c) as usize];
                assert_eq!(
                    f64::from_le_bytes(v.try_into().unwrap()),
                    want,
                    "item ({r}, {c})"
                );
            }
        }
    }

    #[test]
    fn a_few_blocks_over_several_chunks_are_read_on_the_calling_thread() {
        let (a, data) = default_layout_array();
        // Rows 500..530: 2 blocks of the first chunk and 2 of the second, 4 in all.
        assert!(!shared_by_chunk(&a, &[500, 0], &[530, 2000]));
        // Rows 448..576: 4 blocks in each of two chunks, 8 in all.
        assert!(shared_by_chunk(&a, &[448, 0], &[576, 2000]));
        let mut out = vec![0u8; 30 * 2000 * 8];
        a.get_slice_cbuffer(&[500, 0], &[530, 2000], &mut out, &[30, 2000])
            .unwrap();
        let want: Vec<u8> = data[500 * 2000..530 * 2000]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert!(out == want);
    }
}
