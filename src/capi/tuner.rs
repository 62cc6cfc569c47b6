//! Tuners (`blosc2_register_tuner`): the process-wide registry of C tuners and the adapter that
//! turns one into the core's [`Tuner`] hook.
//!
//! What c-blosc2 3.3.5 does with a tuner named by `cparams.tuner_id` (> 0), and so what we do:
//! - `blosc2_create_cctx` calls `init(cparams.tuner_params, cctx, NULL)`; a negative answer or an
//!   unregistered id gives a NULL context.
//! - every compression through the context (`blosc2_compress_ctx`, `blosc2_vlcompress_ctx`,
//!   the super-chunk and b2nd functions that compress through `schunk->cctx`, the special-value
//!   chunk functions) first calls `next_blocksize(cctx)`; a negative answer fails the
//!   compression with `BLOSC2_ERROR_TUNER`.
//! - `next_cparams`, `update` and `free` are not called while the tuner has not stored a pointer
//!   in the private context's `tuner_params` (c-blosc2 calls them only then); see below for a
//!   plugin that does.
//!
//! A tuner registered without `init` (or met without `next_blocksize`) is a plugin, loaded as
//! c-blosc2 loads it (see [`crate::capi::plugin_loader`]: `libblosc2_<name>.so`, then the path
//! the `blosc2_<name>` Python package prints), whose `info` is a `tuner_info` naming five
//! functions (init, next_blocksize, next_cparams, update, free), all of which must be there; a
//! load that fails fails the context creation (NULL) or the compression
//! (`BLOSC2_ERROR_FAILURE`), and is tried again at the next use. That is how c-blosc2's own
//! `btune` entry (id 32, registered at init with no callbacks) finds the `blosc2-btune` package.
//!
//! A plugin tuner is written against c-blosc2's private `struct blosc2_context_s` (it reads and
//! writes its fields). It receives, instead of our context, a private block of the same size
//! laid out as c-blosc2 3.3.5's struct, filled with the context's parameters at `init` and
//! before each `next_blocksize`, and owned by the context (freed with it, after the plugin's
//! `free` when the plugin stored a pointer at its `tuner_params`). What the plugin writes
//! there stays there: the chunk is compressed with the context's parameters, and `next_cparams`
//! and `update` are not called. With `blosc2-btune` 1.2.1 (built against c-blosc2 2.x, whose
//! private struct is laid out otherwise) this is what c-blosc2 3.3.5 does too: its writes miss
//! the fields 3.3.5 reads, so it never tunes a chunk; with the default automatic block size
//! c-blosc2 then divides by zero (SIGFPE) at the first compression, where the automatic block
//! size is used here.
//!
//! The registry is emptied when the library is initialised (c-blosc2's `blosc2_init` restarts
//! it with only the `btune` plugin entry, id 32), so tuners are registered after `blosc2_init`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use libc::{c_int, c_void};

use crate::capi::ffi::{c_str_lossy, entry};
use crate::capi::plugin_loader;
use crate::capi::types::*;
use crate::chunk::params::{CParams, Tuner};
use crate::{Error, Result};

type InitFn =
    unsafe extern "C" fn(*mut c_void, *mut blosc2_context_s, *mut blosc2_context_s) -> c_int;
type NextBlocksizeFn = unsafe extern "C" fn(*mut blosc2_context_s) -> c_int;
type FreeFn = unsafe extern "C" fn(*mut blosc2_context_s) -> c_int;

/// First id a user may register (BLOSC2_USER_REGISTERED_TUNER_START).
const USER_REGISTERED_START: c_int = 160;
/// c-blosc2 keeps at most this many tuners, its own `btune` entry included.
const MAX_ENTRIES: usize = u8::MAX as usize;
/// The plugin c-blosc2 registers at init (BLOSC_BTUNE), with no callbacks of its own.
pub(crate) const BTUNE: c_int = 32;

/// A registered tuner: the callbacks we call (see the module documentation for the others).
#[derive(Clone, Copy)]
struct Entry {
    id: c_int,
    init: Option<InitFn>,
    next_blocksize: Option<NextBlocksizeFn>,
    /// Set for a loaded plugin only (the one callback of the three others we call).
    free: Option<FreeFn>,
    /// Loaded from a plugin library: it gets a [`PluginContext`], not our context.
    plugin: bool,
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
            free: None,
            plugin: false,
        },
        name: "btune".into(),
    }];
}

