//! The super-chunk C layer: the `blosc2_schunk` handle, the blosc2_schunk_* functions and the
//! frame functions of blosc2.h (to/from buffer, files, offsets).
//!
//! The handle: C code reads `blosc2_schunk` fields directly (nchunks, nbytes, storage, cctx,
//! metalayers[] ...), so every super-chunk given to C is a [`SchunkHandle`] whose FIRST field is
//! that mirror; the pointer C holds is the handle's address, and the handle is recovered from
//! it on the way in. After every call that may change the super-chunk the mirror is re-synced
//! ([`sync_mirror`]). Stable entry points for other C-layer files (b2nd):
//! [`schunk_into_c`], [`schunk_ref`], [`schunk_mut`], [`sync_mirror`], [`storage_from_c`].

use std::borrow::Cow;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::ptr;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use libc::{c_char, c_int, c_void};

use crate::capi::ffi::{c_str, entry, malloc_copy};
use crate::capi::io::{destroy_io, io_from_c, FILESYSTEM_NAME};
use crate::capi::malloc_frame::MallocFrame;
use crate::capi::params::{
    self, cparams_from_c, cparams_to_c, dparams_from_c, dparams_to_c, Context,
};
use crate::capi::types::*;
use crate::chunk::decompress::LazyBlocks;
use crate::chunk::header::{Special, MAX_OVERHEAD};
use crate::chunk::params::ArrayLayout;
use crate::chunk::scratch::with_chunk_out;
use crate::chunk::{vlblocks, ChunkHeader};
use crate::frame::header::Meta;
use crate::frame::io::{ByteStore, Io, SharedBytes};
use crate::schunk::{Schunk, Storage};
use crate::{Error, Result};

/// What C holds as a `blosc2_schunk *`: the mirror first (so the pointer to the handle is a
/// pointer to the mirror), then the Rust super-chunk and the C structs the mirror points to.
#[repr(C)]
pub(crate) struct SchunkHandle {
    mirror: blosc2_schunk,
    schunk: Schunk,
    storage: blosc2_storage,
    cparams: blosc2_cparams,
    dparams: blosc2_dparams,
    io: blosc2_io,
    urlpath: Option<CString>,
    /// `blosc2_schunk_avoid_cframe_free`: the caller took the in-memory frame buffer.
    avoid_cframe_free: bool,
    /// Where the frame starts in its file (`blosc2_schunk_open_offset`), for refreshes.
    offset: i64,
    /// The block size of the last chunk the super-chunk compressed (c-blosc2's
    /// `cctx->blocksize`, which copies and frames written from this super-chunk inherit when
    /// their parameters leave the block size automatic).
    cctx_blocksize: i32,
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
}

// ----- malloc'd metalayer entries -----------------------------------------------------------

