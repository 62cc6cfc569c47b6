//! Build script. It does five things:
//!
//! 1. Gives the shared library c-blosc2's SONAME, `libblosc2.so.9` (Linux), so that programs
//!    linked against c-blosc2 3.2/3.3 load it.
//! 2. Lays out and links the shared library (`link_hot_text`, Linux, host == target, gnu only):
//!    when the toolchain ships rust-lld, links with it (`-fuse-ld=lld`) and the linker script
//!    link/hot-text.ld (the benchmark workloads' functions first); packs relative relocations
//!    when the C library loads them (`libc_has_packed_relocations`: glibc 2.36+); and links
//!    GCC's unwinder statically so the library needs no libgcc_s.so.1
//!    (`link_unwinder_statically`). Without rust-lld none of the three is done.
//! 3. Exports zlib-ng's release (read from the zlib.h of libz-sys, `DEP_Z_INCLUDE`) to the crate
//!    as `RBLOSC2_ZLIBNG_VERSION`, which `blosc2_get_complib_info` reports as c-blosc2 does.
//! 4. Generates the C headers. Each public header is one cbindgen run over the Rust files listed
//!    for it in `HEADERS` (repr(C) types, consts and `extern "C"` functions), wrapped in
//!    hand-written C fragments from `cbindgen/` for what cbindgen cannot express (anonymous
//!    enums, static const *_DEFAULTS, static inline helpers, function-like macros,
//!    BLOSC1_COMPAT aliases, the `HANDWRITTEN` declarations). Items listed as `own` by one header
//!    are excluded from every other header, so shared sources (types.rs, consts.rs) can feed
//!    several. cbindgen's output is then rewritten to match c-blosc2's headers: `TAG_ONLY`
//!    structs lose their typedef, `UNTAGGED` ones their tag, `TRAILING_COMMENTS` go after the
//!    version `#define`s (build scripts such as PyTables' parse them) and `DEPRECATED` functions
//!    get their marker. `PLAIN_HEADERS` are copied from `cbindgen/` as they are.
//! 5. Puts the headers in OUT_DIR/include and tells the crate where (`RBLOSC2_GENERATED_INCLUDE`,
//!    for `capi::tests`, which fails when the committed include/ differs from them); with
//!    RBLOSC2_UPDATE_HEADERS=1 it also copies them to include/ (committed).

use std::path::{Path, PathBuf};

struct Header {
    path: &'static str,
    guard: &'static str,
    srcs: &'static [&'static str],
    own: &'static [&'static str],
    prologue: Option<&'static str>,
    epilogue: Option<&'static str>,
}

