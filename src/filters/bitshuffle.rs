//! bitshuffle filter.
