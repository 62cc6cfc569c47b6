//! The filter ids c-blosc2 3.3.5 defines, in one table: id, name and how each is provided (in
//! the chunk engine's own pipeline, or registered at start-up with its functions). The ids are
//! defined here; `chunk::header`, `chunk::pipeline` and `chunk::plugins` re-export them.

/// Filter id: an empty pipeline slot (`BLOSC_NOFILTER`).
pub const NOFILTER: u8 = 0;
/// Filter id: byte shuffle (`BLOSC_SHUFFLE`).
pub const SHUFFLE: u8 = 1;
/// Filter id: bit shuffle (`BLOSC_BITSHUFFLE`).
pub const BITSHUFFLE: u8 = 2;
/// Filter id: XOR delta against the chunk's first block (`BLOSC_DELTA`).
pub const DELTA: u8 = 3;
/// Filter id: truncate float precision to the number of bits in the slot's meta byte
/// (`BLOSC_TRUNC_PREC`).
pub const TRUNC_PREC: u8 = 4;
/// Filters with ids above this are plugins or user-defined.
pub const DEFINED_FILTERS_STOP: u8 = 31;
/// `BLOSC_FILTER_NDCELL`.
pub const NDCELL: u8 = 32;
/// `BLOSC_FILTER_NDMEAN`.
pub const NDMEAN: u8 = 33;
/// Ids of the bytedelta filters (registered plugin ids in c-blosc2): the old one and the fixed one.
pub const BYTEDELTA_BUGGY: u8 = 34;
/// Id of the fixed bytedelta filter (`BLOSC_FILTER_BYTEDELTA`); its meta byte, the number of
/// byte streams (normally the typesize), must be non-zero to compress.
pub const BYTEDELTA: u8 = 35;
/// `BLOSC_FILTER_INT_TRUNC`.
pub const INT_TRUNC: u8 = 36;

/// How a filter of [`FILTERS`] is provided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// Run by the chunk engine's own pipeline ("built-in").
    Builtin,
    /// Put in the filter registry at start-up with its functions (`chunk::plugins`).
    Registered,
}

/// One filter c-blosc2 defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Filter {
    /// Its id.
    pub id: u8,
    /// Its name (as c-blosc2 registers it, for the ids it registers).
    pub name: &'static str,
    /// How it is provided.
    pub provider: Provider,
}

const fn filter(id: u8, name: &'static str, provider: Provider) -> Filter {
    Filter { id, name, provider }
}

/// Every filter id c-blosc2 defines, in id order.
pub const FILTERS: &[Filter] = &[
    filter(NOFILTER, "nofilter", Provider::Builtin),
    filter(SHUFFLE, "shuffle", Provider::Builtin),
    filter(BITSHUFFLE, "bitshuffle", Provider::Builtin),
    filter(DELTA, "delta", Provider::Builtin),
    filter(TRUNC_PREC, "trunc_prec", Provider::Builtin),
    filter(NDCELL, "ndcell", Provider::Registered),
    filter(NDMEAN, "ndmean", Provider::Registered),
    filter(BYTEDELTA_BUGGY, "bytedelta_buggy", Provider::Builtin),
    filter(BYTEDELTA, "bytedelta", Provider::Builtin),
    filter(INT_TRUNC, "int_trunc", Provider::Registered),
];

/// Whether each id (as index) is in [`FILTERS`], computed at compile time.
const KNOWN: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < FILTERS.len() {
        table[FILTERS[i].id as usize] = true;
        i += 1;
    }
    table
};

/// Whether a filter id is one c-blosc2 defines (one of [`FILTERS`]).
pub fn is_known(id: u8) -> bool {
    KNOWN[id as usize]
}

/// The table entry of a filter id.
pub fn filter_of(id: u8) -> Option<&'static Filter> {
    FILTERS.iter().find(|f| f.id == id)
}

/// The name of a filter id.
pub fn name_of(id: u8) -> Option<&'static str> {
    filter_of(id).map(|f| f.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ids() {
        assert_eq!(name_of(TRUNC_PREC), Some("trunc_prec"));
        assert_eq!(name_of(35), Some("bytedelta"));
        assert_eq!(name_of(5), None);
        assert_eq!(name_of(37), None);
        let known: Vec<u8> = (0..=255).filter(|&f| is_known(f)).collect();
        assert_eq!(known, [0, 1, 2, 3, 4, 32, 33, 34, 35, 36]);
        for (i, f) in FILTERS.iter().enumerate() {
            assert!(FILTERS[..i].iter().all(|g| g.id < f.id && g.name != f.name));
        }
    }

    /// The enumerators the C headers write for filters (`BLOSC_SHUFFLE = 1`,
    /// `BLOSC_FILTER_NDCELL = 32`, ...) are the table's ids.
    #[test]
    fn header_filters_match_the_table() {
        use crate::header_text::enumerator;
        for f in FILTERS {
            let upper = f.name.to_uppercase();
            let c_name = if f.id > DEFINED_FILTERS_STOP {
                format!("BLOSC_FILTER_{upper}")
            } else {
                format!("BLOSC_{upper}")
            };
            assert_eq!(enumerator(&c_name), Some(i64::from(f.id)), "{c_name}");
        }
        let last = FILTERS
            .iter()
            .filter(|f| f.id <= DEFINED_FILTERS_STOP)
            .count();
        assert_eq!(enumerator("BLOSC_LAST_FILTER"), Some(last as i64));
        let last_registered = FILTERS.last().map(|f| i64::from(f.id));
        assert_eq!(enumerator("BLOSC_LAST_REGISTERED_FILTER"), last_registered);
    }
}
