//! The super-chunk C layer: the `blosc2_schunk` handle, the blosc2_schunk_* functions and the
//! frame functions of blosc2.h (to/from buffer, files, offsets).
//!
//! The handle: C code reads `blosc2_schunk` fields directly (nchunks, nbytes, storage, cctx,
//! metalayers[] ...), so every super-chunk given to C is a [`SchunkHandle`] whose FIRST field is
//! that mirror; the pointer C holds is the handle's address, and the handle is recovered from
//! it on the way in. After every call that may change the super-chunk the mirror is re-synced
//! ([`sync_mirror`]). Stable entry points for other C-layer files (b2nd):
//! [`schunk_into_c`], [`schunk_ref`], [`schunk_mut`], [`sync_mirror`], [`storage_from_c`].

mod access;
mod chunks;
mod frames;
mod handle;
mod lifecycle;
mod lock;

// The entry points stay reachable as `capi::schunk::name` (the Rust tests call them so).
#[allow(unused_imports)]
pub(crate) use self::{access::*, chunks::*, frames::*, handle::*, lifecycle::*, lock::*};
