//! The BLOSC_* environment variables c-blosc2 reads into the parameters of the global functions and of new contexts.

use std::ffi::CStr;

use libc::c_int;

use crate::capi::types::*;
use crate::chunk::header::NOFILTER;
use crate::chunk::params::{ALWAYS_SPLIT, AUTO_SPLIT, FORWARD_COMPAT_SPLIT, NEVER_SPLIT};
use crate::codecs::names;

/// `strtol(s, NULL, 10)` as c-blosc2 uses it: the leading integer of `s`, 0 when there is none.
pub(super) fn leading_int(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        v = v.saturating_mul(10).saturating_add((b - b'0') as i64);
    }
    if neg {
        -v
    } else {
        v
    }
}

/// The value of the environment variable `name`, read with `getenv` as c-blosc2 reads it (the
/// global functions and context creation look at several variables on every call: through
/// `std::env` each look made and freed a copy of the name).
pub(super) fn env(name: &CStr) -> Option<String> {
    // SAFETY: name is NUL-terminated; getenv returns NULL or a NUL-terminated string, which is
    // copied at once (as c-blosc2 reads it at once).
    unsafe {
        let v = libc::getenv(name.as_ptr());
        (!v.is_null()).then(|| CStr::from_ptr(v).to_string_lossy().into_owned())
    }
}

/// BLOSC_SHUFFLE: the shuffle it names, None when unset or not recognised.
pub(super) fn env_shuffle() -> Option<c_int> {
    match env(c"BLOSC_SHUFFLE")?.as_str() {
        "NOSHUFFLE" => Some(0),
        "SHUFFLE" => Some(1),
        "BITSHUFFLE" => Some(2),
        _ => None,
    }
}

/// BLOSC_DELTA: Some(true/false) for "1"/"0", None otherwise.
pub(super) fn env_delta() -> Option<bool> {
    match env(c"BLOSC_DELTA")?.as_str() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// BLOSC_SPLITMODE: the split mode it names.
pub(super) fn env_splitmode() -> Option<i32> {
    match env(c"BLOSC_SPLITMODE")?.as_str() {
        "ALWAYS" => Some(ALWAYS_SPLIT),
        "NEVER" => Some(NEVER_SPLIT),
        "AUTO" => Some(AUTO_SPLIT),
        "FORWARD_COMPAT" => Some(FORWARD_COMPAT_SPLIT),
        _ => None,
    }
}

/// A numeric variable's value when it satisfies `ok`.
pub(super) fn env_int(name: &CStr, ok: impl Fn(i64) -> bool) -> Option<i64> {
    env(name).map(|v| leading_int(&v)).filter(|&v| ok(v))
}

/// BLOSC_NTHREADS, honoured when positive.
pub(super) fn env_nthreads() -> Option<i16> {
    env_int(c"BLOSC_NTHREADS", |v| v > 0).map(|v| v as i16)
}

/// The filter pipeline the blosc1-style `doshuffle` and delta flags stand for (c-blosc2 puts
/// the shuffle last and DELTA just before it; byte shuffle is dropped for 1-byte items).
pub(super) fn build_filters(doshuffle: c_int, delta: bool, typesize: i32, filters: &mut [u8; 6]) {
    match doshuffle {
        1 if typesize > 1 => filters[5] = 1,
        2 => filters[5] = 2,
        0 => filters[5] = NOFILTER,
        _ => {}
    }
    if delta {
        filters[4] = crate::chunk::header::DELTA;
    }
}

/// What `blosc2_create_cctx` takes from the environment, applied to the caller's cparams
/// (c-blosc2 3.3.5 reads these on every context creation).
pub(super) fn apply_cctx_env(c: &mut blosc2_cparams) {
    if let Some(v) = env_int(c"BLOSC_TYPESIZE", |v| v > 0) {
        c.typesize = v as i32;
    }
    build_filters(
        env_shuffle().unwrap_or(-1),
        env_delta() == Some(true),
        c.typesize,
        &mut c.filters,
    );
    if let Some(v) = env_int(c"BLOSC_CLEVEL", |v| v >= 0) {
        c.clevel = v as u8;
    }
    if let Some(name) = env(c"BLOSC_COMPRESSOR") {
        c.compcode = names::code_of(&name).unwrap_or(-1) as u8;
    }
    if let Some(v) = env_int(c"BLOSC_BLOCKSIZE", |v| v > 0) {
        c.blocksize = v as i32;
    }
    if let Some(n) = env_nthreads() {
        c.nthreads = n;
    }
    if let Some(s) = env_splitmode() {
        c.splitmode = s;
    }
}
