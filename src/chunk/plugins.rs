//! The codecs and filters c-blosc2 3.3.5 registers in `blosc2_init()` that live outside the
//! chunk engine's own pipeline, with the ids and names the reference gives them. They enter the
//! registry before anything else can (see `registry::FILTERS` and `registry::CODECS`), so
//! contexts find them as any registered codec or filter.

use std::sync::Arc;

use super::params::{ArrayLayout, CParams, DParams, UserCodec, UserFilter};
use super::registry::{CodecEntry, FilterEntry};
use crate::codecs::ndlz;
use crate::filters::{int_trunc, ndcell, ndmean};
use crate::{Error, Result};

/// `BLOSC_CODEC_NDLZ`.
pub const NDLZ: u8 = 32;
/// `BLOSC_FILTER_NDCELL`.
pub const NDCELL: u8 = 32;
/// `BLOSC_FILTER_NDMEAN`.
pub const NDMEAN: u8 = 33;
/// `BLOSC_FILTER_INT_TRUNC`.
pub const INT_TRUNC: u8 = 36;

/// A filter callback's answer: 0 on success, the error's code otherwise.
fn status(result: Result<()>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(e) => e.code(),
    }
}

struct IntTrunc;

impl UserFilter for IntTrunc {
    fn forward(&self, src: &[u8], dst: &mut [u8], meta: u8, _: &CParams, _: i32, ts: i32) -> i32 {
        let typesize = usize::try_from(ts).unwrap_or(0);
        status(int_trunc::int_trunc_forward(meta as i8, typesize, src, dst))
    }

    fn backward(&self, src: &[u8], dst: &mut [u8], _: u8, _: &DParams, _: i32, _: i32) -> i32 {
        status(int_trunc::int_trunc_backward(src, dst))
    }
}

/// A filter on the cells of an n-dimensional block: (block shape, typesize, meta, src, dst).
type CellFilter = fn(&[i32], usize, u8, &[u8], &mut [u8]) -> Result<()>;

/// ndcell and ndmean: they need the layout of the array the chunk belongs to, and fail without
/// one as c-blosc2's fail without a "b2nd" metalayer. Compression takes the context's typesize,
/// decompression the super-chunk's, as the reference does.
struct Cellwise {
    forward: CellFilter,
    backward: CellFilter,
}

fn with_layout(
    layout: Option<&Arc<ArrayLayout>>,
    typesize: i32,
    run: impl FnOnce(&[i32], usize) -> Result<()>,
) -> i32 {
    let Some(layout) = layout else {
        return Error::Failure.code();
    };
    let Ok(typesize) = usize::try_from(typesize) else {
        return Error::Failure.code();
    };
    status(run(&layout.blockshape, typesize))
}

impl UserFilter for Cellwise {
    fn forward(&self, src: &[u8], dst: &mut [u8], meta: u8, p: &CParams, _: i32, _: i32) -> i32 {
        with_layout(p.layout.as_ref(), p.typesize, |shape, ts| {
            (self.forward)(shape, ts, meta, src, dst)
        })
    }

    fn backward(&self, src: &[u8], dst: &mut [u8], meta: u8, p: &DParams, _: i32, _: i32) -> i32 {
        let typesize = p.layout.as_ref().map_or(0, |l| l.typesize);
        with_layout(p.layout.as_ref(), typesize, |shape, ts| {
            (self.backward)(shape, ts, meta, src, dst)
        })
    }
}

/// The entries the registry starts with.
pub fn builtin_filters() -> Vec<FilterEntry> {
    let entry = |id, name: &str, filter: Arc<dyn UserFilter>| FilterEntry {
        id,
        name: name.into(),
        version: 1,
        filter,
    };
    vec![
        entry(
            NDCELL,
            "ndcell",
            Arc::new(Cellwise {
                forward: ndcell::ndcell_forward,
                backward: ndcell::ndcell_backward,
            }),
        ),
        entry(
            NDMEAN,
            "ndmean",
            Arc::new(Cellwise {
                forward: ndmean::ndmean_forward,
                backward: ndmean::ndmean_backward,
            }),
        ),
        entry(INT_TRUNC, "int_trunc", Arc::new(IntTrunc)),
    ]
}

/// NDLZ works on the blocks of 2-D arrays: like ndcell it needs the array's layout to compress
/// (the block shape travels in the stream, so decompression does not).
struct Ndlz;

impl UserCodec for Ndlz {
    fn encode(&self, src: &[u8], dst: &mut [u8], meta: u8, p: &CParams) -> i32 {
        let Some(layout) = p.layout.as_ref() else {
            return Error::Failure.code();
        };
        match ndlz::compress(meta, &layout.blockshape, src, dst) {
            Ok(n) => i32::try_from(n).unwrap_or(0),
            Err(e) => e.code(),
        }
    }

    fn decode(&self, src: &[u8], dst: &mut [u8], meta: u8, _: &DParams) -> i32 {
        match ndlz::decompress(meta, src, dst) {
            Ok(n) => i32::try_from(n).unwrap_or(Error::Failure.code()),
            Err(e) => e.code(),
        }
    }
}

/// The codecs the registry starts with (complib codes and versions as c-blosc2 registers them).
pub fn builtin_codecs() -> Vec<CodecEntry> {
    vec![CodecEntry {
        id: NDLZ,
        name: "ndlz".into(),
        complib: NDLZ,
        version: 1,
        codec: Arc::new(Ndlz),
    }]
}