/// A malloc'd `blosc2_metalayer` (name and content malloc'd too), as c-blosc2 keeps them.
fn alloc_metalayer(m: &Meta) -> *mut blosc2_metalayer {
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
fn free_metalayer(p: *mut blosc2_metalayer) {
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
fn metalayer_is(p: *const blosc2_metalayer, m: &Meta) -> bool {
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
fn sync_layers(slots: &mut [*mut blosc2_metalayer], old: usize, metas: &[Meta]) {
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
fn default_io() -> blosc2_io {
    blosc2_io {
        id: 0,
        name: FILESYSTEM_NAME.as_ptr(),
        params: ptr::null_mut(),
    }
}

impl SchunkHandle {
    /// Boxes a handle around the super-chunk `build` makes; `build` gets the address C will
    /// hold (the mirror's), for the `schunk` back-pointers of the parameters.
    fn create(
        io: blosc2_io,
        build: impl FnOnce(*mut blosc2_schunk) -> Result<Schunk>,
    ) -> Result<*mut blosc2_schunk> {
        let placeholder = Schunk::new(Storage::default())?;
        // The mirror is 64 KiB (c-blosc2's vlmetalayers array): it is zeroed where it lives
        // rather than built on the stack and moved, which cost b2nd_open a third of its time.
        let mut h = Box::<SchunkHandle>::new_zeroed();
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
        self.cparams = cparams_to_c(self.schunk.cparams());
        self.cparams.schunk = at.cast();
        self.dparams = dparams_to_c(self.schunk.dparams());
        self.dparams.schunk = at.cast();
        // A super-chunk opened from a frame has parameters without the back-pointer to this
        // handle: user codecs and filters get it as c-blosc2 gives them the super-chunk.
        self.schunk.adopt_owner(
            cparams_from_c(&self.cparams).owner,
            dparams_from_c(&self.dparams).owner,
        )?;
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
        // As c-blosc2's blosc2_create_cctx for the super-chunk: a tuner the parameters name is
        // initialised with the new context, and the super-chunk fails to exist if it refuses.
        // The super-chunk's typesize, which BYTEDELTA with meta 0 takes (as in c-blosc2).
        let schunk_ts = Some(self.schunk.cparams().typesize);
        self.mirror.cctx = match Context::new_compress(&self.cparams, |p| {
            p.schunk_typesize = schunk_ts;
        }) {
            Ok(ctx) => params::boxed_with_tuner(ctx, &self.cparams)?.into_raw(),
            Err(_) => ptr::null_mut(),
        };
        self.mirror.dctx = Context::new_decompress(&self.dparams, |p| {
            p.schunk_typesize = schunk_ts;
        })
        .map_or(ptr::null_mut(), Context::into_handle);
        // SAFETY: the context just created above, owned by this handle.
        if let Some(d) = unsafe { Context::from_handle(self.mirror.dctx) } {
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
            let ctx_id = unsafe { Context::ref_from_handle(ctx) }.map_or(0, |c| c.id);
            id.store(ctx_id, Ordering::Relaxed);
        }
        self.sync();
        Ok(())
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
        let cctx = unsafe { Context::ref_from_handle(self.mirror.cctx) };
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
        let dctx = unsafe { Context::ref_from_handle(self.mirror.dctx) };
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
            // SAFETY: the new tail of the array is ours to initialise.
            unsafe { ptr::write_bytes(p.add(m.data_len / slot), 0, (grown - m.data_len) / slot) };
            m.data = p;
            m.data_len = grown;
        }
        let capacity = m.data_len / slot;
        // SAFETY: data holds `capacity` pointers (data_len bytes), list.len() <= capacity.
        let slots = unsafe { std::slice::from_raw_parts_mut(m.data, capacity) };
        for (i, chunk) in list.iter().enumerate().skip(from) {
            slots[i] = chunk.as_ptr().cast_mut();
        }
        // Positions past the end: a chunk deleted or the list replaced by a shorter one.
        for s in slots.iter_mut().skip(list.len().max(from)) {
            if s.is_null() {
                break;
            }
            *s = ptr::null_mut();
        }
    }

    /// Re-syncs the mirror's public fields with the super-chunk.
    fn sync(&mut self) {
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
        // The contexts C code compresses with (`schunk->cctx`) see the array layout the
        // super-chunk's metalayers describe now, as c-blosc2's filters read them on each call.
        let layout = s.layout().cloned();
        for ctx in [m.cctx, m.dctx] {
            // SAFETY: the handle's own contexts, from attach (or NULL).
            if let Some(c) = unsafe { Context::from_handle(ctx) } {
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
    unsafe { schunk_ref(schunk.cast::<blosc2_schunk>()) }.and_then(|s| s.layout().cloned())
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
struct HandleBlocks(*const SchunkHandle);

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
    // SAFETY: forwarded contract.
    unsafe { handle(schunk.cast::<blosc2_schunk>()) }
        .map(|h| Arc::new(HandleBlocks(h as *const SchunkHandle)) as Arc<dyn LazyBlocks + Send>)
}

/// Gives a super-chunk to C (freed by `blosc2_schunk_free`), with the default I/O.
#[allow(dead_code)] // for the b2nd C layer (b2nd_array_t.sc)
pub(crate) fn schunk_into_c(schunk: Schunk) -> *mut blosc2_schunk {
    SchunkHandle::create(default_io(), |_| Ok(schunk)).unwrap_or(ptr::null_mut())
}

/// The handle behind a C pointer.
///
/// # Safety
/// `p` is NULL or a live pointer from this module (every `blosc2_schunk *` we hand out).
unsafe fn handle<'a>(p: *const blosc2_schunk) -> Option<&'a SchunkHandle> {
    // SAFETY: the mirror is the first field of the repr(C) handle, so the addresses agree.
    let h = unsafe { p.cast::<SchunkHandle>().as_ref() }?;
    h.adopt_dctx();
    Some(h)
}

/// # Safety
/// As for [`handle`], and no other reference to the handle is live.
unsafe fn handle_mut<'a>(p: *mut blosc2_schunk) -> Option<&'a mut SchunkHandle> {
    // SAFETY: as in `handle`.
    let h = unsafe { p.cast::<SchunkHandle>().as_mut() }?;
    h.take_client_writes();
    Some(h)
}

/// Makes the chunk reads of `view` (a b2nd view's super-chunk) read `base`'s chunks.
///
/// # Safety
/// Both are live handles of ours; `base` outlives `view`.
pub(crate) unsafe fn set_chunk_source(view: *mut blosc2_schunk, base: *mut blosc2_schunk) {
    // SAFETY: forwarded contract (a plain field write, no client fields taken in).
    if let Some(h) = unsafe { view.cast::<SchunkHandle>().as_mut() } {
        h.chunk_source = base;
    }
}

/// The super-chunk whose chunks a chunk read on `p` reads: `p`'s base when `p` is a b2nd view's
/// super-chunk, `p` itself otherwise.
///
/// # Safety
/// `p` is NULL or a live handle.
unsafe fn chunk_source(p: *mut blosc2_schunk) -> *mut blosc2_schunk {
    // SAFETY: forwarded contract.
    match unsafe { p.cast::<SchunkHandle>().as_ref() } {
        Some(h) if !h.chunk_source.is_null() => h.chunk_source,
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
unsafe fn storage_from_c_for(
    p: *const blosc2_storage,
    schunk: *mut blosc2_schunk,
) -> Result<(Storage, blosc2_io)> {
    // SAFETY: NULL or valid per the contract.
    let Some(c) = (unsafe { p.as_ref() }) else {
        // The default backend still locks frames under BLOSC_LOCKING.
        let io = default_io();
        // SAFETY: the default blosc2_io (NULL params).
        let core_io = unsafe { io_from_c(&io) }?;
        return Ok((
            Storage {
                io: core_io,
                ..Storage::default()
            },
            io,
        ));
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
    };
    Ok((storage, io))
}

impl SchunkHandle {
    /// The compression parameters a copy of this super-chunk gets when its storage names none:
    /// as in c-blosc2, a zeroed `blosc2_cparams` with the super-chunk's typesize, clevel, codec,
    /// dictionary flag, filters and block size (an automatic block size resolved to the last
    /// one its compression context used); everything else, nthreads included, stays 0.
    fn copy_cparams(&self, at: *mut blosc2_schunk) -> crate::chunk::CParams {
        let src = cparams_to_c(self.schunk.cparams());
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
        cparams_from_c(&cp)
    }

    /// A contiguous copy of the super-chunk (in memory, or at `urlpath`), as
    /// `blosc2_schunk_to_buffer`/`_to_file` make one.
    fn contiguous_copy(&self, urlpath: Option<PathBuf>) -> Result<Schunk> {
        self.copy_to(self.contiguous_storage(urlpath), None)
    }

    /// The storage of a contiguous copy (in memory, or at `urlpath`) as
    /// `blosc2_schunk_to_buffer`/`_to_file` give it: no parameters of its own.
    fn contiguous_storage(&self, urlpath: Option<PathBuf>) -> Storage {
        Storage {
            contiguous: true,
            urlpath,
            cparams: self.copy_cparams(ptr::null_mut()),
            dparams: Default::default(),
            io: self.schunk.storage().io.clone(),
        }
    }

    /// Whether a copy with `cp` takes the chunks as they are stored. c-blosc2 compares `cp`
    /// (an automatic block size standing for its context's) with the super-chunk's compression
    /// context, whose block size is the one it last compressed with, not the automatic 0 the
    /// super-chunk's own parameters may keep; and recompresses when there is a prefilter or a
    /// postfilter, so that they run.
    fn copies_as_stored(&self, cp: &crate::chunk::CParams) -> bool {
        let src = self.schunk.cparams();
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
            && self.schunk.dparams().postfilter.is_none()
    }

    /// The super-chunk copied into `storage` as `blosc2_schunk_copy` does (into `store` when
    /// given, see `Schunk::copy_to_store`).
    fn copy_to(&self, storage: Storage, store: Option<Box<dyn ByteStore>>) -> Result<Schunk> {
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
fn readd_vlmetalayers(src: &Schunk, mut out: Schunk) -> Result<Schunk> {
    for m in src.vlmetalayers() {
        let content = src.vlmeta_get(&m.name)?;
        out.vlmeta_update(&m.name, &content, None)?;
    }
    Ok(out)
}

// ----- helpers ------------------------------------------------------------------------------

fn to_c_int(n: i64) -> Result<c_int> {
    c_int::try_from(n).map_err(|_| Error::Failure)
}

/// The compressed chunk at `p`: its header's cbytes bytes.
///
/// # Safety
/// `p` is NULL or points to a chunk whose header's cbytes bytes are readable for 'a.
unsafe fn c_chunk<'a>(p: *const u8) -> Result<&'a [u8]> {
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: every chunk starts with the 16-byte minimal header, cbytes at 12..16.
    let head = unsafe { std::slice::from_raw_parts(p, 16) };
    let cbytes = i32::from_le_bytes([head[12], head[13], head[14], head[15]]);
    if cbytes < 16 {
        return Err(Error::ReadBuffer);
    }
    // SAFETY: the caller's chunk holds cbytes bytes, per the API.
    Ok(unsafe { std::slice::from_raw_parts(p, cbytes as usize) })
}

/// Hands a chunk to C: borrowed ones as pointers into the super-chunk (needs_free false),
/// others malloc'd (needs_free true). Returns the chunk's length.
///
/// # Safety
/// `chunk` and `needs_free` are NULL or writable.
unsafe fn give_chunk(
    c: Cow<'_, [u8]>,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> Result<c_int> {
    let len = c_int::try_from(c.len()).map_err(|_| Error::MaxBufsizeExceeded)?;
    let (p, free) = match c {
        Cow::Borrowed(b) => (b.as_ptr().cast_mut(), false),
        Cow::Owned(v) => (malloc_copy(&v)?, true),
    };
    // SAFETY: NULL-checked outputs, writable per the contract.
    unsafe {
        if !chunk.is_null() {
            *chunk = p;
        }
        if !needs_free.is_null() {
            *needs_free = free;
        }
    }
    Ok(len)
}

/// A C path argument.
///
/// # Safety
/// `s` is NULL or a NUL-terminated string.
unsafe fn c_path(s: *const c_char) -> Result<PathBuf> {
    // SAFETY: forwarded contract.
    let s = unsafe { c_str(s) }.ok_or(Error::InvalidParam)?;
    Ok(PathBuf::from(s.strip_suffix(['/', '\\']).unwrap_or(s)))
}

/// The common part of append/insert/update_chunk: stores the caller's `chunk` through `op` and,
/// when `copy` is false, frees it as c-blosc2 does (the caller handed over its malloc'd chunk).
///
/// # Safety
/// `schunk` is NULL or live; `chunk` is NULL or a valid malloc'd chunk.
unsafe fn store_given_chunk(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
    resync: impl FnOnce(&Schunk) -> bool,
    op: impl FnOnce(&mut Schunk, &[u8]) -> Result<i64>,
) -> i64 {
    entry(|| {
        // SAFETY: chunk is NULL or a valid chunk per the API.
        let c = unsafe { c_chunk(chunk) }?;
        // SAFETY: schunk is NULL or live per the API.
        let n = unsafe { change_shared_frame(schunk, resync, |s| op(s, c)) }?;
        if !copy {
            // SAFETY: with copy false the caller handed us its malloc'd chunk.
            unsafe { libc::free(chunk.cast()) };
        }
        Ok(n)
    })
}

/// Runs a change on the super-chunk behind `p` and re-syncs the mirror (also on failure: the
/// core may have done part of the work, as c-blosc2's counters show).
///
/// # Safety
/// `p` is NULL or a live handle, not used concurrently.
unsafe fn modify<T>(p: *mut blosc2_schunk, f: impl FnOnce(&mut Schunk) -> Result<T>) -> Result<T> {
    // SAFETY: forwarded contract.
    unsafe { change_shared_frame(p, |_| false, f) }
}

/// Runs a change as c-blosc2 does on a frame other handles may share: holding the frame lock
/// exclusively (when the handle locks), and first re-reading the frame if another handle
/// changed it and `resync` says this call re-syncs (c-blosc2 re-syncs on appends and inserts,
/// and on calls that read a chunk or a vlmetalayer, once the index passed its own checks).
/// Re-syncs the mirror after, also on failure.
///
/// # Safety
/// `p` is NULL or a live handle, not used concurrently.
pub(crate) unsafe fn change_shared_frame<T>(
    p: *mut blosc2_schunk,
    resync: impl FnOnce(&Schunk) -> bool,
    f: impl FnOnce(&mut Schunk) -> Result<T>,
) -> Result<T> {
    // SAFETY: forwarded contract.
    let h = unsafe { handle_mut(p) }.ok_or(Error::NullPointer)?;
    h.schunk.lock()?;
    let s = &mut h.schunk;
    let r = if resync(s) {
        s.refresh().and_then(|_| f(s))
    } else {
        f(s)
    };
    let unlocked = h.schunk.unlock();
    h.sync();
    let v = r?;
    unlocked?;
    Ok(v)
}

/// Read calls hold this shared while they use a super-chunk; a read call that must re-read a
/// frame another handle changed does so holding it exclusively, so threads reading one handle
/// at once never see it change under them. Only ever tried for exclusive use (`try_write`):
/// a read that cannot have it (other reads in progress) reads the frame as it knew it, and a
/// read made from inside a callback of another read cannot deadlock.
static READ_GATE: RwLock<()> = RwLock::new(());

/// Runs a read call as c-blosc2 does on a frame other handles may share: holding the frame
/// lock shared (when the handle locks), after re-reading the frame if another handle changed
/// it and `resync` says this call re-syncs (see [`change_shared_frame`]).
///
/// # Safety
/// `p` is NULL or a live handle; other threads may only be reading it.
pub(crate) unsafe fn read_shared_frame<T>(
    p: *mut blosc2_schunk,
    resync: impl FnOnce(&Schunk) -> bool,
    f: impl FnOnce(&Schunk) -> Result<T>,
) -> Result<T> {
    // SAFETY: forwarded contract.
    let s = unsafe { read(p) }?;
    if s.storage().urlpath.is_none() {
        // Not on disk: no other handle can change it, so there is nothing to re-sync and no
        // frame lock; a call that merely returns what the handle holds (an in-memory
        // `to_buffer`) then touches no shared state at all, as c-blosc2's.
        return f(s);
    }
    let gate = READ_GATE.read().unwrap_or_else(|e| e.into_inner());
    s.lock_shared()?;
    let mut gate = Some(gate);
    if resync(s) && s.is_stale() {
        drop(gate.take());
        if let Ok(exclusive) = READ_GATE.try_write() {
            // SAFETY: live per the contract; with the gate held exclusively no read call is
            // using the handle, and changes are not made concurrently (the API's contract).
            if let Some(h) = unsafe { handle_mut(p) } {
                let refreshed = h.schunk.refresh();
                h.sync();
                if let Err(e) = refreshed {
                    let _ = h.schunk.unlock();
                    return Err(e);
                }
            }
            drop(exclusive);
        }
        gate = Some(READ_GATE.read().unwrap_or_else(|e| e.into_inner()));
    }
    // SAFETY: as above (re-derived after the refresh).
    let s = unsafe { read(p) }?;
    let r = f(s);
    let unlocked = s.unlock();
    drop(gate);
    let v = r?;
    unlocked?;
    Ok(v)
}

/// # Safety
/// `p` is NULL or a live handle.
unsafe fn read<'a>(p: *const blosc2_schunk) -> Result<&'a Schunk> {
    // SAFETY: forwarded contract.
    unsafe { schunk_ref(p) }.ok_or(Error::NullPointer)
}

/// Re-reads the frame if another handle changed it, for calls that read the whole super-chunk
/// (copies, serialisations), which c-blosc2 re-syncs by reading its chunks.
///
/// # Safety
/// `p` is NULL or a live handle.
unsafe fn resync_whole(p: *mut blosc2_schunk) -> Result<()> {
    // SAFETY: forwarded contract.
    unsafe { read_shared_frame(p, |_| true, |_| Ok(())) }
}

/// Whether `nchunk` is a chunk the super-chunk knows of (calls on others fail before reading).
fn known_chunk(s: &Schunk, nchunk: i64) -> bool {
    (0..s.nchunks()).contains(&nchunk)
}

/// Sets `current_nchunk` (read by pre/postfilters through the params' schunk pointer) with an
/// atomic store: readers on several threads may set it at once.
///
/// # Safety
/// `p` is a live handle.
unsafe fn set_current_nchunk(p: *const blosc2_schunk, n: i64) {
    // SAFETY: the field is an aligned i64 inside the live handle; all concurrent accesses from
    // this library go through atomics.
    unsafe {
        let field = ptr::addr_of!((*p).current_nchunk).cast_mut();
        AtomicI64::from_ptr(field).store(n, Ordering::Relaxed);
    }
}

// ----- creation and destruction -------------------------------------------------------------

/// Creates an empty super-chunk stored as `storage` says (NULL: in memory with default
/// parameters): in memory or on disk at `storage->urlpath`, as a contiguous frame or (sparse) a
/// directory. `storage` and what it points to are copied, except `storage->io`, whose params
/// must outlive the super-chunk. Returns the super-chunk, which the caller releases with
/// `blosc2_schunk_free`, or NULL on invalid parameters or when the file cannot be created.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_new(storage: *mut blosc2_storage) -> *mut blosc2_schunk {
    entry(|| {
        // The handle keeps the caller's blosc2_io; the storage is converted again once the
        // handle's address (the parameters' schunk back-pointer) is known.
        // SAFETY: storage is NULL or valid per the API.
        let (_, io) = unsafe { storage_from_c_for(storage, ptr::null_mut()) }?;
        SchunkHandle::create(io, |at| {
            // SAFETY: as above; `at` is where the handle will live.
            let (st, _) = unsafe { storage_from_c_for(storage, at) }?;
            Schunk::new(st)
        })
    })
}

/// Copies `schunk` (chunks, metalayers and vlmetalayers) into a new super-chunk stored as
/// `storage` says. Chunks are copied as they are when the compression parameters match and
/// recompressed otherwise; without `storage->cparams` the source's parameters are kept. Returns
/// the copy, which the caller releases with `blosc2_schunk_free`, or NULL on error.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_copy(
    schunk: *mut blosc2_schunk,
    storage: *mut blosc2_storage,
) -> *mut blosc2_schunk {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        unsafe { resync_whole(schunk) }?;
        // SAFETY: as above.
        let h = unsafe { handle(schunk) }.ok_or(Error::NullPointer)?;
        // SAFETY: storage is NULL or valid per the API.
        let (_, io) = unsafe { storage_from_c_for(storage, ptr::null_mut()) }?;
        // c-blosc2 keeps the source's compression parameters when the storage names none.
        // SAFETY: storage is NULL or valid per the API.
        let keep_cparams = unsafe { storage.as_ref() }.is_none_or(|s| s.cparams.is_null());
        SchunkHandle::create(io, |at| {
            // SAFETY: as above.
            let (mut st, _) = unsafe { storage_from_c_for(storage, at) }?;
            if keep_cparams {
                st.cparams = h.copy_cparams(at);
            }
            h.copy_to(st, None).map_err(|_| Error::SchunkCopy)
        })
    })
}

/// Releases `schunk`: its chunks, metalayers, contexts and frame (a file-backed frame stays on
/// disk; use `blosc2_remove_urlpath` to delete it), and calls the `destroy` callback of a user I/O
/// backend. A frame buffer obtained from `blosc2_schunk_to_buffer` after
/// `blosc2_schunk_avoid_cframe_free(schunk, true)` is left to the caller. NULL is accepted.
/// Returns 0.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_free(schunk: *mut blosc2_schunk) -> c_int {
    entry(|| {
        if schunk.is_null() {
            return Ok(0);
        }
        // SAFETY: a live handle from this module, not used after this call (per the API).
        let mut h = unsafe { Box::from_raw(schunk.cast::<SchunkHandle>()) };
        if h.avoid_cframe_free {
            // The caller took the frame buffer (from blosc2_schunk_to_buffer) and frees it
            // itself: leave that one allocation alive, free the rest of the super-chunk.
            if let Some(bytes) = h.schunk.take_frame_bytes() {
                std::mem::forget(bytes);
            }
        }
        let io = h.io;
        drop(h);
        // SAFETY: the super-chunk and its stores are gone; io is the one it was used with.
        unsafe { destroy_io(&io) };
        Ok(0)
    })
}

/// With `avoid_cframe_free` true, `blosc2_schunk_free` leaves the in-memory frame buffer of
/// `schunk` alive: for a caller that took that buffer from `blosc2_schunk_to_buffer`
/// (needs_free false) and will free it itself with free(). Does nothing for NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_avoid_cframe_free(
    schunk: *mut blosc2_schunk,
    avoid_cframe_free: bool,
) {
    // SAFETY: schunk is NULL or live per the API.
    if let Some(h) = unsafe { handle_mut(schunk) } {
        h.avoid_cframe_free = avoid_cframe_free;
    }
}

// ----- chunks -------------------------------------------------------------------------------

/// Compresses the `nbytes` bytes at `src` into a new chunk with the super-chunk's compression
/// context (`schunk->cctx`) and appends it; the caller keeps `src`. All chunks but the last must
/// hold `schunk->chunksize` bytes. Returns the new number of chunks, or a negative code
/// (BLOSC2_ERROR_INVALID_PARAM for a NULL `src` or a negative size, BLOSC2_ERROR_NULL_POINTER, a
/// compression error, BLOSC2_ERROR_CHUNK_APPEND when the size does not fit the super-chunk, a
/// frame-writing error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_buffer(
    schunk: *mut blosc2_schunk,
    src: *const c_void,
    nbytes: i32,
) -> i64 {
    entry(|| {
        if src.is_null() || nbytes < 0 {
            return Err(Error::InvalidParam);
        }
        // SAFETY: src holds nbytes readable bytes per the API.
        let data = unsafe { std::slice::from_raw_parts(src.cast::<u8>(), nbytes as usize) };
        // SAFETY: schunk is NULL or live per the API.
        let h = unsafe { handle_mut(schunk) }.ok_or(Error::NullPointer)?;
        h.mirror.current_nchunk = h.schunk.nchunks();
        // SAFETY: the handle's own context, live while the handle is.
        let ctx = unsafe { Context::from_handle(h.mirror.cctx) }.ok_or(Error::NullPointer)?;
        let compressor = ctx.compressor()?;
        // Compressed into the thread's reused buffer, then stored at its compressed size (a
        // frame copies it in, a list keeps an exact-size copy). A chunk-sized buffer per call
        // was zeroed by calloc once glibc served it from the heap, and, above glibc's mmap
        // threshold, mapped, shrunk and unmapped per chunk (faulting its pages in each time).
        with_chunk_out(data.len() + MAX_OVERHEAD, |chunk| {
            let n = compressor.compress(data, chunk)?;
            if n == 0 {
                return Err(Error::Failure);
            }
            let chunk = &chunk[..n];
            h.cctx_blocksize = ChunkHeader::parse(chunk)?.blocksize;
            // SAFETY: schunk is live per the API; `h` is not used after this.
            unsafe { change_shared_frame(schunk, |_| true, |s| s.append_chunk(chunk)) }
        })
    })
}

/// Appends the already compressed `chunk` (size taken from its header) to `schunk`. With `copy`
/// true the super-chunk stores a copy and the caller keeps `chunk`; with `copy` false the
/// super-chunk takes ownership of `chunk` (it must come from malloc) and frees it once stored.
/// On error the caller keeps ownership in both cases. Returns the new number of chunks, or a
/// negative code (BLOSC2_ERROR_NULL_POINTER, a header error, BLOSC2_ERROR_CHUNK_APPEND for a
/// chunk whose size or typesize does not fit the super-chunk, a frame-writing error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_chunk(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: forwarded contract.
    unsafe { store_given_chunk(schunk, chunk, copy, |_| true, |s, c| s.append_chunk(c)) }
}

/// Inserts the compressed `chunk` at position `nchunk` (0 .. nchunks), shifting the following
/// chunks. Ownership of `chunk` as in `blosc2_schunk_append_chunk` (`copy` false: the
/// super-chunk frees it on success). Returns the new number of chunks, or a negative code
/// (BLOSC2_ERROR_INVALID_PARAM for a position out of range, BLOSC2_ERROR_CHUNK_INSERT, a header or
/// frame-writing error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_insert_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: forwarded contract.
    unsafe {
        store_given_chunk(
            schunk,
            chunk,
            copy,
            |_| true,
            |s, c| s.insert_chunk(nchunk, c),
        )
    }
}

/// Replaces chunk `nchunk` with the compressed `chunk`. Ownership of `chunk` as in
/// `blosc2_schunk_append_chunk` (`copy` false: the super-chunk frees it on success). Returns the
/// number of chunks, or a negative code (BLOSC2_ERROR_INVALID_PARAM for a chunk number out of
/// range, BLOSC2_ERROR_CHUNK_UPDATE, a header or frame-writing error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_update_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: forwarded contract.
    unsafe {
        store_given_chunk(
            schunk,
            chunk,
            copy,
            |s| known_chunk(s, nchunk),
            |s, c| s.update_chunk(nchunk, c),
        )
    }
}

