//! The `blosc2_schunk` handle: the mirror C reads, its malloc'd metalayer entries, and the conversions between handle pointers and the core super-chunk.

use std::ffi::CString;
use std::path::PathBuf;
use std::ptr;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use libc::c_void;

use crate::capi::chunk::{apply_env_to_c, cctx_env, env_nthreads};
use crate::capi::context::{self, Context};
use crate::capi::ffi::{c_str, Castable};
use crate::capi::io::{io_from_c, FILESYSTEM_NAME};
use crate::capi::params::{cparams_from_c, cparams_to_c, dparams_from_c, dparams_to_c};
use crate::capi::types::*;
use crate::chunk::decompress::LazyBlocks;
use crate::chunk::params::ArrayLayout;
use crate::frame::header::Meta;
use crate::frame::io::ByteStore;
use crate::schunk::{Schunk, Storage};
use crate::{Error, Result};

/// What C holds as a `blosc2_schunk *`: the mirror first (so the pointer to the handle is a
/// pointer to the mirror), then the Rust super-chunk and the C structs the mirror points to.
#[repr(C)]
pub(crate) struct SchunkHandle {
    pub(super) mirror: blosc2_schunk,
    pub(super) schunk: Schunk,
    storage: blosc2_storage,
    pub(super) cparams: blosc2_cparams,
    pub(super) dparams: blosc2_dparams,
    pub(super) io: blosc2_io,
    urlpath: Option<CString>,
    /// `blosc2_schunk_avoid_cframe_free`: the caller took the in-memory frame buffer.
    pub(super) avoid_cframe_free: bool,
    /// Where the frame starts in its file (`blosc2_schunk_open_offset`), for refreshes.
    pub(super) offset: i64,
    /// The block size of the last chunk the super-chunk compressed (c-blosc2's
    /// `cctx->blocksize`, which copies and frames written from this super-chunk inherit when
    /// their parameters leave the block size automatic).
    pub(super) cctx_blocksize: i32,
    /// Something for `mirror.frame` to point at while the super-chunk has a frame (the frame
    /// struct is opaque in C; only its NULL-ness is observable).
    frame_token: u64,
    /// The `chunksize` the mirror was last given: another value there is the client's, which
    /// the super-chunk takes at the next call (see [`SchunkHandle::take_client_writes`]).
    pushed_chunksize: i32,
    /// [`Context::id`] of the contexts the super-chunk compresses and decompresses with (0:
    /// its own engines, for a NULL context): another context in `mirror.cctx`/`dctx` is one
    /// the client put there, which the super-chunk adopts at the next call.
    cctx_id: AtomicU64,
    dctx_id: AtomicU64,
    /// For a b2nd view's super-chunk: its base's, whose chunks the view's chunk reads
    /// (get_chunk, get_lazychunk, decompress_chunk) return, as c-blosc2's view super-chunk
    /// points at its base's chunks. NULL otherwise. The view keeps its base alive.
    chunk_source: *mut blosc2_schunk,
    /// How many `mirror.vlmetalayers` slots this handle ever filled: a recycled box zeroes
    /// those and nothing more of the 64 KiB array (see [`recycle`]).
    vl_slots_used: usize,
    /// How many slots of `mirror.data` may hold a pointer (the rest was never written: the
    /// array grows by 4 KiB, as c-blosc2's does, without being zeroed).
    data_filled: usize,
}

/// Boxes of freed handles, zeroed again, for the next [`SchunkHandle::create`]. Every array,
/// view and super-chunk a client makes stands on a handle whose mirror is 64 KiB (c-blosc2's
/// `vlmetalayers` array): allocating and zeroing that per handle, and glibc folding its free
/// lists back together each time such a block is freed, was a third of a small `b2nd_copy`.
static RECYCLED: std::sync::Mutex<Vec<RecycledBox>> = std::sync::Mutex::new(Vec::new());
/// At most this many boxes wait (512 KiB).
const RECYCLED_MAX: usize = 8;

/// A freed handle's allocation, all zero but for `vlmetalayers` slots nobody filled.
struct RecycledBox(Box<std::mem::MaybeUninit<SchunkHandle>>);

// SAFETY: the box holds no live value (zero bytes, no pointers to anything), only memory.
unsafe impl Send for RecycledBox {}

/// A box for a new handle whose bytes are all zero.
fn zeroed_box() -> Box<std::mem::MaybeUninit<SchunkHandle>> {
    let recycled = RECYCLED.lock().unwrap_or_else(|e| e.into_inner()).pop();
    match recycled {
        Some(b) => b.0,
        None => Box::<SchunkHandle>::new_zeroed(),
    }
}

