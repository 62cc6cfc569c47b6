//! Compression and decompression parameters of the core (the C layer maps `blosc2_cparams` and
//! `blosc2_dparams` onto these).

use super::header::{MAX_FILTERS, SHUFFLE};
use std::any::Any;
use std::sync::Arc;

/// Data of the layer above the core, carried with the parameters and never interpreted by the
/// core (the C layer keeps the super-chunk back-pointer and the C-only fields of
/// `blosc2_cparams`/`blosc2_dparams` here, for the user callbacks it wraps).
pub type Owner = Arc<dyn Any + Send + Sync>;

/// Split mode (`BLOSC_ALWAYS_SPLIT`): every block is split into one stream per byte of the
/// typesize before the codec runs.
pub const ALWAYS_SPLIT: i32 = 1;
/// Split mode (`BLOSC_NEVER_SPLIT`): each block is one codec stream.
pub const NEVER_SPLIT: i32 = 2;
/// Split mode (`BLOSC_AUTO_SPLIT`): split when the codec, level, shuffle and typesize make it
/// pay, as c-blosc2 decides.
pub const AUTO_SPLIT: i32 = 3;
/// Split mode (`BLOSC_FORWARD_COMPAT_SPLIT`, the default): decided as for [`AUTO_SPLIT`], so
/// that readers of older formats can read the chunks.
pub const FORWARD_COMPAT_SPLIT: i32 = 4;

/// The plain values of c-blosc2's default compression parameters (`BLOSC2_CPARAMS_DEFAULTS`;
/// its pointers are NULL and its `tuner_id` 0): the one source of [`CParams::default`], of the
/// C layer's `blosc2_get_blosc2_cparams_defaults` and of the global settings' start values. A
/// test checks the header's macro against it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CParamsDefaults {
    /// BloscLZ.
    pub compcode: u8,
    /// 0.
    pub compcode_meta: u8,
    /// 5.
    pub clevel: u8,
    /// No dictionary.
    pub use_dict: bool,
    /// 8.
    pub typesize: i32,
    /// 1.
    pub nthreads: i16,
    /// 0: automatic.
    pub blocksize: i32,
    /// [`FORWARD_COMPAT_SPLIT`].
    pub splitmode: i32,
    /// Shuffle in the last slot.
    pub filters: [u8; MAX_FILTERS],
    /// All 0.
    pub filters_meta: [u8; MAX_FILTERS],
    /// false.
    pub instr_codec: bool,
}

/// c-blosc2's default compression parameters.
pub const CPARAMS_DEFAULTS: CParamsDefaults = CParamsDefaults {
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
};

/// The plain values of c-blosc2's default decompression parameters (`BLOSC2_DPARAMS_DEFAULTS`;
/// its pointers are NULL), the one source of [`DParams::default`] and of the C layer's
/// `blosc2_get_blosc2_dparams_defaults`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DParamsDefaults {
    /// 1.
    pub nthreads: i16,
    /// 8.
    pub typesize: i32,
}

/// c-blosc2's default decompression parameters.
pub const DPARAMS_DEFAULTS: DParamsDefaults = DParamsDefaults {
    nthreads: 1,
    typesize: 8,
};

/// The n-dimensional layout of the super-chunk a chunk is compressed for, from its "b2nd"
/// metalayer. The filters that work on cells of a block (ndcell, ndmean) need it; c-blosc2's
/// read that metalayer through `cparams->schunk` on each call, here the super-chunk hands it
/// to its contexts whenever the metalayer changes (see `Schunk::refresh_layout`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayLayout {
    /// The super-chunk's typesize (what c-blosc2's filters take on decompression).
    pub typesize: i32,
    /// The shape of a block, one entry per dimension (at most 8).
    pub blockshape: Vec<i32>,
}

/// A user-registered codec, as the core sees it.
pub trait UserCodec: Send + Sync {
    /// Whether the encoder can run. A codec whose code is loaded on demand (a C plugin) loads
    /// it here; false makes the compression fail with `CodecSupport`, as c-blosc2 fails when it
    /// cannot load a codec, where a failing encoder gives `Data`.
    fn encoder_available(&self) -> bool {
        true
    }
    /// Whether the decoder can run (loading it on demand as [`UserCodec::encoder_available`]);
    /// false makes the decompression fail with `CodecSupport`, as in c-blosc2.
    fn decoder_available(&self) -> bool {
        true
    }
    /// Returns the compressed size, 0 if it did not fit, negative on error. `source` is the
    /// whole buffer being compressed (what c-blosc2 passes as the encoder's `chunk`).
    fn encode(&self, src: &[u8], dst: &mut [u8], meta: u8, params: &CParams, source: &[u8]) -> i32;
    /// Returns the decompressed size, negative on error. `chunk` is the whole chunk being
    /// decompressed (the decoder's `chunk` in c-blosc2); `typesize` its item size (its
    /// header's), which c-blosc2 reports in the decoder's dparams rather than the caller's.
    fn decode(
        &self,
        src: &[u8],
        dst: &mut [u8],
        meta: u8,
        params: &DParams,
        chunk: &[u8],
        typesize: i32,
    ) -> i32;
}

