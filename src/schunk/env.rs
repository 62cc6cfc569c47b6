//! The compression settings c-blosc2 3.3.5 takes from its BLOSC_* environment variables for
//! every compression context it makes (`blosc2_create_cctx`, the contexts of super-chunks
//! included), and how they apply: [`CompressEnv::apply_to`] is the one place. The values are
//! read by the C layer (which owns `getenv`); this module knows nothing of C.

use std::sync::Arc;

use super::{CParamsAdjust, Schunk};
use crate::chunk::header::{DELTA, NOFILTER};
use crate::chunk::CParams;
use crate::Result;

/// The filter pipeline the blosc1-style `doshuffle` and delta flags stand for (c-blosc2 puts
/// the shuffle last and DELTA just before it; byte shuffle is dropped for 1-byte items; another
/// `doshuffle` leaves the last filter as it is).
pub fn build_filters(doshuffle: i32, delta: bool, typesize: i32, filters: &mut [u8; 6]) {
    match doshuffle {
        1 if typesize > 1 => filters[5] = 1,
        2 => filters[5] = 2,
        0 => filters[5] = NOFILTER,
        _ => {}
    }
    if delta {
        filters[4] = DELTA;
    }
}

/// The variables' values, each None when unset or set to a value c-blosc2 does not take (it
/// warns and keeps the caller's), except an unknown BLOSC_COMPRESSOR, which it takes as codec
/// 255 (-1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompressEnv {
    /// BLOSC_TYPESIZE (positive).
    pub typesize: Option<i32>,
    /// BLOSC_SHUFFLE's shuffle as a `doshuffle` (0, 1, 2); -1 when unset or not recognised.
    pub shuffle: i32,
    /// BLOSC_DELTA=1.
    pub delta: bool,
    /// BLOSC_CLEVEL (non-negative).
    pub clevel: Option<u8>,
    /// BLOSC_COMPRESSOR's codec id.
    pub compcode: Option<u8>,
    /// BLOSC_BLOCKSIZE (positive).
    pub blocksize: Option<i32>,
    /// BLOSC_NTHREADS (positive).
    pub nthreads: Option<i16>,
    /// BLOSC_SPLITMODE's split mode.
    pub splitmode: Option<i32>,
}

impl Default for CompressEnv {
    fn default() -> Self {
        CompressEnv::UNSET
    }
}

/// The fields of a parameter set (the core's, or the C struct's, which the C layer lends) that
/// the environment changes.
#[allow(missing_docs)] // the fields of CParams of the same names
pub struct EnvFields<'a> {
    pub typesize: &'a mut i32,
    pub filters: &'a mut [u8; 6],
    pub clevel: &'a mut u8,
    pub compcode: &'a mut u8,
    pub blocksize: &'a mut i32,
    pub nthreads: &'a mut i16,
    pub splitmode: &'a mut i32,
}

impl CompressEnv {
    /// No variable set.
    pub const UNSET: CompressEnv = CompressEnv {
        typesize: None,
        shuffle: -1,
        delta: false,
        clevel: None,
        compcode: None,
        blocksize: None,
        nthreads: None,
        splitmode: None,
    };

    /// Whether none of the variables is set (to a value c-blosc2 takes).
    pub fn is_empty(&self) -> bool {
        *self == CompressEnv::UNSET
    }

    /// Applies the settings, as `blosc2_create_cctx` does to the parameters it is given.
    pub fn apply_to(&self, f: EnvFields<'_>) {
        if let Some(v) = self.typesize {
            *f.typesize = v;
        }
        build_filters(self.shuffle, self.delta, *f.typesize, f.filters);
        if let Some(v) = self.clevel {
            *f.clevel = v;
        }
        if let Some(v) = self.compcode {
            *f.compcode = v;
        }
        if let Some(v) = self.blocksize {
            *f.blocksize = v;
        }
        if let Some(v) = self.nthreads {
            *f.nthreads = v;
        }
        if let Some(v) = self.splitmode {
            *f.splitmode = v;
        }
    }

    /// [`CompressEnv::apply_to`] on core parameters.
    pub fn apply(&self, c: &mut CParams) {
        self.apply_to(EnvFields {
            typesize: &mut c.typesize,
            filters: &mut c.filters,
            clevel: &mut c.clevel,
            compcode: &mut c.compcode,
            blocksize: &mut c.blocksize,
            nthreads: &mut c.nthreads,
            splitmode: &mut c.splitmode,
        });
    }

    /// What a super-chunk's own compressor takes from these settings, as the compression
    /// context c-blosc2 makes for a super-chunk (new, copied, opened) takes them: None when
    /// nothing is set.
    pub fn compressor_adjust(self) -> Option<CParamsAdjust> {
        (!self.is_empty()).then(|| Arc::new(move |c: &mut CParams| self.apply(c)) as CParamsAdjust)
    }
}

impl Schunk {
    /// Takes the settings as c-blosc2 makes a super-chunk's contexts: both take BLOSC_NTHREADS,
    /// and its compressor the other settings, unless the storage already says how to adjust it
    /// (a super-chunk made from a storage took them there, before its first chunk).
    pub fn take_env(&mut self, env: &CompressEnv) -> Result<()> {
        if let Some(n) = env.nthreads {
            self.set_nthreads(n, n)?;
        }
        if self.storage().compressor_adjust.is_none() && !env.is_empty() {
            self.set_compressor_adjust(env.compressor_adjust())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_apply_to_core_params() {
        let env = CompressEnv {
            typesize: Some(4),
            shuffle: 2,
            delta: true,
            clevel: Some(9),
            ..CompressEnv::UNSET
        };
        let mut c = CParams::default();
        env.apply(&mut c);
        assert_eq!((c.typesize, c.clevel), (4, 9));
        assert_eq!(&c.filters[4..], &[DELTA, 2]);
        assert!(CompressEnv::UNSET.is_empty() && !env.is_empty());
        assert!(CompressEnv::UNSET.compressor_adjust().is_none());
        let mut f = [0u8; 6];
        build_filters(1, false, 1, &mut f);
        assert_eq!(f, [0; 6], "no byte shuffle for 1-byte items");
    }
}
