//! The process-wide registry of user codecs and filters (`blosc2_register_codec`,
//! `blosc2_register_filter`). Entries are never removed, as in c-blosc2.
//!
//! Contexts look entries up when they are created: a compression context takes the codec and
//! filters its parameters name, a decompression context takes every entry (a chunk may name any).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, RwLock};

pub use super::params::{CodecEntry, FilterEntry};
use super::params::{UserCodec, UserFilter};
use crate::{Error, Result};

/// First id of the range c-blosc2 reserves for its own registered plugins.
pub const GLOBAL_REGISTERED_START: u8 = 32;
/// First id a user may register (BLOSC2_USER_REGISTERED_CODECS_START / _FILTERS_START).
pub const USER_REGISTERED_START: u8 = 160;
/// c-blosc2 keeps at most this many entries per registry.
const MAX_ENTRIES: usize = u8::MAX as usize;

/// The (id, implementation) pairs of every entry of a registry.
pub type Shared<T> = Arc<[(u8, Arc<T>)]>;

/// What both registries hold: an id, a name and the implementation contexts are given.
trait Entry {
    type Impl: ?Sized;
    fn id(&self) -> u8;
    fn name(&self) -> &str;
    fn implementation(&self) -> Arc<Self::Impl>;
}

impl Entry for CodecEntry {
    type Impl = dyn UserCodec;
    fn id(&self) -> u8 {
        self.id
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn implementation(&self) -> Arc<dyn UserCodec> {
        self.codec.clone()
    }
}

impl Entry for FilterEntry {
    type Impl = dyn UserFilter;
    fn id(&self) -> u8 {
        self.id
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn implementation(&self) -> Arc<dyn UserFilter> {
        self.filter.clone()
    }
}

/// A registry's entries, and their (id, implementation) pairs as one list that every
/// decompression context made until the next registration shares: a context takes one
/// reference to it instead of a list of its own with one reference per entry (the plugins
/// c-blosc2 registers at init made that most of what creating a decompression context cost).
struct Entries<E: Entry> {
    list: Vec<E>,
    shared: Shared<E::Impl>,
}

impl<E: Entry> Entries<E> {
    fn new(list: Vec<E>) -> Self {
        let shared = list.iter().map(|e| (e.id(), e.implementation())).collect();
        Entries { list, shared }
    }

    fn find(&self, id: u8) -> Option<&E> {
        self.list.iter().find(|e| e.id() == id)
    }

    fn push(&mut self, entry: E) {
        self.list.push(entry);
        self.shared = self
            .list
            .iter()
            .map(|e| (e.id(), e.implementation()))
            .collect();
        REGISTRATIONS.fetch_add(1, Ordering::Release);
    }

