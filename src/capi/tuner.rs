//! Tuners (`blosc2_register_tuner`): the process-wide registry of C tuners and the adapter that
//! turns one into the core's [`Tuner`] hook.
//!
//! What c-blosc2 3.3.5 does with a tuner named by `cparams.tuner_id` (> 0), and so what we do:
//! - `blosc2_create_cctx` calls `init(cparams.tuner_params, cctx, NULL)`; a negative answer, an
//!   unregistered id or a NULL `init` gives a NULL context.
//! - every compression through the context (`blosc2_compress_ctx`, `blosc2_vlcompress_ctx`,
//!   the super-chunk and b2nd functions that compress through `schunk->cctx`, the special-value
//!   chunk functions) first calls `next_blocksize(cctx)`; a negative answer fails the
//!   compression with `BLOSC2_ERROR_TUNER`, a NULL `next_blocksize` with `BLOSC2_ERROR_FAILURE`.
//! - `next_cparams`, `update` and `free` are never called: c-blosc2 calls them only once the
//!   tuner has stored a pointer in its private context (`cctx->tuner_params`), which a tuner
//!   written against the public headers cannot do, and neither can one here.
//!
//! Where c-blosc2 finds a NULL callback it tries to load a plugin (`libblosc2_<name>.so`, then a
//! path printed by running `python -c "import blosc2_<name>"`). We never load code by name or
//! start processes: a NULL callback answers as a plugin that could not be loaded.
//!
//! The registry is emptied when the library is initialised (c-blosc2's `blosc2_init` restarts
//! it with only the `btune` plugin entry, id 32), so tuners are registered after `blosc2_init`.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use libc::{c_int, c_void};

use crate::capi::ffi::{entry, name_of};
use crate::capi::types::*;
use crate::chunk::params::{CParams, Tuner};
use crate::{Error, Result};

type InitFn =
    unsafe extern "C" fn(*mut c_void, *mut blosc2_context_s, *mut blosc2_context_s) -> c_int;
type NextBlocksizeFn = unsafe extern "C" fn(*mut blosc2_context_s) -> c_int;

/// First id a user may register (BLOSC2_USER_REGISTERED_TUNER_START).
const USER_REGISTERED_START: c_int = 160;
/// c-blosc2 keeps at most this many tuners, its own `btune` entry included.
const MAX_ENTRIES: usize = u8::MAX as usize;
/// The plugin c-blosc2 registers at init (BLOSC_BTUNE), with no callbacks of its own.
const BTUNE: c_int = 32;

/// A registered tuner: the callbacks we call (see the module documentation for the others).
#[derive(Clone, Copy)]
struct Entry {
    id: c_int,
    init: Option<InitFn>,
    next_blocksize: Option<NextBlocksizeFn>,
}

struct Registered {
    entry: Entry,
    name: String,
}

static TUNERS: Mutex<Vec<Registered>> = Mutex::new(Vec::new());

fn tuners() -> std::sync::MutexGuard<'static, Vec<Registered>> {
    // The list is only ever pushed to or replaced whole, so a poisoned lock still holds a valid list.
    TUNERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Restarts the registry as c-blosc2's `blosc2_init` does: only the `btune` entry.
pub(crate) fn reset_registry() {
    *tuners() = vec![Registered {
        entry: Entry {
            id: BTUNE,
            init: None,
            next_blocksize: None,
        },
        name: "btune".into(),
    }];
}

/// The entry registered under `id`, copied out so that no lock is held while a callback runs
/// (a callback may call back into the library).
fn lookup(id: c_int) -> Option<Entry> {
    tuners().iter().find(|r| r.entry.id == id).map(|r| r.entry)
}

/// c-blosc2's checks, in its order: the user range, room, then an id already taken (accepted
/// again under the same name, refused under another). There is no upper bound on the id.
fn register(entry: Entry, name: String) -> Result<()> {
    if entry.id < USER_REGISTERED_START {
        return Err(Error::Failure);
    }
    let mut list = tuners();
    if list.len() >= MAX_ENTRIES {
        return Err(Error::CodecSupport);
    }
    match list.iter().find(|r| r.entry.id == entry.id) {
        Some(r) if r.name == name => Ok(()),
        Some(_) => Err(Error::Failure),
        None => {
            list.push(Registered { entry, name });
            Ok(())
        }
    }
}

