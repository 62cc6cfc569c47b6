//! Library-wide settings behind the blosc1-style global API (`blosc1_set_compressor`,
//! `blosc2_set_nthreads`, ...), read by the chunk engine when a call uses no explicit context.

use std::sync::Mutex;

use crate::codecs::names;
use crate::{Error, Result};

use crate::chunk::params::CPARAMS_DEFAULTS;

/// A snapshot of the global settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Compressor code; -1 after `blosc1_set_compressor` was given an unknown name (c-blosc2
    /// stores that code too, and then reports no compressor name).
    pub compcode: i32,
    /// Compression level, 0..=9. The global API's calls take the level as an argument, so
    /// nothing changes it from c-blosc2's default 5.
    pub clevel: u8,
    /// Threads for compression and decompression (`blosc2_set_nthreads`), at least 1.
    pub nthreads: i16,
    /// Forced block size in bytes; 0 lets the engine choose.
    pub blocksize: usize,
    /// One of the `*_SPLIT` modes of [`crate::chunk::params`] (`blosc1_set_splitmode`).
    pub splitmode: i32,
    /// Whether the delta filter is added (blosc2_set_delta).
    pub delta: bool,
    /// Set by blosc2_init, cleared by blosc2_destroy.
    pub initialized: bool,
}

impl Settings {
    /// c-blosc2's values before any setter is called: those of its default compression
    /// parameters.
    pub const DEFAULT: Settings = Settings {
        compcode: CPARAMS_DEFAULTS.compcode as i32,
        clevel: CPARAMS_DEFAULTS.clevel,
        nthreads: CPARAMS_DEFAULTS.nthreads,
        blocksize: 0,
        splitmode: CPARAMS_DEFAULTS.splitmode,
        delta: false,
        initialized: false,
    };
}

static SETTINGS: Mutex<Settings> = Mutex::new(Settings::DEFAULT);

/// Held by the tests that initialise or destroy the library, or need it to stay initialised
/// (initialising restarts the C layer's tuner registry).
#[cfg(test)]
pub(crate) static TEST_STATE_LOCK: Mutex<()> = Mutex::new(());

fn with<T>(f: impl FnOnce(&mut Settings) -> T) -> T {
    // A panic while holding the lock cannot leave Settings half-written (plain Copy fields), so a
    // poisoned lock is still usable.
    let mut guard = SETTINGS.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut guard)
}

/// The current settings.
pub fn settings() -> Settings {
    with(|s| *s)
}

/// Marks the library initialised. Settings made before keep their values, as in c-blosc2.
pub fn init() {
    with(|s| s.initialized = true);
}

/// Marks the library uninitialised and lets the threads of the global thread count end; the
/// settings keep their values, as in c-blosc2.
pub fn destroy() {
    with(|s| s.initialized = false);
    free_resources();
}

/// Lets the threads kept for the global thread count end (`blosc2_free_resources`); the next
/// call of the global API starts them again.
pub fn free_resources() {
    crate::chunk::release_kept_pool();
}

/// Keeps the threads of the global thread count alive between calls of the global API, as
/// c-blosc2's global context does (the global functions call this before each job).
pub fn keep_threads() -> Result<()> {
    crate::chunk::keep_pool(nthreads())
}

/// The number of threads (`blosc2_get_nthreads`).
pub fn nthreads() -> i16 {
    with(|s| s.nthreads)
}

/// Sets the number of threads and starts them (they are kept between calls, see
/// [`keep_threads`]); returns the previous number. Fails with `ThreadCreate`, the setting
/// unchanged, when the threads cannot start.
pub fn set_nthreads(nthreads: i16) -> Result<i16> {
    if nthreads <= 0 {
        return Err(Error::InvalidParam);
    }
    crate::chunk::keep_pool(nthreads)?;
    Ok(with(|s| std::mem::replace(&mut s.nthreads, nthreads)))
}

/// The compressor code (-1 after an unknown name was set).
pub fn compcode() -> i32 {
    with(|s| s.compcode)
}

/// Selects the compressor by name; returns its code.
///
/// An unknown name stores code -1 and fails with `None` (c-blosc2 returns -1 then); a known
/// plugin codec that is not built in fails with `CodecSupport` and keeps the setting.
pub fn set_compressor(name: &str) -> std::result::Result<i32, Option<Error>> {
    match names::code_of(name) {
        None => {
            with(|s| s.compcode = -1);
            Err(None)
        }
        Some(code) if !u8::try_from(code).is_ok_and(crate::codecs::is_builtin) => {
            Err(Some(Error::CodecSupport))
        }
        Some(code) => {
            with(|s| s.compcode = code);
            Ok(code)
        }
    }
}