const HEADERS: &[Header] = &[
    Header {
        path: "blosc2.h",
        guard: "BLOSC_BLOSC2_H",
        srcs: &[
            "src/capi/types.rs",
            "src/capi/consts.rs",
            "src/capi/library.rs",
            "src/capi/chunk/buffers.rs",
            "src/capi/chunk/env.rs",
            "src/capi/chunk/context.rs",
            "src/capi/chunk/global.rs",
            "src/capi/chunk/info.rs",
            "src/capi/chunk/special_chunks.rs",
            "src/capi/chunk/vlchunks.rs",
            "src/capi/chunk/register.rs",
            "src/capi/schunk/handle.rs",
            "src/capi/schunk/access.rs",
            "src/capi/schunk/lifecycle.rs",
            "src/capi/schunk/chunks.rs",
            "src/capi/schunk/lock.rs",
            "src/capi/schunk/frames.rs",
            "src/capi/meta.rs",
            "src/capi/io.rs",
            "src/capi/tuner.rs",
        ],
        own: &[
            "blosc_threads_callback",
            "blosc2_open_cb",
            "blosc2_close_cb",
            "blosc2_size_cb",
            "blosc2_write_cb",
            "blosc2_read_cb",
            "blosc2_truncate_cb",
            "blosc2_destroy_cb",
            "blosc2_prefilter_fn",
            "blosc2_postfilter_fn",
            "blosc2_codec_encoder_cb",
            "blosc2_codec_decoder_cb",
            "blosc2_filter_forward_cb",
            "blosc2_filter_backward_cb",
            "blosc2_instr",
            "blosc2_io_cb",
            "blosc2_io",
            "blosc2_context_s",
            "blosc2_context",
            "blosc2_tuner",
            "blosc2_prefilter_params",
            "blosc2_postfilter_params",
            "blosc2_cparams",
            "blosc2_dparams",
            "blosc2_storage",
            "blosc2_frame_s",
            "blosc2_frame",
            "blosc2_metalayer",
            "blosc2_schunk",
            "blosc2_codec",
            "blosc2_filter",
            "BLOSC2_VERSION_MAJOR",
            "BLOSC2_VERSION_MINOR",
            "BLOSC2_VERSION_RELEASE",
            "BLOSC2_MAX_METALAYERS",
            "BLOSC2_METALAYER_NAME_MAXLEN",
            "BLOSC2_MAX_VLMETALAYERS",
            "BLOSC2_VLMETALAYERS_NAME_MAXLEN",
        ],
        prologue: Some("blosc2-prologue.h"),
        epilogue: Some("blosc2-epilogue.h"),
    },
    Header {
        path: "b2nd.h",
        guard: "BLOSC_B2ND_H",
        srcs: &[
            "src/capi/types.rs",
            "src/capi/consts.rs",
            "src/capi/b2nd/context.rs",
            "src/capi/b2nd/serialize.rs",
            "src/capi/b2nd/copy_buffer.rs",
            "src/capi/b2nd/handle.rs",
            "src/capi/b2nd/lifecycle.rs",
            "src/capi/b2nd/items.rs",
            "src/capi/b2nd/views.rs",
            "src/capi/b2nd/shape.rs",
            "src/capi/b2nd/sync.rs",
        ],
        own: &[
            "chunk_cache_s",
            "b2nd_context_s",
            "b2nd_context_t",
            "b2nd_array_t",
            "B2ND_METALAYER_VERSION",
            "B2ND_MAX_DIM",
            "B2ND_MAX_METALAYERS",
            "DTYPE_NUMPY_FORMAT",
            "B2ND_DEFAULT_DTYPE_FORMAT",
        ],
        prologue: Some("b2nd-prologue.h"),
        epilogue: Some("b2nd-epilogue.h"),
    },
    Header {
        path: "blosc2/blosc2-stdio.h",
        guard: "BLOSC_BLOSC2_BLOSC2_STDIO_H",
        srcs: &["src/capi/types.rs", "src/capi/stdio.rs"],
        own: &[
            "blosc2_stdio_file",
            "blosc2_stdio_params",
            "blosc2_stdio_mmap",
        ],
        prologue: Some("stdio-prologue.h"),
        epilogue: Some("stdio-epilogue.h"),
    },
    Header {
        path: "blosc2/rblosc2.h",
        guard: "RBLOSC2_RBLOSC2_H",
        srcs: &["src/capi/rblosc2.rs"],
        own: &[],
        prologue: Some("rblosc2-prologue.h"),
        epilogue: None,
    },
    Header {
        path: "blosc2/codecs-registry.h",
        guard: "BLOSC_BLOSC2_CODECS_REGISTRY_H",
        srcs: &["src/capi/types.rs", "src/capi/pending/registry.rs"],
        own: &["codec_info", "register_codecs"],
        prologue: Some("codecs-registry-prologue.h"),
        epilogue: None,
    },
    Header {
        path: "blosc2/filters-registry.h",
        guard: "BLOSC_BLOSC2_FILTERS_REGISTRY_H",
        srcs: &["src/capi/types.rs", "src/capi/pending/registry.rs"],
        own: &["filter_info", "register_filters"],
        prologue: Some("filters-registry-prologue.h"),
        epilogue: None,
    },
    Header {
        path: "blosc2/tuners-registry.h",
        guard: "BLOSC_BLOSC2_TUNERS_REGISTRY_H",
        srcs: &["src/capi/types.rs", "src/capi/pending/registry.rs"],
        own: &["tuner_info", "register_tuners"],
        prologue: Some("tuners-registry-prologue.h"),
        epilogue: None,
    },
];

