//! The codecs and filters c-blosc2 3.3.5 registers in `blosc2_init()` that live outside the
//! chunk engine's own pipeline, with the ids and names the reference gives them. They enter the
//! registry before anything else can (see `registry::FILTERS` and `registry::CODECS`), so
//! contexts find them as any registered codec or filter.

use std::sync::Arc;

use super::params::{
    ArrayLayout, CParams, CodecEntry, DParams, FilterEntry, UserCodec, UserFilter,
};
use crate::codecs::names::{self as codec_names, Provider as CodecProvider};
use crate::codecs::{ndlz, zfp, NDLZ, ZFP_ACC, ZFP_PREC, ZFP_RATE};
use crate::filters::names::{self as filter_names, Provider as FilterProvider};
use crate::filters::names::{INT_TRUNC, NDCELL, NDMEAN};
use crate::filters::{int_trunc, ndcell, ndmean};
use crate::{Error, Result};

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

/// The implementation of a filter the registry starts with.
fn initial_filter(id: u8) -> Option<Arc<dyn UserFilter>> {
    Some(match id {
        NDCELL => Arc::new(Cellwise {
            forward: ndcell::ndcell_forward,
            backward: ndcell::ndcell_backward,
        }),
        NDMEAN => Arc::new(Cellwise {
            forward: ndmean::ndmean_forward,
            backward: ndmean::ndmean_backward,
        }),
        INT_TRUNC => Arc::new(IntTrunc),
        _ => return None,
    })
}

/// The filters the registry starts with: those of [`filter_names::FILTERS`] registered at
/// start-up, with their names there.
pub fn initial_filters() -> Vec<FilterEntry> {
    let registered = filter_names::FILTERS
        .iter()
        .filter(|f| f.provider == FilterProvider::Registered);
    registered
        .filter_map(|f| {
            Some(FilterEntry {
                id: f.id,
                name: f.name.into(),
                version: 1,
                filter: initial_filter(f.id)?,
            })
        })
        .collect()
}

/// NDLZ works on the blocks of 2-D arrays: like ndcell it needs the array's layout to compress
/// (the block shape travels in the stream, so decompression does not).
struct Ndlz;

impl UserCodec for Ndlz {
    fn encode(&self, src: &[u8], dst: &mut [u8], meta: u8, p: &CParams, _: &[u8]) -> i32 {
        let Some(layout) = p.layout.as_ref() else {
            return Error::Failure.code();
        };
        match ndlz::compress(meta, &layout.blockshape, src, dst) {
            Ok(n) => i32::try_from(n).unwrap_or(0),
            Err(e) => e.code(),
        }
    }

    fn decode(&self, src: &[u8], dst: &mut [u8], meta: u8, _: &DParams, _: &[u8], _: i32) -> i32 {
        match ndlz::decompress(meta, src, dst) {
            Ok(n) => i32::try_from(n).unwrap_or(Error::Failure.code()),
            Err(e) => e.code(),
        }
    }
}

/// The three zfp modes: each block is one zfp field shaped as the array's blocks, so both
/// directions need the layout (compression takes the context's typesize, decompression the
/// super-chunk's, as the reference does).
struct Zfp {
    mode: fn(u8) -> zfp::Mode,
}

fn codec_result(result: Result<usize>) -> i32 {
    match result {
        Ok(n) => i32::try_from(n).unwrap_or(Error::Failure.code()),
        Err(e) => e.code(),
    }
}

impl UserCodec for Zfp {
    fn encode(&self, src: &[u8], dst: &mut [u8], meta: u8, p: &CParams, _: &[u8]) -> i32 {
        // Outside an array c-blosc2's zfp answers 0 (unlike ndlz): the block is stored raw.
        let Some(layout) = p.layout.as_ref() else {
            return 0;
        };
        let Ok(typesize) = usize::try_from(p.typesize) else {
            return Error::Failure.code();
        };
        // A split stream (BLOSC_ALWAYS_SPLIT) holds one byte of each item: zfp cannot code it,
        // and c-blosc2 ends up storing such a chunk uncompressed; 0 does the same here.
        let block_bytes = layout
            .blockshape
            .iter()
            .try_fold(typesize, |n, &d| n.checked_mul(usize::try_from(d).ok()?));
        if block_bytes.is_some_and(|n| n != src.len()) && p.splitmode == super::params::ALWAYS_SPLIT
        {
            return 0;
        }
        let mode = (self.mode)(meta);
        // 0 (not smaller than the input) has the chunk engine store the block raw.
        codec_result(zfp::compress(mode, &layout.blockshape, typesize, src, dst))
    }

    fn decode(&self, src: &[u8], dst: &mut [u8], meta: u8, p: &DParams, _: &[u8], _: i32) -> i32 {
        // As c-blosc2's zfp: 0 bytes decoded outside an array (the block is then in error).
        let Some(layout) = p.layout.as_ref() else {
            return 0;
        };
        let Ok(typesize) = usize::try_from(layout.typesize) else {
            return Error::Failure.code();
        };
        let mode = (self.mode)(meta);
        codec_result(zfp::decompress(
            mode,
            &layout.blockshape,
            typesize,
            src,
            dst,
        ))
    }
}

/// The implementation of a codec the registry starts with.
fn initial_codec(id: u8) -> Option<Arc<dyn UserCodec>> {
    let zfp = |mode| Arc::new(Zfp { mode }) as Arc<dyn UserCodec>;
    Some(match id {
        NDLZ => Arc::new(Ndlz),
        ZFP_ACC => zfp(|m| zfp::Mode::Accuracy(m as i8)),
        ZFP_PREC => zfp(zfp::Mode::Precision),
        ZFP_RATE => zfp(zfp::Mode::Rate),
        _ => return None,
    })
}

/// The codecs the registry starts with: those of [`codec_names::CODECS`] registered at start-up
/// with their functions, with their names there (complib codes and versions as c-blosc2
/// registers them).
pub fn initial_codecs() -> Vec<CodecEntry> {
    let registered = codec_names::CODECS
        .iter()
        .filter(|c| c.provider == CodecProvider::Registered);
    registered
        .filter_map(|c| {
            Some(CodecEntry {
                id: c.id,
                name: c.name.into(),
                complib: c.id,
                version: 1,
                codec: initial_codec(c.id)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every codec and filter the tables say are registered at start-up has its implementation
    /// here, and nothing else is registered.
    #[test]
    fn the_tables_registered_entries_all_have_implementations() {
        let codecs: Vec<u8> = initial_codecs().iter().map(|e| e.id).collect();
        assert_eq!(codecs, [NDLZ, ZFP_ACC, ZFP_PREC, ZFP_RATE]);
        let filters: Vec<u8> = initial_filters().iter().map(|e| e.id).collect();
        assert_eq!(filters, [NDCELL, NDMEAN, INT_TRUNC]);
        let names: Vec<String> = initial_filters().into_iter().map(|e| e.name).collect();
        assert_eq!(names, ["ndcell", "ndmean", "int_trunc"]);
        assert!(initial_codec(36).is_none() && initial_filter(35).is_none());
    }
}
