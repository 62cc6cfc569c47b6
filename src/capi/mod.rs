//! The C layer: the only place with extern "C", repr(C) mirrors and catch_unwind.
//!
//! Safety contract of every `extern "C"` function here: pointer arguments are NULL or valid for
//! what c-blosc2's documentation of the same function says (the contract C callers already follow).
#![allow(clippy::missing_safety_doc)]

pub mod b2nd;
pub mod chunk;
pub mod consts;
pub mod io;
pub mod library;
mod malloc_frame;
pub mod meta;
pub(crate) mod params;
mod plugin_loader;
pub mod schunk;
pub mod shuffle;
pub mod stdio;
pub mod tuner;
pub mod types;

#[cfg(test)]
mod b2nd_tests;
#[cfg(test)]
mod panic_guard_tests;
#[cfg(rblosc2_pending)]
mod pending;

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The BLOSC2_ERROR_* enumerators written in the header fragment agree with crate::Error.
    #[test]
    fn header_error_codes_match_the_core() {
        let prologue = include_str!("../../cbindgen/blosc2-prologue.h");
        let mut seen = 0;
        for line in prologue.lines() {
            let Some(rest) = line.trim().strip_prefix("BLOSC2_ERROR_") else {
                continue;
            };
            let value: i32 = rest
                .split('=')
                .nth(1)
                .unwrap()
                .trim()
                .trim_end_matches(',')
                .parse()
                .unwrap();
            if value != 0 {
                assert!(crate::Error::from_code(value).is_some(), "{line}");
                seen += 1;
            }
        }
        assert_eq!(seen, 37);
    }

    /// include/ is committed; it must equal what build.rs generates from the current sources
    /// (refresh it with `RBLOSC2_UPDATE_HEADERS=1 cargo build`).
    #[test]
    fn committed_headers_are_fresh() {
        let generated = Path::new(env!("RBLOSC2_GENERATED_INCLUDE"));
        let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
        for header in [
            "blosc2.h",
            "b2nd.h",
            "blosc2/blosc2-common.h",
            "blosc2/blosc2-export.h",
            "blosc2/blosc2-stdio.h",
            "blosc2/codecs-registry.h",
            "blosc2/filters-registry.h",
            "blosc2/tuners-registry.h",
        ] {
            let want = std::fs::read_to_string(generated.join(header)).unwrap();
            let have = std::fs::read_to_string(committed.join(header))
                .unwrap_or_else(|e| panic!("include/{header}: {e}"));
            assert!(
                want == have,
                "include/{header} is stale: run RBLOSC2_UPDATE_HEADERS=1 cargo build"
            );
        }
    }
}
