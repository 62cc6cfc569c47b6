//! Declarations of C functions that the headers promise but the library does not implement yet.
//!
//! How it works: this module is compiled only under `cfg(rblosc2_pending)`, which no build ever
//! enables, so none of these functions is exported from libblosc2 (a program using one fails to
//! link instead of calling a stub).  build.rs runs cbindgen over these files directly, so their
//! declarations still appear in the generated headers (one file per header: registry.rs -> the
//! blosc2/*-registry.h headers; a file for another header goes in that header's `srcs` in
//! build.rs).  The bodies are placeholders that are never compiled.
//!
//! To implement a function: move its `#[no_mangle] pub unsafe extern "C" fn` from here into the
//! capi area file that owns it (keeping the exact signature), write the real body there, and make
//! sure that area file is listed in the `srcs` of the same header in build.rs.  Then run
//! `RBLOSC2_UPDATE_HEADERS=1 cargo build` and commit include/ (`capi::tests` checks it is
//! fresh); `api-diff` must still report 0 differences.
//!
//! Exceptions: the few functions in build.rs's `HANDWRITTEN` list (top-level `const` by-value
//! parameters, which cbindgen cannot spell) are declared in the cbindgen/*-epilogue.h fragments;
//! cbindgen skips them wherever their Rust definition lives.

mod registry;