/// Drops the handle (freeing what it owns, as `blosc2_schunk_free` does) and keeps its box for
/// the next handle, zeroed where it was written.
pub(super) fn recycle(h: Box<SchunkHandle>) {
    let used = h.vl_slots_used;
    let raw = Box::into_raw(h);
    // SAFETY: raw is the live handle from the box just taken apart; it is dropped once, here,
    // and its memory is then only written as bytes and handed back as uninitialised memory.
    unsafe {
        ptr::drop_in_place(raw);
        let base = raw.cast::<u8>();
        let slots = std::mem::offset_of!(SchunkHandle, mirror)
            + std::mem::offset_of!(blosc2_schunk, vlmetalayers);
        let slots_len = std::mem::size_of_val(&(*raw).mirror.vlmetalayers);
        let slot = std::mem::size_of::<*mut blosc2_metalayer>();
        ptr::write_bytes(base, 0, slots);
        // The handle nulled the slots it freed; zeroed anyway, as a fresh box is.
        ptr::write_bytes(base.add(slots), 0, used.min(slots_len / slot) * slot);
        let after = slots + slots_len;
        ptr::write_bytes(
            base.add(after),
            0,
            std::mem::size_of::<SchunkHandle>() - after,
        );
        let b = Box::from_raw(raw.cast::<std::mem::MaybeUninit<SchunkHandle>>());
        let mut pool = RECYCLED.lock().unwrap_or_else(|e| e.into_inner());
        if pool.len() < RECYCLED_MAX {
            pool.push(RecycledBox(b));
        }
    }
}

/// A malloc'd `blosc2_metalayer` (name and content malloc'd too), as c-blosc2 keeps them.
pub(super) fn alloc_metalayer(m: &Meta) -> *mut blosc2_metalayer {
    let Ok(name) = CString::new(m.name.as_str()) else {
        return ptr::null_mut();
    };
    let Ok(len) = i32::try_from(m.content.len()) else {
        return ptr::null_mut();
    };
    // SAFETY: plain mallocs and copies into the fresh allocations, sizes as allocated.
    unsafe {
        let entry =
            libc::malloc(std::mem::size_of::<blosc2_metalayer>()).cast::<blosc2_metalayer>();
        if entry.is_null() {
            return entry;
        }
        let content = libc::malloc(m.content.len().max(1)).cast::<u8>();
        if !content.is_null() {
            ptr::copy_nonoverlapping(m.content.as_ptr(), content, m.content.len());
        }
        entry.write(blosc2_metalayer {
            name: libc::strdup(name.as_ptr()),
            content,
            content_len: if content.is_null() { 0 } else { len },
        });
        entry
    }
}

/// Frees an entry from [`alloc_metalayer`] (NULL is ignored).
pub(super) fn free_metalayer(p: *mut blosc2_metalayer) {
    if p.is_null() {
        return;
    }
    // SAFETY: p and its name/content came from alloc_metalayer's mallocs.
    unsafe {
        libc::free((*p).name.cast());
        libc::free((*p).content.cast());
        libc::free(p.cast());
    }
}

/// True when the malloc'd entry `p` holds exactly `m`.
pub(super) fn metalayer_is(p: *const blosc2_metalayer, m: &Meta) -> bool {
    if p.is_null() {
        return false;
    }
    // SAFETY: p came from alloc_metalayer: name is NUL-terminated, content holds content_len.
    unsafe {
        let e = &*p;
        if e.name.is_null() || c_str(e.name) != Some(m.name.as_str()) {
            return false;
        }
        if e.content_len as usize != m.content.len() {
            return false;
        }
        m.content.is_empty()
            || (!e.content.is_null()
                && std::slice::from_raw_parts(e.content, m.content.len()) == &m.content[..])
    }
}

/// Makes `slots[..]` hold `metas` (entries that did not change are kept, so pointers C holds
/// to them stay valid); `old` is how many slots were in use.
pub(super) fn sync_layers(slots: &mut [*mut blosc2_metalayer], old: usize, metas: &[Meta]) {
    let n = metas.len().min(slots.len());
    for (i, m) in metas.iter().take(n).enumerate() {
        if !metalayer_is(slots[i], m) {
            free_metalayer(slots[i]);
            slots[i] = alloc_metalayer(m);
        }
    }
    let end = old.min(slots.len());
    for slot in slots.iter_mut().take(end).skip(n) {
        free_metalayer(*slot);
        *slot = ptr::null_mut();
    }
}

// ----- the handle ---------------------------------------------------------------------------

/// The default `blosc2_io` (c-blosc2's BLOSC2_IO_DEFAULTS).
pub(super) fn default_io() -> blosc2_io {
    blosc2_io {
        id: 0,
        name: FILESYSTEM_NAME.as_ptr(),
        params: ptr::null_mut(),
    }
}

impl SchunkHandle {
    /// Boxes a handle around the super-chunk `build` makes; `build` gets the address C will
    /// hold (the mirror's), for the `schunk` back-pointers of the parameters.
    pub(super) fn create(
        io: blosc2_io,
        build: impl FnOnce(*mut blosc2_schunk) -> Result<Schunk>,
    ) -> Result<*mut blosc2_schunk> {
        let placeholder = Schunk::placeholder()?;
        // The mirror is 64 KiB (c-blosc2's vlmetalayers array): it is zeroed where it lives
        // rather than built on the stack and moved, which cost b2nd_open a third of its time.
        let mut h = zeroed_box();
        let p = h.as_mut_ptr();
        // SAFETY: `p` points at the box's (zeroed) allocation. Every field of the C structs
        // (mirror, storage, cparams, dparams) is an integer, bool, raw pointer or Option<fn>,
        // for which all-zero bytes are a valid value (NULL / None / 0 / false), as they are
        // for the bool and integers after them; the Rust fields are written before the
        // handle is used.
        let mut h = unsafe {
            ptr::addr_of_mut!((*p).schunk).write(placeholder);
            ptr::addr_of_mut!((*p).io).write(io);
            ptr::addr_of_mut!((*p).urlpath).write(None);
            h.assume_init()
        };
        let at: *mut blosc2_schunk = &mut h.mirror;
        h.schunk = build(at)?;
        h.attach()?;
        Ok(Box::into_raw(h).cast())
    }