/// Registers a user tuner, which compression contexts then run when their `tuner_id` names it.
/// The library keeps the tuner's callbacks and a copy of its name; `tuner->id` must be at least
/// `BLOSC2_USER_REGISTERED_TUNER_START`. Registering the same id and name again is accepted.
/// Returns 0, or BLOSC2_ERROR_INVALID_PARAM for a NULL `tuner`, BLOSC2_ERROR_FAILURE for a
/// reserved id or an id already taken by another name, BLOSC2_ERROR_CODEC_SUPPORT when the
/// registry is full.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_tuner(tuner: *mut blosc2_tuner) -> c_int {
    entry(|| {
        // SAFETY: tuner is NULL or points to a blosc2_tuner, per the API. (c-blosc2 crashes on
        // NULL; its registration code's own answer for NULL is INVALID_PARAM.)
        let t = unsafe { tuner.as_ref() }.ok_or(Error::InvalidParam)?;
        let entry = Entry {
            id: t.id,
            init: t.init,
            next_blocksize: t.next_blocksize,
        };
        // SAFETY: name is NULL or a C string, per the API.
        register(entry, unsafe { name_of(t.name) })?;
        Ok(0)
    })
}

/// Runs the `init` of the tuner `cparams` name (none for `tuner_id` <= 0) for the compression
/// context `cctx` just created.
pub(crate) fn init_context(cparams: &blosc2_cparams, cctx: *mut blosc2_context_s) -> Result<()> {
    if cparams.tuner_id <= 0 {
        return Ok(());
    }
    let entry = lookup(cparams.tuner_id).ok_or(Error::InvalidParam)?;
    let init = entry.init.ok_or(Error::Failure)?;
    // SAFETY: the caller's callback, given the caller's tuner_params and the live context it
    // belongs to; c-blosc2 passes no decompression context here.
    let rc = unsafe { init(cparams.tuner_params, cctx, std::ptr::null_mut()) };
    if rc < 0 {
        return Err(Error::Tuner);
    }
    Ok(())
}

/// The core hook for the tuner `cparams` name; None for `tuner_id` <= 0 (c-blosc2's own block
/// size choice, which the core always makes).
/// `handle`: the context's cell (None outside a context: the tuner then gets the super-chunk's).
pub(crate) fn hook_for(
    cparams: &blosc2_cparams,
    handle: Option<&HandleCell>,
) -> Option<Arc<dyn Tuner>> {
    (cparams.tuner_id > 0).then(|| {
        Arc::new(CTuner {
            id: cparams.tuner_id,
            schunk: cparams.schunk,
            handle: handle.cloned().unwrap_or_default(),
        }) as Arc<dyn Tuner>
    })
}

/// A C tuner as the core's hook. The tuner is looked up at each call, as c-blosc2 does.
struct CTuner {
    id: c_int,
    /// The super-chunk the parameters belong to (its `cctx` is the context c-blosc2 hands the
    /// tuner when the super-chunk compresses).
    schunk: *mut c_void,
    /// The context the parameters were made for, once it is boxed (NULL otherwise).
    handle: HandleCell,
}

// SAFETY: the pointers are caller-owned tokens handed back to the caller's own callback, which
// c-blosc2 also calls from whatever thread compresses.
unsafe impl Send for CTuner {}
// SAFETY: as for Send; the adapter itself is never mutated.
unsafe impl Sync for CTuner {}

impl CTuner {
    /// The `blosc2_context *` c-blosc2 would pass: the context the parameters belong to, else
    /// the compression context of their super-chunk, else NULL.
    fn context(&self) -> *mut blosc2_context_s {
        let own = self.handle.load(Ordering::Acquire);
        if !own.is_null() || self.schunk.is_null() {
            return own;
        }
        // SAFETY: a non-NULL `schunk` in cparams is the `blosc2_schunk` that owns these
        // parameters (the super-chunk layer sets it, or the caller did per c-blosc2's
        // contract), and it outlives the compressions made with them.
        unsafe { (*self.schunk.cast::<blosc2_schunk>()).cctx }
    }
}

