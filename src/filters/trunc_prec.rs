//! trunc_prec filter.