    /// Points the mirror's storage and contexts at the handle's own copies (once, after the
    /// super-chunk is in place).
    fn attach(&mut self) -> Result<()> {
        let at: *mut blosc2_schunk = &mut self.mirror;
        // Every context c-blosc2 makes for a super-chunk takes BLOSC_NTHREADS, and its
        // compression context the other variables of blosc2_create_cctx (a super-chunk made
        // from a storage took them there, before its first chunk).
        let env = cctx_env();
        self.schunk.take_env(&env)?;
        self.cparams = cparams_to_c(self.schunk.cparams());
        self.cparams.schunk = at.cast();
        self.dparams = dparams_to_c(self.schunk.dparams());
        self.dparams.schunk = at.cast();
        // As c-blosc2 points a super-chunk's parameters at it whenever it makes its contexts:
        // parameters without the back-pointer to this handle (a super-chunk opened from a
        // frame, an array made from a b2nd context whose cparams carry codec, filter or tuner
        // params) or with another's (a copy's source) are bound to this one, so that user
        // codecs, filters, tuners and pre/postfilters get it.
        if !crate::capi::params::bound_to(self.schunk.cparams(), self.schunk.dparams(), at.cast()) {
            self.schunk.adopt_owner(
                &cparams_from_c(&self.cparams),
                &dparams_from_c(&self.dparams),
            )?;
        }
        self.urlpath = self
            .schunk
            .storage()
            .urlpath
            .as_ref()
            .and_then(|p| CString::new(p.to_string_lossy().as_bytes()).ok());
        self.storage = blosc2_storage {
            contiguous: self.schunk.storage().contiguous,
            urlpath: self
                .urlpath
                .as_ref()
                .map_or(ptr::null_mut(), |c| c.as_ptr().cast_mut()),
            cparams: &mut self.cparams,
            dparams: &mut self.dparams,
            io: &mut self.io,
        };
        // SAFETY: the old contexts (NULL on the first attach) are ours.
        unsafe {
            Context::free_handle(self.mirror.cctx);
            Context::free_handle(self.mirror.dctx);
        }
        self.mirror.cctx = ptr::null_mut();
        self.mirror.dctx = ptr::null_mut();
        // The public fields first: c-blosc2's contexts are made for a super-chunk whose fields
        // are set, which a tuner's `init` may read through its context's `schunk`.
        self.sync();
        // As c-blosc2's blosc2_create_cctx for the super-chunk: a tuner the parameters name is
        // initialised with the new context, and the super-chunk fails to exist if it refuses.
        // The super-chunk's typesize, which BYTEDELTA with meta 0 takes (as in c-blosc2).
        let schunk_ts = Some(self.schunk.cparams().typesize);
        let mut cctx_params = self.cparams;
        apply_env_to_c(&env, &mut cctx_params);
        self.mirror.cctx = match Context::new_compress(&mut cctx_params, |p| {
            p.schunk_typesize = schunk_ts;
        }) {
            Ok(ctx) => context::boxed_with_tuner(ctx)?.into_raw(),
            Err(_) => ptr::null_mut(),
        };
        self.mirror.dctx = Context::new_decompress(&self.dparams, |p| {
            p.schunk_typesize = schunk_ts;
        })
        .map_or(ptr::null_mut(), Context::into_handle);
        // SAFETY: the context just created above, owned by this handle.
        if let Ok(d) = unsafe { blosc2_context_s::try_mut(self.mirror.dctx) } {
            d.lazy_blocks = Some(Arc::new(HandleBlocks(self as *const SchunkHandle)));
        }
        self.mirror.current_nchunk = 0;
        // The super-chunk's own decompressions (slices, b2nd reads) show pre/postfilters the
        // chunk they work on in `current_nchunk`, as c-blosc2's decompress_chunk sets it.
        let mirror = at as usize;
        self.schunk.set_chunk_observer(Arc::new(move |n| {
            // SAFETY: the observer belongs to the handle's super-chunk, so the handle (and its
            // mirror at this address) outlives every call of it.
            unsafe { set_current_nchunk(mirror as *const blosc2_schunk, n) }
        }));
        self.cctx_blocksize = self.schunk.cparams().blocksize;
        // The contexts just made are built from the super-chunk's own parameters: nothing to
        // adopt from them.
        for (ctx, id) in [
            (self.mirror.cctx, &self.cctx_id),
            (self.mirror.dctx, &self.dctx_id),
        ] {
            // SAFETY: the handle's own contexts (or NULL), just made.
            let ctx_id = unsafe { blosc2_context_s::try_ref(ctx) }
                .ok()
                .map_or(0, |c| c.id);
            id.store(ctx_id, Ordering::Relaxed);
        }
        self.sync();
        Ok(())
    }