impl Tuner for CTuner {
    fn next_blocksize(&self, _: &CParams) -> Result<()> {
        let entry = lookup(self.id).ok_or(Error::InvalidParam)?;
        let next_blocksize = entry.next_blocksize.ok_or(Error::Failure)?;
        // SAFETY: the caller's callback with the context it belongs to (or NULL).
        if unsafe { next_blocksize(self.context()) } < 0 {
            return Err(Error::Tuner);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicI32, AtomicPtr};

    static INITS: AtomicI32 = AtomicI32::new(0);
    static INIT_ANSWER: AtomicI32 = AtomicI32::new(0);
    static LAST_CONFIG: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());
    static NEXTS: AtomicI32 = AtomicI32::new(0);

    unsafe extern "C" fn count_init(
        cfg: *mut c_void,
        _: *mut blosc2_context_s,
        dctx: *mut blosc2_context_s,
    ) -> c_int {
        assert!(dctx.is_null());
        INITS.fetch_add(1, Ordering::SeqCst);
        LAST_CONFIG.store(cfg, Ordering::SeqCst);
        INIT_ANSWER.load(Ordering::SeqCst)
    }

    unsafe extern "C" fn count_next(_: *mut blosc2_context_s) -> c_int {
        NEXTS.fetch_add(1, Ordering::SeqCst);
        0
    }

    unsafe extern "C" fn refuse_next(_: *mut blosc2_context_s) -> c_int {
        -5
    }

    fn entry(id: c_int) -> Entry {
        Entry {
            id,
            init: Some(count_init),
            next_blocksize: Some(count_next),
        }
    }

    // One test: the registry is process-wide. The library is initialised first, under the lock
    // that keeps other tests from de-initialising it (a later implicit init would wipe it).
    #[test]
    fn registry_init_and_hook_as_c_blosc2() {
        let _state = crate::global::TEST_STATE_LOCK
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        crate::capi::library::init_library();
        assert_eq!(register(entry(159), "a".into()), Err(Error::Failure));
        assert_eq!(register(entry(BTUNE), "btune".into()), Err(Error::Failure));
        assert_eq!(register(entry(240), "t240".into()), Ok(()));
        assert_eq!(register(entry(240), "t240".into()), Ok(()));
        assert_eq!(register(entry(240), "other".into()), Err(Error::Failure));
        assert_eq!(register(entry(100_000), "big".into()), Ok(()));
        let refusing = Entry {
            id: 241,
            init: None,
            next_blocksize: Some(refuse_next),
        };
        assert_eq!(register(refusing, "refuse".into()), Ok(()));

        let mut config = 7u8;
        let mut c = crate::capi::params::cparams_to_c(&CParams::default());
        c.tuner_params = (&mut config as *mut u8).cast();
        c.tuner_id = 240;
        let before = INITS.load(Ordering::SeqCst);
        assert_eq!(init_context(&c, std::ptr::null_mut()), Ok(()));
        assert_eq!(INITS.load(Ordering::SeqCst), before + 1);
        assert_eq!(LAST_CONFIG.load(Ordering::SeqCst), c.tuner_params);
        INIT_ANSWER.store(-1, Ordering::SeqCst);
        assert_eq!(init_context(&c, std::ptr::null_mut()), Err(Error::Tuner));
        INIT_ANSWER.store(0, Ordering::SeqCst);
        c.tuner_id = 241;
        assert_eq!(init_context(&c, std::ptr::null_mut()), Err(Error::Failure));
        c.tuner_id = 242;
        assert_eq!(
            init_context(&c, std::ptr::null_mut()),
            Err(Error::InvalidParam)
        );
        c.tuner_id = 0;
        assert_eq!(init_context(&c, std::ptr::null_mut()), Ok(()));
        assert!(hook_for(&c, None).is_none());

        // The hook runs before each compression; the chunk is the one c-blosc2's own block
        // size choice gives, and a refusal fails the compression with BLOSC2_ERROR_TUNER.
        c.tuner_id = 240;
        let mut core = crate::capi::params::cparams_from_c(&c);
        assert!(core.tuner.is_some());
        let src: Vec<u8> = (0..40_000u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
        let mut tuned = vec![0u8; src.len() + 64];
        let before = NEXTS.load(Ordering::SeqCst);
        let n = crate::chunk::compress::compress(&core, None, &src, &mut tuned).unwrap();
        assert_eq!(NEXTS.load(Ordering::SeqCst), before + 1);
        let plain = CParams {
            tuner: None,
            ..core.clone()
        };
        let mut untuned = vec![0u8; src.len() + 64];
        let m = crate::chunk::compress::compress(&plain, None, &src, &mut untuned).unwrap();
        assert_eq!(tuned[..n], untuned[..m]);
        c.tuner_id = 241;
        core = crate::capi::params::cparams_from_c(&c);
        assert_eq!(
            crate::chunk::compress::compress(&core, None, &src, &mut tuned),
            Err(Error::Tuner)
        );
        c.tuner_id = 242;
        core = crate::capi::params::cparams_from_c(&c);
        assert_eq!(
            crate::chunk::compress::compress(&core, None, &src, &mut tuned),
            Err(Error::InvalidParam)
        );

        // blosc2_init starts over with c-blosc2's btune entry only (no callbacks: refused as a
        // plugin that cannot be loaded).
        reset_registry();
        c.tuner_id = 240;
        assert_eq!(
            init_context(&c, std::ptr::null_mut()),
            Err(Error::InvalidParam)
        );
        c.tuner_id = BTUNE;
        assert_eq!(init_context(&c, std::ptr::null_mut()), Err(Error::Failure));
        for id in 0..(MAX_ENTRIES as c_int - 1) {
            assert_eq!(register(entry(1000 + id), format!("n{id}")), Ok(()));
        }
        assert_eq!(
            register(entry(5000), "full".into()),
            Err(Error::CodecSupport)
        );
        assert_eq!(register(entry(1000), "n0".into()), Err(Error::CodecSupport));
        reset_registry();
    }

    static SEEN_PARAMS: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());
    static SEEN_CONTEXT: AtomicPtr<blosc2_context_s> = AtomicPtr::new(std::ptr::null_mut());