/// Removes chunk `nchunk` from `schunk`. Returns the number of chunks left, or a negative code
/// (BLOSC2_ERROR_INVALID_PARAM for a chunk number out of range, BLOSC2_ERROR_NULL_POINTER, a
/// frame-writing error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_delete_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
) -> i64 {
    // SAFETY: schunk is NULL or live per the API.
    entry(|| unsafe {
        change_shared_frame(
            schunk,
            |s| known_chunk(s, nchunk),
            |s| s.delete_chunk(nchunk),
        )
    })
}

/// Decompresses chunk `nchunk` of `schunk` into `dest` (room for `nbytes` bytes) with the
/// super-chunk's decompression context. Returns the number of bytes written, or a negative
/// code (BLOSC2_ERROR_INVALID_PARAM for a NULL `dest`, a negative size or a chunk number out of
/// range, BLOSC2_ERROR_WRITE_BUFFER when `dest` is too small, a read or decompression error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_decompress_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    dest: *mut c_void,
    nbytes: i32,
) -> c_int {
    // SAFETY: schunk is NULL or live per the API.
    let schunk = unsafe { chunk_source(schunk) };
    entry(|| {
        if dest.is_null() || nbytes < 0 {
            // SAFETY: schunk is NULL or live per the API.
            unsafe { read(schunk) }?;
            return Err(Error::InvalidParam);
        }
        // SAFETY: dest holds nbytes writable bytes per the API.
        let out = unsafe { std::slice::from_raw_parts_mut(dest.cast::<u8>(), nbytes as usize) };
        // SAFETY: schunk is NULL or live per the API.
        unsafe {
            read_shared_frame(
                schunk,
                |s| known_chunk(s, nchunk),
                |s| {
                    // SAFETY: live (read succeeded).
                    set_current_nchunk(schunk, nchunk);
                    to_c_int(s.decompress_chunk(nchunk, out, None)? as i64)
                },
            )
        }
    })
}

