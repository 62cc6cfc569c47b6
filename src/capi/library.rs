//! Library-wide functions of blosc2.h: init/destroy, global settings, codec names, versions,
//! error strings, default parameter structs, timing and path helpers.
