//! One error type for the whole core; each variant maps 1:1 to a `BLOSC2_ERROR_*` code.

use std::fmt;

/// Errors of the core. `code()` gives the negative `BLOSC2_ERROR_*` value c-blosc2 returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    Failure,
    Stream,
    Data,
    MemoryAlloc,
    ReadBuffer,
    WriteBuffer,
    CodecSupport,
    CodecParam,
    CodecDict,
    VersionSupport,
    InvalidHeader,
    InvalidParam,
    FileRead,
    FileWrite,
    FileOpen,
    NotFound,
    RunLength,
    FilterPipeline,
    ChunkInsert,
    ChunkAppend,
    ChunkUpdate,
    TwoGbLimit,
    SchunkCopy,
    FrameType,
    FileTruncate,
    ThreadCreate,
    Postfilter,
    FrameSpecial,
    SchunkSpecial,
    PluginIo,
    FileRemove,
    NullPointer,
    InvalidIndex,
    MetalayerNotFound,
    MaxBufsizeExceeded,
    Tuner,
    Lock,
}

/// Result with the crate's error type.
pub type Result<T> = std::result::Result<T, Error>;

const ALL: [Error; 37] = [
    Error::Failure,
    Error::Stream,
    Error::Data,
    Error::MemoryAlloc,
    Error::ReadBuffer,
    Error::WriteBuffer,
    Error::CodecSupport,
    Error::CodecParam,
    Error::CodecDict,
    Error::VersionSupport,
    Error::InvalidHeader,
    Error::InvalidParam,
    Error::FileRead,
    Error::FileWrite,
    Error::FileOpen,
    Error::NotFound,
    Error::RunLength,
    Error::FilterPipeline,
    Error::ChunkInsert,
    Error::ChunkAppend,
    Error::ChunkUpdate,
    Error::TwoGbLimit,
    Error::SchunkCopy,
    Error::FrameType,
    Error::FileTruncate,
    Error::ThreadCreate,
    Error::Postfilter,
    Error::FrameSpecial,
    Error::SchunkSpecial,
    Error::PluginIo,
    Error::FileRemove,
    Error::NullPointer,
    Error::InvalidIndex,
    Error::MetalayerNotFound,
    Error::MaxBufsizeExceeded,
    Error::Tuner,
    Error::Lock,
];

impl Error {
    /// The `BLOSC2_ERROR_*` value (-1 ..= -37).
    pub fn code(self) -> i32 {
        -(ALL.iter().position(|e| *e == self).unwrap_or(0) as i32 + 1)
    }

    /// The error for a `BLOSC2_ERROR_*` value, if it is one.
    pub fn from_code(code: i32) -> Option<Error> {
        if (-37..=-1).contains(&code) {
            Some(ALL[(-code - 1) as usize])
        } else {
            None
        }
    }

    /// The message c-blosc2's `blosc2_error_string` gives for this error.
    pub fn message(self) -> &'static str {
        match self {
            Error::Failure => "Generic failure",
            Error::Stream => "Bad stream",
            Error::Data => "Invalid data",
            Error::MemoryAlloc => "Memory alloc/realloc failure",
            Error::ReadBuffer => "Not enough space to read",
            Error::WriteBuffer => "Not enough space to write",
            Error::CodecSupport => "Codec not supported",
            Error::CodecParam => "Invalid parameter supplied to codec",
            Error::CodecDict => "Codec dictionary error",
            Error::VersionSupport => "Version not supported",
            Error::InvalidHeader => "Invalid value in header",
            Error::InvalidParam => "Invalid parameter supplied to function",
            Error::FileRead => "File read failure",
            Error::FileWrite => "File write failure",
            Error::FileOpen => "File open failure",
            Error::NotFound => "Not found",
            Error::RunLength => "Bad run length encoding",
            Error::FilterPipeline => "Filter pipeline error",
            Error::ChunkInsert => "Chunk insert failure",
            Error::ChunkAppend => "Chunk append failure",
            Error::ChunkUpdate => "Chunk update failure",
            Error::TwoGbLimit => "Sizes larger than 2gb not supported",
            Error::SchunkCopy => "Super-chunk copy failure",
            Error::FrameType => "Wrong type for frame",
            Error::FileTruncate => "File truncate failure",
            Error::ThreadCreate => "Thread or thread context creation failure",
            Error::Postfilter => "Postfilter failure",
            Error::FrameSpecial => "Special frame failure",
            Error::SchunkSpecial => "Special super-chunk failure",
            Error::PluginIo => "IO plugin error",
            Error::FileRemove => "Remove file failure",
            Error::NullPointer => "Pointer is null",
            Error::InvalidIndex => "Invalid index",
            Error::MetalayerNotFound => "Metalayer has not been found",
            Error::MaxBufsizeExceeded => "Maximum buffersize exceeded",
            Error::Tuner => "Tuner failure",
            Error::Lock => "Frame lock failure",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message(), self.code())
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        assert_eq!(Error::Failure.code(), -1);
        assert_eq!(Error::InvalidParam.code(), -12);
        assert_eq!(Error::NullPointer.code(), -32);
        assert_eq!(Error::Lock.code(), -37);
        for c in -37..=-1 {
            assert_eq!(Error::from_code(c).unwrap().code(), c);
        }
        assert_eq!(Error::from_code(0), None);
        assert_eq!(Error::from_code(-38), None);
    }
}