/// Functions whose C declarations are written in the epilogue fragments because cbindgen cannot
/// express them (top-level `const` on by-value parameters).
const HANDWRITTEN: &[&str] = &[
    "blosc2_shuffle",
    "blosc2_unshuffle",
    "blosc2_bitshuffle",
    "blosc2_bitunshuffle",
    "b2nd_expand_dims",
];

/// Headers with no Rust items, copied verbatim from cbindgen/.
const PLAIN_HEADERS: &[&str] = &["blosc2/blosc2-export.h", "blosc2/blosc2-common.h"];

const BANNER: &str = "/* rblosc2: generated header, do not edit (see build.rs). */";

fn fragment(root: &Path, name: &str) -> String {
    let path = root.join("cbindgen").join(name);
    println!("cargo:rerun-if-changed={}", path.display());
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn generate(root: &Path, out: &Path) {
    let mut commented: Vec<&'static str> = Vec::new();
    for header in HEADERS {
        let mut config = cbindgen::Config {
            language: cbindgen::Language::C,
            // The guard is written here rather than with `include_guard` because cbindgen puts the
            // trailer after the guard's #endif, and our trailers must be guarded too.
            header: Some(format!(
                "{BANNER}\n#ifndef {guard}\n#define {guard}",
                guard = header.guard
            )),
            no_includes: true,
            cpp_compat: true,
            usize_is_size_t: true,
            style: cbindgen::Style::Both,
            after_includes: header.prologue.map(|p| fragment(root, p)),
            trailer: Some(format!(
                "{}\n#endif /* {} */",
                header
                    .epilogue
                    .map(|p| fragment(root, p))
                    .unwrap_or_default(),
                header.guard
            )),
            ..Default::default()
        };
        // The registry headers declare internal functions that the library does not export
        // (and they do not include blosc2-export.h).
        if !header.path.contains("-registry.h") {
            config.function.prefix = Some("BLOSC_EXPORT".to_string());
        }
        config.export.include = header.own.iter().map(|s| s.to_string()).collect();
        config.export.exclude = HANDWRITTEN
            .iter()
            .map(|s| s.to_string())
            .chain(
                HEADERS
                    .iter()
                    .filter(|h| h.path != header.path)
                    .flat_map(|h| h.own.iter().map(|s| s.to_string())),
            )
            .collect();
        let mut builder = cbindgen::Builder::new().with_config(config);
        for src in header.srcs {
            let path = root.join(src);
            println!("cargo:rerun-if-changed={}", path.display());
            builder = builder.with_src(path);
        }
        let bindings = builder
            .generate()
            .unwrap_or_else(|e| panic!("cbindgen failed for {}: {e}", header.path));
        let mut text = Vec::new();
        bindings.write(&mut text);
        let text = String::from_utf8(text).expect("cbindgen writes UTF-8");
        let dest = out.join(header.path);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        let text = untagged_structs(&tag_only_structs(&text));
        let text = with_trailing_comments(&text, &mut commented);
        let text = with_deprecations(&text, &mut commented);
        std::fs::write(dest, text).unwrap();
    }
    for (name, _) in TRAILING_COMMENTS.iter().chain(DEPRECATED) {
        assert!(
            commented.contains(name),
            "build.rs: no header defines {name}, which TRAILING_COMMENTS lists"
        );
    }
    for plain in PLAIN_HEADERS {
        let name = Path::new(plain).file_name().unwrap().to_str().unwrap();
        let text = fragment(root, name);
        let dest = out.join(plain);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(dest, text).unwrap();
    }
}

/// Comments written after a `#define NAME VALUE` line of cbindgen's output, on the same line.
/// Build scripts read the library's version from these lines: PyTables' setup.py, for one, takes
/// only the `BLOSC2_VERSION_MAJOR`, `_MINOR` and `_RELEASE` lines that also hold the words
/// "major", "minor" and "tweaks" (as c-blosc2's comments there do), and the third
/// whitespace-separated word of such a line as the number.
const TRAILING_COMMENTS: &[(&str, &str)] = &[
    (
        "BLOSC2_VERSION_MAJOR",
        "major: changes that break the interface or the formats",
    ),
    (
        "BLOSC2_VERSION_MINOR",
        "minor: compatible additions to the interface or the formats",
    ),
    (
        "BLOSC2_VERSION_RELEASE",
        "tweaks: bug fixes and other compatible changes",
    ),
];

/// Appends `TRAILING_COMMENTS` to the `#define` lines of `text` that they name, and records in
/// `found` the names it commented.
fn with_trailing_comments(text: &str, found: &mut Vec<&'static str>) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(line);
        let mut words = line.split_whitespace();
        if let (Some("#define"), Some(name), Some(_value), None) =
            (words.next(), words.next(), words.next(), words.next())
        {
            if let Some((name, comment)) = TRAILING_COMMENTS.iter().find(|(n, _)| *n == name) {
                out.push_str(&format!("  /* {comment} */"));
                found.push(*name);
            }
        }
        out.push('\n');
    }
    out
}