/// Gives chunk `nchunk` of `schunk`, compressed: `*chunk` receives a pointer to it and
/// `*needs_free` tells who owns it. When `*needs_free` is true, `*chunk` is a copy allocated with
/// malloc that the caller frees with free(); when false, it points into the super-chunk's memory
/// and is valid only until the super-chunk changes or is freed (do not free it). Returns the
/// chunk's size in bytes, or a negative code (BLOSC2_ERROR_INVALID_PARAM for a chunk number out
/// of range, BLOSC2_ERROR_NULL_POINTER, a read error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: schunk is NULL or live per the API.
    let schunk = unsafe { chunk_source(schunk) };
    entry(|| {
        // SAFETY: schunk is NULL or live per the API; outputs are NULL or writable.
        unsafe {
            read_shared_frame(
                schunk,
                |s| known_chunk(s, nchunk),
                |s| give_chunk(s.get_chunk(nchunk)?, chunk, needs_free),
            )
        }
    })
}

/// As `blosc2_schunk_get_chunk`, but for a super-chunk on disk the chunk may be "lazy": its header
/// and block offsets only, the blocks being read from the file when the chunk is decompressed
/// with the super-chunk's (or a context made for it) decompression context. Ownership of `*chunk`
/// follows `*needs_free` as in `blosc2_schunk_get_chunk`. Returns the size of what `*chunk` holds,
/// or a negative code.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_lazychunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: schunk is NULL or live per the API.
    let schunk = unsafe { chunk_source(schunk) };
    entry(|| {
        // SAFETY: schunk is NULL or live per the API; outputs are NULL or writable.
        unsafe {
            read_shared_frame(
                schunk,
                |s| known_chunk(s, nchunk),
                |s| give_chunk(s.get_lazychunk(nchunk)?, chunk, needs_free),
            )
        }
    })
}

