//! delta filter.
