//! The filters c-blosc2 3.3.5 registers in `blosc2_init()` that live outside the chunk engine's
//! own pipeline, with the ids and names the reference gives them. They enter the registry
//! before anything else can (see `registry::FILTERS`), so contexts find them as any
//! registered filter.

use std::sync::Arc;

use super::params::{CParams, DParams, UserFilter};
use super::registry::FilterEntry;
use crate::filters::int_trunc;
use crate::Result;

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

/// The entries the registry starts with.
pub fn builtin_filters() -> Vec<FilterEntry> {
    vec![FilterEntry {
        id: INT_TRUNC,
        name: "int_trunc".into(),
        version: 1,
        filter: Arc::new(IntTrunc),
    }]
}