    /// Shows `nthreads_c`/`nthreads_d` in `storage->cparams`/`storage->dparams`: c-blosc2's
    /// storage keeps the thread counts the super-chunk was made or opened with, where its
    /// contexts (and so the frame header and `blosc2_schunk_get_cparams`) took BLOSC_NTHREADS.
    pub(super) fn show_storage_nthreads(&mut self, nthreads_c: i16, nthreads_d: i16) {
        self.cparams.nthreads = nthreads_c;
        self.dparams.nthreads = nthreads_d;
    }

    /// The thread count of `ctx`, the super-chunk's `cctx` or `dctx` (c-blosc2's
    /// `blosc2_schunk_get_cparams`/`_dparams` report it; the global count without one).
    pub(super) fn context_nthreads(&self, ctx: *mut blosc2_context_s) -> i16 {
        // SAFETY: the mirror's contexts are NULL or live (ours or the client's).
        unsafe { blosc2_context_s::try_ref(ctx) }
            .ok()
            .map_or_else(crate::global::nthreads, |c| c.cparams.nthreads)
    }

    /// Takes in what the client wrote into the public struct since the library last wrote it,
    /// as c-blosc2 reads those fields on every call: a `chunksize`, and contexts swapped into
    /// `cctx`/`dctx` (for a prefilter or postfilter, other parameters), whose engines the
    /// super-chunk then compresses and decompresses with. Runs at the start of every call that
    /// may change the super-chunk ([`handle_mut`]).
    fn take_client_writes(&mut self) {
        if self.mirror.chunksize != self.pushed_chunksize {
            self.schunk.set_chunksize(self.mirror.chunksize);
            self.pushed_chunksize = self.mirror.chunksize;
        }
        // SAFETY: the mirror's cctx is NULL or a live context (ours or the client's).
        let cctx = unsafe { blosc2_context_s::try_ref(self.mirror.cctx) }.ok();
        let id = cctx.map_or(0, |c| c.id);
        if id != self.cctx_id.load(Ordering::Relaxed) {
            let adopted = match cctx.map(Context::compressor) {
                Some(Ok(c)) => {
                    self.schunk.use_compressor(c.clone());
                    Ok(())
                }
                // No context, or a decompression one: the super-chunk's own compressor (with
                // these c-blosc2 would fail or crash).
                _ => self.schunk.use_own_compressor(),
            };
            if adopted.is_ok() {
                self.cctx_id.store(id, Ordering::Relaxed);
            }
        }
        self.adopt_dctx();
    }

    /// The `dctx` part of [`SchunkHandle::take_client_writes`], which read calls make too
    /// ([`handle`]): the decompressor is swapped under its own lock, so threads reading the
    /// super-chunk at once each decompress with a whole one.
    fn adopt_dctx(&self) {
        // SAFETY: the mirror's dctx is NULL or a live context (ours or the client's).
        let dctx = unsafe { blosc2_context_s::try_ref(self.mirror.dctx) }.ok();
        let id = dctx.map_or(0, |c| c.id);
        if id == self.dctx_id.load(Ordering::Relaxed) {
            return;
        }
        let adopted = match dctx.map(Context::decompressor) {
            Some(Ok(d)) => {
                self.schunk.use_decompressor(d.clone());
                Ok(())
            }
            _ => self.schunk.use_own_decompressor(),
        };
        if adopted.is_ok() {
            self.dctx_id.store(id, Ordering::Relaxed);
        }
    }

    /// Points `mirror.data` at the chunks of an in-memory chunk list, as c-blosc2's
    /// `schunk->data` (a malloc'd array of chunk pointers grown 4096 bytes at a time, the slot
    /// after the last chunk NULL after a delete; NULL for frames). Rewrites only the positions
    /// that changed since the last call.
    fn sync_chunk_pointers(&mut self) {
        let Some(from) = self.schunk.take_list_changes() else {
            return;
        };
        let m = &mut self.mirror;
        let Some(list) = self.schunk.chunk_list() else {
            // SAFETY: data is NULL or our malloc'd array.
            unsafe { libc::free(m.data.cast()) };
            m.data = ptr::null_mut();
            m.data_len = 0;
            self.data_filled = 0;
            return;
        };
        let slot = std::mem::size_of::<*mut u8>();
        let needed = list.len() * slot;
        if needed > m.data_len {
            let grown = needed.div_ceil(4096) * 4096;
            // SAFETY: data is NULL or our malloc'd array; realloc keeps its content.
            let p = unsafe { libc::realloc(m.data.cast(), grown) }.cast::<*mut u8>();
            if p.is_null() {
                // Keep the old (shorter) array; the next call tries again.
                self.schunk.mark_list_changed(from);
                return;
            }
            m.data = p;
            m.data_len = grown;
        }
        let capacity = m.data_len / slot;
        if capacity == 0 {
            // An empty list never allocated the array: data is NULL, nothing to point at.
            return;
        }
        // Positions past the end (a chunk deleted, the list replaced by a shorter one) that
        // held a pointer are nulled.
        let end = self.data_filled.min(capacity).max(list.len());
        for i in from..end {
            let p = list
                .get(i)
                .map_or(ptr::null_mut(), |c| c.as_ptr().cast_mut());
            // SAFETY: data holds `capacity` pointers (data_len bytes, non-zero, so data is our
            // malloc'd array) and i < end <= capacity (list.len() <= capacity); written
            // through the raw pointer, as the slots past `data_filled` are uninitialised.
            unsafe { m.data.add(i).write(p) };
        }
        self.data_filled = list.len();
    }

