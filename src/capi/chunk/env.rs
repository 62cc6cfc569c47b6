//! The BLOSC_* environment variables c-blosc2 reads into the parameters of the global functions and of new contexts.

use std::ffi::CStr;

use libc::c_int;

use crate::capi::types::*;
use crate::chunk::params::{ALWAYS_SPLIT, AUTO_SPLIT, FORWARD_COMPAT_SPLIT, NEVER_SPLIT};
use crate::codecs::names;
use crate::schunk::env::{CompressEnv, EnvFields};

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

/// The value of the environment variable `name`, read with `getenv` as c-blosc2 reads it
/// (through `std::env` each look made and freed a copy of the name).
fn getenv(name: &CStr) -> Option<String> {
    // SAFETY: name is NUL-terminated; getenv returns NULL or a NUL-terminated string, which is
    // copied at once (as c-blosc2 reads it at once).
    unsafe {
        let v = libc::getenv(name.as_ptr());
        (!v.is_null()).then(|| CStr::from_ptr(v).to_string_lossy().into_owned())
    }
}

/// Whether the environment variable `name` is set (read with `getenv`, as c-blosc2 reads it).
pub(crate) fn env_is_set(name: &CStr) -> bool {
    getenv(name).is_some()
}

/// c-blosc2's report of what its automatic tuner chose, printed to stderr when BLOSC_INFO is set
/// (looked up at every compression, as c-blosc2 does); the core calls it (see
/// `chunk::compress::set_tuning_report`).
pub(crate) fn print_tuning_info(c: &crate::chunk::compress::TuningChoice) {
    if env_is_set(c"BLOSC_INFO") {
        crate::capi::ffi::stderr_line(format_args!(
            "[INFO] - compcode: {}, clevel: {}, blocksize: {}, splitmode: {}, typesize: {}",
            c.compcode, c.clevel, c.blocksize, c.splitmode, c.typesize
        ));
    }
}

/// Whether any environment variable's name starts with `BLOSC_`.
#[cfg(unix)]
fn blosc_vars_set() -> bool {
    extern "C" {
        static environ: *const *const libc::c_char;
    }
    const PREFIX: &[u8] = b"BLOSC_";
    // SAFETY: environ is NULL or a NULL-terminated array of NUL-terminated strings, read here
    // as getenv reads it (without a lock: changing the environment while another thread reads
    // it is the caller's race, with getenv as with this); each string is read only up to its
    // NUL, since the comparison stops at the first byte that differs from the prefix.
    unsafe {
        let mut entry = environ;
        if entry.is_null() {
            return false;
        }
        while !(*entry).is_null() {
            let s = (*entry).cast::<u8>();
            if PREFIX.iter().enumerate().all(|(i, &b)| *s.add(i) == b) {
                return true;
            }
            entry = entry.add(1);
        }
    }
    false
}

/// Elsewhere: every lookup goes to `getenv`.
#[cfg(not(unix))]
fn blosc_vars_set() -> bool {
    true
}

/// The environment as one call of the library reads it. Context creation and the global
/// functions look up eight BLOSC_* variables on every call (as c-blosc2 3.3.5 does); without
/// any set (the usual case) one pass over the environment answers for all of them, where each
/// `getenv` walks it again (eight walks were half of what a context create + free pair cost).
#[derive(Clone, Copy)]
pub(super) struct BloscEnv {
    any: bool,
}

impl BloscEnv {
    /// The environment now.
    pub(super) fn now() -> BloscEnv {
        BloscEnv {
            any: blosc_vars_set(),
        }
    }

    /// The value of the variable `name` (a BLOSC_* name).
    pub(super) fn var(self, name: &CStr) -> Option<String> {
        if self.any {
            getenv(name)
        } else {
            None
        }
    }

    /// A numeric variable's value when it satisfies `ok`.
    pub(super) fn int(self, name: &CStr, ok: impl Fn(i64) -> bool) -> Option<i64> {
        self.var(name).map(|v| leading_int(&v)).filter(|&v| ok(v))
    }

    /// BLOSC_SHUFFLE: the shuffle it names, None when unset or not recognised.
    pub(super) fn shuffle(self) -> Option<c_int> {
        match self.var(c"BLOSC_SHUFFLE")?.as_str() {
            "NOSHUFFLE" => Some(0),
            "SHUFFLE" => Some(1),
            "BITSHUFFLE" => Some(2),
            _ => None,
        }
    }

    /// BLOSC_DELTA: Some(true/false) for "1"/"0", None otherwise.
    pub(super) fn delta(self) -> Option<bool> {
        match self.var(c"BLOSC_DELTA")?.as_str() {
            "1" => Some(true),
            "0" => Some(false),
            _ => None,
        }
    }

    /// BLOSC_SPLITMODE: the split mode it names.
    pub(super) fn splitmode(self) -> Option<i32> {
        match self.var(c"BLOSC_SPLITMODE")?.as_str() {
            "ALWAYS" => Some(ALWAYS_SPLIT),
            "NEVER" => Some(NEVER_SPLIT),
            "AUTO" => Some(AUTO_SPLIT),
            "FORWARD_COMPAT" => Some(FORWARD_COMPAT_SPLIT),
            _ => None,
        }
    }

    /// BLOSC_NTHREADS, honoured when positive.
    pub(super) fn nthreads(self) -> Option<i16> {
        self.int(c"BLOSC_NTHREADS", |v| v > 0).map(|v| v as i16)
    }
}

/// BLOSC_NTHREADS when set to a positive count: the thread count c-blosc2's
/// `blosc2_create_cctx`/`blosc2_create_dctx` give every context they make, the contexts of
/// super-chunks (made, opened, copied) included.
pub(crate) fn env_nthreads() -> Option<i16> {
    BloscEnv::now().nthreads()
}

/// What `blosc2_create_cctx` takes from the environment now (c-blosc2 3.3.5 reads it on every
/// context creation, the contexts of super-chunks included): read once, applied to any number
/// of parameter sets (see [`CompressEnv`]).
pub(crate) fn cctx_env() -> CompressEnv {
    let env = BloscEnv::now();
    if !env.any {
        return CompressEnv::UNSET;
    }
    CompressEnv {
        typesize: env.int(c"BLOSC_TYPESIZE", |v| v > 0).map(|v| v as i32),
        shuffle: env.shuffle().unwrap_or(-1),
        delta: env.delta() == Some(true),
        clevel: env.int(c"BLOSC_CLEVEL", |v| v >= 0).map(|v| v as u8),
        compcode: env
            .var(c"BLOSC_COMPRESSOR")
            .map(|name| names::code_of(&name).unwrap_or(-1) as u8),
        blocksize: env.int(c"BLOSC_BLOCKSIZE", |v| v > 0).map(|v| v as i32),
        nthreads: env.nthreads(),
        splitmode: env.splitmode(),
    }
}

/// Applies `env` to C parameters, as `blosc2_create_cctx` does (the core's
/// [`CompressEnv::apply_to`] on the C struct's fields).
pub(crate) fn apply_env_to_c(env: &CompressEnv, c: &mut blosc2_cparams) {
    env.apply_to(EnvFields {
        typesize: &mut c.typesize,
        filters: &mut c.filters,
        clevel: &mut c.clevel,
        compcode: &mut c.compcode,
        blocksize: &mut c.blocksize,
        nthreads: &mut c.nthreads,
        splitmode: &mut c.splitmode,
    });
}

/// What `blosc2_create_cctx` takes from the environment, applied to the caller's cparams.
pub(super) fn apply_cctx_env(c: &mut blosc2_cparams) {
    apply_env_to_c(&cctx_env(), c);
}