    /// Reads its context back through the public API, as a tuner written against blosc2.h can.
    unsafe extern "C" fn read_back_next(ctx: *mut blosc2_context_s) -> c_int {
        SEEN_CONTEXT.store(ctx, Ordering::SeqCst);
        // SAFETY: all-zero bytes are a valid blosc2_cparams (integers, pointers, Options).
        let mut cp: blosc2_cparams = unsafe { std::mem::zeroed() };
        // SAFETY: ctx is the live context being compressed with; cp is writable.
        if unsafe { crate::capi::chunk::blosc2_ctx_get_cparams(ctx, &mut cp) } != 0 {
            return -1;
        }
        SEEN_PARAMS.store(cp.tuner_params, Ordering::SeqCst);
        0
    }

    #[test]
    fn tuner_reads_its_context_through_the_public_api() {
        let _state = crate::global::TEST_STATE_LOCK
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        crate::capi::library::init_library();
        let mut t = blosc2_tuner {
            init: Some(count_init),
            next_blocksize: Some(read_back_next),
            next_cparams: None,
            update: None,
            free: None,
            id: 250,
            name: c"read-back".as_ptr().cast_mut(),
        };
        // SAFETY: a valid tuner; NULL is refused with c-blosc2's registration code for it.
        unsafe {
            assert_eq!(blosc2_register_tuner(&mut t), 0);
            assert_eq!(blosc2_register_tuner(std::ptr::null_mut()), -12);
        }
        let mut config = 1u8;
        let mut c = crate::capi::params::cparams_to_c(&CParams::default());
        c.tuner_id = 250;
        c.tuner_params = (&mut config as *mut u8).cast();
        // SAFETY: plain parameters; the context is freed below.
        let ctx = unsafe { crate::capi::chunk::blosc2_create_cctx(c) };
        assert!(!ctx.is_null());
        let src: Vec<u8> = (0..4096u32).flat_map(|i| (i % 13).to_le_bytes()).collect();
        let mut dst = vec![0u8; src.len() + 64];
        // SAFETY: src and dst hold the sizes given; ctx is live.
        let n = unsafe {
            crate::capi::chunk::blosc2_compress_ctx(
                ctx,
                src.as_ptr().cast(),
                src.len() as i32,
                dst.as_mut_ptr().cast(),
                dst.len() as i32,
            )
        };
        assert!(n > 0);
        assert_eq!(SEEN_CONTEXT.load(Ordering::SeqCst), ctx);
        assert_eq!(SEEN_PARAMS.load(Ordering::SeqCst), c.tuner_params);
        // SAFETY: the context created above.
        unsafe { crate::capi::chunk::blosc2_free_ctx(ctx) };
    }
}
