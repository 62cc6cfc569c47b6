//! Dynamic plugins: a codec or filter registered from C without its functions (encoder/decoder
//! or forward/backward NULL) is looked up in a shared library the first time a chunk needs it,
//! as c-blosc2 3.3.5 does, so plugins built for c-blosc2 (blosc2_grok, blosc2_openhtj2k, ...)
//! load on ours unchanged.
//!
//! How the library is found, in c-blosc2's order:
//! 1. `dlopen("libblosc2_<name>.so", RTLD_LAZY)`: the dynamic loader's usual search
//!    (`LD_LIBRARY_PATH`, the loading object's RUNPATH, the ld.so cache, the system directories).
//!    This is the path for C users: install the plugin where the loader finds it.
//! 2. Otherwise the path printed by `python -c "import blosc2_<name>; blosc2_<name>.print_libpath()"`,
//!    then by the same with `python3`: where pip installs the Python packages of these plugins.
//!    c-blosc2 runs that command through the shell (`popen`); we run the interpreter directly, with
//!    no shell and the name only after it passed the check below, and keep its stderr unless
//!    `BLOSC_TRACE` is set (the reference lets Python's traceback reach the caller's stderr).
//!
//! Names other than ASCII letters, digits and `_` are refused before anything is tried, as the
//! reference refuses them: the name becomes part of a file name and of Python code.
//!
//! The library must export `info`, a struct of C-string pointers naming its functions
//! (`codec_info {encoder, decoder}` / `filter_info {forward, backward}` in the reference headers,
//! `tuner_info {init, next_blocksize, next_cparams, update, free}` for tuners), and those
//! functions. A library that lacks any of them is closed again and the load fails.
//! A loaded library stays loaded for the life of the process (its functions are kept); a failed
//! load is retried at the next use, as in c-blosc2.

use std::ffi::{CStr, CString};
use std::process::{Command, Stdio};
use std::sync::Arc;

use libc::{c_char, c_void};

use crate::capi::callbacks::CCodec;
use crate::chunk::registry;
use crate::codecs::names;

/// The addresses of the two functions a plugin's `info` names (encoder and decoder, or forward
/// and backward), both non-NULL.
#[derive(Clone, Copy)]
pub(crate) struct PluginFunctions {
    pub first: *mut c_void,
    pub second: *mut c_void,
}

// SAFETY: addresses of functions in a library that is never unloaded; calling them from any
// thread is what plugins written for c-blosc2 (which calls them from its worker threads) allow.
unsafe impl Send for PluginFunctions {}
// SAFETY: as for Send; the addresses are never written after the load.
unsafe impl Sync for PluginFunctions {}

/// Whether c-blosc2 would try to load a plugin of this name (ASCII letters, digits and `_`).
pub(crate) fn valid_plugin_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn tracing() -> bool {
    std::env::var_os("BLOSC_TRACE").is_some()
}

fn trace(msg: &str) {
    if tracing() {
        crate::capi::ffi::stderr_line(format_args!("[error] - {msg}"));
    }
}

/// `dlopen(path, RTLD_LAZY)`, or None.
fn open(path: &str) -> Option<*mut c_void> {
    let path = CString::new(path).ok()?;
    // SAFETY: `path` is a NUL-terminated string that outlives the call; dlopen has no other
    // precondition (running the library's constructors is what loading a plugin means).
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_LAZY) };
    (!handle.is_null()).then_some(handle)
}

/// The path a plugin's Python package reports, from `python` or else `python3`.
fn python_libpath(name: &str) -> Option<String> {
    let code = format!("import blosc2_{name}; blosc2_{name}.print_libpath()");
    for python in ["python", "python3"] {
        let stderr = if tracing() {
            Stdio::inherit()
        } else {
            Stdio::null()
        };
        let Ok(out) = Command::new(python)
            .args(["-c", &code])
            .stdin(Stdio::null())
            .stderr(stderr)
            .output()
        else {
            continue;
        };
        // Like the reference's fgets: the first line; an empty answer counts as no path.
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text.lines().next().unwrap_or("");
        if !line.is_empty() {
            return Some(line.to_owned());
        }
    }
    None
}

