//! Every `extern "C" fn` of the C layer has the panic boundary: its body calls `entry` or
//! `guard` (src/capi/ffi.rs), or is one call to a function of src/capi whose body does (the
//! "forwarder" shape, e.g. `unsafe { create(ctx, array, Array::zeros) }`). The check reads the
//! sources of src/capi, so a new export written without the boundary fails here.
//!
//! Deliberate exceptions: the files of src/capi/pending/ (compiled only under
//! `cfg(rblosc2_pending)`, which no build enables: nothing there is exported), the callbacks
//! defined inside `#[cfg(test)]` modules (test code, never handed to C by the library), and the
//! functions of [`EXEMPT_FNS`], each with its reason.
//!
//! Also checked: no `eprintln!`/`println!` in the C layer (they panic when the write fails; the
//! C layer's diagnostics go through `ffi::stderr_line`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Directories of src/capi not compiled into the library (see the module documentation).
const EXEMPT_DIRS: &[&str] = &["pending"];

/// Exports without the boundary, and why none is needed: bodies that are constants, with no
/// call, arithmetic or indexing that could panic.
const EXEMPT_FNS: &[(&str, &str)] = &[
    (
        "blosc2_get_version_string",
        "returns the address of a string literal",
    ),
    (
        "blosc2_get_blosc2_cparams_defaults",
        "returns cparams_defaults(), a const fn building a struct of literals",
    ),
    (
        "blosc2_get_blosc2_dparams_defaults",
        "returns dparams_defaults(), a const fn building a struct of literals",
    ),
    (
        "blosc2_get_blosc2_storage_defaults",
        "returns a struct of literals",
    ),
    (
        "blosc2_get_blosc2_io_defaults",
        "returns a struct of literals",
    ),
    (
        "blosc2_get_blosc2_stdio_mmap_defaults",
        "returns a struct of literals",
    ),
];

/// `text` with comments removed and the contents of string and char literals blanked (so that
/// braces in them do not count), same length per line is not kept.
fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'"' => {
                out.push_str("\"\"");
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            // A char literal ('x', '\n', '{'); a lifetime ('a) has no closing quote after one char.
            b'\'' if b.get(i + 1) == Some(&b'\\') => {
                out.push_str("' '");
                i += 2;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') => {
                out.push_str("' '");
                i += 3;
            }
            c => {
                out.push(c as char);
                i += 1;
            }
        }
    }
    out
}

/// The text between the braces of the body that starts at the first `{` at or after `from`.
fn body_at(text: &str, from: usize) -> &str {
    let open = from + text[from..].find('{').unwrap();
    let mut depth = 0;
    for (k, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &text[open + 1..open + k];
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced braces after byte {from}");
}

/// The Rust sources of src/capi outside the exempt directories and test files, comments and
/// literals stripped, each cut before its `#[cfg(test)]` module.
fn capi_sources() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            if path.is_dir() {
                if !EXEMPT_DIRS.contains(&name.as_str()) {
                    walk(&path, out);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
                let text = strip(&std::fs::read_to_string(&path).unwrap());
                let text = match text.find("#[cfg(test)]\nmod ") {
                    Some(k) => text[..k].to_string(),
                    None => text,
                };
                out.push((path, text));
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src/capi"),
        &mut out,
    );
    out
}

fn has_boundary(body: &str) -> bool {
    ["entry(", "entry::<", "guard("].iter().any(|call| {
        body.match_indices(call).any(|(k, _)| {
            !body[..k].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.')
        })
    })
}

/// The function a forwarder's body calls: the body is one expression (no `;` outside nested
/// brackets, no `if`/`match`), optionally in `unsafe { }`, that starts with a call.
fn forwarded_to(body: &str) -> Option<&str> {
    let mut e = body.trim();
    if let Some(inner) = e.strip_prefix("unsafe") {
        e = inner.trim().strip_prefix('{')?.strip_suffix('}')?.trim();
    }
    let mut depth = 0i32;
    for c in e.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ';' if depth == 0 => return None,
            _ => {}
        }
    }
    let callee = &e[..e.find('(')?];
    let name = callee.rsplit("::").next()?.trim();
    (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(name)
}