/// A user-registered filter, as the core sees it.
pub trait UserFilter: Send + Sync {
    /// Filters one block from `src` into `dst` (same length); returns 0 on success, a negative
    /// `BLOSC2_ERROR_*` code on failure. `meta` is the pipeline slot's meta byte, `nblock` the
    /// block's index in the chunk. `typesize` is the chunk's item size (the header's, when
    /// decompressing).
    fn forward(
        &self,
        src: &[u8],
        dst: &mut [u8],
        meta: u8,
        params: &CParams,
        nblock: i32,
        typesize: i32,
    ) -> i32;
    /// Undoes `forward` on one block (`src` and `dst` have the block's length); returns 0 on
    /// success, a negative `BLOSC2_ERROR_*` code on failure.
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

// The registry's entries live with the traits they carry, not in registry.rs: the built-in
// plugins (plugins.rs) build entries, and the registry starts from those plugins.

/// A registered codec.
#[derive(Clone)]
pub struct CodecEntry {
    /// The codec id chunks store (160..=255 for user registrations).
    pub id: u8,
    /// The name `blosc1_set_compressor` and friends know it by.
    pub name: String,
    /// The library code reported for its chunks (`blosc2_codec.complib`).
    pub complib: u8,
    /// The codec's own version number (`blosc2_codec.version`), kept as registered.
    pub version: u8,
    /// The encoder and decoder.
    pub codec: Arc<dyn UserCodec>,
}

/// A registered filter.
#[derive(Clone)]
pub struct FilterEntry {
    /// The filter id a pipeline slot stores (160..=255 for user registrations).
    pub id: u8,
    /// The filter's name.
    pub name: String,
    /// The filter's own version number (`blosc2_filter.version`), kept as registered.
    pub version: u8,
    /// The forward and backward functions.
    pub filter: Arc<dyn UserFilter>,
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

    /// For a prefilter: whether what it writes is thrown away (c-blosc2's
    /// `output_is_disposable`, e.g. python-blosc2's reductions, which accumulate in their own
    /// memory). Its output is then not zeroed before the call, a non-zero return is no failure
    /// (and the filters are skipped for that block), and no codec runs: each stream of a
    /// regular block is stored as a zero run, so the chunk becomes a zeros chunk. Postfilters
    /// ignore it.
    fn output_is_disposable(&self) -> bool {
        false
    }
}

/// Where the block a `BlockCallback` handles sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockInfo {
    /// The chunk's item size in bytes.
    pub typesize: i32,
    /// Byte offset of the block in the chunk's data.
    pub offset: i32,
    /// Index of the block in the chunk.
    pub nblock: i32,
    /// Index of the worker thread running the callback (0 ..< nthreads).
    pub tid: i32,
}

/// A change to parameters that a super-chunk's compressor and its frame's offsets chunks are
/// built from, applied each time one is built (the C layer's: the settings c-blosc2 takes
/// from the environment for every compression context it makes).
pub type CParamsAdjust = Arc<dyn Fn(&mut CParams) + Send + Sync>;