#[cfg(test)]
thread_local! {
    /// Set by [`without_plugins`]: the search finds nothing on this thread.
    static SEARCH_OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` as on a machine where no plugin is installed: the plugin search on this thread
/// finds nothing (for tests of what a missing plugin does, which would otherwise load one the
/// machine has, e.g. through a `python` that imports `blosc2_btune`).
#[cfg(test)]
pub(crate) fn without_plugins<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SEARCH_OFF.set(self.0);
        }
    }
    let _restore = Restore(SEARCH_OFF.replace(true));
    f()
}

/// Opens `libblosc2_<name>.so` by the rules in the module documentation.
fn open_plugin(name: &str) -> Option<*mut c_void> {
    if !valid_plugin_name(name) {
        trace("Invalid plugin name");
        return None;
    }
    #[cfg(test)]
    if SEARCH_OFF.get() {
        return None;
    }
    if let Some(handle) = open(&format!("libblosc2_{name}.so")) {
        return Some(handle);
    }
    let Some(path) = python_libpath(name) else {
        trace("Problems when running python or python3 for getting plugin path");
        return None;
    };
    let handle = open(&path);
    if handle.is_none() {
        trace(&format!("Attempt to load plugin in path '{path}' failed"));
    }
    handle
}

/// `dlsym(handle, name)`, or NULL.
fn symbol(handle: *mut c_void, name: &CStr) -> *mut c_void {
    // SAFETY: `handle` came from a successful dlopen and is still open; `name` is NUL-terminated.
    unsafe { libc::dlsym(handle, name.as_ptr()) }
}

/// Loads the plugin `name` and returns the two functions its `info` names (a codec's or a
/// filter's), or None when the library, its `info` or either function is missing.
pub(crate) fn load_plugin(name: &str) -> Option<PluginFunctions> {
    load_functions::<2>(name).map(|[first, second]| PluginFunctions { first, second })
}

/// Loads the plugin `name` whose `info` is a struct of `N` C-string pointers naming its
/// functions, and returns their addresses, all non-NULL; None when the library, its `info` or
/// any function is missing.
pub(crate) fn load_functions<const N: usize>(name: &str) -> Option<[*mut c_void; N]> {
    let handle = open_plugin(name)?;
    let info = symbol(handle, c"info").cast::<[*const c_char; N]>();
    // SAFETY: a plugin's `info` is a struct of N C-string pointers (`codec_info`,
    // `filter_info`, `tuner_info`: the contract of c-blosc2's plugin interface); a NULL
    // symbol is not read.
    let names = unsafe { info.as_ref() }.copied();
    let functions = names.and_then(|names| {
        let mut out = [std::ptr::null_mut(); N];
        for (slot, name) in out.iter_mut().zip(names) {
            if name.is_null() {
                return None;
            }
            // SAFETY: a non-NULL C string in the plugin's data, alive while the library is open.
            *slot = symbol(handle, unsafe { CStr::from_ptr(name) });
            if slot.is_null() {
                return None;
            }
        }
        Some(out)
    });
    if functions.is_none() {
        trace(&format!(
            "`info` or the functions it names cannot be loaded from plugin `{name}`"
        ));
        // SAFETY: the handle is open and nothing from it is kept.
        unsafe { libc::dlclose(handle) };
    }
    functions
}

/// Puts the plugin codecs of [`names::CODECS`] (c-blosc2 3.3.5 registers them at init without
/// functions and loads them from `libblosc2_<name>.so` when first used) in the registry (once),
/// before the C layer first resolves codecs for a context, so a plugin built for c-blosc2
/// (blosc2_grok, ...) is loaded on ours the same way. Their `complib` is their id, as c-blosc2
/// registers them.
pub(crate) fn ensure_plugin_codecs() {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(|| {
        for c in names::plugin_codecs() {
            registry::register_global_codec(registry::CodecEntry {
                id: c.id,
                name: c.name.into(),
                complib: c.id,
                version: 1,
                codec: Arc::new(CCodec::new(c.name.into(), None, None)),
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_reference_refuses_are_refused_before_any_search() {
        for ok in ["grok", "openhtj2k", "Ab9_", "_"] {
            assert!(valid_plugin_name(ok), "{ok}");
        }
        for bad in ["", "sub/x", "a;b", "a-b", "../x", "a b", "é"] {
            assert!(!valid_plugin_name(bad), "{bad}");
            assert!(load_plugin(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn without_plugins_nothing_is_found_and_the_search_comes_back() {
        // The switch holds on its thread only, and is undone afterwards, after a panic too.
        assert!(without_plugins(|| open_plugin("btune").is_none()));
        let caught = std::panic::catch_unwind(|| without_plugins(|| panic!("inside")));
        assert!(caught.is_err());
        assert!(!SEARCH_OFF.get());
    }

    #[test]
    fn a_missing_plugin_is_not_loaded() {
        // A valid name nothing answers to: the loader's search and both Python queries fail.
        assert!(load_plugin("rblosc2_test_no_such_plugin").is_none());
    }
}