    /// Re-syncs the mirror's public fields with the super-chunk.
    pub(super) fn sync(&mut self) {
        let s = &self.schunk;
        let cp = s.cparams();
        let m = &mut self.mirror;
        m.compcode = cp.compcode;
        m.compcode_meta = cp.compcode_meta;
        m.clevel = cp.clevel;
        m.splitmode = cp.splitmode.clamp(0, 255) as u8;
        m.typesize = cp.typesize;
        m.blocksize = s.blocksize();
        m.chunksize = s.chunksize();
        self.pushed_chunksize = m.chunksize;
        m.change_tick = s.change_tick();
        m.flags2 = s.flags2();
        m.use_dict = cp.use_dict as u8;
        m.filters = cp.filters;
        m.filters_meta = cp.filters_meta;
        m.nchunks = s.nchunks();
        m.nbytes = s.nbytes();
        m.cbytes = s.cbytes();
        m.storage = &mut self.storage;
        self.storage.contiguous = s.storage().contiguous;
        m.frame = if s.frame().is_some() {
            (&mut self.frame_token as *mut u64).cast()
        } else {
            ptr::null_mut()
        };
        let old = m.nmetalayers as usize;
        sync_layers(&mut m.metalayers, old, s.metalayers());
        m.nmetalayers = s.metalayers().len().min(m.metalayers.len()) as u16;
        let old = m.nvlmetalayers.max(0) as usize;
        sync_layers(&mut m.vlmetalayers, old, s.vlmetalayers());
        m.nvlmetalayers = s.vlmetalayers().len().min(m.vlmetalayers.len()) as i16;
        self.vl_slots_used = self.vl_slots_used.max(m.nvlmetalayers as usize);
        // The contexts C code compresses with (`schunk->cctx`) see the array layout the
        // super-chunk's metalayers describe now, as c-blosc2's filters read them on each call.
        let layout = s.layout().cloned();
        for ctx in [m.cctx, m.dctx] {
            // SAFETY: the handle's own contexts, from attach (or NULL).
            if let Ok(c) = unsafe { blosc2_context_s::try_mut(ctx) } {
                c.set_layout(layout.clone());
            }
        }
        // A b2nd view's super-chunk shows its base's chunk pointers (set by the b2nd layer).
        if !self.mirror.view {
            self.sync_chunk_pointers();
        }
    }
}

/// The array layout of the super-chunk a `blosc2_cparams`/`blosc2_dparams` names, for a context
/// the caller creates for it.
///
/// # Safety
/// `schunk` is NULL or a `blosc2_schunk *` this library handed out and has not freed.
pub(crate) unsafe fn schunk_layout(schunk: *mut c_void) -> Option<Arc<ArrayLayout>> {
    // SAFETY: forwarded contract.
    unsafe { schunk_ref_as_is(schunk.cast::<blosc2_schunk>()) }.and_then(|s| s.layout().cloned())
}

impl Drop for SchunkHandle {
    fn drop(&mut self) {
        let m = &mut self.mirror;
        let n = m.nmetalayers as usize;
        sync_layers(&mut m.metalayers, n, &[]);
        let n = m.nvlmetalayers.max(0) as usize;
        sync_layers(&mut m.vlmetalayers, n, &[]);
        // SAFETY: the contexts are the handle's own, from attach.
        unsafe {
            Context::free_handle(m.cctx);
            Context::free_handle(m.dctx);
        }
        m.cctx = ptr::null_mut();
        m.dctx = ptr::null_mut();
        if !m.view {
            // SAFETY: data is NULL or our malloc'd array of chunk pointers (a view's are its
            // base's).
            unsafe { libc::free(m.data.cast()) };
        }
        m.data = ptr::null_mut();
    }
}

/// The blocks of the lazy chunks a handle's frame hands out, for its `dctx` (so C code can
/// decompress a `blosc2_schunk_get_lazychunk` result with `schunk->dctx`, as with c-blosc2) and
/// for the contexts C creates with `dparams.schunk` set to the handle (see
/// [`schunk_lazy_blocks`]).
pub(super) struct HandleBlocks(*const SchunkHandle);

// SAFETY: the pointer is a boxed handle that outlives the contexts reading through it: the
// handle's own `dctx` is freed before the handle goes away, and a context C creates for a
// super-chunk may be used only while that super-chunk lives (c-blosc2's contexts dereference
// their `schunk` as well). Frame reads are positional (`&self`).
unsafe impl Send for HandleBlocks {}
// SAFETY: as for Send.
unsafe impl Sync for HandleBlocks {}

impl LazyBlocks for HandleBlocks {
    fn read_block(&self, nchunk: i32, chunk_offset: i64, offset: i64, len: i32) -> Result<Vec<u8>> {
        // SAFETY: see the Send impl: the handle outlives the contexts reading through it.
        let h = unsafe { &*self.0 };
        // A super-chunk without a frame has no blocks to give: c-blosc2 refuses a lazy chunk
        // then with BLOSC2_ERROR_INVALID_PARAM, as when the context has no super-chunk. Lazy
        // chunks only come from frames in files; c-blosc2 opens the frame's urlpath to read
        // their blocks, which fails with BLOSC2_ERROR_FILE_OPEN for a frame in memory.
        let frame = h.schunk.frame().ok_or(Error::InvalidParam)?;
        if h.schunk.storage().urlpath.is_none() {
            return Err(Error::FileOpen);
        }
        frame.read_block(nchunk, chunk_offset, offset, len)
    }
}

