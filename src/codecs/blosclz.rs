//! BloscLZ codec.
