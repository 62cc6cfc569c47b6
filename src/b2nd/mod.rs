//! b2nd
