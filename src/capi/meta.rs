//! Metalayers (fixed-size, in the frame header) and vlmetalayers (compressed, in the trailer)
//! of a super-chunk. `blosc2_meta_exists`/`blosc2_meta_get` are inline in blosc2.h and read
//! the mirror's `metalayers[]`, which `super::schunk` keeps in sync.

use std::ptr;

use libc::{c_char, c_int};

use crate::capi::ffi::{c_str, entry, in_slice, malloc_copy};
use crate::capi::params::cparams_from_c;
use crate::capi::schunk::{change_shared_frame, read_shared_frame, schunk_mut, sync_mirror};
use crate::capi::types::*;
use crate::schunk::Schunk;
use crate::{Error, Result};

fn index(i: usize) -> Result<c_int> {
    c_int::try_from(i).map_err(|_| Error::Failure)
}

/// A metalayer name argument.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string.
unsafe fn name_arg<'a>(name: *const c_char) -> Result<&'a str> {
    if name.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: forwarded contract.
    unsafe { c_str(name) }.ok_or(Error::InvalidParam)
}

/// `len` bytes of metalayer content at `p` (NULL only with a zero length).
///
/// # Safety
/// `p` is NULL or holds `len` readable bytes.
unsafe fn content_arg<'a>(p: *const u8, len: i32) -> Result<&'a [u8]> {
    // c-blosc2 answers a NULL content with a positive length as a bad parameter.
    // SAFETY: forwarded contract.
    unsafe { in_slice(p, len) }.map_err(|_| Error::InvalidParam)
}

/// Runs a metadata change (under the frame lock; a vlmetalayer change first re-reads a frame
/// another handle changed, as c-blosc2 does) and re-syncs the mirror.
///
/// # Safety
/// `schunk` is NULL or a live handle, not used concurrently.
unsafe fn change(
    schunk: *mut blosc2_schunk,
    resync: bool,
    f: impl FnOnce(&mut Schunk) -> Result<usize>,
) -> Result<c_int> {
    // SAFETY: forwarded contract.
    index(unsafe { change_shared_frame(schunk, |_| resync, f) }?)
}

/// Adds the fixed-size metalayer `name` (at most `BLOSC2_METALAYER_NAME_MAXLEN` characters) to
/// `schunk`, with a copy of the `content_len` bytes at `content` (the caller keeps its buffer).
/// A frame-backed super-chunk accepts metalayers only before its first chunk. Returns the new
/// metalayer's index, or a negative code: BLOSC2_ERROR_NULL_POINTER for a NULL `schunk`,
/// BLOSC2_ERROR_INVALID_PARAM for a bad or duplicate name, too many metalayers (more than
/// `BLOSC2_MAX_METALAYERS`) or data already present, or the error of rewriting the frame.
#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
) -> c_int {
    entry(|| {
        // SAFETY: name a C string, content holds content_len bytes, per the API.
        let (name, content) = unsafe { (name_arg(name)?, content_arg(content, content_len)?) };
        // SAFETY: schunk is NULL or live per the API.
        unsafe { change(schunk, false, |s| s.meta_add(name, content)) }
    })
}

/// Overwrites the start of the existing metalayer `name` with the `content_len` bytes at
/// `content` (copied). The content cannot grow: a longer `content_len` than the metalayer's is
/// BLOSC2_ERROR_INVALID_PARAM. Returns the metalayer's index, or a negative code:
/// BLOSC2_ERROR_NOT_FOUND when there is no such metalayer, BLOSC2_ERROR_NULL_POINTER for a NULL
/// `schunk`, or the error of rewriting the frame.
#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
) -> c_int {
    entry(|| {
        // SAFETY: as in meta_add.
        let (name, content) = unsafe { (name_arg(name)?, content_arg(content, content_len)?) };
        // c-blosc2 rewrites the header without the frame lock: other handles are not told
        // (the generation counter stays).
        // SAFETY: schunk is NULL or live per the API, not used concurrently.
        let s = unsafe { schunk_mut(schunk) }.ok_or(Error::NullPointer)?;
        let r = s.meta_update(name, content);
        // SAFETY: as above.
        unsafe { sync_mirror(schunk) };
        index(r?)
    })
}

/// The index of the variable-length metalayer `name` in `schunk`, or BLOSC2_ERROR_NOT_FOUND when
/// there is none (BLOSC2_ERROR_NULL_POINTER / BLOSC2_ERROR_INVALID_PARAM for bad arguments). A
/// frame another handle changed is re-read first.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_exists(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
) -> c_int {
    entry(|| {
        // SAFETY: name is a C string per the API.
        let name = unsafe { name_arg(name) }?;
        // SAFETY: schunk is NULL or live per the API.
        index(unsafe { read_shared_frame(schunk, |_| true, |s| s.vlmeta_exists(name)) }?)
    })
}

/// The core parameters for a vlmetalayer's compression (NULL: defaults).
///
/// # Safety
/// `cparams` is NULL or valid.
unsafe fn vl_cparams(cparams: *const blosc2_cparams) -> Option<crate::chunk::CParams> {
    // SAFETY: forwarded contract.
    unsafe { cparams.as_ref() }.map(cparams_from_c)
}