/// The entry registered under `id` once it has the callback `has` looks for: a tuner without
/// it is loaded from its plugin library first (its five functions then replace what was
/// registered), as c-blosc2's `fill_tuner` does. InvalidParam for an unregistered id, Failure
/// when the plugin cannot be loaded.
fn entry_with(id: c_int, has: fn(&Entry) -> bool) -> Result<Entry> {
    let (entry, name) = {
        let list = tuners();
        let r = list
            .iter()
            .find(|r| r.entry.id == id)
            .ok_or(Error::InvalidParam)?;
        (r.entry, r.name.clone())
    };
    if has(&entry) {
        return Ok(entry);
    }
    // Loaded without the lock held: the search may run a Python interpreter.
    let [init, next_blocksize, _next_cparams, _update, free] =
        plugin_loader::load_functions::<5>(&name).ok_or(Error::Failure)?;
    // SAFETY: the functions a tuner plugin's `tuner_info` names have c-blosc2's `blosc2_tuner`
    // callback signatures (the contract of its plugin interface); all five are non-NULL.
    let loaded = unsafe {
        Entry {
            id,
            init: Some(std::mem::transmute::<*mut c_void, InitFn>(init)),
            next_blocksize: Some(std::mem::transmute::<*mut c_void, NextBlocksizeFn>(
                next_blocksize,
            )),
            free: Some(std::mem::transmute::<*mut c_void, FreeFn>(free)),
            plugin: true,
        }
    };
    if let Some(r) = tuners().iter_mut().find(|r| r.entry.id == id) {
        r.entry = loaded;
    }
    Ok(loaded)
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
            free: None,
            plugin: false,
        };
        // SAFETY: name is NULL or a C string, per the API.
        register(entry, unsafe { c_str_lossy(t.name) })?;
        Ok(0)
    })
}

/// Runs the `init` of the tuner `cparams` name (none for `tuner_id` <= 0) for the compression
/// context `cctx` just created.
pub(crate) fn init_context(cparams: &blosc2_cparams, cctx: *mut blosc2_context_s) -> Result<()> {
    if cparams.tuner_id <= 0 {
        return Ok(());
    }
    let entry = entry_with(cparams.tuner_id, |e| e.init.is_some())?;
    let init = entry.init.ok_or(Error::Failure)?;
    let arg = if entry.plugin {
        let mut block = PluginContext::new();
        block.fill(cparams);
        add_plugin_context(cctx, block)
    } else {
        cctx
    };
    // SAFETY: the caller's callback, given the caller's tuner_params and the live context it
    // belongs to (a plugin: the context's private block, alive until the context is freed);
    // c-blosc2 passes no decompression context here.
    let rc = unsafe { init(cparams.tuner_params, arg, std::ptr::null_mut()) };
    if rc < 0 {
        return Err(Error::Tuner);
    }
    if entry.plugin {
        // SAFETY: the block just registered for `cctx`, not in use by any other call (the
        // context is being created).
        let block = unsafe { &mut *arg.cast::<PluginContext>() };
        // As c-blosc2 stores them after `init`.
        block.tuner_id = cparams.tuner_id;
        block.codec_params = cparams.codec_params;
        block.filter_params = cparams.filter_params;
    }
    Ok(())
}

// ----- the private context a plugin tuner gets ------------------------------------------------

