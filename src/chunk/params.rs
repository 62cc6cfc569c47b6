//! Compression and decompression parameters of the core (the C layer maps `blosc2_cparams` and
//! `blosc2_dparams` onto these).

use super::header::{MAX_FILTERS, SHUFFLE};
use std::any::Any;
use std::sync::Arc;

/// Data of the layer above the core, carried with the parameters and never interpreted by the
/// core (the C layer keeps the super-chunk back-pointer and the C-only fields of
/// `blosc2_cparams`/`blosc2_dparams` here, for the user callbacks it wraps).
pub type Owner = Arc<dyn Any + Send + Sync>;

/// Split modes (BLOSC_*_SPLIT).
pub const ALWAYS_SPLIT: i32 = 1;
pub const NEVER_SPLIT: i32 = 2;
pub const AUTO_SPLIT: i32 = 3;
pub const FORWARD_COMPAT_SPLIT: i32 = 4;

/// A user-registered codec, as the core sees it.
pub trait UserCodec: Send + Sync {
    /// Returns the compressed size, 0 if it did not fit, negative on error.
    fn encode(&self, src: &[u8], dst: &mut [u8], meta: u8, params: &CParams) -> i32;
    /// Returns the decompressed size, negative on error.
    fn decode(&self, src: &[u8], dst: &mut [u8], meta: u8, params: &DParams) -> i32;
}

/// A user-registered filter, as the core sees it.
pub trait UserFilter: Send + Sync {
    /// `typesize` is the chunk's item size (the header's, when decompressing).
    fn forward(
        &self,
        src: &[u8],
        dst: &mut [u8],
        meta: u8,
        params: &CParams,
        nblock: i32,
        typesize: i32,
    ) -> i32;
    fn backward(
        &self,
        src: &[u8],
        dst: &mut [u8],
        meta: u8,
        params: &DParams,
        nblock: i32,
        typesize: i32,
    ) -> i32;
}

/// A compression tuner (c-blosc2's `blosc2_tuner`), as the core sees it: consulted once before
/// each chunk is compressed with the parameters it rides in. It observes and may veto; it cannot
/// change the parameters (c-blosc2's tuners do that by writing its private context, which has no
/// public counterpart).
pub trait Tuner: Send + Sync {
    /// c-blosc2's `next_blocksize` hook, run before the chunk's block size is chosen. An error
    /// aborts the compression with that error.
    fn next_blocksize(&self, params: &CParams) -> crate::Result<()>;
}

/// Per-block callback run before the filters (prefilter) or after them (postfilter).
pub trait BlockCallback: Send + Sync {
    /// `input` is the block's source (for a prefilter: the chunk's source bytes of this block),
    /// `output` receives `output.len()` bytes. `offset` is the byte offset of the block in the
    /// chunk; `nblock` its index; `tid` the worker id; `typesize` the chunk's item size.
    /// Non-zero return = failure.
    fn call(&self, input: &[u8], output: &mut [u8], block: BlockInfo) -> i32;
}

/// Where the block a `BlockCallback` handles sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockInfo {
    pub typesize: i32,
    pub offset: i32,
    pub nblock: i32,
    pub tid: i32,
}

/// Compression parameters.
#[derive(Clone)]
pub struct CParams {
    pub compcode: u8,
    pub compcode_meta: u8,
    pub clevel: u8,
    pub use_dict: bool,
    pub typesize: i32,
    pub nthreads: i16,
    pub blocksize: i32,
    pub splitmode: i32,
    pub filters: [u8; MAX_FILTERS],
    pub filters_meta: [u8; MAX_FILTERS],
    pub instr_codec: bool,
    /// Write the 16-byte c-blosc 1.x header (BLOSC_BLOSC1_COMPAT) instead of the extended one.
    pub legacy_header: bool,
    pub prefilter: Option<Arc<dyn BlockCallback>>,
    pub user_codec: Option<Arc<dyn UserCodec>>,
    pub user_filters: Vec<(u8, Arc<dyn UserFilter>)>,
    pub tuner: Option<Arc<dyn Tuner>>,
    pub owner: Option<Owner>,
}

impl CParams {
    /// Runs the tuner's hook, if there is one, before a compression with these parameters.
    pub fn consult_tuner(&self) -> crate::Result<()> {
        match &self.tuner {
            Some(t) => t.next_blocksize(self),
            None => Ok(()),
        }
    }
}

impl Default for CParams {
    fn default() -> Self {
        CParams {
            compcode: crate::codecs::BLOSCLZ,
            compcode_meta: 0,
            clevel: 5,
            use_dict: false,
            typesize: 8,
            nthreads: 1,
            blocksize: 0,
            splitmode: FORWARD_COMPAT_SPLIT,
            filters: [0, 0, 0, 0, 0, SHUFFLE],
            filters_meta: [0; MAX_FILTERS],
            instr_codec: false,
            legacy_header: false,
            prefilter: None,
            user_codec: None,
            user_filters: Vec::new(),
            tuner: None,
            owner: None,
        }
    }
}

impl std::fmt::Debug for CParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CParams")
            .field("compcode", &self.compcode)
            .field("clevel", &self.clevel)
            .field("typesize", &self.typesize)
            .field("nthreads", &self.nthreads)
            .field("blocksize", &self.blocksize)
            .field("splitmode", &self.splitmode)
            .field("filters", &self.filters)
            .field("filters_meta", &self.filters_meta)
            .finish()
    }
}

/// Decompression parameters.
#[derive(Clone)]
pub struct DParams {
    pub nthreads: i16,
    pub typesize: i32,
    pub postfilter: Option<Arc<dyn BlockCallback>>,
    pub user_codecs: Vec<(u8, Arc<dyn UserCodec>)>,
    pub user_filters: Vec<(u8, Arc<dyn UserFilter>)>,
    pub owner: Option<Owner>,
}

impl Default for DParams {
    fn default() -> Self {
        DParams {
            nthreads: 1,
            typesize: 8,
            postfilter: None,
            user_codecs: Vec::new(),
            user_filters: Vec::new(),
            owner: None,
        }
    }
}
