//! Metalayers (fixed-size, in the frame header) and vlmetalayers (compressed, in the trailer).

use std::sync::Arc;

use super::{Chunks, Schunk};
use crate::chunk::header::MAX_OVERHEAD;
use crate::chunk::{CParams, ChunkHeader, Compressor, Decompressor};
use crate::frame::fingerprint::FpChange;
use crate::frame::header::{MAX_METALAYERS, METALAYER_NAME_MAXLEN};
use crate::frame::trailer::MAX_VLMETALAYERS;
use crate::frame::Meta;
use crate::{Error, Result};

fn check_name(name: &str) -> Result<()> {
    if name.len() > METALAYER_NAME_MAXLEN {
        Err(Error::InvalidParam)
    } else {
        Ok(())
    }
}

impl Schunk {
    // ----- metalayers ----------------------------------------------------------------------

    /// Index of metalayer `name`.
    pub fn meta_exists(&self, name: &str) -> Result<usize> {
        check_name(name)?;
        self.metas
            .iter()
            .position(|m| m.name == name)
            .ok_or(Error::NotFound)
    }

    /// Adds a metalayer (only before any data, when there is a frame); returns its index.
    pub fn meta_add(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        let _held = self.hold(true)?;
        if self.meta_exists(name).is_ok() {
            return Err(Error::InvalidParam);
        }
        if self.metas.len() >= MAX_METALAYERS {
            return Err(Error::InvalidParam);
        }
        if self.frame().is_some() && self.cbytes > 0 {
            return Err(Error::InvalidParam);
        }
        self.metas.push(Meta {
            name: name.to_string(),
            content: content.to_vec(),
        });
        if let Err(e) = self.flush_frame() {
            self.metas.pop();
            return Err(e);
        }
        self.change_tick += 1;
        self.refresh_layout()?;
        Ok(self.metas.len() - 1)
    }

    /// Overwrites the start of metalayer `name` (content cannot grow); returns its index.
    pub fn meta_update(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        let i = self.meta_exists(name)?;
        if content.len() > self.metas[i].content.len() {
            return Err(Error::InvalidParam);
        }
        self.metas[i].content[..content.len()].copy_from_slice(content);
        self.change_tick += 1;
        self.flush_frame()?;
        self.refresh_layout()?;
        Ok(i)
    }

    /// Takes the layer above's data and callbacks from `c` and `d` (their `owner`, the
    /// `prefilter` and `tuner` of `c`, the `postfilter` of `d`; see
    /// [`crate::chunk::params::Owner`]) into its compression and decompression parameters, and
    /// rebuilds its engines with them. The C layer binds a super-chunk's parameters to its
    /// handle this way, the back-pointer c-blosc2 hands user codecs, filters, tuners and
    /// pre/postfilters as `cparams->schunk`/`dparams->schunk`, whether the parameters came
    /// without one (from a frame, from a b2nd context) or with another super-chunk's (a copy's
    /// source).
    pub fn adopt_owner(
        &mut self,
        c: &crate::chunk::CParams,
        d: &crate::chunk::DParams,
    ) -> Result<()> {
        let (sc, sd) = (&mut self.storage.cparams, &mut self.storage.dparams);
        sc.owner = c.owner.clone();
        sc.prefilter = c.prefilter.clone();
        sc.tuner = c.tuner.clone();
        sd.owner = d.owner.clone();
        sd.postfilter = d.postfilter.clone();
        let c = Compressor::new(self.storage.compressor_cparams())?;
        let d = Decompressor::new(self.storage.dparams.clone())?;
        self.set_compressor(c);
        self.set_decompressor(d);
        Ok(())
    }

    /// The array layout the "b2nd" metalayer describes (None without one, or when it does not
    /// parse), handed to the compressor and decompressor for the filters that need it.
    pub fn layout(&self) -> Option<&Arc<crate::chunk::params::ArrayLayout>> {
        self.storage.cparams.layout.as_ref()
    }

    /// Re-reads the layout from the "b2nd" metalayer after a metalayer change, rebuilding the
    /// contexts when it differs. The super-chunk layer decodes the metalayer (with
    /// `crate::b2nd_meta`, a parser of a format below this layer) so the chunk engine never
    /// looks at metalayers.
    pub(super) fn refresh_layout(&mut self) -> Result<()> {
        let meta = self.meta_get(crate::b2nd_meta::META_NAME).ok();
        let typesize = self.storage.cparams.typesize;
        let is = |current: &Option<Arc<crate::chunk::params::ArrayLayout>>| {
            crate::b2nd_meta::layout_is(meta, typesize, current.as_deref())
        };
        if is(&self.storage.cparams.layout) && is(&self.storage.dparams.layout) {
            return Ok(());
        }
        let layout = meta
            .and_then(|m| crate::b2nd_meta::layout(m, typesize))
            .map(Arc::new);
        self.storage.cparams.layout = layout.clone();
        self.storage.dparams.layout = layout.clone();
        // The engines take it in place when nothing else holds them (a super-chunk being
        // described, before its first chunk), else in copies.
        let mut c = self.compressor.write().unwrap_or_else(|e| e.into_inner());
        Arc::make_mut(&mut c).set_layout(layout.clone());
        drop(c);
        let mut d = self.decompressor.write().unwrap_or_else(|e| e.into_inner());
        Arc::make_mut(&mut d).set_layout(layout);
        Ok(())
    }