/// c-blosc2 3.3.5's private `struct blosc2_context_s` (blosc/context.h): the block a tuner
/// plugin receives as its `blosc2_context *`. The fields up to the thread counts are laid out
/// as there (asserted below); what follows them (threading state) is padding up to its size.
#[repr(C, align(32))]
struct PluginContext {
    src: *const u8,
    dest: *mut u8,
    header_flags: u8,
    blosc2_flags: u8,
    blosc2_flags2: u8,
    sourcesize: i32,
    header_overhead: i32,
    nblocks: i32,
    leftover: i32,
    blocksize: i32,
    header_blocksize: i32,
    splitmode: i32,
    output_bytes: i32,
    srcsize: i32,
    destsize: i32,
    typesize: i32,
    bstarts: *mut i32,
    blocknbytes: *mut i32,
    blockoffsets: *mut i32,
    blockcbytes: *mut i32,
    vlblock_sources: *mut c_void,
    vlblock_dests: *mut c_void,
    special_type: i32,
    compcode: c_int,
    compcode_meta: u8,
    clevel: c_int,
    use_dict: c_int,
    dict_buffer: *mut c_void,
    dict_size: i32,
    dict_cdict: *mut c_void,
    dict_ddict: *mut c_void,
    filter_flags: u8,
    filters: [u8; 6],
    filters_meta: [u8; 6],
    urfilters: [blosc2_filter; 16],
    prefilter: blosc2_prefilter_fn,
    postfilter: *mut c_void,
    preparams: *mut blosc2_prefilter_params,
    postparams: *mut blosc2_postfilter_params,
    block_maskout: *mut bool,
    block_maskout_nitems: c_int,
    schunk: *mut c_void,
    serial_context: *mut c_void,
    do_compress: c_int,
    tuner_params: *mut c_void,
    tuner_id: c_int,
    codec_params: *mut c_void,
    filter_params: [*mut c_void; 6],
    nthreads: i16,
    new_nthreads: i16,
    threading: [u8; PLUGIN_CONTEXT_SIZE - PLUGIN_CONTEXT_THREADING],
}

// SAFETY: the block holds the caller's and the plugin's pointers only for the plugin to read
// back; the library never dereferences them, and a context is used by one thread at a time.
unsafe impl Send for PluginContext {}

/// The size of c-blosc2 3.3.5's context (what its `blosc2_create_cctx` allocates).
const PLUGIN_CONTEXT_SIZE: usize = 0x540;
/// Where its threading state starts (after `new_nthreads`).
const PLUGIN_CONTEXT_THREADING: usize = 0x3cc;

// The offsets c-blosc2 3.3.5's own code uses for these fields (read off its binary).
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<PluginContext>() == PLUGIN_CONTEXT_SIZE && align_of::<PluginContext>() == 32);
    assert!(offset_of!(PluginContext, blocksize) == 0x24);
    assert!(offset_of!(PluginContext, splitmode) == 0x2c);
    assert!(offset_of!(PluginContext, typesize) == 0x3c);
    assert!(offset_of!(PluginContext, compcode) == 0x74);
    assert!(offset_of!(PluginContext, clevel) == 0x7c);
    assert!(offset_of!(PluginContext, use_dict) == 0x80);
    assert!(offset_of!(PluginContext, filters) == 0xa9);
    assert!(offset_of!(PluginContext, prefilter) == 0x338);
    assert!(offset_of!(PluginContext, schunk) == 0x368);
    assert!(offset_of!(PluginContext, do_compress) == 0x378);
    assert!(offset_of!(PluginContext, tuner_params) == 0x380);
    assert!(offset_of!(PluginContext, tuner_id) == 0x388);
    assert!(offset_of!(PluginContext, codec_params) == 0x390);
    assert!(offset_of!(PluginContext, nthreads) == 0x3c8);
    assert!(offset_of!(PluginContext, threading) == PLUGIN_CONTEXT_THREADING);
};

impl PluginContext {
    /// A zeroed block, as c-blosc2 zeroes a new context.
    fn new() -> Box<PluginContext> {
        // SAFETY: all-zero bytes are a valid PluginContext (integers, raw pointers, Options of
        // function pointers, arrays of those and of blosc2_filter, itself made of them).
        unsafe { Box::<PluginContext>::new_zeroed().assume_init() }
    }

    /// The compression parameters a c-blosc2 context holds for `c` (as `blosc2_create_cctx`
    /// sets them; the environment is already in `c`).
    fn fill(&mut self, c: &blosc2_cparams) {
        self.do_compress = 1;
        self.compcode = c_int::from(c.compcode);
        self.compcode_meta = c.compcode_meta;
        self.clevel = c_int::from(c.clevel);
        self.use_dict = c.use_dict;
        self.typesize = c.typesize;
        self.blocksize = c.blocksize;
        self.splitmode = c.splitmode;
        self.filters = c.filters;
        self.filters_meta = c.filters_meta;
        self.nthreads = c.nthreads;
        self.new_nthreads = c.nthreads;
        self.schunk = c.schunk;
        self.prefilter = c.prefilter;
    }
}