/// Byte length of items `start..stop` of the super-chunk, checked.
fn slice_len(s: &Schunk, start: i64, stop: i64) -> Result<usize> {
    // c-blosc2 answers a slice past the end with a plain failure.
    if stop
        .checked_mul(s.typesize() as i64)
        .is_none_or(|b| b > s.nbytes())
    {
        return Err(Error::Failure);
    }
    let n = stop
        .checked_sub(start)
        .and_then(|n| n.checked_mul(s.typesize() as i64))
        .ok_or(Error::InvalidParam)?;
    usize::try_from(n).map_err(|_| Error::InvalidParam)
}

/// Decompresses items `start` .. `stop` (in units of the super-chunk's typesize, `stop`
/// exclusive) into `buffer`, which must hold `(stop - start) * typesize` bytes. Returns 0, or a
/// negative code (BLOSC2_ERROR_INVALID_PARAM for `stop < start` or a NULL `buffer`,
/// BLOSC2_ERROR_FAILURE for a range past the end, a decompression error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let len = slice_len(unsafe { read(schunk) }?, start, stop)?;
        if buffer.is_null() {
            return Err(Error::InvalidParam);
        }
        // SAFETY: buffer holds (stop - start) items per the API.
        let out = unsafe { std::slice::from_raw_parts_mut(buffer.cast::<u8>(), len) };
        // SAFETY: schunk is live per the API.
        unsafe { read_shared_frame(schunk, |_| true, |s| s.get_slice_buffer(start, stop, out)) }?;
        Ok(0)
    })
}

/// Overwrites items `start` .. `stop` (typesize units, `stop` exclusive) of `schunk` with the
/// bytes at `buffer` (`(stop - start) * typesize` bytes), recompressing the chunks involved.
/// Returns 0, or a negative code (as for `blosc2_schunk_get_slice_buffer`, plus compression and
/// frame-writing errors).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_set_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let len = slice_len(unsafe { read(schunk) }?, start, stop)?;
        if buffer.is_null() {
            return Err(Error::InvalidParam);
        }
        // SAFETY: buffer holds (stop - start) items per the API.
        let src = unsafe { std::slice::from_raw_parts(buffer.cast::<u8>(), len) };
        // SAFETY: schunk is live per the API.
        unsafe { change_shared_frame(schunk, |_| true, |s| s.set_slice_buffer(start, stop, src)) }?;
        Ok(0)
    })
}

/// Gives the compression parameters of `schunk` in a new `blosc2_cparams` allocated with malloc:
/// `*cparams` receives it and the caller frees it with free() (the pointers inside it belong to
/// the super-chunk; do not free them). Returns 0, or BLOSC2_ERROR_NULL_POINTER /
/// BLOSC2_ERROR_MEMORY_ALLOC.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_cparams(
    schunk: *mut blosc2_schunk,
    cparams: *mut *mut blosc2_cparams,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let h = unsafe { handle(schunk) }.ok_or(Error::NullPointer)?;
        if cparams.is_null() {
            return Err(Error::NullPointer);
        }
        let mut c = h.cparams;
        c.schunk = schunk.cast();
        c.blocksize = h.schunk.blocksize();
        // SAFETY: a fresh allocation for one blosc2_cparams, written whole; the caller frees.
        unsafe {
            let p = libc::calloc(1, std::mem::size_of::<blosc2_cparams>()).cast::<blosc2_cparams>();
            if p.is_null() {
                return Err(Error::MemoryAlloc);
            }
            p.write(c);
            *cparams = p;
        }
        Ok(0)
    })
}

