//! schunk
