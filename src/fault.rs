//! Fault injection for the crate's own unit tests: makes a chosen core function panic on the
//! current thread, so that tests can check that the C layer turns an internal panic into an
//! error code (and that the library keeps working afterwards). Not compiled outside tests.

use std::cell::Cell;

thread_local! {
    static ARMED: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// Makes `hit(site)` panic on this thread until `disarm`.
pub fn arm(site: &'static str) {
    ARMED.with(|armed| armed.set(Some(site)));
}

pub fn disarm() {
    ARMED.with(|armed| armed.set(None));
}

/// Panics when `site` is armed on this thread.
pub fn hit(site: &'static str) {
    if ARMED.with(Cell::get) == Some(site) {
        panic!("fault injected at {site}");
    }
}