/// Gives the decompression parameters of `schunk` in a new `blosc2_dparams` allocated with
/// malloc: `*dparams` receives it and the caller frees it with free(). Returns 0, or
/// BLOSC2_ERROR_NULL_POINTER / BLOSC2_ERROR_MEMORY_ALLOC.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_dparams(
    schunk: *mut blosc2_schunk,
    dparams: *mut *mut blosc2_dparams,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let h = unsafe { handle(schunk) }.ok_or(Error::NullPointer)?;
        if dparams.is_null() {
            return Err(Error::NullPointer);
        }
        let mut d = h.dparams;
        d.schunk = schunk.cast();
        // SAFETY: as in get_cparams.
        unsafe {
            let p = libc::calloc(1, std::mem::size_of::<blosc2_dparams>()).cast::<blosc2_dparams>();
            if p.is_null() {
                return Err(Error::MemoryAlloc);
            }
            p.write(d);
            *dparams = p;
        }
        Ok(0)
    })
}

/// Reorders the chunks of `schunk` without recompressing them: `offsets_order` holds `nchunks`
/// distinct indexes, new chunk i being old chunk `offsets_order[i]` (the array is read, not
/// kept). Returns 0, or a negative code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_DATA for an
/// order that is not a permutation, a frame-writing error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_reorder_offsets(
    schunk: *mut blosc2_schunk,
    offsets_order: *mut i64,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let n = unsafe { read(schunk) }?.nchunks();
        if offsets_order.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: the order holds nchunks entries per the API.
        let order = unsafe { std::slice::from_raw_parts(offsets_order, n as usize) }.to_vec();
        // SAFETY: schunk is live per the API.
        unsafe { modify(schunk, |s| s.reorder_offsets(&order)) }?;
        Ok(0)
    })
}

/// The length in bytes of the frame behind `schunk` (header, chunks, index and trailer); for a
/// super-chunk without frame, c-blosc2's estimate (its compressed bytes plus 8 per chunk).
/// BLOSC2_ERROR_NULL_POINTER for a NULL `schunk`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_frame_len(schunk: *mut blosc2_schunk) -> i64 {
    // SAFETY: schunk is NULL or live per the API.
    entry(|| Ok(unsafe { read(schunk) }?.frame_len()))
}

/// Fills an empty `schunk` with `nitems` items of a special value without storing data: one
/// special chunk per `chunksize` bytes (a multiple of the typesize). `special_value` is
/// BLOSC2_SPECIAL_ZERO, BLOSC2_SPECIAL_NAN or BLOSC2_SPECIAL_UNINIT. Returns the number of
/// chunks, or a negative code (BLOSC2_ERROR_INVALID_PARAM for a super-chunk that already has
/// chunks, a bad `chunksize` or an unsupported value, ...).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_fill_special(
    schunk: *mut blosc2_schunk,
    nitems: i64,
    special_value: c_int,
    chunksize: i32,
) -> i64 {
    entry(|| {
        let kind = match special_value {
            1 => Special::Zero,
            2 => Special::Nan,
            4 => Special::Uninit,
            _ => Special::None,
        };
        // c-blosc2 refuses a super-chunk that has chunks before taking the frame lock.
        // SAFETY: schunk is NULL or live per the API.
        if unsafe { read(schunk) }?.nchunks() > 0 {
            // SAFETY: as above.
            return unsafe { schunk_mut(schunk) }
                .ok_or(Error::NullPointer)?
                .fill_special(nitems, kind, chunksize);
        }
        // SAFETY: schunk is NULL or live per the API.
        unsafe { modify(schunk, |s| s.fill_special(nitems, kind, chunksize)) }
    })
}

/// Decompresses the `ncoords` items whose positions (in items) are in `coords` into `buffer`, one
/// after the other (`buffer` holds `ncoords * typesize` bytes). Returns 0, or a negative code
/// (BLOSC2_ERROR_INVALID_PARAM for a negative count, a NULL array or a position out of range, a
/// decompression error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_sparse_buffer(
    schunk: *mut blosc2_schunk,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let s = unsafe { read(schunk) }?;
        if ncoords < 0 || (ncoords > 0 && (coords.is_null() || buffer.is_null())) {
            return Err(Error::InvalidParam);
        }
        let ts = s.typesize() as usize;
        let n = ncoords as usize;
        // SAFETY: coords holds ncoords entries and buffer ncoords items per the API.
        let (coords, out) = unsafe {
            (
                std::slice::from_raw_parts(coords, n),
                std::slice::from_raw_parts_mut(buffer.cast::<u8>(), n * ts),
            )
        };
        for (c, item) in coords.iter().zip(out.chunks_exact_mut(ts.max(1))) {
            let end = c.checked_add(1).ok_or(Error::InvalidParam)?;
            s.get_slice_buffer(*c, end, item)?;
        }
        Ok(0)
    })
}

/// Decompresses block `nblock` of chunk `nchunk` (a variable-length-block chunk) of `schunk` into
/// a new buffer allocated with malloc: `*dest` receives it (the caller frees it with free()) and
/// `*destsize` its size. Returns the block's size, or a negative code (BLOSC2_ERROR_NULL_POINTER,
/// BLOSC2_ERROR_INVALID_PARAM for a chunk or block number out of range, a decompression error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_vlblock(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let s = unsafe { read(schunk) }?;
        if dest.is_null() || destsize.is_null() {
            return Err(Error::NullPointer);
        }
        let chunk = s.get_chunk(nchunk)?;
        let block = vlblocks::decompress_block(s.dparams(), &chunk, nblock)?;
        let n = c_int::try_from(block.len()).map_err(|_| Error::MaxBufsizeExceeded)?;
        let p = malloc_copy(&block)?;
        // SAFETY: both outputs checked non-NULL, writable per the API.
        unsafe {
            *dest = p;
            *destsize = n;
        }
        Ok(n)
    })
}

