//! The C layer: the only place with extern "C", repr(C) mirrors and catch_unwind.
//!
//! Safety contract of every `extern "C"` function here: pointer arguments are NULL or valid for
//! what c-blosc2's documentation of the same function says (the contract C callers already follow).
#![allow(clippy::missing_safety_doc)]

pub mod b2nd;
mod callbacks;
pub mod chunk;
pub mod consts;
pub(crate) mod context;
pub(crate) mod ffi;
pub mod io;
pub mod library;
mod malloc_frame;
pub mod meta;
pub(crate) mod params;
mod plugin_loader;
pub mod rblosc2;
pub mod schunk;
pub mod shuffle;
pub mod stdio;
pub mod tuner;
pub mod types;

#[cfg(test)]
mod boundary_tests;
#[cfg(test)]
mod panic_guard_tests;
#[cfg(rblosc2_pending)]
mod pending;

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The BLOSC2_ERROR_* enumerators written in the header fragment are crate::Error's table:
    /// the same names with the same codes, none missing.
    #[test]
    fn header_error_codes_match_the_core() {
        let prologue = include_str!("../../cbindgen/blosc2-prologue.h");
        let mut seen = 0;
        for line in prologue.lines() {
            let Some((name, value)) = line.trim().split_once(" = ") else {
                continue;
            };
            if !name.starts_with("BLOSC2_ERROR_") || name == "BLOSC2_ERROR_SUCCESS" {
                continue;
            }
            let value: i32 = value.trim_end_matches(',').parse().unwrap();
            let e = crate::Error::from_code(value);
            assert_eq!(e.map(crate::Error::c_name), Some(name), "{line}");
            seen += 1;
        }
        assert_eq!(seen, crate::Error::COUNT);
    }

    /// Every function a generated header exports (each `BLOSC_EXPORT` declaration, the
    /// hand-written ones of cbindgen/ included) has a comment of its own right above it: the
    /// `///` doc comment of its Rust definition, or the C comment of its fragment.
    #[test]
    fn every_exported_function_is_documented() {
        let generated = Path::new(env!("RBLOSC2_GENERATED_INCLUDE"));
        let mut declared = 0;
        let mut undocumented = Vec::new();
        for header in [
            "blosc2.h",
            "b2nd.h",
            "blosc2/blosc2-stdio.h",
            "blosc2/codecs-registry.h",
            "blosc2/filters-registry.h",
            "blosc2/tuners-registry.h",
            "blosc2/rblosc2.h",
        ] {
            let text = std::fs::read_to_string(generated.join(header)).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                if !line.starts_with("BLOSC_EXPORT") {
                    continue;
                }
                // The declaration may span lines: its name is the word before the first '('.
                let decl: String = lines[i..].iter().take(8).copied().collect();
                let name = decl[..decl.find('(').unwrap()]
                    .trim_end()
                    .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap()
                    .to_string();
                declared += 1;
                let documented = i > 0 && lines[i - 1].trim_end().ends_with("*/");
                if !documented {
                    undocumented.push(format!("{header}: {name}"));
                }
            }
        }
        assert!(
            declared >= 160,
            "found only {declared} exported declarations"
        );
        assert!(
            undocumented.is_empty(),
            "exported without a doc comment (add a `///` comment to the Rust definition, or a C \
             comment in the cbindgen/ fragment):\n{}",
            undocumented.join("\n")
        );
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
            "blosc2/rblosc2.h",
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
