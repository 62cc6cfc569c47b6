//! bytedelta filter.