/// Indexes of the chunks holding items `start..stop`: of a plain super-chunk (one coordinate)
/// or, when it carries a `b2nd`/`caterva` metalayer, of an n-dimensional array (`start` and
/// `stop` hold ndim coordinates; chunk indexes in C order).
fn slice_chunks(s: &Schunk, start: &[i64], stop: &[i64]) -> Result<Vec<i64>> {
    let meta = s
        .meta_get("b2nd")
        .or_else(|_| s.meta_get("caterva"))
        .ok()
        .map(crate::b2nd::meta::deserialize)
        .transpose()?;
    match meta {
        // c-blosc2 answers no chunks for a super-chunk without any, whatever its chunksize
        // (-1 until the first chunk, or that of chunks since deleted).
        None if s.nchunks() == 0 => Ok(Vec::new()),
        None => {
            let (ts, cs) = (s.typesize() as i64, s.chunksize() as i64);
            if cs <= 0 {
                return Err(Error::InvalidParam);
            }
            let bstart = start[0].checked_mul(ts).ok_or(Error::InvalidParam)?;
            let bstop = stop[0].checked_mul(ts).ok_or(Error::InvalidParam)?;
            let first = bstart / cs;
            let end = bstop / cs + i64::from(bstop % cs != 0);
            Ok((first..end.max(first)).collect())
        }
        Some((m, _)) => {
            let ndim = m.ndim();
            let mut ranges = Vec::with_capacity(ndim);
            let mut grid = Vec::with_capacity(ndim);
            for d in 0..ndim {
                let cs = m.chunkshape[d] as i64;
                if cs <= 0 || start[d] < 0 || stop[d] < start[d] || stop[d] > m.shape[d] {
                    return Err(Error::InvalidParam);
                }
                grid.push((m.shape[d] + cs - 1) / cs);
                ranges.push((start[d] / cs, (stop[d] + cs - 1) / cs));
            }
            let mut out = Vec::new();
            let mut idx: Vec<i64> = ranges.iter().map(|r| r.0).collect();
            if ranges.iter().any(|r| r.0 >= r.1) {
                return Ok(out);
            }
            loop {
                let linear = idx.iter().zip(&grid).fold(0i64, |acc, (i, g)| acc * g + i);
                out.push(linear);
                let mut d = ndim;
                loop {
                    if d == 0 {
                        return Ok(out);
                    }
                    d -= 1;
                    idx[d] += 1;
                    if idx[d] < ranges[d].1 {
                        break;
                    }
                    idx[d] = ranges[d].0;
                }
            }
        }
    }
}

/// Lists the chunks that hold the items `start` .. `stop`. For a plain super-chunk `start` and
/// `stop` point to one item position each; for one carrying a "b2nd" (or "caterva") metalayer
/// they hold one coordinate per dimension and chunk numbers are in C order. `*chunks_idx`
/// receives a new array allocated with malloc (the caller frees it with free()). Returns the
/// number of chunks listed, or a negative code (BLOSC2_ERROR_NULL_POINTER,
/// BLOSC2_ERROR_INVALID_PARAM for a range outside the array).
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_slice_nchunks(
    schunk: *mut blosc2_schunk,
    start: *mut i64,
    stop: *mut i64,
    chunks_idx: *mut *mut i64,
) -> i64 {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let s = unsafe { read(schunk) }?;
        if start.is_null() || stop.is_null() || chunks_idx.is_null() {
            return Err(Error::NullPointer);
        }
        let ndim = match s.meta_get("b2nd").or_else(|_| s.meta_get("caterva")) {
            Ok(m) => crate::b2nd::meta::deserialize(m)?.0.ndim(),
            Err(_) => 1,
        };
        // SAFETY: start and stop hold ndim coordinates per the API.
        let (a, b) = unsafe {
            (
                std::slice::from_raw_parts(start, ndim),
                std::slice::from_raw_parts(stop, ndim),
            )
        };
        let idx = slice_chunks(s, a, b)?;
        let bytes: Vec<u8> = idx.iter().flat_map(|i| i.to_ne_bytes()).collect();
        // SAFETY: chunks_idx checked non-NULL, writable per the API.
        unsafe { *chunks_idx = malloc_copy(&bytes)?.cast() };
        Ok(idx.len() as i64)
    })
}

// ----- locking and refresh ------------------------------------------------------------------

// The frame lock (src/frame/lock.rs) is taken only by handles whose filesystem backend asks
// for it (blosc2_stdio_params `locking` or BLOSC_LOCKING); for the others, and for super-chunks
// not on disk, lock and unlock succeed and do nothing, as in c-blosc2.

/// Takes the frame lock of a file-backed `schunk` exclusively (when locking is enabled through
/// its `blosc2_stdio_params` or BLOSC_LOCKING), so that other handles on the same frame wait;
/// nested calls on the same handle are counted. Does nothing for super-chunks without locking.
/// Returns 0 or a negative code (BLOSC2_ERROR_NULL_POINTER, a locking error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_lock(schunk: *mut blosc2_schunk) -> c_int {
    // SAFETY: schunk is NULL or live per the API.
    entry(|| unsafe { read(schunk) }?.lock().map(|_| 0))
}

/// Releases the frame lock taken by `blosc2_schunk_lock` (the outermost unlock releases it).
/// Returns 0 or a negative code.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_unlock(schunk: *mut blosc2_schunk) -> c_int {
    // SAFETY: schunk is NULL or live per the API.
    entry(|| unsafe { read(schunk) }?.unlock().map(|_| 0))
}

// ----- frames -------------------------------------------------------------------------------

/// A C buffer shared with a no-copy super-chunk (`blosc2_schunk_from_buffer(copy=false)`):
/// the caller keeps it alive and unchanged for the super-chunk's life, per c-blosc2's API.
struct CBuffer {
    ptr: *const u8,
    len: usize,
}

// SAFETY: read-only view of caller memory that outlives the super-chunk (API contract).
unsafe impl Send for CBuffer {}
// SAFETY: as for Send.
unsafe impl Sync for CBuffer {}

impl AsRef<[u8]> for CBuffer {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: ptr holds len readable bytes for the buffer's life (see the type's doc).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// Opens the contiguous frame in `cframe` (`len` bytes) as a super-chunk. With `copy` true the
/// super-chunk works on its own copy and the caller may free `cframe` at once; with `copy` false
/// it reads `cframe` in place, which the caller must keep alive and unchanged until
/// `blosc2_schunk_free` (and still frees itself afterwards). Returns the super-chunk, which the
/// caller releases with `blosc2_schunk_free`, or NULL for a NULL buffer, a non-positive `len` or
/// a buffer that is not a valid frame.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_from_buffer(
    cframe: *mut u8,
    len: i64,
    copy: bool,
) -> *mut blosc2_schunk {
    entry(|| {
        if cframe.is_null() || len <= 0 {
            return Err(Error::InvalidParam);
        }
        let len = usize::try_from(len).map_err(|_| Error::InvalidParam)?;
        SchunkHandle::create(default_io(), |_| {
            if copy {
                // SAFETY: cframe holds len bytes per the API.
                let bytes = unsafe { std::slice::from_raw_parts(cframe, len) }.to_vec();
                Schunk::from_buffer(Arc::new(bytes), true)
            } else {
                let shared: SharedBytes = Arc::new(CBuffer { ptr: cframe, len });
                Schunk::from_buffer(shared, false)
            }
        })
    })
}