    /// The content of metalayer `name`.
    pub fn meta_get(&self, name: &str) -> Result<&[u8]> {
        let i = self.meta_exists(name)?;
        Ok(&self.metas[i].content)
    }

    /// Rewrites the frame's header, index and trailer after a metadata change.
    fn flush_frame(&mut self) -> Result<()> {
        let h = self.frame_header();
        if let Chunks::Frame(frame) = &mut self.chunks {
            let offsets = frame.offsets().to_vec();
            frame.commit(h, &self.metas, &self.vlmetas, None, offsets, FpChange::Same)?;
        }
        Ok(())
    }

    // ----- vlmetalayers --------------------------------------------------------------------

    /// Index of vlmetalayer `name`.
    pub fn vlmeta_exists(&self, name: &str) -> Result<usize> {
        check_name(name)?;
        self.vlmetas
            .iter()
            .position(|m| m.name == name)
            .ok_or(Error::NotFound)
    }

    fn compress_vlmeta(content: &[u8], cparams: Option<&CParams>) -> Result<Vec<u8>> {
        let params = cparams.cloned().unwrap_or_default();
        let mut buf = vec![0u8; content.len() + MAX_OVERHEAD];
        let n = Compressor::new(params)?.compress(content, &mut buf)?;
        if n == 0 {
            return Err(Error::Failure);
        }
        buf.truncate(n);
        Ok(buf)
    }

    /// Adds a vlmetalayer, compressed with `cparams` (defaults when `None`); returns its index.
    pub fn vlmeta_add(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        let _held = self.hold(true)?;
        // The fingerprint table's name is taken (docs/FINGERPRINTS.md).
        if self.vlmeta_exists(name).is_ok() || name == crate::frame::fingerprint::TABLE_NAME {
            return Err(Error::InvalidParam);
        }
        if self.vlmetas.len() >= MAX_VLMETALAYERS {
            return Err(Error::InvalidParam);
        }
        let content = Schunk::compress_vlmeta(content, cparams)?;
        self.vlmetas.push(Meta {
            name: name.to_string(),
            content,
        });
        if let Err(e) = self.flush_frame() {
            self.vlmetas.pop();
            return Err(e);
        }
        self.change_tick += 1;
        Ok(self.vlmetas.len() - 1)
    }

    /// Replaces the content of vlmetalayer `name`; returns its index.
    pub fn vlmeta_update(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        let _held = self.hold(true)?;
        let i = self.vlmeta_exists(name)?;
        self.vlmetas[i].content = Schunk::compress_vlmeta(content, cparams)?;
        self.change_tick += 1;
        self.flush_frame()?;
        Ok(i)
    }

    /// The (decompressed) content of vlmetalayer `name`.
    pub fn vlmeta_get(&self, name: &str) -> Result<Vec<u8>> {
        let i = self.vlmeta_exists(name)?;
        let stored = &self.vlmetas[i].content;
        let h = ChunkHeader::parse(stored)?;
        if h.cbytes as usize != stored.len() {
            return Err(Error::Data);
        }
        let mut out = vec![0u8; h.nbytes as usize];
        // As c-blosc2: a context from the storage's dparams, not the super-chunk's (which its
        // owner may have given a postfilter for the data).
        let n =
            Decompressor::new(self.storage.dparams.clone())?.decompress(stored, &mut out, None)?;
        if n != out.len() {
            return Err(Error::ReadBuffer);
        }
        Ok(out)
    }

    /// Removes vlmetalayer `name`; returns the number left.
    pub fn vlmeta_delete(&mut self, name: &str) -> Result<usize> {
        let _held = self.hold(true)?;
        let i = self.vlmeta_exists(name)?;
        self.vlmetas.remove(i);
        self.change_tick += 1;
        self.flush_frame()?;
        Ok(self.vlmetas.len())
    }

    /// Names of the vlmetalayers, in order.
    pub fn vlmeta_names(&self) -> Vec<&str> {
        self.vlmetas.iter().map(|m| m.name.as_str()).collect()
    }
}