/// The compression level.
pub fn clevel() -> u8 {
    with(|s| s.clevel)
}

/// The forced block size in bytes (0 = automatic; `blosc1_get_blocksize`).
pub fn blocksize() -> usize {
    with(|s| s.blocksize)
}

/// Forces the block size in bytes, 0 for automatic (`blosc1_set_blocksize`).
pub fn set_blocksize(blocksize: usize) {
    with(|s| s.blocksize = blocksize);
}

/// The split mode.
pub fn splitmode() -> i32 {
    with(|s| s.splitmode)
}

/// Sets the split mode (`blosc1_set_splitmode`); not checked, as in c-blosc2.
pub fn set_splitmode(splitmode: i32) {
    with(|s| s.splitmode = splitmode);
}

/// Whether the delta filter is added.
pub fn delta() -> bool {
    with(|s| s.delta)
}

/// Adds (or stops adding) the delta filter to the global API's pipeline (`blosc2_set_delta`).
pub fn set_delta(delta: bool) {
    with(|s| s.delta = delta);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The threads of the global thread count outlive the contexts that use them, until
    /// free_resources or destroy (or another count), and the global API starts them again.
    #[test]
    fn the_global_thread_count_keeps_its_threads() {
        let _state = TEST_STATE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        // An unusual count, so that no other test holds a pool of this size.
        const N: i16 = 13;
        let holders = || {
            let pool = crate::chunk::make_pool(N).unwrap().unwrap();
            std::sync::Arc::strong_count(&pool) - 1
        };
        let before = set_nthreads(N).unwrap();
        assert_eq!(holders(), 1, "set_nthreads keeps the pool");
        // A context takes the pool at its first job (as c-blosc2 starts a context's threads),
        // finds the same one, and leaves it running when dropped.
        let c = crate::chunk::Compressor::new(crate::chunk::CParams {
            nthreads: N,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(holders(), 1, "no job yet");
        let src = vec![7u8; 1 << 20];
        let mut dst = vec![0u8; src.len() + crate::chunk::header::MAX_OVERHEAD];
        assert!(c.compress(&src, &mut dst).unwrap() > 0);
        assert_eq!(holders(), 2);
        drop(c);
        assert_eq!(holders(), 1);
        free_resources();
        assert_eq!(holders(), 0);
        keep_threads().unwrap();
        assert_eq!(holders(), 1, "the global API keeps them again");
        destroy();
        assert_eq!(holders(), 0);
        init();
        keep_threads().unwrap();
        assert_eq!(set_nthreads(1), Ok(N));
        assert_eq!(holders(), 0, "another count lets them end");
        set_nthreads(before).unwrap();
    }

    /// One test touches the process-wide state so that parallel tests cannot interfere.
    #[test]
    fn setters_and_getters() {
        let _state = TEST_STATE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        init();
        assert!(settings().initialized);
        assert_eq!(set_nthreads(4), Ok(1));
        assert_eq!(nthreads(), 4);
        assert_eq!(set_nthreads(0), Err(Error::InvalidParam));
        assert_eq!(set_nthreads(-3), Err(Error::InvalidParam));
        assert_eq!(set_nthreads(1), Ok(4));

        assert_eq!(set_compressor("zstd"), Ok(5));
        assert_eq!(compcode(), 5);
        assert_eq!(set_compressor("ndlz"), Err(Some(Error::CodecSupport)));
        assert_eq!(compcode(), 5);
        assert_eq!(set_compressor("nope"), Err(None));
        assert_eq!(compcode(), -1);
        assert_eq!(set_compressor("blosclz"), Ok(0));

        set_blocksize(4096);
        assert_eq!(blocksize(), 4096);
        set_blocksize(0);
        set_splitmode(1);
        assert_eq!(splitmode(), 1);
        set_splitmode(crate::chunk::params::FORWARD_COMPAT_SPLIT);
        set_delta(true);
        assert!(delta());
        set_delta(false);
        assert_eq!(clevel(), 5);

        destroy();
        assert_eq!(
            settings(),
            Settings {
                initialized: false,
                ..Settings::DEFAULT
            }
        );
    }
}
