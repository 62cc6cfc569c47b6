//! Extension points: registering codecs and filters from C.

use libc::c_int;

use crate::capi::callbacks::{CCodec, CFilter};
use crate::capi::ffi::{c_str_lossy, entry};
use crate::capi::types::*;
use crate::chunk::registry;
use crate::Error;

/// Registers a user codec: its `compcode` (from `BLOSC2_USER_REGISTERED_CODECS_START`), name,
/// library code, version and encoder/decoder callbacks are copied, so `*codec` may go away. The
/// codec can then be selected through `cparams.compcode`. Registering the same codec again is
/// accepted (under the same name). Returns 0, or a negative code (BLOSC2_ERROR_INVALID_PARAM for
/// NULL, BLOSC2_ERROR_CODEC_PARAM for a reserved code or one taken by another codec,
/// BLOSC2_ERROR_CODEC_SUPPORT when the registry is full).
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_codec(codec: *mut blosc2_codec) -> c_int {
    entry(|| {
        // SAFETY: codec is NULL or points to a blosc2_codec, per the API.
        let c = unsafe { codec.as_ref() }.ok_or(Error::InvalidParam)?;
        // SAFETY: compname is NULL or a C string, per the API.
        let name = unsafe { c_str_lossy(c.compname) };
        registry::register_codec(registry::CodecEntry {
            id: c.compcode,
            name: name.clone(),
            complib: c.complib,
            version: c.version,
            codec: std::sync::Arc::new(CCodec::new(name, c.encoder, c.decoder)),
        })?;
        Ok(0)
    })
}

/// Registers a user filter: its `id` (from `BLOSC2_USER_REGISTERED_FILTERS_START`), name, version
/// and forward/backward callbacks are copied, so `*filter` may go away. The filter can then be
/// placed in `cparams.filters`. Registering the same id under the same name again is accepted.
/// Returns 0, or a negative code (BLOSC2_ERROR_INVALID_PARAM for
/// NULL, BLOSC2_ERROR_FAILURE for a reserved id or one taken by another filter,
/// BLOSC2_ERROR_CODEC_SUPPORT when the registry is full).
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_filter(filter: *mut blosc2_filter) -> c_int {
    entry(|| {
        // SAFETY: filter is NULL or points to a blosc2_filter, per the API.
        let f = unsafe { filter.as_ref() }.ok_or(Error::InvalidParam)?;
        // SAFETY: name is NULL or a C string, per the API.
        let name = unsafe { c_str_lossy(f.name) };
        registry::register_filter(registry::FilterEntry {
            id: f.id,
            name: name.clone(),
            version: f.version,
            filter: std::sync::Arc::new(CFilter::new(f.id, name, f.forward, f.backward)),
        })?;
        Ok(0)
    })
}