/// Compression parameters.
#[derive(Clone)]
pub struct CParams {
    /// Codec id: one of [`crate::codecs`]' ids, or a registered user codec (160..=255).
    /// Default BloscLZ.
    pub compcode: u8,
    /// The codec's meta byte, stored in the chunk header and handed to user codecs.
    pub compcode_meta: u8,
    /// Compression level, 0 (store uncompressed) ..= 9. Default 5.
    pub clevel: u8,
    /// Train and store a dictionary per chunk. Only Zstd, LZ4 and LZ4HC take one (other codecs
    /// fail with [`Error::CodecParam`](crate::Error::CodecParam)); chunks under 5 KiB are
    /// compressed without.
    pub use_dict: bool,
    /// Item size in bytes, which the shuffle filters and block sizing use. Values above 255 or
    /// below 1 compress the data as bytes. Default 8.
    pub typesize: i32,
    /// Threads that compress the blocks of one chunk (1 = the calling thread only).
    pub nthreads: i16,
    /// Block size in bytes; 0 (the default) lets the engine choose as c-blosc2 does.
    pub blocksize: i32,
    /// One of [`ALWAYS_SPLIT`], [`NEVER_SPLIT`], [`AUTO_SPLIT`], [`FORWARD_COMPAT_SPLIT`].
    pub splitmode: i32,
    /// The filter pipeline, run in slot order (filter ids of [`super::header`] and
    /// [`super::pipeline`], or registered user filters). Default: shuffle in the last slot.
    pub filters: [u8; MAX_FILTERS],
    /// One meta byte per filter slot (e.g. the bits [`super::header::TRUNC_PREC`] keeps).
    pub filters_meta: [u8; MAX_FILTERS],
    /// Carried for `blosc2_cparams.instr_codec`; the core does not write instrumented chunks.
    pub instr_codec: bool,
    /// Write the 16-byte c-blosc 1.x header (BLOSC_BLOSC1_COMPAT) instead of the extended one.
    pub legacy_header: bool,
    /// Called for each block before the filters; what it writes is compressed instead of the
    /// source bytes.
    pub prefilter: Option<Arc<dyn BlockCallback>>,
    /// The codec used when `compcode` is not a built-in codec.
    pub user_codec: Option<Arc<dyn UserCodec>>,
    /// User filters by filter id, for ids in `filters` that are not built in.
    pub user_filters: Vec<(u8, Arc<dyn UserFilter>)>,
    /// The layout of the array this context compresses for, when it has one.
    pub layout: Option<Arc<ArrayLayout>>,
    /// The typesize of the super-chunk these parameters belong to (c-blosc2's
    /// `cparams->schunk->typesize`), None for a bare context: BYTEDELTA with `filters_meta` 0
    /// takes its number of streams from it, and fails without one.
    pub schunk_typesize: Option<i32>,
    /// Consulted before each compression (see [`Tuner`]).
    pub tuner: Option<Arc<dyn Tuner>>,
    /// Data of the layer above the core, passed along untouched (see [`Owner`]).
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
        let d = CPARAMS_DEFAULTS;
        CParams {
            compcode: d.compcode,
            compcode_meta: d.compcode_meta,
            clevel: d.clevel,
            use_dict: d.use_dict,
            typesize: d.typesize,
            nthreads: d.nthreads,
            blocksize: d.blocksize,
            splitmode: d.splitmode,
            filters: d.filters,
            filters_meta: d.filters_meta,
            instr_codec: d.instr_codec,
            legacy_header: false,
            prefilter: None,
            user_codec: None,
            user_filters: Vec::new(),
            layout: None,
            schunk_typesize: None,
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
    /// Threads that decompress the blocks of one chunk (1 = the calling thread only).
    pub nthreads: i16,
    /// Item size in bytes (`blosc2_dparams.typesize`); decoding itself takes the typesize from
    /// each chunk's header.
    pub typesize: i32,
    /// Called for each decompressed block after the filters; writes the block's final bytes.
    pub postfilter: Option<Arc<dyn BlockCallback>>,
    /// User codecs by codec id, for chunks whose header names a codec that is not built in
    /// (a list shared with other params, as [`super::registry::all_codecs`] gives it).
    pub user_codecs: Arc<[(u8, Arc<dyn UserCodec>)]>,
    /// User filters by filter id, for filter ids in a chunk header that are not built in.
    pub user_filters: Arc<[(u8, Arc<dyn UserFilter>)]>,
    /// The layout of the array this context decompresses for, when it has one.
    pub layout: Option<Arc<ArrayLayout>>,
    /// As [`CParams::schunk_typesize`] (c-blosc2's `dparams->schunk->typesize`).
    pub schunk_typesize: Option<i32>,
    /// Data of the layer above the core, passed along untouched (see [`Owner`]).
    pub owner: Option<Owner>,
}

impl Default for DParams {
    fn default() -> Self {
        DParams {
            nthreads: DPARAMS_DEFAULTS.nthreads,
            typesize: DPARAMS_DEFAULTS.typesize,
            postfilter: None,
            user_codecs: Arc::new([]),
            user_filters: Arc::new([]),
            layout: None,
            schunk_typesize: None,
            owner: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header_text::initializer;

    /// The header's `BLOSC2_CPARAMS_DEFAULTS` and `BLOSC2_DPARAMS_DEFAULTS` macros hold the
    /// values of [`CPARAMS_DEFAULTS`] and [`DPARAMS_DEFAULTS`] (pointers NULL, tuner_id 0), field
    /// by field in `blosc2_cparams`/`blosc2_dparams` order.
    #[test]
    fn header_defaults_are_the_cores() {
        let d = CPARAMS_DEFAULTS;
        let mut want: Vec<i64> = vec![
            d.compcode.into(),
            d.compcode_meta.into(),
            d.clevel.into(),
            d.use_dict.into(),
            d.typesize.into(),
            d.nthreads.into(),
            d.blocksize.into(),
            d.splitmode.into(),
            0, // schunk
        ];
        want.extend(d.filters.map(i64::from));
        want.extend(d.filters_meta.map(i64::from));
        // prefilter, preparams, tuner_params, tuner_id
        want.extend([0, 0, 0, 0, d.instr_codec.into()]);
        // codec_params, filter_params[6]
        want.extend([0; 7]);
        assert_eq!(initializer("BLOSC2_CPARAMS_DEFAULTS"), want);

        let d = DPARAMS_DEFAULTS;
        // nthreads, schunk, postfilter, postparams, typesize
        let want: Vec<i64> = vec![d.nthreads.into(), 0, 0, 0, d.typesize.into()];
        assert_eq!(initializer("BLOSC2_DPARAMS_DEFAULTS"), want);

        let p = CParams::default();
        assert_eq!((p.compcode, p.clevel, p.typesize), (0, 5, 8));
        assert_eq!((p.splitmode, p.filters), (4, [0, 0, 0, 0, 0, 1]));
        assert_eq!(
            (DParams::default().nthreads, DParams::default().typesize),
            (1, 8)
        );
    }
}