/// The names of the `extern "C" fn`s (with a body) of src/capi that lack the boundary.
fn exports_without_boundary() -> (usize, Vec<String>) {
    let sources = capi_sources();
    // Every function of src/capi by name, with its body.
    let mut bodies: HashMap<String, Vec<(PathBuf, String)>> = HashMap::new();
    let mut externs = Vec::new();
    for (path, text) in &sources {
        for (k, _) in text.match_indices("fn ") {
            if k > 0 && !text[..k].ends_with(|c: char| c.is_whitespace()) {
                continue;
            }
            let rest = &text[k + 3..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let after = &rest[name.len()..];
            if name.is_empty() || !(after.starts_with('(') || after.starts_with('<')) {
                continue; // `fn(` of a function-pointer type
            }
            // Declarations without a body (in `extern` blocks, traits) end with `;` first.
            let sig_end = rest.find(['{', ';']).unwrap();
            if rest.as_bytes()[sig_end] == b';' {
                continue;
            }
            let body = body_at(text, k).to_string();
            if text[..k].trim_end().ends_with("extern \"\"") {
                externs.push((path.clone(), name.clone(), body.clone()));
            }
            bodies.entry(name).or_default().push((path.clone(), body));
        }
    }
    // The definition a call in `from` reaches: the one in the same file, else the one in the
    // same directory (module), else the only one of that name.
    let resolve = |callee: &str, from: &Path| -> Option<(PathBuf, String)> {
        let defs = bodies.get(callee)?;
        let pick = |same: &dyn Fn(&Path) -> bool| {
            let mut found = defs.iter().filter(|(p, _)| same(p));
            match (found.next(), found.next()) {
                (Some(d), None) => Some(d.clone()),
                _ => None,
            }
        };
        pick(&|p| p == from)
            .or_else(|| pick(&|p| p.parent() == from.parent()))
            .or_else(|| pick(&|_| true))
    };
    let bounded = |path: &Path, name: &str, body: &str| {
        let mut seen = vec![name.to_string()];
        let (mut path, mut body) = (path.to_path_buf(), body.to_string());
        loop {
            if has_boundary(&body) {
                return true;
            }
            let Some(callee) = forwarded_to(&body) else {
                return false;
            };
            if seen.iter().any(|s| s == callee) {
                return false;
            }
            seen.push(callee.to_string());
            match resolve(callee, &path) {
                Some((p, b)) => (path, body) = (p, b),
                None => return false,
            }
        }
    };
    for (exempt, _) in EXEMPT_FNS {
        assert!(
            externs.iter().any(|(_, name, _)| name == exempt),
            "EXEMPT_FNS names {exempt}, which is no longer an extern \"C\" function of src/capi"
        );
    }
    let missing = externs
        .iter()
        .filter(|(_, name, _)| !EXEMPT_FNS.iter().any(|(e, _)| e == name))
        .filter(|(path, name, body)| !bounded(path, name, body))
        .map(|(path, name, _)| format!("{}: {name}", path.display()))
        .collect();
    (externs.len(), missing)
}

#[test]
fn every_extern_c_function_has_the_panic_boundary() {
    let (checked, missing) = exports_without_boundary();
    assert!(
        checked >= 160,
        "found only {checked} extern \"C\" functions"
    );
    assert!(
        missing.is_empty(),
        "extern \"C\" functions without the panic boundary (wrap the body in ffi::entry or \
         ffi::guard):\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_c_layer_prints_without_panicking() {
    let printing: Vec<String> = capi_sources()
        .iter()
        .filter(|(_, text)| text.contains("eprintln!") || text.contains("println!"))
        .map(|(path, _)| path.display().to_string())
        .collect();
    assert!(
        printing.is_empty(),
        "println!/eprintln! in the C layer (use ffi::stderr_line): {printing:?}"
    );
}

#[test]
fn the_boundary_check_sees_a_missing_boundary() {
    assert!(has_boundary("unsafe { entry(|| Ok(0)) }"));
    assert!(has_boundary("guard(0, || 1)"));
    assert!(!has_boundary("my_entry(|| Ok(0))"));
    assert!(!has_boundary("if p.is_null() { return -1; } 0"));
    assert_eq!(
        forwarded_to("unsafe { create(ctx, array, |p| { a; b }) }"),
        Some("create")
    );
    assert_eq!(
        forwarded_to("unsafe { super::open_c(p, 0) }"),
        Some("open_c")
    );
    assert_eq!(forwarded_to("let x = f(); g(x)"), None);
    assert_eq!(
        strip("a /* } */ \"{\" '{' 'a // }\nb"),
        "a  \"\" ' ' 'a \nb"
    );
}

/// No function of the C layer (outside tests) is over 120 lines: the C layer only translates.
#[test]
fn no_c_layer_function_is_over_120_lines() {
    let mut long = Vec::new();
    for (path, text) in capi_sources() {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            let indent = &line[..line.len() - t.len()];
            let is_fn = t.split("fn ").next().is_some_and(|before| {
                t.contains("fn ")
                    && before.split_whitespace().all(|w| {
                        [
                            "pub",
                            "pub(crate)",
                            "pub(super)",
                            "const",
                            "unsafe",
                            "extern",
                            "\"\"",
                        ]
                        .contains(&w)
                    })
            });
            if !is_fn || line.trim_end().ends_with(';') {
                continue;
            }
            let close = format!("{indent}}}");
            if let Some(len) = lines[i..].iter().position(|l| l.trim_end() == close) {
                if len + 1 > 120 {
                    long.push(format!("{}:{}: {} lines", path.display(), i + 1, len + 1));
                }
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over 120 lines:\n{}",
        long.join("\n")
    );
}
