//! The super-chunk as a b2nd chunk store (c-blosc2 keeps a b2nd array in a `blosc2_schunk`).

use std::borrow::Cow;

use super::store::{compress_with, decompress_defined, ChunkStore};
use crate::chunk::{CParams, DParams};
use crate::schunk::{Schunk, Storage};
use crate::Result;

impl ChunkStore for Schunk {
    /// Where the super-chunk lives (its `cparams`/`dparams` are replaced by `create`'s).
    type Options = Storage;

    fn create(cparams: CParams, dparams: DParams, options: &Storage) -> Result<Self> {
        Schunk::new(Storage {
            cparams,
            dparams,
            ..options.clone()
        })
    }
    fn cparams(&self) -> &CParams {
        Schunk::cparams(self)
    }
    fn dparams(&self) -> &DParams {
        Schunk::dparams(self)
    }
    /// Arrays derived from this one (squeezed or expanded views) live in memory, as c-blosc2's
    /// views do, whatever this super-chunk's own storage.
    fn options(&self) -> Storage {
        Storage {
            contiguous: false,
            urlpath: None,
            ..self.storage().clone()
        }
    }
    fn nchunks(&self) -> i64 {
        Schunk::nchunks(self)
    }
    fn chunk(&self, nchunk: i64) -> Result<Cow<'_, [u8]>> {
        self.get_chunk(nchunk)
    }
    fn decompress_chunk(
        &self,
        nchunk: i64,
        dst: &mut [u8],
        maskout: Option<&[bool]>,
    ) -> Result<usize> {
        let chunk = self.get_chunk(nchunk)?;
        decompress_defined(self.decompressor(), &chunk, dst, maskout)
    }
    fn compress_chunk(&self, data: &[u8]) -> Result<Vec<u8>> {
        compress_with(self.compressor(), data)
    }
    fn append_chunk(&mut self, chunk: Vec<u8>) -> Result<i64> {
        self.append_chunk_owned(chunk)
    }
    fn insert_chunk(&mut self, nchunk: i64, chunk: Vec<u8>) -> Result<i64> {
        Schunk::insert_chunk(self, nchunk, &chunk)
    }
    fn update_chunk(&mut self, nchunk: i64, chunk: Vec<u8>) -> Result<i64> {
        Schunk::update_chunk(self, nchunk, &chunk)
    }
    fn delete_chunk(&mut self, nchunk: i64) -> Result<i64> {
        Schunk::delete_chunk(self, nchunk)
    }
    fn meta_names(&self) -> Vec<String> {
        self.metalayers().iter().map(|m| m.name.clone()).collect()
    }
    fn meta_get(&self, name: &str) -> Option<Vec<u8>> {
        Schunk::meta_get(self, name).ok().map(<[u8]>::to_vec)
    }
    fn meta_add(&mut self, name: &str, content: &[u8]) -> Result<()> {
        Schunk::meta_add(self, name, content).map(drop)
    }
    fn meta_update(&mut self, name: &str, content: &[u8]) -> Result<()> {
        Schunk::meta_update(self, name, content).map(drop)
    }
    fn vlmeta_names(&self) -> Vec<String> {
        Schunk::vlmeta_names(self)
            .into_iter()
            .map(str::to_string)
            .collect()
    }
    fn vlmeta_get(&self, name: &str) -> Result<Vec<u8>> {
        Schunk::vlmeta_get(self, name)
    }
    fn vlmeta_add(&mut self, name: &str, content: &[u8]) -> Result<()> {
        Schunk::vlmeta_add(self, name, content, None).map(drop)
    }
}