/// Functions that c-blosc2's headers declare deprecated (compilers warn where programs call
/// them), with the note: `B2ND_DEPRECATED(note)` (defined in b2nd-prologue.h) goes right after
/// the `BLOSC_EXPORT` of their declaration (the doc comment stays right above `BLOSC_EXPORT`).
const DEPRECATED: &[(&str, &str)] = &[("b2nd_copy_buffer", "Use b2nd_copy_buffer2 instead.")];

/// Inserts the `DEPRECATED` markers into the declarations of `text` (`BLOSC_EXPORT` followed by
/// the function on the same or the next line), and records in `found` the functions marked.
fn with_deprecations(text: &str, found: &mut Vec<&'static str>) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::with_capacity(text.len());
    for (i, line) in lines.iter().enumerate() {
        let rest = line.strip_prefix("BLOSC_EXPORT");
        let declared = |name: &str| {
            let call = format!(" {name}(");
            rest.is_some_and(|rest| {
                rest.contains(&call)
                    || (rest.trim().is_empty()
                        && lines.get(i + 1).is_some_and(|next| next.contains(&call)))
            })
        };
        match (rest, DEPRECATED.iter().find(|(n, _)| declared(n))) {
            (Some(rest), Some((name, note))) => {
                out.push_str(&format!("BLOSC_EXPORT B2ND_DEPRECATED(\"{note}\"){rest}"));
                found.push(*name);
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// Structs that c-blosc2's headers name only by their tag (`struct X`), never as a typedef name:
/// the opaque contexts and frames, and `struct chunk_cache_s` inside `b2nd_array_t`. cbindgen's
/// `Style::Both` gives every struct a `typedef struct X X;`, which C programs that also include
/// c-blosc2's private headers (frame.h, context.h) would see as a conflicting redefinition.
const TAG_ONLY: &[&str] = &[
    "blosc2_context_s",
    "blosc2_frame_s",
    "b2nd_context_s",
    "chunk_cache_s",
];

/// Rewrites cbindgen's output so the `TAG_ONLY` structs carry no typedef name: the opaque
/// declaration (and its doc comment) goes, and a defined struct becomes `struct X { ... };`.
fn tag_only_structs(text: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut closing: Vec<String> = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if TAG_ONLY
            .iter()
            .any(|n| line == format!("typedef struct {n} {n};"))
        {
            // Drop the doc comment cbindgen wrote just above the opaque declaration.
            if out.last() == Some(&" */") {
                while let Some(prev) = out.pop() {
                    if prev == "/**" {
                        break;
                    }
                }
            }
            // And the blank line that separated it from the next item.
            if lines.peek() == Some(&"") {
                lines.next();
            }
            continue;
        }
        if let Some(name) = TAG_ONLY
            .iter()
            .find(|n| line == format!("typedef struct {n} {{"))
        {
            out.push(line.strip_prefix("typedef ").unwrap());
            closing.push(format!("}} {name};"));
            continue;
        }
        if closing.iter().any(|c| c == line) {
            closing.retain(|c| c != line);
            out.push("};");
            continue;
        }
        out.push(line);
    }
    let mut joined = out.join("\n");
    joined.push('\n');
    joined
}

/// Structs that c-blosc2's headers define without a tag, `typedef struct { ... } X;`, so that
/// `struct X` names no type there. cbindgen's `Style::Both` writes `typedef struct X { ... } X;`
/// and spells uses `struct X`: `untagged_structs` drops the tag and spells uses `X`.
const UNTAGGED: &[&str] = &[
    "b2nd_array_t",
    "blosc2_codec",
    "blosc2_cparams",
    "blosc2_dparams",
    "blosc2_filter",
    "blosc2_instr",
    "blosc2_io",
    "blosc2_io_cb",
    "blosc2_postfilter_params",
    "blosc2_prefilter_params",
    "blosc2_stdio_file",
    "blosc2_stdio_mmap",
    "blosc2_stdio_params",
    "blosc2_storage",
    "blosc2_tuner",
    "codec_info",
    "filter_info",
    "tuner_info",
];

/// Rewrites cbindgen's output so the `UNTAGGED` structs have no tag: `typedef struct X {`
/// becomes `typedef struct {` and every other `struct X` becomes `X`.
fn untagged_structs(text: &str) -> String {
    let mut text = text.to_string();
    for name in UNTAGGED {
        text = text.replace(&format!("typedef struct {name} {{"), "typedef struct {");
        let pattern = format!("struct {name}");
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) = rest.find(&pattern) {
            let after = &rest[at + pattern.len()..];
            let whole_word = !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                && !rest[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
            out.push_str(&rest[..at]);
            out.push_str(if whole_word { name } else { &pattern });
            rest = after;
        }
        out.push_str(rest);
        text = out;
    }
    text
}

fn copy_tree(from: &Path, to: &Path) {
    for header in HEADERS
        .iter()
        .map(|h| h.path)
        .chain(PLAIN_HEADERS.iter().copied())
    {
        let dest = to.join(header);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(from.join(header), dest).unwrap();
    }
}

/// zlib-ng's release: its zlib-compatible API only reports the zlib version it emulates
/// ("1.3.1.zlib-ng"), while c-blosc2 reports ZLIBNG_VERSION from zlib.h.
fn export_zlibng_version() {
    println!("cargo:rerun-if-env-changed=DEP_Z_INCLUDE");
    let Ok(dirs) = std::env::var("DEP_Z_INCLUDE") else {
        return;
    };
    for dir in dirs.split(',') {
        let Ok(text) = std::fs::read_to_string(Path::new(dir).join("zlib.h")) else {
            continue;
        };
        for line in text.lines() {
            if let Some(rest) = line.trim().strip_prefix("#define ZLIBNG_VERSION ") {
                let version = rest.trim().trim_matches('"');
                println!("cargo:rustc-env=RBLOSC2_ZLIBNG_VERSION={version}");
                return;
            }
        }
    }
}

/// Lays the shared library's hot code out together: link/hot-text.ld (made by bench/hot-text.sh)
/// puts the functions that bench/bench.c's workloads run at the start of the code. The kernel maps
/// a shared library's code in 64 KiB windows around each page a process touches, so the few
/// hundred functions a compression run needs, scattered over 2 MiB of code, made ours touch
/// ~800 KiB of code where c-blosc2 touches ~480 KiB.
///
/// The script is an INSERT script, which lld reads on top of its default layout and rustc's export
/// list. Rust's own lld (rustc's default linker on x86_64 Linux since 1.90) is asked for
/// explicitly, as rustc does itself; a toolchain without it links as before, without the script.
fn link_hot_text(root: &Path) {
    println!("cargo:rerun-if-changed=link/hot-text.ld");
    let (Ok(rustc), Ok(host), Ok(target)) = (
        std::env::var("RUSTC"),
        std::env::var("HOST"),
        std::env::var("TARGET"),
    ) else {
        return;
    };
    if host != target || !target.ends_with("-linux-gnu") {
        return;
    }
    let Ok(sysroot) = std::process::Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
    else {
        return;
    };
    let sysroot = String::from_utf8_lossy(&sysroot.stdout).trim().to_string();
    let gcc_ld = Path::new(&sysroot)
        .join("lib/rustlib")
        .join(&host)
        .join("bin/gcc-ld");
    if !gcc_ld.join("ld.lld").is_file() {
        return;
    }
    println!("cargo:rustc-cdylib-link-arg=-B{}", gcc_ld.display());
    println!("cargo:rustc-cdylib-link-arg=-fuse-ld=lld");
    if libc_has_packed_relocations() {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-z,pack-relative-relocs");
    }
    link_unwinder_statically();
    // -Xlinker, not -Wl,: a comma in the path would split it.
    println!("cargo:rustc-cdylib-link-arg=-Xlinker");
    println!("cargo:rustc-cdylib-link-arg=-T");
    println!("cargo:rustc-cdylib-link-arg=-Xlinker");
    println!(
        "cargo:rustc-cdylib-link-arg={}",
        root.join("link/hot-text.ld").display()
    );
}

/// Links GCC's unwinder (libgcc_eh.a, what `gcc -static-libgcc` links) into the shared library,
/// so that it does not need libgcc_s.so.1: Rust's panic machinery is the only user (panics are
/// caught at the C boundary, so no unwinding crosses into the caller), and loading libgcc_s cost
/// every process ~100 KiB of resident pages (its text, data and relocations). The unwinder's
/// symbols stay local: the library exports only its C API. The whole archive is linked because
/// std's references to it are otherwise resolved to libgcc_s, which comes first on the line.
fn link_unwinder_statically() {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let Ok(out) = std::process::Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
    else {
        return;
    };
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if !path.is_absolute() || !path.is_file() {
        return;
    }
    println!("cargo:rustc-cdylib-link-arg=-Wl,--whole-archive");
    println!("cargo:rustc-cdylib-link-arg={}", path.display());
    println!("cargo:rustc-cdylib-link-arg=-Wl,--no-whole-archive");
}

/// Whether the C library linked against loads packed relative relocations (DT_RELR, glibc 2.36+
/// defines the version GLIBC_ABI_DT_RELR that `-z pack-relative-relocs` makes the library need).
/// Packed, the ~2,000 relocations of the library take ~1 KiB instead of ~50 KiB, and the loader
/// touches one 64 KiB window of the file less in every process.
fn libc_has_packed_relocations() -> bool {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let Ok(out) = std::process::Command::new(cc)
        .arg("-print-file-name=libc.so.6")
        .output()
    else {
        return false;
    };
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    std::fs::read(path).is_ok_and(|bytes| {
        bytes
            .windows(b"GLIBC_ABI_DT_RELR".len())
            .any(|w| w == b"GLIBC_ABI_DT_RELR")
    })
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    // Programs linked against c-blosc2 3.2/3.3 record NEEDED libblosc2.so.9; ours must answer to it.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libblosc2.so.9");
        link_hot_text(&root);
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RBLOSC2_UPDATE_HEADERS");

    export_zlibng_version();

    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("include");
    generate(&root, &out);
    println!(
        "cargo:rustc-env=RBLOSC2_GENERATED_INCLUDE={}",
        out.display()
    );
    if std::env::var("RBLOSC2_UPDATE_HEADERS").as_deref() == Ok("1") {
        copy_tree(&out, &root.join("include"));
    }
}