    /// Adds a user entry under the rule of [`admit`] (`refusal`: the registry's error code).
    fn register(&mut self, entry: E, refusal: Error) -> Result<()> {
        let taken = self.find(entry.id()).map(Entry::name);
        if admit(entry.id(), entry.name(), taken, self.list.len(), refusal)? {
            self.push(entry);
        }
        Ok(())
    }
}

/// Starts with the codecs c-blosc2 registers at init, as `FILTERS` does with the filters.
static CODECS: LazyLock<RwLock<Entries<CodecEntry>>> =
    LazyLock::new(|| RwLock::new(Entries::new(super::plugins::initial_codecs())));
/// Starts with the filters c-blosc2 registers at init, so no caller can see it without them.
static FILTERS: LazyLock<RwLock<Entries<FilterEntry>>> =
    LazyLock::new(|| RwLock::new(Entries::new(super::plugins::initial_filters())));
/// How many codecs and filters have been registered since the start (the registries only grow):
/// lets a holder of [`all_codecs`] / [`all_filters`] copies know they are still complete.
static REGISTRATIONS: AtomicUsize = AtomicUsize::new(0);

/// The count of registrations so far (see `REGISTRATIONS`).
pub fn registrations() -> usize {
    REGISTRATIONS.load(Ordering::Acquire)
}

/// Shared registration rule of both registries: the user range only; an id already taken under
/// the same name is accepted again (nothing changes), under another name it is refused.
/// c-blosc2 answers both refusals with the same code, `refusal` (CodecParam for codecs,
/// Failure for filters).
fn admit(id: u8, name: &str, taken: Option<&str>, len: usize, refusal: Error) -> Result<bool> {
    if id < USER_REGISTERED_START {
        return Err(refusal);
    }
    if len >= MAX_ENTRIES {
        return Err(Error::CodecSupport);
    }
    match taken {
        Some(existing) if existing == name => Ok(false),
        Some(_) => Err(refusal),
        None => Ok(true),
    }
}

/// Registers a user codec (id 160..=255).
pub fn register_codec(entry: CodecEntry) -> Result<()> {
    let mut codecs = CODECS.write().unwrap_or_else(|e| e.into_inner());
    codecs.register(entry, Error::CodecParam)
}

/// Registers a user filter (id 160..=255).
pub fn register_filter(entry: FilterEntry) -> Result<()> {
    let mut filters = FILTERS.write().unwrap_or_else(|e| e.into_inner());
    filters.register(entry, Error::Failure)
}

/// Adds a codec of the range c-blosc2 reserves for the plugins it registers at init (32..160),
/// unless that id is taken: how the C layer adds the plugin codecs whose code c-blosc2 loads
/// from a shared library. Not for users, whose codecs go through [`register_codec`].
pub(crate) fn register_global_codec(entry: CodecEntry) {
    let mut codecs = CODECS.write().unwrap_or_else(|e| e.into_inner());
    let reserved = (GLOBAL_REGISTERED_START..USER_REGISTERED_START).contains(&entry.id);
    if reserved && codecs.find(entry.id).is_none() {
        codecs.push(entry);
    }
}

/// The registered codec with this id.
pub fn codec(id: u8) -> Option<CodecEntry> {
    let codecs = CODECS.read().unwrap_or_else(|e| e.into_inner());
    codecs.find(id).cloned()
}

/// The registered filter with this id.
pub fn filter(id: u8) -> Option<FilterEntry> {
    let filters = FILTERS.read().unwrap_or_else(|e| e.into_inner());
    filters.find(id).cloned()
}

/// Every registered codec, as `DParams::user_codecs` wants them.
pub fn all_codecs() -> Shared<dyn UserCodec> {
    let codecs = CODECS.read().unwrap_or_else(|e| e.into_inner());
    codecs.shared.clone()
}

/// Every registered filter, as `DParams::user_filters` wants them.
pub fn all_filters() -> Shared<dyn UserFilter> {
    let filters = FILTERS.read().unwrap_or_else(|e| e.into_inner());
    filters.shared.clone()
}

/// The registered codec whose library code is `complib` (how c-blosc2 names the library of a
/// chunk whose format code is not a built-in one).
pub fn codec_by_complib(complib: u8) -> Option<CodecEntry> {
    let codecs = CODECS.read().unwrap_or_else(|e| e.into_inner());
    codecs.list.iter().find(|c| c.complib == complib).cloned()
}

/// The registered codec with this name.
pub fn codec_by_name(name: &str) -> Option<CodecEntry> {
    let codecs = CODECS.read().unwrap_or_else(|e| e.into_inner());
    codecs.list.iter().find(|c| c.name == name).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::params::{CParams, DParams};

    struct Nop;
    impl UserCodec for Nop {
        fn encode(&self, _: &[u8], _: &mut [u8], _: u8, _: &CParams, _: &[u8]) -> i32 {
            0
        }
        fn decode(&self, _: &[u8], _: &mut [u8], _: u8, _: &DParams, _: &[u8], _: i32) -> i32 {
            0
        }
    }
    impl UserFilter for Nop {
        fn forward(&self, _: &[u8], _: &mut [u8], _: u8, _: &CParams, _: i32, _: i32) -> i32 {
            0
        }
        fn backward(&self, _: &[u8], _: &mut [u8], _: u8, _: &DParams, _: i32, _: i32) -> i32 {
            0
        }
    }

    fn codec(id: u8, name: &str) -> CodecEntry {
        CodecEntry {
            id,
            name: name.into(),
            complib: 7,
            version: 1,
            codec: Arc::new(Nop),
        }
    }

    fn filter(id: u8, name: &str) -> FilterEntry {
        FilterEntry {
            id,
            name: name.into(),
            version: 1,
            filter: Arc::new(Nop),
        }
    }

    #[test]
    fn ids_and_names_as_c_blosc2_checks_them() {
        assert_eq!(register_codec(codec(159, "a")), Err(Error::CodecParam));
        assert_eq!(register_codec(codec(0, "a")), Err(Error::CodecParam));
        assert_eq!(register_codec(codec(250, "reg-test")), Ok(()));
        assert_eq!(register_codec(codec(250, "reg-test")), Ok(()));
        assert_eq!(register_codec(codec(250, "other")), Err(Error::CodecParam));
        assert_eq!(super::codec(250).map(|c| c.name), Some("reg-test".into()));
        assert_eq!(codec_by_complib(7).map(|c| c.id), Some(250));
        assert_eq!(codec_by_name("reg-test").map(|c| c.id), Some(250));
        assert!(all_codecs().iter().any(|(id, _)| *id == 250));

        assert_eq!(register_filter(filter(32, "f")), Err(Error::Failure));
        assert_eq!(register_filter(filter(251, "reg-test")), Ok(()));
        assert_eq!(register_filter(filter(251, "reg-test")), Ok(()));
        assert_eq!(register_filter(filter(251, "x")), Err(Error::Failure));
        assert!(super::filter(251).is_some());
        assert!(all_filters().iter().any(|(id, _)| *id == 251));
        assert_eq!(super::filter(36).map(|f| f.name), Some("int_trunc".into()));
        assert_eq!(
            register_filter(filter(36, "int_trunc")),
            Err(Error::Failure)
        );
    }

    #[test]
    fn contexts_share_one_list_until_a_registration() {
        // Other tests register in parallel: two lists taken with no registration in between
        // are the same one.
        let before = loop {
            let n = registrations();
            let (a, b) = (all_codecs(), all_codecs());
            let (f, g) = (all_filters(), all_filters());
            if registrations() == n {
                assert!(Arc::ptr_eq(&a, &b));
                assert!(Arc::ptr_eq(&f, &g));
                break a;
            }
        };
        assert!(!before.iter().any(|(id, _)| *id == 249));
        // (complib 7 is the other test's.)
        let entry = CodecEntry {
            complib: 249,
            ..codec(249, "share-test")
        };
        assert_eq!(register_codec(entry), Ok(()));
        let after = all_codecs();
        assert!(!Arc::ptr_eq(&before, &after));
        assert!(after.iter().any(|(id, _)| *id == 249));
        // The old list is left as it was for whoever holds it.
        assert!(!before.iter().any(|(id, _)| *id == 249));
        // The plugins c-blosc2 registers at init are in every list.
        assert!(after.iter().any(|(id, _)| *id == 32));
        assert!(all_filters().iter().any(|(id, _)| *id == 36));
    }
}