/// Where a context C creates with `dparams.schunk` set reads lazy chunks' blocks: that
/// super-chunk's frame, as c-blosc2 3.3.5 reads them through its context's `schunk->frame`
/// (None for NULL).
///
/// # Safety
/// `schunk` is NULL or a `blosc2_schunk *` this library handed out and has not freed, and it
/// lives as long as the context is used (c-blosc2's contract for `dparams.schunk`).
pub(crate) unsafe fn schunk_lazy_blocks(schunk: *mut c_void) -> Option<Arc<dyn LazyBlocks + Send>> {
    // Not `handle`: that adopts the handle's `dctx`, which a client swapping it has freed
    // before it creates the new one with `dparams.schunk` set (c-blosc2 does not read it
    // here); reads through the context adopt it then. SAFETY: forwarded contract.
    unsafe { blosc2_schunk::try_ref(schunk.cast::<blosc2_schunk>()) }
        .ok()
        .map(|h| Arc::new(HandleBlocks(h as *const SchunkHandle)) as Arc<dyn LazyBlocks + Send>)
}

/// Gives a super-chunk to C (freed by `blosc2_schunk_free`), with the default I/O.
#[allow(dead_code)] // for the b2nd C layer (b2nd_array_t.sc)
pub(crate) fn schunk_into_c(schunk: Schunk) -> *mut blosc2_schunk {
    SchunkHandle::create(default_io(), |_| Ok(schunk)).unwrap_or(ptr::null_mut())
}

// SAFETY: every `blosc2_schunk *` the library hands out is a boxed SchunkHandle, whose first
// field is the `blosc2_schunk` mirror (repr(C)), so the addresses agree.
unsafe impl Castable for blosc2_schunk {
    type RustType = SchunkHandle;
}

/// The handle behind a C pointer.
///
/// # Safety
/// `p` is NULL or a live pointer from this module (every `blosc2_schunk *` we hand out).
pub(super) unsafe fn handle<'a>(p: *const blosc2_schunk) -> Option<&'a SchunkHandle> {
    // SAFETY: forwarded contract.
    let h = unsafe { blosc2_schunk::try_ref(p) }.ok()?;
    h.adopt_dctx();
    Some(h)
}

/// # Safety
/// As for [`handle`], and no other reference to the handle is live.
pub(super) unsafe fn handle_mut<'a>(p: *mut blosc2_schunk) -> Option<&'a mut SchunkHandle> {
    // SAFETY: forwarded contract.
    let h = unsafe { blosc2_schunk::try_mut(p) }.ok()?;
    h.take_client_writes();
    Some(h)
}

/// Makes the chunk reads of `view` (a b2nd view's super-chunk) read `base`'s chunks.
///
/// # Safety
/// Both are live handles of ours; `base` outlives `view`.
pub(crate) unsafe fn set_chunk_source(view: *mut blosc2_schunk, base: *mut blosc2_schunk) {
    // SAFETY: forwarded contract (a plain field write, no client fields taken in).
    if let Ok(h) = unsafe { blosc2_schunk::try_mut(view) } {
        h.chunk_source = base;
    }
}

/// The super-chunk whose chunks a chunk read on `p` reads: `p`'s base when `p` is a b2nd view's
/// super-chunk, `p` itself otherwise.
///
/// # Safety
/// `p` is NULL or a live handle.
pub(super) unsafe fn chunk_source(p: *mut blosc2_schunk) -> *mut blosc2_schunk {
    // SAFETY: forwarded contract.
    match unsafe { blosc2_schunk::try_ref(p) } {
        Ok(h) if !h.chunk_source.is_null() => h.chunk_source,
        _ => p,
    }
}

/// The Rust super-chunk behind a `blosc2_schunk *` (None for NULL).
///
/// # Safety
/// `p` is NULL or a `blosc2_schunk *` this library handed out and has not freed.
pub(crate) unsafe fn schunk_ref<'a>(p: *const blosc2_schunk) -> Option<&'a Schunk> {
    // SAFETY: forwarded contract.
    unsafe { handle(p) }.map(|h| &h.schunk)
}

/// The Rust super-chunk behind a `blosc2_schunk *` (None for NULL), without taking in the
/// client's `dctx`: for contexts created from parameters that name the super-chunk, where
/// c-blosc2 reads only its fields. A client replacing the super-chunk's `dctx` frees the old
/// context before it stores the new one made from such parameters (python-blosc2's
/// `_set_postfilter`: `blosc2_free_ctx(schunk->dctx); schunk->dctx = blosc2_create_dctx(...)`),
/// so the field names a freed context meanwhile.
///
/// # Safety
/// `p` is NULL or a `blosc2_schunk *` this library handed out and has not freed.
pub(crate) unsafe fn schunk_ref_as_is<'a>(p: *const blosc2_schunk) -> Option<&'a Schunk> {
    // SAFETY: forwarded contract.
    unsafe { blosc2_schunk::try_ref(p) }.ok().map(|h| &h.schunk)
}

