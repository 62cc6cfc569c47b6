//! shuffle filter.