/// The plugin contexts of live compression contexts, by the address of ours (the box keeps the
/// block where the plugin saw it).
static PLUGIN_CONTEXTS: Mutex<Option<HashMap<usize, Box<PluginContext>>>> = Mutex::new(None);
/// How many there are: context frees look no further while there are none.
static NPLUGIN_CONTEXTS: AtomicUsize = AtomicUsize::new(0);

fn plugin_contexts() -> std::sync::MutexGuard<'static, Option<HashMap<usize, Box<PluginContext>>>> {
    // Entries are only inserted or removed whole: a poisoned lock still holds a valid map.
    PLUGIN_CONTEXTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Keeps `block` as the plugin context of `ctx`; returns the address the plugin gets.
fn add_plugin_context(
    ctx: *mut blosc2_context_s,
    mut block: Box<PluginContext>,
) -> *mut blosc2_context_s {
    let at: *mut PluginContext = &mut *block;
    let old = plugin_contexts()
        .get_or_insert_with(HashMap::new)
        .insert(ctx as usize, block);
    if old.is_none() {
        NPLUGIN_CONTEXTS.fetch_add(1, Ordering::Relaxed);
    }
    at.cast()
}

/// The plugin context of `ctx` (NULL when it has none).
fn plugin_context(ctx: *mut blosc2_context_s) -> *mut PluginContext {
    if NPLUGIN_CONTEXTS.load(Ordering::Relaxed) == 0 {
        return std::ptr::null_mut();
    }
    plugin_contexts()
        .as_mut()
        .and_then(|m| m.get_mut(&(ctx as usize)))
        .map_or(std::ptr::null_mut(), |b| &mut **b as *mut PluginContext)
}

/// Drops the plugin context of the compression context `ctx`, being freed: the plugin's `free`
/// runs first when it stored a pointer at `tuner_params` (as c-blosc2's `blosc2_free_ctx`
/// calls it when that field is set).
pub(crate) fn forget_context(ctx: *mut blosc2_context_s) {
    if NPLUGIN_CONTEXTS.load(Ordering::Relaxed) == 0 {
        return;
    }
    let Some(mut block) = plugin_contexts()
        .as_mut()
        .and_then(|m| m.remove(&(ctx as usize)))
    else {
        return;
    };
    NPLUGIN_CONTEXTS.fetch_sub(1, Ordering::Relaxed);
    if block.tuner_params.is_null() {
        return;
    }
    let free = lookup(block.tuner_id).and_then(|e| e.free);
    if let Some(free) = free {
        // SAFETY: the plugin's own callback with the block it was initialised with, still
        // alive (it is dropped after the call).
        unsafe { free((&mut *block as *mut PluginContext).cast()) };
    }
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
    fn next_blocksize(&self, params: &CParams) -> Result<()> {
        let entry = entry_with(self.id, |e| e.next_blocksize.is_some())?;
        let next_blocksize = entry.next_blocksize.ok_or(Error::Failure)?;
        let mut ctx = self.context();
        if entry.plugin {
            let block = plugin_context(ctx);
            // SAFETY: the block of this context, alive until the context is freed, which
            // cannot happen during one of its compressions.
            if let Some(b) = unsafe { block.as_mut() } {
                let mut c = crate::capi::params::cparams_to_c(params);
                c.schunk = self.schunk;
                b.fill(&c);
            }
            ctx = block.cast();
        }
        // SAFETY: the caller's callback with the context it belongs to (a plugin: its block),
        // or NULL.
        if unsafe { next_blocksize(ctx) } < 0 {
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
            free: None,
            plugin: false,
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
            free: None,
            plugin: false,
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
        // plugin that cannot be loaded). Searched for as on a machine without the plugin: one
        // whose `python` imports blosc2_btune would load it and call its init with `config`.
        reset_registry();
        c.tuner_id = 240;
        assert_eq!(
            init_context(&c, std::ptr::null_mut()),
            Err(Error::InvalidParam)
        );
        c.tuner_id = BTUNE;
        assert_eq!(
            crate::capi::plugin_loader::without_plugins(|| init_context(&c, std::ptr::null_mut())),
            Err(Error::Failure)
        );
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