/// The Rust super-chunk behind a `blosc2_schunk *`, to modify; call [`sync_mirror`] after.
///
/// # Safety
/// As for [`schunk_ref`], and no other reference into the handle is live.
pub(crate) unsafe fn schunk_mut<'a>(p: *mut blosc2_schunk) -> Option<&'a mut Schunk> {
    // SAFETY: forwarded contract.
    unsafe { handle_mut(p) }.map(|h| &mut h.schunk)
}

/// Re-syncs the public fields C reads (nchunks, nbytes, cbytes, metalayers[] ...) after the
/// super-chunk changed.
///
/// # Safety
/// As for [`schunk_mut`].
pub(crate) unsafe fn sync_mirror(p: *mut blosc2_schunk) {
    // SAFETY: forwarded contract.
    if let Some(h) = unsafe { handle_mut(p) } {
        h.sync();
    }
}

/// `cparams` with c-blosc2's `blosc2_schunk_new` rule for its btune plugin tuner (id 32):
/// BTUNE_TRADEOFF set names it, and it takes no dictionary. None when neither applies.
fn btune_from_env(cparams: &blosc2_cparams, schunk: *mut blosc2_schunk) -> Option<blosc2_cparams> {
    let named = crate::capi::chunk::env_is_set(c"BTUNE_TRADEOFF");
    use crate::capi::tuner::BTUNE;
    if !named && cparams.tuner_id != BTUNE {
        return None;
    }
    let mut c = *cparams;
    c.tuner_id = BTUNE;
    c.use_dict = 0;
    c.schunk = schunk.cast();
    Some(c)
}

/// The core storage for a `blosc2_storage *` (NULL means BLOSC2_STORAGE_DEFAULTS; NULL
/// cparams/dparams/io mean their defaults). A urlpath ending in '/' names the same directory
/// without it, as c-blosc2 strips it.
///
/// # Safety
/// `p` is NULL or points to a valid `blosc2_storage` whose pointers are NULL or valid.
pub(crate) unsafe fn storage_from_c(p: *const blosc2_storage) -> Result<Storage> {
    // SAFETY: forwarded contract.
    unsafe { storage_from_c_for(p, ptr::null_mut()) }.map(|(s, _)| s)
}

/// [`storage_from_c`] with the `schunk` back-pointer the parameters get, and the `blosc2_io`.
pub(super) unsafe fn storage_from_c_for(
    p: *const blosc2_storage,
    schunk: *mut blosc2_schunk,
) -> Result<(Storage, blosc2_io)> {
    // SAFETY: NULL or valid per the contract.
    let Some(c) = (unsafe { p.as_ref() }) else {
        // The default backend still locks frames under BLOSC_LOCKING.
        let io = default_io();
        // SAFETY: the default blosc2_io (NULL params).
        let core_io = unsafe { io_from_c(&io) }?;
        let env = cctx_env();
        let mut storage = Storage {
            io: core_io,
            compressor_adjust: env.compressor_adjust(),
            ..Storage::default()
        };
        if let Some(n) = env.nthreads {
            storage.cparams.nthreads = n;
            storage.dparams.nthreads = n;
        }
        if let Some(btune) = btune_from_env(&cparams_to_c(&storage.cparams), schunk) {
            storage.cparams = cparams_from_c(&btune);
        }
        return Ok((storage, io));
    };
    // SAFETY: each pointer is NULL or valid per the contract.
    let (cp, dp, io) = unsafe { (c.cparams.as_ref(), c.dparams.as_ref(), c.io.as_ref()) };
    let mut cparams = cp
        .copied()
        .unwrap_or_else(|| cparams_to_c(&Default::default()));
    cparams.schunk = schunk.cast();
    let mut dparams = dp
        .copied()
        .unwrap_or_else(|| dparams_to_c(&Default::default()));
    dparams.schunk = schunk.cast();
    // The super-chunk's contexts take BLOSC_NTHREADS (c-blosc2 makes them with
    // blosc2_create_cctx/dctx), and its frame header records their counts from the start;
    // its compressor the other variables blosc2_create_cctx reads (its parameters stay these).
    let env = cctx_env();
    if let Some(n) = env.nthreads {
        cparams.nthreads = n;
        dparams.nthreads = n;
    }
    if let Some(btune) = btune_from_env(&cparams, schunk) {
        cparams = btune;
    }
    let io = io.copied().unwrap_or_else(default_io);
    let urlpath = if c.urlpath.is_null() {
        None
    } else {
        // SAFETY: a non-NULL urlpath is a C string per the contract.
        let s = unsafe { c_str(c.urlpath) }.ok_or(Error::InvalidParam)?;
        let trimmed = s.strip_suffix(['/', '\\']).unwrap_or(s);
        Some(PathBuf::from(trimmed))
    };
    let storage = Storage {
        contiguous: c.contiguous,
        urlpath,
        cparams: cparams_from_c(&cparams),
        dparams: dparams_from_c(&dparams),
        // SAFETY: io is a copy of the caller's valid blosc2_io.
        io: unsafe { io_from_c(&io) }?,
        compressor_adjust: env.compressor_adjust(),
    };
    Ok((storage, io))
}

