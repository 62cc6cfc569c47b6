//! Item slices across chunks.

use super::{Schunk, ONE_PASS_BYTES};
use crate::{Error, Result};

impl Schunk {
    // ----- slices --------------------------------------------------------------------------

    fn check_slice(&self, start: i64, stop: i64) -> Result<(i64, i64, i64)> {
        let ts = self.typesize() as i64;
        let (bstart, bstop) = (
            start.checked_mul(ts).ok_or(Error::InvalidParam)?,
            stop.checked_mul(ts).ok_or(Error::InvalidParam)?,
        );
        if start < 0 || stop < start || bstop > self.nbytes {
            return Err(Error::InvalidParam);
        }
        if self.chunksize <= 0 {
            return Err(Error::InvalidParam);
        }
        Ok((bstart, bstop, self.chunksize as i64))
    }

    /// Reads items `start..stop` into `dst` (which holds at least that many bytes).
    ///
    /// As in c-blosc2, a whole chunk is decompressed and a part of one goes through getitem
    /// (which differs for `zfp_rate` chunks, see `chunk::decompress`), and a chunk that fails
    /// to read fails the call with `Failure`.
    pub fn get_slice_buffer(&self, start: i64, stop: i64, dst: &mut [u8]) -> Result<()> {
        let (bstart, bstop, cs) = self.check_slice(start, stop)?;
        if (dst.len() as i64) < bstop - bstart {
            return Err(Error::InvalidParam);
        }
        let mut pos = bstart;
        while pos < bstop {
            let n = pos / cs;
            let within = pos % cs;
            let take = (cs - within).min(bstop - pos);
            let out = &mut dst[(pos - bstart) as usize..(pos - bstart + take) as usize];
            let read = if within == 0 && take == cs {
                self.decompress_chunk(n, out, None).map(|_| ())
            } else {
                self.get_chunk(n).and_then(|chunk| {
                    self.observe_chunk(n);
                    self.decompressor()
                        .getitem_bytes(&chunk, within as usize, take as usize, out)
                        .map(|_| ())
                })
            };
            read.map_err(|_| Error::Failure)?;
            pos += take;
        }
        Ok(())
    }

    /// Writes items `start..stop` from `src`, recompressing the chunks touched. In a frame
    /// file they are committed together, all or none (see [`Schunk::update_chunks`]).
    pub fn set_slice_buffer(&mut self, start: i64, stop: i64, src: &[u8]) -> Result<()> {
        let _held = self.hold(true)?;
        let (bstart, bstop, cs) = self.check_slice(start, stop)?;
        if (src.len() as i64) < bstop - bstart {
            return Err(Error::InvalidParam);
        }
        // Where the super-chunk gains by it, the chunks are committed together (up to
        // ONE_PASS_BYTES of them): in a frame file the chunks after them then move once.
        let one_pass = self.updates_in_one_pass();
        let (mut first, mut pending, mut bytes) = (bstart / cs, Vec::new(), 0);
        let mut pos = bstart;
        while pos < bstop {
            let n = pos / cs;
            let within = pos % cs;
            let take = (cs - within).min(bstop - pos);
            let mut data = self.decompress_chunk_vec(n)?;
            let from = (pos - bstart) as usize;
            data[within as usize..(within + take) as usize]
                .copy_from_slice(&src[from..from + take as usize]);
            // Compressed into a buffer that is not zeroed first (a kept one when there is one,
            // see crate::kept), which an in-memory list keeps (as c-blosc2 hands its buffer
            // over).
            let chunk = super::storage::compress_list_chunk(&self.compressor(), &data)?;
            pos += take;
            if !one_pass {
                self.update_chunk_owned(n, chunk)?;
                continue;
            }
            bytes += chunk.len();
            pending.push(chunk);
            if bytes >= ONE_PASS_BYTES {
                let chunks: Vec<&[u8]> = pending.iter().map(|c| &c[..]).collect();
                self.update_chunks(first, &chunks)?;
                (first, bytes) = (n + 1, 0);
                pending.clear();
            }
        }
        let chunks: Vec<&[u8]> = pending.iter().map(|c| &c[..]).collect();
        self.update_chunks(first, &chunks)?;
        Ok(())
    }
}