/// Serialises `schunk` as a contiguous frame. `*cframe` receives the frame and `*needs_free`
/// who owns it: for an in-memory contiguous super-chunk, its own frame buffer (`*needs_free`
/// false: do not free it; it stays valid until the super-chunk changes or is freed, see
/// `blosc2_schunk_avoid_cframe_free`); otherwise a copy allocated with malloc (`*needs_free`
/// true: the caller frees it with free()). Returns the frame's length in bytes, or a negative
/// code (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_SCHUNK_COPY, a read error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_buffer(
    schunk: *mut blosc2_schunk,
    cframe: *mut *mut u8,
    needs_free: *mut bool,
) -> i64 {
    entry(|| {
        // An in-memory frame is handed out as it is, first and touching as little as can be
        // (nothing to re-sync; a cold call pays for every cache line and page it reaches).
        // SAFETY: schunk is NULL or live per the API.
        let in_memory = unsafe { handle(schunk) }
            .filter(|h| h.schunk.storage().urlpath.is_none())
            .and_then(|h| h.schunk.frame().and_then(|f| f.as_bytes()));
        if let (Some(b), false, false) = (in_memory, cframe.is_null(), needs_free.is_null()) {
            // SAFETY: outputs checked non-NULL, writable per the API.
            unsafe {
                *cframe = b.as_ptr().cast_mut();
                *needs_free = false;
            }
            return Ok(b.len() as i64);
        }
        // SAFETY: schunk is NULL or live per the API.
        unsafe { resync_whole(schunk) }?;
        // SAFETY: as above (re-derived after a refresh).
        let h = unsafe { handle(schunk) }.ok_or(Error::NullPointer)?;
        if cframe.is_null() || needs_free.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: as below. c-blosc2 sets these first, so that they are defined on errors.
        unsafe {
            *cframe = ptr::null_mut();
            *needs_free = false;
        }
        let (p, len, free) = match h.schunk.frame().and_then(|f| f.as_bytes()) {
            Some(b) => (b.as_ptr().cast_mut(), b.len(), false),
            None => {
                // The copy's frame is built in malloc'd memory and handed over as it is.
                let buf = MallocFrame::new();
                let copy = h.copy_to(h.contiguous_storage(None), Some(Box::new(buf.clone())));
                drop(copy.map_err(|_| Error::SchunkCopy)?);
                let (p, len) = buf.take()?;
                (p, len, true)
            }
        };
        // SAFETY: outputs checked non-NULL, writable per the API.
        unsafe {
            *cframe = p;
            *needs_free = free;
        }
        Ok(len as i64)
    })
}

/// Writes `schunk` as a contiguous frame to the file `urlpath` (replaced if it exists); the
/// super-chunk itself is unchanged. Returns the number of bytes written, or a negative code
/// (BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_INVALID_PARAM for a NULL path,
/// BLOSC2_ERROR_SCHUNK_COPY, a file error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
) -> i64 {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        unsafe { resync_whole(schunk) }?;
        // SAFETY: schunk is NULL or live; urlpath NULL or a C string, per the API.
        let (h, path) = unsafe { (handle(schunk).ok_or(Error::NullPointer)?, c_path(urlpath)?) };
        if h.schunk.frame().and_then(|f| f.as_bytes()).is_some() {
            return h.schunk.to_file(&path);
        }
        Ok(h.contiguous_copy(Some(path))
            .map_err(|_| Error::SchunkCopy)?
            .frame_len())
    })
}

/// Appends `schunk`, as a contiguous frame, to the end of the file `urlpath` (created if needed),
/// so that it can be opened later with `blosc2_schunk_open_offset`. Returns the offset in the
/// file where the frame starts, or a negative code (BLOSC2_ERROR_NULL_POINTER,
/// BLOSC2_ERROR_INVALID_PARAM, BLOSC2_ERROR_SCHUNK_COPY, a file error).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
) -> i64 {
    entry(|| {
        // SAFETY: as in to_file.
        let (h, path) = unsafe { (handle(schunk).ok_or(Error::NullPointer)?, c_path(urlpath)?) };
        if h.schunk.frame().and_then(|f| f.as_bytes()).is_some() {
            return h.schunk.append_file(&path);
        }
        let copy = h.contiguous_copy(None).map_err(|_| Error::SchunkCopy)?;
        copy.append_file(&path)
    })
}

/// Opens a frame at `urlpath` (offset, I/O) into a new handle.
///
/// # Safety
/// `urlpath` NULL or a C string; `udio` NULL or valid.
unsafe fn open_c(
    urlpath: *const c_char,
    offset: i64,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    entry(|| {
        // SAFETY: forwarded contract.
        let path = unsafe { c_path(urlpath) }?;
        // SAFETY: forwarded contract.
        let io = unsafe { udio.as_ref() }.copied().unwrap_or_else(default_io);
        // SAFETY: io is a valid copy.
        let backend: Arc<dyn Io> = unsafe { io_from_c(&io) }?;
        let p = SchunkHandle::create(io, |_| open_with(&path, offset, backend))?;
        // SAFETY: just created.
        if let Some(h) = unsafe { handle_mut(p) } {
            h.offset = offset;
        }
        Ok(p)
    })
}

fn open_with(path: &Path, offset: i64, io: Arc<dyn Io>) -> Result<Schunk> {
    Schunk::open_offset_with(path, offset, io)
}

/// Opens the super-chunk stored at `urlpath` (a contiguous frame file or a sparse frame
/// directory), through the filesystem backend. Chunks are read from disk as needed and changes
/// are written back. Returns the super-chunk, which the caller releases with
/// `blosc2_schunk_free`, or NULL when the path is NULL, missing or not a valid frame.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open(urlpath: *const c_char) -> *mut blosc2_schunk {
    // SAFETY: forwarded API contract.
    unsafe { open_c(urlpath, 0, ptr::null()) }
}

/// As `blosc2_schunk_open`, for a contiguous frame that starts `offset` bytes into the file (see
/// `blosc2_schunk_append_file`). Returns the super-chunk (freed with `blosc2_schunk_free`) or
/// NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset(
    urlpath: *const c_char,
    offset: i64,
) -> *mut blosc2_schunk {
    // SAFETY: forwarded API contract.
    unsafe { open_c(urlpath, offset, ptr::null()) }
}

/// As `blosc2_schunk_open`, reading and writing through the I/O backend `udio` (NULL: the
/// filesystem). `*udio` is copied; its `params` must stay valid until the super-chunk is freed.
/// Returns the super-chunk (freed with `blosc2_schunk_free`) or NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_udio(
    urlpath: *const c_char,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: forwarded API contract.
    unsafe { open_c(urlpath, 0, udio) }
}

/// As `blosc2_schunk_open_offset`, through the I/O backend `udio` (NULL: the filesystem; its
/// `params` must outlive the super-chunk). Returns the super-chunk (freed with
/// `blosc2_schunk_free`) or NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset_udio(
    urlpath: *const c_char,
    offset: i64,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: forwarded API contract.
    unsafe { open_c(urlpath, offset, udio) }
}

/// The offsets of the chunks of a frame-backed `schunk` in its frame (one per chunk, in chunk
/// order), as a new array allocated with malloc that the caller frees with free(). Returns NULL
/// for a NULL `schunk`, a super-chunk without frame, or when memory runs out.
#[no_mangle]
pub unsafe extern "C" fn blosc2_frame_get_offsets(schunk: *mut blosc2_schunk) -> *mut i64 {
    entry(|| {
        // SAFETY: schunk is NULL or live per the API.
        let s = unsafe { schunk_ref(schunk) }.ok_or(Error::NullPointer)?;
        let f = s.frame().ok_or(Error::Failure)?;
        let bytes: Vec<u8> = f.offsets().iter().flat_map(|o| o.to_ne_bytes()).collect();
        Ok(malloc_copy(&bytes)?.cast())
    })
}

/// Re-reads a disk-based super-chunk that another handle changed: 1 when it did, 0 when it was
/// current (and for super-chunks not on disk).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_refresh(schunk: *mut blosc2_schunk) -> c_int {
    entry(|| {
        // Under the shared lock, as c-blosc2 (a refresh changes nothing on disk).
        // SAFETY: schunk is NULL or live per the API, not used concurrently.
        let h = unsafe { handle_mut(schunk) }.ok_or(Error::NullPointer)?;
        h.schunk.lock_shared()?;
        let refreshed = h.schunk.refresh();
        let unlocked = h.schunk.unlock();
        h.sync();
        let refreshed = refreshed?;
        unlocked?;
        Ok(c_int::from(refreshed))
    })
}