impl SchunkHandle {
    /// The compression parameters a copy of this super-chunk gets when its storage names none:
    /// as in c-blosc2, a zeroed `blosc2_cparams` with its compression context's typesize,
    /// clevel, codec, dictionary flag, filters and block size (an automatic block size resolved
    /// to the last one the context used): the super-chunk's, as the environment changed them
    /// for its compressor. Everything else stays 0, nthreads too unless BLOSC_NTHREADS is set
    /// (the copy's context takes it).
    pub(super) fn copy_cparams(&self, at: *mut blosc2_schunk) -> crate::chunk::CParams {
        let src = cparams_to_c(self.schunk.compressor().params());
        // SAFETY: all-zero bytes are a valid blosc2_cparams (integers, NULL pointers, None).
        let mut cp: blosc2_cparams = unsafe { std::mem::zeroed() };
        cp.typesize = src.typesize;
        cp.clevel = src.clevel;
        cp.compcode = src.compcode;
        cp.use_dict = src.use_dict;
        cp.blocksize = if src.blocksize == 0 {
            self.cctx_blocksize
        } else {
            src.blocksize
        };
        cp.filters = src.filters;
        cp.filters_meta = src.filters_meta;
        // c-blosc2 takes these from its compression context too (the frames of copies,
        // to_buffer and to_file record them).
        cp.splitmode = src.splitmode;
        cp.compcode_meta = src.compcode_meta;
        cp.schunk = at.cast();
        // The copy's context takes BLOSC_NTHREADS (its frame header records it).
        cp.nthreads = env_nthreads().unwrap_or(0);
        cparams_from_c(&cp)
    }

    /// A contiguous copy of the super-chunk (in memory, or at `urlpath`), as
    /// `blosc2_schunk_to_buffer`/`_to_file` make one.
    pub(super) fn contiguous_copy(&self, urlpath: Option<PathBuf>) -> Result<Schunk> {
        self.copy_to(self.contiguous_storage(urlpath), None)
    }

    /// The storage of a contiguous copy (in memory, or at `urlpath`) as
    /// `blosc2_schunk_to_buffer`/`_to_file` give it: no parameters of its own.
    pub(super) fn contiguous_storage(&self, urlpath: Option<PathBuf>) -> Storage {
        Storage {
            contiguous: true,
            urlpath,
            cparams: self.copy_cparams(ptr::null_mut()),
            dparams: crate::chunk::DParams {
                nthreads: env_nthreads().unwrap_or(1),
                ..Default::default()
            },
            io: self.schunk.storage().io.clone(),
            compressor_adjust: cctx_env().compressor_adjust(),
        }
    }

    /// Whether a copy with `cp` takes the chunks as they are stored. c-blosc2 compares `cp`
    /// (an automatic block size standing for its context's) with the super-chunk's compression
    /// context, whose block size is the one it last compressed with, not the automatic 0 the
    /// super-chunk's own parameters may keep; and recompresses when there is a prefilter or a
    /// postfilter, so that they run.
    fn copies_as_stored(&self, cp: &crate::chunk::CParams) -> bool {
        let compressor = self.schunk.compressor();
        let src = compressor.params();
        let blocksize = if cp.blocksize == 0 {
            self.cctx_blocksize
        } else {
            cp.blocksize
        };
        cp.typesize == src.typesize
            && cp.clevel == src.clevel
            && cp.compcode == src.compcode
            && cp.use_dict == src.use_dict
            && blocksize == self.cctx_blocksize
            && cp.filters == src.filters
            && cp.filters_meta == src.filters_meta
            && src.prefilter.is_none()
            && self.schunk.decompressor().params().postfilter.is_none()
    }

    /// The super-chunk copied into `storage` as `blosc2_schunk_copy` does (into `store` when
    /// given, see `Schunk::copy_to_store`).
    pub(super) fn copy_to(
        &self,
        storage: Storage,
        store: Option<Box<dyn ByteStore>>,
    ) -> Result<Schunk> {
        let as_stored = self.copies_as_stored(&storage.cparams);
        let out = match store {
            Some(store) => self.schunk.copy_to_store(storage, store, as_stored)?,
            None => self.schunk.copy_chunks(storage, as_stored)?,
        };
        readd_vlmetalayers(&self.schunk, out)
    }
}

/// Each vlmetalayer of `src` re-added to its copy `out` from its decompressed content with the
/// default parameters, as `blosc2_schunk_copy` does (c-blosc2 recompresses them rather than
/// copying the stored bytes).
pub(super) fn readd_vlmetalayers(src: &Schunk, mut out: Schunk) -> Result<Schunk> {
    for m in src.vlmetalayers() {
        let content = src.vlmeta_get(&m.name)?;
        out.vlmeta_update(&m.name, &content, None)?;
    }
    Ok(out)
}

/// Sets `current_nchunk` (read by pre/postfilters through the params' schunk pointer) with an
/// atomic store: readers on several threads may set it at once.
///
/// # Safety
/// `p` is a live handle.
pub(super) unsafe fn set_current_nchunk(p: *const blosc2_schunk, n: i64) {
    // SAFETY: the field is an aligned i64 inside the live handle; all concurrent accesses from
    // this library go through atomics.
    unsafe {
        let field = ptr::addr_of!((*p).current_nchunk).cast_mut();
        AtomicI64::from_ptr(field).store(n, Ordering::Relaxed);
    }
}
