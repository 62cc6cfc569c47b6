//! chunk