/// Adds the variable-length metalayer `name` to `schunk`: the `content_len` bytes at `content`
/// are compressed with `cparams` (NULL: the library defaults) and stored; the caller keeps both
/// buffers. Unlike fixed metalayers, vlmetalayers can be added at any time. Returns the new
/// vlmetalayer's index, or a negative code: BLOSC2_ERROR_INVALID_PARAM for a bad or duplicate
/// name or too many vlmetalayers (more than `BLOSC2_MAX_VLMETALAYERS`), BLOSC2_ERROR_NULL_POINTER
/// for a NULL `schunk`, or a compression or frame-writing error.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    entry(|| {
        // SAFETY: as in meta_add; cparams NULL or valid.
        let (name, content, cp) = unsafe {
            (
                name_arg(name)?,
                content_arg(content, content_len)?,
                vl_cparams(cparams),
            )
        };
        // SAFETY: schunk is NULL or live per the API.
        unsafe { change(schunk, true, |s| s.vlmeta_add(name, content, cp.as_ref())) }
    })
}

/// Replaces the content of the existing variable-length metalayer `name` with the `content_len`
/// bytes at `content`, compressed with `cparams` (NULL: the library defaults). The size may
/// change. Returns the vlmetalayer's index, or a negative code (BLOSC2_ERROR_NOT_FOUND when there
/// is no such vlmetalayer, BLOSC2_ERROR_NULL_POINTER, or a compression or frame-writing error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    entry(|| {
        // SAFETY: as in vlmeta_add.
        let (name, content, cp) = unsafe {
            (
                name_arg(name)?,
                content_arg(content, content_len)?,
                vl_cparams(cparams),
            )
        };
        // SAFETY: schunk is NULL or live per the API.
        unsafe {
            change(schunk, true, |s| {
                s.vlmeta_update(name, content, cp.as_ref())
            })
        }
    })
}

/// Decompresses the variable-length metalayer `name` of `schunk` into a new buffer: `*content`
/// receives it and `*content_len` its length in bytes. The buffer is allocated with malloc; the
/// caller releases it with free(). Returns the vlmetalayer's index, or a negative code
/// (BLOSC2_ERROR_NOT_FOUND, BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_MEMORY_ALLOC, or a
/// decompression error); on error `*content` is not set.
///
/// The content is malloc'd (the caller frees it), as in c-blosc2.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut *mut u8,
    content_len: *mut i32,
) -> c_int {
    entry(|| {
        // SAFETY: name is a C string per the API.
        let name = unsafe { name_arg(name) }?;
        if schunk.is_null() || content.is_null() || content_len.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: schunk is live per the API.
        let (i, data) = unsafe {
            read_shared_frame(
                schunk,
                |_| true,
                |s| Ok((s.vlmeta_exists(name)?, s.vlmeta_get(name)?)),
            )
        }?;
        let len = i32::try_from(data.len()).map_err(|_| Error::MaxBufsizeExceeded)?;
        let p = malloc_copy(&data)?;
        // SAFETY: outputs writable per the API.
        unsafe {
            *content = p;
            *content_len = len;
        }
        index(i)
    })
}

/// Removes the variable-length metalayer `name` from `schunk`. Returns the number of
/// vlmetalayers left, or a negative code (BLOSC2_ERROR_NOT_FOUND when there is no such
/// vlmetalayer, BLOSC2_ERROR_NULL_POINTER, or a frame-writing error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_delete(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
) -> c_int {
    entry(|| {
        // SAFETY: name a C string per the API.
        let name = unsafe { name_arg(name) }?;
        // SAFETY: schunk is NULL or live per the API.
        unsafe { change(schunk, true, |s| s.vlmeta_delete(name)) }
    })
}

/// Variable-length metalayer names of `schunk`.
///
/// `names` must have room for `schunk->nvlmetalayers` pointers. The pointers are the super-chunk's
/// own strings, not copies: do not free them, and do not use them after the super-chunk changes
/// its vlmetalayers or is freed. Returns the number of names written, or
/// BLOSC2_ERROR_NULL_POINTER.
///
/// Fills `names[0..nvlmetalayers]` with the names the super-chunk keeps (not copies, as in
/// c-blosc2); returns how many.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get_names(
    schunk: *mut blosc2_schunk,
    names: *mut *mut c_char,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or a live handle per the API; its mirror is in sync.
        let m = unsafe { schunk.as_ref() }.ok_or(Error::NullPointer)?;
        let n = m.nvlmetalayers.max(0) as usize;
        if n > 0 && names.is_null() {
            return Err(Error::NullPointer);
        }
        for (i, entry) in m.vlmetalayers.iter().take(n).enumerate() {
            // SAFETY: entries are NULL or malloc'd metalayers; names holds n slots per the API.
            unsafe {
                *names.add(i) = entry.as_ref().map_or(ptr::null_mut(), |e| e.name);
            }
        }
        index(n)
    })
}
